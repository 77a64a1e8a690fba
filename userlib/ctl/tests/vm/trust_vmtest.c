// SPDX-License-Identifier: MIT
/*
 * A recording that can be trusted, in the test VM: a provider started
 * under "tracebufctl record" loses none of its first events by default,
 * a trace of other providers does not hold it up, and one that does not
 * wait never leaves a duration end without its begin.  A trace that is not
 * what was asked (no provider, a -p or -c nobody matches, a provider of
 * another manager, an initialize refused for memory, a provider started
 * after it gave up waiting, one terminated for breaking the protocol)
 * exits with its own status and a warning; dropped records are in the
 * file and the JSON, and records cut from a buffer in a warning.
 *
 * tracebufctl and tb-seqprov are expected beside this program.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ktap.h"

#include <inttypes.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <linux/tracebuf.h>

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

	alarm(t_timeout(T_TIMEOUT * 2));
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
	/* it may be gone before it is initialized: no error for that here */
	const char *argv[] = { "tracebufctl", "record", "-q", "--best-effort", "-b", "64K",
			       "-o", path("n.fxt"), "--", SEQ, "-W", "-n", "100", NULL };
	unsigned int bad = 0, partial = 0, runs = 50;

	alarm(t_timeout(T_TIMEOUT * 2));
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

