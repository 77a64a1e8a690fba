// SPDX-License-Identifier: MIT
/*
 * A stand-in for the manager half of libtracebuf (tracebuf_manager.h),
 * linked before libtracebuf.a into build/tests/tracebufctl-fake, so that
 * "record", "list" and "categories" can be tested on a host without the
 * module.  Its behaviour comes from the environment:
 *
 *   FAKE_CREATE=N      tracebuf_session_create() and tracebuf_manager_open()
 *                      fail with -N
 *   FAKE_ALIGN=N       VERSION's buffer_align is N (default 4096)
 *   FAKE_DESTROY=N     tracebuf_session_destroy() returns -N
 *   FAKE_DISPATCH=N    tracebuf_session_dispatch() returns -EIO from the
 *                      N-th call on
 *   FAKE_ALERT=NAME    the 3rd dispatch reports alert NAME (NOTE_ALERT)
 *   FAKE_SNAPSHOT=N    tracebuf_session_snapshot() fails with -N; -1: it
 *                      says in a note that provider "app" did not answer
 *   FAKE_CONFIG=FILE   the session config is written there, one
 *                      "key value" line per field
 *   FAKE_PROVIDERS=... the providers the session reports, any of
 *                      "app" (traced whole, 1 MiB recorded), "lossy"
 *                      (traced, 3 records dropped in 1 window), "failed"
 *                      ("bad\nname": initialize refused, out of memory),
 *                      "busy" ("other": another manager's), "named"
 *                      ("posix_trace.80": left to another manager,
 *                      whose trace names it), "late"
 *                      ("slow": did not start in time), "gone" (ended
 *                      while tracing, harvested as it left its buffer,
 *                      96 bytes of which were left out), separated by
 *                      commas; default "app"
 *   FAKE_GONE_PID=FILE "gone"'s pid is the number FILE holds when the
 *                      providers are asked for (default 60): COMMAND's
 *                      own, or one of its children's, if it writes it
 *                      there; each dispatch then notes that "gone"
 *                      joined (NOTE_JOINED), as a provider of a new pid
 *                      would
 *   FAKE_GONE_END=H:W  how "gone" ended, as the kernel said
 *                      (tracebuf_session_provider_end()): TRACEBUF_LIB_END_*
 *                      H and wait status W, e.g. 1:15 (killed by SIGTERM),
 *                      1:1280 (exit 5), 2:0 (closed its file); default 0:0
 *
 * The session's fd is a timerfd ticking every 20 ms.  The output gets the
 * magic record at create, and at stop a provider info record and one
 * instant event per dispatch in category "c": a valid FXT file.  In
 * streaming mode each dispatch saves instead: the provider info record
 * (the first time in the file) and one instant event, and the stop one
 * more; tracebuf_session_rotate() goes on in a new file, with the magic
 * record and the provider info record again.  Of the session's
 * categories, "c", "net", "io" and patterns matching one are known.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <tracebuf_fxt.h>
#include <tracebuf_manager.h>

struct tracebuf_session {
	struct tracebuf_session_config cfg;
	int fd;
	unsigned int dispatches;
	uint64_t bytes;
	int out_err;
	bool stopped;
	bool info_written;		/* streaming: in the current file */
};

struct tracebuf_manager {
	int dummy;
};

static int fake_env(const char *name)
{
	const char *v = getenv(name);

	return v ? atoi(v) : 0;
}

static int fake_write(struct tracebuf_session *s, const void *buf, size_t len)
{
	if (write(s->cfg.output_fd, buf, len) != (ssize_t)len) {
		s->out_err = -EIO;
		return -EIO;
	}
	s->bytes += len;
	return 0;
}

static void fake_config(const struct tracebuf_session_config *cfg)
{
	const char *path = getenv("FAKE_CONFIG");
	FILE *f;

	if (!path || !(f = fopen(path, "w")))
		return;
	fprintf(f, "mode %u\nbuffer_size %llu\n", cfg->mode,
		(unsigned long long)cfg->buffer_size);
	for (size_t i = 0; i < cfg->ncategories; i++)
		fprintf(f, "category %s\n", cfg->categories[i]);
	for (size_t i = 0; i < cfg->nproviders; i++)
		fprintf(f, "provider %s\n", cfg->providers[i]);
	for (size_t i = 0; i < cfg->noverrides; i++)
		fprintf(f, "override %s %llu\n", cfg->overrides[i].name,
			(unsigned long long)cfg->overrides[i].buffer_size);
	fprintf(f, "device %s\nnotify %s\n", cfg->device ? cfg->device : "(default)",
		cfg->notify ? "yes" : "no");
	fclose(f);
}

