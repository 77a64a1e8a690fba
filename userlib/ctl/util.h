/* SPDX-License-Identifier: MIT */
/*
 * tracebufctl helpers that do not touch the device: parsing of sizes,
 * durations and keywords, the option iterator, string vectors, number
 * formatting and the JSON writer.  Every function that can fail returns
 * 0 or -errno; parsers that take an err buffer put one line (no
 * "tracebufctl: " prefix, no newline) there on failure.
 */
#ifndef TBCTL_UTIL_H
#define TBCTL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <tracebuf_reader.h>

#define TBCTL_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------ */
/* Values                                                                   */

/*
 * tbctl_parse_size() - a trace buffer size: "4096", "64K", "4M", "1G"
 * (also KiB, MiB, GiB; K, M, G are binary multiples) into *out.  A size of
 * 0, a number that overflows 64 bits, a trailing word other than the
 * suffixes, or a size tracebuf_buffer_size_check(NULL, size) refuses
 * (over TRACEBUF_BUFFER_MAX, said first, or not a multiple of
 * TRACEBUF_BUFFER_ALIGN) is -EINVAL.  The kernel's own alignment is checked when a session asks it.
 */
int tbctl_parse_size(const char *s, uint64_t *out, char *err, size_t errlen);
/* The same without the trace buffer's rule: any size but 0 (--max-size). */
int tbctl_parse_bytes(const char *s, uint64_t *out, char *err, size_t errlen);

/*
 * tbctl_parse_duration() - "500ms", "10s", "2m", "1h", "250us", "1.5s"
 * into nanoseconds; a plain number is seconds.  0 or an overflow is
 * -EINVAL.
 */
int tbctl_parse_duration(const char *s, uint64_t *ns, char *err, size_t errlen);

/*
 * tbctl_fmt_size(), tbctl_fmt_duration() - the inverses of the two
 * parsers: bytes with the largest of the suffixes G, M and K that is
 * exact ("16M", "12K", "5000"), nanoseconds with the largest of the units
 * h, m, s, ms, us and ns that is exact ("2m", "1500ms"), into buf;
 * tbctl_parse_size() and tbctl_parse_duration() read them back to the
 * same value.  Return buf.
 */
const char *tbctl_fmt_size(uint64_t bytes, char *buf, size_t len);
const char *tbctl_fmt_duration(uint64_t ns, char *buf, size_t len);

/*
 * tbctl_matches() - whether word is a non-empty prefix of keyword
 * (iproute2's matches(), with the result the right way round).
 */
bool tbctl_matches(const char *word, const char *keyword);

/*
 * tbctl_lookup() - the index of the one keyword of which word is a prefix
 * (an exact match wins), -ENOENT if none, -EINVAL if more than one.
 * keywords ends with NULL.
 */
int tbctl_lookup(const char *word, const char *const *keywords);

/* "1.5 MiB", "512 B": bytes for people, into buf; returns buf. */
const char *tbctl_human_bytes(uint64_t bytes, char *buf, size_t len);

/*
 * "999 ns", "1.500 us", "12.345 ms", "3.000 s": nanoseconds for people,
 * truncated (never rounded up into the next unit), into buf; returns buf.
 */
