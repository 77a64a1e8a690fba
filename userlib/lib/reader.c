// SPDX-License-Identifier: MIT
/*
 * The FXT reader and walker.  The contract, and what counts as malformed,
 * is in include/tracebuf_reader.h; layouts are in include/tracebuf_fxt.h.
 *
 * Every load from the input goes through a cursor whose end is the end of
 * the current record (or argument), and every cursor is checked before
 * it moves, so a hostile length can at worst make a decode fail.  The
 * string and thread tables of all providers live in one hash table keyed
 * by (kind, provider state, index) that grows with the number of entries
 * actually registered, so memory stays proportional to the input whatever
 * indexes it uses.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracebuf_reader.h>

#include "lib_priv.h"

#define NS_PER_SEC	1000000000ULL

/* ---------------------------------------------------------------------- */
/* A hash map from non-zero 64-bit keys to 64-bit values                  */

struct map {
	uint64_t *keys;		/* 0: free slot */
	uint64_t *vals;
	size_t mask;		/* capacity - 1; capacity a power of 2 */
	size_t count;
};

static size_t map_slot(uint64_t key, size_t mask)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & mask;
}

static bool map_get(const struct map *m, uint64_t key, uint64_t *val)
{
	size_t i;

	if (!m->keys)
		return false;
	for (i = map_slot(key, m->mask); m->keys[i]; i = (i + 1) & m->mask) {
		if (m->keys[i] == key) {
			*val = m->vals[i];
			return true;
		}
	}
	return false;
}

/* Insert without growing: the caller made room. */
static void map_insert(struct map *m, uint64_t key, uint64_t val)
{
	size_t i;

	for (i = map_slot(key, m->mask); m->keys[i]; i = (i + 1) & m->mask) {
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return;
		}
	}
	m->keys[i] = key;
	m->vals[i] = val;
	m->count++;
}

static int map_put(struct map *m, uint64_t key, uint64_t val)
{
	size_t cap = m->keys ? m->mask + 1 : 0;

	/* Keep the load at most 1/2. */
	if ((m->count + 1) * 2 > cap) {
		size_t ncap = cap ? cap * 2 : 64, i;
		struct map n = { NULL, NULL, ncap - 1, 0 };

		if (ncap < cap)
			return -ENOMEM;
		n.keys = calloc(ncap, sizeof(*n.keys));
		n.vals = calloc(ncap, sizeof(*n.vals));
		if (!n.keys || !n.vals) {
			free(n.keys);
			free(n.vals);
			return -ENOMEM;
		}
		for (i = 0; i < cap; i++)
			if (m->keys[i])
				map_insert(&n, m->keys[i], m->vals[i]);
		free(m->keys);
		free(m->vals);
		*m = n;
	}
	map_insert(m, key, val);
	return 0;
}

static void map_free(struct map *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = m->vals = NULL;
}

/* ---------------------------------------------------------------------- */
/* The reader                                                             */

/*
 * One provider state.  A provider info record for an id already seen
 * starts a new state (new slot) rather than clearing the old one's table
 * entries; the old slot is simply no longer reachable.
 */
struct provider {
	uint32_t id;
	uint64_t ticks_per_second;
	struct tracebuf_reader_str name;
};

/* Table keys: kind in [62..63], provider slot in [16..61], index in [0..15]. */
#define KEY_STRING	1ULL
#define KEY_THREAD	2ULL

struct tracebuf_reader {
	const unsigned char *buf;
	size_t len;
	size_t pos;			/* start of the next record */
	void *owned;			/* the file's contents, or NULL */
	unsigned int flags;
	int error;			/* final error, or 0 */
	size_t error_offset;
	char message[112];
	uint64_t unresolved;
	struct provider *providers;	/* indexed by slot */
	size_t nproviders;
	size_t providers_cap;
	size_t current;			/* slot of the current provider */
	struct map ids;			/* provider id + 1 -> slot */
	struct map table;		/* strings: data offset << 16 | length;
					 * threads: offset of the koid words
					 */
};

/* The bounds of what may be read next: [off, end) of the input. */
struct cursor {
	size_t off;
	size_t end;
};

static uint64_t table_key(uint64_t kind, size_t slot, unsigned int index)
{
	return kind << 62 | (uint64_t)slot << 16 | index;
}

