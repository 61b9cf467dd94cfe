#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A real dkms run over dkms.conf, without touching the host's DKMS state or
# its modules: in a mount namespace of its own, /var/lib/dkms, /lib/modules
# and the source tree dkms reads are empty directories under build/dkms, so
# dkms add, build, install (and its depmod) and remove do what they do on a
# user's machine, but there. For each kernel (default: every kernel of the
# build matrix, scripts/kernel-headers.sh) the modules are built with the
# kernel's headers (-k, --kernelsourcedir), installed where DEST_MODULE_LOCATION
# says, checked (their vermagic names the kernel, depmod knows them), and
# at the end removed; the namespace and build/dkms/work go with the run.
#
#   dkms-test.sh [KERNEL...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/.." && pwd)
: "${O:=$srctree/build}"
case ${1:-} in -h | --help) sed -n '4,/^set -u/p' "$0" | sed 's/^# \{0,1\}//; /^set -u/d'; exit 0 ;; esac
[[ $# -gt 0 ]] || set -- $("$here/kernel-headers.sh" --list)

if ! command -v dkms >/dev/null; then
	echo "RESULT fail dkms: dkms is not installed; run 'make deps'"
	exit 1
fi

# Inside the namespace (re-executed with --inside): the test proper.
if [[ ${DKMS_TEST_INSIDE:-} == 1 ]]; then
	work=$1
	shift
	mount -t tmpfs dkms-test "$work/root" || exit 1
	mkdir -p "$work/root"/{dkms,modules,src}
	mount --bind "$work/root/dkms" /var/lib/dkms || exit 1
	mount --bind "$work/root/modules" /lib/modules || exit 1
	ver=test
	src=$work/root/src/naobody-$ver
	mkdir -p "$src"
	# What make dkms-install copies to /usr/src/naobody-<version>.
	(cd "$srctree" && find Kbuild kernel uapi LICENSE \( -name '*.[chS]' -o -name Kbuild \
		-o -name '*.mk' -o -name LICENSE -o -name Makefile \) ! -name '*.mod.c' \
		-exec cp -p --parents {} "$src/" \;)
	sed "s/@VERSION@/$ver/" "$srctree/dkms.conf" >"$src/dkms.conf"
	dk=(dkms --sourcetree "$work/root/src" -m naobody -v "$ver")
	failed=0
	if "${dk[@]}" add >"$work/add.log" 2>&1; then
		echo "RESULT pass dkms/add"
	else
		echo "RESULT fail dkms/add: dkms add failed"
		sed 's/^/  | /' "$work/add.log" | tail -20
		exit 1
	fi
	for k in "$@"; do
		kdir=$("$here/kernel-headers.sh" "$k" 2>/dev/null) || {
			echo "RESULT fail dkms/$k: no headers"
			failed=1
			continue
		}
		extra=$("$here/kernel-headers.sh" --path "$k")
		# Debian's kernel.release says 6.1.192; the release the kernel
		# runs as, and dkms builds for, is the package's (6.1.0-57-amd64):
		# the headers' directory name.
		kver=${kdir##*/linux-headers-}
		log=$work/$k.log
		mkdir -p "/lib/modules/$kver"
		if PATH=${extra:+$extra:}$PATH "${dk[@]}" build -j 2 -k "$kver" \
			--kernelsourcedir "$kdir" >"$log" 2>&1 &&
		   PATH=${extra:+$extra:}$PATH "${dk[@]}" install -k "$kver" \
			--kernelsourcedir "$kdir" >>"$log" 2>&1; then
			ok=1
			for m in naobody n_robot; do
				ko=$(find "/lib/modules/$kver/updates/dkms" -name "$m.ko*" 2>/dev/null | head -1)
				if [[ -z $ko ]]; then
					echo "  $m.ko is not in /lib/modules/$kver/updates/dkms" >>"$log"
					ok=0
				elif ! modinfo -F vermagic "$ko" | grep -q "^$kver "; then
					echo "  $m: vermagic '$(modinfo -F vermagic "$ko")' is not for this kernel" >>"$log"
					ok=0
				elif ! grep -q "updates/dkms/$m.ko" "/lib/modules/$kver/modules.dep"; then
					echo "  $m is not in modules.dep: depmod did not run" >>"$log"
					ok=0
				fi
			done
			if [[ $ok -eq 1 ]]; then
				echo "RESULT pass dkms/$k build and install ($kver)"
			else
				echo "RESULT fail dkms/$k build and install ($kver): modules not installed as expected"
				sed 's/^/  | /' "$log" | tail -20
				failed=1
			fi
		else
			echo "RESULT fail dkms/$k build and install ($kver): dkms failed"
			sed 's/^/  | /' "$log" | tail -20
			failed=1
		fi
	done
	if "${dk[@]}" remove --all >"$work/remove.log" 2>&1 &&
		[[ -z $(find /lib/modules -name 'naobody.ko*' -o -name 'n_robot.ko*') ]] &&
		[[ ! -e /var/lib/dkms/naobody ]]; then
		echo "RESULT pass dkms/remove"
	else
		echo "RESULT fail dkms/remove: modules or DKMS state left behind"
		sed 's/^/  | /' "$work/remove.log" | tail -20
		failed=1
	fi
	exit $failed
fi

work=$O/dkms/work
rm -rf "$work"
mkdir -p "$work/root"
if [[ $(id -u) -eq 0 ]]; then
	ns=(unshare --mount --propagation private)
else
	ns=(unshare --map-root-user --mount --propagation private)
fi
# unshare fails (status 1, before running anything) where it cannot make
# the mounts private, e.g. in a chroot whose root is not a mount point:
# then nothing is mounted, and the step fails saying so.
DKMS_TEST_INSIDE=1 "${ns[@]}" "$0" "$work" "$@"
rc=$?
[[ $rc -eq 0 ]] || grep -q . "$work/add.log" 2>/dev/null ||
	echo "RESULT fail dkms: no private mount namespace (${ns[*]}); the host's DKMS state was not touched"
rm -rf "$work"
exit $rc
