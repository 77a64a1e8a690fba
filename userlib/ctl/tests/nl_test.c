// SPDX-License-Identifier: MIT
/*
 * The generic netlink parsers of nl.c and nlmsg.c, fed messages built
 * here with nlmsg.c as the kernel would send them (no socket, no module): a
 * provider's attributes (known ones checked, unknown ones skipped), the
 * family and its "events" group, error messages with and without their
 * extended ack, and whole replies (dumps over several datagrams, acks,
 * errors, foreign messages).
 */
#include "ktap.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "../nl.h"
#include "../nlmsg.h"

#define FAMILY	0x1a	/* a family id, as the controller would give it */

/*
 * Messages back to back, as one datagram; the one being built is at
 * s->len and has ROOM(s) bytes.
 */
struct stream {
	char buf[16384] __attribute__((aligned(8)));
	size_t len;
};

#define ROOM(s)		(sizeof((s)->buf) - (s)->len)

static struct nlmsghdr *msg_put(struct stream *s, uint16_t type, uint16_t flags, uint32_t seq)
{
	struct nlmsghdr *nlh = tbctl_nlmsg_put_header(s->buf + s->len, ROOM(s), type, flags);

	nlh->nlmsg_seq = seq;
	return nlh;
}

static void msg_end(struct stream *s, const struct nlmsghdr *nlh)
{
	s->len += NLMSG_ALIGN(nlh->nlmsg_len);
}

static struct nlmsghdr *genl_put(struct stream *s, uint16_t type, uint16_t flags,
				 uint32_t seq, uint8_t cmd)
{
	struct nlmsghdr *nlh = tbctl_genlmsg_put(s->buf + s->len, ROOM(s), type, flags, cmd,
						 TRACEBUF_GENL_VERSION);

	nlh->nlmsg_seq = seq;
	return nlh;
}

/* One attribute of a test message: a string (len bytes of s) or a number. */
struct attr {
	uint16_t type;
	uint16_t len;
	uint64_t v;
	const char *s;
};

#define U32(t, x)	{ (t), 4, (x), NULL }
#define U64(t, x)	{ (t), 8, (x), NULL }
#define STR(t, x)	{ (t), sizeof(x), 0, (x) }

static void attrs_put(struct stream *s, struct nlmsghdr *nlh, const struct attr *a)
{
	for (; a->type; a++)
		tbctl_nla_put(nlh, ROOM(s), a->type, a->len,
			      a->s ? (const void *)a->s : (const void *)&a->v);
}

/* A provider message of the family with the attributes in a. */
static struct nlmsghdr *provider_put(struct stream *s, uint16_t flags, uint32_t seq,
				     uint8_t cmd, const struct attr *a)
{
	struct nlmsghdr *nlh = genl_put(s, FAMILY, flags, seq, cmd);

	attrs_put(s, nlh, a);
	msg_end(s, nlh);
	return nlh;
}

static const char long_name[] =
	"0123456789012345678901234567890123456789012345678901234567890123456789"
	"0123456789012345678901234567890123456789012345678901234567890123456789";

