# SPDX-License-Identifier: GPL-2.0-only
#
# API probes for compat.h: grep the headers of the kernel we build against,
# never its version number, so a distribution kernel with a change
# backported gets the new API. Included by kernel/naobody/Kbuild and by
# kernel/tests/Kbuild (whose KUnit tests compile our .c files in).
# Documentation/dev/kernel-compat.rst has the table: API, version, fallback.
# ('.' stands for '(', which make would take for the end of the call.)
naobody-has = $(shell grep -qsE '$(2)' $(srctree)/include/$(1) && echo y)

# class_create() lost its owner argument in 6.4.
ccflags-$(call naobody-has,linux/device/class.h,class_create.const char) += \
	-DNAOBODY_CLASS_CREATE_NO_OWNER
# hrtimer_setup() replaced hrtimer_init() and .function in 6.13.
ccflags-$(call naobody-has,linux/hrtimer.h,void hrtimer_setup.struct hrtimer) += \
	-DNAOBODY_HAVE_HRTIMER_SETUP
# vm_flags became read-only behind vm_flags_mod() and friends in 6.3.
ccflags-$(call naobody-has,linux/mm.h,void vm_flags_mod.struct vm_area_struct) += \
	-DNAOBODY_HAVE_VM_FLAGS_MOD
# HRTIMER_MODE_*_HARD (expiry in hard interrupt context on PREEMPT_RT) arrived
# in 4.16; the 4.4 RT patch set struct hrtimer's irqsafe instead.
ccflags-$(call naobody-has,linux/hrtimer.h,HRTIMER_MODE_ABS_HARD) += \
	-DNAOBODY_HAVE_HRTIMER_MODE_HARD
ccflags-$(call naobody-has,linux/hrtimer.h,int[[:space:]]+irqsafe) += \
	-DNAOBODY_HAVE_HRTIMER_IRQSAFE
# kthread_create_worker(), kthread_destroy_worker() and the kthread_*_work()
# names arrived in 4.9 (kthread_create_worker() became a macro in 6.14).
ccflags-$(call naobody-has,linux/kthread.h,void kthread_destroy_worker.struct kthread_worker) += \
	-DNAOBODY_HAVE_KTHREAD_CREATE_WORKER
# sched_set_fifo() arrived in 5.9, when sched_setscheduler_nocheck() lost
# its export.
ccflags-$(call naobody-has,linux/sched.h,void sched_set_fifo.struct task_struct) += \
	-DNAOBODY_HAVE_SCHED_SET_FIFO
# struct sched_param and sched_attr moved to uapi/linux/sched/types.h in 4.11.
ccflags-$(call naobody-has,uapi/linux/sched/types.h,struct sched_param) += \
	-DNAOBODY_HAVE_SCHED_TYPES_H
# NAOBODY_COMPAT_FALLBACKS=1 (the build matrix's "6.1-fallbacks") leaves
# out the probes below, whose fallbacks also build on a newer kernel: so the
# code for kernels before 5.10 is at least compiled here.
ifneq ($(NAOBODY_COMPAT_FALLBACKS),1)
# sysfs_emit() and sysfs_emit_at() arrived in 5.10.
ccflags-$(call naobody-has,linux/sysfs.h,int sysfs_emit.char) += -DNAOBODY_HAVE_SYSFS_EMIT
# compat_ptr_ioctl() arrived in 5.5.
ccflags-$(call naobody-has,linux/fs.h,compat_ptr_ioctl) += -DNAOBODY_HAVE_COMPAT_PTR_IOCTL
# no_llseek went in 6.12.
ccflags-$(call naobody-has,linux/fs.h,loff_t no_llseek.struct file) += -DNAOBODY_HAVE_NO_LLSEEK
# %pe (and linux/errname.h) arrived in 5.5.
ccflags-$(call naobody-has,linux/errname.h,const char .errname.int) += \
	-DNAOBODY_HAVE_PRINTK_ERRNAME
# sched_setattr_nocheck() takes any priority, but is exported only after
# sched_set_fifo() (not in 5.10): its export is looked up in the kernel's
# Module.symvers, not its declaration.
naobody-exports = $(shell grep -qsE '^0x[0-9a-f]+[[:space:]]+$(1)[[:space:]]' \
	$(objtree)/Module.symvers && echo y)
ccflags-$(call naobody-exports,sched_setattr_nocheck) += -DNAOBODY_HAVE_SCHED_SETATTR_NOCHECK
# __poll_t arrived in 4.16.
ccflags-$(call naobody-has,uapi/linux/types.h,typedef unsigned __bitwise __poll_t) += \
	-DNAOBODY_HAVE_POLL_T
endif
