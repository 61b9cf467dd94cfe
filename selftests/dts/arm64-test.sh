#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The serdev driver for real (make check-arm64): QEMU's virt machine, arm64
# under TCG, booting Debian's arm64 kernel (scripts/arm64-kernel.sh fetches
# and unpacks it, never installs it) with a device tree in which the
# robot's node sits under the PL011 (dts/overlays/qemu-virt-*.dtso applied
# with fdtoverlay to the tree QEMU dumps). The PL011's other end is the
# host's emulator (cm5-emu, parol6-emu) on a pty. n_robot.ko is cross-built
# with gcc-aarch64-linux-gnu against Debian's arm64 headers; cm5ctl and
# parolctl are cross-built static; busybox is Debian's arm64 busybox-static.
# One boot per robot; the guest half is arm64-guest.sh, whose RESULT lines
# (from the virtio console) this script passes on.
#
#   arm64-test.sh [cm5] [parol6]     (default: both)
#   NBARM64_TIMEOUT=S                a boot's limit (default 150 s)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/../.." && pwd)
: "${O:=$srctree/build}"
: "${NBARM64_TIMEOUT:=150}"
robots=${*:-cm5 parol6}
out=$O/arm64
mkdir -p "$out"

die() { echo "RESULT fail arm64/$1: $2"; exit 1; }
for t in qemu-system-aarch64 aarch64-linux-gnu-gcc dtc fdtoverlay cpio; do
	command -v $t >/dev/null || die setup "$t missing (make deps)"
done

root=$("$srctree/scripts/arm64-kernel.sh") || die setup "cannot fetch Debian's arm64 kernel"
kver=$(cat "$root/kver")
kdir=$root/usr/src/linux-headers-$kver
moddir=$root/lib/modules/$kver

# The module, from a copy of the sources (M= writes objects next to them).
src=$out/src
mkdir -p "$src"
(cd "$srctree" && find kernel/n_robot uapi \( -name '*.[ch]' -o -name Kbuild \) \
	-exec cp -p --parents {} "$src/" \;)
echo 'obj-m += kernel/n_robot/' >"$src/Kbuild"
if ! make -C "$kdir" M="$src" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
	DEB_BUILD_ARCH=amd64 DEB_HOST_ARCH=arm64 DEB_HOST_GNU_TYPE=aarch64-linux-gnu \
	-j2 modules >"$out/kbuild.log" 2>&1; then
	tail -n 20 "$out/kbuild.log" | sed 's/^/  /'
	die build "n_robot.ko does not cross-build against $kver"
fi
echo "RESULT pass arm64/build: n_robot.ko cross-built against Debian's $kver headers"

# The tools, static, for the guest; the emulators, for the host.
user=$out/user
if ! make -C "$srctree" --no-print-directory -j2 O="$user" CC=aarch64-linux-gnu-gcc \
	LDFLAGS=-static "$user/bin/cm5ctl" "$user/bin/parolctl" >"$out/user.log" 2>&1 ||
	! make -C "$srctree" --no-print-directory -j2 "$O/bin/cm5-emu" "$O/bin/parol6-emu" \
		>>"$out/user.log" 2>&1; then
	tail -n 20 "$out/user.log" | sed 's/^/  /'
	die build "the tools do not build"
fi
if ! aarch64-linux-gnu-gcc -static -O2 -Wall -Wextra -Werror -I"$srctree/uapi" \
	-o "$user/bin/serdev_chardev" "$here/serdev_chardev.c" >>"$out/user.log" 2>&1; then
	tail -n 20 "$out/user.log" | sed 's/^/  /'
	die build "serdev_chardev does not build"
fi
echo "RESULT pass arm64/build: cm5ctl, parolctl and serdev_chardev cross-built static"

# The initramfs: busybox, the modules, the tools, the guest script.
ird=$out/initramfs
rm -rf "$ird"
mkdir -p "$ird"/{bin,dev,proc,sys,tmp,tests,lib/modules}
cp "$root/bin/busybox" "$ird/bin/"
cp "$moddir/kernel/drivers/virtio/virtio_mmio.ko" "$moddir/kernel/drivers/char/virtio_console.ko" \
	"$src/kernel/n_robot/n_robot.ko" "$ird/lib/modules/"
cp "$user/bin/cm5ctl" "$user/bin/parolctl" "$user/bin/serdev_chardev" "$ird/tests/"
cp "$here/arm64-guest.sh" "$ird/init"
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initramfs.gz"

