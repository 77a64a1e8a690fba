// SPDX-License-Identifier: GPL-2.0
/*
 * A state-machine fuzzer for /dev/tracebuf: several processes, each with
 * providers and managers, run random sequences of every ioctl (valid,
 * edge and invalid arguments, bad pointers, other argument sizes, unknown
 * commands), protocol packets, read, poll, write, lseek, mmap, munmap,
 * mremap, mprotect, madvise, touches of the mappings and a debugger's
 * reads and writes of them (/proc/self/mem), streaming saves of sealable
 * buffers, fork (with MADV_DOFORK mappings), netlink queries, close and
 * reopen, while the supervisor SIGKILLs them at random and starts new
 * ones.
 *
 * Every call must return a documented result: success or an errno the
 * uapi header (or the system call's manual page) lists for it, with sane
 * outputs (ids not 0, counts within capacity, whole records, close-on-exec
 * handles).  No process may die of a signal it was not sent (SIGBUS from a
 * mapping, say: a touch may SIGBUS only on a page a save or a stop
 * sealed), no operation may stall, and afterwards the module must hold
 * nothing for any user and still trace.  The runner adds KASAN,
 * lockdep, kmemleak and UBSAN on the debug kernel.
 *
 * Environment: TB_FUZZ_OPS (operations in all, default 50000),
 * TB_FUZZ_SEED (default: from the clock; printed, and a run with the same
 * seed makes the same choices in each process, though their interleaving
 * follows the scheduler), TB_FUZZ_WORKERS (default 4, at most 16; every
 * fourth runs as nobody, without privileges).
 */
#define _GNU_SOURCE
#define TB_NO_HARNESS
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/time.h>

#include "tracebuf_selftests.h"
#include "../kselftest.h"
#include "tracebuf_genl.h"

#define FZ_USERS	"/sys/kernel/debug/tracebuf/users"
#define FZ_FILES	10	/* /dev/tracebuf files per process */
#define FZ_HANDLES	6	/* buffer handles per process */
#define FZ_MAPS		10	/* mappings per process */
#define FZ_EFDS		3	/* eventfds per process */
#define FZ_IDS		32	/* provider ids a process remembers */
#define FZ_KIDS		3	/* forked children per worker */
#define FZ_WORKERS_MAX	16
#define FZ_BAD_MAX	12	/* undocumented results described */
#define FZ_ERRNO_MAX	134	/* errno buckets (EHWPOISON + 1) */
#define FZ_ARG_MAX	(16 * 1024)	/* _IOC_SIZEMASK + 1 */
#define FZ_STALL_S	60	/* no operation finished for this long */
#define FZ_DONE_S	5	/* all done: a worker still there is ended */

/* ------------------------------------------------------------------ */
/* Shared by the supervisor and every process it starts               */

struct fz_shared {
	unsigned long target;		/* operations to run */
	unsigned long ops;		/* operations run (atomic) */
	unsigned long calls[64][FZ_ERRNO_MAX];	/* per op, per errno */
	unsigned long bad;		/* undocumented results */
	char bad_msg[FZ_BAD_MAX][200];
	unsigned long deaths;		/* unexpected signals */
	char death_msg[FZ_BAD_MAX][200];
	unsigned long forks, kids_killed, workers_killed;
	unsigned long states[8];	/* provider states seen (coverage) */
	struct {
		pid_t pid;
		unsigned int gen;
		unsigned int op;	/* running now, for a stall report */
	} w[FZ_WORKERS_MAX];
};

static struct fz_shared *sh;

