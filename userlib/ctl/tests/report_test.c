// SPDX-License-Identifier: MIT
/*
 * "tracebufctl report": the statistics of known traces built here with
 * the encoder of tracebuf_fxt.h (exact counts, totals, percentiles,
 * counters, instants, async spans, drops, what never ended), the order
 * of each sort key, the table and the JSON (parsed with json.h), hostile
 * input (every truncation, random damage) and the command itself
 * (TBCTL_PATH: the plain build for report_test, the ASan/UBSan one for
 * report_test-san).
 */
#include "ktap.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <sys/stat.h>

#include <tracebuf_fxt.h>
#include <tracebuf_reader.h>

#include "../tracebufctl.h"
#include "../util.h"
#include "json.h"
#include "tbctl_run.h"

#ifndef TBCTL_PATH
#error "TBCTL_PATH: the tracebufctl to test"
#endif

/* ------------------------------------------------------------------------ */
/* Traces                                                                   */

struct trace {
	uint64_t words[8192];
	size_t len;		/* bytes */
	int err;		/* the first encoder error */
};

#define PUT(t, call)							\
	do {								\
		uint64_t *dst_ = (t)->words + (t)->len / 8;		\
		size_t cap_ = sizeof((t)->words) - (t)->len;		\
		int r_ = (call);					\
									\
		(void)dst_;						\
		(void)cap_;						\
		if (r_ < 0 && !(t)->err)				\
			(t)->err = r_;					\
		else if (r_ > 0)					\
			(t)->len += (size_t)r_;				\
	} while (0)

static struct tracebuf_fxt_str str(const char *s)
{
	return tracebuf_fxt_str_inline(s, strlen(s));
}

/* Threads of the traces: pid 10, tids 11 (A, named "main") and 12 (B). */
#define A	tracebuf_fxt_thread_inline(10, 11)
#define B	tracebuf_fxt_thread_inline(10, 12)

static void ev_args(struct trace *t, unsigned int type, uint64_t ticks,
		    struct tracebuf_fxt_thread th, const char *cat, const char *name,
		    const struct tracebuf_fxt_arg *args, unsigned int nargs, uint64_t extra)
{
	struct tracebuf_fxt_event ev = {
		.type = type, .ticks = ticks, .thread = th, .category = str(cat),
		.name = str(name), .args = args, .nargs = nargs, .extra = extra,
	};

	PUT(t, tracebuf_fxt_event_write(dst_, cap_, &ev));
}

static void ev(struct trace *t, unsigned int type, uint64_t ticks, struct tracebuf_fxt_thread th,
	       const char *name, uint64_t extra)
{
	ev_args(t, type, ticks, th, "cat", name, NULL, 0, extra);
}

static void complete(struct trace *t, struct tracebuf_fxt_thread th, const char *name,
		     uint64_t begin, uint64_t end)
{
	ev(t, TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE, begin, th, name, end);
}

static void begin(struct trace *t, struct tracebuf_fxt_thread th, const char *name, uint64_t ts)
{
	ev(t, TRACEBUF_LIB_FXT_EVENT_DURATION_BEGIN, ts, th, name, 0);
}

static void end(struct trace *t, struct tracebuf_fxt_thread th, const char *name, uint64_t ts)
{
	ev(t, TRACEBUF_LIB_FXT_EVENT_DURATION_END, ts, th, name, 0);
}

static void instant(struct trace *t, struct tracebuf_fxt_thread th, const char *name)
{
	ev(t, TRACEBUF_LIB_FXT_EVENT_INSTANT, 1, th, name, 0);
}

static void async_on(struct trace *t, struct tracebuf_fxt_thread th, unsigned int type,
		     const char *name, uint64_t id, uint64_t ts)
{
	ev(t, type, ts, th, name, id);
}

static void async(struct trace *t, unsigned int type, const char *name, uint64_t id, uint64_t ts)
{
	async_on(t, A, type, name, id, ts);
}

/* A window of dropped records, as libtracebuf writes one. */
static void drop_window(struct trace *t, uint64_t count, uint64_t begin, uint64_t end)
{
	struct tracebuf_fxt_arg a = tracebuf_fxt_arg_uint64(str(TRACEBUF_LIB_META_DROPPED_COUNT),
							    count);

	ev_args(t, TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE, begin, B, TRACEBUF_LIB_META_CATEGORY,
		TRACEBUF_LIB_META_DROPPED, &a, 1, end);
}

static void header(struct trace *t, uint32_t provider, const char *name, uint64_t tps)
{
	if (!t->len)
		PUT(t, tracebuf_fxt_magic_write(dst_, cap_));
	PUT(t, tracebuf_fxt_provider_info_write(dst_, cap_, provider, name, strlen(name)));
	PUT(t, tracebuf_fxt_init_write(dst_, cap_, tps));
}

/*
 * The known trace.  Provider 1 "app", ns = ticks:
 *
 *  thread A (10/11, "main"):
 *   work    complete x100, i = 1..100 lasting 1000 * i ns
 *   big     complete, 1 ms
 *   outer   begin/end 100 ns and 300 ns; inner, 20 ns, inside the first
 *   x, y    begin x, begin y, end x (50 ns): y never ends
 *   z       begin, end without a name (7 ns)
 *   open    begin, never ended
 *   back    complete ending before it began (0 ns)
 *   late    complete 250 ns, after a provider section record
 *   tick x3, zeta x2, once x1   instants
 *  thread B (10/12):
 *   an end ("ghost") without a begin, work complete 5 ns, tick x1,
 *   two drop windows (7 records over 1000 ns, 3 over 100 ns), rev
 *   begin/end 50 ns written end first
 *  counters: mem (id 0): rss 5, 10, -3 and ratio 0.5, 1.0, 2.5 at
 *   10, 30, 20 ns (written in that order); big (id 2): val UINT64_MAX
 *   at 40, -1 at 50, with a string argument
 *  async req: id 1 3000 ns; id 2 500 ns; id 3 never ends; an end of
 *   id 9 that began nowhere; id 1 again, begun twice, then 1000 ns;
 *   cross: 1000 ns, its end (on B) written before its begin (on A)
 *  one buffer overflow provider event
 *
 * Provider 2 "other", 2e9 ticks per second: half, complete from ticks
 * 2000 to 6000 (2000 ns), on thread B.
 */
