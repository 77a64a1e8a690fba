// SPDX-License-Identifier: MIT
/*
 * libposixtrace: what a trace's records mean, for a log (log.c) and for an
 * active stream without a log (queue.c) alike, and what getnext reports.
 *
 * Events.  An event is an instant event in a category "posix:NAME" with
 * the arguments target.c writes (posixtrace_priv.h), of a user event type
 * or of a system event type (sysevent.c); other records are skipped
 * (pt_event_take()).  The window of records a full buffer dropped is read
 * as system events (pt_drop_window_events()).  An event is reported cut
 * to max-data-size and to the caller's buffer (pt_event_report()).
 *
 * Event types.  A stream of the calling process knows its types by this
 * process's table (target.c): its ids are the target's own.  A stream of
 * another process, and a log, have a table of their own (pt_trace.names):
 * the names posix_trace_trid_eventid_open() gave ids to and the names
 * their events carry.  An event is reported with its table's id for its
 * name: the target's id when that one is free in the table (always, for a
 * log of one process), else the next free one, so that the ids one stream
 * reports and accepts agree.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracebuf_reader.h>

#include "posixtrace_priv.h"

/* ------------------------------------------------------------------------ */
/* Records                                                                  */

/* The file from offset @from to its end, into memory (malloc'd). */
int pt_read_fd(int fd, uint64_t from, char **out, size_t *outlen)
{
	size_t len = 0, cap = 1u << 16;
	char *buf = malloc(cap);

	if (!buf)
		return ENOMEM;
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				return ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		n = pread(fd, buf + len, cap - len, (off_t)(from + len));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			free(buf);
			/* a pipe, a socket, a directory: not a log */
			return err == ESPIPE || err == EISDIR ? EINVAL :
			       err == EBADF ? EBADF : EIO;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

/* Whether @s is the string @lit. */
bool pt_str_eq(const struct tracebuf_reader_str *s, const char *lit)
{
	size_t len = strlen(lit);

	return s->len == len && !memcmp(s->data, lit, len);
}

/*
 * An instant event in a category "posix:NAME" with a uint32 "id" of a
 * user event type, or of a system event type (sysevent.c): one of ours.
 * Returns false for anything else.
 */
bool pt_event_take(struct pt_trace *t, const struct tracebuf_reader_record *r,
		   struct pt_event *ev)
{
	const struct tracebuf_reader_str *cat = &r->event.category;
	size_t plen = sizeof(PT_CATEGORY_PREFIX) - 1;
	bool have_id = false;

	if (r->type != TRACEBUF_LIB_FXT_RECORD_EVENT ||
	    r->event.type != TRACEBUF_LIB_FXT_EVENT_INSTANT ||
	    cat->len <= plen || memcmp(cat->data, PT_CATEGORY_PREFIX, plen))
		return false;
	memset(ev, 0, sizeof(*ev));
	for (unsigned int i = 0; i < r->nargs; i++) {
		const struct tracebuf_reader_arg *a = &r->args[i];

		if (pt_str_eq(&a->name, "id") && a->type == TRACEBUF_LIB_FXT_ARG_UINT32) {
			ev->id = a->u32;
			have_id = true;
		} else if (pt_str_eq(&a->name, "seq") &&
			   a->type == TRACEBUF_LIB_FXT_ARG_UINT32) {
			ev->seq = a->u32;
		} else if (pt_str_eq(&a->name, "pc") && a->type == TRACEBUF_LIB_FXT_ARG_POINTER) {
			ev->pc = a->ptr;
		} else if (pt_str_eq(&a->name, "thread") &&
			   a->type == TRACEBUF_LIB_FXT_ARG_UINT64) {
			ev->thread = a->u64;
		} else if (pt_str_eq(&a->name, "data") && a->type == TRACEBUF_LIB_FXT_ARG_STRING) {
			ev->data = a->str.data;
			ev->len = (uint32_t)a->str.len;
		} else if (pt_str_eq(&a->name, "data") && a->type == TRACEBUF_LIB_FXT_ARG_BLOB) {
			/* bytes that are not UTF-8 (target.c) */
			ev->data = a->raw.data;
			ev->len = (uint32_t)a->raw.len;
		} else if (pt_str_eq(&a->name, "truncated") &&
			   a->type == TRACEBUF_LIB_FXT_ARG_BOOL) {
			ev->truncated = a->b;
		}
	}
	if (!have_id || !ev->id || ev->id > PT_EVENT_ID_MAX ||
	    (ev->id < PT_FIRST_USER_ID && !pt_system_event_name(ev->id)))
		return false;
	ev->ns = r->event.ns;
	ev->ticks = r->event.ticks;
	ev->pid = (uint32_t)r->event.process_koid;
	ev->tid = r->event.thread_koid;
	/*
	 * A stream of this process knows its types by the process's ids;
	 * another's, and a log, by the id their table gives the name.
	 */
	if (ev->id >= PT_FIRST_USER_ID && !pt_self(t) &&
	    r->event.name.len <= __TRACEBUF_PT_EVENT_NAME_MAX)
		ev->id = pt_table_id(t, r->event.name.data, r->event.name.len, ev->id);
	return true;
}

/*
 * The window of records a full buffer dropped (sysevent.c says how it is
 * read): an UNTIL_FULL stream's STOP, else OVERFLOW and RESUME.
 */
int pt_drop_window_events(const struct pt_trace *t, const struct tracebuf_reader_record *r,
			  struct pt_event ev[2])
{
	int n = 0;

	if (!tracebuf_reader_drop_window(r, NULL))
		return 0;
	if (t->attr.stream_policy == POSIX_TRACE_UNTIL_FULL) {
		if (pt_filtered(t, POSIX_TRACE_STOP))
			return 0;
		memset(&ev[0], 0, sizeof(ev[0]));
		ev[0].id = POSIX_TRACE_STOP;
		ev[0].ns = r->event.ns;
		ev[0].ticks = r->event.ticks;
		ev[0].pid = (uint32_t)r->event.process_koid;
		return 1;
	}
	for (int i = 0; i < 2; i++) {
		trace_event_id_t id = i ? POSIX_TRACE_RESUME : POSIX_TRACE_OVERFLOW;

		if (pt_filtered(t, id))
			continue;
		memset(&ev[n], 0, sizeof(ev[n]));
		ev[n].id = id;
		ev[n].ns = i ? r->event.end_ns : r->event.ns;
		ev[n].ticks = i ? r->event.end_ticks : r->event.ticks;
		ev[n].pid = (uint32_t)r->event.process_koid;
		n++;
	}
	return n;
}

/* Fill in @info and @data from @ev, cut to max-data-size and @num_bytes. */
void pt_event_report(const struct pt_trace *t, const struct pt_event *ev,
		     struct posix_trace_event_info *info, void *data, size_t num_bytes,
		     size_t *data_len)
{
	size_t len = ev->len, copy;
	bool cut = ev->truncated;

	if (len > t->attr.max_data_size) {
		len = (size_t)t->attr.max_data_size;
		cut = true;
	}
	copy = len < num_bytes ? len : num_bytes;
	memset(info, 0, sizeof(*info));
	info->posix_event_id = ev->id;
	info->posix_pid = (pid_t)ev->pid;
	info->posix_prog_address = (void *)(uintptr_t)ev->pc;
	info->posix_thread_id = (pthread_t)ev->thread;
	info->posix_timestamp.tv_sec = (time_t)(ev->ns / 1000000000u);
	info->posix_timestamp.tv_nsec = (long)(ev->ns % 1000000000u);
	info->posix_truncation_status = cut ? POSIX_TRACE_TRUNCATED_RECORD :
					copy < len ? POSIX_TRACE_TRUNCATED_READ :
					POSIX_TRACE_NOT_TRUNCATED;
	if (copy)
		memcpy(data, ev->data, copy);
	*data_len = copy;
}

/* ------------------------------------------------------------------------ */
/* Event types                                                              */

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
