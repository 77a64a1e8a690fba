// SPDX-License-Identifier: MIT
/*
 * The argument parsing of "tracebufctl record", table-driven (ethtool's
 * test-cmdline.c style): record_parse() fills a struct from argv and
 * does nothing else, so every case checks the whole struct (fields not
 * named in a good case must keep their defaults) or the error line.
 *
 * Each table entry is one KTAP subtest, run in its own child by ktap.h's
 * runner through a trampoline case_N() that checks record_cases[N], in a
 * fresh directory of its own (the working directory), where the case's
 * --config file is "cfg".  Every good case is also printed with
 * --print-config, read back with --config and compared field by field
 * (round_trip()).  The tests after the table (config_tests[]) build what
 * a table cannot: files at and over the size limits, many categories,
 * values no file can hold, a write error.
 */
#include "ktap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "../outfile.h"
#include "../tracebufctl.h"

struct rcase {
	const char *name;
	const char *argv[24];		/* after "record" */
	int ret;			/* 0 or -errno */
	const char *err;		/* the error line if it starts with
					 * "record: ", else a substring of it
					 */
	const char *file;		/* the text of "cfg", NULL: none */
	size_t filelen;			/* its length if it holds a NUL */
	const char *print;		/* what --print-config prints */
	bool help;
	bool print_config;
	uint32_t mode;
	uint64_t size;
	uint64_t duration;
	uint64_t max_size;
	const char *cats;		/* joined with ',' */
	const char *provs;		/* joined with ',' */
	const char *overrides;		/* "name=size" joined with ',' */
	const char *triggers;		/* joined with ',' */
	const char *output;		/* NULL: the default */
	const char *command;		/* joined with ' ' */
	unsigned int present;		/* exactly these TBCTL_OPT_* (good cases) */
};

#define K 1024ULL
#define M (1024 * K)
#define G (1024 * M)
#define MS 1000000ULL
#define S (1000 * MS)

