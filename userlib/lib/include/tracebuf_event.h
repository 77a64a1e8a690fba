/* SPDX-License-Identifier: MIT */
/*
 * libtracebuf: writing events, from C11 or C++17 and later.
 *
 *	TRACEBUF_LIB_INSTANT("net", "packet", TA_U32("len", n));
 *	TRACEBUF_LIB_DURATION("render", "frame");	// ends with the scope
 *	if (TRACEBUF_LIB_ENABLED("gfx:detail")) ...
 *
 * Every macro owns a static call site (struct tracebuf_site) that caches
 * whether its category is enabled, and once enabled the interned strings
 * and the record's header word.  Disabled, a macro costs one load and one
 * branch and evaluates none of its arguments (but at its first use after
 * a start or stop, when the site is looked up).  Enabled, it reserves space
 * in the calling thread's chunk and stores the words: no lock, no system
 * call, no allocation.  The caches are reset when tracing starts or
 * stops, as Fuchsia does.
 *
 * Names.  Category and event names must be string literals (or strings
 * that live as long as the program and never change: the call site keeps
 * them).  Argument names must be string literals; anything else fails to
 * compile with "argument names must be string literals".  At most 15
 * arguments.
 *
 * Values are evaluated when the event is recorded and copied into the
 * record, string values (TA_STR) whole.
 *
 * Durations.
 *  - TRACEBUF_LIB_DURATION (TRACE_DURATION) declares a duration that ends
 *    with the enclosing block: in C through a cleanup, in C++ as an RAII
 *    object.  Its arguments are evaluated and taken when it begins.  With
 *    number, pointer, koid and bool arguments only, their values are kept
 *    and one duration-complete event is recorded when it ends.  With a
 *    string argument, a duration-begin event holding the arguments is
 *    recorded when it begins and a duration-end event when it ends, so the
 *    string is read once, at the beginning.
 *  - It is a declaration.  In C it must stand in a block: as the body of
 *    an unbraced if, for or while it fails to compile, with an error that
 *    names tracebuf_duration_needs_a_block.  In C++ it may be such a body
 *    (then it ends at once).  Any number of them may share a line.
 *  - TRACEBUF_LIB_DURATION_BEGIN and _END pair up on one thread.  An end
 *    whose begin was not recorded (tracing started in between, or the
 *    begin was dropped) is not recorded either, so a trace never holds an
 *    end without its begin.
 *  - A duration that spans a stop or a restart of tracing ends unrecorded
 *    (a scoped one with a string argument leaves its begin).
 *
 * With TRACEBUF_LIB_SHORT_NAMES defined before it is included,
 * Fuchsia-style short names are defined too: TRACE_INSTANT,
 * TRACE_DURATION, TA_I32, ... (see the end of this file).
 */
#ifndef TRACEBUF_EVENT_H
#define TRACEBUF_EVENT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tracebuf_engine.h>
#include <tracebuf_fxt.h>

#ifdef __cplusplus
#define TRACEBUF_LIB_STATIC_ASSERT	static_assert
#else
#define TRACEBUF_LIB_STATIC_ASSERT	_Static_assert
#endif

TRACEBUF_LIB_EXTERN_C

/* Call-site states: DISABLED is 0 so the disabled test is one branch. */
#define TRACEBUF_LIB_SITE_DISABLED	0u
#define TRACEBUF_LIB_SITE_ENABLED	1u
#define TRACEBUF_LIB_SITE_UNKNOWN	2u

#define TRACEBUF_LIB_MAX_ARGS		15

/*
 * A call site.  Statically initialized by the macros (constant
 * initialization in C++ too); the rest is filled under the engine's lock
 * by __tracebuf_site_lookup().
 */
struct tracebuf_site {
	TRACEBUF_LIB_ATOMIC(uint32_t) state;	/* TRACEBUF_LIB_SITE_* */
	uint8_t type;			/* TRACEBUF_LIB_FXT_EVENT_* */
	bool fast;			/* header and arg words precomputed */
	bool strings;			/* a string argument */
	uint8_t nargs;
	uint32_t size;			/* bytes, with an indexed thread */
	uint64_t header;		/* event header, thread ref 0 */
	uint64_t arg_header[TRACEBUF_LIB_MAX_ARGS];
	const char *category;
	const char *name;
	struct tracebuf_fxt_str category_ref;
	struct tracebuf_fxt_str name_ref;
	struct tracebuf_site *next;	/* all sites looked up */
#ifdef __cplusplus
	constexpr tracebuf_site(uint8_t evtype, const char *cat, const char *nm) noexcept
		: state(TRACEBUF_LIB_SITE_UNKNOWN), type(evtype), fast(false),
		  strings(false), nargs(0), size(0), header(0), arg_header(),
		  category(cat), name(nm), category_ref(), name_ref(), next(nullptr)
	{
	}
#endif
};

/* A scoped duration (TRACEBUF_LIB_DURATION), ended by __tracebuf_scope_end(). */
#define TRACEBUF_LIB_SCOPE_OFF		0u	/* nothing to record at the end */
#define TRACEBUF_LIB_SCOPE_COMPLETE	1u	/* one complete event at the end */
#define TRACEBUF_LIB_SCOPE_BEGUN	2u	/* begin recorded: the end at the end */
#define TRACEBUF_LIB_SCOPE_DROPPED	3u	/* begin dropped: its end is too */

struct tracebuf_scope {
	uint32_t mode;			/* TRACEBUF_LIB_SCOPE_* */
	uint32_t epoch;			/* tracing epoch it began in */
	struct tracebuf_site *site;
	uint64_t start;
	uint32_t nargs;
	struct tracebuf_fxt_arg args[TRACEBUF_LIB_MAX_ARGS];
};

