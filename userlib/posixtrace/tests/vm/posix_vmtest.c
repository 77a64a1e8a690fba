// SPDX-License-Identifier: MIT
/*
 * libposixtrace end to end, in the test VM with the module loaded: a
 * controller creates a stream with a log (posix_trace_create_withlog)
 * for itself or for a child, the target records events
 * (posix_trace_eventid_open, posix_trace_event), and an analyzer reads
 * the log back (posix_trace_open, _getnext_event, _rewind, _close),
 * checking every event once, in timestamp order, with all it was
 * recorded with; and the errors the manual pages list.  Each test runs
 * in a process of its own (ktap.h), so each is a fresh target.
 */
#define _GNU_SOURCE
#include "ktap.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace.h>
#include <tracebuf_reader.h>

#include "posixtrace_priv.h"
#include "ptvm.h"

/* A C string equal to a literal. */
#define T_EXPECT_CSTR(s, lit)						\
	do {								\
		if (strcmp((s), (lit)))					\
			T_FAIL("%s is \"%.80s\", not \"%s\"", #s, (s), (lit)); \
	} while (0)

struct seen {
	trace_event_id_t id;
	uint64_t data;
	struct posix_trace_event_info info;
	int status;
	size_t len;
};

/*
 * Read the whole log: every event into v (at most cap); the count.  The
 * system events (the log's START, STOP, ...) are left out, unless
 * @system.
 */
static size_t read_log_events(int fd, struct seen *v, size_t cap, trace_id_t *tridp,
			      bool system)
{
	trace_id_t trid;
	size_t n = 0;

	if (t_log_open(fd, &trid)) {
		T_FAIL("t_log_open() of the log failed");
		return 0;
	}
	for (;;) {
		struct posix_trace_event_info info;
		uint64_t data = 0;
		size_t len = 0;
		int unavailable = -1;

		if (posix_trace_getnext_event(trid, &info, &data, sizeof(data), &len,
					      &unavailable)) {
			T_FAIL("posix_trace_getnext_event() failed");
			break;
		}
		if (unavailable)
			break;
		if (!system && info.posix_event_id < POSIX_TRACE_UNNAMED_USER_EVENT)
			continue;
		if (n < cap) {
			v[n].id = info.posix_event_id;
			v[n].data = data;
			v[n].info = info;
			v[n].status = info.posix_truncation_status;
			v[n].len = len;
		}
		n++;
	}
	if (tridp)
		*tridp = trid;
	else
		T_EXPECT_EQ(posix_trace_close(trid), 0);
	return n;
}

static size_t read_log(int fd, struct seen *v, size_t cap, trace_id_t *tridp)
{
	return read_log_events(fd, v, cap, tridp, false);
}

static bool ts_le(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec <= b->tv_nsec);
}

/*
 * A traced child: it opens the event types @names (up to 4), says so,
 * and on child_go() records @n events of each, in turn, with data 0 to
 * n - 1; then, if @linger, it waits for child_end() to exit.
 */
struct target {
	pid_t pid;
	int go[2], ready[2];
	bool linger;
};

static void child_start(struct target *c, const char *const *names, uint64_t n, bool linger)
{
	trace_event_id_t id[4];
	unsigned int k = 0;
	char b;

	c->linger = linger;
	T_ASSERT_EQ(pipe(c->go), 0);
	T_ASSERT_EQ(pipe(c->ready), 0);
	c->pid = fork();
	T_ASSERT(c->pid >= 0);
	if (c->pid == 0) {
		for (; k < 4 && names[k]; k++)
			if (posix_trace_eventid_open(names[k], &id[k]))
				_exit(3);
		if (write(c->ready[1], "r", 1) != 1 || read(c->go[0], &b, 1) != 1)
			_exit(4);
		for (uint64_t i = 0; i < n; i++)
			for (unsigned int j = 0; j < k; j++)
				posix_trace_event(id[j], &i, sizeof(i));
		if (write(c->ready[1], "d", 1) != 1 || (linger && read(c->go[0], &b, 1) != 1))
			_exit(5);
		_exit(0);
	}
	T_ASSERT_EQ(read(c->ready[0], &b, 1), 1);
}

/* A stream of this process with @attr and a log on @fd, started, and type @name. */
static void self_log_start(const trace_attr_t *attr, int fd, const char *name, trace_id_t *trid,
			   trace_event_id_t *id)
{
	T_ASSERT_EQ(posix_trace_create_withlog(0, attr, fd, trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open(name, id), 0);
	T_ASSERT_EQ(posix_trace_start(*trid), 0);
}

/* The child records its events; it has when this returns. */
static void child_go(struct target *c)
{
	char b;

	T_ASSERT_EQ(write(c->go[1], "g", 1), 1);
	T_ASSERT_EQ(read(c->ready[0], &b, 1), 1);
}

/* The child exits, with status 0. */
static void child_end(struct target *c)
{
	int status;

	if (c->linger)
		T_ASSERT_EQ(write(c->go[1], "q", 1), 1);
	T_ASSERT_EQ(waitpid(c->pid, &status, 0), c->pid);
	T_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	for (int i = 0; i < 2; i++) {
		close(c->go[i]);
		close(c->ready[i]);
	}
}

/* ---------------------------------------------------------------------- */

#define N_SELF 1000

/* a process traces itself: every event in the log, once, with its data */
static void self_trace_log_holds_every_event(void)
{
	static struct seen v[N_SELF + 1];
	trace_event_id_t a, b;
	trace_id_t trid, ltrid;
	char name[TRACE_EVENT_NAME_MAX + 1];
	int fd = log_fd();
	size_t n;

	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("alpha", &a), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("beta", &b), 0);
	T_EXPECT(a != b);
	T_EXPECT(a > POSIX_TRACE_UNNAMED_USER_EVENT && b > POSIX_TRACE_UNNAMED_USER_EVENT);
	/* not running: nothing is recorded */
	posix_trace_event(a, &(uint64_t){ 99999 }, 8);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	for (uint64_t i = 0; i < N_SELF; i++)
		posix_trace_event(i % 2 ? b : a, &i, sizeof(i));
	T_ASSERT_EQ(posix_trace_stop(trid), 0);
	posix_trace_event(a, &(uint64_t){ 99998 }, 8);
	T_EXPECT_EQ(posix_trace_eventid_get_name(trid, a, name), 0);
	T_EXPECT_CSTR(name, "alpha");
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	/* the id is gone */
	T_EXPECT_EQ(posix_trace_start(trid), EINVAL);

	n = read_log(fd, v, N_SELF + 1, &ltrid);
	T_EXPECT_EQ(n, N_SELF);
	for (size_t i = 0; i < n && i < N_SELF; i++) {
		T_EXPECT_EQ(v[i].data, i);
		T_EXPECT_EQ(v[i].id, i % 2 ? b : a);
		T_EXPECT_EQ(v[i].len, 8);
		T_EXPECT_EQ(v[i].status, POSIX_TRACE_NOT_TRUNCATED);
		T_EXPECT_EQ(v[i].info.posix_pid, getpid());
		T_EXPECT(pthread_equal(v[i].info.posix_thread_id, pthread_self()));
		/* the caller's address: in this function */
		T_EXPECT((uintptr_t)v[i].info.posix_prog_address >
			 (uintptr_t)self_trace_log_holds_every_event);
		T_EXPECT((uintptr_t)v[i].info.posix_prog_address <
			 (uintptr_t)self_trace_log_holds_every_event + 4096);
		if (i)
			T_EXPECT(ts_le(&v[i - 1].info.posix_timestamp,
				       &v[i].info.posix_timestamp));
		if (t_failures)
			break;
	}
	/* the log knows the names it recorded */
	T_EXPECT_EQ(posix_trace_eventid_get_name(ltrid, b, name), 0);
	T_EXPECT_CSTR(name, "beta");
	T_EXPECT_EQ(posix_trace_eventid_get_name(ltrid, POSIX_TRACE_START, name), 0);
	T_EXPECT_CSTR(name, "POSIX_TRACE_START");
	T_EXPECT_EQ(posix_trace_eventid_get_name(ltrid, b + 1, name), EINVAL);
	/* rewind: the first event again, the stream's start, then the first recorded */
	{
		struct posix_trace_event_info info;
		uint64_t d = 5;
		size_t len;
		int un;

		T_EXPECT_EQ(posix_trace_rewind(ltrid), 0);
		T_EXPECT_EQ(posix_trace_getnext_event(ltrid, &info, &d, sizeof(d), &len, &un), 0);
		T_EXPECT_EQ(un, 0);
		T_EXPECT_EQ(info.posix_event_id, POSIX_TRACE_START);
		T_EXPECT_EQ(len, 0);
		T_EXPECT_EQ(posix_trace_getnext_event(ltrid, &info, &d, sizeof(d), &len, &un), 0);
		T_EXPECT_EQ(un, 0);
		T_EXPECT_EQ(d, 0);
	}
	T_EXPECT_EQ(posix_trace_close(ltrid), 0);
	T_EXPECT_EQ(posix_trace_close(ltrid), EINVAL);
	T_EXPECT_EQ(posix_trace_rewind(ltrid), EINVAL);
}

/* the log is an FXT trace that libtracebuf's strict reader takes whole */
static void log_reads_as_a_tracebuf_trace(void)
{
	struct tracebuf_reader_record r;
	struct tracebuf_reader *rd;
	trace_event_id_t a;
	trace_id_t trid;
	struct stat st;
	int fd = log_fd(), ret;
	size_t events = 0, attrs = 0;
	char *buf;

	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("gamma", &a), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	for (uint64_t i = 0; i < 100; i++)
		posix_trace_event(a, &i, sizeof(i));
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	T_ASSERT_EQ(fstat(fd, &st), 0);
	buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	T_ASSERT(buf != MAP_FAILED);
	T_ASSERT_EQ(t_trace_open_mem(buf, (size_t)st.st_size,
					     TRACEBUF_LIB_READER_STRICT | TRACEBUF_LIB_READER_MAGIC,
					     &rd), 0);
	while ((ret = tracebuf_reader_next(rd, &r)) > 0) {
		if (r.type == TRACEBUF_LIB_FXT_RECORD_BLOB && r.blob.name.len == 16 &&
		    !memcmp(r.blob.name.data, PT_LOG_ATTR_NAME, 16))
			attrs++;
		if (r.type == TRACEBUF_LIB_FXT_RECORD_EVENT && r.event.category.len == 11 &&
		    !memcmp(r.event.category.data, "posix:gamma", 11) &&
		    r.event.name.len == 5 && !memcmp(r.event.name.data, "gamma", 5))
			events++;
	}
	T_EXPECT_EQ(ret, 0);
	T_EXPECT_EQ(tracebuf_reader_unresolved_refs(rd), 0);
	T_EXPECT_EQ(attrs, 1);
	T_EXPECT_EQ(events, 100);
	tracebuf_reader_close(rd);
}

#define N_THREADS 4
#define N_PER_THREAD 5000

static trace_event_id_t mt_id;

static void *mt_writer(void *arg)
{
	uint64_t t = (uint64_t)(uintptr_t)arg;

	for (uint64_t i = 0; i < N_PER_THREAD; i++) {
		uint64_t d = t << 32 | i;

		posix_trace_event(mt_id, &d, sizeof(d));
	}
	return NULL;
}

/* events of several threads: each once, in timestamp order, each
 * thread's in the order it recorded them
 */
static void threads_events_each_once_in_timestamp_order(void)
{
	static struct seen v[N_THREADS * N_PER_THREAD + 1];
	uint64_t next[N_THREADS] = { 0 };
	pthread_t th[N_THREADS];
	trace_id_t trid;
	int fd = log_fd();
	size_t n;

	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("mt", &mt_id), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	for (uintptr_t t = 0; t < N_THREADS; t++)
		T_ASSERT_EQ(pthread_create(&th[t], NULL, mt_writer, (void *)t), 0);
	for (int t = 0; t < N_THREADS; t++)
		pthread_join(th[t], NULL);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	n = read_log(fd, v, N_THREADS * N_PER_THREAD + 1, NULL);
	T_EXPECT_EQ(n, N_THREADS * N_PER_THREAD);
	for (size_t i = 0; i < n && i < N_THREADS * N_PER_THREAD && !t_failures; i++) {
		uint64_t t = v[i].data >> 32, seq = v[i].data & 0xffffffffu;

		T_ASSERT(t < N_THREADS);
		T_EXPECT_EQ(seq, next[t]);
		next[t] = seq + 1;
		if (i)
			T_EXPECT(ts_le(&v[i - 1].info.posix_timestamp,
				       &v[i].info.posix_timestamp));
	}
}

/* data longer than max-data-size: TRUNCATED_RECORD; a short read buffer:
 * TRUNCATED_READ
 */
