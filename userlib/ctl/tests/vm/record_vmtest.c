// SPDX-License-Identifier: MIT
/*
 * tracebufctl with the module, in the test VM: "record" around the
 * example program (userlib/examples/tracebuf-example.c) in each mode, the file
 * read back with libtracebuf's reader (event kinds and counts per
 * thread, the provider's name); COMMAND's exit status passed through; a
 * provider that registers while recording joins it; "convert" gives valid
 * JSON with the expected events; "list" and "categories" show a running
 * provider; bad input and missing privileges are refused with a message
 * and no file; a provider that ends while tracing (killed, a crash, an
 * exit without stopping, an exec), COMMAND's, its child's or another
 * program's, is named with how it ended.
 *
 * tracebufctl and tracebuf-example are expected beside this program;
 * "record_vmtest --gone HOW" is COMMAND's provider that ends so, and
 * "record_vmtest --child WAY HOW" a COMMAND whose child is that one.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ktap.h"

#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/tracebuf.h>
#include <tracebuf_event.h>
#include <tracebuf_provider.h>
#include <tracebuf_reader.h>

#include "../json.h"
#include "vmtest.h"

#define REQUESTS	300
/* The example, by its path: COMMAND is not looked up in $PATH here. */
#define EX prog_path("tracebuf-example")

/* ---------------------------------------------------------------------- */
/* What a trace holds                                                     */

struct kinds {
	unsigned int infos, sections, overflows, events;
	char name[TRACEBUF_NAME_MAX + 1];	/* of the last provider info */
	/* the example's events */
	unsigned int submit, handle, read, write, produce, done;
	unsigned int async_begin, async_end, flow_begin, flow_end, counters;
	uint64_t submit_tid;			/* 0: none yet; ~0: several */
	unsigned int handle_on_submit_tid;
	uint64_t worker_tids[8];
	unsigned int nworkers;
	unsigned int seq;			/* "seq" events (late joiner) */
};

static bool is(const struct tracebuf_reader_str *s, const char *lit)
{
	return s->len == strlen(lit) && !memcmp(s->data, lit, s->len);
}

static void add_worker(struct kinds *k, uint64_t tid)
{
	for (unsigned int i = 0; i < k->nworkers; i++)
		if (k->worker_tids[i] == tid)
			return;
	if (k->nworkers < 8)
		k->worker_tids[k->nworkers++] = tid;
}

static int read_trace(const char *file, struct kinds *k)
{
	struct tracebuf_reader_record rec;
	struct tracebuf_reader *r;
	int ret;

	memset(k, 0, sizeof(*k));
	ret = t_trace_open_file(file, TRACEBUF_LIB_READER_MAGIC, &r);
	if (ret)
		return ret;
	while ((ret = tracebuf_reader_next(r, &rec)) == 1) {
		if (rec.type == TRACEBUF_LIB_FXT_RECORD_METADATA) {
			if (rec.meta.type == TRACEBUF_LIB_FXT_META_PROVIDER_INFO) {
				k->infos++;
				snprintf(k->name, sizeof(k->name), "%.*s",
					 (int)rec.meta.name.len, rec.meta.name.data);
			}
			k->overflows += rec.meta.type == TRACEBUF_LIB_FXT_META_PROVIDER_EVENT;
			k->sections += rec.meta.type == TRACEBUF_LIB_FXT_META_PROVIDER_SECTION;
			continue;
		}
		if (rec.type != TRACEBUF_LIB_FXT_RECORD_EVENT)
			continue;
		k->events++;
		switch (rec.event.type) {
		case TRACEBUF_LIB_FXT_EVENT_COUNTER:
			k->counters++;
			break;
		case TRACEBUF_LIB_FXT_EVENT_ASYNC_BEGIN:
			k->async_begin++;
			break;
		case TRACEBUF_LIB_FXT_EVENT_ASYNC_END:
			k->async_end++;
			break;
		case TRACEBUF_LIB_FXT_EVENT_FLOW_BEGIN:
			k->flow_begin++;
			break;
		case TRACEBUF_LIB_FXT_EVENT_FLOW_END:
			k->flow_end++;
			break;
		case TRACEBUF_LIB_FXT_EVENT_INSTANT:
			k->done += is(&rec.event.name, "done");
			k->seq += is(&rec.event.name, "seq");
			break;
		case TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE:
			if (is(&rec.event.name, "submit")) {
				k->submit++;
				if (!k->submit_tid)
					k->submit_tid = rec.event.thread_koid;
				else if (k->submit_tid != rec.event.thread_koid)
					k->submit_tid = ~0ull;
			} else if (is(&rec.event.name, "handle")) {
				k->handle++;
				add_worker(k, rec.event.thread_koid);
				k->handle_on_submit_tid += rec.event.thread_koid == k->submit_tid;
			} else {
				k->read += is(&rec.event.name, "read");
				k->write += is(&rec.event.name, "write");
				k->produce += is(&rec.event.name, "produce");
			}
			break;
		}
	}
	if (ret)
		printf("# %s: %s at %zu\n", file, tracebuf_reader_error(r),
		       tracebuf_reader_error_offset(r));
	tracebuf_reader_close(r);
	printf("# %s: %u events from \"%s\": submit %u handle %u async %u/%u flow %u/%u"
	       " counters %u, %u worker threads, %u overflow records\n", file, k->events,
	       k->name, k->submit, k->handle, k->async_begin, k->async_end, k->flow_begin,
	       k->flow_end, k->counters, k->nworkers, k->overflows);
	return ret;
}

