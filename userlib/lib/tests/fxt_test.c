// SPDX-License-Identifier: MIT
/*
 * Description: the FXT encoder (tracebuf_fxt.h).  Exact words of a few
 * records computed by hand from userlib/Documentation/trace-format.md §4; every error
 * return; and encode/decode round trips through the reader for every
 * record type, event type and argument type, with table and inline refs,
 * 0 and 15 arguments and the longest inline strings.
 */
#include "ktap.h"
#include "helpers.h"

/* Encode one record into a fresh zeroed buffer of cap bytes. */
#define ENCODE(buf, fn, ...)	fn((buf), sizeof(buf), __VA_ARGS__)

/* Decode the single record in buf[0..len) into *rec; 1 on success. */
static int decode_one(const void *buf, size_t len, struct tracebuf_reader_record *rec)
{
	struct tracebuf_reader *r;
	int ret = tracebuf_reader_open_mem(buf, len, 0, &r);

	if (ret)
		return ret;
	ret = tracebuf_reader_next(r, rec);
	if (ret == 1 && tracebuf_reader_next(r, &(struct tracebuf_reader_record){ 0 }) != 0)
		ret = -EPROTO;	/* more than one record */
	tracebuf_reader_close(r);
	return ret;
}

static uint64_t le_bytes(const char *s)
{
	uint64_t w = 0;

	memcpy(&w, s, strlen(s) < 8 ? strlen(s) : 8);
	return tracebuf_fxt_le64(w);
}

/* ---------------------------------------------------------------------- */
/* Exact layouts                                                          */

static void layout_magic(void)
{
	static const unsigned char bytes[8] = { 0x10, 0x00, 0x04, 0x46, 0x78, 0x54, 0x16, 0x00 };
	uint64_t w[2] = { 0, 0 };

	T_EXPECT_EQ(tracebuf_fxt_magic_write(w, sizeof(w)), 8);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[0]), 0x0016547846040010ULL);
	T_EXPECT_MEM(w, bytes, 8);
	T_EXPECT_EQ(w[1], 0);
	/* The same word from its fields: metadata, 1 word, trace info, magic. */
	T_EXPECT_EQ(tracebuf_fxt_header(0, 8) | tracebuf_fxt_field(4, 16, 19) |
		    tracebuf_fxt_field(0, 20, 23) | tracebuf_fxt_field(0x16547846, 24, 55),
		    TRACEBUF_LIB_FXT_MAGIC);
	T_EXPECT_EQ(tracebuf_fxt_magic_write(w, 7), -ENOSPC);
}

static void layout_string_record(void)
{
	uint64_t w[4];

	memset(w, 0xa5, sizeof(w));
	/* type 2, 2 words, index 1 in [16..30], length 5 in [32..46] */
	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_string_write, 1, "hello", 5), 16);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[0]), 0x0000000500010022ULL);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[1]), 0x0000006f6c6c6568ULL);	/* "hello\0\0\0" */
	T_EXPECT_EQ(w[2], 0xa5a5a5a5a5a5a5a5ULL);
	/* 8 bytes: no padding word */
	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_string_write, 0x7fff, "abcdefgh", 8), 16);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[0]), 0x000000087fff0022ULL);
	T_EXPECT_EQ(w[1], le_bytes("abcdefgh"));
}

static void layout_instant_event(void)
{
	struct tracebuf_fxt_event ev = {
		.type = TRACEBUF_LIB_FXT_EVENT_INSTANT,
		.ticks = 0x1234,
		.thread = tracebuf_fxt_thread_index(1),
		.category = tracebuf_fxt_str_index(1),
		.name = tracebuf_fxt_str_index(2),
	};
	struct tracebuf_fxt_arg arg = tracebuf_fxt_arg_int32(t_lit("n"), -1);
	uint64_t w[10];

	memset(w, 0, sizeof(w));
	/* type 4, 2 words, instant, 0 args, thread 1, category 1, name 2 */
	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_event_write, &ev), 16);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[0]), 0x0002000101000024ULL);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[1]), 0x1234);

	/*
	 * Everything inline: koids 3 and 4, category "cat" (0x8003), name
	 * "name" (0x8004), one int32 argument "n" = -1 (2 words: header,
	 * name).  8 words.
	 */
	ev.thread = tracebuf_fxt_thread_inline(3, 4);
	ev.category = t_lit("cat");
	ev.name = t_lit("name");
	ev.args = &arg;
	ev.nargs = 1;
	memset(w, 0, sizeof(w));
	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_event_write, &ev), 64);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[0]), 0x8004800300100084ULL);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[1]), 0x1234);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[2]), 3);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[3]), 4);
	T_EXPECT_EQ(w[4], le_bytes("cat"));
	T_EXPECT_EQ(w[5], le_bytes("name"));
	/* int32: type 1, 2 words, name 0x8001, value 0xffffffff in [32..63] */
	T_EXPECT_EQ(tracebuf_fxt_le64(w[6]), 0xffffffff80010021ULL);
	T_EXPECT_EQ(w[7], le_bytes("n"));
	T_EXPECT_EQ(w[8], 0);

	/* Counter: the id is the last word. */
	ev.type = TRACEBUF_LIB_FXT_EVENT_COUNTER;
	ev.extra = 0xabcdef;
	ev.nargs = 0;
	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_event_write, &ev), 56);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[0]), 0x8004800300010074ULL);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[6]), 0xabcdef);
}

