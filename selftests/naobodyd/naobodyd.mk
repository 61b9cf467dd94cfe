# SPDX-License-Identifier: GPL-2.0-only
# naobodyd and naoguard on the host, against the simulated body, with a
# client on Debian's python3-msgpack (nbtest.py). Each prints TAP.
HOST_TESTS += $(addprefix $(srctree)/selftests/naobodyd/, \
	api_test.py api_errors_test.py watchdog_test.py lola_test.py naoguard_test.py leak_test.py \
	peers_test.py isolation_test.py rest_test.py rest_netns_test.py openapi_test.py \
	rest_peers_test.py run_from_tree_test.py naoctl_host_test.py \
	rest_body_test.py rest_hostile_test.py rest_serial_test.py body_care_test.py)
# The physical simulated body (--sim-model): standing, Stop, SitDown, the FSRs.
HOST_TESTS += $(srctree)/selftests/naobodyd/physics_test.py
# The physical body's start: lying still with nobody connected, up at the first Wake.
HOST_TESTS += $(srctree)/selftests/naobodyd/sim_start_test.py
HOST_TESTS += $(srctree)/selftests/naobodyd/port_in_use_test.py
# The status page: its static files, and the page in headless chromium.
HOST_TESTS += $(addprefix $(srctree)/selftests/naobodyd/, rest_static_test.py status_page_test.py \
	status_view_test.py)
# The benchmark: latency, CPU, RSS and churn against the simulated body.
BENCHES += $(srctree)/selftests/naobodyd/naobodyd_bench.py
# The REST API: wrk on GET /state, SSE clients' CPU, the body loop under HTTP.
BENCHES += $(srctree)/selftests/naobodyd/rest_bench.py
# The body loop against hostile local peers, side by side, and the LoLA
# path's command-to-body latency in cycles.
BENCHES += $(srctree)/selftests/naobodyd/peers_bench.py

# The daemon's headers by its include path, as its own sources name them.
$(O)/obj/selftests/naobodyd/%.o $(O)/san/selftests/naobodyd/%.o: USER_CFLAGS += -I$(srctree)/userspace/naobodyd
$(O)/fuzz/selftests/naobodyd/%.o: BASE_CFLAGS += -I$(srctree)/userspace/naobodyd

# libFuzzer: libmpread (the check, frames and streams unpacked, the raw
# walk), the robot API decoder and the LoLA actuator parser; seeds written
# by make_corpus.py.
FUZZERS += fuzz_naobodyd_msgpack
fuzz_naobodyd_msgpack_SRCS := $(srctree)/selftests/naobodyd/fuzz_msgpack.c
fuzz_naobodyd_msgpack_LIBS := nbdcodec nbmotion mpread
fuzz_naobodyd_msgpack_LDLIBS := $(shell $(PKG_CONFIG) --libs msgpack) -lm
fuzz_naobodyd_msgpack_CORPUS := $(srctree)/selftests/naobodyd/corpus

# In the VM: naobodyd against naobody.ko and the chest board emulator. On
# the stock and PREEMPT_RT kernels, not the debug one: its paths into our
# modules (open and mmap, the ring, commands, prefs, boards, the stop, the
# serial discipline's ioctls) are the naobody and n_robot suites' too,
# which the debug tier runs (it is a third of the stock VM's time).
VM_SUITES += naobodyd_vm
naobodyd_vm_VM_TIER := stock rt
naobodyd_vm_VM_PROGS := naobodyd_vm.sh
naobodyd_vm_VM_KMODS := dummy_hcd libcomposite usb_f_fs configfs
naobodyd_vm_VM_TIMEOUT := 400
naobodyd_vm_VM_FILES := $(addprefix selftests/naobodyd/, naobodyd_vm.sh vm_env.sh nbtest.py \
	api_test.py api_errors_test.py watchdog_test.py lola_test.py naoguard_test.py vm_tests.py \
	resttest.py rest_body_test.py rest_serial_test.py) Documentation/rest-api.yaml \
	uapi/linux/naobody.h selftests/capture/ours.layout

# make bench: the same benchmark in the VM, against naobody.ko and the
# emulator; it adds naoguard's UDP stop to stiffness 0 at the board.
VM_BENCH_SUITES += naobodyd_vm_bench
naobodyd_vm_bench_VM_PROGS := naobodyd_vm_bench.sh
naobodyd_vm_bench_VM_KMODS := $(naobodyd_vm_VM_KMODS)
naobodyd_vm_bench_VM_TIMEOUT := 600
naobodyd_vm_bench_VM_FILES := $(addprefix selftests/naobodyd/, naobodyd_vm_bench.sh vm_env.sh \
	nbtest.py api_test.py naoguard_test.py naobodyd_bench.py)

