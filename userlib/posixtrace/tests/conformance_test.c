// SPDX-License-Identifier: MIT
/*
 * libposixtrace against the POSIX Programmer's Manual, without a module:
 * the attributes object (posix_trace_attr_destroy(3p),
 * posix_trace_attr_getclockres(3p), posix_trace_attr_getinherited(3p),
 * posix_trace_attr_getlogsize(3p)), event sets (posix_trace_eventset_add(3p)),
 * posix_trace_eventid_equal(3p) and the header (trace.h(0p)).
 *
 * One test per "shall" sentence of a page that applies, named after it,
 * and one per error the page lists for each function (all "may fail
 * EINVAL": a NULL pointer, an object never initialized, a destroyed one,
 * a value out of range).  The sentences and errors that every attribute
 * has, each its own way (its default, its range, its getter's and its
 * setter's errors), are a table instead, attrs[]: a row per attribute,
 * with the sentences it answers, which four tests run, each for every
 * row (a failure names its row).  Values the manual leaves to the
 * implementation are checked against posix_trace(7) (posixtrace_priv.h).
 * Outputs are poisoned before each call: an error must leave them alone.
 */
#define _GNU_SOURCE
#include "ktap.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <trace.h>

#include "posixtrace_priv.h"

#define POISON_INT	0x5a5a5a5a
#define POISON_SIZE	((size_t)0x5a5a5a5a)
#define POISON_BYTE	0x5a

/* An initialized attributes object, or the test fails. */
#define ATTR_INIT(a)	T_ASSERT_EQ(posix_trace_attr_init(&(a)), 0)
#define SET_EMPTY(s)	T_ASSERT_EQ(posix_trace_eventset_empty(&(s)), 0)

/*
 * The objects an attr function must refuse with EINVAL: NULL, one never
 * initialized (garbage, and all zero) and one destroyed.
 */
struct bad_attrs {
	trace_attr_t garbage, zero, destroyed;
	trace_attr_t *p[4];
};

static void bad_attrs_make(struct bad_attrs *b)
{
	memset(&b->garbage, 0xa5, sizeof(b->garbage));
	memset(&b->zero, 0, sizeof(b->zero));
	if (posix_trace_attr_init(&b->destroyed) || posix_trace_attr_destroy(&b->destroyed))
		T_FAIL("could not make a destroyed attributes object");
	b->p[0] = NULL;
	b->p[1] = &b->garbage;
	b->p[2] = &b->zero;
	b->p[3] = &b->destroyed;
}

#define FOR_BAD_ATTR(b, a)						\
	for (size_t i_ = 0; i_ < 4; i_++)				\
		for (trace_attr_t *a = (b)->p[i_]; a; a = NULL)

/* The size of the record of an event with n bytes of data (posix_trace(7)). */
static size_t record_size(size_t n)
{
	return 88 + (n + 7) / 8 * 8;
}

/* ======================================================================== */
/* posix_trace_attr_destroy(3p), posix_trace_attr_init(3p)                  */

/* "shall initialize a trace attributes object attr with the default value
 * for all of the individual attributes"
 */
static void attr_init_sets_default_values(void)
{
	trace_attr_t a;
	struct timespec ts = { 1, 1 };
	char name[TRACE_NAME_MAX];
	size_t sz;
	int v;

	memset(&a, 0xa5, sizeof(a));
	T_ASSERT_EQ(posix_trace_attr_init(&a), 0);
	memset(name, POISON_BYTE, sizeof(name));
	T_EXPECT_EQ(posix_trace_attr_getname(&a, name), 0);
	T_EXPECT_EQ(name[0], '\0');
	T_EXPECT_EQ(posix_trace_attr_getcreatetime(&a, &ts), 0);
	T_EXPECT(ts.tv_sec == 0 && ts.tv_nsec == 0);
	T_EXPECT_EQ(posix_trace_attr_getinherited(&a, &v), 0);
	T_EXPECT_EQ(v, POSIX_TRACE_CLOSE_FOR_CHILD);
	T_EXPECT_EQ(posix_trace_attr_getlogfullpolicy(&a, &v), 0);
	T_EXPECT_EQ(v, POSIX_TRACE_LOOP);
	T_EXPECT_EQ(posix_trace_attr_getstreamfullpolicy(&a, &v), 0);
	T_EXPECT_EQ(v, POSIX_TRACE_LOOP);
	T_EXPECT_EQ(posix_trace_attr_getstreamsize(&a, &sz), 0);
	T_EXPECT_EQ(sz, PT_STREAM_SIZE_DEFAULT);
	T_EXPECT_EQ(posix_trace_attr_getlogsize(&a, &sz), 0);
	T_EXPECT_EQ(sz, PT_LOG_SIZE_DEFAULT);
	T_EXPECT_EQ(posix_trace_attr_getmaxdatasize(&a, &sz), 0);
	T_EXPECT_EQ(sz, PT_MAX_DATA_SIZE_DEFAULT);
	T_EXPECT_EQ(posix_trace_attr_destroy(&a), 0);
}

/* "The read-only generation-version and clock-resolution attributes of the
 * newly initialized trace attributes object shall be set to their
 * appropriate values"
 */
static void attr_init_sets_genversion_and_clockres(void)
{
	trace_attr_t a;
	struct timespec res, want;
	char v[TRACE_NAME_MAX];

	ATTR_INIT(a);
	memset(v, POISON_BYTE, sizeof(v));
	T_EXPECT_EQ(posix_trace_attr_getgenversion(&a, v), 0);
	T_EXPECT(strcmp(v, PT_GENVERSION) == 0);
	T_ASSERT_EQ(clock_getres(CLOCK_MONOTONIC, &want), 0);
	T_EXPECT_EQ(posix_trace_attr_getclockres(&a, &res), 0);
	T_EXPECT(res.tv_sec == want.tv_sec && res.tv_nsec == want.tv_nsec);
}

/* "shall destroy an initialized trace attributes object" */
static void attr_destroy_destroys_an_initialized_object(void)
{
	trace_attr_t a;
	size_t sz = POISON_SIZE;

	ATTR_INIT(a);
	T_EXPECT_EQ(posix_trace_attr_destroy(&a), 0);
	/* referencing it is undefined; this implementation refuses it */
	T_EXPECT_EQ(posix_trace_attr_getstreamsize(&a, &sz), EINVAL);
	T_EXPECT_EQ(sz, POISON_SIZE);
	T_EXPECT_EQ(posix_trace_attr_destroy(&a), EINVAL);
}

/* "A destroyed attr attributes object can be reinitialized using
 * posix_trace_attr_init()"
 */
static void attr_destroyed_object_can_be_reinitialized(void)
{
	trace_attr_t a;
	size_t sz = 0;

	ATTR_INIT(a);
	T_EXPECT_EQ(posix_trace_attr_setstreamsize(&a, 2 * PT_STREAM_SIZE_MIN), 0);
	T_ASSERT_EQ(posix_trace_attr_destroy(&a), 0);
	T_EXPECT_EQ(posix_trace_attr_init(&a), 0);
	T_EXPECT_EQ(posix_trace_attr_getstreamsize(&a, &sz), 0);
	T_EXPECT_EQ(sz, PT_STREAM_SIZE_DEFAULT);
}

/* trace.h: the object is plain data; a copy is an initialized object of
 * its own (posix_trace(7))
 */
