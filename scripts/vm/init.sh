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
debug=$(arg nbvm.debug)
# How much slower than the stock kernel this VM runs (3 on the debug
# kernel), for tests whose waits or rates depend on it.
NBVM_TIME_SCALE=$(arg nbvm.timescale)
export NBVM_TIME_SCALE=${NBVM_TIME_SCALE:-1}

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

# --- the debug tier (nbvm.debug=1) -----------------------------------------
# The checkers' own checks. They report on the results port like programs, so
# they count like tests and a failure names its suite: debug/checkers before
# the first suite (fails closed on a kernel that lacks a checker the tier
# promises), and <suite>/debug-checks after each suite.
KMEMLEAK=/sys/kernel/debug/kmemleak

# Objects younger than 5 s are never reported, and a pointer left in a stale
# stack slot can hide a leak from one scan: wait, then scan twice.
kmemleak_scan() {
	sleep 5
	echo scan >$KMEMLEAK && echo scan >$KMEMLEAK
}

# 1 while lockdep is on. A KASAN report, a lockdep report or a taint that
# makes lock state unreliable turns it off for the rest of the boot.
debug_locks() {
	sed -n 's/^ *debug_locks: *//p' /proc/lockdep_stats 2>/dev/null
}

has_sym() {
	grep -q " $1\$" /proc/kallsyms
}

# check N DESCRIPTION COMMAND...: one TAP line.
check() {
	n=$1 desc=$2
	shift 2
	if "$@" >/dev/null 2>&1; then echo "ok $n $desc"; else echo "not ok $n $desc"; fi
}

kasan_on() { has_sym kasan_report && grep -qw kasan_multi_shot /proc/cmdline; }
lockdep_on() { [ "$(debug_locks)" = 1 ]; }
# On, with its automatic scans (every 10 min, each as long as a manual one)
# off: a kernel whose kmemleak is off refuses the write.
kmemleak_on() { echo scan=off >$KMEMLEAK; }

# Where each suite's time began, in jiffies, the clock kmemleak stamps each
# object with: one scan at the end of the boot blames each leaked object on
# the suite that was running when it was allocated. (A scan of this guest
# takes 20 to 90 s, too long to repeat after every suite.) Not its "age"
# against /proc/uptime: under TCG the two clocks drift apart by more than a
# short suite lasts, and the proof's planted leak went unblamed.
WINDOWS=/tmp/debug-suite-windows
jiffies_now() { sed -n 's/^jiffies: *//p' /proc/timer_list | head -n 1; }

debug_preflight() {
	echo "### BEGIN debug/checkers" >&3
	echo "naobody-vm: RUN debug/checkers" >/dev/kmsg
	{
		echo "1..8"
		check 1 "KASAN is on, in multi-shot mode" kasan_on
		check 2 "lockdep is on" lockdep_on
		check 3 "sleeping in atomic context is checked" has_sym __might_sleep
		check 4 "UBSAN is on" has_sym __ubsan_handle_shift_out_of_bounds
		check 5 "debug objects are on" has_sym debug_object_init
		check 6 "KUnit reports in debugfs" test -d /sys/kernel/debug/kunit
		check 7 "kmemleak is on, its automatic scans off" kmemleak_on
		check 8 "jiffies are readable (/proc/timer_list), to blame a leak on its suite" \
			test -n "$(jiffies_now)"
	} >&3 2>&3
	echo "### END debug/checkers rc=0" >&3
	lockdep_was=$(debug_locks)
	: >$WINDOWS
}

# The leaked objects of one suite (allocated from START to the next suite's
# start, or to the scan, in jiffies): their count and where the first was
# allocated, its first frame in a module, else its first frame outside the
# allocators, and the task. kmemleak names frames when it is read, so a
# module unloaded by then shows as a bare address: the first named caller
# after it says where it came from.
# leaks_by_suite: "suite count site" per suite with a leak.
leaks_by_suite() {
	awk 'BEGIN { n = 0 }
	FNR == NR { start[n] = $1; name[n] = $2; n++; next }
	function flush() {
		if (!inside || alloc < start[0]) return
		for (i = n - 1; i > 0 && start[i] > alloc; i--) ;
		count[name[i]]++
		if (!(name[i] in site)) {
			if (mod) s = mod
			else if (raw) s = raw ", in a module unloaded since, called from " named
			else s = named ? named : "an unknown function"
			site[name[i]] = s " (task " comm ")"
		}
	}
	/^unreferenced object/ { flush(); inside = 1; alloc = -1; comm = mod = raw = named = ""; next }
	inside && /^ +comm "/ {
		split($0, c, "\""); comm = c[2]
		if (match($0, /jiffies [0-9]+/)) alloc = substr($0, RSTART + 8, RLENGTH - 8) + 0
	}
	inside && /^ +\[</ {
		sub(/^ +\[<[0-9a-f]+>\] /, "")
		if (/^0x/) { if (!raw && !mod) raw = $0; next }
		if (/alloc|slab|kmem_cache|kmemleak|kstrdup|kmemdup/) next
		if (!mod && / \[[A-Za-z0-9_]+\]$/) mod = $0
		if (!named) named = $0
	}
	END { flush(); for (s in count) print s, count[s], site[s] }' $WINDOWS $KMEMLEAK
}

