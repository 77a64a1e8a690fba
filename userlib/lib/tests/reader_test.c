// SPDX-License-Identifier: MIT
/*
 * Description: the FXT reader and walker (tracebuf_reader.h): per-provider
 * state as userlib/Documentation/trace-format.md §4.1 describes it, table refs, the
 * flags, forward compatibility (unknown records, subtypes, arguments),
 * every kind of malformed record, files, padding of every size and the
 * walker on truncated buffers.
 */
#include "ktap.h"
#include "helpers.h"

#include <fcntl.h>

/* Header word of a hand-built record. */
#define HDR(type, words)	((uint64_t)(type) | (uint64_t)(words) << 4)

static struct tracebuf_reader_record rec;

/* Open buf, which the test fails on. */
#define OPEN(r, buf, len, flags)	T_ASSERT_EQ(tracebuf_reader_open_mem(buf, len, flags, r), 0)
#define NEXT_OK(r)			T_ASSERT_EQ(tracebuf_reader_next(r, &rec), 1)

static void sample_trace_decodes(void)
{
	struct tracebuf_reader *r;
	struct t_trace t;
	unsigned int i;

	t_trace_init(&t, 8192);
	T_ASSERT(t.w);
	t_sample_trace(&t);
	T_ASSERT_EQ(t.error, 0);
	OPEN(&r, t.w, t.len, TRACEBUF_LIB_READER_STRICT | TRACEBUF_LIB_READER_MAGIC);

	NEXT_OK(r);
	T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_METADATA);
	T_EXPECT_EQ(rec.meta.type, TRACEBUF_LIB_FXT_META_TRACE_INFO);
	T_EXPECT_EQ(rec.offset, 0);
	T_EXPECT_EQ(rec.size, 8);
	T_EXPECT_EQ(rec.provider_id, 0);
	NEXT_OK(r);
	T_EXPECT_EQ(rec.meta.type, TRACEBUF_LIB_FXT_META_PROVIDER_INFO);
	T_EXPECT_EQ(rec.provider_id, 1);
	T_EXPECT_STR(rec.provider_name, "alpha");
	T_EXPECT_STR(rec.meta.name, "alpha");
	NEXT_OK(r);
	T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_INIT);
	T_EXPECT_EQ(rec.init.ticks_per_second, T_TPS1);
	for (i = 1; i <= 4; i++) {
		NEXT_OK(r);
		T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_STRING);
		T_EXPECT_EQ(rec.string.index, i);
	}
	T_EXPECT_STR(rec.string.str, "value");
	NEXT_OK(r);
	T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_THREAD);
	T_EXPECT_EQ(rec.thread.index, 1);
	T_EXPECT_EQ(rec.thread.process_koid, 100);
	T_EXPECT_EQ(rec.thread.thread_koid, 101);
	NEXT_OK(r);
	T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_KERNEL_OBJECT);
	T_EXPECT_EQ(rec.kobj.obj_type, TRACEBUF_LIB_FXT_OBJ_PROCESS);
	T_EXPECT_EQ(rec.kobj.koid, 100);
	T_EXPECT_STR(rec.kobj.name, "proc");
	T_EXPECT_EQ(rec.nargs, 0);
	NEXT_OK(r);
	T_EXPECT_EQ(rec.kobj.obj_type, TRACEBUF_LIB_FXT_OBJ_THREAD);
	T_EXPECT_EQ(rec.kobj.koid, 101);
	T_EXPECT_STR(rec.kobj.name, "name");
	T_EXPECT_EQ(rec.nargs, 1);
	T_EXPECT_STR(rec.args[0].name, "process");
	T_EXPECT_EQ(rec.args[0].koid, 100);

	for (i = 0; i <= TRACEBUF_LIB_FXT_EVENT_TYPE_MAX; i++) {
		NEXT_OK(r);
		T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_EVENT);
		T_EXPECT_EQ(rec.provider_id, 1);
		T_EXPECT_EQ(rec.event.type, i);
		T_EXPECT_EQ(rec.event.ticks, 10 + i);
		T_EXPECT_EQ(rec.event.ns, (10 + i) * 1000);	/* microsecond ticks */
		T_EXPECT_EQ(rec.event.thread_ref, 1);
		T_EXPECT_EQ(rec.event.process_koid, 100);
		T_EXPECT_EQ(rec.event.thread_koid, 101);
		T_EXPECT_STR(rec.event.category, "cat");
		T_EXPECT_STR(rec.event.name, "name");
		T_EXPECT_EQ(rec.event.extra, tracebuf_fxt_event_has_extra(i) ? 1000 + i : 0);
	}
	T_EXPECT_EQ(rec.event.flow_id, 1010);
	NEXT_OK(r);	/* the counter with 15 arguments */
	T_EXPECT_EQ(rec.event.type, TRACEBUF_LIB_FXT_EVENT_COUNTER);
	T_EXPECT_EQ(rec.event.counter_id, 77);
	T_EXPECT_EQ(rec.event.ns, 2000000000ULL);
	T_EXPECT_EQ(rec.event.thread_ref, 0);
	T_EXPECT_EQ(rec.event.process_koid, 300);
	T_EXPECT_EQ(rec.event.thread_koid, 301);
	T_EXPECT_STR(rec.event.category, "inline-cat");
	T_EXPECT_STR(rec.event.name, "inline-name");
	T_ASSERT_EQ(rec.nargs, 15);
	T_EXPECT_STR(rec.args[0].name, "arg");
	T_EXPECT_EQ(rec.args[0].type, TRACEBUF_LIB_FXT_ARG_NULL);
	T_EXPECT_EQ(rec.args[1].i32, -5);
	T_EXPECT_EQ(rec.args[2].u32, 0xfffffff0u);
	T_EXPECT_EQ(rec.args[3].i64, INT64_MIN);
	T_EXPECT_EQ(rec.args[4].u64, UINT64_MAX);
	T_EXPECT(rec.args[5].dbl == -2.5);
	T_EXPECT_STR(rec.args[6].str, "value");
	T_EXPECT_STR(rec.args[7].str, "inline value");
	T_EXPECT_STR(rec.args[7].name, "str");
	T_EXPECT_EQ(rec.args[8].ptr, 0xdeadbeefcafeULL);
	T_EXPECT_EQ(rec.args[9].koid, 0x8000000000000001ULL);
	T_EXPECT_EQ(rec.args[10].b, true);
	T_EXPECT_EQ(rec.args[11].b, false);
	T_EXPECT_STR(rec.args[12].str, "");
	T_EXPECT_STR(rec.args[13].name, "");
	T_EXPECT_EQ(rec.args[14].i32, 7);
	T_EXPECT_STR(rec.args[14].name, "last");
	NEXT_OK(r);
	T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_BLOB);
	T_EXPECT_EQ(rec.blob.type, TRACEBUF_LIB_FXT_BLOB_PERFETTO);
	T_EXPECT_STR(rec.blob.name, "blob");
	T_EXPECT_STR(rec.blob.payload, "0123456789");

	/* Provider 2: its own rate and tables. */
	NEXT_OK(r);
	T_EXPECT_EQ(rec.meta.type, TRACEBUF_LIB_FXT_META_PROVIDER_INFO);
	T_EXPECT_EQ(rec.provider_id, 2);
	T_EXPECT_STR(rec.provider_name, "beta");
	NEXT_OK(r);
	NEXT_OK(r);
	NEXT_OK(r);
	NEXT_OK(r);
	T_EXPECT_EQ(rec.event.type, TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE);
	T_EXPECT_EQ(rec.provider_id, 2);
	T_EXPECT_STR(rec.event.category, "other");
	T_EXPECT_STR(rec.event.name, "other");
	T_EXPECT_EQ(rec.event.process_koid, 200);
	T_EXPECT_EQ(rec.event.thread_koid, 201);
	T_EXPECT_EQ(rec.event.ns, 1000000000ULL);
	T_EXPECT_EQ(rec.event.end_ns, 2000000000ULL);

	/* Back in provider 1's section: its tables and rate again. */
	NEXT_OK(r);
	T_EXPECT_EQ(rec.meta.type, TRACEBUF_LIB_FXT_META_PROVIDER_SECTION);
	T_EXPECT_EQ(rec.provider_id, 1);
	T_EXPECT_STR(rec.provider_name, "alpha");
	NEXT_OK(r);
	T_EXPECT_EQ(rec.meta.type, TRACEBUF_LIB_FXT_META_PROVIDER_EVENT);
	T_EXPECT_EQ(rec.meta.event, TRACEBUF_LIB_FXT_PROVIDER_EVENT_BUFFER_OVERFLOW);
	T_EXPECT_EQ(rec.meta.provider_id, 1);
	NEXT_OK(r);
	T_EXPECT_EQ(rec.event.type, TRACEBUF_LIB_FXT_EVENT_INSTANT);
	T_EXPECT_STR(rec.event.category, "cat");
	T_EXPECT_STR(rec.event.name, "name");
	T_EXPECT_EQ(rec.event.process_koid, 100);
	T_EXPECT_EQ(rec.event.ns, 5000);
	NEXT_OK(r);
	T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_BLOB);
	T_EXPECT_EQ(rec.blob.type, TRACEBUF_LIB_FXT_BLOB_DATA);
	T_EXPECT_EQ(rec.blob.payload.len, 16);
	T_EXPECT_EQ(rec.offset + rec.size, t.len);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 0);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 0);
	T_EXPECT_EQ(tracebuf_reader_unresolved_refs(r), 0);
	T_EXPECT_STR(((struct tracebuf_reader_str){ tracebuf_reader_error(r), 0 }), "");
	tracebuf_reader_close(r);

	{
		struct t_result res = t_read_all(t.w, t.len, 0);

		T_EXPECT_EQ(res.ret, 0);
		T_EXPECT_EQ(res.records, T_SAMPLE_RECORDS);
		T_EXPECT(res.bounds_ok);
	}
	t_trace_free(&t);
}

