// SPDX-License-Identifier: MIT
/*
 * tracebufctl report: what an FXT trace holds, without a browser.
 *
 * Per provider and per thread (process and thread koid):
 *
 *   slices     duration begin/end pairs and complete events, by
 *              category:name: count, total, mean, min, p50, p99 and max
 *              duration, and how many were begun but never ended
 *   instants   by category:name: count
 *
 * and per provider:
 *
 *   sched      per thread of its scheduling records (§4.2 type 8, what
 *              the kernel provider writes): the CPU time, the context
 *              switches that brought it in and took it out, its
 *              wake-ups; its name and pid from the provider's kernel
 *              object records
 *   counters   by category:name, counter id and argument (the numeric
 *              ones): count, min, max and the last value (by timestamp)
 *   async      async begin/end pairs, matched by pid, category, name and
 *              id, by category:name: as slices
 *   drops      the windows of dropped records libtracebuf wrote
 *              (tracebuf_reader_drop_window(): their count, the records
 *              dropped, the time they span) and Fuchsia's "buffer
 *              overflow" provider events
 *
 * CPU time.  A thread runs on a CPU from the switch that brings it in to
 * the next switch on that CPU, in the order of their timestamps (then of
 * the file), when that switch takes it out; if it takes out another
 * thread, a switch was lost in between and the time is no one's.  The
 * time before a CPU's first switch and after its last is not counted:
 * the trace does not say who ran then.  Thread 0 is the idle task (and
 * any thread the recording did not see: module/ksched.c).
 *
 * Matching.  Begins and ends are paired in the order of their timestamps
 * (then of the file), not of the file alone: a trace holds each thread's
 * chunks of records one after the other, so an async span that ends on
 * another thread may end in the file before it begins.  A duration end
 * closes the innermost open begin of its thread with its category and
 * name (an end without a name: the innermost one) among the
 * REPORT_MATCH_DEPTH innermost; the begins it passes on the way are never
 * ended.  An end that closes nothing is counted for its thread, an async
 * end that closes nothing for its provider.  Whatever is still open when
 * the trace ends is counted as unterminated.  An end before its begin
 * lasts 0 ns, as convert writes it.  Flows, async instants and log
 * records are not counted.
 *
 * Percentiles are exact: every duration of a row is kept, then sorted;
 * pN is the nearest rank, the ceil(N% * count)-th smallest.  Totals
 * saturate at 2^64 - 1 ns.  Timestamps are the reader's, in ns with each
 * provider's ticks per second.
 *
 * Every row, whatever its kind, is an entry of one array, found by its key
 * through one hash table; printing sorts pointers to them (the view) so
 * that each provider's rows follow it, grouped as printed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <tracebuf_reader.h>

#include "tracebufctl.h"
#include "util.h"

/* How deep under the innermost open begin of a thread an end looks for its own. */
#define REPORT_MATCH_DEPTH	256
/* The widest the name column of the tables gets; longer names end in "...". */
#define REPORT_NAME_WIDTH_MAX	40
#define REPORT_ARG_WIDTH_MAX	24

/* Entry kinds, in the order a provider's rows are printed. */
enum report_kind {
	REPORT_PROVIDER,	/* key: provider */
	REPORT_THREAD,		/* provider, pid, tid */
	REPORT_SLICE,		/* provider, pid, tid, cat, name */
	REPORT_INSTANT,		/* provider, pid, tid, cat, name */
	REPORT_SCHED,		/* provider, tid: a thread's scheduling */
	REPORT_COUNTER,		/* provider, cat, name, id, arg */
	REPORT_ASYNC,		/* provider, cat, name */
	REPORT_SPAN,		/* provider, pid, cat, name, id: one async span; not printed */
};

struct report_key {
	unsigned int kind;
	uint32_t provider;
	uint64_t pid, tid, id;
	struct tracebuf_reader_str cat, name, arg;
};

/* A counter's value: integers stay exact. */
struct report_num {
	enum { REPORT_INT, REPORT_UINT, REPORT_DOUBLE } type;
	union {
		int64_t i;
		uint64_t u;
		double d;
	};
};

/* A begin waiting for its end: the slice entry and when it began. */
struct report_open {
	size_t slice;
	uint64_t ns;
};

/* An end without a name: it closes the innermost begin. */
#define REPORT_ANY	SIZE_MAX

/* A begin or an end, paired in time order by tbctl_report_finish(). */
struct report_mark {
	size_t group;		/* its THREAD entry (durations) or SPAN entry (async) */
	size_t slice;		/* durations: the SLICE entry, or REPORT_ANY */
	uint64_t ns;
	size_t seq;		/* the order of the file, for equal timestamps */
	bool end;
};

/* A context switch, for the CPU time of tbctl_report_finish(). */
struct report_switch {
	uint32_t provider;
	unsigned int cpu;
	uint64_t ns;
	size_t seq;		/* the order of the file, for equal timestamps */
	size_t out, in;		/* the SCHED entries of the two threads */
};

/* Durations of a slice or async row. */
struct report_dur {
	uint64_t *ns;		/* every one; sorted by tbctl_report_finish() */
	size_t n, cap;
	uint64_t total;		/* saturates */
	uint64_t unterminated;
};

struct report_entry {
	/* the key; cat, name and arg are interned (report_intern()) */
	unsigned int kind;
	uint32_t provider;
	uint64_t pid, tid, id;
	struct tracebuf_reader_str cat, name, arg;
	uint64_t hash;
	uint64_t sortval;	/* tbctl_report_sort(): larger first */
	const char *label;	/* PROVIDER, THREAD: the name (interned), or NULL */
	size_t label_len;
	union {
		struct report_dur dur;		/* SLICE, ASYNC */
		uint64_t count;			/* INSTANT */
		struct {			/* COUNTER */
			uint64_t count, last_ns;
			struct report_num min, max, last;
		} ctr;
		struct {			/* THREAD */
			struct report_open *stack;
			size_t depth, cap;
			uint64_t unmatched;	/* ends that closed nothing */
		} thread;
		struct {			/* PROVIDER */
			uint64_t dropped;	/* records, as the windows say */
			uint64_t windows, window_ns;
			uint64_t overflows;	/* buffer overflow events */
			uint64_t async_unmatched;
		} prov;
		struct {			/* SPAN */
			size_t async;		/* its ASYNC entry */
			size_t provider;	/* its PROVIDER entry */
		} span;
		struct {			/* SCHED */
			uint64_t pid;		/* a kernel object record's; 0: none */
			uint64_t cpu_ns;	/* saturates */
			uint64_t in, out;	/* the switches that brought it in, took it out */
			uint64_t wakeups;
		} sched;
	};
};

/*
 * Each distinct string once, NUL-terminated: a file's string table lets
 * every record name a 32 KiB string at no cost to the file, and a copy
 * per entry (an async id, a thread) would cost it each time.
 */
struct report_strs {
	struct tracebuf_reader_str *s;	/* data: malloc'd */
	size_t n, cap;
	size_t *slots;		/* index + 1, 0 if free; nslots a power of 2 */
	size_t nslots;
};

struct tbctl_report {
	uint64_t seed;		/* the hashes' (ids and strings come from the file) */
	struct report_entry *e;
	size_t n, cap;
	size_t *slots;		/* entry index + 1, 0 if free; nslots a power of 2 */
	size_t nslots;
	struct report_strs strs;
	struct report_mark *marks;	/* until tbctl_report_finish() */
	size_t nmarks, capmarks;
	struct report_switch *switches;	/* until tbctl_report_finish() */
	size_t nswitches, capswitches;
	struct report_entry **view;	/* tbctl_report_sort(): the printed entries */
	size_t nview;
	bool finished;
};

