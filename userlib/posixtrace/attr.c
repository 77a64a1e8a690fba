// SPDX-License-Identifier: MIT
/*
 * libposixtrace: the trace stream attributes object (posix_trace_attr_*).
 *
 * Every function returns 0 or a positive error number, as POSIX says.
 * EINVAL, which the manual allows each of them ("may fail"), answers a
 * NULL pointer, an object posix_trace_attr_init() did not initialize (or
 * that was destroyed), and a value out of its range.  On error nothing
 * is written.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <string.h>
#include <time.h>

#include "posixtrace_priv.h"

static struct pt_attr *pt_attr(trace_attr_t *attr)
{
	struct pt_attr *a = (struct pt_attr *)attr;

	return a && a->magic == PT_ATTR_MAGIC ? a : NULL;
}

static const struct pt_attr *pt_cattr(const trace_attr_t *attr)
{
	const struct pt_attr *a = (const struct pt_attr *)attr;

	return a && a->magic == PT_ATTR_MAGIC ? a : NULL;
}

/* ------------------------------------------------------------------------ */
/* posix_trace_attr_init(3p), posix_trace_attr_destroy(3p)                  */

POSIXTRACE_API int posix_trace_attr_init(trace_attr_t *attr)
{
	struct pt_attr *a = (struct pt_attr *)attr;

	if (!attr)
		return EINVAL;
	memset(attr, 0, sizeof(*attr));
	a->magic = PT_ATTR_MAGIC;
	strcpy(a->genversion, PT_GENVERSION);
	/* tracebuf timestamps with CLOCK_MONOTONIC (or a counter of its
	 * resolution); its resolution cannot fail to be known on Linux, but
	 * 1 ns is what a failure would most likely hide
	 */
	if (clock_getres(CLOCK_MONOTONIC, &a->clock_res)) {
		a->clock_res.tv_sec = 0;
		a->clock_res.tv_nsec = 1;
	}
	a->inheritance = POSIX_TRACE_CLOSE_FOR_CHILD;
	a->stream_policy = 0;
	a->log_policy = POSIX_TRACE_LOOP;
	a->stream_size = PT_STREAM_SIZE_DEFAULT;
	a->log_size = PT_LOG_SIZE_DEFAULT;
	a->max_data_size = PT_MAX_DATA_SIZE_DEFAULT;
	return 0;
}

void pt_attr_defaults(struct pt_attr *a)
{
	trace_attr_t init;

	posix_trace_attr_init(&init);
	memcpy(a, &init, sizeof(*a));
}