# After the last suite: one kmemleak scan for the whole boot, one case per
# suite that ran.
debug_leaks() {
	echo "### BEGIN debug/kmemleak" >&3
	echo "naobody-vm: RUN debug/kmemleak" >/dev/kmsg
	{
		t0=$(date +%s)
		suites=$(wc -l <$WINDOWS)
		echo "1..$suites"
		if kmemleak_scan; then
			leaks_by_suite >/tmp/debug-leaks
			echo "# kmemleak: waited and scanned for $(($(date +%s) - t0)) s"
			n=0
			while read -r start suite progs; do
				n=$((n + 1))
				line=$(grep "^$suite " /tmp/debug-leaks)
				if [ -z "$line" ]; then
					echo "ok $n kmemleak: nothing leaked during suite $suite"
				else
					set -- $line
					shift 2
					sed 's/^/# /' $KMEMLEAK
					echo "not ok $n kmemleak: $(echo "$line" | cut -d' ' -f2) object(s) leaked during suite $suite ($progs), allocated by $*"
				fi
			done <$WINDOWS
		else
			n=0
			while read -r start suite progs; do
				n=$((n + 1))
				echo "not ok $n kmemleak: the scan failed after the last suite"
			done <$WINDOWS
		fi
	} >&3 2>&3
	echo "### END debug/kmemleak rc=0" >&3
}

# debug_suite_begins SUITE: its window opens.
debug_suite_begins() {
	echo "$(jiffies_now) $1" >>$WINDOWS.open
}

# debug_after_suite SUITE PROGRAMS: its window closes (kmemleak judges it at
# the end); lockdep now.
debug_after_suite() {
	echo "$(tail -n 1 $WINDOWS.open) $2" >>$WINDOWS
	echo "### BEGIN $1/debug-checks" >&3
	echo "naobody-vm: RUN $1/debug-checks" >/dev/kmsg
	{
		echo "1..1"
		now=$(debug_locks)
		if [ "$now" = 1 ]; then
			echo "ok 1 lockdep: still on"
		elif [ "$lockdep_was" != 1 ]; then
			echo "ok 1 lockdep # SKIP off since an earlier suite"
		elif dmesg | grep -qE 'BUG:|WARNING:|UBSAN|Oops|general protection'; then
			# That report fails the run already (scripts/vm/verdict.py).
			echo "ok 1 lockdep # SKIP switched off during suite $1 by a kernel report; later suites run without it"
		else
			echo "not ok 1 lockdep: switched off during suite $1 without a report"
		fi
		lockdep_was=$now
	} >&3 2>&3
	echo "### END $1/debug-checks rc=0" >&3
}

run_tests() {
	exec 3>/dev/ttyS1
	stty -F /dev/ttyS1 raw -echo 2>/dev/null
	[ "$debug" = 1 ] && debug_preflight
	for suite in $(cat /tests/.suites); do
		limit=$(cat "/tests/$suite/.timeout")
		[ "$debug" = 1 ] && debug_suite_begins "$suite"
		ran=
		for prog in $(cat "/tests/$suite/.progs"); do
			selected "$suite/$prog" || continue
			ran="${ran:+$ran }$prog"
			echo "### BEGIN $suite/$prog" >&3
			echo "naobody-vm: RUN $suite/$prog" > /dev/kmsg
			t0=$(cut -d' ' -f1 /proc/uptime)
			(cd "/tests/$suite" && exec timeout -s KILL "$limit" "./$prog") \
				</dev/null >&3 2>&3
			rc=$?
			t1=$(cut -d' ' -f1 /proc/uptime)
			echo "naobody-vm: END $suite/$prog rc=$rc" > /dev/kmsg
			# secs: how long it ran, for the time table verdict.py keeps.
			echo "### END $suite/$prog rc=$rc secs=$(awk "BEGIN { print $t1 - $t0 }")" >&3
		done
		[ "$debug" = 1 ] && [ -n "$ran" ] && debug_after_suite "$suite" "$ran"
	done
	[ "$debug" = 1 ] && debug_leaks
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
	# dummy_hcd at full speed, as the chest board runs (the emulator
	# refuses high speed: its packets would be 512 bytes, not 64).
	for m in $(arg nbvm.load | tr ',' ' '); do
		case $m in
		dummy_hcd) set -- is_high_speed=0 ;;
		*) set -- ;;
		esac
		modprobe "$m" "$@" || echo "vm-shell: could not load $m"
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
