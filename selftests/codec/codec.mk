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

# libFuzzer targets (ASan, UBSan); seeds: selftests/codec/corpus, written
# by codec_seeds_test --write.
FUZZERS += fuzz_codec_frame fuzz_codec_msg fuzz_codec_prefs fuzz_codec_handshake
fuzz_codec_frame_SRCS := $(srctree)/selftests/codec/fuzz/fuzz_frame.c
fuzz_codec_frame_LIBS := nbcodec
fuzz_codec_frame_LDLIBS := -lz
fuzz_codec_frame_CORPUS := $(srctree)/selftests/codec/corpus/frame
fuzz_codec_msg_SRCS := $(srctree)/selftests/codec/fuzz/fuzz_msg.c
fuzz_codec_msg_LIBS := nbcodec
fuzz_codec_msg_LDLIBS := -lz
fuzz_codec_msg_CORPUS := $(srctree)/selftests/codec/corpus/msg
fuzz_codec_prefs_SRCS := $(srctree)/selftests/codec/fuzz/fuzz_prefs.c
fuzz_codec_prefs_LIBS := nbcodec naobody
fuzz_codec_prefs_LDLIBS := -lz
fuzz_codec_prefs_CORPUS := $(srctree)/selftests/codec/corpus/prefs
fuzz_codec_handshake_SRCS := $(srctree)/selftests/codec/fuzz/fuzz_handshake.c
fuzz_codec_handshake_LIBS := nbcodec
fuzz_codec_handshake_LDLIBS := -lz
fuzz_codec_handshake_CORPUS := $(srctree)/selftests/codec/corpus/handshake

# The seed corpus is current (codec_seeds_test --write rewrites it).
UNIT_TESTS += codec_seeds_test
codec_seeds_test_SRCS := $(srctree)/selftests/codec/seeds_test.c
codec_seeds_test_LIBS := nbcodec naobody
codec_seeds_test_LDLIBS := -lz

# make bench: decode of a 512-byte answer frame against zlib's crc32 of it,
# in ns and in callgrind instructions. Standalone: build/bin/nb-codec-bench
PROGRAMS += nb-codec-bench
nb-codec-bench_SRCS := $(srctree)/selftests/codec/codec_bench.c
nb-codec-bench_LIBS := nbcodec
nb-codec-bench_LDLIBS := -lz
BENCHES += $(O)/bin/nb-codec-bench

# Documentation/chest-board-protocol.rst's tables are the codec's.
UNIT_TESTS += codec_doc_test
codec_doc_test_SRCS := $(srctree)/selftests/codec/doc_test.c
codec_doc_test_LIBS := nbcodec
codec_doc_test_LDLIBS := -lz

# Atomic context: no recursion, no dynamic stack, no calls out but crc32
# and mem*(), the deepest call chain under 512 bytes (GCC's call graph).
HOST_TESTS += $(srctree)/selftests/codec/stack_test.py
