// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf: providers in the kernel.  The module registers providers of
 * its own, "kernel" (ksched.c: the scheduler) and those other modules
 * register through tracebuf_kernel.h, that a manager drives like any
 * other and that write FXT records (userlib/Documentation/trace-format.md
 * §4.2) next to the user-space providers of the same session and on
 * their timebase.  This file is their engine: the buffer, the modes,
 * the control packets; kapi.c is the API of tracebuf_kernel.h on it.
 *
 * Control.  Packets reach its inbox as any provider's (the manager side
 * is unchanged); tracebuf_provider_push() queues ->work, which answers
 * them in order through tracebuf_provider_send().  Only the work item
 * touches the fields marked [W], and the probes read them only between
 * their registration and unregistration (ops->write()).
 *
 * Writers: per-CPU chunks of one buffer.  A writer (a tracepoint probe,
 * an API call from any context but NMI) writes with interrupts off on its
 * CPU, whole records into its CPU's chunk, and takes the
 * next chunk from the shared cursor with one atomic add when the chunk is
 * full: no lock, and no other shared write.  Per-CPU buffers merged by
 * the manager were the other choice; they would put a provider and a
 * buffer per CPU in the registry and a merge by timestamp in every
 * reader, where one buffer keeps the kernel one provider read out like
 * any other, at the price of an atomic add per chunk.  A chunk's unused
 * tail is padded by its CPU when it takes the next one; a snapshot closes
 * every CPU's chunk with an IPI, which runs between two records since a
 * record is written with interrupts off; a stop closes them once the
 * writers are gone (ops->write(k, false)).
 *
 * Modes (trace-format.md §1.2).  The cursor is one 64-bit word, the wrap
 * (which rolling buffer, and how many were filled before it) << 32 | the
 * offset of the next chunk in it; a CPU takes a chunk with a
 * compare-and-swap, and the one that takes the last bytes of a rolling
 * buffer marks the cursor full (TRACEBUF_KFULL) and switches: to the other
 * rolling buffer at once when it may be entered (->allow), else records
 * are dropped (counted) until the work item lets it.  A rolling buffer
 * may be entered again once no CPU holds a chunk of its earlier wrap (the
 * work item closes them with an IPI after each switch: circular mode) and,
 * in streaming mode, once the manager saved it (SAVE_BUFFER, which the
 * work item sends after that IPI, and BUFFER_SAVED).  In circular mode
 * the CPU that fills a rolling buffer also looks at the others' chunks
 * (tracebuf_kothers_closed()) and enters the next one itself when none
 * is left of an earlier wrap: a work item late by a whole rolling buffer
 * then costs no record.  A CPU that finds the cursor full tries to switch as the
 * filling one does, once, before it drops a record.  Oneshot has one
 * rolling buffer and stays full.  The writers cannot wait or take a lock
 * (a probe may hold the scheduler's runqueue lock), so they only queue
 * ->irq, an irq_work, whose handler queues ->work.  The initialization
 * record and the string table lead the durable buffer (circular,
 * streaming) or the one rolling buffer (oneshot); what must outlive the
 * rolling buffers' reuse (ksched.c's thread names) goes to the durable
 * buffer too while it has room, one atomic add a record.
 *
 * Threads are numbered in the pid namespace of the manager that started
 * the provider; a thread that namespace does not see is written as
 * thread 0, with no weight, state or wake-up of its own (ksched.c), so a
 * manager in a container learns nothing about the threads outside it
 * but that a CPU ran one.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hardirq.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "kprovider.h"
#include "tracebuf_priv.h"

/* The cursor's offset once its rolling buffer is full. */
#define TRACEBUF_KFULL	U32_MAX

/*
 * For tests (debugfs): how long a CPU that fills a rolling buffer waits,
 * interrupts off, before it tries to switch, unless another CPU finds
 * the cursor full meanwhile (µs, at most 1 s: a lone CPU waits it all);
 * how many times one did (circular and streaming: oneshot stays full).
 */
u32 tracebuf_kfill_stall_us;
atomic_t tracebuf_kfull_found = ATOMIC_INIT(0);

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

u64 tracebuf_kticks(struct tracebuf_kprov *k)
{
	return k->counter ? tracebuf_counter_read() : ktime_get_mono_fast_ns();
}

static struct tracebuf_buffer_header *tracebuf_khdr(struct tracebuf_kprov *k)
{
	return k->buf->data;
}

