// SPDX-License-Identifier: MIT
/*
 * The record engine under concurrency, per mode: writer threads emit
 * numbered records, a "manager" thread serves streaming saves, and in the
 * end every record is either in the output or counted as dropped, none
 * twice; oneshot keeps each writer's first records, circular its last,
 * streaming with a manager that keeps up all of them.
 */
#define _GNU_SOURCE
#include "ktap.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

#include <tracebuf_fxt.h>
#include <tracebuf_manager.h>

#include "engine_priv.h"

#define MAX_WRITERS 8

/* Our test record: an FXT instant event with inline koids (4 words). */
#define REC_WORDS 4
#define REC_HDR (4ull | (uint64_t)REC_WORDS << 4)

struct run {
	uint32_t mode;
	size_t size;
	int writers;
	uint64_t per_writer;
	unsigned int save_delay_us;	/* a slow manager */
	bool expect_all;		/* the manager keeps up: nothing lost */
	unsigned int save_now_us;	/* the manager asks a save now so often */
	/* results */
	uint8_t *out;			/* saved bytes, in save order */
	size_t out_len, out_cap;
	uint64_t local_drops[MAX_WRITERS];
	atomic_int writers_done;
	atomic_uint notified;
	uint64_t saves;
	/* save now: each writer's records committed, and seen saved */
	atomic_ullong committed[MAX_WRITERS];
	uint64_t saved_upto[MAX_WRITERS];
	uint64_t flushes, flush_misses, flush_retries;
	/* the writer that fills a rolling buffer asks for its save (ops.request_save) */
	bool writer_requests;
	atomic_bool req_ready;		/* one save is outstanding at a time */
	struct tracebuf_save_req req;
	uint64_t writer_saves;		/* requests that came from a writer */
	uint64_t out_of_order;		/* a save not of the next wrap */
};

static uint8_t *g_buf;
static struct run *g_run;

static void notify(void *arg)
{
	struct run *r = arg;

	atomic_store(&r->notified, 1);
}

/* ops.request_save: under the engine's lock, from the writer that filled a rolling buffer. */
static int request_save(void *arg, const struct tracebuf_save_req *req)
{
	struct run *r = arg;

	if (atomic_load(&r->req_ready))
		r->out_of_order++;	/* a second save while one is outstanding */
	r->req = *req;
	atomic_store(&r->req_ready, true);
	return 0;
}

static void out_append(struct run *r, const void *p, size_t len)
{
	if (r->out_len + len > r->out_cap) {
		r->out_cap = (r->out_len + len) * 2;
		r->out = realloc(r->out, r->out_cap);
	}
	memcpy(r->out + r->out_len, p, len);
	r->out_len += len;
}

static void *writer(void *arg)
{
	uint64_t id = (uintptr_t)arg;
	struct tracebuf_thread *t = &__tracebuf_self;

	for (uint64_t seq = 0; seq < g_run->per_writer; seq++) {
		uint64_t *p = tracebuf_record_reserve(t, REC_WORDS * 8);

		if (!p) {
			g_run->local_drops[id]++;
			continue;
		}
		p[0] = REC_HDR;
		p[1] = tracebuf_ticks();
		p[2] = id + 1;
		p[3] = seq;
		tracebuf_record_commit(t, p + REC_WORDS);
		atomic_store_explicit(&g_run->committed[id], seq + 1, memory_order_release);
		/* a manager that keeps up: no save is left pending long */
		if (g_run->expect_all && !(seq % 64))
			while (tb_engine_pending_rolling_buffers())
				usleep(20);
	}
	atomic_fetch_add(&g_run->writers_done, 1);
	return NULL;
}

/* Each writer's next record not yet saved, after @len saved bytes at @p. */
static void note_saved(struct run *r, const uint8_t *p, size_t len)
{
	const uint64_t *w = (const void *)p;

	for (size_t i = 0; i + REC_WORDS <= len / 8;) {
		uint64_t size = (w[i] >> 4) & 0xfff;

		if (!size)
			break;
		if (w[i] == REC_HDR && w[i + 2] - 1 < MAX_WRITERS &&
		    w[i + 3] + 1 > r->saved_upto[w[i + 2] - 1])
			r->saved_upto[w[i + 2] - 1] = w[i + 3] + 1;
		i += size;
	}
}

/* A save now asked for: what it must bring, and when that is saved. */
struct flush {
	bool pending, asked;
	uint32_t wrap;		/* saved through this wrap, ... */
	bool upto_wrap;		/* ... or, with end 0, the one before */
	uint64_t want[MAX_WRITERS];
};

/* Saved what the flush asked for?  Then each writer's records are. */
static void flush_check(struct run *r, struct flush *f)
{
	uint64_t last = r->saves ? r->saves - 1 : 0;

	if (!f->pending)
		return;
	if (f->upto_wrap ? (!r->saves || last < f->wrap) :
			   (f->wrap && (!r->saves || last < f->wrap - 1)))
		return;
	f->pending = false;
	for (int i = 0; i < r->writers; i++)
		if (r->saved_upto[i] < f->want[i])
			r->flush_misses++;
}

/* Ask for a save now, as a provider does on a SNAPSHOT in streaming mode. */
static void flush_ask(struct run *r, struct flush *f)
{
	uint64_t end;
	int ret;

	if (!f->asked)
		for (int i = 0; i < r->writers; i++)
			f->want[i] = atomic_load_explicit(&r->committed[i], memory_order_acquire);
	ret = tb_engine_save_now(&f->wrap, &end);
	if (ret == -EAGAIN) {
		f->asked = true;	/* again after the next save */
		r->flush_retries++;
		return;
	}
	f->asked = false;
	if (ret) {
		T_FAIL("save now: %d", ret);
		return;
	}
	f->pending = true;
	f->upto_wrap = end > 0;
	r->flushes++;
	flush_check(r, f);
}

static double now_us(void)
{
	return t_now() * 1e6;
}

