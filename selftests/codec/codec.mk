# SPDX-License-Identifier: GPL-2.0-only
#
# The chest board codec's tests: unit tests (with the CRC checked against
# zlib), libFuzzer targets with their seed corpus, and the decode benchmark.
UNIT_TESTS += codec_frame_test
codec_frame_test_SRCS := $(srctree)/selftests/codec/frame_test.c
codec_frame_test_LIBS := nbcodec
codec_frame_test_LDLIBS := -lz

UNIT_TESTS += codec_msg_test
codec_msg_test_SRCS := $(srctree)/selftests/codec/msg_test.c
codec_msg_test_LIBS := nbcodec
codec_msg_test_LDLIBS := -lz
