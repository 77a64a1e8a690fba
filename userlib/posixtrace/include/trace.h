/* SPDX-License-Identifier: MIT */
/*
 * trace.h: the POSIX Trace API (IEEE Std 1003.1-2008, options Trace,
 * Trace Event Filter, Trace Log and Trace Inheritance) over tracebuf, as
 * libposixtrace implements it (#include <trace.h>, link with
 * -lposixtrace).  The implementation-defined choices are described in
 * posix_trace(7) (userlib/man/posix_trace.7).
 *
 * Error numbers: every function here returns 0 or a POSITIVE error number
 * (EINVAL, ...), as POSIX says, and leaves errno alone.  This differs from
 * the rest of tracebuf, whose functions return -errno.
 *
 * Every function of the four options is declared (posix_trace(7),
 * STATUS, says what is still partial).
 *
 * POSIX puts trace_attr_t, trace_id_t, trace_event_id_t and
 * trace_event_set_t in <sys/types.h> and the TRACE_*_MAX limits in
 * <limits.h>; glibc has neither, so they are here.  The types are
 * complete, of fixed size and without pointers: declare them anywhere,
 * copy them with = or memcpy(); their members are private.
 */
#ifndef TRACEBUF_POSIX_TRACE_H
#define TRACEBUF_POSIX_TRACE_H

#include <pthread.h>	/* pthread_t */
#include <sys/types.h>	/* pid_t, size_t */
#include <time.h>	/* struct timespec */
/*
 * glibc's <unistd.h> (bits/posix_opt.h) defines the four _POSIX_TRACE*
 * option macros as -1.  It is included here first so that its include
 * guard is set: a later #include <unistd.h> is then a no-op and cannot
 * redefine them back to -1 (silently: no warning is given for a system
 * header), in whichever order an application includes the two headers.
 */
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Options (POSIX.1-2008 §2.1.6): all four are supported.                   */

#undef _POSIX_TRACE
#undef _POSIX_TRACE_EVENT_FILTER
#undef _POSIX_TRACE_LOG
#undef _POSIX_TRACE_INHERIT
#define _POSIX_TRACE			200809L
#define _POSIX_TRACE_EVENT_FILTER	200809L
#define _POSIX_TRACE_LOG		200809L
#define _POSIX_TRACE_INHERIT		200809L

/* ------------------------------------------------------------------------ */
/* Limits                                                                   */

/*
 * The layout constants: what the types below are built for.  The
 * TRACE_*_MAX macros that follow are the names POSIX gives them; an
 * application that defines one of those itself does not change these.
 */
#define __TRACEBUF_PT_SYS_EVENTS	32	/* system event ids 1..32 */
#define __TRACEBUF_PT_STREAM_MAX	16	/* streams and logs of a process */
#define __TRACEBUF_PT_USER_EVENT_MAX	256	/* user event ids 33..288 */
#define __TRACEBUF_PT_NAME_MAX		101	/* 100 bytes and a NUL */
#define __TRACEBUF_PT_EVENT_NAME_MAX	93	/* bytes, NUL not counted */

/*
 * TRACE_NAME_MAX: the size of the buffer that holds a trace stream name
 * or the generation version, the terminating NUL included (setname keeps
 * at most TRACE_NAME_MAX - 1 = 100 characters).  100 is TRACEBUF_NAME_MAX,
 * the longest name of a tracebuf provider, so that a stream's name can
 * name the provider that records it unchanged.  POSIX minimum: 8.
 */
#ifndef TRACE_NAME_MAX
#define TRACE_NAME_MAX			__TRACEBUF_PT_NAME_MAX
#endif
/*
 * TRACE_EVENT_NAME_MAX: the longest user event name, NUL not counted.
 * An event of type NAME is an FXT record named NAME in the tracebuf
 * category "posix:NAME", which a filter excludes as "-posix:NAME", and a
 * category has at most 100 bytes (the limit of Fuchsia's tracing): 93.
 * POSIX minimum: 30.
 */
#ifndef TRACE_EVENT_NAME_MAX
#define TRACE_EVENT_NAME_MAX		__TRACEBUF_PT_EVENT_NAME_MAX
#endif
/*
 * TRACE_SYS_MAX: how many trace streams may exist at once.  POSIX counts
 * them system-wide; libposixtrace counts those of the calling process,
 * streams it created and logs it opened together (a stream holds a
 * tracebuf manager file and a thread; the module bounds managers per
 * user).  A 17th is EAGAIN.  POSIX minimum: 8.
 */
