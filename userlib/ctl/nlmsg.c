// SPDX-License-Identifier: MIT
/*
 * tracebufctl: the netlink helper (see nlmsg.h).
 *
 * What comes in is checked before it is read: a message's length against
 * what is left of its datagram, an attribute's against what is left of
 * its message or nest, an error's echoed request against the error
 * message.  Lengths are size_t and every subtraction is guarded, so the
 * same holds for a 32-bit build.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>

#include "nlmsg.h"

#define ALIGN4(x)	(((x) + 3) & ~(size_t)3)

/* ------------------------------------------------------------------------ */
/* Building                                                                 */

struct nlmsghdr *tbctl_nlmsg_put_header(void *buf, size_t size, uint16_t type,
					uint16_t flags)
{
	struct nlmsghdr *nlh = buf;

	if (size < NLMSG_HDRLEN)
		return NULL;
	memset(nlh, 0, NLMSG_HDRLEN);
	nlh->nlmsg_len = NLMSG_HDRLEN;
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	return nlh;
}

/* The end of the message at nlh, if len more bytes (padded) fit in size. */
static void *nlmsg_tail(struct nlmsghdr *nlh, size_t size, size_t len)
{
	size_t used = ALIGN4((size_t)nlh->nlmsg_len);

	if (used > size || len > size - used || ALIGN4(len) > size - used)
		return NULL;
	return (char *)nlh + used;
}

static void nlmsg_grow(struct nlmsghdr *nlh, size_t len)
{
	nlh->nlmsg_len = (uint32_t)(ALIGN4((size_t)nlh->nlmsg_len) + ALIGN4(len));
}

void *tbctl_nlmsg_put_extra(struct nlmsghdr *nlh, size_t size, size_t len)
{
	char *p = nlmsg_tail(nlh, size, len);

	if (!p)
		return NULL;
	memset(p, 0, ALIGN4(len));
	nlmsg_grow(nlh, len);
	return p;
}

