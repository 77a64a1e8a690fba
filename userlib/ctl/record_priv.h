/* SPDX-License-Identifier: MIT */
/*
 * tracebufctl record, in four files by job, and what they share: the
 * state of one recording, struct record_run.
 *
 *	record_opts.c		the options: the command line, a --config
 *				file, --print-config (tracebufctl.h: they
 *				are tested alone)
 *	record.c		the run: the signals, the session, COMMAND and
 *				the other processes it reaps, the loop, --detach
 *	record_ctl.c		the session's control socket (ctlsock.h), and
 *				what an alert does
 *	record_summary.c	the summary and the exit status
 */
#ifndef TBCTL_RECORD_PRIV_H
#define TBCTL_RECORD_PRIV_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <tracebuf_manager.h>

#include "ctlsock.h"
#include "outfile.h"
#include "tracebufctl.h"

#define NS_PER_SEC			1000000000ULL

/*
 * A provider's process, as record knows it: record is the subreaper of
 * COMMAND's descendants (PR_SET_CHILD_SUBREAPER), so those whose parent
 * ended before reaping them are reaped by record, which then knows how
 * they ended.  A pid alone could be another process's by then: its start
 * time, read while the provider was known to the session, says that the
 * process reaped is the provider's.
 */
struct record_proc {
	uint32_t id;			/* the provider's */
	pid_t pid;
	unsigned long long start;	/* /proc/PID/stat's starttime */
	int wait;			/* its wait() status, once reaped */
	bool reaped;
};

/*
 * How a provider that went ended, as the kernel saw its file close
 * (tracebuf_session_provider_end()): TRACEBUF_LIB_END_*, and for
 * TRACEBUF_LIB_END_EXITED its process's wait() status.
 */
struct record_end {
	int how;
	int wait;
};

struct record_run {
	const struct tbctl_ctx *ctx;
	const struct record_opts *o;
	struct tracebuf_session *s;
	struct tracebuf_session_override *overrides;
	struct tbctl_out out;
	int sig_fd;
	/* the control socket (ctlsock.h), -1 if none */
	int ctl_fd;
	char rundir[256];
	int stop_fds[8];		/* "stop" requests, answered at the end */
	int nstop_fds;
	bool stop_requested;
	bool max_size_reached;
	/* --rotate: r->out is file number nfile, 0 being the output itself */
	unsigned int nfile;
	char *file_path;		/* its name from 1 on (malloc'd) */
	char *prev_path;		/* the one before, from 2 on */
	uint64_t file_base;		/* tracebuf_session_bytes() where it began */
	int started_fd;			/* --detach: the parent's pipe, -1 */
	bool detached;			/* its stderr is RUNDIR/ID.log */
	bool started;			/* the parent was told */
	struct sigaction old_sigpipe;
	sigset_t oldmask;
	bool masked;
	pid_t child;			/* 0: none, or reaped */
	pid_t command;			/* COMMAND's pid, kept once reaped; 0:
					 * none, or how it ended is unknown
					 */
	int child_status;		/* exit status to return */
	int child_wait;			/* its wait() status (child_exited) */
	bool child_exited;
	int over_status;		/* once over: the exit status so far */
	bool answered;			/* a "stop" was answered: not listed */
	/* providers that may be COMMAND's descendants (record_identify()) */
	struct record_proc *procs;
	int nprocs;
	bool joined;			/* a provider joined: identify it */
	bool over;			/* the recording ended (COMMAND may run) */
	/* snapshots: written, due (a trigger), and the one under way's notes */
	unsigned int snapshots;
	unsigned int snapshots_named;	/* by default: ".snapshot-N" */
	unsigned int snapshots_due;
	unsigned int snapshots_failed;	/* of those due: failed or partial */
	bool in_snapshot;
	char snap_notes[TBCTL_CTL_MSG_MAX / 2];
	unsigned int nsnap_notes;
	/* set by the notify callback and the signal handling */
	bool triggered;
	char alert[TRACEBUF_ALERT_NAME_MAX + 1];
	/* a detached session that ended by itself, for "status" */
	bool ended;
	int exit_status;
	int signo;			/* the first SIGINT, SIGTERM or SIGHUP */
	unsigned int signals;		/* how many of them */
	/* the status line */
	bool status;
	bool status_shown;
	uint64_t t0;
	/* the summary, taken before the session is destroyed */
	struct tracebuf_session_provider *prov;
	struct record_end *ends;	/* per prov[]: how it ended */
	int nprov;
	uint64_t bytes;
	bool *cat_known;		/* per -c category */
};

/* record.c */
int record_providers(struct record_run *r);
void record_status_clear(struct record_run *r);
uint64_t record_dropped(const struct tracebuf_session_provider *p);

/* record_ctl.c */
int record_ctl_open(struct record_run *r, bool detached);
void record_note_tmp(struct record_run *r, const struct tbctl_out *extra);
const char *record_alert(struct record_run *r, const char *alert);
int record_snapshot(struct record_run *r, const char *path, char *reply, size_t len);
void record_ctl_serve(struct record_run *r);
void record_ctl_answer(struct record_run *r, int status);
void record_ctl_close(struct record_run *r, int status);

/* record_summary.c */
void record_summary(struct record_run *r, uint64_t elapsed);
int record_outcome(const struct record_run *r);
int record_status_of(const struct record_run *r, int ret, int outcome);

#endif /* TBCTL_RECORD_PRIV_H */