static const struct rcase record_cases[] = {
	/* good */
	{ .name = "defaults" },
	{ "help_short", { "-h" }, .help = true },
	{ "help_long_after_options", { "-m", "streaming", "--help" }, .help = true,
	  .mode = TRACEBUF_MODE_STREAMING, .present = TBCTL_OPT_MODE },
	{ "categories_split_at_commas", { "-c", "a,b,c" }, .cats = "a,b,c",
	  .present = TBCTL_OPT_CATEGORIES },
	{ "categories_repeated", { "-c", "a", "--categories", "b,c" }, .cats = "a,b,c",
	  .present = TBCTL_OPT_CATEGORIES },
	{ "categories_long_equals", { "--categories=x:y" }, .cats = "x:y",
	  .present = TBCTL_OPT_CATEGORIES },
	{ "categories_attached", { "-cnet" }, .cats = "net", .present = TBCTL_OPT_CATEGORIES },
	{ "mode_oneshot", { "-m", "oneshot" }, .mode = TRACEBUF_MODE_ONESHOT,
	  .present = TBCTL_OPT_MODE },
	{ "mode_circular_long", { "--mode=circular" }, .mode = TRACEBUF_MODE_CIRCULAR,
	  .present = TBCTL_OPT_MODE },
	{ "mode_streaming", { "-m", "streaming" }, .mode = TRACEBUF_MODE_STREAMING,
	  .present = TBCTL_OPT_MODE },
	{ "mode_prefix", { "-m", "circ" }, .mode = TRACEBUF_MODE_CIRCULAR,
	  .present = TBCTL_OPT_MODE },
	{ "size_plain_bytes", { "-b", "8192" }, .size = 8192, .present = TBCTL_OPT_BUFFER_SIZE },
	{ "size_k", { "-b", "64K" }, .size = 64 * K, .present = TBCTL_OPT_BUFFER_SIZE },
	{ "size_lower_k", { "-b", "8k" }, .size = 8 * K, .present = TBCTL_OPT_BUFFER_SIZE },
	{ "size_kib", { "-b", "12KiB" }, .size = 12 * K, .present = TBCTL_OPT_BUFFER_SIZE },
	{ "size_m", { "--buffer-size", "4M" }, .size = 4 * M,
	  .present = TBCTL_OPT_BUFFER_SIZE },
	{ "size_mib", { "-b", "2MiB" }, .size = 2 * M, .present = TBCTL_OPT_BUFFER_SIZE },
	{ "size_g", { "-b", "1G" }, .size = G, .present = TBCTL_OPT_BUFFER_SIZE },
	{ "size_gib", { "-b", "2GiB" }, .size = 2 * G, .present = TBCTL_OPT_BUFFER_SIZE },
	{ "size_last_wins", { "-b", "4K", "-b", "8K" }, .size = 8 * K,
	  .present = TBCTL_OPT_BUFFER_SIZE },
	{ "override", { "-b", "app:8M" }, .overrides = "app=8388608",
	  .present = TBCTL_OPT_OVERRIDE },
	{ "override_and_size", { "-b", "1M", "-b", "app:8M", "-b", "db:64K" }, .size = M,
	  .overrides = "app=8388608,db=65536",
	  .present = TBCTL_OPT_BUFFER_SIZE | TBCTL_OPT_OVERRIDE },
	{ "override_name_with_colon", { "-b", "a:b:4K" }, .overrides = "a:b=4096",
	  .present = TBCTL_OPT_OVERRIDE },
	{ "duration_ms", { "-d", "500ms" }, .duration = 500 * MS, .present = TBCTL_OPT_DURATION },
	{ "duration_s", { "-d", "10s" }, .duration = 10 * S, .present = TBCTL_OPT_DURATION },
	{ "duration_m", { "--duration", "2m" }, .duration = 120 * S,
	  .present = TBCTL_OPT_DURATION },
	{ "duration_plain_is_seconds", { "-d", "3" }, .duration = 3 * S,
	  .present = TBCTL_OPT_DURATION },
	{ "duration_fraction", { "-d", "1.5s" }, .duration = 1500 * MS,
	  .present = TBCTL_OPT_DURATION },
	{ "duration_us", { "--duration=250us" }, .duration = 250000,
	  .present = TBCTL_OPT_DURATION },
	{ "duration_h", { "-d", "1h" }, .duration = 3600 * S, .present = TBCTL_OPT_DURATION },
	{ "providers", { "-p", "one", "--provider", "two" }, .provs = "one,two",
	  .present = TBCTL_OPT_PROVIDER },
	{ "trigger", { "--trigger", "oops:stop" }, .triggers = "oops:stop",
	  .present = TBCTL_OPT_TRIGGER },
	{ "triggers_repeated", { "--trigger", "a:stop", "--trigger=b:stop" },
	  .triggers = "a:stop,b:stop", .present = TBCTL_OPT_TRIGGER },
	{ "output", { "-o", "out.fxt" }, .output = "out.fxt", .present = TBCTL_OPT_OUTPUT },
	{ "output_attached", { "-oout.fxt" }, .output = "out.fxt", .present = TBCTL_OPT_OUTPUT },
	{ "output_long_equals", { "--output=dir/x.fxt" }, .output = "dir/x.fxt",
	  .present = TBCTL_OPT_OUTPUT },
	{ "quiet", { "-q" }, .present = TBCTL_OPT_QUIET },
	{ "flag_cluster", { "-qm", "streaming" }, .mode = TRACEBUF_MODE_STREAMING,
	  .present = TBCTL_OPT_QUIET | TBCTL_OPT_MODE },
	{ "command", { "--", "sleep", "1" }, .command = "sleep 1",
	  .present = TBCTL_OPT_COMMAND },
	{ "command_keeps_its_options", { "-d", "1s", "--", "cmd", "-x", "--", "-d", "5" },
	  .duration = S, .command = "cmd -x -- -d 5",
	  .present = TBCTL_OPT_DURATION | TBCTL_OPT_COMMAND },
	{ "everything", { "-c", "a,b", "-m", "streaming", "-b", "16M", "-b", "x:4K", "-d", "2s",
			  "-p", "x", "--trigger", "t:stop", "-o", "f.fxt", "--", "true" },
	  .cats = "a,b", .mode = TRACEBUF_MODE_STREAMING, .size = 16 * M,
	  .overrides = "x=4096", .duration = 2 * S, .provs = "x", .triggers = "t:stop",
	  .output = "f.fxt", .command = "true",
	  .present = TBCTL_OPT_CATEGORIES | TBCTL_OPT_MODE | TBCTL_OPT_BUFFER_SIZE |
		     TBCTL_OPT_OVERRIDE | TBCTL_OPT_DURATION | TBCTL_OPT_PROVIDER |
		     TBCTL_OPT_TRIGGER | TBCTL_OPT_OUTPUT | TBCTL_OPT_COMMAND },

	/* bad */
	{ "unknown_short_option", { "-x" }, .ret = -EINVAL, .err = "record: unknown option '-x'" },
	{ "unknown_long_option", { "--bogus" }, .ret = -EINVAL, .err = "record: unknown option '--bogus'" },
	{ "unknown_long_option_value", { "--bogus=1" }, .ret = -EINVAL, .err = "unknown option '--bogus'" },
	{ "flag_with_value", { "--quiet=yes" }, .ret = -EINVAL, .err = "option '--quiet' takes no value" },
	{ "size_not_4k_multiple", { "-b", "1000" }, .ret = -EINVAL, .err = "not a multiple of 4 KiB" },
	{ "size_1k_not_4k_multiple", { "-b", "1K" }, .ret = -EINVAL, .err = "not a multiple of 4 KiB" },
	{ "override_not_4k_multiple", { "-b", "app:6000" }, .ret = -EINVAL, .err = "not a multiple of 4 KiB" },
	{ "size_unknown_suffix", { "-b", "4T" }, .ret = -EINVAL, .err = "invalid size '4T'" },
	{ "size_mb_is_not_a_suffix", { "-b", "4MB" }, .ret = -EINVAL, .err = "invalid size '4MB'" },
	{ "size_not_a_number", { "-b", "lots" }, .ret = -EINVAL, .err = "invalid size 'lots'" },
	{ "size_negative", { "-b", "-4096" }, .ret = -EINVAL, .err = "invalid size '-4096'" },
	{ "size_empty", { "-b", "" }, .ret = -EINVAL, .err = "invalid size ''" },
	{ "size_zero", { "-b", "0" }, .ret = -EINVAL, .err = "must not be 0" },
	{ "size_overflow", { "-b", "99999999999999999999" }, .ret = -EINVAL, .err = "too large" },
	{ "size_overflow_suffix", { "-b", "17179869184G" }, .ret = -EINVAL, .err = "too large" },
	{ "override_empty_name", { "-b", ":4K" }, .ret = -EINVAL, .err = "empty provider name" },
	{ "override_twice", { "-b", "a:4K", "-b", "a:8K" }, .ret = -EINVAL,
	  .err = "buffer size of provider 'a' given twice" },
	{ "override_name_too_long",
	  { "-b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:4K" },
	  .ret = -EINVAL, .err = "longer than 100 bytes" },
	{ "mode_unknown", { "-m", "fast" }, .ret = -EINVAL,
	  .err = "invalid mode 'fast' (oneshot, circular or streaming)" },
	{ "mode_empty", { "-m", "" }, .ret = -EINVAL, .err = "invalid mode ''" },
	{ "duration_zero", { "-d", "0" }, .ret = -EINVAL, .err = "must be positive" },
	{ "duration_unknown_unit", { "-d", "10x" }, .ret = -EINVAL, .err = "invalid duration '10x'" },
	{ "duration_not_a_number", { "-d", "soon" }, .ret = -EINVAL, .err = "invalid duration 'soon'" },
	{ "duration_negative", { "-d", "-5" }, .ret = -EINVAL, .err = "invalid duration '-5'" },
	{ "duration_two_dots", { "-d", "1.5.5" }, .ret = -EINVAL, .err = "invalid duration '1.5.5'" },
	{ "duration_empty", { "-d", "" }, .ret = -EINVAL, .err = "invalid duration ''" },
	{ "duration_overflow", { "-d", "9999999999999h" }, .ret = -EINVAL, .err = "too long" },
	{ "command_missing_after_dashdash", { "-d", "1s", "--" }, .ret = -EINVAL,
	  .err = "missing command after '--'" },
	{ "positional_without_dashdash", { "sleep", "1" }, .ret = -EINVAL,
	  .err = "unexpected argument 'sleep' (the command to run goes after '--')" },
	{ "missing_value_categories", { "-c" }, .ret = -EINVAL, .err = "option '-c' needs a value" },
	{ "missing_value_output", { "--output" }, .ret = -EINVAL, .err = "option '--output' needs a value" },
	{ "missing_value_duration", { "-d" }, .ret = -EINVAL, .err = "option '-d' needs a value" },
	{ "missing_value_before_dashdash", { "-o", "--", "true" }, .ret = -EINVAL,
	  .err = "option '-o' needs a value" },
	{ "missing_value_trigger", { "--trigger" }, .ret = -EINVAL, .err = "option '--trigger' needs a value" },
	{ "trigger_without_action", { "--trigger", "oops" }, .ret = -EINVAL,
	  .err = "invalid trigger 'oops' (expected ALERT:stop or ALERT:snapshot)" },
	{ "trigger_unknown_action", { "--trigger", "oops:start" }, .ret = -EINVAL,
	  .err = "unknown trigger action 'start'" },
	{ "trigger_snapshot", { "-m", "circular", "--trigger", "dump:snapshot", "--trigger",
				"end:stop" }, .mode = TRACEBUF_MODE_CIRCULAR,
	  .triggers = "dump:snapshot,end:stop", .present = TBCTL_OPT_MODE | TBCTL_OPT_TRIGGER },
	{ "trigger_snapshot_oneshot", { "--trigger", "d:snapshot" }, .triggers = "d:snapshot",
	  .present = TBCTL_OPT_TRIGGER },
	{ "trigger_snapshot_streaming", { "-m", "streaming", "--trigger", "d:snapshot" },
	  .ret = -EINVAL, .err = "--trigger d:snapshot: snapshots are for -m circular and oneshot" },
	{ "trigger_snapshot_stdout", { "-m", "circular", "--trigger", "d:snapshot", "-o", "-" },
	  .ret = -EINVAL, .err = "snapshots are named after the output file: not with -o -" },
	{ "trigger_empty_alert", { "--trigger", ":stop" }, .ret = -EINVAL, .err = "empty alert name" },
	{ "trigger_alert_too_long", { "--trigger", "fifteen-chars-x:stop" }, .ret = -EINVAL,
	  .err = "longer than 14 bytes" },
	{ "category_empty_item", { "-c", "a,,b" }, .ret = -EINVAL, .err = "empty category in 'a,,b'" },
	{ "category_empty", { "-c", "" }, .ret = -EINVAL, .err = "empty category" },
	{ "category_trailing_comma", { "-c", "a," }, .ret = -EINVAL, .err = "empty category" },
	{ "category_too_long",
	  { "-c", "a,ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc" },
	  .ret = -EINVAL, .err = "longer than 100 bytes" },
	{ "provider_empty", { "-p", "" }, .ret = -EINVAL, .err = "empty provider name" },
	{ "output_empty", { "-o", "" }, .ret = -EINVAL, .err = "empty output file name" },

	/* --max-size and --rotate */
	{ "max_size", { "-m", "streaming", "--max-size", "64M" }, .mode = TRACEBUF_MODE_STREAMING,
	  .max_size = 64 * M, .present = TBCTL_OPT_MODE | TBCTL_OPT_MAX_SIZE,
	  .print = "mode streaming\nmax-size 64M\n" },
	{ "rotate", { "--rotate", "-m", "streaming", "--max-size", "1M" },
	  .mode = TRACEBUF_MODE_STREAMING, .max_size = M,
	  .present = TBCTL_OPT_MODE | TBCTL_OPT_MAX_SIZE | TBCTL_OPT_ROTATE,
	  .print = "mode streaming\nmax-size 1M\nrotate\n" },
	{ "rotate_compressed", { "-m", "streaming", "--max-size", "100", "--rotate", "-o", "t.fxt.zst" },
	  .mode = TRACEBUF_MODE_STREAMING, .max_size = 100, .output = "t.fxt.zst",
	  .present = TBCTL_OPT_MODE | TBCTL_OPT_MAX_SIZE | TBCTL_OPT_ROTATE | TBCTL_OPT_OUTPUT },
	{ "rotate_from_config", { "--config", "cfg", "--max-size", "2M" },
	  .file = "mode streaming\nmax-size 8M\nrotate\n", .mode = TRACEBUF_MODE_STREAMING,
	  .max_size = 2 * M, .present = TBCTL_OPT_MODE | TBCTL_OPT_MAX_SIZE | TBCTL_OPT_ROTATE,
	  .print = "mode streaming\nmax-size 2M\nrotate\n" },
	{ "rotate_without_max_size", { "-m", "streaming", "--rotate" }, .ret = -EINVAL,
	  .err = "record: --rotate needs --max-size (the size at which a new file begins)" },
	{ "rotate_not_streaming", { "-m", "circular", "--max-size", "1M", "--rotate" },
	  .ret = -EINVAL,
	  .err = "record: --max-size is for -m streaming (the other modes keep one buffer)" },
	{ "rotate_stdout", { "-m", "streaming", "--max-size", "1M", "--rotate", "-o", "-" },
	  .ret = -EINVAL,
	  .err = "record: --rotate: standard output (-o -) cannot go on in another file" },
	{ "rotate_takes_no_value", { "--rotate=yes" }, .ret = -EINVAL,
	  .err = "record: option '--rotate' takes no value" },
	{ "config_rotate_without_max_size", { "--config", "cfg", "-m", "streaming" },
	  .file = "rotate\n", .ret = -EINVAL,
	  .err = "record: --rotate needs --max-size (the size at which a new file begins)" },
	{ "config_rotate_takes_no_value", { "--config", "cfg" }, .file = "rotate yes\n",
	  .ret = -EINVAL, .err = "record: cfg:1: 'rotate' takes no value" },

	/* --config FILE and --print-config: good */
	{ "config_every_option", { "--config", "cfg" },
	  .file = "# every option, comments and blank lines\n"
		  "\n"
		  "categories app,db\n"
		  "\tcategories   net  \n"
		  "mode stream\n"
		  "buffer-size 8M\n"
		  "buffer-size app:16M\n"
		  "buffer-size my db:64K\n"
		  "   \t \n"
		  "duration 1.5s\n"
		  "provider app\n"
		  "provider my db\n"
		  "trigger crash:stop\n"
		  "best-effort\n"
		  "output /tmp/my  trace.fxt \t\n"
		  "  # an indented comment\n"
		  "quiet\n",
	  .cats = "app,db,net", .mode = TRACEBUF_MODE_STREAMING, .size = 8 * M,
	  .overrides = "app=16777216,my db=65536", .duration = 1500 * MS, .provs = "app,my db",
	  .triggers = "crash:stop", .output = "/tmp/my  trace.fxt",
	  .present = TBCTL_OPT_CATEGORIES | TBCTL_OPT_MODE | TBCTL_OPT_BUFFER_SIZE |
		     TBCTL_OPT_OVERRIDE | TBCTL_OPT_DURATION | TBCTL_OPT_PROVIDER |
		     TBCTL_OPT_TRIGGER | TBCTL_OPT_BEST_EFFORT | TBCTL_OPT_OUTPUT |
		     TBCTL_OPT_QUIET,
	  .print = "categories app,db,net\n"
		   "mode streaming\n"
		   "buffer-size 8M\n"
		   "buffer-size app:16M\n"
		   "buffer-size my db:64K\n"
		   "duration 1500ms\n"
		   "provider app\n"
		   "provider my db\n"
		   "trigger crash:stop\n"
		   "best-effort\n"
		   "output /tmp/my  trace.fxt\n"
		   "quiet\n" },
	{ "config_print_config_flag", { "--config", "cfg", "--print-config" },
	  .file = "mode circular\nduration 90s\nbuffer-size 12288\n", .print_config = true,
	  .mode = TRACEBUF_MODE_CIRCULAR, .duration = 90 * S, .size = 12 * K,
	  .present = TBCTL_OPT_MODE | TBCTL_OPT_DURATION | TBCTL_OPT_BUFFER_SIZE,
	  .print = "mode circular\nbuffer-size 12K\nduration 90s\n" },
	{ "print_config_without_file", { "--print-config", "-d", "2m", "-q", "--", "true" },
	  .print_config = true, .duration = 120 * S, .command = "true",
	  .present = TBCTL_OPT_DURATION | TBCTL_OPT_QUIET | TBCTL_OPT_COMMAND,
	  .print = "duration 2m\nquiet\n" },
	{ "print_config_nothing_set", { "--print-config" }, .print_config = true, .print = "" },
	{ "config_empty_file", { "--config", "cfg" }, .file = "", .print = "" },
	{ "config_comments_only", { "--config", "cfg" }, .file = "#\n  # mode x\n\n\t#quiet\n",
	  .print = "" },
	{ "config_crlf_and_tabs", { "--config", "cfg" }, .file = "mode\tcirc\r\nquiet\r\n",
	  .mode = TRACEBUF_MODE_CIRCULAR, .present = TBCTL_OPT_MODE | TBCTL_OPT_QUIET,
	  .print = "mode circular\nquiet\n" },
	{ "config_last_line_unterminated", { "--config", "cfg" }, .file = "# x\nduration 2m",
	  .duration = 120 * S, .present = TBCTL_OPT_DURATION },
	{ "config_value_with_hash_and_blanks", { "--config", "cfg" },
	  .file = "output  a #b \t c.fxt  \n", .output = "a #b \t c.fxt",
	  .present = TBCTL_OPT_OUTPUT, .print = "output a #b \t c.fxt\n" },
	{ "config_categories_accumulate", { "--config", "cfg" },
	  .file = "categories a\ncategories b,c\ncategories a\n", .cats = "a,b,c,a",
	  .present = TBCTL_OPT_CATEGORIES, .print = "categories a,b,c,a\n" },
	{ "config_file_last_single_wins", { "--config", "cfg" },
	  .file = "mode oneshot\nmode circular\nbuffer-size 4K\nbuffer-size 8K\n",
	  .mode = TRACEBUF_MODE_CIRCULAR, .size = 8 * K,
	  .present = TBCTL_OPT_MODE | TBCTL_OPT_BUFFER_SIZE },
	{ "config_long_equals", { "--config=cfg" }, .file = "quiet", .present = TBCTL_OPT_QUIET },
	{ "config_with_command", { "--config", "cfg", "--", "sleep", "1" },
	  .file = "duration 1s\n", .duration = S, .command = "sleep 1",
	  .present = TBCTL_OPT_DURATION | TBCTL_OPT_COMMAND },
	{ "config_help_before_reading", { "--config", "nonexistent", "-h" }, .help = true },

	/* the command line over the file */
	{ "config_cli_after_replaces_single", { "--config", "cfg", "-m", "streaming", "-o", "cli.fxt" },
	  .file = "mode circular\nduration 10s\noutput file.fxt\n",
	  .mode = TRACEBUF_MODE_STREAMING, .duration = 10 * S, .output = "cli.fxt",
	  .present = TBCTL_OPT_MODE | TBCTL_OPT_DURATION | TBCTL_OPT_OUTPUT,
	  .print = "mode streaming\nduration 10s\noutput cli.fxt\n" },
	{ "config_cli_before_replaces_single", { "-d", "5s", "-m", "oneshot", "--config", "cfg" },
	  .file = "mode circular\nduration 10s\noutput file.fxt\n",
	  .mode = TRACEBUF_MODE_ONESHOT, .duration = 5 * S, .output = "file.fxt",
	  .present = TBCTL_OPT_MODE | TBCTL_OPT_DURATION | TBCTL_OPT_OUTPUT },
	{ "config_cli_replaces_all_of_repeatable", { "--config", "cfg", "-c", "x", "-p", "q" },
	  .file = "categories a,b\ncategories c\nprovider p1\nprovider p2\ntrigger t1:stop\n",
	  .cats = "x", .provs = "q", .triggers = "t1:stop",
	  .present = TBCTL_OPT_CATEGORIES | TBCTL_OPT_PROVIDER | TBCTL_OPT_TRIGGER,
	  .print = "categories x\nprovider q\ntrigger t1:stop\n" },
	{ "config_cli_before_replaces_repeatable", { "--trigger", "u:stop", "--config", "cfg" },
	  .file = "categories a\ntrigger t1:stop\ntrigger t2:stop\n",
	  .cats = "a", .triggers = "u:stop", .present = TBCTL_OPT_CATEGORIES | TBCTL_OPT_TRIGGER },
	{ "config_cli_both_sides_in_order", { "-c", "x", "--config", "cfg", "-c", "y" },
	  .file = "categories a\n", .cats = "x,y", .present = TBCTL_OPT_CATEGORIES },
	{ "config_cli_size_keeps_file_overrides", { "-b", "1M", "--config", "cfg" },
	  .file = "buffer-size 8M\nbuffer-size app:16M\nbuffer-size db:1M\n",
	  .size = M, .overrides = "app=16777216,db=1048576",
	  .present = TBCTL_OPT_BUFFER_SIZE | TBCTL_OPT_OVERRIDE,
	  .print = "buffer-size 1M\nbuffer-size app:16M\nbuffer-size db:1M\n" },
	{ "config_cli_override_keeps_file_size", { "--config", "cfg", "-b", "app:4K" },
	  .file = "buffer-size 8M\nbuffer-size app:16M\nbuffer-size db:1M\n",
	  .size = 8 * M, .overrides = "app=4096",
	  .present = TBCTL_OPT_BUFFER_SIZE | TBCTL_OPT_OVERRIDE,
	  .print = "buffer-size 8M\nbuffer-size app:4K\n" },
	{ "config_cli_keeps_file_flags", { "--config", "cfg", "-o", "x.fxt" },
	  .file = "quiet\nbest-effort\n", .output = "x.fxt",
	  .present = TBCTL_OPT_QUIET | TBCTL_OPT_BEST_EFFORT | TBCTL_OPT_OUTPUT },

	/* --config FILE: bad */
	{ "config_unknown_option", { "--config", "cfg" },
	  .file = "mode streaming\n\n# mdoe\nmdoe circular\n", .ret = -EINVAL,
	  .err = "record: cfg:4: unknown option 'mdoe'" },
	{ "config_flag_with_value", { "--config", "cfg" },
	  .file = "mode streaming\n#\n\n\nquiet yes\n", .ret = -EINVAL,
	  .err = "record: cfg:5: 'quiet' takes no value" },
	{ "config_missing_value", { "--config", "cfg" }, .file = "quiet\nmode\n", .ret = -EINVAL,
	  .err = "record: cfg:2: 'mode' needs a value" },
	{ "config_missing_value_blanks", { "--config", "cfg" }, .file = "output \t \n",
	  .ret = -EINVAL, .err = "record: cfg:1: 'output' needs a value" },
	{ "config_refuses_config", { "--config", "cfg" }, .file = "config other\n", .ret = -EINVAL,
	  .err = "record: cfg:1: 'config' is for the command line only" },
	{ "config_refuses_help", { "--config", "cfg" }, .file = "\nhelp\n", .ret = -EINVAL,
	  .err = "record: cfg:2: 'help' is for the command line only" },
	{ "config_refuses_print_config", { "--config", "cfg" }, .file = "print-config\n",
	  .ret = -EINVAL, .err = "record: cfg:1: 'print-config' is for the command line only" },
	{ "config_refuses_command", { "--config", "cfg" }, .file = "quiet\n-- sleep 1\n",
	  .ret = -EINVAL,
	  .err = "record: cfg:2: the command to run goes on the command line, after '--'" },
	{ "config_names_without_dashes", { "--config", "cfg" }, .file = "--mode streaming\n",
	  .ret = -EINVAL, .err = "record: cfg:1: unknown option '--mode' (names go without their dashes)" },
	{ "config_no_short_letters", { "--config", "cfg" }, .file = "m streaming\n",
	  .ret = -EINVAL, .err = "record: cfg:1: unknown option 'm'" },
	{ "config_no_prefixes", { "--config", "cfg" }, .file = "dur 1s\n",
	  .ret = -EINVAL, .err = "record: cfg:1: unknown option 'dur'" },
	{ "config_no_equals", { "--config", "cfg" }, .file = "mode=streaming\n",
	  .ret = -EINVAL, .err = "record: cfg:1: unknown option 'mode=streaming'" },
	{ "config_bad_mode", { "--config", "cfg" }, .file = "# x\nmode fast\n", .ret = -EINVAL,
	  .err = "record: cfg:2: invalid mode 'fast' (oneshot, circular or streaming)" },
	{ "config_bad_size", { "--config", "cfg" }, .file = "buffer-size 1000\n", .ret = -EINVAL,
	  .err = "record: cfg:1: buffer-size 1000: size 1000 is not a multiple of 4 KiB (4096 bytes)" },
	{ "config_bad_duration", { "--config", "cfg" }, .file = "duration 10x\n", .ret = -EINVAL,
	  .err = "record: cfg:1: duration 10x: invalid duration '10x' (e.g. 500ms, 10s, 2m; a plain number is seconds)" },
	{ "config_bad_trigger", { "--config", "cfg" }, .file = "trigger oops:start\n",
	  .ret = -EINVAL,
	  .err = "record: cfg:1: unknown trigger action 'start' in 'oops:start' (only 'stop', 'snapshot')" },
	{ "config_bad_category", { "--config", "cfg" }, .file = "categories a,,b\n",
	  .ret = -EINVAL, .err = "record: cfg:1: empty category in 'a,,b'" },
	{ "config_override_twice_across_lines", { "--config", "cfg" },
	  .file = "buffer-size a:4K\n\nbuffer-size a:8K\n", .ret = -EINVAL,
	  .err = "record: cfg:3: buffer size of provider 'a' given twice" },
	{ "config_bad_value_even_if_overridden", { "-m", "streaming", "--config", "cfg" },
	  .file = "mode fast\n", .ret = -EINVAL,
	  .err = "record: cfg:1: invalid mode 'fast' (oneshot, circular or streaming)" },
	{ "config_first_error_wins", { "--config", "cfg" }, .file = "mdoe x\nmode fast\n",
	  .ret = -EINVAL, .err = "record: cfg:1: unknown option 'mdoe'" },
	{ "config_command_line_checked_first", { "--config", "nonexistent", "-m", "fast" },
	  .ret = -EINVAL, .err = "record: invalid mode 'fast' (oneshot, circular or streaming)" },
	{ "config_nul_byte", { "--config", "cfg" }, .file = "mode streaming\nquiet\0\n",
	  .filelen = 22, .ret = -EINVAL, .err = "record: cfg:2: a NUL byte: not a configuration file" },
	{ "config_nul_byte_before_syntax", { "--config", "cfg" }, .file = "mdoe\n\0", .filelen = 6,
	  .ret = -EINVAL, .err = "record: cfg:2: a NUL byte: not a configuration file" },
	{ "config_nonexistent", { "--config", "nonexistent" }, .ret = -ENOENT,
	  .err = "record: nonexistent: No such file or directory" },
	{ "config_directory", { "--config", "." }, .ret = -EISDIR,
	  .err = "record: .: Is a directory" },
	{ "config_twice", { "--config", "cfg", "--config", "cfg" }, .file = "quiet\n",
	  .ret = -EINVAL, .err = "record: --config given twice (one file only)" },
	{ "config_empty_name", { "--config", "" }, .ret = -EINVAL,
	  .err = "record: empty configuration file name" },
	{ "config_missing_name", { "--config" }, .ret = -EINVAL,
	  .err = "record: option '--config' needs a value" },
	{ "print_config_takes_no_value", { "--print-config=yes" }, .ret = -EINVAL,
	  .err = "record: option '--print-config' takes no value" },
};

