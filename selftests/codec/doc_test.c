// SPDX-License-Identifier: GPL-2.0-only
/*
 * Documentation/chest-board-protocol.rst repeats the provisional tables of
 * nb_layout.h for readers; this test keeps the two equal, row for row.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "codec_test.h"

#define DOC_LINES	2000

static char *lines[DOC_LINES];
static int nlines;

/* The page's lines, each with its runs of spaces squeezed to one. */
static int load(void)
{
	char here[] = __FILE__, path[512], buf[512];
	FILE *f;

	if (nlines)
		return 0;
	snprintf(path, sizeof(path),
		 "%s/../../Documentation/chest-board-protocol.rst", dirname(here));
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (nlines < DOC_LINES && fgets(buf, sizeof(buf), f)) {
		char *in = buf, *out = buf;
		int space = 1;

		for (; *in && *in != '\n'; in++) {
			if (*in == ' ') {
				if (!space)
					*out++ = ' ';
				space = 1;
			} else {
				*out++ = *in;
				space = 0;
			}
		}
		if (out > buf && out[-1] == ' ')
			out--;
		*out = '\0';
		lines[nlines++] = strdup(buf);
	}
	fclose(f);
	return 0;
}

static int has_line(const char *want)
{
	int i;

	for (i = 0; i < nlines; i++)
		if (!strcmp(lines[i], want))
			return 1;
	return 0;
}

TEST(field_tables_match_the_codec)
{
	char want[256], off[16];
	unsigned int i;

	ASSERT_EQ(0, load());
	for (i = 0; nb_field(i); i++) {
		const struct nb_field *f = nb_field(i);

		if (f->stride)
			snprintf(off, sizeof(off), "%u+%uj", f->offset, f->stride);
		else
			snprintf(off, sizeof(off), "%u", f->offset);
		snprintf(want, sizeof(want), "%s %s %u %s %d/%d %s", f->name, off,
			 f->width, f->flags & NB_FIELD_SIGNED ? "yes" : "no",
			 f->scale_num, f->scale_den, *f->unit ? f->unit : "-");
		EXPECT_TRUE(has_line(want)) {
			TH_LOG("the page lacks the row \"%s\"", want);
		}
	}
}

TEST(board_table_matches_the_codec)
{
	static const char *const kinds[] = { "?", "joint", "hand", "foot" };
	char prefix[128];
	unsigned int i;
	int k, found;

	ASSERT_EQ(0, load());
	for (i = 0; i < NB_BOARDS; i++) {
		const struct nb_board_desc *b = nb_board(i);
		char len[8];

		snprintf(prefix, sizeof(prefix), "%u %s %u ``%02x`` %s %02x ", i,
			 b->name, b->bus, b->address, kinds[b->kind], b->start);
		snprintf(len, sizeof(len), " %u", b->len);
		found = 0;
		for (k = 0; k < nlines; k++) {
			size_t n = strlen(lines[k]), l = strlen(len);

			if (!strncmp(lines[k], prefix, strlen(prefix)) &&
			    n > l && !strcmp(lines[k] + n - l, len))
				found = 1;
		}
		EXPECT_TRUE(found) {
			TH_LOG("the page lacks a row \"%s... %s\"", prefix, len);
		}
	}
}

TEST(chest_mode_codes_match_the_codec)
{
	static const char *const ops[] = {
		"NAOBODY_CHEST_QUERY_BOOTLOADER", "NAOBODY_CHEST_LED_START",
		"NAOBODY_CHEST_LED_STOP", "NAOBODY_CHEST_LED_FIRMWARE_UPDATE",
		"NAOBODY_CHEST_LED_UNUSABLE", "NAOBODY_CHEST_LED_MANUAL",
		"NAOBODY_CHEST_LED_WATCHDOG_RESET",
		"NAOBODY_CHEST_CYCLE_MOTOR_POWER", "NAOBODY_CHEST_CYCLE_HEAD_POWER",
	};
	static uint8_t buf[64];
	struct naobody_actuators a = { 0 };
	struct nb_frame_builder b;
	unsigned int op;
	int k, found;

	ASSERT_EQ(0, load());
	ASSERT_EQ(__NAOBODY_CHEST_MODE_MAX, ARRAY_SIZE(ops));
	for (op = 0; op < ARRAY_SIZE(ops) + 2; op++) {
		struct nb_msg_info info = { .board = NB_NO_BOARD };
		char want[80];

		if (op < ARRAY_SIZE(ops)) {
			info.type = NB_MSG_CHEST_MODE_REQ;
			info.value = op;
		} else {
			info.type = NB_MSG_HARAKIRI;
			info.value = op - ARRAY_SIZE(ops);
		}
		nb_frame_begin(&b, buf, sizeof(buf), NB_FRAME_OUT);
		ASSERT_EQ(0, nb_out_msg_encode(&b, &info, &a));
		ASSERT_EQ(4 + 4 + 1, nb_frame_end(&b, NULL));
		/* the code is the message's 4th byte */
		snprintf(want, sizeof(want), " ``%02x``", buf[4 + 3]);
		found = 0;
		for (k = 0; k < nlines; k++) {
			const char *name = op < ARRAY_SIZE(ops) ? ops[op] :
				op == ARRAY_SIZE(ops) ? "NAOBODY_HARAKIRI_POWER_OFF" :
				"NAOBODY_HARAKIRI_RESET";
			size_t n = strlen(lines[k]);

			if (strstr(lines[k], name) && n > strlen(want) &&
			    !strcmp(lines[k] + n - strlen(want), want))
				found = 1;
		}
		EXPECT_TRUE(found) {
			TH_LOG("op %u: the page lacks its code%s", op, want);
		}
	}
}

TEST_HARNESS_MAIN
