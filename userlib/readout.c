// SPDX-License-Identifier: MIT
/*
 * libtracebuf: the read-out of provider buffers, the manager's trust
 * boundary, as module/ioctl.c is the kernel's.  Everything a provider
 * wrote is hostile until checked here: a provider may be buggy, crash
 * half-way, or write anything at any time into the buffer it maps
 * read-write, while the manager maps it read-only.
 *
 * The session is Fuchsia's TraceSession and Tracee over /dev/tracebuf,
 * and the read-out is its buffer read-out with the newer manager's fixes
 * (the earlier rolling buffer is not written twice, and a provider's name
 * goes in its provider info record).
 *
 *  - The layout is computed (layout.h), never read from the buffer.
 *  - The header is read once per read-out into a local copy, stop_mark
 *    first, and checked against that layout
 *    (tracebuf_readout_snapshot()); a header that does not check out is
 *    not used for anything but the dropped count's hint.
 *  - Each range is copied out first and only the copy is checked and
 *    written (tracebuf_readout_range()): cut to whole records
 *    (tb_sanitize(), which also removes metadata records, which only the
 *    manager writes), then to records that decode (tb_validate()), so
 *    the file stays readable after them for every provider.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tracebuf_fxt.h>
#include <tracebuf_manager.h>
#include <tracebuf_reader.h>

#include "session.h"

/*
 * A local copy of the header, and whether its fields agree with what the
 * kernel wrote and with each other.  A provider that died mid-way never
 * wrote the final values: then only the layout is used.
 */
bool tracebuf_readout_snapshot(const struct tb_tracee *t, struct tracebuf_buffer_header *h)
{
	const struct tb_layout *l = &t->lay;
	const struct tracebuf_buffer_header *live = (const void *)t->map;
	uint64_t mark;

	if (!live) {
		memset(h, 0, sizeof(*h));
		return false;
	}
	/*
	 * stop_mark first, with acquire: the provider stores it last, with
	 * release, so data ends read after it are the final ones it vouches
	 * for (a provider that stopped without telling us, or one that does
	 * not answer while we terminate it).  The fence orders the header's
	 * loads before the loads of the data they describe.
	 */
	mark = __atomic_load_n(&live->stop_mark, __ATOMIC_ACQUIRE);
	memcpy(h, live, sizeof(*h));
	h->stop_mark = mark;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return h->magic == TRACEBUF_HEADER_MAGIC &&
	       h->version == TRACEBUF_HEADER_VERSION &&
	       h->buffering_mode == tracebuf_layout_header_mode(t->info.mode) &&
	       h->total_size == t->info.buffer_size &&
	       h->durable_buffer_size == l->durable_size &&
	       h->rolling_buffer_size == l->rolling_size &&
	       h->durable_data_end <= l->durable_size &&
	       h->durable_data_end % 8 == 0 &&
	       h->rolling_data_end[0] <= l->rolling_size &&
	       h->rolling_data_end[0] % 8 == 0 &&
	       h->rolling_data_end[1] <= l->rolling_size &&
	       h->rolling_data_end[1] % 8 == 0;
}

/*
 * Cut a copied chunk to whole, plausible records, in place: zero words
 * (the unwritten tail of a crashed writer's chunk) are skipped, metadata
 * records (a provider must not write them) removed, and the chunk ends at
 * the first record that runs past it.  Returns the bytes kept.
 */
static size_t tb_sanitize(uint8_t *buf, size_t len, uint64_t *rejected)
{
	size_t off = 0, out = 0;

	len &= ~(size_t)7;
	while (off < len) {
		uint64_t h, words;
		unsigned int type;

		memcpy(&h, buf + off, 8);
		h = tracebuf_fxt_le64(h);
		if (!h) {
			off += 8;
			*rejected += 8;
			continue;
		}
		type = (unsigned int)(h & 15);
		words = tracebuf_fxt_record_words(h);
		if (!words || words > (len - off) / 8)
			break;
		if (type == TRACEBUF_LIB_FXT_RECORD_METADATA) {
			*rejected += words * 8;
		} else {
			if (out != off)
				memmove(buf + out, buf + off, (size_t)words * 8);
			out += (size_t)words * 8;
		}
		off += (size_t)words * 8;
	}
	*rejected += len - off;
	return out;
}

/*
 * Keep only the records of a sanitized chunk that decode: a record whose
 * contents do not (a bad string ref, an argument running past the record,
 * an unknown type field...) is removed, so that the file stays readable
 * after it, for this provider and every other.  Returns the bytes kept.
 */
