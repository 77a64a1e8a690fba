// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf buffers and mappings: the header the kernel writes for each
 * mode and size, what may be mapped by whom, fork, partial unmaps and
 * mremap, lifetime of the memory, and the dispositions applied at START.
 */
#define _GNU_SOURCE
#include "tracebuf_selftests.h"

#include <sys/uio.h>

static void *tb_mgr_map(int buf_fd, size_t len)
{
	return tb_map(buf_fd, len, PROT_READ, 0);
}

/* Every byte of p[0..len) is c. */
static bool tb_all_bytes(const void *p, size_t len, unsigned char c)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != c)
			return false;
	return true;
}

/* ------------------------------------------------------------------ */
/* Geometry, per mode and size                                        */

FIXTURE(geometry) {
	struct tb_peer p;
	char *map;		/* provider's read-write mapping */
	__u64 durable, rolling;
};

FIXTURE_VARIANT(geometry) {
	__u32 mode;
	__u64 size;		/* 0: the smallest buffer */
};

/* 4 KiB, or the page size if larger */
FIXTURE_VARIANT_ADD(geometry, oneshot_min) {
	.mode = TRACEBUF_MODE_ONESHOT, .size = 0,
};
FIXTURE_VARIANT_ADD(geometry, oneshot_64k) {
	.mode = TRACEBUF_MODE_ONESHOT, .size = 64 * 1024,
};
FIXTURE_VARIANT_ADD(geometry, circular_min) {
	.mode = TRACEBUF_MODE_CIRCULAR, .size = 0,
};
FIXTURE_VARIANT_ADD(geometry, circular_64k) {
	.mode = TRACEBUF_MODE_CIRCULAR, .size = 64 * 1024,
};
FIXTURE_VARIANT_ADD(geometry, streaming_1m) {
	.mode = TRACEBUF_MODE_STREAMING, .size = 1024 * 1024,
};
FIXTURE_VARIANT_ADD(geometry, circular_4m) {
	.mode = TRACEBUF_MODE_CIRCULAR, .size = 4 * 1024 * 1024,
};
/* above 16 MiB + 128 the durable buffer reaches its 1 MiB cap */
FIXTURE_VARIANT_ADD(geometry, streaming_20m) {
	.mode = TRACEBUF_MODE_STREAMING, .size = 20 * 1024 * 1024,
};

FIXTURE_SETUP(geometry)
{
	tb_peer_init(&self->p);
	self->map = MAP_FAILED;
	TB_REQUIRE_DEV();
	tb_peer_open(_metadata, &self->p, "geometry", 0);
	self->p.mode = variant->mode;
	self->p.size = variant->size ? variant->size : tb_buffer_min();
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_INITIALIZED);
	self->map = tb_provider_map(_metadata, &self->p);
	tb_buffer_sizes(variant->mode, self->p.size, &self->durable,
			&self->rolling);
}

FIXTURE_TEARDOWN(geometry)
{
	if (self->map != MAP_FAILED)
		munmap(self->map, self->p.size);
	tb_peer_close(&self->p);
}

static void tb_check_header(struct __test_metadata *_metadata,
			    const struct tracebuf_buffer_header *h,
			    __u32 mode, __u64 size, __u64 durable,
			    __u64 rolling)
{
	unsigned int i;

	EXPECT_EQ(TRACEBUF_HEADER_MAGIC, h->magic);
	EXPECT_EQ(TRACEBUF_HEADER_VERSION, h->version);
	EXPECT_EQ(tb_header_mode(mode), h->buffering_mode);
	EXPECT_EQ(0, h->reserved1);
	EXPECT_EQ(0U, h->wrapped_count);
	EXPECT_EQ(size, h->total_size);
	EXPECT_EQ(durable, h->durable_buffer_size);
	EXPECT_EQ(rolling, h->rolling_buffer_size);
	EXPECT_EQ(0ULL, h->durable_data_end);
	EXPECT_EQ(0ULL, h->rolling_data_end[0]);
	EXPECT_EQ(0ULL, h->rolling_data_end[1]);
	EXPECT_EQ(0ULL, h->num_records_dropped);
	EXPECT_EQ(0ULL, h->stop_mark);
	EXPECT_EQ(0ULL, h->bytes_recorded);
	for (i = 0; i < ARRAY_SIZE(h->reserved); i++) {
		EXPECT_EQ(0ULL, h->reserved[i]);
	}
}

TEST_F(geometry, header_in_provider_mapping)
{
	tb_check_header(_metadata, (const void *)self->map, variant->mode,
			self->p.size, self->durable, self->rolling);
}

TEST_F(geometry, header_by_pread)
{
	struct tracebuf_buffer_header h;

	memset(&h, TB_POISON8, sizeof(h));
	ASSERT_EQ((ssize_t)sizeof(h), pread(self->p.buf_fd, &h, sizeof(h), 0));
	tb_check_header(_metadata, &h, variant->mode, self->p.size,
			self->durable, self->rolling);
}

TEST_F(geometry, header_in_manager_mapping)
{
	void *m = tb_mgr_map(self->p.buf_fd, self->p.size);

	ASSERT_MAPPED(m);
	tb_check_header(_metadata, m, variant->mode, self->p.size,
			self->durable, self->rolling);
	munmap(m, self->p.size);
}

TEST_F(geometry, sizes_follow_the_layout_rules)
{
	/* the formula's result checked against the reader's rules */
	if (variant->mode == TRACEBUF_MODE_ONESHOT) {
		EXPECT_EQ(0ULL, self->durable);
		EXPECT_EQ(self->p.size - TRACEBUF_HEADER_SIZE, self->rolling);
	} else {
		EXPECT_EQ(self->p.size, TRACEBUF_HEADER_SIZE + self->durable +
					 2 * self->rolling);
		EXPECT_EQ(0ULL, self->durable % 8);
		EXPECT_EQ(0ULL, self->rolling % 8);
		EXPECT_LT(self->durable, self->rolling);
		EXPECT_LE(16ULL, self->durable);
		EXPECT_GE((__u64)TRACEBUF_DURABLE_MAX + 8, self->durable);
	}
}

TEST_F(geometry, data_area_zero_filled)
{
	void *m = tb_mgr_map(self->p.buf_fd, self->p.size);

	ASSERT_MAPPED(m);
	EXPECT_TRUE(tb_all_bytes((char *)m + TRACEBUF_HEADER_SIZE,
				 self->p.size - TRACEBUF_HEADER_SIZE, 0));
	munmap(m, self->p.size);
}

TEST_F(geometry, provider_writes_seen_by_manager)
{
	size_t last = self->p.size - 8;
	char *m = tb_mgr_map(self->p.buf_fd, self->p.size);
	__u64 v = 0;

	ASSERT_MAPPED(m);
	*(volatile __u64 *)(self->map + last) = 0x1122334455667788ULL;
	self->map[TRACEBUF_HEADER_SIZE] = 0x42;
	((struct tracebuf_buffer_header *)self->map)->rolling_data_end[0] = 64;
	EXPECT_EQ(0x1122334455667788ULL, *(volatile __u64 *)(m + last));
	EXPECT_EQ(0x42, m[TRACEBUF_HEADER_SIZE]);
	ASSERT_EQ(8, pread(self->p.buf_fd, &v, 8, last));
	EXPECT_EQ(0x1122334455667788ULL, v);
	ASSERT_EQ(8, pread(self->p.buf_fd, &v, 8,
			   offsetof(struct tracebuf_buffer_header,
				    rolling_data_end)));
	EXPECT_EQ(64ULL, v);
	munmap(m, self->p.size);
}

