// SPDX-License-Identifier: MIT
/*
 * libtracebuf: the manager file (tracebuf_manager.h): open /dev/tracebuf
 * and attach as a manager, list the providers it can see and the
 * categories they published.  The session (session.c) and its read-out
 * of provider buffers (readout.c) sit on these functions and reach this
 * file only through the public header.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracebuf_manager.h>

#include "lib_priv.h"
#include "syscall_priv.h"

struct tracebuf_manager {
	int fd;
	uint32_t id;
	struct tracebuf_version_args ver;
};

/* ------------------------------------------------------------------------ */
/* The manager file                                                         */

TRACEBUF_API int tracebuf_manager_open(const char *device, uint32_t flags,
				       struct tracebuf_manager **out)
{
	struct tracebuf_manager *m;
	uint32_t aflags = 0;
	int ret;

	if (flags & ~TRACEBUF_LIB_MANAGER_WATCH || !out)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->fd = tb_sys_open(device);
	if (m->fd < 0) {
		ret = m->fd;
		goto out_free;
	}
	ret = tb_sys_version(m->fd, &m->ver);
	if (ret)
		goto out_close;
	if (m->ver.abi_major != TRACEBUF_ABI_MAJOR) {
		ret = -EPROTONOSUPPORT;
		goto out_close;
	}
	if (flags & TRACEBUF_LIB_MANAGER_WATCH &&
	    m->ver.features & TRACEBUF_FEAT_WATCH)
		aflags |= TRACEBUF_ATTACH_F_WATCH;
	ret = tb_sys_attach(m->fd, aflags, &m->id);
	if (ret)
		goto out_close;
	*out = m;
	return 0;

out_close:
	close(m->fd);
out_free:
	free(m);
	return ret;
}

TRACEBUF_API int tracebuf_manager_fd(const struct tracebuf_manager *m)
{
	return m->fd;
}

TRACEBUF_API const struct tracebuf_version_args *
tracebuf_manager_version(const struct tracebuf_manager *m)
{
	return &m->ver;
}

TRACEBUF_API int tracebuf_manager_list(struct tracebuf_manager *m,
				       struct tracebuf_provider_info **out)
{
	struct tracebuf_provider_info *list = NULL, *n;
	uint32_t count = 0, total = 0, got, start = 1;
	int ret;

	*out = NULL;
	for (;;) {
		uint32_t room = total > count ? total - count : 16;

		n = realloc(list, (count + room) * sizeof(*list));
		if (!n) {
			ret = -ENOMEM;
			goto out_free;
		}
		list = n;
		ret = tb_sys_list(m->fd, start, list + count, room, &got, &total);
		if (ret)
			goto out_free;
		count += got;
		/* total counts the providers from start on */
		total += count - got;
		if (!got || count >= total)
			break;
		start = list[count - 1].id + 1;
	}
	for (uint32_t i = 0; i < count; i++)
		list[i].name[sizeof(list[i].name) - 1] = 0;
	if (!count) {
		free(list);
		list = NULL;
	}
	*out = list;
	return (int)count;

out_free:
	free(list);
	return ret;
}

TRACEBUF_API int tracebuf_manager_categories(struct tracebuf_manager *m,
					     uint32_t id, char **blob,
					     uint32_t *size, uint32_t *count)
{
	uint32_t room = 0;
	char *buf = NULL, *n;
	int ret;

	while ((ret = tb_sys_get_known(m->fd, id, buf, &room, count)) == -ENOSPC) {
		n = realloc(buf, room);
		if (!n) {
			ret = -ENOMEM;
			break;
		}
		buf = n;
	}
	if (ret || !room) {
		free(buf);
		buf = NULL;
		if (!ret)
			*count = 0;
	}
	if (ret)
		return ret;
	*blob = buf;
	*size = room;
	return 0;
}

TRACEBUF_API void tracebuf_manager_close(struct tracebuf_manager *m)
{
	if (!m)
		return;
	close(m->fd);
	free(m);
}
