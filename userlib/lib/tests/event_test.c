// SPDX-License-Identifier: MIT
/*
 * The event macros end to end without a kernel: the engine over plain
 * memory, events of every type and every argument type written through
 * the public macros, the buffer laid out as a manager would and decoded
 * with the reader.  Also categories, the call-site caches across start
 * and stop, inline koids past 255 threads, the drop-window record, and
 * events that cannot be written (after their thread's exit cleanup, or
 * too large) counted as dropped.
 */
#define _GNU_SOURCE
#define TRACEBUF_LIB_SHORT_NAMES	/* TRACE_*, TA_* */
#include "ktap.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>

#include <tracebuf_event.h>
#include <tracebuf_fxt.h>
#include <tracebuf_reader.h>

#include "engine_priv.h"
#include "event_priv.h"
#include "memtrace.h"

/* mt_collect(), failing the test on a reader error. */
static int collect(void)
{
	const char *where = "";
	int ret = mt_collect(&where);

	if (ret < 0)
		T_FAIL("reader: %s", where);
	return ret;
}

static void every_event_type(void)
{
	static const struct { const char *name; unsigned int type; uint64_t extra; } want[] = {
		{ "instant", TRACEBUF_LIB_FXT_EVENT_INSTANT, 0 },
		{ "counter", TRACEBUF_LIB_FXT_EVENT_COUNTER, 7 },
		{ "begin", TRACEBUF_LIB_FXT_EVENT_DURATION_BEGIN, 0 },
		{ "end", TRACEBUF_LIB_FXT_EVENT_DURATION_END, 0 },
		{ "async_begin", TRACEBUF_LIB_FXT_EVENT_ASYNC_BEGIN, 42 },
		{ "async_instant", TRACEBUF_LIB_FXT_EVENT_ASYNC_INSTANT, 42 },
		{ "async_end", TRACEBUF_LIB_FXT_EVENT_ASYNC_END, 42 },
		{ "flow_begin", TRACEBUF_LIB_FXT_EVENT_FLOW_BEGIN, 9 },
		{ "flow_step", TRACEBUF_LIB_FXT_EVENT_FLOW_STEP, 9 },
		{ "flow_end", TRACEBUF_LIB_FXT_EVENT_FLOW_END, 9 },
	};
	const struct mt_ev *v;
	uint64_t start;

	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_CIRCULAR, 1 << 20, NULL, 0, 0));
	TRACE_INSTANT("cat", "instant");
	TRACE_COUNTER("cat", "counter", 7, TA_I64("value", -5));
	TRACE_DURATION_BEGIN("cat", "begin");
	TRACE_DURATION_END("cat", "end");
	TRACE_ASYNC_BEGIN("cat", "async_begin", 42);
	TRACE_ASYNC_INSTANT("cat", "async_instant", 42);
	TRACE_ASYNC_END("cat", "async_end", 42);
	TRACE_FLOW_BEGIN("cat", "flow_begin", 9);
	TRACE_FLOW_STEP("cat", "flow_step", 9);
	TRACE_FLOW_END("cat", "flow_end", 9);
	start = tracebuf_ticks();
	TRACE_DURATION_COMPLETE("cat", "complete", start);
	{
		TRACE_DURATION("cat", "scoped", TA_U32("depth", 3));
		TRACE_INSTANT("cat", "inside");
	}
	T_ASSERT_EQ(0, collect());

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		v = mt_find(want[i].name);
		if (!v) {
			T_FAIL("no event %s", want[i].name);
			continue;
		}
		T_EXPECT_EQ(want[i].type, v->type);
		T_EXPECT_EQ(want[i].extra, v->extra);
		T_EXPECT(!strcmp(v->cat, "cat"));
		T_EXPECT_EQ((uint64_t)getpid(), v->pid);
		T_EXPECT_EQ((uint64_t)syscall(SYS_gettid), v->tid);
	}
	v = mt_find("counter");
	T_ASSERT(v);
	T_EXPECT_EQ(1u, v->nargs);
	T_EXPECT_EQ(-5, v->args[0].i64);
	v = mt_find("complete");
	T_ASSERT(v);
	T_EXPECT_EQ((unsigned int)TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE, v->type);
	T_EXPECT_EQ(start, v->ticks);
	T_EXPECT(v->extra >= start);
	v = mt_find("scoped");
	T_ASSERT(v);
	T_EXPECT_EQ((unsigned int)TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE, v->type);
	T_EXPECT(v->extra >= v->ticks);
	T_EXPECT(v->extra >= mt_find("inside")->ticks);
	T_EXPECT(v->ticks <= mt_find("inside")->ticks);
	T_EXPECT_EQ(3u, v->args[0].u32);
	tb_engine_detach();
}

