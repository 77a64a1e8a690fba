// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf: the ioctl dispatcher.  Every copy from user space and every
 * check of what it holds is here; provider.c, manager.c and buf.c get
 * validated values and never see a __user pointer they must trust.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/compat.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "tracebuf_priv.h"

/*
 * Pin the ABI, once at build time: every field offset and every struct
 * size.  Offsets and the total size together pin each field's size too.
 */
static_assert(sizeof(struct tracebuf_pkt) == 16);
static_assert(offsetof(struct tracebuf_pkt, request) == 0);
static_assert(offsetof(struct tracebuf_pkt, data16) == 2);
static_assert(offsetof(struct tracebuf_pkt, data32) == 4);
static_assert(offsetof(struct tracebuf_pkt, data64) == 8);
static_assert(sizeof(struct tracebuf_buffer_header) == TRACEBUF_HEADER_SIZE);
static_assert(offsetof(struct tracebuf_buffer_header, magic) == 0);
static_assert(offsetof(struct tracebuf_buffer_header, version) == 8);
static_assert(offsetof(struct tracebuf_buffer_header, buffering_mode) == 10);
static_assert(offsetof(struct tracebuf_buffer_header, wrapped_count) == 12);
static_assert(offsetof(struct tracebuf_buffer_header, total_size) == 16);
static_assert(offsetof(struct tracebuf_buffer_header, durable_buffer_size) == 24);
static_assert(offsetof(struct tracebuf_buffer_header, rolling_buffer_size) == 32);
static_assert(offsetof(struct tracebuf_buffer_header, durable_data_end) == 40);
static_assert(offsetof(struct tracebuf_buffer_header, rolling_data_end) == 48);
static_assert(offsetof(struct tracebuf_buffer_header, num_records_dropped) == 64);
static_assert(offsetof(struct tracebuf_buffer_header, stop_mark) == 72);
static_assert(offsetof(struct tracebuf_buffer_header, bytes_recorded) == 80);
static_assert(offsetof(struct tracebuf_mgr_msg, provider_id) == 0);
static_assert(offsetof(struct tracebuf_mgr_msg, type) == 4);
static_assert(offsetof(struct tracebuf_mgr_msg, state) == 6);
static_assert(offsetof(struct tracebuf_mgr_msg, pkt) == 8);
static_assert(sizeof(struct tracebuf_mgr_msg) == 24);
static_assert(sizeof(struct tracebuf_version_args) == TRACEBUF_VERSION_SIZE_VER2);
static_assert(offsetof(struct tracebuf_version_args, counter_khz) == TRACEBUF_VERSION_SIZE_VER0);
static_assert(offsetof(struct tracebuf_version_args, tsc_khz) == TRACEBUF_VERSION_SIZE_VER0);
static_assert(offsetof(struct tracebuf_version_args, buffer_align) == TRACEBUF_VERSION_SIZE_VER1);
static_assert(sizeof(struct tracebuf_known_args) == TRACEBUF_KNOWN_SIZE_VER0);
static_assert(sizeof(struct tracebuf_get_known_args) == TRACEBUF_GET_KNOWN_SIZE_VER0);
static_assert(sizeof(struct tracebuf_register_args) == TRACEBUF_REGISTER_SIZE_VER0);
static_assert(sizeof(struct tracebuf_attach_args) == TRACEBUF_ATTACH_SIZE_VER0);
static_assert(sizeof(struct tracebuf_eventfd_args) == TRACEBUF_EVENTFD_SIZE_VER0);
static_assert(sizeof(struct tracebuf_config_args) == TRACEBUF_CONFIG_SIZE_VER0);
static_assert(sizeof(struct tracebuf_release_args) == TRACEBUF_RELEASE_SIZE_VER0);
static_assert(sizeof(struct tracebuf_list_args) == TRACEBUF_LIST_SIZE_VER0);
static_assert(sizeof(struct tracebuf_provider_info) == TRACEBUF_PROVIDER_INFO_SIZE_VER0);
static_assert(sizeof(struct tracebuf_initialize_args) == TRACEBUF_INITIALIZE_SIZE_VER0);
static_assert(sizeof(struct tracebuf_start_args) == TRACEBUF_START_SIZE_VER0);
static_assert(sizeof(struct tracebuf_target_args) == TRACEBUF_TARGET_SIZE_VER0);
static_assert(sizeof(struct tracebuf_mgr_send_args) == TRACEBUF_MGR_SEND_SIZE_VER0);
static_assert(sizeof(struct tracebuf_tracing_args) == TRACEBUF_TRACING_SIZE_VER1);
static_assert(offsetof(struct tracebuf_tracing_args, names_ptr) == TRACEBUF_TRACING_SIZE_VER0);

