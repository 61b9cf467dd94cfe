# SPDX-License-Identifier: GPL-2.0-only
#
# The chest board emulator, tested without naobody.ko: a usbfs host in the
# VM drives it through dummy_hcd.
VM_SUITES += chestboard_emu
chestboard_emu_VM_PROGS := emu_exchange_test
chestboard_emu_VM_KMODS := dummy_hcd libcomposite usb_f_fs configfs
chestboard_emu_VM_TIMEOUT := 600

EMU_TEST_LIBS := nbemuctl nbgadget nbcodec
emu_exchange_test_SRCS := $(srctree)/selftests/chestboard-emu/exchange_test.c \
	$(srctree)/selftests/chestboard-emu/host.c
emu_exchange_test_LIBS := $(EMU_TEST_LIBS)
emu_exchange_test_LDLIBS := -lz
