/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel API differences, kept in one place. The driver targets Debian 12's
 * 6.1; make check builds it against 5.10, 5.10-rt, 6.1, 6.1-rt, 6.12 and
 * 6.12-rt (scripts/build-matrix.sh), and it is designed for HULKs-OS's
 * 5.4.70-rt40 and the 4.4 RT kernels of older NAO images, which no package
 * here ships: the fallbacks for those follow the kernel's history and are
 * not compile-tested against them. Kbuild probes the headers of the kernel
 * being built against for each API (see kernel/naobody/Kbuild), so a
 * distribution kernel with a change backported works too; nothing here or
 * elsewhere tests LINUX_VERSION_CODE. Documentation/dev/kernel-compat.rst
 * lists every probe.
 */
#ifndef NAOBODY_COMPAT_H
#define NAOBODY_COMPAT_H

#include <linux/compat.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#ifdef NAOBODY_HAVE_SCHED_TYPES_H
#include <uapi/linux/sched/types.h>	/* struct sched_attr, sched_param */
#endif

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

/*
 * The cycle's timers expire in hard interrupt context on PREEMPT_RT too
 * only when marked _HARD (4.16; before, the RT patch's hrtimer.irqsafe did
 * it). Their callbacks take no lock: they wake the cycle's thread.
 */
#ifdef NAOBODY_HAVE_HRTIMER_MODE_HARD
#define NAOBODY_HRTIMER_ABS_HARD	HRTIMER_MODE_ABS_HARD
#else
#define NAOBODY_HRTIMER_ABS_HARD	HRTIMER_MODE_ABS
#endif

static inline void naobody_hrtimer_make_hard(struct hrtimer *timer)
{
#ifdef NAOBODY_HAVE_HRTIMER_IRQSAFE
	timer->irqsafe = 1;
#endif
}

/*
 * The cycle's thread, a kthread_worker: kthread_create_worker() since
 * 4.9, which starts it up to 6.13 and leaves it to the caller from 6.14 on
 * (naobody_worker_create()'s caller wakes it either way). Before 4.9 the
 * same worker went by other names, created by hand, without a cancel: the
 * works that are cancelled (the tick, the step timeout) return at once
 * when the cycle is halted, so waiting for them does as well.
 */
#ifdef NAOBODY_HAVE_KTHREAD_CREATE_WORKER
static inline struct kthread_worker *naobody_worker_create(const char *name,
							   struct task_struct **task)
{
	struct kthread_worker *w = kthread_create_worker(0, "%s", name);

	if (!IS_ERR(w))
		*task = w->task;
	return w;
}

static inline void naobody_worker_destroy(struct kthread_worker *w, struct task_struct *task)
{
	kthread_destroy_worker(w);
}
#else
#define kthread_init_work		init_kthread_work
#define kthread_queue_work		queue_kthread_work
#define kthread_cancel_work_sync(work)	(flush_kthread_work(work), false)

static inline struct kthread_worker *naobody_worker_create(const char *name,
							   struct task_struct **task)
{
	struct kthread_worker *w = kzalloc(sizeof(*w), GFP_KERNEL);
	struct task_struct *t;

	if (!w)
		return ERR_PTR(-ENOMEM);
	init_kthread_worker(w);
	t = kthread_create(kthread_worker_fn, w, "%s", name);
	if (IS_ERR(t)) {
		kfree(w);
		return ERR_CAST(t);
	}
	*task = t;
	return w;
}

static inline void naobody_worker_destroy(struct kthread_worker *w, struct task_struct *task)
{
	flush_kthread_worker(w);
	kthread_stop(task);
	kfree(w);
}
#endif

/*
 * A kernel thread's real-time priority: sched_setattr_nocheck() takes any
 * (Kbuild looks for its export in Module.symvers: 5.10 declares it but
 * does not export it); without it, from 5.9 on, sched_set_fifo() gives 50
 * only, and before 5.9 sched_setscheduler_nocheck() any. 0 is SCHED_NORMAL.
 * Returns 0, or -EOPNOTSUPP when only 50 was possible and prio is not 50.
 */
