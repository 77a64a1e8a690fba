// SPDX-License-Identifier: MIT
/*
 * libtracebuf: the /dev/tracebuf ioctls, one function each (syscall_priv.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "syscall_priv.h"

static int tb_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}

static ssize_t tb_read(int fd, void *buf, size_t rec, size_t n)
{
	ssize_t ret;

	if (!n)
		return 0;
	do {
		ret = read(fd, buf, rec * n);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	return ret / (ssize_t)rec;
}

static uint64_t tb_ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

int tb_sys_open(const char *path)
{
	int fd = open(path ? path : TRACEBUF_SYS_DEVICE,
		      O_RDWR | O_CLOEXEC | O_NONBLOCK);

	return fd < 0 ? -errno : fd;
}

int tb_sys_version(int fd, struct tracebuf_version_args *ver)
{
	memset(ver, 0, sizeof(*ver));
	return tb_ioctl(fd, TRACEBUF_IOC_VERSION, ver);
}

int tb_sys_set_eventfd(int fd, int efd)
{
	struct tracebuf_eventfd_args a = { .fd = efd };

	return tb_ioctl(fd, TRACEBUF_IOC_SET_EVENTFD, &a);
}

int tb_sys_register(int fd, const char *name, size_t len, uint32_t flags,
		    uint32_t *id, uint32_t *status)
{
	struct tracebuf_register_args a = {
		.name_ptr = tb_ptr(name), .flags = flags,
	};
	int ret;

	if (len > UINT32_MAX)
		return -ENAMETOOLONG;
	a.name_len = (uint32_t)len;
	ret = tb_ioctl(fd, TRACEBUF_IOC_REGISTER, &a);
	if (ret)
		return ret;
	*id = a.id;
	*status = a.status;
	return 0;
}

int tb_sys_set_known(int fd, const void *blob, uint32_t size,
		     uint32_t count)
{
	struct tracebuf_known_args a = {
		.categories_ptr = tb_ptr(blob), .categories_size = size,
		.categories_count = count,
	};

	return tb_ioctl(fd, TRACEBUF_IOC_PROVIDER_SET_CATEGORIES, &a);
}

int tb_sys_get_config(int fd, struct tracebuf_config_args *cfg,
		      void *buf, uint32_t size)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->categories_ptr = tb_ptr(buf);
	cfg->categories_size = size;
	return tb_ioctl(fd, TRACEBUF_IOC_PROVIDER_GET_CONFIG, cfg);
}

/*
 * GET_CONFIG's F_WENT_ON: this provider no longer waits for its START;
 * the categories are not asked for (ENOSPC then is no failure).
 */
int tb_sys_went_on(int fd)
{
	struct tracebuf_config_args cfg = { .flags = TRACEBUF_CONFIG_F_WENT_ON };
	int ret = tb_ioctl(fd, TRACEBUF_IOC_PROVIDER_GET_CONFIG, &cfg);

	return ret == -ENOSPC ? 0 : ret;
}

int tb_sys_provider_send(int fd, const struct tracebuf_pkt *pkt)
{
	struct tracebuf_pkt p = *pkt;

	return tb_ioctl(fd, TRACEBUF_IOC_PROVIDER_SEND, &p);
}

int tb_sys_provider_release(int fd)
{
	struct tracebuf_release_args a = { 0 };

	return tb_ioctl(fd, TRACEBUF_IOC_PROVIDER_RELEASE, &a);
}

ssize_t tb_sys_read_pkts(int fd, struct tracebuf_pkt *pkts, size_t n)
{
	return tb_read(fd, pkts, sizeof(*pkts), n);
}

int tb_sys_attach(int fd, uint32_t flags, uint32_t *id)
{
	struct tracebuf_attach_args a = { .flags = flags };
	int ret = tb_ioctl(fd, TRACEBUF_IOC_ATTACH, &a);

	if (!ret && id)
		*id = a.id;
	return ret;
}