#ifndef TRACE_SYS_MAX
#define TRACE_SYS_MAX			__TRACEBUF_PT_STREAM_MAX
#endif
/*
 * TRACE_USER_EVENT_MAX: user event types one traced process may have,
 * POSIX_TRACE_UNNAMED_USER_EVENT included.  256: each is an interned name
 * in the provider's FXT string table (32767 entries, shared with the
 * application's own categories and names), and 32 + 256 event ids fit
 * trace_event_set_t's 2048 bits with room to grow.  POSIX minimum: 32.
 */
#ifndef TRACE_USER_EVENT_MAX
#define TRACE_USER_EVENT_MAX		__TRACEBUF_PT_USER_EVENT_MAX
#endif

/* ------------------------------------------------------------------------ */
/* Types                                                                    */

/* A trace stream or trace log, as posix_trace_create()/_open() return it. */
typedef int trace_id_t;

/*
 * A trace event type: 0 is never one; system events are 1..32, user
 * events 33..288 (POSIX_TRACE_UNNAMED_USER_EVENT is the first).  Compare
 * them with posix_trace_eventid_equal().
 */
typedef unsigned int trace_event_id_t;

/*
 * The attributes object: 512 bytes, 8 of them a mark that
 * posix_trace_attr_init() sets and posix_trace_attr_destroy() clears, so
 * that an object never initialized (or destroyed) is refused with EINVAL
 * (except by init, which accepts anything).
 */
typedef union {
	unsigned char __tb_size[512];
	long long __tb_align;
} trace_attr_t;

/*
 * A set of trace event types: a mark that posix_trace_eventset_empty() or
 * _fill() sets, then one bit per event id (2048).
 */
typedef union {
	unsigned char __tb_size[264];
	unsigned long long __tb_align;
} trace_event_set_t;

struct posix_trace_event_info {
	trace_event_id_t posix_event_id;
	pid_t posix_pid;
	void *posix_prog_address;
	pthread_t posix_thread_id;
	struct timespec posix_timestamp;
	int posix_truncation_status;
};

struct posix_trace_status_info {
	int posix_stream_status;
	int posix_stream_full_status;
	int posix_stream_overrun_status;
	int posix_stream_flush_status;
	int posix_stream_flush_error;
	int posix_log_overrun_status;
	int posix_log_full_status;
};

/* ------------------------------------------------------------------------ */
/* Symbolic constants.  Every int constant has a value of its own, none 0:  */
/* a value passed where another kind is expected, or a zeroed status, is    */
/* never taken for a valid one.                                             */

/* posix_trace_eventset_fill(): which event types */
#define POSIX_TRACE_WOPID_EVENTS	0x101
#define POSIX_TRACE_SYSTEM_EVENTS	0x102
#define POSIX_TRACE_ALL_EVENTS		0x103

/* posix_trace_set_filter(): how */
#define POSIX_TRACE_SET_EVENTSET	0x201
#define POSIX_TRACE_ADD_EVENTSET	0x202
#define POSIX_TRACE_SUB_EVENTSET	0x203

/* stream-full-policy (LOOP, UNTIL_FULL, FLUSH), log-full-policy (LOOP,
 * UNTIL_FULL, APPEND)
 */
#define POSIX_TRACE_LOOP		0x301
#define POSIX_TRACE_UNTIL_FULL		0x302
#define POSIX_TRACE_FLUSH		0x303
#define POSIX_TRACE_APPEND		0x304

/* inheritance */
#define POSIX_TRACE_CLOSE_FOR_CHILD	0x401
#define POSIX_TRACE_INHERITED		0x402

/* posix_stream_status */
#define POSIX_TRACE_RUNNING		0x501
#define POSIX_TRACE_SUSPENDED		0x502
/* posix_stream_full_status, posix_log_full_status */
#define POSIX_TRACE_FULL		0x601
#define POSIX_TRACE_NOT_FULL		0x602
/* posix_stream_overrun_status, posix_log_overrun_status */
#define POSIX_TRACE_OVERRUN		0x701
#define POSIX_TRACE_NO_OVERRUN		0x702
/* posix_stream_flush_status */
#define POSIX_TRACE_FLUSHING		0x801
#define POSIX_TRACE_NOT_FLUSHING	0x802
/* posix_truncation_status */
#define POSIX_TRACE_NOT_TRUNCATED	0x901
#define POSIX_TRACE_TRUNCATED_RECORD	0x902
#define POSIX_TRACE_TRUNCATED_READ	0x903

