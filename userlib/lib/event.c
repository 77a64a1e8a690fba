// SPDX-License-Identifier: MIT
/*
 * libtracebuf: the slow paths of writing events.  Call-site lookup
 * (categories), interning strings and registering threads in the durable
 * buffer, events that need copied strings or inline koids, and the record
 * that marks a window of dropped records.
 *
 * Everything here runs under the engine's lock, except
 * __tracebuf_emit_slow() (which takes it only to register the thread,
 * before it holds a chunk) and tb_drop_window() (which the engine calls
 * while the thread holds a fresh chunk: no lock).  The engine reaches
 * this file only through the hooks tb_event_install() gives it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <tracebuf_event.h>
#include <tracebuf_fxt.h>

#include "engine_priv.h"
#include "event_priv.h"
#include "lib_priv.h"

/* [engine lock] every call site ever looked up */
static struct tracebuf_site *tb_sites;
static struct tracebuf_site tb_sites_end;	/* list terminator */

static void tb_recheck_sites_locked(void);

/* [engine lock] categories enabled: none listed means all */
static char **tb_cats;
static unsigned int tb_ncats;

/* [engine lock] the string table, valid for one durable buffer */
#define TB_STRINGS_MAX	0x7fff
#define TB_HASH_SIZE	65536u
struct tb_string {
	const char *data;		/* in the durable buffer */
	uint32_t len;
	uint16_t index;
};
static struct tb_string *tb_hash;
static unsigned int tb_nstrings;
static unsigned int tb_tables_epoch;	/* thread_epoch they belong to */
static unsigned int tb_next_thread_ref;
static bool tb_process_written;

/* -------------------------------------------------------------------- */
/* Categories                                                           */

/* Set the enabled list: @count NUL-terminated strings in @blob. */
int tb_event_set_categories(const char *blob, size_t size,
			    unsigned int count)
{
	struct tracebuf_engine *e = tb_engine_get();
	char **cats = NULL;
	size_t off = 0;

	if (count) {
		cats = calloc(count, sizeof(*cats));
		if (!cats)
			return -ENOMEM;
	}
	for (unsigned int i = 0; i < count; i++) {
		size_t len = strnlen(blob + off, size - off);

		if (len == size - off) {
			for (unsigned int j = 0; j < i; j++)
				free(cats[j]);
			free(cats);
			return -EINVAL;
		}
		cats[i] = strndup(blob + off, len);
		if (!cats[i]) {
			for (unsigned int j = 0; j < i; j++)
				free(cats[j]);
			free(cats);
			return -ENOMEM;
		}
		off += len + 1;
	}
	pthread_mutex_lock(&e->lock);
	for (unsigned int i = 0; i < tb_ncats; i++)
		free(tb_cats[i]);
	free(tb_cats);
	tb_cats = cats;
	tb_ncats = count;
	tb_recheck_sites_locked();
	pthread_mutex_unlock(&e->lock);
	return 0;
}

/* Exact match, or prefix match for a pattern ending in '*'. */
static bool tb_pattern_matches(const char *pat, const char *cat)
{
	size_t len = strlen(pat);

	if (len && pat[len - 1] == '*')
		return !strncmp(cat, pat, len - 1);
	return !strcmp(cat, pat);
}

/*
 * Is @cat enabled?  An empty list enables every category.  An entry
 * enables the categories it matches, unless an entry "-PATTERN" matches
 * too: exclusions win.  A list of exclusions only enables every other
 * category (as Chrome's and Perfetto's category filters read "-cat").
 */
static bool tb_category_enabled(const char *cat)
{
	bool included = false, inclusions = false;

	for (unsigned int i = 0; i < tb_ncats; i++) {
		if (tb_cats[i][0] == '-') {
			if (tb_pattern_matches(tb_cats[i] + 1, cat))
				return false;
			continue;
		}
		inclusions = true;
		if (!included && tb_pattern_matches(tb_cats[i], cat))
			included = true;
	}
	return included || !inclusions;
}

/* -------------------------------------------------------------------- */
/* Strings and threads in the durable buffer                            */

/* A new durable buffer starts with empty tables. */
static void tb_tables_check(struct tracebuf_engine *e)
{
	unsigned int epoch = atomic_load(&e->thread_epoch);

	if (tb_tables_epoch == epoch)
		return;
	tb_tables_epoch = epoch;
	if (tb_hash)
		memset(tb_hash, 0, TB_HASH_SIZE * sizeof(*tb_hash));
	tb_nstrings = 0;
	tb_next_thread_ref = 1;
	tb_process_written = false;
}