static void attr_copy_is_an_independent_object(void)
{
	trace_attr_t a, b;
	size_t sz = 0;

	ATTR_INIT(a);
	b = a;
	T_EXPECT_EQ(posix_trace_attr_setmaxdatasize(&b, 16), 0);
	T_EXPECT_EQ(posix_trace_attr_getmaxdatasize(&a, &sz), 0);
	T_EXPECT_EQ(sz, PT_MAX_DATA_SIZE_DEFAULT);
	T_EXPECT_EQ(posix_trace_attr_getmaxdatasize(&b, &sz), 0);
	T_EXPECT_EQ(sz, 16);
	T_EXPECT_EQ(posix_trace_attr_destroy(&b), 0);
	T_EXPECT_EQ(posix_trace_attr_destroy(&a), 0);
}

/* ERRORS: init, [EINVAL] "The value of attr is invalid" (NULL) */
static void attr_init_einval(void)
{
	T_EXPECT_EQ(posix_trace_attr_init(NULL), EINVAL);
}

/* ERRORS: destroy, [EINVAL] "The value of attr is invalid" */
static void attr_destroy_einval(void)
{
	struct bad_attrs b;

	bad_attrs_make(&b);
	FOR_BAD_ATTR(&b, a)
		T_EXPECT_EQ(posix_trace_attr_destroy(a), EINVAL);
}

/* ======================================================================== */
/* posix_trace_attr_getclockres(3p)                                         */

/* "shall copy the clock resolution of the clock used to generate
 * timestamps from the clock-resolution attribute ... into the structure
 * pointed to by the resolution argument"
 */
static void getclockres_copies_the_clock_resolution(void)
{
	trace_attr_t a;
	struct timespec res = { POISON_INT, POISON_INT }, want;

	ATTR_INIT(a);
	T_ASSERT_EQ(clock_getres(CLOCK_MONOTONIC, &want), 0);
	T_EXPECT_EQ(posix_trace_attr_getclockres(&a, &res), 0);
	T_EXPECT_EQ(res.tv_sec, want.tv_sec);
	T_EXPECT_EQ(res.tv_nsec, want.tv_nsec);
	T_EXPECT(res.tv_sec > 0 || res.tv_nsec > 0);
}

/* "shall copy the trace stream creation time from the creation-time
 * attribute ... into the structure pointed to by the createtime argument":
 * {0, 0} for an object that no stream has filled in (posix_trace(7))
 */
static void getcreatetime_copies_the_creation_time(void)
{
	trace_attr_t a;
	struct timespec ts = { POISON_INT, POISON_INT };

	ATTR_INIT(a);
	T_EXPECT_EQ(posix_trace_attr_getcreatetime(&a, &ts), 0);
	T_EXPECT_EQ(ts.tv_sec, 0);
	T_EXPECT_EQ(ts.tv_nsec, 0);
}

/* "shall copy the string containing version information to the character
 * array pointed to by the genversion argument", which "can store at least
 * the number of characters defined by {TRACE_NAME_MAX}"
 */
static void getgenversion_copies_the_version_string(void)
{
	trace_attr_t a;
	char v[TRACE_NAME_MAX + 8];

	ATTR_INIT(a);
	memset(v, POISON_BYTE, sizeof(v));
	T_EXPECT_EQ(posix_trace_attr_getgenversion(&a, v), 0);
	T_EXPECT(memchr(v, '\0', TRACE_NAME_MAX) != NULL);
	T_EXPECT_EQ(v[TRACE_NAME_MAX], POISON_BYTE);
	T_EXPECT(strcmp(v, "tracebuf libposixtrace 1.0") == 0);
}

/* "shall copy the string containing the trace name to the character array
 * pointed to by the tracename argument"
 */
static void getname_copies_the_trace_name(void)
{
	trace_attr_t a;
	char n[TRACE_NAME_MAX + 8];

	ATTR_INIT(a);
	T_ASSERT_EQ(posix_trace_attr_setname(&a, "my-stream"), 0);
	memset(n, POISON_BYTE, sizeof(n));
	T_EXPECT_EQ(posix_trace_attr_getname(&a, n), 0);
	T_EXPECT(strcmp(n, "my-stream") == 0);
	T_EXPECT_EQ(n[TRACE_NAME_MAX], POISON_BYTE);
}

/* "shall set the name attribute in the initialized attributes object
 * pointed to by attr, using the trace name string supplied by the name
 * argument"; a second call replaces the first name whole
 */
static void setname_sets_the_name_attribute(void)
{
	trace_attr_t a;
	char n[TRACE_NAME_MAX];

	ATTR_INIT(a);
	T_EXPECT_EQ(posix_trace_attr_setname(&a, "a-rather-long-name"), 0);
	T_EXPECT_EQ(posix_trace_attr_setname(&a, "short"), 0);
	T_EXPECT_EQ(posix_trace_attr_getname(&a, n), 0);
	T_EXPECT(strcmp(n, "short") == 0);
	T_EXPECT_EQ(posix_trace_attr_setname(&a, ""), 0);
	T_EXPECT_EQ(posix_trace_attr_getname(&a, n), 0);
	T_EXPECT(strcmp(n, "") == 0);
}

/* "If the supplied string contains more than {TRACE_NAME_MAX} characters,
 * the name copied into the trace attributes object shall be truncated to
 * one less than the length of {TRACE_NAME_MAX} characters"
 */
static void setname_truncates_to_trace_name_max_minus_one(void)
{
	static const size_t lens[] = { TRACE_NAME_MAX - 2, TRACE_NAME_MAX - 1, TRACE_NAME_MAX,
				       TRACE_NAME_MAX + 1, 4 * TRACE_NAME_MAX };
	char in[4 * TRACE_NAME_MAX + 1], out[TRACE_NAME_MAX + 8];
	trace_attr_t a;
	size_t i, j;

	ATTR_INIT(a);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		size_t want = lens[i] < TRACE_NAME_MAX - 1 ? lens[i] : TRACE_NAME_MAX - 1;

		for (j = 0; j < lens[i]; j++)
			in[j] = (char)('a' + j % 26);
		in[lens[i]] = '\0';
		T_EXPECT_EQ(posix_trace_attr_setname(&a, in), 0);
		memset(out, POISON_BYTE, sizeof(out));
		T_EXPECT_EQ(posix_trace_attr_getname(&a, out), 0);
		T_EXPECT_EQ(strlen(out), want);
		T_EXPECT(memcmp(out, in, want) == 0);
		T_EXPECT_EQ(out[TRACE_NAME_MAX], POISON_BYTE);
	}
}

/* "The default value is a null string" */
static void name_default_is_a_null_string(void)
{
	trace_attr_t a;
	char n[TRACE_NAME_MAX];

	ATTR_INIT(a);
	memset(n, POISON_BYTE, sizeof(n));
	T_EXPECT_EQ(posix_trace_attr_getname(&a, n), 0);
	T_EXPECT_EQ(n[0], '\0');
}

/* ERRORS: [EINVAL] for a bad object and a NULL name, the name kept */
static void setname_einval(void)
{
	struct bad_attrs b;
	trace_attr_t good;
	char n[TRACE_NAME_MAX];

	bad_attrs_make(&b);
	FOR_BAD_ATTR(&b, a)
		T_EXPECT_EQ(posix_trace_attr_setname(a, "x"), EINVAL);
	ATTR_INIT(good);
	T_EXPECT_EQ(posix_trace_attr_setname(&good, "kept"), 0);
	T_EXPECT_EQ(posix_trace_attr_setname(&good, NULL), EINVAL);
	T_EXPECT_EQ(posix_trace_attr_getname(&good, n), 0);
	T_EXPECT(strcmp(n, "kept") == 0);
}

