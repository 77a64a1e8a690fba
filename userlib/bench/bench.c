// SPDX-License-Identifier: MIT
/*
 * tb-bench: what writing an event with libtracebuf costs, on
 * the host, without the module.  scripts/bench.sh ("make bench") builds
 * and runs it and prints its final table.
 *
 * The engine is attached in CIRCULAR mode to a 64 MiB memfd mapped
 * MAP_SHARED (what the module's buffer is to a provider), zeroed once so
 * every page is present, with category "bench" enabled and started.  Each
 * run writes hundreds of MiB, so the rolling buffers wrap many times:
 * what is measured is the steady state, chunk refills and rolling buffer
 * switches included.  Ticks are the CPU counter when the module would vouch for
 * it, else CLOCK_MONOTONIC, like tb_engine_set_timebase() is told
 * by a real provider: on x86 the TSC (constant_tsc, nonstop_tsc,
 * clocksource tsc), on Arm the generic timer's virtual count at CNTFRQ
 * (clocksource arch_sys_counter).  Under emulation (user-mode QEMU, a
 * QEMU TCG guest: detected cheaply, not always) a warning says the
 * timings mean nothing, and so does --report.
 *
 * Single-thread figures, ns per event (per begin+end pair for durations),
 * each a loop of N calls in its own noinline function:
 *   disabled	TRACEBUF_LIB_INSTANT with two arguments, category off
 *   enabled_check	if (TRACEBUF_LIB_ENABLED(off category)) ...
 *   instant	TRACEBUF_LIB_INSTANT, no arguments (16-byte record)
 *   duration	DURATION_BEGIN with TA_U32 + TA_U64, then DURATION_END
 *		with none (40 + 16 bytes)
 *   counter	TRACEBUF_LIB_COUNTER with one TA_U64 (40 bytes)
 *   posix_event	posix_trace_event() (libposixtrace) of a type its
 *		stream records, 8 bytes of data (an 80-byte record)
 *   posix_filtered	posix_trace_event() of a type filtered out: what an
 *		event costs when no stream wants it (compare: disabled)
 *   instant_mono	instant with the CLOCK_MONOTONIC timebase (what a
 *		machine without a usable counter pays; LTTng's clock)
 *   floor_pt	the floor: what any per-thread-buffer tracer must do per
 *		event, and nothing else.  A thread-local bump pointer kept
 *		in memory (relaxed atomic load of pos and end, a bounds
 *		check, relaxed store of the new pos, as a reader or closer
 *		must be able to see it), one tracebuf_ticks() (the engine's
 *		own timestamp source), four 8-byte stores (32 bytes).  The
 *		region wraps at its end.  This is the floor the targets use.
 *   floor_shared	the classic floor: one relaxed atomic fetch_add on a
 *		shared 64-bit cursor, tracebuf_ticks(), 32-byte store
 *		(informative; tracebuf takes no atomic per event).
 *   lttng	an LTTng-UST 2.13 tracepoint with no fields (bench_lttng.c),
 *		when built with LTTng and a session enabled it.
 * N is calibrated so one run takes --run-ms; a round runs every figure
 * once, in turn, on the main thread pinned to CPU 0, timed with
 * CLOCK_THREAD_CPUTIME_ID (time other tasks run on that CPU is not
 * counted); --rounds rounds; the median is reported with the min and max.
 * Ratios (instant/floor, lttng/instant) are the medians of the per-round
 * ratios: the two figures of a pair ran a fraction of a second apart.
 * After each tracebuf run the engine's dropped count is checked (circular
 * mode must drop nothing), and the bytes the cursor advanced per event
 * are compared with the record size (the fast path wrote what it should).
 *
 * Scaling: two worker threads pinned to CPU 0 and CPU 1.  A round runs
 * each of three loops on one worker, then on both at once (each N
 * iterations, started together by a spin barrier): aggregate rate =
 * iterations / wall time from the first start to the last end
 * (CLOCK_MONOTONIC); the round's ratio is 2-thread over 1-thread.  The
 * loops: the tracebuf instant (the figure), and two controls that show
 * whether this machine's two CPUs scale at all: a busy loop (xorshift in
 * registers, no memory) and the per-thread floor.  On a shared machine
 * another task often holds a CPU for seconds; a round counts as quiet
 * when both controls scaled >= 1.8x and every thread got >= 90% of its
 * wall time as CPU time, and noisy rounds are run again (at most --rounds
 * more).  Medians are over the quiet rounds, or over all rounds, flagged,
 * when fewer than half were quiet.  Steal time from /proc/stat is shown.
 * Also shown: the CPU time per iteration in the 2-thread run over the
 * 1-thread run, which time the scheduler gives to others does not
 * inflate; above 1 the two threads slow each other down.
 *
 * tracebuf_ticks() alone is timed too: on x86 the TSC read is most of an
 * event's cost (on Arm the counter read and its ISB).
 *
 * The manager's save path, without the module: 32 MiB of the begin,
 * instant (u32) and end records tb-seqprov writes by turns, in 512 KiB
 * rolling buffers (a 1 MiB streaming buffer's), checked and written to a memfd
 * by tb_readout_keep() as a streaming save is, next to a plain
 * write() of the same rolling buffers to a memfd, by turns, SAVE_PAIRS pairs of
 * runs a round; thread CPU time per MiB, the ratio a median of the
 * ratios of each pair.  Left out: what the module
 * adds to a save (its packets, the wake-up, BUFFER_SAVED), which only
 * "make bench-stream" in the guest can time.
 *
 *   tb-bench [--rounds N] [--run-ms MS] [--results FILE]
 *	measure, print the details, write "key median min max" lines to FILE
 *   tb-bench --insns
 *	under valgrind --tool=callgrind: instructions per event of the
 *	floor, tracebuf_ticks(), the instant, the duration pair, the counter,
 *	posix_trace_event() and the disabled instant, each figure's loop
 *	between a zeroing of the counts and a dump named "insns.KEY N"
 *	(bench.sh divides each dump's total by N; see measure_insns())
 *   tb-bench --report FILE
 *	print the final table from FILE (bench.sh adds the LTTng session's
 *	"lttng_discarded N" and "lttng_setup ok|failed" lines first); exit 1
 *	when a figure a target needs is missing or invalid.
 */
#define _GNU_SOURCE
#define TRACEBUF_LIB_SHORT_NAMES	/* TRACE_*, TA_* */
#include <errno.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <trace.h>
#include <tracebuf_event.h>
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND	1
#else
#define HAVE_CALLGRIND	0
#endif

#include "engine_priv.h"
#include "event_priv.h"
#include "lib_priv.h"
#include "session_priv.h"
#include "savepath.h"	/* t_save_run() */
#include "bench.h"

#define NOINL			__attribute__((noinline))
#define BUF_SIZE		(64u << 20)
#define FLOOR_SIZE		(64u << 20)	/* two 32 MiB per-thread slices */
#define MAX_ROUNDS		31
#define NWORKERS		2

