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
 * figure (default 200).
 */
#define _GNU_SOURCE
#include "ktap.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <trace.h>

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

/* Each trip: wait until the reader is blocked for trip i, then send i. */
static void send_trips(struct trip *t, int pipe_wr)
{
	for (unsigned int i = 0; i < t->trips; i++) {
		uint64_t d[2];

		while (atomic_load(&t->ready) < i + 1)
			usleep(100);
		usleep(5000);
		d[0] = now_ns();
		d[1] = i;
		if (pipe_wr >= 0) {
			if (write(pipe_wr, d, sizeof(d)) != sizeof(d))
				break;
		} else {
			posix_trace_event(t->id, d, sizeof(d));
		}
	}
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

static const struct t_test tests[] = {
	T_TEST(event_to_blocked_getnext),
};

T_MAIN(tests)
