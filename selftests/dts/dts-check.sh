#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The device tree binding and overlays (dts/), checked with Debian's
# dt-schema and dtc, one RESULT line per check (make dts-check):
#   - each binding passes dt-doc-validate (the meta-schema);
#   - each binding's examples compile with dtc and validate against it;
#   - each overlay compiles (dtc -@), applies with fdtoverlay to its base
#     (the rpi4-* ones to dts/tests/rpi4-uart0-stub.dts, the qemu-virt-*
#     ones to the tree QEMU's virt machine dumps), and the merged tree
#     validates, its robot node matched by our binding (so a node that no
#     schema looks at cannot pass).
# dt-validate exits 0 even when a node fails: any message it prints is the
# failure. Outputs go to $O/dts.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/../.." && pwd)
: "${O:=$srctree/build}"
out=$O/dts
rm -rf "$out"
mkdir -p "$out"
bindings=$srctree/dts/bindings
fails=0

pass() { echo "RESULT pass dts/$1"; }
fail() {
	echo "RESULT fail dts/$1: $2"
	[[ -s $out/msg ]] && sed 's/^/  /' "$out/msg" | head -n 30
	fails=$((fails + 1))
}
# quiet NAME COMMAND...: pass if it succeeds and prints nothing.
quiet() {
	local name=$1
	shift
	if "$@" >"$out/msg" 2>&1 && [[ ! -s $out/msg ]]; then
		pass "$name"
	else
		fail "$name" "'$*' failed or complained"
	fi
}

for t in dt-doc-validate dt-mk-schema dt-extract-example dt-validate dtc fdtoverlay; do
	command -v $t >/dev/null || { echo "RESULT fail dts/tools: $t missing (make deps: dt-schema, device-tree-compiler)"; exit 1; }
done

for b in "$bindings"/*.yaml; do
	quiet "$(basename "$b") meta-schema" dt-doc-validate -u "$bindings" "$b"
done
if ! dt-mk-schema -j "$bindings" >"$out/processed.json" 2>"$out/msg"; then
	fail "processed schema" "dt-mk-schema failed"
	exit 1
fi

# validate NAME DTB COMPATIBLE: the tree validates against COMPATIBLE's
# binding (-l: only that schema file, so the base tree's own nodes, which
# are not ours, are left out), and its robot node was matched by it.
validate() {
	local name=$1 dtb=$2 compat=$3
	if ! dt-validate -l "$compat" -s "$out/processed.json" "$dtb" >"$out/msg" 2>&1 || [[ -s $out/msg ]]; then
		fail "$name validates" "dt-validate complained"
		return
	fi
	if dt-validate -M -l "$compat" -s "$out/processed.json" "$dtb" 2>&1 |
		grep -A1 ': /.*robot: matched on schema' | grep -qF "schemas/$compat.yaml#"; then
		pass "$name validates"
	else
		: >"$out/msg"
		fail "$name validates" "no robot node matched schemas/$compat.yaml"
	fi
}

for b in "$bindings"/*.yaml; do
	n=$(basename "$b" .yaml)
	if dt-extract-example "$b" >"$out/$n.example.dts" 2>"$out/msg" &&
		dtc -q -I dts -O dtb -o "$out/$n.example.dtb" "$out/$n.example.dts" 2>"$out/msg"; then
		pass "$n example compiles"
		validate "$n example" "$out/$n.example.dtb" "$n"
	else
		fail "$n example compiles" "dt-extract-example or dtc failed"
	fi
done

# The QEMU base: the same machine as the arm64 test boots.
qemu_base=
if command -v qemu-system-aarch64 >/dev/null &&
	qemu-system-aarch64 -M "virt,dumpdtb=$out/qemu-virt.dtb" -cpu cortex-a57 -m 512 \
		-nodefaults -display none >/dev/null 2>&1; then
	qemu_base=$out/qemu-virt.dtb
fi
dtc -q -@ -I dts -O dtb -o "$out/rpi4-stub.dtb" "$srctree/dts/tests/rpi4-uart0-stub.dts"

for o in "$srctree"/dts/overlays/*.dtso; do
	n=$(basename "$o" .dtso)
	if ! dtc -q -@ -I dts -O dtb -o "$out/$n.dtbo" "$o" 2>"$out/msg"; then
		fail "$n compiles" "dtc failed"
		continue
	fi
	pass "$n compiles"
	case $n in
	rpi4-*) base=$out/rpi4-stub.dtb ;;
	qemu-virt-*) base=$qemu_base ;;
	*) base= ;;
	esac
	if [[ -z $base ]]; then
		echo "RESULT skip dts/$n applies: no base tree (qemu-system-aarch64 for qemu-virt-*)"
		continue
	fi
	if ! fdtoverlay -i "$base" -o "$out/$n.merged.dtb" "$out/$n.dtbo" >"$out/msg" 2>&1; then
		fail "$n applies" "fdtoverlay failed"
		continue
	fi
	pass "$n applies"
	compat=$(dtc -q -I dtb -O dts "$out/$n.dtbo" | sed -n 's/.*compatible = "\([^"]*\)".*/\1/p' | head -1)
	validate "$n merged" "$out/$n.merged.dtb" "$compat"
done
# The driver binds exactly the compatibles the bindings document.
drv=$(sed -n 's/.*\.compatible = "\([^"]*\)".*/\1/p' "$srctree/kernel/n_robot/serdev.c" | sort)
doc=$(for b in "$bindings"/*.yaml; do basename "$b" .yaml; done | sort)
if [[ -n $drv && $drv == "$doc" ]]; then
	pass "driver and bindings name the same compatibles"
else
	echo "driver: $drv; bindings: $doc" >"$out/msg"
	fail "driver and bindings name the same compatibles" "they differ"
fi
[[ $fails -eq 0 ]]