static void truncation_is_reported(void)
{
	char big[100], out[64];
	struct posix_trace_event_info info;
	trace_event_set_t set;
	trace_event_id_t a;
	trace_id_t trid, ltrid;
	trace_attr_t attr;
	size_t len;
	int fd = log_fd(), un;

	memset(big, 'x', sizeof(big));
	T_ASSERT_EQ(posix_trace_attr_init(&attr), 0);
	T_ASSERT_EQ(posix_trace_attr_setmaxdatasize(&attr, 16), 0);
	T_ASSERT_EQ(posix_trace_create_withlog(0, &attr, fd, &trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("t", &a), 0);
	/* no START, no STOP: the system events are filtered out */
	T_ASSERT_EQ(posix_trace_eventset_fill(&set, POSIX_TRACE_SYSTEM_EVENTS), 0);
	T_ASSERT_EQ(posix_trace_set_filter(trid, &set, POSIX_TRACE_SET_EVENTSET), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	posix_trace_event(a, big, sizeof(big));
	posix_trace_event(a, big, 8);
	posix_trace_event(a, NULL, 0);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);

	T_ASSERT_EQ(t_log_open(fd, &ltrid), 0);
	T_EXPECT_EQ(posix_trace_getnext_event(ltrid, &info, out, sizeof(out), &len, &un), 0);
	T_EXPECT_EQ(un, 0);
	T_EXPECT_EQ(len, 16);
	T_EXPECT_EQ(info.posix_truncation_status, POSIX_TRACE_TRUNCATED_RECORD);
	T_EXPECT_EQ(posix_trace_getnext_event(ltrid, &info, out, 4, &len, &un), 0);
	T_EXPECT_EQ(len, 4);
	T_EXPECT_EQ(info.posix_truncation_status, POSIX_TRACE_TRUNCATED_READ);
	T_EXPECT_EQ(posix_trace_getnext_event(ltrid, &info, NULL, 0, &len, &un), 0);
	T_EXPECT_EQ(un, 0);
	T_EXPECT_EQ(len, 0);
	T_EXPECT_EQ(info.posix_truncation_status, POSIX_TRACE_NOT_TRUNCATED);
	T_EXPECT_EQ(posix_trace_getnext_event(ltrid, &info, out, sizeof(out), &len, &un), 0);
	T_EXPECT(un != 0);
	T_EXPECT_EQ(posix_trace_close(ltrid), 0);
}

/* the stream's attributes, and the log's: those it was created with */
static void attributes_of_the_stream_and_of_its_log(void)
{
	char name[TRACE_NAME_MAX];
	struct timespec created, t0;
	trace_attr_t attr, got;
	trace_id_t trid, ltrid;
	int fd = log_fd(), pol = 0;
	size_t sz = 0;

	T_ASSERT_EQ(posix_trace_attr_init(&attr), 0);
	T_ASSERT_EQ(posix_trace_attr_setname(&attr, "my stream"), 0);
	T_ASSERT_EQ(posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_LOOP), 0);
	T_ASSERT_EQ(posix_trace_attr_setmaxdatasize(&attr, 200), 0);
	clock_gettime(CLOCK_REALTIME, &t0);
	T_ASSERT_EQ(posix_trace_create_withlog(0, &attr, fd, &trid), 0);
	T_ASSERT_EQ(posix_trace_get_attr(trid, &got), 0);
	T_EXPECT_EQ(posix_trace_attr_getname(&got, name), 0);
	T_EXPECT_CSTR(name, "my stream");
	T_EXPECT_EQ(posix_trace_attr_getcreatetime(&got, &created), 0);
	/* CLOCK_REALTIME, when it was created */
	T_EXPECT(ts_le(&t0, &created));
	/* the object the stream was created from is not changed */
	T_EXPECT_EQ(posix_trace_attr_getcreatetime(&attr, &t0), 0);
	T_EXPECT_EQ(t0.tv_sec, 0);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);

	T_ASSERT_EQ(t_log_open(fd, &ltrid), 0);
	T_ASSERT_EQ(posix_trace_get_attr(ltrid, &got), 0);
	T_EXPECT_EQ(posix_trace_attr_getname(&got, name), 0);
	T_EXPECT_CSTR(name, "my stream");
	T_EXPECT_EQ(posix_trace_attr_getcreatetime(&got, &t0), 0);
	T_EXPECT_EQ(t0.tv_sec, created.tv_sec);
	T_EXPECT_EQ(t0.tv_nsec, created.tv_nsec);
	T_EXPECT_EQ(posix_trace_attr_getstreamfullpolicy(&got, &pol), 0);
	T_EXPECT_EQ(pol, POSIX_TRACE_LOOP);
	T_EXPECT_EQ(posix_trace_attr_getmaxdatasize(&got, &sz), 0);
	T_EXPECT_EQ(sz, 200);
	T_EXPECT_EQ(posix_trace_close(ltrid), 0);
	/* EINVAL: no such stream or log, no object */
	T_EXPECT_EQ(posix_trace_get_attr(ltrid, &got), EINVAL);
	T_EXPECT_EQ(posix_trace_get_attr(trid, &got), EINVAL);
	T_EXPECT_EQ(posix_trace_get_attr(0, &got), EINVAL);
	T_ASSERT_EQ(posix_trace_create(0, &attr, &trid), 0);
	T_EXPECT_EQ(posix_trace_get_attr(trid, NULL), EINVAL);
	/* the stream's own attributes, the other ones as they were set */
	T_EXPECT_EQ(posix_trace_get_attr(trid, &got), 0);
	T_EXPECT_EQ(posix_trace_attr_getmaxdatasize(&got, &sz), 0);
	T_EXPECT_EQ(sz, 200);
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
}

/*
 * posix_trace_eventtypelist_getnext_id(3p): the stream's event types one
 * at a time, then unavailable; _rewind() starts the list again; EINVAL
 * for a trid that is no stream or log.
 */
static void eventtypelist_lists_each_type_once(void)
{
	trace_event_id_t a, b, id, first = 0;
	trace_id_t trid;
	size_t n = 0, sys = 0;
	bool seen_a = false, seen_b = false;
	int un = -1;

	T_ASSERT_EQ(posix_trace_create(0, NULL, &trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("tl_a", &a), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("tl_b", &b), 0);
	for (;;) {
		T_ASSERT_EQ(posix_trace_eventtypelist_getnext_id(trid, &id, &un), 0);
		if (un)
			break;
		if (!n++)
			first = id;
		sys += id < POSIX_TRACE_UNNAMED_USER_EVENT;
		seen_a |= id == a;
		seen_b |= id == b;
		if (n > 300)
			break;
	}
	T_EXPECT(un != 0);
	T_EXPECT(seen_a && seen_b);
	T_EXPECT_EQ(sys, 8);
	T_EXPECT_EQ(first, POSIX_TRACE_START);
	/* at the end it stays at the end */
	T_EXPECT_EQ(posix_trace_eventtypelist_getnext_id(trid, &id, &un), 0);
	T_EXPECT(un != 0);
	T_EXPECT_EQ(posix_trace_eventtypelist_rewind(trid), 0);
	T_EXPECT_EQ(posix_trace_eventtypelist_getnext_id(trid, &id, &un), 0);
	T_EXPECT_EQ(un, 0);
	T_EXPECT_EQ(id, first);
	T_EXPECT_EQ(posix_trace_eventtypelist_getnext_id(trid, NULL, &un), EINVAL);
	T_EXPECT_EQ(posix_trace_eventtypelist_getnext_id(trid, &id, NULL), EINVAL);
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
	T_EXPECT_EQ(posix_trace_eventtypelist_getnext_id(trid, &id, &un), EINVAL);
	T_EXPECT_EQ(posix_trace_eventtypelist_rewind(trid), EINVAL);
}

/* get_status: suspended when created, running once started, suspended
 * once stopped
 */
static void status_follows_start_and_stop(void)
{
	struct posix_trace_status_info st;
	trace_id_t trid;
	int fd = log_fd();

	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid), 0);
	T_EXPECT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_stream_status, POSIX_TRACE_SUSPENDED);
	T_EXPECT_EQ(st.posix_stream_overrun_status, POSIX_TRACE_NO_OVERRUN);
	T_EXPECT_EQ(posix_trace_start(trid), 0);
	T_EXPECT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_stream_status, POSIX_TRACE_RUNNING);
	/* started again: still running, no error */
	T_EXPECT_EQ(posix_trace_start(trid), 0);
	T_EXPECT_EQ(posix_trace_stop(trid), 0);
	T_EXPECT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_stream_status, POSIX_TRACE_SUSPENDED);
	T_EXPECT_EQ(posix_trace_stop(trid), 0);
	T_EXPECT_EQ(posix_trace_get_status(trid, NULL), EINVAL);
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
	T_EXPECT_EQ(posix_trace_get_status(trid, &st), EINVAL);
	T_EXPECT_EQ(posix_trace_shutdown(trid), EINVAL);
}

/* a stream of another process: its events, with its pid */
static void stream_of_a_child(void)
{
	static struct seen v[101];
	static const char *const names[] = { "child", NULL };
	int fd = log_fd();
	struct target c;
	trace_id_t trid;
	size_t n;

	child_start(&c, names, 100, false);
	T_ASSERT_EQ(posix_trace_create_withlog(c.pid, NULL, fd, &trid), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	child_go(&c);
	T_ASSERT_EQ(posix_trace_stop(trid), 0);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	child_end(&c);
	n = read_log(fd, v, 101, NULL);
	T_EXPECT_EQ(n, 100);
	for (size_t i = 0; i < n && i < 100 && !t_failures; i++) {
		T_EXPECT_EQ(v[i].data, i);
		T_EXPECT_EQ(v[i].info.posix_pid, c.pid);
	}
}

/*
 * create(pid, attr, trid) with a log on @fd, or without one (@fd -1): the
 * function of posix_trace_create(3p) that a test of both calls
 */
static int create_with(pid_t pid, const trace_attr_t *attr, int fd, trace_id_t *trid)
{
	return fd < 0 ? posix_trace_create(pid, attr, trid) :
			posix_trace_create_withlog(pid, attr, fd, trid);
}

/*
 * The errors posix_trace_create(3p) gives both functions: EINVAL for an
 * attributes object that posix_trace_attr_init() did not make or no
 * trid, ESRCH for a process that does not exist, EPERM without the
 * privilege to trace it, ENOMEM for a stream larger than the module
 * allows (64 MiB by default) or than any buffer can be.
 */
static void create_errors_of(int fd)
{
	size_t huge = sizeof(size_t) > 4 ? (size_t)(4ull << 30) : SIZE_MAX;
	trace_attr_t attr;
	trace_id_t trid;
	int status;
	pid_t dead, p;

	memset(&attr, 0, sizeof(attr));
	T_EXPECT_EQ(create_with(0, &attr, fd, &trid), EINVAL);
	T_EXPECT_EQ(create_with(0, NULL, fd, NULL), EINVAL);
	/* a process that no longer exists */
	dead = fork();
	T_ASSERT(dead >= 0);
	if (dead == 0)
		_exit(0);
	T_ASSERT_EQ(waitpid(dead, &status, 0), dead);
	T_EXPECT_EQ(create_with(dead, NULL, fd, &trid), ESRCH);
	/* not a manager: no right to trace */
	p = fork();
	T_ASSERT(p >= 0);
	if (p == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(3);
		_exit(create_with(0, NULL, fd, &trid) == EPERM ? 0 : 4);
	}
	T_ASSERT_EQ(waitpid(p, &status, 0), p);
	T_EXPECT(WIFEXITED(status));
	T_EXPECT_EQ(WEXITSTATUS(status), 0);
	/* more memory than the module gives one buffer, or than any holds */
	T_ASSERT_EQ(posix_trace_attr_init(&attr), 0);
	T_ASSERT_EQ(posix_trace_attr_setstreamsize(&attr, 256u << 20), 0);
	T_EXPECT_EQ(create_with(0, &attr, fd, &trid), ENOMEM);
	T_ASSERT_EQ(posix_trace_attr_setstreamsize(&attr, huge), 0);
	T_EXPECT_EQ(create_with(0, &attr, fd, &trid), ENOMEM);
	T_EXPECT_EQ(posix_trace_attr_destroy(&attr), 0);
}

/* the errors of posix_trace_create(3p), without a log */
static void create_errors(void)
{
	create_errors_of(-1);
}

/* the errors of posix_trace_create_withlog(3p) */
static void create_withlog_errors(void)
{
	trace_id_t trid;
	int fd = log_fd(), ro;

	T_EXPECT_EQ(posix_trace_create_withlog(0, NULL, -1, &trid), EBADF);
	ro = open("/proc/self/stat", O_RDONLY);
	T_ASSERT(ro >= 0);
	T_EXPECT_EQ(posix_trace_create_withlog(0, NULL, ro, &trid), EBADF);
	close(ro);
	create_errors_of(fd);
	T_EXPECT_EQ(posix_trace_start(0), EINVAL);
	T_EXPECT_EQ(posix_trace_stop(-1), EINVAL);
	T_EXPECT_EQ(posix_trace_shutdown(TRACE_SYS_MAX + 1), EINVAL);
}

/* at most TRACE_SYS_MAX streams and logs; then EAGAIN */
static void trace_sys_max_streams(void)
{
	trace_id_t trid[TRACE_SYS_MAX + 1];
	int fd = log_fd(), i;

	for (i = 0; i < TRACE_SYS_MAX; i++)
		T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid[i]), 0);
	T_EXPECT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid[i]), EAGAIN);
	T_EXPECT_EQ(posix_trace_create(0, NULL, &trid[i]), EAGAIN);
	T_EXPECT_EQ(t_log_open(fd, &trid[i]), EAGAIN);
	for (i = 0; i < TRACE_SYS_MAX; i++)
		T_EXPECT_EQ(posix_trace_shutdown(trid[i]), 0);
}

/* the errors of posix_trace_open(3p) and _getnext_event(3p) */
static void open_and_getnext_errors(void)
{
	struct posix_trace_event_info info;
	trace_id_t trid, strid;
	int fd = memfd_create("not-a-log", MFD_CLOEXEC), wo, un, p[2], dir;
	size_t len;
	char d[8];

	/* not a trace */
	T_ASSERT(fd >= 0);
	T_ASSERT_EQ(write(fd, "not a trace at all", 18), 18);
	T_EXPECT_EQ(t_log_open(fd, &trid), EINVAL);
	T_EXPECT_EQ(t_log_open(-1, &trid), EBADF);
	wo = open("/dev/null", O_WRONLY);
	T_ASSERT(wo >= 0);
	T_EXPECT_EQ(t_log_open(wo, &trid), EBADF);
	close(wo);
	T_EXPECT_EQ(t_log_open(fd, NULL), EINVAL);
	/* nor is a pipe or a directory ("not a valid trace log") */
	T_ASSERT_EQ(pipe(p), 0);
	T_EXPECT_EQ(t_log_open(p[0], &trid), EINVAL);
	close(p[0]);
	close(p[1]);
	dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	T_ASSERT(dir >= 0);
	T_EXPECT_EQ(t_log_open(dir, &trid), EINVAL);
	close(dir);
	/* an active stream with a log is read through its log: EINVAL */
	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, log_fd(), &strid), 0);
	T_EXPECT_EQ(posix_trace_getnext_event(strid, &info, d, sizeof(d), &len, &un), EINVAL);
	T_EXPECT_EQ(posix_trace_close(strid), EINVAL);
	T_EXPECT_EQ(posix_trace_rewind(strid), EINVAL);
	T_EXPECT_EQ(posix_trace_shutdown(strid), 0);
	T_EXPECT_EQ(posix_trace_getnext_event(strid, &info, d, sizeof(d), &len, &un), EINVAL);
}

/* eventid_open: one id per name; ENAMETOOLONG; the unnamed user event
 * once TRACE_USER_EVENT_MAX are open; the type list lists them
 */
static void eventid_open_ids_and_limits(void)
{
	char name[TRACE_EVENT_NAME_MAX + 2];
	trace_event_id_t a, a2, id, last = 0;
	trace_id_t trid;
	int fd = log_fd(), un, users = 0;

	T_ASSERT_EQ(posix_trace_eventid_open("same", &a), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("same", &a2), 0);
	T_EXPECT_EQ(a, a2);
	memset(name, 'n', sizeof(name));
	name[TRACE_EVENT_NAME_MAX] = '\0';
	T_EXPECT_EQ(posix_trace_eventid_open(name, &id), 0);
	name[TRACE_EVENT_NAME_MAX] = 'n';
	name[TRACE_EVENT_NAME_MAX + 1] = '\0';
	T_EXPECT_EQ(posix_trace_eventid_open(name, &id), ENAMETOOLONG);
	T_EXPECT_EQ(posix_trace_eventid_open(NULL, &id), EINVAL);
	for (int i = 0; i < TRACE_USER_EVENT_MAX + 5; i++) {
		snprintf(name, sizeof(name), "type%d", i);
		T_ASSERT_EQ(posix_trace_eventid_open(name, &id), 0);
		last = id;
	}
	T_EXPECT_EQ(last, POSIX_TRACE_UNNAMED_USER_EVENT);
	/* the list of a stream of this process: system, then user types */
	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid), 0);
	for (;;) {
		T_ASSERT_EQ(posix_trace_eventtypelist_getnext_id(trid, &id, &un), 0);
		if (un)
			break;
		if (id >= POSIX_TRACE_UNNAMED_USER_EVENT)
			users++;
	}
	T_EXPECT_EQ(users, TRACE_USER_EVENT_MAX);
	T_EXPECT_EQ(posix_trace_eventtypelist_rewind(trid), 0);
	T_EXPECT_EQ(posix_trace_eventtypelist_getnext_id(trid, &id, &un), 0);
	T_EXPECT_EQ(un, 0);
	T_EXPECT_EQ(id, POSIX_TRACE_START);
	T_EXPECT_EQ(posix_trace_eventid_get_name(trid, POSIX_TRACE_UNNAMED_USER_EVENT, name), 0);
	T_EXPECT_CSTR(name, "POSIX_TRACE_UNNAMED_USEREVENT");
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
	T_EXPECT_EQ(posix_trace_eventtypelist_rewind(trid), EINVAL);
}

