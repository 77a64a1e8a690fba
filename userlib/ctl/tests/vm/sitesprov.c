// SPDX-License-Identifier: MIT
/*
 * tb-sitesprov: a provider that tries many call sites and strings from
 * several threads, and counts what it tried, for the accounting test
 * (tests/vm/accounting_vmtest.c).
 *
 *   tb-sitesprov [-s SITES] [-t THREADS] [-n ITERATIONS] [-N NAME]
 *
 * Registers as provider NAME (default "sites") and starts THREADS threads
 * (default 4, up to 16); each makes ITERATIONS calls (default 100), call
 * i of thread t at call site (7 i + 31 t) % SITES (SITES 1..256, default
 * 256, each a place in this file of its own, with a name of its own).
 * What a site writes depends on its number k:
 *
 *	k % 6 == 0: an instant with a number			1 record
 *	k % 6 == 1: a counter					1 record
 *	k % 6 == 2: a scoped duration with a number (complete)	1 record
 *	k % 6 == 3: a duration begin, an instant and its end	3 records
 *	k % 6 == 4: a scoped duration with a string (begin, end) 2 records
 *	k % 6 == 5: an instant in category "other"		1 record
 *
 * The strings are 64 words of different lengths, so that records have
 * many sizes.  Every record is in category "acct" but those of k % 6 ==
 * 5.  Once every thread is done, it prints the records it tried:
 *
 *   tb-sitesprov: tried acct N other M
 *
 * and destroys its provider.  Exits 0, or 1 when the provider could not
 * be created.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define TRACEBUF_LIB_SHORT_NAMES	/* TRACE_*, TA_* */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracebuf.h>

#define THREADS_MAX	16
#define WORDS		64

static unsigned int sites = 256, iterations = 100;
static atomic_ullong tried_acct, tried_other;
static char words[WORDS][80];

/* The records site @k writes, by category: [0] acct, [1] other. */
static void site_cost(unsigned int k, unsigned long long *acct, unsigned long long *other)
{
	static const unsigned char cost[6] = { 1, 1, 1, 3, 2, 1 };

	if (k % 6 == 5)
		*other += 1;
	else
		*acct += cost[k % 6];
}

#define SITE(k)								\
	case k:								\
		switch ((k) % 6) {					\
		case 0:							\
			TRACE_INSTANT("acct", "s" #k, TA_U32("i", i));	\
			break;						\
		case 1:							\
			TRACE_COUNTER("acct", "s" #k, 1, TA_U64("v", i)); \
			break;						\
		case 2: {						\
			TRACE_DURATION("acct", "s" #k, TA_U32("i", i)); \
			break;						\
		}							\
		case 3:							\
			TRACE_DURATION_BEGIN("acct", "s" #k);		\
			TRACE_INSTANT("acct", "s" #k "-in", TA_U32("i", i)); \
			TRACE_DURATION_END("acct", "s" #k);		\
			break;						\
		case 4: {						\
			TRACE_DURATION("acct", "s" #k, TA_STR("w", words[i % WORDS])); \
			break;						\
		}							\
		default:						\
			TRACE_INSTANT("other", "s" #k, TA_U32("i", i));	\
			break;						\
		}							\
		break;

#define SITES16(h)							\
	SITE(h##0) SITE(h##1) SITE(h##2) SITE(h##3) SITE(h##4) SITE(h##5) \
	SITE(h##6) SITE(h##7) SITE(h##8) SITE(h##9) SITE(h##a) SITE(h##b) \
	SITE(h##c) SITE(h##d) SITE(h##e) SITE(h##f)

static void at_site(unsigned int k, uint32_t i)
{
	switch (k) {
	SITES16(0x0) SITES16(0x1) SITES16(0x2) SITES16(0x3)
	SITES16(0x4) SITES16(0x5) SITES16(0x6) SITES16(0x7)
	SITES16(0x8) SITES16(0x9) SITES16(0xa) SITES16(0xb)
	SITES16(0xc) SITES16(0xd) SITES16(0xe) SITES16(0xf)
	}
}

static void *worker(void *arg)
{
	unsigned int t = (unsigned int)(uintptr_t)arg;
	unsigned long long acct = 0, other = 0;
	char name[16];

	snprintf(name, sizeof(name), "acct-%u", t);
	pthread_setname_np(pthread_self(), name);
	for (uint32_t i = 0; i < iterations; i++) {
		unsigned int k = (7 * i + 31 * t) % sites;

		at_site(k, i);
		site_cost(k, &acct, &other);
	}
	atomic_fetch_add(&tried_acct, acct);
	atomic_fetch_add(&tried_other, other);
	return NULL;
}

int main(int argc, char **argv)
{
	struct tracebuf_provider_config cfg = {
		.size = sizeof(cfg), .name = "sites", .flags = TRACEBUF_LIB_PROVIDER_THREAD,
	};
	const char *wait = getenv("TB_START_TIMEOUT_MS");
	pthread_t th[THREADS_MAX];
	unsigned int threads = 4;
	struct tracebuf_provider *p;
	int opt, ret;

	while ((opt = getopt(argc, argv, "s:t:n:N:")) != -1) {
		switch (opt) {
		case 's':
			sites = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 't':
			threads = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			iterations = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'N':
			cfg.name = optarg;
			break;
		default:
			return 2;
		}
	}
	if (!sites || sites > 256 || !threads || threads > THREADS_MAX) {
		fprintf(stderr, "tb-sitesprov: -s 1..256, -t 1..%d\n", THREADS_MAX);
		return 2;
	}
	for (unsigned int w = 0; w < WORDS; w++) {
		size_t len = 1 + (w * 37) % (sizeof(words[w]) - 1);

		memset(words[w], 'a' + w % 26, len);
		words[w][len] = '\0';
	}
	if (wait)
		cfg.start_timeout_ms = (uint32_t)strtoul(wait, NULL, 10);
	ret = tracebuf_provider_create(&cfg, &p);
	if (ret) {
		fprintf(stderr, "tb-sitesprov: %s\n", strerror(-ret));
		return 1;
	}
	for (unsigned int t = 0; t < threads; t++)
		if (pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t))
			return 1;
	for (unsigned int t = 0; t < threads; t++)
		pthread_join(th[t], NULL);
	printf("tb-sitesprov: tried acct %llu other %llu\n",
	       (unsigned long long)atomic_load(&tried_acct),
	       (unsigned long long)atomic_load(&tried_other));
	fflush(stdout);
	tracebuf_provider_destroy(p);
	return 0;
}
