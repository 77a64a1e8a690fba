/* SPDX-License-Identifier: MIT */
/*
 * The manager's save path without the module, for the benchmarks
 * (bench/bench.c natively, ctl/tests/vm/sbench_vmtest.c in the guest):
 * rolling buffers of a streaming buffer full of a provider's turns (t_turn())
 * in the engine's chunks, each padded at its end (t_turns_chunked()),
 * checked and written out as a streaming save does it
 * (tb_readout_keep()), or written by a plain write().
 */
#ifndef TRACEBUF_TESTS_SAVEPATH_H
#define TRACEBUF_TESTS_SAVEPATH_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"		/* t_turns_chunked() */
#include "engine_priv.h"	/* TRACEBUF_CHUNK_SIZE */
#include "session_priv.h"		/* tb_readout_keep() */

/* The bytes of a rolling buffer of @rb_size bytes that whole chunks fill. */
static inline size_t t_save_len(size_t rb_size)
{
	return rb_size / TRACEBUF_CHUNK_SIZE * TRACEBUF_CHUNK_SIZE;
}

/*
 * @total bytes (a multiple of @rb_size) of rolling buffers, each chunks of
 * turns (t_turns_chunked()) up to t_save_len(@rb_size), zeros after: what saves
 * hold.  NULL: no memory.
 */
static inline uint8_t *t_save_records(size_t total, size_t rb_size)
{
	uint8_t *data = calloc(1, total);
	uint32_t i = 0;

	for (size_t off = 0; data && off < total; off += rb_size) {
		if (t_turns_chunked(data + off, t_save_len(rb_size), TRACEBUF_CHUNK_SIZE, &i)) {
			free(data);
			return NULL;
		}
	}
	return data;
}

/*
 * Save the rolling buffers of @data (t_save_records(@total, @rb_size)) to @fd,
 * as the manager saves them (@walk: tb_readout_keep() and its output)
 * or by a plain write() of each: the thread's CPU seconds, or -errno
 * (-EBADMSG: the walk left out more than the padding).
 */
static inline double t_save_run(int fd, const uint8_t *data, size_t total, size_t rb_size,
				bool walk)
{
	static uint8_t obuf[64 << 10];
	struct tracebuf_session *s = calloc(1, sizeof(*s));
	size_t len = t_save_len(rb_size);
	uint64_t rejected = 0;
	uint32_t windows = 0;
	struct timespec t0, t1;
	int err = 0;

	if (!s)
		return -ENOMEM;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	for (size_t off = 0; !err && off < total; off += rb_size) {
		struct tb_out o = { .fd = fd, .buf = obuf, .cap = sizeof(obuf) };
		uint64_t padding = 0;

		if (!walk) {
			errno = 0;	/* a write() that falls short sets none */
			if (write(fd, data + off, len) != (ssize_t)len)
				err = errno ? -errno : -EIO;
		} else if (tb_readout_keep(s, &o, data + off, len, &rejected, &padding,
						 &windows) + padding != len || rejected) {
			err = -EBADMSG;
		} else {
			err = tb_out_flush(&o);
		}
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	free(s);
	if (err)
		return err;
	return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

#endif