/* Provider names are checked as categories are (MGR_SET_TRACING). */
static_assert(TRACEBUF_NAME_MAX == TRACEBUF_CATEGORY_MAX);

/*
 * What INITIALIZE's buffer_size must be a multiple of, as VERSION reports
 * it: the ABI's 4096, or the page size (16 KiB, 64 KiB on some arm64
 * kernels), which the buffer's pages and mappings are made of.
 */
static inline u32 tracebuf_buffer_align(void)
{
	return max_t(u32, TRACEBUF_BUFFER_ALIGN, PAGE_SIZE);
}

/*
 * Copy in the argument of @cmd, which matched @expect by type and number.
 * The direction must match too (ENOTTY).  A caller's struct may be
 * shorter than ours down to @ver0 bytes (the rest reads as zero), or
 * longer with a zero tail (E2BIG otherwise, and above
 * TRACEBUF_ARGS_SIZE_MAX: the same on every kernel, whatever its page
 * size).
 */
static int tracebuf_args_in(unsigned int cmd, unsigned int expect, void *karg,
			    size_t ksize, size_t ver0, void __user *uarg)
{
	size_t usize = _IOC_SIZE(cmd);

	if (_IOC_DIR(cmd) != _IOC_DIR(expect))
		return -ENOTTY;
	if (usize < ver0)
		return -EINVAL;
	if (usize > TRACEBUF_ARGS_SIZE_MAX)
		return -E2BIG;
	if (!(_IOC_DIR(cmd) & _IOC_WRITE)) {
		memset(karg, 0, ksize);
		return 0;
	}
	return copy_struct_from_user(karg, ksize, uarg, usize);
}

/* Copy out as much of our struct as the caller's holds; zero the rest. */
static int tracebuf_args_out(unsigned int cmd, void __user *uarg,
			     const void *karg, size_t ksize)
{
	size_t usize = _IOC_SIZE(cmd);

	if (copy_to_user(uarg, karg, min(usize, ksize)))
		return -EFAULT;
	if (usize > ksize && clear_user(uarg + ksize, usize - ksize))
		return -EFAULT;
	return 0;
}

