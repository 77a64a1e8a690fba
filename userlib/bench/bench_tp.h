/* SPDX-License-Identifier: MIT */
/*
 * The LTTng-UST tracepoint provider of the benchmark (bench_lttng.c):
 * tb_bench:instant, the LTTng counterpart of TRACEBUF_LIB_INSTANT with no
 * arguments.  It has no fields: like tracebuf's 16-byte record (header
 * word with event type, category, name and thread refs; timestamp word),
 * LTTng's event header already carries what identifies the event (its id
 * stands for provider:name) and the timestamp.  Included only by
 * bench_lttng.c, built with liblttng-ust-dev's headers.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER tb_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./bench_tp.h"

#if !defined(TB_BENCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TB_BENCH_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(
	tb_bench,
	instant,
	LTTNG_UST_TP_ARGS(),
	LTTNG_UST_TP_FIELDS()
)

#endif /* TB_BENCH_TP_H */

#include <lttng/tracepoint-event.h>