TEST_F(geometry, provider_map_too_long_einval)
{
	EXPECT_MAP_FAILED(tb_map(self->p.prov, self->p.size + tb_page_size(),
				 PROT_READ | PROT_WRITE, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(geometry, provider_map_offset_at_end_einval)
{
	EXPECT_MAP_FAILED(tb_map(self->p.prov, tb_page_size(),
				 PROT_READ | PROT_WRITE, self->p.size));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(geometry, provider_map_straddling_end_einval)
{
	size_t page = tb_page_size();

	EXPECT_MAP_FAILED(tb_map(self->p.prov, 2 * page, PROT_READ | PROT_WRITE,
				 self->p.size - page));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(geometry, provider_map_last_page)
{
	size_t page = tb_page_size();
	char *m = tb_map(self->p.prov, page, PROT_READ | PROT_WRITE,
			 self->p.size - page);

	ASSERT_MAPPED(m);
	m[page - 1] = 0x7e;
	EXPECT_EQ(0x7e, self->map[self->p.size - 1]);
	munmap(m, page);
}

TEST_F(geometry, manager_map_too_long_einval)
{
	EXPECT_MAP_FAILED(tb_mgr_map(self->p.buf_fd,
				     self->p.size + tb_page_size()));
	EXPECT_EQ(EINVAL, errno);
}

/* ------------------------------------------------------------------ */
/* Who may map what                                                   */

/*
 * The buffer of these tests: 16 pages (64 KiB with 4 KiB pages), each but
 * the header's filled with its number, so that single pages can be
 * unmapped, moved and probed.
 */
#define TB_MM_SIZE	(16 * tb_page_size())

FIXTURE(mm) {
	struct tb_peer p;
	char *map;
	struct tb_param total;
};

FIXTURE_SETUP(mm)
{
	tb_peer_init(&self->p);
	self->map = MAP_FAILED;
	memset(&self->total, 0, sizeof(self->total));
	TB_REQUIRE_DEV();
	tb_peer_open(_metadata, &self->p, "mm", 0);
	self->p.mode = TRACEBUF_MODE_CIRCULAR;
	self->p.size = TB_MM_SIZE;
}

FIXTURE_TEARDOWN(mm)
{
	if (self->map != MAP_FAILED)
		munmap(self->map, self->p.size);
	tb_peer_close(&self->p);
	EXPECT_EQ(0, tb_param_restore(&self->total));
}

/* INITIALIZED, provider mapping filled with a page-number pattern. */
static void tb_mm_ready(struct __test_metadata *_metadata,
			FIXTURE_DATA(mm) *self)
{
	size_t page = tb_page_size(), i;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_INITIALIZED);
	self->map = tb_provider_map(_metadata, &self->p);
	for (i = page; i < TB_MM_SIZE; i++)
		self->map[i] = (char)(i / page);
}

/* The buffer, read through the manager's handle, still has the pattern. */
static bool tb_pattern_intact(int buf_fd)
{
	size_t page = tb_page_size(), size = TB_MM_SIZE, i;
	char *buf = malloc(size);
	bool intact = buf && pread(buf_fd, buf, size, 0) == (ssize_t)size;

	for (i = page; intact && i < size; i++)
		intact = buf[i] == (char)(i / page);
	free(buf);
	return intact;
}

TEST_F(mm, map_before_initialize_enodev)
{
	EXPECT_MAP_FAILED(tb_map(self->p.prov, tb_page_size(),
				 PROT_READ | PROT_WRITE, 0));
	EXPECT_EQ(ENODEV, errno);
}

TEST_F(mm, map_after_release_enodev)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_TERMINATING);
	ASSERT_EQ(0, provider_release(self->p.prov));
	EXPECT_MAP_FAILED(tb_map(self->p.prov, tb_page_size(),
				 PROT_READ | PROT_WRITE, 0));
	EXPECT_EQ(ENODEV, errno);
}

TEST_F(mm, provider_map_private_refused)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_INITIALIZED);
	EXPECT_MAP_FAILED(mmap(NULL, TB_MM_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE, self->p.prov, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(mm, manager_map_private_refused)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_INITIALIZED);
	EXPECT_MAP_FAILED(mmap(NULL, TB_MM_SIZE, PROT_READ, MAP_PRIVATE,
			       self->p.buf_fd, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(mm, manager_map_write_eacces)
{
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_INITIALIZED);
	EXPECT_MAP_FAILED(tb_map(self->p.buf_fd, TB_MM_SIZE,
				 PROT_READ | PROT_WRITE, 0));
	EXPECT_EQ(EACCES, errno);
}

TEST_F(mm, manager_mprotect_write_eacces)
{
	void *m;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_INITIALIZED);
	m = tb_mgr_map(self->p.buf_fd, TB_MM_SIZE);
	ASSERT_MAPPED(m);
	EXPECT_EQ(-1, mprotect(m, TB_MM_SIZE, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(-1, mprotect(m, tb_page_size(), PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(m, TB_MM_SIZE);
}

TEST_F(mm, manager_write_to_handle_refused)
{
	char c = 1;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_INITIALIZED);
	/* (pwrite() would stop earlier, at ESPIPE, on a file without pwrite) */
	EXPECT_EQ(-1, write(self->p.buf_fd, &c, 1));
	EXPECT_EQ(EBADF, errno);
}

/* Neither mapping may be executable, now or later. */
TEST_F(mm, exec_refused)
{
	void *m;

	tb_drive(_metadata, &self->p, TRACEBUF_STATE_INITIALIZED);
	EXPECT_MAP_FAILED(tb_map(self->p.prov, TB_MM_SIZE,
				 PROT_READ | PROT_WRITE | PROT_EXEC, 0));
	EXPECT_EQ(EPERM, errno);
	EXPECT_MAP_FAILED(tb_map(self->p.buf_fd, TB_MM_SIZE, PROT_READ | PROT_EXEC, 0));
	EXPECT_EQ(EPERM, errno);
	m = tb_provider_map(_metadata, &self->p);
	EXPECT_EQ(-1, mprotect(m, tb_page_size(), PROT_READ | PROT_EXEC));
	EXPECT_EQ(EACCES, errno);
	munmap(m, TB_MM_SIZE);
	m = tb_mgr_map(self->p.buf_fd, TB_MM_SIZE);
	ASSERT_MAPPED(m);
	EXPECT_EQ(-1, mprotect(m, tb_page_size(), PROT_READ | PROT_EXEC));
	EXPECT_EQ(EACCES, errno);
	munmap(m, TB_MM_SIZE);
}

/*
 * Every madvise() advice, on either mapping: refused, or accepted with
 * the data still there at the next touch (MADV_DONTNEED zaps the pages;
 * a fault brings them back, not SIGBUS).  MADV_HWPOISON and
 * MADV_SOFT_OFFLINE (100, 101) are left out: they inject memory errors.
 */
static const struct {
	int advice;
	const char *name;
} tb_advices[] = {
	{ 0, "NORMAL" }, { 1, "RANDOM" }, { 2, "SEQUENTIAL" }, { 3, "WILLNEED" },
	{ 4, "DONTNEED" }, { 8, "FREE" }, { 9, "REMOVE" }, { 10, "DONTFORK" },
	{ 11, "DOFORK" }, { 12, "MERGEABLE" }, { 13, "UNMERGEABLE" },
	{ 14, "HUGEPAGE" }, { 15, "NOHUGEPAGE" }, { 16, "DONTDUMP" },
	{ 17, "DODUMP" }, { 18, "WIPEONFORK" }, { 19, "KEEPONFORK" },
	{ 20, "COLD" }, { 21, "PAGEOUT" }, { 22, "POPULATE_READ" },
	{ 23, "POPULATE_WRITE" }, { 24, "DONTNEED_LOCKED" }, { 25, "COLLAPSE" },
};

/*
 * In a child: apply @advice to @m (@writable: the provider's), then read
 * every page and compare with the pattern; write one byte per page back
 * if writable.  The child's exit status: 0, or 128 + a signal.
 */
static int tb_advise_and_touch(char *m, bool writable, int advice)
{
	size_t page = tb_page_size(), size = TB_MM_SIZE, i;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		madvise(m, size, advice);
		for (i = page; i < size; i += 97)
			if (m[i] != (char)(i / page))
				_exit(1);
		if (writable)
			for (i = page; i < size; i += page)
				m[i] = (char)(i / page);
		_exit(0);
	}
	return tb_wait_child(pid);
}

TEST_F(mm, every_madvise_keeps_the_data)
{
	char *mgr;
	size_t i;

	tb_mm_ready(_metadata, self);
	mgr = tb_mgr_map(self->p.buf_fd, TB_MM_SIZE);
	ASSERT_MAPPED(mgr);
	for (i = 0; i < ARRAY_SIZE(tb_advices); i++) {
		int ret;

		/* the mappings are not inherited by the children: share them */
		ASSERT_EQ(0, madvise(self->map, TB_MM_SIZE, MADV_DOFORK));
		ASSERT_EQ(0, madvise(mgr, TB_MM_SIZE, MADV_DOFORK));
		ret = tb_advise_and_touch(self->map, true, tb_advices[i].advice);
		EXPECT_EQ(0, ret) TH_LOG("MADV_%s on the provider's mapping: %d",
					 tb_advices[i].name, ret);
		ret = tb_advise_and_touch(mgr, false, tb_advices[i].advice);
		EXPECT_EQ(0, ret) TH_LOG("MADV_%s on the manager's mapping: %d",
					 tb_advices[i].name, ret);
		/* and here, where the buffer stays mapped afterwards */
		madvise(self->map, TB_MM_SIZE, tb_advices[i].advice);
		madvise(mgr, TB_MM_SIZE, tb_advices[i].advice);
		ASSERT_EQ(0, madvise(self->map, TB_MM_SIZE, MADV_DOFORK));
		ASSERT_EQ(0, tb_advise_and_touch(self->map, true, 0))
			TH_LOG("after MADV_%s here", tb_advices[i].name);
		EXPECT_TRUE(tb_pattern_intact(self->p.buf_fd));
	}
	munmap(mgr, TB_MM_SIZE);
}

TEST_F(mm, two_provider_mappings_share_memory)
{
	size_t page = tb_page_size();
	char *m2;

	tb_mm_ready(_metadata, self);
	m2 = tb_provider_map(_metadata, &self->p);
	m2[page + 5] = 0x66;
	EXPECT_EQ(0x66, self->map[page + 5]);
	munmap(m2, TB_MM_SIZE);
}

/* write() of one byte from addr: 0 if readable, EFAULT if not mapped. */
static int tb_probe_addr(const void *addr)
{
	int pfd[2], ret;

	if (pipe(pfd))
		return errno;
	ret = write(pfd[1], addr, 1) == 1 ? 0 : errno;
	close(pfd[0]);
	close(pfd[1]);
	return ret;
}

TEST_F(mm, fork_child_does_not_inherit_mapping)
{
	size_t page = tb_page_size();
	pid_t pid;

	tb_mm_ready(_metadata, self);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(tb_probe_addr(self->map + page) == EFAULT ? 0 : 1);
	EXPECT_EQ(0, tb_wait_child(pid)) TH_LOG("the child could read it");
	EXPECT_EQ(0, tb_probe_addr(self->map + page));
}

TEST_F(mm, fork_after_madv_dofork_shares_mapping)
{
	size_t page = tb_page_size();
	pid_t pid;

	tb_mm_ready(_metadata, self);
	ASSERT_EQ(0, madvise(self->map, TB_MM_SIZE, MADV_DOFORK));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (self->map[2 * page] != 2)
			_exit(1);
		self->map[3 * page + 1] = 0x77;
		_exit(0);
	}
	EXPECT_EQ(0, tb_wait_child(pid));
	EXPECT_EQ(0x77, self->map[3 * page + 1]);
	self->map[3 * page + 1] = 3;
	EXPECT_TRUE(tb_pattern_intact(self->p.buf_fd));
}

TEST_F(mm, memory_freed_when_last_user_exits)
{
	int pfd[2], prov2, buf2 = -1;
	__u32 id2;
	pid_t pid;
	char c;

	/* room for exactly one buffer of this size */
	ASSERT_EQ(0, tb_param_change(&self->total, "max_total_memory",
				     TB_MM_SIZE));
	tb_mm_ready(_metadata, self);
	ASSERT_EQ(0, madvise(self->map, TB_MM_SIZE, MADV_DOFORK));
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(pfd[1]);
		/* hold only the inherited mapping */
		close(self->p.prov);
		close(self->p.buf_fd);
		close(self->p.mgr);
		if (read(pfd[0], &c, 1) < 0)
			_exit(2);
		_exit(self->map[tb_page_size()] == 1 ? 0 : 1);
	}
	close(pfd[0]);
	/* drop every user in this process */
	munmap(self->map, TB_MM_SIZE);
	self->map = MAP_FAILED;
	tb_close(&self->p.prov);
	tb_close(&self->p.buf_fd);
	prov2 = tb_open_provider("mm-second", &id2);
	ASSERT_LE(0, prov2);
	/* the child's mapping still holds the memory */
	EXPECT_EQ(-ENOMEM, mgr_initialize(self->p.mgr, id2,
					  TRACEBUF_MODE_ONESHOT, TB_MM_SIZE,
					  NULL, NULL));
	close(pfd[1]);
	EXPECT_EQ(0, tb_wait_child(pid));
	/*
	 * The provider is gone by now whether or not its mapping pinned
	 * its file; and with the child gone, so is the buffer.
	 */
	tb_next_msg(_metadata, self->p.mgr, self->p.id, TRACEBUF_MSG_GONE,
		    TRACEBUF_STATE_INITIALIZED, NULL);
	EXPECT_EQ(0, mgr_initialize(self->p.mgr, id2, TRACEBUF_MODE_ONESHOT,
				    TB_MM_SIZE, NULL, &buf2));
	if (buf2 >= 0)
		close(buf2);
	close(prov2);
}

TEST_F(mm, partial_munmap_keeps_the_rest)
{
	size_t page = tb_page_size(), i;

	tb_mm_ready(_metadata, self);
	ASSERT_EQ(0, munmap(self->map + 5 * page, page));
	for (i = page; i < TB_MM_SIZE; i += page) {
		if (i == 5 * page)
			continue;
		EXPECT_EQ((char)(i / page), self->map[i + 17]);
		self->map[i + 17] = (char)(i / page);	/* writable */
	}
	EXPECT_TRUE(tb_pattern_intact(self->p.buf_fd));
	/* unmap the rest in two pieces */
	ASSERT_EQ(0, munmap(self->map, 5 * page));
	ASSERT_EQ(0, munmap(self->map + 6 * page, TB_MM_SIZE - 6 * page));
	self->map = MAP_FAILED;
	EXPECT_TRUE(tb_pattern_intact(self->p.buf_fd));
}

TEST_F(mm, mremap_shrink_keeps_memory)
{
	void *m;

	tb_mm_ready(_metadata, self);
	m = mremap(self->map, TB_MM_SIZE, TB_MM_SIZE / 2, 0);
	if (m != MAP_FAILED) {
		EXPECT_TRUE(m == (void *)self->map);
		EXPECT_EQ(7, self->map[7 * tb_page_size()]);
		munmap(self->map, TB_MM_SIZE / 2);
		self->map = MAP_FAILED;
	}
	EXPECT_TRUE(tb_pattern_intact(self->p.buf_fd));
}

TEST_F(mm, mremap_grow_refused)
{
	void *m;

	tb_mm_ready(_metadata, self);
	m = mremap(self->map, TB_MM_SIZE, 2 * TB_MM_SIZE, 0);
	EXPECT_MAP_FAILED(m);
	m = mremap(self->map, TB_MM_SIZE, 2 * TB_MM_SIZE, MREMAP_MAYMOVE);
	EXPECT_MAP_FAILED(m);
	if (m != MAP_FAILED) {
		munmap(m, 2 * TB_MM_SIZE);
	} else {
		EXPECT_EQ(1, self->map[tb_page_size()]);
	}
	EXPECT_TRUE(tb_pattern_intact(self->p.buf_fd));
}

TEST_F(mm, mremap_move_keeps_memory)
{
	size_t page = tb_page_size();
	char *target, *m;

	tb_mm_ready(_metadata, self);
	target = mmap(NULL, TB_MM_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	ASSERT_MAPPED(target);
	m = mremap(self->map, TB_MM_SIZE, TB_MM_SIZE,
		   MREMAP_MAYMOVE | MREMAP_FIXED, target);
	if (m == MAP_FAILED) {
		munmap(target, TB_MM_SIZE);
	} else {
		self->map = m;
		EXPECT_EQ(4, m[4 * page + 9]);
		m[4 * page + 9] = 0x44;
		EXPECT_EQ(0x44, ((volatile char *)m)[4 * page + 9]);
		m[4 * page + 9] = 4;
	}
	EXPECT_TRUE(tb_pattern_intact(self->p.buf_fd));
}

TEST_F(mm, buffer_outlives_provider_file_and_mapping)
{
	void *m;

	tb_mm_ready(_metadata, self);
	munmap(self->map, TB_MM_SIZE);
	self->map = MAP_FAILED;
	tb_close(&self->p.prov);
	tb_next_msg(_metadata, self->p.mgr, self->p.id, TRACEBUF_MSG_GONE,
		    TRACEBUF_STATE_INITIALIZED, NULL);
	EXPECT_TRUE(tb_pattern_intact(self->p.buf_fd));
	m = tb_mgr_map(self->p.buf_fd, TB_MM_SIZE);
	ASSERT_MAPPED(m);
	EXPECT_EQ(9, ((char *)m)[9 * tb_page_size()]);
	munmap(m, TB_MM_SIZE);
}

TEST_F(mm, handle_outlives_manager_file)
{
	size_t page = tb_page_size();
	void *m;

	tb_mm_ready(_metadata, self);
	m = tb_mgr_map(self->p.buf_fd, TB_MM_SIZE);
	ASSERT_MAPPED(m);
	tb_close(&self->p.mgr);
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_MANAGER_GONE, NULL);
	/* the provider's old mapping and the handle still share the memory */
	self->map[10 * page] = 0x31;
	EXPECT_EQ(0x31, ((volatile char *)m)[10 * page]);
	self->map[10 * page] = 10;
	EXPECT_TRUE(tb_pattern_intact(self->p.buf_fd));
	munmap(m, TB_MM_SIZE);
}

TEST_F(mm, mapping_outlives_provider_file)
{
	size_t page = tb_page_size();

	tb_mm_ready(_metadata, self);
	tb_close(&self->p.prov);
	/* still valid memory, shared with the handle */
	self->map[11 * page] = 0x32;
	EXPECT_EQ(0x32, self->map[11 * page]);
	self->map[11 * page] = 11;
	EXPECT_TRUE(tb_pattern_intact(self->p.buf_fd));
}

/* ------------------------------------------------------------------ */
/* Buffer dispositions at START                                       */

FIXTURE(dispo) {
	struct tb_peer p;
	char *map;
	char *mgr_view;
	char *before;		/* copy of the buffer before START */
	__u64 durable, rolling;
};

FIXTURE_VARIANT(dispo) {
	__u32 disposition;
	bool from_initialized;	/* first START instead of a restart */
};

FIXTURE_VARIANT_ADD(dispo, clear_entire) {
	.disposition = TRACEBUF_START_CLEAR_ENTIRE,
};
FIXTURE_VARIANT_ADD(dispo, clear_nondurable) {
	.disposition = TRACEBUF_START_CLEAR_NONDURABLE,
};
FIXTURE_VARIANT_ADD(dispo, retain) {
	.disposition = TRACEBUF_START_RETAIN,
};
FIXTURE_VARIANT_ADD(dispo, first_start_clear_entire) {
	.disposition = TRACEBUF_START_CLEAR_ENTIRE, .from_initialized = true,
};
FIXTURE_VARIANT_ADD(dispo, first_start_clear_nondurable) {
	.disposition = TRACEBUF_START_CLEAR_NONDURABLE, .from_initialized = true,
};
FIXTURE_VARIANT_ADD(dispo, first_start_retain) {
	.disposition = TRACEBUF_START_RETAIN, .from_initialized = true,
};

#define TB_DISPO_SIZE		(64 * 1024)
#define TB_DURABLE_END		64

FIXTURE_SETUP(dispo)
{
	struct tracebuf_buffer_header *h;
	struct tracebuf_pkt pkt;
	char *durable;

	tb_peer_init(&self->p);
	self->map = self->mgr_view = MAP_FAILED;
	self->before = NULL;
	TB_REQUIRE_DEV();
	tb_peer_open(_metadata, &self->p, "dispo", 0);
	self->p.mode = TRACEBUF_MODE_CIRCULAR;
	self->p.size = TB_DISPO_SIZE;
	tb_buffer_sizes(self->p.mode, self->p.size, &self->durable,
			&self->rolling);
	tb_drive(_metadata, &self->p, variant->from_initialized ?
		 TRACEBUF_STATE_INITIALIZED : TRACEBUF_STATE_STARTED);
	self->map = tb_provider_map(_metadata, &self->p);
	self->mgr_view = tb_mgr_map(self->p.buf_fd, TB_DISPO_SIZE);
	ASSERT_MAPPED(self->mgr_view);

	/* the provider writes everything it owns */
	durable = self->map + TRACEBUF_HEADER_SIZE;
	memset(durable, 0x11, self->durable);
	memset(durable + self->durable, 0x22, self->rolling);
	memset(durable + self->durable + self->rolling, 0x33, self->rolling);
	h = (void *)self->map;
	h->wrapped_count = 3;
	h->durable_data_end = TB_DURABLE_END;
	h->rolling_data_end[0] = self->rolling;
	h->rolling_data_end[1] = 128;
	h->num_records_dropped = 7;
	h->stop_mark = TRACEBUF_HEADER_STOP_MARK;
	h->bytes_recorded = 1234;
	h->reserved[0] = 0xdeadbeef;

	if (!variant->from_initialized)
		tb_peer_stop(_metadata, &self->p);
	self->before = malloc(TB_DISPO_SIZE);
	ASSERT_TRUE(self->before != NULL);
	memcpy(self->before, self->map, TB_DISPO_SIZE);
	ASSERT_EQ(0, mgr_start(self->p.mgr, self->p.id, variant->disposition,
			       NULL));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_START, &pkt);
	EXPECT_EQ(variant->disposition, pkt.data16);
}

FIXTURE_TEARDOWN(dispo)
{
	free(self->before);
	if (self->mgr_view != MAP_FAILED)
		munmap(self->mgr_view, TB_DISPO_SIZE);
	if (self->map != MAP_FAILED)
		munmap(self->map, TB_DISPO_SIZE);
	tb_peer_close(&self->p);
}

TEST_F(dispo, header_fields)
{
	const struct tracebuf_buffer_header *h = (const void *)self->mgr_view;

	/* the kernel's fields always stay right */
	EXPECT_EQ(TRACEBUF_HEADER_MAGIC, h->magic);
	EXPECT_EQ(TRACEBUF_HEADER_VERSION, h->version);
	EXPECT_EQ(TRACEBUF_HEADER_MODE_CIRCULAR, h->buffering_mode);
	EXPECT_EQ((__u64)TB_DISPO_SIZE, h->total_size);
	EXPECT_EQ(self->durable, h->durable_buffer_size);
	EXPECT_EQ(self->rolling, h->rolling_buffer_size);
	switch (variant->disposition) {
	case TRACEBUF_START_CLEAR_ENTIRE:
		EXPECT_EQ(0U, h->wrapped_count);
		EXPECT_EQ(0ULL, h->durable_data_end);
		EXPECT_EQ(0ULL, h->rolling_data_end[0]);
		EXPECT_EQ(0ULL, h->rolling_data_end[1]);
		EXPECT_EQ(0ULL, h->num_records_dropped);
		break;
	case TRACEBUF_START_CLEAR_NONDURABLE:
		EXPECT_EQ(0U, h->wrapped_count);
		EXPECT_EQ((__u64)TB_DURABLE_END, h->durable_data_end);
		EXPECT_EQ(0ULL, h->rolling_data_end[0]);
		EXPECT_EQ(0ULL, h->rolling_data_end[1]);
		EXPECT_EQ(0ULL, h->num_records_dropped);
		break;
	default:
		EXPECT_EQ(3U, h->wrapped_count);
		EXPECT_EQ((__u64)TB_DURABLE_END, h->durable_data_end);
		EXPECT_EQ(self->rolling, h->rolling_data_end[0]);
		EXPECT_EQ(128ULL, h->rolling_data_end[1]);
		EXPECT_EQ(7ULL, h->num_records_dropped);
		break;
	}
}

TEST_F(dispo, durable_buffer)
{
	const char *d = self->mgr_view + TRACEBUF_HEADER_SIZE;

	if (variant->disposition == TRACEBUF_START_CLEAR_ENTIRE) {
		EXPECT_TRUE(tb_all_bytes(d, self->durable, 0));
	} else {
		EXPECT_TRUE(tb_all_bytes(d, self->durable, 0x11));
	}
}

TEST_F(dispo, rolling_buffers)
{
	const char *r = self->mgr_view + TRACEBUF_HEADER_SIZE + self->durable;

	if (variant->disposition == TRACEBUF_START_RETAIN) {
		EXPECT_TRUE(tb_all_bytes(r, self->rolling, 0x22));
		EXPECT_TRUE(tb_all_bytes(r + self->rolling, self->rolling,
					 0x33));
	} else {
		EXPECT_TRUE(tb_all_bytes(r, 2 * self->rolling, 0));
	}
}

TEST_F(dispo, kept_bytes_identical)
{
	const size_t kernel_fields = offsetof(struct tracebuf_buffer_header,
					      durable_data_end);
	const size_t durable_end = offsetof(struct tracebuf_buffer_header,
					    durable_data_end);

	/* magic .. rolling_buffer_size: written by the kernel, kept by all */
	EXPECT_EQ(0, memcmp(self->before, self->mgr_view,
			    offsetof(struct tracebuf_buffer_header,
				     wrapped_count)));
	EXPECT_EQ(0, memcmp(self->before + 16, self->mgr_view + 16,
			    kernel_fields - 16));
	switch (variant->disposition) {
	case TRACEBUF_START_RETAIN:
		EXPECT_EQ(0, memcmp(self->before, self->mgr_view,
				    TB_DISPO_SIZE));
		break;
	case TRACEBUF_START_CLEAR_NONDURABLE:
		EXPECT_EQ(0, memcmp(self->before + durable_end,
				    self->mgr_view + durable_end, 8));
		EXPECT_EQ(0, memcmp(self->before + TRACEBUF_HEADER_SIZE,
				    self->mgr_view + TRACEBUF_HEADER_SIZE,
				    self->durable));
		break;
	default:
		/* CLEAR_ENTIRE rewrote the header: no provider field left */
		EXPECT_EQ(0ULL, ((const struct tracebuf_buffer_header *)
				 self->mgr_view)->reserved[0]);
		EXPECT_EQ(0ULL, ((const struct tracebuf_buffer_header *)
				 self->mgr_view)->bytes_recorded);
		EXPECT_EQ(0ULL, ((const struct tracebuf_buffer_header *)
				 self->mgr_view)->stop_mark);
		break;
	}
}

TEST_F(dispo, provider_mapping_sees_the_same)
{
	EXPECT_EQ(0, memcmp(self->map, self->mgr_view, TB_DISPO_SIZE));
}

TEST_HARNESS_MAIN

/* ------------------------------------------------------------------ */
/* The kernel's header fields while START clears the buffer            */

/*
 * A provider may read the sizes in the header at any time after
 * INITIALIZE, even while a START clears the buffer: a clear must never
 * make them transiently zero.  A reader child watches them through the
 * manager's handle while the parent restarts the provider many times with
 * each clearing disposition.
 */
#define TB_CLEAR_SIZE		(4 * 1024 * 1024)
#define TB_CLEAR_ROUNDS		24

FIXTURE(clears) {
	struct tb_peer p;
	pid_t reader;
	int stop_pipe[2];
};

FIXTURE_SETUP(clears)
{
	tb_peer_init(&self->p);
	self->reader = -1;
	self->stop_pipe[0] = self->stop_pipe[1] = -1;
	TB_REQUIRE_DEV();
	tb_peer_open(_metadata, &self->p, "clears", 0);
	self->p.mode = TRACEBUF_MODE_CIRCULAR;
	self->p.size = TB_CLEAR_SIZE;
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	ASSERT_EQ(0, pipe(self->stop_pipe));
}

FIXTURE_TEARDOWN(clears)
{
	if (self->reader > 0) {
		kill(self->reader, SIGKILL);
		tb_wait_child(self->reader);
	}
	tb_close(&self->stop_pipe[0]);
	tb_close(&self->stop_pipe[1]);
	tb_peer_close(&self->p);
}

/* Child: count reads of a wrong kernel field until the pipe closes. */
static void __attribute__((noreturn)) tb_header_watcher(int buf_fd, int stop_fd,
						       __u64 durable, __u64 rolling)
{
	const volatile struct tracebuf_buffer_header *h;
	struct pollfd pfd = { .fd = stop_fd, .events = POLLIN };
	unsigned long reads = 0, bad = 0;

	h = tb_map(buf_fd, TB_CLEAR_SIZE, PROT_READ, 0);
	if ((void *)h == MAP_FAILED)
		_exit(2);
	for (;;) {
		if (h->magic != TRACEBUF_HEADER_MAGIC ||
		    h->total_size != TB_CLEAR_SIZE ||
		    h->durable_buffer_size != durable ||
		    h->rolling_buffer_size != rolling ||
		    h->buffering_mode != TRACEBUF_HEADER_MODE_CIRCULAR)
			bad++;
		if (!(++reads % 4096) && poll(&pfd, 1, 0))
			break;
	}
	_exit(bad ? 1 : 0);
}

TEST_F(clears, kernel_fields_never_change)
{
	struct tracebuf_pkt pkt;
	__u64 durable, rolling;
	int round;

	tb_buffer_sizes(TRACEBUF_MODE_CIRCULAR, TB_CLEAR_SIZE, &durable, &rolling);
	self->reader = fork();
	ASSERT_LE(0, self->reader);
	if (self->reader == 0) {
		close(self->stop_pipe[1]);
		tb_header_watcher(self->p.buf_fd, self->stop_pipe[0], durable,
				  rolling);
	}
	tb_close(&self->stop_pipe[0]);

	for (round = 0; round < TB_CLEAR_ROUNDS; round++) {
		tb_peer_stop(_metadata, &self->p);
		ASSERT_EQ(0, mgr_start(self->p.mgr, self->p.id, round % 2 ?
				       TRACEBUF_START_CLEAR_NONDURABLE :
				       TRACEBUF_START_CLEAR_ENTIRE, NULL));
		tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_START, NULL);
		ASSERT_EQ(0, provider_started(self->p.prov));
		pkt = tb_pkt(TRACEBUF_PKT_STARTED, 0, 1, 0);
		tb_next_msg_pkt(_metadata, self->p.mgr, self->p.id,
				TRACEBUF_STATE_STARTED, &pkt);
	}
	tb_close(&self->stop_pipe[1]);
	EXPECT_EQ(0, tb_wait_child(self->reader))
		TH_LOG("the reader saw a kernel header field change");
	self->reader = -1;
}

