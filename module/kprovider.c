// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf: the kernel provider.  With the module parameter
 * kernel_provider set, the module registers a provider of its own,
 * "kernel", that a manager drives like any other and that records what
 * the scheduler does, as FXT scheduling and kernel object records
 * (userlib/Documentation/trace-format.md §4.2), next to the user-space
 * providers of the same session and on their timebase.
 *
 * Categories, off unless named (a session with "every category" leaves
 * them off): "sched", context switches and wakeups, with the threads
 * named; "sched.name", the names only.
 *
 * Control.  Packets reach its inbox as any provider's (the manager side
 * is unchanged); tracebuf_provider_push() queues ->work, which answers
 * them in order through tracebuf_provider_send().  Only the work item
 * touches the fields marked [W], and the probes read them only between
 * their registration and unregistration.
 *
 * Writers: per-CPU chunks of one buffer.  A probe writes with interrupts
 * off on its CPU (sched_switch has them off already; a wakeup may come
 * from an interrupt), whole records into its CPU's chunk, and takes the
 * next chunk from the shared cursor with one atomic add when the chunk is
 * full: no lock, and no other shared write.  Per-CPU buffers merged by
 * the manager were the other choice; they would put a provider and a
 * buffer per CPU in the registry and a merge by timestamp in every
 * reader, where one buffer keeps the kernel one provider read out like
 * any other, at the price of an atomic add per chunk.  A chunk's unused
 * tail is padded by its CPU when it takes the next one; a snapshot closes
 * every CPU's chunk with an IPI, which runs between two records since a
 * record is written with interrupts off; a stop closes them once the
 * probes are gone (tracepoint_synchronize_unregister()).
 *
 * This first version fills its first rolling buffer in every mode and
 * then drops records (counted in the header); it never asks for a save.
 *
 * Threads are numbered in the pid namespace of the manager that started
 * the provider; a thread that namespace does not see is written as
 * thread 0 and never named, so a manager in a container learns nothing
 * about the threads outside it but that the CPU was busy.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/pid_namespace.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "tracebuf_priv.h"

/* FXT (trace-format.md §4). */
#define TRACEBUF_FXT_INIT		1
#define TRACEBUF_FXT_STRING		2
#define TRACEBUF_FXT_BLOB		5
#define TRACEBUF_FXT_KOBJ		7
#define TRACEBUF_FXT_SCHED		8
#define TRACEBUF_FXT_ARG_INT32		1
#define TRACEBUF_FXT_ARG_KOID		8
#define TRACEBUF_FXT_OBJ_PROCESS	1
#define TRACEBUF_FXT_OBJ_THREAD		2
#define TRACEBUF_FXT_SCHED_SWITCH	1
#define TRACEBUF_FXT_SCHED_WAKEUP	2
#define TRACEBUF_FXT_THREAD_RUNNING	1
#define TRACEBUF_FXT_THREAD_SUSPENDED	2
#define TRACEBUF_FXT_THREAD_BLOCKED	3
#define TRACEBUF_FXT_THREAD_DEAD	5
#define TRACEBUF_FXT_INLINE		0x8000
#define TRACEBUF_FXT_MAX_WORDS		0xfff

/* The string table the prelude writes: the argument names. */
enum {
	TRACEBUF_KSTR_OUT_WEIGHT = 1,
	TRACEBUF_KSTR_IN_WEIGHT,
	TRACEBUF_KSTR_WEIGHT,
	TRACEBUF_KSTR_PROCESS,
};

static const char *const tracebuf_kstrings[] = {
	[TRACEBUF_KSTR_OUT_WEIGHT] = "outgoing_weight",
	[TRACEBUF_KSTR_IN_WEIGHT] = "incoming_weight",
	[TRACEBUF_KSTR_WEIGHT] = "weight",
	[TRACEBUF_KSTR_PROCESS] = "process",
};

/* A CPU's chunk: [pos, end) is free; pos == end when it has none. */
struct tracebuf_kcpu {
	u64 pos;
	u64 end;
};