static int fail(struct tracebuf_reader *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record error err for the record at r->pos; returns err. */
static int fail(struct tracebuf_reader *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->message, sizeof(r->message), fmt, ap);
	va_end(ap);
	r->error = err;
	r->error_offset = r->pos;
	return err;
}

static uint64_t load(const struct tracebuf_reader *r, size_t off)
{
	uint64_t w;

	memcpy(&w, r->buf + off, sizeof(w));
	return tracebuf_fxt_le64(w);
}

static int take_word(struct tracebuf_reader *r, struct cursor *c, uint64_t *w,
		     const char *what)
{
	*w = 0;
	if (c->end - c->off < 8)
		return fail(r, -EBADMSG, "%s runs past the end of its record", what);
	*w = load(r, c->off);
	c->off += 8;
	return 0;
}

/* A stream of len bytes (padded to 8) at the cursor. */
static int take_stream(struct tracebuf_reader *r, struct cursor *c, uint64_t len,
		       struct tracebuf_reader_str *s, const char *what)
{
	size_t avail = c->end - c->off;

	if (len > avail || tracebuf_fxt_pad((size_t)len) > avail)
		return fail(r, -EBADMSG, "%s (%llu bytes) runs past the end of its record",
			    what, (unsigned long long)len);
	s->data = len ? (const char *)r->buf + c->off : NULL;
	s->len = (size_t)len;
	c->off += tracebuf_fxt_pad((size_t)len);
	return 0;
}

static int unresolved(struct tracebuf_reader *r, const char *what, unsigned int index)
{
	if (r->flags & TRACEBUF_LIB_READER_STRICT)
		return fail(r, -ENOENT, "%s %u is not in provider %u's table", what, index,
			    (unsigned int)r->providers[r->current].id);
	r->unresolved++;
	return 0;
}

/* A string ref (§4.1): empty, inline at the cursor, or from the table. */
static int take_str(struct tracebuf_reader *r, struct cursor *c, unsigned int ref,
		    struct tracebuf_reader_str *s, const char *what)
{
	uint64_t v;

	s->data = NULL;
	s->len = 0;
	if (!ref)
		return 0;
	if (ref & TRACEBUF_LIB_FXT_STRING_REF_INLINE)
		return take_stream(r, c, ref & TRACEBUF_LIB_FXT_STRING_INDEX_MAX, s, what);
	if (!map_get(&r->table, table_key(KEY_STRING, r->current, ref), &v))
		return unresolved(r, "string ref", ref);
	s->len = v & 0xffff;
	s->data = s->len ? (const char *)r->buf + (v >> 16) : NULL;
	return 0;
}

/* A thread ref (§4.1): inline koids at the cursor, or from the table. */
static int take_thread(struct tracebuf_reader *r, struct cursor *c, unsigned int ref,
		       uint64_t *process_koid, uint64_t *thread_koid)
{
	uint64_t off;
	int ret;

	*process_koid = *thread_koid = 0;
	if (!ref) {
		ret = take_word(r, c, process_koid, "inline process koid");
		return ret ? ret : take_word(r, c, thread_koid, "inline thread koid");
	}
	if (!map_get(&r->table, table_key(KEY_THREAD, r->current, ref), &off))
		return unresolved(r, "thread ref", ref);
	*process_koid = load(r, off);
	*thread_koid = load(r, off + 8);
	return 0;
}

