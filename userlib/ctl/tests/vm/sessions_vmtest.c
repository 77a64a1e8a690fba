// SPDX-License-Identifier: MIT
/*
 * tracebufctl's background sessions and outputs with the module, in the
 * test VM: record --detach, a provider traced by it, status, stop; an
 * operator's alert ending a detached session through its trigger; -o -
 * (the trace on standard output, COMMAND's output kept off it); -o
 * FILE.gz compressed by gzip (busybox's here) and read back by dump,
 * record for record the same as the file gunzipped; --max-size ending a
 * streaming recording near its size, and with --rotate going on in new
 * files, each of which reads alone; a trigger's snapshot that fails.
 *
 * tracebufctl and tracebuf-example are expected beside this program.
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
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <linux/tracebuf.h>
#include <tracebuf_provider.h>
#include <tracebuf_reader.h>

#include "vmtest.h"

#define EX prog_path("tracebuf-example")

/* Events and provider info records in file, read with libtracebuf. */
static int count_events(const char *file, unsigned int *events, unsigned int *infos)
{
	struct tracebuf_reader_record rec;
	struct tracebuf_reader *r;
	int ret;

	*events = *infos = 0;
	ret = t_trace_open_file(file, TRACEBUF_LIB_READER_MAGIC, &r);
	if (ret)
		return ret;
	while ((ret = tracebuf_reader_next(r, &rec)) == 1) {
		*events += rec.type == TRACEBUF_LIB_FXT_RECORD_EVENT;
		*infos += rec.type == TRACEBUF_LIB_FXT_RECORD_METADATA &&
			  rec.meta.type == TRACEBUF_LIB_FXT_META_PROVIDER_INFO;
	}
	tracebuf_reader_close(r);
	printf("# %s: %u events, %u providers\n", file, *events, *infos);
	return ret;
}

/* The session id record --detach printed, or 0. */
static int detach(const char *const *argv)
{
	static char out[64], err[4096];
	int id;

	if (run(argv, out, sizeof(out), err, sizeof(err), 0))
		return 0;
	id = atoi(out);
	return id > 0 ? id : 0;
}

/* Wait (at most 20 s) until process id is gone. */
static bool ended(int id)
{
	for (int i = 0; i < 200; i++) {
		if (kill(id, 0))
			return true;
		usleep(100000);
	}
	return false;
}

/* A detached session traces a provider that comes later, and stop ends it. */
static void detach_status_stop(void)
{
	const char *rec[] = { "tracebufctl", "record", "--detach", "-m", "circular",
			      "-b", "64K", "-o", path("d.fxt"), NULL };
	const char *status[] = { "tracebufctl", "status", NULL };
	static char out[4096], err[4096];
	unsigned int events, infos;
	char idstr[16];
	const char *stop[] = { "tracebufctl", "stop", idstr, NULL };
	int id;

	id = detach(rec);
	T_ASSERT(id > 0);
	snprintf(idstr, sizeof(idstr), "%d", id);
	/* a program run now, as a provider; it ends before the stop */
	T_ASSERT_EQ(run((const char *[]){ "tracebuf-example", "-n", "200", "-w", "100", NULL },
			out, sizeof(out), NULL, 0, 0), 0);
	T_ASSERT_EQ(run(status, out, sizeof(out), NULL, 0, 0), 0);
	printf("# status: %s", out);
	T_EXPECT(!strncmp(strchr(out, '\n') + 1, idstr, strlen(idstr)) &&
		 strstr(out, " circular ") && strstr(out, " recording "));
	T_ASSERT_EQ(run(stop, NULL, 0, err, sizeof(err), 0), 0);
	T_EXPECT(strstr(err, ", stopped by 'tracebufctl stop'") != NULL);
	T_EXPECT(ended(id));
	T_ASSERT_EQ(count_events(path("d.fxt"), &events, &infos), 0);
	T_EXPECT_EQ(infos, 1);
	T_EXPECT(events > 100);
	/* nothing stale: the session is not listed any more */
	T_ASSERT_EQ(run(status, out, sizeof(out), NULL, 0, 0), 0);
	T_EXPECT(!strchr(out, '\n') || !strchr(out, '\n')[1]);
}

