// SPDX-License-Identifier: MIT
/*
 * The netlink helper (nlmsg.c) on its own: a message built never grows
 * past its buffer; attributes and messages whose lengths do not add up
 * are refused, not read; an error whose echoed request claims more than
 * the message holds keeps its error; and, over a real socket to this
 * machine's kernel (no module needed), the "nlctrl" family resolves
 * itself and its "notify" group, a dump of the families comes back
 * whole, the group can be joined, and a family that does not exist is
 * -ENOENT.
 */
#include "ktap.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "../nlmsg.h"

/* ------------------------------------------------------------------------ */
/* Building                                                                 */

static void builder_stays_in_its_buffer(void)
{
	char buf[64] __attribute__((aligned(4)));
	static const char data[32] = "abcdefg";
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	uint32_t len;

	T_EXPECT(!tbctl_nlmsg_put_header(buf, NLMSG_HDRLEN - 1, 1, 0));
	T_EXPECT(!tbctl_genlmsg_put(buf, NLMSG_HDRLEN + 3, 1, 0, 1, 1));
	memset(buf, 0x5a, sizeof(buf));
	nlh = tbctl_genlmsg_put(buf, sizeof(buf), 0x20, NLM_F_REQUEST, 3, 2);
	T_ASSERT(nlh);
	T_EXPECT_EQ(nlh->nlmsg_len, NLMSG_HDRLEN + GENL_HDRLEN);
	T_EXPECT_EQ(nlh->nlmsg_type, 0x20);
	T_EXPECT_EQ(nlh->nlmsg_flags, NLM_F_REQUEST);
	T_EXPECT_EQ(nlh->nlmsg_seq, 0);

	/* 20 bytes used: 5 + 4 of header, padded to 12, fits; 44 left */
	T_EXPECT_EQ(tbctl_nla_put(nlh, sizeof(buf), 1, 5, data), 0);
	T_EXPECT_EQ(nlh->nlmsg_len, 32);
	T_EXPECT(!memcmp(buf + 24, "abcde\0\0\0", 8));
	/* 32 left: 29 bytes need 36 */
	len = nlh->nlmsg_len;
	T_EXPECT_EQ(tbctl_nla_put(nlh, sizeof(buf), 2, 29, data), -EMSGSIZE);
	T_EXPECT_EQ(nlh->nlmsg_len, len);
	T_EXPECT_EQ(tbctl_nla_put(nlh, sizeof(buf), 2, 65532, data), -EMSGSIZE);
	T_EXPECT_EQ(tbctl_nla_put(nlh, SIZE_MAX, 2, SIZE_MAX - 2, data), -EMSGSIZE);
	/* exactly to the end */
	T_EXPECT_EQ(tbctl_nla_put(nlh, sizeof(buf), 2, 28, data), 0);
	T_EXPECT_EQ(nlh->nlmsg_len, sizeof(buf));
	T_EXPECT_EQ(tbctl_nla_put(nlh, sizeof(buf), 3, 0, NULL), -EMSGSIZE);
	T_EXPECT(!tbctl_nlmsg_put_extra(nlh, sizeof(buf), 1));
	T_EXPECT(!tbctl_nla_nest_start(nlh, sizeof(buf), 4));

	/* a nest holds what was put in it */
	nlh = tbctl_nlmsg_put_header(buf, sizeof(buf), 0x20, 0);
	nest = tbctl_nla_nest_start(nlh, sizeof(buf), 7);
	T_ASSERT(nest);
	T_EXPECT_EQ(tbctl_nla_put_u32(nlh, sizeof(buf), 1, 9), 0);
	T_EXPECT_EQ(tbctl_nla_put_u16(nlh, sizeof(buf), 2, 9), 0);
	T_EXPECT_EQ(tbctl_nla_nest_end(nlh, nest), 0);
	T_EXPECT_EQ(nest->nla_len, NLA_HDRLEN + 8 + 8);
	T_EXPECT_EQ(nest->nla_type, NLA_F_NESTED | 7);
	T_EXPECT_EQ(tbctl_nla_type(nest), 7);
	T_EXPECT_EQ(nlh->nlmsg_len, NLMSG_HDRLEN + 20);
}

/* ------------------------------------------------------------------------ */
/* Attributes                                                               */

/* Raw attributes: type, nla_len, then nla_len - 4 bytes of 0x11, padded. */
static size_t raw_attr(char *at, uint16_t type, uint16_t nla_len)
{
	struct nlattr a = { .nla_len = nla_len, .nla_type = type };
	size_t data = nla_len > NLA_HDRLEN ? nla_len - NLA_HDRLEN : 0;

	memcpy(at, &a, sizeof(a));
	memset(at + NLA_HDRLEN, 0x11, data);
	return NLA_ALIGN(NLA_HDRLEN + data);
}

