// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf: per-user shares.  /dev/tracebuf is open to every user, so
 * what one user's providers hold is bounded per user (the keyring's
 * model): at most max_user_providers providers registered at once, and
 * at most max_user_memory bytes of trace buffers and published category
 * lists.  A provider registered by a task with CAP_SYS_RESOURCE is
 * counted but not limited.  Going over either is EDQUOT, for the
 * provider (REGISTER, PROVIDER_SET_CATEGORIES) or for the manager that
 * asked for its buffer (INITIALIZE).
 *
 * A buffer stays charged to its provider's user until it is freed, which
 * is when the last mapping or handle goes: a user who keeps old
 * mappings uses up its own share, and only its own (the module-wide
 * max_total_memory counts a buffer only while it is its provider's).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uidgid.h>
#include <linux/xarray.h>

#include "tracebuf_priv.h"

/* [tracebuf_users_lock] by uid in the initial user namespace */
static DEFINE_XARRAY(tracebuf_users);
static DEFINE_MUTEX(tracebuf_users_lock);

/* The share of the caller's user, referenced; ERR_PTR(-ENOMEM). */
struct tracebuf_user *tracebuf_user_get_current(void)
{
	kuid_t uid = current_euid();
	struct tracebuf_user *u;
	int ret;

	mutex_lock(&tracebuf_users_lock);
	u = xa_load(&tracebuf_users, __kuid_val(uid));
	if (u) {
		refcount_inc(&u->refs);
		goto out_unlock;
	}
	u = kzalloc(sizeof(*u), GFP_KERNEL_ACCOUNT);
	if (!u) {
		u = ERR_PTR(-ENOMEM);
		goto out_unlock;
	}
	u->uid = uid;
	refcount_set(&u->refs, 1);
	atomic64_set(&u->mem, 0);
	ret = xa_insert(&tracebuf_users, __kuid_val(uid), u, GFP_KERNEL_ACCOUNT);
	if (ret) {
		kfree(u);
		u = ERR_PTR(ret);
	}
out_unlock:
	mutex_unlock(&tracebuf_users_lock);
	return u;
}

void tracebuf_user_get(struct tracebuf_user *u)
{
	refcount_inc(&u->refs);
}

/* May be called with tracebuf_lock held (the order is that lock first). */
void tracebuf_user_put(struct tracebuf_user *u)
{
	if (!u || !refcount_dec_and_mutex_lock(&u->refs, &tracebuf_users_lock))
		return;
	xa_erase(&tracebuf_users, __kuid_val(u->uid));
	mutex_unlock(&tracebuf_users_lock);
	kfree(u);
}

/*
 * Charge @bytes to @u: EDQUOT when that would go over max_user_memory,
 * unless @unlimited.
 */
int tracebuf_user_charge(struct tracebuf_user *u, u64 bytes, bool unlimited)
{
	u64 limit = READ_ONCE(tracebuf_max_user_memory);

	if (atomic64_add_return(bytes, &u->mem) > limit && !unlimited) {
		atomic64_sub(bytes, &u->mem);
		return -EDQUOT;
	}
	return 0;
}

void tracebuf_user_uncharge(struct tracebuf_user *u, u64 bytes)
{
	atomic64_sub(bytes, &u->mem);
}

/*
 * debugfs "users": one line per user holding a share.  A user whose last
 * provider, buffer and handle are gone has no line: the stress tests
 * check that an idle module shows none.
 */
void tracebuf_users_show(struct seq_file *m)
{
	struct tracebuf_user *u;
	unsigned long uid;

	mutex_lock(&tracebuf_lock);
	mutex_lock(&tracebuf_users_lock);
	xa_for_each(&tracebuf_users, uid, u)
		seq_printf(m, "uid %u providers %u memory %lld refs %u\n",
			   __kuid_val(u->uid), u->providers,
			   (long long)atomic64_read(&u->mem),
			   refcount_read(&u->refs));
	mutex_unlock(&tracebuf_users_lock);
	mutex_unlock(&tracebuf_lock);
}
