/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracebuf: providers in the kernel.  A module or driver registers a
 * provider of its own, which managers see in the registry (pid 0) and
 * drive like any other (initialize, start, stop, terminate, the three
 * modes, snapshots, categories), and writes FXT events into its buffer
 * from any context but NMI, on the timebase of the user-space providers,
 * so its events stand next to theirs and the scheduler's in one trace.
 * The symbols are exported GPL-only by tracebuf.ko; build against its
 * Module.symvers (KBUILD_EXTRA_SYMBOLS).  module/examples/ has a module
 * that uses them.
 *
 *	static struct tracebuf_kcategory my_io =
 *		TRACEBUF_KCATEGORY_INIT("my.io", "requests and completions");
 *	static struct tracebuf_kcategory *my_cats[] = { &my_io };
 *	static struct tracebuf_kprovider *my_prov;
 *
 *	my_prov = tracebuf_kprovider_register("my_driver", my_cats,
 *					      ARRAY_SIZE(my_cats));
 *	...
 *	if (tracebuf_kcategory_enabled(&my_io))		// a static key
 *		tracebuf_kinstant(my_prov, &my_io, "irq",
 *				  TRACEBUF_KARG_U64("status", status));
 *	...
 *	tracebuf_kprovider_unregister(my_prov);
 *
 * A category is enabled while a started session asks for it: its name,
 * a pattern ending in '*' that matches it, or no list at all (every
 * category), unless an exclusion "-PATTERN" matches it, as for
 * user-space providers.  Its static key is switched from a work item, so
 * tracebuf_kcategory_enabled() costs a no-op jump while it is off; the
 * writers check again under interrupts off, so one that saw it on just
 * before a stop writes nothing.
 *
 * Each event is written on the current thread (its ids in the pid
 * namespace of the manager that started the provider; 0 when it cannot
 * see it), with the category, the name and the argument names inline.
 * A record that does not fit (at most TRACEBUF_KRECORD_MAX bytes, and
 * room in the buffer) is dropped and counted in the buffer header, as a
 * user-space provider's.  Strings are cut at TRACEBUF_KSTRING_MAX bytes.
 */
#ifndef _TRACEBUF_KERNEL_H
#define _TRACEBUF_KERNEL_H

#include <linux/jump_label.h>
#include <linux/types.h>

struct tracebuf_kprovider;

struct tracebuf_kcategory {
	const char *name;			/* 1..100 bytes */
	const char *description;		/* what "tracebufctl categories"
						 * shows; at most 400 bytes
						 */
	struct static_key_false on;		/* tracebuf's; while enabled */
};

#define TRACEBUF_KCATEGORY_INIT(_name, _description) {			\
	.name = (_name), .description = (_description),			\
	.on = STATIC_KEY_FALSE_INIT,					\
}

/*
 * Is @cat enabled in a running session?  A no-op jump when it is not.
 * @cat is the address of a category itself (&my_io), not a variable
 * holding one: a static key's address must be known at link time.
 */
#define tracebuf_kcategory_enabled(cat)	static_branch_unlikely(&(cat)->on)

enum tracebuf_karg_type {
	TRACEBUF_KARG_TYPE_I64 = 1,
	TRACEBUF_KARG_TYPE_U64,
	TRACEBUF_KARG_TYPE_STR,
	TRACEBUF_KARG_TYPE_PTR,
	TRACEBUF_KARG_TYPE_BOOL,
};

/* An event's argument: a name (1..100 bytes) and a value. */
struct tracebuf_karg {
	const char *name;
	enum tracebuf_karg_type type;
	union {
		s64 i64;
		u64 u64;
		const char *str;		/* NUL-terminated */
		const void *ptr;		/* written as a number */
		bool b;
	};
};

#define TRACEBUF_KARG_I64(n, v) \
	((struct tracebuf_karg){ .name = (n), .type = TRACEBUF_KARG_TYPE_I64, .i64 = (v) })
#define TRACEBUF_KARG_U64(n, v) \
	((struct tracebuf_karg){ .name = (n), .type = TRACEBUF_KARG_TYPE_U64, .u64 = (v) })