/* The bytes session id has written to its file, as status -j says; -1: none. */
static long long session_bytes(int id)
{
	const char *status[] = { "tracebufctl", "-j", "status", NULL };
	static char out[4096];
	char key[32];
	const char *p;

	if (run(status, out, sizeof(out), NULL, 0, 0))
		return -1;
	snprintf(key, sizeof(key), "{\"id\":%d,", id);
	p = strstr(out, key);
	p = p ? strstr(p, "\"bytes\":") : NULL;
	return p ? atoll(p + 8) : -1;
}

/* An operator's alert ends a detached session whose trigger names it. */
static void alert_from_the_command_line(void)
{
	const char *rec[] = { "tracebufctl", "record", "--detach", "-q", "-m", "streaming",
			      "-b", "64K", "--trigger", "halt:stop", "-o", path("a.fxt"), "--",
			      EX, "-n", "100000", "-w", "100", NULL };
	const char *alert[] = { "tracebufctl", "alert", "halt", NULL };
	static char out[256];
	unsigned int events, infos;
	long long bytes = 0;
	int id;
	struct stat st;

	id = detach(rec);
	T_ASSERT(id > 0);
	/* events recorded first: a streaming save has reached the file */
	for (int i = 0; i < 300 && (bytes = session_bytes(id)) < 32 * 1024; i++)
		usleep(100000);
	T_ASSERT(bytes >= 32 * 1024);
	T_ASSERT_EQ(run(alert, out, sizeof(out), NULL, 0, 0), 0);
	printf("# alert: %s", out);
	T_EXPECT(strstr(out, ": stop\n") != NULL);
	/* the trace is written at once; the session then waits for COMMAND */
	for (int i = 0; i < 100 && stat(path("a.fxt"), &st); i++)
		usleep(100000);
	T_ASSERT_EQ(count_events(path("a.fxt"), &events, &infos), 0);
	T_EXPECT_EQ(infos, 1);
	T_EXPECT(events > 0);
	/* the example goes on: end it, and the session with it */
	system("killall tracebuf-example 2>/dev/null");
	T_EXPECT(ended(id));
}

