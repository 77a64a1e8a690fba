/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the tracebuf selftests.
 *
 * Every wrapper returns 0 (or a non-negative value) on success and -errno
 * on failure, leaving errno as the ioctl left it.  Helpers that take
 * "_metadata" may use ASSERT_* and EXPECT_* and must be called from a test.
 *
 * Define TB_NO_HARNESS before including this file to get only the
 * wrappers (used by the tb_churn helper program).
 */
#ifndef TRACEBUF_SELFTESTS_H
#define TRACEBUF_SELFTESTS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/tracebuf.h>

#ifndef TB_NO_HARNESS
/*
 * kselftest_harness.h of linux 6.1 leaves a parameter unused in its own
 * code and in TEST() (TEST_F() is clean): silence that for the header
 * only, and use TEST_F() in the tests so our own code stays -Wextra
 * clean.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "../kselftest_harness.h"
#pragma GCC diagnostic pop
/*
 * The harness setjmp()s around each test and longjmp()s out of a failed
 * ASSERT only to abandon the test: no local of the test is read after
 * that, so -Wclobbered (from -Wextra) on inlined test bodies is noise.
 */
#pragma GCC diagnostic ignored "-Wclobbered"

/*
 * The guest that runs these tests is software-emulated and may run a
 * KASAN/lockdep kernel, 5-10x slower again: give each test more than the
 * harness default of 30 s.  Expanded where TEST_F() is used, so this
 * redefinition applies to every test in the including file.
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 120
#endif /* TB_NO_HARNESS */

#define TB_DEV_PATH	"/dev/" TRACEBUF_DEVICE_NAME
#define TB_MODULE_DIR	"/sys/module/tracebuf"
#define TB_PARAM_DIR	TB_MODULE_DIR "/parameters"

/* How long to wait for a message that must arrive (emulated guest). */
#define TB_TIMEOUT_MS	10000

#define TB_POISON8	0xcc
#define TB_POISON32	0xccccccccU
#define TB_POISON64	0xccccccccccccccccULL

/* Every ioctl of ABI 1.1, as bits of tracebuf_version_args.ioctls. */
#define TB_IOCTL_BIT(cmd)	(1ULL << _IOC_NR(cmd))
#define TB_ALL_IOCTLS (TB_IOCTL_BIT(TRACEBUF_IOC_VERSION) |		\
		       TB_IOCTL_BIT(TRACEBUF_IOC_REGISTER) |		\
		       TB_IOCTL_BIT(TRACEBUF_IOC_ATTACH) |		\
		       TB_IOCTL_BIT(TRACEBUF_IOC_SET_EVENTFD) |		\
		       TB_IOCTL_BIT(TRACEBUF_IOC_PROVIDER_GET_CONFIG) |	\
		       TB_IOCTL_BIT(TRACEBUF_IOC_PROVIDER_SEND) |	\
		       TB_IOCTL_BIT(TRACEBUF_IOC_PROVIDER_RELEASE) |	\
		       TB_IOCTL_BIT(TRACEBUF_IOC_PROVIDER_SET_CATEGORIES) | \
		       TB_IOCTL_BIT(TRACEBUF_IOC_MGR_LIST) |		\
		       TB_IOCTL_BIT(TRACEBUF_IOC_MGR_INITIALIZE) |	\
		       TB_IOCTL_BIT(TRACEBUF_IOC_MGR_START) |		\
		       TB_IOCTL_BIT(TRACEBUF_IOC_MGR_STOP) |		\
		       TB_IOCTL_BIT(TRACEBUF_IOC_MGR_TERMINATE) |	\
		       TB_IOCTL_BIT(TRACEBUF_IOC_MGR_SEND) |		\
		       TB_IOCTL_BIT(TRACEBUF_IOC_MGR_GET_CATEGORIES) |	\
		       TB_IOCTL_BIT(TRACEBUF_IOC_MGR_SET_TRACING))

/* ------------------------------------------------------------------ */
/* Files and roles                                                    */

static inline int tb_open_flags(int flags)
{
	int fd = open(TB_DEV_PATH, O_RDWR | O_CLOEXEC | flags);

	return fd < 0 ? -errno : fd;
}

static inline int tb_open(void)
{
	return tb_open_flags(0);
}

/* Close *fd if it is open and mark it closed. */
static inline void tb_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * The page size, which is not always 4096 (arm64 kernels may have 16 KiB
 * or 64 KiB pages): mappings, mprotect() and munmap() deal in whole pages
 * of this size, and offsets into a buffer's mapping are multiples of it.
 */
static inline size_t tb_page_size(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return page > 0 ? (size_t)page : 4096;
}

