// SPDX-License-Identifier: MIT
/*
 * tracebufctl status, stop, snapshot and alert: the recording sessions
 * running on this machine, over their control sockets (ctlsock.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctlsock.h"
#include "tracebufctl.h"
#include "util.h"

#define SESSIONS_DIR_MAX	256

/* A session id as written: digits only, a pid. */
static int sessions_parse_id(const char *cmd, const char *w, pid_t *id)
{
	char msg[160];
	unsigned long v = 0;
	const char *p;

	for (p = w; *p >= '0' && *p <= '9' && v <= INT_MAX; p++)
		v = v * 10 + (unsigned long)(*p - '0');
	if (p == w || *p || !v || v > INT_MAX) {
		snprintf(msg, sizeof(msg), "%s: invalid session id '%s'", cmd, w);
		return tbctl_usage_err(cmd, msg);
	}
	*id = (pid_t)v;
	return 0;
}

/* The ids words[0..n) name, in a malloc'd *ids: n, or -errno after a message. */
static int sessions_parse_ids(const char *cmd, char *const *words, size_t n, pid_t **ids)
{
	int ret;

	*ids = calloc(n ? n : 1, sizeof(**ids));
	if (!*ids) {
		tbctl_err("out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		ret = sessions_parse_id(cmd, words[i], &(*ids)[i]);
		if (ret)
			return ret;
	}
	return (int)n;
}

/* Every session running, in a malloc'd *ids: their count, or -errno after a message. */
static int sessions_list(const char *dir, pid_t **ids)
{
	int n = tbctl_ctl_sessions(dir, ids);

	if (n < 0)
		tbctl_err("%s: %s", dir, strerror(-n));
	return n;
}

/*
 * Name the sessions a command without an ID could be for (run[0..nrun)
 * running, end[0..nend) ended), and refuse: -ESRCH.
 */
static int sessions_ambiguous(const char *cmd, const pid_t *run, int nrun, const pid_t *end,
			      int nend)
{
	char list[512], item[48];
	size_t at = 0;
	int i, n;

	list[0] = '\0';
	for (i = 0; i < nrun + nend; i++) {
		n = snprintf(item, sizeof(item), "%s%d (%s)", i ? ", " : "",
			     (int)(i < nrun ? run[i] : end[i - nrun]),
			     i < nrun ? "running" : "ended");
		/* room for it, and for the words after the last one */
		if (n < 0 || at + (size_t)n + sizeof(", and 99999 more") > sizeof(list))
			break;
		memcpy(list + at, item, (size_t)n + 1);
		at += (size_t)n;
	}
	if (i < nrun + nend)
		snprintf(list + at, sizeof(list) - at, ", and %d more", nrun + nend - i);
	tbctl_err("%s: %d sessions could be meant: %s: name one", cmd, nrun + nend, list);
	return -ESRCH;
}

/*
 * The session a command is for: ID if given, else the only one it could
 * be.  For "stop", those running and those that ended by themselves and
 * wait for it (status's "ended (STATUS)"); for the others, those
 * running.  None, or more than one: said, -ESRCH.  0, or -errno after a
 * message.
 */
static int sessions_pick(const char *cmd, const char *dir, const char *word, pid_t *id)
{
	pid_t *run, *end = NULL;
	int nrun, nend = 0, kept = 0, ret = 0;

	if (word)
		return sessions_parse_id(cmd, word, id);
	nrun = sessions_list(dir, &run);
	if (nrun < 0)
		return nrun;
	if (!strcmp(cmd, "stop")) {
		nend = tbctl_ctl_ended_list(dir, &end);
		if (nend < 0) {
			tbctl_err("%s: %s", dir, strerror(-nend));
			ret = nend;
			goto out;
		}
		/* one that ends now may be in both: it is running */
		for (int i = 0; i < nend; i++) {
			bool running = false;

			for (int j = 0; j < nrun && !running; j++)
				running = end[i] == run[j];
			if (!running)
				end[kept++] = end[i];
		}
		nend = kept;
	}
	if (nrun + nend == 1) {
		*id = nrun ? run[0] : end[0];
	} else if (!nrun && !nend) {
		tbctl_err("%s: no recording session is running", cmd);
		ret = -ESRCH;
	} else {
		ret = sessions_ambiguous(cmd, run, nrun, end, nend);
	}
out:
	free(run);
	free(end);
	return ret;
}

static int sessions_request_err(const char *cmd, pid_t id, int err)
{
	if (err == -ESRCH)
		tbctl_err("%s: no session %d is running", cmd, (int)id);
	else
		tbctl_err("%s: session %d: %s", cmd, (int)id, strerror(-err));
	return err;
}

/* An ended session's last status line (or JSON) into reply: 0, or -ESRCH. */
static int sessions_ended(const char *dir, pid_t id, bool json, char *reply, size_t len)
{
	int status;

	if (json)
		return tbctl_ctl_ended(dir, id, &status, NULL, 0, reply, len);
	return tbctl_ctl_ended(dir, id, &status, reply, len, NULL, 0);
}

static void status_usage(FILE *f)
{
	fprintf(f,
		"Usage: " TBCTL_PROG " [-j] status [ID...]\n"
		"\n"
		"The recording sessions running on this machine, in the foreground\n"
		"or detached: their id, mode, state, number of providers, bytes\n"
		"recorded so far (as the providers' buffers say), bytes written to\n"
		"the file (in oneshot and circular modes only its first record\n"
		"until the end), records dropped and output.  The state is\n"
		"'recording', 'stopping', or 'waiting' once the trace is written and\n"
		"COMMAND runs on.  A session that was killed is not shown (its files\n"
		"are removed, and its temporary output file).  A detached one that\n"
		"ended by itself with a non-zero status (COMMAND's, if it waited for\n"
		"it) is, as 'ended (STATUS)', until 'stop' shows its messages.\n"
		"\n"
		"Options:\n"
		"  -j, --json    a JSON array\n"
		"  -h, --help    print this help and exit\n");
}

int cmd_status(struct tbctl_ctx *ctx, int argc, char **argv)
{
	char dir[SESSIONS_DIR_MAX], reply[TBCTL_CTL_MSG_MAX];
	pid_t *ids = NULL;
	char **words;
	size_t nwords = 0;
	int n, ret, shown = 0;

	words = calloc((size_t)argc + 1, sizeof(*words));
	if (!words) {
		tbctl_err("out of memory");
		return -ENOMEM;
	}
	ret = tbctl_view_opts("status", argc, argv, status_usage, &ctx->json, words, &nwords);
	if (ret) {
		ret = ret == 1 ? 0 : ret;
		goto out;
	}
	ret = tbctl_rundir(dir, sizeof(dir), false, true);
	if (ret && ret != -ENOENT)
		goto out;
	/* the sessions named, each of which must be running, or every one */
	if (nwords)
		n = sessions_parse_ids("status", words, nwords, &ids);
	else
		n = ret ? 0 : sessions_list(dir, &ids);
	if (n < 0) {
		ret = n;
		goto out;
	}
	if (ctx->json)
		putchar('[');
	else
		printf("%-8s %-10s %-10s %9s %10s %10s %9s  %s\n", "ID", "MODE", "STATE",
		       "PROVIDERS", "RECORDED", "WRITTEN", "DROPPED", "OUTPUT");
	for (int i = 0; i < n; i++) {
		ret = tbctl_ctl_request(dir, ids[i], ctx->json ? "status json" : "status",
					reply, sizeof(reply), 5000);
		if (ret == -ESRCH && !nwords)
			continue;	/* ended since it was listed */
		if (ret == -ESRCH)
			ret = sessions_ended(dir, ids[i], ctx->json, reply, sizeof(reply));
		if (ret) {
			if (ctx->json)
				puts("]");
			sessions_request_err("status", ids[i], ret);
			goto out;
		}
		if (ctx->json)
			printf("%s%s", shown ? "," : "", reply);
		else
			printf("%s\n", reply);
		shown++;
	}
	/* and those that ended by themselves, not as asked, until "stop" */
	free(ids);
	ids = NULL;
	n = nwords ? 0 : tbctl_ctl_ended_list(dir, &ids);
	for (int i = 0; i < n; i++) {
		if (sessions_ended(dir, ids[i], ctx->json, reply, sizeof(reply)))
			continue;
		if (ctx->json)
			printf("%s%s", shown ? "," : "", reply);
		else
			printf("%s\n", reply);
		shown++;
	}
	if (ctx->json)
		puts("]");
	ret = 0;
out:
	free(ids);
	free(words);
	if (!ret && fflush(stdout)) {
		ret = -errno;
		tbctl_err("write error: %s", strerror(-ret));
	}
	return ret;
}

static void stop_usage(FILE *f)
{
	fprintf(f,
		"Usage: " TBCTL_PROG " stop [ID]\n"
		"\n"
		"Stop recording session ID (see 'status'), as SIGINT stops a\n"
		"foreground one: the providers are stopped and the trace file\n"
		"written.  Waits until it is, prints what a detached session said\n"
		"(its summary and warnings), and exits with the session's exit\n"
		"status ('" TBCTL_PROG " record --help').  One that waits for its\n"
		"COMMAND, its trace written, answers at once with the trace's status\n"
		"and goes on waiting, no longer listed.  For a detached session that\n"
		"ended by itself with a non-zero status (see 'status'), prints what\n"
		"it said and exits with that status.\n"
		"\n"
		"Without ID: the one session that is running or ended so.  When\n"
		"more than one could be meant, none is stopped: an error names them\n"
		"and the exit status is 1.\n"
		"\n"
		"Options:\n"
		"  -h, --help    print this help and exit\n");
}

int cmd_stop(struct tbctl_ctx *ctx, int argc, char **argv)
{
	char dir[SESSIONS_DIR_MAX], reply[TBCTL_CTL_MSG_MAX];
	char *words[2] = { NULL, NULL };
	bool json = false;
	size_t nwords = 0;
	int ret, status;
	pid_t id;

	(void)ctx;
	if (argc > 3)
		return tbctl_usage_err("stop", "stop: one session id at most");
	ret = tbctl_view_opts("stop", argc, argv, stop_usage, &json, words, &nwords);
	if (ret)
		return ret == 1 ? 0 : ret;
	if (json)
		return tbctl_usage_err("stop", "stop: unknown option '-j'");
	ret = tbctl_rundir(dir, sizeof(dir), false, true);
	if (ret == -ENOENT) {
		tbctl_err("stop: no recording session is running");
		return -ESRCH;
	}
	if (ret)
		return ret;
	ret = sessions_pick("stop", dir, words[0], &id);
	if (ret)
		return ret;
	ret = tbctl_ctl_request(dir, id, "stop", reply, sizeof(reply), -1);
	/* it ended by itself: what it said, and its status */
	if (ret == -ESRCH && !tbctl_ctl_ended(dir, id, &status, NULL, 0, NULL, 0)) {
		tbctl_ctl_show_log(dir, id);
		return status;
	}
	if (ret)
		return sessions_request_err("stop", id, ret);
	if (sscanf(reply, "exit %d", &status) != 1) {
		tbctl_err("stop: session %d: %s", (int)id, reply);
		return -EIO;
	}
	tbctl_ctl_show_log(dir, id);
	return status;
}

static void snapshot_usage(FILE *f)
{
	fprintf(f,
		"Usage: " TBCTL_PROG " snapshot [-o FILE] [ID]\n"
		"\n"
		"Write what the providers of recording session ID (see 'status';\n"
		"default: the only one running) hold in their buffers now, as a trace\n"
		"of its own, while they go on recording: a flight recorder's dump.\n"
		"For sessions in circular and oneshot mode.  The session's own trace\n"
		"is not affected.  Exits 1 if a provider's data is missing from it\n"
		"(a warning says why) or none could be written.\n"
		"\n"
		"Options:\n"
		"  -o, --output FILE   the snapshot (default: the session's output\n"
		"                      with .snapshot-N before its extension, e.g.\n"
		"                      trace.snapshot-1.fxt); FILE.gz, FILE.zst:\n"
		"                      compressed\n"
		"  -h, --help          print this help and exit\n");
}

static const struct tbctl_opt snapshot_opts[] = {
	{ "output", 'o', TBCTL_REQ_ARG, 'o' },
	{ "help", 'h', TBCTL_NO_ARG, 'h' },
	{ 0 }
};

int cmd_snapshot(struct tbctl_ctx *ctx, int argc, char **argv)
{
	struct tbctl_getopt g = { .argc = argc, .argv = argv, .ind = 1 };
	char dir[SESSIONS_DIR_MAX], reply[TBCTL_CTL_MSG_MAX], req[PATH_MAX + 16];
	char cwd[PATH_MAX], err[256] = "", msg[300], human[32];
	const char *out = NULL, *word = NULL, *rest;
	unsigned long long bytes;
	int ret, providers, at = 0;
	pid_t id;

	(void)ctx;
	while ((ret = tbctl_getopt(&g, snapshot_opts, err, sizeof(err))) != TBCTL_GETOPT_END) {
		switch (ret) {
		case 'o':
			out = g.arg;
			break;
		case 'h':
			snapshot_usage(stdout);
			return 0;
		case TBCTL_GETOPT_ARG:
			if (word)
				return tbctl_usage_err("snapshot", "snapshot: one session id at most");
			word = g.arg;
			break;
		default:
			snprintf(msg, sizeof(msg), "snapshot: %s", err);
			return tbctl_usage_err("snapshot", msg);
		}
	}
	/* after "--": the session id */
	for (; g.dashdash && g.ind < argc; g.ind++) {
		if (word)
			return tbctl_usage_err("snapshot", "snapshot: one session id at most");
		word = argv[g.ind];
	}
	if (out && (!*out || !strcmp(out, "-")))
		return tbctl_usage_err("snapshot", "snapshot: -o needs a file (the session writes it)");
	/* the session has a directory of its own: the path goes absolute */
	if (out && out[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd))) {
			int ret = -errno;

			tbctl_err("snapshot: getcwd: %s", strerror(-ret));
			return ret;
		}
		at = snprintf(req, sizeof(req), "snapshot %s/%s", cwd, out);
	} else {
		at = snprintf(req, sizeof(req), out ? "snapshot %s" : "snapshot", out);
	}
	if (at < 0 || (size_t)at >= sizeof(req)) {
		tbctl_err("snapshot: %s: name too long", out);
		return -ENAMETOOLONG;
	}
	ret = tbctl_rundir(dir, sizeof(dir), false, true);
	if (ret == -ENOENT) {
		tbctl_err("snapshot: no recording session is running");
		return -ESRCH;
	}
	if (ret)
		return ret;
	ret = sessions_pick("snapshot", dir, word, &id);
	if (ret)
		return ret;
	ret = tbctl_ctl_request(dir, id, req, reply, sizeof(reply), 120000);
	if (ret)
		return sessions_request_err("snapshot", id, ret);
	if (sscanf(reply, "ok %d %llu %n", &providers, &bytes, &at) != 2) {
		tbctl_err("snapshot: session %d: %s", (int)id,
			  strncmp(reply, "error: ", 7) ? reply : reply + 7);
		return -EIO;
	}
	rest = reply + at;
	printf("%.*s: %s from %d provider%s\n", (int)strcspn(rest, "\n"), rest,
	       tbctl_human_bytes(bytes, human, sizeof(human)), providers,
	       providers == 1 ? "" : "s");
	/* the lines after the first: warnings */
	for (at = 0; (rest = strchr(rest, '\n')); at++) {
		rest++;
		fprintf(stderr, TBCTL_PROG ": %.*s\n", (int)strcspn(rest, "\n"), rest);
	}
	return at || !providers ? -ENODATA : 0;
}

