// SPDX-License-Identifier: GPL-2.0-only
/*
 * The proof that KUnit results count (make check-debug DEBUG_PROOF=kunit):
 * one case that passes, one that fails, one that skips. The debug tier must
 * report one pass, one failure naming the case, and one skip.
 */
#include <kunit/test.h>

static void proof_passes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 2 + 2, 4);
}

static void proof_fails(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, 2 + 2, 5, "planted failure");
}

static void proof_skips(struct kunit *test)
{
	kunit_skip(test, "planted skip");
}

static struct kunit_case proof_cases[] = {
	KUNIT_CASE(proof_passes),
	KUNIT_CASE(proof_fails),
	KUNIT_CASE(proof_skips),
	{}
};

static struct kunit_suite proof_suite = {
	.name = "naobody-proof",
	.test_cases = proof_cases,
};

kunit_test_suite(proof_suite);

MODULE_DESCRIPTION("naobody: KUnit cases that the debug tier must count");
MODULE_LICENSE("GPL");