POSIXTRACE_API int posix_trace_attr_destroy(trace_attr_t *attr)
{
	struct pt_attr *a = pt_attr(attr);

	if (!a)
		return EINVAL;
	memset(attr, 0, sizeof(*attr));
	a->magic = PT_ATTR_DESTROYED;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* posix_trace_attr_getclockres(3p)                                         */

POSIXTRACE_API int posix_trace_attr_getgenversion(const trace_attr_t *attr, char *genversion)
{
	const struct pt_attr *a = pt_cattr(attr);
	size_t len;

	if (!a || !genversion)
		return EINVAL;
	len = strnlen(a->genversion, TRACE_NAME_MAX - 1);
	memcpy(genversion, a->genversion, len);
	genversion[len] = '\0';
	return 0;
}

POSIXTRACE_API int posix_trace_attr_getname(const trace_attr_t *attr, char *tracename)
{
	const struct pt_attr *a = pt_cattr(attr);
	size_t len;

	if (!a || !tracename)
		return EINVAL;
	len = strnlen(a->name, TRACE_NAME_MAX - 1);
	memcpy(tracename, a->name, len);
	tracename[len] = '\0';
	return 0;
}

/* A name longer than TRACE_NAME_MAX - 1 bytes is cut there. */
POSIXTRACE_API int posix_trace_attr_setname(trace_attr_t *attr, const char *tracename)
{
	struct pt_attr *a = pt_attr(attr);
	size_t len;

	if (!a || !tracename)
		return EINVAL;
	len = strnlen(tracename, TRACE_NAME_MAX - 1);
	memcpy(a->name, tracename, len);
	memset(a->name + len, 0, sizeof(a->name) - len);
	return 0;
}

/* {0, 0} until the object describes a stream (posix_trace_get_attr()). */
POSIXTRACE_API int posix_trace_attr_getcreatetime(const trace_attr_t *attr,
						  struct timespec *createtime)
{
	const struct pt_attr *a = pt_cattr(attr);

	if (!a || !createtime)
		return EINVAL;
	*createtime = a->create_time;
	return 0;
}

POSIXTRACE_API int posix_trace_attr_getclockres(const trace_attr_t *attr,
						struct timespec *resolution)
{
	const struct pt_attr *a = pt_cattr(attr);

	if (!a || !resolution)
		return EINVAL;
	*resolution = a->clock_res;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* posix_trace_attr_getinherited(3p)                                        */

POSIXTRACE_API int posix_trace_attr_getinherited(const trace_attr_t *restrict attr,
						 int *restrict inheritancepolicy)
{
	const struct pt_attr *a = pt_cattr(attr);

	if (!a || !inheritancepolicy)
		return EINVAL;
	*inheritancepolicy = a->inheritance;
	return 0;
}

POSIXTRACE_API int posix_trace_attr_setinherited(trace_attr_t *attr, int inheritancepolicy)
{
	struct pt_attr *a = pt_attr(attr);

	if (!a || (inheritancepolicy != POSIX_TRACE_CLOSE_FOR_CHILD &&
		   inheritancepolicy != POSIX_TRACE_INHERITED))
		return EINVAL;
	a->inheritance = inheritancepolicy;
	return 0;
}

POSIXTRACE_API int posix_trace_attr_getlogfullpolicy(const trace_attr_t *restrict attr,
						     int *restrict logpolicy)
{
	const struct pt_attr *a = pt_cattr(attr);

	if (!a || !logpolicy)
		return EINVAL;
	*logpolicy = a->log_policy;
	return 0;
}

POSIXTRACE_API int posix_trace_attr_setlogfullpolicy(trace_attr_t *attr, int logpolicy)
{
	struct pt_attr *a = pt_attr(attr);

	if (!a || (logpolicy != POSIX_TRACE_LOOP && logpolicy != POSIX_TRACE_UNTIL_FULL &&
		   logpolicy != POSIX_TRACE_APPEND))
		return EINVAL;
	a->log_policy = logpolicy;
	return 0;
}

/*
 * Not set: POSIX_TRACE_LOOP, the default of a stream without a log (a
 * stream created with a log from this object will get POSIX_TRACE_FLUSH,
 * its default).
 */
POSIXTRACE_API int posix_trace_attr_getstreamfullpolicy(const trace_attr_t *restrict attr,
							int *restrict streampolicy)
{
	const struct pt_attr *a = pt_cattr(attr);

	if (!a || !streampolicy)
		return EINVAL;
	*streampolicy = a->stream_policy ? a->stream_policy : POSIX_TRACE_LOOP;
	return 0;
}

/* POSIX_TRACE_FLUSH is accepted here; a stream without a log refuses it. */
POSIXTRACE_API int posix_trace_attr_setstreamfullpolicy(trace_attr_t *attr, int streampolicy)
{
	struct pt_attr *a = pt_attr(attr);

	if (!a || (streampolicy != POSIX_TRACE_LOOP && streampolicy != POSIX_TRACE_UNTIL_FULL &&
		   streampolicy != POSIX_TRACE_FLUSH))
		return EINVAL;
	a->stream_policy = streampolicy;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* posix_trace_attr_getlogsize(3p)                                          */

POSIXTRACE_API int posix_trace_attr_getlogsize(const trace_attr_t *restrict attr,
					       size_t *restrict logsize)
{
	const struct pt_attr *a = pt_cattr(attr);

	if (!a || !logsize)
		return EINVAL;
	*logsize = (size_t)a->log_size;
	return 0;
}

POSIXTRACE_API int posix_trace_attr_setlogsize(trace_attr_t *attr, size_t logsize)
{
	struct pt_attr *a = pt_attr(attr);

	if (!a || logsize < PT_LOG_SIZE_MIN)
		return EINVAL;
	a->log_size = logsize;
	return 0;
}

POSIXTRACE_API int posix_trace_attr_getmaxdatasize(const trace_attr_t *restrict attr,
						   size_t *restrict maxdatasize)
{
	const struct pt_attr *a = pt_cattr(attr);

	if (!a || !maxdatasize)
		return EINVAL;
	*maxdatasize = (size_t)a->max_data_size;
	return 0;
}

POSIXTRACE_API int posix_trace_attr_setmaxdatasize(trace_attr_t *attr, size_t maxdatasize)
{
	struct pt_attr *a = pt_attr(attr);

	if (!a || maxdatasize > PT_MAX_DATA_SIZE_MAX)
		return EINVAL;
	a->max_data_size = maxdatasize;
	return 0;
}

POSIXTRACE_API int posix_trace_attr_getmaxsystemeventsize(const trace_attr_t *restrict attr,
							  size_t *restrict eventsize)
{
	const struct pt_attr *a = pt_cattr(attr);

	if (!a || !eventsize)
		return EINVAL;
	*eventsize = (size_t)pt_system_record_size(sizeof(PT_SYSTEM_LARGEST) - 1,
						   PT_SYSTEM_DATA_MAX);
	return 0;
}

/* posix_trace_event() keeps at most max-data-size bytes of the data. */
POSIXTRACE_API int posix_trace_attr_getmaxusereventsize(const trace_attr_t *restrict attr,
							size_t data_len,
							size_t *restrict eventsize)
{
	const struct pt_attr *a = pt_cattr(attr);
	uint64_t len;

	if (!a || !eventsize)
		return EINVAL;
	len = data_len < a->max_data_size ? data_len : a->max_data_size;
	*eventsize = (size_t)pt_event_record_size(len);
	return 0;
}

POSIXTRACE_API int posix_trace_attr_getstreamsize(const trace_attr_t *restrict attr,
						  size_t *restrict streamsize)
{
	const struct pt_attr *a = pt_cattr(attr);

	if (!a || !streamsize)
		return EINVAL;
	*streamsize = (size_t)a->stream_size;
	return 0;
}

POSIXTRACE_API int posix_trace_attr_setstreamsize(trace_attr_t *attr, size_t streamsize)
{
	struct pt_attr *a = pt_attr(attr);
	/* a variable: on 32 bits no size_t exceeds the maximum (4 GiB) */
	uint64_t size = streamsize;

	if (!a || size < PT_STREAM_SIZE_MIN || size > PT_STREAM_SIZE_MAX)
		return EINVAL;
	a->stream_size = size;
	return 0;
}
