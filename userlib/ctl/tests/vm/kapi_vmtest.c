// SPDX-License-Identifier: MIT
/*
 * The in-kernel provider API (module/tracebuf_kernel.h), in the test VM,
 * through its example module (module/examples/tracebuf_kexample.c,
 * beside tracebuf.ko): the module's provider is in the registry with its
 * categories; "tracebufctl record" gets its events, from a timer (softirq)
 * and a work item, with their arguments, durations that begin and end,
 * and a counter, on the threads that wrote them (a timer's on the thread
 * it interrupted, 0 for idle); a category not enabled
 * (or excluded) writes nothing; unloading the module while it is traced
 * leaves the session with what it wrote.
 *
 * The traces are left in $TB_OUT as kapi*.fxt, for the host to read
 * again with scripts/fxt-check.py.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ktap.h"

#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <tracebuf_reader.h>

#include "vmtest.h"

static char g_ko[PATH_MAX];

/* insmod or rmmod (busybox's, on PATH): its exit status. */
static int modcmd(const char *cmd, const char *arg, const char *arg2)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		execlp(cmd, cmd, arg, arg2, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static bool have_example(void)
{
	const char *ko = getenv("TRACEBUF_KO");
	char dir[PATH_MAX];

	if (!ko || strlen(ko) >= sizeof(dir))
		return false;
	strcpy(dir, ko);
	snprintf(g_ko, sizeof(g_ko), "%s/tracebuf_kexample.ko", dirname(dir));
	return access(g_ko, R_OK) == 0;
}

static int load(void)
{
	return modcmd("insmod", g_ko, "period_ms=4");
}

static int unload(void)
{
	return modcmd("rmmod", "tracebuf_kexample", NULL);
}

#define MAX_TICKS	4096

struct kcounts {
	unsigned int ticks, steps, begins, ends, counters, other;
	unsigned int early_ends;	/* ends before the first step */
	uint64_t first_n, last_n;	/* the ticks' "n", lowest and highest */
	bool n_increasing;		/* by timestamp: the timer may move
					 * between CPUs, and each CPU writes
					 * into chunks of its own
					 */
	bool softirq, named_args, threads;
};

struct tick {
	uint64_t ns, n;
};

static int cmp_tick(const void *a, const void *b)
{
	const struct tick *x = a, *y = b;

	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

static bool is(const struct tracebuf_reader_str *s, const char *what)
{
	return s->len == strlen(what) && !memcmp(s->data, what, s->len);
}

static const struct tracebuf_reader_arg *arg(const struct tracebuf_reader_record *r,
					      const char *name)
{
	for (unsigned int i = 0; i < r->nargs; i++)
		if (is(&r->args[i].name, name))
			return &r->args[i];
	return NULL;
}

static int kcount(const char *file, struct kcounts *c)
{
	static struct tick ticks[MAX_TICKS];
	static uint64_t end_ns[MAX_TICKS];
	uint64_t first_step_ns = UINT64_MAX;
	struct tracebuf_reader_record r;
	struct tracebuf_reader *rd;
	const struct tracebuf_reader_arg *a;
	int ret;

	memset(c, 0, sizeof(*c));
	c->first_n = UINT64_MAX;
	c->n_increasing = c->softirq = c->named_args = c->threads = true;
	ret = t_trace_open_file(file, TRACEBUF_LIB_READER_MAGIC, &rd);
	if (ret)
		return ret;
	while ((ret = tracebuf_reader_next(rd, &r)) == 1) {
		if (r.type != TRACEBUF_LIB_FXT_RECORD_EVENT)
			continue;
		if (!is(&r.provider_name, "kexample")) {
			c->other++;
			continue;
		}
		/* the work item's, on a kworker; a tick may interrupt idle (0) */
		if (!is(&r.event.name, "tick") && (!r.event.thread_koid || !r.event.process_koid))
			c->threads = false;
		if (is(&r.event.name, "tick")) {
			a = arg(&r, "n");
			if (!a || c->ticks >= MAX_TICKS) {
				c->n_increasing = false;
			} else {
				ticks[c->ticks].ns = r.event.ns;
				ticks[c->ticks].n = a->u64;
				c->first_n = a->u64 < c->first_n ? a->u64 : c->first_n;
				c->last_n = a->u64 > c->last_n ? a->u64 : c->last_n;
			}
			c->ticks++;
			a = arg(&r, "in_softirq");
			c->softirq = c->softirq && a && a->b;
			c->named_args = c->named_args && arg(&r, "delta") &&
					arg(&r, "delta")->i64 == -1;
		} else if (is(&r.event.name, "step")) {
			c->steps++;
			if (r.event.ns < first_step_ns)
				first_step_ns = r.event.ns;
			a = arg(&r, "what");
			c->named_args = c->named_args && a && is(&a->str, "a step");
		} else if (is(&r.event.name, "work") &&
			   r.event.type == TRACEBUF_LIB_FXT_EVENT_DURATION_BEGIN) {
			c->begins++;
		} else if (is(&r.event.name, "work") &&
			   r.event.type == TRACEBUF_LIB_FXT_EVENT_DURATION_END) {
			if (c->ends < MAX_TICKS)
				end_ns[c->ends] = r.event.ns;
			c->ends++;
		} else if (is(&r.event.name, "steps") &&
			   r.event.type == TRACEBUF_LIB_FXT_EVENT_COUNTER) {
			c->counters++;
		}
	}
	tracebuf_reader_close(rd);
	for (unsigned int i = 0; i < c->ends && i < MAX_TICKS; i++)
		c->early_ends += end_ns[i] < first_step_ns;
	qsort(ticks, c->ticks < MAX_TICKS ? c->ticks : MAX_TICKS, sizeof(ticks[0]), cmp_tick);
	for (unsigned int i = 1; i < c->ticks && i < MAX_TICKS; i++)
		if (ticks[i].n <= ticks[i - 1].n)
			c->n_increasing = false;
	printf("# %s: %u ticks (n %" PRIu64 "..%" PRIu64 "), %u steps, %u begins, %u ends "
	       "(%u before the first step), %u counters\n", file, c->ticks, c->first_n, c->last_n,
	       c->steps, c->begins, c->ends, c->early_ends,
	       c->counters);
	return ret;
}

static void registry_has_the_module(void)
{
	const char *list[] = { "tracebufctl", "list", NULL };
	const char *cats[] = { "tracebufctl", "categories", NULL };
	static char out[16384], err[4096];

	/* check.sh builds it beside tracebuf.ko */
	T_ASSERT(have_example());
	T_ASSERT_EQ(load(), 0);
	T_EXPECT_EQ(run(list, out, sizeof(out), err, sizeof(err), 0), 0);
	T_EXPECT(strstr(out, "kexample") != NULL);
	T_EXPECT_EQ(run(cats, out, sizeof(out), err, sizeof(err), 0), 0);
	T_EXPECT(strstr(out, "kexample.detail") != NULL);
	T_EXPECT(strstr(out, "each step of the work") != NULL);
	T_ASSERT_EQ(unload(), 0);
	T_EXPECT_EQ(run(list, out, sizeof(out), err, sizeof(err), 0), 0);
	T_EXPECT(strstr(out, "kexample") == NULL);
}

/* Record the module for a second with categories @cats into @file. */
static void record(const char *cats, const char *mode, const char *file, struct kcounts *c)
{
	const char *rec[] = { "tracebufctl", "record", "-q", "-m", mode, "-b", "256K", "-c", cats,
			      "-p", "kexample", "-d", "1s", "-o", path(file), NULL };
	static char out[4096], err[4096];

	T_ASSERT_EQ(load(), 0);
	T_EXPECT_EQ(run(rec, out, sizeof(out), err, sizeof(err), 0), 0);
	T_EXPECT_EQ(unload(), 0);
	T_ASSERT_EQ(kcount(path(file), c), 0);
}

static void events_with_arguments(void)
{
	struct kcounts c;

	/* check.sh builds it beside tracebuf.ko */
	T_ASSERT(have_example());
	record("kexample,kexample.detail", "streaming", "k.fxt", &c);
	leave(path("k.fxt"), "kapi.fxt");
	T_EXPECT(c.ticks >= 10);
	T_EXPECT(c.n_increasing);
	/* none lost between the first and the last */
	T_EXPECT_EQ(c.last_n - c.first_n + 1, c.ticks);
	T_EXPECT(c.softirq);
	T_EXPECT(c.named_args);
	T_EXPECT(c.threads);
	/*
	 * A work item per tick, but some run as one; a duration each (one
	 * more: a tick just before the start may queue the first), with
	 * three steps and a counter.  The stop ends every write at once,
	 * but the start switches the two categories' static keys on one
	 * after the other, while work items may run: those may be seen in
	 * part (arm64 6.1: 126 durations, 375 steps; the debug kernel, whose
	 * code patching is slow: 203 durations, 603 steps), before the
	 * first step, and one more may have its first steps cut.
	 */
	T_EXPECT(c.begins >= 5 && c.begins <= c.ticks + 1);
	T_EXPECT(c.ends + 1 >= c.begins && c.ends <= c.begins + 1);
	T_EXPECT(c.steps + 3 >= 3 * (c.ends - c.early_ends) && c.steps <= 3 * c.begins + 3);
	T_EXPECT(c.counters == c.ends || c.counters + 1 == c.ends);
	T_EXPECT_EQ(c.other, 0);
}

/* Only what is enabled: "kexample" alone, then it with detail excluded. */
static void categories_switch_writers(void)
{
	struct kcounts c;

	/* check.sh builds it beside tracebuf.ko */
	T_ASSERT(have_example());
	record("kexample", "oneshot", "o.fxt", &c);
	T_EXPECT(c.ticks >= 10);
	T_EXPECT(c.begins >= 5);
	T_EXPECT_EQ(c.steps, 0);
	record("kexample*,-kexample.detail", "circular", "x.fxt", &c);
	leave(path("x.fxt"), "kapi-excluded.fxt");
	T_EXPECT(c.ticks >= 10);
	T_EXPECT_EQ(c.steps, 0);
	record("kexample.detail", "oneshot", "d.fxt", &c);
	T_EXPECT_EQ(c.ticks, 0);
	T_EXPECT(c.steps >= 15);
}

/* Unloading the module while a session traces it: what it wrote stays. */
static void unload_while_traced(void)
{
	const char *rec[] = { "tracebufctl", "record", "--detach", "-q", "-c", "kexample", "-p",
			      "kexample", "-o", path("u.fxt"), NULL };
	static char out[4096], err[4096], id[64];
	const char *stop[] = { "tracebufctl", "stop", id, NULL };
	struct kcounts c;

	/* check.sh builds it beside tracebuf.ko */
	T_ASSERT(have_example());
	T_ASSERT_EQ(load(), 0);
	T_ASSERT_EQ(run(rec, id, sizeof(id), err, sizeof(err), 0), 0);
	id[strcspn(id, "\n")] = '\0';
	usleep(500000);
	T_EXPECT_EQ(unload(), 0);
	/* the session may say the provider went away: its status is not asked */
	run(stop, out, sizeof(out), err, sizeof(err), 0);
	T_ASSERT_EQ(kcount(path("u.fxt"), &c), 0);
	T_EXPECT(c.ticks >= 5);
	T_EXPECT(c.n_increasing);
}

static const struct t_test tests[] = {
	T_TEST(registry_has_the_module),
	T_TEST(events_with_arguments),
	T_TEST(categories_switch_writers),
	T_TEST(unload_while_traced),
};

int main(int argc, char **argv)
{
	int ret = vmtest_main(argv[0], tests, sizeof(tests) / sizeof(tests[0]));

	(void)argc;
	/* the tests after these see no example module, whatever failed */
	if (access("/sys/module/tracebuf_kexample", F_OK) == 0)
		unload();
	return ret;
}