/* Close @c: pad what is left of its chunk. */
static void tracebuf_kclose_cpu(struct tracebuf_kprov *k, struct tracebuf_kcpu *c)
{
	if (c->pos != c->end)
		tracebuf_kpad(k, c->pos, c->end);
	c->pos = 0;
	c->end = 0;
	/* the padding before; tracebuf_kothers_closed() */
	smp_store_release(&c->open, 0);
}

/*
 * Circular mode: are the other CPUs done with the wraps before @wrap, so
 * that the rolling buffer after the full one of @wrap may be entered
 * (interrupts off)?  Yes when every other CPU's chunk is closed or of
 * @wrap, and none is taking one: a chunk taken from now on is of a
 * later wrap.  Chunks of wraps before @wrap - 1 were closed before @wrap
 * was entered (->allow, or this).
 */
static bool tracebuf_kothers_closed(struct tracebuf_kprov *k, u32 wrap)
{
	struct tracebuf_kcpu *c;
	int cpu, self = smp_processor_id();

	for_each_possible_cpu(cpu) {
		if (cpu == self)
			continue;
		c = per_cpu_ptr(k->cpus, cpu);
		/* tracebuf_kreserve() sets it, then reads the cursor */
		if (smp_load_acquire(&c->taking))
			return false;
		/* closed (its padding written), or of @wrap */
		if (smp_load_acquire(&c->open) && READ_ONCE(c->wrap) < wrap)
			return false;
	}
	return true;
}

/*
 * Move the cursor from the full rolling buffer of @wrap - 1 to @wrap,
 * which its caller found may be entered (probe or work item: the
 * compare-and-swap picks one).  In circular mode the header says which
 * wrap is written, before any record of it (trace-format.md §1.7).
 */
static void tracebuf_kenter(struct tracebuf_kprov *k, u32 wrap)
{
	s64 full = (s64)((u64)(wrap - 1) << 32 | TRACEBUF_KFULL);

	if (atomic64_read(&k->cursor) != full)
		return;
	if (k->mode == TRACEBUF_MODE_CIRCULAR)
		WRITE_ONCE(tracebuf_khdr(k)->wrapped_count, wrap);
	atomic64_try_cmpxchg(&k->cursor, &full, (s64)((u64)wrap << 32));
}

/*
 * The rolling buffer of @wrap is full: enter the next one if it may be
 * entered.  The caller has no chunk it took and did not publish, and a
 * full barrier orders that before this.
 */
static void tracebuf_ktry_enter(struct tracebuf_kprov *k, u32 wrap)
{
	/*
	 * Circular mode looks at the other CPUs' chunks before it reads
	 * ->allow: the other way round, the look would run only when the
	 * work item is late, and most circular traces would never run it.
	 */
	if ((k->mode == TRACEBUF_MODE_CIRCULAR && tracebuf_kothers_closed(k, wrap)) ||
	    (u32)atomic_read(&k->allow) >= wrap + 1)
		tracebuf_kenter(k, wrap + 1);
}

/*
 * The calling CPU took the last bytes of the rolling buffer of @wrap:
 * enter the next one if it may be, and have the work item close this
 * one's chunks (and save it).  Pairs with tracebuf_kallow().
 */
static void tracebuf_kfilled(struct tracebuf_kprov *k, u32 wrap)
{
	u32 us, stall;
	int found;

	if (k->mode == TRACEBUF_MODE_ONESHOT)
		return;
	stall = min_t(u32, READ_ONCE(tracebuf_kfill_stall_us), USEC_PER_SEC);
	found = atomic_read(&tracebuf_kfull_found);
	for (us = 0; us < stall && atomic_read(&tracebuf_kfull_found) == found; us++)
		udelay(1);
	WRITE_ONCE(k->want, wrap + 1);
	/* want before allow, tracebuf_kallow() the reverse; ->taking too */
	smp_mb();
	tracebuf_ktry_enter(k, wrap);
	irq_work_queue(&k->irq);
}

/*
 * Take the next chunk for this CPU's closed @c: true when taken (the
 * tail of a rolling buffer may be shorter than @size), false when no
 * rolling buffer has room.  A CPU that finds the cursor full first tries
 * to enter the next rolling buffer itself, once: the CPU that filled it
 * may not have got that far yet (its hypervisor may have preempted it
 * there), or may have found this one taking a chunk.
 */
