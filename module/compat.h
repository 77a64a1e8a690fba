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
#ifdef CONFIG_X86
#include <asm/cpufeature.h>
#include <asm/tsc.h>
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

/*
 * The TSC rate in kHz when user space may timestamp with the TSC: constant
 * and non-stop, and not marked unstable.  0 otherwise and off x86.
 */
static inline u64 tracebuf_tsc_khz(void)
{
#ifdef CONFIG_X86
	if (boot_cpu_has(X86_FEATURE_CONSTANT_TSC) &&
	    boot_cpu_has(X86_FEATURE_NONSTOP_TSC) && !check_tsc_unstable())
		return tsc_khz;
#endif
	return 0;
}

#endif /* _TRACEBUF_COMPAT_H */
