// SPDX-License-Identifier: MIT
/*
 * libposixtrace when the process that made a stream ends without
 * shutting it down, in the test VM with the module loaded.
 * posix_trace_create(3p): its streams "shall be automatically shut down
 * as if an explicit call were made to the posix_trace_shutdown()
 * function", which writes what a stream with a log holds to its log: the
 * log then has every event recorded, and the STOP of the shutdown.  A
 * process that ends by _exit() or by a signal runs nothing of its own:
 * the stream's keeper, a process of the library's, writes what the
 * buffers held and the STOP then, and ends.  The tests are the keepers'
 * subreaper: they wait until every process the child left has ended
 * (none lingers) before they read the log.
 */
#define _GNU_SOURCE
#include "ktap.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace.h>

#include "ptvm.h"

#define N_EVENTS	100
/* events of a child that saves halves of its buffer (1 MiB) meanwhile */
#define N_MANY		30000u

enum how {
	BY_EXIT, BY_EXIT_LATER, BY_EXIT_STOPPED, BY_EXIT_ONLINE, BY__EXIT, BY_SIGKILL,
	BY_SIGSEGV,
	/* POSIX_TRACE_INHERITED: a child of its records, then it is killed */
	BY_SIGKILL_AFTER_CHILD,
	/* killed as it wrote to its log: the start of a record, not the rest */
	BY_SIGKILL_IN_A_WRITE,
	/* exec() of a program that knows nothing of the stream */
	BY_EXEC,
};

/* the log of the child of child_ends(), -1: none */
static int child_log = -1;

/*
 * Wait until every process left to this one (a subreaper) has ended: a
 * keeper that read out, or one retired.  Returns false if one is still
 * there after 20 s.
 */
static bool no_process_left(void)
{
	double end = t_now() + 20;

	while (t_now() < end) {
		pid_t p = waitpid(-1, NULL, WNOHANG);

		if (p < 0 && errno == ECHILD)
			return true;
		if (p <= 0)
			usleep(10 * 1000);
	}
	return false;
}

/* The events of a child, numbered from 0, then how it ends. */
static void post_and_end(trace_id_t trid, trace_event_id_t id, uint64_t n, enum how how)
{
	struct rlimit none = { 0, 0 };

	for (uint64_t i = 0; i < n; i++) {
		posix_trace_event(id, &i, sizeof(i));
		/* many: at the pace the emulated guest saves halves, losing none */
		if (i % 500 == 499)
			usleep(5 * 1000);
	}
	if (how == BY_EXIT_LATER)
		usleep(300 * 1000);
	if (how == BY_EXIT_STOPPED && posix_trace_stop(trid))
		_exit(3);
	if (how == BY__EXIT)
		_exit(0);
	if (how == BY_SIGKILL_IN_A_WRITE) {
		/* an event record's header that says 4 words, and 1 of them */
		const uint64_t torn[2] = { 4u << 4 | 4, 0x7878787878787878ull };

		if (write(child_log, torn, sizeof(torn)) != (ssize_t)sizeof(torn))
			_exit(5);
		raise(SIGKILL);
	}
	if (how == BY_EXEC) {
		execl("/bin/sh", "sh", "-c", "exit 0", (char *)NULL);
		_exit(6);
	}
	if (how == BY_SIGKILL)
		raise(SIGKILL);
	if (how == BY_SIGSEGV) {
		/* no core file: the guest's directory is read-only */
		setrlimit(RLIMIT_CORE, &none);
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
	}
	exit(0);
}

/*
 * A child makes a stream of itself (with its log on @fd, unless
 * BY_EXIT_ONLINE), records @n events numbered 0, 1, ... and ends @how,
 * without posix_trace_shutdown().  Returns its wait status, once every
 * process it left ended (else -1).
 */
static int child_ends(int fd, enum how how, uint64_t n)
{
	int status;
	pid_t pid;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		trace_attr_t attr;
		trace_event_id_t id;
		trace_id_t trid;
		pid_t kid;
		int ret;

		alarm(30);
		child_log = fd;
		if (posix_trace_attr_init(&attr))
			_exit(2);
		if (how == BY_SIGKILL_AFTER_CHILD &&
		    posix_trace_attr_setinherited(&attr, POSIX_TRACE_INHERITED))
			_exit(2);
		ret = how == BY_EXIT_ONLINE ? posix_trace_create(0, &attr, &trid) :
		      posix_trace_create_withlog(0, &attr, fd, &trid);
		if (ret || posix_trace_eventid_open("exit", &id) || posix_trace_start(trid))
			_exit(2);
		if (how != BY_SIGKILL_AFTER_CHILD)
			post_and_end(trid, id, n, how);
		kid = fork();
		if (kid == 0)
			post_and_end(trid, id, n, BY__EXIT);
		if (kid < 0 || waitpid(kid, &ret, 0) != kid || !WIFEXITED(ret))
			_exit(4);
		raise(SIGKILL);
	}
	if (waitpid(pid, &status, 0) != pid || !no_process_left())
		return -1;
	return status;
}

