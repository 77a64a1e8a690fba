// SPDX-License-Identifier: GPL-2.0
/*
 * One user cannot exhaust the others, where that needs kernel features
 * the debug kernel of this project lacks (scripts/check.sh runs this
 * program on Debian's kernels only; it fails, saying which, where a
 * feature is missing): what a provider makes the kernel allocate is
 * charged to its memory cgroup.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "tracebuf_selftests.h"

/* ------------------------------------------------------------------ */
/* Memory cgroups                                                     */

#define TB_CG_ROOT	"/sys/fs/cgroup"

static int tb_cg_write(const char *dir, const char *file, const char *val)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static long long tb_cg_read(const char *dir, const char *file, const char *key)
{
	char path[256], line[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t klen = key ? strlen(key) : 0;

		if (!key) {
			v = atoll(line);
			break;
		}
		if (!strncmp(line, key, klen) && line[klen] == ' ') {
			v = atoll(line + klen + 1);
			break;
		}
	}
	fclose(f);
	return v;
}

FIXTURE(memcg) {
	char dir[128];
	struct tb_param user_mem, user_provs, providers;
};

FIXTURE_SETUP(memcg)
{
	memset(self, 0, sizeof(*self));
	TB_REQUIRE_DEV();
	if (access(TB_CG_ROOT "/cgroup.controllers", F_OK))
		ASSERT_EQ(0, mount("none", TB_CG_ROOT, "cgroup2", 0, NULL))
			TH_LOG("mount cgroup2: %s (no cgroups in this kernel?)",
			       strerror(errno));
	ASSERT_EQ(0, tb_cg_write(TB_CG_ROOT, "cgroup.subtree_control", "+memory"))
		TH_LOG("no memory controller in this kernel");
	snprintf(self->dir, sizeof(self->dir), TB_CG_ROOT "/tracebuf-%d", getpid());
	ASSERT_EQ(0, mkdir(self->dir, 0755));
	ASSERT_EQ(0, tb_cg_write(self->dir, "memory.max", "32M"));
	/* the per-user shares out of the way: the cgroup is what is tested */
	ASSERT_EQ(0, tb_param_change(&self->user_mem, "max_user_memory", 1LL << 30));
	ASSERT_EQ(0, tb_param_change(&self->user_provs, "max_user_providers", 1024));
	ASSERT_EQ(0, tb_param_change(&self->providers, "max_providers", 1024));
}

FIXTURE_TEARDOWN(memcg)
{
	if (self->dir[0])
		rmdir(self->dir);
	EXPECT_EQ(0, tb_param_restore(&self->user_mem));
	EXPECT_EQ(0, tb_param_restore(&self->user_provs));
	EXPECT_EQ(0, tb_param_restore(&self->providers));
}

/* 5000 pairs of a 100-byte name and a 399-byte description: ~2.5 MB. */
static int tb_publish_big(int fd)
{
	static char blob[5000 * 501];
	struct tracebuf_known_args a = {
		.categories_ptr = (uintptr_t)blob, .categories_size = sizeof(blob),
		.categories_count = 5000,
	};
	size_t off = 0;

	for (int i = 0; i < 5000; i++) {
		snprintf(blob + off, 102, "%0100d", i);
		off += 101;
		memset(blob + off, 'd', 399);
		off += 399;
		blob[off++] = 0;
	}
	return tb_ioctl(fd, TRACEBUF_IOC_PROVIDER_SET_CATEGORIES, &a);
}

/*
 * Nobody, in a cgroup capped at 32 MB, registers 100 providers that each
 * publish 2.5 MB of categories.  Charged to the cgroup, that fails (or
 * the cgroup's OOM killer ends it) long before 250 MB; uncharged, it all
 * fits and the host pays.
 */
TEST_F(memcg, categories_charged_to_the_cgroup)
{
	struct tb_creds c = { TB_NOBODY, TB_NOBODY, 0, { 0 }, TB_NO_CAPS };
	int pfd[2], got = -1, status;
	char pid[16];
	pid_t child;

	ASSERT_EQ(0, pipe(pfd));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		int i;

		close(pfd[0]);
		snprintf(pid, sizeof(pid), "%d", getpid());
		if (tb_cg_write(self->dir, "cgroup.procs", pid) || tb_become(&c))
			_exit(1);
		for (i = 0; i < 100; i++) {
			__u32 id;
			int fd = tb_open_provider("memcg", &id);

			if (fd < 0 || tb_publish_big(fd))
				break;
		}
		if (write(pfd[1], &i, sizeof(i)) != sizeof(i))
			_exit(1);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], &got, sizeof(got)) != sizeof(got))
		got = -1;	/* the cgroup's OOM killer ended it */
	close(pfd[0]);
	ksft_print_msg("%d providers of 2.5 MB each; cgroup peak %lld bytes, %lld OOM kills\n",
		       got, tb_cg_read(self->dir, "memory.peak", NULL),
		       tb_cg_read(self->dir, "memory.events", "oom_kill"));
	fflush(stdout);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	EXPECT_GT(100, got) TH_LOG("250 MB of categories in a 32 MB cgroup: not charged");
	EXPECT_LE(16LL << 20, tb_cg_read(self->dir, "memory.peak", NULL));
}

#define TB_FOOTPRINT_N	1000

/* One byte through a pipe: 0, or -1 when the other side is gone. */
static int tb_pipe_byte(int fd, bool send)
{
	char c = 'x';

	return (send ? write(fd, &c, 1) : read(fd, &c, 1)) == 1 ? 0 : -1;
}

/*
 * Join the cgroup, allow 4096 files, become creds (NULL: stay root).
 * 0 or -1.
 */
