/* SPDX-License-Identifier: MIT */
/*
 * A small, strict JSON parser (RFC 8259) for the tests: the whole text
 * must be one value; strings must be valid UTF-8 without raw control
 * characters; \u escapes (surrogate pairs included) are decoded to UTF-8;
 * numbers follow the grammar and keep their text.  Nesting is limited.
 *
 *	struct json *v = json_parse(text, len, err, sizeof(err));
 *	const struct json *e = json_get(v, "traceEvents");
 *	json_free(v);
 */
#ifndef TBCTL_TESTS_JSON_H
#define TBCTL_TESTS_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH	64

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
	enum json_type type;
	bool b;
	double num;
	char *text;		/* NUMBER: as written; STRING: decoded, NUL-terminated */
	size_t len;		/* STRING: bytes */
	size_t n;		/* ARRAY, OBJECT: entries */
	char **keys;		/* OBJECT */
	struct json **items;	/* ARRAY, OBJECT */
};

struct json_parser {
	const unsigned char *start, *p, *end;
	char *err;
	size_t errlen;
	int depth;
};

static inline void json_free(struct json *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		if (v->keys)
			free(v->keys[i]);
		json_free(v->items[i]);
	}
	free(v->keys);
	free(v->items);
	free(v->text);
	free(v);
}

static inline struct json *json_fail(struct json_parser *jp, const char *what)
{
	if (jp->err && !*jp->err)
		snprintf(jp->err, jp->errlen, "%s at byte %zu", what,
			 (size_t)(jp->p - jp->start));
	return NULL;
}

