// SPDX-License-Identifier: MIT
/*
 * libtracebuf: the rule for a trace buffer's size, in one place for the
 * session (which refuses a size before asking the kernel) and for
 * programs such as tracebufctl (which check an option, and say why a size
 * was refused), and the size a buffer needs to hold a given amount of a
 * provider's records, from the engine's own rules (engine_priv.h,
 * layout_priv.h).  Only the manager's public accessors are used here.
 */
#include <errno.h>
#include <stdbool.h>
#include <unistd.h>

#include <tracebuf_manager.h>

#include "engine_priv.h"
#include "lib_priv.h"
#include "layout_priv.h"

TRACEBUF_API uint64_t tracebuf_manager_buffer_align(const struct tracebuf_manager *m)
{
	const struct tracebuf_version_args *v = tracebuf_manager_version(m);
	long page;

	if (v->features & TRACEBUF_FEAT_BUFFER_ALIGN && v->buffer_align)
		return v->buffer_align;
	/* a module before ABI 1.4 wanted 4096 and its page size: ours */
	page = sysconf(_SC_PAGESIZE);
	return page > TRACEBUF_BUFFER_ALIGN ? (uint64_t)page : TRACEBUF_BUFFER_ALIGN;
}

TRACEBUF_API int tracebuf_buffer_size_check(const struct tracebuf_manager *m, uint64_t size)
{
	uint64_t align = m ? tracebuf_manager_buffer_align(m) : TRACEBUF_BUFFER_ALIGN;
	uint64_t max = m ? tracebuf_manager_version(m)->max_buffer_size : TRACEBUF_BUFFER_MAX;

	if (size > max)
		return -EFBIG;
	if (size < TRACEBUF_BUFFER_MIN || size % align)
		return -EINVAL;
	return 0;
}

/*
 * Whether a buffer of @size bytes holds @bytes of records (see
 * tracebuf_buffer_size_for()).  What the engine costs besides the records
 * (engine.c):
 *  - a chunk ends in padding only when the record that came to it did
 *    not fit: each pad is shorter than a record, so the pads of @bytes of
 *    records are fewer than @bytes; and a pad is at most max_record - 8,
 *    in a chunk of at least the chunk size, so when that is under half a
 *    chunk, at most one such pad comes with every chunk - pad bytes of
 *    records;
 *  - the end of a rolling buffer is a chunk shorter than the rest: one pad
 *    more;
 *  - each writer holds a chunk of at most chunk_max, maybe unused;
 *  - the stop reserve, and in oneshot mode the durable records, come out
 *    of the rolling buffer;
 *  - the engine takes no record over a quarter of what a rolling buffer fills.
 */
static bool tb_size_holds(uint64_t size, uint32_t mode, uint64_t bytes, uint64_t max_record,
			  uint32_t writers, uint64_t durable)
{
	uint64_t room, dur, pad, waste;
	uint32_t chunk, chunk_max;
	struct tb_layout l;

	tb_layout_compute(&l, size, mode);
	room = l.rolling_size - TRACEBUF_STOP_RESERVE;
	dur = mode == TRACEBUF_MODE_ONESHOT ? tb_oneshot_durable(l.rolling_size) : l.durable_size;
	if (dur < durable || max_record > room / 4)
		return false;
	if (mode == TRACEBUF_MODE_ONESHOT)
		room -= dur;
	tb_chunk_rule(l.rolling_size, &chunk, &chunk_max);
	pad = max_record - 8;
	waste = bytes;
	if (2 * pad < chunk)
		waste = (bytes * pad + chunk - pad - 1) / (chunk - pad);
	return bytes + waste + pad + (uint64_t)writers * chunk_max <= room;
}

TRACEBUF_API uint64_t tracebuf_buffer_size_for(uint32_t mode, uint64_t bytes,
					       uint64_t max_record, uint32_t writers,
					       uint64_t durable, uint64_t align)
{
	uint64_t size;

	if (!align)
		align = TRACEBUF_BUFFER_ALIGN;
	if (mode < TRACEBUF_MODE_ONESHOT || mode > TRACEBUF_MODE_STREAMING ||
	    align % TRACEBUF_BUFFER_ALIGN || (align & (align - 1)) || max_record < 8 ||
	    max_record % 8 || bytes > TRACEBUF_BUFFER_MAX || durable > TRACEBUF_DURABLE_MAX)
		return 0;
	if (!writers)
		writers = 1;
	/* a lower bound: the records themselves, in one rolling buffer or two */
	size = TRACEBUF_HEADER_SIZE + (mode == TRACEBUF_MODE_ONESHOT ? 1 : 2) * bytes;
	size = size < TRACEBUF_BUFFER_MIN ? TRACEBUF_BUFFER_MIN : (size + align - 1) / align * align;
	/* then the first that holds them: a scan, since chunk_max grows in steps */
	for (; size <= TRACEBUF_BUFFER_MAX; size += align)
		if (tb_size_holds(size, mode, bytes, max_record, writers, durable))
			return size;
	return 0;
}
