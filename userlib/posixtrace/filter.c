// SPDX-License-Identifier: MIT
/*
 * libposixtrace: a stream's event types and its filter
 * (posix_trace_trid_eventid_open, posix_trace_set_filter,
 * posix_trace_get_filter).
 *
 * Event types.  A stream of the calling process knows its types by this
 * process's table (target.c); a stream of another process by a table of
 * its own (decode.c), in which posix_trace_trid_eventid_open() gives ids.
 *
 * Filter.  The filter is the set of event types a stream does not record.
 * Each user event type NAME is the tracebuf category "posix:NAME", and
 * the stream's provider is started with "posix:*" and, for each filtered
 * type, the exclusion "-posix:NAME" (run.c): the target does not write
 * them, at the cost of a disabled category.  A filter set while the
 * stream runs is taken by its running provider or, with an older module,
 * by stopping and starting it again: what it recorded stays (written to
 * the log, or read into the queue of a stream without one); what it would
 * record while it restarts is not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "posixtrace_priv.h"

/* ------------------------------------------------------------------------ */
/* Event types                                                              */

/* posix_trace_eventid_open(3p): posix_trace_trid_eventid_open() */
POSIXTRACE_API int posix_trace_trid_eventid_open(trace_id_t trid,
						 const char *restrict event_name,
						 trace_event_id_t *restrict event)
{
	struct pt_trace *t;
	bool self;
	size_t len;
	int ret = 0;

	if (!event)
		return EINVAL;
	ret = pt_event_name_check(event_name, &len);
	if (ret)
		return ret;
	t = pt_trace_get(trid, PT_KIND_STREAM);
	if (!t)
		return EINVAL;
	self = pt_self(t);
	if (!self) {
		/* the target's unnamed type keeps its id, as in the target */
		*event = pt_table_id(t, event_name, len,
				     strcmp(event_name, PT_UNNAMED_NAME) ? 0 :
				     POSIX_TRACE_UNNAMED_USER_EVENT);
	}
	pt_trace_put(t);
	/*
	 * The process's own table, without the stream's lock: the first
	 * event type makes the process a provider, which waits for the
	 * stream to start it, and the stream's thread needs its lock for that.
	 */
	if (self)
		ret = posix_trace_eventid_open(event_name, event);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* The filter                                                               */

static bool pt_set_valid(const trace_event_set_t *set)
{
	return set && ((const struct pt_set *)set)->magic == PT_SET_MAGIC;
}

/* posix_trace_set_filter(3p) */
POSIXTRACE_API int posix_trace_set_filter(trace_id_t trid, const trace_event_set_t *set,
					  int how)
{
	const struct pt_set *s = (const struct pt_set *)set;
	struct pt_set next;
	struct pt_trace *t;
	int ret = 0;

	if (!pt_set_valid(set) || (how != POSIX_TRACE_SET_EVENTSET &&
				   how != POSIX_TRACE_ADD_EVENTSET &&
				   how != POSIX_TRACE_SUB_EVENTSET))
		return EINVAL;
	t = pt_trace_get(trid, PT_KIND_STREAM);
	if (!t)
		return EINVAL;
	memcpy(&next, &t->filter, sizeof(next));
	for (size_t i = 0; i < sizeof(next.bits) / sizeof(next.bits[0]); i++) {
		if (how == POSIX_TRACE_SET_EVENTSET)
			next.bits[i] = s->bits[i];
		else if (how == POSIX_TRACE_ADD_EVENTSET)
			next.bits[i] |= s->bits[i];
		else
			next.bits[i] &= ~s->bits[i];
	}
	if (t->running) {
		/* POSIX_TRACE_FILTER's data: the old filter, then the new one */
		struct pt_set change[2];

		memcpy(&change[0], &t->filter, sizeof(change[0]));
		memcpy(&change[1], &next, sizeof(change[1]));
		memcpy(&t->filter, &next, sizeof(next));
		ret = pt_stream_refilter(t);
		if (!ret)
			ret = pt_system_event(t, POSIX_TRACE_FILTER, 0, change, sizeof(change));
	} else {
		memcpy(&t->filter, &next, sizeof(next));
	}
	/* its keeper writes the STOP by it */
	t->keeper_stale = true;
	pt_trace_put(t);
	return ret;
}

/* posix_trace_set_filter(3p): posix_trace_get_filter() */
POSIXTRACE_API int posix_trace_get_filter(trace_id_t trid, trace_event_set_t *set)
{
	struct pt_trace *t;

	if (!set)
		return EINVAL;
	t = pt_trace_get(trid, PT_KIND_STREAM);
	if (!t)
		return EINVAL;
	memcpy(set, &t->filter, sizeof(*set));
	pt_trace_put(t);
	return 0;
}
