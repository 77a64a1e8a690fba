// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf notifications: poll() and blocking read() woken by a message
 * queued from another thread or process, interruptible waits, the
 * eventfd of each side (one count per message, one when bound while
 * messages wait, replace, unregister, reference held by the kernel), and
 * MSG_REGISTRY for watchers.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>

#include "tracebuf_selftests.h"

/* The eventfd's count (0 if nothing was signalled); efd is nonblocking. */
static __u64 tb_efd_count(int efd)
{
	__u64 v = 0;

	if (read(efd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

static int tb_eventfd(void)
{
	return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

FIXTURE(notify) {
	struct tb_peer p;
	int efd;
	int efd2;
};

FIXTURE_SETUP(notify)
{
	tb_peer_init(&self->p);
	self->efd = self->efd2 = -1;
	TB_REQUIRE_DEV();
	tb_peer_open(_metadata, &self->p, "notify", 0);
	self->efd = tb_eventfd();
	ASSERT_LE(0, self->efd);
	self->efd2 = tb_eventfd();
	ASSERT_LE(0, self->efd2);
}

FIXTURE_TEARDOWN(notify)
{
	tb_peer_close(&self->p);
	tb_close(&self->efd);
	tb_close(&self->efd2);
}

/* ------------------------------------------------------------------ */
/* poll                                                               */

TEST_F(notify, provider_pollin_only_while_queued)
{
	struct tracebuf_pkt pkt;

	EXPECT_EQ(0, tb_pending(self->p.prov));
	ASSERT_EQ(0, mgr_initialize(self->p.mgr, self->p.id,
				    TRACEBUF_MODE_ONESHOT, tb_buffer_min(), NULL,
				    &self->p.buf_fd));
	EXPECT_EQ(1, tb_pending(self->p.prov));
	ASSERT_EQ(0, tb_read_pkt(self->p.prov, &pkt, 0));
	EXPECT_EQ(0, tb_pending(self->p.prov));
}

TEST_F(notify, manager_pollin_only_while_queued)
{
	struct tracebuf_mgr_msg msg;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTING);
	EXPECT_EQ(0, tb_pending(self->p.mgr));
	ASSERT_EQ(0, provider_started(self->p.prov));
	EXPECT_EQ(1, tb_pending(self->p.mgr));
	ASSERT_EQ(0, tb_read_msg(self->p.mgr, &msg, 0));
	EXPECT_EQ(0, tb_pending(self->p.mgr));
}

TEST_F(notify, epoll_reports_provider_message)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->p.prov, &ev));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	ASSERT_EQ(0, mgr_initialize(self->p.mgr, self->p.id,
				    TRACEBUF_MODE_ONESHOT, tb_buffer_min(), NULL,
				    &self->p.buf_fd));
	EXPECT_EQ(1, epoll_wait(ep, &out, 1, TB_TIMEOUT_MS));
	EXPECT_EQ((__u32)EPOLLIN, out.events & EPOLLIN);
	close(ep);
}

/* A thread blocked in poll() or read() on one file. */
struct tb_waiter {
	int fd;
	bool use_read;
	size_t len;		/* record size for read() */
	pid_t tid;
	int ret;		/* poll(): revents; read(): bytes or -errno */
	char rec[64];
	pthread_t thread;
};