/* A repeated provider info record starts that provider afresh. */
static void provider_info_resets_state(void)
{
	struct tracebuf_fxt_event ev = { 0 };
	struct tracebuf_reader *r;
	struct t_trace t;

	t_trace_init(&t, 1024);
	T_ASSERT(t.w);
	T_PUT(&t, tracebuf_fxt_provider_info_write, 9, "first", 5);
	T_PUT(&t, tracebuf_fxt_init_write, 1000);
	T_PUT(&t, tracebuf_fxt_string_write, 1, "one", 3);
	T_PUT(&t, tracebuf_fxt_provider_section_write, 10);	/* a new, empty provider */
	ev.thread = tracebuf_fxt_thread_index(1);
	ev.name = tracebuf_fxt_str_index(1);
	ev.ticks = 7;
	T_PUT(&t, tracebuf_fxt_event_write, &ev);
	T_PUT(&t, tracebuf_fxt_provider_section_write, 9);
	T_PUT(&t, tracebuf_fxt_event_write, &ev);
	T_PUT(&t, tracebuf_fxt_provider_info_write, 9, "second", 6);
	T_PUT(&t, tracebuf_fxt_event_write, &ev);
	T_ASSERT_EQ(t.error, 0);

	OPEN(&r, t.w, t.len, 0);
	NEXT_OK(r);
	NEXT_OK(r);
	NEXT_OK(r);
	NEXT_OK(r);
	T_EXPECT_EQ(rec.provider_id, 10);
	T_EXPECT_STR(rec.provider_name, "");
	NEXT_OK(r);
	T_EXPECT_STR(rec.event.name, "");	/* provider 10 has no string 1 */
	T_EXPECT_EQ(rec.event.ns, 7);
	T_EXPECT_EQ(tracebuf_reader_unresolved_refs(r), 2);	/* thread and name */
	NEXT_OK(r);
	NEXT_OK(r);
	T_EXPECT_STR(rec.event.name, "one");
	T_EXPECT_EQ(rec.event.ns, 7000000);
	T_EXPECT_EQ(tracebuf_reader_unresolved_refs(r), 3);
	NEXT_OK(r);
	T_EXPECT_STR(rec.provider_name, "second");
	NEXT_OK(r);
	T_EXPECT_STR(rec.event.name, "");	/* fresh tables */
	T_EXPECT_EQ(rec.event.ns, 7);		/* and rate */
	T_EXPECT_EQ(tracebuf_reader_unresolved_refs(r), 5);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 0);
	tracebuf_reader_close(r);
	t_trace_free(&t);
}

