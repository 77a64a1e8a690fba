// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf limits (module parameters max_buffer_size, max_total_memory,
 * max_providers, and the per-user max_user_providers and
 * max_user_memory): each is enforced with its errno (a buffer counts in
 * max_total_memory while its provider has it, in its user's share until
 * it is freed), a refusal leaves no
 * trace, and nothing leaks (after releasing, the same allocations
 * succeed again, many times over).  Assumes no other buffers or
 * providers are live while it runs.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>

#include "tracebuf_selftests.h"

/* aligned with pages of 4, 16 and 64 KiB, the smallest buffer with 64 */
#define TB_K64	(64 * 1024)

FIXTURE(limits) {
	struct tb_param max_buffer;
	struct tb_param max_total;
	struct tb_param max_providers;
	int mgr;
	int prov[4];
	__u32 id[4];
	int buf[4];
};

FIXTURE_SETUP(limits)
{
	int i;

	memset(&self->max_buffer, 0, sizeof(self->max_buffer));
	memset(&self->max_total, 0, sizeof(self->max_total));
	memset(&self->max_providers, 0, sizeof(self->max_providers));
	self->mgr = -1;
	for (i = 0; i < 4; i++)
		self->prov[i] = self->buf[i] = -1;
	TB_REQUIRE_DEV();
	self->mgr = tb_open_manager(0, NULL);
	ASSERT_LE(0, self->mgr);
}

FIXTURE_TEARDOWN(limits)
{
	int i;

	for (i = 0; i < 4; i++) {
		tb_close(&self->buf[i]);
		tb_close(&self->prov[i]);
	}
	tb_close(&self->mgr);
	EXPECT_EQ(0, tb_param_restore(&self->max_buffer));
	EXPECT_EQ(0, tb_param_restore(&self->max_total));
	EXPECT_EQ(0, tb_param_restore(&self->max_providers));
}

/* Register provider i. */
static void tb_lim_provider(struct __test_metadata *_metadata,
			    FIXTURE_DATA(limits) *self, int i)
{
	self->prov[i] = tb_open_provider("limits", &self->id[i]);
	ASSERT_LE(0, self->prov[i]) TH_LOG("register %d: %s", i,
					   strerror(-self->prov[i]));
}

/* INITIALIZE provider i with size bytes: 0 or -errno. */
static int tb_lim_init(FIXTURE_DATA(limits) *self, int i, __u64 size)
{
	tb_close(&self->buf[i]);
	return mgr_initialize(self->mgr, self->id[i], TRACEBUF_MODE_ONESHOT,
			      size, NULL, &self->buf[i]);
}

/* A refused INITIALIZE left provider i as it was. */
#define EXPECT_INIT_REFUSED(i, size, err) do {				\
	int __next = tb_next_fd();					\
	EXPECT_EQ(-(err), tb_lim_init(self, (i), (size)));		\
	EXPECT_EQ(__next, tb_next_fd());				\
	EXPECT_EQ(TRACEBUF_STATE_REGISTERED,				\
		  mgr_state(self->mgr, self->id[i]));			\
	EXPECT_EMPTY(self->prov[i]);					\
} while (0)

/* Terminate and release provider i and close the handle: buffer gone. */
static void tb_lim_free(struct __test_metadata *_metadata,
			FIXTURE_DATA(limits) *self, int i)
{
	ASSERT_EQ(0, mgr_terminate(self->mgr, self->id[i]));
	ASSERT_EQ(0, provider_release(self->prov[i]));
	tb_drain(self->prov[i], sizeof(struct tracebuf_pkt));
	tb_drain(self->mgr, sizeof(struct tracebuf_mgr_msg));
	tb_close(&self->buf[i]);
}

/* ---- max_buffer_size ---- */

TEST_F(limits, max_buffer_size_reported_by_version)
{
	struct tracebuf_version_args v;

	ASSERT_EQ(0, tb_param_change(&self->max_buffer, "max_buffer_size",
				     TB_K64));
	ASSERT_EQ(0, tb_version(self->mgr, &v));
	EXPECT_EQ((__u64)TB_K64, v.max_buffer_size);
}

