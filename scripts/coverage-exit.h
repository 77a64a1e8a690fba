/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Forced into every C file of a coverage build (scripts/coverage.sh and
 * "scripts/check.sh --coverage" pass -include): a process that ends with
 * _exit(), such as libposixtrace's keeper or a detached "tracebufctl
 * record", writes its gcov counters first, as exit() would have.  Without
 * this, the lines only such a process runs count as never run.
 *
 * _exit names tb_coverage_exit() from here on, <unistd.h>'s declaration
 * included; the header includes nothing, so that each file's feature
 * macros still come before its first system header.
 */
#ifndef TB_COVERAGE_EXIT_H
#define TB_COVERAGE_EXIT_H
#ifndef __cplusplus

void __gcov_dump(void);
void _Exit(int status) __attribute__((noreturn));

__attribute__((weak, noreturn)) void tb_coverage_exit(int status)
{
	__gcov_dump();
	_Exit(status);
}

#define _exit tb_coverage_exit

#endif /* !__cplusplus */
#endif /* TB_COVERAGE_EXIT_H */
