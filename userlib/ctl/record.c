// SPDX-License-Identifier: MIT
/*
 * tracebufctl record: trace providers into an FXT file.
 *
 * record_parse() turns argv into a struct record_opts and does nothing
 * else (record_opts.c; tests/record_args_test.c drives it).  This file
 * runs the recording; record_ctl.c answers on its control socket and
 * record_summary.c says how it ended (record_priv.h).  record_run():
 *
 *   1. blocks SIGINT, SIGTERM, SIGHUP and SIGCHLD and reads them from a
 *      signalfd, so one poll() waits for the session and the signals;
 *   2. creates a temporary file beside the output (".NAME.XXXXXX");
 *   3. creates and starts the session, then forks and execs COMMAND;
 *   4. polls the session's fd and dispatches until DURATION, COMMAND's
 *      exit, a trigger alert or a signal;
 *   5. stops and terminates the session, collects the summary, destroys
 *      it, and renames the temporary file over the output only if the
 *      session ended cleanly (tracebuf_session_destroy() returned 0);
 *      otherwise the temporary file is removed.
 *
 * A recording that failed never leaves a file under the output's name.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracebuf_manager.h>

#include "ctlsock.h"
#include "outfile.h"
#include "record_priv.h"
#include "tracebufctl.h"
#include "util.h"

#define RECORD_STATUS_INTERVAL_NS	250000000ULL
#define RECORD_MAGIC_BYTES		8	/* what a file holds at first */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* The session's callback: only records what happened. */
static void record_notify(void *arg, const struct tracebuf_session_note *note)
{
	struct record_run *r = arg;

	if (note->type == TRACEBUF_LIB_NOTE_ALERT && note->alert)
		record_alert(r, note->alert);
	if (note->type == TRACEBUF_LIB_NOTE_JOINED)
		r->joined = true;
	/* a snapshot's: what it lacks, for its reply */
	if (note->type == TRACEBUF_LIB_NOTE_ERROR && r->in_snapshot) {
		size_t used = strlen(r->snap_notes);
		char name[TRACEBUF_NAME_MAX * 4 + 1];

		r->nsnap_notes++;
		tbctl_safe(note->provider_name ? note->provider_name : "?", name, sizeof(name));
		snprintf(r->snap_notes + used, sizeof(r->snap_notes) - used,
			 "\nwarning: provider %s (%u): %s", name, note->provider_id,
			 note->what ? note->what : strerror(-note->error));
	}
}

/*
 * tracebuf_session_providers() into r->prov, and how each that went
 * ended into r->ends (both resized); -errno.
 */
int record_providers(struct record_run *r)
{
	int n = tracebuf_session_providers(r->s, r->prov, (size_t)r->nprov);

	if (n > r->nprov) {
		struct tracebuf_session_provider *p = realloc(r->prov, (size_t)n * sizeof(*p));
		struct record_end *e;

		if (!p)
			return -ENOMEM;
		r->prov = p;
		e = realloc(r->ends, (size_t)n * sizeof(*e));
		if (!e)
			return -ENOMEM;
		r->ends = e;
		n = tracebuf_session_providers(r->s, r->prov, (size_t)n);
	}
	r->nprov = n;
	for (int i = 0; i < n; i++) {
		struct record_end *e = &r->ends[i];

		e->wait = 0;
		e->how = TRACEBUF_LIB_END_UNKNOWN;
		if (r->prov[i].state == TRACEBUF_LIB_TRACEE_GONE)
			e->how = tracebuf_session_provider_end(r->s, r->prov[i].id, &e->wait);
		if (e->how < 0)
			e->how = TRACEBUF_LIB_END_UNKNOWN;
	}
	return 0;
}

void record_status_clear(struct record_run *r)
{
	if (r->status_shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		r->status_shown = false;
	}
}

/* @p's records dropped, as a count: 0 when its header's is not credible. */
uint64_t record_dropped(const struct tracebuf_session_provider *p)
{
	return p->dropped_doubtful ? 0 : p->records_dropped;
}

/*
 * The status line: what the providers recorded so far (their buffer
 * headers say), what was saved to the file, and what they dropped.
 */
