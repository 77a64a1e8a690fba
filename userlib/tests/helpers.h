/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the host unit tests: a growing trace buffer to encode
 * into, a seeded PRNG, a sample multi-provider trace that uses every
 * record and argument type, and a checked "read everything" loop.
 * Include after ktap.h.
 */
#ifndef TRACEBUF_TESTS_HELPERS_H
#define TRACEBUF_TESTS_HELPERS_H

#include <errno.h>
#include <stdint.h>

#include <tracebuf.h>

/* ---------------------------------------------------------------------- */
/* A trace being encoded                                                  */

struct t_trace {
	uint64_t *w;
	size_t cap;	/* bytes */
	size_t len;	/* bytes written */
	int error;	/* the first error an encoder returned */
};

static inline void t_trace_init(struct t_trace *t, size_t cap)
{
	t->w = calloc(1, cap);
	t->cap = t->w ? cap : 0;
	t->len = 0;
	t->error = 0;
}

static inline void t_trace_free(struct t_trace *t)
{
	free(t->w);
	t->w = NULL;
}

static inline uint64_t *t_at(struct t_trace *t)
{
	return t->w + t->len / 8;
}

static inline size_t t_room(const struct t_trace *t)
{
	return t->cap - t->len;
}

/* Account for an encoder's return value. */
static inline void t_add(struct t_trace *t, int ret)
{
	if (ret < 0) {
		if (!t->error)
			t->error = ret;
		return;
	}
	t->len += (size_t)ret;
}

/* Append one record: fn(dst, cap, args...). */
#define T_PUT(t, fn, ...)	t_add((t), fn(t_at(t), t_room(t), __VA_ARGS__))
#define T_PUT_MAGIC(t)		t_add((t), tracebuf_fxt_magic_write(t_at(t), t_room(t)))

/* Append raw words (hand-built records). */
static inline void t_words(struct t_trace *t, const uint64_t *w, size_t n)
{
	size_t i;

	for (i = 0; i < n && t_room(t) >= 8; i++)
		t_add(t, (tracebuf_fxt_put(t_at(t), w[i]), 8));
}

static inline struct tracebuf_fxt_str t_lit(const char *s)
{
	return tracebuf_fxt_str_inline(s, strlen(s));
}

/*
 * One turn of tb-seqprov's loop as a provider's hot path writes it: a
 * duration's begin, an instant with the u32 argument @i, the duration's
 * end, each 16, 24 and 16 bytes: thread, category and names by index
 * (thread 1, category 1, name 2, the argument's name 3), at ticks 3 @i
 * to 3 @i + 2.  T_TURN_WORDS words to @p; the bytes, or -errno.
 */
#define T_TURN_WORDS	7

static inline int t_turn(uint64_t *p, uint32_t i)
{
	static const unsigned int types[] = {
		TRACEBUF_LIB_FXT_EVENT_DURATION_BEGIN, TRACEBUF_LIB_FXT_EVENT_INSTANT,
		TRACEBUF_LIB_FXT_EVENT_DURATION_END,
	};
	struct tracebuf_fxt_arg arg = tracebuf_fxt_arg_uint32(tracebuf_fxt_str_index(3), i);
	struct tracebuf_fxt_event ev = {
		.thread = tracebuf_fxt_thread_index(1),
		.category = tracebuf_fxt_str_index(1),
		.name = tracebuf_fxt_str_index(2),
	};
	int done = 0;

	for (unsigned int e = 0; e < 3; e++) {
		int n;

		ev.type = types[e];
		ev.ticks = 3ull * i + e;
		ev.args = e == 1 ? &arg : NULL;
		ev.nargs = e == 1;
		n = tracebuf_fxt_event_write(p + done / 8, T_TURN_WORDS * 8 - (size_t)done, &ev);
		if (n < 0)
			return n;
		done += n;
	}
	return done;
}