static void build_known(struct trace *t)
{
	struct tracebuf_fxt_arg args[3];
	struct tracebuf_fxt_kobj kobj;
	struct tracebuf_fxt_arg proc;

	memset(t, 0, sizeof(*t));
	header(t, 1, "app", 1000000000);
	tracebuf_fxt_kobj_thread(&kobj, &proc, 11, 10, str("main"));
	PUT(t, tracebuf_fxt_kobj_write(dst_, cap_, &kobj));
	for (uint64_t i = 1; i <= 100; i++)
		complete(t, A, "work", 1000000 * i, 1000000 * i + 1000 * i);
	complete(t, A, "big", 0, 1000000);
	begin(t, A, "outer", 200000000);
	begin(t, A, "inner", 200000010);
	end(t, A, "inner", 200000030);
	end(t, A, "outer", 200000100);
	begin(t, A, "outer", 300000000);
	end(t, A, "outer", 300000300);
	begin(t, A, "x", 400000000);
	begin(t, A, "y", 400000010);
	end(t, A, "x", 400000050);
	begin(t, A, "z", 500000000);
	end(t, A, "", 500000007);
	begin(t, A, "open", 600000000);
	complete(t, A, "back", 700000000, 699999000);
	for (int i = 0; i < 3; i++)
		instant(t, A, "tick");
	for (int i = 0; i < 2; i++)
		instant(t, A, "zeta");
	instant(t, A, "once");

	end(t, B, "ghost", 10);
	complete(t, B, "work", 100, 105);
	instant(t, B, "tick");
	drop_window(t, 7, 5000, 6000);
	drop_window(t, 3, 7000, 7100);
	/* the order of the file is not that of time: each thread's records come in chunks */
	end(t, B, "rev", 200);
	begin(t, B, "rev", 150);

	args[0] = tracebuf_fxt_arg_int64(str("rss"), 5);
	args[1] = tracebuf_fxt_arg_double(str("ratio"), 0.5);
	ev_args(t, TRACEBUF_LIB_FXT_EVENT_COUNTER, 10, A, "cat", "mem", args, 2, 0);
	args[0] = tracebuf_fxt_arg_int64(str("rss"), 10);
	args[1] = tracebuf_fxt_arg_double(str("ratio"), 1.0);
	ev_args(t, TRACEBUF_LIB_FXT_EVENT_COUNTER, 30, A, "cat", "mem", args, 2, 0);
	args[0] = tracebuf_fxt_arg_int64(str("rss"), -3);
	args[1] = tracebuf_fxt_arg_double(str("ratio"), 2.5);
	ev_args(t, TRACEBUF_LIB_FXT_EVENT_COUNTER, 20, A, "cat", "mem", args, 2, 0);
	args[0] = tracebuf_fxt_arg_uint64(str("val"), UINT64_MAX);
	args[1] = tracebuf_fxt_arg_string(str("note"), str("not a number"));
	ev_args(t, TRACEBUF_LIB_FXT_EVENT_COUNTER, 40, A, "cat", "big", args, 2, 2);
	args[0] = tracebuf_fxt_arg_int32(str("val"), -1);
	ev_args(t, TRACEBUF_LIB_FXT_EVENT_COUNTER, 50, A, "cat", "big", args, 1, 2);

	async(t, TRACEBUF_LIB_FXT_EVENT_ASYNC_BEGIN, "req", 1, 1000);
	async(t, TRACEBUF_LIB_FXT_EVENT_ASYNC_BEGIN, "req", 2, 2000);
	async(t, TRACEBUF_LIB_FXT_EVENT_ASYNC_END, "req", 2, 2500);
	async(t, TRACEBUF_LIB_FXT_EVENT_ASYNC_END, "req", 1, 4000);
	async(t, TRACEBUF_LIB_FXT_EVENT_ASYNC_BEGIN, "req", 3, 5000);
	async(t, TRACEBUF_LIB_FXT_EVENT_ASYNC_END, "req", 9, 6000);
	async(t, TRACEBUF_LIB_FXT_EVENT_ASYNC_BEGIN, "req", 1, 10000);
	async(t, TRACEBUF_LIB_FXT_EVENT_ASYNC_BEGIN, "req", 1, 11000);
	async(t, TRACEBUF_LIB_FXT_EVENT_ASYNC_END, "req", 1, 12000);
	async_on(t, B, TRACEBUF_LIB_FXT_EVENT_ASYNC_END, "cross", 5, 9000);
	async(t, TRACEBUF_LIB_FXT_EVENT_ASYNC_BEGIN, "cross", 5, 8000);
	PUT(t, tracebuf_fxt_provider_event_write(dst_, cap_, 1,
						 TRACEBUF_LIB_FXT_PROVIDER_EVENT_BUFFER_OVERFLOW));

	header(t, 2, "other", 2000000000);
	complete(t, B, "half", 2000, 6000);

	PUT(t, tracebuf_fxt_provider_section_write(dst_, cap_, 1));
	complete(t, A, "late", 800000000, 800000250);
}

/* ------------------------------------------------------------------------ */
/* Reports                                                                  */

/* The report of len bytes of t (finished, sorted), or NULL; *ret says why not. */
static struct tbctl_report *report_of(const struct trace *t, size_t len,
				      enum tbctl_report_sort sort, int *ret)
{
	struct tracebuf_reader *rd;
	struct tbctl_report *r = NULL;

	*ret = tracebuf_reader_open_mem(t->words, len, TRACEBUF_LIB_READER_MAGIC, &rd);
	if (*ret)
		return NULL;
	*ret = tbctl_report_create(&r);
	if (!*ret)
		*ret = tbctl_report_read(r, rd);
	if (!*ret)
		*ret = tbctl_report_finish(r);
	if (!*ret)
		*ret = tbctl_report_sort(r, sort);
	tracebuf_reader_close(rd);
	if (*ret) {
		tbctl_report_free(r);
		return NULL;
	}
	return r;
}

/* What tbctl_report_print() prints (malloc'd). */
static char *print(const struct tbctl_report *r, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	tbctl_report_print(f, r, json);
	fclose(f);
	return buf;
}

/* The report of the trace @build makes, as parsed JSON, sorted by @sort. */
static struct json *built_json(void (*build)(struct trace *), enum tbctl_report_sort sort)
{
	static struct trace t;
	struct tbctl_report *r;
	struct json *v = NULL;
	char err[128], *out;
	int ret;

	build(&t);
	if (t.err) {
		T_FAIL("building the trace: %s", strerror(-t.err));
		return NULL;
	}
	r = report_of(&t, t.len, sort, &ret);
	if (!r) {
		T_FAIL("report: %s", strerror(-ret));
		return NULL;
	}
	out = print(r, true);
	if (out) {
		v = json_parse(out, strlen(out), err, sizeof(err));
		if (!v)
			T_FAIL("not JSON: %s: %s", err, out);
	}
	free(out);
	tbctl_report_free(r);
	return v;
}

/* The known trace's report as parsed JSON, sorted by sort. */
static struct json *known_json(enum tbctl_report_sort sort)
{
	return built_json(build_known, sort);
}

/* The array member key's entry whose "name" is name, or NULL. */
static const struct json *named(const struct json *v, const char *key, const char *name)
{
	const struct json *a = json_get(v, key);

	for (size_t i = 0; a && a->type == JSON_ARRAY && i < a->n; i++) {
		const char *n = json_get_str(a->items[i], "name");

		if (n && !strcmp(n, name))
			return a->items[i];
	}
	return NULL;
}

static const struct json *provider(const struct json *v, const char *id)
{
	const struct json *a = json_get(v, "providers");

	for (size_t i = 0; a && a->type == JSON_ARRAY && i < a->n; i++) {
		const char *n = json_get_num(a->items[i], "id");

		if (n && !strcmp(n, id))
			return a->items[i];
	}
	return NULL;
}

static const struct json *thread(const struct json *p, const char *tid)
{
	const struct json *a = json_get(p, "threads");

	for (size_t i = 0; a && a->type == JSON_ARRAY && i < a->n; i++) {
		const char *n = json_get_num(a->items[i], "tid");

		if (n && !strcmp(n, tid))
			return a->items[i];
	}
	return NULL;
}

/* Each "key=value" of want (space-separated) is a number member of v. */
#define EXPECT_NUMS(v, want)	expect_nums(__LINE__, v, want)

static void expect_nums(int line, const struct json *v, const char *want)
{
	char buf[512], *save = NULL;

	if (!v) {
		T_FAIL("line %d: no such entry (expected %s)", line, want);
		return;
	}
	snprintf(buf, sizeof(buf), "%s", want);
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(w, '=');
		const struct json *m;
		const char *got;

		*eq = '\0';
		m = json_get(v, w);
		if (!strcmp(eq + 1, "null")) {
			if (!m || m->type != JSON_NULL)
				T_FAIL("line %d: %s is not null", line, w);
			continue;
		}
		got = json_get_num(v, w);
		if (!got || strcmp(got, eq + 1))
			T_FAIL("line %d: %s is %s, expected %s", line, w, got ? got : "(missing)",
			       eq + 1);
	}
}