static void record_status(struct record_run *r, uint64_t now)
{
	uint64_t dropped = 0, recorded = 0, elapsed = now - r->t0;
	bool rotate = r->o->present & TBCTL_OPT_ROTATE;
	char bytes[32], saved[32], file[256];

	if (record_providers(r))
		return;
	for (int i = 0; i < r->nprov; i++) {
		dropped += record_dropped(&r->prov[i]);
		recorded += r->prov[i].bytes_recorded;
	}
	fprintf(stderr, "\rrecording %llu.%01llu s  %d provider%s  %s recorded  %s saved"
		"  %llu dropped%s%s\033[K",
		(unsigned long long)(elapsed / NS_PER_SEC),
		(unsigned long long)(elapsed % NS_PER_SEC / (NS_PER_SEC / 10)),
		r->nprov, r->nprov == 1 ? "" : "s",
		tbctl_human_bytes(recorded, bytes, sizeof(bytes)),
		tbctl_human_bytes(tracebuf_session_bytes(r->s), saved, sizeof(saved)),
		(unsigned long long)dropped, rotate ? "  into " : "",
		rotate ? tbctl_safe(r->out.path, file, sizeof(file)) : "");
	fflush(stderr);
	r->status_shown = true;
}

/* Exit status of a wait() status, as a shell gives it. */
static int record_wait_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* COMMAND was reaped: @status, as waitpid() gave it. */
static void record_reaped(struct record_run *r, int status)
{
	r->child_status = record_wait_status(status);
	r->child_wait = status;
	r->child_exited = true;
	r->child = 0;
}

/* The start time of process @pid (a zombie's too), in clock ticks since boot. */
static int record_proc_start(pid_t pid, unsigned long long *start)
{
	char path[32], buf[1024], *p, *end;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -ENODATA;
	buf[n] = '\0';
	/* the fields after the name (which may hold blanks and parentheses) */
	p = strrchr(buf, ')');
	/* starttime, field 22: the 20th after the name */
	for (int i = 0; p && i < 20; i++)
		p = strchr(p + 1, ' ');
	if (!p)
		return -EINVAL;
	errno = 0;
	*start = strtoull(p + 1, &end, 10);
	return end == p + 1 || errno ? -EINVAL : 0;
}

/*
 * After a provider joined: note the process of each provider not known
 * yet, with its start time, so that record_reap() can tell it from
 * another one of its pid.  Only with COMMAND: the others are not
 * record's descendants.
 */
static void record_identify(struct record_run *r)
{
	r->joined = false;
	if (!r->command || record_providers(r))
		return;
	for (int i = 0; i < r->nprov; i++) {
		const struct tracebuf_session_provider *p = &r->prov[i];
		struct record_proc *nv, pr = { .id = p->id, .pid = (pid_t)p->pid };
		bool known = pr.pid == r->command || pr.pid <= 0;

		for (int j = 0; j < r->nprocs && !known; j++)
			known = r->procs[j].id == pr.id && r->procs[j].pid == pr.pid;
		if (known || record_proc_start(pr.pid, &pr.start))
			continue;
		nv = realloc(r->procs, (size_t)(r->nprocs + 1) * sizeof(*nv));
		if (!nv)
			return;
		r->procs = nv;
		r->procs[r->nprocs++] = pr;
	}
}

/*
 * Reap what exited: COMMAND, and the processes it left behind that were
 * reparented to record, noting how each provider's ended.  Not the
 * compressor, which tbctl_out_commit() reaps.
 */
static void record_reap(struct record_run *r)
{
	for (;;) {
		struct record_proc *pr = NULL;
		unsigned long long start;
		siginfo_t si;
		int status;
		pid_t pid;

		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) || !si.si_pid)
			return;
		pid = si.si_pid;
		if (pid == r->out.zpid) {
			/* the compressor waits for its reaper: COMMAND does not */
			if (r->child > 0 && waitpid(r->child, &status, WNOHANG) == r->child)
				record_reaped(r, status);
			return;
		}
		for (int i = 0; i < r->nprocs && !pr; i++)
			if (r->procs[i].pid == pid && !r->procs[i].reaped)
				pr = &r->procs[i];
		/* a zombie still has its start time, until it is reaped */
		if (pr && (record_proc_start(pid, &start) || start != pr->start))
			pr = NULL;
		if (waitpid(pid, &status, WNOHANG) != pid)
			return;
		if (pid == r->child) {
			record_reaped(r, status);
		} else if (pr) {
			pr->wait = status;
			pr->reaped = true;
		}
	}
}

