/* SPDX-License-Identifier: MIT */
/*
 * A trace that tracebuf writes holds records, not padding.  Padding is
 * what a writer fills a gap with, an unnamed data blob whose payload
 * fills the record (tracebuf_fxt_pad_header()): the end of a thread's
 * chunk, an idle provider's buffer.  The manager leaves it out of what it
 * writes, but for a few bytes that end a fast writer's chunk (readout.c,
 * tb_pad_kept()).
 *
 * The guest tests open every trace they read with t_trace_open_file() or
 * t_trace_open_mem() (a POSIX log: ptvm.h's t_log_open()), which fail the
 * test that reads it (T_FAIL) when padding is more than 1 % of the
 * trace's bytes, or the trace more than 1.05 times the bytes of its
 * other records, then open it as tracebuf_reader_open_file() and
 * tracebuf_reader_open_mem() do.  A file that does not begin with FXT's
 * magic record (a compressed trace) is opened unchecked.
 * scripts/fxt-check.py checks the same bound on the traces the tests
 * leave for it.  Include after ktap.h.
 */
#ifndef TRACEBUF_TESTS_PADCHECK_H
#define TRACEBUF_TESTS_PADCHECK_H

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracebuf_fxt.h>
#include <tracebuf_reader.h>

/* A trace's bytes: in padding, in its other records. */
struct t_lean {
	size_t bytes, padding, records;
};

/* Walked record by record, up to the first that does not fit. */
static inline struct t_lean t_lean_measure(const void *buf, size_t len)
{
	const uint8_t *p = (const uint8_t *)buf;
	struct t_lean l = { len, 0, 0 };

	for (size_t off = 0; len - off >= 8;) {
		uint64_t h, words;

		memcpy(&h, p + off, 8);
		h = tracebuf_fxt_le64(h);
		words = tracebuf_fxt_record_words(h);
		if (!words || words > (len - off) / 8)
			break;
		if (words <= TRACEBUF_LIB_FXT_RECORD_MAX_WORDS &&
		    h == tracebuf_fxt_pad_header((size_t)words))
			l.padding += (size_t)words * 8;
		else
			l.records += (size_t)words * 8;
		off += (size_t)words * 8;
	}
	return l;
}

/* Whether @buf (@len bytes) begins with FXT's magic record. */
static inline bool t_lean_fxt(const void *buf, size_t len)
{
	uint64_t w;

	if (len < 8)
		return false;
	memcpy(&w, buf, 8);
	return tracebuf_fxt_le64(w) == TRACEBUF_LIB_FXT_MAGIC;
}

/* At most 1 % padding, at most 1.05 times its other records; else a failure. */
static inline bool t_lean_check(const char *file, int line, const char *what,
				const void *buf, size_t len)
{
	struct t_lean l;

	if (!t_lean_fxt(buf, len))
		return true;
	l = t_lean_measure(buf, len);
	if (l.padding * 100 <= l.bytes && l.bytes * 100 <= l.records * 105)
		return true;
	t_fail(file, line, "%s: %zu bytes, %zu of them padding (%.1f %%), %zu in other records",
	       what, l.bytes, l.padding, 100.0 * (double)l.padding / (double)l.bytes,
	       l.records);
	return false;
}

/* The same of what @fd holds, from its start; an fd that cannot be read is let by. */
static inline bool t_lean_check_fd(const char *file, int line, const char *what, int fd)
{
	struct stat st;
	void *map;
	bool ok;

	if (fstat(fd, &st) || st.st_size < 8)
		return true;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return true;
	ok = t_lean_check(file, line, what, map, (size_t)st.st_size);
	munmap(map, (size_t)st.st_size);
	return ok;
}

static inline int t_trace_open_file_at(const char *file, int line, const char *path,
				       unsigned int flags, struct tracebuf_reader **r)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		t_lean_check_fd(file, line, path, fd);
		close(fd);
	}
	return tracebuf_reader_open_file(path, flags, r);
}

static inline int t_trace_open_mem_at(const char *file, int line, const void *buf,
				      size_t len, unsigned int flags, struct tracebuf_reader **r)
{
	t_lean_check(file, line, "the trace", buf, len);
	return tracebuf_reader_open_mem(buf, len, flags, r);
}

#define t_trace_open_file(path, flags, r) \
	t_trace_open_file_at(__FILE__, __LINE__, (path), (flags), (r))
#define t_trace_open_mem(buf, len, flags, r) \
	t_trace_open_mem_at(__FILE__, __LINE__, (buf), (len), (flags), (r))

#endif
