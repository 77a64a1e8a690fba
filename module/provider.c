// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf: providers.  The registry entry, the provider's inbox, the
 * packets a provider sends and the provider side of the state machine
 * (the manager side is in manager.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "tracebuf_priv.h"

/*
 * [L] where the search for a free id starts: ids are handed out
 * cyclically, so one comes back only after every other u32 did.
 */
u32 tracebuf_next_provider_id = 1;
static unsigned int tracebuf_nr_providers;	/* [L] */

struct tracebuf_cats *tracebuf_cats_get(struct tracebuf_cats *cats)
{
	if (cats)
		refcount_inc(&cats->refs);
	return cats;
}

void tracebuf_cats_put(struct tracebuf_cats *cats)
{
	if (cats && refcount_dec_and_test(&cats->refs))
		kvfree(cats);
}

void tracebuf_provider_get(struct tracebuf_provider *p)
{
	kref_get(&p->refs);
}

static void tracebuf_provider_free(struct kref *kref)
{
	struct tracebuf_provider *p =
		container_of(kref, struct tracebuf_provider, refs);

	tracebuf_cats_put(p->cats);
	tracebuf_cats_put(p->extra_cats);
	if (p->known)
		tracebuf_user_uncharge(p->user, p->known->size);
	tracebuf_cats_put(p->known);
	tracebuf_user_put(p->user);
	put_pid(p->pid);
	kfree(p);
}

/* May be called with tracebuf_lock held: the release takes no lock. */
void tracebuf_provider_put(struct tracebuf_provider *p)
{
	kref_put(&p->refs, tracebuf_provider_free);
}

static bool tracebuf_state_active(u32 state)
{
	return state == TRACEBUF_STATE_STARTING ||
	       state == TRACEBUF_STATE_STARTED;
}

/*
 * Set @p's state and keep its owner's count of active providers
 * (owner->active) in step: every change of state while @p has an owner
 * goes through here.  Nobody is told: tracebuf_provider_set_state()
 * sends PROVIDER_CHANGE, tracebuf_provider_detach() its own.
 */
static void __tracebuf_provider_set_state(struct tracebuf_provider *p, u32 state)
{
	lockdep_assert_held(&tracebuf_lock);

	if (p->owner && tracebuf_state_active(p->state) !=
			tracebuf_state_active(state)) {
		if (tracebuf_state_active(state))
			p->owner->active++;
		else
			p->owner->active--;
	}
	p->state = state;
}

void tracebuf_provider_set_state(struct tracebuf_provider *p, u32 state)
{
	__tracebuf_provider_set_state(p, state);
	tracebuf_genl_notify(p, TRACEBUF_CMD_PROVIDER_CHANGE);
}

/*
 * Undo INITIALIZE: back to REGISTERED without a manager or a buffer.  The
 * caller disposes of the owner's reference, which the owned list held.
 */
void tracebuf_provider_detach(struct tracebuf_provider *p)
{
	lockdep_assert_held(&tracebuf_lock);

	__tracebuf_provider_set_state(p, TRACEBUF_STATE_REGISTERED);
	list_del_init(&p->owner_link);
	p->owner = NULL;
	if (p->buf) {
		/*
		 * Its seals stay: its manager may still be writing out what
		 * they hold, and the buffer is not the provider's to write
		 * any more, though it may keep it mapped.
		 */
		tracebuf_buf_retire(p->buf);
		tracebuf_buf_put(p->buf);
		p->buf = NULL;
	}
	tracebuf_cats_put(p->cats);
	p->cats = NULL;
	tracebuf_cats_put(p->extra_cats);
	p->extra_cats = NULL;
	p->mode = 0;
	p->disposition = 0;
	p->save_pending = false;
	p->snapshot_pending = false;
	p->update_pending = false;
	/* a dying provider's last word is PROVIDER_DEL */
	if (!p->dead)
		tracebuf_genl_notify(p, TRACEBUF_CMD_PROVIDER_CHANGE);
}

/*
 * Is @p seen from pid namespace @ns: is its process there?  The kernel
 * provider, which has none, is seen from every namespace.
 */
bool tracebuf_provider_seen_in(const struct tracebuf_provider *p,
			       struct pid_namespace *ns)
{
	return !p->pid || pid_nr_ns(p->pid, ns) != 0;
}

/* Queue a packet to the provider; EAGAIN when its inbox is full. */
int tracebuf_provider_push(struct tracebuf_provider *p,
			   const struct tracebuf_pkt *pkt)
{
	lockdep_assert_held(&tracebuf_lock);

	if (p->in_len == TRACEBUF_INBOX_DEPTH)
		return -EAGAIN;
	p->inbox[(p->in_head + p->in_len) % TRACEBUF_INBOX_DEPTH] = *pkt;
	WRITE_ONCE(p->in_len, p->in_len + 1);
	p->packets_received++;
	tracebuf_notify_signal(&p->notify);
	if (p->kwork)
		queue_work(system_wq, p->kwork);
	return 0;
}

/*
 * Its manager read one of @p's packets: if one was refused for want of
 * room, wake @p once (its eventfd, its poll, the kernel provider's work
 * item) so that it sends it again; a SAVE_BUFFER refused so would
 * otherwise never be asked again and streaming would drop all it writes.
 */
void tracebuf_provider_room(struct tracebuf_provider *p)
{
	lockdep_assert_held(&tracebuf_lock);

	if (!p->out_refused || p->dead)
		return;
	p->out_refused = false;
	tracebuf_notify_signal(&p->notify);
	if (p->kwork)
		queue_work(system_wq, p->kwork);
}

/*
 * A provider of @name.  @kwork: the kernel provider's work item, queued
 * whenever a packet reaches its inbox (kprovider.c); NULL for a file's,
 * which has the pid of its caller's thread group.
 */
struct tracebuf_provider *tracebuf_provider_create(const char *name, u32 flags,
						   struct work_struct *kwork, u32 *status)
{
	struct tracebuf_provider *p;
	struct tracebuf_user *u;
	int ret;

	u = tracebuf_user_get_current();
	if (IS_ERR(u))
		return ERR_CAST(u);
	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p) {
		tracebuf_user_put(u);
		return ERR_PTR(-ENOMEM);
	}
	p->user = u;
	p->unlimited = capable(CAP_SYS_RESOURCE);
	kref_init(&p->refs);
	mutex_init(&p->ctl_lock);
	strscpy(p->name, name, sizeof(p->name));
	p->kwork = kwork;
	if (!kwork)
		p->pid = get_task_pid(current, PIDTYPE_TGID);
	p->state = TRACEBUF_STATE_REGISTERED;
	INIT_LIST_HEAD(&p->owner_link);
	INIT_LIST_HEAD(&p->gone_node.link);
	tracebuf_notify_init(&p->notify);

	mutex_lock(&tracebuf_lock);
	if (tracebuf_nr_providers >= READ_ONCE(tracebuf_max_providers)) {
		ret = -ENOSPC;
		goto out_unlock;
	}
	if (u->providers >= READ_ONCE(tracebuf_max_user_providers) && !p->unlimited) {
		ret = -EDQUOT;
		goto out_unlock;
	}
	ret = xa_alloc_cyclic(&tracebuf_providers, &p->id, p, XA_LIMIT(1, U32_MAX),
			      &tracebuf_next_provider_id, GFP_KERNEL_ACCOUNT);
	if (ret < 0)
		goto out_unlock;
	tracebuf_nr_providers++;
	u->providers++;
	*status = 0;
	if ((flags & TRACEBUF_REGISTER_F_SYNC) && tracebuf_trace_running_for(p))
		*status |= TRACEBUF_REGISTER_STARTED;
	tracebuf_manager_registry_changed(p);
	tracebuf_genl_notify(p, TRACEBUF_CMD_PROVIDER_NEW);
	mutex_unlock(&tracebuf_lock);
	return p;

out_unlock:
	mutex_unlock(&tracebuf_lock);
	put_pid(p->pid);
	kfree(p);
	tracebuf_user_put(u);
	return ERR_PTR(ret);
}

