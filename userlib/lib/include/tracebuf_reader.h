/* SPDX-License-Identifier: MIT */
/*
 * tracebuf_reader.h: read FXT (Fuchsia Trace Format) records.
 *
 * A reader iterates over the records of a trace held in memory (a trace
 * file, or the records copied out of a provider's buffer) and decodes
 * them: string and thread refs are resolved, timestamps converted to
 * nanoseconds, arguments decoded.  Section numbers (§) refer to
 * userlib/Documentation/trace-format.md in tracebuf's source tree (from
 * Fuchsia's docs/reference/tracing/trace-format.md); the record layouts
 * are in tracebuf_fxt.h.
 *
 * State (§4.1).  Like Fuchsia's and Perfetto's readers, it keeps a state
 * per provider: ticks per second (1e9 until an initialization record
 * says otherwise), the string table (indexes 1..0x7fff), the thread table
 * (1..255) and the provider's name.  Records before any provider record
 * belong to provider 0.  A provider info record starts a fresh state for
 * its provider id (empty tables, the given name) and makes it current; a
 * provider section record makes its provider current (creating an empty
 * state for an id not seen before); a provider event record changes
 * nothing.  A string or thread record registers or replaces an entry of
 * the current provider's table; one for index 0 is returned but ignored
 * (§4.2).
 *
 * Untrusted input.  Every size, length and ref is checked against the
 * record and the input: no input makes the reader read outside it, loop or
 * use memory beyond a small multiple of the input's size.  The input must
 * not change while a reader uses it (copy a live shared buffer first).
 *
 *  - Framing: a record of size 0 (a zero word included), a record that runs
 *    past the end of the input, or trailing bytes that are not a whole
 *    record, are malformed (-EBADMSG).
 *  - Contents: a field that runs past the end of its record (inline
 *    string, koids, argument, value word, type-specific word), an argument
 *    of size 0 or one too short for its type, or an initialization record
 *    with 0 ticks per second, is malformed (-EBADMSG).  Words past the end
 *    of what a known record or argument type defines are ignored: the
 *    format lets records grow that way.
 *  - A ref to a string or thread table entry that was never registered
 *    resolves to the empty string or to koids 0, 0 and is counted (see
 *    tracebuf_reader_unresolved_refs()); with TRACEBUF_LIB_READER_STRICT it
 *    is an error (-ENOENT) instead.
 *  - Records of unknown type, metadata and events of unknown subtype, and
 *    arguments of unknown type are not errors: they are returned with
 *    their generic fields (the record's type, size and bytes; the
 *    argument's type, name and raw value bytes) and skipped by their size.
 *
 * Errors are final: once tracebuf_reader_next() has returned -errno, it
 * returns the same error again; tracebuf_reader_error_offset() and
 * tracebuf_reader_error() say where and what.
 *
 * Lifetime.  Pointers in a record point into the input (or into the
 * reader's copy of a file) and stay valid until tracebuf_reader_close().
 * Strings are not NUL-terminated.  A reader is not thread-safe; distinct
 * readers are independent (there is no global state).
 */
#ifndef TRACEBUF_READER_H
#define TRACEBUF_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tracebuf_fxt.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tracebuf_reader;

/* Flags for tracebuf_reader_open_*(). */
/* A ref to a missing string or thread table entry is an error (-ENOENT). */
#define TRACEBUF_LIB_READER_STRICT	(1u << 0)
/* The input must begin with the magic record (a trace file), else -EBADMSG. */
#define TRACEBUF_LIB_READER_MAGIC	(1u << 1)
#define TRACEBUF_LIB_READER_FLAGS	(TRACEBUF_LIB_READER_STRICT | \
					 TRACEBUF_LIB_READER_MAGIC)

/* A string or byte range inside the input; data is NULL only if len is 0. */
struct tracebuf_reader_str {
	const char *data;
	size_t len;
};

/* One decoded argument. */
struct tracebuf_reader_arg {
	unsigned int type;			/* TRACEBUF_LIB_FXT_ARG_* */
	struct tracebuf_reader_str name;
	union {
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;
		double dbl;
		struct tracebuf_reader_str str;	/* STRING: the value */
		uint64_t ptr;
		uint64_t koid;
		bool b;
		/*
		 * BLOB: the payload; unknown types: the argument's words
		 * after its header and inline name.
		 */
		struct tracebuf_reader_str raw;
	};
};

