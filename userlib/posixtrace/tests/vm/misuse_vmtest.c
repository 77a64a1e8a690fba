// SPDX-License-Identifier: MIT
/*
 * libposixtrace's trace ids misused, in the test VM with the module
 * loaded: every function that takes a trace_id_t, called with an id that
 * was never returned (garbage), with the id of a stream or log that is
 * gone (stale), and, from a child of fork(), with its parent's ids
 * (foreign; posix_trace_create(3p): "these functions shall return with
 * the error [EINVAL]").  Each call must return EINVAL, crash nothing,
 * hang nothing, and leave every other stream as it was: the streams that
 * are still there record, stop and shut down, and their logs hold every
 * event.
 */
#define _GNU_SOURCE
#include "ktap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <trace.h>
#include <tracebuf_manager.h>

#include "ptvm.h"

/* Seconds one misused call may take before it counts as a hang. */
#define CALL_TIMEOUT	10

/* ---------------------------------------------------------------------- */
/* Every function that takes a trace id, with valid other arguments       */

static int call_trid_eventid_open(trace_id_t trid)
{
	trace_event_id_t id;

	return posix_trace_trid_eventid_open(trid, "misuse", &id);
}

static int call_set_filter(trace_id_t trid)
{
	trace_event_set_t set;

	posix_trace_eventset_empty(&set);
	return posix_trace_set_filter(trid, &set, POSIX_TRACE_SET_EVENTSET);
}

static int call_get_filter(trace_id_t trid)
{
	trace_event_set_t set;

	return posix_trace_get_filter(trid, &set);
}

static int call_getnext(trace_id_t trid)
{
	struct posix_trace_event_info info;
	int unavailable;
	char data[64];
	size_t len;

	return posix_trace_getnext_event(trid, &info, data, sizeof(data), &len, &unavailable);
}

static int call_timedgetnext(trace_id_t trid)
{
	struct posix_trace_event_info info;
	struct timespec abstime;
	int unavailable;
	char data[64];
	size_t len;

	clock_gettime(CLOCK_REALTIME, &abstime);
	abstime.tv_sec += 1;
	return posix_trace_timedgetnext_event(trid, &info, data, sizeof(data), &len,
					      &unavailable, &abstime);
}

static int call_trygetnext(trace_id_t trid)
{
	struct posix_trace_event_info info;
	int unavailable;
	char data[64];
	size_t len;

	return posix_trace_trygetnext_event(trid, &info, data, sizeof(data), &len, &unavailable);
}

static int call_eventid_get_name(trace_id_t trid)
{
	char name[TRACE_EVENT_NAME_MAX + 1];

	return posix_trace_eventid_get_name(trid, POSIX_TRACE_START, name);
}

static int call_eventtypelist_getnext_id(trace_id_t trid)
{
	trace_event_id_t id;
	int unavailable;

	return posix_trace_eventtypelist_getnext_id(trid, &id, &unavailable);
}

static int call_get_attr(trace_id_t trid)
{
	trace_attr_t attr;

	return posix_trace_get_attr(trid, &attr);
}

static int call_get_status(trace_id_t trid)
{
	struct posix_trace_status_info st;

	return posix_trace_get_status(trid, &st);
}

struct call {
	const char *name;
	int (*fn)(trace_id_t trid);
};

#define CALL(fn)	{ #fn, fn }
#define CALL_PT(fn)	{ "posix_trace_" #fn, posix_trace_##fn }

/*
 * The functions whose manual pages list EINVAL for an invalid trace id
 * (posix_trace_eventid_equal() has no error to return), those that end
 * a trace last.
 */
static const struct call calls[] = {
	CALL(call_trid_eventid_open),
	CALL(call_set_filter),
	CALL(call_get_filter),
	CALL(call_getnext),
	CALL(call_timedgetnext),
	CALL(call_trygetnext),
	CALL(call_eventid_get_name),
	CALL(call_eventtypelist_getnext_id),
	CALL_PT(eventtypelist_rewind),
	CALL_PT(rewind),
	CALL(call_get_attr),
	CALL(call_get_status),
	CALL_PT(start),
	CALL_PT(stop),
	CALL_PT(flush),
	CALL_PT(clear),
	CALL_PT(shutdown),
	CALL_PT(close),
};

#define NCALLS	(sizeof(calls) / sizeof(calls[0]))

