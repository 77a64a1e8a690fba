// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf: the registry over generic netlink (uapi/linux/tracebuf.h,
 * "Generic netlink").  Read-only: a GET of one provider, a dump of all,
 * and the "events" multicast group.  Every message is built under
 * tracebuf_lock from the provider's [L] fields.
 */
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/xarray.h>
#include <net/genetlink.h>

#include "tracebuf_priv.h"

static struct genl_family tracebuf_genl_family;

static const struct nla_policy tracebuf_genl_get_policy[TRACEBUF_A_ID + 1] = {
	[TRACEBUF_A_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* Who may read the registry: whoever may attach as a manager. */
#define TRACEBUF_GENL_EPERM_MSG \
	"needs CAP_PERFMON or CAP_SYS_ADMIN, or the manager_gid group"

/*
 * Whether a provider's header may say it dropped @dropped records: a drop
 * is an atomic add to one counter, so no more than one a nanosecond on
 * each CPU since its buffer was made (and a second more).  A header that
 * claims more lies, and its count is not reported.
 */
static bool tracebuf_genl_dropped_credible(const struct tracebuf_buf *buf, u64 dropped)
{
	u64 ns = ktime_get_ns() - buf->created_ns + NSEC_PER_SEC;

	return div_u64(dropped, num_possible_cpus()) <= ns;
}

/* One provider, as seen from @ns (its pid there). */
static int tracebuf_genl_fill(struct sk_buff *skb, struct tracebuf_provider *p,
			      struct pid_namespace *ns, u8 cmd, u32 portid,
			      u32 seq, int flags)
{
	u64 dropped;
	void *hdr;

	lockdep_assert_held(&tracebuf_lock);

	hdr = genlmsg_put(skb, portid, seq, &tracebuf_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, TRACEBUF_A_ID, p->id) ||
	    nla_put_u32(skb, TRACEBUF_A_PID, pid_nr_ns(p->pid, ns)) ||
	    nla_put_string(skb, TRACEBUF_A_NAME, p->name) ||
	    nla_put_u32(skb, TRACEBUF_A_STATE, p->state) ||
	    nla_put_u32(skb, TRACEBUF_A_MANAGER_ID, p->owner ? p->owner->id : 0) ||
	    nla_put_u64_64bit(skb, TRACEBUF_A_PACKETS_SENT, p->packets_sent,
			      TRACEBUF_A_PAD) ||
	    nla_put_u64_64bit(skb, TRACEBUF_A_PACKETS_RECEIVED,
			      p->packets_received, TRACEBUF_A_PAD) ||
	    nla_put_u64_64bit(skb, TRACEBUF_A_SAVES, p->saves, TRACEBUF_A_PAD))
		goto out_cancel;
	if (p->buf) {
		dropped = tracebuf_buf_records_dropped(p->buf);
		if (nla_put_u32(skb, TRACEBUF_A_MODE, p->mode) ||
		    nla_put_u64_64bit(skb, TRACEBUF_A_BUFFER_SIZE, p->buf->size,
				      TRACEBUF_A_PAD) ||
		    (tracebuf_genl_dropped_credible(p->buf, dropped) &&
		     nla_put_u64_64bit(skb, TRACEBUF_A_RECORDS_DROPPED, dropped,
				       TRACEBUF_A_PAD)))
			goto out_cancel;
	}
	genlmsg_end(skb, hdr);
	return 0;

out_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int tracebuf_genl_get(struct sk_buff *skb, struct genl_info *info)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct tracebuf_provider *p;
	struct sk_buff *msg;
	int ret;

	if (!tracebuf_may_manage_skb(skb)) {
		GENL_SET_ERR_MSG(info, TRACEBUF_GENL_EPERM_MSG);
		return -EPERM;
	}
	if (GENL_REQ_ATTR_CHECK(info, TRACEBUF_A_ID))
		return -EINVAL;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&tracebuf_lock);
	p = xa_load(&tracebuf_providers, nla_get_u32(info->attrs[TRACEBUF_A_ID]));
	if (!p || !tracebuf_provider_seen_in(p, ns)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[TRACEBUF_A_ID],
				    "no such provider");
		ret = -ENOENT;
	} else {
		ret = tracebuf_genl_fill(msg, p, ns, TRACEBUF_CMD_PROVIDER_GET,
					 info->snd_portid, info->snd_seq, 0);
	}
	mutex_unlock(&tracebuf_lock);

	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/*
 * A dump may be read in parts by different tasks (the socket is shared):
 * the view, pid namespace and permission, is the one of the request.
 */
