// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf ABI: struct layout, the version query, role rules, and the
 * validation of every ioctl argument, one invalid input per test, each
 * followed by proof that the refused call changed nothing.
 */
#define _GNU_SOURCE
#include <sys/eventfd.h>
#include <sys/resource.h>

#include "tracebuf_selftests.h"

/* ------------------------------------------------------------------ */
/* Layout, fixed at build time                                        */

#define TB_SIZE(type, size) \
	_Static_assert(sizeof(struct type) == (size), #type " size")
#define TB_OFF(type, field, off) \
	_Static_assert(offsetof(struct type, field) == (off), \
		       #type "." #field " offset")

TB_SIZE(tracebuf_pkt, 16);
TB_OFF(tracebuf_pkt, request, 0);
TB_OFF(tracebuf_pkt, data16, 2);
TB_OFF(tracebuf_pkt, data32, 4);
TB_OFF(tracebuf_pkt, data64, 8);

TB_SIZE(tracebuf_buffer_header, TRACEBUF_HEADER_SIZE);
TB_OFF(tracebuf_buffer_header, magic, 0);
TB_OFF(tracebuf_buffer_header, version, 8);
TB_OFF(tracebuf_buffer_header, buffering_mode, 10);
TB_OFF(tracebuf_buffer_header, reserved1, 11);
TB_OFF(tracebuf_buffer_header, wrapped_count, 12);
TB_OFF(tracebuf_buffer_header, total_size, 16);
TB_OFF(tracebuf_buffer_header, durable_buffer_size, 24);
TB_OFF(tracebuf_buffer_header, rolling_buffer_size, 32);
TB_OFF(tracebuf_buffer_header, durable_data_end, 40);
TB_OFF(tracebuf_buffer_header, rolling_data_end, 48);
TB_OFF(tracebuf_buffer_header, num_records_dropped, 64);
TB_OFF(tracebuf_buffer_header, stop_mark, 72);
TB_OFF(tracebuf_buffer_header, bytes_recorded, 80);
TB_OFF(tracebuf_buffer_header, reserved, 88);

TB_SIZE(tracebuf_version_args, TRACEBUF_VERSION_SIZE_VER2);
TB_OFF(tracebuf_version_args, abi_major, 0);
TB_OFF(tracebuf_version_args, abi_minor, 4);
TB_OFF(tracebuf_version_args, features, 8);
TB_OFF(tracebuf_version_args, ioctls, 16);
TB_OFF(tracebuf_version_args, max_buffer_size, 24);
TB_OFF(tracebuf_version_args, max_total_memory, 32);
TB_OFF(tracebuf_version_args, max_providers, 40);
TB_OFF(tracebuf_version_args, inbox_depth, 44);
TB_OFF(tracebuf_version_args, outbox_depth, 48);
TB_OFF(tracebuf_version_args, name_max, 52);
TB_OFF(tracebuf_version_args, category_max, 56);
TB_OFF(tracebuf_version_args, categories_max, 60);
TB_OFF(tracebuf_version_args, counter_khz, TRACEBUF_VERSION_SIZE_VER0);
TB_OFF(tracebuf_version_args, tsc_khz, TRACEBUF_VERSION_SIZE_VER0);
TB_OFF(tracebuf_version_args, buffer_align, TRACEBUF_VERSION_SIZE_VER1);
TB_OFF(tracebuf_version_args, reserved, 76);
TB_SIZE(tracebuf_known_args, TRACEBUF_KNOWN_SIZE_VER0);
TB_OFF(tracebuf_known_args, categories_ptr, 0);
TB_OFF(tracebuf_known_args, categories_size, 8);
TB_OFF(tracebuf_known_args, categories_count, 12);
TB_OFF(tracebuf_known_args, flags, 16);
TB_OFF(tracebuf_known_args, reserved, 20);
TB_SIZE(tracebuf_get_known_args, TRACEBUF_GET_KNOWN_SIZE_VER0);
TB_OFF(tracebuf_get_known_args, provider_id, 0);
TB_OFF(tracebuf_get_known_args, flags, 4);
TB_OFF(tracebuf_get_known_args, categories_ptr, 8);
TB_OFF(tracebuf_get_known_args, categories_size, 16);
TB_OFF(tracebuf_get_known_args, categories_count, 20);

TB_SIZE(tracebuf_register_args, TRACEBUF_REGISTER_SIZE_VER0);
TB_OFF(tracebuf_register_args, name_ptr, 0);
TB_OFF(tracebuf_register_args, name_len, 8);
TB_OFF(tracebuf_register_args, flags, 12);
TB_OFF(tracebuf_register_args, id, 16);
TB_OFF(tracebuf_register_args, status, 20);

TB_SIZE(tracebuf_attach_args, TRACEBUF_ATTACH_SIZE_VER0);
TB_OFF(tracebuf_attach_args, flags, 0);
TB_OFF(tracebuf_attach_args, id, 4);

TB_SIZE(tracebuf_eventfd_args, TRACEBUF_EVENTFD_SIZE_VER0);
TB_OFF(tracebuf_eventfd_args, fd, 0);
TB_OFF(tracebuf_eventfd_args, flags, 4);

TB_SIZE(tracebuf_config_args, TRACEBUF_CONFIG_SIZE_VER0);
TB_OFF(tracebuf_config_args, categories_ptr, 0);
TB_OFF(tracebuf_config_args, categories_size, 8);
TB_OFF(tracebuf_config_args, categories_count, 12);
TB_OFF(tracebuf_config_args, buffer_size, 16);
TB_OFF(tracebuf_config_args, generation, 24);
TB_OFF(tracebuf_config_args, mode, 28);
TB_OFF(tracebuf_config_args, disposition, 30);
TB_OFF(tracebuf_config_args, state, 32);
TB_OFF(tracebuf_config_args, flags, 36);

TB_SIZE(tracebuf_release_args, TRACEBUF_RELEASE_SIZE_VER0);
TB_OFF(tracebuf_release_args, flags, 0);

TB_SIZE(tracebuf_list_args, TRACEBUF_LIST_SIZE_VER0);
TB_OFF(tracebuf_list_args, info_ptr, 0);
TB_OFF(tracebuf_list_args, info_size, 8);
TB_OFF(tracebuf_list_args, capacity, 12);
TB_OFF(tracebuf_list_args, start_id, 16);
TB_OFF(tracebuf_list_args, count, 20);
TB_OFF(tracebuf_list_args, total, 24);
TB_OFF(tracebuf_list_args, flags, 28);

TB_SIZE(tracebuf_provider_info, TRACEBUF_PROVIDER_INFO_SIZE_VER0);
TB_OFF(tracebuf_provider_info, id, 0);
TB_OFF(tracebuf_provider_info, pid, 4);
TB_OFF(tracebuf_provider_info, state, 8);
TB_OFF(tracebuf_provider_info, mode, 12);
TB_OFF(tracebuf_provider_info, buffer_size, 16);
TB_OFF(tracebuf_provider_info, manager_id, 24);
TB_OFF(tracebuf_provider_info, flags, 28);
TB_OFF(tracebuf_provider_info, packets_sent, 32);
TB_OFF(tracebuf_provider_info, packets_received, 40);
TB_OFF(tracebuf_provider_info, saves, 48);
TB_OFF(tracebuf_provider_info, name, 56);

TB_SIZE(tracebuf_initialize_args, TRACEBUF_INITIALIZE_SIZE_VER0);
TB_OFF(tracebuf_initialize_args, provider_id, 0);
TB_OFF(tracebuf_initialize_args, flags, 4);
TB_OFF(tracebuf_initialize_args, buffer_size, 8);
TB_OFF(tracebuf_initialize_args, categories_ptr, 16);
TB_OFF(tracebuf_initialize_args, categories_size, 24);
TB_OFF(tracebuf_initialize_args, categories_count, 28);
TB_OFF(tracebuf_initialize_args, mode, 32);
TB_OFF(tracebuf_initialize_args, buffer_fd, 36);

TB_SIZE(tracebuf_start_args, TRACEBUF_START_SIZE_VER0);
TB_OFF(tracebuf_start_args, provider_id, 0);
TB_OFF(tracebuf_start_args, disposition, 4);
TB_OFF(tracebuf_start_args, categories_ptr, 8);
TB_OFF(tracebuf_start_args, categories_size, 16);
TB_OFF(tracebuf_start_args, categories_count, 20);
TB_OFF(tracebuf_start_args, flags, 24);
TB_OFF(tracebuf_start_args, reserved, 28);

TB_SIZE(tracebuf_target_args, TRACEBUF_TARGET_SIZE_VER0);
TB_OFF(tracebuf_target_args, provider_id, 0);
TB_OFF(tracebuf_target_args, flags, 4);

TB_SIZE(tracebuf_mgr_send_args, TRACEBUF_MGR_SEND_SIZE_VER0);
TB_OFF(tracebuf_mgr_send_args, provider_id, 0);
TB_OFF(tracebuf_mgr_send_args, flags, 4);
TB_OFF(tracebuf_mgr_send_args, pkt, 8);

TB_SIZE(tracebuf_tracing_args, TRACEBUF_TRACING_SIZE_VER1);
TB_OFF(tracebuf_tracing_args, tracing, 0);
TB_OFF(tracebuf_tracing_args, flags, 4);
TB_OFF(tracebuf_tracing_args, names_ptr, TRACEBUF_TRACING_SIZE_VER0);
TB_OFF(tracebuf_tracing_args, names_size, 16);
TB_OFF(tracebuf_tracing_args, names_count, 20);

TB_SIZE(tracebuf_mgr_msg, 24);
TB_OFF(tracebuf_mgr_msg, provider_id, 0);
TB_OFF(tracebuf_mgr_msg, type, 4);
TB_OFF(tracebuf_mgr_msg, state, 6);
TB_OFF(tracebuf_mgr_msg, pkt, 8);

/* Command encoding: magic, number, direction and the VER0 size. */
#define TB_CMD(cmd, nr, dir, size)					\
	_Static_assert(_IOC_TYPE(cmd) == TRACEBUF_IOC_MAGIC &&		\
		       _IOC_NR(cmd) == (nr) && _IOC_DIR(cmd) == (dir) &&	\
		       _IOC_SIZE(cmd) == (size), #cmd " encoding")

TB_CMD(TRACEBUF_IOC_VERSION, 0x00, _IOC_READ, TRACEBUF_VERSION_SIZE_VER2);
TB_CMD(TRACEBUF_IOC_PROVIDER_SET_CATEGORIES, 0x13, _IOC_WRITE,
       TRACEBUF_KNOWN_SIZE_VER0);
TB_CMD(TRACEBUF_IOC_MGR_GET_CATEGORIES, 0x26, _IOC_READ | _IOC_WRITE,
       TRACEBUF_GET_KNOWN_SIZE_VER0);
TB_CMD(TRACEBUF_IOC_MGR_SET_TRACING, 0x27, _IOC_WRITE, TRACEBUF_TRACING_SIZE_VER1);
TB_CMD(TRACEBUF_IOC_REGISTER, 0x01, _IOC_READ | _IOC_WRITE,
       TRACEBUF_REGISTER_SIZE_VER0);
TB_CMD(TRACEBUF_IOC_ATTACH, 0x02, _IOC_READ | _IOC_WRITE,
       TRACEBUF_ATTACH_SIZE_VER0);
TB_CMD(TRACEBUF_IOC_SET_EVENTFD, 0x03, _IOC_WRITE, TRACEBUF_EVENTFD_SIZE_VER0);
TB_CMD(TRACEBUF_IOC_PROVIDER_GET_CONFIG, 0x10, _IOC_READ | _IOC_WRITE,
       TRACEBUF_CONFIG_SIZE_VER0);
TB_CMD(TRACEBUF_IOC_PROVIDER_SEND, 0x11, _IOC_WRITE, 16);
TB_CMD(TRACEBUF_IOC_PROVIDER_RELEASE, 0x12, _IOC_WRITE,
       TRACEBUF_RELEASE_SIZE_VER0);
TB_CMD(TRACEBUF_IOC_MGR_LIST, 0x20, _IOC_READ | _IOC_WRITE,
       TRACEBUF_LIST_SIZE_VER0);
TB_CMD(TRACEBUF_IOC_MGR_INITIALIZE, 0x21, _IOC_READ | _IOC_WRITE,
       TRACEBUF_INITIALIZE_SIZE_VER0);
TB_CMD(TRACEBUF_IOC_MGR_START, 0x22, _IOC_WRITE, TRACEBUF_START_SIZE_VER0);
TB_CMD(TRACEBUF_IOC_MGR_STOP, 0x23, _IOC_WRITE, TRACEBUF_TARGET_SIZE_VER0);
TB_CMD(TRACEBUF_IOC_MGR_TERMINATE, 0x24, _IOC_WRITE, TRACEBUF_TARGET_SIZE_VER0);
TB_CMD(TRACEBUF_IOC_MGR_SEND, 0x25, _IOC_WRITE, TRACEBUF_MGR_SEND_SIZE_VER0);

/* The same command with another size or direction. */
static unsigned long tb_cmd_size(unsigned long cmd, unsigned int size)
{
	return _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd), size);
}

static unsigned long tb_cmd_dir(unsigned long cmd, unsigned int dir)
{
	return _IOC(dir, _IOC_TYPE(cmd), _IOC_NR(cmd), _IOC_SIZE(cmd));
}

/* ------------------------------------------------------------------ */
/* TRACEBUF_IOC_VERSION                                               */

FIXTURE(version) {
	int fd;
	void *bad;
};

FIXTURE_SETUP(version)
{
	TB_REQUIRE_DEV();
	self->fd = tb_open();
	ASSERT_LE(0, self->fd);
	self->bad = tb_bad_page();
	ASSERT_MAPPED(self->bad);
}

FIXTURE_TEARDOWN(version)
{
	tb_close(&self->fd);
	if (self->bad && self->bad != MAP_FAILED)
		munmap(self->bad, tb_page_size());
}

static void tb_check_version(struct __test_metadata *_metadata,
			     const struct tracebuf_version_args *v)
{
	const __u64 feats = TRACEBUF_FEAT_EVENTFD | TRACEBUF_FEAT_WATCH |
			    TRACEBUF_FEAT_ADDITIONAL_CATEGORIES |
			    TRACEBUF_FEAT_KNOWN_CATEGORIES | TRACEBUF_FEAT_TSC_RATE |
			    TRACEBUF_FEAT_GENL | TRACEBUF_FEAT_SET_TRACING |
			    TRACEBUF_FEAT_TRACING_NAMES | TRACEBUF_FEAT_BUFFER_ALIGN |
			    TRACEBUF_FEAT_UPDATE_CATEGORIES | TRACEBUF_FEAT_STARTED_LATE |
			    TRACEBUF_FEAT_SEAL_SAVES | TRACEBUF_FEAT_SEAL_STOPS |
			    TRACEBUF_FEAT_SAVE_NOW | TRACEBUF_FEAT_GONE_STATUS |
			    TRACEBUF_FEAT_INFO_NAMED;
	size_t page = tb_page_size();
	long long val;

	EXPECT_EQ((__u32)TRACEBUF_ABI_MAJOR, v->abi_major);
	EXPECT_EQ((__u32)TRACEBUF_ABI_MINOR, v->abi_minor);
	EXPECT_EQ(feats, v->features & feats);
	/*
	 * A 32-bit test reaching this point was served: through compat ioctl
	 * on a 64-bit kernel, natively on a 32-bit one.
	 */
	if (sizeof(long) == 4) {
		EXPECT_EQ(TRACEBUF_FEAT_COMPAT,
			  v->features & TRACEBUF_FEAT_COMPAT);
	}
	EXPECT_EQ(TB_ALL_IOCTLS, v->ioctls & TB_ALL_IOCTLS);
	EXPECT_EQ((__u32)TRACEBUF_INBOX_DEPTH, v->inbox_depth);
	EXPECT_EQ((__u32)TRACEBUF_OUTBOX_DEPTH, v->outbox_depth);
	EXPECT_EQ((__u32)TRACEBUF_NAME_MAX, v->name_max);
	EXPECT_EQ((__u32)TRACEBUF_CATEGORY_MAX, v->category_max);
	EXPECT_EQ((__u32)TRACEBUF_CATEGORIES_MAX, v->categories_max);
	ASSERT_EQ(0, tb_param_get("max_buffer_size", &val));
	EXPECT_EQ((__u64)val, v->max_buffer_size);
	ASSERT_EQ(0, tb_param_get("max_total_memory", &val));
	EXPECT_EQ((__u64)val, v->max_total_memory);
	ASSERT_EQ(0, tb_param_get("max_providers", &val));
	EXPECT_EQ((__u32)val, v->max_providers);
	/* max(4096, page size): 16 KiB on an arm64 kernel with 16 KiB pages */
	EXPECT_EQ((__u32)(page > TRACEBUF_BUFFER_ALIGN ? page : TRACEBUF_BUFFER_ALIGN),
		  v->buffer_align);
	/* and what the other tests take for the smallest buffer */
	EXPECT_EQ((__u64)v->buffer_align, tb_buffer_min());
	EXPECT_EQ(0U, v->reserved);
#if defined(__aarch64__) || defined(__arm__)
	/*
	 * The generic timer's rate, unless an erratum makes the kernel trap
	 * user reads of the counter; then it is what the counter does.
	 */
	EXPECT_EQ(TRACEBUF_FEAT_CNTVCT, v->features & TRACEBUF_FEAT_CNTVCT);
	if (v->counter_khz) {
		double khz = tb_counter_khz();

		EXPECT_LT(khz * 0.98, (double)v->counter_khz);
		EXPECT_GT(khz * 1.02, (double)v->counter_khz);
	} else {
		TH_LOG("no counter rate: user reads of CNTVCT trap on this machine?");
	}
#else
	EXPECT_EQ(0ULL, v->features & TRACEBUF_FEAT_CNTVCT);
	/*
	 * A TSC rate only where the kernel calls the TSC invariant (it may
	 * still have marked it unstable since, and then reports none).
	 */
	if (!tb_cpu_has_invariant_tsc()) {
		EXPECT_EQ(0ULL, v->tsc_khz);
	} else if (v->tsc_khz) {
		EXPECT_LT(100000ULL, v->tsc_khz);	/* above 100 MHz */
	}
#endif
}

TEST_F(version, ver0_struct_still_works)
{
	unsigned char buf[TRACEBUF_VERSION_SIZE_VER2];
	struct tracebuf_version_args *v = (void *)buf;

	/* a caller built against ABI 1.0 passes 64 bytes: the rest untouched */
	memset(buf, TB_POISON8, sizeof(buf));
	ASSERT_EQ(0, ioctl(self->fd, tb_cmd_size(TRACEBUF_IOC_VERSION,
						 TRACEBUF_VERSION_SIZE_VER0), buf));
	EXPECT_EQ((__u32)TRACEBUF_ABI_MAJOR, v->abi_major);
	EXPECT_EQ((__u32)TRACEBUF_CATEGORIES_MAX, v->categories_max);
	EXPECT_EQ(TB_POISON64, v->tsc_khz);
	EXPECT_EQ(TB_POISON32, v->buffer_align);
}

TEST_F(version, ver1_struct_still_works)
{
	unsigned char buf[TRACEBUF_VERSION_SIZE_VER2];
	struct tracebuf_version_args *v = (void *)buf;

	/* a caller built against ABI 1.1 to 1.3 passes 72 bytes */
	memset(buf, TB_POISON8, sizeof(buf));
	ASSERT_EQ(0, ioctl(self->fd, tb_cmd_size(TRACEBUF_IOC_VERSION,
						 TRACEBUF_VERSION_SIZE_VER1), buf));
	EXPECT_EQ((__u32)TRACEBUF_CATEGORIES_MAX, v->categories_max);
	EXPECT_NE(TB_POISON64, v->counter_khz);
	EXPECT_EQ(TB_POISON32, v->buffer_align);
	EXPECT_EQ(TB_POISON32, v->reserved);
}

TEST_F(version, fields_on_file_without_role)
{
	struct tracebuf_version_args v;

	ASSERT_EQ(0, tb_version(self->fd, &v));
	tb_check_version(_metadata, &v);
}

TEST_F(version, works_on_provider_and_manager)
{
	struct tracebuf_version_args v;
	struct tb_peer p;

	tb_peer_open(_metadata, &p, "version", 0);
	ASSERT_EQ(0, tb_version(p.prov, &v));
	tb_check_version(_metadata, &v);
	ASSERT_EQ(0, tb_version(p.mgr, &v));
	tb_check_version(_metadata, &v);
	tb_peer_close(&p);
}

TEST_F(version, does_not_give_a_role)
{
	struct tracebuf_version_args v;
	__u32 id;

	ASSERT_EQ(0, tb_version(self->fd, &v));
	EXPECT_EQ(0, register_provider(self->fd, "after-version", 0, &id));
}

TEST_F(version, below_ver0_einval)
{
	char buf[TRACEBUF_VERSION_SIZE_VER0];

	memset(buf, TB_POISON8, sizeof(buf));
	EXPECT_EQ(-1, ioctl(self->fd, tb_cmd_size(TRACEBUF_IOC_VERSION,
						  TRACEBUF_VERSION_SIZE_VER0 - 4),
			    buf));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(version, larger_struct_accepted)
{
	struct {
		struct tracebuf_version_args v;
		__u64 tail[2];
	} big;

	memset(&big, 0, sizeof(big));
	big.v.abi_major = TB_POISON32;
	EXPECT_EQ(0, ioctl(self->fd, tb_cmd_size(TRACEBUF_IOC_VERSION,
						 sizeof(big)), &big));
	EXPECT_EQ((__u32)TRACEBUF_ABI_MAJOR, big.v.abi_major);
	EXPECT_EQ(TB_ALL_IOCTLS, big.v.ioctls & TB_ALL_IOCTLS);
}

TEST_F(version, wrong_direction_enotty)
{
	struct tracebuf_version_args v;

	memset(&v, 0, sizeof(v));
	EXPECT_EQ(-1, ioctl(self->fd, tb_cmd_dir(TRACEBUF_IOC_VERSION,
						 _IOC_WRITE), &v));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, tb_cmd_dir(TRACEBUF_IOC_VERSION,
						 _IOC_READ | _IOC_WRITE), &v));
	EXPECT_EQ(ENOTTY, errno);
}

