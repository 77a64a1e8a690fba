// SPDX-License-Identifier: MIT
/*
 * The kill soak, in the test VM: cycle after cycle, providers writing at
 * full speed (tb-seqprov, some registered before the session, some
 * started by it with "record -- COMMAND") and "tracebufctl record" tracing
 * them in oneshot, circular and streaming mode, and at a random moment
 * SIGKILL the manager, the providers, both, or neither.
 *
 * After each cycle: a record that finished exited with a documented
 * status and wrote a trace that "tracebufctl dump" decodes, and once every
 * process of the cycle is gone the module holds nothing for anyone
 * (debugfs tracebuf/users as before the soak): no provider is stuck.
 * The runner then unloads the module and, on the debug kernel, scans
 * with kmemleak.
 *
 * TB_SOAK_CYCLES sets the number of cycles (default 12; "make soak" runs
 * 1000), TB_SOAK_SEED the seed (default: from the clock; printed).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ktap.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <elf.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>

#include "vmtest.h"

#define USERS		"/sys/kernel/debug/tracebuf/users"
#define CYCLES		12
/*
 * A record that has not ended by then is stuck (they take a few seconds
 * at most, on the debug kernel too); with IDLE_MAX_S well within the
 * runner's 180 s per program, so that what is found gets printed.
 */
#define RECORD_MAX_S	60
#define IDLE_MAX_S	20	/* the module is idle this long after a cycle */

static uint64_t g_rng;

static uint32_t rnd(uint32_t n)
{
	/* xorshift64* */
	g_rng ^= g_rng >> 12;
	g_rng ^= g_rng << 25;
	g_rng ^= g_rng >> 27;
	return n ? (uint32_t)((g_rng * 0x2545f4914f6cdd1dULL) >> 32) % n : 0;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* A number from the environment, def if unset; false if not a number. */
static bool env_u64(const char *name, uint64_t def, uint64_t *v)
{
	const char *s = getenv(name);
	char *end;

	*v = def;
	if (!s || !*s)
		return true;
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || *end) {
		printf("# %s=%s is not a number\n", name, s);
		return false;
	}
	return true;
}

/* argv (argv[0] a program beside this test) in a process group of its own. */
static pid_t spawn(const char *const *argv, const char *err)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		int efd = err ? open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) : null;

		setpgid(0, 0);
		dup2(null, 0);
		dup2(null, 1);
		dup2(efd, 2);
		execv(prog_path(argv[0]), (char *const *)argv);
		_exit(127);
	}
	if (pid > 0)
		setpgid(pid, pid);
	return pid;
}

/* Reap every child (we are their subreaper) until none is left or s seconds. */
static bool reap_all(unsigned int s)
{
	double t0 = t_now();

	for (;;) {
		pid_t pid = waitpid(-1, NULL, WNOHANG);

		if (pid < 0)
			return true;
		if (!pid) {
			if (t_now() - t0 > s)
				return false;
			sleep_ms(10);
		}
	}
}

/*
 * What the processes of group @pgrp wait for: "pid comm state wchan" and
 * the top of the kernel stack of each, into @buf, for a stuck record.
 */
static void group_state(pid_t pgrp, char *buf, size_t len)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t used = 0;

	buf[0] = 0;
	while (d && (e = readdir(d)) && used + 1 < len) {
		char p[64], stat[512], wchan[64], stack[512], *c;
		long pid = strtol(e->d_name, NULL, 10), grp;
		char state;

		snprintf(p, sizeof(p), "/proc/%ld/stat", pid);
		if (pid <= 0 || read_file(p, stat, sizeof(stat)) || !(c = strrchr(stat, ')')) ||
		    sscanf(c + 1, " %c %*d %ld", &state, &grp) != 2 || grp != pgrp)
			continue;
		snprintf(p, sizeof(p), "/proc/%ld/wchan", pid);
		if (read_file(p, wchan, sizeof(wchan)))
			wchan[0] = 0;
		snprintf(p, sizeof(p), "/proc/%ld/stack", pid);
		if (read_file(p, stack, sizeof(stack)))
			stack[0] = 0;
		for (c = stack; (c = strchr(c, '\n')); )
			*c = '|';
		used += snprintf(buf + used, len - used, "\n#   %ld %.*s %c %s: %.200s", pid,
				 (int)(strchr(stat, ')') - strchr(stat, '(') + 1),
				 strchr(stat, '('), state, wchan, stack);
	}
	if (d)
		closedir(d);
}

/*
 * Where a process spinning in user space is: its program counter (and
 * link register on arm64), sampled @n times with ptrace, for addr2line
 * on the static binary.  @pid must be our child.
 */
