/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracebuf: private types of the module.
 *
 * Objects
 *
 * struct tracebuf_file: one per open file of /dev/tracebuf; lives as long
 *	as the file.  Gets a role (provider or manager) once, for life.
 * struct tracebuf_provider: refcounted.  References: the provider's file
 *	(until it is closed), the owning manager (while it owns it), and every
 *	message node queued in a manager's inbox on its behalf.
 * struct tracebuf_manager: lives exactly as long as its file.
 * struct tracebuf_buf: a trace buffer, refcounted.  References: the
 *	provider that uses it, every VMA that maps it and every read-only
 *	handle file.  The memory is freed with the last of them.
 *
 * LOCKING
 *
 * tracebuf_lock (global mutex) protects the whole control plane: the
 *	registry (tracebuf_providers, tracebuf_managers, the id counters),
 *	each file's role, and in each provider and manager every field the
 *	struct comments mark "[L]": states, ownership, configuration, inboxes,
 *	counters and eventfd pointers.
 * provider->ctl_lock (mutex) serializes manager requests on one provider,
 *	so a request can drop tracebuf_lock while it allocates or clears a
 *	buffer and find the provider as it left it (only the provider's death
 *	can happen meanwhile; check ->dead again).
 * file->read_lock (mutex) lets one reader at a time copy messages out
 *	without tracebuf_lock and consume them afterwards.
 * tracebuf_users_lock (mutex, user.c) protects the table of per-user
 *	shares; a share's counts are [L] (providers) or atomic (memory).
 * tracebuf_kprov_lock (mutex, ksched.c) serializes the kernel_provider
 *	parameter with module init and exit.
 *
 * Order: file->read_lock or provider->ctl_lock, then tracebuf_lock, then
 * tracebuf_users_lock, then the wait queue and eventfd locks inside
 * wake-ups.  mmap_lock may be held
 * when tracebuf_lock is taken (mmap), never the other way round: nothing
 * touches user memory with tracebuf_lock held, and nothing under it waits
 * for user space.  Buffer contents need no lock: the kernel never parses
 * them and writes them only while the provider must not write.
 * A buffer's seal_lock (buf.c) nests inside tracebuf_lock (sealing) and
 * inside mmap_lock (a fault on a sealable mapping), and holds the
 * provider file's i_mmap_rwsem (unmap_mapping_pages()) and page table
 * locks.
 *
 * PREEMPT_RT (Documentation/locking/locktypes.rst).  Every lock of the
 * module is a mutex, a sleeping lock on every kernel (an rtmutex with
 * priority inheritance on RT), taken in task context only: ioctl, read,
 * mmap, a page fault, release, generic netlink, the module parameter,
 * init and exit, and the kernel providers' work items (tracebuf_kwork()).
 * The kernel's locks taken for the module are spinlock_t, sleeping locks
 * on RT, taken in those task contexts too: the wait queues' (wake-ups
 * under tracebuf_lock, poll, blocking reads), the eventfds', the
 * xarrays' and the IDA's; and the workqueue's pool lock, a
 * raw_spinlock_t on every kernel (queue_work()).  There is no spinlock_t,
 * raw_spinlock_t or local_lock_t of the module's own.
 *
 * Atomic context: what runs there takes no lock, neither the module's nor
 * one of the kernel's (checked by review: Debian's RT kernel has no
 * lockdep and no DEBUG_ATOMIC_SLEEP, so a sleeping lock there shows only
 * as "scheduling while atomic" when it is contended):
 *  - the sched probes (ksched.c): sched_switch under the runqueue lock,
 *    sched_wakeup and sched_wakeup_new under the task's pi_lock and the
 *    runqueue lock (raw_spinlock_t, interrupts off); sched_process_fork,
 *    sched_process_exec, sched_process_exit and task_rename (under
 *    task_lock(), a sleeping lock on RT) with preemption off, as every
 *    tracepoint probe runs;
 *  - tracebuf_kevent() (kapi.c), from any context, a hard interrupt or
 *    a raw spinlock's section included (in an NMI it counts a drop);
 *  - the writers' chunk path (kprovider.c: tracebuf_kreserve(),
 *    tracebuf_kdurable(), tracebuf_ktake(), tracebuf_kfilled()), called
 *    by the two above with interrupts off: per-CPU data, the atomic
 *    cursor, irq_work_queue() (lock-free) and udelay() for a test knob;
 *  - the IPI of tracebuf_kclose_all(), a hard interrupt on RT too.
 * A CPU's chunk is guarded by local_irq_save(), not by a local_lock_t: on
 * RT a local_lock_t is a per-CPU spinlock_t, which the probes under the
 * runqueue lock and callers in hard interrupts must not take.  The
 * sections are short and bounded: a record of at most
 * TRACEBUF_KRECORD_MAX bytes, the padding of at most three chunks (4 KiB
 * each at most), and a look at every CPU's chunk (circular mode) or last
 * exits (a thread that exits).  The probes' way
 * out is an irq_work (tracebuf_kirq()), which runs in a hard interrupt,
 * or on RT in the per-CPU irq_work thread, and only queues the work item.
 */
