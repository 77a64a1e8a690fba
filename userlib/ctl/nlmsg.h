/* SPDX-License-Identifier: MIT */
/*
 * tracebufctl's netlink helper (nlmsg.c): what nl.c needs of netlink and
 * nothing more, so that tracebufctl links statically for any target.
 *
 *  - building a request in a caller's buffer: header, fixed part,
 *    attributes, nests; nothing is written past the buffer's size;
 *  - walking the messages of a datagram and the attributes of a message,
 *    checking every length before it is used; parsing attributes into a
 *    table by a policy of types (known types are validated, the others
 *    skipped);
 *  - a socket: open (extended acks on), send a request, receive a
 *    datagram from the kernel, join a multicast group;
 *  - the replies to one request: the data messages go to a callback, the
 *    ack, NLMSG_DONE or an error (with the kernel's extended ack message)
 *    ends them; a message of another request or socket is an error;
 *  - resolving a generic netlink family and one of its multicast groups
 *    through the "nlctrl" family.
 *
 * Buffers holding messages are aligned to 4 (NLMSG_ALIGNTO); attributes
 * are read with memcpy(), so 64-bit values need no more.  Every function
 * returns 0 (or a length) or -errno.
 */
#ifndef TBCTL_NLMSG_H
#define TBCTL_NLMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include <linux/netlink.h>

/* ------------------------------------------------------------------------ */
/* Building a message                                                       */

/*
 * tbctl_nlmsg_put_header() - a message of type and flags at buf, which
 * has room for size bytes; its header zeroed but for those.
 * Return: the header, or NULL when size cannot hold it.
 */
struct nlmsghdr *tbctl_nlmsg_put_header(void *buf, size_t size, uint16_t type,
					uint16_t flags);

/*
 * tbctl_nlmsg_put_extra() - len zeroed bytes (padded to 4) at the end of
 * the message at nlh (in a buffer of size bytes): a fixed header such as
 * struct genlmsghdr.  Return: where they are, or NULL when they do not fit
 * (the message is left as it was).
 */
void *tbctl_nlmsg_put_extra(struct nlmsghdr *nlh, size_t size, size_t len);

/*
 * tbctl_genlmsg_put() - a generic netlink message (flags as they are:
 * NLM_F_REQUEST for a request): header and struct genlmsghdr.
 * Return: the header, or NULL when size cannot hold them.
 */
struct nlmsghdr *tbctl_genlmsg_put(void *buf, size_t size, uint16_t family, uint16_t flags,
				   uint8_t cmd, uint8_t version);

/*
 * tbctl_nla_put() - an attribute of type with len bytes of data (padded
 * to 4 with zeroes) at the end of the message at nlh, in a buffer of size
 * bytes.  Return: 0, or -EMSGSIZE when it does not fit (the message is
 * left as it was).
 */
int tbctl_nla_put(struct nlmsghdr *nlh, size_t size, uint16_t type, size_t len,
		  const void *data);

static inline int tbctl_nla_put_u16(struct nlmsghdr *nlh, size_t size, uint16_t type,
				    uint16_t v)
{
	return tbctl_nla_put(nlh, size, type, sizeof(v), &v);
}

static inline int tbctl_nla_put_u32(struct nlmsghdr *nlh, size_t size, uint16_t type,
				    uint32_t v)
{
	return tbctl_nla_put(nlh, size, type, sizeof(v), &v);
}

static inline int tbctl_nla_put_u64(struct nlmsghdr *nlh, size_t size, uint16_t type,
				    uint64_t v)
{
	return tbctl_nla_put(nlh, size, type, sizeof(v), &v);
}

/* A string with its NUL. */
static inline int tbctl_nla_put_strz(struct nlmsghdr *nlh, size_t size, uint16_t type,
				     const char *s)
{
	return tbctl_nla_put(nlh, size, type, strlen(s) + 1, s);
}

/*
 * tbctl_nla_nest_start() - open a nested attribute (NLA_F_NESTED | type):
 * the attributes put until tbctl_nla_nest_end() are inside it.
 * Return: the nest, or NULL when it does not fit.
 */
struct nlattr *tbctl_nla_nest_start(struct nlmsghdr *nlh, size_t size, uint16_t type);

/* Close it.  Return: 0, or -EMSGSIZE when it grew past 64 KiB. */
int tbctl_nla_nest_end(struct nlmsghdr *nlh, struct nlattr *nest);

/* ------------------------------------------------------------------------ */
/* Walking messages                                                         */

/*
 * Is there a whole message at nlh, in the len bytes left of a datagram?
 * Its header must fit, and its nlmsg_len must hold the header and stay
 * within len.
 */
static inline bool tbctl_nlmsg_ok(const struct nlmsghdr *nlh, size_t len)
{
	return len >= sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) && nlh->nlmsg_len <= len;
}

/* The message after nlh (which must be ok), and what is left in *len. */
static inline const struct nlmsghdr *tbctl_nlmsg_next(const struct nlmsghdr *nlh, size_t *len)
{
	size_t step = NLMSG_ALIGN(nlh->nlmsg_len);

	/* the last message of a datagram may come without its padding */
	if (step > *len)
		step = *len;
	*len -= step;
	return (const void *)((const char *)nlh + step);
}