/* A page any access to faults: a pointer that must give EFAULT. */
static inline void *tb_bad_page(void)
{
	return mmap(NULL, tb_page_size(), PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static inline int tb_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

static inline __u64 tb_ptr(const void *p)
{
	return (__u64)(uintptr_t)p;
}

/* Does /proc/cpuinfo list both constant_tsc and nonstop_tsc? */
static inline bool tb_cpu_has_invariant_tsc(void)
{
	char line[4096];
	bool constant = false, nonstop = false;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	fclose(f);
	return constant && nonstop;
}

#if defined(__aarch64__) || defined(__arm__)
/* The generic timer's virtual count, as a program reads it. */
static inline __u64 tb_counter(void)
{
	__u64 v;

#ifdef __aarch64__
	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) :: "memory");
#else
	__asm__ __volatile__("isb\n\tmrrc p15, 1, %Q0, %R0, c14" : "=r"(v) :: "memory");
#endif
	return v;
}

/* Its rate in kHz, measured against CLOCK_MONOTONIC over 200 ms. */
static inline double tb_counter_khz(void)
{
	struct timespec t0, t1;
	__u64 c0, c1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	c0 = tb_counter();
	usleep(200000);
	c1 = tb_counter();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(c1 - c0) /
	       ((t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
}
#endif

static inline int tb_version(int fd, struct tracebuf_version_args *v)
{
	memset(v, TB_POISON8, sizeof(*v));
	return tb_ioctl(fd, TRACEBUF_IOC_VERSION, v);
}

/*
 * The smallest buffer INITIALIZE accepts, and the unit of every buffer
 * size: a multiple of it is aligned, a multiple of it above a limit is
 * aligned and above it.  VERSION's buffer_align (ABI 1.4) is max(4096,
 * page size) and TRACEBUF_BUFFER_MIN is 4096: 4 KiB on most kernels, 16
 * or 64 KiB on arm64 kernels with larger pages.  Without the device or
 * the feature, max(TRACEBUF_BUFFER_ALIGN, page size), which is what the
 * module enforces.  Asked once per process (a forked child inherits the
 * answer).
 */
static inline __u64 tb_buffer_min(void)
{
	static __u32 cached;
	struct tracebuf_version_args v;
	__u32 align = __atomic_load_n(&cached, __ATOMIC_RELAXED);
	int fd;

	if (align)
		return align;
	align = (__u32)tb_page_size();
	if (align < TRACEBUF_BUFFER_ALIGN)
		align = TRACEBUF_BUFFER_ALIGN;
	fd = tb_open();
	if (fd >= 0) {
		if (!tb_version(fd, &v) &&
		    (v.features & TRACEBUF_FEAT_BUFFER_ALIGN) && v.buffer_align)
			align = v.buffer_align;
		close(fd);
	}
	if (align < TRACEBUF_BUFFER_MIN)
		align = TRACEBUF_BUFFER_MIN;
	__atomic_store_n(&cached, align, __ATOMIC_RELAXED);
	return align;
}

static inline int register_provider_ex(int fd, const void *name, __u32 len,
				       __u32 flags, __u32 *id, __u32 *status)
{
	struct tracebuf_register_args a = {
		.name_ptr = tb_ptr(name),
		.name_len = len,
		.flags = flags,
		.id = TB_POISON32,
		.status = TB_POISON32,
	};
	int ret = tb_ioctl(fd, TRACEBUF_IOC_REGISTER, &a);

	if (!ret && id)
		*id = a.id;
	if (!ret && status)
		*status = a.status;
	return ret;
}

static inline int register_provider(int fd, const char *name, __u32 flags,
				    __u32 *id)
{
	return register_provider_ex(fd, name, strlen(name), flags, id, NULL);
}

static inline int attach_manager(int fd, __u32 flags, __u32 *id)
{
	struct tracebuf_attach_args a = { .flags = flags, .id = TB_POISON32 };
	int ret = tb_ioctl(fd, TRACEBUF_IOC_ATTACH, &a);

	if (!ret && id)
		*id = a.id;
	return ret;
}

/* Open a file and give it a role; returns the fd or -errno. */
static inline int tb_open_provider(const char *name, __u32 *id)
{
	int fd = tb_open();
	int ret;

	if (fd < 0)
		return fd;
	ret = register_provider(fd, name, 0, id);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

static inline int tb_open_manager(__u32 flags, __u32 *id)
{
	int fd = tb_open();
	int ret;

	if (fd < 0)
		return fd;
	ret = attach_manager(fd, flags, id);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

static inline int set_eventfd(int fd, int efd)
{
	struct tracebuf_eventfd_args a = { .fd = efd, .flags = 0 };

	return tb_ioctl(fd, TRACEBUF_IOC_SET_EVENTFD, &a);
}

/* ------------------------------------------------------------------ */
/* Provider side                                                      */

/* Output fields of *cfg are poisoned first; buf may be NULL if size is 0. */
static inline int provider_get_config(int fd, struct tracebuf_config_args *cfg,
				      void *buf, __u32 size)
{
	memset(cfg, TB_POISON8, sizeof(*cfg));
	cfg->categories_ptr = tb_ptr(buf);
	cfg->categories_size = size;
	cfg->flags = 0;
	return tb_ioctl(fd, TRACEBUF_IOC_PROVIDER_GET_CONFIG, cfg);
}

/*
 * The whole configuration; *cats is malloc()ed (free it), room for the
 * category list is found with the ENOSPC protocol.
 */
static inline int provider_config_all(int fd, struct tracebuf_config_args *cfg,
				      char **cats)
{
	__u32 room = 256;
	char *buf = NULL, *nbuf;
	int ret, tries;

	for (tries = 0; tries < 4; tries++) {
		nbuf = realloc(buf, room);
		if (!nbuf) {
			free(buf);
			return -ENOMEM;
		}
		buf = nbuf;
		ret = provider_get_config(fd, cfg, buf, room);
		if (ret != -ENOSPC)
			break;
		if (cfg->categories_size <= room)
			break;	/* ENOSPC without a bigger size: a bug */
		room = cfg->categories_size;
	}
	if (ret || !cats)
		free(buf);
	else
		*cats = buf;
	return ret;
}

/* The provider's state as it sees it, or -errno. */
static inline int provider_state(int fd)
{
	struct tracebuf_config_args cfg;
	int ret = provider_config_all(fd, &cfg, NULL);

	return ret ? ret : (int)cfg.state;
}

static inline struct tracebuf_pkt tb_pkt(__u16 request, __u16 data16,
					 __u32 data32, __u64 data64)
{
	struct tracebuf_pkt p;

	memset(&p, 0, sizeof(p));
	p.request = request;
	p.data16 = data16;
	p.data32 = data32;
	p.data64 = data64;
	return p;
}

/* An ALERT packet: the name goes in bytes 2..15, zero padded. */
static inline struct tracebuf_pkt tb_alert_pkt(const void *name, size_t len)
{
	struct tracebuf_pkt p;

	memset(&p, 0, sizeof(p));
	p.request = TRACEBUF_PKT_ALERT;
	if (len > TRACEBUF_ALERT_NAME_MAX)
		len = TRACEBUF_ALERT_NAME_MAX;
	memcpy((char *)&p + 2, name, len);
	return p;
}

static inline int provider_send_pkt(int fd, const struct tracebuf_pkt *p)
{
	struct tracebuf_pkt copy = *p;

	return tb_ioctl(fd, TRACEBUF_IOC_PROVIDER_SEND, &copy);
}

static inline int provider_send(int fd, __u16 request, __u16 data16,
				__u32 data32, __u64 data64)
{
	struct tracebuf_pkt p = tb_pkt(request, data16, data32, data64);

	return provider_send_pkt(fd, &p);
}

static inline int provider_started(int fd)
{
	return provider_send(fd, TRACEBUF_PKT_STARTED, 0,
			     TRACEBUF_FIFO_PROTOCOL_VERSION, 0);
}

static inline int provider_stopped(int fd)
{
	return provider_send(fd, TRACEBUF_PKT_STOPPED, 0, 0, 0);
}

static inline int provider_alert(int fd, const char *name)
{
	struct tracebuf_pkt p = tb_alert_pkt(name, strlen(name));

	return provider_send_pkt(fd, &p);
}

static inline int provider_release(int fd)
{
	struct tracebuf_release_args a = { .flags = 0 };

	return tb_ioctl(fd, TRACEBUF_IOC_PROVIDER_RELEASE, &a);
}

/* ------------------------------------------------------------------ */
/* Category lists: NUL-terminated strings back to back                */

struct tb_cats {
	char *buf;
	__u32 size;
	__u32 count;
};

/* Append len raw bytes and a NUL; returns 0 or -ENOMEM. */
static inline int tb_cats_add_len(struct tb_cats *c, const void *s, size_t len)
{
	char *nbuf = realloc(c->buf, c->size + len + 1);

	if (!nbuf)
		return -ENOMEM;
	memcpy(nbuf + c->size, s, len);
	nbuf[c->size + len] = '\0';
	c->buf = nbuf;
	c->size += len + 1;
	c->count++;
	return 0;
}

static inline int tb_cats_add(struct tb_cats *c, const char *s)
{
	return tb_cats_add_len(c, s, strlen(s));
}

/* tb_cats_build(&c, "a", "b", NULL): a fresh list of the given names. */
static inline int tb_cats_build(struct tb_cats *c, ...)
{
	const char *s;
	va_list ap;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	va_start(ap, c);
	while (!ret && (s = va_arg(ap, const char *)))
		ret = tb_cats_add(c, s);
	va_end(ap);
	return ret;
}

/* n generated names "cat<i>" (unique, well below the length limit). */
static inline int tb_cats_many(struct tb_cats *c, unsigned int n)
{
	char name[32];
	unsigned int i;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	for (i = 0; !ret && i < n; i++) {
		snprintf(name, sizeof(name), "cat%u", i);
		ret = tb_cats_add(c, name);
	}
	return ret;
}

static inline void tb_cats_free(struct tb_cats *c)
{
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

/* ------------------------------------------------------------------ */
/* Manager side                                                       */

static inline int mgr_list(int fd, __u32 start_id,
			   struct tracebuf_provider_info *info, __u32 capacity,
			   __u32 *count, __u32 *total)
{
	struct tracebuf_list_args a = {
		.info_ptr = tb_ptr(info),
		.info_size = sizeof(*info),
		.capacity = capacity,
		.start_id = start_id,
		.count = TB_POISON32,
		.total = TB_POISON32,
		.flags = 0,
	};
	int ret;

	if (info && capacity)
		memset(info, TB_POISON8, sizeof(*info) * capacity);
	ret = tb_ioctl(fd, TRACEBUF_IOC_MGR_LIST, &a);
	if (!ret && count)
		*count = a.count;
	if (!ret && total)
		*total = a.total;
	return ret;
}

/* The info of provider id as this manager sees it, or -ESRCH. */
static inline int mgr_find(int fd, __u32 id, struct tracebuf_provider_info *out)
{
	struct tracebuf_provider_info info;
	__u32 count = 0;
	int ret = mgr_list(fd, id, &info, 1, &count, NULL);

	if (ret)
		return ret;
	if (count < 1 || info.id != id)
		return -ESRCH;
	if (out)
		*out = info;
	return 0;
}

/* The state of provider id as this manager sees it, or -errno. */
static inline int mgr_state(int fd, __u32 id)
{
	struct tracebuf_provider_info info;
	int ret = mgr_find(fd, id, &info);

	return ret ? ret : (int)info.state;
}

/* How many providers this manager can see (with ids >= start_id). */
static inline int mgr_count(int fd, __u32 start_id)
{
	__u32 total = 0;
	int ret = mgr_list(fd, start_id, NULL, 0, NULL, &total);

	return ret ? ret : (int)total;
}

static inline void tb_fill_cats(const struct tb_cats *cats, __u64 *ptr,
				__u32 *size, __u32 *count)
{
	*ptr = cats ? tb_ptr(cats->buf) : 0;
	*size = cats ? cats->size : 0;
	*count = cats ? cats->count : 0;
}

static inline void tb_init_args(struct tracebuf_initialize_args *a, __u32 id,
				__u32 mode, __u64 size,
				const struct tb_cats *cats)
{
	memset(a, 0, sizeof(*a));
	a->provider_id = id;
	a->mode = mode;
	a->buffer_size = size;
	tb_fill_cats(cats, &a->categories_ptr, &a->categories_size,
		     &a->categories_count);
	a->buffer_fd = (__s32)TB_POISON32;
}

/* buffer_fd may be NULL: the handle is then closed. */
static inline int mgr_initialize(int fd, __u32 id, __u32 mode, __u64 size,
				 const struct tb_cats *cats, int *buffer_fd)
{
	struct tracebuf_initialize_args a;
	int ret;

	tb_init_args(&a, id, mode, size, cats);
	ret = tb_ioctl(fd, TRACEBUF_IOC_MGR_INITIALIZE, &a);
	if (!ret) {
		if (buffer_fd)
			*buffer_fd = a.buffer_fd;
		else
			close(a.buffer_fd);
	}
	return ret;
}

static inline void tb_start_args(struct tracebuf_start_args *a, __u32 id,
				 __u32 disposition, const struct tb_cats *cats)
{
	memset(a, 0, sizeof(*a));
	a->provider_id = id;
	a->disposition = disposition;
	tb_fill_cats(cats, &a->categories_ptr, &a->categories_size,
		     &a->categories_count);
}

static inline int mgr_start(int fd, __u32 id, __u32 disposition,
			    const struct tb_cats *cats)
{
	struct tracebuf_start_args a;

	tb_start_args(&a, id, disposition, cats);
	return tb_ioctl(fd, TRACEBUF_IOC_MGR_START, &a);
}

static inline int mgr_stop(int fd, __u32 id)
{
	struct tracebuf_target_args a = { .provider_id = id };

	return tb_ioctl(fd, TRACEBUF_IOC_MGR_STOP, &a);
}

static inline int mgr_terminate(int fd, __u32 id)
{
	struct tracebuf_target_args a = { .provider_id = id };

	return tb_ioctl(fd, TRACEBUF_IOC_MGR_TERMINATE, &a);
}

static inline int mgr_send(int fd, __u32 id, const struct tracebuf_pkt *pkt)
{
	struct tracebuf_mgr_send_args a;

	memset(&a, 0, sizeof(a));
	a.provider_id = id;
	a.pkt = *pkt;
	return tb_ioctl(fd, TRACEBUF_IOC_MGR_SEND, &a);
}

static inline int mgr_buffer_saved(int fd, __u32 id, __u32 wrapped_count,
				   __u64 durable_end)
{
	struct tracebuf_pkt p = tb_pkt(TRACEBUF_PKT_BUFFER_SAVED, 0,
				       wrapped_count, durable_end);

	return mgr_send(fd, id, &p);
}

/* ------------------------------------------------------------------ */
/* Reading inboxes                                                    */

/* 1 if fd reports EPOLLIN right now, 0 if not, -errno on error. */
static inline int tb_pending(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ret = poll(&pfd, 1, 0);

	if (ret < 0)
		return -errno;
	return ret > 0 && (pfd.revents & POLLIN);
}

/*
 * Wait up to timeout_ms for one record of len bytes and read it.  The
 * read itself never blocks (a module that reports EPOLLIN with an empty
 * inbox fails the read with EAGAIN rather than hanging the test).
 * Returns 0, -ETIMEDOUT, -EIO for a short record, or -errno.
 */
static inline int tb_read_record(int fd, void *rec, size_t len, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int flags, ret;
	ssize_t n;

	do {
		ret = poll(&pfd, 1, timeout_ms);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	if (ret == 0)
		return -ETIMEDOUT;
	flags = fcntl(fd, F_GETFL);
	if (flags < 0)
		return -errno;
	if (!(flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	n = read(fd, rec, len);
	ret = n < 0 ? -errno : (size_t)n == len ? 0 : -EIO;
	if (!(flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, flags);
	return ret;
}

static inline int tb_read_pkt(int fd, struct tracebuf_pkt *pkt, int timeout_ms)
{
	memset(pkt, TB_POISON8, sizeof(*pkt));
	return tb_read_record(fd, pkt, sizeof(*pkt), timeout_ms);
}

static inline int tb_read_msg(int fd, struct tracebuf_mgr_msg *msg,
			      int timeout_ms)
{
	memset(msg, TB_POISON8, sizeof(*msg));
	return tb_read_record(fd, msg, sizeof(*msg), timeout_ms);
}

/* Read and discard everything queued now; returns the number of records. */
static inline int tb_drain(int fd, size_t reclen)
{
	char rec[64];
	int n = 0;

	while (reclen <= sizeof(rec) && tb_read_record(fd, rec, reclen, 0) == 0)
		n++;
	return n;
}

/* ------------------------------------------------------------------ */
/* Buffers                                                            */

/* Durable and rolling sizes for a buffer of total bytes (header formula). */
static inline void tb_buffer_sizes(__u32 mode, __u64 total, __u64 *durable,
				   __u64 *rolling)
{
	__u64 avail = total - TRACEBUF_HEADER_SIZE;
	__u64 d;

	if (mode == TRACEBUF_MODE_ONESHOT) {
		*durable = 0;
		*rolling = avail;
		return;
	}
	d = avail / 16;
	if (d > TRACEBUF_DURABLE_MAX)
		d = TRACEBUF_DURABLE_MAX;
	d += (avail - d) & 15;
	*durable = d;
	*rolling = (avail - d) / 2;
}

/* TRACEBUF_MODE_* -> TRACEBUF_HEADER_MODE_* (engine numbering). */
static inline __u8 tb_header_mode(__u32 mode)
{
	return (__u8)(mode - 1);
}

static inline void *tb_map(int fd, size_t len, int prot, off_t off)
{
	return mmap(NULL, len, prot, MAP_SHARED, fd, off);
}

/* The lowest free fd number: to prove that a failed call leaked no fd. */
static inline int tb_next_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
	return fd;
}

/* Read a small text file whole, NUL-terminated; 0 or -errno. */
static inline int tb_read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1 &&
	       (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return 0;
}

/* ------------------------------------------------------------------ */
/* Module parameters                                                  */

static inline int tb_param_get(const char *name, long long *val)
{
	char path[256], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), TB_PARAM_DIR "/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	*val = strtoll(buf, NULL, 0);
	return 0;
}

/* Write val to the file at path (a parameter, a debugfs knob). */
static inline int tb_param_set_path(const char *path, long long val)
{
	char buf[64];
	ssize_t n;
	int fd, len;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%lld\n", val);
	n = write(fd, buf, len);
	close(fd);
	if (n < 0)
		return -errno;
	return n == len ? 0 : -EIO;
}

static inline int tb_param_set(const char *name, long long val)
{
	char path[256];

	snprintf(path, sizeof(path), TB_PARAM_DIR "/%s", name);
	return tb_param_set_path(path, val);
}

/* A parameter changed by a test, restored by its teardown. */
struct tb_param {
	const char *name;
	long long old;
	bool saved;
};

/* Remember the current value of name (once), then set it to val. */
static inline int tb_param_change(struct tb_param *p, const char *name,
				  long long val)
{
	int ret;

	if (!p->saved) {
		ret = tb_param_get(name, &p->old);
		if (ret)
			return ret;
		p->name = name;
		p->saved = true;
	}
	return tb_param_set(name, val);
}

static inline int tb_param_restore(struct tb_param *p)
{
	int ret = 0;

	if (p->saved)
		ret = tb_param_set(p->name, p->old);
	p->saved = false;
	return ret;
}

/* ------------------------------------------------------------------ */
/* Processes                                                          */

/* Exit status of a child (0..255), 128 + signal if killed, -errno. */
static inline int tb_wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -EIO;
}

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif

#define TB_NOBODY	65534

/* ------------------------------------------------------------------ */
/* Running a function with other credentials                          */

struct tb_creds {
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t groups[2];
	int caps[2];		/* capabilities to keep, -1 for none */
};

#define TB_NO_CAPS	{ -1, -1 }

/* Become creds; 0 or a non-zero step number. */
static inline int tb_become(const struct tb_creds *c)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	unsigned int i;

	memset(data, 0, sizeof(data));
	for (i = 0; i < sizeof(c->caps) / sizeof(c->caps[0]); i++) {
		if (c->caps[i] < 0)
			continue;
		data[CAP_TO_INDEX(c->caps[i])].permitted |= CAP_TO_MASK(c->caps[i]);
		data[CAP_TO_INDEX(c->caps[i])].effective |= CAP_TO_MASK(c->caps[i]);
	}
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return 101;
	if (setgroups(c->ngroups, c->groups))
		return 102;
	if (setresgid(c->gid, c->gid, c->gid))
		return 103;
	if (setresuid(c->uid, c->uid, c->uid))
		return 104;
	if (syscall(SYS_capset, &hdr, data))
		return 105;
	if (geteuid() != c->uid || getegid() != c->gid)
		return 106;
	return 0;
}

/*
 * Run fn(arg) in a child with creds; returns the child's exit code: what
 * fn returned (an errno, 0 for success) or 101..106 if becoming failed.
 */
static inline int tb_run_as(const struct tb_creds *c, int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int ret;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		ret = tb_become(c);
		_exit(ret ? ret : fn(arg));
	}
	return tb_wait_child(pid);
}

static inline void tb_msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Wait (up to timeout_ms) until task tid of process pid sleeps ('S' in
 * /proc/<pid>/task/<tid>/stat), i.e. is blocked in poll() or read().
 * Without /proc it just waits a little.  Returns true if seen sleeping.
 */
static inline bool tb_wait_sleeping(pid_t pid, pid_t tid, int timeout_ms)
{
	char path[96], buf[512], *p;
	int waited, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	for (waited = 0; waited <= timeout_ms; waited += 5) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			tb_msleep(200);
			return false;
		}
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			p = strrchr(buf, ')');
			if (p && p[1] == ' ' && p[2] == 'S')
				return true;
		}
		tb_msleep(5);
	}
	return false;
}

#ifndef TB_NO_HARNESS
/* ------------------------------------------------------------------ */
/* Test setup and harness-aware helpers                               */

/*
 * SKIP and leave the test at once.  In the 6.1 harness a SKIP() from
 * FIXTURE_SETUP still runs the test body; leaving through the harness's
 * own jump buffer (as a failed ASSERT does) works in old and new ones.
 */
#define TB_SKIP(fmt, ...) \
	SKIP(longjmp(_metadata->env, 1), fmt, ##__VA_ARGS__)

/* 0: usable, 1: skip (why says so), -1: present but broken. */
static inline int tb_probe(char *why, size_t len)
{
	struct tracebuf_version_args v;
	struct stat st;
	int fd, ret;

	if (geteuid() != 0) {
		snprintf(why, len, "tracebuf tests must run as root");
		return 1;
	}
	if (stat(TB_DEV_PATH, &st)) {
		if (access(TB_MODULE_DIR, F_OK) == 0) {
			snprintf(why, len, "module loaded but %s: %s",
				 TB_DEV_PATH, strerror(errno));
			return -1;
		}
		snprintf(why, len, "%s absent (module not loaded)",
			 TB_DEV_PATH);
		return 1;
	}
	fd = tb_open();
	if (fd < 0) {
		snprintf(why, len, "open %s: %s", TB_DEV_PATH, strerror(-fd));
		return -1;
	}
	ret = tb_version(fd, &v);
	close(fd);
	if (ret) {
		snprintf(why, len, "TRACEBUF_IOC_VERSION: %s", strerror(-ret));
		return -1;
	}
	if (v.abi_major != TRACEBUF_ABI_MAJOR) {
		snprintf(why, len, "ABI %u.%u, tests are for %u.x",
			 v.abi_major, v.abi_minor, TRACEBUF_ABI_MAJOR);
		return -1;
	}
	return 0;
}

/* For FIXTURE_SETUP: SKIP without the device or root, FAIL if unusable. */
#define TB_REQUIRE_DEV() do {						\
	char __tb_why[256] = "";					\
	int __tb_r = tb_probe(__tb_why, sizeof(__tb_why));		\
	if (__tb_r > 0)							\
		TB_SKIP("%s", __tb_why);				\
	ASSERT_EQ(0, __tb_r) TH_LOG("%s", __tb_why);			\
} while (0)

/* Read the next provider packet (must come) and check its code. */
static inline void tb_next_pkt(struct __test_metadata *_metadata, int fd,
			       __u16 request, struct tracebuf_pkt *out)
{
	struct tracebuf_pkt p;

	ASSERT_EQ(0, tb_read_pkt(fd, &p, TB_TIMEOUT_MS))
		TH_LOG("no packet 0x%x for the provider", request);
	EXPECT_EQ(request, p.request);
	if (out)
		*out = p;
}

/* Read the next manager message (must come) and check it. */
static inline void tb_next_msg(struct __test_metadata *_metadata, int fd,
			       __u32 id, __u16 type, __u16 state,
			       struct tracebuf_mgr_msg *out)
{
	struct tracebuf_mgr_msg m;

	ASSERT_EQ(0, tb_read_msg(fd, &m, TB_TIMEOUT_MS))
		TH_LOG("no message type %u for the manager", type);
	EXPECT_EQ(id, m.provider_id);
	EXPECT_EQ(type, m.type);
	EXPECT_EQ(state, m.state);
	if (out)
		*out = m;
}

/* Read the next manager message and check it carries packet pkt. */
static inline void tb_next_msg_pkt(struct __test_metadata *_metadata, int fd,
				   __u32 id, __u16 state,
				   const struct tracebuf_pkt *pkt)
{
	struct tracebuf_mgr_msg m;

	tb_next_msg(_metadata, fd, id, TRACEBUF_MSG_PACKET, state, &m);
	EXPECT_EQ(0, memcmp(pkt, &m.pkt, sizeof(*pkt)));
}

/*
 * Pointer checks as booleans: the harness prints values through
 * uintmax_t, which a 32-bit build refuses for pointers.
 */
#define ASSERT_MAPPED(p)	ASSERT_TRUE((void *)(p) != MAP_FAILED)
#define EXPECT_MAPPED(p)	EXPECT_TRUE((void *)(p) != MAP_FAILED)
#define EXPECT_MAP_FAILED(p)	EXPECT_TRUE((void *)(p) == MAP_FAILED)

/* Nothing is queued for fd. */
#define EXPECT_EMPTY(fd) EXPECT_EQ(0, tb_pending(fd))

/* The state of a provider checked from both sides. */
#define EXPECT_STATE(mgr, prov, id, state) do {				\
	EXPECT_EQ((int)(state), mgr_state((mgr), (id)));		\
	EXPECT_EQ((int)(state), provider_state(prov));			\
} while (0)

