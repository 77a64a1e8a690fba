// SPDX-License-Identifier: MIT
/*
 * Compressed trace files: gzip and zstd, chosen by the name of a file
 * written (".gz", ".zst") and by the content of a file read (their magic
 * numbers).  The compressors are run as programs, with pipes, as tar(1)
 * runs them: tracebufctl links no library beyond libtracebuf and libc, so
 * it can still be a static program on a board (busybox has gzip).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tracebuf_reader.h>

#include "tracebufctl.h"
#include "util.h"

extern char **environ;

static const struct {
	const char *suffix;
	const char *prog;
	unsigned char magic[4];
	size_t magic_len;
} tbctl_z_formats[] = {
	[TBCTL_Z_GZIP] = { ".gz", "gzip", { 0x1f, 0x8b }, 2 },
	[TBCTL_Z_ZSTD] = { ".zst", "zstd", { 0x28, 0xb5, 0x2f, 0xfd }, 4 },
};

enum tbctl_z tbctl_z_by_name(const char *path)
{
	size_t len = strlen(path);

	for (int z = TBCTL_Z_GZIP; z <= TBCTL_Z_ZSTD; z++) {
		const char *sfx = tbctl_z_formats[z].suffix;
		size_t n = strlen(sfx);

		if (len > n && !strcmp(path + len - n, sfx))
			return (enum tbctl_z)z;
	}
	return TBCTL_Z_NONE;
}

enum tbctl_z tbctl_z_by_magic(const void *buf, size_t len)
{
	for (int z = TBCTL_Z_GZIP; z <= TBCTL_Z_ZSTD; z++)
		if (len >= tbctl_z_formats[z].magic_len &&
		    !memcmp(buf, tbctl_z_formats[z].magic, tbctl_z_formats[z].magic_len))
			return (enum tbctl_z)z;
	return TBCTL_Z_NONE;
}

const char *tbctl_z_prog(enum tbctl_z z)
{
	return z == TBCTL_Z_NONE ? NULL : tbctl_z_formats[z].prog;
}

int tbctl_z_spawn(enum tbctl_z z, bool decompress, int in_fd, int out_fd, int err_fd,
		  pid_t *pid)
{
	char *argv[] = { (char *)tbctl_z_prog(z), decompress ? "-dc" : "-c", NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dfl;
	int ret;

	if (!argv[0])
		return -EINVAL;
	ret = posix_spawn_file_actions_init(&fa);
	if (ret)
		return -ret;
	ret = posix_spawnattr_init(&attr);
	if (ret) {
		posix_spawn_file_actions_destroy(&fa);
		return -ret;
	}
	/* the compressor gets our pipe ends only, default signals, no mask */
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	ret = posix_spawn_file_actions_adddup2(&fa, in_fd, STDIN_FILENO);
	if (!ret)
		ret = posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
	if (!ret && err_fd >= 0)
		ret = posix_spawn_file_actions_adddup2(&fa, err_fd, STDERR_FILENO);
	if (!ret)
		ret = posix_spawnattr_setsigmask(&attr, &none);
	if (!ret)
		ret = posix_spawnattr_setsigdefault(&attr, &dfl);
	if (!ret)
		ret = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
					       POSIX_SPAWN_SETSIGDEF);
	if (!ret)
		ret = posix_spawnp(pid, argv[0], &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return -ret;
}

/*
 * The first line the program wrote to @err_fd, into @buf (gzip begins
 * with an empty one); "" if none.
 */
static const char *tbctl_z_said(int err_fd, char *buf, size_t len)
{
	ssize_t n = err_fd >= 0 ? pread(err_fd, buf, len - 1, 0) : -1;
	char *line;

	buf[n > 0 ? n : 0] = '\0';
	line = buf + strspn(buf, "\n");
	line[strcspn(line, "\n")] = '\0';
	return line;
}

int tbctl_z_wait(pid_t pid, enum tbctl_z z, const char *file, int err_fd)
{
	char said[256];
	const char *line;
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			int ret = -errno;

			tbctl_err("%s: waiting for %s: %s", file, tbctl_z_prog(z),
				  strerror(-ret));
			return ret;
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	line = tbctl_z_said(err_fd, said, sizeof(said));
	if (WIFEXITED(status) && line[0])
		tbctl_err("%s: %s", file, line);
	else if (WIFEXITED(status))
		tbctl_err("%s: %s exited with status %d", file, tbctl_z_prog(z),
			  WEXITSTATUS(status));
	else
		tbctl_err("%s: %s was killed by signal %d", file, tbctl_z_prog(z),
			  WTERMSIG(status));
	return -EIO;
}

/* The error of starting compressor z for file, in words; returns err. */
int tbctl_z_spawn_err(enum tbctl_z z, const char *file, int err)
{
	if (err == -ENOENT)
		tbctl_err("%s: %s is needed for this file and is not installed (PATH)",
			  file, tbctl_z_prog(z));
	else
		tbctl_err("%s: cannot run %s: %s", file, tbctl_z_prog(z), strerror(-err));
	return err;
}

int tbctl_reader_open(const char *file, unsigned int flags, struct tracebuf_reader **r)
{
	unsigned char magic[4];
	char path[32];
	int fd, pfd[2], err_fd, ret;
	enum tbctl_z z;
	ssize_t n;
	pid_t pid;

	/* standard input is read as it is: "zcat t.fxt.gz | tracebufctl dump -" */
	if (!strcmp(file, "-")) {
		ret = tracebuf_reader_open_file("/dev/stdin", flags, r);
		if (ret)
			tbctl_err("%s: %s", file, strerror(-ret));
		return ret;
	}
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		tbctl_err("%s: %s", file, strerror(-ret));
		return ret;
	}
	do
		n = pread(fd, magic, sizeof(magic), 0);
	while (n < 0 && errno == EINTR);
	z = tbctl_z_by_magic(magic, n > 0 ? (size_t)n : 0);
	if (z == TBCTL_Z_NONE) {
		close(fd);
		ret = tracebuf_reader_open_file(file, flags, r);
		if (ret)
			tbctl_err("%s: %s", file, strerror(-ret));
		return ret;
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		ret = -errno;
		close(fd);
		tbctl_err("%s: %s", file, strerror(-ret));
		return ret;
	}
	/* what the decompressor says goes into our one line (tbctl_z_wait()) */
	err_fd = memfd_create("tracebufctl-z", MFD_CLOEXEC);
	ret = tbctl_z_spawn(z, true, fd, pfd[1], err_fd, &pid);
	close(fd);
	close(pfd[1]);
	if (ret) {
		close(pfd[0]);
		if (err_fd >= 0)
			close(err_fd);
		return tbctl_z_spawn_err(z, file, ret);
	}
	/* the reader reads the whole stream into memory, then we wait */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd[0]);
	ret = tracebuf_reader_open_file(path, flags, r);
	close(pfd[0]);
	if (ret) {
		/* one line: ours, not the decompressor's SIGPIPE as well */
		tbctl_err("%s: %s", file, strerror(-ret));
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		if (err_fd >= 0)
			close(err_fd);
		return ret;
	}
	ret = tbctl_z_wait(pid, z, file, err_fd);
	if (err_fd >= 0)
		close(err_fd);
	if (ret) {
		tracebuf_reader_close(*r);
		*r = NULL;
	}
	return ret;
}