/* One decoded record: the fields of the member selected by type. */
struct tracebuf_reader_record {
	unsigned int type;		/* TRACEBUF_LIB_FXT_RECORD_* (0..15) */
	size_t offset;			/* in the input, bytes */
	size_t size;			/* bytes, header included */
	const void *data;		/* the record's bytes */
	/*
	 * The provider whose section holds this record (for provider info
	 * and section records: the one they select), and its name.
	 */
	uint32_t provider_id;
	struct tracebuf_reader_str provider_name;
	/* Arguments of events, scheduling records, kernel and userspace objects. */
	unsigned int nargs;
	struct tracebuf_reader_arg args[TRACEBUF_LIB_FXT_ARGS_MAX];
	union {
		struct {			/* METADATA */
			unsigned int type;	/* TRACEBUF_LIB_FXT_META_* */
			uint32_t provider_id;	/* PROVIDER_INFO, _SECTION, _EVENT */
			struct tracebuf_reader_str name;	/* PROVIDER_INFO */
			unsigned int event;	/* PROVIDER_EVENT */
			unsigned int trace_info_type;	/* TRACE_INFO */
			uint64_t trace_info;	/* TRACE_INFO: bits [24..63] */
		} meta;
		struct {			/* INIT */
			uint64_t ticks_per_second;
		} init;
		struct {			/* STRING */
			uint16_t index;
			struct tracebuf_reader_str str;
		} string;
		struct {			/* THREAD */
			uint8_t index;
			uint64_t process_koid;
			uint64_t thread_koid;
		} thread;
		struct {			/* EVENT */
			unsigned int type;	/* TRACEBUF_LIB_FXT_EVENT_* */
			uint64_t ticks;
			uint64_t ns;		/* ticks converted with the provider's rate */
			uint8_t thread_ref;
			uint64_t process_koid;
			uint64_t thread_koid;
			struct tracebuf_reader_str category;
			struct tracebuf_reader_str name;
			union {			/* the type-specific word, 0 if none */
				uint64_t extra;
				uint64_t counter_id;
				uint64_t end_ticks;
				uint64_t async_id;
				uint64_t flow_id;
			};
			uint64_t end_ns;	/* DURATION_COMPLETE: end_ticks in ns */
		} event;
		struct {			/* BLOB */
			unsigned int type;	/* TRACEBUF_LIB_FXT_BLOB_* */
			struct tracebuf_reader_str name;
			struct tracebuf_reader_str payload;
		} blob;
		struct {			/* USERSPACE_OBJECT */
			uint64_t pointer;
			uint8_t thread_ref;
			uint64_t process_koid;
			struct tracebuf_reader_str name;
		} uobj;
		struct {			/* KERNEL_OBJECT */
			unsigned int obj_type;	/* TRACEBUF_LIB_FXT_OBJ_* */
			uint64_t koid;
			struct tracebuf_reader_str name;
		} kobj;
		struct {			/* SCHEDULING */
			unsigned int type;	/* TRACEBUF_LIB_FXT_SCHED_*; others
						 * are not decoded further
						 */
			uint64_t ticks;
			uint64_t ns;
			unsigned int cpu;
			/* context switches */
			unsigned int outgoing_state;	/* TRACEBUF_LIB_FXT_THREAD_* */
			uint64_t outgoing_koid;
			uint64_t outgoing_process_koid;	/* legacy: 0 by index */
			int outgoing_priority;		/* legacy only */
			/* the thread switched to, or woken */
			uint64_t incoming_koid;
			uint64_t incoming_process_koid;	/* legacy: 0 by index */
			int incoming_priority;		/* legacy only */
		} sched;
		struct {			/* LOG */
			uint64_t ticks;
			uint64_t ns;
			uint8_t thread_ref;
			uint64_t process_koid;
			uint64_t thread_koid;
			struct tracebuf_reader_str message;
		} log;
	};
};

/**
 * tracebuf_reader_open_mem() - read the records of an in-memory trace
 * @buf: the trace; any alignment; must outlive the reader, unchanged
 * @len: its length in bytes
 * @flags: TRACEBUF_LIB_READER_*
 * @readerp: the new reader
 *
 * Return: 0, or -EINVAL (unknown flag, NULL pointer), -ENOMEM.
 */
int tracebuf_reader_open_mem(const void *buf, size_t len, unsigned int flags,
			     struct tracebuf_reader **readerp);

