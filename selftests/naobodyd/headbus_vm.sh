#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# naobodyd's head bus against Debian's i2c-stub, in the VM (stock tier):
# the stub stands in for the head's touch pads, INA230 and TMP100 at the
# provisional addresses of userspace/naobodyd/head/head_bus_table.c, and
# headbus_test.py scripts their registers with i2c-tools' i2cset.
cd "$(dirname "$0")" || exit 1
. ./vm_env.sh
trap 'vm_down; rmmod i2c_stub 2>/dev/null' EXIT
vm_host_up || exit 1
if ! [ -x "$NBVM_HOST/usr/sbin/i2cset" ]; then
	nbvm_say "the host has no i2cset (apt-get install i2c-tools)"
	exit 1
fi
modprobe i2c-dev || { nbvm_say "modprobe i2c-dev failed"; exit 1; }
# touch pads 0x20, INA230 0x40, TMP100 0x48: head_bus_table.c's (provisional).
modprobe i2c-stub chip_addr=0x20,0x40,0x48 || { nbvm_say "modprobe i2c-stub failed"; exit 1; }
bus=
for a in /sys/bus/i2c/devices/i2c-*; do
	if [ "$(cat "$a/name" 2>/dev/null)" = "SMBus stub driver" ]; then
		bus=/dev/${a##*/}
	fi
done
if [ -z "$bus" ] || ! [ -c "$bus" ]; then
	nbvm_say "no i2c-stub adapter's i2c-dev node (found '$bus')"
	ls -l /dev/i2c-* /sys/bus/i2c/devices/ 2>&1 | sed 's/^/#   /'
	exit 1
fi
cd "$NBVM_WORK" || exit 1
NBTEST_BODY=sim NBTEST_HEAD_BUS=$bus vm_python "$NBVM_WORK/headbus_test.py"
