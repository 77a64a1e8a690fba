/* SPDX-License-Identifier: MIT */
/*
 * Private to libposixtrace: the layout behind trace.h's opaque types, the
 * sizes that tie the POSIX attributes to tracebuf's buffers and FXT
 * records, and the functions its files share.  Never installed, never
 * included by trace.h.
 *
 * Layers.  The files, from the bottom up.  A file calls functions of
 * files on lower layers only: never one of a file on its own layer or
 * above, so that each layer reads, and works, on what is below it alone.
 * tests/layers_test.sh checks it, from the objects' symbols, against the
 * "layer N:" lines here; the prototypes at the end of this header are
 * grouped the same way.
 *
 *   layer 0: attr.c eventset.c logfull.c target.c trid.c
 *       Leaves, which call no other file: the attributes object and event
 *       sets (plain data); the traced process, its event types and events
 *       (target.c); the table of trace ids and a trace's lifetime
 *       (trid.c); the log-full-policy of a stream with a log (logfull.c),
 *       which says when the stream is to stop and leaves the stop to
 *       its caller.
 *   layer 1: decode.c
 *       What records mean: a trace's events and drop windows decoded,
 *       an event reported to getnext's caller, a trace's table of event
 *       type names.
 *   layer 2: queue.c
 *       The queue of an active stream without a log: the records of a
 *       snapshot, of a stop or of a system event read into it; the
 *       stream's full and overrun status.
 *   layer 3: sysevent.c
 *       System events, written to the log or queued; the session's
 *       errors.
 *   layer 4: run.c
 *       A stream's session runs: started with its filter's categories,
 *       stopped (its data to the log or the queue), started again.
 *   layer 5: keeper.c online.c
 *       The keeper of a running stream with a log, a process that shuts
 *       it down when its controller dies without doing so.  Reading an
 *       active stream without a log (getnext): it stops a full
 *       UNTIL_FULL stream, and starts it again once its reader emptied it.
 *   layer 6: filter.c log.c stream.c
 *       The API, which no other file calls: event types and the filter; logs,
 *       getnext and the event type lists; streams (create, start, stop,
 *       flush, clear, shutdown, status).
 *
 * Upward calls: none is direct.  One goes up through a pointer, which the
 * check does not see: pt_trace_put() (trid.c) runs the trace's put_hook,
 * which a stream sets to a function of stream.c's that runs
 * pt_errors_record() (sysevent.c), so that the errors its session noted
 * during a call are recorded before its lock is released, and
 * pt_keeper_sync() (keeper.c).  (The check would pass one direct upward call if this
 * comment named it, on a line of its own indented as the layers are:
 * "upward: FILE.c calls FUNCTION()".)
 */
#ifndef POSIXTRACE_PRIV_H
#define POSIXTRACE_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <linux/tracebuf.h>	/* TRACEBUF_BUFFER_MIN, _MAX */
#include <tracebuf_fxt.h>	/* TRACEBUF_LIB_FXT_STRING_MAX, _RECORD_MAX */
#include <tracebuf_manager.h>	/* TRACEBUF_LIB_DEFAULT_BUFFER_SIZE */
#include <tracebuf_reader.h>
#include <trace.h>

/*
 * The library is built with -fvisibility=hidden: only functions marked
 * POSIXTRACE_API can be exported, and libposixtrace.map then decides
 * which are.  Mark the definition, in the .c file.
 */
#define POSIXTRACE_API	__attribute__((visibility("default")))

/* posix_trace_attr_getgenversion(): the implementation and its ABI node */
#define PT_GENVERSION		"tracebuf libposixtrace 1.0"

/* ------------------------------------------------------------------------ */
/* Sizes                                                                    */

