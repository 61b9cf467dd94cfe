#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The arm64 VM's init (busybox sh): the serdev test's guest half
# (selftests/dts/arm64-test.sh is the host half). The device tree puts the
# robot named by nr.robot= (cm5 or parol6) under the PL011, whose other end
# is the host's emulator. Loads n_robot, then drives /dev/n_robot0 with the
# cross-built cm5ctl or parolctl, and prints a RESULT line per check on the
# virtio console; ends with ARM64-DONE and powers off.
/bin/busybox --install -s /bin
export PATH=/bin:/tests
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
insmod /lib/modules/virtio_mmio.ko
insmod /lib/modules/virtio_console.ko
# The console is the virtio port, which comes with the modules just loaded.
# On a busy host under TCG that can take seconds; wait for it well within
# the host's limit. Without it there is nowhere to report to: power off
# rather than let init exit (a panic, and an empty log on the host, which
# says so). The node can be there before the port opens, and a failed
# "exec >" would end this shell (busybox's exit 1: init killed, a panic),
# so it runs under "command", which keeps the shell on a failure, and is
# tried again.
up=
for _ in $(seq 600); do
	if [ -e /dev/hvc0 ] && command exec >/dev/hvc0 2>&1; then
		up=1
		break
	fi
	sleep 0.1
done
[ -n "$up" ] || poweroff -f
robot=$(sed -n 's/.*nr\.robot=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
echo "# guest: $(uname -r) $(uname -m), robot $robot, console up at $(cut -d' ' -f1 /proc/uptime) s"

check() {
	desc=$1
	shift
	if out=$("$@" 2>&1); then
		echo "RESULT pass arm64/$robot: $desc"
	else
		echo "RESULT fail arm64/$robot: $desc"
		echo "$out" | sed 's/^/  /' | head -n 20
	fi
}

check "n_robot.ko (cross-built) loads" insmod /lib/modules/n_robot.ko
for _ in $(seq 100); do [ -e /dev/n_robot0 ] && break; sleep 0.1; done
case $robot in
cm5) what="CM-5 (BRBrain)" speed=115200 other=parolctl ;;
parol6) what=PAROL6 speed=1000000 other=cm5ctl ;;
esac
check "the robot node under the PL011 binds: /dev/n_robot0, at the node's current-speed" sh -c \
	"[ -c /dev/n_robot0 ] && dmesg | grep -q '$what on /dev/n_robot0 at $speed baud'"
check "/dev/n_robot0's parent is the serdev device on the UART" sh -c \
	'readlink -f /sys/class/misc/n_robot0/device | grep -q "/serial0-0$" &&
	 [ "$(basename "$(readlink -f /sys/class/misc/n_robot0/device/driver)")" = n_robot ]'
d="-d /dev/n_robot0"
if [ "$robot" = cm5 ]; then
	check "cm5ctl ping the CM-5" cm5ctl $d ping
	check "cm5ctl scan finds 1, 2 and 5" sh -c \
		"[ \"\$(cm5ctl $d scan 0-10 | tr '\n' ' ')\" = '1 2 5 ' ]"
	check "cm5ctl write, then read back (formats learnt through the serdev device)" sh -c \
		"cm5ctl $d write 1:goal_position=100 2:goal_position=200 >/dev/null &&
		 cm5ctl $d read 1:present_position 2:present_position >/tmp/r &&
		 grep -q '^1 present_position 100 deg$' /tmp/r && grep -q '^2 present_position 200 deg$' /tmp/r"
	check "cm5ctl read of an absent servo: missing" sh -c \
		"cm5ctl $d read 1:present_position 3:present_position >/tmp/r 2>&1;
		 grep -q '^3 present_position missing$' /tmp/r"
	check "cm5ctl stats names the serdev device, counters kept across runs" sh -c \
		"cm5ctl $d stats >/tmp/s && grep -q '^link: n_robot serdev device$' /tmp/s &&
		 grep -q '^rx_frames \([5-9]\|[1-9][0-9]\+\)$' /tmp/s"
	check "cm5ctl refuses a write format with a read-only register (EACCES from the driver)" sh -c \
		"out=\$(cm5ctl $d --raw write 1:present_position=3 2>&1); [ \$? = 1 ] && echo \"\$out\" | grep -q read-only"
	check "cm5ctl --ldisc=no on the device node: refused, and says why" sh -c \
		"out=\$(cm5ctl $d --ldisc=no ping 2>&1); [ \$? != 0 ] && echo \"\$out\" | grep -q 'frames in the kernel'"
else
	check "parolctl status: joints and E-stop" sh -c \
		"parolctl $d -l 2000 status >/tmp/s && grep -q '^estop: released' /tmp/s && grep -q '^J6 .* 180.000' /tmp/s"
	check "parolctl enable, then home: every joint homed" sh -c \
		"parolctl $d -l 2000 enable && parolctl $d -l 2000 home &&
		 [ \$(parolctl $d -l 2000 status | grep -c '^J[1-6] .* yes ') = 6 ]"
	serdev_chardev /dev/n_robot0
	# A reader of the old device sleeps on (it has a file, not a device):
	# the device bound next is n_robot0 all the same.
	sleep 60 </dev/n_robot0 &
	holder=$!
	serdev_chardev --unbind /dev/n_robot0 /sys/bus/serial/drivers/n_robot/unbind serial0-0
	check "bound again with a file of the old device open: n_robot0 again, and it works" sh -c \
		"echo serial0-0 >/sys/bus/serial/drivers/n_robot/bind &&
		 for _ in \$(seq 50); do [ -c /dev/n_robot0 ] && break; sleep 0.1; done;
		 parolctl $d -l 2000 status | grep -q '^estop: released'"
	kill $holder
	check "parolctl jog: J1 moves" sh -c \
		"b=\$(parolctl $d -l 2000 status | awk '/^J1 /{print \$2}') &&
		 parolctl $d -l 2000 --for 0.5 jog 1 10 &&
		 a=\$(parolctl $d -l 2000 status | awk '/^J1 /{print \$2}') && echo \"J1 \$b -> \$a\" &&
		 awk -v a=\"\$a\" -v b=\"\$b\" 'BEGIN { exit !(a - b > 1) }'"
fi
check "$other on the other robot's node: refused, and says why" sh -c \
	"out=\$($other $d status 2>&1); echo \"\$out\" | grep -q \"another robot's\""
check "no oops, warning or splat in the kernel log" sh -c \
	"! dmesg | grep -E 'Oops|WARNING:|BUG:|Call trace' "
echo ARM64-DONE
sync
poweroff -f