/* Is current a thread of the provider's process? */
static bool tracebuf_is_own(const struct tracebuf_provider *p)
{
	return p->pid && !(current->flags & PF_KTHREAD) && task_tgid(current) == p->pid;
}

/*
 * If current is the provider's process exiting (do_exit(), after its exit
 * code is set), its wait status | BIT(31): the group's when the whole
 * thread group exits; else 0.
 */
static u32 tracebuf_own_exit(const struct tracebuf_provider *p)
{
	const struct signal_struct *sig = current->signal;
	int code;

	if (!tracebuf_is_own(p) || !(current->flags & PF_EXITING))
		return 0;
	if (READ_ONCE(sig->flags) & SIGNAL_GROUP_EXIT)
		code = READ_ONCE(sig->group_exit_code);
	else
		code = READ_ONCE(current->exit_code);
	return (code & 0xffff) | BIT(31);
}

/*
 * A descriptor of the provider's file is closed (filp_close()).  When its
 * process exits, do_exit() closes its descriptors after the exit code is
 * set: keep the status for tracebuf_gone_status(), since the last
 * reference may be dropped elsewhere (below).
 */
void tracebuf_provider_flush(struct tracebuf_provider *p)
{
	u32 wait = tracebuf_own_exit(p);

	if (wait)
		WRITE_ONCE(p->exit_wait, wait);
}