/*
 * A manager and one provider it drives: the usual cast of a test.
 */
struct tb_peer {
	int mgr;		/* manager file */
	__u32 mgr_id;
	int prov;		/* provider file */
	__u32 id;		/* provider id */
	int buf_fd;		/* manager's buffer handle after INITIALIZE */
	__u32 mode;		/* TRACEBUF_MODE_* used by tb_drive() */
	__u64 size;		/* buffer size used by tb_drive() */
	__u32 generation;	/* from the latest INITIALIZE/START packet */
};

static inline void tb_peer_init(struct tb_peer *p)
{
	memset(p, 0, sizeof(*p));
	p->mgr = p->prov = p->buf_fd = -1;
	p->mode = TRACEBUF_MODE_STREAMING;
	p->size = 64 * 1024;
}

/* Open a manager (unless mgr_flags < 0) and a provider named name. */
static inline void tb_peer_open(struct __test_metadata *_metadata,
				struct tb_peer *p, const char *name,
				int mgr_flags)
{
	tb_peer_init(p);
	if (mgr_flags >= 0) {
		p->mgr = tb_open_manager((__u32)mgr_flags, &p->mgr_id);
		ASSERT_LE(0, p->mgr) TH_LOG("attach: %s", strerror(-p->mgr));
	}
	p->prov = tb_open_provider(name, &p->id);
	ASSERT_LE(0, p->prov) TH_LOG("register: %s", strerror(-p->prov));
}

