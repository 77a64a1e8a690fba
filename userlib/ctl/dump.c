// SPDX-License-Identifier: MIT
/*
 * tracebufctl dump: one line per FXT record, as the reader decodes it:
 *
 *	OFFSET TYPE FIELDS... size=BYTES [| ARGUMENTS...]
 *
 * OFFSET is the record's byte offset in the file (decimal, as in error
 * messages), TYPE the record type, FIELDS "key=value" words, then the
 * record's arguments "name=value" after a "|"; strings are quoted with C
 * escapes.  Corrupt input: the records before the damage
 * are printed, then one error line, and the exit status is 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <tracebuf_reader.h>

#include "tracebufctl.h"
#include "util.h"

/* A string, valid UTF-8 as is, the rest escaped; quoted if quote. */
static void dump_esc(FILE *f, struct tracebuf_reader_str s, bool quote)
{
	const unsigned char *p = (const unsigned char *)s.data;
	size_t i = 0, n;

	if (quote)
		putc('"', f);
	while (i < s.len) {
		unsigned char c = p[i];

		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else if (c < 0x20 || c == 0x7f || (!quote && (c == ' ' || c == '='))) {
			fprintf(f, "\\x%02x", c);
		} else if (c < 0x80) {
			putc(c, f);
		} else if ((n = tracebuf_fxt_utf8_len(p + i, s.len - i))) {
			fwrite(p + i, 1, n, f);
			i += n;
			continue;
		} else {
			fprintf(f, "\\x%02x", c);
		}
		i++;
	}
	if (quote)
		putc('"', f);
}

static void dump_str(FILE *f, struct tracebuf_reader_str s)
{
	dump_esc(f, s, true);
}

static void dump_double(FILE *f, double d)
{
	fprintf(f, "%.17g", d);
}

/* An argument's value as dump prints it. */
static const struct tbctl_arg_style dump_arg_style = {
	.str = dump_str,
	.dbl = dump_double,
	.pointer = "0x%" PRIx64,
	.koid = "koid:%" PRIu64,
	.blob = "blob[%zu]",
	.blob_hex = 64,
	.unknown = "?type%u[%zu]",
};

/*
 * A scheduling record's thread weight (incoming_weight, outgoing_weight,
 * weight: what Perfetto shows as a priority): INT32_MIN stands for the
 * idle thread (module/ksched.c, as Perfetto's FXT importer reads it).
 */
static bool dump_idle_weight(const struct tracebuf_reader_arg *a)
{
	static const char *const names[] = { "incoming_weight", "outgoing_weight", "weight" };

	if (a->type != TRACEBUF_LIB_FXT_ARG_INT32 || a->i32 != INT32_MIN)
		return false;
	for (size_t i = 0; i < TBCTL_ARRAY_SIZE(names); i++)
		if (a->name.len == strlen(names[i]) && !memcmp(a->name.data, names[i], a->name.len))
			return true;
	return false;
}

/*
 * The arguments, after the record's own fields and a " |", so that an
 * argument named as a field (size, name...) is not taken for it.
 */
static void dump_args(FILE *f, const struct tracebuf_reader_record *rec, bool sched)
{
	if (!rec->nargs)
		return;
	fputs(" |", f);
	for (unsigned int i = 0; i < rec->nargs; i++) {
		const struct tracebuf_reader_arg *a = &rec->args[i];

		putc(' ', f);
		dump_esc(f, a->name, false);
		putc('=', f);
		if (sched && dump_idle_weight(a))
			fputs("idle", f);
		else
			tbctl_print_arg(f, a, &dump_arg_style);
	}
}

static const char *dump_event_type(unsigned int type)
{
	static const char *const names[] = {
		[TRACEBUF_LIB_FXT_EVENT_INSTANT] = "instant",
		[TRACEBUF_LIB_FXT_EVENT_COUNTER] = "counter",
		[TRACEBUF_LIB_FXT_EVENT_DURATION_BEGIN] = "begin",
		[TRACEBUF_LIB_FXT_EVENT_DURATION_END] = "end",
		[TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE] = "complete",
		[TRACEBUF_LIB_FXT_EVENT_ASYNC_BEGIN] = "async-begin",
		[TRACEBUF_LIB_FXT_EVENT_ASYNC_INSTANT] = "async-instant",
		[TRACEBUF_LIB_FXT_EVENT_ASYNC_END] = "async-end",
		[TRACEBUF_LIB_FXT_EVENT_FLOW_BEGIN] = "flow-begin",
		[TRACEBUF_LIB_FXT_EVENT_FLOW_STEP] = "flow-step",
		[TRACEBUF_LIB_FXT_EVENT_FLOW_END] = "flow-end",
	};

	return type < TBCTL_ARRAY_SIZE(names) && names[type] ? names[type] : NULL;
}

