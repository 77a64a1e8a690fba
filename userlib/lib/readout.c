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
 *  - The layout is computed (layout_priv.h), never read from the buffer.
 *  - The header is read once per read-out into a local copy, stop_mark
 *    first, and checked against that layout
 *    (tb_readout_snapshot()); a header that does not check out is
 *    not used for anything but the dropped count's hint.
 *  - Each range is copied out first and only the copy is checked and
 *    written (tb_readout_range()): its whole records that decode,
 *    but metadata records, which only the manager writes (tb_keep()), so
 *    the file stays readable after them for every provider; padding,
 *    which holds no record, is left out too (but the smallest,
 *    tb_pad_kept()).  A save the
 *    kernel sealed is checked and written in place instead, but for the
 *    bytes on pages the seal does not cover (tb_readout_sealed()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <tracebuf_fxt.h>
#include <tracebuf_manager.h>
#include <tracebuf_reader.h>

#include "lib_priv.h"
#include "session_priv.h"

/*
 * A local copy of the header, and whether its fields agree with what the
 * kernel wrote and with each other.  A provider that died mid-way never
 * wrote the final values: then only the layout is used.
 */
bool tb_readout_snapshot(const struct tb_tracee *t, struct tracebuf_buffer_header *h)
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

static uint64_t tb_word(const uint8_t *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return tracebuf_fxt_le64(w);
}

/* The words of a string ref's inline stream: 0 for an index, or empty. */
static size_t tb_str_words(unsigned int ref)
{
	return ref & TRACEBUF_LIB_FXT_STRING_REF_INLINE ?
	       tracebuf_fxt_words(ref & TRACEBUF_LIB_FXT_STRING_INDEX_MAX) : 0;
}

/*
 * A plain event's shape: its header, and its arguments' headers but for
 * their values, with where they are.  Whether a record is plain depends on
 * nothing else (tb_plain()), so a record of the same shape is plain too.
 */
#define TB_SHAPE_ARGS	4

struct tb_shape {
	uint64_t h;				/* 0: none */
	size_t size;				/* in bytes */
	unsigned int nargs;
	struct tb_shape *next;			/* tb_keep()'s: the shape after
						 * it, last time
						 */
	uint32_t at[TB_SHAPE_ARGS];		/* in words */
	uint64_t mask[TB_SHAPE_ARGS];		/* what of the header is shape */
	uint64_t arg[TB_SHAPE_ARGS];		/* the header, masked */
};

/*
 * The shapes tb_keep() remembers, by their header: a provider's hot path
 * writes a few (a duration's begin and end, an instant with its args...)
 * one after the other.
 */
#define TB_SHAPES	16

/* murmur3's finalizer: every bit of @h moves the low ones */
static unsigned int tb_shape_slot(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (unsigned int)h % TB_SHAPES;
}

/* What of an argument's header is its shape: all but a 32-bit value. */
static uint64_t tb_arg_mask(uint64_t a)
{
	return (a & 15) == TRACEBUF_LIB_FXT_ARG_STRING ? 0xffffffffffffull : 0xffffffffull;
}

/*
 * Whether the record at @p, @words words long (its header says so), is an
 * event of the shape a provider's hot path writes, which
 * tracebuf_reader_next() decodes by construction: a known event type, its
 * category by index, its thread and name by index or inline, arguments of
 * the fixed-size types and strings, every size exact.  Those are most of
 * a buffer, and are kept without a decode.  False leaves the record to the
 * reader: this is stricter than the reader, never looser (hostile_test
 * checks the reader decodes whatever this accepts).  A category by index
 * also leaves libtracebuf's own drop windows (inline) to the reader.
 * When plain, its shape goes to @sh, if not NULL.
 */
static bool tb_plain(const uint8_t *p, size_t words, struct tb_shape *sh)
{
	uint64_t h = tb_word(p);
	unsigned int type = (unsigned int)tracebuf_fxt_get(h, 16, 19);
	unsigned int nargs = (unsigned int)tracebuf_fxt_get(h, 20, 23);
	unsigned int cat = (unsigned int)tracebuf_fxt_get(h, 32, 47);
	size_t end = words - (tracebuf_fxt_event_has_extra(type) ? 1 : 0);
	size_t at = 2 + (tracebuf_fxt_get(h, 24, 31) ? 0 : 2) +
		    tb_str_words((unsigned int)tracebuf_fxt_get(h, 48, 63));
	struct tb_shape shape = {
		.h = nargs <= TB_SHAPE_ARGS ? h : 0, .size = words * 8, .nargs = nargs,
	};

	if ((h & 15) != TRACEBUF_LIB_FXT_RECORD_EVENT || type > TRACEBUF_LIB_FXT_EVENT_TYPE_MAX ||
	    !cat || (cat & TRACEBUF_LIB_FXT_STRING_REF_INLINE) || words < 2 ||
	    tracebuf_fxt_record_words(h) != words)
		return false;
	for (unsigned int i = 0; i < nargs; i++) {
		uint64_t a, size;

		if (at >= end)
			return false;
		a = tb_word(p + at * 8);
		size = 1 + tb_str_words((unsigned int)tracebuf_fxt_get(a, 16, 31));
		switch (a & 15) {
		case TRACEBUF_LIB_FXT_ARG_NULL:
		case TRACEBUF_LIB_FXT_ARG_INT32:
		case TRACEBUF_LIB_FXT_ARG_UINT32:
		case TRACEBUF_LIB_FXT_ARG_BOOL:
			break;
		case TRACEBUF_LIB_FXT_ARG_INT64:
		case TRACEBUF_LIB_FXT_ARG_UINT64:
		case TRACEBUF_LIB_FXT_ARG_DOUBLE:
		case TRACEBUF_LIB_FXT_ARG_POINTER:
		case TRACEBUF_LIB_FXT_ARG_KOID:
			size++;
			break;
		case TRACEBUF_LIB_FXT_ARG_STRING:
			size += tb_str_words((unsigned int)tracebuf_fxt_get(a, 32, 47));
			break;
		default:
			return false;
		}
		if (tracebuf_fxt_get(a, 4, 15) != size || size > end - at)
			return false;
		if (i < TB_SHAPE_ARGS) {
			shape.at[i] = (uint32_t)at;
			shape.mask[i] = tb_arg_mask(a);
			shape.arg[i] = a & shape.mask[i];
		}
		at += (size_t)size;
	}
	if (at != end)
		return false;
	if (sh)
		*sh = shape;
	return true;
}

/*
 * Whether the record at @p, with room for @sh's size, has the shape @sh:
 * a compare a word.
 */
static inline bool tb_shape_same(const struct tb_shape *sh, const uint8_t *p)
{
	if (tb_word(p) != sh->h)
		return false;
	for (unsigned int i = 0; i < sh->nargs; i++)
		if ((tb_word(p + sh->at[i] * 8) & sh->mask[i]) != sh->arg[i])
			return false;
	return true;
}

/*
 * A cycle of shapes that a hot path writes over and over (a duration's
 * begin, an instant, its end...): tb_keep() learns it from the shapes'
 * next links, and then compares a whole cycle at a time, the words of it
 * that are shape (every header, each argument's header but for its
 * value), with one branch.  A record that matches is as plain as one
 * that matches its shape (tb_shape_same()): the same words, compared the
 * same way.
 */
#define TB_CYCLE_SHAPES	8
#define TB_CYCLE_WORDS	(TB_CYCLE_SHAPES * (1 + TB_SHAPE_ARGS))

/*
 * Where the processor has them (x86-64 with AVX2), a short cycle is also
 * compared flat (tb_cycles_flat()): the mask and value of every word of
 * as many turns (1, 2, 4 or 8) as fill whole TB_FLAT_BLOCKs, in the
 * buffer's byte order, 0 and 0 for the words that are not shape (a
 * timestamp, an argument's value), so that a few turns at a time go in
 * vectors, every word of them, with one branch.  The same words are
 * compared the same way as tb_cycle_same() compares them.  In 16-byte
 * vectors (SSE2) that took longer than tb_cycle_pass()'s word at a time,
 * and in 64-byte ones (AVX-512) no less time than in 32-byte ones.
 */
#if defined(__x86_64__) && defined(__GNUC__)
#define TB_FLAT		1
#else
#define TB_FLAT		0
#endif
#define TB_FLAT_BLOCK	64			/* bytes: two vectors */
#define TB_FLAT_WORDS	64			/* at most, in all */

struct tb_cycle {
	const struct tb_shape *first;		/* NULL: none learnt */
	size_t size;				/* in bytes */
	unsigned int n;
	uint32_t at[TB_CYCLE_WORDS];		/* in bytes, from the first */
	uint64_t mask[TB_CYCLE_WORDS];
	uint64_t val[TB_CYCLE_WORDS];
#if TB_FLAT
	size_t flat;				/* bytes of the flat form; 0: none */
	uint64_t flat_mask[TB_FLAT_WORDS];
	uint64_t flat_val[TB_FLAT_WORDS];
#endif
};

/* @c's flat form, if the processor compares one and the turns are short. */
static void tb_cycle_flatten(struct tb_cycle *c)
{
#if TB_FLAT
	size_t words = c->size / 8, turns = 1;

	c->flat = 0;
	if (!__builtin_cpu_supports("avx2"))
		return;
	while ((words * turns) % (TB_FLAT_BLOCK / 8))
		turns *= 2;
	if (words * turns > TB_FLAT_WORDS)
		return;
	memset(c->flat_mask, 0, words * turns * 8);
	memset(c->flat_val, 0, words * turns * 8);
	for (size_t t = 0; t < turns; t++) {
		for (unsigned int i = 0; i < c->n; i++) {
			size_t w = t * words + c->at[i] / 8;

			c->flat_mask[w] = tracebuf_fxt_le64(c->mask[i]);
			c->flat_val[w] = tracebuf_fxt_le64(c->val[i]);
		}
	}
	c->flat = words * turns * 8;
#else
	(void)c;
#endif
}

/* @sh, its next, ... back to @sh, if that is a cycle short enough. */
static void tb_cycle_learn(struct tb_cycle *c, const struct tb_shape *sh)
{
	const struct tb_shape *x = sh;
	unsigned int shapes = 0, n = 0;
	size_t words = 0;

	do {
		if (!x || !x->h || ++shapes > TB_CYCLE_SHAPES)
			return;
		c->at[n] = (uint32_t)words * 8;
		c->mask[n] = ~0ull;
		c->val[n++] = x->h;
		for (unsigned int i = 0; i < x->nargs; i++, n++) {
			c->at[n] = ((uint32_t)words + x->at[i]) * 8;
			c->mask[n] = x->mask[i];
			c->val[n] = x->arg[i];
		}
		words += x->size / 8;
		x = x->next;
	} while (x != sh);
	c->n = n;
	c->size = words * 8;
	c->first = sh;
	tb_cycle_flatten(c);
}

/* Whether the bytes at @p, at least @c's size, are a whole cycle of @c. */
static inline bool tb_cycle_same(const struct tb_cycle *c, const uint8_t *p)
{
	uint64_t d = 0;

	for (unsigned int i = 0; i < c->n; i++)
		d |= (tb_word(p + c->at[i]) & c->mask[i]) ^ c->val[i];
	return !d;
}

/*
 * The chain's hits between attempts to learn a cycle, and the attempts
 * per call: a hot path's cycle shows within a few of its turns.
 */
#define TB_CYCLE_AFTER	64
#define TB_CYCLE_TRIES	4

/*
 * The turns of a cycle @size bytes long from @p (at most @max, a multiple
 * of TB_CYCLE_STEP) whose word at @p of each passes the compare of a
 * word of the cycle (@mask, @val): how many, a multiple of
 * TB_CYCLE_STEP.  TB_CYCLE_STEP turns a step, up to the step that holds
 * the first one that differs.  A word compared is one load (under
 * emulation, where loads cost the most, a turn at a time, which also
 * loads each word's offset, mask and value, took twice as long), a
 * header's (all of it is shape) without its mask.  @ahead: the first
 * pass over the turns, the first to load them; it also has the bytes
 * TB_CYCLE_AHEAD further on fetched, a line a turn, into the second-level
 * cache, ahead of the processor's own prefetch, which stops at the end of
 * a page, so that the next block's load overlaps this one's compares.
 */
#define TB_CYCLE_STEP	8
#define TB_CYCLE_AHEAD	4096

static inline __attribute__((always_inline)) size_t
tb_cycle_pass(const uint8_t *p, size_t size, size_t max, uint64_t mask, uint64_t val, bool ahead)
{
	const size_t size2 = 2 * size, size3 = 3 * size;
	size_t k;

	for (k = 0; k < max; k += TB_CYCLE_STEP, p += TB_CYCLE_STEP * size) {
		const uint8_t *q = p + 4 * size, *a = p + TB_CYCLE_AHEAD, *b = q + TB_CYCLE_AHEAD;
		uint64_t d;

		if (ahead) {
			__builtin_prefetch(a, 0, 1);
			__builtin_prefetch(a + size, 0, 1);
			__builtin_prefetch(a + size2, 0, 1);
			__builtin_prefetch(a + size3, 0, 1);
			__builtin_prefetch(b, 0, 1);
			__builtin_prefetch(b + size, 0, 1);
			__builtin_prefetch(b + size2, 0, 1);
			__builtin_prefetch(b + size3, 0, 1);
		}
		if (mask == ~0ull)
			d = (tb_word(p) ^ val) | (tb_word(p + size) ^ val) |
			    (tb_word(p + size2) ^ val) | (tb_word(p + size3) ^ val) |
			    (tb_word(q) ^ val) | (tb_word(q + size) ^ val) |
			    (tb_word(q + size2) ^ val) | (tb_word(q + size3) ^ val);
		else
			d = ((tb_word(p) & mask) ^ val) | ((tb_word(p + size) & mask) ^ val) |
			    ((tb_word(p + size2) & mask) ^ val) |
			    ((tb_word(p + size3) & mask) ^ val) |
			    ((tb_word(q) & mask) ^ val) | ((tb_word(q + size) & mask) ^ val) |
			    ((tb_word(q + size2) & mask) ^ val) |
			    ((tb_word(q + size3) & mask) ^ val);
		if (d)
			break;
	}
	return k;
}

#if TB_FLAT
typedef uint64_t tb_vec __attribute__((vector_size(32)));

/*
 * The flat form's whole turns (tb_cycle_flatten()) from @off in @buf
 * (@len bytes), its span at a time, up to the span that holds one that
 * differs: the offset after them.  The bytes TB_CYCLE_AHEAD further on
 * are fetched as tb_cycle_pass() fetches them.
 */
__attribute__((target("avx2")))
static size_t tb_cycles_flat(const struct tb_cycle *c, const uint8_t *buf, size_t off,
			     size_t len)
{
	const uint8_t *fm = (const uint8_t *)c->flat_mask, *fv = (const uint8_t *)c->flat_val;
	const size_t span = c->flat;

	for (; span <= len - off; off += span) {
		const uint8_t *p = buf + off;
		uint64_t w[sizeof(tb_vec) / 8];
		tb_vec d = { 0 };

		for (size_t j = 0; j < span; j += TB_FLAT_BLOCK) {
			tb_vec x0, x1, m0, m1, v0, v1;

			__builtin_prefetch(p + j + TB_CYCLE_AHEAD, 0, 1);
			memcpy(&x0, p + j, 32);
			memcpy(&x1, p + j + 32, 32);
			memcpy(&m0, fm + j, 32);
			memcpy(&m1, fm + j + 32, 32);
			memcpy(&v0, fv + j, 32);
			memcpy(&v1, fv + j + 32, 32);
			d |= ((x0 & m0) ^ v0) | ((x1 & m1) ^ v1);
		}
		memcpy(w, &d, sizeof(w));
		if (w[0] | w[1] | w[2] | w[3])
			break;
	}
	return off;
}
#endif

/*
 * The whole cycles of @c from @off in @buf (@len bytes): the offset after
 * them.  With a flat form (tb_cycles_flat()), that, then the few turns
 * after it turn by turn.  Else a block of at most TB_CYCLE_BLOCK turns at
 * a time (its bytes stay in the first-level cache for the passes after
 * the first): the first word of every turn (a header), up to the step
 * where it differs (a thread's chunk, whose padding is where the cycle
 * breaks, ends at any turn: 73 turns of 56 bytes in 4 KiB), then each
 * other word in turn over the turns that passed; the last few turn by
 * turn, up to the first that is not a cycle.  A turn passes only where
 * tb_cycle_same() would.
 */
#define TB_CYCLE_BLOCK	256	/* a multiple of TB_CYCLE_STEP */

static size_t tb_cycles(const struct tb_cycle *c, const uint8_t *buf, size_t off, size_t len)
{
	const size_t size = c->size;

#if TB_FLAT
	if (c->flat) {
		off = tb_cycles_flat(c, buf, off, len);
		goto rest;
	}
#endif
	for (;;) {
		size_t max = (len - off) / size, k;
		unsigned int i;

		if (max > TB_CYCLE_BLOCK)
			max = TB_CYCLE_BLOCK;
		max -= max % TB_CYCLE_STEP;
		k = tb_cycle_pass(buf + off + c->at[0], size, max, c->mask[0], c->val[0], true);
		for (i = 1; k && i < c->n; i++)
			if (tb_cycle_pass(buf + off + c->at[i], size, k, c->mask[i], c->val[i],
					  false) != k)
				break;
		if (!k || i < c->n)
			break;		/* what differs, turn by turn */
		off += k * size;
		if (k < max)
			break;
	}
#if TB_FLAT
rest:
#endif
	while (size <= len - off && tb_cycle_same(c, buf + off))
		off += size;
	return off;
}

/*
 * The padding at @p, @left bytes before the end, as the engine ends a
 * thread's chunk with it (tracebuf_fxt_pad_write()): its bytes, or 0.  A
 * blob whose payload no reader looks into (it holds whatever the buffer
 * held before); a slow writer's buffer has one every few KiB, an idle
 * one's is all padding.
 */
static size_t tb_pad(const uint8_t *p, size_t left)
{
	uint64_t h = tb_word(p), words = tracebuf_fxt_record_words(h);

	if (!words || words > left / 8 || h != tracebuf_fxt_pad_header((size_t)words))
		return 0;
	return (size_t)words * 8;
}

/*
 * Whether a pad of @size bytes after @recs bytes of records (since the
 * last pad kept, or the run's start) stays in the run, as it is: one that
 * ends a fast writer's chunk, smaller than the record that did not fit,
 * costs more cut out (one more piece for the write to gather, and as
 * many runs of records as chunks, where a fast writer's would go out
 * whole) than it adds to the file.  At most TB_PAD_KEPT bytes (7 words
 * of what the buffer held before), and 1/TB_PAD_SHARE of the records
 * before it, so that no file holds more than that of padding.  Any other
 * is left out.
 */
#define TB_PAD_KEPT	64
#define TB_PAD_SHARE	128

static inline bool tb_pad_kept(size_t size, size_t recs)
{
	return size <= TB_PAD_KEPT && size * TB_PAD_SHARE <= recs;
}

bool tb_readout_plain_event(const uint8_t *p, size_t words)
{
	return tb_plain(p, words, NULL);
}

size_t tb_readout_pad(const uint8_t *p, size_t left)
{
	return tb_pad(p, left);
}

/* tb_keep()'s runs of records, written TB_OUT_PIECES at a time */
struct tb_runs {
	struct iovec v[TB_OUT_PIECES];
	unsigned int n;
};

static void tb_run(struct tb_out *o, struct tb_runs *r, const uint8_t *p, size_t len)
{
	if (!len)
		return;
	if (r->n == TB_OUT_PIECES) {
		tb_out_writev(o, r->v, r->n);
		r->n = 0;
	}
	r->v[r->n].iov_base = (void *)p;
	r->v[r->n++].iov_len = len;
}

/*
 * The reader tb_keep() checks @buf's records with.  While some of the
 * session's categories are not known yet (tb_category_seen()), an
 * event's category is a ref to a string of the provider's durable
 * records, which are elsewhere (streaming, circular) or were written
 * before (a oneshot flush): they come first in a copy, read once, so
 * that the refs resolve.  *@base: where @buf starts in what @r reads;
 * *@copy: the copy to free, or NULL.
 */
static int tb_keep_reader(struct tracebuf_session *s, const uint8_t *buf, size_t len,
			  struct tracebuf_reader **r, size_t *base, uint8_t **copy)
{
	struct tracebuf_reader_record rec;
	size_t dlen = s->cats_unknown ? s->keep_durable_len & ~(size_t)7 : 0;
	int ret;

	*base = 0;
	*copy = NULL;
	if (!dlen || !s->keep_durable)
		return tracebuf_reader_open_mem(buf, len, 0, r);
	*copy = malloc(dlen + len);
	if (!*copy)
		return -ENOMEM;
	memcpy(*copy, s->keep_durable, dlen);
	memcpy(*copy + dlen, buf, len);
	ret = tracebuf_reader_open_mem(*copy, dlen + len, 0, r);
	if (ret)
		return ret;
	for (size_t off = 0; off < dlen && tb_reader_next_at(*r, off, &rec) == 1;)
		off += rec.size;
	*base = dlen;
	return 0;
}

/*
 * Write the records of a copied chunk that are whole and decode, to @o,
 * from where they are: runs of kept records, gathered into as few writes
 * as their number allows (tb_out_writev(): large ones are not
 * copied again).  Left out: padding (the engine's, tb_pad(), but for
 * what tb_pad_kept() keeps), zero words (the unwritten tail of a crashed
 * writer's chunk), metadata records (a provider must not write them),
 * records whose contents do not decode (a bad string ref, an argument
 * running past the record, an unknown type field...), so that the file
 * stays readable after them, for this provider and every other; and from
 * the first record that runs past the chunk, the rest.  Plain events
 * (tb_readout_plain_event()) are kept as they are, the others
 * decoded by a reader over the chunk.  Returns the bytes kept; adds to
 * *@rejected the bytes left out that held something but padding: not
 * zero words, nor the zeros at the end of the rest; to *@padding (if
 * not NULL) the padding left out.
 */
static size_t tb_keep(struct tracebuf_session *s, struct tb_out *o, const uint8_t *buf,
		      size_t len, uint64_t *rejected, uint64_t *padding, uint32_t *drop_windows)
{
	struct tb_shape shapes[TB_SHAPES] = { 0 }, sh, pad = { 0 };
	size_t off = 0, run = 0, since = 0, kept = 0;
	struct tracebuf_reader_record rec;
	struct tracebuf_reader *r = NULL;
	unsigned int hits = 0, tries = 0;
	uint8_t *rcopy = NULL;
	struct tb_runs runs;
	size_t rbase = 0;
	struct tb_cycle cyc;

	cyc.first = NULL;
	cyc.size = 0;
	runs.n = 0;

	len &= ~(size_t)7;
	while (off < len) {
		struct tb_shape *seen, *prev;
		size_t size, gap = 0;
		uint64_t h, words;
		bool keep;

		/*
		 * Most records have the shape of a plain one before, and most
		 * often the shape that followed the one before last time: the
		 * next offset then does not wait for a header's load.  Where
		 * a cycle of those starts, whole cycles go first.
		 */
		for (prev = NULL; off < len; prev = seen, off += seen->size) {
			seen = prev ? prev->next : NULL;
			if (seen && seen == cyc.first) {
				off = tb_cycles(&cyc, buf, off, len);
				if (off >= len)
					break;
			}
			if (seen && seen->size <= len - off && tb_shape_same(seen, buf + off)) {
				if (!cyc.first && ++hits % TB_CYCLE_AFTER == 0 &&
				    tries++ < TB_CYCLE_TRIES)
					tb_cycle_learn(&cyc, seen);
				continue;
			}
			/*
			 * A chunk's padding, kept: the record after it is the
			 * one predicted here (so a cycle goes on after it).
			 */
			pad.size = tb_pad(buf + off, len - off);
			if (pad.size && tb_pad_kept(pad.size, off - since)) {
				since = off + pad.size;
				pad.next = seen;
				seen = &pad;
				continue;
			}
			gap = pad.size;
			if (gap)
				break;
			seen = &shapes[tb_shape_slot(tb_word(buf + off))];
			if (!seen->h || seen->size > len - off || !tb_shape_same(seen, buf + off))
				break;
			if (prev)
				prev->next = seen;
		}
		if (off >= len)
			break;
		h = tb_word(buf + off);
		words = tracebuf_fxt_record_words(h);
		size = (size_t)words * 8;
		if (gap) {
			size = gap;
			keep = false;
		} else if (!h) {
			size = 8;
			keep = false;
		} else if (!words || words > (len - off) / 8) {
			break;
		} else if ((h & 15) == TRACEBUF_LIB_FXT_RECORD_METADATA) {
			keep = false;
		} else if (!s->cats_unknown && tb_plain(buf + off, (size_t)words, &sh)) {
			keep = true;
			if (sh.h)
				shapes[tb_shape_slot(sh.h)] = sh;
		} else if (!r && tb_keep_reader(s, buf, len, &r, &rbase, &rcopy)) {
			break;		/* no memory to check it: left out */
		} else {
			keep = tb_reader_next_at(r, rbase + off, &rec) == 1 && rec.size == size;
			if (keep && s->cats_unknown && rec.type == TRACEBUF_LIB_FXT_RECORD_EVENT)
				tb_category_seen(s, rec.event.category.data,
						 rec.event.category.len);
			/* the engine's drop windows (event.c) */
			if (keep && tracebuf_reader_drop_window(&rec, NULL))
				(*drop_windows)++;
		}
		if (!keep) {
			tb_run(o, &runs, buf + run, off - run);
			kept += off - run;
			/* a zero word held no record: nothing was lost there */
			if (gap && padding)
				*padding += gap;
			else if (!gap)
				*rejected += h ? size : 0;
			run = since = off + size;
		}
		off += size;
	}
	if (off > run) {
		tb_run(o, &runs, buf + run, off - run);
		kept += off - run;
	}
	tb_out_writev(o, runs.v, runs.n);
	/* the rest, from a record that runs past: up to its last non-zero word */
	while (len > off && !tb_word(buf + len - 8))
		len -= 8;
	*rejected += len - off;
	tracebuf_reader_close(r);
	free(rcopy);
	return kept;
}

size_t tb_readout_keep(struct tracebuf_session *s, struct tb_out *o, const uint8_t *buf,
		       size_t len, uint64_t *rejected, uint64_t *padding,
		       uint32_t *drop_windows)
{
	return tb_keep(s, o, buf, len, rejected, padding, drop_windows);
}

/*
 * tb_keep() of @len bytes at @buf, copied out of @t's buffer, to the
 * session's output, counted as @t's; @t's durable records resolve the
 * category refs (tb_keep_reader()).
 */
static void tb_keep_tracee(struct tracebuf_session *s, struct tb_tracee *t, const uint8_t *buf,
			   size_t len)
{
	if (t->info.mode == TRACEBUF_MODE_ONESHOT) {
		s->keep_durable = t->map + t->lay.rolling_off[0];
		s->keep_durable_len = (size_t)tb_oneshot_durable(t->lay.rolling_size);
	} else {
		s->keep_durable = t->map + t->lay.durable_off;
		s->keep_durable_len = (size_t)t->lay.durable_size;
	}
	t->info.bytes_written += tb_keep(s, &s->out, buf, len, &t->info.bytes_rejected, NULL,
					 &t->info.drop_windows);
	s->keep_durable = NULL;
	s->keep_durable_len = 0;
}

/* The provider info record the first time, a section record after. */
int tb_readout_section(struct tracebuf_session *s, struct tb_tracee *t)
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
	return tb_out_write(&s->out, rec, (size_t)n);
}

