// SPDX-License-Identifier: MIT
/*
 * libposixtrace: trace logs, from the trace analyzer process
 * (posix_trace_open, _close, _rewind, _getnext_event), and the event
 * types of a stream or log (posix_trace_eventid_get_name,
 * posix_trace_eventtypelist_*).
 *
 * A log is an FXT trace: what a stream's session wrote (stream.c), or any
 * trace of tracebuf's that holds POSIX events (e.g. "tracebufctl record"
 * around a program that calls posix_trace_event()).  posix_trace_open()
 * reads it whole with libtracebuf's reader, which checks every record,
 * and keeps its events sorted by timestamp (those of one thread stay in
 * the order they were recorded).  An event is an instant event in a
 * category "posix:NAME" with the arguments target.c writes; other records
 * are skipped (decode.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracebuf_reader.h>

#include "posixtrace_priv.h"

/* ------------------------------------------------------------------------ */
/* Reading a log                                                            */

/* A name of the attributes record, NUL-terminated, cut to TRACE_NAME_MAX - 1. */
static void pt_copy_name(char dst[__TRACEBUF_PT_NAME_MAX], const char *src, size_t size)
{
	size_t len = strnlen(src, size);

	if (len > __TRACEBUF_PT_NAME_MAX - 1)
		len = __TRACEBUF_PT_NAME_MAX - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* The attributes record: what the stream's attributes were. */
static void pt_log_attr_take(struct pt_attr *a, const struct tracebuf_reader_str *payload)
{
	struct pt_log_attr la;

	if (payload->len < sizeof(la))
		return;
	memcpy(&la, payload->data, sizeof(la));
	if (la.version != PT_LOG_ATTR_VERSION)
		return;
	pt_copy_name(a->name, la.name, sizeof(la.name));
	pt_copy_name(a->genversion, la.genversion, sizeof(la.genversion));
	a->create_time.tv_sec = (time_t)la.create_sec;
	a->create_time.tv_nsec = (long)la.create_nsec;
	a->clock_res.tv_sec = (time_t)la.res_sec;
	a->clock_res.tv_nsec = (long)la.res_nsec;
	a->inheritance = (int)la.inheritance;
	a->stream_policy = (int)la.stream_policy;
	a->log_policy = (int)la.log_policy;
	a->stream_size = la.stream_size;
	a->log_size = la.log_size;
	if (la.max_data_size <= PT_MAX_DATA_SIZE_MAX)
		a->max_data_size = la.max_data_size;
}

/* By timestamp; equal ones in the order they were read. */
struct pt_sort {
	struct pt_event ev;
	size_t seq;
};

static int pt_sort_cmp(const void *a, const void *b)
{
	const struct pt_sort *x = a, *y = b;

	if (x->ev.ns != y->ev.ns)
		return x->ev.ns < y->ev.ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int pt_log_read(struct pt_trace *t, const void *buf, size_t len)
{
	struct tracebuf_reader_record r;
	struct tracebuf_reader *rd;
	struct pt_sort *v = NULL;
	size_t n = 0, cap = 0;
	int ret;

	ret = tracebuf_reader_open_mem(buf, len, TRACEBUF_LIB_READER_MAGIC, &rd);
	if (ret)
		return ret == -ENOMEM ? ENOMEM : EINVAL;
	while ((ret = tracebuf_reader_next(rd, &r)) > 0) {
		struct pt_event ev[2];
		int nev;

		if (r.type == TRACEBUF_LIB_FXT_RECORD_BLOB &&
		    pt_str_eq(&r.blob.name, PT_LOG_ATTR_NAME)) {
			pt_log_attr_take(&t->attr, &r.blob.payload);
			continue;
		}
		nev = pt_drop_window_events(t, &r, ev);
		if (!nev && pt_event_take(t, &r, &ev[0]))
			nev = 1;
		for (int i = 0; i < nev; i++) {
			if (n == cap) {
				size_t ncap = cap ? 2 * cap : 1024;
				struct pt_sort *nv = realloc(v, ncap * sizeof(*v));

				if (!nv) {
					ret = -ENOMEM;
					goto out;
				}
				v = nv;
				cap = ncap;
			}
			v[n].ev = ev[i];
			v[n].seq = n;
			n++;
		}
	}
out:
	tracebuf_reader_close(rd);
	if (ret < 0) {
		free(v);
		return ret == -ENOMEM ? ENOMEM : EINVAL;
	}
	if (n)
		qsort(v, n, sizeof(*v), pt_sort_cmp);
	t->events = malloc((n ? n : 1) * sizeof(*t->events));
	if (!t->events) {
		free(v);
		return ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		t->events[i] = v[i].ev;
	t->nevents = n;
	free(v);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* posix_trace_open(3p)                                                     */

POSIXTRACE_API int posix_trace_open(int file_desc, trace_id_t *trid)
{
	struct pt_trace *t;
	trace_id_t id;
	int flags, ret;

	if (!trid)
		return EINVAL;
	flags = fcntl(file_desc, F_GETFL);
	if (flags < 0 || (flags & O_ACCMODE) == O_WRONLY)
		return EBADF;
	t = pt_trace_new(PT_KIND_LOG);
	if (!t)
		return ENOMEM;
	/* a log without an attributes record has the default attributes */
	pt_attr_defaults(&t->attr);
	ret = pt_read_fd(file_desc, 0, &t->buf, &t->buflen);
	if (!ret)
		ret = pt_log_read(t, t->buf, t->buflen);
	if (!ret)
		ret = pt_trace_add(t, &id);
	if (ret) {
		pt_trace_free(t);
		return ret;
	}
	pthread_mutex_unlock(&t->lock);
	*trid = id;
	return 0;
}

POSIXTRACE_API int posix_trace_close(trace_id_t trid)
{
	struct pt_trace *t = pt_trace_remove(trid, PT_KIND_LOG);

	if (!t)
		return EINVAL;
	pt_trace_free(t);
	return 0;
}

POSIXTRACE_API int posix_trace_rewind(trace_id_t trid)
{
	struct pt_trace *t = pt_trace_get(trid, PT_KIND_LOG);

	if (!t)
		return EINVAL;
	t->next = 0;
	pt_trace_put(t);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* posix_trace_getnext_event(3p)                                            */

/*
 * A log, or an active stream without a log (online.c): @wait and
 * @deadline as pt_online_getnext() takes them.
 */
static int pt_getnext(trace_id_t trid, struct posix_trace_event_info *event, void *data,
		      size_t num_bytes, size_t *data_len, int *unavailable,
		      const struct timespec *deadline, bool wait, bool log_ok)
{
	struct pt_trace *t;
	int ret = 0;

	if (!event || !data_len || !unavailable || (num_bytes && !data))
		return EINVAL;
	t = pt_trace_get(trid, 0);
	if (!t)
		return EINVAL;
	if (t->kind == PT_KIND_STREAM) {
		/* a stream with a log is read through its log */
		ret = t->has_log ? EINVAL :
		      pt_online_getnext(t, event, data, num_bytes, data_len, unavailable,
					deadline, wait);
	} else if (!log_ok) {
		ret = EINVAL;
	} else if (t->next < t->nevents) {
		pt_event_report(t, &t->events[t->next++], event, data, num_bytes, data_len);
		*unavailable = 0;
	} else {
		*data_len = 0;
		*unavailable = 1;
	}
	pt_trace_put(t);
	return ret;
}

POSIXTRACE_API int posix_trace_getnext_event(trace_id_t trid,
					     struct posix_trace_event_info *restrict event,
					     void *restrict data, size_t num_bytes,
					     size_t *restrict data_len,
					     int *restrict unavailable)
{
	return pt_getnext(trid, event, data, num_bytes, data_len, unavailable, NULL, true,
			  true);
}

POSIXTRACE_API int posix_trace_timedgetnext_event(trace_id_t trid,
						  struct posix_trace_event_info *restrict event,
						  void *restrict data, size_t num_bytes,
						  size_t *restrict data_len,
						  int *restrict unavailable,
						  const struct timespec *restrict abstime)
{
	if (!abstime || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000)
		return EINVAL;
	return pt_getnext(trid, event, data, num_bytes, data_len, unavailable, abstime, true,
			  false);
}

POSIXTRACE_API int posix_trace_trygetnext_event(trace_id_t trid,
						struct posix_trace_event_info *restrict event,
						void *restrict data, size_t num_bytes,
						size_t *restrict data_len,
						int *restrict unavailable)
{
	return pt_getnext(trid, event, data, num_bytes, data_len, unavailable, NULL, false,
			  false);
}

/* ------------------------------------------------------------------------ */
/* posix_trace_eventid_get_name(3p), posix_trace_eventtypelist_*(3p)        */

POSIXTRACE_API int posix_trace_eventid_get_name(trace_id_t trid, trace_event_id_t event,
						char *event_name)
{
	struct pt_trace *t;
	const char *name;
	int ret = EINVAL;

	if (!event_name)
		return EINVAL;
	t = pt_trace_get(trid, 0);
	if (!t)
		return EINVAL;
	name = pt_type_name(t, event);
	if (name) {
		/* at most TRACE_EVENT_NAME_MAX bytes and the NUL */
		snprintf(event_name, __TRACEBUF_PT_EVENT_NAME_MAX + 1, "%s", name);
		ret = 0;
	}
	pt_trace_put(t);
	return ret;
}

/* The system event types, then the user event types, by id. */
POSIXTRACE_API int posix_trace_eventtypelist_getnext_id(trace_id_t trid,
							trace_event_id_t *restrict event,
							int *restrict unavailable)
{
	struct pt_trace *t;

	if (!event || !unavailable)
		return EINVAL;
	t = pt_trace_get(trid, 0);
	if (!t)
		return EINVAL;
	*unavailable = 1;
	while (t->typelist_next < PT_EVENT_ID_MAX) {
		trace_event_id_t id = ++t->typelist_next;

		if (pt_type_name(t, id)) {
			*event = id;
			*unavailable = 0;
			break;
		}
	}
	pt_trace_put(t);
	return 0;
}

POSIXTRACE_API int posix_trace_eventtypelist_rewind(trace_id_t trid)
{
	struct pt_trace *t = pt_trace_get(trid, 0);

	if (!t)
		return EINVAL;
	t->typelist_next = 0;
	pt_trace_put(t);
	return 0;
}