TEST_F(limits, max_buffer_size_exceeded_efbig)
{
	tb_lim_provider(_metadata, self, 0);
	ASSERT_EQ(0, tb_param_change(&self->max_buffer, "max_buffer_size",
				     TB_K64));
	/* aligned whatever the page size: too big is its only fault */
	EXPECT_INIT_REFUSED(0, TB_K64 + tb_buffer_min(), EFBIG);
}

TEST_F(limits, max_buffer_size_reached_accepted)
{
	tb_lim_provider(_metadata, self, 0);
	ASSERT_EQ(0, tb_param_change(&self->max_buffer, "max_buffer_size",
				     TB_K64));
	EXPECT_EQ(0, tb_lim_init(self, 0, TB_K64));
}

TEST_F(limits, max_buffer_size_raised_again)
{
	tb_lim_provider(_metadata, self, 0);
	ASSERT_EQ(0, tb_param_change(&self->max_buffer, "max_buffer_size",
				     TB_K64));
	EXPECT_INIT_REFUSED(0, 2 * TB_K64, EFBIG);
	ASSERT_EQ(0, tb_param_change(&self->max_buffer, "max_buffer_size",
				     2 * TB_K64));
	EXPECT_EQ(0, tb_lim_init(self, 0, 2 * TB_K64));
}

/* ---- max_total_memory ---- */

TEST_F(limits, max_total_memory_reported_by_version)
{
	struct tracebuf_version_args v;

	ASSERT_EQ(0, tb_param_change(&self->max_total, "max_total_memory",
				     2 * TB_K64));
	ASSERT_EQ(0, tb_version(self->mgr, &v));
	EXPECT_EQ((__u64)2 * TB_K64, v.max_total_memory);
}

TEST_F(limits, max_total_memory_exceeded_enomem)
{
	int i;

	for (i = 0; i < 3; i++)
		tb_lim_provider(_metadata, self, i);
	ASSERT_EQ(0, tb_param_change(&self->max_total, "max_total_memory",
				     2 * TB_K64));
	ASSERT_EQ(0, tb_lim_init(self, 0, TB_K64));
	ASSERT_EQ(0, tb_lim_init(self, 1, TB_K64));
	EXPECT_INIT_REFUSED(2, tb_buffer_min(), ENOMEM);
}

/*
 * A buffer counts in max_total_memory while its provider has it: one that
 * the manager's handle (or an old mapping) keeps after the provider let
 * go counts against its user's share only (share.*).
 */
TEST_F(limits, max_total_memory_counts_while_the_provider_has_it)
{
	int i;

	for (i = 0; i < 2; i++)
		tb_lim_provider(_metadata, self, i);
	ASSERT_EQ(0, tb_param_change(&self->max_total, "max_total_memory",
				     TB_K64));
	ASSERT_EQ(0, tb_lim_init(self, 0, TB_K64));
	EXPECT_INIT_REFUSED(1, TB_K64, ENOMEM);
	/* released by the provider, still held by the manager's handle */
	ASSERT_EQ(0, mgr_terminate(self->mgr, self->id[0]));
	ASSERT_EQ(0, provider_release(self->prov[0]));
	EXPECT_EQ(0, tb_lim_init(self, 1, TB_K64));
}

/*
 * The default max_total_memory (256 MiB) is reachable with buffers of the
 * default max_buffer_size (64 MiB).  On a 32-bit kernel that is more than
 * its vmalloc space (240 MiB on ARM): the kernel must not vmap() a
 * provider's buffer whole.  Root (CAP_SYS_RESOURCE) has no user share.
 */
TEST_F(limits, max_total_memory_default_reached)
{
	const __u64 size = 64 << 20;
	int i;

	ASSERT_EQ(0, tb_param_change(&self->max_buffer, "max_buffer_size",
				     size));
	ASSERT_EQ(0, tb_param_change(&self->max_total, "max_total_memory",
				     4 * size));
	for (i = 0; i < 4; i++) {
		tb_lim_provider(_metadata, self, i);
		EXPECT_EQ(0, tb_lim_init(self, i, size)) TH_LOG("buffer %d", i);
	}
}

