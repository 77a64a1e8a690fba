// SPDX-License-Identifier: MIT
/*
 * tracebufctl: parsing and formatting helpers (see util.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/tracebuf.h>
#include <tracebuf_manager.h>

#include "tracebufctl.h"
#include "util.h"

static int util_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int util_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Leading decimal digits of *s into *v, moving *s; -ERANGE on overflow. */
static int parse_digits(const char **s, uint64_t *v, unsigned int *ndigits)
{
	uint64_t x = 0;
	unsigned int n = 0;

	for (; **s >= '0' && **s <= '9'; (*s)++, n++) {
		unsigned int d = (unsigned int)(**s - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -ERANGE;
		x = x * 10 + d;
	}
	*v = x;
	*ndigits = n;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The registry views' options                                              */

int tbctl_view_opts(const char *cmd, int argc, char **argv, void (*usage)(FILE *f),
		    bool *json, char **words, size_t *nwords)
{
	static const struct tbctl_opt opts[] = {
		{ "json", 'j', TBCTL_NO_ARG, 'j' },
		{ "help", 'h', TBCTL_NO_ARG, 'h' },
		{ 0 }
	};
	struct tbctl_getopt g = {
		.argc = argc, .argv = argv, .ind = 1, .args_after_dashdash = true,
	};
	char err[160], msg[200];
	int ret;

	while ((ret = tbctl_getopt(&g, opts, err, sizeof(err))) != TBCTL_GETOPT_END) {
		switch (ret) {
		case 'j':
			*json = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case TBCTL_GETOPT_ARG:
			if (!words) {
				snprintf(msg, sizeof(msg), "%s: unexpected argument '%s'", cmd, g.arg);
				return tbctl_usage_err(cmd, msg);
			}
			words[(*nwords)++] = (char *)g.arg;
			break;
		default:
			snprintf(msg, sizeof(msg), "%s: %s", cmd, err);
			return tbctl_usage_err(cmd, msg);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Argument values                                                          */

/* The style's formats are string literals (struct tbctl_arg_style). */
void tbctl_print_arg(FILE *f, const struct tracebuf_reader_arg *a,
		     const struct tbctl_arg_style *style)
{
	switch (a->type) {
	case TRACEBUF_LIB_FXT_ARG_NULL:
		fputs("null", f);
		break;
	case TRACEBUF_LIB_FXT_ARG_INT32:
		fprintf(f, "%" PRId32, a->i32);
		break;
	case TRACEBUF_LIB_FXT_ARG_UINT32:
		fprintf(f, "%" PRIu32, a->u32);
		break;
	case TRACEBUF_LIB_FXT_ARG_INT64:
		fprintf(f, "%" PRId64, a->i64);
		break;
	case TRACEBUF_LIB_FXT_ARG_UINT64:
		fprintf(f, "%" PRIu64, a->u64);
		break;
	case TRACEBUF_LIB_FXT_ARG_DOUBLE:
		style->dbl(f, a->dbl);
		break;
	case TRACEBUF_LIB_FXT_ARG_STRING:
		style->str(f, a->str);
		break;
	case TRACEBUF_LIB_FXT_ARG_POINTER:
		fprintf(f, style->pointer, a->ptr);
		break;
	case TRACEBUF_LIB_FXT_ARG_KOID:
		fprintf(f, style->koid, a->koid);
		break;
	case TRACEBUF_LIB_FXT_ARG_BOOL:
		fputs(a->b ? "true" : "false", f);
		break;
	case TRACEBUF_LIB_FXT_ARG_BLOB:
		fprintf(f, style->blob, a->raw.len);
		if (!style->blob_hex)
			break;
		putc(':', f);
		for (size_t i = 0; i < a->raw.len && i < style->blob_hex; i++)
			fprintf(f, "%02x", (unsigned char)a->raw.data[i]);
		if (a->raw.len > style->blob_hex)
			fputs("...", f);
		break;
	default:
		fprintf(f, style->unknown, a->type, a->raw.len);
		break;
	}
}

bool tbctl_arg_numeric(unsigned int type)
{
	switch (type) {
	case TRACEBUF_LIB_FXT_ARG_INT32:
	case TRACEBUF_LIB_FXT_ARG_UINT32:
	case TRACEBUF_LIB_FXT_ARG_INT64:
	case TRACEBUF_LIB_FXT_ARG_UINT64:
	case TRACEBUF_LIB_FXT_ARG_DOUBLE:
		return true;
	default:
		return false;
	}
}

uint64_t tbctl_kobj_thread_pid(const struct tracebuf_reader_record *rec)
{
	uint64_t pid = 0;

	for (unsigned int i = 0; i < rec->nargs; i++) {
		const struct tracebuf_reader_arg *a = &rec->args[i];

		if (a->name.len == 7 && !memcmp(a->name.data, "process", 7) &&
		    (a->type == TRACEBUF_LIB_FXT_ARG_KOID || a->type == TRACEBUF_LIB_FXT_ARG_UINT64))
			pid = a->type == TRACEBUF_LIB_FXT_ARG_KOID ? a->koid : a->u64;
	}
	return pid;
}

/* ------------------------------------------------------------------------ */
/* Sizes and durations                                                      */

int tbctl_parse_bytes(const char *s, uint64_t *out, char *err, size_t errlen)
{
	static const struct {
		const char *suffix;
		unsigned int shift;
	} units[] = {
		{ "", 0 }, { "B", 0 },
		{ "K", 10 }, { "k", 10 }, { "KiB", 10 },
		{ "M", 20 }, { "MiB", 20 },
		{ "G", 30 }, { "GiB", 30 },
	};
	const char *p = s;
	unsigned int n, i;
	uint64_t v;

	if (parse_digits(&p, &v, &n))
		return util_err(err, errlen, "size '%s' is too large", s);
	if (!n)
		return util_err(err, errlen,
				"invalid size '%s' (bytes, or a number with a K, M or G suffix)", s);
	for (i = 0; i < TBCTL_ARRAY_SIZE(units); i++)
		if (!strcmp(p, units[i].suffix))
			break;
	if (i == TBCTL_ARRAY_SIZE(units))
		return util_err(err, errlen,
				"invalid size '%s' (bytes, or a number with a K, M or G suffix)", s);
	if (v > UINT64_MAX >> units[i].shift)
		return util_err(err, errlen, "size '%s' is too large", s);
	v <<= units[i].shift;
	if (!v)
		return util_err(err, errlen, "size '%s' must not be 0", s);
	*out = v;
	return 0;
}

int tbctl_parse_size(const char *s, uint64_t *out, char *err, size_t errlen)
{
	char human[32], max[32];
	uint64_t v;
	int ret;

	ret = tbctl_parse_bytes(s, &v, err, errlen);
	if (ret)
		return ret;
	/* the library's rule, as far as it holds on every kernel */
	switch (tracebuf_buffer_size_check(NULL, v)) {
	case 0:
		*out = v;
		return 0;
	case -EFBIG:
		return util_err(err, errlen,
				"size '%s' (%s) is larger than the largest trace buffer, %s",
				s, tbctl_human_bytes(v, human, sizeof(human)),
				tbctl_human_bytes(TRACEBUF_BUFFER_MAX, max, sizeof(max)));
	default:
		/* with a suffix: its value in bytes as well */
		if (s[strspn(s, "0123456789")] && strcmp(s + strspn(s, "0123456789"), "B"))
			return util_err(err, errlen,
					"size '%s' (%llu bytes) is not a multiple of %u KiB (%u bytes)",
					s, (unsigned long long)v, TRACEBUF_BUFFER_ALIGN / 1024,
					TRACEBUF_BUFFER_ALIGN);
		return util_err(err, errlen, "size %s is not a multiple of %u KiB (%u bytes)",
				s, TRACEBUF_BUFFER_ALIGN / 1024, TRACEBUF_BUFFER_ALIGN);
	}
}

int tbctl_parse_duration(const char *s, uint64_t *ns, char *err, size_t errlen)
{
	static const struct {
		const char *suffix;
		uint64_t ns;
	} units[] = {
		{ "", 1000000000ULL }, { "s", 1000000000ULL },
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "m", 60000000000ULL }, { "min", 60000000000ULL },
		{ "h", 3600000000000ULL },
	};
	unsigned int nint, nfrac = 0, i, j;
	const char *p = s, *frac = NULL;
	uint64_t v, part = 0;

	if (parse_digits(&p, &v, &nint))
		return util_err(err, errlen, "duration '%s' is too long", s);
	if (*p == '.') {
		for (frac = ++p; *p >= '0' && *p <= '9'; p++)
			nfrac++;
	}
	if (!nint && !nfrac)
		return util_err(err, errlen,
				"invalid duration '%s' (e.g. 500ms, 10s, 2m; a plain number is seconds)", s);
	for (i = 0; i < TBCTL_ARRAY_SIZE(units); i++)
		if (!strcmp(p, units[i].suffix))
			break;
	if (i == TBCTL_ARRAY_SIZE(units))
		return util_err(err, errlen,
				"invalid duration '%s' (e.g. 500ms, 10s, 2m; a plain number is seconds)", s);
	/*
	 * The fraction of the unit, rounded down, exactly and with no type
	 * wider than 64 bits (32-bit targets have none): from its last digit
	 * to its first, part = (digit * unit + part) / 10, which never exceeds
	 * 10 units.  Digits past the 18th are below a nanosecond anyway.
	 */
	for (j = nfrac < 18 ? nfrac : 18; j > 0; j--)
		part = ((uint64_t)(frac[j - 1] - '0') * units[i].ns + part) / 10;
	if (v > (UINT64_MAX - part) / units[i].ns)
		return util_err(err, errlen, "duration '%s' is too long", s);
	if (!v && !part)
		return util_err(err, errlen, "duration '%s' must be positive", s);
	*ns = v * units[i].ns + part;
	return 0;
}

const char *tbctl_fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const struct {
		char suffix;
		unsigned int shift;
	} units[] = { { 'G', 30 }, { 'M', 20 }, { 'K', 10 } };

	for (size_t i = 0; bytes && i < TBCTL_ARRAY_SIZE(units); i++) {
		if (bytes & ((1ULL << units[i].shift) - 1))
			continue;
		snprintf(buf, len, "%llu%c", (unsigned long long)(bytes >> units[i].shift),
			 units[i].suffix);
		return buf;
	}
	snprintf(buf, len, "%llu", (unsigned long long)bytes);
	return buf;
}

const char *tbctl_fmt_duration(uint64_t ns, char *buf, size_t len)
{
	static const struct {
		const char *suffix;
		uint64_t ns;
	} units[] = {
		{ "h", 3600000000000ULL }, { "m", 60000000000ULL }, { "s", 1000000000ULL },
		{ "ms", 1000000 }, { "us", 1000 },
	};
	size_t i;

	for (i = 0; ns && i < TBCTL_ARRAY_SIZE(units); i++)
		if (!(ns % units[i].ns))
			break;
	if (ns && i < TBCTL_ARRAY_SIZE(units))
		snprintf(buf, len, "%llu%s", (unsigned long long)(ns / units[i].ns),
			 units[i].suffix);
	else
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	return buf;
}

/* ------------------------------------------------------------------------ */
/* Keywords                                                                 */

bool tbctl_matches(const char *word, const char *keyword)
{
	size_t len = strlen(word);

	return len && len <= strlen(keyword) && !strncmp(word, keyword, len);
}

int tbctl_lookup(const char *word, const char *const *keywords)
{
	int found = -ENOENT;

	for (int i = 0; keywords[i]; i++) {
		if (!strcmp(word, keywords[i]))
			return i;
		if (tbctl_matches(word, keywords[i]))
			found = found == -ENOENT ? i : -EINVAL;
	}
	return found;
}

const char *tbctl_human_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	unsigned int i = 0;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
		return buf;
	}
	v /= 1024;
	while (v >= 1024 && i + 1 < TBCTL_ARRAY_SIZE(units)) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, "%.1f %s", v, units[i]);
	return buf;
}

