// SPDX-License-Identifier: MIT
/*
 * libtracebuf: the manager side (tracebuf_manager.h).  The session is
 * Fuchsia's TraceSession and Tracee (fuchsia-design-notes.md section 3.2,
 * 3.3) over /dev/tracebuf, and its buffer read-out (section 1.6), with the
 * newer manager's fixes: the earlier rolling buffer is not written twice,
 * and a provider's name goes in its provider info record.
 *
 * Provider buffers are mapped read-only.  A provider can still change
 * them at any time, so each chunk is copied out first and only the copy
 * is checked and written (tb_emit), and the header is read once per
 * read-out into a local copy and checked against the layout the manager
 * computes itself (tb_snapshot).
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

#include "internal.h"
#include "layout.h"
#include "syscall.h"

struct tracebuf_manager {
	int fd;
	uint32_t id;
	struct tracebuf_version_args ver;
};

/* ------------------------------------------------------------------------ */
/* The manager file                                                         */

TRACEBUF_API int tracebuf_manager_open(const char *device, uint32_t flags,
				       struct tracebuf_manager **out)
{
	struct tracebuf_manager *m;
	uint32_t aflags = 0;
	int ret;

	if (flags & ~TRACEBUF_LIB_MANAGER_WATCH || !out)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->fd = tracebuf_sys_open(device);
	if (m->fd < 0) {
		ret = m->fd;
		goto out_free;
	}
	ret = tracebuf_sys_version(m->fd, &m->ver);
	if (ret)
		goto out_close;
	if (m->ver.abi_major != TRACEBUF_ABI_MAJOR) {
		ret = -EPROTONOSUPPORT;
		goto out_close;
	}
	if (flags & TRACEBUF_LIB_MANAGER_WATCH &&
	    m->ver.features & TRACEBUF_FEAT_WATCH)
		aflags |= TRACEBUF_ATTACH_F_WATCH;
	ret = tracebuf_sys_attach(m->fd, aflags, &m->id);
	if (ret)
		goto out_close;
	*out = m;
	return 0;

out_close:
	close(m->fd);
out_free:
	free(m);
	return ret;
}

TRACEBUF_API int tracebuf_manager_fd(const struct tracebuf_manager *m)
{
	return m->fd;
}

TRACEBUF_API const struct tracebuf_version_args *
tracebuf_manager_version(const struct tracebuf_manager *m)
{
	return &m->ver;
}

TRACEBUF_API int tracebuf_manager_list(struct tracebuf_manager *m,
				       struct tracebuf_provider_info **out)
{
	struct tracebuf_provider_info *list = NULL, *n;
	uint32_t count = 0, total = 0, got, start = 1;
	int ret;

	*out = NULL;
	for (;;) {
		uint32_t room = total > count ? total - count : 16;

		n = realloc(list, (count + room) * sizeof(*list));
		if (!n) {
			ret = -ENOMEM;
			goto out_free;
		}
		list = n;
		ret = tracebuf_sys_list(m->fd, start, list + count, room, &got, &total);
		if (ret)
			goto out_free;
		count += got;
		/* total counts the providers from start on */
		total += count - got;
		if (!got || count >= total)
			break;
		start = list[count - 1].id + 1;
	}
	for (uint32_t i = 0; i < count; i++)
		list[i].name[sizeof(list[i].name) - 1] = 0;
	if (!count) {
		free(list);
		list = NULL;
	}
	*out = list;
	return (int)count;

out_free:
	free(list);
	return ret;
}

TRACEBUF_API int tracebuf_manager_categories(struct tracebuf_manager *m,
					     uint32_t id, char **blob,
					     uint32_t *size, uint32_t *count)
{
	uint32_t room = 0;
	char *buf = NULL, *n;
	int ret;

	while ((ret = tracebuf_sys_get_known(m->fd, id, buf, &room, count)) == -ENOSPC) {
		n = realloc(buf, room);
		if (!n) {
			ret = -ENOMEM;
			break;
		}
		buf = n;
	}
	if (ret || !room) {
		free(buf);
		buf = NULL;
		if (!ret)
			*count = 0;
	}
	if (ret)
		return ret;
	*blob = buf;
	*size = room;
	return 0;
}