struct tracebuf_kprov {
	struct tracebuf_provider *p;		/* a reference */
	struct work_struct work;

	/* [W], and read by the probes while registered */
	struct tracebuf_buf *buf;		/* a reference, while it has one */
	struct pid_namespace *ns;		/* a reference, while started */
	bool running;
	bool sched;				/* switches and wakeups */
	bool names;				/* thread and process names */
	bool counter;				/* ticks: the CPU counter, else ns */
	u64 rolling;				/* its first rolling buffer: */
	u64 limit;				/* [rolling, limit) */
	u32 chunk;
	struct tracebuf_kcpu __percpu *cpus;
	/* written by the probes */
	atomic64_t next;			/* the next chunk's offset */
	atomic64_t dropped;
	bool full;				/* WRITE_ONCE, READ_ONCE */
};

/* The sched_* and task_rename tracepoints, looked up once. */
static struct tracepoint *tracebuf_tp_switch, *tracebuf_tp_wakeup,
	*tracebuf_tp_wakeup_new, *tracebuf_tp_fork, *tracebuf_tp_exec,
	*tracebuf_tp_rename;

/* kernel_provider: set, cleared, and the provider it made. */
static DEFINE_MUTEX(tracebuf_kprov_lock);
static bool tracebuf_kprov_wanted;		/* [tracebuf_kprov_lock] */
static bool tracebuf_kprov_ready;		/* module_init done [same] */
static struct tracebuf_kprov *tracebuf_kprov;	/* [same] */

static u64 tracebuf_fxt_field(u64 value, unsigned int lo, unsigned int hi)
{
	return (value & GENMASK_ULL(hi - lo, 0)) << lo;
}

static u64 tracebuf_fxt_header(unsigned int type, u32 bytes)
{
	return type | tracebuf_fxt_field(bytes / 8, 4, 15);
}

static __le64 *tracebuf_put(__le64 *p, u64 word)
{
	*p = cpu_to_le64(word);
	return p + 1;
}

/* Padding records (empty data blobs) over [from, to) of the buffer. */
static void tracebuf_kpad(struct tracebuf_kprov *k, u64 from, u64 to)
{
	__le64 *p = k->buf->data + from;
	u64 words = (to - from) / 8;

	while (words) {
		u64 n = min_t(u64, words, TRACEBUF_FXT_MAX_WORDS);

		tracebuf_put(p, tracebuf_fxt_header(TRACEBUF_FXT_BLOB, n * 8) |
			     tracebuf_fxt_field((n - 1) * 8, 32, 46) |
			     tracebuf_fxt_field(1, 48, 55));
		p += n;
		words -= n;
	}
}

static u64 tracebuf_kticks(struct tracebuf_kprov *k)
{
	return k->counter ? tracebuf_counter_read() : ktime_get_mono_fast_ns();
}

/*
 * @size bytes (a multiple of 8, at most a chunk) in this CPU's chunk, or
 * NULL when the buffer is full (the record is counted as dropped).
 * Interrupts off: nothing else writes this CPU's chunk meanwhile.
 */
static __le64 *tracebuf_kreserve(struct tracebuf_kprov *k, u32 size)
{
	struct tracebuf_kcpu *c = this_cpu_ptr(k->cpus);
	u64 start;

	lockdep_assert_irqs_disabled();
	if (c->end - c->pos < size) {
		if (c->pos != c->end)
			tracebuf_kpad(k, c->pos, c->end);
		c->pos = 0;
		c->end = 0;
		if (READ_ONCE(k->full))
			goto drop;
		start = atomic64_fetch_add(k->chunk, &k->next);
		if (start >= k->limit)
			goto full;
		c->pos = start;
		c->end = min_t(u64, start + k->chunk, k->limit);
		if (c->end - c->pos < size) {
			tracebuf_kpad(k, c->pos, c->end);
			c->pos = 0;
			c->end = 0;
			goto full;
		}
	}
	c->pos += size;
	return k->buf->data + c->pos - size;

full:
	WRITE_ONCE(k->full, true);
drop:
	atomic64_inc(&k->dropped);
	return NULL;
}