static bool tracebuf_ktake(struct tracebuf_kprov *k, struct tracebuf_kcpu *c, u32 size)
{
	bool again = k->mode != TRACEBUF_MODE_ONESHOT;
	u32 wrap, off, len = 0;
	s64 cur, next;

retry:
	WRITE_ONCE(c->taking, 1);
	smp_mb();	/* taking before the cursor; tracebuf_kothers_closed() the reverse */
	cur = atomic64_read(&k->cursor);
	do {
		wrap = (u64)cur >> 32;
		off = (u32)cur;
		if (off == TRACEBUF_KFULL)
			break;
		len = min_t(u64, max(k->chunk, size), k->rolling_size - off);
		next = off + len < k->rolling_size ? cur + len :
		       (s64)((u64)wrap << 32 | TRACEBUF_KFULL);
	} while (!atomic64_try_cmpxchg(&k->cursor, &cur, next));
	if (off != TRACEBUF_KFULL) {
		c->pos = k->rolling + (wrap & 1) * k->rolling_size + off;
		c->end = c->pos + len;
		WRITE_ONCE(c->wrap, wrap);
		WRITE_ONCE(c->open, 1);
	}
	/* its chunk, if it took one, before; tracebuf_kothers_closed() */
	smp_store_release(&c->taking, 0);
	if (off != TRACEBUF_KFULL) {
		if (off + len == k->rolling_size)
			tracebuf_kfilled(k, wrap);
		return true;
	}
	if (!again)
		return false;
	again = false;
	atomic_inc(&tracebuf_kfull_found);
	smp_mb();	/* not taking, before the look; as tracebuf_kfilled() */
	tracebuf_ktry_enter(k, wrap);
	goto retry;
}

/*
 * @size bytes (a multiple of 8) in this CPU's chunk, or
 * NULL when no rolling buffer has room (the record is counted as
 * dropped).  Interrupts off: nothing else writes this CPU's chunk
 * meanwhile.
 */
__le64 *tracebuf_kreserve(struct tracebuf_kprov *k, u32 size)
{
	struct tracebuf_kcpu *c = this_cpu_ptr(k->cpus);
	unsigned int tries;

	lockdep_assert_irqs_disabled();
	if (c->end - c->pos >= size)
		goto out;
	tracebuf_kclose_cpu(k, c);
	/* twice: the tail of a full rolling buffer may be too short */
	for (tries = 0; tries < 2; tries++) {
		if (!tracebuf_ktake(k, c, size))
			break;
		if (c->end - c->pos >= size)
			goto out;
		tracebuf_kclose_cpu(k, c);
	}
	atomic64_inc(&k->dropped);
	return NULL;
out:
	c->pos += size;
	return k->buf->data + c->pos - size;
}

/*
 * @size bytes in the durable buffer while it has room (whole records
 * there stay, whatever the rolling buffers do), else as any record.
 */
__le64 *tracebuf_kdurable(struct tracebuf_kprov *k, u32 size)
{
	u64 off;

	if (k->dsize && atomic64_read(&k->dnext) < k->dsize) {
		off = atomic64_fetch_add(size, &k->dnext);
		if (off + size <= k->dsize)
			return k->buf->data + TRACEBUF_HEADER_SIZE + off;
		/* the tail is this CPU's: a padding record */
		if (off < k->dsize)
			tracebuf_kpad(k, TRACEBUF_HEADER_SIZE + off,
				      TRACEBUF_HEADER_SIZE + k->dsize);
	}
	return tracebuf_kreserve(k, size);
}

/* Where the durable records end, once every CPU wrote what it took. */
static u64 tracebuf_kdurable_end(struct tracebuf_kprov *k)
{
	return min_t(u64, atomic64_read(&k->dnext), k->dsize);
}

/* The IPI: close this CPU's chunk if its wrap is below *@below. */
static void tracebuf_kclose_this_cpu(void *arg)
{
	struct tracebuf_kprov *k = arg;
	struct tracebuf_kcpu *c = this_cpu_ptr(k->cpus);

	if (c->wrap < READ_ONCE(k->closed_below))
		tracebuf_kclose_cpu(k, c);
}

/* The id of @t in the manager's namespace, 0 if it does not see it. */
u64 tracebuf_ktid(struct tracebuf_kprov *k, struct task_struct *t)
{
	return is_idle_task(t) ? 0 : task_pid_nr_ns(t, k->ns);
}

