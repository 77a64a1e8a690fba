/* SPDX-License-Identifier: MIT */
/*
 * libtracebuf: the record engine's hot path.
 *
 * Each writing thread owns a chunk of the current rolling buffer
 * and bump-allocates records in it: no atomic read-modify-write, no
 * system call, no allocation per record.  Chunks come from one shared
 * cursor, once per chunk.
 *
 * Giving a chunk up early (a rolling buffer is switched, tracing stops) is an
 * asymmetric handshake between the owner and a closer:
 *
 *   owner, per record                 closer, per rolling buffer
 *   writing = 1                       closed = 1 (each owner in the rolling buffer)
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
 * tail; padding is blob records that every reader skips.  The closer
 * only closes chunks it marked before its barrier.  Nothing here relies
 * on x86's ordering: engine.c lists every publication between threads
 * and processes and the order that makes it safe on arm64 too.
 *
 * Timestamps (tracebuf_ticks()) are the CPU's counter when the kernel
 * reports its rate for this architecture (TRACEBUF_LIB_CPU_COUNTER): the TSC
 * on x86, the generic timer's virtual count on Arm; else nanoseconds of
 * CLOCK_MONOTONIC.
 */
#ifndef TRACEBUF_ENGINE_H
#define TRACEBUF_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/*
 * The counter tracebuf_ticks() can read on this architecture, if any:
 * TRACEBUF_LIB_CPU_COUNTER_TSC (x86: rdtsc) or TRACEBUF_LIB_CPU_COUNTER_CNTVCT
 * (AArch64: CNTVCT_EL0; 32-bit ARMv7-A and later: CNTVCT, which a 32-bit
 * program on an arm64 kernel reads too), else TRACEBUF_LIB_CPU_COUNTER_NONE.
 * It is used only when the kernel reports its rate for that counter.
 */
#define TRACEBUF_LIB_CPU_COUNTER_NONE	0
#define TRACEBUF_LIB_CPU_COUNTER_TSC	1
#define TRACEBUF_LIB_CPU_COUNTER_CNTVCT	2
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define TRACEBUF_LIB_CPU_COUNTER	TRACEBUF_LIB_CPU_COUNTER_TSC
#elif defined(__aarch64__) || \
	(defined(__arm__) && __ARM_ARCH >= 7 && __ARM_ARCH_PROFILE == 'A')
#define TRACEBUF_LIB_CPU_COUNTER	TRACEBUF_LIB_CPU_COUNTER_CNTVCT
#else
#define TRACEBUF_LIB_CPU_COUNTER	TRACEBUF_LIB_CPU_COUNTER_NONE
#endif

/*
 * Atomics that C and C++ share.  C11 has _Atomic; C++ has no such type
 * qualifier, so there the same fields are plain, aligned to their size
 * as C aligns them (an _Atomic 64-bit integer is 8-aligned even on
 * i386), and accessed with the compiler builtins C11's atomics are made
 * of.  Only the inline functions of these headers touch them from C++
 * (tests/cxx_test.cpp checks that both languages lay them out alike).
 */
#ifdef __cplusplus
#define TRACEBUF_LIB_ATOMIC(type)	alignas(sizeof(type)) type
#define TRACEBUF_LIB_LOAD(obj, order)	__atomic_load_n((obj), (order))
#define TRACEBUF_LIB_STORE(obj, v, order) __atomic_store_n((obj), (v), (order))
#define TRACEBUF_LIB_EXTERN_C		extern "C" {
#define TRACEBUF_LIB_EXTERN_C_END	}
#else
#include <stdatomic.h>
#include <stdbool.h>
#define TRACEBUF_LIB_ATOMIC(type)	_Atomic(type)
#define TRACEBUF_LIB_LOAD(obj, order)	atomic_load_explicit((obj), (memory_order)(order))
#define TRACEBUF_LIB_STORE(obj, v, order) \
	atomic_store_explicit((obj), (v), (memory_order)(order))
#define TRACEBUF_LIB_EXTERN_C
#define TRACEBUF_LIB_EXTERN_C_END
#endif

TRACEBUF_LIB_EXTERN_C

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
	TRACEBUF_LIB_ATOMIC(uint64_t *) pos;	/* next free word of the chunk */
	TRACEBUF_LIB_ATOMIC(uint64_t *) end;	/* end of the chunk */
	TRACEBUF_LIB_ATOMIC(uint32_t) writing;	/* owner: 1 while writing a record */
	TRACEBUF_LIB_ATOMIC(uint32_t) closed;	/* closer: give the chunk up */
	TRACEBUF_LIB_ATOMIC(uint64_t) tag;	/* TRACEBUF_CHUNK_TAG() */
	TRACEBUF_LIB_ATOMIC(uint64_t) chunk_len; /* bytes of the chunk, for accounting */
	uint32_t epoch;			/* engine epoch of registration */
	uint32_t thread_ref;		/* 1..255, 0 for inline koids */
	uint64_t pid, tid;		/* koids when inline */
	uint64_t chunk_ticks;		/* when the last chunk was taken */
	uint32_t chunk_want;		/* bytes of the next chunk */
	/*
	 * Duration begins (TRACE_DURATION_BEGIN) this thread recorded and
	 * not yet ended, in tracing epoch begin_epoch: an end is recorded
	 * only when its begin was, and counted as dropped when its begin
	 * was (begin_dropped).
	 */
	uint32_t begin_depth;
	uint32_t begin_epoch;
	struct tracebuf_thread *next;	/* engine's list, under its lock */
	bool registered;
	bool exited;			/* its thread-exit cleanup ran: what it
					 * writes later (another key's
					 * destructor) is dropped, counted
					 */
	uint32_t begin_dropped;		/* begins dropped in begin_epoch */
} __attribute__((aligned(64)));