/* The manager: serve saves until the writers are done. */
static void *manager(void *arg)
{
	struct run *r = arg;
	struct tracebuf_engine *e = tb_engine_get();
	struct tracebuf_save_req req;
	struct flush f = { 0 };
	double next = now_us() + r->save_now_us;

	while (atomic_load(&r->writers_done) < r->writers) {
		bool from_writer = false;

		if (r->save_now_us && !f.pending && (f.asked || now_us() >= next)) {
			flush_ask(r, &f);
			next = now_us() + r->save_now_us;
		}
		if (atomic_load(&r->req_ready)) {
			from_writer = true;
		} else if (!atomic_exchange(&r->notified, 0)) {
			usleep(50);
			continue;
		}
		while (from_writer || tb_engine_service(&req) == 1) {
			uint32_t h;
			size_t at = r->out_len;

			if (from_writer) {
				req = r->req;
				atomic_store(&r->req_ready, false);
				r->writer_saves++;
				from_writer = false;
			}
			h = req.wrapped_count & 1;
			if (req.wrapped_count != r->saves)
				r->out_of_order++;

			if (r->save_delay_us)
				usleep(r->save_delay_us);
			out_append(r, e->rolling[h], e->hdr->rolling_data_end[h]);
			note_saved(r, r->out + at, r->out_len - at);
			r->saves++;
			tb_engine_buffer_saved(req.wrapped_count,
					       req.durable_data_end);
			flush_check(r, &f);
			if (f.asked)
				flush_ask(r, &f);
		}
	}
	return NULL;
}

/* Append what a final collection reads, in order (Documentation/trace-format.md §1.6). */
static void collect_final(struct run *r, uint32_t saved_upto_wrap, bool saved_any)
{
	struct tracebuf_engine *e = tb_engine_get();
	struct tracebuf_buffer_header *h = e->hdr;
	uint32_t wc = h->wrapped_count;

	if (r->mode == TRACEBUF_MODE_ONESHOT) {
		out_append(r, e->rolling[0], h->rolling_data_end[0]);
		return;
	}
	if (wc > 0 && (!saved_any || saved_upto_wrap < wc - 1))
		out_append(r, e->rolling[(wc - 1) & 1], h->rolling_data_end[(wc - 1) & 1]);
	if (!saved_any || saved_upto_wrap < wc)
		out_append(r, e->rolling[wc & 1], h->rolling_data_end[wc & 1]);
}

struct check {
	uint64_t present, dupes, bad, pads, meta;
	uint64_t *first, *last, *count;	/* per writer */
};

static int walk(struct run *r, struct check *c)
{
	const uint64_t *w = (const uint64_t *)r->out;
	size_t n = r->out_len / 8, i = 0;
	uint8_t *seen = calloc(r->writers * r->per_writer, 1);

	c->first = calloc(MAX_WRITERS, 8);
	c->last = calloc(MAX_WRITERS, 8);
	c->count = calloc(MAX_WRITERS, 8);
	for (int k = 0; k < MAX_WRITERS; k++)
		c->first[k] = UINT64_MAX;
	while (i < n) {
		uint64_t hdr = w[i], size = (hdr >> 4) & 0xfff;

		if (!size || i + size > n) {
			c->bad++;
			break;
		}
		if ((hdr & 0xf) == 5 && ((hdr >> 48) & 0xff) == 1) {
			c->pads++;
		} else if ((hdr & 0xf) == 1 || (hdr & 0xf) == 2 ||
			   (hdr & 0xf) == 3 || (hdr & 0xf) == 7) {
			/* init, string, thread and kernel-object records in a
			 * oneshot durable region
			 */
		} else if ((hdr & 0xf) == 4 && hdr != REC_HDR) {
			c->meta++;	/* the engine's drop-window record */
		} else if (hdr == REC_HDR) {
			uint64_t id = w[i + 2] - 1, seq = w[i + 3];

			if (id >= (uint64_t)r->writers || seq >= r->per_writer) {
				c->bad++;
			} else if (seen[id * r->per_writer + seq]++) {
				c->dupes++;
			} else {
				c->present++;
				c->count[id]++;
				if (seq < c->first[id])
					c->first[id] = seq;
				if (seq > c->last[id] || c->count[id] == 1)
					c->last[id] = seq;
			}
		} else {
			c->bad++;
		}
		i += size;
	}
	free(seen);
	return 0;
}

static int run_one(const char *name, struct run *r)
{
	pthread_t th[MAX_WRITERS], mgr;
	struct check c = { 0 };
	struct tracebuf_engine_ops ops = {
		.notify = notify, .request_save = r->writer_requests ? request_save : NULL,
		.arg = r,
	};
	struct tb_engine_stats st;
	uint64_t total = r->per_writer * r->writers, local = 0;
	int fail = 0;

	g_run = r;
	g_buf = aligned_alloc(4096, r->size);
	tb_engine_format(g_buf, r->size, r->mode);
	if (tb_engine_attach(g_buf, r->size, r->mode, &ops) ||
	    tb_engine_start(TRACEBUF_START_CLEAR_ENTIRE,
			    TRACEBUF_ENGINE_F_CLEAR)) {
		T_FAIL("%s: attach/start", name);
		return 1;
	}
	pthread_create(&mgr, NULL, manager, r);
	for (int i = 0; i < r->writers; i++)
		pthread_create(&th[i], NULL, writer, (void *)(uintptr_t)i);
	for (int i = 0; i < r->writers; i++)
		pthread_join(th[i], NULL);
	pthread_join(mgr, NULL);
	tb_engine_stop();
	/* streaming: the final collection skips what was saved */
	collect_final(r, r->saves ? (uint32_t)(r->saves - 1) : 0, r->saves > 0);
	tb_engine_stats(&st);
	walk(r, &c);
	for (int i = 0; i < r->writers; i++)
		local += r->local_drops[i];

	if (c.bad || c.dupes)
		fail = 1;
	if (st.dropped != local)
		fail = 1;
	if (r->mode != TRACEBUF_MODE_CIRCULAR && c.present + st.dropped != total)
		fail = 1;
	if (r->mode == TRACEBUF_MODE_CIRCULAR && st.dropped)
		fail = 1;
	if (r->expect_all && c.present != total)
		fail = 1;
	if (r->save_now_us && (!r->flushes || r->flush_misses))
		fail = 1;
	if (r->out_of_order || (r->writer_requests && !r->writer_saves) ||
	    (!r->writer_requests && r->writer_saves))
		fail = 1;
	for (int i = 0; i < r->writers; i++) {
		if (!c.count[i])
			continue;
		/* contiguous per writer, except across streaming drop windows */
		if ((r->mode != TRACEBUF_MODE_STREAMING || !st.dropped) &&
		    c.last[i] - c.first[i] + 1 != c.count[i])
			fail = 1;
		if (r->mode == TRACEBUF_MODE_ONESHOT && c.first[i] != 0)
			fail = 1;
		if (r->mode == TRACEBUF_MODE_CIRCULAR &&
		    c.last[i] != r->per_writer - 1)
			fail = 1;
	}
	printf("# %s: present %llu dropped %llu (local %llu) of %llu, "
	       "dupes %llu bad %llu pads %llu saves %llu\n", name, (unsigned long long)c.present, (unsigned long long)st.dropped,
	       (unsigned long long)local, (unsigned long long)total,
	       (unsigned long long)c.dupes, (unsigned long long)c.bad,
	       (unsigned long long)c.pads, (unsigned long long)r->saves);
	if (r->writer_requests)
		printf("# %s: %llu of the saves asked for by the writer that filled the half, "
		       "%llu out of order\n", name, (unsigned long long)r->writer_saves,
		       (unsigned long long)r->out_of_order);
	if (r->save_now_us)
		printf("# %s: %llu saves now (%llu retried), %llu missed a record\n", name,
		       (unsigned long long)r->flushes, (unsigned long long)r->flush_retries,
		       (unsigned long long)r->flush_misses);
	if (fail)
		T_FAIL("%s: accounting does not add up", name);
	tb_engine_detach();
	free(g_buf);
	free(r->out);
	free(c.first);
	free(c.last);
	free(c.count);
	return fail;
}

