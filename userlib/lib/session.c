// SPDX-License-Identifier: MIT
/*
 * libtracebuf: the manager's session (tracebuf_manager.h), Fuchsia's
 * TraceSession and Tracee over /dev/tracebuf: it initializes, starts,
 * stops and terminates the providers it traces, takes late joiners,
 * answers their packets (streaming saves among them) and writes the
 * trace file.  What it reads out of their buffers goes through readout.c,
 * the trust boundary.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <tracebuf_fxt.h>
#include <tracebuf_manager.h>
#include <tracebuf_reader.h>

#include "engine_priv.h"
#include "lib_priv.h"
#include "session_priv.h"
#include "syscall_priv.h"

/* ------------------------------------------------------------------------ */
/* Session state                                                            */

static int64_t tb_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------------------ */
/* Which of the session's categories some provider knows                   */

/* The categories @t published, once it started (it publishes before). */
static void tb_categories_published(struct tracebuf_session *s, struct tb_tracee *t)
{
	uint32_t size, count;
	char *blob, *p;

	if (!s->cats_unknown ||
	    tracebuf_manager_categories(s->m, t->info.id, &blob, &size, &count) || !blob)
		return;
	/* name, description, name, description... */
	p = blob;
	for (uint32_t i = 0; i < count && p < blob + size; i++) {
		size_t len = strnlen(p, (size_t)(blob + size - p));

		tb_category_seen(s, p, len);
		p += len + 1;
		p += strnlen(p, (size_t)(blob + size - p)) + 1;
	}
	free(blob);
}

TRACEBUF_API int tracebuf_session_category_known(const struct tracebuf_session *s, size_t i)
{
	if (i >= s->cats_count)
		return -EINVAL;
	return s->cat_known[i];
}

/* ------------------------------------------------------------------------ */
/* Tracees                                                                  */

/*
 * Whether @t's header may say it dropped @dropped records: a drop is an
 * atomic add to one counter, so no provider drops more than one record a
 * nanosecond on each CPU, from when its buffer was mapped (and a second
 * more, for the clocks).  A header is the provider's word; one that
 * claims more lies, and its count is not shown as one.
 */
bool tb_dropped_credible(const struct tb_tracee *t, uint64_t dropped)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t ns = (uint64_t)tb_now_ms() * 1000000u;

	ns = (ns > t->mapped_ns ? ns - t->mapped_ns : 0) + 1000000000u;
	return dropped / (uint64_t)(cpus > 0 ? cpus : 1) <= ns;
}

/* What the header of @t's buffer says now: hints for display. */
static void tb_live_counts(const struct tb_tracee *t, struct tracebuf_session_provider *p)
{
	const struct tracebuf_buffer_header *h = (const void *)t->map;
	uint64_t dropped;

	if (!h)
		return;
	p->bytes_recorded = __atomic_load_n(&h->bytes_recorded, __ATOMIC_RELAXED);
	dropped = __atomic_load_n(&h->num_records_dropped, __ATOMIC_RELAXED);
	if (!tb_dropped_credible(t, dropped))
		p->dropped_doubtful = true;
	if (dropped > p->records_dropped)
		p->records_dropped = dropped;
}

static void tb_release_buffer(struct tb_tracee *t)
{
	tb_live_counts(t, &t->info);
	tb_readout_views_free(t);
	if (t->map) {
		munmap((void *)t->map, (size_t)t->info.buffer_size);
		t->map = NULL;
	}
	if (t->buffer_fd >= 0) {
		close(t->buffer_fd);
		t->buffer_fd = -1;
	}
}

static struct tb_tracee *tb_find(struct tracebuf_session *s, uint32_t id)
{
	for (struct tb_tracee *t = s->tracees; t; t = t->next)
		if (t->info.id == id)
			return t;
	return NULL;
}

static bool tb_active(const struct tb_tracee *t)
{
	return t->info.state >= TRACEBUF_LIB_TRACEE_INITIALIZED &&
	       t->info.state <= TRACEBUF_LIB_TRACEE_TERMINATING;
}

/* Categories as the kernel wants them: NUL-terminated, back to back. */
static int tb_cats_append(char **blob, uint32_t *size, uint32_t *count,
			  const char *const *cats, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = cats[i] ? strlen(cats[i]) : 0;
		char *b;

		if (!len || len > TRACEBUF_CATEGORY_MAX)
			return -EINVAL;
		if (*count >= TRACEBUF_CATEGORIES_MAX)
			return -E2BIG;
		b = realloc(*blob, *size + len + 1);
		if (!b)
			return -ENOMEM;
		memcpy(b + *size, cats[i], len + 1);
		*blob = b;
		*size += (uint32_t)len + 1;
		(*count)++;
	}
	return 0;
}

static const struct tracebuf_session_override *
tb_override(const struct tracebuf_session *s, const char *name)
{
	for (size_t i = 0; i < s->cfg.noverrides; i++)
		if (s->cfg.overrides[i].name && !strcmp(s->cfg.overrides[i].name, name))
			return &s->cfg.overrides[i];
	return NULL;
}

static bool tb_wanted(const struct tracebuf_session *s, const char *name)
{
	if (s->cfg.flags & TRACEBUF_LIB_SESSION_NO_PROVIDERS)
		return false;
	if (!s->cfg.nproviders)
		return true;
	for (size_t i = 0; i < s->cfg.nproviders; i++)
		if (s->cfg.providers[i] && !strcmp(s->cfg.providers[i], name))
			return true;
	return false;
}

/*
 * A kernel provider (pid 0: the module's scheduler provider, or another
 * module's) records what no traced program asked for, so a session takes
 * it only when it is named: with -p, with categories of its own, or when
 * an inclusion of the session's categories (more than "*") names one of
 * the categories it published.
 */
static bool tb_kernel_wanted(struct tracebuf_session *s, const struct tracebuf_provider_info *pi)
{
	uint32_t size = 0, count = 0, off = 0;
	bool named = false;
	char *known = NULL;

	if (pi->pid || s->cfg.nproviders || tb_override(s, (const char *)pi->name))
		return true;
	if (!s->cats_count || tracebuf_manager_categories(s->m, pi->id, &known, &size, &count))
		return false;
	/* name and description pairs */
	for (uint32_t i = 0; i < count && off < size && !named; i++) {
		size_t len = strnlen(known + off, size - off);

		named = tb_categories_name(s, known + off, len);
		off += (uint32_t)len + 1;
		if (off < size)
			off += (uint32_t)strnlen(known + off, size - off) + 1;
	}
	free(known);
	return named;
}