static size_t tb_validate(struct tracebuf_session *s, uint8_t *buf, size_t len,
			  uint64_t *rejected, uint32_t *drop_windows)
{
	struct tracebuf_reader_record rec;
	size_t off = 0, out = 0;

	while (off < len) {
		struct tracebuf_reader *r;
		size_t good = 0;
		uint64_t h;
		int ret;

		if (tracebuf_reader_open_mem(buf + off, len - off, 0, &r)) {
			*rejected += len - off;	/* no memory to check it */
			break;
		}
		while ((ret = tracebuf_reader_next(r, &rec)) == 1) {
			good = rec.offset + rec.size;
			if (s->cats_unknown && rec.type == TRACEBUF_LIB_FXT_RECORD_EVENT)
				tracebuf_category_seen(s, rec.event.category.data,
						 rec.event.category.len);
			/* the engine's drop windows (event.c) */
			if (tracebuf_reader_drop_window(&rec, NULL))
				(*drop_windows)++;
		}
		tracebuf_reader_close(r);
		if (out != off && good)
			memmove(buf + out, buf + off, good);
		out += good;
		off += good;
		if (!ret || off >= len)
			break;
		/* skip the bad record: tb_sanitize() vouched for its size */
		memcpy(&h, buf + off, 8);
		h = tracebuf_fxt_le64(h);
		h = tracebuf_fxt_record_words(h) * 8;
		if (!h || h > len - off)
			h = len - off;
		*rejected += h;
		off += (size_t)h;
	}
	return out;
}

/* The provider info record the first time, a section record after. */
int tracebuf_readout_section(struct tracebuf_session *s, struct tb_tracee *t)
{
	uint64_t rec[1 + (TRACEBUF_NAME_MAX + 8) / 8];
	size_t name_len = strlen(t->info.name);
	int n;

	if (!t->info_written)
		n = tracebuf_fxt_provider_info_write(rec, sizeof(rec), t->info.id,
						     t->info.name, name_len);
	else
		n = tracebuf_fxt_provider_section_write(rec, sizeof(rec), t->info.id);
	if (n < 0)
		return n;
	t->info_written = true;
	return tracebuf_out_write(&s->out, rec, (size_t)n);
}

void tracebuf_readout_dropped(struct tracebuf_session *s, struct tb_tracee *t,
			    uint64_t dropped)
{
	uint64_t rec;

	t->info.records_dropped = dropped;
	if (dropped <= t->dropped_reported)
		return;
	t->dropped_reported = dropped;
	if (tracebuf_fxt_provider_event_write(&rec, sizeof(rec), t->info.id,
					      TRACEBUF_LIB_FXT_PROVIDER_EVENT_BUFFER_OVERFLOW) > 0)
		tracebuf_out_write(&s->out, &rec, sizeof(rec));
}

/* Copy [off, off + len) of t's buffer out, keep its whole records, write. */
int tracebuf_readout_range(struct tracebuf_session *s, struct tb_tracee *t,
		   uint64_t off, uint64_t len)
{
	size_t kept;

	if (!len)
		return 0;
	if (off > t->info.buffer_size || len > t->info.buffer_size - off)
		return -EINVAL;		/* a bug here, not the provider's */
	if (len > s->scratch_cap) {
		uint8_t *n = realloc(s->scratch, (size_t)len);

		if (!n)
			return -ENOMEM;
		s->scratch = n;
		s->scratch_cap = (size_t)len;
	}
	memcpy(s->scratch, t->map + off, (size_t)len);
	kept = tb_sanitize(s->scratch, (size_t)len, &t->info.bytes_rejected);
	kept = tb_validate(s, s->scratch, kept, &t->info.bytes_rejected,
			   &t->info.drop_windows);
	t->info.bytes_written += kept;
	return tracebuf_out_write(&s->out, s->scratch, kept);
}

/*
 * Write everything of @t not written yet (a stop, a termination or a
 * death; Documentation/trace-format.md §1.6).  @final: the provider sent STOPPED, so the
 * header's data ends are final; otherwise (it died, or never answered)
 * the buffer is walked record by record.
 */
