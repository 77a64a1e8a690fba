/* SPDX-License-Identifier: MIT */
/*
 * tracebufctl: the command-line manager of tracebuf.
 *
 *	tracebufctl [GLOBAL OPTIONS] COMMAND [OPTIONS]
 *
 * One file per command (list.c, categories.c, dump.c, convert.c,
 * report.c, monitor.c, stats.c; sessions.c for status, stop, alert and
 * snapshot), but record, in four by job (record_priv.h): record_opts.c
 * its options, record.c the run, record_ctl.c its control socket and
 * record_summary.c how it ended.  main.c for the global options and the
 * dispatch, error.c for error reporting, util.c for what needs no device,
 * nl.c for the generic netlink transport (list, stats, monitor) and
 * nlmsg.c for the netlink under it.
 *
 * Conventions.  Functions return 0 (or a count) and -errno.  A command
 * function, cmd_<name>(), returns the exit status (0, or the status of
 * the command that "record --" ran), or -errno after it printed exactly
 * one line "tracebufctl: <reason>" on stderr.  Usage goes to stdout.
 */
#ifndef TBCTL_TRACEBUFCTL_H
#define TBCTL_TRACEBUFCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/tracebuf.h>

#define TBCTL_PROG	"tracebufctl"
#ifndef TBCTL_VERSION
#error "TBCTL_VERSION: the Makefile defines it, from debian/changelog"
#endif
#define TBCTL_DEVICE	"/dev/tracebuf"	/* the default */

/* What the global options set, for every command. */
struct tbctl_ctx {
	const char *device;	/* -D: NULL for /dev/tracebuf */
	bool json;		/* -j */
};

/* ------------------------------------------------------------------------ */
/* Errors (error.c)                                                         */

/* "tracebufctl: <fmt>\n" on stderr. */
void tbctl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * A usage error of command cmd ("record: unknown option '-x'"): prints it
 * with the hint "(see 'tracebufctl CMD --help')"; returns -EINVAL.
 */
int tbctl_usage_err(const char *cmd, const char *msg);

/*
 * Report err (-errno) from opening the device (tracebuf_manager_open(),
 * tracebuf_session_create()) in words; returns err.
 */
int tbctl_device_err(const struct tbctl_ctx *ctx, int err);

struct tbctl_nl;

/*
 * Report err (-errno) from the generic netlink transport (nl.h) in words,
 * with the kernel's extended ack message when nl has one; what names the
 * request ("provider dump").  -ENOENT from tbctl_nl_open() is the missing
 * family.  Returns err.
 */
int tbctl_nl_err(const struct tbctl_nl *nl, int err, const char *what);

/* ------------------------------------------------------------------------ */
/* Commands                                                                 */

int cmd_record(struct tbctl_ctx *ctx, int argc, char **argv);
int cmd_list(struct tbctl_ctx *ctx, int argc, char **argv);
int cmd_categories(struct tbctl_ctx *ctx, int argc, char **argv);
int cmd_dump(struct tbctl_ctx *ctx, int argc, char **argv);
int cmd_convert(struct tbctl_ctx *ctx, int argc, char **argv);
int cmd_report(struct tbctl_ctx *ctx, int argc, char **argv);
int cmd_monitor(struct tbctl_ctx *ctx, int argc, char **argv);
int cmd_stats(struct tbctl_ctx *ctx, int argc, char **argv);
int cmd_status(struct tbctl_ctx *ctx, int argc, char **argv);
int cmd_stop(struct tbctl_ctx *ctx, int argc, char **argv);
int cmd_alert(struct tbctl_ctx *ctx, int argc, char **argv);
int cmd_snapshot(struct tbctl_ctx *ctx, int argc, char **argv);

/* ------------------------------------------------------------------------ */
/* record: its options, parsed without side effects (record_opts.c)         */

/* Which options were given: record_opts.present */
#define TBCTL_OPT_CATEGORIES	(1u << 0)
#define TBCTL_OPT_MODE		(1u << 1)
#define TBCTL_OPT_BUFFER_SIZE	(1u << 2)
#define TBCTL_OPT_OVERRIDE	(1u << 3)
#define TBCTL_OPT_DURATION	(1u << 4)
#define TBCTL_OPT_PROVIDER	(1u << 5)
#define TBCTL_OPT_TRIGGER	(1u << 6)
#define TBCTL_OPT_OUTPUT	(1u << 7)
#define TBCTL_OPT_QUIET		(1u << 8)
#define TBCTL_OPT_COMMAND	(1u << 9)
#define TBCTL_OPT_BEST_EFFORT	(1u << 10)
#define TBCTL_OPT_DETACH	(1u << 11)
#define TBCTL_OPT_MAX_SIZE	(1u << 12)
#define TBCTL_OPT_ROTATE	(1u << 13)

/*
 * Exit statuses of "record" when the trace is not what was asked (a
 * warning on stderr says which), unless --best-effort.  The first that
 * applies, in this order, wins.  README, "Exit status".
 */