static void strict_refs(void)
{
	struct tracebuf_fxt_arg arg = tracebuf_fxt_arg_string(t_lit("a"), tracebuf_fxt_str_index(3));
	struct tracebuf_fxt_event ev = { 0 };
	struct tracebuf_reader *r;
	struct t_trace t;

	t_trace_init(&t, 1024);
	T_ASSERT(t.w);
	T_PUT(&t, tracebuf_fxt_thread_write, 2, 1, 2);
	ev.thread = tracebuf_fxt_thread_index(2);
	T_PUT(&t, tracebuf_fxt_event_write, &ev);	/* fine */
	ev.args = &arg;
	ev.nargs = 1;
	T_PUT(&t, tracebuf_fxt_event_write, &ev);	/* string 3 is missing */
	T_ASSERT_EQ(t.error, 0);

	OPEN(&r, t.w, t.len, TRACEBUF_LIB_READER_STRICT);
	NEXT_OK(r);
	NEXT_OK(r);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), -ENOENT);
	T_EXPECT_EQ(tracebuf_reader_error_offset(r), 24 + 16);
	T_EXPECT(strstr(tracebuf_reader_error(r), "string ref 3"));
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), -ENOENT);
	tracebuf_reader_close(r);

	OPEN(&r, t.w, t.len, 0);
	NEXT_OK(r);
	NEXT_OK(r);
	NEXT_OK(r);
	T_EXPECT_EQ(rec.args[0].str.len, 0);
	T_EXPECT_EQ(tracebuf_reader_unresolved_refs(r), 1);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 0);
	tracebuf_reader_close(r);

	/* A missing thread under STRICT. */
	ev.thread = tracebuf_fxt_thread_index(3);
	ev.nargs = 0;
	t.len = 0;
	T_PUT(&t, tracebuf_fxt_event_write, &ev);
	OPEN(&r, t.w, t.len, TRACEBUF_LIB_READER_STRICT);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), -ENOENT);
	T_EXPECT(strstr(tracebuf_reader_error(r), "thread ref 3"));
	tracebuf_reader_close(r);
	t_trace_free(&t);
}

static void magic_flag(void)
{
	static const uint64_t init[2] = { HDR(1, 2), 1000 };
	uint64_t magic = tracebuf_fxt_le64(TRACEBUF_LIB_FXT_MAGIC);
	struct t_result res;

	res = t_read_all(init, sizeof(init), TRACEBUF_LIB_READER_MAGIC);
	T_EXPECT_EQ(res.ret, -EBADMSG);
	T_EXPECT_EQ(res.records, 0);
	res = t_read_all(init, sizeof(init), 0);
	T_EXPECT_EQ(res.ret, 0);
	T_EXPECT_EQ(res.records, 1);
	res = t_read_all(&magic, 8, TRACEBUF_LIB_READER_MAGIC);
	T_EXPECT_EQ(res.ret, 0);
	T_EXPECT_EQ(res.records, 1);
	res = t_read_all(&magic, 0, TRACEBUF_LIB_READER_MAGIC);
	T_EXPECT_EQ(res.ret, -EBADMSG);
	res = t_read_all(NULL, 0, 0);
	T_EXPECT_EQ(res.ret, 0);
	T_EXPECT_EQ(res.records, 0);
}