/*
 * What each call takes, in the order of calls[]: an active stream only
 * (S), a log only (L), or either (B).  A stream with a log is read
 * through its log, so that posix_trace_getnext_event() takes a stream
 * without a log or a log.
 */
static const char kinds[] = "SSSBSSBBBLBBSSSSSL";

_Static_assert(sizeof(kinds) == NCALLS + 1, "a kind for each call");

/* Each call with @trid, here: each returns EINVAL, none hangs. */
static void expect_einval_here(trace_id_t trid, const char *what)
{
	for (size_t i = 0; i < NCALLS; i++) {
		int ret;

		alarm(CALL_TIMEOUT);
		ret = calls[i].fn(trid);
		alarm(0);
		if (ret != EINVAL)
			T_FAIL("%s(%s id %d) returned %d (%s), not EINVAL", calls[i].name, what,
			       (int)trid, ret, strerror(ret));
	}
}

/*
 * Each call with @trid, each from a child of its own (the id is
 * foreign there): each child's call returns EINVAL, and no child
 * crashes or hangs.
 */
static void expect_einval_in_children(trace_id_t trid, const char *what)
{
	for (size_t i = 0; i < NCALLS; i++) {
		int status;
		pid_t pid;

		fflush(stdout);
		pid = fork();
		T_ASSERT(pid >= 0);
		if (pid == 0) {
			int ret;

			alarm(CALL_TIMEOUT);
			ret = calls[i].fn(trid);
			/* 0: EINVAL; 255: 0, success; else the error */
			_exit(ret == EINVAL ? 0 : ret > 0 && ret < 255 ? ret : 255);
		}
		T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
		if (WIFSIGNALED(status))
			T_FAIL("%s(%s id %d) in a child: killed by signal %d%s", calls[i].name,
			       what, (int)trid, WTERMSIG(status),
			       WTERMSIG(status) == SIGALRM ? " (it hung)" : "");
		else if (WEXITSTATUS(status) == 255)
			T_FAIL("%s(%s id %d) in a child returned 0, not EINVAL", calls[i].name,
			       what, (int)trid);
		else if (WEXITSTATUS(status))
			T_FAIL("%s(%s id %d) in a child returned %d (%s), not EINVAL",
			       calls[i].name, what, (int)trid, WEXITSTATUS(status),
			       strerror(WEXITSTATUS(status)));
	}
}

/* ---------------------------------------------------------------------- */
/* Streams that must not notice                                           */

/* Events of type @id in the log on @fd, with data 0, 1, ... in order: how many. */
static size_t log_count_in_order(int fd, trace_event_id_t id)
{
	trace_id_t trid;
	uint64_t next = 0;

	T_CHECK_EQ(t_log_open(fd, &trid), 0, return 0);
	for (;;) {
		struct posix_trace_event_info info;
		uint64_t data = 0;
		int unavailable;
		size_t len;

		if (posix_trace_getnext_event(trid, &info, &data, sizeof(data), &len,
					      &unavailable) || unavailable)
			break;
		if (info.posix_event_id != id)
			continue;
		if (len != sizeof(data) || data != next) {
			T_FAIL("event %llu of the log has data %llu",
			       (unsigned long long)next, (unsigned long long)data);
			break;
		}
		next++;
	}
	T_EXPECT_EQ(posix_trace_close(trid), 0);
	return (size_t)next;
}

/* @n events of type @id, numbered from *@next on. */
static void record(trace_event_id_t id, uint64_t *next, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++, (*next)++)
		posix_trace_event(id, next, sizeof(*next));
}

/*
 * This process's stream @trid, with its log on @fd, records what it did
 * before (@next events of type @id) and more, stops and shuts down in
 * time, and its log holds them all.
 */
static void stream_still_works(trace_id_t trid, int fd, trace_event_id_t id, uint64_t next)
{
	struct posix_trace_status_info st;

	T_EXPECT_EQ(posix_trace_get_status(trid, &st), 0);
	T_EXPECT_EQ(st.posix_stream_status, POSIX_TRACE_RUNNING);
	record(id, &next, 100);
	alarm(CALL_TIMEOUT);
	T_EXPECT_EQ(posix_trace_stop(trid), 0);
	T_EXPECT_EQ(posix_trace_shutdown(trid), 0);
	alarm(0);
	T_EXPECT_EQ(log_count_in_order(fd, id), next);
}