/* A process that died of a signal nobody sent it (every process counts). */
static void fz_death(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fz_death(const char *fmt, ...)
{
	unsigned long n = __atomic_fetch_add(&sh->deaths, 1, __ATOMIC_RELAXED);
	va_list ap;

	if (n >= FZ_BAD_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(sh->death_msg[n], sizeof(sh->death_msg[n]), fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------------ */
/* One process's view: what it has open and mapped                    */

enum fz_role { FZ_FREE, FZ_NONE, FZ_PROV, FZ_MGR };

struct fz_file {
	int fd;
	enum fz_role role;
	__u32 id;		/* provider or manager id */
};

struct fz_map {
	char *addr;		/* NULL: free slot */
	size_t len;
	int prot;
	bool dofork;		/* MADV_DOFORK on the whole mapping */
};

struct fz {
	__u64 rng;
	unsigned int slot, gen;
	bool kid;
	const char *ctx;	/* what the current operation is doing */
	unsigned int op;
	struct fz_file f[FZ_FILES];
	int h[FZ_HANDLES];
	struct fz_map m[FZ_MAPS];
	int efd[FZ_EFDS];
	__u32 ids[FZ_IDS];
	unsigned int nids;
	pid_t kids[FZ_KIDS];
	struct nl nl;
	bool nl_ok;
	char *bad;		/* PROT_NONE page */
	char *edge;		/* a page followed by bad */
	bool exact;		/* the last fz_ioctl passed the argument as is */
	struct tb_cats cats, pairs, big, names;
	unsigned char arg[FZ_ARG_MAX] __attribute__((aligned(8)));
	char data[64 * 1024];
};

static __u64 fz_rand(struct fz *z)
{
	return tb_splitmix64(&z->rng);
}

static unsigned int fz_below(struct fz *z, unsigned int n)
{
	return n ? (unsigned int)(fz_rand(z) % n) : 0;
}

static bool fz_pct(struct fz *z, unsigned int pct)
{
	return fz_below(z, 100) < pct;
}

/* ------------------------------------------------------------------ */
/* Results                                                            */

#define FZ_END	0
/* Every tracebuf ioctl may fail these ways (uapi header, "ioctl rules"). */
#define FZ_IOC_COMMON	EINVAL, EFAULT, ENOTTY, E2BIG, ENOMEM

static void fz_bad(struct fz *z, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fz_bad(struct fz *z, const char *fmt, ...)
{
	unsigned long n = __atomic_fetch_add(&sh->bad, 1, __ATOMIC_RELAXED);
	char what[150];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (n < FZ_BAD_MAX)
		snprintf(sh->bad_msg[n], sizeof(sh->bad_msg[n]),
			 "worker %u gen %u%s %s: %s", z->slot, z->gen,
			 z->kid ? " child" : "", z->ctx, what);
}

/*
 * Count ret (0 or more, or -errno) for the current operation and check
 * that an error is one of the allowed ones (a 0-terminated list).
 */
static bool fz_check(struct fz *z, long ret, const int *allowed)
{
	unsigned int e = ret < 0 ? (unsigned int)-ret : 0;

	__atomic_fetch_add(&sh->calls[z->op][e < FZ_ERRNO_MAX ? e : 0], 1,
			   __ATOMIC_RELAXED);
	if (ret >= 0)
		return true;
	for (; *allowed; allowed++) {
		if (*allowed == (int)e)
			return false;
	}
	fz_bad(z, "%s (%u), not documented", strerror((int)e), e);
	return false;
}

#define FZ_ERRS(...)	((const int[]){ __VA_ARGS__, FZ_END })
#define FZ_CHECK(z, ret, ...)	fz_check(z, ret, FZ_ERRS(__VA_ARGS__))

/* ------------------------------------------------------------------ */
/* Picking things                                                     */

/* A random open file of that role (FZ_FREE: any open one), or -1. */
static int fz_file(struct fz *z, enum fz_role role)
{
	unsigned int start = fz_below(z, FZ_FILES);

	for (unsigned int i = 0; i < FZ_FILES; i++) {
		struct fz_file *f = &z->f[(start + i) % FZ_FILES];

		if (f->role != FZ_FREE && (role == FZ_FREE || f->role == role))
			return (int)((start + i) % FZ_FILES);
	}
	return -1;
}

/* Usually a file of the role the operation needs, sometimes any. */
static int fz_file_for(struct fz *z, enum fz_role role)
{
	int i = fz_pct(z, 95) ? fz_file(z, role) : -1;

	return i >= 0 ? i : fz_file(z, FZ_FREE);
}

static void fz_add_id(struct fz *z, __u32 id)
{
	for (unsigned int i = 0; i < z->nids && i < FZ_IDS; i++) {
		if (z->ids[i] == id)
			return;
	}
	z->ids[z->nids++ % FZ_IDS] = id;
}

/*
 * A provider id: mostly one of this process's own providers or one it
 * has seen, sometimes one nobody has.
 */
static __u32 fz_id(struct fz *z)
{
	unsigned int n = z->nids < FZ_IDS ? z->nids : FZ_IDS;
	int i = fz_pct(z, 50) ? fz_file(z, FZ_PROV) : -1;

	if (i >= 0)
		return z->f[i].id;
	if (n && fz_pct(z, 85))
		return z->ids[fz_below(z, n)];
	switch (fz_below(z, 4)) {
	case 0:
		return 0;
	case 1:
		return UINT32_MAX;
	case 2:
		return n ? z->ids[0] + 1000 : 1;
	default:
		return (__u32)fz_rand(z);
	}
}

/* An address no call may use: in the kernel's half. */
static void *fz_kernel_addr(void)
{
	return (void *)(uintptr_t)(sizeof(void *) == 8 ?
				   0xffffffff81000000ULL : 0xfffff000UL);
}

/* The pointer to pass for a buffer of len bytes at good: mostly good. */
static void *fz_ptr(struct fz *z, void *good, size_t len)
{
	size_t page = tb_page_size();

	if (fz_pct(z, 93))
		return good;
	switch (fz_below(z, 4)) {
	case 0:
		return NULL;
	case 1:
		return z->bad;
	case 2:
		return fz_kernel_addr();
	default:
		/* starts readable, runs into the PROT_NONE page */
		len = len > 2 && len / 2 < page ? len / 2 : 1;
		memcpy(z->edge + page - len, good, len);
		return z->edge + page - len;
	}
}

/*
 * ioctl(fd, cmd, arg) with struct *arg of size bytes, mostly as is; else
 * with another size in the command (shorter, longer with a zero or a
 * non-zero tail) or an argument pointer that faults.  Outputs are
 * copied back; z->exact says whether the call saw the struct unchanged.
 */
static int fz_ioctl(struct fz *z, int fd, unsigned long cmd, void *arg,
		    size_t size)
{
	size_t isize = size;
	void *p = z->arg;
	int ret;

	z->exact = true;
	memcpy(z->arg, arg, size);
	memset(z->arg + size, 0, 64);
	if (fz_pct(z, 8)) {
		z->exact = false;
		switch (fz_below(z, 5)) {
		case 0:
			isize = size > 4 ? size - 4 : 0;
			break;
		case 1:
			isize = size + 8;	/* zero tail */
			break;
		case 2:
			isize = size + 8;
			z->arg[size + fz_below(z, 8)] = (unsigned char)(1 + fz_below(z, 255));
			break;
		case 3:
			isize = fz_below(z, FZ_ARG_MAX);
			memset(z->arg + size, 0, isize > size ? isize - size : 0);
			break;
		default:
			isize = size;
			z->arg[fz_below(z, (unsigned int)size)] ^= (unsigned char)(1u << fz_below(z, 8));
			break;
		}
		cmd = _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd), isize);
	}
	if (fz_pct(z, 4)) {
		z->exact = false;
		p = fz_ptr(z, z->arg, isize);
		if (p == z->arg)
			p = NULL;
	}
	ret = ioctl(fd, cmd, p) < 0 ? -errno : 0;
	if (p == z->arg)
		memcpy(arg, z->arg, size);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Pools                                                              */

static int fz_free_file(struct fz *z)
{
	for (int i = 0; i < FZ_FILES; i++) {
		if (z->f[i].role == FZ_FREE)
			return i;
	}
	return -1;
}

static void fz_close_file(struct fz *z, int i)
{
	close(z->f[i].fd);
	z->f[i].role = FZ_FREE;
	z->f[i].fd = -1;
}

static void fz_keep_handle(struct fz *z, int fd)
{
	unsigned int i = fz_below(z, FZ_HANDLES);

	if (z->h[i] >= 0)
		close(z->h[i]);
	z->h[i] = fd;
}

static int fz_handle(struct fz *z)
{
	unsigned int start = fz_below(z, FZ_HANDLES);

	for (unsigned int i = 0; i < FZ_HANDLES; i++) {
		if (z->h[(start + i) % FZ_HANDLES] >= 0)
			return z->h[(start + i) % FZ_HANDLES];
	}
	return -1;
}

static struct fz_map *fz_map(struct fz *z)
{
	unsigned int start = fz_below(z, FZ_MAPS);

	for (unsigned int i = 0; i < FZ_MAPS; i++) {
		if (z->m[(start + i) % FZ_MAPS].addr)
			return &z->m[(start + i) % FZ_MAPS];
	}
	return NULL;
}

static void fz_keep_map(struct fz *z, void *addr, size_t len, int prot)
{
	struct fz_map *m = &z->m[fz_below(z, FZ_MAPS)];

	if (m->addr)
		munmap(m->addr, m->len);
	m->addr = addr;
	m->len = len;
	m->prot = prot;
	m->dofork = false;
}

/* ------------------------------------------------------------------ */
/* Operations                                                         */

static void op_open(struct fz *z)
{
	int i = fz_free_file(z), fd;

	if (i < 0) {
		i = (int)fz_below(z, FZ_FILES);
		fz_close_file(z, i);
	}
	fd = open(TB_DEV_PATH, (fz_pct(z, 10) ? O_RDONLY : O_RDWR) | O_CLOEXEC |
		  (fz_pct(z, 80) ? O_NONBLOCK : 0));
	if (FZ_CHECK(z, fd < 0 ? -errno : fd, ENFILE, EMFILE, ENOMEM)) {
		z->f[i].fd = fd;
		z->f[i].role = FZ_NONE;
		z->f[i].id = 0;
	}
}

/* A file without a role, opened for the purpose if need be; or -1. */
static int fz_roleless(struct fz *z)
{
	int i = fz_file(z, FZ_NONE);

	if (i >= 0 || fz_pct(z, 10))
		return fz_file_for(z, FZ_NONE);
	op_open(z);
	return fz_file_for(z, FZ_NONE);
}

static void op_close(struct fz *z)
{
	int i;

	switch (fz_below(z, 3)) {
	case 0:
		i = fz_file(z, FZ_FREE);
		if (i >= 0)
			fz_close_file(z, i);
		break;
	case 1:
		i = (int)fz_below(z, FZ_HANDLES);
		if (z->h[i] >= 0)
			close(z->h[i]);
		z->h[i] = -1;
		break;
	default:
		i = (int)fz_below(z, FZ_EFDS);
		if (z->efd[i] >= 0)
			close(z->efd[i]);
		z->efd[i] = -1;
		break;
	}
	FZ_CHECK(z, 0, 0);
}

static void op_dup(struct fz *z)
{
	int from = fz_file(z, FZ_FREE), to = fz_free_file(z), fd;

	if (from < 0 || to < 0)
		return;
	fd = fcntl(z->f[from].fd, F_DUPFD_CLOEXEC, 0);
	if (FZ_CHECK(z, fd < 0 ? -errno : fd, EMFILE)) {
		z->f[to] = z->f[from];
		z->f[to].fd = fd;
	}
}

static void op_version(struct fz *z)
{
	struct tracebuf_version_args v;
	int i = fz_file(z, FZ_FREE);
	int ret;

	if (i < 0)
		return;
	memset(&v, 0, sizeof(v));
	ret = fz_ioctl(z, z->f[i].fd, TRACEBUF_IOC_VERSION, &v, sizeof(v));
	if (FZ_CHECK(z, ret, FZ_IOC_COMMON) && z->exact &&
	    v.abi_major != TRACEBUF_ABI_MAJOR)
		fz_bad(z, "VERSION major %u", v.abi_major);
}

static void op_register(struct fz *z)
{
	struct tracebuf_register_args a;
	int i = fz_roleless(z), ret;
	char name[TRACEBUF_NAME_MAX + 8];
	__u32 len;

	if (i < 0)
		return;
	len = 1 + fz_below(z, 24);
	if (fz_pct(z, 5))
		len = fz_below(z, sizeof(name) + 1);
	for (__u32 k = 0; k < len && k < sizeof(name); k++)
		name[k] = (char)('a' + fz_below(z, 26));
	if (len && fz_pct(z, 3))
		name[fz_below(z, len)] = '\0';
	memset(&a, 0, sizeof(a));
	a.name_ptr = tb_ptr(fz_ptr(z, name, len));
	a.name_len = len;
	a.flags = fz_pct(z, 50) ? TRACEBUF_REGISTER_F_SYNC : 0;
	if (fz_pct(z, 3))
		a.flags = (__u32)fz_rand(z);
	ret = fz_ioctl(z, z->f[i].fd, TRACEBUF_IOC_REGISTER, &a, sizeof(a));
	if (FZ_CHECK(z, ret, FZ_IOC_COMMON, ENAMETOOLONG, ENOSPC, EDQUOT) &&
	    z->exact) {
		if (!a.id)
			fz_bad(z, "REGISTER gave id 0");
		z->f[i].role = FZ_PROV;
		z->f[i].id = a.id;
		fz_add_id(z, a.id);
	}
}

static void op_attach(struct fz *z)
{
	struct tracebuf_attach_args a;
	int i = fz_roleless(z), ret;

	if (i < 0)
		return;
	memset(&a, 0, sizeof(a));
	a.flags = fz_pct(z, 30) ? TRACEBUF_ATTACH_F_WATCH : 0;
	if (fz_pct(z, 3))
		a.flags = (__u32)fz_rand(z);
	ret = fz_ioctl(z, z->f[i].fd, TRACEBUF_IOC_ATTACH, &a, sizeof(a));
	if (FZ_CHECK(z, ret, FZ_IOC_COMMON, EPERM) && z->exact) {
		if (!a.id)
			fz_bad(z, "ATTACH gave id 0");
		z->f[i].role = FZ_MGR;
		z->f[i].id = a.id;
	}
}

static void op_eventfd(struct fz *z)
{
	struct tracebuf_eventfd_args a = { .fd = -1 };
	unsigned int e = fz_below(z, FZ_EFDS);
	int i = fz_file(z, FZ_FREE), ret;

	if (i < 0)
		return;
	if (z->efd[e] < 0 && fz_pct(z, 70)) {
		z->efd[e] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (!FZ_CHECK(z, z->efd[e] < 0 ? -errno : 0, EMFILE, ENOMEM))
			return;
	}
	switch (fz_below(z, 6)) {
	case 0:
		a.fd = -1;
		break;
	case 1:
		a.fd = z->f[i].fd;		/* not an eventfd */
		break;
	case 2:
		a.fd = 1000 + (int)fz_below(z, 1000);	/* not open */
		break;
	default:
		a.fd = z->efd[e];
		break;
	}
	if (fz_pct(z, 3))
		a.flags = 1u << fz_below(z, 32);
	ret = fz_ioctl(z, z->f[i].fd, TRACEBUF_IOC_SET_EVENTFD, &a, sizeof(a));
	FZ_CHECK(z, ret, FZ_IOC_COMMON, EBADF);
}

static void op_eventfd_read(struct fz *z)
{
	int fd = z->efd[fz_below(z, FZ_EFDS)];
	__u64 v;

	if (fd < 0)
		return;
	FZ_CHECK(z, read(fd, &v, sizeof(v)) < 0 ? -errno : 0, EAGAIN);
}

static void op_get_config(struct fz *z)
{
	struct tracebuf_config_args c;
	int i = fz_file_for(z, FZ_PROV), ret;
	__u32 room = fz_pct(z, 70) ? 4096 : fz_below(z, 64);

	if (i < 0)
		return;
	memset(&c, 0, sizeof(c));
	c.categories_ptr = tb_ptr(fz_ptr(z, z->data, room));
	c.categories_size = room;
	ret = fz_ioctl(z, z->f[i].fd, TRACEBUF_IOC_PROVIDER_GET_CONFIG, &c,
		       sizeof(c));
	if (FZ_CHECK(z, ret, FZ_IOC_COMMON, ENOSPC) && z->exact) {
		if (c.categories_size > room ||
		    c.state < TRACEBUF_STATE_REGISTERED ||
		    c.state > TRACEBUF_STATE_TERMINATING ||
		    c.mode > TRACEBUF_MODE_STREAMING)
			fz_bad(z, "GET_CONFIG size %u of %u state %u mode %u",
			       c.categories_size, room, c.state, c.mode);
	}
}

static struct tracebuf_pkt fz_provider_pkt(struct fz *z)
{
	struct tracebuf_pkt p;

	memset(&p, 0, sizeof(p));
	switch (fz_below(z, 10)) {
	case 0:
	case 1:
	case 2:
		p.request = TRACEBUF_PKT_STARTED;
		p.data32 = fz_pct(z, 90) ? TRACEBUF_FIFO_PROTOCOL_VERSION :
					   (__u32)fz_rand(z);
		break;
	case 3:
	case 4:
		p.request = TRACEBUF_PKT_STOPPED;
		break;
	case 5:
	case 6:
		p.request = TRACEBUF_PKT_SAVE_BUFFER;
		p.data32 = fz_below(z, 4);
		p.data64 = fz_below(z, 2) ? 0 : fz_rand(z);
		break;
	case 7:
		p.request = TRACEBUF_PKT_ALERT;
		memset((char *)&p + 2, 0, sizeof(p) - 2);
		for (unsigned int k = 0, n = fz_below(z, 16); k < n && k < 14; k++)
			((char *)&p)[2 + k] = (char)(fz_pct(z, 90) ? 'a' + fz_below(z, 26) :
						   fz_below(z, 256));
		break;
	default:
		/* anything at all, a manager's request included */
		p.request = (__u16)(fz_pct(z, 50) ? 0x0100 + fz_below(z, 8) :
					fz_rand(z));
		p.data16 = (__u16)fz_rand(z);
		p.data32 = (__u32)fz_rand(z);
		p.data64 = fz_rand(z);
		break;
	}
	return p;
}

#define FZ_SEND_ERRS	FZ_IOC_COMMON, EPROTO, EBUSY, EPROTONOSUPPORT, EAGAIN

static void op_provider_send(struct fz *z)
{
	int i = fz_file_for(z, FZ_PROV), ret;
	struct tracebuf_pkt p = fz_provider_pkt(z);

	if (i < 0)
		return;
	ret = fz_ioctl(z, z->f[i].fd, TRACEBUF_IOC_PROVIDER_SEND, &p, sizeof(p));
	FZ_CHECK(z, ret, FZ_SEND_ERRS);
}

static void fz_alarm(long usec)
{
	struct itimerval it = { .it_value = { 0, usec } };

	setitimer(ITIMER_REAL, &it, NULL);
}

/* One record from a file; never blocks for long (a timer interrupts). */
static ssize_t fz_read(int fd, void *rec, size_t len)
{
	ssize_t n;

	fz_alarm(20000);
	n = read(fd, rec, len);
	n = n < 0 ? -errno : n;
	fz_alarm(0);
	return n;
}

static void fz_release(struct fz *z, int fd)
{
	struct tracebuf_release_args a = { .flags = 0 };
	int ret;

	if (fz_pct(z, 3))
		a.flags = 1ULL << fz_below(z, 64);
	ret = fz_ioctl(z, fd, TRACEBUF_IOC_PROVIDER_RELEASE, &a, sizeof(a));
	FZ_CHECK(z, ret, FZ_IOC_COMMON, EPROTO);
}

static void op_mmap_provider_fd(struct fz *z, int fd);

/* Read a packet on a provider and answer it as a provider would. */
static void op_provider_respond(struct fz *z)
{
	int i = fz_file(z, FZ_PROV), ret;
	struct tracebuf_pkt p, r;
	ssize_t n;

	if (i < 0)
		return;
	n = fz_read(z->f[i].fd, &p, sizeof(p));
	if (!FZ_CHECK(z, n, EINVAL, EAGAIN, EINTR))
		return;
	if (n != sizeof(p)) {
		fz_bad(z, "provider read returned %zd", n);
		return;
	}
	memset(&r, 0, sizeof(r));
	switch (p.request) {
	case TRACEBUF_PKT_INITIALIZE:
		if (fz_pct(z, 70))
			op_mmap_provider_fd(z, z->f[i].fd);
		return;
	case TRACEBUF_PKT_START:
		r.request = TRACEBUF_PKT_STARTED;
		r.data32 = TRACEBUF_FIFO_PROTOCOL_VERSION;
		break;
	case TRACEBUF_PKT_STOP:
	case TRACEBUF_PKT_MANAGER_GONE:
		r.request = TRACEBUF_PKT_STOPPED;
		break;
	case TRACEBUF_PKT_TERMINATE:
		if (fz_pct(z, 80))
			fz_release(z, z->f[i].fd);
		return;
	case TRACEBUF_PKT_BUFFER_SAVED:
		return;
	default:
		fz_bad(z, "provider got request 0x%x", p.request);
		return;
	}
	if (fz_pct(z, 85)) {
		ret = tb_ioctl(z->f[i].fd, TRACEBUF_IOC_PROVIDER_SEND, &r);
		FZ_CHECK(z, ret, FZ_SEND_ERRS);
	}
}

static void op_release(struct fz *z)
{
	int i = fz_file_for(z, FZ_PROV);

	if (i >= 0)
		fz_release(z, z->f[i].fd);
}

/* A category list (pairs: name and description) to publish. */
static void op_set_categories(struct fz *z)
{
	struct tracebuf_known_args a;
	int i = fz_file_for(z, FZ_PROV), ret;
	const struct tb_cats *c = fz_pct(z, 5) ? &z->big : &z->pairs;

	if (i < 0)
		return;
	memset(&a, 0, sizeof(a));
	switch (fz_below(z, 8)) {
	case 0:
		break;				/* clear */
	case 1:
		a.categories_ptr = tb_ptr(c->buf);
		a.categories_size = c->size;
		a.categories_count = c->count + 1 + fz_below(z, 3);
		break;
	case 2:
		a.categories_ptr = tb_ptr(c->buf);
		a.categories_size = fz_below(z, c->size);
		a.categories_count = c->count;
		break;
	default:
		a.categories_ptr = tb_ptr(fz_ptr(z, c->buf, c->size));
		a.categories_size = c->size;
		a.categories_count = c->count;
		break;
	}
	if (fz_pct(z, 3))
		a.reserved = 1;
	ret = fz_ioctl(z, z->f[i].fd, TRACEBUF_IOC_PROVIDER_SET_CATEGORIES, &a,
		       sizeof(a));
	FZ_CHECK(z, ret, FZ_IOC_COMMON, ENAMETOOLONG, EMSGSIZE, EDQUOT);
}

static void op_list(struct fz *z)
{
	struct tracebuf_provider_info *info = (void *)z->data;
	struct tracebuf_list_args a;
	int i = fz_file_for(z, FZ_MGR), ret;
	__u32 isz = sizeof(*info), cap;

	if (i < 0)
		return;
	if (fz_pct(z, 10))
		isz = fz_pct(z, 50) ? isz + 8 * fz_below(z, 4) : fz_below(z, isz);
	cap = fz_below(z, 33);
	if ((size_t)cap * isz > sizeof(z->data))
		cap = (__u32)(sizeof(z->data) / isz);
	memset(&a, 0, sizeof(a));
	a.info_ptr = tb_ptr(fz_ptr(z, info, (size_t)cap * isz));
	a.info_size = isz;
	a.capacity = cap;
	a.start_id = fz_pct(z, 70) ? 0 : fz_id(z);
	if (fz_pct(z, 3))
		a.flags = 1u << fz_below(z, 32);
	ret = fz_ioctl(z, z->f[i].fd, TRACEBUF_IOC_MGR_LIST, &a, sizeof(a));
	if (!FZ_CHECK(z, ret, FZ_IOC_COMMON) || !z->exact ||
	    a.info_ptr != tb_ptr(info))
		return;
	if (a.count > cap || a.count > a.total) {
		fz_bad(z, "LIST count %u capacity %u total %u", a.count, cap,
		       a.total);
		return;
	}
	for (__u32 k = 0; k < a.count && isz >= sizeof(*info); k++) {
		const struct tracebuf_provider_info *p =
			(const void *)((const char *)info + (size_t)k * isz);

		if (p->id < a.start_id || !p->id ||
		    p->state < TRACEBUF_STATE_REGISTERED ||
		    p->state > TRACEBUF_STATE_TERMINATING ||
		    !memchr(p->name, 0, sizeof(p->name))) {
			fz_bad(z, "LIST entry %u: id %u state %u", k, p->id,
			       p->state);
			return;
		}
		fz_add_id(z, p->id);
		__atomic_fetch_add(&sh->states[p->state], 1, __ATOMIC_RELAXED);
	}
}

/* Categories for INITIALIZE or START: none, some, or malformed. */
static void fz_cats(struct fz *z, __u64 *ptr, __u32 *size, __u32 *count)
{
	const struct tb_cats *c = &z->cats;

	*ptr = 0;
	*size = 0;
	*count = 0;
	if (fz_pct(z, 50))
		return;
	*ptr = tb_ptr(fz_ptr(z, c->buf, c->size));
	*size = c->size;
	*count = c->count;
	if (fz_pct(z, 5))
		*count += 1;
	else if (fz_pct(z, 5))
		*size = fz_below(z, c->size);
}

#define FZ_MGR_ERRS	FZ_IOC_COMMON, ESRCH, EPERM, EAGAIN

static void op_initialize(struct fz *z)
{
	/* in smallest buffers: 4, 8, 16 and 64 KiB with 4 KiB pages */
	static const unsigned int sizes[] = { 1, 2, 4, 16 };
	struct tracebuf_initialize_args a;
	int i = fz_file_for(z, FZ_MGR), ret;

	if (i < 0)
		return;
	memset(&a, 0, sizeof(a));
	a.provider_id = fz_id(z);
	a.buffer_size = sizes[fz_below(z, ARRAY_SIZE(sizes))] * tb_buffer_min();
	if (fz_pct(z, 4)) {
		switch (fz_below(z, 4)) {
		case 0:
			a.buffer_size = 0;
			break;
		case 1:
			a.buffer_size = 4096 + 1 + fz_below(z, 4095);
			break;
		case 2:
			a.buffer_size = 1ULL << (20 + fz_below(z, 40));
			break;
		default:
			a.buffer_size = fz_rand(z);
			break;
		}
	}
	a.mode = 1 + fz_below(z, 3);
	if (fz_pct(z, 3))
		a.mode = fz_pct(z, 50) ? 0 : (__u32)fz_rand(z);
	fz_cats(z, &a.categories_ptr, &a.categories_size, &a.categories_count);
	/* sealed saves (EINVAL but in streaming mode), or unknown flags */
	if (fz_pct(z, a.mode == TRACEBUF_MODE_STREAMING ? 50 : 5))
		a.flags = TRACEBUF_INIT_F_SEAL_SAVES;
	else if (fz_pct(z, 3))
		a.flags = 1u << (1 + fz_below(z, 31));
	ret = fz_ioctl(z, z->f[i].fd, TRACEBUF_IOC_MGR_INITIALIZE, &a, sizeof(a));
	if (!FZ_CHECK(z, ret, FZ_MGR_ERRS, EBUSY, EFBIG, EDQUOT, ENAMETOOLONG,
		      EMFILE) || !z->exact)
		return;
	if (a.buffer_fd < 0 || !(fcntl(a.buffer_fd, F_GETFD) & FD_CLOEXEC)) {
		fz_bad(z, "INITIALIZE buffer_fd %d", a.buffer_fd);
		return;
	}
	fz_keep_handle(z, a.buffer_fd);
}

static void op_start(struct fz *z)
{
	struct tracebuf_start_args a;
	int i = fz_file_for(z, FZ_MGR), ret;

	if (i < 0)
		return;
	memset(&a, 0, sizeof(a));
	a.provider_id = fz_id(z);
	a.disposition = 1 + fz_below(z, 3);
	if (fz_pct(z, 3))
		a.disposition = fz_pct(z, 50) ? 0 : (__u32)fz_rand(z);
	fz_cats(z, &a.categories_ptr, &a.categories_size, &a.categories_count);
	if (fz_pct(z, 3))
		a.reserved = 1;
	ret = fz_ioctl(z, z->f[i].fd, TRACEBUF_IOC_MGR_START, &a, sizeof(a));
	FZ_CHECK(z, ret, FZ_MGR_ERRS, EALREADY, EBUSY, ENAMETOOLONG);
}

static void fz_target(struct fz *z, unsigned long cmd)
{
	struct tracebuf_target_args a;
	int i = fz_file_for(z, FZ_MGR), ret;

	if (i < 0)
		return;
	memset(&a, 0, sizeof(a));
	a.provider_id = fz_id(z);
	if (fz_pct(z, 3))
		a.flags = 1u << fz_below(z, 32);
	ret = fz_ioctl(z, z->f[i].fd, cmd, &a, sizeof(a));
	FZ_CHECK(z, ret, FZ_MGR_ERRS, EALREADY);
}

static void op_stop(struct fz *z)
{
	fz_target(z, TRACEBUF_IOC_MGR_STOP);
}

static void op_terminate(struct fz *z)
{
	fz_target(z, TRACEBUF_IOC_MGR_TERMINATE);
}

static void fz_mgr_send(struct fz *z, int fd, __u32 id,
			const struct tracebuf_pkt *pkt)
{
	struct tracebuf_mgr_send_args a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.provider_id = id;
	a.pkt = *pkt;
	if (fz_pct(z, 3))
		a.flags = 1u << fz_below(z, 32);
	ret = fz_ioctl(z, fd, TRACEBUF_IOC_MGR_SEND, &a, sizeof(a));
	FZ_CHECK(z, ret, FZ_MGR_ERRS);
}

static void op_mgr_send(struct fz *z)
{
	int i = fz_file_for(z, FZ_MGR);
	struct tracebuf_pkt p;

	if (i < 0)
		return;
	memset(&p, 0, sizeof(p));
	p.request = TRACEBUF_PKT_BUFFER_SAVED;
	p.data32 = fz_below(z, 4);
	if (fz_pct(z, 20)) {
		p.request = (__u16)(fz_pct(z, 50) ? fz_below(z, 8) : fz_rand(z));
		p.data64 = fz_rand(z);
	}
	fz_mgr_send(z, z->f[i].fd, fz_id(z), &p);
}

/* Read a message on a manager and answer it as a manager would. */
static void op_mgr_respond(struct fz *z)
{
	int i = fz_file(z, FZ_MGR);
	struct tracebuf_mgr_msg m;
	struct tracebuf_pkt r;
	ssize_t n;

	if (i < 0)
		return;
	n = fz_read(z->f[i].fd, &m, sizeof(m));
	if (!FZ_CHECK(z, n, EINVAL, EAGAIN, EINTR))
		return;
	if (n != sizeof(m) || m.type < TRACEBUF_MSG_PACKET ||
	    m.type > TRACEBUF_MSG_REGISTRY ||
	    (m.type != TRACEBUF_MSG_REGISTRY &&
	     (m.state < TRACEBUF_STATE_REGISTERED ||
	      m.state > TRACEBUF_STATE_TERMINATING))) {
		fz_bad(z, "manager read %zd bytes, type %u state %u", n, m.type,
		       m.state);
		return;
	}
	if (m.type == TRACEBUF_MSG_REGISTRY)
		return;
	fz_add_id(z, m.provider_id);
	__atomic_fetch_add(&sh->states[m.state], 1, __ATOMIC_RELAXED);
	if (m.type == TRACEBUF_MSG_PACKET &&
	    m.pkt.request == TRACEBUF_PKT_SAVE_BUFFER && fz_pct(z, 90)) {
		r = m.pkt;
		r.request = TRACEBUF_PKT_BUFFER_SAVED;
		r.data16 = 0;	/* TRACEBUF_SAVE_SEALED is the kernel's to say */
		fz_mgr_send(z, z->f[i].fd, m.provider_id, &r);
	}
}

static void op_get_categories(struct fz *z)
{
	struct tracebuf_get_known_args a;
	int i = fz_file_for(z, FZ_MGR), ret;
	__u32 room = fz_pct(z, 70) ? sizeof(z->data) : fz_below(z, 64);

	if (i < 0)
		return;
	memset(&a, 0, sizeof(a));
	a.provider_id = fz_id(z);
	a.categories_ptr = tb_ptr(fz_ptr(z, z->data, room));
	a.categories_size = room;
	ret = fz_ioctl(z, z->f[i].fd, TRACEBUF_IOC_MGR_GET_CATEGORIES, &a,
		       sizeof(a));
	if (FZ_CHECK(z, ret, FZ_IOC_COMMON, ESRCH, ENOSPC) && z->exact &&
	    a.categories_size > room)
		fz_bad(z, "GET_CATEGORIES %u bytes in %u", a.categories_size,
		       room);
}

static void op_set_tracing(struct fz *z)
{
	struct tracebuf_tracing_args a;
	int i = fz_file_for(z, FZ_MGR), ret;
	size_t size = TRACEBUF_TRACING_SIZE_VER1;

	if (i < 0)
		return;
	memset(&a, 0, sizeof(a));
	a.tracing = fz_pct(z, 60);
	if (fz_pct(z, 3))
		a.tracing = (__u32)fz_rand(z);
	if (fz_pct(z, 30)) {
		size = TRACEBUF_TRACING_SIZE_VER0;
	} else if (a.tracing && fz_pct(z, 60)) {
		a.names_ptr = tb_ptr(fz_ptr(z, z->names.buf, z->names.size));
		a.names_size = z->names.size;
		a.names_count = z->names.count - (fz_pct(z, 5) ? 1 : 0);
	}
	ret = fz_ioctl(z, z->f[i].fd, TRACEBUF_IOC_MGR_SET_TRACING, &a, size);
	FZ_CHECK(z, ret, FZ_IOC_COMMON, ENAMETOOLONG);
}

static void op_read(struct fz *z)
{
	static const size_t lens[] = { 0, 1, 15, 16, 17, 24, 32, 33, 4096 };
	int i = fz_file(z, FZ_FREE);
	size_t len = lens[fz_below(z, ARRAY_SIZE(lens))], rec;
	ssize_t n;

	if (i < 0)
		return;
	rec = z->f[i].role == FZ_MGR ? sizeof(struct tracebuf_mgr_msg) :
				       sizeof(struct tracebuf_pkt);
	n = fz_read(z->f[i].fd, fz_ptr(z, z->data, len), len);
	/* a child may have given a shared file without a role a role */
	if (n > 0 && z->f[i].role == FZ_NONE &&
	    !(n % sizeof(struct tracebuf_mgr_msg)))
		rec = sizeof(struct tracebuf_mgr_msg);
	if (FZ_CHECK(z, n, EINVAL, EAGAIN, EINTR, EFAULT) &&
	    (n == 0 || n % rec || (size_t)n > len))
		fz_bad(z, "read of %zu returned %zd (records of %zu)", len, n,
		       rec);
}

static void op_poll(struct fz *z)
{
	struct pollfd pfd[4];
	int n = 0, ret;

	for (int k = 0; k < 4; k++) {
		int i = fz_file(z, FZ_FREE);

		if (i < 0)
			break;
		pfd[n].fd = z->f[i].fd;
		pfd[n].events = POLLIN | (fz_pct(z, 20) ? POLLOUT | POLLPRI : 0);
		n++;
	}
	if (!n)
		return;
	ret = poll(pfd, (nfds_t)n, fz_pct(z, 90) ? 0 : 1);
	if (!FZ_CHECK(z, ret < 0 ? -errno : ret, EINTR))
		return;
	for (int k = 0; k < n; k++) {
		if (pfd[k].revents & POLLNVAL)
			fz_bad(z, "poll: POLLNVAL on an open file");
	}
}

static void op_write_seek(struct fz *z)
{
	int i = fz_file(z, FZ_FREE), fd = fz_handle(z);
	long ret;

	if (i >= 0) {
		ret = write(z->f[i].fd, z->data, 16);
		/* no write(); EBADF if opened O_RDONLY */
		FZ_CHECK(z, ret < 0 ? -errno : 0, EINVAL, EBADF);
		ret = (long)lseek(z->f[i].fd, (off_t)fz_below(z, 64), SEEK_SET);
		FZ_CHECK(z, ret < 0 ? -errno : 0, ESPIPE, EINVAL);
	}
	if (fd >= 0) {
		ret = write(fd, z->data, 16);
		FZ_CHECK(z, ret < 0 ? -errno : 0, EBADF, EINVAL);
		ret = (long)lseek(fd, (off_t)fz_rand(z) % (1 << 20) - 4096,
				  (int)fz_below(z, 5));
		FZ_CHECK(z, ret < 0 ? -errno : 0, EINVAL, ENXIO);
	}
}

static void op_pread(struct fz *z)
{
	int fd = fz_handle(z);
	size_t len = fz_below(z, sizeof(z->data));
	off_t off = fz_pct(z, 90) ? (off_t)fz_below(z, 65536) :
				    (off_t)(fz_rand(z) >> 2);
	ssize_t n;

	if (fd < 0)
		return;
	n = pread(fd, fz_ptr(z, z->data, len), len, off);
	FZ_CHECK(z, n < 0 ? -errno : 0, EFAULT, EINVAL);
	if (n > (ssize_t)len)
		fz_bad(z, "pread of %zu returned %zd", len, n);
}

/* mmap: EPERM for PROT_EXEC or a writable read-only handle. */
#define FZ_MMAP_ERRS	EINVAL, ENODEV, EPERM, EACCES, ENOMEM, EOVERFLOW, EAGAIN

static void fz_mmap(struct fz *z, int fd, bool provider)
{
	static const int prots[] = {
		PROT_READ | PROT_WRITE, PROT_READ, PROT_READ | PROT_WRITE,
		PROT_READ | PROT_EXEC, PROT_WRITE, PROT_NONE,
	};
	int prot = prots[fz_below(z, provider ? ARRAY_SIZE(prots) : 2)];
	size_t page = tb_page_size();
	size_t len = page * (1 + fz_below(z, fz_pct(z, 80) ? 4 : 32));
	off_t off = (off_t)(page * fz_below(z, fz_pct(z, 80) ? 2 : 32));
	int flags = fz_pct(z, 95) ? MAP_SHARED : MAP_PRIVATE;
	void *p;

	if (!provider && fz_pct(z, 5))
		prot = PROT_READ | PROT_WRITE;
	if (fz_pct(z, 2))
		off = (off_t)(fz_rand(z) & ~(__u64)(page - 1) & INT64_MAX);
	p = mmap(NULL, len, prot, flags, fd, off);
	if (!FZ_CHECK(z, p == MAP_FAILED ? -errno : 0, FZ_MMAP_ERRS))
		return;
	if (flags == MAP_PRIVATE || (prot & PROT_EXEC) ||
	    (!provider && (prot & PROT_WRITE)))
		fz_bad(z, "mmap prot %d flags %d accepted", prot, flags);
	fz_keep_map(z, p, len, prot);
}

static void op_mmap_provider_fd(struct fz *z, int fd)
{
	fz_mmap(z, fd, true);
}

static void op_mmap_provider(struct fz *z)
{
	int i = fz_file_for(z, FZ_PROV);

	if (i >= 0)
		fz_mmap(z, z->f[i].fd, true);
}

static void op_mmap_handle(struct fz *z)
{
	int fd = fz_handle(z);

	if (fd >= 0)
		fz_mmap(z, fd, false);
}

static void op_munmap(struct fz *z)
{
	struct fz_map *m = fz_map(z);
	size_t page = tb_page_size(), tail;

	if (!m)
		return;
	if (m->len > page && fz_pct(z, 40)) {
		tail = page * (1 + fz_below(z, (unsigned int)(m->len / page) - 1));
		FZ_CHECK(z, munmap(m->addr + m->len - tail, tail) ? -errno : 0, 0);
		m->len -= tail;
		return;
	}
	FZ_CHECK(z, munmap(m->addr, m->len) ? -errno : 0, 0);
	m->addr = NULL;
}

static void op_mremap(struct fz *z)
{
	struct fz_map *m = fz_map(z);
	size_t page = tb_page_size(), len;
	void *p;

	if (!m)
		return;
	switch (fz_below(z, 3)) {
	case 0:		/* grow: VM_DONTEXPAND refuses */
		len = m->len + page;
		break;
	case 1:		/* shrink */
		len = m->len > page ? m->len - page : m->len;
		break;
	default:	/* move */
		len = m->len;
		break;
	}
	p = mremap(m->addr, m->len, len, MREMAP_MAYMOVE);
	if (!FZ_CHECK(z, p == MAP_FAILED ? -errno : 0, EFAULT, EINVAL, ENOMEM,
		      EAGAIN))
		return;
	if (len > m->len)
		fz_bad(z, "mremap grew a mapping");
	m->addr = p;
	m->len = len;
}

static void op_mprotect(struct fz *z)
{
	static const int prots[] = {
		PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE,
		PROT_READ | PROT_EXEC, PROT_READ | PROT_WRITE | PROT_EXEC,
	};
	struct fz_map *m = fz_map(z);
	int prot = prots[fz_below(z, ARRAY_SIZE(prots))];

	if (!m)
		return;
	if (!FZ_CHECK(z, mprotect(m->addr, m->len, prot) ? -errno : 0, EACCES,
		      EINVAL, ENOMEM))
		return;
	if (prot & PROT_EXEC)
		fz_bad(z, "mprotect added PROT_EXEC");
	m->prot = prot;
}

static void op_madvise(struct fz *z)
{
	/* every advice but MADV_HWPOISON and MADV_SOFT_OFFLINE */
	static const int advice[] = {
		0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
		20, 21, 22, 23, 24, 25, 4, 4, 24, 11,
	};
	struct fz_map *m = fz_map(z);
	int adv = advice[fz_below(z, ARRAY_SIZE(advice))];
	size_t page = tb_page_size(), off = 0, len;
	long ret;

	if (!m)
		return;
	len = m->len;
	if (adv != MADV_DOFORK && adv != MADV_DONTFORK && fz_pct(z, 50)) {
		off = page * fz_below(z, (unsigned int)(m->len / page));
		len = page * (1 + fz_below(z, (unsigned int)((m->len - off) / page)));
	}
	ret = madvise(m->addr + off, len, adv) ? -errno : 0;
	/* MADV_REMOVE punches a hole: not in a device (vfs_fallocate) */
	if (adv == MADV_REMOVE && ret == -ENODEV)
		ret = -EOPNOTSUPP;
	if (!FZ_CHECK(z, ret, EINVAL, EPERM, EAGAIN, ENOMEM, EIO, EACCES,
		      EBUSY, EFAULT, EOPNOTSUPP))
		return;
	if (adv == MADV_DOFORK)
		m->dofork = true;
	else if (adv == MADV_DONTFORK)
		m->dofork = false;
}

/*
 * Whether @p is in a VM_IO mapping, as /proc/self/smaps says: a provider's
 * mapping of a sealable buffer, whose pages in a rolling buffer being
 * saved, or stopped, are sealed (SIGBUS to a touch, EIO to a debugger's
 * write).
 */
static bool fz_vm_io(const volatile void *p)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	bool in = false, io = false;
	char line[512];

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		} else if (in && !strncmp(line, "VmFlags:", 8)) {
			io = strstr(line, " io") != NULL;
			break;
		}
	}
	fclose(f);
	return io;
}

/*
 * Touch a mapping as its protection allows: it must never SIGBUS, but
 * where a save or a stop sealed a provider's sealable buffer (counted as
 * EFAULT).
 */
static void op_touch(struct fz *z)
{
	struct fz_map *m = fz_map(z);
	volatile char *p;
	int ret = 0;

	if (!m || !(m->prot & PROT_READ))
		return;
	for (int k = 0; k < 4; k++) {
		p = m->addr + fz_below(z, (unsigned int)m->len);
		if (!tb_touch(p, m->prot & PROT_WRITE))
			continue;
		if (!fz_vm_io(p))
			fz_bad(z, "SIGBUS touching a mapping that is not sealable");
		ret = -EFAULT;
	}
	FZ_CHECK(z, ret, EFAULT);
}

/*
 * A debugger's read or write of a mapping (/proc/self/mem): all of it, or
 * up to a page that refuses; EIO for a write nothing would take (a
 * read-only mapping, a sealed page), or a read where a mapping has no
 * PROT_READ and the kernel does not force it.  A 32-bit ARM kernel gives
 * a debugger EIO from any sealable buffer's mapping (tb_kernel_is_arm32()).
 */
static void op_proc_mem(struct fz *z)
{
	struct fz_map *m = fz_map(z);
	bool write = fz_pct(z, 50);
	char buf[256];
	size_t off, len;
	ssize_t n;
	int fd;

	if (!m)
		return;
	fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	/* EACCES: not dumpable, after a change of user */
	if (!FZ_CHECK(z, fd < 0 ? -errno : 0, EACCES, EMFILE, ENFILE, ENOMEM) || fd < 0)
		return;
	off = fz_below(z, (unsigned int)m->len);
	len = 1 + fz_below(z, sizeof(buf));
	if (len > m->len - off)
		len = m->len - off;
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)fz_rand(z);
	if (write)
		n = pwrite(fd, buf, len, (off_t)(uintptr_t)(m->addr + off));
	else
		n = pread(fd, buf, len, (off_t)(uintptr_t)(m->addr + off));
	if (n < 0 && (write || !(m->prot & PROT_READ) || tb_kernel_is_arm32()))
		FZ_CHECK(z, -errno, EIO, ENOMEM);
	else
		FZ_CHECK(z, n < 0 ? -errno : 0, ENOMEM);
	if (n == 0 || n > (ssize_t)len)
		fz_bad(z, "/proc/self/mem %s of %zu bytes: %zd", write ? "write" : "read", len, n);
	close(fd);
}

