// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf known categories: a provider publishes name and description
 * pairs with PROVIDER_SET_CATEGORIES; any manager that can see it reads
 * them with MGR_GET_CATEGORIES.  Round trips, replacing and clearing,
 * the ENOSPC size report, and one invalid input per subtest.
 */
#define _GNU_SOURCE
#include "tracebuf_selftests.h"

static int set_known(int fd, const void *blob, __u32 size, __u32 count)
{
	struct tracebuf_known_args a = {
		.categories_ptr = tb_ptr(blob),
		.categories_size = size,
		.categories_count = count,
	};

	return tb_ioctl(fd, TRACEBUF_IOC_PROVIDER_SET_CATEGORIES, &a);
}

static int get_known(int fd, __u32 id, void *buf, __u32 *size, __u32 *count)
{
	struct tracebuf_get_known_args a = {
		.provider_id = id,
		.categories_ptr = tb_ptr(buf),
		.categories_size = *size,
		.categories_count = TB_POISON32,
	};
	int ret = tb_ioctl(fd, TRACEBUF_IOC_MGR_GET_CATEGORIES, &a);

	*size = a.categories_size;
	*count = a.categories_count;
	return ret;
}

/* "name\0description\0" pairs, built with sizes given. */
struct tb_pairs {
	char *buf;
	size_t len;
	unsigned int n;
};

static void tb_pairs_add(struct tb_pairs *p, size_t name_len, size_t desc_len)
{
	p->buf = realloc(p->buf, p->len + name_len + desc_len + 2);
	memset(p->buf + p->len, 'n', name_len);
	p->len += name_len;
	p->buf[p->len++] = '\0';
	memset(p->buf + p->len, 'd', desc_len);
	p->len += desc_len;
	p->buf[p->len++] = '\0';
	p->n++;
}

FIXTURE(known) {
	struct tb_peer p;
	void *bad;
};

FIXTURE_SETUP(known)
{
	tb_peer_init(&self->p);
	self->bad = MAP_FAILED;
	TB_REQUIRE_DEV();
	tb_peer_open(_metadata, &self->p, "known", 0);
	self->bad = tb_bad_page();
	ASSERT_MAPPED(self->bad);
}

FIXTURE_TEARDOWN(known)
{
	if (self->bad != MAP_FAILED)
		munmap(self->bad, tb_page_size());
	tb_peer_close(&self->p);
}

static const char tb_list[] = "net\0packets in and out\0gfx\0\0gfx:detail\0per draw call\0";

TEST_F(known, published_list_reads_back)
{
	char buf[256];
	__u32 size = sizeof(buf), count;

	ASSERT_EQ(0, set_known(self->p.prov, tb_list, sizeof(tb_list) - 1, 3));
	memset(buf, TB_POISON8, sizeof(buf));
	ASSERT_EQ(0, get_known(self->p.mgr, self->p.id, buf, &size, &count));
	EXPECT_EQ(sizeof(tb_list) - 1, size);
	EXPECT_EQ(3U, count);
	EXPECT_EQ(0, memcmp(buf, tb_list, sizeof(tb_list) - 1));
	EXPECT_EQ((char)TB_POISON8, buf[size]);
}

TEST_F(known, nothing_published_is_empty)
{
	__u32 size = 0, count;

	ASSERT_EQ(0, get_known(self->p.mgr, self->p.id, NULL, &size, &count));
	EXPECT_EQ(0U, size);
	EXPECT_EQ(0U, count);
}

TEST_F(known, publishing_again_replaces)
{
	static const char second[] = "only\0one\0";
	char buf[256];
	__u32 size = sizeof(buf), count;

	ASSERT_EQ(0, set_known(self->p.prov, tb_list, sizeof(tb_list) - 1, 3));
	ASSERT_EQ(0, set_known(self->p.prov, second, sizeof(second) - 1, 1));
	ASSERT_EQ(0, get_known(self->p.mgr, self->p.id, buf, &size, &count));
	EXPECT_EQ(sizeof(second) - 1, size);
	EXPECT_EQ(1U, count);
	EXPECT_EQ(0, memcmp(buf, second, size));
}