static void oneshot_keeps_first_records(void)
{
	struct run r = { .mode = TRACEBUF_MODE_ONESHOT, .size = 1 << 20, .writers = 4, .per_writer = 100000 };

	run_one("oneshot_keeps_first_records", &r);
}

static void circular_keeps_last_records(void)
{
	struct run r = { .mode = TRACEBUF_MODE_CIRCULAR, .size = 1 << 20, .writers = 4, .per_writer = 200000 };

	run_one("circular_keeps_last_records", &r);
}

static void streaming_manager_keeping_up_loses_nothing(void)
{
	struct run r = { .mode = TRACEBUF_MODE_STREAMING, .size = 1 << 20, .writers = 4, .per_writer = 100000, .expect_all = true };

	run_one("streaming_manager_keeping_up_loses_nothing", &r);
}

/*
 * Saves now while four writers go on (a flush): once the rolling buffer each
 * named is saved, every record committed before it was asked is saved, and
 * none is lost or doubled.
 */
static void streaming_save_now_loses_nothing(void)
{
	struct run r = { .mode = TRACEBUF_MODE_STREAMING, .size = 1 << 20, .writers = 4,
			 .per_writer = 100000, .expect_all = true, .save_now_us = 300 };

	run_one("streaming_save_now_loses_nothing", &r);
}

static void streaming_slow_manager_drops_and_counts(void)
{
	struct run r = { .mode = TRACEBUF_MODE_STREAMING, .size = 256 << 10, .writers = 4, .per_writer = 200000, .save_delay_us = 300 };

	run_one("streaming_slow_manager_drops_and_counts", &r);
}

/*
 * The writer that fills a rolling buffer asks for its save itself
 * (ops.request_save, as the provider sends SAVE_BUFFER from it): the saves come
 * in wrap order, one at a time, most of them from writers, the rest (a rolling
 * buffer that filled while a save was outstanding) from the service step; every
 * record is saved or counted, none twice, and with a manager that keeps
 * up, every one is saved.
 */
static void streaming_writer_asks_for_the_save(void)
{
	struct run keep = { .mode = TRACEBUF_MODE_STREAMING, .size = 1 << 20, .writers = 4,
			    .per_writer = 100000, .expect_all = true, .writer_requests = true };
	struct run slow = { .mode = TRACEBUF_MODE_STREAMING, .size = 256 << 10, .writers = 4,
			    .per_writer = 200000, .save_delay_us = 300, .writer_requests = true };

	run_one("streaming_writer_asks_for_the_save, keeping up", &keep);
	run_one("streaming_writer_asks_for_the_save, slow", &slow);
}

static void streaming_small_buffer_eight_writers(void)
{
	struct run r = { .mode = TRACEBUF_MODE_STREAMING, .size = 64 << 10, .writers = 8, .per_writer = 50000 };

	run_one("streaming_small_buffer_eight_writers", &r);
}

static void circular_small_buffer_eight_writers(void)
{
	struct run r = { .mode = TRACEBUF_MODE_CIRCULAR, .size = 16 << 10, .writers = 8, .per_writer = 50000 };

	run_one("circular_small_buffer_eight_writers", &r);
}

static void oneshot_smallest_buffer(void)
{
	struct run r = { .mode = TRACEBUF_MODE_ONESHOT, .size = 4096, .writers = 2, .per_writer = 1000 };

	run_one("oneshot_smallest_buffer", &r);
}

/* The pages wholly inside rolling buffer @h, as the kernel seals them (maybe none). */
static void seal_rolling(struct tracebuf_engine *e, uint32_t h, int prot)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t first = ((uintptr_t)e->rolling[h] + page - 1) & ~(page - 1);
	uintptr_t end = ((uintptr_t)e->rolling[h] + e->rolling_size) & ~(page - 1);

	if (end > first && mprotect((void *)first, end - first, prot))
		T_FAIL("mprotect: %s", strerror(errno));
}

/* A buffer of @size in @mode, started afresh (no kernel: the engine zeroes). */
static uint8_t *engine_up(size_t size, uint32_t mode)
{
	struct tracebuf_engine_ops ops = { 0 };
	uint8_t *buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED)
		return NULL;
	tb_engine_format(buf, size, mode);
	if (tb_engine_attach(buf, size, mode, &ops) ||
	    tb_engine_start(TRACEBUF_START_CLEAR_ENTIRE, TRACEBUF_ENGINE_F_CLEAR)) {
		munmap(buf, size);
		return NULL;
	}
	return buf;
}

