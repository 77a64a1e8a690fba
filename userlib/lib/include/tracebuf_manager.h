/* SPDX-License-Identifier: MIT */
/*
 * libtracebuf: the manager side.  Needs CAP_PERFMON or CAP_SYS_ADMIN, or
 * the group of the module parameter manager_gid.
 *
 * A manager lists providers and reads their published categories:
 *
 *	struct tracebuf_manager *m;
 *	struct tracebuf_provider_info *list;
 *	tracebuf_manager_open(NULL, 0, &m);
 *	n = tracebuf_manager_list(m, &list);	// free(list)
 *
 * A session traces providers into one FXT file (Fuchsia's trace_manager):
 *
 *	struct tracebuf_session_config cfg = {
 *		.size = sizeof(cfg), .mode = TRACEBUF_MODE_STREAMING,
 *		.output_fd = fd,
 *	};
 *	tracebuf_session_create(&cfg, &s);  // magic record; initialize
 *	tracebuf_session_start(s, NULL);	   // waits up to 5 s
 *	while (!done) {
 *		poll tracebuf_session_fd(s) for POLLIN;
 *		tracebuf_session_dispatch(s);	   // saves, joiners, deaths
 *	}
 *	tracebuf_session_stop(s, true);		   // waits up to 60 s
 *	tracebuf_session_destroy(s);		   // terminate, flush
 *
 * What is written (as Fuchsia's trace manager writes it): the magic
 * record, then per chunk of a provider's data a provider info record
 * (the first time, with its name) or a provider section record, a
 * provider event "buffer overflow" when its header counts new drops, its
 * new durable records and its rolling records.  Streaming saves are
 * appended as they arrive; everything else when a provider stops,
 * terminates or dies.  A provider that died is harvested record by
 * record from the buffer it left.
 *
 * Nothing read from a provider is trusted: its buffer header is checked
 * field by field against what the manager computed, every chunk is
 * copied out of the shared buffer first and cut to whole, plausible
 * records (zero words, which a crashed writer leaves, are skipped;
 * metadata records, which only a manager may write, are removed), and a
 * provider that breaks the save protocol is terminated.
 *
 * Every function returns 0 (or a count) on success and -errno on failure.
 * One thread at a time per manager or session.
 */
#ifndef TRACEBUF_MANAGER_H
#define TRACEBUF_MANAGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/tracebuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* The manager file                                                         */

#define TRACEBUF_LIB_MANAGER_WATCH	(1u << 0)	/* queue registry events */

struct tracebuf_manager;

/**
 * tracebuf_manager_open() - open @device (NULL: /dev/tracebuf) as a manager
 * Return: 0 and *@out; -ENOENT without the device (module not loaded),
 * -EPERM without the privilege, -EPROTONOSUPPORT for another ABI major.
 */
int tracebuf_manager_open(const char *device, uint32_t flags,
			  struct tracebuf_manager **out);
/** tracebuf_manager_fd() - the file: POLLIN when a message waits */
int tracebuf_manager_fd(const struct tracebuf_manager *m);
/** tracebuf_manager_version() - what the module reported */
const struct tracebuf_version_args *
tracebuf_manager_version(const struct tracebuf_manager *m);
/**
 * tracebuf_manager_buffer_align() - what a buffer size must be a multiple
 * of on this kernel: 4096 (TRACEBUF_BUFFER_ALIGN), or its page size when
 * larger (16 KiB, 64 KiB on some arm64 kernels).  Sizes from it up to
 * tracebuf_manager_version()->max_buffer_size are valid.
 */
uint64_t tracebuf_manager_buffer_align(const struct tracebuf_manager *m);
/**
 * tracebuf_buffer_size_check() - the rule for a trace buffer's size, the
 * library's one home for it: at least TRACEBUF_BUFFER_MIN, a multiple of
 * tracebuf_manager_buffer_align(@m) and at most @m's max_buffer_size.
 * With @m NULL, what holds on every kernel: a multiple of
 * TRACEBUF_BUFFER_ALIGN from TRACEBUF_BUFFER_MIN to TRACEBUF_BUFFER_MAX
 * (for a check before a device is opened).
 * Return: 0, -EFBIG (too large, said first) or -EINVAL (too small, or
 * not a multiple).
 */
