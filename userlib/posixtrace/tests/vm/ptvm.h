/* SPDX-License-Identifier: MIT */
/*
 * What libposixtrace's integration tests (tests/vm/NAME_vmtest.c)
 * share: a log file, a log opened once checked (padcheck.h), a program
 * beside the test's, and the wait for a stream to fill.  Include it
 * after ktap.h.
 */
#ifndef PTVM_H
#define PTVM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <trace.h>

#include "../../../tests/padcheck.h"

/* A log: an anonymous file, closed on exec. */
static inline int log_fd(void)
{
	int fd = memfd_create("posix-log", MFD_CLOEXEC);

	if (fd < 0) {
		perror("memfd_create");
		exit(2);
	}
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

#endif /* PTVM_H */
