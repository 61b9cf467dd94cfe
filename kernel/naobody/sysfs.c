// SPDX-License-Identifier: GPL-2.0-only
/*
 * /sys/class/naobody/<dev>/: the cycle's counters, the death switch, the
 * chest board's version and the boards. Documented in
 * Documentation/ABI/testing/sysfs-class-naobody.
 */
#include <linux/device.h>
#include <linux/sysfs.h>

#include "naobody.h"

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

/* "0", or "1 <reason>" while the death switch is latched. */
static ssize_t stopped_show(struct device *dev, struct device_attribute *attr,
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
		return sysfs_emit(buf, "0\n");
	return sysfs_emit(buf, "1 %s\n", reason < ARRAY_SIZE(stop_reason_names) ?
			  stop_reason_names[reason] : "unknown");
}
static DEVICE_ATTR_RO(stopped);

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

static const char *const board_state_names[] = {
	[NAOBODY_BOARD_UNKNOWN] = "unknown",
	[NAOBODY_BOARD_ACCEPTED] = "accepted",
	[NAOBODY_BOARD_REJECTED] = "rejected",
	[NAOBODY_BOARD_SILENT] = "silent",
};

/* One line per board: index bus address state version tries. */
static ssize_t boards_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct naobody_dev *nb = dev_get_drvdata(dev);
	ssize_t len = 0;
	unsigned int i;

	mutex_lock(&nb->info_lock);
	for (i = 0; i < NB_BOARDS; i++) {
		const struct naobody_board *b = &nb->boards[i];

		len += sysfs_emit_at(buf, len, "%u %u 0x%02x %s %u %u\n", i, b->bus,
				     b->address,
				     b->state < ARRAY_SIZE(board_state_names) ?
				     board_state_names[b->state] : "?",
				     b->config_version, b->tries);
	}
	mutex_unlock(&nb->info_lock);
	return len;
}
static DEVICE_ATTR_RO(boards);

static struct attribute *naobody_attrs[] = {
	&dev_attr_stopped.attr,
	&dev_attr_controlled.attr,
	&dev_attr_chest_version.attr,
	&dev_attr_chest_status.attr,
	&dev_attr_period_us.attr,
	&dev_attr_boards.attr,
	NULL
};

static const struct attribute_group naobody_group = {
	.attrs = naobody_attrs,
};

const struct attribute_group *naobody_groups[] = {
	&naobody_group,
	&naobody_stats_group,
	NULL
};