#define TRACEBUF_ARGS_IN(cmd, ioc, karg, uarg)					\
	tracebuf_args_in(cmd, ioc, &(karg), sizeof(karg), ioc##_SIZE, uarg)

/* Each supported command's size floor, under the command's name. */
#define TRACEBUF_IOC_VERSION_SIZE		TRACEBUF_VERSION_SIZE_VER0
#define TRACEBUF_IOC_REGISTER_SIZE		TRACEBUF_REGISTER_SIZE_VER0
#define TRACEBUF_IOC_ATTACH_SIZE		TRACEBUF_ATTACH_SIZE_VER0
#define TRACEBUF_IOC_SET_EVENTFD_SIZE		TRACEBUF_EVENTFD_SIZE_VER0
#define TRACEBUF_IOC_PROVIDER_GET_CONFIG_SIZE	TRACEBUF_CONFIG_SIZE_VER0
#define TRACEBUF_IOC_PROVIDER_SEND_SIZE		sizeof(struct tracebuf_pkt)
#define TRACEBUF_IOC_PROVIDER_RELEASE_SIZE	TRACEBUF_RELEASE_SIZE_VER0
#define TRACEBUF_IOC_PROVIDER_SET_CATEGORIES_SIZE TRACEBUF_KNOWN_SIZE_VER0
#define TRACEBUF_IOC_MGR_GET_CATEGORIES_SIZE	TRACEBUF_GET_KNOWN_SIZE_VER0
#define TRACEBUF_IOC_MGR_LIST_SIZE		TRACEBUF_LIST_SIZE_VER0
#define TRACEBUF_IOC_MGR_INITIALIZE_SIZE	TRACEBUF_INITIALIZE_SIZE_VER0
#define TRACEBUF_IOC_MGR_START_SIZE		TRACEBUF_START_SIZE_VER0
#define TRACEBUF_IOC_MGR_STOP_SIZE		TRACEBUF_TARGET_SIZE_VER0
#define TRACEBUF_IOC_MGR_TERMINATE_SIZE		TRACEBUF_TARGET_SIZE_VER0
#define TRACEBUF_IOC_MGR_SEND_SIZE		TRACEBUF_MGR_SEND_SIZE_VER0
#define TRACEBUF_IOC_MGR_SET_TRACING_SIZE	TRACEBUF_TRACING_SIZE_VER0

static const unsigned int tracebuf_ioctls[] = {
	TRACEBUF_IOC_VERSION,
	TRACEBUF_IOC_REGISTER,
	TRACEBUF_IOC_ATTACH,
	TRACEBUF_IOC_SET_EVENTFD,
	TRACEBUF_IOC_PROVIDER_GET_CONFIG,
	TRACEBUF_IOC_PROVIDER_SEND,
	TRACEBUF_IOC_PROVIDER_RELEASE,
	TRACEBUF_IOC_PROVIDER_SET_CATEGORIES,
	TRACEBUF_IOC_MGR_LIST,
	TRACEBUF_IOC_MGR_INITIALIZE,
	TRACEBUF_IOC_MGR_START,
	TRACEBUF_IOC_MGR_STOP,
	TRACEBUF_IOC_MGR_TERMINATE,
	TRACEBUF_IOC_MGR_SEND,
	TRACEBUF_IOC_MGR_GET_CATEGORIES,
	TRACEBUF_IOC_MGR_SET_TRACING,
};

static int tracebuf_ioctl_version(unsigned int cmd, void __user *uarg)
{
	struct tracebuf_version_args args;
	unsigned int i;
	int ret;

	ret = TRACEBUF_ARGS_IN(cmd, TRACEBUF_IOC_VERSION, args, uarg);
	if (ret)
		return ret;
	args.abi_major = TRACEBUF_ABI_MAJOR;
	args.abi_minor = TRACEBUF_ABI_MINOR;
	args.features = TRACEBUF_FEAT_EVENTFD | TRACEBUF_FEAT_WATCH |
			TRACEBUF_FEAT_ADDITIONAL_CATEGORIES |
			TRACEBUF_FEAT_KNOWN_CATEGORIES | TRACEBUF_FEAT_TSC_RATE |
			TRACEBUF_FEAT_GENL | TRACEBUF_FEAT_SET_TRACING |
			TRACEBUF_FEAT_TRACING_NAMES | TRACEBUF_FEAT_BUFFER_ALIGN |
			TRACEBUF_FEAT_UPDATE_CATEGORIES | TRACEBUF_FEAT_STARTED_LATE |
			TRACEBUF_FEAT_SEAL_SAVES | TRACEBUF_FEAT_SEAL_STOPS |
			TRACEBUF_FEAT_SAVE_NOW | TRACEBUF_FEAT_GONE_STATUS |
			TRACEBUF_FEAT_INFO_NAMED | tracebuf_counter_features();
	/* 32-bit callers: native on a 32-bit kernel, else through compat */
	if (IS_ENABLED(CONFIG_COMPAT) || !IS_ENABLED(CONFIG_64BIT))
		args.features |= TRACEBUF_FEAT_COMPAT;
	for (i = 0; i < ARRAY_SIZE(tracebuf_ioctls); i++)
		args.ioctls |= BIT_ULL(_IOC_NR(tracebuf_ioctls[i]));
	args.max_buffer_size = min_t(u64, READ_ONCE(tracebuf_max_buffer_size),
				     TRACEBUF_BUFFER_MAX);
	args.max_total_memory = READ_ONCE(tracebuf_max_total_memory);
	args.max_providers = READ_ONCE(tracebuf_max_providers);
	args.inbox_depth = TRACEBUF_INBOX_DEPTH;
	args.outbox_depth = TRACEBUF_OUTBOX_DEPTH;
	args.name_max = TRACEBUF_NAME_MAX;
	args.category_max = TRACEBUF_CATEGORY_MAX;
	args.categories_max = TRACEBUF_CATEGORIES_MAX;
	args.counter_khz = tracebuf_counter_khz();
	args.buffer_align = tracebuf_buffer_align();
	return tracebuf_args_out(cmd, uarg, &args, sizeof(args));
}

/* Give the file its role; EINVAL if it has one.  Publishes @obj first. */
static int tracebuf_set_role(struct tracebuf_file *tf, enum tracebuf_role role,
			     void *obj)
{
	int ret = 0;

	mutex_lock(&tracebuf_lock);
	if (tf->role != TRACEBUF_ROLE_NONE) {
		ret = -EINVAL;
	} else {
		if (role == TRACEBUF_ROLE_PROVIDER)
			tf->provider = obj;
		else
			tf->manager = obj;
		/* Pairs with smp_load_acquire() of the role: the object is
		 * visible before the role that says it is there.
		 */
		smp_store_release(&tf->role, role);
	}
	mutex_unlock(&tracebuf_lock);
	return ret;
}

static int tracebuf_ioctl_register(struct tracebuf_file *tf, unsigned int cmd,
				   void __user *uarg)
{
	struct tracebuf_register_args args;
	char name[TRACEBUF_NAME_MAX + 1];
	struct tracebuf_provider *p;
	u32 status;
	int ret;

	ret = TRACEBUF_ARGS_IN(cmd, TRACEBUF_IOC_REGISTER, args, uarg);
	if (ret)
		return ret;
	if (READ_ONCE(tf->role) != TRACEBUF_ROLE_NONE ||
	    args.flags & ~TRACEBUF_REGISTER_F_ALL || !args.name_len)
		return -EINVAL;
	if (args.name_len > TRACEBUF_NAME_MAX)
		return -ENAMETOOLONG;
	if (copy_from_user(name, u64_to_user_ptr(args.name_ptr), args.name_len))
		return -EFAULT;
	name[args.name_len] = '\0';
	if (strlen(name) != args.name_len)
		return -EINVAL;

	p = tracebuf_provider_create(name, args.flags, NULL, &status);
	if (IS_ERR(p))
		return PTR_ERR(p);
	args.id = p->id;
	args.status = status;
	ret = tracebuf_args_out(cmd, uarg, &args, sizeof(args));
	if (!ret)
		ret = tracebuf_set_role(tf, TRACEBUF_ROLE_PROVIDER, p);
	if (ret)
		tracebuf_provider_release(p);
	return ret;
}

static int tracebuf_ioctl_attach(struct tracebuf_file *tf, unsigned int cmd,
				 void __user *uarg)
{
	struct tracebuf_attach_args args;
	struct tracebuf_manager *m;
	int ret;

	ret = TRACEBUF_ARGS_IN(cmd, TRACEBUF_IOC_ATTACH, args, uarg);
	if (ret)
		return ret;
	if (READ_ONCE(tf->role) != TRACEBUF_ROLE_NONE ||
	    args.flags & ~TRACEBUF_ATTACH_F_ALL)
		return -EINVAL;
	if (!tracebuf_may_manage())
		return -EPERM;

	m = tracebuf_manager_create(args.flags);
	if (IS_ERR(m))
		return PTR_ERR(m);
	args.id = m->id;
	ret = tracebuf_args_out(cmd, uarg, &args, sizeof(args));
	if (!ret)
		ret = tracebuf_set_role(tf, TRACEBUF_ROLE_MANAGER, m);
	if (ret)
		tracebuf_manager_release(m);
	return ret;
}

static int tracebuf_ioctl_set_eventfd(struct tracebuf_file *tf,
				      enum tracebuf_role role, unsigned int cmd,
				      void __user *uarg)
{
	struct tracebuf_eventfd_args args;
	int ret;

	ret = TRACEBUF_ARGS_IN(cmd, TRACEBUF_IOC_SET_EVENTFD, args, uarg);
	if (ret)
		return ret;
	if (args.flags)
		return -EINVAL;
	if (role == TRACEBUF_ROLE_PROVIDER)
		return tracebuf_notify_set_eventfd(&tf->provider->notify, args.fd,
						   &tf->provider->in_len);
	return tracebuf_notify_set_eventfd(&tf->manager->notify, args.fd,
					   &tf->manager->inbox_len);
}

static int tracebuf_ioctl_get_config(struct tracebuf_provider *p,
				     unsigned int cmd, void __user *uarg)
{
	struct tracebuf_cats *cats, *extra;
	struct tracebuf_config_args args;
	u32 size, count;
	char __user *dst;
	int ret;

	ret = TRACEBUF_ARGS_IN(cmd, TRACEBUF_IOC_PROVIDER_GET_CONFIG, args, uarg);
	if (ret)
		return ret;
	if (args.flags & ~TRACEBUF_CONFIG_F_WENT_ON)
		return -EINVAL;

	if (args.flags & TRACEBUF_CONFIG_F_WENT_ON)
		tracebuf_provider_went_on(p);
	tracebuf_provider_get_config(p, &args, &cats, &extra);
	size = (cats ? cats->size : 0) + (extra ? extra->size : 0);
	count = (cats ? cats->count : 0) + (extra ? extra->count : 0);
	dst = u64_to_user_ptr(args.categories_ptr);
	if (args.categories_size < size) {
		ret = -ENOSPC;
	} else if ((cats && copy_to_user(dst, cats->data, cats->size)) ||
		   (extra && copy_to_user(dst + (cats ? cats->size : 0),
					  extra->data, extra->size))) {
		ret = -EFAULT;
	}
	tracebuf_cats_put(cats);
	tracebuf_cats_put(extra);
	if (ret == -EFAULT)
		return ret;

	args.categories_size = size;
	args.categories_count = count;
	if (tracebuf_args_out(cmd, uarg, &args, sizeof(args)))
		return -EFAULT;
	return ret;
}

static int tracebuf_ioctl_provider_send(struct tracebuf_provider *p,
					unsigned int cmd, void __user *uarg)
{
	struct tracebuf_pkt pkt;
	int ret;

	ret = TRACEBUF_ARGS_IN(cmd, TRACEBUF_IOC_PROVIDER_SEND, pkt, uarg);
	if (ret)
		return ret;
	return tracebuf_provider_send(p, &pkt);
}

static int tracebuf_ioctl_provider_release(struct tracebuf_provider *p,
					   unsigned int cmd, void __user *uarg)
{
	struct tracebuf_release_args args;
	int ret;

	ret = TRACEBUF_ARGS_IN(cmd, TRACEBUF_IOC_PROVIDER_RELEASE, args, uarg);
	if (ret)
		return ret;
	if (args.flags)
		return -EINVAL;
	return tracebuf_provider_release_session(p);
}

static int tracebuf_ioctl_list(struct tracebuf_manager *m, unsigned int cmd,
			       void __user *uarg)
{
	struct tracebuf_list_args args;
	int ret;

	ret = TRACEBUF_ARGS_IN(cmd, TRACEBUF_IOC_MGR_LIST, args, uarg);
	if (ret)
		return ret;
	if (args.flags || args.info_size < TRACEBUF_PROVIDER_INFO_SIZE_VER0)
		return -EINVAL;
	if (args.info_size > TRACEBUF_ARGS_SIZE_MAX)
		return -E2BIG;

	ret = tracebuf_manager_list_providers(m, &args, u64_to_user_ptr(args.info_ptr));
	if (ret)
		return ret;
	return tracebuf_args_out(cmd, uarg, &args, sizeof(args));
}

/*
 * Copy in and check a category list: @count NUL-terminated strings of
 * 1..TRACEBUF_CATEGORY_MAX bytes, back to back, exactly @size bytes; with
 * @pairs, @count pairs of such a name and a description of
 * 0..TRACEBUF_DESCRIPTION_MAX bytes.  NULL (and 0) for the empty list.
 */
static struct tracebuf_cats *tracebuf_cats_from_user(u64 uptr, u32 size,
						     u32 count, bool pairs)
{
	const u32 entry_max = TRACEBUF_CATEGORY_MAX + 1 +
			      (pairs ? TRACEBUF_DESCRIPTION_MAX + 1 : 0);
	struct tracebuf_cats *cats;
	u32 off, n = 0;
	int ret;

	if (!size && !count)
		return NULL;
	if (!size || !count)
		return ERR_PTR(-EINVAL);
	if (count > TRACEBUF_CATEGORIES_MAX ||
	    size > TRACEBUF_CATEGORIES_MAX * entry_max)
		return ERR_PTR(-E2BIG);

	/* up to ~2.5 MB: a user over its cgroup's limit gets ENOMEM, no OOM kill */
	cats = kvmalloc(struct_size(cats, data, size),
			GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	if (!cats)
		return ERR_PTR(-ENOMEM);
	refcount_set(&cats->refs, 1);
	cats->size = size;
	cats->count = count;
	if (copy_from_user(cats->data, u64_to_user_ptr(uptr), size)) {
		ret = -EFAULT;
		goto out_free;
	}

	for (off = 0; off < size; n++) {
		size_t len = strnlen(cats->data + off, size - off);
		bool desc = pairs && (n & 1);

		if ((!len && !desc) || len == size - off) {	/* empty name,
								 * or no NUL
								 */
			ret = -EINVAL;
			goto out_free;
		}
		if (len > (desc ? TRACEBUF_DESCRIPTION_MAX : TRACEBUF_CATEGORY_MAX)) {
			ret = desc ? -EMSGSIZE : -ENAMETOOLONG;
			goto out_free;
		}
		off += len + 1;
	}
	if (n != (pairs ? 2 * count : count)) {
		ret = -EINVAL;
		goto out_free;
	}
	return cats;

out_free:
	kvfree(cats);
	return ERR_PTR(ret);
}

static int tracebuf_ioctl_set_categories(struct tracebuf_provider *p,
					 unsigned int cmd, void __user *uarg)
{
	struct tracebuf_known_args args;
	struct tracebuf_cats *known;
	int ret;

	ret = TRACEBUF_ARGS_IN(cmd, TRACEBUF_IOC_PROVIDER_SET_CATEGORIES, args, uarg);
	if (ret)
		return ret;
	if (args.flags || args.reserved)
		return -EINVAL;
	known = tracebuf_cats_from_user(args.categories_ptr, args.categories_size,
					args.categories_count, true);
	if (IS_ERR(known))
		return PTR_ERR(known);
	ret = tracebuf_provider_set_known(p, known);
	tracebuf_cats_put(known);
	return ret;
}

static int tracebuf_ioctl_get_categories(struct tracebuf_manager *m,
					 unsigned int cmd, void __user *uarg)
{
	struct tracebuf_get_known_args args;
	struct tracebuf_cats *known;
	u32 size;
	int ret;

	ret = TRACEBUF_ARGS_IN(cmd, TRACEBUF_IOC_MGR_GET_CATEGORIES, args, uarg);
	if (ret)
		return ret;
	if (args.flags)
		return -EINVAL;
	known = tracebuf_manager_get_known(m, args.provider_id);
	if (IS_ERR(known))
		return PTR_ERR(known);
	size = known ? known->size : 0;
	if (args.categories_size < size)
		ret = -ENOSPC;
	else if (known && copy_to_user(u64_to_user_ptr(args.categories_ptr),
				       known->data, size))
		ret = -EFAULT;
	args.categories_size = size;
	args.categories_count = known ? known->count : 0;
	tracebuf_cats_put(known);
	if (ret == -EFAULT)
		return ret;
	if (tracebuf_args_out(cmd, uarg, &args, sizeof(args)))
		return -EFAULT;
	return ret;
}

static int tracebuf_ioctl_set_tracing(struct tracebuf_manager *m,
				      unsigned int cmd, void __user *uarg)
{
	struct tracebuf_tracing_args args;
	struct tracebuf_cats *names;
	int ret;

	ret = TRACEBUF_ARGS_IN(cmd, TRACEBUF_IOC_MGR_SET_TRACING, args, uarg);
	if (ret)
		return ret;
	if (args.flags || args.tracing > 1 ||
	    (!args.tracing && (args.names_size || args.names_count)))
		return -EINVAL;
	/* provider names have the length limit of categories (asserted above) */
	names = tracebuf_cats_from_user(args.names_ptr, args.names_size,
					args.names_count, false);
	if (IS_ERR(names))
		return PTR_ERR(names);
	tracebuf_manager_set_tracing(m, args.tracing, names);
	return 0;
}

static bool tracebuf_mode_valid(u32 mode)
{
	return mode == TRACEBUF_MODE_ONESHOT ||
	       mode == TRACEBUF_MODE_CIRCULAR ||
	       mode == TRACEBUF_MODE_STREAMING;
}

static int tracebuf_ioctl_initialize(struct tracebuf_manager *m,
				     unsigned int cmd, void __user *uarg)
{
	struct tracebuf_initialize_args args;
	struct tracebuf_initialize_args __user *uargs = uarg;
	struct tracebuf_cats *cats;
	int fd, ret;
	u64 max;

	ret = TRACEBUF_ARGS_IN(cmd, TRACEBUF_IOC_MGR_INITIALIZE, args, uarg);
	if (ret)
		return ret;
	if ((args.flags & ~TRACEBUF_INIT_F_ALL) || !tracebuf_mode_valid(args.mode) ||
	    ((args.flags & TRACEBUF_INIT_F_SEAL_SAVES) &&
	     args.mode != TRACEBUF_MODE_STREAMING) ||
	    args.buffer_size < TRACEBUF_BUFFER_MIN ||
	    !IS_ALIGNED(args.buffer_size, tracebuf_buffer_align()))
		return -EINVAL;
	max = min_t(u64, READ_ONCE(tracebuf_max_buffer_size),
		    TRACEBUF_BUFFER_MAX);
	if (args.buffer_size > max)
		return -EFBIG;

	cats = tracebuf_cats_from_user(args.categories_ptr, args.categories_size,
				       args.categories_count, false);
	if (IS_ERR(cats))
		return PTR_ERR(cats);
	/*
	 * The descriptor's number goes out first, while no lock is held: a
	 * write that faults slowly (userfaultfd, FUSE) holds up nobody else.
	 */
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto out_put_cats;
	}
	if (put_user(fd, &uargs->buffer_fd)) {
		ret = -EFAULT;
		goto out_put_fd;
	}
	ret = tracebuf_manager_initialize(m, &args, cats, fd);
out_put_fd:
	if (ret)
		put_unused_fd(fd);
out_put_cats:
	tracebuf_cats_put(cats);
	return ret;
}

static int tracebuf_ioctl_start(struct tracebuf_manager *m, unsigned int cmd,
				void __user *uarg)
{
	struct tracebuf_start_args args;
	struct tracebuf_cats *extra;
	int ret;

	ret = TRACEBUF_ARGS_IN(cmd, TRACEBUF_IOC_MGR_START, args, uarg);
	if (ret)
		return ret;
	if ((args.flags & ~TRACEBUF_START_F_ALL) || args.reserved)
		return -EINVAL;
	if (args.flags & TRACEBUF_START_F_UPDATE ? args.disposition :
	    args.disposition < TRACEBUF_START_CLEAR_ENTIRE ||
	    args.disposition > TRACEBUF_START_RETAIN)
		return -EINVAL;

	extra = tracebuf_cats_from_user(args.categories_ptr, args.categories_size,
					args.categories_count, false);
	if (IS_ERR(extra))
		return PTR_ERR(extra);
	if (args.flags & TRACEBUF_START_F_UPDATE)
		ret = tracebuf_manager_update(m, args.provider_id, extra);
	else
		ret = tracebuf_manager_start(m, args.provider_id, args.disposition, extra);
	tracebuf_cats_put(extra);
	return ret;
}

static int tracebuf_ioctl_target(struct tracebuf_manager *m, unsigned int cmd,
				 unsigned int expect, void __user *uarg)
{
	struct tracebuf_target_args args;
	int ret;

	ret = tracebuf_args_in(cmd, expect, &args, sizeof(args),
			       TRACEBUF_TARGET_SIZE_VER0, uarg);
	if (ret)
		return ret;
	if (args.flags)
		return -EINVAL;
	if (expect == TRACEBUF_IOC_MGR_STOP)
		return tracebuf_manager_stop(m, args.provider_id);
	return tracebuf_manager_terminate(m, args.provider_id);
}

static int tracebuf_ioctl_mgr_send(struct tracebuf_manager *m,
				   unsigned int cmd, void __user *uarg)
{
	struct tracebuf_mgr_send_args args;
	int ret;

	ret = TRACEBUF_ARGS_IN(cmd, TRACEBUF_IOC_MGR_SEND, args, uarg);
	if (ret)
		return ret;
	if (args.flags)
		return -EINVAL;
	return tracebuf_manager_send(m, args.provider_id, &args.pkt);
}

static long tracebuf_ioctl_provider(struct tracebuf_file *tf, unsigned int cmd,
				    void __user *uarg)
{
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(TRACEBUF_IOC_PROVIDER_GET_CONFIG):
		return tracebuf_ioctl_get_config(tf->provider, cmd, uarg);
	case _IOC_NR(TRACEBUF_IOC_PROVIDER_SEND):
		return tracebuf_ioctl_provider_send(tf->provider, cmd, uarg);
	case _IOC_NR(TRACEBUF_IOC_PROVIDER_RELEASE):
		return tracebuf_ioctl_provider_release(tf->provider, cmd, uarg);
	case _IOC_NR(TRACEBUF_IOC_PROVIDER_SET_CATEGORIES):
		return tracebuf_ioctl_set_categories(tf->provider, cmd, uarg);
	}
	return -EINVAL;		/* a manager command on a provider */
}