/* ---------------------------------------------------------------------- */

static void streaming_keeps_every_event(void)
{
	/*
	 * 10 ms per request: a half (32 KiB) fills in ~200 ms, saved in far
	 * less even on the debug kernel (at 1 ms it once missed by 5 events
	 * there, and at 5 ms by 210 on arm64's emulation, loaded)
	 */
	const char *argv[] = { "tracebufctl", "record", "-q", "-m", "streaming",
			       "-b", "64K", "-o", path("s.fxt"), "--",
			       EX, "-t", "3", "-n", "300", "-w", "10000",
			       NULL };
	struct kinds k;

	T_ASSERT_EQ(run(argv, NULL, 0, NULL, 0, 0), 0);
	T_ASSERT_EQ(read_trace(path("s.fxt"), &k), 0);
	T_EXPECT_EQ(k.infos, 1);
	T_EXPECT(!strcmp(k.name, "tracebuf-example"));
	/* the producer thread: one "produce", every submit, begin of spans */
	T_EXPECT_EQ(k.produce, 1);
	T_EXPECT_EQ(k.submit, REQUESTS);
	T_EXPECT(k.submit_tid != 0 && k.submit_tid != ~0ull);
	T_EXPECT_EQ(k.async_begin, REQUESTS);
	T_EXPECT_EQ(k.flow_begin, REQUESTS);
	/* the workers: every request handled, read and written, on others */
	T_EXPECT_EQ(k.handle, REQUESTS);
	T_EXPECT_EQ(k.read, REQUESTS);
	T_EXPECT_EQ(k.write, REQUESTS);
	T_EXPECT_EQ(k.handle_on_submit_tid, 0);
	T_EXPECT(k.nworkers >= 1 && k.nworkers <= 3);
	T_EXPECT_EQ(k.async_end, REQUESTS);
	T_EXPECT_EQ(k.flow_end, REQUESTS);
	T_EXPECT(k.counters >= 2 * REQUESTS);
	T_EXPECT_EQ(k.done, 1);
	T_EXPECT_EQ(k.overflows, 0);
	/* a section record per streaming save and one for the rest */
	T_EXPECT(k.sections >= 3);
	printf("# %u provider sections\n", k.sections);
}

