// SPDX-License-Identifier: MIT
/*
 * libposixtrace: the traced (target) process: event types
 * (posix_trace_eventid_open) and events (posix_trace_event).
 *
 * A process becomes a tracebuf provider, named "posix_trace.PID", the
 * first time it opens an event type: a stream that traces it (in this
 * process or another) is a tracebuf session of that one provider.  A
 * provider thread of libtracebuf's follows the session; the events are
 * written by libtracebuf's engine, without a system call.
 *
 * Event types: ids from PT_FIRST_USER_ID on, in the order their names are
 * first opened, each with a tracebuf call site of its own in category
 * "posix:NAME", so that an event of a type that is not being traced costs
 * what a disabled tracebuf category costs: a load and a branch.  The
 * names and their ids are shared with the children that a stream with
 * POSIX_TRACE_INHERITED traces along with this process (struct
 * pt_names), so that an id means one type in all the processes of the
 * stream (posix_trace_eventid_open(3p)); the call sites are each
 * process's own.  The table only grows; a type is never freed (the engine
 * keeps its call site).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <tracebuf_event.h>
#include <tracebuf_provider.h>

#include "posixtrace_priv.h"

#define PT_USER_TYPES	__TRACEBUF_PT_USER_EVENT_MAX

struct pt_type {
	struct tracebuf_site site;
	/*
	 * The tracing epoch in which pt_fast_ok() held: the site's string
	 * refs are indices.  A lookup in the same epoch interns the same
	 * strings in the same tables, so they stay indices while the site is
	 * enabled; a start or a stop bumps the epoch.
	 */
	_Atomic uint32_t fast_epoch;
	trace_event_id_t id;
	char name[__TRACEBUF_PT_EVENT_NAME_MAX + 1];
	char category[TRACEBUF_NAME_MAX + 1];
};

/*
 * The names of the user event types: name[i] is id PT_FIRST_USER_ID + i,
 * published by count (written before it, never changed after).  Shared
 * memory, made with the first type (the unnamed one, id
 * POSIX_TRACE_UNNAMED_USER_EVENT), that a child forked into its parent's
 * stream keeps sharing: a type either of them opens gets one id in both,
 * and a stream of the parent's knows its name.  Any other child gets a
 * copy of its own (pt_after_fork()).  lock is process-shared and robust:
 * a process that dies holding it leaves at most a name not yet counted.
 */
struct pt_names {
	pthread_mutex_t lock;
	_Atomic unsigned int count;
	char name[PT_USER_TYPES][__TRACEBUF_PT_EVENT_NAME_MAX + 1];
};

static struct pt_names *_Atomic pt_names;

/*
 * User event type id PT_FIRST_USER_ID + i, as this process writes it: its
 * call site, made when this process first opens or posts it.
 */
static struct pt_type *_Atomic pt_types[PT_USER_TYPES];
static pthread_mutex_t pt_lock = PTHREAD_MUTEX_INITIALIZER;

/* The calling thread's events in the current tracing epoch. */
static __thread uint32_t pt_seq, pt_seq_epoch;

/* This process's provider: tried once per process (a child tries again). */
static struct tracebuf_provider *pt_provider;
static atomic_bool pt_provider_tried;
static pthread_once_t pt_once = PTHREAD_ONCE_INIT;
/* its name; a child of a process traced with inheritance keeps it */
static char pt_name[TRACEBUF_NAME_MAX + 1];
static bool pt_fork_inherits;

/*
 * Enabled when the stream that traces this process was created with
 * POSIX_TRACE_INHERITED (stream.c adds the category).
 */
static struct tracebuf_site pt_inherit_site = {
	.state = TRACEBUF_LIB_SITE_UNKNOWN,
	.type = TRACEBUF_LIB_FXT_EVENT_INSTANT,
	.category = PT_CATEGORY_INHERIT,
	.name = "",
};

/*
 * Enabled when a stream read on-line traces this process; armed (not
 * DISABLED) again by each categories update: pt_events_written().
 */
static struct tracebuf_site pt_wake_site = {
	.state = TRACEBUF_LIB_SITE_UNKNOWN,
	.type = TRACEBUF_LIB_FXT_EVENT_INSTANT,
	.category = PT_CATEGORY_WAKE,
	.name = "",
};

