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
 * again with scripts/fxt-check.py --sched.  "tracebufctl convert" carries
 * every switch and wake-up of it into the JSON's systemTraceEvents (a
 * warning at most for a thread 0 that is not the idle task), and
 * "tracebufctl report" counts each sleeper's switches and wake-ups as the
 * trace has them, and CPU time.
 *
 * Under a load of the module's own paths with sched on, rmmod is refused
 * and nothing is lost (on the debug kernel: no lockdep or KASAN report).
 *
 * Threads that exit one after the other (their task_structs reused, their
 * pids gone before their last switch) keep their ids to the end.
 *
 * Run with --sleeper N [US], it is the workload: a child per online CPU,
 * pinned to it, each printing "sleeper CPU TID", sleeping US microseconds
 * (default 1000) until it blocked N times, then printing "slept CPU
 * BLOCKED".  With --threads N, N threads, one
 * after the other, each sleeping once then exiting.  With --names,
 * threads with names that are not UTF-8 (names()).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ktap.h"

#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <linux/tracebuf.h>
#include <tracebuf_reader.h>

#include "../json.h"
#include "vmtest.h"

#define PARAM		"/sys/module/tracebuf/parameters/kernel_provider"
#define SLEEPS		20
#define CIRCULAR_SLEEPS	6000
#define STALL_SLEEPS	3000
#define KFILL_STALL	"/sys/kernel/debug/tracebuf/kfill_stall_us"
#define KFULL_FOUND	"/sys/kernel/debug/tracebuf/kfull_found"
#define STREAMING_SLEEPS	2000
#define MAX_CPUS	64

static int set_param(const char *v)
{
	return write_file(PARAM, v);
}

static int sleeper(int n, long us)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int status, bad = 0;

	for (long cpu = 0; cpu < cpus && cpu < MAX_CPUS; cpu++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (!pid) {
			struct timespec ts = { 0, us * 1000 };
			struct rusage ru;
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				_exit(1);
			printf("sleeper %ld %d\n", cpu, getpid());
			fflush(stdout);
			/*
			 * Until the kernel counted @n blocked switches (its
			 * own count, getrusage()): a sleep whose timer fired
			 * before its thread switched out does not block,
			 * which an emulated CPU the host stalled makes
			 * common.  At most 10 * @n sleeps.
			 */
			for (int i = 0; i < 10 * n; i++) {
				getrusage(RUSAGE_SELF, &ru);
				if (ru.ru_nvcsw >= n)
					break;
				nanosleep(&ts, NULL);
			}
			getrusage(RUSAGE_SELF, &ru);
			printf("slept %ld %ld\n", cpu, ru.ru_nvcsw);
			fflush(stdout);
			_exit(0);
		}
	}
	while (wait(&status) > 0)
		bad |= !WIFEXITED(status) || WEXITSTATUS(status);
	return bad;
}

/* "tracebufctl list" mentions the kernel provider, and its categories. */
static void *short_lived(void *arg)
{
	struct timespec ts = { 0, 100 * 1000 };

	(void)arg;
	nanosleep(&ts, NULL);
	return NULL;
}

/* The --threads workload: @n threads, each joined before the next. */
static int threads(int n)
{
	for (int i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, short_lived, NULL) || pthread_join(t, NULL))
			return 1;
	}
	return 0;
}

/*
 * The --names workload: threads whose names (PR_SET_NAME) are not UTF-8,
 * or end inside a character, and one whose name is, each sleeping a few
 * times.  Their names in a trace, as thread_names_are_utf8() wants them.
 */
static const char *const names_set[][2] = {
	{ "\xff\xfe bad", "?? bad" },
	{ "cut-\xc3", "cut-?" },
	{ "\xed\xa0\x80 surrogate", "??? surrogat" },
	{ "ok-\xc3\xa9", "ok-\xc3\xa9" },
};

static void *named(void *arg)
{
	struct timespec ts = { 0, 200 * 1000 };

	prctl(PR_SET_NAME, arg);
	for (int i = 0; i < 5; i++)
		nanosleep(&ts, NULL);
	return NULL;
}

static int names(void)
{
	for (size_t i = 0; i < sizeof(names_set) / sizeof(names_set[0]); i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, named, (void *)names_set[i][0]) ||
		    pthread_join(t, NULL))
			return 1;
	}
	return 0;
}

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
	unsigned int dead[MAX_CPUS];		/* switch-outs, dead: exit */
	unsigned int outs[MAX_CPUS], ins[MAX_CPUS];	/* every switch out, in */
	unsigned int wakeups[MAX_CPUS];
	bool named[MAX_CPUS];
	unsigned int dead_all;			/* switch-outs, dead, any thread */
	unsigned int dead_anonymous;		/* the same, of thread 0 */
	uint64_t cpus;				/* a bit per CPU with a switch */
	unsigned int sched;			/* scheduling records */
	unsigned int switches, wakeups_all;	/* of every thread */
	uint64_t first_ns, last_ns;		/* of the scheduling records */
	uint64_t sched_bytes;
	unsigned int overflows;			/* "buffer overflow" events */
	unsigned int breaks;			/* a CPU's switch whose outgoing
						 * thread is not the one its last
						 * switch brought in: one lost
						 */
	uint64_t unresolved;
};