static void layout_other_records(void)
{
	struct tracebuf_fxt_kobj o;
	struct tracebuf_fxt_arg parg;
	uint64_t w[8];

	memset(w, 0, sizeof(w));
	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_init_write, 1000000000ULL), 16);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[0]), 0x21);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[1]), 1000000000ULL);

	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_thread_write, 5, 10, 11), 24);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[0]), 0x0000000000050033ULL);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[1]), 10);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[2]), 11);

	/* provider info: [20..51] id 7, [52..59] name length 2 */
	memset(w, 0, sizeof(w));
	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_provider_info_write, 7, "ab", 2), 16);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[0]), 0x0020000000710020ULL);
	T_EXPECT_EQ(w[1], le_bytes("ab"));
	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_provider_section_write, 7), 8);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[0]), 0x0000000000720010ULL);
	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_provider_event_write, 7, 0), 8);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[0]), 0x0000000000730010ULL);
	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_provider_info_write, 0xffffffffu, "", 0), 8);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[0]), 0x000ffffffff10010ULL);

	/*
	 * Thread kernel object: type 7, 5 words, ZX_OBJ_TYPE_THREAD, name
	 * ref 3, 1 argument; koid; koid argument "process" (3 words).
	 */
	memset(w, 0, sizeof(w));
	tracebuf_fxt_kobj_thread(&o, &parg, 101, 100, tracebuf_fxt_str_index(3));
	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_kobj_write, &o), 40);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[0]), 0x0000010003020057ULL);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[1]), 101);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[2]), 0x0000000080070038ULL);
	T_EXPECT_EQ(w[3], le_bytes("process"));
	T_EXPECT_EQ(tracebuf_fxt_le64(w[4]), 100);

	/* Padding: blob type DATA (1 in [48..55]), empty name. */
	memset(w, 0, sizeof(w));
	T_ASSERT_EQ(tracebuf_fxt_pad_write(w, 8), 0);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[0]), 0x0001000000000015ULL);
	T_ASSERT_EQ(tracebuf_fxt_pad_write(w, 16), 0);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[0]), 0x0001000800000025ULL);
}

/* ---------------------------------------------------------------------- */
/* Errors                                                                 */

