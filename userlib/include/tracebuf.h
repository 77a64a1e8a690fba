/* SPDX-License-Identifier: MIT */
/*
 * tracebuf.h: the libtracebuf API (#include <tracebuf.h>).
 *
 * For now only the FXT encoder and reader; the provider engine and the
 * manager API will be declared here too (the lead extends this header).
 */
#ifndef TRACEBUF_H
#define TRACEBUF_H

#include <tracebuf_fxt.h>
#include <tracebuf_reader.h>

#endif /* TRACEBUF_H */