TEST_F(limits, max_total_memory_freed_with_provider_file)
{
	int i;

	for (i = 0; i < 2; i++)
		tb_lim_provider(_metadata, self, i);
	ASSERT_EQ(0, tb_param_change(&self->max_total, "max_total_memory",
				     TB_K64));
	ASSERT_EQ(0, tb_lim_init(self, 0, TB_K64));
	tb_close(&self->prov[0]);
	tb_close(&self->buf[0]);
	EXPECT_EQ(0, tb_lim_init(self, 1, TB_K64));
}

TEST_F(limits, max_total_memory_back_when_provider_killed)
{
	struct tracebuf_pkt pkt;
	int pfd[2];
	pid_t pid;
	__u32 id;

	tb_lim_provider(_metadata, self, 1);
	ASSERT_EQ(0, tb_param_change(&self->max_total, "max_total_memory",
				     TB_K64));
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = tb_open_provider("limits-doomed", &id);
		void *m;

		if (fd < 0 || write(pfd[1], &id, sizeof(id)) != sizeof(id))
			_exit(1);
		if (tb_read_pkt(fd, &pkt, -1))
			_exit(2);
		m = tb_map(fd, TB_K64, PROT_READ | PROT_WRITE, 0);
		if (m == MAP_FAILED)
			_exit(3);
		memset(m, 1, TB_K64);
		if (write(pfd[1], &id, sizeof(id)) != sizeof(id))
			_exit(4);
		for (;;)
			pause();
	}
	ASSERT_EQ((ssize_t)sizeof(id), read(pfd[0], &id, sizeof(id)));
	ASSERT_EQ(0, mgr_initialize(self->mgr, id, TRACEBUF_MODE_ONESHOT,
				    TB_K64, NULL, &self->buf[0]));
	ASSERT_EQ((ssize_t)sizeof(id), read(pfd[0], &id, sizeof(id)));
	close(pfd[0]);
	close(pfd[1]);
	kill(pid, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, tb_wait_child(pid));
	tb_next_msg(_metadata, self->mgr, id, TRACEBUF_MSG_GONE,
		    TRACEBUF_STATE_INITIALIZED, NULL);
	/* the manager may still harvest it, but it is nobody's buffer now */
	EXPECT_EQ(0, tb_lim_init(self, 1, TB_K64));
}

TEST_F(limits, refused_provider_initialized_once_memory_is_back)
{
	int i;

	for (i = 0; i < 2; i++)
		tb_lim_provider(_metadata, self, i);
	ASSERT_EQ(0, tb_param_change(&self->max_total, "max_total_memory",
				     TB_K64));
	ASSERT_EQ(0, tb_lim_init(self, 0, TB_K64));
	EXPECT_INIT_REFUSED(1, TB_K64, ENOMEM);
	tb_lim_free(_metadata, self, 0);
	ASSERT_EQ(0, tb_lim_init(self, 1, TB_K64));
	tb_next_pkt(_metadata, self->prov[1], TRACEBUF_PKT_INITIALIZE, NULL);
}

TEST_F(limits, no_buffer_leak_over_many_cycles)
{
	char *m;
	int i;

	ASSERT_EQ(0, tb_param_change(&self->max_total, "max_total_memory",
				     TB_K64));
	for (i = 0; i < 20; i++) {
		tb_lim_provider(_metadata, self, 0);
		ASSERT_EQ(0, tb_lim_init(self, 0, TB_K64))
			TH_LOG("cycle %d", i);
		m = tb_map(self->prov[0], TB_K64, PROT_READ | PROT_WRITE, 0);
		ASSERT_MAPPED(m);
		memset(m + TRACEBUF_HEADER_SIZE, i, TB_K64 - TRACEBUF_HEADER_SIZE);
		munmap(m, TB_K64);
		tb_close(&self->prov[0]);
		tb_close(&self->buf[0]);
		tb_drain(self->mgr, sizeof(struct tracebuf_mgr_msg));
	}
}