static void tb_fail(struct tracebuf_session *s, struct tb_tracee *t, int err,
		    const char *what)
{
	t->info.state = TRACEBUF_LIB_TRACEE_FAILED;
	t->info.error = err;
	tb_release_buffer(t);
	tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, err, what, NULL);
}

/*
 * Send @t START with @disposition.  @held: a late joiner's START that
 * HOLD_SAVED held (tb_send_saved()); in a copy made by fork() its parent
 * may have sent it already (EALREADY; EBUSY when it was stopped since;
 * ESRCH when it died since, which a stop then finds): started all the
 * same, its STARTED gone to the parent.
 */
static int tb_start_one(struct tracebuf_session *s, struct tb_tracee *t,
			uint32_t disposition, bool held)
{
	int ret = tb_sys_start(tracebuf_manager_fd(s->m), t->info.id, disposition,
			       s->extra, s->extra_size, s->extra_count);
	bool taken = held && (ret == -EALREADY || ret == -EBUSY || ret == -ESRCH);

	if (ret && !taken) {
		t->info.error = ret;
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, ret, "start refused", NULL);
		return ret;
	}
	if (disposition == TRACEBUF_START_CLEAR_ENTIRE) {
		t->durable_written = 0;
		t->dropped_reported = 0;
	}
	if (disposition != TRACEBUF_START_RETAIN) {
		t->saved_any = false;
		t->mark_set = false;
	}
	t->results_written = false;
	t->was_started = true;
	t->stop_sealed = 0;		/* the START unsealed them */
	t->info.state = taken ? TRACEBUF_LIB_TRACEE_STARTED : TRACEBUF_LIB_TRACEE_STARTING;
	return 0;
}

/* Streaming saves sealed where the kernel can: no copy (readout.c). */
static uint32_t tb_init_flags(const struct tracebuf_session *s)
{
	const struct tracebuf_version_args *v = tracebuf_manager_version(s->m);

	return s->cfg.mode == TRACEBUF_MODE_STREAMING &&
	       (v->features & TRACEBUF_FEAT_SEAL_SAVES) ? TRACEBUF_INIT_F_SEAL_SAVES : 0;
}

/*
 * Whether a session of every provider leaves @pi to another manager: one
 * whose trace names it, or, once left (@t), whichever has it now.
 */
static bool tb_left(const struct tracebuf_session *s, const struct tb_tracee *t,
		    const struct tracebuf_provider_info *pi)
{
	if (s->cfg.nproviders)
		return false;
	if (pi->flags & TRACEBUF_INFO_F_NAMED)
		return true;
	return t && t->info.state == TRACEBUF_LIB_TRACEE_LEFT &&
	       (pi->manager_id || pi->state != TRACEBUF_STATE_REGISTERED);
}

/* A provider to trace: initialize it (and start it, if the session runs). */
static void tb_add(struct tracebuf_session *s, const struct tracebuf_provider_info *pi)
{
	const struct tracebuf_session_override *ov;
	struct tb_tracee *t;
	uint64_t size;
	int ret;

	if (!tb_wanted(s, (const char *)pi->name))
		return;
	t = tb_find(s, pi->id);
	if (!t && !tb_kernel_wanted(s, pi))
		return;
	if (t && t->info.state != TRACEBUF_LIB_TRACEE_BUSY &&
	    t->info.state != TRACEBUF_LIB_TRACEE_LEFT)
		return;
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return;
		t->buffer_fd = -1;
		t->info.id = pi->id;
		t->info.pid = pi->pid;
		memcpy(t->info.name, pi->name, sizeof(t->info.name) - 1);
		t->info.mode = s->cfg.mode;
		t->next = s->tracees;
		s->tracees = t;
		s->ntracees++;
	}
	t->info.late = s->state != TB_S_READY;
	/*
	 * A session of every provider leaves one that another manager's trace
	 * asked for by name (module ABI 1.12), as long as another has it.
	 */
	if (tb_left(s, t, pi)) {
		t->info.state = TRACEBUF_LIB_TRACEE_LEFT;
		t->info.error = 0;
		return;
	}
	/* another manager's: say so, and take it if it is let go */
	if (pi->manager_id || pi->state != TRACEBUF_STATE_REGISTERED) {
		if (t->info.state != TRACEBUF_LIB_TRACEE_BUSY) {
			t->info.state = TRACEBUF_LIB_TRACEE_BUSY;
			t->info.error = -EBUSY;
			tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -EBUSY,
				"another manager traces it", NULL);
		}
		return;
	}
	t->info.error = 0;

	ov = tb_override(s, t->info.name);
	size = ov && ov->buffer_size ? ov->buffer_size : s->cfg.buffer_size;
	t->info.buffer_size = size;
	ret = 0;
	if (s->cats_size) {
		t->cats = malloc(s->cats_size);
		if (!t->cats) {
			tb_fail(s, t, -ENOMEM, "out of memory");
			return;
		}
		memcpy(t->cats, s->cats, s->cats_size);
		t->cats_size = s->cats_size;
		t->cats_count = s->cats_count;
	}
	if (ov)
		ret = tb_cats_append(&t->cats, &t->cats_size, &t->cats_count,
				     ov->categories, ov->ncategories);
	if (ret) {
		tb_fail(s, t, ret, "bad categories for it");
		return;
	}
	ret = tb_sys_initialize(tracebuf_manager_fd(s->m), t->info.id, size, s->cfg.mode,
				tb_init_flags(s), t->cats, t->cats_size, t->cats_count,
				&t->buffer_fd);
	if (ret) {
		/* e.g. it registered with another manager meanwhile */
		tb_fail(s, t, ret, "initialize refused");
		return;
	}
	t->map = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, t->buffer_fd, 0);
	if (t->map == MAP_FAILED) {
		t->map = NULL;
		ret = -errno;
		tb_sys_terminate(tracebuf_manager_fd(s->m), t->info.id);
		tb_fail(s, t, ret, "cannot map its buffer");
		return;
	}
	t->mapped_ns = (uint64_t)tb_now_ms() * 1000000u;
	tb_layout_compute(&t->lay, size, s->cfg.mode);
	t->info.state = TRACEBUF_LIB_TRACEE_INITIALIZED;
	/*
	 * late joiners start cleared, as in Fuchsia; with HOLD_SAVED, once
	 * the caller has done its part (tb_send_saved())
	 */
	if (s->state == TB_S_STARTING || s->state == TB_S_STARTED) {
		if (s->holding)
			t->start_held = true;
		else
			tb_start_one(s, t, TRACEBUF_START_CLEAR_ENTIRE, false);
	}
	tb_note(s, TRACEBUF_LIB_NOTE_JOINED, t, 0, NULL, NULL);
}

