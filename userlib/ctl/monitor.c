// SPDX-License-Identifier: MIT
/*
 * tracebufctl monitor: the registry's events as they happen (the
 * "events" group of the generic netlink family), one line each, until
 * SIGINT or SIGTERM.
 *
 * The group is joined before the signals are blocked: once SIGINT and
 * SIGTERM are blocked (and read from a signalfd, like record does), every
 * event from then on is printed and a signal ends the command with 0.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "nl.h"
#include "tracebufctl.h"
#include "util.h"

static const char *event_name(uint8_t cmd)
{
	switch (cmd) {
	case TRACEBUF_CMD_PROVIDER_NEW:
		return "new";
	case TRACEBUF_CMD_PROVIDER_CHANGE:
		return "change";
	case TRACEBUF_CMD_PROVIDER_DEL:
		return "del";
	default:
		return "?";
	}
}

static void event_print_json(FILE *f, uint8_t cmd, const struct tbctl_provider *p)
{
	fprintf(f, "{\"event\":\"%s\",\"id\":%u,\"pid\":%u,\"name\":", event_name(cmd),
		p->id, p->pid);
	tbctl_json_cstr(f, p->name);
	fputs(",\"state\":", f);
	tbctl_json_cstr(f, tbctl_state_name(p->state));
	fputs(",\"manager\":", f);
	if (p->manager_id)
		fprintf(f, "%u", p->manager_id);
	else
		fputs("null", f);
	fputs(",\"mode\":", f);
	if (p->mode)
		tbctl_json_cstr(f, tbctl_mode_name(p->mode));
	else
		fputs("null", f);
	fprintf(f, ",\"buffer_size\":%llu", (unsigned long long)p->buffer_size);
	tbctl_json_counters(f, p);
	fputs("}\n", f);
}

void tbctl_event_print(FILE *f, uint8_t cmd, const struct tbctl_provider *p, bool json)
{
	char mgr[16] = "-";

	if (json) {
		event_print_json(f, cmd, p);
		return;
	}
	if (p->manager_id)
		snprintf(mgr, sizeof(mgr), "%u", p->manager_id);
	fprintf(f, "%s id %u pid %u name ", event_name(cmd), p->id, p->pid);
	tbctl_fputs_safe(f, p->name, 0);
	fprintf(f, " state %s manager %s", tbctl_state_name(p->state), mgr);
	if (p->mode || p->buffer_size)
		fprintf(f, " mode %s buffer %llu", tbctl_mode_name(p->mode),
			(unsigned long long)p->buffer_size);
	putc('\n', f);
}

/* ------------------------------------------------------------------------ */
/* The command                                                              */

static void monitor_usage(FILE *f)
{
	fprintf(f,
		"Usage: " TBCTL_PROG " monitor [-j]\n"
		"\n"
		"Print the registry's events as they happen, one line each, until\n"
		"SIGINT or SIGTERM (then exit 0):\n"
		"\n"
		"  new|change|del id ID pid PID name NAME state STATE manager ID|-\n"
		"      [mode MODE buffer BYTES]\n"
		"\n"
		"new: a provider registered; change: its state or manager changed;\n"
		"del: it unregistered (with its last state).  mode and buffer appear\n"
		"while it has a buffer.  Pids are those of the initial pid namespace,\n"
		"so this needs CAP_SYS_ADMIN.  Over generic netlink only.\n"
		"\n"
		"Options:\n"
		"  -j, --json   one JSON object per line instead (with the counters)\n"
		"  -h, --help   print this help and exit\n");
}

struct monitor_out {
	bool json;
	int write_err;		/* -errno of a failed write to stdout */
};

/* Each line goes out at once: readers are often pipes. */
static int monitor_event(uint8_t cmd, const struct tbctl_provider *p, void *arg)
{
	struct monitor_out *o = arg;

	tbctl_event_print(stdout, cmd, p, o->json);
	if (fflush(stdout)) {
		o->write_err = errno ? -errno : -EIO;
		return o->write_err;
	}
	return 0;
}

/* Wait for events and signals; 0 after SIGINT or SIGTERM. */
static int monitor_loop(struct tbctl_nl *nl, int sig_fd, bool json)
{
	struct monitor_out o = { .json = json };
	struct signalfd_siginfo si;
	bool lost_reported = false;
	int ret;

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = sig_fd, .events = POLLIN },
			{ .fd = tbctl_nl_fd(nl), .events = POLLIN },
		};

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			tbctl_err("poll: %s", strerror(-ret));
			return ret;
		}
		if (pfd[0].revents) {
			/* consumed, or it would kill us once unblocked */
			while (read(sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				;
			return 0;
		}
		if (!pfd[1].revents)
			continue;
		ret = tbctl_nl_events_read(nl, monitor_event, &o);
		if (ret == -ENOBUFS) {
			/* the socket overran: say so once, and go on */
			if (!lost_reported)
				tbctl_err("warning: events were lost (the receive buffer overran)");
			lost_reported = true;
			continue;
		}
		if (ret == -EINTR || ret == -EAGAIN)
			continue;
		if (ret == -EINVAL) {
			tbctl_err("malformed event from the kernel");
			return ret;
		}
		if (ret && o.write_err) {
			tbctl_err("write error: %s", strerror(-ret));
			return ret;
		}
		if (ret) {
			tbctl_nl_err(nl, ret, "reading events");
			return ret;
		}
	}
}

int cmd_monitor(struct tbctl_ctx *ctx, int argc, char **argv)
{
	sigset_t set, oldmask;
	bool json = ctx->json;
	struct tbctl_nl *nl;
	int ret, sig_fd;

	ret = tbctl_view_opts("monitor", argc, argv, monitor_usage, &json, NULL, NULL);
	if (ret)
		return ret < 0 ? ret : 0;

	ret = tbctl_nl_open(&nl);
	if (ret)
		return tbctl_nl_err(NULL, ret, "generic netlink");
	ret = tbctl_nl_events_join(nl);
	if (ret == -EPERM || ret == -EACCES) {
		tbctl_err("permission denied: monitor needs CAP_SYS_ADMIN (events carry the pids of every namespace)");
		goto out_close;
	}
	if (ret == -EOPNOTSUPP) {
		tbctl_err("the tracebuf generic netlink family has no \"%s\" group",
			  TRACEBUF_GENL_MCGRP_EVENTS);
		goto out_close;
	}
	if (ret) {
		tbctl_nl_err(nl, ret, "joining the events group");
		goto out_close;
	}

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, &oldmask)) {
		ret = -errno;
		tbctl_err("sigprocmask: %s", strerror(-ret));
		goto out_close;
	}
	sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sig_fd < 0) {
		ret = -errno;
		tbctl_err("signalfd: %s", strerror(-ret));
		goto out_restore;
	}
	ret = monitor_loop(nl, sig_fd, json);
	close(sig_fd);
out_restore:
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
out_close:
	tbctl_nl_close(nl);
	return ret;
}