#ifndef _TRACEBUF_PRIV_H
#define _TRACEBUF_PRIV_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/refcount.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/tracebuf.h>

struct eventfd_ctx;
struct pid;
struct pid_namespace;
struct sk_buff;
struct seq_file;
struct vm_area_struct;

extern struct mutex tracebuf_lock;
extern u32 tracebuf_next_provider_id;		/* [L] */
extern u32 tracebuf_next_manager_id;		/* [L] */
extern struct workqueue_struct *tracebuf_wq;	/* frees buffers */
extern struct xarray tracebuf_providers;
extern struct list_head tracebuf_managers;

/* Module parameters (main.c); read with READ_ONCE. */
extern unsigned long tracebuf_max_buffer_size;
extern unsigned long tracebuf_max_total_memory;
extern unsigned int tracebuf_max_providers;
extern unsigned int tracebuf_max_user_providers;
extern unsigned long tracebuf_max_user_memory;

/* Records handed out by one read(). */
#define TRACEBUF_READ_BATCH		16
/* Pages zeroed or freed between two cond_resched(): 1 MiB of them. */
#define TRACEBUF_RESCHED_PAGES		(SZ_1M >> PAGE_SHIFT)

enum tracebuf_role {
	TRACEBUF_ROLE_NONE,
	TRACEBUF_ROLE_PROVIDER,
	TRACEBUF_ROLE_MANAGER,
};

/* Wake-up side of an inbox. */
struct tracebuf_notify {
	wait_queue_head_t wq;
	struct eventfd_ctx *eventfd;		/* [L] */
};

struct tracebuf_file {
	struct mutex read_lock;			/* one reader at a time */
	/* [L] to set; set once, then read with smp_load_acquire() */
	enum tracebuf_role role;
	union {
		struct tracebuf_provider *provider;
		struct tracebuf_manager *manager;
	};
};

/* A category list as passed in by a manager; immutable once built. */
struct tracebuf_cats {
	refcount_t refs;
	u32 size;				/* bytes, NULs included */
	u32 count;
	char data[];
};

/*
 * What one user's providers hold (user.c): refcounted by its providers
 * and by the buffers charged to it.
 */
struct tracebuf_user {
	kuid_t uid;
	refcount_t refs;
	unsigned int providers;			/* [L] registered */
	atomic64_t mem;				/* bytes: buffers, category
						 * lists
						 */
};

/* tracebuf_buf.flags */
#define TRACEBUF_BUF_LIVE	0		/* counts in max_total_memory */
#define TRACEBUF_BUF_SEALABLE	1		/* INITIALIZE_F_SEAL_SAVES */
#define TRACEBUF_BUF_SEALED	2		/* and 3: rolling buffer 0, 1 */