/*
 * A save the manager ends just before our STOPPED reaches the kernel:
 * the kernel seals that rolling buffer too at the stop (no save holds it), so
 * the BUFFER_SAVED we read after the stop must leave it alone (it was SIGBUS
 * in the VM), and the START after it zero it.  The seal is a read-only
 * mapping here.
 */
static void streaming_save_ended_by_the_stop(void)
{
	const size_t size = 64 << 10;
	struct tracebuf_engine *e = tb_engine_get();
	struct tracebuf_thread *t = &__tracebuf_self;
	struct tracebuf_save_req req;
	uint8_t *buf = engine_up(size, TRACEBUF_MODE_STREAMING);
	uint64_t seq = 0;
	uint32_t h;
	bool zero = true;

	T_ASSERT(buf);
	/* fill the first rolling buffer, and a little of the second */
	do {
		uint64_t *p = tracebuf_record_reserve(t, REC_WORDS * 8);

		T_ASSERT(p);
		p[0] = REC_HDR;
		p[1] = tracebuf_ticks();
		p[2] = 1;
		p[3] = seq++;
		tracebuf_record_commit(t, p + REC_WORDS);
	} while (tb_engine_service(&req) != 1);
	h = req.wrapped_count & 1;
	T_EXPECT_EQ(tb_engine_stop(), 0);
	seal_rolling(e, h, PROT_READ);
	T_EXPECT_EQ(tb_engine_buffer_saved(req.wrapped_count,
						 req.durable_data_end), 0);
	T_EXPECT_EQ(e->hdr->rolling_data_end[h], 0);
	T_EXPECT_EQ(tb_engine_pending_rolling_buffers(), 0);
	T_EXPECT_EQ(((uint64_t *)e->rolling[h])[0], REC_HDR);	/* untouched */
	seal_rolling(e, h, PROT_READ | PROT_WRITE);
	/* the START after it: the kernel unsealed first, and the engine zeroes */
	T_EXPECT_EQ(tb_engine_start(TRACEBUF_START_RETAIN, 0), 0);
	for (uint64_t i = 0; i < e->rolling_size; i++)
		zero &= !e->rolling[h][i];
	T_EXPECT(zero);
	printf("# %llu records, half %u saved after the stop\n",
	       (unsigned long long)seq, h);
	T_EXPECT_EQ(tb_engine_stop(), 0);
	tb_engine_detach();
	munmap(buf, size);
}

/* ops.request_save of a provider whose manager's inbox is full: refused. */
static unsigned int refused_saves;
static struct tracebuf_save_req refused_req;

static int request_save_refused(void *arg, const struct tracebuf_save_req *req)
{
	(void)arg;
	refused_saves++;
	refused_req = *req;
	return -EAGAIN;
}

/* One record from this thread, if it is taken. */
static bool put_record(uint64_t seq)
{
	struct tracebuf_thread *t = &__tracebuf_self;
	uint64_t *p = tracebuf_record_reserve(t, REC_WORDS * 8);

	if (!p)
		return false;
	p[0] = REC_HDR;
	p[1] = tracebuf_ticks();
	p[2] = 1;
	p[3] = seq;
	tracebuf_record_commit(t, p + REC_WORDS);
	return true;
}

/*
 * A SAVE_BUFFER refused with EAGAIN (the manager's inbox full of the
 * provider's ALERTs) is not awaited: the next service asks for the same
 * rolling buffer again, whether the writer that filled it asked
 * (ops.request_save) or the service step (tb_engine_save_refused()).
 * Before, the engine waited for the answer to a save the manager never got, and
 * streaming dropped every record until a clearing START.  Once saved,
 * the writers go on.
 */
static void streaming_refused_save_is_asked_again(void)
{
	const size_t size = 64 << 10;
	struct tracebuf_engine_ops ops = { .request_save = request_save_refused };
	struct tracebuf_save_req req, again;
	uint64_t seq = 0;
	uint8_t *buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	T_ASSERT(buf != MAP_FAILED);
	refused_saves = 0;
	tb_engine_format(buf, size, TRACEBUF_MODE_STREAMING);
	T_ASSERT(!tb_engine_attach(buf, size, TRACEBUF_MODE_STREAMING, &ops));
	T_ASSERT(!tb_engine_start(TRACEBUF_START_CLEAR_ENTIRE, TRACEBUF_ENGINE_F_CLEAR));
	/* the writer that fills the first rolling buffer asks for its save: refused */
	while (!refused_saves && put_record(seq))
		seq++;
	T_ASSERT_EQ(refused_saves, 1);
	T_EXPECT_EQ(refused_req.wrapped_count, 0);
	/* the service asks for it again */
	T_ASSERT_EQ(tb_engine_service(&req), 1);
	T_EXPECT_EQ(req.wrapped_count, 0);
	/* the service's request refused in turn: asked once more */
	T_EXPECT_EQ(tb_engine_save_refused(&req), 0);
	T_EXPECT_EQ(tb_engine_save_refused(&req), -EINVAL);		/* not outstanding */
	T_ASSERT_EQ(tb_engine_service(&again), 1);
	T_EXPECT_EQ(again.wrapped_count, 0);
	T_EXPECT_EQ(tb_engine_service(&req), 0);		/* one at a time */
	/* answered: the first rolling buffer is free, the writers fill the second */
	T_EXPECT_EQ(tb_engine_buffer_saved(again.wrapped_count,
						 again.durable_data_end), 0);
	T_EXPECT_EQ(tb_engine_pending_rolling_buffers(), 0);
	while (refused_saves < 2 && put_record(seq))
		seq++;
	T_EXPECT_EQ(refused_saves, 2);
	T_EXPECT_EQ(refused_req.wrapped_count, 1);
	T_EXPECT_EQ(tb_engine_service(&req), 1);
	T_EXPECT_EQ(req.wrapped_count, 1);
	printf("# %llu records, each save refused once\n", (unsigned long long)seq);
	T_EXPECT_EQ(tb_engine_stop(), 0);
	tb_engine_detach();
	munmap(buf, size);
}

