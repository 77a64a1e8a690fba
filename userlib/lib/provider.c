// SPDX-License-Identifier: MIT
/*
 * libtracebuf: the provider session.  Registers on /dev/tracebuf and turns
 * the manager's control messages into engine calls, and the engine's
 * requests into packets (Fuchsia's trace-provider session.cc).
 *
 * One eventfd is the provider's single wake-up: the kernel signals it for
 * every message queued to the provider (TRACEBUF_IOC_SET_EVENTFD), and the
 * engine signals it when a rolling buffer needs service.  Dispatch is
 * serialized by p->lock; the engine has its own lock for the writers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/tracebuf.h>
#include <tracebuf_provider.h>

#include "engine_priv.h"
#include "event_priv.h"
#include "lib_priv.h"
#include "syscall_priv.h"

struct tracebuf_provider {
	int fd;				/* /dev/tracebuf, a provider */
	int efd;			/* the wake-up eventfd */
	uint32_t id;
	pthread_mutex_t lock;		/* one dispatcher at a time */
	/* [lock] the session */
	void *map;
	size_t map_size;
	bool attached;			/* the engine uses map */
	bool tracing;			/* started since the last stop */
	bool late;			/* stopped waiting for the START to come */
	bool save_now;			/* a SNAPSHOT waits for a save (streaming) */
	/* the library's thread */
	pthread_t thread;
	bool has_thread;
	atomic_bool quit;
};

static atomic_bool tb_have_provider;
/* the process's provider, once created, until destroyed */
static struct tracebuf_provider *_Atomic tb_provider;

/*
 * A child of fork() does not own its parent's provider (and its buffer
 * mapping is not inherited): it may create its own.  It had a copy of
 * the parent's provider file, which would keep the parent's provider
 * registered for as long as the child lives, whatever became of the
 * parent: /dev/null takes its place (the number stays taken, so that the
 * struct the child inherited names no other file; the child must not use
 * it, as libtracebuf(3) says).  Async-signal-safe calls only.
 */
static void tb_forget_after_fork(void)
{
	struct tracebuf_provider *p = atomic_load(&tb_provider);

	atomic_store(&tb_provider, NULL);
	atomic_store(&tb_have_provider, false);
	if (p) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (null < 0 || dup3(null, p->fd, O_CLOEXEC) < 0)
			close(p->fd);
		if (null >= 0)
			close(null);
	}
}

static pthread_once_t tb_once = PTHREAD_ONCE_INIT;

static void tb_once_init(void)
{
	pthread_atfork(NULL, NULL, tb_forget_after_fork);
}

/* The engine wants tb_engine_service(): wake the dispatcher. */
static void tb_notify(void *arg)
{
	struct tracebuf_provider *p = arg;

	eventfd_write(p->efd, 1);
}

/*
 * 0 or the kernel's refusal.  Most refusals (the manager moved on)
 * change nothing, and most callers have nothing to do on one.
 */
static int tb_send(struct tracebuf_provider *p, uint16_t request, uint16_t data16,
		   uint32_t data32, uint64_t data64)
{
	struct tracebuf_pkt pkt = {
		.request = request, .data16 = data16, .data32 = data32, .data64 = data64,
	};

	return tb_sys_provider_send(p->fd, &pkt);
}

/*
 * The engine's save request, from the writer that filled a rolling buffer: sent
 * at once, under the engine's lock, so that it goes before a STOPPED
 * (the engine's stop takes the lock first) and while p is alive (its
 * detach does too).  A refusal for a full manager's inbox (EAGAIN) the
 * engine asks again (the kernel wakes us when the manager read a
 * packet); any other changes nothing, as in the dispatch loop.
 */
static int tb_request_save(void *arg, const struct tracebuf_save_req *req)
{
	return tb_send(arg, TRACEBUF_PKT_SAVE_BUFFER, 0, req->wrapped_count,
		       req->durable_data_end);
}

/* The enabled categories of the current configuration, into the engine. */
static int tb_apply_config(struct tracebuf_provider *p)
{
	struct tracebuf_config_args cfg;
	uint32_t room = 0;
	char *cats = NULL, *n;
	int ret;

	/* ENOSPC: the list is longer than room (it may grow meanwhile) */
	while ((ret = tb_sys_get_config(p->fd, &cfg, cats, room)) == -ENOSPC) {
		room = cfg.categories_size;
		n = realloc(cats, room);
		if (!n) {
			ret = -ENOMEM;
			break;
		}
		cats = n;
	}
	if (!ret)
		ret = tb_event_set_categories(cats, cfg.categories_size,
					      cfg.categories_count);
	free(cats);
	return ret;
}