void tb_readout_dropped(struct tracebuf_session *s, struct tb_tracee *t,
			uint64_t dropped)
{
	uint64_t rec;

	if (!tb_dropped_credible(t, dropped)) {
		if (!t->dropped_lie_noted)
			tb_tracee_error(s, t, -EINVAL,
					"its header claims more records dropped than it could have dropped");
		t->dropped_lie_noted = true;
		t->info.dropped_doubtful = true;
	}
	t->info.records_dropped = dropped;
	if (t->info.dropped_doubtful)
		return;
	if (dropped <= t->dropped_reported)
		return;
	t->dropped_reported = dropped;
	if (tracebuf_fxt_provider_event_write(&rec, sizeof(rec), t->info.id,
					      TRACEBUF_LIB_FXT_PROVIDER_EVENT_BUFFER_OVERFLOW) > 0)
		tb_out_write(&s->out, &rec, sizeof(rec));
}

/* The session's scratch copy of a read-out, at least @len bytes, or NULL. */
static uint8_t *tb_scratch(struct tracebuf_session *s, uint64_t len)
{
	if (len > s->scratch_cap) {
		uint8_t *n = realloc(s->scratch, (size_t)len);

		if (!n)
			return NULL;
		s->scratch = n;
		s->scratch_cap = (size_t)len;
	}
	return s->scratch;
}

