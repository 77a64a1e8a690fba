// SPDX-License-Identifier: MIT
/*
 * tracebufctl: the generic netlink transport, over libmnl (see nl.h).
 *
 * Requests go out with NETLINK_EXT_ACK and NETLINK_CAP_ACK set, so an
 * error comes back as an NLMSG_ERROR without our request in it and with
 * the kernel's message as NLMSGERR_ATTR_MSG.  libmnl's own handler of
 * NLMSG_ERROR only sets errno, so ours (reply_ctl_cb) is installed
 * through mnl_cb_run2()'s control array and keeps the message.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "nl.h"

/*
 * Receive buffer: the kernel sizes dump skbs after the largest read so
 * far, up to 32 KiB; a smaller buffer would see them truncated.
 */
#define TBCTL_NL_BUFSIZE	32768
#define TBCTL_NL_RCVBUF		(1 << 20)	/* for bursts of events */

struct tbctl_nl {
	struct mnl_socket *sk;
	uint32_t portid;
	uint32_t seq;
	struct tbctl_nl_family family;
	char extack[256];
	char buf[TBCTL_NL_BUFSIZE];
};

/* ------------------------------------------------------------------------ */
/* Parsers                                                                  */

/* The attribute types we read, by the uapi; the rest are skipped. */
static int provider_attr_type(uint16_t type)
{
	switch (type) {
	case TRACEBUF_A_ID:
	case TRACEBUF_A_PID:
	case TRACEBUF_A_STATE:
	case TRACEBUF_A_MANAGER_ID:
	case TRACEBUF_A_MODE:
		return MNL_TYPE_U32;
	case TRACEBUF_A_NAME:
		return MNL_TYPE_NUL_STRING;
	case TRACEBUF_A_BUFFER_SIZE:
	case TRACEBUF_A_PACKETS_SENT:
	case TRACEBUF_A_PACKETS_RECEIVED:
	case TRACEBUF_A_SAVES:
	case TRACEBUF_A_RECORDS_DROPPED:
		return MNL_TYPE_U64;
	default:
		return -1;	/* TRACEBUF_A_PAD, and what a newer module adds */
	}
}

static int provider_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(a);
	int t;

	if (mnl_attr_type_valid(a, TRACEBUF_A_MAX) < 0)
		return MNL_CB_OK;
	t = provider_attr_type(type);
	if (t < 0)
		return MNL_CB_OK;
	if (mnl_attr_validate(a, (enum mnl_attr_data_type)t) < 0)
		return MNL_CB_ERROR;
	tb[type] = a;
	return MNL_CB_OK;
}