/* System trace event types (trace_event_id_t) */
#define POSIX_TRACE_START		((trace_event_id_t)1)
#define POSIX_TRACE_STOP		((trace_event_id_t)2)
#define POSIX_TRACE_FILTER		((trace_event_id_t)3)
#define POSIX_TRACE_OVERFLOW		((trace_event_id_t)4)
#define POSIX_TRACE_RESUME		((trace_event_id_t)5)
#define POSIX_TRACE_FLUSH_START		((trace_event_id_t)6)
#define POSIX_TRACE_FLUSH_STOP		((trace_event_id_t)7)
#define POSIX_TRACE_ERROR		((trace_event_id_t)8)

/*
 * The predefined user event, returned when a process has opened
 * TRACE_USER_EVENT_MAX - 1 names.  trace.h(0p) spells it
 * POSIX_TRACE_UNNAMED_USER_EVENT, posix_trace_eventid_open(3p)
 * POSIX_TRACE_UNNAMED_USEREVENT: both are defined.
 */
#define POSIX_TRACE_UNNAMED_USER_EVENT	((trace_event_id_t)(__TRACEBUF_PT_SYS_EVENTS + 1))
#define POSIX_TRACE_UNNAMED_USEREVENT	POSIX_TRACE_UNNAMED_USER_EVENT

/* ------------------------------------------------------------------------ */
/* Functions                                                                */

