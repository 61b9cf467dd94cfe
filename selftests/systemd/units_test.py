#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The systemd units of packaging/ on the host: systemd-analyze verify and
security --offline, the dependencies that keep naoguard independent of
naobodyd, the real-time priorities, the udev rule's group made by
sysusers.d, the LoLA link of tmpfiles.d, and Type=notify: each daemon sends
READY=1 on $NOTIFY_SOCKET once it serves. Also the serial robots' attach
templates (n_robot-cm5@, n_robot-parol6@) and the udev rule that starts them.
Prints TAP."""

import configparser
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
O = os.environ.get("O", os.path.join(SRC, "build"))
PKG = os.path.join(SRC, "packaging")
UNITS = ("naoguard", "naobodyd")
# The templates, verified as an instance: the port a udev rule names.
TEMPLATES = {"n_robot-cm5@": "cm5ctl", "n_robot-parol6@": "parolctl"}
INSTANCE = "ttyUSB0"
# "OK" or better in systemd-analyze security's bands, and no worse than
# both score with Debian 12's systemd (252): a hardening directive dropped
# shows. make bench prints the scores.
MAX_EXPOSURE = 1.7

results = []
PLAN = 14


def tap(ok, name, why=""):
    results.append(ok)
    print(f"{'ok' if ok else 'not ok'} {len(results)} {name}")
    for line in why.strip().splitlines():
        print(f"#   {line}")
    sys.stdout.flush()


def unit_text(u):
    with open(os.path.join(PKG, "systemd", f"{u}.service")) as f:
        return f.read()


def unit(u):
    """The unit as (section, key) -> [values], repeated keys kept."""
    vals = {}
    section = None
    for line in unit_text(u).splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        k, _, v = line.partition("=")
        vals.setdefault((section, k), []).append(v)
    return vals


def staged(tmp):
    """The units with ExecStart at the build's programs (verify wants them)."""
    paths = []
    for u in UNITS:
        p = os.path.join(tmp, f"{u}.service")
        with open(p, "w") as f:
            f.write(unit_text(u).replace("/usr/bin/", os.path.join(O, "bin") + "/"))
        paths.append(p)
    return paths


def test_verify(tmp):
    # --man=no: the man pages are in the tree, not installed (docs-check).
    r = subprocess.run(["systemd-analyze", "verify", "--man=no"] + staged(tmp),
                       capture_output=True, text=True)
    tap(r.returncode == 0 and not r.stderr.strip(), "systemd-analyze verify: both units",
        r.stdout + r.stderr)


def exposure(path):
    r = subprocess.run(["systemd-analyze", "security", "--offline=yes", path],
                       capture_output=True, text=True)
    m = re.search(r"Overall exposure level for \S+: ([\d.]+) (\w+)", r.stdout)
    return (float(m.group(1)), m.group(2)) if m else (None, r.stdout + r.stderr)


def test_security(tmp):
    for u, path in zip(UNITS, staged(tmp)):
        score, level = exposure(path)
        tap(score is not None and score <= MAX_EXPOSURE,
            f"{u}: systemd-analyze security exposure at most {MAX_EXPOSURE}",
            f"{score} {level}" if score is not None else level)


def staged_templates(tmp):
    paths = []
    for t in TEMPLATES:
        with open(os.path.join(PKG, "systemd", f"{t}.service")) as f:
            text = f.read()
        p = os.path.join(tmp, f"{t}{INSTANCE}.service")
        with open(p, "w") as f:
            f.write(text.replace("/usr/bin/", os.path.join(O, "bin") + "/"))
        paths.append(p)
    return paths


def test_templates(tmp):
    paths = staged_templates(tmp)
    r = subprocess.run(["systemd-analyze", "verify", "--man=no"] + paths,
                       capture_output=True, text=True)
    tap(r.returncode == 0 and not r.stderr.strip(),
        f"systemd-analyze verify: {' '.join(t + INSTANCE for t in TEMPLATES)}",
        r.stdout + r.stderr)
    scores = [exposure(p) for p in paths]
    tap(all(sc is not None and sc <= MAX_EXPOSURE for sc, _ in scores),
        f"the attach templates: exposure at most {MAX_EXPOSURE}", repr(scores))