/* n arguments (§4.4) at the cursor, into rec->args. */
static int take_args(struct tracebuf_reader *r, struct cursor *c, unsigned int n,
		     struct tracebuf_reader_record *rec)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		struct tracebuf_reader_arg *a = &rec->args[i];
		size_t start = c->off;
		struct cursor ac;
		uint64_t h, words, v;

		ret = take_word(r, c, &h, "argument header");
		if (ret)
			return ret;
		words = tracebuf_fxt_get(h, 4, 15);
		if (!words)
			return fail(r, -EBADMSG, "argument %u has size 0", i);
		if (words > (c->end - start) / 8)
			return fail(r, -EBADMSG, "argument %u (%llu words) runs past the end of its record",
				    i, (unsigned long long)words);
		ac.off = c->off;
		ac.end = start + (size_t)words * 8;
		a->type = (unsigned int)tracebuf_fxt_get(h, 0, 3);
		ret = take_str(r, &ac, (unsigned int)tracebuf_fxt_get(h, 16, 31), &a->name,
			       "argument name");
		if (ret)
			return ret;
		switch (a->type) {
		case TRACEBUF_LIB_FXT_ARG_NULL:
			break;
		case TRACEBUF_LIB_FXT_ARG_INT32:
			a->i32 = (int32_t)(uint32_t)tracebuf_fxt_get(h, 32, 63);
			break;
		case TRACEBUF_LIB_FXT_ARG_UINT32:
			a->u32 = (uint32_t)tracebuf_fxt_get(h, 32, 63);
			break;
		case TRACEBUF_LIB_FXT_ARG_INT64:
		case TRACEBUF_LIB_FXT_ARG_UINT64:
		case TRACEBUF_LIB_FXT_ARG_DOUBLE:
		case TRACEBUF_LIB_FXT_ARG_POINTER:
		case TRACEBUF_LIB_FXT_ARG_KOID:
			ret = take_word(r, &ac, &v, "argument value");
			if (ret)
				return ret;
			if (a->type == TRACEBUF_LIB_FXT_ARG_DOUBLE)
				memcpy(&a->dbl, &v, sizeof(a->dbl));
			else
				a->u64 = v;	/* i64, ptr and koid alias it */
			break;
		case TRACEBUF_LIB_FXT_ARG_STRING:
			ret = take_str(r, &ac, (unsigned int)tracebuf_fxt_get(h, 32, 47), &a->str,
				       "argument string value");
			if (ret)
				return ret;
			break;
		case TRACEBUF_LIB_FXT_ARG_BOOL:
			a->b = tracebuf_fxt_get(h, 32, 32);
			break;
		case TRACEBUF_LIB_FXT_ARG_BLOB:
			ret = take_stream(r, &ac, tracebuf_fxt_get(h, 32, 63), &a->raw,
					  "argument blob");
			if (ret)
				return ret;
			break;
		default:	/* unknown: skipped by its size */
			a->raw.len = ac.end - ac.off;
			a->raw.data = a->raw.len ? (const char *)r->buf + ac.off : NULL;
			break;
		}
		c->off = ac.end;
		rec->nargs = i + 1;
	}
	return 0;
}

static uint64_t ticks_to_ns(uint64_t ticks, uint64_t ticks_per_second)
{
	if (ticks_per_second == NS_PER_SEC)
		return ticks;
#ifdef __SIZEOF_INT128__
	{
		unsigned __int128 ns = (unsigned __int128)ticks * NS_PER_SEC / ticks_per_second;

		return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
	}
#else
	{
		/*
		 * No 128-bit type (32-bit targets): whole seconds, then
		 * rem * NS_PER_SEC / ticks_per_second by binary long
		 * multiplication, keeping q * ticks_per_second + r with
		 * r < ticks_per_second, so that it is exact, as above, in
		 * 64 bits (floating point would round).
		 */
		uint64_t secs = ticks / ticks_per_second, rem = ticks % ticks_per_second;
		uint64_t q = 0, r = 0;

		for (int bit = 29; bit >= 0; bit--) {	/* NS_PER_SEC < 2^30 */
			q <<= 1;
			if (r >= ticks_per_second - r) {
				r -= ticks_per_second - r;
				q++;
			} else {
				r <<= 1;
			}
			if (!(NS_PER_SEC >> bit & 1))
				continue;
			if (r >= ticks_per_second - rem) {
				r -= ticks_per_second - rem;
				q++;
			} else {
				r += rem;
			}
		}
		if (secs > (UINT64_MAX - q) / NS_PER_SEC)
			return UINT64_MAX;
		return secs * NS_PER_SEC + q;
	}
#endif
}