/* ---------------------------------------------------------------------- */
/* Inheritance                                                            */

/*
 * A stream of this process with @inheritance; the process records 5
 * events, forks a child that records 10 (and a grandchild 3), then 5
 * more.  Returns how many of the log's events each process recorded.
 */
static void fork_under_stream(int inheritance, uint64_t before, size_t *parent, size_t *child,
			      size_t *grandchild)
{
	static struct seen v[64];
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid;
	pid_t pid, gpid = 0;
	int fd = log_fd(), status, p[2];
	size_t n;

	*parent = *child = *grandchild = 0;
	T_ASSERT_EQ(pipe(p), 0);
	T_ASSERT_EQ(posix_trace_attr_init(&attr), 0);
	T_ASSERT_EQ(posix_trace_attr_setinherited(&attr, inheritance), 0);
	self_log_start(&attr, fd, "fork", &trid, &a);
	for (uint64_t i = 0; i < before; i++)
		posix_trace_event(a, &i, sizeof(i));
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		pid_t g;

		for (uint64_t i = 100; i < 110; i++)
			posix_trace_event(a, &i, sizeof(i));
		g = fork();
		if (g == 0) {
			for (uint64_t i = 200; i < 203; i++)
				posix_trace_event(a, &i, sizeof(i));
			_exit(0);
		}
		if (g < 0 || waitpid(g, &status, 0) != g)
			_exit(3);
		if (write(p[1], &g, sizeof(g)) != sizeof(g))
			_exit(4);
		_exit(WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 5);
	}
	T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	T_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	T_EXPECT_EQ(read(p[0], &gpid, sizeof(gpid)), (ssize_t)sizeof(gpid));
	for (uint64_t i = 5; i < 10; i++)
		posix_trace_event(a, &i, sizeof(i));
	T_ASSERT_EQ(posix_trace_stop(trid), 0);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	n = read_log(fd, v, 64, NULL);
	for (size_t i = 0; i < n && i < 64; i++) {
		if (v[i].info.posix_pid == getpid() && v[i].data < 100)
			(*parent)++;
		else if (v[i].info.posix_pid == pid && v[i].data >= 100 && v[i].data < 110)
			(*child)++;
		else if (v[i].info.posix_pid == gpid && v[i].data >= 200 && v[i].data < 203)
			(*grandchild)++;
		else
			T_FAIL("event %" PRIu64 " of pid %d", v[i].data, (int)v[i].info.posix_pid);
	}
}

/* POSIX_TRACE_INHERITED: the children and theirs are traced too */
static void inherited_stream_traces_children(void)
{
	size_t parent, child, grandchild;

	fork_under_stream(POSIX_TRACE_INHERITED, 5, &parent, &child, &grandchild);
	T_EXPECT_EQ(parent, 10);
	T_EXPECT_EQ(child, 10);
	T_EXPECT_EQ(grandchild, 3);
}

/* ... also a child forked before its parent recorded anything since the start */
static void inherited_stream_traces_a_child_forked_at_once(void)
{
	size_t parent, child, grandchild;

	fork_under_stream(POSIX_TRACE_INHERITED, 0, &parent, &child, &grandchild);
	T_EXPECT_EQ(parent, 5);
	T_EXPECT_EQ(child, 10);
	T_EXPECT_EQ(grandchild, 3);
}

/* POSIX_TRACE_CLOSE_FOR_CHILD: they are not */
static void close_for_child_stream_does_not(void)
{
	size_t parent, child, grandchild;

	fork_under_stream(POSIX_TRACE_CLOSE_FOR_CHILD, 5, &parent, &child, &grandchild);
	T_EXPECT_EQ(parent, 10);
	T_EXPECT_EQ(child, 0);
	T_EXPECT_EQ(grandchild, 0);
}

/*
 * The processes of one inherited stream agree on event type ids
 * (posix_trace_eventid_open(3p): unique for all the processes traced in
 * the stream): types the parent and the child each open first after the
 * fork get different ids, each process that opens a name gets the id the
 * other gave it, the parent's stream knows the child's names, and the
 * log reports each event under its own type.
 */
static void inherited_stream_shares_event_type_ids(void)
{
	static struct seen v[16];
	trace_event_id_t a, mine, theirs, again, ids[2];
	char name[TRACE_EVENT_NAME_MAX + 1];
	int fd = log_fd(), status, p[2], go[2];
	size_t n, kinds[2] = { 0, 0 };
	trace_attr_t attr;
	trace_id_t trid;
	pid_t pid;

	T_ASSERT_EQ(pipe(p), 0);
	T_ASSERT_EQ(pipe(go), 0);
	T_ASSERT_EQ(posix_trace_attr_init(&attr), 0);
	T_ASSERT_EQ(posix_trace_attr_setinherited(&attr, POSIX_TRACE_INHERITED), 0);
	self_log_start(&attr, fd, "fork", &trid, &a);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		uint64_t d = 1;
		char b;

		/* after the parent opened "parent-late" */
		if (read(go[0], &b, 1) != 1 ||
		    posix_trace_eventid_open("child-type", &ids[0]) ||
		    posix_trace_eventid_open("parent-late", &ids[1]))
			_exit(2);
		posix_trace_event(ids[0], &d, sizeof(d));
		d = 2;
		posix_trace_event(ids[1], &d, sizeof(d));
		_exit(write(p[1], ids, sizeof(ids)) == sizeof(ids) ? 0 : 3);
	}
	T_ASSERT_EQ(posix_trace_eventid_open("parent-late", &mine), 0);
	T_ASSERT_EQ(write(go[1], "g", 1), 1);
	T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	T_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	T_ASSERT_EQ(read(p[0], ids, sizeof(ids)), (ssize_t)sizeof(ids));
	theirs = ids[0];
	T_EXPECT_EQ(ids[1], mine);
	T_EXPECT(theirs != mine);
	T_EXPECT(theirs != POSIX_TRACE_UNNAMED_USER_EVENT);
	T_EXPECT_EQ(posix_trace_eventid_get_name(trid, theirs, name), 0);
	T_EXPECT_CSTR(name, "child-type");
	T_EXPECT_EQ(posix_trace_eventid_open("child-type", &again), 0);
	T_EXPECT_EQ(again, theirs);
	T_ASSERT_EQ(posix_trace_stop(trid), 0);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	n = read_log(fd, v, 16, NULL);
	for (size_t i = 0; i < n && i < 16; i++) {
		T_EXPECT_EQ(v[i].info.posix_pid, pid);
		if (v[i].data == 1 && v[i].id == theirs)
			kinds[0]++;
		else if (v[i].data == 2 && v[i].id == mine)
			kinds[1]++;
		else
			T_FAIL("event %" PRIu64 " with id %u", v[i].data, (unsigned int)v[i].id);
	}
	T_EXPECT_EQ(kinds[0], 1);
	T_EXPECT_EQ(kinds[1], 1);
	close(fd);
}

/*
 * Two streams of this process that trace it, created before it opened an
 * event type (so both sessions wait for its provider): its events go to
 * the one created first, every time; the other records its own system
 * events only (posix_trace(7)).  Each round is a process of its own, so
 * that its provider registers anew.
 */
static int two_streams_round(void)
{
	static struct seen v[128];
	trace_id_t first, second;
	trace_event_id_t a;
	int fa = log_fd(), fb = log_fd();
	size_t na, nb;

	if (posix_trace_create_withlog(0, NULL, fa, &first) ||
	    posix_trace_create_withlog(0, NULL, fb, &second) ||
	    posix_trace_start(first) || posix_trace_start(second) ||
	    posix_trace_eventid_open("both", &a))
		return 10;
	for (uint64_t i = 0; i < 100; i++)
		posix_trace_event(a, &i, sizeof(i));
	if (posix_trace_shutdown(second) || posix_trace_shutdown(first))
		return 11;
	na = read_log(fa, v, 128, NULL);
	nb = read_log(fb, v, 128, NULL);
	printf("# the first stream: %zu events, the second: %zu\n", na, nb);
	fflush(stdout);
	return na == 100 && nb == 0 ? 0 : nb ? 2 : 1;
}

static void two_streams_the_first_gets_the_events(void)
{
	for (int round = 0; round < 6; round++) {
		int status;
		pid_t pid;

		fflush(stdout);
		pid = fork();
		T_ASSERT(pid >= 0);
		if (pid == 0)
			_exit(two_streams_round());
		T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
		T_EXPECT(WIFEXITED(status));
		T_EXPECT_EQ(WEXITSTATUS(status), 0);
	}
}

/*
 * Streams of two controller processes on one target that registered
 * before either: the target's provider goes to the stream created
 * first, every time; the other's calls succeed, and its log holds its
 * own system events only (posix_trace(7)).
 */
static void two_controllers_the_first_gets_the_events(void)
{
	static struct seen v[128];
	static const char *const names[] = { "shared", NULL };

	for (int round = 0; round < 3; round++) {
		int fa = log_fd(), fb = log_fd(), p[2], q[2], status;
		struct target c;
		trace_id_t mine;
		size_t na, nb;
		pid_t other;
		char b;

		child_start(&c, names, 100, false);
		T_ASSERT_EQ(pipe(p), 0);
		T_ASSERT_EQ(pipe(q), 0);
		fflush(stdout);
		other = fork();
		T_ASSERT(other >= 0);
		if (other == 0) {
			trace_id_t first;

			if (posix_trace_create_withlog(c.pid, NULL, fa, &first) ||
			    posix_trace_start(first) || write(p[1], "s", 1) != 1 ||
			    read(q[0], &b, 1) != 1)
				_exit(2);
			_exit(posix_trace_stop(first) || posix_trace_shutdown(first) ? 3 : 0);
		}
		T_ASSERT_EQ(read(p[0], &b, 1), 1);
		T_ASSERT_EQ(posix_trace_create_withlog(c.pid, NULL, fb, &mine), 0);
		T_EXPECT_EQ(posix_trace_start(mine), 0);
		child_go(&c);
		T_EXPECT_EQ(posix_trace_stop(mine), 0);
		T_EXPECT_EQ(posix_trace_shutdown(mine), 0);
		T_ASSERT_EQ(write(q[1], "e", 1), 1);
		T_ASSERT_EQ(waitpid(other, &status, 0), other);
		T_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		child_end(&c);
		na = read_log(fa, v, 128, NULL);
		nb = read_log(fb, v, 128, NULL);
		printf("# round %d: the first stream %zu events, the second %zu\n", round, na, nb);
		T_EXPECT_EQ(na, 100);
		T_EXPECT_EQ(nb, 0);
		close(p[0]);
		close(p[1]);
		close(q[0]);
		close(q[1]);
		close(fa);
		close(fb);
	}
}

/* ---------------------------------------------------------------------- */
/* Active streams without a log: on-line analysis                         */

