// SPDX-License-Identifier: MIT
/*
 * libtracebuf end to end, in the test VM with the module loaded: provider
 * processes (forked from the test) write numbered events through the
 * event macros, this process runs a manager session into an in-memory
 * .fxt file, and the reader checks what survived against each mode's
 * rule:
 *  - oneshot keeps the first events, circular the last, streaming with a
 *    manager that keeps up all of them; with exact accounting (present +
 *    counted as dropped = written, none twice);
 *  - repeated start/stop with each buffer disposition, and in streaming;
 *  - a provider killed mid-stream (harvested from its buffer), a manager
 *    killed with a save outstanding (the provider carries on and can be
 *    traced again), a provider that registers during the trace, and
 *    several providers in one file whose timestamps follow the order in
 *    which the test made them write.
 *
 * A provider child obeys commands on a pipe (struct cmd) and answers one
 * byte per command.  "Keeping up" is made deterministic: a throttled
 * writer waits, before each burst, until no rolling buffer waits for its
 * save, so these tests check the protocol, not the speed of the VM.
 */
#define _GNU_SOURCE
#define TRACEBUF_LIB_SHORT_NAMES	/* TRACE_*, TA_* */
#include "ktap.h"
#include "padcheck.h"

#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <tracebuf_event.h>
#include <tracebuf_manager.h>
#include <tracebuf_provider.h>
#include <tracebuf_reader.h>

#include "engine_priv.h"

#define KIB 1024u
#define BURST 200

/* ---------------------------------------------------------------------- */
/* Provider children                                                      */

enum { CMD_WRITE = 'w', CMD_OTHER = 'o', CMD_MARK = 'm', CMD_FOREVER = 'f', CMD_QUIT = 'q',
       CMD_ALERT = 'a', CMD_PENDING = 'p' };

struct cmd {
	uint32_t op;
	uint32_t throttle;	/* wait for saves before each burst */
	uint64_t from, to;	/* seq range; CMD_MARK: round in from */
};

struct child {
	pid_t pid;
	int cmd, rsp;		/* our ends */
};

struct child_opts {
	const char *name;
	uint32_t flags;		/* TRACEBUF_LIB_PROVIDER_* */
	bool loop;		/* dispatch from our own loop, no thread */
	uint32_t start_timeout_ms;
};

static struct tracebuf_provider *g_prov;
static bool g_loop;

static void child_dispatch(void)
{
	if (g_loop)
		tracebuf_provider_dispatch(g_prov);
}

/* Until no rolling buffer waits for a save (the manager kept up). */
static void child_wait_saved(void)
{
	while (tb_engine_pending_rolling_buffers()) {
		child_dispatch();
		usleep(200);
	}
}

static void child_write(uint64_t from, uint64_t to, bool throttle)
{
	for (uint64_t i = from; i < to; i++) {
		if (throttle && (i - from) % BURST == 0)
			child_wait_saved();
		TRACE_INSTANT("test", "seq", TA_U64("seq", i));
	}
	child_dispatch();
}

static void child_main(const struct child_opts *o, int cmd, int rsp)
{
	struct tracebuf_provider_config cfg = {
		.size = sizeof(cfg), .name = o->name, .flags = o->flags,
		.start_timeout_ms = o->start_timeout_ms,
	};
	struct pollfd pfd[2];
	struct cmd c;
	char ok = 'k';
	int ret;

	g_loop = o->loop;
	ret = tracebuf_provider_create(&cfg, &g_prov);
	if (ret) {
		printf("# tracebuf_provider_create(%s): %d\n", o->name, ret);
		fflush(stdout);
		_exit(3);
	}
	if (write(rsp, &ok, 1) != 1)
		_exit(4);
	pfd[0] = (struct pollfd){ .fd = cmd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = tracebuf_provider_fd(g_prov), .events = POLLIN };
	for (;;) {
		if (poll(pfd, g_loop ? 2 : 1, -1) < 0)
			continue;
		if (pfd[1].revents & POLLIN)
			tracebuf_provider_dispatch(g_prov);
		if (!(pfd[0].revents & (POLLIN | POLLHUP)))
			continue;
		if (read(cmd, &c, sizeof(c)) != sizeof(c))
			break;	/* the test went away */
		switch (c.op) {
		case CMD_WRITE:
			child_write(c.from, c.to, c.throttle);
			break;
		case CMD_OTHER:
			for (uint64_t i = c.from; i < c.to; i++)
				TRACE_INSTANT("other", "seq", TA_U64("seq", i));
			break;
		case CMD_MARK:
			TRACE_INSTANT("test", "mark", TA_U64("round", c.from));
			break;
		case CMD_ALERT:
			ok = tracebuf_provider_alert(g_prov, "boom") ? 'e' : 'k';
			break;
		case CMD_PENDING:
			/* answered with how many rolling buffers wait for a save */
			ok = (char)('0' + tb_engine_pending_rolling_buffers());
			break;
		case CMD_FOREVER:
			/* answer after the first range, then never return */
			child_write(0, c.to, true);
			if (write(rsp, &ok, 1) != 1)
				_exit(5);
			for (uint64_t i = c.to;; i += BURST)
				child_write(i, i + BURST, true);
			break;
		case CMD_QUIT:
			tracebuf_provider_destroy(g_prov);
			_exit(0);
		}
		if (write(rsp, &ok, 1) != 1)
			_exit(6);
		ok = 'k';
	}
	tracebuf_provider_destroy(g_prov);
	_exit(0);
}

/*
 * A child registered (and, if a trace wanted it, started), serving the
 * @n sessions at @ss meanwhile, in that order: those a trace of which
 * makes it wait for its start.
 */
static int child_start_serving(struct child *ch, const struct child_opts *o,
			       struct tracebuf_session *const *ss, int n)
{
	struct pollfd pfd[4];
	int cmd[2], rsp[2];
	char ok = 0;

	if (n > 3 || pipe2(cmd, O_CLOEXEC) || pipe2(rsp, O_CLOEXEC))
		return -1;
	ch->pid = fork();
	if (ch->pid < 0)
		return -1;
	if (!ch->pid) {
		close(cmd[1]);
		close(rsp[0]);
		child_main(o, cmd[0], rsp[1]);
	}
	close(cmd[0]);
	close(rsp[1]);
	ch->cmd = cmd[1];
	ch->rsp = rsp[0];
	pfd[0] = (struct pollfd){ .fd = rsp[0], .events = POLLIN };
	for (int i = 0; i < n; i++)
		pfd[i + 1] = (struct pollfd){ .fd = tracebuf_session_fd(ss[i]), .events = POLLIN };
	for (;;) {
		for (int i = 0; i < n; i++)
			tracebuf_session_dispatch(ss[i]);
		if (poll(pfd, (nfds_t)n + 1, 20000) <= 0)
			return -1;
		if (pfd[0].revents)
			return read(ch->rsp, &ok, 1) == 1 && ok == 'k' ? 0 : -1;
	}
}

static int child_start(struct child *ch, const struct child_opts *o)
{
	return child_start_serving(ch, o, NULL, 0);
}

static int child_send(struct child *ch, uint32_t op, uint64_t from, uint64_t to,
		      bool throttle)
{
	struct cmd c = { .op = op, .throttle = throttle, .from = from, .to = to };

	return write(ch->cmd, &c, sizeof(c)) == sizeof(c) ? 0 : -1;
}

/* Wait for the child's answer while serving the session. */
static int child_wait(struct child *ch, struct tracebuf_session *s)
{
	struct pollfd pfd[2] = {
		{ .fd = ch->rsp, .events = POLLIN },
		{ .fd = s ? tracebuf_session_fd(s) : -1, .events = POLLIN },
	};
	char ok;

	for (;;) {
		if (s)
			tracebuf_session_dispatch(s);
		if (poll(pfd, 2, 20000) <= 0)
			return -1;
		if (pfd[0].revents & (POLLIN | POLLHUP))
			return read(ch->rsp, &ok, 1) == 1 && ok == 'k' ? 0 : -1;
	}
}

static int child_do(struct child *ch, struct tracebuf_session *s, uint32_t op,
		    uint64_t from, uint64_t to, bool throttle)
{
	if (child_send(ch, op, from, to, throttle))
		return -1;
	return child_wait(ch, s);
}