/* What file says about the sleepers tids[0..n). */
static int count(const char *file, const long *tids, int n, struct sched_counts *c)
{
	struct tracebuf_reader_record rec;
	struct tracebuf_reader *r;
	uint64_t last_in[MAX_CPUS];
	bool seen[MAX_CPUS] = { false };
	int ret;

	memset(c, 0, sizeof(*c));
	ret = t_trace_open_file(file, TRACEBUF_LIB_READER_MAGIC, &r);
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
			if (rec.sched.type == TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH &&
			    rec.sched.outgoing_koid == (uint64_t)tids[i] &&
			    rec.sched.outgoing_state == TRACEBUF_LIB_FXT_THREAD_DEAD)
				c->dead[i]++;
			if (rec.sched.type == TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH) {
				c->outs[i] += rec.sched.outgoing_koid == (uint64_t)tids[i];
				c->ins[i] += rec.sched.incoming_koid == (uint64_t)tids[i];
			}
			if (rec.sched.type == TRACEBUF_LIB_FXT_SCHED_THREAD_WAKEUP &&
			    rec.sched.incoming_koid == (uint64_t)tids[i])
				c->wakeups[i]++;
		}
		if (rec.type == TRACEBUF_LIB_FXT_RECORD_METADATA &&
		    rec.meta.type == TRACEBUF_LIB_FXT_META_PROVIDER_EVENT)
			c->overflows++;
		if (rec.type == TRACEBUF_LIB_FXT_RECORD_SCHEDULING) {
			if (!c->sched++ || rec.sched.ns < c->first_ns)
				c->first_ns = rec.sched.ns;
			if (rec.sched.ns > c->last_ns)
				c->last_ns = rec.sched.ns;
			c->switches += rec.sched.type == TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH;
			c->wakeups_all += rec.sched.type == TRACEBUF_LIB_FXT_SCHED_THREAD_WAKEUP;
			c->sched_bytes += rec.size;
			if (rec.sched.type == TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH &&
			    rec.sched.cpu < MAX_CPUS) {
				unsigned int cpu = rec.sched.cpu;

				c->cpus |= 1ull << cpu;
				if (rec.sched.outgoing_state == TRACEBUF_LIB_FXT_THREAD_DEAD) {
					c->dead_all++;
					c->dead_anonymous += !rec.sched.outgoing_koid;
				}
				/* a CPU's records are in its order in the file */
				if (seen[cpu] && rec.sched.outgoing_koid != last_in[cpu] &&
				    !c->breaks++)
					printf("# %s: the first break: CPU %u at %" PRIu64
					       " ns switched thread %" PRIu64 " out, %" PRIu64
					       " in\n", file, cpu, rec.sched.ns,
					       rec.sched.outgoing_koid, last_in[cpu]);
				seen[cpu] = true;
				last_in[cpu] = rec.sched.incoming_koid;
			}
		}
	}
	c->unresolved = tracebuf_reader_unresolved_refs(r);
	tracebuf_reader_close(r);
	return ret;
}

/*
 * The values of the workload's lines "@key CPU VALUE" by CPU in @vals;
 * how many lines.
 */
static int by_cpu(const char *out, const char *key, long *vals)
{
	size_t len = strlen(key);
	long cpu, v;
	int n = 0;

	for (const char *s = out; (s = strstr(s, key)); s++)
		if (s[len] == ' ' && sscanf(s + len, "%ld %ld", &cpu, &v) == 2 && cpu >= 0 &&
		    cpu < MAX_CPUS) {
			vals[cpu] = v;
			n++;
		}
	return n;
}

/*
 * The voluntary switches each sleeper counted (getrusage()) in @nvcsw:
 * a trace is held to that count.  The sleeper sleeps until it reaches
 * the number of sleeps asked for, so it is at least that.
 */
static void slept(const char *out, long *nvcsw)
{
	by_cpu(out, "slept", nvcsw);
}

/*
 * Sleeper @i's blocked switch-outs in the trace: those the kernel
 * counted before it printed them, and perhaps its write of them.
 */
static void expect_blocked(const struct sched_counts *c, int i, const long *nvcsw, int sleeps)
{
	printf("# sleeper %d: %ld voluntary switches by getrusage(), %u blocked in the trace\n",
	       i, nvcsw[i], c->blocked[i]);
	T_EXPECT(nvcsw[i] >= sleeps && nvcsw[i] <= sleeps + 5);
	T_EXPECT((long)c->blocked[i] >= nvcsw[i] && (long)c->blocked[i] <= nvcsw[i] + 2);
}

/* The sleepers' tids from the workload's output, by CPU; how many. */
static int sleepers(const char *out, long *tids)
{
	return by_cpu(out, "sleeper", tids);
}

