// SPDX-License-Identifier: MIT
/*
 * The argument parsing of "tracebufctl record", table-driven (ethtool's
 * test-cmdline.c style): record_parse() fills a struct from argv and
 * does nothing else, so every case checks the whole struct (fields not
 * named in a good case must keep their defaults) or the error line.
 *
 * Each table entry is one KTAP subtest, run in its own child by ktap.h's
 * runner through a trampoline case_N() that checks record_cases[N].
 */
#include "../../../userlib/tests/ktap.h"

#include <errno.h>

#include "../tracebufctl.h"

struct rcase {
	const char *name;
	const char *argv[24];		/* after "record" */
	int ret;			/* 0 or -EINVAL */
	const char *err;		/* a substring of the error line */
	bool help;
	uint32_t mode;
	uint64_t size;
	uint64_t duration;
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
	{ "trigger", { "--trigger", "oops:stop" }, .triggers = "oops",
	  .present = TBCTL_OPT_TRIGGER },
	{ "triggers_repeated", { "--trigger", "a:stop", "--trigger=b:stop" },
	  .triggers = "a,b", .present = TBCTL_OPT_TRIGGER },
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
	  .overrides = "x=4096", .duration = 2 * S, .provs = "x", .triggers = "t",
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
	  .err = "invalid trigger 'oops' (expected ALERT:stop)" },
	{ "trigger_unknown_action", { "--trigger", "oops:start" }, .ret = -EINVAL,
	  .err = "unknown trigger action 'start'" },
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

static void run_case(size_t i)
{
	const struct rcase *c = &record_cases[i];
	char *argv[32], err[256], buf[512];
	struct record_opts o;
	size_t off = 0;
	int argc = 0, ret;

	argv[argc++] = (char *)"record";
	for (size_t j = 0; c->argv[j]; j++)
		argv[argc++] = (char *)c->argv[j];
	argv[argc] = NULL;
	memset(err, 'X', sizeof(err));
	err[sizeof(err) - 1] = '\0';

	ret = record_parse(argc, argv, &o, err, sizeof(err));
	T_EXPECT_EQ(ret, c->ret);
	if (c->ret) {
		if (!strstr(err, c->err))
			T_FAIL("error \"%s\" does not contain \"%s\"", err, c->err);
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
	T_EXPECT_EQ(o.mode, c->mode);
	T_EXPECT_EQ(o.buffer_size, c->size);
	T_EXPECT_EQ(o.duration_ns, c->duration);
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
	record_opts_free(&o);
}

/* One trampoline per possible table entry: ktap.h's tests take no argument. */
#define CASE_FN(n)	static void case_##n(void) { run_case(n); }
#define CASE_FN10(d)	CASE_FN(d##0) CASE_FN(d##1) CASE_FN(d##2) CASE_FN(d##3) CASE_FN(d##4) \
			CASE_FN(d##5) CASE_FN(d##6) CASE_FN(d##7) CASE_FN(d##8) CASE_FN(d##9)
CASE_FN10() CASE_FN10(1) CASE_FN10(2) CASE_FN10(3) CASE_FN10(4) CASE_FN10(5)
CASE_FN10(6) CASE_FN10(7) CASE_FN10(8) CASE_FN10(9) CASE_FN10(10) CASE_FN10(11)

#define CASE_PTR10(d)	case_##d##0, case_##d##1, case_##d##2, case_##d##3, case_##d##4, \
			case_##d##5, case_##d##6, case_##d##7, case_##d##8, case_##d##9
static void (*const trampolines[])(void) = {
	CASE_PTR10(), CASE_PTR10(1), CASE_PTR10(2), CASE_PTR10(3), CASE_PTR10(4),
	CASE_PTR10(5), CASE_PTR10(6), CASE_PTR10(7), CASE_PTR10(8), CASE_PTR10(9),
	CASE_PTR10(10), CASE_PTR10(11),
};

_Static_assert(sizeof(record_cases) / sizeof(record_cases[0]) <=
	       sizeof(trampolines) / sizeof(trampolines[0]),
	       "more cases than trampolines: add a CASE_FN10/CASE_PTR10 line");

int main(void)
{
	static struct t_test tests[sizeof(record_cases) / sizeof(record_cases[0])];

	for (size_t i = 0; i < sizeof(record_cases) / sizeof(record_cases[0]); i++) {
		tests[i].name = record_cases[i].name;
		tests[i].fn = trampolines[i];
	}
	return t_run(tests, sizeof(tests) / sizeof(tests[0]));
}