static unsigned int opt_rounds = 7;
static unsigned int opt_run_ms = 250;
static const char *opt_results;
static bool lttng_on;
static bool use_counter;
static uint64_t counter_hz;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("tb-bench: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static bool pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return !pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median, min and max of @n values (n > 0). */
static void stats3(const double *v, unsigned int n, double out[3])
{
	double s[2 * MAX_ROUNDS];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	out[0] = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	out[1] = s[0];
	out[2] = s[n - 1];
}

/* -------------------------------------------------------------------- */
/* The machine                                                          */

static bool file_has_word(const char *path, const char *word)
{
	char line[4096];
	size_t len = strlen(word);
	bool found = false;
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		for (char *p = strstr(line, word); p; p = strstr(p + 1, word)) {
			if ((p == line || p[-1] == ' ' || p[-1] == '\t') &&
			    (p[len] == ' ' || p[len] == '\n' || p[len] == '\0')) {
				found = true;
				break;
			}
		}
	}
	fclose(f);
	return found;
}

/*
 * The value of the first /proc/cpuinfo line whose key is @key, into @val
 * (what follows ": "); false when there is none.
 */
static bool cpuinfo_field(const char *key, char *val, size_t size)
{
	char line[512];
	size_t len = strlen(key);
	bool found = false;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		/* the key, blanks, then the colon */
		if (strncmp(line, key, len) || !c ||
		    strspn(line + len, " \t") != (size_t)(c - line) - len)
			continue;
		c += 1 + strspn(c + 1, " \t");
		snprintf(val, size, "%s", c);
		val[strcspn(val, "\n")] = '\0';
		found = true;
	}
	fclose(f);
	return found;
}

/*
 * Is this program's CPU emulated?  Cheap tests, not proof: a kernel of
 * another architecture (user-mode emulation: /proc/cpuinfo is the host's,
 * without what this architecture's kernel writes), QEMU TCG's CPUID
 * signature or CPU model name (x86), QEMU's "max" CPU (Arm: implementer
 * 0, reserved for software; also what newer user-mode QEMU shows).
 * Returns how, or NULL.
 */
static const char *detect_emulation(void)
{
	char val[128];
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;
	char sig[13];

	if (!cpuinfo_field("vendor_id", val, sizeof(val)))
		return "an x86 program on another architecture's kernel (user-mode emulation)";
	if (__get_cpuid(1, &a, &b, &c, &d) && c & (1u << 31)) {
		__cpuid(0x40000000, a, b, c, d);
		memcpy(sig, &b, 4);
		memcpy(sig + 4, &c, 4);
		memcpy(sig + 8, &d, 4);
		sig[12] = '\0';
		if (!strcmp(sig, "TCGTCGTCGTCG"))
			return "QEMU TCG (CPUID hypervisor signature)";
	}
	if (cpuinfo_field("model name", val, sizeof(val)) && strstr(val, "QEMU"))
		return "a QEMU CPU model, most likely emulated by TCG";
#elif defined(__aarch64__) || defined(__arm__)
	if (!cpuinfo_field("CPU implementer", val, sizeof(val)))
		return "an Arm program on another architecture's kernel (user-mode emulation)";
	if (strtoul(val, NULL, 0) == 0)
		return "QEMU's emulated \"max\" CPU (CPU implementer 0)";
#else
	(void)val;
#endif
	return NULL;
}

#if TRACEBUF_LIB_CPU_COUNTER == TRACEBUF_LIB_CPU_COUNTER_CNTVCT
/* CNTFRQ, which EL0 may read wherever it may read the counter. */
static uint64_t cntfrq(void)
{
#ifdef __aarch64__
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
#else
	uint32_t v;

	__asm__ __volatile__("mrc p15, 0, %0, c14, c0, 0" : "=r"(v));
	return v;
#endif
}
#endif

/*
 * What the module would report, as user space sees it.  x86: a constant,
 * non-stop TSC that the kernel uses as its clocksource (user space's view
 * of "stable"), its rate calibrated against CLOCK_MONOTONIC over 50 ms.
 * Arm: the generic timer as the clocksource, at CNTFRQ (a whole number
 * of kHz, as the module wants); a kernel trapping the counter for an
 * erratum (which the module would see) shows as a slow tracebuf_ticks().
 */
static void choose_timebase(void)
{
	const char *cs = "/sys/devices/system/clocksource/clocksource0/current_clocksource";
#if TRACEBUF_LIB_CPU_COUNTER == TRACEBUF_LIB_CPU_COUNTER_TSC
	double t0, t1;
	uint64_t c0, c1;

	use_counter = file_has_word("/proc/cpuinfo", "constant_tsc") &&
		      file_has_word("/proc/cpuinfo", "nonstop_tsc") &&
		      file_has_word(cs, "tsc");
	if (!use_counter)
		return;
	t0 = mono_ns();
	c0 = __rdtsc();
	while ((t1 = mono_ns()) - t0 < 50e6)
		;
	c1 = __rdtsc();
	counter_hz = (uint64_t)((double)(c1 - c0) * 1e9 / (t1 - t0));
#elif TRACEBUF_LIB_CPU_COUNTER == TRACEBUF_LIB_CPU_COUNTER_CNTVCT
	if (!file_has_word(cs, "arch_sys_counter"))
		return;
	counter_hz = cntfrq();
	use_counter = counter_hz && !(counter_hz % 1000);
#else
	(void)cs;
#endif
}

static void cpu_model(char *buf, size_t size)
{
	char impl[32], part[32];

	if (cpuinfo_field("model name", buf, size))
		return;
	/* Arm: no model name, the MIDR's fields */
	if (cpuinfo_field("CPU implementer", impl, sizeof(impl)) &&
	    cpuinfo_field("CPU part", part, sizeof(part)))
		snprintf(buf, size, "CPU implementer %s part %s", impl, part);
	else
		snprintf(buf, size, "unknown CPU");
}

/* Total and steal jiffies of all CPUs, from /proc/stat. */
static void cpu_steal(unsigned long long *total, unsigned long long *steal)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "re");

	*total = *steal = 0;
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
		for (int i = 0; i < 8; i++)
			*total += v[i];
		*steal = v[7];
	}
	fclose(f);
}

/* -------------------------------------------------------------------- */
/* The engine over a memfd                                              */

static void *map_memfd(const char *name, size_t size)
{
	int fd = memfd_create(name, MFD_CLOEXEC);
	void *p;

	if (fd < 0)
		die("memfd_create: %s", strerror(errno));
	if (ftruncate(fd, (off_t)size))
		die("ftruncate: %s", strerror(errno));
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	close(fd);
	return p;
}

/* The POSIX event types of fig_posix_*(): recorded, filtered out. */
static trace_event_id_t posix_on, posix_off;

