// SPDX-License-Identifier: MIT
/*
 * tracebuf-example: how an application uses libtracebuf.
 *
 * A small pipeline: a producer thread makes "requests", worker threads
 * handle them, and each request is traced from end to end:
 *
 *   - scoped durations (TRACE_DURATION) for the work each thread does,
 *     with arguments, nested;
 *   - an async span per request (TRACE_ASYNC_BEGIN/END), from the
 *     producer that creates it to the worker that completes it;
 *   - a flow (TRACE_FLOW_BEGIN/STEP/END) that Perfetto draws as arrows
 *     from the producer's slice to the worker's;
 *   - counters (TRACE_COUNTER) for the queue depth and the bytes done;
 *   - instant events in a detail category that is usually off
 *     (TRACE_ENABLED guards work done only for tracing);
 *   - its known categories, published for "tracebufctl categories";
 *   - an ALERT at the end, which "tracebufctl record --trigger
 *     done:stop" can use.
 *
 * Run it under tracebufctl, which starts the trace before this process
 * registers; tracebuf_provider_create() then returns only once this
 * provider is started, so no early event is lost:
 *
 *   tracebufctl record -m streaming -o trace.fxt -- ./tracebuf-example
 *
 * Without the module it runs all the same and records nothing.
 */
#define _GNU_SOURCE
/* the short names, TRACE_* and TA_*, as well as TRACEBUF_LIB_* */
#define TRACEBUF_LIB_SHORT_NAMES
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tracebuf.h>

#define QUEUE_MAX	64

struct request {
	uint64_t id;
	uint32_t size;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct request q[QUEUE_MAX];
	unsigned int head, len;
	bool closed;
} queue = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static atomic_ullong bytes_done;
static unsigned int work_us = 200;

static const struct tracebuf_known_category known[] = {
	{ "example", "requests: produce, handle, complete" },
	{ "example:io", "simulated reads and writes" },
	{ "example:detail", "every step of a request (many events)" },
};

static void usage(FILE *f, const char *argv0)
{
	fprintf(f,
		"Usage: %s [-t THREADS] [-n REQUESTS] [-w MICROSECONDS] [-N NAME]\n"
		"\n"
		"A multi-threaded program traced with libtracebuf: a producer and\n"
		"THREADS workers (default 3) handle REQUESTS requests (default 2000),\n"
		"each taking about MICROSECONDS of work (default 200).  It registers\n"
		"as trace provider NAME (default tracebuf-example) and writes\n"
		"durations, async spans, flows, counters and instant events in the\n"
		"categories example, example:io and example:detail.\n"
		"\n"
		"  -t, --threads N     worker threads (1..64)\n"
		"  -n, --requests N    requests to handle\n"
		"  -w, --work US       simulated work per request, in microseconds\n"
		"  -N, --name NAME     provider name (1..100 bytes)\n"
		"  -h, --help          this text\n"
		"\n"
		"Record it with: tracebufctl record -m streaming -- %s\n",
		argv0, argv0);
}

static void spin_us(unsigned int us)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000 + (t.tv_nsec - t0.tv_nsec) / 1000 <
		 (long)us);
}

static void queue_put(const struct request *r)
{
	pthread_mutex_lock(&queue.lock);
	while (queue.len == QUEUE_MAX)
		pthread_cond_wait(&queue.cond, &queue.lock);
	queue.q[(queue.head + queue.len) % QUEUE_MAX] = *r;
	queue.len++;
	TRACE_COUNTER("example", "queue", 1, TA_U32("depth", queue.len));
	pthread_cond_broadcast(&queue.cond);
	pthread_mutex_unlock(&queue.lock);
}

static bool queue_get(struct request *r)
{
	pthread_mutex_lock(&queue.lock);
	while (!queue.len && !queue.closed)
		pthread_cond_wait(&queue.cond, &queue.lock);
	if (!queue.len) {
		pthread_mutex_unlock(&queue.lock);
		return false;
	}
	*r = queue.q[queue.head];
	queue.head = (queue.head + 1) % QUEUE_MAX;
	queue.len--;
	TRACE_COUNTER("example", "queue", 1, TA_U32("depth", queue.len));
	pthread_cond_broadcast(&queue.cond);
	pthread_mutex_unlock(&queue.lock);
	return true;
}

