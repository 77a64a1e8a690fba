// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf: managers.  Visibility through pid namespaces, the manager's
 * inbox, and the manager side of the provider state machine (INITIALIZE,
 * START, STOP, TERMINATE, BUFFER_SAVED).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/lockdep.h>
#include <linux/moduleparam.h>
#include <linux/netlink.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>
#include <net/sock.h>

#include "tracebuf_priv.h"

static int tracebuf_manager_gid = -1;
module_param_named(manager_gid, tracebuf_manager_gid, int, 0644);
MODULE_PARM_DESC(manager_gid,
		 "Group whose members may attach as manager without CAP_PERFMON (-1: none)");

/* May the caller manage: CAP_PERFMON, CAP_SYS_ADMIN or manager_gid? */
bool tracebuf_may_manage(void)
{
	int gid = READ_ONCE(tracebuf_manager_gid);

	if (perfmon_capable())
		return true;
	return gid >= 0 && in_group_p(make_kgid(&init_user_ns, gid));
}

/*
 * The same for a generic netlink request: both whoever opened the socket
 * and whoever sends on it must be allowed, as netlink_capable() checks
 * capabilities (a socket opened unprivileged and handed to a privileged
 * program must not read the registry: CVE-2014-0181's pattern).
 */
bool tracebuf_may_manage_skb(const struct sk_buff *skb)
{
	const struct sock *sk = NETLINK_CB(skb).sk;
	const struct cred *old;
	bool ok;

	if (!sk || !sk->sk_socket || !sk->sk_socket->file || !tracebuf_may_manage())
		return false;
	old = override_creds(sk->sk_socket->file->f_cred);
	ok = tracebuf_may_manage();
	revert_creds(old);
	return ok;
}

/* [L] manager ids, handed out cyclically from 1 as provider ids are */
static DEFINE_XARRAY_ALLOC1(tracebuf_manager_ids);
u32 tracebuf_next_manager_id = 1;

/* A manager sees the providers of its pid namespace and those below. */
bool tracebuf_manager_sees(struct tracebuf_manager *m,
			   struct tracebuf_provider *p)
{
	return tracebuf_provider_seen_in(p, m->pid_ns);
}

/*
 * Queue a message.  PACKET messages count against the provider's
 * TRACEBUF_OUTBOX_DEPTH (EAGAIN beyond); GONE and TERMINATED do not and
 * never fail.  @node is consumed on success.
 */
int tracebuf_manager_push(struct tracebuf_manager *m,
			  struct tracebuf_provider *p, u16 type,
			  const struct tracebuf_pkt *pkt,
			  struct tracebuf_msg_node *node)
{
	lockdep_assert_held(&tracebuf_lock);

	if (type == TRACEBUF_MSG_PACKET) {
		if (p->out_len == TRACEBUF_OUTBOX_DEPTH)
			return -EAGAIN;
		p->out_len++;
	}
	memset(&node->msg, 0, sizeof(node->msg));
	node->msg.provider_id = p->id;
	node->msg.type = type;
	node->msg.state = p->state;
	if (pkt)
		node->msg.pkt = *pkt;
	tracebuf_provider_get(p);
	node->provider = p;
	list_add_tail(&node->link, &m->inbox);
	WRITE_ONCE(m->inbox_len, m->inbox_len + 1);
	tracebuf_notify_signal(&m->notify);
	return 0;
}

/* Tell the watching managers that can see @p that the registry changed. */
void tracebuf_manager_registry_changed(struct tracebuf_provider *p)
{
	struct tracebuf_manager *m;

	lockdep_assert_held(&tracebuf_lock);

	list_for_each_entry(m, &tracebuf_managers, link) {
		if (!(m->flags & TRACEBUF_ATTACH_F_WATCH) ||
		    !list_empty(&m->registry_node.link) ||
		    !tracebuf_manager_sees(m, p))
			continue;
		list_add_tail(&m->registry_node.link, &m->inbox);
		WRITE_ONCE(m->inbox_len, m->inbox_len + 1);
		tracebuf_notify_signal(&m->notify);
	}
}

