/* SPDX-License-Identifier: MIT */
/*
 * libtracebuf, private: where the parts of a trace buffer are.  The one
 * layout helper of the library, used by the provider's engine and the
 * manager's read-out alike, over the uapi header's rule
 * (tracebuf_layout_*(), which the kernel uses too): [header][durable]
 * [rolling 0][rolling 1], no gaps; oneshot has no durable buffer and one
 * rolling buffer.  Computed from the size and the mode, never read from a
 * buffer.
 */
#ifndef TRACEBUF_LAYOUT_PRIV_H
#define TRACEBUF_LAYOUT_PRIV_H

#include <stdint.h>
#include <string.h>

#include <linux/tracebuf.h>

struct tb_layout {
	uint64_t durable_off, durable_size;	/* 0, 0 in oneshot mode */
	uint64_t rolling_off[2], rolling_size;	/* rolling_off[1] 0 in oneshot */
};

/* @size bytes (at least TRACEBUF_BUFFER_MIN), TRACEBUF_MODE_* @mode. */
static inline void tb_layout_compute(struct tb_layout *l, uint64_t size, uint32_t mode)
{
	memset(l, 0, sizeof(*l));
	l->durable_size = tracebuf_layout_durable_size(size, mode);
	l->rolling_size = tracebuf_layout_rolling_size(size, mode);
	if (l->durable_size)
		l->durable_off = TRACEBUF_HEADER_SIZE;
	l->rolling_off[0] = tracebuf_layout_rolling_off(size, mode, 0);
	if (mode != TRACEBUF_MODE_ONESHOT)
		l->rolling_off[1] = tracebuf_layout_rolling_off(size, mode, 1);
}

/*
 * Oneshot mode has no durable buffer in the layout: libtracebuf's engine
 * keeps its durable records at the start of the rolling buffer of
 * @rolling bytes, in this many bytes (a manager's flush writes them
 * again, readout.c).
 */
static inline uint64_t tb_oneshot_durable(uint64_t rolling)
{
	uint64_t d = rolling / 16;

	if (d > TRACEBUF_DURABLE_MAX)
		d = TRACEBUF_DURABLE_MAX;
	return d & ~7ull;
}

#endif /* TRACEBUF_LAYOUT_PRIV_H */