static int record_signals_block(struct record_run *r)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, &r->oldmask))
		return -errno;
	r->masked = true;
	r->sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (r->sig_fd < 0)
		return -errno;
	return 0;
}

static void record_signals_read(struct record_run *r);

/*
 * Consume what is pending (a second ^C while stopping must not kill us
 * once unblocked: the trace is written by now), then unblock.
 */
static void record_signals_restore(struct record_run *r)
{
	if (r->sig_fd >= 0) {
		record_signals_read(r);
		close(r->sig_fd);
		r->sig_fd = -1;
	}
	if (r->masked) {
		sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
		r->masked = false;
	}
}

/* Drain the signalfd. */
static void record_signals_read(struct record_run *r)
{
	struct signalfd_siginfo si;

	while (read(r->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			record_reap(r);
			break;
		default:
			if (!r->signo)
				r->signo = (int)si.ssi_signo;
			r->signals++;
			/*
			 * A terminal's ^C reaches COMMAND by itself (same
			 * process group); a kill(2) aimed at us is passed on.
			 */
			if (r->child > 0 && si.ssi_code != SI_KERNEL)
				kill(r->child, (int)si.ssi_signo);
			/*
			 * the first: COMMAND decides when the recording ends
			 * (unless it ended already: record_wait_child() says
			 * what a signal does then)
			 */
			if (r->child > 0 && r->signals == 1 && !r->over) {
				record_status_clear(r);
				tbctl_err("%s: recording until %s (pid %d) exits; SIG%s again "
					  "stops the recording now", strsignal(r->signo),
					  r->o->command[0], (int)r->child,
					  sigabbrev_np(r->signo));
			}
			break;
		}
	}
}

/*
 * The recording is over and COMMAND still runs: wait for it, saying so
 * (a script's stderr is no terminal, but someone reads it), and answer
 * on the control socket meanwhile (record_ctl_serve(): "status" says
 * "waiting").  A signal that arrives meanwhile leaves it running;
 * returns 128 + that signal, or 0 once COMMAND exited (its status in
 * r->child_status).
 */
static int record_wait_child(struct record_run *r)
{
	struct pollfd pfd[2] = {
		{ .fd = r->sig_fd, .events = POLLIN },
		{ .fd = r->ctl_fd, .events = POLLIN },	/* ignored when -1 */
	};
	unsigned int seen = r->signals;
	int status;
	pid_t w;

	if (r->child <= 0)
		return 0;
	if (r->sig_fd < 0) {
		do
			w = waitpid(r->child, &status, 0);
		while (w < 0 && errno == EINTR);
		if (w == r->child) {
			record_reaped(r, status);
			return 0;
		}
		/* how it ended is not known */
		r->child_status = 1;
		r->child_exited = true;
		r->child = 0;
		r->command = 0;
		return 0;
	}
	tbctl_err("waiting for %s (pid %d) to exit; SIGINT leaves it running",
		  r->o->command[0], (int)r->child);
	for (;;) {
		/* SIGCHLD may have come before the signalfd was read */
		if (waitpid(r->child, &status, WNOHANG) == r->child) {
			record_reaped(r, status);
			return 0;
		}
		/* -1 once a "stop" was answered */
		pfd[1].fd = r->ctl_fd;
		pfd[1].revents = 0;
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			return 1;
		record_signals_read(r);
		if (pfd[1].revents & POLLIN)
			record_ctl_serve(r);
		if (r->child_exited)
			return 0;
		if (r->signals > seen) {
			tbctl_err("leaving %s (pid %d) running", r->o->command[0], (int)r->child);
			return 128 + r->signo;
		}
	}
}

/*
 * A buffer size the session refused with @err, said with the library's
 * rule for this kernel (tracebuf_buffer_size_check()): -EFBIG, a size
 * over the module's max_buffer_size; -EINVAL, a size that is not a
 * multiple of the kernel's buffer alignment (4 KiB, or its page size
 * where that is larger: 16 or 64 KiB on some arm64 kernels).  Returns
 * false when no size is at fault.
 */
