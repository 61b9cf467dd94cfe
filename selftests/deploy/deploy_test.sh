#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# naobody-deploy against a stand-in NAO (standin.sh: a HULKs-OS-like root
# booted with systemd-nspawn in a network namespace of its own, sshd on its
# loopback): it refuses a module of another kernel and a user without root,
# leaving the robot untouched; it deploys (--no-body: the stand-in has no
# chest board), after which HAL is masked, lola.service is naobodyd, the
# team's unit that requires LoLA runs again and reads naobodyd's packets;
# it updates a deployment; a deployment that fails is undone; --revert puts
# HAL, LoLA and every file back as they were (the whole root compared, file
# by file: contents, modes, owners, link targets). Prints TAP. Needs root
# (network namespaces, nspawn), make dist's bundle (built here) and a
# naobody.ko (the tree's build).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/../.." && pwd)
: "${O:=$srctree/build}"
. "$srctree/selftests/lib/tap.sh"
deploy=$srctree/userspace/tools/naobody-deploy/naobody-deploy

tap_plan 12
why=
[[ $(id -u) == 0 ]] || why="needs root (network namespaces, systemd-nspawn)"
for c in systemd-nspawn /usr/sbin/sshd ssh objcopy ip; do
	[[ -n $why ]] || command -v "$c" >/dev/null || why="no $c"
done
if [[ -n $why ]]; then
	for i in $(seq 12); do skip "naobody-deploy on a stand-in robot ($i)" "$why"; done
	exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/nbdeploy.XXXXXX")
standin() { "$here/standin.sh" "$@"; }
# The stand-in goes down however the test ends: a timeout's SIGTERM too,
# and one that comes while it boots (the boot is waited for in the
# background, so that the trap runs, and stopped first).
upid=
cleanup() {
	[[ -z $upid ]] || { kill "$upid" 2>/dev/null; wait "$upid" 2>/dev/null; }
	standin down "$work/robot" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' TERM INT

# The bundle and a module (the tree's own builds).
make -C "$srctree" -s --no-print-directory dist >"$work/dist.log" 2>&1 ||
	{ not_ok "make dist"; sed 's/^/#   /' "$work/dist.log"; tap_done; }
bundle=$(ls -t "$O"/dist/naobody-*-x86_64.tar.gz | head -n 1)
ko=$srctree/kernel/naobody/naobody.ko
[[ -f $ko ]] || make -C "$srctree" -s --no-print-directory modules >"$work/modules.log" 2>&1
[[ -f $ko ]] || { not_ok "make modules"; sed 's/^/#   /' "$work/modules.log"; tap_done; }

standin up "$work/robot" >"$work/standin.env" 2>"$work/standin.err" &
upid=$!
wait "$upid"
rc=$?
upid=
env=$(cat "$work/standin.env")
if [[ $rc != 0 ]]; then
	not_ok "the stand-in robot boots (HAL, LoLA and the team's unit active, sshd answers)"
	sed 's/^/#   /' "$work/standin.err"
	tap_done
fi
ok "the stand-in robot boots (HAL, LoLA and the team's unit active, sshd answers)"
eval "$env"
robot() { ip netns exec "$NETNS" $SSH root@127.0.0.1 "$@"; }
run_deploy() { ip netns exec "$NETNS" "$deploy" --ssh "$SSH" "$@"; }
release=$(robot uname -r)

# The module as built for some kernel: the tree's naobody.ko with its
# vermagic set to that release. The stand-in's kernel is this host's, which
# nothing here builds modules for; the tool reads only the vermagic (the
# stand-in loads nothing).
plant() {
	local rel=$1 out=$2
	objcopy -O binary -j .modinfo "$ko" "$work/modinfo"
	tr '\0' '\n' <"$work/modinfo" | sed "s/^vermagic=[^ ]*/vermagic=$rel/" | tr '\n' '\0' >"$work/modinfo.new"
	objcopy --update-section .modinfo="$work/modinfo.new" "$ko" "$out"
}
mkdir -p "$work/other"
plant "$release" "$work/naobody.ko"
plant 6.12.27-intel-pk-preempt-rt "$work/other/naobody.ko"

# The root as a list: every path (but what the running system keeps in
# memory or logs) with its type, mode, owner, link target and checksum.
snapshot() {
	(
		cd "$ROOT" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./run \
			-o -path ./tmp -o -path ./var/log -o -path ./var/lib/systemd -o -path ./var/tmp \
			-o -path ./var/cache \) -prune -o -printf '%p %y %m %u:%g %l\n' | sort
		# The overlay's upper layer: what the robot's image put in /usr and
		# what was written there since. A directory of the host's /usr
		# that a write copied up stays there after the file is gone, and
		# is no change in the /usr the robot sees.
		cd "$USR_UPPER" && find . -mindepth 1 -printf '%P %y %m %u:%g %l\n' | sort |
			while read -r p y rest; do
				[[ $y == d && -d /usr/$p ]] && continue
				echo "usr/$p $y $rest"
			done
	) >"$1"
	(cd "$ROOT" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./run \
		-o -path ./tmp -o -path ./var/log -o -path ./var/lib/systemd -o -path ./var/tmp \
		-o -path ./var/cache \) -prune -o -type f -print0 | sort -z | xargs -0 sha256sum) >>"$1"
}
states() { robot systemctl is-active hal.service lola.service team.service | paste -sd' '; }
unchanged() {
	local what=$1 now
	snapshot "$work/now"
	now=$(states)
	if diff -u "$work/before" "$work/now" >"$work/diff" && [[ $now == "active active active" ]]; then
		ok "$what"
	else
		not_ok "$what"
		echo "#   hal, lola, team: $now"
		sed 's/^/#   /' "$work/diff" | head -n 30
	fi
}
snapshot "$work/before"