/* Close this CPU's chunk (an IPI's, or with no writer left). */
static void tracebuf_kclose_cpu(struct tracebuf_kprov *k, struct tracebuf_kcpu *c)
{
	if (c->pos != c->end)
		tracebuf_kpad(k, c->pos, c->end);
	c->pos = 0;
	c->end = 0;
}

static void tracebuf_kclose_this_cpu(void *arg)
{
	struct tracebuf_kprov *k = arg;

	tracebuf_kclose_cpu(k, this_cpu_ptr(k->cpus));
}

/* The id of @t in the manager's namespace, 0 if it does not see it. */
static u64 tracebuf_ktid(struct tracebuf_kprov *k, struct task_struct *t)
{
	return is_idle_task(t) ? 0 : task_pid_nr_ns(t, k->ns);
}

/* The weight Perfetto shows as a priority; INT32_MIN marks idle. */
static u32 tracebuf_kweight(struct task_struct *t)
{
	return is_idle_task(t) ? (u32)S32_MIN : (u32)t->prio;
}

static __le64 *tracebuf_put_int32(__le64 *p, unsigned int name, u32 value)
{
	return tracebuf_put(p, TRACEBUF_FXT_ARG_INT32 | tracebuf_fxt_field(1, 4, 15) |
			    tracebuf_fxt_field(name, 16, 31) | tracebuf_fxt_field(value, 32, 63));
}

/* sched_switch's @prev_state as an FXT thread state. */
static unsigned int tracebuf_kstate(bool preempt, unsigned int state)
{
	if (preempt || state == TASK_RUNNING)
		return TRACEBUF_FXT_THREAD_RUNNING;
	if (state & (TASK_DEAD | EXIT_DEAD | EXIT_ZOMBIE))
		return TRACEBUF_FXT_THREAD_DEAD;
	if (state & (__TASK_STOPPED | __TASK_TRACED))
		return TRACEBUF_FXT_THREAD_SUSPENDED;
	return TRACEBUF_FXT_THREAD_BLOCKED;
}

/*
 * A scheduling record of @size bytes in this CPU's chunk (interrupts
 * off): its header, with @bits of the event type's own, and its
 * timestamp; the caller writes the rest.  NULL when the buffer is full.
 */
static __le64 *tracebuf_ksched(struct tracebuf_kprov *k, u32 size, unsigned int type,
			       unsigned int nargs, unsigned int cpu, u64 bits)
{
	__le64 *p = tracebuf_kreserve(k, size);

	if (!p)
		return NULL;
	p = tracebuf_put(p, tracebuf_fxt_header(TRACEBUF_FXT_SCHED, size) |
			 tracebuf_fxt_field(nargs, 16, 19) | tracebuf_fxt_field(cpu, 20, 35) |
			 bits | tracebuf_fxt_field(type, 60, 63));
	return tracebuf_put(p, tracebuf_kticks(k));
}

static void tracebuf_kprobe_switch(void *data, bool preempt, struct task_struct *prev,
				   struct task_struct *next, unsigned int prev_state)
{
	struct tracebuf_kprov *k = data;
	unsigned long flags;
	__le64 *p;

	local_irq_save(flags);
	p = tracebuf_ksched(k, 48, TRACEBUF_FXT_SCHED_SWITCH, 2, smp_processor_id(),
			    tracebuf_fxt_field(tracebuf_kstate(preempt, prev_state), 36, 39));
	if (p) {
		p = tracebuf_put(p, tracebuf_ktid(k, prev));
		p = tracebuf_put(p, tracebuf_ktid(k, next));
		p = tracebuf_put_int32(p, TRACEBUF_KSTR_OUT_WEIGHT, tracebuf_kweight(prev));
		tracebuf_put_int32(p, TRACEBUF_KSTR_IN_WEIGHT, tracebuf_kweight(next));
	}
	local_irq_restore(flags);
}

