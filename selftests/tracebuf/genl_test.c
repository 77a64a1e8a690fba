// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf's generic netlink family: resolving it, GET of one provider,
 * the dump of all (across several skbs), the attribute policy and its
 * extended ack messages, privileges, pid namespaces, and the "events"
 * multicast group (NEW, CHANGE, DEL over a provider's life).  Raw
 * netlink sockets: no library needed in the guest.
 */
#define _GNU_SOURCE
#include <sched.h>

#include "tracebuf_genl.h"

/* The next event of provider @id on a socket in the events group. */
static int nl_next_event(int fd, __u32 id, struct gprov *out)
{
	static char buf[65536];

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;
		int left;

		if (n < 0)
			return -errno;
		left = (int)n;
		for (h = (void *)buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			gprov_parse(h, out);
			if (out->id == id)
				return 0;
		}
	}
}

/* ------------------------------------------------------------------ */

FIXTURE(genl) {
	struct nl nl;
	int prov, mgr;
	__u32 id, mgr_id;
};

FIXTURE_SETUP(genl)
{
	self->prov = self->mgr = -1;
	ASSERT_EQ(0, nl_open(&self->nl)) {
		TH_LOG("generic netlink family %s not found", TRACEBUF_GENL_NAME);
	}
}

FIXTURE_TEARDOWN(genl)
{
	tb_close(&self->prov);
	tb_close(&self->mgr);
	nl_close(&self->nl);
}

TEST_F(genl, family_and_feature)
{
	struct tracebuf_version_args v;
	int fd = tb_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tb_version(fd, &v));
	EXPECT_EQ(TRACEBUF_FEAT_GENL, v.features & TRACEBUF_FEAT_GENL);
	close(fd);
	EXPECT_EQ((__u32)TRACEBUF_GENL_VERSION, self->nl.version);
	EXPECT_NE(0U, self->nl.events);
}

TEST_F(genl, get_registered_provider)
{
	struct gprov g;

	self->prov = tb_open_provider("genl-one", &self->id);
	ASSERT_LE(0, self->prov);
	ASSERT_EQ(0, nl_get(&self->nl, self->id, &g));
	EXPECT_EQ(TRACEBUF_CMD_PROVIDER_GET, g.cmd);
	EXPECT_EQ(self->id, g.id);
	EXPECT_EQ((__u32)getpid(), g.pid);
	EXPECT_STREQ("genl-one", g.name);
	EXPECT_EQ((__u32)TRACEBUF_STATE_REGISTERED, g.state);
	EXPECT_EQ(0U, g.manager);
	EXPECT_FALSE(g.has_mode);
	EXPECT_FALSE(g.has_size);
}

TEST_F(genl, get_initialized_provider_and_its_counters)
{
	struct tracebuf_buffer_header *h;
	struct gprov g;

	self->prov = tb_open_provider("genl-init", &self->id);
	ASSERT_LE(0, self->prov);
	self->mgr = tb_open_manager(0, &self->mgr_id);
	ASSERT_LE(0, self->mgr);
	ASSERT_EQ(0, mgr_initialize(self->mgr, self->id, TRACEBUF_MODE_CIRCULAR,
				    64 * 1024, NULL, NULL));
	ASSERT_EQ(0, nl_get(&self->nl, self->id, &g));
	EXPECT_EQ((__u32)TRACEBUF_STATE_INITIALIZED, g.state);
	EXPECT_EQ(self->mgr_id, g.manager);
	EXPECT_TRUE(g.has_mode);
	EXPECT_EQ((__u32)TRACEBUF_MODE_CIRCULAR, g.mode);
	EXPECT_EQ(64ULL * 1024, g.size);
	EXPECT_TRUE(g.has_dropped);
	EXPECT_EQ(0ULL, g.dropped);
	EXPECT_EQ(1ULL, g.received);	/* INITIALIZE */

	/* what the provider claims in its header */
	h = mmap(NULL, 64 * 1024, PROT_READ | PROT_WRITE, MAP_SHARED, self->prov, 0);
	ASSERT_TRUE(h != MAP_FAILED);
	h->num_records_dropped = 77;
	ASSERT_EQ(0, nl_get(&self->nl, self->id, &g));
	EXPECT_EQ(77ULL, g.dropped);
	/* a claim no provider could make is not reported */
	h->num_records_dropped = ~0ULL;
	ASSERT_EQ(0, nl_get(&self->nl, self->id, &g));
	EXPECT_FALSE(g.has_dropped);
	munmap(h, 64 * 1024);
}