TEST_F(limits, no_buffer_leak_over_release_cycles)
{
	int i;

	tb_lim_provider(_metadata, self, 0);
	ASSERT_EQ(0, tb_param_change(&self->max_total, "max_total_memory",
				     TB_K64));
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(0, tb_lim_init(self, 0, TB_K64)) TH_LOG("cycle %d", i);
		tb_lim_free(_metadata, self, 0);
	}
}

/* ---- freeing ---- */

static __u64 tb_lim_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000 + (__u64)ts.tv_nsec / 1000;
}

struct tb_lister {
	int mgr;
	volatile bool stop;
	__u64 worst_us;
};

/* LIST (which takes the registry lock) in a loop: its worst latency. */
static void *tb_lim_lister(void *arg)
{
	struct tb_lister *l = arg;

	while (!l->stop) {
		__u64 t0 = tb_lim_now_us(), dt;

		mgr_count(l->mgr, 1);
		dt = tb_lim_now_us() - t0;
		if (dt > l->worst_us)
			l->worst_us = dt;
	}
	return NULL;
}

/*
 * The last reference to a 256 MiB buffer goes while the registry lock is
 * held (the provider's RELEASE detaches it there): its 65536 pages must
 * not be freed under that lock, or every other manager and provider
 * waits.  Three times; the best of the three worst waits counts, so a
 * busy machine's hiccup does not.
 */
TEST_F(limits, freeing_a_large_buffer_holds_no_lock)
{
	__u64 best = ~0ULL;

	ASSERT_EQ(0, tb_param_change(&self->max_buffer, "max_buffer_size", 256 << 20));
	ASSERT_EQ(0, tb_param_change(&self->max_total, "max_total_memory", 256 << 20));
	tb_lim_provider(_metadata, self, 0);
	for (int round = 0; round < 3; round++) {
		struct tb_lister l = { .mgr = tb_open_manager(0, NULL) };
		__u64 t0, release_us;
		pthread_t th;

		ASSERT_LE(0, l.mgr);
		ASSERT_EQ(0, tb_lim_init(self, 0, 256 << 20));
		/* the provider's is the last reference */
		tb_close(&self->buf[0]);
		ASSERT_EQ(0, mgr_terminate(self->mgr, self->id[0]));
		ASSERT_EQ(0, pthread_create(&th, NULL, tb_lim_lister, &l));
		usleep(20000);
		t0 = tb_lim_now_us();
		ASSERT_EQ(0, provider_release(self->prov[0]));
		release_us = tb_lim_now_us() - t0;
		usleep(20000);
		l.stop = true;
		pthread_join(th, NULL);
		close(l.mgr);
		tb_drain(self->prov[0], sizeof(struct tracebuf_pkt));
		tb_drain(self->mgr, sizeof(struct tracebuf_mgr_msg));
		ksft_print_msg("release took %llu us, LIST waited %llu us at worst\n",
			       (unsigned long long)release_us,
			       (unsigned long long)l.worst_us);
		if (l.worst_us < best)
			best = l.worst_us;
	}
	fflush(stdout);
	/* freed under the lock, LIST waited 40-60 ms each time (emulated x86) */
	EXPECT_GT(15000ULL, best);
}

/* ---- max_providers ---- */

/* Allow room more providers than are registered now. */
static void tb_lim_providers_room(struct __test_metadata *_metadata,
				  FIXTURE_DATA(limits) *self, int room)
{
	int now = mgr_count(self->mgr, 0);

	ASSERT_LE(0, now);
	ASSERT_EQ(0, tb_param_change(&self->max_providers, "max_providers",
				     now + room));
}

TEST_F(limits, max_providers_reported_by_version)
{
	struct tracebuf_version_args v;
	int now = mgr_count(self->mgr, 0);

	ASSERT_EQ(0, tb_param_change(&self->max_providers, "max_providers",
				     now + 7));
	ASSERT_EQ(0, tb_version(self->mgr, &v));
	EXPECT_EQ((__u32)(now + 7), v.max_providers);
}