void tracebuf_readout(struct tracebuf_session *s, struct tb_tracee *t, bool final)
{
	struct tracebuf_buffer_header h;
	const struct tb_layout *l = &t->lay;
	bool ok = tracebuf_readout_snapshot(t, &h);
	uint32_t mode = t->info.mode;
	uint64_t dend;
	int ret;

	if (!t->map || t->results_written)
		return;
	t->results_written = true;
	s->results_written = true;
	/* gone without STOPPED, but it stopped writing first (it exited) */
	if (!final && ok && h.stop_mark == TRACEBUF_HEADER_STOP_MARK)
		final = true;
	if (!ok && final)
		tracebuf_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -EINVAL,
			"its buffer header does not check out: reading records", NULL);
	if (!ok || !final) {
		final = false;
		t->info.crashed = t->info.state == TRACEBUF_LIB_TRACEE_GONE;
	}
	ret = tracebuf_readout_section(s, t);
	if (ok)
		tracebuf_readout_dropped(s, t, h.num_records_dropped);

	if (mode == TRACEBUF_MODE_ONESHOT) {
		/* its durable records lead the one rolling buffer */
		tracebuf_readout_range(s, t, l->rolling_off[0], final ? h.rolling_data_end[0] :
							 l->rolling_size);
		goto out;
	}

	/* the durable records not written yet */
	dend = final && h.durable_data_end >= t->durable_written ?
	       h.durable_data_end : l->durable_size;
	if (dend > t->durable_written)
		tracebuf_readout_range(s, t, l->durable_off + t->durable_written,
			dend - t->durable_written);
	if (final)
		t->durable_written = dend;

	if (mode == TRACEBUF_MODE_CIRCULAR) {
		if (!final) {
			/* no telling which half is older: both, 0 first */
			tracebuf_readout_range(s, t, l->rolling_off[0], l->rolling_size);
			tracebuf_readout_range(s, t, l->rolling_off[1], l->rolling_size);
			goto out;
		}
		if (h.wrapped_count > 0) {
			uint32_t e = (h.wrapped_count - 1) & 1;

			tracebuf_readout_range(s, t, l->rolling_off[e], h.rolling_data_end[e]);
		}
		tracebuf_readout_range(s, t, l->rolling_off[h.wrapped_count & 1],
			h.rolling_data_end[h.wrapped_count & 1]);
		goto out;
	}

	/*
	 * Streaming: the halves after the last one saved.  A half is zeroed
	 * by the provider when its save is acknowledged, so walking one
	 * never finds records already written.
	 */
	{
		uint32_t next = t->saved_any ? t->last_saved_wrap + 1 : 0;

		if (!final) {
			/*
			 * The half after the last one saved, then the one
			 * saved last, but only if the provider took the save's
			 * acknowledgement (zeroed it, then cleared its end).
			 */
			tracebuf_readout_range(s, t, l->rolling_off[next & 1], l->rolling_size);
			if (!t->saved_any || h.rolling_data_end[(next + 1) & 1] == 0)
				tracebuf_readout_range(s, t, l->rolling_off[(next + 1) & 1],
					l->rolling_size);
			goto out;
		}
		if (h.wrapped_count < next || h.wrapped_count - next > 1) {
			tracebuf_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -EINVAL,
				"its final wrapped count does not follow its saves", NULL);
			goto out;
		}
		for (uint32_t w = next; w <= h.wrapped_count; w++)
			tracebuf_readout_range(s, t, l->rolling_off[w & 1], h.rolling_data_end[w & 1]);
	}
out:
	if (ret || s->out.err)
		tracebuf_note(s, TRACEBUF_LIB_NOTE_ERROR, t, s->out.err ? s->out.err : ret,
			"writing its data failed", NULL);
}

/* ------------------------------------------------------------------------ */
/* Snapshots (Documentation/trace-format.md §1.7)                           */

/* The session's snapshot copy buffer, at least @len bytes. */
static uint8_t *tb_snap_copy(struct tracebuf_session *s, size_t len)
{
	if (len > s->snap_copy_cap) {
		uint8_t *n = realloc(s->snap_copy, len);

		if (!n)
			return NULL;
		s->snap_copy = n;
		s->snap_copy_cap = len;
	}
	return s->snap_copy;
}

/* Keep the whole, decoding records of a copied range, write them. */
static void tb_snap_write(struct tracebuf_session *s, uint8_t *buf, size_t len)
{
	uint64_t rejected = 0;
	uint32_t windows = 0;

	len = tb_sanitize(buf, len, &rejected);
	len = tb_validate(s, buf, len, &rejected, &windows);
	tracebuf_out_write(&s->snap->out, buf, len);
}

/*
 * SNAPSHOT_TAKEN: copy what @t's buffer holds up to @end of the rolling
 * buffer of @wrap, check that none of it was reused meanwhile, and write
 * it to the snapshot's file.  Nothing of @t's read-out state changes: the
 * session's own trace is not affected.  Returns true when its data is
 * in the snapshot, whole or in part (a note says what is left out).
 */