struct tracebuf_buf {
	struct kref refs;
	struct work_struct free_work;		/* frees it after the last ref */
	unsigned long flags;			/* TRACEBUF_BUF_*, atomic bits */
	struct tracebuf_user *user;		/* charged until freed */
	struct page **pages;			/* zeroed at allocation */
	unsigned long nr_pages;
	void *data;				/* vmap() of the pages, for a
						 * kernel provider only
						 */
	size_t size;
	u32 mode;				/* TRACEBUF_MODE_* */
	u64 durable_size;
	u64 rolling_size;
	u64 created_ns;				/* ktime_get_ns() */
	/* sealable buffers (tracebuf_buf_set_sealable()) */
	int seal_id;				/* > 0: seal_base's slot */
	unsigned long seal_base;		/* pgoff of page 0 in the
						 * provider's mappings
						 */
	unsigned long seal_first[2];		/* pages wholly inside each */
	unsigned long seal_end[2];		/* rolling buffer */
	struct address_space *seal_mapping;	/* of the provider's mappings */
	struct mutex seal_lock;			/* seals, and faults in them */
	atomic_t seal_vmas;			/* the provider's mappings, at
						 * most TRACEBUF_SEAL_MAPPINGS_MAX
						 */
};

/* One record waiting in a manager's inbox. */
struct tracebuf_msg_node {
	struct list_head link;			/* [L] in manager->inbox */
	struct tracebuf_provider *provider;	/* holds a reference; NULL
						 * for the registry node
						 */
	struct tracebuf_mgr_msg msg;
};

struct tracebuf_manager {
	u32 id;
	u32 flags;				/* TRACEBUF_ATTACH_F_* */
	struct pid_namespace *pid_ns;
	struct list_head link;			/* [L] in tracebuf_managers */
	struct list_head owned;			/* [L] providers it owns */
	struct list_head inbox;			/* [L] tracebuf_msg_node */
	unsigned int inbox_len;			/* [L], read locklessly */
	unsigned int active;			/* [L] owned in STARTING or
						 * STARTED
						 */
	bool tracing;				/* [L] MGR_SET_TRACING */
	struct tracebuf_cats *tracing_names;	/* [L] its names; NULL: all */
	struct tracebuf_msg_node registry_node;	/* [L] queued at most once */
	struct tracebuf_notify notify;
};

struct tracebuf_provider {
	struct kref refs;
	struct mutex ctl_lock;			/* manager requests */
	u32 id;
	struct pid *pid;			/* thread group of the caller
						 * of REGISTER; NULL for the
						 * kernel provider
						 */
	struct work_struct *kwork;		/* the kernel provider's: its
						 * inbox's reader
						 */
	char name[TRACEBUF_NAME_MAX + 1];
	struct tracebuf_user *user;		/* its share, for its life */
	bool unlimited;				/* registered with
						 * CAP_SYS_RESOURCE
						 */

	bool dead;				/* [L] its file was closed */
	u32 state;				/* [L] TRACEBUF_STATE_* */
	struct tracebuf_manager *owner;		/* [L] NULL when unowned */
	struct list_head owner_link;		/* [L] in owner->owned */

	/* [L] configuration, valid from INITIALIZE to detach */
	struct tracebuf_buf *buf;
	struct tracebuf_cats *cats;		/* INITIALIZE's list */
	struct tracebuf_cats *extra_cats;	/* latest START's list */
	struct tracebuf_cats *known;		/* [L] published: name and
						 * description pairs
						 */
	u32 mode;
	u32 generation;
	u32 disposition;

	/* [L] the outstanding SAVE_BUFFER, if any */
	bool save_pending;
	u32 save_wrapped;
	u64 save_durable_end;
	bool snapshot_pending;			/* [L] a SNAPSHOT unanswered */
	bool update_pending;			/* [L] a CATEGORIES unanswered */

	/* [L] the provider's inbox: a ring of packets */
	struct tracebuf_pkt inbox[TRACEBUF_INBOX_DEPTH];
	unsigned int in_head;
	unsigned int in_len;			/* read locklessly */
	u32 in_flushes;				/* bumped when flushed */