/* ------------------------------------------------------------------ */
/* Sealed saves (INITIALIZE's TRACEBUF_INIT_F_SEAL_SAVES)             */

#define TB_SEAL_SIZE	(256 * 1024)

FIXTURE(seal) {
	struct tb_peer p;
	char *map;		/* provider's read-write mapping */
	const char *mgr;	/* manager's read-only one */
	size_t off[2];		/* each rolling buffer's first sealed page */
	size_t end[2];		/* and the end of its last */
};

FIXTURE_SETUP(seal)
{
	size_t page = tb_page_size();
	__u64 durable, rolling;
	int r;

	tb_peer_init(&self->p);
	self->map = MAP_FAILED;
	self->mgr = MAP_FAILED;
	TB_REQUIRE_DEV();
	tb_peer_open(_metadata, &self->p, "seal", 0);
	self->p.size = TB_SEAL_SIZE > 16 * page ? TB_SEAL_SIZE : 16 * page;
	self->p.init_flags = TRACEBUF_INIT_F_SEAL_SAVES;
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	self->map = tb_provider_map(_metadata, &self->p);
	self->mgr = tb_mgr_map(self->p.buf_fd, self->p.size);
	ASSERT_MAPPED(self->mgr);
	tb_buffer_sizes(TRACEBUF_MODE_STREAMING, self->p.size, &durable, &rolling);
	for (r = 0; r < 2; r++) {
		size_t start = TRACEBUF_HEADER_SIZE + durable + r * rolling;

		self->off[r] = (start + page - 1) / page * page;
		self->end[r] = (start + rolling) / page * page;
		ASSERT_LT(self->off[r], self->end[r]);
	}
}

