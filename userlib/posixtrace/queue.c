// SPDX-License-Identifier: MIT
/*
 * libposixtrace: the queue of an active trace stream without a log, the
 * events read and not yet reported (online.c reports them), and the
 * stream's full and overrun status.
 *
 * The queue is filled from a snapshot of the target's buffer
 * (tracebuf_session_snapshot(): the provider makes its records whole and
 * goes on writing) while the stream runs, from what a stop wrote to the
 * session's output once it is stopped, and from the records of the system
 * events (sysevent.c).  A snapshot, or a stop's data, holds every event
 * the buffer still has, so each is new only once: the "seq" argument
 * numbers a thread's events from 0 since the stream started, and an event
 * is taken when its seq is the next one of its thread.  A seq beyond that
 * one means the events between were lost (overwritten in a LOOP stream,
 * dropped in a full one): the stream's overrun status says so.  A
 * snapshot that every provider answered moves sealed_ticks: every event
 * stamped before it is in (online.c says why).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "posixtrace_priv.h"

/* ------------------------------------------------------------------------ */
/* The queue, and the stream's status                                       */

static void pt_pending_clear(struct pt_trace *t)
{
	for (size_t i = t->first_pending; i < t->npending; i++)
		free((void *)t->pending[i].ev.data);
	t->npending = 0;
	t->first_pending = 0;
}

void pt_online_free(struct pt_trace *t)
{
	pt_pending_clear(t);
	free(t->pending);
	free(t->threads);
}

int pt_online_clear(struct pt_trace *t)
{
	struct stat st;

	pt_pending_clear(t);
	t->nthreads = 0;
	/* what the stops wrote so far is never read */
	if (fstat(t->out_fd, &st))
		return EIO;
	t->out_off = (uint64_t)st.st_size;
	t->out_unread = false;
	return 0;
}

/*
 * A new run: the writers' seq start again at 0, and the providers'
 * buffers (and their hints of what they recorded) are new.
 */
void pt_online_started(struct pt_trace *t)
{
	t->nthreads = 0;
	t->nflushed = 0;
}

/*
 * A LOOP stream with a log loses what its providers overwrote before a
 * flush wrote it.  Each of its two rolling buffers is overwritten when
 * the provider enters the rolling buffer after it, so a provider that
 * entered the second one past the rolling buffer where the last flush
 * ended (or the first, 0, since it started) overwrote events no flush
 * wrote: an overrun, and the stream is FULL until the next flush.  Where
 * a flush ended is taken from the providers' hints once it returned, a
 * rolling buffer late at worst: a loss is then seen a rolling buffer
 * later, never where there was none.
 */
static uint64_t *pt_flushed_at(struct pt_trace *t, uint32_t id)
{
	for (int i = 0; i < t->nflushed; i++)
		if (t->flushed[i].id == id)
			return &t->flushed[i].rolling;
	if (t->nflushed == PT_FLUSHED_MAX)
		return NULL;
	t->flushed[t->nflushed].id = id;
	t->flushed[t->nflushed].rolling = 0;
	return &t->flushed[t->nflushed++].rolling;
}

/*
 * Each provider's rolling buffer now, from its hint: where a flush that
 * returned ended (@flushed), or else whether it went past the rolling
 * buffer after that one.
 */
static void pt_log_rolling(struct pt_trace *t, bool flushed)
{
	struct tracebuf_session_provider p[PT_FLUSHED_MAX];
	uint64_t rs, now, *at;
	int n;

	if (t->attr.stream_policy != POSIX_TRACE_LOOP || (!flushed && !t->running))
		return;
	n = tracebuf_session_providers(t->session, p, PT_FLUSHED_MAX);
	for (int i = 0; i < n && i < PT_FLUSHED_MAX; i++) {
		rs = tracebuf_layout_rolling_size(p[i].buffer_size, TRACEBUF_MODE_CIRCULAR);
		at = pt_flushed_at(t, p[i].id);
		if (!at || !rs)
			continue;
		now = p[i].bytes_recorded / rs;
		if (flushed) {
			*at = now;
		} else if (now < *at) {
			*at = 0;	/* started again: not seen yet */
		} else if (now >= *at + 2) {
			t->overrun = true;
			t->loop_full = true;
			/* the next loss: when it leaves this rolling buffer */
			*at = now - 1;
		}
	}
}