/* A file slot, freed if need be (the pools keep what a scenario opens). */
static int fz_slot(struct fz *z)
{
	int i = fz_free_file(z);

	if (i < 0) {
		i = (int)fz_below(z, FZ_FILES);
		fz_close_file(z, i);
	}
	return i;
}

/* The manager's messages, until the next packet of @request: 0 or -errno. */
static int fz_mgr_wait(int fd, __u16 request, struct tracebuf_mgr_msg *m)
{
	for (int k = 0; k < 8; k++) {
		int ret = tb_read_msg(fd, m, 1000);

		if (ret)
			return ret;
		if (m->type == TRACEBUF_MSG_PACKET && m->pkt.request == request)
			return 0;
	}
	return -ENOMSG;
}

/*
 * A streaming save of a sealable buffer, driven the whole way, where the
 * random operations seldom get: this process's provider and manager bring
 * the buffer up, the provider fills its first rolling buffer and asks to
 * save it, and the manager reads the request, SEALED, and now and then
 * acknowledges it.  The files and the mapping stay in the pools, so the
 * other operations touch, read and write (/proc/self/mem), unmap, close
 * and kill in the middle of the save.
 */
static void op_stream(struct fz *z)
{
	size_t page = tb_page_size(), size = page * (16u << fz_below(z, 3));
	int pi = fz_slot(z), mi, prov, mgr, buf_fd = -1, ret;
	struct tracebuf_mgr_msg m;
	struct tracebuf_pkt pkt;
	__u64 durable, rolling;
	size_t first, end;
	__u32 id, mid;
	char *map;

	z->ctx = "stream: register";
	prov = tb_open_provider("fzstream", &id);
	if (!FZ_CHECK(z, prov < 0 ? prov : 0, EDQUOT, ENOSPC, EMFILE, ENFILE, ENOMEM))
		return;
	z->f[pi] = (struct fz_file){ .fd = prov, .role = FZ_PROV, .id = id };
	fz_add_id(z, id);
	mi = fz_slot(z);
	if (mi == pi)
		return;
	z->ctx = "stream: attach";
	mgr = tb_open_manager(0, &mid);
	if (!FZ_CHECK(z, mgr < 0 ? mgr : 0, EPERM, EMFILE, ENFILE, ENOMEM))
		return;
	z->f[mi] = (struct fz_file){ .fd = mgr, .role = FZ_MGR, .id = mid };

	z->ctx = "stream: initialize";
	ret = mgr_initialize_flags(mgr, id, TRACEBUF_MODE_STREAMING, size,
				   TRACEBUF_INIT_F_SEAL_SAVES, NULL, &buf_fd);
	/* EBUSY: another worker's manager, which listed it, came first */
	if (!FZ_CHECK(z, ret, EBUSY, EDQUOT, EFBIG, EMFILE, ENFILE, ENOMEM, ENOSPC))
		return;
	fz_keep_handle(z, buf_fd);
	ret = tb_read_pkt(prov, &pkt, 1000);
	if (!ret && pkt.request != TRACEBUF_PKT_INITIALIZE)
		ret = -ENOMSG;
	if (!FZ_CHECK(z, ret, 0))
		return;
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, prov, 0);
	if (!FZ_CHECK(z, map == MAP_FAILED ? -errno : 0, ENOMEM))
		return;
	fz_keep_map(z, map, size, PROT_READ | PROT_WRITE);

	z->ctx = "stream: start";
	ret = mgr_start(mgr, id, TRACEBUF_START_CLEAR_ENTIRE, NULL);
	if (!ret)
		ret = tb_read_pkt(prov, &pkt, 1000);
	if (!ret)
		ret = provider_started(prov);
	if (!ret)
		ret = fz_mgr_wait(mgr, TRACEBUF_PKT_STARTED, &m);
	if (!FZ_CHECK(z, ret, ENOMEM))
		return;

	z->ctx = "stream: save";
	tb_buffer_sizes(TRACEBUF_MODE_STREAMING, size, &durable, &rolling);
	first = (TRACEBUF_HEADER_SIZE + durable + page - 1) / page * page;
	end = (TRACEBUF_HEADER_SIZE + durable + rolling) / page * page;
	memset(map + TRACEBUF_HEADER_SIZE + durable, 0x5a, rolling);
	ret = provider_send(prov, TRACEBUF_PKT_SAVE_BUFFER, 0, 0, 0);
	if (!ret)
		ret = fz_mgr_wait(mgr, TRACEBUF_PKT_SAVE_BUFFER, &m);
	if (!FZ_CHECK(z, ret, ENOMEM))
		return;
	if (m.pkt.data16 != TRACEBUF_SAVE_SEALED)
		fz_bad(z, "a sealable buffer's save came with data16 %#x", m.pkt.data16);
	if (first < end && !tb_touch(map + first + fz_below(z, (unsigned int)(end - first)), true))
		fz_bad(z, "a sealed page took a store");
	if (fz_pct(z, 50))
		FZ_CHECK(z, mgr_buffer_saved(mgr, id, 0, 0), 0);
}

