// SPDX-License-Identifier: MIT
/*
 * The public headers from C++: every event macro and argument type used
 * from C++17 and recorded as from C (the engine over plain memory,
 * memtrace.c), scoped durations as RAII objects (the body of an unbraced
 * if, several on one line, arguments taken when they begin), and the
 * structs C and C++ share laid out alike.
 */
#define TRACEBUF_LIB_SHORT_NAMES	/* TRACE_*, TA_* */
#include "ktap.h"

#include <stdint.h>
#include <string.h>

#include <tracebuf.h>

#include "memtrace.h"

static int collect()
{
	const char *where = "";
	int ret = mt_collect(&where);

	if (ret < 0)
		T_FAIL("reader: %s", where);
	return ret;
}

static void same_layout_as_c()
{
	const size_t cxx[MT_LAYOUT_N] = MT_LAYOUT;

	for (int i = 0; i < MT_LAYOUT_N; i++)
		T_EXPECT_EQ(cxx[i], mt_c_layout[i]);
}

static void every_macro()
{
	static const char blob[] = "key=value";
	int local = 5;
	const struct mt_ev *v;

	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_CIRCULAR, 1 << 16, NULL, 0, 0));
	T_EXPECT(TRACE_ENABLED("cxx"));
	TRACE_INSTANT("cxx", "instant");
	TRACE_INSTANT("cxx", "args", TA_NULL("null"), TA_I32("i32", -1), TA_U32("u32", 2),
		      TA_I64("i64", -3), TA_U64("u64", 4), TA_DOUBLE("dbl", 0.5),
		      TA_STR("str", "text"), TA_PTR("ptr", &local), TA_KOID("koid", 7),
		      TA_BOOL("bool", true));
	TRACE_COUNTER("cxx", "counter", 9, TA_U32("depth", 3));
	TRACE_DURATION_BEGIN("cxx", "begin_end", TA_I32("x", 1));
	TRACE_DURATION_END("cxx", "begin_end");
	TRACE_DURATION_COMPLETE("cxx", "complete", tracebuf_ticks());
	TRACE_ASYNC_BEGIN("cxx", "async", 11);
	TRACE_ASYNC_INSTANT("cxx", "async_step", 11);
	TRACE_ASYNC_END("cxx", "async", 11);
	TRACE_FLOW_BEGIN("cxx", "flow", 12);
	TRACE_FLOW_STEP("cxx", "flow_step", 12);
	TRACE_FLOW_END("cxx", "flow", 12);
	TRACE_BLOB("cxx", "blob", TRACEBUF_LIB_FXT_BLOB_DATA, blob, sizeof(blob) - 1);
	{
		TRACE_DURATION("cxx", "scoped", TA_I32("local", local));
	}
	TRACEBUF_LIB_EVENT(TRACEBUF_LIB_FXT_EVENT_INSTANT, "cxx", "long_name", 0, );
	T_ASSERT_EQ(0, collect());
	v = mt_find("args");
	T_ASSERT(v);
	T_EXPECT_EQ(v->nargs, 10);
	T_EXPECT_EQ(v->args[1].i32, -1);
	T_EXPECT_EQ(v->args[4].u64, 4);
	T_EXPECT(!strcmp(v->strval, "text"));
	T_EXPECT_EQ(v->args[7].ptr, (uintptr_t)&local);
	T_EXPECT_EQ(v->args[9].b, true);
	static const char *const once[] = { "instant", "counter", "complete", "async_step",
					    "flow_step", "scoped", "long_name" };
	for (const char *n : once)
		if (mt_count(n) != 1)
			T_FAIL("%s: %u events", n, mt_count(n));
	T_EXPECT_EQ(mt_count("begin_end"), 2);
	T_EXPECT_EQ(mt_count("async"), 2);
	T_EXPECT_EQ(mt_count("flow"), 2);
	T_EXPECT_EQ(mt_nblobs, 1);
	T_EXPECT(!strcmp(mt_blob_payload, "key=value"));
	v = mt_find("scoped");
	T_ASSERT(v);
	T_EXPECT_EQ(v->type, TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE);
	T_EXPECT_EQ(v->args[0].i32, 5);
	mt_detach();
}

static void scoped_duration_is_raii()
{
	const struct mt_ev *outer, *inner, *mark;
	char what[16] = "before";
	int n = 1;
	bool on = true;

	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_CIRCULAR, 1 << 16, NULL, 0, 0));
	{
		TRACE_DURATION("cxx", "outer", TA_I32("n", n));
		n = 2;
		{
			TRACE_DURATION("cxx", "inner");
			TRACE_INSTANT("cxx", "mark");
		}
	}
	/* the body of an unbraced if: a declaration, ended at once */
	if (on)
		TRACE_DURATION("cxx", "if_body");
	/* several on a line */
	{ TRACE_DURATION("cxx", "one"); TRACE_DURATION("cxx", "two"); }
	/* a string argument is read when the duration begins */
	{
		TRACE_DURATION("cxx", "str", TA_STR("what", what));
		strcpy(what, "after");
	}
	T_ASSERT_EQ(0, collect());
	outer = mt_find("outer");
	inner = mt_find("inner");
	mark = mt_find("mark");
	T_ASSERT(outer && inner && mark);
	T_EXPECT_EQ(outer->args[0].i32, 1);
	T_EXPECT(inner->ticks <= mark->ticks && mark->ticks <= inner->extra);
	T_EXPECT(outer->ticks <= inner->ticks && inner->extra <= outer->extra);
	T_EXPECT_EQ(mt_count("if_body"), 1);
	T_EXPECT_EQ(mt_count("one"), 1);
	T_EXPECT_EQ(mt_count("two"), 1);
	/* two ends first: it began last */
	T_EXPECT(mt_find("two") < mt_find("one"));
	T_EXPECT_EQ(mt_count("str"), 2);
	T_EXPECT_EQ(mt_find("str")->type, TRACEBUF_LIB_FXT_EVENT_DURATION_BEGIN);
	T_EXPECT(!strcmp(mt_find("str")->strval, "before"));
	mt_detach();
}

/*
 * Disabled, a macro evaluates none of its arguments once its site was
 * looked up (its first use after a start or stop evaluates them once).
 */
static int g_evaluated;

static int side_effect()
{
	return ++g_evaluated;
}

static void disabled_evaluates_nothing()
{
	static const char only[] = "other";

	T_ASSERT_EQ(0, mt_setup(TRACEBUF_MODE_CIRCULAR, 1 << 16, only, sizeof(only), 1));
	for (int i = 0; i < 3; i++) {
		TRACE_INSTANT("cxx", "off", TA_I32("x", side_effect()));
		TRACE_DURATION("cxx", "off", TA_I32("x", side_effect()));
	}
	T_EXPECT_EQ(g_evaluated, 2);
	for (int i = 0; i < 3; i++)
		TRACE_INSTANT("other", "on", TA_I32("x", side_effect()));
	T_EXPECT_EQ(g_evaluated, 5);
	mt_detach();
}

static const struct t_test tests[] = {
	T_TEST(same_layout_as_c),
	T_TEST(every_macro),
	T_TEST(scoped_duration_is_raii),
	T_TEST(disabled_evaluates_nothing),
};

T_MAIN(tests)
