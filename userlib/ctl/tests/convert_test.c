// SPDX-License-Identifier: MIT
/*
 * "tracebufctl convert" and "tracebufctl dump" on FXT files built here
 * with the encoder (sample.h), run as the real program (TBCTL_PATH: the
 * plain build for convert_test, the ASan/UBSan one for convert_test-san).
 * The JSON is parsed with the strict parser of json.h.
 */
#include "ktap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <regex.h>
#include <sys/stat.h>

#include "json.h"
#include "sample.h"
#include "tbctl_run.h"

#ifndef TBCTL_PATH
#error "TBCTL_PATH: the tracebufctl to test"
#endif

/* ------------------------------------------------------------------------ */
/* Fixture: base/ for captured output, base/work/ for traces                */

static char base[64], work[128], tbctl[PATH_MAX];
static struct sample sample;

static void put_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		T_FAIL("cannot write %s", path);
}

static void teardown(void);

/* Each test runs in its own child: base/ goes when it exits, asserts included. */
static void setup(void)
{
	snprintf(base, sizeof(base), "/tmp/tbctl-test-XXXXXX");
	if (!mkdtemp(base)) {
		T_FAIL("mkdtemp: %s", strerror(errno));
		exit(1);
	}
	atexit(teardown);
	if (TBCTL_PATH[0] == '/') {
		snprintf(tbctl, sizeof(tbctl), "%s", TBCTL_PATH);
	} else {
		char self[PATH_MAX];
		ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

		self[len > 0 ? len : 0] = '\0';
		snprintf(tbctl, sizeof(tbctl), "%s/%s", dirname(self), TBCTL_PATH);
	}
	snprintf(work, sizeof(work), "%s/work", base);
	mkdir(work, 0700);
	if (sample_build(&sample)) {
		T_FAIL("sample_build failed");
		exit(1);
	}
}

static void rm_dir(const char *dir)
{
	struct dirent *de;
	char path[512];
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path))
			rm_dir(path);
	}
	closedir(d);
	rmdir(dir);
}

static void teardown(void)
{
	rm_dir(base);
}

/* The names in work/, sorted, joined with spaces. */
static const char *work_files(char *buf, size_t len)
{
	struct dirent **list;
	size_t off = 0;
	int n = scandir(work, &list, NULL, alphasort);

	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, ".."))
			off += (size_t)snprintf(buf + off, len > off ? len - off : 0, "%s%s",
						off ? " " : "", list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return buf;
}

#define EXPECT_WORK_FILES(want)						\
	do {								\
		char files_[512];					\
									\
		work_files(files_, sizeof(files_));			\
		if (strcmp(files_, want))				\
			T_FAIL("work/ holds \"%s\", expected \"%s\"", files_, want); \
	} while (0)

/* Run tracebufctl with args (NULL-terminated) in work/. */
static void run(struct run *r, const char *const *args)
{
	run_in(r, tbctl, work, base, args);
}

#define RUN(r, ...)	run(r, (const char *const[]){ __VA_ARGS__, NULL })

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

/* A failure's stderr: one line "tracebufctl: ..." containing what. */
static void expect_one_error_line(const struct run *r, const char *what)
{
	if (!r->status)
		T_FAIL("exit status 0, expected a failure");
	if (count_lines(r->err) != 1 || strncmp(r->err, "tracebufctl: ", 13))
		T_FAIL("stderr is not one \"tracebufctl: \" line: \"%s\"", r->err);
	if (!strstr(r->err, what))
		T_FAIL("stderr \"%s\" does not say \"%s\"", r->err, what);
}

static void write_sample(const char *name, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", work, name);
	put_file(path, sample.words, len);
}

static struct json *load_json(const char *path)
{
	char err[128], full[256];
	struct json *v;
	size_t len;
	char *text;

	snprintf(full, sizeof(full), "%s/%s", work, path);
	text = slurp(full, &len);
	if (!text) {
		T_FAIL("cannot read %s", full);
		return NULL;
	}
	v = json_parse(text, len, err, sizeof(err));
	if (!v)
		T_FAIL("%s is not JSON: %s", path, err);
	free(text);
	return v;
}

/* Convert work/s.fxt into work/s.json and parse it. */
static struct json *convert_sample(void)
{
	struct run r;
	struct json *v;

	write_sample("s.fxt", sample.len);
	RUN(&r, "convert", "s.fxt");
	T_EXPECT_EQ(r.status, 0);
	T_EXPECT_EQ(r.err_len, 0);
	T_EXPECT_EQ(r.out_len, 0);
	run_free(&r);
	v = load_json("s.json");
	if (v) {
		const struct json *ev = json_get(v, "traceEvents");

		if (!ev || ev->type != JSON_ARRAY) {
			T_FAIL("no traceEvents array");
			json_free(v);
			return NULL;
		}
	}
	return v;
}

/* The n-th (from 0) event with phase ph and name, or NULL. */
static const struct json *find_event(const struct json *v, const char *ph, const char *name,
				     int nth)
{
	const struct json *events = json_get(v, "traceEvents");

	for (size_t i = 0; events && i < events->n; i++) {
		const struct json *e = events->items[i];
		const char *p = json_get_str(e, "ph"), *n = json_get_str(e, "name");

		if (p && n && !strcmp(p, ph) && !strcmp(n, name) && !nth--)
			return e;
	}
	return NULL;
}

#define EXPECT_MEMBER_NUM(e, key, want)					\
	do {								\
		const char *n_ = json_get_num(e, key);			\
									\
		if (!n_ || strcmp(n_, want))				\
			T_FAIL("%s is %s, expected %s", key, n_ ? n_ : "(missing)", want); \
	} while (0)

#define EXPECT_MEMBER_STR(e, key, want)					\
	do {								\
		const char *s_ = json_get_str(e, key);			\
									\
		if (!s_ || strcmp(s_, want))				\
			T_FAIL("%s is \"%s\", expected \"%s\"", key, s_ ? s_ : "(missing)", want); \
	} while (0)

/* ------------------------------------------------------------------------ */
/* convert                                                                  */

static void convert_default_output_name(void)
{
	struct run r;
	struct json *v;

	setup();
	write_sample("trace.fxt", sample.len);
	write_sample("noext", sample.len);
	RUN(&r, "convert", "trace.fxt");
	T_EXPECT_EQ(r.status, 0);
	run_free(&r);
	RUN(&r, "convert", "noext");
	T_EXPECT_EQ(r.status, 0);
	run_free(&r);
	EXPECT_WORK_FILES("noext noext.json trace.fxt trace.json");
	v = load_json("trace.json");
	T_EXPECT(v != NULL);
	EXPECT_MEMBER_STR(v, "displayTimeUnit", "ns");
	json_free(v);
	teardown();
}

static void convert_has_every_event(void)
{
	const struct json *events;
	struct json *v;
	size_t n = 0, meta = 0;

	setup();
	v = convert_sample();
	T_ASSERT(v != NULL);
	events = json_get(v, "traceEvents");
	for (size_t i = 0; i < events->n; i++) {
		const char *ph = json_get_str(events->items[i], "ph");

		T_EXPECT(ph != NULL);
		if (ph && !strcmp(ph, "M"))
			meta++;
		else
			n++;
	}
	/* and the buffer overflow of provider 1's second section */
	T_EXPECT_EQ(n, SAMPLE_EVENTS + 1);
	T_EXPECT_EQ(meta, 3);	/* thread_name worker, process_name app, other */
	json_free(v);
	teardown();
}