/* The whole of @file, NUL-terminated (malloc'd; its length in *@len), or NULL. */
static char *slurp_file(const char *file, size_t *len)
{
	FILE *f = fopen(file, "rb");
	char *buf = NULL;
	struct stat st;

	if (!f)
		return NULL;
	if (!fstat(fileno(f), &st))
		buf = malloc((size_t)st.st_size + 1);
	if (buf) {
		*len = fread(buf, 1, (size_t)st.st_size, f);
		buf[*len] = '\0';
	}
	fclose(f);
	return buf;
}

/* The lines of @text that hold @a, and @b unless NULL, and @c unless NULL. */
static unsigned int lines_with(const char *text, const char *a, const char *b, const char *c)
{
	unsigned int n = 0;

	for (const char *l = text; l && *l; ) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (memmem(l, len, a, strlen(a)) && (!b || memmem(l, len, b, strlen(b))) &&
		    (!c || memmem(l, len, c, strlen(c))))
			n++;
		l = nl ? nl + 1 : NULL;
	}
	return n;
}

/*
 * "tracebufctl convert" of the trace @file (tids[0..n) the sleepers, @c
 * what count() found) carries every context switch and wake-up into the
 * JSON's systemTraceEvents, as ftrace's text, and has nothing to warn of
 * that is not in the trace; "tracebufctl report" counts each sleeper's switches in and out and
 * wake-ups as the trace has them, names it, gives it CPU time, and gives
 * no more CPU time in all than the CPUs had between the first and the
 * last scheduling record.
 */
static void convert_and_report(const char *file, const long *tids, int n,
			       const struct sched_counts *c)
{
	const char *conv[] = { "tracebufctl", "convert", file, "-o", path("k.json"), NULL };
	const char *rep[] = { "tracebufctl", "report", "-j", file, NULL };
	static char out[1 << 20], err[4096];
	const struct json *sys, *provs, *kern = NULL, *threads;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t total = 0;
	char jerr[128], a[64], b[64];
	struct json *v;
	size_t len = 0;
	char *text;

	T_ASSERT_EQ(run(conv, out, sizeof(out), err, sizeof(err), 0), 0);
	/*
	 * Nothing to warn of but, at most, switches of thread 0 that is not
	 * the idle task: an exiting thread whose id the kernel provider lost
	 * (exited_threads_keep_their_ids() makes them rare)
	 */
	T_EXPECT_EQ(lines_with(err, "", NULL, NULL),
		    lines_with(err, "written as the idle task's", NULL, NULL));
	T_EXPECT(lines_with(err, "", NULL, NULL) <= 1);
	text = slurp_file(path("k.json"), &len);
	T_ASSERT(text != NULL);
	v = json_parse(text, len, jerr, sizeof(jerr));
	free(text);
	if (!v)
		T_FAIL("k.json: %s", jerr);
	T_ASSERT(v != NULL);
	sys = json_get(v, "systemTraceEvents");
	T_ASSERT(sys && sys->type == JSON_STRING);
	T_EXPECT(!strncmp(sys->text, "# tracer: nop\n", 14));
	printf("# systemTraceEvents: %u sched_switch, %u sched_waking, %u sched_wakeup lines\n",
	       lines_with(sys->text, ": sched_switch: ", NULL, NULL),
	       lines_with(sys->text, ": sched_waking: ", NULL, NULL),
	       lines_with(sys->text, ": sched_wakeup: ", NULL, NULL));
	T_EXPECT_EQ(lines_with(sys->text, ": sched_switch: ", NULL, NULL), c->switches);
	T_EXPECT_EQ(lines_with(sys->text, ": sched_waking: ", NULL, NULL), c->wakeups_all);
	T_EXPECT_EQ(lines_with(sys->text, ": sched_wakeup: ", NULL, NULL), c->wakeups_all);
	for (int i = 0; i < n; i++) {
		snprintf(a, sizeof(a), " prev_pid=%ld prev_prio=", tids[i]);
		T_EXPECT_EQ(lines_with(sys->text, ": sched_switch: prev_comm=ksched_vmtest ", a,
				       NULL), c->outs[i]);
		T_EXPECT_EQ(lines_with(sys->text, ": sched_switch: prev_comm=ksched_vmtest ", a,
				       " prev_state=S ==> "), c->blocked[i]);
		snprintf(a, sizeof(a), " next_pid=%ld next_prio=", tids[i]);
		T_EXPECT_EQ(lines_with(sys->text, ": sched_switch: ", a, NULL), c->ins[i]);
		snprintf(a, sizeof(a), ": sched_waking: comm=ksched_vmtest pid=%ld prio=", tids[i]);
		snprintf(b, sizeof(b), "-%ld ", tids[i]);
		T_EXPECT_EQ(lines_with(sys->text, a, b, NULL), c->wakeups[i]);
	}
	json_free(v);

	T_ASSERT_EQ(run(rep, out, sizeof(out), err, sizeof(err), 0), 0);
	v = json_parse(out, strlen(out), jerr, sizeof(jerr));
	if (!v)
		T_FAIL("report -j: %s", jerr);
	T_ASSERT(v != NULL);
	provs = json_get(v, "providers");
	for (size_t k = 0; provs && provs->type == JSON_ARRAY && k < provs->n; k++) {
		const char *name = json_get_str(provs->items[k], "name");

		if (name && !strcmp(name, "kernel"))
			kern = provs->items[k];
	}
	T_ASSERT(kern != NULL);
	threads = json_get(kern, "sched");
	T_ASSERT(threads && threads->type == JSON_ARRAY);
	for (int i = 0; i < n; i++) {
		const struct json *t = NULL;
		const char *name;

		snprintf(a, sizeof(a), "%ld", tids[i]);
		for (size_t k = 0; k < threads->n; k++)
			if (json_get_num(threads->items[k], "tid") &&
			    !strcmp(json_get_num(threads->items[k], "tid"), a))
				t = threads->items[k];
		if (!t) {
			T_FAIL("report: no sleeper %ld", tids[i]);
			continue;
		}
		printf("# report: sleeper %ld: %s ns of CPU, %s in, %s out, %s wake-ups\n",
		       tids[i], json_get_num(t, "cpu_ns"), json_get_num(t, "switches_in"),
		       json_get_num(t, "switches_out"), json_get_num(t, "wakeups"));
		T_EXPECT_EQ(strtoull(json_get_num(t, "switches_out"), NULL, 10), c->outs[i]);
		T_EXPECT_EQ(strtoull(json_get_num(t, "switches_in"), NULL, 10), c->ins[i]);
		T_EXPECT_EQ(strtoull(json_get_num(t, "wakeups"), NULL, 10), c->wakeups[i]);
		T_EXPECT(strtoull(json_get_num(t, "cpu_ns"), NULL, 10) > 0);
		/* a process of its own: its pid is its tid */
		T_EXPECT(json_get_num(t, "pid") && !strcmp(json_get_num(t, "pid"), a));
		name = json_get_str(t, "name");
		T_EXPECT(name && !strcmp(name, "ksched_vmtest"));
	}
	for (size_t k = 0; k < threads->n; k++)
		total += strtoull(json_get_num(threads->items[k], "cpu_ns"), NULL, 10);
	printf("# report: %" PRIu64 " ns of CPU in all, %" PRIu64 " ns between the first and "
	       "the last record on %ld CPUs\n", total, c->last_ns - c->first_ns, cpus);
	T_EXPECT(total > 0 && total <= (c->last_ns - c->first_ns) * (uint64_t)cpus);
	json_free(v);
}