/* Is @name in @names? */
bool tracebuf_cats_have(const struct tracebuf_cats *names, const char *name)
{
	u32 off = 0;

	while (off < names->size) {
		const char *n = names->data + off;

		if (!strcmp(n, name))
			return true;
		off += strlen(n) + 1;
	}
	return false;
}

/* Does @m, which sees @p, have a trace running that wants @p's name? */
static bool tracebuf_manager_runs_for(struct tracebuf_manager *m,
				      struct tracebuf_provider *p)
{
	return (m->active || m->tracing) && tracebuf_manager_sees(m, p) &&
	       (!m->tracing_names || tracebuf_cats_have(m->tracing_names, p->name));
}

/* REGISTER's hint: does any manager have a trace running for @p? */
bool tracebuf_trace_running_for(struct tracebuf_provider *p)
{
	struct tracebuf_manager *m;

	lockdep_assert_held(&tracebuf_lock);

	list_for_each_entry(m, &tracebuf_managers, link)
		if (tracebuf_manager_runs_for(m, p))
			return true;
	return false;
}

/*
 * GET_CONFIG's F_WENT_ON: @p goes on without waiting for the START of the
 * traces that run for it now; the STARTED it sends to one of their
 * managers says that what it recorded meanwhile is missing
 * (TRACEBUF_STARTED_LATE), and to any other manager not.  One manager
 * is named, more are counted as any.
 */
void tracebuf_provider_went_on(struct tracebuf_provider *p)
{
	struct tracebuf_manager *m;

	mutex_lock(&tracebuf_lock);
	p->went_on = true;
	p->late_mgr = 0;
	p->late_any = false;
	list_for_each_entry(m, &tracebuf_managers, link) {
		if (!tracebuf_manager_runs_for(m, p))
			continue;
		if (p->late_mgr)
			p->late_any = true;
		else
			p->late_mgr = m->id;
	}
	mutex_unlock(&tracebuf_lock);
}

/* MGR_SET_TRACING; takes over the caller's reference to @names. */
void tracebuf_manager_set_tracing(struct tracebuf_manager *m, bool tracing,
				  struct tracebuf_cats *names)
{
	struct tracebuf_cats *old;

	mutex_lock(&tracebuf_lock);
	m->tracing = tracing;
	old = m->tracing_names;
	m->tracing_names = names;
	mutex_unlock(&tracebuf_lock);
	tracebuf_cats_put(old);
}

/* Remove a message; the provider reference it held is dropped. */
static void tracebuf_manager_consume(struct tracebuf_manager *m,
				     struct tracebuf_msg_node *node)
{
	struct tracebuf_provider *p = node->provider;

	lockdep_assert_held(&tracebuf_lock);

	list_del_init(&node->link);
	WRITE_ONCE(m->inbox_len, m->inbox_len - 1);
	if (!p)			/* the registry node lives in the manager */
		return;
	if (node->msg.type == TRACEBUF_MSG_PACKET) {
		p->out_len--;
		tracebuf_provider_room(p);
	}
	if (node != &p->gone_node)
		kfree(node);
	tracebuf_provider_put(p);
}

struct tracebuf_manager *tracebuf_manager_create(u32 flags)
{
	struct tracebuf_manager *m;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->flags = flags;
	m->pid_ns = get_pid_ns(task_active_pid_ns(current));
	INIT_LIST_HEAD(&m->owned);
	INIT_LIST_HEAD(&m->inbox);
	INIT_LIST_HEAD(&m->registry_node.link);
	m->registry_node.msg.type = TRACEBUF_MSG_REGISTRY;
	tracebuf_notify_init(&m->notify);

	mutex_lock(&tracebuf_lock);
	ret = xa_alloc_cyclic(&tracebuf_manager_ids, &m->id, m, XA_LIMIT(1, U32_MAX),
			      &tracebuf_next_manager_id, GFP_KERNEL_ACCOUNT);
	if (ret >= 0)
		list_add_tail(&m->link, &tracebuf_managers);
	mutex_unlock(&tracebuf_lock);
	if (ret < 0) {
		put_pid_ns(m->pid_ns);
		kfree(m);
		return ERR_PTR(ret);
	}
	return m;
}

/*
 * The manager's file is closed: every provider it owned is told, loses
 * what was queued for it, and is REGISTERED again.
 */