static bool record_size_refused(const struct record_run *r, int err)
{
	const struct record_opts *o = r->o;
	struct tracebuf_manager *m;
	char size[32], rule[32];
	uint64_t bad = 0, limit, align;

	if (tracebuf_manager_open(r->ctx->device, 0, &m)) {
		if (err != -EFBIG)
			return false;
		tbctl_err("a buffer size is larger than the module's max_buffer_size "
			  "(/sys/module/tracebuf/parameters/max_buffer_size)");
		return true;
	}
	for (size_t i = 0; i <= o->noverrides && !bad; i++) {
		uint64_t want = i == o->noverrides ? o->buffer_size : o->overrides[i].size;

		if (i == o->noverrides && !want)
			want = TRACEBUF_LIB_DEFAULT_BUFFER_SIZE;
		if (tracebuf_buffer_size_check(m, want) == err)
			bad = want;
	}
	limit = tracebuf_manager_version(m)->max_buffer_size;
	align = tracebuf_manager_buffer_align(m);
	tracebuf_manager_close(m);
	if (!bad)
		return false;
	tbctl_human_bytes(bad, size, sizeof(size));
	if (err == -EFBIG)
		tbctl_err("buffer size %s is larger than the module's max_buffer_size, %s "
			  "(/sys/module/tracebuf/parameters/max_buffer_size)", size,
			  tbctl_human_bytes(limit, rule, sizeof(rule)));
	else
		tbctl_err("buffer size %s is not a multiple of %s, this kernel's buffer "
			  "alignment (its page size)", size,
			  tbctl_human_bytes(align, rule, sizeof(rule)));
	return true;
}

static int record_session_create(struct record_run *r)
{
	const struct record_opts *o = r->o;
	struct tracebuf_session_config cfg = {
		.size = sizeof(cfg),
		.mode = o->mode,
		.buffer_size = o->buffer_size,
		.categories = (const char *const *)o->categories,
		.ncategories = o->ncategories,
		.providers = (const char *const *)o->providers,
		.nproviders = o->nproviders,
		.noverrides = o->noverrides,
		.output_fd = r->out.fd,
		.notify = record_notify,
		.arg = r,
		.device = r->ctx->device,
	};
	int ret;

	if (o->noverrides) {
		/* the session keeps pointing at these until it is destroyed */
		r->overrides = calloc(o->noverrides, sizeof(*r->overrides));
		if (!r->overrides) {
			tbctl_err("out of memory");
			return -ENOMEM;
		}
		for (size_t i = 0; i < o->noverrides; i++) {
			r->overrides[i].name = o->overrides[i].name;
			r->overrides[i].buffer_size = o->overrides[i].size;
		}
		cfg.overrides = r->overrides;
	}
	ret = tracebuf_session_create(&cfg, &r->s);
	switch (ret) {
	case 0:
		break;
	case -EFBIG:
		record_size_refused(r, ret);
		break;
	case -EINVAL:
		if (!record_size_refused(r, ret))
			tbctl_err("invalid configuration (mode, buffer sizes or categories) refused");
		break;
	case -EIO:
	case -ENOSPC:
	case -EDQUOT:
		tbctl_err("%s: %s", o->output, strerror(-ret));
		break;
	default:
		tbctl_device_err(r->ctx, ret);
		break;
	}
	return ret;
}

/*
 * A close-on-exec pipe for the child to tell the parent how it went, and
 * fork: 0 in both (*pid 0 in the child), or -errno reported.
 */