static void tracebuf_kprobe_wakeup(void *data, struct task_struct *t)
{
	struct tracebuf_kprov *k = data;
	unsigned long flags;
	__le64 *p;

	local_irq_save(flags);
	p = tracebuf_ksched(k, 32, TRACEBUF_FXT_SCHED_WAKEUP, 1, task_cpu(t), 0);
	if (p) {
		p = tracebuf_put(p, tracebuf_ktid(k, t));
		tracebuf_put_int32(p, TRACEBUF_KSTR_WEIGHT, tracebuf_kweight(t));
	}
	local_irq_restore(flags);
}

/*
 * Name @t: a kernel object record for the thread (with its process), and
 * one for the process if @t leads it.  Nothing for a thread the manager
 * does not see.  @comm: its name, or NULL to read it.
 */
static void tracebuf_kname(struct tracebuf_kprov *k, struct task_struct *t, const char *comm)
{
	u64 tid = tracebuf_ktid(k, t), pid = task_tgid_nr_ns(t, k->ns);
	char name[TASK_COMM_LEN + 8] = { };
	unsigned long flags;
	size_t len, words;
	__le64 *p;

	if (!tid || !pid)
		return;
	/* t->comm as ftrace copies it, without task_lock(), which may be held */
	if (comm)
		strscpy(name, comm, TASK_COMM_LEN);
	else
		memcpy(name, t->comm, TASK_COMM_LEN - 1);
	len = strnlen(name, TASK_COMM_LEN - 1);
	words = DIV_ROUND_UP(len, 8);

	local_irq_save(flags);
	p = tracebuf_kreserve(k, (4 + words) * 8);
	if (p) {
		p = tracebuf_put(p, tracebuf_fxt_header(TRACEBUF_FXT_KOBJ, (4 + words) * 8) |
				 tracebuf_fxt_field(TRACEBUF_FXT_OBJ_THREAD, 16, 23) |
				 tracebuf_fxt_field(TRACEBUF_FXT_INLINE | len, 24, 39) |
				 tracebuf_fxt_field(1, 40, 43));
		p = tracebuf_put(p, tid);
		memcpy(p, name, words * 8);
		p += words;
		p = tracebuf_put(p, TRACEBUF_FXT_ARG_KOID | tracebuf_fxt_field(2, 4, 15) |
				 tracebuf_fxt_field(TRACEBUF_KSTR_PROCESS, 16, 31));
		tracebuf_put(p, pid);
	}
	if (tid == pid) {
		p = tracebuf_kreserve(k, (2 + words) * 8);
		if (p) {
			p = tracebuf_put(p, tracebuf_fxt_header(TRACEBUF_FXT_KOBJ,
								(2 + words) * 8) |
					 tracebuf_fxt_field(TRACEBUF_FXT_OBJ_PROCESS, 16, 23) |
					 tracebuf_fxt_field(TRACEBUF_FXT_INLINE | len, 24, 39));
			p = tracebuf_put(p, pid);
			memcpy(p, name, words * 8);
		}
	}
	local_irq_restore(flags);
}

static void tracebuf_kprobe_fork(void *data, struct task_struct *parent,
				 struct task_struct *child)
{
	tracebuf_kname(data, child, NULL);
}

static void tracebuf_kprobe_exec(void *data, struct task_struct *t, pid_t old_pid,
				 struct linux_binprm *bprm)
{
	tracebuf_kname(data, t, NULL);
}

static void tracebuf_kprobe_rename(void *data, struct task_struct *t, const char *comm)
{
	tracebuf_kname(data, t, comm);
}

static void tracebuf_tp_find(struct tracepoint *tp, void *priv)
{
	static const struct {
		const char *name;
		struct tracepoint **tp;
	} want[] = {
		{ "sched_switch", &tracebuf_tp_switch },
		{ "sched_wakeup", &tracebuf_tp_wakeup },
		{ "sched_wakeup_new", &tracebuf_tp_wakeup_new },
		{ "sched_process_fork", &tracebuf_tp_fork },
		{ "sched_process_exec", &tracebuf_tp_exec },
		{ "task_rename", &tracebuf_tp_rename },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++)
		if (!strcmp(tp->name, want[i].name))
			*want[i].tp = tp;
}

