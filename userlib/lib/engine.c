// SPDX-License-Identifier: MIT
/*
 * libtracebuf: the record engine.  Layout, chunk allocation, switching
 * rolling buffers per mode, closing chunks, saves, stop.  The hot path is
 * inline in tracebuf_engine.h; everything here is a slow path, taken once
 * per chunk, per rolling buffer or per control message.
 *
 * Layout (Documentation/trace-format.md §1.2).  Circular and streaming:
 * [header][durable][rolling 0][rolling 1].  Oneshot has one rolling buffer
 * and no durable one in the header; the engine keeps strings and threads
 * in a durable region at the start of rolling buffer 0, so a reader meets
 * every definition before its use.
 *
 * The cursor is one 64-bit word, wrapped count << 32 | offset in the
 * current rolling buffer.  Chunks are taken with a compare-and-swap, so the
 * offset never runs past the rolling buffer; the thread that finds no room
 * swaps in TRACEBUF_CURSOR_FULL, pads what is left of the rolling buffer and
 * switches.
 *
 * Every byte of a rolling buffer is accounted exactly once in done[rb] when the
 * chunk holding it is finished (padded); a rolling buffer is complete, and may
 * be saved or reused, when done reaches its target.  Writers never take
 * e->lock while they hold a chunk (writing == 1), so a closer holding it
 * can wait for them.
 *
 * Memory ordering.  Nothing relies on x86's ordering (TSO); each
 * publication between threads, and between the provider and the manager
 * or the kernel, and what makes it safe on arm64 too:
 *  - a record: the owner's plain stores, then pos (relaxed) and writing =
 *    0 (release); a closer reads pos after it loaded writing == 0
 *    (acquire).  The owner's "writing = 1, load closed" and the closer's
 *    "closed = 1, load writing" are ordered by membarrier() (the owner's
 *    barrier) or by full fences on both sides; so a closer pads only a
 *    chunk it marked before its barrier (tb_close_rolling()).
 *  - a chunk: closed = 0, pos, end and chunk_len are stored before its tag
 *    (release); a closer loads the tag (seq_cst, so acquire) before them.
 *    The tag's compare-and-swap to CLOSING gives the chunk to one padder;
 *    DONE (release) hands pos and end back to an owner waiting for it
 *    (acquire).
 *  - a rolling buffer: every byte is added to done[] by an acq_rel
 *    read-modify-write after it was written or padded; whoever closes the
 *    rolling buffer loads done (acquire) up to its target, so all of its
 *    records and padding come before what it does next (reuse, data ends,
 *    SAVE_BUFFER, STOPPED).
 *  - the cursor: tb_enter_rolling() zeroes done[] and the data end, then
 *    stores the cursor (release); writers load it (acquire), CAS it.
 *  - the layout (rolling_size, rolling, mode, fill_limit) is written under
 *    e->lock before the state becomes STARTED (seq_cst); a writer reads it
 *    only after it loaded the state.
 *  - a call site: __tracebuf_site_lookup() fills it under e->lock, then
 *    stores its state (release); TRACEBUF_LIB_SITE_READY loads ENABLED
 *    with acquire before the site's header, size and strings are read.
 *  - provider to manager: records, padding and the header's data ends are
 *    stored before the SAVE_BUFFER or STOPPED ioctl; the kernel passes the
 *    packet under a lock the manager's read() takes, which orders them
 *    before the manager's loads (uapi header, "Memory ordering").
 *    stop_mark is stored last, with release, for a manager reading the
 *    header with no packet; it loads stop_mark first, with acquire.
 *  - manager to provider: the manager is done with a saved rolling buffer
 *    (written out, or copied) before its BUFFER_SAVED ioctl; the provider
 *    zeroes the rolling buffer after its read() of that packet, then clears the
 *    data end (release) and refills it.  A sealed rolling buffer
 *    (TRACEBUF_INIT_F_SEAL_SAVES) is not touched in between: that would be
 *    SIGBUS.
 *  - hints are relaxed: bytes_recorded, num_records_dropped (read while
 *    written: a stale value is only a less accurate hint), the hot epoch
 *    (pairs begins with ends on one thread), use_counter and strong_fence
 *    (set before any writer can run: writers start after STARTED).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/tracebuf.h>
#include <tracebuf_fxt.h>

#include "engine_priv.h"
#include "lib_priv.h"
#include "layout_priv.h"

struct tracebuf_engine_hot __tracebuf_hot;
__thread struct tracebuf_thread __tracebuf_self
	__attribute__((tls_model("initial-exec")));

static struct tracebuf_engine tb_engine = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.ticks_per_second = 1000000000ull,	/* CLOCK_MONOTONIC until told */
};

struct tracebuf_engine *tb_engine_get(void)
{
	return &tb_engine;
}

/* -------------------------------------------------------------------- */
/* Records the engine writes itself                                     */

/* Fill a gap of @bytes (a multiple of 8, maybe 0) with records readers skip. */
void tb_pad(uint64_t *p, size_t bytes)
{
	if (bytes)
		tracebuf_fxt_pad_write(p, bytes);
}

/* -------------------------------------------------------------------- */
/* Layout                                                               */

void tb_engine_format(void *buf, size_t size, uint32_t mode)
{
	struct tracebuf_buffer_header *h = buf;

	memset(h, 0, sizeof(*h));
	h->magic = TRACEBUF_HEADER_MAGIC;
	h->version = TRACEBUF_HEADER_VERSION;
	h->total_size = size;
	h->buffering_mode = tracebuf_layout_header_mode(mode);
	h->durable_buffer_size = tracebuf_layout_durable_size(size, mode);
	h->rolling_buffer_size = tracebuf_layout_rolling_size(size, mode);
}

/*
 * Check what the kernel (or tb_engine_format) wrote; trust nothing:
 * the sizes must be the layout rule's for this size and mode.
 */
static int tb_check_header(const struct tracebuf_buffer_header *h, size_t size,
			   uint32_t mode)
{
	if (mode < TRACEBUF_MODE_ONESHOT || mode > TRACEBUF_MODE_STREAMING ||
	    size < TRACEBUF_BUFFER_MIN || size % 8 ||
	    h->magic != TRACEBUF_HEADER_MAGIC ||
	    h->version != TRACEBUF_HEADER_VERSION ||
	    h->buffering_mode != tracebuf_layout_header_mode(mode) ||
	    h->total_size != size ||
	    h->durable_buffer_size != tracebuf_layout_durable_size(size, mode) ||
	    h->rolling_buffer_size != tracebuf_layout_rolling_size(size, mode) ||
	    h->durable_buffer_size % 8 || h->rolling_buffer_size % 8)
		return -EINVAL;
	return 0;
}

/* -------------------------------------------------------------------- */
/* Chunks                                                               */

static void tb_account(struct tracebuf_engine *e, uint32_t wrap, uint64_t bytes)
{
	atomic_fetch_add_explicit(&e->done[wrap & 1], bytes,
				  memory_order_acq_rel);
}

