// SPDX-License-Identifier: MIT
/*
 * Description: hostile input for the FXT reader and walker.  A valid
 * multi-provider trace cut at every byte, with every bit flipped, mutated
 * at random; random garbage; overlong sizes; zero headers.  Whatever the
 * input, the reader must return records and then 0 or a clean -errno,
 * every pointer it returns must lie inside the input, and it must never
 * go past the prefix the walker accepts.  Each input is copied into a
 * buffer of exactly its size, so that under ASan any read past it fails.
 * Random inputs come from fixed seeds: a failure names the seed and the
 * iteration to replay.
 *
 * The manager keeps the events it finds plain without decoding them
 * (tb_readout_plain_event()), and the engine's padding that it
 * keeps (tb_readout_pad()): every record of every input that it
 * finds plain or padding, the reader must decode, to its size.
 */
#include "ktap.h"
#include "helpers.h"

#include <unistd.h>

#include "lib_priv.h"
#include "session_priv.h"

#define HDR(type, words)	((uint64_t)(type) | (uint64_t)(words) << 4)

static size_t plain_seen;	/* plain records checked, all inputs */

/* The words of a string ref's inline stream (0 for an index). */
static uint64_t tb_test_str_words(unsigned int ref)
{
	return ref & 0x8000 ? (ref & 0x7fff) / 8 + ((ref & 7) != 0) : 0;
}

/*
 * Every whole record of @buf (@len bytes) that the manager finds plain,
 * the reader decodes, to its size.
 */
static bool plain_decodes(const unsigned char *buf, size_t len, const char *what, size_t iter)
{
	struct tracebuf_reader_record *rec = malloc(sizeof(*rec));
	struct tracebuf_reader *r = NULL;
	size_t off = 0;
	bool ok = true;

	if (!rec || tracebuf_reader_open_mem(buf, len, 0, &r)) {
		free(rec);
		T_FAIL("out of memory");
		return false;
	}
	while (ok && len - off >= 8) {
		uint64_t h, words;
		int ret;

		memcpy(&h, buf + off, 8);
		words = tracebuf_fxt_record_words(tracebuf_fxt_le64(h));
		if (!words || words > (len - off) / 8)
			break;
		if (tb_readout_plain_event(buf + off, (size_t)words) ||
		    tb_readout_pad(buf + off, len - off) == words * 8) {
			plain_seen++;
			ret = tb_reader_next_at(r, off, rec);
			if (ret != 1 || rec->size != words * 8) {
				T_FAIL("%s %zu: a plain event at %zu (%llu words) reads as %d, %zu bytes",
				       what, iter, off, (unsigned long long)words, ret,
				       ret == 1 ? rec->size : 0);
				ok = false;
			}
		}
		off += (size_t)words * 8;
	}
	tracebuf_reader_close(r);
	free(rec);
	return ok;
}

/*
 * Read len bytes of data (copied to an exact-size buffer) with and
 * without TRACEBUF_LIB_READER_STRICT, and walk it.  Returns false (after
 * saying why) when a property fails.
 */
static bool check_input(const void *data, size_t len, const char *what, size_t iter)
{
	static const unsigned int flags[] = { 0, TRACEBUF_LIB_READER_STRICT };
	unsigned char *copy = malloc(len ? len : 1);
	size_t valid = 0, i;
	long walked;
	bool ok = true;

	if (!copy) {
		T_FAIL("out of memory");
		return false;
	}
	memcpy(copy, data, len);
	walked = tracebuf_fxt_walk(copy, len, &valid);
	if (walked < 0 || valid > len || valid % 8) {
		T_FAIL("%s %zu: walk returned %ld, valid %zu of %zu", what, iter, walked, valid, len);
		ok = false;
	}
	for (i = 0; ok && i < sizeof(flags) / sizeof(flags[0]); i++) {
		struct t_result res = t_read_all(copy, len, flags[i]);

		if (!res.bounds_ok || (res.ret != 0 && res.ret != -EBADMSG && res.ret != -ENOENT) ||
		    res.end > valid || (long)res.records > walked ||
		    (res.ret == 0 && res.end != len) ||
		    (res.ret < 0 && res.error_offset != res.end) ||
		    (res.ret == -ENOENT && !flags[i])) {
			T_FAIL("%s %zu (flags %u): ret %d, %zu records to %zu, error at %zu, "
			       "bounds %s; walker %ld records to %zu of %zu", what, iter, flags[i],
			       res.ret, res.records, res.end, res.error_offset,
			       res.bounds_ok ? "ok" : "BAD", walked, valid, len);
			ok = false;
		}
	}
	if (ok)
		ok = plain_decodes(copy, len, what, iter);
	free(copy);
	return ok;
}