static int provider_new(struct tracebuf_reader *r, uint32_t id,
			const struct tracebuf_reader_str *name)
{
	struct provider *p;
	int ret;

	if (r->nproviders == r->providers_cap) {
		size_t ncap = r->providers_cap ? r->providers_cap * 2 : 8;

		if (ncap > SIZE_MAX / sizeof(*p))
			return -ENOMEM;
		p = realloc(r->providers, ncap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		r->providers = p;
		r->providers_cap = ncap;
	}
	ret = map_put(&r->ids, (uint64_t)id + 1, r->nproviders);
	if (ret)
		return ret;
	p = &r->providers[r->nproviders];
	p->id = id;
	p->ticks_per_second = NS_PER_SEC;
	p->name = *name;
	r->current = r->nproviders++;
	return 0;
}

static int decode_metadata(struct tracebuf_reader *r, uint64_t h, struct cursor *c,
			   struct tracebuf_reader_record *rec)
{
	static const struct tracebuf_reader_str empty;
	uint32_t id = (uint32_t)tracebuf_fxt_get(h, 20, 51);
	uint64_t slot;
	int ret;

	rec->meta.type = (unsigned int)tracebuf_fxt_get(h, 16, 19);
	switch (rec->meta.type) {
	case TRACEBUF_LIB_FXT_META_PROVIDER_INFO:
		rec->meta.provider_id = id;
		ret = take_stream(r, c, tracebuf_fxt_get(h, 52, 59), &rec->meta.name,
				  "provider name");
		if (ret)
			return ret;
		ret = provider_new(r, id, &rec->meta.name);
		break;
	case TRACEBUF_LIB_FXT_META_PROVIDER_SECTION:
		rec->meta.provider_id = id;
		if (map_get(&r->ids, (uint64_t)id + 1, &slot)) {
			r->current = (size_t)slot;
			return 0;
		}
		ret = provider_new(r, id, &empty);
		break;
	case TRACEBUF_LIB_FXT_META_PROVIDER_EVENT:
		rec->meta.provider_id = id;
		rec->meta.event = (unsigned int)tracebuf_fxt_get(h, 52, 55);
		return 0;
	case TRACEBUF_LIB_FXT_META_TRACE_INFO:
		rec->meta.trace_info_type = (unsigned int)tracebuf_fxt_get(h, 20, 23);
		rec->meta.trace_info = tracebuf_fxt_get(h, 24, 63);
		return 0;
	default:
		return 0;
	}
	return ret ? fail(r, ret, "out of memory") : 0;
}

static int decode_init(struct tracebuf_reader *r, struct cursor *c,
		       struct tracebuf_reader_record *rec)
{
	int ret = take_word(r, c, &rec->init.ticks_per_second, "ticks per second");

	if (ret)
		return ret;
	if (!rec->init.ticks_per_second)
		return fail(r, -EBADMSG, "initialization record with 0 ticks per second");
	r->providers[r->current].ticks_per_second = rec->init.ticks_per_second;
	return 0;
}

static int decode_string(struct tracebuf_reader *r, uint64_t h, struct cursor *c,
			 struct tracebuf_reader_record *rec)
{
	size_t at = c->off;
	uint64_t len = tracebuf_fxt_get(h, 32, 46);
	int ret;

	rec->string.index = (uint16_t)tracebuf_fxt_get(h, 16, 30);
	ret = take_stream(r, c, len, &rec->string.str, "string");
	if (ret || !rec->string.index)		/* index 0 is ignored (§4.2) */
		return ret;
	ret = map_put(&r->table, table_key(KEY_STRING, r->current, rec->string.index),
		      (uint64_t)at << 16 | len);
	return ret ? fail(r, ret, "out of memory") : 0;
}

static int decode_thread(struct tracebuf_reader *r, uint64_t h, struct cursor *c,
			 struct tracebuf_reader_record *rec)
{
	size_t at = c->off;
	int ret;

	rec->thread.index = (uint8_t)tracebuf_fxt_get(h, 16, 23);
	ret = take_word(r, c, &rec->thread.process_koid, "process koid");
	if (!ret)
		ret = take_word(r, c, &rec->thread.thread_koid, "thread koid");
	if (ret || !rec->thread.index)		/* index 0 is ignored (§4.2) */
		return ret;
	ret = map_put(&r->table, table_key(KEY_THREAD, r->current, rec->thread.index), at);
	return ret ? fail(r, ret, "out of memory") : 0;
}

static int decode_event(struct tracebuf_reader *r, uint64_t h, struct cursor *c,
			struct tracebuf_reader_record *rec)
{
	uint64_t tps = r->providers[r->current].ticks_per_second;
	int ret;

	rec->event.type = (unsigned int)tracebuf_fxt_get(h, 16, 19);
	rec->event.thread_ref = (uint8_t)tracebuf_fxt_get(h, 24, 31);
	ret = take_word(r, c, &rec->event.ticks, "timestamp");
	if (!ret)
		ret = take_thread(r, c, rec->event.thread_ref, &rec->event.process_koid,
				  &rec->event.thread_koid);
	if (!ret)
		ret = take_str(r, c, (unsigned int)tracebuf_fxt_get(h, 32, 47),
			       &rec->event.category, "category");
	if (!ret)
		ret = take_str(r, c, (unsigned int)tracebuf_fxt_get(h, 48, 63),
			       &rec->event.name, "name");
	if (!ret)
		ret = take_args(r, c, (unsigned int)tracebuf_fxt_get(h, 20, 23), rec);
	if (!ret && tracebuf_fxt_event_has_extra(rec->event.type))
		ret = take_word(r, c, &rec->event.extra, "event type-specific word");
	if (ret)
		return ret;
	rec->event.ns = ticks_to_ns(rec->event.ticks, tps);
	if (rec->event.type == TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE)
		rec->event.end_ns = ticks_to_ns(rec->event.end_ticks, tps);
	return 0;
}

static int decode_blob(struct tracebuf_reader *r, uint64_t h, struct cursor *c,
		       struct tracebuf_reader_record *rec)
{
	int ret;

	rec->blob.type = (unsigned int)tracebuf_fxt_get(h, 48, 55);
	ret = take_str(r, c, (unsigned int)tracebuf_fxt_get(h, 16, 31), &rec->blob.name,
		       "blob name");
	return ret ? ret : take_stream(r, c, tracebuf_fxt_get(h, 32, 46), &rec->blob.payload,
				       "blob payload");
}

static int decode_uobj(struct tracebuf_reader *r, uint64_t h, struct cursor *c,
		       struct tracebuf_reader_record *rec)
{
	uint64_t thread_koid;
	int ret;

	rec->uobj.thread_ref = (uint8_t)tracebuf_fxt_get(h, 16, 23);
	ret = take_word(r, c, &rec->uobj.pointer, "pointer");
	if (ret)
		return ret;
	/* Only the process koid is inline here, not the thread's (§4.2). */
	if (!rec->uobj.thread_ref)
		ret = take_word(r, c, &rec->uobj.process_koid, "process koid");
	else
		ret = take_thread(r, c, rec->uobj.thread_ref, &rec->uobj.process_koid,
				  &thread_koid);
	if (!ret)
		ret = take_str(r, c, (unsigned int)tracebuf_fxt_get(h, 24, 39), &rec->uobj.name,
			       "object name");
	return ret ? ret : take_args(r, c, (unsigned int)tracebuf_fxt_get(h, 40, 43), rec);
}

static int decode_kobj(struct tracebuf_reader *r, uint64_t h, struct cursor *c,
		       struct tracebuf_reader_record *rec)
{
	int ret;

	rec->kobj.obj_type = (unsigned int)tracebuf_fxt_get(h, 16, 23);
	ret = take_word(r, c, &rec->kobj.koid, "koid");
	if (!ret)
		ret = take_str(r, c, (unsigned int)tracebuf_fxt_get(h, 24, 39), &rec->kobj.name,
			       "object name");
	return ret ? ret : take_args(r, c, (unsigned int)tracebuf_fxt_get(h, 40, 43), rec);
}

/* A scheduling record (§4.2 type 8): context switches and wakeups. */
static int decode_sched(struct tracebuf_reader *r, uint64_t h, struct cursor *c,
			struct tracebuf_reader_record *rec)
{
	unsigned int nargs = (unsigned int)tracebuf_fxt_get(h, 16, 19);
	int ret;

	rec->sched.type = (unsigned int)tracebuf_fxt_get(h, 60, 63);
	switch (rec->sched.type) {
	case TRACEBUF_LIB_FXT_SCHED_LEGACY_SWITCH:
		rec->sched.cpu = (unsigned int)tracebuf_fxt_get(h, 16, 23);
		rec->sched.outgoing_state = (unsigned int)tracebuf_fxt_get(h, 24, 27);
		rec->sched.outgoing_priority = (int)tracebuf_fxt_get(h, 44, 51);
		rec->sched.incoming_priority = (int)tracebuf_fxt_get(h, 52, 59);
		ret = take_word(r, c, &rec->sched.ticks, "timestamp");
		if (!ret)
			ret = take_thread(r, c, (unsigned int)tracebuf_fxt_get(h, 28, 35),
					  &rec->sched.outgoing_process_koid,
					  &rec->sched.outgoing_koid);
		if (!ret)
			ret = take_thread(r, c, (unsigned int)tracebuf_fxt_get(h, 36, 43),
					  &rec->sched.incoming_process_koid,
					  &rec->sched.incoming_koid);
		nargs = 0;
		break;
	case TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH:
		rec->sched.outgoing_state = (unsigned int)tracebuf_fxt_get(h, 36, 39);
		/* fall through */
	case TRACEBUF_LIB_FXT_SCHED_THREAD_WAKEUP:
		rec->sched.cpu = (unsigned int)tracebuf_fxt_get(h, 20, 35);
		ret = take_word(r, c, &rec->sched.ticks, "timestamp");
		if (!ret && rec->sched.type == TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH)
			ret = take_word(r, c, &rec->sched.outgoing_koid, "outgoing thread koid");
		if (!ret)
			ret = take_word(r, c, &rec->sched.incoming_koid, "thread koid");
		break;
	default:	/* a newer event type: skipped by its size */
		return 0;
	}
	if (!ret)
		ret = take_args(r, c, nargs, rec);
	if (ret)
		return ret;
	rec->sched.ns = ticks_to_ns(rec->sched.ticks, r->providers[r->current].ticks_per_second);
	return 0;
}

static int decode_log(struct tracebuf_reader *r, uint64_t h, struct cursor *c,
		      struct tracebuf_reader_record *rec)
{
	int ret;

	rec->log.thread_ref = (uint8_t)tracebuf_fxt_get(h, 32, 39);
	ret = take_word(r, c, &rec->log.ticks, "timestamp");
	if (!ret)
		ret = take_thread(r, c, rec->log.thread_ref, &rec->log.process_koid,
				  &rec->log.thread_koid);
	if (!ret)
		ret = take_stream(r, c, tracebuf_fxt_get(h, 16, 30), &rec->log.message,
				  "log message");
	if (ret)
		return ret;
	rec->log.ns = ticks_to_ns(rec->log.ticks, r->providers[r->current].ticks_per_second);
	return 0;
}

TRACEBUF_API int tracebuf_reader_next(struct tracebuf_reader *r,
				      struct tracebuf_reader_record *rec)
{
	const struct provider *p;
	struct cursor c;
	uint64_t h, words;
	unsigned int type;
	size_t avail;
	int ret;

	if (!r || !rec)
		return -EINVAL;
	if (r->error)
		return r->error;
	if (r->pos == 0 && (r->flags & TRACEBUF_LIB_READER_MAGIC) &&
	    (r->len < 8 || load(r, 0) != TRACEBUF_LIB_FXT_MAGIC))
		return fail(r, -EBADMSG, "not an FXT trace: no magic record");
	avail = r->len - r->pos;
	if (!avail)
		return 0;
	if (avail < 8)
		return fail(r, -EBADMSG, "%zu trailing bytes are not a record", avail);
	h = load(r, r->pos);
	type = (unsigned int)tracebuf_fxt_get(h, 0, 3);
	words = tracebuf_fxt_record_words(h);
	if (!words)
		return fail(r, -EBADMSG, h ? "record of size 0" : "zero word instead of a record");
	if (words > avail / 8)
		return fail(r, -EBADMSG, "record of %llu words runs past the end of the input",
			    (unsigned long long)words);
	memset(rec, 0, sizeof(*rec));
	rec->type = type;
	rec->offset = r->pos;
	rec->size = (size_t)words * 8;
	rec->data = r->buf + r->pos;
	c.off = r->pos + 8;
	c.end = r->pos + rec->size;

	switch (rec->type) {
	case TRACEBUF_LIB_FXT_RECORD_METADATA:
		ret = decode_metadata(r, h, &c, rec);
		break;
	case TRACEBUF_LIB_FXT_RECORD_INIT:
		ret = decode_init(r, &c, rec);
		break;
	case TRACEBUF_LIB_FXT_RECORD_STRING:
		ret = decode_string(r, h, &c, rec);
		break;
	case TRACEBUF_LIB_FXT_RECORD_THREAD:
		ret = decode_thread(r, h, &c, rec);
		break;
	case TRACEBUF_LIB_FXT_RECORD_EVENT:
		ret = decode_event(r, h, &c, rec);
		break;
	case TRACEBUF_LIB_FXT_RECORD_BLOB:
		ret = decode_blob(r, h, &c, rec);
		break;
	case TRACEBUF_LIB_FXT_RECORD_USERSPACE_OBJECT:
		ret = decode_uobj(r, h, &c, rec);
		break;
	case TRACEBUF_LIB_FXT_RECORD_KERNEL_OBJECT:
		ret = decode_kobj(r, h, &c, rec);
		break;
	case TRACEBUF_LIB_FXT_RECORD_SCHEDULING:
		ret = decode_sched(r, h, &c, rec);
		break;
	case TRACEBUF_LIB_FXT_RECORD_LOG:
		ret = decode_log(r, h, &c, rec);
		break;
	default:	/* large and unknown records: not decoded */
		ret = 0;
		break;
	}
	if (ret)
		return ret;
	p = &r->providers[r->current];
	rec->provider_id = p->id;
	rec->provider_name = p->name;
	r->pos += rec->size;
	return 1;
}

/*
 * The read-out's checks (readout.c) skip the records they vouch for and
 * have the reader decode the others where they are: whatever the last
 * record was, the next is the one at @off.
 */
int tb_reader_next_at(struct tracebuf_reader *r, size_t off,
		      struct tracebuf_reader_record *rec)
{
	if (!r || off > r->len)
		return -EINVAL;
	r->pos = off;
	r->error = 0;
	return tracebuf_reader_next(r, rec);
}

TRACEBUF_API int tracebuf_reader_open_mem(const void *buf, size_t len, unsigned int flags,
					  struct tracebuf_reader **readerp)
{
	static const struct tracebuf_reader_str empty;
	struct tracebuf_reader *r;

	if (!readerp || (!buf && len) || (flags & ~TRACEBUF_LIB_READER_FLAGS))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->buf = buf;
	r->len = len;
	r->flags = flags;
	if (provider_new(r, 0, &empty)) {
		tracebuf_reader_close(r);
		return -ENOMEM;
	}
	*readerp = r;
	return 0;
}

/* Read all of fd into a malloc()ed buffer. */
static int read_all(int fd, void **bufp, size_t *lenp)
{
	size_t len = 0, cap = 64 * 1024;
	struct stat st;
	char *buf, *n;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uintmax_t)st.st_size < SIZE_MAX)
		cap = (size_t)st.st_size + 1;	/* + 1: EOF without a realloc */
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t got;

		if (len == cap) {
			if (cap > SIZE_MAX / 2)
				goto out_nomem;
			n = realloc(buf, cap * 2);
			if (!n)
				goto out_nomem;
			buf = n;
			cap *= 2;
		}
		got = read(fd, buf + len, cap - len);
		if (got < 0) {
			int err = -errno;

			if (err == -EINTR)
				continue;
			free(buf);
			return err;
		}
		if (!got)
			break;
		len += (size_t)got;
	}
	*bufp = buf;
	*lenp = len;
	return 0;