int tracebuf_session_create(const struct tracebuf_session_config *cfg,
			    struct tracebuf_session **out)
{
	struct itimerspec its = { { 0, 20000000 }, { 0, 20000000 } };
	struct tracebuf_session *s;
	uint64_t magic;

	if (fake_env("FAKE_CREATE"))
		return -fake_env("FAKE_CREATE");
	fake_config(cfg);
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->cfg = *cfg;
	s->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (s->fd < 0 || timerfd_settime(s->fd, 0, &its, NULL)) {
		free(s);
		return -errno;
	}
	tracebuf_fxt_magic_write(&magic, sizeof(magic));
	fake_write(s, &magic, sizeof(magic));
	*out = s;
	return 0;
}

int tracebuf_session_fd(const struct tracebuf_session *s)
{
	return s->fd;
}

/* One instant event "tick" at @ticks (and, streaming, the provider info first). */
static void fake_event(struct tracebuf_session *s, uint64_t ticks)
{
	struct tracebuf_fxt_event ev = {
		.type = TRACEBUF_LIB_FXT_EVENT_INSTANT, .ticks = ticks,
		.thread = tracebuf_fxt_thread_inline(10, 11),
		.category = tracebuf_fxt_str_inline("c", 1),
		.name = tracebuf_fxt_str_inline("tick", 4),
	};
	uint64_t buf[8];
	int n;

	if (s->cfg.mode == TRACEBUF_MODE_STREAMING && !s->info_written) {
		n = tracebuf_fxt_provider_info_write(buf, sizeof(buf), 1, "app", 3);
		fake_write(s, buf, (size_t)n);
		s->info_written = true;
	}
	n = tracebuf_fxt_event_write(buf, sizeof(buf), &ev);
	fake_write(s, buf, (size_t)n);
}

int tracebuf_session_dispatch(struct tracebuf_session *s)
{
	uint64_t ticks;
	int fail = fake_env("FAKE_DISPATCH");

	if (read(s->fd, &ticks, sizeof(ticks)) != sizeof(ticks))
		return 0;
	s->dispatches++;
	if (fail && s->dispatches >= (unsigned int)fail)
		return -EIO;
	if (s->dispatches == 3 && getenv("FAKE_ALERT") && s->cfg.notify) {
		struct tracebuf_session_note note = {
			.type = TRACEBUF_LIB_NOTE_ALERT, .provider_id = 1,
			.provider_name = "app", .alert = getenv("FAKE_ALERT"),
		};

		s->cfg.notify(s->cfg.arg, &note);
	}
	if (getenv("FAKE_GONE_PID") && s->cfg.notify) {
		struct tracebuf_session_note note = {
			.type = TRACEBUF_LIB_NOTE_JOINED, .provider_id = 6,
			.provider_name = "gone",
		};

		s->cfg.notify(s->cfg.arg, &note);
	}
	if (s->cfg.mode == TRACEBUF_MODE_STREAMING && !s->stopped)
		fake_event(s, 1000 * s->dispatches);	/* a save */
	return s->out_err ? -EIO : 1;
}

int tracebuf_session_rotate(struct tracebuf_session *s, int fd)
{
	uint64_t magic;

	if (fd < 0)
		return -EINVAL;
	if (s->cfg.mode != TRACEBUF_MODE_STREAMING)
		return -EOPNOTSUPP;
	if (s->out_err)
		return s->out_err;
	s->cfg.output_fd = fd;
	s->info_written = false;
	tracebuf_fxt_magic_write(&magic, sizeof(magic));
	return fake_write(s, &magic, sizeof(magic));
}

int tracebuf_session_start(struct tracebuf_session *s,
			   const struct tracebuf_session_start_args *args)
{
	(void)s;
	(void)args;
	return 0;
}

int tracebuf_session_stop(struct tracebuf_session *s, bool write_results)
{
	uint64_t buf[8];
	int n;

	if (s->stopped)
		return -EALREADY;
	s->stopped = true;
	if (!write_results)
		return 0;
	if (s->cfg.mode == TRACEBUF_MODE_STREAMING) {
		fake_event(s, 1000 * s->dispatches);	/* the last data */
		return s->out_err;
	}
	n = tracebuf_fxt_provider_info_write(buf, sizeof(buf), 1, "app", 3);
	fake_write(s, buf, (size_t)n);
	for (unsigned int i = 0; i < s->dispatches; i++) {
		struct tracebuf_fxt_event ev = {
			.type = TRACEBUF_LIB_FXT_EVENT_INSTANT, .ticks = 1000 * i,
			.thread = tracebuf_fxt_thread_inline(10, 11),
			.category = tracebuf_fxt_str_inline("c", 1),
			.name = tracebuf_fxt_str_inline("tick", 4),
		};

		n = tracebuf_fxt_event_write(buf, sizeof(buf), &ev);
		fake_write(s, buf, (size_t)n);
	}
	return s->out_err;
}