/*
 * Turns as a thread writes them into its chunks of a buffer (the engine's
 * TRACEBUF_CHUNK_SIZE, engine_priv.h): @bytes (a multiple of @chunk, itself
 * of 8) of t_turn()s from @*i on, each chunk's end that no whole turn fills
 * padded (tracebuf_fxt_pad_write()).  0, or -errno.
 */
static inline int t_turns_chunked(uint8_t *p, size_t bytes, size_t chunk, uint32_t *i)
{
	const size_t turn = T_TURN_WORDS * 8;

	if (!chunk || chunk % 8 || bytes % chunk)
		return -EINVAL;
	for (size_t c = 0; c < bytes; c += chunk) {
		size_t off = c;
		int ret;

		for (; chunk - (off - c) >= turn; off += turn) {
			ret = t_turn((uint64_t *)(p + off), (*i)++);
			if (ret < 0)
				return ret;
		}
		if (off < c + chunk) {
			ret = tracebuf_fxt_pad_write((uint64_t *)(p + off), c + chunk - off);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* xorshift64*: reproducible pseudo-random numbers                         */

static inline uint64_t t_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* ---------------------------------------------------------------------- */
/* The sample trace                                                       */

#define T_TPS1		1000000ULL	/* provider 1: microsecond ticks */
#define T_TPS2		3000000000ULL	/* provider 2: 3 GHz ticks */

/*
 * Every record type the encoder writes, every event and argument type,
 * refs by table and inline, two providers with clashing table indexes,
 * a return to the first provider's section, an overflow event, padding.
 * The reader test checks its decoding record by record.
 */
static inline void t_sample_trace(struct t_trace *t)
{
	struct tracebuf_fxt_arg args[TRACEBUF_LIB_FXT_ARGS_MAX], parg;
	struct tracebuf_fxt_str blob_name;
	struct tracebuf_fxt_event ev;
	struct tracebuf_fxt_kobj o;
	unsigned int i;

	T_PUT_MAGIC(t);
	T_PUT(t, tracebuf_fxt_provider_info_write, 1, "alpha", 5);
	T_PUT(t, tracebuf_fxt_init_write, T_TPS1);
	T_PUT(t, tracebuf_fxt_string_write, 1, "cat", 3);
	T_PUT(t, tracebuf_fxt_string_write, 2, "name", 4);
	T_PUT(t, tracebuf_fxt_string_write, 3, "arg", 3);
	T_PUT(t, tracebuf_fxt_string_write, 4, "value", 5);
	T_PUT(t, tracebuf_fxt_thread_write, 1, 100, 101);
	tracebuf_fxt_kobj_process(&o, 100, t_lit("proc"));
	T_PUT(t, tracebuf_fxt_kobj_write, &o);
	tracebuf_fxt_kobj_thread(&o, &parg, 101, 100, tracebuf_fxt_str_index(2));
	T_PUT(t, tracebuf_fxt_kobj_write, &o);

	/* One event of each type, refs by table, extra = 1000 + type. */
	memset(&ev, 0, sizeof(ev));
	ev.thread = tracebuf_fxt_thread_index(1);
	ev.category = tracebuf_fxt_str_index(1);
	ev.name = tracebuf_fxt_str_index(2);
	for (i = 0; i <= TRACEBUF_LIB_FXT_EVENT_TYPE_MAX; i++) {
		ev.type = i;
		ev.ticks = 10 + i;
		ev.extra = 1000 + i;
		T_PUT(t, tracebuf_fxt_event_write, &ev);
	}

	/* Every argument type, names alternately by table and inline. */
	args[0] = tracebuf_fxt_arg_null(tracebuf_fxt_str_index(3));
	args[1] = tracebuf_fxt_arg_int32(t_lit("i32"), -5);
	args[2] = tracebuf_fxt_arg_uint32(tracebuf_fxt_str_index(3), 0xfffffff0u);
	args[3] = tracebuf_fxt_arg_int64(t_lit("i64"), INT64_MIN);
	args[4] = tracebuf_fxt_arg_uint64(tracebuf_fxt_str_index(3), UINT64_MAX);
	args[5] = tracebuf_fxt_arg_double(t_lit("dbl"), -2.5);
	args[6] = tracebuf_fxt_arg_string(tracebuf_fxt_str_index(3), tracebuf_fxt_str_index(4));
	args[7] = tracebuf_fxt_arg_string(t_lit("str"), t_lit("inline value"));
	args[8] = tracebuf_fxt_arg_pointer(tracebuf_fxt_str_index(3), 0xdeadbeefcafeULL);
	args[9] = tracebuf_fxt_arg_koid(t_lit("koid"), 0x8000000000000001ULL);
	args[10] = tracebuf_fxt_arg_bool(tracebuf_fxt_str_index(3), true);
	args[11] = tracebuf_fxt_arg_bool(t_lit("no"), false);
	args[12] = tracebuf_fxt_arg_string(t_lit("empty"), tracebuf_fxt_str_empty());
	args[13] = tracebuf_fxt_arg_null(tracebuf_fxt_str_empty());
	args[14] = tracebuf_fxt_arg_int32(t_lit("last"), 7);
	ev.type = TRACEBUF_LIB_FXT_EVENT_COUNTER;
	ev.ticks = 2000000;
	ev.extra = 77;
	ev.thread = tracebuf_fxt_thread_inline(300, 301);
	ev.category = t_lit("inline-cat");
	ev.name = t_lit("inline-name");
	ev.args = args;
	ev.nargs = TRACEBUF_LIB_FXT_ARGS_MAX;
	T_PUT(t, tracebuf_fxt_event_write, &ev);

	blob_name = t_lit("blob");
	T_PUT(t, tracebuf_fxt_blob_write, TRACEBUF_LIB_FXT_BLOB_PERFETTO, &blob_name,
	      "0123456789", 10);

	/* Provider 2 reuses indexes 1 and 1 for other things. */
	T_PUT(t, tracebuf_fxt_provider_info_write, 2, "beta", 4);
	T_PUT(t, tracebuf_fxt_init_write, T_TPS2);
	T_PUT(t, tracebuf_fxt_string_write, 1, "other", 5);
	T_PUT(t, tracebuf_fxt_thread_write, 1, 200, 201);
	memset(&ev, 0, sizeof(ev));
	ev.type = TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE;
	ev.ticks = 3000000000ULL;
	ev.extra = 6000000000ULL;
	ev.thread = tracebuf_fxt_thread_index(1);
	ev.category = tracebuf_fxt_str_index(1);
	ev.name = tracebuf_fxt_str_index(1);
	T_PUT(t, tracebuf_fxt_event_write, &ev);

	/* Back to provider 1: its tables again. */
	T_PUT(t, tracebuf_fxt_provider_section_write, 1);
	T_PUT(t, tracebuf_fxt_provider_event_write, 1,
	      TRACEBUF_LIB_FXT_PROVIDER_EVENT_BUFFER_OVERFLOW);
	ev.type = TRACEBUF_LIB_FXT_EVENT_INSTANT;
	ev.ticks = 5;
	ev.name = tracebuf_fxt_str_index(2);
	T_PUT(t, tracebuf_fxt_event_write, &ev);
	if (t_room(t) >= 24 && !tracebuf_fxt_pad_write(t_at(t), 24))
		t->len += 24;
}

/* Records in the sample trace. */
#define T_SAMPLE_RECORDS	(10 + 11 + 1 + 1 + 5 + 3 + 1)

/* ---------------------------------------------------------------------- */
/* Reading                                                                */

static inline bool t_in(const void *p, size_t n, const void *buf, size_t len)
{
	const char *b = buf, *q = p;

	if (!n)
		return true;
	return p && q >= b && n <= len && (size_t)(q - b) <= len - n;
}

/*
 * Check that everything rec points to lies inside [buf, buf + len), and
 * touch it, so that the sanitizers see any bad pointer.
 */
static inline bool t_rec_in(const struct tracebuf_reader_record *rec, const void *buf, size_t len)
{
	const struct tracebuf_reader_str *s[2 * TRACEBUF_LIB_FXT_ARGS_MAX + 8];
	volatile unsigned char sink = 0;
	size_t n = 0, i, j;
	bool ok = t_in(rec->data, rec->size, buf, len);

	s[n++] = &rec->provider_name;
	switch (rec->type) {
	case TRACEBUF_LIB_FXT_RECORD_METADATA:
		s[n++] = &rec->meta.name;
		break;
	case TRACEBUF_LIB_FXT_RECORD_STRING:
		s[n++] = &rec->string.str;
		break;
	case TRACEBUF_LIB_FXT_RECORD_EVENT:
		s[n++] = &rec->event.category;
		s[n++] = &rec->event.name;
		break;
	case TRACEBUF_LIB_FXT_RECORD_BLOB:
		s[n++] = &rec->blob.name;
		s[n++] = &rec->blob.payload;
		break;
	case TRACEBUF_LIB_FXT_RECORD_USERSPACE_OBJECT:
		s[n++] = &rec->uobj.name;
		break;
	case TRACEBUF_LIB_FXT_RECORD_KERNEL_OBJECT:
		s[n++] = &rec->kobj.name;
		break;
	case TRACEBUF_LIB_FXT_RECORD_LOG:
		s[n++] = &rec->log.message;
		break;
	}
	if (rec->nargs > TRACEBUF_LIB_FXT_ARGS_MAX)
		return false;
	for (i = 0; i < rec->nargs; i++) {
		const struct tracebuf_reader_arg *a = &rec->args[i];

		s[n++] = &a->name;
		if (a->type == TRACEBUF_LIB_FXT_ARG_STRING || a->type >= TRACEBUF_LIB_FXT_ARG_BLOB)
			s[n++] = &a->str;
	}
	for (i = 0; i < n; i++) {
		ok = ok && t_in(s[i]->data, s[i]->len, buf, len);
		for (j = 0; ok && j < s[i]->len; j++)
			sink ^= (unsigned char)s[i]->data[j];
	}
	(void)sink;
	return ok;
}

struct t_result {
	int ret;		/* the last tracebuf_reader_next() return: 0 or -errno */
	size_t records;		/* records returned before that */
	size_t end;		/* where the last record returned ends */
	bool bounds_ok;		/* every pointer of every record was inside */
	uint64_t unresolved;
	size_t error_offset;
};

/* Read buf to the end or the first error, checking every record. */
static inline struct t_result t_read_all(const void *buf, size_t len, unsigned int flags)
{
	static struct tracebuf_reader_record rec;
	struct t_result res = { 0, 0, 0, true, 0, 0 };
	struct tracebuf_reader *r;
	int ret;

	res.ret = tracebuf_reader_open_mem(buf, len, flags, &r);
	if (res.ret)
		return res;
	while ((ret = tracebuf_reader_next(r, &rec)) == 1) {
		if (!t_rec_in(&rec, buf, len) || rec.offset != res.end || !rec.size)
			res.bounds_ok = false;
		res.records++;
		res.end = rec.offset + rec.size;
	}
	res.ret = ret;
	res.unresolved = tracebuf_reader_unresolved_refs(r);
	res.error_offset = tracebuf_reader_error_offset(r);
	/* Errors are final. */
	if (ret < 0 && (tracebuf_reader_next(r, &rec) != ret || !*tracebuf_reader_error(r)))
		res.bounds_ok = false;
	tracebuf_reader_close(r);
	return res;
}

#endif /* TRACEBUF_TESTS_HELPERS_H */