static uint64_t *tb_rolling(struct tracebuf_engine *e, uint32_t wrap)
{
	return (uint64_t *)e->rolling[wrap & 1];
}

/*
 * Pad the unused tail of @t's chunk and account the chunk.  The caller
 * won the tag's compare-and-swap, so nobody else touches the chunk.
 */
static void tb_chunk_pad(struct tracebuf_engine *e, struct tracebuf_thread *t,
			 uint32_t wrap)
{
	uint64_t *pos = atomic_load_explicit(&t->pos, memory_order_relaxed);
	uint64_t *end = atomic_load_explicit(&t->end, memory_order_relaxed);

	if (end > pos)
		tb_pad(pos, (size_t)((char *)end - (char *)pos));
	tb_account(e, wrap, atomic_load_explicit(&t->chunk_len,
						 memory_order_relaxed));
}

/*
 * The owner gives its chunk up (slow path, writing == 1).  If a closer
 * already took it, wait until the closer is done with pos and end.
 */
static void tb_chunk_release(struct tracebuf_engine *e, struct tracebuf_thread *t)
{
	uint64_t tag = atomic_load_explicit(&t->tag, memory_order_acquire);
	uint32_t wrap = TRACEBUF_CHUNK_WRAP(tag);

	if (TRACEBUF_CHUNK_STATE(tag) == TRACEBUF_CHUNK_OPEN &&
	    atomic_compare_exchange_strong(&t->tag, &tag,
					   TRACEBUF_CHUNK_TAG(wrap, TRACEBUF_CHUNK_CLOSING))) {
		tb_chunk_pad(e, t, wrap);
		atomic_store_explicit(&t->tag,
				      TRACEBUF_CHUNK_TAG(wrap, TRACEBUF_CHUNK_DONE),
				      memory_order_release);
	} else {
		while (TRACEBUF_CHUNK_STATE(atomic_load_explicit(&t->tag,
								 memory_order_acquire)) ==
		       TRACEBUF_CHUNK_CLOSING)
			sched_yield();
	}
	/* No room left: the fast path must not write into a finished chunk. */
	atomic_store_explicit(&t->end, atomic_load_explicit(&t->pos,
							    memory_order_relaxed),
			      memory_order_relaxed);
}

/*
 * Take a chunk of *@len bytes from the cursor, or of what is left of the
 * rolling buffer if that is less but holds the @bytes the caller writes first
 * (*@len then says how much): the end of a rolling buffer is padded only when
 * the record that comes to it does not fit.  Returns 0 and the chunk, -ENOSPC
 * when the calling thread found the rolling buffer full and must switch (it
 * owns [*off, rolling_size) and *wrap), -EAGAIN when the rolling buffer is
 * already full (someone else switches, or a save is awaited).
 */
static int tb_cursor_take(struct tracebuf_engine *e, uint64_t *len, uint64_t bytes,
			  uint32_t *wrap, uint64_t *off)
{
	uint64_t cur = atomic_load_explicit(&e->cursor, memory_order_acquire);

	for (;;) {
		uint64_t o = cur & 0xffffffffull;
		uint64_t n = *len;

		*wrap = (uint32_t)(cur >> 32);
		*off = o;
		if (o > e->rolling_size)
			return -EAGAIN;
		if (o + n > e->fill_limit && o + bytes <= e->fill_limit)
			n = e->fill_limit - o;
		if (o + n <= e->fill_limit) {
			if (atomic_compare_exchange_weak(&e->cursor, &cur, cur + n)) {
				*len = n;
				return 0;
			}
			continue;
		}
		if (atomic_compare_exchange_weak(&e->cursor, &cur,
						 ((uint64_t)*wrap << 32) |
						 TRACEBUF_CURSOR_FULL(e)))
			return -ENOSPC;
	}
}

/* -------------------------------------------------------------------- */
/* Drops                                                                */

static void tb_notify(struct tracebuf_engine *e)
{
	if (!atomic_exchange(&e->service_needed, 1) && e->ops.notify)
		e->ops.notify(e->ops.arg);
}

/*
 * A record is dropped.  The first of a window asks for a service, which
 * puts the count in the header, where a manager shows it.
 */
static void tb_drop(struct tracebuf_engine *e)
{
	uint64_t zero = 0;

	atomic_fetch_add_explicit(&e->dropped, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&e->window_dropped, 1, memory_order_relaxed);
	if (atomic_compare_exchange_strong(&e->window_start, &zero,
					   tracebuf_ticks() | 1))
		tb_notify(e);
}

void tb_engine_drop(void)
{
	struct tracebuf_engine *e = &tb_engine;
	uint32_t state = atomic_load(&e->state);

	if (state == TRACEBUF_ENGINE_STARTED || state == TRACEBUF_ENGINE_FULL)
		tb_drop(e);
}

/* -------------------------------------------------------------------- */
/* Switching rolling buffers                                            */

static int tb_membarrier(int cmd)
{
	return (int)syscall(__NR_membarrier, cmd, 0, 0);
}

/*
 * Make every chunk of @wrap in its rolling buffer finished, until the rolling
 * buffer's done count reaches @target.  Called with e->lock held; writers
 * holding a chunk never wait for e->lock, so waiting for them here cannot
 * deadlock.
 */
static void tb_close_rolling(struct tracebuf_engine *e, uint32_t wrap,
			     uint64_t target)
{
	struct tracebuf_thread *t;
	unsigned int spins = 0;

	while (atomic_load_explicit(&e->done[wrap & 1], memory_order_acquire) <
	       target) {
		const uint64_t open = TRACEBUF_CHUNK_TAG(wrap, TRACEBUF_CHUNK_OPEN);
		bool marked = false;

		for (t = e->threads; t; t = t->next) {
			if (atomic_load(&t->tag) == open) {
				atomic_store_explicit(&t->closed, 1,
						      memory_order_relaxed);
				marked = true;
			}
		}
		if (marked && !atomic_load(&__tracebuf_hot.strong_fence))
			tb_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
		else
			atomic_thread_fence(memory_order_seq_cst);
		for (t = e->threads; t; t = t->next) {
			uint64_t tag = open;

			/*
			 * Only a chunk marked above, before the barrier: one
			 * published since (taken from the cursor before the
			 * rolling buffer closed) has closed == 0, and its owner
			 * would go on writing in it after we padded it.  The
			 * next round marks it.
			 */
			if (atomic_load(&t->tag) != open ||
			    !atomic_load_explicit(&t->closed, memory_order_relaxed))
				continue;
			while (atomic_load_explicit(&t->writing,
						    memory_order_acquire))
				sched_yield();
			if (!atomic_compare_exchange_strong(&t->tag, &tag,
							    TRACEBUF_CHUNK_TAG(wrap, TRACEBUF_CHUNK_CLOSING)))
				continue;
			tb_chunk_pad(e, t, wrap);
			atomic_store_explicit(&t->tag,
					      TRACEBUF_CHUNK_TAG(wrap, TRACEBUF_CHUNK_DONE),
					      memory_order_release);
		}
		/* a chunk taken but not yet published, or its owner busy */
		if (++spins > 16)
			usleep(100);
		else
			sched_yield();
	}
}