static void dump_event(FILE *f, const struct tracebuf_reader_record *rec)
{
	const char *type = dump_event_type(rec->event.type);

	if (type)
		fprintf(f, " %s", type);
	else
		fprintf(f, " type=%u", rec->event.type);
	fprintf(f, " provider=%" PRIu32 " ts=%" PRIu64 " pid=%" PRIu64 " tid=%" PRIu64 " cat=",
		rec->provider_id, rec->event.ns, rec->event.process_koid,
		rec->event.thread_koid);
	dump_str(f, rec->event.category);
	fputs(" name=", f);
	dump_str(f, rec->event.name);
	switch (rec->event.type) {
	case TRACEBUF_LIB_FXT_EVENT_COUNTER:
		fprintf(f, " counter=%" PRIu64, rec->event.counter_id);
		break;
	case TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE:
		fprintf(f, " end=%" PRIu64, rec->event.end_ns);
		break;
	case TRACEBUF_LIB_FXT_EVENT_ASYNC_BEGIN:
	case TRACEBUF_LIB_FXT_EVENT_ASYNC_INSTANT:
	case TRACEBUF_LIB_FXT_EVENT_ASYNC_END:
		fprintf(f, " async=0x%" PRIx64, rec->event.async_id);
		break;
	case TRACEBUF_LIB_FXT_EVENT_FLOW_BEGIN:
	case TRACEBUF_LIB_FXT_EVENT_FLOW_STEP:
	case TRACEBUF_LIB_FXT_EVENT_FLOW_END:
		fprintf(f, " flow=0x%" PRIx64, rec->event.flow_id);
		break;
	default:
		break;
	}
}

/* The name of a context switch's outgoing thread state, or NULL. */
static const char *dump_thread_state(unsigned int state)
{
	static const char *const names[] = {
		[TRACEBUF_LIB_FXT_THREAD_NEW] = "new",
		[TRACEBUF_LIB_FXT_THREAD_RUNNING] = "running",
		[TRACEBUF_LIB_FXT_THREAD_SUSPENDED] = "suspended",
		[TRACEBUF_LIB_FXT_THREAD_BLOCKED] = "blocked",
		[TRACEBUF_LIB_FXT_THREAD_DYING] = "dying",
		[TRACEBUF_LIB_FXT_THREAD_DEAD] = "dead",
	};

	return state < TBCTL_ARRAY_SIZE(names) ? names[state] : NULL;
}

static void dump_sched(FILE *f, const struct tracebuf_reader_record *rec)
{
	const char *state = dump_thread_state(rec->sched.outgoing_state);

	switch (rec->sched.type) {
	case TRACEBUF_LIB_FXT_SCHED_LEGACY_SWITCH:
	case TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH:
		fprintf(f, " %s provider=%" PRIu32 " ts=%" PRIu64 " cpu=%u out=%" PRIu64,
			rec->sched.type ? "switch" : "legacy-switch", rec->provider_id,
			rec->sched.ns, rec->sched.cpu, rec->sched.outgoing_koid);
		if (state)
			fprintf(f, " state=%s", state);
		else
			fprintf(f, " state=%u", rec->sched.outgoing_state);
		fprintf(f, " in=%" PRIu64, rec->sched.incoming_koid);
		if (!rec->sched.type)
			fprintf(f, " out_prio=%d in_prio=%d", rec->sched.outgoing_priority,
				rec->sched.incoming_priority);
		break;
	case TRACEBUF_LIB_FXT_SCHED_THREAD_WAKEUP:
		fprintf(f, " wakeup provider=%" PRIu32 " ts=%" PRIu64 " cpu=%u tid=%" PRIu64,
			rec->provider_id, rec->sched.ns, rec->sched.cpu, rec->sched.incoming_koid);
		break;
	default:
		fprintf(f, " type=%u", rec->sched.type);
		return;
	}
}

