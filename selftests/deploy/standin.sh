#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A stand-in NAO for naobody-deploy's tests: a root laid out like HULKs-OS
# (HULKs/meta-nao: /media/internal, /opt/aldebaran, user nao in group hal,
# hal.service and lola.service enabled for default.target, a team's unit
# that requires lola.service), booted with systemd-nspawn --boot in a
# network namespace of its own, with an sshd on its loopback that takes
# root and nao by key. Everything lives in one directory; nothing of the
# host changes but the namespace and the mounts nspawn makes and removes.
#
#   standin.sh up DIR     make the root under DIR and boot it; prints the
#                         variables the test needs (NETNS, SSH, ROOT...)
#   standin.sh down DIR   power it off, remove the namespace and DIR
#
# What it stands in for, and what it cannot:
#   - /usr is the host's (Debian 12: systemd 252, openssh, python3, kmod),
#     under a writable overlay whose upper layer is DIR/usr-upper, where the
#     image's own packages put hal.service and lola.service.
#   - HAL and LoLA are stand-ins: HAL a Type=notify process, LoLA a
#     listener on /tmp/robocup that sends 896-byte packets like LoLA's.
#     Their units are HULKs-OS's without what needs the chest board
#     (Requires=dev-chestboard.device) or a real-time budget (the container
#     has none).
#   - There is no chest board and the container may not load modules into
#     the host's kernel: naobody-deploy runs there with --no-body.
#   - uname -r is the host's kernel release: the module the tests deploy
#     is built for it (the tree's own build), and one built for 6.12-rt is
#     the module of the wrong kernel.
set -euo pipefail

cmd=${1:?up or down}
dir=${2:?directory}
root=$dir/root
# Unique per directory: two tests may run at once (two checkouts).
netns=naobody-standin-$(realpath -m "$dir" | md5sum | cut -c1-8)

case $cmd in
down)
	if [[ -f $dir/nspawn.pid ]]; then
		pid=$(cat "$dir/nspawn.pid")
		# nspawn --boot passes SIGTERM on as a clean poweroff, and exits
		# when the container has.
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 150); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL "$pid" 2>/dev/null || true
	fi
	ip netns del "$netns" 2>/dev/null || true
	[[ ! -f $dir/nspawn-run-mounted ]] || umount -l /run/systemd/nspawn 2>/dev/null || true
	rm -rf "$dir"
	exit 0
	;;
up) ;;
*) echo "standin.sh: up or down, not '$cmd'" >&2; exit 2 ;;
esac

mkdir -p "$root" "$dir/usr-upper" "$dir/usr-work"
cd "$root"
mkdir -p etc/ssh etc/systemd/system/default.target.wants etc/systemd/system/multi-user.target.wants \
	etc/udev/rules.d etc/modprobe.d etc/tmpfiles.d \
	usr var/lib var/log tmp run proc sys dev root/.ssh home/nao media/internal data \
	opt/aldebaran/bin "lib-modules"
chmod 1777 tmp
for d in bin sbin lib lib64; do
	ln -s "usr/$d" "$d"
done
hostname=nao
echo "$hostname" >etc/hostname
printf 'NAME="HULKs-OS (a stand-in)"\nID=standin\nVERSION_ID=9\n' >etc/os-release
: >etc/machine-id
printf 'root:x:0:0:root:/root:/bin/bash\nnao:x:1001:1001::/home/nao:/bin/bash\nsshd:x:100:65534::/run/sshd:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >etc/passwd
printf 'root:x:0:\nhal:x:99:nao\nnao:x:1001:\nrt:x:113:nao\nwheel:x:10:nao\nsystemd-journal:x:101:\nnogroup:x:65534:\n' >etc/group
printf 'root:*:19000:0:99999:7:::\nnao::19000:0:99999:7:::\nsshd:*:19000:0:99999:7:::\nnobody:*:19000:0:99999:7:::\n' >etc/shadow
printf 'root:*::\nhal:!::nao\nnao:!::\nrt:!::nao\nwheel:!::nao\nsystemd-journal:!::\nnogroup:*::\n' >etc/gshadow
chmod 0640 etc/shadow etc/gshadow
chown 1001:1001 home/nao
# The head's id, where LoLA and naobodyd look for it.
printf '<?xml version="1.0"?>\n<ModuleList><Module name="DeviceHeadInternalGeode"><BaseVersion name="1.0"><Config name="Id" type="string">standin-head-0000001</Config></BaseVersion></Module></ModuleList>\n' \
	>media/internal/DeviceHeadInternalGeode.xml
printf '# robocupper mode (a stand-in for HULKs-OS'"'"'s /home/nao/robocup.conf)\n' >home/nao/robocup.conf
chown 1001:1001 home/nao/robocup.conf

# --- HAL and LoLA, as the image's package installs them -------------------
units=$dir/usr-upper/lib/systemd/system
mkdir -p "$units"
cat >"$units/hal.service" <<'EOF'
[Unit]
Description=Aldebaran HAL (stand-in)
After=syslog.target

[Service]
Type=notify
NotifyAccess=all
Restart=on-failure
ExecStart=/opt/aldebaran/bin/hal
TimeoutStartSec=30
TimeoutStopSec=5
User=nao
Group=hal

[Install]
WantedBy=default.target
EOF
cat >"$units/lola.service" <<'EOF'
[Unit]
Description=Aldebaran LoLA (stand-in)
After=hal.service
Requires=hal.service

[Service]
Type=simple
Restart=on-failure
ExecStart=/opt/aldebaran/bin/lola
TimeoutStartSec=30
TimeoutStopSec=5
User=nao
Group=hal

