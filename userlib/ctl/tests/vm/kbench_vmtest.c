// SPDX-License-Identifier: MIT
/*
 * What the kernel provider's hooks cost a context switch, in the test VM:
 * two processes pinned to CPU 0 ping-pong a byte through two pipes, so
 * each round trip is two context switches, and the rate of switches is
 * measured, in the same run, with
 *   - off:        the kernel provider registered, no session (no probe);
 *   - names:      a session of the kernel provider with "sched.name" only
 *                 (the fork, exec and rename probes; none on a switch);
 *   - sched:      a session with "sched" (switch and wakeup probes),
 *                 circular, 8 MiB;
 *   - ftrace:     the kernel's own sched_switch and sched_wakeup trace
 *                 events on, in tracefs's ring buffer (overwrite mode);
 * each round measuring every configuration once, in turn.  The median
 * rates are printed, and the median (and range) of each round's ratio to
 * that round's "off"; nothing is asserted of them (emulated rates mean
 * little: compare ratios of one run).
 *
 * "make check" runs one short round as a check that the benchmark works:
 * each configuration ran, and the "sched" session's trace holds the
 * ping-pong's switches.  "make bench-sched" runs it with
 * TB_BENCH_ROUNDS (default 1) and TB_BENCH_TRIPS (round trips per
 * measurement, default 2000) set higher.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ktap.h"

#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <tracebuf_reader.h>

#include "vmtest.h"

#define PARAM		"/sys/module/tracebuf/parameters/kernel_provider"
#define TRACING		"/sys/kernel/tracing"
#define MAX_ROUNDS	21

enum { OFF, NAMES, SCHED, FTRACE, NCONF };

static const char *const conf_name[NCONF] = { "off", "names", "sched", "ftrace" };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* @trips round trips between two processes on CPU 0: switches a second. */
static double pingpong(long trips, pid_t *peer)
{
	int ab[2], ba[2], status;
	double t0, t1;
	cpu_set_t was;
	char c = 0;
	pid_t pid;

	if (pipe(ab) || pipe(ba))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		pin(0);
		for (long i = 0; i < trips; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	*peer = pid;
	sched_getaffinity(0, sizeof(was), &was);
	pin(0);
	t0 = now();
	for (long i = 0; i < trips; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			break;
	t1 = now();
	sched_setaffinity(0, sizeof(was), &was);
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return 2.0 * (double)trips / (t1 - t0);
}

/*
 * The switches in @file away from @a or @b: a round trip's two (each
 * blocks, or one is preempted by the other's wakeup and the other
 * blocks), whatever thread ran between them (a kworker, the manager).
 */
static long switches_out(const char *file, uint64_t a, uint64_t b)
{
	struct tracebuf_reader_record r;
	struct tracebuf_reader *rd;
	long n = 0;

	if (t_trace_open_file(file, TRACEBUF_LIB_READER_MAGIC, &rd))
		return -1;
	while (tracebuf_reader_next(rd, &r) == 1)
		if (r.type == TRACEBUF_LIB_FXT_RECORD_SCHEDULING &&
		    r.sched.type == TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH &&
		    (r.sched.outgoing_koid == a || r.sched.outgoing_koid == b))
			n++;
	tracebuf_reader_close(rd);
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static long env_long(const char *name, long def, long max)
{
	const char *v = getenv(name);
	long n = v ? atol(v) : def;

	return n < 1 ? def : n > max ? max : n;
}

static void switch_rates(void)
{
	long rounds = env_long("TB_BENCH_ROUNDS", 1, MAX_ROUNDS);
	long trips = env_long("TB_BENCH_TRIPS", 2000, 10000000);
	static double rate[NCONF][MAX_ROUNDS], ratio[NCONF][MAX_ROUNDS];
	static char out[4096], err[4096], id[64];
	bool ftrace = access(TRACING "/events/sched/sched_switch/enable", W_OK) == 0;
	long traced = -1;
	pid_t peer = 0;

	/* a measurement takes about a second per 1000 round trips, emulated */
	alarm(t_timeout((unsigned int)(T_TIMEOUT + rounds * NCONF * (trips / 500 + 5))));
	T_ASSERT_EQ(write_file(PARAM, "1"), 0);
	if (!ftrace)
		printf("# no tracefs sched events here: ftrace not measured\n");
	else
		write_file(TRACING "/tracing_on", "0");
	for (long r = 0; r < rounds; r++) {
		for (int k = 0; k < NCONF; k++) {
			/* each round starts with another configuration */
			int c = (int)((k + r) % NCONF);
			const char *cats = c == SCHED ? "sched" : "sched.name";
			const char *rec[] = { "tracebufctl", "record", "--detach", "-q", "-m",
					      "circular", "-b", "8M", "-c", cats, "-p", "kernel",
					      "-o", path("b.fxt"), NULL };
			const char *stop[] = { "tracebufctl", "stop", id, NULL };
			double v;
			int fd;

			rate[c][r] = 0;
			if (c == FTRACE && !ftrace)
				continue;
			if (c == NAMES || c == SCHED) {
				T_ASSERT_EQ(run(rec, id, sizeof(id), err, sizeof(err), 0), 0);
				id[strcspn(id, "\n")] = '\0';
			}
			if (c == FTRACE) {
				/* tracefs empties the buffer on an open with O_TRUNC */
				fd = open(TRACING "/trace", O_WRONLY | O_TRUNC | O_CLOEXEC);
				T_ASSERT(fd >= 0);
				close(fd);
				T_ASSERT_EQ(write_file(TRACING "/events/sched/sched_switch/enable",
						       "1"), 0);
				T_ASSERT_EQ(write_file(TRACING "/events/sched/sched_wakeup/enable",
						       "1"), 0);
				T_ASSERT_EQ(write_file(TRACING "/tracing_on", "1"), 0);
			}
			v = pingpong(trips, &peer);
			if (c == FTRACE) {
				write_file(TRACING "/tracing_on", "0");
				write_file(TRACING "/events/sched/sched_switch/enable", "0");
				write_file(TRACING "/events/sched/sched_wakeup/enable", "0");
			}
			if (c == NAMES || c == SCHED)
				T_ASSERT_EQ(run(stop, out, sizeof(out), err, sizeof(err), 0), 0);
			T_ASSERT(v > 0);
			rate[c][r] = v;
			if (c == SCHED && traced < 0)
				traced = switches_out(path("b.fxt"), (uint64_t)getpid(),
						      (uint64_t)peer);
		}
	}
	T_EXPECT_EQ(write_file(PARAM, "0"), 0);
	/*
	 * every switch of the first "sched" measurement is in its trace:
	 * two a round trip, but perhaps the first (the peer may run before
	 * it is waited for) and the last (it may exit after the end)
	 */
	printf("# the sched session recorded %ld switches away from the two, of %ld\n", traced,
	       2 * trips);
	T_EXPECT(traced >= 2 * trips - 2);

	/* each round's ratio to its own "off": drift between rounds cancels */
	for (int c = 0; c < NCONF; c++)
		for (long r = 0; r < rounds; r++)
			ratio[c][r] = rate[OFF][r] > 0 ? rate[c][r] / rate[OFF][r] : 0;
	printf("# %ld round(s) of %ld round trips (%ld switches) a configuration, CPU 0\n",
	       rounds, trips, 2 * trips);
	printf("# %-8s %12s %9s %17s\n", "config", "switches/s", "vs off", "rounds' ratios");
	for (int c = 0; c < NCONF; c++) {
		qsort(rate[c], (size_t)rounds, sizeof(double), cmp_double);
		qsort(ratio[c], (size_t)rounds, sizeof(double), cmp_double);
	}
	for (int c = 0; c < NCONF; c++) {
		if (c == FTRACE && !ftrace)
			continue;
		printf("# %-8s %12.0f %8.3fx %8.3f..%-8.3f\n", conf_name[c], rate[c][rounds / 2],
		       ratio[c][rounds / 2], ratio[c][0], ratio[c][rounds - 1]);
	}
}

static const struct t_test tests[] = {
	T_TEST(switch_rates),
};

int main(int argc, char **argv)
{
	int ret = vmtest_main(argv[0], tests, sizeof(tests) / sizeof(tests[0]));

	(void)argc;
	write_file(PARAM, "0");
	return ret;
}