static const char *const pt_system_names[] = {
	[POSIX_TRACE_START] = "POSIX_TRACE_START",
	[POSIX_TRACE_STOP] = "POSIX_TRACE_STOP",
	[POSIX_TRACE_FILTER] = "POSIX_TRACE_FILTER",
	[POSIX_TRACE_OVERFLOW] = "POSIX_TRACE_OVERFLOW",
	[POSIX_TRACE_RESUME] = "POSIX_TRACE_RESUME",
	[POSIX_TRACE_FLUSH_START] = "POSIX_TRACE_FLUSH_START",
	[POSIX_TRACE_FLUSH_STOP] = "POSIX_TRACE_FLUSH_STOP",
	[POSIX_TRACE_ERROR] = "POSIX_TRACE_ERROR",
};

const char *pt_system_event_name(trace_event_id_t id)
{
	return id < sizeof(pt_system_names) / sizeof(pt_system_names[0]) ?
	       pt_system_names[id] : NULL;
}

const char *pt_user_event_name(trace_event_id_t id)
{
	struct pt_names *n = atomic_load_explicit(&pt_names, memory_order_acquire);
	unsigned int i = id - PT_FIRST_USER_ID;

	if (!n || id < PT_FIRST_USER_ID || i >= atomic_load_explicit(&n->count,
								    memory_order_acquire))
		return NULL;
	return n->name[i];
}