/* Fuchsia's buffer-overflow provider event is an instant in the JSON too. */
static void convert_buffer_overflow(void)
{
	const struct json *e, *args;
	struct json *v;

	setup();
	v = convert_sample();
	T_ASSERT(v != NULL);
	e = find_event(v, "i", "buffer overflow", 0);
	T_ASSERT(e != NULL);
	EXPECT_MEMBER_STR(e, "cat", "tracebuf:meta");
	args = json_get(e, "args");
	T_ASSERT(args != NULL);
	EXPECT_MEMBER_STR(args, "provider", "app");
	EXPECT_MEMBER_NUM(args, "provider_id", "1");
	T_EXPECT(find_event(v, "i", "buffer overflow", 1) == NULL);
	json_free(v);
	teardown();
}

static void convert_event_fields(void)
{
	static const struct {
		const char *ph, *name, *ts, *pid, *tid;
		int nth;
	} want[] = {
		{ "i", "hi \"q\"\n", "1.000", "100", "101", 0 },
		{ "B", "work", "2.000", "100", "101", 0 },
		{ "E", "work", "3.000", "100", "101", 0 },
		{ "X", "cmp", "4.000", "100", "101", 0 },
		{ "C", "ctr", "7.000", "100", "101", 0 },
		{ "b", "req", "8.000", "100", "101", 0 },
		{ "n", "req", "9.000", "100", "101", 0 },
		{ "e", "req", "10.000", "100", "101", 0 },
		{ "s", "fl", "11.000", "100", "101", 0 },
		{ "t", "fl", "12.000", "100", "101", 0 },
		{ "f", "fl", "13.000", "100", "101", 0 },
		{ "i", "other-ev", "3.000", "200", "201", 0 },
		{ "i", "last", "15.000", "100", "101", 0 },
	};
	const struct json *e;
	struct json *v;

	setup();
	v = convert_sample();
	T_ASSERT(v != NULL);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		e = find_event(v, want[i].ph, want[i].name, want[i].nth);
		if (!e) {
			T_FAIL("no event ph %s name %s", want[i].ph, want[i].name);
			continue;
		}
		EXPECT_MEMBER_NUM(e, "ts", want[i].ts);
		EXPECT_MEMBER_NUM(e, "pid", want[i].pid);
		EXPECT_MEMBER_NUM(e, "tid", want[i].tid);
		EXPECT_MEMBER_STR(e, "cat", "cat");
		T_EXPECT(json_get(e, "args") && json_get(e, "args")->type == JSON_OBJECT);
	}
	e = find_event(v, "i", "last", 0);
	EXPECT_MEMBER_STR(e, "s", "t");
	e = find_event(v, "X", "cmp", 0);
	EXPECT_MEMBER_NUM(e, "dur", "2.000");
	for (int i = 0; i < 3; i++) {
		static const char *const ph[] = { "b", "n", "e" };

		e = find_event(v, ph[i], "req", 0);
		EXPECT_MEMBER_STR(e, "id", "0x99");
	}
	for (int i = 0; i < 3; i++) {
		static const char *const ph[] = { "s", "t", "f" };

		e = find_event(v, ph[i], "fl", 0);
		EXPECT_MEMBER_STR(e, "id", "0x5");
	}
	e = find_event(v, "f", "fl", 0);
	EXPECT_MEMBER_STR(e, "bp", "e");
	json_free(v);
	teardown();
}

static void convert_argument_types(void)
{
	const struct json *e, *args, *a;
	struct json *v;

	setup();
	v = convert_sample();
	T_ASSERT(v != NULL);
	e = find_event(v, "i", "hi \"q\"\n", 0);
	T_ASSERT(e != NULL);
	args = json_get(e, "args");
	T_ASSERT(args && args->type == JSON_OBJECT);
	T_EXPECT_EQ(args->n, 11);
	EXPECT_MEMBER_NUM(args, "i32", "-5");
	EXPECT_MEMBER_NUM(args, "u32", "7");
	EXPECT_MEMBER_NUM(args, "i64", "-1000000000000");
	EXPECT_MEMBER_NUM(args, "u64", "9223372036854775809");
	a = json_get(args, "dbl");
	T_EXPECT(a && a->type == JSON_NUMBER && a->num == 1.5);
	EXPECT_MEMBER_STR(args, "str", "s\tv\"\\");
	EXPECT_MEMBER_STR(args, "ptr", "0xdeadbeef");
	EXPECT_MEMBER_NUM(args, "koid", "42");
	a = json_get(args, "flag");
	T_EXPECT(a && a->type == JSON_BOOL && a->b);
	a = json_get(args, "nothing");
	T_EXPECT(a && a->type == JSON_NULL);
	EXPECT_MEMBER_STR(args, "bytes", "<blob, 3 bytes>");
	json_free(v);
	teardown();
}

static void convert_counter_keeps_numeric_args(void)
{
	const struct json *e, *args;
	struct json *v;

	setup();
	v = convert_sample();
	T_ASSERT(v != NULL);
	e = find_event(v, "C", "ctr", 0);
	T_ASSERT(e != NULL);
	EXPECT_MEMBER_STR(e, "id", "0x7");
	args = json_get(e, "args");
	T_ASSERT(args != NULL);
	T_EXPECT_EQ(args->n, 2);
	EXPECT_MEMBER_NUM(args, "value", "10");
	EXPECT_MEMBER_NUM(args, "d", "2.5");
	T_EXPECT(json_get(args, "str") == NULL);
	json_free(v);
	teardown();
}

static void convert_process_and_thread_names(void)
{
	const struct json *e;
	struct json *v;
	int found = 0;

	setup();
	v = convert_sample();
	T_ASSERT(v != NULL);
	for (int i = 0; (e = find_event(v, "M", "process_name", i)); i++) {
		const char *pid = json_get_num(e, "pid");
		const char *name = json_get_str(json_get(e, "args"), "name");

		T_ASSERT(pid && name);
		if (!strcmp(pid, "100")) {
			T_EXPECT(!strcmp(name, "app"));
			found |= 1;
		} else if (!strcmp(pid, "200")) {
			T_EXPECT(!strcmp(name, "other"));
			found |= 2;
		} else {
			T_FAIL("process_name for pid %s", pid);
		}
	}
	T_EXPECT_EQ(found, 3);
	e = find_event(v, "M", "thread_name", 0);
	T_ASSERT(e != NULL);
	EXPECT_MEMBER_NUM(e, "pid", "100");
	EXPECT_MEMBER_NUM(e, "tid", "101");
	EXPECT_MEMBER_STR(json_get(e, "args"), "name", "worker");
	T_EXPECT(find_event(v, "M", "thread_name", 1) == NULL);
	json_free(v);
	teardown();
}