# --- refusals -----------------------------------------------------------------
out=$(run_deploy --bundle "$bundle" --module "$work/other/naobody.ko" root@127.0.0.1 2>&1)
rc=$?
if [[ $rc == 1 && $out == *"built for kernel 6.12.27-intel-pk-preempt-rt, but root@127.0.0.1 runs $release"* ]]; then
	ok "refuses a module built for another kernel, naming both releases"
else
	not_ok "refuses a module built for another kernel, naming both releases"
	echo "$out" | sed 's/^/#   /'
fi
out=$(run_deploy --bundle "$bundle" --no-body nao@127.0.0.1 2>&1)
rc=$?
if [[ $rc == 1 && $out == *"needs root there"* ]]; then
	ok "refuses a login without root (nao, no sudo), saying how to get it"
else
	not_ok "refuses a login without root (nao, no sudo), saying how to get it"
	echo "$out" | sed 's/^/#   /'
fi
unchanged "after the refusals the robot is untouched, HAL and LoLA running"

# --- deploy -----------------------------------------------------------------------
run_deploy --bundle "$bundle" --module "$work/naobody.ko" --no-body root@127.0.0.1 >"$work/deploy.log" 2>&1
rc=$?
if [[ $rc == 0 ]] && grep -q 'robot: stopped lola.service' "$work/deploy.log" &&
	grep -q 'robot: stopped hal.service' "$work/deploy.log" &&
	grep -q 'robot: robot API: Hello on 127.0.0.1:7700 (the simulated body)' "$work/deploy.log" &&
	grep -q 'robot: LoLA: /tmp/robocup sent a 896-byte packet' "$work/deploy.log"; then
	ok "deploys: stops HAL and LoLA, starts naobody, the robot API and LoLA socket answer"
else
	not_ok "deploys: stops HAL and LoLA, starts naobody, the robot API and LoLA socket answer (rc $rc)"
	sed 's/^/#   /' "$work/deploy.log"