	unsigned int out_len;			/* [L] its packets waiting in
						 * a manager's inbox
						 */
	/* [L] GET_CONFIG's F_WENT_ON until STARTED: STARTED_LATE's facts */
	bool went_on;
	u32 late_mgr;				/* a manager whose trace ran
						 * for it then, 0: none
						 */
	bool late_any;				/* and another one's did */

	bool out_refused;			/* [L] one was refused with
						 * EAGAIN for out_len: woken
						 * when the manager reads one
						 */
	struct tracebuf_msg_node gone_node;	/* [L] queued once, at death */
	u32 exit_wait;				/* ONCE: 0, or the wait status
						 * of its process's exit | BIT(31):
						 * tracebuf_provider_flush()
						 */

	u64 packets_sent;			/* [L] */
	u64 packets_received;			/* [L] */
	u64 saves;				/* [L] */

	struct tracebuf_notify notify;
};

/* notify.c */
void tracebuf_notify_init(struct tracebuf_notify *n);
void tracebuf_notify_signal(struct tracebuf_notify *n);
int tracebuf_notify_set_eventfd(struct tracebuf_notify *n, int fd,
				const unsigned int *queued);
void tracebuf_notify_release(struct tracebuf_notify *n);

/* user.c */
struct tracebuf_user *tracebuf_user_get_current(void);
void tracebuf_user_get(struct tracebuf_user *u);
void tracebuf_user_put(struct tracebuf_user *u);
int tracebuf_user_charge(struct tracebuf_user *u, u64 bytes, bool unlimited);
void tracebuf_user_uncharge(struct tracebuf_user *u, u64 bytes);
void tracebuf_users_show(struct seq_file *m);

/* buf.c */
struct tracebuf_buf *tracebuf_buf_create(u64 size, u32 mode,
					 struct tracebuf_user *user);
void tracebuf_buf_retire(struct tracebuf_buf *buf);
void tracebuf_buf_get(struct tracebuf_buf *buf);
int tracebuf_buf_vmap(struct tracebuf_buf *buf);
u64 tracebuf_buf_records_dropped(struct tracebuf_buf *buf);
void tracebuf_buf_put(struct tracebuf_buf *buf);
void tracebuf_buf_apply_disposition(struct tracebuf_buf *buf, u32 disposition);
void tracebuf_buf_zero(struct tracebuf_buf *buf, u64 from, u64 to);
int tracebuf_buf_set_sealable(struct tracebuf_buf *buf);
/* tracebuf_buf_seal() masks: bit r, rolling buffer r */
#define TRACEBUF_ROLLING_ALL	(BIT(0) | BIT(1))
bool tracebuf_buf_seal(struct tracebuf_buf *buf, unsigned int mask);
void tracebuf_buf_unseal(struct tracebuf_buf *buf, unsigned int mask);
int tracebuf_buf_mmap(struct tracebuf_buf *buf, struct vm_area_struct *vma,
		      bool writable);
struct file *tracebuf_buf_open_handle(struct tracebuf_buf *buf);
bool tracebuf_mem_reserve(u64 size);
void tracebuf_mem_unreserve(u64 size);

/* provider.c */
struct tracebuf_cats *tracebuf_cats_get(struct tracebuf_cats *cats);
void tracebuf_cats_put(struct tracebuf_cats *cats);
struct tracebuf_provider *tracebuf_provider_create(const char *name, u32 flags,
						   struct work_struct *kwork, u32 *status);
void tracebuf_provider_flush(struct tracebuf_provider *p);
void tracebuf_provider_release(struct tracebuf_provider *p);
void tracebuf_provider_get(struct tracebuf_provider *p);
void tracebuf_provider_put(struct tracebuf_provider *p);
void tracebuf_provider_set_state(struct tracebuf_provider *p, u32 state);
bool tracebuf_provider_seen_in(const struct tracebuf_provider *p,
			       struct pid_namespace *ns);
