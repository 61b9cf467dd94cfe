#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# naocap's refusals on the host, against a sysfs tree made here (-S): with
# naobody.ko bound to the chest board it refuses and leaves nothing; it
# says so when there is no chest board or the address given is another
# device. (The recording itself runs in the VM: naocap_vm.sh.)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
PATH=$here/../../build/bin:$PATH
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# device NAME VID PID BUS DEV [DRIVER]
device() {
	d=$work/sys/bus/usb/devices/$1
	mkdir -p "$d/$1:1.0" "$work/sys/bus/usb/drivers/${6:-none}"
	echo "$2" >"$d/idVendor"
	echo "$3" >"$d/idProduct"
	echo "$4" >"$d/busnum"
	echo "$5" >"$d/devnum"
	[ -n "${6:-}" ] && ln -s "../../../../bus/usb/drivers/$6" "$d/$1:1.0/driver"
	return 0
}

tap_plan 5

device 1-1 ffff 0006 1 3 naobody
device 1-2 046d c52b 1 4 usbhid
naocap -y -n -S "$work/sys" -o "$work/cap" >"$work/out" 2>&1
rc=$?
tap_check "naobody.ko bound to the chest board: naocap refuses" \
	sh -c "[ $rc = 1 ] && grep -q 'naobody.ko is bound to the chest board (1:3)' '$work/out'"
tap_check "... and leaves nothing behind" [ ! -e "$work/cap" ]

naocap -y -n -S "$work/sys" -D 1:4 -o "$work/cap" >"$work/out" 2>&1
rc=$?
tap_check "an address that is another device: a clear error" \
	sh -c "[ $rc = 1 ] && grep -q '1:4 is 046d:c52b, not a chest board' '$work/out'"

rm -rf "$work/sys/bus/usb/devices/1-1"
naocap -y -n -S "$work/sys" -o "$work/cap" >"$work/out" 2>&1
rc=$?
tap_check "no chest board: a clear error" \
	sh -c "[ $rc = 1 ] && grep -q 'no chest board (ffff:0006 or ffff:0005) on USB' '$work/out'"

naocap --help >"$work/help" 2>&1
rc=$?
tap_check "naocap --help says what it sends LoLA and what it needs" \
	sh -c "[ $rc = 0 ] && ! grep -q 'invalid option' '$work/help' &&
	       grep -q 'stiffness 0' '$work/help' && grep -q 'naobody.ko' '$work/help'"
tap_done