/* A new table of names, empty, or NULL. */
static struct pt_names *pt_names_map(void)
{
	struct pt_names *n = mmap(NULL, sizeof(*n), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pthread_mutexattr_t ma;

	if (n == MAP_FAILED)
		return NULL;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&n->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	return n;
}

static void pt_names_lock(struct pt_names *n)
{
	if (pthread_mutex_lock(&n->lock) == EOWNERDEAD)
		pthread_mutex_consistent(&n->lock);
}

/*
 * fork(), in a child that is not in its parent's stream (pt_fork_inherits,
 * which pt_after_fork(), registered after this, clears): a copy of the
 * names, its own from now on.  Without memory for it, the child goes on
 * sharing, which keeps the ids unique all the same.
 */
static void pt_names_after_fork(void)
{
	struct pt_names *old = atomic_load(&pt_names), *n;
	unsigned int count;

	if (!old || pt_fork_inherits)
		return;
	n = pt_names_map();
	if (!n)
		return;
	count = atomic_load_explicit(&old->count, memory_order_acquire);
	memcpy(n->name, old->name, count * sizeof(old->name[0]));
	atomic_store_explicit(&n->count, count, memory_order_release);
	atomic_store_explicit(&pt_names, n, memory_order_release);
	munmap(old, sizeof(*old));
}

/*
 * fork(), in the parent: does the stream that traces it want its
 * children?  The category's state is looked up if no event did since the
 * stream started or stopped.  That takes the engine's lock, which no
 * fork handler of libtracebuf's holds yet: this one was registered after
 * the engine's (tracebuf_provider_create() sets the engine up first, and
 * pt_once_init() runs once it returned), so it runs before them.
 */
static void pt_fork_prepare(void)
{
	pt_fork_inherits = false;
	if (!pt_provider)
		return;
	if (atomic_load(&pt_inherit_site.state) == TRACEBUF_LIB_SITE_UNKNOWN)
		__tracebuf_site_lookup(&pt_inherit_site, NULL, 0);
	pt_fork_inherits = atomic_load(&pt_inherit_site.state) == TRACEBUF_LIB_SITE_ENABLED;
}

/*
 * The child is another process: libtracebuf forgot its parent's provider
 * there, and so do we.  It registers at its first event: under its
 * parent's name if the parent's stream inherits (the session traces
 * every provider of that name, so it joins the stream), else under its
 * own.  Its event types stay (it inherited their ids); only a child in
 * its parent's stream shares the table of names from then on.
 */
static void pt_after_fork(void)
{
	pt_provider = NULL;
	if (!pt_fork_inherits)
		pt_name[0] = '\0';
	pt_fork_inherits = false;
	atomic_store(&pt_provider_tried, false);
}

static void pt_once_init(void)
{
	pthread_atfork(pt_fork_prepare, NULL, pt_after_fork);
}

/*
 * Register this process as provider "posix_trace.PID" (or under its
 * parent's name, see pt_after_fork()), once.  A process that is a
 * tracebuf provider already (-EBUSY) writes its events through that one;
 * without the module, events are not recorded.  Neither is an error of
 * the caller's.  If a stream that traces this process runs, this waits
 * (libtracebuf's start timeout) until the provider has started, so that
 * no event after the first eventid_open is lost.
 */
static void pt_provider_ensure(void)
{
	struct tracebuf_provider_config cfg = {
		.size = sizeof(cfg), .name = pt_name, .flags = TRACEBUF_LIB_PROVIDER_THREAD,
	};
	struct tracebuf_provider *p;

	if (atomic_load_explicit(&pt_provider_tried, memory_order_acquire))
		return;
	pthread_mutex_lock(&pt_lock);
	if (!atomic_load(&pt_provider_tried)) {
		if (!pt_name[0])
			snprintf(pt_name, sizeof(pt_name), PT_PROVIDER_PREFIX "%d", (int)getpid());
		if (tracebuf_provider_create(&cfg, &p))
			p = NULL;
		__atomic_store_n(&pt_provider, p, __ATOMIC_RELEASE);
		if (pt_provider)
			pthread_once(&pt_once, pt_once_init);
		atomic_store_explicit(&pt_provider_tried, true, memory_order_release);
	}
	pthread_mutex_unlock(&pt_lock);
}

/*
 * Without pt_lock: a caller may hold a stream's lock, which a thread in
 * pt_provider_ensure() (under pt_lock, waiting to be started) needs.
 */
uint32_t pt_self_provider_id(void)
{
	struct tracebuf_provider *p = __atomic_load_n(&pt_provider, __ATOMIC_ACQUIRE);

	return p ? tracebuf_provider_id(p) : 0;
}

int pt_event_name_check(const char *name, size_t *len)
{
	if (!name)
		return EINVAL;
	*len = strnlen(name, __TRACEBUF_PT_EVENT_NAME_MAX + 1);
	if (*len > __TRACEBUF_PT_EVENT_NAME_MAX)
		return ENAMETOOLONG;
	return *len ? 0 : EINVAL;
}

/*
 * pt_lock held: this process's call site of type PT_FIRST_USER_ID + @i,
 * whose name is in the table; NULL (*@err ENOMEM) without memory.
 */
static struct pt_type *pt_type_site(unsigned int i, int *err)
{
	struct pt_type *t = atomic_load_explicit(&pt_types[i], memory_order_relaxed);
	const char *name = atomic_load(&pt_names)->name[i];
	size_t len = strlen(name);

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t) {
		*err = ENOMEM;
		return NULL;
	}
	memcpy(t->name, name, len);
	memcpy(t->category, PT_CATEGORY_PREFIX, sizeof(PT_CATEGORY_PREFIX) - 1);
	memcpy(t->category + sizeof(PT_CATEGORY_PREFIX) - 1, name, len);
	atomic_init(&t->site.state, TRACEBUF_LIB_SITE_UNKNOWN);
	/* not an epoch before another 2^32 starts and stops */
	atomic_init(&t->fast_epoch, __tracebuf_epoch() - 1);
	t->site.type = TRACEBUF_LIB_FXT_EVENT_INSTANT;
	t->site.category = t->category;
	t->site.name = t->name;
	t->id = PT_FIRST_USER_ID + i;
	atomic_store_explicit(&pt_types[i], t, memory_order_release);
	return t;
}

/*
 * pt_lock held: the type named @name (@len bytes), from the table or
 * added to it, or NULL: the table is full (*@err untouched) or no memory.
 */
static struct pt_type *pt_type_find_or_add(const char *name, size_t len, int *err)
{
	struct pt_names *n = atomic_load(&pt_names);
	unsigned int i, count;

	pt_names_lock(n);
	count = atomic_load_explicit(&n->count, memory_order_relaxed);
	for (i = 0; i < count; i++)
		if (!strcmp(n->name[i], name))
			break;
	if (i == count && count < PT_USER_TYPES) {
		memcpy(n->name[i], name, len);
		n->name[i][len] = '\0';
		atomic_store_explicit(&n->count, count + 1, memory_order_release);
	}
	pthread_mutex_unlock(&n->lock);
	return i < PT_USER_TYPES ? pt_type_site(i, err) : NULL;
}

