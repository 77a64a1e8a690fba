// SPDX-License-Identifier: MIT
/*
 * tracebufctl's helpers (util.c): sizes, durations, keyword lookup, the
 * option iterator, JSON strings and numbers, temporary files.
 */
#include "ktap.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>

#include "../util.h"
#include "json.h"

/* f's output so far, as a string (open_memstream). */
struct mem {
	FILE *f;
	char *buf;
	size_t len;
};

static void mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
}

static const char *mem_close(struct mem *m)
{
	fclose(m->f);
	return m->buf;
}

static void sizes(void)
{
	static const struct {
		const char *in;
		uint64_t out;		/* 0: an error */
	} cases[] = {
		{ "4096", 4096 }, { "8192B", 8192 }, { "4K", 4096 }, { "4k", 4096 },
		{ "16KiB", 16384 }, { "1M", 1 << 20 }, { "3MiB", 3 << 20 },
		{ "1G", 1ULL << 30 }, { "4GiB", 4ULL << 30 },
		{ "16777215G", 0 }, { "4194305K", 0 }, { "99999999999", 0 },
		{ "", 0 }, { "K", 0 }, { "0", 0 }, { "0K", 0 }, { "1", 0 }, { "4095", 0 },
		{ "4097", 0 }, { "2K", 0 }, { "4 K", 0 }, { " 4096", 0 }, { "4096 ", 0 },
		{ "+4096", 0 }, { "-4096", 0 }, { "0x1000", 0 }, { "4KB", 0 }, { "4Kib", 0 },
		{ "1.5M", 0 }, { "18446744073709551616", 0 }, { "17179869184G", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 0xdeadbeef;
		char err[160] = "";
		int ret = tbctl_parse_size(cases[i].in, &v, err, sizeof(err));

		if (cases[i].out && (ret || v != cases[i].out))
			T_FAIL("'%s': ret %d value %llu, expected %llu", cases[i].in, ret,
			       (unsigned long long)v, (unsigned long long)cases[i].out);
		if (!cases[i].out && (ret != -EINVAL || !*err || v != 0xdeadbeef))
			T_FAIL("'%s': ret %d err '%s' value %llu, expected an error",
			       cases[i].in, ret, err, (unsigned long long)v);
	}
}

/* Too large is said before unaligned, with the limit's value. */
static void size_limit_first(void)
{
	char err[160] = "";
	uint64_t v;

	T_EXPECT_EQ(tbctl_parse_size("99999999999", &v, err, sizeof(err)), -EINVAL);
	T_EXPECT(!strcmp(err, "size '99999999999' (93.1 GiB) is larger than the largest "
			 "trace buffer, 4.0 GiB"));
	if (strstr(err, "multiple"))
		T_FAIL("'%s'", err);
}

static void durations(void)
{
	static const struct {
		const char *in;
		uint64_t ns;		/* 0: an error */
	} cases[] = {
		{ "1", 1000000000 }, { "10s", 10000000000 }, { "500ms", 500000000 },
		{ "250us", 250000 }, { "7ns", 7 }, { "2m", 120000000000 },
		{ "2min", 120000000000 }, { "1h", 3600000000000 }, { "1.5", 1500000000 },
		{ "0.5s", 500000000 }, { ".25s", 250000000 }, { "1.", 1000000000 },
		{ "0.000000001", 1 }, { "1.5ms", 1500000 }, { "1.0000000001", 1000000000 },
		{ "18446744073s", 18446744073000000000ULL },
		{ "", 0 }, { "s", 0 }, { ".", 0 }, { "0", 0 }, { "0.0000000001", 0 },
		{ "-1", 0 }, { "1x", 0 }, { "1 s", 0 }, { "1S", 0 }, { "1.5.5", 0 },
		{ "1e3", 0 }, { "18446744074s", 0 }, { "99999999999999999999", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 0xdeadbeef;
		char err[160] = "";
		int ret = tbctl_parse_duration(cases[i].in, &v, err, sizeof(err));

		if (cases[i].ns && (ret || v != cases[i].ns))
			T_FAIL("'%s': ret %d value %llu, expected %llu", cases[i].in, ret,
			       (unsigned long long)v, (unsigned long long)cases[i].ns);
		if (!cases[i].ns && (ret != -EINVAL || !*err || v != 0xdeadbeef))
			T_FAIL("'%s': ret %d err '%s' value %llu, expected an error",
			       cases[i].in, ret, err, (unsigned long long)v);
	}
}

/* The formatters print what the parsers read back to the same value. */
static void formats(void)
{
	static const struct {
		uint64_t v;
		const char *size, *duration;
	} cases[] = {
		{ 1, "1", "1ns" }, { 999, "999", "999ns" }, { 1000, "1000", "1us" },
		{ 4096, "4K", "4096ns" }, { 12288, "12K", "12288ns" },
		{ 1052672, "1028K", "1052672ns" }, { 1ULL << 20, "1M", "1048576ns" },
		{ 3ULL << 29, "1536M", "1610612736ns" }, { 4ULL << 30, "4G", "4294967296ns" },
		{ 1500000, "1500000", "1500us" }, { 250000000, "250000000", "250ms" },
		{ 1500000000, "1500000000", "1500ms" }, { 60000000000ULL, "58593750K", "1m" },
		{ 90000000000ULL, "87890625K", "90s" },
		{ 3600000000000ULL, "3515625000K", "1h" },
		{ 5400000000000ULL, "5273437500K", "90m" },
		{ UINT64_MAX, "18446744073709551615", "18446744073709551615ns" },
	};
	char buf[32], err[160];
	uint64_t back;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = cases[i].v;

		if (strcmp(tbctl_fmt_size(v, buf, sizeof(buf)), cases[i].size))
			T_FAIL("size %llu: '%s', expected '%s'", (unsigned long long)v, buf,
			       cases[i].size);
		/* the parser refuses some sizes (unaligned, too large), never a format */
		if (!tbctl_parse_size(buf, &back, err, sizeof(err)) && back != v)
			T_FAIL("size '%s' reads back as %llu", buf, (unsigned long long)back);
		if (v % 4096 == 0 && v <= (4ULL << 30) &&
		    (tbctl_parse_size(buf, &back, err, sizeof(err)) || back != v))
			T_FAIL("size '%s' does not read back as %llu", buf, (unsigned long long)v);
		if (strcmp(tbctl_fmt_duration(v, buf, sizeof(buf)), cases[i].duration))
			T_FAIL("duration %llu: '%s', expected '%s'", (unsigned long long)v, buf,
			       cases[i].duration);
		if (tbctl_parse_duration(buf, &back, err, sizeof(err)) || back != v)
			T_FAIL("duration '%s' does not read back as %llu", buf,
			       (unsigned long long)v);
	}
	/* every aligned size, a stride of durations */
	for (uint64_t v = 4096; v <= (4ULL << 30); v += 4096 * 997ULL) {
		tbctl_fmt_size(v, buf, sizeof(buf));
		if (tbctl_parse_size(buf, &back, err, sizeof(err)) || back != v)
			T_FAIL("size '%s' does not read back as %llu", buf, (unsigned long long)v);
	}
	for (uint64_t v = 1; v < UINT64_MAX / 3; v = v * 3 + (v & 1)) {
		tbctl_fmt_duration(v, buf, sizeof(buf));
		if (tbctl_parse_duration(buf, &back, err, sizeof(err)) || back != v)
			T_FAIL("duration '%s' does not read back as %llu", buf,
			       (unsigned long long)v);
	}
}

static void keywords(void)
{
	static const char *const kw[] = { "record", "list", "categories", "convert", NULL };

	T_EXPECT_EQ(tbctl_lookup("record", kw), 0);
	T_EXPECT_EQ(tbctl_lookup("rec", kw), 0);
	T_EXPECT_EQ(tbctl_lookup("l", kw), 1);
	T_EXPECT_EQ(tbctl_lookup("ca", kw), 2);
	T_EXPECT_EQ(tbctl_lookup("co", kw), 3);
	T_EXPECT_EQ(tbctl_lookup("c", kw), -EINVAL);
	T_EXPECT_EQ(tbctl_lookup("", kw), -ENOENT);
	T_EXPECT_EQ(tbctl_lookup("records", kw), -ENOENT);
	T_EXPECT_EQ(tbctl_lookup("x", kw), -ENOENT);
	T_EXPECT(tbctl_matches("s", "streaming"));
	T_EXPECT(!tbctl_matches("", "streaming"));
	T_EXPECT(!tbctl_matches("streamingx", "streaming"));
}

static void human_bytes(void)
{
	char buf[32];

	T_EXPECT(!strcmp(tbctl_human_bytes(0, buf, sizeof(buf)), "0 B"));
	T_EXPECT(!strcmp(tbctl_human_bytes(1023, buf, sizeof(buf)), "1023 B"));
	T_EXPECT(!strcmp(tbctl_human_bytes(1024, buf, sizeof(buf)), "1.0 KiB"));
	T_EXPECT(!strcmp(tbctl_human_bytes(3 << 20, buf, sizeof(buf)), "3.0 MiB"));
	T_EXPECT(!strcmp(tbctl_human_bytes(UINT64_MAX, buf, sizeof(buf)), "16.0 EiB"));
}

static const struct tbctl_opt opts[] = {
	{ "alpha", 'a', TBCTL_NO_ARG, 'a' },
	{ "beta", 'b', TBCTL_REQ_ARG, 'b' },
	{ "gamma", 0, TBCTL_NO_ARG, 300 },
	{ 0 }
};

/*
 * The iterator over words, as "id:arg" tokens joined with spaces; with
 * @after, words after "--" are positional arguments.
 */
static const char *getopt_trace(char *out, size_t len, char **argv, bool after)
{
	struct tbctl_getopt g = { .argv = argv, .ind = 1, .args_after_dashdash = after };
	char err[160];
	size_t off = 0;
	int ret;

	while (argv[g.argc])
		g.argc++;
	out[0] = '\0';
	for (;;) {
		ret = tbctl_getopt(&g, opts, err, sizeof(err));
		if (ret < 0) {
			snprintf(out + off, len - off, "ERR(%s)", err);
			return out;
		}
		if (ret == TBCTL_GETOPT_END)
			break;
		if (ret == TBCTL_GETOPT_ARG)
			off += (size_t)snprintf(out + off, len - off, "ARG:%s ", g.arg);
		else
			off += (size_t)snprintf(out + off, len - off, "%d:%s ", ret,
						g.arg ? g.arg : "");
	}
	snprintf(out + off, len - off, "END%s%d", g.dashdash ? "--" : "", g.ind);
	return out;
}

#define EXPECT_GETOPT_AFTER(after, want, ...)				\
	do {								\
		char *argv_[] = { (char *)"cmd", __VA_ARGS__, NULL };	\
		char out_[256];						\
									\
		getopt_trace(out_, sizeof(out_), argv_, after);		\
		if (strcmp(out_, want))					\
			T_FAIL("got \"%s\", expected \"%s\"", out_, want); \
	} while (0)
#define EXPECT_GETOPT(want, ...)	EXPECT_GETOPT_AFTER(false, want, __VA_ARGS__)

static void option_iterator(void)
{
	EXPECT_GETOPT("97: 98:x END4", "-a", "-b", "x");
	EXPECT_GETOPT("97: 98:x END2", "-abx");
	EXPECT_GETOPT("97: 97: END2", "-aa");
	EXPECT_GETOPT("98:v ARG:file 97: END4", "--beta=v", "file", "--alpha");
	EXPECT_GETOPT("98:v END3", "--beta", "v");
	EXPECT_GETOPT("98: END3", "--beta", "");
	EXPECT_GETOPT("300: END2", "--gamma");
	EXPECT_GETOPT("ARG:- END2", "-");
	EXPECT_GETOPT("97: END--3", "-a", "--", "-b");
	EXPECT_GETOPT("98:-a END3", "-b", "-a");
	EXPECT_GETOPT("ERR(unknown option '-x')", "-x");
	EXPECT_GETOPT("97: ERR(unknown option '-x')", "-ax");
	EXPECT_GETOPT("ERR(unknown option '--alp')", "--alp");
	EXPECT_GETOPT("ERR(unknown option '---')", "---");
	EXPECT_GETOPT("ERR(option '--alpha' takes no value)", "--alpha=1");
	EXPECT_GETOPT("ERR(option '-b' needs a value)", "-b");
	EXPECT_GETOPT("ERR(option '--beta' needs a value)", "--beta");
	EXPECT_GETOPT("ERR(option '-b' needs a value)", "-b", "--", "x");
	/* words after "--" as arguments (a file named "-b") */
	EXPECT_GETOPT_AFTER(true, "97: ARG:-b ARG:-- ARG:x END--6", "-a", "--", "-b", "--", "x");
	EXPECT_GETOPT_AFTER(true, "ARG:f END--3", "f", "--");
	EXPECT_GETOPT_AFTER(true, "ARG:x END2", "x");
}

/* tbctl_json_str() of len bytes at s, checked against want and parsed back. */
static void expect_json_str(const char *s, size_t len, const char *want, const char *decoded)
{
	struct mem m;
	struct json *v;
	const char *out;
	char err[128];

	mem_open(&m);
	tbctl_json_str(m.f, s, len);
	out = mem_close(&m);
	if (strcmp(out, want))
		T_FAIL("json of \"%.*s\": %s, expected %s", (int)len, s, out, want);
	v = json_parse(out, strlen(out), err, sizeof(err));
	if (!v)
		T_FAIL("%s does not parse: %s", out, err);
	else if (v->type != JSON_STRING || strcmp(v->text, decoded))
		T_FAIL("%s parses to something else than expected", out);
	json_free(v);
	free(m.buf);
}

#define EXPECT_JSON_STR(lit, want, decoded) \
	expect_json_str(lit, sizeof(lit) - 1, want, decoded)

static void json_strings(void)
{
	EXPECT_JSON_STR("", "\"\"", "");
	EXPECT_JSON_STR("plain", "\"plain\"", "plain");
	EXPECT_JSON_STR("q\"b\\s/", "\"q\\\"b\\\\s/\"", "q\"b\\s/");
	EXPECT_JSON_STR("\n\r\t\b\f", "\"\\n\\r\\t\\b\\f\"", "\n\r\t\b\f");
	EXPECT_JSON_STR("\x01\x1f\x7f", "\"\\u0001\\u001f\x7f\"", "\x01\x1f\x7f");
	EXPECT_JSON_STR("nul\0x", "\"nul\\u0000x\"", "nul");
	/* valid UTF-8: 2, 3 and 4 bytes, the largest code point */
	EXPECT_JSON_STR("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf",
			"\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\"",
			"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf");
	/* invalid: lone continuation, overlong, surrogate, > U+10FFFF, truncated */
	EXPECT_JSON_STR("a\x80z", "\"a\\ufffdz\"", "a\xef\xbf\xbdz");
	EXPECT_JSON_STR("\xc0\xaf", "\"\\ufffd\\ufffd\"", "\xef\xbf\xbd\xef\xbf\xbd");
	EXPECT_JSON_STR("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"",
			"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	EXPECT_JSON_STR("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"",
			"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	EXPECT_JSON_STR("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
			"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	EXPECT_JSON_STR("\xe2\x82", "\"\\ufffd\\ufffd\"", "\xef\xbf\xbd\xef\xbf\xbd");
	EXPECT_JSON_STR("\xff", "\"\\ufffd\"", "\xef\xbf\xbd");
}

static void json_numbers(void)
{
	static const struct {
		double d;
		const char *want;
	} cases[] = {
		{ 1.5, "1.5" }, { -0.25, "-0.25" }, { 0, "0" }, { 1e300, "1.0000000000000001e+300" },
		{ 0.1, "0.10000000000000001" }, { INFINITY, "\"Infinity\"" },
		{ -INFINITY, "\"-Infinity\"" }, { NAN, "\"NaN\"" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mem m;
		struct json *v;
		const char *out;

		mem_open(&m);
		tbctl_json_double(m.f, cases[i].d);
		out = mem_close(&m);
		if (strcmp(out, cases[i].want))
			T_FAIL("%s, expected %s", out, cases[i].want);
		v = json_parse(out, strlen(out), NULL, 0);
		T_EXPECT(v != NULL);
		json_free(v);
		free(m.buf);
	}
}

static void tmp_files(void)
{
	char dir[] = "/tmp/tbctl-util-XXXXXX", path[512], link[512], *base;
	struct tbctl_file f;
	struct stat st;
	mode_t mask;
	int fd;

	T_ASSERT(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/out.fxt", dir);
	fd = tbctl_file_create(path, &f);
	T_ASSERT(fd >= 0);
	T_EXPECT(!strncmp(f.tmp, dir, strlen(dir)));
	T_EXPECT(!strncmp(f.tmp + strlen(dir), "/.out.fxt.", 10));
	T_EXPECT(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	mask = umask(0);
	umask(mask);
	T_EXPECT(!fstat(fd, &st) && (st.st_mode & 0777) == (0666 & ~mask));
	T_EXPECT(access(path, F_OK) != 0);
	T_EXPECT(write(fd, "new", 3) == 3);
	T_EXPECT_EQ(tbctl_file_sync(&f, fd), 0);
	close(fd);
	T_EXPECT_EQ(tbctl_file_commit(&f), 0);
	T_EXPECT(f.tmp == NULL && f.dest == NULL);
	T_EXPECT(!stat(path, &st) && st.st_size == 3);

	/* a file replaced keeps its mode; through a link, the target is */
	T_ASSERT(!chmod(path, 0604));
	snprintf(link, sizeof(link), "%s/link.fxt", dir);
	T_ASSERT(!symlink("out.fxt", link));
	fd = tbctl_file_create(link, &f);
	T_ASSERT(fd >= 0);
	T_EXPECT(!strncmp(f.tmp + strlen(dir), "/.out.fxt.", 10));
	T_EXPECT(!fstat(fd, &st) && (st.st_mode & 07777) == 0604);
	T_EXPECT(write(fd, "newer", 5) == 5);
	close(fd);
	T_EXPECT_EQ(tbctl_file_commit(&f), 0);
	T_EXPECT(!lstat(link, &st) && S_ISLNK(st.st_mode));
	T_EXPECT(!stat(path, &st) && st.st_size == 5 && (st.st_mode & 07777) == 0604);
	/* aborted: nothing left, what was there untouched */
	fd = tbctl_file_create(path, &f);
	T_ASSERT(fd >= 0);
	close(fd);
	tbctl_file_abort(&f);
	T_EXPECT(!stat(path, &st) && st.st_size == 5);
	unlink(link);

	/* a device is written in place, and stays one */
	fd = tbctl_file_create("/dev/null", &f);
	T_ASSERT(fd >= 0);
	T_EXPECT(f.tmp == NULL);
	T_EXPECT(write(fd, "x", 1) == 1);
	T_EXPECT_EQ(tbctl_file_sync(&f, fd), 0);
	close(fd);
	T_EXPECT_EQ(tbctl_file_commit(&f), 0);
	T_EXPECT(!stat("/dev/null", &st) && S_ISCHR(st.st_mode));

	/* a name as long as can be: its temporary name is cut to fit */
	base = path + snprintf(path, sizeof(path), "%s/", dir);
	memset(base, 'n', 255);
	base[255] = '\0';
	fd = tbctl_file_create(path, &f);
	T_ASSERT(fd >= 0);
	close(fd);
	T_EXPECT_EQ(tbctl_file_commit(&f), 0);
	T_EXPECT_EQ(access(path, F_OK), 0);
	unlink(path);

	/* a directory, or a name that can only be one */
	T_EXPECT_EQ(tbctl_file_create(dir, &f), -EISDIR);
	T_EXPECT(f.tmp == NULL && f.dest == NULL);
	snprintf(path, sizeof(path), "%s/", dir);
	T_EXPECT_EQ(tbctl_file_create(path, &f), -EISDIR);
	snprintf(path, sizeof(path), "%s/no/such/dir/x", dir);
	T_EXPECT_EQ(tbctl_file_create(path, &f), -ENOENT);
	T_EXPECT(f.tmp == NULL);
	snprintf(path, sizeof(path), "%s/out.fxt", dir);
	unlink(path);
	T_EXPECT_EQ(rmdir(dir), 0);
}

static const struct t_test tests[] = {
	T_TEST(sizes),
	T_TEST(size_limit_first),
	T_TEST(durations),
	T_TEST(formats),
	T_TEST(keywords),
	T_TEST(human_bytes),
	T_TEST(option_iterator),
	T_TEST(json_strings),
	T_TEST(json_numbers),
	T_TEST(tmp_files),
};

T_MAIN(tests)
