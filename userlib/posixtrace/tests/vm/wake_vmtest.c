// SPDX-License-Identifier: MIT
/*
 * How soon a blocked on-line reader gets an event: the time from
 * posix_trace_event() in one thread to posix_trace_getnext_event()
 * returning it in another, blocked there, next to a pipe's write() to a
 * blocked read() measured the same way in the same run.  Each trip waits
 * until the reader is blocked (a handshake, then 5 ms) before the event
 * is posted.  Figures: median and p99 of each, and their ratio; the test
 * checks only that every event came, once and in order ("make bench"
 * prints the figures: scripts/bench.sh).  TB_BENCH_TRIPS: trips per
 * figure (default 200).  The same again with the events and the pipe's
 * writes in another process, the traced one, and the reader in the
 * controller: its wake-up ratio is wake_latency_process.  And the
 * target's side of that wake, by itself: the ALERT its events send.
 */
#define _GNU_SOURCE
#include "ktap.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <trace.h>
#include <tracebuf_manager.h>

#include "ptvm.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct trip {
	trace_id_t trid;
	trace_event_id_t id;
	int pipe_rd;
	unsigned int trips;
	atomic_uint ready;	/* trips the reader is ready for */
	uint64_t *lat;
	unsigned int got, in_order;
};

static void *trace_reader(void *arg)
{
	struct trip *t = arg;

	for (unsigned int i = 0; i < t->trips;) {
		struct posix_trace_event_info info;
		uint64_t d[2] = { 0 };
		size_t len;
		int un;

		atomic_store(&t->ready, i + 1);
		if (posix_trace_getnext_event(t->trid, &info, d, sizeof(d), &len, &un) || un)
			break;
		if (info.posix_event_id != t->id)
			continue;
		t->lat[i] = now_ns() - d[0];
		t->in_order += d[1] == i;
		t->got++;
		i++;
	}
	return NULL;
}

static void *pipe_reader(void *arg)
{
	struct trip *t = arg;

	for (unsigned int i = 0; i < t->trips; i++) {
		uint64_t d[2];

		atomic_store(&t->ready, i + 1);
		if (read(t->pipe_rd, d, sizeof(d)) != sizeof(d))
			break;
		t->lat[i] = now_ns() - d[0];
		t->in_order += d[1] == i;
		t->got++;
	}
	return NULL;
}

/*
 * Each trip: wait until the reader is blocked for trip i (@ready), then
 * send i to @pipe_wr or, when it is -1, as an event of type @id.
 * Returns -1 when a pipe write failed.
 */
static int post_trips(atomic_uint *ready, unsigned int trips, trace_event_id_t id, int pipe_wr)
{
	for (unsigned int i = 0; i < trips; i++) {
		uint64_t d[2];

		while (atomic_load(ready) < i + 1)
			usleep(100);
		usleep(5000);
		d[0] = now_ns();
		d[1] = i;
		if (pipe_wr >= 0) {
			if (write(pipe_wr, d, sizeof(d)) != sizeof(d))
				return -1;
		} else {
			posix_trace_event(id, d, sizeof(d));
		}
	}
	return 0;
}

static void send_trips(struct trip *t, int pipe_wr)
{
	post_trips(&t->ready, t->trips, t->id, pipe_wr);
}

static void report(const char *what, uint64_t *lat, unsigned int n, uint64_t *median,
		   uint64_t *p99)
{
	qsort(lat, n, sizeof(*lat), cmp_u64);
	*median = lat[n / 2];
	*p99 = lat[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1];
	printf("# %-36s median %8.1f us  p99 %8.1f us  (%u trips)\n", what,
	       (double)*median / 1000, (double)*p99 / 1000, n);
}