/* Register (or with @on false unregister) the probes @k's categories ask for. */
static int tracebuf_kprobes(struct tracebuf_kprov *k, bool on)
{
	const struct {
		struct tracepoint *tp;
		void *probe;
		bool want;
	} probes[] = {
		{ tracebuf_tp_fork, tracebuf_kprobe_fork, k->names },
		{ tracebuf_tp_exec, tracebuf_kprobe_exec, k->names },
		{ tracebuf_tp_rename, tracebuf_kprobe_rename, k->names },
		{ tracebuf_tp_wakeup, tracebuf_kprobe_wakeup, k->sched },
		{ tracebuf_tp_wakeup_new, tracebuf_kprobe_wakeup, k->sched },
		{ tracebuf_tp_switch, tracebuf_kprobe_switch, k->sched },
	};
	int i = ARRAY_SIZE(probes), ret = 0;

	if (on) {
		for (i = 0; i < ARRAY_SIZE(probes); i++) {
			if (!probes[i].want)
				continue;
			ret = tracepoint_probe_register(probes[i].tp, probes[i].probe, k);
			if (ret)
				break;
		}
		if (!ret)
			return 0;
	}
	/* all of them, or those registered before the error */
	while (--i >= 0)
		if (probes[i].want)
			tracepoint_probe_unregister(probes[i].tp, probes[i].probe, k);
	/* no probe runs any more: the buffer may go */
	tracepoint_synchronize_unregister();
	return ret;
}

/* Is @name in @cats (NULL: no list, which names nothing here)? */
static bool tracebuf_kcats_name(const struct tracebuf_cats *cats, const char *name)
{
	return cats && tracebuf_cats_have(cats, name);
}

static void tracebuf_ksend(struct tracebuf_kprov *k, u16 request, u32 data32, u64 data64)
{
	struct tracebuf_pkt pkt = {
		.request = request, .data32 = data32, .data64 = data64,
	};

	/* refused when the manager moved on: nothing to do then */
	tracebuf_provider_send(k->p, &pkt);
}

/* The categories the manager gave (INITIALIZE's and the latest START's). */
static void tracebuf_kread_cats(struct tracebuf_kprov *k)
{
	struct tracebuf_config_args args;
	struct tracebuf_cats *cats, *extra;

	tracebuf_provider_get_config(k->p, &args, &cats, &extra);
	k->sched = tracebuf_kcats_name(cats, "sched") || tracebuf_kcats_name(extra, "sched");
	k->names = k->sched || tracebuf_kcats_name(cats, "sched.name") ||
		   tracebuf_kcats_name(extra, "sched.name");
	tracebuf_cats_put(cats);
	tracebuf_cats_put(extra);
}

/*
 * The timebase (@khz: the CPU counter's rate, 0 for CLOCK_MONOTONIC), its
 * initialization record and the string table, at the buffer's start.
 */
static void tracebuf_kprelude(struct tracebuf_kprov *k, u64 khz)
{
	__le64 *p = k->buf->data + k->rolling;
	unsigned int i;

	p = tracebuf_put(p, tracebuf_fxt_header(TRACEBUF_FXT_INIT, 16));
	k->counter = khz != 0;
	p = tracebuf_put(p, khz ? khz * 1000 : NSEC_PER_SEC);
	for (i = 1; i < ARRAY_SIZE(tracebuf_kstrings); i++) {
		size_t len = strlen(tracebuf_kstrings[i]), words = DIV_ROUND_UP(len, 8);

		p = tracebuf_put(p, tracebuf_fxt_header(TRACEBUF_FXT_STRING, (1 + words) * 8) |
				 tracebuf_fxt_field(i, 16, 30) | tracebuf_fxt_field(len, 32, 46));
		memset(p, 0, words * 8);
		memcpy(p, tracebuf_kstrings[i], len);
		p += words;
	}
	atomic64_set(&k->next, (void *)p - k->buf->data);
}

