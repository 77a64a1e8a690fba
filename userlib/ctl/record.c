// SPDX-License-Identifier: MIT
/*
 * tracebufctl record: trace providers into an FXT file.
 *
 * record_parse() turns argv into a struct record_opts and does nothing
 * else (tests/record_args_test.c drives it).  record_run() then:
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
#include <stdarg.h>
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
#include "tracebufctl.h"
#include "util.h"

#define RECORD_STATUS_INTERVAL_NS	250000000ULL
#define RECORD_MAGIC_BYTES		8	/* what a file holds at first */
#define NS_PER_SEC			1000000000ULL

/* ------------------------------------------------------------------------ */
/* Parsing                                                                  */

#define RECORD_OPT_TRIGGER	256
#define RECORD_OPT_BEST_EFFORT	257
#define RECORD_OPT_CONFIG	258
#define RECORD_OPT_PRINT_CONFIG	259
#define RECORD_OPT_DETACH	260
#define RECORD_OPT_MAX_SIZE	261
#define RECORD_OPT_ROTATE	262

/*
 * The options of record, on the command line and, by their long names, in
 * a --config file; --print-config prints them in this order.  A new
 * option needs its case in record_apply(), which checks its value for
 * both, sets a TBCTL_OPT_* bit of its own (by which the command line
 * overrides the file), and one in record_print_opt() (--print-config
 * fails without it).  record_cli_only() lists those a file may not hold.
 */
static const struct tbctl_opt record_opt_table[] = {
	{ "categories", 'c', TBCTL_REQ_ARG, 'c' },
	{ "mode", 'm', TBCTL_REQ_ARG, 'm' },
	{ "buffer-size", 'b', TBCTL_REQ_ARG, 'b' },
	{ "duration", 'd', TBCTL_REQ_ARG, 'd' },
	{ "max-size", 0, TBCTL_REQ_ARG, RECORD_OPT_MAX_SIZE },
	{ "rotate", 0, TBCTL_NO_ARG, RECORD_OPT_ROTATE },
	{ "provider", 'p', TBCTL_REQ_ARG, 'p' },
	{ "trigger", 0, TBCTL_REQ_ARG, RECORD_OPT_TRIGGER },
	{ "best-effort", 0, TBCTL_NO_ARG, RECORD_OPT_BEST_EFFORT },
	{ "output", 'o', TBCTL_REQ_ARG, 'o' },
	{ "quiet", 'q', TBCTL_NO_ARG, 'q' },
	{ "detach", 0, TBCTL_NO_ARG, RECORD_OPT_DETACH },
	{ "config", 0, TBCTL_REQ_ARG, RECORD_OPT_CONFIG },
	{ "print-config", 0, TBCTL_NO_ARG, RECORD_OPT_PRINT_CONFIG },
	{ "help", 'h', TBCTL_NO_ARG, 'h' },
	{ 0 }
};

/* Options of the command line only: refused in a file, never printed. */
static bool record_cli_only(int id)
{
	return id == 'h' || id == RECORD_OPT_CONFIG || id == RECORD_OPT_PRINT_CONFIG;
}

/* -m: TRACEBUF_MODE_ONESHOT, _CIRCULAR, _STREAMING are 1, 2, 3 */
static const char *const record_modes[] = { "oneshot", "circular", "streaming", NULL };