/* Start filling the rolling buffer of @wrap. */
static void tb_enter_rolling(struct tracebuf_engine *e, uint32_t wrap)
{
	uint32_t h = wrap & 1;

	e->rolling_state[h] = TB_ROLLING_FILLING;
	e->rolling_wrap[h] = wrap;
	e->enter_ns[h] = __tracebuf_ticks_slow();
	e->reserve_at[h] = e->fill_limit;
	atomic_store(&e->done[h], 0);
	e->hdr->rolling_data_end[h] = 0;
	/* for a snapshot's reader: which wrap is being written now */
	if (e->mode == TRACEBUF_MODE_CIRCULAR)
		e->hdr->wrapped_count = wrap;
	atomic_store_explicit(&e->cursor, (uint64_t)wrap << 32,
			      memory_order_release);
}

/*
 * The rolling buffer of @wrap is done with (full, or closed at a stop): go on
 * in the next one, if the mode has one.  Called with e->lock held.  Circular
 * mode reuses the other rolling buffer at once, closing what is left in it
 * first; streaming waits for it to be saved.
 */
static void tb_switch_next(struct tracebuf_engine *e, uint32_t wrap)
{
	uint32_t n = (wrap & 1) ^ 1;

	if (e->mode == TRACEBUF_MODE_ONESHOT)
		return;
	tb_notify(e);
	switch (e->rolling_state[n]) {
	case TB_ROLLING_FULL:
		if (e->mode == TRACEBUF_MODE_STREAMING)
			break;
		tb_close_rolling(e, e->rolling_wrap[n], e->rolling_size);
		e->rolling_state[n] = TB_ROLLING_FREE;
		/* fall through */
	case TB_ROLLING_FREE:
		tb_enter_rolling(e, wrap + 1);
		return;
	default:
		break;
	}
	e->switch_waiting = true;
	e->wait_since_ns = __tracebuf_ticks_slow();
	atomic_store(&e->waiting_save, 1);
}

/* The rolling buffer of @wrap is full (the caller padded its tail); e->lock held. */
static void tb_switch(struct tracebuf_engine *e, uint32_t wrap)
{
	if ((uint32_t)(atomic_load(&e->cursor) >> 32) != wrap ||
	    e->rolling_state[wrap & 1] != TB_ROLLING_FILLING)
		return;
	e->rolling_state[wrap & 1] = TB_ROLLING_FULL;
	e->fill_us[e->fills++ % TB_SAVE_SAMPLES] =
		(uint32_t)((__tracebuf_ticks_slow() - e->enter_ns[wrap & 1]) / 1000);
	tb_switch_next(e, wrap);
}

/* -------------------------------------------------------------------- */
/* The slow path of tracebuf_record_reserve()                            */

/*
 * The rolling buffer of @wrap is full and another thread is switching, or a
 * snapshot's seal holds the cursor: wait for it, unless the switch waits
 * for a save (streaming) or there is none to come (oneshot, stopping).
 * Returns true to retry.
 */
static bool tb_wait_switch(struct tracebuf_engine *e, uint32_t wrap)
{
	for (unsigned int i = 0; i < 100000; i++) {
		uint64_t cur = atomic_load(&e->cursor);

		if ((uint32_t)(cur >> 32) != wrap || (cur & 0xffffffffull) <= e->rolling_size)
			return true;
		if (atomic_load(&e->sealing)) {
			sched_yield();
			continue;
		}
		if (e->mode == TRACEBUF_MODE_ONESHOT ||
		    atomic_load(&e->waiting_save) ||
		    atomic_load(&e->state) != TRACEBUF_ENGINE_STARTED)
			return false;
		sched_yield();
	}
	return false;
}

/* The event layer's hooks, or NULL before it installed them. */
static const struct tracebuf_engine_hooks *tb_hooks(struct tracebuf_engine *e)
{
	return atomic_load_explicit(&e->hooks, memory_order_acquire);
}

void tb_engine_set_hooks(const struct tracebuf_engine_hooks *hooks)
{
	atomic_store_explicit(&tb_engine.hooks, hooks, memory_order_release);
}

/* Every call site looks its category up again; e->lock held. */
static void tb_flush_sites_locked(struct tracebuf_engine *e)
{
	const struct tracebuf_engine_hooks *h = tb_hooks(e);

	if (h && h->flush_sites_locked)
		h->flush_sites_locked();
}

static int tb_register_thread(struct tracebuf_engine *e, struct tracebuf_thread *t)
{
	const struct tracebuf_engine_hooks *h = tb_hooks(e);
	int ret = 0;

	pthread_mutex_lock(&e->lock);
	/* listed again, its chunk would be one no closer sees: stop would wait for ever */
	if (t->exited) {
		pthread_mutex_unlock(&e->lock);
		return -ESRCH;
	}
	if (!t->registered) {
		t->next = e->threads;
		e->threads = t;
		t->registered = true;
		pthread_setspecific(e->thread_key, t);
	}
	if (t->epoch != atomic_load(&e->thread_epoch)) {
		t->epoch = atomic_load(&e->thread_epoch);
		if (h && h->register_thread_locked)
			ret = h->register_thread_locked(e, t);
	}
	pthread_mutex_unlock(&e->lock);
	return ret;
}

/* Register the calling thread in the current durable buffer (no chunk held). */
int tb_engine_register_thread(struct tracebuf_thread *t)
{
	return tb_register_thread(&tb_engine, t);
}

/*
 * How much to take for @t's next chunk.  A thread that filled its last
 * chunk within TRACEBUF_CHUNK_FAST_NS gets one twice as large, up to
 * e->chunk_max: a fast writer then comes to the shared cursor (and its
 * cache line) rarely; a slow one keeps small chunks, so little is padded
 * when a rolling buffer closes.
 */
static uint64_t tb_chunk_len(struct tracebuf_engine *e, struct tracebuf_thread *t)
{
	uint64_t now = tracebuf_ticks();

	if (t->chunk_want < e->chunk_size || t->chunk_want > e->chunk_max ||
	    now - t->chunk_ticks > 64 * e->chunk_fast_ticks)
		t->chunk_want = e->chunk_size;
	else if (now - t->chunk_ticks < e->chunk_fast_ticks &&
		 t->chunk_want < e->chunk_max)
		t->chunk_want *= 2;
	t->chunk_ticks = now;
	return t->chunk_want;
}

static void tb_request_save_locked(struct tracebuf_engine *e);