TEST_F(limits, max_providers_reached_enospc)
{
	int fd;

	tb_lim_providers_room(_metadata, self, 2);
	tb_lim_provider(_metadata, self, 0);
	tb_lim_provider(_metadata, self, 1);
	fd = tb_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOSPC, register_provider(fd, "one-too-many", 0, NULL));
	/* refused: still without a role, and registers once there is room */
	tb_close(&self->prov[0]);
	EXPECT_EQ(0, register_provider(fd, "one-too-many", 0, NULL));
	close(fd);
}

TEST_F(limits, max_providers_refusal_leaves_no_role)
{
	int fd;

	tb_lim_providers_room(_metadata, self, 1);
	tb_lim_provider(_metadata, self, 0);
	fd = tb_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOSPC, register_provider(fd, "one-too-many", 0, NULL));
	EXPECT_EQ(0, attach_manager(fd, 0, NULL));
	close(fd);
}

TEST_F(limits, managers_do_not_count_as_providers)
{
	int mgr[3], i;

	tb_lim_providers_room(_metadata, self, 1);
	for (i = 0; i < 3; i++) {
		mgr[i] = tb_open_manager(0, NULL);
		EXPECT_LE(0, mgr[i]);
	}
	tb_lim_provider(_metadata, self, 0);
	for (i = 0; i < 3; i++)
		if (mgr[i] >= 0)
			close(mgr[i]);
}

TEST_F(limits, no_provider_leak_over_many_cycles)
{
	int i;

	tb_lim_providers_room(_metadata, self, 1);
	for (i = 0; i < 50; i++) {
		self->prov[0] = tb_open_provider("cycle", &self->id[0]);
		ASSERT_LE(0, self->prov[0]) TH_LOG("cycle %d: %s", i,
						   strerror(-self->prov[0]));
		tb_close(&self->prov[0]);
	}
}

TEST_F(limits, no_provider_leak_after_sigkill)
{
	pid_t pid;
	int i, pfd[2];
	char c;

	tb_lim_providers_room(_metadata, self, 1);
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, pipe(pfd));
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			int fd = tb_open_provider("doomed", NULL);

			c = fd < 0 ? 'n' : 'y';
			if (write(pfd[1], &c, 1) != 1)
				_exit(1);
			for (;;)
				pause();
		}
		ASSERT_EQ(1, read(pfd[0], &c, 1));
		close(pfd[0]);
		close(pfd[1]);
		EXPECT_EQ('y', c) TH_LOG("cycle %d: the child could not register", i);
		kill(pid, SIGKILL);
		tb_wait_child(pid);
	}
	/* the last slot is free again */
	tb_lim_provider(_metadata, self, 0);
}

/* ---- ids ---- */

#define TB_DEBUGFS "/sys/kernel/debug/tracebuf/"

/*
 * Ids are handed out cyclically: after 2^32 - 1 registrations they wrap
 * to the lowest free one, never 0 (the knob skips the 2^32 cycles).
 */
TEST_F(limits, provider_ids_wrap_around)
{
	__u32 id[3];

	ASSERT_EQ(0, tb_param_set_path(TB_DEBUGFS "next_provider_id", 0xfffffffeLL))
		TH_LOG("no debugfs knob");
	tb_lim_provider(_metadata, self, 0);
	tb_lim_provider(_metadata, self, 1);
	tb_lim_provider(_metadata, self, 2);
	for (int i = 0; i < 3; i++)
		id[i] = self->id[i];
	EXPECT_EQ(0xfffffffeU, id[0]);
	EXPECT_EQ(0xffffffffU, id[1]);
	EXPECT_NE(0U, id[2]);
	EXPECT_GT(0xfffffffeU, id[2]);
	/* the wrapped one works like any other */
	EXPECT_EQ(0, tb_lim_init(self, 2, TB_K64));
	EXPECT_EQ(TRACEBUF_STATE_INITIALIZED, mgr_state(self->mgr, id[2]));
}

