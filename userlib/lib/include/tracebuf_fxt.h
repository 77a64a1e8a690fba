/* SPDX-License-Identifier: MIT */
/*
 * tracebuf_fxt.h: an encoder for FXT, the Fuchsia Trace Format.
 *
 * Header-only and C11: every function is static inline, allocates nothing
 * and calls nothing from libc but memcpy().  Section numbers (§) refer to
 * userlib/Documentation/trace-format.md §4 in tracebuf's source tree,
 * which follows Fuchsia's docs/reference/tracing/trace-format.md and
 * zircon/system/ulib/trace-engine/include/lib/trace-engine/fields.h.
 *
 * Format in brief (§4.1).  A trace is a sequence of records.  A record is
 * a whole number of 64-bit words, stored little-endian, at most 0xfff
 * words (32760 bytes) long.  Its first word is the header:
 *
 *   [0..3] record type   [4..15] size in words, header included
 *   [16..63] type-specific, unused bits zero
 *
 * `[lo..hi]` is an inclusive range of bits of a word.  Strings are
 * "streams": their bytes, zero-padded to a multiple of 8 (no terminator,
 * nothing added to a length that is already a multiple of 8).  A string
 * ref is 16 bits: 0 the empty string, 1..0x7fff an index into the string
 * table (set by a string record), 0x8000 | length an inline string whose
 * stream follows in the record.  A thread ref is 8 bits: 0 means the
 * process and thread koids follow inline (two words), 1..255 index the
 * thread table (set by a thread record).
 *
 * Two ways to write a record:
 *
 *  - tracebuf_fxt_<record>_size() returns its size in bytes (or -errno),
 *    tracebuf_fxt_<record>_write(dst, cap, ...) checks everything and
 *    writes it at dst (8-byte aligned, cap bytes available), returning the
 *    number of bytes written or -errno.  No partial record is ever written
 *    on error.
 *
 *  - the hot path for events: describe the event once, compute its
 *    "shape" (header word and size) with tracebuf_fxt_event_shape(), then
 *    for every occurrence reserve shape.size bytes and call
 *    tracebuf_fxt_event_put(), which only stores words (no checks):
 *
 *	static struct tracebuf_fxt_event_shape shape;   // once
 *	...
 *	ev.ticks = now(); ev.args[0].i64 = value;
 *	uint64_t *p = reserve(shape.size);
 *	if (p) tracebuf_fxt_event_put(p, &shape, &ev);
 *
 *    The shape stays valid while the event's type, thread ref, string refs
 *    (index or inline length), argument count, argument types and
 *    argument names are unchanged; timestamps, koids, numeric values and
 *    the extra word may change freely.
 *
 * Errors: -EINVAL for a value out of its field (bad type, index 0 where
 * one is required, NULL data with a non-zero length), -E2BIG when a record
 * would exceed 0xfff words, an inline string exceeds
 * TRACEBUF_LIB_FXT_STRING_MAX, or more than 15 arguments are given,
 * -ENOSPC when cap is too small.
 */
#ifndef TRACEBUF_FXT_H
#define TRACEBUF_FXT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Limits and numbers (§4.1-§4.4)                                           */

/* The magic record (§4.3, trace info type 0): first 8 bytes of a file. */
#define TRACEBUF_LIB_FXT_MAGIC			0x0016547846040010ULL
#define TRACEBUF_LIB_FXT_MAGIC_VALUE		0x16547846u	/* [24..55] */

/*
 * The category of the records libtracebuf and tracebufctl write
 * themselves (a window of dropped records, a buffer overflow); a
 * provider's records in it are not taken for theirs.
 */
#define TRACEBUF_LIB_META_CATEGORY		"tracebuf:meta"
#define TRACEBUF_LIB_META_CATEGORY_LEN		(sizeof(TRACEBUF_LIB_META_CATEGORY) - 1)
/*
 * A window of dropped records: a duration-complete event in
 * TRACEBUF_LIB_META_CATEGORY named TRACEBUF_LIB_META_DROPPED, from the
 * first record dropped to the first one written after, with the number
 * dropped as its uint64 argument TRACEBUF_LIB_META_DROPPED_COUNT
 * (tracebuf_reader_drop_window() recognises it).
 */
#define TRACEBUF_LIB_META_DROPPED		"records dropped"
#define TRACEBUF_LIB_META_DROPPED_COUNT		"count"

#define TRACEBUF_LIB_FXT_WORD			8u
#define TRACEBUF_LIB_FXT_RECORD_MAX_WORDS	0xfffu
#define TRACEBUF_LIB_FXT_RECORD_MAX		(0xfffu * 8u)	/* 32760 bytes */
#define TRACEBUF_LIB_FXT_STRING_INDEX_MAX	0x7fffu
#define TRACEBUF_LIB_FXT_STRING_REF_INLINE	0x8000u
/*
 * Longest string this encoder writes, inline or in a string record: the
 * 15-bit length field allows 0x7fff, but Fuchsia's engine truncates to
 * 32000 and its reader rejects longer inline strings (§4.1).
 */
#define TRACEBUF_LIB_FXT_STRING_MAX		32000u
#define TRACEBUF_LIB_FXT_THREAD_INDEX_MAX	0xffu
#define TRACEBUF_LIB_FXT_ARGS_MAX		15u
#define TRACEBUF_LIB_FXT_PROVIDER_NAME_MAX	0xffu	/* §4.3 [52..59] */
#define TRACEBUF_LIB_FXT_BLOB_SIZE_MAX		0x7fffu	/* §4.2 [32..46] */
#define TRACEBUF_LIB_FXT_INIT_SIZE		16u
#define TRACEBUF_LIB_FXT_THREAD_SIZE		24u

/* Record types: header [0..3] (§4.2). */
enum tracebuf_fxt_record_type {
	TRACEBUF_LIB_FXT_RECORD_METADATA = 0,
	TRACEBUF_LIB_FXT_RECORD_INIT = 1,
	TRACEBUF_LIB_FXT_RECORD_STRING = 2,
	TRACEBUF_LIB_FXT_RECORD_THREAD = 3,
	TRACEBUF_LIB_FXT_RECORD_EVENT = 4,
	TRACEBUF_LIB_FXT_RECORD_BLOB = 5,
	TRACEBUF_LIB_FXT_RECORD_USERSPACE_OBJECT = 6,
	TRACEBUF_LIB_FXT_RECORD_KERNEL_OBJECT = 7,
	TRACEBUF_LIB_FXT_RECORD_SCHEDULING = 8,
	TRACEBUF_LIB_FXT_RECORD_LOG = 9,
	TRACEBUF_LIB_FXT_RECORD_LARGE = 15,	/* size in [4..35] */
};

