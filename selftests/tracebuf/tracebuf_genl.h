/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw generic netlink for the tracebuf selftests (no library needed in
 * the guest): resolve the "tracebuf" family, GET one provider, dump them
 * all.  Every function returns 0 or -errno.
 */
#ifndef TRACEBUF_GENL_H
#define TRACEBUF_GENL_H

#include <sys/socket.h>
#include <sys/time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "tracebuf_selftests.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

struct nl {
	int fd;
	__u16 family;
	__u32 version;
	__u32 events;		/* multicast group id, 0 if none */
	__u32 seq;
	char err[256];		/* extended ack message of the last error */
};

/* One provider, as a message describes it. */
struct gprov {
	__u8 cmd;
	__u32 id, pid, state, manager, mode;
	__u64 size, dropped, sent, received, saves;
	bool has_mode, has_size, has_dropped;
	char name[TRACEBUF_NAME_MAX + 2];
};

struct req {
	char buf[4096];
	size_t len;
};

static inline void req_init(struct req *r, __u16 type, __u16 flags, __u8 cmd, __u8 version)
{
	struct nlmsghdr *nlh = (void *)r->buf;
	struct genlmsghdr *g = NLMSG_DATA(nlh);

	memset(r->buf, 0, sizeof(r->buf));
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	g->cmd = cmd;
	g->version = version;
	r->len = NLMSG_HDRLEN + GENL_HDRLEN;
}

static inline void req_put(struct req *r, __u16 type, const void *data, size_t len)
{
	struct nlattr *a = (void *)(r->buf + NLMSG_ALIGN(r->len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->len = NLMSG_ALIGN(r->len) + NLA_ALIGN(a->nla_len);
}

static inline int nl_socket(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 10 };
	int one = 1, fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		close(fd);
		return -errno;
	}
	return fd;
}

typedef void (*nl_cb)(const struct nlmsghdr *nlh, void *arg);

/* The extended ack message after a capped error, if any. */
static inline void nl_ext_ack(struct nl *nl, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = NLMSG_DATA(nlh);
	const char *p = (const char *)e + sizeof(*e);
	const char *end = (const char *)nlh + nlh->nlmsg_len;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const void *)p;

		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			break;
		if (a->nla_type == NLMSGERR_ATTR_MSG)
			snprintf(nl->err, sizeof(nl->err), "%.*s",
				 (int)(a->nla_len - NLA_HDRLEN), p + NLA_HDRLEN);
		p += NLA_ALIGN(a->nla_len);
	}
}

/*
 * Send @r and read replies until the ack or NLMSG_DONE; each data message
 * goes to @cb.  Returns 0 or the -errno the kernel answered.
 */
static inline int nl_transact(struct nl *nl, struct req *r, nl_cb cb, void *arg)
{
	struct nlmsghdr *nlh = (void *)r->buf;
	static char buf[65536];
	__u32 seq = ++nl->seq;

	nlh->nlmsg_len = r->len;
	nlh->nlmsg_seq = seq;
	nl->err[0] = 0;
	if (send(nl->fd, r->buf, r->len, 0) != (ssize_t)r->len)
		return -errno;
	for (;;) {
		ssize_t n = recv(nl->fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;
		int left;

		if (n < 0)
			return -errno;
		left = (int)n;
		for (h = (void *)buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				nl_ext_ack(nl, h);
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			}
			if (h->nlmsg_type == NLMSG_DONE)
				return *(int *)NLMSG_DATA(h);
			if (cb)
				cb(h, arg);
		}
	}
}

static inline void nl_family_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nl *nl = arg;
	const char *p = (const char *)NLMSG_DATA(nlh) + GENL_HDRLEN;
	const char *end = (const char *)nlh + nlh->nlmsg_len;

	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const void *)p;
		const char *v = p + NLA_HDRLEN;

		if (a->nla_len < NLA_HDRLEN)
			break;
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			memcpy(&nl->family, v, 2);
		if (a->nla_type == CTRL_ATTR_VERSION)
			memcpy(&nl->version, v, 4);
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GROUPS) {
			const char *g = v, *gend = p + a->nla_len;

			while (g + NLA_HDRLEN <= gend) {
				const struct nlattr *grp = (const void *)g;
				const char *q = g + NLA_HDRLEN, *qend = g + grp->nla_len;
				__u32 id = 0;
				bool ours = false;

				if (grp->nla_len < NLA_HDRLEN)
					break;
				while (q + NLA_HDRLEN <= qend) {
					const struct nlattr *f = (const void *)q;

					if (f->nla_len < NLA_HDRLEN)
						break;
					if (f->nla_type == CTRL_ATTR_MCAST_GRP_ID)
						memcpy(&id, q + NLA_HDRLEN, 4);
					if (f->nla_type == CTRL_ATTR_MCAST_GRP_NAME &&
					    !strcmp(q + NLA_HDRLEN, TRACEBUF_GENL_MCGRP_EVENTS))
						ours = true;
					q += NLA_ALIGN(f->nla_len);
				}
				if (ours)
					nl->events = id;
				g += NLA_ALIGN(grp->nla_len);
			}
		}
		p += NLA_ALIGN(a->nla_len);
	}
}