static void op_genl(struct fz *z)
{
	static struct dump d;
	struct gprov g;
	int ret;

	if (!z->nl_ok) {
		ret = nl_open(&z->nl);
		if (!FZ_CHECK(z, ret, ENOMEM, ENOBUFS, EMFILE))
			return;
		z->nl_ok = true;
	}
	if (fz_pct(z, 70)) {
		__u32 id = fz_id(z);

		ret = nl_get(&z->nl, id, &g);
		/* the attribute's policy refuses id 0 */
		if (ret == -ERANGE && !id)
			ret = -ENOENT;
		FZ_CHECK(z, ret, ENOENT, EPERM, ENOMEM, ENOBUFS);
	} else {
		ret = nl_dump(&z->nl, &d);
		FZ_CHECK(z, ret, EPERM, ENOMEM, ENOBUFS);
	}
}

/* A random command, tracebuf's magic or not, with random bytes. */
static void op_raw_ioctl(struct fz *z)
{
	int i = fz_file(z, FZ_FREE), ret;
	unsigned long cmd;
	unsigned char junk[256];

	if (i < 0)
		return;
	for (size_t k = 0; k < sizeof(junk); k++)
		junk[k] = fz_pct(z, 70) ? 0 : (unsigned char)fz_rand(z);
	unsigned int nr = fz_below(z, 64);

	/* not REGISTER or ATTACH: a role given here would go unrecorded */
	if (nr == _IOC_NR(TRACEBUF_IOC_REGISTER) ||
	    nr == _IOC_NR(TRACEBUF_IOC_ATTACH))
		nr = 0x3f;
	cmd = _IOC(fz_below(z, 4), fz_pct(z, 90) ? TRACEBUF_IOC_MAGIC :
		   fz_below(z, 256), nr, fz_below(z, sizeof(junk)));
	ret = ioctl(z->f[i].fd, cmd, fz_ptr(z, junk, sizeof(junk))) < 0 ?
		-errno : 0;
	/* it may be a real command with nonsense in it: any of their errors */
	FZ_CHECK(z, ret, FZ_IOC_COMMON, EPERM, EBADF, ENOSPC, EDQUOT,
		 ENAMETOOLONG, EPROTO, EBUSY, EPROTONOSUPPORT, EAGAIN, ESRCH,
		 EALREADY, EFBIG, EMSGSIZE, EMFILE);
	/* a real INITIALIZE may have made a handle: its number is unknown */
}

