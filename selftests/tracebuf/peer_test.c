// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf peers going away: a provider SIGKILLed while writing records
 * (its buffer stays readable through the manager's handle with every
 * completed record), a manager SIGKILLed (its providers get MANAGER_GONE
 * and can be initialized again), clean closes in every state, and how the
 * provider's process ended, as MSG_GONE tells it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>

#include "tracebuf_selftests.h"

/* ------------------------------------------------------------------ */
/* Records written by the doomed provider                             */

#define TB_REC_MAGIC	0x7462ULL	/* "tb" in the top 16 bits */
#define TB_REC_MAX	9		/* words per record */

static __u64 tb_rec_header(__u32 seq, unsigned int words)
{
	return (TB_REC_MAGIC << 48) | ((__u64)words << 32) | seq;
}

static __u64 tb_rec_word(__u32 seq, unsigned int i)
{
	return (seq + 1) * 0x9e3779b97f4a7c15ULL + i;
}

static unsigned int tb_rec_words(__u32 seq)
{
	return 2 + seq % (TB_REC_MAX - 1);
}

/*
 * Check the records in buf[0..end): consecutive sequence numbers from 0,
 * every word as written.  Returns the number of records, or -1 with the
 * offset of the first bad word in *bad.
 */
static long tb_check_records(const __u64 *buf, __u64 end, __u64 *bad)
{
	__u64 off = 0;
	__u32 seq = 0;
	unsigned int i, words;

	while (off < end / 8) {
		words = tb_rec_words(seq);
		if (buf[off] != tb_rec_header(seq, words) ||
		    off + words > end / 8) {
			*bad = off * 8;
			return -1;
		}
		for (i = 1; i < words; i++) {
			if (buf[off + i] != tb_rec_word(seq, i)) {
				*bad = (off + i) * 8;
				return -1;
			}
		}
		off += words;
		seq++;
	}
	return seq;
}

/*
 * The provider process: register, report the id on out_fd, map the
 * buffer at INITIALIZE, answer START, then write records into rolling
 * buffer 0 and publish rolling_data_end[0] with a release store after
 * each complete one.  When the buffer is full, keep scribbling an
 * unpublished record at the end until killed.  Never returns.
 */
static void __attribute__((noreturn)) tb_writer(int out_fd)
{
	struct tracebuf_buffer_header *hdr;
	struct tracebuf_pkt pkt;
	__u64 *rolling, off = 0, cap;
	__u32 seq = 0, id;
	unsigned int i = 0, words;
	char *map;
	int fd;

	fd = tb_open_provider("doomed-writer", &id);
	if (fd < 0 || write(out_fd, &id, sizeof(id)) != sizeof(id))
		_exit(10);
	if (tb_read_pkt(fd, &pkt, -1) || pkt.request != TRACEBUF_PKT_INITIALIZE)
		_exit(11);
	map = tb_map(fd, pkt.data64, PROT_READ | PROT_WRITE, 0);
	if (map == MAP_FAILED)
		_exit(12);
	hdr = (struct tracebuf_buffer_header *)map;
	rolling = (__u64 *)(map + TRACEBUF_HEADER_SIZE + hdr->durable_buffer_size);
	cap = hdr->rolling_buffer_size / 8;
	if (tb_read_pkt(fd, &pkt, -1) || pkt.request != TRACEBUF_PKT_START)
		_exit(13);
	if (provider_started(fd))
		_exit(14);
	for (;;) {
		words = tb_rec_words(seq);
		if (off + words > cap) {
			/* mid-write forever: never published */
			for (;;)
				rolling[off] = tb_rec_header(seq, words) ^ ++i;
		}
		rolling[off] = tb_rec_header(seq, words);
		for (i = 1; i < words; i++)
			rolling[off + i] = tb_rec_word(seq, i);
		off += words;
		seq++;
		__atomic_store_n(&hdr->rolling_data_end[0], off * 8,
				 __ATOMIC_RELEASE);
		if (!(seq % 64))
			sched_yield();
	}
}

FIXTURE(killed_provider) {
	int mgr;
	int buf_fd;
	pid_t child;
	__u32 id;
	size_t size;
	const struct tracebuf_buffer_header *view;	/* manager's mapping */
};