/* Every message of a datagram; len is what is left after them. */
#define tbctl_nlmsg_for_each(nlh, buf, len)				\
	for ((nlh) = (const void *)(buf); tbctl_nlmsg_ok((nlh), (len));	\
	     (nlh) = tbctl_nlmsg_next((nlh), &(len)))

/* The payload of a message, and its length (0 for a short header). */
static inline const void *tbctl_nlmsg_data(const struct nlmsghdr *nlh)
{
	return (const char *)nlh + NLMSG_HDRLEN;
}

static inline size_t tbctl_nlmsg_data_len(const struct nlmsghdr *nlh)
{
	return nlh->nlmsg_len < NLMSG_HDRLEN ? 0 : nlh->nlmsg_len - NLMSG_HDRLEN;
}

/* ------------------------------------------------------------------------ */
/* Attributes                                                               */

/*
 * What a policy says an attribute type holds.  Numbers are exactly their
 * size; a string ends with its NUL (an empty attribute has none); a nest
 * is empty or holds at least one attribute header.
 */
enum tbctl_nla_kind {
	TBCTL_NLA_SKIP = 0,	/* not read: not validated */
	TBCTL_NLA_U16,
	TBCTL_NLA_U32,
	TBCTL_NLA_U64,
	TBCTL_NLA_STRING,
	TBCTL_NLA_NESTED,
	TBCTL_NLA_BINARY,	/* any length */
};

/* An attribute's type without NLA_F_NESTED and NLA_F_NET_BYTEORDER. */
static inline uint16_t tbctl_nla_type(const struct nlattr *a)
{
	return a->nla_type & NLA_TYPE_MASK;
}

static inline const void *tbctl_nla_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

/* Its payload's length (0 for a short header). */
static inline size_t tbctl_nla_data_len(const struct nlattr *a)
{
	return a->nla_len < NLA_HDRLEN ? 0 : a->nla_len - NLA_HDRLEN;
}

/* Is there a whole attribute at a, in the len bytes left? */
static inline bool tbctl_nla_ok(const struct nlattr *a, size_t len)
{
	return len >= sizeof(*a) && a->nla_len >= sizeof(*a) && a->nla_len <= len;
}

/* The attribute after a (which must be ok), and what is left in *len. */
static inline const struct nlattr *tbctl_nla_next(const struct nlattr *a, size_t *len)
{
	size_t step = NLA_ALIGN(a->nla_len);

	if (step > *len)
		step = *len;
	*len -= step;
	return (const void *)((const char *)a + step);
}

/* Every attribute in len bytes at data; len is what is left after them. */
#define tbctl_nla_for_each(a, data, len)				\
	for ((a) = (const void *)(data); tbctl_nla_ok((a), (len));	\
	     (a) = tbctl_nla_next((a), &(len)))

/*
 * tbctl_nla_validate() - does a (a whole attribute) hold what kind says?
 * Return: 0 or -EINVAL.
 */
int tbctl_nla_validate(const struct nlattr *a, enum tbctl_nla_kind kind);

/*
 * tbctl_nla_parse() - the attributes in len bytes at data into
 * tb[0..max] (zeroed first) by policy[0..max] (enum tbctl_nla_kind):
 * types above max or whose policy is TBCTL_NLA_SKIP are skipped, the
 * others validated; of two of one type the last counts.
 * Return: 0; -EINVAL when one does not validate or the bytes do not end
 * with a whole attribute.
 */
int tbctl_nla_parse(const struct nlattr **tb, unsigned int max, const uint8_t *policy,
		    const void *data, size_t len);

/*
 * The attributes of a message after offset bytes of its payload (its
 * fixed header; rounded up to 4), and those of a nest.  As
 * tbctl_nla_parse(); an offset past the payload is -EINVAL.
 */
int tbctl_nla_parse_msg(const struct nlattr **tb, unsigned int max, const uint8_t *policy,
			const struct nlmsghdr *nlh, size_t offset);
int tbctl_nla_parse_nested(const struct nlattr **tb, unsigned int max,
			   const uint8_t *policy, const struct nlattr *nest);

/* The values of validated attributes (any alignment). */
static inline uint16_t tbctl_nla_get_u16(const struct nlattr *a)
{
	uint16_t v;

	memcpy(&v, tbctl_nla_data(a), sizeof(v));
	return v;
}

static inline uint32_t tbctl_nla_get_u32(const struct nlattr *a)
{
	uint32_t v;

	memcpy(&v, tbctl_nla_data(a), sizeof(v));
	return v;
}

static inline uint64_t tbctl_nla_get_u64(const struct nlattr *a)
{
	uint64_t v;

	memcpy(&v, tbctl_nla_data(a), sizeof(v));
	return v;
}

static inline const char *tbctl_nla_get_str(const struct nlattr *a)
{
	return tbctl_nla_data(a);
}

/* ------------------------------------------------------------------------ */
/* Replies                                                                  */

