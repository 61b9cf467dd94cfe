#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# naobodyd --robot-motions: the real body walks only on naoctl verify's
# verdict that confirms the layout walking needs, on this build's layout.
# The verdicts come from captures naoctl did not make (chestboard-emu-
# capture playing ours.layout and planted.layout, as verify_test.sh does),
# then edited the ways a wrong or stale verdict would differ. naobodyd is
# pointed at a plain file for its device: the verdict is checked before the
# device is opened, so an accepted verdict ends at the open, a refused one
# before it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
PATH=$here/../../build/bin:$PATH
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# naobodyd on the verdict $1: its exit status in $rc, its log in $work/log
daemon() {
	touch "$work/device"
	timeout 20 naobodyd --device "$work/device" --robot-motions "$1" --no-rest \
		--no-lola --no-guard --no-audio -p 0 >"$work/log" 2>&1
	rc=$?
}

# $1 with every entry walking needs confirmed (what a real capture must show)
all_needed_confirmed() {
	sed -E '/^entry (frame\.|ack\.crc_order|board\.|joint\.position|targets\.|imu\.(acc|gyr|angle)_|foot\.fsr_)/s/ [a-z-]+$/ confirmed/' "$1"
}

tap_plan 10

chestboard-emu-capture -l "$here/ours.layout" -o "$work/ours" >/dev/null 2>"$work/gen.err"
chestboard-emu-capture -l "$here/planted.layout" -o "$work/planted" >/dev/null 2>>"$work/gen.err"

naoctl verify -q -V "$work/ours.verdict" "$work/ours" >/dev/null 2>&1
tap_check "verify -V writes a verdict with its layout id and every entry" \
	grep -q '^layout [0-9a-f]\{8\}$' "$work/ours.verdict"

# A capture's verdict as naocap records today: the targets' stiffness is
# never exercised (naocap sends 0), so the gate stays shut.
daemon "$work/ours.verdict"
tap_check "a verdict leaving targets.stiffness not exercised is refused (exit 1)" \
	[ "$rc" = 1 ]
tap_check "... and the log names the entry" \
	grep -q 'targets.stiffness is not exercised, and walking needs it' "$work/log"

all_needed_confirmed "$work/ours.verdict" >"$work/good.verdict"
daemon "$work/good.verdict"
if [ "$rc" = 1 ] && grep -q 'cannot open .* as its controller' "$work/log" &&
	! grep -q -- '--robot-motions' "$work/log"; then
	ok "a verdict confirming every needed entry passes; naobodyd goes on to the device"
else
	not_ok "a verdict confirming every needed entry passes; naobodyd goes on to the device"
	diag_file "$work/log"
fi

sed 's/^layout .*/layout 00000000/' "$work/good.verdict" >"$work/stale.verdict"
daemon "$work/stale.verdict"
tap_check "a verdict on another layout (a changed nb_layout.h) is refused" \
	grep -q 'the verdict is on layout 00000000, this naobodyd.s is' "$work/log"

naoctl verify -q -V "$work/planted.verdict" "$work/planted" >/dev/null 2>&1
daemon "$work/planted.verdict"
tap_check "the planted capture's verdict is refused for a contradicted entry" \
	grep -q 'is contradicted: correct nb_layout.h first' "$work/log"

grep -v '^entry imu.gyr_z ' "$work/good.verdict" >"$work/short.verdict"
daemon "$work/short.verdict"
tap_check "a verdict without an entry walking needs is refused" \
	grep -q 'nothing on imu.gyr_z, and walking needs it' "$work/log"

{ grep -E '^(verdict|layout) ' "$work/good.verdict"; echo 'walk please'; } >"$work/junk.verdict"
daemon "$work/junk.verdict"
tap_check "a line that is not a verdict's is refused with its line number" \
	grep -q 'junk.verdict:3: not a verdict line' "$work/log"

daemon "$work/missing.verdict"
tap_check "a missing verdict file is refused with the reason" \
	grep -q 'missing.verdict: No such file or directory' "$work/log"

naobodyd --sim --robot-motions "$work/good.verdict" >"$work/log" 2>&1
rc=$?
tap_check "--robot-motions with the simulated body is a usage error (exit 2)" [ "$rc" = 2 ]
