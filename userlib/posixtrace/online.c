// SPDX-License-Identifier: MIT
/*
 * libposixtrace: reading an active trace stream without a log, while its
 * target records (posix_trace_getnext_event, _timedgetnext_event,
 * _trygetnext_event of a stream made by posix_trace_create()).
 *
 * Such a stream is a circular (POSIX_TRACE_LOOP) or oneshot
 * (POSIX_TRACE_UNTIL_FULL) session: when the analyzer wants events, its
 * queue (queue.c) is filled from a snapshot of the target's buffer, or,
 * once the stream is stopped, from what the stop wrote to the session's
 * output.  An UNTIL_FULL stream that filled is stopped first, and started
 * again once its reader emptied it (run.c does either).
 *
 * Order.  Events are reported by timestamp, and an event is reported only
 * when no event stamped before it can still turn up.  A writer stamps its
 * record once it reserved it in its chunk (pt_write_fast(), and
 * __tracebuf_emit_slow() with ticks 0), and a snapshot makes every record
 * of a chunk whole: it closes the chunks, waiting for writers in the
 * middle of a record (tb_engine_seal()).  So a snapshot asked for
 * at time W holds every event stamped before W that the buffer still
 * has: a writer that stamped before W had its record reserved, and a
 * later snapshot will not bring one older than W.  (Its counter read
 * may be executed a few instructions early, not the microseconds a
 * snapshot takes to reach it.)  Once such a snapshot was read, the
 * events stamped before W are reported (pt_ready()); the others wait for
 * the next snapshot, or for the stop's data once the stream is stopped.
 * A snapshot a provider did not answer does not move W.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "posixtrace_priv.h"

/*
 * How often a blocked getnext takes a snapshot when no event of this
 * process wakes it (target.c's pt_events_wait()).
 */
#define PT_POLL_NS	(10ull * 1000 * 1000)

/*
 * posix_trace_attr_getstreamfullpolicy(3p): an UNTIL_FULL stream "shall
 * be run until the trace stream resources are exhausted.  Then the trace
 * stream will stop."  Its provider dropped records: stop it, its data
 * (and the window of what it dropped, read as the STOP that follows its
 * last event) to the queue; it starts again once its reader emptied it
 * (pt_online_getnext()).
 */
static int pt_until_full_stop(struct pt_trace *t)
{
	if (!t->running || !pt_online_until_full(t))
		return 0;
	t->full_stopped = true;
	return pt_stream_stop(t);
}

/* Read what the stream holds now that was not read. */
static int pt_refill(struct pt_trace *t)
{
	int ret = pt_until_full_stop(t);

	if (ret)
		return ret;
	return t->running ? pt_online_snapshot(t) : pt_online_read_stop(t);
}

/*
 * Before a status.  An UNTIL_FULL stream that filled stops.  A running
 * LOOP stream's buffer is read when nothing read waits to be reported,
 * or when what it recorded since it was last read (its header's hint)
 * may have overwritten events not read yet: half a rolling buffer.  So a
 * loss is an overrun at once, without a snapshot, which costs the target
 * a round trip, at every status of a reader that is behind.
 */
int pt_online_refresh(struct pt_trace *t)
{
	uint64_t rolling = tracebuf_layout_rolling_size(t->buffer_size, TRACEBUF_MODE_CIRCULAR);

	if (t->attr.stream_policy == POSIX_TRACE_UNTIL_FULL)
		return pt_until_full_stop(t);
	if (t->attr.stream_policy != POSIX_TRACE_LOOP || !t->running)
		return 0;
	if (t->first_pending == t->npending || pt_online_recorded(t) - t->refill_bytes >= rolling / 2)
		return pt_refill(t);
	return 0;
}

/*
 * Nothing is left to report: a LOOP stream is not full any more, and an
 * UNTIL_FULL stream that stopped full starts again (its START to come).
 */
static int pt_emptied(struct pt_trace *t)
{
	if (t->first_pending != t->npending || t->out_unread)
		return 0;
	t->loop_full = false;
	if (!t->full_stopped)
		return 0;
	pt_online_full_reset(t);
	return pt_stream_restart_emptied(t);
}

