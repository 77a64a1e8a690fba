// SPDX-License-Identifier: MIT
/*
 * tracebufctl list: the registered providers.
 *
 * The transport fills struct tbctl_provider and the printers only see
 * that: the generic netlink dump (nl.c), or the manager ioctls
 * (tbctl_providers_fetch()) where there is no netlink family.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tracebuf_manager.h>

#include "nl.h"
#include "tracebufctl.h"
#include "util.h"

const char *tbctl_state_name(uint32_t state)
{
	static const char *const names[] = {
		[TRACEBUF_STATE_REGISTERED] = "registered",
		[TRACEBUF_STATE_INITIALIZED] = "initialized",
		[TRACEBUF_STATE_STARTING] = "starting",
		[TRACEBUF_STATE_STARTED] = "started",
		[TRACEBUF_STATE_STOPPING] = "stopping",
		[TRACEBUF_STATE_STOPPED] = "stopped",
		[TRACEBUF_STATE_TERMINATING] = "terminating",
	};

	return state < TBCTL_ARRAY_SIZE(names) && names[state] ? names[state] : "?";
}

const char *tbctl_mode_name(uint32_t mode)
{
	static const char *const names[] = {
		[TRACEBUF_MODE_ONESHOT] = "oneshot",
		[TRACEBUF_MODE_CIRCULAR] = "circular",
		[TRACEBUF_MODE_STREAMING] = "streaming",
	};

	if (!mode)
		return "-";
	return mode < TBCTL_ARRAY_SIZE(names) && names[mode] ? names[mode] : "?";
}

const char *tbctl_tracee_state_name(uint32_t state)
{
	static const char *const names[] = {
		[TRACEBUF_LIB_TRACEE_INITIALIZED] = "initialized",
		[TRACEBUF_LIB_TRACEE_STARTING] = "starting",
		[TRACEBUF_LIB_TRACEE_STARTED] = "started",
		[TRACEBUF_LIB_TRACEE_STOPPING] = "stopping",
		[TRACEBUF_LIB_TRACEE_STOPPED] = "stopped",
		[TRACEBUF_LIB_TRACEE_TERMINATING] = "terminating",
		[TRACEBUF_LIB_TRACEE_TERMINATED] = "terminated",
		[TRACEBUF_LIB_TRACEE_GONE] = "gone",
		[TRACEBUF_LIB_TRACEE_FAILED] = "failed",
		[TRACEBUF_LIB_TRACEE_BUSY] = "busy",
		[TRACEBUF_LIB_TRACEE_LEFT] = "left",
	};

	return state < TBCTL_ARRAY_SIZE(names) && names[state] ? names[state] : "?";
}

/* ------------------------------------------------------------------------ */
/* Transport: the manager ioctls                                            */

int tbctl_providers_fetch(const struct tbctl_ctx *ctx, struct tbctl_provider **out)
{
	struct tracebuf_provider_info *info = NULL;
	struct tracebuf_manager *m;
	struct tbctl_provider *p;
	int n, ret;

	*out = NULL;
	ret = tracebuf_manager_open(ctx->device, 0, &m);
	if (ret)
		return ret;
	n = tracebuf_manager_list(m, &info);
	tracebuf_manager_close(m);
	if (n <= 0)
		return n;
	p = calloc((size_t)n, sizeof(*p));
	if (!p) {
		free(info);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		p[i].id = info[i].id;
		p[i].pid = info[i].pid;
		p[i].state = info[i].state;
		p[i].mode = info[i].mode;
		p[i].buffer_size = info[i].buffer_size;
		p[i].manager_id = info[i].manager_id;
		p[i].mine = info[i].flags & TRACEBUF_INFO_F_MINE;
		p[i].has_counters = true;
		p[i].packets_sent = info[i].packets_sent;
		p[i].packets_received = info[i].packets_received;
		p[i].saves = info[i].saves;
		/* records_dropped: only the netlink family reports it */
		/* the kernel NUL-terminates; do not rely on it */
		memcpy(p[i].name, info[i].name, sizeof(p[i].name) - 1);
		p[i].name[sizeof(p[i].name) - 1] = '\0';
	}
	free(info);
	*out = p;
	return n;
}

/* ------------------------------------------------------------------------ */
/* Printing                                                                 */

