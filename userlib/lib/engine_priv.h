/* SPDX-License-Identifier: MIT */
/*
 * libtracebuf: the record engine, private side.  One engine per process
 * (a process is one provider), as in Fuchsia's trace-engine.
 */
#ifndef TRACEBUF_ENGINE_PRIV_H
#define TRACEBUF_ENGINE_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <linux/tracebuf.h>

#include "layout_priv.h"		/* tb_oneshot_durable() */
#include "tracebuf_engine.h"

/* Default chunk of a rolling buffer a thread takes at a time. */
#define TRACEBUF_CHUNK_SIZE		4096u
/* A fast writer's chunks grow up to this (and 1/16 of a rolling buffer)... */
#define TRACEBUF_CHUNK_MAX		(64u * 1024)
/* ...when it filled the last one within this. */
#define TRACEBUF_CHUNK_FAST_NS		10000u
/* Cursor offset meaning "this rolling buffer is full". */
#define TRACEBUF_CURSOR_FULL(e)		((e)->rolling_size + 8)
/*
 * The end of each rolling buffer writers never get: room for the record of a
 * drop window still open when tracing stops (hooks->drop_window_at),
 * which no writer could write in a full oneshot buffer.
 */
#define TRACEBUF_STOP_RESERVE		128u

/*
 * The chunks of a rolling buffer of @rb_size bytes: *@chunk, what a thread
 * takes at a time, TRACEBUF_CHUNK_SIZE but at least 16 to a rolling buffer (and
 * 256 bytes at least); *@chunk_max, what a fast writer's grow to.
 */
static inline void tb_chunk_rule(uint64_t rb_size, uint32_t *chunk, uint32_t *chunk_max)
{
	uint32_t c = TRACEBUF_CHUNK_SIZE, m;

	while (c > 256 && (uint64_t)c * 16 > rb_size)
		c /= 2;
	m = c;
	while (m < TRACEBUF_CHUNK_MAX && (uint64_t)m * 32 <= rb_size)
		m *= 2;
	*chunk = c;
	*chunk_max = m;
}

/* Engine states. */
#define TRACEBUF_ENGINE_OFF		0	/* no buffer, or not started */
#define TRACEBUF_ENGINE_STARTED		1
#define TRACEBUF_ENGINE_STOPPING	2
#define TRACEBUF_ENGINE_STOPPED		3
#define TRACEBUF_ENGINE_FULL		4	/* durable full: stopped writing */

/* tb_engine_start() flags. */
#define TRACEBUF_ENGINE_F_CLEAR		(1u << 0)	/* zero what is cleared
							 * (no kernel did)
							 */

/* Rolling buffer states, under e->lock. */
enum tb_rolling_state {
	TB_ROLLING_FREE,	/* may be filled */
	TB_ROLLING_FILLING,	/* the cursor is in it */
	TB_ROLLING_FULL,	/* switched away from; chunks still open */
	TB_ROLLING_UNSAVED,	/* streaming: closed, waiting to be saved */
	TB_ROLLING_CLOSED,	/* oneshot: closed for good */
	TB_ROLLING_STOPPED,	/* the cursor stopped in it */
};

struct tracebuf_save_req {
	uint32_t wrapped_count;
	uint64_t durable_data_end;
};

/*
 * Streaming saves: the newest TB_SAVE_SAMPLES round trips, each from the
 * SAVE_BUFFER this provider sent to the manager's BUFFER_SAVED, in
 * microseconds (for the benchmark, tests/vm/sbench_vmtest.c).
 */
#define TB_SAVE_SAMPLES	256

struct tb_engine_stats {
	uint64_t dropped;
	uint64_t durable_used;
	uint32_t state;
	uint32_t saves;			/* answered since the engine loaded */
	uint32_t save_us[TB_SAVE_SAMPLES];	/* the newest min(saves, TB_SAVE_SAMPLES) */
	/* rolling buffers filled by writers, each from when it was entered to full, in us */
	uint32_t fills;
	uint32_t fill_us[TB_SAVE_SAMPLES];	/* the newest min(fills, TB_SAVE_SAMPLES) */
	uint64_t waited_us;		/* streaming: both rolling buffers taken,
					 * a switch waiting */
};

/*
 * What the event layer (event.c) plugs into the engine, the way Fuchsia's
 * trace-engine reaches its session only through trace_handler_ops: the
 * engine calls nothing above it.  tb_event_install() installs them
 * before the engine is attached; without them threads write no thread
 * records and drop windows no record (drops are still counted).
 *  register_thread_locked: @t writes its first record since the durable
 *	buffer was cleared: write its thread records.  e->lock held.
 *  flush_sites_locked: tracing started or stopped: every call site looks
 *	its category up again.  e->lock held.
 *  drop_window: @t got a chunk while a window of dropped records is open:
 *	close it in the chunk, if that leaves the @keep bytes of the record
 *	the thread came for.  No lock: the thread holds the chunk.
 *  drop_window_at: tracing stops with a window open: close it at @p,
 *	which has @room bytes; returns the bytes written.  e->lock held, no
 *	writer left.
 */
struct tracebuf_engine;

struct tracebuf_engine_hooks {
	int (*register_thread_locked)(struct tracebuf_engine *e, struct tracebuf_thread *t);
	void (*flush_sites_locked)(void);
	void (*drop_window)(struct tracebuf_engine *e, struct tracebuf_thread *t, size_t keep);
	size_t (*drop_window_at)(struct tracebuf_engine *e, uint64_t *p, size_t room);
};