/**
 * tracebuf_reader_open_file() - read the records of a trace file
 * @path: the file (a regular file, or anything read() works on)
 * @flags: TRACEBUF_LIB_READER_*
 * @readerp: the new reader
 *
 * The whole file is read into memory first.
 *
 * Return: 0, or -EINVAL, -ENOMEM, or the -errno of open() or read().
 */
int tracebuf_reader_open_file(const char *path, unsigned int flags,
			      struct tracebuf_reader **readerp);

/**
 * tracebuf_reader_next() - decode the next record
 * @reader: the reader
 * @rec: where to decode it
 *
 * *rec is left alone at the end of the input and after an error found
 * before the record's contents; otherwise all of it is rewritten (and is
 * meaningless if an error is returned).
 *
 * Return: 1 with *rec filled; 0 at the end of the input; -EBADMSG for
 * malformed input, -ENOENT for a missing table entry under
 * TRACEBUF_LIB_READER_STRICT, -ENOMEM.  Errors are final.
 */
int tracebuf_reader_next(struct tracebuf_reader *reader,
			 struct tracebuf_reader_record *rec);

/* Offset in the input where the error was found (0 if there was none). */
size_t tracebuf_reader_error_offset(const struct tracebuf_reader *reader);

/* A short description of the error ("" if there was none). */
const char *tracebuf_reader_error(const struct tracebuf_reader *reader);

/* How many refs to missing table entries were resolved to empty/zero. */
uint64_t tracebuf_reader_unresolved_refs(const struct tracebuf_reader *reader);

/* Free the reader (and its copy of a file).  NULL is allowed. */
void tracebuf_reader_close(struct tracebuf_reader *reader);

/**
 * tracebuf_reader_drop_window() - whether a record is a window of dropped
 * records that libtracebuf wrote (TRACEBUF_LIB_META_DROPPED)
 * @rec: a record tracebuf_reader_next() returned
 * @count: set, for a window, to the records dropped in it (its
 *	TRACEBUF_LIB_META_DROPPED_COUNT argument, 0 without one); may be NULL
 *
 * A window is a duration-complete event in TRACEBUF_LIB_META_CATEGORY, the
 * category of what libtracebuf writes itself; it spans rec->event.ns to
 * rec->event.end_ns.
 *
 * Return: true for a window.
 */
static inline bool tracebuf_reader_drop_window(const struct tracebuf_reader_record *rec,
					       uint64_t *count)
{
	if (rec->type != TRACEBUF_LIB_FXT_RECORD_EVENT ||
	    rec->event.type != TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE ||
	    rec->event.category.len != TRACEBUF_LIB_META_CATEGORY_LEN ||
	    memcmp(rec->event.category.data, TRACEBUF_LIB_META_CATEGORY,
		   TRACEBUF_LIB_META_CATEGORY_LEN))
		return false;
	if (count) {
		*count = 0;
		for (unsigned int i = 0; i < rec->nargs && i < TRACEBUF_LIB_FXT_ARGS_MAX; i++) {
			const struct tracebuf_reader_arg *a = &rec->args[i];

			if (a->type == TRACEBUF_LIB_FXT_ARG_UINT64 &&
			    a->name.len == sizeof(TRACEBUF_LIB_META_DROPPED_COUNT) - 1 &&
			    !memcmp(a->name.data, TRACEBUF_LIB_META_DROPPED_COUNT,
				    sizeof(TRACEBUF_LIB_META_DROPPED_COUNT) - 1)) {
				*count = a->u64;
				break;
			}
		}
	}
	return true;
}

/**
 * tracebuf_fxt_walk() - measure the whole, plausible records at buf
 * @buf: records, e.g. a provider buffer's durable or rolling part
 * @len: bytes available (a trailing partial word is ignored)
 * @valid: set to the length of the longest prefix of whole records
 *
 * Walks record headers from the start and stops at a header of size 0
 * (a zero word: the unwritten, zero-filled rest of a buffer) or at a
 * record that would run past len (a record ending exactly at len counts).
 * Record bodies are not decoded.  This is how a manager harvests a
 * buffer whose header was never finalised (§1.6 "by records").
 *
 * Return: the number of records in the prefix, or -EINVAL if buf is NULL
 * and len is not 0.
 */
long tracebuf_fxt_walk(const void *buf, size_t len, size_t *valid);

#ifdef __cplusplus
}
#endif

#endif /* TRACEBUF_READER_H */
