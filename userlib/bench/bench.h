/* SPDX-License-Identifier: MIT */
/*
 * What bench.c needs from bench_lttng.c, the one file built with
 * LTTng-UST's headers (and relaxed warnings).  Without LTTng (TB_BENCH_LTTNG
 * undefined) bench.c does not call these.
 */
#ifndef TB_BENCH_H
#define TB_BENCH_H

#include <stdbool.h>
#include <stdint.h>

/* Is tb_bench:instant enabled, i.e. did a session's event reach us? */
bool tb_bench_lttng_enabled(void);

/* Fire tb_bench:instant @n times. */
void tb_bench_lttng_instant(uint64_t n);

#endif /* TB_BENCH_H */