/* Enough providers that the dump takes several skbs: each once, by id. */
TEST_F(genl, dump_lists_every_provider_once)
{
	static struct dump d;
	int fds[300];
	__u32 ids[300] = { 0 };
	unsigned int i, found = 0;
	__u32 last = 0;

	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		char name[32];

		snprintf(name, sizeof(name), "genl-dump-%u", i);
		fds[i] = tb_open_provider(name, &ids[i]);
		ASSERT_LE(0, fds[i]);
	}
	ASSERT_EQ(0, nl_dump(&self->nl, &d));
	for (i = 0; i < d.n; i++) {
		EXPECT_LT(last, d.p[i].id);
		last = d.p[i].id;
	}
	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		const struct gprov *g = dump_find(&d, ids[i]);

		if (g && g->pid == (__u32)getpid() && !strncmp(g->name, "genl-dump-", 10))
			found++;
		close(fds[i]);
	}
	EXPECT_EQ(ARRAY_SIZE(fds), found);
	TH_LOG("%u providers in the dump", d.n);
}

/*
 * A dump that reaches the last id, U32_MAX, ends there: once each, no
 * wrap to 0.  (On a 32-bit kernel U32_MAX is ULONG_MAX, once the dump's
 * "done" mark.)
 */
TEST_F(genl, dump_ends_at_the_last_id)
{
	static struct dump d;
	unsigned int i, seen[2] = { 0 };
	int fds[2];
	__u32 id;

	ASSERT_EQ(0, tb_param_set_path("/sys/kernel/debug/tracebuf/next_provider_id",
				       0xfffffffeLL))
		TH_LOG("no debugfs knob");
	for (i = 0; i < 2; i++) {
		fds[i] = tb_open_provider("genl-last", &id);
		ASSERT_LE(0, fds[i]);
		ASSERT_EQ(0xfffffffeU + i, id);
	}
	ASSERT_EQ(0, nl_dump(&self->nl, &d));
	for (i = 0; i < d.n; i++)
		if (d.p[i].id >= 0xfffffffeU)
			seen[d.p[i].id - 0xfffffffeU]++;
	EXPECT_EQ(1U, seen[0]);
	EXPECT_EQ(1U, seen[1]);
	for (i = 0; i < 2; i++)
		close(fds[i]);
}

TEST_F(genl, unknown_provider_is_enoent_with_message)
{
	struct gprov g;

	EXPECT_EQ(-ENOENT, nl_get(&self->nl, 0x7fffffff, &g));
	EXPECT_STREQ("no such provider", self->nl.err);
}

TEST_F(genl, missing_id_is_einval)
{
	struct req r;

	req_init(&r, self->nl.family, 0, TRACEBUF_CMD_PROVIDER_GET, TRACEBUF_GENL_VERSION);
	EXPECT_EQ(-EINVAL, nl_transact(&self->nl, &r, NULL, NULL));
}

/* Out of the policy's range: netlink answers ERANGE. */
TEST_F(genl, zero_id_is_erange)
{
	struct gprov g;

	EXPECT_EQ(-ERANGE, nl_get(&self->nl, 0, &g));
}

TEST_F(genl, short_id_is_einval)
{
	struct req r;
	__u16 id = 1;

	req_init(&r, self->nl.family, 0, TRACEBUF_CMD_PROVIDER_GET, TRACEBUF_GENL_VERSION);
	req_put(&r, TRACEBUF_A_ID, &id, sizeof(id));
	EXPECT_EQ(-EINVAL, nl_transact(&self->nl, &r, NULL, NULL));
}

