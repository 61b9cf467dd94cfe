// SPDX-License-Identifier: GPL-2.0-only
/*
 * /sys/class/naobody/<dev>/: the cycle's counters, the death switch, the
 * chest board's version, the calibration and the boards, one value per
 * file. Documented in
 * Documentation/ABI/testing/sysfs-class-naobody.
 */
#include <linux/device.h>
#include <linux/sysfs.h>

#include "naobody.h"
#include "compat.h"

/*
 * The counters share one show function: each attribute carries its
 * counter's offset in struct naobody_stats.
 */
static ssize_t stat_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct naobody_dev *nb = dev_get_drvdata(dev);
	size_t offset = (size_t)container_of(attr, struct dev_ext_attribute, attr)->var;
	unsigned long irqflags;
	u64 v;

	spin_lock_irqsave(&nb->lock, irqflags);
	v = *(u64 *)((u8 *)&nb->stats + offset);
	spin_unlock_irqrestore(&nb->lock, irqflags);
	return sysfs_emit(buf, "%llu\n", v);
}

#define NAOBODY_STAT(_name) {						\
	.attr = { .attr = { .name = #_name, .mode = 0444 }, .show = stat_show }, \
	.var = (void *)offsetof(struct naobody_stats, _name),		\
}

static struct dev_ext_attribute naobody_stats[] = {
	NAOBODY_STAT(cycles),
	NAOBODY_STAT(answers),
	NAOBODY_STAT(overruns),
	NAOBODY_STAT(crc_errors),
	NAOBODY_STAT(bad_tables),
	NAOBODY_STAT(bad_messages),
	NAOBODY_STAT(timeouts),
	NAOBODY_STAT(stalls),
	NAOBODY_STAT(ack_mismatches),
	NAOBODY_STAT(io_errors),
	NAOBODY_STAT(skipped),
	NAOBODY_STAT(events_dropped),
	NAOBODY_STAT(calib_failures),
	NAOBODY_STAT(chest_requests_max),
};

static struct attribute *naobody_stat_attrs[] = {
	&naobody_stats[0].attr.attr,
	&naobody_stats[1].attr.attr,
	&naobody_stats[2].attr.attr,
	&naobody_stats[3].attr.attr,
	&naobody_stats[4].attr.attr,
	&naobody_stats[5].attr.attr,
	&naobody_stats[6].attr.attr,
	&naobody_stats[7].attr.attr,
	&naobody_stats[8].attr.attr,
	&naobody_stats[9].attr.attr,
	&naobody_stats[10].attr.attr,
	&naobody_stats[11].attr.attr,
	&naobody_stats[12].attr.attr,
	&naobody_stats[13].attr.attr,
	NULL
};

static const struct attribute_group naobody_stats_group = {
	.name = "statistics",
	.attrs = naobody_stat_attrs,
};

static const char *const stop_reason_names[] = {
	[NAOBODY_STOP_UNSPEC] = "unspecified",
	[NAOBODY_STOP_TOOL] = "tool",
	[NAOBODY_STOP_API] = "api",
	[NAOBODY_STOP_GUARD] = "guard",
	[NAOBODY_STOP_BUTTON] = "button",
};

/* 1 while the death switch is latched; the reason has its own file. */
static ssize_t stopped_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct naobody_dev *nb = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%d\n", READ_ONCE(nb->stopped));
}
static DEVICE_ATTR_RO(stopped);

/* The latched stop's reason, or "none". */
static ssize_t stop_reason_show(struct device *dev, struct device_attribute *attr,
				char *buf)
{
	struct naobody_dev *nb = dev_get_drvdata(dev);
	unsigned long irqflags;
	bool stopped;
	u32 reason;

	spin_lock_irqsave(&nb->lock, irqflags);
	stopped = nb->stopped;
	reason = nb->stop_reason;
	spin_unlock_irqrestore(&nb->lock, irqflags);
	if (!stopped)
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf, "%s\n", reason < ARRAY_SIZE(stop_reason_names) ?
			  stop_reason_names[reason] : "unknown");
}
static DEVICE_ATTR_RO(stop_reason);

static ssize_t controlled_show(struct device *dev, struct device_attribute *attr,
			       char *buf)
{
	struct naobody_dev *nb = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%d\n", !!READ_ONCE(nb->controller));
}
static DEVICE_ATTR_RO(controlled);

static ssize_t chest_version_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	struct naobody_dev *nb = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%08x\n", nb->chest_version);
}
static DEVICE_ATTR_RO(chest_version);

static ssize_t chest_status_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct naobody_dev *nb = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%04x\n", READ_ONCE(nb->chest_status));
}
static DEVICE_ATTR_RO(chest_status);

static ssize_t period_us_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	struct naobody_dev *nb = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%lld\n", ktime_to_us(nb->period));
}
static DEVICE_ATTR_RO(period_us);