struct nlmsghdr *tbctl_genlmsg_put(void *buf, size_t size, uint16_t family, uint16_t flags,
				   uint8_t cmd, uint8_t version)
{
	struct nlmsghdr *nlh = tbctl_nlmsg_put_header(buf, size, family, flags);
	struct genlmsghdr *g;

	if (!nlh)
		return NULL;
	g = tbctl_nlmsg_put_extra(nlh, size, sizeof(*g));
	if (!g)
		return NULL;
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

int tbctl_nla_put(struct nlmsghdr *nlh, size_t size, uint16_t type, size_t len,
		  const void *data)
{
	struct nlattr *a;

	if (len > (size_t)(UINT16_MAX - NLA_HDRLEN))
		return -EMSGSIZE;
	a = nlmsg_tail(nlh, size, NLA_HDRLEN + len);
	if (!a)
		return -EMSGSIZE;
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	memset((char *)a + NLA_HDRLEN + len, 0, ALIGN4(len) - len);
	nlmsg_grow(nlh, NLA_HDRLEN + len);
	return 0;
}

struct nlattr *tbctl_nla_nest_start(struct nlmsghdr *nlh, size_t size, uint16_t type)
{
	struct nlattr *nest = nlmsg_tail(nlh, size, NLA_HDRLEN);

	if (!nest)
		return NULL;
	nest->nla_type = NLA_F_NESTED | type;
	nest->nla_len = NLA_HDRLEN;
	nlmsg_grow(nlh, NLA_HDRLEN);
	return nest;
}

int tbctl_nla_nest_end(struct nlmsghdr *nlh, struct nlattr *nest)
{
	size_t len = (size_t)((char *)nlh + nlh->nlmsg_len - (char *)nest);

	if (len > UINT16_MAX)
		return -EMSGSIZE;
	nest->nla_len = (uint16_t)len;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Attributes                                                               */

int tbctl_nla_validate(const struct nlattr *a, enum tbctl_nla_kind kind)
{
	size_t len = tbctl_nla_data_len(a);
	const char *d = tbctl_nla_data(a);

	switch (kind) {
	case TBCTL_NLA_U16:
		return len == sizeof(uint16_t) ? 0 : -EINVAL;
	case TBCTL_NLA_U32:
		return len == sizeof(uint32_t) ? 0 : -EINVAL;
	case TBCTL_NLA_U64:
		return len == sizeof(uint64_t) ? 0 : -EINVAL;
	case TBCTL_NLA_STRING:
		return len && !d[len - 1] ? 0 : -EINVAL;
	case TBCTL_NLA_NESTED:
		return !len || len >= NLA_HDRLEN ? 0 : -EINVAL;
	default:
		return 0;
	}
}

int tbctl_nla_parse(const struct nlattr **tb, unsigned int max, const uint8_t *policy,
		    const void *data, size_t len)
{
	const struct nlattr *a;

	memset(tb, 0, (max + 1) * sizeof(*tb));
	tbctl_nla_for_each(a, data, len) {
		uint16_t type = tbctl_nla_type(a);

		if (type > max || policy[type] == TBCTL_NLA_SKIP)
			continue;
		if (tbctl_nla_validate(a, policy[type]))
			return -EINVAL;
		tb[type] = a;
	}
	return len ? -EINVAL : 0;
}

int tbctl_nla_parse_msg(const struct nlattr **tb, unsigned int max, const uint8_t *policy,
			const struct nlmsghdr *nlh, size_t offset)
{
	size_t len = tbctl_nlmsg_data_len(nlh);

	if (offset > len) {
		memset(tb, 0, (max + 1) * sizeof(*tb));
		return -EINVAL;
	}
	/* padding to 4 may end the message: then it has no attributes */
	offset = ALIGN4(offset) > len ? len : ALIGN4(offset);
	return tbctl_nla_parse(tb, max, policy, (const char *)tbctl_nlmsg_data(nlh) + offset,
			       len - offset);
}

int tbctl_nla_parse_nested(const struct nlattr **tb, unsigned int max,
			   const uint8_t *policy, const struct nlattr *nest)
{
	return tbctl_nla_parse(tb, max, policy, tbctl_nla_data(nest), tbctl_nla_data_len(nest));
}

/* ------------------------------------------------------------------------ */
/* Replies                                                                  */

int tbctl_nlmsg_check(const struct nlmsghdr *nlh, uint32_t seq, uint32_t portid)
{
	if (nlh->nlmsg_pid && portid && nlh->nlmsg_pid != portid)
		return -ESRCH;
	if (nlh->nlmsg_seq && seq && nlh->nlmsg_seq != seq)
		return -EPROTO;
	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		return -EINTR;
	return 0;
}

int tbctl_nlmsg_parse_error(const struct nlmsghdr *nlh, char *msg, size_t len)
{
	size_t plen = tbctl_nlmsg_data_len(nlh), off, echo;
	const char *data = tbctl_nlmsg_data(nlh);
	const struct nlattr *a, *text = NULL;
	struct nlmsgerr e;
	int err;

	if (len)
		msg[0] = '\0';
	if (nlh->nlmsg_type == NLMSG_DONE) {
		/* a dump's end: its status, then maybe the same TLVs */
		if (plen < sizeof(err))
			return 0;
		memcpy(&err, data, sizeof(err));
		off = sizeof(err);
	} else {
		if (plen < sizeof(e))
			return -EBADMSG;
		memcpy(&e, data, sizeof(e));
		err = e.error;
		off = sizeof(e);
		/* without NETLINK_CAP_ACK our request is echoed first */
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED) && e.msg.nlmsg_len > sizeof(e.msg)) {
			echo = e.msg.nlmsg_len - sizeof(e.msg);
			off = echo > plen - off ? plen : off + echo;
		}
	}
	if (err > 0)
		err = -err;
	off = ALIGN4(off);
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || off >= plen || !len)
		return err;
	/* a malformed message is no reason to lose the error itself */
	plen -= off;
	tbctl_nla_for_each(a, data + off, plen) {
		if (tbctl_nla_type(a) == NLMSGERR_ATTR_MSG &&
		    !tbctl_nla_validate(a, TBCTL_NLA_STRING))
			text = a;
	}
	if (text)
		snprintf(msg, len, "%s", tbctl_nla_get_str(text));
	return err;
}