TRACEBUF_API void tracebuf_manager_close(struct tracebuf_manager *m)
{
	if (!m)
		return;
	close(m->fd);
	free(m);
}

/* ------------------------------------------------------------------------ */
/* Session state                                                            */

enum tb_session_state {
	TB_S_READY, TB_S_STARTING, TB_S_STARTED, TB_S_STOPPING, TB_S_STOPPED,
	TB_S_TERMINATING, TB_S_TERMINATED,
};

struct tb_tracee {
	struct tb_tracee *next;
	struct tracebuf_session_provider info;	/* what the caller sees */
	int buffer_fd;
	const uint8_t *map;
	struct tb_layout lay;
	char *cats;				/* INITIALIZE's categories */
	uint32_t cats_size, cats_count;
	bool was_started;			/* since the last read-out */
	bool results_written;
	bool info_written;			/* provider info record out */
	bool saved_any;				/* streaming, since a clear */
	uint32_t last_saved_wrap;
	uint64_t durable_written;		/* durable bytes in the file */
	uint64_t dropped_reported;
};

struct tb_out {
	int fd;
	uint8_t *buf;
	size_t len, cap;
	int err;
	uint64_t bytes;
};

struct tracebuf_session {
	struct tracebuf_manager *m;
	enum tb_session_state state;
	struct tracebuf_session_config cfg;
	uint32_t start_timeout_ms, stop_timeout_ms;
	struct tb_tracee *tracees;
	size_t ntracees;
	char *cats;				/* the session's categories */
	uint32_t cats_size, cats_count;
	char *extra;				/* the latest start's additional */
	uint32_t extra_size, extra_count;
	char *names;				/* cfg.providers, for the kernel */
	uint32_t names_size, names_count;
	bool *cat_known;			/* per session category */
	uint32_t cats_unknown;			/* how many are not (yet) */
	bool write_results;			/* of the stop under way */
	bool results_written;			/* by any read-out so far */
	struct tb_out out;
	uint8_t *scratch;			/* a chunk copied out of a buffer */
	size_t scratch_cap;
};

static void tb_note(struct tracebuf_session *s, uint32_t type,
		    const struct tb_tracee *t, int error, const char *what,
		    const char *alert)
{
	struct tracebuf_session_note n = {
		.type = type, .error = error, .what = what, .alert = alert,
	};

	if (!s->cfg.notify)
		return;
	if (t) {
		n.provider_id = t->info.id;
		n.provider_name = t->info.name;
	}
	s->cfg.notify(s->cfg.arg, &n);
}

static int64_t tb_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------------------ */
/* Output                                                                   */

static int tb_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!n)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int tb_out_flush(struct tb_out *o)
{
	int ret;

	if (o->err)
		return o->err;
	ret = tb_write_all(o->fd, o->buf, o->len);
	if (ret)
		o->err = ret;
	o->len = 0;
	return ret;
}