/* ======================================================================== */
/* posix_trace_attr_getlogsize(3p)                                          */

/* "shall calculate the maximum memory size, in bytes, required to store a
 * single system trace event": the record of POSIX_TRACE_FILTER, whose data
 * are two event sets (posix_trace(7))
 */
static void getmaxsystemeventsize_calculates_the_system_event_size(void)
{
	trace_attr_t a;
	size_t sz = POISON_SIZE, user0 = 0;

	ATTR_INIT(a);
	T_EXPECT_EQ(posix_trace_attr_getmaxsystemeventsize(&a, &sz), 0);
	/*
	 * 32 bytes of header, timestamp and koids, "posix:POSIX_TRACE_FILTER"
	 * (24) and "POSIX_TRACE_FILTER" (24) inline, "id" (16: its name
	 * inline too), "data" (16 and two event sets)
	 */
	T_EXPECT_EQ(sz, 32 + 24 + 24 + 16 + 16 + 2 * sizeof(trace_event_set_t));
	T_EXPECT_EQ(sz, 640);
	/* it does not depend on max-data-size */
	T_EXPECT_EQ(posix_trace_attr_setmaxdatasize(&a, 0), 0);
	T_EXPECT_EQ(posix_trace_attr_getmaxsystemeventsize(&a, &sz), 0);
	T_EXPECT_EQ(sz, 640);
	T_EXPECT_EQ(posix_trace_attr_getmaxusereventsize(&a, 0, &user0), 0);
	T_EXPECT(sz > user0);
}

/* "shall calculate the maximum memory size, in bytes, required to store a
 * single user trace event generated by a call to posix_trace_event() with
 * a data_len parameter equal to the data_len value specified": 64 bytes
 * and the data rounded up to 8 (posix_trace(7))
 */
static void getmaxusereventsize_calculates_the_user_event_size(void)
{
	static const size_t lens[] = { 0, 1, 7, 8, 9, 100, 1023, 1024 };
	trace_attr_t a;
	size_t i, sz, prev = 0;

	ATTR_INIT(a);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		sz = POISON_SIZE;
		T_EXPECT_EQ(posix_trace_attr_getmaxusereventsize(&a, lens[i], &sz), 0);
		T_EXPECT_EQ(sz, record_size(lens[i]));
		T_EXPECT_EQ(sz % 8, 0);
		T_EXPECT(sz >= prev && sz >= lens[i]);
		prev = sz;
	}
	T_EXPECT_EQ(record_size(0), 88);
	T_EXPECT_EQ(record_size(1), 96);
}

/* posix_trace_event() "shall" truncate data longer than max-data-size,
 * so a longer data_len needs no more memory than max-data-size does
 */
static void getmaxusereventsize_data_beyond_max_data_size_is_truncated(void)
{
	trace_attr_t a;
	size_t sz = POISON_SIZE;

	ATTR_INIT(a);
	T_EXPECT_EQ(posix_trace_attr_getmaxusereventsize(&a, PT_MAX_DATA_SIZE_DEFAULT + 1, &sz), 0);
	T_EXPECT_EQ(sz, record_size(PT_MAX_DATA_SIZE_DEFAULT));
	T_EXPECT_EQ(posix_trace_attr_getmaxusereventsize(&a, SIZE_MAX, &sz), 0);
	T_EXPECT_EQ(sz, record_size(PT_MAX_DATA_SIZE_DEFAULT));
	T_EXPECT_EQ(posix_trace_attr_setmaxdatasize(&a, 10), 0);
	T_EXPECT_EQ(posix_trace_attr_getmaxusereventsize(&a, 100, &sz), 0);
	T_EXPECT_EQ(sz, record_size(10));
	T_EXPECT_EQ(posix_trace_attr_setmaxdatasize(&a, PT_MAX_DATA_SIZE_MAX), 0);
	T_EXPECT_EQ(posix_trace_attr_getmaxusereventsize(&a, SIZE_MAX, &sz), 0);
	T_EXPECT_EQ(sz, record_size(PT_MAX_DATA_SIZE_MAX));
	T_EXPECT(sz <= TRACEBUF_LIB_FXT_RECORD_MAX);
}

/* ======================================================================== */
/* Every attribute, a row each: posix_trace_attr_getclockres(3p),           */
/* posix_trace_attr_getinherited(3p), posix_trace_attr_getlogsize(3p)       */

/* Values of an attribute, n of them: an int (a policy) as its two's complement */
struct values {
	uint64_t v[6];
	size_t n;
};