/* a process reads its own stream while it runs, then after it stopped */
static void online_self_trace_getnext(void)
{
	struct posix_trace_event_info info;
	trace_event_id_t a;
	trace_id_t trid;
	uint64_t d, i;
	size_t len;
	int un;

	T_ASSERT_EQ(posix_trace_create(0, NULL, &trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("online", &a), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	for (i = 0; i < 1000; i++)
		posix_trace_event(a, &i, sizeof(i));
	/* while it runs: the start, then each once, in order */
	T_ASSERT_EQ(posix_trace_getnext_event(trid, &info, &d, sizeof(d), &len, &un), 0);
	T_EXPECT_EQ(info.posix_event_id, POSIX_TRACE_START);
	T_EXPECT_EQ(info.posix_pid, getpid());
	for (i = 0; i < 1000 && !t_failures; i++) {
		T_ASSERT_EQ(posix_trace_getnext_event(trid, &info, &d, sizeof(d), &len, &un), 0);
		T_ASSERT_EQ(un, 0);
		T_EXPECT_EQ(d, i);
		T_EXPECT_EQ(info.posix_event_id, a);
		T_EXPECT_EQ(info.posix_pid, getpid());
		T_EXPECT(pthread_equal(info.posix_thread_id, pthread_self()));
	}
	T_EXPECT_EQ(posix_trace_trygetnext_event(trid, &info, &d, sizeof(d), &len, &un), 0);
	T_EXPECT(un != 0);
	/* recorded, then stopped: what the stop wrote is read too */
	for (i = 1000; i < 1100; i++)
		posix_trace_event(a, &i, sizeof(i));
	T_ASSERT_EQ(posix_trace_stop(trid), 0);
	for (i = 1000; i < 1100 && !t_failures; i++) {
		T_ASSERT_EQ(posix_trace_trygetnext_event(trid, &info, &d, sizeof(d), &len, &un),
			    0);
		T_ASSERT_EQ(un, 0);
		T_EXPECT_EQ(d, i);
	}
	/* and the stop, last */
	T_EXPECT_EQ(posix_trace_trygetnext_event(trid, &info, &d, sizeof(d), &len, &un), 0);
	T_EXPECT_EQ(un, 0);
	T_EXPECT_EQ(info.posix_event_id, POSIX_TRACE_STOP);
	T_EXPECT_EQ(posix_trace_trygetnext_event(trid, &info, &d, sizeof(d), &len, &un), 0);
	T_EXPECT(un != 0);
	T_EXPECT_EQ(posix_trace_get_status(trid, &(struct posix_trace_status_info){ 0 }), 0);
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
}

#define ON_THREADS 4

struct online_run {
	trace_id_t trid;
	trace_event_id_t id;
	uint64_t per_thread;
	volatile int writers_done;
	/* what the reader found */
	uint64_t got, dups_or_disorder, overruns, system;
	uint64_t by_fn[3];
};

static void *online_writer(void *arg)
{
	struct online_run *r = *(struct online_run **)arg;
	uint64_t t = ((uint64_t *)arg)[1];

	for (uint64_t i = 0; i < r->per_thread; i++) {
		uint64_t d = t << 40 | i;

		posix_trace_event(r->id, &d, sizeof(d));
	}
	return NULL;
}

/* the reader: getnext, timedgetnext and trygetnext in turn */
static void *online_reader(void *arg)
{
	struct online_run *r = arg;
	int64_t last[ON_THREADS];
	struct timespec prev = { 0, 0 };
	unsigned int fn = 0;

	for (int i = 0; i < ON_THREADS; i++)
		last[i] = -1;
	for (;;) {
		struct posix_trace_event_info info;
		struct posix_trace_status_info st;
		struct timespec dl;
		uint64_t d = 0;
		size_t len;
		/*
		 * read before the call: an answer of "none" ends the run only
		 * if the stop had returned before the call began
		 */
		int un = 1, ret, done = r->writers_done;

		fn = (fn + 1) % 3;
		if (fn == 0 && !done) {
			ret = posix_trace_getnext_event(r->trid, &info, &d, sizeof(d), &len, &un);
		} else if (fn == 1) {
			clock_gettime(CLOCK_REALTIME, &dl);
			dl.tv_nsec += 50 * 1000 * 1000;
			if (dl.tv_nsec >= 1000000000) {
				dl.tv_sec++;
				dl.tv_nsec -= 1000000000;
			}
			ret = posix_trace_timedgetnext_event(r->trid, &info, &d, sizeof(d), &len,
							     &un, &dl);
			if (ret == ETIMEDOUT)
				ret = 0;
		} else {
			ret = posix_trace_trygetnext_event(r->trid, &info, &d, sizeof(d), &len, &un);
		}
		if (ret) {
			T_FAIL("a getnext failed: %d", ret);
			break;
		}
		if (posix_trace_get_status(r->trid, &st) == 0 &&
		    st.posix_stream_overrun_status == POSIX_TRACE_OVERRUN)
			r->overruns++;
		if (un) {
			/* stopped and all read: the end */
			if (done == 2 && fn == 2)
				break;
			continue;
		}
		if (info.posix_event_id != r->id) {
			r->system++;
			continue;
		}
		r->by_fn[fn]++;
		r->got++;
		if (d >> 40 >= ON_THREADS || (int64_t)(d & 0xffffffffffull) <= last[d >> 40] ||
		    !ts_le(&prev, &info.posix_timestamp)) {
			if (!r->dups_or_disorder++)
				printf("# first out of place: thread %" PRIu64 " event %" PRIu64
				       " (its last %" PRId64 "), at %ld.%09ld after %ld.%09ld\n",
				       d >> 40, (uint64_t)(d & 0xffffffffffull),
				       d >> 40 < ON_THREADS ? last[d >> 40] : -2,
				       (long)info.posix_timestamp.tv_sec,
				       info.posix_timestamp.tv_nsec, (long)prev.tv_sec, prev.tv_nsec);
		} else
			last[d >> 40] = (int64_t)(d & 0xffffffffffull);
		prev = info.posix_timestamp;
	}
	return NULL;
}

/*
 * ON_THREADS writers record per_thread events each while a reader thread
 * reads them with each retrieval function: each event at most once, in
 * timestamp order; any not read is accounted for by an overrun.
 */
static void online_run(int policy, size_t stream_size, uint64_t per_thread,
		       struct online_run *r)
{
	static uint64_t args[ON_THREADS][2];
	pthread_t w[ON_THREADS], rd;
	trace_attr_t attr;

	memset(r, 0, sizeof(*r));
	r->per_thread = per_thread;
	T_ASSERT_EQ(posix_trace_attr_init(&attr), 0);
	T_ASSERT_EQ(posix_trace_attr_setstreamfullpolicy(&attr, policy), 0);
	T_ASSERT_EQ(posix_trace_attr_setstreamsize(&attr, stream_size), 0);
	T_ASSERT_EQ(posix_trace_create(0, &attr, &r->trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("flood", &r->id), 0);
	T_ASSERT_EQ(posix_trace_start(r->trid), 0);
	T_ASSERT_EQ(pthread_create(&rd, NULL, online_reader, r), 0);
	for (int i = 0; i < ON_THREADS; i++) {
		args[i][0] = (uint64_t)(uintptr_t)r;
		args[i][1] = (uint64_t)i;
		T_ASSERT_EQ(pthread_create(&w[i], NULL, online_writer, args[i]), 0);
	}
	for (int i = 0; i < ON_THREADS; i++)
		pthread_join(w[i], NULL);
	r->writers_done = 1;
	T_ASSERT_EQ(posix_trace_stop(r->trid), 0);
	r->writers_done = 2;
	pthread_join(rd, NULL);
	T_EXPECT_EQ(posix_trace_shutdown(r->trid), 0);
	printf("# %s: %" PRIu64 " of %" PRIu64 " events read (getnext %" PRIu64
	       ", timed %" PRIu64 ", try %" PRIu64 "), overrun reported %" PRIu64 " times\n",
	       policy == POSIX_TRACE_LOOP ? "LOOP" : "UNTIL_FULL", r->got,
	       per_thread * ON_THREADS, r->by_fn[0], r->by_fn[1], r->by_fn[2], r->overruns);
}

/*
 * The events each writer of the online runs records: @full, divided by
 * TB_ONLINE_DIV from the environment where set (the debug kernel runs
 * them some 35 times slower than Debian's: 64 there).
 */
static uint64_t online_share(uint64_t full)
{
	const char *v = getenv("TB_ONLINE_DIV");
	unsigned long div = v ? strtoul(v, NULL, 10) : 1;

	return full / (div >= 1 && div <= 1000 ? div : 1);
}

/* 1 million events, a 4 MiB stream that loops: once each, in order, and
 * an overrun reported for those overwritten before they were read
 */
static void online_million_events_loop(void)
{
	uint64_t n = online_share(250000);
	struct online_run r;

	online_run(POSIX_TRACE_LOOP, 4u << 20, n, &r);
	T_EXPECT_EQ(r.dups_or_disorder, 0);
	T_EXPECT_EQ(r.system, 2);	/* START and STOP */
	T_EXPECT(r.got <= n * ON_THREADS);
	if (r.got < n * ON_THREADS)
		T_EXPECT(r.overruns > 0);
	T_EXPECT(r.by_fn[0] + r.by_fn[1] + r.by_fn[2] == r.got);
}

/* a stream large enough for all: every event, none lost */
static void online_until_full_loses_nothing(void)
{
	uint64_t n = online_share(20000);
	struct online_run r;

	/* 80,000 events of 80 bytes: 6.4 MB of a 16 MiB buffer */
	online_run(POSIX_TRACE_UNTIL_FULL, 16u << 20, n, &r);
	T_EXPECT_EQ(r.dups_or_disorder, 0);
	T_EXPECT_EQ(r.system, 2);
	T_EXPECT_EQ(r.got, n * ON_THREADS);
	T_EXPECT_EQ(r.overruns, 0);
	T_EXPECT(r.by_fn[0] > 0 || r.by_fn[1] > 0 || r.by_fn[2] > 0);
}

/* events overwritten before they were read: OVERRUN, once */
static void online_overrun_is_reported_then_reset(void)
{
	struct posix_trace_status_info st;
	struct posix_trace_event_info info;
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid;
	uint64_t d = 0, first;
	size_t len;
	int un;

	T_ASSERT_EQ(posix_trace_attr_init(&attr), 0);
	T_ASSERT_EQ(posix_trace_attr_setstreamsize(&attr, 64 * 1024), 0);
	T_ASSERT_EQ(posix_trace_create(0, &attr, &trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("wrap", &a), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	for (uint64_t i = 0; i < 20000; i++)
		posix_trace_event(a, &i, sizeof(i));
	T_ASSERT_EQ(posix_trace_stop(trid), 0);
	T_ASSERT_EQ(posix_trace_trygetnext_event(trid, &info, &d, sizeof(d), &len, &un), 0);
	T_ASSERT_EQ(un, 0);
	T_EXPECT_EQ(info.posix_event_id, POSIX_TRACE_START);
	T_ASSERT_EQ(posix_trace_trygetnext_event(trid, &info, &d, sizeof(d), &len, &un), 0);
	T_ASSERT_EQ(un, 0);
	first = d;
	/* the first events were overwritten: the first read is a later one */
	T_EXPECT(first > 0);
	T_EXPECT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_stream_overrun_status, POSIX_TRACE_OVERRUN);
	T_EXPECT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_stream_overrun_status, POSIX_TRACE_NO_OVERRUN);
	/* the rest follow, up to the last one */
	for (;;) {
		uint64_t prev = d;

		T_ASSERT_EQ(posix_trace_trygetnext_event(trid, &info, &d, sizeof(d), &len, &un),
			    0);
		if (un || info.posix_event_id == POSIX_TRACE_STOP)
			break;
		T_EXPECT_EQ(d, prev + 1);
		if (t_failures)
			break;
	}
	T_EXPECT_EQ(d, 19999);
	T_EXPECT_EQ(info.posix_event_id, POSIX_TRACE_STOP);
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
}

static void *blocked_getnext(void *arg)
{
	struct posix_trace_event_info info;
	trace_id_t trid = *(trace_id_t *)arg;
	size_t len;
	int un;

	return (void *)(intptr_t)posix_trace_getnext_event(trid, &info, NULL, 0, &len, &un);
}

/* timedgetnext times out; a getnext blocked in a stream that is shut
 * down returns EINVAL
 */
static void online_timeout_and_shutdown_while_blocked(void)
{
	struct posix_trace_event_info info;
	struct timespec dl;
	trace_id_t trid;
	pthread_t th;
	void *ret;
	size_t len;
	int un = 0;

	T_ASSERT_EQ(posix_trace_create(0, NULL, &trid), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	/* the start, then nothing */
	T_EXPECT_EQ(posix_trace_getnext_event(trid, &info, NULL, 0, &len, &un), 0);
	T_EXPECT_EQ(info.posix_event_id, POSIX_TRACE_START);
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 1;
	T_EXPECT_EQ(posix_trace_timedgetnext_event(trid, &info, NULL, 0, &len, &un, &dl),
		    ETIMEDOUT);
	T_EXPECT(un != 0);
	dl.tv_nsec = 1000000000;
	T_EXPECT_EQ(posix_trace_timedgetnext_event(trid, &info, NULL, 0, &len, &un, &dl),
		    EINVAL);
	T_ASSERT_EQ(pthread_create(&th, NULL, blocked_getnext, &trid), 0);
	usleep(200 * 1000);
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
	pthread_join(th, &ret);
	T_EXPECT_EQ((intptr_t)ret, EINVAL);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * A blocked read of @trid, a SIGALRM 50 ms in and each 20 ms after (one
 * that comes while it takes a snapshot, not while it waits, goes by):
 * what the read returned.
 */
static int interrupted_read(trace_id_t trid, bool timed, bool restart, int *un)
{
	struct itimerval it = { .it_value = { 0, 50 * 1000 }, .it_interval = { 0, 20 * 1000 } };
	const struct itimerval off = { 0 };
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct posix_trace_event_info info;
	struct timespec dl;
	size_t len;
	int ret;

	sa.sa_flags = restart ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, &old) || setitimer(ITIMER_REAL, &it, NULL))
		return -errno;
	*un = 0;
	if (timed) {
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += 10;
		ret = posix_trace_timedgetnext_event(trid, &info, NULL, 0, &len, un, &dl);
	} else {
		ret = posix_trace_getnext_event(trid, &info, NULL, 0, &len, un);
	}
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	return ret;
}

/*
 * posix_trace_getnext_event(3p), _timedgetnext_event(): EINTR, "The
 * operation was interrupted by a signal, and so the call had no effect":
 * a signal caught by a handler while it waits ends the wait, with
 * SA_RESTART or without (as sem_wait() does), and nothing was read: the
 * event posted next is the next one read.
 */
static void online_wait_interrupted_by_a_signal(void)
{
	struct posix_trace_event_info info;
	trace_event_id_t id;
	trace_id_t trid;
	uint64_t d = 7, got = 0;
	size_t len;
	int un = 0;

	T_ASSERT_EQ(posix_trace_create(0, NULL, &trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("intr", &id), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	T_EXPECT_EQ(posix_trace_getnext_event(trid, &info, NULL, 0, &len, &un), 0);
	T_EXPECT_EQ(info.posix_event_id, POSIX_TRACE_START);
	T_EXPECT_EQ(interrupted_read(trid, false, false, &un), EINTR);
	T_EXPECT(un != 0);
	T_EXPECT_EQ(interrupted_read(trid, true, false, &un), EINTR);
	T_EXPECT(un != 0);
	T_EXPECT_EQ(interrupted_read(trid, false, true, &un), EINTR);
	T_EXPECT(un != 0);
	posix_trace_event(id, &d, sizeof(d));
	T_EXPECT_EQ(posix_trace_getnext_event(trid, &info, &got, sizeof(got), &len, &un), 0);
	T_EXPECT_EQ(info.posix_event_id, id);
	T_EXPECT_EQ(got, 7);
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
}

/* what is refused: FLUSH without a log; reading a stream with a log; the
 * timed and try variants on a log
 */
static void online_errors(void)
{
	struct posix_trace_event_info info;
	struct timespec dl = { 0, 0 };
	trace_id_t trid, ltrid;
	trace_attr_t attr;
	int fd = log_fd(), un;
	size_t len;

	T_ASSERT_EQ(posix_trace_attr_init(&attr), 0);
	T_ASSERT_EQ(posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_FLUSH), 0);
	T_EXPECT_EQ(posix_trace_create(0, &attr, &trid), EINVAL);
	T_EXPECT_EQ(posix_trace_create(0, NULL, NULL), EINVAL);
	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid), 0);
	T_EXPECT_EQ(posix_trace_trygetnext_event(trid, &info, NULL, 0, &len, &un), EINVAL);
	T_EXPECT_EQ(posix_trace_getnext_event(trid, &info, NULL, 0, &len, &un), EINVAL);
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
	T_ASSERT_EQ(t_log_open(fd, &ltrid), 0);
	T_EXPECT_EQ(posix_trace_trygetnext_event(ltrid, &info, NULL, 0, &len, &un), EINVAL);
	T_EXPECT_EQ(posix_trace_timedgetnext_event(ltrid, &info, NULL, 0, &len, &un, &dl),
		    EINVAL);
	T_EXPECT_EQ(posix_trace_close(ltrid), 0);
}

/* ---------------------------------------------------------------------- */
/* Filters and the event types of a stream                                */

/* Count a log's events of types @a and @b. */
static void count_ab(int fd, trace_event_id_t a, trace_event_id_t b, size_t *na, size_t *nb)
{
	static struct seen v[2048];
	size_t n = read_log(fd, v, 2048, NULL);

	*na = *nb = 0;
	for (size_t i = 0; i < n && i < 2048; i++) {
		if (v[i].id == a)
			(*na)++;
		else if (v[i].id == b)
			(*nb)++;
		else
			T_FAIL("an event of type %u", v[i].id);
	}
}

static void record_ab(trace_event_id_t a, trace_event_id_t b, int n)
{
	for (uint64_t i = 0; i < (uint64_t)n; i++) {
		posix_trace_event(a, &i, sizeof(i));
		posix_trace_event(b, &i, sizeof(i));
	}
}

/*
 * A filter set while the stream runs takes effect in the target at once,
 * and what was recorded before stays: b is filtered out for the middle
 * 100 of 300.
 */
static void filter_while_running(void)
{
	trace_event_set_t set, got;
	trace_event_id_t a, b;
	trace_id_t trid;
	int fd = log_fd(), m = -1;
	size_t na, nb;

	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("fa", &a), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("fb", &b), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	record_ab(a, b, 100);
	T_ASSERT_EQ(posix_trace_eventset_empty(&set), 0);
	T_ASSERT_EQ(posix_trace_eventset_add(b, &set), 0);
	T_ASSERT_EQ(posix_trace_set_filter(trid, &set, POSIX_TRACE_ADD_EVENTSET), 0);
	T_ASSERT_EQ(posix_trace_get_filter(trid, &got), 0);
	T_EXPECT_EQ(posix_trace_eventset_ismember(b, &got, &m), 0);
	T_EXPECT(m != 0);
	T_EXPECT_EQ(posix_trace_eventset_ismember(a, &got, &m), 0);
	T_EXPECT_EQ(m, 0);
	record_ab(a, b, 100);
	T_ASSERT_EQ(posix_trace_set_filter(trid, &set, POSIX_TRACE_SUB_EVENTSET), 0);
	T_ASSERT_EQ(posix_trace_get_filter(trid, &got), 0);
	T_EXPECT_EQ(posix_trace_eventset_ismember(b, &got, &m), 0);
	T_EXPECT_EQ(m, 0);
	record_ab(a, b, 100);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	count_ab(fd, a, b, &na, &nb);
	T_EXPECT_EQ(na, 300);
	T_EXPECT_EQ(nb, 200);
}

struct nonstop {
	trace_event_id_t a, b;
	uint64_t n;
};

static void *nonstop_writer(void *arg)
{
	struct nonstop *w = arg;

	for (uint64_t i = 0; i < w->n; i++) {
		posix_trace_event(w->a, &i, sizeof(i));
		posix_trace_event(w->b, &i, sizeof(i));
	}
	return NULL;
}

/*
 * A filter changed while another thread records takes effect without
 * stopping the target (module ABI 1.6): not one event of the type the
 * filter leaves alone is lost, and the filtered type has gaps.
 */
static void filter_while_running_loses_nothing(void)
{
	/* room for every event: a and b each w.n, the FILTERs, START, STOP */
	static struct seen v[2 * 20000 + 64];
	struct nonstop w = { .n = 20000 };
	trace_event_set_t set;
	trace_id_t trid;
	pthread_t th;
	uint64_t next_a = 0;
	size_t n, nb = 0, filters = 0;
	int fd = log_fd();

	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("na", &w.a), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("nb", &w.b), 0);
	T_ASSERT_EQ(posix_trace_eventset_empty(&set), 0);
	T_ASSERT_EQ(posix_trace_eventset_add(w.b, &set), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	T_ASSERT_EQ(pthread_create(&th, NULL, nonstop_writer, &w), 0);
	for (int i = 0; i < 10; i++) {
		T_ASSERT_EQ(posix_trace_set_filter(trid, &set, i % 2 ? POSIX_TRACE_SUB_EVENTSET :
								 POSIX_TRACE_ADD_EVENTSET), 0);
		usleep(2000);
	}
	pthread_join(th, NULL);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	n = read_log_events(fd, v, sizeof(v) / sizeof(v[0]), NULL, true);
	T_EXPECT(n < sizeof(v) / sizeof(v[0]));
	for (size_t i = 0; i < n && i < sizeof(v) / sizeof(v[0]); i++) {
		if (v[i].id == w.a) {
			if (v[i].data != next_a) {
				T_FAIL("a %" PRIu64 " after %" PRIu64, v[i].data, next_a);
				break;
			}
			next_a++;
		} else if (v[i].id == w.b) {
			nb++;
		} else if (v[i].id == POSIX_TRACE_FILTER) {
			filters++;
		}
	}
	printf("# %" PRIu64 " a, %zu of %" PRIu64 " b, %zu FILTER\n", next_a, nb, w.n, filters);
	T_EXPECT_EQ(next_a, w.n);
	T_EXPECT_EQ(filters, 10);
	T_EXPECT(nb < w.n);
}

/* A filter set before the start; SET replaces; and on-line reading. */
static void filter_before_start_and_online(void)
{
	struct posix_trace_event_info info;
	trace_event_set_t set;
	trace_event_id_t a, b;
	trace_id_t trid;
	size_t len, na = 0, nb = 0;
	uint64_t d;
	int un;

	T_ASSERT_EQ(posix_trace_create(0, NULL, &trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("ga", &a), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("gb", &b), 0);
	T_ASSERT_EQ(posix_trace_eventset_empty(&set), 0);
	T_ASSERT_EQ(posix_trace_eventset_add(a, &set), 0);
	T_ASSERT_EQ(posix_trace_set_filter(trid, &set, POSIX_TRACE_SET_EVENTSET), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	record_ab(a, b, 50);
	/* SET: now b is filtered, a is not */
	T_ASSERT_EQ(posix_trace_eventset_empty(&set), 0);
	T_ASSERT_EQ(posix_trace_eventset_add(b, &set), 0);
	T_ASSERT_EQ(posix_trace_set_filter(trid, &set, POSIX_TRACE_SET_EVENTSET), 0);
	record_ab(a, b, 70);
	T_ASSERT_EQ(posix_trace_stop(trid), 0);
	for (;;) {
		T_ASSERT_EQ(posix_trace_trygetnext_event(trid, &info, &d, sizeof(d), &len, &un), 0);
		if (un)
			break;
		if (info.posix_event_id == a)
			na++;
		else if (info.posix_event_id == b)
			nb++;
	}
	T_EXPECT_EQ(na, 70);
	T_EXPECT_EQ(nb, 50);
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
}

static void filter_errors(void)
{
	trace_event_set_t set;
	trace_id_t trid, ltrid;
	int fd = log_fd();

	memset(&set, 0, sizeof(set));
	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid), 0);
	/* an event set never initialized */
	T_EXPECT_EQ(posix_trace_set_filter(trid, &set, POSIX_TRACE_SET_EVENTSET), EINVAL);
	T_ASSERT_EQ(posix_trace_eventset_empty(&set), 0);
	T_EXPECT_EQ(posix_trace_set_filter(trid, &set, 0), EINVAL);
	T_EXPECT_EQ(posix_trace_set_filter(trid, &set, POSIX_TRACE_LOOP), EINVAL);
	T_EXPECT_EQ(posix_trace_set_filter(trid, NULL, POSIX_TRACE_SET_EVENTSET), EINVAL);
	T_EXPECT_EQ(posix_trace_set_filter(-1, &set, POSIX_TRACE_SET_EVENTSET), EINVAL);
	T_EXPECT_EQ(posix_trace_get_filter(trid, NULL), EINVAL);
	T_EXPECT_EQ(posix_trace_get_filter(TRACE_SYS_MAX + 1, &set), EINVAL);
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
	/* a log has no filter */
	T_ASSERT_EQ(t_log_open(fd, &ltrid), 0);
	T_EXPECT_EQ(posix_trace_set_filter(ltrid, &set, POSIX_TRACE_SET_EVENTSET), EINVAL);
	T_EXPECT_EQ(posix_trace_get_filter(ltrid, &set), EINVAL);
	T_EXPECT_EQ(posix_trace_trid_eventid_open(ltrid, "x", &(trace_event_id_t){ 0 }),
		    EINVAL);
	T_EXPECT_EQ(posix_trace_close(ltrid), 0);
}

/*
 * posix_trace_trid_eventid_open() of a stream of another process: the id
 * it gives a name is the one that stream's events of that name carry,
 * even where the target's own id differs; a filter of it works.
 */
static void trid_eventid_open_of_another_process(void)
{
	static struct seen v[256];
	static const char *const names[] = { "x", "y", "z", NULL };
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t y, y2, big;
	trace_event_set_t set;
	size_t n, ny = 0, nx = 0;
	int fd = log_fd();
	struct target c;
	trace_id_t trid;

	child_start(&c, names, 40, false);
	T_ASSERT_EQ(posix_trace_create_withlog(c.pid, NULL, fd, &trid), 0);
	T_ASSERT_EQ(posix_trace_trid_eventid_open(trid, "y", &y), 0);
	T_ASSERT_EQ(posix_trace_trid_eventid_open(trid, "y", &y2), 0);
	T_EXPECT_EQ(y, y2);
	T_EXPECT_EQ(posix_trace_eventid_get_name(trid, y, name), 0);
	T_EXPECT_CSTR(name, "y");
	memset(name, 'n', sizeof(name));
	name[TRACE_EVENT_NAME_MAX] = '\0';
	T_EXPECT_EQ(posix_trace_trid_eventid_open(trid, name, &big), 0);
	/* z is filtered out, by the name the controller gave it */
	T_ASSERT_EQ(posix_trace_trid_eventid_open(trid, "z", &big), 0);
	T_ASSERT_EQ(posix_trace_eventset_empty(&set), 0);
	T_ASSERT_EQ(posix_trace_eventset_add(big, &set), 0);
	T_ASSERT_EQ(posix_trace_set_filter(trid, &set, POSIX_TRACE_SET_EVENTSET), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	child_go(&c);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	child_end(&c);
	/* in the log, ids are the target's: y is found by its name */
	n = read_log(fd, v, 256, NULL);
	T_EXPECT_EQ(n, 80);
	for (size_t i = 0; i < n && i < 256; i++) {
		if (v[i].id == POSIX_TRACE_UNNAMED_USER_EVENT + 2)
			ny++;
		else if (v[i].id == POSIX_TRACE_UNNAMED_USER_EVENT + 1)
			nx++;
	}
	T_EXPECT_EQ(nx, 40);
	T_EXPECT_EQ(ny, 40);
}

/* ---------------------------------------------------------------------- */
/* The example                                                            */

/* ---------------------------------------------------------------------- */
/* System events, flush and clear                                         */

/*
 * The log's events as a string: one letter per system event (S START,
 * P STOP, F FILTER, O OVERFLOW, R RESUME, < FLUSH_START, > FLUSH_STOP,
 * E ERROR) and the number of user events between them, e.g. "S20F10P".
 */
static void log_shape(int fd, char *out, size_t size)
{
	static const char letter[] = "?SPFOR<>E";
	enum { CAP = PT_OVERFILL + 64 };
	static struct seen v[CAP];
	size_t n = read_log_events(fd, v, CAP, NULL, true), o = 0, run = 0;

	out[0] = '\0';
	for (size_t i = 0; i <= n && i <= CAP && o + 16 < size; i++) {
		bool user = i < n && i < CAP && v[i].id >= POSIX_TRACE_UNNAMED_USER_EVENT;

		if (user) {
			run++;
			continue;
		}
		if (run)
			o += (size_t)snprintf(out + o, size - o, "%zu", run);
		run = 0;
		if (i < n && i < CAP)
			out[o++] = v[i].id < sizeof(letter) - 1 ? letter[v[i].id] : '?';
		out[o] = '\0';
	}
}

/*
 * The system events a stream with a log records, where posix_trace(7)
 * says: START before what a start lets the target record, STOP after,
 * FILTER once a new filter applies, FLUSH_START and FLUSH_STOP around a
 * flush; FILTER's data are the old and the new filter.
 */
static void system_events_in_the_log(void)
{
	trace_event_set_t set, change[2];
	struct posix_trace_event_info info;
	trace_event_id_t a, b;
	trace_id_t trid, ltrid;
	char shape[256], name[TRACE_EVENT_NAME_MAX + 1];
	int fd = log_fd(), un, m = -1, filters = 0;
	size_t len;

	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("sa", &a), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("sb", &b), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	record_ab(a, b, 10);
	T_ASSERT_EQ(posix_trace_eventset_empty(&set), 0);
	T_ASSERT_EQ(posix_trace_eventset_add(b, &set), 0);
	T_ASSERT_EQ(posix_trace_set_filter(trid, &set, POSIX_TRACE_ADD_EVENTSET), 0);
	record_ab(a, b, 10);
	T_ASSERT_EQ(posix_trace_flush(trid), 0);
	record_ab(a, b, 10);
	T_ASSERT_EQ(posix_trace_stop(trid), 0);
	/* not running: no system event, and nothing to flush */
	T_EXPECT_EQ(posix_trace_flush(trid), 0);
	T_ASSERT_EQ(posix_trace_set_filter(trid, &set, POSIX_TRACE_SUB_EVENTSET), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	record_ab(a, b, 5);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);

	log_shape(fd, shape, sizeof(shape));
	T_EXPECT_CSTR(shape, "S20F10<>10PS10P");

	/* FILTER's data; the names of the system events */
	T_ASSERT_EQ(t_log_open(fd, &ltrid), 0);
	for (;;) {
		T_ASSERT_EQ(posix_trace_getnext_event(ltrid, &info, change, sizeof(change), &len,
						      &un), 0);
		if (un)
			break;
		if (info.posix_event_id != POSIX_TRACE_FILTER)
			continue;
		filters++;
		T_EXPECT_EQ(len, sizeof(change));
		T_EXPECT_EQ(info.posix_pid, getpid());
		T_EXPECT_EQ(info.posix_truncation_status, POSIX_TRACE_NOT_TRUNCATED);
		T_EXPECT_EQ(posix_trace_eventset_ismember(b, &change[0], &m), 0);
		T_EXPECT_EQ(m, 0);
		T_EXPECT_EQ(posix_trace_eventset_ismember(b, &change[1], &m), 0);
		T_EXPECT(m != 0);
	}
	T_EXPECT_EQ(filters, 1);
	T_EXPECT_EQ(posix_trace_eventid_get_name(ltrid, POSIX_TRACE_FLUSH_START, name), 0);
	T_EXPECT_CSTR(name, "POSIX_TRACE_FLUSH_START");
	T_EXPECT_EQ(posix_trace_close(ltrid), 0);
}

/* A full UNTIL_FULL stream: SUSPENDED and FULL, and STOP where it filled */
static void overflow_of_a_full_stream(void)
{
	struct posix_trace_status_info st;
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid;
	char shape[256];
	int fd = log_fd();

	T_ASSERT_EQ(posix_trace_attr_init(&attr), 0);
	T_ASSERT_EQ(posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_UNTIL_FULL), 0);
	T_ASSERT_EQ(posix_trace_attr_setstreamsize(&attr, 64 * 1024), 0);
	T_ASSERT_EQ(posix_trace_create_withlog(0, &attr, fd, &trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("full", &a), 0);
	T_ASSERT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_stream_full_status, POSIX_TRACE_NOT_FULL);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	for (uint64_t i = 0; i < PT_OVERFILL; i++)
		posix_trace_event(a, &i, sizeof(i));
	wait_full(trid, &st);
	T_EXPECT_EQ(st.posix_stream_full_status, POSIX_TRACE_FULL);
	T_EXPECT_EQ(st.posix_stream_overrun_status, POSIX_TRACE_OVERRUN);
	T_EXPECT_EQ(st.posix_stream_status, POSIX_TRACE_SUSPENDED);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	/* START, what fitted, STOP where it filled (and none at the shutdown) */
	log_shape(fd, shape, sizeof(shape));
	T_EXPECT(shape[0] == 'S' && !strcmp(shape + strspn(shape + 1, "0123456789") + 1,
					    "P"));
	if (t_failures)
		printf("# the log: %s\n", shape);
}

/* posix_trace_flush(): what the stream holds is in the log when it returns */
static void flush_writes_the_stream_to_its_log(void)
{
	static struct seen v[256];
	struct posix_trace_status_info st;
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid, ltrid, otrid;
	int fd = log_fd();
	size_t n;

	/* LOOP: without a flush, its data go to the log when it stops */
	T_ASSERT_EQ(posix_trace_attr_init(&attr), 0);
	T_ASSERT_EQ(posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_LOOP), 0);
	self_log_start(&attr, fd, "fl", &trid, &a);
	for (uint64_t i = 0; i < 100; i++)
		posix_trace_event(a, &i, sizeof(i));
	T_EXPECT_EQ(read_log(fd, v, 256, NULL), 0);
	T_ASSERT_EQ(posix_trace_flush(trid), 0);
	T_EXPECT_EQ(read_log(fd, v, 256, NULL), 100);
	T_ASSERT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_stream_status, POSIX_TRACE_RUNNING);
	T_EXPECT_EQ(st.posix_stream_flush_status, POSIX_TRACE_NOT_FLUSHING);
	T_EXPECT_EQ(st.posix_stream_flush_error, 0);
	for (uint64_t i = 100; i < 150; i++)
		posix_trace_event(a, &i, sizeof(i));
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	/* each once, in order */
	n = read_log(fd, v, 256, NULL);
	T_EXPECT_EQ(n, 150);
	for (size_t i = 0; i < n && i < 256 && !t_failures; i++)
		T_EXPECT_EQ(v[i].data, i);

	/* EINVAL: no such stream, a stream without a log, a log */
	T_EXPECT_EQ(posix_trace_flush(trid), EINVAL);
	T_EXPECT_EQ(posix_trace_flush(-1), EINVAL);
	T_ASSERT_EQ(posix_trace_create(0, NULL, &otrid), 0);
	T_EXPECT_EQ(posix_trace_flush(otrid), EINVAL);
	T_EXPECT_EQ(posix_trace_shutdown(otrid), 0);
	T_ASSERT_EQ(t_log_open(fd, &ltrid), 0);
	T_EXPECT_EQ(posix_trace_flush(ltrid), EINVAL);
	T_EXPECT_EQ(posix_trace_close(ltrid), 0);
}