static int tb_scan(struct tracebuf_session *s)
{
	struct tracebuf_provider_info *list;
	int n = tracebuf_manager_list(s->m, &list);

	if (n < 0)
		return n;
	/* by id: the order they registered in */
	for (int i = 0; i < n; i++)
		tb_add(s, &list[i]);
	free(list);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Messages                                                                 */

static void tb_refuse(struct tracebuf_session *s, struct tb_tracee *t,
		      const char *what)
{
	/* as Fuchsia: a provider that breaks the protocol is terminated */
	tb_tracee_error(s, t, -EPROTO, what);
	if (tb_sys_terminate(tracebuf_manager_fd(s->m), t->info.id) == 0)
		t->info.state = TRACEBUF_LIB_TRACEE_TERMINATING;
}

/* SAVE_BUFFER: write the rolling buffer and the new durable records, then ack. */
static void tb_save(struct tracebuf_session *s, struct tb_tracee *t,
		    const struct tracebuf_pkt *pkt)
{
	struct tracebuf_buffer_header h;
	uint32_t wrap = pkt->data32, rb = wrap & 1;
	uint64_t dend = pkt->data64;
	struct tracebuf_pkt ack = {
		.request = TRACEBUF_PKT_BUFFER_SAVED, .data32 = wrap, .data64 = dend,
	};
	bool ok = tb_readout_snapshot(t, &h);
	int ret;

	if (!t->map || t->info.mode != TRACEBUF_MODE_STREAMING) {
		tb_refuse(s, t, "a save request outside streaming mode");
		return;
	}
	if (!ok || wrap != (t->saved_any ? t->last_saved_wrap + 1 : 0) ||
	    dend % 8 || dend > t->lay.durable_size || dend < t->durable_written ||
	    h.rolling_data_end[rb] == 0) {
		tb_refuse(s, t, "a save request that does not check out");
		return;
	}
	ret = tb_readout_section(s, t);
	tb_readout_dropped(s, t, h.num_records_dropped);
	if (!ret)
		ret = tb_readout_range(s, t, t->lay.durable_off + t->durable_written,
				       dend - t->durable_written);
	if (!ret && pkt->data16 & TRACEBUF_SAVE_SEALED)
		ret = tb_readout_sealed(s, t, rb, h.rolling_data_end[rb]);
	else if (!ret)
		ret = tb_readout_range(s, t, t->lay.rolling_off[rb], h.rolling_data_end[rb]);
	t->durable_written = dend;
	t->saved_any = true;
	t->last_saved_wrap = wrap;
	t->info.saves++;
	if (ret) {
		tb_tracee_error(s, t, ret, "writing a save failed");
		return;
	}
	/*
	 * The data is out, in the file (not in our buffer, which our death
	 * would lose once the rolling buffer is reused): the provider may
	 * reuse the rolling buffer, and one gone meanwhile (ESRCH) lost
	 * nothing.
	 */
	ret = tb_out_flush(&s->out);
	if (ret) {
		tb_tracee_error(s, t, ret, "writing a save failed");
		return;
	}
	if (s->holding) {
		/* sent by tb_send_saved(), once the caller has done its part */
		t->saved_ack = ack;
		t->saved_held = true;
		tb_note(s, TRACEBUF_LIB_NOTE_SAVED, t, 0, NULL, NULL);
		return;
	}
	ret = tb_sys_mgr_send(tracebuf_manager_fd(s->m), t->info.id, &ack);
	if (ret)
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, ret, "BUFFER_SAVED refused", NULL);
	else
		tb_note(s, TRACEBUF_LIB_NOTE_SAVED, t, 0, NULL, NULL);
}

/*
 * HOLD_SAVED: send the START of each late joiner and the BUFFER_SAVED of
 * each save written since the last call, to the providers still active.
 */
static void tb_send_saved(struct tracebuf_session *s)
{
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		bool start = t->start_held, saved = t->saved_held;
		int ret;

		t->start_held = false;
		t->saved_held = false;
		if (!tb_active(t))
			continue;
		if (start)
			tb_start_one(s, t, TRACEBUF_START_CLEAR_ENTIRE, true);
		if (!saved)
			continue;
		ret = tb_sys_mgr_send(tracebuf_manager_fd(s->m), t->info.id, &t->saved_ack);
		if (ret)
			tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, ret, "BUFFER_SAVED refused", NULL);
	}
}

/*
 * A provider that writes a rolling buffer faster than we answer
 * reuses the rolling buffer we copy: asked again this many times in all, it
 * gets its partial snapshot (and an error) only when every copy was torn.
 */
#define TB_SNAP_TRIES	4

/*
 * Ask @t for (another) SNAPSHOT_TAKEN, for the snapshot or the flush
 * under way (never both: each waits for its answers before it returns);
 * a refusal is noted.
 */
static void tb_snap_ask(struct tracebuf_session *s, struct tb_tracee *t)
{
	struct tracebuf_pkt pkt = { .request = TRACEBUF_PKT_SNAPSHOT };
	int ret = tb_sys_mgr_send(tracebuf_manager_fd(s->m), t->info.id, &pkt);

	if (ret)
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, ret, s->flushing ?
			"its flush request was refused" :
			"its snapshot request was refused", NULL);
	/* a flush's part not written */
	if (ret && s->flushing)
		s->flush_failed = true;
	t->snap_pending = !ret;
	t->snap_tries++;
}

/*
 * SNAPSHOT_TAKEN of a flush's save now (streaming): the save that brings
 * the last record @t wrote before it, at most the one after the next;
 * an answer that does not check out is not waited for.
 */
static void tb_flush_taken(struct tracebuf_session *s, struct tb_tracee *t,
			   const struct tracebuf_pkt *pkt)
{
	uint32_t next = t->saved_any ? t->last_saved_wrap + 1 : 0;

	if (pkt->data64 % 8 || pkt->data64 > t->lay.rolling_size || pkt->data32 > next + 1) {
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -EINVAL,
			"its answer to a flush does not check out", NULL);
		s->flush_failed = true;
		return;
	}
	t->flush_wrap = pkt->data32;
	t->flush_upto = pkt->data64 != 0;
	t->flush_saving = true;
}

/*
 * @t died: harvest what it left (its header is final only if it had sent
 * STOPPED, @stopped, and then it was read out already).  @how, @status:
 * MSG_GONE's, how its process ended (0: unknown).
 */