struct log_seen {
	size_t events;		/* "exit" events, numbered in order */
	bool in_order;
	bool stop_last;		/* a STOP after the last of them */
	bool opened;
};

static struct log_seen read_log(int fd, uint64_t n)
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
			s.stop_last = s.events == n;
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

/* Ended by @how, with a log: all @n events in it, then the STOP. */
static void expect_whole_log(enum how how, uint64_t n)
{
	int fd = log_fd(), status = child_ends(fd, how, n);
	struct log_seen s;

	T_ASSERT(status != -1);
	switch (how) {
	case BY_SIGKILL:
	case BY_SIGKILL_AFTER_CHILD:
	case BY_SIGKILL_IN_A_WRITE:
		T_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		break;
	case BY_SIGSEGV:
		T_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
		break;
	default:
		T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	s = read_log(fd, n);
	T_EXPECT(s.opened);
	T_EXPECT_EQ(s.events, n);
	T_EXPECT(s.in_order);
	T_EXPECT(s.stop_last);
	close(fd);
}

/* exit() right after the events */
static void exit_writes_the_log(void)
{
	expect_whole_log(BY_EXIT, N_EVENTS);
}

/* exit() 300 ms after them */
static void exit_later_writes_the_log(void)
{
	expect_whole_log(BY_EXIT_LATER, N_EVENTS);
}

/* exit() with the stream stopped: the stop wrote the events, once */
static void exit_of_a_stopped_stream(void)
{
	expect_whole_log(BY_EXIT_STOPPED, N_EVENTS);
}

/* a stream read on-line has nothing to write: exit() ends at once */
static void exit_with_an_online_stream(void)
{
	double t0 = t_now();
	int status = child_ends(-1, BY_EXIT_ONLINE, N_EVENTS);

	T_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	T_EXPECT(t_now() - t0 < 10);
}

/* _exit() runs nothing of the process's: the keeper writes the log */
static void _exit_writes_the_log(void)
{
	expect_whole_log(BY__EXIT, N_EVENTS);
}

/* killed: the buffers outlive it, the keeper writes them */
static void sigkill_writes_the_log(void)
{
	expect_whole_log(BY_SIGKILL, N_EVENTS);
}

/* a fault that kills it */
static void sigsegv_writes_the_log(void)
{
	expect_whole_log(BY_SIGSEGV, N_EVENTS);
}

/* killed after halves of its buffer were saved: each event once */
static void sigkill_after_saves_writes_the_log(void)
{
	expect_whole_log(BY_SIGKILL, N_MANY);
}

/* killed after a child in its stream posted and ended */
static void sigkill_after_a_child_writes_the_log(void)
{
	expect_whole_log(BY_SIGKILL_AFTER_CHILD, N_EVENTS);
}

/*
 * killed as it wrote to its log, a record begun: the keeper writes the
 * log again from where it stood when the keeper was made
 */
static void sigkill_in_a_write_writes_the_log(void)
{
	expect_whole_log(BY_SIGKILL_IN_A_WRITE, N_EVENTS);
}

/* exec() runs nothing of the process's either: the keeper writes the log */
static void exec_writes_the_log(void)
{
	expect_whole_log(BY_EXEC, N_EVENTS);
}

static const struct t_test tests[] = {
	T_TEST(exit_writes_the_log),
	T_TEST(exit_later_writes_the_log),
	T_TEST(exit_of_a_stopped_stream),
	T_TEST(exit_with_an_online_stream),
	T_TEST(_exit_writes_the_log),
	T_TEST(sigkill_writes_the_log),
	T_TEST(sigsegv_writes_the_log),
	T_TEST(sigkill_after_saves_writes_the_log),
	T_TEST(sigkill_after_a_child_writes_the_log),
	T_TEST(sigkill_in_a_write_writes_the_log),
	T_TEST(exec_writes_the_log),
};

T_MAIN(tests)
