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
 * Scheduling records (§4.2 type 8: what the kernel provider writes) have
 * no trace event of their own: they go, in time order, into
 * "systemTraceEvents", a string of ftrace's text output with the tgid
 * column, which Perfetto's JSON importer and chrome://tracing read as the
 * kernel's, after a "# tracer: nop" line.  The sample's (tests/sample.h)
 * context switch is the line
 *
 *	          worker-101     (    100) [001] .... 0.0000160005: sched_switch:
 *	prev_comm=worker prev_pid=101 prev_prio=120 prev_state=S ==>
 *	next_comm=swapper/1 next_pid=0 next_prio=120
 *
 * (one line here cut in three): the CPU the record names, the outgoing
 * thread the line's task.  A wake-up is two lines, sched_waking (which
 * Perfetto reads) and sched_wakeup with success=1 (which chrome://tracing
 * reads), the woken thread the line's task: the record does not name the
 * waker.  The outgoing state is ftrace's letter: running (still runnable:
 * preempted, or yielding) and new R, blocked S (FXT does not tell S from
 * D), suspended T, dying Z, dead X.  A priority is the record's weight
 * argument (the kernel provider writes the kernel's prio); 120 without
 * one, and for thread 0, the idle task: "<idle>" as a line's task,
 * swapper/CPU in the arguments, as ftrace writes it.  Names and pids come
 * from the kernel object records of the whole trace (those of the
 * record's provider first, the last one given): a name's whitespace
 * becomes '_' (Perfetto splits the arguments at spaces), control
 * characters and bytes that are not UTF-8 '?'; a thread no record names
 * is "<...>" with pid "-------".  A timestamp is the traceEvents' ns in
 * seconds with a 5 after the ns: Perfetto truncates seconds * 1e9, and
 * the half ns lands it on the ns its traceEvents have.
 *
 * What cannot be carried is counted and said in one warning line each:
 * scheduling records of an unknown type, or with a thread id above 32
 * bits (no Linux id; Perfetto refuses a whole systemTraceEvents for one),
 * are left out; switches of a thread the recording did not see (thread 0
 * with a weight that is not the idle one's, INT32_MIN) become the idle
 * task's; an outgoing state ftrace has no letter for is R; kernel object
 * records other than processes and threads are left out.
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

/* A scheduling record, kept for systemTraceEvents. */
struct convert_sched {
	uint64_t ns;
	uint64_t out, in;		/* thread koids: in is a wake-up's woken thread */
	size_t seq;			/* the order of the file */
	uint32_t provider;
	unsigned int cpu;
	int32_t out_prio, in_prio;	/* CONVERT_NO_PRIO: none, or the idle thread */
	unsigned int state;		/* a switch's outgoing state (TRACEBUF_LIB_FXT_THREAD_*) */
	bool wakeup;
};

/* A thread's name and process, from a kernel object record. */
struct convert_name {
	uint64_t tid, pid;
	size_t seq;
	uint32_t provider;
	struct tracebuf_reader_str name;	/* in the reader's input */
};

/* What systemTraceEvents could not carry (see the top of this file). */
struct convert_lost {
	uint64_t sched_types, sched_ids, hidden, states, kobj_types;
};

/* A weight that says nothing of a priority: none, or the idle thread's. */
#define CONVERT_NO_PRIO		INT32_MIN
/* What ftrace writes for the idle task, and a thread of no weight gets. */
#define CONVERT_PRIO_DEFAULT	120
/* The longest name a line gives a thread, in bytes (ftrace's are 15). */
#define CONVERT_COMM_MAX	255

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
	/* systemTraceEvents: what goes into it, written at the end */
	struct convert_sched *sched;
	size_t nsched, capsched;
	struct convert_name *names;
	size_t nnames, capnames;
	size_t seq;			/* records kept so far */
	struct convert_lost lost;
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

/* p, made room for one more than n elements of size bytes (cap of them): NULL if not. */
static void *convert_grow(void *p, size_t n, size_t *cap, size_t size)
{
	size_t ncap;
	void *np;

	if (n < *cap)
		return p;
	if (*cap > SIZE_MAX / 2 / size)
		return NULL;
	ncap = *cap ? *cap * 2 : 64;
	np = realloc(p, ncap * size);
	if (np)
		*cap = ncap;
	return np;
}

/* A thread kernel object record names a thread: 0 or -ENOMEM. */
static int convert_kobj(struct convert *c, const struct tracebuf_reader_record *rec)
{
	struct convert_name *n;
	uint64_t pid;

	if (rec->kobj.obj_type == TRACEBUF_LIB_FXT_OBJ_PROCESS) {
		convert_meta(c, "process_name", rec->kobj.koid, 0, rec->kobj.name);
		return 0;
	}
	if (rec->kobj.obj_type != TRACEBUF_LIB_FXT_OBJ_THREAD) {
		c->lost.kobj_types++;
		return 0;
	}
	pid = tbctl_kobj_thread_pid(rec);
	convert_meta(c, "thread_name", pid, rec->kobj.koid, rec->kobj.name);
	n = convert_grow(c->names, c->nnames, &c->capnames, sizeof(*n));
	if (!n)
		return -ENOMEM;
	c->names = n;
	n[c->nnames++] = (struct convert_name){
		.tid = rec->kobj.koid, .pid = pid, .seq = c->seq++,
		.provider = rec->provider_id, .name = rec->kobj.name,
	};
	return 0;
}

/* The int32 argument @name of @rec (a weight) in *@w: whether it has one. */
static bool convert_weight(const struct tracebuf_reader_record *rec, const char *name,
			   int32_t *w)
{
	size_t len = strlen(name);

	for (unsigned int i = 0; i < rec->nargs; i++) {
		const struct tracebuf_reader_arg *a = &rec->args[i];

		if (a->type == TRACEBUF_LIB_FXT_ARG_INT32 && a->name.len == len &&
		    !memcmp(a->name.data, name, len)) {
			*w = a->i32;
			return true;
		}
	}
	return false;
}

/*
 * Thread 0 of a context switch with a weight that is not the idle
 * thread's: a thread the recording did not see (module/ksched.c), which
 * ftrace's text can only show as the idle task.
 */
static bool convert_hidden(uint64_t tid, bool has_weight, int32_t weight)
{
	return !tid && has_weight && weight != CONVERT_NO_PRIO;
}

/* Keep a scheduling record for systemTraceEvents: 0 or -ENOMEM. */
static int convert_sched(struct convert *c, const struct tracebuf_reader_record *rec)
{
	struct convert_sched k = {
		.ns = rec->sched.ns, .provider = rec->provider_id, .cpu = rec->sched.cpu,
		.out = rec->sched.outgoing_koid, .in = rec->sched.incoming_koid,
		.state = rec->sched.outgoing_state,
		.out_prio = CONVERT_NO_PRIO, .in_prio = CONVERT_NO_PRIO,
	};
	struct convert_sched *n;
	bool out_w, in_w;

	switch (rec->sched.type) {
	case TRACEBUF_LIB_FXT_SCHED_LEGACY_SWITCH:
		k.out_prio = rec->sched.outgoing_priority;
		k.in_prio = rec->sched.incoming_priority;
		break;
	case TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH:
		out_w = convert_weight(rec, "outgoing_weight", &k.out_prio);
		in_w = convert_weight(rec, "incoming_weight", &k.in_prio);
		if (convert_hidden(k.out, out_w, k.out_prio) ||
		    convert_hidden(k.in, in_w, k.in_prio))
			c->lost.hidden++;
		break;
	case TRACEBUF_LIB_FXT_SCHED_THREAD_WAKEUP:
		k.wakeup = true;
		k.out = 0;
		convert_weight(rec, "weight", &k.in_prio);
		break;
	default:
		c->lost.sched_types++;
		return 0;
	}
	if (k.out > UINT32_MAX || k.in > UINT32_MAX) {
		c->lost.sched_ids++;
		return 0;
	}
	if (!k.wakeup && k.state > TRACEBUF_LIB_FXT_THREAD_DEAD)
		c->lost.states++;
	n = convert_grow(c->sched, c->nsched, &c->capsched, sizeof(*n));
	if (!n)
		return -ENOMEM;
	c->sched = n;
	k.seq = c->seq++;
	n[c->nsched++] = k;
	return 0;
}

static int convert_sched_cmp(const void *a, const void *b)
{
	const struct convert_sched *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int convert_name_cmp(const void *a, const void *b)
{
	const struct convert_name *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->provider != y->provider)
		return x->provider < y->provider ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * The name of thread @tid for a record of @provider (names sorted): the
 * last its provider gave, else the last any gave; NULL if none did.
 */
static const struct convert_name *convert_name_of(const struct convert *c, uint32_t provider,
						  uint64_t tid)
{
	const struct convert_name *best = NULL;
	size_t lo = 0, hi = c->nnames;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->names[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < c->nnames && c->names[i].tid == tid; i++) {
		const struct convert_name *n = &c->names[i];

		if (!best || (n->provider == provider && best->provider != provider) ||
		    ((n->provider == provider) == (best->provider == provider) &&
		     n->seq > best->seq))
			best = n;
	}
	return best;
}

/*
 * A thread's name as a line gives it, into @buf (CONVERT_COMM_MAX + 1):
 * the idle task's (@task: as a line's task, else as an argument), the
 * name its kernel object records gave it, or "<...>"; whitespace becomes
 * '_', control characters and bytes of no well-formed UTF-8 sequence
 * '?', so that it is one word of printable text.  Its pid into *@pid
 * unless NULL (0 if unknown).
 */
static const char *convert_comm(const struct convert *c, uint32_t provider, uint64_t tid,
				unsigned int cpu, bool task, char *buf, uint64_t *pid)
{
	const struct convert_name *n;
	const unsigned char *s;
	size_t len, i = 0, k;
	uint64_t unused;

	if (!pid)
		pid = &unused;
	*pid = 0;
	if (!tid) {
		if (task)
			snprintf(buf, CONVERT_COMM_MAX + 1, "<idle>");
		else
			snprintf(buf, CONVERT_COMM_MAX + 1, "swapper/%u", cpu);
		return buf;
	}
	n = convert_name_of(c, provider, tid);
	if (!n || !n->name.len) {
		snprintf(buf, CONVERT_COMM_MAX + 1, "<...>");
		if (n)
			*pid = n->pid;
		return buf;
	}
	*pid = n->pid;
	s = (const unsigned char *)n->name.data;
	len = n->name.len < CONVERT_COMM_MAX ? n->name.len : CONVERT_COMM_MAX;
	while (i < len) {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' ||
		    s[i] == '\v' || s[i] == '\f') {
			buf[i++] = '_';
			continue;
		}
		if (s[i] < 0x20 || s[i] == 0x7f) {
			buf[i++] = '?';
			continue;
		}
		k = tracebuf_fxt_utf8_len(s + i, len - i);
		if (!k) {
			buf[i++] = '?';
			continue;
		}
		memcpy(buf + i, s + i, k);
		i += k;
	}
	buf[i] = '\0';
	return buf;
}

/* Text of systemTraceEvents, inside its JSON string: only '"' and '\\' need escaping. */
static void convert_sys_put(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putc('\\', f);
		putc(*s, f);
	}
}

/* ftrace's letter for a context switch's outgoing state; NULL if none. */
static const char *convert_state(unsigned int state)
{
	static const char *const letters[] = {
		[TRACEBUF_LIB_FXT_THREAD_NEW] = "R",
		[TRACEBUF_LIB_FXT_THREAD_RUNNING] = "R",
		[TRACEBUF_LIB_FXT_THREAD_SUSPENDED] = "T",
		[TRACEBUF_LIB_FXT_THREAD_BLOCKED] = "S",
		[TRACEBUF_LIB_FXT_THREAD_DYING] = "Z",
		[TRACEBUF_LIB_FXT_THREAD_DEAD] = "X",
	};

	return state < TBCTL_ARRAY_SIZE(letters) ? letters[state] : NULL;
}

/* A priority: the weight, or ftrace's for the idle task (thread 0, or none given). */
static int32_t convert_prio(uint64_t tid, int32_t weight)
{
	return !tid || weight == CONVERT_NO_PRIO ? CONVERT_PRIO_DEFAULT : weight;
}

/*
 * One line of systemTraceEvents: thread @tid as its task (name, id and
 * pid), the CPU, no flags, the timestamp, then @what (the event's name,
 * ": " and its arguments).
 */
static void convert_sys_line(const struct convert *c, const struct convert_sched *k,
			     uint64_t tid, const char *what)
{
	char comm[CONVERT_COMM_MAX + 1], tgid[24] = "-------";
	char line[CONVERT_COMM_MAX + 3 * CONVERT_COMM_MAX + 512];
	uint64_t pid;

	convert_comm(c, k->provider, tid, k->cpu, true, comm, &pid);
	if (tid && pid && pid <= UINT32_MAX)
		snprintf(tgid, sizeof(tgid), "%" PRIu64, pid);
	snprintf(line, sizeof(line), "%16s-%-7" PRIu64 " (%7s) [%03u] .... %" PRIu64 ".%09u5: %s",
		 comm, tid, tgid, k->cpu, k->ns / 1000000000,
		 (unsigned int)(k->ns % 1000000000), what);
	convert_sys_put(c->f, line);
	fputs("\\n", c->f);
}

/* The line(s) of a scheduling record. */
static void convert_sys_event(const struct convert *c, const struct convert_sched *k)
{
	char out[CONVERT_COMM_MAX + 1], in[CONVERT_COMM_MAX + 1];
	char what[3 * CONVERT_COMM_MAX + 256];
	const char *state = convert_state(k->state);

	convert_comm(c, k->provider, k->in, k->cpu, false, in, NULL);
	if (k->wakeup) {
		snprintf(what, sizeof(what), "sched_waking: comm=%s pid=%" PRIu64 " prio=%" PRId32
			 " target_cpu=%03u", in, k->in, convert_prio(k->in, k->in_prio), k->cpu);
		convert_sys_line(c, k, k->in, what);
		snprintf(what, sizeof(what), "sched_wakeup: comm=%s pid=%" PRIu64 " prio=%" PRId32
			 " success=1 target_cpu=%03u", in, k->in, convert_prio(k->in, k->in_prio),
			 k->cpu);
		convert_sys_line(c, k, k->in, what);
		return;
	}
	convert_comm(c, k->provider, k->out, k->cpu, false, out, NULL);
	snprintf(what, sizeof(what), "sched_switch: prev_comm=%s prev_pid=%" PRIu64
		 " prev_prio=%" PRId32 " prev_state=%s ==> next_comm=%s next_pid=%" PRIu64
		 " next_prio=%" PRId32, out, k->out, convert_prio(k->out, k->out_prio),
		 state ? state : "R", in, k->in, convert_prio(k->in, k->in_prio));
	convert_sys_line(c, k, k->out, what);
}

/* "systemTraceEvents":"...", if the trace has scheduling records to carry. */
static void convert_system(struct convert *c)
{
	if (!c->nsched)
		return;
	qsort(c->sched, c->nsched, sizeof(*c->sched), convert_sched_cmp);
	if (c->nnames > 1)
		qsort(c->names, c->nnames, sizeof(*c->names), convert_name_cmp);
	fputs("\"systemTraceEvents\":\"# tracer: nop\\n#\\n", c->f);
	for (size_t i = 0; i < c->nsched; i++)
		convert_sys_event(c, &c->sched[i]);
	fputs("\",\n", c->f);
}

static const char *plural(uint64_t n, const char *many)
{
	return n == 1 ? "" : many;
}

/* One warning line for each kind of record the JSON could not carry. */
static void convert_warn(const struct convert_lost *l)
{
	if (l->sched_types)
		tbctl_err("warning: %" PRIu64 " scheduling record%s of an unknown type left out",
			  l->sched_types, plural(l->sched_types, "s"));
	if (l->sched_ids)
		tbctl_err("warning: %" PRIu64 " scheduling record%s naming a thread id above "
			  "4294967295 left out (ftrace's text has 32-bit ids)", l->sched_ids,
			  plural(l->sched_ids, "s"));
	if (l->hidden)
		tbctl_err("warning: %" PRIu64 " context switch%s of threads the recording did "
			  "not see (thread 0) written as the idle task's", l->hidden,
			  plural(l->hidden, "es"));
	if (l->states)
		tbctl_err("warning: %" PRIu64 " context switch%s with an outgoing thread state "
			  "ftrace has no letter for written as R (runnable)", l->states,
			  plural(l->states, "es"));
	if (l->kobj_types)
		tbctl_err("warning: %" PRIu64 " kernel object record%s of a type other than "
			  "process and thread left out", l->kobj_types,
			  plural(l->kobj_types, "s"));
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
			ret = convert_kobj(&c, rec);
			break;
		case TRACEBUF_LIB_FXT_RECORD_SCHEDULING:
			ret = convert_sched(&c, rec);
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
	fputs("\n],\n", f);
	if (!ret)
		convert_system(&c);
	fputs("\"displayTimeUnit\":\"ns\"}\n", f);
	if (!ret)
		convert_warn(&c.lost);
	free(c.pids);
	free(c.used);
	free(c.sched);
	free(c.names);
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
		"chrome://tracing, Perfetto's UI, speedscope...).  Context switches and\n"
		"wake-ups (the kernel provider's) go into its systemTraceEvents, as\n"
		"ftrace's text; a warning says what could not be carried.  OUT is\n"
		"written only if all of FILE converted: a file that is not a whole FXT\n"
		"trace (the magic record first, an empty file included) is an error.\n"
		"OUT may not be FILE itself; a FILE that is not a regular file needs -o.\n"
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
