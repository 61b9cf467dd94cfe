// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnbsimctl (userspace/include/simctl/simctl.h), which naobodyd's
 * simulated body and chestboard-emu read their control lines with: the
 * words (and the rest of a line kept whole, the emulator's "id"), the
 * table's look-up, word counts and lists, names and numbers.
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"

#include <simctl/simctl.h>

enum { T_A, T_B, T_PHYS, T_HIDDEN, T_COUNT };

static const struct simctl_cmd table[T_COUNT] = {
	[T_A] = { "alpha", 0, 0, 0, "alpha" },
	[T_B] = { "beta", 1, 2, 0, "beta X [Y]" },
	[T_PHYS] = { "gamma", 0, 1, SIMCTL_PHYSICS, "gamma [reset]" },
	[T_HIDDEN] = { "delta", 0, 0, SIMCTL_UNLISTED, "delta" },
};

TEST(split_words)
{
	char line[] = " touch\tchest  1\r\n";
	char *w[4] = { 0 };

	ASSERT_EQ(3, simctl_split(line, w, 4, NULL));
	EXPECT_STREQ("touch", w[0]);
	EXPECT_STREQ("chest", w[1]);
	EXPECT_STREQ("1", w[2]);
	EXPECT_EQ(NULL, w[3]);
}

TEST(split_empty)
{
	char blank[] = " \t ", none[] = "";
	char *w[2], *rest = blank;

	EXPECT_EQ(0, simctl_split(blank, w, 2, &rest));
	EXPECT_EQ(NULL, rest);
	EXPECT_EQ(0, simctl_split(none, w, 2, NULL));
}

/* At most max words; what follows is left whole at *rest. */
TEST(split_rest)
{
	char line[] = "id 3  a name  with spaces";
	char *w[2], *rest = NULL;

	ASSERT_EQ(2, simctl_split(line, w, 2, &rest));
	EXPECT_STREQ("id", w[0]);
	EXPECT_STREQ("3", w[1]);
	EXPECT_STREQ(" a name  with spaces", rest);
}

TEST(split_more_from_rest)
{
	char line[] = "set chest 2 7 extra";
	char *w[4] = { 0 }, *rest;
	int n = simctl_split(line, w, 2, &rest);

	n += simctl_split(rest, w + 2, 2, NULL);
	ASSERT_EQ(4, n);
	EXPECT_STREQ("2", w[2]);
	EXPECT_STREQ("7", w[3]);
}

TEST(find_and_takes)
{
	EXPECT_EQ(T_B, simctl_find(table, T_COUNT, "beta"));
	EXPECT_EQ(T_COUNT, simctl_find(table, T_COUNT, "Beta"));
	EXPECT_EQ(T_COUNT, simctl_find(table, T_COUNT, ""));
	EXPECT_TRUE(simctl_takes(&table[T_A], 0));
	EXPECT_FALSE(simctl_takes(&table[T_A], 1));
	EXPECT_FALSE(simctl_takes(&table[T_B], 0));
	EXPECT_TRUE(simctl_takes(&table[T_B], 2));
	EXPECT_FALSE(simctl_takes(&table[T_B], 3));
}

TEST(list)
{
	const unsigned int mask = SIMCTL_PHYSICS | SIMCTL_UNLISTED;
	char out[64], tiny[8];

	EXPECT_EQ(11, simctl_list(table, T_COUNT, mask, 0, ", ", out, sizeof(out)));
	EXPECT_STREQ("alpha, beta", out);
	simctl_list(table, T_COUNT, mask, SIMCTL_PHYSICS, ", ", out, sizeof(out));
	EXPECT_STREQ("gamma", out);
	simctl_list(table, T_COUNT, 0, 0, " ", out, sizeof(out));
	EXPECT_STREQ("alpha beta gamma delta", out);
	/* Cut, but terminated, and the length is what was written. */
	EXPECT_EQ(7, simctl_list(table, T_COUNT, 0, 0, " ", tiny, sizeof(tiny)));
	EXPECT_STREQ("alpha b", tiny);
}

TEST(word)
{
	static const char *const off_on[] = { "off", "on" };

	EXPECT_EQ(1, simctl_word("on", off_on, 2));
	EXPECT_EQ(0, simctl_word("off", off_on, 2));
	EXPECT_EQ(-1, simctl_word("On", off_on, 2));
	EXPECT_EQ(-1, simctl_word(NULL, off_on, 2));
}

TEST(int_whole_and_in_range)
{
	long long v;

	EXPECT_EQ(0, simctl_int("42", 0, 255, &v));
	EXPECT_EQ(42, v);
	EXPECT_EQ(0, simctl_int("0x10", 0, 255, &v));
	EXPECT_EQ(16, v);
	EXPECT_EQ(0, simctl_int("-1", -1, 5, &v));
	EXPECT_EQ(-EINVAL, simctl_int("256", 0, 255, &v));
	EXPECT_EQ(-EINVAL, simctl_int("12x", 0, 255, &v));
	EXPECT_EQ(-EINVAL, simctl_int("", 0, 255, &v));
	EXPECT_EQ(-EINVAL, simctl_int("99999999999999999999", 0, 255, &v));
	EXPECT_EQ(-EINVAL, simctl_int(NULL, 0, 255, &v));
}

TEST(float_whole)
{
	float v;

	EXPECT_EQ(0, simctl_float("-2.5", &v));
	EXPECT_EQ(-2.5f, v);
	EXPECT_EQ(0, simctl_float("1e-3", &v));
	EXPECT_EQ(-EINVAL, simctl_float("0.5x", &v));
	EXPECT_EQ(-EINVAL, simctl_float("", &v));
	EXPECT_EQ(-EINVAL, simctl_float(NULL, &v));
}

TEST_HARNESS_MAIN