/*
 * How the provider's process stands as its file closes, for MSG_GONE's
 * pkt (TRACEBUF_GONE_*).  The last fput of a process that exits usually
 * runs in that process, in do_exit(), with its exit code set.  But its
 * buffer's mapping holds the file too, and its mm can outlive it: a
 * reader of /proc/PID/stat holds it for a moment (get_task_mm()), and
 * then drops the last reference.  So the status kept as its process's
 * exit closed its descriptor stands when the process is not the closer.
 * A file closed by another process that shared it, and that the
 * provider's process did not hold when it exited, or one closed by a
 * kernel thread, says nothing of the provider's process: that is left
 * unknown (0).
 */
static void tracebuf_gone_status(const struct tracebuf_provider *p,
				 struct tracebuf_pkt *pkt)
{
	u32 wait;

	memset(pkt, 0, sizeof(*pkt));
	if (tracebuf_is_own(p) && !(current->flags & PF_EXITING)) {
		pkt->data16 = TRACEBUF_GONE_CLOSED;
		return;
	}
	wait = tracebuf_own_exit(p);
	if (!wait)
		wait = READ_ONCE(p->exit_wait);
	if (!wait)
		return;
	pkt->data16 = TRACEBUF_GONE_EXITED;
	pkt->data32 = wait & 0xffff;
}

/*
 * The provider's file is closed.  It leaves the registry; its manager is
 * told with the state it died in and how its process ended, and keeps the
 * buffer through its handle.
 */
void tracebuf_provider_release(struct tracebuf_provider *p)
{
	struct tracebuf_manager *m;
	struct tracebuf_pkt gone;

	tracebuf_notify_release(&p->notify);
	tracebuf_gone_status(p, &gone);

	mutex_lock(&tracebuf_lock);
	xa_erase(&tracebuf_providers, p->id);
	tracebuf_nr_providers--;
	p->user->providers--;
	p->dead = true;
	m = p->owner;
	if (m) {
		u32 last = p->state;

		/* The owner's reference moves to the GONE message. */
		tracebuf_provider_detach(p);
		p->state = last;
		tracebuf_manager_push(m, p, TRACEBUF_MSG_GONE, &gone,
				      &p->gone_node);
		tracebuf_provider_put(p);
	}
	tracebuf_manager_registry_changed(p);
	tracebuf_genl_notify(p, TRACEBUF_CMD_PROVIDER_DEL);
	mutex_unlock(&tracebuf_lock);

	tracebuf_provider_put(p);
}

