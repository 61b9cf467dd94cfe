# SPDX-License-Identifier: GPL-2.0-only
#
# The chest board emulator, tested without naobody.ko: a usbfs host in the
# VM (host.c) does what the driver does and checks what the emulator does.
# The suite is chestboard_emu: the VM scripts keep suite names in shell
# variable names, which can't hold a dash.
VM_SUITES += chestboard_emu
# The emulator is userspace and naobody.ko is not loaded: nothing here for
# the RT and debug tiers to check in our modules.
chestboard_emu_VM_TIER := stock
chestboard_emu_VM_PROGS := emu_exchange_test emu_misbehave_test
chestboard_emu_VM_KMODS := dummy_hcd libcomposite usb_f_fs configfs
chestboard_emu_VM_TIMEOUT := 600

# The host physics' messages (physics_wire.c), malformed ones included.
UNIT_TESTS += emu_physics_wire_test
emu_physics_wire_test_SRCS := $(srctree)/selftests/chestboard-emu/physics_wire_test.c \
	$(srctree)/userspace/tools/chestboard-emu/physics_wire.c
# ... and the emulator's side of the stream (physics_remote.c), the test
# the server on a unix socket: late, lost and malformed replies, a full one.
UNIT_TESTS += emu_physics_remote_test
emu_physics_remote_test_SRCS := $(srctree)/selftests/chestboard-emu/physics_remote_test.c \
	$(addprefix $(srctree)/userspace/tools/chestboard-emu/, physics_remote.c physics_wire.c)
# its write()s through the test's, for a request written in part
emu_physics_remote_test_LDLIBS := -Wl,--wrap=write
# The emulator's headers by its include path, as its own sources name them.
$(foreach t,physics_wire_test physics_remote_test,$(O)/obj/selftests/chestboard-emu/$(t).o \
	$(O)/san/selftests/chestboard-emu/$(t).o): \
	USER_CFLAGS += -I$(srctree)/userspace/tools/chestboard-emu

EMU_TEST_LIBS := nbemuctl nbgadget nbcodec naobody
EMU_TEST_HOST := $(srctree)/selftests/chestboard-emu/host.c

emu_exchange_test_SRCS := $(srctree)/selftests/chestboard-emu/exchange_test.c \
	$(EMU_TEST_HOST)
emu_exchange_test_LIBS := $(EMU_TEST_LIBS)
emu_exchange_test_LDLIBS := -lz

emu_misbehave_test_SRCS := $(srctree)/selftests/chestboard-emu/misbehave_test.c \
	$(EMU_TEST_HOST)
emu_misbehave_test_LIBS := $(EMU_TEST_LIBS)
emu_misbehave_test_LDLIBS := -lz

# make bench: cycle time of the emulator against the usbfs host (figures).
VM_BENCH_SUITES += chestboard_emu_bench
chestboard_emu_bench_VM_PROGS := emu_bench
chestboard_emu_bench_VM_KMODS := dummy_hcd libcomposite usb_f_fs configfs
chestboard_emu_bench_VM_TIMEOUT := 600
emu_bench_SRCS := $(srctree)/selftests/chestboard-emu/bench.c $(EMU_TEST_HOST)
emu_bench_LIBS := $(EMU_TEST_LIBS)
emu_bench_LDLIBS := -lz

# The stack on physics: chestboard-emu --physics, naobody.ko and naobodyd,
# with naobodyd's VM body (vm_env.sh) and test client (nbtest.py). MuJoCo
# is the host's, through /host (physics_vm.sh). Only where the emulator is
# built with MuJoCo: libmujoco.so found as userspace/tools/chestboard-emu's
# fragment finds it (that fragment is read after this one).
ifneq ($(filter /%,$(shell $(CC) -print-file-name=libmujoco.so)),)
VM_SUITES += chestboard_emu_physics
chestboard_emu_physics_VM_TIER := stock
chestboard_emu_physics_VM_PROGS := physics_vm.sh
chestboard_emu_physics_VM_KMODS := dummy_hcd libcomposite usb_f_fs configfs
chestboard_emu_physics_VM_TIMEOUT := 400
chestboard_emu_physics_VM_FILES := $(addprefix selftests/chestboard-emu/, physics_vm.sh \
	physics_vm_test.py) $(addprefix selftests/naobodyd/, vm_env.sh nbtest.py api_test.py) \
	userspace/sim/nao6/nao6.xml
# make bench: the same script's measuring half (the model's cost in the
# guest, the driver's exchange beside it and on the scripted body).
VM_BENCH_SUITES += chestboard_emu_physics_bench
chestboard_emu_physics_bench_VM_TIER := stock
chestboard_emu_physics_bench_VM_PROGS := physics_vm_bench.sh
chestboard_emu_physics_bench_VM_KMODS := $(chestboard_emu_physics_VM_KMODS)
chestboard_emu_physics_bench_VM_TIMEOUT := 600
chestboard_emu_physics_bench_VM_FILES := $(chestboard_emu_physics_VM_FILES) \
	selftests/chestboard-emu/physics_vm_bench.sh
# The model on the host instead (chestboard-emu --physics-host): the VM
# boots with a virtio serial port and nb-physics-server behind it (run.sh
# --physics-host, so a boot of its own), virtio_console gives the port.
VM_SUITES += chestboard_emu_physics_host
# ... and nb-physics-server alone on the host, malformed input included.
HOST_TESTS += $(srctree)/selftests/chestboard-emu/physics_server_test.py
chestboard_emu_physics_host_VM_TIER := stock
chestboard_emu_physics_host_VM_ARGS := --physics-host
chestboard_emu_physics_host_VM_PROGS := physics_host_vm.sh
chestboard_emu_physics_host_VM_KMODS := $(chestboard_emu_physics_VM_KMODS) virtio_console
chestboard_emu_physics_host_VM_TIMEOUT := 400
chestboard_emu_physics_host_VM_FILES := $(chestboard_emu_physics_VM_FILES) \
	selftests/chestboard-emu/physics_host_vm.sh
# make bench: its round trip and real-time factor beside the in-guest
# figures, in the bench's boot (which gets --physics-host from this).
chestboard_emu_physics_bench_VM_ARGS := --physics-host
chestboard_emu_physics_bench_VM_PROGS += physics_host_vm_bench.sh
chestboard_emu_physics_bench_VM_KMODS += virtio_console
chestboard_emu_physics_bench_VM_FILES += selftests/chestboard-emu/physics_host_vm.sh \
	selftests/chestboard-emu/physics_host_vm_bench.sh
endif
