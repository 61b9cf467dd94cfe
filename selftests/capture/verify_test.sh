#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# naoctl replay and verify against captures they did not make: the chest
# board played by chestboard-emu-capture from a layout file (ours.layout,
# written by hand from the documentation, and planted.layout, which
# differs in every category verify decides), with LoLA's side decoded from
# that file. verify must confirm the first, name every planted difference
# of the second (and nothing else), and propose exactly the planted layout.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
PATH=$here/../../build/bin:$PATH
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

layout_lines() {	# a layout file's entries, sorted, without comments
	grep -v '^#' "$1" | grep -v '^$' | sort
}

# The entry names verify must call contradicted: ours vs planted
expected_differences() {
	diff <(layout_lines "$here/ours.layout") <(layout_lines "$here/planted.layout") |
		sed -n 's/^> //p' | awk '
		$1 == "crc.cover" { print "frame.crc_cover"; next }
		$1 == "crc.order" { print "frame.crc_order"; next }
		$1 == "ack.order" { print "ack.crc_order"; next }
		$1 == "table" { print "frame.table"; next }
		$1 == "board" { print "board." $2; next }
		$1 == "field" { print $2; next }' | sort -u
}

tap_plan 18

chestboard-emu-capture -l "$here/ours.layout" -o "$work/ours" >/dev/null 2>"$work/gen.err"
chestboard-emu-capture -l "$here/planted.layout" -o "$work/planted" >/dev/null 2>>"$work/gen.err"

# 1-3: our own layout
naoctl verify -o "$work/ours.found" "$work/ours" >"$work/ours.out" 2>&1
rc=$?
tap_check "verify of a capture in our layout exits 0 (nothing contradicted)" [ "$rc" = 0 ]
confirmed=$(grep -c ' confirmed ' "$work/ours.out")
tap_check "verify confirms the exercised entries ($confirmed, at least 50)" [ "$confirmed" -ge 50 ]
tap_check "verify proposes our layout unchanged" \
	diff <(layout_lines "$here/ours.layout") <(layout_lines "$work/ours.found")

# 4: the hand-written layout is the codec's
naoctl verify -O >"$work/codec.layout"
tap_check "ours.layout is the codec's layout (naoctl verify -O)" \
	diff <(layout_lines "$here/ours.layout") <(layout_lines "$work/codec.layout")

# 5-8: the planted layout
naoctl verify -o "$work/planted.found" -p "$work/planted.patch" \
	-H "$here/../../kernel/naobody/codec/nb_layout.h" "$work/planted" >"$work/planted.out" 2>&1
rc=$?
tap_check "verify of the planted capture exits 3 (contradicted entries)" [ "$rc" = 3 ]
expected_differences >"$work/expected"
awk '$2 == "contradicted" { print $1 }' "$work/planted.out" | sort -u >"$work/named"
if diff "$work/expected" "$work/named" >"$work/named.diff"; then
	ok "verify names every planted difference and nothing else ($(wc -l <"$work/expected") entries)"
else
	not_ok "verify names every planted difference and nothing else"
	sed 's/^/# /' "$work/named.diff"
fi
if diff <(layout_lines "$here/planted.layout") <(layout_lines "$work/planted.found") >"$work/found.diff"; then
	ok "verify proposes exactly the planted layout"
else
	not_ok "verify proposes exactly the planted layout"
	sed 's/^/# /' "$work/found.diff"
fi
mkdir -p "$work/tree/kernel/naobody/codec"
cp "$here/../../kernel/naobody/codec/nb_layout.h" "$work/tree/kernel/naobody/codec/"
tap_check "the patch applies to nb_layout.h and moves the planted addresses" \
	sh -c "cd '$work/tree' && patch -s -p1 <'$work/planted.patch' &&
	       grep -q 'NB_ADDR_L_FOOT_BOARD	0x34' kernel/naobody/codec/nb_layout.h"

# 9-10: replay through the codec
naoctl replay "$work/ours" >"$work/replay.out" 2>&1
tap_check "replay decodes every frame of our layout" \
	sh -c "grep -q '^OUT frames: 3500' '$work/replay.out' && ! grep -q 'rejected\|failed' '$work/replay.out' &&
	       grep -q '3500 match the frame they follow, 0 do not' '$work/replay.out'"
