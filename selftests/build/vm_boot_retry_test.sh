#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/vm/run.sh boots a kernel that crashed before /init again, up to
# three boots, and only then (or for a crash after /init) fails the run.
# A fake qemu-system-x86_64 on PATH plays the machine: it writes the console
# and results ports run.sh names, boot by boot from a script of outcomes
# ("crash": a kernel oops before "Run /init"; "late": one after it; "ok": a
# clean run of one test), and counts its boots. run.sh and verdict.py run
# from a copy of scripts/ whose mkinitramfs.sh only touches its output.
set -u
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/../.." && pwd)
. "$srctree/selftests/lib/tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/scripts/vm" "$tmp/bin"
cp "$srctree/scripts/vm/run.sh" "$srctree/scripts/vm/verdict.py" "$tmp/scripts/vm/"
ln -s "$srctree/scripts/lib" "$tmp/scripts/lib"
printf '#!/bin/sh\n: >"$1"\n' >"$tmp/scripts/vm/mkinitramfs.sh"
chmod +x "$tmp/scripts/vm/mkinitramfs.sh"
: >"$tmp/bzImage"

cat >"$tmp/bin/qemu-system-x86_64" <<'SH'
#!/bin/bash
# The Nth boot plays the Nth word of $FAKE_BOOTS (the last one repeats).
ports=()
while [[ $# -gt 0 ]]; do
	[[ $1 == -serial && $2 == file:* ]] && ports+=("${2#file:}")
	shift
done
n=$(($(cat "$FAKE_DIR/boots" 2>/dev/null || echo 0) + 1))
echo $n >"$FAKE_DIR/boots"
read -ra plan <<<"$FAKE_BOOTS"
what=${plan[n - 1]:-${plan[-1]}}
console=${ports[0]} results=${ports[1]}
echo "[    0.000000] Linux version 6.12.0-fake" >"$console"
if [[ $what == crash ]]; then
	cat >>"$console" <<'LOG'
[    1.605670] Oops: int3: 0000 [#1] PREEMPT_RT SMP NOPTI
[    1.606144] RIP: 0010:sched_clock_cpu+0x9/0x190
[    1.611487] Kernel panic - not syncing: Fatal exception in interrupt
LOG
	exit 0
fi
echo "[    2.000000] Run /init as init process" >>"$console"
[[ $what == late ]] && echo "[    3.000000] Oops: general protection fault: 0000 [#1]" >>"$console"
printf '### BEGIN fake/prog\n1..1\nok 1 - booted\n### END fake/prog rc=0\n### DONE\n' >"$results"
SH
chmod +x "$tmp/bin/qemu-system-x86_64"

# run.sh on the boots $1; its output in $tmp/out, status in $rc, boots in $boots
boot() {
	rm -f "$tmp/boots"
	rm -rf "$tmp/build"
	rc=0
	PATH="$tmp/bin:$PATH" FAKE_DIR=$tmp FAKE_BOOTS=$1 O=$tmp/build KVER=6.12.0-fake \
		timeout 120 "$tmp/scripts/vm/run.sh" --test --name fake --kernel "$tmp/bzImage" \
		>"$tmp/out" 2>&1 || rc=$?
	boots=$(cat "$tmp/boots" 2>/dev/null || echo 0)
}

tap_plan 4

boot "crash ok"
tap_check "a crash before /init is booted again; the second boot's run passes (rc $rc, $boots boots)" \
	test "$rc" -eq 0 -a "$boots" -eq 2
tap_check "the retry is said, with the kernel's first splat line and the kept console" \
	sh -c 'grep -q "crashed before /init (Oops: int3: 0000 \[#1\] PREEMPT_RT SMP NOPTI; attempt 1; console in .*console-crashed-1.log)" "$1" &&
		grep -q "Oops: int3" "$2/build/vm/fake/console-crashed-1.log"' _ "$tmp/out" "$tmp"

boot "crash"
tap_check "a third crash before /init fails the run, naming the splat (rc $rc, $boots boots)" \
	sh -c 'test "$1" -ne 0 -a "$2" -eq 3 && grep -q "clean kernel log during boot: Oops: int3" "$3"' \
	_ "$rc" "$boots" "$tmp/out"

boot "late ok"
tap_check "a crash after /init is never retried: the run fails on its one boot (rc $rc, $boots boots)" \
	sh -c 'test "$1" -ne 0 -a "$2" -eq 1 && ! grep -q "before /init" "$3"' _ "$rc" "$boots" "$tmp/out"

[[ -s $tmp/out ]] && sed 's/^/# /' "$tmp/out" | tail -n 12
tap_done