static int tb_out_write(struct tb_out *o, const void *buf, size_t len)
{
	if (o->err)
		return o->err;
	if (o->len + len > o->cap) {
		if (tb_out_flush(o))
			return o->err;
		if (len > o->cap) {
			int ret = tb_write_all(o->fd, buf, len);

			if (ret)
				o->err = ret;
			else
				o->bytes += len;
			return ret;
		}
	}
	memcpy(o->buf + o->len, buf, len);
	o->len += len;
	o->bytes += len;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Reading a provider's buffer                                              */

/*
 * A local copy of the header, and whether its fields agree with what the
 * kernel wrote and with each other.  A provider that died mid-way never
 * wrote the final values: then only the layout is used.
 */
static bool tb_snapshot(const struct tb_tracee *t, struct tracebuf_buffer_header *h)
{
	const struct tb_layout *l = &t->lay;
	const struct tracebuf_buffer_header *live = (const void *)t->map;
	uint64_t mark;

	if (!live) {
		memset(h, 0, sizeof(*h));
		return false;
	}
	/*
	 * stop_mark first, with acquire: the provider stores it last, with
	 * release, so data ends read after it are the final ones it vouches
	 * for (a provider that stopped without telling us, or one that does
	 * not answer while we terminate it).  The fence orders the header's
	 * loads before the loads of the data they describe.
	 */
	mark = __atomic_load_n(&live->stop_mark, __ATOMIC_ACQUIRE);
	memcpy(h, live, sizeof(*h));
	h->stop_mark = mark;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return h->magic == TRACEBUF_HEADER_MAGIC &&
	       h->version == TRACEBUF_HEADER_VERSION &&
	       h->buffering_mode == tracebuf_layout_header_mode(t->info.mode) &&
	       h->total_size == t->info.buffer_size &&
	       h->durable_buffer_size == l->durable_size &&
	       h->rolling_buffer_size == l->rolling_size &&
	       h->durable_data_end <= l->durable_size &&
	       h->durable_data_end % 8 == 0 &&
	       h->rolling_data_end[0] <= l->rolling_size &&
	       h->rolling_data_end[0] % 8 == 0 &&
	       h->rolling_data_end[1] <= l->rolling_size &&
	       h->rolling_data_end[1] % 8 == 0;
}

/*
 * Cut a copied chunk to whole, plausible records, in place: zero words
 * (the unwritten tail of a crashed writer's chunk) are skipped, metadata
 * records (a provider must not write them) removed, and the chunk ends at
 * the first record that runs past it.  Returns the bytes kept.
 */
static size_t tb_sanitize(uint8_t *buf, size_t len, uint64_t *rejected)
{
	size_t off = 0, out = 0;

	len &= ~(size_t)7;
	while (off < len) {
		uint64_t h, words;
		unsigned int type;

		memcpy(&h, buf + off, 8);
		h = tracebuf_fxt_le64(h);
		if (!h) {
			off += 8;
			*rejected += 8;
			continue;
		}
		type = (unsigned int)(h & 15);
		words = tracebuf_fxt_record_words(h);
		if (!words || words > (len - off) / 8)
			break;
		if (type == TRACEBUF_LIB_FXT_RECORD_METADATA) {
			*rejected += words * 8;
		} else {
			if (out != off)
				memmove(buf + out, buf + off, (size_t)words * 8);
			out += (size_t)words * 8;
		}
		off += (size_t)words * 8;
	}
	*rejected += len - off;
	return out;
}

/*
 * Keep only the records of a sanitized chunk that decode: a record whose
 * contents do not (a bad string ref, an argument running past the record,
 * an unknown type field...) is removed, so that the file stays readable
 * after it, for this provider and every other.  Returns the bytes kept.
 */
static void tb_category_seen(struct tracebuf_session *s, const char *cat, size_t len);

static size_t tb_validate(struct tracebuf_session *s, uint8_t *buf, size_t len,
			  uint64_t *rejected, uint32_t *drop_windows)
{
	struct tracebuf_reader_record rec;
	size_t off = 0, out = 0;

	while (off < len) {
		struct tracebuf_reader *r;
		size_t good = 0;
		uint64_t h;
		int ret;

		if (tracebuf_reader_open_mem(buf + off, len - off, 0, &r)) {
			*rejected += len - off;	/* no memory to check it */
			break;
		}
		while ((ret = tracebuf_reader_next(r, &rec)) == 1) {
			good = rec.offset + rec.size;
			if (s->cats_unknown && rec.type == TRACEBUF_LIB_FXT_RECORD_EVENT)
				tb_category_seen(s, rec.event.category.data,
						 rec.event.category.len);
			/* the engine's drop windows (event.c) */
			if (rec.type == TRACEBUF_LIB_FXT_RECORD_EVENT &&
			    rec.event.type == TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE &&
			    rec.event.category.len == TRACEBUF_LIB_META_CATEGORY_LEN &&
			    !memcmp(rec.event.category.data, TRACEBUF_LIB_META_CATEGORY,
				    TRACEBUF_LIB_META_CATEGORY_LEN))
				(*drop_windows)++;
		}
		tracebuf_reader_close(r);
		if (out != off && good)
			memmove(buf + out, buf + off, good);
		out += good;
		off += good;
		if (!ret || off >= len)
			break;
		/* skip the bad record: tb_sanitize() vouched for its size */
		memcpy(&h, buf + off, 8);
		h = tracebuf_fxt_le64(h);
		h = tracebuf_fxt_record_words(h) * 8;
		if (!h || h > len - off)
			h = len - off;
		*rejected += h;
		off += (size_t)h;
	}
	return out;
}

/* The provider info record the first time, a section record after. */
static int tb_emit_section(struct tracebuf_session *s, struct tb_tracee *t)
{
	uint64_t rec[1 + (TRACEBUF_NAME_MAX + 8) / 8];
	size_t name_len = strlen(t->info.name);
	int n;

	if (!t->info_written)
		n = tracebuf_fxt_provider_info_write(rec, sizeof(rec), t->info.id,
						     t->info.name, name_len);
	else
		n = tracebuf_fxt_provider_section_write(rec, sizeof(rec), t->info.id);
	if (n < 0)
		return n;
	t->info_written = true;
	return tb_out_write(&s->out, rec, (size_t)n);
}

static void tb_emit_dropped(struct tracebuf_session *s, struct tb_tracee *t,
			    uint64_t dropped)
{
	uint64_t rec;

	t->info.records_dropped = dropped;
	if (dropped <= t->dropped_reported)
		return;
	t->dropped_reported = dropped;
	if (tracebuf_fxt_provider_event_write(&rec, sizeof(rec), t->info.id,
					      TRACEBUF_LIB_FXT_PROVIDER_EVENT_BUFFER_OVERFLOW) > 0)
		tb_out_write(&s->out, &rec, sizeof(rec));
}

/* Copy [off, off + len) of t's buffer out, keep its whole records, write. */
static int tb_emit(struct tracebuf_session *s, struct tb_tracee *t,
		   uint64_t off, uint64_t len)
{
	size_t kept;

	if (!len)
		return 0;
	if (off > t->info.buffer_size || len > t->info.buffer_size - off)
		return -EINVAL;		/* a bug here, not the provider's */
	if (len > s->scratch_cap) {
		uint8_t *n = realloc(s->scratch, (size_t)len);

		if (!n)
			return -ENOMEM;
		s->scratch = n;
		s->scratch_cap = (size_t)len;
	}
	memcpy(s->scratch, t->map + off, (size_t)len);
	kept = tb_sanitize(s->scratch, (size_t)len, &t->info.bytes_rejected);
	kept = tb_validate(s, s->scratch, kept, &t->info.bytes_rejected,
			   &t->info.drop_windows);
	t->info.bytes_written += kept;
	return tb_out_write(&s->out, s->scratch, kept);
}

/*
 * Write everything of @t not written yet (a stop, a termination or a
 * death; notes section 1.6).  @final: the provider sent STOPPED, so the
 * header's data ends are final; otherwise (it died, or never answered)
 * the buffer is walked record by record.
 */
static void tb_read_out(struct tracebuf_session *s, struct tb_tracee *t, bool final)
{
	struct tracebuf_buffer_header h;
	const struct tb_layout *l = &t->lay;
	bool ok = tb_snapshot(t, &h);
	uint32_t mode = t->info.mode;
	uint64_t dend;
	int ret;

	if (!t->map || t->results_written)
		return;
	t->results_written = true;
	s->results_written = true;
	/* gone without STOPPED, but it stopped writing first (it exited) */
	if (!final && ok && h.stop_mark == TRACEBUF_HEADER_STOP_MARK)
		final = true;
	if (!ok && final)
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -EINVAL,
			"its buffer header does not check out: reading records", NULL);
	if (!ok || !final) {
		final = false;
		t->info.crashed = t->info.state == TRACEBUF_LIB_TRACEE_GONE;
	}
	ret = tb_emit_section(s, t);
	if (ok)
		tb_emit_dropped(s, t, h.num_records_dropped);

	if (mode == TRACEBUF_MODE_ONESHOT) {
		/* its durable records lead the one rolling buffer */
		tb_emit(s, t, l->rolling_off[0], final ? h.rolling_data_end[0] :
							 l->rolling_size);
		goto out;
	}

	/* the durable records not written yet */
	dend = final && h.durable_data_end >= t->durable_written ?
	       h.durable_data_end : l->durable_size;
	if (dend > t->durable_written)
		tb_emit(s, t, l->durable_off + t->durable_written,
			dend - t->durable_written);
	if (final)
		t->durable_written = dend;

	if (mode == TRACEBUF_MODE_CIRCULAR) {
		if (!final) {
			/* no telling which half is older: both, 0 first */
			tb_emit(s, t, l->rolling_off[0], l->rolling_size);
			tb_emit(s, t, l->rolling_off[1], l->rolling_size);
			goto out;
		}
		if (h.wrapped_count > 0) {
			uint32_t e = (h.wrapped_count - 1) & 1;

			tb_emit(s, t, l->rolling_off[e], h.rolling_data_end[e]);
		}
		tb_emit(s, t, l->rolling_off[h.wrapped_count & 1],
			h.rolling_data_end[h.wrapped_count & 1]);
		goto out;
	}

	/*
	 * Streaming: the halves after the last one saved.  A half is zeroed
	 * by the provider when its save is acknowledged, so walking one
	 * never finds records already written.
	 */
	{
		uint32_t next = t->saved_any ? t->last_saved_wrap + 1 : 0;

		if (!final) {
			/*
			 * The half after the last one saved, then the one
			 * saved last, but only if the provider took the save's
			 * acknowledgement (zeroed it, then cleared its end).
			 */
			tb_emit(s, t, l->rolling_off[next & 1], l->rolling_size);
			if (!t->saved_any || h.rolling_data_end[(next + 1) & 1] == 0)
				tb_emit(s, t, l->rolling_off[(next + 1) & 1],
					l->rolling_size);
			goto out;
		}
		if (h.wrapped_count < next || h.wrapped_count - next > 1) {
			tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -EINVAL,
				"its final wrapped count does not follow its saves", NULL);
			goto out;
		}
		for (uint32_t w = next; w <= h.wrapped_count; w++)
			tb_emit(s, t, l->rolling_off[w & 1], h.rolling_data_end[w & 1]);
	}
