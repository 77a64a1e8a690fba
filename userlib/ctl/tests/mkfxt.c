// SPDX-License-Identifier: MIT
/*
 * mkfxt FILE: write the sample trace of sample.h to FILE and print
 * "RECORDS EVENTS FIRST_EVENT_OFFSET" (for the shell tests).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "sample.h"

int main(int argc, char **argv)
{
	static struct sample s;
	FILE *f;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: mkfxt FILE\n");
		return 2;
	}
	ret = sample_build(&s);
	if (ret) {
		fprintf(stderr, "mkfxt: building the sample: %s\n", strerror(-ret));
		return 1;
	}
	f = fopen(argv[1], "wb");
	if (!f || fwrite(s.words, 1, s.len, f) != s.len || fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	printf("%u %d %zu\n", s.records, SAMPLE_EVENTS, s.first_event);
	return 0;
}
