/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracebuf: what the kernel providers' engine (kprovider.c: the buffer,
 * the modes, the control packets) shares with the providers built on it:
 * the scheduler's (ksched.c, "kernel") and those of other modules
 * (kapi.c, the API of tracebuf_kernel.h).
 */
#ifndef _TRACEBUF_KPROVIDER_H
#define _TRACEBUF_KPROVIDER_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/irq_work.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct pid_namespace;
struct task_struct;
struct tracebuf_buf;
struct tracebuf_cats;
struct tracebuf_provider;

/* FXT (userlib/Documentation/trace-format.md §4). */
#define TRACEBUF_FXT_INIT		1
#define TRACEBUF_FXT_STRING		2
#define TRACEBUF_FXT_EVENT		4
#define TRACEBUF_FXT_BLOB		5
#define TRACEBUF_FXT_KOBJ		7
#define TRACEBUF_FXT_SCHED		8
#define TRACEBUF_FXT_ARG_INT32		1
#define TRACEBUF_FXT_ARG_INT64		3
#define TRACEBUF_FXT_ARG_UINT64		4
#define TRACEBUF_FXT_ARG_STRING		6
#define TRACEBUF_FXT_ARG_POINTER	7
#define TRACEBUF_FXT_ARG_KOID		8
#define TRACEBUF_FXT_ARG_BOOL		9
#define TRACEBUF_FXT_INLINE		0x8000
#define TRACEBUF_FXT_MAX_WORDS		0xfff

/*
 * A CPU's chunk: [pos, end) of the buffer is free, in the rolling buffer
 * of @wrap; pos == end when it has none.  What other CPUs read of it is
 * 32 bits wide, or an atomic64_t: a 32-bit kernel loads and stores a u64
 * in two halves.
 */
struct tracebuf_kcpu {
	u64 pos;
	u64 end;
	u32 wrap;
	u32 open;				/* it has a chunk (end != 0),
						 * for tracebuf_kothers_closed()
						 */
	u32 taking;				/* taking a chunk: the same */
	u32 exit_next;				/* ksched.c: the next of exits[] */
	atomic64_t exits[8];			/* the last threads to exit here:
						 * a key of the task's address
						 * << 32 | its id, one word
						 */
};

struct tracebuf_kprov;

struct tracebuf_kprov_ops {
	/*
	 * From the work item: read the categories and start writing (@on),
	 * or stop writing and return once no writer is left (!@on, also
	 * when not writing).  0 or -errno, with nothing left to undo: the
	 * start is not answered, and the manager times the provider out.
	 */
	int (*write)(struct tracebuf_kprov *k, bool on);
	/* after a start wrote its prelude and write(on); may be NULL */
	void (*started)(struct tracebuf_kprov *k);
	/* the string table the prelude writes: indices 1..n - 1 */
	const char *const *strings;
	unsigned int nstrings;
};

/*
 * A kernel provider: kprovider.c's comment says how it writes.  [W]: the
 * work item's only, read by the writers while they may write.
 */
struct tracebuf_kprov {
	struct tracebuf_provider *p;		/* a reference */
	const struct tracebuf_kprov_ops *ops;
	struct work_struct work;
	struct irq_work irq;			/* the writers' way to ->work */
	bool dying;				/* tracebuf_kprov_destroy(): ->irq
						 * queues ->work no more
						 */

	/* [W] */
	struct tracebuf_buf *buf;		/* a reference, while it has one */
	struct pid_namespace *ns;		/* a reference, while started */
	bool running;
	bool counter;				/* ticks: the CPU counter, else ns */
	u32 mode;				/* TRACEBUF_MODE_* */
	u64 dsize;				/* the durable buffer's size */
	u64 rolling;				/* rolling buffer 0's offset */
	u64 rolling_size;			/* a rolling buffer's size */
	u32 chunk;
	struct tracebuf_kcpu __percpu *cpus;
	/* [W] only */
	u32 closed_below;			/* the IPI's argument */
	u32 closed;				/* no chunk of a wrap below */
	u64 dclosed;				/* durable records whole below */
	u32 saved;				/* streaming: wraps below saved */
	bool save_out;				/* SAVE_BUFFER of ->saved sent */
	u64 save_dend;				/* its durable data end */
	/* written by the writers */
	atomic64_t cursor;			/* wrap << 32 | offset */
	atomic64_t dnext;			/* the durable buffer's cursor */
	atomic_t allow;				/* the last wrap that may start */
	u32 want;				/* wraps below it are full */
	atomic64_t dropped;
};

static inline u64 tracebuf_fxt_field(u64 value, unsigned int lo, unsigned int hi)
{
	return (value & GENMASK_ULL(hi - lo, 0)) << lo;
}

static inline u64 tracebuf_fxt_header(unsigned int type, u32 bytes)
{
	return type | tracebuf_fxt_field(bytes / 8, 4, 15);
}

static inline __le64 *tracebuf_put(__le64 *p, u64 word)
{
	*p = cpu_to_le64(word);
	return p + 1;
}

/* kprovider.c */
int tracebuf_kprov_create(struct tracebuf_kprov *k, const char *name,
			  const struct tracebuf_kprov_ops *ops, struct tracebuf_cats *known);
void tracebuf_kprov_destroy(struct tracebuf_kprov *k);
struct tracebuf_cats *tracebuf_kcats_known(const char *const *pairs, unsigned int count);
void tracebuf_kread_config(struct tracebuf_kprov *k, struct tracebuf_cats **cats,
			   struct tracebuf_cats **extra);
bool tracebuf_kcat_on(const struct tracebuf_cats *a, const struct tracebuf_cats *b,
		      const char *cat, bool named);
__le64 *tracebuf_kreserve(struct tracebuf_kprov *k, u32 size);
/* debugfs.c: a knob for tests, and what it lets them see */
extern u32 tracebuf_kfill_stall_us;
extern atomic_t tracebuf_kfull_found;
__le64 *tracebuf_kdurable(struct tracebuf_kprov *k, u32 size);
u64 tracebuf_kticks(struct tracebuf_kprov *k);
u64 tracebuf_ktid(struct tracebuf_kprov *k, struct task_struct *t);

#endif /* _TRACEBUF_KPROVIDER_H */