def test_robot_rule():
    """71-n_robot.rules: opt-in by N_ROBOT, the sysusers group, and for each
    framing the template that runs that tool's attach with the discipline
    required, bound to the port."""
    with open(os.path.join(PKG, "udev", "71-n_robot.rules")) as f:
        rule = f.read()
    with open(os.path.join(PKG, "sysusers.d", "naobody.conf")) as f:
        group = re.search(r"^g\s+(\S+)", f.read(), re.M).group(1)
    why = []
    if not re.search(r'^ENV\{N_ROBOT\}!="cm5\|parol6", GOTO="n_robot_end"$', rule, re.M):
        why.append("not opt-in by ENV{N_ROBOT}")
    if f'GROUP="{group}"' not in rule:
        why.append(f"the port's group is not {group}")
    # serdev.c names its misc device n_robot%d.
    if not re.search(r'^SUBSYSTEM=="misc", KERNEL=="n_robot\[0-9\]\*", GROUP="' + group + '"',
                     rule, re.M):
        why.append(f"the serdev driver's /dev/n_robotN are not given to {group}")
    for t, tool in TEMPLATES.items():
        framing = t[len("n_robot-"):-1]
        if f'ENV{{N_ROBOT}}=="{framing}", ENV{{SYSTEMD_WANTS}}+="{t}%k.service"' not in rule:
            why.append(f"{framing}: no SYSTEMD_WANTS of {t}%k.service")
        with open(os.path.join(PKG, "systemd", f"{t}.service")) as f:
            v = f.read()
        if f"ExecStart=/usr/bin/{tool} --device /dev/%I --ldisc=yes attach" not in v:
            why.append(f"{t}: ExecStart is not {tool}'s attach on /dev/%I")
        if "BindsTo=dev-%i.device" not in v or f"SupplementaryGroups={group}" not in v:
            why.append(f"{t}: not bound to the port, or not in {group}")
    tap(not why, "71-n_robot.rules: opt-in ports to the group, each framing's attach unit",
        "\n".join(why))


def test_independent():
    g, d = unit("naoguard"), unit("naobodyd")
    deps = ("Requires", "Requisite", "BindsTo", "PartOf", "Upholds", "Wants", "After")
    guard_refs = [k for (s, k), v in g.items() if s == "Unit" and k in deps
                  and any("naobodyd" in x for x in v)]
    hard = [k for (s, k), v in d.items() if s == "Unit" and k in
            ("Requires", "Requisite", "BindsTo", "PartOf") and any("naoguard" in x for x in v)]
    ok = (not guard_refs and "naobodyd.service" in " ".join(g.get(("Unit", "Before"), []))
          and "naoguard.service" in " ".join(d.get(("Unit", "Wants"), []))
          and "naoguard.service" in " ".join(d.get(("Unit", "After"), [])) and not hard)
    tap(ok, "naoguard starts before naobodyd and depends on nothing of it",
        f"guard's references to the daemon: {guard_refs}; daemon's hard ones: {hard}")


def test_realtime():
    want = {"naoguard": 30, "naobodyd": 20}     # HAL's and LoLA's
    for u, prio in want.items():
        v = unit(u)
        start = v[("Service", "ExecStart")][0]
        got = (v.get(("Service", "CPUSchedulingPolicy")), v.get(("Service", "CPUSchedulingPriority")),
               v.get(("Service", "LimitRTPRIO")), f"--priority {prio}" in start,
               v.get(("Service", "CapabilityBoundingSet")), v.get(("Service", "RestrictRealtime")))
        ok = got == (["fifo"], [str(prio)], [str(prio)], True, [""], None)
        tap(ok, f"{u}: SCHED_FIFO {prio} from systemd and itself, no capability", repr(got))


def test_rule_order():
    """The head bus's rule matches the name HULKs-OS's 90-hal.rules gives the
    head's USB-I2C bridge (i2c-head): udev runs rules files in the order of
    their names, so ours must sort after it, or it never sees that name."""
    rules = sorted(os.listdir(os.path.join(PKG, "udev")) + ["90-hal.rules"])
    ours = [r for r in rules if "naobody" in r and "n_robot" not in r]
    with open(os.path.join(PKG, "udev", ours[0])) as f:
        heads = 'SYMLINK=="i2c-head"' in f.read()
    ok = len(ours) == 1 and heads and rules.index(ours[0]) > rules.index("90-hal.rules")
    tap(ok, "the head bus's udev rule runs after HULKs-OS's 90-hal.rules, which names i2c-head",
        f"order: {rules}")


