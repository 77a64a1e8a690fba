// SPDX-License-Identifier: MIT
/*
 * tracebufctl record: the session's control socket (ctlsock.h), on which
 * other tracebufctl runs ask for its status, stop it, send it an alert or
 * have it write a snapshot; and what an alert does (its --trigger).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <tracebuf_manager.h>

#include "ctlsock.h"
#include "outfile.h"
#include "record_priv.h"
#include "tracebufctl.h"
#include "util.h"

/* Listen on RUNDIR/PID.sock; a foreground run goes on without one. */
int record_ctl_open(struct record_run *r, bool detached)
{
	int ret = tbctl_rundir(r->rundir, sizeof(r->rundir), true, detached);

	if (!ret) {
		r->ctl_fd = tbctl_ctl_listen(r->rundir, getpid());
		ret = r->ctl_fd < 0 ? r->ctl_fd : 0;
	}
	if (ret) {
		r->ctl_fd = -1;
		if (detached)
			tbctl_err("%s: cannot listen for 'stop': %s", r->rundir, strerror(-ret));
		return detached ? ret : 0;
	}
	return 0;
}

/*
 * Note the temporary files being written now (the output's, and @extra's
 * when not NULL) for "status" to remove if this process is killed
 * (tbctl_ctl_tmp()).  Without a control socket, nobody would look.
 */
void record_note_tmp(struct record_run *r, const struct tbctl_out *extra)
{
	const char *paths[2] = { r->out.file.tmp, extra ? extra->file.tmp : NULL };

	if (r->ctl_fd >= 0)
		tbctl_ctl_tmp(r->rundir, getpid(), paths, 2);
}

/* The session in status's words: one line, or a JSON object. */
static void record_ctl_status(struct record_run *r, bool json, char *buf, size_t len)
{
	const char *mode = tbctl_mode_name(r->o->mode ? r->o->mode : TRACEBUF_MODE_ONESHOT);
	const char *state = r->over ? "waiting" : r->stop_requested ? "stopping" : "recording";
	uint64_t dropped = 0, bytes = r->s ? tracebuf_session_bytes(r->s) : r->bytes;
	uint64_t recorded = 0;
	char human[32], hrec[32], out[512], ended[16];
	FILE *f;

	if (r->s && record_providers(r))
		r->nprov = 0;
	/*
	 * recorded: what the providers' headers say they recorded so far
	 * (a hint); written: what reached the file, which in oneshot and
	 * circular modes is only its first record until the end
	 */
	for (int i = 0; i < r->nprov; i++) {
		dropped += record_dropped(&r->prov[i]);
		recorded += r->prov[i].bytes_recorded;
	}
	/* the file written now (with --rotate, the last of them) */
	tbctl_safe(r->out.path, out, sizeof(out));
	if (r->ended) {
		snprintf(ended, sizeof(ended), "ended (%d)", r->exit_status);
		state = json ? "ended" : ended;
	}
	if (!json) {
		snprintf(buf, len, "%-8d %-10s %-10s %9d %10s %10s %9llu  %s", (int)getpid(),
			 mode, state, r->nprov, tbctl_human_bytes(recorded, hrec, sizeof(hrec)),
			 tbctl_human_bytes(bytes, human, sizeof(human)),
			 (unsigned long long)dropped, out);
		return;
	}
	f = fmemopen(buf, len, "w");
	if (!f) {
		snprintf(buf, len, "{}");
		return;
	}
	fprintf(f, "{\"id\":%d,\"mode\":\"%s\",\"state\":\"%s\",\"detached\":%s,"
		"\"providers\":%d,\"recorded\":%llu,\"bytes\":%llu,\"dropped\":%llu,"
		"\"files\":%u,\"snapshots\":%u,\"output\":", (int)getpid(), mode, state,
		r->detached ? "true" : "false", r->nprov, (unsigned long long)recorded,
		(unsigned long long)bytes, (unsigned long long)dropped, r->nfile + 1,
		r->snapshots);
	tbctl_json_cstr(f, r->out.path);
	if (r->ended)
		fprintf(f, ",\"exit\":%d", r->exit_status);
	fputc('}', f);
	fclose(f);
}