/* Records, subtypes and arguments of unknown types are returned and skipped. */
static void unknown_types_skipped(void)
{
	static uint64_t big[0x1002];
	struct tracebuf_reader *r;
	struct t_trace t;
	unsigned int type;

	t_trace_init(&t, 4096);
	T_ASSERT(t.w);
	for (type = 10; type <= 14; type++) {
		uint64_t w[3] = { HDR(type, 3) | 0xffffffffffff0000ULL, 1, 2 };

		t_words(&t, w, 3);
	}
	{
		/* scheduling event type 7, metadata type 9, trace info type 5 */
		uint64_t w[] = { HDR(8, 4) | 7ULL << 60 | 0xffffULL << 16, 1, 2, 3,
				 HDR(0, 2) | 9 << 16, 0,
				 HDR(0, 1) | 4 << 16 | 5 << 20 | 0xabcdULL << 24 };

		t_words(&t, w, sizeof(w) / 8);
	}
	T_ASSERT_EQ(t.error, 0);
	OPEN(&r, t.w, t.len, TRACEBUF_LIB_READER_STRICT);
	for (type = 10; type <= 14; type++) {
		NEXT_OK(r);
		T_EXPECT_EQ(rec.type, type);
		T_EXPECT_EQ(rec.size, 24);
	}
	NEXT_OK(r);
	T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_SCHEDULING);
	T_EXPECT_EQ(rec.sched.type, 7);
	T_EXPECT_EQ(rec.sched.ticks, 0);	/* not decoded */
	T_EXPECT_EQ(rec.nargs, 0);
	T_EXPECT_EQ(rec.size, 32);
	NEXT_OK(r);
	T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_METADATA);
	T_EXPECT_EQ(rec.meta.type, 9);
	NEXT_OK(r);
	T_EXPECT_EQ(rec.meta.type, TRACEBUF_LIB_FXT_META_TRACE_INFO);
	T_EXPECT_EQ(rec.meta.trace_info_type, 5);
	T_EXPECT_EQ(rec.meta.trace_info, 0xabcd);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 0);
	tracebuf_reader_close(r);

	/* Unknown event type with an unknown argument type. */
	t.len = 0;
	{
		uint64_t w[] = {
			/* event type 12, 2 args, inline thread, name inline "zz" */
			HDR(4, 9) | 12 << 16 | 2 << 20 | 0x8002ULL << 48, 99, 5, 6, 0x7a7a,
			HDR(1, 1) | 0x12345678ULL << 32,
			HDR(13, 3) | 0x8002ULL << 16 | 0xffULL << 32, 0x7979, 0x1122334455667788ULL,
			/* event type 0 with a 1-word argument of type 14 */
			HDR(4, 5) | 1 << 20, 1, 7, 8, HDR(14, 1),
		};

		t_words(&t, w, sizeof(w) / 8);
	}
	T_ASSERT_EQ(t.error, 0);
	OPEN(&r, t.w, t.len, 0);
	NEXT_OK(r);
	T_EXPECT_EQ(rec.event.type, 12);
	T_EXPECT_EQ(rec.event.ticks, 99);
	T_EXPECT_EQ(rec.event.process_koid, 5);
	T_EXPECT_EQ(rec.event.thread_koid, 6);
	T_EXPECT_STR(rec.event.name, "zz");
	T_EXPECT_EQ(rec.event.extra, 0);
	T_ASSERT_EQ(rec.nargs, 2);
	T_EXPECT_EQ(rec.args[0].i32, 0x12345678);
	T_EXPECT_EQ(rec.args[1].type, 13);
	T_EXPECT_STR(rec.args[1].name, "yy");
	T_EXPECT_EQ(rec.args[1].raw.len, 8);
	NEXT_OK(r);
	T_ASSERT_EQ(rec.nargs, 1);
	T_EXPECT_EQ(rec.args[0].type, 14);
	T_EXPECT_EQ(rec.args[0].raw.len, 0);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 0);
	tracebuf_reader_close(r);
	t_trace_free(&t);

	/*
	 * A large record (type 15) takes its size from [4..35]: 0x1001
	 * words, whose low 12 bits would say 1.
	 */
	big[0] = tracebuf_fxt_le64(HDR(15, 0x1001) | 1ULL << 40);
	big[0x1001] = tracebuf_fxt_le64(HDR(1, 2));
	OPEN(&r, big, sizeof(big), 0);
	NEXT_OK(r);
	T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_LARGE);
	T_EXPECT_EQ(rec.size, 0x1001 * 8);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), -EBADMSG);	/* init cut short */
	tracebuf_reader_close(r);
	{
		size_t valid = 1;

		T_EXPECT_EQ(tracebuf_fxt_walk(big, sizeof(big) - 8, &valid), 1);
		T_EXPECT_EQ(valid, 0x1001 * 8);
	}
}

/* Log and userspace object records, which only the reader knows. */
static void log_and_userspace_objects(void)
{
	struct tracebuf_reader *r;
	struct t_trace t;
	uint64_t w[] = {
		HDR(3, 3) | 4 << 16, 40, 41,				/* thread 4 */
		HDR(1, 2), 2000000000,					/* 2 GHz */
		HDR(9, 4) | 11 << 16 | 4ULL << 32, 4000, 0, 0,	/* log "hello world" by thread 4 */
		HDR(9, 4), 6, 50, 51,					/* inline koids, empty message */
		/* userspace object 0x1000 of process 60 (inline), name "obj", 1 bool arg */
		HDR(6, 5) | 0x8003ULL << 24 | 1ULL << 40, 0x1000, 60, 0x6a626f, HDR(9, 1) | 1ULL << 32,
		/* the same with thread ref 4: process koid from the table */
		HDR(6, 2) | 4 << 16, 0x2000,
	};

	/* The stream's bytes, pre-swapped for t_words() (a no-op here). */
	memcpy(&w[7], "hello wo", 8);
	memcpy(&w[8], "rld\0\0\0\0\0", 8);
	w[7] = tracebuf_fxt_le64(w[7]);
	w[8] = tracebuf_fxt_le64(w[8]);
	t_trace_init(&t, 1024);
	T_ASSERT(t.w);
	t_words(&t, w, sizeof(w) / 8);
	OPEN(&r, t.w, t.len, TRACEBUF_LIB_READER_STRICT);
	NEXT_OK(r);
	NEXT_OK(r);
	NEXT_OK(r);
	T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_LOG);
	T_EXPECT_EQ(rec.log.ticks, 4000);
	T_EXPECT_EQ(rec.log.ns, 2000);
	T_EXPECT_EQ(rec.log.thread_ref, 4);
	T_EXPECT_EQ(rec.log.process_koid, 40);
	T_EXPECT_EQ(rec.log.thread_koid, 41);
	T_EXPECT_STR(rec.log.message, "hello world");
	NEXT_OK(r);
	T_EXPECT_EQ(rec.log.process_koid, 50);
	T_EXPECT_EQ(rec.log.thread_koid, 51);
	T_EXPECT_STR(rec.log.message, "");
	NEXT_OK(r);
	T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_USERSPACE_OBJECT);
	T_EXPECT_EQ(rec.uobj.pointer, 0x1000);
	T_EXPECT_EQ(rec.uobj.process_koid, 60);
	T_EXPECT_STR(rec.uobj.name, "obj");
	T_ASSERT_EQ(rec.nargs, 1);
	T_EXPECT_EQ(rec.args[0].b, true);
	NEXT_OK(r);
	T_EXPECT_EQ(rec.uobj.pointer, 0x2000);
	T_EXPECT_EQ(rec.uobj.thread_ref, 4);
	T_EXPECT_EQ(rec.uobj.process_koid, 40);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 0);
	tracebuf_reader_close(r);
	t_trace_free(&t);
}