/* The table, its unnamed type first (a child may share its parent's). */
static int pt_types_init_locked(void)
{
	struct pt_names *n = atomic_load(&pt_names);
	int err = 0;

	if (!n) {
		n = pt_names_map();
		if (!n)
			return ENOMEM;
		atomic_store_explicit(&pt_names, n, memory_order_release);
		pthread_atfork(NULL, NULL, pt_names_after_fork);
	}
	if (!pt_type_find_or_add(PT_UNNAMED_NAME, sizeof(PT_UNNAMED_NAME) - 1, &err))
		return err ? err : ENOMEM;
	return 0;
}

/*
 * posix_trace_event() of a type this process did not open, that another
 * process of its stream did (the names are shared): its call site, made
 * now, or NULL (not a type).
 */
static __attribute__((noinline)) struct pt_type *pt_type_known(trace_event_id_t id)
{
	struct pt_type *t = NULL;
	int err = 0;

	if (!pt_user_event_name(id))
		return NULL;
	pthread_mutex_lock(&pt_lock);
	t = pt_type_site(id - PT_FIRST_USER_ID, &err);
	pthread_mutex_unlock(&pt_lock);
	if (t)
		pt_provider_ensure();
	return t;
}

/* ------------------------------------------------------------------------ */
/* posix_trace_eventid_open(3p)                                             */

POSIXTRACE_API int posix_trace_eventid_open(const char *restrict event_name,
					    trace_event_id_t *restrict event_id)
{
	struct pt_type *t;
	size_t len;
	int err = 0;

	if (!event_id)
		return EINVAL;
	err = pt_event_name_check(event_name, &len);
	if (err)
		return err;
	pthread_mutex_lock(&pt_lock);
	err = pt_types_init_locked();
	if (!err) {
		t = pt_type_find_or_add(event_name, len, &err);
		if (t)
			*event_id = t->id;
		else if (!err)	/* TRACE_USER_EVENT_MAX reached */
			*event_id = POSIX_TRACE_UNNAMED_USER_EVENT;
	}
	pthread_mutex_unlock(&pt_lock);
	if (!err)
		pt_provider_ensure();
	return err;
}

/* ------------------------------------------------------------------------ */
/* posix_trace_event(3p)                                                    */

/*
 * Whether the record of an enabled type can be written in place, as the
 * event macros' fast path writes theirs: the calling thread is in the
 * thread table, and the site's lookup interned the category, the name
 * and the argument names (arg_header[] holds each argument's type, size
 * and name ref).  Otherwise the engine's general path writes it.
 */
static inline bool pt_fast_ok(const struct pt_type *t)
{
	const struct tracebuf_site *site = &t->site;
	const uint64_t name = tracebuf_fxt_field(0xffff, 16, 31);

	/* an inline argument name has index 0 */
	return __tracebuf_self.thread_ref && site->category_ref.index && site->name_ref.index &&
	       (site->arg_header[0] & name) && (site->arg_header[1] & name) &&
	       (site->arg_header[2] & name) && (site->arg_header[3] & name) &&
	       (site->arg_header[4] & name);
}

/*
 * The data argument's header: its name ref from the site's, its size, and
 * the bytes as a string (inline ref) when they are UTF-8, else as a blob
 * (byte size in [32..63]).  Either is the header word and the bytes.
 */
static inline uint64_t pt_data_header(uint64_t site_header, const void *data, size_t len)
{
	uint64_t h = (site_header & tracebuf_fxt_field(0xffff, 16, 31)) |
		     tracebuf_fxt_field(1 + (len + 7) / 8, 4, 15);

	if (tracebuf_fxt_utf8(data, len)) {
		struct tracebuf_fxt_str str = tracebuf_fxt_str_inline(data, len);

		return h | tracebuf_fxt_field(TRACEBUF_LIB_FXT_ARG_STRING, 0, 3) |
		       tracebuf_fxt_field(tracebuf_fxt_str_ref(&str), 32, 47);
	}
	return h | tracebuf_fxt_field(TRACEBUF_LIB_FXT_ARG_BLOB, 0, 3) |
	       tracebuf_fxt_field(len, 32, 63);
}

/* ------------------------------------------------------------------------ */
/* Waking on-line readers                                                   */