bool tracebuf_readout_taken(struct tracebuf_session *s, struct tb_tracee *t,
			    uint32_t wrap, uint64_t end)
{
	const struct tracebuf_buffer_header *live = (const void *)t->map;
	const struct tb_layout *l = &t->lay;
	struct tracebuf_buffer_header h;
	uint64_t off[3] = { 0, 0, 0 }, len[3] = { 0, 0, 0 }, rec[1 + (TRACEBUF_NAME_MAX + 8) / 8];
	bool circular = t->info.mode == TRACEBUF_MODE_CIRCULAR;
	size_t total = 0, at;
	bool earlier = true;
	uint32_t wc, wc2;
	uint8_t *copy;
	int n;

	if (!tracebuf_readout_snapshot(t, &h) || end % 8 || end > l->rolling_size ||
	    (!circular && wrap)) {
		tracebuf_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -EINVAL,
			      "its snapshot answer or buffer header does not check out", NULL);
		return false;
	}
	/* durable, earlier rolling buffer, current one (§1.7) */
	if (circular) {
		off[0] = l->durable_off;
		len[0] = h.durable_data_end;
		if (wrap) {
			off[1] = l->rolling_off[(wrap - 1) & 1];
			len[1] = l->rolling_size;
		}
	}
	off[2] = l->rolling_off[wrap & 1];
	len[2] = end;
	for (int i = 0; i < 3; i++)
		total += (size_t)len[i];
	copy = tb_snap_copy(s, total ? total : 8);
	if (!copy) {
		tracebuf_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -ENOMEM, "no memory for its snapshot",
			      NULL);
		return false;
	}
	/*
	 * The earlier rolling buffer first: it is reused as soon as the
	 * current one fills.  What was copied came before the count read
	 * after it; the durable bytes never move, the current buffer is
	 * reused one wrap later.
	 */
	memcpy(copy + len[0], t->map + off[1], (size_t)len[1]);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	wc = __atomic_load_n(&live->wrapped_count, __ATOMIC_RELAXED);
	memcpy(copy, t->map + off[0], (size_t)len[0]);
	memcpy(copy + len[0] + len[1], t->map + off[2], (size_t)len[2]);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	wc2 = __atomic_load_n(&live->wrapped_count, __ATOMIC_RELAXED);
	if (circular && wc2 != wrap && wc2 != wrap + 1) {
		tracebuf_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -ESTALE,
			      "its buffer wrapped twice while copied: its records are left out",
			      NULL);
		return false;
	}
	if (circular && wc != wrap) {
		earlier = false;
		tracebuf_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -ESTALE,
			      "its buffer wrapped while copied: its earlier records are left out",
			      NULL);
	}
	n = tracebuf_fxt_provider_info_write(rec, sizeof(rec), t->info.id, t->info.name,
					     strlen(t->info.name));
	if (n > 0)
		tracebuf_out_write(&s->snap->out, rec, (size_t)n);
	if (h.num_records_dropped &&
	    tracebuf_fxt_provider_event_write(rec, sizeof(rec), t->info.id,
					      TRACEBUF_LIB_FXT_PROVIDER_EVENT_BUFFER_OVERFLOW) > 0)
		tracebuf_out_write(&s->snap->out, rec, 8);
	at = 0;
	for (uint32_t i = 0; i < 3; i++) {
		if (i != 1 || earlier)
			tb_snap_write(s, copy + at, (size_t)len[i]);
		at += (size_t)len[i];
	}
	return true;
}

/* ------------------------------------------------------------------------ */
/* Which of the session's categories some provider knows                   */

/* Does the pattern @want (exact, or a prefix ending in '*') match @cat? */
static bool tb_category_matches(const char *want, const char *cat, size_t len)
{
	size_t wlen = strlen(want);

	if (wlen && want[wlen - 1] == '*')
		return len >= wlen - 1 && !memcmp(want, cat, wlen - 1);
	return len == wlen && !memcmp(want, cat, len);
}

/*
 * @cat (@len bytes) is known: so is every category of ours it matches.
 * (An exclusion, "-PATTERN", is known from the start: see session.c.)
 */
void tracebuf_category_seen(struct tracebuf_session *s, const char *cat, size_t len)
{
	const char *want = s->cats;

	for (uint32_t i = 0; i < s->cats_count; i++, want += strlen(want) + 1) {
		if (s->cat_known[i] || !tb_category_matches(want, cat, len))
			continue;
		s->cat_known[i] = true;
		s->cats_unknown--;
	}
}