int tracebuf_buffer_size_check(const struct tracebuf_manager *m, uint64_t size);
/**
 * tracebuf_buffer_size_for() - the smallest buffer size, a multiple of
 * @align (a power of two, a multiple of TRACEBUF_BUFFER_ALIGN; 0 for
 * TRACEBUF_BUFFER_ALIGN), in which @bytes of a libtracebuf provider's
 * records, none over @max_record bytes (a multiple of 8), written by up
 * to @writers threads (0 for 1), fit one rolling buffer of TRACEBUF_MODE_*
 * @mode, with room for @durable bytes of string and thread records
 * besides: oneshot keeps them all, streaming keeps them all before its
 * first save, circular always keeps the newest @bytes of them.  It counts
 * what the provider's engine spends on them (chunks, padding, the stop
 * reserve), by the rules of this version of the library.
 * Return: the size, or 0 for bad arguments or when no size up to
 * TRACEBUF_BUFFER_MAX holds them; check it against a kernel with
 * tracebuf_buffer_size_check().
 */
uint64_t tracebuf_buffer_size_for(uint32_t mode, uint64_t bytes, uint64_t max_record,
				  uint32_t writers, uint64_t durable, uint64_t align);
/**
 * tracebuf_manager_list() - every provider this manager can see, by id
 * Return: the count and a malloc'd array in *@out (NULL when 0).
 */
int tracebuf_manager_list(struct tracebuf_manager *m,
			  struct tracebuf_provider_info **out);
/**
 * tracebuf_manager_categories() - what provider @id published: *@blob
 * (malloc'd; NULL when empty) holds *@count pairs of NUL-terminated
 * name and description, *@size bytes.
 */
int tracebuf_manager_categories(struct tracebuf_manager *m, uint32_t id,
				char **blob, uint32_t *size, uint32_t *count);
void tracebuf_manager_close(struct tracebuf_manager *m);

/* ------------------------------------------------------------------------ */
/* A session                                                                */

/*
 * Each provider's buffer unless the session says otherwise: the smallest
 * measured with which one writer streaming as fast as it can in the
 * emulated guest lost nothing (README.md, "Streaming: make bench-stream").
 */
#define TRACEBUF_LIB_DEFAULT_BUFFER_SIZE	(4u << 20)
#define TRACEBUF_LIB_START_TIMEOUT_MS		5000u
#define TRACEBUF_LIB_STOP_TIMEOUT_MS		60000u

/* Settings for the providers of one name. */
struct tracebuf_session_override {
	const char *name;		/* provider name, exact */
	uint64_t buffer_size;		/* 0: the session's */
	const char *const *categories;	/* added to the session's */
	size_t ncategories;
};

/* What a session tells its caller (tracebuf_session_config.notify). */
#define TRACEBUF_LIB_NOTE_JOINED	1	/* initialized (late: and started) */
#define TRACEBUF_LIB_NOTE_STARTED	2
#define TRACEBUF_LIB_NOTE_STOPPED	3
#define TRACEBUF_LIB_NOTE_SAVED		4	/* a streaming save was written */
#define TRACEBUF_LIB_NOTE_ALERT		5	/* .alert is its name */
#define TRACEBUF_LIB_NOTE_GONE		6	/* died; its data was harvested */
#define TRACEBUF_LIB_NOTE_TERMINATED	7
#define TRACEBUF_LIB_NOTE_ERROR		8	/* .error, .what: e.g. a bad header,
						 * a refused initialize
						 */

struct tracebuf_session_note {
	uint32_t type;			/* TRACEBUF_LIB_NOTE_* */
	uint32_t provider_id;
	const char *provider_name;
	const char *alert;		/* NOTE_ALERT */
	int error;			/* NOTE_ERROR: -errno */
	const char *what;		/* NOTE_ERROR: one line */
};

/*
 * The callback runs inside the session's functions: it may record what
 * happened (e.g. "stop now" on an alert) but must not call the session.
 */
typedef void (*tracebuf_session_notify_fn)(void *arg,
					   const struct tracebuf_session_note *note);

