// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf privileges and visibility: who may attach as a manager
 * (CAP_PERFMON, CAP_SYS_ADMIN, the manager_gid group), what an
 * unprivileged process may still do, and pid namespaces (a manager sees
 * only providers of its namespace and below, with pids as it sees them).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>

#include "tracebuf_selftests.h"

#define TB_GID		4242	/* the manager group in these tests */
#define TB_OTHER_GID	4243

/* The errno of ATTACH on a file opened with the current credentials. */
static int tb_try_attach(void *arg)
{
	int fd = tb_open();

	(void)arg;
	if (fd < 0)
		return 110;
	return -attach_manager(fd, 0, NULL);
}

static int tb_try_register(void *arg)
{
	int fd = tb_open();
	__u32 id = 0;
	int ret;

	(void)arg;
	if (fd < 0)
		return 110;
	ret = register_provider(fd, "unprivileged", 0, &id);
	return ret ? -ret : (id ? 0 : 111);
}

static int tb_try_version(void *arg)
{
	struct tracebuf_version_args v;
	int fd = tb_open();

	(void)arg;
	if (fd < 0)
		return 110;
	return -tb_version(fd, &v);
}

/* Attach (through the group), list, and initialize provider *arg. */
static int tb_try_manage(void *arg)
{
	__u32 id = *(__u32 *)arg;
	struct tracebuf_provider_info info;
	int fd = tb_open(), ret;

	if (fd < 0)
		return 110;
	ret = attach_manager(fd, 0, NULL);
	if (ret)
		return -ret;
	if (mgr_find(fd, id, &info))
		return 112;
	ret = mgr_initialize(fd, id, TRACEBUF_MODE_ONESHOT, tb_buffer_min(),
			     NULL, NULL);
	return -ret;
}

FIXTURE(priv) {
	struct tb_param gid;
	int prov;
	__u32 id;
};

FIXTURE_SETUP(priv)
{
	memset(&self->gid, 0, sizeof(self->gid));
	self->prov = -1;
	TB_REQUIRE_DEV();
	/* start from the default: no manager group */
	ASSERT_EQ(0, tb_param_change(&self->gid, "manager_gid", -1));
}

FIXTURE_TEARDOWN(priv)
{
	tb_close(&self->prov);
	EXPECT_EQ(0, tb_param_restore(&self->gid));
}

TEST_F(priv, unprivileged_attach_eperm)
{
	struct tb_creds c = { TB_NOBODY, TB_NOBODY, 0, { 0 }, TB_NO_CAPS };

	EXPECT_EQ(EPERM, tb_run_as(&c, tb_try_attach, NULL));
}

TEST_F(priv, unprivileged_attach_leaves_file_usable)
{
	struct tb_creds c = { TB_NOBODY, TB_NOBODY, 0, { 0 }, TB_NO_CAPS };

	/* EPERM, then the same kind of file may still become a provider */
	EXPECT_EQ(EPERM, tb_run_as(&c, tb_try_attach, NULL));
	EXPECT_EQ(0, tb_run_as(&c, tb_try_register, NULL));
}

TEST_F(priv, unprivileged_register_allowed)
{
	struct tb_creds c = { TB_NOBODY, TB_NOBODY, 0, { 0 }, TB_NO_CAPS };

	EXPECT_EQ(0, tb_run_as(&c, tb_try_register, NULL));
}

TEST_F(priv, unprivileged_version_allowed)
{
	struct tb_creds c = { TB_NOBODY, TB_NOBODY, 0, { 0 }, TB_NO_CAPS };

	EXPECT_EQ(0, tb_run_as(&c, tb_try_version, NULL));
}

TEST_F(priv, cap_perfmon_alone_allows_attach)
{
	struct tb_creds c = { TB_NOBODY, TB_NOBODY, 0, { 0 },
			      { CAP_PERFMON, -1 } };

	EXPECT_EQ(0, tb_run_as(&c, tb_try_attach, NULL));
}

TEST_F(priv, cap_sys_admin_alone_allows_attach)
{
	struct tb_creds c = { TB_NOBODY, TB_NOBODY, 0, { 0 },
			      { CAP_SYS_ADMIN, -1 } };

	EXPECT_EQ(0, tb_run_as(&c, tb_try_attach, NULL));
}

TEST_F(priv, other_capabilities_do_not_allow_attach)
{
	struct tb_creds c = { TB_NOBODY, TB_NOBODY, 0, { 0 },
			      { CAP_SYS_PTRACE, CAP_NET_ADMIN } };

	EXPECT_EQ(EPERM, tb_run_as(&c, tb_try_attach, NULL));
}

