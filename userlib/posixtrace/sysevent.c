// SPDX-License-Identifier: MIT
/*
 * libposixtrace: system trace events (POSIX_TRACE_START, _STOP, _FILTER,
 * _OVERFLOW, _RESUME, _FLUSH_START, _FLUSH_STOP, _ERROR).
 *
 * The trace system records them, not the target: the stream's controller
 * writes each as the FXT record a user event is (target.c), an instant
 * event in category "posix:NAME" named NAME with its id and data, on
 * thread 0 of the traced process, stamped with the timebase of the
 * target's own records (tracebuf_session_ticks()).  A stream with a log
 * writes it to the log, between the target's data
 * (tracebuf_session_write()); a stream without one queues it for
 * posix_trace_getnext_event() (online.c).  Either way it is read back as
 * the target's events are, sorted among them by timestamp.
 *
 * When it is recorded:
 *   START         by posix_trace_start(), stamped before the target
 *                 starts: it comes before every event of the run
 *   STOP          by posix_trace_stop() and posix_trace_shutdown() of a
 *                 running stream, stamped once the target stopped
 *   FILTER        by posix_trace_set_filter() of a running stream, once
 *                 the target records with the new filter; its data are
 *                 the old and the new trace_event_set_t
 *   FLUSH_START,  around posix_trace_flush() of a running stream
 *   FLUSH_STOP
 *   ERROR         after the session reported an error of the target's
 *                 provider (it did not answer in time, refused a
 *                 request, wrote records or a header that do not check
 *                 out) or of the log (it could not be written): its data
 *                 are the error number, an int.  A snapshot that missed
 *                 records the buffer reused meanwhile is an overrun, not
 *                 an error; a provider that exited is not one either.
 * OVERFLOW and RESUME are not written: libtracebuf's engine marks the
 * records a full buffer dropped with a window (tracebuf_reader_drop_window())
 * in the target's own data, and its start and end are read as OVERFLOW
 * and RESUME (pt_drop_window_events()): a POSIX_TRACE_FLUSH stream was
 * full until a flush of its buffer made room.  A POSIX_TRACE_UNTIL_FULL
 * stream stops when it is full (posix_trace_attr_getstreamfullpolicy(3p):
 * "a POSIX_TRACE_STOP trace event shall be reported after reporting the
 * last recorded trace event"): its window is read as that STOP, at its
 * start, and no STOP is recorded when it is stopped while full.
 *
 * A system event type in the stream's filter is not recorded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <tracebuf_fxt.h>

#include "posixtrace_priv.h"

/* Room for any (pt_system_record_size()): a name of at most 31 bytes */
#define PT_SYSTEM_NAME_MAX	31u
#define PT_SYSTEM_RECORD_MAX	(32 + 40 + 32 + 16 + 16 + PT_SYSTEM_DATA_MAX)

int pt_system_event(struct pt_trace *t, trace_event_id_t id, uint64_t ticks, const void *data,
		    size_t len)
{
	uint64_t rec[(TRACEBUF_LIB_FXT_INIT_SIZE + PT_SYSTEM_RECORD_MAX) / 8];
	const char *name = pt_system_event_name(id);
	char cat[sizeof(PT_CATEGORY_PREFIX) + 32];
	struct tracebuf_fxt_arg args[2];
	struct tracebuf_fxt_event ev = { .type = TRACEBUF_LIB_FXT_EVENT_INSTANT };
	uint64_t tps;
	int init, size;

	if (!name || strlen(name) > PT_SYSTEM_NAME_MAX || len > PT_SYSTEM_DATA_MAX)
		return EINVAL;
	if (pt_filtered(t, id))
		return 0;
	snprintf(cat, sizeof(cat), PT_CATEGORY_PREFIX "%s", name);
	ev.ticks = tracebuf_session_ticks(t->session, &tps);
	if (ticks)
		ev.ticks = ticks;
	ev.thread = tracebuf_fxt_thread_inline(t->pid, 0);
	ev.category = tracebuf_fxt_str_inline(cat, strlen(cat));
	ev.name = tracebuf_fxt_str_inline(name, strlen(name));
	args[0] = tracebuf_fxt_arg_uint32(tracebuf_fxt_str_inline("id", 2), id);
	/* an errno, event sets: bytes, kept as a user event's (target.c) */
	args[1] = pt_data_arg(data, len);
	ev.args = args;
	ev.nargs = len ? 2 : 1;
	/* on-line, the reader wants the timebase first; a log gets it from the session */
	init = tracebuf_fxt_init_write(rec, sizeof(rec), tps);
	if (init < 0)
		return EINVAL;
	size = tracebuf_fxt_event_write(rec + init / 8, sizeof(rec) - (size_t)init, &ev);
	/* posix_trace_attr_getmaxsystemeventsize() is right */
	if (size < 0 || (uint64_t)size != pt_system_record_size(strlen(name), len))
		return EINVAL;
	if (t->has_log)
		return tracebuf_session_write(t->session, rec + init / 8, (size_t)size) ? EIO : 0;
	return pt_online_add(t, rec, (size_t)(init + size));
}

void pt_session_note(void *arg, const struct tracebuf_session_note *note)
{
	struct pt_trace *t = arg;

	/* the session changed: its keeper is made again (keeper.c) */
	if (note->type != TRACEBUF_LIB_NOTE_ALERT && note->type != TRACEBUF_LIB_NOTE_ERROR)
		t->keeper_stale = true;
	/* a process it traces wrote an event, and its reader waits (online.c) */
	if (note->type == TRACEBUF_LIB_NOTE_ALERT && !strcmp(note->alert, PT_WAKE_ALERT)) {
		t->wake_armed = false;
		pt_events_wake();
		return;
	}
	if (note->type != TRACEBUF_LIB_NOTE_ERROR || note->error == -ESTALE ||
	    note->error == -ESRCH)
		return;
	t->nerrors_total++;
	/* the callback must not call the session: recorded after it */
	if (t->nerrors < sizeof(t->errors) / sizeof(t->errors[0]))
		t->errors[t->nerrors++] = note->error < 0 ? -note->error : EIO;
}

void pt_errors_record(struct pt_trace *t)
{
	unsigned int n = t->nerrors;

	t->nerrors = 0;
	for (unsigned int i = 0; i < n; i++)
		pt_system_event(t, POSIX_TRACE_ERROR, 0, &t->errors[i], sizeof(t->errors[i]));
}