FIXTURE_TEARDOWN(seal)
{
	if (self->map && self->map != MAP_FAILED)
		munmap(self->map, self->p.size);
	if (self->mgr && self->mgr != MAP_FAILED)
		munmap((void *)self->mgr, self->p.size);
	tb_peer_close(&self->p);
}

/* A read() of one byte from a pipe into @p: 0 or its errno. */
static int tb_syscall_write(char *p)
{
	int pfd[2], ret;

	if (pipe(pfd))
		return errno;
	ret = write(pfd[1], "s", 1) == 1 && read(pfd[0], p, 1) == 1 ? 0 : errno;
	close(pfd[0]);
	close(pfd[1]);
	return ret;
}

/* SAVE_BUFFER of rolling buffer @r: the manager reads it SEALED. */
static void tb_seal_save(struct __test_metadata *_metadata, struct tb_peer *p,
			 __u32 wrapped)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_SAVE_BUFFER, 0, wrapped, 0);
	struct tracebuf_mgr_msg m;

	ASSERT_EQ(0, provider_send_pkt(p->prov, &pkt));
	tb_next_msg(_metadata, p->mgr, p->id, TRACEBUF_MSG_PACKET,
		    TRACEBUF_STATE_STARTED, &m);
	EXPECT_EQ(TRACEBUF_PKT_SAVE_BUFFER, m.pkt.request);
	EXPECT_EQ(TRACEBUF_SAVE_SEALED, m.pkt.data16);
	EXPECT_EQ(wrapped, m.pkt.data32);
}

