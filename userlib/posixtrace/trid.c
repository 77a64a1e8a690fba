// SPDX-License-Identifier: MIT
/*
 * libposixtrace: the table of this process's trace ids (streams and logs),
 * and a trace's lifetime: made (pt_trace_new()), given an id
 * (pt_trace_add()), found and locked by it (pt_trace_get(), _put()), its
 * id taken back (pt_trace_remove()) and freed (pt_trace_free()).  A leaf
 * (posixtrace_priv.h): it calls nothing else of the library's; what a
 * stream does before its lock is released, pt_trace_put() leaves to the
 * trace's put_hook.
 *
 * An id names one trace for as long as it lives, and only in the process
 * that made it:
 *
 *  - An id is a slot (0 .. TRACE_SYS_MAX - 1) and the slot's generation:
 *    1 + slot + TRACE_SYS_MAX * generation.  A slot's generation goes up
 *    each time its trace is removed, so the id of a trace that was shut down or
 *    closed is not the id of the next trace in its slot: it stays invalid
 *    (EINVAL) until the generation wraps, after INT_MAX / TRACE_SYS_MAX
 *    traces in that slot.
 *  - posix_trace_create(3p): a stream's id "is valid only in the process
 *    that made the function call.  If it is used from another process,
 *    that is a child process, in functions defined in POSIX.1-2017, these
 *    functions shall return with the error [EINVAL]."  The child of a
 *    fork() starts with an empty table (pt_table_fork_child()): every id
 *    its parent had, of a stream or of a log, is EINVAL there, and the
 *    child never touches its parent's traces: their locks may have been
 *    held by threads the child does not have, their sessions are the
 *    parent's.  It only closes its copies of the files that tie them to
 *    the module (pt_trace_forget()), so that a child that lives on does
 *    not keep its parent's streams open.
 *
 * Locking: pt_table_lock, then a trace's lock.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "posixtrace_priv.h"

#define PT_SLOTS	__TRACEBUF_PT_STREAM_MAX
/* the largest generation of a slot whose ids are still positive ints */
#define PT_GEN_MAX	((INT_MAX - PT_SLOTS) / PT_SLOTS)

static pthread_mutex_t pt_table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pt_trace *pt_table[PT_SLOTS];
static unsigned int pt_table_gen[PT_SLOTS];
static pthread_once_t pt_table_once = PTHREAD_ONCE_INIT;

/*
 * In a child of fork(): close the child's copies of the files through
 * which @t, its parent's, talks to the module and to its thread.  The
 * rest of @t (memory, its buffers' mappings, a log's bytes) is left as it
 * is: the child never uses it.
 */
static void pt_trace_forget(struct pt_trace *t)
{
	if (t->kind != PT_KIND_STREAM)
		return;
	if (t->session)
		close(tracebuf_session_fd(t->session));
	pt_stream_close_files(t);
}

/*
 * A fork of a stream's keeper (pt_table_keeper_fork()): its thread holds
 * the stream's lock, so it must not take pt_table_lock (the locking
 * order), and the keeper keeps the stream's files (it closes the others).
 */
static _Thread_local bool pt_keeper_forking;

void pt_table_keeper_fork(bool on)
{
	pt_keeper_forking = on;
}

static void pt_table_fork_prepare(void)
{
	if (!pt_keeper_forking)
		pthread_mutex_lock(&pt_table_lock);
}

static void pt_table_fork_parent(void)
{
	if (!pt_keeper_forking)
		pthread_mutex_unlock(&pt_table_lock);
}

/*
 * The child's only thread is the one that forked, which holds
 * pt_table_lock (pt_table_fork_prepare()); the traces are its parent's.
 * Only async-signal-safe calls here: close().
 */
static void pt_table_fork_child(void)
{
	if (pt_keeper_forking)
		return;
	for (unsigned int i = 0; i < PT_SLOTS; i++) {
		if (pt_table[i])
			pt_trace_forget(pt_table[i]);
		pt_table[i] = NULL;
	}
	pthread_mutex_unlock(&pt_table_lock);
}

static void pt_table_init(void)
{
	pthread_atfork(pt_table_fork_prepare, pt_table_fork_parent, pt_table_fork_child);
}

struct pt_trace *pt_trace_new(int kind)
{
	struct pt_trace *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->kind = kind;
	t->wake_fd = -1;
	t->out_fd = -1;
	t->snap_fd = -1;
	t->log_fd = -1;
	t->keeper_fd = -1;
	t->log_start = -1;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	pthread_mutex_lock(&t->lock);
	return t;
}

void pt_trace_free(struct pt_trace *t)
{
	for (unsigned int i = 0; i <= PT_EVENT_ID_MAX; i++)
		free(t->names[i]);
	free(t->units);
	free(t->events);
	free(t->buf);
	pthread_mutex_unlock(&t->lock);
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

int pt_trace_add(struct pt_trace *t, trace_id_t *trid)
{
	int ret = EAGAIN;

	pthread_once(&pt_table_once, pt_table_init);
	pthread_mutex_lock(&pt_table_lock);
	for (unsigned int i = 0; i < PT_SLOTS; i++) {
		if (!pt_table[i]) {
			pt_table[i] = t;
			*trid = (trace_id_t)(1 + i + PT_SLOTS * pt_table_gen[i]);
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&pt_table_lock);
	return ret;
}

/* pt_table_lock held: trace @trid of @kind (0: either), or NULL. */
static struct pt_trace *pt_trace_lookup_locked(trace_id_t trid, int kind)
{
	unsigned int slot, gen;
	struct pt_trace *t;

	if (trid < 1)
		return NULL;
	slot = (unsigned int)(trid - 1) % PT_SLOTS;
	gen = (unsigned int)(trid - 1) / PT_SLOTS;
	t = pt_table[slot];
	if (!t || pt_table_gen[slot] != gen || (kind && t->kind != kind))
		return NULL;
	return t;
}

struct pt_trace *pt_trace_get(trace_id_t trid, int kind)
{
	struct pt_trace *t;

	pthread_mutex_lock(&pt_table_lock);
	t = pt_trace_lookup_locked(trid, kind);
	if (t)
		pthread_mutex_lock(&t->lock);
	pthread_mutex_unlock(&pt_table_lock);
	return t;
}

void pt_trace_put(struct pt_trace *t)
{
	if (t->put_hook)
		t->put_hook(t);
	pthread_mutex_unlock(&t->lock);
}

struct pt_trace *pt_trace_remove(trace_id_t trid, int kind)
{
	struct pt_trace *t;

	pthread_mutex_lock(&pt_table_lock);
	t = pt_trace_lookup_locked(trid, kind);
	if (t) {
		unsigned int slot = (unsigned int)(trid - 1) % PT_SLOTS;

		pt_table[slot] = NULL;
		/* the next trace in the slot has another id */
		pt_table_gen[slot] = pt_table_gen[slot] < PT_GEN_MAX ? pt_table_gen[slot] + 1 : 0;
		pthread_mutex_lock(&t->lock);
	}
	pthread_mutex_unlock(&pt_table_lock);
	return t;
}

unsigned int pt_trace_ids(int kind, trace_id_t *ids)
{
	unsigned int n = 0;

	pthread_mutex_lock(&pt_table_lock);
	for (unsigned int i = 0; i < PT_SLOTS; i++)
		if (pt_table[i] && (!kind || pt_table[i]->kind == kind))
			ids[n++] = (trace_id_t)(1 + i + PT_SLOTS * pt_table_gen[i]);
	pthread_mutex_unlock(&pt_table_lock);
	return n;
}