#define VALUES(...)	\
	{ { __VA_ARGS__ }, sizeof((uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t) }

/*
 * An attribute: its getter, one of get_*; with a setter (set_int or
 * set_size, the getter get_int or get_size), a value, with its default,
 * the values it takes, the values it refuses, the value a bad object is
 * refused (on_bad), and the bound posix_trace(7) states (limit, what it is).
 */
struct attr {
	const char *name;	/* posix_trace_attr_get<name>() */
	int (*get_ts)(const trace_attr_t *, struct timespec *);
	int (*get_str)(const trace_attr_t *, char *);
	int (*get_int)(const trace_attr_t *, int *);
	int (*get_size)(const trace_attr_t *, size_t *);
	int (*get_event_size)(const trace_attr_t *, size_t, size_t *);
	int (*set_int)(trace_attr_t *, int);
	int (*set_size)(trace_attr_t *, size_t);
	uint64_t def, on_bad, limit, limit_is;
	struct values good, bad;
};

static const struct attr attrs[] = {
	{ "clockres", .get_ts = posix_trace_attr_getclockres },
	{ "createtime", .get_ts = posix_trace_attr_getcreatetime },
	{ "genversion", .get_str = posix_trace_attr_getgenversion },
	{ "name", .get_str = posix_trace_attr_getname },
	/*
	 * "The default value for the inheritance attribute is
	 * POSIX_TRACE_CLOSE_FOR_CHILD"; "shall get and set the inheritance
	 * policy stored in the inheritance attribute"; "shall be set to one
	 * of the following values": POSIX_TRACE_CLOSE_FOR_CHILD,
	 * POSIX_TRACE_INHERITED.  ERRORS: [EINVAL] "The value specified by
	 * at least one of the arguments is invalid"
	 */
	{ "inherited", .get_int = posix_trace_attr_getinherited,
	  .set_int = posix_trace_attr_setinherited,
	  .def = POSIX_TRACE_CLOSE_FOR_CHILD, .on_bad = POSIX_TRACE_INHERITED,
	  .good = VALUES(POSIX_TRACE_INHERITED, POSIX_TRACE_CLOSE_FOR_CHILD, POSIX_TRACE_INHERITED),
	  .bad = VALUES(0, -1, POSIX_TRACE_LOOP, POSIX_TRACE_FLUSH, INT_MAX) },
	/*
	 * "The default value for the log-full-policy attribute shall be
	 * POSIX_TRACE_LOOP"; "shall get and set the trace log full policy
	 * stored in the log-full-policy attribute": POSIX_TRACE_LOOP,
	 * POSIX_TRACE_UNTIL_FULL, POSIX_TRACE_APPEND.  ERRORS: [EINVAL];
	 * POSIX_TRACE_FLUSH is a stream policy, not a log one
	 */
	{ "logfullpolicy", .get_int = posix_trace_attr_getlogfullpolicy,
	  .set_int = posix_trace_attr_setlogfullpolicy,
	  .def = POSIX_TRACE_LOOP, .on_bad = POSIX_TRACE_APPEND,
	  .good = VALUES(POSIX_TRACE_UNTIL_FULL, POSIX_TRACE_APPEND, POSIX_TRACE_LOOP),
	  .bad = VALUES(0, -1, POSIX_TRACE_FLUSH, POSIX_TRACE_INHERITED, INT_MIN) },
	/*
	 * "The default value for the stream-full-policy attribute shall be
	 * POSIX_TRACE_LOOP for an active trace stream without log" (an
	 * object not yet used for a stream reads so; posix_trace(7)); "shall
	 * get and set the trace stream full policy stored in the
	 * stream-full-policy attribute": POSIX_TRACE_LOOP,
	 * POSIX_TRACE_UNTIL_FULL, POSIX_TRACE_FLUSH (with the Trace Log
	 * option).  ERRORS: [EINVAL]; POSIX_TRACE_APPEND is a log policy, not
	 * a stream one
	 */
	{ "streamfullpolicy", .get_int = posix_trace_attr_getstreamfullpolicy,
	  .set_int = posix_trace_attr_setstreamfullpolicy,
	  .def = POSIX_TRACE_LOOP, .on_bad = POSIX_TRACE_LOOP,
	  .good = VALUES(POSIX_TRACE_UNTIL_FULL, POSIX_TRACE_FLUSH, POSIX_TRACE_LOOP),
	  .bad = VALUES(0, -1, POSIX_TRACE_APPEND, POSIX_TRACE_RUNNING, INT_MAX) },
	/*
	 * "shall copy the log size, in bytes, from the log-max-size
	 * attribute"; "The default value for the log-max-size attribute is
	 * implementation-defined" (64 MiB); "shall set the maximum allowed
	 * size, in bytes, in the log-max-size attribute ..., using the size
	 * value supplied by the logsize argument".  ERRORS: [EINVAL]; a log
	 * smaller than 4096 bytes (posix_trace(7))
	 */
	{ "logsize", .get_size = posix_trace_attr_getlogsize,
	  .set_size = posix_trace_attr_setlogsize,
	  .def = (uint64_t)64 << 20, .on_bad = 1 << 20,
	  .limit = PT_LOG_SIZE_MIN, .limit_is = 4096,
	  .good = VALUES(PT_LOG_SIZE_MIN, PT_LOG_SIZE_MIN + 1, 1000000, SIZE_MAX),
	  .bad = VALUES(0, PT_LOG_SIZE_MIN - 1) },
	/*
	 * "shall copy the maximum user trace event data size, in bytes, from
	 * the max-data-size attribute"; its default is implementation-defined
	 * (1024); "shall set the maximum allowed size, in bytes, of the data
	 * associated with a trace event (max-data-size attribute)".  ERRORS:
	 * [EINVAL]; more data than one FXT string holds (32000 bytes)
	 */
	{ "maxdatasize", .get_size = posix_trace_attr_getmaxdatasize,
	  .set_size = posix_trace_attr_setmaxdatasize,
	  .def = 1024, .on_bad = 16,
	  .limit = PT_MAX_DATA_SIZE_MAX, .limit_is = 32000,
	  .good = VALUES(0, 1, 7, 4096, PT_MAX_DATA_SIZE_MAX),
	  .bad = VALUES(PT_MAX_DATA_SIZE_MAX + 1, SIZE_MAX) },
	{ "maxsystemeventsize", .get_size = posix_trace_attr_getmaxsystemeventsize },
	{ "maxusereventsize", .get_event_size = posix_trace_attr_getmaxusereventsize },
	/*
	 * "shall copy the stream size, in bytes, from the stream-min-size
	 * attribute"; "The default value for the stream-min-size attribute
	 * is implementation-defined" (1 MiB); "shall set the minimum allowed
	 * size, in bytes, in the stream-min-size attribute ..., using the
	 * size value supplied by the streamsize argument" (kept as given, not
	 * rounded).  ERRORS: [EINVAL]; below 4096 bytes or above 4 GiB, a
	 * tracebuf buffer's bounds (posix_trace(7))
	 */
	{ "streamsize", .get_size = posix_trace_attr_getstreamsize,
	  .set_size = posix_trace_attr_setstreamsize,
	  .def = (uint64_t)1 << 20, .on_bad = 1 << 20,
	  .limit = PT_STREAM_SIZE_MIN, .limit_is = 4096,
	  .good = VALUES(PT_STREAM_SIZE_MIN, PT_STREAM_SIZE_MIN + 1, 5000, (uint64_t)1 << 30,
			 PT_STREAM_SIZE_MAX),
	  .bad = VALUES(0, PT_STREAM_SIZE_MIN - 1, PT_STREAM_SIZE_MAX + 1) },
};

#define NATTRS		(sizeof(attrs) / sizeof(attrs[0]))
#define FOR_ATTR(r)	for (const struct attr *r = attrs; r < attrs + NATTRS; r++)
/* the attributes with a value that can be set */
#define FOR_VALUE_ATTR(r)	FOR_ATTR(r) if (!r->set_int && !r->set_size) {} else

/* Whether @v can be passed to @r's setter: a size that size_t holds (any int). */
static bool value_fits(const struct attr *r, uint64_t v)
{
	return r->set_int || v <= SIZE_MAX;
}

static int value_set(const struct attr *r, trace_attr_t *a, uint64_t v)
{
	return r->set_int ? r->set_int(a, (int)v) : r->set_size(a, (size_t)v);
}

/* @r's value in @a into *@v (poisoned first): what its getter returned */
static int value_get(const struct attr *r, const trace_attr_t *a, uint64_t *v)
{
	size_t sz = POISON_SIZE;
	int i = POISON_INT, ret;

	if (r->get_int) {
		ret = r->get_int(a, &i);
		*v = (uint64_t)(int64_t)i;
	} else {
		ret = r->get_size(a, &sz);
		*v = sz;
	}
	return ret;
}

/* Each kind of output a getter writes. */
union attr_out {
	struct timespec ts;
	char str[TRACE_NAME_MAX];
	int i;
	size_t size;
};

/* @r's getter on @a, into @out (NULL: none); the size of events of 8 bytes of data */
static int attr_get(const struct attr *r, const trace_attr_t *a, union attr_out *out)
{
	if (r->get_ts)
		return r->get_ts(a, out ? &out->ts : NULL);
	if (r->get_str)
		return r->get_str(a, out ? out->str : NULL);
	if (r->get_int)
		return r->get_int(a, out ? &out->i : NULL);
	if (r->get_size)
		return r->get_size(a, out ? &out->size : NULL);
	return r->get_event_size(a, 8, out ? &out->size : NULL);
}

/* After the checks of row @r: which it was, if any of them failed since @failures. */
static void attr_row_done(const struct attr *r, int failures)
{
	if (t_failures > failures)
		printf("# (those of posix_trace_attr_get%s())\n", r->name);
}

/* Each attribute with a value reads its default in an object just initialized. */
static void attr_values_have_their_defaults(void)
{
	FOR_VALUE_ATTR(r) {
		int failures = t_failures;
		trace_attr_t a;
		uint64_t v;

		ATTR_INIT(a);
		T_EXPECT_EQ(value_get(r, &a, &v), 0);
		T_EXPECT_EQ(v, r->def);
		attr_row_done(r, failures);
	}
}

/* Each takes every value of its range, and reads it back. */
static void attr_values_set_and_get(void)
{
	FOR_VALUE_ATTR(r) {
		int failures = t_failures;
		trace_attr_t a;
		uint64_t v;

		ATTR_INIT(a);
		for (size_t i = 0; i < r->good.n; i++) {
			if (!value_fits(r, r->good.v[i]))
				continue;
			T_EXPECT_EQ(value_set(r, &a, r->good.v[i]), 0);
			T_EXPECT_EQ(value_get(r, &a, &v), 0);
			T_EXPECT_EQ(v, r->good.v[i]);
		}
		attr_row_done(r, failures);
	}
}

/*
 * ERRORS: [EINVAL] for a bad object, and for each value out of range,
 * which leaves the default as it was
 */
static void attr_setters_einval(void)
{
	FOR_VALUE_ATTR(r) {
		int failures = t_failures;
		struct bad_attrs b;
		trace_attr_t a;
		uint64_t v;

		bad_attrs_make(&b);
		FOR_BAD_ATTR(&b, p)
			T_EXPECT_EQ(value_set(r, p, r->on_bad), EINVAL);
		ATTR_INIT(a);
		if (r->limit_is)
			T_EXPECT_EQ(r->limit, r->limit_is);
		for (size_t i = 0; i < r->bad.n; i++)
			if (value_fits(r, r->bad.v[i]))
				T_EXPECT_EQ(value_set(r, &a, r->bad.v[i]), EINVAL);
		T_EXPECT_EQ(value_get(r, &a, &v), 0);
		T_EXPECT_EQ(v, r->def);
		attr_row_done(r, failures);
	}
}

/*
 * ERRORS: [EINVAL] "The value of one of the arguments is invalid": a bad
 * object, the output left alone, and a NULL output
 */
static void attr_getters_einval(void)
{
	FOR_ATTR(r) {
		int failures = t_failures;
		union attr_out out, poisoned;
		struct bad_attrs b;
		trace_attr_t good;

		bad_attrs_make(&b);
		memset(&out, POISON_BYTE, sizeof(out));
		poisoned = out;
		FOR_BAD_ATTR(&b, a)
			T_EXPECT_EQ(attr_get(r, a, &out), EINVAL);
		T_EXPECT_MEM(&out, &poisoned, sizeof(out));
		ATTR_INIT(good);
		T_EXPECT_EQ(attr_get(r, &good, NULL), EINVAL);
		attr_row_done(r, failures);
	}
}

/* ======================================================================== */
/* posix_trace_eventset_add(3p)                                             */

/* system event ids are 1..32 (posix_trace(7)) */
#define SYS_EVENTS	32
#define FIRST_USER_ID	(SYS_EVENTS + 1)
#define LAST_ID		(SYS_EVENTS + TRACE_USER_EVENT_MAX)

static const trace_event_id_t posix_system_ids[] = {
	POSIX_TRACE_START, POSIX_TRACE_STOP, POSIX_TRACE_FILTER, POSIX_TRACE_OVERFLOW,
	POSIX_TRACE_RESUME, POSIX_TRACE_FLUSH_START, POSIX_TRACE_FLUSH_STOP, POSIX_TRACE_ERROR,
};

/* *count = how many of the ids first..last are in s; 0 or an error */
static int count_members(const trace_event_set_t *s, unsigned int first, unsigned int last,
			 unsigned int *count)
{
	unsigned int id;
	int m, ret;

	*count = 0;
	for (id = first; id <= last; id++) {
		m = POISON_INT;
		ret = posix_trace_eventset_ismember(id, s, &m);
		if (ret)
			return ret;
		*count += m != 0;
	}
	return 0;
}

/* "shall initialize the trace event type set pointed to by the set
 * argument such that all trace event types defined, both system and user,
 * shall be excluded from the set"
 */
static void eventset_empty_excludes_every_event_type(void)
{
	trace_event_set_t s;
	unsigned int n = 1;

	memset(&s, 0xff, sizeof(s));
	T_EXPECT_EQ(posix_trace_eventset_empty(&s), 0);
	T_EXPECT_EQ(count_members(&s, 1, LAST_ID, &n), 0);
	T_EXPECT_EQ(n, 0);
}

/* POSIX_TRACE_ALL_EVENTS: "All trace event types defined, both system and
 * user, are included in the set"
 */
static void eventset_fill_all_events_includes_every_event_type(void)
{
	trace_event_set_t s;
	unsigned int n = 0;

	memset(&s, 0, sizeof(s));
	T_EXPECT_EQ(posix_trace_eventset_fill(&s, POSIX_TRACE_ALL_EVENTS), 0);
	T_EXPECT_EQ(count_members(&s, 1, LAST_ID, &n), 0);
	T_EXPECT_EQ(n, LAST_ID);
}

/* POSIX_TRACE_SYSTEM_EVENTS: "All the implementation-defined system trace
 * event types are included in the set, as are those defined in
 * POSIX.1-2008" (and no user event type)
 */
static void eventset_fill_system_events_includes_the_system_event_types(void)
{
	trace_event_set_t s;
	unsigned int n = 0;
	size_t i;
	int m;

	T_EXPECT_EQ(posix_trace_eventset_fill(&s, POSIX_TRACE_SYSTEM_EVENTS), 0);
	for (i = 0; i < sizeof(posix_system_ids) / sizeof(posix_system_ids[0]); i++) {
		m = 0;
		T_EXPECT_EQ(posix_trace_eventset_ismember(posix_system_ids[i], &s, &m), 0);
		T_EXPECT(m != 0);
	}
	T_EXPECT_EQ(count_members(&s, 1, SYS_EVENTS, &n), 0);
	T_EXPECT_EQ(n, SYS_EVENTS);
	T_EXPECT_EQ(count_members(&s, FIRST_USER_ID, LAST_ID, &n), 0);
	T_EXPECT_EQ(n, 0);
}

/* POSIX_TRACE_WOPID_EVENTS: "All the process-independent
 * implementation-defined system trace event types are included in the
 * set": this implementation defines none (posix_trace(7)), so neither the
 * POSIX system events nor user events are in it
 */
static void eventset_fill_wopid_events_includes_only_process_independent_types(void)
{
	trace_event_set_t s;
	unsigned int n = 1;

	memset(&s, 0xff, sizeof(s));
	T_EXPECT_EQ(posix_trace_eventset_fill(&s, POSIX_TRACE_WOPID_EVENTS), 0);
	T_EXPECT_EQ(count_members(&s, 1, LAST_ID, &n), 0);
	T_EXPECT_EQ(n, 0);
}

/* "The value of the argument what shall consist of one of the following
 * values"; ERRORS: [EINVAL]
 */
static void eventset_fill_einval(void)
{
	static const int bad[] = { 0, -1, POSIX_TRACE_SET_EVENTSET, POSIX_TRACE_LOOP, INT_MAX };
	trace_event_set_t s;
	size_t i;

	T_EXPECT_EQ(posix_trace_eventset_fill(NULL, POSIX_TRACE_ALL_EVENTS), EINVAL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		T_EXPECT_EQ(posix_trace_eventset_fill(&s, bad[i]), EINVAL);
}

static void eventset_empty_einval(void)
{
	T_EXPECT_EQ(posix_trace_eventset_empty(NULL), EINVAL);
}

/* "shall add ... the individual trace event type specified by the value
 * of the argument event_id to ... the trace event type set"
 */
static void eventset_add_adds_the_event_type(void)
{
	static const trace_event_id_t ids[] = { POSIX_TRACE_START, POSIX_TRACE_ERROR,
						SYS_EVENTS, FIRST_USER_ID, 100, LAST_ID };
	trace_event_set_t s;
	unsigned int n = 0;
	size_t i;
	int m;

	SET_EMPTY(s);
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		m = 0;
		T_EXPECT_EQ(posix_trace_eventset_add(ids[i], &s), 0);
		T_EXPECT_EQ(posix_trace_eventset_ismember(ids[i], &s, &m), 0);
		T_EXPECT(m != 0);
	}
	T_EXPECT_EQ(count_members(&s, 1, LAST_ID, &n), 0);
	T_EXPECT_EQ(n, sizeof(ids) / sizeof(ids[0]));
}

/* "shall ... delete the individual trace event type ... from the trace
 * event type set"
 */
static void eventset_del_deletes_the_event_type(void)
{
	static const trace_event_id_t ids[] = { POSIX_TRACE_STOP, FIRST_USER_ID, LAST_ID };
	trace_event_set_t s;
	unsigned int n = 0;
	size_t i;
	int m;

	T_ASSERT_EQ(posix_trace_eventset_fill(&s, POSIX_TRACE_ALL_EVENTS), 0);
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		m = 1;
		T_EXPECT_EQ(posix_trace_eventset_del(ids[i], &s), 0);
		T_EXPECT_EQ(posix_trace_eventset_ismember(ids[i], &s, &m), 0);
		T_EXPECT_EQ(m, 0);
	}
	T_EXPECT_EQ(count_members(&s, 1, LAST_ID, &n), 0);
	T_EXPECT_EQ(n, LAST_ID - sizeof(ids) / sizeof(ids[0]));
}

