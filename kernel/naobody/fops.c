// SPDX-License-Identifier: GPL-2.0-only
/*
 * /dev/naobody: the file interface of uapi/linux/naobody.h.
 *
 * One character device region serves every chest board; open() finds the
 * device by minor in an IDR and takes a reference, so a file keeps its
 * naobody_dev (and the ring its mapping shows) alive after disconnect.
 * Every call then fails with ENODEV, and poll() reports a hang-up.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cdev.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "naobody.h"
#include "compat.h"

/* The ABI: sizes (the same on i386 and x86-64) userspace was built with. */
static_assert(sizeof(struct naobody_sensors) == 432);
static_assert(sizeof(struct naobody_actuators) == 160);
static_assert(sizeof(struct naobody_command) == 176);
static_assert(sizeof(struct naobody_command) >= NAOBODY_COMMAND_SIZE_VER0);
static_assert(sizeof(struct naobody_record) == 640);
static_assert(sizeof(struct naobody_ring_header) == 72);
static_assert(sizeof(struct naobody_info) == 104);
static_assert(sizeof(struct naobody_board) == 48);
static_assert(sizeof(struct naobody_boards) == 16);
static_assert(sizeof(struct naobody_prefs) == 16);
static_assert(sizeof(struct naobody_chest_id) == 32);
static_assert(sizeof(struct naobody_chest_mode) == 16);
static_assert(sizeof(struct naobody_harakiri) == 8);
static_assert(sizeof(struct naobody_stop) == 8);

/* Per open file. */
struct naobody_file {
	struct naobody_dev *nb;
	u64 seen;			/* newest record this file read(), + 1 */
};

static dev_t naobody_devt;
static struct cdev naobody_cdev;
static struct class *naobody_class;
static DEFINE_IDR(naobody_idr);
static DEFINE_MUTEX(naobody_idr_lock);	/* the IDR, and lookups against removal */

struct naobody_dev *naobody_dev_get_by_index(unsigned int index)
{
	struct naobody_dev *nb;

	mutex_lock(&naobody_idr_lock);
	nb = idr_find(&naobody_idr, index);
	if (nb)
		kref_get(&nb->kref);
	mutex_unlock(&naobody_idr_lock);
	return nb;
}

/* Take the controller role for f. Caller holds nb->lock. */
static int claim_locked(struct naobody_dev *nb, struct naobody_file *f)
{
	lockdep_assert_held(&nb->lock);
	if (nb->controller && nb->controller != f)
		return -EBUSY;
	nb->controller = f;
	nb->lost = false;
	nb->last_command = ktime_get();
	/* A ramp in progress goes on until this controller sets stiffness. */
	return 0;
}

static int naobody_claim(struct naobody_dev *nb, struct naobody_file *f)
{
	unsigned long irqflags;
	int ret;

	spin_lock_irqsave(&nb->lock, irqflags);
	ret = claim_locked(nb, f);
	spin_unlock_irqrestore(&nb->lock, irqflags);
	return ret;
}

/* Give the role up; the body ramps down. Returns -EPERM if f didn't hold it. */
static int naobody_release_role(struct naobody_dev *nb, struct naobody_file *f)
{
	unsigned long irqflags;
	int ret = -EPERM;

	spin_lock_irqsave(&nb->lock, irqflags);
	if (nb->controller == f) {
		nb->controller = NULL;
		naobody_safety_controller_lost(nb);
		ret = 0;
	}
	spin_unlock_irqrestore(&nb->lock, irqflags);
	return ret;
}

static int naobody_open(struct inode *inode, struct file *file)
{
	struct naobody_dev *nb;
	struct naobody_file *f;
	int ret;

	nb = naobody_dev_get_by_index(iminor(inode));
	if (!nb)
		return -ENODEV;
	if (naobody_gone(nb)) {
		ret = -ENODEV;
		goto err_put;
	}
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f) {
		ret = -ENOMEM;
		goto err_put;
	}
	f->nb = nb;
	/* The controller role comes only with NAOBODY_IOC_CLAIM. */
	file->private_data = f;
	return stream_open(inode, file);

