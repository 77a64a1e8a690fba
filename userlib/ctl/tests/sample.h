/* SPDX-License-Identifier: MIT */
/*
 * A sample FXT trace for the convert and dump tests, built with the
 * encoder of tracebuf_fxt.h: what convert_test.c checks and mkfxt writes.
 *
 * Provider 1 "app" (2e9 ticks per second, so ns = ticks / 2), its thread
 * 1 = pid 100 / tid 101 named "worker" by a kernel object record, and
 * provider 2 "other" with an inline thread pid 200 / tid 201.  Events:
 *
 *   name            type        ticks (ns)       extra
 *   "hi \"q\"\n"    instant     2000 (1000)      10 arguments, every type
 *   work            begin       4000 (2000)
 *   work            end         6000 (3000)
 *   cmp             complete    8000 (4000)      end 12000 (6000)
 *   ctr             counter     14000 (7000)     id 7: value=10 str="x" d=2.5
 *   req             async b/n/e 16000, 18000, 20000   id 0x99
 *   fl              flow s/t/f  22000, 24000, 26000   id 5
 *   "bad\xff..."    instant     28000            invalid UTF-8, a control char
 *   other-ev        instant     3000 (provider 2, ticks/s 1e9: ns 3000)
 *   last            instant     30000 (15000)   provider 1 again, after a
 *                                               section and an overflow record
 *
 * plus a blob record (ignored by convert), and for provider 1 a context
 * switch (32000: tid 101 blocks on CPU 1, tid 0 runs) and a wakeup of tid
 * 101 (34000), which dump prints and convert writes into the JSON's
 * systemTraceEvents.
 */
#ifndef TBCTL_TESTS_SAMPLE_H
#define TBCTL_TESTS_SAMPLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tracebuf_fxt.h>

#define SAMPLE_MAX_RECORDS	64
#define SAMPLE_EVENTS		14	/* event records */
#define SAMPLE_BAD_NAME		"bad\xff\xc3(\x01name"

struct sample {
	uint64_t words[2048];
	size_t len;				/* bytes */
	unsigned int records;
	size_t offsets[SAMPLE_MAX_RECORDS];	/* of each record */
	size_t first_event;			/* offset of the first event */
};

#define SAMPLE_ADD(s, call)						\
	do {								\
		uint64_t *dst_ = (s)->words + (s)->len / 8;		\
		size_t cap_ = sizeof((s)->words) - (s)->len;		\
		int r_;							\
									\
		(void)dst_;						\
		(void)cap_;						\
		r_ = (call);						\
		if (r_ < 0 || (s)->records >= SAMPLE_MAX_RECORDS)	\
			return r_ < 0 ? r_ : -E2BIG;			\
		(s)->offsets[(s)->records++] = (s)->len;		\
		(s)->len += (size_t)r_;					\
	} while (0)

static inline struct tracebuf_fxt_str sample_str(const char *s)
{
	return tracebuf_fxt_str_inline(s, strlen(s));
}

static inline int sample_event(struct sample *s, unsigned int type, uint64_t ticks,
			       struct tracebuf_fxt_thread thread, const char *name,
			       const struct tracebuf_fxt_arg *args, unsigned int nargs,
			       uint64_t extra)
{
	struct tracebuf_fxt_event ev = {
		.type = type,
		.ticks = ticks,
		.thread = thread,
		.category = tracebuf_fxt_str_index(1),	/* "cat" */
		.name = sample_str(name),
		.args = args,
		.nargs = nargs,
		.extra = extra,
	};

	if (!s->first_event)
		s->first_event = s->len;
	SAMPLE_ADD(s, tracebuf_fxt_event_write(dst_, cap_, &ev));
	return 0;
}

