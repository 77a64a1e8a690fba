// SPDX-License-Identifier: MIT
/*
 * libposixtrace: sets of trace event types (posix_trace_eventset_*) and
 * posix_trace_eventid_equal().
 *
 * A set is a bitmap indexed by event id (posixtrace_priv.h): system ids
 * 1..__TRACEBUF_PT_SYS_EVENTS, then the user ids.  It is plain data, not a
 * stream's filter.  Every function returns 0 or a positive error number:
 * EINVAL for a NULL pointer, a set that posix_trace_eventset_empty() or
 * _fill() did not initialize, an event id that is none (0, or beyond the
 * last user id) or an unknown "what".
 */
#include <errno.h>
#include <string.h>

#include "posixtrace_priv.h"

static struct pt_set *pt_set(trace_event_set_t *set)
{
	struct pt_set *s = (struct pt_set *)set;

	return s && s->magic == PT_SET_MAGIC ? s : NULL;
}

static int pt_event_id_valid(trace_event_id_t id)
{
	return id >= 1 && id <= PT_EVENT_ID_MAX;
}

/* Ids first..last into s. */
static void pt_set_range(struct pt_set *s, unsigned int first, unsigned int last)
{
	unsigned int i;

	for (i = first; i <= last; i++)
		s->bits[i / 64] |= UINT64_C(1) << (i % 64);
}

POSIXTRACE_API int posix_trace_eventset_empty(trace_event_set_t *set)
{
	struct pt_set *s = (struct pt_set *)set;

	if (!set)
		return EINVAL;
	memset(set, 0, sizeof(*set));
	s->magic = PT_SET_MAGIC;
	return 0;
}

/*
 * POSIX_TRACE_WOPID_EVENTS: the process-independent implementation-defined
 * system events; there are none (yet), so the set is empty.
 * POSIX_TRACE_SYSTEM_EVENTS: every system event id, those POSIX defines
 * and the ids kept for tracebuf's own.  POSIX_TRACE_ALL_EVENTS: every id.
 */
POSIXTRACE_API int posix_trace_eventset_fill(trace_event_set_t *set, int what)
{
	struct pt_set *s = (struct pt_set *)set;

	if (!set || (what != POSIX_TRACE_WOPID_EVENTS && what != POSIX_TRACE_SYSTEM_EVENTS &&
		     what != POSIX_TRACE_ALL_EVENTS))
		return EINVAL;
	posix_trace_eventset_empty(set);
	if (what == POSIX_TRACE_SYSTEM_EVENTS)
		pt_set_range(s, 1, __TRACEBUF_PT_SYS_EVENTS);
	else if (what == POSIX_TRACE_ALL_EVENTS)
		pt_set_range(s, 1, PT_EVENT_ID_MAX);
	return 0;
}

POSIXTRACE_API int posix_trace_eventset_add(trace_event_id_t event_id, trace_event_set_t *set)
{
	struct pt_set *s = pt_set(set);

	if (!s || !pt_event_id_valid(event_id))
		return EINVAL;
	s->bits[event_id / 64] |= UINT64_C(1) << (event_id % 64);
	return 0;
}

POSIXTRACE_API int posix_trace_eventset_del(trace_event_id_t event_id, trace_event_set_t *set)
{
	struct pt_set *s = pt_set(set);

	if (!s || !pt_event_id_valid(event_id))
		return EINVAL;
	s->bits[event_id / 64] &= ~(UINT64_C(1) << (event_id % 64));
	return 0;
}

POSIXTRACE_API int posix_trace_eventset_ismember(trace_event_id_t event_id,
						 const trace_event_set_t *restrict set,
						 int *restrict ismember)
{
	const struct pt_set *s = (const struct pt_set *)set;

	if (!s || s->magic != PT_SET_MAGIC || !ismember || !pt_event_id_valid(event_id))
		return EINVAL;
	*ismember = pt_set_has(s, event_id);
	return 0;
}

/*
 * posix_trace_eventid_equal(3p): ids of one stream or log are equal when
 * their values are (an id names one event type in a stream, and ids are
 * never reused within it); the result for ids of different streams is
 * unspecified, so trid is not needed, and no error is defined.
 */
POSIXTRACE_API int posix_trace_eventid_equal(trace_id_t trid, trace_event_id_t event1,
					     trace_event_id_t event2)
{
	(void)trid;
	return event1 == event2;
}