static void convert_escapes_strings(void)
{
	struct json *v;

	setup();
	v = convert_sample();
	T_ASSERT(v != NULL);
	/* quotes and a newline came through; 0xff and the cut 0xc3 became U+FFFD */
	T_EXPECT(find_event(v, "i", "hi \"q\"\n", 0) != NULL);
	T_EXPECT(find_event(v, "i", "bad\xef\xbf\xbd\xef\xbf\xbd(\x01name", 0) != NULL);
	json_free(v);
	teardown();
}

static void convert_output_option_and_stdout(void)
{
	struct run r;
	struct json *v;
	char err[128];

	setup();
	write_sample("s.fxt", sample.len);
	RUN(&r, "convert", "-o", "other.json", "s.fxt");
	T_EXPECT_EQ(r.status, 0);
	run_free(&r);
	RUN(&r, "convert", "s.fxt", "--output=third.json");
	T_EXPECT_EQ(r.status, 0);
	run_free(&r);
	EXPECT_WORK_FILES("other.json s.fxt third.json");
	v = load_json("other.json");
	T_EXPECT(v != NULL);
	json_free(v);
	RUN(&r, "convert", "s.fxt", "-o", "-");
	T_EXPECT_EQ(r.status, 0);
	T_EXPECT_EQ(r.err_len, 0);
	v = json_parse(r.out, r.out_len, err, sizeof(err));
	if (!v)
		T_FAIL("stdout is not JSON: %s", err);
	T_EXPECT(find_event(v, "X", "cmp", 0) != NULL);
	json_free(v);
	run_free(&r);
	EXPECT_WORK_FILES("other.json s.fxt third.json");
	teardown();
}

/* Corrupt input: non-zero exit, one error line, no JSON file left behind. */
static void convert_fails_cleanly(const char *what, size_t at)
{
	char want[64];
	struct run r;

	RUN(&r, "convert", "bad.fxt");
	snprintf(want, sizeof(want), "bad.fxt: ");
	expect_one_error_line(&r, want);
	snprintf(want, sizeof(want), " at offset %zu", at);
	expect_one_error_line(&r, want);
	if (!strstr(r.err, what))
		T_FAIL("stderr \"%s\" does not say \"%s\"", r.err, what);
	run_free(&r);
	EXPECT_WORK_FILES("bad.fxt");
}

static void convert_truncated_input_fails_cleanly(void)
{
	setup();
	/* cut inside the first event record */
	write_sample("bad.fxt", sample.first_event + 16);
	convert_fails_cleanly("runs past the end", sample.first_event);
	teardown();
}

static void convert_corrupt_input_fails_cleanly(void)
{
	setup();
	/* a zero word where the last event's header is */
	sample.words[sample.offsets[sample.records - 1] / 8] = 0;
	write_sample("bad.fxt", sample.len);
	convert_fails_cleanly("zero word", sample.offsets[sample.records - 1]);
	teardown();
}

static void convert_trailing_bytes_fail(void)
{
	setup();
	write_sample("bad.fxt", sample.len + 4);
	convert_fails_cleanly("trailing bytes", sample.len);
	teardown();
}

static void convert_failure_keeps_existing_output(void)
{
	char path[256], *old;
	struct run r;
	size_t len;

	setup();
	write_sample("bad.fxt", sample.first_event + 8);
	snprintf(path, sizeof(path), "%s/bad.json", work);
	put_file(path, "old\n", 4);
	RUN(&r, "convert", "bad.fxt");
	expect_one_error_line(&r, "at offset");
	run_free(&r);
	EXPECT_WORK_FILES("bad.fxt bad.json");
	old = slurp(path, &len);
	T_EXPECT(old && len == 4 && !memcmp(old, "old\n", 4));
	free(old);
	teardown();
}

/* An empty file is no trace: the magic record is required. */
static void convert_empty_input(void)
{
	struct run r;

	setup();
	write_sample("empty.fxt", 0);
	RUN(&r, "convert", "empty.fxt");
	expect_one_error_line(&r, "empty.fxt: not an FXT trace: no magic record at offset 0");
	run_free(&r);
	EXPECT_WORK_FILES("empty.fxt");
	teardown();
}

/* The output may not be the input, by any name. */
static void convert_refuses_to_overwrite_its_input(void)
{
	char a[256], b[256], *kept;
	struct run r;
	size_t len;

	setup();
	write_sample("good.fxt", sample.len);
	snprintf(a, sizeof(a), "%s/good.fxt", work);
	snprintf(b, sizeof(b), "%s/link.fxt", work);
	T_ASSERT_EQ(link(a, b), 0);
	RUN(&r, "convert", "good.fxt", "-o", "good.fxt");
	expect_one_error_line(&r, "good.fxt: is the input good.fxt: refusing to overwrite it");
	run_free(&r);
	RUN(&r, "convert", "good.fxt", "-o", "link.fxt");
	expect_one_error_line(&r, "refusing to overwrite it");
	run_free(&r);
	kept = slurp(a, &len);
	T_EXPECT(kept && len == sample.len && !memcmp(kept, sample.words, len));
	free(kept);
	EXPECT_WORK_FILES("good.fxt link.fxt");
	teardown();
}

/* A device or FIFO as input needs -o: no /dev/null.json. */
static void convert_non_regular_input_needs_output(void)
{
	struct run r;

	setup();
	RUN(&r, "convert", "/dev/null");
	expect_one_error_line(&r, "/dev/null: not a regular file: name the output with -o");
	run_free(&r);
	T_EXPECT(access("/dev/null.json", F_OK) != 0);
	/* with -o it is only no trace */
	RUN(&r, "convert", "/dev/null", "-o", "-");
	expect_one_error_line(&r, "no magic record");
	run_free(&r);
	teardown();
}

/*
 * A descriptor's name (/proc/self/fd/N, as /dev/stdin is for 0) resolves
 * to a regular file but is no place for a .json: it needs -o too.  (Not
 * /dev/fd/N: the test guest has no /dev/fd.)
 */
static void convert_descriptor_input_needs_output(void)
{
	char path[256], name[64], json[80];
	struct run r;
	int fd;

	setup();
	write_sample("s.fxt", sample.len);
	snprintf(path, sizeof(path), "%s/s.fxt", work);
	fd = open(path, O_RDONLY);
	T_ASSERT(fd >= 0);
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	snprintf(json, sizeof(json), "%s.json", name);
	RUN(&r, "convert", name);
	T_EXPECT(r.status != 0);
	T_EXPECT(strstr(r.err, "not a regular file: name the output with -o") != NULL);
	run_free(&r);
	T_EXPECT(access(json, F_OK) != 0);
	if (!access(json, F_OK))
		unlink(json);
	close(fd);
	EXPECT_WORK_FILES("s.fxt");
	teardown();
}

static void convert_missing_input(void)
{
	struct run r;

	setup();
	RUN(&r, "convert", "nope.fxt");
	expect_one_error_line(&r, "nope.fxt: No such file or directory");
	run_free(&r);
	EXPECT_WORK_FILES("");
	teardown();
}