static void tb_unmap(struct tracebuf_provider *p)
{
	if (p->attached) {
		/* stops every writer first: then the memory may go */
		tb_engine_detach();
		p->attached = false;
	}
	if (p->map) {
		munmap(p->map, p->map_size);
		p->map = NULL;
	}
	p->tracing = false;
}

static void tb_on_initialize(struct tracebuf_provider *p,
			     const struct tracebuf_pkt *pkt)
{
	struct tracebuf_engine_ops ops = {
		.notify = tb_notify, .request_save = tb_request_save, .arg = p,
	};
	size_t size = (size_t)pkt->data64;
	void *map;

	if (p->map || size != pkt->data64)
		return;
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
	if (map == MAP_FAILED)
		return;
	p->map = map;
	p->map_size = size;
	/* a header that does not check out: stay silent, the manager times out */
	tb_event_install();
	if (tb_apply_config(p) || tb_engine_attach(map, size, pkt->data16, &ops))
		tb_unmap(p);
	else
		p->attached = true;
}

static void tb_on_start(struct tracebuf_provider *p, const struct tracebuf_pkt *pkt)
{
	uint16_t late = p->late ? TRACEBUF_STARTED_LATE : 0;

	/* the kernel refuses a START while started: no duplicates here */
	if (!p->attached || tb_apply_config(p) ||
	    tb_engine_start(pkt->data16, 0))
		return;
	p->tracing = true;
	p->save_now = false;
	/* what it wrote while not waiting is lost: the manager learns it */
	p->late = false;
	tb_send(p, TRACEBUF_PKT_STARTED, late, TRACEBUF_FIFO_PROTOCOL_VERSION, 0);
}

/*
 * Stop: STOPPED means no writer is left and the header is final.  Sent
 * even when this provider never started (its START failed), so the
 * manager does not wait for it; the kernel refuses it when out of place.
 */
static void tb_stop(struct tracebuf_provider *p)
{
	if (p->attached)
		tb_engine_stop();
	p->tracing = false;
	/* the manager reads all at STOPPED: a save now is moot */
	p->save_now = false;
	tb_send(p, TRACEBUF_PKT_STOPPED, 0, 0, 0);
}

/*
 * CATEGORIES: the manager changed the enabled categories while we trace;
 * once the engine records by them, say so with the generation it gave.
 * Not answered when they could not be read: the manager times out.
 */
static void tb_on_categories(struct tracebuf_provider *p, const struct tracebuf_pkt *pkt)
{
	if (p->tracing && !tb_apply_config(p))
		tb_send(p, TRACEBUF_PKT_CATEGORIES_APPLIED, 0, pkt->data32, 0);
}

/*
 * SNAPSHOT: the records so far made whole, and where they end; in
 * streaming mode, a save now (uapi TRACEBUF_FEAT_SAVE_NOW): the rolling buffer
 * being written ends, and its save is asked for, at once or, when the
 * other rolling buffer is not saved yet, at the dispatch after its BUFFER_SAVED
 * (p->save_now).  Always answered, so the manager does not wait; an
 * engine that is not tracing has nothing new to show: its end is 0.
 */
static void tb_snapshot(struct tracebuf_provider *p)
{
	uint32_t wrap = 0;
	uint64_t end = 0;
	int ret = -EINVAL;

	p->save_now = false;
	if (p->attached) {
		ret = tb_engine_save_now(&wrap, &end);
		if (ret == -EAGAIN) {
			p->save_now = true;
			return;
		}
		if (ret)
			tb_engine_seal(&wrap, &end);
	}
	tb_send(p, TRACEBUF_PKT_SNAPSHOT_TAKEN, 0, wrap, end);
}

static void tb_handle(struct tracebuf_provider *p, const struct tracebuf_pkt *pkt)
{
	switch (pkt->request) {
	case TRACEBUF_PKT_INITIALIZE:
		tb_on_initialize(p, pkt);
		break;
	case TRACEBUF_PKT_START:
		tb_on_start(p, pkt);
		break;
	case TRACEBUF_PKT_STOP:
		tb_stop(p);
		break;
	case TRACEBUF_PKT_TERMINATE:
		tb_stop(p);
		tb_unmap(p);
		tb_sys_provider_release(p->fd);
		break;
	case TRACEBUF_PKT_MANAGER_GONE:
		/* stop at once and discard what was in flight */
		tb_unmap(p);
		break;
	case TRACEBUF_PKT_BUFFER_SAVED:
		if (p->attached)
			tb_engine_buffer_saved(pkt->data32, pkt->data64);
		break;
	case TRACEBUF_PKT_SNAPSHOT:
		tb_snapshot(p);
		break;
	case TRACEBUF_PKT_CATEGORIES:
		tb_on_categories(p, pkt);
		break;
	default:
		break;		/* a newer kernel's message: ignore it */
	}
}

