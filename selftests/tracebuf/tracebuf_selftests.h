/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the tracebuf selftests, as uffd-common.[ch] are the
 * mm selftests': the wrappers are declared here and defined in
 * tracebuf_selftests.c, which every program links; the helpers that take
 * "_metadata" use ASSERT_* and EXPECT_* and must be called from a test,
 * so they stay here, inline, with the harness.
 *
 * Every wrapper returns 0 (or a non-negative value) on success and -errno
 * on failure, leaving errno as the ioctl left it.
 *
 * Define TB_NO_HARNESS before including this file to get only the
 * wrappers (tracebuf_selftests.c itself, and the tb_churn helper).
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

int tb_open_flags(int flags);

int tb_open(void);

/* Close *fd if it is open and mark it closed. */
void tb_close(int *fd);

/*
 * The page size, which is not always 4096 (arm64 kernels may have 16 KiB
 * or 64 KiB pages): mappings, mprotect() and munmap() deal in whole pages
 * of this size, and offsets into a buffer's mapping are multiples of it.
 */
size_t tb_page_size(void);

/*
 * Read (or, @write, increment) the byte at @p: 0, or the signal it raised
 * (SIGBUS: a sealed page of a sealable buffer's mapping, mmap_test).
 */
int tb_touch(volatile char *p, bool write);

/* A page any access to faults: a pointer that must give EFAULT. */
void *tb_bad_page(void);

int tb_ioctl(int fd, unsigned long cmd, void *arg);