static void convert_usage_errors(void)
{
	struct run r;

	setup();
	write_sample("s.fxt", sample.len);
	RUN(&r, "convert");
	expect_one_error_line(&r, "convert: missing FILE (see 'tracebufctl convert --help')");
	run_free(&r);
	RUN(&r, "convert", "s.fxt", "t.fxt");
	expect_one_error_line(&r, "unexpected argument 't.fxt'");
	run_free(&r);
	RUN(&r, "convert", "--frobnicate", "s.fxt");
	expect_one_error_line(&r, "unknown option '--frobnicate' (see 'tracebufctl convert --help')");
	run_free(&r);
	RUN(&r, "convert", "s.fxt", "-o");
	expect_one_error_line(&r, "option '-o' needs a value");
	run_free(&r);
	RUN(&r, "convert", "s.fxt", "-o", ".");
	expect_one_error_line(&r, "is a directory");
	run_free(&r);
	EXPECT_WORK_FILES("s.fxt");
	RUN(&r, "convert", "--help");
	T_EXPECT_EQ(r.status, 0);
	T_EXPECT(!strncmp(r.out, "Usage: tracebufctl convert", 26));
	T_EXPECT_EQ(r.err_len, 0);
	run_free(&r);
	teardown();
}

/* ------------------------------------------------------------------------ */
/* convert: scheduling records into systemTraceEvents                       */

/*
 * What the two importers read of a line of systemTraceEvents, by their
 * own rules: Perfetto's tokenizer
 * (src/trace_processor/importers/systrace/systrace_line_tokenizer.cc:
 * its regex, the task the text before its match, ts = (int64_t)(seconds
 * * 1e9)) and the arguments as its line parser splits them (at spaces,
 * then at '='); chrome://tracing's (catapult's linux_perf importer: the
 * line with a tgid, sched_switch and sched_wakeup), as POSIX EREs.
 */
#define PERFETTO_LINE_RE						\
	"-([0-9]+)[[:space:]]+\\(?[[:space:]]*([0-9]+|-+)?\\)?[[:space:]]?\\[([0-9]+)\\]" \
	"[[:space:]]*([a-zA-Z.]{3}[0-9a-f.]{1,2}[[:space:]]*)?([0-9]+\\.[0-9]+):"	\
	"[[:space:]]+([^[:space:]]+):"
#define CATAPULT_LINE_RE						\
	"^[[:space:]]*(.+)-([0-9]+)[[:space:]]+\\([[:space:]]*([0-9]+|-+)\\)[[:space:]]"	\
	"\\[([0-9]+)\\][[:space:]]+[dX.][Nnp.][Hhs.][0-9a-f.][[:space:]]+"		\
	"([0-9]+\\.[0-9]+):[[:space:]]+([^[:space:]]+):[[:space:]](.*)$"
#define CATAPULT_SWITCH_RE						\
	"prev_comm=(.+) prev_pid=([0-9]+) prev_prio=([0-9]+) "			\
	"prev_state=([^[:space:]]\\+?|[^[:space:]]\\|[^[:space:]]) ==> "		\
	"next_comm=(.+) next_pid=([0-9]+) next_prio=([0-9]+)"
#define CATAPULT_WAKEUP_RE						\
	"comm=(.+) pid=([0-9]+) prio=([0-9]+) success=([0-9]+) target_cpu=([0-9]+)"

struct sys_line {
	char task[300], tgid[32], event[32], args[1024];
	unsigned long pid, cpu;
	int64_t ns;		/* as Perfetto reads it */
};

static size_t sub_len(const regmatch_t *m)
{
	return m->rm_so < 0 ? 0 : (size_t)(m->rm_eo - m->rm_so);
}

static void sub_copy(char *dst, size_t len, const char *s, const regmatch_t *m)
{
	size_t n = sub_len(m) < len - 1 ? sub_len(m) : len - 1;

	memcpy(dst, s + (m->rm_so < 0 ? 0 : m->rm_so), n);
	dst[n] = '\0';
}

/*
 * Parse @line as both importers would: 0 with *@l filled (Perfetto's
 * reading), or -1 after a failure that says which refused it.
 */
static int sys_parse(const char *line, struct sys_line *l)
{
	regex_t pre, cre;
	regmatch_t pm[7], cm[8];
	char ts[64], ctask[300], cev[32], cargs[1024];
	const char *trimmed = line;
	int ret = -1;

	if (regcomp(&pre, PERFETTO_LINE_RE, REG_EXTENDED)) {
		T_FAIL("regcomp");
		return -1;
	}
	if (regcomp(&cre, CATAPULT_LINE_RE, REG_EXTENDED)) {
		T_FAIL("regcomp");
		regfree(&pre);
		return -1;
	}
	memset(l, 0, sizeof(*l));
	if (regexec(&pre, line, 7, pm, 0)) {
		T_FAIL("Perfetto's tokenizer refuses \"%s\"", line);
		goto out;
	}
	/* the task: what comes before the match, trimmed */
	snprintf(l->task, sizeof(l->task), "%.*s", (int)pm[0].rm_so, line);
	while (*l->task == ' ')
		memmove(l->task, l->task + 1, strlen(l->task));
	while (*l->task && l->task[strlen(l->task) - 1] == ' ')
		l->task[strlen(l->task) - 1] = '\0';
	l->pid = strtoul(line + pm[1].rm_so, NULL, 10);
	sub_copy(l->tgid, sizeof(l->tgid), line, &pm[2]);
	l->cpu = strtoul(line + pm[3].rm_so, NULL, 10);
	sub_copy(ts, sizeof(ts), line, &pm[5]);
	l->ns = (int64_t)(strtod(ts, NULL) * 1e9);
	sub_copy(l->event, sizeof(l->event), line, &pm[6]);
	snprintf(l->args, sizeof(l->args), "%s", line + pm[0].rm_eo + (line[pm[0].rm_eo] == ' '));
	/* catapult trims the line first */
	while (*trimmed == ' ')
		trimmed++;
	if (regexec(&cre, trimmed, 8, cm, 0)) {
		T_FAIL("chrome://tracing's importer refuses \"%s\"", line);
		goto out;
	}
	sub_copy(ctask, sizeof(ctask), trimmed, &cm[1]);
	sub_copy(cev, sizeof(cev), trimmed, &cm[6]);
	sub_copy(cargs, sizeof(cargs), trimmed, &cm[7]);
	if (strcmp(ctask, l->task) || strtoul(trimmed + cm[2].rm_so, NULL, 10) != l->pid ||
	    strtoul(trimmed + cm[4].rm_so, NULL, 10) != l->cpu || strcmp(cev, l->event) ||
	    strcmp(cargs, l->args)) {
		T_FAIL("the two importers read \"%s\" apart", line);
		goto out;
	}
	ret = 0;
out:
	regfree(&pre);
	regfree(&cre);
	return ret;
}

/* The argument @key of a line as Perfetto's line parser splits them, into @val. */
static bool sys_arg(const struct sys_line *l, const char *key, char *val, size_t len)
{
	char buf[1024], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", l->args);
	for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(t, '=');

		if (eq && (size_t)(eq - t) == strlen(key) && !strncmp(t, key, strlen(key))) {
			snprintf(val, len, "%s", eq + 1);
			return true;
		}
	}
	return false;
}