/*
 * Scheduling records: the legacy context switch (thread refs, inline or
 * from the table, and priorities in the header), and records cut short.
 */
static void scheduling_records(void)
{
	struct tracebuf_reader *r;
	struct t_trace t;
	uint64_t w[] = {
		HDR(3, 3) | 4 << 16, 40, 41,				/* thread 4 */
		HDR(1, 2), 2000000000,					/* 2 GHz */
		/* legacy: cpu 5, blocked, out thread 4, in inline, prios 20, 255 */
		HDR(8, 4) | 5 << 16 | 3 << 24 | 4ULL << 28 | 20ULL << 44 | 255ULL << 52,
		6000, 50, 51,
		/* a wakeup with one int32 argument "w" */
		HDR(8, 5) | 1 << 16 | 16ULL << 20 | 2ULL << 60, 8000, 52,
		HDR(1, 2) | 0x8001ULL << 16 | 9ULL << 32, 0x77,
	};

	t_trace_init(&t, 1024);
	T_ASSERT(t.w);
	t_words(&t, w, sizeof(w) / 8);
	OPEN(&r, t.w, t.len, TRACEBUF_LIB_READER_STRICT);
	NEXT_OK(r);
	NEXT_OK(r);
	NEXT_OK(r);
	T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_SCHEDULING);
	T_EXPECT_EQ(rec.sched.type, TRACEBUF_LIB_FXT_SCHED_LEGACY_SWITCH);
	T_EXPECT_EQ(rec.sched.cpu, 5);
	T_EXPECT_EQ(rec.sched.outgoing_state, TRACEBUF_LIB_FXT_THREAD_BLOCKED);
	T_EXPECT_EQ(rec.sched.ticks, 6000);
	T_EXPECT_EQ(rec.sched.ns, 3000);
	T_EXPECT_EQ(rec.sched.outgoing_process_koid, 40);
	T_EXPECT_EQ(rec.sched.outgoing_koid, 41);
	T_EXPECT_EQ(rec.sched.incoming_process_koid, 50);
	T_EXPECT_EQ(rec.sched.incoming_koid, 51);
	T_EXPECT_EQ(rec.sched.outgoing_priority, 20);
	T_EXPECT_EQ(rec.sched.incoming_priority, 255);
	NEXT_OK(r);
	T_EXPECT_EQ(rec.sched.type, TRACEBUF_LIB_FXT_SCHED_THREAD_WAKEUP);
	T_EXPECT_EQ(rec.sched.cpu, 16);
	T_EXPECT_EQ(rec.sched.ns, 4000);
	T_EXPECT_EQ(rec.sched.incoming_koid, 52);
	T_ASSERT_EQ(rec.nargs, 1);
	T_EXPECT_STR(rec.args[0].name, "w");
	T_EXPECT_EQ(rec.args[0].i32, 9);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 0);
	tracebuf_reader_close(r);

	/* a legacy switch by a thread ref nobody registered: strict fails */
	t.len = 0;
	{
		uint64_t bad[] = { HDR(8, 2) | 9ULL << 28 | 9ULL << 36, 1 };

		t_words(&t, bad, 2);
	}
	OPEN(&r, t.w, t.len, TRACEBUF_LIB_READER_STRICT);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), -ENOENT);
	tracebuf_reader_close(r);

	/* each body cut short by a word */
	{
		static const uint64_t cut[][4] = {
			{ HDR(8, 3) | 1ULL << 60, 1, 2 },	/* switch: no incoming */
			{ HDR(8, 2) | 2ULL << 60, 1 },		/* wakeup: no koid */
			{ HDR(8, 1) },				/* legacy: no timestamp */
			{ HDR(8, 3), 1, 2 },			/* legacy: half a thread */
			{ HDR(8, 3) | 1 << 16 | 2ULL << 60, 1, 2 },	/* no argument */
		};

		for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
			t.len = 0;
			t_words(&t, cut[i], (cut[i][0] >> 4) & 0xfff);
			OPEN(&r, t.w, t.len, 0);
			T_EXPECT_EQ(tracebuf_reader_next(r, &rec), -EBADMSG);
			tracebuf_reader_close(r);
		}
	}
	t_trace_free(&t);
}