TEST_F(seal, save_is_sealed_until_buffer_saved)
{
	size_t page = tb_page_size(), i;
	char *m2;

	/* map every page, and mark it */
	for (i = self->off[0]; i < self->end[0]; i += page)
		self->map[i] = 0x5e;
	tb_seal_save(_metadata, &self->p, 0);

	/* no access from the provider: its mappings, a system call, a new mapping */
	for (i = self->off[0]; i < self->end[0]; i += page) {
		ASSERT_EQ(SIGBUS, tb_touch(self->map + i, true)) TH_LOG("offset %zu", i);
		ASSERT_EQ(SIGBUS, tb_touch(self->map + i + page - 1, false));
	}
	EXPECT_EQ(EFAULT, tb_syscall_write(self->map + self->off[0]));
	m2 = tb_provider_map(_metadata, &self->p);
	EXPECT_EQ(SIGBUS, tb_touch(m2 + self->off[0], true));
	/* the rest of the buffer is the provider's */
	EXPECT_EQ(0, tb_touch(self->map + self->off[0] - 1, true));
	EXPECT_EQ(0, tb_touch(self->map + self->end[0], true));
	EXPECT_EQ(0, tb_touch(self->map + self->off[1], true));
	EXPECT_EQ(0, tb_touch(m2 + self->off[1] + 1, true));
	EXPECT_EQ(0, tb_touch(self->map + 64, true));
	/* the manager reads it in place */
	for (i = self->off[0]; i < self->end[0]; i += page)
		ASSERT_EQ(0x5e, self->mgr[i]);

	ASSERT_EQ(0, mgr_buffer_saved(self->p.mgr, self->p.id, 0, 0));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_BUFFER_SAVED, NULL);
	for (i = self->off[0]; i < self->end[0]; i += page) {
		ASSERT_EQ(0x5e, self->map[i]);
		ASSERT_EQ(0, tb_touch(self->map + i, true));
		ASSERT_EQ(0x5f, self->mgr[i]);
	}
	EXPECT_EQ(0, tb_touch(m2 + self->off[0], true));
	EXPECT_EQ(0, tb_syscall_write(self->map + self->off[0]));
	munmap(m2, self->p.size);

	/* the other rolling buffer, the same way */
	tb_seal_save(_metadata, &self->p, 1);
	EXPECT_EQ(SIGBUS, tb_touch(self->map + self->off[1], true));
	EXPECT_EQ(0, tb_touch(self->map + self->off[0], true));
	ASSERT_EQ(0, mgr_buffer_saved(self->p.mgr, self->p.id, 1, 0));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_BUFFER_SAVED, NULL);
	EXPECT_EQ(0, tb_touch(self->map + self->off[1], true));
}