#define TBCTL_EXIT_BUSY		6	/* a provider another manager traces */
#define TBCTL_EXIT_FAILED	7	/* a provider not traced whole: refused,
					 * no answer in time, or a broken
					 * protocol or buffer
					 */
#define TBCTL_EXIT_NO_PROVIDER	4	/* a -p NAME matched no provider */
#define TBCTL_EXIT_EMPTY	3	/* no provider was traced at all */
#define TBCTL_EXIT_CATEGORY	5	/* a -c CATEGORY no provider knows */
#define TBCTL_EXIT_SNAPSHOT	8	/* a --trigger's snapshot failed or
					 * lacks a provider's data
					 */

#define TBCTL_DEFAULT_OUTPUT	"trace.fxt"

/* -b NAME:SIZE */
struct record_override {
	char *name;
	uint64_t size;
};

struct record_opts {
	unsigned int present;		/* TBCTL_OPT_* */
	bool help;
	uint32_t mode;			/* TRACEBUF_MODE_*; 0: the library's (oneshot) */
	uint64_t buffer_size;		/* 0: the library's (4 MiB) */
	uint64_t duration_ns;		/* 0: none */
	const char *output;		/* TBCTL_DEFAULT_OUTPUT unless -o */
	char **categories;		/* -c, split at commas */
	size_t ncategories;
	char **providers;		/* -p */
	size_t nproviders;
	struct record_override *overrides;
	size_t noverrides;
	char **triggers;		/* --trigger ALERT:ACTION, as given */
	size_t ntriggers;
	char **command;			/* after "--": points into argv, NULL-terminated */
	int ncommand;
	uint64_t max_size;		/* --max-size: 0, none */
	bool print_config;		/* --print-config */
	const char *config;		/* --config FILE: points into argv */
	char *config_text;		/* FILE's text, which its values point into */
};

/*
 * A --config file: at most TBCTL_CONFIG_MAX bytes, lines of at most
 * TBCTL_CONFIG_LINE_MAX bytes (the newline not counted), no NUL byte.
 */
#define TBCTL_CONFIG_MAX	(64 * 1024)
#define TBCTL_CONFIG_LINE_MAX	8192

/*
 * record_parse() - fill *o from argv[1..argc-1] (argv[0] is "record")
 * and the --config file it names, touching nothing else.  *o is
 * initialised here; free it with record_opts_free() whatever this
 * returns.
 * Return: 0 (o->help set for -h), -EINVAL with one line in err
 * ("record: ..."; "record: FILE:LINE: ..." for a line of the file),
 * -ENOMEM, or the -errno of reading the file ("record: FILE: reason").
 */
int record_parse(int argc, char **argv, struct record_opts *o,
		 char *err, size_t errlen);
void record_opts_free(struct record_opts *o);

/*
 * record_print_config() - o as a --config file (--print-config), into f.
 * Return: 0, or -EINVAL (a value no file can hold), -ENOMEM or the -errno
 * of writing, with one line in err.
 */
int record_print_config(FILE *f, const struct record_opts *o, char *err, size_t errlen);

/* The help of record (-h), into f. */
void record_usage(FILE *f);

/* ------------------------------------------------------------------------ */
/* list: the providers, apart from how they were obtained (list.c)          */

/* One provider as the listing commands see it, whatever the transport. */
struct tbctl_provider {
	uint32_t id;
	uint32_t pid;
	uint32_t state;			/* TRACEBUF_STATE_* */
	uint32_t mode;			/* TRACEBUF_MODE_*, 0 if none */
	uint64_t buffer_size;
	uint32_t manager_id;		/* 0 if none */
	bool mine;			/* owned by the manager that listed it */
	bool has_counters;		/* the next three are known */
	bool has_dropped;		/* records_dropped is known (a buffer) */
	uint64_t packets_sent;		/* accepted from the provider */
	uint64_t packets_received;	/* queued to it */
	uint64_t saves;			/* BUFFER_SAVED accepted for it */
	uint64_t records_dropped;	/* as its buffer header claims */
	char name[TRACEBUF_NAME_MAX + 1];
};

/*
 * tbctl_providers_fetch() - every provider visible to a manager, by id,
 * through the ioctl interface (list's fallback: see list.c).
 * Return: the count and a malloc'd array in *out, or -errno (device
 * errors not yet reported).
 */
int tbctl_providers_fetch(const struct tbctl_ctx *ctx, struct tbctl_provider **out);

/* ,"packets_sent":..,"packets_received":..,"saves":..,"records_dropped":.. */
void tbctl_json_counters(FILE *f, const struct tbctl_provider *p);

/* The table, or a JSON array. */
void tbctl_providers_print(FILE *f, const struct tbctl_provider *p, size_t n, bool json);

/* ------------------------------------------------------------------------ */
/* Compressed trace files (compress.c)                                      */

#include <sys/types.h>

struct tracebuf_reader;