/* Copy [off, off + len) of t's buffer out, keep its whole records, write. */
int tb_readout_range(struct tracebuf_session *s, struct tb_tracee *t,
		     uint64_t off, uint64_t len)
{
	if (!len)
		return 0;
	if (off > t->info.buffer_size || len > t->info.buffer_size - off)
		return -EINVAL;		/* a bug here, not the provider's */
	if (!tb_scratch(s, len))
		return -ENOMEM;
	memcpy(s->scratch, t->map + off, (size_t)len);
	tb_keep_tracee(s, t, s->scratch, (size_t)len);
	return s->out.err;
}

/*
 * A save the kernel sealed (TRACEBUF_SAVE_SEALED), or a rolling buffer
 * its stop did (TRACEBUF_STOPPED_SEALED0, 1): the first @len bytes of
 * rolling buffer @rb, checked and written in place.  Its pages that lie
 * wholly inside the rolling buffer do not change until our BUFFER_SAVED,
 * or the next START (uapi header, TRACEBUF_INIT_F_SEAL_SAVES); the bytes
 * before the first of them and after the last share a page with the
 * durable or the other rolling buffer, which the provider may still
 * write, so they are copied, into the private pages of a view that maps
 * the sealed pages between them: one range to walk and write, the size
 * of a page or two copied.
 */
