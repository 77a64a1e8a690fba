// SPDX-License-Identifier: MIT
/*
 * What "tracebufctl monitor" prints for each event (tbctl_event_print()),
 * fed directly: the line, with and without a buffer, each kind of event,
 * names a hostile provider could pick; and the JSON object per line.
 */
#include "ktap.h"

#include "../tracebufctl.h"
#include "json.h"

static const struct tbctl_provider registered = {
	.id = 5, .pid = 4242, .state = TRACEBUF_STATE_REGISTERED, .has_counters = true,
	.name = "app",
};

static const struct tbctl_provider initialized = {
	.id = 5, .pid = 4242, .state = TRACEBUF_STATE_INITIALIZED, .manager_id = 3,
	.mode = TRACEBUF_MODE_CIRCULAR, .buffer_size = 65536, .has_counters = true,
	.packets_sent = 2, .packets_received = 1, .saves = 0, .has_dropped = true,
	.records_dropped = 7, .name = "app",
};

static const struct tbctl_provider hostile = {
	.id = 9, .pid = 1, .state = 99, .mode = 42, .buffer_size = 4096,
	.name = "we\"ird\n\x1b[2J\xff",
};

/* got (maybe NULL) is want */
static bool eq(const char *got, const char *want)
{
	return got && !strcmp(got, want);
}

static bool is_null(const struct json *v, const char *key)
{
	const struct json *m = json_get(v, key);

	return m && m->type == JSON_NULL;
}

/* What tbctl_event_print() writes, malloc'd. */
static char *print(uint8_t cmd, const struct tbctl_provider *p, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	tbctl_event_print(f, cmd, p, json);
	fclose(f);
	return buf;
}

static void lines(void)
{
	static const struct {
		uint8_t cmd;
		const struct tbctl_provider *p;
		const char *line;
	} cases[] = {
		{ TRACEBUF_CMD_PROVIDER_NEW, &registered,
		  "new id 5 pid 4242 name app state registered manager -\n" },
		{ TRACEBUF_CMD_PROVIDER_CHANGE, &initialized,
		  "change id 5 pid 4242 name app state initialized manager 3 mode circular"
		  " buffer 65536\n" },
		{ TRACEBUF_CMD_PROVIDER_CHANGE, &registered,
		  "change id 5 pid 4242 name app state registered manager -\n" },
		{ TRACEBUF_CMD_PROVIDER_DEL, &initialized,
		  "del id 5 pid 4242 name app state initialized manager 3 mode circular"
		  " buffer 65536\n" },
		/* the newline and the escape of the name are defused */
		{ TRACEBUF_CMD_PROVIDER_DEL, &hostile,
		  "del id 9 pid 1 name we\"ird??[2J\xff state ? manager - mode ? buffer 4096\n" },
		{ 77, &registered, "? id 5 pid 4242 name app state registered manager -\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = print(cases[i].cmd, cases[i].p, false);

		if (strcmp(out, cases[i].line))
			T_FAIL("case %zu: '%s', expected '%s'", i, out, cases[i].line);
		free(out);
	}
}

static struct json *parse(char *out)
{
	char err[128];
	struct json *v;

	/* one line, one object */
	T_EXPECT(strchr(out, '\n') == out + strlen(out) - 1);
	v = json_parse(out, strlen(out), err, sizeof(err));
	if (!v)
		T_FAIL("not JSON: %s: %s", err, out);
	return v;
}

static void json_objects(void)
{
	char *out = print(TRACEBUF_CMD_PROVIDER_NEW, &registered, true);
	struct json *v = parse(out);

	T_ASSERT(v && v->type == JSON_OBJECT);
	T_EXPECT(eq(json_get_str(v, "event"), "new"));
	T_EXPECT(eq(json_get_num(v, "id"), "5"));
	T_EXPECT(eq(json_get_num(v, "pid"), "4242"));
	T_EXPECT(eq(json_get_str(v, "name"), "app"));
	T_EXPECT(eq(json_get_str(v, "state"), "registered"));
	T_EXPECT(is_null(v, "manager"));
	T_EXPECT(is_null(v, "mode"));
	T_EXPECT(eq(json_get_num(v, "buffer_size"), "0"));
	T_EXPECT(eq(json_get_num(v, "packets_sent"), "0"));
	T_EXPECT(is_null(v, "records_dropped"));
	json_free(v);
	free(out);

	out = print(TRACEBUF_CMD_PROVIDER_CHANGE, &initialized, true);
	v = parse(out);
	T_ASSERT(v && v->type == JSON_OBJECT);
	T_EXPECT(eq(json_get_str(v, "event"), "change"));
	T_EXPECT(eq(json_get_num(v, "manager"), "3"));
	T_EXPECT(eq(json_get_str(v, "mode"), "circular"));
	T_EXPECT(eq(json_get_num(v, "buffer_size"), "65536"));
	T_EXPECT(eq(json_get_num(v, "packets_sent"), "2"));
	T_EXPECT(eq(json_get_num(v, "packets_received"), "1"));
	T_EXPECT(eq(json_get_num(v, "saves"), "0"));
	T_EXPECT(eq(json_get_num(v, "records_dropped"), "7"));
	json_free(v);
	free(out);

	out = print(TRACEBUF_CMD_PROVIDER_DEL, &hostile, true);
	v = parse(out);
	T_ASSERT(v && v->type == JSON_OBJECT);
	T_EXPECT(eq(json_get_str(v, "event"), "del"));
	T_EXPECT(eq(json_get_str(v, "name"), "we\"ird\n\x1b[2J\xef\xbf\xbd"));
	T_EXPECT(eq(json_get_str(v, "state"), "?"));
	T_EXPECT(is_null(v, "packets_sent"));
	json_free(v);
	free(out);
}

static const struct t_test tests[] = {
	T_TEST(lines),
	T_TEST(json_objects),
};

T_MAIN(tests)