static void tracebuf_ksend(struct tracebuf_kprov *k, u16 request, u32 data32, u64 data64)
{
	struct tracebuf_pkt pkt = {
		.request = request, .data32 = data32, .data64 = data64,
	};

	/* refused when the manager moved on: nothing to do then */
	tracebuf_provider_send(k->p, &pkt);
}

/*
 * The timebase (@khz: the CPU counter's rate, 0 for CLOCK_MONOTONIC), its
 * initialization record and the string table, at the start of the
 * durable buffer, or of the rolling one in oneshot mode.
 */
static void tracebuf_kprelude(struct tracebuf_kprov *k, u64 khz)
{
	__le64 *start = k->buf->data + TRACEBUF_HEADER_SIZE, *p = start;
	unsigned int i;

	p = tracebuf_put(p, tracebuf_fxt_header(TRACEBUF_FXT_INIT, 16));
	k->counter = khz != 0;
	p = tracebuf_put(p, khz ? khz * 1000 : NSEC_PER_SEC);
	for (i = 1; i < k->ops->nstrings; i++) {
		const char *str = k->ops->strings[i];
		size_t len = strlen(str), words = DIV_ROUND_UP(len, 8);

		p = tracebuf_put(p, tracebuf_fxt_header(TRACEBUF_FXT_STRING, (1 + words) * 8) |
				 tracebuf_fxt_field(i, 16, 30) | tracebuf_fxt_field(len, 32, 46));
		memset(p, 0, words * 8);
		memcpy(p, str, len);
		p += words;
	}
	if (k->dsize)
		atomic64_set(&k->dnext, (p - start) * 8);
	else
		atomic64_set(&k->cursor, (p - start) * 8);
}

/*
 * Close every CPU's chunk of a wrap below @below: by IPI on the CPUs
 * online (it runs between two records, which are written with
 * interrupts off), directly on the others.  Every durable record taken
 * before is whole after it: ->dclosed.
 */
static void tracebuf_kclose_all(struct tracebuf_kprov *k, u32 below)
{
	u64 dend = tracebuf_kdurable_end(k);
	struct tracebuf_kcpu *c;
	int cpu;

	WRITE_ONCE(k->closed_below, below);
	cpus_read_lock();
	on_each_cpu(tracebuf_kclose_this_cpu, k, 1);
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(k->cpus, cpu);
		if (!cpu_online(cpu) && c->wrap < below)
			tracebuf_kclose_cpu(k, c);
	}
	cpus_read_unlock();
	k->dclosed = max(k->dclosed, dend);
}

/* Wraps up to @wrap may be entered now.  Pairs with tracebuf_kfilled(). */
static void tracebuf_kallow(struct tracebuf_kprov *k, u32 wrap)
{
	u32 want;

	atomic_set(&k->allow, wrap);
	smp_mb();	/* allow before want; tracebuf_kfilled() the reverse */
	want = READ_ONCE(k->want);
	if (want && want <= wrap)
		tracebuf_kenter(k, want);
}

/* Streaming: ask the manager to save the oldest full rolling buffer. */
static void tracebuf_ksend_save(struct tracebuf_kprov *k)
{
	struct tracebuf_buffer_header *h = tracebuf_khdr(k);
	struct tracebuf_pkt pkt = {
		.request = TRACEBUF_PKT_SAVE_BUFFER,
		.data32 = k->saved,
		.data64 = k->dclosed,
	};

	if (k->mode != TRACEBUF_MODE_STREAMING || k->save_out || k->saved >= k->closed)
		return;
	WRITE_ONCE(h->rolling_data_end[k->saved & 1], k->rolling_size);
	WRITE_ONCE(h->durable_data_end, k->dclosed);
	WRITE_ONCE(h->wrapped_count, k->saved + 1);
	WRITE_ONCE(h->num_records_dropped, atomic64_read(&k->dropped));
	/* refused when the manager moved on: the stop reads it out then */
	if (!tracebuf_provider_send(k->p, &pkt)) {
		k->save_out = true;
		k->save_dend = k->dclosed;
	}
}

