#!/bin/sh
echo "TAP version 13"
echo 1..1
T=/sys/kernel/tracing
[ -d $T/events ] || T=/sys/kernel/debug/tracing
for i in 1 2 3 4 5 6 7 8; do
	chestboard-emu -v -v > /tmp/emu.log 2>&1 &
	sleep 2
	echo > $T/trace
	modprobe naobody && echo 1 > $T/events/naobody/enable
	sleep 1
	echo 0 > $T/events/naobody/enable
	a=$(cat /sys/class/naobody/naobody/statistics/answers)
	echo "run $i answers=$a"
	if [ "$a" -lt 40 ]; then
		grep naobody_ $T/trace > /tmp/t; n=$(grep -n -m1 -E "timeout|status=-|errors=0x[^01]" /tmp/t | cut -d: -f1); s=$((n>12 ? n-12 : 1)); sed -n "${s},$((n+40))p" /tmp/t
		cat /sys/class/naobody/naobody/statistics/* | tr '\n' ' '; echo
		grep -v 'event: setup' /tmp/emu.log | head -30; dmesg | tail -20
		rmmod naobody; kill %1; sleep 1
		break
	fi
	rmmod naobody
	kill %1
	wait
done
echo "ok 1 debug"