TEST_F(genl, unexpected_attribute_is_einval)
{
	struct req r;
	__u32 id = 1;

	req_init(&r, self->nl.family, 0, TRACEBUF_CMD_PROVIDER_GET, TRACEBUF_GENL_VERSION);
	req_put(&r, TRACEBUF_A_ID, &id, 4);
	req_put(&r, TRACEBUF_A_NAME, "x", 2);
	EXPECT_EQ(-EINVAL, nl_transact(&self->nl, &r, NULL, NULL));
	req_init(&r, self->nl.family, 0, TRACEBUF_CMD_PROVIDER_GET, TRACEBUF_GENL_VERSION);
	req_put(&r, TRACEBUF_A_ID, &id, 4);
	req_put(&r, TRACEBUF_A_MAX + 5, &id, 4);
	EXPECT_EQ(-EINVAL, nl_transact(&self->nl, &r, NULL, NULL));
}

TEST_F(genl, unknown_command_is_refused)
{
	struct req r;

	req_init(&r, self->nl.family, 0, TRACEBUF_CMD_PROVIDER_NEW, TRACEBUF_GENL_VERSION);
	EXPECT_EQ(-EOPNOTSUPP, nl_transact(&self->nl, &r, NULL, NULL));
}

/* The events group: NEW, CHANGE (initialize, manager gone), DEL. */
TEST_F(genl, events_follow_a_provider)
{
	struct gprov g;
	__u32 grp = self->nl.events;
	int ev = nl_socket();

	ASSERT_LE(0, ev);
	ASSERT_EQ(0, setsockopt(ev, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)));
	self->prov = tb_open_provider("genl-events", &self->id);
	ASSERT_LE(0, self->prov);
	ASSERT_EQ(0, nl_next_event(ev, self->id, &g));
	EXPECT_EQ(TRACEBUF_CMD_PROVIDER_NEW, g.cmd);
	EXPECT_STREQ("genl-events", g.name);
	EXPECT_EQ((__u32)getpid(), g.pid);

	self->mgr = tb_open_manager(0, &self->mgr_id);
	ASSERT_LE(0, self->mgr);
	ASSERT_EQ(0, mgr_initialize(self->mgr, self->id, TRACEBUF_MODE_ONESHOT,
				    64 * 1024, NULL, NULL));
	ASSERT_EQ(0, nl_next_event(ev, self->id, &g));
	EXPECT_EQ(TRACEBUF_CMD_PROVIDER_CHANGE, g.cmd);
	EXPECT_EQ((__u32)TRACEBUF_STATE_INITIALIZED, g.state);
	EXPECT_EQ(self->mgr_id, g.manager);
	EXPECT_EQ(64ULL * 1024, g.size);

	/* the manager goes: back to REGISTERED, unowned */
	tb_close(&self->mgr);
	ASSERT_EQ(0, nl_next_event(ev, self->id, &g));
	EXPECT_EQ(TRACEBUF_CMD_PROVIDER_CHANGE, g.cmd);
	EXPECT_EQ((__u32)TRACEBUF_STATE_REGISTERED, g.state);
	EXPECT_EQ(0U, g.manager);
	EXPECT_FALSE(g.has_size);

	tb_close(&self->prov);
	ASSERT_EQ(0, nl_next_event(ev, self->id, &g));
	EXPECT_EQ(TRACEBUF_CMD_PROVIDER_DEL, g.cmd);
	EXPECT_STREQ("genl-events", g.name);
	close(ev);
}

/* ------------------------------------------------------------------ */
/* Privileges                                                         */

/* What an unprivileged process gets: GET, dump, joining the group. */
static int tb_unprivileged_genl(void *arg)
{
	static struct dump d;
	__u32 id = *(__u32 *)arg;
	struct gprov g;
	struct nl nl;
	__u32 grp;

	if (nl_open(&nl))
		return 120;
	grp = nl.events;
	if (nl_get(&nl, id, &g) != -EPERM)
		return 121;
	if (!strstr(nl.err, "CAP_PERFMON"))
		return 122;
	if (nl_dump(&nl, &d) != -EPERM || d.n)
		return 123;
	if (!setsockopt(nl.fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)) ||
	    errno != EPERM)
		return 124;
	return 0;
}