/* v[0..n) joined with sep, into buf. */
static const char *join(char *buf, size_t len, char **v, size_t n, char sep)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? (char[]){ sep, 0 } : "",
					v[i]);
	return buf;
}

static void expect_list(const char *what, char **v, size_t n, const char *want, char sep)
{
	char buf[512];

	join(buf, sizeof(buf), v, n, sep);
	if (strcmp(buf, want ? want : ""))
		T_FAIL("%s: \"%s\", expected \"%s\"", what, buf, want ? want : "");
}

/* ------------------------------------------------------------------------ */
/* A directory of its own for each test                                     */

static char test_dir[256];

/* A fresh empty directory, made the working directory. */
static bool dir_enter(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(test_dir, sizeof(test_dir), "%s/tbctl-rargs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(test_dir) || chdir(test_dir)) {
		T_FAIL("%s: %s", test_dir, strerror(errno));
		return false;
	}
	return true;
}

/* Remove it and the files in it. */
static void dir_leave(void)
{
	struct dirent *e;
	DIR *d;

	if (chdir("/"))
		T_FAIL("chdir /: %s", strerror(errno));
	d = opendir(test_dir);
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	if (rmdir(test_dir))
		T_FAIL("rmdir %s: %s", test_dir, strerror(errno));
}

static bool write_file(const char *name, const char *data, size_t len)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	bool ok = fd >= 0 && write(fd, data, len) == (ssize_t)len;

	if (fd >= 0 && close(fd))
		ok = false;
	if (!ok)
		T_FAIL("writing %s: %s", name, strerror(errno));
	return ok;
}

