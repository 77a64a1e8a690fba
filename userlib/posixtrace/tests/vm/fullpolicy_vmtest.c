// SPDX-License-Identifier: MIT
/*
 * libposixtrace's stream full policies, read on-line, in the test VM
 * with the module loaded, against the sentences of the standard:
 *
 *  - POSIX_TRACE_UNTIL_FULL (posix_trace_attr_getstreamfullpolicy(3p)):
 *    "the trace stream shall be run until the trace stream resources are
 *    exhausted.  Then the trace stream will stop ... a POSIX_TRACE_STOP
 *    trace event shall be reported after reporting the last recorded
 *    trace event ... The trace system shall restart the trace stream
 *    when it is empty ... A POSIX_TRACE_START trace event shall be
 *    reported before reporting the next recorded trace event."  And
 *    posix_trace_get_status(3p)'s SUSPENDED and FULL: "it stopped
 *    because the stream-full-policy attribute is POSIX_TRACE_UNTIL_FULL
 *    and the trace resources are exhausted".
 *  - POSIX_TRACE_LOOP: the stream "always contains the most recent trace
 *    events"; events overwritten before they were read are lost, which
 *    posix_stream_overrun_status says (POSIX_TRACE_OVERRUN: "at least
 *    one trace event was lost") as soon as it happened, not once the
 *    events were read, and RUNNING with FULL is the status of a LOOP
 *    stream that lost events.
 */
#define _GNU_SOURCE
#include "ktap.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <trace.h>

#include "ptvm.h"

static void online_stream(int policy, trace_id_t *trid, trace_event_id_t *id)
{
	trace_attr_t attr;

	T_ASSERT_EQ(posix_trace_attr_init(&attr), 0);
	T_ASSERT_EQ(posix_trace_attr_setstreamfullpolicy(&attr, policy), 0);
	T_ASSERT_EQ(posix_trace_attr_setstreamsize(&attr, 64 * 1024), 0);
	T_ASSERT_EQ(posix_trace_create(0, &attr, trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("full", id), 0);
	T_ASSERT_EQ(posix_trace_start(*trid), 0);
}

/* An UNTIL_FULL stream of 64 KiB, overfilled: full, its status in @st. */
static void fill_until_full(trace_id_t *trid, trace_event_id_t *id,
			    struct posix_trace_status_info *st)
{
	online_stream(POSIX_TRACE_UNTIL_FULL, trid, id);
	for (uint64_t i = 0; i < PT_OVERFILL; i++)
		posix_trace_event(*id, &i, sizeof(i));
	wait_full(*trid, st);
	T_EXPECT_EQ(st->posix_stream_full_status, POSIX_TRACE_FULL);
}

struct read_out {
	char shape[64];		/* S START, P STOP, O OVERFLOW, R RESUME, u a run of events */
	size_t events;
	uint64_t first, next;	/* the events' data: first, last + 1 */
	bool in_order;
};

/* Every event until the stream is empty (trygetnext says unavailable). */
static void read_all(trace_id_t trid, trace_event_id_t id, struct read_out *o)
{
	static const char letter[] = "?SPFOR<>E";
	size_t n = 0;

	memset(o, 0, sizeof(*o));
	o->in_order = true;
	for (int guard = 0; guard < 100000; guard++) {
		struct posix_trace_event_info info;
		uint64_t d = 0;
		size_t len;
		int un;

		T_ASSERT_EQ(posix_trace_trygetnext_event(trid, &info, &d, sizeof(d), &len, &un),
			    0);
		if (un)
			break;
		if (info.posix_event_id == id) {
			if (!o->events)
				o->first = d;
			else if (d != o->next)
				o->in_order = false;
			o->next = d + 1;
			o->events++;
			/* one u for a run of events */
			if ((!n || o->shape[n - 1] != 'u') && n + 1 < sizeof(o->shape))
				o->shape[n++] = 'u';
			continue;
		}
		if (n + 1 < sizeof(o->shape))
			o->shape[n++] = info.posix_event_id < sizeof(letter) - 1 ?
					letter[info.posix_event_id] : '?';
	}
	o->shape[n] = '\0';
}

/*
 * UNTIL_FULL: it stops when full (SUSPENDED and FULL), its reader gets
 * START, the events that fitted from the first on, then STOP, and
 * nothing else; emptied, it runs again (RUNNING, NOT_FULL), and the next
 * events come after a START.
 */
static void until_full_stops_then_restarts_when_emptied(void)
{
	struct posix_trace_status_info st;
	struct read_out o;
	trace_event_id_t id;
	trace_id_t trid;

	fill_until_full(&trid, &id, &st);
	T_EXPECT_EQ(st.posix_stream_status, POSIX_TRACE_SUSPENDED);
	T_EXPECT_EQ(st.posix_stream_overrun_status, POSIX_TRACE_OVERRUN);

	read_all(trid, id, &o);
	printf("# read %s, %zu events from %llu\n", o.shape, o.events,
	       (unsigned long long)o.first);
	T_EXPECT(!strcmp(o.shape, "SuP"));
	T_EXPECT(o.events > 100 && o.events < PT_OVERFILL);
	T_EXPECT_EQ(o.first, 0);
	T_EXPECT(o.in_order);

	/* empty: it runs again */
	T_ASSERT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_stream_status, POSIX_TRACE_RUNNING);
	T_EXPECT_EQ(st.posix_stream_full_status, POSIX_TRACE_NOT_FULL);
	for (uint64_t i = 100000; i < 100010; i++)
		posix_trace_event(id, &i, sizeof(i));
	T_ASSERT_EQ(posix_trace_stop(trid), 0);
	read_all(trid, id, &o);
	printf("# then %s, %zu events from %llu\n", o.shape, o.events,
	       (unsigned long long)o.first);
	T_EXPECT(!strcmp(o.shape, "SuP"));
	T_EXPECT_EQ(o.events, 10);
	T_EXPECT_EQ(o.first, 100000);
	T_EXPECT(o.in_order);
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
}