/* Build the sample into *s: 0 or -errno. */
static inline int sample_build(struct sample *s)
{
	const struct tracebuf_fxt_thread t1 = tracebuf_fxt_thread_index(1);
	struct tracebuf_fxt_arg all[11], ctr[3], proc;
	struct tracebuf_fxt_sched sched = { 0 };
	struct tracebuf_fxt_kobj kobj;
	struct tracebuf_fxt_str blob_name = sample_str("blob");
	int ret;

	memset(s, 0, sizeof(*s));
	SAMPLE_ADD(s, tracebuf_fxt_magic_write(dst_, cap_));
	SAMPLE_ADD(s, tracebuf_fxt_provider_info_write(dst_, cap_, 1, "app", 3));
	SAMPLE_ADD(s, tracebuf_fxt_init_write(dst_, cap_, 2000000000ULL));
	SAMPLE_ADD(s, tracebuf_fxt_string_write(dst_, cap_, 1, "cat", 3));
	SAMPLE_ADD(s, tracebuf_fxt_string_write(dst_, cap_, 2, "i32", 3));
	SAMPLE_ADD(s, tracebuf_fxt_thread_write(dst_, cap_, 1, 100, 101));
	tracebuf_fxt_kobj_thread(&kobj, &proc, 101, 100, sample_str("worker"));
	SAMPLE_ADD(s, tracebuf_fxt_kobj_write(dst_, cap_, &kobj));

	all[0] = tracebuf_fxt_arg_int32(tracebuf_fxt_str_index(2), -5);
	all[1] = tracebuf_fxt_arg_uint32(sample_str("u32"), 7);
	all[2] = tracebuf_fxt_arg_int64(sample_str("i64"), -1000000000000LL);
	all[3] = tracebuf_fxt_arg_uint64(sample_str("u64"), 9223372036854775809ULL);
	all[4] = tracebuf_fxt_arg_double(sample_str("dbl"), 1.5);
	all[5] = tracebuf_fxt_arg_string(sample_str("str"), sample_str("s\tv\"\\"));
	all[6] = tracebuf_fxt_arg_pointer(sample_str("ptr"), 0xdeadbeefULL);
	all[7] = tracebuf_fxt_arg_koid(sample_str("koid"), 42);
	all[8] = tracebuf_fxt_arg_bool(sample_str("flag"), true);
	all[9] = tracebuf_fxt_arg_null(sample_str("nothing"));
	all[10] = tracebuf_fxt_arg_blob(sample_str("bytes"), "\xff\x00\xfe", 3);
	ret = sample_event(s, TRACEBUF_LIB_FXT_EVENT_INSTANT, 2000, t1, "hi \"q\"\n",
			   all, 11, 0);
	if (ret)
		return ret;
	ret = sample_event(s, TRACEBUF_LIB_FXT_EVENT_DURATION_BEGIN, 4000, t1, "work",
			   NULL, 0, 0);
	if (!ret)
		ret = sample_event(s, TRACEBUF_LIB_FXT_EVENT_DURATION_END, 6000, t1, "work",
				   NULL, 0, 0);
	if (!ret)
		ret = sample_event(s, TRACEBUF_LIB_FXT_EVENT_DURATION_COMPLETE, 8000, t1, "cmp",
				   NULL, 0, 12000);
	ctr[0] = tracebuf_fxt_arg_int64(sample_str("value"), 10);
	ctr[1] = tracebuf_fxt_arg_string(sample_str("str"), sample_str("x"));
	ctr[2] = tracebuf_fxt_arg_double(sample_str("d"), 2.5);
	if (!ret)
		ret = sample_event(s, TRACEBUF_LIB_FXT_EVENT_COUNTER, 14000, t1, "ctr",
				   ctr, 3, 7);
	for (unsigned int i = 0; i < 3 && !ret; i++)
		ret = sample_event(s, TRACEBUF_LIB_FXT_EVENT_ASYNC_BEGIN + i, 16000 + 2000 * i,
				   t1, "req", NULL, 0, 0x99);
	for (unsigned int i = 0; i < 3 && !ret; i++)
		ret = sample_event(s, TRACEBUF_LIB_FXT_EVENT_FLOW_BEGIN + i, 22000 + 2000 * i,
				   t1, "fl", NULL, 0, 5);
	if (!ret)
		ret = sample_event(s, TRACEBUF_LIB_FXT_EVENT_INSTANT, 28000, t1,
				   SAMPLE_BAD_NAME, NULL, 0, 0);
	if (ret)
		return ret;
	SAMPLE_ADD(s, tracebuf_fxt_blob_write(dst_, cap_, TRACEBUF_LIB_FXT_BLOB_DATA,
					      &blob_name, "payload", 7));
	SAMPLE_ADD(s, tracebuf_fxt_provider_info_write(dst_, cap_, 2, "other", 5));
	SAMPLE_ADD(s, tracebuf_fxt_string_write(dst_, cap_, 1, "cat", 3));
	ret = sample_event(s, TRACEBUF_LIB_FXT_EVENT_INSTANT, 3000,
			   tracebuf_fxt_thread_inline(200, 201), "other-ev", NULL, 0, 0);
	if (ret)
		return ret;
	/* back to provider 1: a section record, and one more event */
	SAMPLE_ADD(s, tracebuf_fxt_provider_section_write(dst_, cap_, 1));
	SAMPLE_ADD(s, tracebuf_fxt_provider_event_write(dst_, cap_, 1,
						       TRACEBUF_LIB_FXT_PROVIDER_EVENT_BUFFER_OVERFLOW));
	ret = sample_event(s, TRACEBUF_LIB_FXT_EVENT_INSTANT, 30000, t1, "last", NULL, 0, 0);
	if (ret)
		return ret;
	/* what a kernel provider writes: worker blocks on CPU 1, is woken */
	sched.type = TRACEBUF_LIB_FXT_SCHED_CONTEXT_SWITCH;
	sched.ticks = 32000;
	sched.cpu = 1;
	sched.outgoing_state = TRACEBUF_LIB_FXT_THREAD_BLOCKED;
	sched.outgoing_koid = 101;
	SAMPLE_ADD(s, tracebuf_fxt_sched_write(dst_, cap_, &sched));
	sched.type = TRACEBUF_LIB_FXT_SCHED_THREAD_WAKEUP;
	sched.ticks = 34000;
	sched.incoming_koid = 101;
	SAMPLE_ADD(s, tracebuf_fxt_sched_write(dst_, cap_, &sched));
	return 0;
}

#endif /* TBCTL_TESTS_SAMPLE_H */
