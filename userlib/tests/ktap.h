/* SPDX-License-Identifier: MIT */
/*
 * A small KTAP runner for the host unit tests (no kernel, no VM).
 *
 * A test program lists its tests in a table of T_TEST(fn) and ends with
 * T_MAIN(table).  Each test runs in a forked child with a time limit, so a
 * crash or a sanitizer report fails that test alone.  Output is KTAP as
 * the kselftest harness prints it ("TAP version 13", "1..N", "ok N name" /
 * "not ok N name", "# Totals: ..."), so scripts/lib.sh counts it like the
 * VM's; exit status 0 when every test passed, 1 otherwise.
 *
 * T_EXPECT*() record a failure and go on; T_ASSERT*() also return from
 * the test function (use them for preconditions only).
 *
 * Include this first: it selects the POSIX feature level.
 */
#ifndef TRACEBUF_TESTS_KTAP_H
#define TRACEBUF_TESTS_KTAP_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Seconds a single test may take (ASan included) before it fails. */
#define T_TIMEOUT	60

/*
 * @secs times TB_TIMEOUT_MULT from the environment, the multiplier the
 * guest runner applies to every timeout (scripts/vm-run.sh --timeout-mult:
 * 4 on the debug kernel), for every alarm a test sets.
 */
static inline unsigned int t_timeout(unsigned int secs)
{
	const char *m = getenv("TB_TIMEOUT_MULT");
	unsigned long mult = m ? strtoul(m, NULL, 10) : 1;

	return secs * (mult >= 1 && mult <= 100 ? (unsigned int)mult : 1);
}

struct t_test {
	const char *name;
	void (*fn)(void);
};

#define T_TEST(fn)	{ #fn, fn }

/* Failures of the test running in this (child) process. */
static int t_failures;

static inline void t_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline void t_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("# %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	t_failures++;
}

#define T_FAIL(...)	t_fail(__FILE__, __LINE__, __VA_ARGS__)

#define T_EXPECT(cond)							\
	do {								\
		if (!(cond))						\
			T_FAIL("expected: %s", #cond);			\
	} while (0)

#define T_ASSERT(cond)							\
	do {								\
		if (!(cond)) {						\
			T_FAIL("assertion failed: %s", #cond);		\
			return;						\
		}							\
	} while (0)

/* Integers of any type, compared as 64-bit two's complement. */
#define T_CHECK_EQ(a, b, action)					\
	do {								\
		unsigned long long t_a_ = (unsigned long long)(a);	\
		unsigned long long t_b_ = (unsigned long long)(b);	\
									\
		if (t_a_ != t_b_) {					\
			T_FAIL("%s == %s: %lld (%#llx) != %lld (%#llx)", \
			       #a, #b, (long long)t_a_, t_a_,		\
			       (long long)t_b_, t_b_);			\
			action;						\
		}							\
	} while (0)

#define T_EXPECT_EQ(a, b)	T_CHECK_EQ(a, b, (void)0)
#define T_ASSERT_EQ(a, b)	T_CHECK_EQ(a, b, return)

/* n bytes at a and b. */
#define T_EXPECT_MEM(a, b, n)						\
	do {								\
		if (memcmp((a), (b), (n)))				\
			T_FAIL("%s and %s differ in their %zu bytes",	\
			       #a, #b, (size_t)(n));			\
	} while (0)

/* A (data, len) string equals the C string lit. */
#define T_EXPECT_STR(s, lit)						\
	do {								\
		size_t t_l_ = strlen(lit);				\
									\
		if ((s).len != t_l_ ||					\
		    (t_l_ && memcmp((s).data, (lit), t_l_)))		\
			T_FAIL("%s is \"%.*s\", not \"%s\"", #s,	\
			       (int)((s).len > 80 ? 80 : (s).len),	\
			       (s).data ? (s).data : "", (lit));	\
	} while (0)

static inline double t_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline int t_run(const struct t_test *tests, size_t n)
{
	size_t i, passed = 0, failed = 0;

	printf("TAP version 13\n1..%zu\n", n);
	for (i = 0; i < n; i++) {
		double t0 = t_now();
		int status = 0;
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			printf("not ok %zu %s # fork failed\n", i + 1, tests[i].name);
			failed++;
			continue;
		}
		if (pid == 0) {
			alarm(t_timeout(T_TIMEOUT));
			tests[i].fn();
			fflush(stdout);
			/* exit(), not _exit(): LeakSanitizer runs at exit. */
			exit(t_failures ? 1 : 0);
		}
		while (waitpid(pid, &status, 0) < 0)
			;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			printf("ok %zu %s\n", i + 1, tests[i].name);
			passed++;
		} else if (WIFSIGNALED(status)) {
			printf("not ok %zu %s # killed by signal %d%s\n", i + 1, tests[i].name,
			       WTERMSIG(status),
			       WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
			failed++;
		} else {
			printf("not ok %zu %s # exit %d\n", i + 1, tests[i].name,
			       WEXITSTATUS(status));
			failed++;
		}
		printf("# %s: %.3f s\n", tests[i].name, t_now() - t0);
	}
	printf("# Totals: pass:%zu fail:%zu xfail:0 xpass:0 skip:0 error:0\n", passed, failed);
	fflush(stdout);
	return failed ? 1 : 0;
}

#define T_MAIN(table)							\
	int main(void)							\
	{								\
		return t_run(table, sizeof(table) / sizeof((table)[0])); \
	}

#endif /* TRACEBUF_TESTS_KTAP_H */