static void every_argument_type(void)
{
	char dyn[32] = "copied";
	const struct mt_ev *v;
	int x;

	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_ONESHOT, 1 << 20, NULL, 0, 0));
	TRACE_INSTANT("cat", "args", TA_NULL("n"), TA_I32("i32", -32), TA_U32("u32", 32),
		      TA_I64("i64", -64), TA_U64("u64", UINT64_MAX), TA_DOUBLE("d", 2.5),
		      TA_STR("s", dyn), TA_PTR("p", &x), TA_KOID("k", 77), TA_BOOL("b", 1));
	strcpy(dyn, "overwritten");
	T_ASSERT_EQ(0, collect());
	v = mt_find("args");
	T_ASSERT(v);
	T_ASSERT_EQ(10u, v->nargs);
	T_EXPECT_EQ((unsigned int)TRACEBUF_LIB_FXT_ARG_NULL, v->args[0].type);
	T_EXPECT_EQ(-32, v->args[1].i32);
	T_EXPECT_EQ(32u, v->args[2].u32);
	T_EXPECT_EQ(-64, v->args[3].i64);
	T_EXPECT_EQ(UINT64_MAX, v->args[4].u64);
	T_EXPECT(v->args[5].dbl == 2.5);
	T_EXPECT(!strcmp(v->strval, "copied"));
	T_EXPECT_EQ((uint64_t)(uintptr_t)&x, v->args[7].ptr);
	T_EXPECT_EQ(77u, v->args[8].koid);
	T_EXPECT(v->args[9].b);
	T_EXPECT_STR(v->args[6].name, "s");
	T_EXPECT_STR(v->args[9].name, "b");
	tb_engine_detach();
}

static void fifteen_arguments(void)
{
	const struct mt_ev *v;

	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_ONESHOT, 1 << 16, NULL, 0, 0));
	TRACE_INSTANT("cat", "fifteen", TA_U32("a0", 0), TA_U32("a1", 1), TA_U32("a2", 2),
		      TA_U32("a3", 3), TA_U32("a4", 4), TA_U32("a5", 5), TA_U32("a6", 6),
		      TA_U32("a7", 7), TA_U32("a8", 8), TA_U32("a9", 9), TA_U32("a10", 10),
		      TA_U32("a11", 11), TA_U32("a12", 12), TA_U32("a13", 13),
		      TA_U64("a14", 14));
	T_ASSERT_EQ(0, collect());
	v = mt_find("fifteen");
	T_ASSERT(v);
	T_ASSERT_EQ(15u, v->nargs);
	for (unsigned int i = 0; i < 14; i++)
		T_EXPECT_EQ(i, v->args[i].u32);
	T_EXPECT_EQ(14u, v->args[14].u64);
	tb_engine_detach();
}

static void categories_select_events(void)
{
	static const char cats[] = "net\0gfx*\0";

	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_ONESHOT, 1 << 16, cats, sizeof(cats) - 1, 2));
	T_EXPECT(TRACE_ENABLED("net"));
	T_EXPECT(TRACE_ENABLED("gfx"));
	T_EXPECT(TRACE_ENABLED("gfx:detail"));
	T_EXPECT(!TRACE_ENABLED("disk"));
	T_EXPECT(!TRACE_ENABLED("ne"));
	TRACE_INSTANT("net", "in_net");
	TRACE_INSTANT("gfx:frame", "in_gfx");
	TRACE_INSTANT("disk", "in_disk");
	T_ASSERT_EQ(0, collect());
	T_EXPECT_EQ(1u, mt_count("in_net"));
	T_EXPECT_EQ(1u, mt_count("in_gfx"));
	T_EXPECT_EQ(0u, mt_count("in_disk"));
	tb_engine_detach();
}