/*
 * The FXT record of one trace event (userlib/Documentation/trace-format.md
 * §4.2, §4.4): an instant event record (type 4, event type 0) in category
 * "posix:NAME", named NAME after its event type, with five arguments:
 *
 *   header word                                         8
 *   timestamp                                           8
 *   thread: process and thread koids inline            16  (the most: a
 *       ref into the 255-entry thread table takes none)
 *   category and name: refs into the string table       0
 *   argument "id", uint32, value in its header          8
 *   argument "seq", uint32, value in its header         8  (the thread's
 *       events since the stream started: 0, 1, ...; a gap is a loss)
 *   argument "pc", pointer: header and value           16
 *   argument "thread", uint64 (the pthread_t)          16
 *   argument "data", n bytes inline, a string if they   8 + n rounded up to 8
 *       are UTF-8, else a blob (pt_data_arg())
 *                                                      ---
 *                                                      88 + round_up(n, 8)
 *
 * (and a bool argument "truncated", 8 bytes, when the data were longer
 * than PT_MAX_DATA_SIZE_MAX).  A string argument and a blob argument of
 * the same bytes have the same size: the header word, then the bytes.
 * The one place this formula lives: getmaxusereventsize() and
 * getmaxsystemeventsize() use it; target.c writes the arguments.
 */
#define PT_EVENT_RECORD_FIXED	88u

static inline uint64_t pt_event_record_size(uint64_t data_len)
{
	return PT_EVENT_RECORD_FIXED + ((data_len + 7u) & ~(uint64_t)7u);
}

/*
 * The argument "data" of @len bytes at @data: a string when they are
 * UTF-8, as FXT's strings must be (tracebuf_fxt_utf8()), else a blob
 * (argument type 10), which keeps any bytes; the same size either way.
 */
static inline struct tracebuf_fxt_arg pt_data_arg(const void *data, size_t len)
{
	struct tracebuf_fxt_str name = tracebuf_fxt_str_inline("data", 4);

	if (!tracebuf_fxt_utf8(data, len))
		return tracebuf_fxt_arg_blob(name, data, len);
	return tracebuf_fxt_arg_string(name, tracebuf_fxt_str_inline(len ? data : "", len));
}

/*
 * max-data-size: at most what one inline FXT string holds (32000 bytes,
 * Fuchsia's limit); by default 1024, so that the largest record of the
 * default attributes (1088 bytes) fits the smallest stream a few times.
 */
#define PT_MAX_DATA_SIZE_MAX		TRACEBUF_LIB_FXT_STRING_MAX
#define PT_MAX_DATA_SIZE_DEFAULT	1024u
_Static_assert(PT_EVENT_RECORD_FIXED + PT_MAX_DATA_SIZE_MAX <= TRACEBUF_LIB_FXT_RECORD_MAX,
	       "an event of max-data-size must fit one FXT record");

/*
 * A system event (sysevent.c) is written by the stream's controller, its
 * category and name inline, with two arguments:
 *
 *   header word, timestamp, process and thread koids   32
 *   category "posix:NAME", inline                       6 + NAME rounded up to 8
 *   name NAME, inline                                   NAME rounded up to 8
 *   argument "id", uint32, its name inline              16
 *   argument "data", n bytes, its name inline (none     16 + n rounded up to 8
 *       without data): a string or a blob, as a user
 *       event's data
 *
 * The largest is POSIX_TRACE_FILTER, whose data are the old and the new
 * filter: posix_trace_attr_getmaxsystemeventsize() says how large.
 */
#define PT_SYSTEM_DATA_MAX	(2u * sizeof(trace_event_set_t))
#define PT_SYSTEM_LARGEST	"POSIX_TRACE_FILTER"

static inline uint64_t pt_system_record_size(uint64_t name_len, uint64_t data_len)
{
	return 32 + ((6 + name_len + 7u) & ~(uint64_t)7u) + ((name_len + 7u) & ~(uint64_t)7u) +
	       16 + (data_len ? 16 + ((data_len + 7u) & ~(uint64_t)7u) : 0);
}

