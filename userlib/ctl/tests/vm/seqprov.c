// SPDX-License-Identifier: MIT
/*
 * tb-seqprov: providers whose every event can be checked, for the
 * integration tests (tests/vm/NAME_vmtest.c).
 *
 *   tb-seqprov [-P PROCS] [-n COUNT] [-N NAME] [-W] [-s] [-x STATUS]
 *
 * Forks PROCS processes (default 1) that wait at a barrier and are then
 * released together, so that they register at the same moment.  Process
 * i registers as provider NAME-i (NAME with one process) and writes COUNT
 * iterations of
 *
 *	TRACE_DURATION_BEGIN("seq", "span")
 *	TRACE_INSTANT("seq", "seq", TA_U32("i", i))
 *	TRACE_DURATION_END("seq", "span")
 *
 * then destroys its provider.  By default it registers the way the
 * library does by default; -W asks for TRACEBUF_LIB_PROVIDER_NO_WAIT.
 * With -s each iteration sleeps 1 ms.  The exit status is STATUS (default
 * 0) when every process registered and finished, 1 otherwise.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define TRACEBUF_LIB_SHORT_NAMES	/* TRACE_*, TA_* */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tracebuf.h>

static int child(const char *name, unsigned int count, uint32_t flags, bool slow)
{
	struct tracebuf_provider_config cfg = {
		.size = sizeof(cfg), .name = name,
		.flags = TRACEBUF_LIB_PROVIDER_THREAD | flags,
	};
	struct tracebuf_provider *p;
	int ret = tracebuf_provider_create(&cfg, &p);

	if (ret) {
		fprintf(stderr, "tb-seqprov: %s: %s\n", name, strerror(-ret));
		return 1;
	}
	for (unsigned int i = 0; i < count; i++) {
		TRACE_DURATION_BEGIN("seq", "span");
		TRACE_INSTANT("seq", "seq", TA_U32("i", i));
		TRACE_DURATION_END("seq", "span");
		if (slow)
			usleep(1000);
	}
	tracebuf_provider_destroy(p);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int procs = 1, count = 100;
	const char *name = "seq";
	uint32_t flags = 0;
	bool slow = false;
	int barrier[2], opt, failed = 0, status = 0;
	pid_t *pids;
	char c;

	while ((opt = getopt(argc, argv, "P:n:N:Wsx:")) != -1) {
		switch (opt) {
		case 'P':
			procs = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			count = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'N':
			name = optarg;
			break;
		case 'W':
			flags |= TRACEBUF_LIB_PROVIDER_NO_WAIT;
			break;
		case 's':
			slow = true;
			break;
		case 'x':
			status = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-P PROCS] [-n COUNT] [-N NAME] [-W] [-s] "
				"[-x STATUS]\n", argv[0]);
			return 2;
		}
	}
	if (!procs || procs > 1024 || pipe(barrier))
		return 2;
	pids = calloc(procs, sizeof(*pids));
	if (!pids)
		return 1;
	for (unsigned int i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			failed = 1;
			break;
		}
		if (!pids[i]) {
			char nm[128];

			close(barrier[1]);
			/* EOF once every process is forked: all go at once */
			while (read(barrier[0], &c, 1) > 0)
				;
			if (procs == 1)
				snprintf(nm, sizeof(nm), "%s", name);
			else
				snprintf(nm, sizeof(nm), "%s-%u", name, i);
			_exit(child(nm, count, flags, slow));
		}
	}
	close(barrier[0]);
	close(barrier[1]);
	for (unsigned int i = 0; i < procs && pids[i] > 0; i++) {
		int status;

		if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed = 1;
	}
	free(pids);
	return failed ? 1 : status;
}