/* BUFFER_SAVED: its rolling buffer is zeroed, then may be entered again. */
static void tracebuf_khandle_buffer_saved(struct tracebuf_kprov *k,
					  const struct tracebuf_pkt *pkt)
{
	u64 from = k->rolling + (k->saved & 1) * k->rolling_size;

	if (!k->save_out || pkt->data32 != k->saved || pkt->data64 != k->save_dend)
		return;
	tracebuf_buf_zero(k->buf, from, from + k->rolling_size);
	/* zeroed, then said so: a manager walking it finds no saved record */
	tracebuf_store_release_u64(&tracebuf_khdr(k)->rolling_data_end[k->saved & 1], 0);
	k->save_out = false;
	k->saved++;
	tracebuf_kallow(k, k->saved + 1);
	tracebuf_ksend_save(k);
}

/* After a switch: close the full rolling buffers' chunks, then save them. */
static void tracebuf_kclose_full(struct tracebuf_kprov *k)
{
	u32 full = READ_ONCE(k->want);

	if (!k->running)
		return;
	if (k->closed < full) {
		tracebuf_kclose_all(k, full);
		k->closed = full;
		if (k->mode == TRACEBUF_MODE_CIRCULAR)
			tracebuf_kallow(k, full + 1);
	}
	tracebuf_ksend_save(k);
}

