// SPDX-License-Identifier: MIT
/*
 * tracebufctl over generic netlink, with the module, in the test VM:
 * "list -j" shows a provider of ours (a libtracebuf provider in a child)
 * with its pid, name, state and counters; "stats" shows it, filters by
 * name and id, and refuses names and ids that match nothing; "monitor"
 * (in the background, its stdout a pipe) prints "new" when a provider
 * registers, "change" when "record" initializes it and "del" when it
 * goes, as lines or JSON objects, and exits 0 on SIGTERM; without
 * privileges "monitor", "list" and "stats" are refused with a message
 * (the kernel's extended ack message for a GET).
 *
 * tracebufctl is expected beside this program.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ktap.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>

#include <linux/tracebuf.h>
#include <tracebuf_provider.h>

#include "../json.h"
#include "vmtest.h"

/* ---------------------------------------------------------------------- */
/* JSON                                                                   */

static bool eq(const char *got, const char *want)
{
	return got && !strcmp(got, want);
}

static uint64_t num(const struct json *o, const char *key)
{
	const char *s = json_get_num(o, key);

	return s ? strtoull(s, NULL, 10) : UINT64_MAX;
}

static bool is_null(const struct json *o, const char *key)
{
	const struct json *m = json_get(o, key);

	return m && m->type == JSON_NULL;
}

/* The element of a JSON array named name (the first), or NULL. */
static const struct json *find_named(const struct json *v, const char *name)
{
	if (!v || v->type != JSON_ARRAY)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (eq(json_get_str(v->items[i], "name"), name))
			return v->items[i];
	return NULL;
}

static struct json *parse(const char *text)
{
	char err[128];
	struct json *v = json_parse(text, strlen(text), err, sizeof(err));

	if (!v)
		printf("# not JSON (%s): %.200s\n", err, text);
	return v;
}

/* ---------------------------------------------------------------------- */

static void list_json_shows_our_provider(void)
{
	const char *listj[] = { "tracebufctl", "list", "-j", NULL };
	const char *list[] = { "tracebufctl", "list", NULL };
	static char out[65536];
	const struct json *p;
	struct held h;
	struct json *v;

	T_ASSERT_EQ(hold_provider("nl-held", NULL, 0, &h), 0);
	T_EXPECT_EQ(run(listj, out, sizeof(out), NULL, 0, 0), 0);
	v = parse(out);
	p = find_named(v, "nl-held");
	T_EXPECT(p != NULL);
	if (p) {
		T_EXPECT_EQ(num(p, "pid"), h.pid);
		T_EXPECT(eq(json_get_str(p, "state"), "registered"));
		T_EXPECT(num(p, "id") > 0 && num(p, "id") <= UINT32_MAX);
		T_EXPECT(is_null(p, "manager"));
		T_EXPECT(is_null(p, "mode"));
		/* the counters come with the netlink family */
		T_EXPECT(num(p, "packets_sent") != UINT64_MAX);
		T_EXPECT(num(p, "packets_received") != UINT64_MAX);
		T_EXPECT(num(p, "saves") != UINT64_MAX);
		T_EXPECT(is_null(p, "records_dropped"));	/* no buffer */
	}
	json_free(v);
	T_EXPECT_EQ(run(list, out, sizeof(out), NULL, 0, 0), 0);
	T_EXPECT(strstr(out, "  registered  ") && strstr(out, " nl-held\n"));
	release_provider(&h);

	/* gone from the list once it unregistered */
	T_EXPECT_EQ(run(listj, out, sizeof(out), NULL, 0, 0), 0);
	v = parse(out);
	T_EXPECT(v && !find_named(v, "nl-held"));
	json_free(v);
}

