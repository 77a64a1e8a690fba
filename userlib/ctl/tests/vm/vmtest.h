/* SPDX-License-Identifier: MIT */
/*
 * What the tracebufctl integration tests (tests/vm/NAME_vmtest.c) share:
 * the directory they and the programs they run (tracebufctl,
 * tracebuf-example) are in, a scratch directory, running one of those
 * programs as root or nobody with its output captured, and a libtracebuf
 * provider of their own in a child process.  Include after ktap.h;
 * the test's main() is VMTEST_MAIN(tests).
 */
#ifndef TBCTL_VMTEST_H
#define TBCTL_VMTEST_H

#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <tracebuf_provider.h>

#include "padcheck.h"	/* t_trace_open_file() */

#define NOBODY		65534

static char g_dir[PATH_MAX];	/* where the programs are */
static char g_out[PATH_MAX];	/* a scratch directory */

/* A program beside this test; each call's string lives on. */
static inline const char *prog_path(const char *name)
{
	static char buf[8][PATH_MAX + 64];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", g_dir, name);
	return buf[i];
}

/* A path in the scratch directory; each call's string lives on. */
static inline const char *path(const char *name)
{
	static char buf[64][PATH_MAX + 64];
	static int i;

	i = (i + 1) % 64;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", g_out, name);
	return buf[i];
}

/* Write @value to @file (a module parameter, a tracefs switch); 0 or -1. */
static inline int write_file(const char *file, const char *value)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, value, strlen(value));
	close(fd);
	return n == (ssize_t)strlen(value) ? 0 : -1;
}

/* Read @file (debugfs, sysfs) into @buf, NUL-terminated; 0 or -1. */
static inline int read_file(const char *file, char *buf, size_t len)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -1;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	return 0;
}

/*
 * Leave a copy of @file as $TB_OUT/@name, where the host reads every
 * *.fxt again with scripts/fxt-check.py (*.sched.fxt: with --sched).
 */
static inline void leave(const char *file, const char *name)
{
	const char *dir = getenv("TB_OUT");
	char to[PATH_MAX], buf[65536];
	int in, out;
	ssize_t n;

	if (!dir || snprintf(to, sizeof(to), "%s/%s", dir, name) >= (int)sizeof(to))
		return;
	in = open(file, O_RDONLY | O_CLOEXEC);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
}

/* Drop root for nobody, without capabilities; 0 or -1. */
static inline int become(uid_t uid)
{
	if (!uid)
		return 0;
	return setgroups(0, NULL) || setgid(uid) || setuid(uid) ? -1 : 0;
}

/*
 * Run argv (argv[0] a program beside this test) as uid; its stdout into
 * out and its stderr into err, each left to this test's own when NULL;
 * its exit status.  What it wrote to err is logged.  With @ru, its resource
 * usage and its waited-for children's (wait4()).
 */
static inline int run_ru(const char *const *argv, char *out, size_t outlen, char *err,
			 size_t errlen, uid_t uid, struct rusage *ru)
{
	int ofd, efd, status;
	pid_t pid;
	ssize_t n;

	ofd = open(path("stdout"), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	efd = open(path("stderr"), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (ofd < 0 || efd < 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (out)
			dup2(ofd, 1);
		if (err)
			dup2(efd, 2);
		if (become(uid))
			_exit(126);
		execv(prog_path(argv[0]), (char *const *)argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, ru) != pid)
		return -1;
	if (out) {
		n = pread(ofd, out, outlen - 1, 0);
		out[n > 0 ? n : 0] = 0;
	}
	if (err) {
		n = pread(efd, err, errlen - 1, 0);
		err[n > 0 ? n : 0] = 0;
		if (*err)
			printf("# %s %s: %s", argv[0], argv[1] ? argv[1] : "", err);
	}
	close(ofd);
	close(efd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static inline int run(const char *const *argv, char *out, size_t outlen, char *err, size_t errlen,
		      uid_t uid)
{
	return run_ru(argv, out, outlen, err, errlen, uid, NULL);
}

/* stderr is exactly one line "tracebufctl: ...". */
static inline bool one_error_line(const char *err)
{
	const char *nl = strchr(err, '\n');

	return !strncmp(err, "tracebufctl: ", 13) && nl && !nl[1];
}

/* ---------------------------------------------------------------------- */
/* A provider of our own                                                  */

struct held {
	pid_t pid;
	int done_fd;		/* close it: the provider goes */
};

/*
 * A libtracebuf provider named name, publishing known[0..nknown), in a
 * child; registered on return.  0 or -1.
 */
static inline int hold_provider(const char *name, const struct tracebuf_known_category *known,
			 size_t nknown, struct held *h)
{
	int p[2], q[2];
	char c;

	if (pipe2(p, O_CLOEXEC) || pipe2(q, O_CLOEXEC))
		return -1;
	fflush(stdout);
	h->pid = fork();
	if (!h->pid) {
		struct tracebuf_provider_config cfg = {
			.size = sizeof(cfg), .name = name,
			.flags = TRACEBUF_LIB_PROVIDER_THREAD,
			.known = known, .nknown = nknown,
		};
		struct tracebuf_provider *prov;

		/*
		 * Only our ends: another provider's end inherited here
		 * would keep it alive after its release.
		 */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != p[1] && fd != q[0])
				close(fd);
		if (tracebuf_provider_create(&cfg, &prov))
			_exit(1);
		c = 'k';
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		while (read(q[0], &c, 1) > 0)
			;
		tracebuf_provider_destroy(prov);
		_exit(0);
	}
	close(p[1]);
	close(q[0]);
	if (h->pid < 0 || read(p[0], &c, 1) != 1)
		return -1;
	close(p[0]);
	h->done_fd = q[1];
	return 0;
}

/* Let it go, and wait until it has. */
static inline void release_provider(struct held *h)
{
	if (h->done_fd >= 0)
		close(h->done_fd);
	h->done_fd = -1;
	if (h->pid > 0)
		waitpid(h->pid, NULL, 0);
	h->pid = 0;
}

/* Find this program's directory (g_dir, for prog_path()); its name. */
static inline const char *vmtest_find_dir(const char *argv0)
{
	static char name[NAME_MAX + 1];
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len <= 0)
		snprintf(self, sizeof(self), "%s", argv0);
	else
		self[len] = 0;
	snprintf(name, sizeof(name), "%.*s", NAME_MAX,
		 strrchr(self, '/') ? strrchr(self, '/') + 1 : self);
	snprintf(g_dir, sizeof(g_dir), "%s", dirname(self));
	return name;
}

/* Find this program's directory, make the scratch one, run the tests. */
static inline int vmtest_main(const char *argv0, const struct t_test *tests, size_t n)
{
	const char *name = vmtest_find_dir(argv0);

	snprintf(g_out, sizeof(g_out), "/tmp/%.200s.XXXXXX", name);
	if (!mkdtemp(g_out))
		return 1;
	chmod(g_out, 0755);
	return t_run(tests, n);
}

#define VMTEST_MAIN(table)						\
	int main(int argc, char **argv)					\
	{								\
		(void)argc;						\
		return vmtest_main(argv[0], table,			\
				   sizeof(table) / sizeof((table)[0]));	\
	}

#endif /* TBCTL_VMTEST_H */