static long tracebuf_ioctl_manager(struct tracebuf_file *tf, unsigned int cmd,
				   void __user *uarg)
{
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(TRACEBUF_IOC_MGR_LIST):
		return tracebuf_ioctl_list(tf->manager, cmd, uarg);
	case _IOC_NR(TRACEBUF_IOC_MGR_INITIALIZE):
		return tracebuf_ioctl_initialize(tf->manager, cmd, uarg);
	case _IOC_NR(TRACEBUF_IOC_MGR_START):
		return tracebuf_ioctl_start(tf->manager, cmd, uarg);
	case _IOC_NR(TRACEBUF_IOC_MGR_STOP):
		return tracebuf_ioctl_target(tf->manager, cmd,
					     TRACEBUF_IOC_MGR_STOP, uarg);
	case _IOC_NR(TRACEBUF_IOC_MGR_TERMINATE):
		return tracebuf_ioctl_target(tf->manager, cmd,
					     TRACEBUF_IOC_MGR_TERMINATE, uarg);
	case _IOC_NR(TRACEBUF_IOC_MGR_SEND):
		return tracebuf_ioctl_mgr_send(tf->manager, cmd, uarg);
	case _IOC_NR(TRACEBUF_IOC_MGR_GET_CATEGORIES):
		return tracebuf_ioctl_get_categories(tf->manager, cmd, uarg);
	case _IOC_NR(TRACEBUF_IOC_MGR_SET_TRACING):
		return tracebuf_ioctl_set_tracing(tf->manager, cmd, uarg);
	}
	return -EINVAL;		/* a provider command on a manager */
}