static void fz_run(struct fz *z, unsigned long n);

static void op_fork(struct fz *z)
{
	unsigned int k = fz_below(z, FZ_KIDS);
	pid_t pid;

	if (z->kid)
		return;
	if (z->kids[k] > 0) {
		if (waitpid(z->kids[k], NULL, WNOHANG) == 0)
			return;
		z->kids[k] = 0;
	}
	__atomic_fetch_add(&sh->forks, 1, __ATOMIC_RELAXED);
	pid = fork();
	if (pid == 0) {
		z->kid = true;
		z->rng ^= 0x5851f42d4c957f2dULL * (__u64)getpid();
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* only mappings with MADV_DOFORK came along */
		for (int m = 0; m < FZ_MAPS; m++) {
			if (!z->m[m].dofork)
				z->m[m].addr = NULL;
		}
		z->nl_ok = false;	/* the socket is shared: leave it */
		fz_run(z, 10 + fz_below(z, 200));
		_exit(0);
	}
	FZ_CHECK(z, pid < 0 ? -errno : 0, EAGAIN, ENOMEM);
	if (pid > 0)
		z->kids[k] = pid;
}

static void fz_reap_kid(struct fz *z, unsigned int k, bool kill_it)
{
	int status;

	if (z->kids[k] <= 0)
		return;
	if (kill_it) {
		kill(z->kids[k], SIGKILL);
		__atomic_fetch_add(&sh->kids_killed, 1, __ATOMIC_RELAXED);
	}
	if (waitpid(z->kids[k], &status, kill_it ? 0 : WNOHANG) <= 0)
		return;
	z->kids[k] = 0;
	if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL) {
		fz_death("worker %u gen %u: a child died of %s", z->slot, z->gen,
			 strsignal(WTERMSIG(status)));
	} else if (WIFEXITED(status) && WEXITSTATUS(status)) {
		fz_bad(z, "a child exited with %d", WEXITSTATUS(status));
	}
}