/*
 * A session's configuration.  size is sizeof(struct
 * tracebuf_session_config) as the caller's header has it: a smaller one
 * than this release's is -EINVAL; a larger one (a newer header) is taken
 * when the fields this library does not know are zero.
 *
 * Categories.  A category ending in '*' enables every category that
 * begins with what comes before it.  One beginning with '-' excludes the
 * categories it matches, whatever else enables them; a list of
 * exclusions only enables every other category (as Chrome's category
 * filters read "-cat").  Providers of libtracebuf 1.2 and later read
 * exclusions; an older one takes "-cat" for a name and enables nothing
 * of a list of exclusions only.  An exclusion is always "known"
 * (tracebuf_session_category_known()).
 *
 * Pointers.  categories is copied by tracebuf_session_create(), and
 * device read by it only.  providers and overrides, with everything they
 * point to (names, each override's categories), are borrowed: providers
 * that register later are matched against them, so they must stay valid
 * and unchanged until tracebuf_session_destroy(), as must what notify
 * needs of arg.  The strings of a note are valid during the callback
 * only; a start's additional categories are copied by
 * tracebuf_session_start().
 */
/*
 * tracebuf_session_config.flags: NO_PROVIDERS (since 1.4), the session
 * traces no provider: its output holds what the manager writes itself
 * (tracebuf_session_write()); providers and overrides are ignored, and
 * no provider waits for its start.
 */
#define TRACEBUF_LIB_SESSION_NO_PROVIDERS	(1u << 0)
/*
 * HOLD_SAVED (since 1.4): in tracebuf_session_dispatch(), a streaming
 * save is written (TRACEBUF_LIB_NOTE_SAVED) but its BUFFER_SAVED, which
 * lets the provider write into that rolling buffer again, is held until
 * tracebuf_session_send_saved() or the next dispatch (the calls that wait
 * for providers dispatch too); so is the START of a provider that joins
 * (initialized, TRACEBUF_LIB_NOTE_JOINED): the caller first does what
 * must not miss the save or the joiner (libposixtrace copies the session
 * into its keeper).
 */
#define TRACEBUF_LIB_SESSION_HOLD_SAVED		(1u << 1)

struct tracebuf_session_config {
	size_t size;			/* sizeof(struct tracebuf_session_config) */
	uint32_t mode;			/* TRACEBUF_MODE_*; 0: oneshot */
	uint32_t flags;			/* TRACEBUF_LIB_SESSION_* */
	uint64_t buffer_size;		/* per provider; 0: 4 MiB */
	const char *const *categories;	/* none: every category; "P*" a
					 * prefix, "-P" excludes (below)
					 */
	size_t ncategories;
	const char *const *providers;	/* names to trace; none: all */
	size_t nproviders;
	const struct tracebuf_session_override *overrides;
	size_t noverrides;
	uint32_t start_timeout_ms;	/* 0: 5000 */
	uint32_t stop_timeout_ms;	/* 0: 60000, also for terminate */
	int output_fd;			/* the FXT file, written in order */
	tracebuf_session_notify_fn notify;
	void *arg;
	const char *device;		/* NULL: /dev/tracebuf */
};

/* Arguments of tracebuf_session_start(); NULL means all defaults. */
struct tracebuf_session_start_args {
	uint32_t disposition;		/* TRACEBUF_START_*; 0: RETAIN, which
					 * becomes CLEAR_ENTIRE once results
					 * were written (as Fuchsia)
					 */
	uint32_t reserved;
	const char *const *categories;	/* additional, for this start */
	size_t ncategories;
};

/* A traced provider, as the session sees it. */
#define TRACEBUF_LIB_TRACEE_INITIALIZED	1
#define TRACEBUF_LIB_TRACEE_STARTING	2
#define TRACEBUF_LIB_TRACEE_STARTED	3
#define TRACEBUF_LIB_TRACEE_STOPPING	4
#define TRACEBUF_LIB_TRACEE_STOPPED	5
#define TRACEBUF_LIB_TRACEE_TERMINATING	6
#define TRACEBUF_LIB_TRACEE_TERMINATED	7
#define TRACEBUF_LIB_TRACEE_GONE	8	/* died */
#define TRACEBUF_LIB_TRACEE_FAILED	9	/* could not be initialized or
						 * started: .error says why
						 */
#define TRACEBUF_LIB_TRACEE_BUSY	10	/* wanted, but another manager
						 * traces it
						 */
#define TRACEBUF_LIB_TRACEE_LEFT	11	/* left to another manager,
						 * whose trace names it: a
						 * session of every provider
						 * does not take it (since
						 * 1.4, module ABI 1.12)
						 */

