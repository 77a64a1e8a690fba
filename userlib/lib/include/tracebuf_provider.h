/* SPDX-License-Identifier: MIT */
/*
 * libtracebuf: making a process a trace provider.
 *
 *	struct tracebuf_provider *p;
 *	struct tracebuf_provider_config cfg = {
 *		.size = sizeof(cfg), .name = "myapp",
 *		.flags = TRACEBUF_LIB_PROVIDER_THREAD,
 *	};
 *	tracebuf_provider_create(&cfg, &p);	// then TRACE_* macros write
 *	...
 *	tracebuf_provider_destroy(p);
 *
 * The provider registers on /dev/tracebuf and follows its manager:
 * INITIALIZE maps the trace buffer, START applies the categories and
 * starts the engine (the initialization record, then STARTED), STOP
 * finalizes the buffer (then STOPPED), streaming saves are requested as
 * rolling buffers fill, TERMINATE and a vanished manager detach.  Either
 * a library thread does this (TRACEBUF_LIB_PROVIDER_THREAD) or the
 * application polls tracebuf_provider_fd() for POLLIN and calls
 * tracebuf_provider_dispatch().
 *
 * One provider per process (Fuchsia's trace-engine is a singleton too).
 * Every function returns 0 or a positive value on success, -errno on
 * failure.
 */
#ifndef TRACEBUF_PROVIDER_H
#define TRACEBUF_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * By default, a provider that registers while a trace that wants it runs
 * (a manager traces every provider, or this provider's name) waits in
 * tracebuf_provider_create() until it is started, at most
 * start_timeout_ms: its first events are not lost.  A trace of other
 * providers does not hold it up.  NO_WAIT returns at once instead; events
 * written before the START arrives are then not recorded (and an end
 * whose begin was not recorded is not recorded either).
 */
#define TRACEBUF_LIB_PROVIDER_NO_WAIT		(1u << 0)	/* do not wait for
							 * the start
							 */
#define TRACEBUF_LIB_PROVIDER_THREAD		(1u << 1)	/* dispatch on a
							 * library thread
							 */
#define TRACEBUF_LIB_PROVIDER_ALL		0x3u

/* A category this provider knows, published for managers to list. */
struct tracebuf_known_category {
	const char *name;		/* 1..100 bytes */
	const char *description;	/* 0..400 bytes, may be NULL */
};

/*
 * A provider's configuration.  size is sizeof(struct
 * tracebuf_provider_config) as the caller's header has it: down to the
 * end of nknown (ABI 1.0's first fields; device then reads as NULL) is
 * taken, less is -EINVAL; a larger one (a newer header) is taken when the
 * fields this library does not know are zero.  Every pointer in it (name,
 * known and their strings, device) is read during
 * tracebuf_provider_create() only: nothing is kept.
 */
struct tracebuf_provider_config {
	size_t size;			/* sizeof(struct tracebuf_provider_config) */
	const char *name;		/* 1..100 bytes */
	uint32_t flags;			/* TRACEBUF_LIB_PROVIDER_* */
	uint32_t start_timeout_ms;	/* waiting to start: 0 means 5000 */
	const struct tracebuf_known_category *known;
	size_t nknown;
	const char *device;		/* NULL: /dev/tracebuf */
};

struct tracebuf_provider;

/**
 * tracebuf_provider_create() - register this process as a provider
 * Return: 0 and *@out, or -errno: -EBUSY if the process has one already,
 * -ENOENT without /dev/tracebuf, -EPROTONOSUPPORT for another ABI major,
 * -EINVAL for a bad config, -EDQUOT when this user has the module's
 * max_user_providers registered, or what registration returned.  Known
 * categories that do not fit the user's share are not published; the
 * provider is created all the same.
 */
int tracebuf_provider_create(const struct tracebuf_provider_config *cfg,
			     struct tracebuf_provider **out);

/** tracebuf_provider_fd() - poll this for POLLIN, then dispatch */
int tracebuf_provider_fd(const struct tracebuf_provider *p);

/**
 * tracebuf_provider_dispatch() - handle every pending message and engine
 * request without blocking.  Return: the number handled, or -errno.
 */
int tracebuf_provider_dispatch(struct tracebuf_provider *p);

/**
 * tracebuf_provider_alert() - send an ALERT (1..14 bytes) to the manager,
 * e.g. for its "--trigger ALERT:stop".  Only while tracing (-EPROTO).
 */
int tracebuf_provider_alert(struct tracebuf_provider *p, const char *name);

/** tracebuf_provider_id() - the id the kernel gave, as in the trace */
uint32_t tracebuf_provider_id(const struct tracebuf_provider *p);

/**
 * tracebuf_provider_destroy() - stop tracing (the buffer stays readable
 * by the manager, its header final), unregister and free.
 */
void tracebuf_provider_destroy(struct tracebuf_provider *p);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBUF_PROVIDER_H */