TEST_F(known, empty_list_clears)
{
	__u32 size = 0, count;

	ASSERT_EQ(0, set_known(self->p.prov, tb_list, sizeof(tb_list) - 1, 3));
	ASSERT_EQ(0, set_known(self->p.prov, NULL, 0, 0));
	ASSERT_EQ(0, get_known(self->p.mgr, self->p.id, NULL, &size, &count));
	EXPECT_EQ(0U, size);
	EXPECT_EQ(0U, count);
}

TEST_F(known, short_room_enospc_reports_size)
{
	char buf[8];
	__u32 size = sizeof(buf), count;

	ASSERT_EQ(0, set_known(self->p.prov, tb_list, sizeof(tb_list) - 1, 3));
	memset(buf, TB_POISON8, sizeof(buf));
	EXPECT_EQ(-ENOSPC, get_known(self->p.mgr, self->p.id, buf, &size, &count));
	EXPECT_EQ(sizeof(tb_list) - 1, size);
	EXPECT_EQ((char)TB_POISON8, buf[0]);	/* nothing copied */
}

TEST_F(known, any_manager_that_sees_it_reads_it)
{
	char buf[256];
	__u32 size = sizeof(buf), count;
	int other;

	ASSERT_EQ(0, set_known(self->p.prov, tb_list, sizeof(tb_list) - 1, 3));
	/* owned by the first manager; a second one may still read the list */
	tb_drive(_metadata, &self->p, TRACEBUF_STATE_STARTED);
	other = tb_open_manager(0, NULL);
	ASSERT_LE(0, other);
	EXPECT_EQ(0, get_known(other, self->p.id, buf, &size, &count));
	EXPECT_EQ(3U, count);
	tb_close(&other);
}

TEST_F(known, gone_provider_esrch)
{
	__u32 size = 0, count;

	ASSERT_EQ(0, set_known(self->p.prov, tb_list, sizeof(tb_list) - 1, 3));
	tb_close(&self->p.prov);
	EXPECT_EQ(-ESRCH, get_known(self->p.mgr, self->p.id, NULL, &size, &count));
	EXPECT_EQ(-ESRCH, get_known(self->p.mgr, 0, NULL, &size, &count));
}

TEST_F(known, largest_entries_accepted)
{
	struct tb_pairs p = { 0 };

	tb_pairs_add(&p, TRACEBUF_CATEGORY_MAX, TRACEBUF_DESCRIPTION_MAX);
	EXPECT_EQ(0, set_known(self->p.prov, p.buf, (__u32)p.len, p.n));
	free(p.buf);
}

TEST_F(known, most_pairs_accepted)
{
	struct tb_pairs p = { 0 };
	char *buf;
	__u32 size, count;

	for (unsigned int i = 0; i < TRACEBUF_CATEGORIES_MAX; i++)
		tb_pairs_add(&p, 1, 0);
	ASSERT_EQ(0, set_known(self->p.prov, p.buf, (__u32)p.len, p.n));
	buf = malloc(p.len);
	ASSERT_TRUE(buf != NULL);
	size = (__u32)p.len;
	EXPECT_EQ(0, get_known(self->p.mgr, self->p.id, buf, &size, &count));
	EXPECT_EQ((__u32)TRACEBUF_CATEGORIES_MAX, count);
	free(buf);
	free(p.buf);
}

/* One invalid input per subtest; the published list does not change. */

static void tb_expect_unchanged(struct __test_metadata *_metadata,
				struct tb_peer *p)
{
	char buf[256];
	__u32 size = sizeof(buf), count;

	ASSERT_EQ(0, get_known(p->mgr, p->id, buf, &size, &count));
	EXPECT_EQ(3U, count);
	EXPECT_EQ(sizeof(tb_list) - 1, size);
}

#define TB_KNOWN_REFUSED(name, err, ...)				\
	TEST_F(known, name)						\
	{								\
		ASSERT_EQ(0, set_known(self->p.prov, tb_list,		\
				       sizeof(tb_list) - 1, 3));	\
		EXPECT_EQ(-(err), __VA_ARGS__);				\
		tb_expect_unchanged(_metadata, &self->p);		\
	}