FIXTURE_SETUP(killed_provider)
{
	struct tracebuf_pkt started = tb_pkt(TRACEBUF_PKT_STARTED, 0, 1, 0);
	int pfd[2];

	self->mgr = self->buf_fd = -1;
	self->child = -1;
	self->view = MAP_FAILED;
	self->size = 256 * 1024;
	TB_REQUIRE_DEV();
	self->mgr = tb_open_manager(0, NULL);
	ASSERT_LE(0, self->mgr);
	ASSERT_EQ(0, pipe(pfd));
	self->child = fork();
	ASSERT_LE(0, self->child);
	if (self->child == 0) {
		close(pfd[0]);
		tb_writer(pfd[1]);
	}
	close(pfd[1]);
	ASSERT_EQ((ssize_t)sizeof(self->id), read(pfd[0], &self->id,
						  sizeof(self->id)));
	close(pfd[0]);
	ASSERT_EQ(0, mgr_initialize(self->mgr, self->id, TRACEBUF_MODE_CIRCULAR,
				    self->size, NULL, &self->buf_fd));
	self->view = tb_map(self->buf_fd, self->size, PROT_READ, 0);
	ASSERT_MAPPED(self->view);
	ASSERT_EQ(0, mgr_start(self->mgr, self->id, TRACEBUF_START_CLEAR_ENTIRE,
			       NULL));
	tb_next_msg_pkt(_metadata, self->mgr, self->id, TRACEBUF_STATE_STARTED,
			&started);
}

FIXTURE_TEARDOWN(killed_provider)
{
	if (self->child > 0) {
		kill(self->child, SIGKILL);
		tb_wait_child(self->child);
	}
	if (self->view != MAP_FAILED)
		munmap((void *)self->view, self->size);
	tb_close(&self->buf_fd);
	tb_close(&self->mgr);
}

/* Wait until the writer has published at least min bytes; returns them. */
static __u64 tb_wait_published(const struct tracebuf_buffer_header *view,
			       __u64 min)
{
	__u64 end = 0;
	int ms;

	for (ms = 0; ms < TB_TIMEOUT_MS; ms++) {
		end = __atomic_load_n(&view->rolling_data_end[0],
				      __ATOMIC_ACQUIRE);
		if (end >= min)
			break;
		tb_msleep(1);
	}
	return end;
}

/* SIGKILL the writer once it has published min bytes. */
static __u64 tb_kill_writer(struct __test_metadata *_metadata,
			    FIXTURE_DATA(killed_provider) *self, __u64 min)
{
	__u64 seen = tb_wait_published(self->view, min);

	ASSERT_LE(min, seen) TH_LOG("the writer published only %llu bytes",
				    (unsigned long long)seen);
	ASSERT_EQ(0, kill(self->child, SIGKILL));
	EXPECT_EQ(128 + SIGKILL, tb_wait_child(self->child));
	self->child = -1;
	return seen;
}

TEST_F(killed_provider, manager_told_gone_with_last_state)
{
	struct tracebuf_mgr_msg msg;

	tb_kill_writer(_metadata, self, 1024);
	tb_next_msg(_metadata, self->mgr, self->id, TRACEBUF_MSG_GONE,
		    TRACEBUF_STATE_STARTED, &msg);
	EXPECT_EQ(0, msg.pkt.request);
	EXPECT_EQ(TRACEBUF_GONE_EXITED, msg.pkt.data16);
	EXPECT_EQ((__u32)SIGKILL, msg.pkt.data32);
	EXPECT_EQ(0ULL, msg.pkt.data64);
	EXPECT_EQ(-ESRCH, mgr_find(self->mgr, self->id, NULL));
	EXPECT_EQ(-ESRCH, mgr_stop(self->mgr, self->id));
	EXPECT_EQ(-ESRCH, mgr_terminate(self->mgr, self->id));
}