/* ------------------------------------------------------------------------ */
/* --print-config and the round trip                                        */

/* record_print_config(o) as a malloc'd string, its return in *ret. */
static char *print_config(const struct record_opts *o, int *ret, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		T_FAIL("open_memstream: %s", strerror(errno));
		*ret = -ENOMEM;
		return NULL;
	}
	*ret = record_print_config(f, o, err, errlen);
	fclose(f);
	return buf;
}

static void expect_same_list(const char *what, char **a, size_t na, char **b, size_t nb)
{
	if (na != nb) {
		T_FAIL("%s: %zu, then %zu read back", what, na, nb);
		return;
	}
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]))
			T_FAIL("%s[%zu]: \"%s\", then \"%s\" read back", what, i, a[i], b[i]);
}

/* a and b: the same options, field by field (a -- COMMAND aside). */
static void expect_same_opts(const struct record_opts *a, const struct record_opts *b)
{
	T_EXPECT_EQ(a->present & ~TBCTL_OPT_COMMAND, b->present);
	T_EXPECT_EQ(a->help, b->help);
	T_EXPECT_EQ(a->mode, b->mode);
	T_EXPECT_EQ(a->buffer_size, b->buffer_size);
	T_EXPECT_EQ(a->duration_ns, b->duration_ns);
	T_EXPECT_EQ(a->max_size, b->max_size);
	if (strcmp(a->output, b->output))
		T_FAIL("output: \"%s\", then \"%s\" read back", a->output, b->output);
	expect_same_list("categories", a->categories, a->ncategories, b->categories,
			 b->ncategories);
	expect_same_list("providers", a->providers, a->nproviders, b->providers, b->nproviders);
	expect_same_list("triggers", a->triggers, a->ntriggers, b->triggers, b->ntriggers);
	T_EXPECT_EQ(a->noverrides, b->noverrides);
	for (size_t i = 0; i < a->noverrides && i < b->noverrides; i++) {
		if (strcmp(a->overrides[i].name, b->overrides[i].name))
			T_FAIL("override %zu: \"%s\", then \"%s\" read back", i,
			       a->overrides[i].name, b->overrides[i].name);
		T_EXPECT_EQ(a->overrides[i].size, b->overrides[i].size);
	}
	T_EXPECT(b->command == NULL);
	T_EXPECT_EQ(b->ncommand, 0);
	T_EXPECT(!b->print_config);
}