/* "-PATTERN" excludes what it matches, whatever else enables it. */
static void categories_exclusions_win(void)
{
	static const char cats[] = "gfx*\0-gfx:detail\0net\0-net\0";

	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_ONESHOT, 1 << 16, cats, sizeof(cats) - 1, 4));
	T_EXPECT(TRACE_ENABLED("gfx"));
	T_EXPECT(TRACE_ENABLED("gfx:frame"));
	T_EXPECT(!TRACE_ENABLED("gfx:detail"));
	T_EXPECT(!TRACE_ENABLED("net"));
	T_EXPECT(!TRACE_ENABLED("disk"));
	TRACE_INSTANT("gfx:frame", "in_frame");
	TRACE_INSTANT("gfx:detail", "in_detail");
	T_ASSERT_EQ(0, collect());
	T_EXPECT_EQ(1u, mt_count("in_frame"));
	T_EXPECT_EQ(0u, mt_count("in_detail"));
	tb_engine_detach();
}

/* A list of exclusions only enables every other category. */
static void categories_only_exclusions(void)
{
	static const char cats[] = "-posix:off\0-gfx*\0";

	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_ONESHOT, 1 << 16, cats, sizeof(cats) - 1, 2));
	T_EXPECT(TRACE_ENABLED("posix:on"));
	T_EXPECT(TRACE_ENABLED("disk"));
	T_EXPECT(!TRACE_ENABLED("posix:off"));
	T_EXPECT(!TRACE_ENABLED("gfx"));
	T_EXPECT(!TRACE_ENABLED("gfx:frame"));
	/* the name after '-', not '-' itself, is matched */
	T_EXPECT(TRACE_ENABLED("-posix:off"));
	tb_engine_detach();
}

/* One site, written in a loop across stop and start with new categories. */
static void site_cache_follows_start_and_stop(void)
{
	static const char other[] = "other\0";

	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_ONESHOT, 1 << 16, NULL, 0, 0));
	for (int round = 0; round < 4; round++) {
		bool on = round == 0 || round == 3;

		if (round == 1) {
			tb_engine_stop();
		} else if (round == 2) {
			tb_event_set_categories(other, sizeof(other) - 1, 1);
			tb_engine_start(TRACEBUF_START_RETAIN, TRACEBUF_ENGINE_F_CLEAR);
		} else if (round == 3) {
			tb_engine_stop();
			tb_event_set_categories(NULL, 0, 0);
			tb_engine_start(TRACEBUF_START_RETAIN, TRACEBUF_ENGINE_F_CLEAR);
		}
		T_EXPECT_EQ(on, TRACE_ENABLED("loop"));
		TRACE_INSTANT("loop", "looped", TA_I32("round", round));
	}
	T_ASSERT_EQ(0, collect());
	T_EXPECT_EQ(2u, mt_count("looped"));
	tb_engine_detach();
}

static atomic_uint g_go;

static void *one_event(void *arg)
{
	(void)arg;
	while (!atomic_load(&g_go))
		;
	TRACE_INSTANT("cat", "from_thread", TA_U64("tid", syscall(SYS_gettid)));
	return NULL;
}

/* Past 255 thread refs, threads are written with inline koids. */
static void many_threads_inline_koids(void)
{
	enum { N = 300 };
	pthread_t th[N];
	unsigned int ok = 0;

	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_CIRCULAR, 4 << 20, NULL, 0, 0));
	atomic_store(&g_go, 1);
	for (int i = 0; i < N; i++) {
		T_ASSERT_EQ(0, pthread_create(&th[i], NULL, one_event, NULL));
		pthread_join(th[i], NULL);
	}
	T_ASSERT_EQ(0, collect());
	T_EXPECT_EQ((unsigned int)N, mt_count("from_thread"));
	for (unsigned int i = 0; i < mt_nev; i++)
		if (!strcmp(mt_ev[i].name, "from_thread") &&
		    mt_ev[i].tid == mt_ev[i].args[0].u64 && mt_ev[i].pid == (uint64_t)getpid())
			ok++;
	T_EXPECT_EQ((unsigned int)N, ok);
	tb_engine_detach();
}