static void stats_shows_filters_and_refuses(void)
{
	const char *rec[] = { "tracebufctl", "record", "-q", "-d", "500ms", "-p", "nl-stats",
			      "-o", path("s.fxt"), NULL };
	const char *all[] = { "tracebufctl", "stats", NULL };
	const char *byname[] = { "tracebufctl", "stats", "-j", "nl-stats", NULL };
	const char *unknown[] = { "tracebufctl", "stats", "nosuchname", NULL };
	const char *badid[] = { "tracebufctl", "stats", "4000000000", NULL };
	const char *byid[] = { "tracebufctl", "stats", "-j", NULL, NULL };
	static char out[65536];
	char err[512], id[24] = "0";
	const struct json *p;
	struct held h, other;
	struct json *v;

	T_ASSERT_EQ(hold_provider("nl-stats", NULL, 0, &h), 0);
	T_ASSERT_EQ(hold_provider("nl-other", NULL, 0, &other), 0);
	/* a trace of it: its counters move */
	T_EXPECT_EQ(run(rec, NULL, 0, err, sizeof(err), 0), 0);

	T_EXPECT_EQ(run(all, out, sizeof(out), NULL, 0, 0), 0);
	T_EXPECT(!strncmp(out, "   ID  NAME", 11));
	T_EXPECT(strstr(out, "nl-stats") && strstr(out, "nl-other"));

	T_EXPECT_EQ(run(byname, out, sizeof(out), NULL, 0, 0), 0);
	v = parse(out);
	T_EXPECT(v && v->type == JSON_ARRAY && v->n == 1);
	p = find_named(v, "nl-stats");
	T_EXPECT(p != NULL);
	if (p) {
		printf("# nl-stats: sent %" PRIu64 " received %" PRIu64 " saves %" PRIu64 "\n",
		       num(p, "packets_sent"), num(p, "packets_received"), num(p, "saves"));
		/* STARTED, STOPPED; INITIALIZE, START, STOP, TERMINATE */
		T_EXPECT(num(p, "packets_sent") >= 2 && num(p, "packets_sent") < UINT64_MAX);
		T_EXPECT(num(p, "packets_received") >= 4 &&
			 num(p, "packets_received") < UINT64_MAX);
		T_EXPECT(eq(json_get_str(p, "state"), "registered"));
		snprintf(id, sizeof(id), "%" PRIu64, num(p, "id"));
	}
	json_free(v);

	/* by id: that one only */
	byid[3] = id;
	T_EXPECT_EQ(run(byid, out, sizeof(out), NULL, 0, 0), 0);
	v = parse(out);
	T_EXPECT(v && v->type == JSON_ARRAY && v->n == 1 && find_named(v, "nl-stats"));
	json_free(v);

	T_EXPECT(run(unknown, out, sizeof(out), err, sizeof(err), 0) != 0);
	T_EXPECT(one_error_line(err) && strstr(err, "no provider named 'nosuchname'"));
	T_EXPECT_EQ(out[0], 0);
	T_EXPECT(run(badid, out, sizeof(out), err, sizeof(err), 0) != 0);
	T_EXPECT(one_error_line(err) && strstr(err, "no provider with id 4000000000"));
	release_provider(&h);
	release_provider(&other);
}

/* ---------------------------------------------------------------------- */
/* monitor in the background                                              */

struct mon {
	pid_t pid;
	int fd;			/* its stdout */
	char buf[65536];
	size_t len;		/* bytes in buf */
	size_t pos;		/* the next line to look at */
	char line[4096];
};

/* Whether pid has SIGTERM blocked: monitor's sign that it listens. */
static bool sigterm_blocked(pid_t pid)
{
	char file[64], text[2048], *p;
	unsigned long long mask;
	ssize_t n;
	int fd;

	snprintf(file, sizeof(file), "/proc/%d/status", (int)pid);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = 0;
	p = strstr(text, "SigBlk:");
	if (!p || sscanf(p + 7, "%llx", &mask) != 1)
		return false;
	return mask & (1ull << (SIGTERM - 1));
}