TEST_F(killed_provider, completed_records_readable_by_pread)
{
	struct tracebuf_buffer_header hdr;
	__u64 durable, rolling, seen, end, bad = 0;
	__u64 *data;
	long n;

	tb_buffer_sizes(TRACEBUF_MODE_CIRCULAR, self->size, &durable, &rolling);
	seen = tb_kill_writer(_metadata, self, rolling / 4);
	tb_next_msg(_metadata, self->mgr, self->id, TRACEBUF_MSG_GONE,
		    TRACEBUF_STATE_STARTED, NULL);
	ASSERT_EQ((ssize_t)sizeof(hdr), pread(self->buf_fd, &hdr, sizeof(hdr), 0));
	EXPECT_EQ(TRACEBUF_HEADER_MAGIC, hdr.magic);
	EXPECT_EQ(rolling, hdr.rolling_buffer_size);
	end = hdr.rolling_data_end[0];
	EXPECT_LE(seen, end);
	ASSERT_LE(end, rolling);
	EXPECT_EQ(0ULL, end % 8);
	data = malloc(rolling);
	ASSERT_TRUE(data != NULL);
	ASSERT_EQ((ssize_t)rolling, pread(self->buf_fd, data, rolling,
					  TRACEBUF_HEADER_SIZE + durable));
	n = tb_check_records(data, end, &bad);
	EXPECT_LT(0, n) TH_LOG("bad record word at rolling offset %llu",
			       (unsigned long long)bad);
	free(data);
}

TEST_F(killed_provider, completed_records_readable_by_new_mapping)
{
	const struct tracebuf_buffer_header *hdr;
	__u64 durable, rolling, end, bad = 0;
	void *map;

	tb_buffer_sizes(TRACEBUF_MODE_CIRCULAR, self->size, &durable, &rolling);
	tb_kill_writer(_metadata, self, 4096);
	tb_next_msg(_metadata, self->mgr, self->id, TRACEBUF_MSG_GONE,
		    TRACEBUF_STATE_STARTED, NULL);
	/* the old mapping went with nothing: map it again after the death */
	munmap((void *)self->view, self->size);
	self->view = MAP_FAILED;
	map = tb_map(self->buf_fd, self->size, PROT_READ, 0);
	ASSERT_MAPPED(map);
	hdr = map;
	end = hdr->rolling_data_end[0];
	ASSERT_LE(end, rolling);
	EXPECT_LT(0, tb_check_records((const __u64 *)((char *)map +
				      TRACEBUF_HEADER_SIZE + durable),
				      end, &bad))
		TH_LOG("bad record word at rolling offset %llu",
		       (unsigned long long)bad);
	munmap(map, self->size);
}

TEST_F(killed_provider, handle_outlives_manager_file)
{
	struct tracebuf_buffer_header hdr;

	tb_kill_writer(_metadata, self, 1024);
	tb_close(&self->mgr);
	ASSERT_EQ((ssize_t)sizeof(hdr), pread(self->buf_fd, &hdr, sizeof(hdr), 0));
	EXPECT_EQ(TRACEBUF_HEADER_MAGIC, hdr.magic);
	EXPECT_LE(1024ULL, hdr.rolling_data_end[0]);
}

/* ------------------------------------------------------------------ */
/* A manager killed while owning providers                            */

#define TB_MGR_PROVIDERS 2

FIXTURE(killed_manager) {
	int prov[TB_MGR_PROVIDERS];
	__u32 id[TB_MGR_PROVIDERS];
	pid_t child;
	char *old_map;		/* provider 0's mapping of the first buffer */
};

/* 16 pages: 64 KiB with 4 KiB pages */
#define TB_OLD_SIZE (16 * tb_page_size())

/*
 * The manager process: initialize provider 0 (streaming, TB_OLD_SIZE) and
 * provider 1 (oneshot, the smallest buffer), start provider 0, report on
 * out_fd, wait for death.
 */
static void __attribute__((noreturn)) tb_doomed_manager(const __u32 *id,
							int out_fd)
{
	char ok = 'k';
	int mgr;

	mgr = tb_open_manager(0, NULL);
	if (mgr < 0)
		_exit(10);
	if (mgr_initialize(mgr, id[0], TRACEBUF_MODE_STREAMING, TB_OLD_SIZE,
			   NULL, NULL))
		_exit(11);
	if (mgr_initialize(mgr, id[1], TRACEBUF_MODE_ONESHOT, tb_buffer_min(),
			   NULL, NULL))
		_exit(12);
	if (mgr_start(mgr, id[0], TRACEBUF_START_CLEAR_ENTIRE, NULL))
		_exit(13);
	if (write(out_fd, &ok, 1) != 1)
		_exit(14);
	for (;;)
		pause();
}