/* The "name"s of array key of v, joined with spaces. */
static const char *names(const struct json *v, const char *key, char *buf, size_t len)
{
	const struct json *a = json_get(v, key);
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; a && a->type == JSON_ARRAY && i < a->n; i++) {
		const char *n = json_get_str(a->items[i], "name");

		off += (size_t)snprintf(buf + off, len > off ? len - off : 0, "%s%s",
					off ? " " : "", n ? n : "?");
	}
	return buf;
}

/* ------------------------------------------------------------------------ */
/* Statistics                                                               */

static void slices(void)
{
	struct json *v = known_json(TBCTL_REPORT_SORT_TOTAL);
	const struct json *p, *a, *b;

	T_ASSERT(v != NULL);
	p = provider(v, "1");
	T_ASSERT(p != NULL);
	T_EXPECT(json_get_str(p, "name") && !strcmp(json_get_str(p, "name"), "app"));
	a = thread(p, "11");
	T_ASSERT(a != NULL);
	EXPECT_NUMS(a, "pid=10 unmatched_ends=0");
	T_EXPECT(json_get_str(a, "name") && !strcmp(json_get_str(a, "name"), "main"));
	/* nearest rank: p50 the 50th of 100, p99 the 99th */
	EXPECT_NUMS(named(a, "slices", "work"), "count=100 total_ns=5050000 mean_ns=50500 "
		    "min_ns=1000 p50_ns=50000 p99_ns=99000 max_ns=100000 unterminated=0");
	EXPECT_NUMS(named(a, "slices", "big"), "count=1 total_ns=1000000 p50_ns=1000000 "
		    "p99_ns=1000000 max_ns=1000000");
	/* of 2: p50 is the first, p99 the second */
	EXPECT_NUMS(named(a, "slices", "outer"), "count=2 total_ns=400 mean_ns=200 min_ns=100 "
		    "p50_ns=100 p99_ns=300 max_ns=300 unterminated=0");
	EXPECT_NUMS(named(a, "slices", "inner"), "count=1 total_ns=20 max_ns=20");
	EXPECT_NUMS(named(a, "slices", "z"), "count=1 total_ns=7");
	EXPECT_NUMS(named(a, "slices", "back"), "count=1 total_ns=0 max_ns=0");
	EXPECT_NUMS(named(a, "slices", "late"), "count=1 total_ns=250");
	T_EXPECT(json_get_str(named(a, "slices", "late"), "category") &&
		 !strcmp(json_get_str(named(a, "slices", "late"), "category"), "cat"));
	/* the same name on another thread is another row */
	b = thread(p, "12");
	T_ASSERT(b != NULL);
	T_EXPECT(json_get(b, "name") && json_get(b, "name")->type == JSON_NULL);
	EXPECT_NUMS(named(b, "slices", "work"), "count=1 total_ns=5 p50_ns=5");
	/* paired in time order, whatever the order of the file */
	EXPECT_NUMS(named(b, "slices", "rev"), "count=1 total_ns=50 unterminated=0");
	/* provider 2's ticks are half nanoseconds */
	p = provider(v, "2");
	EXPECT_NUMS(named(thread(p, "12"), "slices", "half"), "count=1 total_ns=2000");
	json_free(v);
}

static void unterminated_and_unmatched(void)
{
	struct json *v = known_json(TBCTL_REPORT_SORT_TOTAL);
	const struct json *p, *a;

	T_ASSERT(v != NULL);
	p = provider(v, "1");
	a = thread(p, "11");
	/* "end x" closes x, and y, begun inside it, never ends */
	EXPECT_NUMS(named(a, "slices", "x"), "count=1 total_ns=50 unterminated=0");
	EXPECT_NUMS(named(a, "slices", "y"), "count=0 total_ns=0 mean_ns=null min_ns=null "
		    "p50_ns=null p99_ns=null max_ns=null unterminated=1");
	EXPECT_NUMS(named(a, "slices", "open"), "count=0 unterminated=1");
	EXPECT_NUMS(thread(p, "12"), "unmatched_ends=1");
	T_EXPECT(named(thread(p, "12"), "slices", "ghost") == NULL);
	EXPECT_NUMS(p, "async_unmatched_ends=1");
	json_free(v);
}

static void instants(void)
{
	struct json *v = known_json(TBCTL_REPORT_SORT_TOTAL);
	const struct json *p;

	T_ASSERT(v != NULL);
	p = provider(v, "1");
	EXPECT_NUMS(named(thread(p, "11"), "instants", "tick"), "count=3");
	EXPECT_NUMS(named(thread(p, "11"), "instants", "zeta"), "count=2");
	EXPECT_NUMS(named(thread(p, "11"), "instants", "once"), "count=1");
	EXPECT_NUMS(named(thread(p, "12"), "instants", "tick"), "count=1");
	json_free(v);
}

/* The counter row of name and arg in provider p. */
static const struct json *counter(const struct json *p, const char *name, const char *arg)
{
	const struct json *a = json_get(p, "counters");

	for (size_t i = 0; a && a->type == JSON_ARRAY && i < a->n; i++) {
		const char *n = json_get_str(a->items[i], "name");
		const char *g = json_get_str(a->items[i], "arg");

		if (n && g && !strcmp(n, name) && !strcmp(g, arg))
			return a->items[i];
	}
	return NULL;
}

static void counters(void)
{
	struct json *v = known_json(TBCTL_REPORT_SORT_TOTAL);
	const struct json *p, *c;

	T_ASSERT(v != NULL);
	p = provider(v, "1");
	/* last: the latest timestamp, not the last record */
	EXPECT_NUMS(counter(p, "mem", "rss"), "id=0 count=3 min=-3 max=10 last=10");
	c = counter(p, "mem", "ratio");
	EXPECT_NUMS(c, "count=3");
	T_ASSERT(c != NULL);
	T_EXPECT(json_get(c, "min")->num == 0.5 && json_get(c, "max")->num == 2.5 &&
		 json_get(c, "last")->num == 1.0);
	/* integers stay exact, signed and unsigned compared as numbers */
	EXPECT_NUMS(counter(p, "big", "val"),
		    "id=2 count=2 min=-1 max=18446744073709551615 last=-1");
	T_EXPECT(counter(p, "big", "note") == NULL);
	T_EXPECT_EQ(json_get(p, "counters")->n, 3);
	json_free(v);
}

static void async_spans(void)
{
	struct json *v = known_json(TBCTL_REPORT_SORT_TOTAL);
	const struct json *p;

	T_ASSERT(v != NULL);
	p = provider(v, "1");
	/* 500, 1000, 3000; id 3 never ends, nor does id 1's first second life */
	EXPECT_NUMS(named(p, "async", "req"), "count=3 total_ns=4500 mean_ns=1500 min_ns=500 "
		    "p50_ns=1000 p99_ns=3000 max_ns=3000 unterminated=2");
	EXPECT_NUMS(named(p, "async", "cross"), "count=1 total_ns=1000 unterminated=0");
	T_EXPECT_EQ(json_get(p, "async")->n, 2);
	json_free(v);
}

