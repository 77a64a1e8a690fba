// SPDX-License-Identifier: MIT
/*
 * tracebufctl convert: FXT to Chrome's trace-event JSON
 * (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKVnIsyO0),
 * the object form:
 *
 *	{"traceEvents":[
 *	{"ph":"B","ts":1.234,"pid":P,"tid":T,"cat":"c","name":"n","args":{...}},
 *	...
 *	],
 *	"displayTimeUnit":"ns"}
 *
 * one event per line.  Mapping:
 *
 *   instant i (thread scope)   counter C (numeric arguments only; id if
 *   not 0)   duration begin/end B/E   complete X (dur)   async
 *   begin/instant/end b/n/e (id)   flow begin/step/end s/t/f (id; f binds
 *   to the enclosing slice)   log record: i named "log" with the message
 *   kernel object thread: M thread_name (pid from its "process" argument)
 *   kernel object process: M process_name
 *   the first event of each pid: M process_name, the provider's name
 *   provider event "buffer overflow": i named "buffer overflow" in
 *   category TRACEBUF_LIB_META_CATEGORY, process scope, at the last event of that
 *   provider's section (global scope at the last event seen if its
 *   section had none), with the provider's name and id; the windows of
 *   dropped records are events of that category already (X "records
 *   dropped", with the count)
 *
 * ts and dur are microseconds with three decimals (exact from ns).
 * pid and tid are the process and thread koids.  Pointers are strings
 * "0x...", koids numbers, NaN and infinities strings.
 *
 * The output is written to a temporary file renamed over OUT only when
 * the whole input converted; corrupt input leaves nothing behind.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracebuf_reader.h>

#include "outfile.h"
#include "tracebufctl.h"
#include "util.h"

struct convert {
	FILE *f;
	unsigned long events;		/* written so far */
	uint64_t *pids;			/* process_name already written: a set
					 * (open addressing), npids of nslots
					 */
	bool *used;
	size_t npids, nslots;
	uint64_t seed;
	uint64_t last_pid;		/* pids[] holds it: the common case */
	bool have_last;
	/* the current provider section */
	bool overflow;			/* it has a buffer overflow event */
	uint32_t provider_id;
	char provider_name[TRACEBUF_NAME_MAX + 1];
	bool section_events;		/* it had an event: the two below */
	uint64_t section_ns, section_pid;
	uint64_t last_ns;		/* of any event */
};

static void convert_str(FILE *f, struct tracebuf_reader_str s)
{
	tbctl_json_str(f, s.data, s.len);
}

/* "ts":1.234 from ns */
static void convert_us(FILE *f, const char *key, uint64_t ns)
{
	fprintf(f, ",\"%s\":%" PRIu64 ".%03u", key, ns / 1000, (unsigned int)(ns % 1000));
}

/* The separator before the next event. */
static void convert_next(struct convert *c)
{
	fputs(c->events++ ? ",\n" : "\n", c->f);
}

/* An argument's value in JSON. */
static const struct tbctl_arg_style convert_arg_style = {
	.str = convert_str,
	.dbl = tbctl_json_double,
	.pointer = "\"0x%" PRIx64 "\"",
	.koid = "%" PRIu64,
	.blob = "\"<blob, %zu bytes>\"",
	.unknown = "\"<argument of type %u, %zu bytes>\"",
};

/* ,"args":{...}; only numeric ones if numeric_only. */
static void convert_args(FILE *f, const struct tracebuf_reader_record *rec, bool numeric_only)
{
	bool first = true;

	fputs(",\"args\":{", f);
	for (unsigned int i = 0; i < rec->nargs; i++) {
		const struct tracebuf_reader_arg *a = &rec->args[i];

		if (numeric_only && !tbctl_arg_numeric(a->type))
			continue;
		if (!first)
			putc(',', f);
		first = false;
		convert_str(f, a->name);
		putc(':', f);
		tbctl_print_arg(f, a, &convert_arg_style);
	}
	putc('}', f);
}

/* A metadata event: {"ph":"M","name":what,"pid":..,"tid":..,"args":{"name":name}} */
static void convert_meta(struct convert *c, const char *what, uint64_t pid, uint64_t tid,
			 struct tracebuf_reader_str name)
{
	convert_next(c);
	fprintf(c->f, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%" PRIu64 ",\"tid\":%" PRIu64
		",\"args\":{\"name\":", what, pid, tid);
	convert_str(c->f, name);
	fputs("}}", c->f);
}

