// SPDX-License-Identifier: MIT
/*
 * libposixtrace: trace streams, from the trace controller process
 * (posix_trace_create_withlog, _start, _stop, _flush, _clear, _shutdown,
 * _get_attr, _get_status).
 *
 * A stream is a libtracebuf session that traces one provider, the traced
 * process's "posix_trace.PID" (target.c), whether it registered already
 * or registers later, in category "posix:*".  Its stream-full-policy
 * picks the session's buffering mode: POSIX_TRACE_LOOP circular,
 * POSIX_TRACE_UNTIL_FULL oneshot, POSIX_TRACE_FLUSH streaming (each
 * rolling buffer is flushed to the log as it fills).  The session
 * writes the log: an FXT trace on the caller's file descriptor.  A thread
 * of the stream's serves the session (the provider's packets, its
 * registration and its death) while the controller does anything else.
 * The table of trace ids is trid.c's.
 *
 * Locking: pt_table_lock (trid.c), then a trace's lock.  A trace's lock
 * is held across each session call, so that one thread at a time uses it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <tracebuf_fxt.h>

#include "posixtrace_priv.h"

/* How often the stream's thread looks at its session without a message. */
#define PT_SERVE_POLL_MS	200

/* ------------------------------------------------------------------------ */
/* The stream's thread                                                      */