/* Name every thread the manager sees, as the trace starts. */
static void tracebuf_kname_all(struct tracebuf_kprov *k)
{
	struct task_struct *g, *t;

	rcu_read_lock();
	for_each_process_thread(g, t)
		tracebuf_kname(k, t, NULL);
	rcu_read_unlock();
}

static void tracebuf_kstart(struct tracebuf_kprov *k)
{
	struct tracebuf_buffer_header *h;
	struct tracebuf_buf *buf;
	struct pid_namespace *ns = NULL;
	u32 disposition;
	int cpu;

	if (k->running)
		return;
	mutex_lock(&tracebuf_lock);
	buf = k->p->buf;
	if (buf)
		tracebuf_buf_get(buf);
	if (k->p->owner)
		ns = get_pid_ns(k->p->owner->pid_ns);
	disposition = k->p->disposition;
	mutex_unlock(&tracebuf_lock);
	if (!buf || !ns) {
		if (buf)
			tracebuf_buf_put(buf);
		goto fail;
	}
	if (buf != k->buf) {
		if (k->buf)
			tracebuf_buf_put(k->buf);
		k->buf = buf;
		disposition = TRACEBUF_START_CLEAR_ENTIRE;	/* a new buffer */
	} else {
		tracebuf_buf_put(buf);
	}
	k->ns = ns;
	tracebuf_kread_cats(k);
	k->rolling = TRACEBUF_HEADER_SIZE + k->buf->durable_size;
	k->limit = k->rolling + k->buf->rolling_size;
	k->chunk = clamp_t(u64, k->buf->rolling_size / (4 * num_possible_cpus()), 256, SZ_4K) &
		   ~7ull;
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(k->cpus, cpu), 0, sizeof(struct tracebuf_kcpu));
	/* RETAIN goes on after what the last run wrote (its prelude too) */
	if (disposition != TRACEBUF_START_RETAIN || !atomic64_read(&k->next)) {
		atomic64_set(&k->dropped, 0);
		tracebuf_kprelude(k, tracebuf_counter_khz());
		k->full = false;
	}
	/* the data ends are no longer final (RETAIN keeps the last run's) */
	h = k->buf->data;
	WRITE_ONCE(h->stop_mark, 0);
	if (tracebuf_kprobes(k, true))
		goto fail;
	k->running = true;
	if (k->names)
		tracebuf_kname_all(k);
	tracebuf_ksend(k, TRACEBUF_PKT_STARTED, TRACEBUF_FIFO_PROTOCOL_VERSION, 0);
	return;

fail:
	/* no STARTED: the manager times the provider out */
	if (ns)
		put_pid_ns(ns);
	k->ns = NULL;
}

/*
 * Stop writing: no probe is left, every chunk is closed and the header
 * says where the records end.  With @gone the buffer is let go too.
 */
static void tracebuf_kstop(struct tracebuf_kprov *k, bool gone)
{
	struct tracebuf_buffer_header *h;
	u64 end;
	int cpu;

	if (k->running) {
		tracebuf_kprobes(k, false);
		k->running = false;
		for_each_possible_cpu(cpu)
			tracebuf_kclose_cpu(k, per_cpu_ptr(k->cpus, cpu));
		end = min_t(u64, atomic64_read(&k->next), k->limit);
		h = k->buf->data;
		WRITE_ONCE(h->wrapped_count, 0);
		WRITE_ONCE(h->rolling_data_end[0], end - k->rolling);
		WRITE_ONCE(h->num_records_dropped, atomic64_read(&k->dropped));
		WRITE_ONCE(h->bytes_recorded, end - k->rolling);
		/* last, for a manager that trusts the data ends by it (uapi) */
		smp_store_release(&h->stop_mark, TRACEBUF_HEADER_STOP_MARK);
		put_pid_ns(k->ns);
		k->ns = NULL;
	}
	if (gone && k->buf) {
		tracebuf_buf_put(k->buf);
		k->buf = NULL;
		atomic64_set(&k->next, 0);
	}
}