static void engine_setup(void)
{
	static const char cats[] = "bench\0posix:on";
	void *buf = map_memfd("tb-bench", BUF_SIZE);
	int ret;

	/*
	 * The POSIX event types, before the engine is attached here: the
	 * first one opened registers this process as a provider, which
	 * fails without the module (as here) and is not needed.
	 */
	if (posix_trace_eventid_open("on", &posix_on) ||
	    posix_trace_eventid_open("off", &posix_off))
		die("posix_trace_eventid_open failed");

	tb_engine_format(buf, BUF_SIZE, TRACEBUF_MODE_CIRCULAR);
	tb_event_install();
	ret = tb_engine_attach(buf, BUF_SIZE, TRACEBUF_MODE_CIRCULAR, NULL);
	if (ret)
		die("tb_engine_attach: %s", strerror(-ret));
	ret = tb_event_set_categories(cats, sizeof(cats), 2);
	if (ret)
		die("tb_event_set_categories: %s", strerror(-ret));
	tb_engine_set_timebase(use_counter, counter_hz);
	/* F_CLEAR zeroes the whole buffer: every page is faulted in now */
	ret = tb_engine_start(TRACEBUF_START_CLEAR_ENTIRE, TRACEBUF_ENGINE_F_CLEAR);
	if (ret)
		die("tb_engine_start: %s", strerror(-ret));
}

/* Bytes the engine's cursor has handed out, wraps included. */
static uint64_t engine_bytes(void)
{
	struct tracebuf_engine *e = tb_engine_get();
	uint64_t cur = atomic_load(&e->cursor), off = cur & 0xffffffffu;

	if (off > e->rolling_size)
		off = e->rolling_size;
	return (cur >> 32) * e->rolling_size + off;
}

static uint64_t engine_dropped(void)
{
	struct tb_engine_stats st;

	tb_engine_stats(&st);
	return st.dropped;
}

/* -------------------------------------------------------------------- */
/* The loops                                                            */

static NOINL void fig_disabled(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		TRACEBUF_LIB_INSTANT("bench:off", "disabled", TA_U32("a", i),
				     TA_U64("b", i));
}

/*
 * POSIX Trace (libposixtrace): posix_trace_event() with 8 bytes of data,
 * of an event type its stream records (category "posix:on"), and of one
 * it filters out ("posix:off", not enabled: what an event costs when no
 * stream wants it).  engine_setup() opens the two types.
 */
static NOINL void fig_posix_event(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		posix_trace_event(posix_on, &i, sizeof(i));
}

static NOINL void fig_posix_filtered(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		posix_trace_event(posix_off, &i, sizeof(i));
}

static NOINL void fig_enabled_check(uint64_t n)
{
	uint64_t hits = 0;

	for (uint64_t i = 0; i < n; i++)
		if (TRACEBUF_LIB_ENABLED("bench:off"))
			hits++;
	__asm__ volatile("" : : "r"(hits));
}

static NOINL void fig_instant(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		TRACEBUF_LIB_INSTANT("bench", "instant");
}

/* The same loop, a separate call site, run with CLOCK_MONOTONIC ticks. */
static NOINL void fig_instant_mono(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		TRACEBUF_LIB_INSTANT("bench", "instant");
}

static NOINL void fig_ticks(uint64_t n)
{
	uint64_t sum = 0;

	for (uint64_t i = 0; i < n; i++)
		sum += tracebuf_ticks();
	__asm__ volatile("" : : "r"(sum));
}

static NOINL void fig_duration(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		TRACEBUF_LIB_DURATION_BEGIN("bench", "duration", TA_U32("a", i),
					    TA_U64("b", i));
		TRACEBUF_LIB_DURATION_END("bench", "duration");
	}
}

static NOINL void fig_counter(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		TRACEBUF_LIB_COUNTER("bench", "counter", 1, TA_U64("value", i));
}

/* Floor, per thread: a bump pointer in TLS, kept in memory. */
struct floor_thread {
	_Atomic(uint64_t *) pos;
	_Atomic(uint64_t *) end;
	uint64_t *start;
};

static _Thread_local struct floor_thread floor_self
	__attribute__((tls_model("initial-exec")));
static uint64_t *floor_region;
static atomic_ullong floor_cursor;

static NOINL void fig_floor_pt(uint64_t n)
{
	struct floor_thread *t = &floor_self;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t ticks = tracebuf_ticks();
		uint64_t *p = atomic_load_explicit(&t->pos, memory_order_relaxed);
		uint64_t *end = atomic_load_explicit(&t->end, memory_order_relaxed);

		if (__builtin_expect(end - p < 4, 0))
			p = t->start;
		p[0] = 0x0000000000400024ull;	/* some header */
		p[1] = ticks;
		p[2] = i;
		p[3] = 0;
		atomic_store_explicit(&t->pos, p + 4, memory_order_relaxed);
	}
}

/* Floor, shared: one atomic fetch_add on one cursor per event. */
static NOINL void fig_floor_shared(uint64_t n)
{
	const uint64_t mask = FLOOR_SIZE / 8 - 1;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t ticks = tracebuf_ticks();
		uint64_t w = atomic_fetch_add_explicit(&floor_cursor, 4,
						       memory_order_relaxed) & mask;
		uint64_t *p = floor_region + w;

		p[0] = 0x0000000000400024ull;
		p[1] = ticks;
		p[2] = i;
		p[3] = 0;
	}
}

static NOINL void fig_lttng(uint64_t n)
{
#ifdef TB_BENCH_LTTNG
	tb_bench_lttng_instant(n);
#else
	(void)n;
#endif
}

/* No memory, no sharing: does a second CPU add a CPU's worth of work? */
static NOINL void fig_busy(uint64_t n)
{
	uint64_t x = 88172645463325252ull;

	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	__asm__ volatile("" : : "r"(x));
}

/* The calling thread's floor writes go to slice @slice (of two). */
static void floor_thread_init(unsigned int slice)
{
	uint64_t *start = floor_region + slice * (FLOOR_SIZE / 2 / 8);

	floor_self.start = start;
	atomic_store(&floor_self.pos, start);
	atomic_store(&floor_self.end, start + FLOOR_SIZE / 2 / 8);
}

static void floor_setup(void)
{
	floor_region = map_memfd("tb-bench-floor", FLOOR_SIZE);
	memset(floor_region, 0, FLOOR_SIZE);
	floor_thread_init(0);
}

/* -------------------------------------------------------------------- */
/* Single-thread figures                                                */

struct figure {
	const char *key;
	const char *label;
	void (*fn)(uint64_t n);
	unsigned int record_bytes;	/* per iteration, 0: not tracebuf */
	bool mono;			/* with CLOCK_MONOTONIC ticks */
	bool lttng;
	uint64_t n;
	double ns[MAX_ROUNDS];
	uint64_t bytes, iters, dropped;
};

#define FIG(k, l, f, b, ...)	{ .key = (k), .label = (l), .fn = (f), .record_bytes = (b), \
				  __VA_ARGS__ }

