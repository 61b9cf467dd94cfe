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

# The preference block: the codec's reassembly and libnaobody's parser.
UNIT_TESTS += codec_prefs_test
codec_prefs_test_SRCS := $(srctree)/selftests/codec/prefs_test.c
codec_prefs_test_LIBS := nbcodec naobody
codec_prefs_test_LDLIBS := -lz

# libnaobody's units, checked against the codec's field table.
UNIT_TESTS += naobody_units_test
naobody_units_test_SRCS := $(srctree)/selftests/codec/units_test.c
naobody_units_test_LIBS := naobody nbcodec
naobody_units_test_LDLIBS := -lz -lm
