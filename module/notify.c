// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf: telling a side that its inbox is not empty, through its wait
 * queue (poll, blocking read) and the eventfd it registered.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/eventfd.h>
#include <linux/lockdep.h>
#include <linux/poll.h>

#include "compat.h"
#include "tracebuf_priv.h"

void tracebuf_notify_init(struct tracebuf_notify *n)
{
	init_waitqueue_head(&n->wq);
	n->eventfd = NULL;
}

/* Called once per message queued; the eventfd counts messages. */
void tracebuf_notify_signal(struct tracebuf_notify *n)
{
	lockdep_assert_held(&tracebuf_lock);

	wake_up_interruptible_poll(&n->wq, EPOLLIN | EPOLLRDNORM);
	if (n->eventfd)
		tracebuf_eventfd_signal(n->eventfd);
}

/*
 * fd -1 unregisters; any other fd must be an eventfd and replaces the old.
 * @queued ([L]) counts the messages already waiting: a new eventfd is
 * signalled once for them, or a side that binds it after its first
 * message was queued (a provider right after REGISTER) would never learn
 * of that message.
 */
int tracebuf_notify_set_eventfd(struct tracebuf_notify *n, int fd,
				const unsigned int *queued)
{
	struct eventfd_ctx *ctx = NULL, *old;

	if (fd != -1) {
		if (fd < 0)
			return -EBADF;
		ctx = eventfd_ctx_fdget(fd);
		if (IS_ERR(ctx))
			return PTR_ERR(ctx);
	}

	mutex_lock(&tracebuf_lock);
	old = n->eventfd;
	n->eventfd = ctx;
	if (ctx && *queued)
		tracebuf_eventfd_signal(ctx);
	mutex_unlock(&tracebuf_lock);

	if (old)
		eventfd_ctx_put(old);
	return 0;
}

/* The owner is going away: drop the eventfd reference. */
void tracebuf_notify_release(struct tracebuf_notify *n)
{
	struct eventfd_ctx *old;

	mutex_lock(&tracebuf_lock);
	old = n->eventfd;
	n->eventfd = NULL;
	mutex_unlock(&tracebuf_lock);

	if (old)
		eventfd_ctx_put(old);
}