static inline int naobody_sched_fifo(struct task_struct *task, unsigned int prio)
{
#if defined(NAOBODY_HAVE_SCHED_SETATTR_NOCHECK)
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = prio ? SCHED_FIFO : SCHED_NORMAL,
		.sched_priority = prio,
	};

	return sched_setattr_nocheck(task, &attr);
#elif defined(NAOBODY_HAVE_SCHED_SET_FIFO)
	if (!prio)
		return 0;
	sched_set_fifo(task);
	return prio == MAX_RT_PRIO / 2 ? 0 : -EOPNOTSUPP;
#else
	struct sched_param sp = { .sched_priority = prio };

	return sched_setscheduler_nocheck(task, prio ? SCHED_FIFO : SCHED_NORMAL, &sp);
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

/*
 * sysfs_emit() and sysfs_emit_at() arrived in 5.10: before, a show()
 * formats into its PAGE_SIZE buffer itself, as they do.
 */
#ifndef NAOBODY_HAVE_SYSFS_EMIT
static inline __printf(2, 3)
int naobody_sysfs_emit(char *buf, const char *fmt, ...)
{
	va_list args;
	int len;

	va_start(args, fmt);
	len = vscnprintf(buf, PAGE_SIZE, fmt, args);
	va_end(args);
	return len;
}

static inline __printf(3, 4)
int naobody_sysfs_emit_at(char *buf, int at, const char *fmt, ...)
{
	va_list args;
	int len;

	if (WARN_ON_ONCE(at < 0 || at >= PAGE_SIZE))
		return 0;
	va_start(args, fmt);
	len = vscnprintf(buf + at, PAGE_SIZE - at, fmt, args);
	va_end(args);
	return len;
}

#define sysfs_emit naobody_sysfs_emit
#define sysfs_emit_at naobody_sysfs_emit_at
#endif

/*
 * compat_ptr_ioctl() arrived in 5.5: before, the same few lines (our
 * ioctls take pointers, or nothing, and their structs have one layout).
 */
#ifndef NAOBODY_HAVE_COMPAT_PTR_IOCTL
#ifdef CONFIG_COMPAT
static inline long naobody_compat_ptr_ioctl(struct file *file, unsigned int cmd,
					    unsigned long arg)
{
	if (!file->f_op->unlocked_ioctl)
		return -ENOIOCTLCMD;
	return file->f_op->unlocked_ioctl(file, cmd, (unsigned long)compat_ptr(arg));
}

#define compat_ptr_ioctl naobody_compat_ptr_ioctl
#else
#define compat_ptr_ioctl NULL
#endif
#endif

/*
 * no_llseek went in 6.12: a NULL .llseek has meant "not seekable" (-ESPIPE)
 * since 2.6.37, which is all no_llseek ever did.
 */
#ifndef NAOBODY_HAVE_NO_LLSEEK
#define no_llseek NULL
#endif

/* __poll_t and the EPOLL* masks for poll() arrived in 4.16. */
#ifndef NAOBODY_HAVE_POLL_T
#define __poll_t unsigned int
#endif
#ifndef EPOLLIN
#define EPOLLIN		POLLIN
#define EPOLLOUT	POLLOUT
#define EPOLLERR	POLLERR
#define EPOLLHUP	POLLHUP
#define EPOLLRDNORM	POLLRDNORM
#define EPOLLWRNORM	POLLWRNORM
#endif

/*
 * %pe prints an ERR_PTR()'s errno by name ("-ENODEV") since 5.5, which
 * brought linux/errname.h with it; before, it prints a hashed pointer and
 * the log would say nothing of the error. So messages print errors as
 *
 *	dev_err(dev, "it failed: " NAOBODY_PE "\n", NAOBODY_ERR(ret));
 *
 * which is %pe where it works and the errno's number elsewhere.
 */
#ifdef NAOBODY_HAVE_PRINTK_ERRNAME
#define NAOBODY_PE		"%pe"
#define NAOBODY_ERR(err)	ERR_PTR(err)
#else
#define NAOBODY_PE		"error %d"
#define NAOBODY_ERR(err)	((int)(err))
#endif

#endif /* NAOBODY_COMPAT_H */