TRACEBUF_API int tracebuf_provider_dispatch(struct tracebuf_provider *p)
{
	struct tracebuf_save_req req;
	struct tracebuf_pkt pkts[16];
	eventfd_t v;
	ssize_t n;
	int handled = 0;

	pthread_mutex_lock(&p->lock);
	eventfd_read(p->efd, &v);	/* non-blocking: EAGAIN is fine */
	for (;;) {
		n = tb_sys_read_pkts(p->fd, pkts, 16);
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			tb_handle(p, &pkts[i]);
		handled += (int)n;
	}
	/* a BUFFER_SAVED above freed the rolling buffer a save now waited for */
	if (p->save_now)
		tb_snapshot(p);
	while (p->attached && tb_engine_service(&req) == 1) {
		/*
		 * The manager's inbox is full (ALERTs): asked again when the
		 * kernel wakes us, once the manager read a packet of ours.
		 */
		if (tb_request_save(p, &req) == -EAGAIN) {
			tb_engine_save_refused(&req);
			break;
		}
		handled++;
	}
	pthread_mutex_unlock(&p->lock);
	return n < 0 && n != -EAGAIN ? (int)n : handled;
}

TRACEBUF_API int tracebuf_provider_fd(const struct tracebuf_provider *p)
{
	return p->efd;
}

TRACEBUF_API uint32_t tracebuf_provider_id(const struct tracebuf_provider *p)
{
	return p->id;
}

TRACEBUF_API int tracebuf_provider_alert(struct tracebuf_provider *p,
					 const char *name)
{
	struct tracebuf_pkt pkt = { .request = TRACEBUF_PKT_ALERT };
	size_t len = name ? strlen(name) : 0;

	if (!len || len > TRACEBUF_ALERT_NAME_MAX)
		return -EINVAL;
	memcpy((char *)&pkt + offsetof(struct tracebuf_pkt, data16), name, len);
	return tb_sys_provider_send(p->fd, &pkt);
}

static void *tb_thread(void *arg)
{
	struct tracebuf_provider *p = arg;
	struct pollfd pfd = { .fd = p->efd, .events = POLLIN };

	while (!atomic_load(&p->quit)) {
		if (poll(&pfd, 1, -1) > 0)
			tracebuf_provider_dispatch(p);
	}
	return NULL;
}

static int64_t tb_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * A trace is running: serve messages until START arrives or time is up;
 * whether it did.  Dispatch before the first wait: a quick manager's
 * INITIALIZE and START may have been queued before the eventfd was bound.
 */
static bool tb_wait_start(struct tracebuf_provider *p, uint32_t timeout_ms)
{
	struct pollfd pfd = { .fd = p->efd, .events = POLLIN };
	int64_t end = tb_now_ms() + (timeout_ms ? timeout_ms : 5000);
	struct tb_engine_stats st;

	for (;;) {
		int64_t left;

		tracebuf_provider_dispatch(p);
		tb_engine_stats(&st);
		left = end - tb_now_ms();
		if (st.state == TRACEBUF_ENGINE_STARTED)
			return true;
		if (left <= 0)
			return false;
		poll(&pfd, 1, (int)left);
	}
}

static int tb_publish_known(struct tracebuf_provider *p,
			    const struct tracebuf_known_category *known, size_t n)
{
	size_t size = 0, off = 0;
	char *blob;
	int ret;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		size += strlen(known[i].name) + 1 +
			(known[i].description ? strlen(known[i].description) : 0) + 1;
	blob = malloc(size);
	if (!blob)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *d = known[i].description ? known[i].description : "";

		memcpy(blob + off, known[i].name, strlen(known[i].name) + 1);
		off += strlen(known[i].name) + 1;
		memcpy(blob + off, d, strlen(d) + 1);
		off += strlen(d) + 1;
	}
	ret = tb_sys_set_known(p->fd, blob, (uint32_t)size, (uint32_t)n);
	free(blob);
	return ret;
}

