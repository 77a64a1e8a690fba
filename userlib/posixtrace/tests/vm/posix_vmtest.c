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
#include "../../../tests/ktap.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace.h>
#include <tracebuf_reader.h>

#include "posixtrace_priv.h"

static int log_fd(void)
{
	int fd = memfd_create("posix-log", MFD_CLOEXEC);

	if (fd < 0) {
		perror("memfd_create");
		exit(2);
	}
	return fd;
}

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

/* Read the whole log: every event into v (at most cap); the count. */
static size_t read_log(int fd, struct seen *v, size_t cap, trace_id_t *tridp)
{
	trace_id_t trid;
	size_t n = 0;

	if (posix_trace_open(fd, &trid)) {
		T_FAIL("posix_trace_open() of the log failed");
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

static bool ts_le(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec <= b->tv_nsec);
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
	/* rewind: the first event again */
	{
		struct posix_trace_event_info info;
		uint64_t d = 5;
		size_t len;
		int un;

		T_EXPECT_EQ(posix_trace_rewind(ltrid), 0);
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
	T_ASSERT_EQ(tracebuf_reader_open_mem(buf, (size_t)st.st_size,
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
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	posix_trace_event(a, big, sizeof(big));
	posix_trace_event(a, big, 8);
	posix_trace_event(a, NULL, 0);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);

	T_ASSERT_EQ(posix_trace_open(fd, &ltrid), 0);
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

	T_ASSERT_EQ(posix_trace_open(fd, &ltrid), 0);
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
	int go[2], ready[2], fd = log_fd(), status;
	trace_id_t trid;
	pid_t pid;
	size_t n;
	char c;

	T_ASSERT_EQ(pipe(go), 0);
	T_ASSERT_EQ(pipe(ready), 0);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		trace_event_id_t id;

		if (posix_trace_eventid_open("child", &id))
			_exit(3);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(4);
		for (uint64_t i = 0; i < 100; i++)
			posix_trace_event(id, &i, sizeof(i));
		_exit(write(ready[1], "d", 1) == 1 ? 0 : 5);
	}
	T_ASSERT_EQ(read(ready[0], &c, 1), 1);
	T_ASSERT_EQ(posix_trace_create_withlog(pid, NULL, fd, &trid), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	T_ASSERT_EQ(write(go[1], "g", 1), 1);
	T_ASSERT_EQ(read(ready[0], &c, 1), 1);
	T_ASSERT_EQ(posix_trace_stop(trid), 0);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	T_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	n = read_log(fd, v, 101, NULL);
	T_EXPECT_EQ(n, 100);
	for (size_t i = 0; i < n && i < 100 && !t_failures; i++) {
		T_EXPECT_EQ(v[i].data, i);
		T_EXPECT_EQ(v[i].info.posix_pid, pid);
	}
}

/* the errors of posix_trace_create_withlog(3p) */
static void create_withlog_errors(void)
{
	trace_attr_t attr;
	trace_id_t trid;
	int fd = log_fd(), ro, status;
	pid_t dead;

	memset(&attr, 0, sizeof(attr));
	T_EXPECT_EQ(posix_trace_create_withlog(0, &attr, fd, &trid), EINVAL);
	T_EXPECT_EQ(posix_trace_create_withlog(0, NULL, fd, NULL), EINVAL);
	T_EXPECT_EQ(posix_trace_create_withlog(0, NULL, -1, &trid), EBADF);
	ro = open("/proc/self/stat", O_RDONLY);
	T_ASSERT(ro >= 0);
	T_EXPECT_EQ(posix_trace_create_withlog(0, NULL, ro, &trid), EBADF);
	close(ro);
	/* a process that no longer exists */
	dead = fork();
	T_ASSERT(dead >= 0);
	if (dead == 0)
		_exit(0);
	T_ASSERT_EQ(waitpid(dead, &status, 0), dead);
	T_EXPECT_EQ(posix_trace_create_withlog(dead, NULL, fd, &trid), ESRCH);
	/* not a manager: no right to trace */
	{
		pid_t p = fork();

		T_ASSERT(p >= 0);
		if (p == 0) {
			if (setgid(65534) || setuid(65534))
				_exit(3);
			_exit(posix_trace_create_withlog(0, NULL, fd, &trid) == EPERM ? 0 : 4);
		}
		T_ASSERT_EQ(waitpid(p, &status, 0), p);
		T_EXPECT(WIFEXITED(status));
		T_EXPECT_EQ(WEXITSTATUS(status), 0);
	}
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
	T_EXPECT_EQ(posix_trace_open(fd, &trid[i]), EAGAIN);
	for (i = 0; i < TRACE_SYS_MAX; i++)
		T_EXPECT_EQ(posix_trace_shutdown(trid[i]), 0);
}

/* the errors of posix_trace_open(3p) and _getnext_event(3p) */
static void open_and_getnext_errors(void)
{
	struct posix_trace_event_info info;
	trace_id_t trid, strid;
	int fd = log_fd(), wo, un;
	size_t len;
	char d[8];

	/* not a trace */
	T_ASSERT_EQ(write(fd, "not a trace at all", 18), 18);
	T_EXPECT_EQ(posix_trace_open(fd, &trid), EINVAL);
	T_EXPECT_EQ(posix_trace_open(-1, &trid), EBADF);
	wo = open("/dev/null", O_WRONLY);
	T_ASSERT(wo >= 0);
	T_EXPECT_EQ(posix_trace_open(wo, &trid), EBADF);
	close(wo);
	T_EXPECT_EQ(posix_trace_open(fd, NULL), EINVAL);
	/* an active stream is not read by getnext (yet): EINVAL */
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

static const struct t_test tests[] = {
	T_TEST(self_trace_log_holds_every_event),
	T_TEST(log_reads_as_a_tracebuf_trace),
	T_TEST(threads_events_each_once_in_timestamp_order),
	T_TEST(truncation_is_reported),
	T_TEST(attributes_of_the_stream_and_of_its_log),
	T_TEST(status_follows_start_and_stop),
	T_TEST(stream_of_a_child),
	T_TEST(create_withlog_errors),
	T_TEST(trace_sys_max_streams),
	T_TEST(open_and_getnext_errors),
	T_TEST(eventid_open_ids_and_limits),
};

T_MAIN(tests)
