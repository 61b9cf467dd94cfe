#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The n_robot framers' throughput (MB/s, timed natively) and instructions
# per byte (callgrind), each against a plain memchr() scan of the same
# stream, from one run. Standalone: selftests/n_robot/bench.sh [MiB]
# (builds build/bin/n_robot_bench if needed). Prints figures, gates on none.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/../.." && pwd)
bin=${O:-$srctree/build}/bin/n_robot_bench
mib=${1:-32}
[[ -x $bin ]] || make -C "$srctree" --no-print-directory "$bin" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin" $((mib << 20)) 4 >"$work/native"
have_cg=0
if command -v valgrind >/dev/null; then
	# A smaller stream: callgrind runs some 50 times slower.
	(cd "$work" && valgrind --tool=callgrind --callgrind-out-file=cg.out \
		--collect-atstart=yes "$bin" $((2 << 20)) 1 >cg.txt 2>cg.log) && have_cg=1
fi

# instructions of the dump named after a measurement
ir() {
	local f
	for f in "$work"/cg.out.*; do
		if grep -q "^desc: Trigger: Client Request: $1\$" "$f"; then
			sed -n 's/^totals: \([0-9]*\).*/\1/p' "$f"
			return
		fi
	done
	echo 0
}

echo "n_robot framing benchmark: ${mib} MiB per stream, 4 passes (MB/s); 2 MiB under callgrind (instr/byte)"
printf '%-16s %10s %12s\n' "" "MB/s" "instr/byte"
while read -r name bytes secs items; do
	mbs=$(awk -v b="$bytes" -v s="$secs" 'BEGIN { printf "%.1f", (s > 0 ? b / s / 1e6 : 0) }')
	ipb="-"
	if [[ $have_cg -eq 1 ]]; then
		cgbytes=$(awk -v n="$name" '$1 == n { print $2 }' "$work/cg.txt")
		ipb=$(awk -v i="$(ir "$name")" -v b="$cgbytes" 'BEGIN { printf "%.2f", (b > 0 ? i / b : 0) }')
	fi
	printf '%-16s %10s %12s\n' "$name" "$mbs" "$ipb"
	eval "mbs_${name//-/_}=$mbs ipb_${name//-/_}=$ipb"
done <"$work/native"
for p in cm5 parol6; do
	fm=mbs_${p}_framer mm=mbs_${p}_memchr fi=ipb_${p}_framer mi=ipb_${p}_memchr
	awk -v p="$p" -v fm="${!fm}" -v mm="${!mm}" -v fi="${!fi}" -v mi="${!mi}" 'BEGIN {
		printf "%-22s %4.3fx %11s\n", p " framer/memchr", (mm > 0 ? fm / mm : 0),
			((fi == "-" || mi + 0 == 0) ? "-" : sprintf("%.1fx", fi / mi)) }'
done
[[ $have_cg -eq 1 ]] || echo "(valgrind not found: no instruction counts)"
