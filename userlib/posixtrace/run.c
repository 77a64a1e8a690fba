// SPDX-License-Identifier: MIT
/*
 * libposixtrace: the runs of a stream's session, for the controller
 * (stream.c, filter.c) and for on-line reading (online.c), which stops a
 * full UNTIL_FULL stream and starts it again once emptied.
 *
 * A run starts with the session's categories, "posix:*", and, for each
 * user event type in the stream's filter, the exclusion "-posix:NAME"
 * (libtracebuf 1.2): the target does not write a filtered type, at the
 * cost of a disabled category.  The start returns once the target
 * records.  A stop writes what the provider holds to the log, as its
 * log-full-policy allows (logfull.c), or to the session's output, which
 * queue.c reads.  A filter set while the stream runs is taken by its
 * running providers (module ABI 1.6) or, with an older module, by a
 * restart: a stop and a start, where what the provider recorded stays
 * (written to the log, or read into the queue before the new run's
 * threads number their events from 0 again) and what it would record
 * meanwhile is lost.
 *
 * The trace is locked throughout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "posixtrace_priv.h"

/* ------------------------------------------------------------------------ */
/* Starting                                                                 */

/*
 * @t's categories for its next start, beyond the session's own: an
 * exclusion for each filtered user type with a name.  *@blob (malloc'd,
 * NULL when none) holds *@count NUL-terminated strings, *@size bytes.
 */