/* @n records of @bytes each (pads) from this thread; how many were taken. */
static unsigned int put(size_t bytes, unsigned int n)
{
	unsigned int got = 0;

	for (; n; n--) {
		uint64_t *p = tracebuf_record_reserve(&__tracebuf_self, bytes);

		if (!p)
			continue;
		tracebuf_fxt_pad_write(p, bytes);
		tracebuf_record_commit(&__tracebuf_self, p + bytes / 8);
		got++;
	}
	return got;
}

/* Whether the first @end bytes of rolling buffer @h are whole records, end to end. */
static bool whole(struct tracebuf_engine *e, uint32_t h, uint64_t end)
{
	const uint64_t *w = (const uint64_t *)e->rolling[h];
	uint64_t i = 0;

	while (i < end / 8) {
		uint64_t words = (w[i] >> 4) & 0xfff;

		if (!words)
			return false;
		i += words;
	}
	return i == end / 8;
}

/*
 * START with RETAIN after a stop that found the buffer full (a oneshot
 * buffer that filled, streaming with both rolling buffers waiting for saves):
 * the cursor was past the fill limit, and the next write padded a negative
 * length over the process's memory.  Now a oneshot buffer stays full,
 * circular goes on, and streaming goes on once the saves come.
 */
static void retain_after_a_full_stop(void)
{
	static const uint32_t modes[] = {
		TRACEBUF_MODE_ONESHOT, TRACEBUF_MODE_CIRCULAR, TRACEBUF_MODE_STREAMING,
	};
	const size_t size = 64 << 10;

	for (unsigned int m = 0; m < 3; m++) {
		struct tracebuf_engine *e = tb_engine_get();
		struct tracebuf_save_req req;
		unsigned int got, saves = 0;
		uint8_t *buf = engine_up(size, modes[m]);

		T_ASSERT(buf);
		put(32, 5000);
		T_EXPECT_EQ(tb_engine_stop(), 0);
		/* stopped: no save asked for (the kernel refuses one after STOPPED) */
		T_EXPECT_EQ(tb_engine_service(&req), 0);
		T_EXPECT_EQ(tb_engine_start(TRACEBUF_START_RETAIN, 0), 0);
		got = put(32, 100);
		if (modes[m] == TRACEBUF_MODE_STREAMING) {
			T_EXPECT_EQ(got, 0);
			while (tb_engine_service(&req) == 1 && saves < 4) {
				tb_engine_buffer_saved(req.wrapped_count,
						       req.durable_data_end);
				saves++;
			}
			T_EXPECT_EQ(saves, 2);
			got = put(32, 100);
		}
		T_EXPECT_EQ(got, modes[m] == TRACEBUF_MODE_ONESHOT ? 0u : 100u);
		T_EXPECT_EQ(tb_engine_stop(), 0);
		for (uint32_t h = 0; h < (modes[m] == TRACEBUF_MODE_ONESHOT ? 1u : 2u); h++)
			T_EXPECT(whole(e, h, e->hdr->rolling_data_end[h]));
		printf("# mode %u: %u written after the restart, %u saves\n", modes[m], got, saves);
		tb_engine_detach();
		munmap(buf, size);
	}
}

/* Stands for the event layer's drop window record: 48 bytes, a pad. */
static size_t window_at(struct tracebuf_engine *e, uint64_t *p, size_t room)
{
	(void)e;
	if (room < 48)
		return 0;
	tracebuf_fxt_pad_write(p, 48);
	return 48;
}

/*
 * A stop that closes a drop window just below the fill limit ends the
 * data past it; START with RETAIN goes on from a full rolling buffer (not from
 * past the limit), and the next stop's window goes after the first in
 * the stop reserve, not over it.
 */
static void retain_after_a_window_past_the_fill_limit(void)
{
	static const struct tracebuf_engine_hooks hooks = { .drop_window_at = window_at };
	const size_t size = 64 << 10;
	struct tracebuf_engine *e = tb_engine_get();
	uint8_t *buf = engine_up(size, TRACEBUF_MODE_ONESHOT);
	uint64_t at, left, k;
	const uint64_t *w;

	T_ASSERT(buf);
	tb_engine_set_hooks(&hooks);
	/* records larger than a chunk take exactly their size: land 16 below */
	at = e->fill_limit - 16;
	left = at - (atomic_load(&e->cursor) & 0xffffffffull);
	k = (left - 2 * e->chunk_max - 8) / 4096;
	T_ASSERT_EQ(put(4096, (unsigned int)k), k);
	T_ASSERT_EQ(put(left - 4096 * k, 1), 1);
	T_ASSERT_EQ(atomic_load(&e->cursor) & 0xffffffffull, at);
	T_EXPECT(!tracebuf_record_reserve(&__tracebuf_self, e->fill_limit));	/* a drop */
	T_EXPECT_EQ(tb_engine_stop(), 0);
	T_EXPECT_EQ(e->hdr->rolling_data_end[0], at + 48);

	T_EXPECT_EQ(tb_engine_start(TRACEBUF_START_RETAIN, 0), 0);
	T_EXPECT_EQ(put(32, 10), 0);	/* full: dropped, a window */
	T_EXPECT_EQ(tb_engine_stop(), 0);
	T_EXPECT_EQ(e->hdr->rolling_data_end[0], e->rolling_size);
	T_EXPECT(whole(e, 0, e->rolling_size));
	w = (const uint64_t *)e->rolling[0];
	T_EXPECT_EQ((w[at / 8] >> 4) & 0xfff, 6);		/* the first window */
	T_EXPECT_EQ((w[(at + 48) / 8] >> 4) & 0xfff, 6);	/* the second */
	tb_engine_set_hooks(NULL);
	tb_engine_detach();
	munmap(buf, size);
}

/*
 * A model of a provider's life with a kernel and a session around it,
 * driven by a seeded random walk: write, serve and answer streaming
 * saves, stop (with the session's read-out or without), start again
 * (RETAIN, or CLEAR_ENTIRE after a read-out, as the session does),
 * snapshots.  The kernel's seals are read-only mappings, put and lifted
 * when it would (uapi TRACEBUF_INIT_F_SEAL_SAVES), and a BUFFER_SAVED may
 * reach the kernel before or after the STOPPED, and the provider before
 * or after its STOP, as the two FIFOs allow.  In the end every record
 * that was taken is in the output once (oneshot, streaming) or at most
 * once (circular), and every range read out is whole records.  The walks
 * run one after another on one engine and thread, as a process that is
 * traced again after a TERMINATE.  MODEL_SEED=MODE:SEED tells one walk.
 */