/*
 * An on-line reader of this process that found nothing to read waits for
 * the next event of this process (pt_events_wait()), not a poll period:
 * it counts itself in pt_event_waiters, and an event written while one
 * waits bumps pt_event_gen and wakes them (a private futex: the readers
 * and the writers share this process's memory).  A reader counts itself
 * before it takes the snapshot that found nothing, so an event that
 * snapshot missed was written after it, and sees the count.
 *
 * A reader in another process (of another target, or of an inheriting
 * child) cannot be counted here: it arms pt_wake_site instead, with a
 * categories update of its session (online.c), before its snapshot.  The
 * first event after that finds the site not DISABLED, disarms it and
 * sends the ALERT PT_WAKE_ALERT, which the reader's stream thread turns
 * into a wake.  The hot path reads both without a fence, so in the rare
 * race where it misses one, the reader's wait ends at its poll period.
 */
static atomic_uint pt_event_waiters;
static atomic_uint pt_event_gen;

static __attribute__((noinline, cold)) void pt_futex_wake(void)
{
	atomic_fetch_add(&pt_event_gen, 1);
	syscall(SYS_futex, &pt_event_gen, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* An event was written, and a waiter may be woken: local, or remote. */
static __attribute__((noinline, cold)) void pt_events_wake_all(void)
{
	uint32_t on = TRACEBUF_LIB_SITE_ENABLED;

	pt_events_wake();
	if (atomic_load(&pt_wake_site.state) == TRACEBUF_LIB_SITE_UNKNOWN)
		__tracebuf_site_lookup(&pt_wake_site, NULL, 0);
	/* once per arming: the category stays enabled, the site does not */
	if (pt_provider && atomic_compare_exchange_strong(&pt_wake_site.state, &on,
							  TRACEBUF_LIB_SITE_DISABLED))
		tracebuf_provider_alert(pt_provider, PT_WAKE_ALERT);
}

/* Whether pt_events_wake_all() has something to do: the hot path's test. */
static inline bool pt_events_wanted(void)
{
	return atomic_load_explicit(&pt_event_waiters, memory_order_relaxed) |
	       (atomic_load_explicit(&pt_wake_site.state, memory_order_relaxed) ^
		TRACEBUF_LIB_SITE_DISABLED);
}

/* An event was written: wake who waits for it. */
static inline void pt_events_written(void)
{
	if (__builtin_expect(pt_events_wanted(), 0))
		pt_events_wake_all();
}

uint32_t pt_events_watch(void)
{
	atomic_fetch_add(&pt_event_waiters, 1);
	return atomic_load(&pt_event_gen);
}

bool pt_events_wait(uint32_t gen, uint64_t ns)
{
	struct timespec rel = { .tv_sec = (time_t)(ns / 1000000000u),
				.tv_nsec = (long)(ns % 1000000000u) };

	/* a signal handler ends the wait: EINTR, whatever SA_RESTART */
	return syscall(SYS_futex, &pt_event_gen, FUTEX_WAIT_PRIVATE, gen, &rel, NULL, 0) < 0 &&
	       errno == EINTR;
}

void pt_events_unwatch(void)
{
	atomic_fetch_sub(&pt_event_waiters, 1);
}

void pt_events_wake(void)
{
	if (atomic_load_explicit(&pt_event_waiters, memory_order_relaxed))
		pt_futex_wake();
}

/* pthread_self(), kept: one TLS load instead of a call into libc. */
static __thread uint64_t pt_thread_self;

/*
 * The data as a stream (tracebuf_fxt_put_stream()): whole words stored
 * word by word, which the compiler does inline, the rest with memcpy().
 */
static inline uint64_t *pt_put_data(uint64_t *p, const void *data, size_t len)
{
	const char *d = (const char *)data;
	size_t whole = len / 8;

	for (size_t i = 0; i < whole; i++)
		memcpy(p + i, d + i * 8, 8);
	p += whole;
	if (len % 8) {
		*p = 0;
		memcpy(p, d + whole * 8, len % 8);
		p++;
	}
	return p;
}

/* The record's words from its header to the data's header. */
static inline __attribute__((always_inline)) uint64_t *
pt_put_words(uint64_t *p, const struct pt_type *t, uint32_t seq, void *pc, size_t words,
	     uint32_t thread_ref, uint64_t ticks, uint64_t data_header)
{
	const struct tracebuf_site *site = &t->site;

	p = tracebuf_fxt_put(p, tracebuf_fxt_header(TRACEBUF_LIB_FXT_RECORD_EVENT, words * 8) |
			     tracebuf_fxt_field(TRACEBUF_LIB_FXT_EVENT_INSTANT, 16, 19) |
			     tracebuf_fxt_field(5, 20, 23) |
			     tracebuf_fxt_field(thread_ref, 24, 31) |
			     tracebuf_fxt_field(site->category_ref.index, 32, 47) |
			     tracebuf_fxt_field(site->name_ref.index, 48, 63));
	p = tracebuf_fxt_put(p, ticks);
	p = tracebuf_fxt_put(p, site->arg_header[0] | tracebuf_fxt_field(t->id, 32, 63));
	p = tracebuf_fxt_put(p, site->arg_header[1] | tracebuf_fxt_field(seq, 32, 63));
	p = tracebuf_fxt_put(p, site->arg_header[2]);
	p = tracebuf_fxt_put(p, (uint64_t)(uintptr_t)pc);
	p = tracebuf_fxt_put(p, site->arg_header[3]);
	p = tracebuf_fxt_put(p, pt_thread_self);
	return tracebuf_fxt_put(p, data_header);
}

/*
 * Reserve, store the words, commit: no lock, no system call.  The data
 * argument's size and inline length are the event's.  A record that does
 * not fit is dropped (and counted).  Any thread, any timebase, any state
 * of the chunk.
 */
static __attribute__((noinline)) void pt_write(const struct pt_type *t, uint32_t seq, void *pc,
					       const void *data, size_t len)
{
	struct tracebuf_thread *th = &__tracebuf_self;
	uint64_t data_header = pt_data_header(t->site.arg_header[4], data, len);
	/* header, ticks, id, seq, pc (2), thread (2), data (1 + dwords) */
	size_t words = 9 + (len + 7) / 8;
	uint64_t *p = tracebuf_record_reserve(th, words * 8);

	if (p) {
		if (!pt_thread_self)
			pt_thread_self = (uint64_t)pthread_self();
		/* stamped once reserved: the order rule at the top of online.c */
		p = pt_put_words(p, t, seq, pc, words, th->thread_ref, tracebuf_ticks(),
				 data_header);
		p = tracebuf_fxt_put_stream(p, data, len);
		tracebuf_record_commit(th, p);
	}
	pt_events_written();
}

/*
 * pt_write() inline, for the usual case: the chunk has room, the ticks
 * are the counter's, the thread's id is known.  No call but the tail
 * call to pt_write() otherwise, so that it needs no saved registers.
 */
static inline __attribute__((always_inline)) void
pt_write_fast(const struct pt_type *t, uint32_t seq, void *pc, const void *data, size_t len)
{
	struct tracebuf_thread *th = &__tracebuf_self;
	size_t words = 9 + (len + 7) / 8;
	uint64_t data_header;
	uint64_t *p;

	if (__builtin_expect(TRACEBUF_LIB_CPU_COUNTER == TRACEBUF_LIB_CPU_COUNTER_NONE ||
			     !TRACEBUF_LIB_LOAD(&__tracebuf_hot.use_counter, __ATOMIC_RELAXED) ||
			     !pt_thread_self, 0)) {
		pt_write(t, seq, pc, data, len);
		return;
	}
	data_header = pt_data_header(t->site.arg_header[4], data, len);
	if (__builtin_expect(!__tracebuf_reserve_try(th, words * 8, &p), 0)) {
		pt_write(t, seq, pc, data, len);
		return;
	}
	/* stamped once reserved: the order rule at the top of online.c */
	p = pt_put_words(p, t, seq, pc, words, th->thread_ref, __tracebuf_counter(),
			 data_header);
	p = pt_put_data(p, data, len);
	tracebuf_record_commit(th, p);
	pt_events_written();
}

/*
 * This thread's events since tracing (re)started: a reader of the stream
 * knows each by it, and a gap as a loss.  Counted whether or not the
 * record fits: one dropped is a gap too.
 */
static inline uint32_t pt_next_seq_in(uint32_t epoch)
{
	if (pt_seq_epoch != epoch) {
		pt_seq_epoch = epoch;
		pt_seq = 0;
	}
	return pt_seq++;
}

static inline uint32_t pt_next_seq(void)
{
	return pt_next_seq_in(__tracebuf_epoch());
}

/* Looked up (the first time after a start or a stop), or not fast: */
static __attribute__((noinline)) void pt_event_slow(struct pt_type *t, const void *data,
						    size_t len, void *pc)
{
	struct tracebuf_fxt_arg args[6];
	unsigned int nargs = 5;
	bool truncated = false;
	uint32_t seq, epoch;

	pt_provider_ensure();
	if (len > PT_MAX_DATA_SIZE_MAX) {
		len = PT_MAX_DATA_SIZE_MAX;
		truncated = true;
	}
	args[0] = tracebuf_fxt_arg_uint32(tracebuf_fxt_str_inline("id", 2), t->id);
	args[1] = tracebuf_fxt_arg_uint32(tracebuf_fxt_str_inline("seq", 3), 0);
	args[2] = tracebuf_fxt_arg_pointer(tracebuf_fxt_str_inline("pc", 2),
					   (uint64_t)(uintptr_t)pc);
	args[3] = tracebuf_fxt_arg_uint64(tracebuf_fxt_str_inline("thread", 6),
					  (uint64_t)pthread_self());
	args[4] = pt_data_arg(data, len);
	if (truncated)
		args[nargs++] = tracebuf_fxt_arg_bool(tracebuf_fxt_str_inline("truncated", 9),
						      true);
	/* before the lookup: an epoch that began after it does not count */
	epoch = __tracebuf_epoch();
	if (!TRACEBUF_LIB_SITE_READY(&t->site, args, nargs))
		return;
	/* whether children inherit the stream: see pt_fork_prepare() */
	if (atomic_load(&pt_inherit_site.state) == TRACEBUF_LIB_SITE_UNKNOWN)
		__tracebuf_site_lookup(&pt_inherit_site, NULL, 0);
	seq = pt_next_seq();
	args[1].u32 = seq;
	if (!truncated && pt_fast_ok(t)) {
		atomic_store_explicit(&t->fast_epoch, epoch, memory_order_relaxed);
		pt_write(t, seq, pc, data, len);
		return;
	}
	__tracebuf_emit_slow(&t->site, t->site.type, args, nargs, 0, 0);
	pt_events_written();
}

/*
 * A type that is not disabled: enabled (the usual case), or to look up.
 * Tail-called by posix_trace_event(), which then needs no saved register
 * when the type is filtered out; every call it makes is its last act.
 */
static __attribute__((noinline)) void pt_event_write(struct pt_type *t, const void *data,
						     size_t len, void *pc)
{
	if (!data)
		len = 0;
	uint32_t epoch = __tracebuf_epoch();

	if (TRACEBUF_LIB_LOAD(&t->site.state, __ATOMIC_ACQUIRE) == TRACEBUF_LIB_SITE_ENABLED &&
	    len <= PT_MAX_DATA_SIZE_MAX &&
	    atomic_load_explicit(&t->fast_epoch, memory_order_relaxed) == epoch &&
	    __tracebuf_self.thread_ref)
		pt_write_fast(t, pt_next_seq_in(epoch), pc, data, len);
	else
		pt_event_slow(t, data, len, pc);
}

/* posix_trace_event() of a type this process has no call site for yet. */
static __attribute__((noinline)) void pt_event_unknown(trace_event_id_t event_id,
						       const void *data, size_t len, void *pc)
{
	struct pt_type *t = pt_type_known(event_id);

	if (t && TRACEBUF_LIB_SITE_ON(&t->site))
		pt_event_slow(t, data, data ? len : 0, pc);
}

POSIXTRACE_API void posix_trace_event(trace_event_id_t event_id,
				      const void *restrict data_ptr, size_t data_len)
{
	unsigned int i = event_id - PT_FIRST_USER_ID;
	struct pt_type *t;

	if (i >= PT_USER_TYPES)
		return;
	t = atomic_load_explicit(&pt_types[i], memory_order_acquire);
	if (__builtin_expect(!t, 0)) {
		pt_event_unknown(event_id, data_ptr, data_len, __builtin_return_address(0));
		return;
	}
	if (TRACEBUF_LIB_SITE_ON(&t->site))
		pt_event_write(t, data_ptr, data_len, __builtin_return_address(0));
}
