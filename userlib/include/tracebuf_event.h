/* SPDX-License-Identifier: MIT */
/*
 * libtracebuf: writing events.
 *
 *	TRACEBUF_LIB_INSTANT("net", "packet", TA_U32("len", n));
 *	TRACEBUF_LIB_DURATION("render", "frame");	// ends with the scope
 *	if (TRACEBUF_LIB_ENABLED("gfx:detail")) ...
 *
 * Every macro owns a static call site (struct tracebuf_site) that caches
 * whether its category is enabled, and once enabled the interned strings
 * and the record's header word.  Disabled, a macro costs one load and one
 * branch.  Enabled, it reserves space in the calling thread's chunk and
 * stores the words: no lock, no system call, no allocation.  The caches
 * are reset when tracing starts or stops, as Fuchsia does.
 *
 * Category and event names, and argument names, must be string literals
 * (or strings that live as long as the program).  String argument values
 * are copied into the record.  At most 15 arguments.
 *
 * Unless TRACEBUF_LIB_NO_SHORT_NAMES is defined, Fuchsia-style short names
 * are defined too: TRACE_INSTANT, TRACE_DURATION, TA_I32, ...
 */
#ifndef TRACEBUF_EVENT_H
#define TRACEBUF_EVENT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tracebuf_engine.h>
#include <tracebuf_fxt.h>

/* Call-site states: DISABLED is 0 so the disabled test is one branch. */
#define TRACEBUF_LIB_SITE_DISABLED	0u
#define TRACEBUF_LIB_SITE_ENABLED	1u
#define TRACEBUF_LIB_SITE_UNKNOWN	2u

#define TRACEBUF_LIB_MAX_ARGS		15

/*
 * A call site.  Statically initialized by the macros; the rest is filled
 * under the engine's lock by __tracebuf_site_lookup().
 */
struct tracebuf_site {
	atomic_uint state;		/* TRACEBUF_LIB_SITE_* */
	uint8_t type;			/* TRACEBUF_LIB_FXT_EVENT_* */
	bool fast;			/* header and arg words precomputed */
	uint8_t nargs;
	uint32_t size;			/* bytes, with an indexed thread */
	uint64_t header;		/* event header, thread ref 0 */
	uint64_t arg_header[TRACEBUF_LIB_MAX_ARGS];
	const char *category;
	const char *name;
	struct tracebuf_fxt_str category_ref;
	struct tracebuf_fxt_str name_ref;
	struct tracebuf_site *next;	/* all sites looked up */
};

#define TRACEBUF_LIB_SITE_INIT(evtype, cat, nm)				\
	{ .state = TRACEBUF_LIB_SITE_UNKNOWN, .type = (evtype),		\
	  .category = (cat), .name = (nm) }

/* A scoped duration, ended by __tracebuf_scope_end(). */
struct tracebuf_scope {
	struct tracebuf_site *site;
	uint64_t start;			/* 0: nothing to write */
	uint32_t nargs;
	struct tracebuf_fxt_arg args[TRACEBUF_LIB_MAX_ARGS];
};

TRACEBUF_HOT_API unsigned int __tracebuf_site_lookup(struct tracebuf_site *site,
						     const struct tracebuf_fxt_arg *args,
						     unsigned int nargs);
TRACEBUF_HOT_API void __tracebuf_blob(struct tracebuf_site *site, unsigned int blob_type,
				      const void *data, size_t len);
TRACEBUF_HOT_API void __tracebuf_emit_slow(struct tracebuf_site *site,
					   const struct tracebuf_fxt_arg *args,
					   unsigned int nargs, uint64_t ticks,
					   uint64_t extra);

/* Arguments.  Names are string literals. */
#define TRACEBUF_LIB_ARG_(t, n, member, v)				\
	{ .type = TRACEBUF_LIB_FXT_ARG_##t,				\
	  .name = { .data = (n), .len = sizeof(n) - 1 }, .member = (v) }
#define TRACEBUF_LIB_ARG_NULL(n)					\
	{ .type = TRACEBUF_LIB_FXT_ARG_NULL,				\
	  .name = { .data = (n), .len = sizeof(n) - 1 } }
