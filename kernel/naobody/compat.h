/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel API differences, kept in one place. The driver targets Debian 12's
 * 6.1 and keeps 5.4 .. 6.x (HULKs-OS) building. Kbuild probes the headers of
 * the kernel being built against for each API (see kernel/naobody/Kbuild),
 * so a distribution kernel with a change backported works too; nothing here
 * or elsewhere tests LINUX_VERSION_CODE.
 */
#ifndef NAOBODY_COMPAT_H
#define NAOBODY_COMPAT_H

#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>

/* class_create() lost its owner argument in 6.4. */
static inline struct class *naobody_class_create(const char *name)
{
#ifdef NAOBODY_CLASS_CREATE_NO_OWNER
	return class_create(name);
#else
	return class_create(THIS_MODULE, name);
#endif
}

/* hrtimer_setup() replaced hrtimer_init() and .function in 6.13. */
static inline void naobody_hrtimer_setup(struct hrtimer *timer,
					 enum hrtimer_restart (*fn)(struct hrtimer *),
					 clockid_t clock, enum hrtimer_mode mode)
{
#ifdef NAOBODY_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/* vm_flags became read-only behind helpers in 6.3. */
static inline void naobody_vm_flags_mod(struct vm_area_struct *vma,
					unsigned long set, unsigned long clear)
{
#ifdef NAOBODY_HAVE_VM_FLAGS_MOD
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

#endif /* NAOBODY_COMPAT_H */