const char *tbctl_human_ns(uint64_t ns, char *buf, size_t len)
{
	static const struct {
		uint64_t div;
		const char *unit;
	} units[] = {
		{ 1000000000, "s" }, { 1000000, "ms" }, { 1000, "us" },
	};

	for (size_t i = 0; i < TBCTL_ARRAY_SIZE(units); i++) {
		if (ns >= units[i].div) {
			snprintf(buf, len, "%llu.%03u %s",
				 (unsigned long long)(ns / units[i].div),
				 (unsigned int)(ns % units[i].div / (units[i].div / 1000)),
				 units[i].unit);
			return buf;
		}
	}
	snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	return buf;
}

/* ------------------------------------------------------------------------ */
/* Options                                                                  */

static int getopt_value(struct tbctl_getopt *g, const struct tbctl_opt *o,
			const char *inline_value, char *err, size_t errlen)
{
	if (o->has_arg == TBCTL_NO_ARG) {
		if (inline_value)
			return util_err(err, errlen, "option '%s' takes no value", g->opt);
		g->arg = NULL;
		return o->id;
	}
	if (inline_value) {
		g->arg = inline_value;
		return o->id;
	}
	if (g->ind >= g->argc || !strcmp(g->argv[g->ind], "--"))
		return util_err(err, errlen, "option '%s' needs a value", g->opt);
	g->arg = g->argv[g->ind++];
	return o->id;
}