static int pt_filter_categories(const struct pt_trace *t, char **blob, size_t *size,
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

/*
 * Whether @t's target is started: this process's own provider, once it
 * has one, when the stream traces this process; every provider the
 * session knows (none is still STARTING) otherwise.
 */
static bool pt_target_started(struct pt_trace *t)
{
	struct tracebuf_session_provider p[8];
	uint32_t self = t->pid == (uint32_t)getpid() ? pt_self_provider_id() : 0;
	bool seen = !self;
	int n = tracebuf_session_providers(t->session, p, 8);

	/* a follower's session traces no provider (stream.c) */
	if (t->follower)
		return true;
	for (int i = 0; i < n && i < 8; i++) {
		if (p[i].state == TRACEBUF_LIB_TRACEE_STARTING ||
		    p[i].state == TRACEBUF_LIB_TRACEE_INITIALIZED)
			return false;
		if (p[i].id == self)
			seen = p[i].state == TRACEBUF_LIB_TRACEE_STARTED;
	}
	return seen;
}

/*
 * posix_trace_start() returns once the target records: a provider that
 * registered just before the start (its registration still queued to the
 * session) is taken as a late joiner and started by a later dispatch; wait
 * for it, at most libtracebuf's start timeout, so that no event recorded
 * after the start is lost.
 */
static void pt_wait_target_started(struct pt_trace *t)
{
	for (int i = 0; i < (int)(TRACEBUF_LIB_START_TIMEOUT_MS / 10); i++) {
		tracebuf_session_dispatch(t->session);
		if (pt_target_started(t))
			return;
		poll(NULL, 0, 10);
	}
}

/*
 * Start @t's session with its filter's exclusions added to its categories
 * (@disposition: what its buffer keeps, 0: what the session picks), or,
 * with @update, have its running providers take them.  Returns what
 * libtracebuf did (0 or -errno), or ENOMEM.
 */
static int pt_session_categories(struct pt_trace *t, uint32_t disposition, bool update)
{
	struct tracebuf_session_start_args args = { .disposition = disposition };
	const char **cats = NULL;
	size_t size, count;
	char *blob;
	int ret;

	ret = pt_filter_categories(t, &blob, &size, &count);
	if (ret)
		return ret;
	if (count) {
		cats = calloc(count, sizeof(*cats));
		if (!cats) {
			free(blob);
			return ENOMEM;
		}
		for (size_t i = 0, off = 0; i < count; i++, off += strlen(blob + off) + 1)
			cats[i] = blob + off;
		args.categories = cats;
		args.ncategories = count;
	}
	ret = update ? tracebuf_session_update(t->session, &args) :
		       tracebuf_session_start(t->session, &args);
	free(cats);
	free(blob);
	return ret;
}

/*
 * Arm the wake of @t's reader by the next event of a process it traces
 * (target.c's pt_wake_site): a categories update, which leaves the
 * categories as they are.  0, or an error (not running, a module without
 * updates): then the reader polls.
 */
int pt_session_wake_arm(struct pt_trace *t)
{
	return pt_session_categories(t, 0, true);
}

/* Start @t's session (pt_session_categories()): 0, ENOMEM, EBUSY or EIO. */
int pt_session_start(struct pt_trace *t, uint32_t disposition)
{
	int ret = pt_session_categories(t, disposition, false);

	if (ret > 0)
		return ret;
	if (!ret || ret == -EALREADY) {
		t->running = true;
		pt_online_started(t);
		pt_wait_target_started(t);
		return 0;
	}
	return ret == -EBUSY ? EBUSY : EIO;
}

/*
 * An UNTIL_FULL stream that stopped full, emptied by its reader
 * (online.c): it starts again, cleared, POSIX_TRACE_START first.
 */
int pt_stream_restart_emptied(struct pt_trace *t)
{
	/* stamped before the target starts: before all it records */
	uint64_t ticks = tracebuf_session_ticks(t->session, NULL);
	int ret = pt_session_start(t, TRACEBUF_START_CLEAR_ENTIRE);

	if (!ret)
		ret = pt_system_event(t, POSIX_TRACE_START, ticks, NULL, 0);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* Stopping, and starting again                                             */

/*
 * Stop @t's provider; its data go to the log (as its log-full-policy
 * allows), or are read into the queue.
 */
int pt_stream_stop(struct pt_trace *t)
{
	bool write = !t->has_log || pt_log_before_stop(t);
	int ret = pt_log_errno(tracebuf_session_stop(t->session, write));

	t->running = false;
	t->out_unread = true;
	/* not running any more: pt_log_written() asks for no stop */
	if (t->has_log && write)
		pt_log_written(t);
	return ret;
}

/*
 * A new filter, or a flush, while @t runs: stop its provider (what it
 * recorded goes to the log, or is read into the queue now, before the new
 * run's threads number their events from 0 again) and start it again,
 * with the filter's categories.
 */
int pt_stream_restart(struct pt_trace *t)
{
	int ret = pt_stream_stop(t);

	if (ret)
		return ret;
	if (!t->has_log) {
		ret = pt_online_read_stop(t);
		if (ret)
			return ret;
	}
	return pt_session_start(t, 0);
}

/*
 * A running stream whose log filled (UNTIL_FULL, pt_log_written() or
 * pt_log_before_stop() said so): it stops, its last event a STOP.
 */
int pt_stream_stop_full(struct pt_trace *t)
{
	int ret = pt_stream_stop(t);

	return ret ? ret : pt_system_event(t, POSIX_TRACE_STOP, 0, NULL, 0);
}

/*
 * posix_trace_flush() of a running stream with a log: what its provider
 * recorded so far goes to the log, as its log-full-policy allows, while
 * it goes on recording (tracebuf_session_flush()), so nothing is lost;
 * a log that this fills stops the stream, as any write that fills it
 * does.  The provider is stopped and started again instead, and what it
 * records meanwhile is not recorded, when its stream is UNTIL_FULL and
 * full (it records nothing anyway, and the start frees its room), and
 * with a module that cannot flush.  0, or as posix_trace_flush(3p) says.
 */
int pt_stream_flush(struct pt_trace *t)
{
	int ret, err;

	if (pt_online_until_full(t))
		return pt_stream_restart(t);
	if (!pt_log_before_stop(t))
		return pt_stream_stop_full(t);
	ret = tracebuf_session_flush(t->session);
	if (ret == -EOPNOTSUPP)
		return pt_stream_restart(t);
	ret = pt_log_errno(ret);
	if (pt_log_written(t)) {
		err = pt_stream_stop_full(t);
		if (!ret)
			ret = err;
	}
	return ret;
}

/*
 * A new filter while @t runs: its provider records by it from when this
 * returns, without a stop (module ABI 1.6); with an older module, it is
 * stopped and started again.
 */
int pt_stream_refilter(struct pt_trace *t)
{
	int ret = pt_session_categories(t, 0, true);

	if (ret > 0)
		return ret;
	if (ret == -EOPNOTSUPP)
		return pt_stream_restart(t);
	return ret == -ENOMEM ? ENOMEM : ret ? EIO : 0;
}