static struct figure figures[] = {
	FIG("floor_pt", "floor: per-thread bump, ticks, 32 B", fig_floor_pt, 0),
	FIG("instant", "instant, no args", fig_instant, 16),
	FIG("floor_shared", "floor: shared fetch_add, ticks, 32 B", fig_floor_shared, 0),
	FIG("lttng", "LTTng-UST tracepoint, no fields", fig_lttng, 0, .lttng = true),
	FIG("duration", "duration begin(2 args)+end, per pair", fig_duration, 56),
	FIG("counter", "counter, 1 arg", fig_counter, 40),
	FIG("disabled", "instant, 2 args, category off", fig_disabled, 0),
	FIG("enabled_check", "TRACEBUF_LIB_ENABLED, category off", fig_enabled_check, 0),
	FIG("posix_event", "posix_trace_event, 8 B of data", fig_posix_event, 80),
	FIG("posix_filtered", "posix_trace_event, filtered out", fig_posix_filtered, 0),
	FIG("instant_mono", "instant, CLOCK_MONOTONIC ticks", fig_instant_mono, 16,
	    .mono = true),
	FIG("ticks", "tracebuf_ticks() alone", fig_ticks, 0),
};
#define NFIGURES (sizeof(figures) / sizeof(figures[0]))

static struct figure *figure(const char *key)
{
	for (unsigned int i = 0; i < NFIGURES; i++)
		if (!strcmp(figures[i].key, key))
			return &figures[i];
	return NULL;
}

static void set_mono(bool mono)
{
	if (use_counter)
		tb_engine_set_timebase(!mono, counter_hz);
}

/* One timed run of @f; returns ns per iteration of thread CPU time. */
static double run_figure(struct figure *f, uint64_t n)
{
	uint64_t b0, d0;
	double t0, t1;

	set_mono(f->mono);
	b0 = engine_bytes();
	d0 = engine_dropped();
	t0 = cpu_ns();
	f->fn(n);
	t1 = cpu_ns();
	if (f->record_bytes) {
		f->bytes += engine_bytes() - b0;
		f->iters += n;
	}
	f->dropped += engine_dropped() - d0;
	set_mono(false);
	return (t1 - t0) / (double)n;
}

/* Iterations for one run of about --run-ms (also warms the call sites). */
static uint64_t calibrate(double (*run)(void *, uint64_t), void *arg)
{
	double target = opt_run_ms * 1e6;
	uint64_t n = 256;

	for (;;) {
		double per = run(arg, n);

		if (per * (double)n > 20e6 || n >= (1ull << 36)) {
			double want = target / (per > 0.01 ? per : 0.01);

			return want < 1000 ? 1000 : (uint64_t)want;
		}
		n *= 4;
	}
}

static double calib_figure(void *arg, uint64_t n)
{
	struct figure *f = arg;
	double per = run_figure(f, n);

	f->bytes = f->iters = f->dropped = 0;
	return per;
}

/* -------------------------------------------------------------------- */
/* Workers for the scaling figures                                      */

struct worker {
	pthread_t th;
	unsigned int idx;
	bool pinned;
	double t0, t1, cpu;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t go, done_cv;
	unsigned int gen, nthreads, done;
	void (*fn)(uint64_t n);
	uint64_t n;
	bool quit;
	atomic_uint arrived;
	struct worker w[NWORKERS];
} pool = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.go = PTHREAD_COND_INITIALIZER,
	.done_cv = PTHREAD_COND_INITIALIZER,
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned int seen = 0;

	w->pinned = pin_to((int)w->idx);
	floor_thread_init(w->idx);
	for (;;) {
		void (*fn)(uint64_t n);
		unsigned int nthreads;
		uint64_t n;
		double c0;

		pthread_mutex_lock(&pool.lock);
		while (pool.gen == seen && !pool.quit)
			pthread_cond_wait(&pool.go, &pool.lock);
		if (pool.quit) {
			pthread_mutex_unlock(&pool.lock);
			return NULL;
		}
		seen = pool.gen;
		fn = pool.fn;
		n = pool.n;
		nthreads = pool.nthreads;
		pthread_mutex_unlock(&pool.lock);
		if (w->idx >= nthreads)
			continue;

		atomic_fetch_add(&pool.arrived, 1);
		while (atomic_load(&pool.arrived) < nthreads)
			cpu_relax();
		c0 = cpu_ns();
		w->t0 = mono_ns();
		fn(n);
		w->t1 = mono_ns();
		w->cpu = cpu_ns() - c0;

		pthread_mutex_lock(&pool.lock);
		pool.done++;
		pthread_cond_signal(&pool.done_cv);
		pthread_mutex_unlock(&pool.lock);
	}
}

/*
 * Run @fn(@n) on workers 0..nthreads-1 at once; returns the aggregate
 * rate (iterations per second of wall time).  @min_share: the lowest
 * CPU-time/wall-time share of a worker; @cpu_ns: the workers' mean CPU
 * time per iteration.
 */
static double pool_run(void (*fn)(uint64_t), uint64_t n, unsigned int nthreads,
		       double *min_share, double *cpu_ns)
{
	double start = 0, end = 0, cpu = 0, share = 1;

	pthread_mutex_lock(&pool.lock);
	pool.fn = fn;
	pool.n = n;
	pool.nthreads = nthreads;
	pool.done = 0;
	atomic_store(&pool.arrived, 0);
	pool.gen++;
	pthread_cond_broadcast(&pool.go);
	while (pool.done < nthreads)
		pthread_cond_wait(&pool.done_cv, &pool.lock);
	pthread_mutex_unlock(&pool.lock);

	for (unsigned int i = 0; i < nthreads; i++) {
		struct worker *w = &pool.w[i];

		if (!i || w->t0 < start)
			start = w->t0;
		if (!i || w->t1 > end)
			end = w->t1;
		if (w->cpu / (w->t1 - w->t0) < share)
			share = w->cpu / (w->t1 - w->t0);
		cpu += w->cpu;
	}
	if (min_share)
		*min_share = share;
	if (cpu_ns)
		*cpu_ns = cpu / nthreads / (double)n;
	return (double)n * nthreads / ((end - start) / 1e9);
}

static void pool_start(void)
{
	for (unsigned int i = 0; i < NWORKERS; i++) {
		pool.w[i].idx = i;
		if (pthread_create(&pool.w[i].th, NULL, worker_main, &pool.w[i]))
			die("pthread_create failed");
	}
}

static void pool_stop(void)
{
	pthread_mutex_lock(&pool.lock);
	pool.quit = true;
	pthread_cond_broadcast(&pool.go);
	pthread_mutex_unlock(&pool.lock);
	for (unsigned int i = 0; i < NWORKERS; i++)
		pthread_join(pool.w[i].th, NULL);
}

struct pool_job {
	void (*fn)(uint64_t n);
};

