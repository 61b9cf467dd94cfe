# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# Sourced by the naobodyd VM programs (naobodyd_vm.sh, naobodyd_vm_bench.sh):
# the body up (chestboard-emu, naobody.ko, /dev/naobody with every board
# accepted), and Debian's python3 with python3-msgpack to run the tests.
#
# The VM has busybox and our programs; python3 is the host's, reached
# through the host's root, mounted read-only at /host. The tests run in
# "chroot /host", so python3 finds its own libraries and modules as on the
# host, with the VM's /proc, /sys, /dev, /run and /tmp bound over the
# host's (the VM's tmpfs keeps everything they write). Our programs and the
# test files are copied to $NBVM_WORK, in that /tmp, and nbtest.py finds
# them there ($O/bin). The emulator and the module are started out here,
# with the VM's modprobe: inside the chroot, modprobe would look for the
# host's modules.
#
#   vm_host_up                 the chroot and the test files only (no body)
#   vm_up [EMULATOR OPTIONS]   start everything; non-zero with a "#" line
#   vm_python SCRIPT ARGS...   run python3 in the chroot, in $NBVM_WORK
#   vm_down                    undo vm_up (also on EXIT)

NBVM_HOST=/host
NBVM_WORK=/tmp/naobodyd-vm
NBVM_EMU_SOCKET=/run/chestboard-emu.sock
# The body id the emulator is given, so a test can check where Hello's
# body_id comes from.
NBVM_BODY_ID=P0000073A07SVM00777
nbvm_emu_pid=
nbvm_bound=

nbvm_say() {
	echo "# naobodyd VM: $*"
}

nbvm_bind() {
	for d in proc sys dev run tmp; do
		mount -o rbind "/$d" "$NBVM_HOST/$d" || return 1
		nbvm_bound="$d $nbvm_bound"
	done
}

# The host's python3 in the chroot, the tests in $NBVM_WORK; no body.
vm_host_up() {
	if [ ! -x "$NBVM_HOST/usr/bin/python3" ]; then
		nbvm_say "no $NBVM_HOST/usr/bin/python3: is the host's root mounted?"
		return 1
	fi
	rm -rf "$NBVM_WORK"
	mkdir -p "$NBVM_WORK/bin"
	cp /usr/local/bin/* "$NBVM_WORK/bin/"
	cp ./*.py "$NBVM_WORK/"
	# The REST API's OpenAPI document, which resttest.py validates against,
	# the uapi header whose ABI version rest_body_test.py expects, and the
	# layout api_test.py's walking verdict is made on.
	for f in rest-api.yaml naobody.h ours.layout; do
		if [ -e "$f" ]; then
			cp "$f" "$NBVM_WORK/"
		fi
	done
	nbvm_bind || { nbvm_say "cannot bind the VM's directories into $NBVM_HOST"; return 1; }
	# Each bound where it belongs (a 9p export without multidevs=remap
	# mixes up /host/proc and /host/sys).
	if ! chroot "$NBVM_HOST" /bin/sh -c 'test -r /proc/self/stat && test -d /sys/class &&
		test -c /dev/null && test -w /tmp'; then
		nbvm_say "the VM's /proc, /sys, /dev and /tmp are not where they belong in $NBVM_HOST:"
		grep " $NBVM_HOST/" /proc/mounts | sed 's/^/#   /'
		return 1
	fi
	if ! chroot "$NBVM_HOST" /usr/bin/python3 -c 'import msgpack' 2>"$NBVM_WORK/py.err"; then
		nbvm_say "the host's python3 has no msgpack (apt-get install python3-msgpack):"
		sed 's/^/#   /' "$NBVM_WORK/py.err"
		return 1
	fi
}

vm_up() {
	vm_host_up || return 1
	rmmod naobody 2>/dev/null
	# dummy_hcd loaded by hand at high speed: the emulator loads it again at
	# full speed, as the real board runs.
	if grep -qs Y /sys/module/dummy_hcd/parameters/is_high_speed; then
		rmmod dummy_hcd 2>/dev/null
	fi
	chestboard-emu --quiet --socket "$NBVM_EMU_SOCKET" --body-id "$NBVM_BODY_ID" "$@" \
		>"$NBVM_WORK/emu.log" 2>&1 &
	nbvm_emu_pid=$!
	modprobe naobody || { nbvm_say "modprobe naobody failed"; return 1; }
	# The device, then every board through its handshake (the preference
	# block and the id strings come before it).
	# A deadline on the clock: under a loaded TCG each turn of the loop
	# (a grep, a sleep) takes far longer than its sleep.
	limit=$((30 * ${NBVM_TIME_SCALE:-1}))
	end=$(($(cut -d. -f1 /proc/uptime) + limit))
	while [ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ]; do
		if [ -e /dev/naobody ] && [ -r /sys/class/naobody/naobody/board0/state ] &&
			! grep -qvx accepted /sys/class/naobody/naobody/board*/state; then
			return 0
		fi
		if ! kill -0 "$nbvm_emu_pid" 2>/dev/null; then
			nbvm_say "the emulator exited:"
			sed 's/^/#   /' "$NBVM_WORK/emu.log"
			return 1
		fi
		sleep 0.05
	done
	nbvm_say "the body did not come up in $limit s; boards:"
	grep . /sys/class/naobody/naobody/board*/state 2>/dev/null | sed 's/^/#   /'
	return 1
}

# Inside the chroot nothing of the VM's environment is wanted but this.
vm_python() {
	chroot "$NBVM_HOST" /usr/bin/env -i PATH="$NBVM_WORK/bin:/usr/bin:/bin:/usr/sbin:/sbin" \
		HOME=/tmp O="$NBVM_WORK" NBTEST_BODY="${NBTEST_BODY:-real}" \
		NBVM_TIME_SCALE="${NBVM_TIME_SCALE:-1}" ${NBTEST_HEAD_BUS:+NBTEST_HEAD_BUS="$NBTEST_HEAD_BUS"} \
		NBTEST_EMU_SOCKET="$NBVM_EMU_SOCKET" NBTEST_BODY_ID="$NBVM_BODY_ID" \
		${NBTEST_ONLY:+NBTEST_ONLY="$NBTEST_ONLY"} \
		/usr/bin/python3 -B "$@"
}

vm_down() {
	rmmod naobody 2>/dev/null
	if [ -n "$nbvm_emu_pid" ]; then
		kill "$nbvm_emu_pid" 2>/dev/null
		wait "$nbvm_emu_pid" 2>/dev/null
		nbvm_emu_pid=
	fi
	for d in $nbvm_bound; do
		umount -l "$NBVM_HOST/$d" 2>/dev/null
	done
	nbvm_bound=
}
