#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# make demo, inside the VM: the emulated chest board, naobody.ko, naobodyd
# and naoguard, and the body live in the terminal while a robot API client,
# a touch and the UDP stop act on it.

export PATH=/usr/local/bin:/bin:/sbin

step() { printf '\n\033[1;36m== %s\033[0m\n' "$*"; }
finish() {
	kill $(jobs -p) 2>/dev/null
	wait 2>/dev/null
	step "Done: the VM powers off."
	exit 0
}
trap finish INT TERM

wait_for() {	# wait_for SECONDS COMMAND...
	t=$(($1 * 10))
	shift
	while ! "$@" >/dev/null 2>&1; do
		t=$((t - 1))
		[ $t -gt 0 ] || return 1
		sleep 0.1
	done
}

step "1. The chest board: chestboard-emu plays it on dummy_hcd"
chestboard-emu -q &
wait_for 20 chestboard-emu-ctl hello || { echo "the emulator did not start"; finish; }
chestboard-emu-ctl status

step "2. naobody.ko binds it, reads the preferences, shakes hands with the boards"
modprobe naobody
wait_for 10 test -e /dev/naobody || { echo "no /dev/naobody"; finish; }
dmesg | grep 'naobody 1-1' | tail -1
wait_for 30 sh -c 'naoctl boards | grep -qv "not asked" && [ $(naoctl boards | grep -c accepted) -ge 17 ]'
naoctl status

step "3. naobodyd (robot API on TCP 7700, LoLA on /tmp/robocup) and naoguard (UDP 7701)"
naobodyd > /tmp/naobodyd.log 2>&1 &
naoguard > /tmp/naoguard.log 2>&1 &
wait_for 10 sh -c 'grep -q 7700 /tmp/naobodyd.log'
cat /tmp/naobodyd.log

step "4. The body, live: 'naoctl watch' for 30 s"
cat <<'PLAN'
   0 s  a robot API client says Hello and Wake: stiffness comes up, the robot stands
   5 s  the chest button is pressed for a second
   9 s  ArmsUp; 13 s Stand, looking around
  16 s  the UDP stop reaches naoguard: every stiffness 0, latched (the daemon goes limp)
  21 s  naoctl rearm: released, still limp until the client's Wake at 24 s
(Ctrl-C ends the demo)
PLAN
sleep 4
chroot /host /usr/bin/python3 - < /demo_client.py > /tmp/client.log 2>&1 &
(
	sleep 5; chestboard-emu-ctl touch 0 +0 83 >/dev/null
	sleep 11; naoguard --send 127.0.0.1 "make demo" > /tmp/send.log 2>&1
	sleep 5; naoctl rearm >/dev/null
) &
naoctl watch -r 5 -n 150

step "5. What happened"
echo "-- the robot API client:"
cat /tmp/client.log
echo "-- naoguard (the UDP stop, sent with naoguard --send):"
cat /tmp/send.log /tmp/naoguard.log
echo "-- the driver:"
naoctl status
finish
