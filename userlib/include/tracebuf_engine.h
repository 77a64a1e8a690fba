/* SPDX-License-Identifier: MIT */
/*
 * libtracebuf: the record engine's hot path.
 *
 * Each writing thread owns a chunk of the current rolling buffer (half)
 * and bump-allocates records in it: no atomic read-modify-write, no
 * system call, no allocation per record.  Chunks come from one shared
 * cursor, once per chunk.
 *
 * Giving a chunk up early (a half is switched, tracing stops) is an
 * asymmetric handshake between the owner and a closer:
 *
 *   owner, per record                 closer, per half
 *   writing = 1                       closed = 1 (each owner in the half)
 *   [signal fence]                    membarrier(PRIVATE_EXPEDITED)
 *   if (closed) -> slow path          wait until writing == 0
 *   ... write the record ...          pad the chunk's unused tail
 *   pos = next; writing = 0 (release)
 *
 * membarrier() makes every thread of the process execute a full barrier,
 * so either the owner's "writing = 1" is visible to the closer, which then
 * waits, or the owner's load of "closed" sees 1.  Where membarrier is not
 * available the owner uses a full fence instead (slower, still correct).
 * Whoever of the two wins a compare-and-swap on the chunk's tag pads its
 * tail; padding is blob records that every reader skips.
 */
#ifndef TRACEBUF_ENGINE_H
#define TRACEBUF_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

/* The hot path's symbols are exported but internal (__tracebuf_*). */
#define TRACEBUF_HOT_API __attribute__((visibility("default")))

/* Chunk tags: wrapped count << 2 | state. */
#define TRACEBUF_CHUNK_NONE	0u	/* no chunk */
#define TRACEBUF_CHUNK_OPEN	1u	/* owned, being written */
#define TRACEBUF_CHUNK_CLOSING	2u	/* a closer is padding it */
#define TRACEBUF_CHUNK_DONE	3u	/* padded and counted */
#define TRACEBUF_CHUNK_STATE(tag)	((uint32_t)((tag) & 3u))
#define TRACEBUF_CHUNK_WRAP(tag)	((uint32_t)((tag) >> 2))
#define TRACEBUF_CHUNK_TAG(wrap, state)	(((uint64_t)(wrap) << 2) | (state))

/*
 * One per writing thread, in thread-local storage.  The first four
 * fields are the hot path; the closer reads pos and end only after it
 * saw writing == 0 with acquire.
 */
struct tracebuf_thread {
	_Atomic(uint64_t *) pos;	/* next free word of the chunk */
	_Atomic(uint64_t *) end;	/* end of the chunk */
	atomic_uint writing;		/* owner: 1 while writing a record */
	atomic_uint closed;		/* closer: give the chunk up */
	atomic_ullong tag;		/* TRACEBUF_CHUNK_TAG() */
	atomic_ullong chunk_len;	/* bytes of the chunk, for accounting */
	uint32_t epoch;			/* engine epoch of registration */
	uint32_t thread_ref;		/* 1..255, 0 for inline koids */
	uint64_t pid, tid;		/* koids when inline */
	uint64_t chunk_ticks;		/* when the last chunk was taken */
	uint32_t chunk_want;		/* bytes of the next chunk */
	struct tracebuf_thread *next;	/* engine's list, under its lock */
	bool registered;
} __attribute__((aligned(64)));

/*
 * The hot-path view of the engine; engine.c owns the rest.  Read-mostly:
 * written only when tracing starts, stops or switches halves.
 */
struct tracebuf_engine_hot {
	atomic_uint epoch;		/* bumped by every start */
	atomic_uint strong_fence;	/* no membarrier: owners fence */
	atomic_uint use_tsc;		/* ticks are TSC, else ns */
};

TRACEBUF_HOT_API extern struct tracebuf_engine_hot __tracebuf_hot;
TRACEBUF_HOT_API extern _Thread_local struct tracebuf_thread __tracebuf_self
	__attribute__((tls_model("initial-exec")));

TRACEBUF_HOT_API uint64_t *__tracebuf_reserve_slow(struct tracebuf_thread *t,
					       size_t bytes);
TRACEBUF_HOT_API uint64_t __tracebuf_ticks_slow(void);

/* The trace's timebase: TSC ticks when the kernel vouches for them. */
static inline uint64_t tracebuf_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (__builtin_expect(atomic_load_explicit(&__tracebuf_hot.use_tsc,
						  memory_order_relaxed), 1))
		return __rdtsc();
#endif
	return __tracebuf_ticks_slow();
}

/*
 * Reserve @bytes (a multiple of 8) for one record in the calling thread's
 * chunk.  Returns where to write it, or NULL when the record is dropped
 * (counted).  Every non-NULL return must be followed by
 * tracebuf_record_commit() with the end of what was written.
 */
static inline uint64_t *tracebuf_record_reserve(struct tracebuf_thread *t,
						size_t bytes)
{
	uint64_t *p, *end;

	atomic_store_explicit(&t->writing, 1, memory_order_relaxed);
	if (__builtin_expect(atomic_load_explicit(&__tracebuf_hot.strong_fence,
						  memory_order_relaxed), 0))
		atomic_thread_fence(memory_order_seq_cst);
	else
		atomic_signal_fence(memory_order_seq_cst);
	p = atomic_load_explicit(&t->pos, memory_order_relaxed);
	end = atomic_load_explicit(&t->end, memory_order_relaxed);
	if (__builtin_expect(atomic_load_explicit(&t->closed,
						  memory_order_relaxed) ||
			     (size_t)((char *)end - (char *)p) < bytes, 0))
		return __tracebuf_reserve_slow(t, bytes);
	return p;
}

/* Publish a record written at the reservation; @next is its end. */
static inline void tracebuf_record_commit(struct tracebuf_thread *t,
					  uint64_t *next)
{
	atomic_store_explicit(&t->pos, next, memory_order_relaxed);
	atomic_store_explicit(&t->writing, 0, memory_order_release);
}

#endif /* TRACEBUF_ENGINE_H */
