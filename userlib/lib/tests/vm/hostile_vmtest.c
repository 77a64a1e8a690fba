// SPDX-License-Identifier: MIT
/*
 * A manager session against providers that lie, in the test VM.  Each
 * provider here is a child speaking the uapi directly (no libtracebuf),
 * and does one bad thing: fills its buffer and header with garbage,
 * forges metadata records that claim to be another provider, claims
 * more records dropped than it could have dropped, sends a
 * save request that does not check out, rewrites what it asked to save,
 * or never answers.  The session must carry on, its timeouts must hold,
 * the output must decode from end to end, and an honest provider in the
 * same session must lose nothing.
 */
#define _GNU_SOURCE
#include "ktap.h"
#include "padcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <linux/tracebuf.h>
#include <tracebuf_fxt.h>
#include <tracebuf_manager.h>
#include <tracebuf_reader.h>

#define KIB 1024u

enum evil { EVIL_GARBAGE, EVIL_FORGE, EVIL_BAD_SAVE, EVIL_SILENT, EVIL_REWRITE, EVIL_DROPS };

static void send_pkt(int fd, uint16_t req, uint32_t d32, uint64_t d64)
{
	struct tracebuf_pkt p = { .request = req, .data32 = d32, .data64 = d64 };

	ioctl(fd, TRACEBUF_IOC_PROVIDER_SEND, &p);
}

/* Fill the buffer after the header with xorshift garbage, and lie in it. */
static void garbage(uint8_t *map, uint64_t size)
{
	struct tracebuf_buffer_header *h = (void *)map;
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (uint64_t off = TRACEBUF_HEADER_SIZE; off + 8 <= size; off += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* now and then a plausible record size, to get further */
		if ((x & 0xff) < 32)
			x = (x & ~0xfff0ull) | (((x >> 20) & 7) + 1) << 4;
		memcpy(map + off, &x, 8);
	}
	h->durable_data_end = ~0ull;
	h->rolling_data_end[0] = size * 4;
	h->rolling_data_end[1] = 12345;
	h->wrapped_count = 77;
	h->num_records_dropped = 1;
}

/* The instant event an evil provider writes honestly (run() counts them). */
static const struct tracebuf_fxt_event honest = {
	.type = TRACEBUF_LIB_FXT_EVENT_INSTANT, .ticks = 1,
	.thread = { .process_koid = 1, .thread_koid = 2 },
	.category = { .data = "evil", .len = 4 },
	.name = { .data = "honest", .len = 6 },
};

/* A forged provider info record, then one honest instant event. */
static void forge(uint8_t *map, uint64_t size)
{
	struct tracebuf_buffer_header *h = (void *)map;
	uint64_t *p = (uint64_t *)(map + TRACEBUF_HEADER_SIZE);
	size_t cap = (size_t)(size - TRACEBUF_HEADER_SIZE), off = 0;
	int n;

	n = tracebuf_fxt_provider_info_write(p, cap, 9999, "forged", 6);
	off += n > 0 ? (size_t)n : 0;
	n = tracebuf_fxt_event_write(p + off / 8, cap - off, &honest);
	off += n > 0 ? (size_t)n : 0;
	h->rolling_data_end[0] = off;
}

#define REWRITE_EVENTS	500

static void on_sigbus(int sig)
{
	(void)sig;
	_exit(42);
}

/*
 * REWRITE_EVENTS honest instant events in rolling buffer 0, a save asked
 * for, then the saved records overwritten from the first page wholly
 * inside that rolling buffer: the kernel sealed it (the session asked
 * INITIALIZE for it), so that store ends the provider, exit 42 from its
 * SIGBUS handler.  If the store went through, the save had ended (the
 * manager's BUFFER_SAVED unseals, then queues the packet, under the lock
 * our read takes), exit 43, a run to do again; or it had not: exit 0.
 */