/* The slot of @pid in the set: its own, or the free one where it goes. */
static size_t convert_pid_slot(const struct convert *c, uint64_t pid)
{
	size_t s = (size_t)tbctl_hash_mix(pid, c->seed) & (c->nslots - 1);

	while (c->used[s] && c->pids[s] != pid)
		s = (s + 1) & (c->nslots - 1);
	return s;
}

/* Double the set of pids (or make it); 0 or -ENOMEM. */
static int convert_pids_grow(struct convert *c)
{
	struct convert old = *c;

	if (c->nslots > SIZE_MAX / 2 / sizeof(*c->pids))
		return -ENOMEM;
	c->nslots = c->nslots ? c->nslots * 2 : 64;
	c->pids = calloc(c->nslots, sizeof(*c->pids));
	c->used = calloc(c->nslots, sizeof(*c->used));
	if (!c->pids || !c->used) {
		free(c->pids);
		free(c->used);
		*c = old;
		return -ENOMEM;
	}
	for (size_t i = 0; i < old.nslots; i++) {
		if (old.used[i]) {
			size_t s = convert_pid_slot(c, old.pids[i]);

			c->used[s] = true;
			c->pids[s] = old.pids[i];
		}
	}
	free(old.pids);
	free(old.used);
	return 0;
}

/* process_name from the provider's name, the first time pid shows up. */
static int convert_process(struct convert *c, const struct tracebuf_reader_record *rec,
			   uint64_t pid)
{
	size_t s;

	if (!rec->provider_name.len || (c->have_last && c->last_pid == pid))
		return 0;
	c->last_pid = pid;
	c->have_last = true;
	if (c->npids >= c->nslots / 2 && convert_pids_grow(c))
		return -ENOMEM;
	s = convert_pid_slot(c, pid);
	if (c->used[s])
		return 0;
	c->used[s] = true;
	c->pids[s] = pid;
	c->npids++;
	convert_meta(c, "process_name", pid, 0, rec->provider_name);
	return 0;
}

static int convert_event(struct convert *c, const struct tracebuf_reader_record *rec)
{
	static const char phases[] = {
		[TRACEBUF_LIB_FXT_EVENT_INSTANT] = 'i',
		[TRACEBUF_LIB_FXT_EVENT_COUNTER] = 'C',
		[TRACEBUF_LIB_FXT_EVENT_DURATION_BEGIN] = 'B',
		[TRACEBUF_LIB_FXT_EVENT_DURATION_END] = 'E',
		[TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE] = 'X',
		[TRACEBUF_LIB_FXT_EVENT_ASYNC_BEGIN] = 'b',
		[TRACEBUF_LIB_FXT_EVENT_ASYNC_INSTANT] = 'n',
		[TRACEBUF_LIB_FXT_EVENT_ASYNC_END] = 'e',
		[TRACEBUF_LIB_FXT_EVENT_FLOW_BEGIN] = 's',
		[TRACEBUF_LIB_FXT_EVENT_FLOW_STEP] = 't',
		[TRACEBUF_LIB_FXT_EVENT_FLOW_END] = 'f',
	};
	unsigned int type = rec->event.type;
	FILE *f = c->f;
	int ret;

	if (type >= sizeof(phases) || !phases[type])
		return 0;	/* an event type from the future: no Chrome equivalent */
	c->section_events = true;
	c->section_ns = rec->event.ns;
	c->section_pid = rec->event.process_koid;
	c->last_ns = rec->event.ns;
	ret = convert_process(c, rec, rec->event.process_koid);
	if (ret)
		return ret;
	convert_next(c);
	fprintf(f, "{\"ph\":\"%c\"", phases[type]);
	convert_us(f, "ts", rec->event.ns);
	fprintf(f, ",\"pid\":%" PRIu64 ",\"tid\":%" PRIu64 ",\"cat\":",
		rec->event.process_koid, rec->event.thread_koid);
	convert_str(f, rec->event.category);
	fputs(",\"name\":", f);
	convert_str(f, rec->event.name);
	switch (type) {
	case TRACEBUF_LIB_FXT_EVENT_INSTANT:
		fputs(",\"s\":\"t\"", f);
		break;
	case TRACEBUF_LIB_FXT_EVENT_COUNTER:
		if (rec->event.counter_id)
			fprintf(f, ",\"id\":\"0x%" PRIx64 "\"", rec->event.counter_id);
		break;
	case TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE:
		convert_us(f, "dur", rec->event.end_ns > rec->event.ns ?
				     rec->event.end_ns - rec->event.ns : 0);
		break;
	case TRACEBUF_LIB_FXT_EVENT_ASYNC_BEGIN:
	case TRACEBUF_LIB_FXT_EVENT_ASYNC_INSTANT:
	case TRACEBUF_LIB_FXT_EVENT_ASYNC_END:
		fprintf(f, ",\"id\":\"0x%" PRIx64 "\"", rec->event.async_id);
		break;
	case TRACEBUF_LIB_FXT_EVENT_FLOW_END:
		fputs(",\"bp\":\"e\"", f);
		/* fall through */
	case TRACEBUF_LIB_FXT_EVENT_FLOW_BEGIN:
	case TRACEBUF_LIB_FXT_EVENT_FLOW_STEP:
		fprintf(f, ",\"id\":\"0x%" PRIx64 "\"", rec->event.flow_id);
		break;
	default:
		break;
	}
	convert_args(f, rec, type == TRACEBUF_LIB_FXT_EVENT_COUNTER);
	putc('}', f);
	return 0;
}

