// SPDX-License-Identifier: MIT
/*
 * A stand-in for nl.c (the generic netlink transport), linked into
 * build/tests/tracebufctl-fake with tests/fake_session.c, so that list,
 * stats and monitor can be tested end to end on a host without the
 * module.  Its behaviour comes from the environment:
 *
 *   FAKE_GENL=1        the family exists (otherwise tbctl_nl_open() says
 *                      -ENOENT, as without the module: list then falls
 *                      back to the fake manager ioctls)
 *   FAKE_GENL_ERR=N    GET and the dump fail with -N
 *   FAKE_GENL_EXTACK=S ... with S as the kernel's message
 *   FAKE_GENL_JOIN=N   joining the events group fails with -N
 *   FAKE_GENL_LOST=1   the second read of events reports -ENOBUFS
 *   FAKE_GENL_BAD=1    the first read of events finds a malformed one
 *
 * Three providers (ids 1, 2, 3; names "app", "db", "bad\nname").  The
 * events socket is an eventfd: readable until the events (a provider 5
 * "newcomer" registering, initialized by manager 4, unregistering) have
 * been read, then never, so monitor waits for its signal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "../nl.h"

struct tbctl_nl {
	int fd;			/* the eventfd */
	unsigned int reads;
	char extack[256];
};

static const struct tbctl_provider fake_providers[] = {
	{ .id = 1, .pid = 10, .state = TRACEBUF_STATE_STARTED, .mode = TRACEBUF_MODE_STREAMING,
	  .buffer_size = 1 << 20, .manager_id = 4, .has_counters = true, .has_dropped = true,
	  .packets_sent = 120, .packets_received = 7, .saves = 3, .records_dropped = 5,
	  .name = "app" },
	{ .id = 2, .pid = 20, .state = TRACEBUF_STATE_REGISTERED, .has_counters = true,
	  .name = "db" },
	{ .id = 3, .pid = 30, .state = TRACEBUF_STATE_INITIALIZED, .mode = TRACEBUF_MODE_ONESHOT,
	  .buffer_size = 65536, .manager_id = 4, .has_counters = true, .has_dropped = true,
	  .packets_received = 1, .name = "bad\nname" },
};

#define NFAKE	(sizeof(fake_providers) / sizeof(fake_providers[0]))

static int fake_env(const char *name)
{
	const char *v = getenv(name);

	return v ? atoi(v) : 0;
}

/* -FAKE_GENL_ERR, with its message, or 0 */
static int fake_err(struct tbctl_nl *nl)
{
	const char *ack = getenv("FAKE_GENL_EXTACK");

	nl->extack[0] = '\0';
	if (!fake_env("FAKE_GENL_ERR"))
		return 0;
	snprintf(nl->extack, sizeof(nl->extack), "%s", ack ? ack : "");
	return -fake_env("FAKE_GENL_ERR");
}

int tbctl_nl_open(struct tbctl_nl **out)
{
	struct tbctl_nl *nl;

	*out = NULL;
	if (!fake_env("FAKE_GENL"))
		return -ENOENT;
	nl = calloc(1, sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	nl->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE);
	if (nl->fd < 0) {
		free(nl);
		return -errno;
	}
	*out = nl;
	return 0;
}

void tbctl_nl_close(struct tbctl_nl *nl)
{
	if (!nl)
		return;
	close(nl->fd);
	free(nl);
}

const char *tbctl_nl_extack(const struct tbctl_nl *nl)
{
	return nl ? nl->extack : "";
}

int tbctl_nl_fd(const struct tbctl_nl *nl)
{
	return nl->fd;
}

int tbctl_nl_provider_get(struct tbctl_nl *nl, uint32_t id, struct tbctl_provider *out)
{
	int ret = fake_err(nl);

	if (ret)
		return ret;
	if (!id)
		return -ERANGE;
	for (size_t i = 0; i < NFAKE; i++) {
		if (fake_providers[i].id == id) {
			*out = fake_providers[i];
			return 0;
		}
	}
	snprintf(nl->extack, sizeof(nl->extack), "no such provider");
	return -ENOENT;
}

int tbctl_nl_provider_dump(struct tbctl_nl *nl, struct tbctl_provider **out)
{
	int ret = fake_err(nl);

	*out = NULL;
	if (ret)
		return ret;
	*out = malloc(sizeof(fake_providers));
	if (!*out)
		return -ENOMEM;
	memcpy(*out, fake_providers, sizeof(fake_providers));
	return (int)NFAKE;
}

int tbctl_nl_events_join(struct tbctl_nl *nl)
{
	nl->extack[0] = '\0';
	if (fake_env("FAKE_GENL_JOIN"))
		return -fake_env("FAKE_GENL_JOIN");
	/* one read for the events, one more for the overrun */
	return eventfd_write(nl->fd, fake_env("FAKE_GENL_LOST") ? 2 : 1) ? -errno : 0;
}

int tbctl_nl_events_read(struct tbctl_nl *nl, tbctl_nl_event_cb cb, void *arg)
{
	struct tbctl_provider p = {
		.id = 5, .pid = 50, .state = TRACEBUF_STATE_REGISTERED, .has_counters = true,
		.name = "newcomer",
	};
	eventfd_t v;
	int ret;

	if (eventfd_read(nl->fd, &v))
		return -errno;
	if (++nl->reads == 2)
		return -ENOBUFS;
	if (fake_env("FAKE_GENL_BAD"))
		return -EINVAL;
	ret = cb(TRACEBUF_CMD_PROVIDER_NEW, &p, arg);
	if (ret)
		return ret;
	p.state = TRACEBUF_STATE_INITIALIZED;
	p.manager_id = 4;
	p.mode = TRACEBUF_MODE_CIRCULAR;
	p.buffer_size = 65536;
	p.packets_received = 1;
	p.has_dropped = true;
	ret = cb(TRACEBUF_CMD_PROVIDER_CHANGE, &p, arg);
	if (ret)
		return ret;
	return cb(TRACEBUF_CMD_PROVIDER_DEL, &p, arg);
}