def test_group(tmp):
    with open(os.path.join(PKG, "udev", "91-naobody.rules")) as f:
        m = re.search(r'GROUP="([^"]+)"', f.read())
    root = os.path.join(tmp, "root")
    os.makedirs(os.path.join(root, "etc"))
    r = subprocess.run(["systemd-sysusers", f"--root={root}",
                        os.path.join(PKG, "sysusers.d", "naobody.conf")],
                       capture_output=True, text=True)
    groups = ""
    if os.path.exists(os.path.join(root, "etc", "group")):
        with open(os.path.join(root, "etc", "group")) as f:
            groups = f.read()
    supp = {u: unit(u).get(("Service", "SupplementaryGroups")) for u in UNITS}
    ok = (m and r.returncode == 0 and re.search(rf"^{m.group(1)}:x:\d+:", groups, re.M)
          and all(v and len(v) == 1 and v[0].split()[0] == m.group(1)
                  and set(v[0].split()[1:]) <= HEAD_GROUPS for v in supp.values()))
    tap(bool(ok), "sysusers.d makes the udev rule's group, the daemons' supplementary group",
        f"rule: {m and m.group(1)}; sysusers rc {r.returncode} {r.stderr}; /etc/group: {groups}; "
        f"units: {supp}")


# Debian's own groups for the head's cameras and sound (base-passwd makes
# them on every system): naobodyd's only other supplementary groups.
HEAD_GROUPS = {"video", "audio"}


def test_lola_link():
    with open(os.path.join(PKG, "tmpfiles.d", "naobodyd.conf")) as f:
        lines = [ln.split() for ln in f if ln.strip() and not ln.startswith("#")]
    d = unit("naobodyd")
    start = d[("Service", "ExecStart")][0]
    m = re.search(r"--lola (\S+)", start)
    rundir = "/run/" + d[("Service", "RuntimeDirectory")][0] + "/"
    ok = (m and m.group(1).startswith(rundir) and d.get(("Service", "PrivateTmp")) == ["yes"]
          and ["L+", "/tmp/robocup", "-", "-", "-", "-", m.group(1)] in lines)
    tap(bool(ok), "the LoLA socket in the runtime directory, /tmp/robocup a link to it",
        f"ExecStart: {start}; tmpfiles: {lines}")


def ready(argv, name):
    """Run argv with $NOTIFY_SOCKET ours; did READY=1 come within 10 s?"""
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "notify")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    # Anyone may send to it, as to systemd's own /run/systemd/notify: a
    # daemon started as root sends READY=1 after it has dropped to its user.
    os.chmod(tmp, 0o755)
    os.chmod(path, 0o777)
    s.settimeout(10)
    env = dict(os.environ, NOTIFY_SOCKET=path)
    p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    got = []
    try:
        while not any("READY=1" in m for m in got):
            got.append(s.recv(4096).decode(errors="replace"))
    except socket.timeout:
        pass
    p.terminate()
    try:
        _, err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    s.close()
    shutil.rmtree(tmp)
    tap(any("READY=1" in m for m in got), f"{name}: READY=1 on $NOTIFY_SOCKET (Type=notify)",
        f"messages: {got}\nstderr: {err[-600:]}")


def free_port(kind):
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    print("TAP version 13")
    print(f"1..{PLAN}")
    if not shutil.which("systemd-analyze"):
        print("Bail out! no systemd-analyze (apt-get install systemd)")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        test_verify(tmp)
        test_security(tmp)
        test_independent()
        test_realtime()
        test_group(tmp)
        test_templates(tmp)
    test_rule_order()
    test_lola_link()
    test_robot_rule()
    ready([os.path.join(O, "bin", "naoguard"), "--priority", "0", "--bind", "127.0.0.1",
           "--port", str(free_port(socket.SOCK_DGRAM)), "--device", "/nonexistent"], "naoguard")
    ready([os.path.join(O, "bin", "naobodyd"), "--sim", "--no-lola", "--no-guard",
           "--bind", "127.0.0.1", "--port", "0"], "naobodyd")
    if len(results) != PLAN:
        print(f"# planned {PLAN}, ran {len(results)}")
        return 1
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
