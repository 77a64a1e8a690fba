// SPDX-License-Identifier: MIT
/*
 * The kernel provider (module parameter kernel_provider), in the test VM:
 * it appears in the registry with its categories and leaves it; with
 * "tracebufctl record -c sched" a known workload (one child pinned to
 * each CPU that sleeps N times) gives N or a few more switch-outs in the
 * blocked state for each child, as many wakeups, context switches on
 * every CPU and the children named; without "sched" named it records no
 * scheduling record; with "-c sched,example" the example's events fall
 * between the first and the last context switch (one timebase) and its
 * threads are named.
 *
 * The trace is left in $TB_OUT as ksched.sched.fxt, for the host to read
 * again with scripts/fxt-check.py --sched.
 *
 * Run with --sleeper N, it is the workload: a child per online CPU,
 * pinned to it, each printing "sleeper CPU TID" and sleeping 1 ms N
 * times.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "../../../../userlib/tests/ktap.h"

#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <linux/tracebuf.h>
#include <tracebuf_reader.h>

#include "vmtest.h"

#define PARAM		"/sys/module/tracebuf/parameters/kernel_provider"
#define SLEEPS		20
#define MAX_CPUS	64

static int set_param(const char *v)
{
	int fd = open(PARAM, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, v, strlen(v));
	close(fd);
	return n == (ssize_t)strlen(v) ? 0 : -1;
}

static int sleeper(int n)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int status, bad = 0;

	for (long cpu = 0; cpu < cpus && cpu < MAX_CPUS; cpu++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (!pid) {
			struct timespec ms = { 0, 1000000 };
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				_exit(1);
			printf("sleeper %ld %d\n", cpu, getpid());
			fflush(stdout);
			for (int i = 0; i < n; i++)
				nanosleep(&ms, NULL);
			_exit(0);
		}
	}
	while (wait(&status) > 0)
		bad |= !WIFEXITED(status) || WEXITSTATUS(status);
	return bad;
}

/* "tracebufctl list" mentions the kernel provider, and its categories. */
static void registry_follows_the_parameter(void)
{
	const char *list[] = { "tracebufctl", "list", NULL };
	const char *cats[] = { "tracebufctl", "categories", NULL };
	static char out[16384], err[4096];

	T_ASSERT_EQ(set_param("1"), 0);
	T_ASSERT_EQ(run(list, out, sizeof(out), err, sizeof(err), 0), 0);
	T_EXPECT(strstr(out, "kernel") != NULL);
	T_ASSERT_EQ(run(cats, out, sizeof(out), err, sizeof(err), 0), 0);
	T_EXPECT(strstr(out, "sched.name") != NULL);
	T_ASSERT_EQ(set_param("0"), 0);
	T_ASSERT_EQ(run(list, out, sizeof(out), err, sizeof(err), 0), 0);
	T_EXPECT(strstr(out, "kernel") == NULL);
	T_EXPECT_EQ(set_param("maybe"), -1);
}

struct sched_counts {
	unsigned int blocked[MAX_CPUS];		/* switch-outs, blocked */
	unsigned int wakeups[MAX_CPUS];
	bool named[MAX_CPUS];
	uint64_t cpus;				/* a bit per CPU with a switch */
	unsigned int sched;			/* scheduling records */
	uint64_t unresolved;
};