TEST_F(priv, manager_gid_supplementary_group_allows_attach)
{
	struct tb_creds c = { TB_NOBODY, TB_NOBODY, 1, { TB_GID }, TB_NO_CAPS };

	ASSERT_EQ(0, tb_param_change(&self->gid, "manager_gid", TB_GID));
	EXPECT_EQ(0, tb_run_as(&c, tb_try_attach, NULL));
}

TEST_F(priv, manager_gid_primary_group_allows_attach)
{
	struct tb_creds c = { TB_NOBODY, TB_GID, 0, { 0 }, TB_NO_CAPS };

	ASSERT_EQ(0, tb_param_change(&self->gid, "manager_gid", TB_GID));
	EXPECT_EQ(0, tb_run_as(&c, tb_try_attach, NULL));
}

TEST_F(priv, manager_gid_other_group_eperm)
{
	struct tb_creds c = { TB_NOBODY, TB_OTHER_GID, 1, { TB_OTHER_GID },
			      TB_NO_CAPS };

	ASSERT_EQ(0, tb_param_change(&self->gid, "manager_gid", TB_GID));
	EXPECT_EQ(EPERM, tb_run_as(&c, tb_try_attach, NULL));
}

TEST_F(priv, manager_gid_unset_group_member_eperm)
{
	struct tb_creds c = { TB_NOBODY, TB_GID, 1, { TB_GID }, TB_NO_CAPS };

	/* manager_gid is -1 (set up by the fixture) */
	EXPECT_EQ(EPERM, tb_run_as(&c, tb_try_attach, NULL));
}

TEST_F(priv, manager_gid_change_applies_to_next_attach)
{
	struct tb_creds c = { TB_NOBODY, TB_NOBODY, 1, { TB_GID }, TB_NO_CAPS };

	ASSERT_EQ(0, tb_param_change(&self->gid, "manager_gid", TB_GID));
	EXPECT_EQ(0, tb_run_as(&c, tb_try_attach, NULL));
	ASSERT_EQ(0, tb_param_change(&self->gid, "manager_gid", -1));
	EXPECT_EQ(EPERM, tb_run_as(&c, tb_try_attach, NULL));
}

TEST_F(priv, group_manager_can_list_and_initialize)
{
	struct tb_creds c = { TB_NOBODY, TB_NOBODY, 1, { TB_GID }, TB_NO_CAPS };

	self->prov = tb_open_provider("root-owned", &self->id);
	ASSERT_LE(0, self->prov);
	ASSERT_EQ(0, tb_param_change(&self->gid, "manager_gid", TB_GID));
	EXPECT_EQ(0, tb_run_as(&c, tb_try_manage, &self->id));
	/* that manager is gone again */
	tb_next_pkt(_metadata, self->prov, TRACEBUF_PKT_MANAGER_GONE, NULL);
}

/* ------------------------------------------------------------------ */
/* pid namespaces                                                     */

/* Shared between the test and the processes in the namespaces. */
struct tb_ns_result {
	int skip_errno;		/* unshare() failed */
	int fail_line;		/* first failed check inside, 0 if none */
	long fail_value;
	__u32 id_in;		/* registered by G, init of namespace 1 */
	__u32 id_deep;		/* registered by K, in namespace 2 below */
	pid_t g_pid;		/* G in the test's namespace */
	pid_t k_pid_ns1;	/* K as G sees it */
	pid_t k_pid_root;	/* K as /proc (root namespace) sees it, or 0 */
};

#define NS_CHECK(res, cond, value) do {					\
	if (!(cond)) {							\
		if (!(res)->fail_line) {				\
			(res)->fail_line = __LINE__;			\
			(res)->fail_value = (long)(value);		\
		}							\
		goto out;						\
	}								\
} while (0)

/* K: a provider in a namespace below G's. */
static int tb_ns_deep(struct tb_ns_result *res, int ready_fd, int go_fd)
{
	char link[32] = "";
	__u32 id = 0;
	char c;
	int fd;

	fd = tb_open_provider("ns-deep", &id);
	if (fd < 0)
		return 1;
	res->id_deep = id;
	if (readlink("/proc/self", link, sizeof(link) - 1) > 0)
		res->k_pid_root = atoi(link);
	if (write(ready_fd, "k", 1) != 1)
		return 2;
	while (read(go_fd, &c, 1) > 0)
		;
	close(fd);
	return 0;
}