static void sleeps_are_blocked_switches(void)
{
	char sleeps[16];
	const char *rec[] = { "tracebufctl", "record", "-q", "-c", "sched", "-p", "kernel",
			      "-o", path("k.fxt"), "--", prog_path("ksched_vmtest"), "--sleeper", sleeps,
			      NULL };
	static char out[4096], err[4096];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), tids[MAX_CPUS] = { 0 }, nvcsw[MAX_CPUS] = { 0 };
	struct sched_counts c;
	int n;

	snprintf(sleeps, sizeof(sleeps), "%d", SLEEPS);
	T_ASSERT_EQ(set_param("1"), 0);
	T_EXPECT_EQ(run(rec, out, sizeof(out), err, sizeof(err), 0), 0);
	n = sleepers(out, tids);
	slept(out, nvcsw);
	T_ASSERT_EQ(n, cpus);
	T_ASSERT_EQ(count(path("k.fxt"), tids, n, &c), 0);
	leave(path("k.fxt"), "ksched.sched.fxt");
	convert_and_report(path("k.fxt"), tids, n, &c);
	printf("# %u scheduling records, CPUs 0x%" PRIx64 "\n", c.sched, c.cpus);
	T_EXPECT_EQ(c.unresolved, 0);
	T_EXPECT_EQ(c.breaks, 0);
	T_EXPECT_EQ(c.cpus, (1ull << cpus) - 1);
	for (int i = 0; i < n; i++) {
		printf("# sleeper %d (tid %ld): %u blocked, %u wakeups, named %d\n", i, tids[i],
		       c.blocked[i], c.wakeups[i], c.named[i]);
		expect_blocked(&c, i, nvcsw, SLEEPS);
		T_EXPECT(c.wakeups[i] >= SLEEPS);
		T_EXPECT(c.named[i]);
	}
	T_EXPECT_EQ(set_param("0"), 0);
}

/*
 * The modes, each sleeper sleeping @n_sleeps times @us µs, into @file
 * (left as ksched.@mode.sched.fxt, or @left).  Circular keeps the newest
 * records: each sleeper's exit and fewer than its sleeps (1M: about
 * 940 KiB of rolling buffers, for some 1.5 MiB written), the threads
 * named from the durable buffer; streaming keeps them all (256K: halves
 * of 120 KiB, saved as they fill: with 30 KiB ones the debug kernel's
 * manager falls behind).  No record is dropped and none lost: on each
 * CPU, every switch's outgoing thread is the one the switch before
 * brought in.
 */