static void drops(void)
{
	struct json *v = known_json(TBCTL_REPORT_SORT_TOTAL);
	const struct json *p;

	T_ASSERT(v != NULL);
	p = provider(v, "1");
	EXPECT_NUMS(json_get(p, "drops"), "records=10 windows=2 window_ns=1100 "
		    "buffer_overflows=1");
	/* a window is no slice */
	T_EXPECT(named(thread(p, "12"), "slices", TRACEBUF_LIB_META_DROPPED) == NULL);
	EXPECT_NUMS(json_get(provider(v, "2"), "drops"), "records=0 windows=0 window_ns=0 "
		    "buffer_overflows=0");
	json_free(v);
}

/* ------------------------------------------------------------------------ */
/* Order and output                                                         */

static void sorting(void)
{
	static const struct {
		enum tbctl_report_sort sort;
		const char *slices, *instants;
	} cases[] = {
		{ TBCTL_REPORT_SORT_TOTAL, "work big outer late x inner z back open y",
		  "tick zeta once" },
		{ TBCTL_REPORT_SORT_COUNT, "work outer back big inner late x z open y",
		  "tick zeta once" },
		{ TBCTL_REPORT_SORT_MEAN, "big work late outer x inner z back open y",
		  "tick zeta once" },
		{ TBCTL_REPORT_SORT_MAX, "big work outer late x inner z back open y",
		  "tick zeta once" },
		{ TBCTL_REPORT_SORT_NAME, "back big inner late open outer work x y z",
		  "once tick zeta" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct json *v = known_json(cases[i].sort);
		const struct json *p = provider(v, "1"), *a = thread(p, "11");
		const struct json *provs = json_get(v, "providers");
		char got[256];

		T_ASSERT(v != NULL);
		names(a, "slices", got, sizeof(got));
		if (strcmp(got, cases[i].slices))
			T_FAIL("sort %zu: slices '%s', expected '%s'", i, got, cases[i].slices);
		names(a, "instants", got, sizeof(got));
		if (strcmp(got, cases[i].instants))
			T_FAIL("sort %zu: instants '%s', expected '%s'", i, got, cases[i].instants);
		/* providers by id, threads by tid, whatever the key */
		T_EXPECT(provs && provs->n == 2 && json_get_num(provs->items[0], "id") &&
			 !strcmp(json_get_num(provs->items[0], "id"), "1"));
		T_EXPECT(json_get(p, "threads")->n == 2 &&
			 !strcmp(json_get_num(json_get(p, "threads")->items[0], "tid"), "11"));
		json_free(v);
	}
}

static void sort_keys(void)
{
	static const struct {
		const char *word;
		int ret;
		enum tbctl_report_sort sort;
	} cases[] = {
		{ "total", 0, TBCTL_REPORT_SORT_TOTAL },
		{ "t", 0, TBCTL_REPORT_SORT_TOTAL },
		{ "count", 0, TBCTL_REPORT_SORT_COUNT },
		{ "mea", 0, TBCTL_REPORT_SORT_MEAN },
		{ "ma", 0, TBCTL_REPORT_SORT_MAX },
		{ "name", 0, TBCTL_REPORT_SORT_NAME },
		{ "m", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "totals", -EINVAL, 0 },
		{ "p99", -EINVAL, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum tbctl_report_sort s = TBCTL_REPORT_SORT_NAME + 1;
		int ret = tbctl_report_sort_parse(cases[i].word, &s);

		if (ret != cases[i].ret || (!ret && s != cases[i].sort))
			T_FAIL("'%s': %d %d, expected %d %d", cases[i].word, ret, (int)s,
			       cases[i].ret, (int)cases[i].sort);
	}
}

static void human_durations(void)
{
	static const struct {
		uint64_t ns;
		const char *text;
	} cases[] = {
		{ 0, "0 ns" }, { 999, "999 ns" }, { 1000, "1.000 us" }, { 1500, "1.500 us" },
		{ 999999, "999.999 us" }, { 1000000, "1.000 ms" }, { 50500000, "50.500 ms" },
		{ 999999999, "999.999 ms" }, { 1000000000, "1.000 s" },
		{ 61234567890ULL, "61.234 s" },
		{ UINT64_MAX, "18446744073.709 s" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tbctl_human_ns(cases[i].ns, buf, sizeof(buf));
		if (strcmp(buf, cases[i].text))
			T_FAIL("%llu ns: '%s', expected '%s'", (unsigned long long)cases[i].ns, buf,
			       cases[i].text);
	}
}

/* The known trace's table, sorted by total. */
static const char table_want[] =
	"provider 1: app\n"
	"  thread 11 (pid 10): main\n"
	"    SLICE       COUNT      TOTAL       MEAN        P50        P99        MAX UNTERM\n"
	"    cat:work      100   5.050 ms  50.500 us  50.000 us  99.000 us 100.000 us      0\n"
	"    cat:big         1   1.000 ms   1.000 ms   1.000 ms   1.000 ms   1.000 ms      0\n"
	"    cat:outer       2     400 ns     200 ns     100 ns     300 ns     300 ns      0\n"
	"    cat:late        1     250 ns     250 ns     250 ns     250 ns     250 ns      0\n"
	"    cat:x           1      50 ns      50 ns      50 ns      50 ns      50 ns      0\n"
	"    cat:inner       1      20 ns      20 ns      20 ns      20 ns      20 ns      0\n"
	"    cat:z           1       7 ns       7 ns       7 ns       7 ns       7 ns      0\n"
	"    cat:back        1       0 ns       0 ns       0 ns       0 ns       0 ns      0\n"
	"    cat:open        0       0 ns          -          -          -          -      1\n"
	"    cat:y           0       0 ns          -          -          -          -      1\n"
	"    INSTANT     COUNT\n"
	"    cat:tick        3\n"
	"    cat:zeta        2\n"
	"    cat:once        1\n"
	"  thread 12 (pid 10); 1 end without a begin\n"
	"    SLICE       COUNT      TOTAL       MEAN        P50        P99        MAX UNTERM\n"
	"    cat:rev         1      50 ns      50 ns      50 ns      50 ns      50 ns      0\n"
	"    cat:work        1       5 ns       5 ns       5 ns       5 ns       5 ns      0\n"
	"    INSTANT     COUNT\n"
	"    cat:tick        1\n"
	"  COUNTER     ARG     COUNT          MIN          MAX         LAST\n"
	"  cat:big#2   val         2           -1 18446744073709551615           -1\n"
	"  cat:mem     ratio       3          0.5          2.5            1\n"
	"  cat:mem     rss         3           -3           10           10\n"
	"  ASYNC         COUNT      TOTAL       MEAN        P50        P99        MAX UNTERM\n"
	"  cat:req           3   4.500 us   1.500 us   1.000 us   3.000 us   3.000 us      2\n"
	"  cat:cross         1   1.000 us   1.000 us   1.000 us   1.000 us   1.000 us      0\n"
	"  1 async end without a begin\n"
	"  drops: 10 records in 2 windows (1.100 us), 1 buffer overflow\n"
	"\n"
	"provider 2: other\n"
	"  thread 12 (pid 10)\n"
	"    SLICE       COUNT      TOTAL       MEAN        P50        P99        MAX UNTERM\n"
	"    cat:half        1   2.000 us   2.000 us   2.000 us   2.000 us   2.000 us      0\n"
	"  drops: none\n";

static void table(void)
{
	static struct trace t;
	struct tbctl_report *r;
	char *out;
	int ret;

	build_known(&t);
	T_ASSERT_EQ(t.err, 0);
	r = report_of(&t, t.len, TBCTL_REPORT_SORT_TOTAL, &ret);
	T_ASSERT(r != NULL);
	out = print(r, false);
	T_ASSERT(out != NULL);
	if (strcmp(out, table_want))
		T_FAIL("the table differs; got:\n%s", out);
	free(out);
	tbctl_report_free(r);
}

/* Names from a provider: control characters, bad UTF-8, very long ones. */
static void hostile_names(void)
{
	static struct trace t;
	char longname[300], err[128], *out;
	struct tbctl_report *r;
	struct json *v;
	int ret;

	memset(&t, 0, sizeof(t));
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	header(&t, 3, "bad\nname\x1b[2J", 1000000000);
	complete(&t, A, "q\"\\\x01\xff\xc3(", 0, 10);
	complete(&t, A, longname, 0, 20);
	instant(&t, A, "");
	T_ASSERT_EQ(t.err, 0);
	r = report_of(&t, t.len, TBCTL_REPORT_SORT_NAME, &ret);
	T_ASSERT(r != NULL);
	out = print(r, true);
	v = out ? json_parse(out, strlen(out), err, sizeof(err)) : NULL;
	if (!v)
		T_FAIL("not JSON: %s", err);
	T_EXPECT(named(thread(provider(v, "3"), "11"), "slices",
		       "q\"\\\x01\xef\xbf\xbd\xef\xbf\xbd(") != NULL);
	T_EXPECT(named(thread(provider(v, "3"), "11"), "slices", longname) != NULL);
	json_free(v);
	free(out);
	out = print(r, false);
	T_ASSERT(out != NULL);
	/* no control character but the newlines of the table; long names cut */
	for (const char *c = out; *c; c++)
		if ((unsigned char)*c < 0x20 && *c != '\n')
			T_FAIL("control character %#x in the table", *c);
	T_EXPECT(strstr(out, "provider 3: bad?name?[2J\n") != NULL);
	T_EXPECT(strstr(out, "    cat:nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn... ") != NULL);
	T_EXPECT(strstr(out, "    cat:q\"\\?\xff\xc3(") != NULL);
	free(out);
	tbctl_report_free(r);
}

/*
 * A category that holds a ':' is quoted in the table: "cxx:lambda":job
 * (category cxx:lambda) is not cxx:lambda:job (category cxx, name
 * lambda:job); a '"' in a quoted category is escaped.
 */
static void category_with_a_colon_is_quoted(void)
{
	static struct trace t;
	struct tbctl_report *r;
	char *out;
	int ret;

	memset(&t, 0, sizeof(t));
	header(&t, 1, "app", 1000000000);
	ev_args(&t, TRACEBUF_LIB_FXT_EVENT_INSTANT, 1, A, "cxx:lambda", "job", NULL, 0, 0);
	ev_args(&t, TRACEBUF_LIB_FXT_EVENT_INSTANT, 2, A, "cxx", "lambda:job", NULL, 0, 0);
	ev_args(&t, TRACEBUF_LIB_FXT_EVENT_INSTANT, 3, A, "\"q:\"", "x", NULL, 0, 0);
	T_ASSERT_EQ(t.err, 0);
	r = report_of(&t, t.len, TBCTL_REPORT_SORT_NAME, &ret);
	T_ASSERT(r != NULL);
	out = print(r, false);
	T_ASSERT(out != NULL);
	T_EXPECT(strstr(out, "\n    \"cxx:lambda\":job ") != NULL);
	T_EXPECT(strstr(out, "\n    cxx:lambda:job ") != NULL);
	T_EXPECT(strstr(out, "\n    \"\\\"q:\\\"\":x ") != NULL);
	if (t_failures)
		printf("%s", out);
	free(out);
	tbctl_report_free(r);
}

/*
 * An end looks for its begin among the 256 innermost open ones: deeper,
 * it matches nothing, and a long run of ends that match nothing takes no
 * longer than that (200 000 events well within the test's time limit).
 */
static void deep_nesting(void)
{
	const size_t n = 100000;
	struct trace *t = calloc(1, sizeof(*t));
	struct tracebuf_reader *rd = NULL;
	uint64_t *big = NULL;
	struct tbctl_report *r;
	struct json *v = NULL;
	char err[128], *out;
	size_t len = 0, cap;
	int ret;

	T_ASSERT(t != NULL);
	header(t, 1, "app", 1000000000);
	begin(t, A, "deep", 1);
	for (int i = 0; i < 256; i++)
		begin(t, A, "a", 2);
	end(t, A, "deep", 3);		/* 257 deep: not found */
	begin(t, A, "b", 4);
	for (int i = 0; i < 255; i++)
		begin(t, A, "a", 5);
	end(t, A, "b", 6);		/* 256 deep: found, closing 255 a */
	complete(t, B, "other", 7, 8);	/* the ends below have a row to look for */
	T_ASSERT_EQ(t->err, 0);
	/* then many begins, and as many ends that match none of them */
	cap = t->len + 2 * n * 48;	/* header, timestamp, pid, tid, "cat", name */
	big = malloc(cap);
	T_ASSERT(big != NULL);
	memcpy(big, t->words, t->len);
	len = t->len;
	for (size_t i = 0; i < 2 * n; i++) {
		struct tracebuf_fxt_event e = {
			.type = i < n ? TRACEBUF_LIB_FXT_EVENT_DURATION_BEGIN :
					TRACEBUF_LIB_FXT_EVENT_DURATION_END,
			.ticks = 10 + i, .thread = B, .category = str("cat"),
			.name = str(i < n ? "many" : "other"),
		};

		ret = tracebuf_fxt_event_write(big + len / 8, cap - len, &e);
		T_ASSERT(ret > 0);
		len += (size_t)ret;
	}
	ret = tracebuf_reader_open_mem(big, len, TRACEBUF_LIB_READER_MAGIC, &rd);
	T_ASSERT_EQ(ret, 0);
	T_ASSERT_EQ(tbctl_report_create(&r), 0);
	T_EXPECT_EQ(tbctl_report_read(r, rd), 0);
	T_EXPECT_EQ(tbctl_report_finish(r), 0);
	T_EXPECT_EQ(tbctl_report_sort(r, TBCTL_REPORT_SORT_NAME), 0);
	out = print(r, true);
	if (out)
		v = json_parse(out, strlen(out), err, sizeof(err));
	T_EXPECT(v != NULL);
	EXPECT_NUMS(thread(provider(v, "1"), "11"), "unmatched_ends=1");
	EXPECT_NUMS(named(thread(provider(v, "1"), "11"), "slices", "deep"),
		    "count=0 unterminated=1");
	EXPECT_NUMS(named(thread(provider(v, "1"), "11"), "slices", "b"),
		    "count=1 total_ns=2 unterminated=0");
	EXPECT_NUMS(named(thread(provider(v, "1"), "11"), "slices", "a"),
		    "count=0 unterminated=511");
	EXPECT_NUMS(thread(provider(v, "1"), "12"), "unmatched_ends=100000");
	EXPECT_NUMS(named(thread(provider(v, "1"), "12"), "slices", "many"),
		    "count=0 unterminated=100000");
	json_free(v);
	free(out);
	tbctl_report_free(r);
	tracebuf_reader_close(rd);
	free(big);
	free(t);
}

/* Totals saturate rather than wrap. */
static void saturation(void)
{
	static struct trace t;
	struct tbctl_report *r;
	struct json *v;
	char err[128], *out;
	int ret;

	memset(&t, 0, sizeof(t));
	header(&t, 1, "app", 1000000000);
	complete(&t, A, "huge", 0, UINT64_MAX);
	complete(&t, A, "huge", 1, UINT64_MAX);
	T_ASSERT_EQ(t.err, 0);
	r = report_of(&t, t.len, TBCTL_REPORT_SORT_TOTAL, &ret);
	T_ASSERT(r != NULL);
	out = print(r, true);
	v = out ? json_parse(out, strlen(out), err, sizeof(err)) : NULL;
	T_ASSERT(v != NULL);
	EXPECT_NUMS(named(thread(provider(v, "1"), "11"), "slices", "huge"),
		    "count=2 total_ns=18446744073709551615 min_ns=18446744073709551614 "
		    "max_ns=18446744073709551615");
	json_free(v);
	free(out);
	out = print(r, false);
	T_EXPECT(out && strstr(out, "18446744073.709 s") != NULL);
	free(out);
	tbctl_report_free(r);
}

static void empty_and_order_of_calls(void)
{
	static struct trace t;
	struct tbctl_report *r;
	char *out;
	int ret;

	memset(&t, 0, sizeof(t));
	PUT(&t, tracebuf_fxt_magic_write(dst_, cap_));
	r = report_of(&t, t.len, TBCTL_REPORT_SORT_TOTAL, &ret);
	T_ASSERT(r != NULL);
	out = print(r, false);
	T_EXPECT(out && !strcmp(out, "no events\n"));
	free(out);
	out = print(r, true);
	T_EXPECT(out && !strcmp(out, "{\"providers\":[\n]}\n"));
	free(out);
	/* finished once; nothing added after */
	T_EXPECT_EQ(tbctl_report_finish(r), -EINVAL);
	T_EXPECT_EQ(tbctl_report_read(r, NULL), -EINVAL);
	tbctl_report_free(r);
	T_ASSERT_EQ(tbctl_report_create(&r), 0);
	T_EXPECT_EQ(tbctl_report_sort(r, TBCTL_REPORT_SORT_TOTAL), -EINVAL);
	tbctl_report_free(r);
	tbctl_report_free(NULL);
}

/* ------------------------------------------------------------------------ */
/* Scheduling                                                               */

static void sw(struct trace *t, uint64_t ns, unsigned int cpu, uint64_t out, unsigned int state,
	       uint64_t in)
{
	struct tracebuf_fxt_arg a[2] = {
		tracebuf_fxt_arg_int32(str("outgoing_weight"), out ? 120 : INT32_MIN),
		tracebuf_fxt_arg_int32(str("incoming_weight"), in ? 120 : INT32_MIN),
	};
	struct tracebuf_fxt_sched k = {
		.type = TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH, .ticks = ns, .cpu = cpu,
		.outgoing_state = state, .outgoing_koid = out, .incoming_koid = in,
		.args = a, .nargs = 2,
	};

	PUT(t, tracebuf_fxt_sched_write(dst_, cap_, &k));
}

static void wake(struct trace *t, uint64_t ns, unsigned int cpu, uint64_t tid)
{
	struct tracebuf_fxt_sched k = {
		.type = TRACEBUF_LIB_FXT_SCHED_THREAD_WAKEUP, .ticks = ns, .cpu = cpu,
		.incoming_koid = tid,
	};

	PUT(t, tracebuf_fxt_sched_write(dst_, cap_, &k));
}

static void kname(struct trace *t, uint64_t tid, uint64_t pid, const char *name)
{
	struct tracebuf_fxt_kobj kobj;
	struct tracebuf_fxt_arg proc;

	tracebuf_fxt_kobj_thread(&kobj, &proc, tid, pid, str(name));
	PUT(t, tracebuf_fxt_kobj_write(dst_, cap_, &kobj));
}

/*
 * What the kernel provider writes, beside an app: provider 1 "app" names
 * its thread 101 "app" and has a slice on it; provider 3 "kernel" (ns =
 * ticks) names 101 "worker" and 102 "other" (pid 100), 103 "t103" (pid
 * 200) and 104 "never" (never scheduled), and writes, out of order (CPU
 * 1's after CPU 0's, 9000 before 4500), with a scheduling record of an
 * unknown type:
 *
 *   ns    CPU  record
 *   500   0    wakeup 101
 *   1000  0    0 -> 101
 *   1500  0    wakeup 102
 *   4000  0    101 blocks -> 102
 *   4500  0    102 preempted -> 0
 *   8000  0    wakeup 101
 *   9000  0    0 -> 101
 *   9100  0    101 blocks -> 0
 *   9500  0    102 -> 0: a switch was lost before it (0 was in)
 *   2000  1    0 -> 103
 *   2600  1    103 dies -> 0
 *
 * Per thread, CPU time, IN, OUT, wake-ups:
 *   0     4500 (4500..9000 on CPU 0; 9100..9500 is no one's, nor the
 *         time before a CPU's first switch or after its last), 4, 3, 0
 *   101   3000 + 100, 2, 2, 2
 *   102   500, 1, 2, 1
 *   103   600, 1, 1, 0
 */
static void build_sched(struct trace *t)
{
	const unsigned int blocked = TRACEBUF_LIB_FXT_THREAD_BLOCKED;
	const unsigned int run = TRACEBUF_LIB_FXT_THREAD_RUNNING;

	memset(t, 0, sizeof(*t));
	header(t, 1, "app", 1000000000);
	kname(t, 101, 100, "app");
	complete(t, tracebuf_fxt_thread_inline(100, 101), "job", 1000, 2000);
	header(t, 3, "kernel", 1000000000);
	kname(t, 101, 100, "worker");
	kname(t, 102, 100, "other");
	kname(t, 103, 200, "t103");
	kname(t, 104, 200, "never");
	wake(t, 500, 0, 101);
	sw(t, 1000, 0, 0, run, 101);
	wake(t, 1500, 0, 102);
	sw(t, 4000, 0, 101, blocked, 102);
	wake(t, 8000, 0, 101);
	sw(t, 9000, 0, 0, run, 101);
	sw(t, 4500, 0, 102, run, 0);
	sw(t, 9100, 0, 101, blocked, 0);
	sw(t, 9500, 0, 102, run, 0);
	/* a scheduling event type of tomorrow: not counted */
	PUT(t, (dst_[0] = tracebuf_fxt_header(TRACEBUF_LIB_FXT_RECORD_SCHEDULING, 16) |
		tracebuf_fxt_field(9, 60, 63), dst_[1] = 3000, 16));
	sw(t, 2000, 1, 0, run, 103);
	sw(t, 2600, 1, 103, TRACEBUF_LIB_FXT_THREAD_DEAD, 0);
}

static struct json *sched_json(enum tbctl_report_sort sort)
{
	return built_json(build_sched, sort);
}

/* The entry of "sched" of provider p whose "tid" is tid. */
static const struct json *sched_thread(const struct json *p, const char *tid)
{
	const struct json *a = json_get(p, "sched");

	for (size_t i = 0; a && a->type == JSON_ARRAY && i < a->n; i++) {
		const char *n = json_get_num(a->items[i], "tid");

		if (n && !strcmp(n, tid))
			return a->items[i];
	}
	return NULL;
}

/* The tids of "sched" of provider p, joined with spaces. */
static const char *sched_tids(const struct json *p, char *buf, size_t len)
{
	const struct json *a = json_get(p, "sched");
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; a && a->type == JSON_ARRAY && i < a->n; i++) {
		const char *n = json_get_num(a->items[i], "tid");

		off += (size_t)snprintf(buf + off, len > off ? len - off : 0, "%s%s",
					off ? " " : "", n ? n : "?");
	}
	return buf;
}

static void sched_per_thread(void)
{
	struct json *v = sched_json(TBCTL_REPORT_SORT_TOTAL);
	const struct json *p, *e;
	char buf[128];

	T_ASSERT(v != NULL);
	p = provider(v, "3");
	T_ASSERT(p != NULL);
	EXPECT_NUMS(sched_thread(p, "0"), "pid=0 cpu_ns=4500 switches_in=4 switches_out=3 "
		    "wakeups=0");
	EXPECT_NUMS(sched_thread(p, "101"), "pid=100 cpu_ns=3100 switches_in=2 switches_out=2 "
		    "wakeups=2");
	EXPECT_NUMS(sched_thread(p, "102"), "pid=100 cpu_ns=500 switches_in=1 switches_out=2 "
		    "wakeups=1");
	EXPECT_NUMS(sched_thread(p, "103"), "pid=200 cpu_ns=600 switches_in=1 switches_out=1 "
		    "wakeups=0");
	/* named by the kernel provider's records, not the app's; thread 0 by none */
	e = sched_thread(p, "101");
	T_EXPECT(json_get_str(e, "name") && !strcmp(json_get_str(e, "name"), "worker"));
	e = sched_thread(p, "0");
	T_EXPECT(e && json_get(e, "name") && json_get(e, "name")->type == JSON_NULL);
	/* never scheduled: not a row; by CPU time, largest first */
	T_EXPECT(sched_thread(p, "104") == NULL);
	T_EXPECT(!strcmp(sched_tids(p, buf, sizeof(buf)), "0 101 103 102"));
	/* the kernel provider has no thread of slices; the app no scheduling */
	T_EXPECT(json_get(p, "threads") && json_get(p, "threads")->n == 0);
	p = provider(v, "1");
	T_ASSERT(p != NULL);
	T_EXPECT(json_get(p, "sched") && json_get(p, "sched")->type == JSON_ARRAY &&
		 json_get(p, "sched")->n == 0);
	EXPECT_NUMS(named(thread(p, "101"), "slices", "job"), "count=1 total_ns=1000");
	json_free(v);
}

static void sched_sorting(void)
{
	static const struct {
		enum tbctl_report_sort sort;
		const char *want;
	} cases[] = {
		{ TBCTL_REPORT_SORT_TOTAL, "0 101 103 102" },
		{ TBCTL_REPORT_SORT_MEAN, "0 101 103 102" },
		{ TBCTL_REPORT_SORT_MAX, "0 101 103 102" },
		/* by switches in, then by name */
		{ TBCTL_REPORT_SORT_COUNT, "0 101 102 103" },
		/* thread 0 has no name */
		{ TBCTL_REPORT_SORT_NAME, "0 102 103 101" },
	};
	char buf[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct json *v = sched_json(cases[i].sort);

		T_ASSERT(v != NULL);
		sched_tids(provider(v, "3"), buf, sizeof(buf));
		if (strcmp(buf, cases[i].want))
			T_FAIL("sort %d: %s, expected %s", (int)cases[i].sort, buf, cases[i].want);
		json_free(v);
	}
}

static const char sched_table_want[] =
	"provider 1: app\n"
	"  thread 101 (pid 100): app\n"
	"    SLICE     COUNT      TOTAL       MEAN        P50        P99        MAX UNTERM\n"
	"    cat:job       1   1.000 us   1.000 us   1.000 us   1.000 us   1.000 us      0\n"
	"  drops: none\n"
	"\n"
	"provider 3: kernel\n"
	"  SCHED          TID      PID   CPU TIME       IN      OUT  WAKEUPS\n"
	"  -                0        0   4.500 us        4        3        0\n"
	"  worker         101      100   3.100 us        2        2        2\n"
	"  t103           103      200     600 ns        1        1        0\n"
	"  other          102      100     500 ns        1        2        1\n"
	"  drops: none\n";

static void sched_table(void)
{
	static struct trace t;
	struct tbctl_report *r;
	char *out;
	int ret;

	build_sched(&t);
	T_ASSERT_EQ(t.err, 0);
	r = report_of(&t, t.len, TBCTL_REPORT_SORT_TOTAL, &ret);
	T_ASSERT(r != NULL);
	out = print(r, false);
	T_ASSERT(out != NULL);
	if (strcmp(out, sched_table_want))
		T_FAIL("the table differs; got:\n%s", out);
	free(out);
	tbctl_report_free(r);
}

/* ------------------------------------------------------------------------ */
/* Hostile input                                                            */

/* A report of whatever r holds prints, and its JSON parses. */
static void expect_prints(struct tbctl_report *r, const char *what)
{
	char err[128], *out = print(r, true);
	struct json *v = out ? json_parse(out, strlen(out), err, sizeof(err)) : NULL;

	if (!v)
		T_FAIL("%s: not JSON: %s", what, out ? err : "no output");
	json_free(v);
	free(out);
	out = print(r, false);
	T_EXPECT(out != NULL);
	free(out);
}

/* Every cut of the traces: an error or a report, never a crash. */
static void truncated(void)
{
	static struct trace t, k;
	unsigned int errors = 0, reports = 0;

	build_known(&t);
	T_ASSERT_EQ(t.err, 0);
	build_sched(&k);
	T_ASSERT_EQ(k.err, 0);
	for (size_t len = 0; len < k.len; len += 4) {
		struct tbctl_report *r;
		int ret;

		r = report_of(&k, len, TBCTL_REPORT_SORT_TOTAL, &ret);
		if (r) {
			expect_prints(r, "cut");
			tbctl_report_free(r);
		} else if (ret != -EBADMSG) {
			T_FAIL("cut at %zu: %d, expected -EBADMSG", len, ret);
		}
	}
	for (size_t len = 0; len < t.len; len += 4) {
		struct tbctl_report *r;
		int ret;

		r = report_of(&t, len, TBCTL_REPORT_SORT_TOTAL, &ret);
		if (r) {
			reports++;
			expect_prints(r, "cut");
			tbctl_report_free(r);
		} else {
			errors++;
			if (ret != -EBADMSG)
				T_FAIL("cut at %zu: %d, expected -EBADMSG", len, ret);
		}
	}
	/* cuts between records are traces; inside one (or a word) are not */
	T_EXPECT(reports > 100 && errors > reports);
}

/*
 * Random damage to the known trace, and to the one of scheduling records:
 * any outcome but a crash or a leak.
 */
static void damaged(void)
{
	static struct trace known, sched, bad;
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	unsigned int reports = 0;
	const struct trace *t;

	build_known(&known);
	T_ASSERT_EQ(known.err, 0);
	build_sched(&sched);
	T_ASSERT_EQ(sched.err, 0);
	for (int round = 0; round < 4000; round++) {
		struct tbctl_report *r;
		int ret;

		t = round < 3000 ? &known : &sched;
		bad = *t;
		for (int k = 0; k < 1 + round % 4; k++) {
			size_t w;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			w = 1 + (size_t)(x % (t->len / 8 - 1));	/* the magic stays */
			switch (x >> 62) {
			case 0:		/* a random word */
				bad.words[w] = x * 0x2545f4914f6cdd1dULL;
				break;
			case 1:		/* a bit */
				bad.words[w] ^= 1ULL << (x >> 8 & 63);
				break;
			case 2:		/* a record's size or type field */
				bad.words[w] ^= (x >> 20) & 0xffff;
				break;
			default:	/* a word from elsewhere */
				bad.words[w] = t->words[(x >> 32) % (t->len / 8)];
				break;
			}
		}
		r = report_of(&bad, t->len, (enum tbctl_report_sort)(round % 5), &ret);
		if (r) {
			reports++;
			expect_prints(r, "damaged");
			tbctl_report_free(r);
		} else if (ret != -EBADMSG) {
			T_FAIL("round %d: %d", round, ret);
		}
	}
	T_EXPECT(reports > 0);
}

/* ------------------------------------------------------------------------ */
/* The command                                                              */

static char dir[64], tbctl[PATH_MAX];

static void cleanup(void)
{
	char path[128];

	for (const char *const *n = (const char *const[]){ "t.fxt", NULL }; *n; n++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *n);
		unlink(path);
	}
	rmdir(dir);
}

/* Write len bytes of t as dir/t.fxt. */
static void put_trace(const struct trace *t, size_t len)
{
	char path[128];
	FILE *f;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/tbctl-report-XXXXXX");
		if (!mkdtemp(dir)) {
			T_FAIL("mkdtemp: %s", strerror(errno));
			exit(1);
		}
		atexit(cleanup);
	}
	/* a relative TBCTL_PATH (the VM's copies) is beside this program */
	if (TBCTL_PATH[0] == '/') {
		snprintf(tbctl, sizeof(tbctl), "%s", TBCTL_PATH);
	} else {
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		self[n > 0 ? n : 0] = '\0';
		snprintf(tbctl, sizeof(tbctl), "%s/%s", dirname(self), TBCTL_PATH);
	}
	snprintf(path, sizeof(path), "%s/t.fxt", dir);
	f = fopen(path, "wb");
	if (!f || fwrite(t->words, 1, len, f) != len || fclose(f))
		T_FAIL("cannot write %s", path);
}

