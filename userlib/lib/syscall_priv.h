/* SPDX-License-Identifier: MIT */
/*
 * libtracebuf: thin wrappers over the /dev/tracebuf ioctls
 * (uapi/linux/tracebuf.h).  Private to the library.  Each fills the
 * argument struct (zeroing every reserved field), retries on EINTR, and
 * returns 0 (or a count) or -errno.
 */
#ifndef TRACEBUF_SYSCALL_PRIV_H
#define TRACEBUF_SYSCALL_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/tracebuf.h>

#define TRACEBUF_SYS_DEVICE	"/dev/" TRACEBUF_DEVICE_NAME

/* O_RDWR | O_CLOEXEC | O_NONBLOCK; path NULL means /dev/tracebuf. */
int tb_sys_open(const char *path);
int tb_sys_version(int fd, struct tracebuf_version_args *ver);
int tb_sys_set_eventfd(int fd, int efd);

/* provider */
int tb_sys_register(int fd, const char *name, size_t len, uint32_t flags,
		    uint32_t *id, uint32_t *status);
int tb_sys_set_known(int fd, const void *blob, uint32_t size,
		     uint32_t count);
/* -ENOSPC: buf too small, cfg->categories_size says how much is needed */
int tb_sys_get_config(int fd, struct tracebuf_config_args *cfg,
		      void *buf, uint32_t size);
int tb_sys_went_on(int fd);
int tb_sys_provider_send(int fd, const struct tracebuf_pkt *pkt);
int tb_sys_provider_release(int fd);
/* whole packets; -EAGAIN when none are waiting */
ssize_t tb_sys_read_pkts(int fd, struct tracebuf_pkt *pkts, size_t n);

/* manager */
int tb_sys_attach(int fd, uint32_t flags, uint32_t *id);
int tb_sys_list(int fd, uint32_t start_id, struct tracebuf_provider_info *info,
		uint32_t capacity, uint32_t *count, uint32_t *total);
int tb_sys_initialize(int fd, uint32_t id, uint64_t size, uint32_t mode,
		      uint32_t flags, const void *cats, uint32_t cats_size,
		      uint32_t cats_count, int *buffer_fd);
/* START with TRACEBUF_START_F_UPDATE: a started provider's new categories */
int tb_sys_update(int fd, uint32_t id, const void *cats, uint32_t cats_size,
		  uint32_t cats_count);
int tb_sys_start(int fd, uint32_t id, uint32_t disposition,
		 const void *cats, uint32_t cats_size, uint32_t cats_count);
int tb_sys_stop(int fd, uint32_t id);
int tb_sys_terminate(int fd, uint32_t id);
int tb_sys_mgr_send(int fd, uint32_t id, const struct tracebuf_pkt *pkt);
/* as get_config: -ENOSPC with *size set to what is needed */
int tb_sys_get_known(int fd, uint32_t id, void *buf, uint32_t *size,
		     uint32_t *count);
/* an older module without MGR_SET_TRACING: 0, nothing done */
int tb_sys_set_tracing(int fd, uint32_t tracing, const char *names,
		       uint32_t size, uint32_t count);
ssize_t tb_sys_read_msgs(int fd, struct tracebuf_mgr_msg *msgs, size_t n);

#endif /* TRACEBUF_SYSCALL_PRIV_H */