[Install]
WantedBy=default.target
EOF
# A team's program that needs LoLA (as HULKs' hulk.service requires
# lola.service): it reads LoLA's packets.
cat >"$units/team.service" <<'EOF'
[Unit]
Description=A team's robot control (stand-in)
Requires=lola.service
After=lola.service

[Service]
ExecStart=/opt/team/bin/team
User=nao
Group=nao

[Install]
WantedBy=default.target
EOF
cat >opt/aldebaran/bin/hal <<'EOF'
#!/bin/sh
systemd-notify --ready
exec sleep infinity
EOF
cat >opt/aldebaran/bin/lola <<'EOF'
#!/usr/bin/python3
# LoLA's socket: a 896-byte MessagePack map to each client every 12 ms.
import os, socket, threading, time
PACKET = b"\x81\xa4Lola\xda" + (896 - 9).to_bytes(2, "big") + b"s" * (896 - 9)
assert len(PACKET) == 896
try:
    os.unlink("/tmp/robocup")
except FileNotFoundError:
    pass
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind("/tmp/robocup")
os.chmod("/tmp/robocup", 0o777)
srv.listen(4)
def serve(c):
    try:
        while True:
            c.sendall(PACKET)
            time.sleep(0.012)
    except OSError:
        c.close()
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
EOF
mkdir -p opt/team/bin
cat >opt/team/bin/team <<'EOF'
#!/usr/bin/python3
# Reads LoLA's packets for as long as there are.
import socket, time
for _ in range(100):
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect("/tmp/robocup")
        break
    except OSError:
        time.sleep(0.1)
while s.recv(65536):
    pass
EOF
chmod 0755 opt/aldebaran/bin/hal opt/aldebaran/bin/lola opt/team/bin/team
for u in hal lola team; do
	ln -s "/lib/systemd/system/$u.service" "etc/systemd/system/default.target.wants/$u.service"
done
ln -s /lib/systemd/system/multi-user.target etc/systemd/system/default.target

# --- sshd on the loopback, root and nao by key --------------------------------
ssh-keygen -q -t ed25519 -N '' -f etc/ssh/ssh_host_ed25519_key -C standin
ssh-keygen -q -t ed25519 -N '' -f "$dir/id" -C naobody-deploy-test
install -m 0600 "$dir/id.pub" root/.ssh/authorized_keys
mkdir -p home/nao/.ssh
install -m 0600 -o 1001 -g 1001 "$dir/id.pub" home/nao/.ssh/authorized_keys
chown 1001:1001 home/nao/.ssh
cat >etc/ssh/sshd_config <<'EOF'
ListenAddress 127.0.0.1
HostKey /etc/ssh/ssh_host_ed25519_key
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PidFile /run/sshd.pid
EOF
cat >etc/systemd/system/standin-sshd.service <<'EOF'
[Unit]
Description=OpenSSH on the stand-in's loopback
[Service]
RuntimeDirectory=sshd
RuntimeDirectoryMode=0755
ExecStart=/usr/sbin/sshd -D -e
[Install]
WantedBy=multi-user.target
EOF
ln -s /etc/systemd/system/standin-sshd.service etc/systemd/system/multi-user.target.wants/
echo "127.0.0.1 $(cut -d' ' -f1-2 etc/ssh/ssh_host_ed25519_key.pub)" >"$dir/known_hosts"
rmdir lib-modules
# Debian's /usr links some commands (awk) through /etc/alternatives.
cp -a /etc/alternatives etc/

# --- boot it -----------------------------------------------------------------
ip netns add "$netns"
ip -n "$netns" link set lo up
# nspawn removes what it propagates into the container only from a tmpfs;
# this host's /run may be none.
if [[ $(stat -f -c %T /run 2>/dev/null) != tmpfs ]] && ! mountpoint -q /run/systemd/nspawn; then
	mkdir -p /run/systemd/nspawn
	mount -t tmpfs -o mode=0755 tmpfs /run/systemd/nspawn && touch "$dir/nspawn-run-mounted"
fi
systemd-nspawn -q -D "$root" --boot --register=no --keep-unit \
	--network-namespace-path="/run/netns/$netns" \
	--overlay="/usr:$dir/usr-upper:/usr" --hostname="$hostname" \
	>"$dir/nspawn.log" 2>&1 </dev/null &
echo $! >"$dir/nspawn.pid"
ssh_cmd="ssh -F /dev/null -o BatchMode=yes -o IdentitiesOnly=yes -i $dir/id -o UserKnownHostsFile=$dir/known_hosts -o StrictHostKeyChecking=yes -o ConnectTimeout=5"
# Booted when its sshd answers and HAL and LoLA run: about 2 s; 120 s is a
# bound only a hang reaches.
end=$((SECONDS + 120))
while ((SECONDS < end)); do
	if out=$(ip netns exec "$netns" $ssh_cmd root@127.0.0.1 \
		'test -S /tmp/robocup && systemctl is-active hal.service lola.service team.service' 2>/dev/null) &&
		[[ $(echo $out) == "active active active" ]]; then
		break
	fi
	kill -0 "$(cat "$dir/nspawn.pid")" 2>/dev/null ||
		{ echo "standin: the container exited:" >&2; tail -n 20 "$dir/nspawn.log" >&2; exit 1; }
	sleep 0.2
done
[[ $(echo ${out:-}) == "active active active" ]] ||
	{ echo "standin: not up after 120 s (hal, lola, team: ${out:-no answer})" >&2; tail -n 20 "$dir/nspawn.log" >&2; exit 1; }
echo "NETNS=$netns"
echo "ROOT=$root"
echo "USR_UPPER=$dir/usr-upper"
echo "SSH='$ssh_cmd'"
