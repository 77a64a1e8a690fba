// SPDX-License-Identifier: MIT
/*
 * libposixtrace's stream-min-size, in the test VM with the module loaded,
 * against posix_trace_attr_getstreamsize(3p): "if the sum of the maximum
 * sizes of a set of trace events is lower than or equal to the value of
 * the stream-min-size attribute, then the system provides the necessary
 * resources for recording all those trace events, without loss".
 *
 * Each case posts, from one thread or four, as many events as their
 * maximum sizes (posix_trace_attr_getmaxusereventsize()) allow in the
 * stream's minimum size, under three event types, then stops the stream
 * and reads it (on-line, or from the log after the shutdown): every event
 * is there, once, and no overrun is reported.  Every stream full policy,
 * a 4 KiB and a 64 KiB stream, data of 8, 136 and 1024 bytes (the
 * default max-data-size).
 */
#define _GNU_SOURCE
#include "ktap.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <trace.h>

#include "ptvm.h"

#define WRITERS_MAX	4
#define TYPES		3

struct post {
	trace_event_id_t id[TYPES];
	uint64_t first, count;
	size_t len;
};

static void *poster(void *arg)
{
	const struct post *p = arg;
	char data[1024] = { 0 };

	for (uint64_t i = 0; i < p->count; i++) {
		uint64_t n = p->first + i;

		memcpy(data, &n, sizeof(n));
		posix_trace_event(p->id[n % TYPES], data, p->len);
	}
	return NULL;
}

struct result {
	uint64_t events, dupes;
	bool overrun;
};

/* Every event of @trid up to the end (on-line: trygetnext; a log: getnext). */
static void read_events(trace_id_t trid, bool log, const trace_event_id_t *id,
			uint64_t expect, struct result *r)
{
	uint8_t *seen = calloc(expect, 1);

	T_ASSERT(seen != NULL);
	memset(r, 0, sizeof(*r));
	for (;;) {
		struct posix_trace_event_info info;
		char data[1024];
		size_t len;
		int un = 0, ret;
		uint64_t n;

		if (log)
			ret = posix_trace_getnext_event(trid, &info, data, sizeof(data), &len, &un);
		else
			ret = posix_trace_trygetnext_event(trid, &info, data, sizeof(data), &len,
							   &un);
		T_ASSERT_EQ(ret, 0);
		if (un)
			break;
		if (info.posix_truncation_status != POSIX_TRACE_NOT_TRUNCATED)
			r->overrun = true;
		if (info.posix_event_id == POSIX_TRACE_OVERFLOW)
			r->overrun = true;
		if (info.posix_event_id != id[0] && info.posix_event_id != id[1] &&
		    info.posix_event_id != id[2])
			continue;
		T_ASSERT(len >= sizeof(n));
		memcpy(&n, data, sizeof(n));
		if (n < expect && !seen[n]++)
			r->events++;
		else
			r->dupes++;
	}
	free(seen);
}

struct mcase {
	int policy;
	size_t stream;
	size_t len;
	unsigned int writers;
};

/* One case; a case that lost events adds one to *@short_. */
static void run_case(const struct mcase *c, unsigned int *short_)
{
	static const char *const names[TYPES] = { "min.a", "min.b", "min.c" };
	struct posix_trace_status_info st;
	struct post post[WRITERS_MAX];
	pthread_t th[WRITERS_MAX];
	trace_event_id_t id[TYPES];
	bool log = c->policy == POSIX_TRACE_FLUSH;
	uint64_t k, per;
	struct result r;
	trace_attr_t attr;
	trace_id_t trid;
	size_t max;
	int fd = -1;

	T_ASSERT_EQ(posix_trace_attr_init(&attr), 0);
	T_ASSERT_EQ(posix_trace_attr_setstreamfullpolicy(&attr, c->policy), 0);
	T_ASSERT_EQ(posix_trace_attr_setstreamsize(&attr, c->stream), 0);
	T_ASSERT_EQ(posix_trace_attr_getmaxusereventsize(&attr, c->len, &max), 0);
	k = c->stream / max;
	if (log) {
		fd = log_fd();
		T_ASSERT_EQ(posix_trace_create_withlog(0, &attr, fd, &trid), 0);
	} else {
		T_ASSERT_EQ(posix_trace_create(0, &attr, &trid), 0);
	}
	for (int i = 0; i < TYPES; i++)
		T_ASSERT_EQ(posix_trace_eventid_open(names[i], &id[i]), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	per = k / c->writers;
	for (unsigned int i = 0; i < c->writers; i++) {
		post[i] = (struct post){ .first = i * per, .len = c->len,
					 .count = i + 1 < c->writers ? per : k - i * per };
		memcpy(post[i].id, id, sizeof(id));
		T_ASSERT_EQ(pthread_create(&th[i], NULL, poster, &post[i]), 0);
	}
	for (unsigned int i = 0; i < c->writers; i++)
		pthread_join(th[i], NULL);
	T_ASSERT_EQ(posix_trace_stop(trid), 0);
	T_ASSERT_EQ(posix_trace_get_status(trid, &st), 0);
	if (log) {
		T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
		T_ASSERT_EQ(t_log_open(fd, &trid), 0);
	}
	read_events(trid, log, id, k, &r);
	T_ASSERT_EQ(log ? posix_trace_close(trid) : posix_trace_shutdown(trid), 0);
	if (fd >= 0)
		close(fd);
	posix_trace_attr_destroy(&attr);
	if (r.events == k && !r.dupes && !r.overrun &&
	    st.posix_stream_overrun_status == POSIX_TRACE_NO_OVERRUN)
		return;
	++*short_;
	printf("# policy %d, stream %zu, data %zu, %u writers: %llu of %llu events of %zu bytes, %llu twice, overrun %d/%d\n",
	       c->policy, c->stream, c->len, c->writers, (unsigned long long)r.events,
	       (unsigned long long)k, max, (unsigned long long)r.dupes, r.overrun,
	       st.posix_stream_overrun_status == POSIX_TRACE_OVERRUN);
}

static void minimum_size_holds_its_events(void)
{
	static const int policies[] = { POSIX_TRACE_UNTIL_FULL, POSIX_TRACE_LOOP,
					POSIX_TRACE_FLUSH };
	static const size_t streams[] = { 4096, 64 * 1024 };
	static const size_t lens[] = { 8, 136, 1024 };
	static const unsigned int writers[] = { 1, WRITERS_MAX };
	unsigned int cases = 0, short_ = 0;

	for (size_t p = 0; p < sizeof(policies) / sizeof(policies[0]); p++)
	for (size_t s = 0; s < sizeof(streams) / sizeof(streams[0]); s++)
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
	for (size_t w = 0; w < sizeof(writers) / sizeof(writers[0]); w++) {
		struct mcase c = { policies[p], streams[s], lens[l], writers[w] };

		run_case(&c, &short_);
		cases++;
	}
	printf("# %u cases, %u short\n", cases, short_);
	T_EXPECT_EQ(short_, 0);
}

static const struct t_test tests[] = {
	T_TEST(minimum_size_holds_its_events),
};

T_MAIN(tests)
