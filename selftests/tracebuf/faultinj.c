// SPDX-License-Identifier: GPL-2.0
/*
 * Every tracebuf operation with its n-th allocation failing, for n = 1,
 * 2, ... until the operation runs with no failure injected
 * (Documentation/fault-injection/fault-injection.rst, "fail-nth").  Both
 * failslab and fail_page_alloc are armed for sleeping allocations of
 * every order, so an allocation anywhere on the path fails: the module's,
 * and those of the kernel it calls (files, fds, netlink skbs, VMAs, page
 * tables).
 *
 * For each n: set up the state the operation needs, fail its n-th
 * allocation, and check that it either succeeded or failed with ENOMEM
 * (ENOBUFS for netlink), that running it again then succeeds (a failure
 * left nothing half done), and that its effect is what it would be
 * without the failure (the peer got its packet or message, the list is
 * complete, ...).  The last test checks that the module is idle and
 * usable afterwards and reports how many failure points were exercised;
 * the runner adds KASAN, lockdep and kmemleak on the debug kernel.
 *
 * Needs CONFIG_FAULT_INJECTION, CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC
 * and CONFIG_FAULT_INJECTION_DEBUG_FS (skipped without them).
 */
#define _GNU_SOURCE
#include <sys/eventfd.h>

#include "tracebuf_genl.h"

#define FI_DEBUGFS	"/sys/kernel/debug"
#define FI_USERS	FI_DEBUGFS "/tracebuf/users"
/* no operation allocates this often: a loop that gets here is stuck */
#define FI_MAX_N	2000
#define FI_SIZE		(4 * tb_page_size())	/* buffers: 16 KiB with 4 KiB pages */
#define FI_CATS		40		/* category pairs published */

/* Shared with every test's process: the totals for the last test. */
struct fi_totals {
	unsigned int points;	/* failures injected */
	unsigned int failed;	/* ... that failed the operation */
	unsigned int ops;	/* operations run to completion */
	char users[4096];	/* debugfs "users" before the first test */
	bool have_users;
};
static struct fi_totals *fi_totals;
static unsigned int fi_n;	/* the allocation failing, for messages */
static char *fi_data;		/* FI_SIZE bytes, each test's own copy */

static void __attribute__((constructor)) fi_totals_init(void)
{
	void *p = mmap(NULL, sizeof(*fi_totals), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	fi_totals = p == MAP_FAILED ? NULL : p;
	p = mmap(NULL, FI_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fi_data = p == MAP_FAILED ? NULL : p;
}

static int fi_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -EIO;
}

/*
 * Make both injectors fail every kind of allocation the module makes
 * (they ignore sleeping ones by default, and fail_page_alloc order 0),
 * each with its stack in the kernel log ("FAULT_INJECTION: forcing a
 * failure", verbose 2, not rate-limited): make coverage counts there the
 * module functions whose allocations failed (scripts/coverage-fault.py),
 * and vm-results.sh takes those stacks for no splat.  Returns why not,
 * or NULL.
 */
static const char *fi_configure(void)
{
	static const char *const knobs[][2] = {
		{ "failslab/ignore-gfp-wait", "N" },
		{ "failslab/verbose", "2" },
		{ "failslab/verbose_ratelimit_interval_ms", "0" },
		{ "fail_page_alloc/ignore-gfp-wait", "N" },
		{ "fail_page_alloc/ignore-gfp-highmem", "N" },
		{ "fail_page_alloc/min-order", "0" },
		{ "fail_page_alloc/verbose", "2" },
		{ "fail_page_alloc/verbose_ratelimit_interval_ms", "0" },
	};
	char path[256];

	if (access("/proc/thread-self/fail-nth", W_OK))
		return "no /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION)";
	for (size_t i = 0; i < ARRAY_SIZE(knobs); i++) {
		snprintf(path, sizeof(path), FI_DEBUGFS "/%s", knobs[i][0]);
		if (fi_write_file(path, knobs[i][1]))
			return "no failslab or fail_page_alloc in debugfs "
			       "(CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, "
			       "CONFIG_FAULT_INJECTION_DEBUG_FS)";
	}
	return NULL;
}

/* ------------------------------------------------------------------ */

/*
 * The state one operation starts from.  Its setup builds it from
 * nothing, with no failure injected; fi_close() takes all of it down.
 */
struct fi_state {
	struct tb_peer p;	/* the manager and provider under test */
	int more[3];		/* more providers, for lists and dumps */
	__u32 more_id[3];
	int fd;			/* a file the operation opened */
	int efd;
	void *map;		/* a mapping the operation made */
	size_t map_len;
	struct nl nl;
	struct tb_cats cats;	/* FI_CATS name/description pairs */
	struct tb_cats names;	/* provider names for SET_TRACING */
	struct tracebuf_pkt pkt;
	struct tracebuf_mgr_msg msg;
	char *cfg_cats;
	char *data;		/* fi_data: pread target, touched before use */
	__u32 count;
	struct dump dump;
};

static void fi_init(struct fi_state *s)
{
	tb_peer_init(&s->p);
	s->p.size = FI_SIZE;
	for (size_t i = 0; i < ARRAY_SIZE(s->more); i++)
		s->more[i] = -1;
	s->fd = s->efd = s->nl.fd = -1;
	s->map = NULL;
	s->cfg_cats = NULL;
	s->data = fi_data;
	if (s->data)
		memset(s->data, 0, FI_SIZE);
	memset(&s->cats, 0, sizeof(s->cats));
	memset(&s->names, 0, sizeof(s->names));
}

static void fi_close(struct fi_state *s)
{
	if (s->map)
		munmap(s->map, s->map_len);
	s->map = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(s->more); i++)
		tb_close(&s->more[i]);
	tb_close(&s->fd);
	tb_close(&s->efd);
	nl_close(&s->nl);
	tb_peer_close(&s->p);
	tb_cats_free(&s->cats);
	tb_cats_free(&s->names);
	free(s->cfg_cats);
	s->cfg_cats = NULL;
}