struct tracebuf_session_provider {
	uint32_t id;
	uint32_t pid;
	char name[TRACEBUF_NAME_MAX + 1];
	uint32_t state;			/* TRACEBUF_LIB_TRACEE_* */
	uint32_t mode;			/* TRACEBUF_MODE_* */
	uint64_t buffer_size;
	uint64_t bytes_written;		/* records written to the file */
	uint64_t bytes_recorded;	/* while it runs: what its header says
					 * it recorded so far (a hint)
					 */
	uint64_t saves;			/* streaming saves served */
	uint64_t records_dropped;	/* as its header last said */
	uint64_t bytes_rejected;	/* cut from its data: not whole,
					 * plausible records
					 */
	uint32_t alerts;
	int error;			/* FAILED: why; otherwise -ETIMEDOUT if
					 * it did not start or stop in time,
					 * -ETIME if it had stopped waiting
					 * for its start before it came (what
					 * it recorded before is missing),
					 * else the first error noted for it
					 * that cost it data (-EPROTO: it
					 * broke the protocol and was
					 * terminated; -EINVAL: its buffer
					 * did not check out, or an output
					 * error); 0 if none
					 */
	bool late;			/* joined after the session started */
	bool crashed;			/* harvested without a final header */
	bool dropped_doubtful;		/* records_dropped is more than it
					 * could have dropped: not a count
					 * (libtracebuf 1.4)
					 */
	uint32_t drop_windows;		/* "records dropped" events in its data */
};

struct tracebuf_session;

/**
 * tracebuf_session_create() - attach, write the magic record and
 * initialize every matching provider that no other manager owns.
 * Return: 0 and *@out; -EINVAL for a bad config (mode, a buffer size
 * tracebuf_buffer_size_check() refuses with -EINVAL, a category over 100
 * bytes), -E2BIG for over TRACEBUF_CATEGORIES_MAX categories or names,
 * -EFBIG for a buffer over the module's max_buffer_size, -ENOMEM, the
 * output's write() errors, or the manager_open() errors.
 */
int tracebuf_session_create(const struct tracebuf_session_config *cfg,
			    struct tracebuf_session **out);
/** tracebuf_session_fd() - poll for POLLIN, then tracebuf_session_dispatch() */
int tracebuf_session_fd(const struct tracebuf_session *s);
/**
 * tracebuf_session_dispatch() - handle what is waiting, without blocking:
 * packets (STARTED, SAVE_BUFFER, STOPPED, ALERT), terminations, deaths
 * and late joiners; at most 128 messages a call, so that providers that
 * save as fast as it handles cannot keep the caller in it: call it again
 * while tracebuf_session_fd() polls readable (as poll() without EPOLLET
 * does).  Return: messages handled, or -errno (-EIO once the output could
 * not be written).
 */
int tracebuf_session_dispatch(struct tracebuf_session *s);
/**
 * tracebuf_session_start() - start every provider and wait until each
 * has started, stopped or died, or the start timeout (then go on anyway).
 * Return: 0; -EINVAL for bad @args (reserved, disposition, a category
 * over 100 bytes), -E2BIG for too many categories, -ENOMEM, and nothing
 * is started; -EALREADY if started, -EBUSY while stopping; or
 * an error of the wait for the answers (-errno of poll(), or of the
 * device), and the session is started all the same: stop it.
 */
int tracebuf_session_start(struct tracebuf_session *s,
			   const struct tracebuf_session_start_args *args);
/**
 * tracebuf_session_update() - replace the additional categories of a
 * started session while its providers go on recording (module ABI 1.6):
 * each started provider records by @args' categories (the config's, then
 * these) once this returns, without a stop; one that does not apply them
 * within the start timeout is said in a TRACEBUF_LIB_NOTE_ERROR note, as
 * is one that refuses.  Providers started later take them too.
 * @args: disposition 0; categories as for tracebuf_session_start()
 * Return: 0, -EINVAL (not started, a bad list, a disposition, from the
 * callback), -EOPNOTSUPP (a module older than ABI 1.6), -ENOMEM.
 */
int tracebuf_session_update(struct tracebuf_session *s,
			    const struct tracebuf_session_start_args *args);
/**
 * tracebuf_session_stop() - stop every provider and wait for each (stop
 * timeout); with @write_results, write each one's data as it stops.  All
 * that was written to the output is in the file when it returns (a
 * reader of the file sees the stopped trace whole).
 * Return: 0, -EALREADY if not started, or an output error (-errno).
 */
int tracebuf_session_stop(struct tracebuf_session *s, bool write_results);
/**
 * tracebuf_session_terminate() - terminate every provider and wait (stop
 * timeout), writing the data of those started and not yet written.
 */