void tracebuf_manager_release(struct tracebuf_manager *m)
{
	static const struct tracebuf_pkt gone = {
		.request = TRACEBUF_PKT_MANAGER_GONE,
	};
	struct tracebuf_provider *p, *tmp;
	struct tracebuf_msg_node *node, *ntmp;

	tracebuf_notify_release(&m->notify);

	mutex_lock(&tracebuf_lock);
	list_del(&m->link);
	xa_erase(&tracebuf_manager_ids, m->id);
	list_for_each_entry_safe(node, ntmp, &m->inbox, link)
		tracebuf_manager_consume(m, node);
	list_for_each_entry_safe(p, tmp, &m->owned, owner_link) {
		/* nobody writes out what is sealed: the provider's again */
		tracebuf_buf_unseal(p->buf, TRACEBUF_ROLLING_ALL);
		tracebuf_provider_detach(p);
		p->in_head = 0;
		WRITE_ONCE(p->in_len, 0);
		p->in_flushes++;
		tracebuf_provider_push(p, &gone);
		tracebuf_provider_put(p);
	}
	mutex_unlock(&tracebuf_lock);

	tracebuf_cats_put(m->tracing_names);
	put_pid_ns(m->pid_ns);
	kfree(m);
}

/* LIST's F_NAMED: does a manager other than @m run a trace naming @p? */
static bool tracebuf_named_elsewhere(struct tracebuf_manager *m,
				     struct tracebuf_provider *p)
{
	struct tracebuf_manager *o;

	lockdep_assert_held(&tracebuf_lock);

	list_for_each_entry(o, &tracebuf_managers, link)
		if (o != m && o->tracing_names && tracebuf_manager_runs_for(o, p))
			return true;
	return false;
}

static void tracebuf_manager_fill_info(struct tracebuf_manager *m,
				       struct tracebuf_provider *p,
				       struct tracebuf_provider_info *info)
{
	lockdep_assert_held(&tracebuf_lock);

	memset(info, 0, sizeof(*info));
	info->id = p->id;
	info->pid = pid_nr_ns(p->pid, m->pid_ns);
	info->state = p->state;
	info->mode = p->mode;
	info->buffer_size = p->buf ? p->buf->size : 0;
	info->manager_id = p->owner ? p->owner->id : 0;
	info->flags = p->owner == m ? TRACEBUF_INFO_F_MINE : 0;
	if (tracebuf_named_elsewhere(m, p))
		info->flags |= TRACEBUF_INFO_F_NAMED;
	info->packets_sent = p->packets_sent;
	info->packets_received = p->packets_received;
	info->saves = p->saves;
	strscpy(info->name, p->name, sizeof(info->name));
}

/*
 * TRACEBUF_IOC_MGR_LIST.  Entries are gathered in batches under the lock
 * and copied out without it; total is counted in the first pass.
 */
int tracebuf_manager_list_providers(struct tracebuf_manager *m,
				    struct tracebuf_list_args *args, void __user *uinfo)
{
	struct tracebuf_provider_info *batch;
	struct tracebuf_provider *p;
	unsigned long id = args->start_id;
	u32 usize = args->info_size;
	u32 n, written = 0, total = 0;
	bool first = true;
	int ret = 0;

	batch = kmalloc_array(TRACEBUF_READ_BATCH, sizeof(*batch), GFP_KERNEL);
	if (!batch)
		return -ENOMEM;

	do {
		n = 0;
		mutex_lock(&tracebuf_lock);
		xa_for_each_start(&tracebuf_providers, id, p, id) {
			if (!tracebuf_manager_sees(m, p))
				continue;
			if (n < TRACEBUF_READ_BATCH &&
			    written + n < args->capacity)
				tracebuf_manager_fill_info(m, p, &batch[n++]);
			else if (!first)
				break;
			if (first)
				total++;
		}
		mutex_unlock(&tracebuf_lock);
		first = false;

		for (u32 i = 0; i < n; i++, written++) {
			void __user *dst = uinfo + (size_t)written * usize;

			if (copy_to_user(dst, &batch[i],
					 min_t(u32, usize, sizeof(batch[i]))) ||
			    (usize > sizeof(batch[i]) &&
			     clear_user(dst + sizeof(batch[i]),
					usize - sizeof(batch[i])))) {
				ret = -EFAULT;
				goto out_free;
			}
		}
		/*
		 * After the last id (U32_MAX, which is ULONG_MAX on a 32-bit
		 * kernel) there is none: id + 1 would start over at 0.
		 */
		if (n && batch[n - 1].id == U32_MAX)
			break;
		if (n)
			id = (unsigned long)batch[n - 1].id + 1;
	} while (n == TRACEBUF_READ_BATCH && written < args->capacity);