/* A listing that reaches the last id ends there: it does not wrap to 0. */
TEST_F(limits, list_ends_at_the_last_id)
{
	struct tracebuf_provider_info info[64];
	__u32 count = 0, total = 0;
	int prov[16];

	ASSERT_EQ(0, tb_param_set_path(TB_DEBUGFS "next_provider_id", 0xfffffff0LL))
		TH_LOG("no debugfs knob");
	for (int i = 0; i < 16; i++) {
		__u32 id;

		prov[i] = tb_open_provider("limits", &id);
		ASSERT_LE(0, prov[i]);
		ASSERT_EQ(0xfffffff0U + i, id);
	}
	/* a batch of 16 (TRACEBUF_READ_BATCH) ends at 0xffffffff */
	ASSERT_EQ(0, mgr_list(self->mgr, 0xfffffff0U, info, 64, &count, &total));
	EXPECT_EQ(16U, count);
	EXPECT_EQ(16U, total);
	for (__u32 i = 0; i < count && i < 16; i++)
		EXPECT_EQ(0xfffffff0U + i, info[i].id);
	for (int i = 0; i < 16; i++)
		close(prov[i]);
}

TEST_F(limits, manager_ids_never_zero)
{
	struct tracebuf_provider_info info;
	__u32 a = 0, b = 0;
	int m1, m2;

	ASSERT_EQ(0, tb_param_set_path(TB_DEBUGFS "next_manager_id", 0xffffffffLL));
	m1 = tb_open_manager(0, &a);
	m2 = tb_open_manager(0, &b);
	ASSERT_LE(0, m1);
	ASSERT_LE(0, m2);
	EXPECT_EQ(0xffffffffU, a);
	EXPECT_NE(0U, b);
	EXPECT_NE(a, b);
	/* an owner that wrapped still shows as one */
	tb_lim_provider(_metadata, self, 0);
	ASSERT_EQ(0, mgr_initialize(m2, self->id[0], TRACEBUF_MODE_ONESHOT, TB_K64, NULL,
				    NULL));
	ASSERT_EQ(0, mgr_find(self->mgr, self->id[0], &info));
	EXPECT_EQ(b, info.manager_id);
	tb_close(&m1);
	tb_close(&m2);
}

/* ---- per-user shares ---- */

/*
 * A child with other credentials that holds providers and does what the
 * parent asks, one command at a time over a pipe, and answers with an
 * errno (0: done) and, for REGISTER, the provider's id.
 */
struct tb_cmd {
	char op;		/* 'R'egister, 'C'ategories, 'M'ap, 'X' release, 'Q'uit */
	int idx;		/* which of its providers */
	__u32 arg;		/* C: bytes of categories, M: buffer size */
};

struct tb_rsp {
	int err;
	__u32 id;
};

struct tb_user {
	pid_t pid;
	int cmd, rsp;		/* our ends */
};

/* A category list of about @bytes: pairs of a 100-byte name, 399 x's. */
static int tb_user_categories(int fd, __u32 bytes)
{
	struct tracebuf_known_args a = { 0 };
	__u32 n = bytes / 501, off = 0;
	char *blob = malloc((size_t)n * 501 + 1);
	int ret;

	if (!blob)
		return ENOMEM;
	for (__u32 i = 0; i < n; i++) {
		snprintf(blob + off, 102, "%0100u", i);
		off += 101;
		memset(blob + off, 'x', 399);
		off += 399;
		blob[off++] = 0;
	}
	a.categories_ptr = (uintptr_t)blob;
	a.categories_size = off;
	a.categories_count = n;
	ret = tb_ioctl(fd, TRACEBUF_IOC_PROVIDER_SET_CATEGORIES, &a);
	free(blob);
	return -ret;
}