FIXTURE_SETUP(killed_manager)
{
	struct tracebuf_pkt pkt;
	char ok;
	int i, pfd[2];

	for (i = 0; i < TB_MGR_PROVIDERS; i++)
		self->prov[i] = -1;
	self->child = -1;
	self->old_map = MAP_FAILED;
	TB_REQUIRE_DEV();
	for (i = 0; i < TB_MGR_PROVIDERS; i++) {
		self->prov[i] = tb_open_provider(i ? "orphan-1" : "orphan-0",
						 &self->id[i]);
		ASSERT_LE(0, self->prov[i]);
	}
	ASSERT_EQ(0, pipe(pfd));
	self->child = fork();
	ASSERT_LE(0, self->child);
	if (self->child == 0) {
		close(pfd[0]);
		tb_doomed_manager(self->id, pfd[1]);
	}
	close(pfd[1]);
	ASSERT_EQ(1, read(pfd[0], &ok, 1));
	close(pfd[0]);
	/* provider 0 takes its INITIALIZE, maps and writes; START is left */
	tb_next_pkt(_metadata, self->prov[0], TRACEBUF_PKT_INITIALIZE, &pkt);
	self->old_map = tb_map(self->prov[0], TB_OLD_SIZE,
			       PROT_READ | PROT_WRITE, 0);
	ASSERT_MAPPED(self->old_map);
	/* its second page */
	memset(self->old_map + tb_page_size(), 0x5a, tb_page_size());
	ASSERT_EQ(0, kill(self->child, SIGKILL));
	ASSERT_EQ(128 + SIGKILL, tb_wait_child(self->child));
	self->child = -1;
}

FIXTURE_TEARDOWN(killed_manager)
{
	int i;

	if (self->child > 0) {
		kill(self->child, SIGKILL);
		tb_wait_child(self->child);
	}
	if (self->old_map != MAP_FAILED)
		munmap(self->old_map, TB_OLD_SIZE);
	for (i = 0; i < TB_MGR_PROVIDERS; i++)
		tb_close(&self->prov[i]);
}

TEST_F(killed_manager, each_provider_gets_only_manager_gone)
{
	int i;

	for (i = 0; i < TB_MGR_PROVIDERS; i++) {
		/* the unread START / INITIALIZE were flushed */
		tb_next_pkt(_metadata, self->prov[i],
			    TRACEBUF_PKT_MANAGER_GONE, NULL);
		EXPECT_EMPTY(self->prov[i]);
	}
}

TEST_F(killed_manager, providers_registered_again)
{
	struct tracebuf_provider_info info;
	int i, mgr;

	mgr = tb_open_manager(0, NULL);
	ASSERT_LE(0, mgr);
	for (i = 0; i < TB_MGR_PROVIDERS; i++) {
		EXPECT_EQ(TRACEBUF_STATE_REGISTERED,
			  provider_state(self->prov[i]));
		ASSERT_EQ(0, mgr_find(mgr, self->id[i], &info));
		EXPECT_EQ((__u32)TRACEBUF_STATE_REGISTERED, info.state);
		EXPECT_EQ(0U, info.manager_id);
		EXPECT_EQ(0ULL, info.buffer_size);
		/* packets are refused now */
		EXPECT_EQ(-EPROTO, provider_started(self->prov[i]));
	}
	close(mgr);
}

TEST_F(killed_manager, old_mapping_stays_valid)
{
	size_t page = tb_page_size(), i;

	for (i = 0; i < page; i++) {
		ASSERT_EQ(0x5a, (unsigned char)self->old_map[page + i]);
	}
	memset(self->old_map, 0xa5, TB_OLD_SIZE);
	EXPECT_EQ(0xa5, (unsigned char)self->old_map[TB_OLD_SIZE - 1]);
}

