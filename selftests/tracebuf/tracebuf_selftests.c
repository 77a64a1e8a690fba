// SPDX-License-Identifier: GPL-2.0
/*
 * The wrappers and helpers the tracebuf selftests share, declared in
 * tracebuf_selftests.h (which says what each does); linked into every
 * program.  Nothing here uses the kselftest harness.
 */
#define TB_NO_HARNESS
#include "tracebuf_selftests.h"

#include <signal.h>
#include <sys/utsname.h>

int tb_open_flags(int flags)
{
	int fd = open(TB_DEV_PATH, O_RDWR | O_CLOEXEC | flags);

	return fd < 0 ? -errno : fd;
}

int tb_open(void)
{
	return tb_open_flags(0);
}

void tb_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

size_t tb_page_size(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return page > 0 ? (size_t)page : 4096;
}

void *tb_bad_page(void)
{
	return mmap(NULL, tb_page_size(), PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static sigjmp_buf tb_touch_jmp;

static void tb_touch_sigbus(int sig)
{
	siglongjmp(tb_touch_jmp, sig);
}

int tb_touch(volatile char *p, bool write)
{
	struct sigaction sa = { .sa_handler = tb_touch_sigbus }, old;
	int sig;

	sigaction(SIGBUS, &sa, &old);
	sig = sigsetjmp(tb_touch_jmp, 1);
	if (!sig) {
		if (write)
			*p = (char)(*p + 1);
		else
			(void)*p;
	}
	sigaction(SIGBUS, &old, NULL);
	return sig;
}

int tb_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

bool tb_kernel_is_arm32(void)
{
	struct utsname u;

	return !uname(&u) && !strncmp(u.machine, "arm", 3) &&
	       strcmp(u.machine, "armv8l") && strcmp(u.machine, "arm64");
}

bool tb_cpu_has_invariant_tsc(void)
{
	char line[4096];
	bool constant = false, nonstop = false;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	fclose(f);
	return constant && nonstop;
}

int tb_version(int fd, struct tracebuf_version_args *v)
{
	memset(v, TB_POISON8, sizeof(*v));
	return tb_ioctl(fd, TRACEBUF_IOC_VERSION, v);
}

__u64 tb_buffer_min(void)
{
	static __u32 cached;
	struct tracebuf_version_args v;
	__u32 align = __atomic_load_n(&cached, __ATOMIC_RELAXED);
	int fd;

	if (align)
		return align;
	align = (__u32)tb_page_size();
	if (align < TRACEBUF_BUFFER_ALIGN)
		align = TRACEBUF_BUFFER_ALIGN;
	fd = tb_open();
	if (fd >= 0) {
		if (!tb_version(fd, &v) &&
		    (v.features & TRACEBUF_FEAT_BUFFER_ALIGN) && v.buffer_align)
			align = v.buffer_align;
		close(fd);
	}
	if (align < TRACEBUF_BUFFER_MIN)
		align = TRACEBUF_BUFFER_MIN;
	__atomic_store_n(&cached, align, __ATOMIC_RELAXED);
	return align;
}

int register_provider_ex(int fd, const void *name, __u32 len,
			 __u32 flags, __u32 *id, __u32 *status)
{
	struct tracebuf_register_args a = {
		.name_ptr = tb_ptr(name),
		.name_len = len,
		.flags = flags,
		.id = TB_POISON32,
		.status = TB_POISON32,
	};
	int ret = tb_ioctl(fd, TRACEBUF_IOC_REGISTER, &a);

	if (!ret && id)
		*id = a.id;
	if (!ret && status)
		*status = a.status;
	return ret;
}

int register_provider(int fd, const char *name, __u32 flags,
		      __u32 *id)
{
	return register_provider_ex(fd, name, strlen(name), flags, id, NULL);
}

int attach_manager(int fd, __u32 flags, __u32 *id)
{
	struct tracebuf_attach_args a = { .flags = flags, .id = TB_POISON32 };
	int ret = tb_ioctl(fd, TRACEBUF_IOC_ATTACH, &a);

	if (!ret && id)
		*id = a.id;
	return ret;
}

int tb_open_provider(const char *name, __u32 *id)
{
	int fd = tb_open();
	int ret;

	if (fd < 0)
		return fd;
	ret = register_provider(fd, name, 0, id);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int tb_open_manager(__u32 flags, __u32 *id)
{
	int fd = tb_open();
	int ret;

	if (fd < 0)
		return fd;
	ret = attach_manager(fd, flags, id);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int set_eventfd(int fd, int efd)
{
	struct tracebuf_eventfd_args a = { .fd = efd, .flags = 0 };

	return tb_ioctl(fd, TRACEBUF_IOC_SET_EVENTFD, &a);
}

int provider_get_config(int fd, struct tracebuf_config_args *cfg,
			void *buf, __u32 size)
{
	memset(cfg, TB_POISON8, sizeof(*cfg));
	cfg->categories_ptr = tb_ptr(buf);
	cfg->categories_size = size;
	cfg->flags = 0;
	return tb_ioctl(fd, TRACEBUF_IOC_PROVIDER_GET_CONFIG, cfg);
}

int provider_config_all(int fd, struct tracebuf_config_args *cfg,
			char **cats)
{
	__u32 room = 256;
	char *buf = NULL, *nbuf;
	int ret, tries;

	for (tries = 0; tries < 4; tries++) {
		nbuf = realloc(buf, room);
		if (!nbuf) {
			free(buf);
			return -ENOMEM;
		}
		buf = nbuf;
		ret = provider_get_config(fd, cfg, buf, room);
		if (ret != -ENOSPC)
			break;
		if (cfg->categories_size <= room)
			break;	/* ENOSPC without a bigger size: a bug */
		room = cfg->categories_size;
	}
	if (ret || !cats)
		free(buf);
	else
		*cats = buf;
	return ret;
}

int provider_state(int fd)
{
	struct tracebuf_config_args cfg;
	int ret = provider_config_all(fd, &cfg, NULL);

	return ret ? ret : (int)cfg.state;
}

struct tracebuf_pkt tb_pkt(__u16 request, __u16 data16,
			   __u32 data32, __u64 data64)
{
	struct tracebuf_pkt p;

	memset(&p, 0, sizeof(p));
	p.request = request;
	p.data16 = data16;
	p.data32 = data32;
	p.data64 = data64;
	return p;
}

struct tracebuf_pkt tb_alert_pkt(const void *name, size_t len)
{
	struct tracebuf_pkt p;

	memset(&p, 0, sizeof(p));
	p.request = TRACEBUF_PKT_ALERT;
	if (len > TRACEBUF_ALERT_NAME_MAX)
		len = TRACEBUF_ALERT_NAME_MAX;
	memcpy((char *)&p + 2, name, len);
	return p;
}

int provider_send_pkt(int fd, const struct tracebuf_pkt *p)
{
	struct tracebuf_pkt copy = *p;

	return tb_ioctl(fd, TRACEBUF_IOC_PROVIDER_SEND, &copy);
}

int provider_send(int fd, __u16 request, __u16 data16,
		  __u32 data32, __u64 data64)
{
	struct tracebuf_pkt p = tb_pkt(request, data16, data32, data64);

	return provider_send_pkt(fd, &p);
}

int provider_started(int fd)
{
	return provider_send(fd, TRACEBUF_PKT_STARTED, 0,
			     TRACEBUF_FIFO_PROTOCOL_VERSION, 0);
}

int provider_stopped(int fd)
{
	return provider_send(fd, TRACEBUF_PKT_STOPPED, 0, 0, 0);
}

int provider_alert(int fd, const char *name)
{
	struct tracebuf_pkt p = tb_alert_pkt(name, strlen(name));

	return provider_send_pkt(fd, &p);
}

int provider_release(int fd)
{
	struct tracebuf_release_args a = { .flags = 0 };

	return tb_ioctl(fd, TRACEBUF_IOC_PROVIDER_RELEASE, &a);
}

int tb_cats_add_len(struct tb_cats *c, const void *s, size_t len)
{
	char *nbuf = realloc(c->buf, c->size + len + 1);

	if (!nbuf)
		return -ENOMEM;
	memcpy(nbuf + c->size, s, len);
	nbuf[c->size + len] = '\0';
	c->buf = nbuf;
	c->size += len + 1;
	c->count++;
	return 0;
}

int tb_cats_add(struct tb_cats *c, const char *s)
{
	return tb_cats_add_len(c, s, strlen(s));
}

int tb_cats_build(struct tb_cats *c, ...)
{
	const char *s;
	va_list ap;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	va_start(ap, c);
	while (!ret && (s = va_arg(ap, const char *)))
		ret = tb_cats_add(c, s);
	va_end(ap);
	return ret;
}

int tb_cats_many(struct tb_cats *c, unsigned int n)
{
	char name[32];
	unsigned int i;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	for (i = 0; !ret && i < n; i++) {
		snprintf(name, sizeof(name), "cat%u", i);
		ret = tb_cats_add(c, name);
	}
	return ret;
}

void tb_cats_free(struct tb_cats *c)
{
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

int mgr_list(int fd, __u32 start_id,
	     struct tracebuf_provider_info *info, __u32 capacity,
	     __u32 *count, __u32 *total)
{
	struct tracebuf_list_args a = {
		.info_ptr = tb_ptr(info),
		.info_size = sizeof(*info),
		.capacity = capacity,
		.start_id = start_id,
		.count = TB_POISON32,
		.total = TB_POISON32,
		.flags = 0,
	};
	int ret;

	if (info && capacity)
		memset(info, TB_POISON8, sizeof(*info) * capacity);
	ret = tb_ioctl(fd, TRACEBUF_IOC_MGR_LIST, &a);
	if (!ret && count)
		*count = a.count;
	if (!ret && total)
		*total = a.total;
	return ret;
}

int mgr_find(int fd, __u32 id, struct tracebuf_provider_info *out)
{
	struct tracebuf_provider_info info;
	__u32 count = 0;
	int ret = mgr_list(fd, id, &info, 1, &count, NULL);

	if (ret)
		return ret;
	if (count < 1 || info.id != id)
		return -ESRCH;
	if (out)
		*out = info;
	return 0;
}

int mgr_state(int fd, __u32 id)
{
	struct tracebuf_provider_info info;
	int ret = mgr_find(fd, id, &info);

	return ret ? ret : (int)info.state;
}

int mgr_count(int fd, __u32 start_id)
{
	__u32 total = 0;
	int ret = mgr_list(fd, start_id, NULL, 0, NULL, &total);

	return ret ? ret : (int)total;
}

void tb_fill_cats(const struct tb_cats *cats, __u64 *ptr,
		  __u32 *size, __u32 *count)
{
	*ptr = cats ? tb_ptr(cats->buf) : 0;
	*size = cats ? cats->size : 0;
	*count = cats ? cats->count : 0;
}

void tb_init_args(struct tracebuf_initialize_args *a, __u32 id,
		  __u32 mode, __u64 size,
		  const struct tb_cats *cats)
{
	memset(a, 0, sizeof(*a));
	a->provider_id = id;
	a->mode = mode;
	a->buffer_size = size;
	tb_fill_cats(cats, &a->categories_ptr, &a->categories_size,
		     &a->categories_count);
	a->buffer_fd = (__s32)TB_POISON32;
}

int mgr_initialize(int fd, __u32 id, __u32 mode, __u64 size,
		   const struct tb_cats *cats, int *buffer_fd)
{
	return mgr_initialize_flags(fd, id, mode, size, 0, cats, buffer_fd);
}

int mgr_initialize_flags(int fd, __u32 id, __u32 mode, __u64 size,
			 __u32 flags, const struct tb_cats *cats,
			 int *buffer_fd)
{
	struct tracebuf_initialize_args a;
	int ret;

	tb_init_args(&a, id, mode, size, cats);
	a.flags = flags;
	ret = tb_ioctl(fd, TRACEBUF_IOC_MGR_INITIALIZE, &a);
	if (!ret) {
		if (buffer_fd)
			*buffer_fd = a.buffer_fd;
		else
			close(a.buffer_fd);
	}
	return ret;
}

void tb_start_args(struct tracebuf_start_args *a, __u32 id,
		   __u32 disposition, const struct tb_cats *cats)
{
	memset(a, 0, sizeof(*a));
	a->provider_id = id;
	a->disposition = disposition;
	tb_fill_cats(cats, &a->categories_ptr, &a->categories_size,
		     &a->categories_count);
}

int mgr_start(int fd, __u32 id, __u32 disposition,
	      const struct tb_cats *cats)
{
	struct tracebuf_start_args a;

	tb_start_args(&a, id, disposition, cats);
	return tb_ioctl(fd, TRACEBUF_IOC_MGR_START, &a);
}

int mgr_stop(int fd, __u32 id)
{
	struct tracebuf_target_args a = { .provider_id = id };

	return tb_ioctl(fd, TRACEBUF_IOC_MGR_STOP, &a);
}

int mgr_terminate(int fd, __u32 id)
{
	struct tracebuf_target_args a = { .provider_id = id };

	return tb_ioctl(fd, TRACEBUF_IOC_MGR_TERMINATE, &a);
}

int mgr_send(int fd, __u32 id, const struct tracebuf_pkt *pkt)
{
	struct tracebuf_mgr_send_args a;

	memset(&a, 0, sizeof(a));
	a.provider_id = id;
	a.pkt = *pkt;
	return tb_ioctl(fd, TRACEBUF_IOC_MGR_SEND, &a);
}

int mgr_buffer_saved(int fd, __u32 id, __u32 wrapped_count,
		     __u64 durable_end)
{
	struct tracebuf_pkt p = tb_pkt(TRACEBUF_PKT_BUFFER_SAVED, 0,
				       wrapped_count, durable_end);

	return mgr_send(fd, id, &p);
}

int tb_pending(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ret = poll(&pfd, 1, 0);

	if (ret < 0)
		return -errno;
	return ret > 0 && (pfd.revents & POLLIN);
}

int tb_read_record(int fd, void *rec, size_t len, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int flags, ret;
	ssize_t n;

	do {
		ret = poll(&pfd, 1, timeout_ms);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	if (ret == 0)
		return -ETIMEDOUT;
	flags = fcntl(fd, F_GETFL);
	if (flags < 0)
		return -errno;
	if (!(flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	n = read(fd, rec, len);
	ret = n < 0 ? -errno : (size_t)n == len ? 0 : -EIO;
	if (!(flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, flags);
	return ret;
}

int tb_read_pkt(int fd, struct tracebuf_pkt *pkt, int timeout_ms)
{
	memset(pkt, TB_POISON8, sizeof(*pkt));
	return tb_read_record(fd, pkt, sizeof(*pkt), timeout_ms);
}

int tb_read_msg(int fd, struct tracebuf_mgr_msg *msg,
		int timeout_ms)
{
	memset(msg, TB_POISON8, sizeof(*msg));
	return tb_read_record(fd, msg, sizeof(*msg), timeout_ms);
}

int tb_drain(int fd, size_t reclen)
{
	char rec[64];
	int n = 0;

	while (reclen <= sizeof(rec) && tb_read_record(fd, rec, reclen, 0) == 0)
		n++;
	return n;
}

void tb_buffer_sizes(__u32 mode, __u64 total, __u64 *durable,
		     __u64 *rolling)
{
	__u64 avail = total - TRACEBUF_HEADER_SIZE;
	__u64 d;

	if (mode == TRACEBUF_MODE_ONESHOT) {
		*durable = 0;
		*rolling = avail;
		return;
	}
	d = avail / 16;
	if (d > TRACEBUF_DURABLE_MAX)
		d = TRACEBUF_DURABLE_MAX;
	d += (avail - d) & 15;
	*durable = d;
	*rolling = (avail - d) / 2;
}

__u8 tb_header_mode(__u32 mode)
{
	return (__u8)(mode - 1);
}

void *tb_map(int fd, size_t len, int prot, off_t off)
{
	return mmap(NULL, len, prot, MAP_SHARED, fd, off);
}

int tb_next_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
	return fd;
}

int tb_read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1 &&
	       (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return 0;
}

int tb_param_get(const char *name, long long *val)
{
	char path[256], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), TB_PARAM_DIR "/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	*val = strtoll(buf, NULL, 0);
	return 0;
}

int tb_param_set_path(const char *path, long long val)
{
	char buf[64];
	ssize_t n;
	int fd, len;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%lld\n", val);
	n = write(fd, buf, len);
	close(fd);
	if (n < 0)
		return -errno;
	return n == len ? 0 : -EIO;
}

int tb_param_set(const char *name, long long val)
{
	char path[256];

	snprintf(path, sizeof(path), TB_PARAM_DIR "/%s", name);
	return tb_param_set_path(path, val);
}

int tb_param_change(struct tb_param *p, const char *name,
		    long long val)
{
	int ret;

	if (!p->saved) {
		ret = tb_param_get(name, &p->old);
		if (ret)
			return ret;
		p->name = name;
		p->saved = true;
	}
	return tb_param_set(name, val);
}

int tb_param_restore(struct tb_param *p)
{
	int ret = 0;

	if (p->saved)
		ret = tb_param_set(p->name, p->old);
	p->saved = false;
	return ret;
}

int tb_wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -EIO;
}

int tb_become(const struct tb_creds *c)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	unsigned int i;

	memset(data, 0, sizeof(data));
	for (i = 0; i < sizeof(c->caps) / sizeof(c->caps[0]); i++) {
		if (c->caps[i] < 0)
			continue;
		data[CAP_TO_INDEX(c->caps[i])].permitted |= CAP_TO_MASK(c->caps[i]);
		data[CAP_TO_INDEX(c->caps[i])].effective |= CAP_TO_MASK(c->caps[i]);
	}
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return 101;
	if (setgroups(c->ngroups, c->groups))
		return 102;
	if (setresgid(c->gid, c->gid, c->gid))
		return 103;
	if (setresuid(c->uid, c->uid, c->uid))
		return 104;
	if (syscall(SYS_capset, &hdr, data))
		return 105;
	if (geteuid() != c->uid || getegid() != c->gid)
		return 106;
	return 0;
}

int tb_run_as(const struct tb_creds *c, int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int ret;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		ret = tb_become(c);
		_exit(ret ? ret : fn(arg));
	}
	return tb_wait_child(pid);
}

void tb_msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

bool tb_wait_sleeping(pid_t pid, pid_t tid, int timeout_ms)
{
	char path[96], buf[512], *p;
	int waited, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	for (waited = 0; waited <= timeout_ms; waited += 5) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			tb_msleep(200);
			return false;
		}
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			p = strrchr(buf, ')');
			if (p && p[1] == ' ' && p[2] == 'S')
				return true;
		}
		tb_msleep(5);
	}
	return false;
}

int tb_probe(char *why, size_t len)
{
	struct tracebuf_version_args v;
	struct stat st;
	int fd, ret;

	if (geteuid() != 0) {
		snprintf(why, len, "tracebuf tests must run as root");
		return 1;
	}
	if (stat(TB_DEV_PATH, &st)) {
		if (access(TB_MODULE_DIR, F_OK) == 0) {
			snprintf(why, len, "module loaded but %s: %s",
				 TB_DEV_PATH, strerror(errno));
			return -1;
		}
		snprintf(why, len, "%s absent (module not loaded)",
			 TB_DEV_PATH);
		return 1;
	}
	fd = tb_open();
	if (fd < 0) {
		snprintf(why, len, "open %s: %s", TB_DEV_PATH, strerror(-fd));
		return -1;
	}
	ret = tb_version(fd, &v);
	close(fd);
	if (ret) {
		snprintf(why, len, "TRACEBUF_IOC_VERSION: %s", strerror(-ret));
		return -1;
	}
	if (v.abi_major != TRACEBUF_ABI_MAJOR) {
		snprintf(why, len, "ABI %u.%u, tests are for %u.x",
			 v.abi_major, v.abi_minor, TRACEBUF_ABI_MAJOR);
		return -1;
	}
	return 0;
}
