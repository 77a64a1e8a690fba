/* SPDX-License-Identifier: MIT */
/*
 * libtracebuf, private: a session's state, shared by session.c (the
 * session: its tracees, the kernel's messages, the API), readout.c (what
 * is read out of provider buffers: the trust boundary) and output.c (the
 * trace file, notes).  They call downwards only: session.c into
 * readout.c and output.c, readout.c into output.c; the manager file
 * (manager.c) they reach through tracebuf_manager.h.
 */
#ifndef TRACEBUF_SESSION_PRIV_H
#define TRACEBUF_SESSION_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <tracebuf_manager.h>

#include "layout_priv.h"

enum tb_session_state {
	TB_S_READY, TB_S_STARTING, TB_S_STARTED, TB_S_STOPPING, TB_S_STOPPED,
	TB_S_TERMINATING, TB_S_TERMINATED,
};

/* A sealed save's view of a rolling buffer (tb_readout_sealed()). */
struct tb_seal_view {
	uint8_t *base;		/* a page, the sealed pages, a page */
	size_t len;
};

struct tb_tracee {
	struct tb_tracee *next;
	struct tracebuf_session_provider info;	/* what the caller sees */
	int buffer_fd;
	const uint8_t *map;
	uint64_t mapped_ns;			/* CLOCK_MONOTONIC, when mapped */
	struct tb_layout lay;
	char *cats;				/* INITIALIZE's categories */
	uint32_t cats_size, cats_count;
	bool was_started;			/* since the last read-out */
	bool results_written;
	bool info_written;			/* provider info record out */
	bool dropped_lie_noted;			/* tb_dropped_credible() */
	bool saved_any;				/* streaming, since a clear */
	uint32_t last_saved_wrap;
	uint64_t durable_written;		/* durable bytes in the file */
	uint64_t dropped_reported;
	bool snap_pending;			/* a SNAPSHOT unanswered (a
						 * snapshot's or a flush's)
						 */
	uint8_t snap_tries;			/* SNAPSHOTs sent for this one */
	bool update_pending;			/* a categories update unanswered */
	/* a flush (tracebuf_session_flush()), streaming: a save now */
	bool flush_saving;			/* answered: saves to wait for */
	bool flush_upto;			/* through flush_wrap, else the one before */
	uint32_t flush_wrap;
	/* circular, oneshot: what a flush wrote, up to here (the mark) */
	bool mark_set;
	uint32_t mark_wrap;
	uint64_t mark_end;
	struct tb_seal_view view[2];		/* per rolling buffer, or none */
	uint16_t stop_sealed;			/* STOPPED's, until a START */
	/* MSG_GONE's: how its process ended (tracebuf_session_provider_end()) */
	uint16_t gone_how;			/* TRACEBUF_GONE_*, 0: unknown */
	uint32_t gone_status;			/* EXITED: the wait status */
	/*
	 * a stop or terminate found it gone (ESRCH): its MSG_GONE is queued,
	 * or went to another reader of the manager file (tb_gone_unread())
	 */
	bool unknown;
	/* HOLD_SAVED: the BUFFER_SAVED of a save written, not sent yet */
	bool saved_held;
	bool start_held;			/* and a late joiner's START */
	struct tracebuf_pkt saved_ack;
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
	const uint8_t *keep_durable;		/* the durable records of the
						 * buffer being read out, for
						 * tb_keep()'s category refs
						 */
	size_t keep_durable_len;
	bool write_results;			/* of the stop under way */
	bool results_written;			/* by any read-out so far */
	struct tb_out out;
	uint8_t *scratch;			/* a chunk copied out of a buffer */
	size_t scratch_cap;
	struct tb_snap *snap;			/* the snapshot under way */
	uint8_t *snap_copy;			/* a buffer's ranges, copied; kept
						 * for the next snapshot: its pages
						 * are in, the copy is faster
						 */
	size_t snap_copy_cap;
	bool in_notify;				/* in the caller's notify callback */
	bool holding;				/* in the caller's dispatch, with
						 * HOLD_SAVED: saves' acks held
						 */
	bool flushing;				/* tracebuf_session_flush() */
	bool flush_failed;			/* a provider's part not written */
	bool own_info_written;			/* provider 0's, in this file */
};

/* A snapshot under way (session.c): its own file, and what it holds. */
struct tb_snap {
	struct tb_out out;
	int providers;				/* whose data it holds */
};

/* output.c: the trace file, and notes to the caller */
void tb_note(struct tracebuf_session *s, uint32_t type, const struct tb_tracee *t,
	     int error, const char *what, const char *alert);
void tb_tracee_error(struct tracebuf_session *s, struct tb_tracee *t, int error,
		     const char *what);
int tb_out_write(struct tb_out *o, const void *buf, size_t len);
#define TB_OUT_PIECES	64	/* tb_out_writev()'s at most */
int tb_out_writev(struct tb_out *o, const struct iovec *iov, unsigned int n);
int tb_out_flush(struct tb_out *o);

/* readout.c */
bool tb_readout_plain_event(const uint8_t *p, size_t words);
size_t tb_readout_pad(const uint8_t *p, size_t left);
/* the walk of every save and snapshot (hostile_test and tb-bench call it too) */
size_t tb_readout_keep(struct tracebuf_session *s, struct tb_out *o, const uint8_t *buf,
		       size_t len, uint64_t *rejected, uint64_t *padding,
		       uint32_t *drop_windows);
bool tb_readout_snapshot(const struct tb_tracee *t, struct tracebuf_buffer_header *h);
int tb_readout_section(struct tracebuf_session *s, struct tb_tracee *t);
bool tb_dropped_credible(const struct tb_tracee *t, uint64_t dropped);
void tb_readout_dropped(struct tracebuf_session *s, struct tb_tracee *t,
			uint64_t dropped);
int tb_readout_range(struct tracebuf_session *s, struct tb_tracee *t,
		     uint64_t off, uint64_t len);
int tb_readout_sealed(struct tracebuf_session *s, struct tb_tracee *t,
		      unsigned int rb, uint64_t len);
void tb_readout_views_free(struct tb_tracee *t);
void tb_readout(struct tracebuf_session *s, struct tb_tracee *t, bool final);
void tb_category_seen(struct tracebuf_session *s, const char *cat, size_t len);
bool tb_categories_name(const struct tracebuf_session *s, const char *cat, size_t len);
int tb_readout_taken(struct tracebuf_session *s, struct tb_tracee *t,
		     uint32_t wrap, uint64_t end, bool may_retry);
int tb_readout_flushed(struct tracebuf_session *s, struct tb_tracee *t,
		       uint32_t wrap, uint64_t end, bool may_retry);

#endif /* TRACEBUF_SESSION_PRIV_H */
