/* SPDX-License-Identifier: MIT */
/*
 * The engine over plain memory, for the host tests (event_test.c,
 * cxx_test.cpp): attach and start it on a heap buffer, then stop it, lay
 * the buffer out as a manager's final collection does and decode the
 * events.  A C API, so that C++ tests can use it too (tests/memtrace.c is
 * C: the engine's private header is).
 */
#ifndef TRACEBUF_TESTS_MEMTRACE_H
#define TRACEBUF_TESTS_MEMTRACE_H

#include <stddef.h>
#include <stdint.h>

#include <tracebuf_event.h>
#include <tracebuf_reader.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MT_EV_MAX	4096

struct mt_ev {
	unsigned int type;
	char cat[64], name[64];
	uint64_t ticks, extra, pid, tid;
	unsigned int nargs;
	struct tracebuf_reader_arg args[TRACEBUF_LIB_FXT_ARGS_MAX];
	char strval[64];	/* the last string argument */
};

/* What the last mt_collect() decoded. */
extern struct mt_ev mt_ev[MT_EV_MAX];
extern unsigned int mt_nev;
extern unsigned int mt_nblobs, mt_blob_type;	/* named blob records */
extern char mt_blob_name[64], mt_blob_payload[64];
extern void *mt_buf;				/* the buffer */

/*
 * A buffer of @size in @mode (TRACEBUF_MODE_*), attached and started with
 * @ncats categories (NUL-terminated, @cats_size bytes; none: all).  0 or -1.
 */
int mt_setup(uint32_t mode, size_t size, const char *cats, size_t cats_size,
	     unsigned int ncats);
/* Stop, collect and decode; 0, or the reader's -errno (then *where says why). */
int mt_collect(const char **where);
/* Restart after mt_collect() with @disposition (TRACEBUF_START_*). */
int mt_restart(uint32_t disposition);
void mt_stop(void);
/* Detach and free the buffer. */
void mt_detach(void);

/*
 * The layout of the structs C and C++ code share: sizes and the offsets
 * of their last fields.  mt_c_layout holds them as the C compiler sees
 * them; cxx_test.cpp compares what the C++ compiler makes of the same.
 */
#define MT_LAYOUT {							\
	sizeof(struct tracebuf_thread),					\
	offsetof(struct tracebuf_thread, chunk_len),			\
	offsetof(struct tracebuf_thread, begin_epoch),			\
	offsetof(struct tracebuf_thread, registered),			\
	sizeof(struct tracebuf_engine_hot),				\
	offsetof(struct tracebuf_engine_hot, use_counter),		\
	sizeof(struct tracebuf_site),					\
	offsetof(struct tracebuf_site, arg_header),			\
	offsetof(struct tracebuf_site, next),				\
	sizeof(struct tracebuf_scope),					\
	offsetof(struct tracebuf_scope, args),				\
	sizeof(struct tracebuf_fxt_arg),				\
}
#define MT_LAYOUT_N	12
extern const size_t mt_c_layout[MT_LAYOUT_N];

/* The first event named @name, or NULL; how many there are. */
const struct mt_ev *mt_find(const char *name);
unsigned int mt_count(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBUF_TESTS_MEMTRACE_H */