static void op_kill_kid(struct fz *z)
{
	unsigned int k = fz_below(z, FZ_KIDS);

	if (!z->kid)
		fz_reap_kid(z, k, fz_pct(z, 50));
	FZ_CHECK(z, 0, 0);
}

struct fz_op {
	const char *name;
	void (*fn)(struct fz *z);
	unsigned int weight;
};

static const struct fz_op fz_ops[] = {
	{ "open", op_open, 5 },
	{ "close", op_close, 3 },
	{ "dup", op_dup, 1 },
	{ "VERSION", op_version, 1 },
	{ "REGISTER", op_register, 6 },
	{ "ATTACH", op_attach, 4 },
	{ "SET_EVENTFD", op_eventfd, 3 },
	{ "eventfd read", op_eventfd_read, 1 },
	{ "GET_CONFIG", op_get_config, 3 },
	{ "PROVIDER_SEND", op_provider_send, 8 },
	{ "provider reply", op_provider_respond, 12 },
	{ "RELEASE", op_release, 2 },
	{ "SET_CATEGORIES", op_set_categories, 3 },
	{ "LIST", op_list, 5 },
	{ "INITIALIZE", op_initialize, 8 },
	{ "START", op_start, 8 },
	{ "STOP", op_stop, 5 },
	{ "TERMINATE", op_terminate, 4 },
	{ "MGR_SEND", op_mgr_send, 3 },
	{ "manager reply", op_mgr_respond, 12 },
	{ "GET_CATEGORIES", op_get_categories, 2 },
	{ "SET_TRACING", op_set_tracing, 2 },
	{ "read", op_read, 3 },
	{ "poll", op_poll, 3 },
	{ "write, lseek", op_write_seek, 1 },
	{ "pread", op_pread, 2 },
	{ "mmap provider", op_mmap_provider, 5 },
	{ "mmap handle", op_mmap_handle, 3 },
	{ "munmap", op_munmap, 3 },
	{ "mremap", op_mremap, 2 },
	{ "mprotect", op_mprotect, 2 },
	{ "madvise", op_madvise, 4 },
	{ "touch", op_touch, 5 },
	{ "proc mem", op_proc_mem, 2 },
	{ "stream", op_stream, 1 },
	{ "netlink", op_genl, 2 },
	{ "raw ioctl", op_raw_ioctl, 2 },
	{ "fork", op_fork, 1 },
	{ "kill child", op_kill_kid, 1 },
};

