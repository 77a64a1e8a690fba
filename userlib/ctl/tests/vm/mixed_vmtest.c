// SPDX-License-Identifier: MIT
/*
 * 32-bit and 64-bit programs together, in the test VM, as a 64-bit
 * kernel runs them through its compat entry points: a 32-bit tracebufctl
 * (tracebufctl_32) records a 64-bit provider (tb-seqprov), a 64-bit
 * tracebufctl records a 32-bit one (tb-seqprov_32) and the 32-bit example
 * (tracebuf-example_32), and a 32-bit tracebufctl records a 32-bit and a
 * 64-bit provider at once, streaming.  Every event of every provider must
 * be in the trace exactly once, and record's exit status must be its
 * COMMAND's.  A 32-bit tracebufctl also reads a 64-bit provider's state
 * and counters over generic netlink exactly as the 64-bit one does.
 *
 * tracebufctl, tb-seqprov, tracebuf-example and their _32 copies ("make
 * vmtests" with a 32-bit compiler, CC32) are expected beside this
 * program; without the copies every test fails, unless TB_NO_32=1 says
 * that no 32-bit programs are expected (a build without a 32-bit
 * compiler, a kernel without 32-bit support): then none runs ("1..0 #
 * SKIP") and the program exits 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ktap.h"

#include <inttypes.h>

#include <linux/tracebuf.h>

#include "../json.h"
#include "vmtest.h"
#include "seqcheck.h"

#define SEQ64	prog_path("tb-seqprov")
#define SEQ32	prog_path("tb-seqprov_32")
#define RUNS	5
#define COUNT	1000	/* events of each provider */
#define STATUS	9	/* COMMAND's, passed on: none of record's own */

#define STR_(x)	#x
#define STR(x)	STR_(x)

static const char *const progs_32[] = {
	"tracebufctl_32", "tb-seqprov_32", "tracebuf-example_32",
};

/* Are the 32-bit copies beside this program?  If not, says which is not. */
static bool have_32(bool quiet)
{
	for (size_t i = 0; i < sizeof(progs_32) / sizeof(progs_32[0]); i++) {
		if (!access(prog_path(progs_32[i]), X_OK))
			continue;
		if (!quiet)
			printf("# %s is not beside this test: build it with \"make vmtests\" and a"
			       " 32-bit compiler (CC32), or set TB_NO_32=1 where no 32-bit"
			       " programs are expected\n", prog_path(progs_32[i]));
		return false;
	}
	return true;
}

/*
 * Run argv (which writes file) RUNS times: each run must exit with
 * status, and file hold every "seq" event of each provider names[0..n)
 * exactly once, nothing dropped.
 */
static void record_runs(const char *const *argv, const char *file, int status,
			const char *const *names, unsigned int n)
{
	unsigned int bad = 0;
	uint64_t events = 0;

	alarm(t_timeout(T_TIMEOUT * 2));
	for (unsigned int i = 0; i < RUNS; i++) {
		int rc;
		bool ok;

		unlink(file);
		rc = run(argv, NULL, 0, NULL, 0, 0);
		ok = rc == status;
		if (!ok && bad < 3)
			printf("# run %u: %s exited %d, not %d\n", i, argv[0], rc, status);
		for (unsigned int j = 0; j < n; j++) {
			struct seq_result res;
			int ret = seq_check(file, names[j], 1, COUNT, &res);

			events += res.events;
			if (!ret && res.complete == 1 && res.providers == 1 && !res.duplicates &&
			    !res.orphan_ends && !res.drop_windows && !res.overflows)
				continue;
			if (bad < 3)
				printf("# run %u: %s: %s, %u providers, %" PRIu64 " duplicates,"
				       " %" PRIu64 " orphan ends, %" PRIu64 " drop windows,"
				       " %u overflows (reader: %d)\n", i, names[j],
				       res.first_missing[0] ? res.first_missing : "complete",
				       res.providers, res.duplicates, res.orphan_ends,
				       res.drop_windows, res.overflows, ret);
			ok = false;
		}
		bad += !ok;
	}
	printf("# %s: %u runs, %u bad, %" PRIu64 " events checked\n", argv[0], RUNS, bad,
	       events);
	T_EXPECT_EQ(bad, 0);
	T_EXPECT_EQ(events, (uint64_t)RUNS * n * COUNT);
}