static void sample(struct t_trace *t)
{
	t_trace_init(t, 8192);
	if (t->w)
		t_sample_trace(t);
}

/* Every prefix of the sample: whole records, then 0 or -EBADMSG at the cut. */
static void truncate_every_offset(void)
{
	size_t ends[T_SAMPLE_RECORDS + 1], n = 0, cut;
	struct t_trace t;
	struct t_result res;

	sample(&t);
	T_ASSERT(t.w && !t.error);
	res = t_read_all(t.w, t.len, TRACEBUF_LIB_READER_STRICT);
	T_ASSERT_EQ(res.ret, 0);
	T_ASSERT_EQ(res.records, T_SAMPLE_RECORDS);
	{
		struct tracebuf_reader_record *rec = malloc(sizeof(*rec));
		struct tracebuf_reader *r;

		T_ASSERT(rec);
		T_ASSERT_EQ(tracebuf_reader_open_mem(t.w, t.len, 0, &r), 0);
		ends[n++] = 0;
		while (n <= T_SAMPLE_RECORDS && tracebuf_reader_next(r, rec) == 1)
			ends[n++] = rec->offset + rec->size;
		tracebuf_reader_close(r);
		free(rec);
	}
	for (cut = 0; cut <= t.len; cut++) {
		unsigned char *copy = malloc(cut ? cut : 1);
		size_t k = 0;

		T_ASSERT(copy);
		memcpy(copy, t.w, cut);
		while (k + 1 < n && ends[k + 1] <= cut)
			k++;
		res = t_read_all(copy, cut, TRACEBUF_LIB_READER_STRICT | TRACEBUF_LIB_READER_MAGIC);
		free(copy);
		if (!res.bounds_ok || res.records != k ||
		    res.ret != (cut == ends[k] && cut ? 0 : -EBADMSG) ||
		    (res.ret && res.error_offset != ends[k])) {
			T_FAIL("cut at %zu: ret %d after %zu records, error at %zu; expected %zu records",
			       cut, res.ret, res.records, res.error_offset, k);
			break;
		}
		if (!check_input(t.w, cut, "cut", cut))
			break;
	}
	t_trace_free(&t);
}

