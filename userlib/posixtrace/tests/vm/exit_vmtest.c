// SPDX-License-Identifier: MIT
/*
 * libposixtrace when the process that made a stream ends without
 * shutting it down, in the test VM with the module loaded.
 * posix_trace_create(3p): its streams "shall be automatically shut down
 * as if an explicit call were made to the posix_trace_shutdown()
 * function", which writes what a stream with a log holds to its log: the
 * log then has every event recorded, and the STOP of the shutdown.  A
 * process that ends by _exit() runs nothing of its own: its log stays
 * what it was, and still opens.
 */
#define _GNU_SOURCE
#include "ktap.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace.h>

#include "ptvm.h"

#define N_EVENTS	100

enum how { BY_EXIT, BY_EXIT_LATER, BY_EXIT_STOPPED, BY_EXIT_ONLINE, BY__EXIT };

/*
 * A child makes a stream of itself (with its log on @fd, unless
 * BY_EXIT_ONLINE), records N_EVENTS events numbered 0, 1, ... and ends
 * @how, without posix_trace_shutdown().  Returns its wait status.
 */
static int child_ends(int fd, enum how how)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		trace_event_id_t id;
		trace_id_t trid;
		int ret;

		alarm(30);
		ret = how == BY_EXIT_ONLINE ? posix_trace_create(0, NULL, &trid) :
		      posix_trace_create_withlog(0, NULL, fd, &trid);
		if (ret || posix_trace_eventid_open("exit", &id) || posix_trace_start(trid))
			_exit(2);
		for (uint64_t i = 0; i < N_EVENTS; i++)
			posix_trace_event(id, &i, sizeof(i));
		if (how == BY_EXIT_LATER)
			usleep(300 * 1000);
		if (how == BY_EXIT_STOPPED && posix_trace_stop(trid))
			_exit(3);
		if (how == BY__EXIT)
			_exit(0);
		exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

struct log_seen {
	size_t events;		/* "exit" events, numbered in order */
	bool in_order;
	bool stop_last;		/* a STOP after the last of them */
	bool opened;
};

static struct log_seen read_log(int fd)
{
	struct log_seen s = { .in_order = true };
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_id_t trid;

	if (t_log_open(fd, &trid))
		return s;
	s.opened = true;
	for (;;) {
		struct posix_trace_event_info info;
		uint64_t data = 0;
		int unavailable;
		size_t len;

		if (posix_trace_getnext_event(trid, &info, &data, sizeof(data), &len,
					      &unavailable) || unavailable)
			break;
		if (info.posix_event_id == POSIX_TRACE_STOP) {
			s.stop_last = s.events == N_EVENTS;
			continue;
		}
		if (posix_trace_eventid_get_name(trid, info.posix_event_id, name) ||
		    strcmp(name, "exit"))
			continue;
		if (len != sizeof(data) || data != s.events)
			s.in_order = false;
		s.events++;
	}
	posix_trace_close(trid);
	return s;
}

/* Ended by @how, with a log: every event in it, then the STOP. */
static void expect_whole_log(enum how how)
{
	int fd = log_fd(), status = child_ends(fd, how);
	struct log_seen s;

	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	s = read_log(fd);
	T_EXPECT(s.opened);
	T_EXPECT_EQ(s.events, N_EVENTS);
	T_EXPECT(s.in_order);
	T_EXPECT(s.stop_last);
	close(fd);
}

/* exit() right after the events */
static void exit_writes_the_log(void)
{
	expect_whole_log(BY_EXIT);
}

/* exit() 300 ms after them */
static void exit_later_writes_the_log(void)
{
	expect_whole_log(BY_EXIT_LATER);
}

/* exit() with the stream stopped: the stop wrote the events, once */
static void exit_of_a_stopped_stream(void)
{
	expect_whole_log(BY_EXIT_STOPPED);
}

/* a stream read on-line has nothing to write: exit() ends at once */
static void exit_with_an_online_stream(void)
{
	double t0 = t_now();
	int status = child_ends(-1, BY_EXIT_ONLINE);

	T_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	T_EXPECT(t_now() - t0 < 10);
}

/* _exit() runs nothing: the log is what was written before, and opens */
static void _exit_leaves_a_log_that_opens(void)
{
	int fd = log_fd(), status = child_ends(fd, BY__EXIT);
	struct log_seen s;

	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	s = read_log(fd);
	T_EXPECT(s.opened);
	T_EXPECT(s.in_order);
	close(fd);
}

static const struct t_test tests[] = {
	T_TEST(exit_writes_the_log),
	T_TEST(exit_later_writes_the_log),
	T_TEST(exit_of_a_stopped_stream),
	T_TEST(exit_with_an_online_stream),
	T_TEST(_exit_leaves_a_log_that_opens),
};

T_MAIN(tests)