	args->count = written;
	args->total = max(total, written);
out_free:
	kfree(batch);
	return ret;
}

/*
 * Find a provider for a manager request: ESRCH unless visible.  Returns
 * it referenced and with its ctl_lock held;
 * tracebuf_manager_unlock_provider() undoes both.  Another manager's
 * request may hold the lock for a while (clearing a large buffer): a
 * fatal signal ends the wait (EINTR).
 */
static struct tracebuf_provider *
tracebuf_manager_lock_provider(struct tracebuf_manager *m, u32 id)
{
	struct tracebuf_provider *p;

	mutex_lock(&tracebuf_lock);
	p = xa_load(&tracebuf_providers, id);
	if (p && tracebuf_manager_sees(m, p))
		tracebuf_provider_get(p);
	else
		p = NULL;
	mutex_unlock(&tracebuf_lock);
	if (!p)
		return ERR_PTR(-ESRCH);

	if (mutex_lock_killable(&p->ctl_lock)) {
		tracebuf_provider_put(p);
		return ERR_PTR(-EINTR);
	}
	return p;
}

static void tracebuf_manager_unlock_provider(struct tracebuf_provider *p)
{
	mutex_unlock(&p->ctl_lock);
	tracebuf_provider_put(p);
}

/*
 * Can manager @m act on @p?  ESRCH once it died, EPERM when another
 * manager owns it.  An unowned provider is left to the state checks.
 */
static int tracebuf_manager_check(struct tracebuf_manager *m,
				  struct tracebuf_provider *p)
{
	lockdep_assert_held(&tracebuf_lock);
	lockdep_assert_held(&p->ctl_lock);

	if (p->dead)
		return -ESRCH;
	if (p->owner && p->owner != m)
		return -EPERM;
	return 0;
}

/*
 * INITIALIZE, into @fd: the caller reserved it and told user space its
 * number before any lock was taken (nothing here touches user memory);
 * it is installed on success only.
 */
int tracebuf_manager_initialize(struct tracebuf_manager *m,
				struct tracebuf_initialize_args *args,
				struct tracebuf_cats *cats, int fd)
{
	struct tracebuf_pkt pkt = {
		.request = TRACEBUF_PKT_INITIALIZE,
		.data16 = args->mode,
		.data64 = args->buffer_size,
	};
	struct tracebuf_provider *p;
	struct tracebuf_user *u;
	struct tracebuf_buf *buf;
	struct file *file;
	bool unlimited;
	int ret;

	p = tracebuf_manager_lock_provider(m, args->provider_id);
	if (IS_ERR(p))
		return PTR_ERR(p);
	/*
	 * A buffer is charged to its provider's user, but a kernel
	 * provider's user is whoever loaded it, unlimited: its buffers go to
	 * the manager's, who could otherwise keep one retired buffer after
	 * another (a handle each) at no one's cost.
	 */
	if (p->kwork) {
		u = tracebuf_user_get_current();
		if (IS_ERR(u)) {
			tracebuf_manager_unlock_provider(p);
			return PTR_ERR(u);
		}
		unlimited = capable(CAP_SYS_RESOURCE);
	} else {
		u = p->user;
		tracebuf_user_get(u);
		unlimited = p->unlimited;
	}

	mutex_lock(&tracebuf_lock);
	if (p->dead)
		ret = -ESRCH;
	else if (p->owner || p->state != TRACEBUF_STATE_REGISTERED)
		ret = -EBUSY;
	else if (p->in_len == TRACEBUF_INBOX_DEPTH)
		ret = -EAGAIN;
	else
		ret = tracebuf_user_charge(u, args->buffer_size, unlimited);
	if (!ret && !tracebuf_mem_reserve(args->buffer_size)) {
		tracebuf_user_uncharge(u, args->buffer_size);
		ret = -ENOMEM;
	}
	mutex_unlock(&tracebuf_lock);
	if (ret)
		goto out_unlock;

