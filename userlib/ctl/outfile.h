/* SPDX-License-Identifier: MIT */
/*
 * Where "record" writes its trace: a file that appears only when the
 * recording ended cleanly, compressed by gzip or zstd when its name ends
 * in ".gz" or ".zst", or standard output for "-" (outfile.c).
 */
#ifndef TBCTL_OUTFILE_H
#define TBCTL_OUTFILE_H

#include <stdbool.h>
#include <sys/types.h>

#include "tracebufctl.h"
#include "util.h"

struct tbctl_out {
	const char *path;	/* as given; "-": standard output */
	bool is_stdout;
	enum tbctl_z z;		/* by the name's suffix */
	int fd;			/* what the session writes, -1 when closed */
	int file_fd;		/* the file, -1 if none */
	struct tbctl_file file;	/* ".NAME.XXXXXX" beside it, or in place */
	pid_t zpid;		/* the compressor, -1 if none */
};

/*
 * tbctl_out_name() - @path with ".@tag" before its extension: ".fxt" with
 * any ".gz" or ".zst" after it, else the name's last extension (before
 * such a suffix), else none: trace.fxt.gz, "1" -> trace.1.fxt.gz;
 * out.bin -> out.1.bin; out -> out.1.  0, or -ENAMETOOLONG.
 */
int tbctl_out_name(const char *path, const char *tag, char *buf, size_t len);

/* Say why tbctl_file_create(@path) failed with @err. */
void tbctl_file_err(const char *path, int err);

/* Describe the output path; opens nothing. */
void tbctl_out_init(struct tbctl_out *o, const char *path);
/*
 * Create the temporary file, or open the device or FIFO named (and start
 * the compressor): 0, or -errno reported.
 */
int tbctl_out_open(struct tbctl_out *o);
/*
 * The recording ended cleanly: end the compressor's input and check its
 * status, sync, and rename the temporary file over the output.  0, or
 * -errno reported (and nothing left behind).
 */
int tbctl_out_commit(struct tbctl_out *o);
/* It did not: stop the compressor, remove the temporary file. */
void tbctl_out_abort(struct tbctl_out *o);

#endif /* TBCTL_OUTFILE_H */