uint64_t *__tracebuf_reserve_slow(struct tracebuf_thread *t, size_t bytes)
{
	struct tracebuf_engine *e = &tb_engine;
	uint64_t len, off;
	uint32_t wrap;
	int ret;

	/* Give up the old chunk; then we hold nothing and may take locks. */
	tb_chunk_release(e, t);
	atomic_store_explicit(&t->writing, 0, memory_order_release);

	switch (atomic_load(&e->state)) {
	case TRACEBUF_ENGINE_STARTED:
		break;
	case TRACEBUF_ENGINE_FULL:
		goto drop;
	default:
		return NULL;	/* not tracing: nothing is dropped */
	}
	if (bytes % 8 || bytes > e->fill_limit / 4)
		goto drop;
	if ((t->exited || t->epoch != atomic_load(&e->thread_epoch)) && tb_register_thread(e, t))
		goto drop;

	/* A record larger than a chunk gets a chunk of its own size. */
	len = tb_chunk_len(e, t);
	if (bytes > len)
		len = bytes;
	for (;;) {
		ret = tb_cursor_take(e, &len, bytes, &wrap, &off);
		if (!ret)
			break;
		if (ret == -ENOSPC) {
			uint64_t *rb = tb_rolling(e, wrap);

			/* the stop reserve gets a pad of its own: stop may reuse it */
			tb_pad(rb + off / 8, e->fill_limit - off);
			tb_pad(rb + e->fill_limit / 8, TRACEBUF_STOP_RESERVE);
			tb_account(e, wrap, e->rolling_size - off);
			pthread_mutex_lock(&e->lock);
			tb_switch(e, wrap);
			tb_request_save_locked(e);
			pthread_mutex_unlock(&e->lock);
			continue;
		}
		if (tb_wait_switch(e, wrap))
			continue;
		goto drop;	/* full: oneshot, or streaming awaiting a save */
	}

	/* a hint for managers; the chunk is not accounted yet: hdr stays */
	__atomic_store_n(&e->hdr->bytes_recorded, (uint64_t)wrap * e->rolling_size + off + len,
			 __ATOMIC_RELAXED);
	atomic_store_explicit(&t->writing, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
	atomic_store_explicit(&t->closed, 0, memory_order_relaxed);
	atomic_store_explicit(&t->chunk_len, len, memory_order_relaxed);
	atomic_store_explicit(&t->pos, tb_rolling(e, wrap) + off / 8,
			      memory_order_relaxed);
	atomic_store_explicit(&t->end, tb_rolling(e, wrap) + (off + len) / 8,
			      memory_order_relaxed);
	atomic_store_explicit(&t->tag, TRACEBUF_CHUNK_TAG(wrap, TRACEBUF_CHUNK_OPEN),
			      memory_order_release);
	if (atomic_load_explicit(&e->window_start, memory_order_relaxed)) {
		const struct tracebuf_engine_hooks *h = tb_hooks(e);

		if (h && h->drop_window)
			h->drop_window(e, t, bytes);
	}
	return atomic_load_explicit(&t->pos, memory_order_relaxed);

drop:
	tb_drop(e);
	return NULL;
}

/* -------------------------------------------------------------------- */
/* Durable records (strings, threads): under e->lock                     */

/*
 * Reserve @bytes in the durable buffer.  NULL when it is full: then
 * tracing stops for this provider (durable records must not be lost).
 */
uint64_t *tb_engine_durable_alloc(struct tracebuf_engine *e, size_t bytes)
{
	uint64_t *p;

	if (e->durable_pos + bytes > e->durable_size) {
		if (!e->durable_full) {
			struct tracebuf_thread *t;

			e->durable_full = true;
			atomic_store(&e->state, TRACEBUF_ENGINE_FULL);
			for (t = e->threads; t; t = t->next)
				atomic_store(&t->closed, 1);
			tb_notify(e);
		}
		return NULL;
	}
	p = e->durable + e->durable_pos / 8;
	e->durable_pos += bytes;
	return p;
}

/* -------------------------------------------------------------------- */
/* Control: attach, start, stop, service, saved, detach                 */

static pthread_once_t tb_once = PTHREAD_ONCE_INIT;

static void tb_thread_exit(void *arg)
{
	struct tracebuf_engine *e = &tb_engine;
	struct tracebuf_thread *t = arg, **pp;

	tb_chunk_release(e, t);
	pthread_mutex_lock(&e->lock);
	for (pp = &e->threads; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	}
	t->registered = false;
	t->exited = true;
	pthread_mutex_unlock(&e->lock);
}

static void tb_fork_prepare(void)
{
	pthread_mutex_lock(&tb_engine.lock);
}

static void tb_fork_parent(void)
{
	pthread_mutex_unlock(&tb_engine.lock);
}

/*
 * The child has one thread and no trace buffer (its mapping is
 * VM_DONTCOPY): detach without touching memory, so every record it tries
 * is refused, and forget its parent's other threads (its provider is
 * forgotten by provider.c's own fork handler).
 */
static void tb_fork_child(void)
{
	struct tracebuf_engine *e = &tb_engine;
	struct tracebuf_thread *t = &__tracebuf_self;

	atomic_store(&e->state, TRACEBUF_ENGINE_OFF);
	e->base = NULL;
	e->hdr = NULL;
	e->threads = t->registered ? t : NULL;
	t->next = NULL;
	atomic_store(&t->closed, 1);
	atomic_store(&t->tag, TRACEBUF_CHUNK_TAG(0, TRACEBUF_CHUNK_NONE));
	atomic_store(&t->end, atomic_load(&t->pos));
	atomic_fetch_add(&__tracebuf_hot.epoch, 1);
	tb_flush_sites_locked(e);
	pthread_mutex_unlock(&e->lock);
}

static void tb_once_init(void)
{
	struct tracebuf_engine *e = &tb_engine;

	pthread_key_create(&e->thread_key, tb_thread_exit);
	pthread_atfork(tb_fork_prepare, tb_fork_parent, tb_fork_child);
	if (tb_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED))
		atomic_store(&__tracebuf_hot.strong_fence, 1);
}

void tb_engine_init(void)
{
	pthread_once(&tb_once, tb_once_init);
}

int tb_engine_attach(void *buf, size_t size, uint32_t mode,
		     const struct tracebuf_engine_ops *ops)
{
	struct tracebuf_engine *e = &tb_engine;
	struct tracebuf_buffer_header *h = buf;
	struct tb_layout l;
	int ret;

	pthread_once(&tb_once, tb_once_init);
	ret = tb_check_header(h, size, mode);
	if (ret)
		return ret;

	pthread_mutex_lock(&e->lock);
	if (e->base) {
		pthread_mutex_unlock(&e->lock);
		return -EBUSY;
	}
	e->base = buf;
	e->size = size;
	e->mode = mode;
	e->hdr = h;
	e->ops = ops ? *ops : (struct tracebuf_engine_ops){ 0 };
	tb_layout_compute(&l, size, mode);
	e->rolling_size = l.rolling_size;
	e->fill_limit = e->rolling_size - TRACEBUF_STOP_RESERVE;
	e->reserve_at[0] = e->reserve_at[1] = e->fill_limit;
	e->rolling[0] = (uint8_t *)buf + l.rolling_off[0];
	/* oneshot: the second rolling buffer is never reached */
	e->rolling[1] = e->rolling[0] + e->rolling_size;
	if (mode == TRACEBUF_MODE_ONESHOT) {
		e->durable = (uint64_t *)e->rolling[0];
		e->durable_size = tb_oneshot_durable(e->rolling_size);
	} else {
		e->durable = (uint64_t *)((uint8_t *)buf + l.durable_off);
		e->durable_size = l.durable_size;
	}
	tb_chunk_rule(e->rolling_size, &e->chunk_size, &e->chunk_max);
	e->chunk_fast_ticks = e->ticks_per_second / (1000000000u / TRACEBUF_CHUNK_FAST_NS);
	e->rolling_state[0] = e->rolling_state[1] = TB_ROLLING_FREE;
	e->durable_pos = 0;
	e->never_started = true;
	atomic_store(&e->service_needed, 0);
	atomic_store(&e->state, TRACEBUF_ENGINE_OFF);
	atomic_store(&e->cursor, (uint64_t)TRACEBUF_CURSOR_FULL(e));
	pthread_mutex_unlock(&e->lock);
	return 0;
}