TEST_F(killed_manager, new_manager_initializes_again)
{
	const struct tracebuf_buffer_header *hdr;
	struct tracebuf_pkt pkt;
	int mgr, buf_fd = -1;
	char *map;

	tb_next_pkt(_metadata, self->prov[0], TRACEBUF_PKT_MANAGER_GONE, NULL);
	mgr = tb_open_manager(0, NULL);
	ASSERT_LE(0, mgr);
	ASSERT_EQ(0, mgr_initialize(mgr, self->id[0], TRACEBUF_MODE_CIRCULAR,
				    2 * TB_OLD_SIZE, NULL, &buf_fd));
	tb_next_pkt(_metadata, self->prov[0], TRACEBUF_PKT_INITIALIZE, &pkt);
	EXPECT_EQ(2ULL * TB_OLD_SIZE, pkt.data64);
	/* a new, zeroed buffer; the old mapping is separate memory */
	map = tb_map(self->prov[0], 2 * TB_OLD_SIZE, PROT_READ | PROT_WRITE, 0);
	ASSERT_MAPPED(map);
	hdr = (const void *)map;
	EXPECT_EQ(TRACEBUF_HEADER_MAGIC, hdr->magic);
	EXPECT_EQ((__u64)2 * TB_OLD_SIZE, hdr->total_size);
	EXPECT_EQ(0, map[tb_page_size()]);
	EXPECT_EQ(0x5a, (unsigned char)self->old_map[tb_page_size()]);
	EXPECT_EQ(0, mgr_start(mgr, self->id[0], TRACEBUF_START_RETAIN, NULL));
	munmap(map, 2 * TB_OLD_SIZE);
	close(buf_fd);
	close(mgr);
}

/* ------------------------------------------------------------------ */
/* Clean closes in every state                                        */

FIXTURE(close_in) {
	struct tb_peer p;
};

FIXTURE_VARIANT(close_in) {
	int state;
};

FIXTURE_VARIANT_ADD(close_in, registered) { .state = TRACEBUF_STATE_REGISTERED };
FIXTURE_VARIANT_ADD(close_in, initialized) { .state = TRACEBUF_STATE_INITIALIZED };
FIXTURE_VARIANT_ADD(close_in, starting) { .state = TRACEBUF_STATE_STARTING };
FIXTURE_VARIANT_ADD(close_in, started) { .state = TRACEBUF_STATE_STARTED };
FIXTURE_VARIANT_ADD(close_in, stopping) { .state = TRACEBUF_STATE_STOPPING };
FIXTURE_VARIANT_ADD(close_in, stopped) { .state = TRACEBUF_STATE_STOPPED };
FIXTURE_VARIANT_ADD(close_in, terminating) { .state = TRACEBUF_STATE_TERMINATING };

FIXTURE_SETUP(close_in)
{
	tb_peer_init(&self->p);
	TB_REQUIRE_DEV();
	tb_peer_open(_metadata, &self->p, "closing", 0);
	tb_drive(_metadata, &self->p, variant->state);
}

FIXTURE_TEARDOWN(close_in)
{
	tb_peer_close(&self->p);
}

TEST_F(close_in, provider_close_tells_owner)
{
	struct tracebuf_buffer_header hdr;
	struct tracebuf_mgr_msg msg;

	tb_close(&self->p.prov);
	if (variant->state == TRACEBUF_STATE_REGISTERED) {
		/* nobody owned it: nobody told */
		EXPECT_EMPTY(self->p.mgr);
	} else {
		tb_next_msg(_metadata, self->p.mgr, self->p.id,
			    TRACEBUF_MSG_GONE, variant->state, &msg);
		EXPECT_EQ(0, msg.pkt.request);
		/* closed by a process that lives on */
		EXPECT_EQ(TRACEBUF_GONE_CLOSED, msg.pkt.data16);
		EXPECT_EQ(0U, msg.pkt.data32);
		ASSERT_EQ((ssize_t)sizeof(hdr),
			  pread(self->p.buf_fd, &hdr, sizeof(hdr), 0));
		EXPECT_EQ(TRACEBUF_HEADER_MAGIC, hdr.magic);
	}
	EXPECT_EQ(-ESRCH, mgr_find(self->p.mgr, self->p.id, NULL));
	EXPECT_EQ(-ESRCH, mgr_initialize(self->p.mgr, self->p.id,
					 TRACEBUF_MODE_ONESHOT, tb_buffer_min(),
					 NULL, NULL));
}