static pthread_key_t g_late_key;

static void late_event(void *arg)
{
	(void)arg;
	TRACE_INSTANT("cat", "after_exit");
}

static void *event_then_late(void *arg)
{
	TRACE_INSTANT("cat", "before_exit");
	pthread_setspecific(g_late_key, arg);
	return NULL;
}

/*
 * An event from a thread-exit destructor that runs after the engine's
 * own (a key created after it): dropped and counted, and the stop does
 * not wait for ever for a chunk that no list holds.
 */
static void event_after_thread_exit_is_dropped(void)
{
	struct tb_engine_stats st;
	pthread_t th;

	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_CIRCULAR, 1 << 20, NULL, 0, 0));
	TRACE_INSTANT("cat", "main");	/* the engine's key, first */
	T_ASSERT_EQ(0, pthread_key_create(&g_late_key, late_event));
	T_ASSERT_EQ(0, pthread_create(&th, NULL, event_then_late, &g_late_key));
	pthread_join(th, NULL);
	tb_engine_stats(&st);
	T_EXPECT_EQ(1u, st.dropped);
	T_ASSERT_EQ(0, collect());
	T_EXPECT_EQ(1u, mt_count("before_exit"));
	T_EXPECT_EQ(0u, mt_count("after_exit"));
	pthread_key_delete(g_late_key);
	tb_engine_detach();
}

/* An event FXT cannot hold (a string over 32000 bytes) is counted dropped. */
static void oversized_event_is_dropped(void)
{
	static char big[40000];
	struct tb_engine_stats st;
	const struct mt_ev *v;

	memset(big, 'x', sizeof(big) - 1);
	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_CIRCULAR, 1 << 20, NULL, 0, 0));
	TRACE_INSTANT("cat", "big", TA_STR("s", big));
	TRACE_INSTANT("cat", "small", TA_STR("s", "x"));
	tb_engine_stats(&st);
	T_EXPECT_EQ(1u, st.dropped);
	T_ASSERT_EQ(0, collect());
	T_EXPECT_EQ(0u, mt_count("big"));
	T_EXPECT_EQ(1u, mt_count("small"));
	v = mt_find("records dropped");
	T_ASSERT(v);
	T_EXPECT_EQ(1u, v->args[0].u64);
	tb_engine_detach();
}

/*
 * An event with more or fewer arguments than its site was looked up with
 * (libposixtrace adds a trailing "truncated" to some events of a type):
 * recorded, those past the ones looked up with their names inline.
 */
static void arguments_unlike_the_lookup(void)
{
	static struct tracebuf_site more = {
		.state = TRACEBUF_LIB_SITE_UNKNOWN, .type = TRACEBUF_LIB_FXT_EVENT_INSTANT,
		.category = "cat", .name = "more" };
	static struct tracebuf_site fewer = {
		.state = TRACEBUF_LIB_SITE_UNKNOWN, .type = TRACEBUF_LIB_FXT_EVENT_INSTANT,
		.category = "cat", .name = "fewer" };
	const struct tracebuf_fxt_arg args[2] = {
		tracebuf_fxt_arg_uint32(tracebuf_fxt_str_inline("a", 1), 7),
		tracebuf_fxt_arg_bool(tracebuf_fxt_str_inline("extra", 5), true),
	};
	struct tb_engine_stats st;
	const struct mt_ev *v;

	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_ONESHOT, 1 << 16, NULL, 0, 0));
	T_ASSERT_EQ(TRACEBUF_LIB_SITE_ENABLED, __tracebuf_site_lookup(&more, args, 1));
	T_ASSERT_EQ(TRACEBUF_LIB_SITE_ENABLED, __tracebuf_site_lookup(&fewer, args, 2));
	T_EXPECT(__tracebuf_emit_slow(&more, more.type, args, 2, 0, 0));
	T_EXPECT(__tracebuf_emit_slow(&fewer, fewer.type, args, 1, 0, 0));
	tb_engine_stats(&st);
	T_EXPECT_EQ(0u, st.dropped);
	T_ASSERT_EQ(0, collect());
	v = mt_find("more");
	T_ASSERT(v);
	T_ASSERT_EQ(2u, v->nargs);
	T_EXPECT_STR(v->args[0].name, "a");
	T_EXPECT_EQ(7u, v->args[0].u32);
	T_EXPECT_STR(v->args[1].name, "extra");
	T_EXPECT(v->args[1].b);
	v = mt_find("fewer");
	T_ASSERT(v);
	T_ASSERT_EQ(1u, v->nargs);
	T_EXPECT_STR(v->args[0].name, "a");
	T_EXPECT_EQ(7u, v->args[0].u32);
	tb_engine_detach();
}