/*
 * posix_trace_start(3p), _stop(): "If the trace stream is full, the
 * POSIX_TRACE_STOP system trace event shall not be recorded and the
 * status of the trace stream shall not be changed", nor a START.
 */
static void until_full_stop_and_start_while_full(void)
{
	struct posix_trace_status_info st;
	struct read_out o;
	trace_event_id_t id;
	trace_id_t trid;

	fill_until_full(&trid, &id, &st);
	T_EXPECT_EQ(posix_trace_stop(trid), 0);
	T_EXPECT_EQ(posix_trace_start(trid), 0);
	T_ASSERT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_stream_status, POSIX_TRACE_SUSPENDED);
	T_EXPECT_EQ(st.posix_stream_full_status, POSIX_TRACE_FULL);
	read_all(trid, id, &o);
	T_EXPECT(!strcmp(o.shape, "SuP"));
	if (t_failures)
		printf("# read %s\n", o.shape);
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
}

/*
 * LOOP: a stream that wrapped over events nobody read says OVERRUN (and
 * RUNNING, FULL) at the next get_status, before anything is read, and
 * NO_OVERRUN at the one after; once read to the end it is not full.
 */
static void loop_overrun_before_reading(void)
{
	struct read_out o;
	trace_event_id_t id;
	trace_id_t trid;

	online_stream(POSIX_TRACE_LOOP, &trid, &id);
	T_EXPECT_STATUS(trid, -1, POSIX_TRACE_NO_OVERRUN, POSIX_TRACE_NOT_FULL);
	for (uint64_t i = 0; i < 20000; i++)
		posix_trace_event(id, &i, sizeof(i));
	T_EXPECT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_OVERRUN, POSIX_TRACE_FULL);
	T_EXPECT_STATUS(trid, -1, POSIX_TRACE_NO_OVERRUN, POSIX_TRACE_FULL);
	/* the newest, in order, up to the last */
	read_all(trid, id, &o);
	T_EXPECT(o.first > 0);
	T_EXPECT_EQ(o.next, 20000);
	T_EXPECT(o.in_order);
	T_EXPECT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NO_OVERRUN, POSIX_TRACE_NOT_FULL);
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
}

static const struct t_test tests[] = {
	T_TEST(until_full_stops_then_restarts_when_emptied),
	T_TEST(until_full_stop_and_start_while_full),
	T_TEST(loop_overrun_before_reading),
};

T_MAIN(tests)