static unsigned int fz_weights;

static unsigned int fz_pick(struct fz *z)
{
	unsigned int r = fz_below(z, fz_weights), i;

	for (i = 0; i < ARRAY_SIZE(fz_ops) - 1; i++) {
		if (r < fz_ops[i].weight)
			break;
		r -= fz_ops[i].weight;
	}
	return i;
}

/* Run n operations (0: until the shared total reaches the target). */
static void fz_run(struct fz *z, unsigned long n)
{
	for (unsigned long done = 0; !n || done < n; done++) {
		if (__atomic_load_n(&sh->ops, __ATOMIC_RELAXED) >= sh->target)
			break;
		z->op = fz_pick(z);
		z->ctx = fz_ops[z->op].name;
		if (!z->kid)
			sh->w[z->slot].op = z->op;
		fz_ops[z->op].fn(z);
		__atomic_fetch_add(&sh->ops, 1, __ATOMIC_RELAXED);
	}
}

static void fz_alarm_handler(int sig)
{
	(void)sig;
}

static int fz_init(struct fz *z, unsigned int slot, unsigned int gen, __u64 seed)
{
	struct sigaction sa;
	char pair[64];

	memset(z, 0, offsetof(struct fz, arg));
	z->slot = slot;
	z->gen = gen;
	z->rng = seed ^ ((__u64)slot << 48) ^ ((__u64)gen << 32);
	for (int i = 0; i < FZ_FILES; i++)
		z->f[i].fd = -1;
	for (int i = 0; i < FZ_HANDLES; i++)
		z->h[i] = -1;
	for (int i = 0; i < FZ_EFDS; i++)
		z->efd[i] = -1;
	z->bad = tb_bad_page();
	z->edge = mmap(NULL, 2 * tb_page_size(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (z->bad == MAP_FAILED || z->edge == MAP_FAILED ||
	    mprotect(z->edge + tb_page_size(), tb_page_size(), PROT_NONE))
		return -errno;
	if (tb_cats_build(&z->cats, "a", "bb", "fuzz", NULL) ||
	    tb_cats_build(&z->names, "abc", "fuzz", "q", NULL) ||
	    tb_cats_many(&z->big, 2 * (TRACEBUF_CATEGORIES_MAX + 1)))
		return -ENOMEM;
	memset(&z->pairs, 0, sizeof(z->pairs));
	for (int i = 0; i < 8; i++) {
		snprintf(pair, sizeof(pair), "cat%d", i);
		if (tb_cats_add(&z->pairs, pair) ||
		    tb_cats_add(&z->pairs, i & 1 ? "" : "a description"))
			return -ENOMEM;
	}
	z->pairs.count /= 2;
	z->big.count /= 2;	/* one pair too many: E2BIG */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fz_alarm_handler;	/* no SA_RESTART: EINTR */
	sigaction(SIGALRM, &sa, NULL);
	return 0;
}

/* One worker: run until the target, then go (tidily or not). */
static void fz_worker(unsigned int slot, unsigned int gen, __u64 seed,
		      bool nobody)
{
	static struct fz z;
	struct tb_creds nob = { TB_NOBODY, TB_NOBODY, 0, { 0 }, TB_NO_CAPS };
	int ret;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	ret = fz_init(&z, slot, gen, seed);
	if (ret) {
		fprintf(stderr, "# worker %u: setup: %s\n", slot, strerror(-ret));
		_exit(1);
	}
	if (nobody && tb_become(&nob)) {
		fprintf(stderr, "# worker %u: cannot become nobody\n", slot);
		_exit(1);
	}
	fz_run(&z, 0);
	for (unsigned int k = 0; k < FZ_KIDS; k++)
		fz_reap_kid(&z, k, true);
	if (fz_pct(&z, 50)) {
		for (int i = 0; i < FZ_MAPS; i++) {
			if (z.m[i].addr)
				munmap(z.m[i].addr, z.m[i].len);
		}
		for (int i = 0; i < FZ_FILES; i++) {
			if (z.f[i].role != FZ_FREE)
				fz_close_file(&z, i);
		}
	}
	_exit(0);
}

/* ------------------------------------------------------------------ */
/* Supervisor                                                         */

static unsigned long fz_env(const char *name, unsigned long def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end)
		ksft_exit_fail_msg("%s=%s is not a number\n", name, s);
	return v;
}

static pid_t fz_spawn(unsigned int slot, unsigned int gen, __u64 seed,
		      unsigned int workers)
{
	bool nobody = workers > 1 && slot % 4 == 3;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		fz_worker(slot, gen, seed, nobody);
	if (pid > 0) {
		sh->w[slot].pid = pid;
		sh->w[slot].gen = gen;
	}
	return pid;
}

/* Where a stalled worker sleeps, for the report. */
static void fz_report_stall(unsigned int workers)
{
	char path[64], buf[2048];

	for (unsigned int i = 0; i < workers; i++) {
		if (sh->w[i].pid <= 0)
			continue;
		ksft_print_msg("worker %u (pid %d) in %s\n", i, sh->w[i].pid,
			       fz_ops[sh->w[i].op].name);
		snprintf(path, sizeof(path), "/proc/%d/stack", sh->w[i].pid);
		if (!tb_read_text(path, buf, sizeof(buf)))
			ksft_print_msg("%s", buf);
	}
}

struct fz_result {
	double secs;
	bool stalled;
	int setup_failures;
};

static void fz_supervise(__u64 seed, unsigned int workers, struct fz_result *res)
{
	struct fz z;	/* only its PRNG: when to kill whom */
	unsigned int gen[FZ_WORKERS_MAX] = { 0 };
	pid_t killed[FZ_WORKERS_MAX] = { 0 };
	unsigned long last_ops = 0;
	struct timespec t0, t1, progress, deadline = { 0 };
	unsigned int live = 0;
	bool done_killed = false;
	int status;
	pid_t pid;

	z.rng = seed ^ 0xa0761d6478bd642fULL;
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	progress = t0;
	for (unsigned int i = 0; i < workers; i++) {
		if (fz_spawn(i, 0, seed, workers) > 0)
			live++;
	}
	while (live) {
		tb_msleep(20 + fz_below(&z, 180));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (sh->ops != last_ops) {
			last_ops = sh->ops;
			progress = t1;
		} else if (sh->ops >= sh->target && t1.tv_sec - progress.tv_sec > FZ_DONE_S &&
			   !done_killed) {
			/*
			 * Every operation is done, but a worker may sit in a
			 * blocking read() of an empty inbox, as documented:
			 * end it.  One stuck in the kernel does not die, and
			 * is a stall below.
			 */
			for (unsigned int i = 0; i < workers; i++) {
				if (sh->w[i].pid > 0 && !killed[i]) {
					kill(sh->w[i].pid, SIGKILL);
					killed[i] = sh->w[i].pid;
				}
			}
			done_killed = true;
		} else if (t1.tv_sec - progress.tv_sec > FZ_STALL_S && !res->stalled) {
			ksft_print_msg("no operation finished for %d s\n", FZ_STALL_S);
			fz_report_stall(workers);
			res->stalled = true;
			for (unsigned int i = 0; i < workers; i++) {
				if (sh->w[i].pid > 0)
					kill(sh->w[i].pid, SIGKILL);
			}
			sh->target = 0;
			deadline = t1;
		} else if (res->stalled && t1.tv_sec - deadline.tv_sec > 10) {
			ksft_print_msg("%u workers do not die: giving up on them\n", live);
			return;
		}
		if (sh->ops < sh->target && fz_pct(&z, 15)) {
			unsigned int i = fz_below(&z, workers);

			if (sh->w[i].pid > 0 && !killed[i]) {
				kill(sh->w[i].pid, SIGKILL);
				killed[i] = sh->w[i].pid;
				sh->workers_killed++;
			}
		}
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
			int slot = -1;

			for (unsigned int i = 0; i < workers; i++) {
				if (sh->w[i].pid == pid)
					slot = (int)i;
			}
			if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL) {
				fz_death("%s %d died of %s", slot >= 0 ?
					 "worker" : "orphaned child", pid,
					 strsignal(WTERMSIG(status)));
			} else if (WIFSIGNALED(status) && slot >= 0 &&
				   killed[slot] != pid && !res->stalled) {
				fz_death("worker %d killed by a SIGKILL not ours (OOM?)",
					 slot);
			} else if (WIFEXITED(status) && WEXITSTATUS(status) &&
				   slot >= 0) {
				res->setup_failures++;
			}
			if (slot < 0)
				continue;
			sh->w[slot].pid = 0;
			killed[slot] = 0;
			live--;
			if (sh->ops < sh->target && !res->setup_failures &&
			    fz_spawn((unsigned int)slot, ++gen[slot], seed,
				     workers) > 0)
				live++;
		}
	}
	/* orphaned children of killed workers: they end on their own */
	for (int t = 0; t < 600; t++) {
		pid = waitpid(-1, &status, WNOHANG);
		if (pid < 0)
			break;
		if (!pid) {
			tb_msleep(100);
			continue;
		}
		if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
			fz_death("an orphaned child died of %s",
				 strsignal(WTERMSIG(status)));
	}
	if (pid >= 0) {
		ksft_print_msg("orphaned children still running after 60 s\n");
		res->stalled = true;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->secs = (double)(t1.tv_sec - t0.tv_sec) +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

/* The module still traces: one provider through a whole session. */
static const char *fz_usable(void)
{
	struct tracebuf_pkt pkt;
	struct tracebuf_mgr_msg msg;
	__u32 id = 0, mid = 0;
	int prov, mgr, bfd;
	const char *why = NULL;

	prov = tb_open_provider("fuzz-after", &id);
	mgr = tb_open_manager(0, &mid);
	if (prov < 0 || mgr < 0)
		why = "cannot register or attach";
	else if (mgr_initialize(mgr, id, TRACEBUF_MODE_ONESHOT, 4 * tb_buffer_min(),
				NULL, &bfd))
		why = "INITIALIZE failed";
	else if (close(bfd), tb_read_pkt(prov, &pkt, TB_TIMEOUT_MS) ||
		 pkt.request != TRACEBUF_PKT_INITIALIZE)
		why = "no INITIALIZE packet";
	else if (mgr_start(mgr, id, TRACEBUF_START_CLEAR_ENTIRE, NULL) ||
		 tb_read_pkt(prov, &pkt, TB_TIMEOUT_MS) ||
		 pkt.request != TRACEBUF_PKT_START || provider_started(prov) ||
		 tb_read_msg(mgr, &msg, TB_TIMEOUT_MS))
		why = "START failed";
	else if (mgr_stop(mgr, id) || tb_read_pkt(prov, &pkt, TB_TIMEOUT_MS) ||
		 provider_stopped(prov) || tb_read_msg(mgr, &msg, TB_TIMEOUT_MS) ||
		 msg.state != TRACEBUF_STATE_STOPPED)
		why = "STOP failed";
	if (prov >= 0)
		close(prov);
	if (mgr >= 0)
		close(mgr);
	return why;
}

static void fz_histograms(void)
{
	for (size_t op = 0; op < ARRAY_SIZE(fz_ops); op++) {
		char line[1024];
		unsigned long total = 0;
		int len;

		for (int e = 0; e < FZ_ERRNO_MAX; e++)
			total += sh->calls[op][e];
		len = snprintf(line, sizeof(line), "%-16s %8lu calls, ok %lu",
			       fz_ops[op].name, total, sh->calls[op][0]);
		for (int e = 1; e < FZ_ERRNO_MAX && len < (int)sizeof(line) - 40; e++) {
			if (sh->calls[op][e])
				len += snprintf(line + len, sizeof(line) - len,
						", %s %lu", strerrorname_np(e) ?
						strerrorname_np(e) : "?",
						sh->calls[op][e]);
		}
		ksft_print_msg("%s\n", line);
	}
	ksft_print_msg("provider states seen (LIST, messages): registered %lu, initialized %lu, starting %lu, started %lu, stopping %lu, stopped %lu, terminating %lu\n",
		       sh->states[1], sh->states[2], sh->states[3], sh->states[4],
		       sh->states[5], sh->states[6], sh->states[7]);
}

int main(void)
{
	struct tb_param quota_prov = { 0 }, quota_mem = { 0 };
	struct fz_result res = { 0 };
	static char users[4096], after[4096];
	bool have_users;
	unsigned int workers;
	const char *why;
	__u64 seed;
	int fd;

	ksft_print_header();
	ksft_set_plan(6);
	for (size_t i = 0; i < ARRAY_SIZE(fz_ops); i++)
		fz_weights += fz_ops[i].weight;

	fd = open(TB_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		ksft_exit_skip("%s: %s\n", TB_DEV_PATH, strerror(errno));
	close(fd);
	/* asked once here: every process started later knows it */
	tb_buffer_min();
	if (geteuid())
		ksft_exit_skip("needs root (it runs workers as root and as nobody)\n");

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	sh->target = fz_env("TB_FUZZ_OPS", 50000);
	workers = (unsigned int)fz_env("TB_FUZZ_WORKERS", 4);
	if (!workers || workers > FZ_WORKERS_MAX)
		ksft_exit_fail_msg("TB_FUZZ_WORKERS=%u: 1 to %d\n", workers,
				   FZ_WORKERS_MAX);
	seed = fz_env("TB_FUZZ_SEED", 0);
	if (!seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (__u64)ts.tv_sec * 1000000007ULL ^ (__u64)ts.tv_nsec;
	}
	ksft_print_msg("seed %#llx, %u workers, %lu operations (TB_FUZZ_SEED=%#llx to repeat)\n",
		       (unsigned long long)seed, workers, sh->target,
		       (unsigned long long)seed);

	/*
	 * small shares, so that nobody's workers meet their quotas: 64
	 * smallest buffers (256 KiB with 4 KiB pages)
	 */
	tb_param_change(&quota_prov, "max_user_providers", 6);
	tb_param_change(&quota_mem, "max_user_memory", 64 * tb_buffer_min());
	have_users = !tb_read_text(FZ_USERS, users, sizeof(users));

	fz_supervise(seed, workers, &res);

	tb_param_restore(&quota_prov);
	tb_param_restore(&quota_mem);
	fz_histograms();
	ksft_print_msg("%lu operations in %.1f s (%.0f/s); %lu workers killed, %lu children forked, %lu killed\n",
		       sh->ops, res.secs, res.secs > 0 ? sh->ops / res.secs : 0.0,
		       sh->workers_killed, sh->forks, sh->kids_killed);

	ksft_test_result(!res.setup_failures && sh->ops >= sh->target,
			 "operations run (%lu of %lu)\n", sh->ops, sh->target);
	for (unsigned long i = 0; i < sh->bad && i < FZ_BAD_MAX; i++)
		ksft_print_msg("%s\n", sh->bad_msg[i]);
	ksft_test_result(!sh->bad, "every result documented (%lu not)\n", sh->bad);
	for (unsigned long i = 0; i < sh->deaths && i < FZ_BAD_MAX; i++)
		ksft_print_msg("%s\n", sh->death_msg[i]);
	ksft_test_result(!sh->deaths, "no process died of a signal it was not sent\n");
	ksft_test_result(!res.stalled, "no stall\n");

	if (!have_users) {
		ksft_test_result_skip("idle afterwards: no %s\n", FZ_USERS);
	} else {
		for (int t = 0; t < 100; t++) {
			tb_read_text(FZ_USERS, after, sizeof(after));
			if (!strcmp(users, after))
				break;
			tb_msleep(100);
		}
		if (strcmp(users, after))
			ksft_print_msg("before:\n%s# after:\n%s", users, after);
		ksft_test_result(!strcmp(users, after),
				 "idle afterwards: no user holds anything\n");
	}
	why = fz_usable();
	ksft_test_result(!why, "usable afterwards%s%s\n", why ? ": " : "",
			 why ? why : "");
	ksft_finished();
}