	buf = tracebuf_buf_create(args->buffer_size, args->mode, u);
	if (!buf) {
		tracebuf_mem_unreserve(args->buffer_size);
		tracebuf_user_uncharge(u, args->buffer_size);
		ret = -ENOMEM;
		goto out_unlock;
	}
	if (args->flags & TRACEBUF_INIT_F_SEAL_SAVES) {
		ret = tracebuf_buf_set_sealable(buf);
		if (ret)
			goto out_put_buf;
	}
	file = tracebuf_buf_open_handle(buf);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto out_put_buf;
	}

	mutex_lock(&tracebuf_lock);
	if (p->dead) {
		mutex_unlock(&tracebuf_lock);
		ret = -ESRCH;
		goto out_put_file;
	}
	/* Only our ctl_lock holder changes these: the checks above hold. */
	p->generation++;
	pkt.data32 = p->generation;
	tracebuf_provider_push(p, &pkt);
	p->buf = buf;
	p->mode = args->mode;
	p->cats = tracebuf_cats_get(cats);
	p->disposition = 0;
	p->save_pending = false;
	p->snapshot_pending = false;
	p->update_pending = false;
	p->owner = m;
	tracebuf_provider_get(p);
	list_add_tail(&p->owner_link, &m->owned);
	tracebuf_provider_set_state(p, TRACEBUF_STATE_INITIALIZED);
	mutex_unlock(&tracebuf_lock);

	fd_install(fd, file);
	tracebuf_manager_unlock_provider(p);
	tracebuf_user_put(u);
	return 0;

out_put_file:
	fput(file);
out_put_buf:
	tracebuf_buf_put(buf);
out_unlock:
	tracebuf_manager_unlock_provider(p);
	tracebuf_user_put(u);
	return ret;
}

int tracebuf_manager_start(struct tracebuf_manager *m, u32 id,
			   u32 disposition, struct tracebuf_cats *extra)
{
	struct tracebuf_pkt pkt = {
		.request = TRACEBUF_PKT_START,
		.data16 = disposition,
	};
	struct tracebuf_buf *buf = NULL;
	struct tracebuf_provider *p;
	int ret;

	p = tracebuf_manager_lock_provider(m, id);
	if (IS_ERR(p))
		return PTR_ERR(p);

	mutex_lock(&tracebuf_lock);
	ret = tracebuf_manager_check(m, p);
	if (ret)
		goto out_unlock;
	switch (p->state) {
	case TRACEBUF_STATE_INITIALIZED:
	case TRACEBUF_STATE_STOPPED:
		break;
	case TRACEBUF_STATE_STARTING:
	case TRACEBUF_STATE_STARTED:
		ret = -EALREADY;
		goto out_unlock;
	case TRACEBUF_STATE_STOPPING:
		ret = -EBUSY;
		goto out_unlock;
	default:
		ret = -EINVAL;
		goto out_unlock;
	}
	if (p->in_len == TRACEBUF_INBOX_DEPTH) {
		ret = -EAGAIN;
		goto out_unlock;
	}
	/* a save not answered yet is the manager's: not cleared under it */
	if (p->save_pending && disposition != TRACEBUF_START_RETAIN) {
		ret = -EBUSY;
		goto out_unlock;
	}
	buf = p->buf;
	tracebuf_buf_get(buf);
	mutex_unlock(&tracebuf_lock);

	/* Clearing a large buffer takes a while: not under tracebuf_lock. */
	tracebuf_buf_apply_disposition(buf, disposition);

	mutex_lock(&tracebuf_lock);
	if (p->dead) {
		ret = -ESRCH;
		goto out_unlock;
	}
	/* what its STOPPED sealed, before it hears of the START */
	tracebuf_buf_unseal(buf, tracebuf_provider_unsaved(p));
	p->generation++;
	pkt.data32 = p->generation;
	tracebuf_provider_push(p, &pkt);
	tracebuf_cats_put(p->extra_cats);
	p->extra_cats = tracebuf_cats_get(extra);
	p->disposition = disposition;
	/* a provider that never answered a SNAPSHOT may be asked again */
	p->snapshot_pending = false;
	p->update_pending = false;
	tracebuf_provider_set_state(p, TRACEBUF_STATE_STARTING);
out_unlock:
	mutex_unlock(&tracebuf_lock);
	if (buf)
		tracebuf_buf_put(buf);
	tracebuf_manager_unlock_provider(p);
	return ret;
}