/* FI_CATS "name\0description\0" pairs: count is s->cats.count / 2. */
static int fi_pairs(struct fi_state *s)
{
	char str[64];
	int ret = 0;

	memset(&s->cats, 0, sizeof(s->cats));
	for (unsigned int i = 0; !ret && i < FI_CATS; i++) {
		snprintf(str, sizeof(str), "fi:cat%u", i);
		ret = tb_cats_add(&s->cats, str);
		snprintf(str, sizeof(str), "what category %u is for", i);
		if (!ret)
			ret = tb_cats_add(&s->cats, str);
	}
	return ret;
}

static int fi_publish(int fd, const struct tb_cats *c)
{
	struct tracebuf_known_args a = {
		.categories_ptr = tb_ptr(c->buf),
		.categories_size = c->size,
		.categories_count = c->count / 2,
	};

	return tb_ioctl(fd, TRACEBUF_IOC_PROVIDER_SET_CATEGORIES, &a);
}

static int fi_get_known(struct fi_state *s)
{
	struct tracebuf_get_known_args a = {
		.provider_id = s->p.id,
		.categories_ptr = tb_ptr(s->data),
		.categories_size = FI_SIZE,
	};
	int ret = tb_ioctl(s->p.mgr, TRACEBUF_IOC_MGR_GET_CATEGORIES, &a);

	s->count = a.categories_count;
	return ret;
}

static int fi_trace_names(int fd, const struct tb_cats *names)
{
	struct tracebuf_tracing_args a = {
		.tracing = 1,
		.names_ptr = tb_ptr(names->buf),
		.names_size = names->size,
		.names_count = names->count,
	};

	return tb_ioctl(fd, TRACEBUF_IOC_MGR_SET_TRACING, &a);
}

/* ------------------------------------------------------------------ */
/* fail-nth                                                           */

static int fi_arm(int nth, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	return pwrite(nth, buf, len, 0) == len ? 0 : -errno;
}

/* Disarm; 1 if the failure was injected, 0 if not, -errno. */
static int fi_disarm(int nth)
{
	char buf[16];
	ssize_t n = pread(nth, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	if (atoi(buf) == 0)
		return 1;
	return pwrite(nth, "0", 1, 0) == 1 ? 0 : -errno;
}

/* What an operation may answer when one of its allocations fails. */
static bool fi_errno_ok(int ret)
{
	/* ENFILE: socket() when the socket's inode cannot be allocated */
	return ret == -ENOMEM || ret == -ENOBUFS || ret == -ENFILE;
}

FIXTURE(fi) {
	int nth;
	struct fi_state s;
};

FIXTURE_SETUP(fi)
{
	const char *why;

	self->nth = -1;
	fi_init(&self->s);
	TB_REQUIRE_DEV();
	why = fi_configure();
	if (why)
		SKIP(return, "%s", why);
	ASSERT_TRUE(fi_totals != NULL);
	ASSERT_TRUE(fi_data != NULL);
	if (!fi_totals->have_users) {
		/* the module's users before the first test */
		if (!tb_read_text(FI_USERS, fi_totals->users,
				  sizeof(fi_totals->users)))
			fi_totals->have_users = true;
	}
	self->nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->nth);
}

FIXTURE_TEARDOWN(fi)
{
	if (self->nth >= 0)
		pwrite(self->nth, "0", 1, 0);
	fi_close(&self->s);
	tb_close(&self->nth);
}

typedef void (*fi_step)(struct __test_metadata *_metadata, struct fi_state *s);
typedef int (*fi_op)(struct fi_state *s);

/*
 * Run op from the state setup builds with its n-th allocation failing,
 * n = 1, 2, ... until no failure is injected; check (may be NULL) sees
 * the state after the operation succeeded.
 */
