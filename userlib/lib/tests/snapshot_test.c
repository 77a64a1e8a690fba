// SPDX-License-Identifier: MIT
/*
 * Description: a snapshot of a circular buffer torn by its provider.
 * The manager copies what a provider's buffer holds while the provider
 * goes on writing (tb_readout_taken()); the header's wrapped_count,
 * read before and after the copy, says whether a rolling buffer was
 * reused meanwhile.  Here the buffer is plain memory whose count already
 * says one wrap (the earlier rolling buffer reused) or two (the current
 * one too) since the provider's SNAPSHOT_TAKEN: the copy is asked for
 * again while tries are left and writes nothing, and on the last try
 * keeps only what was not reused, with a note saying what is left out.
 * A count that says no wrap keeps everything as it is.
 */
#include "ktap.h"
#include "helpers.h"

#include <unistd.h>

#include "lib_priv.h"
#include "layout_priv.h"
#include "session_priv.h"

#define BUF_SIZE	(64u << 10)
#define CUR_TURNS	40	/* in the current rolling buffer */

struct notes {
	unsigned int n;
	int error;
	char what[128];
};

static void on_note(void *arg, const struct tracebuf_session_note *note)
{
	struct notes *ns = arg;

	if (note->type != TRACEBUF_LIB_NOTE_ERROR)
		return;
	ns->n++;
	ns->error = note->error;
	snprintf(ns->what, sizeof(ns->what), "%s", note->what ? note->what : "");
}

/* A provider's circular buffer in memory, and what a snapshot made of it. */
struct torn {
	struct tb_tracee t;
	uint8_t *buf;
	const uint8_t *earlier, *current;	/* its rolling buffers' records */
	size_t earlier_len, current_len;
	struct notes notes;
	uint8_t *out;				/* the snapshot's file, read back */
	size_t len;
};

/*
 * @x's buffer: BUF_SIZE, circular, after its first wrap: rolling buffer 0
 * full of turns and a pad to its end, rolling buffer 1 being written,
 * CUR_TURNS turns so far; its header's wrapped_count @wrapped.
 */
static int circular(struct torn *x, uint32_t wrapped)
{
	struct tracebuf_buffer_header *h;
	const struct tb_layout *l = &x->t.lay;
	size_t cur = CUR_TURNS * T_TURN_WORDS * 8;
	uint32_t i = 0;

	x->buf = calloc(1, BUF_SIZE);
	x->out = malloc(2 * BUF_SIZE);
	if (!x->buf || !x->out)
		return -ENOMEM;
	tb_layout_compute(&x->t.lay, BUF_SIZE, TRACEBUF_MODE_CIRCULAR);
	x->t.info.mode = TRACEBUF_MODE_CIRCULAR;
	x->t.info.buffer_size = BUF_SIZE;
	x->t.info.id = 7;
	snprintf(x->t.info.name, sizeof(x->t.info.name), "torn");
	x->t.map = x->buf;
	/* each rolling buffer one chunk: the earlier one ends in a pad */
	if (t_turns_chunked(x->buf + l->rolling_off[0], (size_t)l->rolling_size,
			    (size_t)l->rolling_size, &i) ||
	    t_turns_chunked(x->buf + l->rolling_off[1], cur, cur, &i))
		return -EINVAL;
	h = (struct tracebuf_buffer_header *)x->buf;
	h->magic = TRACEBUF_HEADER_MAGIC;
	h->version = TRACEBUF_HEADER_VERSION;
	h->buffering_mode = tracebuf_layout_header_mode(TRACEBUF_MODE_CIRCULAR);
	h->wrapped_count = wrapped;
	h->total_size = BUF_SIZE;
	h->durable_buffer_size = l->durable_size;
	h->rolling_buffer_size = l->rolling_size;
	h->rolling_data_end[0] = l->rolling_size;
	h->rolling_data_end[1] = cur;
	x->earlier = x->buf + l->rolling_off[0];
	x->earlier_len = (size_t)l->rolling_size;
	x->current = x->buf + l->rolling_off[1];
	x->current_len = cur;
	return 0;
}

/*
 * The provider answered SNAPSHOT with "wrap 1, CUR_TURNS turns into it",
 * and its header's count is now @wrapped: tb_readout_taken()'s
 * return, what it wrote to the snapshot's file in @x->out, @x->len bytes,
 * and its notes in @x->notes.
 */