enum tbctl_z { TBCTL_Z_NONE, TBCTL_Z_GZIP, TBCTL_Z_ZSTD };

/* The compression a file name asks for: ".gz", ".zst", else none. */
enum tbctl_z tbctl_z_by_name(const char *path);
/* The compression the first len bytes of a file show (magic numbers). */
enum tbctl_z tbctl_z_by_magic(const void *buf, size_t len);
/* "gzip", "zstd"; NULL for TBCTL_Z_NONE. */
const char *tbctl_z_prog(enum tbctl_z z);

/*
 * tbctl_z_spawn() - run the program of z (-c, or -dc to decompress) with
 * in_fd as its standard input, out_fd as its standard output and, unless
 * it is -1, err_fd as its standard error.
 * Return: 0 and its pid, or -errno (-ENOENT: not installed); nothing
 * reported (tbctl_z_spawn_err() does).
 */
int tbctl_z_spawn(enum tbctl_z z, bool decompress, int in_fd, int out_fd, int err_fd,
		  pid_t *pid);
int tbctl_z_spawn_err(enum tbctl_z z, const char *file, int err);
/*
 * Wait for it: 0 if it exited 0, else -EIO after one line naming file,
 * with the first line the program wrote to err_fd (a file, read from its
 * start; -1: none) as the reason.
 */
int tbctl_z_wait(pid_t pid, enum tbctl_z z, const char *file, int err_fd);

/*
 * tbctl_reader_open() - tracebuf_reader_open_file() for file, "-" being
 * standard input (read as it is), a gzip or zstd file being decompressed
 * by its program first.  Return: 0, or -errno after one line on stderr.
 */
int tbctl_reader_open(const char *file, unsigned int flags, struct tracebuf_reader **r);

/* ------------------------------------------------------------------------ */
/* stats and monitor: their output, apart from the transport                */

/*
 * tbctl_stats_select() - keep in p[0..*n) the providers that one of the
 * words names: a word of digits only is an id, any other a name.
 * Return: 0, or -ENOENT with the index of a word that named none in
 * *unmatched.  No words: every provider is kept.
 */
int tbctl_stats_select(struct tbctl_provider *p, size_t *n, char *const *words,
		       size_t nwords, size_t *unmatched);

/* stats: the counters table, or a JSON array. */
void tbctl_stats_print(FILE *f, const struct tbctl_provider *p, size_t n, bool json);

/*
 * One event line of monitor: "new|change|del id ID pid PID name NAME
 * state STATE manager ID|- [mode MODE buffer BYTES]", or one JSON object.
 * cmd is TRACEBUF_CMD_PROVIDER_NEW, _CHANGE or _DEL.
 */
void tbctl_event_print(FILE *f, uint8_t cmd, const struct tbctl_provider *p, bool json);

/* "started", "streaming", ...; "?" for what this tool does not know. */
const char *tbctl_state_name(uint32_t state);
const char *tbctl_mode_name(uint32_t mode);
const char *tbctl_tracee_state_name(uint32_t state);

/* ------------------------------------------------------------------------ */
/* report: a trace's statistics, apart from the command line (report.c)     */

struct tbctl_report;
struct tracebuf_reader_record;

/* The order of the slices and async spans of a report (-s). */
enum tbctl_report_sort {
	TBCTL_REPORT_SORT_TOTAL,	/* total time, largest first: the default */
	TBCTL_REPORT_SORT_COUNT,
	TBCTL_REPORT_SORT_MEAN,
	TBCTL_REPORT_SORT_MAX,
	TBCTL_REPORT_SORT_NAME,		/* category:name */
};

/* "total", "count", "mean", "max", "name" (any unique prefix); -EINVAL. */
int tbctl_report_sort_parse(const char *word, enum tbctl_report_sort *sort);

/*
 * A report is made empty, fed every record of a trace in order with
 * tbctl_report_add() (or tbctl_report_read()), finished once, sorted
 * (again as often as wanted), printed and freed.  Functions return 0 or
 * -errno: -ENOMEM, -EINVAL when called out of that order.
 */
int tbctl_report_create(struct tbctl_report **out);
/* One record tracebuf_reader_next() returned; its strings are copied. */
int tbctl_report_add(struct tbctl_report *r, const struct tracebuf_reader_record *rec);
/* Every record left in reader; its errors (-EBADMSG...) are returned as they are. */
int tbctl_report_read(struct tbctl_report *r, struct tracebuf_reader *reader);
/* The trace ended: what is still open is counted as unterminated. */
int tbctl_report_finish(struct tbctl_report *r);
int tbctl_report_sort(struct tbctl_report *r, enum tbctl_report_sort sort);
/* The sorted report as tables, or one JSON object. */
void tbctl_report_print(FILE *f, const struct tbctl_report *r, bool json);
/* NULL is fine. */
void tbctl_report_free(struct tbctl_report *r);

#endif /* TBCTL_TRACEBUFCTL_H */
