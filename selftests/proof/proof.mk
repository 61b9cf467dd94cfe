# SPDX-License-Identifier: GPL-2.0-only
# The proof of the debug tier, only with make check-debug DEBUG_PROOF=...:
# loads kernel/tests/proof's module, which plants the bugs named. The tier
# must then fail, naming each (see kernel/tests/proof/naobody_proof.c).
ifneq ($(DEBUG_PROOF),)
VM_SUITES += proof
proof_VM_PROGS := proof_test
proof_VM_TIER := debug
proof_VM_TIMEOUT := 60

proof_test_SRCS := $(srctree)/selftests/proof/proof_test.c
endif