static void errors(void)
{
	char big[TRACEBUF_LIB_FXT_STRING_MAX + 1];
	struct tracebuf_fxt_arg args[16];
	struct tracebuf_fxt_event ev = { 0 };
	struct tracebuf_fxt_str s;
	struct tracebuf_fxt_kobj o;
	uint64_t w[8];
	unsigned int i;

	memset(big, 'x', sizeof(big));
	memset(w, 0x5a, sizeof(w));
	T_EXPECT_EQ(ENCODE(w, tracebuf_fxt_string_write, 0, "a", 1), -EINVAL);
	T_EXPECT_EQ(ENCODE(w, tracebuf_fxt_string_write, 0x8000, "a", 1), -EINVAL);
	T_EXPECT_EQ(ENCODE(w, tracebuf_fxt_string_write, 1, NULL, 1), -EINVAL);
	T_EXPECT_EQ(tracebuf_fxt_string_write(w, sizeof(w), 1, big, sizeof(big)), -E2BIG);
	T_EXPECT_EQ(tracebuf_fxt_string_write(w, 15, 1, "hello", 5), -ENOSPC);
	T_EXPECT_EQ(ENCODE(w, tracebuf_fxt_thread_write, 0, 1, 2), -EINVAL);
	T_EXPECT_EQ(tracebuf_fxt_thread_write(w, 23, 1, 1, 2), -ENOSPC);
	T_EXPECT_EQ(ENCODE(w, tracebuf_fxt_init_write, 0), -EINVAL);
	T_EXPECT_EQ(tracebuf_fxt_init_write(w, 8, 1), -ENOSPC);
	T_EXPECT_EQ(tracebuf_fxt_provider_info_write(w, sizeof(w), 1, big, 256), -E2BIG);
	T_EXPECT_EQ(ENCODE(w, tracebuf_fxt_provider_info_write, 1, NULL, 3), -EINVAL);
	T_EXPECT_EQ(ENCODE(w, tracebuf_fxt_provider_event_write, 1, 16), -EINVAL);
	T_EXPECT_EQ(tracebuf_fxt_provider_section_write(w, 0, 1), -ENOSPC);
	T_EXPECT_EQ(tracebuf_fxt_pad_write(w, 0), -EINVAL);
	T_EXPECT_EQ(tracebuf_fxt_pad_write(w, 12), -EINVAL);
	/* Nothing was written by any of those. */
	for (i = 0; i < 8; i++)
		T_EXPECT_EQ(w[i], 0x5a5a5a5a5a5a5a5aULL);

	s = tracebuf_fxt_str_index(0x8000);
	T_EXPECT_EQ(tracebuf_fxt_str_check(&s), -EINVAL);
	s = tracebuf_fxt_str_inline(NULL, 1);
	T_EXPECT_EQ(tracebuf_fxt_str_check(&s), -EINVAL);
	s = tracebuf_fxt_str_inline(big, sizeof(big));
	T_EXPECT_EQ(tracebuf_fxt_str_check(&s), -E2BIG);
	T_EXPECT_EQ(tracebuf_fxt_blob_size(&s, 1), -E2BIG);
	s = tracebuf_fxt_str_empty();
	T_EXPECT_EQ(tracebuf_fxt_blob_size(&s, TRACEBUF_LIB_FXT_BLOB_SIZE_MAX + 1), -E2BIG);
	/* 0x7fff bytes would be a 0x1001-word record */
	T_EXPECT_EQ(tracebuf_fxt_blob_size(&s, TRACEBUF_LIB_FXT_BLOB_SIZE_MAX), -E2BIG);
	T_EXPECT_EQ(tracebuf_fxt_blob_size(&s, TRACEBUF_LIB_FXT_RECORD_MAX - 8),
		    TRACEBUF_LIB_FXT_RECORD_MAX);
	T_EXPECT_EQ(ENCODE(w, tracebuf_fxt_blob_write, 256, &s, "x", 1), -EINVAL);
	T_EXPECT_EQ(ENCODE(w, tracebuf_fxt_blob_write, 1, &s, NULL, 1), -EINVAL);
	T_EXPECT_EQ(tracebuf_fxt_blob_write(w, 15, 1, &s, "123456789", 9), -ENOSPC);

	tracebuf_fxt_kobj_process(&o, 1, t_lit("p"));
	o.obj_type = 256;
	T_EXPECT_EQ(ENCODE(w, tracebuf_fxt_kobj_write, &o), -EINVAL);
	o.obj_type = 1;
	o.nargs = 1;	/* args NULL */
	T_EXPECT_EQ(ENCODE(w, tracebuf_fxt_kobj_write, &o), -EINVAL);

	for (i = 0; i < 16; i++)
		args[i] = tracebuf_fxt_arg_null(tracebuf_fxt_str_empty());
	ev.args = args;
	ev.thread = tracebuf_fxt_thread_index(1);
	ev.type = TRACEBUF_LIB_FXT_EVENT_TYPE_MAX + 1;
	T_EXPECT_EQ(tracebuf_fxt_event_size(&ev), -EINVAL);
	ev.type = 0;
	ev.nargs = 16;
	T_EXPECT_EQ(tracebuf_fxt_event_size(&ev), -E2BIG);
	ev.nargs = 15;
	T_EXPECT_EQ(tracebuf_fxt_event_size(&ev), 16 + 15 * 8);
	/* a blob's bytes are inline: never a table entry */
	args[3] = tracebuf_fxt_arg_blob(t_lit("b"), "x", 1);
	args[3].str = tracebuf_fxt_str_index(3);
	T_EXPECT_EQ(tracebuf_fxt_event_size(&ev), -EINVAL);
	args[3] = tracebuf_fxt_arg_blob(t_lit("b"), NULL, 2);
	T_EXPECT_EQ(tracebuf_fxt_event_size(&ev), -EINVAL);
	args[3] = tracebuf_fxt_arg_null(tracebuf_fxt_str_empty());
	args[3].type = 11;
	T_EXPECT_EQ(tracebuf_fxt_event_size(&ev), -EINVAL);
	args[3] = tracebuf_fxt_arg_string(t_lit("s"), tracebuf_fxt_str_inline(NULL, 2));
	T_EXPECT_EQ(tracebuf_fxt_event_size(&ev), -EINVAL);
	args[3] = tracebuf_fxt_arg_null(tracebuf_fxt_str_index(0x8001));
	T_EXPECT_EQ(tracebuf_fxt_event_size(&ev), -EINVAL);
	ev.nargs = 0;
	ev.category = tracebuf_fxt_str_inline(NULL, 3);
	T_EXPECT_EQ(tracebuf_fxt_event_size(&ev), -EINVAL);

	/* Two 32000-byte inline strings do not fit one record. */
	memset(big, 'y', sizeof(big));
	ev.category = tracebuf_fxt_str_inline(big, TRACEBUF_LIB_FXT_STRING_MAX);
	ev.name = tracebuf_fxt_str_inline(big, TRACEBUF_LIB_FXT_STRING_MAX);
	T_EXPECT_EQ(tracebuf_fxt_event_size(&ev), -E2BIG);
	ev.name = tracebuf_fxt_str_empty();
	T_EXPECT_EQ(tracebuf_fxt_event_size(&ev), 16 + TRACEBUF_LIB_FXT_STRING_MAX);
	T_EXPECT_EQ(tracebuf_fxt_event_write(w, sizeof(w), &ev), -ENOSPC);
	/* ... nor does one plus 15 arguments with 800-byte names. */
	for (i = 0; i < 15; i++)
		args[i] = tracebuf_fxt_arg_null(tracebuf_fxt_str_inline(big, 800));
	ev.nargs = 15;
	T_EXPECT_EQ(tracebuf_fxt_event_size(&ev), -E2BIG);
}

/* ---------------------------------------------------------------------- */
/* Round trips                                                            */

static void roundtrip_event_types(void)
{
	static struct tracebuf_reader_record rec;
	struct tracebuf_fxt_event ev = { 0 };
	uint64_t w[16];
	unsigned int type;

	for (type = 0; type <= TRACEBUF_LIB_FXT_EVENT_TYPE_MAX; type++) {
		bool extra = type == 1 || type >= 4;
		int size;

		ev.type = type;
		ev.ticks = 1000 + type;
		ev.extra = 0x5000000000000000ULL + type;
		ev.thread = tracebuf_fxt_thread_inline(7, 8);
		ev.category = t_lit("c");
		ev.name = t_lit("event");
		memset(w, 0, sizeof(w));
		size = ENCODE(w, tracebuf_fxt_event_write, &ev);
		T_ASSERT_EQ(size, 48 + (extra ? 8 : 0));
		T_EXPECT_EQ(tracebuf_fxt_event_has_extra(type), extra);
		T_ASSERT_EQ(decode_one(w, (size_t)size, &rec), 1);
		T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_EVENT);
		T_EXPECT_EQ(rec.size, (size_t)size);
		T_EXPECT_EQ(rec.event.type, type);
		T_EXPECT_EQ(rec.event.ticks, 1000 + type);
		T_EXPECT_EQ(rec.event.ns, 1000 + type);	/* no init record: 1 tick = 1 ns */
		T_EXPECT_EQ(rec.event.thread_ref, 0);
		T_EXPECT_EQ(rec.event.process_koid, 7);
		T_EXPECT_EQ(rec.event.thread_koid, 8);
		T_EXPECT_STR(rec.event.category, "c");
		T_EXPECT_STR(rec.event.name, "event");
		T_EXPECT_EQ(rec.nargs, 0);
		T_EXPECT_EQ(rec.event.extra, extra ? 0x5000000000000000ULL + type : 0);
		if (type == TRACEBUF_LIB_FXT_EVENT_COUNTER)
			T_EXPECT_EQ(rec.event.counter_id, 0x5000000000000001ULL);
		if (type == TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE) {
			T_EXPECT_EQ(rec.event.end_ticks, 0x5000000000000004ULL);
			T_EXPECT_EQ(rec.event.end_ns, 0x5000000000000004ULL);
		}
		if (type >= 5 && type <= 7)
			T_EXPECT_EQ(rec.event.async_id, 0x5000000000000000ULL + type);
		if (type >= 8)
			T_EXPECT_EQ(rec.event.flow_id, 0x5000000000000000ULL + type);
	}
}