static void manager_32_records_provider_64(void)
{
	static const char *const names[] = { "p64" };
	char file[PATH_MAX + 64];
	const char *argv[] = { "tracebufctl_32", "record", "-q", "-b", "1M", "-o", file, "--",
			       SEQ64, "-N", "p64", "-n", STR(COUNT), "-x", STR(STATUS), NULL };

	T_ASSERT(have_32(false));
	snprintf(file, sizeof(file), "%s", path("a.fxt"));
	record_runs(argv, file, STATUS, names, 1);
}

static void manager_64_records_provider_32(void)
{
	static const char *const names[] = { "p32" };
	char file[PATH_MAX + 64];
	const char *argv[] = { "tracebufctl", "record", "-q", "-b", "1M", "-o", file, "--",
			       SEQ32, "-N", "p32", "-n", STR(COUNT), "-x", STR(STATUS), NULL };

	T_ASSERT(have_32(false));
	snprintf(file, sizeof(file), "%s", path("b.fxt"));
	record_runs(argv, file, STATUS, names, 1);
}

/*
 * Both providers under one 32-bit manager, side by side, each writing for
 * a second or more (1 ms a step): streaming saves of both sorts of
 * buffer.  The shell passes on STATUS when both exited 0.
 */
static void manager_32_records_providers_32_and_64(void)
{
	static const char *const names[] = { "p32", "p64" };
	char file[PATH_MAX + 64], script[3 * PATH_MAX];
	const char *argv[] = { "tracebufctl_32", "record", "-q", "-m", "streaming",
			       "-b", "128K", "-o", file, "--", "/bin/sh", "-c", script, NULL };

	T_ASSERT(have_32(false));
	snprintf(file, sizeof(file), "%s", path("c.fxt"));
	snprintf(script, sizeof(script),
		 "'%s' -N p32 -n %u -s & p=$!; '%s' -N p64 -n %u -s || exit 1; "
		 "wait $p || exit 1; exit %d", SEQ32, COUNT, SEQ64, COUNT, STATUS);
	record_runs(argv, file, STATUS, names, 2);
}

/* The 32-bit example as a 64-bit manager sees it: every request. */
static void manager_64_records_example_32(void)
{
	const char *argv[] = { "tracebufctl", "record", "-q", "-o", path("e.fxt"), "--",
			       prog_path("tracebuf-example_32"), "-t", "3", "-n", "300",
			       "-w", "0", NULL };
	unsigned int infos = 0, submit = 0, handle = 0, done = 0, overflows = 0;
	struct tracebuf_reader_record rec;
	struct tracebuf_reader *r;
	char name[TRACEBUF_NAME_MAX + 1] = "";
	int ret;

	T_ASSERT(have_32(false));
	T_ASSERT_EQ(run(argv, NULL, 0, NULL, 0, 0), 0);
	T_ASSERT_EQ(t_trace_open_file(path("e.fxt"), TRACEBUF_LIB_READER_MAGIC, &r), 0);
	while ((ret = tracebuf_reader_next(r, &rec)) == 1) {
		if (rec.type == TRACEBUF_LIB_FXT_RECORD_METADATA) {
			if (rec.meta.type == TRACEBUF_LIB_FXT_META_PROVIDER_INFO) {
				infos++;
				snprintf(name, sizeof(name), "%.*s", (int)rec.meta.name.len,
					 rec.meta.name.data);
			}
			overflows += rec.meta.type == TRACEBUF_LIB_FXT_META_PROVIDER_EVENT;
			continue;
		}
		if (rec.type != TRACEBUF_LIB_FXT_RECORD_EVENT)
			continue;
		if (rec.event.type == TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE) {
			submit += seq_is(&rec.event.name, "submit");
			handle += seq_is(&rec.event.name, "handle");
		} else if (rec.event.type == TRACEBUF_LIB_FXT_EVENT_INSTANT) {
			done += seq_is(&rec.event.name, "done");
		}
	}
	T_EXPECT_EQ(ret, 0);
	tracebuf_reader_close(r);
	printf("# \"%s\": %u submit, %u handle, %u done, %u overflow records\n", name, submit,
	       handle, done, overflows);
	T_EXPECT_EQ(infos, 1);
	T_EXPECT(!strcmp(name, "tracebuf-example"));
	T_EXPECT_EQ(submit, 300);
	T_EXPECT_EQ(handle, 300);
	T_EXPECT_EQ(done, 1);
	T_EXPECT_EQ(overflows, 0);
}