TEST_F(version, bad_pointer_efault)
{
	EXPECT_EQ(-1, ioctl(self->fd, TRACEBUF_IOC_VERSION, self->bad));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, TRACEBUF_IOC_VERSION, NULL));
	EXPECT_EQ(EFAULT, errno);
}

/* ------------------------------------------------------------------ */
/* Generic rules, applied to every ioctl but VERSION                  */

enum tb_role { TB_ROLE_NONE, TB_ROLE_PROVIDER, TB_ROLE_MANAGER, TB_ROLE_ANY };

/* Beyond the provider states: STARTED with one save outstanding. */
#define TB_STAGE_SAVE		100
#define TB_SAVE_WRAPPED		0
#define TB_SAVE_DURABLE_END	16
#define TB_ARGS_MAX		128

FIXTURE(ioctl) {
	struct tb_peer p;	/* the provider is driven to variant->stage */
	int fresh;		/* a file without a role */
	int efd;
	void *bad;		/* PROT_NONE page */
	char cats[256];
	struct tracebuf_provider_info infos[4];
};

FIXTURE_VARIANT(ioctl) {
	unsigned long cmd;
	unsigned int ver0;
	enum tb_role role;
	int stage;
	/* Fills args with a call that succeeds in stage. */
	void (*build)(FIXTURE_DATA(ioctl) *self, void *args);
	/* A must-be-zero field: its top bit alone makes the call EINVAL. */
	unsigned int flag_off;
	unsigned int flag_size;
};