/* CAP_PERFMON may read the registry, but not join the global group. */
static int tb_perfmon_genl(void *arg)
{
	__u32 id = *(__u32 *)arg;
	struct gprov g;
	struct nl nl;
	__u32 grp;

	if (nl_open(&nl))
		return 120;
	grp = nl.events;
	if (nl_get(&nl, id, &g) || g.id != id)
		return 121;
	if (!setsockopt(nl.fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)))
		return 122;
	return 0;
}

TEST_F(genl, unprivileged_is_refused)
{
	struct tb_creds c = { TB_NOBODY, TB_NOBODY, 0, { 0 }, TB_NO_CAPS };

	self->prov = tb_open_provider("genl-priv", &self->id);
	ASSERT_LE(0, self->prov);
	EXPECT_EQ(0, tb_run_as(&c, tb_unprivileged_genl, &self->id));
}

TEST_F(genl, perfmon_reads_the_registry)
{
	struct tb_creds c = { TB_NOBODY, TB_NOBODY, 0, { 0 }, { CAP_PERFMON, -1 } };

	self->prov = tb_open_provider("genl-perfmon", &self->id);
	ASSERT_LE(0, self->prov);
	EXPECT_EQ(0, tb_run_as(&c, tb_perfmon_genl, &self->id));
}

/* ------------------------------------------------------------------ */
/* pid namespaces                                                     */

/* pid 1 of a new namespace: sees its own provider only, as pid 1. */
static int tb_ns_genl(__u32 outside)
{
	static struct dump d;
	struct gprov g;
	struct nl nl;
	__u32 id = 0;
	int fd;

	if (getpid() != 1)
		return 130;
	fd = tb_open_provider("genl-ns", &id);
	if (fd < 0)
		return 131;
	if (nl_open(&nl))
		return 132;
	if (nl_get(&nl, outside, &g) != -ENOENT)
		return 133;
	if (nl_get(&nl, id, &g) || g.pid != 1)
		return 134;
	if (nl_dump(&nl, &d) || dump_find(&d, outside) || !dump_find(&d, id))
		return 135;
	for (unsigned int i = 0; i < d.n; i++)
		if (d.p[i].pid == 0)
			return 136;
	return 0;
}

TEST_F(genl, pid_namespace_sees_its_own)
{
	pid_t pid;

	self->prov = tb_open_provider("genl-outside", &self->id);
	ASSERT_LE(0, self->prov);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		pid_t inner;

		if (unshare(CLONE_NEWPID))
			_exit(errno == EINVAL || errno == EPERM ? 200 : 201);
		inner = fork();
		if (inner < 0)
			_exit(202);
		if (!inner)
			_exit(tb_ns_genl(self->id));
		_exit(tb_wait_child(inner));
	}
	EXPECT_EQ(0, tb_wait_child(pid));
}

/*
 * A socket opened unprivileged and handed to a privileged program (as a
 * standard descriptor, say) does not read the registry: the opener's
 * credentials count as well as the sender's.
 */
static int tb_open_nl_as_nobody(void *arg)
{
	int *sv = arg;
	struct nl nl;
	char c = 0;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	if (nl_open(&nl))
		return 140;
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &nl.fd, sizeof(int));
	return sendmsg(sv[1], &mh, 0) == 1 ? 0 : 141;
}