/*
 * tbctl_nlmsg_check() - does the message at nlh answer request seq sent
 * from portid (0: either is not checked; 0 in the message: the same)?
 * Return: 0; -ESRCH for another socket's, -EPROTO for another request's,
 * -EINTR for a dump the kernel says changed while it was taken
 * (NLM_F_DUMP_INTR).
 */
int tbctl_nlmsg_check(const struct nlmsghdr *nlh, uint32_t seq, uint32_t portid);

/*
 * tbctl_nlmsg_parse_error() - the error of an NLMSG_ERROR (or NLMSG_DONE)
 * message: 0 for an ack, -errno otherwise; its NLMSGERR_ATTR_MSG into msg
 * ("" if none).  A message too short to hold the error is -EBADMSG.
 */
int tbctl_nlmsg_parse_error(const struct nlmsghdr *nlh, char *msg, size_t len);

/*
 * The replies to one request, as the socket delivers them: each data
 * message of the right type goes to msg (which returns 0 or -errno), the
 * ack, NLMSG_DONE or an error ends them.
 */
struct tbctl_nlmsg_reply {
	uint16_t type;		/* the data messages' nlmsg_type */
	int (*msg)(const struct nlmsghdr *nlh, void *arg);
	void *arg;
	int err;		/* the first error: the kernel's or msg's */
	bool done;
	char extack[256];
};

/*
 * tbctl_nlmsg_reply_run() - the messages in buf (len bytes, one datagram)
 * of the request seq (sent from portid; 0: do not check) into r.
 * Return: 1 when the replies are complete (r->err then says how they
 * ended), 0 when more are to come, -errno for messages that do not belong
 * to the request (tbctl_nlmsg_check()) or a datagram that does not end
 * with a whole message (-EBADMSG).
 */
int tbctl_nlmsg_reply_run(struct tbctl_nlmsg_reply *r, const void *buf, size_t len,
			  uint32_t seq, uint32_t portid);

/* ------------------------------------------------------------------------ */
/* The socket                                                               */

struct tbctl_nlsock {
	int fd;
	uint32_t portid;	/* ours, as the kernel bound it */
	uint32_t seq;		/* of the last request sent */
};

/*
 * tbctl_nlsock_open() - a netlink socket of protocol (NETLINK_GENERIC),
 * close-on-exec, bound to a port id the kernel chose, with extended acks
 * (NETLINK_EXT_ACK, NETLINK_CAP_ACK) where the kernel has them.
 * Return: 0 and *sk; -errno (*sk then holds no socket).
 */
int tbctl_nlsock_open(struct tbctl_nlsock *sk, int protocol);
void tbctl_nlsock_close(struct tbctl_nlsock *sk);

/*
 * tbctl_nlsock_send() - send the request at nlh to the kernel, as the
 * next sequence number (set in nlh, and in sk->seq).  Return: 0 or -errno.
 */
int tbctl_nlsock_send(struct tbctl_nlsock *sk, struct nlmsghdr *nlh);

/*
 * tbctl_nlsock_recv() - one datagram into buf (size bytes; blocks if
 * none is waiting).  Return: its length (0 for one that did not come from
 * the kernel: dropped); -ENOSPC when it did not fit; -ENOBUFS when the
 * socket overran; other -errno (-EINTR included).
 */
ssize_t tbctl_nlsock_recv(struct tbctl_nlsock *sk, void *buf, size_t size);

/*
 * tbctl_nlsock_transact() - send the request at nlh and read its replies
 * into r with buf (size bytes) as the receive buffer.  Return: r->err (its
 * extended ack in r->extack), or -errno of the transport.
 */
int tbctl_nlsock_transact(struct tbctl_nlsock *sk, struct nlmsghdr *nlh, void *buf,
			  size_t size, struct tbctl_nlmsg_reply *r);

/* Join multicast group (setsockopt NETLINK_ADD_MEMBERSHIP): 0 or -errno. */
int tbctl_nlsock_join(struct tbctl_nlsock *sk, uint32_t group);

/* ------------------------------------------------------------------------ */
/* Generic netlink families                                                 */

/* What CTRL_CMD_GETFAMILY says about a family. */
struct tbctl_genl_family {
	uint16_t id;
	uint32_t version;
	uint32_t group;		/* the multicast group asked for, 0 if none */
};

/*
 * tbctl_genl_parse_family() - a CTRL_CMD_NEWFAMILY message into *f, with
 * the id of its multicast group named group (NULL: none wanted).
 * Unknown attributes are skipped.  Return: 0, or -EINVAL without a family
 * id or for one of them that does not validate.
 */
int tbctl_genl_parse_family(const struct nlmsghdr *nlh, const char *group,
			    struct tbctl_genl_family *f);

/*
 * tbctl_genl_resolve() - ask the controller about the family name and
 * its multicast group (NULL: none), with buf (size bytes) as the receive
 * buffer; the kernel's extended ack message into extack (len bytes).
 * Return: 0 and *f; -ENOENT when there is no such family; other -errno.
 */
int tbctl_genl_resolve(struct tbctl_nlsock *sk, const char *name, const char *group,
		       void *buf, size_t size, struct tbctl_genl_family *f, char *extack,
		       size_t len);

#endif /* TBCTL_NLMSG_H */