/* Index 0 is ignored; registering an index again replaces the entry. */
static void table_registration(void)
{
	struct tracebuf_fxt_event ev = { 0 };
	struct tracebuf_reader *r;
	struct t_trace t;
	uint64_t w[] = { HDR(2, 2) | 3ULL << 32, 0x636261,	/* string index 0 "abc" */
			 HDR(3, 3), 1, 2 };			/* thread index 0 */

	t_trace_init(&t, 1024);
	T_ASSERT(t.w);
	t_words(&t, w, 5);
	T_PUT(&t, tracebuf_fxt_string_write, 1, "old", 3);
	T_PUT(&t, tracebuf_fxt_thread_write, 1, 10, 11);
	T_PUT(&t, tracebuf_fxt_string_write, 1, "new", 3);
	T_PUT(&t, tracebuf_fxt_thread_write, 1, 20, 21);
	ev.thread = tracebuf_fxt_thread_index(1);
	ev.name = tracebuf_fxt_str_index(1);
	T_PUT(&t, tracebuf_fxt_event_write, &ev);
	T_ASSERT_EQ(t.error, 0);

	OPEN(&r, t.w, t.len, TRACEBUF_LIB_READER_STRICT);
	NEXT_OK(r);
	T_EXPECT_EQ(rec.string.index, 0);
	T_EXPECT_STR(rec.string.str, "abc");
	NEXT_OK(r);
	T_EXPECT_EQ(rec.thread.index, 0);
	NEXT_OK(r);
	NEXT_OK(r);
	NEXT_OK(r);
	NEXT_OK(r);
	NEXT_OK(r);
	T_EXPECT_STR(rec.event.name, "new");
	T_EXPECT_EQ(rec.event.process_koid, 20);
	T_EXPECT_EQ(rec.event.thread_koid, 21);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 0);
	tracebuf_reader_close(r);

	/* Every string index, each registered twice. */
	t.len = 0;
	{
		static char name[8];
		unsigned int i;

		free(t.w);
		t_trace_init(&t, 0x7fff * 2 * 16 + 64);
		T_ASSERT(t.w);
		for (i = 1; i <= 0x7fff; i++) {
			snprintf(name, sizeof(name), "s%u", i);
			T_PUT(&t, tracebuf_fxt_string_write, (uint16_t)i, "x", 1);
			T_PUT(&t, tracebuf_fxt_string_write, (uint16_t)i, name, strlen(name));
		}
		ev.name = tracebuf_fxt_str_index(0x7fff);
		ev.category = tracebuf_fxt_str_index(1);
		ev.thread = tracebuf_fxt_thread_inline(0, 0);
		T_PUT(&t, tracebuf_fxt_event_write, &ev);
		T_ASSERT_EQ(t.error, 0);
		OPEN(&r, t.w, t.len, TRACEBUF_LIB_READER_STRICT);
		for (i = 0; i < 2 * 0x7fff; i++)
			NEXT_OK(r);
		NEXT_OK(r);
		T_EXPECT_STR(rec.event.name, "s32767");
		T_EXPECT_STR(rec.event.category, "s1");
		tracebuf_reader_close(r);
	}
	t_trace_free(&t);
}

static void open_file(void)
{
	char path[] = "/tmp/tracebuf-reader-test-XXXXXX";
	struct tracebuf_reader *r = NULL;
	struct t_trace t;
	size_t n = 0;
	int fd, ret;

	t_trace_init(&t, 8192);
	T_ASSERT(t.w);
	t_sample_trace(&t);
	fd = mkstemp(path);
	T_ASSERT(fd >= 0);
	T_ASSERT_EQ(write(fd, t.w, t.len), (ssize_t)t.len);
	close(fd);
	ret = tracebuf_reader_open_file(path, TRACEBUF_LIB_READER_MAGIC | TRACEBUF_LIB_READER_STRICT,
					&r);
	unlink(path);
	T_ASSERT_EQ(ret, 0);
	while ((ret = tracebuf_reader_next(r, &rec)) == 1)
		n++;
	T_EXPECT_EQ(ret, 0);
	T_EXPECT_EQ(n, T_SAMPLE_RECORDS);
	tracebuf_reader_close(r);

	T_EXPECT_EQ(tracebuf_reader_open_file("/nonexistent/trace.fxt", 0, &r), -ENOENT);
	T_EXPECT_EQ(tracebuf_reader_open_file("/", 0, &r), -EISDIR);
	T_EXPECT_EQ(tracebuf_reader_open_file(NULL, 0, &r), -EINVAL);
	T_EXPECT_EQ(tracebuf_reader_open_file(path, 1u << 31, &r), -EINVAL);
	/* An empty file (not a regular one here) is an empty trace. */
	T_ASSERT_EQ(tracebuf_reader_open_file("/dev/null", 0, &r), 0);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 0);
	tracebuf_reader_close(r);
	t_trace_free(&t);
}

static void api_misuse(void)
{
	struct tracebuf_reader *r = NULL;
	uint64_t w = 0;

	T_EXPECT_EQ(tracebuf_reader_open_mem(NULL, 8, 0, &r), -EINVAL);
	T_EXPECT_EQ(tracebuf_reader_open_mem(&w, 8, 0, NULL), -EINVAL);
	T_EXPECT_EQ(tracebuf_reader_open_mem(&w, 8, 4, &r), -EINVAL);
	T_EXPECT(!r);
	T_EXPECT_EQ(tracebuf_reader_next(NULL, &rec), -EINVAL);
	T_ASSERT_EQ(tracebuf_reader_open_mem(&w, 8, 0, &r), 0);
	T_EXPECT_EQ(tracebuf_reader_next(r, NULL), -EINVAL);
	tracebuf_reader_close(r);
	tracebuf_reader_close(NULL);
	T_EXPECT_EQ(tracebuf_reader_error_offset(NULL), 0);
	T_EXPECT_EQ(tracebuf_reader_unresolved_refs(NULL), 0);
	T_EXPECT_EQ(tracebuf_fxt_walk(NULL, 8, NULL), -EINVAL);
	T_EXPECT_EQ(tracebuf_fxt_walk(NULL, 0, NULL), 0);
}