/* One argument of each type, with the name by table (ref) or inline. */
static void check_arg_types(bool name_by_ref)
{
	static struct tracebuf_reader_record rec;
	struct tracebuf_fxt_arg args[TRACEBUF_LIB_FXT_ARGS_MAX];
	struct tracebuf_fxt_event ev = { 0 };
	struct tracebuf_fxt_str name;
	struct t_trace t;
	struct tracebuf_reader *r;
	unsigned int n = 0, i;

	t_trace_init(&t, 4096);
	T_ASSERT(t.w);
	T_PUT(&t, tracebuf_fxt_string_write, 9, "argname", 7);
	T_PUT(&t, tracebuf_fxt_string_write, 10, "table value", 11);
	name = name_by_ref ? tracebuf_fxt_str_index(9) : t_lit("argname");
	args[n++] = tracebuf_fxt_arg_null(name);
	args[n++] = tracebuf_fxt_arg_int32(name, INT32_MIN);
	args[n++] = tracebuf_fxt_arg_uint32(name, UINT32_MAX);
	args[n++] = tracebuf_fxt_arg_int64(name, -1234567890123LL);
	args[n++] = tracebuf_fxt_arg_uint64(name, 0xfedcba9876543210ULL);
	args[n++] = tracebuf_fxt_arg_double(name, 3.141592653589793);
	args[n++] = tracebuf_fxt_arg_string(name, tracebuf_fxt_str_index(10));
	args[n++] = tracebuf_fxt_arg_string(name, t_lit("inline value!"));
	args[n++] = tracebuf_fxt_arg_pointer(name, 0xffff8000deadbeefULL);
	args[n++] = tracebuf_fxt_arg_koid(name, 42);
	args[n++] = tracebuf_fxt_arg_bool(name, true);
	args[n++] = tracebuf_fxt_arg_bool(name, false);
	args[n++] = tracebuf_fxt_arg_blob(name, "\xff\x00\xfe bytes", 9);
	args[n++] = tracebuf_fxt_arg_blob(name, NULL, 0);
	ev.type = TRACEBUF_LIB_FXT_EVENT_INSTANT;
	ev.args = args;
	ev.nargs = n;
	T_PUT(&t, tracebuf_fxt_event_write, &ev);
	if (t.error)
		t_trace_free(&t);
	T_ASSERT_EQ(t.error, 0);

	T_ASSERT_EQ(tracebuf_reader_open_mem(t.w, t.len, TRACEBUF_LIB_READER_STRICT, &r), 0);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 1);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 1);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 1);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 0);
	tracebuf_reader_close(r);
	T_ASSERT_EQ(rec.nargs, n);
	for (i = 0; i < n; i++) {
		T_EXPECT_EQ(rec.args[i].type, args[i].type);
		T_EXPECT_STR(rec.args[i].name, "argname");
	}
	T_EXPECT_EQ(rec.args[1].i32, INT32_MIN);
	T_EXPECT_EQ(rec.args[2].u32, UINT32_MAX);
	T_EXPECT_EQ(rec.args[3].i64, -1234567890123LL);
	T_EXPECT_EQ(rec.args[4].u64, 0xfedcba9876543210ULL);
	T_EXPECT_MEM(&rec.args[5].dbl, &args[5].dbl, sizeof(double));	/* bit for bit */
	T_EXPECT_STR(rec.args[6].str, "table value");
	T_EXPECT_STR(rec.args[7].str, "inline value!");
	T_EXPECT_EQ(rec.args[8].ptr, 0xffff8000deadbeefULL);
	T_EXPECT_EQ(rec.args[9].koid, 42);
	T_EXPECT_EQ(rec.args[10].b, true);
	T_EXPECT_EQ(rec.args[11].b, false);
	T_EXPECT_EQ(rec.args[12].raw.len, 9);
	T_EXPECT_MEM(rec.args[12].raw.data, "\xff\x00\xfe bytes", 9);
	T_EXPECT_EQ(rec.args[13].raw.len, 0);
	t_trace_free(&t);
}

static void roundtrip_arg_types_ref_names(void)
{
	check_arg_types(true);
}

static void roundtrip_arg_types_inline_names(void)
{
	check_arg_types(false);
}