/*
 * o, printed by --print-config into the file "rt", read back by --config
 * rt: the same options; printed again: the same text.
 */
static void round_trip(const struct record_opts *o)
{
	char *argv[] = { (char *)"record", (char *)"--config", (char *)"rt", NULL };
	char err[256] = "", *text, *again;
	struct record_opts back;
	int ret;

	text = print_config(o, &ret, err, sizeof(err));
	if (ret || !text) {
		T_FAIL("--print-config: %d %s", ret, err);
		free(text);
		return;
	}
	if (!write_file("rt", text, strlen(text))) {
		free(text);
		return;
	}
	ret = record_parse(3, argv, &back, err, sizeof(err));
	if (ret) {
		T_FAIL("--config of --print-config's output: %d %s\n%s", ret, err, text);
	} else {
		expect_same_opts(o, &back);
		again = print_config(&back, &ret, err, sizeof(err));
		if (ret || !again || strcmp(text, again))
			T_FAIL("printed again: %d \"%s\", first \"%s\"", ret, again ? again : "",
			       text);
		free(again);
	}
	record_opts_free(&back);
	free(text);
}

/* ------------------------------------------------------------------------ */
/* The table                                                                */

static void check_case(const struct rcase *c)
{
	char *argv[32], err[256], buf[512], *text;
	struct record_opts o;
	size_t off = 0;
	int argc = 0, ret;

	argv[argc++] = (char *)"record";
	for (size_t j = 0; c->argv[j]; j++)
		argv[argc++] = (char *)c->argv[j];
	argv[argc] = NULL;
	memset(err, 'X', sizeof(err));
	err[sizeof(err) - 1] = '\0';
	if (c->file && !write_file("cfg", c->file, c->filelen ? c->filelen : strlen(c->file)))
		return;

	ret = record_parse(argc, argv, &o, err, sizeof(err));
	T_EXPECT_EQ(ret, c->ret);
	if (c->ret) {
		if (!strncmp(c->err, "record: ", 8) ? strcmp(err, c->err) : !strstr(err, c->err))
			T_FAIL("error \"%s\", expected \"%s\"", err, c->err);
		if (strncmp(err, "record: ", 8))
			T_FAIL("error \"%s\" does not start with \"record: \"", err);
		if (strchr(err, '\n'))
			T_FAIL("error \"%s\" is more than one line", err);
		record_opts_free(&o);
		return;
	}
	if (ret)
		printf("# error: %s\n", err);
	T_EXPECT_EQ(o.help, c->help);
	T_EXPECT_EQ(o.print_config, c->print_config);
	T_EXPECT_EQ(o.mode, c->mode);
	T_EXPECT_EQ(o.buffer_size, c->size);
	T_EXPECT_EQ(o.duration_ns, c->duration);
	T_EXPECT_EQ(o.max_size, c->max_size);
	if (c->present)
		T_EXPECT_EQ(o.present, c->present);
	else if (!c->help)
		T_EXPECT_EQ(o.present, 0);
	T_EXPECT(!strcmp(o.output, c->output ? c->output : TBCTL_DEFAULT_OUTPUT));
	expect_list("categories", o.categories, o.ncategories, c->cats, ',');
	expect_list("providers", o.providers, o.nproviders, c->provs, ',');
	expect_list("triggers", o.triggers, o.ntriggers, c->triggers, ',');
	buf[0] = '\0';
	for (size_t j = 0; j < o.noverrides; j++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s=%llu", j ? "," : "",
					o.overrides[j].name,
					(unsigned long long)o.overrides[j].size);
	if (strcmp(buf, c->overrides ? c->overrides : ""))
		T_FAIL("overrides: \"%s\", expected \"%s\"", buf,
		       c->overrides ? c->overrides : "");
	expect_list("command", o.command, (size_t)o.ncommand, c->command, ' ');
	if (o.command)
		T_EXPECT(o.command[o.ncommand] == NULL);
	if (c->print) {
		text = print_config(&o, &ret, err, sizeof(err));
		T_EXPECT_EQ(ret, 0);
		if (!text || strcmp(text, c->print))
			T_FAIL("--print-config:\n%s\nexpected:\n%s", text ? text : "", c->print);
		free(text);
	}
	if (!c->help)
		round_trip(&o);
	record_opts_free(&o);
}