static bool tracebuf_ioctl_known(unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tracebuf_ioctls); i++)
		if (_IOC_NR(tracebuf_ioctls[i]) == nr)
			return true;
	return false;
}

long tracebuf_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct tracebuf_file *tf = file->private_data;
	void __user *uarg = (void __user *)arg;
	enum tracebuf_role role;

	if (_IOC_TYPE(cmd) != TRACEBUF_IOC_MAGIC || !tracebuf_ioctl_known(_IOC_NR(cmd)))
		return -ENOTTY;

	switch (_IOC_NR(cmd)) {
	case _IOC_NR(TRACEBUF_IOC_VERSION):
		return tracebuf_ioctl_version(cmd, uarg);
	case _IOC_NR(TRACEBUF_IOC_REGISTER):
		return tracebuf_ioctl_register(tf, cmd, uarg);
	case _IOC_NR(TRACEBUF_IOC_ATTACH):
		return tracebuf_ioctl_attach(tf, cmd, uarg);
	}

	role = smp_load_acquire(&tf->role);	/* see tracebuf_set_role() */
	switch (role) {
	case TRACEBUF_ROLE_PROVIDER:
		if (_IOC_NR(cmd) == _IOC_NR(TRACEBUF_IOC_SET_EVENTFD))
			return tracebuf_ioctl_set_eventfd(tf, role, cmd, uarg);
		return tracebuf_ioctl_provider(tf, cmd, uarg);
	case TRACEBUF_ROLE_MANAGER:
		if (_IOC_NR(cmd) == _IOC_NR(TRACEBUF_IOC_SET_EVENTFD))
			return tracebuf_ioctl_set_eventfd(tf, role, cmd, uarg);
		return tracebuf_ioctl_manager(tf, cmd, uarg);
	default:
		return -EINVAL;
	}
}