/*
 * RETAIN: continue where the stop froze the cursor; e->lock held, no
 * writer yet.  A rolling buffer the stop found full (closed already), or filled
 * past its fill limit (its stop window took the rest), is gone on from
 * as a writer that filled it would: to the next rolling buffer, or in oneshot
 * mode nowhere (what is written now is dropped).  Taking room from past
 * the fill limit would pad a negative length.
 */
static void tb_start_retain(struct tracebuf_engine *e)
{
	uint32_t wrap = e->stop_wrap, h = wrap & 1;
	uint64_t off = e->stop_off;

	/* a switch that waited for a save at the stop is decided again here */
	e->switch_waiting = false;
	atomic_store(&e->waiting_save, 0);
	if (e->rolling_state[h] == TB_ROLLING_STOPPED && off <= e->fill_limit) {
		e->rolling_state[h] = TB_ROLLING_FILLING;
		atomic_store(&e->done[h], off);
		atomic_store(&e->cursor, (uint64_t)wrap << 32 | off);
		return;
	}
	atomic_store(&e->cursor, (uint64_t)wrap << 32 | TRACEBUF_CURSOR_FULL(e));
	if (e->rolling_state[h] == TB_ROLLING_STOPPED) {
		/* full now: closed by the next service, as a switch leaves it */
		tb_pad(tb_rolling(e, wrap) + off / 8, e->rolling_size - off);
		atomic_store(&e->done[h], e->rolling_size);
		e->rolling_state[h] = TB_ROLLING_FULL;
	}
	tb_switch_next(e, wrap);
}

/*
 * Start with @disposition (TRACEBUF_START_*).  The kernel already zeroed
 * what the disposition clears; with TRACEBUF_ENGINE_F_CLEAR (no kernel,
 * e.g. a memfd) the engine zeroes it itself.
 */
int tb_engine_start(uint32_t disposition, uint32_t flags)
{
	struct tracebuf_engine *e = &tb_engine;
	struct tracebuf_buffer_header *h;
	uint64_t rolling_bytes;
	int ret = 0;

	pthread_mutex_lock(&e->lock);
	h = e->hdr;
	if (!e->base || atomic_load(&e->state) == TRACEBUF_ENGINE_STARTED) {
		ret = e->base ? -EALREADY : -ENODEV;
		goto out_unlock;
	}
	if (e->never_started && disposition == TRACEBUF_START_RETAIN)
		disposition = TRACEBUF_START_CLEAR_ENTIRE;
	/*
	 * Oneshot has no durable buffer (the header says 0 bytes): its
	 * durable records lead the rolling buffer, which the kernel zeroes
	 * for CLEAR_NONDURABLE.  Write them again.
	 */
	if (e->mode == TRACEBUF_MODE_ONESHOT &&
	    disposition == TRACEBUF_START_CLEAR_NONDURABLE)
		disposition = TRACEBUF_START_CLEAR_ENTIRE;
	e->never_started = false;

	rolling_bytes = 2 * e->rolling_size;
	if (e->mode == TRACEBUF_MODE_ONESHOT)
		rolling_bytes = e->rolling_size;
	switch (disposition) {
	case TRACEBUF_START_CLEAR_ENTIRE:
		if (flags & TRACEBUF_ENGINE_F_CLEAR) {
			memset(e->durable, 0, e->durable_size);
			memset(e->rolling[0], 0, rolling_bytes);
		}
		e->durable_pos = 0;
		e->durable_full = false;
		h->durable_data_end = 0;
		/* fall through */
	case TRACEBUF_START_CLEAR_NONDURABLE:
		if (flags & TRACEBUF_ENGINE_F_CLEAR && disposition !=
		    TRACEBUF_START_CLEAR_ENTIRE) {
			if (e->mode == TRACEBUF_MODE_ONESHOT)
				memset(e->rolling[0] + e->durable_size, 0,
				       e->rolling_size - e->durable_size);
			else
				memset(e->rolling[0], 0, rolling_bytes);
		}
		h->wrapped_count = 0;
		h->rolling_data_end[0] = h->rolling_data_end[1] = 0;
		h->num_records_dropped = 0;
		h->bytes_recorded = 0;
		atomic_store(&e->dropped, 0);
		e->rolling_state[0] = e->rolling_state[1] = TB_ROLLING_FREE;
		e->save_outstanding = false;
		e->switch_waiting = false;
		atomic_store(&e->waiting_save, 0);
		tb_enter_rolling(e, 0);
		if (e->mode == TRACEBUF_MODE_ONESHOT) {
			/* the durable region is accounted as one chunk */
			atomic_store(&e->cursor, e->durable_size);
			atomic_store(&e->done[0], e->durable_size);
		}
		break;
	case TRACEBUF_START_RETAIN:
		/* the kernel unsealed them before we heard of the START */
		for (uint32_t i = 0; i < 2; i++)
			if (e->unzeroed & (1u << i))
				memset(e->rolling[i], 0, e->rolling_size);
		tb_start_retain(e);
		break;
	default:
		ret = -EINVAL;
		goto out_unlock;
	}
	e->unzeroed = 0;
	if (!e->durable_pos) {
		uint64_t *p = tb_engine_durable_alloc(e, 16);

		if (p)
			tracebuf_fxt_init_write(p, 16, e->ticks_per_second);
		/* threads write their records again into the new durable */
		atomic_fetch_add(&e->thread_epoch, 1);
	}
	h->stop_mark = 0;
	atomic_fetch_add(&__tracebuf_hot.epoch, 1);
	atomic_store(&e->window_start, 0);
	atomic_store(&e->window_dropped, 0);
	/* a request left from an earlier run would swallow the next notify */
	atomic_store(&e->service_needed, 0);
	atomic_store(&e->state, e->durable_full ? TRACEBUF_ENGINE_FULL :
						  TRACEBUF_ENGINE_STARTED);
	tb_flush_sites_locked(e);
out_unlock:
	pthread_mutex_unlock(&e->lock);
	return ret;
}