/* A small oneshot buffer keeps the first events and says it dropped. */
static void oneshot_keeps_the_first(void)
{
	const char *argv[] = { "tracebufctl", "record", "-q", "-m", "oneshot",
			       "-b", "16K", "-o", path("o.fxt"), "--",
			       EX, "-n", "300", "-w", "0", NULL };
	struct kinds k;

	T_ASSERT_EQ(run(argv, NULL, 0, NULL, 0, 0), 0);
	T_ASSERT_EQ(read_trace(path("o.fxt"), &k), 0);
	T_EXPECT_EQ(k.infos, 1);
	T_EXPECT(k.submit > 0 && k.submit < REQUESTS);
	T_EXPECT_EQ(k.done, 0);
	T_EXPECT_EQ(k.overflows, 1);
}

/* A small circular buffer keeps the last ones, the final "done" too. */
static void circular_keeps_the_last(void)
{
	const char *argv[] = { "tracebufctl", "record", "-q", "-m", "circular",
			       "-b", "32K", "-o", path("c.fxt"), "--",
			       EX, "-n", "300", "-w", "0", NULL };
	struct kinds k;

	T_ASSERT_EQ(run(argv, NULL, 0, NULL, 0, 0), 0);
	T_ASSERT_EQ(read_trace(path("c.fxt"), &k), 0);
	T_EXPECT_EQ(k.infos, 1);
	T_EXPECT(k.handle > 0 && k.handle < REQUESTS);
	T_EXPECT_EQ(k.done, 1);
}

static void command_exit_status_passes_through(void)
{
	const char *argv[] = { "tracebufctl", "record", "-q", "-o", path("x.fxt"),
			       "--", prog_path("tb-seqprov"), "-n", "10", "-x", "3", NULL };
	const char *bogus[] = { "tracebufctl", "record", "-q", "-o", path("y.fxt"),
				"--", EX, "--bogus", NULL };
	static char err[4096];
	struct stat st;

	/* a traced COMMAND's own status */
	T_EXPECT_EQ(run(argv, NULL, 0, NULL, 0, 0), 3);
	T_EXPECT_EQ(stat(path("x.fxt"), &st), 0);
	/*
	 * The example refuses its arguments (status 2) before it registers:
	 * nothing was traced, which says so; COMMAND's status in a line.
	 */
	T_EXPECT_EQ(run(bogus, NULL, 0, err, sizeof(err), 0), 3);
	T_EXPECT(strstr(err, "tracebufctl: the trace is incomplete (exit status 3); ") &&
		 strstr(err, "tracebuf-example exited with status 2"));
	/* the trace of a run that ended that way is still written */
	T_EXPECT_EQ(stat(path("y.fxt"), &st), 0);
}

/* A provider that registers while recording (not COMMAND) joins. */
static void late_provider_joins(void)
{
	const char *argv[] = { "tracebufctl", "record", "-q", "-d", "4s",
			       "-o", path("l.fxt"), NULL };
	const char *ex[] = { "tracebuf-example", "-N", "late-one", "-n", "100",
			     "-w", "0", NULL };
	struct kinds k;
	pid_t rec;

	rec = fork();
	T_ASSERT(rec >= 0);
	if (!rec)
		_exit(run(argv, NULL, 0, NULL, 0, 0));
	usleep(1000 * 1000);
	T_ASSERT_EQ(run(ex, NULL, 0, NULL, 0, 0), 0);
	T_ASSERT_EQ(waitpid(rec, &(int){ 0 }, 0), rec);
	T_ASSERT_EQ(read_trace(path("l.fxt"), &k), 0);
	T_EXPECT(!strcmp(k.name, "late-one"));
	T_EXPECT_EQ(k.submit, 100);
	T_EXPECT_EQ(k.handle, 100);
}