static int mon_start(struct mon *m, bool json, uid_t uid)
{
	const char *argv[] = { "tracebufctl", "monitor", json ? "-j" : NULL, NULL };
	int p[2];

	memset(m, 0, sizeof(*m));
	if (pipe2(p, O_CLOEXEC))
		return -1;
	fflush(stdout);
	m->pid = fork();
	if (m->pid < 0)
		return -1;
	if (!m->pid) {
		dup2(p[1], 1);
		if (become(uid))
			_exit(126);
		execv(prog_path("tracebufctl"), (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	m->fd = p[0];
	/* joined and listening once its signals are blocked (5 s at most) */
	for (int i = 0; i < 500; i++) {
		if (sigterm_blocked(m->pid))
			return 0;
		if (waitpid(m->pid, &(int){ 0 }, WNOHANG) == m->pid) {
			m->pid = 0;
			return -1;
		}
		usleep(10 * 1000);
	}
	return -1;
}

/*
 * The next line that starts with prefix and contains needle (lines
 * before it are skipped), within timeout_ms; NULL if none came.
 */
static const char *mon_find(struct mon *m, const char *prefix, const char *needle,
			    int timeout_ms)
{
	double end = t_now() + timeout_ms / 1000.0;

	for (;;) {
		char *nl;

		while ((nl = memchr(m->buf + m->pos, '\n', m->len - m->pos))) {
			size_t l = (size_t)(nl - (m->buf + m->pos));

			snprintf(m->line, sizeof(m->line), "%.*s", (int)l, m->buf + m->pos);
			m->pos += l + 1;
			printf("# monitor: %s\n", m->line);
			if (!strncmp(m->line, prefix, strlen(prefix)) && strstr(m->line, needle))
				return m->line;
		}
		if (m->pos == m->len)
			m->pos = m->len = 0;
		if (m->len == sizeof(m->buf) - 1)
			return NULL;
		double left = end - t_now();
		struct pollfd pfd = { .fd = m->fd, .events = POLLIN };
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			return NULL;
		n = read(m->fd, m->buf + m->len, sizeof(m->buf) - 1 - m->len);
		if (n <= 0)
			return NULL;
		m->len += (size_t)n;
		m->buf[m->len] = 0;
	}
}

/* SIGTERM, then its exit status. */
static int mon_stop(struct mon *m)
{
	int status;

	if (m->pid <= 0)
		return -1;
	kill(m->pid, SIGTERM);
	if (waitpid(m->pid, &status, 0) != m->pid)
		return -1;
	m->pid = 0;
	close(m->fd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void monitor_follows_a_provider(void)
{
	const char *rec[] = { "tracebufctl", "record", "-q", "-d", "1s", "-p", "nl-mon",
			      "-o", path("m.fxt"), NULL };
	char who[64], err[512];
	struct held h;
	struct mon m;

	T_ASSERT_EQ(mon_start(&m, false, 0), 0);
	if (hold_provider("nl-mon", NULL, 0, &h)) {
		T_FAIL("no provider");
		mon_stop(&m);
		return;
	}
	snprintf(who, sizeof(who), " pid %d name nl-mon state ", (int)h.pid);
	T_EXPECT(mon_find(&m, "new id ", who, 5000) != NULL);
	T_EXPECT(strstr(m.line, " state registered manager -") != NULL);

	/* record initializes it (and starts, stops, terminates it) */
	T_EXPECT_EQ(run(rec, NULL, 0, err, sizeof(err), 0), 0);
	T_EXPECT(mon_find(&m, "change id ", " name nl-mon state initialized manager ", 5000) !=
		 NULL);
	T_EXPECT(strstr(m.line, " mode oneshot buffer 4194304") != NULL);
	T_EXPECT(strstr(m.line, " manager -") == NULL);
	T_EXPECT(mon_find(&m, "change id ", " name nl-mon state started ", 5000) != NULL);
	T_EXPECT(mon_find(&m, "change id ", " name nl-mon state stopped ", 5000) != NULL);

	release_provider(&h);
	T_EXPECT(mon_find(&m, "del id ", who, 5000) != NULL);
	T_EXPECT_EQ(mon_stop(&m), 0);
}

static void monitor_json_lines(void)
{
	char name[32], key[64];
	const struct json *o;
	struct json *v;
	struct held h;
	struct mon m;

	T_ASSERT_EQ(mon_start(&m, true, 0), 0);
	snprintf(name, sizeof(name), "nl-json");
	if (hold_provider(name, NULL, 0, &h)) {
		T_FAIL("no provider");
		mon_stop(&m);
		return;
	}
	snprintf(key, sizeof(key), "\"name\":\"%s\"", name);
	T_EXPECT(mon_find(&m, "{\"event\":\"new\"", key, 5000) != NULL);
	v = parse(m.line);
	o = v;
	T_EXPECT(o && o->type == JSON_OBJECT);
	T_EXPECT_EQ(num(o, "pid"), h.pid);
	T_EXPECT(eq(json_get_str(o, "state"), "registered"));
	T_EXPECT(is_null(o, "manager"));
	json_free(v);
	release_provider(&h);
	T_EXPECT(mon_find(&m, "{\"event\":\"del\"", key, 5000) != NULL);
	v = parse(m.line);
	T_EXPECT(v && v->type == JSON_OBJECT);
	json_free(v);
	T_EXPECT_EQ(mon_stop(&m), 0);
}

/* ---------------------------------------------------------------------- */
/* Privileges                                                             */

static void unprivileged_is_refused(void)
{
	const char *mon[] = { "tracebufctl", "monitor", NULL };
	const char *list[] = { "tracebufctl", "list", NULL };
	const char *stats[] = { "tracebufctl", "stats", NULL };
	const char *get[] = { "tracebufctl", "stats", "1", NULL };
	static char out[4096];
	char err[512];

	T_EXPECT(run(mon, out, sizeof(out), err, sizeof(err), NOBODY) != 0);
	T_EXPECT(one_error_line(err));
	T_EXPECT(strstr(err, "permission denied: monitor needs CAP_SYS_ADMIN "
			"(events carry the pids of every namespace)") != NULL);
	T_EXPECT_EQ(out[0], 0);
	T_EXPECT(run(list, out, sizeof(out), err, sizeof(err), NOBODY) != 0);
	T_EXPECT(one_error_line(err) && strstr(err, "permission denied") != NULL);
	T_EXPECT_EQ(out[0], 0);
	T_EXPECT(run(stats, out, sizeof(out), err, sizeof(err), NOBODY) != 0);
	T_EXPECT(one_error_line(err) && strstr(err, "permission denied") != NULL);
	T_EXPECT_EQ(out[0], 0);
	/* a GET: refused with the kernel's extended ack message */
	T_EXPECT(run(get, out, sizeof(out), err, sizeof(err), NOBODY) != 0);
	T_EXPECT(one_error_line(err));
	T_EXPECT(strstr(err, "permission denied: needs CAP_PERFMON or CAP_SYS_ADMIN, "
			"or the manager_gid group") != NULL);
	T_EXPECT_EQ(out[0], 0);
}

static const struct t_test tests[] = {
	T_TEST(list_json_shows_our_provider),
	T_TEST(stats_shows_filters_and_refuses),
	T_TEST(monitor_follows_a_provider),
	T_TEST(monitor_json_lines),
	T_TEST(unprivileged_is_refused),
};

VMTEST_MAIN(tests)