static void event_to_blocked_getnext(void)
{
	const char *env = getenv("TB_BENCH_TRIPS");
	unsigned int trips = env && atoi(env) > 0 ? (unsigned int)atoi(env) : 200;
	struct trip tr = { .trips = trips }, tp = { .trips = trips };
	uint64_t tm, t99, pm, p99, lm, l99, look[50];
	pthread_t th;
	int p[2];

	tr.lat = calloc(trips, sizeof(uint64_t));
	tp.lat = calloc(trips, sizeof(uint64_t));
	T_ASSERT(tr.lat && tp.lat);

	/* the pipe first */
	T_ASSERT_EQ(pipe(p), 0);
	tp.pipe_rd = p[0];
	T_ASSERT_EQ(pthread_create(&th, NULL, pipe_reader, &tp), 0);
	send_trips(&tp, p[1]);
	pthread_join(th, NULL);
	close(p[0]);
	close(p[1]);
	T_EXPECT_EQ(tp.got, trips);

	/* a stream of this process, read on-line */
	T_ASSERT_EQ(posix_trace_create(0, NULL, &tr.trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("wake", &tr.id), 0);
	T_ASSERT_EQ(posix_trace_start(tr.trid), 0);
	/* what a look costs: a snapshot of the target (nothing to read) */
	for (unsigned int i = 0; i < 50; i++) {
		struct posix_trace_event_info info;
		size_t len;
		int un;

		look[i] = now_ns();
		T_ASSERT_EQ(posix_trace_trygetnext_event(tr.trid, &info, NULL, 0, &len, &un), 0);
		look[i] = now_ns() - look[i];
	}
	T_ASSERT_EQ(pthread_create(&th, NULL, trace_reader, &tr), 0);
	send_trips(&tr, -1);
	pthread_join(th, NULL);
	T_EXPECT_EQ(posix_trace_shutdown(tr.trid), 0);
	T_EXPECT_EQ(tr.got, trips);
	T_EXPECT_EQ(tr.in_order, trips);
	if (tr.got != trips || tp.got != trips)
		return;

	report("trygetnext, nothing to read", look, 50, &lm, &l99);
	report("pipe write -> blocked read", tp.lat, trips, &pm, &p99);
	report("posix_trace_event -> blocked getnext", tr.lat, trips, &tm, &t99);
	printf("# wake_latency: median %.1fx, p99 %.1fx the pipe's\n", (double)tm / (double)pm,
	       (double)t99 / (double)p99);
}

/*
 * Across processes: the handshake in shared memory, the stream's event
 * type known by name (the target opened it, the ids are the stream's).
 */
struct xtrip {
	atomic_uint ready;	/* trips the reader is ready for */
	atomic_uint go;		/* the target may open its type and post */
};

static unsigned int bench_trips(void)
{
	const char *env = getenv("TB_BENCH_TRIPS");

	return env && atoi(env) > 0 ? (unsigned int)atoi(env) : 200;
}

/* The target: trip i once the reader is blocked for it. */
static void xsend_trips(struct xtrip *x, unsigned int trips, int pipe_wr)
{
	trace_event_id_t id = 0;

	while (!atomic_load(&x->go))
		usleep(1000);
	if (pipe_wr < 0 && posix_trace_eventid_open("wake", &id))
		_exit(2);
	if (post_trips(&x->ready, trips, id, pipe_wr))
		_exit(3);
	/*
	 * Until the reader has the last one: what a target that ended left
	 * comes to an on-line reader only once the stream stops.
	 */
	for (int i = 0; i < 1000 && atomic_load(&x->ready) <= trips; i++)
		usleep(10 * 1000);
	_exit(0);
}

/* Fork the target of @x, which posts to @pipe_wr or (-1) its stream. */
static pid_t xtarget(struct xtrip *x, unsigned int trips, int pipe_wr)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		xsend_trips(x, trips, pipe_wr);
	return pid;
}