static int record_fork_piped(int pfd[2], pid_t *pid)
{
	int ret;

	if (pipe2(pfd, O_CLOEXEC)) {
		ret = -errno;
		tbctl_err("pipe: %s", strerror(-ret));
		return ret;
	}
	fflush(NULL);
	*pid = fork();
	if (*pid < 0) {
		ret = -errno;
		close(pfd[0]);
		close(pfd[1]);
		tbctl_err("fork: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

/* fork and exec COMMAND; -errno reported (exec errors included). */
static int record_spawn(struct record_run *r)
{
	char **cmd = r->o->command;
	int pfd[2], err = 0, ret;
	ssize_t n;
	pid_t pid;

	/*
	 * The descendants of COMMAND whose parent ends first come to us,
	 * not to init: reaping them, we know how those that were providers
	 * ended (record_reap()).  Without it, only COMMAND's end is known.
	 */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	ret = record_fork_piped(pfd, &pid);
	if (ret)
		return ret;
	if (pid == 0) {
		close(pfd[0]);
		sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
		signal(SIGPIPE, SIG_DFL);
		/* the trace goes to standard output: COMMAND's output does not */
		if (r->out.is_stdout && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(cmd[0], cmd);
		err = errno;
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	/* EOF: exec succeeded (the pipe was close-on-exec) */
	do
		n = read(pfd[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (n == (ssize_t)sizeof(err)) {
		waitpid(pid, NULL, 0);
		tbctl_err("cannot run '%s': %s", cmd[0], strerror(err));
		return -err;
	}
	r->child = pid;
	r->command = pid;
	return 0;
}

/*
 * --rotate: the current file is full.  Open the next one as the first
 * was (tbctl_out_open()), move the session on to it, then commit the
 * current one, whole.  -errno reported; the files before it stay.
 */
static int record_rotate(struct record_run *r)
{
	uint64_t base = tracebuf_session_bytes(r->s);
	char tag[16], path[PATH_MAX], *name;
	struct tbctl_out next;
	int ret;

	snprintf(tag, sizeof(tag), "%u", r->nfile + 1);
	if (tbctl_out_name(r->o->output, tag, path, sizeof(path))) {
		tbctl_err("%s: the name of file %s after it is too long", r->o->output, tag);
		return -ENAMETOOLONG;
	}
	name = strdup(path);
	if (!name) {
		tbctl_err("out of memory");
		return -ENOMEM;
	}
	tbctl_out_init(&next, name);
	ret = tbctl_out_open(&next);
	if (ret) {
		free(name);
		return ret;
	}
	record_note_tmp(r, &next);
	ret = tracebuf_session_rotate(r->s, next.fd);
	if (ret) {
		tbctl_err("%s: cannot go on in %s: %s", r->out.path, name, strerror(-ret));
		tbctl_out_abort(&next);
		record_note_tmp(r, NULL);
		free(name);
		return ret;
	}
	/* the session wrote all it had for it: the file is whole */
	ret = tbctl_out_commit(&r->out);
	free(r->prev_path);
	r->prev_path = r->file_path;
	r->file_path = name;
	r->out = next;
	r->nfile++;
	r->file_base = base;
	record_note_tmp(r, NULL);
	return ret;
}

/* Poll and dispatch until it is time to stop; -errno reported. */
static int record_loop(struct record_run *r)
{
	struct pollfd pfd[3] = {
		{ .fd = tracebuf_session_fd(r->s), .events = POLLIN },
		{ .fd = r->sig_fd, .events = POLLIN },
		{ .fd = r->ctl_fd, .events = POLLIN },	/* ignored when -1 */
	};
	uint64_t deadline = !r->o->duration_ns ? 0 :
			    r->o->duration_ns < UINT64_MAX - r->t0 ?
			    r->t0 + r->o->duration_ns : UINT64_MAX;
	uint64_t next_status = r->t0, file;
	int ret;

	for (;;) {
		/* the clock only for a deadline or the status line: a save's
		 * wake-up has no use for it (a system call where the vDSO
		 * cannot read the clocksource)
		 */
		uint64_t now = deadline || r->status ? now_ns() : 0, wake = deadline;
		int timeout = -1;

		/* a signal stops now without COMMAND, the second one with it */
		if (r->triggered || r->child_exited || r->stop_requested ||
		    (r->signo && (!r->child || r->signals > 1)))
			return 0;
		if (deadline && now >= deadline)
			return 0;
		if (r->status) {
			if (now >= next_status) {
				record_status(r, now);
				next_status = now + RECORD_STATUS_INTERVAL_NS;
			}
			if (!wake || next_status < wake)
				wake = next_status;
		}
		if (wake) {
			uint64_t ms = (wake - now + 999999) / 1000000;

			timeout = ms > 60000 ? 60000 : (int)ms;
		}
		if (poll(pfd, 3, timeout) < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			record_status_clear(r);
			tbctl_err("poll: %s", strerror(-ret));
			return ret;
		}
		if (pfd[0].revents) {
			ret = tracebuf_session_dispatch(r->s);
			if (ret >= 0 && pfd[0].revents & (POLLERR | POLLNVAL))
				ret = -EIO;
			if (ret < 0) {
				record_status_clear(r);
				if (ret == -EIO)
					tbctl_err("%s: the session failed (output or device error)",
						  r->out.path);
				else
					tbctl_err("the session failed: %s", strerror(-ret));
				return ret;
			}
			if (r->joined)
				record_identify(r);
		}
		if (pfd[1].revents & POLLIN)
			record_signals_read(r);
		if (pfd[2].revents & POLLIN)
			record_ctl_serve(r);
		/* what the triggers asked for (not from the session's callback) */
		for (; r->snapshots_due && !r->triggered; r->snapshots_due--) {
			char reply[TBCTL_CTL_MSG_MAX];

			if (!record_snapshot(r, NULL, reply, sizeof(reply)))
				continue;
			r->snapshots_failed++;
			if (!strncmp(reply, "error: ", 7)) {
				record_status_clear(r);
				tbctl_err("snapshot: %s", reply + 7);
			}
		}
		/* what is in the file, before compression */
		file = tracebuf_session_bytes(r->s) - r->file_base;
		if (r->o->max_size && file >= r->o->max_size) {
			if (!(r->o->present & TBCTL_OPT_ROTATE)) {
				r->max_size_reached = true;
				return 0;
			}
			/* a file holds more than its magic record */
			if (file > RECORD_MAGIC_BYTES) {
				record_status_clear(r);
				ret = record_rotate(r);
				if (ret)
					return ret;
				next_status = 0;	/* the new name, now */
			}
		}
	}
}

/* Stop, terminate, summarise and destroy the session; -errno reported. */
static int record_finish(struct record_run *r, bool report)
{
	int ret;

	tracebuf_session_stop(r->s, true);	/* -EALREADY if never started */
	tracebuf_session_terminate(r->s);
	if (r->joined)
		record_identify(r);
	if (record_providers(r))
		r->nprov = 0;
	r->bytes = tracebuf_session_bytes(r->s);
	r->cat_known = calloc(r->o->ncategories + 1, sizeof(*r->cat_known));
	for (size_t i = 0; r->cat_known && i < r->o->ncategories; i++)
		r->cat_known[i] = tracebuf_session_category_known(r->s, i) == 1;
	ret = tracebuf_session_destroy(r->s);
	r->s = NULL;
	if (ret && report)
		tbctl_err("%s: the trace could not be written: %s", r->out.path,
			  strerror(-ret));
	return ret;
}

/* --detach: tell the waiting parent that the session runs. */
static void record_started(struct record_run *r)
{
	ssize_t n;

	if (r->started_fd < 0)
		return;
	r->started = true;
	n = write(r->started_fd, "started\n", 8);
	(void)n;	/* it failed: the parent is gone, nobody to tell */
	close(r->started_fd);
	r->started_fd = -1;
}

static int record_run(const struct tbctl_ctx *ctx, const struct record_opts *o, int started_fd)
{
	struct record_run r = {
		.ctx = ctx, .o = o, .sig_fd = -1, .ctl_fd = -1, .started_fd = started_fd,
		.detached = started_fd >= 0,
		.status = !(o->present & TBCTL_OPT_QUIET) && isatty(STDERR_FILENO),
	};
	struct sigaction ign = { .sa_handler = SIG_IGN };
	bool quiet = o->present & TBCTL_OPT_QUIET;
	int ret, outcome = 0, left, status;

	tbctl_out_init(&r.out, o->output);
	/* a compressor or a reader of "-o -" that died: EPIPE, not death */
	sigaction(SIGPIPE, &ign, &r.old_sigpipe);
	ret = record_signals_block(&r);
	if (ret) {
		tbctl_err("signalfd: %s", strerror(-ret));
		goto out_signals;
	}
	ret = record_ctl_open(&r, started_fd >= 0);
	if (ret)
		goto out_signals;
	ret = tbctl_out_open(&r.out);
	if (ret)
		goto out_signals;
	record_note_tmp(&r, NULL);
	ret = record_session_create(&r);
	if (ret)
		goto out_tmp;
	ret = tracebuf_session_start(r.s, NULL);
	if (ret) {
		tbctl_err("cannot start the session: %s", strerror(-ret));
		goto out_session;
	}
	if (o->command) {
		ret = record_spawn(&r);
		if (ret) {
			/* like a shell: 127 for a command that cannot run */
			ret = 127;
			goto out_session;
		}
	}
	r.t0 = now_ns();
	record_started(&r);
	ret = record_loop(&r);
	r.over = true;
	if (ret)
		goto out_session;
	record_status_clear(&r);
	ret = record_finish(&r, true);
	if (ret)
		goto out_tmp;
	if (r.nfile && r.bytes - r.file_base <= sizeof(uint64_t)) {
		/* nothing came after the last rotation: no file of a magic word */
		tbctl_out_abort(&r.out);
		r.out.path = --r.nfile ? r.prev_path : o->output;
	} else {
		ret = tbctl_out_commit(&r.out);
		if (ret)
			goto out_signals;
	}
	/* how the processes that ended so far did, for the summary */
	record_reap(&r);
	if (!quiet)
		record_summary(&r, now_ns() - r.t0);
	outcome = record_outcome(&r);
	goto out_signals;

out_session:
	record_status_clear(&r);
	record_finish(&r, false);
out_tmp:
	tbctl_out_abort(&r.out);
out_signals:
	r.over = true;
	r.over_status = record_status_of(&r, ret, outcome);
	/* "stop" is answered once the trace is written, COMMAND or not */
	record_ctl_answer(&r, r.over_status);
	if (r.answered)
		record_ctl_close(&r, r.over_status);
	if (r.started_fd >= 0)
		close(r.started_fd);
	/* the session stays listed while it waits for COMMAND */
	left = record_wait_child(&r);
	if (ret) {
		status = ret;
	} else if (left) {
		status = left;
	} else if (outcome && !(o->present & TBCTL_OPT_BEST_EFFORT)) {
		status = outcome;
		if (r.child_exited && r.child_status)
			tbctl_err("the trace is incomplete (exit status %d); %s exited with "
				  "status %d", outcome, o->command[0], r.child_status);
	} else {
		status = r.child_exited ? r.child_status : 0;
	}
	record_ctl_close(&r, status < 0 ? 1 : status);
	record_signals_restore(&r);
	sigaction(SIGPIPE, &r.old_sigpipe, NULL);
	free(r.overrides);
	free(r.procs);
	free(r.prov);
	free(r.ends);
	free(r.cat_known);
	free(r.file_path);
	free(r.prev_path);
	return status;
}

/*
 * --detach: the recording goes on in a child of its own session, with
 * its messages in RUNDIR/ID.log; this process prints the child's pid
 * (the session's id) once the session runs, and exits 0.  If it fails
 * first, its messages are shown here and its exit status is ours.
 */
static int record_detach(const struct tbctl_ctx *ctx, const struct record_opts *o)
{
	char dir[256], path[300], buf[16];
	int pfd[2], status, fd, ret;
	ssize_t n;
	pid_t pid;

	ret = tbctl_rundir(dir, sizeof(dir), true, true);
	if (!ret)
		ret = record_fork_piped(pfd, &pid);
	if (ret)
		return ret;
	if (pid == 0) {
		close(pfd[0]);
		setsid();
		fd = open("/dev/null", O_RDWR);
		if (fd < 0 || tbctl_ctl_path(path, sizeof(path), dir, getpid(), "log"))
			_exit(1);
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		close(fd);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd >= 0) {
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
		ret = record_run(ctx, o, pfd[1]);
		fflush(NULL);
		_exit(ret < 0 ? 1 : ret);
	}
	close(pfd[1]);
	do
		n = read(pfd[0], buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (n == 8 && !memcmp(buf, "started\n", 8)) {
		printf("%d\n", (int)pid);
		if (!(o->present & TBCTL_OPT_QUIET))
			fprintf(stderr, "recording in the background as session %d: '" TBCTL_PROG
				" status', '" TBCTL_PROG " stop %d'\n", (int)pid, (int)pid);
		return fflush(stdout) ? -EIO : 0;
	}
	/* it failed before the session ran: its words, its status */
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	tbctl_ctl_show_log(dir, pid);
	tbctl_ctl_unlink(dir, pid, false);
	if (WIFEXITED(status) && WEXITSTATUS(status))
		return WEXITSTATUS(status);
	return 1;
}

int cmd_record(struct tbctl_ctx *ctx, int argc, char **argv)
{
	struct record_opts o;
	char err[256];
	int ret;

	ret = record_parse(argc, argv, &o, err, sizeof(err));
	if (ret == -EINVAL)
		tbctl_usage_err("record", err);
	else if (ret)
		tbctl_err("%s", err);
	else if (o.help)
		record_usage(stdout);
	else if (o.print_config && (ret = record_print_config(stdout, &o, err, sizeof(err))))
		tbctl_err("%s", err);
	else if (o.print_config)
		;	/* printed: no device, no recording */
	else if (o.present & TBCTL_OPT_DETACH)
		ret = record_detach(ctx, &o);
	else
		ret = record_run(ctx, &o, -1);
	record_opts_free(&o);
	return ret;
}