/* ------------------------------------------------------------------------ */
/* Entries                                                                  */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* p, made room for one more than n elements of size bytes (cap of them): NULL if not. */
static void *report_grow(void *p, size_t n, size_t *cap, size_t size)
{
	size_t ncap;
	void *np;

	if (n < *cap)
		return p;
	if (*cap > SIZE_MAX / 2)
		return NULL;
	ncap = *cap ? *cap * 2 : 8;
	if (ncap > SIZE_MAX / size)
		return NULL;
	np = realloc(p, ncap * size);
	if (np)
		*cap = ncap;
	return np;
}

static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t fnv_str(uint64_t h, struct tracebuf_reader_str s)
{
	h = fnv(h, &s.len, sizeof(s.len));
	return s.len ? fnv(h, s.data, s.len) : h;
}

/*
 * The file chooses the ids and strings, and FNV's low bits, which pick
 * the slot, depend on the input's low bits only: mixed with the report's
 * seed, a file cannot make every key collide.
 */
static uint64_t seeded(const struct tbctl_report *r, uint64_t h)
{
	return tbctl_hash_mix(h, r->seed);
}

static uint64_t key_hash(const struct tbctl_report *r, const struct report_key *k)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = fnv(h, &k->kind, sizeof(k->kind));
	h = fnv(h, &k->provider, sizeof(k->provider));
	h = fnv(h, &k->pid, sizeof(k->pid));
	h = fnv(h, &k->tid, sizeof(k->tid));
	h = fnv(h, &k->id, sizeof(k->id));
	h = fnv_str(h, k->cat);
	h = fnv_str(h, k->name);
	return seeded(r, fnv_str(h, k->arg));
}

static bool str_eq(struct tracebuf_reader_str a, struct tracebuf_reader_str b)
{
	return a.len == b.len && (!a.len || !memcmp(a.data, b.data, a.len));
}

static bool key_eq(const struct report_entry *e, const struct report_key *k)
{
	return e->kind == k->kind && e->provider == k->provider && e->pid == k->pid &&
	       e->tid == k->tid && e->id == k->id && str_eq(e->cat, k->cat) &&
	       str_eq(e->name, k->name) && str_eq(e->arg, k->arg);
}

/*
 * Double a table of *@nslots slots (an index + 1, 0 if free; a power of
 * 2 of them), or make the first, for @n entries, entry i hashing to
 * @hash(@r, i); linear probing.  0 or -ENOMEM.
 */
static int report_slots_grow(const struct tbctl_report *r, size_t **slots, size_t *nslots,
			     size_t n, uint64_t (*hash)(const struct tbctl_report *r, size_t i))
{
	size_t ns = *nslots ? *nslots * 2 : 64, *sl;

	if (*nslots > SIZE_MAX / 2)
		return -ENOMEM;
	sl = calloc(ns, sizeof(*sl));
	if (!sl)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t s = (size_t)hash(r, i) & (ns - 1);

		while (sl[s])
			s = (s + 1) & (ns - 1);
		sl[s] = i + 1;
	}
	free(*slots);
	*slots = sl;
	*nslots = ns;
	return 0;
}

static uint64_t entry_hash(const struct tbctl_report *r, size_t i)
{
	return r->e[i].hash;
}

static uint64_t str_hash(const struct tbctl_report *r, struct tracebuf_reader_str x)
{
	return seeded(r, fnv_str(0xcbf29ce484222325ULL, x));
}

static uint64_t interned_hash(const struct tbctl_report *r, size_t i)
{
	return str_hash(r, r->strs.s[i]);
}

/* The slot of k: its entry's, or the free one where it would go. */
static size_t report_slot(const struct tbctl_report *r, const struct report_key *k, uint64_t hash)
{
	size_t s = (size_t)hash & (r->nslots - 1);

	while (r->slots[s]) {
		const struct report_entry *e = &r->e[r->slots[s] - 1];

		if (e->hash == hash && key_eq(e, k))
			break;
		s = (s + 1) & (r->nslots - 1);
	}
	return s;
}

/* @in's one copy, made if there is none, in *@out; 0 or -ENOMEM. */
static int report_intern(struct tbctl_report *r, struct tracebuf_reader_str in,
			 struct tracebuf_reader_str *out)
{
	struct report_strs *t = &r->strs;
	struct tracebuf_reader_str *ns;
	char *c;
	size_t s;

	if (!in.len) {
		*out = (struct tracebuf_reader_str){ "", 0 };
		return 0;
	}
	if (t->n >= t->nslots / 2 &&
	    report_slots_grow(r, &t->slots, &t->nslots, t->n, interned_hash))
		return -ENOMEM;
	s = (size_t)str_hash(r, in) & (t->nslots - 1);
	for (; t->slots[s]; s = (s + 1) & (t->nslots - 1)) {
		const struct tracebuf_reader_str *x = &t->s[t->slots[s] - 1];

		if (str_eq(*x, in)) {
			*out = *x;
			return 0;
		}
	}
	ns = report_grow(t->s, t->n, &t->cap, sizeof(*t->s));
	if (!ns)
		return -ENOMEM;
	t->s = ns;
	if (in.len == SIZE_MAX)
		return -ENOMEM;
	c = malloc(in.len + 1);
	if (!c)
		return -ENOMEM;
	memcpy(c, in.data, in.len);
	c[in.len] = '\0';
	*out = (struct tracebuf_reader_str){ c, in.len };
	t->s[t->n] = *out;
	t->slots[s] = ++t->n;
	return 0;
}

/*
 * The index of k's entry, made (zeroed, the key copied) if there is none:
 * in *idx.  Pointers to entries do not survive a call.  0 or -ENOMEM.
 */
static int report_get(struct tbctl_report *r, const struct report_key *k, size_t *idx)
{
	uint64_t hash = key_hash(r, k);
	struct tracebuf_reader_str cat, name, arg;
	struct report_entry *e;
	size_t s;

	if (r->nslots) {
		s = report_slot(r, k, hash);
		if (r->slots[s]) {
			*idx = r->slots[s] - 1;
			return 0;
		}
	}
	/* at most half full */
	if (r->n >= r->nslots / 2 && report_slots_grow(r, &r->slots, &r->nslots, r->n, entry_hash))
		return -ENOMEM;
	e = report_grow(r->e, r->n, &r->cap, sizeof(*r->e));
	if (!e)
		return -ENOMEM;
	r->e = e;
	if (report_intern(r, k->cat, &cat) || report_intern(r, k->name, &name) ||
	    report_intern(r, k->arg, &arg))
		return -ENOMEM;
	e = &r->e[r->n];
	memset(e, 0, sizeof(*e));
	e->kind = k->kind;
	e->provider = k->provider;
	e->pid = k->pid;
	e->tid = k->tid;
	e->id = k->id;
	e->cat = cat;
	e->name = name;
	e->arg = arg;
	e->hash = hash;
	s = report_slot(r, k, hash);
	r->slots[s] = r->n + 1;
	*idx = r->n++;
	return 0;
}

/* Set the label (a provider's or thread's name) of entry idx; 0 or -ENOMEM. */
static int report_label(struct tbctl_report *r, size_t idx, struct tracebuf_reader_str name)
{
	struct report_entry *e = &r->e[idx];
	struct tracebuf_reader_str l;

	if (report_intern(r, name, &l))
		return -ENOMEM;
	e->label = l.data;
	e->label_len = l.len;
	return 0;
}

/* The provider entry of id (its name set from name when there is one). */
static int report_provider(struct tbctl_report *r, uint32_t id, struct tracebuf_reader_str name,
			   size_t *idx)
{
	struct report_key k = { .kind = REPORT_PROVIDER, .provider = id };
	int ret = report_get(r, &k, idx);

	if (!ret && name.len && !r->e[*idx].label)
		ret = report_label(r, *idx, name);
	return ret;
}

/* The thread entry of an event (and its provider's). */
static int report_thread(struct tbctl_report *r, const struct tracebuf_reader_record *rec,
			 size_t *idx)
{
	struct report_key k = {
		.kind = REPORT_THREAD, .provider = rec->provider_id,
		.pid = rec->event.process_koid, .tid = rec->event.thread_koid,
	};
	size_t p;
	int ret = report_provider(r, rec->provider_id, rec->provider_name, &p);

	return ret ? ret : report_get(r, &k, idx);
}

