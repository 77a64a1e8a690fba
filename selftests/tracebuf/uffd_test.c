// SPDX-License-Identifier: GPL-2.0
/*
 * One manager cannot hold up the others: a manager whose INITIALIZE
 * argument page faults for ever (write-protected with userfaultfd) holds
 * no lock another manager waits on.  Needs userfaultfd write-protect
 * faults, which the debug kernel of this project lacks and which arm64
 * has only since Linux 6.10: scripts/check.sh leaves this program out
 * there; elsewhere it fails, saying which, where the feature is missing.
 */
#define _GNU_SOURCE
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "tracebuf_selftests.h"

/* ------------------------------------------------------------------ */
/* A faulting INITIALIZE                                              */

FIXTURE(uffd) {
	int uffd;
	char *page;
	struct tb_peer p;
	int mgr2;
};

FIXTURE_SETUP(uffd)
{
	struct uffdio_api api = { .api = UFFD_API,
				  .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP };
	struct uffdio_register reg = { 0 };
	struct uffdio_writeprotect wp = { 0 };
	size_t psz = tb_page_size();

	self->uffd = -1;
	self->page = MAP_FAILED;
	self->mgr2 = -1;
	tb_peer_init(&self->p);
	TB_REQUIRE_DEV();
	self->uffd = (int)syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	ASSERT_LE(0, self->uffd) TH_LOG("userfaultfd: %s (this kernel lacks it?)",
					strerror(errno));
	ASSERT_EQ(0, ioctl(self->uffd, UFFDIO_API, &api))
		TH_LOG("UFFDIO_API with write-protect faults: %s", strerror(errno));
	self->page = mmap(NULL, psz, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_MAPPED(self->page);
	memset(self->page, 0, psz);
	reg.range.start = (unsigned long)self->page;
	reg.range.len = psz;
	reg.mode = UFFDIO_REGISTER_MODE_WP;
	ASSERT_EQ(0, ioctl(self->uffd, UFFDIO_REGISTER, &reg))
		TH_LOG("UFFDIO_REGISTER: %s", strerror(errno));
	tb_peer_open(_metadata, &self->p, "uffd", 0);
	self->mgr2 = tb_open_manager(0, NULL);
	ASSERT_LE(0, self->mgr2);
	/* the arguments, then the page made read-only to the kernel too */
	tb_init_args((struct tracebuf_initialize_args *)self->page, self->p.id,
		     TRACEBUF_MODE_ONESHOT, 65536, NULL);
	wp.range = reg.range;
	wp.mode = UFFDIO_WRITEPROTECT_MODE_WP;
	ASSERT_EQ(0, ioctl(self->uffd, UFFDIO_WRITEPROTECT, &wp));
}

FIXTURE_TEARDOWN(uffd)
{
	tb_close(&self->mgr2);
	tb_peer_close(&self->p);
	if (self->page != MAP_FAILED)
		munmap(self->page, tb_page_size());
	tb_close(&self->uffd);
}

struct tb_blocked {
	int fd;
	void *args;
	int ret;
};

static void *tb_initialize_thread(void *arg)
{
	struct tb_blocked *b = arg;

	b->ret = tb_ioctl(b->fd, TRACEBUF_IOC_MGR_INITIALIZE, b->args);
	return NULL;
}

/*
 * Manager 1's INITIALIZE blocks writing buffer_fd back (the page is
 * write-protected and nobody resolves the fault yet).  Manager 2 must
 * get its answer meanwhile: before, it waited on the provider's lock,
 * uninterruptibly, for as long as the fault lasted.
 */
TEST_F(uffd, faulting_initialize_holds_no_lock)
{
	struct uffdio_writeprotect wp = { 0 };
	struct tb_blocked b = { .fd = self->p.mgr, .args = self->page };
	struct pollfd pfd = { .fd = self->uffd, .events = POLLIN };
	struct uffd_msg msg;
	pthread_t th;
	pid_t pid;
	int ret;

	ASSERT_EQ(0, pthread_create(&th, NULL, tb_initialize_thread, &b));
	/* it faulted: the message is there */
	ASSERT_EQ(1, poll(&pfd, 1, 10000)) TH_LOG("no write-protect fault");
	ASSERT_EQ((ssize_t)sizeof(msg), read(self->uffd, &msg, sizeof(msg)));
	EXPECT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);
	/* manager 2, in a child: it must be done within 5 s */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = -1;

		_exit(mgr_initialize(self->mgr2, self->p.id, TRACEBUF_MODE_ONESHOT,
				     65536, NULL, &fd) == 0 ? 0 : 1);
	}
	ret = -1;
	for (int i = 0; i < 50 && ret < 0; i++) {
		int status;

		usleep(100000);
		if (waitpid(pid, &status, WNOHANG) == pid)
			ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	}
	/* no signal reaches a task waiting on a mutex: it would stay stuck */
	EXPECT_EQ(0, ret) TH_LOG("manager 2: %s", ret < 0 ? "still waiting after 5 s" :
				 "refused");
	/* let manager 1 go: the provider is manager 2's by now */
	wp.range.start = (unsigned long)self->page;
	wp.range.len = tb_page_size();
	ASSERT_EQ(0, ioctl(self->uffd, UFFDIO_WRITEPROTECT, &wp));
	pthread_join(th, NULL);
	if (ret < 0)
		tb_wait_child(pid);
	EXPECT_EQ(-EBUSY, b.ret);
	EXPECT_EQ(TRACEBUF_STATE_INITIALIZED, mgr_state(self->mgr2, self->p.id));
}

TEST_HARNESS_MAIN