static void alert_usage(FILE *f)
{
	fprintf(f,
		"Usage: " TBCTL_PROG " alert NAME [ID...]\n"
		"\n"
		"Send the alert NAME to recording sessions ID (default: every one\n"
		"running), as a provider sends one: a session whose trigger names it\n"
		"(record's option of that name) stops and writes its trace (NAME:stop)\n"
		"or writes a snapshot (NAME:snapshot).  Prints what each session did;\n"
		"exits 1 when no session is running or none acted on it (none has a\n"
		"trigger for NAME, or their recording is over).\n"
		"\n"
		"Options:\n"
		"  -h, --help    print this help and exit\n");
}

int cmd_alert(struct tbctl_ctx *ctx, int argc, char **argv)
{
	char dir[SESSIONS_DIR_MAX], reply[TBCTL_CTL_MSG_MAX], req[TRACEBUF_ALERT_NAME_MAX + 8];
	pid_t *ids = NULL;
	char **words;
	size_t nwords = 0, len;
	bool json = false;
	int n = 0, ret, acted = 0, untriggered = 0;

	(void)ctx;
	words = calloc((size_t)argc + 1, sizeof(*words));
	if (!words) {
		tbctl_err("out of memory");
		return -ENOMEM;
	}
	ret = tbctl_view_opts("alert", argc, argv, alert_usage, &json, words, &nwords);
	if (ret) {
		ret = ret == 1 ? 0 : ret;
		goto out;
	}
	ret = json ? tbctl_usage_err("alert", "alert: unknown option '-j'") :
	      !nwords ? tbctl_usage_err("alert", "alert: missing NAME") : 0;
	if (ret)
		goto out;
	len = strlen(words[0]);
	if (!len || len > TRACEBUF_ALERT_NAME_MAX || strpbrk(words[0], " \t\n")) {
		char msg[160];

		snprintf(msg, sizeof(msg), "alert: invalid alert name (1 to %d bytes, no blanks)",
			 TRACEBUF_ALERT_NAME_MAX);
		ret = tbctl_usage_err("alert", msg);
		goto out;
	}
	snprintf(req, sizeof(req), "alert %s", words[0]);
	ret = tbctl_rundir(dir, sizeof(dir), false, true);
	if (ret && ret != -ENOENT)
		goto out;
	if (nwords > 1)
		n = sessions_parse_ids("alert", words + 1, nwords - 1, &ids);
	else if (!ret)
		n = sessions_list(dir, &ids);
	if (n < 0) {
		ret = n;
		goto out;
	}
	if (!n) {
		tbctl_err("alert: no recording session is running");
		ret = -ESRCH;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		ret = tbctl_ctl_request(dir, ids[i], req, reply, sizeof(reply), 5000);
		if (ret) {
			sessions_request_err("alert", ids[i], ret);
			goto out;
		}
		if (!strcmp(reply, "ok")) {
			printf("session %d: no trigger for %s\n", (int)ids[i], words[0]);
			untriggered++;
		} else if (!strncmp(reply, "ok ", 3)) {
			printf("session %d: %s\n", (int)ids[i], reply + 3);
			acted++;
		} else {
			printf("session %d: %s\n", (int)ids[i], reply);
		}
	}
	/* one that did not act for another reason said why, above */
	if (!acted && untriggered == n)
		tbctl_err("alert: no session has a trigger for %s", words[0]);
	else if (!acted)
		tbctl_err("alert: no session acted on %s", words[0]);
	ret = acted ? 0 : -ESRCH;
out:
	free(ids);
	free(words);
	return ret;
}