TEST_F(seal, unsealed_when_the_manager_goes)
{
	tb_seal_save(_metadata, &self->p, 0);
	EXPECT_EQ(SIGBUS, tb_touch(self->map + self->off[0], true));
	tb_close(&self->p.mgr);
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_MANAGER_GONE, NULL);
	EXPECT_EQ(0, tb_touch(self->map + self->off[0], true));
}

/* STOP of the provider: it answers STOPPED, which the manager reads with @sealed. */
static void tb_seal_stop(struct __test_metadata *_metadata, struct tb_peer *p,
			 __u16 sealed)
{
	struct tracebuf_mgr_msg m;

	ASSERT_EQ(0, mgr_stop(p->mgr, p->id));
	tb_next_pkt(_metadata, p->prov, TRACEBUF_PKT_STOP, NULL);
	ASSERT_EQ(0, provider_stopped(p->prov));
	tb_next_msg(_metadata, p->mgr, p->id, TRACEBUF_MSG_PACKET, TRACEBUF_STATE_STOPPED, &m);
	EXPECT_EQ(TRACEBUF_PKT_STOPPED, m.pkt.request);
	EXPECT_EQ(sealed, m.pkt.data16);
	EXPECT_EQ(0u, m.pkt.data32);
	EXPECT_EQ(0ull, m.pkt.data64);
}

