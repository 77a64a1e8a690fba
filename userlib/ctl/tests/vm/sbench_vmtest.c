// SPDX-License-Identifier: MIT
/*
 * Streaming that keeps up, in the test VM: "tracebufctl record" around
 * tb-seqprov providers, whose every event is checked (seqcheck.h).
 *
 *   - full:      each provider's write rate in oneshot mode, with a buffer
 *                that holds every event (1 and 4 providers at once);
 *   - lossless:  for 256 KiB, 1 MiB and 4 MiB buffers and 1 and 4
 *                providers, and 16 MiB for 1 (configs[]), the highest
 *                pacing, as a fraction of the full rate of as many
 *                providers, at which a streaming recording holds every
 *                event: unpaced first (its rate, of the full one, is
 *                printed too: a streaming buffer's pages are faulted in
 *                once, a oneshot one's as it fills), then a bisection of
 *                TB_SBENCH_STEPS steps (default 5), one run each;
 *   - manager:   tracebufctl's CPU time per MiB of trace, the median of
 *                the last lossless run of each and two more at its rate
 *                (its children's, the providers', taken out, and its
 *                fixed cost: what a recording of one iteration with the
 *                same buffer and providers takes, the median of three,
 *                printed too), next to a plain write() of as many bytes
 *                from memory in writes of half the buffer, made right
 *                after each of the three runs, on an idle guest and
 *                beside the same providers at the same rate
 *                (plain_write_beside()), and the handoff floor made
 *                right after them, its writers at the providers' rate
 *                (handoff_floor()): the medians of the ratios;
 *   - save path: the manager's walk and write of halves of the buffer
 *                without the module (save_path()), of a plain write()
 *                of the same halves, and of the walk alone: what of the
 *                manager's CPU is the walk, not the handoff;
 *   - round trip: from a provider's SAVE_BUFFER to the manager's
 *                BUFFER_SAVED, as the providers measured them (median and
 *                99th percentile of the newest 256 of each);
 *   - padding:   what the demo's trace ("record -m streaming --
 *                tracebuf-example", as "make demo" runs it) and a short
 *                one's ("record -- tracebuf-example -n 5": a oneshot
 *                buffer that stays mostly empty) hold besides records
 *                (padcheck.h): their bytes, their padding, its share.
 *
 * Emulated rates mean little alone: read the fractions and ratios,
 * measured side by side in one run.  Nothing is asserted of them.
 *
 * "make check" runs it short (TB_SBENCH unset): one oneshot and one
 * unpaced streaming recording, and checks what every run relies on: the
 * oneshot trace holds every event, and a streaming trace that lost
 * events says so (drop windows in it, and tracebufctl's warning; records
 * dropped for lack of room do not change its exit status, 0); and the
 * short trace of the example holds at most 1 % of padding.  "make
 * bench-stream" sets TB_SBENCH=1.
 *
 * tracebufctl and tb-seqprov are expected beside this program.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ktap.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "vmtest.h"
#include "seqcheck.h"
#include "engine_priv.h"	/* TB_SAVE_SAMPLES */
#include "savepath.h"

#define MAX_PROCS	4
#define MAX_US		(MAX_PROCS * TB_SAVE_SAMPLES)	/* as many as tb-seqprov -v prints */
#define MIB		(1024.0 * 1024.0)

struct rec_run {
	int status;			/* tracebufctl's */
	bool warned;			/* it warned of dropped records */
	bool lossless;			/* every event once, no drop */
	double mgr_cpu;			/* s: tracebufctl without the providers */
	double bytes;			/* the trace's */
	double rate;			/* iterations a second, all providers */
	double prov_rate[MAX_PROCS];	/* each provider's */
	unsigned int saves;
	unsigned int nus;
	uint32_t us[MAX_US];		/* save round trips */
	uint64_t tried;			/* events, the providers' own tally */
	unsigned int fills, nfill;
	uint32_t fill_us[MAX_US];	/* times to fill a half */
	uint64_t waited_us;		/* both halves taken, all providers */
	bool accounted;			/* tried = in the file + in drop windows */
	struct seq_result seq;
};

static double tv(const struct timeval *t)
{
	return (double)t->tv_sec + (double)t->tv_usec / 1e6;
}

static double cpu_self(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return tv(&ru.ru_utime) + tv(&ru.ru_stime);
}

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 10) : def;
}

/* Up to @max numbers from @p into @v (from *@n on); where they end. */
static char *parse_list(char *p, uint32_t *v, unsigned int *n, unsigned int max)
{
	for (;;) {
		char *end;
		unsigned long x = strtoul(p, &end, 10);

		if (end == p)
			return p;
		if (*n < max)
			v[(*n)++] = (uint32_t)x;
		p = end;
	}
}