static const uint8_t policy[5] = {
	[1] = TBCTL_NLA_U32,
	[2] = TBCTL_NLA_STRING,
	[3] = TBCTL_NLA_NESTED,
	[4] = TBCTL_NLA_U64,
};

static void attributes_must_add_up(void)
{
	char buf[128] __attribute__((aligned(8)));
	const struct nlattr *tb[5];
	size_t len;

	/* good: a u32, a nest, an unknown type, a u64 not aligned to 8 */
	len = raw_attr(buf, 1, 8);
	len += raw_attr(buf + len, NLA_F_NESTED | 3, 4);
	len += raw_attr(buf + len, 9, 11);
	len += raw_attr(buf + len, 4, 12);
	T_EXPECT_EQ(tbctl_nla_parse(tb, 4, policy, buf, len), 0);
	T_EXPECT(tb[1] && tb[3] && tb[4] && !tb[2]);
	T_EXPECT_EQ(tbctl_nla_get_u64(tb[4]), 0x1111111111111111ull);
	/* the last one may come without its padding */
	len = raw_attr(buf, 1, 8);
	len += raw_attr(buf + len, 9, 5) - 3;
	T_EXPECT_EQ(tbctl_nla_parse(tb, 4, policy, buf, len), 0);
	/* of two, the last */
	len = raw_attr(buf, 1, 8);
	len += raw_attr(buf + len, 1, 8);
	T_EXPECT_EQ(tbctl_nla_parse(tb, 4, policy, buf, len), 0);
	T_EXPECT(tb[1] == (const void *)(buf + 8));

	/* longer than what is left */
	len = raw_attr(buf, 1, 8);
	raw_attr(buf + len, 1, 8);
	T_EXPECT_EQ(tbctl_nla_parse(tb, 4, policy, buf, len + 6), -EINVAL);
	/* shorter than its own header, skipped type or not */
	len = raw_attr(buf, 9, 2);
	T_EXPECT_EQ(tbctl_nla_parse(tb, 4, policy, buf, len), -EINVAL);
	len = raw_attr(buf, 1, 0);
	T_EXPECT_EQ(tbctl_nla_parse(tb, 4, policy, buf, len), -EINVAL);
	/* bytes left over that hold no header */
	len = raw_attr(buf, 1, 8);
	T_EXPECT_EQ(tbctl_nla_parse(tb, 4, policy, buf, len + 2), -EINVAL);
	/* sizes the policy does not allow */
	raw_attr(buf, 1, 7);
	T_EXPECT_EQ(tbctl_nla_parse(tb, 4, policy, buf, 8), -EINVAL);
	raw_attr(buf, 4, 8);
	T_EXPECT_EQ(tbctl_nla_parse(tb, 4, policy, buf, 8), -EINVAL);
	raw_attr(buf, 2, 6);	/* no NUL */
	T_EXPECT_EQ(tbctl_nla_parse(tb, 4, policy, buf, 8), -EINVAL);
	raw_attr(buf, 3, 6);	/* a nest too short for one header */
	T_EXPECT_EQ(tbctl_nla_parse(tb, 4, policy, buf, 8), -EINVAL);
	/* and nothing is all right */
	T_EXPECT_EQ(tbctl_nla_parse(tb, 4, policy, buf, 0), 0);
	T_EXPECT(!tb[1] && !tb[2] && !tb[3] && !tb[4]);
}

static void message_offsets_are_checked(void)
{
	char buf[64] __attribute__((aligned(4)));
	const struct nlattr *tb[5];
	struct nlmsghdr *nlh;

	nlh = tbctl_genlmsg_put(buf, sizeof(buf), 0x20, 0, 1, 1);
	T_ASSERT(nlh);
	T_EXPECT_EQ(tbctl_nla_put_u32(nlh, sizeof(buf), 1, 7), 0);
	T_EXPECT_EQ(tbctl_nla_parse_msg(tb, 4, policy, nlh, GENL_HDRLEN), 0);
	T_EXPECT(tb[1] && tbctl_nla_get_u32(tb[1]) == 7);
	/* an odd offset rounds up to the attributes */
	T_EXPECT_EQ(tbctl_nla_parse_msg(tb, 4, policy, nlh, 3), 0);
	T_EXPECT(tb[1]);
	T_EXPECT_EQ(tbctl_nla_parse_msg(tb, 4, policy, nlh, 12), 0);
	T_EXPECT(!tb[1]);
	T_EXPECT_EQ(tbctl_nla_parse_msg(tb, 4, policy, nlh, 13), -EINVAL);
	/* a header that claims less than itself has no payload */
	nlh->nlmsg_len = 8;
	T_EXPECT_EQ(tbctl_nlmsg_data_len(nlh), 0);
	T_EXPECT_EQ(tbctl_nla_parse_msg(tb, 4, policy, nlh, GENL_HDRLEN), -EINVAL);
}

