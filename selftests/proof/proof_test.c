// SPDX-License-Identifier: GPL-2.0-only
/*
 * Load and unload the proof module. Both steps pass: what must fail is the
 * debug tier's verdict on the kernel log and on kmemleak.
 */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	printf("1..2\n");
	printf("%sok 1 load naobody_proof\n", system("modprobe naobody_proof") ? "not " : "");
	printf("%sok 2 unload naobody_proof\n", system("rmmod naobody_proof") ? "not " : "");
	return 0;
}