out:
	if (ret || s->out.err)
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, s->out.err ? s->out.err : ret,
			"writing its data failed", NULL);
}

/* ------------------------------------------------------------------------ */
/* Which of the session's categories some provider knows                   */

/* Does the pattern @want (exact, or a prefix ending in '*') match @cat? */
static bool tb_category_matches(const char *want, const char *cat, size_t len)
{
	size_t wlen = strlen(want);

	if (wlen && want[wlen - 1] == '*')
		return len >= wlen - 1 && !memcmp(want, cat, wlen - 1);
	return len == wlen && !memcmp(want, cat, len);
}

/* @cat (@len bytes) is known: so is every category of ours it matches. */
static void tb_category_seen(struct tracebuf_session *s, const char *cat, size_t len)
{
	const char *want = s->cats;

	for (uint32_t i = 0; i < s->cats_count; i++, want += strlen(want) + 1) {
		if (s->cat_known[i] || !tb_category_matches(want, cat, len))
			continue;
		s->cat_known[i] = true;
		s->cats_unknown--;
	}
}

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

/* What the header of @t's buffer says now: hints for display. */
static void tb_live_counts(const struct tb_tracee *t, struct tracebuf_session_provider *p)
{
	const struct tracebuf_buffer_header *h = (const void *)t->map;
	uint64_t dropped;

	if (!h)
		return;
	p->bytes_recorded = __atomic_load_n(&h->bytes_recorded, __ATOMIC_RELAXED);
	dropped = __atomic_load_n(&h->num_records_dropped, __ATOMIC_RELAXED);
	if (dropped > p->records_dropped)
		p->records_dropped = dropped;
}