/*
 * stream-min-size: from TRACEBUF_BUFFER_MIN to TRACEBUF_BUFFER_MAX, kept
 * as given.  The standard's promise (posix_trace_attr_getstreamsize(3p)):
 * events whose maximum sizes (posix_trace_attr_getmaxusereventsize())
 * add up to at most stream-min-size are all recorded.  The stream's
 * buffer is sized for that (pt_stream_buffer_size(), with
 * tracebuf_buffer_size_for()): stream-min-size bytes of events of up to
 * max-data-size, written by up to PT_STREAM_WRITERS threads at once, fit
 * one rolling buffer, beside PT_STREAM_DURABLE bytes of string and thread
 * records: the names of TRACE_USER_EVENT_MAX event types of the longest
 * name (a string record each), PT_STREAM_THREADS threads (a thread
 * record, its kernel object record and its name: 80 bytes), the process
 * and the argument names.  posix_trace(7) says it.  Default: 1 MiB,
 * whose buffer holds about what libtracebuf's default buffer does.
 */
#define PT_STREAM_SIZE_MIN	TRACEBUF_BUFFER_MIN
#define PT_STREAM_SIZE_MAX	TRACEBUF_BUFFER_MAX
#define PT_STREAM_SIZE_DEFAULT	(1u << 20)
#define PT_STREAM_WRITERS	4u
#define PT_STREAM_THREADS	64u
#define PT_STREAM_DURABLE	(1024u + __TRACEBUF_PT_USER_EVENT_MAX * \
				 (8u + ((__TRACEBUF_PT_EVENT_NAME_MAX + 7u) & ~7u)) + \
				 PT_STREAM_THREADS * 128u)

/*
 * The buffer of a stream of @stream_size and @max_data_size in
 * TRACEBUF_MODE_* @mode: the smallest that holds stream_size bytes of
 * events of up to max_data_size (above), a whole number of pages; 0 when
 * none does.  The streams' one rule (stream.c), which the tests use to
 * bound what a buffer writes.
 */
static inline uint64_t pt_stream_buffer_size(uint64_t stream_size, uint64_t max_data_size,
					     uint32_t mode)
{
	uint64_t align = TRACEBUF_BUFFER_ALIGN;
	long page = sysconf(_SC_PAGESIZE);

	if (page > 0 && (uint64_t)page > align)
		align = (uint64_t)page;
	return tracebuf_buffer_size_for(mode, stream_size, pt_event_record_size(max_data_size),
					PT_STREAM_WRITERS, PT_STREAM_DURABLE, align);
}

/*
 * log-max-size: at least one smallest buffer (a log receives whole
 * buffers' worth of records); by default 64 MiB, sixteen default streams.
 */
#define PT_LOG_SIZE_MIN		TRACEBUF_BUFFER_MIN
#define PT_LOG_SIZE_DEFAULT	(64u << 20)

/* the providers of a LOOP stream whose flushes are followed (queue.c) */
#define PT_FLUSHED_MAX		16

/* ------------------------------------------------------------------------ */
/* Layouts                                                                  */

#define PT_ATTR_MAGIC		0x74427450u	/* set by init */
#define PT_ATTR_DESTROYED	0x64427450u	/* set by destroy */

/* stream_policy 0: not set; POSIX_TRACE_LOOP without a log, FLUSH with */
struct pt_attr {
	uint32_t magic;
	uint32_t reserved;
	char name[__TRACEBUF_PT_NAME_MAX];
	char genversion[__TRACEBUF_PT_NAME_MAX];
	struct timespec create_time;	/* {0, 0}: no stream yet */
	struct timespec clock_res;
	int inheritance;
	int stream_policy;
	int log_policy;
	uint64_t stream_size;
	uint64_t log_size;
	uint64_t max_data_size;
} __attribute__((may_alias));

_Static_assert(sizeof(struct pt_attr) <= sizeof(trace_attr_t), "trace_attr_t too small");
_Static_assert(_Alignof(struct pt_attr) <= _Alignof(trace_attr_t), "trace_attr_t misaligned");

#define PT_SET_MAGIC		0x73427450u
/* event ids 1..PT_EVENT_ID_MAX; bit i of bits[] is event id i */
#define PT_EVENT_ID_MAX		(__TRACEBUF_PT_SYS_EVENTS + __TRACEBUF_PT_USER_EVENT_MAX)
#define PT_FIRST_USER_ID	(__TRACEBUF_PT_SYS_EVENTS + 1)
#define PT_SET_BITS		2048u

