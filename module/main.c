// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf: Fuchsia's tracing provider model on Linux.
 *
 * /dev/tracebuf, its file operations and the module parameters.  A file
 * takes the provider or manager role with its first role ioctl; read,
 * poll and mmap dispatch on that role.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "tracebuf_priv.h"

/* The control plane: see LOCKING in tracebuf_priv.h. */
DEFINE_MUTEX(tracebuf_lock);
DEFINE_XARRAY_ALLOC1(tracebuf_providers);
LIST_HEAD(tracebuf_managers);
struct workqueue_struct *tracebuf_wq;

unsigned long tracebuf_max_buffer_size = 64UL << 20;
module_param_named(max_buffer_size, tracebuf_max_buffer_size, ulong, 0644);
MODULE_PARM_DESC(max_buffer_size,
		 "Largest trace buffer in bytes (default 64 MiB, at most 4 GiB)");

unsigned long tracebuf_max_total_memory = 256UL << 20;
module_param_named(max_total_memory, tracebuf_max_total_memory, ulong, 0644);
MODULE_PARM_DESC(max_total_memory,
		 "Bytes all trace buffers may use together (default 256 MiB)");

unsigned int tracebuf_max_providers = 1024;
module_param_named(max_providers, tracebuf_max_providers, uint, 0644);
MODULE_PARM_DESC(max_providers, "Most providers registered at once (default 1024)");

unsigned int tracebuf_max_user_providers = 256;
module_param_named(max_user_providers, tracebuf_max_user_providers, uint, 0644);
MODULE_PARM_DESC(max_user_providers,
		 "Most providers one user may have registered at once (default 256)");

unsigned long tracebuf_max_user_memory = 128UL << 20;
module_param_named(max_user_memory, tracebuf_max_user_memory, ulong, 0644);
MODULE_PARM_DESC(max_user_memory,
		 "Bytes of buffers and category lists one user's providers may hold (default 128 MiB)");

static int tracebuf_open(struct inode *inode, struct file *file)
{
	struct tracebuf_file *tf;

	tf = kzalloc(sizeof(*tf), GFP_KERNEL_ACCOUNT);
	if (!tf)
		return -ENOMEM;
	mutex_init(&tf->read_lock);
	file->private_data = tf;
	return nonseekable_open(inode, file);
}

static int tracebuf_release(struct inode *inode, struct file *file)
{
	struct tracebuf_file *tf = file->private_data;

	switch (tf->role) {
	case TRACEBUF_ROLE_PROVIDER:
		tracebuf_provider_release(tf->provider);
		break;
	case TRACEBUF_ROLE_MANAGER:
		tracebuf_manager_release(tf->manager);
		break;
	case TRACEBUF_ROLE_NONE:
		break;
	}
	kfree(tf);
	return 0;
}

/* A descriptor of the file is closed: see tracebuf_provider_flush(). */
static int tracebuf_flush(struct file *file, fl_owner_t id)
{
	struct tracebuf_file *tf = file->private_data;

	/* see tracebuf_set_role() */
	if (smp_load_acquire(&tf->role) == TRACEBUF_ROLE_PROVIDER)
		tracebuf_provider_flush(tf->provider);
	return 0;
}

/* Is the inbox of a file with @role non-empty?  Lockless, for waiting. */
static bool tracebuf_pending(struct tracebuf_file *tf, enum tracebuf_role role)
{
	if (role == TRACEBUF_ROLE_PROVIDER)
		return READ_ONCE(tf->provider->in_len);
	return READ_ONCE(tf->manager->inbox_len);
}

/*
 * read(): whole records of the file's inbox.  Peek under tracebuf_lock,
 * copy out without it, then consume what was copied: a fault loses
 * nothing, and one reader at a time (read_lock) keeps the head in place.
 */