static void convert_gives_valid_json(void)
{
	const char *rec[] = { "tracebufctl", "record", "-q", "-m", "streaming",
			      "-o", path("j.fxt"), "--", EX, "-n", "50",
			      "-w", "0", NULL };
	const char *conv[] = { "tracebufctl", "convert", path("j.fxt"), "-o",
			       path("j.json"), NULL };
	unsigned int complete = 0, meta = 0;
	const struct json *events;
	struct json *v;
	char err[256], *text;
	struct stat st;
	int fd;

	T_ASSERT_EQ(run(rec, NULL, 0, NULL, 0, 0), 0);
	T_ASSERT_EQ(run(conv, NULL, 0, NULL, 0, 0), 0);
	fd = open(path("j.json"), O_RDONLY);
	T_ASSERT(fd >= 0 && !fstat(fd, &st));
	text = malloc((size_t)st.st_size + 1);
	T_ASSERT(text && read(fd, text, (size_t)st.st_size) == st.st_size);
	close(fd);
	v = json_parse(text, (size_t)st.st_size, err, sizeof(err));
	if (!v)
		T_FAIL("not JSON: %s", err);
	T_ASSERT(v);
	events = json_get(v, "traceEvents");
	T_ASSERT(events && events->type == JSON_ARRAY);
	for (size_t i = 0; i < events->n; i++) {
		const struct json *ph = json_get(events->items[i], "ph");
		const struct json *name = json_get(events->items[i], "name");

		if (!ph || ph->type != JSON_STRING || !name || name->type != JSON_STRING)
			continue;
		complete += !strcmp(ph->text, "X") && !strcmp(name->text, "handle");
		meta += !strcmp(ph->text, "M");
	}
	printf("# %zu JSON events, %u \"handle\" slices, %u metadata\n", events->n,
	       complete, meta);
	T_EXPECT_EQ(complete, 50);
	T_EXPECT(meta >= 1);
	json_free(v);
	free(text);
}

static void list_and_categories_show_providers(void)
{
	const char *list[] = { "tracebufctl", "list", NULL };
	const char *listj[] = { "tracebufctl", "list", "-j", NULL };
	const char *cats[] = { "tracebufctl", "categories", NULL };
	static char out[65536];
	char err[256];
	static const struct tracebuf_known_category known[] = {
		{ "vm:cat", "a category for the listing" },
	};
	struct held h;
	struct json *v;

	T_ASSERT_EQ(hold_provider("held-provider", known, 1, &h), 0);
	T_EXPECT_EQ(run(list, out, sizeof(out), NULL, 0, 0), 0);
	T_EXPECT(strstr(out, "held-provider") != NULL);
	T_EXPECT_EQ(run(listj, out, sizeof(out), NULL, 0, 0), 0);
	v = json_parse(out, strlen(out), err, sizeof(err));
	T_EXPECT(v && v->type == JSON_ARRAY && v->n >= 1);
	json_free(v);
	T_EXPECT(strstr(out, "held-provider") != NULL);
	T_EXPECT_EQ(run(cats, out, sizeof(out), NULL, 0, 0), 0);
	T_EXPECT(strstr(out, "vm:cat") != NULL);
	T_EXPECT(strstr(out, "a category for the listing") != NULL);
	release_provider(&h);
}

static void unprivileged_is_refused(void)
{
	const char *list[] = { "tracebufctl", "list", NULL };
	const char *rec[] = { "tracebufctl", "record", "-q", "-d", "1s", "-o",
			      "/tmp/nobody.fxt", NULL };
	char err[512];
	struct stat st;

	T_EXPECT(run(list, NULL, 0, err, sizeof(err), NOBODY) != 0);
	T_EXPECT(strstr(err, "permission denied") != NULL);
	T_EXPECT(run(rec, NULL, 0, err, sizeof(err), NOBODY) != 0);
	T_EXPECT(strstr(err, "permission denied") != NULL);
	T_EXPECT(stat("/tmp/nobody.fxt", &st) != 0);
}