static int tracebuf_genl_dump_start(struct netlink_callback *cb)
{
	if (!tracebuf_may_manage_skb(cb->skb)) {
		NL_SET_ERR_MSG(cb->extack, TRACEBUF_GENL_EPERM_MSG);
		return -EPERM;
	}
	cb->args[0] = 1;	/* the next id to look at */
	cb->args[1] = (long)get_pid_ns(task_active_pid_ns(current));
	cb->args[2] = 0;	/* 1: the dump is done */
	return 0;
}

static int tracebuf_genl_dump_done(struct netlink_callback *cb)
{
	put_pid_ns((struct pid_namespace *)cb->args[1]);
	return 0;
}

static int tracebuf_genl_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct pid_namespace *ns = (struct pid_namespace *)cb->args[1];
	unsigned long id = cb->args[0];
	struct tracebuf_provider *p;
	int ret = 0;

	if (cb->args[2])
		return 0;
	mutex_lock(&tracebuf_lock);
	for (p = xa_find(&tracebuf_providers, &id, ULONG_MAX, XA_PRESENT); p;
	     p = xa_find_after(&tracebuf_providers, &id, ULONG_MAX, XA_PRESENT)) {
		if (!tracebuf_provider_seen_in(p, ns))
			continue;
		ret = tracebuf_genl_fill(skb, p, ns, TRACEBUF_CMD_PROVIDER_GET,
					 NETLINK_CB(cb->skb).portid,
					 cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (ret)
			break;
	}
	mutex_unlock(&tracebuf_lock);

	/*
	 * full: this one goes first in the next skb; done: nothing left
	 * (not told by the id: ULONG_MAX is an id on a 32-bit kernel)
	 */
	cb->args[0] = id;
	cb->args[2] = !p;
	if (ret && !skb->len)
		return ret;	/* not even one fits: cannot happen */
	return skb->len;
}

static const struct genl_ops tracebuf_genl_ops[] = {
	{
		.cmd = TRACEBUF_CMD_PROVIDER_GET,
		.doit = tracebuf_genl_get,
		.start = tracebuf_genl_dump_start,
		.dumpit = tracebuf_genl_dump,
		.done = tracebuf_genl_dump_done,
		.policy = tracebuf_genl_get_policy,
		.maxattr = TRACEBUF_A_ID,
	},
};

enum { TRACEBUF_GENL_EVENTS };

static const struct genl_multicast_group tracebuf_genl_mcgrps[] = {
	/* pids of every namespace: for the initial one's administrator */
	[TRACEBUF_GENL_EVENTS] = { .name = TRACEBUF_GENL_MCGRP_EVENTS,
				   .flags = GENL_MCAST_CAP_SYS_ADMIN },
};

static struct genl_family tracebuf_genl_family __ro_after_init = {
	.name = TRACEBUF_GENL_NAME,
	.version = TRACEBUF_GENL_VERSION,
	.module = THIS_MODULE,
	.ops = tracebuf_genl_ops,
	.n_ops = ARRAY_SIZE(tracebuf_genl_ops),
	.mcgrps = tracebuf_genl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(tracebuf_genl_mcgrps),
};

/* A PROVIDER_NEW, _CHANGE or _DEL event, if anyone listens. */
void tracebuf_genl_notify(struct tracebuf_provider *p, u8 cmd)
{
	struct sk_buff *msg;

	lockdep_assert_held(&tracebuf_lock);

	if (!genl_has_listeners(&tracebuf_genl_family, &init_net,
				TRACEBUF_GENL_EVENTS))
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	if (tracebuf_genl_fill(msg, p, &init_pid_ns, cmd, 0, 0, 0)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_multicast(&tracebuf_genl_family, msg, 0, TRACEBUF_GENL_EVENTS,
			  GFP_KERNEL);
}

int __init tracebuf_genl_init(void)
{
	return genl_register_family(&tracebuf_genl_family);
}

void tracebuf_genl_exit(void)
{
	genl_unregister_family(&tracebuf_genl_family);
}