/* Quit and reap; returns the exit status, or -1. */
static int child_stop(struct child *ch)
{
	int status;

	child_send(ch, CMD_QUIT, 0, 0, false);
	close(ch->cmd);
	close(ch->rsp);
	if (waitpid(ch->pid, &status, 0) != ch->pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* ---------------------------------------------------------------------- */
/* Sessions and what they wrote                                           */

struct notes {
	unsigned int alerts, gone, errors, joined;
};

static void on_note(void *arg, const struct tracebuf_session_note *n)
{
	struct notes *ns = arg;

	switch (n->type) {
	case TRACEBUF_LIB_NOTE_ALERT:
		ns->alerts++;
		break;
	case TRACEBUF_LIB_NOTE_GONE:
		ns->gone++;
		break;
	case TRACEBUF_LIB_NOTE_JOINED:
		ns->joined++;
		break;
	case TRACEBUF_LIB_NOTE_ERROR:
		ns->errors++;
		printf("# session: provider %u: %s (%d)\n", n->provider_id,
		       n->what, n->error);
		break;
	}
}

static struct notes g_notes;

static struct tracebuf_session *session_flags(uint32_t mode, uint64_t size, int *fd,
					      uint32_t flags)
{
	struct tracebuf_session_config cfg = {
		.size = sizeof(cfg), .mode = mode, .flags = flags, .buffer_size = size,
		.output_fd = memfd_create("trace.fxt", MFD_CLOEXEC),
		.notify = on_note, .arg = &g_notes,
		.start_timeout_ms = 10000, .stop_timeout_ms = 20000,
	};
	struct tracebuf_session *s;
	int ret;

	memset(&g_notes, 0, sizeof(g_notes));
	*fd = cfg.output_fd;
	if (cfg.output_fd < 0)
		return NULL;
	ret = tracebuf_session_create(&cfg, &s);
	if (ret) {
		printf("# tracebuf_session_create: %d\n", ret);
		return NULL;
	}
	return s;
}

static struct tracebuf_session *session(uint32_t mode, uint64_t size, int *fd)
{
	return session_flags(mode, size, fd, 0);
}

struct trace {
	uint8_t *data;
	size_t len;
	/* per provider, in the order they first appear */
	uint32_t ids[8];
	char names[8][TRACEBUF_NAME_MAX + 1];
	uint64_t *seq[8];
	size_t nseq[8];
	uint64_t mark_ns[8][16];	/* by round */
	uint64_t ticks_per_second[8];	/* its initialization record's */
	unsigned int infos, overflows, meta_drops;
	uint64_t unresolved;
};

static int prov_slot(struct trace *tr, uint32_t id)
{
	for (int i = 0; i < 8; i++) {
		if (tr->ids[i] == id)
			return i;
		if (!tr->ids[i]) {
			tr->ids[i] = id;
			return i;
		}
	}
	return -1;
}

static int slot_of(const struct trace *tr, const char *name)
{
	for (int i = 0; i < 8; i++)
		if (tr->ids[i] && !strcmp(tr->names[i], name))
			return i;
	return -1;
}

/* Read the file back (fd, closed here): every record must decode. */
static int finish(int fd, struct trace *tr)
{
	struct tracebuf_reader_record rec;
	struct tracebuf_reader *r;
	struct stat st;
	int ret;

	memset(tr, 0, sizeof(*tr));
	if (fstat(fd, &st))
		return -1;
	tr->len = (size_t)st.st_size;
	tr->data = malloc(tr->len + 1);
	if (!tr->data || pread(fd, tr->data, tr->len, 0) != (ssize_t)tr->len)
		return -1;
	close(fd);
	if (t_trace_open_mem(tr->data, tr->len, TRACEBUF_LIB_READER_MAGIC, &r))
		return -1;
	while ((ret = tracebuf_reader_next(r, &rec)) == 1) {
		int k = prov_slot(tr, rec.provider_id);

		if (k < 0)
			continue;
		if (rec.type == TRACEBUF_LIB_FXT_RECORD_METADATA) {
			if (rec.meta.type == TRACEBUF_LIB_FXT_META_PROVIDER_INFO) {
				tr->infos++;
				snprintf(tr->names[k], sizeof(tr->names[k]), "%.*s",
					 (int)rec.meta.name.len, rec.meta.name.data);
			}
			if (rec.meta.type == TRACEBUF_LIB_FXT_META_PROVIDER_EVENT)
				tr->overflows++;
			continue;
		}
		if (rec.type == TRACEBUF_LIB_FXT_RECORD_INIT)
			tr->ticks_per_second[k] = rec.init.ticks_per_second;
		if (rec.type != TRACEBUF_LIB_FXT_RECORD_EVENT)
			continue;
		if (rec.event.name.len == 3 && !memcmp(rec.event.name.data, "seq", 3) &&
		    rec.nargs == 1) {
			uint64_t *n = realloc(tr->seq[k], (tr->nseq[k] + 1) * 8);

			if (!n)
				return -1;
			tr->seq[k] = n;
			n[tr->nseq[k]++] = rec.args[0].u64;
		} else if (rec.event.name.len == 4 &&
			   !memcmp(rec.event.name.data, "mark", 4) && rec.nargs == 1 &&
			   rec.args[0].u64 < 16) {
			tr->mark_ns[k][rec.args[0].u64] = rec.event.ns;
		} else if (rec.event.category.len == 13 &&
			   !memcmp(rec.event.category.data, "tracebuf:meta", 13)) {
			tr->meta_drops++;
		}
	}
	if (ret)
		printf("# reader: %s at %zu of %zu\n", tracebuf_reader_error(r),
		       tracebuf_reader_error_offset(r), tr->len);
	tr->unresolved = tracebuf_reader_unresolved_refs(r);
	tracebuf_reader_close(r);
	return ret ? -1 : 0;
}

static void trace_free(struct trace *tr)
{
	for (int i = 0; i < 8; i++)
		free(tr->seq[i]);
	free(tr->data);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct shape {
	uint64_t n, lo, hi, dups;
	bool contiguous;
};

/* Sort the seqs of slot k and describe them. */
static struct shape seq_shape(struct trace *tr, int k)
{
	struct shape sh = { .contiguous = true };
	uint64_t *v;

	if (k < 0 || !tr->nseq[k])
		return sh;
	v = tr->seq[k];
	sh.n = tr->nseq[k];
	qsort(v, sh.n, 8, cmp_u64);
	for (size_t i = 1; i < sh.n; i++) {
		if (v[i] == v[i - 1])
			sh.dups++;
		else if (v[i] != v[i - 1] + 1)
			sh.contiguous = false;
	}
	sh.lo = v[0];
	sh.hi = v[sh.n - 1];
	printf("# %s: %" PRIu64 " events, %" PRIu64 "..%" PRIu64 ", %" PRIu64
	       " twice, %scontiguous\n", tr->names[k], sh.n, sh.lo, sh.hi, sh.dups,
	       sh.contiguous ? "" : "not ");
	return sh;
}

static bool find_prov(struct tracebuf_session *s, const char *name,
		      struct tracebuf_session_provider *out)
{
	struct tracebuf_session_provider buf[8];
	int n = tracebuf_session_providers(s, buf, 8);

	for (int i = 0; i < n && i < 8; i++) {
		if (!strcmp(buf[i].name, name)) {
			*out = buf[i];
			return true;
		}
	}
	return false;
}

/*
 * One provider in one mode: start, write n events, stop with results,
 * terminate, read back.  The provider's seqs are in tr slot "writer".
 */
static int one_mode(uint32_t mode, uint64_t size, uint64_t n, bool throttle,
		    bool loop, struct trace *tr, struct tracebuf_session_provider *pi)
{
	struct child_opts o = { .name = "writer", .loop = loop,
				.flags = loop ? 0 : TRACEBUF_LIB_PROVIDER_THREAD };
	struct tracebuf_session *s;
	struct child ch;
	int fd, ret = -1;

	if (child_start(&ch, &o))
		return -1;
	s = session(mode, size, &fd);
	if (!s)
		goto out;
	if (tracebuf_session_start(s, NULL) ||
	    child_do(&ch, s, CMD_WRITE, 0, n, throttle) ||
	    tracebuf_session_stop(s, true) || !find_prov(s, "writer", pi))
		goto out;
	ret = tracebuf_session_destroy(s);
	s = NULL;
	if (!ret)
		ret = finish(fd, tr);
out:
	tracebuf_session_destroy(s);
	if (child_stop(&ch))
		ret = -1;
	return ret;
}

/* ---------------------------------------------------------------------- */
/* The modes                                                              */

/*
 * While it records, a provider's header says how much it recorded and
 * dropped, before any stop: what "record" shows as it goes.
 */
static void live_counts_while_tracing(void)
{
	struct child_opts o = { .name = "writer", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct tracebuf_session_provider pi = { 0 };
	struct tracebuf_session *s;
	struct child ch;
	int fd;

	T_ASSERT_EQ(child_start(&ch, &o), 0);
	s = session(TRACEBUF_MODE_ONESHOT, 64 * KIB, &fd);
	T_ASSERT(s);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	T_ASSERT_EQ(child_do(&ch, s, CMD_WRITE, 0, 100, false), 0);
	T_ASSERT(find_prov(s, "writer", &pi));
	printf("# after 100 events: %" PRIu64 " bytes recorded\n", pi.bytes_recorded);
	T_EXPECT(pi.bytes_recorded >= 100 * 16 && pi.bytes_recorded <= 64 * KIB);
	T_EXPECT_EQ(pi.records_dropped, 0);
	/* fill it: the first drop has the provider put the count in its header */
	T_ASSERT_EQ(child_do(&ch, s, CMD_WRITE, 100, 20000, false), 0);
	for (int i = 0; i < 100 && !pi.records_dropped; i++) {
		usleep(10 * 1000);
		T_ASSERT(find_prov(s, "writer", &pi));
	}
	printf("# after 20000 events: %" PRIu64 " bytes recorded, %" PRIu64 " dropped\n",
	       pi.bytes_recorded, pi.records_dropped);
	T_EXPECT(pi.records_dropped > 0);
	T_EXPECT(pi.bytes_recorded > 32 * KIB);
	T_EXPECT_EQ(pi.bytes_written, 0);	/* nothing read out yet */
	T_EXPECT_EQ(tracebuf_session_stop(s, true), 0);
	tracebuf_session_destroy(s);
	close(fd);
	T_EXPECT_EQ(child_stop(&ch), 0);
}

static void oneshot_keeps_the_first(void)
{
	struct tracebuf_session_provider pi;
	struct trace tr;
	struct shape sh;
	uint64_t n = 20000;

	T_ASSERT_EQ(one_mode(TRACEBUF_MODE_ONESHOT, 64 * KIB, n, false, false, &tr, &pi), 0);
	sh = seq_shape(&tr, slot_of(&tr, "writer"));
	T_EXPECT(sh.n > 100 && sh.n < n);
	T_EXPECT_EQ(sh.lo, 0);
	T_EXPECT_EQ(sh.dups, 0);
	T_EXPECT(sh.contiguous);
	/* every event is in the file or counted as dropped */
	T_EXPECT_EQ(sh.n + pi.records_dropped, n);
	T_EXPECT_EQ(tr.overflows, 1);
	T_EXPECT_EQ(tr.infos, 1);
	T_EXPECT_EQ(tr.unresolved, 0);
	T_EXPECT_EQ(pi.state, TRACEBUF_LIB_TRACEE_STOPPED);
	trace_free(&tr);
}

static void circular_keeps_the_last(void)
{
	struct tracebuf_session_provider pi;
	struct trace tr;
	struct shape sh;
	uint64_t n = 20000;

	T_ASSERT_EQ(one_mode(TRACEBUF_MODE_CIRCULAR, 64 * KIB, n, false, false, &tr, &pi), 0);
	sh = seq_shape(&tr, slot_of(&tr, "writer"));
	T_EXPECT(sh.n > 100 && sh.n < n);
	T_EXPECT_EQ(sh.hi, n - 1);
	T_EXPECT_EQ(sh.dups, 0);
	T_EXPECT(sh.contiguous);
	T_EXPECT_EQ(pi.records_dropped, 0);
	T_EXPECT_EQ(tr.unresolved, 0);
	trace_free(&tr);
}

static void streaming_keeps_all(void)
{
	struct tracebuf_session_provider pi;
	struct trace tr;
	struct shape sh;
	uint64_t n = 30000;

	T_ASSERT_EQ(one_mode(TRACEBUF_MODE_STREAMING, 64 * KIB, n, true, false, &tr, &pi), 0);
	sh = seq_shape(&tr, slot_of(&tr, "writer"));
	T_EXPECT_EQ(sh.n, n);
	T_EXPECT_EQ(sh.lo, 0);
	T_EXPECT_EQ(sh.dups, 0);
	T_EXPECT(sh.contiguous);
	T_EXPECT_EQ(pi.records_dropped, 0);
	T_EXPECT(pi.saves >= 10);
	T_EXPECT_EQ(tr.overflows, 0);
	T_EXPECT_EQ(tr.unresolved, 0);
	printf("# %" PRIu64 " saves, %" PRIu64 " bytes\n", pi.saves, pi.bytes_written);
	trace_free(&tr);
}

/* The application's own event loop instead of the library's thread. */
static void streaming_from_an_event_loop(void)
{
	struct tracebuf_session_provider pi;
	struct trace tr;
	struct shape sh;
	uint64_t n = 10000;

	T_ASSERT_EQ(one_mode(TRACEBUF_MODE_STREAMING, 64 * KIB, n, true, true, &tr, &pi), 0);
	sh = seq_shape(&tr, slot_of(&tr, "writer"));
	T_EXPECT_EQ(sh.n, n);
	T_EXPECT_EQ(sh.dups, 0);
	T_EXPECT(sh.contiguous);
	T_EXPECT(pi.saves >= 3);
	trace_free(&tr);
}

/* Tries tracebuf_session_rotate() at the first save: it is refused there. */
static struct tracebuf_session *g_rot_s;
static int g_rot_fd = -1, g_rot_ret = 1;

static void on_note_rotate(void *arg, const struct tracebuf_session_note *n)
{
	on_note(arg, n);
	if (g_rot_s && n->type == TRACEBUF_LIB_NOTE_SAVED && g_rot_ret == 1)
		g_rot_ret = tracebuf_session_rotate(g_rot_s, g_rot_fd);
}

/*
 * tracebuf_session_rotate() twice while a streaming writer writes: each of
 * the three files reads alone (the magic record first; the provider info
 * record, the initialization record and the strings and threads again
 * before the provider's data; no ref left unresolved), holds what
 * tracebuf_session_bytes() grew by meanwhile, and together they hold
 * every event once.  Refused for a bad fd, and from the notify callback.
 */
static void streaming_rotates_files(void)
{
	struct child_opts o = { .name = "writer", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct tracebuf_session_config cfg = {
		.size = sizeof(cfg), .mode = TRACEBUF_MODE_STREAMING, .buffer_size = 64 * KIB,
		.notify = on_note_rotate, .arg = &g_notes,
		.start_timeout_ms = 10000, .stop_timeout_ms = 20000,
	};
	struct trace tr[3], all = { .ids = { 1 }, .names = { "writer" } };
	uint64_t n = 10000, bytes[3], *v;
	struct tracebuf_session *s;
	struct child ch;
	struct shape sh;
	int fds[3], fd;

	s = session(TRACEBUF_MODE_ONESHOT, 64 * KIB, &fd);
	T_ASSERT(s);
	T_EXPECT_EQ(tracebuf_session_rotate(s, -1), -EINVAL);
	tracebuf_session_destroy(s);
	close(fd);

	for (int i = 0; i < 3; i++) {
		fds[i] = memfd_create("trace.fxt", MFD_CLOEXEC);
		T_ASSERT(fds[i] >= 0);
	}
	memset(&g_notes, 0, sizeof(g_notes));
	cfg.output_fd = fds[0];
	T_ASSERT_EQ(child_start(&ch, &o), 0);
	T_ASSERT_EQ(tracebuf_session_create(&cfg, &s), 0);
	T_EXPECT_EQ(tracebuf_session_rotate(s, -1), -EINVAL);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	g_rot_s = s;
	g_rot_fd = fds[1];
	T_ASSERT_EQ(child_do(&ch, s, CMD_WRITE, 0, n, true), 0);
	g_rot_s = NULL;
	T_EXPECT_EQ(g_rot_ret, -EINVAL);
	bytes[0] = tracebuf_session_bytes(s);
	T_ASSERT_EQ(tracebuf_session_rotate(s, fds[1]), 0);
	T_ASSERT_EQ(child_do(&ch, s, CMD_WRITE, n, 2 * n, true), 0);
	bytes[1] = tracebuf_session_bytes(s);
	T_ASSERT_EQ(tracebuf_session_rotate(s, fds[2]), 0);
	T_ASSERT_EQ(child_do(&ch, s, CMD_WRITE, 2 * n, 3 * n, true), 0);
	T_ASSERT_EQ(tracebuf_session_stop(s, true), 0);
	T_ASSERT_EQ(tracebuf_session_terminate(s), 0);
	bytes[2] = tracebuf_session_bytes(s);
	T_ASSERT_EQ(tracebuf_session_destroy(s), 0);
	T_EXPECT_EQ(child_stop(&ch), 0);

	for (int i = 0; i < 3; i++) {
		int k;

		T_ASSERT_EQ(finish(fds[i], &tr[i]), 0);
		k = slot_of(&tr[i], "writer");
		printf("# file %d: %zu bytes, %zu events\n", i, tr[i].len,
		       k < 0 ? 0 : tr[i].nseq[k]);
		T_EXPECT_EQ(tr[i].len, bytes[i] - (i ? bytes[i - 1] : 0));
		T_EXPECT_EQ(tr[i].infos, 1);
		T_EXPECT_EQ(tr[i].unresolved, 0);
		T_ASSERT(k >= 0);
		T_EXPECT(tr[i].ticks_per_second[k] > 0);
		T_EXPECT(tr[i].nseq[k] > 0);
		v = realloc(all.seq[0], (all.nseq[0] + tr[i].nseq[k]) * 8);
		T_ASSERT(v);
		memcpy(v + all.nseq[0], tr[i].seq[k], tr[i].nseq[k] * 8);
		all.seq[0] = v;
		all.nseq[0] += tr[i].nseq[k];
	}
	sh = seq_shape(&all, 0);
	T_EXPECT_EQ(sh.n, 3 * n);
	T_EXPECT_EQ(sh.lo, 0);
	T_EXPECT_EQ(sh.dups, 0);
	T_EXPECT(sh.contiguous);
	for (int i = 0; i < 3; i++)
		trace_free(&tr[i]);
	trace_free(&all);
}

/* A writer faster than the manager: drops, but exact accounting. */
static void streaming_accounts_for_drops(void)
{
	struct tracebuf_session_provider pi;
	struct trace tr;
	struct shape sh;
	uint64_t n = 40000;

	T_ASSERT_EQ(one_mode(TRACEBUF_MODE_STREAMING, 64 * KIB, n, false, false, &tr, &pi), 0);
	sh = seq_shape(&tr, slot_of(&tr, "writer"));
	T_EXPECT_EQ(sh.dups, 0);
	T_EXPECT_EQ(sh.lo, 0);
	T_EXPECT_EQ(sh.n + pi.records_dropped, n);
	printf("# %" PRIu64 " dropped, %" PRIu64 " saves, %u drop windows\n",
	       pi.records_dropped, pi.saves, tr.meta_drops);
	if (pi.records_dropped)
		T_EXPECT(tr.meta_drops >= 1);
	/* the session counted the same windows as the file holds */
	T_EXPECT_EQ(pi.drop_windows, tr.meta_drops);
	trace_free(&tr);
}

/*
 * A provider's ALERTs fill its manager's inbox (TRACEBUF_OUTBOX_DEPTH)
 * while the manager does not read: the SAVE_BUFFER of the first rolling buffer
 * it fills is refused (EAGAIN).  Once the manager reads, the kernel wakes
 * the provider and it asks that save again, so streaming goes on: every
 * event of the rolling buffers filled meanwhile is saved, and a throttled
 * writer after it loses nothing.  Before, the save was never asked again: the
 * throttled writer waited for it for good (the child is killed then).
 */
static void streaming_save_refused_for_alerts_is_sent_again(void)
{
	struct child_opts o = { .name = "writer", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct tracebuf_session_provider pi;
	struct tracebuf_session *s;
	uint64_t n = 5000, m = 15000;
	struct child ch;
	struct trace tr;
	struct shape sh;
	int fd, k;
	bool ok;

	T_ASSERT_EQ(child_start(&ch, &o), 0);
	s = session(TRACEBUF_MODE_STREAMING, 64 * KIB, &fd);
	T_ASSERT(s);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	/* the session does not read meanwhile */
	for (int i = 0; i < TRACEBUF_OUTBOX_DEPTH; i++)
		T_ASSERT_EQ(child_do(&ch, NULL, CMD_ALERT, 0, 0, false), 0);
	T_EXPECT(child_do(&ch, NULL, CMD_ALERT, 0, 0, false) != 0);	/* full */
	/* more than both rolling buffers: the first save refused, then drops */
	T_ASSERT_EQ(child_do(&ch, NULL, CMD_WRITE, 0, n, false), 0);
	/* served again: the throttled writer waits for each save */
	ok = child_do(&ch, s, CMD_WRITE, n, m, true) == 0;
	T_EXPECT(ok);
	if (!ok) {
		kill(ch.pid, SIGKILL);
		tracebuf_session_destroy(s);
		close(fd);
		child_stop(&ch);
		return;
	}
	T_ASSERT_EQ(tracebuf_session_stop(s, true), 0);
	T_ASSERT(find_prov(s, "writer", &pi));
	T_ASSERT_EQ(tracebuf_session_destroy(s), 0);
	T_EXPECT_EQ(child_stop(&ch), 0);
	T_EXPECT_EQ(g_notes.alerts, TRACEBUF_OUTBOX_DEPTH);
	T_ASSERT_EQ(finish(fd, &tr), 0);
	k = slot_of(&tr, "writer");
	sh = seq_shape(&tr, k);
	printf("# %" PRIu64 " dropped, %" PRIu64 " saves\n", pi.records_dropped, pi.saves);
	/* the rolling buffers filled before the refused save came: saved */
	T_EXPECT_EQ(sh.lo, 0);
	T_EXPECT_EQ(sh.hi, m - 1);
	T_EXPECT_EQ(sh.dups, 0);
	T_EXPECT_EQ(sh.n + pi.records_dropped, m);
	T_EXPECT(pi.records_dropped > 0);
	/* all of what the throttled writer wrote */
	if (k >= 0) {
		uint64_t after = 0;

		for (size_t i = 0; i < tr.nseq[k]; i++)
			after += tr.seq[k][i] >= n;
		T_EXPECT_EQ(after, m - n);
	}
	trace_free(&tr);
}

/* ---------------------------------------------------------------------- */
/* Start and stop again                                                   */

/*
 * Write 0..99, stop without results, start again with @disp, write
 * 100..199, stop with results.  Returns the trace.
 */
static int restart(uint32_t mode, uint32_t disp, bool results_first, struct trace *tr)
{
	struct child_opts o = { .name = "writer", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct tracebuf_session_start_args a = { .disposition = disp };
	struct tracebuf_session *s;
	struct child ch;
	int fd, ret = -1;

	if (child_start(&ch, &o))
		return -1;
	s = session(mode, 256 * KIB, &fd);
	if (!s)
		goto out;
	if (tracebuf_session_start(s, NULL) ||
	    child_do(&ch, s, CMD_WRITE, 0, 100, false) ||
	    tracebuf_session_stop(s, results_first) ||
	    tracebuf_session_start(s, &a) ||
	    child_do(&ch, s, CMD_WRITE, 100, 200, false) ||
	    tracebuf_session_stop(s, true))
		goto out;
	/* the session state machine refuses what it should */
	if (tracebuf_session_stop(s, true) != -EALREADY)
		goto out;
	ret = tracebuf_session_destroy(s);
	s = NULL;
	if (!ret)
		ret = finish(fd, tr);
out:
	tracebuf_session_destroy(s);
	if (child_stop(&ch))
		ret = -1;
	return ret;
}

/*
 * Run restart() and check the surviving events: exactly @n of them, a
 * contiguous run ending at 199, none twice, every string and thread ref
 * resolved (the durable records they need were written).
 */
static void check_restart(uint32_t mode, uint32_t disp, bool results_first,
			  uint64_t n)
{
	struct trace tr;
	struct shape sh;

	T_ASSERT_EQ(restart(mode, disp, results_first, &tr), 0);
	sh = seq_shape(&tr, slot_of(&tr, "writer"));
	T_EXPECT_EQ(sh.n, n);
	T_EXPECT_EQ(sh.hi, 199);
	T_EXPECT_EQ(sh.dups, 0);
	T_EXPECT(sh.contiguous);
	T_EXPECT_EQ(tr.infos, 1);
	T_EXPECT_EQ(tr.unresolved, 0);
	trace_free(&tr);
}

/* Both runs: the second appends to the first. */
static void restart_retain(void)
{
	check_restart(TRACEBUF_MODE_ONESHOT, TRACEBUF_START_RETAIN, false, 200);
}

/* Oneshot has no durable buffer: the whole buffer is cleared. */
static void restart_clear_nondurable(void)
{
	check_restart(TRACEBUF_MODE_ONESHOT, TRACEBUF_START_CLEAR_NONDURABLE, false, 100);
}

static void restart_clear_entire(void)
{
	check_restart(TRACEBUF_MODE_ONESHOT, TRACEBUF_START_CLEAR_ENTIRE, false, 100);
}

/*
 * With a durable buffer, CLEAR_NONDURABLE keeps the strings and threads:
 * the manager writes only the durable records it has not written yet,
 * and the second run's events still resolve.
 */
static void restart_clear_nondurable_circular(void)
{
	check_restart(TRACEBUF_MODE_CIRCULAR, TRACEBUF_START_CLEAR_NONDURABLE, false, 100);
	check_restart(TRACEBUF_MODE_CIRCULAR, TRACEBUF_START_CLEAR_NONDURABLE, true, 200);
}

/*
 * Streaming: with no results at the first stop, what it left is written
 * at the second; with results, RETAIN becomes CLEAR_ENTIRE (no event
 * twice).
 */
static void restart_streaming(void)
{
	check_restart(TRACEBUF_MODE_STREAMING, TRACEBUF_START_RETAIN, false, 200);
	check_restart(TRACEBUF_MODE_STREAMING, TRACEBUF_START_RETAIN, true, 200);
}

/* Results written at the first stop: RETAIN becomes CLEAR_ENTIRE. */
static void restart_after_results(void)
{
	check_restart(TRACEBUF_MODE_ONESHOT, TRACEBUF_START_RETAIN, true, 200);
}

/* ---------------------------------------------------------------------- */
/* Deaths                                                                 */

/*
 * Kill @ch's provider with SIGKILL and reap it; once @s saw it gone (5 s
 * at most), harvested it as a crash and knows how it ended (its wait
 * status: tracebuf_session_provider_end()), stop @s (its provider as it
 * ends in *@pi) and destroy it.
 */
static void kill_and_harvest(struct child *ch, struct tracebuf_session *s,
			     struct tracebuf_session_provider *pi)
{
	int status, end = -1;

	kill(ch->pid, SIGKILL);
	T_ASSERT_EQ(waitpid(ch->pid, &status, 0), ch->pid);
	for (int i = 0; i < 5000 && !g_notes.gone; i++) {
		tracebuf_session_dispatch(s);
		usleep(1000);
	}
	T_EXPECT_EQ(g_notes.gone, 1);
	T_ASSERT(find_prov(s, "writer", pi));
	T_EXPECT_EQ(pi->state, TRACEBUF_LIB_TRACEE_GONE);
	T_EXPECT(pi->crashed);
	T_EXPECT_EQ(tracebuf_session_provider_end(s, pi->id, &end), TRACEBUF_LIB_END_EXITED);
	T_EXPECT_EQ(end, status);
	T_EXPECT_EQ(tracebuf_session_provider_end(s, 0, &end), -ENOENT);
	T_EXPECT_EQ(tracebuf_session_stop(s, true), 0);
	T_ASSERT(find_prov(s, "writer", pi));
	T_ASSERT_EQ(tracebuf_session_destroy(s), 0);
	close(ch->cmd);
	close(ch->rsp);
}

static void provider_killed_mid_stream(void)
{
	struct child_opts o = { .name = "writer", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct tracebuf_session_provider pi = { 0 };
	struct tracebuf_session *s;
	struct trace tr;
	struct shape sh;
	struct child ch;
	int fd;

	T_ASSERT_EQ(child_start(&ch, &o), 0);
	s = session(TRACEBUF_MODE_STREAMING, 64 * KIB, &fd);
	T_ASSERT(s);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	T_ASSERT_EQ(child_do(&ch, s, CMD_FOREVER, 0, 2000, true), 0);
	/* a few saves, then kill it in the middle of writing */
	for (int i = 0; i < 2000 && (find_prov(s, "writer", &pi), pi.saves < 4); i++) {
		tracebuf_session_dispatch(s);
		usleep(1000);
	}
	T_EXPECT(pi.saves >= 4);
	kill_and_harvest(&ch, s, &pi);
	T_ASSERT_EQ(finish(fd, &tr), 0);
	sh = seq_shape(&tr, slot_of(&tr, "writer"));
	/* what it had saved, and what it wrote after, up to its death */
	T_EXPECT(sh.n > 2000);
	T_EXPECT_EQ(sh.lo, 0);
	T_EXPECT_EQ(sh.dups, 0);
	T_EXPECT(sh.contiguous);
	T_EXPECT_EQ(tr.unresolved, 0);
	trace_free(&tr);
}

/*
 * A provider that exits while tracing (tracebuf_provider_destroy(), no
 * STOPPED: it is not asked to stop) leaves a final header with its stop
 * mark: read by its data ends, not harvested as a crash.
 */
static void provider_exits_while_tracing(void)
{
	struct child_opts o = { .name = "writer", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct tracebuf_session_provider pi;
	struct tracebuf_session *s;
	struct trace tr;
	struct shape sh;
	struct child ch;
	int fd;

	T_ASSERT_EQ(child_start(&ch, &o), 0);
	s = session(TRACEBUF_MODE_STREAMING, 64 * KIB, &fd);
	T_ASSERT(s);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	T_ASSERT_EQ(child_do(&ch, s, CMD_WRITE, 0, 5000, true), 0);
	T_EXPECT_EQ(child_stop(&ch), 0);
	for (int i = 0; i < 5000 && !g_notes.gone; i++) {
		tracebuf_session_dispatch(s);
		usleep(1000);
	}
	T_ASSERT(find_prov(s, "writer", &pi));
	T_EXPECT_EQ(pi.state, TRACEBUF_LIB_TRACEE_GONE);
	T_EXPECT(!pi.crashed);
	T_EXPECT_EQ(pi.bytes_rejected, 0);
	T_ASSERT_EQ(tracebuf_session_destroy(s), 0);
	T_ASSERT_EQ(finish(fd, &tr), 0);
	sh = seq_shape(&tr, slot_of(&tr, "writer"));
	T_EXPECT_EQ(sh.n, 5000);
	T_EXPECT_EQ(sh.dups, 0);
	T_EXPECT(sh.contiguous);
	trace_free(&tr);
}

/* The child's count of rolling buffers that wait for a save, or -1. */
static int child_pending(struct child *ch)
{
	char n;

	if (child_send(ch, CMD_PENDING, 0, 0, false) || read(ch->rsp, &n, 1) != 1)
		return -1;
	return n - '0';
}

/*
 * HOLD_SAVED: a save is written as the session dispatches, but its
 * BUFFER_SAVED waits for tracebuf_session_send_saved(): until then the
 * provider's rolling buffer still waits for its save.
 */
static void hold_saved_waits_for_send(void)
{
	struct child_opts o = { .name = "writer", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct tracebuf_session_provider pi = { 0 };
	struct tracebuf_session *s;
	struct child ch;
	int fd, n = -1, before;

	T_ASSERT_EQ(child_start(&ch, &o), 0);
	s = session_flags(TRACEBUF_MODE_STREAMING, 64 * KIB, &fd,
			  TRACEBUF_LIB_SESSION_HOLD_SAVED);
	T_ASSERT(s);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	/* more than a rolling buffer holds, with nobody dispatching */
	T_ASSERT_EQ(child_do(&ch, NULL, CMD_WRITE, 0, 3000, false), 0);
	before = child_pending(&ch);
	T_ASSERT(before >= 1);
	/* one dispatch writes the save and holds its answer */
	for (int i = 0; i < 500 && pi.saves == 0; i++) {
		tracebuf_session_dispatch(s);
		T_ASSERT(find_prov(s, "writer", &pi));
		if (!pi.saves)
			usleep(10 * 1000);
	}
	T_ASSERT_EQ(pi.saves, 1);
	usleep(100 * 1000);
	T_EXPECT_EQ(child_pending(&ch), before);
	/* the first rolling buffer is the provider's again */
	T_EXPECT_EQ(tracebuf_session_send_saved(s), 0);
	for (int i = 0; i < 500 && (n = child_pending(&ch)) == before; i++)
		usleep(10 * 1000);
	T_EXPECT_EQ(n, before - 1);
	T_EXPECT_EQ(g_notes.errors, 0);
	T_EXPECT_EQ(tracebuf_session_stop(s, true), 0);
	T_EXPECT_EQ(tracebuf_session_destroy(s), 0);
	T_EXPECT_EQ(child_stop(&ch), 0);
	close(fd);
}

/*
 * HOLD_SAVED holds the START of a provider that joins while the session
 * runs too: it is initialized as the session dispatches, and started by
 * tracebuf_session_send_saved(); then it writes all its events.
 */
static void hold_saved_holds_a_joiner_start(void)
{
	struct tracebuf_session_provider pi = { 0 };
	struct tracebuf_session *s;
	struct trace tr;
	struct shape sh;
	int fd, status = -1;
	pid_t pid;

	s = session_flags(TRACEBUF_MODE_STREAMING, 64 * KIB, &fd,
			  TRACEBUF_LIB_SESSION_HOLD_SAVED);
	T_ASSERT(s);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	fflush(stdout);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (!pid) {
		struct tracebuf_provider_config cfg = {
			.size = sizeof(cfg), .name = "joiner",
			.flags = TRACEBUF_LIB_PROVIDER_THREAD, .start_timeout_ms = 20000,
		};

		/* it waits for its start */
		if (tracebuf_provider_create(&cfg, &g_prov))
			_exit(3);
		child_write(0, 100, false);
		tracebuf_provider_destroy(g_prov);
		_exit(0);
	}
	for (int i = 0; i < 2000 && pi.state != TRACEBUF_LIB_TRACEE_INITIALIZED; i++) {
		tracebuf_session_dispatch(s);
		if (!find_prov(s, "joiner", &pi))
			usleep(5 * 1000);
	}
	T_ASSERT_EQ(pi.state, TRACEBUF_LIB_TRACEE_INITIALIZED);
	/* held until sent, however long */
	usleep(200 * 1000);
	T_ASSERT(find_prov(s, "joiner", &pi));
	T_EXPECT_EQ(pi.state, TRACEBUF_LIB_TRACEE_INITIALIZED);
	T_EXPECT_EQ(tracebuf_session_send_saved(s), 0);
	T_ASSERT(find_prov(s, "joiner", &pi));
	T_EXPECT_EQ(pi.state, TRACEBUF_LIB_TRACEE_STARTING);
	for (int i = 0; i < 2000 && waitpid(pid, &status, WNOHANG) == 0; i++) {
		tracebuf_session_dispatch(s);
		tracebuf_session_send_saved(s);
		usleep(5 * 1000);
	}
	T_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	T_EXPECT_EQ(tracebuf_session_stop(s, true), 0);
	T_EXPECT_EQ(tracebuf_session_destroy(s), 0);
	T_ASSERT_EQ(finish(fd, &tr), 0);
	sh = seq_shape(&tr, slot_of(&tr, "joiner"));
	T_EXPECT_EQ(sh.n, 100);
	T_EXPECT_EQ(sh.dups, 0);
	trace_free(&tr);
}

/*
 * A copy of the session made by fork() (tracebuf_session_forked(), as
 * libposixtrace's keeper) whose parent read the provider's MSG_GONE and
 * wrote what it left: the copy, once it cut the output back to where it
 * stood at the fork, finds the provider gone as it stops (ESRCH), not at
 * its destroy after the stop timeout, and writes it there: every event
 * once.
 */
static void forked_session_finds_its_provider_gone(void)
{
	struct child_opts o = { .name = "writer", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct tracebuf_session_provider pi;
	struct tracebuf_session *s;
	int fd, go[2], status;
	struct trace tr;
	struct shape sh;
	struct child ch;
	off_t at;
	pid_t pid;

	T_ASSERT_EQ(child_start(&ch, &o), 0);
	s = session(TRACEBUF_MODE_STREAMING, 64 * KIB, &fd);
	T_ASSERT(s);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	T_ASSERT_EQ(child_do(&ch, s, CMD_WRITE, 0, 5000, true), 0);
	T_ASSERT_EQ(pipe(go), 0);
	at = lseek(fd, 0, SEEK_CUR);
	fflush(stdout);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (!pid) {
		int fds[16];
		char c;

		close(go[1]);
		if (tracebuf_session_forked(s, fds, 16) < 0 || read(go[0], &c, 1) != 1)
			_exit(2);
		if (ftruncate(fd, at) || lseek(fd, at, SEEK_SET) != at)
			_exit(3);
		if (tracebuf_session_stop(s, true) || !find_prov(s, "writer", &pi) ||
		    pi.state != TRACEBUF_LIB_TRACEE_GONE)
			_exit(4);
		_exit(tracebuf_session_destroy(s) ? 5 : 0);
	}
	close(go[0]);
	T_EXPECT_EQ(child_stop(&ch), 0);
	for (int i = 0; i < 5000 && !g_notes.gone; i++) {
		tracebuf_session_dispatch(s);
		usleep(1000);
	}
	T_EXPECT(g_notes.gone);
	/* the copy takes over from here */
	T_ASSERT_EQ(write(go[1], "", 1), 1);
	close(go[1]);
	T_ASSERT_EQ(waitpid(pid, &status, 0), pid);
	T_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	T_ASSERT_EQ(finish(fd, &tr), 0);
	sh = seq_shape(&tr, slot_of(&tr, "writer"));
	T_EXPECT_EQ(sh.n, 5000);
	T_EXPECT_EQ(sh.dups, 0);
	T_EXPECT(sh.contiguous);
	trace_free(&tr);
	tracebuf_session_destroy(s);
}

/*
 * A provider killed after it wrote every event, in a oneshot buffer it
 * filled a little: its events are all there, and the unused rest of the
 * buffer (zeros) is not counted as bytes left out; tracebufctl printed
 * "4051688 bytes ... were left out (it crashed)" for it.
 */
static void provider_killed_after_writing(void)
{
	struct child_opts o = { .name = "writer", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct tracebuf_session_provider pi;
	struct tracebuf_session *s;
	struct trace tr;
	struct shape sh;
	struct child ch;
	int fd;

	T_ASSERT_EQ(child_start(&ch, &o), 0);
	s = session(TRACEBUF_MODE_ONESHOT, 4096 * KIB, &fd);
	T_ASSERT(s);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	T_ASSERT_EQ(child_do(&ch, s, CMD_WRITE, 0, 500, true), 0);
	kill_and_harvest(&ch, s, &pi);
	T_EXPECT_EQ(pi.bytes_rejected, 0);
	T_ASSERT_EQ(finish(fd, &tr), 0);
	sh = seq_shape(&tr, slot_of(&tr, "writer"));
	T_EXPECT_EQ(sh.n, 500);
	T_EXPECT(sh.contiguous);
	trace_free(&tr);
}

/*
 * A manager (a child process) dies while a save is outstanding.  The
 * provider goes on writing, and a new session traces it fully.
 */
static void manager_killed_mid_save(void)
{
	struct child_opts o = { .name = "writer", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct tracebuf_session_provider pi;
	struct tracebuf_session *s;
	struct trace tr;
	struct shape sh;
	struct child ch;
	int sync[2], fd, status;
	pid_t mgr;
	char c;

	T_ASSERT_EQ(child_start(&ch, &o), 0);
	T_ASSERT_EQ(pipe(sync), 0);
	mgr = fork();
	T_ASSERT(mgr >= 0);
	if (!mgr) {
		/* start, then never serve a save */
		s = session(TRACEBUF_MODE_STREAMING, 64 * KIB, &fd);
		if (!s || tracebuf_session_start(s, NULL))
			_exit(1);
		c = 'k';
		if (write(sync[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	T_ASSERT_EQ(read(sync[0], &c, 1), 1);
	/* fills both rolling buffers: a save is outstanding, the rest is dropped */
	T_ASSERT_EQ(child_do(&ch, NULL, CMD_WRITE, 0, 10000, false), 0);
	kill(mgr, SIGKILL);
	T_ASSERT_EQ(waitpid(mgr, &status, 0), mgr);
	/* it is still alive and answers, and a new manager can trace it */
	T_ASSERT_EQ(child_do(&ch, NULL, CMD_WRITE, 0, 100, false), 0);
	s = session(TRACEBUF_MODE_STREAMING, 64 * KIB, &fd);
	T_ASSERT(s);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	T_ASSERT_EQ(child_do(&ch, s, CMD_WRITE, 0, 5000, true), 0);
	T_ASSERT_EQ(tracebuf_session_stop(s, true), 0);
	T_ASSERT(find_prov(s, "writer", &pi));
	T_EXPECT_EQ(pi.state, TRACEBUF_LIB_TRACEE_STOPPED);
	T_ASSERT_EQ(tracebuf_session_destroy(s), 0);
	T_EXPECT_EQ(child_stop(&ch), 0);
	T_ASSERT_EQ(finish(fd, &tr), 0);
	sh = seq_shape(&tr, slot_of(&tr, "writer"));
	T_EXPECT_EQ(sh.n, 5000);
	T_EXPECT_EQ(sh.dups, 0);
	T_EXPECT(sh.contiguous);
	trace_free(&tr);
}

/* ---------------------------------------------------------------------- */
/* Several providers                                                      */

static void several_providers_one_file(void)
{
	static const char *const names[] = { "alpha", "beta", "gamma" };
	struct tracebuf_session *s;
	struct child ch[3];
	struct trace tr;
	uint64_t last = 0;
	int fd;

	for (int i = 0; i < 3; i++) {
		struct child_opts o = { .name = names[i],
					.flags = TRACEBUF_LIB_PROVIDER_THREAD };

		T_ASSERT_EQ(child_start(&ch[i], &o), 0);
	}
	s = session(TRACEBUF_MODE_STREAMING, 64 * KIB, &fd);
	T_ASSERT(s);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	for (int i = 0; i < 3; i++)
		T_ASSERT_EQ(child_do(&ch[i], s, CMD_WRITE, 0, 3000, true), 0);
	/* marks in an order this process imposes: round r, provider i */
	for (int r = 0; r < 4; r++)
		for (int i = 0; i < 3; i++)
			T_ASSERT_EQ(child_do(&ch[i], s, CMD_MARK, (uint64_t)r, 0, false), 0);
	T_ASSERT_EQ(tracebuf_session_stop(s, true), 0);
	T_ASSERT_EQ(tracebuf_session_destroy(s), 0);
	for (int i = 0; i < 3; i++)
		T_EXPECT_EQ(child_stop(&ch[i]), 0);
	T_ASSERT_EQ(finish(fd, &tr), 0);
	T_EXPECT_EQ(tr.infos, 3);
	for (int i = 0; i < 3; i++) {
		int k = slot_of(&tr, names[i]);
		struct shape sh = seq_shape(&tr, k);

		T_EXPECT(k >= 0);
		T_EXPECT_EQ(sh.n, 3000);
		T_EXPECT(sh.contiguous);
	}
	/* one timebase: the marks' timestamps follow the causal order */
	for (int r = 0; r < 4; r++) {
		for (int i = 0; i < 3; i++) {
			int k = slot_of(&tr, names[i]);
			uint64_t ns = k >= 0 ? tr.mark_ns[k][r] : 0;

			if (ns <= last)
				T_FAIL("mark %d of %s at %" PRIu64 " ns, not after %" PRIu64,
				       r, names[i], ns, last);
			last = ns;
		}
	}
	trace_free(&tr);
}

/*
 * A provider that registers while the trace runs joins it;
 * tracebuf_provider_create() returns once it is started (the default), so
 * the events it writes at once are not lost.
 */
static void late_joiner_waits_for_start(void)
{
	struct child_opts a = { .name = "early", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct child_opts b = { .name = "late", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct tracebuf_session_provider pi;
	struct tracebuf_session *s;
	struct child ch[2];
	struct trace tr;
	struct shape sh;
	int fd;

	T_ASSERT_EQ(child_start(&ch[0], &a), 0);
	s = session(TRACEBUF_MODE_ONESHOT, 256 * KIB, &fd);
	T_ASSERT(s);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	/* the late one registers now; serve the session while it waits */
	T_ASSERT_EQ(child_start_serving(&ch[1], &b, &s, 1), 0);
	T_ASSERT_EQ(child_do(&ch[1], s, CMD_WRITE, 0, 500, false), 0);
	T_ASSERT_EQ(child_do(&ch[0], s, CMD_WRITE, 0, 500, false), 0);
	T_ASSERT_EQ(child_do(&ch[1], s, CMD_ALERT, 0, 0, false), 0);
	T_ASSERT(find_prov(s, "late", &pi));
	T_EXPECT(pi.late);
	T_EXPECT_EQ(pi.state, TRACEBUF_LIB_TRACEE_STARTED);
	T_EXPECT_EQ(pi.error, 0);
	T_ASSERT_EQ(tracebuf_session_stop(s, true), 0);
	T_EXPECT_EQ(g_notes.errors, 0);
	T_EXPECT_EQ(g_notes.alerts, 1);
	T_EXPECT_EQ(g_notes.joined, 2);
	T_ASSERT_EQ(tracebuf_session_destroy(s), 0);
	for (int i = 0; i < 2; i++)
		T_EXPECT_EQ(child_stop(&ch[i]), 0);
	T_ASSERT_EQ(finish(fd, &tr), 0);
	sh = seq_shape(&tr, slot_of(&tr, "late"));
	T_EXPECT_EQ(sh.n, 500);
	sh = seq_shape(&tr, slot_of(&tr, "early"));
	T_EXPECT_EQ(sh.n, 500);
	trace_free(&tr);
}

/*
 * A provider that gave up waiting for its start (the session was not
 * served meanwhile) says so when the start comes: the session notes an
 * error and the provider's error is -ETIME.  It then traces as any.
 */
static void late_start_is_reported(void)
{
	struct child_opts o = { .name = "late", .flags = TRACEBUF_LIB_PROVIDER_THREAD,
				.start_timeout_ms = 100 };
	struct tracebuf_session_provider pi = { 0 };
	struct tracebuf_session *s;
	struct pollfd pfd;
	struct child ch;
	struct trace tr;
	int fd;

	s = session(TRACEBUF_MODE_ONESHOT, 256 * KIB, &fd);
	T_ASSERT(s);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	/* not served: its create returns after 100 ms, not started */
	T_ASSERT_EQ(child_start(&ch, &o), 0);
	pfd = (struct pollfd){ .fd = tracebuf_session_fd(s), .events = POLLIN };
	for (int i = 0; i < 200 && pi.state != TRACEBUF_LIB_TRACEE_STARTED; i++) {
		tracebuf_session_dispatch(s);
		if (!find_prov(s, "late", &pi) || pi.state != TRACEBUF_LIB_TRACEE_STARTED)
			poll(&pfd, 1, 100);
	}
	T_EXPECT_EQ(pi.state, TRACEBUF_LIB_TRACEE_STARTED);
	T_EXPECT_EQ(pi.error, -ETIME);
	T_EXPECT_EQ(g_notes.errors, 1);
	T_ASSERT_EQ(child_do(&ch, s, CMD_WRITE, 0, 500, false), 0);
	T_ASSERT_EQ(tracebuf_session_stop(s, true), 0);
	T_ASSERT(find_prov(s, "late", &pi));
	T_EXPECT_EQ(pi.error, -ETIME);
	T_ASSERT_EQ(tracebuf_session_destroy(s), 0);
	T_EXPECT_EQ(child_stop(&ch), 0);
	T_ASSERT_EQ(finish(fd, &tr), 0);
	T_EXPECT_EQ(seq_shape(&tr, slot_of(&tr, "late")).n, 500);
	trace_free(&tr);
}

/*
 * A session of every provider leaves a provider that another manager's
 * running trace names (the module's LIST F_NAMED) to that manager, even
 * when it lists the provider first, and goes on leaving it once that
 * trace stopped, as long as the other manager has it.
 */
static void every_provider_session_leaves_a_named_one(void)
{
	struct child_opts o = { .name = "named", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	static const char *const only[] = { "named" };
	struct tracebuf_session_config cfg = {
		.size = sizeof(cfg), .mode = TRACEBUF_MODE_ONESHOT,
		.buffer_size = 256 * KIB, .providers = only, .nproviders = 1,
		.start_timeout_ms = 10000,
	};
	struct tracebuf_session_provider pi = { 0 }, pn = { 0 };
	struct tracebuf_session *all, *byname, *ss[2];
	struct child ch;
	struct trace tr;
	int fd;

	all = session(TRACEBUF_MODE_ONESHOT, 256 * KIB, &fd);
	T_ASSERT(all);
	cfg.output_fd = memfd_create("named.fxt", MFD_CLOEXEC);
	T_ASSERT(cfg.output_fd >= 0);
	T_ASSERT_EQ(tracebuf_session_create(&cfg, &byname), 0);
	T_ASSERT_EQ(tracebuf_session_start(all, NULL), 0);
	T_ASSERT_EQ(tracebuf_session_start(byname, NULL), 0);
	/* it registers now; the session of every provider is served first */
	ss[0] = all;
	ss[1] = byname;
	T_ASSERT_EQ(child_start_serving(&ch, &o, ss, 2), 0);
	T_ASSERT_EQ(child_do(&ch, byname, CMD_WRITE, 0, 100, false), 0);
	tracebuf_session_dispatch(all);
	T_ASSERT(find_prov(all, "named", &pi));
	T_EXPECT_EQ(pi.state, TRACEBUF_LIB_TRACEE_LEFT);
	T_EXPECT_EQ(pi.error, 0);
	T_ASSERT(find_prov(byname, "named", &pn));
	T_EXPECT_EQ(pn.state, TRACEBUF_LIB_TRACEE_STARTED);
	/* its trace stopped, the provider still the other manager's */
	T_ASSERT_EQ(tracebuf_session_stop(byname, true), 0);
	T_ASSERT_EQ(tracebuf_session_stop(all, true), 0);
	T_ASSERT(find_prov(all, "named", &pi));
	T_EXPECT_EQ(pi.state, TRACEBUF_LIB_TRACEE_LEFT);
	T_EXPECT_EQ(g_notes.errors, 0);
	T_ASSERT_EQ(tracebuf_session_destroy(all), 0);
	T_ASSERT_EQ(tracebuf_session_destroy(byname), 0);
	T_EXPECT_EQ(child_stop(&ch), 0);
	T_ASSERT_EQ(finish(cfg.output_fd, &tr), 0);
	T_EXPECT_EQ(seq_shape(&tr, slot_of(&tr, "named")).n, 100);
	trace_free(&tr);
	T_ASSERT_EQ(finish(fd, &tr), 0);
	T_EXPECT(slot_of(&tr, "named") < 0);
	trace_free(&tr);
}

/* Only the providers named, and a refused config. */
static void chosen_providers_and_bad_config(void)
{
	struct child_opts a = { .name = "wanted", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct child_opts b = { .name = "other", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	static const char *const only[] = { "wanted" };
	struct tracebuf_session_config cfg = {
		.size = sizeof(cfg), .mode = TRACEBUF_MODE_ONESHOT,
		.buffer_size = 256 * KIB, .providers = only, .nproviders = 1,
	};
	struct tracebuf_session_provider buf[8];
	struct tracebuf_session *s;
	struct child ch[2];
	struct trace tr;

	cfg.output_fd = memfd_create("trace.fxt", MFD_CLOEXEC);
	T_ASSERT(cfg.output_fd >= 0);
	T_ASSERT_EQ(child_start(&ch[0], &a), 0);
	T_ASSERT_EQ(child_start(&ch[1], &b), 0);

	cfg.buffer_size = 5000;
	T_EXPECT_EQ(tracebuf_session_create(&cfg, &s), -EINVAL);
	cfg.buffer_size = 1ull << 40;
	T_EXPECT_EQ(tracebuf_session_create(&cfg, &s), -EFBIG);
	cfg.buffer_size = 256 * KIB;
	cfg.mode = 7;
	T_EXPECT_EQ(tracebuf_session_create(&cfg, &s), -EINVAL);
	cfg.mode = TRACEBUF_MODE_ONESHOT;

	T_ASSERT_EQ(tracebuf_session_create(&cfg, &s), 0);
	T_EXPECT_EQ(tracebuf_session_providers(s, buf, 8), 1);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	T_EXPECT_EQ(tracebuf_session_start(s, NULL), -EALREADY);
	T_ASSERT_EQ(child_do(&ch[0], s, CMD_WRITE, 0, 50, false), 0);
	T_ASSERT_EQ(child_do(&ch[1], s, CMD_WRITE, 0, 50, false), 0);
	T_ASSERT_EQ(tracebuf_session_stop(s, true), 0);
	T_ASSERT_EQ(tracebuf_session_destroy(s), 0);
	for (int i = 0; i < 2; i++)
		T_EXPECT_EQ(child_stop(&ch[i]), 0);
	T_ASSERT_EQ(finish(cfg.output_fd, &tr), 0);
	T_EXPECT_EQ(tr.infos, 1);
	T_EXPECT(slot_of(&tr, "wanted") >= 0);
	T_EXPECT(slot_of(&tr, "other") < 0);
	trace_free(&tr);
}

/*
 * Categories: the session's list, a provider's override adding one (and
 * its own buffer size), then a start's additional categories for all.
 */
static void categories_and_overrides(void)
{
	struct child_opts a = { .name = "plain", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct child_opts b = { .name = "special", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	static const char *const cats[] = { "test" };
	static const char *const more[] = { "other" };
	struct tracebuf_session_override ov = {
		.name = "special", .buffer_size = 128 * KIB,
		.categories = more, .ncategories = 1,
	};
	struct tracebuf_session_config cfg = {
		.size = sizeof(cfg), .mode = TRACEBUF_MODE_ONESHOT,
		.buffer_size = 64 * KIB, .categories = cats, .ncategories = 1,
		.overrides = &ov, .noverrides = 1,
	};
	struct tracebuf_session_start_args again = {
		.disposition = TRACEBUF_START_RETAIN,
		.categories = more, .ncategories = 1,
	};
	struct tracebuf_session_provider pi;
	struct tracebuf_session *s;
	struct child ch[2];
	struct trace tr;
	struct shape sh;

	cfg.output_fd = memfd_create("trace.fxt", MFD_CLOEXEC);
	T_ASSERT(cfg.output_fd >= 0);
	T_ASSERT_EQ(child_start(&ch[0], &a), 0);
	T_ASSERT_EQ(child_start(&ch[1], &b), 0);
	T_ASSERT_EQ(tracebuf_session_create(&cfg, &s), 0);
	T_ASSERT(find_prov(s, "special", &pi));
	T_EXPECT_EQ(pi.buffer_size, 128 * KIB);
	T_ASSERT(find_prov(s, "plain", &pi));
	T_EXPECT_EQ(pi.buffer_size, 64 * KIB);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	for (int i = 0; i < 2; i++) {
		T_ASSERT_EQ(child_do(&ch[i], s, CMD_WRITE, 0, 10, false), 0);
		T_ASSERT_EQ(child_do(&ch[i], s, CMD_OTHER, 100, 110, false), 0);
	}
	/* again, with "other" for everyone for this start */
	T_ASSERT_EQ(tracebuf_session_stop(s, false), 0);
	T_ASSERT_EQ(tracebuf_session_start(s, &again), 0);
	for (int i = 0; i < 2; i++)
		T_ASSERT_EQ(child_do(&ch[i], s, CMD_OTHER, 200, 210, false), 0);
	T_ASSERT_EQ(tracebuf_session_stop(s, true), 0);
	T_ASSERT_EQ(tracebuf_session_destroy(s), 0);
	for (int i = 0; i < 2; i++)
		T_EXPECT_EQ(child_stop(&ch[i]), 0);
	T_ASSERT_EQ(finish(cfg.output_fd, &tr), 0);
	/* plain: test 0..9 and, on the second start, other 200..209 */
	sh = seq_shape(&tr, slot_of(&tr, "plain"));
	T_EXPECT_EQ(sh.n, 20);
	T_EXPECT_EQ(sh.hi, 209);
	/* special: other 100..109 too */
	sh = seq_shape(&tr, slot_of(&tr, "special"));
	T_EXPECT_EQ(sh.n, 30);
	trace_free(&tr);
}

/*
 * What VERSION says of this kernel (ABI 1.4), and what the library makes
 * of it: buffer sizes are multiples of 4096 or of the page size if
 * larger, and the library refuses others itself; counter_khz is about
 * the TSC on x86, the generic timer (TRACEBUF_FEAT_CNTVCT) on arm64, and
 * a trace's ticks per second is that rate when the kernel gave one for
 * the counter this program reads, else 1e9 (CLOCK_MONOTONIC).
 */
static void version_timebase_and_align(void)
{
	const bool arm = TRACEBUF_LIB_CPU_COUNTER == TRACEBUF_LIB_CPU_COUNTER_CNTVCT;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t align = page > 4096 ? page : 4096, tps;
	struct tracebuf_session_config cfg = {
		.size = sizeof(cfg), .mode = TRACEBUF_MODE_ONESHOT,
	};
	const struct tracebuf_version_args *v;
	struct tracebuf_session_provider pi;
	struct tracebuf_manager *m;
	struct tracebuf_session *s;
	struct trace tr;
	int k;

	T_ASSERT_EQ(tracebuf_manager_open(NULL, 0, &m), 0);
	v = tracebuf_manager_version(m);
	T_EXPECT(v->abi_minor >= 4);
	T_EXPECT(v->features & TRACEBUF_FEAT_BUFFER_ALIGN);
	T_EXPECT(v->features & TRACEBUF_FEAT_COUNTER_RATE);
	T_EXPECT_EQ(v->buffer_align, align);
	T_EXPECT_EQ(v->reserved, 0);
	T_EXPECT_EQ(tracebuf_manager_buffer_align(m), align);
	/* a test program runs on its own architecture's kernel */
	if (TRACEBUF_LIB_CPU_COUNTER != TRACEBUF_LIB_CPU_COUNTER_NONE)
		T_EXPECT_EQ(!!(v->features & TRACEBUF_FEAT_CNTVCT), arm);
	tps = 1000000000ull;
	if (v->counter_khz && TRACEBUF_LIB_CPU_COUNTER != TRACEBUF_LIB_CPU_COUNTER_NONE &&
	    !!(v->features & TRACEBUF_FEAT_CNTVCT) == arm)
		tps = v->counter_khz * 1000;
	printf("# page %" PRIu64 ", buffer_align %u, counter %" PRIu64 " kHz (%s)\n",
	       page, v->buffer_align, (uint64_t)v->counter_khz,
	       v->features & TRACEBUF_FEAT_CNTVCT ? "CNTVCT" : "TSC");
	tracebuf_manager_close(m);

	/* above 4 KiB pages, a multiple of 4096 that is not one of the page */
	if (align > 4096) {
		cfg.output_fd = memfd_create("trace.fxt", MFD_CLOEXEC);
		T_ASSERT(cfg.output_fd >= 0);
		cfg.buffer_size = align + 4096;
		T_EXPECT_EQ(tracebuf_session_create(&cfg, &s), -EINVAL);
		close(cfg.output_fd);
	}

	T_ASSERT_EQ(one_mode(TRACEBUF_MODE_ONESHOT, align > 64 * KIB ? align : 64 * KIB, 100,
			     false, false, &tr, &pi), 0);
	k = slot_of(&tr, "writer");
	T_EXPECT(k >= 0);
	if (k >= 0)
		T_EXPECT_EQ(tr.ticks_per_second[k], tps);
	T_EXPECT_EQ(seq_shape(&tr, k).n, 100);
	trace_free(&tr);
}

/* ---------------------------------------------------------------------- */
/* Snapshots                                                              */

/* A snapshot of s into a new memfd, read back into tr; its return value. */
static int snap(struct tracebuf_session *s, struct trace *tr)
{
	int fd = memfd_create("snap.fxt", MFD_CLOEXEC), ret;
	uint64_t bytes = 0;
	struct stat st;

	memset(tr, 0, sizeof(*tr));
	if (fd < 0)
		return -errno;
	ret = tracebuf_session_snapshot(s, fd, &bytes);
	if (ret < 0 || fstat(fd, &st) || (uint64_t)st.st_size != bytes ||
	    finish(fd, tr)) {
		printf("# snapshot: %d, %" PRIu64 " bytes\n", ret, bytes);
		close(fd);
		return ret < 0 ? ret : -EIO;
	}
	return ret;
}

/*
 * Circular: a snapshot holds the last events so far, whole, and the
 * session goes on: its trace at stop holds the last events of all, in
 * order, as if no snapshot had been taken.
 */
static void circular_snapshot_then_stop(void)
{
	struct child_opts o = { .name = "writer", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct tracebuf_session_provider pi;
	struct tracebuf_session *s;
	struct trace tr;
	struct shape sh;
	struct child ch;
	int fd;

	T_ASSERT_EQ(child_start(&ch, &o), 0);
	s = session(TRACEBUF_MODE_CIRCULAR, 64 * KIB, &fd);
	T_ASSERT(s);
	T_EXPECT_EQ(snap(s, &tr), -EINVAL);	/* not started */
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	T_ASSERT_EQ(child_do(&ch, s, CMD_WRITE, 0, 20000, false), 0);
	T_ASSERT_EQ(snap(s, &tr), 1);
	sh = seq_shape(&tr, slot_of(&tr, "writer"));
	T_EXPECT(sh.n > 100 && sh.n < 20000);
	T_EXPECT_EQ(sh.hi, 19999);
	T_EXPECT_EQ(sh.dups, 0);
	T_EXPECT(sh.contiguous);
	T_EXPECT_EQ(tr.infos, 1);
	T_EXPECT_EQ(tr.unresolved, 0);
	T_EXPECT_EQ(g_notes.errors, 0);
	trace_free(&tr);
	/* a second one right away: the same events, cut where the first was */
	T_ASSERT_EQ(snap(s, &tr), 1);
	sh = seq_shape(&tr, slot_of(&tr, "writer"));
	T_EXPECT_EQ(sh.hi, 19999);
	T_EXPECT(sh.contiguous);
	trace_free(&tr);
	T_ASSERT_EQ(child_do(&ch, s, CMD_WRITE, 20000, 40000, false), 0);
	T_ASSERT_EQ(tracebuf_session_stop(s, true), 0);
	T_ASSERT(find_prov(s, "writer", &pi));
	T_EXPECT_EQ(pi.records_dropped, 0);
	T_ASSERT_EQ(tracebuf_session_destroy(s), 0);
	T_ASSERT_EQ(finish(fd, &tr), 0);
	sh = seq_shape(&tr, slot_of(&tr, "writer"));
	T_EXPECT(sh.n > 100);
	T_EXPECT_EQ(sh.hi, 39999);
	T_EXPECT_EQ(sh.dups, 0);
	T_EXPECT(sh.contiguous);
	T_EXPECT_EQ(tr.infos, 1);
	T_EXPECT_EQ(tr.unresolved, 0);
	trace_free(&tr);
	T_EXPECT_EQ(child_stop(&ch), 0);
}

/*
 * Snapshots while the provider writes without pause: each one decodes,
 * holds each event once and a run without holes, and none makes the
 * provider drop an event.  A rolling buffer reused while it was copied
 * (2 MiB rolling buffers: rare on x86-64 here, less so in arm64's emulation) is
 * asked for again; after four torn copies it is left out with a note:
 * the earlier one, or both, and then the snapshot holds nothing of the
 * provider.
 */
static void circular_snapshots_while_writing(void)
{
	struct child_opts o = { .name = "writer", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct tracebuf_session_provider pi;
	struct tracebuf_session *s;
	unsigned int taken = 0;
	struct trace tr;
	struct child ch;
	int fd, status;

	T_ASSERT_EQ(child_start(&ch, &o), 0);
	/* room for a few milliseconds of writing, as a copy takes */
	s = session(TRACEBUF_MODE_CIRCULAR, 4096 * KIB, &fd);
	T_ASSERT(s);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	T_ASSERT_EQ(child_do(&ch, s, CMD_FOREVER, 0, 2000, false), 0);
	for (int i = 0; i < 20; i++) {
		unsigned int notes = g_notes.errors;
		struct shape sh;
		int ret = snap(s, &tr);

		/* none: it wrote both rolling buffers while copied, and says so */
		T_EXPECT(ret == 1 || (ret == 0 && g_notes.errors > notes));
		if (ret != 1)
			continue;
		sh = seq_shape(&tr, slot_of(&tr, "writer"));
		T_EXPECT(sh.n > 0);
		T_EXPECT_EQ(sh.dups, 0);
		T_EXPECT(sh.contiguous);
		T_EXPECT_EQ(tr.unresolved, 0);
		taken += sh.n > 0;
		trace_free(&tr);
		usleep(5000);
	}
	printf("# %u of 20 snapshots hold data; %u notes of a rolling buffer reused while copied\n",
	       taken, g_notes.errors);
	T_EXPECT(taken >= 10);
	/*
	 * before the stop: a record the writer reserves while it stops may
	 * be dropped (arm64's emulation, once), which is not the snapshots'
	 */
	T_ASSERT(find_prov(s, "writer", &pi));
	T_EXPECT_EQ(pi.records_dropped, 0);
	T_ASSERT_EQ(tracebuf_session_stop(s, true), 0);
	kill(ch.pid, SIGKILL);
	T_ASSERT_EQ(waitpid(ch.pid, &status, 0), ch.pid);
	close(ch.cmd);
	close(ch.rsp);
	T_ASSERT_EQ(tracebuf_session_destroy(s), 0);
	T_ASSERT_EQ(finish(fd, &tr), 0);
	T_EXPECT(seq_shape(&tr, slot_of(&tr, "writer")).contiguous);
	T_EXPECT_EQ(tr.unresolved, 0);
	trace_free(&tr);
}

/* Oneshot: the first events so far, then, once full, the drop count. */
static void oneshot_snapshot(void)
{
	struct child_opts o = { .name = "writer", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct tracebuf_session *s;
	struct trace tr;
	struct shape sh;
	struct child ch;
	int fd;

	T_ASSERT_EQ(child_start(&ch, &o), 0);
	s = session(TRACEBUF_MODE_ONESHOT, 64 * KIB, &fd);
	T_ASSERT(s);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	T_ASSERT_EQ(child_do(&ch, s, CMD_WRITE, 0, 100, false), 0);
	T_ASSERT_EQ(snap(s, &tr), 1);
	sh = seq_shape(&tr, slot_of(&tr, "writer"));
	T_EXPECT_EQ(sh.n, 100);
	T_EXPECT(sh.contiguous);
	T_EXPECT_EQ(tr.overflows, 0);
	trace_free(&tr);
	T_ASSERT_EQ(child_do(&ch, s, CMD_WRITE, 100, 20000, false), 0);
	/* the first drop has the provider put the count in its header */
	usleep(100 * 1000);
	T_ASSERT_EQ(snap(s, &tr), 1);
	sh = seq_shape(&tr, slot_of(&tr, "writer"));
	T_EXPECT(sh.n > 100 && sh.n < 20000);
	T_EXPECT_EQ(sh.lo, 0);
	T_EXPECT(sh.contiguous);
	T_EXPECT_EQ(tr.overflows, 1);
	T_EXPECT_EQ(tr.unresolved, 0);
	trace_free(&tr);
	T_ASSERT_EQ(tracebuf_session_stop(s, true), 0);
	T_ASSERT_EQ(tracebuf_session_destroy(s), 0);
	T_ASSERT_EQ(finish(fd, &tr), 0);
	T_EXPECT_EQ(seq_shape(&tr, slot_of(&tr, "writer")).lo, 0);
	trace_free(&tr);
	T_EXPECT_EQ(child_stop(&ch), 0);
}

static void snapshot_refused_in_streaming(void)
{
	struct tracebuf_session *s;
	struct trace tr;
	int fd;

	s = session(TRACEBUF_MODE_STREAMING, 64 * KIB, &fd);
	T_ASSERT(s);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	T_EXPECT_EQ(snap(s, &tr), -EOPNOTSUPP);
	T_EXPECT_EQ(tracebuf_session_snapshot(s, -1, NULL), -EINVAL);
	T_EXPECT_EQ(tracebuf_session_stop(s, true), 0);
	tracebuf_session_destroy(s);
	close(fd);
}

/* What the session's output @fd holds so far, read into @tr (@fd stays open). */
static int so_far(int fd, struct trace *tr)
{
	int copy = dup(fd);

	return copy < 0 ? -1 : finish(copy, tr);
}

/*
 * A flush in streaming mode while the provider writes without pause:
 * after it, the output holds every event written before it (the rolling
 * buffer being written is saved now, not when it fills), each once and
 * in a run without holes; the provider never waits or drops for it, and
 * the trace in the end holds every event once.
 */
static void streaming_flush_while_writing(void)
{
	struct child_opts o = { .name = "writer", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct tracebuf_session_provider pi;
	struct tracebuf_session *s;
	uint64_t last = 0;
	struct trace tr;
	struct shape sh;
	struct child ch;
	int fd, status;

	T_ASSERT_EQ(child_start(&ch, &o), 0);
	s = session(TRACEBUF_MODE_STREAMING, 1024 * KIB, &fd);
	T_ASSERT(s);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	/* 0..999 written when it answers; it goes on from 1000 */
	T_ASSERT_EQ(child_do(&ch, s, CMD_FOREVER, 0, 1000, false), 0);
	for (int i = 0; i < 20; i++) {
		T_ASSERT_EQ(tracebuf_session_flush(s), 0);
		T_ASSERT_EQ(so_far(fd, &tr), 0);
		sh = seq_shape(&tr, slot_of(&tr, "writer"));
		T_EXPECT_EQ(sh.lo, 0);
		T_EXPECT(sh.hi >= 999 && sh.hi >= last);
		T_EXPECT_EQ(sh.dups, 0);
		T_EXPECT(sh.contiguous);
		T_EXPECT_EQ(tr.unresolved, 0);
		last = sh.hi;
		trace_free(&tr);
		/* the writer goes on meanwhile; its saves wait for the next flush */
		usleep(2000);
	}
	T_EXPECT(last > 999);
	T_ASSERT(find_prov(s, "writer", &pi));
	T_EXPECT_EQ(pi.records_dropped, 0);
	T_EXPECT(pi.saves >= 20);
	T_EXPECT_EQ(g_notes.errors, 0);
	T_ASSERT_EQ(tracebuf_session_stop(s, true), 0);
	kill(ch.pid, SIGKILL);
	T_ASSERT_EQ(waitpid(ch.pid, &status, 0), ch.pid);
	close(ch.cmd);
	close(ch.rsp);
	T_ASSERT_EQ(tracebuf_session_destroy(s), 0);
	T_ASSERT_EQ(finish(fd, &tr), 0);
	sh = seq_shape(&tr, slot_of(&tr, "writer"));
	T_EXPECT_EQ(sh.lo, 0);
	T_EXPECT(sh.hi >= last);
	T_EXPECT_EQ(sh.dups, 0);
	T_EXPECT(sh.contiguous);
	trace_free(&tr);
}

/* A flush is for sessions that run. */
static void flush_refused_where_it_cannot_be(void)
{
	struct tracebuf_session *s;
	int fd;

	s = session(TRACEBUF_MODE_STREAMING, 64 * KIB, &fd);
	T_ASSERT(s);
	T_EXPECT_EQ(tracebuf_session_flush(s), -EINVAL);	/* not started */
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	T_EXPECT_EQ(tracebuf_session_flush(s), 0);		/* no provider */
	T_EXPECT_EQ(tracebuf_session_stop(s, true), 0);
	T_EXPECT_EQ(tracebuf_session_flush(s), -EINVAL);	/* stopped */
	tracebuf_session_destroy(s);
	close(fd);
}

/* The module's kernel provider on or off (its parameter): 0, or -1. */
static int kernel_provider(const char *on)
{
	int fd = open("/sys/module/tracebuf/parameters/kernel_provider", O_WRONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : write(fd, on, strlen(on));

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(on) ? 0 : -1;
}

/*
 * A provider that cannot flush (the kernel provider in streaming mode
 * refuses the save now) makes the flush fail, with a note: it does not
 * return 0 with that provider's part missing.
 */
static void flush_fails_for_a_provider_that_cannot(void)
{
	static const char *const kernel[] = { "kernel" };
	static const char *const sched[] = { "sched" };
	struct tracebuf_session_config cfg = {
		.size = sizeof(cfg), .mode = TRACEBUF_MODE_STREAMING, .buffer_size = 256 * KIB,
		.providers = kernel, .nproviders = 1, .categories = sched, .ncategories = 1,
		.output_fd = memfd_create("kernel.fxt", MFD_CLOEXEC),
		.notify = on_note, .arg = &g_notes,
	};
	struct tracebuf_session_provider pi;
	struct tracebuf_session *s;

	memset(&g_notes, 0, sizeof(g_notes));
	T_ASSERT(cfg.output_fd >= 0);
	T_ASSERT_EQ(kernel_provider("1"), 0);
	T_ASSERT_EQ(tracebuf_session_create(&cfg, &s), 0);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	T_ASSERT(find_prov(s, "kernel", &pi));
	T_EXPECT_EQ(pi.state, TRACEBUF_LIB_TRACEE_STARTED);
	T_EXPECT_EQ(tracebuf_session_flush(s), -EIO);
	T_EXPECT(g_notes.errors >= 1);
	T_EXPECT_EQ(tracebuf_session_stop(s, true), 0);
	T_EXPECT_EQ(tracebuf_session_destroy(s), 0);
	close(cfg.output_fd);
	T_EXPECT_EQ(kernel_provider("0"), 0);
}

/*
 * What the output @fd holds from @from on, behind a magic record, read
 * alone: its seq events and unresolved references into @tr.
 */
static int part_alone(int fd, off_t from, struct trace *tr)
{
	int part = memfd_create("part.fxt", MFD_CLOEXEC);
	off_t end = lseek(fd, 0, SEEK_END);
	uint64_t magic = TRACEBUF_LIB_FXT_MAGIC;
	char buf[4096];

	if (part < 0 || end < from || write(part, &magic, 8) != 8)
		return -1;
	while (from < end) {
		ssize_t n = pread(fd, buf, sizeof(buf), from);

		if (n <= 0 || write(part, buf, (size_t)n) != n)
			return -1;
		from += n;
	}
	return finish(part, tr);
}

/*
 * Circular and oneshot: a flush writes what was recorded since the last
 * one, and the stop only what came after: each event once.  What each
 * wrote reads alone, its strings and threads with it.
 */
static void flush_then_stop(uint32_t mode)
{
	struct child_opts o = { .name = "writer", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct tracebuf_session *s;
	struct trace tr;
	struct shape sh;
	struct child ch;
	int fd;

	T_ASSERT_EQ(child_start(&ch, &o), 0);
	s = session(mode, 256 * KIB, &fd);
	T_ASSERT(s);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	for (uint64_t round = 0; round < 3; round++) {
		off_t from = lseek(fd, 0, SEEK_END);

		T_ASSERT_EQ(child_do(&ch, s, CMD_WRITE, round * 100, round * 100 + 100, false), 0);
		T_ASSERT_EQ(tracebuf_session_flush(s), 0);
		T_ASSERT_EQ(part_alone(fd, from, &tr), 0);
		sh = seq_shape(&tr, 0);
		T_EXPECT_EQ(sh.n, 100);
		T_EXPECT_EQ(sh.lo, round * 100);
		T_EXPECT_EQ(tr.unresolved, 0);
		trace_free(&tr);
		T_ASSERT_EQ(so_far(fd, &tr), 0);
		sh = seq_shape(&tr, slot_of(&tr, "writer"));
		T_EXPECT_EQ(sh.n, round * 100 + 100);
		T_EXPECT_EQ(sh.dups, 0);
		T_EXPECT(sh.contiguous);
		T_EXPECT_EQ(tr.unresolved, 0);
		T_EXPECT_EQ(tr.infos, 1);
		trace_free(&tr);
	}
	T_ASSERT_EQ(child_do(&ch, s, CMD_WRITE, 300, 350, false), 0);
	{
		off_t from = lseek(fd, 0, SEEK_END);

		T_ASSERT_EQ(tracebuf_session_stop(s, true), 0);
		T_ASSERT_EQ(part_alone(fd, from, &tr), 0);
		sh = seq_shape(&tr, 0);
		T_EXPECT_EQ(sh.n, 50);
		T_EXPECT_EQ(tr.unresolved, 0);
		trace_free(&tr);
	}
	T_ASSERT_EQ(tracebuf_session_destroy(s), 0);
	T_ASSERT_EQ(finish(fd, &tr), 0);
	sh = seq_shape(&tr, slot_of(&tr, "writer"));
	T_EXPECT_EQ(sh.n, 350);
	T_EXPECT_EQ(sh.lo, 0);
	T_EXPECT_EQ(sh.dups, 0);
	T_EXPECT(sh.contiguous);
	T_EXPECT_EQ(tr.unresolved, 0);
	trace_free(&tr);
	T_EXPECT_EQ(child_stop(&ch), 0);
}

static void circular_flush_then_stop(void)
{
	flush_then_stop(TRACEBUF_MODE_CIRCULAR);
}

static void oneshot_flush_then_stop(void)
{
	flush_then_stop(TRACEBUF_MODE_ONESHOT);
}

/* A session of no provider: one that registers is not taken, nor waits. */
static void no_providers_session_takes_none(void)
{
	struct child_opts o = { .name = "writer", .flags = TRACEBUF_LIB_PROVIDER_THREAD };
	struct tracebuf_session_config cfg = {
		.size = sizeof(cfg), .mode = TRACEBUF_MODE_CIRCULAR, .buffer_size = 64 * KIB,
		.flags = TRACEBUF_LIB_SESSION_NO_PROVIDERS,
		.output_fd = memfd_create("none.fxt", MFD_CLOEXEC),
	};
	struct tracebuf_session_provider pi[2];
	struct tracebuf_session *s;
	struct trace tr;
	struct child ch;

	T_ASSERT(cfg.output_fd >= 0);
	cfg.flags = 1u << 31;
	T_EXPECT_EQ(tracebuf_session_create(&cfg, &s), -EINVAL);
	cfg.flags = TRACEBUF_LIB_SESSION_NO_PROVIDERS;
	T_ASSERT_EQ(tracebuf_session_create(&cfg, &s), 0);
	T_ASSERT_EQ(tracebuf_session_start(s, NULL), 0);
	T_ASSERT_EQ(child_start(&ch, &o), 0);
	T_ASSERT_EQ(child_do(&ch, s, CMD_WRITE, 0, 100, false), 0);
	T_EXPECT_EQ(tracebuf_session_providers(s, pi, 2), 0);
	T_ASSERT_EQ(tracebuf_session_stop(s, true), 0);
	T_ASSERT_EQ(tracebuf_session_destroy(s), 0);
	T_ASSERT_EQ(finish(cfg.output_fd, &tr), 0);
	T_EXPECT_EQ(tr.infos, 0);
	T_EXPECT_EQ(seq_shape(&tr, slot_of(&tr, "writer")).n, 0);
	trace_free(&tr);
	T_EXPECT_EQ(child_stop(&ch), 0);
}

static const struct t_test tests[] = {
	T_TEST(live_counts_while_tracing),
	T_TEST(streaming_flush_while_writing),
	T_TEST(flush_refused_where_it_cannot_be),
	T_TEST(circular_flush_then_stop),
	T_TEST(oneshot_flush_then_stop),
	T_TEST(no_providers_session_takes_none),
	T_TEST(flush_fails_for_a_provider_that_cannot),
	T_TEST(oneshot_keeps_the_first),
	T_TEST(circular_keeps_the_last),
	T_TEST(streaming_keeps_all),
	T_TEST(streaming_from_an_event_loop),
	T_TEST(streaming_rotates_files),
	T_TEST(streaming_accounts_for_drops),
	T_TEST(streaming_save_refused_for_alerts_is_sent_again),
	T_TEST(restart_retain),
	T_TEST(restart_clear_nondurable),
	T_TEST(restart_clear_entire),
	T_TEST(restart_clear_nondurable_circular),
	T_TEST(restart_after_results),
	T_TEST(restart_streaming),
	T_TEST(provider_killed_mid_stream),
	T_TEST(provider_exits_while_tracing),
	T_TEST(forked_session_finds_its_provider_gone),
	T_TEST(hold_saved_waits_for_send),
	T_TEST(hold_saved_holds_a_joiner_start),
	T_TEST(provider_killed_after_writing),
	T_TEST(manager_killed_mid_save),
	T_TEST(several_providers_one_file),
	T_TEST(late_joiner_waits_for_start),
	T_TEST(every_provider_session_leaves_a_named_one),
	T_TEST(late_start_is_reported),
	T_TEST(chosen_providers_and_bad_config),
	T_TEST(categories_and_overrides),
	T_TEST(version_timebase_and_align),
	T_TEST(circular_snapshot_then_stop),
	T_TEST(circular_snapshots_while_writing),
	T_TEST(oneshot_snapshot),
	T_TEST(snapshot_refused_in_streaming),
};

T_MAIN(tests)