/* An event's row of kind (SLICE, INSTANT) on its thread. */
static int report_row(struct tbctl_report *r, const struct tracebuf_reader_record *rec,
		      unsigned int kind, size_t *thread, size_t *idx)
{
	struct report_key k = {
		.kind = kind, .provider = rec->provider_id,
		.pid = rec->event.process_koid, .tid = rec->event.thread_koid,
		.cat = rec->event.category, .name = rec->event.name,
	};
	int ret = report_thread(r, rec, thread);

	return ret ? ret : report_get(r, &k, idx);
}

static int dur_add(struct report_dur *d, uint64_t ns)
{
	uint64_t *p = report_grow(d->ns, d->n, &d->cap, sizeof(*d->ns));

	if (!p)
		return -ENOMEM;
	d->ns = p;
	d->ns[d->n++] = ns;
	d->total = sat_add(d->total, ns);
	return 0;
}

static uint64_t ns_between(uint64_t begin, uint64_t end)
{
	return end > begin ? end - begin : 0;
}

/* ------------------------------------------------------------------------ */
/* Records                                                                  */

static int report_mark(struct tbctl_report *r, size_t group, size_t slice, uint64_t ns,
		       bool end)
{
	struct report_mark *m = report_grow(r->marks, r->nmarks, &r->capmarks, sizeof(*m));

	if (!m)
		return -ENOMEM;
	r->marks = m;
	m[r->nmarks] = (struct report_mark){
		.group = group, .slice = slice, .ns = ns, .seq = r->nmarks, .end = end,
	};
	r->nmarks++;
	return 0;
}

static int report_begin(struct tbctl_report *r, const struct tracebuf_reader_record *rec)
{
	size_t ti, si;
	int ret = report_row(r, rec, REPORT_SLICE, &ti, &si);

	return ret ? ret : report_mark(r, ti, si, rec->event.ns, false);
}

/* The row an end names is made if need be: one that closes nothing is not shown. */
static int report_end(struct tbctl_report *r, const struct tracebuf_reader_record *rec)
{
	size_t ti, si = REPORT_ANY;
	int ret;

	if (rec->event.name.len)
		ret = report_row(r, rec, REPORT_SLICE, &ti, &si);
	else
		ret = report_thread(r, rec, &ti);
	return ret ? ret : report_mark(r, ti, si, rec->event.ns, true);
}

static int report_complete(struct tbctl_report *r, const struct tracebuf_reader_record *rec)
{
	size_t ti, si;
	int ret = report_row(r, rec, REPORT_SLICE, &ti, &si);

	return ret ? ret : dur_add(&r->e[si].dur, ns_between(rec->event.ns, rec->event.end_ns));
}

static int report_instant(struct tbctl_report *r, const struct tracebuf_reader_record *rec)
{
	size_t ti, ii;
	int ret = report_row(r, rec, REPORT_INSTANT, &ti, &ii);

	if (!ret)
		r->e[ii].count++;
	return ret;
}

static struct report_num num_of(const struct tracebuf_reader_arg *a)
{
	struct report_num v = { .type = REPORT_INT };

	switch (a->type) {
	case TRACEBUF_LIB_FXT_ARG_INT32:
		v.i = a->i32;
		break;
	case TRACEBUF_LIB_FXT_ARG_INT64:
		v.i = a->i64;
		break;
	case TRACEBUF_LIB_FXT_ARG_UINT32:
		v.i = a->u32;
		break;
	case TRACEBUF_LIB_FXT_ARG_UINT64:
		if (a->u64 > INT64_MAX) {
			v.type = REPORT_UINT;
			v.u = a->u64;
		} else {
			v.i = (int64_t)a->u64;
		}
		break;
	default:
		v.type = REPORT_DOUBLE;
		v.d = a->dbl;
		break;
	}
	return v;
}

static double num_double(struct report_num v)
{
	return v.type == REPORT_INT ? (double)v.i : v.type == REPORT_UINT ? (double)v.u : v.d;
}

/*
 * <0, 0, >0 as a is below, equal to or above b; integers exactly (a
 * REPORT_UINT is above INT64_MAX); 0 if either is NaN.
 */
static int num_cmp(struct report_num a, struct report_num b)
{
	double x, y;

	if (a.type != REPORT_DOUBLE && b.type != REPORT_DOUBLE) {
		if (a.type != b.type)
			return a.type == REPORT_UINT ? 1 : -1;
		if (a.type == REPORT_UINT)
			return (a.u > b.u) - (a.u < b.u);
		return (a.i > b.i) - (a.i < b.i);
	}
	x = num_double(a);
	y = num_double(b);
	return (x > y) - (x < y);
}

static bool num_nan(struct report_num v)
{
	return v.type == REPORT_DOUBLE && v.d != v.d;
}

static int report_counter(struct tbctl_report *r, const struct tracebuf_reader_record *rec)
{
	size_t p, ci;
	int ret = report_provider(r, rec->provider_id, rec->provider_name, &p);

	for (unsigned int i = 0; !ret && i < rec->nargs; i++) {
		const struct tracebuf_reader_arg *a = &rec->args[i];
		struct report_key k = {
			.kind = REPORT_COUNTER, .provider = rec->provider_id,
			.id = rec->event.counter_id, .cat = rec->event.category,
			.name = rec->event.name, .arg = a->name,
		};
		struct report_entry *c;
		struct report_num v;

		if (!tbctl_arg_numeric(a->type))
			continue;
		ret = report_get(r, &k, &ci);
		if (ret)
			break;
		c = &r->e[ci];
		v = num_of(a);
		if (!c->ctr.count++) {
			c->ctr.min = c->ctr.max = c->ctr.last = v;
			c->ctr.last_ns = rec->event.ns;
			continue;
		}
		/* a NaN is no minimum or maximum, unless there is nothing else */
		if (!num_nan(v)) {
			if (num_nan(c->ctr.min) || num_cmp(v, c->ctr.min) < 0)
				c->ctr.min = v;
			if (num_nan(c->ctr.max) || num_cmp(v, c->ctr.max) > 0)
				c->ctr.max = v;
		}
		if (rec->event.ns >= c->ctr.last_ns) {
			c->ctr.last = v;
			c->ctr.last_ns = rec->event.ns;
		}
	}
	return ret;
}

static int report_async(struct tbctl_report *r, const struct tracebuf_reader_record *rec)
{
	struct report_key k = {
		.kind = REPORT_SPAN, .provider = rec->provider_id,
		.pid = rec->event.process_koid, .id = rec->event.async_id,
		.cat = rec->event.category, .name = rec->event.name,
	};
	struct report_key ak = {
		.kind = REPORT_ASYNC, .provider = rec->provider_id,
		.cat = rec->event.category, .name = rec->event.name,
	};
	size_t p, si, ai;
	int ret = report_provider(r, rec->provider_id, rec->provider_name, &p);

	if (!ret)
		ret = report_get(r, &ak, &ai);
	if (!ret)
		ret = report_get(r, &k, &si);
	if (ret)
		return ret;
	r->e[si].span.async = ai;
	r->e[si].span.provider = p;
	return report_mark(r, si, 0, rec->event.ns,
			   rec->event.type == TRACEBUF_LIB_FXT_EVENT_ASYNC_END);
}