int tbctl_nl_parse_provider(const struct nlmsghdr *nlh, uint8_t *cmd,
			    struct tbctl_provider *p)
{
	const struct nlattr *tb[TRACEBUF_A_MAX + 1] = { 0 };
	const struct genlmsghdr *g;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*g))
		return -EINVAL;
	g = mnl_nlmsg_get_payload(nlh);
	if (mnl_attr_parse(nlh, sizeof(*g), provider_attr_cb, tb) < 0)
		return -EINVAL;
	if (!tb[TRACEBUF_A_ID])
		return -EINVAL;

	memset(p, 0, sizeof(*p));
	*cmd = g->cmd;
	p->id = mnl_attr_get_u32(tb[TRACEBUF_A_ID]);
	if (tb[TRACEBUF_A_PID])
		p->pid = mnl_attr_get_u32(tb[TRACEBUF_A_PID]);
	if (tb[TRACEBUF_A_STATE])
		p->state = mnl_attr_get_u32(tb[TRACEBUF_A_STATE]);
	if (tb[TRACEBUF_A_MANAGER_ID])
		p->manager_id = mnl_attr_get_u32(tb[TRACEBUF_A_MANAGER_ID]);
	if (tb[TRACEBUF_A_MODE])
		p->mode = mnl_attr_get_u32(tb[TRACEBUF_A_MODE]);
	if (tb[TRACEBUF_A_BUFFER_SIZE])
		p->buffer_size = mnl_attr_get_u64(tb[TRACEBUF_A_BUFFER_SIZE]);
	if (tb[TRACEBUF_A_PACKETS_SENT])
		p->packets_sent = mnl_attr_get_u64(tb[TRACEBUF_A_PACKETS_SENT]);
	if (tb[TRACEBUF_A_PACKETS_RECEIVED])
		p->packets_received = mnl_attr_get_u64(tb[TRACEBUF_A_PACKETS_RECEIVED]);
	if (tb[TRACEBUF_A_SAVES])
		p->saves = mnl_attr_get_u64(tb[TRACEBUF_A_SAVES]);
	p->has_counters = tb[TRACEBUF_A_PACKETS_SENT] || tb[TRACEBUF_A_PACKETS_RECEIVED] ||
			  tb[TRACEBUF_A_SAVES];
	if (tb[TRACEBUF_A_RECORDS_DROPPED]) {
		p->records_dropped = mnl_attr_get_u64(tb[TRACEBUF_A_RECORDS_DROPPED]);
		p->has_dropped = true;
	}
	if (tb[TRACEBUF_A_NAME])
		snprintf(p->name, sizeof(p->name), "%s", mnl_attr_get_str(tb[TRACEBUF_A_NAME]));
	return 0;
}

static int family_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(a);
	enum mnl_attr_data_type t;

	switch (type) {
	case CTRL_ATTR_FAMILY_ID:
		t = MNL_TYPE_U16;
		break;
	case CTRL_ATTR_VERSION:
		t = MNL_TYPE_U32;
		break;
	case CTRL_ATTR_MCAST_GROUPS:
		t = MNL_TYPE_NESTED;
		break;
	default:
		return MNL_CB_OK;
	}
	if (mnl_attr_validate(a, t) < 0)
		return MNL_CB_ERROR;
	tb[type] = a;
	return MNL_CB_OK;
}

static int group_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(a);
	enum mnl_attr_data_type t;

	switch (type) {
	case CTRL_ATTR_MCAST_GRP_NAME:
		t = MNL_TYPE_NUL_STRING;
		break;
	case CTRL_ATTR_MCAST_GRP_ID:
		t = MNL_TYPE_U32;
		break;
	default:
		return MNL_CB_OK;
	}
	if (mnl_attr_validate(a, t) < 0)
		return MNL_CB_ERROR;
	tb[type] = a;
	return MNL_CB_OK;
}

int tbctl_nl_parse_family(const struct nlmsghdr *nlh, struct tbctl_nl_family *f)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1] = { 0 };
	const struct nlattr *grp;

	memset(f, 0, sizeof(*f));
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr))
		return -EINVAL;
	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb, tb) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_ID])
		return -EINVAL;
	f->id = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (tb[CTRL_ATTR_VERSION])
		f->version = mnl_attr_get_u32(tb[CTRL_ATTR_VERSION]);
	if (!tb[CTRL_ATTR_MCAST_GROUPS])
		return 0;
	mnl_attr_for_each_nested(grp, tb[CTRL_ATTR_MCAST_GROUPS]) {
		const struct nlattr *g[CTRL_ATTR_MCAST_GRP_MAX + 1] = { 0 };

		if (mnl_attr_parse_nested(grp, group_attr_cb, g) < 0)
			return -EINVAL;
		if (g[CTRL_ATTR_MCAST_GRP_NAME] && g[CTRL_ATTR_MCAST_GRP_ID] &&
		    !strcmp(mnl_attr_get_str(g[CTRL_ATTR_MCAST_GRP_NAME]),
			    TRACEBUF_GENL_MCGRP_EVENTS))
			f->events = mnl_attr_get_u32(g[CTRL_ATTR_MCAST_GRP_ID]);
	}
	return 0;
}

