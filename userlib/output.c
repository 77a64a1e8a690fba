// SPDX-License-Identifier: MIT
/*
 * libtracebuf: where a session's results go, for session.c and readout.c
 * alike: the trace file (buffered writes; the first error sticks) and the
 * notes to the caller's notify callback.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "session.h"

void tracebuf_note(struct tracebuf_session *s, uint32_t type,
		    const struct tb_tracee *t, int error, const char *what,
		    const char *alert)
{
	struct tracebuf_session_note n = {
		.type = type, .error = error, .what = what, .alert = alert,
	};

	if (!s->cfg.notify)
		return;
	if (t) {
		n.provider_id = t->info.id;
		n.provider_name = t->info.name;
	}
	/* tracebuf_session_rotate() is refused from the callback */
	s->in_notify = true;
	s->cfg.notify(s->cfg.arg, &n);
	s->in_notify = false;
}

static int tb_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!n)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int tracebuf_out_flush(struct tb_out *o)
{
	int ret;

	if (o->err)
		return o->err;
	ret = tb_write_all(o->fd, o->buf, o->len);
	if (ret)
		o->err = ret;
	o->len = 0;
	return ret;
}

int tracebuf_out_write(struct tb_out *o, const void *buf, size_t len)
{
	if (o->err)
		return o->err;
	if (o->len + len > o->cap) {
		if (tracebuf_out_flush(o))
			return o->err;
		if (len > o->cap) {
			int ret = tb_write_all(o->fd, buf, len);

			if (ret)
				o->err = ret;
			else
				o->bytes += len;
			return ret;
		}
	}
	memcpy(o->buf + o->len, buf, len);
	o->len += len;
	o->bytes += len;
	return 0;
}