/*
 * As if a provider had sent the alert: what the triggers naming it do
 * ("stop", "snapshot", both as "stop" after "snapshot"), or NULL.  A
 * snapshot is taken by record_loop(), not here: the session calls us.
 */
const char *record_alert(struct record_run *r, const char *alert)
{
	const char *did = NULL;
	size_t len = strlen(alert);

	for (size_t i = 0; i < r->o->ntriggers; i++) {
		const char *t = r->o->triggers[i], *action = strrchr(t, ':') + 1;

		if ((size_t)(action - 1 - t) != len || strncmp(t, alert, len))
			continue;
		if (!strcmp(action, "snapshot")) {
			if (!r->triggered) {
				r->snapshots_due++;
				did = "snapshot";
			}
		} else if (!r->triggered) {
			r->triggered = true;
			snprintf(r->alert, sizeof(r->alert), "%s", alert);
			did = "stop";
		}
	}
	return did;
}

/*
 * Write a snapshot to @path, or to the next default name (the output's,
 * with ".snapshot-N" before its extension), and say how it went in
 * @reply: "ok PROVIDERS BYTES PATH", then a line per warning; or
 * "error: ...".  Returns 0 if it holds every started provider's data.
 */
int record_snapshot(struct record_run *r, const char *path, char *reply, size_t len)
{
	char name[PATH_MAX], tag[32], human[32], cwd[PATH_MAX], full[PATH_MAX];
	const char *output = r->o->output;
	struct tbctl_out out;
	uint64_t bytes = 0;
	int ret, committed;

	r->snap_notes[0] = '\0';
	r->nsnap_notes = 0;
	if ((r->o->mode ? r->o->mode : TRACEBUF_MODE_ONESHOT) == TRACEBUF_MODE_STREAMING) {
		snprintf(reply, len, "error: the session streams: its trace is saved as it goes (snapshots are for circular and oneshot)");
		return -EOPNOTSUPP;
	}
	if (!path) {
		if (r->out.is_stdout) {
			snprintf(reply, len, "error: the trace goes to standard output: name the snapshot's file");
			return -EINVAL;
		}
		snprintf(tag, sizeof(tag), "snapshot-%u", ++r->snapshots_named);
		/* absolute: the reply goes to another directory */
		if (r->o->output[0] != '/' && getcwd(cwd, sizeof(cwd)) &&
		    snprintf(full, sizeof(full), "%s/%s", cwd, r->o->output) < (int)sizeof(full))
			output = full;
		if (tbctl_out_name(output, tag, name, sizeof(name))) {
			snprintf(reply, len, "error: %.1000s: name too long", r->o->output);
			return -ENAMETOOLONG;
		}
		path = name;
	}
	tbctl_out_init(&out, path);
	ret = tbctl_out_open(&out);
	if (ret) {
		snprintf(reply, len, "error: %.1000s: %s", path, strerror(-ret));
		return ret;
	}
	record_note_tmp(r, &out);
	r->in_snapshot = true;
	ret = tracebuf_session_snapshot(r->s, out.fd, &bytes);
	r->in_snapshot = false;
	if (ret < 0) {
		tbctl_out_abort(&out);
		record_note_tmp(r, NULL);
		snprintf(reply, len, "error: %s", ret == -EINVAL ? "the session is not recording" :
			 ret == -EOPNOTSUPP ? "the module is too old for snapshots (ABI 1.5)" :
			 strerror(-ret));
		return ret;
	}
	committed = tbctl_out_commit(&out);
	record_note_tmp(r, NULL);
	if (committed) {
		snprintf(reply, len, "error: %.1000s: could not be written", path);
		return -EIO;
	}
	r->snapshots++;
	snprintf(reply, len, "ok %d %llu %.1000s%s%s", ret, (unsigned long long)bytes, path,
		 ret ? "" : "\nwarning: it holds no provider's data", r->snap_notes);
	record_status_clear(r);
	if (!(r->o->present & TBCTL_OPT_QUIET))
		fprintf(stderr, TBCTL_PROG ": snapshot %s: %s from %d provider%s\n", path,
			tbctl_human_bytes(bytes, human, sizeof(human)), ret, ret == 1 ? "" : "s");
	if (r->nsnap_notes)
		fprintf(stderr, TBCTL_PROG ": %s\n", r->snap_notes + 1);
	return ret && !r->nsnap_notes ? 0 : -ENODATA;
}