/* Every single bit of the sample flipped, then 20000 random pairs. */
static void flip_every_bit(void)
{
	uint64_t seed = 0x6b8b4567327b23c6ULL;
	unsigned char *b;
	struct t_trace t;
	size_t bit, i;

	sample(&t);
	T_ASSERT(t.w && !t.error);
	b = (unsigned char *)t.w;
	for (bit = 0; bit < t.len * 8; bit++) {
		b[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		if (!check_input(b, t.len, "flipped bit", bit))
			break;
		b[bit / 8] ^= (unsigned char)(1u << (bit % 8));
	}
	for (i = 0; i < 20000 && !t_failures; i++) {
		size_t b1 = t_rand(&seed) % (t.len * 8), b2 = t_rand(&seed) % (t.len * 8);

		b[b1 / 8] ^= (unsigned char)(1u << (b1 % 8));
		b[b2 / 8] ^= (unsigned char)(1u << (b2 % 8));
		if (!check_input(b, t.len, "flipped bit pair", i))
			break;
		b[b1 / 8] ^= (unsigned char)(1u << (b1 % 8));
		b[b2 / 8] ^= (unsigned char)(1u << (b2 % 8));
	}
	t_trace_free(&t);
}

/* A random word that looks like a record or argument header. */
static uint64_t plausible_header(uint64_t *seed)
{
	uint64_t r = t_rand(seed);

	return (r & ~0xffffULL) | (r & 15) | ((1 + (r >> 4) % 12) << 4);
}

/* Random bytes, and random words half of which look like headers. */
static void random_garbage(void)
{
	uint64_t seed = 0x2545f4914f6cdd1dULL, buf[512];
	size_t iter;

	for (iter = 0; iter < 30000 && !t_failures; iter++) {
		size_t len = t_rand(&seed) % sizeof(buf), i;
		bool headers = iter & 1;

		for (i = 0; i < sizeof(buf) / 8; i++) {
			buf[i] = t_rand(&seed);
			if (headers && (buf[i] & 1))
				buf[i] = tracebuf_fxt_le64(plausible_header(&seed));
			else if (headers && (buf[i] & 2))
				buf[i] &= 0xff;		/* small values: sizes, refs */
		}
		if (!headers)
			len &= ~(size_t)(t_rand(&seed) & 7);
		check_input(buf, len, headers ? "header garbage" : "garbage", iter);
	}
}

/* The sample with a few random changes, 100000 times. */
static void mutate_sample(void)
{
	uint64_t seed = 0x853c49e6748fea9bULL;
	struct t_trace t;
	uint64_t *w;
	size_t iter, words;

	sample(&t);
	T_ASSERT(t.w && !t.error);
	words = t.len / 8;
	w = malloc(t.len);
	T_ASSERT(w);
	for (iter = 0; iter < 100000 && !t_failures; iter++) {
		size_t n = 1 + t_rand(&seed) % 4, len = t.len, i;

		memcpy(w, t.w, t.len);
		for (i = 0; i < n; i++) {
			size_t at = t_rand(&seed) % words;
			uint64_t r = t_rand(&seed);

			switch (r % 7) {
			case 0:
				((unsigned char *)w)[at * 8 + (r >> 8) % 8] = (unsigned char)(r >> 16);
				break;
			case 1:
				w[at] = tracebuf_fxt_le64(plausible_header(&seed));
				break;
			case 2:
				w[at] = w[t_rand(&seed) % words];
				break;
			case 3:
				w[at] = 0;
				break;
			case 4:	/* a size field made larger */
				w[at] = tracebuf_fxt_le64(tracebuf_fxt_le64(w[at]) | 0xff0ULL);
				break;
			case 5:	/* a length or ref field set to its maximum */
				w[at] = tracebuf_fxt_le64(tracebuf_fxt_le64(w[at]) |
							  0x7fffULL << (16 * (1 + (r >> 8) % 3)));
				break;
			default:
				len = (size_t)(r >> 8) % (len + 1);
				break;
			}
		}
		if (!check_input(w, len, "mutation", iter))
			break;
	}
	free(w);
	t_trace_free(&t);
}

/* Sizes and lengths that claim more than there is. */
static void overlong_sizes(void)
{
	static const struct {
		const char *what;
		uint64_t w[4];
		size_t words;
	} cases[] = {
		{ "0xfff words in 2", { HDR(1, 0xfff), 1 }, 2 },
		{ "0xfff words in 1, type 4", { HDR(4, 0xfff) }, 1 },
		{ "large record of 2^32-1 words", { HDR(15, 0xffffffffULL), 0 }, 2 },
		{ "large record of 2^32 words (size 0)", { HDR(15, 0x100000000ULL) }, 1 },
		{ "argument of 0xfff words", { HDR(4, 4) | 1 << 20 | 1 << 24, 0, HDR(3, 0xfff), 0 }, 4 },
		{ "inline string of 0x7fff bytes", { HDR(4, 3) | 0xffffULL << 48 | 1 << 24, 0, 0 }, 3 },
		{ "inline category of 0x7fff bytes", { HDR(4, 3) | 0xffffULL << 32 | 1 << 24, 0, 0 }, 3 },
		{ "provider name of 255 bytes", { HDR(0, 1) | 1 << 16 | 0xffULL << 52 }, 1 },
		{ "blob of 0x7fff bytes", { HDR(5, 2) | 0x7fffULL << 32, 0 }, 2 },
		{ "string record of 0x7fff bytes", { HDR(2, 2) | 1 << 16 | 0x7fffULL << 32, 0 }, 2 },
		{ "log message of 0x7fff bytes", { HDR(9, 3) | 0x7fff << 16 | 1ULL << 32, 0, 0 }, 3 },
		{ "blob argument of 2^32-1 bytes",
		  { HDR(4, 4) | 1 << 20 | 1 << 24, 0, HDR(10, 2) | 0xffffffffULL << 32, 0 }, 4 },
		{ "15 arguments announced, none there", { HDR(4, 2) | 15 << 20 | 1 << 24, 0 }, 2 },
		{ "kernel object with 15 arguments, none there", { HDR(7, 2) | 15ULL << 40, 0 }, 2 },
		{ "string argument value of 0x7fff bytes",
		  { HDR(4, 4) | 1 << 20 | 1 << 24, 0, HDR(6, 1) | 0xffffULL << 32, 0 }, 4 },
	};
	uint64_t w[8];
	size_t i, j;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct t_result res;

		for (j = 0; j < cases[i].words; j++)
			w[j] = tracebuf_fxt_le64(cases[i].w[j]);
		res = t_read_all(w, cases[i].words * 8, 0);
		if (res.ret != -EBADMSG || res.records || !res.bounds_ok)
			T_FAIL("%s: ret %d after %zu records", cases[i].what, res.ret, res.records);
		check_input(w, cases[i].words * 8, cases[i].what, i);
	}
}