static void dump_meta(FILE *f, const struct tracebuf_reader_record *rec)
{
	switch (rec->meta.type) {
	case TRACEBUF_LIB_FXT_META_PROVIDER_INFO:
		fprintf(f, " provider-info id=%" PRIu32 " name=", rec->meta.provider_id);
		dump_str(f, rec->meta.name);
		break;
	case TRACEBUF_LIB_FXT_META_PROVIDER_SECTION:
		fprintf(f, " provider-section id=%" PRIu32, rec->meta.provider_id);
		break;
	case TRACEBUF_LIB_FXT_META_PROVIDER_EVENT:
		fprintf(f, " provider-event id=%" PRIu32, rec->meta.provider_id);
		if (rec->meta.event == TRACEBUF_LIB_FXT_PROVIDER_EVENT_BUFFER_OVERFLOW)
			fputs(" event=buffer-overflow", f);
		else
			fprintf(f, " event=%u", rec->meta.event);
		break;
	case TRACEBUF_LIB_FXT_META_TRACE_INFO:
		if (rec->meta.trace_info_type == TRACEBUF_LIB_FXT_TRACE_INFO_MAGIC)
			fprintf(f, " magic value=0x%" PRIx64, rec->meta.trace_info);
		else
			fprintf(f, " trace-info type=%u value=0x%" PRIx64,
				rec->meta.trace_info_type, rec->meta.trace_info);
		break;
	default:
		fprintf(f, " type=%u", rec->meta.type);
		break;
	}
}

/*
 * Padding: an unnamed data blob whose payload fills the record, as a
 * writer fills a gap with (libtracebuf's engine and the kernel provider
 * the end of a chunk).  tracebufctl leaves it out of what it writes, but
 * for the few bytes that end a fast writer's chunk; a trace written
 * elsewhere may hold much.  Its payload is whatever the writer's buffer
 * held before: labelled, not shown.
 */
static bool dump_is_padding(const struct tracebuf_reader_record *rec)
{
	return rec->type == TRACEBUF_LIB_FXT_RECORD_BLOB &&
	       rec->blob.type == TRACEBUF_LIB_FXT_BLOB_DATA && !rec->blob.name.len &&
	       rec->blob.payload.len + 8 == rec->size;
}

static void dump_record(FILE *f, const struct tracebuf_reader_record *rec)
{
	static const char *const types[] = {
		[TRACEBUF_LIB_FXT_RECORD_METADATA] = "metadata",
		[TRACEBUF_LIB_FXT_RECORD_INIT] = "init",
		[TRACEBUF_LIB_FXT_RECORD_STRING] = "string",
		[TRACEBUF_LIB_FXT_RECORD_THREAD] = "thread",
		[TRACEBUF_LIB_FXT_RECORD_EVENT] = "event",
		[TRACEBUF_LIB_FXT_RECORD_BLOB] = "blob",
		[TRACEBUF_LIB_FXT_RECORD_USERSPACE_OBJECT] = "uobject",
		[TRACEBUF_LIB_FXT_RECORD_KERNEL_OBJECT] = "kobject",
		[TRACEBUF_LIB_FXT_RECORD_SCHEDULING] = "scheduling",
		[TRACEBUF_LIB_FXT_RECORD_LOG] = "log",
		[TRACEBUF_LIB_FXT_RECORD_LARGE] = "large",
	};

	fprintf(f, "%8zu ", rec->offset);
	if (dump_is_padding(rec)) {
		fprintf(f, "padding size=%zu\n", rec->size);
		return;
	}
	if (rec->type < TBCTL_ARRAY_SIZE(types) && types[rec->type])
		fputs(types[rec->type], f);
	else
		fprintf(f, "type%u", rec->type);
	switch (rec->type) {
	case TRACEBUF_LIB_FXT_RECORD_METADATA:
		dump_meta(f, rec);
		break;
	case TRACEBUF_LIB_FXT_RECORD_INIT:
		fprintf(f, " ticks_per_second=%" PRIu64, rec->init.ticks_per_second);
		break;
	case TRACEBUF_LIB_FXT_RECORD_STRING:
		fprintf(f, " index=%u ", rec->string.index);
		dump_str(f, rec->string.str);
		break;
	case TRACEBUF_LIB_FXT_RECORD_THREAD:
		fprintf(f, " index=%u pid=%" PRIu64 " tid=%" PRIu64, rec->thread.index,
			rec->thread.process_koid, rec->thread.thread_koid);
		break;
	case TRACEBUF_LIB_FXT_RECORD_EVENT:
		dump_event(f, rec);
		break;
	case TRACEBUF_LIB_FXT_RECORD_BLOB:
		fprintf(f, " type=%u name=", rec->blob.type);
		dump_str(f, rec->blob.name);
		fprintf(f, " payload=%zu", rec->blob.payload.len);
		break;
	case TRACEBUF_LIB_FXT_RECORD_USERSPACE_OBJECT:
		fprintf(f, " pointer=0x%" PRIx64 " pid=%" PRIu64 " name=", rec->uobj.pointer,
			rec->uobj.process_koid);
		dump_str(f, rec->uobj.name);
		break;
	case TRACEBUF_LIB_FXT_RECORD_KERNEL_OBJECT:
		if (rec->kobj.obj_type == TRACEBUF_LIB_FXT_OBJ_PROCESS)
			fputs(" process", f);
		else if (rec->kobj.obj_type == TRACEBUF_LIB_FXT_OBJ_THREAD)
			fputs(" thread", f);
		else
			fprintf(f, " type=%u", rec->kobj.obj_type);
		fprintf(f, " koid=%" PRIu64 " name=", rec->kobj.koid);
		dump_str(f, rec->kobj.name);
		break;
	case TRACEBUF_LIB_FXT_RECORD_SCHEDULING:
		dump_sched(f, rec);
		break;
	case TRACEBUF_LIB_FXT_RECORD_LOG:
		fprintf(f, " provider=%" PRIu32 " ts=%" PRIu64 " pid=%" PRIu64 " tid=%" PRIu64
			" message=", rec->provider_id, rec->log.ns, rec->log.process_koid,
			rec->log.thread_koid);
		dump_str(f, rec->log.message);
		break;
	default:
		break;
	}
	fprintf(f, " size=%zu", rec->size);
	switch (rec->type) {
	case TRACEBUF_LIB_FXT_RECORD_EVENT:
	case TRACEBUF_LIB_FXT_RECORD_USERSPACE_OBJECT:
	case TRACEBUF_LIB_FXT_RECORD_KERNEL_OBJECT:
		dump_args(f, rec, false);
		break;
	case TRACEBUF_LIB_FXT_RECORD_SCHEDULING:
		dump_args(f, rec, true);
		break;
	default:
		break;
	}
	putc('\n', f);
}