struct pt_set {
	uint32_t magic;
	uint32_t reserved;
	uint64_t bits[PT_SET_BITS / 64];
} __attribute__((may_alias));

_Static_assert(sizeof(struct pt_set) == sizeof(trace_event_set_t), "trace_event_set_t size");

/* Whether event id @id (below PT_SET_BITS) is in @s. */
static inline bool pt_set_has(const struct pt_set *s, trace_event_id_t id)
{
	return (s->bits[id / 64] >> (id % 64)) & 1;
}
_Static_assert(_Alignof(struct pt_set) <= _Alignof(trace_event_set_t),
	       "trace_event_set_t misaligned");
_Static_assert(PT_EVENT_ID_MAX < PT_SET_BITS, "event ids exceed trace_event_set_t");
_Static_assert(__TRACEBUF_PT_NAME_MAX == TRACEBUF_NAME_MAX + 1, "TRACE_NAME_MAX is a provider name");

/* ------------------------------------------------------------------------ */
/* Names                                                                    */

/*
 * The category of event type NAME is "posix:NAME"; a stream enables
 * "posix:*".  The provider of a traced process is "posix_trace.PID".
 */
#define PT_CATEGORY_PREFIX	"posix:"
#define PT_CATEGORY_ALL		"posix:*"
/* enabled too by a stream created with POSIX_TRACE_INHERITED (target.c) */
#define PT_CATEGORY_INHERIT	"posix.inherit"
/*
 * enabled too by a stream read on-line: a process it traces sends ALERT
 * PT_WAKE_ALERT at its first event after each categories update (its
 * reader waits: target.c, online.c)
 */
#define PT_CATEGORY_WAKE	"posix.wake"
#define PT_WAKE_ALERT		"posix.wake"
#define PT_PROVIDER_PREFIX	"posix_trace."
/* the name of POSIX_TRACE_UNNAMED_USER_EVENT */
#define PT_UNNAMED_NAME		"POSIX_TRACE_UNNAMED_USEREVENT"
_Static_assert(1 + sizeof(PT_CATEGORY_PREFIX) - 1 + __TRACEBUF_PT_EVENT_NAME_MAX ==
	       TRACEBUF_CATEGORY_MAX, "an exclusion \"-posix:NAME\" is at most 100 bytes");

/* ------------------------------------------------------------------------ */
/* The log's attributes record                                              */

/*
 * A stream created with a log writes, right after the magic record, a blob
 * record (type DATA) named PT_LOG_ATTR_NAME whose payload is this, little
 * endian: the stream's attributes, for posix_trace_open() and
 * posix_trace_get_attr() of the log.  Readers take what they know of a
 * larger version-1 payload and refuse another version.
 */
#define PT_LOG_ATTR_NAME	"posix_trace.attr"
#define PT_LOG_ATTR_VERSION	1u

struct pt_log_attr {
	uint32_t version;
	uint32_t pid;			/* the traced process */
	char name[104];			/* NUL-terminated */
	char genversion[104];
	int64_t create_sec, create_nsec;	/* CLOCK_REALTIME */
	int64_t res_sec, res_nsec;
	uint32_t inheritance, stream_policy, log_policy, reserved;
	uint64_t stream_size, log_size, max_data_size;
};
_Static_assert(sizeof(struct pt_log_attr) == 288, "struct pt_log_attr layout");

/* ------------------------------------------------------------------------ */
/* Trace ids: streams and logs of this process                              */

#define PT_KIND_STREAM	1
#define PT_KIND_LOG	2

/*
 * An event, decoded: data point into the log's copy (a log) or into a
 * copy of its own (a stream's pending events).
 */
struct pt_event {
	uint64_t ns;
	uint64_t ticks;			/* ns in the timebase it was stamped in */
	uint64_t pc;
	uint64_t thread;		/* pthread_t */
	uint64_t tid;			/* the writer's thread koid */
	const char *data;
	uint32_t len;			/* as recorded */
	trace_event_id_t id;
	uint32_t pid;
	uint32_t seq;
	bool truncated;			/* by the target */
};