int tracebuf_session_terminate(struct tracebuf_session *s);
/**
 * tracebuf_session_providers() - up to @cap providers into @out
 * Return: how many the session has (may exceed @cap).
 */
int tracebuf_session_providers(const struct tracebuf_session *s,
			       struct tracebuf_session_provider *out, size_t cap);
/* How a provider that went (TRACEBUF_LIB_TRACEE_GONE) ended. */
#define TRACEBUF_LIB_END_UNKNOWN	0	/* not gone, a module before ABI
						 * 1.11, or its file was closed by
						 * another process (one it shared
						 * the file with) or the kernel
						 */
#define TRACEBUF_LIB_END_EXITED		1	/* its process exited: the wait
						 * status tells how
						 */
#define TRACEBUF_LIB_END_CLOSED		2	/* its process closed the file
						 * (or an exec did) and ran on
						 */
/**
 * tracebuf_session_provider_end() - how provider @id, gone while the
 * session owned it, ended, as the kernel saw its file close (module ABI
 * 1.11, TRACEBUF_FEAT_GONE_STATUS).
 * @wait_status: if not NULL, for TRACEBUF_LIB_END_EXITED, how its process
 *	exits, as wait() would report it (WIFEXITED(), WTERMSIG(), ...);
 *	else 0
 * Return: TRACEBUF_LIB_END_*, or -ENOENT if the session has no provider @id.
 */
int tracebuf_session_provider_end(const struct tracebuf_session *s, uint32_t id,
				  int *wait_status);
/**
 * tracebuf_session_snapshot() - write what the buffers of the session's
 * started providers hold now to @fd, a trace of its own (it starts with
 * the magic record), while they go on writing: a flight recorder's dump.
 * The session's own output is not affected.  Circular and oneshot
 * sessions; each provider makes its records whole and answers, within
 * the start timeout.  What a provider could not give (no answer, a
 * refusal, its buffer reused while it was copied) is said in a
 * TRACEBUF_LIB_NOTE_ERROR note, during the call.  Not from the notify
 * callback.  @bytes: if not NULL, what was written to @fd.
 * Return: how many providers' data the snapshot holds, or -EOPNOTSUPP
 * (streaming mode, or a module older than ABI 1.5), -EINVAL (not
 * started, @fd < 0, or called from the callback), -ENOMEM, or the first
 * error writing @fd (-errno).
 */
int tracebuf_session_snapshot(struct tracebuf_session *s, int fd, uint64_t *bytes);
/**
 * tracebuf_session_flush() - write what the session's started providers
 * recorded so far to the session's output, while they go on recording,
 * and lose nothing.  In streaming mode each ends the rolling buffer it
 * writes and has it saved, at once or after the save before it (module
 * ABI 1.10, TRACEBUF_FEAT_SAVE_NOW); a provider built with a libtracebuf
 * before 1.4 answers at once, and its records come with its next save.
 * In circular and oneshot mode (ABI 1.5) each makes its records whole,
 * as for a snapshot, and the session writes those no flush wrote yet;
 * its stop then writes only what came after (a oneshot buffer's room
 * stays taken until it is cleared).  Returns when every provider's part
 * is written (within the stop timeout), or it stopped or ended (whose
 * read-out writes the rest).  A provider that did not flush (a refusal,
 * no answer in time, an answer that does not check out, a circular
 * buffer reused while it was copied) is said in a
 * TRACEBUF_LIB_NOTE_ERROR note; what it holds is written at its stop.
 * Not from the notify callback.
 * Return: 0; -EIO (a provider's part was not written: refused, an
 * answer that does not check out, a copy torn), -ETIMEDOUT (a provider
 * did not flush in time), -EOPNOTSUPP
 * (a module older than ABI 1.10 in streaming mode, 1.5 otherwise),
 * -EINVAL (not started, called from the callback or during a snapshot),
 * or the first error writing the output (-errno).
 */
int tracebuf_session_flush(struct tracebuf_session *s);
/**
 * tracebuf_session_bytes() - bytes written to the output so far, to all
 * its files if tracebuf_session_rotate() switched them: the current file
 * holds what it grew by since the last rotation.
 */
uint64_t tracebuf_session_bytes(const struct tracebuf_session *s);
/**
 * tracebuf_session_ticks() - now, in the timebase the session's providers
 * stamp their records with (tracebuf_ticks() of a provider on this
 * machine: the CPU counter when the kernel vouches for it, else
 * nanoseconds of CLOCK_MONOTONIC), for records the manager writes itself
 * (tracebuf_session_write()).  @ticks_per_second: if not NULL, its rate.
 */