static void *tb_waiter_fn(void *arg)
{
	struct tb_waiter *w = arg;
	struct pollfd pfd = { .fd = w->fd, .events = POLLIN };
	ssize_t n;

	__atomic_store_n(&w->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	if (w->use_read) {
		n = read(w->fd, w->rec, w->len);
		w->ret = n < 0 ? -errno : (int)n;
	} else {
		w->ret = poll(&pfd, 1, TB_TIMEOUT_MS) == 1 ? pfd.revents : 0;
	}
	return NULL;
}

/* Start a waiter and return once it sleeps in the kernel. */
static void tb_waiter_start(struct __test_metadata *_metadata,
			    struct tb_waiter *w, int fd, bool use_read,
			    size_t len)
{
	pid_t tid;
	int ms;

	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->use_read = use_read;
	w->len = len;
	ASSERT_EQ(0, pthread_create(&w->thread, NULL, tb_waiter_fn, w));
	for (ms = 0; ms < TB_TIMEOUT_MS; ms++) {
		tid = __atomic_load_n(&w->tid, __ATOMIC_ACQUIRE);
		if (tid)
			break;
		tb_msleep(1);
	}
	ASSERT_NE(0, tid);
	tb_wait_sleeping(getpid(), tid, TB_TIMEOUT_MS);
}

TEST_F(notify, provider_poll_woken_by_initialize)
{
	struct tb_waiter w;

	tb_waiter_start(_metadata, &w, self->p.prov, false, 0);
	ASSERT_EQ(0, mgr_initialize(self->p.mgr, self->p.id,
				    TRACEBUF_MODE_ONESHOT, tb_buffer_min(), NULL,
				    &self->p.buf_fd));
	ASSERT_EQ(0, pthread_join(w.thread, NULL));
	EXPECT_EQ(POLLIN, w.ret & POLLIN);
}

TEST_F(notify, manager_poll_woken_by_packet)
{
	struct tb_waiter w;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTING);
	tb_waiter_start(_metadata, &w, self->p.mgr, false, 0);
	ASSERT_EQ(0, provider_started(self->p.prov));
	ASSERT_EQ(0, pthread_join(w.thread, NULL));
	EXPECT_EQ(POLLIN, w.ret & POLLIN);
}

TEST_F(notify, manager_poll_in_other_process_woken)
{
	struct pollfd pfd = { .fd = self->p.mgr, .events = POLLIN };
	pid_t pid;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTING);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(poll(&pfd, 1, TB_TIMEOUT_MS) == 1 &&
		      (pfd.revents & POLLIN) ? 0 : 1);
	tb_wait_sleeping(pid, pid, TB_TIMEOUT_MS);
	ASSERT_EQ(0, provider_started(self->p.prov));
	EXPECT_EQ(0, tb_wait_child(pid));
}

TEST_F(notify, provider_poll_in_other_process_woken_by_gone)
{
	struct pollfd pfd = { .fd = self->p.prov, .events = POLLIN };
	pid_t pid;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_INITIALIZED);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(self->p.mgr);	/* the parent holds the last one */
		_exit(poll(&pfd, 1, TB_TIMEOUT_MS) == 1 &&
		      (pfd.revents & POLLIN) ? 0 : 1);
	}
	tb_wait_sleeping(pid, pid, TB_TIMEOUT_MS);
	tb_close(&self->p.mgr);
	EXPECT_EQ(0, tb_wait_child(pid));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_MANAGER_GONE, NULL);
}

TEST_F(notify, provider_blocking_read_woken)
{
	struct tracebuf_pkt *pkt;
	struct tb_waiter w;

	tb_waiter_start(_metadata, &w, self->p.prov, true, sizeof(*pkt));
	ASSERT_EQ(0, mgr_initialize(self->p.mgr, self->p.id,
				    TRACEBUF_MODE_ONESHOT, 2 * tb_buffer_min(),
				    NULL, &self->p.buf_fd));
	ASSERT_EQ(0, pthread_join(w.thread, NULL));
	ASSERT_EQ((int)sizeof(*pkt), w.ret);
	pkt = (struct tracebuf_pkt *)w.rec;
	EXPECT_EQ(TRACEBUF_PKT_INITIALIZE, pkt->request);
	EXPECT_EQ(2 * tb_buffer_min(), pkt->data64);
}

TEST_F(notify, manager_blocking_read_woken)
{
	struct tracebuf_mgr_msg *msg;
	struct tb_waiter w;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	tb_waiter_start(_metadata, &w, self->p.mgr, true, sizeof(*msg));
	ASSERT_EQ(0, provider_alert(self->p.prov, "wake"));
	ASSERT_EQ(0, pthread_join(w.thread, NULL));
	ASSERT_EQ((int)sizeof(*msg), w.ret);
	msg = (struct tracebuf_mgr_msg *)w.rec;
	EXPECT_EQ(self->p.id, msg->provider_id);
	EXPECT_EQ(TRACEBUF_MSG_PACKET, msg->type);
	EXPECT_EQ(TRACEBUF_PKT_ALERT, msg->pkt.request);
}

static void tb_sigusr1(int sig)
{
	(void)sig;
}