/* ------------------------------------------------------------------------ */
/* Replies                                                                  */

static int count_msg(const struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	++*(int *)arg;
	return 0;
}

static void datagrams_must_add_up(void)
{
	char buf[256] __attribute__((aligned(4)));
	struct tbctl_nlmsg_reply r;
	struct nlmsghdr *nlh;
	size_t len;
	int n;

	/* a data message then one whose length runs past the datagram */
	memset(buf, 0, sizeof(buf));
	nlh = tbctl_genlmsg_put(buf, sizeof(buf), 0x20, NLM_F_MULTI, 1, 1);
	len = nlh->nlmsg_len;
	nlh = tbctl_nlmsg_put_header(buf + len, sizeof(buf) - len, NLMSG_DONE, NLM_F_MULTI);
	nlh->nlmsg_len = 64;
	memset(&r, 0, sizeof(r));
	n = 0;
	r.type = 0x20;
	r.msg = count_msg;
	r.arg = &n;
	T_EXPECT_EQ(tbctl_nlmsg_reply_run(&r, buf, len + 32, 0, 0), -EBADMSG);
	T_EXPECT_EQ(n, 1);
	T_EXPECT(!r.done);
	/* ... or that claims less than a header */
	nlh->nlmsg_len = 8;
	T_EXPECT_EQ(tbctl_nlmsg_reply_run(&r, buf, len + 16, 0, 0), -EBADMSG);
	/* bytes after the last message, too few for a header */
	T_EXPECT_EQ(tbctl_nlmsg_reply_run(&r, buf, len + 4, 0, 0), -EBADMSG);
	/* a whole NLMSG_DONE ends it */
	nlh->nlmsg_len = NLMSG_HDRLEN + 4;
	memset(&r, 0, sizeof(r));
	T_EXPECT_EQ(tbctl_nlmsg_reply_run(&r, buf, len + NLMSG_HDRLEN + 4, 0, 0), 1);
	T_EXPECT(r.done && !r.err);
	/* an empty datagram: more to come */
	memset(&r, 0, sizeof(r));
	T_EXPECT_EQ(tbctl_nlmsg_reply_run(&r, buf, 0, 0, 0), 0);
}

/* An uncapped error whose echoed request is longer than the message. */
static void error_echo_cannot_overrun(void)
{
	static const uint32_t echo[] = { 0x100, 0xfff0, 0x7fffffff, 0xfffffff0, 0xffffffff };
	char buf[128] __attribute__((aligned(4)));

	for (size_t i = 0; i < sizeof(echo) / sizeof(echo[0]); i++) {
		struct nlmsghdr *nlh = tbctl_nlmsg_put_header(buf, sizeof(buf), NLMSG_ERROR,
							      NLM_F_ACK_TLVS);
		struct nlmsgerr *e = tbctl_nlmsg_put_extra(nlh, sizeof(buf), sizeof(*e));
		char msg[32];

		e->error = -EPERM;
		e->msg.nlmsg_len = echo[i];
		/* not where the message would be after such an echo */
		tbctl_nla_put_strz(nlh, sizeof(buf), NLMSGERR_ATTR_MSG, "wrong");
		memset(msg, 'x', sizeof(msg));
		T_EXPECT_EQ(tbctl_nlmsg_parse_error(nlh, msg, sizeof(msg)), -EPERM);
		T_EXPECT(!strcmp(msg, ""));
	}
}