/* Zero words: never a record, for the reader nor the walker. */
static void zero_headers(void)
{
	static const uint64_t zeros[512];
	struct t_trace t;
	size_t len, valid;

	for (len = 0; len <= 64; len++) {
		struct t_result res = t_read_all(zeros, len, 0);

		T_EXPECT_EQ(res.ret, len ? -EBADMSG : 0);
		T_EXPECT_EQ(res.records, 0);
		T_EXPECT_EQ(tracebuf_fxt_walk(zeros, len, &valid), 0);
		T_EXPECT_EQ(valid, 0);
	}
	T_EXPECT(check_input(zeros, sizeof(zeros), "zeros", 0));

	/* A trace followed by the zero-filled rest of its buffer. */
	t_trace_init(&t, 8192);
	T_ASSERT(t.w);
	t_sample_trace(&t);
	{
		struct t_result res = t_read_all(t.w, t.cap, 0);

		T_EXPECT_EQ(res.ret, -EBADMSG);
		T_EXPECT_EQ(res.records, T_SAMPLE_RECORDS);
		T_EXPECT_EQ(res.error_offset, t.len);
		T_EXPECT_EQ(tracebuf_fxt_walk(t.w, t.cap, &valid), T_SAMPLE_RECORDS);
		T_EXPECT_EQ(valid, t.len);
	}
	t_trace_free(&t);
}

/*
 * Inputs built to make the reader allocate: many providers, each with
 * strings at scattered indexes.  Memory stays proportional to the input
 * (the sanitizer's allocator would fail a runaway), time linear.
 */
static void table_pressure(void)
{
	uint64_t seed = 42;
	struct t_trace t;
	size_t i;
	struct t_result res;

	t_trace_init(&t, 4 << 20);
	T_ASSERT(t.w);
	for (i = 0; t_room(&t) >= 64; i++) {
		uint64_t r = t_rand(&seed);

		if (r % 4 == 0)
			T_PUT(&t, tracebuf_fxt_provider_info_write, (uint32_t)(r >> 32), "", 0);
		else if (r % 4 == 1)
			T_PUT(&t, tracebuf_fxt_provider_section_write, (uint32_t)(r >> 40));
		else if (r % 4 == 2)
			T_PUT(&t, tracebuf_fxt_thread_write, (uint8_t)(1 + (r >> 8) % 255), r, r);
		else
			T_PUT(&t, tracebuf_fxt_string_write,
			      (uint16_t)(1 + (r >> 8) % TRACEBUF_LIB_FXT_STRING_INDEX_MAX), "s", 1);
	}
	T_ASSERT_EQ(t.error, 0);
	res = t_read_all(t.w, t.len, TRACEBUF_LIB_READER_STRICT);
	T_EXPECT_EQ(res.ret, 0);
	T_EXPECT_EQ(res.records, i);
	T_EXPECT(res.bounds_ok);
	t_trace_free(&t);
}

/*
 * Events of random shapes, sizes right or off by a word: whatever the
 * manager finds plain, the reader decodes (check_input()); the sample's
 * events of each type are plain, and so are many of these.
 */
