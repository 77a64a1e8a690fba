/* SPDX-License-Identifier: MIT */
/*
 * Private to libtracebuf: never installed, never included by a public
 * header.
 */
#ifndef TRACEBUF_INTERNAL_H
#define TRACEBUF_INTERNAL_H

/*
 * The library is built with -fvisibility=hidden: only functions marked
 * TRACEBUF_API can be exported, and libtracebuf.map then decides which
 * are (tracebuf_* in TRACEBUF_1.0).  Mark the definition, in the .c file.
 */
#define TRACEBUF_API	__attribute__((visibility("default")))

#define TRACEBUF_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#endif /* TRACEBUF_INTERNAL_H */