static int taken(struct torn *x, uint32_t wrapped, bool may_retry)
{
	static uint8_t obuf[4096];
	struct tracebuf_session *s = calloc(1, sizeof(*s));
	struct tb_snap snap = { .out = { .buf = obuf, .cap = sizeof(obuf) } };
	FILE *f = tmpfile();
	ssize_t got;
	int ret;

	memset(x, 0, sizeof(*x));
	ret = !s || !f ? -ENOMEM : circular(x, wrapped);
	if (!ret) {
		s->cfg.notify = on_note;
		s->cfg.arg = &x->notes;
		snap.out.fd = fileno(f);
		s->snap = &snap;
		ret = tb_readout_taken(s, &x->t, 1, x->current_len, may_retry);
		got = tb_out_flush(&snap.out) ? -1 : pread(fileno(f), x->out, 2 * BUF_SIZE, 0);
		if (got < 0)
			ret = -EIO;
		else
			x->len = (size_t)got;
		free(s->snap_copy);
	}
	if (f)
		fclose(f);
	free(s);
	return ret;
}

static void torn_free(struct torn *x)
{
	free(x->buf);
	free(x->out);
}

/*
 * Whether the snapshot holds, of the provider, its info record and then
 * records that are @a (@alen bytes) and @b (@blen bytes) as they are:
 * nothing else, and all of it decodes.
 */
static bool holds(const struct torn *x, const uint8_t *a, size_t alen, const uint8_t *b,
		  size_t blen)
{
	struct t_result res = t_read_all(x->out, x->len, 0);
	uint64_t h;
	size_t info;

	if (x->len < 8 || res.ret || res.end != x->len || !res.bounds_ok)
		return false;
	memcpy(&h, x->out, 8);
	h = tracebuf_fxt_le64(h);
	info = (size_t)tracebuf_fxt_record_words(h) * 8;
	return (h & 15) == TRACEBUF_LIB_FXT_RECORD_METADATA && x->len == info + alen + blen &&
	       !memcmp(x->out + info, a, alen) &&
	       (!blen || !memcmp(x->out + info + alen, b, blen));
}

/* No wrap while copied: both rolling buffers as they are, and no note. */
static void untorn_keeps_both(void)
{
	struct torn x;

	T_ASSERT_EQ(taken(&x, 1, true), 1);
	T_EXPECT(holds(&x, x.earlier, x.earlier_len, x.current, x.current_len));
	T_EXPECT_EQ(x.notes.n, 0);
	torn_free(&x);
}

/*
 * One wrap while copied: the earlier rolling buffer was reused, the copy
 * may hold its old and new records mixed.  Asked for again while tries
 * are left, nothing written; on the last try, the current one alone and
 * a note.
 */
static void wrapped_once_keeps_the_current(void)
{
	struct torn x;

	T_ASSERT_EQ(taken(&x, 2, true), -EAGAIN);
	T_EXPECT_EQ(x.len, 0);
	T_EXPECT_EQ(x.notes.n, 0);
	torn_free(&x);

	T_ASSERT_EQ(taken(&x, 2, false), 1);
	T_EXPECT(holds(&x, x.current, x.current_len, NULL, 0));
	T_EXPECT_EQ(x.notes.n, 1);
	T_EXPECT_EQ(x.notes.error, -ESTALE);
	T_EXPECT(strstr(x.notes.what, "earlier records are left out") != NULL);
	torn_free(&x);
}

/*
 * Two wraps while copied: the current rolling buffer was reused too.
 * Asked for again while tries are left; on the last try, nothing of the
 * provider (not even its info record) and a note.
 */
static void wrapped_twice_keeps_nothing(void)
{
	struct torn x;

	for (uint32_t wrapped = 3; wrapped < 6; wrapped++) {
		T_ASSERT_EQ(taken(&x, wrapped, true), -EAGAIN);
		T_EXPECT_EQ(x.len, 0);
		torn_free(&x);

		T_ASSERT_EQ(taken(&x, wrapped, false), 0);
		T_EXPECT_EQ(x.len, 0);
		T_EXPECT_EQ(x.notes.n, 1);
		T_EXPECT_EQ(x.notes.error, -ESTALE);
		T_EXPECT(strstr(x.notes.what, "wrapped twice") != NULL);
		torn_free(&x);
	}
}

static const struct t_test tests[] = {
	T_TEST(untorn_keeps_both),
	T_TEST(wrapped_once_keeps_the_current),
	T_TEST(wrapped_twice_keeps_nothing),
};

T_MAIN(tests)