/* "Adding a trace event type already in the set ... shall not be
 * considered an error"
 */
static void eventset_add_of_a_member_is_not_an_error(void)
{
	trace_event_set_t s;
	int m = 0;

	SET_EMPTY(s);
	T_EXPECT_EQ(posix_trace_eventset_add(POSIX_TRACE_FILTER, &s), 0);
	T_EXPECT_EQ(posix_trace_eventset_add(POSIX_TRACE_FILTER, &s), 0);
	T_EXPECT_EQ(posix_trace_eventset_ismember(POSIX_TRACE_FILTER, &s, &m), 0);
	T_EXPECT(m != 0);
	T_EXPECT_EQ(posix_trace_eventset_del(POSIX_TRACE_FILTER, &s), 0);
	T_EXPECT_EQ(posix_trace_eventset_ismember(POSIX_TRACE_FILTER, &s, &m), 0);
	T_EXPECT_EQ(m, 0);
}

/* "... or deleting a trace event type not in the set shall not be
 * considered an error"
 */
static void eventset_del_of_a_non_member_is_not_an_error(void)
{
	trace_event_set_t s;
	unsigned int n = 1;

	SET_EMPTY(s);
	T_EXPECT_EQ(posix_trace_eventset_del(POSIX_TRACE_UNNAMED_USER_EVENT, &s), 0);
	T_EXPECT_EQ(posix_trace_eventset_del(POSIX_TRACE_START, &s), 0);
	T_EXPECT_EQ(count_members(&s, 1, LAST_ID, &n), 0);
	T_EXPECT_EQ(n, 0);
}

