/* SPDX-License-Identifier: MIT */
/*
 * tracebuf.h: the libtracebuf API (#include <tracebuf.h>, link with
 * -ltracebuf, or pkg-config --cflags --libs libtracebuf).
 *
 *   tracebuf_provider.h  make this process a trace provider
 *   tracebuf_event.h     write events (TRACEBUF_LIB_INSTANT, ..., or
 *                        TRACE_INSTANT, ... with TRACEBUF_LIB_SHORT_NAMES)
 *   tracebuf_manager.h   list providers; record sessions into .fxt files
 *   tracebuf_reader.h    read .fxt files and provider buffers
 *   tracebuf_fxt.h       the FXT record encoders
 */
#ifndef TRACEBUF_H
#define TRACEBUF_H

#include <tracebuf_event.h>
#include <tracebuf_fxt.h>
#include <tracebuf_manager.h>
#include <tracebuf_provider.h>
#include <tracebuf_reader.h>

#endif /* TRACEBUF_H */