void pt_log_flushed(struct pt_trace *t)
{
	pt_log_rolling(t, true);
}

void pt_log_check_overwritten(struct pt_trace *t)
{
	pt_log_rolling(t, false);
}

/*
 * What the stream's providers dropped and recorded so far, as their
 * headers say (the bytes recorded are a hint).
 */
static void pt_provider_totals(const struct pt_trace *t, uint64_t *dropped, uint64_t *recorded)
{
	struct tracebuf_session_provider p[4];
	int n = tracebuf_session_providers(t->session, p, 4);

	*dropped = *recorded = 0;
	for (int i = 0; i < n && i < 4; i++) {
		*dropped += p[i].records_dropped;
		*recorded += p[i].bytes_recorded;
	}
}

void pt_online_check_drops(struct pt_trace *t)
{
	uint64_t drops, bytes;

	pt_provider_totals(t, &drops, &bytes);
	if (drops < t->drops_seen)
		t->drops_base = 0;	/* counted anew: a buffer cleared */
	if (drops > t->drops_seen)
		t->overrun = true;
	t->drops_seen = drops;
}

void pt_online_full_reset(struct pt_trace *t)
{
	pt_online_check_drops(t);
	t->drops_base = t->drops_seen;
	t->loop_full = false;
	t->full_stopped = false;
}

bool pt_online_full(const struct pt_trace *t)
{
	if (t->attr.stream_policy == POSIX_TRACE_UNTIL_FULL)
		return t->drops_seen > t->drops_base;
	return t->attr.stream_policy == POSIX_TRACE_LOOP && t->loop_full;
}

bool pt_online_until_full(struct pt_trace *t)
{
	if (t->attr.stream_policy != POSIX_TRACE_UNTIL_FULL)
		return false;
	pt_online_check_drops(t);
	return pt_online_full(t);
}

/* ------------------------------------------------------------------------ */
/* Filling the queue                                                        */

static struct pt_thread *pt_thread_find(struct pt_trace *t, uint32_t pid, uint64_t tid,
					bool *is_new)
{
	struct pt_thread *th;

	*is_new = false;
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].tid == tid && t->threads[i].pid == pid)
			return &t->threads[i];
	if (t->nthreads == t->cap_threads) {
		size_t cap = t->cap_threads ? 2 * t->cap_threads : 16;
		struct pt_thread *v = realloc(t->threads, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->threads = v;
		t->cap_threads = cap;
	}
	th = &t->threads[t->nthreads++];
	th->pid = pid;
	th->tid = tid;
	th->next = 0;
	*is_new = true;
	return th;
}

/*
 * Queue @ev if it is new; a copy of its data.  A system event is new once
 * only: queued when it is recorded (pt_online_add()), or the drop window
 * it comes from was not taken before.
 */
static int pt_take(struct pt_trace *t, const struct pt_event *ev)
{
	struct pt_pending *p;
	struct pt_thread *th;
	bool is_new;
	char *data = NULL;

	if (ev->id >= PT_FIRST_USER_ID) {
		th = pt_thread_find(t, ev->pid, ev->tid, &is_new);
		if (!th)
			return ENOMEM;
		if (!is_new && (int32_t)(ev->seq - th->next) < 0)
			return 0;	/* read before */
		if (ev->seq != th->next) {
			/* the events between were lost: overwritten unread */
			t->overrun = true;
			t->loop_full = t->attr.stream_policy == POSIX_TRACE_LOOP;
		}
		th->next = ev->seq + 1;
	}
	if (t->npending == t->cap_pending) {
		size_t cap = t->cap_pending ? 2 * t->cap_pending : 1024;
		struct pt_pending *v = realloc(t->pending, cap * sizeof(*v));

		if (!v)
			return ENOMEM;
		t->pending = v;
		t->cap_pending = cap;
	}
	if (ev->len) {
		data = malloc(ev->len);
		if (!data)
			return ENOMEM;
		memcpy(data, ev->data, ev->len);
	}
	p = &t->pending[t->npending++];
	p->ev = *ev;
	p->ev.data = data;
	p->order = t->order++;
	return 0;
}