TEST_F(notify, blocking_read_interrupted_by_signal)
{
	struct sigaction sa;
	struct tb_waiter w;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = tb_sigusr1;	/* no SA_RESTART */
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	tb_waiter_start(_metadata, &w, self->p.prov, true,
			sizeof(struct tracebuf_pkt));
	ASSERT_EQ(0, pthread_kill(w.thread, SIGUSR1));
	ASSERT_EQ(0, pthread_join(w.thread, NULL));
	EXPECT_EQ(-EINTR, w.ret);
	/* nothing was lost or invented */
	EXPECT_EQ(0, tb_pending(self->p.prov));
}

/* ------------------------------------------------------------------ */
/* eventfd                                                            */

TEST_F(notify, provider_eventfd_counts_each_message)
{
	ASSERT_EQ(0, set_eventfd(self->p.prov, self->efd));
	ASSERT_EQ(0, mgr_initialize(self->p.mgr, self->p.id,
				    TRACEBUF_MODE_STREAMING, 65536, NULL,
				    &self->p.buf_fd));
	ASSERT_EQ(0, mgr_start(self->p.mgr, self->p.id,
			       TRACEBUF_START_RETAIN, NULL));
	ASSERT_EQ(0, mgr_stop(self->p.mgr, self->p.id));
	EXPECT_EQ(3ULL, tb_efd_count(self->efd));
}

TEST_F(notify, manager_eventfd_counts_each_message)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	ASSERT_EQ(0, set_eventfd(self->p.mgr, self->efd));
	ASSERT_EQ(0, provider_alert(self->p.prov, "one"));
	ASSERT_EQ(0, provider_alert(self->p.prov, "two"));
	ASSERT_EQ(0, provider_send(self->p.prov, TRACEBUF_PKT_SAVE_BUFFER, 0,
				   0, 8));
	EXPECT_EQ(3ULL, tb_efd_count(self->efd));
	/* reading the messages does not signal */
	EXPECT_EQ(3, tb_drain(self->p.mgr, sizeof(struct tracebuf_mgr_msg)));
	EXPECT_EQ(0ULL, tb_efd_count(self->efd));
}

TEST_F(notify, refused_request_not_signalled)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_INITIALIZED);
	ASSERT_EQ(0, set_eventfd(self->p.prov, self->efd));
	ASSERT_EQ(0, set_eventfd(self->p.mgr, self->efd2));
	EXPECT_EQ(-EALREADY, mgr_stop(self->p.mgr, self->p.id));
	EXPECT_EQ(-EPROTO, provider_started(self->p.prov));
	EXPECT_EQ(0ULL, tb_efd_count(self->efd));
	EXPECT_EQ(0ULL, tb_efd_count(self->efd2));
}

TEST_F(notify, replacing_eventfd_moves_notifications)
{
	ASSERT_EQ(0, set_eventfd(self->p.prov, self->efd));
	ASSERT_EQ(0, mgr_initialize(self->p.mgr, self->p.id,
				    TRACEBUF_MODE_STREAMING, 65536, NULL,
				    &self->p.buf_fd));
	EXPECT_EQ(1ULL, tb_efd_count(self->efd));
	/* nothing waits when the new one is bound: it is not signalled */
	EXPECT_EQ(1, tb_drain(self->p.prov, sizeof(struct tracebuf_pkt)));
	ASSERT_EQ(0, set_eventfd(self->p.prov, self->efd2));
	EXPECT_EQ(0ULL, tb_efd_count(self->efd2));
	ASSERT_EQ(0, mgr_start(self->p.mgr, self->p.id,
			       TRACEBUF_START_RETAIN, NULL));
	EXPECT_EQ(0ULL, tb_efd_count(self->efd));
	EXPECT_EQ(1ULL, tb_efd_count(self->efd2));
}

/*
 * Bound while messages wait (a provider binds its eventfd right after
 * REGISTER, and a quick manager may have initialized and started it
 * already): signalled once at once, then once per message again.
 */
TEST_F(notify, provider_eventfd_bound_late_is_signalled)
{
	ASSERT_EQ(0, mgr_initialize(self->p.mgr, self->p.id,
				    TRACEBUF_MODE_STREAMING, 65536, NULL,
				    &self->p.buf_fd));
	ASSERT_EQ(0, mgr_start(self->p.mgr, self->p.id,
			       TRACEBUF_START_RETAIN, NULL));
	ASSERT_EQ(0, set_eventfd(self->p.prov, self->efd));
	EXPECT_EQ(1ULL, tb_efd_count(self->efd));
	ASSERT_EQ(0, mgr_stop(self->p.mgr, self->p.id));
	EXPECT_EQ(1ULL, tb_efd_count(self->efd));
	EXPECT_EQ(3, tb_drain(self->p.prov, sizeof(struct tracebuf_pkt)));
}

