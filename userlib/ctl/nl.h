/* SPDX-License-Identifier: MIT */
/*
 * tracebufctl over generic netlink (nl.c): the "tracebuf" family
 * of uapi/linux/tracebuf.h ("Generic netlink").  One socket per command:
 *
 *	struct tbctl_nl *nl;
 *	tbctl_nl_open(&nl);			// resolves the family
 *	n = tbctl_nl_provider_dump(nl, &p);	// free(p)
 *	tbctl_nl_close(nl);
 *
 * Every function returns 0 (or a count) or -errno; after an error the
 * kernel answered, tbctl_nl_extack() has its extended ack message.
 * Replies are parsed leniently where the ABI allows growth (unknown
 * attributes and commands are skipped) and strictly where it does not
 * (a known attribute of the wrong size is -EINVAL).
 *
 * Only this file's implementation (nl.c) speaks netlink, through the
 * helper of nlmsg.h: the commands see struct tbctl_provider, and the tests
 * link a fake (tests/fake_nl.c).
 */
#ifndef TBCTL_NL_H
#define TBCTL_NL_H

#include <stddef.h>
#include <stdint.h>

#include "tracebufctl.h"

struct nlmsghdr;
struct tbctl_nl;

/*
 * tbctl_nl_open() - a generic netlink socket (extended acks on), with the
 * family and its "events" group resolved.
 * Return: 0 and *out; -ENOENT when the family does not exist (no module,
 * or one older than TRACEBUF_FEAT_GENL); other -errno.
 */
int tbctl_nl_open(struct tbctl_nl **out);
void tbctl_nl_close(struct tbctl_nl *nl);

/* The extended ack message of the last error ("" if none). */
const char *tbctl_nl_extack(const struct tbctl_nl *nl);

/*
 * tbctl_nl_provider_get() - provider id, as the caller's pid namespace
 * sees it.  Return: 0, -ENOENT (no such provider), -EPERM, other -errno.
 */
int tbctl_nl_provider_get(struct tbctl_nl *nl, uint32_t id, struct tbctl_provider *out);

/*
 * tbctl_nl_provider_dump() - every provider the caller can see, by id.
 * Return: the count and a malloc'd array in *out (NULL when 0), or -errno.
 */
int tbctl_nl_provider_dump(struct tbctl_nl *nl, struct tbctl_provider **out);

/*
 * tbctl_nl_events_join() - join the "events" group.
 * Return: 0, -EPERM without CAP_SYS_ADMIN, -EOPNOTSUPP if the family has
 * no such group, other -errno.
 */
int tbctl_nl_events_join(struct tbctl_nl *nl);

/* The socket, to poll() for POLLIN. */
int tbctl_nl_fd(const struct tbctl_nl *nl);

/*
 * One PROVIDER_NEW, _CHANGE or _DEL event.  Return 0 to go on, -errno to
 * stop (tbctl_nl_events_read() returns it).
 */
typedef int (*tbctl_nl_event_cb)(uint8_t cmd, const struct tbctl_provider *p, void *arg);

/*
 * tbctl_nl_events_read() - read one datagram (blocks if none is waiting)
 * and call cb for each event in it; other messages are skipped.
 * Return: 0; -ENOBUFS when events were lost (the socket overran: go on
 * reading); -EINTR; other -errno.
 */
int tbctl_nl_events_read(struct tbctl_nl *nl, tbctl_nl_event_cb cb, void *arg);

/* ------------------------------------------------------------------------ */
/* The parser, apart from any socket (for the tests)                        */

/*
 * tbctl_nl_parse_provider() - a message of the family (genetlink header
 * and TRACEBUF_A_* attributes) into *cmd and *p.  Unknown attributes are
 * ignored; a known one of the wrong type or size, or a message without
 * TRACEBUF_A_ID, is -EINVAL.  A name longer than TRACEBUF_NAME_MAX is cut.
 * (Replies, errors and the family are parsed in nlmsg.c.)
 */
int tbctl_nl_parse_provider(const struct nlmsghdr *nlh, uint8_t *cmd,
			    struct tbctl_provider *p);

#endif /* TBCTL_NL_H */
