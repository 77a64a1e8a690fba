/* SPDX-License-Identifier: MIT */
/*
 * Checking a trace of tb-seqprov providers (tests/vm/seqprov.c): every
 * provider NAME-0 .. NAME-(n-1) (or NAME alone) is in it with each of its
 * "seq" events 0 .. count-1 exactly once, and no duration ends without a
 * begin on its thread; and what it holds of them and what their drop
 * windows count, for the accounting rule (tried = in the file + in the
 * windows).  Include after ktap.h.
 */
#ifndef TBCTL_SEQCHECK_H
#define TBCTL_SEQCHECK_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracebuf_reader.h>

#define SEQ_PROCS_MAX	64
#define SEQ_THREADS_MAX	256

struct seq_result {
	unsigned int providers;		/* NAME-i with a provider info record */
	unsigned int complete;		/* with every event exactly once */
	uint64_t events;		/* "seq" events of known providers */
	uint64_t duplicates;
	uint64_t orphan_ends;		/* an end with no begin before it */
	uint64_t drop_windows;		/* "tracebuf:meta" events */
	uint64_t in_file;		/* "seq" events of known providers: begins,
					 * instants, ends
					 */
	uint64_t in_windows;		/* what their drop windows count */
	unsigned int overflows;		/* provider event records */
	char first_missing[160];	/* e.g. "seq-3: 0 of 100" */
};

struct seq_thread {
	uint32_t provider;
	uint64_t koid;
	int64_t depth;
};

static inline bool seq_is(const struct tracebuf_reader_str *s, const char *lit)
{
	return s->len == strlen(lit) && !memcmp(s->data, lit, s->len);
}

/* Which provider NAME-i (or NAME when procs is 1) is @s?  -1: none. */
static inline int seq_index(const struct tracebuf_reader_str *s, const char *name,
			    unsigned int procs)
{
	size_t len = strlen(name);
	unsigned long i;
	char num[16], *end;

	if (procs == 1)
		return seq_is(s, name) ? 0 : -1;
	if (s->len <= len + 1 || s->len - len - 1 >= sizeof(num) ||
	    memcmp(s->data, name, len) || s->data[len] != '-')
		return -1;
	memcpy(num, s->data + len + 1, s->len - len - 1);
	num[s->len - len - 1] = 0;
	i = strtoul(num, &end, 10);
	return *end || i >= procs ? -1 : (int)i;
}

/* Read @file; 0, or the reader's -errno. */
static inline int seq_check(const char *file, const char *name, unsigned int procs,
			    unsigned int count, struct seq_result *res)
{
	static struct seq_thread threads[SEQ_THREADS_MAX];
	uint8_t *seen;			/* [provider][event]: times seen */
	struct tracebuf_reader_record rec;
	struct tracebuf_reader *r;
	int by_id[SEQ_PROCS_MAX * 8];	/* provider id % size -> index + 1 */
	unsigned int nthreads = 0, got[SEQ_PROCS_MAX] = { 0 };
	int ret;

	memset(res, 0, sizeof(*res));
	memset(by_id, 0, sizeof(by_id));
	if (procs > SEQ_PROCS_MAX)
		return -EINVAL;
	ret = t_trace_open_file(file, TRACEBUF_LIB_READER_MAGIC, &r);
	if (ret)
		return ret;
	seen = calloc((size_t)procs * count + 1, 1);
	if (!seen) {
		tracebuf_reader_close(r);
		return -ENOMEM;
	}
	while ((ret = tracebuf_reader_next(r, &rec)) == 1) {
		int idx;

		if (rec.type == TRACEBUF_LIB_FXT_RECORD_METADATA) {
			if (rec.meta.type == TRACEBUF_LIB_FXT_META_PROVIDER_EVENT)
				res->overflows++;
			if (rec.meta.type != TRACEBUF_LIB_FXT_META_PROVIDER_INFO)
				continue;
			idx = seq_index(&rec.meta.name, name, procs);
			if (idx >= 0) {
				by_id[rec.meta.provider_id % (SEQ_PROCS_MAX * 8)] = idx + 1;
				res->providers++;
			}
			continue;
		}
		if (rec.type != TRACEBUF_LIB_FXT_RECORD_EVENT)
			continue;
		idx = by_id[rec.provider_id % (SEQ_PROCS_MAX * 8)] - 1;
		if (seq_is(&rec.event.category, "tracebuf:meta")) {
			uint64_t n;

			res->drop_windows++;
			if (idx >= 0 && tracebuf_reader_drop_window(&rec, &n))
				res->in_windows += n;
			continue;
		}
		if (idx < 0 || !seq_is(&rec.event.category, "seq"))
			continue;
		res->in_file++;
		if (rec.event.type == TRACEBUF_LIB_FXT_EVENT_INSTANT &&
		    seq_is(&rec.event.name, "seq") && rec.nargs == 1 &&
		    rec.args[0].type == TRACEBUF_LIB_FXT_ARG_UINT32 &&
		    rec.args[0].u32 < count) {
			res->events++;
			if (seen[(size_t)idx * count + rec.args[0].u32]++)
				res->duplicates++;
			else
				got[idx]++;
		} else if (rec.event.type == TRACEBUF_LIB_FXT_EVENT_DURATION_BEGIN ||
			   rec.event.type == TRACEBUF_LIB_FXT_EVENT_DURATION_END) {
			struct seq_thread *t = NULL;

			for (unsigned int i = 0; i < nthreads && !t; i++)
				if (threads[i].provider == rec.provider_id &&
				    threads[i].koid == rec.event.thread_koid)
					t = &threads[i];
			if (!t && nthreads < SEQ_THREADS_MAX) {
				t = &threads[nthreads++];
				t->provider = rec.provider_id;
				t->koid = rec.event.thread_koid;
				t->depth = 0;
			}
			if (!t)
				continue;
			if (rec.event.type == TRACEBUF_LIB_FXT_EVENT_DURATION_BEGIN)
				t->depth++;
			else if (t->depth > 0)
				t->depth--;
			else
				res->orphan_ends++;
		}
	}
	if (ret)
		printf("# %s: %s at %zu\n", file, tracebuf_reader_error(r),
		       tracebuf_reader_error_offset(r));
	tracebuf_reader_close(r);
	free(seen);
	for (unsigned int i = 0; i < procs; i++) {
		if (got[i] == count) {
			res->complete++;
		} else if (!res->first_missing[0]) {
			if (procs == 1)
				snprintf(res->first_missing, sizeof(res->first_missing),
					 "%s: %u of %u", name, got[i], count);
			else
				snprintf(res->first_missing, sizeof(res->first_missing),
					 "%s-%u: %u of %u", name, i, got[i], count);
		}
	}
	return ret;
}

#endif /* TBCTL_SEQCHECK_H */