static int tb_footprint_enter(const char *dir, const struct tb_creds *c)
{
	struct rlimit rl = { 4096, 4096 };
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", getpid());
	if (tb_cg_write(dir, "cgroup.procs", pid) || setrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	return c && tb_become(c) ? -1 : 0;
}

/*
 * What the kernel holds for 1000 providers of one user, idle and then
 * initialized (smallest buffers: 4 KiB, or a page where pages are larger;
 * by a manager in the same cgroup), measured as the growth of the
 * cgroup's memory.current, which counts every accounted kernel allocation
 * (the module's, and the files, fds and VMAs the kernel makes for them);
 * the buffers' pages are taken out.  Per-CPU charge batching (in pages)
 * makes it exact to about 0.5 KiB per provider with 4 KiB pages, 2 KiB
 * with 16 KiB ones.  The bounds are generous: this guards against a
 * regression by an order of magnitude and prints the figures.
 */
TEST_F(memcg, footprint_of_1000_providers)
{
	struct tb_creds c = { TB_NOBODY, TB_NOBODY, 0, { 0 }, TB_NO_CAPS };
	int to_prov[2], from_prov[2], to_mgr[2], from_mgr[2];
	long long size = (long long)tb_buffer_min();
	long long cur[4], idle, init;
	pid_t prov, mgr;

	ASSERT_EQ(0, tb_cg_write(self->dir, "memory.max", "256M"));
	ASSERT_EQ(0, pipe(to_prov));
	ASSERT_EQ(0, pipe(from_prov));
	ASSERT_EQ(0, pipe(to_mgr));
	ASSERT_EQ(0, pipe(from_mgr));
	prov = fork();
	ASSERT_LE(0, prov);
	if (prov == 0) {
		int i;

		if (tb_footprint_enter(self->dir, &c) || tb_pipe_byte(from_prov[1], true) ||
		    tb_pipe_byte(to_prov[0], false))
			_exit(1);
		for (i = 0; i < TB_FOOTPRINT_N; i++) {
			__u32 id;

			if (tb_open_provider("footprint", &id) < 0)
				_exit(2);
		}
		tb_pipe_byte(from_prov[1], true);
		tb_pipe_byte(to_prov[0], false);	/* until told to go */
		_exit(0);
	}
	ASSERT_EQ(0, tb_pipe_byte(from_prov[0], false));
	tb_msleep(200);
	cur[0] = tb_cg_read(self->dir, "memory.current", NULL);
	ASSERT_EQ(0, tb_pipe_byte(to_prov[1], true));
	ASSERT_EQ(0, tb_pipe_byte(from_prov[0], false)) TH_LOG("REGISTER failed");
	tb_msleep(200);
	cur[1] = tb_cg_read(self->dir, "memory.current", NULL);

	mgr = fork();
	ASSERT_LE(0, mgr);
	if (mgr == 0) {
		struct tracebuf_provider_info info[64];
		__u32 start = 0, n = 0, mid;
		int fd;

		if (tb_footprint_enter(self->dir, NULL))
			_exit(1);
		fd = tb_open_manager(0, &mid);
		if (fd < 0 || tb_pipe_byte(from_mgr[1], true) ||
		    tb_pipe_byte(to_mgr[0], false))
			_exit(1);
		for (;;) {
			__u32 got = 0;

			if (mgr_list(fd, start, info, 64, &got, NULL) || !got)
				break;
			for (__u32 i = 0; i < got; i++) {
				start = info[i].id + 1;
				if (strcmp((char *)info[i].name, "footprint"))
					continue;
				/* the handles stay open: part of the cost */
				if (mgr_initialize(fd, info[i].id, TRACEBUF_MODE_ONESHOT,
						   size, NULL, &(int){ 0 }))
					_exit(3);
				n++;
			}
		}
		if (n != TB_FOOTPRINT_N)
			_exit(4);
		tb_pipe_byte(from_mgr[1], true);
		tb_pipe_byte(to_mgr[0], false);
		_exit(0);
	}
	ASSERT_EQ(0, tb_pipe_byte(from_mgr[0], false));
	tb_msleep(200);
	cur[2] = tb_cg_read(self->dir, "memory.current", NULL);
	ASSERT_EQ(0, tb_pipe_byte(to_mgr[1], true));
	EXPECT_EQ(0, tb_pipe_byte(from_mgr[0], false)) TH_LOG("INITIALIZE failed");
	tb_msleep(200);
	cur[3] = tb_cg_read(self->dir, "memory.current", NULL);

	/* let them go (each child holds copies of every pipe: no EOF) */
	EXPECT_EQ(0, tb_pipe_byte(to_prov[1], true));
	EXPECT_EQ(0, tb_pipe_byte(to_mgr[1], true));
	EXPECT_EQ(0, tb_wait_child(prov));
	EXPECT_EQ(0, tb_wait_child(mgr));

	ksft_print_msg("memory.current: %lld, %lld registered, %lld, %lld initialized\n",
		       cur[0], cur[1], cur[2], cur[3]);
	idle = cur[1] - cur[0];
	init = cur[3] - cur[2] - TB_FOOTPRINT_N * size;
	ksft_print_msg("%d providers of one user: idle %lld bytes (%lld per provider); "
		       "initialized, beyond their %lld KiB of buffers, %lld more (%lld per provider)\n",
		       TB_FOOTPRINT_N, idle, idle / TB_FOOTPRINT_N,
		       TB_FOOTPRINT_N * size / 1024, init, init / TB_FOOTPRINT_N);
	fflush(stdout);
	EXPECT_LT(idle, TB_FOOTPRINT_N * 16384LL);
	EXPECT_LT(init, TB_FOOTPRINT_N * 32768LL);
	EXPECT_LT(0, idle) TH_LOG("providers charged nothing to the cgroup");
}

TEST_HARNESS_MAIN