/* "The value returned in the object pointed to by ismember argument is
 * zero if the trace event type identifier is not a member of the set and
 * a value different from zero if it is a member of the set"
 */
static void eventset_ismember_zero_iff_not_a_member(void)
{
	trace_event_set_t s;
	int m;

	SET_EMPTY(s);
	m = POISON_INT;
	T_EXPECT_EQ(posix_trace_eventset_ismember(FIRST_USER_ID + 1, &s, &m), 0);
	T_EXPECT_EQ(m, 0);
	T_EXPECT_EQ(posix_trace_eventset_add(FIRST_USER_ID + 1, &s), 0);
	m = 0;
	T_EXPECT_EQ(posix_trace_eventset_ismember(FIRST_USER_ID + 1, &s, &m), 0);
	T_EXPECT(m != 0);
	/* the neighbours are not */
	m = POISON_INT;
	T_EXPECT_EQ(posix_trace_eventset_ismember(FIRST_USER_ID, &s, &m), 0);
	T_EXPECT_EQ(m, 0);
	m = POISON_INT;
	T_EXPECT_EQ(posix_trace_eventset_ismember(FIRST_USER_ID + 2, &s, &m), 0);
	T_EXPECT_EQ(m, 0);
}

/* "They operate on data objects addressable by the application": a set
 * is plain data, a copy is a set of its own
 */
static void eventset_is_application_data(void)
{
	trace_event_set_t s, t;
	int m = 0;

	SET_EMPTY(s);
	t = s;
	T_EXPECT_EQ(posix_trace_eventset_add(POSIX_TRACE_RESUME, &t), 0);
	T_EXPECT_EQ(posix_trace_eventset_ismember(POSIX_TRACE_RESUME, &t, &m), 0);
	T_EXPECT(m != 0);
	T_EXPECT_EQ(posix_trace_eventset_ismember(POSIX_TRACE_RESUME, &s, &m), 0);
	T_EXPECT_EQ(m, 0);
}

/* ERRORS: [EINVAL] "The value of one of the arguments is invalid": an id
 * that is no event type, a set not initialized, NULL
 */
static void eventset_add_del_ismember_einval(void)
{
	static const trace_event_id_t bad_ids[] = { 0, LAST_ID + 1, 2048, 0xffffffffu };
	trace_event_set_t s, garbage, zero;
	unsigned int n = 1;
	size_t i;
	int m = POISON_INT;

	SET_EMPTY(s);
	memset(&garbage, 0xa5, sizeof(garbage));
	memset(&zero, 0, sizeof(zero));
	for (i = 0; i < sizeof(bad_ids) / sizeof(bad_ids[0]); i++) {
		T_EXPECT_EQ(posix_trace_eventset_add(bad_ids[i], &s), EINVAL);
		T_EXPECT_EQ(posix_trace_eventset_del(bad_ids[i], &s), EINVAL);
		T_EXPECT_EQ(posix_trace_eventset_ismember(bad_ids[i], &s, &m), EINVAL);
	}
	T_EXPECT_EQ(posix_trace_eventset_add(POSIX_TRACE_START, NULL), EINVAL);
	T_EXPECT_EQ(posix_trace_eventset_add(POSIX_TRACE_START, &garbage), EINVAL);
	T_EXPECT_EQ(posix_trace_eventset_add(POSIX_TRACE_START, &zero), EINVAL);
	T_EXPECT_EQ(posix_trace_eventset_del(POSIX_TRACE_START, NULL), EINVAL);
	T_EXPECT_EQ(posix_trace_eventset_del(POSIX_TRACE_START, &garbage), EINVAL);
	T_EXPECT_EQ(posix_trace_eventset_del(POSIX_TRACE_START, &zero), EINVAL);
	T_EXPECT_EQ(posix_trace_eventset_ismember(POSIX_TRACE_START, NULL, &m), EINVAL);
	T_EXPECT_EQ(posix_trace_eventset_ismember(POSIX_TRACE_START, &garbage, &m), EINVAL);
	T_EXPECT_EQ(posix_trace_eventset_ismember(POSIX_TRACE_START, &zero, &m), EINVAL);
	T_EXPECT_EQ(posix_trace_eventset_ismember(POSIX_TRACE_START, &s, NULL), EINVAL);
	T_EXPECT_EQ(m, POISON_INT);
	/* nothing was added by the refused calls */
	T_EXPECT_EQ(count_members(&s, 1, LAST_ID, &n), 0);
	T_EXPECT_EQ(n, 0);
}

