// SPDX-License-Identifier: MIT
/*
 * "tracebufctl stats" apart from the transport: which providers its
 * arguments select (tbctl_stats_select(): ids, names, both, unknown ones)
 * and what it prints (tbctl_stats_print(): the table and the JSON).
 */
#include "ktap.h"

#include <errno.h>

#include "../tracebufctl.h"
#include "json.h"

static const struct tbctl_provider providers[] = {
	{ .id = 1, .pid = 10, .state = TRACEBUF_STATE_STARTED, .mode = TRACEBUF_MODE_STREAMING,
	  .buffer_size = 1 << 20, .manager_id = 4, .has_counters = true, .has_dropped = true,
	  .packets_sent = 120, .packets_received = 7, .saves = 3, .records_dropped = 5,
	  .name = "app" },
	{ .id = 2, .pid = 20, .state = TRACEBUF_STATE_REGISTERED, .has_counters = true,
	  .name = "db" },
	{ .id = 12, .pid = 30, .state = TRACEBUF_STATE_INITIALIZED, .has_counters = true,
	  .buffer_size = 8192, .has_dropped = true, .name = "app" },
	{ .id = 40, .pid = 40, .state = TRACEBUF_STATE_REGISTERED, .name = "12" },
	{ .id = 41, .pid = 41, .state = 99, .name = "we\"ird\n\x1b[2J\xff" },
};

#define NPROV (sizeof(providers) / sizeof(providers[0]))

static bool eq(const char *got, const char *want)
{
	return got && !strcmp(got, want);
}

static void select_(void)
{
	static const struct {
		const char *words[4];
		int ret;
		const char *ids;	/* kept, or the unmatched word's index */
	} cases[] = {
		{ { NULL }, 0, "1 2 12 40 41" },
		{ { "app" }, 0, "1 12" },
		{ { "db" }, 0, "2" },
		{ { "2" }, 0, "2" },
		/* digits are an id, never a name */
		{ { "12" }, 0, "12" },
		{ { "012" }, 0, "12" },
		{ { "db", "1" }, 0, "1 2" },
		{ { "1", "app", "1" }, 0, "1 12" },
		{ { "we\"ird\n\x1b[2J\xff" }, 0, "41" },
		{ { "nosuch" }, -ENOENT, "0" },
		{ { "app", "7" }, -ENOENT, "1" },
		{ { "app", "db", "ap" }, -ENOENT, "2" },
		{ { "0" }, -ENOENT, "0" },
		{ { "4294967297" }, -ENOENT, "0" },
		{ { "99999999999999999999999" }, -ENOENT, "0" },
		{ { "" }, -ENOENT, "0" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tbctl_provider p[NPROV];
		size_t n = NPROV, nw = 0, unmatched = 99;
		char got[64] = "";
		int ret;

		memcpy(p, providers, sizeof(p));
		while (nw < 4 && cases[i].words[nw])
			nw++;
		ret = tbctl_stats_select(p, &n, (char *const *)cases[i].words, nw, &unmatched);
		if (ret) {
			snprintf(got, sizeof(got), "%zu", unmatched);
			T_EXPECT_EQ(n, NPROV);
		} else {
			for (size_t k = 0; k < n; k++)
				snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u",
					 k ? " " : "", p[k].id);
		}
		if (ret != cases[i].ret || strcmp(got, cases[i].ids))
			T_FAIL("case %zu (%s): %d '%s', expected %d '%s'", i,
			       cases[i].words[0] ? cases[i].words[0] : "-", ret, got,
			       cases[i].ret, cases[i].ids);
	}
}

static char *print(bool json, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	tbctl_stats_print(f, providers, n, json);
	fclose(f);
	return buf;
}

static void table(void)
{
	char *out = print(false, NPROV);
	size_t lines = 0;

	for (char *p = out; *p; p++)
		lines += *p == '\n';
	T_EXPECT_EQ(lines, NPROV + 1);
	/* the name column is as wide as the longest name */
	T_EXPECT(strstr(out, "   ID  NAME          STATE             SENT   RECEIVED    SAVES"
			"    DROPPED     BUFFER\n") == out);
	T_EXPECT(strstr(out, "\n    1  app           started            120          7        3"
			"          5    1.0 MiB\n") != NULL);
	T_EXPECT(strstr(out, "\n    2  db            registered           0          0        0"
			"          -          -\n") != NULL);
	T_EXPECT(strstr(out, "\n   40  12            registered           -          -        -"
			"          -          -\n") != NULL);
	T_EXPECT(strstr(out, "\n   41  we\"ird??[2J\xff  ?") != NULL);
	T_EXPECT(strchr(out, '\x1b') == NULL);
	free(out);

	out = print(false, 0);
	T_EXPECT(eq(out, "   ID  NAME  STATE             SENT   RECEIVED    SAVES    DROPPED"
		    "     BUFFER\n"));
	free(out);
}

static void json(void)
{
	char *out = print(true, NPROV), err[128];
	struct json *v = json_parse(out, strlen(out), err, sizeof(err));
	const struct json *p;

	if (!v)
		T_FAIL("not JSON: %s: %s", err, out);
	T_ASSERT(v && v->type == JSON_ARRAY && v->n == NPROV);
	p = v->items[0];
	T_EXPECT(eq(json_get_num(p, "id"), "1"));
	T_EXPECT(eq(json_get_str(p, "name"), "app"));
	T_EXPECT(eq(json_get_str(p, "state"), "started"));
	T_EXPECT(eq(json_get_num(p, "packets_sent"), "120"));
	T_EXPECT(eq(json_get_num(p, "packets_received"), "7"));
	T_EXPECT(eq(json_get_num(p, "saves"), "3"));
	T_EXPECT(eq(json_get_num(p, "records_dropped"), "5"));
	T_EXPECT(eq(json_get_num(p, "buffer_size"), "1048576"));
	T_EXPECT(json_get(p, "pid") == NULL);
	p = v->items[1];
	T_EXPECT(json_get(p, "records_dropped") &&
		 json_get(p, "records_dropped")->type == JSON_NULL);
	T_EXPECT(eq(json_get_num(p, "buffer_size"), "0"));
	p = v->items[3];
	T_EXPECT(json_get(p, "packets_sent") && json_get(p, "packets_sent")->type == JSON_NULL);
	p = v->items[4];
	T_EXPECT(eq(json_get_str(p, "name"), "we\"ird\n\x1b[2J\xef\xbf\xbd"));
	json_free(v);
	free(out);

	out = print(true, 0);
	T_EXPECT(eq(out, "[]\n"));
	free(out);
}

static const struct t_test tests[] = {
	T_TEST(select_),
	T_TEST(table),
	T_TEST(json),
};

T_MAIN(tests)