static void record_mode(const char *mode, const char *size, int n_sleeps, const char *us,
			const char *file, const char *left, struct sched_counts *c, long *tids,
			long *nvcsw, int *n)
{
	char sleeps[16];
	const char *rec[] = { "tracebufctl", "record", "-q", "-m", mode, "-b", size, "-c",
			      "sched", "-p", "kernel", "-o", path(file), "--",
			      prog_path("ksched_vmtest"), "--sleeper", sleeps, us, NULL };
	static char out[4096], err[4096];
	char name[64];

	snprintf(sleeps, sizeof(sleeps), "%d", n_sleeps);
	*n = 0;
	T_ASSERT_EQ(set_param("1"), 0);
	T_EXPECT_EQ(run(rec, out, sizeof(out), err, sizeof(err), 0), 0);
	T_EXPECT_EQ(set_param("0"), 0);
	*n = sleepers(out, tids);
	slept(out, nvcsw);
	T_ASSERT_EQ(count(path(file), tids, *n, c), 0);
	snprintf(name, sizeof(name), "ksched.%s.sched.fxt", mode);
	leave(path(file), left ? left : name);
	printf("# %s: %u scheduling records (%" PRIu64 " bytes), CPUs 0x%" PRIx64
	       ", %u overflow events, %u breaks\n", mode, c->sched, c->sched_bytes, c->cpus,
	       c->overflows, c->breaks);
	for (int i = 0; i < *n; i++)
		printf("# sleeper %d (tid %ld): %u blocked, %u dead, %u wakeups, named %d\n", i,
		       tids[i], c->blocked[i], c->dead[i], c->wakeups[i], c->named[i]);
	T_EXPECT_EQ(c->unresolved, 0);
	T_EXPECT_EQ(c->overflows, 0);
	T_EXPECT_EQ(c->breaks, 0);
	for (int i = 0; i < *n; i++) {
		T_EXPECT_EQ(c->dead[i], 1);
		T_EXPECT(c->named[i]);
	}
}

static void circular_keeps_the_newest(void)
{
	long tids[MAX_CPUS] = { 0 }, nvcsw[MAX_CPUS] = { 0 };
	struct sched_counts c;
	int n;

	record_mode("circular", "1M", CIRCULAR_SLEEPS, "100", "c.fxt", NULL, &c, tids, nvcsw, &n);
	T_ASSERT_EQ(n, sysconf(_SC_NPROCESSORS_ONLN));
	T_EXPECT(c.sched_bytes > 1024 * 1024 / 2);
	for (int i = 0; i < n; i++)
		T_EXPECT(c.blocked[i] > 0 && c.blocked[i] < CIRCULAR_SLEEPS);
}

/*
 * A CPU that finds the cursor full switches rolling buffers itself: the
 * one that filled it is held there (debugfs) until another finds it so.
 */
static void any_cpu_switches_buffers(void)
{
	long tids[MAX_CPUS] = { 0 }, nvcsw[MAX_CPUS] = { 0 };
	char before[32], after[32];
	struct sched_counts c;
	int n;

	T_ASSERT_EQ(read_file(KFULL_FOUND, before, sizeof(before)), 0);
	T_ASSERT_EQ(write_file(KFILL_STALL, "300000"), 0);
	record_mode("circular", "256K", STALL_SLEEPS, "100", "f.fxt", "ksched.held.sched.fxt", &c,
		    tids, nvcsw, &n);
	T_EXPECT_EQ(write_file(KFILL_STALL, "0"), 0);
	T_ASSERT_EQ(read_file(KFULL_FOUND, after, sizeof(after)), 0);
	printf("# a CPU found the cursor full %ld times\n", atol(after) - atol(before));
	T_EXPECT(atol(after) > atol(before));
	T_ASSERT_EQ(n, sysconf(_SC_NPROCESSORS_ONLN));
	for (int i = 0; i < n; i++)
		T_EXPECT(c.blocked[i] > 0 && c.blocked[i] < STALL_SLEEPS);
}

static void streaming_keeps_every_switch(void)
{
	long tids[MAX_CPUS] = { 0 }, nvcsw[MAX_CPUS] = { 0 };
	struct sched_counts c;
	int n;

	record_mode("streaming", "256K", STREAMING_SLEEPS, "1000", "s.fxt", NULL, &c, tids, nvcsw, &n);
	T_ASSERT_EQ(n, sysconf(_SC_NPROCESSORS_ONLN));
	T_EXPECT(c.sched_bytes > 256 * 1024);
	for (int i = 0; i < n; i++) {
		expect_blocked(&c, i, nvcsw, STREAMING_SLEEPS);
		T_EXPECT(c.wakeups[i] >= STREAMING_SLEEPS);
	}
}

/*
 * A snapshot of a circular recording, taken after the workload ended,
 * holds its newest records: each sleeper's exit.
 */