const char *tbctl_human_ns(uint64_t ns, char *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* Options                                                                  */

/* has_arg of struct tbctl_opt */
#define TBCTL_NO_ARG		0
#define TBCTL_REQ_ARG		1

/*
 * One option: its long name (NULL: none), its short letter (0: none) and
 * its id, which tbctl_getopt() returns; ids are > TBCTL_GETOPT_ARG (a
 * short option's letter is a fine id).  Tables end with { 0 }.
 */
struct tbctl_opt {
	const char *name;
	int letter;
	int has_arg;
	int id;
};

/*
 * The iterator: set argc/argv and ind = 1 (argv[0] is the command), the
 * rest zero.  Options and positional arguments may be mixed; "--" ends
 * the options (dashdash is then set and ind is the word after it), or,
 * with args_after_dashdash, makes every word after it a positional
 * argument (a file named "-x"); "-" is a positional argument.
 */
struct tbctl_getopt {
	int argc;
	char **argv;
	int ind;		/* next word */
	const char *cluster;	/* rest of a "-abc" group */
	const char *arg;	/* option value or positional argument */
	const char *opt;	/* the option as written, for messages */
	char optbuf[48];
	bool dashdash;
	bool args_after_dashdash;	/* set by the caller */
};

#define TBCTL_GETOPT_END	0	/* no more words (or "--") */
#define TBCTL_GETOPT_ARG	1	/* a positional argument: g->arg */

/*
 * tbctl_getopt() - the next option's id, TBCTL_GETOPT_ARG,
 * TBCTL_GETOPT_END, or -EINVAL with err set (unknown option, missing
 * value, value given to a flag).
 */
int tbctl_getopt(struct tbctl_getopt *g, const struct tbctl_opt *opts,
		 char *err, size_t errlen);

/*
 * tbctl_view_opts() - the options of the commands that show the registry
 * (list, categories, monitor, stats): -j/--json sets *json, -h/--help
 * prints usage(stdout).  Positional words (and every word after "--")
 * go to words[] (room for argc) when it is given, else they are a usage
 * error.  Return: 0 to go on, 1 after --help (the command then returns
 * 0), or tbctl_usage_err()'s -EINVAL.
 */
int tbctl_view_opts(const char *cmd, int argc, char **argv, void (*usage)(FILE *f),
		    bool *json, char **words, size_t *nwords);

/* ------------------------------------------------------------------------ */
/* String vectors                                                           */

/* Append a copy of the len bytes at s to *v (of *n entries). */
int tbctl_strv_push(char ***v, size_t *n, const char *s, size_t len);
void tbctl_strv_free(char **v, size_t n);

/* ------------------------------------------------------------------------ */
/* Hash tables over what a file holds                                       */

/*
 * A seed for them, unpredictable enough that a file cannot choose keys
 * that collide; and @h mixed with it (murmur3's finalizer), every bit of
 * the result depending on every bit of both.
 */
uint64_t tbctl_hash_seed(void);
uint64_t tbctl_hash_mix(uint64_t h, uint64_t seed);

/* ------------------------------------------------------------------------ */
/* Files                                                                    */

/*
 * A file written whole, that appears under its name only when complete:
 * written as ".NAME.XXXXXX" beside it (same directory, so the rename
 * over it is atomic), then renamed over it.  Through a symlink, the
 * link's target is replaced, not the link.  An existing device, FIFO or
 * socket is written in place instead (tmp NULL): /dev/null or a pipe made
 * by mkfifo stay what they are.
 */
struct tbctl_file {
	char *tmp;		/* the temporary name; NULL: dest in place */
	char *dest;		/* what is replaced: the path, or its link's target */
};

/*
 * tbctl_file_create() - create @path's temporary file (close-on-exec, the
 * mode and owner of the file it replaces, else what open(O_CREAT, 0666)
 * would give), or open the device or FIFO it is for writing.  Returns the
 * fd and fills @f, or -errno (@f empty): -EISDIR if path is a directory,
 * or names one ("dir/", "..").
 */
int tbctl_file_create(const char *path, struct tbctl_file *f);
/* The fd's data on disk before the rename (nothing for one in place): 0 or -errno. */
int tbctl_file_sync(const struct tbctl_file *f, int fd);
/* After the fd is closed: rename it over its name.  0 or -errno; @f emptied. */
int tbctl_file_commit(struct tbctl_file *f);
/* It is not to be: remove the temporary file.  @f emptied. */
void tbctl_file_abort(struct tbctl_file *f);

/* ------------------------------------------------------------------------ */
/* Text and JSON output                                                     */

/*
 * tbctl_fputs_safe() - s for a terminal or a line-based table: control
 * characters (newlines, escapes...) become '?'; then spaces up to width
 * columns (bytes).  For strings that come from providers.
 */
void tbctl_fputs_safe(FILE *f, const char *s, int width);
/* tbctl_safe() - s into buf (len bytes, truncated) as tbctl_fputs_safe() prints it */
const char *tbctl_safe(const char *s, char *buf, size_t len);
/* tbctl_fwrite_safe() - the len bytes at s (NULs included) as tbctl_fputs_safe() prints */
void tbctl_fwrite_safe(FILE *f, const char *s, size_t len);

/*
 * tbctl_json_str() - len bytes at s as a JSON string, quotes included:
 * '"', '\\' and control characters escaped, valid UTF-8 copied, every
 * byte of an invalid sequence (overlong, surrogate, beyond U+10FFFF,
 * truncated) replaced by U+FFFD.
 */
void tbctl_json_str(FILE *f, const char *s, size_t len);
static inline void tbctl_json_cstr(FILE *f, const char *s)
{
	tbctl_json_str(f, s, s ? strlen(s) : 0);
}

/* A double as a JSON number; NaN and infinities (not JSON) as strings. */
void tbctl_json_double(FILE *f, double d);

/*
 * How tbctl_print_arg() prints what differs between "dump" (its own text)
 * and "convert" (JSON): strings, doubles, and the formats of a pointer, a
 * koid, a blob's size and an argument of an unknown type (its type and
 * size).  Numbers, booleans and null print alike in both.
 */
struct tbctl_arg_style {
	void (*str)(FILE *f, struct tracebuf_reader_str s);
	void (*dbl)(FILE *f, double d);
	const char *pointer;		/* one PRIx64 */
	const char *koid;		/* one PRIu64 */
	const char *blob;		/* one %zu */
	unsigned int blob_hex;		/* then ':' and up to this many of
					 * its bytes in hex ("..." if more);
					 * 0: none
					 */
	const char *unknown;		/* %u, then %zu */
};

/* tbctl_print_arg() - the value of @a, in @style. */
void tbctl_print_arg(FILE *f, const struct tracebuf_reader_arg *a,
		     const struct tbctl_arg_style *style);

/* Whether an argument of this TRACEBUF_LIB_FXT_ARG_* type is a number (a counter's value). */
bool tbctl_arg_numeric(unsigned int type);

/*
 * tbctl_kobj_thread_pid() - the process koid of a thread kernel object
 * record (its "process" argument, a koid or a uint64), 0 if it has none.
 */
uint64_t tbctl_kobj_thread_pid(const struct tracebuf_reader_record *rec);

#endif /* TBCTL_UTIL_H */