static int extack_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;

	/* a malformed message is no reason to lose the error itself */
	if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
		tb[NLMSGERR_ATTR_MSG] = a;
	return MNL_CB_OK;
}

int tbctl_nl_parse_error(const struct nlmsghdr *nlh, char *msg, size_t len)
{
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1] = { 0 };
	size_t plen = mnl_nlmsg_get_payload_len(nlh), off;
	const struct nlmsgerr *e;
	int err;

	if (len)
		msg[0] = '\0';
	if (nlh->nlmsg_type == NLMSG_DONE) {
		/* a dump's end: its status, then maybe the same TLVs */
		if (plen < sizeof(err))
			return 0;
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
		off = sizeof(err);
	} else {
		if (plen < sizeof(*e))
			return -EBADMSG;
		e = mnl_nlmsg_get_payload(nlh);
		err = e->error;
		off = sizeof(*e);
		/* without NETLINK_CAP_ACK our request is echoed first */
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED) && e->msg.nlmsg_len > sizeof(e->msg))
			off += e->msg.nlmsg_len - sizeof(e->msg);
	}
	if (err > 0)
		err = -err;
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) && off < plen && len) {
		mnl_attr_parse(nlh, (unsigned int)off, extack_attr_cb, tb);
		if (tb[NLMSGERR_ATTR_MSG])
			snprintf(msg, len, "%s", mnl_attr_get_str(tb[NLMSGERR_ATTR_MSG]));
	}
	return err;
}

/* ------------------------------------------------------------------------ */
/* Replies                                                                  */

static int reply_data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tbctl_nl_reply *r = data;
	int ret;

	/* after an error, the rest is read and dropped, to keep in step */
	if (nlh->nlmsg_type != r->type || !r->msg || r->err)
		return MNL_CB_OK;
	ret = r->msg(nlh, r->arg);
	if (ret)
		r->err = ret;
	return MNL_CB_OK;
}

/* NLMSG_ERROR (an ack when 0) and NLMSG_DONE: the last message. */
static int reply_ctl_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tbctl_nl_reply *r = data;
	char msg[sizeof(r->extack)];
	int err = tbctl_nl_parse_error(nlh, msg, sizeof(msg));

	if (err && !r->err) {
		r->err = err;
		memcpy(r->extack, msg, sizeof(msg));
	}
	r->done = true;
	return MNL_CB_STOP;
}

int tbctl_nl_reply_run(struct tbctl_nl_reply *r, const void *buf, size_t len,
		       uint32_t seq, uint32_t portid)
{
	/* libmnl takes it as non-const */
	static mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = reply_ctl_cb,
		[NLMSG_DONE] = reply_ctl_cb,
	};
	int ret;

	errno = 0;
	ret = mnl_cb_run2(buf, len, seq, portid, reply_data_cb, r, ctl, NLMSG_MIN_TYPE);
	if (ret < 0)
		return errno ? -errno : -EPROTO;
	return r->done;
}