TRACEBUF_HOT_API unsigned int __tracebuf_site_lookup(struct tracebuf_site *site,
						     const struct tracebuf_fxt_arg *args,
						     unsigned int nargs);
TRACEBUF_HOT_API void __tracebuf_blob(struct tracebuf_site *site, unsigned int blob_type,
				      const void *data, size_t len);
/*
 * An event of @site's with the given type; true if it was recorded.
 * @ticks 0: stamped once its record is reserved, so that a snapshot
 * sealed after that time holds it (libposixtrace's on-line reader relies
 * on it).
 */
TRACEBUF_HOT_API bool __tracebuf_emit_slow(struct tracebuf_site *site, unsigned int type,
					   const struct tracebuf_fxt_arg *args,
					   unsigned int nargs, uint64_t ticks,
					   uint64_t extra);
/*
 * A record the caller will not write since the one it pairs with was
 * dropped (a duration's end): counted as dropped while tracing.
 */
TRACEBUF_HOT_API void __tracebuf_drop(void);

static inline struct tracebuf_fxt_str __tracebuf_str(const char *s)
{
	return s ? tracebuf_fxt_str_inline(s, strlen(s)) : tracebuf_fxt_str_empty();
}

/* Store one argument precomputed by the site; returns the next word. */
static inline uint64_t *__tracebuf_put_arg(uint64_t *p, uint64_t header,
					   const struct tracebuf_fxt_arg *a)
{
	switch (a->type) {
	case TRACEBUF_LIB_FXT_ARG_INT32:
		*p++ = header | (uint64_t)(uint32_t)a->i32 << 32;
		break;
	case TRACEBUF_LIB_FXT_ARG_UINT32:
		*p++ = header | (uint64_t)a->u32 << 32;
		break;
	case TRACEBUF_LIB_FXT_ARG_BOOL:
		*p++ = header | (uint64_t)a->b << 32;
		break;
	case TRACEBUF_LIB_FXT_ARG_INT64:
	case TRACEBUF_LIB_FXT_ARG_UINT64:
	case TRACEBUF_LIB_FXT_ARG_POINTER:
	case TRACEBUF_LIB_FXT_ARG_KOID:
		*p++ = header;
		*p++ = a->u64;
		break;
	case TRACEBUF_LIB_FXT_ARG_DOUBLE:
		*p++ = header;
		memcpy(p++, &a->dbl, sizeof(a->dbl));
		break;
	default:	/* NULL */
		*p++ = header;
		break;
	}
	return p;
}

/*
 * Write one event for an enabled (or not yet looked up) site; true if it
 * was recorded.  The fast case is a reservation, a few stores and a
 * commit; strings copied into the record, inline koids and first use go
 * through the slow path.
 */
static inline bool __tracebuf_emit(struct tracebuf_site *site,
				   const struct tracebuf_fxt_arg *args,
				   unsigned int nargs, uint64_t ticks,
				   uint64_t extra)
{
	struct tracebuf_thread *t = &__tracebuf_self;
	uint64_t *p;

	if (__builtin_expect(!site->fast || !t->thread_ref, 0))
		return __tracebuf_emit_slow(site, site->type, args, nargs, ticks, extra);
	p = tracebuf_record_reserve(t, site->size);
	if (!p)
		return false;
	*p++ = site->header | (uint64_t)t->thread_ref << 24;
	*p++ = ticks;
	for (unsigned int i = 0; i < nargs; i++)
		p = __tracebuf_put_arg(p, site->arg_header[i], &args[i]);
	if (tracebuf_fxt_event_has_extra(site->type))
		*p++ = extra;
	tracebuf_record_commit(t, p);
	return true;
}

/*
 * The fast path of the event macros, for a site found enabled with its
 * record precomputed, on a thread with a thread ref
 * (__tracebuf_fast_ready()).  The macros hand it their own argument
 * array, whose address goes nowhere else, with nargs and every type a
 * constant: the compiler keeps the values in registers and folds the
 * record's size and each argument's store, so what is left is the
 * reservation and the stores.
 */
#define TRACEBUF_LIB_EACH_ARG_(X)					\
	X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14)

static inline bool __tracebuf_fast_ready(const struct tracebuf_site *site, unsigned int state)
{
	return state == TRACEBUF_LIB_SITE_ENABLED && site->fast && __tracebuf_self.thread_ref;
}

/* The record's bytes: header, ticks, arguments, extra word (a constant). */
static inline __attribute__((always_inline)) size_t
__tracebuf_fast_size(unsigned int type, const struct tracebuf_fxt_arg *args,
		     unsigned int nargs)
{
	size_t words = 2 + (tracebuf_fxt_event_has_extra(type) ? 1 : 0);

#define TRACEBUF_LIB_ARG_WORDS_(i)					\
	if (nargs > (i))						\
		words += tracebuf_fxt_arg_has_word(args[i].type) ? 2 : 1;
	TRACEBUF_LIB_EACH_ARG_(TRACEBUF_LIB_ARG_WORDS_)
#undef TRACEBUF_LIB_ARG_WORDS_
	return words * 8;
}

