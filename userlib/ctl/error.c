// SPDX-License-Identifier: MIT
/*
 * tracebufctl: error reporting, one line "tracebufctl: <reason>" on
 * stderr (see tracebufctl.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nl.h"
#include "tracebufctl.h"

void tbctl_err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs(TBCTL_PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int tbctl_usage_err(const char *cmd, const char *msg)
{
	if (cmd)
		tbctl_err("%s (see '" TBCTL_PROG " %s --help')", msg, cmd);
	else
		tbctl_err("%s (see '" TBCTL_PROG " --help')", msg);
	return -EINVAL;
}

int tbctl_device_err(const struct tbctl_ctx *ctx, int err)
{
	const char *dev = ctx->device ? ctx->device : TBCTL_DEVICE;

	switch (err) {
	case -ENOENT:
	case -ENODEV:
	case -ENXIO:
		tbctl_err("cannot open %s: is the tracebuf module loaded?", dev);
		break;
	case -EPERM:
	case -EACCES:
		tbctl_err("permission denied: needs CAP_PERFMON or CAP_SYS_ADMIN (or the manager_gid group)");
		break;
	case -EPROTONOSUPPORT:
		tbctl_err("%s: the module speaks another ABI major version than this tool (%d)",
			  dev, TRACEBUF_ABI_MAJOR);
		break;
	default:
		tbctl_err("%s: %s", dev, strerror(-err));
		break;
	}
	return err;
}

int tbctl_nl_err(const struct tbctl_nl *nl, int err, const char *what)
{
	const char *ack = tbctl_nl_extack(nl);

	if (err == -ENOENT && !nl)	/* from tbctl_nl_open() */
		tbctl_err("cannot find the tracebuf generic netlink family: is the tracebuf module loaded?");
	else if (err == -EPERM || err == -EACCES)	/* the kernel's words if any */
		tbctl_err("permission denied: %s",
			  *ack ? ack : "needs CAP_PERFMON or CAP_SYS_ADMIN (or the manager_gid group)");
	else if (*ack)
		tbctl_err("%s: %s (%s)", what, strerror(-err), ack);
	else
		tbctl_err("%s: %s", what, strerror(-err));
	return err;
}
