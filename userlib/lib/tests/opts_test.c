// SPDX-License-Identifier: MIT
/*
 * Description: the one rule for the size-versioned structs the library
 * accepts (struct tracebuf_provider_config, struct tracebuf_session_config):
 * a size below the first release's is -EINVAL; a longer struct is taken
 * when the bytes beyond ours are zero and refused (-EINVAL) when they are
 * not; a field beyond the caller's size reads as its default.  No module
 * is needed: the configs name a device that does not exist, so a config
 * that passes the rule ends in -ENOENT, and one whose fields are wrong
 * is refused before that.
 */
#define _GNU_SOURCE
#include "ktap.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <tracebuf_manager.h>
#include <tracebuf_provider.h>

#define NO_DEVICE	"/nonexistent/tracebuf"

/* A config followed by 16 more bytes, as a newer header's could be. */
struct provider_cfg_v2 {
	struct tracebuf_provider_config cfg;
	unsigned char tail[16];
};

struct session_cfg_v2 {
	struct tracebuf_session_config cfg;
	unsigned char tail[16];
};

static int provider(struct provider_cfg_v2 *c)
{
	struct tracebuf_provider *p = NULL;
	int ret = tracebuf_provider_create(&c->cfg, &p);

	if (!ret)
		tracebuf_provider_destroy(p);
	return ret;
}

static void provider_config_sizes(void)
{
	struct provider_cfg_v2 c;

	memset(&c, 0, sizeof(c));
	c.cfg.name = "opts";
	c.cfg.device = NO_DEVICE;
	c.cfg.size = sizeof(c.cfg);
	T_EXPECT_EQ(provider(&c), -ENOENT);
	/* longer, zero tail: taken */
	c.cfg.size = sizeof(c);
	T_EXPECT_EQ(provider(&c), -ENOENT);
	/* longer, something asked that we do not know: refused */
	c.tail[15] = 1;
	T_EXPECT_EQ(provider(&c), -EINVAL);
	c.tail[15] = 0;
	/* below the first release (name, flags, timeout, known categories) */
	c.cfg.size = offsetof(struct tracebuf_provider_config, nknown);
	T_EXPECT_EQ(provider(&c), -EINVAL);
	c.cfg.size = 0;
	T_EXPECT_EQ(provider(&c), -EINVAL);
	T_EXPECT_EQ(tracebuf_provider_create(NULL, NULL), -EINVAL);
}

/* A config without the device field reads it as NULL: the default device. */
static void provider_field_beyond_size_is_default(void)
{
	struct provider_cfg_v2 c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.cfg.name = "opts";
	c.cfg.device = NO_DEVICE;	/* not read: beyond the size */
	c.cfg.size = offsetof(struct tracebuf_provider_config, device);
	ret = provider(&c);
	/* /dev/tracebuf was tried, not NO_DEVICE: any answer but EINVAL */
	T_EXPECT(ret != -EINVAL);
	if (access("/dev/tracebuf", F_OK))
		T_EXPECT_EQ(ret, -ENOENT);
}

static int session(struct session_cfg_v2 *c)
{
	struct tracebuf_session *s = NULL;
	int ret = tracebuf_session_create(&c->cfg, &s);

	if (!ret)
		tracebuf_session_destroy(s);
	return ret;
}

static void session_config_sizes(void)
{
	struct session_cfg_v2 c;

	memset(&c, 0, sizeof(c));
	c.cfg.output_fd = memfd_create("opts", MFD_CLOEXEC);
	T_ASSERT(c.cfg.output_fd >= 0);
	c.cfg.device = NO_DEVICE;
	c.cfg.size = sizeof(c.cfg);
	T_EXPECT_EQ(session(&c), -ENOENT);
	c.cfg.size = sizeof(c);
	T_EXPECT_EQ(session(&c), -ENOENT);
	c.tail[0] = 1;
	T_EXPECT_EQ(session(&c), -EINVAL);
	c.tail[0] = 0;
	/* its first release is the whole struct */
	c.cfg.size = sizeof(c.cfg) - 1;
	T_EXPECT_EQ(session(&c), -EINVAL);
	close(c.cfg.output_fd);
}