# The LoLA sensor map: exactly 896 bytes, whatever the ids and values.
UNIT_TESTS += naobodyd_lola_pack_test
naobodyd_lola_pack_test_SRCS := $(srctree)/selftests/naobodyd/lola_pack_test.c
naobodyd_lola_pack_test_LIBS := nbdcodec nbmotion mpread
naobodyd_lola_pack_test_LDLIBS := $(shell $(PKG_CONFIG) --libs msgpack) -lm

# The log's queue: a reader that reads nothing blocks no one; drops are counted.
UNIT_TESTS += naobodyd_log_queue_test
naobodyd_log_queue_test_SRCS := $(srctree)/selftests/naobodyd/log_queue_test.c \
	$(srctree)/userspace/naobodyd/log.c
naobodyd_log_queue_test_LDLIBS := -lpthread

# The REST API's limit on wrong tokens: per source (an IPv6 /64), and for all.
UNIT_TESTS += naobodyd_rest_limit_test
naobodyd_rest_limit_test_SRCS := $(srctree)/selftests/naobodyd/rest_limit_test.c \
	$(srctree)/userspace/naobodyd/rest/rest_limit.c
naobodyd_rest_limit_test_LDLIBS := -lpthread

# The REST API's connection limits: per source, the late headers' cut-off.
UNIT_TESTS += naobodyd_rest_conns_test
naobodyd_rest_conns_test_SRCS := $(srctree)/selftests/naobodyd/rest_conns_test.c \
	$(addprefix $(srctree)/userspace/naobodyd/, rest/rest_conns.c rest/rest_limit.c log.c)
naobodyd_rest_conns_test_LDLIBS := $(shell $(PKG_CONFIG) --libs libmicrohttpd) -lpthread

# The watchdog's stages on a made-up clock, and the daemon's own stalls.
UNIT_TESTS += naobodyd_watchdog_test
naobodyd_watchdog_test_SRCS := $(srctree)/selftests/naobodyd/watchdog_unit_test.c \
	$(srctree)/userspace/naobodyd/watchdog.c

# The REST API's mailbox to the body thread: answers, timeouts, busy.
UNIT_TESTS += naobodyd_rest_cmd_test
naobodyd_rest_cmd_test_SRCS := $(srctree)/selftests/naobodyd/rest_cmd_test.c \
	$(srctree)/userspace/naobodyd/rest/rest_cmd.c
naobodyd_rest_cmd_test_LDLIBS := -lpthread

# The serial bodies' requests, parsed and checked against libparol6's and
# libcm5's rules before anything is sent.
UNIT_TESTS += naobodyd_rest_serial_parse_test
naobodyd_rest_serial_parse_test_SRCS := $(srctree)/selftests/naobodyd/rest_serial_parse_test.c \
	$(srctree)/userspace/naobodyd/rest/rest_serial_parse.c
naobodyd_rest_serial_parse_test_LIBS := cm5 parol6 nrlink nrframer
naobodyd_rest_serial_parse_test_LDLIBS := $(shell $(PKG_CONFIG) --libs jansson) -lm

# The head bus's decoding table and the head id's file (head_bus_table.h).
UNIT_TESTS += naobodyd_head_bus_table_test
naobodyd_head_bus_table_test_SRCS := $(srctree)/selftests/naobodyd/head_bus_table_test.c \
	$(srctree)/userspace/naobodyd/head/head_bus.c
naobodyd_head_bus_table_test_LIBS := nbdcodec nbmotion
naobodyd_head_bus_table_test_LDLIBS := -lpthread -lm

# In the VM, stock tier only: the head bus against Debian's i2c-stub, on the
# simulated body (nothing of the chest board's is needed), i2c-tools' i2cset
# scripting the registers.
VM_SUITES += naobodyd_headbus
naobodyd_headbus_VM_TIER := stock
naobodyd_headbus_VM_PROGS := headbus_vm.sh
naobodyd_headbus_VM_KMODS := i2c-dev i2c-stub
naobodyd_headbus_VM_TIMEOUT := 120
naobodyd_headbus_VM_FILES := $(addprefix selftests/naobodyd/, headbus_vm.sh vm_env.sh nbtest.py \
	resttest.py api_test.py headbus_test.py) Documentation/rest-api.yaml