static void tb_gone(struct tracebuf_session *s, struct tb_tracee *t, bool stopped,
		    uint16_t how, uint32_t status)
{
	t->info.state = TRACEBUF_LIB_TRACEE_GONE;
	t->gone_how = how;
	t->gone_status = status;
	if (t->was_started)
		tb_readout(s, t, stopped);
	tb_release_buffer(t);
	tb_note(s, TRACEBUF_LIB_NOTE_GONE, t, 0, NULL, NULL);
}

/* SNAPSHOT_TAKEN: @t's part of the snapshot under way, if it asked. */
static void tb_snapshot_taken(struct tracebuf_session *s, struct tb_tracee *t,
			      const struct tracebuf_pkt *pkt)
{
	int ret;

	if ((!s->snap && !s->flushing) || !t->snap_pending || !t->map)
		return;		/* late: the snapshot or flush is over */
	t->snap_pending = false;
	if (s->flushing) {
		if (t->info.mode == TRACEBUF_MODE_STREAMING) {
			tb_flush_taken(s, t, pkt);
			return;
		}
		ret = tb_readout_flushed(s, t, pkt->data32, pkt->data64,
					 t->snap_tries < TB_SNAP_TRIES);
		if (ret == -EAGAIN)
			tb_snap_ask(s, t);
		else if (!ret)	/* not written: a note says why */
			s->flush_failed = true;
		return;
	}
	ret = tb_readout_taken(s, t, pkt->data32, pkt->data64,
			       t->snap_tries < TB_SNAP_TRIES);
	if (ret == -EAGAIN)
		tb_snap_ask(s, t);
	else if (ret > 0)
		s->snap->providers++;
}

static void tb_on_packet(struct tracebuf_session *s, struct tb_tracee *t,
			 const struct tracebuf_pkt *pkt)
{
	char alert[TRACEBUF_ALERT_NAME_MAX + 1];

	switch (pkt->request) {
	case TRACEBUF_PKT_STARTED:
		if (t->info.state == TRACEBUF_LIB_TRACEE_STARTING)
			t->info.state = TRACEBUF_LIB_TRACEE_STARTED;
		if (t->info.error == -ETIMEDOUT)
			t->info.error = 0;	/* late, but started */
		tb_categories_published(s, t);
		tb_note(s, TRACEBUF_LIB_NOTE_STARTED, t, 0, NULL, NULL);
		/* late by its own clock: it wrote without us meanwhile */
		if (pkt->data16 & TRACEBUF_STARTED_LATE) {
			t->info.error = -ETIME;
			tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -ETIME,
				"it had stopped waiting for its start: what it recorded "
				"before is missing", NULL);
		}
		/* started too late: the session moved on (Documentation/trace-format.md §3.3) */
		if (s->state == TB_S_STOPPING || s->state == TB_S_STOPPED) {
			if (!tb_sys_stop(tracebuf_manager_fd(s->m), t->info.id))
				t->info.state = TRACEBUF_LIB_TRACEE_STOPPING;
		}
		break;
	case TRACEBUF_PKT_SAVE_BUFFER:
		tb_save(s, t, pkt);
		break;
	case TRACEBUF_PKT_STOPPED:
		/* what the kernel sealed: read out in place (readout.c) */
		t->stop_sealed = pkt->data16 & (TRACEBUF_STOPPED_SEALED0 | TRACEBUF_STOPPED_SEALED1);
		if (t->info.state == TRACEBUF_LIB_TRACEE_STOPPING ||
		    t->info.state == TRACEBUF_LIB_TRACEE_STARTING ||
		    t->info.state == TRACEBUF_LIB_TRACEE_STARTED)
			t->info.state = TRACEBUF_LIB_TRACEE_STOPPED;
		if (t->was_started && (s->write_results ||
				       t->info.state == TRACEBUF_LIB_TRACEE_TERMINATING))
			tb_readout(s, t, true);
		tb_note(s, TRACEBUF_LIB_NOTE_STOPPED, t, 0, NULL, NULL);
		break;
	case TRACEBUF_PKT_SNAPSHOT_TAKEN:
		tb_snapshot_taken(s, t, pkt);
		break;
	case TRACEBUF_PKT_CATEGORIES_APPLIED:
		t->update_pending = false;
		break;
	case TRACEBUF_PKT_ALERT:
		memcpy(alert, (const char *)pkt + 2, TRACEBUF_ALERT_NAME_MAX);
		alert[TRACEBUF_ALERT_NAME_MAX] = 0;
		t->info.alerts++;
		tb_note(s, TRACEBUF_LIB_NOTE_ALERT, t, 0, NULL, alert);
		break;
	default:
		break;		/* the kernel checked it: a newer code */
	}
}

static void tb_on_msg(struct tracebuf_session *s, const struct tracebuf_mgr_msg *msg)
{
	struct tb_tracee *t;

	if (msg->type == TRACEBUF_MSG_REGISTRY) {
		if (s->state <= TB_S_STARTED)
			tb_scan(s);
		return;
	}
	t = tb_find(s, msg->provider_id);
	if (!t || !tb_active(t))
		return;
	switch (msg->type) {
	case TRACEBUF_MSG_PACKET:
		tb_on_packet(s, t, &msg->pkt);
		break;
	case TRACEBUF_MSG_TERMINATED:
		/* released after its STOPPED: its data is out already */
		if (t->was_started)
			tb_readout(s, t, false);
		t->info.state = TRACEBUF_LIB_TRACEE_TERMINATED;
		tb_release_buffer(t);
		tb_note(s, TRACEBUF_LIB_NOTE_TERMINATED, t, 0, NULL, NULL);
		break;
	case TRACEBUF_MSG_GONE:
		/* zero from a module before ABI 1.11: unknown */
		tb_gone(s, t, msg->state == TRACEBUF_STATE_STOPPED, msg->pkt.data16,
			msg->pkt.data32);
		break;
	default:
		break;
	}
}

/*
 * At most this many reads of messages per dispatch: a provider that saves
 * rolling buffers as fast as they are handled must not keep the caller here for
 * ever (its deadlines, signals and child would wait); poll says when more
 * is waiting.
 */
#define TB_DISPATCH_READS	4
#define TB_DISPATCH_BATCH	32	/* messages a read */