static void plain_events_decode(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL, w[64];
	size_t before = plain_seen, iter;
	struct t_trace t;

	sample(&t);
	T_ASSERT(t.w && !t.error);
	T_ASSERT(check_input(t.w, t.len, "sample", 0));
	T_EXPECT(plain_seen - before >= TRACEBUF_LIB_FXT_EVENT_TYPE_MAX + 1);
	t_trace_free(&t);
	before = plain_seen;
	for (iter = 0; iter < 200000 && !t_failures; iter++) {
		uint64_t r = t_rand(&seed);
		unsigned int nargs = (unsigned int)(r % 4), at = 2, i;
		uint64_t h = TRACEBUF_LIB_FXT_RECORD_EVENT |
			     tracebuf_fxt_field((r >> 8) % 12, 16, 19) |
			     tracebuf_fxt_field(nargs, 20, 23) |
			     tracebuf_fxt_field(r >> 12 & 1, 24, 31) |
			     tracebuf_fxt_field(r >> 13 & 3 ? 1 : 0x8003, 32, 47) |
			     tracebuf_fxt_field(r >> 15 & 1 ? 2 : 0x8000 | (r >> 16 & 15), 48, 63);

		memset(w, 0, sizeof(w));
		at += tracebuf_fxt_get(h, 24, 31) ? 0 : 2;
		at += (unsigned int)tb_test_str_words((unsigned int)tracebuf_fxt_get(h, 48, 63));
		for (i = 0; i < nargs; i++) {
			uint64_t a = t_rand(&seed), type = a % 12, words;
			unsigned int name = a >> 4 & 1 ? 3 : 0x8000 | (a >> 5 & 15);
			unsigned int val = a >> 9 & 1 ? 4 : 0x8000 | (a >> 10 & 31);

			words = 1 + tb_test_str_words(name) +
				(type >= 3 && type <= 8 && type != 6) +
				(type == 6 ? tb_test_str_words(val) : 0);
			words += (a >> 20) % 5 == 0 ? 1 : 0;	/* a word too many */
			w[at] = type | tracebuf_fxt_field(words, 4, 15) |
				tracebuf_fxt_field(name, 16, 31) |
				tracebuf_fxt_field(type == 6 ? val : a >> 32, 32, 63);
			at += (unsigned int)words;
		}
		at += tracebuf_fxt_event_has_extra((unsigned int)tracebuf_fxt_get(h, 16, 19));
		at += (r >> 24) % 7 == 0 ? 1 : 0;		/* or one too few */
		at -= (r >> 27) % 7 == 0 && at > 2 ? 1 : 0;
		w[0] = tracebuf_fxt_le64(h | tracebuf_fxt_field(at, 4, 15));
		for (i = 1; i < at; i++)
			w[i] = tracebuf_fxt_le64(w[i]);
		if (!check_input(w, at * 8, "random event", iter))
			break;
	}
	printf("# %zu of 200000 random events plain\n", plain_seen - before);
	T_EXPECT(plain_seen - before > 20000);
}

/*
 * The save walk (tb_readout_keep()) over what a hot path writes
 * most: a duration's begin, an instant with a 32-bit argument, its end,
 * 300 times.  That is kept whole.  With any one bit of the 200th turn
 * flipped, or one bit of each word of any other turn (the walk compares
 * blocks of turns, so every place in a block and the turns after the last
 * whole one), whatever is kept decodes to its end, kept and left out add
 * up, the turns before are kept as they are, and a timestamp's or the
 * argument's value's bit is kept as it is: the walk compares whole turns
 * at a time once it has learnt them, and must not let a broken one by.
 */
#define CYCLE_WORDS	T_TURN_WORDS
#define CYCLES		300
#define CYCLE_BAD	200

/* The bytes of @w's zero words, which a walk leaves out without counting. */
static size_t zero_bytes(const uint64_t *w, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len / 8; i++)
		n += w[i] ? 0 : 8;
	return n;
}

/* kept, rejected and padding left out account for all of @len but zero words */
static bool accounted(const uint64_t *w, size_t len, size_t kept, uint64_t rejected,
		      uint64_t padding)
{
	return kept + rejected + padding <= len &&
	       kept + rejected + padding + zero_bytes(w, len) >= len;
}