#define TRACEBUF_KARG_STR(n, v) \
	((struct tracebuf_karg){ .name = (n), .type = TRACEBUF_KARG_TYPE_STR, .str = (v) })
#define TRACEBUF_KARG_PTR(n, v) \
	((struct tracebuf_karg){ .name = (n), .type = TRACEBUF_KARG_TYPE_PTR, .ptr = (v) })
#define TRACEBUF_KARG_BOOL(n, v) \
	((struct tracebuf_karg){ .name = (n), .type = TRACEBUF_KARG_TYPE_BOOL, .b = (v) })

#define TRACEBUF_KARGS_MAX	15		/* an FXT record's */
#define TRACEBUF_KSTRING_MAX	255		/* a name or a string value */
#define TRACEBUF_KRECORD_MAX	4096		/* one event, bytes */

/* FXT event types (trace-format.md §4.2). */
enum tracebuf_kevent_type {
	TRACEBUF_KEVENT_INSTANT = 0,
	TRACEBUF_KEVENT_COUNTER = 1,
	TRACEBUF_KEVENT_BEGIN = 2,
	TRACEBUF_KEVENT_END = 3,
};

/*
 * Register a provider named @name (1..100 bytes) with @ncats categories
 * (statically allocated, names unique), from process context.  Returns
 * the provider or an ERR_PTR: -EINVAL for a bad name or category,
 * -ENOSPC or -ENOMEM when the registry or memory is full.  Every
 * category is off until a session enables it.
 */
struct tracebuf_kprovider *tracebuf_kprovider_register(const char *name,
						       struct tracebuf_kcategory *const *cats,
						       unsigned int ncats);

/*
 * Leave the registry (a manager tracing it is told, as when a provider
 * exits, and keeps what it wrote), switch its categories off and wait
 * until no writer is left; from process context.
 */
void tracebuf_kprovider_unregister(struct tracebuf_kprovider *kp);

/*
 * Write an event of @type in @cat, which must be one of @kp's, with @nargs
 * arguments (at most TRACEBUF_KARGS_MAX) and, for a counter, its @id.
 * Nothing when @cat is off; from any context but NMI.  The macros below
 * are the usual way in.
 */
void tracebuf_kevent(struct tracebuf_kprovider *kp, struct tracebuf_kcategory *cat,
		     enum tracebuf_kevent_type type, const char *name, u64 id,
		     const struct tracebuf_karg *args, unsigned int nargs);

#define __tracebuf_kargs(...) \
	((const struct tracebuf_karg[]){ __VA_ARGS__ })
#define __tracebuf_knargs(...) \
	(sizeof(__tracebuf_kargs(__VA_ARGS__)) / sizeof(struct tracebuf_karg))

/*
 * Each takes up to 15 TRACEBUF_KARG_*() after the name.  When @cat is off
 * they cost a call that returns at once; on a hot path, test
 * tracebuf_kcategory_enabled() first, which costs a no-op jump.
 */
#define __tracebuf_kevent(kp, cat, type, name, id, ...)			\
	tracebuf_kevent(kp, cat, type, name, id, __tracebuf_kargs(__VA_ARGS__),	\
			__tracebuf_knargs(__VA_ARGS__))
#define tracebuf_kinstant(kp, cat, name, ...) \
	__tracebuf_kevent(kp, cat, TRACEBUF_KEVENT_INSTANT, name, 0, ##__VA_ARGS__)
#define tracebuf_kbegin(kp, cat, name, ...) \
	__tracebuf_kevent(kp, cat, TRACEBUF_KEVENT_BEGIN, name, 0, ##__VA_ARGS__)
#define tracebuf_kend(kp, cat, name, ...) \
	__tracebuf_kevent(kp, cat, TRACEBUF_KEVENT_END, name, 0, ##__VA_ARGS__)
/* A counter: its values are the (numeric) arguments; @id tells series apart. */
#define tracebuf_kcounter(kp, cat, name, id, ...) \
	__tracebuf_kevent(kp, cat, TRACEBUF_KEVENT_COUNTER, name, id, ##__VA_ARGS__)

#endif /* _TRACEBUF_KERNEL_H */
