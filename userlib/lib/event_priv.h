/* SPDX-License-Identifier: MIT */
/*
 * libtracebuf, private: the event layer (event.c) as the layers above it
 * use it.  It sits on the engine and the engine knows nothing of it but
 * the hooks installed here.
 */
#ifndef TRACEBUF_EVENT_PRIV_H
#define TRACEBUF_EVENT_PRIV_H

#include <stddef.h>

/*
 * Plug the event layer into the engine (its thread records, call-site
 * flushes and drop windows), before the engine is attached.  Idempotent.
 */
void tb_event_install(void);

/* Set the enabled list: @count NUL-terminated strings in @blob. */
int tb_event_set_categories(const char *blob, size_t size, unsigned int count);

#endif /* TRACEBUF_EVENT_PRIV_H */
