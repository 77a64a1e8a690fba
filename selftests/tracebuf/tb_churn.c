// SPDX-License-Identifier: GPL-2.0
/*
 * tb_churn: use /dev/tracebuf briefly, for insmod_test.sh.
 *
 *   tb_churn             register providers, attach a manager with an
 *                        eventfd, initialize them, start one that maps
 *                        its buffer, writes, answers STARTED and asks for
 *                        a save; then exit with everything still open
 *                        (exit must clean up), or close half explicitly
 *   tb_churn hold-buffer keep only a manager's buffer handle open
 *   tb_churn hold-map    keep only a provider's mapping
 *
 * The hold modes print "ready" once everything else is closed and wait
 * for end of file on stdin.  Exit status 0 on success, 1 on error.
 */
#define _GNU_SOURCE
#include <sys/eventfd.h>

#define TB_NO_HARNESS
#include "tracebuf_selftests.h"

#define NPROV	3
#define SIZE	(64 * 1024)

static int fail(const char *what, int err)
{
	fprintf(stderr, "tb_churn: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return 1;
}

static void wait_for_eof(void)
{
	char buf[64];

	printf("ready\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
}

static int churn(bool close_some)
{
	static const __u32 modes[NPROV] = {
		TRACEBUF_MODE_STREAMING, TRACEBUF_MODE_CIRCULAR,
		TRACEBUF_MODE_ONESHOT,
	};
	struct tracebuf_pkt pkt;
	int prov[NPROV], buf[NPROV], mgr, efd, ret, i;
	__u32 id[NPROV];
	char name[16];
	char *map;

	mgr = tb_open_manager(TRACEBUF_ATTACH_F_WATCH, NULL);
	if (mgr < 0)
		return fail("attach", mgr);
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (efd < 0 || set_eventfd(mgr, efd))
		return fail("manager eventfd", errno);
	for (i = 0; i < NPROV; i++) {
		snprintf(name, sizeof(name), "churn-%d", i);
		prov[i] = tb_open_provider(name, &id[i]);
		if (prov[i] < 0)
			return fail("register", prov[i]);
		ret = mgr_initialize(mgr, id[i], modes[i], SIZE, NULL, &buf[i]);
		if (ret)
			return fail("initialize", ret);
	}
	if (set_eventfd(prov[0], efd))
		return fail("provider eventfd", errno);
	ret = mgr_start(mgr, id[0], TRACEBUF_START_CLEAR_ENTIRE, NULL);
	if (ret)
		return fail("start", ret);
	ret = tb_read_pkt(prov[0], &pkt, TB_TIMEOUT_MS);
	if (ret || pkt.request != TRACEBUF_PKT_INITIALIZE)
		return fail("read INITIALIZE", ret ? ret : EPROTO);
	map = tb_map(prov[0], SIZE, PROT_READ | PROT_WRITE, 0);
	if (map == MAP_FAILED)
		return fail("mmap", errno);
	memset(map + TRACEBUF_HEADER_SIZE, 0x5a, 4096);
	ret = provider_started(prov[0]);
	if (ret)
		return fail("STARTED", ret);
	ret = provider_send(prov[0], TRACEBUF_PKT_SAVE_BUFFER, 0, 0, 16);
	if (ret)
		return fail("SAVE_BUFFER", ret);
	ret = provider_alert(prov[0], "churn");
	if (ret)
		return fail("ALERT", ret);
	if (tb_read_msg(mgr, &(struct tracebuf_mgr_msg){ 0 }, TB_TIMEOUT_MS))
		return fail("manager read", EIO);
	if (close_some) {
		/* an orderly end for some, the rest left to exit() */
		munmap(map, SIZE);
		close(prov[1]);
		close(buf[1]);
		close(mgr);
	}
	return 0;
}

/* Only a manager's buffer handle stays open. */
static int hold_buffer(void)
{
	int mgr, prov, buf, ret;
	__u32 id;

	mgr = tb_open_manager(0, NULL);
	if (mgr < 0)
		return fail("attach", mgr);
	prov = tb_open_provider("hold-buffer", &id);
	if (prov < 0)
		return fail("register", prov);
	ret = mgr_initialize(mgr, id, TRACEBUF_MODE_CIRCULAR, SIZE, NULL, &buf);
	if (ret)
		return fail("initialize", ret);
	close(prov);
	close(mgr);
	wait_for_eof();
	close(buf);
	return 0;
}

/* Only a provider's mapping stays. */
static int hold_map(void)
{
	int mgr, prov, ret;
	char *map;
	__u32 id;

	mgr = tb_open_manager(0, NULL);
	if (mgr < 0)
		return fail("attach", mgr);
	prov = tb_open_provider("hold-map", &id);
	if (prov < 0)
		return fail("register", prov);
	ret = mgr_initialize(mgr, id, TRACEBUF_MODE_ONESHOT, SIZE, NULL, NULL);
	if (ret)
		return fail("initialize", ret);
	map = tb_map(prov, SIZE, PROT_READ | PROT_WRITE, 0);
	if (map == MAP_FAILED)
		return fail("mmap", errno);
	close(prov);
	close(mgr);
	map[SIZE - 1] = 1;
	wait_for_eof();
	map[SIZE - 1] = 2;
	munmap(map, SIZE);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return churn(getpid() & 1);
	if (!strcmp(argv[1], "hold-buffer"))
		return hold_buffer();
	if (!strcmp(argv[1], "hold-map"))
		return hold_map();
	fprintf(stderr, "usage: tb_churn [hold-buffer|hold-map]\n");
	return 1;
}