/* Metadata record types: [16..19] of a metadata record (§4.3). */
enum tracebuf_fxt_metadata_type {
	TRACEBUF_LIB_FXT_META_PROVIDER_INFO = 1,
	TRACEBUF_LIB_FXT_META_PROVIDER_SECTION = 2,
	TRACEBUF_LIB_FXT_META_PROVIDER_EVENT = 3,
	TRACEBUF_LIB_FXT_META_TRACE_INFO = 4,
};

/* Provider event ids: [52..55] of a provider event record (§4.3). */
#define TRACEBUF_LIB_FXT_PROVIDER_EVENT_BUFFER_OVERFLOW	0u
/* Trace info types: [20..23] of a trace info record (§4.3). */
#define TRACEBUF_LIB_FXT_TRACE_INFO_MAGIC		0u

/* Event types: [16..19] of an event record (§4.2). */
enum tracebuf_fxt_event_type {
	TRACEBUF_LIB_FXT_EVENT_INSTANT = 0,
	TRACEBUF_LIB_FXT_EVENT_COUNTER = 1,		/* extra: counter id */
	TRACEBUF_LIB_FXT_EVENT_DURATION_BEGIN = 2,
	TRACEBUF_LIB_FXT_EVENT_DURATION_END = 3,
	TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE = 4,	/* extra: end ticks */
	TRACEBUF_LIB_FXT_EVENT_ASYNC_BEGIN = 5,		/* extra: async id */
	TRACEBUF_LIB_FXT_EVENT_ASYNC_INSTANT = 6,	/* extra: async id */
	TRACEBUF_LIB_FXT_EVENT_ASYNC_END = 7,		/* extra: async id */
	TRACEBUF_LIB_FXT_EVENT_FLOW_BEGIN = 8,		/* extra: flow id */
	TRACEBUF_LIB_FXT_EVENT_FLOW_STEP = 9,		/* extra: flow id */
	TRACEBUF_LIB_FXT_EVENT_FLOW_END = 10,		/* extra: flow id */
};
#define TRACEBUF_LIB_FXT_EVENT_TYPE_MAX		10u

/* Argument types: [0..3] of an argument header (§4.4). */
enum tracebuf_fxt_arg_type {
	TRACEBUF_LIB_FXT_ARG_NULL = 0,
	TRACEBUF_LIB_FXT_ARG_INT32 = 1,		/* value in [32..63] */
	TRACEBUF_LIB_FXT_ARG_UINT32 = 2,	/* value in [32..63] */
	TRACEBUF_LIB_FXT_ARG_INT64 = 3,		/* value word follows */
	TRACEBUF_LIB_FXT_ARG_UINT64 = 4,	/* value word follows */
	TRACEBUF_LIB_FXT_ARG_DOUBLE = 5,	/* value word follows */
	TRACEBUF_LIB_FXT_ARG_STRING = 6,	/* value string ref in [32..47] */
	TRACEBUF_LIB_FXT_ARG_POINTER = 7,	/* value word follows */
	TRACEBUF_LIB_FXT_ARG_KOID = 8,		/* value word follows */
	TRACEBUF_LIB_FXT_ARG_BOOL = 9,		/* value in bit 32 */
	TRACEBUF_LIB_FXT_ARG_BLOB = 10,		/* byte size in [32..63], the bytes
						 * follow (newer Fuchsia)
						 */
};

/* Blob types: [48..55] of a blob record (§4.2). */
enum tracebuf_fxt_blob_type {
	TRACEBUF_LIB_FXT_BLOB_DATA = 1,
	TRACEBUF_LIB_FXT_BLOB_LAST_BRANCH = 2,
	TRACEBUF_LIB_FXT_BLOB_PERFETTO = 3,
};

/* Kernel object types (ZX_OBJ_TYPE_*): [16..23] of a kernel object record. */
#define TRACEBUF_LIB_FXT_OBJ_PROCESS	1u
#define TRACEBUF_LIB_FXT_OBJ_THREAD	2u

/* Scheduling event types: [60..63] of a scheduling record (§4.2). */
#define TRACEBUF_LIB_FXT_SCHED_LEGACY_SWITCH	0u	/* read, never written */
#define TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH	1u
#define TRACEBUF_LIB_FXT_SCHED_THREAD_WAKEUP	2u

/* A context switch's outgoing thread state (ZX_THREAD_STATE_*, §4.2). */
#define TRACEBUF_LIB_FXT_THREAD_NEW		0u
#define TRACEBUF_LIB_FXT_THREAD_RUNNING		1u	/* preempted: runnable */
#define TRACEBUF_LIB_FXT_THREAD_SUSPENDED	2u	/* stopped */
#define TRACEBUF_LIB_FXT_THREAD_BLOCKED		3u	/* sleeping */
#define TRACEBUF_LIB_FXT_THREAD_DYING		4u
#define TRACEBUF_LIB_FXT_THREAD_DEAD		5u
#define TRACEBUF_LIB_FXT_SCHED_CPU_MAX		0xffffu

/* ------------------------------------------------------------------------ */
/* Words, fields, streams                                                   */

/* A CPU word as stored in a trace (little-endian), and back. */
static inline uint64_t tracebuf_fxt_le64(uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return __builtin_bswap64(w);
#else
	return w;
#endif
}

/* value placed in bits [lo..hi] (0 <= lo <= hi <= 63), excess bits dropped. */
static inline uint64_t tracebuf_fxt_field(uint64_t value, unsigned int lo,
					  unsigned int hi)
{
	uint64_t mask = hi - lo >= 63 ? ~0ULL : (1ULL << (hi - lo + 1)) - 1;

	return (value & mask) << lo;
}