/* The walk of @w, @len bytes, into @fd, read back into @out. */
static void keep_one(const uint64_t *w, size_t len, int fd, uint8_t *out,
		     size_t *kept, uint64_t *rejected, uint64_t *padding, ssize_t *read_back)
{
	static uint8_t obuf[4096];
	struct tracebuf_session *s = calloc(1, sizeof(*s));
	struct tb_out o = { .fd = fd, .buf = obuf, .cap = sizeof(obuf) };
	uint32_t windows = 0;

	*rejected = 0;
	*padding = 0;
	*read_back = -1;
	if (!s || ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET)) {
		free(s);
		return;
	}
	*kept = tb_readout_keep(s, &o, (const uint8_t *)w, len, rejected, padding,
				&windows);
	if (!tb_out_flush(&o))
		*read_back = pread(fd, out, len, 0);
	free(s);
}

/*
 * @w with bit @b of word @i of turn @turn flipped, walked: false (and a
 * failure) unless it holds as said above.  *@dropped counts a walk that
 * left something out, *@as_is one that kept all as it was.
 */
static bool flip_walk(const uint64_t *w, unsigned int turn, unsigned int i, unsigned int b,
		      int fd, unsigned int *dropped, unsigned int *as_is)
{
	static uint64_t bad[CYCLES * CYCLE_WORDS];
	static uint8_t out[sizeof(bad)];
	bool value = i == 1 || i == 3 || i == 6 || (i == 4 && b >= 32);
	uint64_t rejected, padding;
	struct t_result res;
	ssize_t got;
	size_t kept;

	memcpy(bad, w, sizeof(bad));
	bad[turn * CYCLE_WORDS + i] ^= tracebuf_fxt_le64(1ull << b);
	keep_one(bad, sizeof(bad), fd, out, &kept, &rejected, &padding, &got);
	res = t_read_all(out, got > 0 ? (size_t)got : 0, 0);
	if (got != (ssize_t)kept || !accounted(bad, sizeof(bad), kept, rejected, padding) ||
	    res.ret || res.end != kept || !res.bounds_ok ||
	    memcmp(out, bad, turn * CYCLE_WORDS * 8) ||
	    (value && (kept != sizeof(bad) || memcmp(out, bad, kept)))) {
		T_FAIL("turn %u word %u bit %u: kept %zu (read back %zd), rejected %llu, "
		       "read %d to %zu", turn, i, b, kept, got, (unsigned long long)rejected,
		       res.ret, res.end);
		return false;
	}
	*dropped += kept < sizeof(bad);
	*as_is += kept == sizeof(bad) && !memcmp(out, bad, kept);
	return true;
}

/*
 * What a crashed writer leaves: whole records, then zeros (its chunk's
 * unwritten tail), or the start of a record the chunk cannot hold whole,
 * then zeros.  Only bytes that
 * held something are counted as rejected: none in the first case, the
 * cut record's written words in the second.
 */
static void crashed_tail_counts_only_what_was_written(void)
{
	static uint64_t w[8 * CYCLE_WORDS];
	static uint8_t out[sizeof(w)];
	uint64_t rejected, padding;
	FILE *f = tmpfile();
	ssize_t got;
	size_t kept;

	T_ASSERT(f != NULL);
	memset(w, 0, sizeof(w));
	for (unsigned int c = 0; c < 4; c++)
		T_ASSERT_EQ(t_turn(w + c * CYCLE_WORDS, c), CYCLE_WORDS * 8);
	keep_one(w, sizeof(w), fileno(f), out, &kept, &rejected, &padding, &got);
	T_EXPECT_EQ(kept, 4 * CYCLE_WORDS * 8);
	T_EXPECT_EQ(rejected, 0);
	/* a record longer than what is left, of which 2 words were written */
	w[4 * CYCLE_WORDS] = tracebuf_fxt_le64(4 | (uint64_t)(4 * CYCLE_WORDS + 1) << 4);
	w[4 * CYCLE_WORDS + 1] = tracebuf_fxt_le64(12345);
	keep_one(w, sizeof(w), fileno(f), out, &kept, &rejected, &padding, &got);
	T_EXPECT_EQ(kept, 4 * CYCLE_WORDS * 8);
	T_EXPECT_EQ(rejected, 16);
	fclose(f);
}

