// SPDX-License-Identifier: MIT
/*
 * tracebufctl categories: what each provider published, one
 * "provider  category  description" line per category.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tracebuf_manager.h>

#include "tracebufctl.h"
#include "util.h"

struct category {
	const char *provider;
	uint32_t id;
	const char *name;
	const char *desc;
};

/*
 * Split blob (size bytes: count pairs of NUL-terminated name and
 * description) into *cats; a pair cut short by the end is dropped.
 */
static int categories_split(const char *blob, uint32_t size, uint32_t count,
			    const char *provider, uint32_t id,
			    struct category **cats, size_t *n)
{
	const char *p = blob, *end = blob + size;

	for (uint32_t i = 0; i < count && p < end; i++) {
		const char *name = p, *desc, *nul;
		struct category *nc;

		nul = memchr(name, '\0', (size_t)(end - name));
		if (!nul)
			break;
		desc = nul + 1;
		if (desc >= end)
			break;
		nul = memchr(desc, '\0', (size_t)(end - desc));
		if (!nul)
			break;
		p = nul + 1;
		nc = realloc(*cats, (*n + 1) * sizeof(*nc));
		if (!nc)
			return -ENOMEM;
		*cats = nc;
		nc[*n] = (struct category){ provider, id, name, desc };
		(*n)++;
	}
	return 0;
}

static void categories_print(FILE *f, const struct category *c, size_t n, bool json)
{
	int wp = 0, wc = 0;

	if (json) {
		fputc('[', f);
		for (size_t i = 0; i < n; i++) {
			fprintf(f, "%s{\"provider\":", i ? "," : "");
			tbctl_json_cstr(f, c[i].provider);
			fprintf(f, ",\"id\":%u,\"category\":", c[i].id);
			tbctl_json_cstr(f, c[i].name);
			fputs(",\"description\":", f);
			tbctl_json_cstr(f, c[i].desc);
			fputc('}', f);
		}
		fputs("]\n", f);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		int lp = (int)strlen(c[i].provider), lc = (int)strlen(c[i].name);

		wp = lp > wp ? lp : wp;
		wc = lc > wc ? lc : wc;
	}
	for (size_t i = 0; i < n; i++) {
		tbctl_fputs_safe(f, c[i].provider, wp + 2);
		tbctl_fputs_safe(f, c[i].name, *c[i].desc ? wc + 2 : 0);
		tbctl_fputs_safe(f, c[i].desc, 0);
		putc('\n', f);
	}
}

static void categories_usage(FILE *f)
{
	fprintf(f,
		"Usage: " TBCTL_PROG " categories [-j]\n"
		"\n"
		"List the categories each registered provider published, with their\n"
		"descriptions: one line per provider and category.\n"
		"\n"
		"Options:\n"
		"  -j, --json   a JSON array instead of the table\n"
		"  -h, --help   print this help and exit\n");
}

int cmd_categories(struct tbctl_ctx *ctx, int argc, char **argv)
{
	struct tracebuf_provider_info *info = NULL;
	struct tracebuf_manager *m = NULL;
	struct category *cats = NULL;
	char **blobs = NULL;
	size_t ncats = 0;
	bool json = ctx->json;
	int ret, n = 0, i;

	ret = tbctl_view_opts("categories", argc, argv, categories_usage, &json, NULL, NULL);
	if (ret)
		return ret < 0 ? ret : 0;
	ret = tracebuf_manager_open(ctx->device, 0, &m);
	if (ret)
		return tbctl_device_err(ctx, ret);
	n = tracebuf_manager_list(m, &info);
	if (n < 0) {
		ret = tbctl_device_err(ctx, n);
		n = 0;
		goto out;
	}
	blobs = calloc((size_t)n + 1, sizeof(*blobs));
	if (!blobs) {
		ret = -ENOMEM;
		tbctl_err("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		uint32_t size = 0, count = 0;

		info[i].name[sizeof(info[i].name) - 1] = '\0';
		ret = tracebuf_manager_categories(m, info[i].id, &blobs[i], &size, &count);
		if (ret == -ENOENT) {		/* gone since the list */
			ret = 0;
			continue;
		}
		if (ret) {
			tbctl_err("categories of provider %u: %s", info[i].id, strerror(-ret));
			goto out;
		}
		if (!blobs[i])
			continue;
		ret = categories_split(blobs[i], size, count, (const char *)info[i].name,
				       info[i].id, &cats, &ncats);
		if (ret) {
			tbctl_err("out of memory");
			goto out;
		}
	}
	categories_print(stdout, cats, ncats, json);
	if (fflush(stdout)) {
		ret = -EIO;
		tbctl_err("write error: %s", strerror(errno));
	}
out:
	if (blobs)
		tbctl_strv_free(blobs, (size_t)n);
	free(cats);
	free(info);
	tracebuf_manager_close(m);
	return ret;
}