static void fi_run(struct __test_metadata *_metadata, int nth,
		   struct fi_state *s, const char *name, fi_step setup,
		   fi_op op, fi_step check)
{
	unsigned int n, points = 0, failed = 0;
	int ret, injected;

	for (n = 1;; n++) {
		ASSERT_GT((unsigned int)FI_MAX_N, n) TH_LOG("%s: still failing at allocation %u", name, n);
		fi_init(s);
		if (setup)
			setup(_metadata, s);
		fi_n = n;
		ASSERT_EQ(0, fi_arm(nth, n));
		ret = op(s);
		injected = fi_disarm(nth);
		ASSERT_LE(0, injected) TH_LOG("reading fail-nth: %s", strerror(-injected));
		if (ret) {
			ASSERT_TRUE(injected)
				TH_LOG("%s failed with no failure injected: %s", name,
				       strerror(-ret));
			ASSERT_TRUE(fi_errno_ok(ret))
				TH_LOG("%s, allocation %u failing: %s (%d)", name, n,
				       strerror(-ret), ret);
			failed++;
			/* nothing half done: it runs again from where it failed */
			ret = op(s);
			ASSERT_EQ(0, ret)
				TH_LOG("%s again after allocation %u failed: %s", name,
				       n, strerror(-ret));
		}
		if (check)
			check(_metadata, s);
		fi_close(s);
		if (!injected)
			break;
		points++;
	}
	ksft_print_msg("%s: %u failure points, %u failed the operation\n",
		       name, points, failed);
	fflush(stdout);
	__atomic_add_fetch(&fi_totals->points, points, __ATOMIC_RELAXED);
	__atomic_add_fetch(&fi_totals->failed, failed, __ATOMIC_RELAXED);
	__atomic_add_fetch(&fi_totals->ops, 1, __ATOMIC_RELAXED);
}

#define FI_RUN(name, setup, op, check) \
	fi_run(_metadata, self->nth, &self->s, name, setup, op, check)

/* ------------------------------------------------------------------ */
/* States                                                             */

static void st_open(struct __test_metadata *_metadata, struct fi_state *s)
{
	s->fd = tb_open();
	ASSERT_LE(0, s->fd);
}

/* A watching manager, and an open file with no role yet. */
static void st_watch_open(struct __test_metadata *_metadata, struct fi_state *s)
{
	s->p.mgr = tb_open_manager(TRACEBUF_ATTACH_F_WATCH, &s->p.mgr_id);
	ASSERT_LE(0, s->p.mgr);
	st_open(_metadata, s);
}

/* Three providers and an open file with no role yet. */
static void st_three_open(struct __test_metadata *_metadata, struct fi_state *s)
{
	char name[32];

	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "fi-more-%d", i);
		s->more[i] = tb_open_provider(name, &s->more_id[i]);
		ASSERT_LE(0, s->more[i]);
	}
	st_open(_metadata, s);
}

static void st_registered(struct __test_metadata *_metadata, struct fi_state *s)
{
	tb_peer_open(_metadata, &s->p, "fi-prov", TRACEBUF_ATTACH_F_WATCH);
	s->p.size = FI_SIZE;
	ASSERT_LE(0, tb_drain(s->p.mgr, sizeof(struct tracebuf_mgr_msg)));
	ASSERT_EQ(0, fi_pairs(s));
}

static void st_three(struct __test_metadata *_metadata, struct fi_state *s)
{
	st_registered(_metadata, s);
	st_three_open(_metadata, s);
	tb_close(&s->fd);
}

static void st_published(struct __test_metadata *_metadata, struct fi_state *s)
{
	st_registered(_metadata, s);
	ASSERT_EQ(0, fi_publish(s->p.prov, &s->cats));
}

static void st_initialized(struct __test_metadata *_metadata, struct fi_state *s)
{
	st_registered(_metadata, s);
	ASSERT_EQ(0, mgr_initialize(s->p.mgr, s->p.id, s->p.mode, s->p.size,
				    &s->cats, &s->p.buf_fd));
	tb_next_pkt(_metadata, s->p.prov, TRACEBUF_PKT_INITIALIZE, NULL);
}

/* INITIALIZE waits for the provider; its eventfd is not bound yet. */
static void st_init_pending(struct __test_metadata *_metadata, struct fi_state *s)
{
	st_registered(_metadata, s);
	ASSERT_EQ(0, mgr_initialize(s->p.mgr, s->p.id, s->p.mode, s->p.size,
				    NULL, &s->p.buf_fd));
	s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ASSERT_LE(0, s->efd);
}