/*
 * Malformed records, each after one valid record (16 bytes): the reader
 * returns that one, then the error, at the bad record's offset.
 */
static void malformed_records(void)
{
	static const struct {
		const char *what;
		uint64_t w[8];
		size_t words;
		const char *message;
	} cases[] = {
		{ "zero word", { 0 }, 1, "zero word" },
		{ "size 0, type 4", { HDR(4, 0) | 1 << 16 }, 1, "size 0" },
		{ "size past the end", { HDR(1, 3), 1 }, 2, "past the end of the input" },
		{ "trailing bytes", { 0 }, 0, "trailing bytes" },
		{ "init with 0 ticks", { HDR(1, 2), 0 }, 2, "0 ticks" },
		{ "init without its word", { HDR(1, 1) }, 1, "ticks per second runs past" },
		{ "string longer than the record", { HDR(2, 2) | 1 << 16 | 9ULL << 32, 0 }, 2,
		  "string (9 bytes)" },
		{ "thread without koids", { HDR(3, 2) | 1 << 16, 1 }, 2, "thread koid" },
		{ "event without timestamp", { HDR(4, 1) | 1ULL << 24 }, 1, "timestamp" },
		{ "event with inline thread cut", { HDR(4, 3), 1, 2 }, 3, "inline thread koid" },
		{ "event with inline name cut", { HDR(4, 5) | 0x8011ULL << 48, 1, 0, 0, 0 }, 5,
		  "name (17 bytes)" },
		{ "counter without its id", { HDR(4, 4) | 1 << 16, 1, 0, 0 }, 4,
		  "type-specific word" },
		{ "argument missing", { HDR(4, 4) | 1 << 20, 1, 0, 0 }, 4, "argument header" },
		{ "argument of size 0", { HDR(4, 5) | 1 << 20, 1, 0, 0, HDR(1, 0) }, 5,
		  "argument 0 has size 0" },
		{ "argument past its record", { HDR(4, 5) | 1 << 20, 1, 0, 0, HDR(3, 2) }, 5,
		  "argument 0 (2 words) runs past" },
		{ "int64 argument of 1 word", { HDR(4, 6) | 1 << 20, 1, 0, 0, HDR(3, 1), 0 }, 6,
		  "argument value" },
		{ "argument name past the argument",
		  { HDR(4, 6) | 1 << 20, 1, 0, 0, HDR(2, 1) | 0x8001ULL << 16, 0 }, 6,
		  "argument name" },
		{ "string value past the argument",
		  { HDR(4, 6) | 1 << 20, 1, 0, 0, HDR(6, 2) | 0x8009ULL << 32, 0 }, 6,
		  "argument string value" },
		{ "blob argument past the argument",
		  { HDR(4, 6) | 1 << 20, 1, 0, 0, HDR(10, 2) | 9ULL << 32, 0 }, 6,
		  "argument blob" },
		{ "second argument cut", { HDR(4, 6) | 2 << 20, 1, 0, 0, HDR(0, 1), HDR(4, 2) }, 6,
		  "argument 1 (2 words)" },
		{ "provider name past the record", { HDR(0, 1) | 1 << 16 | 1ULL << 52 }, 1,
		  "provider name" },
		{ "blob payload past the record", { HDR(5, 2) | 9ULL << 32 | 1ULL << 48, 0 }, 2,
		  "blob payload" },
		{ "blob name past the record", { HDR(5, 1) | 0x8001ULL << 16 }, 1, "blob name" },
		{ "kernel object without koid", { HDR(7, 1) | 1 << 16 }, 1, "koid" },
		{ "kernel object with args missing", { HDR(7, 2) | 2ULL << 40, 1 }, 2,
		  "argument header" },
		{ "userspace object without process", { HDR(6, 2), 1 }, 2, "process koid" },
		{ "log message past the record", { HDR(9, 4) | 1 << 16, 1, 2, 3 }, 4,
		  "log message" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tracebuf_reader *r;
		uint64_t buf[16];
		size_t len, j;
		int ret;

		buf[0] = tracebuf_fxt_le64(HDR(1, 2));
		buf[1] = tracebuf_fxt_le64(1000);
		for (j = 0; j < cases[i].words; j++)
			buf[2 + j] = tracebuf_fxt_le64(cases[i].w[j]);
		len = 16 + cases[i].words * 8;
		if (!cases[i].words)
			len += 4;
		OPEN(&r, buf, len, 0);
		T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 1);
		ret = tracebuf_reader_next(r, &rec);
		if (ret != -EBADMSG || tracebuf_reader_error_offset(r) != 16 ||
		    !strstr(tracebuf_reader_error(r), cases[i].message))
			T_FAIL("%s: got %d at %zu: \"%s\"", cases[i].what, ret,
			       tracebuf_reader_error_offset(r), tracebuf_reader_error(r));
		/* Errors are final. */
		T_EXPECT_EQ(tracebuf_reader_next(r, &rec), ret);
		T_EXPECT_EQ(tracebuf_reader_error_offset(r), 16);
		tracebuf_reader_close(r);
	}
}

/*
 * Padding of every size from 8 bytes to 3 pages, and gaps of more than
 * 0xfff words: the reader returns only DATA blobs with empty names
 * between the records around the gap, and the walker counts them.
 */