static void record_usage(FILE *f)
{
	fprintf(f,
		"Usage: " TBCTL_PROG " record [OPTIONS] [-- COMMAND [ARGS...]]\n"
		"\n"
		"Trace the registered providers (and those registering later) into an\n"
		"FXT file, until DURATION has passed, COMMAND has exited, a trigger\n"
		"alert arrived, the file reached --max-size, '" TBCTL_PROG " stop' or\n"
		"SIGINT/SIGTERM.\n"
		"\n"
		"Options:\n"
		"  -c, --categories CATS        categories to enable, comma separated\n"
		"                               (default: all); repeatable\n"
		"  -m, --mode MODE              oneshot (default), circular or streaming\n"
		"  -b, --buffer-size SIZE       buffer per provider (default 4M): bytes, or\n"
		"                               K, M, G (KiB, MiB, GiB); a multiple of 4K,\n"
		"                               and of the page size where larger\n"
		"  -b, --buffer-size NAME:SIZE  buffer of the providers named NAME; repeatable\n"
		"  -d, --duration TIME          stop after TIME: 500ms, 10s, 2m, 1h (a plain\n"
		"                               number is seconds)\n"
		"      --max-size SIZE          -m streaming: stop once the file holds SIZE\n"
		"                               (before compression); the providers' last\n"
		"                               data comes on top\n"
		"      --rotate                 with --max-size: go on in a new file instead\n"
		"                               of stopping, each a trace of its own that\n"
		"                               appears once full: FILE, then FILE with .1,\n"
		"                               .2... before its extension (trace.1.fxt,\n"
		"                               t.1.fxt.gz)\n"
		"  -p, --provider NAME          trace only providers named NAME; repeatable\n"
		"      --trigger ALERT:stop     stop when a provider sends the alert ALERT\n"
		"                               (or '" TBCTL_PROG " alert ALERT' does); repeatable\n"
		"      --trigger ALERT:snapshot write a snapshot then, and go on (circular,\n"
		"                               oneshot; see '" TBCTL_PROG " snapshot')\n"
		"  -o, --output FILE            the trace (default " TBCTL_DEFAULT_OUTPUT "); it appears\n"
		"                               only once the recording ended cleanly;\n"
		"                               FILE.gz, FILE.zst: compressed by gzip or\n"
		"                               zstd; -: standard output (COMMAND's own\n"
		"                               output then goes to stderr)\n"
		"  -q, --quiet                  no status line, no summary (warnings stay)\n"
		"      --detach                 record in the background: print the\n"
		"                               session's id once it runs, and exit 0 (see\n"
		"                               '" TBCTL_PROG " status', 'stop', 'alert')\n"
		"      --best-effort            a trace that is not what was asked (see\n"
		"                               below) still exits 0, or with COMMAND's\n"
		"                               status; the warnings stay\n"
		"      --config FILE            read these options from FILE (see below);\n"
		"                               once\n"
		"      --print-config           print the options in effect (FILE and\n"
		"                               command line) as a FILE, and exit\n"
		"  -h, --help                   print this help and exit\n"
		"\n"
		"With -- COMMAND, COMMAND is started once the session has started and\n"
		"recording stops when it exits; the exit status is then COMMAND's\n"
		"(128+N if signal N killed it).  If recording stops first, the trace\n"
		"is written and tracebufctl waits for COMMAND.\n"
		"\n"
		"Every recording is a session: '" TBCTL_PROG " status' lists it and\n"
		"'" TBCTL_PROG " stop' ends it.  A detached one keeps its messages for\n"
		"'stop', which prints them and exits with its status; one that ends by\n"
		"itself (DURATION, a trigger, COMMAND) leaves its trace, and, if its\n"
		"status is not 0, stays listed as 'ended (STATUS)' until 'stop'.\n"
		"\n"
		"A configuration FILE has one option a line: its long name, then its\n"
		"value if it takes one ('mode streaming', 'buffer-size app:16M',\n"
		"'quiet'); the value runs to the end of the line.  Lines starting with\n"
		"'#' are comments.  An option given on the command line replaces the\n"
		"file's: all the file's lines of it for categories, provider and\n"
		"trigger, and for buffer-size SIZE and buffer-size NAME:SIZE each apart.\n"
		"\n"
		"Exit status: 0 (or COMMAND's) when the trace holds what was asked; 1\n"
		"when no trace could be written (one line on stderr says why); else a\n"
		"warning says what is missing, and the status is the first of:\n"
		"  6  a wanted provider is traced by another manager\n"
		"  7  a provider could not be traced whole: its initialize or start was\n"
		"     refused (e.g. out of memory), it did not start or stop in time\n"
		"     (by the manager's clock or by its own), or it broke the protocol\n"
		"     or its buffer did not check out\n"
		"  4  a provider named with -p never registered\n"
		"  3  no provider was traced at all\n"
		"  5  a category given with -c is known by no traced provider\n"
		"  8  a snapshot a --trigger asked for failed or lacks a provider's data\n"
		"Records dropped for lack of room are counted in the trace and in a\n"
		"warning, and do not change the status.\n");
}

#define RECORD_ERR_PREFIX	"record: "