TEST_F(notify, manager_eventfd_bound_late_is_signalled)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	ASSERT_EQ(0, provider_alert(self->p.prov, "early"));
	ASSERT_EQ(0, set_eventfd(self->p.mgr, self->efd));
	EXPECT_EQ(1ULL, tb_efd_count(self->efd));
	EXPECT_EQ(1, tb_drain(self->p.mgr, sizeof(struct tracebuf_mgr_msg)));
	/* bound again on an empty inbox: quiet */
	ASSERT_EQ(0, set_eventfd(self->p.mgr, self->efd2));
	EXPECT_EQ(0ULL, tb_efd_count(self->efd2));
}

/*
 * A packet refused because the manager's inbox holds TRACEBUF_OUTBOX_DEPTH
 * of the provider's (ALERTs here): the provider is woken, once, when the
 * manager has read one, and its SAVE_BUFFER then goes.  Before, nothing
 * woke it, and libtracebuf never asked that save again.
 */
TEST_F(notify, provider_woken_when_a_refused_packet_fits)
{
	struct tracebuf_mgr_msg msg;
	struct pollfd pfd = { .fd = -1, .events = POLLIN };
	int i;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	ASSERT_EQ(0, set_eventfd(self->p.prov, self->efd));
	for (i = 0; i < TRACEBUF_OUTBOX_DEPTH; i++)
		ASSERT_EQ(0, provider_alert(self->p.prov, "full"));
	EXPECT_EQ(-EAGAIN, provider_send(self->p.prov, TRACEBUF_PKT_SAVE_BUFFER,
					 0, 0, 8));
	EXPECT_EQ(0ULL, tb_efd_count(self->efd));
	/* the manager reads one: the provider is woken */
	ASSERT_EQ(0, tb_read_msg(self->p.mgr, &msg, 0));
	EXPECT_EQ(1ULL, tb_efd_count(self->efd));
	/* once: no message waits for it, and the next read is quiet */
	pfd.fd = self->p.prov;
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(0, tb_read_msg(self->p.mgr, &msg, 0));
	EXPECT_EQ(0ULL, tb_efd_count(self->efd));
	ASSERT_EQ(0, provider_send(self->p.prov, TRACEBUF_PKT_SAVE_BUFFER, 0, 0, 8));
	EXPECT_EQ(TRACEBUF_OUTBOX_DEPTH - 1,
		  tb_drain(self->p.mgr, sizeof(struct tracebuf_mgr_msg)));
	/* a refusal for another reason does not wake it */
	EXPECT_EQ(-EBUSY, provider_send(self->p.prov, TRACEBUF_PKT_SAVE_BUFFER,
					0, 0, 8));
	ASSERT_EQ(0, provider_alert(self->p.prov, "one"));
	EXPECT_EQ(1, tb_drain(self->p.mgr, sizeof(struct tracebuf_mgr_msg)));
	EXPECT_EQ(0ULL, tb_efd_count(self->efd));
}

TEST_F(notify, minus_one_unregisters)
{
	ASSERT_EQ(0, set_eventfd(self->p.prov, self->efd));
	ASSERT_EQ(0, set_eventfd(self->p.prov, -1));
	ASSERT_EQ(0, mgr_initialize(self->p.mgr, self->p.id,
				    TRACEBUF_MODE_STREAMING, 65536, NULL,
				    &self->p.buf_fd));
	EXPECT_EQ(0ULL, tb_efd_count(self->efd));
	/* the message itself is there */
	EXPECT_EQ(1, tb_pending(self->p.prov));
}

TEST_F(notify, registration_survives_closing_the_fd)
{
	int dup_efd = dup(self->efd);

	ASSERT_LE(0, dup_efd);
	ASSERT_EQ(0, set_eventfd(self->p.prov, self->efd));
	tb_close(&self->efd);
	ASSERT_EQ(0, mgr_initialize(self->p.mgr, self->p.id,
				    TRACEBUF_MODE_STREAMING, 65536, NULL,
				    &self->p.buf_fd));
	EXPECT_EQ(1ULL, tb_efd_count(dup_efd));
	close(dup_efd);
}