static void bad_sizes_are_refused(void)
{
	const char *odd[] = { "tracebufctl", "record", "-b", "5000", "-d", "1s", "-o",
			      path("bad.fxt"), NULL };
	const char *huge[] = { "tracebufctl", "record", "-b", "1G", "-d", "1s", "-o",
			       path("bad.fxt"), NULL };
	const char *mode[] = { "tracebufctl", "record", "-m", "sometimes", "-o",
			       path("bad.fxt"), NULL };
	char err[512];
	struct stat st;

	T_EXPECT(run(odd, NULL, 0, err, sizeof(err), 0) != 0);
	T_EXPECT(strchr(err, '\n') == strrchr(err, '\n'));	/* one line */
	T_EXPECT(run(huge, NULL, 0, err, sizeof(err), 0) != 0);
	T_EXPECT(strstr(err, "max_buffer_size") != NULL || strstr(err, "large") != NULL);
	T_EXPECT(run(mode, NULL, 0, err, sizeof(err), 0) != 0);
	T_EXPECT(stat(path("bad.fxt"), &st) != 0);
}

static void corrupt_file_is_refused(void)
{
	const char *rec[] = { "tracebufctl", "record", "-q", "-o", path("t.fxt"), "--",
			      EX, "-n", "20", "-w", "0", NULL };
	const char *conv[] = { "tracebufctl", "convert", path("t.fxt"), "-o",
			       path("t.json"), NULL };
	const char *dump[] = { "tracebufctl", "dump", path("t.fxt"), NULL };
	static char out[1 << 20];
	struct stat st;
	int fd;

	T_ASSERT_EQ(run(rec, NULL, 0, NULL, 0, 0), 0);
	T_ASSERT_EQ(stat(path("t.fxt"), &st), 0);
	/* cut the last record in half */
	T_ASSERT_EQ(truncate(path("t.fxt"), st.st_size - 4), 0);
	T_EXPECT(run(conv, NULL, 0, NULL, 0, 0) != 0);
	T_EXPECT(stat(path("t.json"), &st) != 0);
	T_EXPECT(run(dump, out, sizeof(out), NULL, 0, 0) != 0);
	fd = open(path("t.fxt"), O_WRONLY);
	T_ASSERT(fd >= 0);
	T_ASSERT_EQ(pwrite(fd, "garbage!", 8, 0), 8);	/* no magic record */
	close(fd);
	T_EXPECT(run(conv, NULL, 0, NULL, 0, 0) != 0);
	T_EXPECT(stat(path("t.json"), &st) != 0);
}

/* ---------------------------------------------------------------------- */
/* COMMAND's provider ends while tracing                                  */

#define GONE_EVENTS	200

/*
 * record_vmtest --gone HOW: provider "gone-HOW" writes GONE_EVENTS "seq"
 * events and ends without stopping (no tracebuf_provider_destroy()): HOW
 * is term (SIGTERM), segv (SIGSEGV), exit (exit(0)), or exec (its file
 * closes on exec, and the program it becomes exits 0 a moment later).
 */
static int gone_provider(const char *how)
{
	char name[TRACEBUF_NAME_MAX + 1];
	struct tracebuf_provider_config cfg = {
		.size = sizeof(cfg), .name = name, .flags = TRACEBUF_LIB_PROVIDER_THREAD,
	};
	struct tracebuf_provider *p;

	if (strcmp(how, "term") && strcmp(how, "segv") && strcmp(how, "exit") &&
	    strcmp(how, "exec"))
		return 2;
	snprintf(name, sizeof(name), "gone-%s", how);
	if (tracebuf_provider_create(&cfg, &p))
		return 2;
	for (unsigned int i = 0; i < GONE_EVENTS; i++)
		TRACEBUF_LIB_INSTANT("seq", "seq", TRACEBUF_LIB_ARG_UINT32("i", i));
	if (!strcmp(how, "term"))
		raise(SIGTERM);
	if (!strcmp(how, "segv")) {
		setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
		raise(SIGSEGV);
	}
	if (!strcmp(how, "exec")) {
		execl("/proc/self/exe", "record_vmtest", "--idle", (char *)NULL);
		return 2;
	}
	exit(0);
}

/*
 * record_vmtest --child WAY HOW: COMMAND whose child is gone_provider(HOW)
 * and exits 0 once it has ended: WAY "left", not reaping it (at our exit
 * it goes to record, our subreaper); "orphan", through a parent that
 * exits first (it goes to record at once); "reaped", reaping it.
 */