/* START again, as it was: the provider hears of it, and says STARTED. */
static void tb_seal_restart(struct __test_metadata *_metadata, struct tb_peer *p)
{
	struct tracebuf_pkt pkt = tb_pkt(TRACEBUF_PKT_STARTED, 0,
					 TRACEBUF_FIFO_PROTOCOL_VERSION, 0);

	ASSERT_EQ(0, mgr_start(p->mgr, p->id, TRACEBUF_START_RETAIN, NULL));
	tb_next_pkt(_metadata, p->prov, TRACEBUF_PKT_START, NULL);
	ASSERT_EQ(0, provider_started(p->prov));
	tb_next_msg_pkt(_metadata, p->mgr, p->id, TRACEBUF_STATE_STARTED, &pkt);
}

TEST_F(seal, stop_seals_until_start)
{
	size_t page = tb_page_size(), i;
	int r;

	for (r = 0; r < 2; r++)
		for (i = self->off[r]; i < self->end[r]; i += page)
			self->map[i] = (char)(0x60 + r);
	tb_seal_stop(_metadata, &self->p, TRACEBUF_STOPPED_SEALED0 | TRACEBUF_STOPPED_SEALED1);
	for (r = 0; r < 2; r++) {
		for (i = self->off[r]; i < self->end[r]; i += page) {
			ASSERT_EQ(SIGBUS, tb_touch(self->map + i, true)) TH_LOG("offset %zu", i);
			ASSERT_EQ(0x60 + r, self->mgr[i]);
		}
		EXPECT_EQ(EFAULT, tb_syscall_write(self->map + self->off[r]));
	}
	/* the header, the durable buffer and the shared pages are its own */
	EXPECT_EQ(0, tb_touch(self->map + 64, true));
	EXPECT_EQ(0, tb_touch(self->map + self->off[0] - 1, true));
	EXPECT_EQ(0, tb_touch(self->map + self->end[0], true));

	tb_seal_restart(_metadata, &self->p);
	for (r = 0; r < 2; r++) {
		EXPECT_EQ(0x60 + r, self->map[self->off[r]]);
		EXPECT_EQ(0, tb_touch(self->map + self->off[r], true));
		EXPECT_EQ(0, tb_syscall_write(self->map + self->end[r] - 1));
	}
}

/*
 * A stop while a save is out seals the other rolling buffer only: the
 * provider zeroes the saved one at BUFFER_SAVED, which ends that seal
 * and not the stop's, which START ends.
 */
TEST_F(seal, stop_during_a_save_leaves_it_to_buffer_saved)
{
	tb_seal_save(_metadata, &self->p, 0);
	tb_seal_stop(_metadata, &self->p, TRACEBUF_STOPPED_SEALED1);
	EXPECT_EQ(SIGBUS, tb_touch(self->map + self->off[0], true));
	EXPECT_EQ(SIGBUS, tb_touch(self->map + self->off[1], true));

	ASSERT_EQ(0, mgr_buffer_saved(self->p.mgr, self->p.id, 0, 0));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_BUFFER_SAVED, NULL);
	EXPECT_EQ(0, tb_touch(self->map + self->off[0], true));
	EXPECT_EQ(SIGBUS, tb_touch(self->map + self->off[1], true));

	tb_seal_restart(_metadata, &self->p);
	EXPECT_EQ(0, tb_touch(self->map + self->off[1], true));
	/* and the next stop seals both */
	tb_seal_stop(_metadata, &self->p, TRACEBUF_STOPPED_SEALED0 | TRACEBUF_STOPPED_SEALED1);
	EXPECT_EQ(SIGBUS, tb_touch(self->map + self->off[0], true));
}

/*
 * A save ends when the manager's BUFFER_SAVED reaches the kernel: one
 * the provider reads only after its STOPPED leaves that rolling buffer
 * sealed by the stop, until START (libtracebuf zeroes it then).
 */
TEST_F(seal, save_ended_before_the_stop_stays_sealed)
{
	struct tracebuf_mgr_msg m;

	tb_seal_save(_metadata, &self->p, 0);
	ASSERT_EQ(0, mgr_stop(self->p.mgr, self->p.id));
	ASSERT_EQ(0, mgr_buffer_saved(self->p.mgr, self->p.id, 0, 0));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_STOP, NULL);
	ASSERT_EQ(0, provider_stopped(self->p.prov));
	tb_next_msg(_metadata, self->p.mgr, self->p.id, TRACEBUF_MSG_PACKET,
		    TRACEBUF_STATE_STOPPED, &m);
	EXPECT_EQ(TRACEBUF_PKT_STOPPED, m.pkt.request);
	EXPECT_EQ(TRACEBUF_STOPPED_SEALED0 | TRACEBUF_STOPPED_SEALED1, m.pkt.data16);
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_BUFFER_SAVED, NULL);
	EXPECT_EQ(SIGBUS, tb_touch(self->map + self->off[0], true));
	EXPECT_EQ(SIGBUS, tb_touch(self->map + self->off[1], true));

	tb_seal_restart(_metadata, &self->p);
	EXPECT_EQ(0, tb_touch(self->map + self->off[0], true));
	EXPECT_EQ(0, tb_touch(self->map + self->off[1], true));
}

/*
 * A START while a save is out (the manager has not answered it) ends the
 * stop's seal, not the save's; one that would clear the save is refused.
 */
TEST_F(seal, start_leaves_a_save_sealed)
{
	self->map[self->off[1]] = 0x5a;
	tb_seal_save(_metadata, &self->p, 1);
	tb_seal_stop(_metadata, &self->p, TRACEBUF_STOPPED_SEALED0);
	/* a START that would clear it is refused */
	EXPECT_EQ(-EBUSY, mgr_start(self->p.mgr, self->p.id, TRACEBUF_START_CLEAR_ENTIRE, NULL));
	EXPECT_EQ(-EBUSY, mgr_start(self->p.mgr, self->p.id, TRACEBUF_START_CLEAR_NONDURABLE,
				    NULL));
	EXPECT_EQ(0x5a, self->mgr[self->off[1]]);
	tb_seal_restart(_metadata, &self->p);
	EXPECT_EQ(0, tb_touch(self->map + self->off[0], true));
	EXPECT_EQ(SIGBUS, tb_touch(self->map + self->off[1], true));
	ASSERT_EQ(0, mgr_buffer_saved(self->p.mgr, self->p.id, 1, 0));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_BUFFER_SAVED, NULL);
	EXPECT_EQ(0, tb_touch(self->map + self->off[1], true));
}

/*
 * A provider that leaves the session (TERMINATE, RELEASE) while its
 * manager may still be writing out a sealed rolling buffer does not get
 * those pages of its mapping back: the manager checks and writes them in
 * place.  (Closing its file is no way out: the mapping holds the file.)
 */