/* What file says about the sleepers tids[0..n). */
static int count(const char *file, const long *tids, int n, struct sched_counts *c)
{
	struct tracebuf_reader_record rec;
	struct tracebuf_reader *r;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = tracebuf_reader_open_file(file, TRACEBUF_LIB_READER_MAGIC, &r);
	if (ret)
		return ret;
	while ((ret = tracebuf_reader_next(r, &rec)) == 1) {
		for (int i = 0; i < n; i++) {
			if (rec.type == TRACEBUF_LIB_FXT_RECORD_KERNEL_OBJECT &&
			    rec.kobj.obj_type == TRACEBUF_LIB_FXT_OBJ_THREAD &&
			    rec.kobj.koid == (uint64_t)tids[i] && rec.kobj.name.len == 13 &&
			    !memcmp(rec.kobj.name.data, "ksched_vmtest", 13))
				c->named[i] = true;
			if (rec.type != TRACEBUF_LIB_FXT_RECORD_SCHEDULING)
				continue;
			if (rec.sched.type == TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH &&
			    rec.sched.outgoing_koid == (uint64_t)tids[i] &&
			    rec.sched.outgoing_state == TRACEBUF_LIB_FXT_THREAD_BLOCKED)
				c->blocked[i]++;
			if (rec.sched.type == TRACEBUF_LIB_FXT_SCHED_THREAD_WAKEUP &&
			    rec.sched.incoming_koid == (uint64_t)tids[i])
				c->wakeups[i]++;
		}
		if (rec.type == TRACEBUF_LIB_FXT_RECORD_SCHEDULING) {
			c->sched++;
			if (rec.sched.type == TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH &&
			    rec.sched.cpu < 64)
				c->cpus |= 1ull << rec.sched.cpu;
		}
	}
	c->unresolved = tracebuf_reader_unresolved_refs(r);
	tracebuf_reader_close(r);
	return ret;
}

/* Leave a copy of file as TB_OUT/name, for the host's second reader. */
static void leave(const char *file, const char *name)
{
	const char *dir = getenv("TB_OUT");
	char to[PATH_MAX], buf[65536];
	int in, out;
	ssize_t n;

	if (!dir || snprintf(to, sizeof(to), "%s/%s", dir, name) >= (int)sizeof(to))
		return;
	in = open(file, O_RDONLY | O_CLOEXEC);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
}

/* The sleepers' tids from the workload's output, by CPU; how many. */
static int sleepers(const char *out, long *tids)
{
	int n = 0;
	long cpu, tid;

	for (const char *s = out; (s = strstr(s, "sleeper ")); s++)
		if (sscanf(s, "sleeper %ld %ld", &cpu, &tid) == 2 && cpu >= 0 &&
		    cpu < MAX_CPUS) {
			tids[cpu] = tid;
			n++;
		}
	return n;
}

static void sleeps_are_blocked_switches(void)
{
	char sleeps[16];
	const char *rec[] = { "tracebufctl", "record", "-q", "-c", "sched", "-p", "kernel",
			      "-o", path("k.fxt"), "--", prog_path("ksched_vmtest"), "--sleeper", sleeps,
			      NULL };
	static char out[4096], err[4096];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), tids[MAX_CPUS] = { 0 };
	struct sched_counts c;
	int n;

	snprintf(sleeps, sizeof(sleeps), "%d", SLEEPS);
	T_ASSERT_EQ(set_param("1"), 0);
	T_EXPECT_EQ(run(rec, out, sizeof(out), err, sizeof(err), 0), 0);
	n = sleepers(out, tids);
	T_ASSERT_EQ(n, cpus);
	T_ASSERT_EQ(count(path("k.fxt"), tids, n, &c), 0);
	leave(path("k.fxt"), "ksched.sched.fxt");
	printf("# %u scheduling records, CPUs 0x%" PRIx64 "\n", c.sched, c.cpus);
	T_EXPECT_EQ(c.unresolved, 0);
	T_EXPECT_EQ(c.cpus, (1ull << cpus) - 1);
	for (int i = 0; i < n; i++) {
		printf("# sleeper %d (tid %ld): %u blocked, %u wakeups, named %d\n", i, tids[i],
		       c.blocked[i], c.wakeups[i], c.named[i]);
		/* each sleep, and perhaps a wait for a page or the pipe */
		T_EXPECT(c.blocked[i] >= SLEEPS && c.blocked[i] <= SLEEPS + 5);
		T_EXPECT(c.wakeups[i] >= SLEEPS);
		T_EXPECT(c.named[i]);
	}
	T_EXPECT_EQ(set_param("0"), 0);
}

/* Every category of the session but sched: no scheduling record. */
static void off_unless_named(void)
{
	const char *rec[] = { "tracebufctl", "record", "-q", "-p", "kernel", "-o", path("n.fxt"),
			      "--", prog_path("ksched_vmtest"), "--sleeper", "3", NULL };
	static char out[4096], err[4096];
	long tids[MAX_CPUS] = { 0 };
	struct sched_counts c;

	T_ASSERT_EQ(set_param("1"), 0);
	T_EXPECT_EQ(run(rec, out, sizeof(out), err, sizeof(err), 0), 0);
	T_ASSERT_EQ(count(path("n.fxt"), tids, sleepers(out, tids), &c), 0);
	T_EXPECT_EQ(c.sched, 0);
	T_EXPECT_EQ(set_param("0"), 0);
}