/* ======================================================================== */
/* posix_trace_eventid_equal(3p)                                            */

/* "shall compare the trace event type identifiers event1 and event2";
 * "shall return a non-zero value if event1 and event2 are equal"
 */
static void eventid_equal_nonzero_when_equal(void)
{
	T_EXPECT(posix_trace_eventid_equal(0, POSIX_TRACE_START, POSIX_TRACE_START) != 0);
	T_EXPECT(posix_trace_eventid_equal(0, POSIX_TRACE_UNNAMED_USER_EVENT,
					   POSIX_TRACE_UNNAMED_USEREVENT) != 0);
	T_EXPECT(posix_trace_eventid_equal(0, LAST_ID, LAST_ID) != 0);
}

/* "otherwise, a value of zero shall be returned" */
static void eventid_equal_zero_when_different(void)
{
	size_t i, j, n = sizeof(posix_system_ids) / sizeof(posix_system_ids[0]);

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (i != j)
				T_EXPECT_EQ(posix_trace_eventid_equal(0, posix_system_ids[i],
								      posix_system_ids[j]), 0);
	T_EXPECT_EQ(posix_trace_eventid_equal(0, POSIX_TRACE_START,
					      POSIX_TRACE_UNNAMED_USER_EVENT), 0);
}

/* the result for one stream does not depend on which: trid is not used */
static void eventid_equal_same_for_every_trid(void)
{
	static const trace_id_t trids[] = { 0, 1, -1, 12345 };
	size_t i;

	for (i = 0; i < sizeof(trids) / sizeof(trids[0]); i++) {
		T_EXPECT(posix_trace_eventid_equal(trids[i], FIRST_USER_ID, FIRST_USER_ID) != 0);
		T_EXPECT_EQ(posix_trace_eventid_equal(trids[i], FIRST_USER_ID, FIRST_USER_ID + 1),
			    0);
	}
}

/* ======================================================================== */
/* trace.h(0p)                                                              */

/* "The <trace.h> header shall define the following symbolic constants",
 * each a value of its own (posix_trace(7))
 */
static void header_symbolic_constants_are_distinct(void)
{
	static const int c[] = {
		POSIX_TRACE_ALL_EVENTS, POSIX_TRACE_APPEND, POSIX_TRACE_CLOSE_FOR_CHILD,
		POSIX_TRACE_FLUSH, POSIX_TRACE_FLUSHING, POSIX_TRACE_FULL, POSIX_TRACE_LOOP,
		POSIX_TRACE_NO_OVERRUN, POSIX_TRACE_NOT_FLUSHING, POSIX_TRACE_NOT_FULL,
		POSIX_TRACE_INHERITED, POSIX_TRACE_NOT_TRUNCATED, POSIX_TRACE_OVERRUN,
		POSIX_TRACE_RUNNING, POSIX_TRACE_SUSPENDED, POSIX_TRACE_SYSTEM_EVENTS,
		POSIX_TRACE_TRUNCATED_READ, POSIX_TRACE_TRUNCATED_RECORD,
		POSIX_TRACE_UNTIL_FULL, POSIX_TRACE_WOPID_EVENTS, POSIX_TRACE_SET_EVENTSET,
		POSIX_TRACE_ADD_EVENTSET, POSIX_TRACE_SUB_EVENTSET,
	};
	static const trace_event_id_t ids[] = {
		POSIX_TRACE_START, POSIX_TRACE_STOP, POSIX_TRACE_FILTER, POSIX_TRACE_OVERFLOW,
		POSIX_TRACE_RESUME, POSIX_TRACE_FLUSH_START, POSIX_TRACE_FLUSH_STOP,
		POSIX_TRACE_ERROR, POSIX_TRACE_UNNAMED_USER_EVENT,
	};
	size_t i, j;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		T_EXPECT(c[i] != 0);
		for (j = i + 1; j < sizeof(c) / sizeof(c[0]); j++)
			if (c[i] == c[j])
				T_FAIL("constants %zu and %zu are both %d", i, j, c[i]);
	}
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		T_EXPECT(ids[i] != 0);
		for (j = i + 1; j < sizeof(ids) / sizeof(ids[0]); j++)
			if (ids[i] == ids[j])
				T_FAIL("event ids %zu and %zu are both %u", i, j, ids[i]);
	}
	T_EXPECT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, POSIX_TRACE_UNNAMED_USER_EVENT);
}

/* the system events are system ids, the unnamed user event the first user
 * id, and every id fits an event set
 */
static void header_event_ids_are_in_their_ranges(void)
{
	size_t i;

	for (i = 0; i < sizeof(posix_system_ids) / sizeof(posix_system_ids[0]); i++)
		T_EXPECT(posix_system_ids[i] >= 1 && posix_system_ids[i] <= SYS_EVENTS);
	T_EXPECT_EQ(POSIX_TRACE_UNNAMED_USER_EVENT, FIRST_USER_ID);
	T_EXPECT(LAST_ID < 8 * (sizeof(trace_event_set_t) - 8));
}

/* the limits: at least the POSIX minimums, and the values chosen */
static void header_limits_meet_the_posix_minimums(void)
{
	T_EXPECT(TRACE_NAME_MAX >= 8);
	T_EXPECT(TRACE_EVENT_NAME_MAX >= 30);
	T_EXPECT(TRACE_SYS_MAX >= 8);
	T_EXPECT(TRACE_USER_EVENT_MAX >= 32);
	T_EXPECT_EQ(TRACE_NAME_MAX, 101);
	T_EXPECT_EQ(TRACE_EVENT_NAME_MAX, 93);
	T_EXPECT_EQ(TRACE_SYS_MAX, 16);
	T_EXPECT_EQ(TRACE_USER_EVENT_MAX, 256);
	T_EXPECT(sizeof(PT_GENVERSION) <= TRACE_NAME_MAX);
}

/* the options: all four, POSIX.1-2008 */
static void header_option_macros_are_200809(void)
{
	T_EXPECT_EQ(_POSIX_TRACE, 200809L);
	T_EXPECT_EQ(_POSIX_TRACE_EVENT_FILTER, 200809L);
	T_EXPECT_EQ(_POSIX_TRACE_LOG, 200809L);
	T_EXPECT_EQ(_POSIX_TRACE_INHERIT, 200809L);
}

#define T_MEMBER_TYPE(s, m, type)	_Generic(((s *)0)->m, type: 1, default: 0)

/* "shall define the posix_trace_event_info structure, which shall include
 * at least the following members"
 */
static void header_event_info_has_the_members(void)
{
	typedef struct posix_trace_event_info ei;

	T_EXPECT(T_MEMBER_TYPE(ei, posix_event_id, trace_event_id_t));
	T_EXPECT(T_MEMBER_TYPE(ei, posix_pid, pid_t));
	T_EXPECT(T_MEMBER_TYPE(ei, posix_prog_address, void *));
	T_EXPECT(T_MEMBER_TYPE(ei, posix_thread_id, pthread_t));
	T_EXPECT(T_MEMBER_TYPE(ei, posix_timestamp, struct timespec));
	T_EXPECT(T_MEMBER_TYPE(ei, posix_truncation_status, int));
}