static int getopt_short(struct tbctl_getopt *g, const struct tbctl_opt *opts,
			char *err, size_t errlen)
{
	char c = *g->cluster++;
	const struct tbctl_opt *o;
	const char *value = NULL;

	snprintf(g->optbuf, sizeof(g->optbuf), "-%c", c);
	g->opt = g->optbuf;
	for (o = opts; o->id; o++)
		if (o->letter && o->letter == c)
			break;
	if (!o->id) {
		g->cluster = NULL;
		return util_err(err, errlen, "unknown option '%s'", g->opt);
	}
	if (o->has_arg != TBCTL_NO_ARG && *g->cluster)
		value = g->cluster;	/* "-ofile" */
	if (value || !*g->cluster)
		g->cluster = NULL;
	return getopt_value(g, o, value, err, errlen);
}

int tbctl_getopt(struct tbctl_getopt *g, const struct tbctl_opt *opts,
		 char *err, size_t errlen)
{
	const struct tbctl_opt *o;
	const char *w, *eq;
	size_t len;

	if (g->cluster && *g->cluster)
		return getopt_short(g, opts, err, errlen);
	g->cluster = NULL;
	if (g->ind >= g->argc)
		return TBCTL_GETOPT_END;
	w = g->argv[g->ind];
	if (g->dashdash && g->args_after_dashdash) {
		g->arg = w;
		g->ind++;
		return TBCTL_GETOPT_ARG;
	}
	if (!strcmp(w, "--")) {
		g->ind++;
		g->dashdash = true;
		if (g->args_after_dashdash && g->ind < g->argc) {
			g->arg = g->argv[g->ind++];
			return TBCTL_GETOPT_ARG;
		}
		return TBCTL_GETOPT_END;
	}
	if (w[0] != '-' || !w[1]) {
		g->arg = w;
		g->ind++;
		return TBCTL_GETOPT_ARG;
	}
	g->ind++;
	if (w[1] != '-') {
		g->cluster = w + 1;
		return getopt_short(g, opts, err, errlen);
	}
	eq = strchr(w + 2, '=');
	len = eq ? (size_t)(eq - (w + 2)) : strlen(w + 2);
	snprintf(g->optbuf, sizeof(g->optbuf), "--%.*s", (int)len, w + 2);
	g->opt = g->optbuf;
	for (o = opts; o->id; o++)
		if (o->name && strlen(o->name) == len && !strncmp(o->name, w + 2, len))
			break;
	if (!o->id)
		return util_err(err, errlen, "unknown option '%s'", g->opt);
	return getopt_value(g, o, eq ? eq + 1 : NULL, err, errlen);
}