/* Wait (5 s at most) until "tracebufctl list" shows @name started. */
static void wait_started(const char *name)
{
	char state[32] = "";

	for (int i = 0; i < 100 && strcmp(state, "started"); i++) {
		usleep(50 * 1000);
		list_state(name, state, sizeof(state));
	}
	if (strcmp(state, "started"))
		T_FAIL("provider \"%s\" is \"%s\", not started", name, state);
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
	double t0, took;
	struct held h;
	pid_t pid;

	T_ASSERT_EQ(hold_provider("other", NULL, 0, &h), 0);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (!pid)
		_exit(run(rec, NULL, 0, NULL, 0, 0));
	/* the session runs once it started its one provider */
	wait_started("other");
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

/* record exits @status with @warning on stderr, and still writes @file. */
static void expect_incomplete(const char *const *argv, int status, const char *warning,
			      const char *file)
{
	static char err[8192];
	struct stat st;
	int rc = run(argv, NULL, 0, err, sizeof(err), 0);

	if (rc != status)
		T_FAIL("exit %d, expected %d", rc, status);
	if (!strstr(err, warning))
		T_FAIL("no warning \"%s\"", warning);
	T_EXPECT_EQ(stat(file, &st), 0);
}

/* Nobody registered: an empty trace is not a success. */
static void no_provider_is_an_error(void)
{
	const char *argv[] = { "tracebufctl", "record", "-q", "-d", "500ms", "-o",
			       path("e.fxt"), NULL };
	const char *best[] = { "tracebufctl", "record", "-q", "-d", "500ms", "--best-effort",
			       "-o", path("b.fxt"), NULL };

	expect_incomplete(argv, 3, "tracebufctl: warning: no provider was traced", path("e.fxt"));
	T_EXPECT_EQ(run(best, NULL, 0, NULL, 0, 0), 0);
}

static void unknown_provider_name(void)
{
	const char *argv[] = { "tracebufctl", "record", "-q", "-d", "1s", "-p", "here",
			       "-p", "absent", "-o", path("p.fxt"), NULL };
	struct seq_result res;
	struct held h;

	T_ASSERT_EQ(hold_provider("here", NULL, 0, &h), 0);
	expect_incomplete(argv, 4, "warning: -p absent: no provider of that name registered",
			  path("p.fxt"));
	release_provider(&h);
	/* what was there is in the trace */
	T_ASSERT_EQ(seq_check(path("p.fxt"), "here", 1, 1, &res), 0);
	T_EXPECT_EQ(res.providers, 1);
}

/*
 * A category no provider publishes or writes; one that is published; one
 * written; exclusions.
 */
static void unknown_category(void)
{
	static const struct tracebuf_known_category known[] = {
		{ "vm:known", "a published category" },
	};
	const char *argv[] = { "tracebufctl", "record", "-q", "-d", "1s", "-c",
			       "vm:known,vm:nosuch", "-o", path("c.fxt"), NULL };
	const char *pattern[] = { "tracebufctl", "record", "-q", "-d", "1s", "-c", "vm:*",
				  "-o", path("c2.fxt"), NULL };
	/* known by the events tb-seqprov writes, not by publishing */
	const char *written[] = { "tracebufctl", "record", "-q", "-c", "seq", "-o",
				  path("c3.fxt"), "--", SEQ, "-n", "10", NULL };

	/* an exclusion of a category nobody knows is no warning; one of a
	 * written category leaves its events out
	 */
	const char *excl_unknown[] = { "tracebufctl", "record", "-q", "-c", "seq,-nosuch", "-o",
				       path("c4.fxt"), "--", SEQ, "-n", "10", NULL };
	const char *excl_written[] = { "tracebufctl", "record", "-q", "-c", "-seq", "-o",
				       path("c5.fxt"), "--", SEQ, "-n", "10", NULL };
	struct seq_result res;
	struct held h;

	T_ASSERT_EQ(hold_provider("cats", known, 1, &h), 0);
	expect_incomplete(argv, 5, "warning: -c vm:nosuch: no traced provider knows this "
			  "category", path("c.fxt"));
	T_EXPECT_EQ(run(pattern, NULL, 0, NULL, 0, 0), 0);
	release_provider(&h);
	T_EXPECT_EQ(run(written, NULL, 0, NULL, 0, 0), 0);
	T_EXPECT_EQ(run(excl_unknown, NULL, 0, NULL, 0, 0), 0);
	T_EXPECT_EQ(seq_check(path("c4.fxt"), "seq", 1, 10, &res), 0);
	T_EXPECT_EQ(res.events, 10);
	T_EXPECT_EQ(run(excl_written, NULL, 0, NULL, 0, 0), 0);
	seq_check(path("c5.fxt"), "seq", 1, 10, &res);
	T_EXPECT_EQ(res.providers, 1);
	T_EXPECT_EQ(res.events, 0);
}

/* A provider a second record wants while the first one traces it. */
static void provider_of_another_manager(void)
{
	const char *first[] = { "tracebufctl", "record", "-q", "-d", "6s", "-p", "shared",
				"-o", path("first.fxt"), NULL };
	const char *second[] = { "tracebufctl", "record", "-q", "-d", "500ms", "-p",
				 "shared", "-o", path("second.fxt"), NULL };
	struct held h;
	pid_t pid;

	T_ASSERT_EQ(hold_provider("shared", NULL, 0, &h), 0);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (!pid)
		_exit(run(first, NULL, 0, NULL, 0, 0));
	wait_started("shared");
	expect_incomplete(second, 6, "warning: provider 'shared' (pid ", path("second.fxt"));
	T_ASSERT_EQ(waitpid(pid, &(int){ 0 }, 0), pid);
	release_provider(&h);
}

/* INITIALIZE refused for lack of memory (max_total_memory). */
static void initialize_out_of_memory(void)
{
	const char *param = "/sys/module/tracebuf/parameters/max_total_memory";
	const char *argv[] = { "tracebufctl", "record", "-q", "-d", "500ms", "-b", "1M",
			       "-o", path("m.fxt"), NULL };
	char old[32] = "";
	struct held h;
	ssize_t n;
	int fd;

	fd = open(param, O_RDWR);
	T_ASSERT(fd >= 0);
	n = read(fd, old, sizeof(old) - 1);
	T_ASSERT(n > 0);
	T_ASSERT(pwrite(fd, "65536", 5, 0) == 5);
	T_ASSERT_EQ(hold_provider("hungry", NULL, 0, &h), 0);
	expect_incomplete(argv, 7, "warning: provider 'hungry' (pid ", path("m.fxt"));
	release_provider(&h);
	T_EXPECT(pwrite(fd, old, (size_t)n, 0) == n);
	close(fd);
}

/*
 * A provider that gave up waiting for its start (its manager was stopped
 * meanwhile) and was started later: what it wrote before is missing, and
 * record says so and exits 7.
 */
static void late_start_is_incomplete(void)
{
	char cmd[512];
	const char *argv[] = { "tracebufctl", "record", "-q", "-b", "256K", "-o", path("l.fxt"),
			       "--", "/bin/sh", "-c", cmd, NULL };
	struct seq_result res = { 0 };

	snprintf(cmd, sizeof(cmd), "kill -STOP $PPID; TB_START_TIMEOUT_MS=100 %s -n 3000 -s & "
		 "sleep 1; kill -CONT $PPID; wait $!", SEQ);
	expect_incomplete(argv, 7, "is incomplete: it had stopped waiting for its start",
			  path("l.fxt"));
	T_ASSERT_EQ(seq_check(path("l.fxt"), "seq", 1, 3000, &res), 0);
	printf("# %" PRIu64 " of 3000 events\n", res.events);
	T_EXPECT(res.events > 0 && res.events < 3000);
}

/* Dropped records: a warning, and both markers in the file and the JSON. */
static void drops_are_in_the_trace(void)
{
	const char *argv[] = { "tracebufctl", "record", "-b", "16K", "-o", path("d.fxt"),
			       "--", SEQ, "-n", "4000", NULL };
	const char *conv[] = { "tracebufctl", "convert", path("d.fxt"), "-o", path("d.json"),
			       NULL };
	static char err[8192];
	struct seq_result res;
	char *json;
	struct stat st;
	int fd;

	T_EXPECT_EQ(run(argv, NULL, 0, err, sizeof(err), 0), 0);
	T_EXPECT(strstr(err, "tracebufctl: warning: ") && strstr(err, " records dropped by 1 "
								 "provider (1 drop window"));
	T_ASSERT_EQ(seq_check(path("d.fxt"), "seq", 1, 4000, &res), 0);
	printf("# %" PRIu64 " of 4000 events, %u overflow records, %" PRIu64 " windows\n",
	       res.events, res.overflows, res.drop_windows);
	T_EXPECT(res.events > 0 && res.events < 4000);
	T_EXPECT_EQ(res.overflows, 1);
	T_EXPECT_EQ(res.drop_windows, 1);
	T_ASSERT_EQ(run(conv, NULL, 0, NULL, 0, 0), 0);
	fd = open(path("d.json"), O_RDONLY);
	T_ASSERT(fd >= 0 && !fstat(fd, &st));
	json = calloc(1, (size_t)st.st_size + 1);
	T_ASSERT(json && read(fd, json, (size_t)st.st_size) == st.st_size);
	close(fd);
	T_EXPECT(strstr(json, "\"name\":\"buffer overflow\"") != NULL);
	T_EXPECT(strstr(json, "\"name\":\"records dropped\"") != NULL);
	free(json);
}

/*
 * A provider that speaks the uapi itself and lies (tracebuf_vmtest's
 * hostile providers are the library's side of this): with @bad_save it
 * asks for a save that does not check out, for which the session
 * terminates it; else it fills its oneshot buffer with words that are no
 * records, under an honest header.  Obeys the kernel otherwise.
 */
static pid_t liar(const char *name, bool bad_save)
{
	struct tracebuf_register_args reg = {
		.name_len = (uint32_t)strlen(name), .name_ptr = (uintptr_t)name,
	};
	struct tracebuf_release_args rel = { 0 };
	struct tracebuf_pkt pkt, out = { 0 };
	struct tracebuf_buffer_header *h = NULL;
	int ready[2], fd;
	pid_t pid;
	char c = 'k';

	if (pipe2(ready, O_CLOEXEC))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid) {
		close(ready[1]);
		if (pid > 0 && read(ready[0], &c, 1) != 1)
			pid = -1;
		close(ready[0]);
		return pid;
	}
	fd = open("/dev/tracebuf", O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, TRACEBUF_IOC_REGISTER, &reg) || write(ready[1], &c, 1) != 1)
		_exit(2);
	while (read(fd, &pkt, sizeof(pkt)) == sizeof(pkt)) {
		switch (pkt.request) {
		case TRACEBUF_PKT_INITIALIZE:
			h = mmap(NULL, pkt.data64, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (h == MAP_FAILED)
				_exit(3);
			break;
		case TRACEBUF_PKT_START:
			if (!bad_save) {
				memset((char *)h + TRACEBUF_HEADER_SIZE + h->durable_buffer_size,
				       0xff, 32);
				h->rolling_data_end[0] = 32;
			}
			out.request = TRACEBUF_PKT_STARTED;
			out.data32 = TRACEBUF_FIFO_PROTOCOL_VERSION;
			ioctl(fd, TRACEBUF_IOC_PROVIDER_SEND, &out);
			if (bad_save) {
				out.request = TRACEBUF_PKT_SAVE_BUFFER;
				out.data32 = 5;
				out.data64 = 64;
				ioctl(fd, TRACEBUF_IOC_PROVIDER_SEND, &out);
			}
			break;
		case TRACEBUF_PKT_STOP:
		case TRACEBUF_PKT_TERMINATE:
			out = (struct tracebuf_pkt){ .request = TRACEBUF_PKT_STOPPED };
			ioctl(fd, TRACEBUF_IOC_PROVIDER_SEND, &out);
			if (pkt.request == TRACEBUF_PKT_TERMINATE)
				ioctl(fd, TRACEBUF_IOC_PROVIDER_RELEASE, &rel);
			break;
		default:
			break;
		}
	}
	_exit(0);
}