static int tb_dispatch(struct tracebuf_session *s)
{
	struct tracebuf_mgr_msg msgs[TB_DISPATCH_BATCH];
	int handled = 0;
	ssize_t n = 0;

	tb_send_saved(s);
	for (int reads = 0; reads < TB_DISPATCH_READS; reads++) {
		n = tb_sys_read_msgs(tracebuf_manager_fd(s->m), msgs, TRACEBUF_ARRAY_SIZE(msgs));
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			tb_on_msg(s, &msgs[i]);
		handled += (int)n;
		/* fewer than asked: that was all, and poll says when more is */
		if (n < (ssize_t)TRACEBUF_ARRAY_SIZE(msgs))
			break;
	}
	if (s->out.err)
		return -EIO;
	return n < 0 && n != -EAGAIN ? (int)n : handled;
}

/*
 * Every message that came before the call, not one dispatch's share: a
 * call that then judges who answered (a stop: who never started) must
 * not judge by part of them.  Bounded, for a session whose providers keep
 * sending as fast as it reads.
 */
static void tb_dispatch_all(struct tracebuf_session *s)
{
	for (int i = 0; i < 64 && tb_dispatch(s) >= TB_DISPATCH_READS * TB_DISPATCH_BATCH; i++)
		;
}

TRACEBUF_API int tracebuf_session_dispatch(struct tracebuf_session *s)
{
	int ret;

	s->holding = s->cfg.flags & TRACEBUF_LIB_SESSION_HOLD_SAVED;
	ret = tb_dispatch(s);
	s->holding = false;
	return ret;
}

TRACEBUF_API int tracebuf_session_send_saved(struct tracebuf_session *s)
{
	if (s->in_notify)
		return -EINVAL;
	tb_send_saved(s);
	return 0;
}

/* Dispatch until @done says so or @timeout_ms passes; 1 if done. */
static int tb_wait(struct tracebuf_session *s, bool (*done)(struct tracebuf_session *),
		   uint32_t timeout_ms)
{
	struct pollfd pfd = { .fd = tracebuf_manager_fd(s->m), .events = POLLIN };
	int64_t end = tb_now_ms() + timeout_ms;

	for (;;) {
		int64_t left;
		int ret = tb_dispatch(s);

		if (ret < 0 && ret != -EIO)
			return ret;
		if (done(s))
			return 1;
		left = end - tb_now_ms();
		if (left <= 0)
			return 0;
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			return -errno;
	}
}

static bool tb_all_started(struct tracebuf_session *s)
{
	for (struct tb_tracee *t = s->tracees; t; t = t->next)
		if (t->info.state == TRACEBUF_LIB_TRACEE_STARTING)
			return false;
	return true;
}

/* Who is still STARTING did not start in time: say so, once. */
static void tb_not_started(struct tracebuf_session *s)
{
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		if (t->info.state != TRACEBUF_LIB_TRACEE_STARTING || t->info.error)
			continue;
		t->info.error = -ETIMEDOUT;
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -ETIMEDOUT,
			"did not start in time", NULL);
	}
}

static bool tb_all_stopped(struct tracebuf_session *s)
{
	for (struct tb_tracee *t = s->tracees; t; t = t->next)
		if (t->info.state == TRACEBUF_LIB_TRACEE_STOPPING)
			return false;
	return true;
}

static bool tb_all_terminated(struct tracebuf_session *s)
{
	for (struct tb_tracee *t = s->tracees; t; t = t->next)
		if (tb_active(t) && !t->unknown)
			return false;
	return true;
}

/*
 * After a stop or a terminate: a provider the kernel no longer knew
 * (t->unknown) died.  Its MSG_GONE, when it was queued to us, came with
 * every message before it; one still active after them all went to
 * another reader of the manager file (the parent of a forked session,
 * tracebuf_session_forked()): it is harvested as that message would
 * have had it, how it ended unknown.
 */
static void tb_gone_unread(struct tracebuf_session *s)
{
	tb_dispatch_all(s);
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		if (t->unknown && tb_active(t))
			tb_gone(s, t, false, 0, 0);
		t->unknown = false;
	}
}

/* ------------------------------------------------------------------------ */
/* The session API                                                          */

TRACEBUF_API int tracebuf_session_create(const struct tracebuf_session_config *cfg,
					 struct tracebuf_session **out)
{
	struct tracebuf_session *s;
	uint64_t magic;
	int ret;

	if (!TB_OPTS_VALID(cfg, struct tracebuf_session_config, device) || !out ||
	    (cfg->flags & ~(TRACEBUF_LIB_SESSION_NO_PROVIDERS | TRACEBUF_LIB_SESSION_HOLD_SAVED)) ||
	    cfg->mode > TRACEBUF_MODE_STREAMING || cfg->output_fd < 0 ||
	    (cfg->buffer_size && tracebuf_buffer_size_check(NULL, cfg->buffer_size) == -EINVAL))
		return -EINVAL;
	for (size_t i = 0; i < cfg->noverrides; i++)
		if (!cfg->overrides[i].name ||
		    (cfg->overrides[i].buffer_size &&
		     tracebuf_buffer_size_check(NULL, cfg->overrides[i].buffer_size) == -EINVAL))
			return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->cfg = *cfg;
	if (!s->cfg.mode)
		s->cfg.mode = TRACEBUF_MODE_ONESHOT;
	if (!s->cfg.buffer_size)
		s->cfg.buffer_size = TRACEBUF_LIB_DEFAULT_BUFFER_SIZE;
	s->start_timeout_ms = cfg->start_timeout_ms ? cfg->start_timeout_ms :
			      TRACEBUF_LIB_START_TIMEOUT_MS;
	s->stop_timeout_ms = cfg->stop_timeout_ms ? cfg->stop_timeout_ms :
			     TRACEBUF_LIB_STOP_TIMEOUT_MS;
	s->out.fd = cfg->output_fd;
	s->out.cap = 1u << 20;
	s->out.buf = malloc(s->out.cap);
	if (!s->out.buf) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = tb_cats_append(&s->cats, &s->cats_size, &s->cats_count,
			     cfg->categories, cfg->ncategories);
	if (!ret)
		ret = tb_cats_append(&s->names, &s->names_size, &s->names_count,
				     cfg->providers, cfg->nproviders);
	if (!ret && s->cats_count) {
		s->cat_known = calloc(s->cats_count, sizeof(*s->cat_known));
		s->cats_unknown = s->cats_count;
		if (!s->cat_known)
			ret = -ENOMEM;
		/* an exclusion excludes whether or not anyone knows it */
		for (uint32_t i = 0, off = 0; !ret && i < s->cats_count; i++) {
			if (s->cats[off] == '-') {
				s->cat_known[i] = true;
				s->cats_unknown--;
			}
			off += (uint32_t)strlen(s->cats + off) + 1;
		}
	}
	if (ret)
		goto out_free;
	for (size_t i = 0; i < cfg->noverrides && !ret; i++) {
		char *b = NULL;
		uint32_t sz = 0, c = 0;

		ret = tb_cats_append(&b, &sz, &c, cfg->overrides[i].categories,
				     cfg->overrides[i].ncategories);
		free(b);
	}
	if (ret)
		goto out_free;
	ret = tracebuf_manager_open(cfg->device, TRACEBUF_LIB_MANAGER_WATCH, &s->m);
	if (ret)
		goto out_free;
	/* what INITIALIZE would refuse, refused here, as it would be */
	ret = tracebuf_buffer_size_check(s->m, s->cfg.buffer_size);
	for (size_t i = 0; i < cfg->noverrides && !ret; i++)
		if (cfg->overrides[i].buffer_size)
			ret = tracebuf_buffer_size_check(s->m, cfg->overrides[i].buffer_size);
	if (ret)
		goto out_close;
	tracebuf_fxt_magic_write(&magic, sizeof(magic));
	ret = tb_out_write(&s->out, &magic, sizeof(magic));
	if (!ret)
		ret = tb_out_flush(&s->out);
	if (ret)
		goto out_close;
	ret = tb_scan(s);
	if (ret)
		goto out_close;
	*out = s;
	return 0;

out_close:
	tracebuf_session_destroy(s);
	return ret;
out_free:
	free(s->cats);
	free(s->cat_known);
	free(s->names);
	free(s->out.buf);
	free(s);
	return ret;
}

