#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The packages on a clean Debian 12 root, the way a robot's maintainer
# installs them: a debootstrap --variant=minbase bookworm root (with
# bookworm's updates and security suites, as scripts/fresh-machine-test.sh
# makes it), /proc, /sys and /dev bind-mounted, Debian's linux-headers-amd64
# installed in it (this host's kernel is no Debian kernel, so DKMS builds
# for the root's packaged kernel headers; the running kernel has none there
# and DKMS skips it), then, under chroot:
#   - apt-get install ./*.deb: every package, their dependencies from the
#     mirror; DKMS builds and installs naobody.ko and n_robot.ko for the
#     root's kernel, with that kernel's vermagic;
#   - the group naobody exists (the postinsts' systemd-sysusers);
#   - the programs run: --help of each, chest-version's link, cm5ctl and
#     parolctl against their emulators on a pty (userspace framing: the
#     root's modules are for a kernel that is not running), a program built
#     with pkg-config nrobot and naobody against the -dev packages;
#   - apt-get purge of every package: no file is left that was not there
#     before the install, and none is gone (apt's and dpkg's own state,
#     logs, caches and the shadow tools' backups aside). What the packages
#     pull in from the archive is installed before the snapshot: what
#     Debian's own packages leave when they go is theirs. The group stays,
#     as Debian's packages leave their system groups (files may still carry
#     its id).
# Needs root, debootstrap, the mirror and about 1.5 GB; takes 5 to 10
# minutes, so it is `make deb-install-test`, not part of make check.
#
#   install_test.sh [-h]
#
# Environment:
#   NAOBODY_DEBS  a directory with the .debs already built (default: build
#                 them from the working tree with build-debs.sh)
#   FRESH_DIR     where the root is made (default /var/tmp/naobody-install.PID);
#                 removed afterwards unless FRESH_KEEP=1
#   FRESH_MIRROR  the Debian mirror (default: the one apt uses for bookworm)
# Prints TAP; the logs are in $O/logs/deb-install (O defaults to build/).
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
case ${1:-} in -h | --help) sed -n '4,/^set -u/p' "$0" | sed 's/^# \{0,1\}//; /^set -u/d'; exit 0 ;; esac
. "$src/selftests/lib/tap.sh"
: "${O:=$src/build}"
logdir=$O/logs/deb-install
mkdir -p "$logdir" && rm -f "$logdir"/*.log
tap_plan 11

if [[ $(id -u) -ne 0 ]] || ! command -v debootstrap >/dev/null; then
	echo "Bail out! needs root and debootstrap (make deps)"
	exit 1
fi
root=${FRESH_DIR:-/var/tmp/naobody-install.$$}
if [[ -e $root ]]; then
	echo "Bail out! $root exists; remove it (or set FRESH_DIR)"
	exit 1
fi
. "$src/scripts/lib/debian-mirror.sh"
debian_mirrors
mirror=${FRESH_MIRROR:-$mirror}
: "${mirror:=http://deb.debian.org/debian}" "${security:=http://deb.debian.org/debian-security}"

work=$(mktemp -d)
mounted=()
cleanup() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount -l "${mounted[i]}" 2>/dev/null
	done
	mounted=()
	[[ -n ${FRESH_KEEP:-} ]] || rm -rf --one-file-system "$root"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# in LOG COMMAND: a shell command in the root, its output appended to LOG.
inroot() {
	local log=$1
	shift
	echo "+ $*" >>"$logdir/$log"
	chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 /bin/bash -c "$*" \
		</dev/null >>"$logdir/$log" 2>&1
}
# The root's files, but apt's and dpkg's state, logs, caches and scratch.
files() {
	(cd "$root" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp \
		-o -path ./run -o -path ./root -o -path ./var/log -o -path ./var/cache \
		-o -path ./var/lib/apt -o -path ./var/lib/dpkg -o -path ./var/tmp \) -prune -o -print) |
		sort
}
fail_log() { tail -n "${2:-15}" "$logdir/$1" | sed 's/^/#   /'; }
t0=$(date +%s)
took() { echo "# ($(($(date +%s) - t0)) s so far)"; }

# ---- the packages ----------------------------------------------------------
debs=${NAOBODY_DEBS:-}
if [[ -z $debs ]]; then
	debs=$work/debs
	if ! "$src/selftests/debian/build-debs.sh" "$debs"; then
		echo "Bail out! dpkg-buildpackage failed: $(tail -3 "$debs/build.log")"
		exit 1
	fi
	cp "$debs/build.log" "$logdir/"
fi
names=()
for deb in "$debs"/*.deb; do
	names+=("$(dpkg-deb -f "$deb" Package)")
done
[[ ${#names[@]} -ge 7 ]] || { echo "Bail out! no packages in $debs"; exit 1; }
echo "# packages: ${names[*]}"

# ---- the root --------------------------------------------------------------
: >"$logdir/root.log"
if debootstrap --variant=minbase bookworm "$root" "$mirror" >"$logdir/debootstrap.log" 2>&1; then
	cat >"$root/etc/apt/sources.list" <<-EOF
	deb $mirror bookworm main
	deb $mirror bookworm-updates main
	deb $security bookworm-security main
	EOF
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
	# No daemon starts in a chroot (invoke-rc.d asks policy-rc.d).
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 0755 "$root/usr/sbin/policy-rc.d"
	for m in proc sys dev dev/pts; do
		mount --bind "/$m" "$root/$m" && mounted+=("$root/$m")
	done
	# The compiler and pkg-config before the snapshot, for the -dev test
	# below (linux-headers-amd64 pulls gcc in anyway), and systemd as init
	# for the units' test.
	inroot root.log "apt-get update && apt-get install -y --no-install-recommends linux-headers-amd64 \
		gcc libc6-dev pkg-config systemd-sysv"
	kver=$(ls "$root/lib/modules" 2>/dev/null | grep -- '-amd64$' | sort -V | tail -1)
fi
if [[ -n ${kver:-} && -e $root/lib/modules/$kver/build/Makefile ]]; then
	ok "a debootstrap'd bookworm root with linux-headers-amd64 ($kver)"
else
	not_ok "a debootstrap'd bookworm root with linux-headers-amd64"
	fail_log debootstrap.log 5
	fail_log root.log
	exit 1
fi
took
mkdir "$root/tmp/debs" && cp "$debs"/*.deb "$root/tmp/debs/"
# What the packages pull in from the archive (dkms, systemd for sysusers,
# the libraries) goes in first, before the snapshot: the purge below is of
# our packages, and what Debian's own packages leave when they go (a
# machine-id, alternatives) is theirs.
if inroot deps.log "apt-get install -s --no-install-recommends /tmp/debs/*.deb" >/dev/null; then
	deps=$(sed -n 's/^Inst \(\S*\) .*/\1/p' "$logdir/deps.log" | grep -vxF -f <(printf '%s\n' "${names[@]}"))
	inroot deps.log "apt-get install -y --no-install-recommends $(echo $deps)"