/* tracebufctl ARGS... (NULL-terminated) in dir (put_trace() made it). */
static void run(struct run *r, const char *const *args)
{
	run_in(r, tbctl, dir, dir, args);
}

#define RUN(r, ...)	run(r, (const char *const[]){ __VA_ARGS__, NULL })

/* Status 1, nothing on stdout, one line "tracebufctl: ...what..." on stderr. */
static void expect_failure(const struct run *r, const char *what)
{
	const char *nl = r->err ? strchr(r->err, '\n') : NULL;

	T_EXPECT_EQ(r->status, 1);
	T_EXPECT(r->out && !*r->out);
	if (!r->err || strncmp(r->err, "tracebufctl: ", 13) || !nl || nl[1])
		T_FAIL("stderr is not one \"tracebufctl: \" line: \"%s\"", r->err ? r->err : "");
	else if (!strstr(r->err, what))
		T_FAIL("stderr \"%s\" does not say \"%s\"", r->err, what);
}

static void command_json_and_sort(void)
{
	static struct trace t;
	struct json *v, *w;
	struct run a, b;
	char err[128], got[256];

	build_known(&t);
	T_ASSERT_EQ(t.err, 0);
	put_trace(&t, t.len);
	/* the global -j, and the command's */
	RUN(&a, "-j", "report", "t.fxt");
	RUN(&b, "report", "--json", "--sort=count", "t.fxt");
	T_EXPECT_EQ(a.status, 0);
	T_EXPECT_EQ(b.status, 0);
	T_EXPECT(a.err && !*a.err && b.err && !*b.err);
	v = a.out ? json_parse(a.out, strlen(a.out), err, sizeof(err)) : NULL;
	if (!v)
		T_FAIL("-j report: not JSON: %s", err);
	w = b.out ? json_parse(b.out, strlen(b.out), err, sizeof(err)) : NULL;
	if (!w)
		T_FAIL("report --json: not JSON: %s", err);
	EXPECT_NUMS(named(thread(provider(v, "1"), "11"), "slices", "work"),
		    "count=100 total_ns=5050000 p50_ns=50000 p99_ns=99000 max_ns=100000");
	names(thread(provider(v, "1"), "11"), "slices", got, sizeof(got));
	T_EXPECT(!strcmp(got, "work big outer late x inner z back open y"));
	names(thread(provider(w, "1"), "11"), "slices", got, sizeof(got));
	T_EXPECT(!strcmp(got, "work outer back big inner late x z open y"));
	json_free(v);
	json_free(w);
	run_free(&a);
	run_free(&b);
	/* the table, sorted by name */
	RUN(&a, "report", "-s", "name", "t.fxt");
	T_EXPECT_EQ(a.status, 0);
	T_EXPECT(a.out && !strncmp(a.out, "provider 1: app\n  thread 11 (pid 10): main\n", 42));
	T_EXPECT(a.out && strstr(a.out, "\n    cat:back ") != NULL);
	run_free(&a);
}