static void tb_release_buffer(struct tb_tracee *t)
{
	tb_live_counts(t, &t->info);
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
	if (!s->cfg.nproviders)
		return true;
	for (size_t i = 0; i < s->cfg.nproviders; i++)
		if (s->cfg.providers[i] && !strcmp(s->cfg.providers[i], name))
			return true;
	return false;
}

static void tb_fail(struct tracebuf_session *s, struct tb_tracee *t, int err,
		    const char *what)
{
	t->info.state = TRACEBUF_LIB_TRACEE_FAILED;
	t->info.error = err;
	tb_release_buffer(t);
	tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, err, what, NULL);
}

static int tb_start_one(struct tracebuf_session *s, struct tb_tracee *t,
			uint32_t disposition)
{
	int ret = tracebuf_sys_start(s->m->fd, t->info.id, disposition,
				     s->extra, s->extra_size, s->extra_count);

	if (ret) {
		t->info.error = ret;
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, ret, "start refused", NULL);
		return ret;
	}
	if (disposition == TRACEBUF_START_CLEAR_ENTIRE) {
		t->durable_written = 0;
		t->dropped_reported = 0;
	}
	if (disposition != TRACEBUF_START_RETAIN)
		t->saved_any = false;
	t->results_written = false;
	t->was_started = true;
	t->info.state = TRACEBUF_LIB_TRACEE_STARTING;
	return 0;
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
	if (t && t->info.state != TRACEBUF_LIB_TRACEE_BUSY)
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
	ret = tracebuf_sys_initialize(s->m->fd, t->info.id, size, s->cfg.mode,
				      t->cats, t->cats_size, t->cats_count,
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
		tracebuf_sys_terminate(s->m->fd, t->info.id);
		tb_fail(s, t, ret, "cannot map its buffer");
		return;
	}
	tb_layout_compute(&t->lay, size, s->cfg.mode);
	t->info.state = TRACEBUF_LIB_TRACEE_INITIALIZED;
	/* late joiners start cleared, as in Fuchsia */
	if (s->state == TB_S_STARTING || s->state == TB_S_STARTED)
		tb_start_one(s, t, TRACEBUF_START_CLEAR_ENTIRE);
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
	tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -EPROTO, what, NULL);
	if (tracebuf_sys_terminate(s->m->fd, t->info.id) == 0)
		t->info.state = TRACEBUF_LIB_TRACEE_TERMINATING;
}