/* ---------------------------------------------------------------------- */

/* ids that were never returned, beside a running stream */
static void garbage_ids_are_einval(void)
{
	static const trace_id_t garbage[] = {
		0, -1, INT_MIN, INT_MAX, TRACE_SYS_MAX + 1, 2 * TRACE_SYS_MAX, 4096,
	};
	int fd = log_fd();
	trace_event_id_t id;
	trace_id_t trid;
	uint64_t next = 0;

	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("misuse", &id), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	record(id, &next, 100);
	for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		if (garbage[i] == trid)
			continue;
		expect_einval_here(garbage[i], "garbage");
		/* its page defines no error: it compares the ids, whatever trid is */
		T_EXPECT(posix_trace_eventid_equal(garbage[i], id, id));
		T_EXPECT(!posix_trace_eventid_equal(garbage[i], id, id + 1));
	}
	stream_still_works(trid, fd, id, next);
	close(fd);
}

/*
 * The id of a stream that was shut down, and of a log that was closed,
 * stays EINVAL when another stream or log takes its place, and does not
 * reach the new one.
 */
static void stale_ids_are_einval(void)
{
	int fd = log_fd(), old_fd = log_fd();
	trace_id_t old_stream, old_log, trid, log;
	trace_event_id_t id;
	uint64_t next = 0;

	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, old_fd, &old_stream), 0);
	T_ASSERT_EQ(posix_trace_shutdown(old_stream), 0);
	T_ASSERT_EQ(t_log_open(old_fd, &old_log), 0);
	T_ASSERT_EQ(posix_trace_close(old_log), 0);
	/* their places taken */
	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid), 0);
	T_ASSERT_EQ(t_log_open(old_fd, &log), 0);
	T_EXPECT(trid != old_stream && trid != old_log);
	T_EXPECT(log != old_stream && log != old_log);
	T_ASSERT_EQ(posix_trace_eventid_open("misuse", &id), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	record(id, &next, 100);
	expect_einval_here(old_stream, "stale stream");
	expect_einval_here(old_log, "stale log");
	/* the log that took a place is whole */
	T_EXPECT_EQ(call_eventtypelist_getnext_id(log), 0);
	T_EXPECT_EQ(posix_trace_close(log), 0);
	stream_still_works(trid, fd, id, next);
	close(fd);
	close(old_fd);
}

/*
 * A child's use of its parent's ids: a running stream with a log, a
 * stream to be read on-line (of the test's parent), and a log.  Every call is EINVAL in the
 * child, and the parent's streams record on, stop and shut down.
 */
static void parent_ids_are_einval_in_a_child(void)
{
	int fd = log_fd(), old_fd = log_fd();
	trace_id_t trid, online, log;
	trace_event_id_t id;
	uint64_t next = 0;

	/* a log to open */
	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, old_fd, &trid), 0);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	T_ASSERT_EQ(t_log_open(old_fd, &log), 0);

	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid), 0);
	/* of another process: two streams of one process share its events */
	T_ASSERT_EQ(posix_trace_create(getppid(), NULL, &online), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("misuse", &id), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	record(id, &next, 100);
	expect_einval_in_children(trid, "parent's stream");
	expect_einval_in_children(online, "parent's on-line stream");
	expect_einval_in_children(log, "parent's log");
	T_EXPECT_EQ(call_get_attr(log), 0);
	T_EXPECT_EQ(posix_trace_close(log), 0);
	alarm(CALL_TIMEOUT);
	T_EXPECT_EQ(posix_trace_stop(online), 0);
	T_EXPECT_EQ(posix_trace_shutdown(online), 0);
	alarm(0);
	stream_still_works(trid, fd, id, next);
	close(fd);
	close(old_fd);
}

/*
 * A child that lives on, with copies of every file its parent had when
 * it forked, keeps none of its parent's streams: the parent shuts its
 * stream down in time, and a new stream of the parent's records.
 */