uint64_t tracebuf_session_ticks(const struct tracebuf_session *s,
				uint64_t *ticks_per_second);
/* The name of provider 0, whose records tracebuf_session_write() writes. */
#define TRACEBUF_LIB_SESSION_PROVIDER_NAME	"tracebuf.session"

/**
 * tracebuf_session_write() - write records the manager made itself to the
 * output, where its providers' data go, as provider 0's (no provider has
 * that id): behind its provider info record (named
 * TRACEBUF_LIB_SESSION_PROVIDER_NAME) the first time in the file, else a
 * provider section record, and an initialization record of the session's
 * timebase: their timestamps are tracebuf_session_ticks().
 * They are in the file when it returns.
 * @records: whole FXT records, 8-aligned, that refer to no string or
 *	thread table entry (inline strings and thread koids only: they may
 *	land between any provider's records)
 * Return: 0, -EINVAL (not whole records, or @len 0), or the session's
 * output error (-errno).
 */
int tracebuf_session_write(struct tracebuf_session *s, const void *records, size_t len);
/**
 * tracebuf_session_rotate() - go on writing in a new file: flush all that
 * was written to the output so far (the caller then closes it; its trace
 * is whole), and write from now on to @fd, starting with the magic
 * record.  Each provider's next data in @fd comes behind its provider
 * info record and all its durable records again (its initialization
 * record, the strings and threads it refers to), so that each file reads
 * alone.  Any mode, in any state (since 1.4: before, streaming only):
 * streaming writes a rolling buffer as it fills, the other modes at each
 * tracebuf_session_flush() and at the end.  @fd may be the output itself,
 * so that what comes next reads alone in it.  Not from the notify
 * callback.  tracebuf_session_bytes() goes on counting: its value before
 * the call is where @fd's bytes begin.
 * Return: 0, -EINVAL (@fd < 0, or called
 * from the callback), or a write error (-errno): of the current output
 * (the session's error: nothing changed), or of the magic record to @fd
 * (the session's error, on @fd).
 */
int tracebuf_session_rotate(struct tracebuf_session *s, int fd);
/**
 * tracebuf_session_forked() - in a child of fork() that is to finish its
 * parent's session once the parent is gone (a keeper that writes what a
 * dead controller's providers left): map the providers' buffers again,
 * which fork() does not copy; the output the parent had not written yet
 * stays, the child's to write.  The child, alone, then uses the session
 * as its parent would have: it must not touch it while the parent may
 * (they share the manager file, whose messages the first reader takes,
 * and the output).  If the parent may have written since the fork, the
 * child first cuts the output back to where it stood then (an offset the
 * parent took before fork()), so that what it writes follows what the
 * session it copied wrote.  @fds: up to @cap of the files the session uses (its
 * manager file, its output, the buffers' handles), so that the child may
 * close every other.  Not from the notify callback.
 * Return: how many files the session uses (more than @cap: some left
 * out), -EINVAL, or the first error mapping a buffer again (-errno: that
 * provider's data is not read out).
 */
int tracebuf_session_forked(struct tracebuf_session *s, int *fds, size_t cap);
/**
 * tracebuf_session_send_saved() - HOLD_SAVED: send the BUFFER_SAVED of
 * the saves written by the last tracebuf_session_dispatch(), and the
 * START of the providers that joined in it (one that cannot be sent is
 * said in a TRACEBUF_LIB_NOTE_ERROR note; in a copy made by fork(), a
 * START its parent sent is taken as sent).  Not from the notify
 * callback.
 * Return: 0, or -EINVAL.
 */
int tracebuf_session_send_saved(struct tracebuf_session *s);
/**
 * tracebuf_session_category_known() - whether the session's category
 * number @i (of tracebuf_session_config.categories) is known: published
 * by a provider the session started, or the category of an event it
 * wrote.  A pattern ending in '*' matches by prefix.
 * Return: 1 or 0, -EINVAL if there is no such category.
 */
int tracebuf_session_category_known(const struct tracebuf_session *s, size_t i);
/**
 * tracebuf_session_destroy() - terminate if needed, flush the output and
 * free.  Return: 0, or the first output error (-errno) of the session.
 * The caller closes output_fd.
 */
int tracebuf_session_destroy(struct tracebuf_session *s);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBUF_MANAGER_H */