static void handle(const struct request *r)
{
	TRACE_DURATION("example", "handle", TA_U64("request", r->id),
		       TA_U32("size", r->size));

	TRACE_FLOW_END("example", "request", r->id);
	{
		TRACE_DURATION("example:io", "read", TA_U32("bytes", r->size));
		spin_us(work_us / 2);
	}
	if (TRACE_ENABLED("example:detail")) {
		char what[32];

		snprintf(what, sizeof(what), "parsed %u bytes", r->size);
		TRACE_INSTANT("example:detail", "step", TA_STR("what", what),
			      TA_DOUBLE("ratio", r->size / 4096.0));
	}
	{
		TRACE_DURATION("example:io", "write", TA_U32("bytes", r->size));
		spin_us(work_us / 2);
	}
	atomic_fetch_add(&bytes_done, r->size);
	TRACE_COUNTER("example", "bytes", 2, TA_U64("done", atomic_load(&bytes_done)));
	TRACE_ASYNC_END("example", "request", r->id, TA_BOOL("ok", true));
}

static void *worker(void *arg)
{
	struct request r;

	(void)arg;
	while (queue_get(&r))
		handle(&r);
	return NULL;
}

static int parse_uint(const char *s, unsigned long lo, unsigned long hi,
		      unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || end == s || *end || *out < lo || *out > hi ? -EINVAL : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "requests", required_argument, NULL, 'n' },
		{ "work", required_argument, NULL, 'w' },
		{ "name", required_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tracebuf_provider_config cfg = {
		.size = sizeof(cfg), .name = "tracebuf-example",
		.flags = TRACEBUF_LIB_PROVIDER_THREAD,
		.known = known, .nknown = sizeof(known) / sizeof(known[0]),
	};
	unsigned long threads = 3, requests = 2000, v;
	struct tracebuf_provider *p = NULL;
	pthread_t tids[64];
	int c, ret;

	while ((c = getopt_long(argc, argv, "t:n:w:N:h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (parse_uint(optarg, 1, 64, &threads))
				goto bad;
			break;
		case 'n':
			if (parse_uint(optarg, 1, 100000000, &requests))
				goto bad;
			break;
		case 'w':
			if (parse_uint(optarg, 0, 1000000, &v))
				goto bad;
			work_us = (unsigned int)v;
			break;
		case 'N':
			if (!*optarg || strlen(optarg) > TRACEBUF_NAME_MAX)
				goto bad;
			cfg.name = optarg;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind != argc)
		goto bad;

	ret = tracebuf_provider_create(&cfg, &p);
	if (ret)
		fprintf(stderr, "tracebuf-example: not traced: %s\n", strerror(-ret));

	for (unsigned long i = 0; i < threads; i++) {
		ret = pthread_create(&tids[i], NULL, worker, NULL);
		if (ret) {
			fprintf(stderr, "tracebuf-example: pthread_create: %s\n", strerror(ret));
			return 1;
		}
	}
	{
		TRACE_DURATION("example", "produce", TA_U64("requests", requests));

		for (uint64_t id = 1; id <= requests; id++) {
			struct request r = { .id = id, .size = 512u << (id % 4) };

			TRACE_DURATION("example", "submit", TA_U64("request", id));
			TRACE_ASYNC_BEGIN("example", "request", id, TA_U32("size", r.size));
			TRACE_FLOW_BEGIN("example", "request", id);
			queue_put(&r);
		}
	}
	pthread_mutex_lock(&queue.lock);
	queue.closed = true;
	pthread_cond_broadcast(&queue.cond);
	pthread_mutex_unlock(&queue.lock);
	for (unsigned long i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);

	TRACE_INSTANT("example", "done", TA_U64("bytes", atomic_load(&bytes_done)));
	if (p)
		tracebuf_provider_alert(p, "done");
	printf("tracebuf-example: %lu requests, %llu bytes, %lu threads\n", requests,
	       (unsigned long long)atomic_load(&bytes_done), threads);
	tracebuf_provider_destroy(p);
	return 0;

bad:
	fprintf(stderr, "tracebuf-example: bad arguments (see --help)\n");
	return 2;
}