/* A thread of an active stream's target: the next seq not yet seen. */
struct pt_thread {
	uint32_t pid;
	uint32_t next;
	uint64_t tid;
};

/* An event of an active stream that was read, not yet reported. */
struct pt_pending {
	struct pt_event ev;
	uint64_t order;			/* ties of ns: the order read */
};

/*
 * A stream (PT_KIND_STREAM: a tracebuf session that traces one process,
 * served by a thread) or a log (PT_KIND_LOG: a trace file read whole).
 * lock guards everything but kind, which never changes.
 */
struct pt_trace {
	int kind;
	pthread_mutex_t lock;
	struct pt_attr attr;		/* create_time set */
	unsigned int typelist_next;	/* posix_trace_eventtypelist_getnext_id() */
	/* stream */
	uint32_t pid;
	bool running;
	struct tracebuf_session *session;
	char provider[TRACEBUF_NAME_MAX + 1];
	const char *providers[1];	/* = provider, borrowed by the session */
	const char *cats[3];		/* its categories, borrowed too */
	pthread_t thread;
	bool has_thread;
	int wake_fd;			/* eventfd: the thread is to quit */
	bool has_log;
	bool follower;			/* an older stream of ours traces pid */
	int log_fd;			/* the caller's: not closed here */
	off_t log_start;		/* behind the attributes record, or -1 */
	uint64_t buffer_size;		/* of the stream's provider */
	/* the log-full-policy (logfull.c) */
	uint64_t log_head;		/* where the log's records begin */
	uint64_t log_bytes0;		/* tracebuf_session_bytes() there */
	uint64_t *units;		/* where its parts begin (LOOP) */
	size_t nunits, cap_units;
	bool log_full;			/* UNTIL_FULL: nothing more is written */
	bool log_overrun;		/* LOOP: parts dropped since get_status */
	/* a LOOP stream: the rolling buffer where each provider's last flush ended */
	struct {
		uint32_t id;
		uint64_t rolling;
	} flushed[PT_FLUSHED_MAX];
	int nflushed;
	/* errors the session reported, to record as POSIX_TRACE_ERROR */
	int errors[8];
	unsigned int nerrors;
	uint64_t nerrors_total;		/* errors the session reported */
	int flush_error;		/* of the last posix_trace_flush() */
	uint64_t drops_base;		/* drops_seen at the last clear */
	/* active stream without a log: what online.c reads */
	int out_fd;			/* the session's output (memfd), or -1 */
	uint64_t out_off;		/* of out_fd, read so far */
	int snap_fd;			/* memfd for snapshots, or -1 */
	bool out_unread;		/* a stop wrote to out_fd since it was read */
	bool overrun;			/* since the last get_status */
	bool loop_full;			/* LOOP: lost unread events since emptied */
	uint64_t refill_bytes;		/* pt_recorded() at the last snapshot */
	bool wake_remote;		/* it traces another process than this */
	bool wake_armed;		/* target.c's pt_wake_site armed since
					 * the last PT_WAKE_ALERT
					 */
	bool full_stopped;		/* UNTIL_FULL: stopped full, to restart
					 * once its reader emptied it
					 */
	uint64_t drops_seen;		/* the providers' drop count, last read */
	struct pt_thread *threads;
	size_t nthreads, cap_threads;
	struct pt_pending *pending;	/* by ns, then order */
	size_t npending, cap_pending, first_pending;
	uint64_t order;
	uint64_t sealed_ticks;		/* all stamped before it were read */
	uint64_t window_ns;		/* the last drop window taken starts here */
	/* the keeper (keeper.c): its pipe, or -1; the stream's generation */
	int keeper_fd;
	uint32_t *keeper_gen;		/* shared with the keepers, or NULL */
	bool keeper_stale;		/* the session changed since it was made */
	/* calls blocked in a getnext; shutdown waits for them */
	pthread_cond_t cond;
	unsigned int waiters;
	bool dying;
	/* log */
	char *buf;			/* the file's bytes: events point in */
	size_t buflen;
	struct pt_event *events;	/* in timestamp order */
	size_t nevents, next;
	/* user event types: a log's, or a stream's of another process */
	char *names[PT_EVENT_ID_MAX + 1];
	/* stream: the event types not recorded (filter.c) */
	trace_event_set_t filter;
	/*
	 * Run by pt_trace_put() before it unlocks (NULL: nothing): a
	 * stream's pt_errors_record() (the layers, at the top)
	 */
	void (*put_hook)(struct pt_trace *t);
};

