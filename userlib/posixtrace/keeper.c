// SPDX-License-Identifier: MIT
/*
 * libposixtrace: the keeper of a running stream with a log, which shuts
 * the stream down when its controller process dies without doing so.
 *
 * posix_trace_create(3p): a stream its process did not shut down "shall
 * be automatically shut down as if an explicit call were made to the
 * posix_trace_shutdown() function", which writes what the stream holds
 * to its log.  exit() does that (stream.c); _exit(), a death by a signal
 * and exec*() run nothing of the process's.  The buffers outlive it (the
 * module frees them with their last file), and so does the log: a
 * keeper, a process of its own, holds both, and the stream's state.
 *
 * A keeper is a copy of the controller made by fork() while the stream's
 * lock is held: its session is the stream's as it was then.  It closes
 * every file but the session's (tracebuf_session_forked(): its manager
 * file, the log, the buffers' handles), a pidfd of the controller and its
 * end of a socket, and waits.  A byte on it retires it: the stream
 * changed (pt_keeper_sync()), a newer keeper took its place, or the
 * stream stopped or was shut down.  The controller gone (its pidfd
 * readable, or the socket at its end: an exec closed it), it reads what
 * the session's providers left, as a shutdown would (the providers of a
 * process that died are read out as their file closed: MSG_GONE), writes
 * the POSIX_TRACE_STOP, and ends.
 *
 * The stream's session changes (a provider joined, started, stopped or
 * died, a rolling buffer was saved; start, stop, flush, clear, a new
 * filter) only in the controller's calls and its stream thread, each
 * under the stream's lock, at the end of which the keeper is made again
 * if it is stale: never on posix_trace_event()'s path.  A keeper takes
 * over from the state it copied.  What the controller did after it, the
 * keeper does again: it cuts the log back to where it ended at the copy
 * (a write that the controller's death cut short leaves no torn record),
 * and the rolling buffers saved since were not given back to their
 * providers yet (libtracebuf holds their BUFFER_SAVED until the keeper is
 * made again: TRACEBUF_LIB_SESSION_HOLD_SAVED), so their data are still
 * there to save; nor was a provider that joined since (an inheriting
 * child) started, so it wrote nothing this keeper cannot read.  Not so
 * a LOOP log's oldest parts dropped since (logfull.c): a death during
 * that leaves the log as it was moved.  Of two keepers that see the
 * controller die, the one made last reads out (the stream's generation,
 * in memory they share); the other ends.
 *
 * A keeper is the controller's grandchild: its child forks it and exits
 * at once, so that no wait() of the controller's sees it and it is
 * nobody's zombie (init, or the nearest subreaper, reaps it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "posixtrace_priv.h"


/* the files a keeper keeps of its session: manager, log, buffers */
#define PT_KEEPER_FILES		64
/*
 * How long a keeper may take to read out: a live provider of the stream
 * (a child that inherited it) answers its STOP within libtracebuf's stop
 * timeout.  Past it the keeper is killed (SIGALRM): none lingers.
 */
#define PT_KEEPER_TIMEOUT_S	90

static int pt_int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Close every file but the @n in @keep (sorted here). */
static void pt_close_others(int *keep, int n)
{
	unsigned int from = 0;

	qsort(keep, (size_t)n, sizeof(*keep), pt_int_cmp);
	for (int i = 0; i < n; i++) {
		if (keep[i] < 0 || (unsigned int)keep[i] < from)
			continue;
		if ((unsigned int)keep[i] > from)
			close_range(from, (unsigned int)keep[i] - 1, 0);
		from = (unsigned int)keep[i] + 1;
	}
	close_range(from, ~0u, 0);
}

/*
 * The keeper: wait until the controller is gone or the keeper retired;
 * then, if it is the stream's newest, shut the stream down.
 */
