// SPDX-License-Identifier: MIT
/*
 * tracebufctl: global options, command dispatch, error reporting.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracebufctl.h"
#include "util.h"

struct tbctl_cmd {
	const char *name;
	int (*fn)(struct tbctl_ctx *ctx, int argc, char **argv);
	const char *summary;
};

static const struct tbctl_cmd tbctl_cmds[] = {
	{ "record", cmd_record, "record providers into an FXT trace file" },
	{ "list", cmd_list, "list the registered providers" },
	{ "stats", cmd_stats, "print the providers' counters" },
	{ "monitor", cmd_monitor, "print the registry's events as they happen" },
	{ "categories", cmd_categories, "list the categories each provider published" },
	{ "dump", cmd_dump, "print the records of an FXT file, one per line" },
	{ "convert", cmd_convert, "convert an FXT file to Chrome trace-event JSON" },
	{ "report", cmd_report, "summarize an FXT file: slices, counters, drops..." },
	{ "status", cmd_status, "list the recording sessions running on this machine" },
	{ "stop", cmd_stop, "stop a recording session and write its trace" },
	{ "snapshot", cmd_snapshot, "write what a recording session holds now, and go on" },
	{ "alert", cmd_alert, "send an alert to the recording sessions (their triggers)" },
	{ "help", NULL, "print this help, or a command's" },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " TBCTL_PROG " [OPTIONS] COMMAND [ARGS...]\n"
		"       " TBCTL_PROG " COMMAND --help\n"
		"\n"
		"Commands (any unique prefix will do):\n");
	for (size_t i = 0; i < TBCTL_ARRAY_SIZE(tbctl_cmds); i++)
		fprintf(f, "  %-12s %s\n", tbctl_cmds[i].name, tbctl_cmds[i].summary);
	fprintf(f,
		"\n"
		"Options:\n"
		"  -D, --device PATH   the tracebuf device (default " TBCTL_DEVICE "); list\n"
		"                      then reads it instead of the netlink family\n"
		"  -j, --json          JSON output (list, stats, monitor, categories,\n"
		"                      report, status)\n"
		"  -V, --version       print the version and exit\n"
		"  -h, --help          print this help and exit\n"
		"\n"
		"Exit status: 0 on success, else 1 with one line on stderr; record --\n"
		"COMMAND exits with COMMAND's status (128+N if signal N killed it, 127\n"
		"if it could not be run), and record exits 3 to 8 when the trace is\n"
		"not what was asked ('" TBCTL_PROG " record --help').\n");
}

/* The index of the command word in tbctl_cmds, or -errno after a message. */
static int find_cmd(const char *word)
{
	const char *names[TBCTL_ARRAY_SIZE(tbctl_cmds) + 1];
	char msg[160];
	int i;

	for (i = 0; i < (int)TBCTL_ARRAY_SIZE(tbctl_cmds); i++)
		names[i] = tbctl_cmds[i].name;
	names[i] = NULL;
	i = tbctl_lookup(word, names);
	if (i >= 0)
		return i;
	if (i == -ENOENT) {
		snprintf(msg, sizeof(msg), "unknown command '%s'", word);
	} else {
		int len = snprintf(msg, sizeof(msg), "ambiguous command '%s':", word);

		for (i = 0; names[i] && len > 0 && (size_t)len < sizeof(msg); i++)
			if (tbctl_matches(word, names[i]))
				len += snprintf(msg + len, sizeof(msg) - (size_t)len, " %s",
						names[i]);
	}
	return tbctl_usage_err(NULL, msg);
}

static const struct tbctl_opt main_opts[] = {
	{ "device", 'D', TBCTL_REQ_ARG, 'D' },
	{ "json", 'j', TBCTL_NO_ARG, 'j' },
	{ "version", 'V', TBCTL_NO_ARG, 'V' },
	{ "help", 'h', TBCTL_NO_ARG, 'h' },
	{ 0 }
};

int main(int argc, char **argv)
{
	struct tbctl_getopt g = { .argc = argc, .argv = argv, .ind = 1 };
	struct tbctl_ctx ctx = { 0 };
	const struct tbctl_cmd *cmd;
	char err[160];
	int ret, i;

	for (;;) {
		ret = tbctl_getopt(&g, main_opts, err, sizeof(err));
		if (ret == TBCTL_GETOPT_END || ret == TBCTL_GETOPT_ARG)
			break;
		switch (ret) {
		case 'D':
			ctx.device = g.arg;
			break;
		case 'j':
			ctx.json = true;
			break;
		case 'V':
			printf(TBCTL_PROG " %s (tracebuf ABI %d.%d)\n", TBCTL_VERSION,
			       TRACEBUF_ABI_MAJOR, TRACEBUF_ABI_MINOR);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			tbctl_usage_err(NULL, err);
			return 1;
		}
	}
	/* the command is the first word that is not a global option */
	i = ret == TBCTL_GETOPT_ARG ? g.ind - 1 : g.ind;
	if (i >= argc) {
		tbctl_usage_err(NULL, "missing command");
		return 1;
	}
	ret = find_cmd(argv[i]);
	if (ret < 0)
		return 1;
	cmd = &tbctl_cmds[ret];
	if (!cmd->fn) {		/* help [COMMAND] */
		char *help[] = { NULL, (char *)"--help", NULL };

		if (i + 1 >= argc || !strcmp(argv[i + 1], "-h") ||
		    !strcmp(argv[i + 1], "--help")) {
			usage(stdout);
			return 0;
		}
		if (i + 2 < argc) {
			tbctl_usage_err(NULL, "help: too many arguments");
			return 1;
		}
		ret = find_cmd(argv[i + 1]);
		if (ret < 0)
			return 1;
		cmd = &tbctl_cmds[ret];
		if (!cmd->fn) {
			usage(stdout);
			return 0;
		}
		help[0] = (char *)cmd->name;
		ret = cmd->fn(&ctx, 2, help);
		return ret < 0 ? 1 : ret;
	}
	ret = cmd->fn(&ctx, argc - i, argv + i);
	return ret < 0 ? 1 : ret;
}