static double calib_pool(void *arg, uint64_t n)
{
	const struct pool_job *job = arg;

	return 1e9 / pool_run(job->fn, n, 1, NULL, NULL);
}

/* -------------------------------------------------------------------- */
/* Results                                                              */

static FILE *results;

static void put_result(const char *key, const double *v, unsigned int n)
{
	double s[3];

	stats3(v, n, s);
	if (results)
		fprintf(results, "%s %.4f %.4f %.4f\n", key, s[0], s[1], s[2]);
}

static void print_line(const char *label, const double *v, unsigned int n,
		       const char *unit, const char *extra)
{
	double s[3];

	stats3(v, n, s);
	printf("  %-40s %8.2f %-2s [%7.2f .. %7.2f]%s\n", label, s[0], unit,
	       s[1], s[2], extra);
}

/* print_line() a figure, and put_result() it as @key. */
static void show(const char *label, const char *key, const double *v, unsigned int n,
		 const char *unit)
{
	print_line(label, v, n, unit, "");
	put_result(key, v, n);
}

/*
 * Two threads vs one.  A round measures each loop on one worker, then on
 * two; it counts as quiet when both controls (busy loop, floor) reached
 * QUIET_SCALING and every thread of the 2-thread runs got QUIET_SHARE of
 * its wall time as CPU time: the machine really lent us two CPUs.  Noisy
 * rounds are run again, up to --rounds more; the medians are over the
 * quiet rounds when at least half of --rounds were quiet, else over all
 * rounds and the figure is flagged.
 */
#define QUIET_SCALING	1.8
#define QUIET_SHARE	0.9
#define SCALE_MAX	(2 * MAX_ROUNDS)

struct scale_fig {
	const char *key;
	const char *label;
	void (*fn)(uint64_t n);
	uint64_t n;
	double rate1[SCALE_MAX], rate2[SCALE_MAX], ratio[SCALE_MAX], share[SCALE_MAX];
	double cpu_ratio[SCALE_MAX];	/* CPU time per iteration, 2 threads / 1 */
};

static struct scale_fig scales[] = {
	{ .key = "scale_tb", .label = "tracebuf instant", .fn = fig_instant },
	{ .key = "scale_floor", .label = "floor, per-thread", .fn = fig_floor_pt },
	{ .key = "scale_busy", .label = "busy loop", .fn = fig_busy },
};
#define NSCALES (sizeof(scales) / sizeof(scales[0]))

static void measure_scaling(void)
{
	double rel[SCALE_MAX], v1[SCALE_MAX], v2[SCALE_MAX], vr[SCALE_MAX];
	double min_share[NSCALES];
	unsigned long long tot0, st0, tot1, st1;
	unsigned int quiet[SCALE_MAX], nquiet = 0, total = 0, nused, *used;
	unsigned int all[SCALE_MAX];
	uint64_t d0, dropped;
	char key[64];
	bool noisy;

	pool_start();
	for (unsigned int i = 0; i < NSCALES; i++)
		scales[i].n = calibrate(calib_pool, &(struct pool_job){ scales[i].fn });
	pool_run(fig_instant, scales[0].n / 4, 2, NULL, NULL);	/* worker 1 registers */
	for (unsigned int i = 0; i < NWORKERS; i++)
		if (!pool.w[i].pinned)
			printf("  warning: could not pin worker %u to CPU %u\n", i, i);
	d0 = engine_dropped();
	cpu_steal(&tot0, &st0);
	while (nquiet < opt_rounds && total < 2 * opt_rounds) {
		unsigned int r = total++;
		bool ok = true;

		for (unsigned int i = 0; i < NSCALES; i++) {
			struct scale_fig *s = &scales[i];

			double c1, c2;

			s->rate1[r] = pool_run(s->fn, s->n, 1, NULL, &c1) / 1e6;
			s->rate2[r] = pool_run(s->fn, s->n, 2, &s->share[r], &c2) / 1e6;
			s->ratio[r] = s->rate2[r] / s->rate1[r];
			s->cpu_ratio[r] = c2 / c1;
			if (s->share[r] < QUIET_SHARE ||
			    (s->fn != fig_instant && s->ratio[r] < QUIET_SCALING))
				ok = false;
		}
		rel[r] = scales[0].ratio[r] / scales[1].ratio[r];
		all[r] = r;
		if (ok)
			quiet[nquiet++] = r;
		fprintf(stderr, "tb-bench: scaling round %u: %s (tracebuf %.2fx, floor %.2fx, busy %.2fx)\n",
			total, ok ? "quiet" : "noisy", scales[0].ratio[r], scales[1].ratio[r],
			scales[2].ratio[r]);
	}
	cpu_steal(&tot1, &st1);
	dropped = engine_dropped() - d0;
	pool_stop();

	noisy = nquiet < (opt_rounds + 1) / 2;
	used = noisy ? all : quiet;
	nused = noisy ? total : nquiet;
	printf("\nTwo threads on CPU 0 and 1 vs one on CPU 0, million loops per second of wall time,\n"
	       "median [min .. max] of the %u %s rounds (%u quiet of %u run):\n",
	       nused, noisy ? "(all: too few quiet)" : "quiet", nquiet, total);
	for (unsigned int i = 0; i < NSCALES; i++) {
		struct scale_fig *s = &scales[i];
		char label[64];

		min_share[i] = 1;
		for (unsigned int j = 0; j < nused; j++) {
			v1[j] = s->rate1[used[j]];
			v2[j] = s->rate2[used[j]];
			vr[j] = s->ratio[used[j]];
			if (s->share[used[j]] < min_share[i])
				min_share[i] = s->share[used[j]];
		}
		snprintf(label, sizeof(label), "%s, 1 thread", s->label);
		print_line(label, v1, nused, "M", "");
		snprintf(label, sizeof(label), "%s, 2 threads", s->label);
		print_line(label, v2, nused, "M",
			   i == 0 && dropped ? "  RECORDS DROPPED" : "");
		snprintf(label, sizeof(label), "%s, 2 threads / 1", s->label);
		print_line(label, vr, nused, "x", "");
		snprintf(key, sizeof(key), "ratio.%s", s->key);
		put_result(key, vr, nused);
		if (s->fn == fig_busy)
			continue;
		for (unsigned int j = 0; j < nused; j++)
			vr[j] = s->cpu_ratio[used[j]];
		snprintf(label, sizeof(label), "%s, CPU/iteration 2 / 1", s->label);
		print_line(label, vr, nused, "x", "");
		snprintf(key, sizeof(key), "ratio.%s_cpu", s->key);
		put_result(key, vr, nused);
	}
	for (unsigned int j = 0; j < nused; j++)
		vr[j] = rel[used[j]];
	show("tracebuf scaling / floor scaling", "ratio.scale_tb_floor", vr, nused, "x");
	printf("  lowest CPU-time/wall share of a thread in a 2-thread run: "
	       "tracebuf %.2f, floor %.2f, busy %.2f\n",
	       min_share[0], min_share[1], min_share[2]);
	if (tot1 > tot0)
		printf("  steal time during the scaling runs: %.1f%% of all CPU time\n",
		       100.0 * (double)(st1 - st0) / (double)(tot1 - tot0));
	if (results)
		fprintf(results, "dropped.scale %llu\nscale_rounds %u %u %d\n",
			(unsigned long long)dropped, nquiet, total, noisy);
}