#define NCASES		(sizeof(record_cases) / sizeof(record_cases[0]))

static void run_case(size_t i)
{
	if (i >= NCASES)	/* a trampoline past the table */
		return;
	if (!dir_enter())
		return;
	check_case(&record_cases[i]);
	dir_leave();
}

/* One trampoline per possible table entry: ktap.h's tests take no argument. */
#define CASE_FN(n)	static void case_##n(void) { run_case(n); }
#define CASE_FN10(d)	CASE_FN(d##0) CASE_FN(d##1) CASE_FN(d##2) CASE_FN(d##3) CASE_FN(d##4) \
			CASE_FN(d##5) CASE_FN(d##6) CASE_FN(d##7) CASE_FN(d##8) CASE_FN(d##9)
CASE_FN10() CASE_FN10(1) CASE_FN10(2) CASE_FN10(3) CASE_FN10(4) CASE_FN10(5)
CASE_FN10(6) CASE_FN10(7) CASE_FN10(8) CASE_FN10(9) CASE_FN10(10) CASE_FN10(11)
CASE_FN10(12) CASE_FN10(13) CASE_FN10(14) CASE_FN10(15) CASE_FN10(16)

#define CASE_PTR10(d)	case_##d##0, case_##d##1, case_##d##2, case_##d##3, case_##d##4, \
			case_##d##5, case_##d##6, case_##d##7, case_##d##8, case_##d##9
static void (*const trampolines[])(void) = {
	CASE_PTR10(), CASE_PTR10(1), CASE_PTR10(2), CASE_PTR10(3), CASE_PTR10(4),
	CASE_PTR10(5), CASE_PTR10(6), CASE_PTR10(7), CASE_PTR10(8), CASE_PTR10(9),
	CASE_PTR10(10), CASE_PTR10(11), CASE_PTR10(12), CASE_PTR10(13), CASE_PTR10(14),
	CASE_PTR10(15), CASE_PTR10(16),
};

_Static_assert(NCASES <= sizeof(trampolines) / sizeof(trampolines[0]),
	       "more cases than trampolines: add a CASE_FN10/CASE_PTR10 line");

/* ------------------------------------------------------------------------ */
/* What a table cannot hold                                                 */

/* record --config cfg ARGS... over the file cfg of len bytes at text. */
static int parse_file(const char *text, size_t len, struct record_opts *o, char *err,
		      size_t errlen)
{
	char *argv[] = { (char *)"record", (char *)"--config", (char *)"cfg", NULL };

	if (!write_file("cfg", text, len)) {
		memset(o, 0, sizeof(*o));
		return -EIO;
	}
	return record_parse(3, argv, o, err, errlen);
}

/* A file of n bytes: comment lines, then the line "quiet". */
static char *comment_file(size_t n)
{
	char *text = malloc(n + 1);

	if (!text)
		return NULL;
	memset(text, '#', n);
	for (size_t i = 100; i < n; i += 101)
		text[i] = '\n';
	memcpy(text + n - 7, "\nquiet\n", 7);
	text[n] = '\0';
	return text;
}

/* Lines of TBCTL_CONFIG_LINE_MAX bytes are read; one byte more is not. */
static void config_line_limit(void)
{
	size_t n = TBCTL_CONFIG_LINE_MAX, pre = strlen("mode circular\noutput ");
	char *text = malloc(pre + n + 2), err[256] = "";
	struct record_opts o;
	int ret;

	T_ASSERT(text != NULL);
	if (!dir_enter()) {
		free(text);
		return;
	}
	/* "output " and a name: exactly the longest line */
	memcpy(text, "mode circular\noutput ", pre);
	memset(text + pre, 'a', n - strlen("output "));
	memcpy(text + pre + n - strlen("output "), "\n", 2);
	ret = parse_file(text, strlen(text), &o, err, sizeof(err));
	T_EXPECT_EQ(ret, 0);
	if (!ret) {
		T_EXPECT_EQ(strlen(o.output), n - strlen("output "));
		round_trip(&o);
	}
	record_opts_free(&o);
	/* one byte more; the same with a trailing blank, which is part of the line */
	memcpy(text + pre + n - strlen("output "), "a\n", 3);
	ret = parse_file(text, strlen(text), &o, err, sizeof(err));
	T_EXPECT_EQ(ret, -EINVAL);
	T_EXPECT(!strcmp(err, "record: cfg:2: line longer than 8192 bytes"));
	record_opts_free(&o);
	memcpy(text + pre + n - strlen("output "), " ", 2);
	ret = parse_file(text, strlen(text), &o, err, sizeof(err));
	T_EXPECT_EQ(ret, -EINVAL);
	T_EXPECT(!strcmp(err, "record: cfg:2: line longer than 8192 bytes"));
	record_opts_free(&o);
	dir_leave();
	free(text);
}

/* Files of TBCTL_CONFIG_MAX bytes are read; one byte more is not. */
static void config_size_limit(void)
{
	char *text = comment_file(TBCTL_CONFIG_MAX + 1), err[256] = "";
	struct record_opts o;
	int ret;

	T_ASSERT(text != NULL);
	if (!dir_enter()) {
		free(text);
		return;
	}
	ret = parse_file(text + 1, TBCTL_CONFIG_MAX, &o, err, sizeof(err));
	T_EXPECT_EQ(ret, 0);
	T_EXPECT_EQ(o.present, TBCTL_OPT_QUIET);
	record_opts_free(&o);
	ret = parse_file(text, TBCTL_CONFIG_MAX + 1, &o, err, sizeof(err));
	T_EXPECT_EQ(ret, -EFBIG);
	T_EXPECT(!strcmp(err, "record: cfg: larger than 64 KiB: not a configuration file"));
	record_opts_free(&o);
	dir_leave();
	free(text);
}

/* An endless file is read no further than the limit. */
static void config_endless_file(void)
{
	char *argv[] = { (char *)"record", (char *)"--config", (char *)"/dev/zero", NULL };
	char err[256] = "";
	struct record_opts o;

	T_EXPECT_EQ(record_parse(3, argv, &o, err, sizeof(err)), -EFBIG);
	T_EXPECT(!strcmp(err, "record: /dev/zero: larger than 64 KiB: not a configuration file"));
	record_opts_free(&o);
}

/* An empty file names nothing, through a path that is not a regular file. */
static void config_dev_null(void)
{
	char *argv[] = { (char *)"record", (char *)"-q", (char *)"--config", (char *)"/dev/null",
			 NULL };
	char err[256] = "";
	struct record_opts o;

	T_EXPECT_EQ(record_parse(4, argv, &o, err, sizeof(err)), 0);
	T_EXPECT_EQ(o.present, TBCTL_OPT_QUIET);
	T_EXPECT(!strcmp(o.config, "/dev/null"));
	record_opts_free(&o);
}

/* argv "record" then -c CATEGORY n times, the categories n distinct 100-byte names. */
static char **many_categories(size_t n, int *argc)
{
	char **argv = calloc(2 * n + 2, sizeof(*argv));

	if (!argv)
		return NULL;
	argv[0] = (char *)"record";
	for (size_t i = 0; i < n; i++) {
		argv[1 + 2 * i] = (char *)"-c";
		argv[2 + 2 * i] = malloc(TRACEBUF_CATEGORY_MAX + 1);
		if (!argv[2 + 2 * i])
			return argv;	/* the test fails on the NULL */
		snprintf(argv[2 + 2 * i], TRACEBUF_CATEGORY_MAX + 1, "%04zu%0*d", i,
			 TRACEBUF_CATEGORY_MAX - 4, 0);
	}
	*argc = (int)(2 * n + 1);
	return argv;
}

static void free_argv(char **argv, int argc)
{
	for (int i = 2; argv && i < argc; i += 2)
		free(argv[i]);
	free(argv);
}

/* Categories that do not fit one line take several, each short enough. */
static void print_config_long_categories(void)
{
	int argc = 0, ret, lines = 0;
	char **argv = many_categories(200, &argc), err[256] = "", *text, *p;
	struct record_opts o;

	T_ASSERT(argv && argc);
	if (!dir_enter()) {
		free_argv(argv, argc);
		return;
	}
	ret = record_parse(argc, argv, &o, err, sizeof(err));
	T_EXPECT_EQ(ret, 0);
	T_EXPECT_EQ(o.ncategories, 200);
	text = print_config(&o, &ret, err, sizeof(err));
	T_EXPECT_EQ(ret, 0);
	for (p = text; p && *p; lines++) {
		char *nl = strchr(p, '\n');

		T_ASSERT(nl != NULL);
		if (strncmp(p, "categories ", 11) || (size_t)(nl - p) > TBCTL_CONFIG_LINE_MAX)
			T_FAIL("line %d: \"%.20s...\", %zu bytes", lines + 1, p, (size_t)(nl - p));
		p = nl + 1;
	}
	/* 200 * 101 bytes */
	T_EXPECT_EQ(lines, 3);
	round_trip(&o);
	free(text);
	record_opts_free(&o);
	dir_leave();
	free_argv(argv, argc);
}

/* What no file could hold back is refused, not printed. */
static void print_config_too_large(void)
{
	int argc = 0, ret;
	char **argv = many_categories(700, &argc), err[256] = "", *text;
	struct record_opts o;

	T_ASSERT(argv && argc);
	ret = record_parse(argc, argv, &o, err, sizeof(err));
	T_EXPECT_EQ(ret, 0);
	text = print_config(&o, &ret, err, sizeof(err));
	T_EXPECT_EQ(ret, -EINVAL);
	T_EXPECT(text && !*text);
	/* 8 lines of 81 categories, 8192 bytes each, then one of 52: 5263 bytes */
	if (strcmp(err, "record: --print-config: the configuration (70799 bytes) is larger "
		   "than a configuration file may be (64 KiB)"))
		T_FAIL("error \"%s\"", err);
	free(text);
	record_opts_free(&o);
	free_argv(argv, argc);
}

/* Values a file would not give back: refused, and nothing printed. */
static void print_config_unwritable_values(void)
{
	static const char *const cases[][3] = {
		{ "-o", " lead.fxt", "output" }, { "-o", "trail.fxt\t", "output" },
		{ "-o", "new\nline.fxt", "output" }, { "-p", " app", "provider" },
		{ "-c", " net", "categories" }, { "-b", "\tapp:4K", "buffer-size" },
		{ "--trigger", "a\nb:stop", "trigger" },
	};
	char want[256], err[256], *text;
	struct record_opts o;
	int ret;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = { (char *)"record", (char *)"-q", (char *)cases[i][0],
				 (char *)cases[i][1], NULL };

		ret = record_parse(4, argv, &o, err, sizeof(err));
		T_EXPECT_EQ(ret, 0);
		text = print_config(&o, &ret, err, sizeof(err));
		T_EXPECT_EQ(ret, -EINVAL);
		T_EXPECT(text && !*text);
		snprintf(want, sizeof(want),
			 "record: --print-config: a value of '%s' cannot be written in a "
			 "configuration file (a newline, a blank at either end or a line over "
			 "8192 bytes)", cases[i][2]);
		if (strcmp(err, want))
			T_FAIL("%s '%s': \"%s\"", cases[i][0], cases[i][1], err);
		free(text);
		record_opts_free(&o);
	}
}

