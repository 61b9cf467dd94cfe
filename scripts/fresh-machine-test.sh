#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The README's commands on a machine that has never run make deps: a fresh
# Debian 12 root (debootstrap --variant=minbase --include=make,git,
# ca-certificates bookworm, with bookworm's updates and security suites as
# an installed system has them), /proc, /sys and /dev bind-mounted, a clone
# of the current commit (HEAD: uncommitted changes are not in it), and
# `make TARGET` run inside with chroot, as root (minbase has no sudo). For a
# developer changing the set-up (deps, the Makefile, the scripts); not part
# of make check. Needs root (or sudo), debootstrap and about 3 GB.
#
#   fresh-machine-test.sh [TARGET...]   default: demo; e.g. demo check-quick
#
# Environment:
#   FRESH_DIR    where the root is made (default /var/tmp/naobody-fresh);
#                removed afterwards unless FRESH_KEEP=1
#   FRESH_MIRROR the Debian mirror (default: the one apt uses for bookworm)
#   FRESH_DEBUG_KERNEL
#                a debug kernel cache to bind into the root (default: this
#                machine's, when it has one), so `make check` inside costs
#                what CI's does: every cache cold except the debug kernel's
#                44-minute build. Set it empty to build that too.
#
# Prints each step's time and ends with one RESULT line per target; the
# full output is in build/logs/fresh-machine/.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/.." && pwd)
: "${O:=$srctree/build}"
case ${1:-} in -h | --help) sed -n '4,/^set -u/p' "$0" | sed 's/^# \{0,1\}//; /^set -u/d'; exit 0 ;; esac
[[ $# -gt 0 ]] || set -- demo
if [[ $(id -u) -ne 0 ]]; then
	exec sudo env O="$O" FRESH_DIR="${FRESH_DIR:-}" FRESH_KEEP="${FRESH_KEEP:-}" \
		FRESH_MIRROR="${FRESH_MIRROR:-}" ${FRESH_DEBUG_KERNEL+FRESH_DEBUG_KERNEL="$FRESH_DEBUG_KERNEL"} \
		"$0" "$@"
fi
command -v debootstrap >/dev/null || { echo "fresh-machine-test: needs debootstrap (make deps)" >&2; exit 1; }

root=${FRESH_DIR:-/var/tmp/naobody-fresh}
logdir=$O/logs/fresh-machine
mkdir -p "$logdir"
. "$here/lib/debian-mirror.sh"
debian_mirrors
mirror=${FRESH_MIRROR:-$mirror}
: "${mirror:=http://deb.debian.org/debian}" "${security:=http://deb.debian.org/debian-security}"

mounted=()
cleanup() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount -l "${mounted[i]}" 2>/dev/null
	done
	mounted=()
	[[ -n ${FRESH_KEEP:-} ]] || rm -rf --one-file-system "$root"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

t() { date +%s; }
took() { echo "  ($(($(t) - $1)) s)"; }

if [[ -e $root ]]; then
	echo "fresh-machine-test: $root exists; remove it (or set FRESH_DIR)" >&2
	trap - EXIT
	exit 1
fi
echo "== debootstrap bookworm into $root ($mirror)"
t0=$(t)
if ! debootstrap --variant=minbase --include=make,git,ca-certificates bookworm "$root" "$mirror" \
	>"$logdir/debootstrap.log" 2>&1; then
	echo "RESULT fail fresh-machine/debootstrap (log: ${logdir#"$srctree"/}/debootstrap.log)"
	tail -5 "$logdir/debootstrap.log"
	exit 1
fi
took "$t0"
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# The network's own certificate authorities (an intercepting proxy's, as
# here), which an administrator installs on every machine behind it: without
# them npm's registry fails with SELF_SIGNED_CERT_IN_CHAIN. Debian's certs
# only; nothing of the project's set-up is copied.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
	cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" &&
		chroot "$root" update-ca-certificates >/dev/null 2>&1 &&
		echo "== this network's CA certificates installed in the root"
fi
# The root a machine boots is a mount point; a plain directory under chroot
# is not, and unshare --propagation private (make dkms-test) then fails
# with "cannot change root filesystem propagation". So make it one.
mount --bind "$root" "$root" && mount --make-private "$root" && mounted+=("$root")
for m in proc sys dev dev/pts; do
	mount --bind "/$m" "$root/$m" && mounted+=("$root/$m")
done

dbg=${FRESH_DEBUG_KERNEL-$(dirname "$("$here/debug-kernel.sh" --dir)")}
if [[ -n $dbg && -d $dbg ]]; then
	mkdir -p "$root/root/.cache/naobody/debug-kernel"
	mount --bind "$dbg" "$root/root/.cache/naobody/debug-kernel" &&
		mounted+=("$root/root/.cache/naobody/debug-kernel") &&
		echo "== the debug kernel cache $dbg is shared (FRESH_DEBUG_KERNEL= to build it)"
fi

echo "== clone of $(git -C "$srctree" rev-parse --short HEAD)"
[[ -z $(git -C "$srctree" status --porcelain --untracked-files=no) ]] ||
	echo "  (the tree has uncommitted changes: the clone has only the commit)"
git clone -q --no-local "$srctree" "$root/root/naobody" &&
	git -C "$root/root/naobody" checkout -q "$(git -C "$srctree" rev-parse HEAD)" || exit 1

failed=0
for target in "$@"; do
	echo "== make $target (in the fresh root)"
	log=$logdir/$target.log
	t0=$(t)
	chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb \
		/bin/bash -c "cd /root/naobody && make $target" </dev/null >"$log" 2>&1
	rc=$?
	secs=$(($(t) - t0))
	ok=1
	[[ $rc -eq 0 ]] || ok=0
	grep -q 'No kernel headers' "$log" && ok=0
	# nothing complains of a missing tool before make deps has installed it
	early=$(sed '/^deps: /,$d' "$log" | grep -E 'command not found|: No such file or directory' | head -3)
	if [[ -n $early ]]; then
		ok=0
		echo "  before make deps:"
		echo "$early" | sed 's/^/  | /'
	fi
	[[ $target == demo ]] && ! grep -q 'Done: the VM powers off' "$log" && ok=0
	if [[ $ok -eq 1 ]]; then
		echo "RESULT pass fresh-machine/make $target (${secs} s)"
	else
		echo "RESULT fail fresh-machine/make $target: exit status $rc after ${secs} s (log: ${log#"$srctree"/})"
		tail -15 "$log" | sed 's/^/  | /'
		failed=1
	fi
	tail -3 "$log" | sed 's/^/  | /'
done
exit $failed
