// SPDX-License-Identifier: MIT
/*
 * tracebufctl record: its options, from the command line and from a
 * --config file, and --print-config, which writes them back as such a
 * file.
 *
 * record_parse() turns argv (and the file it names) into a struct
 * record_opts and does nothing else (tests/record_args_test.c drives it);
 * record.c runs the recording it describes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracebufctl.h"
#include "util.h"

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

void record_usage(FILE *f)
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