static void parse_provider(void)
{
	static const struct {
		const char *what;
		struct attr a[16];
		int ret;
		/* expected when ret is 0 */
		uint32_t id, pid, state, manager, mode;
		uint64_t size, sent, received, saves, dropped;
		bool has_counters, has_dropped;
		const char *name;
	} cases[] = {
		{ "every attribute",
		  { U32(TRACEBUF_A_ID, 7), U32(TRACEBUF_A_PID, 42), STR(TRACEBUF_A_NAME, "app"),
		    U32(TRACEBUF_A_STATE, TRACEBUF_STATE_STARTED), U32(TRACEBUF_A_MANAGER_ID, 3),
		    { TRACEBUF_A_PAD, 0, 0, NULL },
		    U64(TRACEBUF_A_PACKETS_SENT, 10), U64(TRACEBUF_A_PACKETS_RECEIVED, 11),
		    U64(TRACEBUF_A_SAVES, 2), U32(TRACEBUF_A_MODE, TRACEBUF_MODE_STREAMING),
		    U64(TRACEBUF_A_BUFFER_SIZE, 1 << 20), U64(TRACEBUF_A_RECORDS_DROPPED, 9) },
		  0, 7, 42, TRACEBUF_STATE_STARTED, 3, TRACEBUF_MODE_STREAMING, 1 << 20, 10, 11,
		  2, 9, true, true, "app" },
		{ "no buffer",
		  { U32(TRACEBUF_A_ID, 1), U32(TRACEBUF_A_PID, 5), STR(TRACEBUF_A_NAME, "db"),
		    U32(TRACEBUF_A_STATE, TRACEBUF_STATE_REGISTERED),
		    U32(TRACEBUF_A_MANAGER_ID, 0), U64(TRACEBUF_A_PACKETS_SENT, 0),
		    U64(TRACEBUF_A_PACKETS_RECEIVED, 0), U64(TRACEBUF_A_SAVES, 0) },
		  0, 1, 5, TRACEBUF_STATE_REGISTERED, 0, 0, 0, 0, 0, 0, 0, true, false, "db" },
		{ "only the id",
		  { U32(TRACEBUF_A_ID, 9) },
		  0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, false, "" },
		{ "unknown attributes are skipped",
		  { U32(TRACEBUF_A_MAX + 1, 0xffffffff), U32(TRACEBUF_A_ID, 4),
		    { TRACEBUF_A_MAX + 2, 3, 0x010203, NULL }, { 200, 0, 0, NULL },
		    { NLA_F_NESTED | (TRACEBUF_A_MAX + 3), 0, 0, NULL },
		    STR(TRACEBUF_A_NAME, "x") },
		  0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, false, "x" },
		{ "empty name",
		  { U32(TRACEBUF_A_ID, 2), STR(TRACEBUF_A_NAME, "") },
		  0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, false, "" },
		{ "too long a name is cut",
		  { U32(TRACEBUF_A_ID, 2), STR(TRACEBUF_A_NAME, long_name) },
		  0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, false, NULL },
		{ "a PAD of any size",
		  { { TRACEBUF_A_PAD, 3, 0, NULL }, U32(TRACEBUF_A_ID, 3) },
		  0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, false, "" },
		{ .what = "no id",
		  .a = { U32(TRACEBUF_A_PID, 5), STR(TRACEBUF_A_NAME, "x") }, .ret = -EINVAL },
		{ .what = "no attributes", .a = { { 0 } }, .ret = -EINVAL },
		{ .what = "short id", .a = { { TRACEBUF_A_ID, 2, 1, NULL } }, .ret = -EINVAL },
		{ .what = "long state",
		  .a = { U32(TRACEBUF_A_ID, 1), U64(TRACEBUF_A_STATE, 1) }, .ret = -EINVAL },
		{ .what = "short counter",
		  .a = { U32(TRACEBUF_A_ID, 1), U32(TRACEBUF_A_PACKETS_SENT, 1) }, .ret = -EINVAL },
		{ .what = "short buffer size",
		  .a = { U32(TRACEBUF_A_ID, 1), U32(TRACEBUF_A_BUFFER_SIZE, 1) }, .ret = -EINVAL },
		{ .what = "name without its NUL",
		  .a = { U32(TRACEBUF_A_ID, 1), { TRACEBUF_A_NAME, 3, 0, "abc" } }, .ret = -EINVAL },
		{ .what = "empty name attribute",
		  .a = { U32(TRACEBUF_A_ID, 1), { TRACEBUF_A_NAME, 0, 0, "" } }, .ret = -EINVAL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		static struct stream s;
		struct tbctl_provider p;
		const struct nlmsghdr *nlh;
		uint8_t cmd = 0xcc;
		int ret;

		memset(&s, 0, sizeof(s));
		memset(&p, 0xcc, sizeof(p));
		nlh = provider_put(&s, 0, 0, TRACEBUF_CMD_PROVIDER_GET, cases[i].a);
		ret = tbctl_nl_parse_provider(nlh, &cmd, &p);
		if (ret != cases[i].ret) {
			T_FAIL("%s: returned %d, expected %d", cases[i].what, ret, cases[i].ret);
			continue;
		}
		if (ret)
			continue;
		if (cmd != TRACEBUF_CMD_PROVIDER_GET || p.id != cases[i].id ||
		    p.pid != cases[i].pid || p.state != cases[i].state ||
		    p.manager_id != cases[i].manager || p.mode != cases[i].mode ||
		    p.buffer_size != cases[i].size || p.packets_sent != cases[i].sent ||
		    p.packets_received != cases[i].received || p.saves != cases[i].saves ||
		    p.records_dropped != cases[i].dropped ||
		    p.has_counters != cases[i].has_counters ||
		    p.has_dropped != cases[i].has_dropped || p.mine)
			T_FAIL("%s: cmd %u id %u pid %u state %u manager %u mode %u size %llu "
			       "sent %llu received %llu saves %llu dropped %llu (%d %d)",
			       cases[i].what, cmd, p.id, p.pid, p.state, p.manager_id, p.mode,
			       (unsigned long long)p.buffer_size,
			       (unsigned long long)p.packets_sent,
			       (unsigned long long)p.packets_received,
			       (unsigned long long)p.saves,
			       (unsigned long long)p.records_dropped, p.has_counters,
			       p.has_dropped);
		if (cases[i].name && strcmp(p.name, cases[i].name))
			T_FAIL("%s: name '%s'", cases[i].what, p.name);
		if (!cases[i].name && (strlen(p.name) != TRACEBUF_NAME_MAX ||
				       strncmp(p.name, long_name, TRACEBUF_NAME_MAX)))
			T_FAIL("%s: name '%s'", cases[i].what, p.name);
	}
}

/* The event commands come through as they are. */
static void parse_provider_commands(void)
{
	static const struct attr a[] = { U32(TRACEBUF_A_ID, 1), { 0 } };
	static struct stream s;
	const struct nlmsghdr *nlh;
	struct tbctl_provider p;
	uint8_t cmd;

	for (uint8_t c = TRACEBUF_CMD_PROVIDER_GET; c <= TRACEBUF_CMD_MAX + 1; c++) {
		memset(&s, 0, sizeof(s));
		nlh = provider_put(&s, 0, 0, c, a);
		T_EXPECT_EQ(tbctl_nl_parse_provider(nlh, &cmd, &p), 0);
		T_EXPECT_EQ(cmd, c);
	}
	/* too short for a genetlink header */
	memset(&s, 0, sizeof(s));
	nlh = msg_put(&s, FAMILY, 0, 0);
	T_EXPECT_EQ(tbctl_nl_parse_provider(nlh, &cmd, &p), -EINVAL);
}

/* ------------------------------------------------------------------------ */

static struct nlmsghdr *family_put(struct stream *s, const char *const *groups,
				   const uint32_t *ids, size_t ngroups, bool with_id,
				   uint16_t id_len)
{
	struct nlmsghdr *nlh = genl_put(s, GENL_ID_CTRL, 0, 1, CTRL_CMD_NEWFAMILY);
	struct nlattr *nest, *grp;
	uint32_t id32 = FAMILY;
	size_t room = ROOM(s);

	if (with_id)
		tbctl_nla_put(nlh, room, CTRL_ATTR_FAMILY_ID, id_len, &id32);
	tbctl_nla_put_strz(nlh, room, CTRL_ATTR_FAMILY_NAME, TRACEBUF_GENL_NAME);
	tbctl_nla_put_u32(nlh, room, CTRL_ATTR_VERSION, TRACEBUF_GENL_VERSION);
	tbctl_nla_put_u32(nlh, room, CTRL_ATTR_HDRSIZE, 0);
	tbctl_nla_put_u32(nlh, room, CTRL_ATTR_MAXATTR, TRACEBUF_A_MAX);
	nest = tbctl_nla_nest_start(nlh, room, CTRL_ATTR_OPS);
	grp = tbctl_nla_nest_start(nlh, room, 1);
	tbctl_nla_put_u32(nlh, room, CTRL_ATTR_OP_ID, TRACEBUF_CMD_PROVIDER_GET);
	tbctl_nla_nest_end(nlh, grp);
	tbctl_nla_nest_end(nlh, nest);
	if (ngroups) {
		nest = tbctl_nla_nest_start(nlh, room, CTRL_ATTR_MCAST_GROUPS);
		for (size_t i = 0; i < ngroups; i++) {
			grp = tbctl_nla_nest_start(nlh, room, (uint16_t)(i + 1));
			tbctl_nla_put_u32(nlh, room, CTRL_ATTR_MCAST_GRP_ID, ids[i]);
			tbctl_nla_put_strz(nlh, room, CTRL_ATTR_MCAST_GRP_NAME, groups[i]);
			tbctl_nla_nest_end(nlh, grp);
		}
		tbctl_nla_nest_end(nlh, nest);
	}
	tbctl_nla_put_u32(nlh, room, 1000, 0);	/* what a newer kernel might add */
	msg_end(s, nlh);
	return nlh;
}

static void parse_family(void)
{
	static const char *const groups[] = { "other", "events", "eventsx" };
	static const uint32_t ids[] = { 5, 9, 11 };
	static struct stream s;
	struct tbctl_genl_family f;
	const struct nlmsghdr *nlh;

	memset(&s, 0, sizeof(s));
	nlh = family_put(&s, groups, ids, 3, true, 2);
	T_EXPECT_EQ(tbctl_genl_parse_family(nlh, TRACEBUF_GENL_MCGRP_EVENTS, &f), 0);
	T_EXPECT_EQ(f.id, FAMILY);
	T_EXPECT_EQ(f.version, TRACEBUF_GENL_VERSION);
	T_EXPECT_EQ(f.group, 9);

	/* no groups: no events */
	memset(&s, 0, sizeof(s));
	nlh = family_put(&s, groups, ids, 1, true, 2);
	T_EXPECT_EQ(tbctl_genl_parse_family(nlh, TRACEBUF_GENL_MCGRP_EVENTS, &f), 0);
	T_EXPECT_EQ(f.id, FAMILY);
	T_EXPECT_EQ(f.group, 0);

	memset(&s, 0, sizeof(s));
	nlh = family_put(&s, groups, ids, 0, true, 2);
	T_EXPECT_EQ(tbctl_genl_parse_family(nlh, TRACEBUF_GENL_MCGRP_EVENTS, &f), 0);
	T_EXPECT_EQ(f.group, 0);

	/* no id, or one of the wrong size */
	memset(&s, 0, sizeof(s));
	nlh = family_put(&s, groups, ids, 2, false, 2);
	T_EXPECT_EQ(tbctl_genl_parse_family(nlh, TRACEBUF_GENL_MCGRP_EVENTS, &f), -EINVAL);
	memset(&s, 0, sizeof(s));
	nlh = family_put(&s, groups, ids, 2, true, 4);
	T_EXPECT_EQ(tbctl_genl_parse_family(nlh, TRACEBUF_GENL_MCGRP_EVENTS, &f), -EINVAL);
}

/* ------------------------------------------------------------------------ */

/*
 * An NLMSG_ERROR: error, our request's header (nlmsg_len echo bytes of
 * payload echoed after it unless capped), then maybe a message.
 */
static struct nlmsghdr *error_put(struct stream *s, uint32_t seq, int error, bool capped,
				  size_t echo, const char *msg, uint16_t msg_len)
{
	uint16_t flags = (capped ? NLM_F_CAPPED : 0) | (msg ? NLM_F_ACK_TLVS : 0);
	struct nlmsghdr *nlh = msg_put(s, NLMSG_ERROR, flags, seq);
	struct nlmsgerr *e = tbctl_nlmsg_put_extra(nlh, ROOM(s), sizeof(*e));

	e->error = error;
	e->msg.nlmsg_len = (uint32_t)(sizeof(e->msg) + echo);
	e->msg.nlmsg_type = FAMILY;
	e->msg.nlmsg_seq = seq;
	if (!capped && echo)
		memset(tbctl_nlmsg_put_extra(nlh, ROOM(s), echo), 0x5a, echo);
	if (msg)
		tbctl_nla_put(nlh, ROOM(s), NLMSGERR_ATTR_MSG, msg_len, msg);
	msg_end(s, nlh);
	return nlh;
}

static struct nlmsghdr *done_put(struct stream *s, uint32_t seq, int error, const char *msg)
{
	struct nlmsghdr *nlh = msg_put(s, NLMSG_DONE, NLM_F_MULTI | (msg ? NLM_F_ACK_TLVS : 0),
				       seq);

	memcpy(tbctl_nlmsg_put_extra(nlh, ROOM(s), sizeof(error)), &error, sizeof(error));
	if (msg)
		tbctl_nla_put_strz(nlh, ROOM(s), NLMSGERR_ATTR_MSG, msg);
	msg_end(s, nlh);
	return nlh;
}

static void parse_error(void)
{
	static const struct {
		const char *what;
		int error;
		bool capped;
		size_t echo;
		const char *msg;
		uint16_t msg_len;
		const char *expect;
	} cases[] = {
		{ "ack", 0, true, 0, NULL, 0, "" },
		{ "capped, with a message", -EPERM, true, 8, "needs CAP_PERFMON", 18,
		  "needs CAP_PERFMON" },
		{ "our request echoed, then the message", -EINVAL, false, 8, "bad", 4, "bad" },
		{ "echo of an odd size", -EINVAL, false, 5, "odd", 4, "odd" },
		{ "no message", -ENOENT, true, 0, NULL, 0, "" },
		{ "a message without its NUL", -ENOENT, true, 0, "abc", 3, "" },
		{ "a positive error", EPERM, true, 0, NULL, 0, "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		static struct stream s;
		const struct nlmsghdr *nlh;
		char msg[64];
		int ret, want = cases[i].error > 0 ? -cases[i].error : cases[i].error;

		memset(&s, 0, sizeof(s));
		memset(msg, 'x', sizeof(msg));
		nlh = error_put(&s, 3, cases[i].error, cases[i].capped, cases[i].echo,
				cases[i].msg, cases[i].msg_len);
		ret = tbctl_nlmsg_parse_error(nlh, msg, sizeof(msg));
		if (ret != want || strcmp(msg, cases[i].expect))
			T_FAIL("%s: %d '%.20s', expected %d '%s'", cases[i].what, ret, msg,
			       want, cases[i].expect);
	}
}

static void parse_error_short_and_done(void)
{
	static struct stream s;
	struct nlmsghdr *nlh;
	char msg[8];

	/* too short for struct nlmsgerr */
	memset(&s, 0, sizeof(s));
	nlh = msg_put(&s, NLMSG_ERROR, 0, 1);
	tbctl_nlmsg_put_extra(nlh, ROOM(&s), 4);
	T_EXPECT_EQ(tbctl_nlmsg_parse_error(nlh, msg, sizeof(msg)), -EBADMSG);
	T_EXPECT(!strcmp(msg, ""));

	/* a dump's end, good or bad; the message is cut to fit */
	memset(&s, 0, sizeof(s));
	nlh = done_put(&s, 1, 0, NULL);
	T_EXPECT_EQ(tbctl_nlmsg_parse_error(nlh, msg, sizeof(msg)), 0);
	memset(&s, 0, sizeof(s));
	nlh = done_put(&s, 1, -ENOMEM, "no memory left");
	T_EXPECT_EQ(tbctl_nlmsg_parse_error(nlh, msg, sizeof(msg)), -ENOMEM);
	T_EXPECT(!strcmp(msg, "no memo"));
	/* a bare NLMSG_DONE */
	memset(&s, 0, sizeof(s));
	nlh = msg_put(&s, NLMSG_DONE, NLM_F_MULTI, 1);
	T_EXPECT_EQ(tbctl_nlmsg_parse_error(nlh, msg, sizeof(msg)), 0);
}

/* ------------------------------------------------------------------------ */
/* Whole replies                                                            */

struct collected {
	uint32_t ids[16];
	unsigned int n;
};

static int collect(const struct nlmsghdr *nlh, void *arg)
{
	struct collected *c = arg;
	struct tbctl_provider p;
	uint8_t cmd;
	int ret = tbctl_nl_parse_provider(nlh, &cmd, &p);

	if (ret)
		return ret;
	if (c->n < 16)
		c->ids[c->n++] = p.id;
	return 0;
}

#define SEQ	77
#define PORTID	1234

static void reply_init(struct tbctl_nlmsg_reply *r, struct collected *c)
{
	memset(r, 0, sizeof(*r));
	memset(c, 0, sizeof(*c));
	r->type = FAMILY;
	r->msg = collect;
	r->arg = c;
}

static const struct attr id1[] = { U32(TRACEBUF_A_ID, 1), STR(TRACEBUF_A_NAME, "a"), { 0 } };
static const struct attr id2[] = { U32(TRACEBUF_A_ID, 2), STR(TRACEBUF_A_NAME, "b"), { 0 } };
static const struct attr id3[] = { U32(TRACEBUF_A_ID, 3), { 0 } };
static const struct attr bad[] = { { TRACEBUF_A_ID, 2, 1, NULL }, { 0 } };

static void reply_dump(void)
{
	static struct stream s;
	struct tbctl_nlmsg_reply r;
	struct collected c;

	/* two datagrams: the first has no end */
	reply_init(&r, &c);
	memset(&s, 0, sizeof(s));
	provider_put(&s, NLM_F_MULTI, SEQ, TRACEBUF_CMD_PROVIDER_GET, id1);
	provider_put(&s, NLM_F_MULTI, SEQ, TRACEBUF_CMD_PROVIDER_GET, id2);
	T_EXPECT_EQ(tbctl_nlmsg_reply_run(&r, s.buf, s.len, SEQ, PORTID), 0);
	T_EXPECT(!r.done);
	memset(&s, 0, sizeof(s));
	provider_put(&s, NLM_F_MULTI, SEQ, TRACEBUF_CMD_PROVIDER_GET, id3);
	done_put(&s, SEQ, 0, NULL);
	T_EXPECT_EQ(tbctl_nlmsg_reply_run(&r, s.buf, s.len, SEQ, PORTID), 1);
	T_EXPECT_EQ(r.err, 0);
	T_EXPECT_EQ(c.n, 3);
	T_EXPECT(c.ids[0] == 1 && c.ids[1] == 2 && c.ids[2] == 3);

	/* empty */
	reply_init(&r, &c);
	memset(&s, 0, sizeof(s));
	done_put(&s, SEQ, 0, NULL);
	T_EXPECT_EQ(tbctl_nlmsg_reply_run(&r, s.buf, s.len, SEQ, PORTID), 1);
	T_EXPECT_EQ(r.err, 0);
	T_EXPECT_EQ(c.n, 0);

	/* cut short by an error, with its message */
	reply_init(&r, &c);
	memset(&s, 0, sizeof(s));
	provider_put(&s, NLM_F_MULTI, SEQ, TRACEBUF_CMD_PROVIDER_GET, id1);
	done_put(&s, SEQ, -EMSGSIZE, "too big");
	T_EXPECT_EQ(tbctl_nlmsg_reply_run(&r, s.buf, s.len, SEQ, PORTID), 1);
	T_EXPECT_EQ(r.err, -EMSGSIZE);
	T_EXPECT(!strcmp(r.extack, "too big"));
}

static void reply_get_and_errors(void)
{
	static struct stream s;
	struct tbctl_nlmsg_reply r;
	struct collected c;

	/* a GET: the provider, then the ack */
	reply_init(&r, &c);
	memset(&s, 0, sizeof(s));
	provider_put(&s, 0, SEQ, TRACEBUF_CMD_PROVIDER_GET, id2);
	error_put(&s, SEQ, 0, true, 0, NULL, 0);
	T_EXPECT_EQ(tbctl_nlmsg_reply_run(&r, s.buf, s.len, SEQ, PORTID), 1);
	T_EXPECT_EQ(r.err, 0);
	T_EXPECT(c.n == 1 && c.ids[0] == 2);

	/* refused, and why */
	reply_init(&r, &c);
	memset(&s, 0, sizeof(s));
	error_put(&s, SEQ, -ENOENT, true, 0, "no such provider", 17);
	T_EXPECT_EQ(tbctl_nlmsg_reply_run(&r, s.buf, s.len, SEQ, PORTID), 1);
	T_EXPECT_EQ(r.err, -ENOENT);
	T_EXPECT(!strcmp(r.extack, "no such provider"));

	/* a malformed message: read on to the end, then its error */
	reply_init(&r, &c);
	memset(&s, 0, sizeof(s));
	provider_put(&s, NLM_F_MULTI, SEQ, TRACEBUF_CMD_PROVIDER_GET, id1);
	provider_put(&s, NLM_F_MULTI, SEQ, TRACEBUF_CMD_PROVIDER_GET, bad);
	provider_put(&s, NLM_F_MULTI, SEQ, TRACEBUF_CMD_PROVIDER_GET, id3);
	done_put(&s, SEQ, 0, NULL);
	T_EXPECT_EQ(tbctl_nlmsg_reply_run(&r, s.buf, s.len, SEQ, PORTID), 1);
	T_EXPECT_EQ(r.err, -EINVAL);
	T_EXPECT_EQ(c.n, 1);

	/* messages of another type are not ours to parse */
	reply_init(&r, &c);
	memset(&s, 0, sizeof(s));
	genl_put(&s, FAMILY + 1, 0, SEQ, 1);
	msg_end(&s, (void *)s.buf);
	error_put(&s, SEQ, 0, true, 0, NULL, 0);
	T_EXPECT_EQ(tbctl_nlmsg_reply_run(&r, s.buf, s.len, SEQ, PORTID), 1);
	T_EXPECT_EQ(r.err, 0);
	T_EXPECT_EQ(c.n, 0);
}

static void reply_foreign(void)
{
	static struct stream s;
	struct tbctl_nlmsg_reply r;
	struct collected c;
	struct nlmsghdr *nlh;

	/* another request's */
	reply_init(&r, &c);
	memset(&s, 0, sizeof(s));
	provider_put(&s, 0, SEQ + 1, TRACEBUF_CMD_PROVIDER_GET, id1);
	T_EXPECT_EQ(tbctl_nlmsg_reply_run(&r, s.buf, s.len, SEQ, PORTID), -EPROTO);

	/* another socket's */
	reply_init(&r, &c);
	memset(&s, 0, sizeof(s));
	nlh = provider_put(&s, 0, SEQ, TRACEBUF_CMD_PROVIDER_GET, id1);
	nlh->nlmsg_pid = PORTID + 1;
	T_EXPECT_EQ(tbctl_nlmsg_reply_run(&r, s.buf, s.len, SEQ, PORTID), -ESRCH);
	T_EXPECT_EQ(c.n, 0);

	/* a dump the kernel says is inconsistent */
	reply_init(&r, &c);
	memset(&s, 0, sizeof(s));
	provider_put(&s, NLM_F_MULTI | NLM_F_DUMP_INTR, SEQ, TRACEBUF_CMD_PROVIDER_GET, id1);
	T_EXPECT_EQ(tbctl_nlmsg_reply_run(&r, s.buf, s.len, SEQ, PORTID), -EINTR);
}

static const struct t_test tests[] = {
	T_TEST(parse_provider),
	T_TEST(parse_provider_commands),
	T_TEST(parse_family),
	T_TEST(parse_error),
	T_TEST(parse_error_short_and_done),
	T_TEST(reply_dump),
	T_TEST(reply_get_and_errors),
	T_TEST(reply_foreign),
};

T_MAIN(tests)