TEST_F(genl, socket_of_an_unprivileged_opener_is_refused)
{
	struct tb_creds c = { TB_NOBODY, TB_NOBODY, 0, { 0 }, TB_NO_CAPS };
	static struct dump d;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	char ch;
	struct iovec iov = { .iov_base = &ch, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct gprov g;
	struct nl nl = self->nl;
	int sv[2];

	self->prov = tb_open_provider("genl-opener", &self->id);
	ASSERT_LE(0, self->prov);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv));
	ASSERT_EQ(0, tb_run_as(&c, tb_open_nl_as_nobody, sv));
	ASSERT_EQ(1, recvmsg(sv[0], &mh, 0));
	memcpy(&nl.fd, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(int));
	close(sv[0]);
	close(sv[1]);
	/* root sends, nobody opened */
	EXPECT_EQ(-EPERM, nl_get(&nl, self->id, &g));
	EXPECT_EQ(-EPERM, nl_dump(&nl, &d));
	close(nl.fd);
}

/*
 * A dump read in parts by different tasks keeps the view it was asked
 * with: its second part, read by pid 1 of a new pid namespace, still
 * lists every provider, with the pids of the namespace that asked.
 */
static int tb_dump_rest(struct nl *nl, __u32 seq, unsigned int *n, unsigned int *nopid)
{
	static char buf[65536];

	for (;;) {
		ssize_t len = recv(nl->fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;
		int left;

		if (len < 0)
			return -errno;
		left = (int)len;
		for (h = (void *)buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			struct gprov g;

			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			gprov_parse(h, &g);
			(*n)++;
			*nopid += g.pid == 0;
		}
	}
}

TEST_F(genl, dump_keeps_its_view_across_readers)
{
	static char buf[65536];
	struct nlmsghdr *nlh;
	struct nl nl;
	struct req r;
	int fds[300], first = 0, left;
	unsigned int i;
	size_t part;
	ssize_t len;
	pid_t pid;

	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		fds[i] = tb_open_provider("genl-view", NULL);
		ASSERT_LE(0, fds[i]);
	}
	/*
	 * A fresh socket, which never received more than a part: the dump's
	 * parts are then at most NLMSG_GOODSIZE, a page but 8 KiB at most
	 * (less overhead).  One part is read here, whole (MSG_TRUNC: its
	 * real length), since what does not fit is lost.
	 */
	part = tb_page_size() < 8192 ? tb_page_size() : 8192;
	nl = self->nl;
	nl.fd = nl_socket();
	ASSERT_LE(0, nl.fd);
	req_init(&r, nl.family, NLM_F_DUMP, TRACEBUF_CMD_PROVIDER_GET,
		 TRACEBUF_GENL_VERSION);
	nlh = (void *)r.buf;
	nlh->nlmsg_len = r.len;
	nlh->nlmsg_seq = ++nl.seq;
	ASSERT_EQ((ssize_t)r.len, send(nl.fd, r.buf, r.len, 0));
	len = recv(nl.fd, buf, part, MSG_TRUNC);
	ASSERT_LT(0, len);
	ASSERT_GE((ssize_t)part, len) TH_LOG("a part of %zd bytes", len);
	left = (int)len;
	for (nlh = (void *)buf; NLMSG_OK(nlh, left); nlh = NLMSG_NEXT(nlh, left))
		first += nlh->nlmsg_type == nl.family;
	ASSERT_GT((int)ARRAY_SIZE(fds), first) TH_LOG("the dump fit in one part");
	/* the rest by pid 1 of a new namespace, which sees none of them */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		pid_t inner;

		if (unshare(CLONE_NEWPID))
			_exit(200);
		inner = fork();
		if (inner < 0)
			_exit(201);
		if (!inner) {
			unsigned int n = first, nopid = 0;

			if (tb_dump_rest(&nl, nl.seq, &n, &nopid))
				_exit(202);
			printf("# first part %d, %u in all, %u without a pid\n", first, n, nopid);
			fflush(stdout);
			_exit(n >= ARRAY_SIZE(fds) && !nopid ? 0 : 203);
		}
		_exit(tb_wait_child(inner));
	}
	EXPECT_EQ(0, tb_wait_child(pid));
	close(nl.fd);
	for (i = 0; i < ARRAY_SIZE(fds); i++)
		close(fds[i]);
}

TEST_HARNESS_MAIN