/* One request on the control socket. */
void record_ctl_serve(struct record_run *r)
{
	char req[TBCTL_CTL_MSG_MAX], reply[TBCTL_CTL_MSG_MAX];
	const char *did;
	int cfd = tbctl_ctl_accept(r->ctl_fd, req, sizeof(req));

	if (cfd < 0)
		return;
	if (!strcmp(req, "ping")) {
		snprintf(reply, sizeof(reply), "pong");
	} else if (!strcmp(req, "status") || !strcmp(req, "status json")) {
		record_ctl_status(r, req[6] == ' ', reply, sizeof(reply));
	} else if (r->over && !strcmp(req, "stop")) {
		/* the trace is written: answered now, and no longer listed */
		snprintf(reply, sizeof(reply), "exit %d", r->over_status);
		tbctl_ctl_reply(cfd, reply);
		close(cfd);
		r->answered = true;
		record_ctl_close(r, r->over_status);
		return;
	} else if (r->over && !strncmp(req, "alert ", 6)) {
		snprintf(reply, sizeof(reply), "the recording is over: it waits for %.1000s",
			 r->o->command[0]);
	} else if (r->over && !strncmp(req, "snapshot", 8)) {
		snprintf(reply, sizeof(reply), "error: the recording is over");
	} else if (!strncmp(req, "alert ", 6)) {
		did = record_alert(r, req + 6);
		snprintf(reply, sizeof(reply), "ok%s%s", did ? " " : "", did ? did : "");
	} else if (!strcmp(req, "snapshot") || !strncmp(req, "snapshot /", 10)) {
		record_snapshot(r, req[8] ? req + 9 : NULL, reply, sizeof(reply));
	} else if (!strcmp(req, "stop") && r->nstop_fds < (int)TBCTL_ARRAY_SIZE(r->stop_fds)) {
		/* answered with the exit status once the trace is written */
		r->stop_requested = true;
		r->stop_fds[r->nstop_fds++] = cfd;
		return;
	} else {
		snprintf(reply, sizeof(reply), "error: unknown request");
	}
	tbctl_ctl_reply(cfd, reply);
	close(cfd);
}

/* The trace is written: answer the "stop" requests with @status. */
void record_ctl_answer(struct record_run *r, int status)
{
	char reply[32];

	snprintf(reply, sizeof(reply), "exit %d", status);
	for (int i = 0; i < r->nstop_fds; i++) {
		tbctl_ctl_reply(r->stop_fds[i], reply);
		close(r->stop_fds[i]);
		r->answered = true;
	}
	r->nstop_fds = 0;
}

/*
 * The end, with record's exit status @status: stop listening.  The log
 * of a detached session is left to the "stop" that reads it, else
 * removed: a session that ended by itself (duration, trigger, COMMAND)
 * leaves nothing behind, unless its status is not 0.
 */
void record_ctl_close(struct record_run *r, int status)
{
	/* before it started, the parent shows and removes it */
	bool log = r->detached && r->started && !r->answered;
	char line[1024], json[1024];
	int ret;

	if (r->ctl_fd < 0)
		return;
	/* ended by itself, not as asked: kept for "status" and "stop" */
	if (log && status) {
		r->ended = true;
		r->exit_status = status;
		record_ctl_status(r, false, line, sizeof(line));
		record_ctl_status(r, true, json, sizeof(json));
		ret = tbctl_ctl_end(r->rundir, getpid(), status, line, json);
		if (!ret)
			log = false;
		else
			tbctl_err("%s: cannot keep the session's status: %s", r->rundir,
				  strerror(-ret));
	}
	close(r->ctl_fd);
	r->ctl_fd = -1;
	tbctl_ctl_unlink(r->rundir, getpid(), log);
}