static ssize_t tracebuf_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	union {
		struct tracebuf_pkt pkt[TRACEBUF_READ_BATCH];
		struct tracebuf_mgr_msg msg[TRACEBUF_READ_BATCH];
	} recs;
	struct tracebuf_file *tf = file->private_data;
	/* see tracebuf_set_role() */
	enum tracebuf_role role = smp_load_acquire(&tf->role);
	struct tracebuf_notify *notify;
	unsigned int max, n;
	size_t size;
	u32 cookie;
	ssize_t ret;

	switch (role) {
	case TRACEBUF_ROLE_PROVIDER:
		size = sizeof(recs.pkt[0]);
		notify = &tf->provider->notify;
		break;
	case TRACEBUF_ROLE_MANAGER:
		size = sizeof(recs.msg[0]);
		notify = &tf->manager->notify;
		break;
	default:
		return -EINVAL;
	}
	if (count < size)
		return -EINVAL;
	max = min_t(size_t, count / size, TRACEBUF_READ_BATCH);

	if (mutex_lock_interruptible(&tf->read_lock))
		return -ERESTARTSYS;
	for (;;) {
		mutex_lock(&tracebuf_lock);
		if (role == TRACEBUF_ROLE_PROVIDER)
			n = tracebuf_provider_peek(tf->provider, &recs, max, &cookie);
		else
			n = tracebuf_manager_peek(tf->manager, &recs, max, &cookie);
		mutex_unlock(&tracebuf_lock);
		if (n)
			break;
		if (file->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			goto out_unlock;
		}
		ret = wait_event_interruptible(notify->wq,
					       tracebuf_pending(tf, role));
		if (ret)
			goto out_unlock;
	}

	if (copy_to_user(ubuf, &recs, n * size)) {
		ret = -EFAULT;
		goto out_unlock;
	}

	mutex_lock(&tracebuf_lock);
	if (role == TRACEBUF_ROLE_PROVIDER)
		tracebuf_provider_consume(tf->provider, n, cookie);
	else
		tracebuf_manager_consume_head(tf->manager, n, cookie);
	mutex_unlock(&tracebuf_lock);
	ret = n * size;
out_unlock:
	mutex_unlock(&tf->read_lock);
	return ret;
}

static __poll_t tracebuf_poll(struct file *file, poll_table *wait)
{
	struct tracebuf_file *tf = file->private_data;
	/* see tracebuf_set_role() */
	enum tracebuf_role role = smp_load_acquire(&tf->role);

	switch (role) {
	case TRACEBUF_ROLE_PROVIDER:
		poll_wait(file, &tf->provider->notify.wq, wait);
		break;
	case TRACEBUF_ROLE_MANAGER:
		poll_wait(file, &tf->manager->notify.wq, wait);
		break;
	default:
		return EPOLLERR;
	}
	return tracebuf_pending(tf, role) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int tracebuf_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct tracebuf_file *tf = file->private_data;

	/* see tracebuf_set_role() */
	if (smp_load_acquire(&tf->role) != TRACEBUF_ROLE_PROVIDER)
		return -EINVAL;
	return tracebuf_provider_mmap(tf->provider, vma);
}

static const struct file_operations tracebuf_fops = {
	.owner = THIS_MODULE,
	.open = tracebuf_open,
	.flush = tracebuf_flush,
	.release = tracebuf_release,
	.read = tracebuf_read,
	.poll = tracebuf_poll,
	.mmap = tracebuf_mmap,
	.unlocked_ioctl = tracebuf_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice tracebuf_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = TRACEBUF_DEVICE_NAME,
	.fops = &tracebuf_fops,
	.mode = 0666,
};

static int __init tracebuf_init(void)
{
	int ret;

	tracebuf_wq = alloc_workqueue("tracebuf", WQ_UNBOUND, 0);
	if (!tracebuf_wq)
		return -ENOMEM;
	ret = tracebuf_genl_init();
	if (ret)
		goto out_wq;
	ret = misc_register(&tracebuf_misc);
	if (ret)
		goto out_genl;
	tracebuf_debugfs_init();
	tracebuf_kprov_init();
	return 0;

out_genl:
	tracebuf_genl_exit();
out_wq:
	destroy_workqueue(tracebuf_wq);
	return ret;
}
module_init(tracebuf_init);

/*
 * No file is open (each holds a module reference): nothing to notify;
 * the last buffers may still be being freed: wait for them.
 */
static void __exit tracebuf_exit(void)
{
	tracebuf_kprov_exit();
	tracebuf_debugfs_exit();
	misc_deregister(&tracebuf_misc);
	tracebuf_genl_exit();
	destroy_workqueue(tracebuf_wq);
}
module_exit(tracebuf_exit);

MODULE_DESCRIPTION("Fuchsia-style trace providers and managers over /dev/tracebuf");
MODULE_LICENSE("GPL");