/* Close every chunk of every rolling buffer that needs it; e->lock held. */
static void tb_close_full_rolling_buffers(struct tracebuf_engine *e)
{
	for (uint32_t h = 0; h < 2; h++) {
		if (e->rolling_state[h] != TB_ROLLING_FULL)
			continue;
		tb_close_rolling(e, e->rolling_wrap[h], e->rolling_size);
		e->hdr->rolling_data_end[h] = e->rolling_size;
		e->rolling_state[h] = e->mode == TRACEBUF_MODE_STREAMING ? TB_ROLLING_UNSAVED :
				      e->mode == TRACEBUF_MODE_CIRCULAR ? TB_ROLLING_FREE :
				      TB_ROLLING_CLOSED;
	}
}

/*
 * A drop window still open at stop (a full oneshot buffer, or streaming
 * waiting for a save) is closed in the rolling buffer of @wrap, where the
 * cursor stopped at @off: after its data if the rolling buffer was not full,
 * else in its stop reserve, which no writer used and which holds a pad (after
 * the window an earlier stop wrote there, if tracing went on in the rolling
 * buffer: e->reserve_at).  Not in a rolling buffer whose save was requested:
 * the manager may have copied it already.  Returns the rolling buffer's new
 * data end.  e->lock held, no writer left.
 */
static uint64_t tb_stop_window(struct tracebuf_engine *e, uint32_t wrap, uint64_t off)
{
	const struct tracebuf_engine_hooks *h = tb_hooks(e);
	uint64_t *rb = tb_rolling(e, wrap);
	uint64_t at = off <= e->reserve_at[wrap & 1] ? off : e->reserve_at[wrap & 1];
	size_t n;

	if (!atomic_load(&e->window_start) || !h || !h->drop_window_at ||
	    (e->save_outstanding && e->save_wrap == wrap))
		return off;
	n = h->drop_window_at(e, rb + at / 8, e->rolling_size - at);
	if (!n)
		return off;
	if (at + n > e->fill_limit)
		e->reserve_at[wrap & 1] = at + n;
	if (at == off) {
		off += n;
		e->hdr->rolling_data_end[wrap & 1] = off;
	} else {
		tb_pad(rb + (at + n) / 8, e->rolling_size - at - n);
	}
	return off;
}

/*
 * Stop: nobody may write any more; every chunk is closed and the header
 * is final (Documentation/trace-format.md §1.6).  Returns once no writer
 * is left, so STOPPED may be sent.
 */
int tb_engine_stop(void)
{
	struct tracebuf_engine *e = &tb_engine;
	struct tracebuf_buffer_header *h;
	uint64_t cur, off;
	uint32_t wrap, cw;

	pthread_mutex_lock(&e->lock);
	/* stopped already: the header is final, and must stay as it is */
	if (!e->base || e->never_started ||
	    atomic_load(&e->state) == TRACEBUF_ENGINE_STOPPED) {
		pthread_mutex_unlock(&e->lock);
		return e->base ? 0 : -ENODEV;
	}
	h = e->hdr;
	atomic_store(&e->state, TRACEBUF_ENGINE_STOPPING);
	tb_flush_sites_locked(e);
	/* Freeze the cursor; what was taken below it is closed next. */
	cur = atomic_exchange(&e->cursor, (uint64_t)TRACEBUF_CURSOR_FULL(e));
	wrap = (uint32_t)(cur >> 32);
	off = cur & 0xffffffffull;
	cw = wrap & 1;
	tb_close_full_rolling_buffers(e);
	if (e->rolling_state[cw] == TB_ROLLING_FILLING) {
		if (off > e->rolling_size)
			off = e->rolling_size;
		tb_close_rolling(e, wrap, off);
		h->rolling_data_end[cw] = off;
		e->rolling_state[cw] = TB_ROLLING_STOPPED;
	} else if ((e->rolling_state[cw] == TB_ROLLING_FREE ||
		    (e->save_outstanding && e->save_wrap == wrap)) &&
		   e->rolling_state[cw ^ 1] == TB_ROLLING_FREE && atomic_load(&e->window_start)) {
		/*
		 * Streaming, its rolling buffer saved or being saved, the other
		 * free (a switch waited for a save that came as it stopped):
		 * the window goes into the next rolling buffer, empty, so that
		 * it is not lost where the manager copied already
		 * (tb_stop_window()).
		 */
		wrap++;
		cw ^= 1;
		off = 0;
		h->rolling_data_end[cw] = 0;
		e->rolling_wrap[cw] = wrap;
		e->reserve_at[cw] = e->fill_limit;
		e->rolling_state[cw] = TB_ROLLING_STOPPED;
	} else {
		off = e->rolling_size;
	}
	off = tb_stop_window(e, wrap, off);
	e->stop_wrap = wrap;
	e->stop_off = off;
	h->wrapped_count = wrap;
	h->durable_data_end = e->mode == TRACEBUF_MODE_ONESHOT ? 0 : e->durable_pos;
	h->num_records_dropped = atomic_load(&e->dropped);
	h->bytes_recorded = (uint64_t)wrap * e->rolling_size + off + h->durable_data_end;
	if (e->mode == TRACEBUF_MODE_ONESHOT && e->durable_pos < e->durable_size)
		tb_pad(e->durable + e->durable_pos / 8,
		       e->durable_size - e->durable_pos);
	/* the data ends above are final: say so, after them */
	__atomic_store_n(&h->stop_mark, TRACEBUF_HEADER_STOP_MARK, __ATOMIC_RELEASE);
	atomic_store(&e->state, TRACEBUF_ENGINE_STOPPED);
	atomic_fetch_add(&__tracebuf_hot.epoch, 1);
	pthread_mutex_unlock(&e->lock);
	return 0;
}

/*
 * e->lock held: when @mode_ok and the engine records (started since it
 * attached, and not stopped), start sealing: writers that want a chunk
 * wait, and the rolling buffers that filled are closed.  Returns whether it
 * did.
 */
static bool tb_seal_begin(struct tracebuf_engine *e, bool mode_ok)
{
	unsigned int state = atomic_load(&e->state);

	if (!e->base || e->never_started || !mode_ok ||
	    (state != TRACEBUF_ENGINE_STARTED && state != TRACEBUF_ENGINE_FULL))
		return false;
	atomic_store(&e->sealing, 1);
	tb_close_full_rolling_buffers(e);
	return true;
}

/*
 * A snapshot (circular and oneshot; Documentation/trace-format.md §1.7):
 * make every record written so far whole, and say where the records of
 * the rolling buffer being written end (*wrap, *end), while writers go on.  The
 * cursor is held while the chunks below it are closed: a writer that
 * wants a chunk meanwhile waits in tb_wait_switch(), then goes on after
 * the sealed end.  A rolling buffer that filled is closed too, so in circular
 * mode the earlier rolling buffer is whole, and stays so until the current one
 * fills, which the header's wrapped_count (tb_enter_rolling()) shows the
 * manager.  The header's durable_data_end is brought up to date.
 */