TRACEBUF_API int tracebuf_session_fd(const struct tracebuf_session *s)
{
	return tracebuf_manager_fd(s->m);
}

TRACEBUF_API int tracebuf_session_start(struct tracebuf_session *s,
					const struct tracebuf_session_start_args *args)
{
	uint32_t disp = args ? args->disposition : 0;
	int ret;

	if (args && (args->reserved || disp > TRACEBUF_START_RETAIN))
		return -EINVAL;
	if (s->state == TB_S_STARTING || s->state == TB_S_STARTED)
		return -EALREADY;
	if (s->state != TB_S_READY && s->state != TB_S_STOPPED)
		return -EBUSY;
	if (!disp)
		disp = TRACEBUF_START_RETAIN;
	/* saved data must not be written twice (Documentation/trace-format.md §3.3) */
	if (disp == TRACEBUF_START_RETAIN && s->results_written)
		disp = TRACEBUF_START_CLEAR_ENTIRE;
	free(s->extra);
	s->extra = NULL;
	s->extra_size = s->extra_count = 0;
	if (args) {
		ret = tb_cats_append(&s->extra, &s->extra_size, &s->extra_count,
				     args->categories, args->ncategories);
		if (ret)
			return ret;
	}
	/* whoever registered since is traced too */
	tb_dispatch_all(s);
	s->state = TB_S_STARTING;
	/* a provider of ours that registers from now on waits for its START */
	if (!(s->cfg.flags & TRACEBUF_LIB_SESSION_NO_PROVIDERS))
		tb_sys_set_tracing(tracebuf_manager_fd(s->m), 1, s->names, s->names_size,
				   s->names_count);
	for (struct tb_tracee *t = s->tracees; t; t = t->next)
		if (t->info.state == TRACEBUF_LIB_TRACEE_INITIALIZED ||
		    t->info.state == TRACEBUF_LIB_TRACEE_STOPPED)
			tb_start_one(s, t, disp, false);
	/* a provider that does not answer does not block the trace */
	ret = tb_wait(s, tb_all_started, s->start_timeout_ms);
	tb_not_started(s);
	s->state = TB_S_STARTED;
	return ret < 0 ? ret : 0;
}

static bool tb_all_updated(struct tracebuf_session *s)
{
	for (struct tb_tracee *t = s->tracees; t; t = t->next)
		if (t->update_pending && tb_active(t))
			return false;
	return true;
}

TRACEBUF_API int tracebuf_session_update(struct tracebuf_session *s,
					 const struct tracebuf_session_start_args *args)
{
	char *extra = NULL;
	uint32_t size = 0, count = 0;
	int ret;

	if (!args || args->reserved || args->disposition || s->in_notify || s->snap)
		return -EINVAL;
	if (!(tracebuf_manager_version(s->m)->features & TRACEBUF_FEAT_UPDATE_CATEGORIES))
		return -EOPNOTSUPP;
	if (s->state != TB_S_STARTED)
		return -EINVAL;
	ret = tb_cats_append(&extra, &size, &count, args->categories, args->ncategories);
	if (ret) {
		free(extra);
		return ret;
	}
	/* what a provider starting later is started with, too */
	free(s->extra);
	s->extra = extra;
	s->extra_size = size;
	s->extra_count = count;
	/* a provider still starting takes the list when it is started */
	tb_dispatch_all(s);
	tb_wait(s, tb_all_started, s->start_timeout_ms);
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		if (t->info.state != TRACEBUF_LIB_TRACEE_STARTED)
			continue;
		ret = tb_sys_update(tracebuf_manager_fd(s->m), t->info.id, s->extra,
				    s->extra_size, s->extra_count);
		if (ret)
			tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, ret,
				"its categories update was refused", NULL);
		else
			t->update_pending = true;
	}
	ret = tb_wait(s, tb_all_updated, s->start_timeout_ms);
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		if (!t->update_pending)
			continue;
		t->update_pending = false;
		if (tb_active(t))
			tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -ETIMEDOUT,
				"did not apply its categories in time", NULL);
	}
	return ret < 0 ? ret : 0;
}

TRACEBUF_API int tracebuf_session_stop(struct tracebuf_session *s, bool write_results)
{
	int ret;

	if (s->state != TB_S_STARTING && s->state != TB_S_STARTED)
		return -EALREADY;
	tb_dispatch_all(s);
	/* late joiners that never answered their start */
	tb_not_started(s);
	s->state = TB_S_STOPPING;
	s->write_results = write_results;
	tb_sys_set_tracing(tracebuf_manager_fd(s->m), 0, NULL, 0, 0);
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		if (t->info.state != TRACEBUF_LIB_TRACEE_STARTING &&
		    t->info.state != TRACEBUF_LIB_TRACEE_STARTED)
			continue;
		ret = tb_sys_stop(tracebuf_manager_fd(s->m), t->info.id);
		if (ret == 0)
			t->info.state = TRACEBUF_LIB_TRACEE_STOPPING;
		else if (ret == -ESRCH)
			t->unknown = true;
	}
	ret = tb_wait(s, tb_all_stopped, s->stop_timeout_ms);
	tb_gone_unread(s);
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		if (t->info.state != TRACEBUF_LIB_TRACEE_STOPPING)
			continue;
		t->info.error = -ETIMEDOUT;
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -ETIMEDOUT,
			"did not stop in time", NULL);
	}
	s->state = TB_S_STOPPED;
	/* what the stop wrote is in the file when it returns */
	tb_out_flush(&s->out);
	if (s->out.err)
		return s->out.err;
	return ret < 0 ? ret : 0;
}