/* The fuzzers' generator: splitmix64, seeded by *state, which it steps. */
static inline __u64 tb_splitmix64(__u64 *state)
{
	__u64 x = (*state += 0x9e3779b97f4a7c15ULL);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline __u64 tb_ptr(const void *p)
{
	return (__u64)(uintptr_t)p;
}

/* Does /proc/cpuinfo list both constant_tsc and nonstop_tsc? */
bool tb_cpu_has_invariant_tsc(void);

/*
 * Is the kernel 32-bit ARM (uname's machine armv7l and older; an arm64
 * kernel's 32-bit personality says armv8l)?  It has no
 * CONFIG_HAVE_IOREMAP_PROT, without which access_remote_vm() never asks
 * a VM_IO mapping's ->access(): a debugger (/proc/PID/mem, ptrace) gets
 * EIO from a sealable buffer's mappings.
 */
bool tb_kernel_is_arm32(void);

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

static inline double tb_monotonic_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/*
 * The counter at *@ms: read between two clock reads, the closest of a
 * few tries (a vCPU descheduled between a clock read and the counter's
 * would skew the rate by that time).
 */
static inline __u64 tb_counter_at(double *ms)
{
	double best = -1;
	__u64 c = 0;

	for (int i = 0; i < 8; i++) {
		double a = tb_monotonic_ms();
		__u64 v = tb_counter();
		double b = tb_monotonic_ms();

		if (best < 0 || b - a < best) {
			best = b - a;
			c = v;
			*ms = (a + b) / 2;
		}
	}
	return c;
}

/* Its rate in kHz, measured against CLOCK_MONOTONIC over 200 ms. */
static inline double tb_counter_khz(void)
{
	double t0 = 0, t1 = 0;
	__u64 c0, c1;

	c0 = tb_counter_at(&t0);
	usleep(200000);
	c1 = tb_counter_at(&t1);
	return (double)(c1 - c0) / (t1 - t0);
}
#endif

int tb_version(int fd, struct tracebuf_version_args *v);

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
__u64 tb_buffer_min(void);

int register_provider_ex(int fd, const void *name, __u32 len,
			 __u32 flags, __u32 *id, __u32 *status);

int register_provider(int fd, const char *name, __u32 flags,
		      __u32 *id);

int attach_manager(int fd, __u32 flags, __u32 *id);

/* Open a file and give it a role; returns the fd or -errno. */
int tb_open_provider(const char *name, __u32 *id);

int tb_open_manager(__u32 flags, __u32 *id);

int set_eventfd(int fd, int efd);

/* ------------------------------------------------------------------ */
/* Provider side                                                      */

/* Output fields of *cfg are poisoned first; buf may be NULL if size is 0. */
int provider_get_config(int fd, struct tracebuf_config_args *cfg,
			void *buf, __u32 size);

/*
 * The whole configuration; *cats is malloc()ed (free it), room for the
 * category list is found with the ENOSPC protocol.
 */
int provider_config_all(int fd, struct tracebuf_config_args *cfg,
			char **cats);

/* The provider's state as it sees it, or -errno. */
int provider_state(int fd);

struct tracebuf_pkt tb_pkt(__u16 request, __u16 data16,
			   __u32 data32, __u64 data64);

/* An ALERT packet: the name goes in bytes 2..15, zero padded. */
struct tracebuf_pkt tb_alert_pkt(const void *name, size_t len);

int provider_send_pkt(int fd, const struct tracebuf_pkt *p);

int provider_send(int fd, __u16 request, __u16 data16,
		  __u32 data32, __u64 data64);

int provider_started(int fd);

int provider_stopped(int fd);

int provider_alert(int fd, const char *name);

int provider_release(int fd);

/* ------------------------------------------------------------------ */
/* Category lists: NUL-terminated strings back to back                */

struct tb_cats {
	char *buf;
	__u32 size;
	__u32 count;
};

/* Append len raw bytes and a NUL; returns 0 or -ENOMEM. */
int tb_cats_add_len(struct tb_cats *c, const void *s, size_t len);

int tb_cats_add(struct tb_cats *c, const char *s);

/* tb_cats_build(&c, "a", "b", NULL): a fresh list of the given names. */
int tb_cats_build(struct tb_cats *c, ...);

/* n generated names "cat<i>" (unique, well below the length limit). */
int tb_cats_many(struct tb_cats *c, unsigned int n);

void tb_cats_free(struct tb_cats *c);

/* ------------------------------------------------------------------ */
/* Manager side                                                       */

int mgr_list(int fd, __u32 start_id,
	     struct tracebuf_provider_info *info, __u32 capacity,
	     __u32 *count, __u32 *total);

/* The info of provider id as this manager sees it, or -ESRCH. */
int mgr_find(int fd, __u32 id, struct tracebuf_provider_info *out);

/* The state of provider id as this manager sees it, or -errno. */
int mgr_state(int fd, __u32 id);

/* How many providers this manager can see (with ids >= start_id). */
int mgr_count(int fd, __u32 start_id);

void tb_fill_cats(const struct tb_cats *cats, __u64 *ptr,
		  __u32 *size, __u32 *count);

void tb_init_args(struct tracebuf_initialize_args *a, __u32 id,
		  __u32 mode, __u64 size,
		  const struct tb_cats *cats);

/* buffer_fd may be NULL: the handle is then closed. */
int mgr_initialize(int fd, __u32 id, __u32 mode, __u64 size,
		   const struct tb_cats *cats, int *buffer_fd);
/* the same with INITIALIZE's flags (TRACEBUF_INIT_F_*) */
int mgr_initialize_flags(int fd, __u32 id, __u32 mode, __u64 size,
			 __u32 flags, const struct tb_cats *cats,
			 int *buffer_fd);

void tb_start_args(struct tracebuf_start_args *a, __u32 id,
		   __u32 disposition, const struct tb_cats *cats);

int mgr_start(int fd, __u32 id, __u32 disposition,
	      const struct tb_cats *cats);

int mgr_stop(int fd, __u32 id);

int mgr_terminate(int fd, __u32 id);

int mgr_send(int fd, __u32 id, const struct tracebuf_pkt *pkt);

int mgr_buffer_saved(int fd, __u32 id, __u32 wrapped_count,
		     __u64 durable_end);

/* ------------------------------------------------------------------ */
/* Reading inboxes                                                    */

/* 1 if fd reports EPOLLIN right now, 0 if not, -errno on error. */
int tb_pending(int fd);

/*
 * Wait up to timeout_ms for one record of len bytes and read it.  The
 * read itself never blocks (a module that reports EPOLLIN with an empty
 * inbox fails the read with EAGAIN rather than hanging the test).
 * Returns 0, -ETIMEDOUT, -EIO for a short record, or -errno.
 */
int tb_read_record(int fd, void *rec, size_t len, int timeout_ms);

int tb_read_pkt(int fd, struct tracebuf_pkt *pkt, int timeout_ms);

int tb_read_msg(int fd, struct tracebuf_mgr_msg *msg,
		int timeout_ms);

/* Read and discard everything queued now; returns the number of records. */
int tb_drain(int fd, size_t reclen);

/* ------------------------------------------------------------------ */
/* Buffers                                                            */

/*
 * Durable and rolling sizes for a buffer of total bytes, and the header's
 * mode: the layout rule worked out here again, on purpose, as an oracle
 * for the module's (which uses the uapi header's tracebuf_layout_*()).
 */
void tb_buffer_sizes(__u32 mode, __u64 total, __u64 *durable,
		     __u64 *rolling);
__u8 tb_header_mode(__u32 mode);

void *tb_map(int fd, size_t len, int prot, off_t off);

/* The lowest free fd number: to prove that a failed call leaked no fd. */
int tb_next_fd(void);

/* Read a small text file whole, NUL-terminated; 0 or -errno. */
int tb_read_text(const char *path, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Module parameters                                                  */

int tb_param_get(const char *name, long long *val);

/* Write val to the file at path (a parameter, a debugfs knob). */
int tb_param_set_path(const char *path, long long val);

int tb_param_set(const char *name, long long val);

/* A parameter changed by a test, restored by its teardown. */
struct tb_param {
	const char *name;
	long long old;
	bool saved;
};

/* Remember the current value of name (once), then set it to val. */
int tb_param_change(struct tb_param *p, const char *name,
		    long long val);

int tb_param_restore(struct tb_param *p);

/* ------------------------------------------------------------------ */
/* Processes                                                          */

/* Exit status of a child (0..255), 128 + signal if killed, -errno. */
int tb_wait_child(pid_t pid);

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
int tb_become(const struct tb_creds *c);

/*
 * Run fn(arg) in a child with creds; returns the child's exit code: what
 * fn returned (an errno, 0 for success) or 101..106 if becoming failed.
 */
int tb_run_as(const struct tb_creds *c, int (*fn)(void *), void *arg);

void tb_msleep(unsigned int ms);

/*
 * Wait (up to timeout_ms) until task tid of process pid sleeps ('S' in
 * /proc/<pid>/task/<tid>/stat), i.e. is blocked in poll() or read().
 * Without /proc it just waits a little.  Returns true if seen sleeping.
 */
bool tb_wait_sleeping(pid_t pid, pid_t tid, int timeout_ms);

/* 0: usable, 1: skip (why says so), -1: present but broken. */
int tb_probe(char *why, size_t len);

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
	__u32 init_flags;	/* INITIALIZE's flags used by tb_drive() */
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
	ASSERT_EQ(0, mgr_initialize_flags(p->mgr, p->id, p->mode, p->size,
					  p->init_flags, NULL, &p->buf_fd));
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