/* A provider back in REGISTERED after a whole session. */
static void st_released(struct __test_metadata *_metadata, struct fi_state *s)
{
	st_initialized(_metadata, s);
	ASSERT_EQ(0, mgr_terminate(s->p.mgr, s->p.id));
	tb_next_pkt(_metadata, s->p.prov, TRACEBUF_PKT_TERMINATE, NULL);
	ASSERT_EQ(0, provider_release(s->p.prov));
	tb_next_msg(_metadata, s->p.mgr, s->p.id, TRACEBUF_MSG_TERMINATED,
		    TRACEBUF_STATE_REGISTERED, NULL);
	tb_close(&s->p.buf_fd);
}

static void st_start_pending(struct __test_metadata *_metadata, struct fi_state *s)
{
	st_initialized(_metadata, s);
	ASSERT_EQ(0, mgr_start(s->p.mgr, s->p.id, TRACEBUF_START_CLEAR_ENTIRE,
			       &s->cats));
}

static void st_starting(struct __test_metadata *_metadata, struct fi_state *s)
{
	st_start_pending(_metadata, s);
	tb_next_pkt(_metadata, s->p.prov, TRACEBUF_PKT_START, NULL);
}

static void st_started_pending(struct __test_metadata *_metadata, struct fi_state *s)
{
	st_starting(_metadata, s);
	ASSERT_EQ(0, provider_started(s->p.prov));
}

static void st_started(struct __test_metadata *_metadata, struct fi_state *s)
{
	st_started_pending(_metadata, s);
	tb_next_msg(_metadata, s->p.mgr, s->p.id, TRACEBUF_MSG_PACKET,
		    TRACEBUF_STATE_STARTED, NULL);
}

static void st_save_pending(struct __test_metadata *_metadata, struct fi_state *s)
{
	st_started(_metadata, s);
	ASSERT_EQ(0, provider_send(s->p.prov, TRACEBUF_PKT_SAVE_BUFFER, 0, 0, 0));
	tb_next_msg(_metadata, s->p.mgr, s->p.id, TRACEBUF_MSG_PACKET,
		    TRACEBUF_STATE_STARTED, NULL);
}

static void st_stopping(struct __test_metadata *_metadata, struct fi_state *s)
{
	st_started(_metadata, s);
	ASSERT_EQ(0, mgr_stop(s->p.mgr, s->p.id));
	tb_next_pkt(_metadata, s->p.prov, TRACEBUF_PKT_STOP, NULL);
}

static void st_terminating(struct __test_metadata *_metadata, struct fi_state *s)
{
	st_initialized(_metadata, s);
	ASSERT_EQ(0, mgr_terminate(s->p.mgr, s->p.id));
	tb_next_pkt(_metadata, s->p.prov, TRACEBUF_PKT_TERMINATE, NULL);
}

static void st_mapped(struct __test_metadata *_metadata, struct fi_state *s)
{
	st_initialized(_metadata, s);
	s->map_len = s->p.size;
	s->map = tb_map(s->p.prov, s->map_len, PROT_READ | PROT_WRITE, 0);
	ASSERT_MAPPED(s->map);
	memset(s->map, 0x5a, s->map_len);
}

static void st_genl(struct __test_metadata *_metadata, struct fi_state *s)
{
	st_three(_metadata, s);
	ASSERT_EQ(0, nl_open(&s->nl));
}

/* ------------------------------------------------------------------ */
/* Operations: one system call each, unless said otherwise            */

static int op_open(struct fi_state *s)
{
	if (s->fd < 0)
		s->fd = tb_open();
	return s->fd < 0 ? s->fd : 0;
}

static int op_register(struct fi_state *s)
{
	return register_provider(s->fd, "fi-new", 0, &s->p.id);
}

static int op_attach(struct fi_state *s)
{
	return attach_manager(s->fd, 0, &s->p.mgr_id);
}

static int op_attach_watch(struct fi_state *s)
{
	return attach_manager(s->fd, TRACEBUF_ATTACH_F_WATCH, &s->p.mgr_id);
}

static int op_provider_eventfd(struct fi_state *s)
{
	return set_eventfd(s->p.prov, s->efd);
}

static int op_publish(struct fi_state *s)
{
	return fi_publish(s->p.prov, &s->cats);
}

static int op_get_known(struct fi_state *s)
{
	return fi_get_known(s);
}

static int op_set_tracing(struct fi_state *s)
{
	return fi_trace_names(s->p.mgr, &s->names);
}

static int op_list(struct fi_state *s)
{
	static struct tracebuf_provider_info info[8];

	return mgr_list(s->p.mgr, 0, info, ARRAY_SIZE(info), &s->count, NULL);
}

static int op_initialize(struct fi_state *s)
{
	return mgr_initialize(s->p.mgr, s->p.id, s->p.mode, s->p.size,
			      &s->cats, &s->p.buf_fd);
}

static int op_get_config(struct fi_state *s)
{
	struct tracebuf_config_args cfg;

	free(s->cfg_cats);
	s->cfg_cats = NULL;
	return provider_config_all(s->p.prov, &cfg, &s->cfg_cats);
}