TRACEBUF_API int tracebuf_session_terminate(struct tracebuf_session *s)
{
	int ret;

	if (s->state == TB_S_TERMINATED)
		return 0;
	tb_dispatch_all(s);
	s->state = TB_S_TERMINATING;
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		if (!tb_active(t) || t->info.state == TRACEBUF_LIB_TRACEE_TERMINATING)
			continue;
		ret = tb_sys_terminate(tracebuf_manager_fd(s->m), t->info.id);
		if (ret == 0)
			t->info.state = TRACEBUF_LIB_TRACEE_TERMINATING;
		else if (ret == -ESRCH)
			t->unknown = true;
	}
	ret = tb_wait(s, tb_all_terminated, s->stop_timeout_ms);
	tb_gone_unread(s);
	/* who did not answer: take what its buffer holds */
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		if (!tb_active(t))
			continue;
		t->info.error = -ETIMEDOUT;
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -ETIMEDOUT,
			"did not terminate in time", NULL);
		if (t->was_started)
			tb_readout(s, t, false);
		t->info.state = TRACEBUF_LIB_TRACEE_TERMINATED;
		tb_release_buffer(t);
	}
	s->state = TB_S_TERMINATED;
	tb_out_flush(&s->out);
	if (s->out.err)
		return s->out.err;
	return ret < 0 ? ret : 0;
}

static bool tb_all_answered(struct tracebuf_session *s)
{
	for (struct tb_tracee *t = s->tracees; t; t = t->next)
		if (t->snap_pending && tb_active(t))
			return false;
	return true;
}

TRACEBUF_API int tracebuf_session_snapshot(struct tracebuf_session *s, int fd,
					   uint64_t *bytes)
{
	struct tb_snap sn = { .out = { .fd = fd, .cap = 1u << 20 } };
	uint64_t magic;
	int ret;

	if (fd < 0 || s->snap || s->in_notify)
		return -EINVAL;
	if (s->cfg.mode == TRACEBUF_MODE_STREAMING)
		return -EOPNOTSUPP;
	if (s->state != TB_S_STARTED)
		return -EINVAL;
	/* SNAPSHOT came with ABI 1.5 */
	if (tracebuf_manager_version(s->m)->abi_minor < 5)
		return -EOPNOTSUPP;
	sn.out.buf = malloc(sn.out.cap);
	if (!sn.out.buf)
		return -ENOMEM;
	tracebuf_fxt_magic_write(&magic, sizeof(magic));
	tb_out_write(&sn.out, &magic, sizeof(magic));
	/* whoever registered or stopped since is known first */
	tb_dispatch_all(s);
	s->snap = &sn;
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		if (t->info.state != TRACEBUF_LIB_TRACEE_STARTED || !t->map)
			continue;
		t->snap_tries = 0;
		tb_snap_ask(s, t);
	}
	ret = tb_wait(s, tb_all_answered, s->start_timeout_ms);
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		if (!t->snap_pending)
			continue;
		t->snap_pending = false;
		if (tb_active(t))
			tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -ETIMEDOUT,
				"did not answer the snapshot in time", NULL);
		else
			tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -ESRCH,
				"ended before its snapshot was taken", NULL);
	}
	s->snap = NULL;
	tb_out_flush(&sn.out);
	free(sn.out.buf);
	if (bytes)
		*bytes = sn.out.bytes;
	if (sn.out.err)
		return sn.out.err;
	return ret < 0 ? ret : sn.providers;
}

/* Has @t's part of the flush been written (or will its end write it)? */
static bool tb_flushed(const struct tb_tracee *t)
{
	if (t->info.state != TRACEBUF_LIB_TRACEE_STARTED)
		return true;	/* its stop or its death writes the rest */
	if (t->snap_pending)
		return false;
	if (!t->flush_saving)
		return true;
	if (t->flush_upto)
		return t->saved_any && t->last_saved_wrap >= t->flush_wrap;
	return !t->flush_wrap || (t->saved_any && t->last_saved_wrap + 1 >= t->flush_wrap);
}

static bool tb_all_flushed(struct tracebuf_session *s)
{
	for (struct tb_tracee *t = s->tracees; t; t = t->next)
		if (!tb_flushed(t))
			return false;
	return true;
}

TRACEBUF_API int tracebuf_session_flush(struct tracebuf_session *s)
{
	const struct tracebuf_version_args *v = tracebuf_manager_version(s->m);
	int ret, n = 0;

	if (s->snap || s->flushing || s->in_notify || s->state != TB_S_STARTED)
		return -EINVAL;
	/* SNAPSHOT came with ABI 1.5, the save now with 1.10 */
	if (s->cfg.mode == TRACEBUF_MODE_STREAMING ?
	    !(v->features & TRACEBUF_FEAT_SAVE_NOW) : v->abi_minor < 5)
		return -EOPNOTSUPP;
	/* whoever registered or stopped since is known first */
	tb_dispatch_all(s);
	s->flushing = true;
	s->flush_failed = false;
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		t->flush_saving = false;
		t->snap_pending = false;
		t->snap_tries = 0;
		if (t->info.state == TRACEBUF_LIB_TRACEE_STARTED && t->map)
			tb_snap_ask(s, t);
	}
	ret = tb_wait(s, tb_all_flushed, s->stop_timeout_ms);
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		if (!tb_flushed(t)) {
			n++;
			tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -ETIMEDOUT,
				"did not flush in time", NULL);
		}
		t->snap_pending = t->flush_saving = false;
	}
	s->flushing = false;
	tb_out_flush(&s->out);
	if (s->out.err)
		return s->out.err;
	if (ret < 0)
		return ret;
	return n ? -ETIMEDOUT : s->flush_failed ? -EIO : 0;
}

TRACEBUF_API int tracebuf_session_providers(const struct tracebuf_session *s,
					    struct tracebuf_session_provider *out,
					    size_t cap)
{
	size_t n = s->ntracees, i = n;

	/* the list is newest first: hand it out oldest first */
	for (const struct tb_tracee *t = s->tracees; t; t = t->next) {
		i--;
		if (i >= cap)
			continue;
		out[i] = t->info;
		tb_live_counts(t, &out[i]);
	}
	return (int)n;
}

