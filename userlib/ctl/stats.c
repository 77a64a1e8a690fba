// SPDX-License-Identifier: MIT
/*
 * tracebufctl stats: each provider's counters (packets sent and received,
 * saves, records dropped, buffer size), over generic netlink: a GET per
 * id when only ids are asked for, else the dump, filtered.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nl.h"
#include "tracebufctl.h"
#include "util.h"

/* A word of digits only is an id: its value, or -1 if none fits. */
static long long word_id(const char *w)
{
	unsigned long long v = 0;

	if (!*w)
		return -1;
	for (; *w; w++) {
		if (*w < '0' || *w > '9')
			return -1;
		v = v * 10 + (unsigned int)(*w - '0');
		if (v > UINT32_MAX)
			return UINT32_MAX + 1LL;	/* an id, but no provider's */
	}
	return (long long)v;
}

static bool word_is_id(const char *w)
{
	return word_id(w) >= 0;
}

int tbctl_stats_select(struct tbctl_provider *p, size_t *n, char *const *words,
		       size_t nwords, size_t *unmatched)
{
	size_t i, w, kept = 0;
	bool *used;

	if (!nwords)
		return 0;
	used = calloc(nwords, sizeof(*used));
	if (!used)
		return -ENOMEM;
	for (i = 0; i < *n; i++) {
		bool keep = false;

		for (w = 0; w < nwords; w++) {
			long long id = word_id(words[w]);

			if (id >= 0 ? id == p[i].id : !strcmp(words[w], p[i].name)) {
				used[w] = true;
				keep = true;
			}
		}
		if (keep)
			p[kept++] = p[i];
	}
	for (w = 0; w < nwords; w++) {
		if (!used[w]) {
			*unmatched = w;
			free(used);
			return -ENOENT;
		}
	}
	free(used);
	*n = kept;
	return 0;
}

static void stats_print_json(FILE *f, const struct tbctl_provider *p, size_t n)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s{\"id\":%u,\"name\":", i ? "," : "", p[i].id);
		tbctl_json_cstr(f, p[i].name);
		fputs(",\"state\":", f);
		tbctl_json_cstr(f, tbctl_state_name(p[i].state));
		tbctl_json_counters(f, &p[i]);
		fprintf(f, ",\"buffer_size\":%llu}", (unsigned long long)p[i].buffer_size);
	}
	fputs("]\n", f);
}