/* Fields that must be zero, and ALERT's name: 1..14 bytes, zero padded. */
static int tracebuf_pkt_check(const struct tracebuf_pkt *pkt)
{
	const u8 *name = (const u8 *)pkt + offsetof(struct tracebuf_pkt, data16);
	unsigned int i, len;

	switch (pkt->request) {
	case TRACEBUF_PKT_STARTED:
		if ((pkt->data16 & ~TRACEBUF_STARTED_LATE) || pkt->data64)
			return -EINVAL;
		if (pkt->data32 != TRACEBUF_FIFO_PROTOCOL_VERSION)
			return -EPROTONOSUPPORT;
		return 0;
	case TRACEBUF_PKT_STOPPED:
		if (pkt->data16 || pkt->data32 || pkt->data64)
			return -EINVAL;
		return 0;
	case TRACEBUF_PKT_CATEGORIES_APPLIED:
		if (pkt->data16 || pkt->data64)
			return -EINVAL;
		return 0;
	case TRACEBUF_PKT_SAVE_BUFFER:
	case TRACEBUF_PKT_SNAPSHOT_TAKEN:
		if (pkt->data16 || !IS_ALIGNED(pkt->data64, 8))
			return -EINVAL;
		return 0;
	case TRACEBUF_PKT_ALERT:
		len = strnlen(name, TRACEBUF_ALERT_NAME_MAX);
		if (!len)
			return -EINVAL;
		for (i = len; i < TRACEBUF_ALERT_NAME_MAX; i++)
			if (name[i])
				return -EINVAL;
		return 0;
	default:
		return -EINVAL;
	}
}

/* Is @pkt legal in the provider's current state?  Changes nothing. */
static int tracebuf_pkt_allowed(struct tracebuf_provider *p,
				const struct tracebuf_pkt *pkt)
{
	lockdep_assert_held(&tracebuf_lock);

	switch (pkt->request) {
	case TRACEBUF_PKT_STARTED:
		return p->state == TRACEBUF_STATE_STARTING ? 0 : -EPROTO;
	case TRACEBUF_PKT_STOPPED:
		return p->state == TRACEBUF_STATE_STOPPING ||
		       p->state == TRACEBUF_STATE_TERMINATING ? 0 : -EPROTO;
	case TRACEBUF_PKT_SAVE_BUFFER:
		if (p->mode != TRACEBUF_MODE_STREAMING ||
		    (p->state != TRACEBUF_STATE_STARTED &&
		     p->state != TRACEBUF_STATE_STOPPING))
			return -EPROTO;
		if (p->save_pending)
			return -EBUSY;
		if (pkt->data64 > p->buf->durable_size)
			return -EINVAL;
		return 0;
	case TRACEBUF_PKT_ALERT:
		return p->state == TRACEBUF_STATE_STARTED ? 0 : -EPROTO;
	case TRACEBUF_PKT_SNAPSHOT_TAKEN:
		if (!p->snapshot_pending)
			return -EPROTO;
		if (pkt->data64 > p->buf->rolling_size)
			return -EINVAL;
		return 0;
	case TRACEBUF_PKT_CATEGORIES_APPLIED:
		return p->update_pending && pkt->data32 == p->generation ? 0 : -EPROTO;
	}
	return -EINVAL;
}

/*
 * The rolling buffer of @p's sealable buffer that its pending save holds
 * (tracebuf_buf_seal() mask), 0 with none: what SAVE_BUFFER seals and
 * BUFFER_SAVED unseals.
 */
unsigned int tracebuf_provider_saving(const struct tracebuf_provider *p)
{
	lockdep_assert_held(&tracebuf_lock);

	return p->save_pending ? BIT(p->save_wrapped & 1) : 0;
}

