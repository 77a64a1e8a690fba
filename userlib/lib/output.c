// SPDX-License-Identifier: MIT
/*
 * libtracebuf: where a session's results go, for session.c and readout.c
 * alike: the trace file (buffered writes; the first error sticks) and the
 * notes to the caller's notify callback.
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "session_priv.h"

void tb_note(struct tracebuf_session *s, uint32_t type,
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

/*
 * What @t's trace lacks, for its summary (info.error, if nothing was
 * kept there yet) as well as for the caller's notes.
 */
void tb_tracee_error(struct tracebuf_session *s, struct tb_tracee *t, int error,
		     const char *what)
{
	if (!t->info.error)
		t->info.error = error;
	tb_note(s, TRACEBUF_LIB_NOTE_ERROR, t, error, what, NULL);
}

/* Write all of @iov[0..@n), whatever write() takes at a time. */
static int tb_writev_all(int fd, struct iovec *iov, int n)
{
	while (n) {
		ssize_t done = writev(fd, iov, n);

		if (done < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!done)
			return -EIO;
		for (; n && (size_t)done >= iov->iov_len; iov++, n--)
			done -= (ssize_t)iov->iov_len;
		if (n) {
			iov->iov_base = (char *)iov->iov_base + done;
			iov->iov_len -= (size_t)done;
		}
	}
	return 0;
}

int tb_out_flush(struct tb_out *o)
{
	struct iovec iov = { o->buf, o->len };
	int ret;

	if (o->err)
		return o->err;
	ret = tb_writev_all(o->fd, &iov, o->len ? 1 : 0);
	if (ret)
		o->err = ret;
	o->len = 0;
	return ret;
}

/*
 * What is buffered, then the @n pieces at @iov (@len bytes, at most
 * TB_OUT_PIECES) from where they are, in one writev().
 */
static int tb_out_direct(struct tb_out *o, const struct iovec *iov, unsigned int n, size_t len)
{
	struct iovec v[1 + TB_OUT_PIECES];
	int ret;

	v[0].iov_base = o->buf;
	v[0].iov_len = o->len;
	memcpy(v + 1, iov, n * sizeof(*iov));
	ret = o->len ? tb_writev_all(o->fd, v, (int)n + 1) : tb_writev_all(o->fd, v + 1, (int)n);
	o->len = 0;
	if (ret)
		o->err = ret;
	else
		o->bytes += len;
	return ret;
}

/*
 * Buffered, but for a write of TB_OUT_DIRECT bytes or more (a save's
 * records): that one goes out from where it is, after what is buffered,
 * in one writev(), and is not copied.
 */
#define TB_OUT_DIRECT	(64u << 10)

int tb_out_write(struct tb_out *o, const void *buf, size_t len)
{
	struct iovec one = { (void *)buf, len };

	if (o->err)
		return o->err;
	if (len >= TB_OUT_DIRECT || len > o->cap)
		return tb_out_direct(o, &one, 1, len);
	if (o->len + len > o->cap && tb_out_flush(o))
		return o->err;
	memcpy(o->buf + o->len, buf, len);
	o->len += len;
	o->bytes += len;
	return 0;
}

/*
 * The @n pieces at @iov (at most TB_OUT_PIECES), in order: a save's runs
 * of records, between the padding left out of them.  Fewer than
 * TB_OUT_DIRECT bytes in all are buffered as tb_out_write()
 * buffers them; more go out from where they are, after what is
 * buffered, in one writev(), and are not copied.
 */
int tb_out_writev(struct tb_out *o, const struct iovec *iov, unsigned int n)
{
	size_t len = 0;

	if (o->err)
		return o->err;
	if (n > TB_OUT_PIECES)
		return -EINVAL;		/* a bug here */
	for (unsigned int i = 0; i < n; i++)
		len += iov[i].iov_len;
	if (len < TB_OUT_DIRECT && len <= o->cap) {
		for (unsigned int i = 0; i < n && !o->err; i++)
			tb_out_write(o, iov[i].iov_base, iov[i].iov_len);
		return o->err;
	}
	return tb_out_direct(o, iov, n, len);
}