/* 0 and 15 arguments, every argument count in between, on a kernel object too. */
static void roundtrip_arg_counts(void)
{
	static struct tracebuf_reader_record rec;
	struct tracebuf_fxt_arg args[TRACEBUF_LIB_FXT_ARGS_MAX];
	struct tracebuf_fxt_event ev = { 0 };
	struct tracebuf_fxt_kobj o;
	uint64_t w[256];
	unsigned int n, i;
	char names[TRACEBUF_LIB_FXT_ARGS_MAX][8];

	for (i = 0; i < TRACEBUF_LIB_FXT_ARGS_MAX; i++) {
		snprintf(names[i], sizeof(names[i]), "a%u", i);
		args[i] = tracebuf_fxt_arg_uint64(t_lit(names[i]), 1000 + i);
	}
	ev.type = TRACEBUF_LIB_FXT_EVENT_DURATION_BEGIN;
	ev.thread = tracebuf_fxt_thread_inline(1, 2);
	ev.args = args;
	for (n = 0; n <= TRACEBUF_LIB_FXT_ARGS_MAX; n++) {
		int size;

		ev.nargs = n;
		size = ENCODE(w, tracebuf_fxt_event_write, &ev);
		T_ASSERT_EQ(size, 32 + 24 * n);
		T_ASSERT_EQ(decode_one(w, (size_t)size, &rec), 1);
		T_ASSERT_EQ(rec.nargs, n);
		for (i = 0; i < n; i++) {
			T_EXPECT_STR(rec.args[i].name, names[i]);
			T_EXPECT_EQ(rec.args[i].u64, 1000 + i);
		}

		tracebuf_fxt_kobj_process(&o, 55, t_lit("process name"));
		o.args = args;
		o.nargs = n;
		size = ENCODE(w, tracebuf_fxt_kobj_write, &o);
		T_ASSERT_EQ(size, 32 + 24 * n);
		T_ASSERT_EQ(decode_one(w, (size_t)size, &rec), 1);
		T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_KERNEL_OBJECT);
		T_EXPECT_EQ(rec.kobj.obj_type, TRACEBUF_LIB_FXT_OBJ_PROCESS);
		T_EXPECT_EQ(rec.kobj.koid, 55);
		T_EXPECT_STR(rec.kobj.name, "process name");
		T_ASSERT_EQ(rec.nargs, n);
		for (i = 0; i < n; i++)
			T_EXPECT_EQ(rec.args[i].u64, 1000 + i);
	}
}

static void roundtrip_kobj_thread(void)
{
	static struct tracebuf_reader_record rec;
	struct tracebuf_fxt_kobj o;
	struct tracebuf_fxt_arg parg;
	uint64_t w[16];
	int size;

	tracebuf_fxt_kobj_thread(&o, &parg, 0x8000000000000123ULL, 77, t_lit("worker-3"));
	size = ENCODE(w, tracebuf_fxt_kobj_write, &o);
	T_ASSERT(size > 0);
	T_ASSERT_EQ(decode_one(w, (size_t)size, &rec), 1);
	T_EXPECT_EQ(rec.kobj.obj_type, TRACEBUF_LIB_FXT_OBJ_THREAD);
	T_EXPECT_EQ(rec.kobj.koid, 0x8000000000000123ULL);
	T_EXPECT_STR(rec.kobj.name, "worker-3");
	T_ASSERT_EQ(rec.nargs, 1);
	T_EXPECT_EQ(rec.args[0].type, TRACEBUF_LIB_FXT_ARG_KOID);
	T_EXPECT_STR(rec.args[0].name, "process");
	T_EXPECT_EQ(rec.args[0].koid, 77);
}

/*
 * Scheduling records: the bits Perfetto's FXT importer reads (a context
 * switch: cpu [20..35], outgoing state [36..39], event type 1 in
 * [60..63]; a wakeup: event type 2), every error, and what the reader
 * makes of them.
 */
static void sched_records(void)
{
	static struct tracebuf_reader_record rec;
	struct tracebuf_fxt_arg args[2] = {
		tracebuf_fxt_arg_int32(t_lit("outgoing_weight"), -3),
		tracebuf_fxt_arg_int32(t_lit("incoming_weight"), 7),
	};
	struct tracebuf_fxt_sched s = {
		.type = TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH,
		.ticks = 5000, .cpu = 0xffff,
		.outgoing_state = TRACEBUF_LIB_FXT_THREAD_BLOCKED,
		.outgoing_koid = 41, .incoming_koid = 0x8000000000000042ULL,
	};
	uint64_t w[16];

	memset(w, 0, sizeof(w));
	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_sched_write, &s), 32);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[0]), 0x1000003ffff00048ULL);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[1]), 5000);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[2]), 41);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[3]), 0x8000000000000042ULL);
	T_ASSERT_EQ(decode_one(w, 32, &rec), 1);
	T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_SCHEDULING);
	T_EXPECT_EQ(rec.sched.type, TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH);
	T_EXPECT_EQ(rec.sched.ticks, 5000);
	T_EXPECT_EQ(rec.sched.ns, 5000);
	T_EXPECT_EQ(rec.sched.cpu, 0xffff);
	T_EXPECT_EQ(rec.sched.outgoing_state, TRACEBUF_LIB_FXT_THREAD_BLOCKED);
	T_EXPECT_EQ(rec.sched.outgoing_koid, 41);
	T_EXPECT_EQ(rec.sched.incoming_koid, 0x8000000000000042ULL);
	T_EXPECT_EQ(rec.nargs, 0);

	/* with the two weights: 3 words each, names inline */
	s.args = args;
	s.nargs = 2;
	s.cpu = 3;
	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_sched_write, &s), 80);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[0]), 0x10000030003200a8ULL);
	T_ASSERT_EQ(decode_one(w, 80, &rec), 1);
	T_EXPECT_EQ(rec.sched.cpu, 3);
	T_ASSERT_EQ(rec.nargs, 2);
	T_EXPECT_STR(rec.args[0].name, "outgoing_weight");
	T_EXPECT_EQ(rec.args[0].i32, -3);
	T_EXPECT_STR(rec.args[1].name, "incoming_weight");
	T_EXPECT_EQ(rec.args[1].i32, 7);

	/* a wakeup: no outgoing thread, no state bits */
	s.type = TRACEBUF_LIB_FXT_SCHED_THREAD_WAKEUP;
	s.nargs = 0;
	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_sched_write, &s), 24);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[0]), 0x2000000000300038ULL);
	T_EXPECT_EQ(tracebuf_fxt_le64(w[2]), 0x8000000000000042ULL);
	T_ASSERT_EQ(decode_one(w, 24, &rec), 1);
	T_EXPECT_EQ(rec.sched.type, TRACEBUF_LIB_FXT_SCHED_THREAD_WAKEUP);
	T_EXPECT_EQ(rec.sched.incoming_koid, 0x8000000000000042ULL);
	T_EXPECT_EQ(rec.sched.outgoing_koid, 0);

	/* errors */
	T_EXPECT_EQ(tracebuf_fxt_sched_write(w, 16, &s), -ENOSPC);
	s.cpu = TRACEBUF_LIB_FXT_SCHED_CPU_MAX + 1;
	T_EXPECT_EQ(ENCODE(w, tracebuf_fxt_sched_write, &s), -EINVAL);
	s.cpu = 0;
	s.type = TRACEBUF_LIB_FXT_SCHED_LEGACY_SWITCH;
	T_EXPECT_EQ(ENCODE(w, tracebuf_fxt_sched_write, &s), -EINVAL);
	s.type = TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH;
	s.outgoing_state = 16;
	T_EXPECT_EQ(ENCODE(w, tracebuf_fxt_sched_write, &s), -EINVAL);
	s.outgoing_state = 0;
	s.nargs = 16;
	T_EXPECT_EQ(ENCODE(w, tracebuf_fxt_sched_write, &s), -E2BIG);
}