static void __attribute__((noreturn)) tb_user_main(int cmd, int rsp)
{
	int prov[16];
	int n = 0;
	struct tb_cmd c;

	while (read(cmd, &c, sizeof(c)) == (ssize_t)sizeof(c)) {
		struct tb_rsp r = { 0 };

		switch (c.op) {
		case 'R':
			prov[n] = tb_open_provider("user", &r.id);
			if (prov[n] < 0)
				r.err = -prov[n];
			else if (n < 15)
				n++;
			break;
		case 'C':
			r.err = tb_user_categories(prov[c.idx], c.arg);
			break;
		case 'M':
			/* kept mapped: never unmapped */
			if (mmap(NULL, c.arg, PROT_READ | PROT_WRITE, MAP_SHARED, prov[c.idx],
				 0) == MAP_FAILED)
				r.err = errno;
			break;
		case 'X':
			r.err = -provider_release(prov[c.idx]);
			break;
		default:
			_exit(0);
		}
		if (write(rsp, &r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(1);
	}
	_exit(0);
}

static int tb_user_start(struct tb_user *u, uid_t uid)
{
	struct tb_creds c = { uid, uid, 0, { 0 }, TB_NO_CAPS };
	int cmd[2], rsp[2];

	if (pipe(cmd) || pipe(rsp))
		return -errno;
	u->pid = fork();
	if (u->pid < 0)
		return -errno;
	if (u->pid == 0) {
		/* only its own ends: another child's would keep that one alive */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != cmd[0] && fd != rsp[1])
				close(fd);
		if (tb_become(&c))
			_exit(1);
		tb_user_main(cmd[0], rsp[1]);
	}
	close(cmd[0]);
	close(rsp[1]);
	u->cmd = cmd[1];
	u->rsp = rsp[0];
	return 0;
}

/* Ask; the errno it answered (EPIPE if it died). */
static int tb_user_do(struct tb_user *u, char op, int idx, __u32 arg, __u32 *id)
{
	struct tb_cmd c = { .op = op, .idx = idx, .arg = arg };
	struct tb_rsp r;

	if (write(u->cmd, &c, sizeof(c)) != (ssize_t)sizeof(c) ||
	    read(u->rsp, &r, sizeof(r)) != (ssize_t)sizeof(r))
		return EPIPE;
	if (id)
		*id = r.id;
	return r.err;
}

static void tb_user_stop(struct tb_user *u)
{
	if (u->pid <= 0)
		return;
	close(u->cmd);
	close(u->rsp);
	tb_wait_child(u->pid);
	u->pid = 0;
}

FIXTURE(share) {
	struct tb_param user_providers;
	struct tb_param user_memory;
	struct tb_param total;
	int mgr;
	struct tb_user a, b;	/* users 65534 and 65533 */
};

FIXTURE_SETUP(share)
{
	memset(self, 0, sizeof(*self));
	self->mgr = -1;
	TB_REQUIRE_DEV();
	self->mgr = tb_open_manager(0, NULL);
	ASSERT_LE(0, self->mgr);
	ASSERT_EQ(0, tb_user_start(&self->a, TB_NOBODY));
	ASSERT_EQ(0, tb_user_start(&self->b, TB_NOBODY - 1));
}

FIXTURE_TEARDOWN(share)
{
	tb_user_stop(&self->a);
	tb_user_stop(&self->b);
	tb_close(&self->mgr);
	EXPECT_EQ(0, tb_param_restore(&self->user_providers));
	EXPECT_EQ(0, tb_param_restore(&self->user_memory));
	EXPECT_EQ(0, tb_param_restore(&self->total));
}

/* One user's providers are bounded; the others' are not touched. */
TEST_F(share, user_providers_edquot)
{
	__u32 id;
	int fd;

	ASSERT_EQ(0, tb_param_change(&self->user_providers, "max_user_providers", 3));
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, tb_user_do(&self->a, 'R', 0, 0, &id));
	EXPECT_EQ(EDQUOT, tb_user_do(&self->a, 'R', 0, 0, &id));
	EXPECT_EQ(0, tb_user_do(&self->b, 'R', 0, 0, &id));
	/* root here has CAP_SYS_RESOURCE: counted, not limited */
	fd = tb_open_provider("root", &id);
	EXPECT_LE(0, fd);
	tb_close(&fd);
}

