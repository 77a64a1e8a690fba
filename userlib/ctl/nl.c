// SPDX-License-Identifier: MIT
/*
 * tracebufctl: the generic netlink transport (see nl.h), over the netlink
 * helper of nlmsg.c.
 *
 * Requests go out with NETLINK_EXT_ACK and NETLINK_CAP_ACK set
 * (tbctl_nlsock_open()), so an error comes back as an NLMSG_ERROR without
 * our request in it and with the kernel's message as NLMSGERR_ATTR_MSG,
 * which tbctl_nl_extack() then has.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "nl.h"
#include "nlmsg.h"

/*
 * Receive buffer: the kernel sizes dump skbs after the largest read so
 * far, up to 32 KiB; a smaller buffer would see them truncated.
 */
#define TBCTL_NL_BUFSIZE	32768
#define TBCTL_NL_RCVBUF		(1 << 20)	/* for bursts of events */

struct tbctl_nl {
	struct tbctl_nlsock sk;
	struct tbctl_genl_family family;	/* .group: the "events" group */
	char extack[256];
	char buf[TBCTL_NL_BUFSIZE] __attribute__((aligned(8)));
};

/* ------------------------------------------------------------------------ */
/* Parsers                                                                  */

/* The attribute types we read, by the uapi; the rest are skipped. */
static const uint8_t provider_policy[TRACEBUF_A_MAX + 1] = {
	[TRACEBUF_A_ID] = TBCTL_NLA_U32,
	[TRACEBUF_A_PID] = TBCTL_NLA_U32,
	[TRACEBUF_A_STATE] = TBCTL_NLA_U32,
	[TRACEBUF_A_MANAGER_ID] = TBCTL_NLA_U32,
	[TRACEBUF_A_MODE] = TBCTL_NLA_U32,
	[TRACEBUF_A_NAME] = TBCTL_NLA_STRING,
	[TRACEBUF_A_BUFFER_SIZE] = TBCTL_NLA_U64,
	[TRACEBUF_A_PACKETS_SENT] = TBCTL_NLA_U64,
	[TRACEBUF_A_PACKETS_RECEIVED] = TBCTL_NLA_U64,
	[TRACEBUF_A_SAVES] = TBCTL_NLA_U64,
	[TRACEBUF_A_RECORDS_DROPPED] = TBCTL_NLA_U64,
	/* TRACEBUF_A_PAD, and what a newer module adds: skipped */
};

int tbctl_nl_parse_provider(const struct nlmsghdr *nlh, uint8_t *cmd,
			    struct tbctl_provider *p)
{
	const struct nlattr *tb[TRACEBUF_A_MAX + 1];
	const struct genlmsghdr *g;

	if (tbctl_nlmsg_data_len(nlh) < sizeof(*g))
		return -EINVAL;
	g = tbctl_nlmsg_data(nlh);
	if (tbctl_nla_parse_msg(tb, TRACEBUF_A_MAX, provider_policy, nlh, sizeof(*g)))
		return -EINVAL;
	if (!tb[TRACEBUF_A_ID])
		return -EINVAL;