/*
 * tb-seqprov -v's lines: its rate, its CPU time, its round trips, the
 * events it tried, its fill times, its wait for saves.
 */
static void parse(FILE *f, struct rec_run *r, double *prov_cpu)
{
	static char line[65536];
	unsigned int i = 0;

	while (fgets(line, sizeof(line), f)) {
		unsigned int count, saves, fills;
		unsigned long long tried, waited;
		double secs, cpu, rate;
		char *p = strchr(line, ':');
		int used;

		if (strncmp(line, "tb-seqprov ", 11) || !p ||
		    sscanf(p, ": %u in %lf s, cpu %lf s, saves %u, us%n", &count, &secs, &cpu,
			   &saves, &used) != 4)
			continue;
		rate = secs > 0 ? count / secs : 0;
		if (i < MAX_PROCS && rate > 0)
			r->prov_rate[i++] = rate;
		r->rate += rate;
		*prov_cpu += cpu;
		r->saves += saves;
		p = parse_list(p + used, r->us, &r->nus, MAX_US);
		if (sscanf(p, "; tried %llu, fills %u, fill_us%n", &tried, &fills, &used) != 2)
			continue;
		r->tried += tried;
		r->fills += fills;
		p = parse_list(p + used, r->fill_us, &r->nfill, MAX_US);
		if (sscanf(p, ", waited_us %llu", &waited) == 1)
			r->waited_us += waited;
	}
}

/*
 * tracebufctl record -q -m MODE -b SIZE -- tb-seqprov -P PROCS -n COUNT -v
 * [-r RATE]: its exit status, the trace checked, the CPU times.
 */