int tb_engine_seal(uint32_t *wrap, uint64_t *end)
{
	struct tracebuf_engine *e = &tb_engine;
	uint64_t cur, off;
	bool held = false;

	pthread_mutex_lock(&e->lock);
	if (!tb_seal_begin(e, e->mode != TRACEBUF_MODE_STREAMING)) {
		pthread_mutex_unlock(&e->lock);
		return -EINVAL;
	}
	/* hold the cursor, unless the rolling buffer is full: then it is all ours */
	cur = atomic_load(&e->cursor);
	while ((cur & 0xffffffffull) <= e->rolling_size && !held)
		held = atomic_compare_exchange_weak(&e->cursor, &cur,
						    (cur & ~0xffffffffull) |
						    TRACEBUF_CURSOR_FULL(e));
	*wrap = (uint32_t)(cur >> 32);
	off = held ? cur & 0xffffffffull : e->rolling_size;
	if (e->rolling_state[*wrap & 1] == TB_ROLLING_FILLING)
		tb_close_rolling(e, *wrap, off);
	if (e->mode != TRACEBUF_MODE_ONESHOT)
		e->hdr->durable_data_end = e->durable_pos;
	e->hdr->num_records_dropped = atomic_load(&e->dropped);
	if (held)
		atomic_store_explicit(&e->cursor, cur, memory_order_release);
	atomic_store(&e->sealing, 0);
	pthread_mutex_unlock(&e->lock);
	*end = off;
	return 0;
}

/*
 * Close the rolling buffers that filled and, in streaming mode with no save
 * outstanding, make the next save request: the older of the unsaved
 * rolling buffers.  Returns 1 with *@req filled, 0 when nothing is to be sent.
 * e->lock held.
 */
static int tb_next_save_locked(struct tracebuf_engine *e, struct tracebuf_save_req *req)
{
	tb_close_full_rolling_buffers(e);
	e->hdr->num_records_dropped = atomic_load(&e->dropped);
	/*
	 * Stopped: the manager reads what is unsaved at our STOPPED, and
	 * the kernel refuses a SAVE_BUFFER after it, which would leave the
	 * save outstanding for good; the next START asks for it.
	 */
	if (e->mode != TRACEBUF_MODE_STREAMING || e->save_outstanding ||
	    atomic_load(&e->state) == TRACEBUF_ENGINE_STOPPED)
		return 0;
	for (uint32_t h = 0; h < 2; h++) {
		uint32_t other = h ^ 1;

		if (e->rolling_state[h] != TB_ROLLING_UNSAVED)
			continue;
		/* the older of two unsaved rolling buffers goes first */
		if (e->rolling_state[other] == TB_ROLLING_UNSAVED &&
		    e->rolling_wrap[other] < e->rolling_wrap[h])
			continue;
		e->save_outstanding = true;
		e->save_wrap = e->rolling_wrap[h];
		e->save_durable_end = e->durable_pos;
		e->hdr->wrapped_count = e->rolling_wrap[h] + 1;
		e->hdr->durable_data_end = e->durable_pos;
		req->wrapped_count = e->save_wrap;
		req->durable_data_end = e->save_durable_end;
		e->save_sent_ns = __tracebuf_ticks_slow();
		return 1;
	}
	return 0;
}

/*
 * The writer whose chunk filled a rolling buffer of a streaming buffer asks for
 * its save itself (ops.request_save), rather than leave it to the
 * dispatch loop, which must first be woken and scheduled: the sooner
 * the manager hears of it, the sooner the rolling buffer is free again.  The
 * slow path, once per rolling buffer; the hot path stays as it is.  e->lock
 * held.
 */
static void tb_request_save_locked(struct tracebuf_engine *e)
{
	struct tracebuf_save_req req;

	if (e->mode != TRACEBUF_MODE_STREAMING || !e->ops.request_save ||
	    atomic_load(&e->state) != TRACEBUF_ENGINE_STARTED)
		return;
	if (tb_next_save_locked(e, &req) && e->ops.request_save(e->ops.arg, &req) == -EAGAIN)
		e->save_outstanding = false;	/* asked again at the next service */
}

/*
 * Streaming: a save now (uapi TRACEBUF_FEAT_SAVE_NOW), for a flush.  End
 * the rolling buffer being written where its records end, go on in the other
 * one, and let tb_engine_service() ask for the ended rolling buffer's
 * save as for a full one.  *wrap and *end say which rolling buffer holds the
 * last record written before the call and where the records end in it (*end 0:
 * it holds none, they are all in the rolling buffers before it, saved or to
 * be).  The cursor is held while the rolling buffer's chunks are closed, as by
 * tb_engine_seal().  Returns 0; -EAGAIN when the other rolling buffer is
 * not saved yet, so this one cannot end: call again after its BUFFER_SAVED;
 * -EINVAL when not tracing in streaming mode.
 */
int tb_engine_save_now(uint32_t *wrap, uint64_t *end)
{
	struct tracebuf_engine *e = &tb_engine;
	uint64_t cur, off = 0;
	bool held = false;
	uint32_t w, h;
	int ret = 0;

	pthread_mutex_lock(&e->lock);
	if (!tb_seal_begin(e, e->mode == TRACEBUF_MODE_STREAMING)) {
		pthread_mutex_unlock(&e->lock);
		return -EINVAL;
	}
	/* the cursor's wrap changes only under e->lock (tb_enter_rolling()) */
	cur = atomic_load(&e->cursor);
	w = (uint32_t)(cur >> 32);
	h = w & 1;
	*wrap = w;
	if (e->rolling_state[h] != TB_ROLLING_FILLING) {
		/* it filled, and waits for the other's save: its own comes */
		*end = e->rolling_size;
		goto out;
	}
	if (e->rolling_state[h ^ 1] != TB_ROLLING_FREE) {
		ret = -EAGAIN;
		goto out;
	}
	while (!held && (off = cur & 0xffffffffull) <= e->rolling_size)
		held = atomic_compare_exchange_weak(&e->cursor, &cur,
						    (cur & ~0xffffffffull) |
						    TRACEBUF_CURSOR_FULL(e));
	if (!held) {
		/* it just filled: the switch its writer was to make */
		tb_switch(e, w);
		tb_close_full_rolling_buffers(e);
		*end = e->rolling_size;
		goto out;
	}
	*end = off;
	if (!off) {
		atomic_store_explicit(&e->cursor, cur, memory_order_release);
		goto out;
	}
	tb_close_rolling(e, w, off);
	e->hdr->rolling_data_end[h] = off;
	e->rolling_state[h] = TB_ROLLING_UNSAVED;
	tb_enter_rolling(e, w + 1);	/* the cursor, held, moves on */
	tb_notify(e);
out:
	atomic_store(&e->sealing, 0);
	pthread_mutex_unlock(&e->lock);
	return ret;
}

/*
 * The service step, from the provider's dispatch loop when a writer asked
 * for it: close the rolling buffers that filled, and in streaming mode hand out
 * the next save request.  Returns 1 with *req filled, 0 when nothing is to
 * be sent.
 */