static uint32_t tb_hash_str(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

/*
 * The string table index of @s, writing a string record the first time.
 * 0 when the table or the durable buffer is full: use the string inline.
 */
static uint16_t tb_intern(struct tracebuf_engine *e, const char *s, size_t len)
{
	uint32_t h;
	uint64_t *p;
	int size;

	if (!len || len > TRACEBUF_LIB_FXT_STRING_MAX)
		return 0;
	tb_tables_check(e);
	if (!tb_hash) {
		tb_hash = calloc(TB_HASH_SIZE, sizeof(*tb_hash));
		if (!tb_hash)
			return 0;
	}
	for (h = tb_hash_str(s, len) % TB_HASH_SIZE;; h = (h + 1) % TB_HASH_SIZE) {
		struct tb_string *ent = &tb_hash[h];

		if (!ent->index)
			break;
		if (ent->len == len && !memcmp(ent->data, s, len))
			return ent->index;
	}
	if (tb_nstrings == TB_STRINGS_MAX)
		return 0;
	size = tracebuf_fxt_string_size(len);
	p = size > 0 ? tb_engine_durable_alloc(e, (size_t)size) : NULL;
	if (!p)
		return 0;
	tracebuf_fxt_string_write(p, (size_t)size, (uint16_t)(tb_nstrings + 1), s, len);
	tb_hash[h].data = (const char *)(p + 1);
	tb_hash[h].len = (uint32_t)len;
	tb_hash[h].index = (uint16_t)++tb_nstrings;
	return tb_hash[h].index;
}

static struct tracebuf_fxt_str tb_str_ref(struct tracebuf_engine *e, const char *s)
{
	size_t len = strlen(s);
	uint16_t index = tb_intern(e, s, len);

	return index ? tracebuf_fxt_str_index(index) : tracebuf_fxt_str_inline(s, len);
}

static int tb_write_kobj(struct tracebuf_engine *e, const struct tracebuf_fxt_kobj *o)
{
	int size = tracebuf_fxt_kobj_size(o);
	uint64_t *p = size > 0 ? tb_engine_durable_alloc(e, (size_t)size) : NULL;

	if (!p)
		return size < 0 ? size : -ENOSPC;
	return tracebuf_fxt_kobj_write(p, (size_t)size, o) < 0 ? -EINVAL : 0;
}

static void tb_read_comm(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/*
 * The calling thread writes its first record since the durable buffer
 * was cleared: give it a thread ref (1..255, then inline koids) and name
 * it and its process with kernel-object records.  Engine lock held.
 */
static int tb_register_thread_locked(struct tracebuf_engine *e, struct tracebuf_thread *t)
{
	struct tracebuf_fxt_arg process_arg;
	struct tracebuf_fxt_kobj obj;
	char name[64];
	uint64_t *p;

	tb_tables_check(e);
	t->pid = (uint64_t)getpid();
	t->tid = (uint64_t)syscall(SYS_gettid);
	t->thread_ref = 0;
	if (!tb_process_written) {
		tb_read_comm("/proc/self/comm", name, sizeof(name));
		tracebuf_fxt_kobj_process(&obj, t->pid, tb_str_ref(e, name));
		if (!tb_write_kobj(e, &obj))
			tb_process_written = true;
	}
	if (tb_next_thread_ref <= 255) {
		p = tb_engine_durable_alloc(e, 24);
		if (p) {
			tracebuf_fxt_thread_write(p, 24, (uint8_t)tb_next_thread_ref,
						  t->pid, t->tid);
			t->thread_ref = tb_next_thread_ref++;
		}
	}
	if (pthread_getname_np(pthread_self(), name, sizeof(name)))
		name[0] = '\0';
	tracebuf_fxt_kobj_thread(&obj, &process_arg, t->tid, t->pid,
				 tb_str_ref(e, name));
	tb_write_kobj(e, &obj);
	return 0;
}

/* -------------------------------------------------------------------- */
/* Call sites                                                           */

/*
 * The categories changed, maybe while tracing (a manager's update, ABI
 * 1.6): a site whose category is now off is disabled at once; one now on
 * is looked up again at its next call.  A site that stays enabled is left
 * alone, since writers may be using what its lookup precomputed (its
 * fields are written only while it is UNKNOWN).  Lock held.
 */
static void tb_recheck_sites_locked(void)
{
	for (struct tracebuf_site *s = tb_sites; s && s != &tb_sites_end; s = s->next) {
		unsigned int state = atomic_load(&s->state);
		bool on = tb_category_enabled(s->category);

		if (state == TRACEBUF_LIB_SITE_ENABLED && !on)
			atomic_store_explicit(&s->state, TRACEBUF_LIB_SITE_DISABLED,
					      memory_order_release);
		else if (state == TRACEBUF_LIB_SITE_DISABLED && on)
			atomic_store_explicit(&s->state, TRACEBUF_LIB_SITE_UNKNOWN,
					      memory_order_release);
	}
}

/* Reset every cached site (tracing started or stopped).  Lock held. */
static void tb_flush_sites_locked(void)
{
	for (struct tracebuf_site *s = tb_sites; s && s != &tb_sites_end; s = s->next) {
		s->fast = false;
		atomic_store_explicit(&s->state, TRACEBUF_LIB_SITE_UNKNOWN,
				      memory_order_release);
	}
}

static uint64_t tb_arg_header(const struct tracebuf_fxt_arg *a, uint16_t name_index)
{
	uint64_t words = tracebuf_fxt_arg_has_word(a->type) ? 2 : 1;

	return tracebuf_fxt_field(a->type, 0, 3) | tracebuf_fxt_field(words, 4, 15) |
	       tracebuf_fxt_field(name_index, 16, 31);
}

/*
 * Decide whether @site's category is enabled, and if it is, intern its
 * strings and precompute its record when its shape is fixed (no string
 * values).  Returns the site's state.
 */
TRACEBUF_API unsigned int __tracebuf_site_lookup(struct tracebuf_site *site,
						 const struct tracebuf_fxt_arg *args,
						 unsigned int nargs)
{
	struct tracebuf_engine *e = tb_engine_get();
	struct tracebuf_fxt_arg shaped[TRACEBUF_LIB_MAX_ARGS];
	struct tracebuf_fxt_event ev = { 0 };
	struct tracebuf_fxt_event_shape shape;
	unsigned int state, engine_state;
	bool fixed = true, strings = false;

	pthread_mutex_lock(&e->lock);
	state = atomic_load(&site->state);
	if (state != TRACEBUF_LIB_SITE_UNKNOWN)
		goto out_unlock;
	if (!site->next) {
		site->next = tb_sites ? tb_sites : &tb_sites_end;
		tb_sites = site;
	}
	state = TRACEBUF_LIB_SITE_DISABLED;
	/*
	 * With the durable buffer full, tracing goes on and every record
	 * is counted as dropped: a site first reached then is enabled, so
	 * that its events are counted too.
	 */
	engine_state = atomic_load(&e->state);
	if ((engine_state != TRACEBUF_ENGINE_STARTED && engine_state != TRACEBUF_ENGINE_FULL) ||
	    !tb_category_enabled(site->category) || nargs > TRACEBUF_LIB_MAX_ARGS)
		goto out_store;

	state = TRACEBUF_LIB_SITE_ENABLED;
	site->category_ref = tb_str_ref(e, site->category);
	site->name_ref = tb_str_ref(e, site->name);
	site->nargs = (uint8_t)nargs;
	for (unsigned int i = 0; i < nargs; i++) {
		uint16_t index = tb_intern(e, args[i].name.data, args[i].name.len);

		shaped[i] = args[i];
		shaped[i].name = index ? tracebuf_fxt_str_index(index) : args[i].name;
		site->arg_header[i] = tb_arg_header(&args[i], index);
		/* a string's or a blob's bytes are read, and sized, each time */
		if (args[i].type == TRACEBUF_LIB_FXT_ARG_STRING ||
		    args[i].type == TRACEBUF_LIB_FXT_ARG_BLOB)
			strings = true;
		if (!index || args[i].type == TRACEBUF_LIB_FXT_ARG_STRING ||
		    args[i].type == TRACEBUF_LIB_FXT_ARG_BLOB)
			fixed = false;
	}
	site->strings = strings;
	if (site->category_ref.index == 0 && site->category_ref.len)
		fixed = false;
	if (site->name_ref.index == 0 && site->name_ref.len)
		fixed = false;
	if (fixed) {
		ev.type = site->type;
		ev.thread = tracebuf_fxt_thread_index(1);
		ev.category = site->category_ref;
		ev.name = site->name_ref;
		ev.args = shaped;
		ev.nargs = nargs;
		if (!tracebuf_fxt_event_shape(&shape, &ev)) {
			site->header = shape.header & ~tracebuf_fxt_field(0xff, 24, 31);
			site->size = shape.size;
			site->fast = true;
		}
	}
out_store:
	atomic_store_explicit(&site->state, state, memory_order_release);
out_unlock:
	pthread_mutex_unlock(&e->lock);
	return state;
}

/*
 * Events the fast path cannot write: string values, strings that did not
 * fit the table, a thread with inline koids, a site looked up for the
 * first time by this thread.
 */
TRACEBUF_API bool __tracebuf_emit_slow(struct tracebuf_site *site, unsigned int type,
				       const struct tracebuf_fxt_arg *args,
				       unsigned int nargs, uint64_t ticks,
				       uint64_t extra)
{
	struct tracebuf_engine *e = tb_engine_get();
	struct tracebuf_thread *t = &__tracebuf_self;
	struct tracebuf_fxt_arg named[TRACEBUF_LIB_MAX_ARGS];
	struct tracebuf_fxt_event ev = { 0 };
	uint32_t ref;
	uint64_t *p;
	int size;

	if (nargs > TRACEBUF_LIB_MAX_ARGS) {
		tb_engine_drop();
		return false;
	}
	/* Register before taking a chunk, so the thread ref is known. */
	if (t->epoch != atomic_load(&e->thread_epoch) &&
	    tb_engine_register_thread(t)) {
		tb_engine_drop();		/* an exited thread's */
		return false;
	}
	ref = t->thread_ref;
	/*
	 * The names the lookup interned, for the arguments it saw: a site's
	 * arguments are the same at each call but for trailing ones (a
	 * scoped duration's end has none, libposixtrace adds "truncated"
	 * to some events), which keep their names inline.
	 */
	for (unsigned int i = 0; i < nargs; i++) {
		uint16_t index = i < site->nargs ?
				 (uint16_t)tracebuf_fxt_get(site->arg_header[i], 16, 31) : 0;

		named[i] = args[i];
		if (index)
			named[i].name = tracebuf_fxt_str_index(index);
	}
	ev.type = type;
	ev.ticks = ticks;
	ev.thread = ref ? tracebuf_fxt_thread_index((uint8_t)ref) :
		    tracebuf_fxt_thread_inline(t->pid, t->tid);
	ev.category = site->category_ref;
	ev.name = site->name_ref;
	ev.args = named;
	ev.nargs = nargs;
	ev.extra = extra;
	size = tracebuf_fxt_event_size(&ev);
	if (size < 0) {
		/* a string over FXT's 32000 bytes, or all of them over a record's 32 KiB */
		tb_engine_drop();
		return false;
	}
	p = tracebuf_record_reserve(t, (size_t)size);
	if (!p)
		return false;
	if (!ev.ticks)
		ev.ticks = tracebuf_ticks();
	/* the durable buffer was cleared meanwhile: the refs are stale */
	if (t->thread_ref != ref) {
		tracebuf_fxt_pad_write(p, (size_t)size);
		tracebuf_record_commit(t, p + size / 8);
		tb_engine_drop();
		return false;
	}
	tracebuf_fxt_event_write(p, (size_t)size, &ev);
	tracebuf_record_commit(t, p + size / 8);
	return true;
}

TRACEBUF_API void __tracebuf_drop(void)
{
	tb_engine_drop();
}

TRACEBUF_API void __tracebuf_blob(struct tracebuf_site *site, unsigned int blob_type,
				  const void *data, size_t len)
{
	struct tracebuf_thread *t = &__tracebuf_self;
	struct tracebuf_fxt_str name = site->name_ref;
	int size = tracebuf_fxt_blob_size(&name, len);
	uint64_t *p;

	if (blob_type > 0xff || (len && !data))
		return;
	if (size < 0) {
		tb_engine_drop();		/* over a record's 32 KiB */
		return;
	}
	p = tracebuf_record_reserve(t, (size_t)size);
	if (!p)
		return;
	tracebuf_fxt_blob_write(p, (size_t)size, blob_type, &name, data, len);
	tracebuf_record_commit(t, p + size / 8);
}

/* The "records dropped" event of a drop window, for @thread. */
static void tb_window_event(struct tracebuf_fxt_event *ev, struct tracebuf_fxt_arg *arg,
			    struct tracebuf_fxt_thread thread)
{
	struct tracebuf_fxt_str count =
		tracebuf_fxt_str_inline(TRACEBUF_LIB_META_DROPPED_COUNT,
					sizeof(TRACEBUF_LIB_META_DROPPED_COUNT) - 1);

	memset(ev, 0, sizeof(*ev));
	ev->type = TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE;
	ev->thread = thread;
	ev->category = tracebuf_fxt_str_inline(TRACEBUF_LIB_META_CATEGORY,
					       TRACEBUF_LIB_META_CATEGORY_LEN);
	ev->name = tracebuf_fxt_str_inline(TRACEBUF_LIB_META_DROPPED,
					   sizeof(TRACEBUF_LIB_META_DROPPED) - 1);
	*arg = tracebuf_fxt_arg_uint64(count, 0);
	ev->args = arg;
	ev->nargs = 1;
}

/*
 * Called by the engine when a thread got a chunk while a window of
 * dropped records is open: close the window with a duration-complete
 * event "records dropped" in TRACEBUF_LIB_META_CATEGORY, from the first
 * drop to now, with the count, when the chunk holds it beside the @keep
 * bytes of the record the thread came for (else a later chunk closes
 * it).  Inline strings: no lock may be taken.
 */
static void tb_drop_window(struct tracebuf_engine *e, struct tracebuf_thread *t, size_t keep)
{
	struct tracebuf_fxt_arg arg;
	struct tracebuf_fxt_event ev;
	uint64_t *pos = atomic_load_explicit(&t->pos, memory_order_relaxed);
	uint64_t *end = atomic_load_explicit(&t->end, memory_order_relaxed);
	uint64_t start, count;
	int size;

	tb_window_event(&ev, &arg, t->thread_ref ?
			tracebuf_fxt_thread_index((uint8_t)t->thread_ref) :
			tracebuf_fxt_thread_inline(t->pid, t->tid));
	size = tracebuf_fxt_event_size(&ev);
	if (size < 0 || (size_t)((char *)end - (char *)pos) < (size_t)size + keep)
		return;		/* the next chunk will do */
	start = atomic_exchange(&e->window_start, 0);
	count = atomic_exchange(&e->window_dropped, 0);
	if (!start)
		return;
	arg.u64 = count;
	ev.ticks = start;
	ev.extra = tracebuf_ticks();
	tracebuf_fxt_event_write(pos, (size_t)size, &ev);
	atomic_store_explicit(&t->pos, pos + size / 8, memory_order_relaxed);
}

/*
 * Tracing stops while a window is open (a oneshot buffer filled, or
 * streaming waited for a save until the end): close it at @p, which has
 * @room bytes, on the stopping thread (inline koids: it may have no
 * thread ref).  Engine lock held, no writer left.  Returns the bytes
 * written: 0 with no window open or no room.
 */
static size_t tb_drop_window_at(struct tracebuf_engine *e, uint64_t *p, size_t room)
{
	struct tracebuf_fxt_arg arg;
	struct tracebuf_fxt_event ev;
	uint64_t start;
	int size;

	tb_window_event(&ev, &arg, tracebuf_fxt_thread_inline((uint64_t)getpid(),
							      (uint64_t)syscall(SYS_gettid)));
	size = tracebuf_fxt_event_size(&ev);
	start = atomic_load(&e->window_start);
	if (!start || size < 0 || (size_t)size > room)
		return 0;
	atomic_store(&e->window_start, 0);
	arg.u64 = atomic_exchange(&e->window_dropped, 0);
	ev.ticks = start;
	ev.extra = tracebuf_ticks();
	tracebuf_fxt_event_write(p, (size_t)size, &ev);
	return (size_t)size;
}

/* -------------------------------------------------------------------- */
/* Plugged into the engine                                              */

static const struct tracebuf_engine_hooks tb_event_hooks = {
	.register_thread_locked = tb_register_thread_locked,
	.flush_sites_locked = tb_flush_sites_locked,
	.drop_window = tb_drop_window,
	.drop_window_at = tb_drop_window_at,
};

void tb_event_install(void)
{
	tb_engine_set_hooks(&tb_event_hooks);
}