static void convert_kobj(struct convert *c, const struct tracebuf_reader_record *rec)
{
	if (rec->kobj.obj_type == TRACEBUF_LIB_FXT_OBJ_PROCESS) {
		convert_meta(c, "process_name", rec->kobj.koid, 0, rec->kobj.name);
		return;
	}
	if (rec->kobj.obj_type != TRACEBUF_LIB_FXT_OBJ_THREAD)
		return;
	convert_meta(c, "thread_name", tbctl_kobj_thread_pid(rec), rec->kobj.koid,
		     rec->kobj.name);
}

static int convert_log(struct convert *c, const struct tracebuf_reader_record *rec)
{
	int ret = convert_process(c, rec, rec->log.process_koid);

	if (ret)
		return ret;
	convert_next(c);
	fputs("{\"ph\":\"i\",\"s\":\"t\"", c->f);
	convert_us(c->f, "ts", rec->log.ns);
	fprintf(c->f, ",\"pid\":%" PRIu64 ",\"tid\":%" PRIu64
		",\"cat\":\"log\",\"name\":\"log\",\"args\":{\"message\":",
		rec->log.process_koid, rec->log.thread_koid);
	convert_str(c->f, rec->log.message);
	fputs("}}", c->f);
	return 0;
}

/* The buffer overflow of the section that ends, if it had one. */
static void convert_overflow(struct convert *c)
{
	if (!c->overflow)
		return;
	c->overflow = false;
	convert_next(c);
	fprintf(c->f, "{\"ph\":\"i\",\"s\":\"%s\"", c->section_events ? "p" : "g");
	convert_us(c->f, "ts", c->section_events ? c->section_ns : c->last_ns);
	fprintf(c->f, ",\"pid\":%" PRIu64 ",\"tid\":%" PRIu64
		",\"cat\":\"" TRACEBUF_LIB_META_CATEGORY "\",\"name\":\"buffer overflow\""
		",\"args\":{\"provider\":",
		c->section_events ? c->section_pid : 0, c->section_events ? c->section_pid : 0);
	tbctl_json_str(c->f, c->provider_name, strlen(c->provider_name));
	fprintf(c->f, ",\"provider_id\":%u}}", c->provider_id);
}

static void convert_metadata(struct convert *c, const struct tracebuf_reader_record *rec)
{
	switch (rec->meta.type) {
	case TRACEBUF_LIB_FXT_META_PROVIDER_INFO:
	case TRACEBUF_LIB_FXT_META_PROVIDER_SECTION:
		convert_overflow(c);
		c->provider_id = rec->meta.provider_id;
		snprintf(c->provider_name, sizeof(c->provider_name), "%.*s",
			 (int)rec->provider_name.len,
			 rec->provider_name.data ? rec->provider_name.data : "");
		c->section_events = false;
		break;
	case TRACEBUF_LIB_FXT_META_PROVIDER_EVENT:
		if (rec->meta.event == TRACEBUF_LIB_FXT_PROVIDER_EVENT_BUFFER_OVERFLOW &&
		    rec->meta.provider_id == c->provider_id)
			c->overflow = true;
		break;
	default:
		break;
	}
}