/*
 * Close the files a stream opened for its thread, its reading and its
 * keeper (retired first, but in a child of fork(): pt_keeper_free()).
 */
static inline void pt_stream_close_files(const struct pt_trace *t)
{
	if (t->keeper_fd >= 0)
		close(t->keeper_fd);
	if (t->wake_fd >= 0)
		close(t->wake_fd);
	if (t->out_fd >= 0)
		close(t->out_fd);
	if (t->snap_fd >= 0)
		close(t->snap_fd);
}

/* Whether @t is a stream of the calling process: its event types are the process's. */
static inline bool pt_self(const struct pt_trace *t)
{
	return t->kind == PT_KIND_STREAM && t->pid == (uint32_t)getpid();
}

/* Whether @t's filter holds event type @id: it is not recorded. */
static inline bool pt_filtered(const struct pt_trace *t, trace_event_id_t id)
{
	const struct pt_set *f = (const struct pt_set *)&t->filter;

	return f->magic == PT_SET_MAGIC && pt_set_has(f, id);
}

/* ------------------------------------------------------------------------ */
/* Functions, by layer (the comment at the top) and file                    */

/* Layer 0 ---------------------------------------------------------------- */

/*
 * attr.c: what posix_trace_attr_init() sets, into a struct pt_attr that
 * is not inside a trace_attr_t (init clears all of a trace_attr_t's 512
 * bytes).
 */
void pt_attr_defaults(struct pt_attr *a);

/*
 * target.c: a user event name, 1..TRACE_EVENT_NAME_MAX bytes.  Returns 0
 * and its length in *@len, ENAMETOOLONG, or EINVAL (NULL, empty).
 */
int pt_event_name_check(const char *name, size_t *len);
/* This process's provider id (as the kernel gave it), or 0: none yet. */
uint32_t pt_self_provider_id(void);
/* The name of a system event type (1..8), or NULL. */
const char *pt_system_event_name(trace_event_id_t id);
/*
 * The name of user event type @id as this process opened it (or NULL):
 * a trace stream of the calling process knows its event types by them.
 */
const char *pt_user_event_name(trace_event_id_t id);
/*
 * Waiting for this process's next event: pt_events_watch() before
 * looking for events (it returns the generation to wait on), then
 * pt_events_wait() for at most @ns when none was found (true if a
 * signal handler ran meanwhile), and
 * pt_events_unwatch() once done; pt_events_wake() wakes every waiter
 * (a stream shut down).
 */
uint32_t pt_events_watch(void);
bool pt_events_wait(uint32_t gen, uint64_t ns);
void pt_events_unwatch(void);
void pt_events_wake(void);

/*
 * trid.c: a new trace of @kind, its files -1, locked (NULL: no memory);
 * pt_trace_free() frees it, locked, and what any trace holds in memory
 * (its names, a log's bytes and events, a log's parts); a stream's
 * session, thread, files and queue are stream.c's to free first.
 */
struct pt_trace *pt_trace_new(int kind);
void pt_trace_free(struct pt_trace *t);
/*
 * Around a fork() of a stream's keeper, @on true before and false after
 * (in the parent): the thread holds the stream's lock, and the child
 * keeps the stream's files.
 */
void pt_table_keeper_fork(bool on);
/*
 * Find trace @trid of @kind (0: either) and lock it; NULL if there is
 * none.  pt_trace_put() runs its put_hook and unlocks it.
 */