/* A write error is an error. */
static void print_config_write_error(void)
{
	char *argv[] = { (char *)"record", (char *)"-q", NULL };
	char err[256] = "";
	struct record_opts o;
	int pfd[2];
	FILE *f;

	signal(SIGPIPE, SIG_IGN);
	T_ASSERT(pipe(pfd) == 0);
	close(pfd[0]);
	f = fdopen(pfd[1], "w");
	T_ASSERT(f != NULL);
	T_EXPECT_EQ(record_parse(2, argv, &o, err, sizeof(err)), 0);
	T_EXPECT_EQ(record_print_config(f, &o, err, sizeof(err)), -EPIPE);
	T_EXPECT(!strcmp(err, "record: --print-config: Broken pipe"));
	fclose(f);
	record_opts_free(&o);
}

/*
 * --rotate's file names: the output's, with the number before its
 * extension (tbctl_out_name(), which snapshots' names use too).
 */
static void rotated_file_names(void)
{
	static const struct {
		const char *path, *tag, *want;
	} names[] = {
		{ "trace.fxt", "1", "trace.1.fxt" },
		{ "trace.fxt", "12", "trace.12.fxt" },
		{ "t.fxt.gz", "1", "t.1.fxt.gz" },
		{ "t.fxt.zst", "2", "t.2.fxt.zst" },
		{ "dir/run.fxt", "3", "dir/run.3.fxt" },
		{ "trace.bin", "1", "trace.1.bin" },
		{ "trace.bin.gz", "1", "trace.1.bin.gz" },
		{ "trace", "1", "trace.1" },
		{ "trace.gz", "1", "trace.1.gz" },
		{ "dir.d/trace", "1", "dir.d/trace.1" },
		{ "a/.hidden.fxt", "1", "a/.hidden.1.fxt" },
		{ ".fxt", "1", ".fxt.1" },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int ret = tbctl_out_name(names[i].path, names[i].tag, buf, sizeof(buf));

		if (ret || strcmp(buf, names[i].want))
			T_FAIL("%s, %s: %d \"%s\", expected \"%s\"", names[i].path, names[i].tag,
			       ret, ret ? "" : buf, names[i].want);
	}
	T_EXPECT_EQ(tbctl_out_name("trace.fxt", "1", buf, 11), -ENAMETOOLONG);
	T_EXPECT_EQ(tbctl_out_name("trace.fxt", "1", buf, 12), 0);
}

static const struct t_test config_tests[] = {
	T_TEST(config_line_limit),
	T_TEST(config_size_limit),
	T_TEST(config_endless_file),
	T_TEST(config_dev_null),
	T_TEST(print_config_long_categories),
	T_TEST(print_config_too_large),
	T_TEST(print_config_unwritable_values),
	T_TEST(print_config_write_error),
	T_TEST(rotated_file_names),
};

#define NCONFIG_TESTS	(sizeof(config_tests) / sizeof(config_tests[0]))

int main(void)
{
	static struct t_test tests[NCASES + NCONFIG_TESTS];

	for (size_t i = 0; i < NCASES; i++) {
		tests[i].name = record_cases[i].name;
		tests[i].fn = trampolines[i];
	}
	for (size_t i = 0; i < NCONFIG_TESTS; i++)
		tests[NCASES + i] = config_tests[i];
	return t_run(tests, NCASES + NCONFIG_TESTS);
}