static void build_register(FIXTURE_DATA(ioctl) *self, void *args)
{
	struct tracebuf_register_args *a = args;

	(void)self;
	a->name_ptr = tb_ptr("abi-registered");
	a->name_len = strlen("abi-registered");
	a->id = a->status = TB_POISON32;
}

static void build_attach(FIXTURE_DATA(ioctl) *self, void *args)
{
	struct tracebuf_attach_args *a = args;

	(void)self;
	a->id = TB_POISON32;
}

static void build_eventfd(FIXTURE_DATA(ioctl) *self, void *args)
{
	struct tracebuf_eventfd_args *a = args;

	a->fd = self->efd;
}

static void build_get_config(FIXTURE_DATA(ioctl) *self, void *args)
{
	struct tracebuf_config_args *a = args;

	a->categories_ptr = tb_ptr(self->cats);
	a->categories_size = sizeof(self->cats);
}

static void build_send(FIXTURE_DATA(ioctl) *self, void *args)
{
	(void)self;
	*(struct tracebuf_pkt *)args = tb_pkt(TRACEBUF_PKT_STARTED, 0,
					      TRACEBUF_FIFO_PROTOCOL_VERSION, 0);
}

static void build_release(FIXTURE_DATA(ioctl) *self, void *args)
{
	(void)self;
	(void)args;
}

static void build_list(FIXTURE_DATA(ioctl) *self, void *args)
{
	struct tracebuf_list_args *a = args;

	a->info_ptr = tb_ptr(self->infos);
	a->info_size = sizeof(self->infos[0]);
	a->capacity = 4;
}

static void build_initialize(FIXTURE_DATA(ioctl) *self, void *args)
{
	tb_init_args(args, self->p.id, TRACEBUF_MODE_STREAMING, 64 * 1024,
		     NULL);
}

static void build_start(FIXTURE_DATA(ioctl) *self, void *args)
{
	tb_start_args(args, self->p.id, TRACEBUF_START_CLEAR_ENTIRE, NULL);
}

static void build_target(FIXTURE_DATA(ioctl) *self, void *args)
{
	((struct tracebuf_target_args *)args)->provider_id = self->p.id;
}

static void build_mgr_send(FIXTURE_DATA(ioctl) *self, void *args)
{
	struct tracebuf_mgr_send_args *a = args;

	a->provider_id = self->p.id;
	a->pkt = tb_pkt(TRACEBUF_PKT_BUFFER_SAVED, 0, TB_SAVE_WRAPPED,
			TB_SAVE_DURABLE_END);
}

#define TB_VARIANT(vname, c, r, s, b, type, field)			\
	FIXTURE_VARIANT_ADD(ioctl, vname) {				\
		.cmd = c, .ver0 = _IOC_SIZE(c), .role = r, .stage = s,	\
		.build = b,						\
		.flag_off = offsetof(struct type, field),		\
		.flag_size = sizeof(((struct type *)0)->field),		\
	}

TB_VARIANT(register, TRACEBUF_IOC_REGISTER, TB_ROLE_NONE,
	   TRACEBUF_STATE_REGISTERED, build_register, tracebuf_register_args,
	   flags);
TB_VARIANT(attach, TRACEBUF_IOC_ATTACH, TB_ROLE_NONE,
	   TRACEBUF_STATE_REGISTERED, build_attach, tracebuf_attach_args,
	   flags);
TB_VARIANT(set_eventfd, TRACEBUF_IOC_SET_EVENTFD, TB_ROLE_ANY,
	   TRACEBUF_STATE_REGISTERED, build_eventfd, tracebuf_eventfd_args,
	   flags);
TB_VARIANT(get_config, TRACEBUF_IOC_PROVIDER_GET_CONFIG, TB_ROLE_PROVIDER,
	   TRACEBUF_STATE_INITIALIZED, build_get_config,
	   tracebuf_config_args, flags);
/* A packet has no flags: STARTED's data64 must be zero. */
TB_VARIANT(provider_send, TRACEBUF_IOC_PROVIDER_SEND, TB_ROLE_PROVIDER,
	   TRACEBUF_STATE_STARTING, build_send, tracebuf_pkt, data64);
TB_VARIANT(provider_release, TRACEBUF_IOC_PROVIDER_RELEASE, TB_ROLE_PROVIDER,
	   TRACEBUF_STATE_TERMINATING, build_release, tracebuf_release_args,
	   flags);
TB_VARIANT(mgr_list, TRACEBUF_IOC_MGR_LIST, TB_ROLE_MANAGER,
	   TRACEBUF_STATE_REGISTERED, build_list, tracebuf_list_args, flags);
TB_VARIANT(mgr_initialize, TRACEBUF_IOC_MGR_INITIALIZE, TB_ROLE_MANAGER,
	   TRACEBUF_STATE_REGISTERED, build_initialize,
	   tracebuf_initialize_args, flags);
TB_VARIANT(mgr_start, TRACEBUF_IOC_MGR_START, TB_ROLE_MANAGER,
	   TRACEBUF_STATE_INITIALIZED, build_start, tracebuf_start_args,
	   flags);
TB_VARIANT(mgr_stop, TRACEBUF_IOC_MGR_STOP, TB_ROLE_MANAGER,
	   TRACEBUF_STATE_STARTING, build_target, tracebuf_target_args, flags);
TB_VARIANT(mgr_terminate, TRACEBUF_IOC_MGR_TERMINATE, TB_ROLE_MANAGER,
	   TRACEBUF_STATE_INITIALIZED, build_target, tracebuf_target_args,
	   flags);
TB_VARIANT(mgr_send, TRACEBUF_IOC_MGR_SEND, TB_ROLE_MANAGER, TB_STAGE_SAVE,
	   build_mgr_send, tracebuf_mgr_send_args, flags);

FIXTURE_SETUP(ioctl)
{
	int stage = variant->stage;

	self->fresh = self->efd = -1;
	tb_peer_init(&self->p);
	TB_REQUIRE_DEV();
	self->bad = tb_bad_page();
	ASSERT_MAPPED(self->bad);
	self->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ASSERT_LE(0, self->efd);
	self->fresh = tb_open();
	ASSERT_LE(0, self->fresh);
	tb_peer_open(_metadata, &self->p, "abi-ioctl", 0);
	tb_drive(_metadata, &self->p,
		 stage == TB_STAGE_SAVE ? TRACEBUF_STATE_STARTED : stage);
	if (stage == TB_STAGE_SAVE) {
		struct tracebuf_pkt save = tb_pkt(TRACEBUF_PKT_SAVE_BUFFER, 0,
						  TB_SAVE_WRAPPED,
						  TB_SAVE_DURABLE_END);

		ASSERT_EQ(0, provider_send_pkt(self->p.prov, &save));
		tb_next_msg_pkt(_metadata, self->p.mgr, self->p.id,
				TRACEBUF_STATE_STARTED, &save);
	}
}