static void *pt_serve(void *arg)
{
	struct pt_trace *t = arg;
	struct pollfd pfd[2] = {
		{ .fd = tracebuf_session_fd(t->session), .events = POLLIN },
		{ .fd = t->wake_fd, .events = POLLIN },
	};

	for (;;) {
		int n = poll(pfd, 2, PT_SERVE_POLL_MS);

		if (n < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		pthread_mutex_lock(&t->lock);
		/* at most 128 messages a call: again while some wait */
		while (tracebuf_session_dispatch(t->session) >= 128)
			;
		/* a log that filled (UNTIL_FULL) */
		if (t->has_log && t->running && pt_log_written(t))
			pt_stream_stop_full(t);
		if (t->nerrors)
			pt_errors_record(t);
		pt_keeper_sync(t);
		/* the keeper knows of the saves: their rolling buffers are free */
		tracebuf_session_send_saved(t->session);
		pthread_mutex_unlock(&t->lock);
	}
	return NULL;
}

/*
 * A stream's put_hook (pt_trace_put()): the errors its session noted
 * during the call recorded, its keeper as the stream is now.
 */
static void pt_stream_put(struct pt_trace *t)
{
	pt_errors_record(t);
	pt_keeper_sync(t);
	if (t->session)
		tracebuf_session_send_saved(t->session);
}

/* ------------------------------------------------------------------------ */
/* posix_trace_create(3p)                                                   */

/* A tracebuf error, as the error numbers posix_trace_create(3p) lists. */
static int pt_create_errno(int ret)
{
	switch (ret) {
	case -EPERM:
	case -EACCES:
		return EPERM;
	case -ENOMEM:
	case -EFBIG:
	case -EDQUOT:
		return ENOMEM;
	case -ENOENT:
	case -ENODEV:
		return ENODEV;	/* no /dev/tracebuf: the module is not loaded */
	case -EBADF:
		return EBADF;
	case -ENOSPC:
		return ENOSPC;
	case -EMFILE:
	case -ENFILE:
		return EAGAIN;
	default:
		return ret < 0 ? -ret : EINVAL;
	}
}

/*
 * Write the log's attributes record, right after the magic record, as the
 * session's own (tracebuf_session_write()): behind a provider info
 * record, as a trace of tracebufctl's begins, so that no record of the
 * log comes before a provider's.
 */
static int pt_write_log_attr(struct tracebuf_session *s, const struct pt_attr *a, uint32_t pid)
{
	static const char name[] = PT_LOG_ATTR_NAME;
	struct tracebuf_fxt_str n = tracebuf_fxt_str_inline(name, sizeof(name) - 1);
	struct pt_log_attr la = {
		.version = PT_LOG_ATTR_VERSION,
		.pid = pid,
		.create_sec = a->create_time.tv_sec,
		.create_nsec = a->create_time.tv_nsec,
		.res_sec = a->clock_res.tv_sec,
		.res_nsec = a->clock_res.tv_nsec,
		.inheritance = (uint32_t)a->inheritance,
		.stream_policy = (uint32_t)a->stream_policy,
		.log_policy = (uint32_t)a->log_policy,
		.stream_size = a->stream_size,
		.log_size = a->log_size,
		.max_data_size = a->max_data_size,
	};
	uint64_t rec[(sizeof(la) + 64) / 8];
	int size, ret;

	memcpy(la.name, a->name, sizeof(a->name));
	memcpy(la.genversion, a->genversion, sizeof(a->genversion));
	size = tracebuf_fxt_blob_write(rec, sizeof(rec), TRACEBUF_LIB_FXT_BLOB_DATA, &n,
				       &la, sizeof(la));
	if (size < 0)
		return EINVAL;
	ret = tracebuf_session_write(s, rec, (size_t)size);
	if (!ret)
		return 0;
	return ret == -ENOSPC ? ENOSPC : EIO;
}

/*
 * Stop the thread, destroy the session (terminate the provider, write
 * what is left, flush the log) and free: @t locked, and no longer in the
 * table.  Returns what tracebuf_session_destroy() did.
 */
static int pt_stream_free(struct pt_trace *t)
{
	int ret = 0;

	if (t->has_thread) {
		uint64_t one = 1;

		if (write(t->wake_fd, &one, sizeof(one)) < 0)
			abort();	/* an eventfd cannot refuse 1 */
		pthread_mutex_unlock(&t->lock);
		pthread_join(t->thread, NULL);
		pthread_mutex_lock(&t->lock);
	}
	/* shut down: its keeper has nothing to do */
	pt_keeper_free(t);
	if (t->session)
		ret = tracebuf_session_destroy(t->session);
	pt_stream_close_files(t);
	pt_online_free(t);
	pt_trace_free(t);
	return ret;
}

/*
 * posix_trace_create(3p): when a process exits, its streams "shall be
 * automatically shut down as if an explicit call were made to the
 * posix_trace_shutdown() function", which writes what a stream with a
 * log still holds to its log.  Run at exit() and at the return from
 * main(); _exit(), a death by a signal and exec*() run nothing of the
 * process's: a running stream's keeper shuts it down then (keeper.c;
 * posix_trace(7) says what is left).
 */
static void pt_exit_shutdown(void)
{
	trace_id_t ids[__TRACEBUF_PT_STREAM_MAX];
	unsigned int n = pt_trace_ids(PT_KIND_STREAM, ids);

	for (unsigned int i = 0; i < n; i++)
		posix_trace_shutdown(ids[i]);
}

static pthread_once_t pt_exit_once = PTHREAD_ONCE_INIT;

static void pt_exit_init(void)
{
	atexit(pt_exit_shutdown);
}

/*
 * Whether a stream of this process that is not shut down traces @pid: the
 * provider of a process is one session's, so a newer stream of the same
 * process follows the oldest, which gets the events (posix_trace(7)).
 */
static bool pt_pid_traced(uint32_t pid)
{
	trace_id_t ids[TRACE_SYS_MAX];
	unsigned int n = pt_trace_ids(PT_KIND_STREAM, ids);
	bool traced = false;

	for (unsigned int i = 0; i < n && !traced; i++) {
		struct pt_trace *o = pt_trace_get(ids[i], PT_KIND_STREAM);

		if (!o)
			continue;
		traced = o->pid == pid && !o->dying;
		pt_trace_put(o);
	}
	return traced;
}

/* A stream of @pid, with a log on @file_desc, or without one (-1). */
static int pt_create(pid_t pid, const trace_attr_t *attr, int file_desc, trace_id_t *trid)
{
	struct tracebuf_session_config cfg = { .size = sizeof(cfg), .nproviders = 1 };
	const struct pt_attr *a = (const struct pt_attr *)attr;
	struct pt_trace *t;
	trace_id_t id;
	int flags, ret;

	if (!trid || pid < 0 || (attr && a->magic != PT_ATTR_MAGIC))
		return EINVAL;
	/* a stream without a log cannot flush to one */
	if (file_desc < 0 && attr && a->stream_policy == POSIX_TRACE_FLUSH)
		return EINVAL;
	if (file_desc >= 0) {
		flags = fcntl(file_desc, F_GETFL);
		if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY)
			return EBADF;
	}
	if (!pid)
		pid = getpid();
	else if (kill(pid, 0) && errno == ESRCH)
		return ESRCH;

	t = pt_trace_new(PT_KIND_STREAM);
	if (!t)
		return ENOMEM;
	t->has_log = file_desc >= 0;
	/* what the session noted during a call is recorded as it returns */
	t->put_hook = pt_stream_put;
	if (attr)
		t->attr = *a;
	else
		pt_attr_defaults(&t->attr);
	if (!t->attr.stream_policy)
		t->attr.stream_policy = t->has_log ? POSIX_TRACE_FLUSH : POSIX_TRACE_LOOP;
	clock_gettime(CLOCK_REALTIME, &t->attr.create_time);
	t->pid = (uint32_t)pid;
	snprintf(t->provider, sizeof(t->provider), PT_PROVIDER_PREFIX "%d", (int)pid);
	t->providers[0] = t->provider;
	/* a follower's session takes no provider, nor races the oldest's for it */
	t->follower = pt_pid_traced(t->pid);
	if (t->follower)
		cfg.flags = TRACEBUF_LIB_SESSION_NO_PROVIDERS;
	/* a save's rolling buffer is reused once its keeper knows (keeper.c) */
	if (t->has_log)
		cfg.flags |= TRACEBUF_LIB_SESSION_HOLD_SAVED;
	posix_trace_eventset_empty(&t->filter);
	t->cats[cfg.ncategories++] = PT_CATEGORY_ALL;
	/* the target's children register under its name when they inherit */
	if (t->attr.inheritance == POSIX_TRACE_INHERITED)
		t->cats[cfg.ncategories++] = PT_CATEGORY_INHERIT;
	/* its reader is woken by the events of another process (online.c) */
	if (!t->has_log)
		t->cats[cfg.ncategories++] = PT_CATEGORY_WAKE;
	t->wake_remote = !t->has_log && (t->pid != (uint32_t)getpid() ||
					 t->attr.inheritance == POSIX_TRACE_INHERITED);
	cfg.categories = t->cats;

	switch (t->attr.stream_policy) {
	case POSIX_TRACE_LOOP:
		cfg.mode = TRACEBUF_MODE_CIRCULAR;
		break;
	case POSIX_TRACE_UNTIL_FULL:
		cfg.mode = TRACEBUF_MODE_ONESHOT;
		break;
	default:
		cfg.mode = TRACEBUF_MODE_STREAMING;
		break;
	}
	cfg.buffer_size = pt_stream_buffer_size(t->attr.stream_size, t->attr.max_data_size,
						cfg.mode);
	t->buffer_size = cfg.buffer_size;
	if (!cfg.buffer_size) {
		ret = ENOMEM;
		goto out_free;
	}
	cfg.providers = t->providers;
	cfg.output_fd = file_desc;
	cfg.notify = pt_session_note;
	cfg.arg = t;
	if (!t->has_log) {
		/* the session's output is ours to read, as are its snapshots */
		t->out_fd = memfd_create("posix_trace.stream", MFD_CLOEXEC);
		t->snap_fd = memfd_create("posix_trace.snapshot", MFD_CLOEXEC);
		if (t->out_fd < 0 || t->snap_fd < 0) {
			ret = errno == EMFILE || errno == ENFILE ? EAGAIN : ENOMEM;
			goto out_free;
		}
		cfg.output_fd = t->out_fd;
	}

	ret = tracebuf_session_create(&cfg, &t->session);
	if (ret) {
		t->session = NULL;
		ret = pt_create_errno(ret);
		goto out_free;
	}
	if (t->has_log) {
		ret = pt_write_log_attr(t->session, &t->attr, t->pid);
		if (ret)
			goto out_free;
		/* where posix_trace_clear() cuts the log back to (-1: it cannot) */
		t->log_fd = file_desc;
		t->log_start = lseek(file_desc, 0, SEEK_CUR);
		t->log_head = t->log_start >= 0 ? (uint64_t)t->log_start :
			      tracebuf_session_bytes(t->session);
		ret = pt_log_reset(t);
		if (ret)
			goto out_free;
	}
	t->wake_fd = eventfd(0, EFD_CLOEXEC);
	if (t->wake_fd < 0) {
		ret = EAGAIN;
		goto out_free;
	}
	ret = pthread_create(&t->thread, NULL, pt_serve, t);
	if (ret) {
		ret = EAGAIN;
		goto out_free;
	}
	t->has_thread = true;
	pthread_once(&pt_exit_once, pt_exit_init);
	ret = pt_trace_add(t, &id);
	if (ret)
		goto out_free;
	pthread_mutex_unlock(&t->lock);
	*trid = id;
	return 0;

out_free:
	pt_stream_free(t);
	return ret;
}