/* "shall define the posix_trace_status_info structure, which shall
 * include at least the following members"
 */
static void header_status_info_has_the_members(void)
{
	typedef struct posix_trace_status_info si;

	T_EXPECT(T_MEMBER_TYPE(si, posix_stream_full_status, int));
	T_EXPECT(T_MEMBER_TYPE(si, posix_stream_overrun_status, int));
	T_EXPECT(T_MEMBER_TYPE(si, posix_stream_status, int));
	T_EXPECT(T_MEMBER_TYPE(si, posix_log_full_status, int));
	T_EXPECT(T_MEMBER_TYPE(si, posix_log_overrun_status, int));
	T_EXPECT(T_MEMBER_TYPE(si, posix_stream_flush_error, int));
	T_EXPECT(T_MEMBER_TYPE(si, posix_stream_flush_status, int));
}

/* the types are complete, of fixed size, and copyable */
static void header_types_have_fixed_sizes(void)
{
	T_EXPECT_EQ(sizeof(trace_attr_t), 512);
	T_EXPECT_EQ(sizeof(trace_event_set_t), 264);
	T_EXPECT_EQ(_Alignof(trace_attr_t), _Alignof(long long));
	T_EXPECT(sizeof(trace_id_t) > 0 && sizeof(trace_event_id_t) == 4);
}

/*
 * Which data go in a log as a string (tracebuf_fxt_utf8()): exactly the
 * well-formed UTF-8 (Unicode's table 3-7), as FXT's strings must be.
 */
static void data_is_text_when_utf8(void)
{
	static const struct {
		const char *s;
		size_t len;
		bool text;
	} v[] = {
		{ "", 0, true },
		{ "plain ASCII, more than eight bytes", 34, true },
		{ "\x00\x01\x7f", 3, true },
		{ "\xc2\x80 \xdf\xbf", 5, true },		/* U+0080, U+07FF */
		{ "\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf", 12, true },
		{ "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", 8, true },	/* U+10000, U+10FFFF */
		{ "\x80", 1, false },				/* a continuation byte */
		{ "\xc0\x80", 2, false },			/* overlong NUL */
		{ "\xc1\xbf", 2, false },
		{ "\xe0\x9f\xbf", 3, false },			/* overlong */
		{ "\xed\xa0\x80", 3, false },			/* U+D800 */
		{ "\xf0\x8f\xbf\xbf", 4, false },		/* overlong */
		{ "\xf4\x90\x80\x80", 4, false },		/* U+110000 */
		{ "\xf5\x80\x80\x80", 4, false },
		{ "\xff", 1, false },
		{ "eight ok\xe2\x82", 10, false },		/* cut short */
		{ "\xe2\x28\xa1", 3, false },			/* no continuation */
		{ "12345678\xef\xbe\xad\xde", 12, false },	/* a word, after ASCII */
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (tracebuf_fxt_utf8(v[i].s, v[i].len) != v[i].text)
			T_FAIL("case %zu: %s", i, v[i].text ? "not text" : "text");
	T_EXPECT(tracebuf_fxt_utf8(NULL, 0));
	/* the record is the same size, a string or a blob */
	T_EXPECT_EQ(pt_event_record_size(4), 96);
}

/*
 * posix_trace(7): without the module a traced process records nothing and
 * no function of it fails, and both create functions fail with ENODEV,
 * writing nothing to the log.  (On a machine with the module loaded there
 * is nothing to check here: the guest's tests run the rest.)
 */
static void without_the_module_create_is_enodev(void)
{
	trace_event_id_t id;
	trace_id_t trid;
	int fd;

	if (!access("/dev/tracebuf", F_OK)) {
		printf("# /dev/tracebuf exists: the module is there, nothing to check\n");
		return;
	}
	T_EXPECT_EQ(posix_trace_eventid_open("without-the-module", &id), 0);
	posix_trace_event(id, "x", 1);
	T_EXPECT_EQ(posix_trace_create(0, NULL, &trid), ENODEV);
	fd = memfd_create("log", MFD_CLOEXEC);
	T_ASSERT(fd >= 0);
	T_EXPECT_EQ(posix_trace_create_withlog(0, NULL, fd, &trid), ENODEV);
	T_EXPECT_EQ(lseek(fd, 0, SEEK_END), 0);
	close(fd);
}

static const struct t_test tests[] = {
	T_TEST(data_is_text_when_utf8),
	/* posix_trace_attr_destroy(3p) */
	T_TEST(attr_init_sets_default_values),
	T_TEST(attr_init_sets_genversion_and_clockres),
	T_TEST(attr_destroy_destroys_an_initialized_object),
	T_TEST(attr_destroyed_object_can_be_reinitialized),
	T_TEST(attr_copy_is_an_independent_object),
	T_TEST(attr_init_einval),
	T_TEST(attr_destroy_einval),
	/* posix_trace_attr_getclockres(3p) */
	T_TEST(getclockres_copies_the_clock_resolution),
	T_TEST(getcreatetime_copies_the_creation_time),
	T_TEST(getgenversion_copies_the_version_string),
	T_TEST(getname_copies_the_trace_name),
	T_TEST(setname_sets_the_name_attribute),
	T_TEST(setname_truncates_to_trace_name_max_minus_one),
	T_TEST(name_default_is_a_null_string),
	T_TEST(setname_einval),
	/* posix_trace_attr_getlogsize(3p) */
	T_TEST(getmaxsystemeventsize_calculates_the_system_event_size),
	T_TEST(getmaxusereventsize_calculates_the_user_event_size),
	T_TEST(getmaxusereventsize_data_beyond_max_data_size_is_truncated),
	/* every attribute, a row each */
	T_TEST(attr_values_have_their_defaults),
	T_TEST(attr_values_set_and_get),
	T_TEST(attr_setters_einval),
	T_TEST(attr_getters_einval),
	/* posix_trace_eventset_add(3p) */
	T_TEST(eventset_empty_excludes_every_event_type),
	T_TEST(eventset_fill_all_events_includes_every_event_type),
	T_TEST(eventset_fill_system_events_includes_the_system_event_types),
	T_TEST(eventset_fill_wopid_events_includes_only_process_independent_types),
	T_TEST(eventset_fill_einval),
	T_TEST(eventset_empty_einval),
	T_TEST(eventset_add_adds_the_event_type),
	T_TEST(eventset_del_deletes_the_event_type),
	T_TEST(eventset_add_of_a_member_is_not_an_error),
	T_TEST(eventset_del_of_a_non_member_is_not_an_error),
	T_TEST(eventset_ismember_zero_iff_not_a_member),
	T_TEST(eventset_is_application_data),
	T_TEST(eventset_add_del_ismember_einval),
	/* posix_trace_eventid_equal(3p) */
	T_TEST(eventid_equal_nonzero_when_equal),
	T_TEST(eventid_equal_zero_when_different),
	T_TEST(eventid_equal_same_for_every_trid),
	/* trace.h(0p) */
	T_TEST(header_symbolic_constants_are_distinct),
	T_TEST(header_event_ids_are_in_their_ranges),
	T_TEST(header_limits_meet_the_posix_minimums),
	T_TEST(header_option_macros_are_200809),
	T_TEST(header_event_info_has_the_members),
	T_TEST(header_status_info_has_the_members),
	T_TEST(header_types_have_fixed_sizes),
	/* posix_trace(7) */
	T_TEST(without_the_module_create_is_enodev),
};

T_MAIN(tests)