static inline void json_ws(struct json_parser *jp)
{
	while (jp->p < jp->end &&
	       (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\n' || *jp->p == '\r'))
		jp->p++;
}

static inline bool json_lit(struct json_parser *jp, const char *lit)
{
	size_t len = strlen(lit);

	if ((size_t)(jp->end - jp->p) < len || memcmp(jp->p, lit, len))
		return false;
	jp->p += len;
	return true;
}

/* Append the UTF-8 of code point cp to buf (room for 4 more bytes). */
static inline size_t json_put_utf8(char *buf, unsigned long cp)
{
	if (cp < 0x80) {
		buf[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		buf[0] = (char)(0xc0 | cp >> 6);
		buf[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		buf[0] = (char)(0xe0 | cp >> 12);
		buf[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		buf[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	buf[0] = (char)(0xf0 | cp >> 18);
	buf[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	buf[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	buf[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static inline bool json_hex4(struct json_parser *jp, unsigned long *v)
{
	*v = 0;
	if (jp->end - jp->p < 4)
		return false;
	for (int i = 0; i < 4; i++) {
		unsigned char c = *jp->p++;

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned long)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned long)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned long)(c - 'A' + 10);
		else
			return false;
	}
	return true;
}

/* Length of a valid UTF-8 sequence at p, 0 if invalid. */
static inline size_t json_utf8(const unsigned char *p, const unsigned char *end)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if ((size_t)(end - p) < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/* A string at jp->p (the opening quote) into a malloc'd buffer. */
static inline char *json_string(struct json_parser *jp, size_t *lenp)
{
	/* decoded is never longer than the source */
	size_t cap = (size_t)(jp->end - jp->p) + 1, len = 0;
	char *buf;

	jp->p++;
	buf = malloc(cap);
	if (!buf)
		return (char *)json_fail(jp, "out of memory");
	while (jp->p < jp->end && *jp->p != '"') {
		unsigned char c = *jp->p;
		unsigned long cp, lo;
		size_t n;

		if (c < 0x20) {
			free(buf);
			return (char *)json_fail(jp, "raw control character in a string");
		}
		if (c != '\\') {
			n = json_utf8(jp->p, jp->end);
			if (!n) {
				free(buf);
				return (char *)json_fail(jp, "invalid UTF-8 in a string");
			}
			memcpy(buf + len, jp->p, n);
			len += n;
			jp->p += n;
			continue;
		}
		if (++jp->p >= jp->end)
			break;
		c = *jp->p++;
		switch (c) {
		case '"': buf[len++] = '"'; break;
		case '\\': buf[len++] = '\\'; break;
		case '/': buf[len++] = '/'; break;
		case 'b': buf[len++] = '\b'; break;
		case 'f': buf[len++] = '\f'; break;
		case 'n': buf[len++] = '\n'; break;
		case 'r': buf[len++] = '\r'; break;
		case 't': buf[len++] = '\t'; break;
		case 'u':
			if (!json_hex4(jp, &cp))
				goto bad_escape;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (!json_lit(jp, "\\u") || !json_hex4(jp, &lo) ||
				    lo < 0xdc00 || lo > 0xdfff)
					goto bad_escape;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				goto bad_escape;
			}
			len += json_put_utf8(buf + len, cp);
			break;
		default:
			goto bad_escape;
		}
	}
	if (jp->p >= jp->end) {
		free(buf);
		return (char *)json_fail(jp, "unterminated string");
	}
	jp->p++;
	buf[len] = '\0';
	*lenp = len;
	return buf;

bad_escape:
	free(buf);
	return (char *)json_fail(jp, "invalid escape in a string");
}

static inline bool json_digits(struct json_parser *jp)
{
	const unsigned char *start = jp->p;

	while (jp->p < jp->end && *jp->p >= '0' && *jp->p <= '9')
		jp->p++;
	return jp->p > start;
}

static inline struct json *json_value(struct json_parser *jp);

static inline struct json *json_new(struct json_parser *jp, enum json_type type)
{
	struct json *v = calloc(1, sizeof(*v));

	if (!v)
		return json_fail(jp, "out of memory");
	v->type = type;
	return v;
}

static inline bool json_push(struct json *v, char *key, struct json *item)
{
	struct json **items = realloc(v->items, (v->n + 1) * sizeof(*items));

	if (!items)
		return false;
	v->items = items;
	if (v->type == JSON_OBJECT) {
		char **keys = realloc(v->keys, (v->n + 1) * sizeof(*keys));

		if (!keys)
			return false;
		v->keys = keys;
		keys[v->n] = key;
	}
	items[v->n++] = item;
	return true;
}

static inline struct json *json_container(struct json_parser *jp, bool object)
{
	struct json *v = json_new(jp, object ? JSON_OBJECT : JSON_ARRAY);
	char close = object ? '}' : ']';

	if (!v)
		return NULL;
	if (++jp->depth > JSON_MAX_DEPTH) {
		json_free(v);
		return json_fail(jp, "nested too deeply");
	}
	jp->p++;
	json_ws(jp);
	if (jp->p < jp->end && *jp->p == close) {
		jp->p++;
		jp->depth--;
		return v;
	}
	for (;;) {
		char *key = NULL;
		struct json *item;
		size_t klen;

		json_ws(jp);
		if (object) {
			if (jp->p >= jp->end || *jp->p != '"')
				goto fail_msg;
			key = json_string(jp, &klen);
			if (!key)
				goto fail;
			json_ws(jp);
			if (jp->p >= jp->end || *jp->p != ':') {
				free(key);
				goto fail_msg;
			}
			jp->p++;
		}
		item = json_value(jp);
		if (!item) {
			free(key);
			goto fail;
		}
		if (!json_push(v, key, item)) {
			free(key);
			json_free(item);
			json_fail(jp, "out of memory");
			goto fail;
		}
		json_ws(jp);
		if (jp->p < jp->end && *jp->p == ',') {
			jp->p++;
			continue;
		}
		if (jp->p < jp->end && *jp->p == close) {
			jp->p++;
			jp->depth--;
			return v;
		}
		goto fail_msg;
	}
fail_msg:
	json_fail(jp, object ? "bad object syntax" : "bad array syntax");
fail:
	json_free(v);
	return NULL;
}

static inline struct json *json_value(struct json_parser *jp)
{
	const unsigned char *start;
	struct json *v;

	json_ws(jp);
	if (jp->p >= jp->end)
		return json_fail(jp, "unexpected end");
	switch (*jp->p) {
	case '{':
		return json_container(jp, true);
	case '[':
		return json_container(jp, false);
	case '"':
		v = json_new(jp, JSON_STRING);
		if (v && !(v->text = json_string(jp, &v->len))) {
			json_free(v);
			return NULL;
		}
		return v;
	case 't':
	case 'f':
	case 'n':
		v = json_new(jp, JSON_NULL);
		if (!v)
			return NULL;
		if (json_lit(jp, "true")) {
			v->type = JSON_BOOL;
			v->b = true;
		} else if (json_lit(jp, "false")) {
			v->type = JSON_BOOL;
		} else if (!json_lit(jp, "null")) {
			json_free(v);
			return json_fail(jp, "bad literal");
		}
		return v;
	default:
		break;
	}
	/* -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
	start = jp->p;
	if (*jp->p == '-')
		jp->p++;
	if (jp->p < jp->end && *jp->p == '0')
		jp->p++;
	else if (jp->p >= jp->end || *jp->p < '1' || *jp->p > '9' || !json_digits(jp))
		return json_fail(jp, "bad value");
	if (jp->p < jp->end && *jp->p == '.') {
		jp->p++;
		if (!json_digits(jp))
			return json_fail(jp, "bad number");
	}
	if (jp->p < jp->end && (*jp->p == 'e' || *jp->p == 'E')) {
		jp->p++;
		if (jp->p < jp->end && (*jp->p == '+' || *jp->p == '-'))
			jp->p++;
		if (!json_digits(jp))
			return json_fail(jp, "bad number");
	}
	v = json_new(jp, JSON_NUMBER);
	if (!v)
		return NULL;
	v->text = strndup((const char *)start, (size_t)(jp->p - start));
	if (!v->text) {
		json_free(v);
		return json_fail(jp, "out of memory");
	}
	v->num = strtod(v->text, NULL);
	return v;
}

/* Parse all of text; NULL with a message in err on error. */
static inline struct json *json_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct json_parser jp = {
		.start = (const unsigned char *)text,
		.p = (const unsigned char *)text,
		.end = (const unsigned char *)text + len,
		.err = err, .errlen = errlen,
	};
	struct json *v;

	if (err && errlen)
		err[0] = '\0';
	v = json_value(&jp);
	if (!v)
		return NULL;
	json_ws(&jp);
	if (jp.p != jp.end) {
		json_free(v);
		return json_fail(&jp, "trailing characters");
	}
	return v;
}

/* The member key of an object (the last one if repeated), or NULL. */
static inline const struct json *json_get(const struct json *v, const char *key)
{
	const struct json *found = NULL;

	if (!v || v->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			found = v->items[i];
	return found;
}

/* The string member key, or NULL. */
static inline const char *json_get_str(const struct json *v, const char *key)
{
	const struct json *m = json_get(v, key);

	return m && m->type == JSON_STRING ? m->text : NULL;
}

/* The number member key as written, or NULL. */
static inline const char *json_get_num(const struct json *v, const char *key)
{
	const struct json *m = json_get(v, key);

	return m && m->type == JSON_NUMBER ? m->text : NULL;
}

#endif /* TBCTL_TESTS_JSON_H */