int tb_readout_sealed(struct tracebuf_session *s, struct tb_tracee *t,
		      unsigned int rb, uint64_t len)
{
	struct tb_seal_view *v = &t->view[rb];
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t off = t->lay.rolling_off[rb], end = off + len;
	__u64 first, last;
	uint8_t *p;

	if (len > t->lay.rolling_size)
		return -EINVAL;		/* a bug here, not the provider's */
	tracebuf_layout_sealed(t->info.buffer_size, t->info.mode, rb, page, &first, &last);
	if (last == first || end <= first)
		return tb_readout_range(s, t, off, len);	/* nothing sealed */
	if (!v->base) {
		size_t vlen = (size_t)(last - first + 2 * page);

		p = mmap(NULL, vlen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return tb_readout_range(s, t, off, len);
		if (mmap(p + page, (size_t)(last - first), PROT_READ, MAP_SHARED | MAP_FIXED,
			 t->buffer_fd, (off_t)first) == MAP_FAILED) {
			munmap(p, vlen);
			return tb_readout_range(s, t, off, len);
		}
		v->base = p;
		v->len = vlen;
	}
	p = v->base + page - (first - off);
	memcpy(p, t->map + off, (size_t)(first - off));
	if (end > last)
		memcpy(v->base + page + (last - first), t->map + last, (size_t)(end - last));
	tb_keep_tracee(s, t, p, (size_t)len);
	return s->out.err;
}

void tb_readout_views_free(struct tb_tracee *t)
{
	for (unsigned int i = 0; i < 2; i++) {
		if (t->view[i].base)
			munmap(t->view[i].base, t->view[i].len);
		t->view[i].base = NULL;
	}
}

/*
 * Oneshot, once a flush wrote part of the buffer: the durable records
 * again (strings, threads: libtracebuf's engine keeps them in the first
 * tb_oneshot_durable() bytes, at most @end), so that what comes after
 * the mark reads alone.  Whatever else is there, written before the mark,
 * is left out: zeroed in a copy, as the walk skips zeros.
 */
static int tb_oneshot_durable_again(struct tracebuf_session *s, struct tb_tracee *t,
				    uint64_t end)
{
	uint64_t d = tb_oneshot_durable(t->lay.rolling_size), *w;
	size_t n, i = 0;

	if (d > end)
		d = end;
	if (!d)
		return 0;
	/* the scratch copy, not the snapshot's: a flush's may be in use */
	w = (uint64_t *)(void *)tb_scratch(s, d);
	if (!w)
		return -ENOMEM;
	memcpy(w, t->map + t->lay.rolling_off[0], (size_t)d);
	n = (size_t)d / 8;
	while (i < n) {
		uint64_t size = tracebuf_fxt_get(w[i], 4, 15);
		unsigned int type = (unsigned int)tracebuf_fxt_get(w[i], 0, 3);

		if (!w[i]) {
			i++;
			continue;
		}
		if (!size || size > n - i) {
			memset(w + i, 0, (n - i) * 8);
			break;
		}
		if (type != TRACEBUF_LIB_FXT_RECORD_INIT && type != TRACEBUF_LIB_FXT_RECORD_STRING &&
		    type != TRACEBUF_LIB_FXT_RECORD_THREAD && type != TRACEBUF_LIB_FXT_RECORD_KERNEL_OBJECT)
			memset(w + i, 0, (size_t)size * 8);
		i += (size_t)size;
	}
	tb_keep_tracee(s, t, (const uint8_t *)w, (size_t)d);
	return s->out.err;
}

/*
 * Circular: the records of the rolling buffer of @wrap, up to @end, that
 * no flush wrote (tb_readout_flushed()'s mark).
 */
static void tb_readout_after_mark(struct tracebuf_session *s, struct tb_tracee *t,
				  uint32_t wrap, uint64_t end)
{
	uint64_t from = 0;

	if (t->mark_set && t->mark_wrap > wrap)
		return;
	if (t->mark_set && t->mark_wrap == wrap)
		from = t->mark_end;
	if (end > from)
		tb_readout_range(s, t, t->lay.rolling_off[wrap & 1] + from, end - from);
}

/*
 * Write everything of @t not written yet (a stop, a termination or a
 * death; Documentation/trace-format.md §1.6).  @final: the provider sent STOPPED, so the
 * header's data ends are final; otherwise (it died, or never answered)
 * the buffer is walked record by record.
 */
void tb_readout(struct tracebuf_session *s, struct tb_tracee *t, bool final)
{
	struct tracebuf_buffer_header h;
	const struct tb_layout *l = &t->lay;
	bool ok = tb_readout_snapshot(t, &h);
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
		tb_tracee_error(s, t, -EINVAL,
				"its buffer header does not check out: reading records");
	if (!ok || !final) {
		final = false;
		t->info.crashed = t->info.state == TRACEBUF_LIB_TRACEE_GONE;
	}
	ret = tb_readout_section(s, t);
	if (ok)
		tb_readout_dropped(s, t, h.num_records_dropped);

	if (mode == TRACEBUF_MODE_ONESHOT) {
		/* its durable records lead the one rolling buffer; a flush's mark */
		uint64_t from = t->mark_set ? t->mark_end : 0;
		uint64_t to = final ? h.rolling_data_end[0] : l->rolling_size;

		if (t->mark_set)
			tb_oneshot_durable_again(s, t, from);
		if (to >= from)
			tb_readout_range(s, t, l->rolling_off[0] + from, to - from);
		goto out;
	}

	/* the durable records not written yet */
	dend = final && h.durable_data_end >= t->durable_written ?
	       h.durable_data_end : l->durable_size;
	if (dend > t->durable_written)
		tb_readout_range(s, t, l->durable_off + t->durable_written,
				 dend - t->durable_written);
	if (final)
		t->durable_written = dend;

	if (mode == TRACEBUF_MODE_CIRCULAR) {
		if (!final && !t->mark_set) {
			/* no telling which rolling buffer is older: both, 0 first */
			tb_readout_range(s, t, l->rolling_off[0], l->rolling_size);
			tb_readout_range(s, t, l->rolling_off[1], l->rolling_size);
			goto out;
		}
		if (!final) {
			/* after the mark: its rolling buffer's rest, then the other one */
			uint32_t m = t->mark_wrap & 1;

			tb_readout_range(s, t, l->rolling_off[m] + t->mark_end,
					 l->rolling_size - t->mark_end);
			tb_readout_range(s, t, l->rolling_off[m ^ 1], l->rolling_size);
			goto out;
		}
		if (h.wrapped_count > 0)
			tb_readout_after_mark(s, t, h.wrapped_count - 1,
					      h.rolling_data_end[(h.wrapped_count - 1) & 1]);
		tb_readout_after_mark(s, t, h.wrapped_count,
				      h.rolling_data_end[h.wrapped_count & 1]);
		goto out;
	}

	/*
	 * Streaming: the rolling buffers after the last one saved.  A rolling
	 * buffer is zeroed by the provider when its save is acknowledged, so
	 * walking one never finds records already written.
	 */
	{
		uint32_t next = t->saved_any ? t->last_saved_wrap + 1 : 0;

		if (!final) {
			/*
			 * The rolling buffer after the last one saved, then the
			 * one saved last, but only if the provider took the
			 * save's acknowledgement (zeroed it, then cleared its
			 * end).
			 */
			tb_readout_range(s, t, l->rolling_off[next & 1], l->rolling_size);
			if (!t->saved_any || h.rolling_data_end[(next + 1) & 1] == 0)
				tb_readout_range(s, t, l->rolling_off[(next + 1) & 1],
						 l->rolling_size);
			goto out;
		}
		/*
		 * It may have stopped in the rolling buffer it asked to save
		 * last (its save came first): nothing of it is left to write
		 * then.
		 */
		if (t->saved_any && h.wrapped_count == t->last_saved_wrap)
			goto out;
		if (h.wrapped_count < next || h.wrapped_count - next > 1) {
			tb_tracee_error(s, t, -EINVAL,
					"its final wrapped count does not follow its saves");
			goto out;
		}
		/* in place where the stop sealed it, as a sealed save */
		for (uint32_t w = next; w <= h.wrapped_count; w++) {
			if (t->stop_sealed & (TRACEBUF_STOPPED_SEALED0 << (w & 1)))
				tb_readout_sealed(s, t, w & 1, h.rolling_data_end[w & 1]);
			else
				tb_readout_range(s, t, l->rolling_off[w & 1],
						 h.rolling_data_end[w & 1]);
		}
	}
out:
	if (ret || s->out.err)
		tb_tracee_error(s, t, s->out.err ? s->out.err : ret,
				"writing its data failed");
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

	tb_keep(s, &s->snap->out, buf, len, &rejected, NULL, &windows);
}

/*
 * Copy ranges @off, @len of @t's buffer (durable, earlier rolling buffer,
 * current one, of @wrap) into the session's snapshot copy, back to back.
 * The earlier rolling buffer first: it is reused as soon as the current
 * one fills.  What was copied came before the count read after it; the
 * durable bytes never move, the current buffer is reused one wrap later.
 * Returns the copy (NULL: no memory), and in circular mode whether the
 * earlier one is whole (*@earlier) and the current one was reused too
 * (*@twice).
 */
static uint8_t *tb_copy_taken(struct tracebuf_session *s, const struct tb_tracee *t,
			      uint32_t wrap, const uint64_t off[3], const uint64_t len[3],
			      bool *earlier, bool *twice)
{
	const struct tracebuf_buffer_header *live = (const void *)t->map;
	bool circular = t->info.mode == TRACEBUF_MODE_CIRCULAR;
	size_t total = (size_t)(len[0] + len[1] + len[2]);
	uint8_t *copy = tb_snap_copy(s, total ? total : 8);
	uint32_t wc, wc2;

	if (!copy)
		return NULL;
	memcpy(copy + len[0], t->map + off[1], (size_t)len[1]);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	wc = __atomic_load_n(&live->wrapped_count, __ATOMIC_RELAXED);
	memcpy(copy, t->map + off[0], (size_t)len[0]);
	memcpy(copy + len[0] + len[1], t->map + off[2], (size_t)len[2]);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	wc2 = __atomic_load_n(&live->wrapped_count, __ATOMIC_RELAXED);
	*earlier = !circular || wc == wrap;
	*twice = circular && wc2 != wrap && wc2 != wrap + 1;
	return copy;
}

/*
 * SNAPSHOT_TAKEN: copy what @t's buffer holds up to @end of the rolling
 * buffer of @wrap, check that none of it was reused meanwhile, and write
 * it to the snapshot's file.  Nothing of @t's read-out state changes: the
 * session's own trace is not affected.  Returns 1 when its data is in
 * the snapshot, whole or in part (a note says what is left out), 0 when
 * none is, and -EAGAIN, writing nothing, when the provider reused what
 * was copied and @may_retry: then the caller asks it again.
 */
int tb_readout_taken(struct tracebuf_session *s, struct tb_tracee *t,
		     uint32_t wrap, uint64_t end, bool may_retry)
{
	const struct tb_layout *l = &t->lay;
	struct tracebuf_buffer_header h;
	uint64_t off[3] = { 0, 0, 0 }, len[3] = { 0, 0, 0 }, rec[1 + (TRACEBUF_NAME_MAX + 8) / 8];
	bool circular = t->info.mode == TRACEBUF_MODE_CIRCULAR;
	bool earlier, twice;
	uint8_t *copy;
	size_t at;
	int n;

	if (!tb_readout_snapshot(t, &h) || end % 8 || end > l->rolling_size ||
	    (!circular && wrap)) {
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -EINVAL,
			"its snapshot answer or buffer header does not check out", NULL);
		return 0;
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
	copy = tb_copy_taken(s, t, wrap, off, len, &earlier, &twice);
	if (!copy) {
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -ENOMEM, "no memory for its snapshot",
			NULL);
		return 0;
	}
	/* torn by a provider writing faster than we answer: ask again */
	if ((!earlier || twice) && may_retry)
		return -EAGAIN;
	if (twice) {
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -ESTALE,
			"its buffer wrapped twice while copied: its records are left out",
			NULL);
		return 0;
	}
	if (!earlier)
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -ESTALE,
			"its buffer wrapped while copied: its earlier records are left out",
			NULL);
	n = tracebuf_fxt_provider_info_write(rec, sizeof(rec), t->info.id, t->info.name,
					     strlen(t->info.name));
	if (n > 0)
		tb_out_write(&s->snap->out, rec, (size_t)n);
	if (h.num_records_dropped &&
	    tracebuf_fxt_provider_event_write(rec, sizeof(rec), t->info.id,
					      TRACEBUF_LIB_FXT_PROVIDER_EVENT_BUFFER_OVERFLOW) > 0)
		tb_out_write(&s->snap->out, rec, 8);
	at = 0;
	for (uint32_t i = 0; i < 3; i++) {
		if (i != 1 || earlier)
			tb_snap_write(s, copy + at, (size_t)len[i]);
		at += (size_t)len[i];
	}
	return 1;
}