static void tracebuf_kstart(struct tracebuf_kprov *k)
{
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
	/* the probes write through ->data (k->buf's is mapped already) */
	if (!buf || !ns || tracebuf_buf_vmap(buf)) {
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
	k->mode = k->buf->mode;
	k->dsize = k->buf->durable_size;
	k->rolling = TRACEBUF_HEADER_SIZE + k->dsize;
	k->rolling_size = k->buf->rolling_size;
	k->chunk = clamp_t(u64, div_u64(k->rolling_size, 4 * num_possible_cpus()), 256, SZ_4K) &
		   ~7ull;
	/* oneshot keeps its prelude in the rolling buffer the kernel cleared */
	if (disposition == TRACEBUF_START_CLEAR_NONDURABLE && k->mode == TRACEBUF_MODE_ONESHOT)
		disposition = TRACEBUF_START_CLEAR_ENTIRE;
	/* RETAIN goes on after what the last run wrote (its prelude too) */
	if (disposition != TRACEBUF_START_RETAIN ||
	    (!atomic64_read(&k->cursor) && !atomic64_read(&k->dnext))) {
		for_each_possible_cpu(cpu)
			memset(per_cpu_ptr(k->cpus, cpu), 0, sizeof(struct tracebuf_kcpu));
		atomic64_set(&k->cursor, 0);
		atomic_set(&k->allow, 1);
		k->want = 0;
		k->closed = 0;
		k->saved = 0;
		k->save_out = false;
		atomic64_set(&k->dropped, 0);
		if (disposition == TRACEBUF_START_CLEAR_NONDURABLE && atomic64_read(&k->dnext)) {
			k->dclosed = tracebuf_kdurable_end(k);
		} else {
			atomic64_set(&k->dnext, 0);
			k->dclosed = 0;
			tracebuf_kprelude(k, tracebuf_counter_khz());
		}
	}
	/* the data ends are no longer final (RETAIN keeps the last run's) */
	WRITE_ONCE(tracebuf_khdr(k)->stop_mark, 0);
	if (k->ops->write(k, true))
		goto fail;
	k->running = true;
	if (k->mode != TRACEBUF_MODE_ONESHOT)
		tracebuf_kallow(k, atomic_read(&k->allow));	/* a RETAIN that was full */
	if (k->ops->started)
		k->ops->started(k);
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
 * says where the records end (trace-format.md §1.6): the wrap written
 * last, and the one before it unless it was saved.  With @gone the buffer
 * is let go too.
 */
static void tracebuf_kstop(struct tracebuf_kprov *k, bool gone)
{
	struct tracebuf_buffer_header *h;
	u64 cur, off, dend;
	u32 wrap;
	int cpu;

	if (k->running) {
		k->ops->write(k, false);
		irq_work_sync(&k->irq);
		k->running = false;
		for_each_possible_cpu(cpu)
			tracebuf_kclose_cpu(k, per_cpu_ptr(k->cpus, cpu));
		k->closed = READ_ONCE(k->want);
		cur = atomic64_read(&k->cursor);
		wrap = cur >> 32;
		off = (u32)cur == TRACEBUF_KFULL ? k->rolling_size : (u32)cur;
		dend = tracebuf_kdurable_end(k);
		k->dclosed = dend;
		h = tracebuf_khdr(k);
		WRITE_ONCE(h->wrapped_count, wrap);
		WRITE_ONCE(h->rolling_data_end[wrap & 1], off);
		if (wrap && (k->mode == TRACEBUF_MODE_CIRCULAR || wrap - 1 >= k->saved))
			WRITE_ONCE(h->rolling_data_end[(wrap - 1) & 1], k->rolling_size);
		WRITE_ONCE(h->durable_data_end, dend);
		WRITE_ONCE(h->num_records_dropped, atomic64_read(&k->dropped));
		WRITE_ONCE(h->bytes_recorded, (u64)wrap * k->rolling_size + off + dend);
		/* last, for a manager that trusts the data ends by it (uapi) */
		tracebuf_store_release_u64(&h->stop_mark, TRACEBUF_HEADER_STOP_MARK);
		put_pid_ns(k->ns);
		k->ns = NULL;
	}
	if (gone && k->buf) {
		tracebuf_buf_put(k->buf);
		k->buf = NULL;
		atomic64_set(&k->cursor, 0);
		atomic64_set(&k->dnext, 0);
	}
}

/*
 * SNAPSHOT (circular and oneshot; trace-format.md §1.7): close every
 * CPU's chunk, so the records up to the cursor read before are whole, and
 * so is the earlier rolling buffer; the header's durable end follows.
 */
static void tracebuf_ksnapshot(struct tracebuf_kprov *k)
{
	struct tracebuf_buffer_header *h;
	u64 cur, end = 0;
	u32 wrap = 0;

	if (k->running) {
		h = tracebuf_khdr(k);
		cur = atomic64_read(&k->cursor);
		tracebuf_kclose_all(k, U32_MAX);
		wrap = cur >> 32;
		end = (u32)cur == TRACEBUF_KFULL ? k->rolling_size : (u32)cur;
		WRITE_ONCE(h->durable_data_end, k->dclosed);
		WRITE_ONCE(h->num_records_dropped, atomic64_read(&k->dropped));
	} else if (k->buf) {
		h = tracebuf_khdr(k);
		wrap = READ_ONCE(h->wrapped_count);
		end = READ_ONCE(h->rolling_data_end[wrap & 1]);
	}
	tracebuf_ksend(k, TRACEBUF_PKT_SNAPSHOT_TAKEN, wrap, end);
}

/* CATEGORIES: write what is enabled now. */
static void tracebuf_kcategories(struct tracebuf_kprov *k, u32 generation)
{
	if (!k->running)
		return;
	k->ops->write(k, false);
	if (k->ops->write(k, true))
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
	case TRACEBUF_PKT_BUFFER_SAVED:
		if (k->buf)
			tracebuf_khandle_buffer_saved(k, pkt);
		break;
	default:	/* INITIALIZE: the buffer is taken at START */
		break;
	}
}

/* The probes' irq_work: they cannot queue work under the runqueue lock. */
static void tracebuf_kirq(struct irq_work *irq)
{
	struct tracebuf_kprov *k = container_of(irq, struct tracebuf_kprov, irq);

	/* tracebuf_kprov_destroy() waits for the work item, for good */
	if (!READ_ONCE(k->dying))
		queue_work(system_wq, &k->work);
}

static void tracebuf_kwork(struct work_struct *work)
{
	struct tracebuf_kprov *k = container_of(work, struct tracebuf_kprov, work);
	struct tracebuf_pkt pkts[TRACEBUF_INBOX_DEPTH];
	unsigned int i, n;
	u32 cookie;

	/* queued by a push before tracebuf_kprov_create() set it: again after */
	if (!READ_ONCE(k->p))
		return;
	do {
		mutex_lock(&tracebuf_lock);
		n = tracebuf_provider_peek(k->p, pkts, ARRAY_SIZE(pkts), &cookie);
		tracebuf_provider_consume(k->p, n, cookie);
		mutex_unlock(&tracebuf_lock);
		for (i = 0; i < n; i++)
			tracebuf_khandle(k, &pkts[i]);
	} while (n);
	tracebuf_kclose_full(k);
}

/*
 * Leave the registry (its manager is told, as when a file closes), stop,
 * and let the buffer go; @k itself is its caller's.
 */
void tracebuf_kprov_destroy(struct tracebuf_kprov *k)
{
	tracebuf_provider_release(k->p);
	/*
	 * The work item, and it alone, touches the [W] fields: it must be
	 * done for good before the stop does here.  The writers may still
	 * run and queue it through their irq_work, which no longer does
	 * once dying is seen; the packets it leaves are nobody's now.
	 */
	WRITE_ONCE(k->dying, true);
	irq_work_sync(&k->irq);
	cancel_work_sync(&k->work);
	tracebuf_kstop(k, true);
	irq_work_sync(&k->irq);
	tracebuf_provider_put(k->p);
	free_percpu(k->cpus);
}

/*
 * Published categories: @count name and description pairs, as
 * PROVIDER_SET_CATEGORIES takes them.  NULL when out of memory.
 */
struct tracebuf_cats *tracebuf_kcats_known(const char *const *pairs, unsigned int count)
{
	struct tracebuf_cats *known;
	unsigned int i;
	size_t size = 0;
	char *d;

	for (i = 0; i < 2 * count; i++)
		size += strlen(pairs[i]) + 1;
	known = kvmalloc(struct_size(known, data, size), GFP_KERNEL_ACCOUNT);
	if (!known)
		return NULL;
	refcount_set(&known->refs, 1);
	known->size = size;
	known->count = count;
	d = known->data;
	for (i = 0; i < 2 * count; i++)
		d += strscpy(d, pairs[i], known->data + size - d) + 1;
	return known;
}

/*
 * Register @k as provider @name with @ops and the categories @known
 * (taken), from process context.  On failure nothing is left to undo.
 */
int tracebuf_kprov_create(struct tracebuf_kprov *k, const char *name,
			  const struct tracebuf_kprov_ops *ops, struct tracebuf_cats *known)
{
	struct tracebuf_provider *p;
	u32 status;
	int ret;

	if (!known)
		return -ENOMEM;
	k->ops = ops;
	k->cpus = alloc_percpu_gfp(struct tracebuf_kcpu, GFP_KERNEL_ACCOUNT);
	if (!k->cpus) {
		tracebuf_cats_put(known);
		return -ENOMEM;
	}
	INIT_WORK(&k->work, tracebuf_kwork);
	init_irq_work(&k->irq, tracebuf_kirq);
	p = tracebuf_provider_create(name, 0, &k->work, &status);
	if (IS_ERR(p)) {
		free_percpu(k->cpus);
		tracebuf_cats_put(known);
		return PTR_ERR(p);
	}
	tracebuf_provider_get(p);
	WRITE_ONCE(k->p, p);
	/* a manager may have pushed a packet before: the work item saw no p */
	queue_work(system_wq, &k->work);
	ret = tracebuf_provider_set_known(p, known);
	tracebuf_cats_put(known);
	if (ret)
		tracebuf_kprov_destroy(k);
	return ret;
}

/* Exact, or a prefix for a pattern ending in '*' (as libtracebuf's). */
static bool tracebuf_kpattern(const char *pat, const char *cat)
{
	size_t len = strlen(pat);

	if (len && pat[len - 1] == '*')
		return !strncmp(cat, pat, len - 1);
	return !strcmp(cat, pat);
}

/*
 * Is @cat enabled by the lists @a and @b together?  An entry enables the
 * categories it matches unless an exclusion "-PATTERN" matches too.  With
 * @named (ksched.c's: off unless named), only an entry other than "*"
 * does; otherwise no list, or exclusions alone, enable every category
 * (a user-space provider's rules).
 */
bool tracebuf_kcat_on(const struct tracebuf_cats *a, const struct tracebuf_cats *b,
		      const char *cat, bool named)
{
	const struct tracebuf_cats *lists[] = { a, b };
	bool included = false, inclusions = false;
	unsigned int i;
	u32 off;

	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		for (off = 0; lists[i] && off < lists[i]->size;
		     off += strlen(lists[i]->data + off) + 1) {
			const char *n = lists[i]->data + off;

			if (n[0] == '-') {
				if (tracebuf_kpattern(n + 1, cat))
					return false;
				continue;
			}
			if (named && !strcmp(n, "*"))
				continue;
			inclusions = true;
			included = included || tracebuf_kpattern(n, cat);
		}
	}
	return included || (!inclusions && !named);
}

/* The categories the manager gave (INITIALIZE's and the latest START's). */
void tracebuf_kread_config(struct tracebuf_kprov *k, struct tracebuf_cats **cats,
			   struct tracebuf_cats **extra)
{
	struct tracebuf_config_args args;

	tracebuf_provider_get_config(k->p, &args, cats, extra);
}