static void walk_learns_cycles(void)
{
	static uint64_t w[CYCLES * CYCLE_WORDS];
	static uint8_t out[sizeof(w)];
	unsigned int dropped = 0, kept_as_is = 0, turns_dropped = 0, turns_as_is = 0;
	uint64_t rejected, padding;
	FILE *f = tmpfile();
	ssize_t got;
	size_t kept;

	T_ASSERT(f != NULL);
	for (unsigned int c = 0; c < CYCLES; c++)
		T_ASSERT_EQ(t_turn(w + c * CYCLE_WORDS, c), CYCLE_WORDS * 8);
	keep_one(w, sizeof(w), fileno(f), out, &kept, &rejected, &padding, &got);
	T_ASSERT_EQ(kept, sizeof(w));
	T_ASSERT_EQ(rejected, 0);
	T_ASSERT(got == (ssize_t)sizeof(w) && !memcmp(out, w, sizeof(w)));

	for (unsigned int i = 0; i < CYCLE_WORDS; i++)
		for (unsigned int b = 0; b < 64; b++)
			if (!flip_walk(w, CYCLE_BAD, i, b, fileno(f), &dropped, &kept_as_is))
				goto out;
	for (unsigned int c = 0; c < CYCLES; c++)
		for (unsigned int i = 0; i < CYCLE_WORDS; i++)
			if (!flip_walk(w, c, i, (c + 7 * i) % 64, fileno(f), &turns_dropped,
				       &turns_as_is))
				goto out;
out:
	fclose(f);
	printf("# of %u flips in turn %u, %u left something out, %u kept all as it was\n",
	       CYCLE_WORDS * 64, CYCLE_BAD, dropped, kept_as_is);
	printf("# of %u flips, a bit of each word of each turn, %u left something out, "
	       "%u kept all as it was\n", CYCLES * CYCLE_WORDS, turns_dropped, turns_as_is);
	T_EXPECT(dropped > 0);
	T_EXPECT(kept_as_is >= 4 * 64);
	T_EXPECT(turns_dropped > 0);
	T_EXPECT(turns_as_is > 0);
}

/*
 * The save walk over turns in a thread's chunks, each padded at its end
 * as the engine pads it (t_turns_chunked()), 1 KiB chunks here so that a
 * pad has a payload: the turns are kept as they are, the pads left out,
 * and counted as padding, not as rejected.  With any one bit of the
 * second chunk's pad flipped, whatever is kept decodes to its end, kept,
 * rejected and padding add up, the turns of the chunk before are kept as
 * they are, and a flip in the payload, which no reader looks into, keeps
 * what a pad without a flip keeps.
 */
#define PAD_CHUNK	1024
#define PAD_CHUNKS	4
#define PAD_TURNS	(PAD_CHUNK / (T_TURN_WORDS * 8))
#define PAD_BYTES	(PAD_CHUNK % (T_TURN_WORDS * 8))