static void roundtrip_durable_records(void)
{
	static struct tracebuf_reader_record rec;
	uint64_t w[8];
	unsigned int len;

	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_init_write, 19200000), 16);
	T_ASSERT_EQ(decode_one(w, 16, &rec), 1);
	T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_INIT);
	T_EXPECT_EQ(rec.init.ticks_per_second, 19200000);

	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_thread_write, 255, UINT64_MAX, 0), 24);
	T_ASSERT_EQ(decode_one(w, 24, &rec), 1);
	T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_THREAD);
	T_EXPECT_EQ(rec.thread.index, 255);
	T_EXPECT_EQ(rec.thread.process_koid, UINT64_MAX);
	T_EXPECT_EQ(rec.thread.thread_koid, 0);

	for (len = 0; len <= 17; len++) {
		int size = ENCODE(w, tracebuf_fxt_string_write, 0x7fff, "0123456789abcdefg", len);

		T_ASSERT_EQ(size, 8 + (int)((len + 7) / 8 * 8));
		T_ASSERT_EQ(decode_one(w, (size_t)size, &rec), 1);
		T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_STRING);
		T_EXPECT_EQ(rec.string.index, 0x7fff);
		T_EXPECT_EQ(rec.string.str.len, len);
		T_EXPECT(!memcmp(rec.string.str.data ? rec.string.str.data : "",
				 "0123456789abcdefg", len));
	}
}

static void roundtrip_metadata(void)
{
	static struct tracebuf_reader_record rec;
	char name[TRACEBUF_LIB_FXT_PROVIDER_NAME_MAX];
	uint64_t w[40];
	int size;

	memset(name, 'p', sizeof(name));
	size = ENCODE(w, tracebuf_fxt_provider_info_write, 0xfffffffeu, name, sizeof(name));
	T_ASSERT_EQ(size, 8 + 256);
	T_ASSERT_EQ(decode_one(w, (size_t)size, &rec), 1);
	T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_METADATA);
	T_EXPECT_EQ(rec.meta.type, TRACEBUF_LIB_FXT_META_PROVIDER_INFO);
	T_EXPECT_EQ(rec.meta.provider_id, 0xfffffffeu);
	T_EXPECT_EQ(rec.provider_id, 0xfffffffeu);
	T_EXPECT_EQ(rec.meta.name.len, sizeof(name));
	T_EXPECT_EQ(rec.provider_name.len, sizeof(name));

	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_provider_section_write, 3), 8);
	T_ASSERT_EQ(decode_one(w, 8, &rec), 1);
	T_EXPECT_EQ(rec.meta.type, TRACEBUF_LIB_FXT_META_PROVIDER_SECTION);
	T_EXPECT_EQ(rec.meta.provider_id, 3);
	T_EXPECT_EQ(rec.provider_id, 3);

	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_provider_event_write, 3, 15), 8);
	T_ASSERT_EQ(decode_one(w, 8, &rec), 1);
	T_EXPECT_EQ(rec.meta.type, TRACEBUF_LIB_FXT_META_PROVIDER_EVENT);
	T_EXPECT_EQ(rec.meta.provider_id, 3);
	T_EXPECT_EQ(rec.meta.event, 15);
	T_EXPECT_EQ(rec.provider_id, 0);	/* does not switch */

	T_ASSERT_EQ(tracebuf_fxt_magic_write(w, sizeof(w)), 8);
	T_ASSERT_EQ(decode_one(w, 8, &rec), 1);
	T_EXPECT_EQ(rec.meta.type, TRACEBUF_LIB_FXT_META_TRACE_INFO);
	T_EXPECT_EQ(rec.meta.trace_info_type, TRACEBUF_LIB_FXT_TRACE_INFO_MAGIC);
	T_EXPECT_EQ(rec.meta.trace_info, TRACEBUF_LIB_FXT_MAGIC_VALUE);
}