/*
 * All of r into f.  Return: 0; -EBADMSG (or the reader's error) with err
 * set; -ENOMEM.
 */
static int convert_run(struct tracebuf_reader *r, FILE *f, const char *file,
		       char *err, size_t errlen)
{
	struct convert c = { .f = f, .seed = tbctl_hash_seed() };
	struct tracebuf_reader_record *rec;
	int ret;

	rec = malloc(sizeof(*rec));
	if (!rec) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	fputs("{\"traceEvents\":[", f);
	while ((ret = tracebuf_reader_next(r, rec)) > 0) {
		switch (rec->type) {
		case TRACEBUF_LIB_FXT_RECORD_EVENT:
			ret = convert_event(&c, rec);
			break;
		case TRACEBUF_LIB_FXT_RECORD_KERNEL_OBJECT:
			convert_kobj(&c, rec);
			ret = 0;
			break;
		case TRACEBUF_LIB_FXT_RECORD_LOG:
			ret = convert_log(&c, rec);
			break;
		case TRACEBUF_LIB_FXT_RECORD_METADATA:
			convert_metadata(&c, rec);
			ret = 0;
			break;
		default:
			ret = 0;
			break;
		}
		if (ret) {
			snprintf(err, errlen, "out of memory");
			break;
		}
	}
	if (ret < 0 && !*err)
		snprintf(err, errlen, "%s: %s at offset %zu", file, tracebuf_reader_error(r),
			 tracebuf_reader_error_offset(r));
	convert_overflow(&c);
	fputs("\n],\n\"displayTimeUnit\":\"ns\"}\n", f);
	free(c.pids);
	free(c.used);
	free(rec);
	return ret;
}

/* FILE with .fxt replaced by .json (or .json appended); malloc'd. */
static char *convert_default_output(const char *file)
{
	size_t len = strlen(file);
	enum tbctl_z z = tbctl_z_by_name(file);
	char *out;

	/* t.fxt, t.fxt.gz, t.fxt.zst: t.json */
	if (z != TBCTL_Z_NONE)
		len = strrchr(file, '.') - file;
	if (len > 4 && !strncmp(file + len - 4, ".fxt", 4))
		len -= 4;
	out = malloc(len + sizeof(".json"));
	if (out) {
		memcpy(out, file, len);
		memcpy(out + len, ".json", sizeof(".json"));
	}
	return out;
}

/*
 * Whether FILE's own path names a regular file, which a default output
 * may be named after: a regular file, or a link to one outside /dev and
 * /proc (/dev/stdin, /dev/fd/N and /proc/self/fd/N name a descriptor,
 * not a place for a .json).
 */
static bool convert_names_a_file(const char *file, const struct stat *in)
{
	struct stat l;

	if (!S_ISREG(in->st_mode) || lstat(file, &l))
		return false;
	return S_ISREG(l.st_mode) ||
	       (S_ISLNK(l.st_mode) && strncmp(file, "/dev/", 5) && strncmp(file, "/proc/", 6));
}

/*
 * Refuse what would destroy or invent data: an output that is the input
 * (the same file by any name), and, with no -o, an input whose path does
 * not name a regular file (/dev/null would make /dev/null.json, and
 * /dev/stdin /dev/stdin.json).  0 or -errno after a message.
 */
static int convert_check_paths(const char *file, const char *out)
{
	struct stat in, o;

	if (!strcmp(file, "-"))
		return 0;
	if (stat(file, &in)) {
		tbctl_err("%s: %s", file, strerror(errno));
		return -errno;
	}
	if (!out && !convert_names_a_file(file, &in)) {
		tbctl_err("%s: not a regular file: name the output with -o (- for standard "
			  "output)", file);
		return -EINVAL;
	}
	if (out && strcmp(out, "-") && !stat(out, &o) && o.st_dev == in.st_dev &&
	    o.st_ino == in.st_ino) {
		tbctl_err("%s: is the input %s: refusing to overwrite it", out, file);
		return -EINVAL;
	}
	return 0;
}