/* The magic record, a provider info record and one event "snap". */
int tracebuf_session_snapshot(struct tracebuf_session *s, int fd, uint64_t *bytes)
{
	struct tracebuf_fxt_event ev = {
		.type = TRACEBUF_LIB_FXT_EVENT_INSTANT, .ticks = 1000,
		.thread = tracebuf_fxt_thread_inline(10, 11),
		.category = tracebuf_fxt_str_inline("c", 1),
		.name = tracebuf_fxt_str_inline("snap", 4),
	};
	struct tracebuf_session_note note = {
		.type = TRACEBUF_LIB_NOTE_ERROR, .provider_id = 1, .provider_name = "app",
		.error = -ETIMEDOUT, .what = "did not answer the snapshot in time",
	};
	uint64_t buf[16];
	size_t len;
	int n;

	if (fd < 0 || s->stopped)
		return -EINVAL;
	if (s->cfg.mode == TRACEBUF_MODE_STREAMING)
		return -EOPNOTSUPP;
	if (fake_env("FAKE_SNAPSHOT") > 0)
		return -fake_env("FAKE_SNAPSHOT");
	if (fake_env("FAKE_SNAPSHOT") < 0) {
		s->cfg.notify(s->cfg.arg, &note);
		n = tracebuf_fxt_magic_write(buf, sizeof(buf));
		len = (size_t)n;
	} else {
		n = tracebuf_fxt_magic_write(buf, sizeof(buf));
		len = (size_t)n;
		n = tracebuf_fxt_provider_info_write(buf + len / 8, sizeof(buf) - len, 1, "app", 3);
		len += (size_t)n;
		n = tracebuf_fxt_event_write(buf + len / 8, sizeof(buf) - len, &ev);
		len += (size_t)n;
	}
	if (write(fd, buf, len) != (ssize_t)len)
		return -EIO;
	if (bytes)
		*bytes = len;
	return fake_env("FAKE_SNAPSHOT") < 0 ? 0 : 1;
}

int tracebuf_session_terminate(struct tracebuf_session *s)
{
	return s->out_err;
}

int tracebuf_session_providers(const struct tracebuf_session *s,
			       struct tracebuf_session_provider *out, size_t cap)
{
	static const struct {
		const char *key;
		struct tracebuf_session_provider p;
	} all[] = {
		{ "app", { .id = 1, .pid = 10, .name = "app",
			   .state = TRACEBUF_LIB_TRACEE_TERMINATED,
			   .mode = TRACEBUF_MODE_ONESHOT, .bytes_written = 100,
			   .bytes_recorded = 1 << 20, .saves = 2 } },
		{ "lossy", { .id = 5, .pid = 50, .name = "lossy",
			     .state = TRACEBUF_LIB_TRACEE_TERMINATED,
			     .mode = TRACEBUF_MODE_ONESHOT, .bytes_written = 64,
			     .bytes_recorded = 4096, .records_dropped = 3,
			     .drop_windows = 1 } },
		{ "liar", { .id = 7, .pid = 70, .name = "liar",
			    .state = TRACEBUF_LIB_TRACEE_TERMINATED,
			    .mode = TRACEBUF_MODE_ONESHOT, .bytes_written = 64,
			    .records_dropped = ~0ull, .dropped_doubtful = true,
			    .error = -EINVAL } },
		{ "failed", { .id = 2, .pid = 20, .name = "bad\nname",
			      .state = TRACEBUF_LIB_TRACEE_FAILED, .error = -ENOMEM } },
		{ "busy", { .id = 3, .pid = 30, .name = "other",
			    .state = TRACEBUF_LIB_TRACEE_BUSY, .error = -EBUSY } },
		{ "named", { .id = 8, .pid = 80, .name = "posix_trace.80",
			     .state = TRACEBUF_LIB_TRACEE_LEFT } },
		{ "late", { .id = 4, .pid = 40, .name = "slow",
			    .state = TRACEBUF_LIB_TRACEE_TERMINATED, .error = -ETIMEDOUT } },
		{ "gone", { .id = 6, .pid = 60, .name = "gone",
			    .state = TRACEBUF_LIB_TRACEE_GONE, .mode = TRACEBUF_MODE_ONESHOT,
			    .bytes_written = 64, .bytes_rejected = 96, .crashed = true } },
	};
	const char *want = getenv("FAKE_PROVIDERS");
	const char *pidfile = getenv("FAKE_GONE_PID");
	size_t n = 0;

	(void)s;
	if (!want)
		want = "app";
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		size_t len = strlen(all[i].key);
		const char *w = strstr(want, all[i].key);