/* The first pending event, if it may be reported now. */
static struct pt_pending *pt_ready(struct pt_trace *t)
{
	struct pt_pending *p;

	/* a stop's data first: they may hold events older than those read */
	if (t->first_pending == t->npending || (!t->running && t->out_unread))
		return NULL;
	p = &t->pending[t->first_pending];
	/* none stamped before it can turn up (the comment at the top) */
	if (t->running && p->ev.ticks >= t->sealed_ticks)
		return NULL;
	return p;
}

static void pt_report(struct pt_trace *t, struct pt_pending *p,
		      struct posix_trace_event_info *info, void *data, size_t num_bytes,
		      size_t *data_len)
{
	pt_event_report(t, &p->ev, info, data, num_bytes, data_len);
	free((void *)p->ev.data);
	p->ev.data = NULL;
	if (++t->first_pending == t->npending) {
		t->first_pending = 0;
		t->npending = 0;
	} else if (t->first_pending > 4096 && t->first_pending > t->npending / 2) {
		memmove(t->pending, t->pending + t->first_pending,
			(t->npending - t->first_pending) * sizeof(*t->pending));
		t->npending -= t->first_pending;
		t->first_pending = 0;
	}
}

static bool pt_past(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return now.tv_sec > deadline->tv_sec ||
	       (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

/*
 * @t locked, a stream without a log.  @wait: block (until @deadline,
 * CLOCK_REALTIME, if not NULL).  Returns 0 (*@unavailable set), EINVAL if
 * the stream was shut down meanwhile, ETIMEDOUT, EINTR (a signal handler
 * ran while it waited), ENOMEM or EIO.
 */
int pt_online_getnext(struct pt_trace *t, struct posix_trace_event_info *info, void *data,
		      size_t num_bytes, size_t *data_len, int *unavailable,
		      const struct timespec *deadline, bool wait)
{
	struct pt_pending *p;
	int ret = 0;

	for (;;) {
		uint64_t ns = PT_POLL_NS;
		struct timespec now;
		uint32_t gen = 0;
		bool late, intr;

		/* counted before the snapshot: an event it misses wakes us */
		if (wait)
			gen = pt_events_watch();
		p = pt_ready(t);
		if (!p && wait && t->wake_remote && !t->wake_armed && t->running)
			/* before the snapshot: an event it misses wakes us */
			t->wake_armed = !pt_session_wake_arm(t);
		if (!p) {
			ret = pt_refill(t);
			if (!ret)
				ret = pt_emptied(t);
			p = ret ? NULL : pt_ready(t);
		}
		late = !ret && !p && wait && deadline && pt_past(deadline);
		if (wait && (ret || p || late))
			pt_events_unwatch();
		if (ret)
			break;
		if (p) {
			pt_report(t, p, info, data, num_bytes, data_len);
			*unavailable = 0;
			return 0;
		}
		if (!wait)
			break;
		if (late) {
			ret = ETIMEDOUT;
			break;
		}
		/* until the next event of this process, a poll period or the deadline */
		if (deadline) {
			int64_t left;

			clock_gettime(CLOCK_REALTIME, &now);
			left = (int64_t)(deadline->tv_sec - now.tv_sec) * 1000000000 +
			       (deadline->tv_nsec - now.tv_nsec);
			if (left < (int64_t)ns)
				ns = left > 0 ? (uint64_t)left : 0;
		}
		t->waiters++;
		pthread_mutex_unlock(&t->lock);
		intr = pt_events_wait(gen, ns);
		pthread_mutex_lock(&t->lock);
		t->waiters--;
		pt_events_unwatch();
		if (t->dying) {
			pthread_cond_broadcast(&t->cond);
			return EINVAL;
		}
		if (intr) {
			/* posix_trace_getnext_event(3p): "the call had no effect" */
			ret = EINTR;
			break;
		}
	}
	*data_len = 0;
	*unavailable = 1;
	return ret;
}