void tracebuf_provider_room(struct tracebuf_provider *p);
int tracebuf_provider_push(struct tracebuf_provider *p,
			   const struct tracebuf_pkt *pkt);
void tracebuf_provider_detach(struct tracebuf_provider *p);
unsigned int tracebuf_provider_saving(const struct tracebuf_provider *p);
unsigned int tracebuf_provider_unsaved(const struct tracebuf_provider *p);
int tracebuf_provider_send(struct tracebuf_provider *p,
			   const struct tracebuf_pkt *pkt);
int tracebuf_provider_release_session(struct tracebuf_provider *p);
void tracebuf_provider_went_on(struct tracebuf_provider *p);
int tracebuf_provider_get_config(struct tracebuf_provider *p,
				 struct tracebuf_config_args *args,
				 struct tracebuf_cats **cats,
				 struct tracebuf_cats **extra);
int tracebuf_provider_mmap(struct tracebuf_provider *p,
			   struct vm_area_struct *vma);
int tracebuf_provider_set_known(struct tracebuf_provider *p,
				struct tracebuf_cats *known);
unsigned int tracebuf_provider_peek(struct tracebuf_provider *p, void *out,
				    unsigned int max, u32 *cookie);
void tracebuf_provider_consume(struct tracebuf_provider *p, unsigned int n,
			       u32 cookie);

/* manager.c */
bool tracebuf_may_manage(void);
bool tracebuf_may_manage_skb(const struct sk_buff *skb);
struct tracebuf_manager *tracebuf_manager_create(u32 flags);
void tracebuf_manager_release(struct tracebuf_manager *m);
bool tracebuf_cats_have(const struct tracebuf_cats *names, const char *name);
bool tracebuf_manager_sees(struct tracebuf_manager *m,
			   struct tracebuf_provider *p);
int tracebuf_manager_push(struct tracebuf_manager *m,
			  struct tracebuf_provider *p, u16 type,
			  const struct tracebuf_pkt *pkt,
			  struct tracebuf_msg_node *node);
void tracebuf_manager_registry_changed(struct tracebuf_provider *p);
bool tracebuf_trace_running_for(struct tracebuf_provider *p);
void tracebuf_manager_set_tracing(struct tracebuf_manager *m, bool tracing,
				  struct tracebuf_cats *names);
int tracebuf_manager_list_providers(struct tracebuf_manager *m,
				    struct tracebuf_list_args *args,
				    void __user *uinfo);
int tracebuf_manager_initialize(struct tracebuf_manager *m,
				struct tracebuf_initialize_args *args,
				struct tracebuf_cats *cats, int fd);
int tracebuf_manager_start(struct tracebuf_manager *m, u32 id,
			   u32 disposition, struct tracebuf_cats *extra);
int tracebuf_manager_update(struct tracebuf_manager *m, u32 id,
			    struct tracebuf_cats *extra);
int tracebuf_manager_stop(struct tracebuf_manager *m, u32 id);
int tracebuf_manager_terminate(struct tracebuf_manager *m, u32 id);
int tracebuf_manager_send(struct tracebuf_manager *m, u32 id,
			  const struct tracebuf_pkt *pkt);
struct tracebuf_cats *tracebuf_manager_get_known(struct tracebuf_manager *m,
						 u32 id);
unsigned int tracebuf_manager_peek(struct tracebuf_manager *m, void *out,
				   unsigned int max, u32 *cookie);
void tracebuf_manager_consume_head(struct tracebuf_manager *m, unsigned int n,
				   u32 cookie);

/* ksched.c */
void tracebuf_kprov_init(void);
void tracebuf_kprov_exit(void);

/* ioctl.c */
long tracebuf_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* debugfs.c */
void tracebuf_debugfs_init(void);
void tracebuf_debugfs_exit(void);

/* genl.c */
void tracebuf_genl_notify(struct tracebuf_provider *p, u8 cmd);
int tracebuf_genl_init(void);
void tracebuf_genl_exit(void);

#endif /* _TRACEBUF_PRIV_H */