static int record(const char *mode, const char *size, unsigned int procs, unsigned int count,
		  double rate, struct rec_run *r)
{
	char nprocs[16], ncount[16], nrate[32];
	const char *argv[] = { "tracebufctl", "record", "-q", "-m", mode, "-b", size, "-o",
			       path("s.fxt"), "--", prog_path("tb-seqprov"), "-v", "-P", nprocs,
			       "-n", ncount, rate > 0 ? "-r" : NULL, nrate, NULL };
	static char out[1 << 16], err[4096];
	double prov_cpu = 0;
	struct rusage ru;
	struct stat st;
	FILE *f;

	memset(r, 0, sizeof(*r));
	snprintf(nprocs, sizeof(nprocs), "%u", procs);
	snprintf(ncount, sizeof(ncount), "%u", count);
	snprintf(nrate, sizeof(nrate), "%.0f", rate);
	unlink(path("s.fxt"));
	r->status = run_ru(argv, out, sizeof(out), err, sizeof(err), 0, &ru);
	if (r->status < 0)
		return -1;
	r->warned = strstr(err, "records dropped") != NULL;
	f = fmemopen(out, strlen(out) + 1, "r");
	if (!f)
		return -1;
	parse(f, r, &prov_cpu);
	fclose(f);
	r->mgr_cpu = tv(&ru.ru_utime) + tv(&ru.ru_stime) - prov_cpu;
	if (stat(path("s.fxt"), &st))
		return r->status ? 0 : -1;
	r->bytes = (double)st.st_size;
	if (seq_check(path("s.fxt"), "seq", procs, count, &r->seq))
		return -1;
	/*
	 * Checked: give its room back to what is measured next (the guest's
	 * /tmp is a tmpfs of half its memory, and a trace of a fast guest
	 * is hundreds of MiB: the floor's copy would not fit beside it).
	 */
	unlink(path("s.fxt"));
	r->lossless = !r->status && !r->warned && r->seq.complete == procs &&
		      !r->seq.drop_windows && !r->seq.overflows && !r->seq.duplicates;
	r->accounted = r->tried && r->seq.in_file + r->seq.in_windows == r->tried;
	if (!r->accounted)
		printf("# -m %s -b %s, %u provider(s): tried %" PRIu64 " events, %" PRIu64
		       " in the file, %" PRIu64 " in %" PRIu64 " drop windows: %" PRId64
		       " not accounted for\n", mode, size, procs, r->tried, r->seq.in_file,
		       r->seq.in_windows, r->seq.drop_windows,
		       (int64_t)(r->tried - r->seq.in_file - r->seq.in_windows));
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * CPU time of writing @bytes from memory to a file, @chunk at a time; 0
 * when a write() fell short (the figure would be of fewer bytes).
 */
static double plain_write(double bytes, size_t chunk)
{
	char *buf = malloc(chunk);
	double t0, t;
	int fd;
	bool ok = true;

	if (!buf)
		return 0;
	memset(buf, 0x5a, chunk);
	fd = open(path("plain.bin"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(buf);
		return 0;
	}
	errno = 0;	/* a write() that falls short sets none */
	t0 = cpu_self();
	for (double done = 0; ok && done < bytes; done += (double)chunk)
		ok = write(fd, buf, chunk) == (ssize_t)chunk;
	t = cpu_self() - t0;
	if (!ok)
		printf("# plain write() of %.1f MiB: %s\n", bytes / MIB,
		       errno ? strerror(errno) : "short");
	close(fd);
	unlink(path("plain.bin"));
	free(buf);
	return ok ? t : 0;
}

/* The middle of three. */
static double median3(double *v)
{
	qsort(v, 3, sizeof(v[0]), cmp_double);
	return v[1];
}

/*
 * plain_write() beside @procs providers that write at @rate iterations
 * a second each (0: as fast as they can) into a circular recording: the
 * providers' work of a streaming recording, without its manager's.  Under
 * emulation a task's CPU time grows when another vCPU is busy, so this is
 * the write() that the manager's, made beside its providers, compares
 * with; 0 if they did not run.
 */
static double plain_write_beside(double bytes, size_t chunk, unsigned int procs, double rate)
{
	char nprocs[16], ncount[16], nrate[32];
	const char *argv[] = { "tracebufctl", "record", "-q", "-m", "circular", "-b", "1M", "-o",
			       path("beside.fxt"), "--", prog_path("tb-seqprov"), "-P", nprocs,
			       "-n", ncount, rate > 0 ? "-r" : NULL, nrate, NULL };
	/* the providers run for 3 s or more at @rate, about 2 at full speed */
	unsigned int count = rate > 0 ? (unsigned int)(rate * 3) + 1000 : 400000;
	struct timespec start = { 0, 500 * 1000 * 1000 };
	double w = 0;
	int status;
	pid_t pid;

	snprintf(nprocs, sizeof(nprocs), "%u", procs);
	snprintf(ncount, sizeof(ncount), "%u", count);
	snprintf(nrate, sizeof(nrate), "%.0f", rate);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 0;
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execv(prog_path(argv[0]), (char *const *)argv);
		_exit(127);
	}
	nanosleep(&start, NULL);	/* the providers started */
	w = plain_write(bytes, chunk);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		w = 0;
	unlink(path("beside.fxt"));
	return w;
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * One writer of the handoff floor: fill half h of its shared region
 * with 8-byte stores, as a provider's records are written, no sooner
 * than @bps bytes a second allow (busy the while, reading the clock, as
 * a provider that writes at that rate is), tell the saver (one byte: h),
 * and before it refills a half, wait for the saver to say that half is
 * saved; @halves of them in all.  Exits 0 when every answer came, in
 * order.
 */
static void floor_writer(uint64_t *region, size_t chunk, unsigned long halves, double bps,
			 int full_w, int saved_r)
{
	size_t words = chunk / sizeof(uint64_t);
	double t0 = mono(), period = (double)chunk / bps;
	uint64_t v = 0;

	for (unsigned long n = 0; n < halves; n++) {
		unsigned char h = n & 1, got;
		volatile uint64_t *q = region + h * words;

		if (n >= 2 && (read(saved_r, &got, 1) != 1 || got != h))
			_exit(1);
		for (size_t i = 0; i < words; i++)
			q[i] = v++;
		while (mono() < t0 + (double)(n + 1) * period)
			;
		if (write(full_w, &h, 1) != 1)
			_exit(1);
	}
	/* the last answers, so that the saver's write of them has a reader */
	for (unsigned long n = halves < 2 ? 0 : halves - 2; n < halves; n++) {
		unsigned char got;

		if (read(saved_r, &got, 1) != 1 || got != (n & 1))
			_exit(1);
	}
	_exit(0);
}

/*
 * The handoff floor: the saver's CPU time of writing @bytes to a file
 * from the buffers of @procs writer processes, @chunk (half a buffer) at
 * a time, each save started by a wake-up and answered by a message, as
 * a streaming manager's are, but with nothing else: no records to check,
 * no packets, no kernel module; an answer wakes a writer only if it
 * waits for it.  The writers fill their halves at @bps bytes a second
 * each, the providers' rate in the run compared: so the saver, like the
 * manager, sleeps between halves and runs beside busy writers.  About
 * what any two-half streaming design pays on this machine; 0 if it did
 * not run.
 */
static double handoff_floor(double bytes, size_t chunk, unsigned int procs, double bps)
{
	unsigned long halves = (unsigned long)(bytes / (double)chunk / procs) + 1;
	int full[MAX_PROCS][2], saved[MAX_PROCS][2], fd, status, ok = 1;
	struct pollfd pfd[MAX_PROCS];
	pid_t pid[MAX_PROCS];
	unsigned long left = halves * procs, owed[MAX_PROCS];
	void *region[MAX_PROCS];
	double t0, t;

	if (!(bps > 0))
		return 0;	/* the run's rate was not read */
	fd = open(path("floor.bin"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return 0;
	fflush(stdout);
	for (unsigned int i = 0; i < procs; i++) {
		region[i] = mmap(NULL, 2 * chunk, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (region[i] == MAP_FAILED || pipe(full[i]) || pipe(saved[i]))
			return 0;
		pid[i] = fork();
		if (pid[i] < 0)
			return 0;
		if (!pid[i]) {
			close(full[i][0]);
			close(saved[i][1]);
			floor_writer(region[i], chunk, halves, bps, full[i][1], saved[i][0]);
		}
		close(full[i][1]);
		close(saved[i][0]);
		pfd[i].fd = full[i][0];
		pfd[i].events = POLLIN;
		owed[i] = halves;
	}
	t0 = cpu_self();
	while (ok && left) {
		if (poll(pfd, procs, -1) < 0) {
			ok = errno == EINTR;
			continue;
		}
		for (unsigned int i = 0; ok && i < procs; i++) {
			unsigned char h;

			if (!(pfd[i].revents & POLLIN)) {
				if (pfd[i].revents) {	/* a writer that is done, or died */
					pfd[i].fd = -1;
					ok = !owed[i];
				}
				continue;
			}
			if (read(full[i][0], &h, 1) != 1 || h > 1 ||
			    write(fd, (char *)region[i] + h * chunk, chunk) != (ssize_t)chunk ||
			    write(saved[i][1], &h, 1) != 1) {
				printf("# handoff floor: %s\n", strerror(errno));
				ok = 0;
			}
			left--;
			owed[i]--;
		}
	}
	t = cpu_self() - t0;
	for (unsigned int i = 0; i < procs; i++) {
		if (!ok)
			kill(pid[i], SIGKILL);	/* it may wait for an answer forever */
		close(full[i][0]);
		close(saved[i][1]);
		if (waitpid(pid[i], &status, 0) != pid[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			ok = 0;
		munmap(region[i], 2 * chunk);
	}
	close(fd);
	unlink(path("floor.bin"));
	return ok ? t * bytes / ((double)halves * procs * chunk) : 0;
}

/* Iterations of tb-seqprov that hold @size bytes of trace, about. */
#define ITER_BYTES	56

static void full_rates(unsigned int procs, unsigned int count, double *per_prov)
{
	char size[32];
	struct rec_run *r = calloc(1, sizeof(*r));
	double bytes = (double)count * ITER_BYTES * 2 + (1 << 20);
	unsigned int mib = (unsigned int)(bytes / MIB) + 1;

	T_ASSERT(r != NULL);
	snprintf(size, sizeof(size), "%uM", mib);
	T_ASSERT_EQ(record("oneshot", size, procs, count, 0, r), 0);
	printf("# oneshot, -b %s, %u provider(s) of %u iterations: exit %d, %u complete, "
	       "%.0f iterations/s in all, %.1f MiB\n", size, procs, count, r->status,
	       r->seq.complete, r->rate, r->bytes / MIB);
	T_EXPECT_EQ(r->status, 0);
	T_EXPECT(r->lossless);
	T_EXPECT(r->accounted);
	qsort(r->prov_rate, procs, sizeof(double), cmp_double);
	*per_prov = r->prov_rate[procs / 2];
	free(r);
}

/*
 * The save path without the module (tests/savepath.h: a streaming save's
 * walk and write of halves of @half bytes of turns like tb-seqprov's, in
 * chunks padded as the engine pads them), of a plain write() of the same
 * halves, in this guest, the median of three ratios each: the walk and
 * the write (@save), and the walk alone, its output to /dev/null
 * (@walk).  How much of the manager's CPU per MiB is the walk and the
 * write, not the module's handoff; and what the walk adds to any write,
 * however its wake-ups are paid for.  False if any run failed.
 */
static bool save_path(size_t half, double *save, double *walk)
{
	size_t total = (32u << 20) / half * half;
	uint8_t *data = t_save_records(total, half);
	double vs[3], vw[3];
	bool ok = data != NULL;

	for (int i = -1; ok && i < 3; i++) {	/* -1: warm the code and the pages */
		static const char *const what[] = { "write()", "walk and write()", "walk" };
		double t[3];

		for (int k = 0; ok && k < 3; k++) {
			int fd = k < 2 ? memfd_create("tb-sbench-save", MFD_CLOEXEC) :
				 open("/dev/null", O_WRONLY | O_CLOEXEC);

			t[k] = fd < 0 ? -errno : t_save_run(fd, data, total, half, k > 0);
			if (fd >= 0)
				close(fd);
			ok = t[k] > 0;
			if (t[k] < 0)
				printf("# save path, %s: %s\n", what[k], strerror((int)-t[k]));
		}
		if (ok && i >= 0) {
			vs[i] = t[1] / t[0];
			vw[i] = t[2] / t[0];
		}
	}
	free(data);
	if (!ok)
		return false;
	*save = median3(vs);
	*walk = median3(vw);
	return true;
}

struct result {
	const char *size;
	unsigned int procs;
	double lo, hi;		/* lossless at lo (of the full rate), not at hi */
	double unpaced;		/* the unpaced run's rate, of the full rate */
	double mgr_per_mib;
	double vs_write, vs_beside;	/* of a plain write(), idle and beside */
	double floor_vs_write;	/* the handoff floor, of a plain write() */
	double vs_floor;	/* the manager's, of the handoff floor */
	double save_vs_write;	/* the save path without the module, of a write() */
	double walk_vs_write;	/* its walk alone, of a write() */
	double mgr_fixed;	/* s: a recording of one iteration */
	uint32_t median_us, p99_us;
	unsigned int saves;
};

static void streaming(const char *size, unsigned int procs, double full, unsigned int steps,
		      struct result *res)
{
	unsigned long bsize = strtoul(size, NULL, 10) << (strchr(size, 'M') ? 20 : 10);
	/* 8 halves of the buffer each, and 1.5 s at the full rate at least */
	unsigned int count = (unsigned int)(4 * bsize / ITER_BYTES);
	struct rec_run *r = calloc(1, sizeof(*r)), *best = calloc(1, sizeof(*best));
	double f = 1.0;

	T_ASSERT(r && best);
	if (count < full * 1.5)
		count = (unsigned int)(full * 1.5);
	res->size = size;
	res->procs = procs;
	res->lo = 0;
	res->hi = 1;
	for (unsigned int step = 0; step <= steps; step++) {
		T_ASSERT_EQ(record("streaming", size, procs, count, f < 1 ? f * full : 0, r), 0);
		printf("# streaming -b %s, %u provider(s), %.3f of the full rate: exit %d, "
		       "%u of %u complete, %" PRIu64 " drop windows, %.0f iterations/s\n", size,
		       procs, f, r->status, r->seq.complete, procs, r->seq.drop_windows,
		       r->rate);
		if (!step)
			res->unpaced = r->rate / (full * procs);
		if (r->lossless) {
			res->lo = f;
			memcpy(best, r, sizeof(*r));
			if (f == 1.0) {
				res->hi = 1;
				break;
			}
		} else {
			res->hi = f;
		}
		f = (res->lo + res->hi) / 2;
	}
	/*
	 * The fixed cost (startup, registration, the end's read-out), the
	 * median of three.  Then the manager's CPU per MiB in the last
	 * lossless run and two more at its rate, each next to its own
	 * write()s, idle and beside: medians of the three and of the
	 * three ratios, since on this machine one CPU time alone is as
	 * noisy as a run.
	 */
	double rate = res->lo < 1 ? res->lo * full : 0;
	double fixed[3], per_mib[3], vs_write[3], vs_beside[3], floor_w[3], vs_floor[3];

	for (int i = 0; i < 3; i++) {
		T_ASSERT_EQ(record("streaming", size, procs, 1, 0, r), 0);
		fixed[i] = r->mgr_cpu;
	}
	res->mgr_fixed = median3(fixed);
	if (best->bytes > 0) {
		for (int i = 0; i < 3; i++) {
			double mib, w, b, fl;

			if (i)
				T_ASSERT_EQ(record("streaming", size, procs, count, rate, r), 0);
			else
				memcpy(r, best, sizeof(*r));
			mib = r->bytes / MIB;
			per_mib[i] = mib > 0 && r->mgr_cpu > res->mgr_fixed ?
				     (r->mgr_cpu - res->mgr_fixed) / mib : 0;
			w = plain_write(r->bytes, bsize / 2) / mib;
			b = plain_write_beside(r->bytes, bsize / 2, procs, rate) / mib;
			/* each provider's bytes a second in this run */
			fl = handoff_floor(r->bytes, bsize / 2, procs,
					   r->rate / procs * r->bytes / ((double)count * procs)) / mib;
			/* a figure not measured fails the benchmark, not prints 0 */
			T_EXPECT(w > 0);
			T_EXPECT(b > 0);
			T_EXPECT(fl > 0);
			vs_write[i] = w > 0 ? per_mib[i] / w : 0;
			vs_beside[i] = b > 0 ? per_mib[i] / b : 0;
			floor_w[i] = w > 0 ? fl / w : 0;
			vs_floor[i] = fl > 0 ? per_mib[i] / fl : 0;
		}
		res->mgr_per_mib = median3(per_mib);
		res->vs_write = median3(vs_write);
		res->vs_beside = median3(vs_beside);
		res->floor_vs_write = median3(floor_w);
		res->vs_floor = median3(vs_floor);
		T_EXPECT(save_path(bsize / 2, &res->save_vs_write, &res->walk_vs_write));
		res->saves = best->saves;
		if (best->nus) {
			qsort(best->us, best->nus, sizeof(best->us[0]), cmp_u32);
			res->median_us = best->us[best->nus / 2];
			res->p99_us = best->us[(best->nus * 99) / 100];
		}
	} else {
		/* its row has no figures to show, not a table of zeros */
		T_FAIL("-b %s, %u provider(s): every run lost events, so the manager's figures "
		       "were not measured (more --steps?)", size, procs);
	}
	free(r);
	free(best);
}

/*
 * tracebufctl record -q @opts -- tracebuf-example @args: what its trace
 * holds (padcheck.h, which fails the test past 1 % of padding); the
 * exit status.
 */
static int example_trace(const char *opts, const char *args, struct t_lean *l)
{
	const char *argv[16] = { "tracebufctl", "record", "-q", "-o", path("e.fxt") };
	static char out[1 << 16], err[4096];
	char o[64], a[64], *save = NULL;
	unsigned int n = 5;
	struct stat st;
	int fd, status;
	void *map;

	memset(l, 0, sizeof(*l));
	snprintf(o, sizeof(o), "%s", opts);
	snprintf(a, sizeof(a), "%s", args);
	for (char *w = strtok_r(o, " ", &save); w && n < 8; w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n++] = "--";
	argv[n++] = prog_path("tracebuf-example");
	save = NULL;
	for (char *w = strtok_r(a, " ", &save); w && n < 15; w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	unlink(path("e.fxt"));
	status = run(argv, out, sizeof(out), err, sizeof(err), 0);
	fd = open(path("e.fxt"), O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || st.st_size < 8) {
		if (fd >= 0)
			close(fd);
		return status ? status : -1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map != MAP_FAILED) {
		*l = t_lean_measure(map, (size_t)st.st_size);
		t_lean_check(__FILE__, __LINE__, "the example's trace", map, (size_t)st.st_size);
		munmap(map, (size_t)st.st_size);
	}
	close(fd);
	unlink(path("e.fxt"));
	return status;
}

/* "N bytes, P of them padding (x %), the file F times its other records" */
static void print_lean(const char *what, const struct t_lean *l)
{
	printf("# %s: %zu bytes, %zu of them padding (%.2f %%), the file %.3f times its "
	       "other records\n", what, l->bytes, l->padding,
	       l->bytes ? 100.0 * (double)l->padding / (double)l->bytes : 0,
	       l->records ? (double)l->bytes / (double)l->records : 0);
}

static uint32_t pick_u32(uint32_t *v, unsigned int n, unsigned int pct)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(v[0]), cmp_u32);
	return v[n * pct / 100 < n ? n * pct / 100 : n - 1];
}

/*
 * The CPU time of the manager's save of one half of @half bytes (the
 * walk and write of save_path(), to a memfd), the median of three runs
 * over 8 halves or more; 0 if it did not run.
 */
static double save_half(size_t half)
{
	size_t n = half >= (1u << 20) ? 8 : (8u << 20) / half, total = n * half;
	uint8_t *data = t_save_records(total, half);
	double t[3];

	if (!data)
		return 0;
	for (int i = 0; i < 3; i++) {
		int fd = memfd_create("tb-sbench-half", MFD_CLOEXEC);

		t[i] = fd < 0 ? 0 : t_save_run(fd, data, total, half, true);
		if (fd >= 0)
			close(fd);
		if (t[i] <= 0) {
			free(data);
			return 0;
		}
	}
	free(data);
	return median3(t) / (double)n;
}

/*
 * What bounds one writer: for each buffer size, @runs unpaced streaming
 * recordings of one provider and @runs paced at half its oneshot rate
 * (@full iterations a second), each checked against the accounting rule
 * (the events it tried are in the file or in its drop windows).  A row
 * per run: its rate in events a second, the share of them lost (counted
 * in drop windows), the time to fill a half (median, fastest) and the
 * save round trip (median, 99th percentile, slowest): a half is lost
 * from when the other fills until its save comes back, so one writer is
 * lossless when a round trip stays under a fill.  Fails when a run did
 * not account for every event.
 */
static void loss_table(double full, unsigned int runs)
{
	static const char *const sizes[] = { "256K", "1M", "4M" };
	struct rec_run *r = calloc(1, sizeof(*r));
	unsigned int bad = 0;

	T_ASSERT(r != NULL);
	printf("# %-6s %-8s %-12s %-9s %-8s %-20s %-26s %-10s %s\n", "buffer", "pacing",
	       "events/s", "lost", "windows", "fill median/min", "round trip median/p99/max",
	       "waited", "accounted");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned long bsize = strtoul(sizes[i], NULL, 10) <<
				      (strchr(sizes[i], 'M') ? 20 : 10);
		/* 16 halves at least, and 2 s at the full rate */
		unsigned int count = (unsigned int)(8 * bsize / ITER_BYTES);
		double save = save_half(bsize / 2);

		if (count < full * 2)
			count = (unsigned int)(full * 2);
		printf("# %-6s the manager's walk and write of one half, without the module: "
		       "%.2f ms of CPU\n", sizes[i], save * 1e3);
		T_EXPECT(save > 0);
		for (unsigned int k = 0; k < 2 * runs; k++) {
			double rate = k < runs ? 0 : full / 2;
			uint32_t fmed, fmin, rmed, r99, rmax;
			char acct[48];

			T_ASSERT_EQ(record("streaming", sizes[i], 1, count, rate, r), 0);
			fmed = pick_u32(r->fill_us, r->nfill, 50);
			fmin = pick_u32(r->fill_us, r->nfill, 0);
			rmed = pick_u32(r->us, r->nus, 50);
			r99 = pick_u32(r->us, r->nus, 99);
			rmax = pick_u32(r->us, r->nus, 100);
			if (r->accounted)
				snprintf(acct, sizeof(acct), "yes");
			else
				snprintf(acct, sizeof(acct), "NO (%" PRId64 " short)",
					 (int64_t)(r->tried - r->seq.in_file - r->seq.in_windows));
			bad += !r->accounted;
			printf("# %-6s %-8s %-12.0f %6.3f %%  %-8" PRIu64 " %6.1f / %6.1f ms     "
			       "%6.1f / %6.1f / %6.1f ms   %7.1f ms %s\n", sizes[i],
			       rate > 0 ? "0.5" : "unpaced", r->rate * 3,
			       r->tried ? 100.0 * (double)r->seq.in_windows / (double)r->tried : 0,
			       r->seq.drop_windows, fmed / 1e3, fmin / 1e3, rmed / 1e3, r99 / 1e3,
			       rmax / 1e3, r->waited_us / 1e3, acct);
		}
	}
	printf("# lost: events counted in drop windows, of those tried; fill: from when a half "
	       "may be written to full; round trip: SAVE_BUFFER to BUFFER_SAVED, as the provider "
	       "saw it; waited: the provider's writer found both halves taken, in all; "
	       "pacing: unpaced, or half the oneshot rate\n");
	free(r);
	T_EXPECT_EQ(bad, 0);
}

/*
 * The table's rows.  16 MiB for one provider only: its halves of 8 MiB
 * make a save's wake-up and answer a small part of the manager's work,
 * so what is left is what every byte costs (four such providers would
 * put over 256 MiB of trace in the guest's /tmp, a tmpfs of half its
 * memory, beside their buffers).
 */
static const struct config {
	const char *size;
	unsigned int procs;
} configs[] = {
	{ "256K", 1 }, { "1M", 1 }, { "4M", 1 }, { "16M", 1 },
	{ "256K", MAX_PROCS }, { "1M", MAX_PROCS }, { "4M", MAX_PROCS },
};

#define NCONFIGS	(sizeof(configs) / sizeof(configs[0]))

static void bench(void)
{
	unsigned int steps = (unsigned int)env_long("TB_SBENCH_STEPS", 5);
	unsigned int runs = (unsigned int)env_long("TB_SBENCH_RUNS", 3);
	struct result res[NCONFIGS] = { 0 };	/* a row not measured shows zeros */
	double full[2];

	alarm(0);	/* bench-stream.sh gives the whole run its timeout */
	full_rates(1, 200000, &full[0]);
	if (!strcmp(getenv("TB_SBENCH"), "loss")) {
		printf("# full rate, oneshot: %.0f iterations/s (1 provider); an iteration is "
		       "3 events, some %u bytes\n", full[0], ITER_BYTES);
		loss_table(full[0], runs);
		return;
	}
	full_rates(MAX_PROCS, 100000, &full[1]);
	for (unsigned int n = 0; n < NCONFIGS; n++)
		streaming(configs[n].size, configs[n].procs,
			  full[configs[n].procs == 1 ? 0 : 1], steps, &res[n]);
	printf("# full rate, oneshot: %.0f iterations/s (1 provider), %.0f each (%u at once); "
	       "an iteration is 3 events, some %u bytes\n", full[0], full[1], MAX_PROCS,
	       ITER_BYTES);
	printf("# %-6s %-5s %-8s %-22s %-16s %-10s %-11s %-10s %-9s %-9s %-9s %-9s %-8s %-12s\n",
	       "buffer", "procs", "unpaced", "lossless (of full)", "manager CPU/MiB",
	       "vs write()", "vs beside", "floor/wr", "vs floor", "save/wr", "walk/wr", "fixed",
	       "saves", "round trip median/p99");
	for (unsigned int i = 0; i < NCONFIGS; i++) {
		char not_at[32] = "";

		/* lossless at the full rate: no rate above it was tried */
		if (res[i].lo < 1)
			snprintf(not_at, sizeof(not_at), "(not at %5.3f)", res[i].hi);
		printf("# %-6s %-5u %5.2fx   %5.3f %-14s   %8.2f ms      %5.2fx     "
		       "%5.2fx      %5.2fx     %5.2fx    %5.2fx    %5.2fx    %6.1f ms %-8u "
		       "%u/%u us\n",
		       res[i].size, res[i].procs, res[i].unpaced, res[i].lo, not_at,
		       res[i].mgr_per_mib * 1e3, res[i].vs_write, res[i].vs_beside,
		       res[i].floor_vs_write, res[i].vs_floor, res[i].save_vs_write,
		       res[i].walk_vs_write, res[i].mgr_fixed * 1e3,
		       res[i].saves, res[i].median_us, res[i].p99_us);
	}
	printf("# vs write(): of a plain write() of as many bytes, on an idle guest; vs beside: "
	       "of the same write() while the providers write at the same rate into a circular "
	       "recording; floor/wr: the handoff floor (handoff_floor(): processes fill "
	       "halves of shared memory at the providers' rate, a saver wakes for each and "
	       "writes it out, nothing else), of the idle write(); vs floor: the manager's, of the floor; "
	       "save/wr: the save path without the module (save_path(): the walk and write of "
	       "halves of the buffer's size), of a write() of them; walk/wr: its walk alone "
	       "(output to /dev/null), of the same write(); medians of three ratios, "
	       "each run's to write()s right after it\n");
	printf("# one writer, streaming, %u runs each:\n", runs);
	loss_table(full[0], runs);
	{
		struct t_lean demo, brief;

		example_trace("-m streaming", "", &demo);
		example_trace("", "-n 5", &brief);
		print_lean("padding, the demo's trace (record -m streaming -- tracebuf-example)",
			   &demo);
		print_lean("padding, a short trace (record -- tracebuf-example -n 5)", &brief);
	}
}

/*
 * What the benchmark relies on: a oneshot recording holds every event;
 * an unpaced streaming one with a small buffer either holds every event
 * and exits 0, or says what it lost (drop windows) and exits non-zero;
 * it never holds an event twice.
 */
static void streaming_accounts(void)
{
	struct rec_run *r = calloc(1, sizeof(*r));
	double full;

	T_ASSERT(r != NULL);
	if (getenv("TB_SBENCH")) {
		bench();
		free(r);
		return;
	}
	full_rates(1, 20000, &full);
	T_ASSERT_EQ(record("streaming", "64K", 1, 30000, 0, r), 0);
	printf("# streaming -b 64K, unpaced: exit %d, %u complete, %" PRIu64 " drop windows, "
	       "warned %d, %u saves, %.2f ms manager CPU\n", r->status, r->seq.complete,
	       r->seq.drop_windows, r->warned, r->saves, r->mgr_cpu * 1e3);
	printf("# tried %" PRIu64 " events: %" PRIu64 " in the file, %" PRIu64
	       " in its drop windows\n", r->tried, r->seq.in_file, r->seq.in_windows);
	T_EXPECT_EQ(r->seq.duplicates, 0);
	T_EXPECT_EQ(r->seq.orphan_ends, 0);
	T_EXPECT(r->accounted);
	T_EXPECT(r->saves > 0);
	T_EXPECT_EQ(r->status, 0);
	if (r->seq.complete == 1)
		T_EXPECT(!r->seq.drop_windows && !r->warned);
	else
		T_EXPECT(r->seq.drop_windows > 0 && r->warned);
	free(r);
	{
		struct t_lean brief;

		T_EXPECT_EQ(example_trace("", "-n 5", &brief), 0);
		print_lean("padding, a short trace (record -- tracebuf-example -n 5)", &brief);
		T_EXPECT(brief.records > 0);
	}
}

static const struct t_test tests[] = {
	T_TEST(streaming_accounts),
};

VMTEST_MAIN(tests)