		if (!w || (w[len] && w[len] != ','))
			continue;
		if (n < cap) {
			FILE *f = all[i].p.crashed && pidfile ? fopen(pidfile, "r") : NULL;

			out[n] = all[i].p;
			if (f && fscanf(f, "%u", &out[n].pid) != 1)
				out[n].pid = all[i].p.pid;
			if (f)
				fclose(f);
		}
		n++;
	}
	return (int)n;
}

int tracebuf_session_provider_end(const struct tracebuf_session *s, uint32_t id,
				  int *wait_status)
{
	const char *end = getenv("FAKE_GONE_END");
	int how = 0, wait = 0;

	(void)s;
	if (id != 6)	/* "gone" */
		return id >= 1 && id <= 7 ? TRACEBUF_LIB_END_UNKNOWN : -ENOENT;
	if (end && sscanf(end, "%d:%d", &how, &wait) != 2)
		how = wait = 0;
	if (wait_status)
		*wait_status = how == TRACEBUF_LIB_END_EXITED ? wait : 0;
	return how;
}

int tracebuf_session_category_known(const struct tracebuf_session *s, size_t i)
{
	static const char *const known[] = { "c", "net", "io" };
	const char *want;
	size_t len;

	if (i >= s->cfg.ncategories)
		return -EINVAL;
	want = s->cfg.categories[i];
	/* as the library: an exclusion is known */
	if (want[0] == '-')
		return 1;
	len = strlen(want);
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
		if (!strcmp(want, known[k]))
			return 1;
		if (len && want[len - 1] == '*' && !strncmp(want, known[k], len - 1))
			return 1;
	}
	return 0;
}

uint64_t tracebuf_session_bytes(const struct tracebuf_session *s)
{
	return s->bytes;
}

int tracebuf_session_destroy(struct tracebuf_session *s)
{
	int ret = s->out_err;

	if (fake_env("FAKE_DESTROY"))
		ret = -fake_env("FAKE_DESTROY");
	close(s->fd);
	free(s);
	return ret;
}

int tracebuf_manager_open(const char *device, uint32_t flags, struct tracebuf_manager **out)
{
	(void)device;
	(void)flags;
	/*
	 * a manager is opened fine where only the session's sizes or
	 * config are refused
	 */
	if (fake_env("FAKE_CREATE") && fake_env("FAKE_CREATE") != EFBIG &&
	    fake_env("FAKE_CREATE") != EINVAL)
		return -fake_env("FAKE_CREATE");
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

int tracebuf_manager_list(struct tracebuf_manager *m, struct tracebuf_provider_info **out)
{
	struct tracebuf_provider_info *p = calloc(2, sizeof(*p));

	(void)m;
	if (!p)
		return -ENOMEM;
	p[0] = (struct tracebuf_provider_info){ .id = 1, .pid = 10,
		.state = TRACEBUF_STATE_STARTED, .mode = TRACEBUF_MODE_STREAMING,
		.buffer_size = 1 << 20, .manager_id = 4, .packets_sent = 9,
		.packets_received = 8, .saves = 1 };
	strcpy((char *)p[0].name, "app");
	p[1] = (struct tracebuf_provider_info){ .id = 2, .pid = 20,
		.state = TRACEBUF_STATE_REGISTERED };
	strcpy((char *)p[1].name, "db");
	*out = p;
	return 2;
}

int tracebuf_manager_categories(struct tracebuf_manager *m, uint32_t id,
				char **blob, uint32_t *size, uint32_t *count)
{
	static const char cats[] = "net\0network packets\0io\0\0";

	(void)m;
	*blob = NULL;
	*size = *count = 0;
	if (id == 2)
		return 0;		/* published nothing */
	*blob = malloc(sizeof(cats) - 1);
	if (!*blob)
		return -ENOMEM;
	memcpy(*blob, cats, sizeof(cats) - 1);
	*size = sizeof(cats) - 1;
	*count = 2;
	return 0;
}

const struct tracebuf_version_args *
tracebuf_manager_version(const struct tracebuf_manager *m)
{
	static struct tracebuf_version_args v = {
		.abi_major = TRACEBUF_ABI_MAJOR, .abi_minor = TRACEBUF_ABI_MINOR,
		.features = TRACEBUF_FEAT_BUFFER_ALIGN,
		.max_buffer_size = 1 << 20, .buffer_align = TRACEBUF_BUFFER_ALIGN,
	};

	(void)m;
	if (fake_env("FAKE_ALIGN"))
		v.buffer_align = (uint32_t)fake_env("FAKE_ALIGN");
	return &v;
}

void tracebuf_manager_close(struct tracebuf_manager *m)
{
	free(m);
}