static _Noreturn void pt_keeper_run(struct pt_trace *t, int pidfd, int ctl, uint32_t gen,
				    off_t log_end)
{
	struct pollfd pfd[2] = {
		{ .fd = ctl, .events = POLLIN },
		{ .fd = pidfd, .events = POLLIN },
	};
	int keep[PT_KEEPER_FILES + 2];
	int n = tracebuf_session_forked(t->session, keep, PT_KEEPER_FILES);
	sigset_t all;
	char byte;

	if (n < 0 || n > PT_KEEPER_FILES)
		_exit(1);
	keep[n++] = ctl;
	keep[n++] = pidfd;
	pt_close_others(keep, n);
	/* not the terminal's: a ^C that kills the controller spares it */
	setsid();
	signal(SIGALRM, SIG_DFL);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	while (poll(pfd, pidfd >= 0 ? 2 : 1, -1) < 0)
		if (errno != EINTR)
			_exit(1);
	/* retired: a byte (the controller may be gone by now, all the same) */
	if (read(ctl, &byte, 1) == 1)
		_exit(0);
	if (__atomic_load_n(t->keeper_gen, __ATOMIC_ACQUIRE) != gen)
		_exit(0);
	alarm(PT_KEEPER_TIMEOUT_S);
	/*
	 * What the controller wrote since this copy of it was made, the keeper
	 * writes again: a write that its death cut short leaves no torn record
	 * behind.
	 */
	if (log_end >= 0)
		pt_log_cut(t, (uint64_t)log_end);
	/* the providers that died with it first: their data, as they left it */
	while (tracebuf_session_dispatch(t->session) > 0)
		;
	if (t->running && !pt_stream_stop(t) && !pt_online_until_full(t))
		pt_system_event(t, POSIX_TRACE_STOP, 0, NULL, 0);
	pt_errors_record(t);
	tracebuf_session_destroy(t->session);
	_exit(0);
}

/* Retire @t's keeper, if it has one. */
static void pt_keeper_retire(struct pt_trace *t)
{
	char byte = 0;

	if (t->keeper_fd < 0)
		return;
	/* a keeper that ended already (it could not map a buffer) is no matter */
	send(t->keeper_fd, &byte, 1, MSG_NOSIGNAL);
	close(t->keeper_fd);
	t->keeper_fd = -1;
}

/* Make @t a new keeper (0), retiring the old one; EAGAIN or ENOMEM. */
static int pt_keeper_make(struct pt_trace *t)
{
	int ctl[2], pidfd, status = 0;
	off_t log_end;
	uint32_t gen;
	pid_t mid, got;

	if (!t->keeper_gen) {
		void *p = mmap(NULL, sizeof(*t->keeper_gen), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return ENOMEM;
		t->keeper_gen = p;
	}
	/* a socket, not a pipe: no SIGPIPE; the keeper's end does not block */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, ctl))
		return EAGAIN;
	/* -1 before Linux 5.3: the socket alone tells then */
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	gen = __atomic_load_n(t->keeper_gen, __ATOMIC_RELAXED) + 1;
	/* where the session's writes end now (-1: a pipe, which cannot be cut) */
	log_end = lseek(t->log_fd, 0, SEEK_CUR);
	pt_table_keeper_fork(true);
	mid = fork();
	if (mid == 0) {
		/* one thread here: _Fork() runs no fork handler a second time */
		pid_t k = _Fork();

		if (k == 0)
			pt_keeper_run(t, pidfd, ctl[0], gen, log_end);
		_exit(k < 0);
	}
	pt_table_keeper_fork(false);
	close(ctl[0]);
	if (pidfd >= 0)
		close(pidfd);
	if (mid < 0) {
		close(ctl[1]);
		return EAGAIN;
	}
	do
		got = waitpid(mid, &status, 0);
	while (got < 0 && errno == EINTR);
	/* reaped by a handler of the caller's first (ECHILD): taken as made */
	if (got == mid && !(WIFEXITED(status) && !WEXITSTATUS(status))) {
		close(ctl[1]);
		return EAGAIN;
	}
	/* from now on the new one reads out, not the old one */
	__atomic_store_n(t->keeper_gen, gen, __ATOMIC_RELEASE);
	pt_keeper_retire(t);
	t->keeper_fd = ctl[1];
	return 0;
}

void pt_keeper_sync(struct pt_trace *t)
{
	bool want = t->has_log && t->running && !t->dying && t->session;

	if (!want) {
		pt_keeper_retire(t);
		t->keeper_stale = false;
		return;
	}
	if (t->keeper_fd >= 0 && !t->keeper_stale)
		return;
	/* without one (no memory, no process), a death loses the buffers */
	if (!pt_keeper_make(t))
		t->keeper_stale = false;
}

void pt_keeper_free(struct pt_trace *t)
{
	pt_keeper_retire(t);
	if (t->keeper_gen)
		munmap(t->keeper_gen, sizeof(*t->keeper_gen));
	t->keeper_gen = NULL;
}