static int op_provider_mmap(struct fi_state *s)
{
	s->map_len = s->p.size;
	s->map = tb_map(s->p.prov, s->map_len, PROT_READ | PROT_WRITE, 0);
	if (s->map == MAP_FAILED) {
		s->map = NULL;
		return -errno;
	}
	return 0;
}

static int op_handle_mmap(struct fi_state *s)
{
	s->map_len = s->p.size;
	s->map = tb_map(s->p.buf_fd, s->map_len, PROT_READ, 0);
	if (s->map == MAP_FAILED) {
		s->map = NULL;
		return -errno;
	}
	return 0;
}

static int op_handle_pread(struct fi_state *s)
{
	ssize_t n = pread(s->p.buf_fd, s->data, FI_SIZE, 0);

	if (n < 0)
		return -errno;
	return n == (ssize_t)FI_SIZE ? 0 : -EIO;
}

/* Move the mapping elsewhere (a new VMA, the old one closed). */
static int op_mremap(struct fi_state *s)
{
	void *to = mremap(s->map, s->map_len, s->map_len, MREMAP_MAYMOVE);

	if (to == MAP_FAILED)
		return -errno;
	s->map = to;
	return 0;
}

/* Unmap one page in the middle: the VMA splits in two. */
static int op_munmap_middle(struct fi_state *s)
{
	if (munmap((char *)s->map + tb_page_size(), tb_page_size()))
		return -errno;
	return 0;
}

static int op_start(struct fi_state *s)
{
	return mgr_start(s->p.mgr, s->p.id, TRACEBUF_START_CLEAR_ENTIRE, &s->cats);
}

static int op_read_pkt(struct fi_state *s)
{
	return tb_read_pkt(s->p.prov, &s->pkt, 0);
}

static int op_read_msg(struct fi_state *s)
{
	return tb_read_msg(s->p.mgr, &s->msg, 0);
}

static int op_started(struct fi_state *s)
{
	return provider_started(s->p.prov);
}

static int op_save_buffer(struct fi_state *s)
{
	return provider_send(s->p.prov, TRACEBUF_PKT_SAVE_BUFFER, 0, 0, 0);
}

static int op_buffer_saved(struct fi_state *s)
{
	return mgr_buffer_saved(s->p.mgr, s->p.id, 0, 0);
}

static int op_alert(struct fi_state *s)
{
	return provider_alert(s->p.prov, "fi-alert");
}

static int op_stop(struct fi_state *s)
{
	return mgr_stop(s->p.mgr, s->p.id);
}

static int op_stopped(struct fi_state *s)
{
	return provider_stopped(s->p.prov);
}

static int op_terminate(struct fi_state *s)
{
	return mgr_terminate(s->p.mgr, s->p.id);
}

static int op_release(struct fi_state *s)
{
	return provider_release(s->p.prov);
}

/* close() cannot fail: what the peer is told must not be lost */
static int op_close_provider(struct fi_state *s)
{
	tb_close(&s->p.prov);
	return 0;
}

static int op_close_manager(struct fi_state *s)
{
	tb_close(&s->p.mgr);
	return 0;
}

static int op_close_handle(struct fi_state *s)
{
	tb_close(&s->p.buf_fd);
	return 0;
}

static int op_nl_open(struct fi_state *s)
{
	nl_close(&s->nl);
	return nl_open(&s->nl);
}

static int op_nl_get(struct fi_state *s)
{
	static struct gprov g;

	return nl_get(&s->nl, s->p.id, &g);
}

static int op_nl_dump(struct fi_state *s)
{
	return nl_dump(&s->nl, &s->dump);
}

/* ------------------------------------------------------------------ */
/* Checks: the effect is there, as if nothing had failed              */

static void ck_open(struct __test_metadata *_metadata, struct fi_state *s)
{
	struct tracebuf_version_args v;

	ASSERT_EQ(0, tb_version(s->fd, &v));
}

static void ck_registered(struct __test_metadata *_metadata, struct fi_state *s)
{
	ASSERT_EQ(TRACEBUF_STATE_REGISTERED, mgr_state(s->p.mgr, s->p.id));
	/* the watcher heard of it (once, or twice after a retry) */
	ASSERT_LE(1, tb_drain(s->p.mgr, sizeof(struct tracebuf_mgr_msg)));
}

static void ck_attached(struct __test_metadata *_metadata, struct fi_state *s)
{
	ASSERT_NE(0U, s->p.mgr_id);
	ASSERT_EQ(3, mgr_count(s->fd, 0));
}

static void ck_eventfd(struct __test_metadata *_metadata, struct fi_state *s)
{
	__u64 v;

	ASSERT_EQ((ssize_t)sizeof(v), read(s->efd, &v, sizeof(v)))
		TH_LOG("a packet was waiting: the eventfd must be signalled");
}