static void rewrite_after_save(int fd, uint8_t *map)
{
	struct tracebuf_buffer_header *h = (void *)map;
	uint64_t off = TRACEBUF_HEADER_SIZE + h->durable_buffer_size, used = 0;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), first = (off + page - 1) / page * page;

	for (int i = 0; i < REWRITE_EVENTS; i++) {
		int n = tracebuf_fxt_event_write((uint64_t *)(map + off + used),
						 (size_t)(h->rolling_buffer_size - used), &honest);

		if (n <= 0)
			_exit(3);
		used += (uint64_t)n;
	}
	h->rolling_data_end[0] = used;
	send_pkt(fd, TRACEBUF_PKT_STARTED, TRACEBUF_FIFO_PROTOCOL_VERSION, 0);
	signal(SIGBUS, on_sigbus);
	send_pkt(fd, TRACEBUF_PKT_SAVE_BUFFER, 0, 0);
	memset(map + first, 0xff, (size_t)(off + used - first));
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct tracebuf_pkt pkt;

		if (poll(&pfd, 1, 0) != 1 || read(fd, &pkt, sizeof(pkt)) != sizeof(pkt))
			_exit(0);
		if (pkt.request == TRACEBUF_PKT_BUFFER_SAVED)
			_exit(43);
	}
}

/* The provider child: obeys the kernel, except for @evil. */
static void evil_main(enum evil evil, int ready)
{
	struct tracebuf_register_args reg = { .name_len = 4, .name_ptr = (uintptr_t)"evil" };
	struct tracebuf_release_args rel = { 0 };
	struct tracebuf_pkt pkt;
	uint8_t *map = NULL;
	uint64_t size = 0;
	int fd = open("/dev/tracebuf", O_RDWR | O_CLOEXEC);
	char ok = 'k';

	if (fd < 0 || ioctl(fd, TRACEBUF_IOC_REGISTER, &reg) ||
	    write(ready, &ok, 1) != 1)
		_exit(2);
	while (read(fd, &pkt, sizeof(pkt)) == sizeof(pkt)) {
		switch (pkt.request) {
		case TRACEBUF_PKT_INITIALIZE:
			size = pkt.data64;
			map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (map == MAP_FAILED)
				_exit(3);
			break;
		case TRACEBUF_PKT_START:
			if (evil == EVIL_SILENT)
				break;
			if (evil == EVIL_GARBAGE)
				garbage(map, size);
			if (evil == EVIL_FORGE || evil == EVIL_DROPS)
				forge(map, size);
			if (evil == EVIL_DROPS)
				((struct tracebuf_buffer_header *)map)->num_records_dropped = ~0ull;
			if (evil == EVIL_REWRITE)
				rewrite_after_save(fd, map);
			send_pkt(fd, TRACEBUF_PKT_STARTED, TRACEBUF_FIFO_PROTOCOL_VERSION, 0);
			if (evil == EVIL_BAD_SAVE)
				send_pkt(fd, TRACEBUF_PKT_SAVE_BUFFER, 5, 64);
			break;
		case TRACEBUF_PKT_STOP:
			if (evil != EVIL_SILENT)
				send_pkt(fd, TRACEBUF_PKT_STOPPED, 0, 0);
			break;
		case TRACEBUF_PKT_TERMINATE:
			if (evil == EVIL_SILENT)
				break;
			send_pkt(fd, TRACEBUF_PKT_STOPPED, 0, 0);
			ioctl(fd, TRACEBUF_IOC_PROVIDER_RELEASE, &rel);
			break;
		default:
			break;
		}
	}
	_exit(0);
}

static pid_t evil_start(enum evil evil)
{
	int p[2];
	pid_t pid;
	char ok;

	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		close(p[0]);
		evil_main(evil, p[1]);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &ok, 1) != 1)
		pid = -1;
	close(p[0]);
	return pid;
}

static unsigned int g_errors;

static void on_note(void *arg, const struct tracebuf_session_note *n)
{
	(void)arg;
	if (n->type == TRACEBUF_LIB_NOTE_ERROR) {
		g_errors++;
		printf("# session: %s: %s (%d)\n", n->provider_name, n->what, n->error);
	}
}