TEST_F(seal, leaving_keeps_the_seal)
{
	size_t page = tb_page_size();

	self->map[self->off[0] + page] = 0x7a;
	tb_seal_save(_metadata, &self->p, 0);
	ASSERT_EQ(0, mgr_terminate(self->p.mgr, self->p.id));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_TERMINATE, NULL);
	ASSERT_EQ(0, provider_release(self->p.prov));
	tb_next_msg(_metadata, self->p.mgr, self->p.id, TRACEBUF_MSG_TERMINATED,
		    TRACEBUF_STATE_REGISTERED, NULL);
	EXPECT_EQ(SIGBUS, tb_touch(self->map + self->off[0] + page, true));
	EXPECT_EQ(EFAULT, tb_syscall_write(self->map + self->off[0]));
	EXPECT_EQ(0x7a, self->mgr[self->off[0] + page]);
	/* what no seal held is still its own */
	EXPECT_EQ(0, tb_touch(self->map + self->off[1], true));
}

/* VM_IO and special entries: nothing pins a page, to write it once it is sealed */
TEST_F(seal, mapping_cannot_be_pinned_or_inherited)
{
	char c = 1;
	struct iovec local = { .iov_base = &c, .iov_len = 1 };
	struct iovec remote = { .iov_base = self->map + self->off[0], .iov_len = 1 };
	int pfd[2];

	EXPECT_EQ(-1, process_vm_writev(getpid(), &local, 1, &remote, 1, 0));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, process_vm_readv(getpid(), &local, 1, &remote, 1, 0));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, madvise(self->map, self->p.size, MADV_DOFORK));
	EXPECT_EQ(EINVAL, errno);
	/* a plain store is fine */
	EXPECT_EQ(0, tb_touch(self->map + self->off[0], true));
	/*
	 * Nor does the lockless fast path (get_user_pages_fast(), as
	 * vmsplice, O_DIRECT and io_uring take pages), which looks at the
	 * page tables, not at VM_IO, once the store mapped them: the pages
	 * are mapped as special entries, which it leaves to the slow path.
	 */
	ASSERT_EQ(0, pipe(pfd));
	EXPECT_EQ(-1, vmsplice(pfd[1], &remote, 1, 0));
	EXPECT_EQ(EFAULT, errno);
	close(pfd[0]);
	close(pfd[1]);
}

/*
 * A seal unmaps its rolling buffer from every provider mapping under the
 * module's lock: they are bounded (the fixture's is one), or a provider
 * could make each of its saves hold up every other tracer.
 */
TEST_F(seal, provider_mappings_are_bounded)
{
	size_t page = tb_page_size();
	void *m[TRACEBUF_SEAL_MAPPINGS_MAX - 1];
	int n, last = TRACEBUF_SEAL_MAPPINGS_MAX - 2;

	for (n = 0; n <= last; n++)
		m[n] = tb_provider_map(_metadata, &self->p);
	EXPECT_TRUE(tb_map(self->p.prov, self->p.size, PROT_READ | PROT_WRITE, 0) == MAP_FAILED);
	EXPECT_EQ(ENOMEM, errno);
	/* nor one more by splitting one */
	EXPECT_EQ(-1, munmap((char *)m[0] + page, page));
	EXPECT_EQ(ENOMEM, errno);
	EXPECT_EQ(-1, mprotect(m[0], page, PROT_READ));
	EXPECT_EQ(ENOMEM, errno);
	/* one fewer: a split fits, and still seals what it maps */
	ASSERT_EQ(0, munmap(m[last], self->p.size));
	ASSERT_EQ(0, mprotect(m[0], page, PROT_READ));
	EXPECT_EQ(0, tb_touch((char *)m[0] + self->off[0], true));
	tb_seal_save(_metadata, &self->p, 0);
	EXPECT_EQ(SIGBUS, tb_touch((char *)m[0] + self->off[0], true));
	EXPECT_EQ(SIGBUS, tb_touch(self->map + self->off[0], true));
	for (n = 0; n < last; n++)
		munmap(m[n], self->p.size);
}

/* ptrace and /proc/PID/mem go through the module: reads, and writes but into a seal */
TEST_F(seal, debugger_access_respects_the_seal)
{
	char *at0 = self->map + self->off[0], *at1 = self->map + self->off[1], *ro;
	size_t page = tb_page_size();
	char c = 0;
	int fd;

	fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	at0[page - 1] = 0x11;
	if (tb_kernel_is_arm32()) {
		/* no debugger access at all, sealed or not */
		EXPECT_EQ(-1, pwrite(fd, "\x22", 1, (off_t)(uintptr_t)at0));
		EXPECT_EQ(EIO, errno);
		EXPECT_EQ(-1, pread(fd, &c, 1, (off_t)(uintptr_t)(at0 + page - 1)));
		EXPECT_EQ(EIO, errno);
		EXPECT_EQ(0x11, self->mgr[self->off[0] + page - 1]);
		close(fd);
		return;
	}
	/* a read and a write across the end of a page, each landing in the buffer */
	ASSERT_EQ(2, pwrite(fd, "\x22\x33", 2, (off_t)(uintptr_t)(at0 + page - 1)));
	EXPECT_EQ(0x22, at0[page - 1]);
	EXPECT_EQ(0x33, at0[page]);
	EXPECT_EQ(0x33, self->mgr[self->off[0] + page]);
	ASSERT_EQ(1, pread(fd, &c, 1, (off_t)(uintptr_t)(at0 + page)));
	EXPECT_EQ(0x33, c);

	tb_seal_save(_metadata, &self->p, 0);
	/* sealed: read, not written */
	c = 0;
	EXPECT_EQ(1, pread(fd, &c, 1, (off_t)(uintptr_t)at0 + page));
	EXPECT_EQ(0x33, c);
	EXPECT_EQ(-1, pwrite(fd, "\x44", 1, (off_t)(uintptr_t)(at0 + page)));
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(0x33, self->mgr[self->off[0] + page]);
	/* the other rolling buffer is not sealed */
	EXPECT_EQ(1, pwrite(fd, "\x55", 1, (off_t)(uintptr_t)at1));
	EXPECT_EQ(0x55, self->mgr[self->off[1]]);

	ASSERT_EQ(0, mgr_buffer_saved(self->p.mgr, self->p.id, 0, 0));
	tb_next_pkt(_metadata, self->p.prov, TRACEBUF_PKT_BUFFER_SAVED, NULL);
	EXPECT_EQ(1, pwrite(fd, "\x66", 1, (off_t)(uintptr_t)(at0 + page)));
	EXPECT_EQ(0x66, at0[page]);
	/* nor into a mapping the provider made read-only */
	ro = tb_provider_map(_metadata, &self->p);
	ASSERT_EQ(0, mprotect(ro, self->p.size, PROT_READ));
	EXPECT_EQ(-1, pwrite(fd, "\x77", 1, (off_t)(uintptr_t)(ro + self->off[0])));
	EXPECT_EQ(EIO, errno);
	EXPECT_EQ(1, pread(fd, &c, 1, (off_t)(uintptr_t)(ro + self->off[0] + page)));
	EXPECT_EQ(0x66, c);
	munmap(ro, self->p.size);
	close(fd);
}

TEST_F(seal, unsealable_modes_einval)
{
	struct tb_peer q;
	int fd = -1;

	tb_peer_open(_metadata, &q, "seal2", 0);
	EXPECT_EQ(-EINVAL, mgr_initialize_flags(q.mgr, q.id, TRACEBUF_MODE_CIRCULAR,
						64 * 1024, TRACEBUF_INIT_F_SEAL_SAVES,
						NULL, &fd));
	EXPECT_EQ(-EINVAL, mgr_initialize_flags(q.mgr, q.id, TRACEBUF_MODE_ONESHOT,
						64 * 1024, TRACEBUF_INIT_F_SEAL_SAVES,
						NULL, &fd));
	EXPECT_EQ(-EINVAL, mgr_initialize_flags(q.mgr, q.id, TRACEBUF_MODE_STREAMING,
						64 * 1024, TRACEBUF_INIT_F_ALL << 1,
						NULL, &fd));
	tb_peer_close(&q);
}