static int child_command(const char *way, const char *how)
{
	struct pollfd p = { .events = POLLIN };
	int pfd[2], status;
	pid_t pid, mid;
	siginfo_t si;

	if (!strcmp(way, "orphan")) {
		if (pipe(pfd))
			return 2;
		mid = fork();
		if (mid < 0)
			return 2;
		if (!mid) {
			pid = fork();
			if (!pid)
				_exit(gone_provider(how));
			_exit(write(pfd[1], &pid, sizeof(pid)) != sizeof(pid) || pid < 0);
		}
		if (read(pfd[0], &pid, sizeof(pid)) != sizeof(pid) || pid <= 0 ||
		    waitpid(mid, &status, 0) != mid || status)
			return 2;
		/* until it has ended (record may have reaped it by then) */
		p.fd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (p.fd >= 0)
			poll(&p, 1, -1);
		return 0;
	}
	if (strcmp(way, "left") && strcmp(way, "reaped"))
		return 2;
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid)
		_exit(gone_provider(how));
	if (!strcmp(way, "reaped"))
		return waitpid(pid, &status, 0) == pid ? 0 : 2;
	/* a zombie, not reaped */
	return waitid(P_PID, pid, &si, WEXITED | WNOWAIT) ? 2 : 0;
}

/*
 * record ARGS (COMMAND's provider "gone-HOW" ended while tracing, into
 * FILE) exits @status, ends the provider's line of its summary with
 * (@cause), and claims no other cause; all the provider's events are in
 * the trace, and nothing of its buffer was left out.
 */
static void expect_gone_named(const char *const *argv, const char *file, const char *how,
			      int status, const char *cause)
{
	static char err[8192];
	char name[32], want[128];
	const char *line;
	struct kinds k;
	size_t len;

	snprintf(name, sizeof(name), "gone-%s", how);
	T_EXPECT_EQ(run(argv, NULL, 0, err, sizeof(err), 0), status);
	/* the summary's line of the provider ends with the cause */
	snprintf(want, sizeof(want), "\n%s ", name);
	line = strstr(err, want);
	T_ASSERT(line != NULL);
	line++;
	len = strcspn(line, "\n");
	snprintf(want, sizeof(want), "  (%s)", cause);
	T_EXPECT(len >= strlen(want) && !strncmp(line + len - strlen(want), want, strlen(want)));
	if (strcmp(cause, "ended while tracing"))
		T_EXPECT(strstr(err, "ended while tracing") == NULL);
	T_EXPECT(strstr(err, "killed") == NULL || strstr(cause, "killed"));
	T_EXPECT(strstr(err, "crashed") == NULL || strstr(cause, "crashed"));
	T_EXPECT(strstr(err, "exited with") == NULL || strstr(cause, "exited with"));
	T_EXPECT(strstr(err, "left out") == NULL);
	T_ASSERT_EQ(read_trace(file, &k), 0);
	T_EXPECT(!strcmp(k.name, name));
	T_EXPECT_EQ(k.seq, GONE_EVENTS);
}

/*
 * A provider that ends while tracing is COMMAND: record says how, as
 * COMMAND's wait status does (not only that it "ended while tracing"),
 * in its summary line.
 */