/* Bits [lo..hi] of word. */
static inline uint64_t tracebuf_fxt_get(uint64_t word, unsigned int lo,
					unsigned int hi)
{
	uint64_t mask = hi - lo >= 63 ? ~0ULL : (1ULL << (hi - lo + 1)) - 1;

	return (word >> lo) & mask;
}

/* A record's size in words, from its header word (type 15: [4..35]). */
static inline uint64_t tracebuf_fxt_record_words(uint64_t header)
{
	return tracebuf_fxt_get(header, 0, 3) == TRACEBUF_LIB_FXT_RECORD_LARGE ?
	       tracebuf_fxt_get(header, 4, 35) :
	       tracebuf_fxt_get(header, 4, 15);
}

/* bytes rounded up to a multiple of 8: the size of a stream. */
static inline size_t tracebuf_fxt_pad(size_t bytes)
{
	return (bytes + 7) & ~(size_t)7;
}

/* The number of words a stream of bytes occupies. */
static inline size_t tracebuf_fxt_words(size_t bytes)
{
	return (bytes + 7) / 8;
}

/*
 * Strings are UTF-8 (§4.4), and a reader may refuse one that is not.
 * tracebuf_fxt_utf8_len() - the length of the well-formed UTF-8 sequence
 * at @s, of the @len (at least 1) bytes there, or 0 (Unicode's table
 * 3-7: no overlong forms, no surrogates, nothing above U+10FFFF).
 */
static inline size_t tracebuf_fxt_utf8_len(const unsigned char *s, size_t len)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (s[0] == 0xed)
			hi = 0x9f;	/* surrogates */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		if (s[0] == 0xf0)
			lo = 0x90;	/* overlong */
		else if (s[0] == 0xf4)
			hi = 0x8f;	/* beyond U+10FFFF */
	} else {
		return 0;
	}
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * tracebuf_fxt_utf8() - whether the @len bytes at @data are UTF-8 (NUL
 * is a character), so that a string may hold them; other bytes go in a
 * blob (argument type 10, §4.4).  Eight ASCII bytes cost a load and a
 * test, and the first byte that cannot be UTF-8 ends the scan.
 */