struct pt_trace *pt_trace_get(trace_id_t trid, int kind);
void pt_trace_put(struct pt_trace *t);
/* Give @t an id (EAGAIN: TRACE_SYS_MAX are in use). */
int pt_trace_add(struct pt_trace *t, trace_id_t *trid);
/* Take @trid's id back; the caller then frees it.  Returns it locked. */
struct pt_trace *pt_trace_remove(trace_id_t trid, int kind);
/* The ids of @kind (0: all) in use now, into @ids (TRACE_SYS_MAX of room): how many. */
unsigned int pt_trace_ids(int kind, trace_id_t *ids);

/*
 * logfull.c, for a stream with a log: pt_log_reset() when the log is
 * (again) as posix_trace_create_withlog() left it; pt_log_before_stop()
 * before a stop, which is to write the stream's data if it returns true;
 * pt_log_written() after the session wrote to the log, which returns
 * true when the stream, running, is to stop now: its log is full
 * (UNTIL_FULL), and the caller stops it, POSIX_TRACE_STOP its last event.
 */
int pt_log_reset(struct pt_trace *t);
/* The log ends at @off, where the session writes next: 0, EFBIG or EIO. */
int pt_log_cut(struct pt_trace *t, uint64_t off);
bool pt_log_before_stop(struct pt_trace *t);
bool pt_log_written(struct pt_trace *t);
/* A libtracebuf error (-errno) writing the log, as posix_trace_flush(3p) lists them. */
int pt_log_errno(int ret);

/* Layer 1 ---------------------------------------------------------------- */

/* decode.c: the file from offset @from to its end, into memory (malloc'd). */
int pt_read_fd(int fd, uint64_t from, char **out, size_t *outlen);
/* Whether @s is the string @lit. */
bool pt_str_eq(const struct tracebuf_reader_str *s, const char *lit);
/* Whether @r is an event of ours, then decoded into @ev, its id @t's. */
bool pt_event_take(struct pt_trace *t, const struct tracebuf_reader_record *r,
		   struct pt_event *ev);
/*
 * A window of records a full buffer dropped: OVERFLOW at its start and
 * RESUME at its end, or an UNTIL_FULL stream's STOP, into @ev (those
 * @t's filter does not hold).  Returns how many (0 if @r is no window).
 */
int pt_drop_window_events(const struct pt_trace *t, const struct tracebuf_reader_record *r,
			  struct pt_event ev[2]);
/* Fill in @info and @data from @ev, cut to max-data-size and @num_bytes. */
void pt_event_report(const struct pt_trace *t, const struct pt_event *ev,
		     struct posix_trace_event_info *info, void *data, size_t num_bytes,
		     size_t *data_len);
/* The name of event type @id in @t, or NULL. */
const char *pt_type_name(const struct pt_trace *t, trace_event_id_t id);
/* The id of user event type @name in @t's table, given one if need be. */
trace_event_id_t pt_table_id(struct pt_trace *t, const char *name, size_t len,
			     trace_event_id_t want);

/* Layer 2 ---------------------------------------------------------------- */

/* queue.c: an active stream without a log, its queue */
void pt_online_free(struct pt_trace *t);
/* posix_trace_clear(): forget all that was recorded (not running). */
int pt_online_clear(struct pt_trace *t);
/* A new run: the writers' seq start again at 0. */
void pt_online_started(struct pt_trace *t);
/*
 * Read into the queue what the stream holds that was not read: a
 * snapshot of a running stream (pt_online_snapshot()), what the stops of
 * a stopped one wrote (pt_online_read_stop()).  0, ENOMEM or EIO.
 */
int pt_online_snapshot(struct pt_trace *t);
int pt_online_read_stop(struct pt_trace *t);
/* Queue the events of @len bytes of FXT records (a system event). */
int pt_online_add(struct pt_trace *t, const void *buf, size_t len);
/* What the stream's providers recorded so far, as their headers hint it. */
uint64_t pt_online_recorded(const struct pt_trace *t);
/* The providers' drop count went up: an overrun. */
void pt_online_check_drops(struct pt_trace *t);
/* A flush or a clear: the stream is not full from now on. */
void pt_online_full_reset(struct pt_trace *t);
/*
 * A LOOP stream with a log: pt_log_flushed() once a flush returned;
 * pt_log_check_overwritten() before a status: its providers overwrote
 * what no flush wrote (an overrun, and FULL).
 */