static int report_event(struct tbctl_report *r, const struct tracebuf_reader_record *rec)
{
	uint64_t dropped;
	size_t p;
	int ret;

	if (tracebuf_reader_drop_window(rec, &dropped)) {
		ret = report_provider(r, rec->provider_id, rec->provider_name, &p);
		if (!ret) {
			r->e[p].prov.windows++;
			r->e[p].prov.dropped = sat_add(r->e[p].prov.dropped, dropped);
			r->e[p].prov.window_ns = sat_add(r->e[p].prov.window_ns,
							 ns_between(rec->event.ns,
								    rec->event.end_ns));
		}
		return ret;
	}
	switch (rec->event.type) {
	case TRACEBUF_LIB_FXT_EVENT_INSTANT:
		return report_instant(r, rec);
	case TRACEBUF_LIB_FXT_EVENT_COUNTER:
		return report_counter(r, rec);
	case TRACEBUF_LIB_FXT_EVENT_DURATION_BEGIN:
		return report_begin(r, rec);
	case TRACEBUF_LIB_FXT_EVENT_DURATION_END:
		return report_end(r, rec);
	case TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE:
		return report_complete(r, rec);
	case TRACEBUF_LIB_FXT_EVENT_ASYNC_BEGIN:
	case TRACEBUF_LIB_FXT_EVENT_ASYNC_END:
		return report_async(r, rec);
	default:
		return 0;
	}
}

/* The SCHED entry of thread @tid of the provider of @rec (and the provider's). */
static int report_sched_thread(struct tbctl_report *r, const struct tracebuf_reader_record *rec,
			       uint64_t tid, size_t *idx)
{
	struct report_key k = { .kind = REPORT_SCHED, .provider = rec->provider_id, .tid = tid };
	size_t p;
	int ret = report_provider(r, rec->provider_id, rec->provider_name, &p);

	return ret ? ret : report_get(r, &k, idx);
}

/*
 * A thread named: its THREAD entry, and its SCHED entry, which a
 * scheduling record names by its tid alone (the last name and pid a
 * record gave it; not shown unless it was scheduled).
 */
static int report_kobj(struct tbctl_report *r, const struct tracebuf_reader_record *rec)
{
	struct report_key k = {
		.kind = REPORT_THREAD, .provider = rec->provider_id,
		.pid = tbctl_kobj_thread_pid(rec), .tid = rec->kobj.koid,
	};
	size_t p, t, s;
	int ret;

	if (rec->kobj.obj_type != TRACEBUF_LIB_FXT_OBJ_THREAD)
		return 0;
	ret = report_provider(r, rec->provider_id, rec->provider_name, &p);
	if (!ret)
		ret = report_get(r, &k, &t);
	if (!ret)
		ret = report_label(r, t, rec->kobj.name);
	if (!ret)
		ret = report_sched_thread(r, rec, rec->kobj.koid, &s);
	if (ret)
		return ret;
	r->e[s].sched.pid = k.pid;
	return rec->kobj.name.len ? report_label(r, s, rec->kobj.name) : 0;
}

/* A context switch or a wake-up (§4.2 type 8); other types are not counted. */
static int report_sched(struct tbctl_report *r, const struct tracebuf_reader_record *rec)
{
	struct report_switch *sw;
	size_t out, in;
	int ret;

	switch (rec->sched.type) {
	case TRACEBUF_LIB_FXT_SCHED_LEGACY_SWITCH:
	case TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH:
		break;
	case TRACEBUF_LIB_FXT_SCHED_THREAD_WAKEUP:
		ret = report_sched_thread(r, rec, rec->sched.incoming_koid, &in);
		if (!ret)
			r->e[in].sched.wakeups++;
		return ret;
	default:
		return 0;
	}
	ret = report_sched_thread(r, rec, rec->sched.outgoing_koid, &out);
	if (!ret)
		ret = report_sched_thread(r, rec, rec->sched.incoming_koid, &in);
	if (ret)
		return ret;
	sw = report_grow(r->switches, r->nswitches, &r->capswitches, sizeof(*sw));
	if (!sw)
		return -ENOMEM;
	r->switches = sw;
	sw[r->nswitches] = (struct report_switch){
		.provider = rec->provider_id, .cpu = rec->sched.cpu, .ns = rec->sched.ns,
		.seq = r->nswitches, .out = out, .in = in,
	};
	r->nswitches++;
	r->e[out].sched.out++;
	r->e[in].sched.in++;
	return 0;
}

static int report_meta(struct tbctl_report *r, const struct tracebuf_reader_record *rec)
{
	static const struct tracebuf_reader_str none;
	size_t p;
	int ret = 0;

	switch (rec->meta.type) {
	case TRACEBUF_LIB_FXT_META_PROVIDER_INFO:
		ret = report_provider(r, rec->meta.provider_id, none, &p);
		if (!ret)
			ret = report_label(r, p, rec->meta.name);
		break;
	case TRACEBUF_LIB_FXT_META_PROVIDER_SECTION:
		ret = report_provider(r, rec->meta.provider_id, rec->provider_name, &p);
		break;
	case TRACEBUF_LIB_FXT_META_PROVIDER_EVENT:
		if (rec->meta.event != TRACEBUF_LIB_FXT_PROVIDER_EVENT_BUFFER_OVERFLOW)
			break;
		ret = report_provider(r, rec->meta.provider_id, none, &p);
		if (!ret)
			r->e[p].prov.overflows++;
		break;
	default:
		break;
	}
	return ret;
}

int tbctl_report_create(struct tbctl_report **out)
{
	struct tbctl_report *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->seed = tbctl_hash_seed();
	*out = r;
	return 0;
}

int tbctl_report_add(struct tbctl_report *r, const struct tracebuf_reader_record *rec)
{
	if (r->finished)
		return -EINVAL;
	switch (rec->type) {
	case TRACEBUF_LIB_FXT_RECORD_EVENT:
		return report_event(r, rec);
	case TRACEBUF_LIB_FXT_RECORD_KERNEL_OBJECT:
		return report_kobj(r, rec);
	case TRACEBUF_LIB_FXT_RECORD_SCHEDULING:
		return report_sched(r, rec);
	case TRACEBUF_LIB_FXT_RECORD_METADATA:
		return report_meta(r, rec);
	default:
		return 0;
	}
}

