#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
#
# /init of the test VM. Mounts the usual filesystems, then either runs the
# test suites (nbvm.mode=test) or gives a shell (nbvm.mode=shell).
#
# Test protocol, on the second serial port (ttyS1), read by run.sh:
#   ### BEGIN <suite>/<program>
#   ... the program's TAP output (stdout and stderr) ...
#   ### END <suite>/<program> rc=<exit status>
#   ### DONE                      only after every program ran
# Each BEGIN is also written to the kernel log as "naobody-vm: RUN ...", so a
# kernel splat in the console log can be pinned on the test that caused it.

/bin/busybox --install -s /bin
export PATH=/usr/local/bin:/bin:/sbin
export HOME=/root

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
modprobe -q configfs 2>/dev/null
mount -t configfs configfs /sys/kernel/config 2>/dev/null
hostname naobody-vm
ip link set lo up

# The host's root, read-only, for tests that need host programs.
if modprobe -q virtio_pci && modprobe -q 9pnet_virtio && modprobe -q 9p; then
	mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose host /host 2>/dev/null
fi

arg() {
	for word in $(cat /proc/cmdline); do
		case "$word" in
		"$1="*) echo "${word#*=}"; return ;;
		esac
	done
}
mode=$(arg nbvm.mode)
filter=$(arg nbvm.filter)

# Does "suite/prog" pass the comma-separated filter of suite or suite/prog?
selected() {
	[ -z "$filter" ] && return 0
	for f in $(echo "$filter" | tr ',' ' '); do
		case "$1" in
		"$f" | "$f"/*) return 0 ;;
		esac
	done
	return 1
}

run_tests() {
	exec 3>/dev/ttyS1
	stty -F /dev/ttyS1 raw -echo 2>/dev/null
	for suite in $(cat /tests/.suites); do
		limit=$(cat "/tests/$suite/.timeout")
		for prog in $(cat "/tests/$suite/.progs"); do
			selected "$suite/$prog" || continue
			echo "### BEGIN $suite/$prog" >&3
			echo "naobody-vm: RUN $suite/$prog" > /dev/kmsg
			(cd "/tests/$suite" && exec timeout -s KILL "$limit" "./$prog") \
				</dev/null >&3 2>&3
			rc=$?
			echo "naobody-vm: END $suite/$prog rc=$rc" > /dev/kmsg
			echo "### END $suite/$prog rc=$rc" >&3
		done
	done
	echo "### DONE" >&3
	exec 3>&-
}

case "$mode" in
test)
	run_tests
	;;
demo)
	setsid cttyhack sh /demo.sh
	;;
*)
	for m in $(arg nbvm.load | tr ',' ' '); do
		modprobe "$m" || echo "vm-shell: could not load $m"
	done
	cat <<-EOF

	naobody test VM ($(uname -r)). Tests are in /tests, our programs in
	/usr/local/bin, the host's root read-only in /host. Leave with 'poweroff'
	or Ctrl-A X.
	EOF
	setsid cttyhack sh -l
	;;
esac
sync
poweroff -f
