/* SPDX-License-Identifier: MIT */
/*
 * Private to libtracebuf: never installed, never included by a public
 * header.
 */
#ifndef TRACEBUF_LIB_PRIV_H
#define TRACEBUF_LIB_PRIV_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The library is built with -fvisibility=hidden: only functions marked
 * TRACEBUF_API can be exported, and libtracebuf.map then decides which
 * are (tracebuf_* in TRACEBUF_1.0).  Mark the definition, in the .c file.
 */
#define TRACEBUF_API	__attribute__((visibility("default")))

#define TRACEBUF_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define TB_OFFSETOFEND(type, field) \
	(offsetof(type, field) + sizeof(((type *)0)->field))

/*
 * The one rule for the size-versioned structs the library accepts (those
 * whose first field is "size_t size": struct tracebuf_provider_config,
 * struct tracebuf_session_config), as libbpf's OPTS_VALID and OPTS_GET:
 *  - the caller's size must reach the end of @ver0_field, the last field
 *    of the struct's first release (-EINVAL otherwise);
 *  - a caller built against a newer header may pass a longer struct: the
 *    bytes beyond ours must be zero, or it asks for something this
 *    library does not know (-EINVAL);
 *  - a field beyond the caller's size reads as a default (TB_OPTS_GET).
 */
#define TB_OPTS_VALID(opts, type, ver0_field)				\
	tb_opts_valid((opts), (opts) ? (opts)->size : 0,		\
		      TB_OFFSETOFEND(type, ver0_field), sizeof(type))
#define TB_OPTS_GET(opts, type, field, def)				\
	((opts)->size >= TB_OFFSETOFEND(type, field) ? (opts)->field : (def))

static inline bool tb_opts_valid(const void *opts, size_t size, size_t ver0, size_t ours)
{
	const unsigned char *p = opts;

	if (!opts || size < ver0)
		return false;
	for (size_t i = ours; i < size; i++)
		if (p[i])
			return false;
	return true;
}

struct tracebuf_reader;
struct tracebuf_reader_record;

/* reader.c: decode the record at @off of the reader's input next. */
int tb_reader_next_at(struct tracebuf_reader *r, size_t off,
		      struct tracebuf_reader_record *rec);

#endif /* TRACEBUF_LIB_PRIV_H */