static void child_that_lives_on_keeps_no_stream(void)
{
	int fd = log_fd(), fd2 = log_fd(), ready[2];
	trace_event_id_t id;
	trace_id_t trid;
	uint64_t next = 0;
	pid_t pid;
	char b;

	T_ASSERT_EQ(pipe(ready), 0);
	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("misuse", &id), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	record(id, &next, 100);
	fflush(stdout);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		close(ready[0]);
		if (write(ready[1], "r", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	close(ready[1]);
	T_ASSERT_EQ(read(ready[0], &b, 1), 1);
	stream_still_works(trid, fd, id, next);
	/* the child still lives: a new stream of this process */
	next = 0;
	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, fd2, &trid), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	record(id, &next, 100);
	stream_still_works(trid, fd2, id, next);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(ready[0]);
	close(fd);
	close(fd2);
}

/*
 * A log's id where a function takes an active stream, and a stream's
 * where it takes a log: EINVAL, as their manual pages say ("does not
 * correspond to an active trace stream", "to a valid trace log"), and
 * the stream and the log are as they were.
 */
static void wrong_kind_ids_are_einval(void)
{
	int fd = log_fd(), old_fd = log_fd();
	trace_id_t trid, log;
	trace_event_id_t id;
	uint64_t next = 0;

	/* a log of 100 events */
	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, old_fd, &trid), 0);
	T_ASSERT_EQ(posix_trace_eventid_open("misuse", &id), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	record(id, &next, 100);
	T_ASSERT_EQ(posix_trace_shutdown(trid), 0);
	T_ASSERT_EQ(t_log_open(old_fd, &log), 0);

	next = 0;
	T_ASSERT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid), 0);
	T_ASSERT_EQ(posix_trace_start(trid), 0);
	record(id, &next, 100);
	for (size_t i = 0; i < NCALLS; i++) {
		trace_id_t wrong = kinds[i] == 'S' ? log : kinds[i] == 'L' ? trid : 0;
		int ret;

		if (!wrong)
			continue;
		alarm(CALL_TIMEOUT);
		ret = calls[i].fn(wrong);
		alarm(0);
		if (ret != EINVAL)
			T_FAIL("%s(the %s's id) returned %d (%s), not EINVAL", calls[i].name,
			       kinds[i] == 'S' ? "log" : "stream", ret, strerror(ret));
	}
	/* the log still reads whole, and closes */
	T_EXPECT_EQ(log_count_in_order(old_fd, id), 100);
	T_EXPECT_EQ(call_get_attr(log), 0);
	T_EXPECT_EQ(posix_trace_close(log), 0);
	stream_still_works(trid, fd, id, next);
	close(fd);
	close(old_fd);
}

/* Providers named posix_trace.* registered now. */
static int posix_providers(void)
{
	struct tracebuf_provider_info *list = NULL;
	struct tracebuf_manager *m;
	int n, found = 0;

	T_CHECK_EQ(tracebuf_manager_open(NULL, 0, &m), 0, return -1);
	n = tracebuf_manager_list(m, &list);
	for (int i = 0; i < n; i++)
		if (!strncmp((const char *)list[i].name, "posix_trace.", 12))
			found++;
	free(list);
	tracebuf_manager_close(m);
	return found;
}

/* Providers named posix_trace.* once none is (at most 5 s later). */
static int posix_providers_settled(void)
{
	int n = -1;

	for (int i = 0; i < 500 && n; i++) {
		n = posix_providers();
		if (n)
			usleep(10000);
	}
	return n;
}

/*
 * posix-trace-example whose controller fails (its log cannot be
 * created) leaves neither its target process nor the target's provider
 * behind.
 */
static void failed_example_leaves_no_provider(void)
{
	char example[4200], cmd[9000];
	int status;

	beside(example, sizeof(example), "posix-trace-example");
	T_ASSERT_EQ(access(example, X_OK), 0);
	/* the earlier tests' processes are gone */
	T_ASSERT_EQ(posix_providers_settled(), 0);
	snprintf(cmd, sizeof(cmd), "%s -n 10 -o /proc/no-such-dir/log.fxt 2>/dev/null", example);
	alarm(CALL_TIMEOUT);
	status = system(cmd);
	alarm(0);
	T_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 2);
	T_EXPECT_EQ(posix_providers_settled(), 0);
}

static const struct t_test tests[] = {
	T_TEST(garbage_ids_are_einval),
	T_TEST(stale_ids_are_einval),
	T_TEST(wrong_kind_ids_are_einval),
	T_TEST(parent_ids_are_einval_in_a_child),
	T_TEST(child_that_lives_on_keeps_no_stream),
	T_TEST(failed_example_leaves_no_provider),
};

T_MAIN(tests)
