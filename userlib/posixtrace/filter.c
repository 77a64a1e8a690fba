// SPDX-License-Identifier: MIT
/*
 * libposixtrace: a stream's event types and its filter
 * (posix_trace_trid_eventid_open, posix_trace_set_filter,
 * posix_trace_get_filter).
 *
 * Event types.  A stream of the calling process knows its types by this
 * process's table (target.c): its ids are the target's own.  A stream of
 * another process, and a log, have a table of their own (pt_trace.names):
 * the names posix_trace_trid_eventid_open() gave ids to and the names
 * their events carry.  An event is reported with its table's id for its
 * name: the target's id when that one is free in the table (always, for a
 * log of one process), else the next free one, so that the ids one stream
 * reports and accepts agree.
 *
 * Filter.  The filter is the set of event types a stream does not record.
 * Each user event type NAME is the tracebuf category "posix:NAME", and
 * the stream's provider is started with "posix:*" and, for each filtered
 * type, the exclusion "-posix:NAME" (libtracebuf 1.2): the target does not
 * write them, at the cost of a disabled category.  A filter set while the
 * stream runs is applied by stopping and starting its provider again:
 * what it recorded stays (written to the log, or read into the queue of a
 * stream without one); what it would record while it restarts is not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "posixtrace_priv.h"

/* ------------------------------------------------------------------------ */
/* Event types                                                              */

static bool pt_self(const struct pt_trace *t)
{
	return t->kind == PT_KIND_STREAM && t->pid == (uint32_t)getpid();
}

/* The name of @id in @t, or NULL. */
const char *pt_type_name(const struct pt_trace *t, trace_event_id_t id)
{
	const char *name = pt_system_event_name(id);

	if (name || id < PT_FIRST_USER_ID || id > PT_EVENT_ID_MAX)
		return name;
	if (pt_self(t))
		return pt_user_event_name(id);
	return t->names[id];
}

/*
 * The id of user event type @name (@len bytes, up to a NUL: names are C
 * strings) in @t's table: the one it has, else @want when that one is
 * free (0: none wanted), else the next free one;
 * POSIX_TRACE_UNNAMED_USER_EVENT when the table is full or out of
 * memory, which is why that id is the unnamed type's alone.
 */
trace_event_id_t pt_table_id(struct pt_trace *t, const char *name, size_t len,
			     trace_event_id_t want)
{
	trace_event_id_t id, first;

	len = strnlen(name, len);
	first = len == sizeof(PT_UNNAMED_NAME) - 1 && !memcmp(name, PT_UNNAMED_NAME, len) ?
		POSIX_TRACE_UNNAMED_USER_EVENT : POSIX_TRACE_UNNAMED_USER_EVENT + 1;
	if (want >= first && want <= PT_EVENT_ID_MAX && t->names[want] &&
	    strlen(t->names[want]) == len && !memcmp(t->names[want], name, len))
		return want;	/* the usual case: the target's id */
	for (id = PT_FIRST_USER_ID; id <= PT_EVENT_ID_MAX; id++)
		if (t->names[id] && strlen(t->names[id]) == len &&
		    !memcmp(t->names[id], name, len))
			return id;
	if (want < first || want > PT_EVENT_ID_MAX || t->names[want])
		for (want = first; want <= PT_EVENT_ID_MAX && t->names[want]; want++)
			;
	if (want > PT_EVENT_ID_MAX)
		return POSIX_TRACE_UNNAMED_USER_EVENT;
	t->names[want] = strndup(len ? name : "", len);
	return t->names[want] ? want : POSIX_TRACE_UNNAMED_USER_EVENT;
}

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

/*
 * @t's categories for its next start, beyond the session's own: an
 * exclusion for each filtered user type with a name.  *@blob (malloc'd,
 * NULL when none) holds *@count NUL-terminated strings, *@size bytes.
 */
int pt_filter_categories(const struct pt_trace *t, char **blob, size_t *size,
			 size_t *count)
{
	const struct pt_set *f = (const struct pt_set *)&t->filter;
	size_t cap = 0, n = 0, c = 0;
	char *b = NULL;

	for (trace_event_id_t id = PT_FIRST_USER_ID; id <= PT_EVENT_ID_MAX; id++) {
		const char *name;
		size_t need;

		if (!pt_set_has(f, id))
			continue;
		name = pt_type_name(t, id);
		if (!name)
			continue;
		need = 1 + sizeof(PT_CATEGORY_PREFIX) - 1 + strlen(name) + 1;
		if (n + need > cap) {
			size_t ncap = (n + need) * 2;
			char *nb = realloc(b, ncap);

			if (!nb) {
				free(b);
				return ENOMEM;
			}
			b = nb;
			cap = ncap;
		}
		n += (size_t)sprintf(b + n, "-" PT_CATEGORY_PREFIX "%s", name) + 1;
		c++;
	}
	*blob = b;
	*size = n;
	*count = c;
	return 0;
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