static void convert_usage(FILE *f)
{
	fprintf(f,
		"Usage: " TBCTL_PROG " convert FILE [-o OUT]\n"
		"\n"
		"Convert the FXT trace FILE to Chrome's trace-event JSON (for\n"
		"chrome://tracing, Perfetto's UI, speedscope...).  OUT is written only\n"
		"if all of FILE converted: a file that is not a whole FXT trace (the\n"
		"magic record first, an empty file included) is an error.  OUT may not\n"
		"be FILE itself; a FILE that is not a regular file needs -o.\n"
		"\n"
		"Options:\n"
		"  -o, --output OUT   the JSON file (default: FILE with .fxt replaced by\n"
		"                     .json; - for standard output)\n"
		"  -h, --help         print this help and exit\n");
}

static const struct tbctl_opt convert_opts[] = {
	{ "output", 'o', TBCTL_REQ_ARG, 'o' },
	{ "help", 'h', TBCTL_NO_ARG, 'h' },
	{ 0 }
};

int cmd_convert(struct tbctl_ctx *ctx, int argc, char **argv)
{
	struct tbctl_getopt g = {
		.argc = argc, .argv = argv, .ind = 1, .args_after_dashdash = true,
	};
	const char *file = NULL, *out = NULL;
	char err[256] = "", msg[200], *def = NULL;
	struct tracebuf_reader *r = NULL;
	struct tbctl_file tf;
	FILE *f = NULL;
	int ret, fd;

	(void)ctx;
	while ((ret = tbctl_getopt(&g, convert_opts, err, sizeof(err))) != TBCTL_GETOPT_END) {
		switch (ret) {
		case 'o':
			if (!*g.arg)
				return tbctl_usage_err("convert", "convert: empty output file name");
			out = g.arg;
			break;
		case 'h':
			convert_usage(stdout);
			return 0;
		case TBCTL_GETOPT_ARG:
			if (file) {
				snprintf(msg, sizeof(msg), "convert: unexpected argument '%s'", g.arg);
				return tbctl_usage_err("convert", msg);
			}
			file = g.arg;
			break;
		default:
			snprintf(msg, sizeof(msg), "convert: %s", err);
			return tbctl_usage_err("convert", msg);
		}
	}
	err[0] = '\0';
	if (!file)
		return tbctl_usage_err("convert", "convert: missing FILE");
	ret = convert_check_paths(file, out);
	if (ret)
		return ret;
	if (!out) {
		if (!strcmp(file, "-")) {
			out = "-";
		} else {
			def = convert_default_output(file);
			if (!def) {
				tbctl_err("out of memory");
				return -ENOMEM;
			}
			out = def;
		}
	}
	ret = tbctl_reader_open(file, TRACEBUF_LIB_READER_MAGIC, &r);
	if (ret)
		goto out;
	if (!strcmp(out, "-")) {
		ret = convert_run(r, stdout, file, err, sizeof(err));
		if (ret)
			tbctl_err("%s", err);
		else if (fflush(stdout)) {
			ret = -errno;
			tbctl_err("write error: %s", strerror(-ret));
		}
		goto out;
	}
	fd = tbctl_file_create(out, &tf);
	if (fd < 0) {
		ret = fd;
		tbctl_file_err(out, fd);
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		tbctl_err("%s: %s", out, strerror(-ret));
		goto out_unlink;
	}
	ret = convert_run(r, f, file, err, sizeof(err));
	if (ret) {
		fclose(f);
		tbctl_err("%s", err);
		goto out_unlink;
	}
	errno = 0;
	if (fflush(f) || ferror(f) || (errno = -tbctl_file_sync(&tf, fileno(f)))) {
		ret = errno ? -errno : -EIO;
		fclose(f);
		tbctl_err("%s: %s", out, strerror(-ret));
		goto out_unlink;
	}
	if (fclose(f)) {
		ret = -errno;
		tbctl_err("%s: %s", out, strerror(-ret));
		goto out_unlink;
	}
	ret = tbctl_file_commit(&tf);
	if (ret)
		tbctl_err("%s: %s", out, strerror(-ret));
	goto out;

out_unlink:
	tbctl_file_abort(&tf);
out:
	free(def);
	tracebuf_reader_close(r);
	return ret;
}