static int pt_pending_cmp(const void *a, const void *b)
{
	const struct pt_pending *x = a, *y = b;

	if (x->ev.ns != y->ev.ns)
		return x->ev.ns < y->ev.ns ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Keep the events not yet reported by timestamp (pt_pending_cmp()). */
static void pt_pending_sort(struct pt_trace *t)
{
	if (t->npending - t->first_pending > 1)
		qsort(t->pending + t->first_pending, t->npending - t->first_pending,
		      sizeof(*t->pending), pt_pending_cmp);
}

/* What the stream's providers recorded so far, as their headers hint it. */
uint64_t pt_online_recorded(const struct pt_trace *t)
{
	uint64_t drops, bytes;

	pt_provider_totals(t, &drops, &bytes);
	return bytes;
}

/* Read @len bytes of FXT at @buf (@magic: from the start of a trace). */
static int pt_read_events(struct pt_trace *t, const char *buf, size_t len, bool magic)
{
	struct tracebuf_reader_record r;
	struct tracebuf_reader *rd;
	int ret, err = 0;

	if (!len)
		return 0;
	ret = tracebuf_reader_open_mem(buf, len, magic ? TRACEBUF_LIB_READER_MAGIC : 0, &rd);
	if (ret)
		return ENOMEM;
	while ((ret = tracebuf_reader_next(rd, &r)) > 0) {
		struct pt_event ev[2];
		int nev = pt_drop_window_events(t, &r, ev);

		if (nev) {
			/* a snapshot has the windows of the snapshots before */
			if (r.event.ns <= t->window_ns && t->window_ns)
				continue;
			t->window_ns = r.event.ns;
		} else if (pt_event_take(t, &r, &ev[0])) {
			nev = 1;
		}
		for (int i = 0; i < nev && !err; i++)
			err = pt_take(t, &ev[i]);
		if (err)
			break;
	}
	tracebuf_reader_close(rd);
	if (err)
		return err;
	/* the session wrote it: a record it refused would be a bug of ours */
	return ret < 0 ? EIO : 0;
}

/* A running stream: what a snapshot of it holds that was not read. */
int pt_online_snapshot(struct pt_trace *t)
{
	uint64_t errors = t->nerrors_total;
	uint64_t w = tracebuf_session_ticks(t->session, NULL);
	size_t len = 0;
	char *buf = NULL;
	int ret;

	/* the snapshot is written at the file's offset: empty it, from 0 */
	if (ftruncate(t->snap_fd, 0) || lseek(t->snap_fd, 0, SEEK_SET))
		return EIO;
	t->refill_bytes = pt_online_recorded(t);
	ret = tracebuf_session_snapshot(t->session, t->snap_fd, NULL);
	if (ret < 0)
		return ret == -ENOMEM ? ENOMEM : 0;	/* e.g. not started yet */
	ret = pt_read_fd(t->snap_fd, 0, &buf, &len);
	if (!ret)
		ret = pt_read_events(t, buf, len, true);
	/* every provider answered: what it still had is in */
	if (!ret && t->nerrors_total == errors && w > t->sealed_ticks)
		t->sealed_ticks = w;
	free(buf);
	pt_online_check_drops(t);
	pt_pending_sort(t);
	return ret;
}

/* A stopped stream: what its stops wrote that was not read. */
int pt_online_read_stop(struct pt_trace *t)
{
	size_t len = 0;
	char *buf = NULL;
	int ret = 0;

	if (t->out_unread) {
		/*
		 * What the stop wrote, behind what earlier stops wrote (each
		 * run's data start with the provider's durable records again,
		 * and the first with the magic record)
		 */
		ret = pt_read_fd(t->out_fd, t->out_off, &buf, &len);
		if (!ret)
			ret = pt_read_events(t, buf, len, t->out_off == 0);
		if (!ret) {
			t->out_off += len;
			t->out_unread = false;
		}
	}
	free(buf);
	pt_online_check_drops(t);
	pt_pending_sort(t);
	return ret;
}

/* The events of a system event's records (sysevent.c). */
int pt_online_add(struct pt_trace *t, const void *buf, size_t len)
{
	int ret = pt_read_events(t, buf, len, false);

	pt_pending_sort(t);
	return ret;
}