static inline __attribute__((always_inline)) bool
__tracebuf_emit_fast(struct tracebuf_site *site, unsigned int evtype,
		     const struct tracebuf_fxt_arg *args, unsigned int nargs,
		     uint64_t ticks, uint64_t extra)
{
	/* the macro's constant; else (C++ may pass a variable) the site's */
	unsigned int type = __builtin_constant_p(evtype) ? evtype : site->type;
	struct tracebuf_thread *t = &__tracebuf_self;
	size_t size = __tracebuf_fast_size(type, args, nargs);
	uint32_t ref = t->thread_ref;
	uint64_t *p;

	if (__builtin_expect(!__tracebuf_reserve_try(t, size, &p), 0)) {
		p = __tracebuf_reserve_slow(t, size);
		if (!p)
			return false;
		/* the durable buffer was cleared: the thread got a new ref */
		if (t->thread_ref != ref) {
			tracebuf_fxt_pad_write(p, size);
			tracebuf_record_commit(t, p + size / 8);
			__tracebuf_drop();
			return false;
		}
	}
	p[0] = site->header | (uint64_t)ref << 24;
	p[1] = ticks;
	p += 2;
#define TRACEBUF_LIB_PUT_ARG_(i)					\
	if (nargs > (i))						\
		p = __tracebuf_put_arg(p, site->arg_header[i], &args[i]);
	TRACEBUF_LIB_EACH_ARG_(TRACEBUF_LIB_PUT_ARG_)
#undef TRACEBUF_LIB_PUT_ARG_
	if (tracebuf_fxt_event_has_extra(type))
		*p++ = extra;
	tracebuf_record_commit(t, p);
	return true;
}

/* Bumped by every start and stop: what was begun before is not continued. */
static inline uint32_t __tracebuf_epoch(void)
{
	return TRACEBUF_LIB_LOAD(&__tracebuf_hot.epoch, __ATOMIC_RELAXED);
}

/*
 * A duration begin is counted on its thread: __tracebuf_begin_thread()
 * before it is written (what an earlier start or stop began is forgotten
 * then), __tracebuf_begin_counted() after, with whether it was recorded.
 */
static inline __attribute__((always_inline)) struct tracebuf_thread *
__tracebuf_begin_thread(void)
{
	struct tracebuf_thread *t = &__tracebuf_self;
	uint32_t epoch = __tracebuf_epoch();

	if (t->begin_epoch != epoch) {
		t->begin_epoch = epoch;
		t->begin_depth = 0;
		t->begin_dropped = 0;
	}
	return t;
}

static inline __attribute__((always_inline)) bool
__tracebuf_begin_counted(struct tracebuf_thread *t, bool recorded)
{
	if (!recorded) {
		t->begin_dropped++;
		return false;
	}
	t->begin_depth++;
	return true;
}

static inline bool __tracebuf_emit_begin(struct tracebuf_site *site,
					 const struct tracebuf_fxt_arg *args,
					 unsigned int nargs, uint64_t ticks,
					 uint64_t extra)
{
	struct tracebuf_thread *t = __tracebuf_begin_thread();

	return __tracebuf_begin_counted(t, __tracebuf_emit(site, args, nargs, ticks, extra));
}

static inline __attribute__((always_inline)) bool
__tracebuf_emit_begin_fast(struct tracebuf_site *site, unsigned int type,
			   const struct tracebuf_fxt_arg *args, unsigned int nargs,
			   uint64_t ticks, uint64_t extra)
{
	struct tracebuf_thread *t = __tracebuf_begin_thread();

	return __tracebuf_begin_counted(t, __tracebuf_emit_fast(site, type, args, nargs,
								ticks, extra));
}

/*
 * A duration end is recorded only when this thread recorded a begin it
 * did not end; the end of a begin that was dropped is counted as dropped
 * too.  True when the end is to be written.
 */
static inline __attribute__((always_inline)) bool __tracebuf_end_due(void)
{
	struct tracebuf_thread *t = &__tracebuf_self;

	if (t->begin_epoch != __tracebuf_epoch())
		return false;
	if (__builtin_expect(!t->begin_depth, 0)) {
		if (t->begin_dropped) {
			t->begin_dropped--;
			__tracebuf_drop();
		}
		return false;
	}
	t->begin_depth--;
	return true;
}

static inline bool __tracebuf_emit_end(struct tracebuf_site *site,
				       const struct tracebuf_fxt_arg *args,
				       unsigned int nargs, uint64_t ticks,
				       uint64_t extra)
{
	return __tracebuf_end_due() && __tracebuf_emit(site, args, nargs, ticks, extra);
}

static inline __attribute__((always_inline)) bool
__tracebuf_emit_end_fast(struct tracebuf_site *site, unsigned int type,
			 const struct tracebuf_fxt_arg *args, unsigned int nargs,
			 uint64_t ticks, uint64_t extra)
{
	return __tracebuf_end_due() &&
	       __tracebuf_emit_fast(site, type, args, nargs, ticks, extra);
}

/* The one-load-one-branch test every macro starts with. */
#define TRACEBUF_LIB_SITE_ON(site)					\
	__builtin_expect(TRACEBUF_LIB_LOAD(&(site)->state, __ATOMIC_RELAXED) != \
			 TRACEBUF_LIB_SITE_DISABLED, 0)

/*
 * A site that is not disabled: enabled, or looked up now (the first time
 * after a start or stop) and found enabled.  ENABLED is loaded with
 * acquire: it pairs with the lookup's release store, after which the
 * caller reads what the lookup wrote (header, size, string refs), maybe
 * on another thread.
 */
#define TRACEBUF_LIB_SITE_READY(site, args, nargs)			\
	(TRACEBUF_LIB_LOAD(&(site)->state, __ATOMIC_ACQUIRE) ==		\
	 TRACEBUF_LIB_SITE_ENABLED ||					\
	 __tracebuf_site_lookup((site), (args), (nargs)) ==		\
	 TRACEBUF_LIB_SITE_ENABLED)

