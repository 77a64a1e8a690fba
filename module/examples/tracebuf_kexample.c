// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf_kexample: a module that is a tracebuf provider, "kexample",
 * through the in-kernel API (tracebuf_kernel.h).  Every period_ms a
 * timer (softirq context) records an instant with its count and queues
 * a work item, which records a duration around its work (process
 * context), with a counter of the work done inside it.
 *
 *   insmod tracebuf.ko && insmod tracebuf_kexample.ko period_ms=5
 *   tracebufctl record -c kexample -d 1s -o k.fxt
 *   tracebufctl dump k.fxt
 *
 * Categories: "kexample" (the timer and the work), "kexample.detail"
 * (one instant per step of the work).  Off unless a session enables
 * them, when each costs a no-op jump.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

#include "tracebuf_kernel.h"

static unsigned int period_ms = 10;
module_param(period_ms, uint, 0444);
MODULE_PARM_DESC(period_ms, "How often the timer fires, in ms (default 10)");

static struct tracebuf_kcategory tracebuf_kexample_cat =
	TRACEBUF_KCATEGORY_INIT("kexample", "a timer, and a work item's durations");
static struct tracebuf_kcategory tracebuf_kexample_detail =
	TRACEBUF_KCATEGORY_INIT("kexample.detail", "each step of the work");
static struct tracebuf_kcategory *const tracebuf_kexample_cats[] = {
	&tracebuf_kexample_cat, &tracebuf_kexample_detail,
};

static struct tracebuf_kprovider *tracebuf_kexample_prov;
static struct timer_list tracebuf_kexample_timer;
static u64 tracebuf_kexample_ticks;
static u64 tracebuf_kexample_done;

static void tracebuf_kexample_work_fn(struct work_struct *work)
{
	unsigned int i;

	tracebuf_kbegin(tracebuf_kexample_prov, &tracebuf_kexample_cat, "work",
			TRACEBUF_KARG_U64("tick", READ_ONCE(tracebuf_kexample_ticks)));
	for (i = 0; i < 3; i++)
		tracebuf_kinstant(tracebuf_kexample_prov, &tracebuf_kexample_detail, "step",
				  TRACEBUF_KARG_U64("i", i), TRACEBUF_KARG_STR("what", "a step"));
	tracebuf_kexample_done += i;
	tracebuf_kcounter(tracebuf_kexample_prov, &tracebuf_kexample_cat, "steps", 1,
			  TRACEBUF_KARG_U64("done", tracebuf_kexample_done));
	tracebuf_kend(tracebuf_kexample_prov, &tracebuf_kexample_cat, "work");
}

static DECLARE_WORK(tracebuf_kexample_work, tracebuf_kexample_work_fn);

static void tracebuf_kexample_tick(struct timer_list *t)
{
	u64 n = READ_ONCE(tracebuf_kexample_ticks) + 1;

	WRITE_ONCE(tracebuf_kexample_ticks, n);
	/* the usual form on a hot path: a no-op jump while the category is off */
	if (tracebuf_kcategory_enabled(&tracebuf_kexample_cat))
		tracebuf_kinstant(tracebuf_kexample_prov, &tracebuf_kexample_cat, "tick",
				  TRACEBUF_KARG_U64("n", n),
				  TRACEBUF_KARG_BOOL("in_softirq", in_softirq()),
				  TRACEBUF_KARG_I64("delta", -1));
	schedule_work(&tracebuf_kexample_work);
	mod_timer(&tracebuf_kexample_timer, jiffies + msecs_to_jiffies(period_ms ?: 1));
}

static int __init tracebuf_kexample_init(void)
{
	tracebuf_kexample_prov = tracebuf_kprovider_register("kexample", tracebuf_kexample_cats,
							     ARRAY_SIZE(tracebuf_kexample_cats));
	if (IS_ERR(tracebuf_kexample_prov))
		return PTR_ERR(tracebuf_kexample_prov);
	timer_setup(&tracebuf_kexample_timer, tracebuf_kexample_tick, 0);
	mod_timer(&tracebuf_kexample_timer, jiffies + msecs_to_jiffies(period_ms ?: 1));
	return 0;
}

static void __exit tracebuf_kexample_exit(void)
{
	del_timer_sync(&tracebuf_kexample_timer);
	cancel_work_sync(&tracebuf_kexample_work);
	tracebuf_kprovider_unregister(tracebuf_kexample_prov);
}

module_init(tracebuf_kexample_init);
module_exit(tracebuf_kexample_exit);
MODULE_DESCRIPTION("An example of a tracebuf provider in the kernel");
MODULE_LICENSE("GPL");