/*
 * A thread that posts FLUSH_EVENTS events, its data 0, 1, ..., while the
 * test's thread flushes FLUSHES times.  At each of FLUSHES milestones (a
 * twelfth of the events apart) it waits for the flusher to begin the
 * flush of that milestone, then posts on while it runs: every flush
 * overlaps posting, and they are FLUSHES, however the two threads are
 * scheduled.
 */
#define FLUSH_EVENTS	5000
#define FLUSHES		10
#define FLUSH_STEP	(FLUSH_EVENTS / 12)

struct poster {
	trace_event_id_t id;
	atomic_uint posted;
	atomic_uint flushing;	/* the flushes begun */
};

static void *poster_main(void *arg)
{
	struct poster *p = arg;

	for (uint64_t i = 0; i < FLUSH_EVENTS; i++) {
		unsigned int m = (unsigned int)(i / FLUSH_STEP);

		if (i && i % FLUSH_STEP == 0 && m <= FLUSHES)
			while (atomic_load(&p->flushing) < m)
				usleep(100);
		posix_trace_event(p->id, &i, sizeof(i));
		atomic_store(&p->posted, (unsigned int)i + 1);
		if (i % 16 == 0)
			usleep(100);
	}
	return NULL;
}

/*
 * posix_trace_flush() of a running stream, under each stream-full-policy:
 * while a thread posts without pause, ten flushes lose nothing that the
 * policy keeps (a stream large enough to keep all), and the log holds each
 * event once, in order.  The flushes used to stop and start the target,
 * which lost what it posted in between.
 */