static inline bool tracebuf_fxt_utf8(const void *data, size_t len)
{
	const unsigned char *s = (const unsigned char *)data;
	size_t i = 0, n;

	while (i < len) {
		uint64_t w;

		if (len - i >= 8) {
			memcpy(&w, s + i, 8);
			if (!(w & 0x8080808080808080ull)) {
				i += 8;
				continue;
			}
		}
		n = tracebuf_fxt_utf8_len(s + i, len - i);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

/* A record header: [0..3] type, [4..15] size in words (§4.1). */
static inline uint64_t tracebuf_fxt_header(unsigned int type, size_t bytes)
{
	return tracebuf_fxt_field(type, 0, 3) |
	       tracebuf_fxt_field(bytes / 8, 4, 15);
}

/* Store one word at p; returns the next word. */
static inline uint64_t *tracebuf_fxt_put(uint64_t *p, uint64_t word)
{
	*p = tracebuf_fxt_le64(word);
	return p + 1;
}

/*
 * Store len bytes as a stream at p (zero padding included); returns the
 * word after it.  len 0 stores nothing.
 */
static inline uint64_t *tracebuf_fxt_put_stream(uint64_t *p, const void *data,
						size_t len)
{
	size_t words = tracebuf_fxt_words(len);

	if (!words)
		return p;
	p[words - 1] = 0;	/* the padding; the copy overwrites the rest */
	memcpy(p, data, len);
	return p + words;
}

/* ------------------------------------------------------------------------ */
/* String refs and thread refs (§4.1)                                       */

/*
 * A string as a record refers to it: index != 0 is a string-table index
 * (1..0x7fff) and data/len are ignored; index == 0 is an inline string of
 * len bytes at data (need not be NUL-terminated), or the empty string when
 * len == 0.
 */
struct tracebuf_fxt_str {
	const char *data;
	size_t len;
	uint16_t index;
};

static inline struct tracebuf_fxt_str tracebuf_fxt_str_index(uint16_t index)
{
	struct tracebuf_fxt_str s = { NULL, 0, index };

	return s;
}

static inline struct tracebuf_fxt_str tracebuf_fxt_str_inline(const char *data,
							      size_t len)
{
	struct tracebuf_fxt_str s = { data, len, 0 };

	return s;
}

static inline struct tracebuf_fxt_str tracebuf_fxt_str_empty(void)
{
	struct tracebuf_fxt_str s = { NULL, 0, 0 };

	return s;
}

/* 0 if s can be encoded, else -EINVAL or -E2BIG. */
static inline int tracebuf_fxt_str_check(const struct tracebuf_fxt_str *s)
{
	if (s->index)
		return s->index <= TRACEBUF_LIB_FXT_STRING_INDEX_MAX ? 0 : -EINVAL;
	if (s->len > TRACEBUF_LIB_FXT_STRING_MAX)
		return -E2BIG;
	return s->len && !s->data ? -EINVAL : 0;
}

/* The 16-bit string ref of s (s checked). */
static inline uint16_t tracebuf_fxt_str_ref(const struct tracebuf_fxt_str *s)
{
	if (s->index)
		return s->index;
	return s->len ? (uint16_t)(TRACEBUF_LIB_FXT_STRING_REF_INLINE | s->len) : 0;
}

/* Bytes s occupies inside a record: its padded stream if inline, else 0. */
static inline size_t tracebuf_fxt_str_size(const struct tracebuf_fxt_str *s)
{
	return s->index ? 0 : tracebuf_fxt_pad(s->len);
}

/* Store the inline stream of s, if any. */
static inline uint64_t *tracebuf_fxt_put_str(uint64_t *p,
					     const struct tracebuf_fxt_str *s)
{
	return s->index ? p : tracebuf_fxt_put_stream(p, s->data, s->len);
}

/*
 * A thread as a record refers to it: index 1..255 is a thread-table index
 * (koids ignored); index 0 puts the two koids inline.  Fuchsia's engine
 * writes an unknown thread as inline koids 0, 0.
 */
struct tracebuf_fxt_thread {
	uint64_t process_koid;
	uint64_t thread_koid;
	uint8_t index;
};

static inline struct tracebuf_fxt_thread tracebuf_fxt_thread_index(uint8_t index)
{
	struct tracebuf_fxt_thread t = { 0, 0, index };

	return t;
}

static inline struct tracebuf_fxt_thread
tracebuf_fxt_thread_inline(uint64_t process_koid, uint64_t thread_koid)
{
	struct tracebuf_fxt_thread t = { process_koid, thread_koid, 0 };

	return t;
}

static inline size_t tracebuf_fxt_thread_ref_size(const struct tracebuf_fxt_thread *t)
{
	return t->index ? 0 : 16;
}

static inline uint64_t *tracebuf_fxt_put_thread(uint64_t *p,
						const struct tracebuf_fxt_thread *t)
{
	if (t->index)
		return p;
	p = tracebuf_fxt_put(p, t->process_koid);
	return tracebuf_fxt_put(p, t->thread_koid);
}

/* ------------------------------------------------------------------------ */
/* Arguments (§4.4)                                                         */

/*
 * One argument: its type (TRACEBUF_LIB_FXT_ARG_*), its name and the member
 * of the union that the type selects (a blob's bytes: str, always inline).
 *
 * Argument header: [0..3] type, [4..15] size in words (header included),
 * [16..31] name ref, [32..63] type-specific; then the inline name stream,
 * then the value word (int64, uint64, double, pointer, koid) or the inline
 * value stream (string; blob: its bytes, their size in [32..63]).
 *
 * FXT strings are UTF-8; bytes that are not go in a blob argument
 * (argument type 10 of the Fuchsia trace format's newest text,
 * https://fuchsia.dev/fuchsia-src/reference/tracing/trace-format), which
 * a reader that does not know it skips by its size.
 */
struct tracebuf_fxt_arg {
	unsigned int type;
	struct tracebuf_fxt_str name;
	union {
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;
		double dbl;
		struct tracebuf_fxt_str str;
		uint64_t ptr;
		uint64_t koid;
		bool b;
	};
};

/* Constructors, one per type. */
static inline struct tracebuf_fxt_arg tracebuf_fxt_arg_null(struct tracebuf_fxt_str name)
{
	struct tracebuf_fxt_arg a;

	a.type = TRACEBUF_LIB_FXT_ARG_NULL;
	a.name = name;
	a.str = tracebuf_fxt_str_empty();	/* the largest member: all of the value */
	return a;
}

#define TRACEBUF_LIB_FXT_ARG_CTOR(fn, ctype, member, argtype)		\
static inline struct tracebuf_fxt_arg					\
tracebuf_fxt_arg_##fn(struct tracebuf_fxt_str name, ctype value)	\
{									\
	struct tracebuf_fxt_arg a = tracebuf_fxt_arg_null(name);	\
									\
	a.type = argtype;						\
	a.member = value;						\
	return a;							\
}
TRACEBUF_LIB_FXT_ARG_CTOR(int32, int32_t, i32, TRACEBUF_LIB_FXT_ARG_INT32)
TRACEBUF_LIB_FXT_ARG_CTOR(uint32, uint32_t, u32, TRACEBUF_LIB_FXT_ARG_UINT32)
TRACEBUF_LIB_FXT_ARG_CTOR(int64, int64_t, i64, TRACEBUF_LIB_FXT_ARG_INT64)
TRACEBUF_LIB_FXT_ARG_CTOR(uint64, uint64_t, u64, TRACEBUF_LIB_FXT_ARG_UINT64)
TRACEBUF_LIB_FXT_ARG_CTOR(double, double, dbl, TRACEBUF_LIB_FXT_ARG_DOUBLE)
TRACEBUF_LIB_FXT_ARG_CTOR(string, struct tracebuf_fxt_str, str,
			  TRACEBUF_LIB_FXT_ARG_STRING)
TRACEBUF_LIB_FXT_ARG_CTOR(pointer, uint64_t, ptr, TRACEBUF_LIB_FXT_ARG_POINTER)
TRACEBUF_LIB_FXT_ARG_CTOR(koid, uint64_t, koid, TRACEBUF_LIB_FXT_ARG_KOID)
TRACEBUF_LIB_FXT_ARG_CTOR(bool, bool, b, TRACEBUF_LIB_FXT_ARG_BOOL)
#undef TRACEBUF_LIB_FXT_ARG_CTOR

/* @len bytes at @data, as they are (at most TRACEBUF_LIB_FXT_STRING_MAX). */
static inline struct tracebuf_fxt_arg tracebuf_fxt_arg_blob(struct tracebuf_fxt_str name,
							    const void *data, size_t len)
{
	struct tracebuf_fxt_arg a = tracebuf_fxt_arg_null(name);

	a.type = TRACEBUF_LIB_FXT_ARG_BLOB;
	a.str = tracebuf_fxt_str_inline((const char *)data, len);
	return a;
}

/* Whether an argument of this type carries a value word after its name. */
static inline bool tracebuf_fxt_arg_has_word(unsigned int type)
{
	return type == TRACEBUF_LIB_FXT_ARG_INT64 ||
	       type == TRACEBUF_LIB_FXT_ARG_UINT64 ||
	       type == TRACEBUF_LIB_FXT_ARG_DOUBLE ||
	       type == TRACEBUF_LIB_FXT_ARG_POINTER ||
	       type == TRACEBUF_LIB_FXT_ARG_KOID;
}

/* Size of one argument in bytes, or -EINVAL / -E2BIG. */
static inline int tracebuf_fxt_arg_size(const struct tracebuf_fxt_arg *a)
{
	size_t size = 8;
	int ret;

	if (a->type > TRACEBUF_LIB_FXT_ARG_BLOB ||
	    (a->type == TRACEBUF_LIB_FXT_ARG_BLOB && a->str.index))
		return -EINVAL;
	ret = tracebuf_fxt_str_check(&a->name);
	if (ret)
		return ret;
	size += tracebuf_fxt_str_size(&a->name);
	if (tracebuf_fxt_arg_has_word(a->type))
		size += 8;
	if (a->type == TRACEBUF_LIB_FXT_ARG_STRING || a->type == TRACEBUF_LIB_FXT_ARG_BLOB) {
		ret = tracebuf_fxt_str_check(&a->str);
		if (ret)
			return ret;
		size += tracebuf_fxt_str_size(&a->str);
	}
	if (size > TRACEBUF_LIB_FXT_RECORD_MAX - 8)
		return -E2BIG;
	return (int)size;
}

/* Total size of n arguments, or -errno (-E2BIG for n > 15). */
static inline int tracebuf_fxt_args_size(const struct tracebuf_fxt_arg *args,
					 unsigned int n)
{
	size_t total = 0;
	unsigned int i;

	if (n > TRACEBUF_LIB_FXT_ARGS_MAX)
		return -E2BIG;
	if (n && !args)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		int size = tracebuf_fxt_arg_size(&args[i]);

		if (size < 0)
			return size;
		total += (size_t)size;
		if (total > TRACEBUF_LIB_FXT_RECORD_MAX)
			return -E2BIG;
	}
	return (int)total;
}

/* Store one checked argument at p; returns the word after it. */
static inline uint64_t *tracebuf_fxt_put_arg(uint64_t *p,
					     const struct tracebuf_fxt_arg *a)
{
	size_t words = 1 + tracebuf_fxt_str_size(&a->name) / 8;
	uint64_t w = 0;
	uint64_t value = 0;

	if (tracebuf_fxt_arg_has_word(a->type))
		words++;
	switch (a->type) {
	case TRACEBUF_LIB_FXT_ARG_INT32:
		w = tracebuf_fxt_field((uint32_t)a->i32, 32, 63);
		break;
	case TRACEBUF_LIB_FXT_ARG_UINT32:
		w = tracebuf_fxt_field(a->u32, 32, 63);
		break;
	case TRACEBUF_LIB_FXT_ARG_INT64:
		value = (uint64_t)a->i64;
		break;
	case TRACEBUF_LIB_FXT_ARG_UINT64:
		value = a->u64;
		break;
	case TRACEBUF_LIB_FXT_ARG_DOUBLE:
		memcpy(&value, &a->dbl, sizeof(value));
		break;
	case TRACEBUF_LIB_FXT_ARG_STRING:
		w = tracebuf_fxt_field(tracebuf_fxt_str_ref(&a->str), 32, 47);
		words += tracebuf_fxt_str_size(&a->str) / 8;
		break;
	case TRACEBUF_LIB_FXT_ARG_POINTER:
		value = a->ptr;
		break;
	case TRACEBUF_LIB_FXT_ARG_KOID:
		value = a->koid;
		break;
	case TRACEBUF_LIB_FXT_ARG_BOOL:
		w = tracebuf_fxt_field(a->b ? 1 : 0, 32, 32);
		break;
	case TRACEBUF_LIB_FXT_ARG_BLOB:
		w = tracebuf_fxt_field(a->str.len, 32, 63);
		words += tracebuf_fxt_str_size(&a->str) / 8;
		break;
	default:
		break;
	}
	w |= tracebuf_fxt_field(a->type, 0, 3) |
	     tracebuf_fxt_field(words, 4, 15) |
	     tracebuf_fxt_field(tracebuf_fxt_str_ref(&a->name), 16, 31);
	p = tracebuf_fxt_put(p, w);
	p = tracebuf_fxt_put_str(p, &a->name);
	if (tracebuf_fxt_arg_has_word(a->type))
		p = tracebuf_fxt_put(p, value);
	if (a->type == TRACEBUF_LIB_FXT_ARG_STRING || a->type == TRACEBUF_LIB_FXT_ARG_BLOB)
		p = tracebuf_fxt_put_str(p, &a->str);
	return p;
}

static inline uint64_t *tracebuf_fxt_put_args(uint64_t *p,
					      const struct tracebuf_fxt_arg *args,
					      unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p = tracebuf_fxt_put_arg(p, &args[i]);
	return p;
}

/* ------------------------------------------------------------------------ */
/* Metadata records (§4.3): written by the manager only                     */

/*
 * Magic record: metadata type 4, trace info type 0, [24..55] 0x16547846,
 * one word: 0x0016547846040010, bytes 10 00 04 46 78 54 16 00.
 */
static inline int tracebuf_fxt_magic_write(uint64_t *dst, size_t cap)
{
	if (cap < 8)
		return -ENOSPC;
	tracebuf_fxt_put(dst, TRACEBUF_LIB_FXT_MAGIC);
	return 8;
}

/*
 * Provider info: [16..19] 1, [20..51] provider id, [52..59] name length
 * (at most 255), then the name stream.  Opens the provider's first section.
 */
static inline int tracebuf_fxt_provider_info_size(size_t name_len)
{
	if (name_len > TRACEBUF_LIB_FXT_PROVIDER_NAME_MAX)
		return -E2BIG;
	return (int)(8 + tracebuf_fxt_pad(name_len));
}

static inline int tracebuf_fxt_provider_info_write(uint64_t *dst, size_t cap,
						   uint32_t provider_id,
						   const char *name, size_t name_len)
{
	int size = tracebuf_fxt_provider_info_size(name_len);
	uint64_t *p;

	if (size < 0)
		return size;
	if (name_len && !name)
		return -EINVAL;
	if (cap < (size_t)size)
		return -ENOSPC;
	p = tracebuf_fxt_put(dst, tracebuf_fxt_header(TRACEBUF_LIB_FXT_RECORD_METADATA, (size_t)size) |
			     tracebuf_fxt_field(TRACEBUF_LIB_FXT_META_PROVIDER_INFO, 16, 19) |
			     tracebuf_fxt_field(provider_id, 20, 51) |
			     tracebuf_fxt_field(name_len, 52, 59));
	tracebuf_fxt_put_stream(p, name, name_len);
	return size;
}

/* Provider section: [16..19] 2, [20..51] provider id; one word. */
static inline int tracebuf_fxt_provider_section_write(uint64_t *dst, size_t cap,
						      uint32_t provider_id)
{
	if (cap < 8)
		return -ENOSPC;
	tracebuf_fxt_put(dst, tracebuf_fxt_header(TRACEBUF_LIB_FXT_RECORD_METADATA, 8) |
			 tracebuf_fxt_field(TRACEBUF_LIB_FXT_META_PROVIDER_SECTION, 16, 19) |
			 tracebuf_fxt_field(provider_id, 20, 51));
	return 8;
}

/*
 * Provider event: [16..19] 3, [20..51] provider id, [52..55] event id
 * (0 = buffer overflow, records were dropped); one word.
 */
static inline int tracebuf_fxt_provider_event_write(uint64_t *dst, size_t cap,
						    uint32_t provider_id,
						    unsigned int event)
{
	if (event > 15)
		return -EINVAL;
	if (cap < 8)
		return -ENOSPC;
	tracebuf_fxt_put(dst, tracebuf_fxt_header(TRACEBUF_LIB_FXT_RECORD_METADATA, 8) |
			 tracebuf_fxt_field(TRACEBUF_LIB_FXT_META_PROVIDER_EVENT, 16, 19) |
			 tracebuf_fxt_field(provider_id, 20, 51) |
			 tracebuf_fxt_field(event, 52, 55));
	return 8;
}

/* ------------------------------------------------------------------------ */
/* Initialization, string and thread records (§4.2): the durable records    */

/* Initialization: header, then ticks per second (not 0).  16 bytes. */
static inline int tracebuf_fxt_init_write(uint64_t *dst, size_t cap,
					  uint64_t ticks_per_second)
{
	uint64_t *p;

	if (!ticks_per_second)
		return -EINVAL;
	if (cap < TRACEBUF_LIB_FXT_INIT_SIZE)
		return -ENOSPC;
	p = tracebuf_fxt_put(dst, tracebuf_fxt_header(TRACEBUF_LIB_FXT_RECORD_INIT,
						      TRACEBUF_LIB_FXT_INIT_SIZE));
	tracebuf_fxt_put(p, ticks_per_second);
	return TRACEBUF_LIB_FXT_INIT_SIZE;
}

/*
 * String record: [16..30] index (1..0x7fff), bit 31 zero, [32..46] length,
 * bit 47 zero; then the stream.  Registers (or replaces) table entry index.
 */
static inline int tracebuf_fxt_string_size(size_t len)
{
	if (len > TRACEBUF_LIB_FXT_STRING_MAX)
		return -E2BIG;
	return (int)(8 + tracebuf_fxt_pad(len));
}

static inline int tracebuf_fxt_string_write(uint64_t *dst, size_t cap, uint16_t index,
					    const char *data, size_t len)
{
	int size = tracebuf_fxt_string_size(len);
	uint64_t *p;

	if (size < 0)
		return size;
	if (!index || index > TRACEBUF_LIB_FXT_STRING_INDEX_MAX || (len && !data))
		return -EINVAL;
	if (cap < (size_t)size)
		return -ENOSPC;
	p = tracebuf_fxt_put(dst, tracebuf_fxt_header(TRACEBUF_LIB_FXT_RECORD_STRING, (size_t)size) |
			     tracebuf_fxt_field(index, 16, 30) |
			     tracebuf_fxt_field(len, 32, 46));
	tracebuf_fxt_put_stream(p, data, len);
	return size;
}

/*
 * Thread record: [16..23] index (1..255), then the process koid and the
 * thread koid.  24 bytes.
 */
static inline int tracebuf_fxt_thread_write(uint64_t *dst, size_t cap, uint8_t index,
					    uint64_t process_koid, uint64_t thread_koid)
{
	uint64_t *p;

	if (!index)
		return -EINVAL;
	if (cap < TRACEBUF_LIB_FXT_THREAD_SIZE)
		return -ENOSPC;
	p = tracebuf_fxt_put(dst, tracebuf_fxt_header(TRACEBUF_LIB_FXT_RECORD_THREAD,
						      TRACEBUF_LIB_FXT_THREAD_SIZE) |
			     tracebuf_fxt_field(index, 16, 23));
	p = tracebuf_fxt_put(p, process_koid);
	tracebuf_fxt_put(p, thread_koid);
	return TRACEBUF_LIB_FXT_THREAD_SIZE;
}

/* ------------------------------------------------------------------------ */
/* Kernel object records (§4.2 type 7, §4.5)                                */

/*
 * Header: [16..23] object type (TRACEBUF_LIB_FXT_OBJ_*), [24..39] name ref,
 * [40..43] argument count; then the koid word, the inline name, the
 * arguments.  By convention a thread carries a koid argument "process".
 */
struct tracebuf_fxt_kobj {
	unsigned int obj_type;
	uint64_t koid;
	struct tracebuf_fxt_str name;
	const struct tracebuf_fxt_arg *args;
	unsigned int nargs;
};

/*
 * Fill *o (and *process_arg, which *o points to) to describe thread koid
 * of process process_koid named name, with the conventional "process"
 * argument (inline name).
 */
static inline void tracebuf_fxt_kobj_thread(struct tracebuf_fxt_kobj *o,
					    struct tracebuf_fxt_arg *process_arg,
					    uint64_t koid, uint64_t process_koid,
					    struct tracebuf_fxt_str name)
{
	*process_arg = tracebuf_fxt_arg_koid(tracebuf_fxt_str_inline("process", 7),
					     process_koid);
	o->obj_type = TRACEBUF_LIB_FXT_OBJ_THREAD;
	o->koid = koid;
	o->name = name;
	o->args = process_arg;
	o->nargs = 1;
}

/* Process koid named name, no arguments. */
static inline void tracebuf_fxt_kobj_process(struct tracebuf_fxt_kobj *o, uint64_t koid,
					     struct tracebuf_fxt_str name)
{
	o->obj_type = TRACEBUF_LIB_FXT_OBJ_PROCESS;
	o->koid = koid;
	o->name = name;
	o->args = NULL;
	o->nargs = 0;
}

static inline int tracebuf_fxt_kobj_size(const struct tracebuf_fxt_kobj *o)
{
	int args, ret;
	size_t size;

	if (o->obj_type > 0xff)
		return -EINVAL;
	ret = tracebuf_fxt_str_check(&o->name);
	if (ret)
		return ret;
	args = tracebuf_fxt_args_size(o->args, o->nargs);
	if (args < 0)
		return args;
	size = 16 + tracebuf_fxt_str_size(&o->name) + (size_t)args;
	return size > TRACEBUF_LIB_FXT_RECORD_MAX ? -E2BIG : (int)size;
}

static inline int tracebuf_fxt_kobj_write(uint64_t *dst, size_t cap,
					  const struct tracebuf_fxt_kobj *o)
{
	int size = tracebuf_fxt_kobj_size(o);
	uint64_t *p;

	if (size < 0)
		return size;
	if (cap < (size_t)size)
		return -ENOSPC;
	p = tracebuf_fxt_put(dst, tracebuf_fxt_header(TRACEBUF_LIB_FXT_RECORD_KERNEL_OBJECT,
						      (size_t)size) |
			     tracebuf_fxt_field(o->obj_type, 16, 23) |
			     tracebuf_fxt_field(tracebuf_fxt_str_ref(&o->name), 24, 39) |
			     tracebuf_fxt_field(o->nargs, 40, 43));
	p = tracebuf_fxt_put(p, o->koid);
	p = tracebuf_fxt_put_str(p, &o->name);
	tracebuf_fxt_put_args(p, o->args, o->nargs);
	return size;
}

/* ------------------------------------------------------------------------ */
/* Scheduling records (§4.2 type 8)                                         */

/*
 * Header: [60..63] the scheduling event type (TRACEBUF_LIB_FXT_SCHED_*),
 * [16..19] argument count, [20..35] CPU; a context switch adds [36..39]
 * the outgoing thread's state (TRACEBUF_LIB_FXT_THREAD_*).  Body: the
 * timestamp; a context switch's outgoing then incoming thread koid, or a
 * wakeup's woken thread koid; the arguments (readers such as Perfetto's
 * take int32 "outgoing_weight" and "incoming_weight", or "weight").
 */
struct tracebuf_fxt_sched {
	unsigned int type;		/* _CONTEXT_SWITCH or _THREAD_WAKEUP */
	uint64_t ticks;
	unsigned int cpu;		/* 0..TRACEBUF_LIB_FXT_SCHED_CPU_MAX */
	unsigned int outgoing_state;	/* context switch only */
	uint64_t outgoing_koid;		/* context switch only */
	uint64_t incoming_koid;		/* switched to, or woken */
	const struct tracebuf_fxt_arg *args;
	unsigned int nargs;		/* 0..15 */
};

static inline int tracebuf_fxt_sched_size(const struct tracebuf_fxt_sched *s)
{
	bool sw = s->type == TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH;
	int args;
	size_t size;

	if ((!sw && s->type != TRACEBUF_LIB_FXT_SCHED_THREAD_WAKEUP) ||
	    s->cpu > TRACEBUF_LIB_FXT_SCHED_CPU_MAX || (sw && s->outgoing_state > 15))
		return -EINVAL;
	args = tracebuf_fxt_args_size(s->args, s->nargs);
	if (args < 0)
		return args;
	size = (sw ? 32 : 24) + (size_t)args;
	return size > TRACEBUF_LIB_FXT_RECORD_MAX ? -E2BIG : (int)size;
}

static inline int tracebuf_fxt_sched_write(uint64_t *dst, size_t cap,
					   const struct tracebuf_fxt_sched *s)
{
	int size = tracebuf_fxt_sched_size(s);
	bool sw = s->type == TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH;
	uint64_t *p;

	if (size < 0)
		return size;
	if (cap < (size_t)size)
		return -ENOSPC;
	p = tracebuf_fxt_put(dst, tracebuf_fxt_header(TRACEBUF_LIB_FXT_RECORD_SCHEDULING,
						      (size_t)size) |
			     tracebuf_fxt_field(s->nargs, 16, 19) |
			     tracebuf_fxt_field(s->cpu, 20, 35) |
			     (sw ? tracebuf_fxt_field(s->outgoing_state, 36, 39) : 0) |
			     tracebuf_fxt_field(s->type, 60, 63));
	p = tracebuf_fxt_put(p, s->ticks);
	if (sw)
		p = tracebuf_fxt_put(p, s->outgoing_koid);
	p = tracebuf_fxt_put(p, s->incoming_koid);
	tracebuf_fxt_put_args(p, s->args, s->nargs);
	return size;
}

/* ------------------------------------------------------------------------ */
/* Event records (§4.2 type 4)                                              */

/*
 * Header: [16..19] event type, [20..23] argument count, [24..31] thread
 * ref, [32..47] category ref, [48..63] name ref.  Body: timestamp (ticks);
 * process and thread koids if the thread is inline; inline category;
 * inline name; the arguments; the type-specific word ("extra": counter id,
 * end timestamp, async id or flow id; none for instant and duration
 * begin/end events).
 */
struct tracebuf_fxt_event {
	unsigned int type;		/* TRACEBUF_LIB_FXT_EVENT_* */
	uint64_t ticks;			/* the timestamp */
	struct tracebuf_fxt_thread thread;
	struct tracebuf_fxt_str category;
	struct tracebuf_fxt_str name;
	const struct tracebuf_fxt_arg *args;
	unsigned int nargs;		/* 0..15 */
	uint64_t extra;			/* ignored by types without one */
};

/* Whether events of this type end with a type-specific word. */
static inline bool tracebuf_fxt_event_has_extra(unsigned int type)
{
	return type == TRACEBUF_LIB_FXT_EVENT_COUNTER ||
	       (type >= TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE &&
		type <= TRACEBUF_LIB_FXT_EVENT_FLOW_END);
}

/* What the hot path precomputes: the header word and the size in bytes. */
struct tracebuf_fxt_event_shape {
	uint64_t header;
	uint32_t size;
};

/* Size of the event in bytes, or -errno. */
static inline int tracebuf_fxt_event_size(const struct tracebuf_fxt_event *ev)
{
	int args, ret;
	size_t size;

	if (ev->type > TRACEBUF_LIB_FXT_EVENT_TYPE_MAX)
		return -EINVAL;
	ret = tracebuf_fxt_str_check(&ev->category);
	if (ret)
		return ret;
	ret = tracebuf_fxt_str_check(&ev->name);
	if (ret)
		return ret;
	args = tracebuf_fxt_args_size(ev->args, ev->nargs);
	if (args < 0)
		return args;
	size = 16 + tracebuf_fxt_thread_ref_size(&ev->thread) +
	       tracebuf_fxt_str_size(&ev->category) + tracebuf_fxt_str_size(&ev->name) +
	       (size_t)args + (tracebuf_fxt_event_has_extra(ev->type) ? 8 : 0);
	return size > TRACEBUF_LIB_FXT_RECORD_MAX ? -E2BIG : (int)size;
}

/* Check ev and compute its shape: 0 or -errno. */
static inline int tracebuf_fxt_event_shape(struct tracebuf_fxt_event_shape *shape,
					   const struct tracebuf_fxt_event *ev)
{
	int size = tracebuf_fxt_event_size(ev);

	if (size < 0)
		return size;
	shape->size = (uint32_t)size;
	shape->header = tracebuf_fxt_header(TRACEBUF_LIB_FXT_RECORD_EVENT, (size_t)size) |
			tracebuf_fxt_field(ev->type, 16, 19) |
			tracebuf_fxt_field(ev->nargs, 20, 23) |
			tracebuf_fxt_field(ev->thread.index, 24, 31) |
			tracebuf_fxt_field(tracebuf_fxt_str_ref(&ev->category), 32, 47) |
			tracebuf_fxt_field(tracebuf_fxt_str_ref(&ev->name), 48, 63);
	return 0;
}

/*
 * Store ev at p, which has shape->size bytes reserved; no checks.  Returns
 * the word after the record.
 */
static inline uint64_t *tracebuf_fxt_event_put(uint64_t *p,
					       const struct tracebuf_fxt_event_shape *shape,
					       const struct tracebuf_fxt_event *ev)
{
	p = tracebuf_fxt_put(p, shape->header);
	p = tracebuf_fxt_put(p, ev->ticks);
	p = tracebuf_fxt_put_thread(p, &ev->thread);
	p = tracebuf_fxt_put_str(p, &ev->category);
	p = tracebuf_fxt_put_str(p, &ev->name);
	p = tracebuf_fxt_put_args(p, ev->args, ev->nargs);
	if (tracebuf_fxt_event_has_extra(ev->type))
		p = tracebuf_fxt_put(p, ev->extra);
	return p;
}

static inline int tracebuf_fxt_event_write(uint64_t *dst, size_t cap,
					   const struct tracebuf_fxt_event *ev)
{
	struct tracebuf_fxt_event_shape shape;
	int ret = tracebuf_fxt_event_shape(&shape, ev);

	if (ret)
		return ret;
	if (cap < shape.size)
		return -ENOSPC;
	tracebuf_fxt_event_put(dst, &shape, ev);
	return (int)shape.size;
}

/* ------------------------------------------------------------------------ */
/* Blob records (§4.2 type 5) and padding                                   */

/*
 * Header: [16..31] name ref, [32..46] payload size in bytes, bit 47 zero,
 * [48..55] blob type; then the inline name, then the payload stream.
 */
static inline int tracebuf_fxt_blob_size(const struct tracebuf_fxt_str *name,
					 size_t payload_len)
{
	int ret = tracebuf_fxt_str_check(name);
	size_t size;

	if (ret)
		return ret;
	if (payload_len > TRACEBUF_LIB_FXT_BLOB_SIZE_MAX)
		return -E2BIG;
	size = 8 + tracebuf_fxt_str_size(name) + tracebuf_fxt_pad(payload_len);
	return size > TRACEBUF_LIB_FXT_RECORD_MAX ? -E2BIG : (int)size;
}

static inline int tracebuf_fxt_blob_write(uint64_t *dst, size_t cap,
					  unsigned int blob_type,
					  const struct tracebuf_fxt_str *name,
					  const void *payload, size_t payload_len)
{
	int size = tracebuf_fxt_blob_size(name, payload_len);
	uint64_t *p;

	if (size < 0)
		return size;
	if (blob_type > 0xff || (payload_len && !payload))
		return -EINVAL;
	if (cap < (size_t)size)
		return -ENOSPC;
	p = tracebuf_fxt_put(dst, tracebuf_fxt_header(TRACEBUF_LIB_FXT_RECORD_BLOB, (size_t)size) |
			     tracebuf_fxt_field(tracebuf_fxt_str_ref(name), 16, 31) |
			     tracebuf_fxt_field(payload_len, 32, 46) |
			     tracebuf_fxt_field(blob_type, 48, 55));
	p = tracebuf_fxt_put_str(p, name);
	tracebuf_fxt_put_stream(p, payload, payload_len);
	return size;
}

/*
 * Padding: fill a gap of bytes (a multiple of 8, at least 8) with blob
 * records of type DATA with an empty name, each at most 0xfff words, so
 * that every reader skips it (Fuchsia's engine does the same when it gives
 * up a buffer's tail, §1.3 generation 2; Perfetto ignores blob types other
 * than PERFETTO).  A 1-word gap gets a blob with an empty payload; no
 * header word is ever 0 (Perfetto aborts on a record of size 0).
 *
 * Only the header words are stored: the payload bytes are left as they
 * were, since no reader interprets them.  Returns 0, or -EINVAL for a bad
 * size.  tracebuf_fxt_pad_records() is the number of records it writes,
 * tracebuf_fxt_pad_header() the header of each.
 */
static inline size_t tracebuf_fxt_pad_records(size_t bytes)
{
	size_t words = bytes / 8;

	return (words + TRACEBUF_LIB_FXT_RECORD_MAX_WORDS - 1) /
	       TRACEBUF_LIB_FXT_RECORD_MAX_WORDS;
}

/* The header of one padding record of @words words (1 to 0xfff). */
static inline uint64_t tracebuf_fxt_pad_header(size_t words)
{
	return tracebuf_fxt_header(TRACEBUF_LIB_FXT_RECORD_BLOB, words * 8) |
	       tracebuf_fxt_field((words - 1) * 8, 32, 46) |
	       tracebuf_fxt_field(TRACEBUF_LIB_FXT_BLOB_DATA, 48, 55);
}

static inline int tracebuf_fxt_pad_write(uint64_t *dst, size_t bytes)
{
	size_t words = bytes / 8;

	if (!words || bytes % 8)
		return -EINVAL;
	while (words) {
		size_t n = words < TRACEBUF_LIB_FXT_RECORD_MAX_WORDS ?
			   words : TRACEBUF_LIB_FXT_RECORD_MAX_WORDS;

		tracebuf_fxt_put(dst, tracebuf_fxt_pad_header(n));
		dst += n;
		words -= n;
	}
	return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* TRACEBUF_FXT_H */
