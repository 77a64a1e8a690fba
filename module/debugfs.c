// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf: debugging knobs, in debugfs (root only): where the search for
 * the next provider and manager id starts, so that tests can see ids wrap
 * around without 2^32 registrations; "users", the per-user shares held
 * now, so that tests can see every share given back; and the kernel
 * providers' "kfill_stall_us" and "kfull_found" (kprovider.c), so that
 * tests can hold a CPU that filled a rolling buffer until another finds
 * it full.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>

#include "kprovider.h"
#include "tracebuf_priv.h"

static struct dentry *tracebuf_debugfs_dir;

static int tracebuf_debugfs_get(u32 *next, u64 *val)
{
	mutex_lock(&tracebuf_lock);
	*val = *next;
	mutex_unlock(&tracebuf_lock);
	return 0;
}

static int tracebuf_debugfs_set(u32 *next, u64 val)
{
	if (!val || val > U32_MAX)
		return -EINVAL;
	mutex_lock(&tracebuf_lock);
	*next = (u32)val;
	mutex_unlock(&tracebuf_lock);
	return 0;
}

static int tracebuf_next_provider_get(void *data, u64 *val)
{
	return tracebuf_debugfs_get(&tracebuf_next_provider_id, val);
}

static int tracebuf_next_provider_set(void *data, u64 val)
{
	return tracebuf_debugfs_set(&tracebuf_next_provider_id, val);
}

static int tracebuf_next_manager_get(void *data, u64 *val)
{
	return tracebuf_debugfs_get(&tracebuf_next_manager_id, val);
}

static int tracebuf_next_manager_set(void *data, u64 val)
{
	return tracebuf_debugfs_set(&tracebuf_next_manager_id, val);
}

DEFINE_DEBUGFS_ATTRIBUTE(tracebuf_next_provider_fops, tracebuf_next_provider_get,
			 tracebuf_next_provider_set, "%llu\n");
DEFINE_DEBUGFS_ATTRIBUTE(tracebuf_next_manager_fops, tracebuf_next_manager_get,
			 tracebuf_next_manager_set, "%llu\n");

static int tracebuf_users_debugfs_show(struct seq_file *m, void *unused)
{
	tracebuf_users_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tracebuf_users_debugfs);

/* Nothing depends on it: a failure only leaves the knobs out. */
void tracebuf_debugfs_init(void)
{
	tracebuf_debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file_unsafe("next_provider_id", 0600, tracebuf_debugfs_dir, NULL,
				   &tracebuf_next_provider_fops);
	debugfs_create_file_unsafe("next_manager_id", 0600, tracebuf_debugfs_dir, NULL,
				   &tracebuf_next_manager_fops);
	debugfs_create_file("users", 0400, tracebuf_debugfs_dir, NULL,
			    &tracebuf_users_debugfs_fops);
	debugfs_create_u32("kfill_stall_us", 0600, tracebuf_debugfs_dir,
			   &tracebuf_kfill_stall_us);
	debugfs_create_atomic_t("kfull_found", 0400, tracebuf_debugfs_dir,
				&tracebuf_kfull_found);
}

void tracebuf_debugfs_exit(void)
{
	debugfs_remove(tracebuf_debugfs_dir);
}