POSIXTRACE_API int posix_trace_create(pid_t pid, const trace_attr_t *restrict attr,
				      trace_id_t *restrict trid)
{
	return pt_create(pid, attr, -1, trid);
}

POSIXTRACE_API int posix_trace_create_withlog(pid_t pid, const trace_attr_t *restrict attr,
					      int file_desc, trace_id_t *restrict trid)
{
	if (file_desc < 0)
		return EBADF;
	return pt_create(pid, attr, file_desc, trid);
}

/* ------------------------------------------------------------------------ */
/* posix_trace_start(3p)                                                    */

POSIXTRACE_API int posix_trace_start(trace_id_t trid)
{
	struct pt_trace *t = pt_trace_get(trid, PT_KIND_STREAM);
	uint64_t ticks;
	int ret = 0;

	if (!t)
		return EINVAL;
	if (pt_online_until_full(t)) {
		/* without a log, it starts again once its reader emptied it */
		t->full_stopped = !t->has_log;
	} else if (!t->running) {
		/* stamped before the target starts: before all it records */
		ticks = tracebuf_session_ticks(t->session, NULL);
		ret = pt_session_start(t, 0);
		if (!ret)
			ret = pt_system_event(t, POSIX_TRACE_START, ticks, NULL, 0);
	}
	t->keeper_stale = true;
	pt_trace_put(t);
	return ret;
}