/*
 * A provider the session terminated for breaking the protocol lost what
 * it would have written after: record says so and exits 7.  Records cut
 * from a buffer are a warning.
 */
static void provider_errors_are_reported(void)
{
	const char *save[] = { "tracebufctl", "record", "-q", "-m", "streaming", "-d", "1s",
			       "-p", "liar", "-o", path("liar.fxt"), NULL };
	const char *junk[] = { "tracebufctl", "record", "-q", "-d", "1s", "-p", "junk", "-o",
			       path("junk.fxt"), NULL };
	static char err[8192];
	pid_t pid;

	pid = liar("liar", true);
	T_ASSERT(pid > 0);
	expect_incomplete(save, 7, "is incomplete: it broke the tracing protocol and was "
			  "terminated", path("liar.fxt"));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);

	pid = liar("junk", false);
	T_ASSERT(pid > 0);
	T_EXPECT_EQ(run(junk, NULL, 0, err, sizeof(err), 0), 0);
	if (!strstr(err, "warning: provider 'junk' (pid ") ||
	    !strstr(err, "): 32 bytes of its buffer were not whole records that decode"))
		T_FAIL("no warning of the bytes left out: %s", err);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static const struct t_test tests[] = {
	T_TEST(default_provider_keeps_its_first_events),
	T_TEST(trace_of_others_does_not_hold_up),
	T_TEST(no_wait_provider_records_no_orphan_end),
	T_TEST(no_provider_is_an_error),
	T_TEST(unknown_provider_name),
	T_TEST(unknown_category),
	T_TEST(provider_of_another_manager),
	T_TEST(initialize_out_of_memory),
	T_TEST(drops_are_in_the_trace),
	T_TEST(late_start_is_incomplete),
	T_TEST(provider_errors_are_reported),
};

VMTEST_MAIN(tests)