TEST_F(close_in, provider_close_after_unmap_tells_owner)
{
	void *map;

	if (variant->state == TRACEBUF_STATE_REGISTERED) {
		/* no buffer to map, nobody to tell */
		EXPECT_MAP_FAILED(tb_map(self->p.prov, tb_page_size(),
					 PROT_READ | PROT_WRITE, 0));
		EXPECT_EQ(ENODEV, errno);
		tb_close(&self->p.prov);
		EXPECT_EMPTY(self->p.mgr);
		EXPECT_EQ(-ESRCH, mgr_find(self->p.mgr, self->p.id, NULL));
		return;
	}
	map = tb_provider_map(_metadata, &self->p);
	memset(map, 0, 1);	/* touch it */
	ASSERT_EQ(0, munmap(map, self->p.size));
	tb_close(&self->p.prov);
	tb_next_msg(_metadata, self->p.mgr, self->p.id, TRACEBUF_MSG_GONE,
		    variant->state, NULL);
}

TEST_F(close_in, provider_exit_tells_owner)
{
	bool registered = variant->state == TRACEBUF_STATE_REGISTERED;
	struct tracebuf_mgr_msg msg;
	int go[2];
	pid_t pid;
	char c;

	/*
	 * Hand the only provider file to a child that maps the buffer (if
	 * there is one) and, once this process has closed its copy, exits
	 * without unmapping or closing anything: the child's exit is the
	 * last close, whichever of the two runs first.
	 */
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		void *m = registered ? NULL :
			  tb_map(self->p.prov, self->p.size,
				 PROT_READ | PROT_WRITE, 0);

		close(go[1]);
		if (read(go[0], &c, 1) != 0)
			_exit(2);
		_exit(m == MAP_FAILED ? 1 : 0);
	}
	close(go[0]);
	tb_close(&self->p.prov);
	close(go[1]);
	EXPECT_EQ(0, tb_wait_child(pid)) TH_LOG("the child could not map");
	if (registered) {
		/* nobody owned it: nobody told, but it is gone */
		EXPECT_EMPTY(self->p.mgr);
	} else {
		tb_next_msg(_metadata, self->p.mgr, self->p.id,
			    TRACEBUF_MSG_GONE, variant->state, &msg);
		/* another process than the provider's closed it: unknown */
		EXPECT_EQ(0, msg.pkt.data16);
		EXPECT_EQ(0U, msg.pkt.data32);
	}
	EXPECT_EQ(-ESRCH, mgr_find(self->p.mgr, self->p.id, NULL));
}

TEST_F(close_in, manager_close_tells_provider)
{
	struct tracebuf_pkt pkt;
	int mgr2, buf2 = -1;

	tb_close(&self->p.mgr);
	if (variant->state == TRACEBUF_STATE_REGISTERED) {
		EXPECT_EMPTY(self->p.prov);
	} else {
		tb_next_pkt(_metadata, self->p.prov,
			    TRACEBUF_PKT_MANAGER_GONE, &pkt);
		EXPECT_EMPTY(self->p.prov);
	}
	EXPECT_EQ(TRACEBUF_STATE_REGISTERED, provider_state(self->p.prov));
	/* and a new manager may initialize it */
	mgr2 = tb_open_manager(0, NULL);
	ASSERT_LE(0, mgr2);
	EXPECT_EQ(0, mgr_initialize(mgr2, self->p.id, TRACEBUF_MODE_ONESHOT,
				    tb_buffer_min(), NULL, &buf2));
	if (buf2 >= 0)
		close(buf2);
	close(mgr2);
}

/* ------------------------------------------------------------------ */
/* How the provider's process ended (ABI 1.11)                        */

enum tb_end { TB_END_EXIT, TB_END_SIGTERM, TB_END_SEGV, TB_END_THREAD_EXIT };

FIXTURE(gone_status) {
	int mgr;
	pid_t child;
};

FIXTURE_VARIANT(gone_status) {
	enum tb_end end;
	bool held;	/* another process holds its file as it ends */
};

FIXTURE_VARIANT_ADD(gone_status, exit_3) { .end = TB_END_EXIT };
FIXTURE_VARIANT_ADD(gone_status, killed_by_sigterm) { .end = TB_END_SIGTERM };
FIXTURE_VARIANT_ADD(gone_status, crashed_with_sigsegv) { .end = TB_END_SEGV };
FIXTURE_VARIANT_ADD(gone_status, thread_calls_exit_5) { .end = TB_END_THREAD_EXIT };
FIXTURE_VARIANT_ADD(gone_status, exit_3_file_held) { .end = TB_END_EXIT, .held = true };