struct result {
	struct tracebuf_session_provider evil;
	unsigned int records, infos, forged, honest_events;
	double seconds;
	int reader;
	int status;			/* the provider child's, from waitpid() */
};

/* A session in @mode with one evil provider; everything read back. */
static int run(enum evil evil, uint32_t mode, struct result *res)
{
	struct tracebuf_session_config cfg = {
		.size = sizeof(cfg), .mode = mode, .buffer_size = 64 * KIB,
		.output_fd = memfd_create("trace.fxt", MFD_CLOEXEC),
		.notify = on_note, .start_timeout_ms = 1000,
		.stop_timeout_ms = 1000,
	};
	struct tracebuf_session_provider list[4];
	struct tracebuf_reader_record rec;
	struct tracebuf_reader *r;
	struct tracebuf_session *s;
	double t0 = t_now();
	uint8_t *data;
	struct stat st;
	pid_t pid;
	int n, ret;

	memset(res, 0, sizeof(*res));
	g_errors = 0;
	pid = evil_start(evil);
	if (pid < 0 || cfg.output_fd < 0)
		return -1;
	ret = tracebuf_session_create(&cfg, &s);
	if (ret)
		return ret;
	if (tracebuf_session_start(s, NULL) || tracebuf_session_stop(s, true))
		ret = -1;
	n = tracebuf_session_providers(s, list, 4);
	if (n >= 1)
		res->evil = list[0];
	if (tracebuf_session_destroy(s))
		ret = -1;
	res->seconds = t_now() - t0;
	if (evil != EVIL_REWRITE)	/* it ends by itself, and must */
		kill(pid, SIGKILL);
	waitpid(pid, &res->status, 0);

	if (fstat(cfg.output_fd, &st))
		return -1;
	data = malloc((size_t)st.st_size);
	if (!data || pread(cfg.output_fd, data, (size_t)st.st_size, 0) != st.st_size)
		return -1;
	close(cfg.output_fd);
	if (t_trace_open_mem(data, (size_t)st.st_size,
				     TRACEBUF_LIB_READER_MAGIC, &r))
		return -1;
	while ((res->reader = tracebuf_reader_next(r, &rec)) == 1) {
		res->records++;
		if (rec.type == TRACEBUF_LIB_FXT_RECORD_METADATA &&
		    rec.meta.type == TRACEBUF_LIB_FXT_META_PROVIDER_INFO) {
			res->infos++;
			if (rec.meta.provider_id == 9999)
				res->forged++;
		}
		if (rec.type == TRACEBUF_LIB_FXT_RECORD_EVENT &&
		    rec.event.name.len == 6 && !memcmp(rec.event.name.data, "honest", 6))
			res->honest_events++;
	}
	if (res->reader)
		printf("# reader: %s at %zu\n", tracebuf_reader_error(r),
		       tracebuf_reader_error_offset(r));
	tracebuf_reader_close(r);
	free(data);
	printf("# %u records, %" PRIu64 " bytes kept, %" PRIu64 " rejected, %.2f s\n",
	       res->records, res->evil.bytes_written, res->evil.bytes_rejected,
	       res->seconds);
	return ret;
}

static void garbage_in_buffer_and_header(void)
{
	static const uint32_t modes[] = {
		TRACEBUF_MODE_ONESHOT, TRACEBUF_MODE_CIRCULAR, TRACEBUF_MODE_STREAMING,
	};
	struct result res;

	for (size_t i = 0; i < 3; i++) {
		T_ASSERT_EQ(run(EVIL_GARBAGE, modes[i], &res), 0);
		/* the file decodes to its end, with the evil one's info record */
		T_EXPECT_EQ(res.reader, 0);
		T_EXPECT_EQ(res.infos, 1);
		T_EXPECT(res.evil.bytes_rejected > 0);
		/* its lying header was noticed, and its summary says so */
		T_EXPECT(g_errors >= 1);
		T_EXPECT_EQ(res.evil.error, -EINVAL);
	}
}