/*
 * The hot-path view of the engine; engine.c owns the rest.  Read-mostly:
 * written only when tracing starts, stops or switches rolling buffers.
 */
struct tracebuf_engine_hot {
	TRACEBUF_LIB_ATOMIC(uint32_t) epoch;	/* bumped by every start and stop */
	TRACEBUF_LIB_ATOMIC(uint32_t) strong_fence; /* no membarrier: owners fence */
	TRACEBUF_LIB_ATOMIC(uint32_t) use_counter; /* ticks are the counter's,
						    * else ns
						    */
};

/* __thread, not _Thread_local: C++ gets no TLS wrapper function for it. */
TRACEBUF_HOT_API extern struct tracebuf_engine_hot __tracebuf_hot;
TRACEBUF_HOT_API extern __thread struct tracebuf_thread __tracebuf_self
	__attribute__((tls_model("initial-exec")));

TRACEBUF_HOT_API uint64_t *__tracebuf_reserve_slow(struct tracebuf_thread *t,
					       size_t bytes);
TRACEBUF_HOT_API uint64_t __tracebuf_ticks_slow(void);

/*
 * Read the counter (only where TRACEBUF_LIB_CPU_COUNTER is not NONE).  On
 * Arm, ordered as the kernel's vDSO orders it: the ISB before keeps the
 * read from being taken ahead of the instructions before it; after it,
 * AArch64 makes a load that depends on the value (later memory accesses
 * wait for the read), AArch32 another ISB.
 */
static inline uint64_t __tracebuf_counter(void)
{
#if TRACEBUF_LIB_CPU_COUNTER == TRACEBUF_LIB_CPU_COUNTER_TSC
	return __rdtsc();
#elif TRACEBUF_LIB_CPU_COUNTER == TRACEBUF_LIB_CPU_COUNTER_CNTVCT && defined(__aarch64__)
	uint64_t v, dep;

	__asm__ __volatile__("isb\n\t"
			     "mrs	%0, cntvct_el0\n\t"
			     "eor	%1, %0, %0\n\t"	/* 0, but made of v */
			     "add	%1, sp, %1\n\t"
			     "ldr	xzr, [%1]"
			     : "=r"(v), "=&r"(dep) : : "memory");
	return v;
#elif TRACEBUF_LIB_CPU_COUNTER == TRACEBUF_LIB_CPU_COUNTER_CNTVCT
	uint64_t v;

	__asm__ __volatile__("isb\n\t"
			     "mrrc	p15, 1, %Q0, %R0, c14\n\t"
			     "isb"
			     : "=r"(v) : : "memory");
	return v;
#else
	return 0;
#endif
}

/* The trace's timebase: the CPU counter when the kernel vouches for it. */
static inline uint64_t tracebuf_ticks(void)
{
#if TRACEBUF_LIB_CPU_COUNTER != TRACEBUF_LIB_CPU_COUNTER_NONE
	if (__builtin_expect(TRACEBUF_LIB_LOAD(&__tracebuf_hot.use_counter,
					       __ATOMIC_RELAXED), 1))
		return __tracebuf_counter();
#endif
	return __tracebuf_ticks_slow();
}

/*
 * The inline part of tracebuf_record_reserve(): true with the record's
 * place in the chunk in *@pp, false when __tracebuf_reserve_slow(t,
 * bytes) must be called next (the chunk is closed or full), with writing
 * still 1.
 */
static inline bool __tracebuf_reserve_try(struct tracebuf_thread *t, size_t bytes,
					  uint64_t **pp)
{
	uint64_t *end;

	TRACEBUF_LIB_STORE(&t->writing, 1, __ATOMIC_RELAXED);
	if (__builtin_expect(TRACEBUF_LIB_LOAD(&__tracebuf_hot.strong_fence,
					       __ATOMIC_RELAXED), 0))
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	else
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	*pp = TRACEBUF_LIB_LOAD(&t->pos, __ATOMIC_RELAXED);
	end = TRACEBUF_LIB_LOAD(&t->end, __ATOMIC_RELAXED);
	return !__builtin_expect(TRACEBUF_LIB_LOAD(&t->closed, __ATOMIC_RELAXED) ||
				 (size_t)((char *)end - (char *)*pp) < bytes, 0);
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
	uint64_t *p;

	if (__builtin_expect(!__tracebuf_reserve_try(t, bytes, &p), 0))
		return __tracebuf_reserve_slow(t, bytes);
	return p;
}

/* Publish a record written at the reservation; @next is its end. */
static inline void tracebuf_record_commit(struct tracebuf_thread *t,
					  uint64_t *next)
{
	TRACEBUF_LIB_STORE(&t->pos, next, __ATOMIC_RELAXED);
	TRACEBUF_LIB_STORE(&t->writing, 0, __ATOMIC_RELEASE);
}

TRACEBUF_LIB_EXTERN_C_END

#endif /* TRACEBUF_ENGINE_H */