static void dump_usage(FILE *f)
{
	fprintf(f,
		"Usage: " TBCTL_PROG " dump FILE\n"
		"\n"
		"Print the records of the FXT trace FILE (- for standard input), one\n"
		"line each: offset, record type, decoded fields as key=value, the\n"
		"record's size=BYTES, then after a '|' its arguments as name=value.\n"
		"Events show their provider id, timestamp in ns, pid and tid,\n"
		"category and name; context switches their CPU, the outgoing thread\n"
		"and its state, the incoming thread; wakeups their CPU and the woken\n"
		"thread (a weight of the idle thread shows as 'idle').  Padding (an\n"
		"unnamed data blob whose payload fills it, over what the writer's\n"
		"buffer held before) shows as 'padding size=BYTES'.  A file that\n"
		"does not begin with the FXT magic record prints no record; a damaged\n"
		"one prints the records before the damage; either then prints an\n"
		"error naming the offset (exit status 1).\n"
		"\n"
		"Options:\n"
		"  -h, --help   print this help and exit\n");
}

static const struct tbctl_opt dump_opts[] = {
	{ "help", 'h', TBCTL_NO_ARG, 'h' },
	{ 0 }
};

int cmd_dump(struct tbctl_ctx *ctx, int argc, char **argv)
{
	struct tbctl_getopt g = {
		.argc = argc, .argv = argv, .ind = 1, .args_after_dashdash = true,
	};
	struct tracebuf_reader_record *rec;
	struct tracebuf_reader *r;
	const char *file = NULL;
	char err[160], msg[200];
	int ret;

	(void)ctx;
	while ((ret = tbctl_getopt(&g, dump_opts, err, sizeof(err))) != TBCTL_GETOPT_END) {
		switch (ret) {
		case 'h':
			dump_usage(stdout);
			return 0;
		case TBCTL_GETOPT_ARG:
			if (file) {
				snprintf(msg, sizeof(msg), "dump: unexpected argument '%s'", g.arg);
				return tbctl_usage_err("dump", msg);
			}
			file = g.arg;
			break;
		default:
			snprintf(msg, sizeof(msg), "dump: %s", err);
			return tbctl_usage_err("dump", msg);
		}
	}
	if (!file)
		return tbctl_usage_err("dump", "dump: missing FILE");
	/* not FXT at all: nothing is printed */
	ret = tbctl_reader_open(file, TRACEBUF_LIB_READER_MAGIC, &r);
	if (ret)
		return ret;
	/* a record is large (15 arguments); keep it off the stack */
	rec = malloc(sizeof(*rec));
	if (!rec) {
		tracebuf_reader_close(r);
		tbctl_err("out of memory");
		return -ENOMEM;
	}
	while ((ret = tracebuf_reader_next(r, rec)) > 0)
		dump_record(stdout, rec);
	if (ret < 0)
		tbctl_err("%s: %s at offset %zu", file, tracebuf_reader_error(r),
			  tracebuf_reader_error_offset(r));
	free(rec);
	tracebuf_reader_close(r);
	if (!ret && fflush(stdout)) {
		ret = -errno;
		tbctl_err("write error: %s", strerror(-ret));
	}
	return ret;
}