/* Open a socket and resolve the family; 0 or -errno. */
static inline int nl_open(struct nl *nl)
{
	struct req r;
	int ret;

	memset(nl, 0, sizeof(*nl));
	nl->fd = nl_socket();
	if (nl->fd < 0)
		return nl->fd;
	req_init(&r, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, 1);
	req_put(&r, CTRL_ATTR_FAMILY_NAME, TRACEBUF_GENL_NAME,
		sizeof(TRACEBUF_GENL_NAME));
	ret = nl_transact(nl, &r, nl_family_cb, nl);
	if (!ret && !nl->family)
		ret = -ENOENT;
	return ret;
}

static inline void nl_close(struct nl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	nl->fd = -1;
}

static inline void gprov_parse(const struct nlmsghdr *nlh, struct gprov *g)
{
	const struct genlmsghdr *gh = NLMSG_DATA(nlh);
	const char *p = (const char *)gh + GENL_HDRLEN;
	const char *end = (const char *)nlh + nlh->nlmsg_len;

	memset(g, 0, sizeof(*g));
	g->cmd = gh->cmd;
	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const void *)p;
		const char *v = p + NLA_HDRLEN;
		size_t len = a->nla_len - NLA_HDRLEN;

		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			break;
		switch (a->nla_type) {
		case TRACEBUF_A_ID: memcpy(&g->id, v, 4); break;
		case TRACEBUF_A_PID: memcpy(&g->pid, v, 4); break;
		case TRACEBUF_A_STATE: memcpy(&g->state, v, 4); break;
		case TRACEBUF_A_MANAGER_ID: memcpy(&g->manager, v, 4); break;
		case TRACEBUF_A_MODE: memcpy(&g->mode, v, 4); g->has_mode = true; break;
		case TRACEBUF_A_BUFFER_SIZE: memcpy(&g->size, v, 8); g->has_size = true; break;
		case TRACEBUF_A_RECORDS_DROPPED:
			memcpy(&g->dropped, v, 8);
			g->has_dropped = true;
			break;
		case TRACEBUF_A_PACKETS_SENT: memcpy(&g->sent, v, 8); break;
		case TRACEBUF_A_PACKETS_RECEIVED: memcpy(&g->received, v, 8); break;
		case TRACEBUF_A_SAVES: memcpy(&g->saves, v, 8); break;
		case TRACEBUF_A_NAME:
			snprintf(g->name, sizeof(g->name), "%.*s", (int)len, v);
			break;
		}
		p += NLA_ALIGN(a->nla_len);
	}
}

struct dump {
	struct gprov p[1100];
	unsigned int n;
};

static inline void gprov_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct dump *d = arg;

	if (d->n < ARRAY_SIZE(d->p))
		gprov_parse(nlh, &d->p[d->n++]);
}

static inline int nl_get(struct nl *nl, __u32 id, struct gprov *out)
{
	static struct dump d;
	struct req r;
	int ret;

	d.n = 0;
	req_init(&r, nl->family, 0, TRACEBUF_CMD_PROVIDER_GET, TRACEBUF_GENL_VERSION);
	req_put(&r, TRACEBUF_A_ID, &id, 4);
	ret = nl_transact(nl, &r, gprov_cb, &d);
	if (!ret && d.n != 1)
		ret = -EIO;
	if (!ret)
		*out = d.p[0];
	return ret;
}

static inline int nl_dump(struct nl *nl, struct dump *d)
{
	struct req r;

	d->n = 0;
	req_init(&r, nl->family, NLM_F_DUMP, TRACEBUF_CMD_PROVIDER_GET,
		 TRACEBUF_GENL_VERSION);
	return nl_transact(nl, &r, gprov_cb, d);
}

static inline const struct gprov *dump_find(const struct dump *d, __u32 id)
{
	for (unsigned int i = 0; i < d->n; i++)
		if (d->p[i].id == id)
			return &d->p[i];
	return NULL;
}

#endif /* TRACEBUF_GENL_H */
