// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf: the API of tracebuf_kernel.h, through which other modules
 * register providers of their own and write events.  Each is a kernel
 * provider of kprovider.c, whose ops switch the categories' static keys.
 */
#include <linux/err.h>
#include <linux/export.h>
#include <linux/hardirq.h>
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kprovider.h"
#include "tracebuf_kernel.h"
#include "tracebuf_priv.h"

struct tracebuf_kprovider {
	struct tracebuf_kprov k;
	struct tracebuf_kcategory *const *cats;
	unsigned int ncats;
	bool writing;				/* [W]; writers READ_ONCE() it
						 * with interrupts off
						 */
};

/*
 * Switch the categories' static keys as the session asks (@on), or all
 * off and wait until no writer that saw one on is left: a writer checks
 * ->writing with interrupts off, and synchronize_rcu() waits for every
 * such section.
 */
static int tracebuf_kapi_write(struct tracebuf_kprov *k, bool on)
{
	struct tracebuf_kprovider *kp = container_of(k, struct tracebuf_kprovider, k);
	struct tracebuf_cats *cats, *extra;
	unsigned int i;

	if (!on) {
		WRITE_ONCE(kp->writing, false);
		for (i = 0; i < kp->ncats; i++)
			static_branch_disable(&kp->cats[i]->on);
		synchronize_rcu();
		return 0;
	}
	tracebuf_kread_config(k, &cats, &extra);
	WRITE_ONCE(kp->writing, true);
	for (i = 0; i < kp->ncats; i++)
		if (tracebuf_kcat_on(cats, extra, kp->cats[i]->name, false))
			static_branch_enable(&kp->cats[i]->on);
	tracebuf_cats_put(cats);
	tracebuf_cats_put(extra);
	return 0;
}

static const struct tracebuf_kprov_ops tracebuf_kapi_ops = {
	.write = tracebuf_kapi_write,
};

struct tracebuf_kprovider *tracebuf_kprovider_register(const char *name,
						       struct tracebuf_kcategory *const *cats,
						       unsigned int ncats)
{
	struct tracebuf_kprovider *kp;
	const char **pairs;
	unsigned int i, j;
	size_t len;
	int ret;

	might_sleep();
	len = name ? strnlen(name, TRACEBUF_NAME_MAX + 1) : 0;
	if (!len || len > TRACEBUF_NAME_MAX || ncats > TRACEBUF_CATEGORIES_MAX || (ncats && !cats))
		return ERR_PTR(-EINVAL);
	for (i = 0; i < ncats; i++) {
		len = cats[i] && cats[i]->name ?
		      strnlen(cats[i]->name, TRACEBUF_CATEGORY_MAX + 1) : 0;
		if (!len || len > TRACEBUF_CATEGORY_MAX || !cats[i]->description ||
		    strnlen(cats[i]->description, TRACEBUF_DESCRIPTION_MAX + 1) >
		    TRACEBUF_DESCRIPTION_MAX)
			return ERR_PTR(-EINVAL);
		for (j = 0; j < i; j++)
			if (!strcmp(cats[i]->name, cats[j]->name))
				return ERR_PTR(-EINVAL);
	}
	kp = kzalloc(sizeof(*kp), GFP_KERNEL_ACCOUNT);
	pairs = kcalloc(2 * ncats + 1, sizeof(*pairs), GFP_KERNEL);
	if (!kp || !pairs) {
		kfree(kp);
		kfree(pairs);
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < ncats; i++) {
		pairs[2 * i] = cats[i]->name;
		pairs[2 * i + 1] = cats[i]->description;
	}
	kp->cats = cats;
	kp->ncats = ncats;
	ret = tracebuf_kprov_create(&kp->k, name, &tracebuf_kapi_ops,
				    tracebuf_kcats_known(pairs, ncats));
	kfree(pairs);
	if (ret) {
		kfree(kp);
		return ERR_PTR(ret);
	}
	return kp;
}
EXPORT_SYMBOL_GPL(tracebuf_kprovider_register);

void tracebuf_kprovider_unregister(struct tracebuf_kprovider *kp)
{
	unsigned int i;

	might_sleep();
	if (IS_ERR_OR_NULL(kp))
		return;
	tracebuf_kprov_destroy(&kp->k);
	/* off even if no session ever stopped it */
	for (i = 0; i < kp->ncats; i++)
		static_branch_disable(&kp->cats[i]->on);
	kfree(kp);
}
EXPORT_SYMBOL_GPL(tracebuf_kprovider_unregister);

/* An inline string: its ref, and its length in words. */
static size_t tracebuf_kstr_len(const char *s)
{
	return s ? strnlen(s, TRACEBUF_KSTRING_MAX) : 0;
}

static __le64 *tracebuf_kput_str(__le64 *p, const char *s, size_t len)
{
	size_t words = DIV_ROUND_UP(len, 8);

	if (words) {
		p[words - 1] = 0;
		memcpy(p, s, len);
	}
	return p + words;
}