fi
got=$(robot "systemctl is-enabled hal.service; systemctl show -P Id lola.service;
	systemctl is-active naoguard.service naobodyd.service team.service;
	modprobe --show-depends naobody; cmp /opt/naobody/bin/naobodyd /opt/naobody/bin/naobodyd && echo bundle" 2>&1)
got=$(echo $got)
want="masked naobodyd.service active active active insmod /lib/modules/$release/updates/naobody/naobody.ko bundle"
if [[ $got == "$want" ]]; then
	ok "on the robot: HAL masked, lola.service is naobodyd, the team's unit runs, the module is where modprobe finds it"
else
	not_ok "on the robot: HAL masked, lola.service is naobodyd, the team's unit runs, the module is where modprobe finds it"
	echo "#   got:  $got"
	echo "#   want: $want"
fi
# The team's unit, which requires lola.service, reads naobodyd's socket.
if robot 'journalctl -u naobodyd.service -o cat --no-pager' | grep -q 'lola: client .* connected'; then
	ok "the team's unit that requires lola.service is naobodyd's LoLA client"
else
	not_ok "the team's unit that requires lola.service is naobodyd's LoLA client"
	robot 'journalctl -u naobodyd.service -u team.service -o cat --no-pager | tail -n 20' | sed 's/^/#   /'
fi

# --- a second deploy updates the first -----------------------------------------------
# This time from a build tree, as a Yocto build holds them: the module
# several times for the robot's kernel (the newest wins), once for another.
y=$work/yocto/tmp/work/nao_v6-poky-linux/naobody-modules/0+git
mkdir -p "$y/git/kernel/naobody" "$y/image/lib/modules/$release/updates/kernel/naobody" "$work/yocto/other"
cp "$work/naobody.ko" "$y/git/kernel/naobody/naobody.ko"
touch -d '1 hour ago' "$y/git/kernel/naobody/naobody.ko"
cp "$work/naobody.ko" "$y/image/lib/modules/$release/updates/kernel/naobody/naobody.ko"
objcopy --add-section .naobody_test=/dev/null "$y/image/lib/modules/$release/updates/kernel/naobody/naobody.ko"
cp "$work/other/naobody.ko" "$work/yocto/other/naobody.ko"
run_deploy --bundle "$bundle" --modules-from "$work/yocto" --no-body root@127.0.0.1 >"$work/update.log" 2>&1
rc=$?
sum=$(sha256sum <"$y/image/lib/modules/$release/updates/kernel/naobody/naobody.ko")
if [[ $rc == 0 ]] && grep -q 'naobody is there already' "$work/update.log" &&
	grep -q 'robot: LoLA: /tmp/robocup sent a 896-byte packet' "$work/update.log" &&
	[[ $(robot "sha256sum </lib/modules/$release/updates/naobody/naobody.ko") == "$sum" ]]; then
	ok "a second deploy, --modules-from a build tree, updates the first with the newest module for the robot's kernel"
else
	not_ok "a second deploy, --modules-from a build tree, updates the first with the newest module for the robot's kernel (rc $rc)"
	sed 's/^/#   /' "$work/update.log"
fi

# --- revert ----------------------------------------------------------------------------
run_deploy --revert root@127.0.0.1 >"$work/revert.log" 2>&1
rc=$?
if [[ $rc == 0 ]] && grep -q 'robot: hal.service: active (was active)' "$work/revert.log" &&
	grep -q 'robot: lola.service: active (was active)' "$work/revert.log"; then
	ok "--revert: HAL and LoLA run again"
else
	not_ok "--revert: HAL and LoLA run again (rc $rc)"
	sed 's/^/#   /' "$work/revert.log"
fi
unchanged "--revert leaves the root exactly as it was, and the team's unit runs on LoLA"
out=$(run_deploy --revert root@127.0.0.1 2>&1)
rc=$?
if [[ $rc == 1 && $out == *"naobody was not deployed there"* ]]; then
	ok "--revert where nothing was deployed says so"
else
	not_ok "--revert where nothing was deployed says so"
	echo "$out" | sed 's/^/#   /'
fi

# --- a deployment that fails is undone --------------------------------------------------
# A bundle whose naobodyd exits at once: systemd restarts it, the tool gives up.
mkdir -p "$work/broken" && tar -C "$work/broken" -xzf "$bundle"
printf '#!/bin/sh\necho "naobodyd: a broken build" >&2\nexit 1\n' >"$work/broken/naobody/bin/naobodyd"
run_deploy --bundle "$work/broken/naobody" --no-body root@127.0.0.1 >"$work/broken.log" 2>&1
rc=$?
if [[ $rc == 1 ]] && grep -q 'robot: FAILED: undoing what was done' "$work/broken.log"; then
	unchanged "a deployment whose naobodyd does not start fails, and is undone to the last file"
else
	not_ok "a deployment whose naobodyd does not start fails, and is undone to the last file (rc $rc)"
	sed 's/^/#   /' "$work/broken.log"
fi
tap_done
