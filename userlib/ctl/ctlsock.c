// SPDX-License-Identifier: MIT
/*
 * The control sockets of recording sessions: see ctlsock.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctlsock.h"
#include "tracebufctl.h"

int tbctl_rundir(char *buf, size_t len, bool create, bool report)
{
	const char *env = getenv("TRACEBUF_RUNTIME_DIR");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int n;

	if (env && *env)
		n = snprintf(buf, len, "%s", env);
	else if (geteuid() == 0)
		n = snprintf(buf, len, "/run/tracebuf");
	else if (xdg && *xdg == '/')
		n = snprintf(buf, len, "%s/tracebuf", xdg);
	else
		n = snprintf(buf, len, "/tmp/tracebuf-%u", (unsigned int)geteuid());
	if (n < 0 || (size_t)n >= len) {
		if (report)
			tbctl_err("the runtime directory's name is too long");
		return -ENAMETOOLONG;
	}
	if (create && mkdir(buf, 0700) && errno != EEXIST) {
		n = -errno;
		if (report)
			tbctl_err("%s: %s", buf, strerror(-n));
		return n;
	}
	if (lstat(buf, &st)) {
		n = -errno;
		if (report && (n != -ENOENT || create))
			tbctl_err("%s: %s", buf, strerror(-n));
		return n;
	}
	/* another user's directory in /tmp would let them answer for us */
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		if (report)
			tbctl_err("%s: not a directory private to this user (mode 0700): refused",
				  buf);
		return -EPERM;
	}
	return 0;
}

int tbctl_ctl_path(char *buf, size_t len, const char *dir, pid_t id, const char *ext)
{
	int n = snprintf(buf, len, "%s/%d.%s", dir, (int)id, ext);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * Is @path a temporary file of tbctl_file_create() (".NAME.XXXXXX") that
 * is ours and regular?  Only such a file is removed for a dead session.
 */
static bool tbctl_ctl_is_tmp(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;
	struct stat st;

	if (path[0] != '/' || !base)
		return false;
	base++;
	len = strlen(base);
	if (base[0] != '.' || len < sizeof(".X.XXXXXX") - 1 || base[len - 7] != '.')
		return false;
	return !lstat(path, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid();
}

/* A dead session's temporary files, and its note of them (tbctl_ctl_tmp()). */
static void tbctl_ctl_tmp_remove(const char *dir, pid_t id)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 16];
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	if (tbctl_ctl_path(path, sizeof(path), dir, id, "tmp"))
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (tbctl_ctl_is_tmp(line))
			unlink(line);
	}
	free(line);
	fclose(f);
	unlink(path);
}

int tbctl_ctl_tmp(const char *dir, pid_t id, const char *const *paths, size_t n)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 16], tmp[sizeof(path) + 4];
	char cwd[PATH_MAX] = "";
	size_t written = 0;
	int ret;
	FILE *f;

	ret = tbctl_ctl_path(path, sizeof(path), dir, id, "tmp");
	if (!ret)
		ret = tbctl_ctl_path(tmp, sizeof(tmp), dir, id, "tmp.new");
	if (ret)
		return ret;
	/* written whole, then renamed: a kill never leaves half a name */
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	for (size_t i = 0; i < n; i++) {
		if (!paths[i])
			continue;
		if (paths[i][0] != '/' && !cwd[0] && !getcwd(cwd, sizeof(cwd)))
			continue;
		fprintf(f, "%s%s%s\n", paths[i][0] == '/' ? "" : cwd,
			paths[i][0] == '/' ? "" : "/", paths[i]);
		written++;
	}
	ret = fclose(f) ? -errno : 0;
	if (!ret && written)
		ret = rename(tmp, path) ? -errno : 0;
	else if (!ret)
		ret = unlink(path) && errno != ENOENT ? -errno : 0;
	unlink(tmp);
	return ret;
}

static int tbctl_ctl_addr(struct sockaddr_un *a, const char *dir, pid_t id)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	return tbctl_ctl_path(a->sun_path, sizeof(a->sun_path), dir, id, "sock");
}

int tbctl_ctl_listen(const char *dir, pid_t id)
{
	struct sockaddr_un a;
	int fd, ret;

	ret = tbctl_ctl_addr(&a, dir, id);
	if (ret)
		return ret;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* a socket of a dead session with our pid: not ours, but stale */
	tbctl_ctl_tmp_remove(dir, id);
	unlink(a.sun_path);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 8)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

