// SPDX-License-Identifier: MIT
/*
 * tb-seqprov: providers whose every event can be checked, for the
 * integration tests (tests/vm/NAME_vmtest.c).
 *
 *   tb-seqprov [-P PROCS] [-n COUNT] [-N NAME] [-W] [-s] [-r RATE] [-v]
 *              [-x STATUS]
 *
 * Forks PROCS processes (default 1) that wait at a barrier and are then
 * released together, so that they register at the same moment.  Process
 * i registers as provider NAME-i (NAME with one process) and writes COUNT
 * iterations of
 *
 *	TRACE_DURATION_BEGIN("seq", "span")
 *	TRACE_INSTANT("seq", "seq", TA_U32("i", i))
 *	TRACE_DURATION_END("seq", "span")
 *
 * then destroys its provider.  By default it registers the way the
 * library does by default; -W asks for TRACEBUF_LIB_PROVIDER_NO_WAIT.
 * TB_START_TIMEOUT_MS in the environment is its wait for a START
 * (the library's default otherwise: slow emulated kernels set it).
 * With -s each iteration sleeps 1 ms; with -r each process writes RATE
 * iterations a second, sleeping until each batch of TB_BATCH is due.
 * With -v each process prints, once done, one line (for the streaming
 * benchmark, sbench_vmtest.c):
 *
 *   tb-seqprov NAME: COUNT in SECONDS s, cpu SECONDS s, saves N, us US...;
 *   tried EVENTS, fills F, fill_us US..., waited_us US
 *
 * the seconds from its first iteration to its last, its CPU time in all,
 * the streaming saves the manager answered, and the newest of their
 * round trips (SAVE_BUFFER to BUFFER_SAVED, in microseconds); the events
 * it tried to record (its own tally, 3 an iteration: it writes once its
 * provider was started), the halves of the buffer it filled and the
 * newest of their fill times (from when a half may be written to when it
 * is full, in microseconds), and how long in all its writers found both
 * halves taken, waiting for a save.  The exit
 * status is STATUS (default 0) when every process registered and
 * finished, 1 otherwise.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define TRACEBUF_LIB_SHORT_NAMES	/* TRACE_*, TA_* */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracebuf.h>

#include "engine_priv.h"	/* tb_engine_stats() */

#define TB_BATCH	64

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleep until @t0 + @done iterations at @rate a second. */
static void pace(double t0, unsigned int done, double rate)
{
	double due = t0 + done / rate;
	struct timespec ts = { .tv_sec = (time_t)due };

	ts.tv_nsec = (long)((due - (double)ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void report(const char *name, unsigned int count, double secs, uint64_t tried)
{
	static struct tb_engine_stats st;
	struct rusage ru;
	unsigned int n;

	tb_engine_stats(&st);
	getrusage(RUSAGE_SELF, &ru);
	printf("tb-seqprov %s: %u in %.6f s, cpu %.6f s, saves %u, us", name, count, secs,
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, st.saves);
	n = st.saves < TB_SAVE_SAMPLES ? st.saves : TB_SAVE_SAMPLES;
	for (unsigned int i = 0; i < n; i++)
		printf(" %u", st.save_us[i]);
	printf("; tried %" PRIu64 ", fills %u, fill_us", tried, st.fills);
	n = st.fills < TB_SAVE_SAMPLES ? st.fills : TB_SAVE_SAMPLES;
	for (unsigned int i = 0; i < n; i++)
		printf(" %u", st.fill_us[i]);
	printf(", waited_us %" PRIu64 "\n", st.waited_us);
	fflush(stdout);
}

static int child(const char *name, unsigned int count, uint32_t flags, bool slow,
		 double rate, bool verbose)
{
	const char *wait = getenv("TB_START_TIMEOUT_MS");
	struct tracebuf_provider_config cfg = {
		.size = sizeof(cfg), .name = name,
		.flags = TRACEBUF_LIB_PROVIDER_THREAD | flags,
		.start_timeout_ms = wait ? (uint32_t)strtoul(wait, NULL, 10) : 0,
	};
	struct tracebuf_provider *p;
	int ret = tracebuf_provider_create(&cfg, &p);
	double t0;

	if (ret) {
		fprintf(stderr, "tb-seqprov: %s: %s\n", name, strerror(-ret));
		return 1;
	}
	t0 = mono();
	for (unsigned int i = 0; i < count; i++) {
		TRACE_DURATION_BEGIN("seq", "span");
		TRACE_INSTANT("seq", "seq", TA_U32("i", i));
		TRACE_DURATION_END("seq", "span");
		if (slow)
			usleep(1000);
		if (rate > 0 && (i + 1) % TB_BATCH == 0)
			pace(t0, i + 1, rate);
	}
	if (verbose)
		report(name, count, mono() - t0, (uint64_t)count * 3);
	tracebuf_provider_destroy(p);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int procs = 1, count = 100;
	const char *name = "seq";
	uint32_t flags = 0;
	bool slow = false, verbose = false;
	double rate = 0;
	int barrier[2], opt, failed = 0, status = 0;
	pid_t *pids;
	char c;

	while ((opt = getopt(argc, argv, "P:n:N:Wsr:vx:")) != -1) {
		switch (opt) {
		case 'P':
			procs = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			count = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'N':
			name = optarg;
			break;
		case 'W':
			flags |= TRACEBUF_LIB_PROVIDER_NO_WAIT;
			break;
		case 's':
			slow = true;
			break;
		case 'r':
			rate = strtod(optarg, NULL);
			break;
		case 'v':
			verbose = true;
			break;
		case 'x':
			status = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-P PROCS] [-n COUNT] [-N NAME] [-W] [-s] "
				"[-r RATE] [-v] [-x STATUS]\n", argv[0]);
			return 2;
		}
	}
	if (!procs || procs > 1024 || rate < 0 || pipe(barrier))
		return 2;
	pids = calloc(procs, sizeof(*pids));
	if (!pids)
		return 1;
	for (unsigned int i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			failed = 1;
			break;
		}
		if (!pids[i]) {
			char nm[128];

			close(barrier[1]);
			/* EOF once every process is forked: all go at once */
			while (read(barrier[0], &c, 1) > 0)
				;
			if (procs == 1)
				snprintf(nm, sizeof(nm), "%s", name);
			else
				snprintf(nm, sizeof(nm), "%s-%u", name, i);
			_exit(child(nm, count, flags, slow, rate, verbose));
		}
	}
	close(barrier[0]);
	close(barrier[1]);
	for (unsigned int i = 0; i < procs && pids[i] > 0; i++) {
		int status;

		if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed = 1;
	}
	free(pids);
	return failed ? 1 : status;
}