int tb_engine_service(struct tracebuf_save_req *req)
{
	struct tracebuf_engine *e = &tb_engine;
	int ret = 0;

	atomic_store(&e->service_needed, 0);
	pthread_mutex_lock(&e->lock);
	if (!e->base)
		goto out_unlock;
	ret = tb_next_save_locked(e, req);
out_unlock:
	pthread_mutex_unlock(&e->lock);
	return ret;
}

/*
 * The SAVE_BUFFER of @req (tb_engine_service()'s) was refused for a
 * full manager's inbox (EAGAIN): nobody will answer it, so it is not
 * awaited, and the next tb_engine_service() asks for it again (the
 * kernel wakes the provider when the manager has read a packet).  Returns
 * 0; -EINVAL when @req is not the save outstanding.
 */
int tb_engine_save_refused(const struct tracebuf_save_req *req)
{
	struct tracebuf_engine *e = &tb_engine;
	int ret = -EINVAL;

	pthread_mutex_lock(&e->lock);
	if (e->save_outstanding && e->save_wrap == req->wrapped_count &&
	    e->save_durable_end == req->durable_data_end) {
		e->save_outstanding = false;
		ret = 0;
	}
	pthread_mutex_unlock(&e->lock);
	return ret;
}

/* BUFFER_SAVED: the rolling buffer is free again; a waiting switch happens now. */
int tb_engine_buffer_saved(uint32_t wrapped_count, uint64_t durable_end)
{
	struct tracebuf_engine *e = &tb_engine;
	uint32_t h = wrapped_count & 1;
	int ret = 0;

	pthread_mutex_lock(&e->lock);
	if (!e->save_outstanding || e->save_wrap != wrapped_count ||
	    e->save_durable_end != durable_end) {
		ret = -EINVAL;
		goto out_unlock;
	}
	e->save_outstanding = false;
	e->save_us[e->saves++ % TB_SAVE_SAMPLES] =
		(uint32_t)((__tracebuf_ticks_slow() - e->save_sent_ns) / 1000);
	e->rolling_state[h] = TB_ROLLING_FREE;
	/*
	 * Zero it (here, off the writers' path), then say so: if this
	 * process dies, the manager walks a rolling buffer whose data end is 0
	 * record by record, and must not find the records it saved already.
	 * Not once stopped: the save may have ended before our STOPPED reached
	 * the kernel, which then sealed this rolling buffer too, until START
	 * (uapi TRACEBUF_INIT_F_SEAL_SAVES); START zeroes it.  Meanwhile the
	 * header is final, so nobody walks it.
	 */
	if (atomic_load(&e->state) == TRACEBUF_ENGINE_STOPPED)
		e->unzeroed |= 1u << h;
	else
		memset(e->rolling[h], 0, e->rolling_size);
	__atomic_store_n(&e->hdr->rolling_data_end[h], 0, __ATOMIC_RELEASE);
	if (e->switch_waiting && atomic_load(&e->state) == TRACEBUF_ENGINE_STARTED) {
		e->switch_waiting = false;
		e->waited_ns += __tracebuf_ticks_slow() - e->wait_since_ns;
		atomic_store(&e->waiting_save, 0);
		tb_enter_rolling(e, wrapped_count + 2);
	}
	/* another rolling buffer may be waiting for its save */
	tb_notify(e);
out_unlock:
	pthread_mutex_unlock(&e->lock);
	return ret;
}

/*
 * Forget the buffer (TERMINATE, or the manager went away): stop first so
 * no writer touches it, then the caller may unmap it.
 */
void tb_engine_detach(void)
{
	struct tracebuf_engine *e = &tb_engine;

	tb_engine_stop();
	pthread_mutex_lock(&e->lock);
	atomic_store(&e->state, TRACEBUF_ENGINE_OFF);
	e->base = NULL;
	e->hdr = NULL;
	atomic_fetch_add(&__tracebuf_hot.epoch, 1);
	pthread_mutex_unlock(&e->lock);
}

void tb_engine_stats(struct tb_engine_stats *st)
{
	struct tracebuf_engine *e = &tb_engine;

	st->dropped = atomic_load(&e->dropped);
	st->state = atomic_load(&e->state);
	st->durable_used = e->durable_pos;
	pthread_mutex_lock(&e->lock);
	st->saves = e->saves;
	memcpy(st->save_us, e->save_us, sizeof(st->save_us));
	st->fills = e->fills;
	memcpy(st->fill_us, e->fill_us, sizeof(st->fill_us));
	st->waited_us = e->waited_ns / 1000;
	pthread_mutex_unlock(&e->lock);
}

/* -------------------------------------------------------------------- */
/* Timebase                                                             */

uint64_t __tracebuf_ticks_slow(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Whether the kernel vouches for the counter tracebuf_ticks() reads here:
 * counter_khz is about the Arm generic timer when TRACEBUF_FEAT_CNTVCT
 * is set, else about the TSC (the only one kernels before ABI 1.4
 * reported).  A program running on the other architecture's kernel
 * (user-mode emulation) gets CLOCK_MONOTONIC.
 */
bool tb_counter_usable(const struct tracebuf_version_args *ver)
{
	bool cntvct = ver->features & TRACEBUF_FEAT_CNTVCT;

	if (!ver->counter_khz)
		return false;
	switch (TRACEBUF_LIB_CPU_COUNTER) {
	case TRACEBUF_LIB_CPU_COUNTER_TSC:
		return !cntvct;
	case TRACEBUF_LIB_CPU_COUNTER_CNTVCT:
		return cntvct;
	default:
		return false;
	}
}

/*
 * Ticks are the CPU counter's (TRACEBUF_LIB_CPU_COUNTER: TSC, CNTVCT) at
 * @ticks_per_second when @counter, else nanoseconds of CLOCK_MONOTONIC
 * (always where this architecture has no counter tracebuf_ticks() reads).
 * Every provider on a machine makes the same choice from what the kernel
 * reports, so their timestamps line up.
 */
void tb_engine_set_timebase(bool counter, uint64_t ticks_per_second)
{
	struct tracebuf_engine *e = &tb_engine;

	if (TRACEBUF_LIB_CPU_COUNTER == TRACEBUF_LIB_CPU_COUNTER_NONE || !ticks_per_second)
		counter = false;
	pthread_mutex_lock(&e->lock);
	atomic_store(&__tracebuf_hot.use_counter, counter);
	e->ticks_per_second = counter ? ticks_per_second : 1000000000ull;
	e->chunk_fast_ticks = e->ticks_per_second / (1000000000u / TRACEBUF_CHUNK_FAST_NS);
	pthread_mutex_unlock(&e->lock);
}

/* Rolling buffers that filled and are not free again yet (tests, the dispatch loop). */
unsigned int tb_engine_pending_rolling_buffers(void)
{
	struct tracebuf_engine *e = &tb_engine;
	unsigned int n = 0;

	pthread_mutex_lock(&e->lock);
	for (uint32_t h = 0; h < 2; h++)
		n += e->rolling_state[h] == TB_ROLLING_FULL ||
		     e->rolling_state[h] == TB_ROLLING_UNSAVED;
	pthread_mutex_unlock(&e->lock);
	return n;
}