/* NLMSG_ERROR (an ack when 0) and NLMSG_DONE: the last message. */
static void reply_end(struct tbctl_nlmsg_reply *r, const struct nlmsghdr *nlh)
{
	char msg[sizeof(r->extack)];
	int err = tbctl_nlmsg_parse_error(nlh, msg, sizeof(msg));

	if (err && !r->err) {
		r->err = err;
		memcpy(r->extack, msg, sizeof(msg));
	}
	r->done = true;
}

int tbctl_nlmsg_reply_run(struct tbctl_nlmsg_reply *r, const void *buf, size_t len,
			  uint32_t seq, uint32_t portid)
{
	const struct nlmsghdr *nlh;
	int ret;

	tbctl_nlmsg_for_each(nlh, buf, len) {
		ret = tbctl_nlmsg_check(nlh, seq, portid);
		if (ret)
			return ret;
		if (nlh->nlmsg_type == NLMSG_ERROR || nlh->nlmsg_type == NLMSG_DONE) {
			reply_end(r, nlh);
			return 1;
		}
		/* after an error, the rest is read and dropped, to keep in step */
		if (nlh->nlmsg_type < NLMSG_MIN_TYPE || nlh->nlmsg_type != r->type ||
		    !r->msg || r->err)
			continue;
		ret = r->msg(nlh, r->arg);
		if (ret)
			r->err = ret;
	}
	return len ? -EBADMSG : r->done;
}

/* ------------------------------------------------------------------------ */
/* The socket                                                               */

int tbctl_nlsock_open(struct tbctl_nlsock *sk, int protocol)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK };
	socklen_t alen = sizeof(addr);
	int one = 1, ret;

	sk->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol);
	if (sk->fd < 0)
		return -errno;
	/* nl_pid 0: the kernel picks our port id */
	if (bind(sk->fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(sk->fd, (struct sockaddr *)&addr, &alen)) {
		ret = -errno;
		goto out_close;
	}
	if (alen != sizeof(addr) || addr.nl_family != AF_NETLINK) {
		ret = -EINVAL;
		goto out_close;
	}
	sk->portid = addr.nl_pid;
	sk->seq = (uint32_t)time(NULL);
	/* kernels before 4.12 (EXT_ACK) and 4.3 (CAP_ACK): plain errors */
	setsockopt(sk->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(sk->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	return 0;

out_close:
	close(sk->fd);
	sk->fd = -1;
	return ret;
}

void tbctl_nlsock_close(struct tbctl_nlsock *sk)
{
	if (sk->fd >= 0)
		close(sk->fd);
	sk->fd = -1;
}

int tbctl_nlsock_send(struct tbctl_nlsock *sk, struct nlmsghdr *nlh)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t n;

	/* 0 would match any reply */
	if (!++sk->seq)
		sk->seq = 1;
	nlh->nlmsg_seq = sk->seq;
	n = sendto(sk->fd, nlh, nlh->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel));
	if (n < 0)
		return -errno;
	return (size_t)n == nlh->nlmsg_len ? 0 : -EIO;
}