#ifdef __cplusplus
#define __TRACEBUF_PT_RESTRICT	__restrict
extern "C" {
#else
#define __TRACEBUF_PT_RESTRICT	restrict
#endif

/* posix_trace_attr_destroy(3p), posix_trace_attr_init(3p) */
int posix_trace_attr_init(trace_attr_t *attr);
int posix_trace_attr_destroy(trace_attr_t *attr);

/* posix_trace_attr_getclockres(3p): identification of the stream */
int posix_trace_attr_getgenversion(const trace_attr_t *attr, char *genversion);
int posix_trace_attr_getname(const trace_attr_t *attr, char *tracename);
int posix_trace_attr_setname(trace_attr_t *attr, const char *tracename);
int posix_trace_attr_getcreatetime(const trace_attr_t *attr, struct timespec *createtime);
int posix_trace_attr_getclockres(const trace_attr_t *attr, struct timespec *resolution);

/* posix_trace_attr_getinherited(3p): behavior of the stream */
int posix_trace_attr_getinherited(const trace_attr_t *__TRACEBUF_PT_RESTRICT attr,
				  int *__TRACEBUF_PT_RESTRICT inheritancepolicy);
int posix_trace_attr_setinherited(trace_attr_t *attr, int inheritancepolicy);
int posix_trace_attr_getlogfullpolicy(const trace_attr_t *__TRACEBUF_PT_RESTRICT attr,
				      int *__TRACEBUF_PT_RESTRICT logpolicy);
int posix_trace_attr_setlogfullpolicy(trace_attr_t *attr, int logpolicy);
int posix_trace_attr_getstreamfullpolicy(const trace_attr_t *__TRACEBUF_PT_RESTRICT attr,
					 int *__TRACEBUF_PT_RESTRICT streampolicy);
int posix_trace_attr_setstreamfullpolicy(trace_attr_t *attr, int streampolicy);

/* posix_trace_attr_getlogsize(3p): sizes */
int posix_trace_attr_getlogsize(const trace_attr_t *__TRACEBUF_PT_RESTRICT attr,
				size_t *__TRACEBUF_PT_RESTRICT logsize);
int posix_trace_attr_setlogsize(trace_attr_t *attr, size_t logsize);
int posix_trace_attr_getmaxdatasize(const trace_attr_t *__TRACEBUF_PT_RESTRICT attr,
				    size_t *__TRACEBUF_PT_RESTRICT maxdatasize);
int posix_trace_attr_setmaxdatasize(trace_attr_t *attr, size_t maxdatasize);
int posix_trace_attr_getmaxsystemeventsize(const trace_attr_t *__TRACEBUF_PT_RESTRICT attr,
					   size_t *__TRACEBUF_PT_RESTRICT eventsize);
int posix_trace_attr_getmaxusereventsize(const trace_attr_t *__TRACEBUF_PT_RESTRICT attr,
					 size_t data_len,
					 size_t *__TRACEBUF_PT_RESTRICT eventsize);
int posix_trace_attr_getstreamsize(const trace_attr_t *__TRACEBUF_PT_RESTRICT attr,
				   size_t *__TRACEBUF_PT_RESTRICT streamsize);
int posix_trace_attr_setstreamsize(trace_attr_t *attr, size_t streamsize);

/* posix_trace_eventset_add(3p) */
int posix_trace_eventset_empty(trace_event_set_t *set);
int posix_trace_eventset_fill(trace_event_set_t *set, int what);
int posix_trace_eventset_add(trace_event_id_t event_id, trace_event_set_t *set);
int posix_trace_eventset_del(trace_event_id_t event_id, trace_event_set_t *set);
int posix_trace_eventset_ismember(trace_event_id_t event_id,
				  const trace_event_set_t *__TRACEBUF_PT_RESTRICT set,
				  int *__TRACEBUF_PT_RESTRICT ismember);

/* posix_trace_eventid_equal(3p): non-zero if equal; trid is not used */
int posix_trace_eventid_equal(trace_id_t trid, trace_event_id_t event1,
			      trace_event_id_t event2);

/* posix_trace_create(3p): streams, from the trace controller process */
int posix_trace_create(pid_t pid, const trace_attr_t *__TRACEBUF_PT_RESTRICT attr,
		       trace_id_t *__TRACEBUF_PT_RESTRICT trid);
int posix_trace_create_withlog(pid_t pid, const trace_attr_t *__TRACEBUF_PT_RESTRICT attr,
			       int file_desc, trace_id_t *__TRACEBUF_PT_RESTRICT trid);
int posix_trace_shutdown(trace_id_t trid);
int posix_trace_flush(trace_id_t trid);

/* posix_trace_clear(3p) */
int posix_trace_clear(trace_id_t trid);

/* posix_trace_start(3p) */
int posix_trace_start(trace_id_t trid);
int posix_trace_stop(trace_id_t trid);

/* posix_trace_get_attr(3p) */
int posix_trace_get_attr(trace_id_t trid, trace_attr_t *attr);
int posix_trace_get_status(trace_id_t trid, struct posix_trace_status_info *statusinfo);

/* posix_trace_event(3p): the traced (target) process */
void posix_trace_event(trace_event_id_t event_id, const void *__TRACEBUF_PT_RESTRICT data_ptr,
		       size_t data_len);
int posix_trace_eventid_open(const char *__TRACEBUF_PT_RESTRICT event_name,
			     trace_event_id_t *__TRACEBUF_PT_RESTRICT event_id);

/* posix_trace_eventid_open(3p): an event type of a stream, for its controller */
int posix_trace_trid_eventid_open(trace_id_t trid, const char *__TRACEBUF_PT_RESTRICT event_name,
				  trace_event_id_t *__TRACEBUF_PT_RESTRICT event);

/* posix_trace_set_filter(3p) */
int posix_trace_set_filter(trace_id_t trid, const trace_event_set_t *set, int how);
int posix_trace_get_filter(trace_id_t trid, trace_event_set_t *set);

/* posix_trace_eventid_equal(3p): the name of an event type of a stream or log */
int posix_trace_eventid_get_name(trace_id_t trid, trace_event_id_t event, char *event_name);

/* posix_trace_eventtypelist_getnext_id(3p) */
int posix_trace_eventtypelist_getnext_id(trace_id_t trid,
					 trace_event_id_t *__TRACEBUF_PT_RESTRICT event,
					 int *__TRACEBUF_PT_RESTRICT unavailable);
int posix_trace_eventtypelist_rewind(trace_id_t trid);

/* posix_trace_open(3p): a trace log, from the trace analyzer process */
int posix_trace_open(int file_desc, trace_id_t *trid);
int posix_trace_close(trace_id_t trid);
int posix_trace_rewind(trace_id_t trid);

/*
 * posix_trace_getnext_event(3p): from a trace log, or from an active
 * stream without one; the timed and try variants from such a stream only
 */
int posix_trace_getnext_event(trace_id_t trid,
			      struct posix_trace_event_info *__TRACEBUF_PT_RESTRICT event,
			      void *__TRACEBUF_PT_RESTRICT data, size_t num_bytes,
			      size_t *__TRACEBUF_PT_RESTRICT data_len,
			      int *__TRACEBUF_PT_RESTRICT unavailable);
int posix_trace_timedgetnext_event(trace_id_t trid,
				   struct posix_trace_event_info *__TRACEBUF_PT_RESTRICT event,
				   void *__TRACEBUF_PT_RESTRICT data, size_t num_bytes,
				   size_t *__TRACEBUF_PT_RESTRICT data_len,
				   int *__TRACEBUF_PT_RESTRICT unavailable,
				   const struct timespec *__TRACEBUF_PT_RESTRICT abstime);
int posix_trace_trygetnext_event(trace_id_t trid,
				 struct posix_trace_event_info *__TRACEBUF_PT_RESTRICT event,
				 void *__TRACEBUF_PT_RESTRICT data, size_t num_bytes,
				 size_t *__TRACEBUF_PT_RESTRICT data_len,
				 int *__TRACEBUF_PT_RESTRICT unavailable);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBUF_POSIX_TRACE_H */