TEST_F(notify, eventfd_closed_by_user_still_safe_to_signal)
{
	struct tracebuf_pkt pkt;

	/* the only user reference goes; the kernel's must keep it alive */
	ASSERT_EQ(0, set_eventfd(self->p.prov, self->efd));
	tb_close(&self->efd);
	ASSERT_EQ(0, mgr_initialize(self->p.mgr, self->p.id,
				    TRACEBUF_MODE_STREAMING, 65536, NULL,
				    &self->p.buf_fd));
	ASSERT_EQ(0, mgr_start(self->p.mgr, self->p.id,
			       TRACEBUF_START_RETAIN, NULL));
	ASSERT_EQ(0, tb_read_pkt(self->p.prov, &pkt, TB_TIMEOUT_MS));
	EXPECT_EQ(TRACEBUF_PKT_INITIALIZE, pkt.request);
	/* and replacing it drops that last reference */
	EXPECT_EQ(0, set_eventfd(self->p.prov, -1));
}

TEST_F(notify, closing_file_leaves_eventfd_usable)
{
	__u64 v = 5;

	ASSERT_EQ(0, set_eventfd(self->p.prov, self->efd));
	ASSERT_EQ(0, set_eventfd(self->p.mgr, self->efd2));
	tb_close(&self->p.prov);
	tb_close(&self->p.mgr);
	ASSERT_EQ((ssize_t)sizeof(v), write(self->efd, &v, sizeof(v)));
	EXPECT_EQ(5ULL, tb_efd_count(self->efd));
	ASSERT_EQ((ssize_t)sizeof(v), write(self->efd2, &v, sizeof(v)));
	EXPECT_EQ(5ULL, tb_efd_count(self->efd2));
}

TEST_F(notify, provider_gone_signals_manager_eventfd)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_INITIALIZED);
	ASSERT_EQ(0, set_eventfd(self->p.mgr, self->efd));
	tb_close(&self->p.prov);
	EXPECT_EQ(1ULL, tb_efd_count(self->efd));
	tb_next_msg(_metadata, self->p.mgr, self->p.id, TRACEBUF_MSG_GONE,
		    TRACEBUF_STATE_INITIALIZED, NULL);
}

TEST_F(notify, manager_gone_signals_provider_eventfd)
{
	ASSERT_EQ(0, set_eventfd(self->p.prov, self->efd));
	ASSERT_EQ(0, mgr_initialize(self->p.mgr, self->p.id,
				    TRACEBUF_MODE_STREAMING, 65536, NULL,
				    &self->p.buf_fd));
	tb_close(&self->p.mgr);
	/* INITIALIZE, then MANAGER_GONE */
	EXPECT_EQ(2ULL, tb_efd_count(self->efd));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_MANAGER_GONE, NULL);
}