static void command_bad_input(void)
{
	static struct trace t;
	struct run r;

	build_known(&t);
	T_ASSERT_EQ(t.err, 0);
	/* cut in the last record */
	put_trace(&t, t.len - 8);
	RUN(&r, "report", "t.fxt");
	expect_failure(&r, "t.fxt: ");
	expect_failure(&r, " at offset ");
	run_free(&r);
	/* garbage after the magic record */
	memset(t.words + 1, 0xa5, 64);
	put_trace(&t, t.len);
	RUN(&r, "-j", "report", "t.fxt");
	expect_failure(&r, "t.fxt: ");
	run_free(&r);
	/* not FXT at all, and empty */
	memset(t.words, 0x5a, 64);
	put_trace(&t, 64);
	RUN(&r, "report", "t.fxt");
	expect_failure(&r, "t.fxt: not an FXT trace: no magic record at offset 0");
	run_free(&r);
	put_trace(&t, 0);
	RUN(&r, "report", "t.fxt");
	expect_failure(&r, "no magic record");
	run_free(&r);
	RUN(&r, "report", "nope.fxt");
	expect_failure(&r, "nope.fxt: No such file or directory");
	run_free(&r);
	RUN(&r, "report", ".");
	expect_failure(&r, ".: ");
	run_free(&r);
}