static void flush_of_a_running_stream_loses_nothing(void)
{
	static const int policies[] = { POSIX_TRACE_FLUSH, POSIX_TRACE_LOOP,
					POSIX_TRACE_UNTIL_FULL };
	static struct seen v[FLUSH_EVENTS + 16];

	for (size_t k = 0; k < sizeof(policies) / sizeof(policies[0]); k++) {
		struct poster p = { 0 };
		trace_attr_t attr;
		trace_id_t trid;
		int fd = log_fd();
		unsigned int overlapped = 0;
		pthread_t th;
		size_t n, ok = 0;

		T_ASSERT_EQ(posix_trace_attr_init(&attr), 0);
		T_ASSERT_EQ(posix_trace_attr_setstreamfullpolicy(&attr, policies[k]), 0);
		T_ASSERT_EQ(posix_trace_attr_setmaxdatasize(&attr, 8), 0);
		/* all 5000 events fit: 100 bytes each, at most */
		T_ASSERT_EQ(posix_trace_attr_setstreamsize(&attr, 1u << 20), 0);
		self_log_start(&attr, fd, "flushed", &trid, &p.id);
		T_ASSERT_EQ(pthread_create(&th, NULL, poster_main, &p), 0);
		for (unsigned int m = 1; m <= FLUSHES; m++) {
			/* the poster waits there for this flush to begin */
			while (atomic_load(&p.posted) < m * FLUSH_STEP)
				usleep(100);
			atomic_store(&p.flushing, m);
			T_EXPECT_EQ(posix_trace_flush(trid), 0);
			overlapped += atomic_load(&p.posted) > m * FLUSH_STEP;
		}
		T_ASSERT_EQ(pthread_join(th, NULL), 0);
		T_ASSERT_EQ(posix_trace_stop(trid), 0);
		T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
		n = read_log(fd, v, FLUSH_EVENTS + 16, NULL);
		for (size_t i = 0; i < n && i < FLUSH_EVENTS; i++)
			ok += v[i].data == i;
		printf("# policy %d: %u flushes begun while posting, %u with events posted "
		       "meanwhile; %zu events in the log, %zu in order\n", policies[k], FLUSHES,
		       overlapped, n, ok);
		T_EXPECT_EQ(n, FLUSH_EVENTS);
		T_EXPECT_EQ(ok, FLUSH_EVENTS);
		close(fd);
	}
}

/* Copy what the non-blocking @from holds to @to: the bytes copied. */
static ssize_t copy_fd(int from, int to)
{
	char buf[4096];
	ssize_t n, total = 0;

	while ((n = read(from, buf, sizeof(buf))) > 0) {
		if (write(to, buf, (size_t)n) != n)
			return -1;
		total += n;
	}
	return total;
}

/*
 * posix_trace_clear() of a stream with a log: what was recorded is gone
 * from the stream and the log, running or suspended, and the stream goes
 * on as it was.
 */
static void clear_empties_the_stream_and_its_log(void)
{
	static struct seen v[256];
	struct posix_trace_status_info st;
	trace_event_id_t a;
	trace_id_t trid;
	char shape[256];
	int fd = log_fd(), p[2];
	size_t n;

	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("cl", &a), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	for (uint64_t i = 0; i < 100; i++)
		posix_trace_event(a, &i, sizeof(i));
	T_ASSERT_EQ(posix_trace_flush(trid), 0);
	for (uint64_t i = 100; i < 200; i++)
		posix_trace_event(a, &i, sizeof(i));
	/* running: it stays running */
	T_ASSERT_EQ(posix_trace_clear(trid), 0);
	T_ASSERT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_stream_status, POSIX_TRACE_RUNNING);
	T_EXPECT_EQ(st.posix_stream_full_status, POSIX_TRACE_NOT_FULL);
	for (uint64_t i = 200; i < 230; i++)
		posix_trace_event(a, &i, sizeof(i));
	T_ASSERT_EQ(posix_trace_stop(trid), 0);
	n = read_log(fd, v, 256, NULL);
	T_EXPECT_EQ(n, 30);
	for (size_t i = 0; i < n && i < 256 && !t_failures; i++)
		T_EXPECT_EQ(v[i].data, 200 + i);
	log_shape(fd, shape, sizeof(shape));
	T_EXPECT_CSTR(shape, "30P");
	/* suspended: it stays suspended, its log is empty */
	T_ASSERT_EQ(posix_trace_clear(trid), 0);
	T_ASSERT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_stream_status, POSIX_TRACE_SUSPENDED);
	T_EXPECT_EQ(read_log_events(fd, v, 256, NULL, true), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	for (uint64_t i = 300; i < 305; i++)
		posix_trace_event(a, &i, sizeof(i));
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	log_shape(fd, shape, sizeof(shape));
	T_EXPECT_CSTR(shape, "S5P");
	T_EXPECT_EQ(read_log(fd, v, 256, NULL), 5);
	T_EXPECT_EQ(v[0].data, 300);
	/* the event types keep their ids */
	T_EXPECT_EQ(v[0].id, a);
	T_EXPECT_EQ(posix_trace_clear(trid), EINVAL);

	/* a log that cannot be cut back, in a pipe: EINVAL */
	T_ASSERT_EQ(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, p[1], &trid), 0);
	T_EXPECT_EQ(posix_trace_clear(trid), EINVAL);
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
	close(p[1]);
	/* what the pipe got is a log too: checked at exit */
	fd = log_fd();
	T_EXPECT(copy_fd(p[0], fd) > 0);
	close(p[0]);
}

/* posix_trace_clear() of a stream without a log, and of a full one */
static void clear_of_a_stream_read_online(void)
{
	struct posix_trace_status_info st;
	struct posix_trace_event_info info;
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid;
	uint64_t d, next = 200;
	size_t len, users = 0, stops = 0, others = 0;
	int un;

	T_ASSERT_EQ(posix_trace_attr_init(&attr), 0);
	T_ASSERT_EQ(posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_UNTIL_FULL), 0);
	T_ASSERT_EQ(posix_trace_attr_setstreamsize(&attr, 64 * 1024), 0);
	T_ASSERT_EQ(posix_trace_create(0, &attr, &trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("co", &a), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	for (uint64_t i = 0; i < PT_OVERFILL; i++)
		posix_trace_event(a, &i, sizeof(i));
	wait_full(trid, &st);
	T_EXPECT_EQ(st.posix_stream_full_status, POSIX_TRACE_FULL);
	T_ASSERT_EQ(posix_trace_clear(trid), 0);
	T_ASSERT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_stream_full_status, POSIX_TRACE_NOT_FULL);
	T_EXPECT_EQ(st.posix_stream_overrun_status, POSIX_TRACE_NO_OVERRUN);
	T_EXPECT_EQ(st.posix_stream_status, POSIX_TRACE_RUNNING);
	for (uint64_t i = 200; i < 230; i++)
		posix_trace_event(a, &i, sizeof(i));
	T_ASSERT_EQ(posix_trace_stop(trid), 0);
	/* the 30, then STOP: no START, no OVERFLOW, nothing from before */
	for (;;) {
		T_ASSERT_EQ(posix_trace_trygetnext_event(trid, &info, &d, sizeof(d), &len, &un),
			    0);
		if (un)
			break;
		if (info.posix_event_id == a) {
			T_EXPECT_EQ(d, next);
			next++;
			users++;
			T_EXPECT_EQ(stops, 0);
		} else if (info.posix_event_id == POSIX_TRACE_STOP) {
			stops++;
		} else {
			others++;
		}
	}
	T_EXPECT_EQ(users, 30);
	T_EXPECT_EQ(stops, 1);
	T_EXPECT_EQ(others, 0);
	T_EXPECT_EQ(posix_trace_clear(trid), 0);
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
	T_EXPECT_EQ(posix_trace_clear(trid), EINVAL);
}

/* ---------------------------------------------------------------------- */
/* The log-full-policy                                                    */

static off_t fd_size(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? -1 : st.st_size;
}

/* A log's user events carry increasing data; its first and last. */
static size_t log_increasing(int fd, uint64_t *first, uint64_t *last)
{
	static struct seen v[40000];
	size_t n = read_log(fd, v, 40000, NULL);

	*first = *last = 0;
	T_EXPECT(n <= 40000);
	for (size_t i = 1; i < n && i < 40000; i++) {
		if (v[i].data <= v[i - 1].data) {
			T_FAIL("event %zu: %" PRIu64 " after %" PRIu64, i, v[i].data,
			       v[i - 1].data);
			break;
		}
	}
	if (n && n <= 40000) {
		*first = v[0].data;
		*last = v[n - 1].data;
	}
	return n;
}

/*
 * What a POSIX_TRACE_FLUSH stream with @attr may write to its log between
 * two looks of its thread at the log (pt_log_written(), after each
 * dispatch of the session's messages): the halves of its buffer saved
 * meanwhile, two at most (the provider asks for a half's save once it
 * filled it, and writes into it again only once it is saved; a dispatch
 * reads the messages waiting, fewer than 32, once), or, at a stop, what
 * the two hold; the durable records, once per part of the log; and the
 * small records besides (provider, section, drop and initialization
 * records, system events), under 1 KiB.
 */
static uint64_t saved_between_looks(const trace_attr_t *attr)
{
	const struct pt_attr *a = (const struct pt_attr *)attr;
	uint64_t size = pt_stream_buffer_size(a->stream_size, a->max_data_size,
					      TRACEBUF_MODE_STREAMING);

	if (!size)
		T_FAIL("no buffer for the stream");
	return 2 * tracebuf_layout_rolling_size(size, TRACEBUF_MODE_STREAMING) +
	       tracebuf_layout_durable_size(size, TRACEBUF_MODE_STREAMING) + 1024;
}

/* The largest system event: a stream's STOP is written after its last look. */
static uint64_t system_event_max(const trace_attr_t *attr)
{
	size_t size = 0;

	T_CHECK_EQ(posix_trace_attr_getmaxsystemeventsize(attr, &size), 0, return 0);
	return size;
}

static void log_attr(trace_attr_t *attr, int stream_policy, size_t stream_size,
		     int log_policy, size_t log_size)
{
	T_ASSERT_EQ(posix_trace_attr_init(attr), 0);
	T_ASSERT_EQ(posix_trace_attr_setstreamfullpolicy(attr, stream_policy), 0);
	T_ASSERT_EQ(posix_trace_attr_setstreamsize(attr, stream_size), 0);
	T_ASSERT_EQ(posix_trace_attr_setlogfullpolicy(attr, log_policy), 0);
	T_ASSERT_EQ(posix_trace_attr_setlogsize(attr, log_size), 0);
}

/*
 * UNTIL_FULL: the stream stops itself once its log holds log-max-size,
 * with STOP its last event; the log is FULL until cleared.
 */
static void log_until_full_stops_the_stream(void)
{
	static struct seen v[8];
	struct posix_trace_status_info st = { 0 };
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid, ltrid;
	uint64_t i, first, last;
	int fd = log_fd();
	size_t n;

	log_attr(&attr, POSIX_TRACE_FLUSH, 64 * 1024, POSIX_TRACE_UNTIL_FULL, 256 * 1024);
	self_log_start(&attr, fd, "uf", &trid, &a);
	for (i = 0; i < 2000000; i++) {
		posix_trace_event(a, &i, sizeof(i));
		if (i % 1000 == 999) {
			T_ASSERT_EQ(posix_trace_get_status(trid, &st), 0);
			if (st.posix_stream_status == POSIX_TRACE_SUSPENDED)
				break;
			usleep(100);
		}
	}
	printf("# stopped after %" PRIu64 " events, the log %lld bytes\n", i,
	       (long long)fd_size(fd));
	T_EXPECT_EQ(st.posix_stream_status, POSIX_TRACE_SUSPENDED);
	T_EXPECT_EQ(st.posix_log_full_status, POSIX_TRACE_FULL);
	T_EXPECT(fd_size(fd) >= 256 * 1024);
	/*
	 * over by what was saved before the stream's thread saw it full,
	 * then its STOP (the stop itself writes nothing: logfull.c)
	 */
	T_EXPECT((uint64_t)fd_size(fd) < 256 * 1024 + saved_between_looks(&attr) +
					     system_event_max(&attr));
	/* what fitted, from the first event on, and STOP last */
	n = log_increasing(fd, &first, &last);
	T_EXPECT(n > 1000);
	T_EXPECT_EQ(first, 0);
	n = read_log_events(fd, v, 0, &ltrid, true);
	T_EXPECT(n > 0);
	{
		struct posix_trace_event_info info;
		size_t len;
		int un;

		/* the last one: rewind, and read to the end */
		T_EXPECT_EQ(posix_trace_rewind(ltrid), 0);
		for (size_t k = 0; k < n; k++)
			T_ASSERT_EQ(posix_trace_getnext_event(ltrid, &info, NULL, 0, &len, &un),
				    0);
		T_EXPECT_EQ(info.posix_event_id, POSIX_TRACE_STOP);
		T_EXPECT_EQ(posix_trace_close(ltrid), 0);
	}
	/* cleared: not full */
	T_ASSERT_EQ(posix_trace_clear(trid), 0);
	T_ASSERT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_log_full_status, POSIX_TRACE_NOT_FULL);
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
}