err_put:
	naobody_dev_put(nb);
	return ret;
}

static int naobody_release(struct inode *inode, struct file *file)
{
	struct naobody_file *f = file->private_data;

	naobody_release_role(f->nb, f);
	naobody_dev_put(f->nb);
	kfree(f);
	return 0;
}

/*
 * read(): the newest record this file hasn't read yet; blocks until one.
 * The record goes from its slot in the ring to the user's buffer with no
 * lock held (naobody_ring_copy_newest()); -EAGAIN, even when blocking, if
 * the writer overwrote it during every copy the ring allows.
 */
static ssize_t naobody_read(struct file *file, char __user *buf, size_t count,
			    loff_t *ppos)
{
	struct naobody_file *f = file->private_data;
	struct naobody_dev *nb = f->nb;
	u64 head;
	int ret;

	if (count < sizeof(struct naobody_record))
		return -EINVAL;
	for (;;) {
		if (naobody_gone(nb))
			return -ENODEV;
		if (naobody_ring_head(&nb->ring) != f->seen)
			break;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(nb->wait,
					       naobody_ring_head(&nb->ring) != f->seen ||
					       naobody_gone(nb));
		if (ret)
			return ret;
	}

	ret = naobody_ring_copy_newest(&nb->ring, buf, &head);
	if (ret)
		return ret;
	f->seen = head;
	return sizeof(struct naobody_record);
}

static int check_command(const struct naobody_command *cmd)
{
	unsigned int i;

	if (cmd->flags & ~NAOBODY_SET_ALL)
		return -EOPNOTSUPP;
	if (cmd->reserved)
		return -EINVAL;
	for (i = 0; i < NAOBODY_JOINTS; i++)
		if (cmd->set.stiffness[i] > NAOBODY_STIFFNESS_MAX ||
		    cmd->set.position[i] < NAOBODY_POSITION_MIN ||
		    cmd->set.position[i] > NAOBODY_POSITION_MAX)
			return -EINVAL;
	if (cmd->set.sonar & ~(NAOBODY_SONAR_LEFT | NAOBODY_SONAR_RIGHT))
		return -EINVAL;
	return 0;
}

/* write(): one command from the controller, applied from the next cycle. */
static ssize_t naobody_write(struct file *file, const char __user *buf,
			     size_t count, loff_t *ppos)
{
	struct naobody_file *f = file->private_data;
	struct naobody_dev *nb = f->nb;
	struct naobody_command cmd;
	const struct naobody_actuators *set = &cmd.set;
	unsigned long irqflags;
	u32 size;
	int ret;

	if (naobody_gone(nb))
		return -ENODEV;
	/*
	 * Any size from the first struct's on, as size says: a smaller, older
	 * one's missing fields would be zero; a newer, larger one's tail must
	 * be zero (E2BIG otherwise), since this kernel can't apply it.
	 */
	if (count < NAOBODY_COMMAND_SIZE_VER0 || count > PAGE_SIZE)
		return -EINVAL;
	if (get_user(size, (const u32 __user *)buf))
		return -EFAULT;
	if (size != count)
		return -EINVAL;
	ret = copy_struct_from_user(&cmd, sizeof(cmd), buf, count);
	if (ret)
		return ret;
	ret = check_command(&cmd);
	if (ret)
		return ret;

	spin_lock_irqsave(&nb->lock, irqflags);
	if (nb->controller != f) {
		spin_unlock_irqrestore(&nb->lock, irqflags);
		return -EPERM;
	}
	nb->last_command = ktime_get();
	nb->lost = false;
	/* While the death switch is latched, commands are accepted and
	 * dropped: nothing of them applies after REARM either.
	 */
	if (!nb->stopped) {
		/* Setting stiffness ends a ramp; nothing else does. */
		if (cmd.flags & NAOBODY_SET_STIFFNESS)
			nb->ramping = false;
		if (cmd.flags & NAOBODY_SET_POSITION)
			memcpy(nb->target.position, set->position, sizeof(set->position));
		if (cmd.flags & NAOBODY_SET_STIFFNESS)
			memcpy(nb->target.stiffness, set->stiffness, sizeof(set->stiffness));
		if (cmd.flags & NAOBODY_SET_LEDS) {
			memcpy(nb->target.chest_led, set->chest_led, sizeof(set->chest_led));
			memcpy(nb->target.l_foot_led, set->l_foot_led, sizeof(set->l_foot_led));
			memcpy(nb->target.r_foot_led, set->r_foot_led, sizeof(set->r_foot_led));
		}
		if (cmd.flags & NAOBODY_SET_SONAR)
			nb->target.sonar = set->sonar;
	}
	spin_unlock_irqrestore(&nb->lock, irqflags);
	return count;
}

