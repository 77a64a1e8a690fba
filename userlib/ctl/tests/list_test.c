// SPDX-License-Identifier: MIT
/*
 * The printing side of "tracebufctl list" (tbctl_providers_print()), fed
 * directly, as a netlink transport will feed it: the table and the JSON,
 * with names a hostile provider could pick.
 */
#include "ktap.h"

#include "../tracebufctl.h"
#include "json.h"

static const struct tbctl_provider providers[] = {
	{ .id = 1, .pid = 4242, .state = TRACEBUF_STATE_STARTED,
	  .mode = TRACEBUF_MODE_STREAMING, .buffer_size = 4 << 20, .manager_id = 3,
	  .name = "app" },
	{ .id = 7, .pid = 1, .state = TRACEBUF_STATE_REGISTERED, .name = "we\"ird\n\x1b[2J\xff" },
	{ .id = 9, .pid = 2, .state = 99, .mode = 42, .buffer_size = 8192, .manager_id = 5,
	  .mine = true, .name = "" },
};

#define NPROV (sizeof(providers) / sizeof(providers[0]))

/* What tbctl_providers_print() writes, malloc'd. */
static char *print(bool json, size_t n)
{
	static char *buf;
	static size_t len;
	FILE *f = open_memstream(&buf, &len);

	tbctl_providers_print(f, providers, n, json);
	fclose(f);
	return buf;
}

static void table(void)
{
	char *out = print(false, NPROV), *line2, *line3;
	size_t lines = 0;

	for (char *p = out; *p; p++)
		lines += *p == '\n';
	T_EXPECT_EQ(lines, NPROV + 1);
	T_EXPECT(!strncmp(out, "   ID      PID  STATE", 21));
	line2 = strchr(out, '\n') + 1;
	T_EXPECT(strstr(line2, "    1     4242  started     streaming    4.0 MiB  3       app\n") ==
		 line2);
	line3 = strchr(line2, '\n') + 1;
	/* the newline and the escape of the name are defused */
	T_EXPECT(strstr(line3, "registered  -                  -  -       we\"ird??[2J\xff\n") != NULL);
	T_EXPECT(strstr(out, "    9        2  ?           ?            8.0 KiB  5*      \n") != NULL);
	T_EXPECT(strchr(out, '\x1b') == NULL);
	free(out);
}

static void table_empty(void)
{
	char *out = print(false, 0);

	T_EXPECT(!strncmp(out, "   ID", 5));
	T_EXPECT_EQ(strchr(out, '\n') - out + 1, (long)strlen(out));
	free(out);
}

static void json(void)
{
	char *out = print(true, NPROV), err[128];
	struct json *v = json_parse(out, strlen(out), err, sizeof(err));
	const struct json *p;

	if (!v)
		T_FAIL("not JSON: %s: %s", err, out);
	T_ASSERT(v != NULL);
	T_ASSERT(v->type == JSON_ARRAY && v->n == NPROV);
	p = v->items[0];
	T_EXPECT(!strcmp(json_get_num(p, "id"), "1"));
	T_EXPECT(!strcmp(json_get_num(p, "pid"), "4242"));
	T_EXPECT(!strcmp(json_get_str(p, "state"), "started"));
	T_EXPECT(!strcmp(json_get_str(p, "mode"), "streaming"));
	T_EXPECT(!strcmp(json_get_num(p, "buffer_size"), "4194304"));
	T_EXPECT(!strcmp(json_get_num(p, "manager"), "3"));
	T_EXPECT(json_get(p, "mine")->type == JSON_BOOL && !json_get(p, "mine")->b);
	T_EXPECT(!strcmp(json_get_str(p, "name"), "app"));
	p = v->items[1];
	T_EXPECT(json_get(p, "mode")->type == JSON_NULL);
	T_EXPECT(json_get(p, "manager")->type == JSON_NULL);
	T_EXPECT(!strcmp(json_get_str(p, "name"), "we\"ird\n\x1b[2J\xef\xbf\xbd"));
	p = v->items[2];
	T_EXPECT(json_get(p, "mine")->b);
	T_EXPECT(!strcmp(json_get_str(p, "state"), "?"));
	T_EXPECT(!strcmp(json_get_str(p, "name"), ""));
	json_free(v);
	free(out);
}

static void json_empty(void)
{
	char *out = print(true, 0);

	T_EXPECT(!strcmp(out, "[]\n"));
	free(out);
}

static void names(void)
{
	T_EXPECT(!strcmp(tbctl_state_name(TRACEBUF_STATE_TERMINATING), "terminating"));
	T_EXPECT(!strcmp(tbctl_state_name(0), "?"));
	T_EXPECT(!strcmp(tbctl_mode_name(0), "-"));
	T_EXPECT(!strcmp(tbctl_mode_name(TRACEBUF_MODE_CIRCULAR), "circular"));
	T_EXPECT(!strcmp(tbctl_mode_name(4), "?"));
	T_EXPECT(!strcmp(tbctl_tracee_state_name(9), "failed"));
	T_EXPECT(!strcmp(tbctl_tracee_state_name(10), "busy"));
	T_EXPECT(!strcmp(tbctl_tracee_state_name(11), "left"));
	T_EXPECT(!strcmp(tbctl_tracee_state_name(12), "?"));
}

static const struct t_test tests[] = {
	T_TEST(table),
	T_TEST(table_empty),
	T_TEST(json),
	T_TEST(json_empty),
	T_TEST(names),
};

T_MAIN(tests)