void pt_log_flushed(struct pt_trace *t);
void pt_log_check_overwritten(struct pt_trace *t);
/*
 * Whether @t is full (posix_trace_get_status(3p)): an UNTIL_FULL
 * stream's provider dropped records, a LOOP stream lost events before
 * they were read; since it was created, emptied, flushed or cleared.
 */
bool pt_online_full(const struct pt_trace *t);
/*
 * Whether @t is an UNTIL_FULL stream that is full, as its provider says
 * now: stopped, as far as its caller can tell, and posix_trace_start(3p)
 * and _stop() record nothing and change nothing ("If the trace stream is
 * full, the POSIX_TRACE_START [STOP] system trace event shall not be
 * recorded and the status of the trace stream shall not be changed").
 */
bool pt_online_until_full(struct pt_trace *t);

/* Layer 3 ---------------------------------------------------------------- */

/*
 * sysevent.c: record system event @id (with @len bytes of @data) in @t,
 * a stream, at @ticks (tracebuf_session_ticks(); 0: now), unless its
 * filter holds it.  Returns 0, EINVAL, EIO (the log could not be
 * written) or ENOMEM.
 */
int pt_system_event(struct pt_trace *t, trace_event_id_t id, uint64_t ticks, const void *data,
		    size_t len);
/*
 * The session's notify callback (@arg: the stream), and what it saw,
 * recorded as POSIX_TRACE_ERROR events (a stream's put_hook).
 */
void pt_session_note(void *arg, const struct tracebuf_session_note *note);
void pt_errors_record(struct pt_trace *t);

/* Layer 4 ---------------------------------------------------------------- */

/* run.c: start @t's session with its filter's categories: 0, ENOMEM, EBUSY or EIO */
int pt_session_start(struct pt_trace *t, uint32_t disposition);
int pt_session_wake_arm(struct pt_trace *t);
/* Stop a running stream's provider, its data written as its log allows, or queued. */
int pt_stream_stop(struct pt_trace *t);
/* Stop and start a running stream's provider again. */
int pt_stream_restart(struct pt_trace *t);
/* Stop a running stream whose log filled, POSIX_TRACE_STOP its last event. */
int pt_stream_stop_full(struct pt_trace *t);
/* Flush a running stream with a log, losing nothing where it can. */
int pt_stream_flush(struct pt_trace *t);
/* A running stream's provider records by its new filter. */
int pt_stream_refilter(struct pt_trace *t);
/* Start a stream emptied after it filled again, cleared, its START first. */
int pt_stream_restart_emptied(struct pt_trace *t);

/* Layer 5 ---------------------------------------------------------------- */

/*
 * online.c: an active stream without a log, read (@wait: block until
 * @deadline, if not NULL).  0 (*@unavailable set), EINVAL if the stream
 * was shut down meanwhile, ETIMEDOUT, ENOMEM or EIO.
 */
int pt_online_getnext(struct pt_trace *t, struct posix_trace_event_info *info, void *data,
		      size_t num_bytes, size_t *data_len, int *unavailable,
		      const struct timespec *deadline, bool wait);
/* Before get_status: what an active stream without a log holds, if it may tell more. */
int pt_online_refresh(struct pt_trace *t);

/*
 * keeper.c: @t, locked, has a keeper as it is now when it is a running
 * stream with a log (made again if its session changed since:
 * keeper_stale), and none otherwise.  pt_keeper_free() retires it and
 * frees what @t holds for keepers, before its files are closed.
 */
void pt_keeper_sync(struct pt_trace *t);
void pt_keeper_free(struct pt_trace *t);

/* Layer 6: filter.c, log.c, stream.c define the API alone. */

#endif /* POSIXTRACE_PRIV_H */