/* ------------------------------------------------------------------------ */
/* String vectors                                                           */

int tbctl_strv_push(char ***v, size_t *n, const char *s, size_t len)
{
	char **nv, *copy;

	copy = strndup(s, len);
	if (!copy)
		return -ENOMEM;
	nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv) {
		free(copy);
		return -ENOMEM;
	}
	nv[(*n)++] = copy;
	*v = nv;
	return 0;
}

void tbctl_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* ------------------------------------------------------------------------ */
/* Hash tables over what a file holds                                       */

uint64_t tbctl_hash_seed(void)
{
	static int where;
	uint64_t seed;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == sizeof(seed))
		return seed;
	return (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32 ^ (uintptr_t)&where;
}

uint64_t tbctl_hash_mix(uint64_t h, uint64_t seed)
{
	h ^= seed;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

/* ------------------------------------------------------------------------ */
/* Files                                                                    */

/* Where @path's file goes: its symlink's target if it is one, else @path. */
static char *tb_file_dest(const char *path)
{
	struct stat st;
	char *real;

	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		real = realpath(path, NULL);
		if (real)
			return real;
		/* a dangling link: replaced itself */
	}
	return strdup(path);
}

int tbctl_file_create(const char *path, struct tbctl_file *f)
{
	const char *slash = strrchr(path, '/'), *base;
	size_t dirlen, len, blen;
	struct stat st;
	bool exists;
	mode_t mask;
	int fd;

	memset(f, 0, sizeof(*f));
	base = slash ? slash + 1 : path;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return -EISDIR;
	f->dest = tb_file_dest(path);
	if (!f->dest)
		return -ENOMEM;
	exists = !stat(f->dest, &st);
	if (exists && S_ISDIR(st.st_mode)) {
		fd = -EISDIR;
		goto fail;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		fd = open(f->dest, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0) {
			fd = -errno;
			goto fail;
		}
		return fd;
	}
	slash = strrchr(f->dest, '/');
	dirlen = slash ? (size_t)(slash - f->dest) + 1 : 0;
	base = f->dest + dirlen;
	/* ".NAME.XXXXXX" fits where NAME does, NAME cut if need be */
	blen = strlen(base);
	if (blen > NAME_MAX - sizeof(".XXXXXX"))
		blen = NAME_MAX - sizeof(".XXXXXX");
	len = dirlen + blen + sizeof(".") + sizeof(".XXXXXX");
	f->tmp = malloc(len);
	if (!f->tmp) {
		fd = -ENOMEM;
		goto fail;
	}
	snprintf(f->tmp, len, "%.*s.%.*s.XXXXXX", (int)dirlen, f->dest, (int)blen, base);
	fd = mkostemp(f->tmp, O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		goto fail;
	}
	/*
	 * What it replaces had its owner and mode (as far as we may give
	 * them); a new file what open(O_CREAT, 0666) would have given, not
	 * mkstemp's 0600.  Neither is worth failing for.
	 */
	if (exists) {
		if ((st.st_uid != geteuid() || st.st_gid != getegid()) &&
		    fchown(fd, st.st_uid, st.st_gid)) {
			/* not ours to give */
		}
		if (fchmod(fd, st.st_mode & 07777)) {
			/* as it is */
		}
	} else {
		mask = umask(0);
		umask(mask);
		if (fchmod(fd, 0666 & ~mask)) {
			/* as it is */
		}
	}
	return fd;
fail:
	free(f->tmp);
	free(f->dest);
	memset(f, 0, sizeof(*f));
	return fd;
}