static void ck_known(struct __test_metadata *_metadata, struct fi_state *s)
{
	ASSERT_EQ(0, fi_get_known(s));
	ASSERT_EQ((__u32)FI_CATS, s->count);
}

/* A provider the list names is told to wait for its start; others not. */
static void ck_tracing(struct __test_metadata *_metadata, struct fi_state *s)
{
	static const char *const names[] = { "fi-traced", "fi-untraced" };
	__u32 id, status;

	for (int i = 0; i < 2; i++) {
		s->fd = tb_open();
		ASSERT_LE(0, s->fd);
		ASSERT_EQ(0, register_provider_ex(s->fd, names[i], strlen(names[i]),
						  TRACEBUF_REGISTER_F_SYNC, &id, &status));
		ASSERT_EQ(i == 0 ? (__u32)TRACEBUF_REGISTER_STARTED : 0U, status)
			TH_LOG("%s", names[i]);
		tb_close(&s->fd);
	}
}

static void ck_list(struct __test_metadata *_metadata, struct fi_state *s)
{
	ASSERT_EQ(4U, s->count);
}

static void ck_initialized(struct __test_metadata *_metadata, struct fi_state *s)
{
	tb_next_pkt(_metadata, s->p.prov, TRACEBUF_PKT_INITIALIZE, NULL);
	ASSERT_LE(0, s->p.buf_fd);
	ASSERT_EQ(TRACEBUF_STATE_INITIALIZED, mgr_state(s->p.mgr, s->p.id));
}

static void ck_config(struct __test_metadata *_metadata, struct fi_state *s)
{
	ASSERT_TRUE(s->cfg_cats != NULL);
	ASSERT_EQ(0, memcmp(s->cfg_cats, s->cats.buf, s->cats.size));
}

/* The provider's mapping and the manager's handle show the same bytes. */
static void ck_mapped(struct __test_metadata *_metadata, struct fi_state *s)
{
	const unsigned char *c = s->map;

	ASSERT_TRUE(s->map != NULL);
	memset(s->map, 0xa5, s->map_len);
	ASSERT_EQ((ssize_t)FI_SIZE, pread(s->p.buf_fd, s->data, FI_SIZE, 0));
	for (size_t i = 0; i < s->map_len; i++) {
		ASSERT_EQ(c[i], (unsigned char)s->data[i])
			TH_LOG("offset %zu of %zu, n=%u", i, s->map_len, fi_n);
	}
	ASSERT_EQ(0xa5, c[s->map_len - 1]);
}

static void ck_handle_mapped(struct __test_metadata *_metadata, struct fi_state *s)
{
	ASSERT_TRUE(s->map != NULL);
	ASSERT_EQ((ssize_t)FI_SIZE, pread(s->p.buf_fd, s->data, FI_SIZE, 0));
	ASSERT_EQ(0, memcmp(s->data, s->map, s->map_len));
}

static void ck_pread(struct __test_metadata *_metadata, struct fi_state *s)
{
	const unsigned char *c = (const unsigned char *)s->data;

	ASSERT_EQ(0x5a, c[FI_SIZE - 1]);
}

static void ck_remapped(struct __test_metadata *_metadata, struct fi_state *s)
{
	const unsigned char *c = s->map;

	ASSERT_EQ(0x5a, c[0]);
	ASSERT_EQ(0x5a, c[s->map_len - 1]);
}

static void ck_split(struct __test_metadata *_metadata, struct fi_state *s)
{
	unsigned char *c = s->map;

	ASSERT_EQ(0x5a, c[0]);
	ASSERT_EQ(0x5a, c[s->map_len - 1]);
	munmap(s->map, tb_page_size());
	munmap(c + 2 * tb_page_size(), s->map_len - 2 * tb_page_size());
	s->map = NULL;
}

static void ck_start_pkt(struct __test_metadata *_metadata, struct fi_state *s)
{
	tb_next_pkt(_metadata, s->p.prov, TRACEBUF_PKT_START, NULL);
	ASSERT_EQ(TRACEBUF_STATE_STARTING, mgr_state(s->p.mgr, s->p.id));
}

static void ck_read_start(struct __test_metadata *_metadata, struct fi_state *s)
{
	ASSERT_EQ(TRACEBUF_PKT_START, s->pkt.request);
	EXPECT_EMPTY(s->p.prov);
}

/* The packet reached the manager, once. */
static void ck_msg_packet(struct __test_metadata *_metadata, struct fi_state *s)
{
	ASSERT_EQ(0, tb_read_msg(s->p.mgr, &s->msg, TB_TIMEOUT_MS));
	ASSERT_EQ(TRACEBUF_MSG_PACKET, s->msg.type);
	EXPECT_EMPTY(s->p.mgr);
}

static void ck_read_msg(struct __test_metadata *_metadata, struct fi_state *s)
{
	ASSERT_EQ(TRACEBUF_MSG_PACKET, s->msg.type);
	ASSERT_EQ(TRACEBUF_PKT_STARTED, s->msg.pkt.request);
	EXPECT_EMPTY(s->p.mgr);
}