/* SAVE_BUFFER: write the half and the new durable records, then ack. */
static void tb_save(struct tracebuf_session *s, struct tb_tracee *t,
		    const struct tracebuf_pkt *pkt)
{
	struct tracebuf_buffer_header h;
	uint32_t wrap = pkt->data32, half = wrap & 1;
	uint64_t dend = pkt->data64;
	struct tracebuf_pkt ack = {
		.request = TRACEBUF_PKT_BUFFER_SAVED, .data32 = wrap, .data64 = dend,
	};
	bool ok = tb_snapshot(t, &h);
	int ret;

	if (!t->map || t->info.mode != TRACEBUF_MODE_STREAMING) {
		tb_refuse(s, t, "a save request outside streaming mode");
		return;
	}
	if (!ok || wrap != (t->saved_any ? t->last_saved_wrap + 1 : 0) ||
	    dend % 8 || dend > t->lay.durable_size || dend < t->durable_written ||
	    h.rolling_data_end[half] == 0) {
		tb_refuse(s, t, "a save request that does not check out");
		return;
	}
	ret = tb_emit_section(s, t);
	tb_emit_dropped(s, t, h.num_records_dropped);
	if (!ret)
		ret = tb_emit(s, t, t->lay.durable_off + t->durable_written,
			      dend - t->durable_written);
	if (!ret)
		ret = tb_emit(s, t, t->lay.rolling_off[half], h.rolling_data_end[half]);
	t->durable_written = dend;
	t->saved_any = true;
	t->last_saved_wrap = wrap;
	t->info.saves++;
	if (ret) {
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, ret, "writing a save failed", NULL);
		return;
	}
	/* the data is copied out: the provider may reuse the half */
	ret = tracebuf_sys_mgr_send(s->m->fd, t->info.id, &ack);
	if (ret)
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, ret, "BUFFER_SAVED refused", NULL);
	else
		tb_note(s, TRACEBUF_LIB_NOTE_SAVED, t, 0, NULL, NULL);
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
		/* started too late: the session moved on (notes 3.3) */
		if (s->state == TB_S_STOPPING || s->state == TB_S_STOPPED) {
			if (!tracebuf_sys_stop(s->m->fd, t->info.id))
				t->info.state = TRACEBUF_LIB_TRACEE_STOPPING;
		}
		break;
	case TRACEBUF_PKT_SAVE_BUFFER:
		tb_save(s, t, pkt);
		break;
	case TRACEBUF_PKT_STOPPED:
		if (t->info.state == TRACEBUF_LIB_TRACEE_STOPPING ||
		    t->info.state == TRACEBUF_LIB_TRACEE_STARTING ||
		    t->info.state == TRACEBUF_LIB_TRACEE_STARTED)
			t->info.state = TRACEBUF_LIB_TRACEE_STOPPED;
		if (t->was_started && (s->write_results ||
				       t->info.state == TRACEBUF_LIB_TRACEE_TERMINATING))
			tb_read_out(s, t, true);
		tb_note(s, TRACEBUF_LIB_NOTE_STOPPED, t, 0, NULL, NULL);
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
			tb_read_out(s, t, false);
		t->info.state = TRACEBUF_LIB_TRACEE_TERMINATED;
		tb_release_buffer(t);
		tb_note(s, TRACEBUF_LIB_NOTE_TERMINATED, t, 0, NULL, NULL);
		break;
	case TRACEBUF_MSG_GONE:
		/* died: harvest what it left (its header is final only if it
		 * had sent STOPPED, and then it was read out already)
		 */
		t->info.state = TRACEBUF_LIB_TRACEE_GONE;
		if (t->was_started)
			tb_read_out(s, t, msg->state == TRACEBUF_STATE_STOPPED);
		tb_release_buffer(t);
		tb_note(s, TRACEBUF_LIB_NOTE_GONE, t, 0, NULL, NULL);
		break;
	default:
		break;
	}
}