int tbctl_file_sync(const struct tbctl_file *f, int fd)
{
	return f->tmp && fsync(fd) ? -errno : 0;
}

int tbctl_file_commit(struct tbctl_file *f)
{
	int ret = f->tmp && rename(f->tmp, f->dest) ? -errno : 0;

	if (ret)
		unlink(f->tmp);
	free(f->tmp);
	free(f->dest);
	memset(f, 0, sizeof(*f));
	return ret;
}

void tbctl_file_abort(struct tbctl_file *f)
{
	if (f->tmp)
		unlink(f->tmp);
	free(f->tmp);
	free(f->dest);
	memset(f, 0, sizeof(*f));
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                     */

/* A control character of an untrusted string shows as '?'. */
static char tbctl_safe_char(char c)
{
	return (unsigned char)c < 0x20 || c == 0x7f ? '?' : c;
}

void tbctl_fputs_safe(FILE *f, const char *s, int width)
{
	int n = 0;

	for (; *s; s++, n++)
		putc(tbctl_safe_char(*s), f);
	for (; n < width; n++)
		putc(' ', f);
}

void tbctl_fwrite_safe(FILE *f, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		putc(tbctl_safe_char(s[i]), f);
}

const char *tbctl_safe(const char *s, char *buf, size_t len)
{
	size_t i = 0;

	for (; len && s[i] && i < len - 1; i++)
		buf[i] = tbctl_safe_char(s[i]);
	if (len)
		buf[i] = '\0';
	return buf;
}

void tbctl_json_str(FILE *f, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n;

	putc('"', f);
	while (i < len) {
		unsigned char c = s[i];

		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (c < 0x20) {
				fprintf(f, "\\u%04x", c);
				break;
			}
			n = tracebuf_fxt_utf8_len(s + i, len - i);
			if (!n) {
				fputs("\\ufffd", f);
				break;
			}
			fwrite(s + i, 1, n, f);
			i += n;
			continue;
		}
		i++;
	}
	putc('"', f);
}

void tbctl_json_double(FILE *f, double d)
{
	if (isnan(d))
		fputs("\"NaN\"", f);
	else if (isinf(d))
		fputs(d < 0 ? "\"-Infinity\"" : "\"Infinity\"", f);
	else
		fprintf(f, "%.17g", d);
}