FIXTURE_TEARDOWN(ioctl)
{
	tb_peer_close(&self->p);
	tb_close(&self->fresh);
	tb_close(&self->efd);
	if (self->bad && self->bad != MAP_FAILED)
		munmap(self->bad, tb_page_size());
}

/* The file the command is meant for. */
static int tb_role_fd(FIXTURE_DATA(ioctl) *self,
		      const FIXTURE_VARIANT(ioctl) *variant)
{
	switch (variant->role) {
	case TB_ROLE_NONE:
		return self->fresh;
	case TB_ROLE_MANAGER:
		return self->p.mgr;
	default:
		return self->p.prov;
	}
}

/* The valid call: 0 or -errno. */
static int tb_valid_call(FIXTURE_DATA(ioctl) *self,
			 const FIXTURE_VARIANT(ioctl) *variant)
{
	char args[TB_ARGS_MAX];

	memset(args, 0, sizeof(args));
	variant->build(self, args);
	return tb_ioctl(tb_role_fd(self, variant), variant->cmd, args);
}

/* After a refusal the same valid call still succeeds. */
#define EXPECT_STILL_VALID() EXPECT_EQ(0, tb_valid_call(self, variant))

TEST_F(ioctl, valid_call_succeeds)
{
	EXPECT_STILL_VALID();
}

TEST_F(ioctl, below_ver0_einval)
{
	char args[TB_ARGS_MAX];

	memset(args, 0, sizeof(args));
	variant->build(self, args);
	EXPECT_EQ(-1, ioctl(tb_role_fd(self, variant),
			    tb_cmd_size(variant->cmd, variant->ver0 - 4), args));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_STILL_VALID();
}

TEST_F(ioctl, larger_zero_tail_accepted)
{
	char args[TB_ARGS_MAX];

	memset(args, 0, sizeof(args));
	variant->build(self, args);
	EXPECT_EQ(0, ioctl(tb_role_fd(self, variant),
			   tb_cmd_size(variant->cmd, variant->ver0 + 16), args))
		TH_LOG("errno %d", errno);
}

TEST_F(ioctl, larger_nonzero_tail_e2big)
{
	char args[TB_ARGS_MAX];

	memset(args, 0, sizeof(args));
	variant->build(self, args);
	args[variant->ver0 + 15] = 1;
	EXPECT_EQ(-1, ioctl(tb_role_fd(self, variant),
			    tb_cmd_size(variant->cmd, variant->ver0 + 16), args));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_STILL_VALID();
}

/*
 * Up to TRACEBUF_ARGS_SIZE_MAX a zero tail is accepted, above it the size
 * alone is E2BIG: the same limit on every kernel, whatever its page size.
 */
TEST_F(ioctl, above_args_max_e2big)
{
	static char args[TRACEBUF_ARGS_SIZE_MAX + 8];

	memset(args, 0, sizeof(args));
	variant->build(self, args);
	EXPECT_EQ(-1, ioctl(tb_role_fd(self, variant),
			    tb_cmd_size(variant->cmd, TRACEBUF_ARGS_SIZE_MAX + 8), args));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(0, ioctl(tb_role_fd(self, variant),
			   tb_cmd_size(variant->cmd, TRACEBUF_ARGS_SIZE_MAX), args))
		TH_LOG("errno %d", errno);
}

TEST_F(ioctl, wrong_direction_enotty)
{
	unsigned int dir = _IOC_DIR(variant->cmd);
	char args[TB_ARGS_MAX];

	memset(args, 0, sizeof(args));
	variant->build(self, args);
	/* READ -> READ|WRITE, WRITE -> NONE, READ|WRITE -> READ */
	EXPECT_EQ(-1, ioctl(tb_role_fd(self, variant),
			    tb_cmd_dir(variant->cmd, dir ^ _IOC_WRITE), args));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_STILL_VALID();
}

TEST_F(ioctl, bad_pointer_efault)
{
	EXPECT_EQ(-1, ioctl(tb_role_fd(self, variant), variant->cmd, self->bad));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_STILL_VALID();
}

TEST_F(ioctl, null_pointer_efault)
{
	EXPECT_EQ(-1, ioctl(tb_role_fd(self, variant), variant->cmd, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_STILL_VALID();
}

TEST_F(ioctl, top_flag_bit_einval)
{
	char args[TB_ARGS_MAX];

	memset(args, 0, sizeof(args));
	variant->build(self, args);
	/* little endian: the top bit is in the field's last byte */
	args[variant->flag_off + variant->flag_size - 1] |= 0x80;
	EXPECT_EQ(-1, ioctl(tb_role_fd(self, variant), variant->cmd, args));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_STILL_VALID();
}

TEST_F(ioctl, on_file_without_role)
{
	char args[TB_ARGS_MAX];
	int ret;

	memset(args, 0, sizeof(args));
	variant->build(self, args);
	ret = tb_ioctl(self->fresh, variant->cmd, args);
	if (variant->role == TB_ROLE_NONE) {
		EXPECT_EQ(0, ret);	/* a role ioctl gives the role */
	} else {
		EXPECT_EQ(-EINVAL, ret);
		EXPECT_STILL_VALID();
	}
}

TEST_F(ioctl, on_file_with_other_role)
{
	char args[TB_ARGS_MAX];

	memset(args, 0, sizeof(args));
	variant->build(self, args);
	switch (variant->role) {
	case TB_ROLE_NONE:	/* a second role */
		EXPECT_EQ(-EINVAL, tb_ioctl(self->p.prov, variant->cmd, args));
		EXPECT_EQ(-EINVAL, tb_ioctl(self->p.mgr, variant->cmd, args));
		break;
	case TB_ROLE_PROVIDER:
		EXPECT_EQ(-EINVAL, tb_ioctl(self->p.mgr, variant->cmd, args));
		break;
	case TB_ROLE_MANAGER:
		EXPECT_EQ(-EINVAL, tb_ioctl(self->p.prov, variant->cmd, args));
		break;
	case TB_ROLE_ANY:	/* SET_EVENTFD: the other role may too */
		EXPECT_EQ(0, tb_ioctl(self->p.mgr, variant->cmd, args));
		break;
	}
	EXPECT_STILL_VALID();
}

/* ------------------------------------------------------------------ */
/* Files without a role; one role per file                            */

FIXTURE(role) {
	int fd;
};

FIXTURE_SETUP(role)
{
	self->fd = -1;
	TB_REQUIRE_DEV();
	self->fd = tb_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(role)
{
	tb_close(&self->fd);
}

TEST_F(role, read_without_role_einval)
{
	char buf[256];

	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(role, mmap_without_role_einval)
{
	EXPECT_MAP_FAILED(tb_map(self->fd, tb_page_size(), PROT_READ, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(role, poll_without_role_epollerr)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN | POLLOUT };

	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLERR, pfd.revents & POLLERR);
	EXPECT_EQ(0, pfd.revents & POLLIN);
}

TEST_F(role, second_register_einval)
{
	__u32 id, id2 = TB_POISON32;

	ASSERT_EQ(0, register_provider(self->fd, "role-1", 0, &id));
	EXPECT_EQ(-EINVAL, register_provider(self->fd, "role-2", 0, &id2));
	EXPECT_EQ(TB_POISON32, id2);
	EXPECT_EQ(TRACEBUF_STATE_REGISTERED, provider_state(self->fd));
}

TEST_F(role, attach_after_register_einval)
{
	__u32 id;
	int mgr;

	ASSERT_EQ(0, register_provider(self->fd, "role-p", 0, &id));
	EXPECT_EQ(-EINVAL, attach_manager(self->fd, 0, NULL));
	/* still a provider, and still the only provider of this file */
	EXPECT_EQ(TRACEBUF_STATE_REGISTERED, provider_state(self->fd));
	mgr = tb_open_manager(0, NULL);
	ASSERT_LE(0, mgr);
	EXPECT_EQ(TRACEBUF_STATE_REGISTERED, mgr_state(mgr, id));
	close(mgr);
}

TEST_F(role, register_after_attach_einval)
{
	ASSERT_EQ(0, attach_manager(self->fd, 0, NULL));
	EXPECT_EQ(-EINVAL, register_provider(self->fd, "role-m", 0, NULL));
	EXPECT_LE(0, mgr_count(self->fd, 0));	/* still a manager */
}

TEST_F(role, second_attach_einval)
{
	ASSERT_EQ(0, attach_manager(self->fd, 0, NULL));
	EXPECT_EQ(-EINVAL, attach_manager(self->fd, 0, NULL));
	EXPECT_LE(0, mgr_count(self->fd, 0));
}

TEST_F(role, failed_register_leaves_no_role)
{
	EXPECT_EQ(-EINVAL, register_provider_ex(self->fd, "x", 0, 0, NULL,
						NULL));
	EXPECT_EQ(0, attach_manager(self->fd, 0, NULL));
}

TEST_F(role, failed_attach_leaves_no_role)
{
	EXPECT_EQ(-EINVAL, attach_manager(self->fd, 1U << 31, NULL));
	EXPECT_EQ(0, register_provider(self->fd, "after-attach", 0, NULL));
}

/* ------------------------------------------------------------------ */
/* Unknown commands                                                   */

FIXTURE(unknown_cmd) {
	struct tb_peer p;
};

FIXTURE_SETUP(unknown_cmd)
{
	tb_peer_init(&self->p);
	TB_REQUIRE_DEV();
	tb_peer_open(_metadata, &self->p, "abi-unknown", 0);
}

FIXTURE_TEARDOWN(unknown_cmd)
{
	tb_peer_close(&self->p);
}

static const unsigned long tb_unknown_cmds[] = {
	_IO(TRACEBUF_IOC_MAGIC, 0x3f),
	_IOWR(TRACEBUF_IOC_MAGIC, 0x04, struct tracebuf_attach_args),
	_IOR(TRACEBUF_IOC_MAGIC, 0x14, struct tracebuf_release_args),
	_IOW(TRACEBUF_IOC_MAGIC, 0x28, struct tracebuf_target_args),
	_IOR('x', 0x00, struct tracebuf_version_args),
	_IO(TRACEBUF_IOC_MAGIC + 1, 0x01),
};

TEST_F(unknown_cmd, on_provider_enotty)
{
	char args[TB_ARGS_MAX];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tb_unknown_cmds); i++) {
		memset(args, 0, sizeof(args));
		EXPECT_EQ(-1, ioctl(self->p.prov, tb_unknown_cmds[i], args));
		EXPECT_EQ(ENOTTY, errno) TH_LOG("cmd 0x%lx", tb_unknown_cmds[i]);
	}
}

TEST_F(unknown_cmd, on_manager_enotty)
{
	char args[TB_ARGS_MAX];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tb_unknown_cmds); i++) {
		memset(args, 0, sizeof(args));
		EXPECT_EQ(-1, ioctl(self->p.mgr, tb_unknown_cmds[i], args));
		EXPECT_EQ(ENOTTY, errno) TH_LOG("cmd 0x%lx", tb_unknown_cmds[i]);
	}
}

