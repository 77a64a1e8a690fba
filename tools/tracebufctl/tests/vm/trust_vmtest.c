// SPDX-License-Identifier: MIT
/*
 * A recording that can be trusted, in the test VM: a provider started
 * under "tracebufctl record" loses none of its first events by default,
 * a trace of other providers does not hold it up, and one that does not
 * wait never leaves a duration end without its begin.
 *
 * tracebufctl and tb-seqprov are expected beside this program.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "../../../../userlib/tests/ktap.h"

#include <inttypes.h>

#include "vmtest.h"
#include "seqcheck.h"

#define SEQ	prog_path("tb-seqprov")

/*
 * "record -- ./app" with an app that registers with the default flags:
 * it waits for its start, so every event is there, every time.
 */
static void default_provider_keeps_its_first_events(void)
{
	const char *argv[] = { "tracebufctl", "record", "-q", "-b", "64K", "-o",
			       path("w.fxt"), "--", SEQ, "-n", "100", NULL };
	unsigned int bad = 0, runs = 50;

	alarm(T_TIMEOUT * 2);
	for (unsigned int i = 0; i < runs; i++) {
		struct seq_result res = { 0 };
		int rc = run(argv, NULL, 0, NULL, 0, 0);

		if (rc || seq_check(path("w.fxt"), "seq", 1, 100, &res) ||
		    res.complete != 1 || res.orphan_ends) {
			if (bad++ < 3)
				printf("# run %u: exit %d, %" PRIu64 " events (%s), %" PRIu64
				       " orphan ends\n", i, rc, res.events, res.first_missing,
				       res.orphan_ends);
		}
	}
	printf("# %u runs, %u incomplete\n", runs, bad);
	T_EXPECT_EQ(bad, 0);
}

/*
 * With TRACEBUF_LIB_PROVIDER_NO_WAIT the first events may be lost, but a
 * duration end is never recorded without its begin.
 */
static void no_wait_provider_records_no_orphan_end(void)
{
	const char *argv[] = { "tracebufctl", "record", "-q", "-b", "64K", "-o",
			       path("n.fxt"), "--", SEQ, "-W", "-n", "100", NULL };
	unsigned int bad = 0, partial = 0, runs = 50;

	alarm(T_TIMEOUT * 2);
	for (unsigned int i = 0; i < runs; i++) {
		struct seq_result res = { 0 };
		int rc = run(argv, NULL, 0, NULL, 0, 0);

		if (rc || seq_check(path("n.fxt"), "seq", 1, 100, &res) || res.orphan_ends) {
			if (bad++ < 3)
				printf("# run %u: exit %d, %" PRIu64 " orphan ends\n", i, rc,
				       res.orphan_ends);
		}
		partial += res.complete != 1;
	}
	printf("# %u runs, %u with an orphan end, %u missing first events\n", runs, bad,
	       partial);
	T_EXPECT_EQ(bad, 0);
}

/* The state "tracebufctl list" shows for provider @name, or "". */
static void list_state(const char *name, char *state, size_t len)
{
	const char *argv[] = { "tracebufctl", "list", NULL };
	static char out[16384];
	char *line;

	state[0] = 0;
	if (run(argv, out, sizeof(out), NULL, 0, 0))
		return;
	/* ID PID STATE MODE BUFFER MANAGER NAME: the name is last */
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		const char *last = strrchr(line, ' ');
		char st[32];

		if (last && !strcmp(last + 1, name) &&
		    sscanf(line, "%*s %*s %31s", st) == 1)
			snprintf(state, len, "%s", st);
	}
}

/*
 * While "record -p other" runs, a provider of another name registers and
 * goes on at once; one of the traced name waits and is traced whole.
 */
static void trace_of_others_does_not_hold_up(void)
{
	const char *rec[] = { "tracebufctl", "record", "-q", "-p", "other", "-p",
			      "seq-wanted", "-d", "6s", "-o", path("o.fxt"), NULL };
	const char *other[] = { "tb-seqprov", "-N", "seq-other", "-n", "100", NULL };
	const char *wanted[] = { "tb-seqprov", "-N", "seq-wanted", "-n", "100", NULL };
	struct seq_result res;
	char state[32] = "";
	double t0, took;
	struct held h;
	pid_t pid;

	T_ASSERT_EQ(hold_provider("other", NULL, 0, &h), 0);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (!pid)
		_exit(run(rec, NULL, 0, NULL, 0, 0));
	/* the session runs once it started its one provider */
	for (int i = 0; i < 100 && strcmp(state, "started"); i++) {
		usleep(50 * 1000);
		list_state("other", state, sizeof(state));
	}
	if (strcmp(state, "started"))
		T_FAIL("provider \"other\" is \"%s\", not started", state);
	t0 = t_now();
	T_EXPECT_EQ(run(other, NULL, 0, NULL, 0, 0), 0);
	took = t_now() - t0;
	printf("# a provider nobody traces: %.2f s\n", took);
	/* the start timeout is 5 s */
	T_EXPECT(took < 2.5);
	T_EXPECT_EQ(run(wanted, NULL, 0, NULL, 0, 0), 0);
	T_ASSERT_EQ(waitpid(pid, &(int){ 0 }, 0), pid);
	release_provider(&h);
	T_ASSERT_EQ(seq_check(path("o.fxt"), "seq-wanted", 1, 100, &res), 0);
	T_EXPECT_EQ(res.complete, 1);
	T_ASSERT_EQ(seq_check(path("o.fxt"), "seq-other", 1, 100, &res), 0);
	T_EXPECT_EQ(res.providers, 0);
}

static const struct t_test tests[] = {
	T_TEST(default_provider_keeps_its_first_events),
	T_TEST(trace_of_others_does_not_hold_up),
	T_TEST(no_wait_provider_records_no_orphan_end),
};

VMTEST_MAIN(tests)
