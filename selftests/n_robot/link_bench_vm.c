// SPDX-License-Identifier: GPL-2.0-only
/* Runs link_bench.sh in the VM (the harness builds VM programs from C). */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	execl("/bin/sh", "sh", "./link_bench.sh", (char *)NULL);
	perror("n_robot_link_bench: cannot run ./link_bench.sh");
	return 1;
}