/* Scoped durations: the end, at the end of the block or of the object. */
static inline void __tracebuf_scope_end(struct tracebuf_scope *s)
{
	if (__builtin_expect(s->mode == TRACEBUF_LIB_SCOPE_OFF, 1) ||
	    s->epoch != __tracebuf_epoch())
		return;
	if (s->mode == TRACEBUF_LIB_SCOPE_COMPLETE)
		__tracebuf_emit(s->site, s->args, s->nargs, s->start, tracebuf_ticks());
	else if (s->mode == TRACEBUF_LIB_SCOPE_BEGUN)
		__tracebuf_emit_slow(s->site, TRACEBUF_LIB_FXT_EVENT_DURATION_END, NULL, 0,
				     tracebuf_ticks(), 0);
	else
		__tracebuf_drop();
}

/* The beginning, for a site that is not disabled; s->mode is OFF. */
static inline void __tracebuf_scope_begin(struct tracebuf_scope *s,
					  struct tracebuf_site *site,
					  const struct tracebuf_fxt_arg *args,
					  unsigned int nargs)
{
	if (!TRACEBUF_LIB_SITE_READY(site, args, nargs))
		return;
	s->site = site;
	s->epoch = __tracebuf_epoch();
	if (__builtin_expect(site->strings, 0)) {
		/* the strings are read now, and only now */
		if (__tracebuf_emit_slow(site, TRACEBUF_LIB_FXT_EVENT_DURATION_BEGIN, args,
					 nargs, tracebuf_ticks(), 0))
			s->mode = TRACEBUF_LIB_SCOPE_BEGUN;
		else
			s->mode = TRACEBUF_LIB_SCOPE_DROPPED;
		return;
	}
	memcpy(s->args, args, nargs * sizeof(args[0]));
	s->nargs = nargs;
	s->start = tracebuf_ticks();
	s->mode = TRACEBUF_LIB_SCOPE_COMPLETE;
}

TRACEBUF_LIB_EXTERN_C_END

/* ------------------------------------------------------------------------ */
/* The macros                                                               */

#define TRACEBUF_LIB_CAT_(a, b)	a##b
#define TRACEBUF_LIB_CAT(a, b)	TRACEBUF_LIB_CAT_(a, b)

#ifdef __cplusplus
namespace tracebuf {

/* An argument's name: a string literal, whose length is its size - 1. */
template <size_t N>
constexpr struct tracebuf_fxt_str arg_name(const char (&s)[N]) noexcept
{
	return tracebuf_fxt_str{ s, N - 1, 0 };
}

template <typename T>
struct tracebuf_fxt_str arg_name(T) noexcept
{
	static_assert(sizeof(T) == 0, "argument names must be string literals");
	return tracebuf_fxt_str();
}

/* An argument, built in place (C++17 cannot designate a union member). */
template <typename V>
inline struct tracebuf_fxt_arg arg(unsigned int type, struct tracebuf_fxt_str name,
				   V tracebuf_fxt_arg::*member, V value) noexcept
{
	struct tracebuf_fxt_arg a;

	a.type = type;
	a.name = name;
	a.*member = value;
	return a;
}

/* TRACEBUF_LIB_DURATION: begins if its site is enabled, ends when destroyed. */
class scoped_duration {
public:
	template <typename Begin>
	scoped_duration(struct tracebuf_site *site, Begin begin) noexcept
	{
		s_.mode = TRACEBUF_LIB_SCOPE_OFF;
		if (TRACEBUF_LIB_SITE_ON(site))
			begin(&s_, site);
	}
	~scoped_duration()
	{
		__tracebuf_scope_end(&s_);
	}
	scoped_duration(const scoped_duration &) = delete;
	scoped_duration &operator=(const scoped_duration &) = delete;

private:
	struct tracebuf_scope s_;
};

} /* namespace tracebuf */

#define TRACEBUF_LIB_SITE_DEFINE(var, evtype, cat, nm)			\
	static struct tracebuf_site var((evtype), (cat), (nm))
#define TRACEBUF_LIB_ARG_(t, n, member, ctype, value)			\
	::tracebuf::arg<ctype>(TRACEBUF_LIB_FXT_ARG_##t, ::tracebuf::arg_name(n), \
			       &tracebuf_fxt_arg::member, (value))
#define TRACEBUF_LIB_ARG_NONE_	tracebuf_fxt_arg()
#else
#define TRACEBUF_LIB_SITE_DEFINE(var, evtype, cat, nm)			\
	static struct tracebuf_site var = {				\
		.state = TRACEBUF_LIB_SITE_UNKNOWN, .type = (evtype),	\
		.category = (cat), .name = (nm) }
/*
 * An argument, designated in place.  __builtin_constant_p() holds for a
 * string literal and not for a variable, so a name that is not a literal
 * fails the assertion.
 */
#define TRACEBUF_LIB_ARG_(t, n, member, ctype, value)			\
	{ .type = TRACEBUF_LIB_FXT_ARG_##t,				\
	  .name = { .data = (n), .len = sizeof(struct {			\
			_Static_assert(__builtin_constant_p(n),		\
				       "argument names must be string literals"); \
			char c; }) * 0 + sizeof(n) - 1 },		\
	  .member = (value) }
#define TRACEBUF_LIB_ARG_NONE_	{ .type = 0 }
#endif

/* Arguments.  Names are string literals. */
#define TRACEBUF_LIB_ARG_NULL(n)	TRACEBUF_LIB_ARG_(NULL, n, u64, uint64_t, 0)
#define TRACEBUF_LIB_ARG_INT32(n, v)					\
	TRACEBUF_LIB_ARG_(INT32, n, i32, int32_t, (int32_t)(v))
#define TRACEBUF_LIB_ARG_UINT32(n, v)					\
	TRACEBUF_LIB_ARG_(UINT32, n, u32, uint32_t, (uint32_t)(v))