out_nomem:
	free(buf);
	return -ENOMEM;
}

TRACEBUF_API int tracebuf_reader_open_file(const char *path, unsigned int flags,
					   struct tracebuf_reader **readerp)
{
	void *buf = NULL;
	size_t len = 0;
	int fd, ret;

	if (!path || !readerp || (flags & ~TRACEBUF_LIB_READER_FLAGS))
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = read_all(fd, &buf, &len);
	close(fd);
	if (ret)
		return ret;
	ret = tracebuf_reader_open_mem(buf, len, flags, readerp);
	if (ret) {
		free(buf);
		return ret;
	}
	(*readerp)->owned = buf;
	return 0;
}

TRACEBUF_API size_t tracebuf_reader_error_offset(const struct tracebuf_reader *r)
{
	return r && r->error ? r->error_offset : 0;
}

TRACEBUF_API const char *tracebuf_reader_error(const struct tracebuf_reader *r)
{
	return r && r->error ? r->message : "";
}

TRACEBUF_API uint64_t tracebuf_reader_unresolved_refs(const struct tracebuf_reader *r)
{
	return r ? r->unresolved : 0;
}

TRACEBUF_API void tracebuf_reader_close(struct tracebuf_reader *r)
{
	if (!r)
		return;
	map_free(&r->table);
	map_free(&r->ids);
	free(r->providers);
	free(r->owned);
	free(r);
}

TRACEBUF_API long tracebuf_fxt_walk(const void *buf, size_t len, size_t *valid)
{
	const unsigned char *p = buf;
	size_t off = 0;
	long n = 0;

	if (valid)
		*valid = 0;
	if (!buf && len)
		return -EINVAL;
	while (len - off >= 8) {
		uint64_t h, words;

		memcpy(&h, p + off, sizeof(h));
		h = tracebuf_fxt_le64(h);
		words = tracebuf_fxt_record_words(h);
		if (!words || words > (len - off) / 8)
			break;
		off += (size_t)words * 8;
		n++;
	}
	if (valid)
		*valid = off;
	return n;
}
