/* SPDX-License-Identifier: MIT */
/*
 * What libposixtrace's integration tests (tests/vm/NAME_vmtest.c)
 * share: a log file, a log opened once checked (padcheck.h), a program
 * beside the test's, and the wait for a stream to fill.  Include it
 * after ktap.h.
 */
#ifndef PTVM_H
#define PTVM_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace.h>

#include "padcheck.h"

/*
 * Every log a test makes is read by scripts/fxt-check.py too: log_fd()
 * keeps a file descriptor of its own on each, and when the process that
 * made them exits (a test's, ktap.h: with exit()), each that holds
 * anything goes to $TB_OUT as PROGRAM-PID-N.fxt, where vm-results.sh
 * reads every *.fxt, strings checked for UTF-8.
 */
#define PTVM_LOGS_MAX	64

struct ptvm_logs {
	pid_t pid;		/* of the process that made them */
	int n, fd[PTVM_LOGS_MAX];
};

static inline struct ptvm_logs *ptvm_logs(void)
{
	static struct ptvm_logs logs;

	return &logs;
}

static inline void ptvm_leave_log(int fd, const char *to)
{
	char buf[65536];
	off_t off = 0;
	ssize_t n;
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (out < 0)
		return;
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		if (write(out, buf, (size_t)n) != n)
			break;
		off += n;
	}
	close(out);
}

static inline void ptvm_leave_logs(void)
{
	struct ptvm_logs *l = ptvm_logs();
	const char *dir = getenv("TB_OUT");
	char to[4096];
	struct stat st;

	/* not in a child of fork() that exits */
	if (l->pid != getpid())
		return;
	for (int i = 0; i < l->n; i++) {
		if (dir && !fstat(l->fd[i], &st) && st.st_size > 0 &&
		    snprintf(to, sizeof(to), "%s/%s-%d-%d.fxt", dir, program_invocation_short_name,
			     (int)l->pid, i) < (int)sizeof(to))
			ptvm_leave_log(l->fd[i], to);
		close(l->fd[i]);
	}
	l->n = 0;
}

/* A log: an anonymous file, closed on exec. */
/* Have the log @fd (a file descriptor of its own) checked at exit too. */
static inline void ptvm_keep_log(int fd)
{
	struct ptvm_logs *l = ptvm_logs();

	if (l->pid != getpid()) {
		l->pid = getpid();
		l->n = 0;
		atexit(ptvm_leave_logs);
	}
	if (l->n < PTVM_LOGS_MAX) {
		int keep = fcntl(fd, F_DUPFD_CLOEXEC, 0);

		if (keep >= 0)
			l->fd[l->n++] = keep;
	}
}

static inline int log_fd(void)
{
	int fd = memfd_create("posix-log", MFD_CLOEXEC);

	if (fd < 0) {
		perror("memfd_create");
		exit(2);
	}
	ptvm_keep_log(fd);
	return fd;
}

/* posix_trace_open() of the log @fd, its padding checked first (padcheck.h) */
#define t_log_open(fd, trid) \
	(t_lean_check_fd(__FILE__, __LINE__, "the log", (fd)), posix_trace_open((fd), (trid)))

/* A program beside this one (check.sh puts them all in one directory). */
static inline void beside(char *path, size_t size, const char *prog)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	T_ASSERT(n > 0);
	self[n] = '\0';
	slash = strrchr(self, '/');
	T_ASSERT(slash != NULL);
	*slash = '\0';
	snprintf(path, size, "%s/%s", self, prog);
}

/*
 * Events of 8 bytes that overfill any small stream: more than the buffer
 * of a stream-min-size of 64 KiB holds (560 KiB: posix_trace(7) says why).
 */
#define PT_OVERFILL	20000u

/*
 * The status of a stream that filled: its provider reports the records it
 * dropped from its own thread, a moment after (on arm64's emulation, after
 * the next get_status); at most 5 s.  The first FULL comes with the
 * overrun that made it.
 */
static inline void wait_full(trace_id_t trid, struct posix_trace_status_info *st)
{
	for (int i = 0; i < 500; i++) {
		T_ASSERT_EQ(posix_trace_get_status(trid, st), 0);
		if (st->posix_stream_full_status == POSIX_TRACE_FULL)
			return;
		usleep(10000);
	}
}

/*
 * The status of @trid has stream status @running (-1: either), @overrun
 * and @full; a macro, so that a failure names the caller's line.
 */
#define T_EXPECT_STATUS(trid, running, overrun, full)					\
	do {										\
		struct posix_trace_status_info st_;					\
											\
		T_ASSERT_EQ(posix_trace_get_status((trid), &st_), 0);			\
		if ((running) >= 0)							\
			T_EXPECT_EQ(st_.posix_stream_status, (running));		\
		T_EXPECT_EQ(st_.posix_stream_overrun_status, (overrun));		\
		T_EXPECT_EQ(st_.posix_stream_full_status, (full));			\
	} while (0)

#endif /* PTVM_H */