/*
 * A list of names at *@list (*@n of them), as tracebuf_session_create()
 * takes categories and provider names: each 1..TRACEBUF_CATEGORY_MAX
 * bytes, at most TRACEBUF_CATEGORIES_MAX of them.  Left empty.
 */
static void list_refusals(struct session_cfg_v2 *c, const char *const **list, size_t *n)
{
	static const char *const empty[] = { "" };
	static const char *const null[] = { NULL };
	static char long_name[TRACEBUF_CATEGORY_MAX + 2];
	static const char *const too_long[] = { long_name };
	const char **many = calloc(TRACEBUF_CATEGORIES_MAX + 1, sizeof(*many));

	T_ASSERT(many);
	memset(long_name, 'c', sizeof(long_name) - 1);
	for (size_t i = 0; i <= TRACEBUF_CATEGORIES_MAX; i++)
		many[i] = "c";
	*n = 1;
	*list = empty;
	T_EXPECT_EQ(session(c), -EINVAL);
	*list = null;
	T_EXPECT_EQ(session(c), -EINVAL);
	*list = too_long;
	T_EXPECT_EQ(session(c), -EINVAL);
	*list = many;
	*n = TRACEBUF_CATEGORIES_MAX;
	T_EXPECT_EQ(session(c), -ENOENT);
	*n = TRACEBUF_CATEGORIES_MAX + 1;
	T_EXPECT_EQ(session(c), -E2BIG);
	*list = NULL;
	*n = 0;
	free(many);
}

/*
 * What a session config gets wrong is refused before the device is
 * opened: each case differs from a config that gets as far as -ENOENT.
 */
static void session_config_refusals(void)
{
	struct tracebuf_session_override ov = { .name = "p" };
	struct session_cfg_v2 c;

	memset(&c, 0, sizeof(c));
	c.cfg.size = sizeof(c.cfg);
	c.cfg.output_fd = memfd_create("opts", MFD_CLOEXEC);
	T_ASSERT(c.cfg.output_fd >= 0);
	c.cfg.device = NO_DEVICE;
	c.cfg.overrides = &ov;
	c.cfg.noverrides = 1;
	T_EXPECT_EQ(session(&c), -ENOENT);
	/* the session's own fields */
	c.cfg.flags = 1u << 30;
	T_EXPECT_EQ(session(&c), -EINVAL);
	c.cfg.flags = 0;
	c.cfg.mode = TRACEBUF_MODE_STREAMING + 1;
	T_EXPECT_EQ(session(&c), -EINVAL);
	c.cfg.mode = 0;
	c.cfg.buffer_size = 5000;
	T_EXPECT_EQ(session(&c), -EINVAL);
	c.cfg.buffer_size = 0;
	T_EXPECT_EQ(tracebuf_session_create(&c.cfg, NULL), -EINVAL);
	/* its categories and provider names, an override's categories */
	list_refusals(&c, &c.cfg.categories, &c.cfg.ncategories);
	list_refusals(&c, &c.cfg.providers, &c.cfg.nproviders);
	list_refusals(&c, &ov.categories, &ov.ncategories);
	/* an override's name and size */
	ov.name = NULL;
	T_EXPECT_EQ(session(&c), -EINVAL);
	ov.name = "p";
	ov.buffer_size = 5000;
	T_EXPECT_EQ(session(&c), -EINVAL);
	ov.buffer_size = 0;
	T_EXPECT_EQ(session(&c), -ENOENT);
	close(c.cfg.output_fd);
}

static const struct t_test tests[] = {
	T_TEST(provider_config_sizes),
	T_TEST(provider_field_beyond_size_is_default),
	T_TEST(session_config_sizes),
	T_TEST(session_config_refusals),
};

T_MAIN(tests)
