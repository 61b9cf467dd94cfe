#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""make dist's bundle in a root that has the C library and nothing else:
busybox and the files of Debian's libc6, the bundle unpacked as
/opt/naobody. In namespaces of its own (user, mount, PID, network: only
this test's loopback), chrooted there, naobodyd --sim serves the robot
API, the LoLA socket and the status page from the bundle's files to
clients outside the root (Debian's python3-msgpack, not our code); every
program answers --help; every library the programs load is the bundle's
or the C library's; and the bundle needs no glibc newer than its GLIBC
file, which Documentation/install.rst states. Prints TAP."""

import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request

import msgpack

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
O = os.environ.get("O", os.path.join(SRC, "build"))
PROGRAMS = ["naobodyd", "naoguard", "naoctl", "naocap", "cm5ctl", "parolctl", "naobody-deploy"]
PLAN = 7
n = 0
failed = 0


def tap(ok, what, why=""):
    global n, failed
    n += 1
    failed += not ok
    print(f"{'ok' if ok else 'not ok'} {n} {what}")
    for line in str(why).strip().splitlines()[:40]:
        print(f"#   {line}")
    sys.stdout.flush()


def libc6_files():
    out = subprocess.run(["dpkg", "-L", "libc6"], capture_output=True, text=True, check=True)
    return [p for p in out.stdout.split() if re.search(r"\.so(\.[0-9]+)*$", p)
            and os.path.isfile(p)]


def make_root(root, bundle):
    """busybox, the C library (libc6's shared objects, at their paths),
    /opt/naobody; the directories a system has."""
    for d in ("bin", "dev", "proc", "tmp", "run", "etc", "opt", "var/lib", "lib64"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    os.chmod(os.path.join(root, "tmp"), 0o1777)
    shutil.copy("/bin/busybox", os.path.join(root, "bin/busybox"))
    os.symlink("busybox", os.path.join(root, "bin/sh"))
    for f in libc6_files():
        real = os.path.realpath(f)
        dest = os.path.join(root, real.lstrip("/"))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copy2(real, dest)
        if f != real and not os.path.lexists(os.path.join(root, f.lstrip("/"))):
            os.makedirs(os.path.dirname(os.path.join(root, f.lstrip("/"))), exist_ok=True)
            os.symlink(real, os.path.join(root, f.lstrip("/")))
    for m in ("/lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"):
        # usrmerge: the loader's path and the library directory, both ways.
        if not os.path.lexists(os.path.join(root, m.lstrip("/"))):
            os.makedirs(os.path.dirname(os.path.join(root, m.lstrip("/"))), exist_ok=True)
            os.symlink(os.path.realpath(m), os.path.join(root, m.lstrip("/")))
    with open(os.path.join(root, "etc/passwd"), "w") as f:
        f.write("root:x:0:0:root:/:/bin/sh\n")
    with open(os.path.join(root, "etc/group"), "w") as f:
        f.write("root:x:0:\n")
    with tarfile.open(bundle) as t:
        t.extractall(os.path.join(root, "opt"))


def foreign_libraries(root):
    """Shared objects outside /opt/naobody that are not libc6's."""
    ours = {os.path.realpath(f) for f in libc6_files()}
    bad = []
    for dirpath, _, files in os.walk(root):
        if dirpath.startswith(os.path.join(root, "opt")):
            continue
        for f in files:
            if re.search(r"\.so(\.[0-9]+)*$", f):
                p = "/" + os.path.relpath(os.path.join(dirpath, f), root)
                if os.path.realpath(p) not in ours:
                    bad.append(p)
    return bad


def glibc_needed(top):
    """The newest GLIBC_x.y any ELF file of the bundle asks for."""
    versions = set()
    for d in ("bin", "lib"):
        for f in os.listdir(os.path.join(top, d)):
            p = os.path.join(top, d, f)
            if os.path.islink(p):
                continue
            with open(p, "rb") as fh:
                if fh.read(4) != b"\x7fELF":
                    continue
            out = subprocess.run(["readelf", "-V", "-W", p], capture_output=True, text=True).stdout
            versions |= set(re.findall(r"Name: GLIBC_([0-9.]+)", out))
    return max(versions, key=lambda v: tuple(int(x) for x in v.split(".")))


def read_exactly(s, k, deadline):
    b = b""
    while len(b) < k:
        s.settimeout(max(0.01, deadline - time.monotonic()))
        c = s.recv(k - len(b))
        if not c:
            raise ConnectionError("closed")
        b += c
    return b


def inside(root):
    """In the namespaces: loopback up, naobodyd in the root, clients here."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    for m in ("proc", "dev"):
        subprocess.run(["mount", "--rbind", f"/{m}", os.path.join(root, m)], check=True)
    top = "/opt/naobody"

    def chrooted(*args, **kw):
        return subprocess.run(["chroot", root] + list(args), capture_output=True, text=True,
                              timeout=30, **kw)

    # Every library each program loads, as the loader resolves it in there.
    why = []
    for p in PROGRAMS[:-1]:
        r = chrooted("/lib64/ld-linux-x86-64.so.2", "--list", f"{top}/bin/{p}")
        for line in r.stdout.splitlines():
            m = re.search(r"=> (\S+)", line)
            lib = m and os.path.normpath(m.group(1))
            if "not found" in line or (lib and not (lib.startswith(top + "/lib/")
                                                    or "/x86_64-linux-gnu/" in lib)):
                why.append(f"{p}: {line.strip()}")
        if r.returncode:
            why.append(f"{p}: the loader says {r.returncode}: {r.stderr.strip()}")
    tap(not why, "in the root, every library the programs load is the bundle's or the C library's",
        "\n".join(why))

    why = []
    for p in PROGRAMS:
        r = chrooted(f"{top}/bin/{p}", "--help")
        if p == "naobody-deploy":
            # A bash script: the bundle's PC-side tool, not run on a root
            # without bash; it must at least be there and executable.
            if not os.access(os.path.join(root, top.lstrip("/"), "bin", p), os.X_OK):
                why.append(f"{p}: not in the bundle's bin/")
            continue
        if r.returncode != 0 or "Usage" not in r.stdout + r.stderr:
            why.append(f"{p} --help: exit {r.returncode}: {(r.stdout + r.stderr)[:300]}")
    tap(not why, "in the root, naobodyd, naoguard, naoctl, naocap, cm5ctl and parolctl answer --help",
        "\n".join(why))

    log = open(os.path.join(root, "tmp/naobodyd.log"), "w")
    d = subprocess.Popen(["chroot", root, f"{top}/bin/naobodyd", "--sim", "--bind", "127.0.0.1",
                          "--no-guard", "--no-audio", "--lola", "/tmp/robocup",
                          "--state-dir", "/var/lib/naobodyd",
                          # as root it stays root: this root has no other user,
                          # and its namespace could not switch to one
                          "--user", "root",
                          "--www", f"{top}/share/naobodyd/www"],
                         stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", 7700), 0.5).close()
                socket.create_connection(("127.0.0.1", 7702), 0.5).close()
                break
            except OSError:
                if d.poll() is not None or time.monotonic() > deadline:
                    break
                time.sleep(0.1)

        def daemon_log():
            with open(os.path.join(root, "tmp/naobodyd.log")) as f:
                return f.read()[-2000:]

        try:
            s = socket.create_connection(("127.0.0.1", 7700), 5)
            for msg in ({"Hello": {"version": 1, "client": "bundle_test"}},
                        {"Subscribe": {"state": True}}):
                body = msgpack.packb(msg)
                s.sendall(struct.pack(">I", len(body)) + body)
            end = time.monotonic() + 10
            got = {}
            while not ("Hello" in got and "State" in got):
                k = struct.unpack(">I", read_exactly(s, 4, end))[0]
                m = msgpack.unpackb(read_exactly(s, k, end), raw=False)
                if isinstance(m, dict):
                    got.update({key: m[key] for key in m if key in ("Hello", "State")})
            ok = got["Hello"].get("robot", {}).get("simulated") is True and isinstance(got["State"], dict)
            tap(ok, "naobodyd --sim in the root: a robot API client gets Hello (simulated) and a State",
                repr(got.get("Hello")))
        except Exception as e:
            tap(False, "naobodyd --sim in the root: a robot API client gets Hello (simulated) and a State",
                f"{e!r}\n{daemon_log()}")
        try:
            u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            u.settimeout(5)
            u.connect(os.path.join(root, "tmp/robocup"))
            packet = read_exactly(u, 896, time.monotonic() + 10)
            m = msgpack.unpackb(packet, raw=False)
            tap(isinstance(m, dict) and "Position" in m,
                "the LoLA socket sends a 896-byte packet with LoLA's keys", sorted(m)[:8])
        except Exception as e:
            tap(False, "the LoLA socket sends a 896-byte packet with LoLA's keys",
                f"{e!r}\n{daemon_log()}")
        try:
            page = urllib.request.urlopen("http://127.0.0.1:7702/", timeout=10).read()
            with open(os.path.join(root, top.lstrip("/"), "share/naobodyd/www/index.html"), "rb") as f:
                tap(page == f.read(), "the status page is served from the bundle's share/naobodyd/www")
        except Exception as e:
            tap(False, "the status page is served from the bundle's share/naobodyd/www",
                f"{e!r}\n{daemon_log()}")
    finally:
        d.terminate()
        try:
            d.wait(15)
        except subprocess.TimeoutExpired:
            d.kill()
            d.wait()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--inside":
        inside(sys.argv[2])
        sys.exit(1 if failed else 0)
    print("TAP version 13")
    print(f"1..{PLAN}")
    sys.stdout.flush()
    r = subprocess.run(["make", "-C", SRC, "-s", "--no-print-directory", "dist"],
                       capture_output=True, text=True)
    bundles = sorted((os.path.join(O, "dist", f) for f in os.listdir(os.path.join(O, "dist"))
                      if f.endswith("-x86_64.tar.gz")), key=os.path.getmtime) \
        if os.path.isdir(os.path.join(O, "dist")) else []
    if r.returncode or not bundles:
        tap(False, "make dist", r.stdout + r.stderr)
        sys.exit(1)
    bundle = bundles[-1]
    with tempfile.TemporaryDirectory(prefix="nbbundle.") as tmp:
        root = os.path.join(tmp, "root")
        make_root(root, bundle)
        bad = foreign_libraries(root)
        tap(not bad, "the root has no shared library but the C library's (libc6) and the bundle's",
            "\n".join(bad))
        top = os.path.join(root, "opt/naobody")
        need = glibc_needed(top)
        with open(os.path.join(top, "GLIBC")) as f:
            said = f.read().strip()
        try:
            with open(os.path.join(SRC, "Documentation/install.rst")) as f:
                doc = re.search(r"glibc (\d+\.\d+) or newer", f.read())
        except OSError:
            doc = None
        tap(need == said and doc is not None and doc.group(1) == said,
            "the bundle needs no glibc newer than its GLIBC file and install.rst say",
            f"needed {need}; GLIBC says {said}; install.rst says {doc and doc.group(1)}")
        r = subprocess.run(["unshare", "--map-root-user", "--net", "--pid", "--fork", "--mount",
                            sys.executable, os.path.abspath(__file__), "--inside", root],
                           capture_output=True, text=True, timeout=240)
        for line in r.stdout.splitlines():
            m = re.match(r"(not ok|ok) \d+ (.*)", line)
            if m:
                tap(m.group(1) == "ok", m.group(2))
            elif line.startswith("#"):
                print(line)
        while n < PLAN:
            tap(False, "not run in the root: the namespaces (unshare) or the run there failed",
                r.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
