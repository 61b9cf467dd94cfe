// SPDX-License-Identifier: GPL-2.0-only
/*
 * n_robot: line discipline for robot serial links. Placeholder until the
 * framers land (issue 5).
 */
#include <linux/module.h>

static int __init n_robot_init(void)
{
	return 0;
}
module_init(n_robot_init);

static void __exit n_robot_exit(void)
{
}
module_exit(n_robot_exit);

MODULE_DESCRIPTION("Line discipline for CM-5 (BRBrain) and PAROL6 serial links");
MODULE_LICENSE("GPL");