/*
 * At most this many reads of messages per dispatch: a provider that saves
 * halves as fast as they are handled must not keep the caller here for
 * ever (its deadlines, signals and child would wait); poll says when more
 * is waiting.
 */
#define TB_DISPATCH_READS	4

TRACEBUF_API int tracebuf_session_dispatch(struct tracebuf_session *s)
{
	struct tracebuf_mgr_msg msgs[32];
	int handled = 0;
	ssize_t n = 0;

	for (int reads = 0; reads < TB_DISPATCH_READS; reads++) {
		n = tracebuf_sys_read_msgs(s->m->fd, msgs, TRACEBUF_ARRAY_SIZE(msgs));
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			tb_on_msg(s, &msgs[i]);
		handled += (int)n;
	}
	if (s->out.err)
		return -EIO;
	return n < 0 && n != -EAGAIN ? (int)n : handled;
}

/* Dispatch until @done says so or @timeout_ms passes; 1 if done. */
static int tb_wait(struct tracebuf_session *s, bool (*done)(struct tracebuf_session *),
		   uint32_t timeout_ms)
{
	struct pollfd pfd = { .fd = s->m->fd, .events = POLLIN };
	int64_t end = tb_now_ms() + timeout_ms;

	for (;;) {
		int64_t left;
		int ret = tracebuf_session_dispatch(s);

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
		if (tb_active(t))
			return false;
	return true;
}

/* ------------------------------------------------------------------------ */
/* The session API                                                          */

TRACEBUF_API int tracebuf_session_create(const struct tracebuf_session_config *cfg,
					 struct tracebuf_session **out)
{
	struct tracebuf_session *s;
	uint64_t magic;
	int ret;

	if (!cfg || !out || cfg->size < sizeof(*cfg) || cfg->flags ||
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
	return s->m->fd;
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
	/* saved data must not be written twice (notes 3.3) */
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
	tracebuf_session_dispatch(s);
	s->state = TB_S_STARTING;
	/* a provider of ours that registers from now on waits for its START */
	tracebuf_sys_set_tracing(s->m->fd, 1, s->names, s->names_size, s->names_count);
	for (struct tb_tracee *t = s->tracees; t; t = t->next)
		if (t->info.state == TRACEBUF_LIB_TRACEE_INITIALIZED ||
		    t->info.state == TRACEBUF_LIB_TRACEE_STOPPED)
			tb_start_one(s, t, disp);
	/* a provider that does not answer does not block the trace */
	ret = tb_wait(s, tb_all_started, s->start_timeout_ms);
	tb_not_started(s);
	s->state = TB_S_STARTED;
	return ret < 0 ? ret : 0;
}

TRACEBUF_API int tracebuf_session_stop(struct tracebuf_session *s, bool write_results)
{
	int ret;

	if (s->state != TB_S_STARTING && s->state != TB_S_STARTED)
		return -EALREADY;
	tracebuf_session_dispatch(s);
	/* late joiners that never answered their start */
	tb_not_started(s);
	s->state = TB_S_STOPPING;
	s->write_results = write_results;
	tracebuf_sys_set_tracing(s->m->fd, 0, NULL, 0, 0);
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		if (t->info.state != TRACEBUF_LIB_TRACEE_STARTING &&
		    t->info.state != TRACEBUF_LIB_TRACEE_STARTED)
			continue;
		if (tracebuf_sys_stop(s->m->fd, t->info.id) == 0)
			t->info.state = TRACEBUF_LIB_TRACEE_STOPPING;
	}
	ret = tb_wait(s, tb_all_stopped, s->stop_timeout_ms);
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		if (t->info.state != TRACEBUF_LIB_TRACEE_STOPPING)
			continue;
		t->info.error = -ETIMEDOUT;
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -ETIMEDOUT,
			"did not stop in time", NULL);
	}
	s->state = TB_S_STOPPED;
	if (s->out.err)
		return s->out.err;
	return ret < 0 ? ret : 0;
}