/* -------------------------------------------------------------------- */
/* The manager's save path                                              */

#define SAVE_DATA	(32u << 20)	/* the records saved, per run */
#define SAVE_ROLLING	(512u << 10)	/* a 1 MiB streaming buffer's */
/*
 * Pairs of runs a round: a run takes some 10 ms, and on a shared machine
 * one in a few is slowed by what else runs (its caches, its CPU time),
 * which 7 pairs in all do not outvote.
 */
#define SAVE_PAIRS	8

/* One run (t_save_run()) to a fresh memfd: ns of thread CPU time per MiB. */
static double save_run(const uint8_t *data, bool walk)
{
	int fd = memfd_create("tb-bench-save", MFD_CLOEXEC);
	double t;

	if (fd < 0)
		die("save run: %s", strerror(errno));
	t = t_save_run(fd, data, SAVE_DATA, SAVE_ROLLING, walk);
	if (t < 0)
		die("save run: %s", strerror((int)-t));
	close(fd);
	return t * 1e9 / (SAVE_DATA / SAVE_ROLLING * t_save_len(SAVE_ROLLING) / 1048576.0);
}

static void measure_save(void)
{
	/* stats3() takes at most 2 * MAX_ROUNDS */
	unsigned int runs = SAVE_PAIRS * opt_rounds < 2 * MAX_ROUNDS ?
			    SAVE_PAIRS * opt_rounds : 2 * MAX_ROUNDS;
	double walk[2 * MAX_ROUNDS], plain[2 * MAX_ROUNDS], ratio[2 * MAX_ROUNDS];
	uint8_t *data = t_save_records(SAVE_DATA, SAVE_ROLLING);

	if (!data)
		die("out of memory");
	save_run(data, true);	/* warm: the page cache, the code */
	save_run(data, false);
	for (unsigned int r = 0; r < runs; r++) {
		walk[r] = save_run(data, true) / 1e6;
		plain[r] = save_run(data, false) / 1e6;
		ratio[r] = walk[r] / plain[r];
	}
	free(data);
	printf("\nThe manager's save path without the module: %u MiB of begin, instant (u32), end\n"
	       "records in %u KiB chunks, each padded at its end as the engine pads it, %u KiB\n"
	       "at a time, checked and written by tb_readout_keep(), next to a plain\n"
	       "write() of them, to a memfd, by turns; ms of CPU time per MiB, %u runs each:\n",
	       SAVE_DATA >> 20, TRACEBUF_CHUNK_SIZE >> 10, SAVE_ROLLING >> 10, runs);
	show("save path (walk and write)", "fig.save_walk", walk, runs, "ms");
	show("plain write()", "fig.save_plain", plain, runs, "ms");
	show("save path / plain write()", "ratio.save_plain", ratio, runs, "x");
}

/* -------------------------------------------------------------------- */
/* Measuring                                                            */

static int measure(void)
{
	double r_floor[MAX_ROUNDS], r_floor_sh[MAX_ROUNDS], r_lttng[MAX_ROUNDS];
	double r_posix[MAX_ROUNDS], r_posix_off[MAX_ROUNDS];
	unsigned int rounds = opt_rounds;
	struct figure *inst = figure("instant");
	const char *emulated;
	char model[256];
	double t_begin = mono_ns();

	cpu_model(model, sizeof(model));
	choose_timebase();
	printf("tb-bench: %s, %ld CPUs online; ticks: %s", model,
	       sysconf(_SC_NPROCESSORS_ONLN), !use_counter ? "CLOCK_MONOTONIC (ns)" :
	       TRACEBUF_LIB_CPU_COUNTER == TRACEBUF_LIB_CPU_COUNTER_TSC ? "TSC" : "CNTVCT");
	if (use_counter && counter_hz >= 1000000000)
		printf(" at %.3f GHz", (double)counter_hz / 1e9);
	else if (use_counter)
		printf(" at %.3f MHz", (double)counter_hz / 1e6);
	printf("\n  engine: CIRCULAR over a %u MiB memfd, MAP_SHARED; %u rounds of ~%u ms per figure\n",
	       BUF_SIZE >> 20, rounds, opt_run_ms);
	emulated = detect_emulation();
	if (emulated) {
		printf("  warning: the CPU is emulated (%s): timings under emulation mean nothing\n",
		       emulated);
		if (results)
			fprintf(results, "emulated %s\n", emulated);
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		die("needs 2 CPUs for the scaling figures");

	if (!pin_to(0))
		printf("  warning: could not pin the main thread to CPU 0\n");
	engine_setup();
	floor_setup();
#ifdef TB_BENCH_LTTNG
	lttng_on = tb_bench_lttng_enabled();
	printf("  LTTng-UST: %s\n", lttng_on ? "tb_bench:instant enabled by a session" :
	       "built in, but no session enabled tb_bench:instant: not measured");
#else
	printf("  LTTng-UST: not built in: not measured\n");
#endif
	fflush(stdout);

	/* Calibrate (and warm up: site lookups, thread registration). */
	for (unsigned int i = 0; i < NFIGURES; i++) {
		struct figure *f = &figures[i];

		if (f->lttng && !lttng_on)
			continue;
		f->n = calibrate(calib_figure, f);
	}

	for (unsigned int r = 0; r < rounds; r++) {
		for (unsigned int i = 0; i < NFIGURES; i++) {
			struct figure *f = &figures[i];

			if (f->lttng && !lttng_on)
				continue;
			f->ns[r] = run_figure(f, f->n);
		}
		r_floor[r] = inst->ns[r] / figure("floor_pt")->ns[r];
		r_floor_sh[r] = inst->ns[r] / figure("floor_shared")->ns[r];
		r_posix[r] = figure("posix_event")->ns[r] / inst->ns[r];
		r_posix_off[r] = figure("posix_filtered")->ns[r] / figure("disabled")->ns[r];
		if (lttng_on)
			r_lttng[r] = figure("lttng")->ns[r] / inst->ns[r];
		fprintf(stderr, "tb-bench: round %u/%u done\n", r + 1, rounds);
	}

	printf("\nSingle thread, CPU 0, ns per event (thread CPU time), median [min .. max] of %u runs:\n",
	       rounds);
	for (unsigned int i = 0; i < NFIGURES; i++) {
		struct figure *f = &figures[i];
		char extra[160] = "";

		if (f->lttng && !lttng_on)
			continue;
		if (f->record_bytes) {
			double per = (double)f->bytes / (double)f->iters;

			snprintf(extra, sizeof(extra), "  %.1f B/ev (record %u)%s", per,
				 f->record_bytes,
				 per < f->record_bytes || per > f->record_bytes * 1.05 ?
				 "  <- NOT the record size: fast path not taken?" : "");
		}
		if (f->dropped)
			snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
				 "  %llu DROPPED", (unsigned long long)f->dropped);
		print_line(f->label, f->ns, rounds, "ns", extra);
		snprintf(extra, sizeof(extra), "fig.%s", f->key);
		put_result(extra, f->ns, rounds);
		if (f->record_bytes && results)
			fprintf(results, "dropped.%s %llu\n", f->key,
				(unsigned long long)f->dropped);
	}
	show("instant / floor (per-thread)", "ratio.instant_floor", r_floor, rounds, "x");
	show("instant / floor (shared fetch_add)", "ratio.instant_floor_shared", r_floor_sh,
	     rounds, "x");
	show("posix_trace_event / instant", "ratio.posix_instant", r_posix, rounds, "x");
	show("posix_trace_event filtered / disabled", "ratio.posix_filtered_disabled",
	     r_posix_off, rounds, "x");
	if (lttng_on) {
		uint64_t events = figure("lttng")->n * rounds;

		show("LTTng-UST / instant", "ratio.lttng_instant", r_lttng, rounds, "x");
		if (results)
			fprintf(results, "lttng_events %llu\n", (unsigned long long)events);
	}
	fflush(stdout);

	measure_scaling();
	measure_save();

	tb_engine_stop();
	printf("  engine: %u wraps of the rolling buffers in all; %llu records dropped\n",
	       tb_engine_get()->hdr->wrapped_count,
	       (unsigned long long)engine_dropped());
	printf("  measured in %.1f s\n", (mono_ns() - t_begin) / 1e9);
	return 0;
}