naoctl replay "$work/planted" >"$work/replay2.out" 2>&1
tap_check "replay says why the planted frames fail (the CRC)" \
	grep -q 'rejected .*Bad message (CRC)' "$work/replay2.out"

# 11: the archive as a tarball
tar -czf "$work/ours.tar.gz" -C "$work" ours
naoctl verify -q "$work/ours.tar.gz" >"$work/tar.out" 2>&1
tap_check "verify reads the .tar.gz archive" sh -c "[ $? = 0 ] && grep -q 'entries: ' '$work/tar.out'"

# 12: no LoLA log
chestboard-emu-capture -n -l "$here/ours.layout" -o "$work/nolola" >/dev/null
naoctl verify "$work/nolola" >"$work/nolola.out" 2>&1
rc=$?
tap_check "without a LoLA log: the frames are checked, every field not exercised, and it says why" \
	sh -c "[ $rc = 0 ] && grep -q 'frame.crc_cover  *confirmed' '$work/nolola.out' &&
	       grep -q 'no such file\|no lola.log\|has no lola.log' '$work/nolola.out' &&
	       grep -q '^imu.acc_x  *not exercised' '$work/nolola.out'"

# the same entries, every one, with or without LoLA
n_all=$(sed -n 's/^\([0-9]*\) entries:.*/\1/p' "$work/ours.out")
n_nolola=$(sed -n 's/^\([0-9]*\) entries:.*/\1/p' "$work/nolola.out")
chestboard-emu-capture -t 3600 -l "$here/ours.layout" -o "$work/skew" >/dev/null
naoctl verify "$work/skew" >"$work/skew.out" 2>&1
n_skew=$(sed -n 's/^\([0-9]*\) entries:.*/\1/p' "$work/skew.out")
tap_check "a LoLA log of other minutes: it says so; every entry is listed in every case ($n_all, $n_nolola, $n_skew)" \
	sh -c "grep -q 'their clocks disagree' '$work/skew.out' && [ '$n_all' = '$n_nolola' ] &&
	       [ '$n_all' = '$n_skew' ] && ! grep -q ' contradicted ' '$work/skew.out'"

# 13: another USB device
chestboard-emu-capture -d 046d:c52b -l "$here/ours.layout" -o "$work/mouse" >/dev/null
naoctl replay "$work/mouse/capture.pcap" >"$work/mouse.out" 2>&1
rc=$?
tap_check "a capture of another device: a clear error" \
	sh -c "[ $rc = 1 ] && grep -q 'no chest board.*devices seen: 1:3 046d:c52b' '$work/mouse.out'"

# 14: one frame damaged on the wire among 3,500: still decided, and counted
chestboard-emu-capture -g 1000 -l "$here/ours.layout" -o "$work/glitch" >/dev/null
naoctl verify -q "$work/glitch" >"$work/glitch.out" 2>&1
rc=$?
naoctl replay "$work/glitch" >"$work/glitch.replay" 2>&1
tap_check "a frame damaged on the wire: verify still decides the CRC, replay counts it" \
	sh -c "[ $rc = 0 ] && grep -q 'entries: 5[0-9] confirmed, 0 contradicted' '$work/glitch.out' &&
	       grep -q 'rejected  *1  Bad message (CRC)' '$work/glitch.replay'"

# 15-17: damaged files
head -c 1000000 "$work/ours/capture.pcap" >"$work/cut.pcap"
naoctl replay "$work/cut.pcap" >"$work/cut.out" 2>&1
tap_check "a capture cut short: replayed up to the cut, with a warning" \
	sh -c "[ $? = 0 ] && grep -q 'warning: .*truncated' '$work/cut.out'"
head -c 10 "$work/ours/capture.pcap" >"$work/tiny.pcap"
naoctl replay "$work/tiny.pcap" >"$work/tiny.out" 2>&1
rc=$?
tap_check "a truncated file header: a clear error" \
	sh -c "[ $rc = 1 ] && grep -q 'not a readable pcap file' '$work/tiny.out'"
# a pcap of link type 1 (Ethernet): the 24-byte file header and no records
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\x01\x00\x00\x00' \
	>"$work/ether.pcap"
naoctl replay "$work/ether.pcap" >"$work/ether.out" 2>&1
rc=$?
tap_check "a pcap that is not usbmon's: a clear error" \
	sh -c "[ $rc = 1 ] && grep -q 'not a usbmon capture: link type EN10MB' '$work/ether.out'"

tap_done
