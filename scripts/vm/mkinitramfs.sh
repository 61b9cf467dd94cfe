#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the test VM's initramfs: busybox-static, the Debian modules the
# selected suites need (with their dependencies from modules.dep), our own
# modules, our programs, the suites' test programs and files, and the shared
# libraries all of those binaries link.
#
# Usage: mkinitramfs.sh OUTPUT.cpio
# Environment (set by the Makefile): srctree O KVER VM_SUITES VM_KMODS VM_FILES
#   and <suite>_VM_PROGS for each suite; MODDIR overrides /lib/modules/$KVER
#   (the debug tier points it at its own kernel's modules), KO_DIR where our
#   modules are (default $srctree/kernel; the debug tier builds them
#   elsewhere), VM_TIMEOUT_SCALE multiplies each suite's time limit.
set -euo pipefail

out=$1
: "${srctree:?}" "${O:?}" "${KVER:?}"
moddir=${MODDIR:-/lib/modules/$KVER}
# Beside the output, so that boots of different tiers can be built at once.
root=$(cd "$(dirname "$out")" && pwd)/root

rm -rf "$root"
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,run,etc,root,host,tests,usr/local/bin,lib/modules/"$KVER"}

# busybox: the init installs its applet links at boot.
cp /bin/busybox "$root/bin/busybox"
# script(1), which busybox lacks: the tools' terminal output is tested
# through it (n_robot's e2e.sh). bsdutils is essential in Debian.
cp /usr/bin/script "$root/usr/local/bin/script"
install -m 0755 "$srctree/scripts/vm/init.sh" "$root/init"
install -m 0755 "$srctree/scripts/vm/demo.sh" "$root/demo.sh"
install -m 0644 "$srctree/scripts/vm/demo_client.py" "$root/demo_client.py"

# --- Debian modules, resolved through modules.dep -------------------------
# The 9p modules give the VM read-only access to the host's root at /host,
# for tests that need host programs such as python3.
declare -A seen=()
mods_wanted="virtio_pci 9pnet_virtio 9p ${VM_KMODS:-}"
resolve() {
	local name=${1//-/_} line path dep
	[[ -n ${seen[$name]:-} ]] && return 0
	seen[$name]=1
	line=$(awk -v n="$name" -F: '{
		b = $1; sub(/.*\//, "", b); sub(/\.ko(\.[a-z]+)?$/, "", b); gsub(/-/, "_", b);
		if (b == n) { print; exit } }' "$moddir/modules.dep")
	if [[ -z $line ]]; then
		# Built into this kernel (the debug kernel builds most things in).
		if grep -qE "/${name//_/[-_]}\.ko\$" "$moddir/modules.builtin" 2>/dev/null; then
			return 0
		fi
		echo "mkinitramfs: module '$1' is neither in $moddir/modules.dep nor built in" >&2
		exit 1
	fi
	path=${line%%:*}
	mkdir -p "$root/lib/modules/$KVER/$(dirname "$path")"
	cp "$moddir/$path" "$root/lib/modules/$KVER/$path"
	for dep in ${line#*:}; do
		dep=${dep##*/}
		resolve "${dep%%.ko*}"
	done
}
for m in $mods_wanted; do
	resolve "$m"
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[[ -e $moddir/$f ]] && cp "$moddir/$f" "$root/lib/modules/$KVER/"
done

# --- our modules ----------------------------------------------------------
mkdir -p "$root/lib/modules/$KVER/extra"
while IFS= read -r ko; do
	cp "$ko" "$root/lib/modules/$KVER/extra/"
done < <(find "${KO_DIR:-$srctree/kernel}" -name '*.ko')
depmod -b "$root" "$KVER"

# --- programs, tests, files ----------------------------------------------
if compgen -G "$O/bin/*" >/dev/null; then
	cp "$O"/bin/* "$root/usr/local/bin/"
fi
mkdir -p "$root/tests/lib"
cp "$srctree"/selftests/lib/*.sh "$root/tests/lib/" 2>/dev/null || true
: > "$root/tests/.suites"
for s in ${VM_SUITES:-}; do
	mkdir -p "$root/tests/$s"
	progs_var="${s}_VM_PROGS"
	: > "$root/tests/$s/.progs"
	for p in ${!progs_var:-}; do
		# Compiled programs are in the build; scripts come with VM_FILES.
		[[ -e $O/vm/tests/$s/$p ]] && cp "$O/vm/tests/$s/$p" "$root/tests/$s/$p"
		echo "$p" >> "$root/tests/$s/.progs"
	done
	timeout_var="${s}_VM_TIMEOUT"
	echo $((${!timeout_var:-300} * ${VM_TIMEOUT_SCALE:-1})) > "$root/tests/$s/.timeout"
	echo "$s" >> "$root/tests/.suites"
done
# VM_FILES entries are suite=path (path relative to the source tree). Those
# named in <suite>_VM_PROGS are scripts that run as tests; the rest are data.
for entry in ${VM_FILES:-}; do
	s=${entry%%=*}
	f=${entry#*=}
	# Only the suites this boot runs (a bench boot runs other suites).
	[[ -d $root/tests/$s ]] || continue
	cp -a "$srctree/$f" "$root/tests/$s/"
done
for s in ${VM_SUITES:-}; do
	while IFS= read -r p; do
		[[ -x $root/tests/$s/$p ]] || {
			echo "mkinitramfs: $s/$p is neither built nor an executable in ${s}_VM_FILES" >&2
			exit 1
		}
	done < "$root/tests/$s/.progs"
done

# --- shared libraries of every binary ------------------------------------
copy_lib() {
	local lib=$1
	[[ -e $root$lib ]] && return 0
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
}
while IFS= read -r bin; do
	while IFS= read -r lib; do
		copy_lib "$lib"
	done < <(ldd "$bin" 2>/dev/null | grep -oE '/[^ ]+\.so[^ ]*' | sort -u)
done < <(find "$root/usr/local/bin" "$root/tests" -type f -perm -u+x)

# Most of the glibc programs need these to resolve user and host names.
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
printf '127.0.0.1 localhost\n::1 localhost\n' > "$root/etc/hosts"

(cd "$root" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) > "$out"