/*
 * A provider of ours (64-bit) under a 64-bit "record": "stats -j" of
 * tracebufctl_32 prints what tracebufctl's does, its buffer size (a
 * 64-bit attribute) included.
 */
static void manager_32_reads_what_64_reads(void)
{
	char file[PATH_MAX + 64];
	const char *rec[] = { "tracebufctl", "record", "-q", "-b", "256K", "-d", "4s", "-o",
			      file, NULL };
	const char *st64[] = { "tracebufctl", "stats", "-j", "mixed-held", NULL };
	const char *st32[] = { "tracebufctl_32", "stats", "-j", "mixed-held", NULL };
	const char *list32[] = { "tracebufctl_32", "list", "-j", NULL };
	static char out64[8192], out32[8192], out[65536];
	const struct json *p;
	const char *size;
	struct json *v;
	char err[256];
	struct held h;
	int status = -1;
	pid_t pid;

	T_ASSERT(have_32(false));
	snprintf(file, sizeof(file), "%s", path("h.fxt"));
	T_ASSERT_EQ(hold_provider("mixed-held", NULL, 0, &h), 0);
	fflush(stdout);
	pid = fork();
	if (!pid) {
		execv(prog_path("tracebufctl"), (char *const *)rec);
		_exit(127);
	}
	T_ASSERT(pid > 0);
	/* until "record" started it; then nothing changes until the stop */
	for (int i = 0; i < 30; i++) {
		usleep(100 * 1000);
		if (!run(st64, out64, sizeof(out64), NULL, 0, 0) && strstr(out64, "\"started\""))
			break;
	}
	usleep(200 * 1000);
	T_EXPECT_EQ(run(st64, out64, sizeof(out64), NULL, 0, 0), 0);
	T_EXPECT_EQ(run(st32, out32, sizeof(out32), NULL, 0, 0), 0);
	printf("# 64-bit: %s# 32-bit: %s", out64, out32);
	T_EXPECT(strstr(out64, "\"started\"") != NULL);
	T_EXPECT(!strcmp(out32, out64));
	v = json_parse(out32, strlen(out32), err, sizeof(err));
	p = v && v->type == JSON_ARRAY && v->n == 1 ? v->items[0] : NULL;
	size = p ? json_get_num(p, "buffer_size") : NULL;
	T_EXPECT(size && !strcmp(size, "262144"));
	json_free(v);
	T_EXPECT_EQ(run(list32, out, sizeof(out), NULL, 0, 0), 0);
	T_EXPECT(strstr(out, "\"mixed-held\"") != NULL);

	T_EXPECT_EQ(waitpid(pid, &status, 0), pid);
	T_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	release_provider(&h);
}

static const struct t_test tests[] = {
	T_TEST(manager_32_records_provider_64),
	T_TEST(manager_64_records_provider_32),
	T_TEST(manager_32_records_providers_32_and_64),
	T_TEST(manager_64_records_example_32),
	T_TEST(manager_32_reads_what_64_reads),
};

int main(int argc, char **argv)
{
	const char *no32 = getenv("TB_NO_32");

	(void)argc;
	vmtest_find_dir(argv[0]);
	if (no32 && !strcmp(no32, "1") && !have_32(true)) {
		printf("TAP version 13\n1..0 # SKIP no 32-bit programs here, as TB_NO_32=1 says\n");
		printf("# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:0\n");
		return 0;
	}
	return vmtest_main(argv[0], tests, sizeof(tests) / sizeof(tests[0]));
}