/*
 * One timebase: the example's events (user space, its own clock read)
 * fall between the kernel provider's first and last context switch of
 * the same recording, and each of the example's threads is named.
 */
static void one_timebase_with_user_space(void)
{
	const char *rec[] = { "tracebufctl", "record", "-q", "-c", "sched,example",
			      "-o", path("u.fxt"), "--", prog_path("tracebuf-example"),
			      "-t", "2", "-n", "20", "-w", "2000", NULL };
	static char out[4096], err[4096];
	uint64_t first = UINT64_MAX, last = 0, lo = UINT64_MAX, hi = 0;
	struct tracebuf_reader_record r;
	struct tracebuf_reader *rd;
	unsigned int events = 0, switches = 0;
	uint64_t tids[8] = { 0 }, named = 0;
	unsigned int ntids = 0;

	T_ASSERT_EQ(set_param("1"), 0);
	T_EXPECT_EQ(run(rec, out, sizeof(out), err, sizeof(err), 0), 0);
	T_ASSERT_EQ(tracebuf_reader_open_file(path("u.fxt"), TRACEBUF_LIB_READER_MAGIC, &rd), 0);
	while (tracebuf_reader_next(rd, &r) == 1) {
		if (r.type == TRACEBUF_LIB_FXT_RECORD_SCHEDULING &&
		    r.sched.type == TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH) {
			first = first < r.sched.ns ? first : r.sched.ns;
			last = last > r.sched.ns ? last : r.sched.ns;
			switches++;
		} else if (r.type == TRACEBUF_LIB_FXT_RECORD_EVENT &&
			   r.event.category.len == 7 && !memcmp(r.event.category.data, "example", 7)) {
			lo = lo < r.event.ns ? lo : r.event.ns;
			hi = hi > r.event.ns ? hi : r.event.ns;
			events++;
			for (unsigned int i = 0; i <= ntids && i < 8; i++) {
				if (i == ntids) {
					tids[ntids++] = r.event.thread_koid;
					break;
				}
				if (tids[i] == r.event.thread_koid)
					break;
			}
		}
	}
	tracebuf_reader_close(rd);
	T_ASSERT_EQ(tracebuf_reader_open_file(path("u.fxt"), TRACEBUF_LIB_READER_MAGIC, &rd), 0);
	while (tracebuf_reader_next(rd, &r) == 1)
		for (unsigned int i = 0; i < ntids; i++)
			if (r.type == TRACEBUF_LIB_FXT_RECORD_KERNEL_OBJECT &&
			    r.kobj.obj_type == TRACEBUF_LIB_FXT_OBJ_THREAD && r.kobj.koid == tids[i])
				named |= 1ull << i;
	tracebuf_reader_close(rd);
	printf("# %u switches %" PRIu64 "..%" PRIu64 " ns, %u example events %" PRIu64 "..%" PRIu64
	       " ns from %u threads\n", switches, first, last, events, lo, hi, ntids);
	T_EXPECT(switches > 0);
	T_EXPECT(events >= 40);
	T_EXPECT(first < lo && hi < last);
	T_EXPECT(ntids >= 2);
	T_EXPECT_EQ(named, (1ull << ntids) - 1);
	leave(path("u.fxt"), "ksched-example.sched.fxt");
	T_EXPECT_EQ(set_param("0"), 0);
}

static const struct t_test tests[] = {
	T_TEST(registry_follows_the_parameter),
	T_TEST(sleeps_are_blocked_switches),
	T_TEST(off_unless_named),
	T_TEST(one_timebase_with_user_space),
};

int main(int argc, char **argv)
{
	int ret;

	if (argc == 3 && !strcmp(argv[1], "--sleeper"))
		return sleeper(atoi(argv[2]));
	ret = vmtest_main(argv[0], tests, sizeof(tests) / sizeof(tests[0]));
	/* the tests after these see no kernel provider, whatever failed */
	set_param("0");
	return ret;
}