TEST_F(notify, eventfd_poll_wakes_other_process)
{
	struct pollfd pfd = { .fd = self->efd, .events = POLLIN };
	pid_t pid;

	ASSERT_EQ(0, set_eventfd(self->p.prov, self->efd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(poll(&pfd, 1, TB_TIMEOUT_MS) == 1 ? 0 : 1);
	tb_wait_sleeping(pid, pid, TB_TIMEOUT_MS);
	ASSERT_EQ(0, mgr_initialize(self->p.mgr, self->p.id,
				    TRACEBUF_MODE_ONESHOT, tb_buffer_min(), NULL,
				    &self->p.buf_fd));
	EXPECT_EQ(0, tb_wait_child(pid));
}

/* ------------------------------------------------------------------ */
/* MSG_REGISTRY                                                       */

FIXTURE(registry) {
	int watcher;
	int plain;		/* a manager without F_WATCH */
	int prov[3];
};

FIXTURE_SETUP(registry)
{
	int i;

	self->watcher = self->plain = -1;
	for (i = 0; i < 3; i++)
		self->prov[i] = -1;
	TB_REQUIRE_DEV();
	self->watcher = tb_open_manager(TRACEBUF_ATTACH_F_WATCH, NULL);
	ASSERT_LE(0, self->watcher);
	self->plain = tb_open_manager(0, NULL);
	ASSERT_LE(0, self->plain);
	tb_drain(self->watcher, sizeof(struct tracebuf_mgr_msg));
}

FIXTURE_TEARDOWN(registry)
{
	int i;

	for (i = 0; i < 3; i++)
		tb_close(&self->prov[i]);
	tb_close(&self->plain);
	tb_close(&self->watcher);
}

static void tb_expect_registry(struct __test_metadata *_metadata, int fd)
{
	struct tracebuf_mgr_msg msg;
	struct tracebuf_pkt zero;

	memset(&zero, 0, sizeof(zero));
	ASSERT_EQ(0, tb_read_msg(fd, &msg, TB_TIMEOUT_MS));
	EXPECT_EQ(0U, msg.provider_id);
	EXPECT_EQ(TRACEBUF_MSG_REGISTRY, msg.type);
	EXPECT_EQ(0, memcmp(&zero, &msg.pkt, sizeof(zero)));
}

TEST_F(registry, register_tells_watcher)
{
	self->prov[0] = tb_open_provider("reg-0", NULL);
	ASSERT_LE(0, self->prov[0]);
	tb_expect_registry(_metadata, self->watcher);
	EXPECT_EMPTY(self->watcher);
}

TEST_F(registry, unregister_tells_watcher)
{
	self->prov[0] = tb_open_provider("reg-0", NULL);
	ASSERT_LE(0, self->prov[0]);
	tb_expect_registry(_metadata, self->watcher);
	tb_close(&self->prov[0]);
	tb_expect_registry(_metadata, self->watcher);
	EXPECT_EMPTY(self->watcher);
}

TEST_F(registry, coalesced_while_waiting)
{
	int i;

	for (i = 0; i < 3; i++) {
		self->prov[i] = tb_open_provider("reg-n", NULL);
		ASSERT_LE(0, self->prov[i]);
	}
	tb_close(&self->prov[1]);
	tb_expect_registry(_metadata, self->watcher);
	EXPECT_EMPTY(self->watcher);
	/* after the read, the next change queues a new one */
	tb_close(&self->prov[2]);
	tb_expect_registry(_metadata, self->watcher);
}

TEST_F(registry, manager_without_watch_not_told)
{
	self->prov[0] = tb_open_provider("reg-0", NULL);
	ASSERT_LE(0, self->prov[0]);
	tb_close(&self->prov[0]);
	tb_expect_registry(_metadata, self->watcher);
	EXPECT_EMPTY(self->plain);
}

TEST_F(registry, failed_register_not_told)
{
	int fd = tb_open();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, register_provider_ex(fd, "x", 0, 0, NULL, NULL));
	EXPECT_EMPTY(self->watcher);
	close(fd);
}

TEST_F(registry, watcher_owning_provider_gets_gone_and_registry)
{
	struct tracebuf_mgr_msg msg[2];
	__u32 id;
	int i, gone = 0, reg = 0;

	self->prov[0] = tb_open_provider("reg-owned", &id);
	ASSERT_LE(0, self->prov[0]);
	tb_expect_registry(_metadata, self->watcher);
	ASSERT_EQ(0, mgr_initialize(self->watcher, id, TRACEBUF_MODE_ONESHOT,
				    tb_buffer_min(), NULL, NULL));
	tb_close(&self->prov[0]);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, tb_read_msg(self->watcher, &msg[i], TB_TIMEOUT_MS));
		gone += msg[i].type == TRACEBUF_MSG_GONE &&
			msg[i].provider_id == id &&
			msg[i].state == TRACEBUF_STATE_INITIALIZED;
		reg += msg[i].type == TRACEBUF_MSG_REGISTRY &&
		       msg[i].provider_id == 0;
	}
	EXPECT_EQ(1, gone);
	EXPECT_EQ(1, reg);
	EXPECT_EMPTY(self->watcher);
}

TEST_F(registry, registry_signals_eventfd)
{
	int efd = tb_eventfd();

	ASSERT_LE(0, efd);
	ASSERT_EQ(0, set_eventfd(self->watcher, efd));
	self->prov[0] = tb_open_provider("reg-efd", NULL);
	ASSERT_LE(0, self->prov[0]);
	EXPECT_LE(1ULL, tb_efd_count(efd));
	close(efd);
}

TEST_HARNESS_MAIN