int tbctl_ctl_reply(int cfd, const char *msg)
{
	size_t len = strlen(msg);

	if (len > TBCTL_CTL_MSG_MAX)
		len = TBCTL_CTL_MSG_MAX;
	return send(cfd, msg, len, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

int tbctl_ctl_accept(int lfd, char *req, size_t len)
{
	struct pollfd p = { .events = POLLIN };
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	ssize_t n;
	int cfd, ret;

	cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (cfd < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) ||
	    (cred.uid != geteuid() && cred.uid != 0)) {
		tbctl_ctl_reply(cfd, "error: not your session");
		close(cfd);
		return -EPERM;
	}
	/* the request follows the connection at once; nobody may stall us */
	p.fd = cfd;
	ret = poll(&p, 1, 1000);
	if (ret <= 0) {
		close(cfd);
		return ret < 0 ? -errno : -ETIMEDOUT;
	}
	n = recv(cfd, req, len - 1, MSG_DONTWAIT);
	if (n <= 0) {
		close(cfd);
		return n < 0 ? -errno : -ECONNRESET;
	}
	req[n] = '\0';
	return cfd;
}

int tbctl_ctl_request(const char *dir, pid_t id, const char *req, char *reply,
		      size_t len, int timeout_ms)
{
	struct pollfd p = { .events = POLLIN };
	struct sockaddr_un a;
	ssize_t n;
	int fd, ret;

	ret = tbctl_ctl_addr(&a, dir, id);
	if (ret)
		return ret;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		ret = -errno;
		close(fd);
		if (ret == -ECONNREFUSED) {
			/* left by a session that was killed */
			tbctl_ctl_tmp_remove(dir, id);
			tbctl_ctl_unlink(dir, id, true);
			return -ESRCH;
		}
		return ret == -ENOENT ? -ESRCH : ret;
	}
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	p.fd = fd;
	do
		ret = poll(&p, 1, timeout_ms);
	while (ret < 0 && errno == EINTR);
	if (ret <= 0) {
		ret = ret < 0 ? -errno : -ETIMEDOUT;
		close(fd);
		return ret;
	}
	n = recv(fd, reply, len - 1, 0);
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (n == 0)
		return -ECONNRESET;	/* it died before answering */
	if (n > 0)
		reply[n] = '\0';
	return ret;
}

static int tbctl_pid_cmp(const void *a, const void *b);
static int tbctl_ctl_scan(const char *dir, const char *ext, bool ping, pid_t **ids);

void tbctl_ctl_unlink(const char *dir, pid_t id, bool log)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 16];

	if (!tbctl_ctl_path(path, sizeof(path), dir, id, "sock"))
		unlink(path);
	if (!tbctl_ctl_path(path, sizeof(path), dir, id, "tmp"))
		unlink(path);
	if (log && !tbctl_ctl_path(path, sizeof(path), dir, id, "log"))
		unlink(path);
}

int tbctl_ctl_end(const char *dir, pid_t id, int status, const char *line,
		  const char *json)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 16];
	FILE *f;
	int ret;

	ret = tbctl_ctl_path(path, sizeof(path), dir, id, "exit");
	if (ret)
		return ret;
	f = fopen(path, "we");
	if (!f)
		return -errno;
	fprintf(f, "%d\n%s\n%s\n", status, line, json);
	ret = fclose(f) ? -errno : 0;
	if (ret)
		unlink(path);
	return ret;
}

int tbctl_ctl_ended(const char *dir, pid_t id, int *status, char *line, size_t linelen,
		    char *json, size_t jsonlen)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 16];
	char *text = NULL;
	size_t cap = 0;
	int ret = -ESRCH;
	FILE *f;

	if (tbctl_ctl_path(path, sizeof(path), dir, id, "exit"))
		return -ESRCH;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	if (getline(&text, &cap, f) > 0 && sscanf(text, "%d", status) == 1) {
		ret = 0;
		for (int i = 0; i < 2; i++) {
			char *out = i ? json : line;
			size_t outlen = i ? jsonlen : linelen;
			ssize_t n = getline(&text, &cap, f);

			if (n > 0 && text[n - 1] == '\n')
				text[n - 1] = '\0';
			if (out && outlen)
				snprintf(out, outlen, "%s", n > 0 ? text : "");
		}
	}
	free(text);
	fclose(f);
	return ret;
}

int tbctl_ctl_ended_list(const char *dir, pid_t **ids)
{
	return tbctl_ctl_scan(dir, ".exit", false, ids);
}

void tbctl_ctl_show_log(const char *dir, pid_t id)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 16], buf[4096];
	size_t n;
	FILE *f;

	if (tbctl_ctl_path(path, sizeof(path), dir, id, "log"))
		return;
	f = fopen(path, "r");
	if (!f)
		return;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(f);
	unlink(path);
	if (!tbctl_ctl_path(path, sizeof(path), dir, id, "exit"))
		unlink(path);
}

static int tbctl_pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/*
 * The ids of RUNDIR's files ID@ext, sorted, in a malloc'd *ids: their
 * count, or -errno.  With @ping, only the sessions that answer (a socket
 * nobody listens on is removed by tbctl_ctl_request()).
 */
static int tbctl_ctl_scan(const char *dir, const char *ext, bool ping, pid_t **ids)
{
	size_t n = 0, cap = 0;
	struct dirent *de;
	pid_t *v = NULL;
	DIR *d;

	*ids = NULL;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		char *end, reply[16];
		long id;

		id = strtol(de->d_name, &end, 10);
		if (end == de->d_name || strcmp(end, ext) || id <= 0 || id > 0x3fffffff)
			continue;
		/* alive: it answers; else tbctl_ctl_request() removed it */
		if (ping && tbctl_ctl_request(dir, (pid_t)id, "ping", reply, sizeof(reply), 2000))
			continue;
		if (n == cap) {
			pid_t *nv = realloc(v, (cap ? cap * 2 : 8) * sizeof(*v));

			if (!nv) {
				closedir(d);
				free(v);
				return -ENOMEM;
			}
			v = nv;
			cap = cap ? cap * 2 : 8;
		}
		v[n++] = (pid_t)id;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), tbctl_pid_cmp);
	*ids = v;
	return (int)n;
}

int tbctl_ctl_sessions(const char *dir, pid_t **ids)
{
	return tbctl_ctl_scan(dir, ".sock", true, ids);
}
