// SPDX-License-Identifier: GPL-2.0-only
/* naoctl prefs: the preference block's entries and the calibration in them. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "naoctl.h"

static int load(const char *file, unsigned char *block, uint32_t *flags)
{
	struct nb_device *d;
	FILE *f;
	int n;

	if (file) {
		f = fopen(file, "rb");
		if (!f)
			return -errno;
		n = (int)fread(block, 1, NAOBODY_PREFS_SIZE, f);
		fclose(f);
		if (n != NAOBODY_PREFS_SIZE)
			return -EINVAL;
		*flags = nb_prefs_verify(block, NAOBODY_PREFS_SIZE) ? 0 : NAOBODY_PREFS_VALID;
		return 0;
	}
	d = naoctl_open(0);
	if (!d)
		return -ENODEV;
	n = nb_prefs(d, block, NAOBODY_PREFS_SIZE, flags);
	nb_close(d);
	return n < 0 ? n : 0;
}

int prefs_main(int argc, char **argv)
{
	unsigned char block[NAOBODY_PREFS_SIZE];
	const char *file = NULL, *raw = NULL;
	uint32_t flags = 0;
	struct nb_pref e;
	size_t pos = 0;
	int c, err, n = 0;

	while ((c = getopt(argc, argv, "f:o:h")) != -1) {
		switch (c) {
		case 'f':
			file = optarg;
			break;
		case 'o':
			raw = optarg;
			break;
		default:
			printf("Usage: %s prefs [-f BLOCK] [-o BLOCK]\n\n"
			       "Prints the entries of the chest board's preference block\n"
			       "(body id, board serials, joint zeros, FSR gains and offsets,\n"
			       "IMU offsets). -f reads a saved block instead of the device;\n"
			       "-o saves the raw %d bytes. The block's encoding is provisional\n"
			       "(Documentation/chest-board-protocol.rst).\n",
			       naoctl_prog, NAOBODY_PREFS_SIZE);
			return c == 'h' ? 0 : 2;
		}
	}
	err = load(file, block, &flags);
	if (err == -ENODEV)
		return 1;
	if (err)
		return naoctl_fail(file ? file : "preferences", err);
	if (raw) {
		FILE *f = fopen(raw, "wb");

		if (!f || fwrite(block, 1, sizeof(block), f) != sizeof(block)) {
			if (f)
				fclose(f);
			return naoctl_fail(raw, -errno);
		}
		fclose(f);
	}
	if (!(flags & NAOBODY_PREFS_VALID))
		fprintf(stderr, "%s: warning: the block fails its CRC check\n", naoctl_prog);
	while ((err = nb_prefs_next(block, sizeof(block), &pos, &e)) > 0) {
		n++;
		switch (e.type) {
		case NB_PREF_INT:
			printf("%s = %d\n", e.key, e.i);
			break;
		case NB_PREF_FLOAT:
			printf("%s = %g\n", e.key, e.f);
			break;
		case NB_PREF_STRING:
			printf("%s = \"%s\"\n", e.key, e.s);
			break;
		default:
			printf("%s = (type %u)\n", e.key, e.type);
			break;
		}
	}
	if (err < 0)
		return naoctl_fail("the block's entries", err);
	fprintf(stderr, "%d entries\n", n);
	return 0;
}