static void command_usage(void)
{
	static struct trace t;
	struct run r;

	memset(&t, 0, sizeof(t));
	put_trace(&t, 0);
	RUN(&r, "report");
	expect_failure(&r, "report: missing FILE (see 'tracebufctl report --help')");
	run_free(&r);
	RUN(&r, "report", "a.fxt", "b.fxt");
	expect_failure(&r, "report: unexpected argument 'b.fxt'");
	run_free(&r);
	RUN(&r, "report", "-s", "m", "t.fxt");
	expect_failure(&r, "report: invalid sort key 'm' (total, count, mean, max or name)");
	run_free(&r);
	RUN(&r, "report", "t.fxt", "-s");
	expect_failure(&r, "option '-s' needs a value");
	run_free(&r);
	RUN(&r, "report", "--frob", "t.fxt");
	expect_failure(&r, "report: unknown option '--frob' (see 'tracebufctl report --help')");
	run_free(&r);
	RUN(&r, "report", "--help");
	T_EXPECT_EQ(r.status, 0);
	T_EXPECT(r.out && !strncmp(r.out, "Usage: tracebufctl report ", 26));
	T_EXPECT(r.err && !*r.err);
	run_free(&r);
}

static const struct t_test tests[] = {
	T_TEST(slices),
	T_TEST(unterminated_and_unmatched),
	T_TEST(instants),
	T_TEST(counters),
	T_TEST(async_spans),
	T_TEST(drops),
	T_TEST(sorting),
	T_TEST(sort_keys),
	T_TEST(human_durations),
	T_TEST(table),
	T_TEST(sched_per_thread),
	T_TEST(sched_sorting),
	T_TEST(sched_table),
	T_TEST(hostile_names),
	T_TEST(category_with_a_colon_is_quoted),
	T_TEST(deep_nesting),
	T_TEST(saturation),
	T_TEST(empty_and_order_of_calls),
	T_TEST(truncated),
	T_TEST(damaged),
	T_TEST(command_json_and_sort),
	T_TEST(command_bad_input),
	T_TEST(command_usage),
};

T_MAIN(tests)