	memset(p, 0, sizeof(*p));
	*cmd = g->cmd;
	p->id = tbctl_nla_get_u32(tb[TRACEBUF_A_ID]);
	if (tb[TRACEBUF_A_PID])
		p->pid = tbctl_nla_get_u32(tb[TRACEBUF_A_PID]);
	if (tb[TRACEBUF_A_STATE])
		p->state = tbctl_nla_get_u32(tb[TRACEBUF_A_STATE]);
	if (tb[TRACEBUF_A_MANAGER_ID])
		p->manager_id = tbctl_nla_get_u32(tb[TRACEBUF_A_MANAGER_ID]);
	if (tb[TRACEBUF_A_MODE])
		p->mode = tbctl_nla_get_u32(tb[TRACEBUF_A_MODE]);
	if (tb[TRACEBUF_A_BUFFER_SIZE])
		p->buffer_size = tbctl_nla_get_u64(tb[TRACEBUF_A_BUFFER_SIZE]);
	if (tb[TRACEBUF_A_PACKETS_SENT])
		p->packets_sent = tbctl_nla_get_u64(tb[TRACEBUF_A_PACKETS_SENT]);
	if (tb[TRACEBUF_A_PACKETS_RECEIVED])
		p->packets_received = tbctl_nla_get_u64(tb[TRACEBUF_A_PACKETS_RECEIVED]);
	if (tb[TRACEBUF_A_SAVES])
		p->saves = tbctl_nla_get_u64(tb[TRACEBUF_A_SAVES]);
	p->has_counters = tb[TRACEBUF_A_PACKETS_SENT] || tb[TRACEBUF_A_PACKETS_RECEIVED] ||
			  tb[TRACEBUF_A_SAVES];
	if (tb[TRACEBUF_A_RECORDS_DROPPED]) {
		p->records_dropped = tbctl_nla_get_u64(tb[TRACEBUF_A_RECORDS_DROPPED]);
		p->has_dropped = true;
	}
	if (tb[TRACEBUF_A_NAME])
		snprintf(p->name, sizeof(p->name), "%s", tbctl_nla_get_str(tb[TRACEBUF_A_NAME]));
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The socket                                                               */

/* Send the request at nlh and read its replies into r; r->err. */
static int nl_transact(struct tbctl_nl *nl, struct nlmsghdr *nlh, struct tbctl_nlmsg_reply *r)
{
	int ret;

	nl->extack[0] = '\0';
	ret = tbctl_nlsock_transact(&nl->sk, nlh, nl->buf, sizeof(nl->buf), r);
	if (r->done)
		memcpy(nl->extack, r->extack, sizeof(nl->extack));
	return ret;
}

int tbctl_nl_open(struct tbctl_nl **out)
{
	struct tbctl_nl *nl;
	int rcvbuf = TBCTL_NL_RCVBUF, ret;

	*out = NULL;
	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	ret = tbctl_nlsock_open(&nl->sk, NETLINK_GENERIC);
	if (ret)
		goto out_free;
	setsockopt(nl->sk.fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	ret = tbctl_genl_resolve(&nl->sk, TRACEBUF_GENL_NAME, TRACEBUF_GENL_MCGRP_EVENTS,
				 nl->buf, sizeof(nl->buf), &nl->family, nl->extack,
				 sizeof(nl->extack));
	if (ret)
		goto out_close;
	*out = nl;
	return 0;

out_close:
	tbctl_nlsock_close(&nl->sk);
out_free:
	free(nl);
	return ret;
}

void tbctl_nl_close(struct tbctl_nl *nl)
{
	if (!nl)
		return;
	tbctl_nlsock_close(&nl->sk);
	free(nl);
}

const char *tbctl_nl_extack(const struct tbctl_nl *nl)
{
	return nl ? nl->extack : "";
}

int tbctl_nl_fd(const struct tbctl_nl *nl)
{
	return nl->sk.fd;
}

/* ------------------------------------------------------------------------ */
/* Commands                                                                 */

/* The genetlink command of a message of the family, -1 if it has none. */
static int genl_cmd(const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *g = tbctl_nlmsg_data(nlh);

	return tbctl_nlmsg_data_len(nlh) < sizeof(*g) ? -1 : g->cmd;
}

struct providers {
	struct tbctl_provider *p;
	size_t n, cap;
};

static int providers_msg(const struct nlmsghdr *nlh, void *arg)
{
	struct providers *v = arg;
	uint8_t cmd;
	int ret;

	if (genl_cmd(nlh) != TRACEBUF_CMD_PROVIDER_GET)
		return 0;	/* not a reply of ours: nothing to parse */
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 64;
		struct tbctl_provider *np = realloc(v->p, cap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		v->p = np;
		v->cap = cap;
	}
	ret = tbctl_nl_parse_provider(nlh, &cmd, &v->p[v->n]);
	if (ret)
		return ret;
	v->n++;
	return 0;
}

int tbctl_nl_provider_get(struct tbctl_nl *nl, uint32_t id, struct tbctl_provider *out)
{
	struct providers v = { 0 };
	struct tbctl_nlmsg_reply r = { .type = nl->family.id, .msg = providers_msg, .arg = &v };
	char req[256] __attribute__((aligned(4)));
	struct nlmsghdr *nlh;
	int ret;

	nlh = tbctl_genlmsg_put(req, sizeof(req), nl->family.id, NLM_F_REQUEST | NLM_F_ACK,
				TRACEBUF_CMD_PROVIDER_GET, TRACEBUF_GENL_VERSION);
	if (!nlh || tbctl_nla_put_u32(nlh, sizeof(req), TRACEBUF_A_ID, id))
		return -EMSGSIZE;
	ret = nl_transact(nl, nlh, &r);
	if (!ret && v.n != 1)
		ret = -EPROTO;
	if (!ret)
		*out = v.p[0];
	free(v.p);
	return ret;
}

int tbctl_nl_provider_dump(struct tbctl_nl *nl, struct tbctl_provider **out)
{
	struct providers v = { 0 };
	struct tbctl_nlmsg_reply r = { .type = nl->family.id, .msg = providers_msg, .arg = &v };
	char req[256] __attribute__((aligned(4)));
	struct nlmsghdr *nlh;
	int ret;

	*out = NULL;
	nlh = tbctl_genlmsg_put(req, sizeof(req), nl->family.id, NLM_F_REQUEST | NLM_F_DUMP,
				TRACEBUF_CMD_PROVIDER_GET, TRACEBUF_GENL_VERSION);
	if (!nlh)
		return -EMSGSIZE;
	ret = nl_transact(nl, nlh, &r);
	if (!ret && v.n > INT32_MAX)
		ret = -EOVERFLOW;
	if (ret) {
		free(v.p);
		return ret;
	}
	if (!v.n) {
		free(v.p);
		return 0;
	}
	*out = v.p;
	return (int)v.n;
}

int tbctl_nl_events_join(struct tbctl_nl *nl)
{
	nl->extack[0] = '\0';
	if (!nl->family.group)
		return -EOPNOTSUPP;
	return tbctl_nlsock_join(&nl->sk, nl->family.group);
}

int tbctl_nl_events_read(struct tbctl_nl *nl, tbctl_nl_event_cb cb, void *arg)
{
	const struct nlmsghdr *nlh;
	struct tbctl_provider p;
	uint8_t cmd;
	ssize_t n;
	size_t len;
	int ret;

	n = tbctl_nlsock_recv(&nl->sk, nl->buf, sizeof(nl->buf));
	if (n < 0)
		return (int)n;
	len = (size_t)n;
	tbctl_nlmsg_for_each(nlh, nl->buf, len) {
		if (nlh->nlmsg_type != nl->family.id)
			continue;
		switch (genl_cmd(nlh)) {
		case TRACEBUF_CMD_PROVIDER_NEW:
		case TRACEBUF_CMD_PROVIDER_CHANGE:
		case TRACEBUF_CMD_PROVIDER_DEL:
			break;
		default:
			continue;	/* a newer module's, whatever it holds */
		}
		ret = tbctl_nl_parse_provider(nlh, &cmd, &p);
		if (ret)
			return ret;
		ret = cb(cmd, &p, arg);
		if (ret)
			return ret;
	}
	return len ? -EBADMSG : 0;
}