machine=(-M virt -cpu cortex-a57 -m 512 -smp 1 -nodefaults -display none)
qemu-system-aarch64 "${machine[@]}" -machine "dumpdtb=$out/virt.dtb" >/dev/null 2>&1 ||
	die setup "qemu-system-aarch64 cannot dump the virt machine's tree"

emu_pid=
qemu_pid=
cleanup() {
	[[ -n $qemu_pid ]] && kill "$qemu_pid" 2>/dev/null && wait "$qemu_pid" 2>/dev/null
	[[ -n $emu_pid ]] && kill "$emu_pid" 2>/dev/null && wait "$emu_pid" 2>/dev/null
	emu_pid= qemu_pid=
}
trap cleanup EXIT

rc=0
for robot in $robots; do
	case $robot in
	cm5) overlay=qemu-virt-cm5-brbrain emu=("$O/bin/cm5-emu" -s 1 -s 2 -s 5:axs1) want=12 ;;
	parol6) overlay=qemu-virt-parol6 emu=("$O/bin/parol6-emu" -o "$out/parol6.log" -H 20) want=28 ;;
	*) die "$robot" "unknown robot (cm5, parol6)" ;;
	esac
	w=$out/$robot
	rm -rf "$w"
	mkdir -p "$w"
	dtc -q -@ -I dts -O dtb -o "$w/robot.dtbo" "$srctree/dts/overlays/$overlay.dtso" &&
		fdtoverlay -i "$out/virt.dtb" -o "$w/virt-robot.dtb" "$w/robot.dtbo" ||
		die "$robot" "the overlay does not apply to QEMU's tree"
	"${emu[@]}" -l "$w/tty" >"$w/emu.out" 2>"$w/emu.err" &
	emu_pid=$!
	for _ in $(seq 100); do [[ -e $w/tty ]] && break; sleep 0.05; done
	[[ -e $w/tty ]] || die "$robot" "the emulator did not start: $(cat "$w/emu.err")"
	t0=$(date +%s)
	timeout "$NBARM64_TIMEOUT" qemu-system-aarch64 "${machine[@]}" \
		-kernel "$root/boot/vmlinuz-$kver" -initrd "$out/initramfs.gz" -dtb "$w/virt-robot.dtb" \
		-append "console=hvc0 quiet panic=-1 nr.robot=$robot" -no-reboot \
		-serial "$(readlink -f "$w/tty")" \
		-device virtio-serial-device -chardev "file,id=con,path=$w/console.log" \
		-device virtconsole,chardev=con >"$w/qemu.log" 2>&1 &
	qemu_pid=$!
	wait "$qemu_pid"
	qrc=$?
	qemu_pid=
	kill "$emu_pid" 2>/dev/null
	wait "$emu_pid" 2>/dev/null
	emu_pid=
	echo "# $robot: the VM ran $(($(date +%s) - t0)) s"
	touch "$w/console.log"
	grep -a '^RESULT \|^  ' "$w/console.log"
	got=$(grep -ac '^RESULT pass ' "$w/console.log")
	if [[ $qrc -eq 124 ]]; then
		echo "RESULT fail arm64/$robot: the VM did not finish within $NBARM64_TIMEOUT s (log: ${w#"$srctree"/}/console.log)"
		rc=1
	elif [[ ! -s $w/console.log ]]; then
		echo "RESULT fail arm64/$robot: the guest printed nothing: its console (virtio, hvc0) did not come up within 60 s, or the kernel stopped before init (QEMU: $(tail -n 3 "$w/qemu.log" | tr '\n' ' '))"
		rc=1
	elif ! grep -aq '^ARM64-DONE' "$w/console.log"; then
		# The guest's last line goes in the RESULT line itself: a summary
		# that shows only RESULT lines still says where it stopped.
		echo "RESULT fail arm64/$robot: the guest did not finish; its last line: $(grep -av '^$' "$w/console.log" | tail -n 1 | cut -c1-200) (QEMU: $(tail -n 3 "$w/qemu.log" | tr '\n' ' '))"
		tail -n 30 "$w/console.log" | sed 's/^/  | /'
		rc=1
	elif [[ $got -ne $want ]]; then
		echo "RESULT fail arm64/$robot: $got checks passed, not $want"
		rc=1
	fi
	grep -aq '^RESULT fail ' "$w/console.log" && rc=1
done
exit $rc