#define TRACEBUF_LIB_ARG_INT64(n, v)					\
	TRACEBUF_LIB_ARG_(INT64, n, i64, int64_t, (int64_t)(v))
#define TRACEBUF_LIB_ARG_UINT64(n, v)					\
	TRACEBUF_LIB_ARG_(UINT64, n, u64, uint64_t, (uint64_t)(v))
#define TRACEBUF_LIB_ARG_DOUBLE(n, v)					\
	TRACEBUF_LIB_ARG_(DOUBLE, n, dbl, double, (double)(v))
#define TRACEBUF_LIB_ARG_POINTER(n, v)					\
	TRACEBUF_LIB_ARG_(POINTER, n, ptr, uint64_t, (uint64_t)(uintptr_t)(v))
#define TRACEBUF_LIB_ARG_KOID(n, v)					\
	TRACEBUF_LIB_ARG_(KOID, n, koid, uint64_t, (uint64_t)(v))
#define TRACEBUF_LIB_ARG_BOOL(n, v)	TRACEBUF_LIB_ARG_(BOOL, n, b, bool, (bool)(v))
#define TRACEBUF_LIB_ARG_STRING(n, v)					\
	TRACEBUF_LIB_ARG_(STRING, n, str, struct tracebuf_fxt_str, __tracebuf_str(v))

/*
 * The variadic macros take their last fixed parameter (the event's name,
 * its id, its start ticks or its extra word) in the "...", as the head of
 * the list, and the event's arguments as its rest.  C11 (before C23) and
 * C++17 need at least one argument for a "...": TRACE_INSTANT("c", "e")
 * then passes one, and compiles without a warning with -pedantic.
 * TRACEBUF_LIB_HEAD_(list) is the head; TRACEBUF_LIB_REST_(list) the rest,
 * nothing when there is none (the head alone, or the head and an empty
 * argument, "e", ).  To tell them apart, the second element of the list
 * with "()" appended is looked at: it is "()" when the list is the head
 * alone (an argument is never a parenthesized nothing).
 */
#define TRACEBUF_LIB_HEAD_(...)		TRACEBUF_LIB_FIRST_(__VA_ARGS__, ~)
#define TRACEBUF_LIB_FIRST_(a, ...)	a
#define TRACEBUF_LIB_SECOND_(a, b, ...)	b
#define TRACEBUF_LIB_SECOND_X_(...)	TRACEBUF_LIB_SECOND_(__VA_ARGS__)
#define TRACEBUF_LIB_PROBE_(...)	~, 1
/* 1 if x is "()", else 0 */
#define TRACEBUF_LIB_IS_EMPTY_PARENS_(x)				\
	TRACEBUF_LIB_SECOND_X_(TRACEBUF_LIB_PROBE_ x, 0, ~)
#define TRACEBUF_LIB_REST_(...)						\
	TRACEBUF_LIB_CAT(TRACEBUF_LIB_REST_,				\
			 TRACEBUF_LIB_IS_EMPTY_PARENS_(			\
				 TRACEBUF_LIB_SECOND_(__VA_ARGS__, (), ~)))(__VA_ARGS__)
#define TRACEBUF_LIB_REST_0(head, ...)	__VA_ARGS__
#define TRACEBUF_LIB_REST_1(head)

/*
 * The argument array of a macro, from its list (head first): a
 * placeholder first, so that an empty list is valid C, then the
 * arguments (at most 15).
 */
#define TRACEBUF_LIB_ARGS_(var, ...)					\
	const struct tracebuf_fxt_arg var[] = {				\
		TRACEBUF_LIB_ARG_NONE_, TRACEBUF_LIB_REST_(__VA_ARGS__) }; \
	TRACEBUF_LIB_STATIC_ASSERT(sizeof(var) / sizeof(var[0]) - 1 <=	\
				   TRACEBUF_LIB_MAX_ARGS, "at most 15 arguments")
#define TRACEBUF_LIB_NARGS_(var)	((unsigned int)(sizeof(var) / sizeof(var[0]) - 1))

/*
 * An event with the timestamp given (evaluated only when the site is
 * enabled), written by @emit (__tracebuf_emit or its begin and end
 * variants) or, when the site is ready for it, by @emit's _fast variant.
 * The "..." is the caller's list: its head, which the caller took, and
 * the arguments.  The argument array is spelled out in both branches, so
 * that the fast one's never leaves it; either evaluates the arguments
 * once.  The state is loaded once, with acquire (on x86 as cheap as
 * relaxed): ENABLED pairs with the lookup's release store.
 */
#define TRACEBUF_LIB_EVENT_EMIT_(emit, evtype, cat, nm, ticks, extra_word, ...) \
	do {								\
		TRACEBUF_LIB_SITE_DEFINE(__tb_site, evtype, cat, nm);	\
		unsigned int __tb_state = TRACEBUF_LIB_LOAD(&__tb_site.state, \
							    __ATOMIC_ACQUIRE); \
									\
		if (__builtin_expect(__tb_state != TRACEBUF_LIB_SITE_DISABLED, 0)) { \
			if (__tracebuf_fast_ready(&__tb_site, __tb_state)) { \
				TRACEBUF_LIB_ARGS_(__tb_args, __VA_ARGS__); \
				emit##_fast(&__tb_site, (evtype), __tb_args + 1, \
					    TRACEBUF_LIB_NARGS_(__tb_args), (ticks), \
					    (extra_word));		\
			} else {					\
				TRACEBUF_LIB_ARGS_(__tb_args, __VA_ARGS__); \
				if (TRACEBUF_LIB_SITE_READY(&__tb_site, __tb_args + 1, \
							    TRACEBUF_LIB_NARGS_(__tb_args))) \
					emit(&__tb_site, __tb_args + 1,	\
					     TRACEBUF_LIB_NARGS_(__tb_args), (ticks), \
					     (extra_word));		\
			}						\
		}							\
	} while (0)

