// SPDX-License-Identifier: MIT
/*
 * libposixtrace: the log-full-policy of a stream with a log, and its
 * log-max-size.
 *
 * The session writes the log: with POSIX_TRACE_FLUSH each rolling buffer
 * as it fills (the stream's thread dispatches), otherwise the
 * whole buffer when the stream stops or is flushed.  These functions run
 * before and after each of those writes, the trace locked:
 *
 *   POSIX_TRACE_APPEND      the log grows; log-max-size is ignored.
 *   POSIX_TRACE_UNTIL_FULL  once the log holds log-max-size bytes, it is
 *                           full: the stream is stopped (POSIX_TRACE_STOP
 *                           is its last event) and what it records after
 *                           is not written.  pt_log_written() says so and
 *                           its caller, the stream's thread, stops it: a
 *                           leaf (posixtrace_priv.h), this file calls no
 *                           other of the library's.
 *   POSIX_TRACE_LOOP        the log is a sequence of parts that each read
 *                           alone (each begins with the provider's
 *                           durable records); once a write took the log
 *                           past log-max-size, the oldest parts are
 *                           dropped (the file's later bytes move down
 *                           over them), but never the newest that holds
 *                           records, whatever its size.  A part is what
 *                           one stop or flush wrote or, with
 *                           POSIX_TRACE_FLUSH, what was written between
 *                           two rotations of the session
 *                           (tracebuf_session_rotate()), one each
 *                           eighth of log-max-size.
 *
 * Either bound is checked when data have been written, so a log may
 * exceed log-max-size by what was written before the stream's thread
 * looked: what a stop or a flush writes (a stream buffer at most), or
 * with POSIX_TRACE_FLUSH the rolling buffers saved meanwhile (both at
 * most: the provider writes into one again only once it is saved); a
 * LOOP log keeps at least its newest part, which with POSIX_TRACE_FLUSH
 * holds under an eighth of log-max-size and a buffer's worth.  A log
 * that cannot be cut back (a pipe) does not loop: LOOP is APPEND there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracebuf_fxt.h>

#include "posixtrace_priv.h"

/* A libtracebuf error writing the log, as posix_trace_flush(3p) lists them. */
int pt_log_errno(int ret)
{
	if (!ret || ret == -EALREADY)
		return 0;
	return ret == -ENOSPC ? ENOSPC : ret == -EFBIG ? EFBIG : EIO;
}

/* The log's size now: its head, and what the session wrote since. */
static uint64_t pt_log_end(const struct pt_trace *t)
{
	return t->log_head + tracebuf_session_bytes(t->session) - t->log_bytes0;
}

static bool pt_log_loops(const struct pt_trace *t)
{
	return t->attr.log_policy == POSIX_TRACE_LOOP && t->log_start >= 0;
}

/* Parts of the log begin at units[0] (the head), units[1], ... */
static int pt_log_unit_add(struct pt_trace *t, uint64_t off)
{
	if (t->nunits && t->units[t->nunits - 1] == off)
		return 0;
	if (t->nunits == t->cap_units) {
		size_t cap = t->cap_units ? 2 * t->cap_units : 16;
		uint64_t *v = realloc(t->units, cap * sizeof(*v));

		if (!v)
			return ENOMEM;
		t->units = v;
		t->cap_units = cap;
	}
	t->units[t->nunits++] = off;
	return 0;
}

int pt_log_reset(struct pt_trace *t)
{
	t->log_bytes0 = tracebuf_session_bytes(t->session);
	t->nunits = 0;
	t->log_full = false;
	t->log_overrun = false;
	return pt_log_unit_add(t, t->log_head);
}

int pt_log_cut(struct pt_trace *t, uint64_t off)
{
	if (ftruncate(t->log_fd, (off_t)off) ||
	    lseek(t->log_fd, (off_t)off, SEEK_SET) != (off_t)off)
		return errno == EFBIG ? EFBIG : EIO;
	return 0;
}