ssize_t tbctl_nlsock_recv(struct tbctl_nlsock *sk, void *buf, size_t size)
{
	struct sockaddr_nl addr;
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr msg = {
		.msg_name = &addr, .msg_namelen = sizeof(addr),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	ssize_t n = recvmsg(sk->fd, &msg, 0);

	if (n < 0)
		return -errno;
	if (msg.msg_flags & MSG_TRUNC)
		return -ENOSPC;
	if (msg.msg_namelen != sizeof(addr))
		return -EINVAL;
	/* another process may write to our port id: not the kernel's word */
	if (addr.nl_pid)
		return 0;
	return n;
}

int tbctl_nlsock_transact(struct tbctl_nlsock *sk, struct nlmsghdr *nlh, void *buf,
			  size_t size, struct tbctl_nlmsg_reply *r)
{
	ssize_t n;
	int ret;

	ret = tbctl_nlsock_send(sk, nlh);
	if (ret)
		return ret;
	do {
		n = tbctl_nlsock_recv(sk, buf, size);
		if (n == -EINTR)
			continue;
		if (n < 0)
			return (int)n;
		ret = tbctl_nlmsg_reply_run(r, buf, (size_t)n, sk->seq, sk->portid);
		if (ret < 0)
			return ret;
	} while (!r->done);
	return r->err;
}

int tbctl_nlsock_join(struct tbctl_nlsock *sk, uint32_t group)
{
	if (setsockopt(sk->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)))
		return -errno;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Generic netlink families                                                 */

static const uint8_t family_policy[CTRL_ATTR_MAX + 1] = {
	[CTRL_ATTR_FAMILY_ID] = TBCTL_NLA_U16,
	[CTRL_ATTR_VERSION] = TBCTL_NLA_U32,
	[CTRL_ATTR_MCAST_GROUPS] = TBCTL_NLA_NESTED,
};

static const uint8_t group_policy[CTRL_ATTR_MCAST_GRP_MAX + 1] = {
	[CTRL_ATTR_MCAST_GRP_NAME] = TBCTL_NLA_STRING,
	[CTRL_ATTR_MCAST_GRP_ID] = TBCTL_NLA_U32,
};

int tbctl_genl_parse_family(const struct nlmsghdr *nlh, const char *group,
			    struct tbctl_genl_family *f)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1], *grp;
	size_t len;

	memset(f, 0, sizeof(*f));
	if (tbctl_nla_parse_msg(tb, CTRL_ATTR_MAX, family_policy, nlh, GENL_HDRLEN) ||
	    !tb[CTRL_ATTR_FAMILY_ID])
		return -EINVAL;
	f->id = tbctl_nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (tb[CTRL_ATTR_VERSION])
		f->version = tbctl_nla_get_u32(tb[CTRL_ATTR_VERSION]);
	if (!group || !tb[CTRL_ATTR_MCAST_GROUPS])
		return 0;
	/* one nest per group: its name and id */
	len = tbctl_nla_data_len(tb[CTRL_ATTR_MCAST_GROUPS]);
	tbctl_nla_for_each(grp, tbctl_nla_data(tb[CTRL_ATTR_MCAST_GROUPS]), len) {
		const struct nlattr *g[CTRL_ATTR_MCAST_GRP_MAX + 1];

		if (tbctl_nla_parse_nested(g, CTRL_ATTR_MCAST_GRP_MAX, group_policy, grp))
			return -EINVAL;
		if (g[CTRL_ATTR_MCAST_GRP_NAME] && g[CTRL_ATTR_MCAST_GRP_ID] &&
		    !strcmp(tbctl_nla_get_str(g[CTRL_ATTR_MCAST_GRP_NAME]), group))
			f->group = tbctl_nla_get_u32(g[CTRL_ATTR_MCAST_GRP_ID]);
	}
	return len ? -EINVAL : 0;
}

struct family_query {
	const char *group;
	struct tbctl_genl_family *f;
};

static int family_msg(const struct nlmsghdr *nlh, void *arg)
{
	struct family_query *q = arg;

	return tbctl_genl_parse_family(nlh, q->group, q->f);
}

int tbctl_genl_resolve(struct tbctl_nlsock *sk, const char *name, const char *group,
		       void *buf, size_t size, struct tbctl_genl_family *f, char *extack,
		       size_t len)
{
	struct family_query q = { .group = group, .f = f };
	struct tbctl_nlmsg_reply r = { .type = GENL_ID_CTRL, .msg = family_msg, .arg = &q };
	char req[NLMSG_HDRLEN + GENL_HDRLEN + NLA_HDRLEN + GENL_NAMSIZ]
		__attribute__((aligned(4)));
	struct nlmsghdr *nlh;
	int ret;

	memset(f, 0, sizeof(*f));
	if (len)
		extack[0] = '\0';
	nlh = tbctl_genlmsg_put(req, sizeof(req), GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK,
				CTRL_CMD_GETFAMILY, 1);
	if (!nlh || tbctl_nla_put_strz(nlh, sizeof(req), CTRL_ATTR_FAMILY_NAME, name))
		return -ENAMETOOLONG;
	ret = tbctl_nlsock_transact(sk, nlh, buf, size, &r);
	if (len)
		snprintf(extack, len, "%s", r.extack);
	if (!ret && !f->id)
		ret = -ENOENT;
	return ret;
}