static int record_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One line "record: <fmt>" in err; returns -EINVAL. */
static int record_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, errlen, RECORD_ERR_PREFIX);
	if (n < 0 || (size_t)n >= errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int record_parse_categories(struct record_opts *o, const char *arg,
				   char *err, size_t errlen)
{
	const char *p = arg;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (!len)
			return record_err(err, errlen, "empty category in '%s'", arg);
		if (len > TRACEBUF_CATEGORY_MAX)
			return record_err(err, errlen,
					  "category '%.*s' is longer than %d bytes",
					  (int)len, p, TRACEBUF_CATEGORY_MAX);
		if (tbctl_strv_push(&o->categories, &o->ncategories, p, len))
			return -ENOMEM;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int record_check_name(const char *what, const char *name, size_t len,
			     char *err, size_t errlen)
{
	if (!len)
		return record_err(err, errlen, "empty %s", what);
	if (len > TRACEBUF_NAME_MAX)
		return record_err(err, errlen, "%s '%.*s' is longer than %d bytes",
				  what, (int)len, name, TRACEBUF_NAME_MAX);
	return 0;
}

/* -b SIZE or -b NAME:SIZE (opt: the option as written) */
static int record_parse_buffer(struct record_opts *o, const char *opt, const char *arg,
			       char *err, size_t errlen)
{
	const char *colon = strrchr(arg, ':');
	struct record_override *nv;
	char msg[160];
	uint64_t size;
	size_t len;
	int ret;

	ret = tbctl_parse_size(colon ? colon + 1 : arg, &size, msg, sizeof(msg));
	if (ret)
		return record_err(err, errlen, "%s %s: %s", opt, arg, msg);
	if (!colon) {
		o->buffer_size = size;
		o->present |= TBCTL_OPT_BUFFER_SIZE;
		return 0;
	}
	len = (size_t)(colon - arg);
	ret = record_check_name("provider name", arg, len, err, errlen);
	if (ret)
		return ret;
	for (size_t i = 0; i < o->noverrides; i++)
		if (strlen(o->overrides[i].name) == len &&
		    !strncmp(o->overrides[i].name, arg, len))
			return record_err(err, errlen,
					  "buffer size of provider '%.*s' given twice",
					  (int)len, arg);
	nv = realloc(o->overrides, (o->noverrides + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	o->overrides = nv;
	nv[o->noverrides].name = strndup(arg, len);
	if (!nv[o->noverrides].name)
		return -ENOMEM;
	nv[o->noverrides++].size = size;
	o->present |= TBCTL_OPT_OVERRIDE;
	return 0;
}

/* --trigger ALERT:stop, ALERT:snapshot; kept as given */
static int record_parse_trigger(struct record_opts *o, const char *arg,
				char *err, size_t errlen)
{
	const char *colon = strrchr(arg, ':');
	size_t len;

	if (!colon)
		return record_err(err, errlen,
				  "invalid trigger '%s' (expected ALERT:stop or ALERT:snapshot)",
				  arg);
	if (strcmp(colon + 1, "stop") && strcmp(colon + 1, "snapshot"))
		return record_err(err, errlen,
				  "unknown trigger action '%s' in '%s' (only 'stop', 'snapshot')",
				  colon + 1, arg);
	len = (size_t)(colon - arg);
	if (!len)
		return record_err(err, errlen, "empty alert name in trigger '%s'", arg);
	if (len > TRACEBUF_ALERT_NAME_MAX)
		return record_err(err, errlen, "alert name '%.*s' is longer than %d bytes",
				  (int)len, arg, TRACEBUF_ALERT_NAME_MAX);
	return tbctl_strv_push(&o->triggers, &o->ntriggers, arg, strlen(arg));
}

/*
 * record_apply() - the option id of record_opt_table with its value arg
 * (NULL for a flag) into *o: the one place that checks a value, for the
 * command line and a --config file alike.  opt is the option as written
 * ("-b", "--buffer-size", "buffer-size"), for messages.  Each option
 * sets its TBCTL_OPT_* bit (record_parse() merges the file and the
 * command line by them), but for those of the command line only.
 * Return: 0, -EINVAL or -ENOMEM, with one line in err.
 */
static int record_apply(struct record_opts *o, int id, const char *opt, const char *arg,
			char *err, size_t errlen)
{
	char msg[160];
	int ret = 0;

	switch (id) {
	case 'c':
		ret = record_parse_categories(o, arg, err, errlen);
		o->present |= TBCTL_OPT_CATEGORIES;
		break;
	case 'm':
		ret = tbctl_lookup(arg, record_modes);
		if (ret < 0)
			return record_err(err, errlen,
					  "invalid mode '%s' (oneshot, circular or streaming)", arg);
		o->mode = (uint32_t)ret + TRACEBUF_MODE_ONESHOT;
		o->present |= TBCTL_OPT_MODE;
		ret = 0;
		break;
	case 'b':
		ret = record_parse_buffer(o, opt, arg, err, errlen);
		break;
	case 'd':
		if (tbctl_parse_duration(arg, &o->duration_ns, msg, sizeof(msg)))
			return record_err(err, errlen, "%s %s: %s", opt, arg, msg);
		o->present |= TBCTL_OPT_DURATION;
		break;
	case RECORD_OPT_MAX_SIZE:
		if (tbctl_parse_bytes(arg, &o->max_size, msg, sizeof(msg)))
			return record_err(err, errlen, "%s %s: %s", opt, arg, msg);
		o->present |= TBCTL_OPT_MAX_SIZE;
		break;
	case RECORD_OPT_ROTATE:
		o->present |= TBCTL_OPT_ROTATE;
		break;
	case RECORD_OPT_DETACH:
		o->present |= TBCTL_OPT_DETACH;
		break;
	case 'p':
		ret = record_check_name("provider name", arg, strlen(arg), err, errlen);
		if (!ret)
			ret = tbctl_strv_push(&o->providers, &o->nproviders, arg, strlen(arg));
		o->present |= TBCTL_OPT_PROVIDER;
		break;
	case RECORD_OPT_TRIGGER:
		ret = record_parse_trigger(o, arg, err, errlen);
		o->present |= TBCTL_OPT_TRIGGER;
		break;
	case 'o':
		if (!*arg)
			return record_err(err, errlen, "empty output file name");
		o->output = arg;
		o->present |= TBCTL_OPT_OUTPUT;
		break;
	case 'q':
		o->present |= TBCTL_OPT_QUIET;
		break;
	case RECORD_OPT_BEST_EFFORT:
		o->present |= TBCTL_OPT_BEST_EFFORT;
		break;
	case RECORD_OPT_CONFIG:
		if (o->config)
			return record_err(err, errlen, "%s given twice (one file only)", opt);
		if (!*arg)
			return record_err(err, errlen, "empty configuration file name");
		o->config = arg;
		break;
	case RECORD_OPT_PRINT_CONFIG:
		o->print_config = true;
		break;
	case 'h':
		o->help = true;
		break;
	default:	/* in record_opt_table, not here */
		return record_err(err, errlen, "option '%s' is not implemented", opt);
	}
	if (ret == -ENOMEM) {
		record_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return ret;
}

static void record_opts_init(struct record_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->output = TBCTL_DEFAULT_OUTPUT;
}

/* The command line's options into *o, in their order; stops at -h. */
static int record_parse_argv(int argc, char **argv, struct record_opts *o,
			     char *err, size_t errlen)
{
	struct tbctl_getopt g = { .argc = argc, .argv = argv, .ind = 1 };
	char msg[160];
	int ret;

	for (;;) {
		ret = tbctl_getopt(&g, record_opt_table, msg, sizeof(msg));
		if (ret == TBCTL_GETOPT_END)
			break;
		if (ret < 0)
			return record_err(err, errlen, "%s", msg);
		if (ret == TBCTL_GETOPT_ARG)
			return record_err(err, errlen,
					  "unexpected argument '%s' (the command to run goes after '--')",
					  g.arg);
		ret = record_apply(o, ret, g.opt, g.arg, err, errlen);
		if (ret || o->help)
			return ret;
	}
	if (g.dashdash) {
		if (g.ind >= argc)
			return record_err(err, errlen, "missing command after '--'");
		o->command = argv + g.ind;
		o->ncommand = argc - g.ind;
		o->present |= TBCTL_OPT_COMMAND;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Configuration files                                                      */

/*
 * The format (README, tracebufctl(1)): one option a line, its long name,
 * blanks, its value (to the end of the line) if it takes one.  Blank
 * lines and lines whose first non-blank character is '#' are comments;
 * blanks at either end of a line are ignored.
 */

/* One option of a file. */
struct record_setting {
	const struct tbctl_opt *opt;
	const char *arg;		/* into record_opts.config_text; NULL: a flag */
	unsigned int line;
	unsigned int present;		/* the TBCTL_OPT_* bits it sets */
};

/* A blank: what separates a name from its value and ends a line. */
static bool record_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* path's text, NUL-terminated, into *text (malloc'd), its length in *len. */
static int record_config_read(const char *path, char **text, size_t *len,
			      char *err, size_t errlen)
{
	size_t n = 0, cap = TBCTL_CONFIG_MAX + 1;	/* one more: too large */
	char *buf;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		ret = -errno;
		record_err(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		record_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	while (n < cap) {
		ssize_t r = read(fd, buf + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			record_err(err, errlen, "%s: %s", path, strerror(-ret));
			break;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (!ret && n > TBCTL_CONFIG_MAX) {
		record_err(err, errlen, "%s: larger than %d KiB: not a configuration file",
			   path, TBCTL_CONFIG_MAX / 1024);
		ret = -EFBIG;
	}
	if (ret) {
		free(buf);
		return ret;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/* No NUL byte, no line longer than TBCTL_CONFIG_LINE_MAX. */
static int record_config_check(const char *path, const char *text, size_t len,
			       char *err, size_t errlen)
{
	unsigned int line = 1;
	size_t start = 0;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && text[i] == '\0')
			return record_err(err, errlen,
					  "%s:%u: a NUL byte: not a configuration file",
					  path, line);
		if (i < len && text[i] != '\n')
			continue;
		if (i - start > TBCTL_CONFIG_LINE_MAX)
			return record_err(err, errlen, "%s:%u: line longer than %d bytes",
					  path, line, TBCTL_CONFIG_LINE_MAX);
		start = i + 1;
		line++;
	}
	return 0;
}

static int record_msg(char *msg, size_t msglen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* fmt into msg; returns -EINVAL. */
static int record_msg(char *msg, size_t msglen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * record_config_line() - the option of the line s (its newline gone) into
 * *set, cutting s into name and value; set->opt NULL for a comment or a
 * blank line.  Return: 0, or -EINVAL with a message (no "record: ") in msg.
 */
static int record_config_line(char *s, struct record_setting *set, char *msg, size_t msglen)
{
	char *end = s + strlen(s), *name, safe[64];
	const struct tbctl_opt *t;

	set->opt = NULL;
	while (end > s && record_blank(end[-1]))
		*--end = '\0';
	while (record_blank(*s))
		s++;
	if (!*s || *s == '#')
		return 0;
	name = s;
	while (*s && !record_blank(*s))
		s++;
	if (*s) {
		*s++ = '\0';
		while (record_blank(*s))
			s++;
	}
	if (!strcmp(name, "--"))
		return record_msg(msg, msglen,
				  "the command to run goes on the command line, after '--'");
	for (t = record_opt_table; t->id; t++)
		if (t->name && !strcmp(t->name, name))
			break;
	if (!t->id)
		return record_msg(msg, msglen, "unknown option '%s'%s",
				  tbctl_safe(name, safe, sizeof(safe)),
				  name[0] == '-' ? " (names go without their dashes)" : "");
	if (record_cli_only(t->id))
		return record_msg(msg, msglen, "'%s' is for the command line only", name);
	if (t->has_arg == TBCTL_NO_ARG && *s)
		return record_msg(msg, msglen, "'%s' takes no value", name);
	if (t->has_arg != TBCTL_NO_ARG && !*s)
		return record_msg(msg, msglen, "'%s' needs a value", name);
	set->opt = t;
	set->arg = t->has_arg == TBCTL_NO_ARG ? NULL : s;
	return 0;
}

/*
 * record_config_load() - the file path into *o.  Every line is checked
 * first, in order, as the options of a record_opts of its own (so a
 * message names the line of the first error), and the TBCTL_OPT_* bits
 * each sets are noted; then *o gets, in order, the lines whose bits the
 * command line (cli: its o->present) does not set.  o->config_text keeps
 * the text, into which the values point.
 */
static int record_config_load(const char *path, unsigned int cli, struct record_opts *o,
			      char *err, size_t errlen)
{
	struct record_setting *sets = NULL, set, *nv;
	size_t len = 0, nsets = 0;
	struct record_opts file;
	unsigned int line = 0, before;
	char msg[256], *p, *nl;
	int ret;

	ret = record_config_read(path, &o->config_text, &len, err, errlen);
	if (!ret)
		ret = record_config_check(path, o->config_text, len, err, errlen);
	if (ret)
		return ret;
	record_opts_init(&file);
	for (p = o->config_text; p < o->config_text + len; p = nl + 1) {
		line++;
		nl = strchr(p, '\n');
		if (!nl)
			nl = o->config_text + len;	/* the last line, unterminated */
		*nl = '\0';
		ret = record_config_line(p, &set, msg, sizeof(msg));
		if (ret) {
			record_err(err, errlen, "%s:%u: %s", path, line, msg);
			goto out;
		}
		if (!set.opt)
			continue;
		/* the bits of this line alone: none set before it */
		before = file.present;
		file.present = 0;
		ret = record_apply(&file, set.opt->id, set.opt->name, set.arg, msg, sizeof(msg));
		set.present = file.present;
		file.present |= before;
		if (ret == -EINVAL)
			record_err(err, errlen, "%s:%u: %s", path, line,
				   msg + strlen(RECORD_ERR_PREFIX));
		else if (ret)
			snprintf(err, errlen, "%s", msg);
		if (ret)
			goto out;
		set.line = line;
		nv = realloc(sets, (nsets + 1) * sizeof(*sets));
		if (!nv) {
			ret = -ENOMEM;
			record_err(err, errlen, "out of memory");
			goto out;
		}
		sets = nv;
		sets[nsets++] = set;
	}
	for (size_t i = 0; i < nsets && !ret; i++)
		if (!(sets[i].present & cli))
			ret = record_apply(o, sets[i].opt->id, sets[i].opt->name, sets[i].arg,
					   err, errlen);
out:
	record_opts_free(&file);
	free(sets);
	return ret;
}

/* What no single option says wrong: options that do not go together. */
static int record_check(const struct record_opts *o, char *err, size_t errlen)
{
	if (o->present & TBCTL_OPT_DETACH && !strcmp(o->output, "-"))
		return record_err(err, errlen,
				  "--detach: the trace cannot go to standard output (-o -)");
	if (o->present & TBCTL_OPT_ROTATE && !(o->present & TBCTL_OPT_MAX_SIZE))
		return record_err(err, errlen,
				  "--rotate needs --max-size (the size at which a new file begins)");
	if (o->present & TBCTL_OPT_MAX_SIZE && o->mode != TRACEBUF_MODE_STREAMING)
		return record_err(err, errlen,
				  "--max-size is for -m streaming (the other modes keep one buffer)");
	if (o->present & TBCTL_OPT_ROTATE && !strcmp(o->output, "-"))
		return record_err(err, errlen,
				  "--rotate: standard output (-o -) cannot go on in another file");
	for (size_t i = 0; i < o->ntriggers; i++) {
		if (strcmp(strrchr(o->triggers[i], ':'), ":snapshot"))
			continue;
		if (o->mode == TRACEBUF_MODE_STREAMING)
			return record_err(err, errlen,
					  "--trigger %s: snapshots are for -m circular and oneshot (streaming saves as it goes)",
					  o->triggers[i]);
		if (!strcmp(o->output, "-"))
			return record_err(err, errlen,
					  "--trigger %s: snapshots are named after the output file: not with -o -",
					  o->triggers[i]);
	}
	return 0;
}

int record_parse(int argc, char **argv, struct record_opts *o,
		 char *err, size_t errlen)
{
	const char *config;
	unsigned int cli;
	int ret;

	record_opts_init(o);
	if (errlen)
		err[0] = '\0';
	ret = record_parse_argv(argc, argv, o, err, errlen);
	if (ret || o->help)
		return ret;
	if (!o->config)
		return record_check(o, err, errlen);
	/*
	 * With a file: its options but those the command line sets (by their
	 * TBCTL_OPT_* bits), then the command line's, all of them, before
	 * and after --config alike.  So an option of the command line
	 * replaces the file's value, or all its values for a repeatable one.
	 */
	config = o->config;
	cli = o->present;
	record_opts_free(o);
	record_opts_init(o);
	ret = record_config_load(config, cli, o, err, errlen);
	if (!ret)
		ret = record_parse_argv(argc, argv, o, err, errlen);
	return ret ? ret : record_check(o, err, errlen);
}

void record_opts_free(struct record_opts *o)
{
	tbctl_strv_free(o->categories, o->ncategories);
	tbctl_strv_free(o->providers, o->nproviders);
	tbctl_strv_free(o->triggers, o->ntriggers);
	for (size_t i = 0; i < o->noverrides; i++)
		free(o->overrides[i].name);
	free(o->overrides);
	free(o->config_text);
	memset(o, 0, sizeof(*o));
}

/* ------------------------------------------------------------------------ */
/* --print-config                                                           */

static int record_put(FILE *f, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * record_put() - the line "name value" of a file, value as fmt says (fmt
 * NULL: the line "name", a flag), into f, or -EINVAL if the file could
 * not give back that value: a newline in it, a blank at either end, a
 * line too long.
 */
static int record_put(FILE *f, const char *name, const char *fmt, ...)
{
	char value[TBCTL_CONFIG_LINE_MAX + 1];
	va_list ap;
	int len;

	if (!fmt) {
		fprintf(f, "%s\n", name);
		return 0;
	}
	va_start(ap, fmt);
	len = vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	if (len <= 0 || strlen(name) + 1 + (size_t)len > TBCTL_CONFIG_LINE_MAX ||
	    record_blank(value[0]) || record_blank(value[len - 1]) || strchr(value, '\n'))
		return -EINVAL;
	fprintf(f, "%s %s\n", name, value);
	return 0;
}

/*
 * record_print_opt() - the lines of the option t that o sets, into f: the
 * one place that knows how each option is written in a file (a new
 * option of record_opt_table adds its case here).
 */
static int record_print_opt(FILE *f, const struct record_opts *o, const struct tbctl_opt *t)
{
	const char *n = t->name;
	char buf[32];
	int ret = 0;

	switch (t->id) {
	case 'c': {
		char line[TBCTL_CONFIG_LINE_MAX + 1];
		size_t len = 0, max = TBCTL_CONFIG_LINE_MAX - strlen(n) - 1;

		/* comma-joined, on as many lines as it takes */
		for (size_t i = 0; i < o->ncategories && !ret; i++) {
			size_t clen = strlen(o->categories[i]);

			if (len && len + 1 + clen > max) {
				ret = record_put(f, n, "%s", line);
				len = 0;
			}
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s",
						len ? "," : "", o->categories[i]);
		}
		if (len && !ret)
			ret = record_put(f, n, "%s", line);
		break;
	}
	case 'm':
		if (o->present & TBCTL_OPT_MODE)
			ret = record_put(f, n, "%s", record_modes[o->mode - TRACEBUF_MODE_ONESHOT]);
		break;
	case 'b':
		if (o->present & TBCTL_OPT_BUFFER_SIZE)
			ret = record_put(f, n, "%s", tbctl_fmt_size(o->buffer_size, buf, sizeof(buf)));
		for (size_t i = 0; i < o->noverrides && !ret; i++)
			ret = record_put(f, n, "%s:%s", o->overrides[i].name,
					 tbctl_fmt_size(o->overrides[i].size, buf, sizeof(buf)));
		break;
	case 'd':
		if (o->present & TBCTL_OPT_DURATION)
			ret = record_put(f, n, "%s",
					 tbctl_fmt_duration(o->duration_ns, buf, sizeof(buf)));
		break;
	case 'p':
		for (size_t i = 0; i < o->nproviders && !ret; i++)
			ret = record_put(f, n, "%s", o->providers[i]);
		break;
	case RECORD_OPT_TRIGGER:
		for (size_t i = 0; i < o->ntriggers && !ret; i++)
			ret = record_put(f, n, "%s", o->triggers[i]);
		break;
	case RECORD_OPT_BEST_EFFORT:
		if (o->present & TBCTL_OPT_BEST_EFFORT)
			ret = record_put(f, n, NULL);
		break;
	case 'o':
		if (o->present & TBCTL_OPT_OUTPUT)
			ret = record_put(f, n, "%s", o->output);
		break;
	case 'q':
		if (o->present & TBCTL_OPT_QUIET)
			ret = record_put(f, n, NULL);
		break;
	case RECORD_OPT_MAX_SIZE:
		if (o->present & TBCTL_OPT_MAX_SIZE)
			ret = record_put(f, n, "%s", tbctl_fmt_size(o->max_size, buf, sizeof(buf)));
		break;
	case RECORD_OPT_ROTATE:
		if (o->present & TBCTL_OPT_ROTATE)
			ret = record_put(f, n, NULL);
		break;
	case RECORD_OPT_DETACH:
		if (o->present & TBCTL_OPT_DETACH)
			ret = record_put(f, n, NULL);
		break;
	default:
		ret = -ENOSYS;
		break;
	}
	return ret;
}

int record_print_config(FILE *f, const struct record_opts *o, char *err, size_t errlen)
{
	const struct tbctl_opt *t;
	char *buf = NULL;
	size_t len = 0;
	int ret = 0;
	FILE *m;

	/* whole first: what is printed is a file --config reads */
	m = open_memstream(&buf, &len);
	if (!m) {
		record_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (t = record_opt_table; t->id; t++) {
		if (record_cli_only(t->id))
			continue;
		ret = record_print_opt(m, o, t);
		if (ret)
			break;
	}
	if (ferror(m) && !ret)
		ret = -ENOMEM;
	if (fclose(m) && !ret)
		ret = -ENOMEM;
	if (ret == -EINVAL)
		record_err(err, errlen,
			   "--print-config: a value of '%s' cannot be written in a configuration file (a newline, a blank at either end or a line over %d bytes)",
			   t->name, TBCTL_CONFIG_LINE_MAX);
	else if (ret == -ENOSYS)
		record_err(err, errlen, "--print-config: cannot print option '%s' yet", t->name);
	else if (ret)
		record_err(err, errlen, "out of memory");
	if (!ret && len > TBCTL_CONFIG_MAX)
		ret = record_err(err, errlen,
				 "--print-config: the configuration (%zu bytes) is larger than a configuration file may be (%d KiB)",
				 len, TBCTL_CONFIG_MAX / 1024);
	if (!ret && (fwrite(buf, 1, len, f) != len || fflush(f))) {
		ret = errno ? -errno : -EIO;
		record_err(err, errlen, "--print-config: %s", strerror(-ret));
	}
	free(buf);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* Running                                                                  */

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
	int nprov;
	uint64_t bytes;
	bool *cat_known;		/* per -c category */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

static const char *record_alert(struct record_run *r, const char *alert);

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

/* tracebuf_session_providers() into r->prov (resized); -errno. */
static int record_providers(struct record_run *r)
{
	int n = tracebuf_session_providers(r->s, r->prov, (size_t)r->nprov);

	if (n > r->nprov) {
		struct tracebuf_session_provider *p = realloc(r->prov, (size_t)n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->prov = p;
		n = tracebuf_session_providers(r->s, r->prov, (size_t)n);
	}
	r->nprov = n;
	return 0;
}

static void record_status_clear(struct record_run *r)
{
	if (r->status_shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		r->status_shown = false;
	}
}

/* @p's records dropped, as a count: 0 when its header's is not credible. */
static uint64_t record_dropped(const struct tracebuf_session_provider *p)
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

static void record_ctl_serve(struct record_run *r);

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

/* ------------------------------------------------------------------------ */
/* The control socket: status, stop and alert from other tracebufctl runs   */

/* Listen on RUNDIR/PID.sock; a foreground run goes on without one. */
static int record_ctl_open(struct record_run *r, bool detached)
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
static void record_note_tmp(struct record_run *r, const struct tbctl_out *extra)
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
static const char *record_alert(struct record_run *r, const char *alert)
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
static int record_snapshot(struct record_run *r, const char *path, char *reply, size_t len)
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

static void record_ctl_close(struct record_run *r, int status);

/* One request on the control socket. */
static void record_ctl_serve(struct record_run *r)
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
static void record_ctl_answer(struct record_run *r, int status)
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
static void record_ctl_close(struct record_run *r, int status)
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

/*
 * Why provider @p, harvested as it left it (p->crashed), ended while
 * tracing: when record reaped its process (COMMAND's, or one COMMAND
 * left behind: record_reap()), what its wait() status says, in @buf
 * ("killed by SIGTERM", "crashed with SIGSEGV", "exited with status 0
 * without stopping tracing"); otherwise (the kernel says only that it
 * went, and its parent alone saw how) @otherwise.
 */
static const char *record_gone_cause(const struct record_run *r,
				     const struct tracebuf_session_provider *p,
				     const char *otherwise, char *buf, size_t len)
{
	const char *abbrev;
	bool crash, known;
	int st = 0, sig;

	known = r->command && r->child_exited && p->pid == (uint32_t)r->command;
	if (known)
		st = r->child_wait;
	for (int i = 0; i < r->nprocs && !known; i++) {
		const struct record_proc *pr = &r->procs[i];

		known = pr->reaped && pr->id == p->id && pr->pid == (pid_t)p->pid;
		if (known)
			st = pr->wait;
	}
	if (!known)
		return otherwise;
	if (WIFEXITED(st)) {
		snprintf(buf, len, "exited with status %d without stopping tracing",
			 WEXITSTATUS(st));
		return buf;
	}
	if (!WIFSIGNALED(st))
		return otherwise;
	sig = WTERMSIG(st);
	/* the signals of a fault, or of abort(): what a crash ends with */
	crash = sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
		sig == SIGABRT || sig == SIGTRAP || sig == SIGSYS;
	abbrev = sigabbrev_np(sig);
	if (abbrev)
		snprintf(buf, len, "%s SIG%s", crash ? "crashed with" : "killed by", abbrev);
	else
		snprintf(buf, len, "%s signal %d", crash ? "crashed with" : "killed by", sig);
	return buf;
}

static void record_summary(struct record_run *r, uint64_t elapsed)
{
	int w = 8;
	char bytes[32];

	for (int i = 0; i < r->nprov; i++) {
		int len = (int)strlen(r->prov[i].name);

		if (len > w)
			w = len;
	}
	if (r->nprov) {
		fprintf(stderr, "%-*s %8s  %-11s %10s %8s %10s %8s\n", w, "PROVIDER",
			"PID", "STATE", "BYTES", "SAVES", "DROPPED", "WINDOWS");
	}
	for (int i = 0; i < r->nprov; i++) {
		const struct tracebuf_session_provider *p = &r->prov[i];
		char why[64];

		tbctl_fputs_safe(stderr, p->name, w);
		fprintf(stderr, " %8u  %-11s %10llu %8llu", p->pid,
			tbctl_tracee_state_name(p->state),
			(unsigned long long)p->bytes_written, (unsigned long long)p->saves);
		if (p->dropped_doubtful)
			fprintf(stderr, " %10s %8u", "?", p->drop_windows);
		else
			fprintf(stderr, " %10llu %8u", (unsigned long long)p->records_dropped,
				p->drop_windows);
		if (p->state == TRACEBUF_LIB_TRACEE_FAILED && p->error)
			fprintf(stderr, "  (%s)", strerror(-p->error));
		else if (p->crashed)
			fprintf(stderr, "  (%s)", record_gone_cause(r, p, "ended while tracing",
								    why, sizeof(why)));
		fputc('\n', stderr);
	}
	if (r->nfile)	/* --rotate */
		fprintf(stderr, "wrote %u files, %s %s %s: ", r->nfile + 1, r->o->output,
			r->nfile == 1 ? "and" : "...", r->out.path);
	else
		fprintf(stderr, "wrote %s: ", r->out.is_stdout ? "standard output" : r->o->output);
	fprintf(stderr, "%s from %d provider%s in %llu.%01llu s",
		tbctl_human_bytes(r->bytes, bytes, sizeof(bytes)),
		r->nprov, r->nprov == 1 ? "" : "s",
		(unsigned long long)(elapsed / NS_PER_SEC),
		(unsigned long long)(elapsed % NS_PER_SEC / (NS_PER_SEC / 10)));
	if (r->snapshots)
		fprintf(stderr, ", %u snapshot%s", r->snapshots, r->snapshots == 1 ? "" : "s");
	if (r->triggered)
		fprintf(stderr, ", stopped by alert '%s'", r->alert);
	else if (r->max_size_reached)
		fputs(", stopped at --max-size", stderr);
	else if (r->stop_requested)
		fputs(", stopped by '" TBCTL_PROG " stop'", stderr);
	else if (r->signo)
		fprintf(stderr, ", stopped by %s", strsignal(r->signo));
	fputc('\n', stderr);
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

/* A line on stderr that does not stop anything. */
static void record_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void record_warn(const char *fmt, ...)
{
	va_list ap;

	fputs(TBCTL_PROG ": warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Sets *status to @code unless an earlier cause set it. */
static void record_cause(int *status, int code)
{
	if (!*status)
		*status = code;
}

static bool record_has_provider(const struct record_run *r, const char *name)
{
	for (int i = 0; i < r->nprov; i++)
		if (!strcmp(r->prov[i].name, name))
			return true;
	return false;
}

/*
 * Is the trace what was asked?  A warning per thing that is missing;
 * returns 0 or the TBCTL_EXIT_* of the first cause (see the usage).
 */
static int record_outcome(const struct record_run *r)
{
	const struct record_opts *o = r->o;
	int busy = 0, failed = 0, missing = 0, unknown = 0, traced = 0, status = 0;
	uint64_t dropped = 0, windows = 0;
	int with_drops = 0;

	for (int i = 0; i < r->nprov; i++) {
		const struct tracebuf_session_provider *p = &r->prov[i];
		char name[sizeof(p->name)], why[64];
		const char *cause;

		tbctl_safe(p->name, name, sizeof(name));
		if (p->state == TRACEBUF_LIB_TRACEE_BUSY) {
			record_warn("provider '%s' (pid %u) was not traced: another manager "
				    "traces it", name, p->pid);
			busy++;
			continue;
		}
		if (p->state == TRACEBUF_LIB_TRACEE_FAILED) {
			if (p->error == -ESRCH)
				record_warn("provider '%s' (pid %u) exited before it could be "
					    "traced", name, p->pid);
			else if (p->error == -EDQUOT)
				record_warn("provider '%s' (pid %u) could not be traced: its user's "
					    "share of buffer memory is used up (module parameter "
					    "max_user_memory)", name, p->pid);
			else
				record_warn("provider '%s' (pid %u) could not be traced: %s",
					    name, p->pid, strerror(-p->error));
			failed++;
			continue;
		}
		traced++;
		if (p->error == -ETIMEDOUT) {
			record_warn("provider '%s' (pid %u) may be incomplete: it did not "
				    "start or stop in time", name, p->pid);
			failed++;
		} else if (p->error == -ETIME) {
			record_warn("provider '%s' (pid %u) is incomplete: it had stopped "
				    "waiting for its start when the start came, and what it "
				    "recorded before is missing", name, p->pid);
			failed++;
		} else if (p->error == -EPROTO) {
			record_warn("provider '%s' (pid %u) is incomplete: it broke the "
				    "tracing protocol and was terminated", name, p->pid);
			failed++;
		} else if (p->error == -EINVAL) {
			record_warn("provider '%s' (pid %u) may be incomplete: its buffer "
				    "did not check out, and only what did was kept", name,
				    p->pid);
			failed++;
		} else if (p->error) {
			record_warn("provider '%s' (pid %u) may be incomplete: %s", name,
				    p->pid, strerror(-p->error));
			failed++;
		}
		cause = p->crashed ? record_gone_cause(r, p, NULL, why, sizeof(why)) : NULL;
		if (p->bytes_rejected)
			record_warn("provider '%s' (pid %u): %llu bytes of its buffer were "
				    "not whole records that decode, and were left out%s%s%s%s",
				    name, p->pid, (unsigned long long)p->bytes_rejected,
				    p->crashed ? " (it ended while tracing" : "",
				    cause ? ": " : "", cause ? cause : "", p->crashed ? ")" : "");
		if (p->dropped_doubtful)
			record_warn("provider '%s' (pid %u): its header claims %llu records "
				    "dropped, more than it could have dropped: not counted",
				    name, p->pid, (unsigned long long)p->records_dropped);
		dropped += record_dropped(p);
		windows += p->drop_windows;
		with_drops += record_dropped(p) != 0;
	}
	for (size_t i = 0; i < o->nproviders; i++) {
		if (record_has_provider(r, o->providers[i]))
			continue;
		record_warn("-p %s: no provider of that name registered", o->providers[i]);
		missing++;
	}
	for (size_t i = 0; i < o->noverrides; i++)
		if (!record_has_provider(r, o->overrides[i].name))
			record_warn("-b %s:...: no provider of that name registered",
				    o->overrides[i].name);
	if (!traced && !busy && !failed)
		record_warn("no provider was traced: none %sregistered (a program that "
			    "started before the module was loaded is not one)",
			    o->nproviders ? "of those names " : "");
	for (size_t i = 0; traced && i < o->ncategories; i++) {
		if (r->cat_known && r->cat_known[i])
			continue;
		record_warn("-c %s: no traced provider knows this category (none "
			    "published it or wrote an event in it)", o->categories[i]);
		unknown++;
	}
	/* streaming drops when a half fills before the other is saved */
	if (dropped)
		record_warn("%llu records dropped by %d provider%s (%llu drop window%s in "
			    "the trace): %s", (unsigned long long)dropped, with_drops,
			    with_drops == 1 ? "" : "s", (unsigned long long)windows,
			    windows == 1 ? "" : "s", o->mode == TRACEBUF_MODE_STREAMING ?
			    "a larger buffer (-b) gives the saves more time" :
			    "a larger buffer (-b) or -m streaming keeps more");
	if (r->snapshots_failed)
		record_warn("%u of the snapshots the triggers asked for failed or lack a "
			    "provider's data (see above)", r->snapshots_failed);
	if (busy)
		record_cause(&status, TBCTL_EXIT_BUSY);
	if (failed)
		record_cause(&status, TBCTL_EXIT_FAILED);
	if (missing)
		record_cause(&status, TBCTL_EXIT_NO_PROVIDER);
	if (!traced)
		record_cause(&status, TBCTL_EXIT_EMPTY);
	if (unknown)
		record_cause(&status, TBCTL_EXIT_CATEGORY);
	if (r->snapshots_failed)
		record_cause(&status, TBCTL_EXIT_SNAPSHOT);
	return status;
}

/* What record exits with, for what happened so far (see record_run()). */
static int record_status_of(const struct record_run *r, int ret, int outcome)
{
	if (ret)
		return ret > 0 ? ret : 1;
	if (outcome && !(r->o->present & TBCTL_OPT_BEST_EFFORT))
		return outcome;
	return r->child_exited ? r->child_status : 0;
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