int tb_sys_list(int fd, uint32_t start_id, struct tracebuf_provider_info *info,
		uint32_t capacity, uint32_t *count, uint32_t *total)
{
	struct tracebuf_list_args a = {
		.info_ptr = tb_ptr(info), .info_size = sizeof(*info),
		.capacity = capacity, .start_id = start_id,
	};
	int ret = tb_ioctl(fd, TRACEBUF_IOC_MGR_LIST, &a);

	if (ret)
		return ret;
	*count = a.count;
	*total = a.total;
	return 0;
}

int tb_sys_initialize(int fd, uint32_t id, uint64_t size, uint32_t mode,
		      uint32_t flags, const void *cats, uint32_t cats_size,
		      uint32_t cats_count, int *buffer_fd)
{
	struct tracebuf_initialize_args a = {
		.provider_id = id, .flags = flags, .buffer_size = size,
		.categories_ptr = tb_ptr(cats), .categories_size = cats_size,
		.categories_count = cats_count, .mode = mode,
	};
	int ret = tb_ioctl(fd, TRACEBUF_IOC_MGR_INITIALIZE, &a);

	if (!ret)
		*buffer_fd = a.buffer_fd;
	return ret;
}

int tb_sys_start(int fd, uint32_t id, uint32_t disposition,
		 const void *cats, uint32_t cats_size, uint32_t cats_count)
{
	struct tracebuf_start_args a = {
		.provider_id = id, .disposition = disposition,
		.categories_ptr = tb_ptr(cats), .categories_size = cats_size,
		.categories_count = cats_count,
	};

	return tb_ioctl(fd, TRACEBUF_IOC_MGR_START, &a);
}

int tb_sys_update(int fd, uint32_t id, const void *cats, uint32_t cats_size,
		  uint32_t cats_count)
{
	struct tracebuf_start_args a = {
		.provider_id = id, .flags = TRACEBUF_START_F_UPDATE,
		.categories_ptr = tb_ptr(cats), .categories_size = cats_size,
		.categories_count = cats_count,
	};

	return tb_ioctl(fd, TRACEBUF_IOC_MGR_START, &a);
}

int tb_sys_stop(int fd, uint32_t id)
{
	struct tracebuf_target_args a = { .provider_id = id };

	return tb_ioctl(fd, TRACEBUF_IOC_MGR_STOP, &a);
}

int tb_sys_terminate(int fd, uint32_t id)
{
	struct tracebuf_target_args a = { .provider_id = id };

	return tb_ioctl(fd, TRACEBUF_IOC_MGR_TERMINATE, &a);
}

int tb_sys_mgr_send(int fd, uint32_t id, const struct tracebuf_pkt *pkt)
{
	struct tracebuf_mgr_send_args a = { .provider_id = id, .pkt = *pkt };

	return tb_ioctl(fd, TRACEBUF_IOC_MGR_SEND, &a);
}

int tb_sys_get_known(int fd, uint32_t id, void *buf, uint32_t *size,
		     uint32_t *count)
{
	struct tracebuf_get_known_args a = {
		.provider_id = id, .categories_ptr = tb_ptr(buf),
		.categories_size = *size,
	};
	int ret = tb_ioctl(fd, TRACEBUF_IOC_MGR_GET_CATEGORIES, &a);

	if (!ret || ret == -ENOSPC) {
		*size = a.categories_size;
		if (count)
			*count = a.categories_count;
	}
	return ret;
}

int tb_sys_set_tracing(int fd, uint32_t tracing, const char *names,
		       uint32_t size, uint32_t count)
{
	struct tracebuf_tracing_args a = {
		.tracing = tracing, .names_ptr = (uintptr_t)names,
		.names_size = size, .names_count = count,
	};
	int ret = tb_ioctl(fd, TRACEBUF_IOC_MGR_SET_TRACING, &a);

	/* a kernel before ABI 1.3 knows no names: every provider waits */
	if (ret == -E2BIG && count) {
		a.names_ptr = 0;
		a.names_size = a.names_count = 0;
		ret = tb_ioctl(fd, TRACEBUF_IOC_MGR_SET_TRACING, &a);
	}
	return ret == -ENOTTY ? 0 : ret;
}

ssize_t tb_sys_read_msgs(int fd, struct tracebuf_mgr_msg *msgs, size_t n)
{
	return tb_read(fd, msgs, sizeof(*msgs), n);
}
