// SPDX-License-Identifier: MIT
/*
 * libtracebuf: the rule for a trace buffer's size, in one place for the
 * session (which refuses a size before asking the kernel) and for
 * programs such as tracebufctl (which check an option, and say why a size
 * was refused).  Only the manager's public accessors are used here.
 */
#include <errno.h>
#include <unistd.h>

#include <tracebuf_manager.h>

#include "internal.h"

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