/* -o -: the trace on standard output; COMMAND's own output on stderr. */
static void trace_on_stdout(void)
{
	const char *rec[] = { "tracebufctl", "record", "-q", "-o", "-", "--",
			      EX, "-n", "200", "-w", "0", NULL };
	static char err[4096];
	unsigned int events, infos;
	int fd, saved, ret;

	fd = open(path("stdout.fxt"), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	T_ASSERT(fd >= 0);
	/* run() captures stdout into a file of its own: hand it ours */
	fflush(stdout);
	saved = dup(1);
	dup2(fd, 1);
	ret = run(rec, NULL, 0, err, sizeof(err), 0);
	dup2(saved, 1);
	close(saved);
	close(fd);
	T_ASSERT_EQ(ret, 0);
	T_EXPECT(strstr(err, "tracebuf-example: 200 requests") != NULL);
	T_ASSERT_EQ(count_events(path("stdout.fxt"), &events, &infos), 0);
	T_EXPECT_EQ(infos, 1);
	T_EXPECT(events > 200);
}

/* -o FILE.gz: gzip's file, which dump reads as the file gunzipped. */
static void gzip_round_trip(void)
{
	const char *rec[] = { "tracebufctl", "record", "-q", "-m", "streaming", "-b", "64K",
			      "-o", path("g.fxt.gz"), "--", EX, "-n", "300", "-w", "0", NULL };
	const char *dz[] = { "tracebufctl", "dump", path("g.fxt.gz"), NULL };
	const char *dp[] = { "tracebufctl", "dump", path("g.fxt"), NULL };
	static char a[1 << 20], b[1 << 20], out[4096], err[4096];
	unsigned char magic[2] = { 0 };
	char cmd[2 * PATH_MAX];
	int fd;

	/* its warnings, if any, in the log */
	T_ASSERT_EQ(run(rec, out, sizeof(out), err, sizeof(err), 0), 0);
	fd = open(path("g.fxt.gz"), O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0);
	T_EXPECT_EQ(read(fd, magic, 2), 2);
	close(fd);
	T_EXPECT(magic[0] == 0x1f && magic[1] == 0x8b);
	snprintf(cmd, sizeof(cmd), "gzip -dc %s > %s", path("g.fxt.gz"), path("g.fxt"));
	T_ASSERT_EQ(system(cmd), 0);
	T_ASSERT_EQ(run(dz, a, sizeof(a), NULL, 0, 0), 0);
	T_ASSERT_EQ(run(dp, b, sizeof(b), NULL, 0, 0), 0);
	T_EXPECT(strlen(a) > 1000);
	T_EXPECT(!strcmp(a, b));
}

/* --max-size ends a streaming recording once the file holds that much. */
static void max_size_stops_streaming(void)
{
	const char *rec[] = { "tracebufctl", "record", "-m", "streaming", "-b", "64K",
			      "--max-size", "256K", "-o", path("m.fxt"), "--",
			      EX, "-n", "20000", "-w", "20", NULL };
	static char out[4096], err[4096];
	struct stat st;

	T_ASSERT_EQ(run(rec, out, sizeof(out), err, sizeof(err), 0), 0);
	T_EXPECT(strstr(err, ", stopped at --max-size") != NULL);
	T_ASSERT_EQ(stat(path("m.fxt"), &st), 0);
	printf("# m.fxt: %lld bytes\n", (long long)st.st_size);
	/*
	 * At least the size, and far from the whole trace (about 8 MB):
	 * what one dispatch saved past the size (several halves on a slow
	 * kernel) and the final read-out of the 64K buffer come on top.
	 */
	T_EXPECT(st.st_size >= 256 * 1024 && st.st_size <= 1024 * 1024);
}

/* What one file of a rotation holds. */
struct alone {
	unsigned int events, infos, inits, strings, threads;
};

/*
 * file read alone with libtracebuf: the magic record first, then records
 * to its end without an error, and no ref to a string or thread it does
 * not define.  0, or -1 (said).
 */
static int read_alone(const char *file, struct alone *a)
{
	struct tracebuf_reader_record rec;
	struct tracebuf_reader *r;
	uint64_t unresolved;
	int ret;

	memset(a, 0, sizeof(*a));
	ret = t_trace_open_file(file, TRACEBUF_LIB_READER_MAGIC, &r);
	if (ret) {
		printf("# %s: %s\n", file, strerror(-ret));
		return -1;
	}
	while ((ret = tracebuf_reader_next(r, &rec)) == 1) {
		a->events += rec.type == TRACEBUF_LIB_FXT_RECORD_EVENT;
		a->infos += rec.type == TRACEBUF_LIB_FXT_RECORD_METADATA &&
			    rec.meta.type == TRACEBUF_LIB_FXT_META_PROVIDER_INFO;
		a->inits += rec.type == TRACEBUF_LIB_FXT_RECORD_INIT;
		a->strings += rec.type == TRACEBUF_LIB_FXT_RECORD_STRING;
		a->threads += rec.type == TRACEBUF_LIB_FXT_RECORD_THREAD;
	}
	if (ret)
		printf("# %s: %s at %zu\n", file, tracebuf_reader_error(r),
		       tracebuf_reader_error_offset(r));
	unresolved = tracebuf_reader_unresolved_refs(r);
	tracebuf_reader_close(r);
	printf("# %s: %u events, %u providers, %u init, %u strings, %u threads, "
	       "%" PRIu64 " unresolved\n", file, a->events, a->infos, a->inits, a->strings,
	       a->threads, unresolved);
	return ret || unresolved ? -1 : 0;
}

/* The provider's records are all in each file of a rotation. */
static void expect_alone(const char *file)
{
	struct alone a;

	T_ASSERT_EQ(read_alone(file, &a), 0);
	T_EXPECT_EQ(a.infos, 1);
	T_EXPECT(a.inits >= 1 && a.strings > 0 && a.threads > 0);
	T_EXPECT(a.events > 0);
}

/*
 * --max-size with --rotate: the recording goes on in r.1.fxt, r.2.fxt...
 * instead of stopping, each a trace that reads alone (the provider's
 * info and durable records again before its data); gzip'ed as -o says,
 * r.fxt.gz, r.1.fxt.gz..., each of which dump reads.
 */
static void max_size_rotates_files(void)
{
	/*
	 * One worker, 1 ms a request: about 470 KB in a second, a half of
	 * the buffer filled every 70 ms, which even a loaded emulated
	 * machine saves before the other fills.  (Three workers at 20 us
	 * wrote 2.3 MB in 0.6 s, most of it dropped there: the files held
	 * what the manager happened to catch, at times less than two.)
	 */
	const char *rec[] = { "tracebufctl", "record", "-m", "streaming", "-b", "64K",
			      "--max-size", "128K", "--rotate", "-o", path("r.fxt"), "--",
			      EX, "-t", "1", "-n", "1000", "-w", "1000", NULL };
	const char *recz[] = { "tracebufctl", "record", "-q", "-m", "streaming", "-b", "64K",
			       "--max-size", "64K", "--rotate", "-o", path("z.fxt.gz"), "--",
			       EX, "-t", "1", "-n", "1000", "-w", "1000", NULL };
	static char out[1 << 20], err[4096];
	char name[64], want[3 * PATH_MAX], cmd[3 * PATH_MAX];
	unsigned int n;
	struct stat st;

	T_ASSERT_EQ(run(rec, out, sizeof(out), err, sizeof(err), 0), 0);
	for (n = 0;; n++) {
		snprintf(name, sizeof(name), n ? "r.%u.fxt" : "r.fxt", n);
		if (stat(path(name), &st))
			break;
		expect_alone(path(name));
	}
	printf("# %u files\n", n);
	/* about 470 KB in files of 128K: some rotations */
	T_EXPECT(n >= 3);
	snprintf(name, sizeof(name), "r.%u.fxt", n - 1);
	snprintf(want, sizeof(want), "wrote %u files, %s ... %s: ", n, path("r.fxt"), path(name));
	T_EXPECT(strstr(err, want) != NULL);
	T_EXPECT(strstr(err, "stopped at") == NULL);

	T_ASSERT_EQ(run(recz, out, sizeof(out), err, sizeof(err), 0), 0);
	for (n = 0;; n++) {
		snprintf(name, sizeof(name), n ? "z.%u.fxt.gz" : "z.fxt.gz", n);
		if (stat(path(name), &st))
			break;
		T_ASSERT_EQ(run((const char *[]){ "tracebufctl", "dump", path(name), NULL },
				out, sizeof(out), NULL, 0, 0), 0);
		T_EXPECT(strstr(out, "provider-info") != NULL);
		snprintf(cmd, sizeof(cmd), "gzip -dc %s > %s", path(name), path("z.fxt"));
		T_ASSERT_EQ(system(cmd), 0);
		expect_alone(path("z.fxt"));
	}
	printf("# %u gzip'ed files\n", n);
	T_EXPECT(n >= 3);
}

/*
 * snapshot of a detached circular session, while its COMMAND writes: to a
 * file named with -o, to the default name, gzip'ed, and by a trigger from
 * an operator's alert; each a trace of its own.  The session's trace is
 * written as usual at the end.
 */
static void snapshots_of_a_running_session(void)
{
	/*
	 * 4M: a half takes the example seconds to fill, the copy
	 * milliseconds; with halves of 128K, one was reused while it was
	 * copied once in a while (the snapshot then says so and exits 1)
	 */
	const char *rec[] = { "tracebufctl", "record", "--detach", "-q", "-m", "circular",
			      "-b", "4M", "--trigger", "dump:snapshot", "-o", path("s.fxt"),
			      "--", EX, "-n", "1000000", "-w", "100", NULL };
	const char *alert[] = { "tracebufctl", "alert", "dump", NULL };
	const char *other[] = { "tracebufctl", "alert", "nosuch", NULL };
	static char out[4096], err[4096], dump[1 << 20];
	unsigned int events = 0, infos = 0;
	unsigned char magic[2] = { 0 };
	char idstr[16];
	struct stat st;
	int id, fd;

	/* four snapshots of 4M, one compressed, and a dump: arm64 emulated */
	alarm(t_timeout(T_TIMEOUT * 3));
	id = detach(rec);
	T_ASSERT(id > 0);
	snprintf(idstr, sizeof(idstr), "%d", id);
	/*
	 * -o FILE, relative to the caller's directory; until COMMAND wrote
	 * (before it registered, the snapshot holds no provider: exit 1)
	 */
	for (int i = 0; i < 100 && !events; i++) {
		char cmd[2 * PATH_MAX], dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%s", path("x"));
		snprintf(cmd, sizeof(cmd), "cd %s && %s snapshot -o snap1.fxt %s >/dev/null 2>&1",
			 dirname(dir), prog_path("tracebufctl"), idstr);
		if (system(cmd) == 0)
			T_ASSERT_EQ(count_events(path("snap1.fxt"), &events, &infos), 0);
		if (!events)
			usleep(100000);
	}
	T_EXPECT_EQ(infos, 1);
	T_EXPECT(events > 0);
	/* the default name: the output's, numbered */
	T_ASSERT_EQ(run((const char *[]){ "tracebufctl", "snapshot", NULL }, out, sizeof(out),
			err, sizeof(err), 0), 0);
	printf("# snapshot: %s", out);
	T_EXPECT(strstr(out, "s.snapshot-1.fxt: ") && strstr(out, " from 1 provider\n"));
	T_ASSERT_EQ(count_events(path("s.snapshot-1.fxt"), &events, &infos), 0);
	T_EXPECT_EQ(infos, 1);
	T_EXPECT(events > 0);
	/* compressed as it is written */
	T_ASSERT_EQ(run((const char *[]){ "tracebufctl", "snapshot", "-o", path("snap.fxt.gz"),
					  NULL }, out, sizeof(out), err, sizeof(err), 0), 0);
	fd = open(path("snap.fxt.gz"), O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0);
	T_EXPECT_EQ(read(fd, magic, 2), 2);
	close(fd);
	T_EXPECT(magic[0] == 0x1f && magic[1] == 0x8b);
	T_EXPECT_EQ(run((const char *[]){ "tracebufctl", "dump", path("snap.fxt.gz"), NULL },
			dump, sizeof(dump), NULL, 0, 0), 0);
	T_EXPECT(strstr(dump, " event ") != NULL);
	/* an operator's alert: the trigger writes the next one, and goes on */
	T_ASSERT_EQ(run(alert, out, sizeof(out), NULL, 0, 0), 0);
	T_EXPECT(strstr(out, ": snapshot\n") != NULL);
	/* the session's thread writes it: 30 s, for arm64's emulation loaded */
	for (int i = 0; i < 300 && stat(path("s.snapshot-2.fxt"), &st); i++)
		usleep(100000);
	T_ASSERT_EQ(count_events(path("s.snapshot-2.fxt"), &events, &infos), 0);
	T_EXPECT(events > 0);
	/* an alert no session has a trigger for is not what was asked */
	T_EXPECT_EQ(run(other, out, sizeof(out), err, sizeof(err), 0), 1);
	T_EXPECT(strstr(err, "no session has a trigger for nosuch") != NULL);
	T_EXPECT_EQ(kill(id, 0), 0);	/* still recording */
	system("killall tracebuf-example 2>/dev/null");
	T_EXPECT(ended(id));
	/*
	 * it ended by itself, COMMAND killed (status 143): listed until
	 * "stop ID" shows what it said, which no test after is to find
	 */
	run((const char *[]){ "tracebufctl", "stop", idstr, NULL }, NULL, 0, err, sizeof(err), 0);
	T_ASSERT_EQ(count_events(path("s.fxt"), &events, &infos), 0);
	T_EXPECT_EQ(infos, 1);
	T_EXPECT(events > 0);
}

/* A streaming session has no snapshots: refused, and it goes on. */
static void snapshot_refused_when_streaming(void)
{
	const char *rec[] = { "tracebufctl", "record", "--detach", "-q", "-m", "streaming",
			      "-b", "64K", "-o", path("n.fxt"), NULL };
	static char err[4096];
	char idstr[16];
	int id;

	id = detach(rec);
	T_ASSERT(id > 0);
	snprintf(idstr, sizeof(idstr), "%d", id);
	T_EXPECT_EQ(run((const char *[]){ "tracebufctl", "snapshot", idstr, NULL }, NULL, 0,
			err, sizeof(err), 0), 1);
	T_EXPECT(one_error_line(err) && strstr(err, "streams"));
	T_EXPECT_EQ(run((const char *[]){ "tracebufctl", "stop", idstr, NULL }, NULL, 0, err,
			sizeof(err), 0), 3);	/* no provider was traced */
	T_EXPECT(ended(id));
}

/*
 * A snapshot a trigger asked for that could not be written (its name is
 * a directory's): the session goes on, and its trace is not what was
 * asked, exit 8.  A device as the output is written in place, and stays
 * one.
 */
static void trigger_snapshot_failure_is_an_error(void)
{
	const char *rec[] = { "tracebufctl", "record", "--detach", "-q", "-m", "circular",
			      "-b", "64K", "--trigger", "boom:snapshot", "-o", path("f.fxt"),
			      NULL };
	const char *null[] = { "tracebufctl", "record", "-q", "-d", "1s", "-o", "/dev/null",
			       "--best-effort", NULL };
	static char out[4096], err[4096];
	unsigned int events, infos;
	char idstr[16];
	struct stat st;
	int id;

	T_ASSERT_EQ(mkdir(path("f.snapshot-1.fxt"), 0755), 0);
	id = detach(rec);
	T_ASSERT(id > 0);
	snprintf(idstr, sizeof(idstr), "%d", id);
	T_ASSERT_EQ(run((const char *[]){ "tracebuf-example", "-n", "200", "-w", "100", NULL },
			out, sizeof(out), NULL, 0, 0), 0);
	T_ASSERT_EQ(run((const char *[]){ "tracebufctl", "alert", "boom", NULL }, out,
			sizeof(out), NULL, 0, 0), 0);
	T_EXPECT_EQ(run((const char *[]){ "tracebufctl", "stop", idstr, NULL }, NULL, 0, err,
			sizeof(err), 0), 8);
	printf("# %s", err);
	T_EXPECT(strstr(err, "f.snapshot-1.fxt: is a directory") != NULL);
	T_EXPECT(strstr(err, "warning: 1 of the snapshots the triggers asked for failed") != NULL);
	T_EXPECT(ended(id));
	T_ASSERT_EQ(count_events(path("f.fxt"), &events, &infos), 0);
	T_EXPECT(events > 100);
	rmdir(path("f.snapshot-1.fxt"));

	T_EXPECT_EQ(run(null, NULL, 0, err, sizeof(err), 0), 0);
	T_EXPECT(!stat("/dev/null", &st) && S_ISCHR(st.st_mode));
}

static const struct t_test tests[] = {
	T_TEST(detach_status_stop),
	T_TEST(alert_from_the_command_line),
	T_TEST(trace_on_stdout),
	T_TEST(gzip_round_trip),
	T_TEST(max_size_stops_streaming),
	T_TEST(max_size_rotates_files),
	T_TEST(snapshots_of_a_running_session),
	T_TEST(snapshot_refused_when_streaming),
	T_TEST(trigger_snapshot_failure_is_an_error),
};

VMTEST_MAIN(tests)