TRACEBUF_API int tracebuf_session_provider_end(const struct tracebuf_session *s,
					       uint32_t id, int *wait_status)
{
	const struct tb_tracee *t = s->tracees;
	int how = TRACEBUF_LIB_END_UNKNOWN;

	while (t && t->info.id != id)
		t = t->next;
	if (!t)
		return -ENOENT;
	if (wait_status)
		*wait_status = 0;
	if (t->info.state != TRACEBUF_LIB_TRACEE_GONE)
		return how;
	if (t->gone_how == TRACEBUF_GONE_EXITED) {
		how = TRACEBUF_LIB_END_EXITED;
		if (wait_status)
			*wait_status = (int)(t->gone_status & 0xffff);
	} else if (t->gone_how == TRACEBUF_GONE_CLOSED) {
		how = TRACEBUF_LIB_END_CLOSED;
	}
	return how;
}

/*
 * fork() copies neither the read-only mappings of the buffers nor a
 * sealed save's view of one (VM_DONTCOPY): the child maps each buffer
 * again, wherever there is room (its fork handlers may have mapped
 * something where the parent's mapping was), and drops the views'
 * private pages (a read-out makes them again).
 */
static int tb_map_again(struct tb_tracee *t)
{
	void *p;

	for (unsigned int i = 0; i < 2; i++) {
		if (t->view[i].base)
			munmap(t->view[i].base, t->view[i].len);
		t->view[i].base = NULL;
	}
	if (!t->map)
		return 0;
	p = mmap(NULL, (size_t)t->info.buffer_size, PROT_READ, MAP_SHARED, t->buffer_fd, 0);
	t->map = p == MAP_FAILED ? NULL : p;
	return t->map ? 0 : -errno;
}

TRACEBUF_API int tracebuf_session_forked(struct tracebuf_session *s, int *fds, size_t cap)
{
	size_t n = 0;
	int ret = 0;

	if (s->in_notify || (cap && !fds))
		return -EINVAL;
	if (n++ < cap)
		fds[n - 1] = tracebuf_manager_fd(s->m);
	if (n++ < cap)
		fds[n - 1] = s->out.fd;
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		int err = tb_map_again(t);

		if (err && !ret)
			ret = err;
		if (t->buffer_fd >= 0 && n++ < cap)
			fds[n - 1] = t->buffer_fd;
	}
	return ret ? ret : (int)n;
}

TRACEBUF_API uint64_t tracebuf_session_bytes(const struct tracebuf_session *s)
{
	return s->out.bytes;
}

TRACEBUF_API uint64_t tracebuf_session_ticks(const struct tracebuf_session *s,
					     uint64_t *ticks_per_second)
{
	const struct tracebuf_version_args *ver = tracebuf_manager_version(s->m);
	bool counter = tb_counter_usable(ver);

	if (ticks_per_second)
		*ticks_per_second = counter ? (uint64_t)ver->counter_khz * 1000 : 1000000000ull;
	return counter ? __tracebuf_counter() : __tracebuf_ticks_slow();
}

/*
 * The session's own records are provider 0's (no provider has id 0):
 * each begins with its provider info record the first time in a file, a
 * provider section record after, as a provider's read-out does (§1.6 of
 * userlib/Documentation/trace-format.md), so that nothing in the file
 * comes before a provider record and none is taken for a provider's.
 */
TRACEBUF_API int tracebuf_session_write(struct tracebuf_session *s, const void *records,
					size_t len)
{
	static const char name[] = TRACEBUF_LIB_SESSION_PROVIDER_NAME;
	uint64_t head[1 + (sizeof(name) + 7) / 8 + 2], tps;
	size_t valid;
	int n, init;

	if (!records || !len || len % 8 || (uintptr_t)records % 8)
		return -EINVAL;
	tracebuf_fxt_walk(records, len, &valid);
	if (valid != len)
		return -EINVAL;
	if (!s->own_info_written)
		n = tracebuf_fxt_provider_info_write(head, sizeof(head), 0, name,
						     sizeof(name) - 1);
	else
		n = tracebuf_fxt_provider_section_write(head, sizeof(head), 0);
	tracebuf_session_ticks(s, &tps);
	init = n < 0 ? n : tracebuf_fxt_init_write(head + n / 8, sizeof(head) - (size_t)n, tps);
	if (init < 0)
		return -EINVAL;
	if (tb_out_write(&s->out, head, (size_t)(n + init)) ||
	    tb_out_write(&s->out, records, len))
		return s->out.err;
	s->own_info_written = true;
	/* in the file when it returns, as a stop's records are */
	return tb_out_flush(&s->out);
}

/*
 * A new file that reads alone: each tracee's next read-out (a save in
 * tb_save(), a flush's, or the last one, tb_readout()) writes its
 * provider info record and its durable records again, from the start of
 * its durable buffer.  Its rolling buffers are not affected: those
 * written stay in the file they went to (the rolling buffers after
 * last_saved_wrap, or what came after a flush's mark, come next, as
 * before).
 */
TRACEBUF_API int tracebuf_session_rotate(struct tracebuf_session *s, int fd)
{
	uint64_t magic;
	int ret;

	if (fd < 0 || s->in_notify)
		return -EINVAL;
	/* all that was written so far goes to the current file */
	ret = tb_out_flush(&s->out);
	if (ret)
		return ret;
	s->out.fd = fd;
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		t->info_written = false;
		t->durable_written = 0;
	}
	s->own_info_written = false;
	tracebuf_fxt_magic_write(&magic, sizeof(magic));
	ret = tb_out_write(&s->out, &magic, sizeof(magic));
	if (!ret)
		ret = tb_out_flush(&s->out);
	return ret;
}

TRACEBUF_API int tracebuf_session_destroy(struct tracebuf_session *s)
{
	int ret;

	if (!s)
		return 0;
	if (s->m)
		tracebuf_session_terminate(s);
	tb_out_flush(&s->out);
	ret = s->out.err;
	while (s->tracees) {
		struct tb_tracee *t = s->tracees;

		s->tracees = t->next;
		tb_release_buffer(t);
		free(t->cats);
		free(t);
	}
	/* providers still ours get MANAGER_GONE */
	tracebuf_manager_close(s->m);
	free(s->cats);
	free(s->cat_known);
	free(s->names);
	free(s->extra);
	free(s->scratch);
	free(s->snap_copy);
	free(s->out.buf);
	free(s);
	return ret;
}