/*
 * Drops while both rolling buffers wait for a save end with a tracebuf:meta
 * record, in the chunk of the next record when it fits beside it: not in the
 * chunk of exactly its size a record larger than a chunk gets.
 */
static void drop_window_is_recorded(void)
{
	static char big[3000];
	struct tb_engine_stats st;
	struct tracebuf_save_req req;
	const struct mt_ev *v;
	int i;

	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_STREAMING, 64 << 10, NULL, 0, 0));
	for (i = 0; i < 20000; i++)
		TRACE_INSTANT("cat", "fill", TA_I32("i", i));
	tb_engine_stats(&st);
	T_ASSERT(st.dropped > 0);
	/* save both rolling buffers, then write again */
	while (tb_engine_service(&req) == 1)
		T_ASSERT_EQ(0, tb_engine_buffer_saved(req.wrapped_count,
							    req.durable_data_end));
	memset(big, 'b', sizeof(big) - 1);
	TRACE_INSTANT("cat", "big", TA_STR("s", big));
	TRACE_INSTANT("cat", "after");
	T_ASSERT_EQ(0, collect());
	T_EXPECT_EQ(1u, mt_count("big"));
	v = mt_find("records dropped");
	T_ASSERT(v);
	T_EXPECT(!strcmp(v->cat, "tracebuf:meta"));
	T_EXPECT_EQ((unsigned int)TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE, v->type);
	T_EXPECT_EQ(st.dropped, v->args[0].u64);
	T_EXPECT(v->extra >= v->ticks);
	T_EXPECT_EQ(1u, mt_count("after"));
	tb_engine_detach();
}

/*
 * A window still open when tracing stops is closed in the stop reserve:
 * a full oneshot buffer, and streaming that waited for a save to the end.
 */
static void open_window_is_recorded_at_stop(void)
{
	static const uint32_t modes[] = { TRACEBUF_MODE_ONESHOT, TRACEBUF_MODE_STREAMING };

	for (unsigned int m = 0; m < 2; m++) {
		struct tb_engine_stats st;
		const struct mt_ev *v;
		uint64_t counted = 0;

		T_ASSERT_EQ(0, mt_setup(modes[m], 64 << 10, NULL, 0, 0));
		for (int i = 0; i < 20000; i++)
			TRACE_INSTANT("cat", "fill", TA_I32("i", i));
		tb_engine_stats(&st);
		T_ASSERT(st.dropped > 0);
		T_ASSERT_EQ(0, collect());
		v = mt_find("records dropped");
		T_ASSERT(v);
		T_EXPECT(!strcmp(v->cat, "tracebuf:meta"));
		T_EXPECT(v->extra >= v->ticks);
		for (unsigned int i = 0; i < mt_nev; i++)
			if (!strcmp(mt_ev[i].name, "records dropped"))
				counted += mt_ev[i].args[0].u64;
		/* every drop is in a window */
		T_EXPECT_EQ(st.dropped, counted);
		printf("# mode %u: %llu dropped, %u windows\n", modes[m],
		       (unsigned long long)st.dropped, mt_count("records dropped"));
		mt_detach();
	}
}

