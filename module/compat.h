/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracebuf: every difference between the kernels we build against lives
 * here, as a tracebuf_ wrapper.  The TRACEBUF_HAVE_* macros come from the
 * header probes in Kbuild.
 */
#ifndef _TRACEBUF_COMPAT_H
#define _TRACEBUF_COMPAT_H

#include <linux/eventfd.h>
#include <linux/mm.h>
#include <linux/tracebuf.h>
#ifdef CONFIG_X86
#include <asm/cpufeature.h>
#include <asm/tsc.h>
#endif
#ifdef CONFIG_ARM64
#include <linux/cpumask.h>
#include <linux/of.h>
#include <linux/percpu.h>
#include <asm/arch_timer.h>
#endif
#if defined(CONFIG_ARM) && defined(CONFIG_ARM_ARCH_TIMER)
#include <linux/of.h>
#include <asm/arch_timer.h>
#endif

/* The Arm generic timer's virtual count: arm64, and 32-bit ARM with it. */
#if defined(CONFIG_ARM64) || (defined(CONFIG_ARM) && defined(CONFIG_ARM_ARCH_TIMER))
#define TRACEBUF_HAVE_CNTVCT
#endif

/* v6.8 dropped the count argument of eventfd_signal(). */
static inline void tracebuf_eventfd_signal(struct eventfd_ctx *ctx)
{
#ifdef TRACEBUF_HAVE_EVENTFD_SIGNAL_NO_COUNT
	eventfd_signal(ctx);
#else
	eventfd_signal(ctx, 1);
#endif
}

/* v6.3 made vma->vm_flags writable only through the vm_flags_*() helpers. */
static inline void tracebuf_vm_flags_set(struct vm_area_struct *vma,
					 unsigned long flags)
{
#ifdef TRACEBUF_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void tracebuf_vm_flags_clear(struct vm_area_struct *vma,
					   unsigned long flags)
{
#ifdef TRACEBUF_HAVE_VM_FLAGS_SET
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

#ifdef CONFIG_ARM64
/*
 * Does an erratum workaround keep EL0 from reading CNTVCT directly on
 * some CPU?  The arch timer driver leaves CNTKCTL_EL1.EL0VCTEN clear on a
 * CPU whose workaround reads the virtual count out of line
 * (arch_counter_set_user_access()), and ARM erratum 1418040's workaround
 * (disable_compat_vdso) clears it while a 32-bit task runs: a read then
 * traps and is emulated, correct but as slow as a system call.  These are
 * the kernel's own reasons to keep its vDSO off the counter
 * (VDSO_CLOCKMODE_NONE, VDSO_CLOCKMODE_ARCHTIMER_NOCOMPAT).  Either
 * counts for every caller, 64-bit ones too: all providers on a machine
 * must share one timebase, or their timestamps would not line up in a
 * trace.  Workarounds may be per CPU and are set when a CPU first comes
 * up: every CPU that did is looked at, at each call.
 */
static inline bool tracebuf_cntvct_trapped(void)
{
#ifdef CONFIG_ARM_ARCH_TIMER_OOL_WORKAROUND
	const struct arch_timer_erratum_workaround *wa;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		wa = READ_ONCE(per_cpu(timer_unstable_counter_workaround, cpu));
		if (wa && (wa->read_cntvct_el0 ||
			   (IS_ENABLED(CONFIG_COMPAT) && wa->disable_compat_vdso)))
			return true;
	}
#endif
	return false;
}
#endif

#if defined(CONFIG_ARM) && defined(CONFIG_ARM_ARCH_TIMER)
/*
 * 32-bit ARM: may user space read CNTVCT directly?  Where the kernel's
 * own vDSO does (arch/arm's cntvct_functional()): the device tree has a
 * generic timer whose registers the firmware set up (not
 * "arm,cpu-registers-not-fw-configured": CNTVOFF then has no known
 * value, perhaps another on each CPU), so the CPU has one (a Cortex-A9 has none, and reading
 * its registers would be an undefined instruction); and the arch timer
 * driver let PL0 read the virtual count (CNTKCTL.PL0VCTEN).
 */
