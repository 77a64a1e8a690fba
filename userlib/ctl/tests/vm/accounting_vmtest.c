// SPDX-License-Identifier: MIT
/*
 * Every record a provider tries is in the file or counted as dropped, in
 * the test VM: "tracebufctl record -m MODE -b SIZE -c CATS -- tb-sitesprov
 * -s SITES -t THREADS", swept over the modes, buffer sizes down to the
 * minimum (1, 2, 4 and 16 times the kernel's buffer alignment: 4 KiB, or
 * the page size where larger), 1, 16 and 256 call sites, 1 and 4 threads,
 * and two category lists.
 * The count of what was tried is the program's own (tests/vm/sitesprov.c
 * prints it), not the library's.  For oneshot and streaming:
 *
 *	tried = records in the file + records in its drop windows
 *
 * and the summary's "N records dropped" is the windows' sum.  A circular
 * buffer overwrites its oldest records by design, so there the file and
 * the windows hold at most what was tried, and at least one record (at
 * the smallest sizes, a durable area filled by many call sites and
 * threads may leave room for none in the file: then a window counts them).
 *
 * tracebufctl and tb-sitesprov are expected beside this program.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ktap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracebuf_reader.h>

#include "vmtest.h"

struct tally {
	uint64_t acct, other;		/* records in the file, by category */
	uint64_t windows, in_windows;	/* drop windows, the records they count */
	uint64_t foreign;		/* events in another category */
};

static int count_file(const char *file, struct tally *c)
{
	struct tracebuf_reader_record rec;
	struct tracebuf_reader *r;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = t_trace_open_file(file, TRACEBUF_LIB_READER_MAGIC, &r);
	if (ret)
		return ret;
	while ((ret = tracebuf_reader_next(r, &rec)) == 1) {
		uint64_t n;

		if (rec.type != TRACEBUF_LIB_FXT_RECORD_EVENT)
			continue;
		if (tracebuf_reader_drop_window(&rec, &n)) {
			c->windows++;
			c->in_windows += n;
		} else if (rec.event.category.len == 4 &&
			   !memcmp(rec.event.category.data, "acct", 4)) {
			c->acct++;
		} else if (rec.event.category.len == 5 &&
			   !memcmp(rec.event.category.data, "other", 5)) {
			c->other++;
		} else {
			c->foreign++;
		}
	}
	if (ret)
		printf("# %s: %s at %zu\n", file, tracebuf_reader_error(r),
		       tracebuf_reader_error_offset(r));
	tracebuf_reader_close(r);
	return ret;
}

/* The summary's "N records dropped by", or 0 without one. */
static uint64_t summary_dropped(const char *err)
{
	const char *p = strstr(err, " records dropped by ");

	if (!p)
		return 0;
	while (p > err && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return strtoull(p, NULL, 10);
}

static unsigned int g_bad;

static void one(const char *mode, const char *size, const char *cats, unsigned int sites,
		unsigned int threads)
{
	static char out[4096], err[8192];
	char s_sites[16], s_threads[16];
	const char *argv[] = { "tracebufctl", "record", "-m", mode, "-b", size, "-c", cats,
			       "-o", path("acct.fxt"), "--", prog_path("tb-sitesprov"),
			       "-s", s_sites, "-t", s_threads, "-n", "300", NULL };
	unsigned long long acct, other;
	uint64_t tried, in_file, dropped;
	struct tally c;
	const char *line;
	bool ok;
	int rc;

	snprintf(s_sites, sizeof(s_sites), "%u", sites);
	snprintf(s_threads, sizeof(s_threads), "%u", threads);
	rc = run(argv, out, sizeof(out), err, sizeof(err), 0);
	line = strstr(out, "tb-sitesprov: tried acct ");
	if (rc || !line || sscanf(line, "tb-sitesprov: tried acct %llu other %llu",
				  &acct, &other) != 2 || count_file(path("acct.fxt"), &c)) {
		printf("# %s %s -c %s, %u sites, %u threads: exit %d, %s\n", mode, size, cats,
		       sites, threads, rc, line ? "the file does not read" : "no tally");
		g_bad++;
		return;
	}
	tried = acct + (strcmp(cats, "acct") ? other : 0);
	in_file = c.acct + c.other;
	dropped = summary_dropped(err);
	if (!strcmp(mode, "circular"))
		ok = in_file + c.in_windows && in_file + c.in_windows <= tried &&
		     !c.foreign && dropped == c.in_windows;
	else
		ok = in_file + c.in_windows == tried && dropped == c.in_windows && !c.foreign &&
		     (strcmp(cats, "acct") || !c.other);
	printf("# %-9s %-4s -c %-4s %3u sites %u threads: tried %" PRIu64 ", in the file %"
	       PRIu64 ", %" PRIu64 " dropped in %" PRIu64 " windows, summary %" PRIu64 "%s\n",
	       mode, size, cats, sites, threads, tried, in_file, c.in_windows, c.windows,
	       dropped, ok ? "" : "  <- WRONG");
	g_bad += !ok;
}

static void sweep(const char *mode)
{
	static const unsigned int times[] = { 1, 2, 4, 16 };
	static const char *const cats[] = { "acct", "*" };
	static const unsigned int sites[] = { 1, 16, 256 }, threads[] = { 1, 4 };
	long page = sysconf(_SC_PAGESIZE);
	unsigned long align = page > 4096 ? (unsigned long)page : 4096;

	alarm(t_timeout(T_TIMEOUT * 8));
	g_bad = 0;
	for (size_t a = 0; a < sizeof(times) / sizeof(times[0]); a++) {
		char size[24];

		snprintf(size, sizeof(size), "%luK", align * times[a] / 1024);
		for (size_t b = 0; b < sizeof(cats) / sizeof(cats[0]); b++)
			for (size_t d = 0; d < sizeof(sites) / sizeof(sites[0]); d++)
				for (size_t e = 0; e < sizeof(threads) / sizeof(threads[0]); e++)
					one(mode, size, cats[b], sites[d], threads[e]);
	}
	T_EXPECT_EQ(g_bad, 0);
}

static void oneshot_every_record_in_the_file_or_counted(void)
{
	sweep("oneshot");
}

static void streaming_every_record_in_the_file_or_counted(void)
{
	sweep("streaming");
}

static void circular_keeps_no_more_than_was_tried(void)
{
	sweep("circular");
}

static const struct t_test tests[] = {
	T_TEST(oneshot_every_record_in_the_file_or_counted),
	T_TEST(streaming_every_record_in_the_file_or_counted),
	T_TEST(circular_keeps_no_more_than_was_tried),
};

VMTEST_MAIN(tests)