static void snapshot_of_circular(void)
{
	const char *rec[] = { "tracebufctl", "record", "--detach", "-m", "circular", "-b", "1M",
			      "-c", "sched", "-p", "kernel", "-o", path("d.fxt"), NULL };
	const char *work[] = { "ksched_vmtest", "--sleeper", "200", NULL };
	const char *snap[] = { "tracebufctl", "snapshot", "-o", path("snap.fxt"), NULL };
	static char out[4096], err[4096], id[64];
	const char *stop[] = { "tracebufctl", "stop", id, NULL };
	long tids[MAX_CPUS] = { 0 };
	struct sched_counts c;
	int n;

	T_ASSERT_EQ(set_param("1"), 0);
	T_ASSERT_EQ(run(rec, id, sizeof(id), err, sizeof(err), 0), 0);
	id[strcspn(id, "\n")] = '\0';
	T_EXPECT_EQ(run(work, out, sizeof(out), err, sizeof(err), 0), 0);
	n = sleepers(out, tids);
	T_EXPECT_EQ(run(snap, NULL, 0, err, sizeof(err), 0), 0);
	T_EXPECT_EQ(run(stop, NULL, 0, err, sizeof(err), 0), 0);
	T_EXPECT_EQ(set_param("0"), 0);
	T_ASSERT_EQ(n, sysconf(_SC_NPROCESSORS_ONLN));
	T_ASSERT_EQ(count(path("snap.fxt"), tids, n, &c), 0);
	leave(path("snap.fxt"), "ksched.snapshot.sched.fxt");
	printf("# snapshot: %u scheduling records (%" PRIu64 " bytes)\n", c.sched, c.sched_bytes);
	T_EXPECT_EQ(c.unresolved, 0);
	T_EXPECT_EQ(c.breaks, 0);
	for (int i = 0; i < n; i++) {
		T_EXPECT_EQ(c.dead[i], 1);
		T_EXPECT(c.named[i]);
	}
	T_ASSERT_EQ(count(path("d.fxt"), tids, n, &c), 0);
	T_EXPECT(c.sched > 0);
}

/* 1 when @file holds a provider named "kernel", 0 when not, -1 unread. */
static int has_kernel(const char *file)
{
	struct tracebuf_reader_record r;
	struct tracebuf_reader *rd;
	int found = 0;

	if (t_trace_open_file(file, TRACEBUF_LIB_READER_MAGIC, &rd))
		return -1;
	while (!found && tracebuf_reader_next(rd, &r) == 1)
		found = r.type == TRACEBUF_LIB_FXT_RECORD_METADATA &&
			r.meta.type == TRACEBUF_LIB_FXT_META_PROVIDER_INFO &&
			r.meta.name.len == 6 && !memcmp(r.meta.name.data, "kernel", 6);
	tracebuf_reader_close(rd);
	return found;
}

/*
 * A session takes the kernel provider when it names one of its
 * categories, with no -p: "record -c sched" is all it takes (a pattern
 * too: "sched*", which the provider reads as naming sched); a session of
 * every category ("*" too), or of others only, leaves it out.
 */
static void taken_when_a_category_names_it(void)
{
#define EXAMPLE "--", prog_path("tracebuf-example"), "-t", "1", "-n", "5", "-w", "100", NULL
	const char *all[] = { "tracebufctl", "record", "-q", "-o", path("a.fxt"), EXAMPLE };
	const char *star[] = { "tracebufctl", "record", "-q", "-c", "*", "-o", path("t.fxt"),
			       EXAMPLE };
	const char *other[] = { "tracebufctl", "record", "-q", "-c", "example", "-o",
				path("e.fxt"), EXAMPLE };
	const char *sched[] = { "tracebufctl", "record", "-q", "-c", "sched*,example", "-o",
				path("y.fxt"), EXAMPLE };
#undef EXAMPLE
	static char out[4096], err[4096];
	long tids[MAX_CPUS] = { 0 };
	struct sched_counts c;

	T_ASSERT_EQ(set_param("1"), 0);
	T_EXPECT_EQ(run(all, out, sizeof(out), err, sizeof(err), 0), 0);
	T_EXPECT_EQ(has_kernel(path("a.fxt")), 0);
	T_EXPECT_EQ(run(star, out, sizeof(out), err, sizeof(err), 0), 0);
	T_EXPECT_EQ(has_kernel(path("t.fxt")), 0);
	T_EXPECT_EQ(run(other, out, sizeof(out), err, sizeof(err), 0), 0);
	T_EXPECT_EQ(has_kernel(path("e.fxt")), 0);
	T_EXPECT_EQ(run(sched, out, sizeof(out), err, sizeof(err), 0), 0);
	T_EXPECT_EQ(has_kernel(path("y.fxt")), 1);
	T_ASSERT_EQ(count(path("y.fxt"), tids, 0, &c), 0);
	T_EXPECT(c.sched > 0);
	T_EXPECT_EQ(set_param("0"), 0);
}