/* ------------------------------------------------------------------ */
/* TRACEBUF_IOC_REGISTER                                              */

FIXTURE(reg) {
	int fd;
	size_t page;
	char *pages;	/* two pages, the second PROT_NONE */
};

FIXTURE_SETUP(reg)
{
	self->fd = -1;
	self->page = tb_page_size();
	self->pages = MAP_FAILED;
	TB_REQUIRE_DEV();
	self->fd = tb_open();
	ASSERT_LE(0, self->fd);
	self->pages = mmap(NULL, 2 * self->page, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_MAPPED(self->pages);
	ASSERT_EQ(0, mprotect(self->pages + self->page, self->page, PROT_NONE));
}

FIXTURE_TEARDOWN(reg)
{
	tb_close(&self->fd);
	if (self->pages != MAP_FAILED)
		munmap(self->pages, 2 * self->page);
}

/* A refused REGISTER left the file without a role. */
#define EXPECT_NO_ROLE_YET(fd) \
	EXPECT_EQ(0, register_provider((fd), "valid-after", 0, NULL))

static int tb_reg_raw(int fd, const void *name, __u32 len, __u32 flags)
{
	struct tracebuf_register_args a = {
		.name_ptr = tb_ptr(name), .name_len = len, .flags = flags,
	};

	return ioctl(fd, TRACEBUF_IOC_REGISTER, &a);
}

TEST_F(reg, writes_id_and_status)
{
	struct tracebuf_register_args a;

	memset(&a, TB_POISON8, sizeof(a));
	a.name_ptr = tb_ptr("out");
	a.name_len = 3;
	a.flags = 0;
	ASSERT_EQ(0, ioctl(self->fd, TRACEBUF_IOC_REGISTER, &a));
	EXPECT_LE(1U, a.id);
	EXPECT_NE(TB_POISON32, a.id);
	EXPECT_EQ(0U, a.status);
}

TEST_F(reg, unknown_flag_bit1_einval)
{
	EXPECT_EQ(-1, tb_reg_raw(self->fd, "f", 1,
				 TRACEBUF_REGISTER_F_ALL << 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_NO_ROLE_YET(self->fd);
}

TEST_F(reg, empty_name_einval)
{
	EXPECT_EQ(-1, tb_reg_raw(self->fd, "x", 0, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_NO_ROLE_YET(self->fd);
}

TEST_F(reg, name_101_bytes_enametoolong)
{
	char name[TRACEBUF_NAME_MAX + 1];

	memset(name, 'n', sizeof(name));
	EXPECT_EQ(-1, tb_reg_raw(self->fd, name, sizeof(name), 0));
	EXPECT_EQ(ENAMETOOLONG, errno);
	EXPECT_NO_ROLE_YET(self->fd);
}

TEST_F(reg, name_100_bytes_listed)
{
	char name[TRACEBUF_NAME_MAX];
	struct tracebuf_provider_info info;
	__u32 id;
	int mgr;

	memset(name, 'n', sizeof(name));
	ASSERT_EQ(0, register_provider_ex(self->fd, name, sizeof(name), 0,
					  &id, NULL));
	mgr = tb_open_manager(0, NULL);
	ASSERT_LE(0, mgr);
	ASSERT_EQ(0, mgr_find(mgr, id, &info));
	EXPECT_EQ(0, memcmp(info.name, name, sizeof(name)));
	EXPECT_EQ(0, info.name[TRACEBUF_NAME_MAX]);
	close(mgr);
}

TEST_F(reg, nul_inside_name_einval)
{
	EXPECT_EQ(-1, tb_reg_raw(self->fd, "ab\0cd", 5, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_NO_ROLE_YET(self->fd);
}

TEST_F(reg, nul_at_end_of_name_einval)
{
	EXPECT_EQ(-1, tb_reg_raw(self->fd, "abcd", 5, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_NO_ROLE_YET(self->fd);
}

TEST_F(reg, name_bad_pointer_efault)
{
	EXPECT_EQ(-1, tb_reg_raw(self->fd, self->pages + self->page, 4, 0));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_NO_ROLE_YET(self->fd);
}

TEST_F(reg, name_null_pointer_efault)
{
	EXPECT_EQ(-1, tb_reg_raw(self->fd, NULL, 4, 0));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_NO_ROLE_YET(self->fd);
}

TEST_F(reg, name_crossing_into_bad_page_efault)
{
	char *name = self->pages + self->page - 2;

	name[0] = 'a';
	name[1] = 'b';
	EXPECT_EQ(-1, tb_reg_raw(self->fd, name, 6, 0));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_NO_ROLE_YET(self->fd);
}

TEST_F(reg, ids_increase_and_are_not_reused)
{
	__u32 id1, id2;
	int fd2;

	ASSERT_EQ(0, register_provider(self->fd, "first", 0, &id1));
	EXPECT_LE(1U, id1);
	tb_close(&self->fd);
	fd2 = tb_open_provider("second", &id2);
	ASSERT_LE(0, fd2);
	EXPECT_LT(id1, id2);
	close(fd2);
}

TEST_F(reg, listed_with_pid_and_name)
{
	struct tracebuf_provider_info info;
	__u32 id, mgr_id;
	int mgr;

	ASSERT_EQ(0, register_provider(self->fd, "listed", 0, &id));
	mgr = tb_open_manager(0, &mgr_id);
	ASSERT_LE(0, mgr);
	ASSERT_EQ(0, mgr_find(mgr, id, &info));
	EXPECT_EQ(id, info.id);
	EXPECT_EQ((__u32)getpid(), info.pid);
	EXPECT_EQ((__u32)TRACEBUF_STATE_REGISTERED, info.state);
	EXPECT_EQ(0U, info.mode);
	EXPECT_EQ(0ULL, info.buffer_size);
	EXPECT_EQ(0U, info.manager_id);
	EXPECT_EQ(0U, info.flags);
	EXPECT_EQ(0ULL, info.packets_sent);
	EXPECT_EQ(0ULL, info.packets_received);
	EXPECT_EQ(0ULL, info.saves);
	EXPECT_STREQ("listed", (char *)info.name);
	close(mgr);
}

/* ------------------------------------------------------------------ */
/* TRACEBUF_IOC_ATTACH                                                */

TEST_F(role, attach_writes_id)
{
	struct tracebuf_attach_args a;

	memset(&a, TB_POISON8, sizeof(a));
	a.flags = 0;
	ASSERT_EQ(0, ioctl(self->fd, TRACEBUF_IOC_ATTACH, &a));
	EXPECT_LE(1U, a.id);
	EXPECT_NE(TB_POISON32, a.id);
}

TEST_F(role, attach_watch_flag_accepted)
{
	EXPECT_EQ(0, attach_manager(self->fd, TRACEBUF_ATTACH_F_WATCH, NULL));
}

TEST_F(role, attach_unknown_flag_bit1_einval)
{
	EXPECT_EQ(-EINVAL, attach_manager(self->fd, TRACEBUF_ATTACH_F_ALL << 1,
					  NULL));
	EXPECT_EQ(0, attach_manager(self->fd, 0, NULL));
}

/* ------------------------------------------------------------------ */
/* TRACEBUF_IOC_SET_EVENTFD arguments (notify_test has the semantics) */

FIXTURE(evfd) {
	int prov;
	int efd;
};

FIXTURE_SETUP(evfd)
{
	self->prov = self->efd = -1;
	TB_REQUIRE_DEV();
	self->prov = tb_open_provider("abi-evfd", NULL);
	ASSERT_LE(0, self->prov);
	self->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ASSERT_LE(0, self->efd);
}

FIXTURE_TEARDOWN(evfd)
{
	tb_close(&self->prov);
	tb_close(&self->efd);
}

static int tb_set_evfd_raw(int fd, __s32 efd, __u32 flags)
{
	struct tracebuf_eventfd_args a = { .fd = efd, .flags = flags };

	return ioctl(fd, TRACEBUF_IOC_SET_EVENTFD, &a);
}

TEST_F(evfd, flag_bit0_einval)
{
	EXPECT_EQ(-1, tb_set_evfd_raw(self->prov, self->efd, 1));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(evfd, pipe_einval)
{
	int pfd[2];

	ASSERT_EQ(0, pipe(pfd));
	EXPECT_EQ(-1, tb_set_evfd_raw(self->prov, pfd[0], 0));
	EXPECT_EQ(EINVAL, errno);
	close(pfd[0]);
	close(pfd[1]);
}

TEST_F(evfd, tracebuf_file_einval)
{
	EXPECT_EQ(-1, tb_set_evfd_raw(self->prov, self->prov, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(evfd, closed_fd_ebadf)
{
	int fd = tb_next_fd();

	EXPECT_EQ(-1, tb_set_evfd_raw(self->prov, fd, 0));
	EXPECT_EQ(EBADF, errno);
}

TEST_F(evfd, minus_one_accepted)
{
	EXPECT_EQ(0, tb_set_evfd_raw(self->prov, -1, 0));
	EXPECT_EQ(0, tb_set_evfd_raw(self->prov, self->efd, 0));
	EXPECT_EQ(0, tb_set_evfd_raw(self->prov, -1, 0));
}

/* ------------------------------------------------------------------ */
/* TRACEBUF_IOC_PROVIDER_RELEASE                                      */

FIXTURE(release) {
	struct tb_peer p;
};

FIXTURE_SETUP(release)
{
	tb_peer_init(&self->p);
	TB_REQUIRE_DEV();
	tb_peer_open(_metadata, &self->p, "abi-release", 0);
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_TERMINATING);
}

FIXTURE_TEARDOWN(release)
{
	tb_peer_close(&self->p);
}

TEST_F(release, flag_bit0_einval)
{
	struct tracebuf_release_args a = { .flags = 1 };

	EXPECT_EQ(-1, ioctl(self->p.prov, TRACEBUF_IOC_PROVIDER_RELEASE, &a));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_STATE(self->p.mgr, self->p.prov, self->p.id,
		     TRACEBUF_STATE_TERMINATING);
	EXPECT_EMPTY(self->p.mgr);
}

/* ------------------------------------------------------------------ */
/* TRACEBUF_IOC_MGR_LIST                                              */

#define TB_NLIST 3

FIXTURE(list) {
	int mgr;
	int prov[TB_NLIST];
	__u32 id[TB_NLIST];
	void *bad;
};

FIXTURE_SETUP(list)
{
	char name[16];
	int i;

	self->mgr = -1;
	for (i = 0; i < TB_NLIST; i++)
		self->prov[i] = -1;
	TB_REQUIRE_DEV();
	self->bad = tb_bad_page();
	ASSERT_MAPPED(self->bad);
	self->mgr = tb_open_manager(0, NULL);
	ASSERT_LE(0, self->mgr);
	for (i = 0; i < TB_NLIST; i++) {
		snprintf(name, sizeof(name), "list-%d", i);
		self->prov[i] = tb_open_provider(name, &self->id[i]);
		ASSERT_LE(0, self->prov[i]);
	}
}

FIXTURE_TEARDOWN(list)
{
	int i;

	for (i = 0; i < TB_NLIST; i++)
		tb_close(&self->prov[i]);
	tb_close(&self->mgr);
	if (self->bad && self->bad != MAP_FAILED)
		munmap(self->bad, tb_page_size());
}

static int tb_list_raw(int mgr, void *info, __u32 info_size, __u32 capacity,
		       __u32 start_id, struct tracebuf_list_args *out)
{
	struct tracebuf_list_args a = {
		.info_ptr = tb_ptr(info), .info_size = info_size,
		.capacity = capacity, .start_id = start_id,
		.count = TB_POISON32, .total = TB_POISON32,
	};
	int ret = ioctl(mgr, TRACEBUF_IOC_MGR_LIST, &a);

	if (out)
		*out = a;
	return ret;
}

TEST_F(list, entries_in_id_order)
{
	struct tracebuf_provider_info info[TB_NLIST + 1];
	struct tracebuf_list_args a;
	int i;

	memset(info, TB_POISON8, sizeof(info));
	ASSERT_EQ(0, tb_list_raw(self->mgr, info, sizeof(info[0]),
				 TB_NLIST + 1, self->id[0], &a));
	EXPECT_EQ((__u32)TB_NLIST, a.count);
	EXPECT_EQ((__u32)TB_NLIST, a.total);
	for (i = 0; i < TB_NLIST; i++) {
		EXPECT_EQ(self->id[i], info[i].id);
		EXPECT_EQ((__u32)getpid(), info[i].pid);
	}
	/* the entry past count is untouched */
	EXPECT_EQ(TB_POISON32, info[TB_NLIST].id);
}

TEST_F(list, capacity_limits_count_not_total)
{
	struct tracebuf_provider_info info[2];
	struct tracebuf_list_args a;

	memset(info, TB_POISON8, sizeof(info));
	ASSERT_EQ(0, tb_list_raw(self->mgr, info, sizeof(info[0]), 1,
				 self->id[0], &a));
	EXPECT_EQ(1U, a.count);
	EXPECT_EQ((__u32)TB_NLIST, a.total);
	EXPECT_EQ(self->id[0], info[0].id);
	EXPECT_EQ(TB_POISON32, info[1].id);
}

TEST_F(list, capacity_zero_only_counts)
{
	struct tracebuf_list_args a;

	ASSERT_EQ(0, tb_list_raw(self->mgr, NULL, sizeof(struct tracebuf_provider_info),
				 0, self->id[0], &a));
	EXPECT_EQ(0U, a.count);
	EXPECT_EQ((__u32)TB_NLIST, a.total);
}

TEST_F(list, start_id_skips_lower_ids)
{
	struct tracebuf_provider_info info[TB_NLIST];
	struct tracebuf_list_args a;

	ASSERT_EQ(0, tb_list_raw(self->mgr, info, sizeof(info[0]), TB_NLIST,
				 self->id[1], &a));
	EXPECT_EQ((__u32)(TB_NLIST - 1), a.count);
	EXPECT_EQ((__u32)(TB_NLIST - 1), a.total);
	EXPECT_EQ(self->id[1], info[0].id);
}

TEST_F(list, closed_provider_not_listed)
{
	struct tracebuf_provider_info info[TB_NLIST];
	struct tracebuf_list_args a;

	tb_close(&self->prov[1]);
	ASSERT_EQ(0, tb_list_raw(self->mgr, info, sizeof(info[0]), TB_NLIST,
				 self->id[0], &a));
	EXPECT_EQ((__u32)(TB_NLIST - 1), a.count);
	EXPECT_EQ(self->id[0], info[0].id);
	EXPECT_EQ(self->id[2], info[1].id);
}

TEST_F(list, larger_info_size_tail_zeroed)
{
	struct big_info {
		struct tracebuf_provider_info info;
		__u8 tail[16];
	} big[TB_NLIST];
	struct tracebuf_list_args a;
	__u8 zero[16] = { 0 };
	int i;

	memset(big, TB_POISON8, sizeof(big));
	ASSERT_EQ(0, tb_list_raw(self->mgr, big, sizeof(big[0]), TB_NLIST,
				 self->id[0], &a));
	ASSERT_EQ((__u32)TB_NLIST, a.count);
	for (i = 0; i < TB_NLIST; i++) {
		EXPECT_EQ(self->id[i], big[i].info.id);
		EXPECT_EQ(0, memcmp(zero, big[i].tail, sizeof(zero)));
	}
}

/* The largest info_size is the ABI's, not the page size. */
TEST_F(list, info_size_above_args_max_e2big)
{
	static __u8 big[TRACEBUF_ARGS_SIZE_MAX + 8];
	struct tracebuf_list_args a;

	ASSERT_EQ(0, tb_list_raw(self->mgr, big, TRACEBUF_ARGS_SIZE_MAX, 1,
				 self->id[0], &a));
	EXPECT_EQ(1U, a.count);
	EXPECT_EQ(-1, tb_list_raw(self->mgr, big, TRACEBUF_ARGS_SIZE_MAX + 8, 1,
				  self->id[0], NULL));
	EXPECT_EQ(E2BIG, errno);
}

TEST_F(list, info_size_below_ver0_einval)
{
	struct tracebuf_provider_info info[TB_NLIST];

	EXPECT_EQ(-1, tb_list_raw(self->mgr, info,
				  TRACEBUF_PROVIDER_INFO_SIZE_VER0 - 8,
				  TB_NLIST, 0, NULL));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(list, info_bad_pointer_efault)
{
	EXPECT_EQ(-1, tb_list_raw(self->mgr, self->bad,
				  sizeof(struct tracebuf_provider_info),
				  TB_NLIST, self->id[0], NULL));
	EXPECT_EQ(EFAULT, errno);
}

/* ------------------------------------------------------------------ */
/* TRACEBUF_IOC_MGR_INITIALIZE arguments                              */

FIXTURE(init) {
	struct tb_peer p;
	struct tb_cats cats;
	void *bad;
	int next_fd;		/* lowest free fd before the call */
};

FIXTURE_SETUP(init)
{
	tb_peer_init(&self->p);
	memset(&self->cats, 0, sizeof(self->cats));
	TB_REQUIRE_DEV();
	self->bad = tb_bad_page();
	ASSERT_MAPPED(self->bad);
	tb_peer_open(_metadata, &self->p, "abi-init", 0);
	self->next_fd = tb_next_fd();
}

FIXTURE_TEARDOWN(init)
{
	tb_cats_free(&self->cats);
	tb_peer_close(&self->p);
	if (self->bad && self->bad != MAP_FAILED)
		munmap(self->bad, tb_page_size());
}

/* Valid arguments, then one field changed by the test. */
static struct tracebuf_initialize_args tb_init_valid(FIXTURE_DATA(init) *self)
{
	struct tracebuf_initialize_args a;

	tb_init_args(&a, self->p.id, TRACEBUF_MODE_CIRCULAR, 64 * 1024,
		     self->cats.count ? &self->cats : NULL);
	return a;
}

/* A refused INITIALIZE: errno, nothing allocated, nothing told. */
#define EXPECT_INIT_REFUSED(a, err) do {				\
	EXPECT_EQ(-1, ioctl(self->p.mgr, TRACEBUF_IOC_MGR_INITIALIZE, &(a)));	\
	EXPECT_EQ(err, errno);						\
	EXPECT_EQ(self->next_fd, tb_next_fd());				\
	EXPECT_STATE(self->p.mgr, self->p.prov, self->p.id,		\
		     TRACEBUF_STATE_REGISTERED);			\
	EXPECT_EMPTY(self->p.prov);					\
} while (0)

TEST_F(init, success_writes_buffer_fd)
{
	struct tracebuf_initialize_args a = tb_init_valid(self);
	struct tracebuf_provider_info info;
	struct tracebuf_config_args cfg;
	struct tracebuf_pkt pkt;
	char buf[8];
	int flags;

	ASSERT_EQ(0, ioctl(self->p.mgr, TRACEBUF_IOC_MGR_INITIALIZE, &a));
	ASSERT_LE(0, a.buffer_fd);
	self->p.buf_fd = a.buffer_fd;
	flags = fcntl(a.buffer_fd, F_GETFL);
	ASSERT_LE(0, flags);
	EXPECT_EQ(O_RDONLY, flags & O_ACCMODE);
	EXPECT_EQ(FD_CLOEXEC, fcntl(a.buffer_fd, F_GETFD) & FD_CLOEXEC);
	ASSERT_EQ(0, mgr_find(self->p.mgr, self->p.id, &info));
	EXPECT_EQ((__u32)TRACEBUF_STATE_INITIALIZED, info.state);
	EXPECT_EQ((__u32)TRACEBUF_MODE_CIRCULAR, info.mode);
	EXPECT_EQ(64ULL * 1024, info.buffer_size);
	EXPECT_EQ(self->p.mgr_id, info.manager_id);
	EXPECT_EQ(TRACEBUF_INFO_F_MINE, info.flags & TRACEBUF_INFO_F_MINE);
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_INITIALIZE, &pkt);
	EXPECT_EQ(TRACEBUF_MODE_CIRCULAR, pkt.data16);
	EXPECT_EQ(64ULL * 1024, pkt.data64);
	ASSERT_EQ(0, provider_get_config(self->p.prov, &cfg, buf, sizeof(buf)));
	EXPECT_EQ(cfg.generation, pkt.data32);
	EXPECT_EQ(64ULL * 1024, cfg.buffer_size);
	EXPECT_EQ(TRACEBUF_MODE_CIRCULAR, cfg.mode);
}

/* No descriptor free under RLIMIT_NOFILE for the handle: EMFILE. */
TEST_F(init, no_free_fd_emfile)
{
	struct tracebuf_initialize_args a = tb_init_valid(self);
	struct rlimit old, rl;
	int ret, err;

	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &old));
	rl = old;
	rl.rlim_cur = (rlim_t)self->next_fd;	/* every one below is open */
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	ret = ioctl(self->p.mgr, TRACEBUF_IOC_MGR_INITIALIZE, &a);
	err = errno;
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &old));
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(EMFILE, err);
	EXPECT_EQ(self->next_fd, tb_next_fd());
	EXPECT_STATE(self->p.mgr, self->p.prov, self->p.id, TRACEBUF_STATE_REGISTERED);
	EXPECT_EMPTY(self->p.prov);
	/* with one free, it goes through */
	ASSERT_EQ(0, ioctl(self->p.mgr, TRACEBUF_IOC_MGR_INITIALIZE, &a));
	self->p.buf_fd = a.buffer_fd;
	EXPECT_EQ(self->next_fd, a.buffer_fd);
}

TEST_F(init, flag_bit0_einval)
{
	struct tracebuf_initialize_args a = tb_init_valid(self);

	a.flags = 1;
	EXPECT_INIT_REFUSED(a, EINVAL);
}

TEST_F(init, mode_zero_einval)
{
	struct tracebuf_initialize_args a = tb_init_valid(self);

	a.mode = 0;
	EXPECT_INIT_REFUSED(a, EINVAL);
}

TEST_F(init, mode_four_einval)
{
	struct tracebuf_initialize_args a = tb_init_valid(self);

	a.mode = TRACEBUF_MODE_STREAMING + 1;
	EXPECT_INIT_REFUSED(a, EINVAL);
}

TEST_F(init, size_zero_einval)
{
	struct tracebuf_initialize_args a = tb_init_valid(self);

	a.buffer_size = 0;
	EXPECT_INIT_REFUSED(a, EINVAL);
}

TEST_F(init, size_below_min_einval)
{
	struct tracebuf_initialize_args a = tb_init_valid(self);

	/* below TRACEBUF_BUFFER_MIN, so below the smallest buffer anywhere */
	a.buffer_size = TRACEBUF_BUFFER_MIN - TRACEBUF_BUFFER_ALIGN / 2;
	EXPECT_INIT_REFUSED(a, EINVAL);
}

TEST_F(init, size_unaligned_einval)
{
	struct tracebuf_initialize_args a = tb_init_valid(self);

	/* not a multiple of TRACEBUF_BUFFER_ALIGN, so of no buffer_align */
	a.buffer_size = 64 * 1024 + 8;
	EXPECT_INIT_REFUSED(a, EINVAL);
}

/*
 * With pages above 4 KiB, buffer sizes are multiples of the page size too
 * (VERSION's buffer_align, which version.* checks is max(4096, page
 * size)): a multiple of 4096 that is not one of the page size is refused.
 * Each from the smallest buffer up to the next multiple of the page size,
 * which is accepted (with 4 KiB pages, the first one already is).
 */
TEST_F(init, size_multiple_of_4096_not_of_page_einval)
{
	struct tracebuf_initialize_args a = tb_init_valid(self);
	size_t page = tb_page_size();
	__u64 size;

	for (size = tb_buffer_min() + TRACEBUF_BUFFER_ALIGN; size % page;
	     size += TRACEBUF_BUFFER_ALIGN) {
		a.buffer_size = size;
		EXPECT_INIT_REFUSED(a, EINVAL);
	}
	a.buffer_size = size;
	EXPECT_EQ(0, ioctl(self->p.mgr, TRACEBUF_IOC_MGR_INITIALIZE, &a));
	self->p.buf_fd = a.buffer_fd;
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_INITIALIZE, NULL);
}

TEST_F(init, size_above_max_efbig)
{
	struct tracebuf_initialize_args a = tb_init_valid(self);
	struct tracebuf_version_args v;

	ASSERT_EQ(0, tb_version(self->p.mgr, &v));
	/* aligned, so that the size is refused for being too big only */
	a.buffer_size = v.max_buffer_size + tb_buffer_min();
	EXPECT_INIT_REFUSED(a, EFBIG);
}

TEST_F(init, size_min_accepted)
{
	struct tracebuf_initialize_args a = tb_init_valid(self);

	a.buffer_size = tb_buffer_min();
	EXPECT_EQ(0, ioctl(self->p.mgr, TRACEBUF_IOC_MGR_INITIALIZE, &a));
	self->p.buf_fd = a.buffer_fd;
}

TEST_F(init, unknown_provider_esrch)
{
	struct tracebuf_initialize_args a = tb_init_valid(self);

	a.provider_id = self->p.id + 1000000;
	EXPECT_INIT_REFUSED(a, ESRCH);
}

TEST_F(init, provider_id_zero_esrch)
{
	struct tracebuf_initialize_args a = tb_init_valid(self);

	a.provider_id = 0;
	EXPECT_INIT_REFUSED(a, ESRCH);
}

TEST_F(init, categories_count_too_high_einval)
{
	struct tracebuf_initialize_args a;

	ASSERT_EQ(0, tb_cats_build(&self->cats, "one", "two", NULL));
	a = tb_init_valid(self);
	a.categories_count = 3;
	EXPECT_INIT_REFUSED(a, EINVAL);
}

TEST_F(init, categories_count_too_low_einval)
{
	struct tracebuf_initialize_args a;

	ASSERT_EQ(0, tb_cats_build(&self->cats, "one", "two", NULL));
	a = tb_init_valid(self);
	a.categories_count = 1;
	EXPECT_INIT_REFUSED(a, EINVAL);
}

TEST_F(init, categories_count_without_size_einval)
{
	struct tracebuf_initialize_args a = tb_init_valid(self);

	a.categories_count = 1;
	EXPECT_INIT_REFUSED(a, EINVAL);
}

TEST_F(init, categories_size_without_count_einval)
{
	struct tracebuf_initialize_args a;

	ASSERT_EQ(0, tb_cats_build(&self->cats, "one", NULL));
	a = tb_init_valid(self);
	a.categories_count = 0;
	EXPECT_INIT_REFUSED(a, EINVAL);
}

TEST_F(init, categories_missing_final_nul_einval)
{
	struct tracebuf_initialize_args a;

	ASSERT_EQ(0, tb_cats_build(&self->cats, "one", "two", NULL));
	a = tb_init_valid(self);
	a.categories_size -= 1;		/* "one\0two" */
	EXPECT_INIT_REFUSED(a, EINVAL);
}

TEST_F(init, categories_empty_string_einval)
{
	struct tracebuf_initialize_args a;

	ASSERT_EQ(0, tb_cats_build(&self->cats, "one", "", "two", NULL));
	a = tb_init_valid(self);
	EXPECT_INIT_REFUSED(a, EINVAL);
}

TEST_F(init, category_101_bytes_enametoolong)
{
	char cat[TRACEBUF_CATEGORY_MAX + 1];
	struct tracebuf_initialize_args a;

	memset(cat, 'c', sizeof(cat));
	ASSERT_EQ(0, tb_cats_add(&self->cats, "one"));
	ASSERT_EQ(0, tb_cats_add_len(&self->cats, cat, sizeof(cat)));
	a = tb_init_valid(self);
	EXPECT_INIT_REFUSED(a, ENAMETOOLONG);
}

TEST_F(init, category_100_bytes_accepted)
{
	char cat[TRACEBUF_CATEGORY_MAX];
	struct tracebuf_initialize_args a;

	memset(cat, 'c', sizeof(cat));
	ASSERT_EQ(0, tb_cats_add_len(&self->cats, cat, sizeof(cat)));
	a = tb_init_valid(self);
	EXPECT_EQ(0, ioctl(self->p.mgr, TRACEBUF_IOC_MGR_INITIALIZE, &a));
	self->p.buf_fd = a.buffer_fd;
}

TEST_F(init, categories_5001_e2big)
{
	struct tracebuf_initialize_args a;

	ASSERT_EQ(0, tb_cats_many(&self->cats, TRACEBUF_CATEGORIES_MAX + 1));
	a = tb_init_valid(self);
	EXPECT_INIT_REFUSED(a, E2BIG);
}

TEST_F(init, categories_5000_accepted)
{
	struct tracebuf_initialize_args a;

	ASSERT_EQ(0, tb_cats_many(&self->cats, TRACEBUF_CATEGORIES_MAX));
	a = tb_init_valid(self);
	EXPECT_EQ(0, ioctl(self->p.mgr, TRACEBUF_IOC_MGR_INITIALIZE, &a));
	self->p.buf_fd = a.buffer_fd;
}

TEST_F(init, categories_bad_pointer_efault)
{
	struct tracebuf_initialize_args a;

	ASSERT_EQ(0, tb_cats_build(&self->cats, "one", NULL));
	a = tb_init_valid(self);
	a.categories_ptr = tb_ptr(self->bad);
	EXPECT_INIT_REFUSED(a, EFAULT);
}

TEST_F(init, categories_null_pointer_efault)
{
	struct tracebuf_initialize_args a;

	ASSERT_EQ(0, tb_cats_build(&self->cats, "one", NULL));
	a = tb_init_valid(self);
	a.categories_ptr = 0;
	EXPECT_INIT_REFUSED(a, EFAULT);
}

/* ------------------------------------------------------------------ */
/* TRACEBUF_IOC_MGR_START, STOP, TERMINATE, SEND arguments            */

FIXTURE(ctl) {
	struct tb_peer p;
	struct tb_cats cats;
	void *bad;
};

FIXTURE_SETUP(ctl)
{
	tb_peer_init(&self->p);
	memset(&self->cats, 0, sizeof(self->cats));
	TB_REQUIRE_DEV();
	self->bad = tb_bad_page();
	ASSERT_MAPPED(self->bad);
	tb_peer_open(_metadata, &self->p, "abi-ctl", 0);
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_INITIALIZED);
}

FIXTURE_TEARDOWN(ctl)
{
	tb_cats_free(&self->cats);
	tb_peer_close(&self->p);
	if (self->bad && self->bad != MAP_FAILED)
		munmap(self->bad, tb_page_size());
}

static struct tracebuf_start_args tb_start_valid(FIXTURE_DATA(ctl) *self)
{
	struct tracebuf_start_args a;

	tb_start_args(&a, self->p.id, TRACEBUF_START_RETAIN,
		      self->cats.count ? &self->cats : NULL);
	return a;
}

#define EXPECT_CTL_REFUSED(cmd, a, err, state) do {			\
	EXPECT_EQ(-1, ioctl(self->p.mgr, cmd, &(a)));			\
	EXPECT_EQ(err, errno);						\
	EXPECT_STATE(self->p.mgr, self->p.prov, self->p.id, state);	\
	EXPECT_EMPTY(self->p.prov);					\
} while (0)

#define EXPECT_START_REFUSED(a, err) \
	EXPECT_CTL_REFUSED(TRACEBUF_IOC_MGR_START, a, err, \
			   TRACEBUF_STATE_INITIALIZED)

TEST_F(ctl, start_flag_bit0_einval)
{
	struct tracebuf_start_args a = tb_start_valid(self);

	a.flags = 1;
	EXPECT_START_REFUSED(a, EINVAL);
}

TEST_F(ctl, start_reserved_einval)
{
	struct tracebuf_start_args a = tb_start_valid(self);

	a.reserved = 1;
	EXPECT_START_REFUSED(a, EINVAL);
}

TEST_F(ctl, start_disposition_zero_einval)
{
	struct tracebuf_start_args a = tb_start_valid(self);

	a.disposition = 0;
	EXPECT_START_REFUSED(a, EINVAL);
}

TEST_F(ctl, start_disposition_four_einval)
{
	struct tracebuf_start_args a = tb_start_valid(self);

	a.disposition = TRACEBUF_START_RETAIN + 1;
	EXPECT_START_REFUSED(a, EINVAL);
}

TEST_F(ctl, start_unknown_provider_esrch)
{
	struct tracebuf_start_args a = tb_start_valid(self);

	a.provider_id = self->p.id + 1000000;
	EXPECT_START_REFUSED(a, ESRCH);
}

TEST_F(ctl, start_categories_count_mismatch_einval)
{
	struct tracebuf_start_args a;

	ASSERT_EQ(0, tb_cats_build(&self->cats, "one", "two", NULL));
	a = tb_start_valid(self);
	a.categories_count = 3;
	EXPECT_START_REFUSED(a, EINVAL);
}

TEST_F(ctl, start_categories_empty_string_einval)
{
	struct tracebuf_start_args a;

	ASSERT_EQ(0, tb_cats_build(&self->cats, "", NULL));
	a = tb_start_valid(self);
	EXPECT_START_REFUSED(a, EINVAL);
}

TEST_F(ctl, start_category_101_bytes_enametoolong)
{
	char cat[TRACEBUF_CATEGORY_MAX + 1];
	struct tracebuf_start_args a;

	memset(cat, 'c', sizeof(cat));
	ASSERT_EQ(0, tb_cats_add_len(&self->cats, cat, sizeof(cat)));
	a = tb_start_valid(self);
	EXPECT_START_REFUSED(a, ENAMETOOLONG);
}

TEST_F(ctl, start_categories_5001_e2big)
{
	struct tracebuf_start_args a;

	ASSERT_EQ(0, tb_cats_many(&self->cats, TRACEBUF_CATEGORIES_MAX + 1));
	a = tb_start_valid(self);
	EXPECT_START_REFUSED(a, E2BIG);
}

TEST_F(ctl, start_categories_bad_pointer_efault)
{
	struct tracebuf_start_args a;

	ASSERT_EQ(0, tb_cats_build(&self->cats, "one", NULL));
	a = tb_start_valid(self);
	a.categories_ptr = tb_ptr(self->bad);
	EXPECT_START_REFUSED(a, EFAULT);
}

TEST_F(ctl, stop_flag_bit0_einval)
{
	struct tracebuf_target_args a = { .provider_id = self->p.id, .flags = 1 };

	ASSERT_EQ(0, mgr_start(self->p.mgr, self->p.id, TRACEBUF_START_RETAIN,
			       NULL));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_START, NULL);
	EXPECT_CTL_REFUSED(TRACEBUF_IOC_MGR_STOP, a, EINVAL,
			   TRACEBUF_STATE_STARTING);
}

TEST_F(ctl, stop_unknown_provider_esrch)
{
	struct tracebuf_target_args a = { .provider_id = self->p.id + 1000000 };

	ASSERT_EQ(0, mgr_start(self->p.mgr, self->p.id, TRACEBUF_START_RETAIN,
			       NULL));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_START, NULL);
	EXPECT_CTL_REFUSED(TRACEBUF_IOC_MGR_STOP, a, ESRCH,
			   TRACEBUF_STATE_STARTING);
}

TEST_F(ctl, terminate_flag_bit0_einval)
{
	struct tracebuf_target_args a = { .provider_id = self->p.id, .flags = 1 };

	EXPECT_CTL_REFUSED(TRACEBUF_IOC_MGR_TERMINATE, a, EINVAL,
			   TRACEBUF_STATE_INITIALIZED);
}

TEST_F(ctl, terminate_unknown_provider_esrch)
{
	struct tracebuf_target_args a = { .provider_id = self->p.id + 1000000 };

	EXPECT_CTL_REFUSED(TRACEBUF_IOC_MGR_TERMINATE, a, ESRCH,
			   TRACEBUF_STATE_INITIALIZED);
}

TEST_F(ctl, send_flag_bit0_einval)
{
	struct tracebuf_mgr_send_args a;

	memset(&a, 0, sizeof(a));
	a.provider_id = self->p.id;
	a.flags = 1;
	a.pkt = tb_pkt(TRACEBUF_PKT_BUFFER_SAVED, 0, 0, 0);
	EXPECT_CTL_REFUSED(TRACEBUF_IOC_MGR_SEND, a, EINVAL,
			   TRACEBUF_STATE_INITIALIZED);
}

TEST_F(ctl, send_unknown_provider_esrch)
{
	struct tracebuf_mgr_send_args a;

	memset(&a, 0, sizeof(a));
	a.provider_id = self->p.id + 1000000;
	a.pkt = tb_pkt(TRACEBUF_PKT_BUFFER_SAVED, 0, 0, 0);
	EXPECT_CTL_REFUSED(TRACEBUF_IOC_MGR_SEND, a, ESRCH,
			   TRACEBUF_STATE_INITIALIZED);
}

/* ------------------------------------------------------------------ */
/* TRACEBUF_IOC_PROVIDER_GET_CONFIG arguments                         */

/* every flag but TRACEBUF_CONFIG_F_WENT_ON is refused, alone or with it */
TEST_F(ctl, get_config_unknown_flags_einval)
{
	static const __u32 bad[] = { 1u << 1, 1u << 31,
				     ~(__u32)TRACEBUF_CONFIG_F_WENT_ON,
				     TRACEBUF_CONFIG_F_WENT_ON | 1u << 1 };
	struct tracebuf_config_args cfg;
	char buf[64];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&cfg, 0, sizeof(cfg));
		cfg.categories_ptr = tb_ptr(buf);
		cfg.categories_size = sizeof(buf);
		cfg.flags = bad[i];
		EXPECT_EQ(-1, ioctl(self->p.prov, TRACEBUF_IOC_PROVIDER_GET_CONFIG,
				    &cfg));
		EXPECT_EQ(EINVAL, errno);
	}
}