TB_KNOWN_REFUSED(count_too_small_einval, EINVAL,
		 set_known(self->p.prov, tb_list, sizeof(tb_list) - 1, 2))
TB_KNOWN_REFUSED(count_too_large_einval, EINVAL,
		 set_known(self->p.prov, tb_list, sizeof(tb_list) - 1, 4))
TB_KNOWN_REFUSED(size_without_count_einval, EINVAL,
		 set_known(self->p.prov, tb_list, sizeof(tb_list) - 1, 0))
TB_KNOWN_REFUSED(empty_name_einval, EINVAL,
		 set_known(self->p.prov, "\0desc\0", 6, 1))
TB_KNOWN_REFUSED(missing_final_nul_einval, EINVAL,
		 set_known(self->p.prov, "a\0b", 3, 1))
TB_KNOWN_REFUSED(bad_pointer_efault, EFAULT,
		 set_known(self->p.prov, self->bad, 8, 1))

TEST_F(known, name_too_long_enametoolong)
{
	struct tb_pairs p = { 0 };

	tb_pairs_add(&p, TRACEBUF_CATEGORY_MAX + 1, 0);
	EXPECT_EQ(-ENAMETOOLONG, set_known(self->p.prov, p.buf, (__u32)p.len, p.n));
	free(p.buf);
}

TEST_F(known, description_too_long_emsgsize)
{
	struct tb_pairs p = { 0 };

	tb_pairs_add(&p, 4, TRACEBUF_DESCRIPTION_MAX + 1);
	EXPECT_EQ(-EMSGSIZE, set_known(self->p.prov, p.buf, (__u32)p.len, p.n));
	free(p.buf);
}

TEST_F(known, too_many_pairs_e2big)
{
	struct tb_pairs p = { 0 };

	for (unsigned int i = 0; i <= TRACEBUF_CATEGORIES_MAX; i++)
		tb_pairs_add(&p, 1, 0);
	EXPECT_EQ(-E2BIG, set_known(self->p.prov, p.buf, (__u32)p.len, p.n));
	free(p.buf);
}

TEST_F(known, set_unknown_flag_einval)
{
	struct tracebuf_known_args a = { .flags = 1U << 31 };

	EXPECT_EQ(-EINVAL, tb_ioctl(self->p.prov, TRACEBUF_IOC_PROVIDER_SET_CATEGORIES, &a));
}

TEST_F(known, set_reserved_nonzero_einval)
{
	struct tracebuf_known_args a = { .reserved = 1 };

	EXPECT_EQ(-EINVAL, tb_ioctl(self->p.prov, TRACEBUF_IOC_PROVIDER_SET_CATEGORIES, &a));
}

TEST_F(known, get_unknown_flag_einval)
{
	struct tracebuf_get_known_args a = {
		.provider_id = self->p.id, .flags = 1U << 31,
	};

	EXPECT_EQ(-EINVAL, tb_ioctl(self->p.mgr, TRACEBUF_IOC_MGR_GET_CATEGORIES, &a));
}

TEST_F(known, get_bad_pointer_efault)
{
	__u32 size = (__u32)tb_page_size(), count;

	ASSERT_EQ(0, set_known(self->p.prov, tb_list, sizeof(tb_list) - 1, 3));
	EXPECT_EQ(-EFAULT, get_known(self->p.mgr, self->p.id, self->bad, &size, &count));
}

TEST_F(known, wrong_roles_einval)
{
	struct tracebuf_known_args s = { 0 };
	struct tracebuf_get_known_args g = { .provider_id = self->p.id };

	EXPECT_EQ(-EINVAL, tb_ioctl(self->p.mgr, TRACEBUF_IOC_PROVIDER_SET_CATEGORIES, &s));
	EXPECT_EQ(-EINVAL, tb_ioctl(self->p.prov, TRACEBUF_IOC_MGR_GET_CATEGORIES, &g));
}

TEST_HARNESS_MAIN