/* rmmod (busybox's, on PATH) of @module: its exit status. */
static int rmmod(const char *module)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null >= 0)
			dup2(null, 2);
		execlp("rmmod", "rmmod", module, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/*
 * sched on under a load of the module's own paths (tb_churn: providers,
 * a second manager, buffers, an exit with everything open), forks and
 * exits, and snapshots: on the debug kernel any lockdep, KASAN or
 * kmemleak report fails the run.  rmmod is refused while the session
 * holds the device, and the trace lost nothing.
 */
static void sched_on_under_load(void)
{
	const char *rec[] = { "tracebufctl", "record", "--detach", "-q", "-m", "circular", "-b",
			      "1M", "-c", "sched", "-p", "kernel", "-o", path("l.fxt"), NULL };
	const char *churn[] = { "tb_churn", NULL };
	const char *work[] = { "ksched_vmtest", "--sleeper", "50", "200", NULL };
	const char *snap[] = { "tracebufctl", "snapshot", "-o", path("ls.fxt"), NULL };
	static char out[4096], err[4096], id[64];
	const char *stop[] = { "tracebufctl", "stop", id, NULL };
	long tids[MAX_CPUS] = { 0 };
	struct sched_counts c;

	T_ASSERT_EQ(set_param("1"), 0);
	T_ASSERT_EQ(run(rec, id, sizeof(id), err, sizeof(err), 0), 0);
	id[strcspn(id, "\n")] = '\0';
	for (int i = 0; i < 5; i++) {
		T_EXPECT_EQ(run(churn, NULL, 0, err, sizeof(err), 0), 0);
		T_EXPECT_EQ(run(work, out, sizeof(out), err, sizeof(err), 0), 0);
		T_EXPECT_EQ(run(snap, NULL, 0, err, sizeof(err), 0), 0);
	}
	T_EXPECT(rmmod("tracebuf") != 0);
	T_EXPECT_EQ(run(stop, NULL, 0, err, sizeof(err), 0), 0);
	T_EXPECT_EQ(set_param("0"), 0);
	T_ASSERT_EQ(count(path("l.fxt"), tids, 0, &c), 0);
	leave(path("l.fxt"), "ksched.load.sched.fxt");
	printf("# under load: %u scheduling records, %u breaks, %u overflow events\n", c.sched,
	       c.breaks, c.overflows);
	T_EXPECT_EQ(c.overflows, 0);
	T_EXPECT(c.sched > 0);
	T_EXPECT_EQ(c.breaks, 0);
	T_ASSERT_EQ(count(path("ls.fxt"), tids, 0, &c), 0);
	T_EXPECT(c.sched > 0);
	T_EXPECT_EQ(c.breaks, 0);
}

/*
 * The provider goes (kernel_provider=0) while a streaming recording
 * saves its halves under a load: its work item and its writers must be
 * done before its buffer goes (on the debug kernel, KASAN would say
 * otherwise).  The recording goes on without it and ends cleanly, with
 * what it saved.
 */
static void provider_goes_while_recording(void)
{
	const char *rec[] = { "tracebufctl", "record", "--detach", "-q", "-m", "streaming", "-b",
			      "64K", "-c", "sched", "-p", "kernel", "-o", path("g.fxt"), NULL };
	const char *work[] = { "ksched_vmtest", "--sleeper", "400", "100", NULL };
	static char err[4096], id[64];
	const char *stop[] = { "tracebufctl", "stop", id, NULL };
	long tids[MAX_CPUS] = { 0 };
	struct sched_counts c;

	for (int i = 0; i < 3; i++) {
		pid_t pid;

		T_ASSERT_EQ(set_param("1"), 0);
		T_ASSERT_EQ(run(rec, id, sizeof(id), err, sizeof(err), 0), 0);
		id[strcspn(id, "\n")] = '\0';
		fflush(stdout);
		pid = fork();
		T_ASSERT(pid >= 0);
		if (!pid)
			_exit(run(work, NULL, 0, NULL, 0, 0));
		usleep(200000 + 100000 * i);
		T_EXPECT_EQ(set_param("0"), 0);
		T_ASSERT_EQ(waitpid(pid, NULL, 0), pid);
		run(stop, NULL, 0, err, sizeof(err), 0);
		T_ASSERT_EQ(count(path("g.fxt"), tids, 0, &c), 0);
		printf("# round %d: %u scheduling records before it went\n", i, c.sched);
	}
}

/*
 * A manager in a pid namespace of its own sees none of the threads
 * outside it: each is thread 0, and shows nothing of itself but that it
 * ran, no wake-up, no block or exit.  The sleepers here run outside.
 */
static void hidden_threads_show_only_that_they_ran(void)
{
	const char *rec[] = { "tracebufctl", "record", "-q", "-c", "sched", "-p", "kernel", "-d",
			      "3s", "-o", path("h.fxt"), NULL };
	const char *work[] = { "ksched_vmtest", "--sleeper", "200", "1000", NULL };
	struct tracebuf_reader_record r;
	unsigned int sched = 0, hidden = 0, told = 0;
	struct tracebuf_reader *rd;
	int status;
	pid_t pid;

	T_ASSERT_EQ(set_param("1"), 0);
	fflush(stdout);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (!pid)
		_exit(unshare(CLONE_NEWPID) ? 100 : run(rec, NULL, 0, NULL, 0, 0));
	usleep(500000);
	T_EXPECT_EQ(run(work, NULL, 0, NULL, 0, 0), 0);
	T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	T_ASSERT_EQ(t_trace_open_file(path("h.fxt"), TRACEBUF_LIB_READER_MAGIC, &rd), 0);
	while (tracebuf_reader_next(rd, &r) == 1) {
		if (r.type != TRACEBUF_LIB_FXT_RECORD_SCHEDULING)
			continue;
		sched++;
		if (r.sched.type == TRACEBUF_LIB_FXT_SCHED_THREAD_WAKEUP && !r.sched.incoming_koid)
			told++;
		if (r.sched.type == TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH &&
		    !r.sched.outgoing_koid) {
			hidden++;
			told += r.sched.outgoing_state != TRACEBUF_LIB_FXT_THREAD_RUNNING;
		}
	}
	tracebuf_reader_close(rd);
	printf("# %u scheduling records, %u switches from thread 0, %u that say more\n", sched,
	       hidden, told);
	T_EXPECT(hidden > 0);
	T_EXPECT_EQ(told, 0);
}

/*
 * Threads reaped as they exit lose their pids before their last switch,
 * and the next thread often gets the freed task_struct: each last switch
 * still names its own thread, so no CPU's chain of switches breaks.
 */
static void exited_threads_keep_their_ids(void)
{
	const char *rec[] = { "tracebufctl", "record", "-q", "-c", "sched", "-p", "kernel",
			      "-o", path("t.fxt"), "--", prog_path("ksched_vmtest"), "--threads",
			      "500", NULL };
	static char out[4096], err[4096];
	struct sched_counts c;

	T_ASSERT_EQ(set_param("1"), 0);
	T_EXPECT_EQ(run(rec, out, sizeof(out), err, sizeof(err), 0), 0);
	T_EXPECT_EQ(set_param("0"), 0);
	T_ASSERT_EQ(count(path("t.fxt"), NULL, 0, &c), 0);
	printf("# %u scheduling records, %u breaks, %u overflow events, %u dead, %u of thread 0\n",
	       c.sched, c.breaks, c.overflows, c.dead_all, c.dead_anonymous);
	T_EXPECT_EQ(c.overflows, 0);
	T_EXPECT_EQ(c.breaks, 0);
	T_EXPECT(c.dead_all >= 500);
	T_EXPECT_EQ(c.dead_anonymous, 0);
}

/*
 * FXT's strings are UTF-8; a thread's name is any bytes, and the kernel
 * cuts it at 15 even inside a character.  Each byte that is not part of
 * a well-formed sequence reaches the trace as '?', a name that is UTF-8
 * unchanged, and fxt-check reads the trace (ksched.names.sched.fxt).
 */
static void thread_names_are_utf8(void)
{
	const char *rec[] = { "tracebufctl", "record", "-q", "-c", "sched", "-p", "kernel",
			      "-o", path("n.fxt"), "--", prog_path("ksched_vmtest"), "--names",
			      NULL };
	static char out[4096], err[4096], buf[1 << 20];
	size_t n = 0;
	FILE *f;

	T_ASSERT_EQ(set_param("1"), 0);
	T_EXPECT_EQ(run(rec, out, sizeof(out), err, sizeof(err), 0), 0);
	T_EXPECT_EQ(set_param("0"), 0);
	f = fopen(path("n.fxt"), "r");
	T_ASSERT(f != NULL);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	for (size_t i = 0; i < sizeof(names_set) / sizeof(names_set[0]); i++)
		if (!memmem(buf, n, names_set[i][1], strlen(names_set[i][1])))
			T_FAIL("no thread named \"%s\" in the trace", names_set[i][1]);
	leave(path("n.fxt"), "ksched.names.sched.fxt");
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
	T_ASSERT_EQ(t_trace_open_file(path("u.fxt"), TRACEBUF_LIB_READER_MAGIC, &rd), 0);
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
	T_ASSERT_EQ(t_trace_open_file(path("u.fxt"), TRACEBUF_LIB_READER_MAGIC, &rd), 0);
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
	T_TEST(circular_keeps_the_newest),
	T_TEST(any_cpu_switches_buffers),
	T_TEST(streaming_keeps_every_switch),
	T_TEST(snapshot_of_circular),
	T_TEST(off_unless_named),
	T_TEST(taken_when_a_category_names_it),
	T_TEST(sched_on_under_load),
	T_TEST(exited_threads_keep_their_ids),
	T_TEST(provider_goes_while_recording),
	T_TEST(hidden_threads_show_only_that_they_ran),
	T_TEST(one_timebase_with_user_space),
	T_TEST(thread_names_are_utf8),
};

int main(int argc, char **argv)
{
	int ret;

	if (argc >= 3 && argc <= 4 && !strcmp(argv[1], "--sleeper"))
		return sleeper(atoi(argv[2]), argc == 4 ? atol(argv[3]) : 1000);
	if (argc == 3 && !strcmp(argv[1], "--threads"))
		return threads(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "--names"))
		return names();
	ret = vmtest_main(argv[0], tests, sizeof(tests) / sizeof(tests[0]));
	/* the tests after these see no kernel provider, whatever failed */
	set_param("0");
	return ret;
}