/* Published categories count against the user's memory. */
TEST_F(share, user_memory_categories_edquot)
{
	__u32 id;

	ASSERT_EQ(0, tb_param_change(&self->user_memory, "max_user_memory", 1 << 20));
	ASSERT_EQ(0, tb_user_do(&self->a, 'R', 0, 0, &id));
	ASSERT_EQ(0, tb_user_do(&self->a, 'R', 0, 0, &id));
	EXPECT_EQ(0, tb_user_do(&self->a, 'C', 0, 600 << 10, NULL));
	EXPECT_EQ(EDQUOT, tb_user_do(&self->a, 'C', 1, 600 << 10, NULL));
	/* replacing the first list by a smaller one frees the difference */
	EXPECT_EQ(0, tb_user_do(&self->a, 'C', 0, 300 << 10, NULL));
	EXPECT_EQ(0, tb_user_do(&self->a, 'C', 1, 600 << 10, NULL));
	/* another user has its own share */
	ASSERT_EQ(0, tb_user_do(&self->b, 'R', 0, 0, &id));
	EXPECT_EQ(0, tb_user_do(&self->b, 'C', 0, 900 << 10, NULL));
}

/* Buffers count against their provider's user: INITIALIZE says EDQUOT. */
TEST_F(share, user_memory_buffers_edquot)
{
	__u32 a1, a2, b1;
	int fd = -1;

	ASSERT_EQ(0, tb_param_change(&self->user_memory, "max_user_memory", 1 << 20));
	ASSERT_EQ(0, tb_user_do(&self->a, 'R', 0, 0, &a1));
	ASSERT_EQ(0, tb_user_do(&self->a, 'R', 0, 0, &a2));
	ASSERT_EQ(0, tb_user_do(&self->b, 'R', 0, 0, &b1));
	EXPECT_EQ(0, mgr_initialize(self->mgr, a1, TRACEBUF_MODE_ONESHOT, 1 << 20, NULL,
				    NULL));
	EXPECT_EQ(-EDQUOT, mgr_initialize(self->mgr, a2, TRACEBUF_MODE_ONESHOT, TB_K64,
					  NULL, &fd));
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(TRACEBUF_STATE_REGISTERED, mgr_state(self->mgr, a2));
	EXPECT_EQ(0, mgr_initialize(self->mgr, b1, TRACEBUF_MODE_ONESHOT, 1 << 20, NULL,
				    NULL));
}

/*
 * A provider that keeps its old buffers mapped across re-initializations
 * uses up its own user's share, not the module's max_total_memory: other
 * users' providers are still initialized.
 */
TEST_F(share, retained_buffers_count_for_their_user_only)
{
	__u32 a1, b1;
	int i, ret = 0;

	ASSERT_EQ(0, tb_param_change(&self->total, "max_total_memory", 1 << 20));
	ASSERT_EQ(0, tb_param_change(&self->user_memory, "max_user_memory", 2 << 20));
	ASSERT_EQ(0, tb_user_do(&self->a, 'R', 0, 0, &a1));
	ASSERT_EQ(0, tb_user_do(&self->b, 'R', 0, 0, &b1));
	for (i = 0; i < 8; i++) {
		ret = mgr_initialize(self->mgr, a1, TRACEBUF_MODE_ONESHOT, 512 << 10, NULL,
				     NULL);
		if (ret)
			break;
		ASSERT_EQ(0, tb_user_do(&self->a, 'M', 0, 512 << 10, NULL));
		ASSERT_EQ(0, mgr_terminate(self->mgr, a1));
		ASSERT_EQ(0, tb_user_do(&self->a, 'X', 0, 0, NULL));
		tb_drain(self->mgr, sizeof(struct tracebuf_mgr_msg));
	}
	/* 2 MiB of its own: the fifth is refused, for it alone */
	EXPECT_EQ(4, i);
	EXPECT_EQ(-EDQUOT, ret);
	EXPECT_EQ(0, mgr_initialize(self->mgr, b1, TRACEBUF_MODE_ONESHOT, 1 << 20, NULL,
				    NULL));
}

TEST_HARNESS_MAIN