/*
 * The general event macros: TRACEBUF_LIB_EVENT_AT(evtype, cat, nm, ticks,
 * extra_word, args...) and TRACEBUF_LIB_EVENT(evtype, cat, nm,
 * extra_word, args...), timestamped now.
 */
#define TRACEBUF_LIB_EVENT_AT(evtype, cat, nm, ticks, ...)		\
	TRACEBUF_LIB_EVENT_EMIT_(__tracebuf_emit, evtype, cat, nm, ticks, \
				 TRACEBUF_LIB_HEAD_(__VA_ARGS__), __VA_ARGS__)
#define TRACEBUF_LIB_EVENT(evtype, cat, nm, ...)			\
	TRACEBUF_LIB_EVENT_EMIT_(__tracebuf_emit, evtype, cat, nm, tracebuf_ticks(), \
				 TRACEBUF_LIB_HEAD_(__VA_ARGS__), __VA_ARGS__)

/* Those of each type: (cat, nm, [id or start ticks,] args...) */
#define TRACEBUF_LIB_INSTANT(cat, ...)					\
	TRACEBUF_LIB_EVENT_EMIT_(__tracebuf_emit, TRACEBUF_LIB_FXT_EVENT_INSTANT, cat, \
				 TRACEBUF_LIB_HEAD_(__VA_ARGS__), tracebuf_ticks(), 0, \
				 __VA_ARGS__)
#define TRACEBUF_LIB_COUNTER(cat, nm, ...)				\
	TRACEBUF_LIB_EVENT(TRACEBUF_LIB_FXT_EVENT_COUNTER, cat, nm, __VA_ARGS__)
#define TRACEBUF_LIB_DURATION_BEGIN(cat, ...)				\
	TRACEBUF_LIB_EVENT_EMIT_(__tracebuf_emit_begin,			\
				 TRACEBUF_LIB_FXT_EVENT_DURATION_BEGIN, cat,	\
				 TRACEBUF_LIB_HEAD_(__VA_ARGS__), tracebuf_ticks(), 0, \
				 __VA_ARGS__)
#define TRACEBUF_LIB_DURATION_END(cat, ...)				\
	TRACEBUF_LIB_EVENT_EMIT_(__tracebuf_emit_end,			\
				 TRACEBUF_LIB_FXT_EVENT_DURATION_END, cat,	\
				 TRACEBUF_LIB_HEAD_(__VA_ARGS__), tracebuf_ticks(), 0, \
				 __VA_ARGS__)
/* A complete duration with explicit start ticks (tracebuf_ticks()). */
#define TRACEBUF_LIB_DURATION_COMPLETE(cat, nm, ...)			\
	TRACEBUF_LIB_EVENT_EMIT_(__tracebuf_emit,			\
				 TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE, cat, nm, \
				 TRACEBUF_LIB_HEAD_(__VA_ARGS__), tracebuf_ticks(), \
				 __VA_ARGS__)
#define TRACEBUF_LIB_ASYNC_BEGIN(cat, nm, ...)				\
	TRACEBUF_LIB_EVENT(TRACEBUF_LIB_FXT_EVENT_ASYNC_BEGIN, cat, nm, __VA_ARGS__)
#define TRACEBUF_LIB_ASYNC_INSTANT(cat, nm, ...)			\
	TRACEBUF_LIB_EVENT(TRACEBUF_LIB_FXT_EVENT_ASYNC_INSTANT, cat, nm, __VA_ARGS__)
#define TRACEBUF_LIB_ASYNC_END(cat, nm, ...)				\
	TRACEBUF_LIB_EVENT(TRACEBUF_LIB_FXT_EVENT_ASYNC_END, cat, nm, __VA_ARGS__)
#define TRACEBUF_LIB_FLOW_BEGIN(cat, nm, ...)				\
	TRACEBUF_LIB_EVENT(TRACEBUF_LIB_FXT_EVENT_FLOW_BEGIN, cat, nm, __VA_ARGS__)
#define TRACEBUF_LIB_FLOW_STEP(cat, nm, ...)				\
	TRACEBUF_LIB_EVENT(TRACEBUF_LIB_FXT_EVENT_FLOW_STEP, cat, nm, __VA_ARGS__)
#define TRACEBUF_LIB_FLOW_END(cat, nm, ...)				\
	TRACEBUF_LIB_EVENT(TRACEBUF_LIB_FXT_EVENT_FLOW_END, cat, nm, __VA_ARGS__)

/* Is @cat enabled?  One load and one branch once looked up. */
#define TRACEBUF_LIB_ENABLED(cat)					\
	__extension__ ({						\
		TRACEBUF_LIB_SITE_DEFINE(__tb_site, TRACEBUF_LIB_FXT_EVENT_INSTANT, \
					 cat, "");			\
		unsigned int __tb_s = TRACEBUF_LIB_LOAD(&__tb_site.state, \
							__ATOMIC_RELAXED); \
		__builtin_expect(__tb_s != TRACEBUF_LIB_SITE_DISABLED, 0) && \
		(__tb_s == TRACEBUF_LIB_SITE_ENABLED ||			\
		 __tracebuf_site_lookup(&__tb_site, NULL, 0) ==		\
		 TRACEBUF_LIB_SITE_ENABLED);				\
	})

