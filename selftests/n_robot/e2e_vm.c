// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runs e2e.sh in the VM. The harness builds every VM program from C, so a
 * shell suite needs this much C to be one; e2e.sh prints the TAP.
 */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	execl("/bin/sh", "sh", "./e2e.sh", (char *)NULL);
	perror("n_robot_e2e: cannot run ./e2e.sh");
	return 1;
}