/* Groups of a family whose nests do not add up. */
static void family_groups_must_add_up(void)
{
	char buf[256] __attribute__((aligned(4)));
	struct tbctl_genl_family f;
	struct nlmsghdr *nlh;
	struct nlattr *groups, *grp;

	nlh = tbctl_genlmsg_put(buf, sizeof(buf), GENL_ID_CTRL, 0, CTRL_CMD_NEWFAMILY, 2);
	tbctl_nla_put_u16(nlh, sizeof(buf), CTRL_ATTR_FAMILY_ID, 0x21);
	groups = tbctl_nla_nest_start(nlh, sizeof(buf), CTRL_ATTR_MCAST_GROUPS);
	grp = tbctl_nla_nest_start(nlh, sizeof(buf), 1);
	tbctl_nla_put_strz(nlh, sizeof(buf), CTRL_ATTR_MCAST_GRP_NAME, "g");
	tbctl_nla_put_u32(nlh, sizeof(buf), CTRL_ATTR_MCAST_GRP_ID, 5);
	tbctl_nla_nest_end(nlh, grp);
	tbctl_nla_nest_end(nlh, groups);
	T_EXPECT_EQ(tbctl_genl_parse_family(nlh, "g", &f), 0);
	T_EXPECT(f.id == 0x21 && f.group == 5);
	T_EXPECT_EQ(tbctl_genl_parse_family(nlh, NULL, &f), 0);
	T_EXPECT(f.id == 0x21 && f.group == 0);
	/* a group that claims more than its nest holds */
	grp->nla_len += 8;
	T_EXPECT_EQ(tbctl_genl_parse_family(nlh, "g", &f), -EINVAL);
	/* a group id of the wrong size */
	grp->nla_len -= 8;
	((struct nlattr *)((char *)grp + grp->nla_len - 8))->nla_len = 6;
	T_EXPECT_EQ(tbctl_genl_parse_family(nlh, "g", &f), -EINVAL);
}

/* ------------------------------------------------------------------------ */
/* Over a socket, with this machine's kernel                                */

static int family_count(const struct nlmsghdr *nlh, void *arg)
{
	struct tbctl_genl_family f;
	int ret = tbctl_genl_parse_family(nlh, NULL, &f);

	if (ret)
		return ret;
	++*(int *)arg;
	return 0;
}

static void nlctrl_over_a_socket(void)
{
	static char buf[32768] __attribute__((aligned(8)));
	char req[64] __attribute__((aligned(4))), extack[64];
	struct tbctl_genl_family f;
	struct tbctl_nlmsg_reply r;
	struct tbctl_nlsock sk;
	struct nlmsghdr *nlh;
	uint32_t seq;
	int n = 0;

	T_ASSERT_EQ(tbctl_nlsock_open(&sk, NETLINK_GENERIC), 0);
	T_EXPECT(sk.portid != 0);
	T_EXPECT_EQ(tbctl_genl_resolve(&sk, "nlctrl", "notify", buf, sizeof(buf), &f, extack,
				       sizeof(extack)), 0);
	T_EXPECT_EQ(f.id, GENL_ID_CTRL);
	T_EXPECT(f.group != 0);
	T_EXPECT_EQ(tbctl_nlsock_join(&sk, f.group), 0);
	T_EXPECT_EQ(tbctl_genl_resolve(&sk, "tbnosuchfamily", NULL, buf, sizeof(buf), &f,
				       extack, sizeof(extack)), -ENOENT);
	T_EXPECT_EQ(tbctl_genl_resolve(&sk, "a family name longer than GENL_NAMSIZ", NULL, buf,
				       sizeof(buf), &f, extack, sizeof(extack)), -ENAMETOOLONG);

	/* every family, the controller among them, and each request its seq */
	seq = sk.seq;
	nlh = tbctl_genlmsg_put(req, sizeof(req), GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_DUMP,
				CTRL_CMD_GETFAMILY, 1);
	memset(&r, 0, sizeof(r));
	r.type = GENL_ID_CTRL;
	r.msg = family_count;
	r.arg = &n;
	T_EXPECT_EQ(tbctl_nlsock_transact(&sk, nlh, buf, sizeof(buf), &r), 0);
	T_EXPECT(r.done);
	T_EXPECT(n >= 1);
	T_EXPECT_EQ(sk.seq, seq + 1);
	printf("# %d generic netlink families\n", n);

	/* a receive buffer too small for the reply */
	nlh = tbctl_genlmsg_put(req, sizeof(req), GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK,
				CTRL_CMD_GETFAMILY, 1);
	tbctl_nla_put_strz(nlh, sizeof(req), CTRL_ATTR_FAMILY_NAME, "nlctrl");
	memset(&r, 0, sizeof(r));
	T_EXPECT_EQ(tbctl_nlsock_transact(&sk, nlh, buf, 32, &r), -ENOSPC);
	tbctl_nlsock_close(&sk);
	T_EXPECT_EQ(sk.fd, -1);
}

static const struct t_test tests[] = {
	T_TEST(builder_stays_in_its_buffer),
	T_TEST(attributes_must_add_up),
	T_TEST(message_offsets_are_checked),
	T_TEST(datagrams_must_add_up),
	T_TEST(error_echo_cannot_overrun),
	T_TEST(family_groups_must_add_up),
	T_TEST(nlctrl_over_a_socket),
};

T_MAIN(tests)