/*
 * LOOP, the stream's data written at each flush: the log keeps the newest
 * flushes within log-max-size, and reports the overrun once.
 */
static void log_loop_keeps_the_newest(void)
{
	struct posix_trace_status_info st;
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid;
	uint64_t first, last;
	int fd = log_fd();
	size_t n;

	log_attr(&attr, POSIX_TRACE_LOOP, 64 * 1024, POSIX_TRACE_LOOP, 160 * 1024);
	self_log_start(&attr, fd, "lp", &trid, &a);
	for (uint64_t r = 0; r < 8; r++) {
		/* 300 events of 80 bytes: 24,000 bytes a flush */
		for (uint64_t i = r * 1000; i < r * 1000 + 300; i++)
			posix_trace_event(a, &i, sizeof(i));
		T_ASSERT_EQ(posix_trace_flush(trid), 0);
		T_EXPECT(fd_size(fd) <= (160 + 68) * 1024);
	}
	T_ASSERT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_log_overrun_status, POSIX_TRACE_OVERRUN);
	T_EXPECT_EQ(st.posix_log_full_status, POSIX_TRACE_NOT_FULL);
	T_ASSERT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_log_overrun_status, POSIX_TRACE_NO_OVERRUN);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	n = log_increasing(fd, &first, &last);
	printf("# %zu events in the log, %" PRIu64 " to %" PRIu64 ", %lld bytes\n", n, first,
	       last, (long long)fd_size(fd));
	/* the newest flushes, whole: the oldest are gone */
	T_EXPECT_EQ(last, 7299);
	T_EXPECT(first >= 1000 && first % 1000 == 0);
	T_EXPECT_EQ(n % 300, 0);
	T_EXPECT(n >= 600);
}

/*
 * A LOOP log smaller than its stream's buffer keeps the newest flushes
 * that fit it, and always the newest one, whole, however large: with a
 * 1 MiB stream, a 64 KiB or a 256 KiB log holds two flushes of 15 KB
 * each, then, after a flush of 160 KB, that flush alone.
 */
/* log_increasing() of a log of @log_size, said on the output. */
static size_t log_seen(int fd, size_t log_size, uint64_t *first, uint64_t *last)
{
	size_t n = log_increasing(fd, first, last);

	printf("# %zu KiB log: %zu events, %" PRIu64 " to %" PRIu64 ", %lld bytes\n",
	       log_size / 1024, n, *first, *last, (long long)fd_size(fd));
	return n;
}

static void log_loop_smaller_than_the_stream_one(size_t log_size)
{
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid;
	uint64_t first, last;
	int fd = log_fd();
	size_t n;

	log_attr(&attr, POSIX_TRACE_LOOP, 1u << 20, POSIX_TRACE_LOOP, log_size);
	self_log_start(&attr, fd, "ls", &trid, &a);
	/* 190 events of 80 bytes: 15,200 bytes a flush */
	for (uint64_t i = 0; i < 190; i++)
		posix_trace_event(a, &i, sizeof(i));
	T_ASSERT_EQ(posix_trace_flush(trid), 0);
	for (uint64_t i = 1000; i < 1190; i++)
		posix_trace_event(a, &i, sizeof(i));
	T_ASSERT_EQ(posix_trace_flush(trid), 0);
	n = log_seen(fd, log_size, &first, &last);
	T_EXPECT_EQ(n, 380);
	T_EXPECT_EQ(first, 0);
	T_EXPECT_EQ(last, 1189);
	/* 2000 events, 160 KB: more than a 64 KiB log, kept whole */
	for (uint64_t i = 10000; i < 12000; i++)
		posix_trace_event(a, &i, sizeof(i));
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	n = log_seen(fd, log_size, &first, &last);
	T_EXPECT_EQ(last, 11999);
	if (log_size < 160 * 1024) {
		T_EXPECT_EQ(n, 2000);
		T_EXPECT_EQ(first, 10000);
	} else {
		T_EXPECT(n >= 2000);
		T_EXPECT(fd_size(fd) <= (off_t)log_size + 1024);
	}
	close(fd);
}

static void log_loop_smaller_than_the_stream(void)
{
	log_loop_smaller_than_the_stream_one(64 * 1024);
	log_loop_smaller_than_the_stream_one(256 * 1024);
}

/*
 * LOOP with POSIX_TRACE_FLUSH: the log rotates in parts an eighth of
 * log-max-size and drops the oldest.  How much it keeps depends on how
 * large the parts grew (the halves saved between two looks): at least
 * the newest part.
 *
 * The most it holds (logfull.c): a look that finds the newest part at an
 * eighth of log-max-size (T) or more starts a new one and drops the
 * oldest parts while the log is over log-max-size (L), never the newest
 * that holds records.  That part held less than T at the look before,
 * so less than T + W now (W: saved_between_looks()), and the log is then
 * at most L, or its head, that part and the new part's magic record.
 * The new part grows below T before a look starts another, and the
 * shutdown's STOP comes after the last look.
 */
static void log_loop_of_a_flush_stream(void)
{
	const uint64_t log_size = 256 * 1024, part = log_size / 8;
	struct posix_trace_status_info st;
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid;
	uint64_t first, last, head, newest, bound;
	int fd = log_fd();
	char shape[4096];
	size_t n;

	log_attr(&attr, POSIX_TRACE_FLUSH, 64 * 1024, POSIX_TRACE_LOOP, log_size);
	T_ASSERT_EQ(posix_trace_create_withlog(0, &attr, fd, &trid), 0);
	/* the magic record, the session's provider record and the attributes */
	head = (uint64_t)fd_size(fd);
	newest = head + part + saved_between_looks(&attr) + 8;
	bound = (newest > log_size ? newest : log_size) + part + system_event_max(&attr);
	T_ASSERT_EQ(posix_trace_eventid_open("lf", &a), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	/* 16 MB of events, paced so that the stream's thread saves most */
	for (uint64_t i = 0; i < 200000; i++) {
		posix_trace_event(a, &i, sizeof(i));
		if (i % 200 == 199)
			usleep(200);
	}
	T_ASSERT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_log_overrun_status, POSIX_TRACE_OVERRUN);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	n = log_increasing(fd, &first, &last);
	printf("# %zu events in the log, %" PRIu64 " to %" PRIu64 ", %lld bytes of at most "
	       "%" PRIu64 "\n", n, first, last, (long long)fd_size(fd), bound);
	T_EXPECT((uint64_t)fd_size(fd) <= bound);
	T_EXPECT(fd_size(fd) >= 32 * 1024);
	T_EXPECT(first > 100000);
	T_EXPECT(n > 300);
	/* what was not saved in time is an OVERFLOW-RESUME window; STOP last */
	log_shape(fd, shape, sizeof(shape));
	n = strlen(shape);
	printf("# the log ends %s\n", shape + (n > 40 ? n - 40 : 0));
	T_EXPECT(n && shape[n - 1] == 'P');
}

/*
 * In a child: a LOOP stream (written at a flush and at the end) with its
 * log on @fd, 3000 events of 64 bytes, a flush that must fail with @err,
 * which posix_stream_flush_error says too, and a shutdown that must fail
 * with it.  @limit: the child's RLIMIT_FSIZE, if not 0.  Returns the
 * child's exit status: 0, or the number of the step that went wrong.
 */
static int log_write_fails(int fd, rlim_t limit, int err)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct rlimit r = { limit, limit };
		struct posix_trace_status_info st;
		char data[64] = { 0 };
		trace_event_id_t id;
		trace_attr_t attr;
		trace_id_t trid;

		alarm(60);
		signal(SIGXFSZ, SIG_IGN);
		if ((limit && setrlimit(RLIMIT_FSIZE, &r)) || posix_trace_attr_init(&attr) ||
		    posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_LOOP))
			_exit(2);
		if (posix_trace_create_withlog(0, &attr, fd, &trid) ||
		    posix_trace_eventid_open("fill", &id) || posix_trace_start(trid))
			_exit(3);
		for (int i = 0; i < 3000; i++)
			posix_trace_event(id, data, sizeof(data));
		if (posix_trace_flush(trid) != err)
			_exit(4);
		if (posix_trace_get_status(trid, &st) || st.posix_stream_flush_error != err)
			_exit(5);
		/* reset once reported, as the log overrun status is */
		if (posix_trace_get_status(trid, &st) || st.posix_stream_flush_error)
			_exit(7);
		_exit(posix_trace_shutdown(trid) == err ? 0 : 6);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * posix_trace_create(3p): posix_trace_flush() and posix_trace_shutdown()
 * fail with EFBIG when the log would pass the largest file the process
 * may write (RLIMIT_FSIZE), and with ENOSPC when its file system is full.
 */
static void log_write_errors(void)
{
	char dir[] = "/tmp/posix-log-XXXXXX", path[64];
	int fd = memfd_create("log-fsize", MFD_CLOEXEC);

	T_ASSERT(fd >= 0);
	T_EXPECT_EQ(log_write_fails(fd, 16 * 1024, EFBIG), 0);
	close(fd);
	/* a file system of 16 KiB */
	T_ASSERT(mkdtemp(dir) != NULL);
	T_ASSERT_EQ(mount("posix-log", dir, "tmpfs", 0, "size=16k"), 0);
	snprintf(path, sizeof(path), "%s/log", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	T_EXPECT(fd >= 0);
	if (fd >= 0) {
		T_EXPECT_EQ(log_write_fails(fd, 0, ENOSPC), 0);
		close(fd);
	}
	T_EXPECT_EQ(umount2(dir, MNT_DETACH), 0);
	rmdir(dir);
}

/* APPEND: log-max-size does not matter */
static void log_append_grows(void)
{
	struct posix_trace_status_info st;
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid;
	uint64_t first, last;
	int fd = log_fd();

	log_attr(&attr, POSIX_TRACE_LOOP, 64 * 1024, POSIX_TRACE_APPEND, 16 * 1024);
	self_log_start(&attr, fd, "ap", &trid, &a);
	for (uint64_t r = 0; r < 4; r++) {
		for (uint64_t i = r * 300; i < r * 300 + 300; i++)
			posix_trace_event(a, &i, sizeof(i));
		T_ASSERT_EQ(posix_trace_flush(trid), 0);
	}
	T_ASSERT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_log_overrun_status, POSIX_TRACE_NO_OVERRUN);
	T_EXPECT_EQ(st.posix_log_full_status, POSIX_TRACE_NOT_FULL);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	T_EXPECT_EQ(log_increasing(fd, &first, &last), 1200);
	T_EXPECT_EQ(first, 0);
	T_EXPECT_EQ(last, 1199);
	T_EXPECT(fd_size(fd) > 16 * 1024);
}

/*
 * A LOOP stream with a log loses what it overwrote before a flush wrote
 * it: posix_stream_overrun_status says so at the next status (and the
 * stream is RUNNING and FULL until the next flush), then NO_OVERRUN; the
 * log keeps what was flushed and the newest events, in order.
 */
static void log_loop_stream_overrun(void)
{
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid;
	uint64_t first, last;
	size_t n;
	int fd = log_fd();

	log_attr(&attr, POSIX_TRACE_LOOP, 64 * 1024, POSIX_TRACE_APPEND, 64 * 1024);
	self_log_start(&attr, fd, "lo", &trid, &a);
	for (uint64_t i = 0; i < 300; i++)
		posix_trace_event(a, &i, sizeof(i));
	T_ASSERT_EQ(posix_trace_flush(trid), 0);
	T_EXPECT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NO_OVERRUN, POSIX_TRACE_NOT_FULL);
	for (uint64_t i = 300; i < 300 + PT_OVERFILL; i++)
		posix_trace_event(a, &i, sizeof(i));
	T_EXPECT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_OVERRUN, POSIX_TRACE_FULL);
	T_EXPECT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NO_OVERRUN, POSIX_TRACE_FULL);
	T_ASSERT_EQ(posix_trace_flush(trid), 0);
	T_EXPECT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NO_OVERRUN, POSIX_TRACE_NOT_FULL);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	n = log_increasing(fd, &first, &last);
	T_EXPECT(n > 300 && n < 300 + PT_OVERFILL);
	T_EXPECT_EQ(first, 0);
	T_EXPECT_EQ(last, 300 + PT_OVERFILL - 1);
}

/*
 * posix_trace_flush(3p): once flushed, the space of the flushed events is
 * free for new ones: a full UNTIL_FULL stream records again.
 */
static void flush_frees_the_stream(void)
{
	struct posix_trace_status_info st;
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid;
	uint64_t first, last;
	int fd = log_fd();

	log_attr(&attr, POSIX_TRACE_UNTIL_FULL, 64 * 1024, POSIX_TRACE_APPEND, 64 * 1024);
	self_log_start(&attr, fd, "ff", &trid, &a);
	for (uint64_t i = 0; i < PT_OVERFILL; i++)
		posix_trace_event(a, &i, sizeof(i));
	wait_full(trid, &st);
	T_EXPECT_EQ(st.posix_stream_full_status, POSIX_TRACE_FULL);
	T_ASSERT_EQ(posix_trace_flush(trid), 0);
	T_ASSERT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_stream_full_status, POSIX_TRACE_NOT_FULL);
	T_EXPECT_EQ(st.posix_stream_status, POSIX_TRACE_RUNNING);
	/* recorded after the flush: in the log, the newest */
	for (uint64_t i = 100000; i < 100100; i++)
		posix_trace_event(a, &i, sizeof(i));
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	T_EXPECT(log_increasing(fd, &first, &last) > 100);
	T_EXPECT_EQ(first, 0);
	T_EXPECT_EQ(last, 100099);
}

/*
 * An event of the target that stops answering: its user events, and the
 * error events of the snapshots it did not answer.
 */
static void count_unanswered(const struct posix_trace_event_info *info, int err, size_t len,
			     pid_t pid, int *errors, int *users)
{
	if (info->posix_event_id == POSIX_TRACE_ERROR) {
		/*
		 * the timeout; then, until the target answered it late, the
		 * next snapshot requests are refused
		 */
		*errors += err == ETIMEDOUT;
		T_EXPECT_EQ(len, sizeof(int));
		T_EXPECT(err == ETIMEDOUT || err == EBUSY);
		T_EXPECT_EQ(info->posix_pid, pid);
	} else if (info->posix_event_id >= POSIX_TRACE_UNNAMED_USER_EVENT) {
		(*users)++;
	}
}

/*
 * The events of @trid's target that stops answering, until none comes in
 * @secs seconds or @until user events were read.
 */
static void read_unanswered(trace_id_t trid, pid_t pid, int secs, int until, int *errors,
			    int *users)
{
	struct posix_trace_event_info info;
	struct timespec dl;
	int err, un;
	size_t len;

	while (*users < until) {
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += secs;
		err = 0;
		if (posix_trace_timedgetnext_event(trid, &info, &err, sizeof(err), &len, &un,
						   &dl) || un)
			break;
		count_unanswered(&info, err, len, pid, errors, users);
	}
}

/*
 * A target that does not answer (stopped by SIGSTOP): the snapshot a
 * getnext takes times out, and the stream records POSIX_TRACE_ERROR with
 * the error number as its data.  Its events are read first (a target
 * stopped before the session saw it started is not asked at all), and
 * it is known to be stopped before the snapshot is asked for.
 */
