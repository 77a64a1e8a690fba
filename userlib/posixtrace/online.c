// SPDX-License-Identifier: MIT
/*
 * libposixtrace: reading an active trace stream without a log, while its
 * target records (posix_trace_getnext_event, _timedgetnext_event,
 * _trygetnext_event of a stream made by posix_trace_create()).
 *
 * Such a stream is a circular (POSIX_TRACE_LOOP) or oneshot
 * (POSIX_TRACE_UNTIL_FULL) session: when the analyzer wants events, it
 * takes a snapshot of the target's buffer (tracebuf_session_snapshot():
 * the provider makes its records whole and goes on writing) and reads
 * it; once the stream is stopped, it reads what the stop wrote to the
 * session's output.  Either holds every event the buffer still has, so
 * each is new only once: the "seq" argument numbers a thread's events
 * from 0 since the stream started, and an event is taken when its seq is
 * the next one of its thread.  A seq beyond that one means the events
 * between were lost (overwritten in a LOOP stream, dropped in a full
 * one): the stream's overrun status says so.
 *
 * Order.  Events are reported by timestamp, and an event is reported only
 * when no event stamped before it can still turn up.  A writer stamps its
 * record once it reserved it in its chunk (pt_write_fast(), and
 * __tracebuf_emit_slow() with ticks 0), and a snapshot makes every record
 * of a chunk whole: it closes the chunks, waiting for writers in the
 * middle of a record (tracebuf_engine_seal()).  So a snapshot asked for
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "posixtrace_priv.h"

/*
 * How often a blocked getnext takes a snapshot when no event of this
 * process wakes it (target.c's pt_events_wait()).
 */
#define PT_POLL_NS	(10ull * 1000 * 1000)

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

/* A new run: the writers' seq start again at 0. */
void pt_online_started(struct pt_trace *t)
{
	t->nthreads = 0;
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
static uint64_t pt_recorded(const struct pt_trace *t)
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

/* Read what the stream holds now that was not read. */
static int pt_refill(struct pt_trace *t)
{
	size_t len = 0;
	char *buf = NULL;
	int ret;

	ret = pt_until_full_stop(t);
	if (ret)
		return ret;
	if (t->running) {
		uint64_t errors = t->nerrors_total;
		uint64_t w = tracebuf_session_ticks(t->session, NULL);

		/* the snapshot is written at the file's offset: empty it, from 0 */
		if (ftruncate(t->snap_fd, 0) || lseek(t->snap_fd, 0, SEEK_SET))
			return EIO;
		t->refill_bytes = pt_recorded(t);
		ret = tracebuf_session_snapshot(t->session, t->snap_fd, NULL);
		if (ret < 0)
			return ret == -ENOMEM ? ENOMEM : 0;	/* e.g. not started yet */
		ret = pt_read_fd(t->snap_fd, 0, &buf, &len);
		if (!ret)
			ret = pt_read_events(t, buf, len, true);
		/* every provider answered: what it still had is in */
		if (!ret && t->nerrors_total == errors && w > t->sealed_ticks)
			t->sealed_ticks = w;
	} else if (t->out_unread) {
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

int pt_online_add(struct pt_trace *t, const void *buf, size_t len)
{
	int ret = pt_read_events(t, buf, len, false);

	pt_pending_sort(t);
	return ret;
}

/* What a stop wrote, into the queue now (the stream is stopped). */
int pt_online_read_stop(struct pt_trace *t)
{
	return pt_refill(t);
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
	uint64_t half = tracebuf_layout_rolling_size(t->buffer_size, TRACEBUF_MODE_CIRCULAR);

	if (t->attr.stream_policy == POSIX_TRACE_UNTIL_FULL)
		return pt_until_full_stop(t);
	if (t->attr.stream_policy != POSIX_TRACE_LOOP || !t->running)
		return 0;
	if (t->first_pending == t->npending || pt_recorded(t) - t->refill_bytes >= half / 2)
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
 * the stream was shut down meanwhile, ETIMEDOUT, ENOMEM or EIO.
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
		bool late;

		/* counted before the snapshot: an event it misses wakes us */
		if (wait)
			gen = pt_events_watch();
		p = pt_ready(t);
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
		pt_events_wait(gen, ns);
		pthread_mutex_lock(&t->lock);
		t->waiters--;
		pt_events_unwatch();
		if (t->dying) {
			pthread_cond_broadcast(&t->cond);
			return EINVAL;
		}
	}
	*data_len = 0;
	*unavailable = 1;
	return ret;
}