/* The size of @a in words, header, inline name and value included. */
static size_t tracebuf_karg_words(const struct tracebuf_karg *a)
{
	size_t words = 1 + DIV_ROUND_UP(tracebuf_kstr_len(a->name), 8);

	switch (a->type) {
	case TRACEBUF_KARG_TYPE_I64:
	case TRACEBUF_KARG_TYPE_U64:
	case TRACEBUF_KARG_TYPE_PTR:
		return words + 1;
	case TRACEBUF_KARG_TYPE_STR:
		return words + DIV_ROUND_UP(tracebuf_kstr_len(a->str), 8);
	default:	/* TRACEBUF_KARG_TYPE_BOOL, and an unknown type as false */
		return words;
	}
}

static __le64 *tracebuf_kput_arg(__le64 *p, const struct tracebuf_karg *a)
{
	size_t nlen = tracebuf_kstr_len(a->name), slen = 0;
	unsigned int type;
	u64 hi = 0, value = 0;
	bool word = true;

	switch (a->type) {
	case TRACEBUF_KARG_TYPE_I64:
		type = TRACEBUF_FXT_ARG_INT64;
		value = (u64)a->i64;
		break;
	case TRACEBUF_KARG_TYPE_U64:
		type = TRACEBUF_FXT_ARG_UINT64;
		value = a->u64;
		break;
	case TRACEBUF_KARG_TYPE_PTR:
		type = TRACEBUF_FXT_ARG_POINTER;
		value = (u64)(uintptr_t)a->ptr;
		break;
	case TRACEBUF_KARG_TYPE_STR:
		type = TRACEBUF_FXT_ARG_STRING;
		slen = tracebuf_kstr_len(a->str);
		hi = TRACEBUF_FXT_INLINE | slen;
		word = false;
		break;
	default:
		type = TRACEBUF_FXT_ARG_BOOL;
		hi = a->type == TRACEBUF_KARG_TYPE_BOOL && a->b;
		word = false;
		break;
	}
	p = tracebuf_put(p, type | tracebuf_fxt_field(tracebuf_karg_words(a), 4, 15) |
			 tracebuf_fxt_field(TRACEBUF_FXT_INLINE | nlen, 16, 31) |
			 tracebuf_fxt_field(hi, 32, 63));
	p = tracebuf_kput_str(p, a->name, nlen);
	if (word)
		return tracebuf_put(p, value);
	return tracebuf_kput_str(p, a->str, slen);
}

void tracebuf_kevent(struct tracebuf_kprovider *kp, struct tracebuf_kcategory *cat,
		     enum tracebuf_kevent_type type, const char *name, u64 id,
		     const struct tracebuf_karg *args, unsigned int nargs)
{
	struct tracebuf_kprov *k = &kp->k;
	size_t clen = tracebuf_kstr_len(cat->name), nlen = tracebuf_kstr_len(name);
	size_t words = 4 + DIV_ROUND_UP(clen, 8) + DIV_ROUND_UP(nlen, 8);
	unsigned long flags;
	unsigned int i;
	__le64 *p;

	if (!static_key_enabled(&cat->on))
		return;
	for (i = 0; i < nargs && i <= TRACEBUF_KARGS_MAX; i++)
		words += tracebuf_karg_words(&args[i]);
	words += type == TRACEBUF_KEVENT_COUNTER;
	local_irq_save(flags);
	/* NMIs may interrupt a writer of this CPU's chunk; a stop may be on */
	if (!READ_ONCE(kp->writing))
		goto out;
	if (in_nmi() || nargs > TRACEBUF_KARGS_MAX || words * 8 > TRACEBUF_KRECORD_MAX) {
		atomic64_inc(&k->dropped);
		goto out;
	}
	p = tracebuf_kreserve(k, words * 8);
	if (!p)
		goto out;
	p = tracebuf_put(p, tracebuf_fxt_header(TRACEBUF_FXT_EVENT, words * 8) |
			 tracebuf_fxt_field(type, 16, 19) | tracebuf_fxt_field(nargs, 20, 23) |
			 tracebuf_fxt_field(TRACEBUF_FXT_INLINE | clen, 32, 47) |
			 tracebuf_fxt_field(TRACEBUF_FXT_INLINE | nlen, 48, 63));
	p = tracebuf_put(p, tracebuf_kticks(k));
	p = tracebuf_put(p, task_tgid_nr_ns(current, k->ns));
	p = tracebuf_put(p, tracebuf_ktid(k, current));
	p = tracebuf_kput_str(p, cat->name, clen);
	p = tracebuf_kput_str(p, name, nlen);
	for (i = 0; i < nargs; i++)
		p = tracebuf_kput_arg(p, &args[i]);
	if (type == TRACEBUF_KEVENT_COUNTER)
		tracebuf_put(p, id);
out:
	local_irq_restore(flags);
}
EXPORT_SYMBOL_GPL(tracebuf_kevent);