static void error_event_when_the_target_does_not_answer(void)
{
	static const char *const names[] = { "quiet", NULL };
	struct posix_trace_event_info info;
	int err = 0, errors = 0, users = 0, un, status;
	struct target c;
	trace_id_t trid;
	size_t len;

	child_start(&c, names, 10, true);
	T_ASSERT_EQ(posix_trace_create(c.pid, NULL, &trid), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	child_go(&c);
	read_unanswered(trid, c.pid, 10, 10, &errors, &users);
	T_ASSERT_EQ(users, 10);
	T_ASSERT_EQ(kill(c.pid, SIGSTOP), 0);
	/* stopped, every thread: kill() does not wait for it */
	T_ASSERT_EQ(waitpid(c.pid, &status, WUNTRACED), c.pid);
	T_ASSERT(WIFSTOPPED(status));
	/*
	 * what is queued, then a snapshot, which times out (libtracebuf's
	 * start timeout, 5 s): a getnext that found nothing ready asked
	 */
	do {
		err = 0;
		T_ASSERT_EQ(posix_trace_trygetnext_event(trid, &info, &err, sizeof(err), &len,
							 &un), 0);
		if (!un)
			count_unanswered(&info, err, len, c.pid, &errors, &users);
	} while (!un);
	T_ASSERT_EQ(kill(c.pid, SIGCONT), 0);
	read_unanswered(trid, c.pid, 2, INT_MAX, &errors, &users);
	T_EXPECT_EQ(errors, 1);
	T_EXPECT_EQ(users, 10);
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
	child_end(&c);
}

/*
 * posix-trace-example shows the three roles and checks its own log; the
 * log opens in tracebufctl dump, with every request in it.
 */
static void example_log_opens_in_tracebufctl_dump(void)
{
	char example[4200], ctl[4200], cmd[9000], line[1024];
	size_t requests = 0, replies = 0;
	FILE *f;
	int fd;

	beside(example, sizeof(example), "posix-trace-example");
	beside(ctl, sizeof(ctl), "tracebufctl");
	T_ASSERT_EQ(access(example, X_OK), 0);
	T_ASSERT_EQ(access(ctl, X_OK), 0);
	snprintf(cmd, sizeof(cmd), "%s -n 500 -o /tmp/posix-example.fxt", example);
	T_ASSERT_EQ(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s dump /tmp/posix-example.fxt", ctl);
	f = popen(cmd, "r");
	T_ASSERT(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, " cat=\"posix:request\" name=\"request\""))
			requests++;
		if (strstr(line, " cat=\"posix:reply\" name=\"reply\""))
			replies++;
	}
	T_EXPECT_EQ(pclose(f), 0);
	T_EXPECT_EQ(requests, 500);
	T_EXPECT_EQ(replies, 500);
	/* fxt-check reads it too */
	fd = open("/tmp/posix-example.fxt", O_RDONLY | O_CLOEXEC);
	T_EXPECT(fd >= 0);
	if (fd >= 0) {
		ptvm_keep_log(fd);
		close(fd);
	}
	unlink("/tmp/posix-example.fxt");
}

/* The data of binary_data_is_kept_as_fxt_allows(): bytes, and whether they are text. */
static char pt_big_bin[PT_MAX_DATA_SIZE_MAX], pt_big_text[PT_MAX_DATA_SIZE_MAX];

static const struct {
	const char *data;
	size_t len;
	bool text;
} pt_datas[] = {
	{ "\xff\xfe\x00\x01", 4, false },		/* bytes that are no UTF-8 */
	{ "\xef\xbe\xad\xde\x00\x00\x00\x00", 8, false },	/* a uint64_t */
	{ "h\xc3\xa9llo, \xe2\x82\xac\xf0\x9f\x98\x80", 15, true },	/* UTF-8 text */
	{ "\x05\x00\x00\x00", 4, true },		/* an int: NUL is UTF-8 */
	{ "\xed\xa0\x80", 3, false },			/* a surrogate */
	{ "\xc0\xaf", 2, false },			/* overlong */
	{ "\xf4\x90\x80\x80", 4, false },		/* above U+10FFFF */
	{ "abc\xc3", 4, false },			/* cut in a character */
	{ pt_big_bin, sizeof(pt_big_bin), false },
	{ pt_big_text, sizeof(pt_big_text), true },
};

/*
 * FXT strings are UTF-8: an event's data that are not go in the log as a
 * blob argument, those that are as a string, and either reads back as
 * recorded, to the byte; a FILTER event's sets (binary) too.  Every
 * string of the log is UTF-8; scripts/fxt-check.py reads it too (ptvm.h).
 */
static void binary_data_is_kept_as_fxt_allows(void)
{
	static char out[PT_MAX_DATA_SIZE_MAX];
	size_t n = sizeof(pt_datas) / sizeof(pt_datas[0]), k = 0, blobs = 0, strings = 0;
	struct posix_trace_event_info info;
	struct tracebuf_reader_record r;
	struct tracebuf_reader *rd;
	trace_event_set_t set, sets[2];
	trace_event_id_t a;
	trace_id_t trid, ltrid;
	trace_attr_t attr;
	bool filter_seen = false;
	char *buf;
	size_t len;
	off_t size;
	int fd = log_fd(), un;

	for (size_t i = 0; i < sizeof(pt_big_bin); i++) {
		pt_big_bin[i] = (char)(i * 7);
		pt_big_text[i] = (char)(i % 2 ? 0xa9 : 0xc3);	/* U+00E9 */
	}
	T_ASSERT_EQ(posix_trace_attr_init(&attr), 0);
	T_ASSERT_EQ(posix_trace_attr_setmaxdatasize(&attr, PT_MAX_DATA_SIZE_MAX), 0);
	self_log_start(&attr, fd, "bin", &trid, &a);
	for (size_t i = 0; i < n; i++) {
		T_EXPECT_EQ(tracebuf_fxt_utf8(pt_datas[i].data, pt_datas[i].len), pt_datas[i].text);
		posix_trace_event(a, pt_datas[i].data, pt_datas[i].len);
	}
	/* FLUSH_STOP (7): its bit is the high one of the set's first byte */
	T_ASSERT_EQ(posix_trace_eventset_empty(&set), 0);
	T_ASSERT_EQ(posix_trace_eventset_add(POSIX_TRACE_FLUSH_STOP, &set), 0);
	T_ASSERT_EQ(posix_trace_set_filter(trid, &set, POSIX_TRACE_SET_EVENTSET), 0);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);

	T_ASSERT_EQ(t_log_open(fd, &ltrid), 0);
	for (;;) {
		T_ASSERT_EQ(posix_trace_getnext_event(ltrid, &info, out, sizeof(out), &len, &un),
			    0);
		if (un)
			break;
		if (info.posix_event_id == POSIX_TRACE_FILTER) {
			filter_seen = true;
			T_EXPECT_EQ(len, sizeof(sets));
			memcpy(sets, out, sizeof(sets));
			T_EXPECT_MEM(&sets[1], &set, sizeof(set));
			continue;
		}
		if (info.posix_event_id != a)
			continue;
		if (k >= n) {
			T_FAIL("more events than recorded");
			break;
		}
		T_EXPECT_EQ(info.posix_truncation_status, POSIX_TRACE_NOT_TRUNCATED);
		T_EXPECT_EQ(len, pt_datas[k].len);
		if (len == pt_datas[k].len && memcmp(out, pt_datas[k].data, len))
			T_FAIL("the data of event %zu are not as recorded", k);
		k++;
	}
	T_EXPECT_EQ(k, n);
	T_EXPECT(filter_seen);
	T_EXPECT_EQ(posix_trace_close(ltrid), 0);

	/* the log itself: data as strings when UTF-8, else as blobs; all strings UTF-8 */
	size = lseek(fd, 0, SEEK_END);
	T_ASSERT(size > 0);
	buf = malloc((size_t)size);
	T_ASSERT(buf);
	T_ASSERT_EQ(pread(fd, buf, (size_t)size, 0), size);
	T_ASSERT_EQ(t_trace_open_mem(buf, (size_t)size, TRACEBUF_LIB_READER_MAGIC, &rd),
		    0);
	k = 0;
	while (tracebuf_reader_next(rd, &r) > 0) {
		if (r.type == TRACEBUF_LIB_FXT_RECORD_STRING &&
		    !tracebuf_fxt_utf8(r.string.str.data, r.string.str.len))
			T_FAIL("string record %u is not UTF-8", r.string.index);
		if (r.type != TRACEBUF_LIB_FXT_RECORD_EVENT)
			continue;
		if (!tracebuf_fxt_utf8(r.event.category.data, r.event.category.len) ||
		    !tracebuf_fxt_utf8(r.event.name.data, r.event.name.len))
			T_FAIL("an event's category or name is not UTF-8");
		for (unsigned int i = 0; i < r.nargs; i++) {
			const struct tracebuf_reader_arg *g = &r.args[i];
			bool data = g->name.len == 4 && !memcmp(g->name.data, "data", 4);

			if (g->type == TRACEBUF_LIB_FXT_ARG_STRING) {
				if (!tracebuf_fxt_utf8(g->str.data, g->str.len))
					T_FAIL("a string argument is not UTF-8");
				strings += data;
			} else if (g->type == TRACEBUF_LIB_FXT_ARG_BLOB) {
				if (tracebuf_fxt_utf8(g->raw.data, g->raw.len))
					T_FAIL("UTF-8 data in a blob, not a string");
				blobs += data;
			}
		}
	}
	tracebuf_reader_close(rd);
	/* the user events' 7 blobs and 3 strings, and FILTER's blob */
	T_EXPECT_EQ(blobs, 8);
	T_EXPECT_EQ(strings, 3);
	free(buf);
	close(fd);
}

/*
 * A log begins as tracebufctl's traces do: the magic record, then a
 * provider info record, before any other (here provider 0's, the
 * session's own, whose records are the attributes and the system
 * events); every record after is in a provider's section.
 */
static void log_begins_with_a_provider_record(void)
{
	struct tracebuf_reader_record r;
	struct tracebuf_reader *rd;
	trace_event_id_t a;
	trace_id_t trid, ltrid;
	uint64_t d = 0x4142434445464748ull;
	bool provider = false, attr = false;
	unsigned int sections0 = 0, records = 0;
	char buf[1 << 16];
	ssize_t size;
	int fd = log_fd();

	self_log_start(NULL, fd, "shape", &trid, &a);
	posix_trace_event(a, &d, sizeof(d));
	T_ASSERT_EQ(posix_trace_stop(trid), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	posix_trace_event(a, &d, sizeof(d));
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);

	size = pread(fd, buf, sizeof(buf), 0);
	T_ASSERT(size > 8 && size < (ssize_t)sizeof(buf));
	T_ASSERT_EQ(t_trace_open_mem(buf, (size_t)size, TRACEBUF_LIB_READER_MAGIC, &rd),
		    0);
	while (tracebuf_reader_next(rd, &r) > 0) {
		records++;
		if (r.type == TRACEBUF_LIB_FXT_RECORD_METADATA &&
		    r.meta.type == TRACEBUF_LIB_FXT_META_PROVIDER_INFO) {
			if (!provider) {
				T_EXPECT_EQ(r.meta.provider_id, 0);
				T_EXPECT_EQ(r.meta.name.len,
					    sizeof(TRACEBUF_LIB_SESSION_PROVIDER_NAME) - 1);
			}
			provider = true;
			continue;
		}
		if (r.type == TRACEBUF_LIB_FXT_RECORD_METADATA) {
			if (r.meta.type == TRACEBUF_LIB_FXT_META_PROVIDER_SECTION &&
			    !r.meta.provider_id)
				sections0++;
			continue;
		}
		if (!provider) {
			T_FAIL("record %u, of type %u, before any provider record", records,
			       r.type);
			break;
		}
		/* (a provider's own blobs fill its buffers' unused tails) */
		if (r.type == TRACEBUF_LIB_FXT_RECORD_BLOB &&
		    r.blob.name.len == sizeof(PT_LOG_ATTR_NAME) - 1 &&
		    !memcmp(r.blob.name.data, PT_LOG_ATTR_NAME, r.blob.name.len)) {
			T_EXPECT_EQ(r.provider_id, 0);
			attr = true;
		}
		/* the system events (START, STOP, ...) are provider 0's */
		if (r.type == TRACEBUF_LIB_FXT_RECORD_EVENT && r.event.name.len > 12 &&
		    !memcmp(r.event.name.data, "POSIX_TRACE_", 12) && r.provider_id)
			T_FAIL("%.*s at offset %zu is provider %u's", (int)r.event.name.len,
			       r.event.name.data, r.offset, r.provider_id);
	}
	tracebuf_reader_close(rd);
	T_EXPECT(attr);
	T_EXPECT(sections0 >= 3);	/* START, STOP, START, STOP after the first */
	/* and it still reads */
	T_ASSERT_EQ(t_log_open(fd, &ltrid), 0);
	T_EXPECT_EQ(posix_trace_close(ltrid), 0);
	close(fd);
}

static const struct t_test tests[] = {
	T_TEST(self_trace_log_holds_every_event),
	T_TEST(log_reads_as_a_tracebuf_trace),
	T_TEST(threads_events_each_once_in_timestamp_order),
	T_TEST(truncation_is_reported),
	T_TEST(attributes_of_the_stream_and_of_its_log),
	T_TEST(status_follows_start_and_stop),
	T_TEST(eventtypelist_lists_each_type_once),
	T_TEST(stream_of_a_child),
	T_TEST(create_errors),
	T_TEST(create_withlog_errors),
	T_TEST(trace_sys_max_streams),
	T_TEST(open_and_getnext_errors),
	T_TEST(inherited_stream_traces_children),
	T_TEST(inherited_stream_traces_a_child_forked_at_once),
	T_TEST(inherited_stream_shares_event_type_ids),
	T_TEST(two_streams_the_first_gets_the_events),
	T_TEST(two_controllers_the_first_gets_the_events),
	T_TEST(close_for_child_stream_does_not),
	T_TEST(online_self_trace_getnext),
	T_TEST(online_million_events_loop),
	T_TEST(online_until_full_loses_nothing),
	T_TEST(online_overrun_is_reported_then_reset),
	T_TEST(online_timeout_and_shutdown_while_blocked),
	T_TEST(online_wait_interrupted_by_a_signal),
	T_TEST(online_errors),
	T_TEST(eventid_open_ids_and_limits),
	T_TEST(filter_while_running),
	T_TEST(filter_before_start_and_online),
	T_TEST(filter_while_running_loses_nothing),
	T_TEST(filter_errors),
	T_TEST(trid_eventid_open_of_another_process),
	T_TEST(system_events_in_the_log),
	T_TEST(overflow_of_a_full_stream),
	T_TEST(flush_writes_the_stream_to_its_log),
	T_TEST(flush_of_a_running_stream_loses_nothing),
	T_TEST(flush_frees_the_stream),
	T_TEST(clear_empties_the_stream_and_its_log),
	T_TEST(clear_of_a_stream_read_online),
	T_TEST(log_until_full_stops_the_stream),
	T_TEST(log_loop_keeps_the_newest),
	T_TEST(log_loop_smaller_than_the_stream),
	T_TEST(log_loop_of_a_flush_stream),
	T_TEST(log_append_grows),
	T_TEST(log_write_errors),
	T_TEST(log_loop_stream_overrun),
	T_TEST(error_event_when_the_target_does_not_answer),
	T_TEST(example_log_opens_in_tracebufctl_dump),
	T_TEST(binary_data_is_kept_as_fxt_allows),
	T_TEST(log_begins_with_a_provider_record),
};

T_MAIN(tests)