/* -------------------------------------------------------------------- */
/* Instructions per event, under callgrind                              */

/*
 * The figures whose instructions are counted, each a loop of INSNS_N
 * calls after a warm-up of INSNS_WARM (site lookups, thread registration,
 * the first chunk): the loop's own increment, compare and branch are in
 * every figure, the floor's too.
 */
#define INSNS_WARM	1000
#define INSNS_N		100000

static const char *const insns_keys[] = {
	"floor_pt", "ticks", "instant", "duration", "counter", "posix_event", "disabled",
};

/*
 * Run under "valgrind --tool=callgrind": each figure's loop between a
 * zeroing of the counts and a dump named "insns.KEY N" (scripts/bench.sh
 * reads the dumps' totals).  The engine is set up as for the timings.
 */
static int measure_insns(void)
{
#if HAVE_CALLGRIND
	char name[64];

	if (!RUNNING_ON_VALGRIND)
		die("--insns counts instructions only under valgrind --tool=callgrind");
	choose_timebase();
	engine_setup();
	floor_setup();
	for (size_t i = 0; i < sizeof(insns_keys) / sizeof(insns_keys[0]); i++) {
		struct figure *f = figure(insns_keys[i]);
		uint64_t d0 = engine_dropped();

		f->fn(INSNS_WARM);
		snprintf(name, sizeof(name), "insns.%s %u", f->key, INSNS_N);
		CALLGRIND_ZERO_STATS;
		f->fn(INSNS_N);
		CALLGRIND_DUMP_STATS_AT(name);
		if (engine_dropped() != d0)
			die("%s: %llu records dropped under callgrind", f->key,
			    (unsigned long long)(engine_dropped() - d0));
	}
	tb_engine_stop();
	return 0;
#else
	die("--insns: built without valgrind/callgrind.h (Debian package valgrind)");
	return 2;
#endif
}

/* -------------------------------------------------------------------- */
/* The final table                                                      */

#define MAX_KEYS 64

static struct {
	char key[64];
	char text[128];
	double v[3];
	int nv;
} kv[MAX_KEYS];
static unsigned int nkv;

static void load_results(const char *path)
{
	char line[256];
	FILE *f = fopen(path, "re");

	if (!f)
		die("cannot read %s: %s", path, strerror(errno));
	while (nkv < MAX_KEYS && fgets(line, sizeof(line), f)) {
		char *val = strchr(line, ' ');

		line[strcspn(line, "\n")] = '\0';
		if (!val)
			continue;
		*val++ = '\0';
		snprintf(kv[nkv].key, sizeof(kv[nkv].key), "%.63s", line);
		snprintf(kv[nkv].text, sizeof(kv[nkv].text), "%.127s", val);
		kv[nkv].nv = sscanf(val, "%lf %lf %lf", &kv[nkv].v[0], &kv[nkv].v[1],
				    &kv[nkv].v[2]);
		nkv++;
	}
	fclose(f);
}

static int find_kv(const char *key)
{
	for (int i = (int)nkv - 1; i >= 0; i--)
		if (!strcmp(kv[i].key, key))
			return i;
	return -1;
}

struct row {
	const char *label;
	const char *key;
	const char *unit;
	char cmp;		/* '<': at most, '>': at least, 0: no target */
	double target;
	bool lttng;
};

#define ROW(l, k, u, c, t)	{ .label = (l), .key = (k), .unit = (u), .cmp = (c), .target = (t) }
#define LROW(l, k, u, c, t)	{ .label = (l), .key = (k), .unit = (u), .cmp = (c), .target = (t), \
				  .lttng = true }