static void check_gap(uint64_t *buf, size_t gap)
{
	struct tracebuf_fxt_event ev = { 0 };
	struct tracebuf_reader *r;
	size_t len = 16 + gap, valid = 0, i, records = tracebuf_fxt_pad_records(gap);
	int ret;

	T_ASSERT_EQ(tracebuf_fxt_init_write(buf, 16, 1000), 16);
	T_ASSERT_EQ(tracebuf_fxt_pad_write(buf + 2, gap), 0);
	ev.thread = tracebuf_fxt_thread_inline(1, 2);
	ev.ticks = gap;
	T_ASSERT_EQ(tracebuf_fxt_event_write(buf + len / 8, 32, &ev), 32);
	len += 32;

	T_ASSERT_EQ(tracebuf_fxt_walk(buf, len, &valid), (long)records + 2);
	T_EXPECT_EQ(valid, len);
	T_ASSERT_EQ(tracebuf_reader_open_mem(buf, len, TRACEBUF_LIB_READER_STRICT, &r), 0);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 1);
	for (i = 0; i < records; i++) {
		ret = tracebuf_reader_next(r, &rec);
		if (ret != 1 || rec.type != TRACEBUF_LIB_FXT_RECORD_BLOB ||
		    rec.blob.type != TRACEBUF_LIB_FXT_BLOB_DATA || rec.blob.name.len ||
		    rec.size > TRACEBUF_LIB_FXT_RECORD_MAX ||
		    rec.blob.payload.len != rec.size - 8) {
			T_FAIL("gap %zu, padding record %zu: ret %d type %u size %zu", gap, i,
			       ret, rec.type, rec.size);
			break;
		}
	}
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 1);
	T_EXPECT_EQ(rec.type, TRACEBUF_LIB_FXT_RECORD_EVENT);
	T_EXPECT_EQ(rec.event.ticks, gap);
	T_EXPECT_EQ(tracebuf_reader_next(r, &rec), 0);
	tracebuf_reader_close(r);
}

static void padding_every_gap(void)
{
	static const size_t big[] = {
		0xfff * 8, 0x1000 * 8, 0x1001 * 8, 0x1ffe * 8, 0x1fff * 8, 0x2000 * 8,
		3 * 0xfff * 8 + 24, 1 << 20, (1 << 20) + 8,
	};
	size_t cap = (1 << 20) + 64, gap, i;
	uint64_t *buf = malloc(cap);

	T_ASSERT(buf);
	/* Stale bytes in the gap must not matter. */
	memset(buf, 0xa5, cap);
	for (gap = 8; gap <= 3 * 4096 && !t_failures; gap += 8)
		check_gap(buf, gap);
	for (i = 0; i < sizeof(big) / sizeof(big[0]) && !t_failures; i++)
		check_gap(buf, big[i]);
	free(buf);
}

/* The walker over every prefix of the sample trace, and at zero words. */
static void walk_truncated(void)
{
	size_t ends[T_SAMPLE_RECORDS + 1], n = 0, cut, valid;
	struct tracebuf_reader *r;
	struct t_trace t;
	unsigned char *copy;

	t_trace_init(&t, 8192);
	T_ASSERT(t.w);
	t_sample_trace(&t);
	OPEN(&r, t.w, t.len, 0);
	ends[n++] = 0;
	while (tracebuf_reader_next(r, &rec) == 1 && n <= T_SAMPLE_RECORDS)
		ends[n++] = rec.offset + rec.size;
	tracebuf_reader_close(r);
	T_ASSERT_EQ(n, T_SAMPLE_RECORDS + 1);

	for (cut = 0; cut <= t.len; cut++) {
		size_t k = 0;
		long got;

		while (k + 1 < n && ends[k + 1] <= cut)
			k++;
		copy = malloc(cut ? cut : 1);
		T_ASSERT(copy);
		memcpy(copy, t.w, cut);
		valid = 12345;
		got = tracebuf_fxt_walk(copy, cut, &valid);
		free(copy);
		if (got != (long)k || valid != ends[k]) {
			T_FAIL("cut %zu: walked %ld records, %zu bytes; expected %zu, %zu", cut, got,
			       valid, k, ends[k]);
			break;
		}
	}

	/* A zero word ends the walk; so does a record of size 0. */
	memset((char *)t.w + ends[5], 0, 8);
	T_EXPECT_EQ(tracebuf_fxt_walk(t.w, t.len, &valid), 5);
	T_EXPECT_EQ(valid, ends[5]);
	t.w[ends[3] / 8] = tracebuf_fxt_le64(HDR(4, 0) | 0xffff0000ULL);
	T_EXPECT_EQ(tracebuf_fxt_walk(t.w, t.len, &valid), 3);
	T_EXPECT_EQ(valid, ends[3]);
	T_EXPECT_EQ(tracebuf_fxt_walk(t.w, t.len, NULL), 3);
	/* The same stops for the reader. */
	{
		struct t_result res = t_read_all(t.w, t.len, 0);

		T_EXPECT_EQ(res.ret, -EBADMSG);
		T_EXPECT_EQ(res.records, 3);
		T_EXPECT_EQ(res.error_offset, ends[3]);
	}
	t_trace_free(&t);
}

static const struct t_test tests[] = {
	T_TEST(sample_trace_decodes),
	T_TEST(provider_info_resets_state),
	T_TEST(strict_refs),
	T_TEST(magic_flag),
	T_TEST(unknown_types_skipped),
	T_TEST(log_and_userspace_objects),
	T_TEST(scheduling_records),
	T_TEST(table_registration),
	T_TEST(open_file),
	T_TEST(api_misuse),
	T_TEST(malformed_records),
	T_TEST(padding_every_gap),
	T_TEST(walk_truncated),
};

T_MAIN(tests)