static void ck_saved_pkt(struct __test_metadata *_metadata, struct fi_state *s)
{
	tb_next_pkt(_metadata, s->p.prov, TRACEBUF_PKT_BUFFER_SAVED, NULL);
}

static void ck_stop_pkt(struct __test_metadata *_metadata, struct fi_state *s)
{
	tb_next_pkt(_metadata, s->p.prov, TRACEBUF_PKT_STOP, NULL);
}

static void ck_terminate_pkt(struct __test_metadata *_metadata, struct fi_state *s)
{
	tb_next_pkt(_metadata, s->p.prov, TRACEBUF_PKT_TERMINATE, NULL);
}

static void ck_terminated(struct __test_metadata *_metadata, struct fi_state *s)
{
	tb_next_msg(_metadata, s->p.mgr, s->p.id, TRACEBUF_MSG_TERMINATED,
		    TRACEBUF_STATE_REGISTERED, NULL);
	ASSERT_EQ(TRACEBUF_STATE_REGISTERED, provider_state(s->p.prov));
}

static void ck_gone(struct __test_metadata *_metadata, struct fi_state *s)
{
	tb_next_msg(_metadata, s->p.mgr, s->p.id, TRACEBUF_MSG_GONE,
		    TRACEBUF_STATE_STARTED, NULL);
}

static void ck_manager_gone(struct __test_metadata *_metadata, struct fi_state *s)
{
	tb_next_pkt(_metadata, s->p.prov, TRACEBUF_PKT_MANAGER_GONE, NULL);
}

/* The mapping outlives the handle and still shows the buffer. */
static void ck_handle_closed(struct __test_metadata *_metadata, struct fi_state *s)
{
	const unsigned char *c = s->map;

	ASSERT_EQ(0x5a, c[s->map_len - 1]);
}

static void ck_nl_get(struct __test_metadata *_metadata, struct fi_state *s)
{
	struct gprov g;

	ASSERT_EQ(0, nl_get(&s->nl, s->p.id, &g));
	ASSERT_EQ(s->p.id, g.id);
}

static void ck_nl_dump(struct __test_metadata *_metadata, struct fi_state *s)
{
	ASSERT_TRUE(dump_find(&s->dump, s->p.id) != NULL);
	for (int i = 0; i < 3; i++)
		ASSERT_TRUE(dump_find(&s->dump, s->more_id[i]) != NULL);
}

/* ------------------------------------------------------------------ */

static void st_oneshot(struct __test_metadata *_metadata, struct fi_state *s)
{
	st_registered(_metadata, s);
	s->p.mode = TRACEBUF_MODE_ONESHOT;
}

static void st_circular(struct __test_metadata *_metadata, struct fi_state *s)
{
	st_registered(_metadata, s);
	s->p.mode = TRACEBUF_MODE_CIRCULAR;
}

/* A manager that traces only the providers it names. */
static void st_tracing(struct __test_metadata *_metadata, struct fi_state *s)
{
	s->p.mgr = tb_open_manager(0, &s->p.mgr_id);
	ASSERT_LE(0, s->p.mgr);
	ASSERT_EQ(0, tb_cats_build(&s->names, "fi-other", "fi-traced", NULL));
}

TEST_F(fi, open)
{
	FI_RUN("open", NULL, op_open, ck_open);
}

TEST_F(fi, register)
{
	FI_RUN("REGISTER", st_watch_open, op_register, ck_registered);
}

TEST_F(fi, attach)
{
	FI_RUN("ATTACH", st_three_open, op_attach, ck_attached);
}

TEST_F(fi, attach_watch)
{
	FI_RUN("ATTACH F_WATCH", st_three_open, op_attach_watch, ck_attached);
}

TEST_F(fi, set_eventfd)
{
	FI_RUN("SET_EVENTFD", st_init_pending, op_provider_eventfd, ck_eventfd);
}

TEST_F(fi, publish_categories)
{
	FI_RUN("PROVIDER_SET_CATEGORIES", st_registered, op_publish, ck_known);
}

TEST_F(fi, get_categories)
{
	FI_RUN("MGR_GET_CATEGORIES", st_published, op_get_known, ck_known);
}

TEST_F(fi, set_tracing)
{
	FI_RUN("MGR_SET_TRACING", st_tracing, op_set_tracing, ck_tracing);
}

TEST_F(fi, list)
{
	FI_RUN("MGR_LIST", st_three, op_list, ck_list);
}

TEST_F(fi, initialize_oneshot)
{
	FI_RUN("MGR_INITIALIZE oneshot", st_oneshot, op_initialize, ck_initialized);
}

TEST_F(fi, initialize_circular)
{
	FI_RUN("MGR_INITIALIZE circular", st_circular, op_initialize, ck_initialized);
}