/*
 * The rolling buffers of @p's sealable buffer that no save holds sealed
 * (tracebuf_buf_seal() mask): what its STOPPED seals and START unseals.
 */
unsigned int tracebuf_provider_unsaved(const struct tracebuf_provider *p)
{
	return TRACEBUF_ROLLING_ALL & ~tracebuf_provider_saving(p);
}

/* TRACEBUF_IOC_PROVIDER_SEND: a packet from the provider to its manager. */
int tracebuf_provider_send(struct tracebuf_provider *p,
			   const struct tracebuf_pkt *pkt)
{
	struct tracebuf_pkt sealed, late;
	struct tracebuf_msg_node *node;
	unsigned int mask;
	int ret;

	ret = tracebuf_pkt_check(pkt);
	if (ret)
		return ret;
	node = kmalloc(sizeof(*node), GFP_KERNEL_ACCOUNT);
	if (!node)
		return -ENOMEM;

	mutex_lock(&tracebuf_lock);
	/*
	 * The first STARTED since it went on (GET_CONFIG's F_WENT_ON), sent
	 * or refused: late exactly when it went on while its manager's trace
	 * ran.  A START it answers after that one is no START it waited for.
	 */
	if (pkt->request == TRACEBUF_PKT_STARTED && p->went_on) {
		late = *pkt;
		late.data16 &= ~TRACEBUF_STARTED_LATE;
		if (p->owner && (p->late_any || p->late_mgr == p->owner->id))
			late.data16 |= TRACEBUF_STARTED_LATE;
		pkt = &late;
		p->went_on = false;
	}
	ret = tracebuf_pkt_allowed(p, pkt);
	if (ret)
		goto out_unlock;
	if (p->out_len == TRACEBUF_OUTBOX_DEPTH) {
		/* woken when its manager made room (tracebuf_provider_room()) */
		p->out_refused = true;
		ret = -EAGAIN;
		goto out_unlock;
	}
	/* The message carries the state after the packet. */
	switch (pkt->request) {
	case TRACEBUF_PKT_STARTED:
		tracebuf_provider_set_state(p, TRACEBUF_STATE_STARTED);
		break;
	case TRACEBUF_PKT_STOPPED:
		if (p->state == TRACEBUF_STATE_STOPPING)
			tracebuf_provider_set_state(p, TRACEBUF_STATE_STOPPED);
		/* what it wrote is final: sealed until START, but a save's */
		BUILD_BUG_ON(BIT(0) != TRACEBUF_STOPPED_SEALED0 ||
			     BIT(1) != TRACEBUF_STOPPED_SEALED1);
		mask = tracebuf_provider_unsaved(p);
		if (tracebuf_buf_seal(p->buf, mask)) {
			sealed = *pkt;
			sealed.data16 = mask;
			pkt = &sealed;
		}
		break;
	case TRACEBUF_PKT_SAVE_BUFFER:
		p->save_pending = true;
		p->save_wrapped = pkt->data32;
		p->save_durable_end = pkt->data64;
		if (tracebuf_buf_seal(p->buf, tracebuf_provider_saving(p))) {
			sealed = *pkt;
			sealed.data16 = TRACEBUF_SAVE_SEALED;
			pkt = &sealed;
		}
		break;
	case TRACEBUF_PKT_SNAPSHOT_TAKEN:
		p->snapshot_pending = false;
		break;
	case TRACEBUF_PKT_CATEGORIES_APPLIED:
		p->update_pending = false;
		break;
	}
	p->packets_sent++;
	tracebuf_manager_push(p->owner, p, TRACEBUF_MSG_PACKET, pkt, node);
	node = NULL;
out_unlock:
	mutex_unlock(&tracebuf_lock);
	kfree(node);
	return ret;
}