struct model {
	uint32_t mode;
	uint64_t x;			/* xorshift state */
	uint64_t seq;			/* records asked for */
	uint8_t *taken;			/* by seq: reserve gave room */
	uint8_t *seen;			/* by seq: in the output */
	bool started, results;
	/* the kernel */
	bool pending;			/* a save between SAVE_BUFFER and BUFFER_SAVED */
	struct tracebuf_save_req req;
	bool sealed[2];
	/* the provider's inbox: a BUFFER_SAVED not read yet */
	bool undelivered;
	struct tracebuf_save_req ack;
	/* the session */
	bool saved_any;
	uint32_t last_saved;
	unsigned int bad;
};

#define MODEL_SIZE	(64u << 10)
#define MODEL_MAX_SEQ	(1u << 16)
#define MODEL_WALKS	1000	/* per mode */
#define MODEL_STEPS	100

static bool g_model_trace;
#define MT(...) do { if (g_model_trace) printf("#   " __VA_ARGS__); } while (0)

/* With MODEL_SEED: what is done, and the engine's state before it. */
static void model_tell(const char *what)
{
	struct tracebuf_engine *e = tb_engine_get();
	uint64_t c = atomic_load(&e->cursor);

	MT("%s: cursor %llu:%llu, halves %d/%u %d/%u, done %llu %llu, stopped at %u:%llu\n",
	   what, (unsigned long long)(c >> 32), (unsigned long long)(c & 0xffffffff),
	   e->rolling_state[0], e->rolling_wrap[0], e->rolling_state[1], e->rolling_wrap[1],
	   (unsigned long long)atomic_load(&e->done[0]),
	   (unsigned long long)atomic_load(&e->done[1]), e->stop_wrap,
	   (unsigned long long)e->stop_off);
}

static uint64_t model_rand(struct model *m, uint64_t n)
{
	m->x ^= m->x << 13;
	m->x ^= m->x >> 7;
	m->x ^= m->x << 17;
	return m->x % n;
}

static void model_seal(struct model *m, uint32_t h, bool on)
{
	if (m->mode != TRACEBUF_MODE_STREAMING || m->sealed[h] == on)
		return;
	m->sealed[h] = on;
	seal_rolling(tb_engine_get(), h, on ? PROT_READ : PROT_READ | PROT_WRITE);
}

/* Out: the records of [p, p + len), which must be whole. */
static void model_out(struct model *m, const uint8_t *p, uint64_t len)
{
	const uint64_t *w = (const uint64_t *)p;
	uint64_t i = 0;

	while (i < len / 8) {
		uint64_t words = (w[i] >> 4) & 0xfff;

		if (!words || i + words > len / 8) {
			m->bad++;
			return;
		}
		if (w[i] == REC_HDR && w[i + 2] == 1 && w[i + 3] < MODEL_MAX_SEQ) {
			if (m->seen[w[i + 3]]++)
				m->bad++;
		}
		i += words;
	}
}

static void model_write(struct model *m, unsigned int n)
{
	struct tracebuf_thread *t = &__tracebuf_self;

	for (; n && m->seq < MODEL_MAX_SEQ; n--, m->seq++) {
		uint64_t *p = tracebuf_record_reserve(t, REC_WORDS * 8);

		if (!p)
			continue;
		p[0] = REC_HDR;
		p[1] = m->seq;	/* not the clock: a syscall on guests without a TSC */
		p[2] = 1;
		p[3] = m->seq;
		tracebuf_record_commit(t, p + REC_WORDS);
		m->taken[m->seq] = 1;
	}
}

/* The provider's dispatch: its save request reaches the kernel (seal). */
static void model_service(struct model *m)
{
	struct tracebuf_save_req req;

	while (tb_engine_service(&req) == 1) {
		if (m->pending || !m->started) {
			m->bad++;	/* the kernel would refuse it */
			return;
		}
		m->pending = true;
		m->req = req;
		MT("SAVE_BUFFER wrap %u\n", req.wrapped_count);
		model_seal(m, req.wrapped_count & 1, true);
	}
}

/* The session saves the rolling buffer, its BUFFER_SAVED reaches the kernel. */
static void model_ack(struct model *m)
{
	struct tracebuf_engine *e = tb_engine_get();
	uint32_t h = m->req.wrapped_count & 1;

	if (!m->pending)
		return;
	MT("ack wrap %u: %llu bytes\n", m->req.wrapped_count,
	   (unsigned long long)e->hdr->rolling_data_end[h]);
	model_out(m, e->rolling[h], e->hdr->rolling_data_end[h]);
	m->saved_any = true;
	m->last_saved = m->req.wrapped_count;
	m->pending = false;
	model_seal(m, h, false);
	m->undelivered = true;
	m->ack = m->req;
}

/* The provider reads it. */
static void model_deliver(struct model *m)
{
	if (!m->undelivered)
		return;
	m->undelivered = false;
	MT("deliver wrap %u\n", m->ack.wrapped_count);
	if (tb_engine_buffer_saved(m->ack.wrapped_count, m->ack.durable_data_end))
		m->bad++;
}

/* The session's read-out at the STOPPED (readout.c, final). */
static void model_readout(struct model *m)
{
	struct tracebuf_engine *e = tb_engine_get();
	struct tracebuf_buffer_header *h = e->hdr;
	uint32_t wc = h->wrapped_count, next;

	if (m->mode == TRACEBUF_MODE_ONESHOT) {
		model_out(m, e->rolling[0], h->rolling_data_end[0]);
	} else if (m->mode == TRACEBUF_MODE_CIRCULAR) {
		if (wc > 0)
			model_out(m, e->rolling[(wc - 1) & 1], h->rolling_data_end[(wc - 1) & 1]);
		model_out(m, e->rolling[wc & 1], h->rolling_data_end[wc & 1]);
	} else {
		next = m->saved_any ? m->last_saved + 1 : 0;
		MT("readout %u..%u: %llu %llu\n", next, wc,
		   (unsigned long long)h->rolling_data_end[0], (unsigned long long)h->rolling_data_end[1]);
		if (wc < next || wc - next > 1) {
			m->bad++;
			return;
		}
		for (uint32_t w = next; w <= wc; w++)
			model_out(m, e->rolling[w & 1], h->rolling_data_end[w & 1]);
	}
	m->results = true;
}