POSIXTRACE_API int posix_trace_stop(trace_id_t trid)
{
	struct pt_trace *t = pt_trace_get(trid, PT_KIND_STREAM);
	int ret = 0;

	if (!t)
		return EINVAL;
	if (t->running) {
		/* the providers' data go to the log as each stops */
		ret = pt_stream_stop(t);
		if (!ret && !pt_online_until_full(t))
			ret = pt_system_event(t, POSIX_TRACE_STOP, 0, NULL, 0);
	}
	/* stopped by its caller: not started again once emptied */
	t->full_stopped = false;
	t->keeper_stale = true;
	pt_trace_put(t);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* posix_trace_create(3p): flush; posix_trace_clear(3p)                     */

/*
 * The stream's data go to the log when its provider stops (and, with
 * POSIX_TRACE_FLUSH, as each rolling buffer fills): a flush of a
 * running stream writes what it recorded so far while it goes on
 * (pt_stream_flush()).  Done when it returns; a suspended stream has
 * nothing left to flush.
 */
POSIXTRACE_API int posix_trace_flush(trace_id_t trid)
{
	struct pt_trace *t = pt_trace_get(trid, PT_KIND_STREAM);
	int ret = 0;

	if (!t)
		return EINVAL;
	if (!t->has_log) {
		pt_trace_put(t);
		return EINVAL;
	}
	if (t->running) {
		pt_system_event(t, POSIX_TRACE_FLUSH_START, 0, NULL, 0);
		ret = pt_stream_flush(t);
		if (!ret)
			ret = pt_system_event(t, POSIX_TRACE_FLUSH_STOP, 0, NULL, 0);
		/* the flushed events' room is free: not full */
		pt_online_full_reset(t);
		pt_log_flushed(t);
	}
	t->flush_error = ret;
	t->keeper_stale = true;
	pt_trace_put(t);
	return ret;
}

/*
 * Back to the log as posix_trace_create_withlog() left it; what the
 * session writes next comes behind the magic record and its providers'
 * info and durable records again (tracebuf_session_rotate()), since those
 * it wrote before are cut off with the rest.
 */
static int pt_log_clear(struct pt_trace *t)
{
	int ret = pt_log_cut(t, (uint64_t)t->log_start);

	if (!ret)
		ret = pt_log_reset(t);
	if (!ret && tracebuf_session_rotate(t->session, t->log_fd))
		ret = EIO;
	return ret;
}

POSIXTRACE_API int posix_trace_clear(trace_id_t trid)
{
	struct pt_trace *t = pt_trace_get(trid, PT_KIND_STREAM);
	bool running;
	int ret = 0;

	if (!t)
		return EINVAL;
	/* a log that cannot be cut back (a pipe) cannot be cleared */
	if (t->has_log && t->log_start < 0) {
		pt_trace_put(t);
		return EINVAL;
	}
	/* a stream that stopped full is to run again, empty */
	running = t->running || t->full_stopped;
	if (t->running) {
		/* what the provider holds is dropped, not written */
		ret = pt_log_errno(tracebuf_session_stop(t->session, false));
		t->running = false;
	}
	if (!ret)
		ret = t->has_log ? pt_log_clear(t) : pt_online_clear(t);
	pt_online_full_reset(t);
	t->overrun = false;
	if (!ret && running)
		ret = pt_session_start(t, TRACEBUF_START_CLEAR_ENTIRE);
	t->keeper_stale = true;
	pt_trace_put(t);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* posix_trace_create(3p): shutdown                                         */

/*
 * posix_trace_create(3p): posix_trace_flush() and posix_trace_shutdown()
 * fail with EFBIG or ENOSPC when the log could not be written
 * (pt_log_errno(): the stop's write, which the session's earlier errors
 * fail too); another error of the end is EIO.
 */
POSIXTRACE_API int posix_trace_shutdown(trace_id_t trid)
{
	struct pt_trace *t = pt_trace_remove(trid, PT_KIND_STREAM);
	int ret = 0;

	if (!t)
		return EINVAL;
	/* a getnext blocked on it returns EINVAL; wait until it has */
	t->dying = true;
	pthread_cond_broadcast(&t->cond);
	if (t->waiters)
		pt_events_wake();
	while (t->waiters)
		pthread_cond_wait(&t->cond, &t->lock);
	if (t->running) {
		ret = pt_stream_stop(t);
		if (!ret && !pt_online_until_full(t))
			pt_system_event(t, POSIX_TRACE_STOP, 0, NULL, 0);
	}
	/* without a log, nothing failed to be written */
	if (!t->has_log)
		ret = 0;
	if (pt_stream_free(t) && !ret)
		ret = EIO;
	return ret;
}

/* ------------------------------------------------------------------------ */
/* posix_trace_get_attr(3p)                                                 */

POSIXTRACE_API int posix_trace_get_attr(trace_id_t trid, trace_attr_t *attr)
{
	struct pt_trace *t;

	if (!attr)
		return EINVAL;
	t = pt_trace_get(trid, 0);
	if (!t)
		return EINVAL;
	memcpy(attr, &t->attr, sizeof(t->attr));
	pt_trace_put(t);
	return 0;
}

POSIXTRACE_API int posix_trace_get_status(trace_id_t trid,
					  struct posix_trace_status_info *statusinfo)
{
	struct pt_trace *t;
	bool full = false;

	if (!statusinfo)
		return EINVAL;
	t = pt_trace_get(trid, 0);
	if (!t)
		return EINVAL;
	memset(statusinfo, 0, sizeof(*statusinfo));
	if (t->kind == PT_KIND_STREAM) {
		/*
		 * A stream without a log reads what it holds when that may
		 * tell more (pt_online_refresh()): the events a LOOP stream
		 * overwrote before they were read are an overrun at once,
		 * and an UNTIL_FULL stream that filled stops.  One with a
		 * log: what its LOOP providers overwrote before a flush.
		 */
		if (!t->has_log)
			pt_online_refresh(t);
		else
			pt_log_check_overwritten(t);
		pt_online_check_drops(t);
		full = pt_online_full(t);
	}
	/* a log: the status of the completed stream */
	statusinfo->posix_stream_status =
		t->running && !(full && t->attr.stream_policy == POSIX_TRACE_UNTIL_FULL) ?
		POSIX_TRACE_RUNNING : POSIX_TRACE_SUSPENDED;
	statusinfo->posix_stream_full_status = full ? POSIX_TRACE_FULL : POSIX_TRACE_NOT_FULL;
	statusinfo->posix_stream_overrun_status = t->overrun ? POSIX_TRACE_OVERRUN :
					     POSIX_TRACE_NO_OVERRUN;
	/* a flush is done when posix_trace_flush() returns */
	statusinfo->posix_stream_flush_status = POSIX_TRACE_NOT_FLUSHING;
	statusinfo->posix_stream_flush_error = t->flush_error;
	statusinfo->posix_log_overrun_status = t->log_overrun ? POSIX_TRACE_OVERRUN :
					  POSIX_TRACE_NO_OVERRUN;
	statusinfo->posix_log_full_status = t->log_full ? POSIX_TRACE_FULL : POSIX_TRACE_NOT_FULL;
	/*
	 * reset once read (posix_trace_get_status(3p)); with a log, the
	 * log's overrun status and the flush error too
	 */
	t->overrun = false;
	t->log_overrun = false;
	t->flush_error = 0;
	pt_trace_put(t);
	return 0;
}