/* Blob records: named ones of an enabled category, none too large. */
static void blob_records(void)
{
	static const char big[TRACEBUF_LIB_FXT_BLOB_SIZE_MAX + 1];

	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_CIRCULAR, 1 << 16, "on", 3, 1));
	TRACE_BLOB("on", "config", TRACEBUF_LIB_FXT_BLOB_DATA, "key=value", 9);
	TRACE_BLOB("off", "hidden", TRACEBUF_LIB_FXT_BLOB_DATA, "no", 2);
	/* too large for a blob record: nothing, no crash */
	TRACE_BLOB("on", "huge", TRACEBUF_LIB_FXT_BLOB_DATA, big, sizeof(big));
	T_ASSERT_EQ(0, collect());
	T_EXPECT_EQ(mt_nblobs, 1);
	T_EXPECT_EQ(mt_blob_type, TRACEBUF_LIB_FXT_BLOB_DATA);
	T_EXPECT(!strcmp(mt_blob_name, "config"));
	T_EXPECT(!strcmp(mt_blob_payload, "key=value"));
	tb_engine_detach();
}

/* A second stop (detach stops too) leaves the final header alone. */
static void stop_twice_keeps_the_header(void)
{
	struct tracebuf_buffer_header before, *h;

	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_CIRCULAR, 1 << 16, NULL, 0, 0));
	for (uint64_t i = 0; i < 5000; i++)
		TRACE_INSTANT("cat", "many", TA_U64("i", i));
	h = mt_buf;
	T_ASSERT_EQ(0, tb_engine_stop());
	T_EXPECT(h->wrapped_count > 0);
	T_EXPECT_EQ(h->stop_mark, TRACEBUF_HEADER_STOP_MARK);
	memcpy(&before, h, sizeof(before));
	T_ASSERT_EQ(0, tb_engine_stop());
	T_EXPECT_MEM(&before, h, sizeof(before));
	tb_engine_detach();
	T_EXPECT_MEM(&before, h, sizeof(before));
	/* and a start clears the mark */
	T_ASSERT_EQ(0, tb_engine_attach(mt_buf, 1 << 16, TRACEBUF_MODE_CIRCULAR, NULL));
	T_ASSERT_EQ(0, tb_engine_start(TRACEBUF_START_RETAIN, 0));
	T_EXPECT_EQ(h->stop_mark, 0);
	tb_engine_detach();
}

/* Not started: nothing is written and nothing counts as dropped. */
static void nothing_before_start(void)
{
	struct tb_engine_stats st;

	free(mt_buf);
	mt_buf = aligned_alloc(4096, 1 << 16);
	tb_engine_format(mt_buf, 1 << 16, TRACEBUF_MODE_ONESHOT);
	T_ASSERT_EQ(0, tb_engine_attach(mt_buf, 1 << 16, TRACEBUF_MODE_ONESHOT, NULL));
	T_EXPECT(!TRACE_ENABLED("cat"));
	TRACE_INSTANT("cat", "early");
	tb_engine_stats(&st);
	T_EXPECT_EQ(0u, st.dropped);
	tb_engine_detach();
}

/* A scoped duration takes its arguments when it begins. */
static void duration_takes_arguments_at_its_start(void)
{
	char what[16] = "before";
	int n = 1;
	const struct mt_ev *v;

	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_CIRCULAR, 1 << 16, NULL, 0, 0));
	{
		TRACE_DURATION("cat", "num", TA_I32("n", n));
		n = 2;
	}
	{
		TRACE_DURATION("cat", "str", TA_STR("what", what), TA_I32("n", n));
		strcpy(what, "after");
		TRACE_INSTANT("cat", "inside");
	}
	T_ASSERT_EQ(0, collect());
	v = mt_find("num");
	T_ASSERT(v);
	T_EXPECT_EQ((unsigned int)TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE, v->type);
	T_EXPECT_EQ(v->args[0].i32, 1);
	/* with a string: a begin with the arguments, then an end */
	T_EXPECT_EQ(2u, mt_count("str"));
	v = mt_find("str");
	T_ASSERT(v);
	T_EXPECT_EQ((unsigned int)TRACEBUF_LIB_FXT_EVENT_DURATION_BEGIN, v->type);
	T_EXPECT(!strcmp(v->strval, "before"));
	T_EXPECT_EQ(v->args[1].i32, 2);
	T_EXPECT(v < mt_find("inside"));
	T_EXPECT_EQ((unsigned int)TRACEBUF_LIB_FXT_EVENT_DURATION_END, mt_ev[mt_nev - 1].type);
	T_EXPECT(!strcmp(mt_ev[mt_nev - 1].name, "str"));
	mt_detach();
}