static void roundtrip_blobs(void)
{
	static struct tracebuf_reader_record rec;
	static char payload[TRACEBUF_LIB_FXT_RECORD_MAX];
	static uint64_t w[TRACEBUF_LIB_FXT_RECORD_MAX_WORDS + 1];
	struct tracebuf_fxt_str names[3];
	unsigned int len, n, type;
	size_t i;

	for (i = 0; i < sizeof(payload); i++)
		payload[i] = (char)(i * 7);
	names[0] = tracebuf_fxt_str_empty();
	names[1] = t_lit("blob name");
	names[2] = tracebuf_fxt_str_index(5);	/* unresolved: empty */
	for (n = 0; n < 3; n++) {
		for (type = 1; type <= 3; type++) {
			for (len = 0; len <= 24; len++) {
				int size = ENCODE(w, tracebuf_fxt_blob_write, type, &names[n],
						  payload, len);

				T_ASSERT_EQ(size, 8 + (int)tracebuf_fxt_str_size(&names[n]) +
						  (int)((len + 7) / 8 * 8));
				T_ASSERT_EQ(decode_one(w, (size_t)size, &rec), 1);
				T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_BLOB);
				T_EXPECT_EQ(rec.blob.type, type);
				T_EXPECT_EQ(rec.blob.name.len, n == 1 ? 9 : 0);
				T_EXPECT_EQ(rec.blob.payload.len, len);
				if (len)
					T_EXPECT_MEM(rec.blob.payload.data, payload, len);
			}
		}
	}
	/* The largest blob: one 0xfff-word record. */
	len = TRACEBUF_LIB_FXT_RECORD_MAX - 8;
	T_ASSERT_EQ(ENCODE(w, tracebuf_fxt_blob_write, 1, &names[0], payload, len),
		    TRACEBUF_LIB_FXT_RECORD_MAX);
	T_ASSERT_EQ(decode_one(w, TRACEBUF_LIB_FXT_RECORD_MAX, &rec), 1);
	T_EXPECT_EQ(rec.blob.payload.len, len);
	T_EXPECT_MEM(rec.blob.payload.data, payload, len);
}

/* The longest inline strings: 32000 bytes, in every place a string goes. */
static void roundtrip_max_strings(void)
{
	static struct tracebuf_reader_record rec;
	static char s[TRACEBUF_LIB_FXT_STRING_MAX];
	static uint64_t w[TRACEBUF_LIB_FXT_RECORD_MAX_WORDS];
	struct tracebuf_fxt_event ev = { 0 };
	struct tracebuf_fxt_arg arg;
	struct tracebuf_fxt_kobj o;
	size_t i;
	int size;

	for (i = 0; i < sizeof(s); i++)
		s[i] = (char)('a' + i % 26);
	size = ENCODE(w, tracebuf_fxt_string_write, 1, s, sizeof(s));
	T_ASSERT_EQ(size, 8 + TRACEBUF_LIB_FXT_STRING_MAX);
	T_ASSERT_EQ(decode_one(w, (size_t)size, &rec), 1);
	T_EXPECT_EQ(rec.string.str.len, sizeof(s));
	T_EXPECT_MEM(rec.string.str.data, s, sizeof(s));

	ev.type = TRACEBUF_LIB_FXT_EVENT_ASYNC_END;
	ev.thread = tracebuf_fxt_thread_inline(1, 2);
	ev.extra = 99;
	ev.category = tracebuf_fxt_str_inline(s, sizeof(s));
	size = ENCODE(w, tracebuf_fxt_event_write, &ev);
	T_ASSERT_EQ(size, 16 + 16 + TRACEBUF_LIB_FXT_STRING_MAX + 8);
	T_ASSERT_EQ(decode_one(w, (size_t)size, &rec), 1);
	T_EXPECT_MEM(rec.event.category.data, s, sizeof(s));
	T_EXPECT_EQ(rec.event.category.len, sizeof(s));
	T_EXPECT_EQ(rec.event.async_id, 99);

	ev.category = tracebuf_fxt_str_empty();
	ev.name = tracebuf_fxt_str_inline(s, sizeof(s));
	size = ENCODE(w, tracebuf_fxt_event_write, &ev);
	T_ASSERT(size > 0);
	T_ASSERT_EQ(decode_one(w, (size_t)size, &rec), 1);
	T_EXPECT_MEM(rec.event.name.data, s, sizeof(s));

	ev.name = tracebuf_fxt_str_empty();
	arg = tracebuf_fxt_arg_string(t_lit("long"), tracebuf_fxt_str_inline(s, sizeof(s)));
	ev.args = &arg;
	ev.nargs = 1;
	size = ENCODE(w, tracebuf_fxt_event_write, &ev);
	T_ASSERT(size > 0);
	T_ASSERT_EQ(decode_one(w, (size_t)size, &rec), 1);
	T_ASSERT_EQ(rec.nargs, 1);
	T_EXPECT_EQ(rec.args[0].str.len, sizeof(s));
	T_EXPECT_MEM(rec.args[0].str.data, s, sizeof(s));

	arg = tracebuf_fxt_arg_int32(tracebuf_fxt_str_inline(s, sizeof(s)), 1);
	size = ENCODE(w, tracebuf_fxt_event_write, &ev);
	T_ASSERT(size > 0);
	T_ASSERT_EQ(decode_one(w, (size_t)size, &rec), 1);
	T_EXPECT_MEM(rec.args[0].name.data, s, sizeof(s));

	tracebuf_fxt_kobj_process(&o, 1, tracebuf_fxt_str_inline(s, sizeof(s)));
	size = ENCODE(w, tracebuf_fxt_kobj_write, &o);
	T_ASSERT(size > 0);
	T_ASSERT_EQ(decode_one(w, (size_t)size, &rec), 1);
	T_EXPECT_MEM(rec.kobj.name.data, s, sizeof(s));
}