static void user_pcs(pid_t pid, unsigned int n, char *buf, size_t len)
{
	size_t used = snprintf(buf, len, "\n#   pid %d user pc:", (int)pid);

#if defined(__aarch64__) || defined(__x86_64__) || defined(__i386__)
	for (unsigned int i = 0; i < n && used + 1 < len; i++) {
		struct user_regs_struct regs;
		struct iovec io = { &regs, sizeof(regs) };
		int st;

		if (ptrace(PTRACE_SEIZE, pid, 0, 0) || ptrace(PTRACE_INTERRUPT, pid, 0, 0) ||
		    waitpid(pid, &st, __WALL) != pid || !WIFSTOPPED(st)) {
			used += snprintf(buf + used, len - used, " (ptrace: %s)", strerror(errno));
			return;
		}
		if (!ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &io)) {
#if defined(__aarch64__)
			used += snprintf(buf + used, len - used, " %#llx<-%#llx",
					 (unsigned long long)regs.pc,
					 (unsigned long long)regs.regs[30]);
#elif defined(__x86_64__)
			used += snprintf(buf + used, len - used, " %#llx",
					 (unsigned long long)regs.rip);
#else
			used += snprintf(buf + used, len - used, " %#lx", (unsigned long)regs.eip);
#endif
		}
		ptrace(PTRACE_DETACH, pid, 0, 0);
		sleep_ms(20);
	}
#else
	(void)n;
	snprintf(buf + used, len - used, " (not sampled on this architecture)");
#endif
}

struct soak {
	unsigned int cycles, finished, killed_mgr, killed_prov, decoded;
	unsigned int status[256];
	unsigned int bad;
	/* the slowest cycle: what it was, how long each part took */
	double slowest;
	char slowest_what[160];
};

static void bad(struct soak *s, unsigned int cycle, const char *what, const char *detail)
{
	if (s->bad++ < 5) {
		printf("# cycle %u: %s%s%s\n", cycle, what, detail ? ": " : "",
		       detail ? detail : "");
		/* now: a runner's timeout may end us before the summary */
		fflush(stdout);
	}
}