static void command_end_is_named(void)
{
	static const struct {
		const char *how, *cause;
		int status;
	} cases[] = {
		{ "term", "killed by SIGTERM", 128 + SIGTERM },
		{ "segv", "crashed with SIGSEGV", 128 + SIGSEGV },
		{ "exit", "exited with status 0 without stopping tracing", 0 },
		{ "exec", "closed its tracebuf file without exiting", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char file[32];
		const char *argv[] = { "tracebufctl", "record", "-o", NULL, "--",
				       prog_path("record_vmtest"), "--gone", cases[i].how, NULL };

		snprintf(file, sizeof(file), "gone-%s.fxt", cases[i].how);
		argv[3] = path(file);
		expect_gone_named(argv, argv[3], cases[i].how, cases[i].status, cases[i].cause);
	}
}

/*
 * A provider that ends while tracing is a child of COMMAND: record says
 * how it ended, whether COMMAND leaves it behind (a zombie at COMMAND's
 * exit, or orphaned while it runs: record, the subreaper of COMMAND's
 * descendants, reaps it) or reaps it itself (the kernel's MSG_GONE says
 * how it ended).
 */
static void child_end_is_named(void)
{
	static const struct {
		const char *way, *how, *cause;
	} cases[] = {
		{ "left", "term", "killed by SIGTERM" },
		{ "left", "segv", "crashed with SIGSEGV" },
		{ "left", "exit", "exited with status 0 without stopping tracing" },
		{ "orphan", "segv", "crashed with SIGSEGV" },
		{ "orphan", "exit", "exited with status 0 without stopping tracing" },
		{ "reaped", "term", "killed by SIGTERM" },
		{ "reaped", "segv", "crashed with SIGSEGV" },
		{ "reaped", "exit", "exited with status 0 without stopping tracing" },
		{ "reaped", "exec", "closed its tracebuf file without exiting" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char file[48];
		const char *argv[] = { "tracebufctl", "record", "-o", NULL, "--",
				       prog_path("record_vmtest"), "--child", cases[i].way,
				       cases[i].how, NULL };

		snprintf(file, sizeof(file), "child-%s-%s.fxt", cases[i].way, cases[i].how);
		argv[3] = path(file);
		printf("# a child that ends so (%s), %s\n", cases[i].how, cases[i].way);
		expect_gone_named(argv, argv[3], cases[i].how, 0, cases[i].cause);
	}
}

/*
 * A provider that ends while tracing is another program's, not COMMAND's
 * nor a descendant of it (a recording without COMMAND here): record says
 * how it ended, by the kernel's MSG_GONE.
 */
static void other_end_is_named(void)
{
	static const struct {
		const char *how, *cause;
	} cases[] = {
		{ "term", "killed by SIGTERM" },
		{ "segv", "crashed with SIGSEGV" },
		{ "exit", "exited with status 0 without stopping tracing" },
		{ "exec", "closed its tracebuf file without exiting" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char file[48], name[32];
		const char *argv[] = { "tracebufctl", "record", "-d", "4s", "-p", NULL,
				       "-o", NULL, NULL };
		pid_t pid;

		snprintf(name, sizeof(name), "gone-%s", cases[i].how);
		snprintf(file, sizeof(file), "other-%s.fxt", cases[i].how);
		argv[5] = name;
		argv[7] = path(file);
		printf("# another program's provider that ends so (%s)\n", cases[i].how);
		pid = fork();
		T_ASSERT(pid >= 0);
		if (!pid) {
			/* once the recording runs: it waits for its start */
			usleep(1500 * 1000);
			execl(prog_path("record_vmtest"), "record_vmtest", "--gone",
			      cases[i].how, (char *)NULL);
			_exit(127);
		}
		expect_gone_named(argv, argv[7], cases[i].how, 0, cases[i].cause);
		T_EXPECT_EQ(waitpid(pid, &(int){ 0 }, 0), pid);
	}
}

static const struct t_test tests[] = {
	T_TEST(streaming_keeps_every_event),
	T_TEST(oneshot_keeps_the_first),
	T_TEST(circular_keeps_the_last),
	T_TEST(command_exit_status_passes_through),
	T_TEST(late_provider_joins),
	T_TEST(convert_gives_valid_json),
	T_TEST(list_and_categories_show_providers),
	T_TEST(unprivileged_is_refused),
	T_TEST(bad_sizes_are_refused),
	T_TEST(corrupt_file_is_refused),
	T_TEST(command_end_is_named),
	T_TEST(child_end_is_named),
	T_TEST(other_end_is_named),
};

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--idle")) {
		usleep(200 * 1000);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--gone"))
		return gone_provider(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "--child"))
		return child_command(argv[2], argv[3]);
	return vmtest_main(argv[0], tests, sizeof(tests) / sizeof(tests[0]));
}
