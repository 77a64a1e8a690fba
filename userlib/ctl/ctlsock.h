/* SPDX-License-Identifier: MIT */
/*
 * The control sockets of recording sessions (ctlsock.c): every "record"
 * listens on RUNDIR/ID.sock, ID being its pid, and a detached one writes
 * its messages to RUNDIR/ID.log.  "status", "stop" and "alert" talk to
 * them.  One request, one reply, each a SOCK_SEQPACKET message of text:
 *
 *	"ping"		"pong": it is alive
 *	"status"	the session in one line: "ID MODE STATE PROVIDERS
 *			RECORDED WRITTEN DROPPED OUTPUT", STATE "recording",
 *			"stopping" or "waiting" (the trace is written, it
 *			waits for its COMMAND)
 *	"status json"	the same as one JSON object
 *	"alert NAME"	as if a provider had sent the alert NAME: "ok stop",
 *			"ok snapshot", "ok" (no trigger of the session names
 *			it), or why it did nothing (waiting)
 *	"snapshot [PATH]"	"ok PROVIDERS BYTES PATH", or "error: ..."
 *	"stop"		stop and write the trace, like SIGINT; the reply,
 *			"exit N" with record's exit status, comes when it
 *			has ended, or, waiting, at once with its trace's
 *			status (it goes on waiting, not listed)
 *
 * A detached session that ends by itself with a non-zero status (its
 * COMMAND's, when it waited for it) leaves RUNDIR/ID.exit beside its
 * log, until "stop ID" shows them.
 *
 * RUNDIR: $TRACEBUF_RUNTIME_DIR, else /run/tracebuf for root, else
 * $XDG_RUNTIME_DIR/tracebuf, else /tmp/tracebuf-UID; made 0700, and
 * refused when it is not ours and private.  Only a peer of the same user
 * (or root) is answered.
 */
#ifndef TBCTL_CTLSOCK_H
#define TBCTL_CTLSOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define TBCTL_CTL_MSG_MAX	4096

/* The directory, made if missing when create; 0 or -errno (said if report). */
int tbctl_rundir(char *buf, size_t len, bool create, bool report);

/* RUNDIR/ID.sock, RUNDIR/ID.log */
int tbctl_ctl_path(char *buf, size_t len, const char *dir, pid_t id, const char *ext);

/* Listen on RUNDIR/ID.sock: the listening fd (non-blocking), or -errno. */
int tbctl_ctl_listen(const char *dir, pid_t id);

/*
 * A request on the listening fd: accept one peer, read its message into
 * req (NUL-terminated).  Return: the peer's fd (reply with
 * tbctl_ctl_reply() and close it), -EAGAIN when nobody was there, or
 * -errno (a peer of another user: -EPERM, already answered).
 */
int tbctl_ctl_accept(int lfd, char *req, size_t len);
int tbctl_ctl_reply(int cfd, const char *msg);

/*
 * tbctl_ctl_request() - send req to session ID, wait for the reply (up to
 * timeout_ms, -1: forever).  Return: 0, -ESRCH when no such session is
 * running (a socket left by a killed one is removed, with the temporary
 * files it noted, tbctl_ctl_tmp()), or -errno.
 */
int tbctl_ctl_request(const char *dir, pid_t id, const char *req, char *reply,
		      size_t len, int timeout_ms);

/*
 * tbctl_ctl_sessions() - the ids of RUNDIR's sessions, sorted, in a
 * malloc'd array: their count, or -errno.  Sockets nobody listens on any
 * more are removed, with their logs and temporary files.
 */
int tbctl_ctl_sessions(const char *dir, pid_t **ids);

/* What a detached session wrote to RUNDIR/ID.log, to stderr; the log removed. */
void tbctl_ctl_show_log(const char *dir, pid_t id);

/*
 * A detached session that ended by itself with a non-zero status keeps
 * its log, and leaves RUNDIR/ID.exit: its status, then its last status
 * line as text and as JSON.  "status" lists it, "stop" prints its log,
 * exits with its status and removes both (tbctl_ctl_show_log()).
 * tbctl_ctl_end() writes it: 0 or -errno.  tbctl_ctl_ended() reads it:
 * 0, -ESRCH when there is none, or -errno.  tbctl_ctl_ended_list(): the
 * ids of those in RUNDIR, sorted, in a malloc'd array: their count, or
 * -errno.
 */
int tbctl_ctl_end(const char *dir, pid_t id, int status, const char *line,
		  const char *json);
int tbctl_ctl_ended(const char *dir, pid_t id, int *status, char *line, size_t linelen,
		    char *json, size_t jsonlen);
int tbctl_ctl_ended_list(const char *dir, pid_t **ids);

/*
 * tbctl_ctl_tmp() - note in RUNDIR/ID.tmp the temporary files session ID
 * writes now (tbctl_file_create()'s ".NAME.XXXXXX", made absolute; NULLs
 * skipped), replacing what it said before; none: the note is removed.  A
 * session killed before it could remove them leaves them behind: when
 * its socket is found stale, they are removed with it.  0 or -errno.
 */
int tbctl_ctl_tmp(const char *dir, pid_t id, const char *const *paths, size_t n);

/* Remove RUNDIR/ID.sock and RUNDIR/ID.tmp (and, if log, RUNDIR/ID.log). */
void tbctl_ctl_unlink(const char *dir, pid_t id, bool log);

#endif /* TBCTL_CTLSOCK_H */