static __poll_t naobody_poll(struct file *file, poll_table *wait)
{
	struct naobody_file *f = file->private_data;
	struct naobody_dev *nb = f->nb;
	__poll_t mask = 0;

	poll_wait(file, &nb->wait, wait);
	if (naobody_gone(nb))
		return EPOLLHUP | EPOLLERR;
	if (naobody_ring_head(&nb->ring) != f->seen)
		mask |= EPOLLIN | EPOLLRDNORM;
	/* Only the controller may write; a command never has to wait. */
	if (READ_ONCE(nb->controller) == f)
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

static int naobody_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct naobody_file *f = file->private_data;

	if (naobody_gone(f->nb))
		return -ENODEV;
	return naobody_ring_mmap(&f->nb->ring, vma);
}

/* usize: the caller's sizeof(struct naobody_info), from the ioctl number. */
static long ioctl_get_info(struct naobody_dev *nb, struct naobody_file *f,
			   void __user *arg, size_t usize)
{
	struct naobody_info info = {
		.abi_version = NAOBODY_ABI_VERSION,
		.chest_version = nb->chest_version,
		.period_ns = ktime_to_ns(nb->period),
		.record_size = nb->ring.stride,
		.record_count = nb->ring.mask + 1,
		.ring_size = nb->ring.size,
		.boards = NB_BOARDS,
		.size = min(usize, sizeof(info)),
		.calibration = READ_ONCE(nb->calibration),
	};
	unsigned long irqflags;

	strscpy(info.driver_version, NAOBODY_VERSION, sizeof(info.driver_version));
	spin_lock_irqsave(&nb->lock, irqflags);
	if (nb->stopped) {
		info.flags |= NAOBODY_INFO_STOPPED;
		info.stop_reason = nb->stop_reason;
	}
	if (nb->controller)
		info.flags |= NAOBODY_INFO_CONTROLLED;
	if (nb->controller == f)
		info.flags |= NAOBODY_INFO_CONTROLLER;
	spin_unlock_irqrestore(&nb->lock, irqflags);
	if (READ_ONCE(nb->prefs_valid))
		info.flags |= NAOBODY_INFO_PREFS_VALID;
	if (READ_ONCE(nb->startup_done))
		info.flags |= NAOBODY_INFO_READY;
	if (copy_to_user(arg, &info, info.size))
		return -EFAULT;
	/* A newer caller's fields this kernel doesn't know read as zero. */
	if (usize > sizeof(info) && clear_user(arg + sizeof(info), usize - sizeof(info)))
		return -EFAULT;
	return 0;
}

/* Latch nb, and any device that re-enumerated in its place. */
static void stop_device_and_successor(struct naobody_dev *nb, u32 reason)
{
	struct naobody_dev *other;
	unsigned long irqflags;
	int id;

	spin_lock_irqsave(&nb->lock, irqflags);
	naobody_safety_stop(nb, reason);
	spin_unlock_irqrestore(&nb->lock, irqflags);
	if (!naobody_gone(nb))
		return;
	/*
	 * The file outlived its device: the body is the device at the same
	 * port now, or the one with the same body id at another port.
	 */
	mutex_lock(&naobody_idr_lock);
	idr_for_each_entry(&naobody_idr, other, id) {
		spin_lock_irqsave(&other->lock, irqflags);
		if (naobody_latch_same_body(other->latch_path, other->latch_body_id,
					    nb->latch_path, nb->latch_body_id))
			naobody_safety_stop(other, reason);
		spin_unlock_irqrestore(&other->lock, irqflags);
	}
	mutex_unlock(&naobody_idr_lock);
}