/* SNAPSHOT: close every CPU's chunk; the records up to the cursor are whole. */
static void tracebuf_ksnapshot(struct tracebuf_kprov *k)
{
	struct tracebuf_buffer_header *h;
	u64 end = 0;

	if (k->running) {
		end = atomic64_read(&k->next);
		on_each_cpu(tracebuf_kclose_this_cpu, k, 1);
		end = min(end, k->limit) - k->rolling;
	} else if (k->buf) {
		h = k->buf->data;
		end = READ_ONCE(h->rolling_data_end[0]);
	}
	tracebuf_ksend(k, TRACEBUF_PKT_SNAPSHOT_TAKEN, 0, end);
}

/* CATEGORIES: probes for what is enabled now. */
static void tracebuf_kcategories(struct tracebuf_kprov *k, u32 generation)
{
	if (!k->running)
		return;
	tracebuf_kprobes(k, false);
	tracebuf_kread_cats(k);
	if (tracebuf_kprobes(k, true))
		return;		/* not applied: the manager times out */
	tracebuf_ksend(k, TRACEBUF_PKT_CATEGORIES_APPLIED, generation, 0);
}

static void tracebuf_khandle(struct tracebuf_kprov *k, const struct tracebuf_pkt *pkt)
{
	switch (pkt->request) {
	case TRACEBUF_PKT_START:
		tracebuf_kstart(k);
		break;
	case TRACEBUF_PKT_STOP:
		tracebuf_kstop(k, false);
		tracebuf_ksend(k, TRACEBUF_PKT_STOPPED, 0, 0);
		break;
	case TRACEBUF_PKT_TERMINATE:
		tracebuf_kstop(k, true);
		tracebuf_ksend(k, TRACEBUF_PKT_STOPPED, 0, 0);
		tracebuf_provider_release_session(k->p);
		break;
	case TRACEBUF_PKT_MANAGER_GONE:
		tracebuf_kstop(k, true);
		break;
	case TRACEBUF_PKT_SNAPSHOT:
		tracebuf_ksnapshot(k);
		break;
	case TRACEBUF_PKT_CATEGORIES:
		tracebuf_kcategories(k, pkt->data32);
		break;
	default:	/* INITIALIZE: the buffer is taken at START */
		break;
	}
}

static void tracebuf_kwork(struct work_struct *work)
{
	struct tracebuf_kprov *k = container_of(work, struct tracebuf_kprov, work);
	struct tracebuf_pkt pkts[TRACEBUF_INBOX_DEPTH];
	unsigned int i, n;
	u32 cookie;

	do {
		mutex_lock(&tracebuf_lock);
		n = tracebuf_provider_peek(k->p, pkts, ARRAY_SIZE(pkts), &cookie);
		tracebuf_provider_consume(k->p, n, cookie);
		mutex_unlock(&tracebuf_lock);
		for (i = 0; i < n; i++)
			tracebuf_khandle(k, &pkts[i]);
	} while (n);
}

/* Leave the registry (its manager is told, as when a file closes), then go. */
static void tracebuf_kprov_destroy(struct tracebuf_kprov *k)
{
	tracebuf_provider_release(k->p);
	flush_work(&k->work);
	tracebuf_kstop(k, true);
	tracebuf_provider_put(k->p);
	free_percpu(k->cpus);
	kfree(k);
}

/* Its categories, as PROVIDER_SET_CATEGORIES publishes a provider's. */
static const char tracebuf_kcats[] =
	"sched\0context switches and wakeups, every thread named\0"
	"sched.name\0thread and process names only";

static int tracebuf_kprov_publish(struct tracebuf_provider *p)
{
	struct tracebuf_cats *known;
	int ret;

	known = kvmalloc(struct_size(known, data, sizeof(tracebuf_kcats)), GFP_KERNEL_ACCOUNT);
	if (!known)
		return -ENOMEM;
	refcount_set(&known->refs, 1);
	known->size = sizeof(tracebuf_kcats);
	known->count = 2;
	memcpy(known->data, tracebuf_kcats, sizeof(tracebuf_kcats));
	ret = tracebuf_provider_set_known(p, known);
	tracebuf_cats_put(known);
	return ret;
}