/* A scoped duration; see "Durations" at the top. */
#define TRACEBUF_LIB_DURATION(cat, ...)					\
	TRACEBUF_LIB_DURATION_(TRACEBUF_LIB_CAT(__tb_scope_, __COUNTER__), \
			       cat, TRACEBUF_LIB_HEAD_(__VA_ARGS__), __VA_ARGS__)

#ifdef __cplusplus
#define TRACEBUF_LIB_DURATION_(var, cat, nm, ...)			\
	::tracebuf::scoped_duration var(				\
		[]() noexcept -> struct tracebuf_site * {		\
			TRACEBUF_LIB_SITE_DEFINE(__tb_site,		\
				TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE, cat, nm); \
			return &__tb_site;				\
		}(),							\
		[&](struct tracebuf_scope *__tb_s, struct tracebuf_site *__tb_sp) noexcept { \
			TRACEBUF_LIB_ARGS_(__tb_args, __VA_ARGS__);	\
			__tracebuf_scope_begin(__tb_s, __tb_sp, __tb_args + 1, \
					       TRACEBUF_LIB_NARGS_(__tb_args)); \
		})
#else
/* Its name is what a compiler shows when the macro is not in a block. */
typedef struct tracebuf_scope tracebuf_duration_needs_a_block;
#define TRACEBUF_LIB_DURATION_(var, cat, nm, ...)			\
	tracebuf_duration_needs_a_block var				\
		__attribute__((cleanup(__tracebuf_scope_end)));		\
	var.mode = TRACEBUF_LIB_SCOPE_OFF;				\
	{								\
		TRACEBUF_LIB_SITE_DEFINE(__tb_site,			\
			TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE, cat, nm); \
		if (TRACEBUF_LIB_SITE_ON(&__tb_site)) {			\
			TRACEBUF_LIB_ARGS_(__tb_args, __VA_ARGS__);	\
			__tracebuf_scope_begin(&var, &__tb_site, __tb_args + 1, \
					       TRACEBUF_LIB_NARGS_(__tb_args)); \
		}							\
	}
#endif

/*
 * A blob record named nm, of type blob_type (TRACEBUF_LIB_FXT_BLOB_*), with
 * len bytes (at most TRACEBUF_LIB_FXT_BLOB_SIZE_MAX) copied from data,
 * when cat is enabled.  Blob records carry no timestamp or thread.
 */
#define TRACEBUF_LIB_BLOB(cat, nm, blob_type, data, len)		\
	do {								\
		TRACEBUF_LIB_SITE_DEFINE(__tb_site, TRACEBUF_LIB_FXT_EVENT_INSTANT, \
					 cat, nm);			\
		if (TRACEBUF_LIB_SITE_ON(&__tb_site) &&			\
		    TRACEBUF_LIB_SITE_READY(&__tb_site, NULL, 0))		\
			__tracebuf_blob(&__tb_site, (blob_type), (data), (len)); \
	} while (0)

/*
 * The layout compiled into applications.  The inline functions and
 * macros above read and write these fields in the program's own memory
 * (its call sites and scopes, its threads' state, the engine's hot
 * words), and libtracebuf's compiled code reads and writes the same
 * memory: a libtracebuf.so.1 must keep every offset and size below on
 * each ABI it supports (LP64; ILP32 with 8-byte aligned 64-bit integers,
 * as on Arm; ILP32 with 4-byte aligned ones, i386).  A change that fails
 * one of these is an ABI break: it needs a new soname.
 */
