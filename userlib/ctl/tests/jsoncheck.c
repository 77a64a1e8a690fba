// SPDX-License-Identifier: MIT
/*
 * jsoncheck FILE: exit 0 if FILE is strict JSON (tests/json.h) of the
 * shape convert writes, {"traceEvents":[...],"displayTimeUnit":"ns"},
 * printing the number of events; else one line on stderr, exit 1.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>

#include "json.h"

int main(int argc, char **argv)
{
	const struct json *events, *unit;
	char err[128], *text = NULL;
	size_t len = 0, cap = 0, n;
	struct json *v;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: jsoncheck FILE\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	do {
		if (len == cap) {
			char *t = realloc(text, cap = cap ? 2 * cap : 65536);

			if (!t) {
				fprintf(stderr, "jsoncheck: out of memory\n");
				return 1;
			}
			text = t;
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	v = json_parse(text, len, err, sizeof(err));
	free(text);
	if (!v) {
		fprintf(stderr, "jsoncheck: %s: %s\n", argv[1], err);
		return 1;
	}
	events = json_get(v, "traceEvents");
	unit = json_get(v, "displayTimeUnit");
	if (!events || events->type != JSON_ARRAY || !unit || unit->type != JSON_STRING ||
	    strcmp(unit->text, "ns")) {
		fprintf(stderr, "jsoncheck: %s: not {\"traceEvents\":[...],\"displayTimeUnit\":\"ns\"}\n",
			argv[1]);
		json_free(v);
		return 1;
	}
	printf("%zu\n", events->n);
	json_free(v);
	return 0;
}