/* Send the request at nlh and read its replies into r; r->err. */
static int nl_transact(struct tbctl_nl *nl, struct nlmsghdr *nlh, struct tbctl_nl_reply *r)
{
	ssize_t n;
	int ret;

	nl->extack[0] = '\0';
	nlh->nlmsg_seq = ++nl->seq;
	if (mnl_socket_sendto(nl->sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(nl->sk, nl->buf, sizeof(nl->buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		ret = tbctl_nl_reply_run(r, nl->buf, (size_t)n, nlh->nlmsg_seq, nl->portid);
		if (ret < 0)
			return ret;
	} while (!r->done);
	memcpy(nl->extack, r->extack, sizeof(nl->extack));
	return r->err;
}

/* A genetlink request header in buf (big enough for header and attrs). */
static struct nlmsghdr *nl_request(void *buf, uint16_t type, uint16_t flags, uint8_t cmd,
				   uint8_t version)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

/* ------------------------------------------------------------------------ */
/* The socket                                                               */

static int family_msg(const struct nlmsghdr *nlh, void *arg)
{
	return tbctl_nl_parse_family(nlh, arg);
}

int tbctl_nl_open(struct tbctl_nl **out)
{
	struct tbctl_nl_reply r = { .type = GENL_ID_CTRL, .msg = family_msg };
	char req[256] __attribute__((aligned(4)));
	struct nlmsghdr *nlh;
	struct tbctl_nl *nl;
	int one = 1, rcvbuf = TBCTL_NL_RCVBUF, ret;

	*out = NULL;
	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	nl->sk = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
	if (!nl->sk) {
		ret = -errno;
		goto out_free;
	}
	if (mnl_socket_bind(nl->sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto out_close;
	}
	nl->portid = mnl_socket_get_portid(nl->sk);
	nl->seq = (uint32_t)time(NULL);
	/* kernels before 4.12 (EXT_ACK) and 4.3 (CAP_ACK): plain errors */
	mnl_socket_setsockopt(nl->sk, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sk, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(mnl_socket_get_fd(nl->sk), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));

	nlh = nl_request(req, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, TRACEBUF_GENL_NAME);
	r.arg = &nl->family;
	ret = nl_transact(nl, nlh, &r);
	if (!ret && !nl->family.id)
		ret = -ENOENT;
	if (ret)
		goto out_close;
	*out = nl;
	return 0;

out_close:
	mnl_socket_close(nl->sk);
out_free:
	free(nl);
	return ret;
}

void tbctl_nl_close(struct tbctl_nl *nl)
{
	if (!nl)
		return;
	mnl_socket_close(nl->sk);
	free(nl);
}

const char *tbctl_nl_extack(const struct tbctl_nl *nl)
{
	return nl ? nl->extack : "";
}

int tbctl_nl_fd(const struct tbctl_nl *nl)
{
	return mnl_socket_get_fd(nl->sk);
}

/* ------------------------------------------------------------------------ */
/* Commands                                                                 */

/* The genetlink command of a message of the family, -1 if it has none. */
static int genl_cmd(const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);

	return mnl_nlmsg_get_payload_len(nlh) < sizeof(*g) ? -1 : g->cmd;
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
	struct tbctl_nl_reply r = { .type = nl->family.id, .msg = providers_msg, .arg = &v };
	char req[256] __attribute__((aligned(4)));
	struct nlmsghdr *nlh;
	int ret;

	nlh = nl_request(req, nl->family.id, NLM_F_ACK, TRACEBUF_CMD_PROVIDER_GET,
			 TRACEBUF_GENL_VERSION);
	mnl_attr_put_u32(nlh, TRACEBUF_A_ID, id);
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
	struct tbctl_nl_reply r = { .type = nl->family.id, .msg = providers_msg, .arg = &v };
	char req[256] __attribute__((aligned(4)));
	struct nlmsghdr *nlh;
	int ret;

	*out = NULL;
	nlh = nl_request(req, nl->family.id, NLM_F_DUMP, TRACEBUF_CMD_PROVIDER_GET,
			 TRACEBUF_GENL_VERSION);
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
	uint32_t grp = nl->family.events;

	nl->extack[0] = '\0';
	if (!grp)
		return -EOPNOTSUPP;
	if (mnl_socket_setsockopt(nl->sk, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)) < 0)
		return -errno;
	return 0;
}

int tbctl_nl_events_read(struct tbctl_nl *nl, tbctl_nl_event_cb cb, void *arg)
{
	const struct nlmsghdr *nlh;
	struct tbctl_provider p;
	uint8_t cmd;
	ssize_t n;
	int len, ret;

	n = mnl_socket_recvfrom(nl->sk, nl->buf, sizeof(nl->buf));
	if (n < 0)
		return -errno;
	len = (int)n;
	for (nlh = (const void *)nl->buf; mnl_nlmsg_ok(nlh, len);
	     nlh = mnl_nlmsg_next(nlh, &len)) {
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
	return 0;
}
