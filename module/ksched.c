// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf: the kernel provider.  Unless the module parameter
 * kernel_provider is cleared, the module registers a provider of its own,
 * "kernel", that records what the scheduler does, as FXT scheduling and
 * kernel object records (userlib/Documentation/trace-format.md §4.2),
 * through kprovider.c's engine (its comment says how the records are
 * written, in each mode, and why per-CPU chunks).
 *
 * Categories, off unless named (by name or a pattern, but not by a
 * session of "every category" or "*"; exclusions apply): "sched",
 * context switches and wakeups, with the threads named; "sched.name",
 * the names only.  The tracepoints' probes are
 * registered only while a category needs them, and unregistered with
 * tracepoint_synchronize_unregister() before the buffer may go.
 *
 * Threads are numbered in the pid namespace of the manager that started
 * the provider; a thread that namespace does not see is written as
 * thread 0 and never named, so a manager in a container learns nothing
 * about the threads outside it but that the CPU was busy.  Names go to
 * the durable buffer while it has room, so a circular trace keeps them.
 */
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/tracepoint.h>

#include "kprovider.h"
#include "tracebuf_priv.h"

#define TRACEBUF_FXT_OBJ_PROCESS	1
#define TRACEBUF_FXT_OBJ_THREAD		2
#define TRACEBUF_FXT_SCHED_SWITCH	1
#define TRACEBUF_FXT_SCHED_WAKEUP	2
#define TRACEBUF_FXT_THREAD_RUNNING	1
#define TRACEBUF_FXT_THREAD_SUSPENDED	2
#define TRACEBUF_FXT_THREAD_BLOCKED	3
#define TRACEBUF_FXT_THREAD_DEAD	5

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

/* The sched_* and task_rename tracepoints, looked up once. */
static struct tracepoint *tracebuf_tp_switch, *tracebuf_tp_wakeup,
	*tracebuf_tp_wakeup_new, *tracebuf_tp_fork, *tracebuf_tp_exec,
	*tracebuf_tp_rename, *tracebuf_tp_exit;

struct tracebuf_ksched {
	struct tracebuf_kprov k;
	/* [W] */
	bool sched;				/* switches and wakeups */
	bool names;				/* thread and process names */
	bool registered;			/* the probes of those two */
};

/* kernel_provider: set, cleared, and the provider it made. */
static DEFINE_MUTEX(tracebuf_kprov_lock);
static bool tracebuf_kprov_wanted = true;	/* [tracebuf_kprov_lock] */
static bool tracebuf_kprov_ready;		/* module_init done [same] */
static struct tracebuf_ksched *tracebuf_kprov;	/* [same] */

/* What tells an exiting task from the others alive: its address. */
static u32 tracebuf_kexit_key(struct task_struct *t)
{
	return (u32)((uintptr_t)t >> 6);
}

/*
 * The same in a probe (interrupts off), for a thread that may have exited:
 * once reaped (a thread, an ignored child: at once), its pid is gone
 * before its last switches, so the id its exit left (sched_process_exit:
 * in the last eight of a CPU's, this one's first) stands in.  Each is one
 * word, read whole from any CPU.  A task's address is reused once it is
 * freed, so an exit first clears what an earlier task at that address
 * left on any CPU (tracebuf_kprobe_exit()): a key is never found twice.
 */
static bool tracebuf_kexit_find(const struct tracebuf_kcpu *c, u64 key, u64 *tid)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c->exits); i++) {
		u64 e = atomic64_read(&c->exits[i]);

		if ((e & ~0xffffffffull) == key) {
			*tid = (u32)e;
			return true;
		}
	}
	return false;
}