FIXTURE_SETUP(gone_status)
{
	self->mgr = -1;
	self->child = -1;
	TB_REQUIRE_DEV();
	self->mgr = tb_open_manager(0, NULL);
	ASSERT_LE(0, self->mgr);
}

FIXTURE_TEARDOWN(gone_status)
{
	if (self->child > 0) {
		kill(self->child, SIGKILL);
		tb_wait_child(self->child);
	}
	tb_close(&self->mgr);
}

static void *tb_exit_5(void *arg)
{
	(void)arg;
	exit(5);
}

/*
 * The provider: register, tell the id and the file's descriptor, wait for
 * the word, then end.
 */
static void __attribute__((noreturn)) tb_ender(int out_fd, int in_fd,
					       enum tb_end end)
{
	const struct rlimit no_core = { 0, 0 };
	pthread_t thread;
	__u32 id[2];
	char go;
	int fd;

	setrlimit(RLIMIT_CORE, &no_core);
	fd = tb_open_provider("ender", &id[0]);
	id[1] = (__u32)fd;
	if (fd < 0 || write(out_fd, id, sizeof(id)) != sizeof(id))
		_exit(10);
	if (read(in_fd, &go, 1) != 1)
		_exit(11);
	switch (end) {
	case TB_END_EXIT:
		_exit(3);
	case TB_END_SEGV:
		/* go is 0: a store to address 0 */
		*(volatile int *)(uintptr_t)go = 1;
		_exit(12);
	case TB_END_THREAD_EXIT:
		/* exit_group() from a thread other than the leader */
		if (pthread_create(&thread, NULL, tb_exit_5, NULL))
			_exit(13);
		break;
	case TB_END_SIGTERM:
		break;
	}
	for (;;)
		pause();
}

/*
 * MSG_GONE of a provider whose process ended says so, with the status
 * wait() reports for that process; also when another process held its
 * file then and closed it last (as one that holds the process's mm for a
 * moment, reading /proc/PID/stat, may drop the mapping's reference).
 */
TEST_F(gone_status, manager_told_how_it_exited)
{
	struct tracebuf_mgr_msg msg;
	int to_child[2], from_child[2], status, pidfd, held = -1;
	__u32 id[2];

	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(from_child));
	self->child = fork();
	ASSERT_LE(0, self->child);
	if (self->child == 0) {
		close(to_child[1]);
		close(from_child[0]);
		tb_ender(from_child[1], to_child[0], variant->end);
	}
	close(to_child[0]);
	close(from_child[1]);
	ASSERT_EQ((ssize_t)sizeof(id), read(from_child[0], id, sizeof(id)));
	close(from_child[0]);
	ASSERT_EQ(0, mgr_initialize(self->mgr, id[0], TRACEBUF_MODE_ONESHOT,
				    tb_buffer_min(), NULL, NULL));
	if (variant->held) {
		pidfd = (int)syscall(SYS_pidfd_open, self->child, 0);
		ASSERT_LE(0, pidfd);
		held = (int)syscall(SYS_pidfd_getfd, pidfd, (int)id[1], 0);
		ASSERT_LE(0, held);
		close(pidfd);
	}
	if (variant->end == TB_END_SIGTERM) {
		ASSERT_EQ(0, kill(self->child, SIGTERM));
	} else {
		ASSERT_EQ(1, write(to_child[1], "", 1));
	}
	ASSERT_EQ(self->child, waitpid(self->child, &status, 0));
	close(to_child[1]);
	self->child = -1;
	switch (variant->end) {
	case TB_END_EXIT:
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 3);
		break;
	case TB_END_SIGTERM:
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
		break;
	case TB_END_SEGV:
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
		break;
	case TB_END_THREAD_EXIT:
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 5);
		break;
	}
	if (held >= 0) {
		/* still open here: not gone yet */
		EXPECT_EMPTY(self->mgr);
		close(held);
	}
	tb_next_msg(_metadata, self->mgr, id[0], TRACEBUF_MSG_GONE,
		    TRACEBUF_STATE_INITIALIZED, &msg);
	EXPECT_EQ(0, msg.pkt.request);
	EXPECT_EQ(TRACEBUF_GONE_EXITED, msg.pkt.data16);
	EXPECT_EQ((__u32)status, msg.pkt.data32);
	EXPECT_EQ(0ULL, msg.pkt.data64);
}

TEST_HARNESS_MAIN