static void model_stop(struct model *m, bool results)
{
	bool ack_first = model_rand(m, 2), deliver_first = ack_first && model_rand(m, 2);

	/* the manager answered before it sent STOP: the provider reads it first */
	if (ack_first)
		model_ack(m);
	if (deliver_first)
		model_deliver(m);
	model_tell(results ? "stop, read out" : "stop");
	if (tb_engine_stop())
		m->bad++;
	/* a save the session answers after the STOP, before or after our STOPPED */
	if (model_rand(m, 2))
		model_ack(m);
	/* STOPPED: the kernel seals what no save holds */
	for (uint32_t h = 0; h < 2; h++)
		if (!m->pending || (m->req.wrapped_count & 1) != h)
			model_seal(m, h, true);
	m->started = false;
	model_service(m);		/* the rest of that dispatch: refused */
	/* the session reads SAVE_BUFFER, then STOPPED */
	model_ack(m);
	if (results)
		model_readout(m);
	if (model_rand(m, 2))
		model_deliver(m);
}

static void model_start(struct model *m)
{
	uint32_t disp = m->results ? TRACEBUF_START_CLEAR_ENTIRE : TRACEBUF_START_RETAIN;

	model_deliver(m);	/* it came before the START */
	model_seal(m, 0, false);
	model_seal(m, 1, false);
	if (disp == TRACEBUF_START_CLEAR_ENTIRE)
		m->saved_any = false;	/* the wrapped count starts again */
	model_tell(disp == TRACEBUF_START_RETAIN ? "start, retain" : "start, clear");
	if (tb_engine_start(disp, TRACEBUF_ENGINE_F_CLEAR))
		m->bad++;
	m->results = false;
	m->started = true;
	model_service(m);
}