TRACEBUF_API int tracebuf_session_terminate(struct tracebuf_session *s)
{
	int ret;

	if (s->state == TB_S_TERMINATED)
		return 0;
	tracebuf_session_dispatch(s);
	s->state = TB_S_TERMINATING;
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		if (!tb_active(t) || t->info.state == TRACEBUF_LIB_TRACEE_TERMINATING)
			continue;
		if (tracebuf_sys_terminate(s->m->fd, t->info.id) == 0)
			t->info.state = TRACEBUF_LIB_TRACEE_TERMINATING;
	}
	ret = tb_wait(s, tb_all_terminated, s->stop_timeout_ms);
	/* who did not answer: take what its buffer holds */
	for (struct tb_tracee *t = s->tracees; t; t = t->next) {
		if (!tb_active(t))
			continue;
		t->info.error = -ETIMEDOUT;
		tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, -ETIMEDOUT,
			"did not terminate in time", NULL);
		if (t->was_started)
			tb_read_out(s, t, false);
		t->info.state = TRACEBUF_LIB_TRACEE_TERMINATED;
		tb_release_buffer(t);
	}
	s->state = TB_S_TERMINATED;
	tb_out_flush(&s->out);
	if (s->out.err)
		return s->out.err;
	return ret < 0 ? ret : 0;
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

TRACEBUF_API uint64_t tracebuf_session_bytes(const struct tracebuf_session *s)
{
	return s->out.bytes;
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
	free(s->out.buf);
	free(s);
	return ret;
}