fi
# depmod's indexes, as the kernel's own package leaves them (this root has
# the headers, not the image): DKMS runs depmod when it installs and removes.
inroot root.log "depmod $kver"
files >"$work/before"

# ---- install ---------------------------------------------------------------
if inroot install.log "apt-get install -y --no-install-recommends /tmp/debs/*.deb" &&
	inroot install.log "dpkg-query -W -f='\${Package} \${Status}\n' ${names[*]}" &&
	[[ $(grep -c ' install ok installed$' "$logdir/install.log") -eq ${#names[@]} ]]; then
	ok "apt-get install ./*.deb: ${#names[@]} packages installed"
else
	not_ok "apt-get install ./*.deb"
	fail_log install.log 25
fi
took

# DKMS built both modules for the root's kernel, installed where modprobe
# finds them, for that kernel (vermagic), from the package's sources.
ver=$(dpkg-deb -f "$debs"/naobody-dkms_*.deb Version)
ver=${ver%%-*}
mods=$root/lib/modules/$kver/updates/dkms
if inroot dkms.log "dkms status naobody" &&
	grep -q "^naobody/$ver, $kver, x86_64: installed" "$logdir/dkms.log" &&
	[[ -e $mods/naobody.ko && -e $mods/n_robot.ko ]] &&
	inroot dkms.log "modinfo -k $kver -F vermagic naobody n_robot; modinfo -k $kver -F parm n_robot" &&
	[[ $(grep -c "^$kver " "$logdir/dkms.log") -eq 2 ]] && grep -q '^ldisc:' "$logdir/dkms.log"; then
	ok "DKMS built naobody.ko and n_robot.ko for $kver (vermagic $kver, n_robot's ldisc parameter)"
else
	not_ok "DKMS built naobody.ko and n_robot.ko for $kver"
	fail_log dkms.log
	grep -i -A3 'dkms\|error' "$logdir/install.log" | tail -20 | sed 's/^/#   /'
fi

if inroot group.log "getent group naobody"; then
	ok "the postinsts made the group naobody ($(cut -d: -f1,3 "$logdir/group.log" | tail -1))"
else
	not_ok "the postinsts made the group naobody"
	fail_log group.log
fi

progs="naoctl cm5ctl parolctl naobodyd naoguard chestboard-emu chestboard-emu-ctl
	chestboard-emu-capture naocap cm5-emu parol6-emu chest-version"
bad=
for p in $progs; do
	inroot help.log "$p --help 2>&1 | head -1 | grep -q ." || bad+=" $p"
done
if [[ -z $bad ]] && inroot help.log "ls /usr/share/man/man8/naoctl.8.gz /usr/share/man/man1/cm5ctl.1.gz \
	/usr/share/man/man1/parolctl.1.gz /usr/share/man/man8/naobodyd.8.gz"; then
	ok "every program answers --help; the man pages are installed"
else
	not_ok "every program answers --help; the man pages are installed"
	echo "#   no answer from:$bad"
	fail_log help.log
fi

# The serial tools against their emulators (on a pty, userspace framing).
if inroot emu.log 'cm5-emu -s 1 -l /tmp/cm5 & e=$!; for i in $(seq 50); do [ -e /tmp/cm5 ] && break; sleep 0.1; done;
		cm5ctl -d /tmp/cm5 --ldisc=no ping 1; r=$?; kill $e; exit $r' &&
	inroot emu.log 'parol6-emu -l /tmp/p6 & e=$!; for i in $(seq 50); do [ -e /tmp/p6 ] && break; sleep 0.1; done;
		parolctl -d /tmp/p6 --ldisc=no status; r=$?; kill $e; exit $r'; then
	ok "cm5ctl ping and parolctl status against cm5-emu and parol6-emu"
else
	not_ok "cm5ctl ping and parolctl status against cm5-emu and parol6-emu"
	fail_log emu.log
fi

# The -dev packages: a program against both libraries, by pkg-config.
cat >"$root/tmp/dev.c" <<'EOF'
#include <stdio.h>
#include <naobody/naobody.h>
#include <cm5/cm5.h>
#include <parol6/parol6.h>

int main(void)
{
	printf("%d\n", nr_link_parse_mode("yes") == NR_LINK_LDISC);
	return 0;
}
EOF
if inroot dev.log 'gcc -Wall -Werror -o /tmp/dev /tmp/dev.c $(pkg-config --cflags --libs naobody nrobot) && /tmp/dev' &&
	[[ $(tail -1 "$logdir/dev.log") == 1 ]]; then
	ok "a program built with pkg-config naobody nrobot runs"
else
	not_ok "a program built with pkg-config naobody nrobot runs"
	fail_log dev.log
fi
took

# ---- the units under systemd ------------------------------------------------
# Booted with systemd-nspawn --boot --volatile=overlay (writes go to a tmpfs,
# the root stays as the packages left it), private network. This container
# has no CAP_SYS_RESOURCE and no real-time budget for its cgroups, so a
# drop-in turns the units' real time off (SCHED_OTHER, --priority 0, the
# limits it has) and runs naobodyd on its simulated body (no /dev/naobody:
# the modules are for another kernel). The rest of each unit, its hardening
# and Type=notify included, is as packaged. A check unit inside waits for
# both, sends stops with naoguard --send (no device: the guard answers
# "NAOBODY STOP FAILED ENOENT", which shows it listening), kills and then
# stops naobodyd, and writes what it saw to the host.
nspawn_check() {
	local out=$work/nspawn dir=$root/etc/systemd/system
	mkdir -p "$out" "$dir/naoguard.service.d" "$dir/naobodyd.service.d"
	cat >"$dir/naoguard.service.d/no-rt.conf" <<-'EOF'
	[Service]
	CPUSchedulingPolicy=other
	CPUSchedulingPriority=0
	LimitRTPRIO=0
	ExecStart=
	ExecStart=/usr/bin/naoguard --priority 0
	EOF
	cat >"$dir/naobodyd.service.d/no-rt.conf" <<-'EOF'
	[Service]
	CPUSchedulingPolicy=other
	CPUSchedulingPriority=0
	LimitRTPRIO=0
	ExecStart=
	ExecStart=/usr/bin/naobodyd --sim --priority 0 --lola /run/naobodyd/robocup
	EOF
	cat >"$dir/nb-units-check.service" <<-'EOF'
	[Unit]
	After=naoguard.service naobodyd.service
	[Service]
	Type=oneshot
	ExecStart=/usr/local/sbin/nb-units-check
	ExecStopPost=/bin/systemctl --no-block poweroff
	StandardOutput=append:/nbout/check.log
	StandardError=inherit
	[Install]
	WantedBy=multi-user.target
	EOF
	mkdir -p "$root/usr/local/sbin" "$root/nbout"
	cat >"$root/usr/local/sbin/nb-units-check" <<-'EOF'
	#!/bin/bash
	st() { systemctl show -P "$2" "$1"; }
	for i in $(seq 60); do
		[ "$(st naoguard ActiveState)$(st naobodyd ActiveState)" = activeactive ] && break
		sleep 0.5
	done
	for u in naoguard naobodyd; do
		echo "$u: $(st $u ActiveState) $(st $u SubState) type=$(st $u Type) ready-at=$(st $u ActiveEnterTimestampMonotonic) restarts=$(st $u NRestarts)"
	done
	stop() { timeout 10 naoguard --send 127.0.0.1 "nspawn check $1" 2>&1 | tail -1; }
	echo "stop1: $(stop running)"
	systemctl kill -s SIGKILL naobodyd.service
	sleep 1
	echo "stop2: $(stop killed)"
	systemctl stop naobodyd.service
	echo "stop3: $(stop stopped)"
	echo "after: naoguard $(st naoguard ActiveState) restarts=$(st naoguard NRestarts) naobodyd $(st naobodyd ActiveState)"
	journalctl -b --no-pager -o cat -u naoguard -u naobodyd | tail -n 40 | sed 's/^/journal: /'
	echo "done"
	EOF
	chmod 0755 "$root/usr/local/sbin/nb-units-check"
	ln -sf /etc/systemd/system/nb-units-check.service \
		"$dir/multi-user.target.wants/nb-units-check.service" 2>/dev/null ||
		{ mkdir -p "$dir/multi-user.target.wants" && ln -sf /etc/systemd/system/nb-units-check.service \
			"$dir/multi-user.target.wants/nb-units-check.service"; }
	# nspawn removes what it propagates into the container only from a
	# tmpfs; this host's /run may be none.
	local tmpfs=
	if [[ $(stat -f -c %T /run 2>/dev/null) != tmpfs ]]; then
		mkdir -p /run/systemd/nspawn && mount -t tmpfs -o mode=0755 tmpfs /run/systemd/nspawn &&
			tmpfs=/run/systemd/nspawn
	fi
	timeout 300 systemd-nspawn -q -D "$root" --boot --volatile=overlay --private-network \
		--bind="$out:/nbout" --register=no --keep-unit >"$logdir/nspawn.log" 2>&1 </dev/null
	echo "nspawn rc=$?" >>"$logdir/nspawn.log"
	[[ -z $tmpfs ]] || umount -l "$tmpfs"
	cp "$out/check.log" "$logdir/nspawn-check.log" 2>/dev/null
	rm -rf "$dir/naoguard.service.d" "$dir/naobodyd.service.d" "$dir/nb-units-check.service" \
		"$dir/multi-user.target.wants/nb-units-check.service" \
		"$root/usr/local/sbin/nb-units-check" "$root/nbout"
	local c=$out/check.log g b
	g=$(sed -n 's/^naoguard: .*ready-at=\([0-9]*\).*/\1/p' "$c" 2>/dev/null)
	b=$(sed -n 's/^naobodyd: .*ready-at=\([0-9]*\).*/\1/p' "$c" 2>/dev/null)
	if grep -q '^naoguard: active running type=notify ' "$c" 2>/dev/null &&
		grep -q '^naobodyd: active running type=notify ' "$c" && [[ -n $g && -n $b && $g -lt $b ]]; then
		ok "under systemd-nspawn --boot: naoguard, then naobodyd, active after READY=1 (Type=notify)"
	else
		not_ok "under systemd-nspawn --boot: naoguard, then naobodyd, active after READY=1 (Type=notify)"
		sed 's/^/#   /' "$c" 2>/dev/null
		fail_log nspawn.log 20
	fi
	if [[ $(grep -c '^stop[123]: .*NAOBODY STOP FAILED ENOENT' "$c" 2>/dev/null) -eq 3 ]] &&
		grep -q '^after: naoguard active restarts=0 naobodyd inactive$' "$c"; then
		ok "naoguard answers stops with naobodyd running, killed and stopped; never restarted"
	else
		not_ok "naoguard answers stops with naobodyd running, killed and stopped; never restarted"
		sed 's/^/#   /' "$c" 2>/dev/null
	fi
}
if command -v systemd-nspawn >/dev/null; then
	nspawn_check
else
	skip "under systemd-nspawn --boot: naoguard, then naobodyd, active after READY=1" "no systemd-nspawn (systemd-container)"
	skip "naoguard answers stops with naobodyd running, killed and stopped" "no systemd-nspawn (systemd-container)"
fi
took

# ---- purge -----------------------------------------------------------------
if inroot purge.log "apt-get purge -y ${names[*]}" &&
	! inroot purge.log "dpkg -l ${names[*]} 2>/dev/null | grep '^[ir]'"; then
	ok "apt-get purge: every package is gone"
else
	not_ok "apt-get purge: every package is gone"
	fail_log purge.log
fi
rm -rf "$root/tmp/debs" "$root/tmp/dev" "$root/tmp/dev.c"
# The shadow tools' backups (/etc/group-, /etc/gshadow-...), left by any
# package that adds a group, aside.
files | grep -v '^\./etc/[a-z]*-$' >"$work/after"
grep -v '^\./etc/[a-z]*-$' "$work/before" >"$work/before.cmp"
left=$(comm -13 "$work/before.cmp" "$work/after")
gone=$(comm -23 "$work/before.cmp" "$work/after")
if [[ -z $left && -z $gone ]]; then
	ok "after the purge the root has the files it had before the install ($(wc -l <"$work/after") paths)"
else
	not_ok "after the purge the root has the files it had before the install"
	echo "$left" | sed '/^$/d; s/^/#   left: /' | head -30
	echo "$gone" | sed '/^$/d; s/^/#   gone: /' | head -30
fi
took
tap_done