/*
 * START with TRACEBUF_START_F_UPDATE: a STARTED provider's additional
 * categories are replaced by @extra, and it is told (CATEGORIES, with a
 * new config generation) while it goes on writing.
 */
int tracebuf_manager_update(struct tracebuf_manager *m, u32 id,
			    struct tracebuf_cats *extra)
{
	struct tracebuf_pkt pkt = { .request = TRACEBUF_PKT_CATEGORIES };
	struct tracebuf_provider *p;
	int ret;

	p = tracebuf_manager_lock_provider(m, id);
	if (IS_ERR(p))
		return PTR_ERR(p);

	mutex_lock(&tracebuf_lock);
	ret = tracebuf_manager_check(m, p);
	if (ret)
		goto out_unlock;
	switch (p->state) {
	case TRACEBUF_STATE_STARTED:
		break;
	case TRACEBUF_STATE_STARTING:
	case TRACEBUF_STATE_STOPPING:
		ret = -EBUSY;
		goto out_unlock;
	default:
		ret = -EINVAL;
		goto out_unlock;
	}
	if (p->update_pending) {
		ret = -EBUSY;
		goto out_unlock;
	}
	pkt.data32 = p->generation + 1;
	ret = tracebuf_provider_push(p, &pkt);
	if (ret)
		goto out_unlock;
	p->generation++;
	tracebuf_cats_put(p->extra_cats);
	p->extra_cats = tracebuf_cats_get(extra);
	p->update_pending = true;
out_unlock:
	mutex_unlock(&tracebuf_lock);
	tracebuf_manager_unlock_provider(p);
	return ret;
}

/* STOP and TERMINATE: push the packet, and change the state as it says. */
static int tracebuf_manager_stop_or_terminate(struct tracebuf_manager *m, u32 id,
					      u16 request)
{
	struct tracebuf_pkt pkt = { .request = request };
	struct tracebuf_provider *p;
	u32 next;
	int ret;

	p = tracebuf_manager_lock_provider(m, id);
	if (IS_ERR(p))
		return PTR_ERR(p);

	mutex_lock(&tracebuf_lock);
	ret = tracebuf_manager_check(m, p);
	if (ret)
		goto out_unlock;
	switch (p->state) {
	case TRACEBUF_STATE_STARTING:
	case TRACEBUF_STATE_STARTED:
		next = request == TRACEBUF_PKT_STOP ? TRACEBUF_STATE_STOPPING :
						      TRACEBUF_STATE_TERMINATING;
		break;
	case TRACEBUF_STATE_INITIALIZED:
	case TRACEBUF_STATE_STOPPING:
	case TRACEBUF_STATE_STOPPED:
		if (request == TRACEBUF_PKT_STOP) {
			ret = -EALREADY;
			goto out_unlock;
		}
		next = TRACEBUF_STATE_TERMINATING;
		break;
	default:	/* REGISTERED, TERMINATING */
		ret = request == TRACEBUF_PKT_STOP ? -EINVAL : -EALREADY;
		goto out_unlock;
	}
	ret = tracebuf_provider_push(p, &pkt);
	if (ret)
		goto out_unlock;
	tracebuf_provider_set_state(p, next);
out_unlock:
	mutex_unlock(&tracebuf_lock);
	tracebuf_manager_unlock_provider(p);
	return ret;
}

int tracebuf_manager_stop(struct tracebuf_manager *m, u32 id)
{
	return tracebuf_manager_stop_or_terminate(m, id, TRACEBUF_PKT_STOP);
}

int tracebuf_manager_terminate(struct tracebuf_manager *m, u32 id)
{
	return tracebuf_manager_stop_or_terminate(m, id, TRACEBUF_PKT_TERMINATE);
}

/*
 * A SNAPSHOT: the provider is to make the records it wrote so far whole
 * and say where they end (SNAPSHOT_TAKEN), while it goes on writing; in
 * streaming mode (ABI 1.10) to end the rolling buffer it writes there and
 * ask for its save.  The kernel provider does not do the latter.
 */