/* Whether chrome://tracing's sched_switch or sched_wakeup parser reads @l. */
static bool sys_catapult_reads(const struct sys_line *l)
{
	const char *re = !strcmp(l->event, "sched_switch") ? CATAPULT_SWITCH_RE :
			 !strcmp(l->event, "sched_wakeup") ? CATAPULT_WAKEUP_RE : NULL;
	regex_t x;
	bool ok;

	if (!re)
		return false;
	if (regcomp(&x, re, REG_EXTENDED))
		return false;
	ok = !regexec(&x, l->args, 0, NULL, 0);
	regfree(&x);
	return ok;
}

/*
 * The lines of systemTraceEvents in @v that are not comments, each
 * parsed into l[] (room for max); how many, or -1 if there is no such
 * string or it does not begin with ftrace's header.
 */
static int sys_lines(const struct json *v, struct sys_line *l, int max)
{
	const struct json *sys = json_get(v, "systemTraceEvents");
	char *text, *save = NULL;
	int n = 0;

	if (!sys || sys->type != JSON_STRING) {
		T_FAIL("no systemTraceEvents string");
		return -1;
	}
	if (strncmp(sys->text, "# tracer: nop\n", 14) || sys->text[sys->len - 1] != '\n') {
		T_FAIL("systemTraceEvents does not begin with \"# tracer: nop\" or end a line");
		return -1;
	}
	text = strdup(sys->text);
	if (!text)
		return -1;
	for (char *t = strtok_r(text, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
		if (*t == '#')
			continue;
		if (n == max) {
			T_FAIL("more than %d lines", max);
			break;
		}
		if (sys_parse(t, &l[n]))
			break;
		n++;
	}
	free(text);
	return n;
}

#define SCHED_IDLE	INT32_MIN

#define EXPECT_CSTR(s, want)						\
	do {								\
		if (strcmp((s), (want)))				\
			T_FAIL("%s is \"%s\", expected \"%s\"", #s, (s), (want)); \
	} while (0)

static int sched_switch(struct sample *s, uint64_t ticks, unsigned int cpu, uint64_t out,
			unsigned int state, int32_t out_w, uint64_t in, int32_t in_w)
{
	struct tracebuf_fxt_arg a[2] = {
		tracebuf_fxt_arg_int32(sample_str("outgoing_weight"), out_w),
		tracebuf_fxt_arg_int32(sample_str("incoming_weight"), in_w),
	};
	struct tracebuf_fxt_sched k = {
		.type = TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH, .ticks = ticks, .cpu = cpu,
		.outgoing_state = state, .outgoing_koid = out, .incoming_koid = in,
		.args = a, .nargs = 2,
	};

	SAMPLE_ADD(s, tracebuf_fxt_sched_write(dst_, cap_, &k));
	return 0;
}

static int sched_wakeup(struct sample *s, uint64_t ticks, unsigned int cpu, uint64_t tid,
			int32_t w)
{
	struct tracebuf_fxt_arg a = tracebuf_fxt_arg_int32(sample_str("weight"), w);
	struct tracebuf_fxt_sched k = {
		.type = TRACEBUF_LIB_FXT_SCHED_THREAD_WAKEUP, .ticks = ticks, .cpu = cpu,
		.incoming_koid = tid, .args = &a, .nargs = 1,
	};

	SAMPLE_ADD(s, tracebuf_fxt_sched_write(dst_, cap_, &k));
	return 0;
}

/* A scheduling record of event type 9 (none yet), 16 bytes. */
static int sched_unknown(struct sample *s, uint64_t ticks)
{
	SAMPLE_ADD(s, (dst_[0] = tracebuf_fxt_header(TRACEBUF_LIB_FXT_RECORD_SCHEDULING, 16) |
		       tracebuf_fxt_field(9, 60, 63), dst_[1] = ticks, 16));
	return 0;
}

/* A kernel object record of type 4 (neither process nor thread). */
static int kobj_other(struct sample *s)
{
	struct tracebuf_fxt_kobj kobj = { .obj_type = 4, .koid = 7, .name = sample_str("port") };

	SAMPLE_ADD(s, tracebuf_fxt_kobj_write(dst_, cap_, &kobj));
	return 0;
}

static int sched_name(struct sample *s, uint64_t tid, uint64_t pid, const char *name)
{
	struct tracebuf_fxt_kobj kobj;
	struct tracebuf_fxt_arg proc;

	tracebuf_fxt_kobj_thread(&kobj, &proc, tid, pid, sample_str(name));
	SAMPLE_ADD(s, tracebuf_fxt_kobj_write(dst_, cap_, &kobj));
	return 0;
}

/*
 * What the kernel provider writes, beside an app's event: provider 1
 * "app" (ns = ticks) names tid 101 "app thread" and has an instant on it
 * at 3000 ns; provider 2 "kernel" (2e9 ticks per second: ns = ticks / 2)
 * names tids 101 "worker one" and 102 (pid 100) "w\x01\xff" (a control
 * character, a byte that is not UTF-8), not 103 (the app names it
 * "appname": the kernel's name first, then any); then, the file out of
 * time order (CPU 1's records come after CPU 0's later ones):
 *
 *   ns     CPU  record
 *   1000   0    idle -> 101 (weight 120)
 *   1500   0    wakeup 102 (weight 110)
 *   3000   0    101 blocks -> 102
 *   3500   0    102 preempted -> idle
 *   2000   1    idle -> 103 (weight 100)
 *   2500   1    103 dies -> 104 (never named, weight 139)
 *
 * A sample with each wake-up and switch of the table above: "ns cpu
 * task-pid event".
 */
static const struct {
	int64_t ns;
	unsigned long cpu, pid;
	const char *task, *event, *args;
} sched_want[] = {
	{ 1000, 0, 0, "<idle>", "sched_switch", "prev_comm=swapper/0 prev_pid=0 prev_prio=120 "
	  "prev_state=R ==> next_comm=worker_one next_pid=101 next_prio=120" },
	{ 1500, 0, 102, "w??", "sched_waking", "comm=w?? pid=102 prio=110 target_cpu=000" },
	{ 1500, 0, 102, "w??", "sched_wakeup", "comm=w?? pid=102 prio=110 success=1 "
	  "target_cpu=000" },
	{ 2000, 1, 0, "<idle>", "sched_switch", "prev_comm=swapper/1 prev_pid=0 prev_prio=120 "
	  "prev_state=R ==> next_comm=appname next_pid=103 next_prio=100" },
	{ 2500, 1, 103, "appname", "sched_switch", "prev_comm=appname prev_pid=103 "
	  "prev_prio=100 prev_state=X ==> next_comm=<...> next_pid=104 next_prio=139" },
	{ 3000, 0, 101, "worker_one", "sched_switch", "prev_comm=worker_one prev_pid=101 "
	  "prev_prio=120 prev_state=S ==> next_comm=w?? next_pid=102 next_prio=110" },
	{ 3500, 0, 102, "w??", "sched_switch", "prev_comm=w?? prev_pid=102 prev_prio=110 "
	  "prev_state=R ==> next_comm=swapper/0 next_pid=0 next_prio=120" },
};

static int sched_trace(struct sample *s)
{
	const unsigned int run = TRACEBUF_LIB_FXT_THREAD_RUNNING;
	int ret;

	memset(s, 0, sizeof(*s));
	SAMPLE_ADD(s, tracebuf_fxt_magic_write(dst_, cap_));
	SAMPLE_ADD(s, tracebuf_fxt_provider_info_write(dst_, cap_, 1, "app", 3));
	SAMPLE_ADD(s, tracebuf_fxt_string_write(dst_, cap_, 1, "cat", 3));
	ret = sched_name(s, 101, 100, "app thread");
	if (!ret)
		ret = sched_name(s, 103, 100, "appname");
	if (!ret)
		ret = sample_event(s, TRACEBUF_LIB_FXT_EVENT_INSTANT, 3000,
				   tracebuf_fxt_thread_inline(100, 101), "blocks", NULL, 0, 0);
	if (ret)
		return ret;
	SAMPLE_ADD(s, tracebuf_fxt_provider_info_write(dst_, cap_, 2, "kernel", 6));
	SAMPLE_ADD(s, tracebuf_fxt_init_write(dst_, cap_, 2000000000ULL));
	ret = sched_name(s, 101, 100, "worker one");
	if (!ret)
		ret = sched_name(s, 102, 100, "w\x01\xff");
	if (!ret)
		ret = sched_switch(s, 2000, 0, 0, run, SCHED_IDLE, 101, 120);
	if (!ret)
		ret = sched_wakeup(s, 3000, 0, 102, 110);
	if (!ret)
		ret = sched_switch(s, 6000, 0, 101, TRACEBUF_LIB_FXT_THREAD_BLOCKED, 120, 102, 110);
	if (!ret)
		ret = sched_switch(s, 7000, 0, 102, run, 110, 0, SCHED_IDLE);
	if (!ret)
		ret = sched_switch(s, 4000, 1, 0, run, SCHED_IDLE, 103, 100);
	if (!ret)
		ret = sched_switch(s, 5000, 1, 103, TRACEBUF_LIB_FXT_THREAD_DEAD, 100, 104, 139);
	return ret;
}

/* Convert @s as work/k.fxt into work/k.json and parse it; its stderr in @err. */
static struct json *convert_trace(const struct sample *s, char *err, size_t errlen)
{
	char path[256];
	struct run r;
	struct json *v;

	snprintf(path, sizeof(path), "%s/k.fxt", work);
	put_file(path, s->words, s->len);
	RUN(&r, "convert", "k.fxt");
	T_EXPECT_EQ(r.status, 0);
	snprintf(err, errlen, "%s", r.err ? r.err : "");
	run_free(&r);
	v = load_json("k.json");
	if (v && (!json_get(v, "traceEvents") || json_get(v, "traceEvents")->type != JSON_ARRAY)) {
		T_FAIL("no traceEvents array");
		json_free(v);
		return NULL;
	}
	return v;
}

/*
 * Every context switch and wake-up, in time order, as lines both
 * importers read, as the table of sched_trace() wants them; no warning.
 */
static void convert_sched_into_system_trace_events(void)
{
	static struct sample s;
	const size_t nwant = sizeof(sched_want) / sizeof(sched_want[0]);
	struct sys_line l[16];
	char err[1024], val[64];
	struct json *v;
	int n;

	setup();
	T_ASSERT_EQ(sched_trace(&s), 0);
	v = convert_trace(&s, err, sizeof(err));
	T_ASSERT(v != NULL);
	EXPECT_CSTR(err, "");
	n = sys_lines(v, l, 16);
	T_EXPECT_EQ(n, (int)nwant);
	for (int i = 0; i < n && i < (int)nwant; i++) {
		T_EXPECT_EQ(l[i].ns, sched_want[i].ns);
		T_EXPECT_EQ(l[i].cpu, sched_want[i].cpu);
		T_EXPECT_EQ(l[i].pid, sched_want[i].pid);
		if (strcmp(l[i].task, sched_want[i].task) ||
		    strcmp(l[i].event, sched_want[i].event) || strcmp(l[i].args, sched_want[i].args))
			T_FAIL("line %d: \"%s\" \"%s: %s\", expected \"%s\" \"%s: %s\"", i,
			       l[i].task, l[i].event, l[i].args, sched_want[i].task,
			       sched_want[i].event, sched_want[i].args);
		if (strcmp(l[i].event, "sched_waking") && !sys_catapult_reads(&l[i]))
			T_FAIL("chrome://tracing's %s parser refuses \"%s\"", l[i].event, l[i].args);
	}
	/* the process of a named thread; none for the idle task or an unnamed thread */
	EXPECT_CSTR(l[5].tgid, "100");
	EXPECT_CSTR(l[0].tgid, "-------");
	/* Perfetto's reading of a switch and a wake-up */
	T_EXPECT(sys_arg(&l[5], "prev_pid", val, sizeof(val)) && !strcmp(val, "101"));
	T_EXPECT(sys_arg(&l[5], "next_comm", val, sizeof(val)) && !strcmp(val, "w??"));
	T_EXPECT(sys_arg(&l[5], "prev_state", val, sizeof(val)) && !strcmp(val, "S"));
	T_EXPECT(sys_arg(&l[1], "pid", val, sizeof(val)) && !strcmp(val, "102"));
	T_EXPECT(sys_arg(&l[1], "comm", val, sizeof(val)) && !strcmp(val, "w??"));
	json_free(v);
	teardown();
}

/*
 * One timeline: a switch's line and an app event at the same ns land on
 * the same ns in Perfetto (traceEvents' ts is rounded from us * 1000,
 * systemTraceEvents' truncated from s * 1e9), as the sample's switch does.
 */
static void convert_sched_on_the_events_timeline(void)
{
	static struct sample s;
	const struct json *e;
	struct sys_line l[16];
	char err[1024], *end;
	struct json *v;
	int n;

	setup();
	T_ASSERT_EQ(sched_trace(&s), 0);
	v = convert_trace(&s, err, sizeof(err));
	T_ASSERT(v != NULL);
	e = find_event(v, "i", "blocks", 0);
	T_ASSERT(e != NULL);
	n = sys_lines(v, l, 16);
	T_ASSERT(n == 7);
	/* "3.000": the ns Perfetto rounds us * 1000 to */
	T_EXPECT_EQ(strtoll(json_get_num(e, "ts"), &end, 10) * 1000 + strtoll(end + 1, NULL, 10),
		    l[5].ns);
	T_EXPECT_EQ(strlen(end), 4);
	EXPECT_MEMBER_NUM(e, "tid", "101");
	T_EXPECT_EQ(l[5].pid, 101);
	json_free(v);
	/* the sample: its app's worker blocks on CPU 1 at 16 us, is woken at 17 */
	v = convert_sample();
	T_ASSERT(v != NULL);
	n = sys_lines(v, l, 16);
	T_ASSERT_EQ(n, 3);
	T_EXPECT_EQ(l[0].ns, 16000);
	EXPECT_CSTR(l[0].event, "sched_switch");
	EXPECT_CSTR(l[0].task, "worker");
	T_EXPECT_EQ(l[1].ns, 17000);
	EXPECT_CSTR(l[1].event, "sched_waking");
	EXPECT_CSTR(l[2].event, "sched_wakeup");
	json_free(v);
	teardown();
}

/* A trace without scheduling records has no systemTraceEvents. */
static void convert_no_sched_no_system_trace_events(void)
{
	struct json *v;

	setup();
	/* the sample up to its context switch */
	sample.len = sample.offsets[sample.records - 2];
	v = convert_sample();
	T_ASSERT(v != NULL);
	T_EXPECT(json_get(v, "systemTraceEvents") == NULL);
	json_free(v);
	teardown();
}

/*
 * What the JSON cannot carry is left out or changed, and said: one
 * warning line per kind, with its count; the rest converts.
 */
static void convert_warns_what_it_cannot_carry(void)
{
	static struct sample s;
	struct sys_line l[16];
	char err[2048], val[64];
	struct json *v;
	int n;

	setup();
	T_ASSERT_EQ(sched_trace(&s), 0);
	/* two records of a scheduling type of tomorrow */
	for (int i = 0; i < 2; i++)
		T_ASSERT_EQ(sched_unknown(&s, 8000), 0);
	/* a thread id that is no Linux one, switched in and woken */
	T_ASSERT_EQ(sched_switch(&s, 9000, 0, 0, 1, SCHED_IDLE, 1ULL << 40, 120), 0);
	T_ASSERT_EQ(sched_wakeup(&s, 9000, 0, 1ULL << 33, 120), 0);
	/* a thread the recording did not see: thread 0, weight 0 */
	T_ASSERT_EQ(sched_switch(&s, 10000, 1, 104, TRACEBUF_LIB_FXT_THREAD_BLOCKED, 139, 0, 0),
		    0);
	/* an outgoing state of no letter */
	T_ASSERT_EQ(sched_switch(&s, 11000, 1, 0, 9, 0, 104, 139), 0);
	T_ASSERT_EQ(kobj_other(&s), 0);
	v = convert_trace(&s, err, sizeof(err));
	T_ASSERT(v != NULL);
	T_EXPECT_EQ(count_lines(err), 5);
	T_EXPECT(strstr(err, "tracebufctl: warning: 2 scheduling records of an unknown type "
			"left out\n") != NULL);
	T_EXPECT(strstr(err, "tracebufctl: warning: 2 scheduling records naming a thread id "
			"above 4294967295 left out") != NULL);
	T_EXPECT(strstr(err, "tracebufctl: warning: 2 context switches of threads the recording "
			"did not see (thread 0) written as the idle task's\n") != NULL);
	T_EXPECT(strstr(err, "tracebufctl: warning: 1 context switch with an outgoing thread "
			"state ftrace has no letter for written as R (runnable)\n") != NULL);
	T_EXPECT(strstr(err, "tracebufctl: warning: 1 kernel object record of a type other "
			"than process and thread left out\n") != NULL);
	/* the table's, then the two switches of thread 0 */
	n = sys_lines(v, l, 16);
	T_ASSERT_EQ(n, 9);
	T_EXPECT_EQ(l[7].ns, 5000);
	T_EXPECT(sys_arg(&l[7], "next_pid", val, sizeof(val)) && !strcmp(val, "0"));
	T_EXPECT(sys_arg(&l[7], "next_comm", val, sizeof(val)) && !strcmp(val, "swapper/1"));
	T_EXPECT(sys_arg(&l[8], "prev_state", val, sizeof(val)) && !strcmp(val, "R"));
	json_free(v);
	teardown();
}

/* ------------------------------------------------------------------------ */
/* dump                                                                     */

/* Each line starts with the offset of record i. */
static void expect_offsets(const char *out, unsigned int lines)
{
	const char *p = out;

	for (unsigned int i = 0; i < lines && p && *p; i++) {
		char *end;
		unsigned long off = strtoul(p, &end, 10);

		if (off != sample.offsets[i] || *end != ' ')
			T_FAIL("line %u starts with %lu, expected %zu", i + 1, off,
			       sample.offsets[i]);
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
}

static void dump_one_line_per_record(void)
{
	struct run r;

	setup();
	write_sample("s.fxt", sample.len);
	RUN(&r, "dump", "s.fxt");
	T_EXPECT_EQ(r.status, 0);
	T_EXPECT_EQ(r.err_len, 0);
	T_EXPECT_EQ(count_lines(r.out), sample.records);
	expect_offsets(r.out, sample.records);
	run_free(&r);
	teardown();
}

static void dump_event_fields(void)
{
	static const char *const want[] = {
		" metadata magic ",
		" metadata provider-info id=1 name=\"app\" ",
		" init ticks_per_second=2000000000 ",
		" string index=1 \"cat\" ",
		" thread index=1 pid=100 tid=101 ",
		" kobject thread koid=101 name=\"worker\" size=",
		" | process=koid:100\n",
		" event instant provider=1 ts=1000 pid=100 tid=101 cat=\"cat\" name=\"hi \\\"q\\\"\\n\" "
		"size=248 | i32=-5 u32=7 i64=-1000000000000 u64=9223372036854775809 dbl=1.5 "
		"str=\"s\\tv\\\"\\\\\" ptr=0xdeadbeef koid=koid:42 flag=true nothing=null "
		"bytes=blob[3]:ff00fe\n",
		" event complete provider=1 ts=4000 pid=100 tid=101 cat=\"cat\" name=\"cmp\" end=6000 ",
		" event counter provider=1 ts=7000 pid=100 tid=101 cat=\"cat\" name=\"ctr\" counter=7 "
		"size=",
		" | value=10 str=\"x\" d=2.5\n",
		" event async-begin provider=1 ts=8000 pid=100 tid=101 cat=\"cat\" name=\"req\" async=0x99 ",
		" event flow-end provider=1 ts=13000 pid=100 tid=101 cat=\"cat\" name=\"fl\" flow=0x5 ",
		" name=\"bad\\xff\\xc3(\\x01name\" ",
		" event instant provider=2 ts=3000 pid=200 tid=201 cat=\"cat\" name=\"other-ev\" ",
		" metadata provider-section id=1 ",
		" metadata provider-event id=1 event=buffer-overflow ",
		" blob type=1 name=\"blob\" payload=7 ",
	};
	struct run r;

	setup();
	write_sample("s.fxt", sample.len);
	RUN(&r, "dump", "s.fxt");
	T_EXPECT_EQ(r.status, 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(r.out, want[i]))
			T_FAIL("no line with '%s'", want[i]);
	run_free(&r);
	teardown();
}

/*
 * The record's fields apart from its arguments: an argument named "size"
 * is not the record's size.  The idle thread's weight (INT32_MIN, as the
 * kernel provider writes it) shows as "idle".
 */
static int dump_args_trace(struct sample *s)
{
	struct tracebuf_fxt_arg ev[2], sw[2], wk[1];
	struct tracebuf_fxt_sched sched = { 0 };

	memset(s, 0, sizeof(*s));
	SAMPLE_ADD(s, tracebuf_fxt_magic_write(dst_, cap_));
	SAMPLE_ADD(s, tracebuf_fxt_provider_info_write(dst_, cap_, 1, "kernel", 6));
	SAMPLE_ADD(s, tracebuf_fxt_init_write(dst_, cap_, 1000000000ULL));
	SAMPLE_ADD(s, tracebuf_fxt_string_write(dst_, cap_, 1, "cat", 3));
	ev[0] = tracebuf_fxt_arg_uint32(sample_str("size"), 4);
	ev[1] = tracebuf_fxt_arg_int32(sample_str("weight"), INT32_MIN);
	if (sample_event(s, TRACEBUF_LIB_FXT_EVENT_INSTANT, 1000,
			 tracebuf_fxt_thread_inline(1, 2), "ev", ev, 2, 0))
		return -EINVAL;
	sw[0] = tracebuf_fxt_arg_int32(sample_str("outgoing_weight"), 120);
	sw[1] = tracebuf_fxt_arg_int32(sample_str("incoming_weight"), INT32_MIN);
	sched.type = TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH;
	sched.ticks = 2000;
	sched.outgoing_state = TRACEBUF_LIB_FXT_THREAD_BLOCKED;
	sched.outgoing_koid = 2;
	sched.args = sw;
	sched.nargs = 2;
	SAMPLE_ADD(s, tracebuf_fxt_sched_write(dst_, cap_, &sched));
	wk[0] = tracebuf_fxt_arg_int32(sample_str("weight"), INT32_MIN);
	sched.type = TRACEBUF_LIB_FXT_SCHED_THREAD_WAKEUP;
	sched.ticks = 3000;
	sched.incoming_koid = 0;
	sched.args = wk;
	sched.nargs = 1;
	SAMPLE_ADD(s, tracebuf_fxt_sched_write(dst_, cap_, &sched));
	return 0;
}

static void dump_args_apart_and_idle_weight(void)
{
	static const char *const want[] = {
		" event instant provider=1 ts=1000 pid=1 tid=2 cat=\"cat\" name=\"ev\" size=",
		" | size=4 weight=-2147483648\n",
		" scheduling switch provider=1 ts=2000 cpu=0 out=2 state=blocked in=0 size=",
		" | outgoing_weight=120 incoming_weight=idle\n",
		" scheduling wakeup provider=1 ts=3000 cpu=0 tid=0 size=",
		" | weight=idle\n",
	};
	static struct sample s;
	char path[256];
	struct run r;

	setup();
	T_ASSERT_EQ(dump_args_trace(&s), 0);
	snprintf(path, sizeof(path), "%s/w.fxt", work);
	put_file(path, s.words, s.len);
	RUN(&r, "dump", "w.fxt");
	T_EXPECT_EQ(r.status, 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(r.out, want[i]))
			T_FAIL("no line with '%s' in:\n%s", want[i], r.out);
	run_free(&r);
	teardown();
}

static void dump_truncated_prints_prefix_then_fails(void)
{
	unsigned int before = 0;
	char want[64];
	struct run r;

	setup();
	write_sample("bad.fxt", sample.first_event + 16);
	while (sample.offsets[before] < sample.first_event)
		before++;
	RUN(&r, "dump", "bad.fxt");
	snprintf(want, sizeof(want), "bad.fxt: ");
	expect_one_error_line(&r, want);
	snprintf(want, sizeof(want), " at offset %zu", sample.first_event);
	expect_one_error_line(&r, want);
	T_EXPECT_EQ(count_lines(r.out), before);
	expect_offsets(r.out, before);
	run_free(&r);
	teardown();
}

static void dump_corrupt_later_record(void)
{
	char want[64];
	struct run r;
	size_t at;

	setup();
	at = sample.offsets[sample.records - 1];
	sample.words[at / 8] = 0;
	write_sample("bad.fxt", sample.len);
	RUN(&r, "dump", "bad.fxt");
	snprintf(want, sizeof(want), "zero word instead of a record at offset %zu", at);
	expect_one_error_line(&r, want);
	T_EXPECT_EQ(count_lines(r.out), sample.records - 1);
	run_free(&r);
	teardown();
}

/* A file that is not FXT prints nothing, not garbage. */
static void dump_not_fxt_prints_nothing(void)
{
	struct run r;

	setup();
	/* the sample without its magic record: records that would decode */
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/nomagic.fxt", work);
		put_file(path, (const uint8_t *)sample.words + 8, sample.len - 8);
	}
	RUN(&r, "dump", "nomagic.fxt");
	expect_one_error_line(&r, "nomagic.fxt: not an FXT trace: no magic record at offset 0");
	T_EXPECT_EQ(r.out_len, 0);
	run_free(&r);
	write_sample("empty.fxt", 0);
	RUN(&r, "dump", "empty.fxt");
	expect_one_error_line(&r, "no magic record");
	T_EXPECT_EQ(r.out_len, 0);
	run_free(&r);
	teardown();
}

static void dump_missing_input_and_usage(void)
{
	struct run r;

	setup();
	RUN(&r, "dump", "nope.fxt");
	expect_one_error_line(&r, "nope.fxt: No such file or directory");
	T_EXPECT_EQ(r.out_len, 0);
	run_free(&r);
	RUN(&r, "dump");
	expect_one_error_line(&r, "dump: missing FILE (see 'tracebufctl dump --help')");
	run_free(&r);
	RUN(&r, "dump", "a", "b");
	expect_one_error_line(&r, "dump: unexpected argument 'b'");
	run_free(&r);
	RUN(&r, "dump", "-v", "a");
	expect_one_error_line(&r, "dump: unknown option '-v' (see 'tracebufctl dump --help')");
	run_free(&r);
	RUN(&r, "dump", "-h");
	T_EXPECT_EQ(r.status, 0);
	T_EXPECT(!strncmp(r.out, "Usage: tracebufctl dump", 23));
	run_free(&r);
	teardown();
}

static const struct t_test tests[] = {
	T_TEST(convert_default_output_name),
	T_TEST(convert_has_every_event),
	T_TEST(convert_buffer_overflow),
	T_TEST(convert_event_fields),
	T_TEST(convert_argument_types),
	T_TEST(convert_counter_keeps_numeric_args),
	T_TEST(convert_process_and_thread_names),
	T_TEST(convert_escapes_strings),
	T_TEST(convert_output_option_and_stdout),
	T_TEST(convert_truncated_input_fails_cleanly),
	T_TEST(convert_corrupt_input_fails_cleanly),
	T_TEST(convert_trailing_bytes_fail),
	T_TEST(convert_failure_keeps_existing_output),
	T_TEST(convert_empty_input),
	T_TEST(convert_refuses_to_overwrite_its_input),
	T_TEST(convert_non_regular_input_needs_output),
	T_TEST(convert_descriptor_input_needs_output),
	T_TEST(convert_missing_input),
	T_TEST(convert_usage_errors),
	T_TEST(convert_sched_into_system_trace_events),
	T_TEST(convert_sched_on_the_events_timeline),
	T_TEST(convert_no_sched_no_system_trace_events),
	T_TEST(convert_warns_what_it_cannot_carry),
	T_TEST(dump_one_line_per_record),
	T_TEST(dump_event_fields),
	T_TEST(dump_args_apart_and_idle_weight),
	T_TEST(dump_truncated_prints_prefix_then_fails),
	T_TEST(dump_corrupt_later_record),
	T_TEST(dump_not_fxt_prints_nothing),
	T_TEST(dump_missing_input_and_usage),
};

T_MAIN(tests)