/* Move the file's bytes [from, end) down to @to. */
static int pt_log_move(int fd, uint64_t from, uint64_t to, uint64_t end)
{
	char buf[1 << 16];

	while (from < end) {
		size_t n = end - from < sizeof(buf) ? (size_t)(end - from) : sizeof(buf);
		ssize_t r = pread(fd, buf, n, (off_t)from);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return EIO;
		for (ssize_t w = 0; w < r;) {
			ssize_t k = pwrite(fd, buf + w, (size_t)(r - w), (off_t)(to + (uint64_t)w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				return EIO;
			w += k;
		}
		from += (uint64_t)r;
		to += (uint64_t)r;
	}
	return 0;
}

/*
 * LOOP: drop the oldest parts while the log is larger than log-max-size,
 * but never the newest part that holds records: the log always keeps the
 * newest events flushed, whole, even when that part alone is larger.  A
 * part that holds nothing yet (where the next stop writes, or only the
 * magic record of a rotation) does not count as the newest.  Everything
 * the session wrote is in the file.
 */
static int pt_log_trim(struct pt_trace *t)
{
	uint64_t end = pt_log_end(t), gap;
	size_t last = t->nunits - 1, k = 0;
	int ret;

	if (last && t->units[last] + TRACEBUF_LIB_FXT_WORD >= end)
		last--;
	while (k < last && end - (t->units[k] - t->log_head) > t->attr.log_size)
		k++;
	if (!k)
		return 0;
	gap = t->units[k] - t->log_head;
	ret = pt_log_move(t->log_fd, t->units[k], t->log_head, end);
	if (!ret)
		ret = pt_log_cut(t, end - gap);
	if (ret)
		return ret;
	for (size_t i = k; i < t->nunits; i++)
		t->units[i - k] = t->units[i] - gap;
	t->nunits -= k;
	t->log_bytes0 += gap;
	t->log_overrun = true;
	return 0;
}

/*
 * A LOOP log of a stream that is not POSIX_TRACE_FLUSH: what a stop or a
 * flush writes next is a part of its own, from the magic record on, with
 * the provider's info and durable records again (tracebuf_session_rotate()
 * on the log itself), so that it reads alone when the parts before it are
 * dropped.  Not when the newest part holds nothing yet.
 */
static void pt_log_part(struct pt_trace *t)
{
	uint64_t end = pt_log_end(t);

	if (t->units[t->nunits - 1] + TRACEBUF_LIB_FXT_WORD >= end)
		return;
	if (!tracebuf_session_rotate(t->session, t->log_fd))
		pt_log_unit_add(t, end);
}

bool pt_log_before_stop(struct pt_trace *t)
{
	if (t->attr.log_policy == POSIX_TRACE_UNTIL_FULL) {
		if (pt_log_end(t) >= t->attr.log_size)
			t->log_full = true;
		return !t->log_full;
	}
	/* a LOOP log makes room once the stop's part is in (pt_log_trim()) */
	if (pt_log_loops(t) && t->attr.stream_policy != POSIX_TRACE_FLUSH)
		pt_log_part(t);
	return true;
}

bool pt_log_written(struct pt_trace *t)
{
	uint64_t end = pt_log_end(t), part = t->attr.log_size / 8;

	switch (t->attr.log_policy) {
	case POSIX_TRACE_UNTIL_FULL:
		if (end < t->attr.log_size)
			return false;
		t->log_full = true;
		/* its caller stops it; the stop writes nothing (pt_log_before_stop()) */
		return t->running;
	case POSIX_TRACE_LOOP:
		if (!pt_log_loops(t))
			return false;
		if (t->attr.stream_policy != POSIX_TRACE_FLUSH) {
			/* a stop's or a flush's part is in (pt_log_part()) */
			pt_log_trim(t);
			return false;
		}
		if (end - t->units[t->nunits - 1] < (part ? part : 1))
			return false;
		/*
		 * A new part: the session writes all that is pending, then,
		 * from the magic record on, a trace that reads alone; the
		 * log is trimmed only then, with all of it in the file
		 */
		if (tracebuf_session_rotate(t->session, t->log_fd))
			return false;
		end = pt_log_end(t);
		if (!pt_log_unit_add(t, end - TRACEBUF_LIB_FXT_WORD))
			pt_log_trim(t);
		return false;
	default:
		return false;
	}
}