#define TRACEBUF_LIB_ARG_INT32(n, v)	TRACEBUF_LIB_ARG_(INT32, n, i32, (int32_t)(v))
#define TRACEBUF_LIB_ARG_UINT32(n, v)	TRACEBUF_LIB_ARG_(UINT32, n, u32, (uint32_t)(v))
#define TRACEBUF_LIB_ARG_INT64(n, v)	TRACEBUF_LIB_ARG_(INT64, n, i64, (int64_t)(v))
#define TRACEBUF_LIB_ARG_UINT64(n, v)	TRACEBUF_LIB_ARG_(UINT64, n, u64, (uint64_t)(v))
#define TRACEBUF_LIB_ARG_DOUBLE(n, v)	TRACEBUF_LIB_ARG_(DOUBLE, n, dbl, (double)(v))
#define TRACEBUF_LIB_ARG_POINTER(n, v)	TRACEBUF_LIB_ARG_(POINTER, n, ptr, (uint64_t)(uintptr_t)(v))
#define TRACEBUF_LIB_ARG_KOID(n, v)	TRACEBUF_LIB_ARG_(KOID, n, koid, (uint64_t)(v))
#define TRACEBUF_LIB_ARG_BOOL(n, v)	TRACEBUF_LIB_ARG_(BOOL, n, b, (bool)(v))
#define TRACEBUF_LIB_ARG_STRING(n, v)					\
	TRACEBUF_LIB_ARG_(STRING, n, str, __tracebuf_str(v))