/* G: pid 1 of namespace 1, with a provider and a manager. */
static int tb_ns_init(struct tb_ns_result *res, __u32 id_out, int ready_fd,
		      int go_fd)
{
	struct tracebuf_provider_info info[8];
	__u32 count = 0, total = 0, i;
	int prov = -1, mgr = -1, kpipe[2] = { -1, -1 };
	pid_t k = -1;
	char c;

	NS_CHECK(res, getpid() == 1, getpid());
	prov = tb_open_provider("ns-init", &res->id_in);
	NS_CHECK(res, prov >= 0, prov);
	mgr = tb_open_manager(0, NULL);
	NS_CHECK(res, mgr >= 0, mgr);

	/* its own provider, with the pid it has here */
	NS_CHECK(res, mgr_find(mgr, res->id_in, &info[0]) == 0, res->id_in);
	NS_CHECK(res, info[0].pid == 1, info[0].pid);
	/* the outside provider does not exist for it */
	NS_CHECK(res, mgr_find(mgr, id_out, NULL) == -ESRCH, id_out);
	NS_CHECK(res, mgr_initialize(mgr, id_out, TRACEBUF_MODE_ONESHOT,
				     tb_buffer_min(), NULL, NULL) == -ESRCH, 0);
	NS_CHECK(res, mgr_start(mgr, id_out, TRACEBUF_START_RETAIN, NULL) ==
		 -ESRCH, 0);
	NS_CHECK(res, mgr_stop(mgr, id_out) == -ESRCH, 0);
	NS_CHECK(res, mgr_terminate(mgr, id_out) == -ESRCH, 0);
	NS_CHECK(res, mgr_buffer_saved(mgr, id_out, 0, 0) == -ESRCH, 0);
	NS_CHECK(res, mgr_list(mgr, 0, info, 8, &count, &total) == 0, 0);
	NS_CHECK(res, count == total && total == 1, total);
	NS_CHECK(res, info[0].id == res->id_in, info[0].id);

	/* a provider in a namespace below */
	NS_CHECK(res, unshare(CLONE_NEWPID) == 0, errno);
	NS_CHECK(res, pipe(kpipe) == 0, errno);
	k = fork();
	NS_CHECK(res, k >= 0, errno);
	if (k == 0) {
		close(kpipe[0]);
		_exit(tb_ns_deep(res, kpipe[1], go_fd));
	}
	close(kpipe[1]);
	kpipe[1] = -1;
	res->k_pid_ns1 = k;
	NS_CHECK(res, read(kpipe[0], &c, 1) == 1, 0);
	NS_CHECK(res, mgr_find(mgr, res->id_deep, &info[1]) == 0, res->id_deep);
	NS_CHECK(res, info[1].pid == (__u32)k, info[1].pid);
	NS_CHECK(res, mgr_list(mgr, 0, info, 8, &count, &total) == 0, 0);
	NS_CHECK(res, total == 2, total);
	for (i = 0; i < count; i++)
		NS_CHECK(res, info[i].id != id_out, info[i].id);
	/* and it controls what it sees */
	NS_CHECK(res, mgr_initialize(mgr, res->id_in, TRACEBUF_MODE_ONESHOT,
				     tb_buffer_min(), NULL, NULL) == 0, 0);
out:
	if (write(ready_fd, "g", 1) != 1)
		res->fail_line = res->fail_line ?: __LINE__;
	while (read(go_fd, &c, 1) > 0)
		;
	if (k > 0)
		tb_wait_child(k);
	if (kpipe[0] >= 0)
		close(kpipe[0]);
	if (mgr >= 0)
		close(mgr);
	if (prov >= 0)
		close(prov);
	return res->fail_line ? 1 : 0;
}

FIXTURE(pidns) {
	int prov;		/* outside, in the test's namespace */
	__u32 id_out;
	int mgr;		/* a manager in the test's namespace */
	struct tb_ns_result *res;
	int ready[2], go[2];
	pid_t middle;
};

