// SPDX-License-Identifier: GPL-2.0
/*
 * A POSIX Trace program of the installed libposixtrace, as
 * scripts/install-test.sh and scripts/deb-test.sh build it: with
 * "cc prog.c -lposixtrace" and with pkg-config, shared and static.  It
 * includes only <trace.h> and system headers, and prints
 *
 *	genversion: <what posix_trace_attr_getgenversion() gives>
 *	create: <posix_trace_create()'s result for this process: 0, ENODEV
 *		(no /dev/tracebuf), EPERM (no manager rights) or the number>
 *
 * for the scripts to compare.  The exit status is 0 unless the
 * attributes object fails.
 */
#include <errno.h>
#include <stdio.h>

#include <trace.h>

int main(void)
{
	char genversion[TRACE_NAME_MAX];
	trace_attr_t attr;
	trace_id_t trid;
	int err;

	err = posix_trace_attr_init(&attr);
	if (err) {
		printf("posix_trace_attr_init: %d\n", err);
		return 1;
	}
	err = posix_trace_attr_getgenversion(&attr, genversion);
	if (err) {
		printf("posix_trace_attr_getgenversion: %d\n", err);
		return 1;
	}
	printf("genversion: %s\n", genversion);

	err = posix_trace_create(0, &attr, &trid);
	switch (err) {
	case 0:
		printf("create: 0\n");
		posix_trace_shutdown(trid);
		break;
	case ENODEV:
		printf("create: ENODEV\n");
		break;
	case EPERM:
		printf("create: EPERM\n");
		break;
	default:
		printf("create: %d\n", err);
		break;
	}
	posix_trace_attr_destroy(&attr);
	return 0;
}