/* A counter for the table: "-" when unknown. */
static const char *count_str(uint64_t v, bool known, char *buf, size_t len)
{
	if (!known)
		return "-";
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

void tbctl_stats_print(FILE *f, const struct tbctl_provider *p, size_t n, bool json)
{
	int wn = 4;	/* "NAME" */

	if (json) {
		stats_print_json(f, p, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		int l = (int)strlen(p[i].name);

		wn = l > wn ? l : wn;
	}
	fprintf(f, "%5s  %-*s  %-11s %10s %10s %8s %10s %10s\n", "ID", wn, "NAME", "STATE",
		"SENT", "RECEIVED", "SAVES", "DROPPED", "BUFFER");
	for (size_t i = 0; i < n; i++) {
		char sent[24], recv[24], saves[24], dropped[24], size[32] = "-";

		if (p[i].buffer_size)
			tbctl_human_bytes(p[i].buffer_size, size, sizeof(size));
		fprintf(f, "%5u  ", p[i].id);
		tbctl_fputs_safe(f, p[i].name, wn);
		fprintf(f, "  %-11s %10s %10s %8s %10s %10s\n", tbctl_state_name(p[i].state),
			count_str(p[i].packets_sent, p[i].has_counters, sent, sizeof(sent)),
			count_str(p[i].packets_received, p[i].has_counters, recv, sizeof(recv)),
			count_str(p[i].saves, p[i].has_counters, saves, sizeof(saves)),
			count_str(p[i].records_dropped, p[i].has_dropped, dropped,
				  sizeof(dropped)),
			size);
	}
}

/* ------------------------------------------------------------------------ */
/* The command                                                              */

static void stats_usage(FILE *f)
{
	fprintf(f,
		"Usage: " TBCTL_PROG " stats [-j] [ID|NAME]...\n"
		"\n"
		"Print each provider's counters: id, name, state, packets it sent,\n"
		"packets and control messages queued to it, buffer saves, records\n"
		"dropped (as its buffer header claims; - without a buffer) and buffer\n"
		"size.  With arguments, only the providers they name: a word of digits\n"
		"is an id, any other word a name; one that names no provider is an\n"
		"error.  Over generic netlink only.\n"
		"\n"
		"Options:\n"
		"  -j, --json   a JSON array instead of the table\n"
		"  -h, --help   print this help and exit\n");
}

static int provider_cmp(const void *a, const void *b)
{
	const struct tbctl_provider *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Only ids: a GET each, sorted, each once.  Errors are reported here. */
static int stats_get(struct tbctl_nl *nl, char *const *words, size_t nwords,
		     struct tbctl_provider **out)
{
	struct tbctl_provider *p;
	size_t n = 0, k = 0;
	int ret;

	p = calloc(nwords, sizeof(*p));
	if (!p) {
		tbctl_err("out of memory");
		return -ENOMEM;
	}
	for (size_t w = 0; w < nwords; w++) {
		long long id = word_id(words[w]);

		ret = id > UINT32_MAX ? -ENOENT : tbctl_nl_provider_get(nl, (uint32_t)id, &p[n]);
		if (ret == -ENOENT || ret == -ERANGE) {	/* id 0 is out of range */
			tbctl_err("stats: no provider with id %s", words[w]);
			free(p);
			return -ENOENT;
		}
		if (ret) {
			tbctl_nl_err(nl, ret, "provider get");
			free(p);
			return ret;
		}
		n++;
	}
	qsort(p, n, sizeof(*p), provider_cmp);
	for (size_t i = 0; i < n; i++)
		if (!k || p[i].id != p[k - 1].id)
			p[k++] = p[i];
	*out = p;
	return (int)k;
}

int cmd_stats(struct tbctl_ctx *ctx, int argc, char **argv)
{
	struct tbctl_provider *p = NULL;
	char **words = NULL;
	size_t nwords = 0, n, unmatched = 0;
	bool json = ctx->json, only_ids = true;
	struct tbctl_nl *nl = NULL;
	int ret;

	words = calloc((size_t)argc + 1, sizeof(*words));
	if (!words) {
		tbctl_err("out of memory");
		return -ENOMEM;
	}
	ret = tbctl_view_opts("stats", argc, argv, stats_usage, &json, words, &nwords);
	if (ret) {
		ret = ret < 0 ? ret : 0;
		goto out;
	}
	for (size_t w = 0; w < nwords; w++)
		only_ids &= word_is_id(words[w]);

	ret = tbctl_nl_open(&nl);
	if (ret) {
		tbctl_nl_err(NULL, ret, "generic netlink");
		goto out;
	}
	if (nwords && only_ids) {
		ret = stats_get(nl, words, nwords, &p);
		if (ret < 0)
			goto out;
		n = (size_t)ret;
	} else {
		ret = tbctl_nl_provider_dump(nl, &p);
		if (ret < 0) {
			tbctl_nl_err(nl, ret, "provider dump");
			goto out;
		}
		n = (size_t)ret;
		ret = tbctl_stats_select(p, &n, words, nwords, &unmatched);
		if (ret == -ENOENT) {
			if (word_is_id(words[unmatched]))
				tbctl_err("stats: no provider with id %s", words[unmatched]);
			else
				tbctl_err("stats: no provider named '%s'", words[unmatched]);
			goto out;
		}
		if (ret) {
			tbctl_err("out of memory");
			goto out;
		}
	}
	tbctl_stats_print(stdout, p, n, json);
	ret = 0;
	if (fflush(stdout)) {
		ret = -EIO;
		tbctl_err("write error: %s", strerror(errno));
	}
out:
	tbctl_nl_close(nl);
	free(p);
	free(words);
	return ret;
}
