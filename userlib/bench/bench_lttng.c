// SPDX-License-Identifier: MIT
/*
 * The LTTng-UST side of the benchmark: the tb_bench provider's probes
 * (bench_tp.h) and the loop that fires tb_bench:instant, in this file
 * alone because LTTng-UST's macros need GNU C and relaxed warnings.
 * scripts/bench.sh runs the benchmark inside an LTTng session whose
 * channel (per-UID buffers, discard mode, sub-buffers large enough that
 * nothing is discarded) enables tb_bench:instant, and checks afterwards
 * that the channel discarded nothing.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "bench_tp.h"

#include "bench.h"

bool tb_bench_lttng_enabled(void)
{
	return lttng_ust_tracepoint_enabled(tb_bench, instant);
}

__attribute__((noinline)) void tb_bench_lttng_instant(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		lttng_ust_tracepoint(tb_bench, instant);
}