static u64 tracebuf_ktid_sched(struct tracebuf_kprov *k, struct task_struct *t)
{
	u64 tid = tracebuf_ktid(k, t), key;
	int cpu;

	/* an exiting one, not one the manager cannot see */
	if (tid || is_idle_task(t) || !(READ_ONCE(t->flags) & PF_EXITING))
		return tid;
	key = (u64)tracebuf_kexit_key(t) << 32;
	if (tracebuf_kexit_find(this_cpu_ptr(k->cpus), key, &tid))
		return tid;
	for_each_possible_cpu(cpu)
		if (tracebuf_kexit_find(per_cpu_ptr(k->cpus, cpu), key, &tid))
			return tid;
	return 0;
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
static __le64 *tracebuf_kreserve_sched(struct tracebuf_kprov *k, u32 size, unsigned int type,
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

/*
 * What a thread the manager does not see shows of itself: nothing but
 * that it ran.  Its id is 0 (so is the idle task's, which is no secret),
 * its weight 0, and a switch away from it is a preemption, whatever
 * blocked or ended it.
 */
static bool tracebuf_khidden(struct task_struct *t, u64 tid)
{
	return !tid && !is_idle_task(t);
}

static u32 tracebuf_kweight_of(struct task_struct *t, u64 tid)
{
	return tracebuf_khidden(t, tid) ? 0 : tracebuf_kweight(t);
}

static void tracebuf_kprobe_switch(void *data, bool preempt, struct task_struct *prev,
				   struct task_struct *next, unsigned int prev_state)
{
	struct tracebuf_kprov *k = data;
	unsigned long flags;
	u64 out, in;
	__le64 *p;

	local_irq_save(flags);
	out = tracebuf_ktid_sched(k, prev);
	in = tracebuf_ktid_sched(k, next);
	if (tracebuf_khidden(prev, out))
		preempt = true;
	p = tracebuf_kreserve_sched(k, 48, TRACEBUF_FXT_SCHED_SWITCH, 2, smp_processor_id(),
				    tracebuf_fxt_field(tracebuf_kstate(preempt, prev_state),
						       36, 39));
	if (p) {
		p = tracebuf_put(p, out);
		p = tracebuf_put(p, in);
		p = tracebuf_put_int32(p, TRACEBUF_KSTR_OUT_WEIGHT, tracebuf_kweight_of(prev, out));
		tracebuf_put_int32(p, TRACEBUF_KSTR_IN_WEIGHT, tracebuf_kweight_of(next, in));
	}
	local_irq_restore(flags);
}

/*
 * A thread exits: its id, for its last switches (tracebuf_ktid_sched()).
 * Whatever an earlier task at its address left is stale: cleared on
 * every CPU (a compare-and-swap: the CPU that owns the slot may fill it
 * meanwhile), then the id goes to a slot of this CPU, a free one if any.
 */
static void tracebuf_kprobe_exit(void *data, struct task_struct *t)
{
	struct tracebuf_kprov *k = data;
	u64 key = (u64)tracebuf_kexit_key(t) << 32;
	struct tracebuf_kcpu *c;
	unsigned long flags;
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(k->cpus, cpu);
		for (i = 0; i < ARRAY_SIZE(c->exits); i++) {
			u64 e = atomic64_read(&c->exits[i]);

			if ((e & ~0xffffffffull) == key)
				atomic64_cmpxchg(&c->exits[i], e, 0);
		}
	}
	local_irq_save(flags);
	c = this_cpu_ptr(k->cpus);
	for (i = 0; i < ARRAY_SIZE(c->exits); i++)
		if (!atomic64_read(&c->exits[i]))
			break;
	if (i == ARRAY_SIZE(c->exits))
		i = c->exit_next++ % ARRAY_SIZE(c->exits);
	atomic64_set(&c->exits[i], key | (u32)tracebuf_ktid(k, t));
	local_irq_restore(flags);
}

static void tracebuf_kprobe_wakeup(void *data, struct task_struct *t)
{
	struct tracebuf_kprov *k = data;
	unsigned long flags;
	__le64 *p;
	u64 tid;

	local_irq_save(flags);
	tid = tracebuf_ktid_sched(k, t);
	/* a hidden thread's wake-ups are not the manager's to see */
	p = tracebuf_khidden(t, tid) ? NULL :
	    tracebuf_kreserve_sched(k, 32, TRACEBUF_FXT_SCHED_WAKEUP, 1, task_cpu(t), 0);
	if (p) {
		p = tracebuf_put(p, tid);
		tracebuf_put_int32(p, TRACEBUF_KSTR_WEIGHT, tracebuf_kweight(t));
	}
	local_irq_restore(flags);
}

/*
 * The length of the well-formed UTF-8 sequence at @s (at most @len
 * bytes), or 0 (Unicode's table 3-7: no overlong forms, no surrogates,
 * nothing above U+10FFFF).
 */
static size_t tracebuf_utf8_seq(const u8 *s, size_t len)
{
	u8 lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		lo = s[0] == 0xe0 ? 0xa0 : lo;
		hi = s[0] == 0xed ? 0x9f : hi;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		lo = s[0] == 0xf0 ? 0x90 : lo;
		hi = s[0] == 0xf4 ? 0x8f : hi;
	} else {
		return 0;
	}
	if (n > len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * FXT's strings are UTF-8, and a task's name is any bytes (PR_SET_NAME),
 * cut at TASK_COMM_LEN - 1 even inside a character: each byte of @name
 * that no well-formed sequence holds becomes '?', so its length stays.
 */
static void tracebuf_kname_utf8(char *name, size_t len)
{
	size_t i = 0, n;

	while (i < len) {
		n = tracebuf_utf8_seq((const u8 *)name + i, len - i);
		if (n) {
			i += n;
			continue;
		}
		name[i++] = '?';
	}
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
	tracebuf_kname_utf8(name, len);
	words = DIV_ROUND_UP(len, 8);

	local_irq_save(flags);
	p = tracebuf_kdurable(k, (4 + words) * 8);
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
		p = tracebuf_kdurable(k, (2 + words) * 8);
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
		{ "sched_process_exit", &tracebuf_tp_exit },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++)
		if (!strcmp(tp->name, want[i].name))
			*want[i].tp = tp;
}

/* Register (or with @on false unregister) the probes @ks's categories ask for. */
static int tracebuf_kset_probes(struct tracebuf_ksched *ks, bool on)
{
	struct tracebuf_kprov *k = &ks->k;
	const struct {
		struct tracepoint *tp;
		void *probe;
		bool want;
	} probes[] = {
		{ tracebuf_tp_fork, tracebuf_kprobe_fork, ks->names },
		{ tracebuf_tp_exec, tracebuf_kprobe_exec, ks->names },
		{ tracebuf_tp_rename, tracebuf_kprobe_rename, ks->names },
		{ tracebuf_tp_wakeup, tracebuf_kprobe_wakeup, ks->sched },
		{ tracebuf_tp_wakeup_new, tracebuf_kprobe_wakeup, ks->sched },
		{ tracebuf_tp_exit, tracebuf_kprobe_exit, ks->sched },
		{ tracebuf_tp_switch, tracebuf_kprobe_switch, ks->sched },
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

/* The categories the manager gave (INITIALIZE's and the latest START's). */
static void tracebuf_kread_cats(struct tracebuf_ksched *ks)
{
	struct tracebuf_cats *cats, *extra;

	tracebuf_kread_config(&ks->k, &cats, &extra);
	ks->sched = tracebuf_kcat_on(cats, extra, "sched", true);
	ks->names = ks->sched || tracebuf_kcat_on(cats, extra, "sched.name", true);
	tracebuf_cats_put(cats);
	tracebuf_cats_put(extra);
}

static int tracebuf_ksched_write(struct tracebuf_kprov *k, bool on)
{
	struct tracebuf_ksched *ks = container_of(k, struct tracebuf_ksched, k);
	int ret;

	if (!on) {
		if (ks->registered)
			tracebuf_kset_probes(ks, false);
		ks->registered = false;
		return 0;
	}
	tracebuf_kread_cats(ks);
	ret = tracebuf_kset_probes(ks, true);
	ks->registered = !ret;
	return ret;
}

/* Name every thread the manager sees, as the trace starts. */
static void tracebuf_ksched_started(struct tracebuf_kprov *k)
{
	struct tracebuf_ksched *ks = container_of(k, struct tracebuf_ksched, k);
	struct task_struct *g, *t;

	if (!ks->names)
		return;
	rcu_read_lock();
	for_each_process_thread(g, t)
		tracebuf_kname(k, t, NULL);
	rcu_read_unlock();
}

static const struct tracebuf_kprov_ops tracebuf_ksched_ops = {
	.write = tracebuf_ksched_write,
	.started = tracebuf_ksched_started,
	.strings = tracebuf_kstrings,
	.nstrings = ARRAY_SIZE(tracebuf_kstrings),
};

/* Its categories, as PROVIDER_SET_CATEGORIES publishes a provider's. */
static const char *const tracebuf_kcats[] = {
	"sched", "context switches and wakeups, every thread named",
	"sched.name", "thread and process names only",
};

static int tracebuf_ksched_create(void)
{
	struct tracebuf_ksched *ks;
	int ret;

	if (!tracebuf_tp_switch || !tracebuf_tp_wakeup || !tracebuf_tp_wakeup_new ||
	    !tracebuf_tp_fork || !tracebuf_tp_exec || !tracebuf_tp_rename ||
	    !tracebuf_tp_exit)
		return -ENOENT;
	ks = kzalloc(sizeof(*ks), GFP_KERNEL_ACCOUNT);
	if (!ks)
		return -ENOMEM;
	ret = tracebuf_kprov_create(&ks->k, "kernel", &tracebuf_ksched_ops,
				    tracebuf_kcats_known(tracebuf_kcats,
							 ARRAY_SIZE(tracebuf_kcats) / 2));
	if (ret) {
		kfree(ks);
		return ret;
	}
	tracebuf_kprov = ks;
	return 0;
}

static void tracebuf_ksched_remove(void)
{
	tracebuf_kprov_destroy(&tracebuf_kprov->k);
	kfree(tracebuf_kprov);
	tracebuf_kprov = NULL;
}

/* Make or remove the provider as kernel_provider says; its lock held. */
static int tracebuf_kprov_apply(void)
{
	lockdep_assert_held(&tracebuf_kprov_lock);

	if (!tracebuf_kprov_ready || tracebuf_kprov_wanted == !!tracebuf_kprov)
		return 0;
	if (tracebuf_kprov_wanted)
		return tracebuf_ksched_create();
	tracebuf_ksched_remove();
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
		 "Register the kernel provider, which records the scheduler (default Y)");

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
		tracebuf_ksched_remove();
	mutex_unlock(&tracebuf_kprov_lock);
}