/*
 * NAOBODY_IOC_STOP and NAOBODY_IOC_STOP_NOW (arg NULL). The stop latches
 * first, whatever the argument holds: a bad pointer, a reserved field set
 * by a newer header or an unknown reason is reported after the fact, and
 * an unknown reason is recorded as NAOBODY_STOP_UNSPEC.
 */
static long ioctl_stop(struct naobody_dev *nb, void __user *arg)
{
	struct naobody_stop stop = { .reason = NAOBODY_STOP_UNSPEC };
	long ret = 0;

	if (arg && copy_from_user(&stop, arg, sizeof(stop))) {
		stop.reason = NAOBODY_STOP_UNSPEC;
		ret = -EFAULT;
	} else if (stop.reserved || stop.reason >= __NAOBODY_STOP_MAX) {
		ret = -EINVAL;
	}
	stop_device_and_successor(nb, stop.reason);
	if (naobody_gone(nb))
		return -ENODEV;
	return ret;
}

static long ioctl_rearm(struct naobody_dev *nb)
{
	unsigned long irqflags;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	spin_lock_irqsave(&nb->lock, irqflags);
	naobody_safety_rearm(nb);
	spin_unlock_irqrestore(&nb->lock, irqflags);
	return 0;
}

static long ioctl_get_prefs(struct naobody_dev *nb, void __user *arg)
{
	struct naobody_prefs p;
	bool read, valid;
	u8 *block;
	long ret = 0;

	if (copy_from_user(&p, arg, sizeof(p)))
		return -EFAULT;
	if (p.flags)
		return -EINVAL;
	/* Copy out of the lock: a user page can fault for as long as it likes. */
	block = kmalloc(NAOBODY_PREFS_SIZE, GFP_KERNEL);
	if (!block)
		return -ENOMEM;
	mutex_lock(&nb->info_lock);
	read = nb->prefs_read;
	valid = nb->prefs_valid;
	memcpy(block, nb->prefs, NAOBODY_PREFS_SIZE);
	mutex_unlock(&nb->info_lock);

	if (!read)
		ret = -ENODATA;
	else if (p.size < NAOBODY_PREFS_SIZE)
		ret = -ENOSPC;
	else if (copy_to_user(u64_to_user_ptr(p.data), block, NAOBODY_PREFS_SIZE))
		ret = -EFAULT;
	else if (valid)
		p.flags = NAOBODY_PREFS_VALID;
	kfree(block);
	if (ret && ret != -ENOSPC)
		return ret;
	/* Also on ENOSPC: size tells the caller what is needed. */
	p.size = NAOBODY_PREFS_SIZE;
	if (copy_to_user(arg, &p, sizeof(p)))
		return -EFAULT;
	return ret;
}