TEST_F(fi, initialize_streaming)
{
	FI_RUN("MGR_INITIALIZE streaming", st_registered, op_initialize, ck_initialized);
}

TEST_F(fi, initialize_again)
{
	FI_RUN("MGR_INITIALIZE after a session", st_released, op_initialize,
	       ck_initialized);
}

TEST_F(fi, get_config)
{
	FI_RUN("PROVIDER_GET_CONFIG", st_initialized, op_get_config, ck_config);
}

TEST_F(fi, provider_mmap)
{
	FI_RUN("provider mmap", st_initialized, op_provider_mmap, ck_mapped);
}

TEST_F(fi, handle_mmap)
{
	FI_RUN("handle mmap", st_initialized, op_handle_mmap, ck_handle_mapped);
}

TEST_F(fi, handle_pread)
{
	FI_RUN("handle pread", st_mapped, op_handle_pread, ck_pread);
}

TEST_F(fi, mremap)
{
	FI_RUN("mremap", st_mapped, op_mremap, ck_remapped);
}

TEST_F(fi, munmap_split)
{
	FI_RUN("munmap of a middle page", st_mapped, op_munmap_middle, ck_split);
}

TEST_F(fi, start)
{
	FI_RUN("MGR_START", st_initialized, op_start, ck_start_pkt);
}

TEST_F(fi, provider_read)
{
	FI_RUN("provider read", st_start_pending, op_read_pkt, ck_read_start);
}

TEST_F(fi, started)
{
	FI_RUN("PROVIDER_SEND STARTED", st_starting, op_started, ck_msg_packet);
}

TEST_F(fi, manager_read)
{
	FI_RUN("manager read", st_started_pending, op_read_msg, ck_read_msg);
}

TEST_F(fi, save_buffer)
{
	FI_RUN("PROVIDER_SEND SAVE_BUFFER", st_started, op_save_buffer, ck_msg_packet);
}

TEST_F(fi, buffer_saved)
{
	FI_RUN("MGR_SEND BUFFER_SAVED", st_save_pending, op_buffer_saved, ck_saved_pkt);
}

TEST_F(fi, alert)
{
	FI_RUN("PROVIDER_SEND ALERT", st_started, op_alert, ck_msg_packet);
}

TEST_F(fi, stop)
{
	FI_RUN("MGR_STOP", st_started, op_stop, ck_stop_pkt);
}

TEST_F(fi, stopped)
{
	FI_RUN("PROVIDER_SEND STOPPED", st_stopping, op_stopped, ck_msg_packet);
}

TEST_F(fi, terminate)
{
	FI_RUN("MGR_TERMINATE", st_initialized, op_terminate, ck_terminate_pkt);
}

TEST_F(fi, release)
{
	FI_RUN("PROVIDER_RELEASE", st_terminating, op_release, ck_terminated);
}

TEST_F(fi, close_provider)
{
	FI_RUN("close of a started provider", st_started, op_close_provider, ck_gone);
}

TEST_F(fi, close_manager)
{
	FI_RUN("close of its manager", st_started, op_close_manager, ck_manager_gone);
}

TEST_F(fi, close_handle)
{
	FI_RUN("close of a mapped buffer's handle", st_mapped, op_close_handle,
	       ck_handle_closed);
}

TEST_F(fi, genl_family)
{
	FI_RUN("netlink family lookup", st_three, op_nl_open, NULL);
}

TEST_F(fi, genl_get)
{
	FI_RUN("netlink PROVIDER_GET", st_genl, op_nl_get, ck_nl_get);
}

TEST_F(fi, genl_dump)
{
	FI_RUN("netlink PROVIDER_GET dump", st_genl, op_nl_dump, ck_nl_dump);
}

/*
 * Last: everything above is closed.  The module has given every share
 * back (buffers are freed by a worker: give it time), and works.
 */
TEST_F(fi, idle_and_usable_after)
{
	char users[sizeof(fi_totals->users)];
	struct tb_peer p;
	int i;

	ASSERT_TRUE(fi_totals->have_users);
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, tb_read_text(FI_USERS, users, sizeof(users)));
		if (!strcmp(users, fi_totals->users))
			break;
		tb_msleep(100);
	}
	ASSERT_STREQ(fi_totals->users, users)
		TH_LOG("per-user shares still held after every file was closed");

	tb_peer_open(_metadata, &p, "fi-after", 0);
	p.size = FI_SIZE;
	tb_drive(_metadata, &p, TRACEBUF_STATE_STOPPED);
	tb_peer_close(&p);

	ksft_print_msg("%u failure points exercised in %u operations; %u failed the operation, %u were absorbed\n",
		       fi_totals->points, fi_totals->ops, fi_totals->failed,
		       fi_totals->points - fi_totals->failed);
	fflush(stdout);
}

TEST_HARNESS_MAIN
