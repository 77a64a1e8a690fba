// SPDX-License-Identifier: MIT
/*
 * libtracebuf across fork(), in the test VM with the module loaded: a
 * provider's child does not own its parent's provider, and never keeps
 * it registered.  A process's provider ends with the process, whatever
 * its children do.
 */
#define _GNU_SOURCE
#include "ktap.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>

#include <tracebuf_manager.h>
#include <tracebuf_provider.h>

#define NAME	"fork-parent"

/* Whether a provider named NAME of process @pid is registered. */
static bool registered(struct tracebuf_manager *m, pid_t pid)
{
	struct tracebuf_provider_info *list = NULL;
	bool found = false;
	int n = tracebuf_manager_list(m, &list);

	for (int i = 0; i < n; i++)
		if (list[i].pid == (uint32_t)pid && !strcmp((const char *)list[i].name, NAME))
			found = true;
	free(list);
	return found;
}

/*
 * @thread: the provider is served by the library's thread.  A provider
 * process forks a child that lives on, then exits without destroying
 * its provider (as a crash would): the provider is gone while the child
 * still lives.
 */
static void outlived_by_a_child(bool thread)
{
	struct tracebuf_manager *m;
	int pids[2], status;
	pid_t pid, child;
	bool gone = false;

	T_ASSERT_EQ(tracebuf_manager_open(NULL, 0, &m), 0);
	T_ASSERT_EQ(pipe(pids), 0);
	fflush(stdout);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		struct tracebuf_provider_config cfg = {
			.size = sizeof(cfg), .name = NAME,
			.flags = TRACEBUF_LIB_PROVIDER_NO_WAIT |
				 (thread ? TRACEBUF_LIB_PROVIDER_THREAD : 0),
		};
		struct tracebuf_provider *p;

		if (tracebuf_provider_create(&cfg, &p))
			_exit(2);
		child = fork();
		if (child < 0)
			_exit(3);
		if (child == 0) {
			child = getpid();
			if (write(pids[1], &child, sizeof(child)) != sizeof(child))
				_exit(4);
			for (;;)
				pause();
		}
		_exit(0);
	}
	close(pids[1]);
	T_ASSERT_EQ(read(pids[0], &child, sizeof(child)), (ssize_t)sizeof(child));
	T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	T_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* the module drops a provider as its file is released: at once */
	for (int i = 0; i < 500 && !gone; i++) {
		gone = !registered(m, pid);
		if (!gone)
			usleep(10000);
	}
	if (!gone)
		T_FAIL("provider " NAME " of exited process %d still registered 5 s later, "
		       "while its child %d lives", (int)pid, (int)child);
	T_EXPECT_EQ(kill(child, 0), 0);
	kill(child, SIGKILL);
	close(pids[0]);
	tracebuf_manager_close(m);
}

static void provider_is_not_kept_by_a_child(void)
{
	outlived_by_a_child(false);
}

static void threaded_provider_is_not_kept_by_a_child(void)
{
	outlived_by_a_child(true);
}

static const struct t_test tests[] = {
	T_TEST(provider_is_not_kept_by_a_child),
	T_TEST(threaded_provider_is_not_kept_by_a_child),
};

T_MAIN(tests)