static const struct row rows[] = {
	ROW("disabled: instant, category off", "fig.disabled", "ns", '<', 1),
	ROW("disabled: TRACEBUF_LIB_ENABLED", "fig.enabled_check", "ns", '<', 1),
	ROW("instant, no args", "fig.instant", "ns", '<', 15),
	ROW("instant / floor (per-thread)", "ratio.instant_floor", "x", '<', 1.1),
	ROW("posix_trace_event / instant", "ratio.posix_instant", "x", '<', 1.5),
	LROW("LTTng-UST / instant", "ratio.lttng_instant", "x", '>', 6),
	ROW("duration begin+end, 2 args, pair", "fig.duration", "ns", '<', 40),
	ROW("counter, 1 arg", "fig.counter", "ns", 0, 0),
	ROW("2 threads / 1, tracebuf instant", "ratio.scale_tb", "x", '>', 1.7),
	ROW("2 threads / 1, busy loop (control)", "ratio.scale_busy", "x", 0, 0),
	ROW("2 threads / 1, floor (control)", "ratio.scale_floor", "x", 0, 0),
	ROW("tracebuf scaling / floor scaling", "ratio.scale_tb_floor", "x", 0, 0),
	ROW("CPU time/event, 2 thr / 1, tracebuf", "ratio.scale_tb_cpu", "x", 0, 0),
	ROW("CPU time/event, 2 thr / 1, floor", "ratio.scale_floor_cpu", "x", 0, 0),
	ROW("floor: per-thread bump+ticks+32 B", "fig.floor_pt", "ns", 0, 0),
	ROW("floor: shared fetch_add+ticks+32 B", "fig.floor_shared", "ns", 0, 0),
	ROW("instant / floor (shared fetch_add)", "ratio.instant_floor_shared", "x", 0, 0),
	LROW("LTTng-UST tracepoint, no fields", "fig.lttng", "ns", 0, 0),
	ROW("posix_trace_event, 8 B of data", "fig.posix_event", "ns", 0, 0),
	ROW("posix_trace_event, filtered out", "fig.posix_filtered", "ns", 0, 0),
	ROW("posix filtered out / disabled", "ratio.posix_filtered_disabled", "x", 0, 0),
	ROW("instant, CLOCK_MONOTONIC ticks", "fig.instant_mono", "ns", 0, 0),
	ROW("tracebuf_ticks() alone", "fig.ticks", "ns", 0, 0),
	ROW("instructions: floor (per-thread)", "insns.floor_pt", "i", 0, 0),
	ROW("instructions: tracebuf_ticks()", "insns.ticks", "i", 0, 0),
	ROW("instructions: instant, no args", "insns.instant", "i", 0, 0),
	ROW("instructions: duration pair, 2 args", "insns.duration", "i", 0, 0),
	ROW("instructions: counter, 1 arg", "insns.counter", "i", 0, 0),
	ROW("instructions: posix_trace_event, 8 B", "insns.posix_event", "i", 0, 0),
	ROW("instructions: instant, category off", "insns.disabled", "i", 0, 0),
	ROW("save path / plain write()", "ratio.save_plain", "x", '<', 1.15),
	ROW("save path, per MiB", "fig.save_walk", "ms", 0, 0),
	ROW("plain write(), per MiB", "fig.save_plain", "ms", 0, 0),
};

static int report(const char *path)
{
	int i_disc, i_setup, i_ev, i_size, i_scale, i_emu, met = 0, missed = 0, absent = 0;
	long long discarded = -1;
	const char *lttng_bad = NULL;
	char why[160];

	load_results(path);
	i_disc = find_kv("lttng_discarded");
	i_setup = find_kv("lttng_setup");
	i_ev = find_kv("lttng_events");
	i_size = find_kv("lttng_trace_bytes");
	if (i_disc >= 0 && kv[i_disc].nv >= 1)
		discarded = (long long)kv[i_disc].v[0];
	if (i_setup >= 0 && strcmp(kv[i_setup].text, "ok")) {
		snprintf(why, sizeof(why), "LTTng: %s", kv[i_setup].text);
		lttng_bad = why;
	} else if (find_kv("fig.lttng") < 0) {
		lttng_bad = "LTTng: not measured (no session enabled the tracepoint)";
	} else if (discarded < 0) {
		lttng_bad = "LTTng: the channel's discarded-event count is unknown";
	} else if (discarded > 0) {
		snprintf(why, sizeof(why), "LTTng: INVALID, the channel discarded %lld events",
			 discarded);
		lttng_bad = why;
	}

	printf("\n%-36s %9s  %-19s %-8s %s\n", "figure", "median", "[min .. max]",
	       "target", "result");
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		const struct row *w = &rows[r];
		int i = find_kv(w->key);
		char target[16] = "-", range[40] = "", med[24] = "n/a";
		const char *res;

		if (w->cmp)
			snprintf(target, sizeof(target), "%s %g%s", w->cmp == '<' ? "<=" : ">=",
				 w->target, w->unit);
		if (i >= 0 && kv[i].nv == 3) {
			snprintf(med, sizeof(med), "%.2f%s", kv[i].v[0], w->unit);
			snprintf(range, sizeof(range), "[%.2f .. %.2f]", kv[i].v[1], kv[i].v[2]);
		}
		if (i < 0 || kv[i].nv != 3) {
			res = "NOT MEASURED";
			absent += w->cmp != 0;
		} else if (w->lttng && lttng_bad) {
			res = "INVALID";
			absent += w->cmp != 0;
		} else if (!w->cmp) {
			res = "info";
		} else if (w->cmp == '<' ? kv[i].v[0] <= w->target : kv[i].v[0] >= w->target) {
			res = "PASS";
			met++;
		} else {
			res = "MISS";
			missed++;
		}
		printf("%-36s %9s  %-19s %-8s %s\n", w->label, med, range, target, res);
	}
	printf("\nLTTng discarded events: %s", discarded < 0 ? "unknown" : "");
	if (discarded >= 0)
		printf("%lld", discarded);
	if (i_ev >= 0 && i_size >= 0 && kv[i_ev].v[0] > 0)
		printf(" (%.0f events fired in the measured runs; trace on disk %.1f MiB)",
		       kv[i_ev].v[0], kv[i_size].v[0] / 1048576.0);
	printf("\n");
	for (unsigned int i = 0; i < nkv; i++)
		if (!strncmp(kv[i].key, "dropped.", 8) && kv[i].nv >= 1 && kv[i].v[0] > 0)
			printf("tracebuf dropped records in %s runs: %.0f (circular mode should drop none)\n",
			       kv[i].key + 8, kv[i].v[0]);
	i_scale = find_kv("scale_rounds");
	if (i_scale >= 0 && kv[i_scale].nv == 3)
		printf("scaling: %.0f of %.0f rounds quiet "
		       "(both controls >= %.1fx, every thread >= %.0f%% CPU)%s\n",
		       kv[i_scale].v[0], kv[i_scale].v[1], QUIET_SCALING, QUIET_SHARE * 100,
		       kv[i_scale].v[2] ? ": too few, the medians are over all rounds and "
		       "say more about the machine than about tracebuf" : "");
	printf("targets: %d met, %d missed, %d not measured\n", met, missed, absent);
	if (lttng_bad)
		printf("%s\n", lttng_bad);
	i_emu = find_kv("emulated");
	if (i_emu >= 0)
		printf("WARNING: measured on an emulated CPU (%s): these timings mean nothing\n",
		       kv[i_emu].text);
	return absent ? 1 : 0;
}

/* -------------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr, "usage: tb-bench [--rounds N] [--run-ms MS] [--results FILE]\n"
		"       tb-bench --insns\n"
		"       tb-bench --report FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--report") && v)
			return report(v);
		if (!strcmp(a, "--insns") && argc == 2)
			return measure_insns();
		if (!strcmp(a, "--rounds") && v)
			opt_rounds = (unsigned int)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--run-ms") && v)
			opt_run_ms = (unsigned int)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--results") && v)
			opt_results = v;
		else
			usage();
		i++;
	}
	if (!opt_rounds || opt_rounds > MAX_ROUNDS || !opt_run_ms)
		usage();
	if (opt_results) {
		results = fopen(opt_results, "we");
		if (!results)
			die("cannot write %s: %s", opt_results, strerror(errno));
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	measure();
	if (results && fclose(results))
		die("writing %s failed", opt_results);
	return 0;
}