static int tracebuf_manager_snapshot(struct tracebuf_provider *p,
				     const struct tracebuf_pkt *pkt)
{
	int ret;

	lockdep_assert_held(&tracebuf_lock);

	if (p->state != TRACEBUF_STATE_STARTED)
		return -EINVAL;
	if (p->mode == TRACEBUF_MODE_STREAMING && p->kwork)
		return -EOPNOTSUPP;
	if (p->snapshot_pending)
		return -EBUSY;
	ret = tracebuf_provider_push(p, pkt);
	if (!ret)
		p->snapshot_pending = true;
	return ret;
}

/*
 * TRACEBUF_IOC_MGR_SEND: BUFFER_SAVED, echoing the outstanding save, or
 * SNAPSHOT.
 */
int tracebuf_manager_send(struct tracebuf_manager *m, u32 id,
			  const struct tracebuf_pkt *pkt)
{
	struct tracebuf_provider *p;
	int ret;

	if (pkt->data16 ||
	    (pkt->request != TRACEBUF_PKT_BUFFER_SAVED &&
	     (pkt->request != TRACEBUF_PKT_SNAPSHOT || pkt->data32 || pkt->data64)))
		return -EINVAL;

	p = tracebuf_manager_lock_provider(m, id);
	if (IS_ERR(p))
		return PTR_ERR(p);

	mutex_lock(&tracebuf_lock);
	ret = tracebuf_manager_check(m, p);
	if (ret)
		goto out_unlock;
	if (pkt->request == TRACEBUF_PKT_SNAPSHOT) {
		ret = tracebuf_manager_snapshot(p, pkt);
		goto out_unlock;
	}
	if (!p->owner || !p->save_pending ||
	    p->save_wrapped != pkt->data32 ||
	    p->save_durable_end != pkt->data64) {
		ret = -EINVAL;
		goto out_unlock;
	}
	/* refused as it is: still sealed, still the manager's to answer */
	if (p->in_len == TRACEBUF_INBOX_DEPTH) {
		ret = -EAGAIN;
		goto out_unlock;
	}
	/* unsealed before the provider can hear of it */
	tracebuf_buf_unseal(p->buf, tracebuf_provider_saving(p));
	tracebuf_provider_push(p, pkt);
	p->save_pending = false;
	p->saves++;
out_unlock:
	mutex_unlock(&tracebuf_lock);
	tracebuf_manager_unlock_provider(p);
	return ret;
}

/*
 * MGR_GET_CATEGORIES: what a visible provider published, referenced;
 * NULL for an empty list, ERR_PTR(-ESRCH) when it cannot be seen.
 */
struct tracebuf_cats *tracebuf_manager_get_known(struct tracebuf_manager *m,
						 u32 id)
{
	struct tracebuf_provider *p;
	struct tracebuf_cats *known;

	mutex_lock(&tracebuf_lock);
	p = xa_load(&tracebuf_providers, id);
	if (p && tracebuf_manager_sees(m, p))
		known = tracebuf_cats_get(p->known);
	else
		known = ERR_PTR(-ESRCH);
	mutex_unlock(&tracebuf_lock);
	return known;
}

/* Copy up to @max messages from the head of the inbox; consumes nothing. */
unsigned int tracebuf_manager_peek(struct tracebuf_manager *m, void *out,
				   unsigned int max, u32 *cookie)
{
	struct tracebuf_mgr_msg *msgs = out;
	struct tracebuf_msg_node *node;
	unsigned int n = 0;

	lockdep_assert_held(&tracebuf_lock);

	list_for_each_entry(node, &m->inbox, link) {
		if (n == max)
			break;
		msgs[n++] = node->msg;
	}
	*cookie = 0;
	return n;
}

/* Only readers consume, one at a time: the head is what was peeked. */
void tracebuf_manager_consume_head(struct tracebuf_manager *m, unsigned int n,
				   u32 cookie)
{
	lockdep_assert_held(&tracebuf_lock);

	while (n--)
		tracebuf_manager_consume(m, list_first_entry(&m->inbox,
							     struct tracebuf_msg_node,
							     link));
}