static long ioctl_get_boards(struct naobody_dev *nb, void __user *arg)
{
	struct naobody_board *copy;
	struct naobody_boards b;
	unsigned int n;
	int ret = 0;

	if (copy_from_user(&b, arg, sizeof(b)))
		return -EFAULT;
	if (b.entry_size != sizeof(struct naobody_board))
		return -EINVAL;
	n = min_t(u32, b.count, NB_BOARDS);
	copy = kmalloc_array(NB_BOARDS, sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	mutex_lock(&nb->info_lock);
	memcpy(copy, nb->boards, sizeof(nb->boards));
	mutex_unlock(&nb->info_lock);
	if (n && copy_to_user(u64_to_user_ptr(b.entries), copy, n * sizeof(*copy)))
		ret = -EFAULT;
	kfree(copy);
	b.count = NB_BOARDS;
	if (!ret && copy_to_user(arg, &b, sizeof(b)))
		ret = -EFAULT;
	return ret;
}

static long ioctl_get_chest_id(struct naobody_dev *nb, void __user *arg)
{
	struct naobody_chest_id id;

	if (copy_from_user(&id, arg, sizeof(id)))
		return -EFAULT;
	if (id.reserved || id.slot >= NAOBODY_CHEST_ID_SLOTS)
		return -EINVAL;
	mutex_lock(&nb->info_lock);
	if (!nb->chest_id_read[id.slot]) {
		mutex_unlock(&nb->info_lock);
		return -ENODATA;
	}
	memcpy(id.id, nb->chest_ids[id.slot], sizeof(id.id));
	mutex_unlock(&nb->info_lock);
	return copy_to_user(arg, &id, sizeof(id)) ? -EFAULT : 0;
}

/* One chest board request at a time (naobody_dev.chest_lock). */
static int chest_request(struct naobody_dev *nb, u8 type, u16 param,
			 struct naobody_request *r)
{
	int ret;

	ret = mutex_lock_killable(&nb->chest_lock);
	if (ret)
		return ret;
	ret = naobody_request_simple(nb, type, 0, param, r);
	mutex_unlock(&nb->chest_lock);
	return ret;
}

static long ioctl_chest_mode(struct naobody_dev *nb, void __user *arg)
{
	struct naobody_chest_mode m;
	struct naobody_request r;
	long ret;

	if (copy_from_user(&m, arg, sizeof(m)))
		return -EFAULT;
	if (m.reserved || m.result)
		return -EINVAL;
	if (m.op >= __NAOBODY_CHEST_MODE_MAX)
		return -EOPNOTSUPP;
	if (m.op != NAOBODY_CHEST_QUERY_BOOTLOADER && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	if ((m.op == NAOBODY_CHEST_CYCLE_MOTOR_POWER || m.op == NAOBODY_CHEST_CYCLE_HEAD_POWER) &&
	    !READ_ONCE(naobody_provisional_power_requests))
		return -EOPNOTSUPP;
	ret = chest_request(nb, NAOBODY_RQ_CHEST_MODE, m.op, &r);
	if (ret)
		return ret;
	m.result = r.value;
	return copy_to_user(arg, &m, sizeof(m)) ? -EFAULT : 0;
}

static long ioctl_harakiri(struct naobody_dev *nb, void __user *arg)
{
	struct naobody_harakiri h;
	struct naobody_request r;

	if (copy_from_user(&h, arg, sizeof(h)))
		return -EFAULT;
	if (h.reserved)
		return -EINVAL;
	if (h.op != NAOBODY_HARAKIRI_POWER_OFF && h.op != NAOBODY_HARAKIRI_RESET)
		return -EOPNOTSUPP;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (!READ_ONCE(naobody_provisional_power_requests))
		return -EOPNOTSUPP;
	return chest_request(nb, NAOBODY_RQ_HARAKIRI, h.op, &r);
}

static long naobody_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct naobody_file *f = file->private_data;
	struct naobody_dev *nb = f->nb;
	void __user *argp = (void __user *)arg;

	/* A stop latches even on a device that is gone: see ioctl_stop(). */
	if (cmd == NAOBODY_IOC_STOP)
		return ioctl_stop(nb, argp);
	if (cmd == NAOBODY_IOC_STOP_NOW)
		return ioctl_stop(nb, NULL);
	if (naobody_gone(nb))
		return -ENODEV;

	/* GET_INFO of any size from the first struct's on (see the uapi). */
	if (_IOC_TYPE(cmd) == NAOBODY_IOC_MAGIC && _IOC_DIR(cmd) == _IOC_READ &&
	    _IOC_NR(cmd) == _IOC_NR(NAOBODY_IOC_GET_INFO) &&
	    _IOC_SIZE(cmd) >= NAOBODY_INFO_SIZE_VER0)
		return ioctl_get_info(nb, f, argp, _IOC_SIZE(cmd));

	switch (cmd) {
	case NAOBODY_IOC_CLAIM:
		if (!(file->f_mode & FMODE_WRITE))
			return -EBADF;
		return naobody_claim(nb, f);
	case NAOBODY_IOC_RELEASE:
		return naobody_release_role(nb, f);
	case NAOBODY_IOC_REARM:
		return ioctl_rearm(nb);
	case NAOBODY_IOC_GET_PREFS:
		return ioctl_get_prefs(nb, argp);
	case NAOBODY_IOC_GET_BOARDS:
		return ioctl_get_boards(nb, argp);
	case NAOBODY_IOC_GET_CHEST_ID:
		return ioctl_get_chest_id(nb, argp);
	case NAOBODY_IOC_CHEST_MODE:
		return ioctl_chest_mode(nb, argp);
	case NAOBODY_IOC_HARAKIRI:
		return ioctl_harakiri(nb, argp);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations naobody_fops = {
	.owner = THIS_MODULE,
	.open = naobody_open,
	.release = naobody_release,
	.read = naobody_read,
	.write = naobody_write,
	.poll = naobody_poll,
	.mmap = naobody_mmap,
	.unlocked_ioctl = naobody_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = no_llseek,
};

/* Give nb an index and its /dev node: "naobody" for the first, then naobodyN. */
int naobody_chrdev_add(struct naobody_dev *nb)
{
	struct device *dev;
	int index;

	mutex_lock(&naobody_idr_lock);
	index = idr_alloc(&naobody_idr, nb, 0, NAOBODY_MAX_DEVICES, GFP_KERNEL);
	/*
	 * In the section that makes nb findable by a stop on a stale file
	 * (stop_device_and_successor(), which records the latch first): such
	 * a stop either walks the IDR after us and stops nb, or recorded its
	 * latch before, and the lookup here sees it.
	 */
	if (index >= 0)
		naobody_safety_latch_new(nb);
	mutex_unlock(&naobody_idr_lock);
	if (index < 0)
		return index == -ENOSPC ? -EBUSY : index;
	nb->index = index;

	dev = device_create_with_groups(naobody_class, &nb->intf->dev,
					MKDEV(MAJOR(naobody_devt), index), nb,
					naobody_groups,
					index ? "naobody%d" : "naobody", index);
	if (IS_ERR(dev)) {
		mutex_lock(&naobody_idr_lock);
		idr_remove(&naobody_idr, index);
		mutex_unlock(&naobody_idr_lock);
		return PTR_ERR(dev);
	}
	nb->dev = dev;
	return 0;
}

/* New opens fail from here on; open files keep their reference. */
void naobody_chrdev_remove(struct naobody_dev *nb)
{
	mutex_lock(&naobody_idr_lock);
	idr_remove(&naobody_idr, nb->index);
	mutex_unlock(&naobody_idr_lock);
	device_destroy(naobody_class, MKDEV(MAJOR(naobody_devt), nb->index));
	nb->dev = NULL;
}

int naobody_chrdev_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&naobody_devt, 0, NAOBODY_MAX_DEVICES, "naobody");
	if (ret)
		return ret;
	cdev_init(&naobody_cdev, &naobody_fops);
	naobody_cdev.owner = THIS_MODULE;
	ret = cdev_add(&naobody_cdev, naobody_devt, NAOBODY_MAX_DEVICES);
	if (ret)
		goto err_region;
	naobody_class = naobody_class_create("naobody");
	if (IS_ERR(naobody_class)) {
		ret = PTR_ERR(naobody_class);
		goto err_cdev;
	}
	return 0;

err_cdev:
	cdev_del(&naobody_cdev);
err_region:
	unregister_chrdev_region(naobody_devt, NAOBODY_MAX_DEVICES);
	return ret;
}

void naobody_chrdev_exit(void)
{
	class_destroy(naobody_class);
	cdev_del(&naobody_cdev);
	unregister_chrdev_region(naobody_devt, NAOBODY_MAX_DEVICES);
	idr_destroy(&naobody_idr);
}