TRACEBUF_API int tracebuf_provider_create(const struct tracebuf_provider_config *cfg,
					  struct tracebuf_provider **out)
{
	struct tracebuf_version_args ver;
	struct tracebuf_provider *p;
	bool expect = false;
	uint32_t status = 0;
	int ret;

	if (!TB_OPTS_VALID(cfg, struct tracebuf_provider_config, nknown) ||
	    !cfg->name || cfg->flags & ~TRACEBUF_LIB_PROVIDER_ALL || !out)
		return -EINVAL;
	pthread_once(&tb_once, tb_once_init);
	/* the engine's fork handlers before any its caller registers next */
	tb_engine_init();
	if (!atomic_compare_exchange_strong(&tb_have_provider, &expect, true))
		return -EBUSY;

	p = calloc(1, sizeof(*p));
	if (!p) {
		ret = -ENOMEM;
		goto out_clear;
	}
	pthread_mutex_init(&p->lock, NULL);
	p->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->efd < 0) {
		ret = -errno;
		goto out_free;
	}
	p->fd = tb_sys_open(TB_OPTS_GET(cfg, struct tracebuf_provider_config, device, NULL));
	if (p->fd < 0) {
		ret = p->fd;
		goto out_close_efd;
	}
	ret = tb_sys_version(p->fd, &ver);
	if (ret)
		goto out_close_fd;
	if (ver.abi_major != TRACEBUF_ABI_MAJOR) {
		ret = -EPROTONOSUPPORT;
		goto out_close_fd;
	}
	tb_engine_set_timebase(tb_counter_usable(&ver), ver.counter_khz * 1000);

	ret = tb_sys_register(p->fd, cfg->name, strlen(cfg->name),
			      cfg->flags & TRACEBUF_LIB_PROVIDER_NO_WAIT ?
			      0 : TRACEBUF_REGISTER_F_SYNC, &p->id, &status);
	if (ret)
		goto out_close_fd;
	/*
	 * Messages queued before this (a manager may initialize and start
	 * us right after REGISTER) are found by the dispatch below.
	 */
	ret = tb_sys_set_eventfd(p->fd, p->efd);
	if (ret)
		goto out_close_fd;
	/*
	 * Publishing is a courtesy to managers: over its user's share
	 * (EDQUOT) or its cgroup's memory (ENOMEM) the provider still
	 * traces.  A malformed list is the caller's error.
	 */
	ret = tb_publish_known(p, cfg->known, cfg->nknown);
	if (ret == -EDQUOT || ret == -ENOMEM)
		ret = 0;
	if (ret)
		goto out_close_fd;
	/*
	 * Given up on, the START may still come: its STARTED then says that
	 * what was written before is missing (a module that can hear it).
	 * The kernel knows whether the trace that starts us ran meanwhile
	 * (the one we waited for may be over, or none may come): told that
	 * we go on, it says so exactly; a module before it (EINVAL) takes
	 * our word.
	 */
	if (status & TRACEBUF_REGISTER_STARTED) {
		p->late = !tb_wait_start(p, cfg->start_timeout_ms) &&
			  (ver.features & TRACEBUF_FEAT_STARTED_LATE);
		if (p->late)
			tb_sys_went_on(p->fd);
	} else {
		tracebuf_provider_dispatch(p);
	}
	if (cfg->flags & TRACEBUF_LIB_PROVIDER_THREAD) {
		ret = -pthread_create(&p->thread, NULL, tb_thread, p);
		if (ret)
			goto out_close_fd;
		p->has_thread = true;
	}
	atomic_store(&tb_provider, p);
	*out = p;
	return 0;

out_close_fd:
	tb_unmap(p);
	close(p->fd);
out_close_efd:
	close(p->efd);
out_free:
	pthread_mutex_destroy(&p->lock);
	free(p);
out_clear:
	atomic_store(&tb_have_provider, false);
	return ret;
}

TRACEBUF_API void tracebuf_provider_destroy(struct tracebuf_provider *p)
{
	if (!p)
		return;
	atomic_store(&tb_provider, NULL);
	if (p->has_thread) {
		atomic_store(&p->quit, true);
		eventfd_write(p->efd, 1);
		pthread_join(p->thread, NULL);
	}
	pthread_mutex_lock(&p->lock);
	/* final header: the manager still reads the buffer through its handle */
	if (p->tracing)
		tb_engine_stop();
	tb_unmap(p);
	pthread_mutex_unlock(&p->lock);
	close(p->fd);
	close(p->efd);
	pthread_mutex_destroy(&p->lock);
	free(p);
	atomic_store(&tb_have_provider, false);
}