/* TRACEBUF_IOC_PROVIDER_RELEASE: TERMINATING -> REGISTERED. */
int tracebuf_provider_release_session(struct tracebuf_provider *p)
{
	struct tracebuf_msg_node *node;
	struct tracebuf_manager *m;
	int ret = 0;

	node = kmalloc(sizeof(*node), GFP_KERNEL_ACCOUNT);
	if (!node)
		return -ENOMEM;

	mutex_lock(&tracebuf_lock);
	if (p->state != TRACEBUF_STATE_TERMINATING) {
		ret = -EPROTO;
		goto out_unlock;
	}
	m = p->owner;
	tracebuf_provider_detach(p);
	/* The owner's reference moves to the TERMINATED message. */
	tracebuf_manager_push(m, p, TRACEBUF_MSG_TERMINATED, NULL, node);
	tracebuf_provider_put(p);
	node = NULL;
out_unlock:
	mutex_unlock(&tracebuf_lock);
	kfree(node);
	return ret;
}

/*
 * PROVIDER_SET_CATEGORIES: replace the published list (NULL clears it).
 * The list is charged to the provider's user while it is published:
 * EDQUOT when that would go over its share.
 */
int tracebuf_provider_set_known(struct tracebuf_provider *p,
				struct tracebuf_cats *known)
{
	struct tracebuf_cats *old;
	int ret;

	if (known) {
		ret = tracebuf_user_charge(p->user, known->size, p->unlimited);
		if (ret)
			return ret;
	}
	mutex_lock(&tracebuf_lock);
	old = p->known;
	p->known = tracebuf_cats_get(known);
	mutex_unlock(&tracebuf_lock);
	if (old)
		tracebuf_user_uncharge(p->user, old->size);
	tracebuf_cats_put(old);
	return 0;
}

/*
 * Snapshot the configuration; the category lists come back referenced so
 * the caller can copy them out without the lock.
 */
int tracebuf_provider_get_config(struct tracebuf_provider *p,
				 struct tracebuf_config_args *args,
				 struct tracebuf_cats **cats,
				 struct tracebuf_cats **extra)
{
	mutex_lock(&tracebuf_lock);
	args->state = p->state;
	args->mode = p->mode;
	args->disposition = p->disposition;
	args->generation = p->generation;
	args->buffer_size = p->buf ? p->buf->size : 0;
	*cats = tracebuf_cats_get(p->cats);
	*extra = tracebuf_cats_get(p->extra_cats);
	mutex_unlock(&tracebuf_lock);
	return 0;
}

int tracebuf_provider_mmap(struct tracebuf_provider *p,
			   struct vm_area_struct *vma)
{
	struct tracebuf_buf *buf;
	int ret;

	mutex_lock(&tracebuf_lock);
	buf = p->buf;
	if (buf)
		tracebuf_buf_get(buf);
	mutex_unlock(&tracebuf_lock);
	if (!buf)
		return -ENODEV;

	ret = tracebuf_buf_mmap(buf, vma, true);
	tracebuf_buf_put(buf);
	return ret;
}

/*
 * Copy up to @max packets from the head of the inbox; consumes nothing.
 * @cookie identifies the inbox's contents for tracebuf_provider_consume().
 */
unsigned int tracebuf_provider_peek(struct tracebuf_provider *p, void *out,
				    unsigned int max, u32 *cookie)
{
	struct tracebuf_pkt *pkts = out;
	unsigned int i, n;

	lockdep_assert_held(&tracebuf_lock);

	n = min(max, p->in_len);
	for (i = 0; i < n; i++)
		pkts[i] = p->inbox[(p->in_head + i) % TRACEBUF_INBOX_DEPTH];
	*cookie = p->in_flushes;
	return n;
}

/* Drop the @n packets peeked, unless a flush (manager gone) already did. */
void tracebuf_provider_consume(struct tracebuf_provider *p, unsigned int n,
			       u32 cookie)
{
	lockdep_assert_held(&tracebuf_lock);

	if (p->in_flushes != cookie)
		return;
	p->in_head = (p->in_head + n) % TRACEBUF_INBOX_DEPTH;
	WRITE_ONCE(p->in_len, p->in_len - n);
}