static void walk_leaves_padding_out(void)
{
	static uint64_t w[PAD_CHUNKS * PAD_CHUNK / 8], bad[sizeof(w) / 8];
	static uint8_t out[sizeof(w)], turns[sizeof(w)];
	size_t pad_at = 2 * PAD_CHUNK - PAD_BYTES, kept, n = 0;
	unsigned int dropped = 0, as_is = 0, flips = 0;
	uint64_t rejected, padding;
	FILE *f = tmpfile();
	uint32_t i = 0;
	ssize_t got;

	T_ASSERT(f != NULL);
	T_ASSERT_EQ(t_turns_chunked((uint8_t *)w, sizeof(w), PAD_CHUNK, &i), 0);
	/* the pad: a header and a payload word */
	T_ASSERT_EQ(PAD_BYTES, 16);
	T_ASSERT_EQ(tb_readout_pad((const uint8_t *)w + pad_at, sizeof(w) - pad_at), 16);
	for (size_t c = 0; c < sizeof(w); c += PAD_CHUNK, n += PAD_CHUNK - PAD_BYTES)
		memcpy(turns + n, (const uint8_t *)w + c, PAD_CHUNK - PAD_BYTES);
	keep_one(w, sizeof(w), fileno(f), out, &kept, &rejected, &padding, &got);
	T_ASSERT_EQ(kept, n);
	T_ASSERT_EQ(rejected, 0);
	T_ASSERT_EQ(padding, PAD_CHUNKS * PAD_BYTES);
	T_ASSERT(got == (ssize_t)n && !memcmp(out, turns, n));

	for (unsigned int b = 0; b < 128; b++, flips++) {
		struct t_result res;
		bool payload = b >= 64;

		memcpy(bad, w, sizeof(w));
		bad[pad_at / 8 + b / 64] ^= tracebuf_fxt_le64(1ull << b % 64);
		keep_one(bad, sizeof(bad), fileno(f), out, &kept, &rejected, &padding, &got);
		res = t_read_all(out, got > 0 ? (size_t)got : 0, 0);
		if (got != (ssize_t)kept ||
		    !accounted(bad, sizeof(bad), kept, rejected, padding) ||
		    res.ret || res.end != kept || !res.bounds_ok ||
		    kept < pad_at - PAD_BYTES || memcmp(out, turns, pad_at - PAD_BYTES) ||
		    (payload && (kept != n || rejected || memcmp(out, turns, n)))) {
			T_FAIL("pad bit %u: kept %zu (read back %zd), rejected %llu, padding %llu, "
			       "read %d to %zu", b, kept, got, (unsigned long long)rejected,
			       (unsigned long long)padding, res.ret, res.end);
			break;
		}
		dropped += kept < n;
		as_is += kept == n && !memcmp(out, turns, n);
	}
	fclose(f);
	printf("# of %u flips in a pad, %u left a turn out, %u kept the turns as they were\n",
	       flips, dropped, as_is);
	T_EXPECT_EQ(flips, 128);
	T_EXPECT(dropped > 0);
	T_EXPECT(as_is >= 64);
}

/*
 * A pad that ends a fast writer's chunk, one word after 4 KiB of turns,
 * stays where it is (the run is written whole), but none larger than
 * 1/128 of the records before it: the same pads after a single turn a
 * chunk are left out.
 */
static void walk_keeps_small_pads(void)
{
	static uint64_t w[16 * 4096 / 8];
	static uint8_t out[sizeof(w)], turns[sizeof(w)];
	const size_t turn = T_TURN_WORDS * 8;
	uint64_t rejected, padding;
	FILE *f = tmpfile();
	size_t kept, n = 0;
	uint32_t i = 0;
	ssize_t got;

	T_ASSERT(f != NULL);
	T_ASSERT_EQ(t_turns_chunked((uint8_t *)w, sizeof(w), 4096, &i), 0);
	T_ASSERT_EQ(tb_readout_pad((const uint8_t *)w + 4096 - 4096 % turn, 4096 % turn),
		    8);
	keep_one(w, sizeof(w), fileno(f), out, &kept, &rejected, &padding, &got);
	T_EXPECT_EQ(kept, sizeof(w));
	T_EXPECT_EQ(padding, 0);
	T_EXPECT(got == (ssize_t)sizeof(w) && !memcmp(out, w, sizeof(w)));

	i = 0;
	memset(w, 0, sizeof(w));
	T_ASSERT_EQ(t_turns_chunked((uint8_t *)w, sizeof(w), turn + 8, &i), 0);
	for (size_t c = 0; c + turn + 8 <= sizeof(w); c += turn + 8, n += turn)
		memcpy(turns + n, (const uint8_t *)w + c, turn);
	keep_one(w, sizeof(w), fileno(f), out, &kept, &rejected, &padding, &got);
	T_EXPECT_EQ(kept, n);
	T_EXPECT_EQ(rejected, 0);
	T_EXPECT_EQ(padding, n / turn * 8);
	T_EXPECT(got == (ssize_t)n && !memcmp(out, turns, n));
	fclose(f);
}

static const struct t_test tests[] = {
	T_TEST(truncate_every_offset),
	T_TEST(flip_every_bit),
	T_TEST(random_garbage),
	T_TEST(mutate_sample),
	T_TEST(overlong_sizes),
	T_TEST(zero_headers),
	T_TEST(table_pressure),
	T_TEST(plain_events_decode),
	T_TEST(walk_learns_cycles),
	T_TEST(crashed_tail_counts_only_what_was_written),
	T_TEST(walk_leaves_padding_out),
	T_TEST(walk_keeps_small_pads),
};

T_MAIN(tests)
