/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The tty line discipline API across the kernels n_robot is designed for
 * (4.4 to 6.x; built here: 5.10 to 6.12). Kbuild probes the kernel's
 * headers and defines NR_HAVE_*; this file turns them into one set of names.
 * ldisc.c writes its hooks once, with the 6.6 types, and uses the nr_*_op
 * names below in its tty_ldisc_ops. Run on
 * Debian 12's 6.1 and 6.1-rt; built by make check against 5.10, 5.10-rt,
 * 6.1, 6.1-rt, 6.12 and 6.12-rt (scripts/build-matrix.sh). The branches for
 * older kernels (5.4, 4.4) follow the kernel's history and are not
 * compile-tested here (Documentation/dev/kernel-compat.rst). The API
 * changed in:
 *
 *   4.16  poll() returns __poll_t, masks are EPOLL* (in core.h, which the
 *         serdev driver shares)
 *   5.11  ldisc read() fills a kernel buffer, iterated with cookie/offset
 *   5.13  tty_ldisc_ops lost .magic
 *   5.14  tty_(un)register_ldisc() take the ops; receive flags are const
 *   5.1x  ldisc hangup() returns void (int in 5.10, void in 6.1)
 *   5.16  ldisc ioctl() and n_tty_ioctl_helper() lost the file argument
 *   5.18  N_DEVELOPMENT in <uapi/linux/tty.h>
 *   6.6   receive_buf() takes const u8 *flags and a size_t count
 */
#ifndef _N_ROBOT_COMPAT_H
#define _N_ROBOT_COMPAT_H

#include <linux/poll.h>
#include <linux/tty.h>
#include <linux/tty_ldisc.h>
#include <linux/uaccess.h>

#ifndef N_DEVELOPMENT
#define N_DEVELOPMENT 29
#endif

/* The hooks ldisc.c defines, in their 6.6 form. */
static void nr_receive_buf(struct tty_struct *tty, const u8 *cp,
			   const u8 *fp, size_t count);
static int nr_ioctl(struct tty_struct *tty, unsigned int cmd,
		    unsigned long arg);
static ssize_t nr_read(struct tty_struct *tty, struct file *file, u8 *kbuf,
		       size_t nr, void **cookie, unsigned long offset);
static void nr_hangup(struct tty_struct *tty);

#ifdef NR_HAVE_INT_HANGUP
static int nr_hangup_op(struct tty_struct *tty)
{
	nr_hangup(tty);
	return 0;
}
#else
#define nr_hangup_op nr_hangup
#endif

#if defined(NR_HAVE_U8_FLAGS)
#define nr_receive_buf_op nr_receive_buf
#elif defined(NR_HAVE_CONST_CHAR_FLAGS)
static void nr_receive_buf_op(struct tty_struct *tty, const unsigned char *cp,
			      const char *fp, int count)
{
	nr_receive_buf(tty, cp, (const u8 *)fp, count);
}
#else
static void nr_receive_buf_op(struct tty_struct *tty, const unsigned char *cp,
			      char *fp, int count)
{
	nr_receive_buf(tty, cp, (const u8 *)fp, count);
}
#endif

#ifdef NR_HAVE_IOCTL_NO_FILE
#define nr_ioctl_op nr_ioctl
#define nr_ioctl_helper(tty, cmd, arg) n_tty_ioctl_helper(tty, cmd, arg)
#else
static int nr_ioctl_op(struct tty_struct *tty, struct file *file,
		       unsigned int cmd, unsigned long arg)
{
	return nr_ioctl(tty, cmd, arg);
}

#define nr_ioctl_helper(tty, cmd, arg) n_tty_ioctl_helper(tty, NULL, cmd, arg)
#endif

#ifdef NR_HAVE_REGISTER_OPS
#define nr_register_ldisc(ops)		tty_register_ldisc(ops)
#define nr_unregister_ldisc(ops)	tty_unregister_ldisc(ops)
#else
#define nr_register_ldisc(ops)		tty_register_ldisc(N_DEVELOPMENT, ops)
#define nr_unregister_ldisc(ops)	tty_unregister_ldisc(N_DEVELOPMENT)
#endif

#ifdef NR_HAVE_LDISC_MAGIC
#define nr_ldisc_prepare(ops)		((ops)->magic = TTY_LDISC_MAGIC)
#else
#define nr_ldisc_prepare(ops)		do { } while (0)
#endif

#ifdef NR_HAVE_COOKIE_READ
#define nr_read_op nr_read
#else
/*
 * Before 5.11 the ldisc copied to userspace itself: drive the cookie/offset
 * read the way 5.11's iterate_tty_read() does.
 */
static ssize_t nr_read_op(struct tty_struct *tty, struct file *file,
			  unsigned char __user *ubuf, size_t count)
{
	unsigned char kbuf[64];
	unsigned long offset = 0;
	void *cookie = NULL;
	ssize_t ret = 0;
	ssize_t size;

	do {
		size = nr_read(tty, file, kbuf, min(count, sizeof(kbuf)),
			       &cookie, offset);
		if (!size)
			break;
		if (size < 0) {
			if (!ret)
				ret = size;
			if (size == -EOVERFLOW)
				offset = 0;
			break;
		}
		if (copy_to_user(ubuf + offset, kbuf, size)) {
			count = 0;
			ret = -EFAULT;
		} else {
			offset += size;
			count -= size;
		}
	} while (cookie);
	return offset ? offset : ret;
}
#endif

#endif /* _N_ROBOT_COMPAT_H */