/*
 * SNAPSHOT_TAKEN of a flush (circular and oneshot): write what @t
 * recorded up to @end of the rolling buffer of @wrap and after the mark
 * (what the last flush wrote), to the session's own output, as its stop
 * would, and move the mark there; its stop then writes only what came
 * after.  In circular mode what the provider overwrote since the mark
 * is gone, as it would be at a stop; its durable records are written
 * whole, by each flush and by the stop, so that each reads alone.  Returns 1 when written, 0 when
 * nothing is (a note says why), -EAGAIN as tb_readout_taken().
 */
int tb_readout_flushed(struct tracebuf_session *s, struct tb_tracee *t,
		       uint32_t wrap, uint64_t end, bool may_retry)
{
	const struct tb_layout *l = &t->lay;
	bool circular = t->info.mode == TRACEBUF_MODE_CIRCULAR;
	uint64_t off[3] = { 0, 0, 0 }, len[3] = { 0, 0, 0 }, from;
	struct tracebuf_buffer_header h;
	bool earlier, twice, torn;
	uint8_t *copy;
	size_t at = 0;
	int ret;

	if (!tb_readout_snapshot(t, &h) || end % 8 || end > l->rolling_size ||
	    (!circular && wrap) || (t->mark_set && (wrap < t->mark_wrap ||
	    (wrap == t->mark_wrap && end < t->mark_end))) ||
	    h.durable_data_end > l->durable_size) {
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -EINVAL,
			"its answer to a flush or its buffer header does not check out",
			NULL);
		return 0;
	}
	/*
	 * durable, earlier rolling buffer, current one.  The durable records
	 * all, each time, and left for the stop too: what a flush writes
	 * reads alone, whatever was written before it (a log that keeps its
	 * newest parts drops the older ones).
	 */
	if (circular) {
		off[0] = l->durable_off;
		len[0] = h.durable_data_end;
		if (wrap && (!t->mark_set || t->mark_wrap < wrap)) {
			from = t->mark_set && t->mark_wrap == wrap - 1 ? t->mark_end : 0;
			off[1] = l->rolling_off[(wrap - 1) & 1] + from;
			len[1] = l->rolling_size - from;
		}
	}
	from = t->mark_set && t->mark_wrap == wrap ? t->mark_end : 0;
	off[2] = l->rolling_off[wrap & 1] + from;
	len[2] = end - from;
	copy = tb_copy_taken(s, t, wrap, off, len, &earlier, &twice);
	if (!copy) {
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -ENOMEM, "no memory for its flush",
			NULL);
		return 0;
	}
	torn = !earlier || twice;
	if (torn && may_retry)
		return -EAGAIN;
	if (torn) {
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -ESTALE,
			"its buffer wrapped while copied for a flush: it is left to the stop",
			NULL);
		return 0;
	}
	ret = tb_readout_section(s, t);
	tb_readout_dropped(s, t, h.num_records_dropped);
	/* after the mark, oneshot's durable records again: the part reads alone */
	if (!ret && !circular && t->mark_set)
		ret = tb_oneshot_durable_again(s, t, t->mark_end);
	for (int i = 0; i < 3 && !ret; i++) {
		tb_keep_tracee(s, t, copy + at, (size_t)len[i]);
		at += (size_t)len[i];
	}
	if (ret || s->out.err) {
		tb_tracee_error(s, t, s->out.err ? s->out.err : ret,
				"writing its flush failed");
		return 0;
	}
	t->mark_set = true;
	t->mark_wrap = wrap;
	t->mark_end = end;
	return 1;
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
 * Does an inclusion of the session's categories name @cat (@len bytes):
 * match it, and is more than "*" alone?  (What takes a kernel provider:
 * session.c.)
 */
bool tb_categories_name(const struct tracebuf_session *s, const char *cat, size_t len)
{
	const char *want = s->cats;

	for (uint32_t i = 0; i < s->cats_count; i++, want += strlen(want) + 1)
		if (want[0] != '-' && strcmp(want, "*") && tb_category_matches(want, cat, len))
			return true;
	return false;
}

/*
 * @cat (@len bytes) is known: so is every category of ours it matches.
 * (An exclusion, "-PATTERN", is known from the start: see session.c.)
 */
void tb_category_seen(struct tracebuf_session *s, const char *cat, size_t len)
{
	const char *want = s->cats;

	for (uint32_t i = 0; i < s->cats_count; i++, want += strlen(want) + 1) {
		if (s->cat_known[i] || !tb_category_matches(want, cat, len))
			continue;
		s->cat_known[i] = true;
		s->cats_unknown--;
	}
}