TEST_F(ctl, get_config_categories_bad_pointer_efault)
{
	struct tracebuf_config_args cfg;
	char buf[64];

	/* re-initialize with a category so there is something to copy */
	ASSERT_EQ(0, mgr_terminate(self->p.mgr, self->p.id));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_TERMINATE, NULL);
	ASSERT_EQ(0, provider_release(self->p.prov));
	tb_next_msg(_metadata, self->p.mgr, self->p.id, TRACEBUF_MSG_TERMINATED,
		    TRACEBUF_STATE_REGISTERED, NULL);
	ASSERT_EQ(0, tb_cats_build(&self->cats, "cat", NULL));
	tb_close(&self->p.buf_fd);
	ASSERT_EQ(0, mgr_initialize(self->p.mgr, self->p.id,
				    TRACEBUF_MODE_ONESHOT, tb_buffer_min(), &self->cats,
				    &self->p.buf_fd));
	memset(&cfg, 0, sizeof(cfg));
	cfg.categories_ptr = tb_ptr(self->bad);
	cfg.categories_size = sizeof(buf);
	EXPECT_EQ(-1, ioctl(self->p.prov, TRACEBUF_IOC_PROVIDER_GET_CONFIG,
			    &cfg));
	EXPECT_EQ(EFAULT, errno);
}

TEST_HARNESS_MAIN