static void cycle(struct soak *s, unsigned int c, const char *baseline)
{
	static const char *const modes[] = { "oneshot", "circular", "streaming" };
	char events[16], procs[16], dur[16], detail[4096];
	const char *fxt = path("soak.fxt"), *err = path("record.err");
	const char *argv[24];
	pid_t pre[2] = { 0, 0 }, rec;
	unsigned int npre = rnd(3), action = rnd(6), n = 0;
	bool with_command = rnd(2), rec_killed = false;
	int status = 0;
	double t0, t_start, t_rec, t_dump, t_reap, t_idle;

	unlink(fxt);
	for (unsigned int i = 0; i < npre; i++) {
		const char *pv[] = { "tb-seqprov", "-n", "4000000000", "-N", "soak-pre", NULL };

		pre[i] = spawn(pv, NULL);
	}
	sleep_ms(rnd(200));

	snprintf(dur, sizeof(dur), "%ums", 300 + rnd(1200));
	argv[n++] = "tracebufctl";
	argv[n++] = "record";
	argv[n++] = "-q";
	argv[n++] = "-m";
	argv[n++] = modes[c % 3];
	argv[n++] = "-b";
	argv[n++] = rnd(2) ? "64K" : "16K";
	argv[n++] = "-o";
	argv[n++] = fxt;
	if (with_command) {
		snprintf(procs, sizeof(procs), "%u", 1 + rnd(2));
		/*
		 * Enough for many streaming saves of 16 KiB buffers; more
		 * only makes "dump" slow (8 s for 100,000 records in an
		 * emulated arm64 guest), not the kill more searching.
		 */
		snprintf(events, sizeof(events), "%u", 1000 + rnd(20000));
		argv[n++] = "--";
		argv[n++] = prog_path("tb-seqprov");
		argv[n++] = "-P";
		argv[n++] = procs;
		argv[n++] = "-n";
		argv[n++] = events;
	} else {
		argv[n++] = "-d";
		argv[n++] = dur;
	}
	argv[n] = NULL;
	rec = spawn(argv, err);

	/* the kill: 0 manager, 1 pre-registered providers, 2 both, else none */
	sleep_ms(50 + rnd(1200));
	if (action == 0 || action == 2) {
		kill(-rec, SIGKILL);	/* with COMMAND's providers */
		s->killed_mgr++;
	}
	if ((action == 1 || action == 2) && npre) {
		for (unsigned int i = 0; i < npre; i++)
			kill(-pre[i], SIGKILL);
		s->killed_prov++;
	}

	t_start = t_now();
	t0 = t_start;
	while (waitpid(rec, &status, WNOHANG) == 0) {
		if (t_now() - t0 > RECORD_MAX_S) {
			group_state(rec, detail, sizeof(detail));
			user_pcs(rec, 8, detail + strlen(detail), sizeof(detail) - strlen(detail));
			bad(s, c, "record did not end", detail);
			kill(-rec, SIGKILL);
			waitpid(rec, &status, 0);
			break;
		}
		sleep_ms(10);
	}
	t_rec = t_now();
	rec_killed = WIFSIGNALED(status);
	if (!rec_killed) {
		int rc = WEXITSTATUS(status);
		const char *dv[] = { "tracebufctl", "dump", fxt, NULL };
		char out[256];

		s->finished++;
		s->status[rc]++;
		if (rc == 1 || rc == 127 || (rc > 7 && rc != 128 + SIGKILL)) {
			read_file(err, detail, sizeof(detail));
			bad(s, c, "record failed", detail);
		} else if (access(fxt, F_OK)) {
			snprintf(detail, sizeof(detail), "exit %d", rc);
			bad(s, c, "record finished without a trace", detail);
		} else {
			if (run(dv, out, sizeof(out), detail, sizeof(detail), 0))
				bad(s, c, "the trace does not decode", fxt);
			else
				s->decoded++;
		}
	}

	t_dump = t_now();
	/* the cycle's processes, all of them, and then nothing held */
	for (unsigned int i = 0; i < npre; i++)
		kill(-pre[i], SIGKILL);
	kill(-rec, SIGKILL);
	if (!reap_all(60))
		bad(s, c, "processes did not die", NULL);
	t_reap = t_now();
	if (baseline) {
		t0 = t_now();
		while (read_file(USERS, detail, sizeof(detail)) || strcmp(detail, baseline)) {
			if (t_now() - t0 > IDLE_MAX_S) {
				bad(s, c, "the module still holds", detail);
				break;
			}
			sleep_ms(20);
		}
	}
	t_idle = t_now();
	/* a slow cycle, said now: the runner's timeout may end us early */
	if (t_idle - t_start > 10) {
		printf("# cycle %u, %s, action %u: record %.1f s, dump %.1f s, reap %.1f s, "
		       "idle %.1f s\n", c, modes[c % 3], action, t_rec - t_start, t_dump - t_rec,
		       t_reap - t_dump, t_idle - t_reap);
		fflush(stdout);
	}
	if (t_idle - t_start > s->slowest) {
		s->slowest = t_idle - t_start;
		snprintf(s->slowest_what, sizeof(s->slowest_what),
			 "cycle %u, %s, %s, action %u: record %.1f s, dump %.1f s, reap %.1f s, "
			 "idle %.1f s", c, modes[c % 3],
			 with_command ? "with COMMAND" : "for a duration", action,
			 t_rec - t_start, t_dump - t_rec, t_reap - t_dump, t_idle - t_reap);
	}
	s->cycles++;
}

static void kill_soak(void)
{
	uint64_t cycles, seed;
	static char baseline[4096];
	static struct soak s;
	bool have_users;
	double t0 = t_now();

	T_ASSERT(env_u64("TB_SOAK_CYCLES", CYCLES, &cycles));
	T_ASSERT(env_u64("TB_SOAK_SEED", 0, &seed));
	if (!seed)
		seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
	g_rng = seed | 1;
	/* a budget for the cycles on the slowest kernel, not a per-test 60 s */
	alarm((unsigned int)(cycles * 30 + 300));
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	have_users = !read_file(USERS, baseline, sizeof(baseline));
	if (!have_users)
		printf("# no %s: cannot check that the module is idle\n", USERS);
	printf("# seed %#" PRIx64 " (TB_SOAK_SEED), %" PRIu64 " cycles (TB_SOAK_CYCLES)\n", seed,
	       cycles);

	for (unsigned int c = 0; c < cycles; c++) {
		cycle(&s, c, have_users ? baseline : NULL);
		if ((c + 1) % 100 == 0) {
			printf("# %u cycles, %.0f s, %u bad\n", c + 1, t_now() - t0, s.bad);
			fflush(stdout);
		}
	}

	printf("# %u cycles in %.0f s: manager killed in %u, providers killed in %u;"
	       " %u records finished, %u traces decoded\n", s.cycles, t_now() - t0,
	       s.killed_mgr, s.killed_prov, s.finished, s.decoded);
	printf("# slowest: %.1f s, %s\n", s.slowest, s.slowest_what);
	for (int rc = 0; rc < 256; rc++) {
		if (s.status[rc])
			printf("# record exit %d: %u times\n", rc, s.status[rc]);
	}
	T_EXPECT_EQ(s.bad, 0);
	T_EXPECT_EQ(s.cycles, (unsigned int)cycles);
}

static const struct t_test tests[] = {
	T_TEST(kill_soak),
};

VMTEST_MAIN(tests)