static inline struct tracebuf_fxt_str __tracebuf_str(const char *s)
{
	struct tracebuf_fxt_str r = { .data = s ? s : "", .len = s ? strlen(s) : 0 };

	return r;
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
 * Write one event for an enabled (or not yet looked up) site.  The fast
 * case is a reservation, a few stores and a commit; strings copied into
 * the record, inline koids and first use go through the slow path.
 */
static inline void __tracebuf_emit(struct tracebuf_site *site,
				   const struct tracebuf_fxt_arg *args,
				   unsigned int nargs, uint64_t ticks,
				   uint64_t extra)
{
	struct tracebuf_thread *t = &__tracebuf_self;
	uint64_t *p;

	if (__builtin_expect(!site->fast || !t->thread_ref, 0)) {
		__tracebuf_emit_slow(site, args, nargs, ticks, extra);
		return;
	}
	p = tracebuf_record_reserve(t, site->size);
	if (!p)
		return;
	*p++ = site->header | (uint64_t)t->thread_ref << 24;
	*p++ = ticks;
	for (unsigned int i = 0; i < nargs; i++)
		p = __tracebuf_put_arg(p, site->arg_header[i], &args[i]);
	if (tracebuf_fxt_event_has_extra(site->type))
		*p++ = extra;
	tracebuf_record_commit(t, p);
}

#define TRACEBUF_LIB_CAT_(a, b)	a##b
#define TRACEBUF_LIB_CAT(a, b)	TRACEBUF_LIB_CAT_(a, b)
#define TRACEBUF_LIB_UNIQ(name)	TRACEBUF_LIB_CAT(name, __LINE__)

/* The one-load-one-branch test every macro starts with. */
#define TRACEBUF_LIB_SITE_ON(site)					\
	__builtin_expect(atomic_load_explicit(&(site)->state,		\
					      memory_order_relaxed) !=	\
			 TRACEBUF_LIB_SITE_DISABLED, 0)

/*
 * A site that is not disabled: enabled, or looked up now (the first time
 * after a start or stop) and found enabled.
 */
#define TRACEBUF_LIB_SITE_READY(site, args, nargs)			\
	(atomic_load_explicit(&(site)->state, memory_order_relaxed) ==	\
	 TRACEBUF_LIB_SITE_ENABLED ||					\
	 __tracebuf_site_lookup((site), (args), (nargs)) ==		\
	 TRACEBUF_LIB_SITE_ENABLED)

/* The general event macro: TRACEBUF_LIB_EVENT_AT, timestamped now. */
#define TRACEBUF_LIB_EVENT(evtype, cat, nm, extra_word, ...)		\
	TRACEBUF_LIB_EVENT_AT(evtype, cat, nm, tracebuf_ticks(), extra_word, __VA_ARGS__)

#define TRACEBUF_LIB_INSTANT(cat, nm, ...)				\
	TRACEBUF_LIB_EVENT(TRACEBUF_LIB_FXT_EVENT_INSTANT, cat, nm, 0, __VA_ARGS__)
#define TRACEBUF_LIB_COUNTER(cat, nm, id, ...)				\
	TRACEBUF_LIB_EVENT(TRACEBUF_LIB_FXT_EVENT_COUNTER, cat, nm, id, __VA_ARGS__)
#define TRACEBUF_LIB_DURATION_BEGIN(cat, nm, ...)			\
	TRACEBUF_LIB_EVENT(TRACEBUF_LIB_FXT_EVENT_DURATION_BEGIN, cat, nm, 0, __VA_ARGS__)
#define TRACEBUF_LIB_DURATION_END(cat, nm, ...)				\
	TRACEBUF_LIB_EVENT(TRACEBUF_LIB_FXT_EVENT_DURATION_END, cat, nm, 0, __VA_ARGS__)
/* A complete duration with explicit start ticks (tracebuf_ticks()). */
#define TRACEBUF_LIB_DURATION_COMPLETE(cat, nm, start_ticks, ...)	\
	TRACEBUF_LIB_EVENT_AT(TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE, cat, nm, \
			      start_ticks, tracebuf_ticks(), __VA_ARGS__)
#define TRACEBUF_LIB_ASYNC_BEGIN(cat, nm, id, ...)			\
	TRACEBUF_LIB_EVENT(TRACEBUF_LIB_FXT_EVENT_ASYNC_BEGIN, cat, nm, id, __VA_ARGS__)
#define TRACEBUF_LIB_ASYNC_INSTANT(cat, nm, id, ...)			\
	TRACEBUF_LIB_EVENT(TRACEBUF_LIB_FXT_EVENT_ASYNC_INSTANT, cat, nm, id, __VA_ARGS__)
#define TRACEBUF_LIB_ASYNC_END(cat, nm, id, ...)			\
	TRACEBUF_LIB_EVENT(TRACEBUF_LIB_FXT_EVENT_ASYNC_END, cat, nm, id, __VA_ARGS__)
#define TRACEBUF_LIB_FLOW_BEGIN(cat, nm, id, ...)			\
	TRACEBUF_LIB_EVENT(TRACEBUF_LIB_FXT_EVENT_FLOW_BEGIN, cat, nm, id, __VA_ARGS__)
#define TRACEBUF_LIB_FLOW_STEP(cat, nm, id, ...)			\
	TRACEBUF_LIB_EVENT(TRACEBUF_LIB_FXT_EVENT_FLOW_STEP, cat, nm, id, __VA_ARGS__)
#define TRACEBUF_LIB_FLOW_END(cat, nm, id, ...)				\
	TRACEBUF_LIB_EVENT(TRACEBUF_LIB_FXT_EVENT_FLOW_END, cat, nm, id, __VA_ARGS__)

/*
 * An event with the timestamp given (evaluated only when the site is
 * enabled).  args[0] is a placeholder so an empty argument list is valid
 * C; it is skipped.
 */
#define TRACEBUF_LIB_EVENT_AT(evtype, cat, nm, ticks, extra_word, ...)	\
	do {								\
		static struct tracebuf_site __tb_site =			\
			TRACEBUF_LIB_SITE_INIT(evtype, cat, nm);	\
		if (TRACEBUF_LIB_SITE_ON(&__tb_site)) {			\
			const struct tracebuf_fxt_arg __tb_args[] =	\
				{ { .type = 0 }, __VA_ARGS__ };		\
			const unsigned int __tb_n =			\
				sizeof(__tb_args) / sizeof(__tb_args[0]) - 1; \
			_Static_assert(sizeof(__tb_args) / sizeof(__tb_args[0]) - 1 <= \
				       TRACEBUF_LIB_MAX_ARGS,		\
				       "at most 15 arguments");		\
			if (TRACEBUF_LIB_SITE_READY(&__tb_site, __tb_args + 1, __tb_n)) \
				__tracebuf_emit(&__tb_site, __tb_args + 1, \
						__tb_n, (ticks), (extra_word)); \
		}							\
	} while (0)

/* Is @cat enabled?  One load and one branch once looked up. */
#define TRACEBUF_LIB_ENABLED(cat)					\
	__extension__ ({						\
		static struct tracebuf_site __tb_site =			\
			TRACEBUF_LIB_SITE_INIT(TRACEBUF_LIB_FXT_EVENT_INSTANT, cat, ""); \
		unsigned int __tb_s = atomic_load_explicit(&__tb_site.state, \
							   memory_order_relaxed); \
		__builtin_expect(__tb_s != TRACEBUF_LIB_SITE_DISABLED, 0) && \
		(__tb_s == TRACEBUF_LIB_SITE_ENABLED ||			\
		 __tracebuf_site_lookup(&__tb_site, NULL, 0) ==		\
		 TRACEBUF_LIB_SITE_ENABLED);				\
	})

/* Scoped duration: a complete event written when the scope ends. */
static inline void __tracebuf_scope_end(struct tracebuf_scope *s)
{
	if (__builtin_expect(s->start != 0, 0))
		__tracebuf_emit(s->site, s->args, s->nargs, s->start,
				tracebuf_ticks());
}

static inline void __tracebuf_scope_begin(struct tracebuf_scope *s,
					  const struct tracebuf_fxt_arg *args,
					  unsigned int nargs)
{
	if (atomic_load_explicit(&s->site->state, memory_order_relaxed) !=
	    TRACEBUF_LIB_SITE_ENABLED &&
	    __tracebuf_site_lookup(s->site, args, nargs) !=
	    TRACEBUF_LIB_SITE_ENABLED)
		return;
	memcpy(s->args, args, nargs * sizeof(args[0]));
	s->nargs = nargs;
	s->start = tracebuf_ticks();
}

#define TRACEBUF_LIB_DURATION(cat, nm, ...)				\
	static struct tracebuf_site TRACEBUF_LIB_UNIQ(__tb_dsite) =	\
		TRACEBUF_LIB_SITE_INIT(TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE, \
				       cat, nm);			\
	__attribute__((cleanup(__tracebuf_scope_end)))			\
	struct tracebuf_scope TRACEBUF_LIB_UNIQ(__tb_scope);		\
	TRACEBUF_LIB_UNIQ(__tb_scope).site = &TRACEBUF_LIB_UNIQ(__tb_dsite); \
	TRACEBUF_LIB_UNIQ(__tb_scope).start = 0;			\
	if (TRACEBUF_LIB_SITE_ON(&TRACEBUF_LIB_UNIQ(__tb_dsite))) {	\
		const struct tracebuf_fxt_arg __tb_args[] =		\
			{ { .type = 0 }, __VA_ARGS__ };			\
		_Static_assert(sizeof(__tb_args) / sizeof(__tb_args[0]) - 1 <= \
			       TRACEBUF_LIB_MAX_ARGS, "at most 15 arguments"); \
		__tracebuf_scope_begin(&TRACEBUF_LIB_UNIQ(__tb_scope), __tb_args + 1, \
				       sizeof(__tb_args) / sizeof(__tb_args[0]) - 1); \
	}

/*
 * A blob record named nm, of type blob_type (TRACEBUF_LIB_FXT_BLOB_*), with
 * len bytes (at most TRACEBUF_LIB_FXT_BLOB_SIZE_MAX) copied from data,
 * when cat is enabled.  Blob records carry no timestamp or thread.
 */
#define TRACEBUF_LIB_BLOB(cat, nm, blob_type, data, len)		\
	do {								\
		static struct tracebuf_site __tb_site =			\
			TRACEBUF_LIB_SITE_INIT(TRACEBUF_LIB_FXT_EVENT_INSTANT, cat, nm); \
		if (TRACEBUF_LIB_SITE_ON(&__tb_site) &&			\
		    TRACEBUF_LIB_SITE_READY(&__tb_site, NULL, 0))		\
			__tracebuf_blob(&__tb_site, (blob_type), (data), (len)); \
	} while (0)

#ifndef TRACEBUF_LIB_NO_SHORT_NAMES
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