static inline void tb_peer_close(struct tb_peer *p)
{
	tb_close(&p->buf_fd);
	tb_close(&p->prov);
	tb_close(&p->mgr);
}

/* STOP, the provider's STOPPED and both messages: STARTED -> STOPPED. */
static inline void tb_peer_stop(struct __test_metadata *_metadata,
				struct tb_peer *p)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_STOPPED, 0, 0, 0);

	ASSERT_EQ(0, mgr_stop(p->mgr, p->id));
	tb_next_pkt(_metadata, p->prov, TRACEBUF_PKT_STOP, NULL);
	ASSERT_EQ(0, provider_stopped(p->prov));
	tb_next_msg_pkt(_metadata, p->mgr, p->id, TRACEBUF_STATE_STOPPED, &pkt);
}

/*
 * Drive a REGISTERED provider to state, consuming every message on both
 * sides on the way so both inboxes are empty afterwards.  TERMINATING is
 * reached from INITIALIZED; STOPPED through STOPPING.
 */
static inline void tb_drive(struct __test_metadata *_metadata,
			    struct tb_peer *p, int state)
{
	struct tracebuf_pkt pkt;

	if (state < TRACEBUF_STATE_INITIALIZED)
		return;
	ASSERT_EQ(0, mgr_initialize(p->mgr, p->id, p->mode, p->size, NULL,
				    &p->buf_fd));
	tb_next_pkt(_metadata, p->prov, TRACEBUF_PKT_INITIALIZE, &pkt);
	p->generation = pkt.data32;
	if (state == TRACEBUF_STATE_TERMINATING) {
		ASSERT_EQ(0, mgr_terminate(p->mgr, p->id));
		tb_next_pkt(_metadata, p->prov, TRACEBUF_PKT_TERMINATE, NULL);
		return;
	}
	if (state < TRACEBUF_STATE_STARTING)
		return;
	ASSERT_EQ(0, mgr_start(p->mgr, p->id, TRACEBUF_START_CLEAR_ENTIRE,
			       NULL));
	tb_next_pkt(_metadata, p->prov, TRACEBUF_PKT_START, &pkt);
	p->generation = pkt.data32;
	if (state < TRACEBUF_STATE_STARTED)
		return;
	ASSERT_EQ(0, provider_started(p->prov));
	pkt = tb_pkt(TRACEBUF_PKT_STARTED, 0, TRACEBUF_FIFO_PROTOCOL_VERSION, 0);
	tb_next_msg_pkt(_metadata, p->mgr, p->id, TRACEBUF_STATE_STARTED, &pkt);
	if (state == TRACEBUF_STATE_STOPPING) {
		ASSERT_EQ(0, mgr_stop(p->mgr, p->id));
		tb_next_pkt(_metadata, p->prov, TRACEBUF_PKT_STOP, NULL);
	} else if (state == TRACEBUF_STATE_STOPPED) {
		tb_peer_stop(_metadata, p);
	}
}

/* The provider maps its whole buffer read-write. */
static inline void *tb_provider_map(struct __test_metadata *_metadata,
				    struct tb_peer *p)
{
	void *m = tb_map(p->prov, p->size, PROT_READ | PROT_WRITE, 0);

	ASSERT_MAPPED(m) TH_LOG("provider mmap: %s", strerror(errno));
	return m;
}
#endif /* TB_NO_HARNESS */

#endif /* TRACEBUF_SELFTESTS_H */
