# SPDX-License-Identifier: GPL-2.0-only
# naobodyd's head cameras (userspace/naobodyd/head/head_camera.h).

# In the VM: against Debian's vivid, two instances as Top and Bottom. Stock
# tier only: the debug kernel does not build vivid.
VM_SUITES += head_camera
head_camera_VM_TIER := stock
head_camera_VM_PROGS := head_camera_vm.sh
head_camera_VM_KMODS := vivid
head_camera_VM_TIMEOUT := 240
head_camera_VM_FILES := selftests/head_camera/head_camera_vm.sh \
	selftests/head_camera/camera_test.py Documentation/rest-api.yaml \
	$(addprefix selftests/naobodyd/, vm_env.sh nbtest.py resttest.py)

# On the host: the capture time's conversion, the throttle, and YUYV to
# JPEG against libturbojpeg's own decoder.
UNIT_TESTS += head_camera_unit_test
head_camera_unit_test_SRCS := $(srctree)/selftests/head_camera/camera_unit_test.c \
	$(srctree)/userspace/naobodyd/head/camera_jpeg.c
head_camera_unit_test_LDLIBS := $(shell $(PKG_CONFIG) --libs libturbojpeg)

# make bench: CPU of one 30 fps 640x480 stream, YUYV to JPEG and MJPEG
# passed through, against libturbojpeg's tjCompress2 of the same frames.
PROGRAMS += nb-camera-bench
nb-camera-bench_SRCS := $(srctree)/selftests/head_camera/camera_bench.c \
	$(srctree)/userspace/naobodyd/head/camera_jpeg.c
nb-camera-bench_LDLIBS := $(shell $(PKG_CONFIG) --libs libturbojpeg)
BENCHES += $(O)/bin/nb-camera-bench

# The daemon's headers by its include path, as its own sources name them.
$(O)/obj/selftests/head_camera/%.o $(O)/san/selftests/head_camera/%.o: USER_CFLAGS += -I$(srctree)/userspace/naobodyd