static void event_of_another_process_to_blocked_getnext(void)
{
	unsigned int trips = bench_trips(), got = 0, in_order = 0, named = 0;
	uint64_t *lp = calloc(trips, sizeof(uint64_t)), *lt = calloc(trips, sizeof(uint64_t));
	struct xtrip *x = mmap(NULL, sizeof(*x), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char name[TRACE_EVENT_NAME_MAX + 1];
	uint64_t pm, p99, tm, t99;
	trace_id_t trid;
	int p[2], status;
	pid_t pid;

	T_ASSERT(lp && lt && x != MAP_FAILED);

	/* the pipe: the target writes, this process reads */
	T_ASSERT_EQ(pipe(p), 0);
	pid = xtarget(x, trips, p[1]);
	T_ASSERT(pid > 0);
	close(p[1]);
	atomic_store(&x->go, 1);
	for (unsigned int i = 0; i < trips; i++) {
		uint64_t d[2];

		atomic_store(&x->ready, i + 1);
		if (read(p[0], d, sizeof(d)) != sizeof(d))
			break;
		lp[i] = now_ns() - d[0];
		got++;
	}
	atomic_store(&x->ready, trips + 1);
	close(p[0]);
	T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	T_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	T_ASSERT_EQ(got, trips);

	/* a stream of the target, read on-line here */
	memset(x, 0, sizeof(*x));
	pid = xtarget(x, trips, -1);
	T_ASSERT(pid > 0);
	T_ASSERT_EQ(posix_trace_create(pid, NULL, &trid), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	atomic_store(&x->go, 1);
	got = 0;
	for (unsigned int i = 0; i < trips;) {
		struct posix_trace_event_info info;
		uint64_t d[2] = { 0 };
		size_t len;
		int un;

		struct timespec until;

		atomic_store(&x->ready, i + 1);
		/* a lost event would stall both: 5 s at most, then the count says */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 5;
		if (posix_trace_timedgetnext_event(trid, &info, d, sizeof(d), &len, &un, &until) ||
		    un)
			break;
		/* the system events carry no 16 bytes */
		if (len != sizeof(d))
			continue;
		if (!posix_trace_eventid_get_name(trid, info.posix_event_id, name))
			named += !strcmp(name, "wake");
		lt[i] = now_ns() - d[0];
		in_order += d[1] == i;
		got++;
		i++;
	}
	atomic_store(&x->ready, trips + 1);
	if (got != trips)
		kill(pid, SIGKILL);
	T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	T_EXPECT(got != trips || (WIFEXITED(status) && WEXITSTATUS(status) == 0));
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
	T_EXPECT_EQ(got, trips);
	T_EXPECT_EQ(named, got);
	T_EXPECT_EQ(in_order, trips);
	if (got != trips)
		return;

	report("pipe, other process -> blocked read", lp, trips, &pm, &p99);
	report("event, other process -> getnext", lt, trips, &tm, &t99);
	printf("# wake_latency_process: median %.1fx, p99 %.1fx the pipe's\n",
	       (double)tm / (double)pm, (double)t99 / (double)p99);
}

static void count_wake_alerts(void *arg, const struct tracebuf_session_note *n)
{
	if (n->type == TRACEBUF_LIB_NOTE_ALERT && !strcmp(n->alert, "posix.wake"))
		(*(unsigned int *)arg)++;
}

/* Dispatch @s until *@count is @want, or for @ms if @want is 0. */
static void serve_until(struct tracebuf_session *s, const unsigned int *count,
			unsigned int want, int ms)
{
	for (int i = 0; i < ms && (!want || *count < want); i += 5) {
		tracebuf_session_dispatch(s);
		usleep(5 * 1000);
	}
	tracebuf_session_dispatch(s);
}

/* The target of target_alerts_once_per_arming(): does what it reads. */
static _Noreturn void alerting_target(int cmd)
{
	trace_event_id_t id = 0;
	uint64_t seq = 0;
	char c;

	while (read(cmd, &c, 1) == 1) {
		if (c == 'o' && posix_trace_eventid_open("x", &id))
			_exit(2);
		for (int i = 0; i < (c == 'E' ? 10 : c == 'e'); i++, seq++)
			posix_trace_event(id, &seq, sizeof(seq));
	}
	_exit(0);
}

/*
 * How a reader in another process is woken, on the target's side: with
 * the category posix.wake enabled, the target's first event sends the
 * ALERT "posix.wake" to the stream's session, and no later one does
 * until the session's next categories update.
 */
static void target_alerts_once_per_arming(void)
{
	static const char *const cats[] = { "posix:*", "posix.wake" };
	struct tracebuf_session_config cfg = {
		.size = sizeof(cfg), .mode = TRACEBUF_MODE_CIRCULAR, .buffer_size = 64 * 1024,
		.categories = cats, .ncategories = 2, .nproviders = 1,
		.notify = count_wake_alerts,
	};
	struct tracebuf_session_start_args args = { 0 };
	struct tracebuf_session_provider pi = { 0 };
	unsigned int alerts = 0;
	struct tracebuf_session *s;
	const char *names[1];
	char prov[32];
	int cmd[2], status;
	pid_t pid;

	T_ASSERT_EQ(pipe(cmd), 0);
	fflush(stdout);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (!pid) {
		close(cmd[1]);
		alerting_target(cmd[0]);
	}
	close(cmd[0]);
	snprintf(prov, sizeof(prov), "posix_trace.%d", (int)pid);
	names[0] = prov;
	cfg.providers = names;
	cfg.arg = &alerts;
	cfg.output_fd = memfd_create("alerts.fxt", MFD_CLOEXEC);
	T_ASSERT(cfg.output_fd >= 0);
	T_ASSERT_EQ(tracebuf_session_create(&cfg, &s), 0);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	/* it registers as it opens its type, and joins */
	T_ASSERT_EQ(write(cmd[1], "o", 1), 1);
	for (int i = 0; i < 1000 && pi.state != TRACEBUF_LIB_TRACEE_STARTED; i++) {
		tracebuf_session_dispatch(s);
		if (tracebuf_session_providers(s, &pi, 1) != 1)
			pi.state = 0;
		usleep(5 * 1000);
	}
	T_ASSERT_EQ(pi.state, TRACEBUF_LIB_TRACEE_STARTED);
	/* armed by the start, then by an update */
	for (unsigned int round = 1; round <= 2; round++) {
		if (round > 1)
			T_ASSERT_EQ(tracebuf_session_update(s, &args), 0);
		T_ASSERT_EQ(write(cmd[1], "e", 1), 1);
		serve_until(s, &alerts, round, 5000);
		T_EXPECT_EQ(alerts, round);
		/* not again until armed again */
		T_ASSERT_EQ(write(cmd[1], "E", 1), 1);
		serve_until(s, &alerts, 0, 300);
		T_EXPECT_EQ(alerts, round);
	}
	close(cmd[1]);
	T_EXPECT_EQ(tracebuf_session_stop(s, false), 0);
	T_EXPECT_EQ(waitpid(pid, &status, 0), pid);
	T_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	T_EXPECT_EQ(tracebuf_session_destroy(s), 0);
	close(cfg.output_fd);
}

static const struct t_test tests[] = {
	T_TEST(event_to_blocked_getnext),
	T_TEST(event_of_another_process_to_blocked_getnext),
	T_TEST(target_alerts_once_per_arming),
};

T_MAIN(tests)
