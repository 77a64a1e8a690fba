// SPDX-License-Identifier: MIT
/*
 * Where "record" writes its trace (outfile.h): a file, made under a
 * temporary name beside it and renamed over it only when the recording
 * ended cleanly, so that a failed recording never leaves a file under the
 * output's name (tbctl_file_create(): a device or FIFO is written as it
 * comes); gzip or zstd on the way when the name ends in ".gz" or ".zst"
 * (compress.c); or "-", standard output, as it comes.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include "outfile.h"
#include "tracebufctl.h"
#include "util.h"

int tbctl_out_name(const char *path, const char *tag, char *buf, size_t len)
{
	const char *base = strrchr(path, '/'), *ext, *z = "";
	size_t stem, zlen = 0, n = strlen(path);
	int ret;

	base = base ? base + 1 : path;
	if (tbctl_z_by_name(path) != TBCTL_Z_NONE) {
		z = strrchr(base, '.');
		zlen = strlen(z);
	}
	/* ".fxt" before the compression's suffix, else the last extension */
	if (n - (size_t)(base - path) >= zlen + 5 && !strncmp(path + n - zlen - 4, ".fxt", 4)) {
		stem = n - zlen - 4;
	} else {
		ext = NULL;
		for (const char *p = base + 1; p < path + n - zlen; p++)
			if (*p == '.')
				ext = p;
		stem = ext ? (size_t)(ext - path) : n - zlen;
	}
	ret = snprintf(buf, len, "%.*s.%s%s", (int)stem, path, tag, path + stem);
	return ret < 0 || (size_t)ret >= len ? -ENAMETOOLONG : 0;
}

void tbctl_file_err(const char *path, int err)
{
	struct stat st;

	if (err == -EISDIR)
		tbctl_err("%s: is a directory", path);
	else if (!stat(path, &st) && !S_ISREG(st.st_mode))
		tbctl_err("%s: %s", path, strerror(-err));
	else
		tbctl_err("%s: cannot create a file beside it: %s", path, strerror(-err));
}

void tbctl_out_init(struct tbctl_out *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->path = path;
	o->fd = -1;
	o->file_fd = -1;
	o->zpid = -1;
	o->is_stdout = !strcmp(path, "-");
	o->z = o->is_stdout ? TBCTL_Z_NONE : tbctl_z_by_name(path);
}

int tbctl_out_open(struct tbctl_out *o)
{
	int fd, pfd[2], ret;

	if (o->is_stdout) {
		o->fd = STDOUT_FILENO;
		return 0;
	}
	fd = tbctl_file_create(o->path, &o->file);
	if (fd < 0) {
		tbctl_file_err(o->path, fd);
		return fd;
	}
	o->file_fd = fd;
	if (o->z == TBCTL_Z_NONE) {
		o->fd = fd;
		return 0;
	}
	/* the session writes into a pipe, the compressor into the file */
	if (pipe2(pfd, O_CLOEXEC)) {
		ret = -errno;
		tbctl_err("%s: %s", o->path, strerror(-ret));
		tbctl_out_abort(o);
		return ret;
	}
	ret = tbctl_z_spawn(o->z, false, pfd[0], fd, -1, &o->zpid);
	close(pfd[0]);
	if (ret) {
		close(pfd[1]);
		o->zpid = -1;
		tbctl_z_spawn_err(o->z, o->path, ret);
		tbctl_out_abort(o);
		return ret;
	}
	o->fd = pfd[1];
	return 0;
}

int tbctl_out_commit(struct tbctl_out *o)
{
	int ret = 0;

	if (o->is_stdout) {
		o->fd = -1;
		return 0;
	}
	if (o->zpid > 0) {
		/* end of input for the compressor, then its status */
		close(o->fd);
		o->fd = -1;
		ret = tbctl_z_wait(o->zpid, o->z, o->path, -1);
		o->zpid = -1;
		if (ret) {
			tbctl_out_abort(o);
			return ret;
		}
	}
	ret = tbctl_file_sync(&o->file, o->file_fd);
	if (close(o->file_fd) && !ret)
		ret = -errno;
	o->file_fd = -1;
	o->fd = -1;
	if (!ret)
		ret = tbctl_file_commit(&o->file);
	if (ret) {
		tbctl_err("%s: %s", o->path, strerror(-ret));
		tbctl_out_abort(o);
		return ret;
	}
	return 0;
}

void tbctl_out_abort(struct tbctl_out *o)
{
	if (o->is_stdout) {
		o->fd = -1;
		return;
	}
	if (o->fd >= 0 && o->fd != o->file_fd)
		close(o->fd);
	o->fd = -1;
	if (o->zpid > 0) {
		kill(o->zpid, SIGTERM);
		while (waitpid(o->zpid, NULL, 0) < 0 && errno == EINTR)
			;
		o->zpid = -1;
	}
	if (o->file_fd >= 0)
		close(o->file_fd);
	o->file_fd = -1;
	tbctl_file_abort(&o->file);
}