FIXTURE_SETUP(pidns)
{
	struct pollfd pfd;
	pid_t g;
	char c;

	self->prov = self->mgr = -1;
	self->ready[0] = self->ready[1] = self->go[0] = self->go[1] = -1;
	self->middle = -1;
	self->res = MAP_FAILED;
	TB_REQUIRE_DEV();
	self->prov = tb_open_provider("ns-outside", &self->id_out);
	ASSERT_LE(0, self->prov);
	self->mgr = tb_open_manager(0, NULL);
	ASSERT_LE(0, self->mgr);
	self->res = mmap(NULL, sizeof(*self->res), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_MAPPED(self->res);
	memset(self->res, 0, sizeof(*self->res));
	ASSERT_EQ(0, pipe(self->ready));
	ASSERT_EQ(0, pipe(self->go));

	self->middle = fork();
	ASSERT_LE(0, self->middle);
	if (self->middle == 0) {
		close(self->ready[0]);
		close(self->go[1]);
		close(self->mgr);
		if (unshare(CLONE_NEWPID)) {
			self->res->skip_errno = errno;
			_exit(0);
		}
		g = fork();
		if (g < 0)
			_exit(2);
		if (g == 0)
			_exit(tb_ns_init(self->res, self->id_out,
					 self->ready[1], self->go[0]));
		self->res->g_pid = g;
		/* G's "ready" may come first: the test waits for both */
		if (write(self->ready[1], "m", 1) != 1)
			_exit(2);
		_exit(tb_wait_child(g));
	}
	close(self->ready[1]);
	self->ready[1] = -1;
	close(self->go[0]);
	self->go[0] = -1;
	pfd.fd = self->ready[0];
	pfd.events = POLLIN;
	/* G's checks are done, and the middle process stored G's pid */
	for (int n = 0; n < 2; n++) {
		ASSERT_EQ(1, poll(&pfd, 1, TB_TIMEOUT_MS));
		if (read(self->ready[0], &c, 1) != 1) {
			/* the middle process left: unshare() failed or G died */
			tb_wait_child(self->middle);
			self->middle = -1;
			if (self->res->skip_errno)
				TB_SKIP("unshare(CLONE_NEWPID): %s",
					strerror(self->res->skip_errno));
			ASSERT_TRUE(0) TH_LOG("the namespace init died");
		}
	}
}

FIXTURE_TEARDOWN(pidns)
{
	tb_close(&self->go[1]);
	if (self->middle > 0)
		tb_wait_child(self->middle);
	tb_close(&self->ready[0]);
	tb_close(&self->ready[1]);
	tb_close(&self->go[0]);
	tb_close(&self->mgr);
	tb_close(&self->prov);
	if (self->res != MAP_FAILED)
		munmap(self->res, sizeof(*self->res));
}

TEST_F(pidns, inner_manager_sees_only_its_namespace)
{
	EXPECT_EQ(0, self->res->fail_line)
		TH_LOG("check at priv_test.c:%d failed (value %ld)",
		       self->res->fail_line, self->res->fail_value);
}

TEST_F(pidns, outer_manager_sees_inner_provider_with_outer_pid)
{
	struct tracebuf_provider_info info;

	ASSERT_NE(0U, self->res->id_in);
	ASSERT_EQ(0, mgr_find(self->mgr, self->res->id_in, &info));
	EXPECT_EQ((__u32)self->res->g_pid, info.pid);
	EXPECT_NE(1U, info.pid);
	EXPECT_STREQ("ns-init", (char *)info.name);
}

TEST_F(pidns, outer_manager_sees_deeper_provider)
{
	struct tracebuf_provider_info info;

	ASSERT_NE(0U, self->res->id_deep);
	ASSERT_EQ(0, mgr_find(self->mgr, self->res->id_deep, &info));
	EXPECT_NE((__u32)self->res->k_pid_ns1, info.pid);
	if (self->res->k_pid_root) {
		EXPECT_EQ((__u32)self->res->k_pid_root, info.pid);
	}
}

TEST_F(pidns, outer_manager_sees_outside_provider)
{
	struct tracebuf_provider_info info;

	ASSERT_EQ(0, mgr_find(self->mgr, self->id_out, &info));
	EXPECT_EQ((__u32)getpid(), info.pid);
}

TEST_F(pidns, inner_initialize_owned_by_inner_manager)
{
	struct tracebuf_provider_info info;

	/* G initialized its own provider: from outside it is owned */
	ASSERT_EQ(0, self->res->fail_line);
	ASSERT_EQ(0, mgr_find(self->mgr, self->res->id_in, &info));
	EXPECT_EQ((__u32)TRACEBUF_STATE_INITIALIZED, info.state);
	EXPECT_NE(0U, info.manager_id);
	EXPECT_EQ(0U, info.flags & TRACEBUF_INFO_F_MINE);
	EXPECT_EQ(-EPERM, mgr_terminate(self->mgr, self->res->id_in));
}

TEST_HARNESS_MAIN