static int tracebuf_kprov_create(void)
{
	struct tracebuf_provider *p;
	struct tracebuf_kprov *k;
	u32 status;
	int ret;

	if (!tracebuf_tp_switch || !tracebuf_tp_wakeup || !tracebuf_tp_wakeup_new ||
	    !tracebuf_tp_fork || !tracebuf_tp_exec || !tracebuf_tp_rename)
		return -ENOENT;
	k = kzalloc(sizeof(*k), GFP_KERNEL_ACCOUNT);
	if (!k)
		return -ENOMEM;
	k->cpus = alloc_percpu_gfp(struct tracebuf_kcpu, GFP_KERNEL_ACCOUNT);
	if (!k->cpus) {
		kfree(k);
		return -ENOMEM;
	}
	INIT_WORK(&k->work, tracebuf_kwork);
	p = tracebuf_provider_create("kernel", 0, &k->work, &status);
	if (IS_ERR(p)) {
		free_percpu(k->cpus);
		kfree(k);
		return PTR_ERR(p);
	}
	tracebuf_provider_get(p);
	k->p = p;
	ret = tracebuf_kprov_publish(p);
	if (ret) {
		tracebuf_kprov_destroy(k);
		return ret;
	}
	tracebuf_kprov = k;
	return 0;
}

/* Make or remove the provider as kernel_provider says; its lock held. */
static int tracebuf_kprov_apply(void)
{
	lockdep_assert_held(&tracebuf_kprov_lock);

	if (!tracebuf_kprov_ready || tracebuf_kprov_wanted == !!tracebuf_kprov)
		return 0;
	if (tracebuf_kprov_wanted)
		return tracebuf_kprov_create();
	tracebuf_kprov_destroy(tracebuf_kprov);
	tracebuf_kprov = NULL;
	return 0;
}

static int tracebuf_kprov_param_set(const char *val, const struct kernel_param *kp)
{
	bool old, on;
	int ret;

	ret = kstrtobool(val, &on);
	if (ret)
		return ret;
	mutex_lock(&tracebuf_kprov_lock);
	old = tracebuf_kprov_wanted;
	tracebuf_kprov_wanted = on;
	ret = tracebuf_kprov_apply();
	if (ret)
		tracebuf_kprov_wanted = old;
	mutex_unlock(&tracebuf_kprov_lock);
	return ret;
}

static int tracebuf_kprov_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%c\n", READ_ONCE(tracebuf_kprov_wanted) ? 'Y' : 'N');
}

static const struct kernel_param_ops tracebuf_kprov_param_ops = {
	.set = tracebuf_kprov_param_set,
	.get = tracebuf_kprov_param_get,
};
module_param_cb(kernel_provider, &tracebuf_kprov_param_ops, NULL, 0644);
MODULE_PARM_DESC(kernel_provider,
		 "Register the kernel provider, which records the scheduler (default N)");

/* Called by module_init once the device works; a failure is only logged. */
void tracebuf_kprov_init(void)
{
	int ret;

	for_each_kernel_tracepoint(tracebuf_tp_find, NULL);
	mutex_lock(&tracebuf_kprov_lock);
	tracebuf_kprov_ready = true;
	ret = tracebuf_kprov_apply();
	mutex_unlock(&tracebuf_kprov_lock);
	if (ret)
		pr_warn("tracebuf: no kernel provider: %d\n", ret);
}

void tracebuf_kprov_exit(void)
{
	mutex_lock(&tracebuf_kprov_lock);
	tracebuf_kprov_ready = false;
	if (tracebuf_kprov)
		tracebuf_kprov_destroy(tracebuf_kprov);
	tracebuf_kprov = NULL;
	mutex_unlock(&tracebuf_kprov_lock);
}