/*
 * What the provider session plugs in.
 * notify: a writer needs tb_engine_service() soon (called from a
 *	writer's slow path, at most once per service, under e->lock: do
 *	nothing but wake the dispatch loop).
 * request_save: streaming: send SAVE_BUFFER for @req now.  Called under
 *	e->lock by the writer whose chunk filled a rolling buffer, once per
 *	rolling buffer (the slow path's one syscall but the notify's): the save
 *	does not wait for the dispatch loop to wake, which under load is most of
 *	a save's round trip.  Returns 0 or the refusal: -EAGAIN (the manager's
 *	inbox is full) leaves the save unasked, for the next
 *	tb_engine_service() to hand out again.  NULL: the dispatch
 *	loop sends every save request (tb_engine_service()).
 */
struct tracebuf_engine_ops {
	void (*notify)(void *arg);
	int (*request_save)(void *arg, const struct tracebuf_save_req *req);
	void *arg;
};

struct tracebuf_engine {
	pthread_mutex_t lock;
	pthread_key_t thread_key;

	/* [lock] the buffer, set by attach */
	uint8_t *base;
	size_t size;
	uint32_t mode;
	struct tracebuf_buffer_header *hdr;
	uint64_t *durable;
	uint64_t durable_size;
	uint8_t *rolling[2];
	uint64_t rolling_size;
	uint64_t fill_limit;		/* rolling_size - TRACEBUF_STOP_RESERVE */
	uint32_t chunk_size;
	uint32_t chunk_max;
	uint64_t chunk_fast_ticks;	/* TRACEBUF_CHUNK_FAST_NS in ticks */
	struct tracebuf_engine_ops ops;
	uint64_t ticks_per_second;
	/* set once, before any writer (release, loaded with acquire) */
	_Atomic(const struct tracebuf_engine_hooks *) hooks;

	atomic_uint state;
	atomic_uint thread_epoch;	/* bumped when the durable is cleared */
	/* written by every chunk refill: each on a cache line of its own */
	_Alignas(64) _Atomic(uint64_t) cursor;	/* wrapped count << 32 | offset */
	_Alignas(64) atomic_ullong done[2];	/* bytes of each rolling buffer finished */

	/* [lock] */
	_Alignas(64) enum tb_rolling_state rolling_state[2];
	uint32_t rolling_wrap[2];
	uint64_t durable_pos;
	bool durable_full;
	bool never_started;
	bool save_outstanding;
	bool switch_waiting;
	uint32_t save_wrap;
	uint64_t save_durable_end;
	uint64_t save_sent_ns;		/* CLOCK_MONOTONIC */
	uint32_t saves;
	uint32_t save_us[TB_SAVE_SAMPLES];
	uint64_t enter_ns[2];		/* CLOCK_MONOTONIC: each rolling buffer entered */
	uint32_t fills;
	uint32_t fill_us[TB_SAVE_SAMPLES];
	uint64_t wait_since_ns;		/* switch_waiting set */
	uint64_t waited_ns;
	uint32_t stop_wrap;
	uint64_t stop_off;
	uint64_t reserve_at[2];		/* each rolling buffer's stop reserve is free
					 * from here: fill_limit, or after a
					 * drop window a stop wrote in it
					 */
	uint32_t unzeroed;		/* rolling buffers saved after the stop (bit
					 * h): zeroed at the next START
					 */
	struct tracebuf_thread *threads;

	atomic_uint service_needed;
	atomic_uint waiting_save;	/* streaming: both rolling buffers full */
	atomic_uint sealing;		/* tb_engine_seal() holds the
					 * cursor
					 */
	atomic_ullong dropped;
	_Atomic(uint64_t) window_start;	/* ticks | 1 of the first drop */
	atomic_ullong window_dropped;
};

struct tracebuf_engine *tb_engine_get(void);
void tb_engine_format(void *buf, size_t size, uint32_t mode);
/*
 * The engine's one-time set-up, its fork handlers among them: a library
 * that registers fork handlers after this call has its prepare handler
 * run before the engine's (pthread_atfork(3): in reverse order), while
 * the engine's lock is free.
 */
void tb_engine_init(void);
int tb_engine_attach(void *buf, size_t size, uint32_t mode,
		     const struct tracebuf_engine_ops *ops);
int tb_engine_start(uint32_t disposition, uint32_t flags);
int tb_engine_stop(void);
int tb_engine_service(struct tracebuf_save_req *req);
int tb_engine_buffer_saved(uint32_t wrapped_count, uint64_t durable_end);
int tb_engine_save_refused(const struct tracebuf_save_req *req);
int tb_engine_seal(uint32_t *wrap, uint64_t *end);
int tb_engine_save_now(uint32_t *wrap, uint64_t *end);
void tb_engine_detach(void);
void tb_engine_stats(struct tb_engine_stats *st);
/* A record the caller could not encode (too large for FXT): counted as dropped while tracing. */
void tb_engine_drop(void);
unsigned int tb_engine_pending_rolling_buffers(void);
uint64_t *tb_engine_durable_alloc(struct tracebuf_engine *e, size_t bytes);
void tb_pad(uint64_t *p, size_t bytes);
int tb_engine_register_thread(struct tracebuf_thread *t);
void tb_engine_set_hooks(const struct tracebuf_engine_hooks *hooks);
void tb_engine_set_timebase(bool counter, uint64_t ticks_per_second);
/* Whether tracebuf_ticks() may read the CPU counter the kernel reported. */
struct tracebuf_version_args;
bool tb_counter_usable(const struct tracebuf_version_args *ver);

#endif /* TRACEBUF_ENGINE_PRIV_H */