static const char *const calibration_names[] = {
	[NAOBODY_CALIB_PENDING] = "pending",
	[NAOBODY_CALIB_READ] = "read",
	[NAOBODY_CALIB_RETRYING] = "retrying",
	[NAOBODY_CALIB_FAILED] = "failed",
};

static_assert(ARRAY_SIZE(calibration_names) == __NAOBODY_CALIB_MAX);

/* The preference block's state: pending, read, retrying or failed. */
static ssize_t calibration_show(struct device *dev, struct device_attribute *attr,
				char *buf)
{
	struct naobody_dev *nb = dev_get_drvdata(dev);
	u32 state = READ_ONCE(nb->calibration);

	return sysfs_emit(buf, "%s\n", state < ARRAY_SIZE(calibration_names) ?
			  calibration_names[state] : "unknown");
}
static DEVICE_ATTR_RO(calibration);

static const char *const board_state_names[] = {
	[NAOBODY_BOARD_UNKNOWN] = "unknown",
	[NAOBODY_BOARD_ACCEPTED] = "accepted",
	[NAOBODY_BOARD_REJECTED] = "rejected",
	[NAOBODY_BOARD_SILENT] = "silent",
};

/*
 * board<N>/: one directory per board of the codec's table, one value per
 * file. The groups are the device's own (naobody_groups), so they exist
 * when udev hears of it; naobody_sysfs_init() fills them at module load,
 * and a show function finds its board from where its attribute sits in
 * board_attrs.
 */
enum board_field { BOARD_BUS, BOARD_ADDRESS, BOARD_STATE, BOARD_VERSION, BOARD_TRIES,
		   BOARD_FIELDS };

static const char *const board_field_names[BOARD_FIELDS] = {
	[BOARD_BUS] = "bus",
	[BOARD_ADDRESS] = "address",
	[BOARD_STATE] = "state",
	[BOARD_VERSION] = "config_version",
	[BOARD_TRIES] = "tries",
};

static struct device_attribute board_attrs[NB_BOARDS][BOARD_FIELDS];
static struct attribute *board_attr_lists[NB_BOARDS][BOARD_FIELDS + 1];
static char board_group_names[NB_BOARDS][8];
static struct attribute_group board_groups[NB_BOARDS];

static ssize_t board_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct naobody_dev *nb = dev_get_drvdata(dev);
	size_t n = attr - &board_attrs[0][0];
	struct naobody_board b;

	if (n >= NB_BOARDS * BOARD_FIELDS)
		return -EINVAL;
	mutex_lock(&nb->info_lock);
	b = nb->boards[n / BOARD_FIELDS];
	mutex_unlock(&nb->info_lock);
	switch (n % BOARD_FIELDS) {
	case BOARD_BUS:
		return sysfs_emit(buf, "%u\n", b.bus);
	case BOARD_ADDRESS:
		return sysfs_emit(buf, "0x%02x\n", b.address);
	case BOARD_STATE:
		return sysfs_emit(buf, "%s\n", b.state < ARRAY_SIZE(board_state_names) ?
				  board_state_names[b.state] : "unknown");
	case BOARD_VERSION:
		return sysfs_emit(buf, "%u\n", b.config_version);
	default:
		return sysfs_emit(buf, "%u\n", b.tries);
	}
}

static struct attribute *naobody_attrs[] = {
	&dev_attr_stopped.attr,
	&dev_attr_stop_reason.attr,
	&dev_attr_controlled.attr,
	&dev_attr_chest_version.attr,
	&dev_attr_chest_status.attr,
	&dev_attr_period_us.attr,
	&dev_attr_calibration.attr,
	NULL
};

static const struct attribute_group naobody_group = {
	.attrs = naobody_attrs,
};

/* The device's groups: the attributes, statistics/, then board0/ .. */
const struct attribute_group *naobody_groups[2 + NB_BOARDS + 1] = {
	&naobody_group,
	&naobody_stats_group,
};

/* Module load, before any device: the board groups. */
void naobody_sysfs_init(void)
{
	unsigned int i, f;

	for (i = 0; i < NB_BOARDS; i++) {
		for (f = 0; f < BOARD_FIELDS; f++) {
			struct device_attribute *a = &board_attrs[i][f];

			sysfs_attr_init(&a->attr);
			a->attr.name = board_field_names[f];
			a->attr.mode = 0444;
			a->show = board_show;
			board_attr_lists[i][f] = &a->attr;
		}
		snprintf(board_group_names[i], sizeof(board_group_names[i]), "board%u", i);
		board_groups[i].name = board_group_names[i];
		board_groups[i].attrs = board_attr_lists[i];
		naobody_groups[2 + i] = &board_groups[i];
	}
}