static unsigned int model_run(uint32_t mode, uint64_t seed, unsigned int ops)
{
	struct tracebuf_engine_ops eops = { 0 };
	struct model m = { .mode = mode, .x = seed * 0x9e3779b97f4a7c15ull | 1 };
	uint8_t *buf = mmap(NULL, MODEL_SIZE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned int missing = 0;

	m.taken = calloc(MODEL_MAX_SEQ, 1);
	m.seen = calloc(MODEL_MAX_SEQ, 1);
	if (buf == MAP_FAILED || !m.taken || !m.seen)
		return 1;
	tb_engine_format(buf, MODEL_SIZE, mode);
	if (tb_engine_attach(buf, MODEL_SIZE, mode, &eops))
		return 1;
	m.results = true;	/* the first start clears */
	MT("thread: closed %u tag %#llx pos %td end %td (of the buffer)\n",
	   (unsigned int)__tracebuf_self.closed, (unsigned long long)__tracebuf_self.tag,
	   (uint8_t *)__tracebuf_self.pos - buf, (uint8_t *)__tracebuf_self.end - buf);
	model_start(&m);
	for (unsigned int i = 0; i < ops; i++) {
		switch (model_rand(&m, 10)) {
		case 0: case 1: case 2: case 3:
			if (m.started) {
				uint64_t from = m.seq;

				model_write(&m, (unsigned int)model_rand(&m, 600));
				MT("write %llu..%llu\n", (unsigned long long)from,
				   (unsigned long long)m.seq);
			}
			break;
		case 4: case 5:
			if (m.started)
				model_service(&m);
			break;
		case 6:
			model_ack(&m);
			if (model_rand(&m, 2))
				model_deliver(&m);
			break;
		case 7:
			if (m.started) {
				uint32_t wrap;
				uint64_t end;

				tb_engine_seal(&wrap, &end);		/* a snapshot */
			}
			break;
		case 8:
			if (m.started)
				model_stop(&m, model_rand(&m, 2));
			break;
		case 9:
			if (!m.started)
				model_start(&m);
			break;
		}
	}
	if (m.started)
		model_stop(&m, true);
	else if (!m.results)
		model_readout(&m);	/* stopped without: the session's end */
	for (uint64_t s = 0; s < m.seq; s++) {
		if (m.taken[s] && !m.seen[s] && mode != TRACEBUF_MODE_CIRCULAR) {
			missing++;
			MT("missing %llu\n", (unsigned long long)s);
		}
	}
	model_seal(&m, 0, false);
	model_seal(&m, 1, false);
	tb_engine_detach();
	munmap(buf, MODEL_SIZE);
	free(m.taken);
	free(m.seen);
	if (m.bad || missing)
		printf("# mode %u seed %llu: %u bad, %u missing of %llu\n", mode,
		       (unsigned long long)seed, m.bad, missing, (unsigned long long)m.seq);
	return m.bad + missing;
}

static void model_walks(void)
{
	static const uint32_t modes[] = {
		TRACEBUF_MODE_ONESHOT, TRACEBUF_MODE_CIRCULAR, TRACEBUF_MODE_STREAMING,
	};
	unsigned int runs = 0, failed = 0;
	const char *one = getenv("MODEL_SEED");

	/* MODEL_SEED=MODE:SEED: the walks of MODE up to SEED, the last told */
	if (one && strchr(one, ':')) {
		uint64_t last = strtoull(strchr(one, ':') + 1, NULL, 10);

		for (uint64_t seed = 1; seed <= last; seed++) {
			g_model_trace = seed == last;
			model_run((uint32_t)strtoul(one, NULL, 10), seed, MODEL_STEPS);
		}
		return;
	}

	for (unsigned int m = 0; m < 3; m++) {
		for (uint64_t seed = 1; seed <= MODEL_WALKS; seed++, runs++) {
			fflush(stdout);
			failed += model_run(modes[m], seed, MODEL_STEPS) != 0;
		}
	}
	printf("# %u walks of %u steps, %u failed\n", runs, MODEL_STEPS, failed);
	T_EXPECT_EQ(failed, 0);
}

/*
 * A writer whose next chunk does not fit the end of a oneshot buffer
 * takes what is left of it: small records fill the buffer to its last
 * bytes, however large the writer's chunks grew.
 */
static void oneshot_fills_to_its_end(void)
{
	const size_t size = 256 << 10;
	struct tracebuf_engine *e = tb_engine_get();
	uint8_t *buf = engine_up(size, TRACEBUF_MODE_ONESHOT);
	uint64_t room, got;

	T_ASSERT(buf);
	room = e->fill_limit - e->durable_size;
	got = put(16, (unsigned int)(size / 16));
	printf("# %llu of %llu bytes, chunks up to %u\n", (unsigned long long)got * 16,
	       (unsigned long long)room, e->chunk_max);
	T_EXPECT(got * 16 + 16 > room);
	T_EXPECT_EQ(tb_engine_stop(), 0);
	tb_engine_detach();
	munmap(buf, size);
}

/*
 * tracebuf_buffer_size_for(): in a buffer of the size it gives, the
 * records it was asked for fit the first rolling buffer, however their
 * sizes fall against the chunks: records of random sizes up to the
 * largest, and runs of small ones that leave a chunk just short of a
 * largest one, from several writers (whose chunks grow as they write
 * fast).  Nothing is dropped, and the cursor never leaves the first rolling
 * buffer.
 */
struct size_for_writer {
	uint64_t bytes, max_record, seed;
	unsigned int taken, refused;
};

static void *size_for_writer(void *arg)
{
	struct size_for_writer *w = arg;
	uint64_t left = w->bytes, x = w->seed;

	while (left >= 16) {
		uint64_t n;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		if ((x >> 60) < 4)
			n = w->max_record;	/* a largest, often after small ones */
		else if ((x >> 60) < 10)
			n = 16;
		else
			n = 16 + (x >> 33) % (w->max_record - 8) / 8 * 8;
		if (n > left)
			n = left / 8 * 8;
		if (put(n, 1))
			w->taken++;
		else
			w->refused++;
		left -= n;
	}
	return NULL;
}

static void size_for_holds_the_records(void)
{
	static const uint32_t modes[] = {
		TRACEBUF_MODE_ONESHOT, TRACEBUF_MODE_CIRCULAR, TRACEBUF_MODE_STREAMING,
	};
	static const uint64_t sizes[] = { 4096, 65536, 1 << 20 };
	static const uint64_t records[] = { 32, 96, 1112, 4104, 32088 };
	static const uint32_t writers[] = { 1, 4 };
	struct tracebuf_engine *e = tb_engine_get();
	unsigned int cases = 0, bad = 0;
	uint64_t seed = 1;

	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
	for (size_t b = 0; b < sizeof(sizes) / sizeof(sizes[0]); b++)
	for (size_t r = 0; r < sizeof(records) / sizeof(records[0]); r++)
	for (size_t n = 0; n < sizeof(writers) / sizeof(writers[0]); n++) {
		struct size_for_writer w[4];
		pthread_t th[4];
		uint64_t size = tracebuf_buffer_size_for(modes[m], sizes[b], records[r],
							 writers[n], 512, 0);
		unsigned int refused = 0;
		uint8_t *buf;
		uint32_t wrap;

		T_ASSERT(size >= TRACEBUF_BUFFER_MIN && size % TRACEBUF_BUFFER_ALIGN == 0);
		buf = engine_up(size, modes[m]);
		T_ASSERT(buf);
		for (uint32_t i = 0; i < writers[n]; i++) {
			w[i] = (struct size_for_writer){ .bytes = sizes[b] / writers[n],
							 .max_record = records[r],
							 .seed = seed++ };
			pthread_create(&th[i], NULL, size_for_writer, &w[i]);
		}
		for (uint32_t i = 0; i < writers[n]; i++) {
			pthread_join(th[i], NULL);
			refused += w[i].refused;
		}
		wrap = (uint32_t)(atomic_load(&e->cursor) >> 32);
		cases++;
		if (refused || wrap || atomic_load(&e->dropped)) {
			bad++;
			printf("# mode %u, %llu bytes of records up to %llu, %u writers: "
			       "buffer %llu, %u refused, wrapped %u\n", modes[m],
			       (unsigned long long)sizes[b], (unsigned long long)records[r],
			       writers[n], (unsigned long long)size, refused, wrap);
		}
		T_EXPECT_EQ(tb_engine_stop(), 0);
		tb_engine_detach();
		munmap(buf, size);
	}
	printf("# %u cases, %u short\n", cases, bad);
	T_EXPECT_EQ(bad, 0);
	/* what it refuses */
	T_EXPECT_EQ(tracebuf_buffer_size_for(9, 4096, 96, 1, 0, 0), 0);
	T_EXPECT_EQ(tracebuf_buffer_size_for(TRACEBUF_MODE_ONESHOT, 4096, 95, 1, 0, 0), 0);
	T_EXPECT_EQ(tracebuf_buffer_size_for(TRACEBUF_MODE_ONESHOT, 4096, 96, 1, 0, 6000), 0);
	T_EXPECT_EQ(tracebuf_buffer_size_for(TRACEBUF_MODE_CIRCULAR, TRACEBUF_BUFFER_MAX / 2,
					     96, 1, 0, 0), 0);
}

static const struct t_test tests[] = {
	T_TEST(oneshot_keeps_first_records),
	T_TEST(circular_keeps_last_records),
	T_TEST(streaming_manager_keeping_up_loses_nothing),
	T_TEST(streaming_save_now_loses_nothing),
	T_TEST(streaming_slow_manager_drops_and_counts),
	T_TEST(streaming_writer_asks_for_the_save),
	T_TEST(streaming_small_buffer_eight_writers),
	T_TEST(circular_small_buffer_eight_writers),
	T_TEST(oneshot_smallest_buffer),
	T_TEST(streaming_save_ended_by_the_stop),
	T_TEST(streaming_refused_save_is_asked_again),
	T_TEST(retain_after_a_full_stop),
	T_TEST(retain_after_a_window_past_the_fill_limit),
	T_TEST(model_walks),
	T_TEST(oneshot_fills_to_its_end),
	T_TEST(size_for_holds_the_records),
};

T_MAIN(tests)