/* Several scoped durations on one line, each its own. */
static void durations_share_a_line(void)
{
	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_CIRCULAR, 1 << 16, NULL, 0, 0));
	{ TRACE_DURATION("cat", "one"); TRACE_DURATION("cat", "two", TA_I32("x", 1)); }
	T_ASSERT_EQ(0, collect());
	T_EXPECT_EQ(1u, mt_count("one"));
	T_EXPECT_EQ(1u, mt_count("two"));
	T_EXPECT(mt_find("two") < mt_find("one"));
	mt_detach();
}

/* An end whose begin was not recorded is not recorded either. */
static void end_without_begin_is_dropped(void)
{
	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_CIRCULAR, 1 << 16, NULL, 0, 0));
	mt_stop();
	TRACE_DURATION_BEGIN("cat", "early");		/* not tracing */
	T_ASSERT_EQ(0, mt_restart(TRACEBUF_START_CLEAR_ENTIRE));
	TRACE_DURATION_BEGIN("cat", "outer");
	TRACE_DURATION_BEGIN("cat", "inner");
	TRACE_DURATION_END("cat", "inner");
	TRACE_DURATION_END("cat", "outer");
	TRACE_DURATION_END("cat", "early");		/* its begin is not there */
	T_ASSERT_EQ(0, collect());
	T_EXPECT_EQ(2u, mt_count("outer"));
	T_EXPECT_EQ(2u, mt_count("inner"));
	T_EXPECT_EQ(0u, mt_count("early"));
	/* begun before a restart: its end is not recorded after it */
	T_ASSERT_EQ(0, mt_restart(TRACEBUF_START_CLEAR_ENTIRE));
	TRACE_DURATION_BEGIN("cat", "spans");
	mt_stop();
	T_ASSERT_EQ(0, mt_restart(TRACEBUF_START_CLEAR_ENTIRE));
	TRACE_DURATION_END("cat", "spans");
	T_ASSERT_EQ(0, collect());
	T_EXPECT_EQ(0u, mt_count("spans"));
	mt_detach();
}

/* A scoped duration across a restart is not written (its refs are stale). */
static void scoped_duration_across_restart_is_dropped(void)
{
	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_CIRCULAR, 1 << 16, NULL, 0, 0));
	{
		TRACE_DURATION("cat", "spans", TA_I32("x", 1));
		TRACE_DURATION("cat", "spans_str", TA_STR("s", "x"));
		mt_stop();
		T_ASSERT_EQ(0, mt_restart(TRACEBUF_START_CLEAR_ENTIRE));
		TRACE_INSTANT("cat", "new_strings", TA_I32("y", 2));
	}
	/* a strict reader: every ref resolves */
	T_ASSERT_EQ(0, collect());
	T_EXPECT_EQ(1u, mt_count("new_strings"));
	T_EXPECT_EQ(0u, mt_count("spans"));
	T_EXPECT_EQ(0u, mt_count("spans_str"));
	mt_detach();
}

static const struct t_test tests[] = {
	T_TEST(duration_takes_arguments_at_its_start),
	T_TEST(durations_share_a_line),
	T_TEST(end_without_begin_is_dropped),
	T_TEST(scoped_duration_across_restart_is_dropped),
	T_TEST(every_event_type),
	T_TEST(every_argument_type),
	T_TEST(fifteen_arguments),
	T_TEST(categories_select_events),
	T_TEST(categories_exclusions_win),
	T_TEST(categories_only_exclusions),
	T_TEST(site_cache_follows_start_and_stop),
	T_TEST(many_threads_inline_koids),
	T_TEST(drop_window_is_recorded),
	T_TEST(event_after_thread_exit_is_dropped),
	T_TEST(oversized_event_is_dropped),
	T_TEST(arguments_unlike_the_lookup),
	T_TEST(open_window_is_recorded_at_stop),
	T_TEST(blob_records),
	T_TEST(stop_twice_keeps_the_header),
	T_TEST(nothing_before_start),
};

T_MAIN(tests)