static inline bool tracebuf_cntvct_user_readable(void)
{
	static const struct of_device_id ids[] = {
		{ .compatible = "arm,armv7-timer" },
		{ .compatible = "arm,armv8-timer" },
		{ }
	};
	struct device_node *np = of_find_matching_node(NULL, ids);
	bool ok;

	if (!np)
		return false;
	ok = of_device_is_available(np) &&
	     !of_property_read_bool(np, "arm,cpu-registers-not-fw-configured");
	of_node_put(np);
	return ok && (arch_timer_get_cntkctl() & ARCH_TIMER_USR_VCT_ACCESS_EN);
}
#endif

#ifdef TRACEBUF_HAVE_CNTVCT
/*
 * The counter's rate in Hz, as the arch timer driver takes it: the
 * device tree's clock-frequency if the timer node has one (firmware that
 * did not program CNTFRQ_EL0), else CNTFRQ_EL0.
 */
static inline u32 tracebuf_cntfrq(void)
{
	static const struct of_device_id ids[] = {
		{ .compatible = "arm,armv8-timer" },
		{ .compatible = "arm,armv7-timer" },
		{ }
	};
	struct device_node *np = of_find_matching_node(NULL, ids);
	u32 rate = arch_timer_get_cntfrq();

	if (np) {
		of_property_read_u32(np, "clock-frequency", &rate);
		of_node_put(np);
	}
	return rate;
}
#endif

/*
 * The rate in kHz of the CPU counter user space may timestamp with; 0
 * when there is none (see counter_khz in the uapi header).
 * x86: the TSC, when constant, non-stop and not marked unstable.
 * arm64: the generic timer's virtual count, when no CPU traps EL0 reads.
 * 32-bit ARM: the same, where user space may read it.
 */
static inline u64 tracebuf_counter_khz(void)
{
#if defined(CONFIG_X86)
	if (boot_cpu_has(X86_FEATURE_CONSTANT_TSC) &&
	    boot_cpu_has(X86_FEATURE_NONSTOP_TSC) && !check_tsc_unstable())
		return tsc_khz;
#elif defined(CONFIG_ARM64)
	u32 rate = tracebuf_cntfrq();

	if (rate && !(rate % 1000) && !tracebuf_cntvct_trapped())
		return rate / 1000;
#elif defined(TRACEBUF_HAVE_CNTVCT)
	u32 rate;

	if (!tracebuf_cntvct_user_readable())
		return 0;
	rate = tracebuf_cntfrq();
	if (rate && !(rate % 1000))
		return rate / 1000;
#endif
	return 0;
}

/* The counter tracebuf_counter_khz() is about, now, as user space reads it. */
static inline u64 tracebuf_counter_read(void)
{
#if defined(CONFIG_X86)
	return rdtsc_ordered();
#elif defined(TRACEBUF_HAVE_CNTVCT)
	return __arch_counter_get_cntvct();
#else
	return 0;
#endif
}

/*
 * A store with release of a u64 of a buffer's header, which user space
 * loads with acquire.  A 32-bit kernel stores it in two halves, after the
 * same full barrier: the fields stored so are stop_mark, whose halves
 * are both non-zero (a reader sees the mark whole or not at all), and
 * a rolling buffer's data end, which stays below 4 GiB.
 */
static inline void tracebuf_store_release_u64(u64 *p, u64 v)
{
#if BITS_PER_LONG == 64
	smp_store_release(p, v);	/* pairs with the reader's acquire */
#else
	smp_mb();	/* what precedes, before either half; the reader's acquire */
	WRITE_ONCE(*p, v);
#endif
}

/* The feature bit saying which counter tracebuf_counter_khz() is about. */
static inline u64 tracebuf_counter_features(void)
{
	return IS_ENABLED(CONFIG_ARM64) || IS_ENABLED(CONFIG_ARM) ? TRACEBUF_FEAT_CNTVCT : 0;
}

#endif /* _TRACEBUF_COMPAT_H */