static void forged_metadata_is_removed(void)
{
	struct result res;

	T_ASSERT_EQ(run(EVIL_FORGE, TRACEBUF_MODE_ONESHOT, &res), 0);
	T_EXPECT_EQ(res.reader, 0);
	T_EXPECT_EQ(res.forged, 0);
	T_EXPECT_EQ(res.infos, 1);
	T_EXPECT_EQ(res.honest_events, 1);
	T_EXPECT_EQ(res.evil.bytes_rejected, 16);	/* "forged" info: 2 words */
	T_EXPECT_EQ(res.evil.error, 0);			/* its header is honest */
}

/* A dropped count no provider could reach is not taken for one. */
static void impossible_drop_count_is_doubted(void)
{
	struct result res;

	T_ASSERT_EQ(run(EVIL_DROPS, TRACEBUF_MODE_ONESHOT, &res), 0);
	T_EXPECT_EQ(res.reader, 0);
	T_EXPECT_EQ(res.honest_events, 1);
	T_EXPECT(res.evil.dropped_doubtful);
	T_EXPECT_EQ(res.evil.error, -EINVAL);
	T_EXPECT(g_errors >= 1);
	/* an honest count is believed */
	T_ASSERT_EQ(run(EVIL_GARBAGE, TRACEBUF_MODE_ONESHOT, &res), 0);
	T_EXPECT(!res.evil.dropped_doubtful);
	T_EXPECT_EQ(res.evil.records_dropped, 1);
}

/*
 * A provider that rewrites the records of a save before the manager
 * wrote them cannot: the pages are sealed, it dies of SIGBUS (exit 42),
 * and the manager, which read them in place, wrote every one of them.
 */
static void saved_records_are_sealed(void)
{
	struct result res;
	int tries = 0;

	/* its store came after the save ended: not what is tested, again */
	do {
		T_ASSERT_EQ(run(EVIL_REWRITE, TRACEBUF_MODE_STREAMING, &res), 0);
	} while (WIFEXITED(res.status) && WEXITSTATUS(res.status) == 43 && ++tries < 20);
	printf("# %d run(s) with the store after the save\n", tries);
	T_EXPECT_EQ(res.status, 42 << 8);	/* exit 42 */
	T_EXPECT_EQ(res.reader, 0);
	T_EXPECT_EQ(res.honest_events, REWRITE_EVENTS);
	T_EXPECT_EQ(res.evil.saves, 1);
}

static void bad_save_request_terminates_it(void)
{
	struct result res;

	T_ASSERT_EQ(run(EVIL_BAD_SAVE, TRACEBUF_MODE_STREAMING, &res), 0);
	T_EXPECT_EQ(res.reader, 0);
	T_EXPECT_EQ(res.evil.saves, 0);
	T_EXPECT(g_errors >= 1);
	T_EXPECT_EQ(res.evil.error, -EPROTO);
	/* terminated by the session, at once (not by its destroy) */
	T_EXPECT(res.evil.state == TRACEBUF_LIB_TRACEE_TERMINATING ||
		 res.evil.state == TRACEBUF_LIB_TRACEE_TERMINATED);
}

/* Start, stop and terminate each give up after their timeout. */
static void silent_provider_times_out(void)
{
	struct result res;

	T_ASSERT_EQ(run(EVIL_SILENT, TRACEBUF_MODE_ONESHOT, &res), 0);
	T_EXPECT_EQ(res.reader, 0);
	T_EXPECT(res.seconds >= 2.5 && res.seconds < 30);
	T_EXPECT(g_errors >= 2);	/* did not stop, did not terminate */
}

static const struct t_test tests[] = {
	T_TEST(garbage_in_buffer_and_header),
	T_TEST(forged_metadata_is_removed),
	T_TEST(impossible_drop_count_is_doubted),
	T_TEST(bad_save_request_terminates_it),
	T_TEST(saved_records_are_sealed),
	T_TEST(silent_provider_times_out),
};

T_MAIN(tests)