int tbctl_report_read(struct tbctl_report *r, struct tracebuf_reader *reader)
{
	struct tracebuf_reader_record *rec;
	int ret;

	if (r->finished)
		return -EINVAL;
	/* a record is large (15 arguments); keep it off the stack */
	rec = malloc(sizeof(*rec));
	if (!rec)
		return -ENOMEM;
	while ((ret = tracebuf_reader_next(reader, rec)) > 0) {
		ret = tbctl_report_add(r, rec);
		if (ret)
			break;
	}
	free(rec);
	return ret;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int mark_cmp(const void *a, const void *b)
{
	const struct report_mark *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int switch_cmp(const void *a, const void *b)
{
	const struct report_switch *x = a, *y = b;

	if (x->provider != y->provider)
		return x->provider < y->provider ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Each thread's CPU time, from each CPU's switches in time order. */
static void cpu_times(struct tbctl_report *r)
{
	struct report_switch *sw = r->switches;

	if (r->nswitches > 1)
		qsort(sw, r->nswitches, sizeof(*sw), switch_cmp);
	for (size_t i = 1; i < r->nswitches; i++) {
		struct report_entry *t = &r->e[sw[i].out];

		/* the one the switch before brought in, taken out by this one */
		if (sw[i].provider == sw[i - 1].provider && sw[i].cpu == sw[i - 1].cpu &&
		    sw[i].out == sw[i - 1].in)
			t->sched.cpu_ns = sat_add(t->sched.cpu_ns,
						  ns_between(sw[i - 1].ns, sw[i].ns));
	}
	free(r->switches);
	r->switches = NULL;
	r->nswitches = r->capswitches = 0;
}

/* The begins and ends m[0..n) of the thread at t, in time order. */
static int pair_durations(struct tbctl_report *r, struct report_entry *t,
			  const struct report_mark *m, size_t n)
{
	struct report_open *stack;
	size_t i, floor;
	int ret;

	for (size_t k = 0; k < n; k++) {
		if (!m[k].end) {
			stack = report_grow(t->thread.stack, t->thread.depth, &t->thread.cap,
					    sizeof(*stack));
			if (!stack)
				return -ENOMEM;
			t->thread.stack = stack;
			stack[t->thread.depth++] = (struct report_open){
				.slice = m[k].slice, .ns = m[k].ns,
			};
			continue;
		}
		/*
		 * The innermost open begin of the end's row (the innermost
		 * one for an end without a name), among the
		 * REPORT_MATCH_DEPTH innermost: ends that match nothing
		 * cost no more.
		 */
		i = 0;
		floor = t->thread.depth > REPORT_MATCH_DEPTH ?
			t->thread.depth - REPORT_MATCH_DEPTH : 0;
		for (size_t d = t->thread.depth; d > floor; d--) {
			if (m[k].slice == REPORT_ANY || t->thread.stack[d - 1].slice == m[k].slice) {
				i = d;
				break;
			}
		}
		if (!i) {
			t->thread.unmatched++;
			continue;
		}
		/* those it passes are never ended */
		while (t->thread.depth > i)
			r->e[t->thread.stack[--t->thread.depth].slice].dur.unterminated++;
		t->thread.depth--;
		ret = dur_add(&r->e[t->thread.stack[i - 1].slice].dur,
			      ns_between(t->thread.stack[i - 1].ns, m[k].ns));
		if (ret)
			return ret;
	}
	while (t->thread.depth)
		r->e[t->thread.stack[--t->thread.depth].slice].dur.unterminated++;
	return 0;
}

/* The begins and ends m[0..n) of one async span (category, name, id), in time order. */
static int pair_span(struct tbctl_report *r, const struct report_entry *s,
		     const struct report_mark *m, size_t n)
{
	struct report_dur *d = &r->e[s->span.async].dur;
	bool open = false;
	uint64_t begin = 0;
	int ret;

	for (size_t k = 0; k < n; k++) {
		if (!m[k].end) {
			/* begun again before it ended: the first never ends */
			if (open)
				d->unterminated++;
			open = true;
			begin = m[k].ns;
		} else if (open) {
			open = false;
			ret = dur_add(d, ns_between(begin, m[k].ns));
			if (ret)
				return ret;
		} else {
			r->e[s->span.provider].prov.async_unmatched++;
		}
	}
	if (open)
		d->unterminated++;
	return 0;
}

int tbctl_report_finish(struct tbctl_report *r)
{
	int ret = 0;

	if (r->finished)
		return -EINVAL;
	r->finished = true;
	if (r->nmarks > 1)
		qsort(r->marks, r->nmarks, sizeof(*r->marks), mark_cmp);
	for (size_t i = 0, j; !ret && i < r->nmarks; i = j) {
		struct report_entry *g = &r->e[r->marks[i].group];

		for (j = i + 1; j < r->nmarks && r->marks[j].group == r->marks[i].group; j++)
			;
		if (g->kind == REPORT_THREAD)
			ret = pair_durations(r, g, r->marks + i, j - i);
		else
			ret = pair_span(r, g, r->marks + i, j - i);
	}
	free(r->marks);
	r->marks = NULL;
	r->nmarks = r->capmarks = 0;
	cpu_times(r);
	if (ret)
		return ret;
	for (size_t i = 0; i < r->n; i++) {
		struct report_dur *d = &r->e[i].dur;

		if ((r->e[i].kind == REPORT_SLICE || r->e[i].kind == REPORT_ASYNC) && d->n > 1)
			qsort(d->ns, d->n, sizeof(*d->ns), u64_cmp);
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Order                                                                    */

int tbctl_report_sort_parse(const char *word, enum tbctl_report_sort *sort)
{
	static const char *const keys[] = {
		[TBCTL_REPORT_SORT_TOTAL] = "total",
		[TBCTL_REPORT_SORT_COUNT] = "count",
		[TBCTL_REPORT_SORT_MEAN] = "mean",
		[TBCTL_REPORT_SORT_MAX] = "max",
		[TBCTL_REPORT_SORT_NAME] = "name",
		NULL
	};
	int i = tbctl_lookup(word, keys);

	if (i < 0)
		return -EINVAL;
	*sort = (enum tbctl_report_sort)i;
	return 0;
}

/* pct-th percentile, nearest rank, of the sorted d (n > 0) */
static uint64_t dur_pct(const struct report_dur *d, unsigned int pct)
{
	/* ceil(pct * n / 100) without overflow */
	size_t rank = d->n / 100 * pct + (d->n % 100 * pct + 99) / 100;

	return d->ns[rank ? rank - 1 : 0];
}

static uint64_t dur_mean(const struct report_dur *d)
{
	return d->n ? d->total / d->n : 0;
}

static uint64_t dur_sortval(const struct report_dur *d, enum tbctl_report_sort sort)
{
	switch (sort) {
	case TBCTL_REPORT_SORT_TOTAL:
		return d->total;
	case TBCTL_REPORT_SORT_COUNT:
		return d->n;
	case TBCTL_REPORT_SORT_MEAN:
		return dur_mean(d);
	case TBCTL_REPORT_SORT_MAX:
		return d->n ? d->ns[d->n - 1] : 0;
	default:
		return 0;
	}
}

static int str_cmp(struct tracebuf_reader_str a, struct tracebuf_reader_str b)
{
	size_t n = a.len < b.len ? a.len : b.len;
	int c = n ? memcmp(a.data, b.data, n) : 0;

	return c ? c : (a.len > b.len) - (a.len < b.len);
}

/* The part of its provider's rows an entry is in. */
static int entry_group(const struct report_entry *e)
{
	switch (e->kind) {
	case REPORT_PROVIDER:
		return 0;
	case REPORT_THREAD:
	case REPORT_SLICE:
	case REPORT_INSTANT:
		return 1;
	case REPORT_SCHED:
		return 2;
	case REPORT_COUNTER:
		return 3;
	default:
		return 4;
	}
}

#define CMP(a, b)	do { if ((a) != (b)) return (a) < (b) ? -1 : 1; } while (0)

static int entry_cmp(const void *pa, const void *pb)
{
	const struct report_entry *a = *(const struct report_entry *const *)pa;
	const struct report_entry *b = *(const struct report_entry *const *)pb;
	int c;

	CMP(a->provider, b->provider);
	CMP(entry_group(a), entry_group(b));
	if (entry_group(a) == 1) {
		CMP(a->pid, b->pid);
		CMP(a->tid, b->tid);
		CMP(a->kind, b->kind);
	}
	CMP(b->sortval, a->sortval);	/* larger first */
	if (a->kind == REPORT_SCHED) {
		c = str_cmp((struct tracebuf_reader_str){ a->label, a->label_len },
			    (struct tracebuf_reader_str){ b->label, b->label_len });
		if (c)
			return c;
		CMP(a->tid, b->tid);
	}
	c = str_cmp(a->cat, b->cat);
	if (!c)
		c = str_cmp(a->name, b->name);
	if (c)
		return c;
	CMP(a->id, b->id);
	return str_cmp(a->arg, b->arg);
}

int tbctl_report_sort(struct tbctl_report *r, enum tbctl_report_sort sort)
{
	size_t n = 0;

	if (!r->finished)
		return -EINVAL;
	if (!r->view) {
		r->view = calloc(r->n ? r->n : 1, sizeof(*r->view));
		if (!r->view)
			return -ENOMEM;
	}
	for (size_t i = 0; i < r->n; i++) {
		struct report_entry *e = &r->e[i];

		switch (e->kind) {
		case REPORT_SPAN:
			continue;
		case REPORT_SLICE:
		case REPORT_ASYNC:
			/* the row of ends that closed nothing */
			if (!e->dur.n && !e->dur.unterminated)
				continue;
			e->sortval = dur_sortval(&e->dur, sort);
			break;
		case REPORT_INSTANT:
			e->sortval = sort == TBCTL_REPORT_SORT_NAME ? 0 : e->count;
			break;
		case REPORT_SCHED:
			/* a thread named but never scheduled */
			if (!e->sched.in && !e->sched.out && !e->sched.wakeups)
				continue;
			e->sortval = sort == TBCTL_REPORT_SORT_NAME ? 0 :
				     sort == TBCTL_REPORT_SORT_COUNT ? e->sched.in : e->sched.cpu_ns;
			break;
		default:
			e->sortval = 0;
			break;
		}
		r->view[n++] = e;
	}
	if (n > 1)
		qsort(r->view, n, sizeof(*r->view), entry_cmp);
	r->nview = n;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Output                                                                   */

/* The rows of one provider, view[start..end), in groups: see entry_cmp(). */
struct report_part {
	const struct report_entry *provider;
	size_t threads, threads_end;	/* THREAD entries, each followed by its rows */
	size_t sched, sched_end;
	size_t counters, counters_end;
	size_t async, async_end;
};

/* The end of the run of entries of kind from i on. */
static size_t run_end(const struct tbctl_report *r, size_t i, unsigned int kind)
{
	while (i < r->nview && r->view[i]->kind == kind)
		i++;
	return i;
}

/* The provider at view[i] (a PROVIDER entry always leads); returns the next. */
static size_t report_part(const struct tbctl_report *r, size_t i, struct report_part *p)
{
	p->provider = r->view[i++];
	p->threads = i;
	while (i < r->nview && r->view[i]->kind == REPORT_THREAD)
		i = run_end(r, run_end(r, i + 1, REPORT_SLICE), REPORT_INSTANT);
	p->threads_end = p->sched = i;
	p->sched_end = p->counters = i = run_end(r, i, REPORT_SCHED);
	p->counters_end = p->async = i = run_end(r, i, REPORT_COUNTER);
	p->async_end = i = run_end(r, i, REPORT_ASYNC);
	/* anything else of this provider (none: entry_cmp() groups them so) */
	while (i < r->nview && r->view[i]->provider == p->provider->provider)
		i++;
	return i;
}

/*
 * The rows of the thread at view[t]: returns the first; its slices end
 * at *slices_end, where its instants begin, and those at *end.
 */
static size_t thread_rows(const struct tbctl_report *r, size_t t, size_t *slices_end,
			  size_t *end)
{
	*slices_end = run_end(r, t + 1, REPORT_SLICE);
	*end = run_end(r, *slices_end, REPORT_INSTANT);
	return t + 1;
}

static bool thread_shown(const struct report_entry *t, size_t rows)
{
	return rows || t->thread.unmatched;
}

/* JSON */

static void json_str(FILE *f, struct tracebuf_reader_str s)
{
	tbctl_json_str(f, s.data, s.len);
}

static void json_num(FILE *f, struct report_num v)
{
	if (v.type == REPORT_INT)
		fprintf(f, "%" PRId64, v.i);
	else if (v.type == REPORT_UINT)
		fprintf(f, "%" PRIu64, v.u);
	else
		tbctl_json_double(f, v.d);
}

/* An entry's object, opened: {"category":...,"name":... */
static void json_entry(FILE *f, const struct report_entry *e)
{
	fputs("{\"category\":", f);
	json_str(f, e->cat);
	fputs(",\"name\":", f);
	json_str(f, e->name);
}

static void json_dur(FILE *f, const struct report_entry *e)
{
	const struct report_dur *d = &e->dur;

	json_entry(f, e);
	fprintf(f, ",\"count\":%zu,\"total_ns\":%" PRIu64, d->n, d->total);
	if (d->n)
		fprintf(f, ",\"mean_ns\":%" PRIu64 ",\"min_ns\":%" PRIu64 ",\"p50_ns\":%" PRIu64
			",\"p99_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64, dur_mean(d), d->ns[0],
			dur_pct(d, 50), dur_pct(d, 99), d->ns[d->n - 1]);
	else
		fputs(",\"mean_ns\":null,\"min_ns\":null,\"p50_ns\":null,\"p99_ns\":null"
		      ",\"max_ns\":null", f);
	fprintf(f, ",\"unterminated\":%" PRIu64 "}", d->unterminated);
}

static void json_rows(FILE *f, const struct tbctl_report *r, const char *key, size_t i,
		      size_t end)
{
	fprintf(f, ",\"%s\":[", key);
	for (size_t k = i; k < end; k++) {
		const struct report_entry *e = r->view[k];

		if (k > i)
			putc(',', f);
		switch (e->kind) {
		case REPORT_SLICE:
		case REPORT_ASYNC:
			json_dur(f, e);
			break;
		case REPORT_INSTANT:
			json_entry(f, e);
			fprintf(f, ",\"count\":%" PRIu64 "}", e->count);
			break;
		case REPORT_COUNTER:
			json_entry(f, e);
			fprintf(f, ",\"id\":%" PRIu64 ",\"arg\":", e->id);
			json_str(f, e->arg);
			fprintf(f, ",\"count\":%" PRIu64 ",\"min\":", e->ctr.count);
			json_num(f, e->ctr.min);
			fputs(",\"max\":", f);
			json_num(f, e->ctr.max);
			fputs(",\"last\":", f);
			json_num(f, e->ctr.last);
			putc('}', f);
			break;
		default:
			break;
		}
	}
	putc(']', f);
}

/* The threads of the scheduling records: ,"sched":[...] */
static void json_sched(FILE *f, const struct tbctl_report *r, size_t i, size_t end)
{
	fputs(",\"sched\":[", f);
	for (size_t k = i; k < end; k++) {
		const struct report_entry *e = r->view[k];

		fprintf(f, "%s{\"tid\":%" PRIu64 ",\"pid\":", k > i ? "," : "", e->tid);
		if (e->sched.pid || !e->tid)
			fprintf(f, "%" PRIu64, e->sched.pid);
		else
			fputs("null", f);
		fputs(",\"name\":", f);
		if (e->label)
			tbctl_json_str(f, e->label, e->label_len);
		else
			fputs("null", f);
		fprintf(f, ",\"cpu_ns\":%" PRIu64 ",\"switches_in\":%" PRIu64
			",\"switches_out\":%" PRIu64 ",\"wakeups\":%" PRIu64 "}", e->sched.cpu_ns,
			e->sched.in, e->sched.out, e->sched.wakeups);
	}
	putc(']', f);
}

static void report_print_json(FILE *f, const struct tbctl_report *r)
{
	struct report_part p;

	fputs("{\"providers\":[", f);
	for (size_t i = 0; i < r->nview; ) {
		bool first = true;

		if (i)
			putc(',', f);
		i = report_part(r, i, &p);
		fprintf(f, "\n{\"id\":%" PRIu32 ",\"name\":", p.provider->provider);
		tbctl_json_str(f, p.provider->label, p.provider->label_len);
		fputs(",\"threads\":[", f);
		for (size_t t = p.threads; t < p.threads_end; ) {
			const struct report_entry *te = r->view[t];
			size_t s, se, ie;

			s = thread_rows(r, t, &se, &ie);
			t = ie;
			if (!thread_shown(te, ie - s))
				continue;
			fprintf(f, "%s{\"pid\":%" PRIu64 ",\"tid\":%" PRIu64 ",\"name\":",
				first ? "" : ",", te->pid, te->tid);
			first = false;
			if (te->label)
				tbctl_json_str(f, te->label, te->label_len);
			else
				fputs("null", f);
			fprintf(f, ",\"unmatched_ends\":%" PRIu64, te->thread.unmatched);
			json_rows(f, r, "slices", s, se);
			json_rows(f, r, "instants", se, ie);
			putc('}', f);
		}
		putc(']', f);
		json_sched(f, r, p.sched, p.sched_end);
		json_rows(f, r, "counters", p.counters, p.counters_end);
		json_rows(f, r, "async", p.async, p.async_end);
		fprintf(f, ",\"async_unmatched_ends\":%" PRIu64 ",\"drops\":{\"records\":%" PRIu64
			",\"windows\":%" PRIu64 ",\"window_ns\":%" PRIu64
			",\"buffer_overflows\":%" PRIu64 "}}",
			p.provider->prov.async_unmatched, p.provider->prov.dropped,
			p.provider->prov.windows, p.provider->prov.window_ns,
			p.provider->prov.overflows);
	}
	fputs("\n]}\n", f);
}

/* Tables */

/*
 * A row's name is category:name (and #id for a counter's).  A category
 * that holds a ':' or begins with '"' is quoted, '"' and '\\' in it
 * escaped, so that the first ':' outside quotes always ends the category:
 * "cxx:lambda":job is category cxx:lambda, cxx:lambda:job category cxx.
 */
/* In a quoted category, a backslash goes before these. */
static bool cat_escaped(char ch)
{
	return ch == '"' || ch == '\\';
}

static bool cat_quoted(const struct report_entry *e)
{
	return e->cat.len && (memchr(e->cat.data, ':', e->cat.len) || e->cat.data[0] == '"');
}

static size_t cat_width(const struct report_entry *e)
{
	size_t n = e->cat.len;

	if (!cat_quoted(e))
		return n;
	for (size_t i = 0; i < e->cat.len; i++)
		n += cat_escaped(e->cat.data[i]);
	return n + 2;
}

/* How wide a row's name is: category:name, and #id for a counter's. */
static size_t name_width(const struct report_entry *e)
{
	char id[24] = "";

	if (e->kind == REPORT_COUNTER && e->id)
		snprintf(id, sizeof(id), "#%" PRIu64, e->id);
	return (e->cat.len ? cat_width(e) + 1 : 0) + e->name.len + strlen(id);
}

/* Output that stops at a width: what does not fit is cut, "..." ends it. */
struct cell {
	FILE *f;
	size_t room;
};

static void cell_put(struct cell *c, const char *s, size_t len)
{
	len = len < c->room ? len : c->room;
	tbctl_fwrite_safe(c->f, s, len);
	c->room -= len;
}

/* A row's name in width columns, padded. */
static void put_name(FILE *f, const struct report_entry *e, size_t width)
{
	size_t w = name_width(e);
	struct cell c = { .f = f, .room = w > width ? width - 3 : width };
	char id[24] = "";

	if (e->kind == REPORT_COUNTER && e->id)
		snprintf(id, sizeof(id), "#%" PRIu64, e->id);
	if (e->cat.len && !cat_quoted(e)) {
		cell_put(&c, e->cat.data, e->cat.len);
		cell_put(&c, ":", 1);
	} else if (e->cat.len) {
		cell_put(&c, "\"", 1);
		for (size_t i = 0; i < e->cat.len; i++) {
			if (cat_escaped(e->cat.data[i]))
				cell_put(&c, "\\", 1);
			cell_put(&c, e->cat.data + i, 1);
		}
		cell_put(&c, "\":", 2);
	}
	cell_put(&c, e->name.data, e->name.len);
	cell_put(&c, id, strlen(id));
	if (w > width)
		fputs("...", f);
	for (; w < width; w++)
		putc(' ', f);
}

static void put_text(FILE *f, struct tracebuf_reader_str s, size_t width)
{
	struct cell c = { .f = f, .room = s.len > width ? width - 3 : width };

	cell_put(&c, s.data, s.len);
	if (s.len > width)
		fputs("...", f);
	for (size_t w = s.len; w < width; w++)
		putc(' ', f);
}

static const char *num_str(struct report_num v, char *buf, size_t len)
{
	if (v.type == REPORT_INT)
		snprintf(buf, len, "%" PRId64, v.i);
	else if (v.type == REPORT_UINT)
		snprintf(buf, len, "%" PRIu64, v.u);
	else
		snprintf(buf, len, "%.10g", v.d);
	return buf;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

struct report_widths {
	size_t name;	/* the name column of a thread's tables */
	size_t arg;	/* the counters' argument column */
};

static void dur_header(FILE *f, const char *indent, const char *what, size_t width)
{
	fprintf(f, "%s%-*s %7s %10s %10s %10s %10s %10s %6s\n", indent, (int)width, what, "COUNT",
		"TOTAL", "MEAN", "P50", "P99", "MAX", "UNTERM");
}

static void dur_row(FILE *f, const char *indent, const struct report_entry *e, size_t width)
{
	const struct report_dur *d = &e->dur;
	char total[32], mean[32] = "-", p50[32] = "-", p99[32] = "-", max[32] = "-";

	tbctl_human_ns(d->total, total, sizeof(total));
	if (d->n) {
		tbctl_human_ns(dur_mean(d), mean, sizeof(mean));
		tbctl_human_ns(dur_pct(d, 50), p50, sizeof(p50));
		tbctl_human_ns(dur_pct(d, 99), p99, sizeof(p99));
		tbctl_human_ns(d->ns[d->n - 1], max, sizeof(max));
	}
	fputs(indent, f);
	put_name(f, e, width);
	fprintf(f, " %7zu %10s %10s %10s %10s %10s %6" PRIu64 "\n", d->n, total, mean, p50, p99,
		max, d->unterminated);
}

static void report_print_provider(FILE *f, const struct tbctl_report *r,
				  const struct report_part *p, const struct report_widths *w)
{
	const struct report_entry *pe = p->provider;

	fprintf(f, "provider %" PRIu32, pe->provider);
	if (pe->label_len) {
		fputs(": ", f);
		tbctl_fwrite_safe(f, pe->label, pe->label_len);
	}
	putc('\n', f);
	for (size_t t = p->threads; t < p->threads_end; ) {
		const struct report_entry *te = r->view[t];
		size_t s, se, ie;

		s = thread_rows(r, t, &se, &ie);
		t = ie;
		if (!thread_shown(te, ie - s))
			continue;
		fprintf(f, "  thread %" PRIu64 " (pid %" PRIu64 ")", te->tid, te->pid);
		if (te->label_len) {
			fputs(": ", f);
			tbctl_fwrite_safe(f, te->label, te->label_len);
		}
		if (te->thread.unmatched)
			fprintf(f, "; %" PRIu64 " end%s without a begin", te->thread.unmatched,
				plural(te->thread.unmatched));
		putc('\n', f);
		if (se > s)
			dur_header(f, "    ", "SLICE", w->name);
		for (size_t k = s; k < se; k++)
			dur_row(f, "    ", r->view[k], w->name);
		if (ie > se)
			fprintf(f, "    %-*s %7s\n", (int)w->name, "INSTANT", "COUNT");
		for (size_t k = se; k < ie; k++) {
			fputs("    ", f);
			put_name(f, r->view[k], w->name);
			fprintf(f, " %7" PRIu64 "\n", r->view[k]->count);
		}
	}
	if (p->sched_end > p->sched)
		fprintf(f, "  %-*s %8s %8s %10s %8s %8s %8s\n", (int)w->name + 2, "SCHED", "TID",
			"PID", "CPU TIME", "IN", "OUT", "WAKEUPS");
	for (size_t k = p->sched; k < p->sched_end; k++) {
		const struct report_entry *e = r->view[k];
		char cpu[32], pid[24] = "-";

		fputs("  ", f);
		put_text(f, (struct tracebuf_reader_str){ e->label ? e->label : "-",
							  e->label ? e->label_len : 1 },
			 w->name + 2);
		if (e->sched.pid || !e->tid)
			snprintf(pid, sizeof(pid), "%" PRIu64, e->sched.pid);
		fprintf(f, " %8" PRIu64 " %8s %10s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 "\n",
			e->tid, pid, tbctl_human_ns(e->sched.cpu_ns, cpu, sizeof(cpu)),
			e->sched.in, e->sched.out, e->sched.wakeups);
	}
	if (p->counters_end > p->counters)
		fprintf(f, "  %-*s %-*s %7s %12s %12s %12s\n", (int)w->name + 2, "COUNTER",
			(int)w->arg, "ARG", "COUNT", "MIN", "MAX", "LAST");
	for (size_t k = p->counters; k < p->counters_end; k++) {
		const struct report_entry *e = r->view[k];
		char min[40], max[40], last[40];

		fputs("  ", f);
		put_name(f, e, w->name + 2);
		putc(' ', f);
		put_text(f, e->arg, w->arg);
		fprintf(f, " %7" PRIu64 " %12s %12s %12s\n", e->ctr.count,
			num_str(e->ctr.min, min, sizeof(min)),
			num_str(e->ctr.max, max, sizeof(max)),
			num_str(e->ctr.last, last, sizeof(last)));
	}
	if (p->async_end > p->async)
		dur_header(f, "  ", "ASYNC", w->name + 2);
	for (size_t k = p->async; k < p->async_end; k++)
		dur_row(f, "  ", r->view[k], w->name + 2);
	if (pe->prov.async_unmatched)
		fprintf(f, "  %" PRIu64 " async end%s without a begin\n", pe->prov.async_unmatched,
			plural(pe->prov.async_unmatched));
	if (!pe->prov.windows && !pe->prov.overflows) {
		fputs("  drops: none\n", f);
	} else {
		char span[32];

		fprintf(f, "  drops: %" PRIu64 " record%s in %" PRIu64 " window%s (%s), %" PRIu64
			" buffer overflow%s\n", pe->prov.dropped, plural(pe->prov.dropped),
			pe->prov.windows, plural(pe->prov.windows),
			tbctl_human_ns(pe->prov.window_ns, span, sizeof(span)),
			pe->prov.overflows, plural(pe->prov.overflows));
	}
}

static void report_print_table(FILE *f, const struct tbctl_report *r)
{
	struct report_widths w = { .name = 7, .arg = 3 };	/* "INSTANT", "ARG" */
	struct report_part p;

	if (!r->nview) {
		fputs("no events\n", f);
		return;
	}
	for (size_t i = 0; i < r->nview; i++) {
		const struct report_entry *e = r->view[i];
		size_t n = name_width(e);

		if (e->kind == REPORT_PROVIDER || e->kind == REPORT_THREAD)
			continue;
		if (e->kind == REPORT_SCHED)
			n = e->label_len;
		/* provider-level tables are indented 2 less: their names get 2 more */
		if (e->kind == REPORT_COUNTER || e->kind == REPORT_ASYNC || e->kind == REPORT_SCHED)
			n = n > 2 ? n - 2 : 0;
		w.name = n > w.name ? n : w.name;
		if (e->kind == REPORT_COUNTER && e->arg.len > w.arg)
			w.arg = e->arg.len;
	}
	w.name = w.name > REPORT_NAME_WIDTH_MAX ? REPORT_NAME_WIDTH_MAX : w.name;
	w.arg = w.arg > REPORT_ARG_WIDTH_MAX ? REPORT_ARG_WIDTH_MAX : w.arg;
	for (size_t i = 0; i < r->nview; ) {
		if (i)
			putc('\n', f);
		i = report_part(r, i, &p);
		report_print_provider(f, r, &p, &w);
	}
}

void tbctl_report_print(FILE *f, const struct tbctl_report *r, bool json)
{
	if (json)
		report_print_json(f, r);
	else
		report_print_table(f, r);
}

void tbctl_report_free(struct tbctl_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		struct report_entry *e = &r->e[i];

		if (e->kind == REPORT_SLICE || e->kind == REPORT_ASYNC)
			free(e->dur.ns);
		else if (e->kind == REPORT_THREAD)
			free(e->thread.stack);
	}
	for (size_t i = 0; i < r->strs.n; i++)
		free((char *)r->strs.s[i].data);
	free(r->strs.s);
	free(r->strs.slots);
	free(r->e);
	free(r->slots);
	free(r->marks);
	free(r->switches);
	free(r->view);
	free(r);
}

/* ------------------------------------------------------------------------ */
/* The command                                                              */

static void report_usage(FILE *f)
{
	fprintf(f,
		"Usage: " TBCTL_PROG " report [-j] [-s KEY] FILE\n"
		"\n"
		"Summarize the FXT trace FILE (- for standard input), per provider and\n"
		"per thread: slices (duration begin/end pairs and complete events) by\n"
		"category:name with their count, total, mean, p50, p99 and max\n"
		"duration and how many never ended (UNTERM); instants by name with\n"
		"their count.  Per provider: each counter's arguments with their\n"
		"count, min, max and last value; async spans (begin/end by name and\n"
		"id) as slices; per thread of its context switches (the kernel\n"
		"provider's), its CPU time, the switches that brought it in (IN) and\n"
		"took it out (OUT) and its wake-ups; the records dropped, their\n"
		"windows and the buffer overflows.  A file that is not a whole FXT\n"
		"trace is an error and prints nothing.\n"
		"\n"
		"Options:\n"
		"  -s, --sort KEY   order slices and async spans by total (the default),\n"
		"                   count, mean or max time, largest first, or by name;\n"
		"                   instants by count unless by name; counters by name;\n"
		"                   scheduled threads by CPU time (by IN with count, by\n"
		"                   name with name)\n"
		"  -j, --json       one JSON object instead of the tables (durations in\n"
		"                   ns); the global -j does the same\n"
		"  -h, --help       print this help and exit\n");
}

static const struct tbctl_opt report_opts[] = {
	{ "sort", 's', TBCTL_REQ_ARG, 's' },
	{ "json", 'j', TBCTL_NO_ARG, 'j' },
	{ "help", 'h', TBCTL_NO_ARG, 'h' },
	{ 0 }
};

int cmd_report(struct tbctl_ctx *ctx, int argc, char **argv)
{
	struct tbctl_getopt g = {
		.argc = argc, .argv = argv, .ind = 1, .args_after_dashdash = true,
	};
	enum tbctl_report_sort sort = TBCTL_REPORT_SORT_TOTAL;
	struct tracebuf_reader *reader = NULL;
	struct tbctl_report *rep = NULL;
	const char *file = NULL;
	char err[160], msg[200];
	bool json = ctx->json;
	int ret;

	while ((ret = tbctl_getopt(&g, report_opts, err, sizeof(err))) != TBCTL_GETOPT_END) {
		switch (ret) {
		case 's':
			if (tbctl_report_sort_parse(g.arg, &sort)) {
				snprintf(msg, sizeof(msg), "report: invalid sort key '%s' (total, "
					 "count, mean, max or name)", g.arg);
				return tbctl_usage_err("report", msg);
			}
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			report_usage(stdout);
			return 0;
		case TBCTL_GETOPT_ARG:
			if (file) {
				snprintf(msg, sizeof(msg), "report: unexpected argument '%s'",
					 g.arg);
				return tbctl_usage_err("report", msg);
			}
			file = g.arg;
			break;
		default:
			snprintf(msg, sizeof(msg), "report: %s", err);
			return tbctl_usage_err("report", msg);
		}
	}
	if (!file)
		return tbctl_usage_err("report", "report: missing FILE");
	ret = tbctl_reader_open(file, TRACEBUF_LIB_READER_MAGIC, &reader);
	if (ret)
		return ret;
	ret = tbctl_report_create(&rep);
	if (!ret)
		ret = tbctl_report_read(rep, reader);
	if (ret && *tracebuf_reader_error(reader)) {
		tbctl_err("%s: %s at offset %zu", file, tracebuf_reader_error(reader),
			  tracebuf_reader_error_offset(reader));
		goto out;
	}
	if (!ret)
		ret = tbctl_report_finish(rep);
	if (!ret)
		ret = tbctl_report_sort(rep, sort);
	if (ret) {
		tbctl_err("%s: %s", file, strerror(-ret));
		goto out;
	}
	tbctl_report_print(stdout, rep, json);
	if (fflush(stdout)) {
		ret = -errno;
		tbctl_err("write error: %s", strerror(-ret));
	}
out:
	tbctl_report_free(rep);
	tracebuf_reader_close(reader);
	return ret;
}