#if defined(__LP64__)
#define TRACEBUF_LIB_ABI(lp64, ilp32, i386)	(lp64)
#elif defined(__i386__)
#define TRACEBUF_LIB_ABI(lp64, ilp32, i386)	(i386)
#else
#define TRACEBUF_LIB_ABI(lp64, ilp32, i386)	(ilp32)
#endif
#ifdef __cplusplus
#define TRACEBUF_LIB_ABI_ASSERT(cond, what)	static_assert(cond, what)
#else
#define TRACEBUF_LIB_ABI_ASSERT(cond, what)	_Static_assert(cond, what)
#endif
#define TRACEBUF_LIB_ABI_OFF(type, field, lp64, ilp32, i386)			\
	TRACEBUF_LIB_ABI_ASSERT(offsetof(struct type, field) ==		\
				TRACEBUF_LIB_ABI(lp64, ilp32, i386),		\
				"libtracebuf ABI: " #type "." #field " moved")
#define TRACEBUF_LIB_ABI_SIZE(type, lp64, ilp32, i386)				\
	TRACEBUF_LIB_ABI_ASSERT(sizeof(struct type) ==				\
				TRACEBUF_LIB_ABI(lp64, ilp32, i386),		\
				"libtracebuf ABI: struct " #type " changed size")

TRACEBUF_LIB_ABI_SIZE(tracebuf_thread, 128, 128, 128);
TRACEBUF_LIB_ABI_OFF(tracebuf_thread, pos, 0, 0, 0);
TRACEBUF_LIB_ABI_OFF(tracebuf_thread, end, 8, 4, 4);
TRACEBUF_LIB_ABI_OFF(tracebuf_thread, writing, 16, 8, 8);
TRACEBUF_LIB_ABI_OFF(tracebuf_thread, closed, 20, 12, 12);
TRACEBUF_LIB_ABI_OFF(tracebuf_thread, thread_ref, 44, 36, 36);
TRACEBUF_LIB_ABI_OFF(tracebuf_thread, begin_depth, 76, 68, 68);
TRACEBUF_LIB_ABI_OFF(tracebuf_thread, begin_epoch, 80, 72, 72);
TRACEBUF_LIB_ABI_OFF(tracebuf_thread, begin_dropped, 100, 84, 84);
TRACEBUF_LIB_ABI_SIZE(tracebuf_engine_hot, 12, 12, 12);
TRACEBUF_LIB_ABI_OFF(tracebuf_engine_hot, epoch, 0, 0, 0);
TRACEBUF_LIB_ABI_OFF(tracebuf_engine_hot, strong_fence, 4, 4, 4);
TRACEBUF_LIB_ABI_OFF(tracebuf_engine_hot, use_counter, 8, 8, 8);
TRACEBUF_LIB_ABI_SIZE(tracebuf_fxt_str, 24, 12, 12);
TRACEBUF_LIB_ABI_OFF(tracebuf_fxt_str, len, 8, 4, 4);
TRACEBUF_LIB_ABI_OFF(tracebuf_fxt_str, index, 16, 8, 8);
TRACEBUF_LIB_ABI_SIZE(tracebuf_fxt_arg, 56, 32, 28);
TRACEBUF_LIB_ABI_OFF(tracebuf_fxt_arg, name, 8, 4, 4);
TRACEBUF_LIB_ABI_OFF(tracebuf_fxt_arg, u64, 32, 16, 16);
TRACEBUF_LIB_ABI_SIZE(tracebuf_site, 216, 184, 176);
TRACEBUF_LIB_ABI_OFF(tracebuf_site, state, 0, 0, 0);
TRACEBUF_LIB_ABI_OFF(tracebuf_site, type, 4, 4, 4);
TRACEBUF_LIB_ABI_OFF(tracebuf_site, fast, 5, 5, 5);
TRACEBUF_LIB_ABI_OFF(tracebuf_site, strings, 6, 6, 6);
TRACEBUF_LIB_ABI_OFF(tracebuf_site, nargs, 7, 7, 7);
TRACEBUF_LIB_ABI_OFF(tracebuf_site, size, 8, 8, 8);
TRACEBUF_LIB_ABI_OFF(tracebuf_site, header, 16, 16, 12);
TRACEBUF_LIB_ABI_OFF(tracebuf_site, arg_header, 24, 24, 20);
TRACEBUF_LIB_ABI_OFF(tracebuf_site, category, 144, 144, 140);
TRACEBUF_LIB_ABI_OFF(tracebuf_site, name, 152, 148, 144);
TRACEBUF_LIB_ABI_OFF(tracebuf_site, category_ref, 160, 152, 148);
TRACEBUF_LIB_ABI_OFF(tracebuf_site, name_ref, 184, 164, 160);
TRACEBUF_LIB_ABI_OFF(tracebuf_site, next, 208, 176, 172);
TRACEBUF_LIB_ABI_SIZE(tracebuf_scope, 872, 512, 444);
TRACEBUF_LIB_ABI_OFF(tracebuf_scope, mode, 0, 0, 0);
TRACEBUF_LIB_ABI_OFF(tracebuf_scope, epoch, 4, 4, 4);
TRACEBUF_LIB_ABI_OFF(tracebuf_scope, site, 8, 8, 8);
TRACEBUF_LIB_ABI_OFF(tracebuf_scope, start, 16, 16, 12);
TRACEBUF_LIB_ABI_OFF(tracebuf_scope, nargs, 24, 24, 20);
TRACEBUF_LIB_ABI_OFF(tracebuf_scope, args, 32, 32, 24);

/*
 * Fuchsia-style short names, for a program that asks for them by defining
 * TRACEBUF_LIB_SHORT_NAMES before including this header: TRACE_INSTANT,
 * TRACE_DURATION, TA_I32, ...  Not by default: Perfetto's and Fuchsia's
 * own headers use the same names, and a program may use two tracers.
 */
#ifdef TRACEBUF_LIB_SHORT_NAMES
#define TRACE_BLOB		TRACEBUF_LIB_BLOB
#define TRACE_INSTANT		TRACEBUF_LIB_INSTANT
#define TRACE_COUNTER		TRACEBUF_LIB_COUNTER
#define TRACE_DURATION		TRACEBUF_LIB_DURATION
#define TRACE_DURATION_BEGIN	TRACEBUF_LIB_DURATION_BEGIN
#define TRACE_DURATION_END	TRACEBUF_LIB_DURATION_END
#define TRACE_DURATION_COMPLETE	TRACEBUF_LIB_DURATION_COMPLETE
#define TRACE_ASYNC_BEGIN	TRACEBUF_LIB_ASYNC_BEGIN
#define TRACE_ASYNC_INSTANT	TRACEBUF_LIB_ASYNC_INSTANT
#define TRACE_ASYNC_END		TRACEBUF_LIB_ASYNC_END
#define TRACE_FLOW_BEGIN	TRACEBUF_LIB_FLOW_BEGIN
#define TRACE_FLOW_STEP		TRACEBUF_LIB_FLOW_STEP
#define TRACE_FLOW_END		TRACEBUF_LIB_FLOW_END
#define TRACE_ENABLED		TRACEBUF_LIB_ENABLED
#define TA_NULL			TRACEBUF_LIB_ARG_NULL
#define TA_I32			TRACEBUF_LIB_ARG_INT32
#define TA_U32			TRACEBUF_LIB_ARG_UINT32
#define TA_I64			TRACEBUF_LIB_ARG_INT64
#define TA_U64			TRACEBUF_LIB_ARG_UINT64
#define TA_DOUBLE		TRACEBUF_LIB_ARG_DOUBLE
#define TA_STR			TRACEBUF_LIB_ARG_STRING
#define TA_PTR			TRACEBUF_LIB_ARG_POINTER
#define TA_KOID			TRACEBUF_LIB_ARG_KOID
#define TA_BOOL			TRACEBUF_LIB_ARG_BOOL
#endif

#endif /* TRACEBUF_EVENT_H */