/* The hot path: a shape computed once, then plain stores. */
static void event_shape_hot_path(void)
{
	struct tracebuf_fxt_arg args[2];
	struct tracebuf_fxt_event ev = { 0 };
	struct tracebuf_fxt_event_shape shape;
	uint64_t a[16], b[16], *end;
	int i;

	args[0] = tracebuf_fxt_arg_int64(tracebuf_fxt_str_index(4), 0);
	args[1] = tracebuf_fxt_arg_string(tracebuf_fxt_str_index(5), tracebuf_fxt_str_index(6));
	ev.type = TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE;
	ev.thread = tracebuf_fxt_thread_index(3);
	ev.category = tracebuf_fxt_str_index(1);
	ev.name = tracebuf_fxt_str_index(2);
	ev.args = args;
	ev.nargs = 2;
	T_ASSERT_EQ(tracebuf_fxt_event_shape(&shape, &ev), 0);
	T_EXPECT_EQ(shape.size, 8 + 8 + 16 + 8 + 8);
	for (i = 0; i < 100; i++) {
		ev.ticks = (uint64_t)i * 3;
		ev.extra = (uint64_t)i * 3 + 2;
		args[0].i64 = -i;
		memset(a, 0xee, sizeof(a));
		memset(b, 0xee, sizeof(b));
		end = tracebuf_fxt_event_put(a, &shape, &ev);
		T_ASSERT_EQ((char *)end - (char *)a, shape.size);
		T_ASSERT_EQ(tracebuf_fxt_event_write(b, sizeof(b), &ev), (int)shape.size);
		T_EXPECT_MEM(a, b, sizeof(a));
	}
}

static void ticks_conversion(void)
{
	static struct tracebuf_reader_record rec;
	struct tracebuf_fxt_event ev = { 0 };
	struct t_trace t;
	struct tracebuf_reader *r;
	static const struct {
		uint64_t tps, ticks, ns;
	} cases[] = {
		{ 1000000, 5, 5000 },
		{ 3000000000ULL, 3000000000ULL, 1000000000 },
		{ 3000000000ULL, 1, 0 },
		{ 1000000000, UINT64_MAX, UINT64_MAX },
		{ 1, 1ULL << 62, UINT64_MAX },			/* saturates */
		{ 19200000, 19200000ULL * 3600, 3600000000000ULL },
		{ UINT64_MAX, UINT64_MAX, 1000000000 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		t_trace_init(&t, 256);
		T_ASSERT(t.w);
		T_PUT(&t, tracebuf_fxt_init_write, cases[i].tps);
		ev.type = TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE;
		ev.ticks = cases[i].ticks;
		ev.extra = cases[i].ticks;
		T_PUT(&t, tracebuf_fxt_event_write, &ev);
		T_ASSERT_EQ(t.error, 0);
		T_ASSERT_EQ(tracebuf_reader_open_mem(t.w, t.len, 0, &r), 0);
		T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 1);
		T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 1);
		T_EXPECT_EQ(rec.event.ns, cases[i].ns);
		T_EXPECT_EQ(rec.event.end_ns, cases[i].ns);
		tracebuf_reader_close(r);
		t_trace_free(&t);
	}
}

static void field_helpers(void)
{
	T_EXPECT_EQ(tracebuf_fxt_field(0x1ff, 4, 7), 0xf0);
	T_EXPECT_EQ(tracebuf_fxt_field(UINT64_MAX, 0, 63), UINT64_MAX);
	T_EXPECT_EQ(tracebuf_fxt_field(1, 63, 63), 1ULL << 63);
	T_EXPECT_EQ(tracebuf_fxt_get(0xabcd0000, 16, 31), 0xabcd);
	T_EXPECT_EQ(tracebuf_fxt_get(UINT64_MAX, 0, 63), UINT64_MAX);
	T_EXPECT_EQ(tracebuf_fxt_pad(0), 0);
	T_EXPECT_EQ(tracebuf_fxt_pad(1), 8);
	T_EXPECT_EQ(tracebuf_fxt_pad(8), 8);
	T_EXPECT_EQ(tracebuf_fxt_pad(9), 16);
	T_EXPECT_EQ(tracebuf_fxt_words(17), 3);
	T_EXPECT_EQ(tracebuf_fxt_header(4, 0xfff * 8), 0xfff4);
	T_EXPECT_EQ(tracebuf_fxt_pad_records(8), 1);
	T_EXPECT_EQ(tracebuf_fxt_pad_records(0xfff * 8), 1);
	T_EXPECT_EQ(tracebuf_fxt_pad_records(0x1000 * 8), 2);
	{
		struct tracebuf_fxt_str s = t_lit("abc");

		T_EXPECT_EQ(tracebuf_fxt_str_ref(&s), 0x8003);
		s = tracebuf_fxt_str_index(0x7fff);
		T_EXPECT_EQ(tracebuf_fxt_str_ref(&s), 0x7fff);
		s = tracebuf_fxt_str_empty();
		T_EXPECT_EQ(tracebuf_fxt_str_ref(&s), 0);
	}
}

static const struct t_test tests[] = {
	T_TEST(field_helpers),
	T_TEST(layout_magic),
	T_TEST(layout_string_record),
	T_TEST(layout_instant_event),
	T_TEST(layout_other_records),
	T_TEST(errors),
	T_TEST(roundtrip_event_types),
	T_TEST(roundtrip_arg_types_ref_names),
	T_TEST(roundtrip_arg_types_inline_names),
	T_TEST(roundtrip_arg_counts),
	T_TEST(roundtrip_kobj_thread),
	T_TEST(sched_records),
	T_TEST(roundtrip_durable_records),
	T_TEST(roundtrip_metadata),
	T_TEST(roundtrip_blobs),
	T_TEST(roundtrip_max_strings),
	T_TEST(event_shape_hot_path),
	T_TEST(ticks_conversion),
};

T_MAIN(tests)