static void providers_print_json(FILE *f, const struct tbctl_provider *p, size_t n)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s{\"id\":%u,\"pid\":%u,\"state\":", i ? "," : "", p[i].id, p[i].pid);
		tbctl_json_cstr(f, tbctl_state_name(p[i].state));
		fputs(",\"mode\":", f);
		if (p[i].mode)
			tbctl_json_cstr(f, tbctl_mode_name(p[i].mode));
		else
			fputs("null", f);
		fprintf(f, ",\"buffer_size\":%llu,\"manager\":",
			(unsigned long long)p[i].buffer_size);
		if (p[i].manager_id)
			fprintf(f, "%u", p[i].manager_id);
		else
			fputs("null", f);
		fprintf(f, ",\"mine\":%s", p[i].mine ? "true" : "false");
		tbctl_json_counters(f, &p[i]);
		fputs(",\"name\":", f);
		tbctl_json_cstr(f, p[i].name);
		fputc('}', f);
	}
	fputs("]\n", f);
}

/* The counters of a provider object, null where unknown (list, stats, monitor). */
void tbctl_json_counters(FILE *f, const struct tbctl_provider *p)
{
	if (p->has_counters)
		fprintf(f, ",\"packets_sent\":%llu,\"packets_received\":%llu,\"saves\":%llu",
			(unsigned long long)p->packets_sent,
			(unsigned long long)p->packets_received, (unsigned long long)p->saves);
	else
		fputs(",\"packets_sent\":null,\"packets_received\":null,\"saves\":null", f);
	fputs(",\"records_dropped\":", f);
	if (p->has_dropped)
		fprintf(f, "%llu", (unsigned long long)p->records_dropped);
	else
		fputs("null", f);
}

void tbctl_providers_print(FILE *f, const struct tbctl_provider *p, size_t n, bool json)
{
	if (json) {
		providers_print_json(f, p, n);
		return;
	}
	fprintf(f, "%5s %8s  %-11s %-9s %10s  %-7s %s\n", "ID", "PID", "STATE", "MODE",
		"BUFFER", "MANAGER", "NAME");
	for (size_t i = 0; i < n; i++) {
		char size[32] = "-", mgr[16] = "-";

		if (p[i].buffer_size)
			tbctl_human_bytes(p[i].buffer_size, size, sizeof(size));
		if (p[i].manager_id)
			snprintf(mgr, sizeof(mgr), "%u%s", p[i].manager_id, p[i].mine ? "*" : "");
		fprintf(f, "%5u %8u  %-11s %-9s %10s  %-7s ", p[i].id, p[i].pid,
			tbctl_state_name(p[i].state), tbctl_mode_name(p[i].mode), size, mgr);
		tbctl_fputs_safe(f, p[i].name, 0);
		putc('\n', f);
	}
}

/*
 * The providers for list: the generic netlink dump, unless -D names a
 * device (the family has no notion of one).  The ioctl path is only the
 * fallback for a module without the family (older than
 * TRACEBUF_FEAT_GENL): everything else is reported, not retried.
 * Errors are reported here.
 */
static int list_fetch(const struct tbctl_ctx *ctx, struct tbctl_provider **out)
{
	struct tbctl_nl *nl;
	int n;

	*out = NULL;
	if (!ctx->device) {
		n = tbctl_nl_open(&nl);
		if (!n) {
			n = tbctl_nl_provider_dump(nl, out);
			if (n < 0)
				tbctl_nl_err(nl, n, "provider dump");
			tbctl_nl_close(nl);
			return n;
		}
		if (n != -ENOENT)
			return tbctl_nl_err(NULL, n, "generic netlink");
	}
	n = tbctl_providers_fetch(ctx, out);
	if (n < 0)
		return tbctl_device_err(ctx, n);
	return n;
}

/* ------------------------------------------------------------------------ */
/* The command                                                              */

static void list_usage(FILE *f)
{
	fprintf(f,
		"Usage: " TBCTL_PROG " list [-j]\n"
		"\n"
		"List the registered providers: id, pid, state, buffering mode, buffer\n"
		"size, owning manager and name.  The JSON also has their counters\n"
		"(packets sent and received, saves, records dropped; see 'stats').\n"
		"\n"
		"Read over generic netlink; with -D, or with a module that has no\n"
		"netlink family, through the device's manager interface (no records\n"
		"dropped there).\n"
		"\n"
		"Options:\n"
		"  -j, --json   a JSON array instead of the table\n"
		"  -h, --help   print this help and exit\n");
}

int cmd_list(struct tbctl_ctx *ctx, int argc, char **argv)
{
	struct tbctl_provider *p;
	bool json = ctx->json;
	int ret, n;

	ret = tbctl_view_opts("list", argc, argv, list_usage, &json, NULL, NULL);
	if (ret)
		return ret < 0 ? ret : 0;
	n = list_fetch(ctx, &p);
	if (n < 0)
		return n;
	tbctl_providers_print(stdout, p, (size_t)n, json);
	free(p);
	if (fflush(stdout)) {
		tbctl_err("write error: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}
