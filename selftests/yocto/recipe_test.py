#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""packaging/yocto/meta-naobody where no BitBake runs. Prints TAP.

- Static: every file of the layer is read by bblite's strict grammar
  (BitBake 2's override syntax, quotes, functions); layer.conf declares the
  collection, its dependencies and the releases HULKs-OS builds with;
  each recipe's licence checksums match the tree; every shell task is valid
  shell once its variables are expanded; the classes inherited are
  oe-core's.
- The module recipe's build and install, as module.bbclass runs them
  (oe-core scarthgap and walnascar: the same make lines), on a clean copy
  of the tree against Debian's 6.12 PREEMPT_RT headers in their separate
  build directory (the kernel's O=, as a Yocto kernel's build artefacts):
  both modules land under MODLIB for that kernel, with its vermagic, and
  naobody.ko carries the chest board's USB ids (it loads on its own) and
  n_robot.ko the name the udev rule loads.
- The userspace recipe's configure, compile and install tasks with its
  EXTRA_OEMAKE, on another clean copy, with a Yocto distro's directories
  (HULKs-OS: systemd, no usrmerge) and compiler flags; then every installed
  file belongs to one of the recipe's packages, the units' programs, the
  shutdown hook's and the udev rules' group are there, the units the
  recipe names for systemd.bbclass exist.
- naobody-replaces-aldebaran's install: HAL masked, lola.service a name of
  the installed naobodyd.service, the daemons enabled; the packages the
  package group and it depend on are the ones the other recipes make.
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bblite  # noqa: E402

SRC = os.path.dirname(os.path.dirname(HERE))
LAYER = os.path.join(SRC, "packaging/yocto/meta-naobody")
RECIPES = {
    "modules": "recipes-kernel/naobody-modules/naobody-modules.bb",
    "userspace": "recipes-naobody/naobody/naobody.bb",
    "replaces": "recipes-naobody/naobody-replaces-aldebaran/naobody-replaces-aldebaran.bb",
    "group": "recipes-naobody/packagegroups/packagegroup-naobody.bb",
}
# oe-core's classes the recipes may inherit (scarthgap and walnascar both).
OE_CLASSES = {"module", "pkgconfig", "systemd", "useradd", "packagegroup", "allarch"}
# The releases of HULKs/meta-nao's layer.conf: 7.0-7.5 scarthgap, 7.6-9 walnascar.
HULKS_SERIES = {"scarthgap", "walnascar"}

# A Yocto distro's directories, as oe-core's bitbake.conf sets them for
# HULKs-OS (systemd, no usrmerge) on x86-64.
DIRS = {
    "prefix": "/usr", "exec_prefix": "/usr", "base_prefix": "", "root_prefix": "",
    "bindir": "${exec_prefix}/bin", "sbindir": "${exec_prefix}/sbin",
    "libdir": "${exec_prefix}/lib", "libexecdir": "${exec_prefix}/libexec",
    "datadir": "${prefix}/share", "mandir": "${datadir}/man", "docdir": "${datadir}/doc",
    "infodir": "${datadir}/info", "includedir": "${exec_prefix}/include",
    "sysconfdir": "/etc", "localstatedir": "/var", "sharedstatedir": "/com",
    "base_bindir": "/bin", "base_sbindir": "/sbin", "base_libdir": "/lib",
    "nonarch_base_libdir": "/lib", "nonarch_libdir": "${exec_prefix}/lib",
    "systemd_unitdir": "${nonarch_base_libdir}/systemd",
    "systemd_system_unitdir": "${systemd_unitdir}/system",
    "firmwaredir": "${nonarch_base_libdir}/firmware",
    "SOLIBS": ".so.*", "SOLIBSDEV": ".so",
    "PACKAGES": "${PN}-src ${PN}-dbg ${PN}-staticdev ${PN}-dev ${PN}-doc ${PN}-locale ${PN}",
    "PARALLEL_MAKE": "-j2",
}
# oe-core's default FILES for a recipe's packages (bitbake.conf).
DEFAULT_FILES = {
    "${PN}": "${bindir}/* ${sbindir}/* ${libexecdir}/* ${libdir}/lib*${SOLIBS} ${sysconfdir} "
             "${sharedstatedir} ${localstatedir} ${base_bindir}/* ${base_sbindir}/* "
             "${base_libdir}/*${SOLIBS} ${base_prefix}/lib/udev ${prefix}/lib/udev "
             "${base_libdir}/udev ${libdir}/udev ${datadir}/${BPN} ${libdir}/${BPN}/*",
    "${PN}-doc": "${docdir} ${mandir} ${infodir}",
    "${PN}-dev": "${includedir} ${libdir}/lib*${SOLIBSDEV} ${libdir}/*.la ${libdir}/pkgconfig "
                 "${datadir}/pkgconfig",
    "${PN}-staticdev": "${libdir}/*.a ${base_libdir}/*.a",
}
# A Yocto target's compiler and linker flags (oe-core's defaults with its
# security flags), so that the Makefile is built as an image build builds it.
YOCTO_ENV = {
    "CC": "gcc", "CFLAGS": "-O2 -pipe -g -feliminate-unused-debug-types -fstack-protector-strong "
    "-D_FORTIFY_SOURCE=2 -Wformat -Wformat-security -Werror=format-security",
    "LDFLAGS": "-Wl,-O1 -Wl,--hash-style=gnu -Wl,--as-needed -fstack-protector-strong "
    "-Wl,-z,relro,-z,now",
    "PKG_CONFIG_PATH": "",
}

results = []


def tap(ok, what, why=""):
    results.append(bool(ok))
    print(f"{'ok' if ok else 'not ok'} {len(results)} {what}")
    for line in str(why).strip().splitlines()[-40:]:
        print(f"#   {line}")
    sys.stdout.flush()


def load(rel, extra=None):
    pn = os.path.basename(rel)[:-3]
    d = bblite.Data({**DIRS, "PN": pn, "BPN": pn, **(extra or {})})
    d.vars["NAOBODY_LAYERDIR"] = LAYER
    bblite.parse(os.path.join(LAYER, rel), d, search=[LAYER])
    return bblite.finalize(d)


def clean_tree(dest):
    """The tree's files as git has them (a recipe's git checkout)."""
    files = subprocess.run(["git", "-C", SRC, "ls-files", "-z", "--cached", "--others",
                            "--exclude-standard"], capture_output=True, check=True).stdout
    for f in files.decode().split("\0"):
        if f and os.path.isfile(os.path.join(SRC, f)):
            os.makedirs(os.path.join(dest, os.path.dirname(f)), exist_ok=True)
            shutil.copy2(os.path.join(SRC, f), os.path.join(dest, f), follow_symlinks=False)


def run_task(d, name, cwd, env, log):
    """A shell task of the recipe, with oe_runmake as base.bbclass defines it."""
    kind, body = d.funcs[name]
    assert kind == "shell"
    script = ("set -e\n"
              'oe_runmake() { echo "+ make $EXTRA_OEMAKE $*"; make $EXTRA_OEMAKE "$@"; }\n'
              + d.expand(body) + "\n")
    r = subprocess.run(["bash", "-c", script], cwd=cwd, env=env, stdout=log,
                       stderr=subprocess.STDOUT)
    return r.returncode == 0


def static():
    why = []
    paths = []
    for dirpath, _, files in os.walk(LAYER):
        paths += [os.path.join(dirpath, f) for f in files if f.endswith((".bb", ".bbappend",
                                                                         ".inc", ".conf"))]
    for p in sorted(paths):
        try:
            d = bblite.Data(DIRS)
            d.vars["LAYERDIR"] = LAYER
            d.vars["PN"] = os.path.basename(p).split(".")[0]
            bblite.parse(p, d, search=[LAYER])
        except bblite.BBError as e:
            why.append(str(e))
    tap(not why and len(paths) >= 6, f"every file of the layer ({len(paths)}) is BitBake 2 syntax",
        "\n".join(why))

    d = bblite.Data()
    d.vars["LAYERDIR"] = LAYER
    bblite.parse(os.path.join(LAYER, "conf/layer.conf"), d)
    bblite.finalize(d)
    compat = set((d.getVar("LAYERSERIES_COMPAT_naobody") or "").split())
    ok = ("naobody" in (d.getVar("BBFILE_COLLECTIONS") or "").split()
          and d.getVar("BBFILE_PATTERN_naobody") == f"^{LAYER}/"
          and HULKS_SERIES <= compat
          and set((d.getVar("LAYERDEPENDS_naobody") or "").split()) == {"core", "openembedded-layer"}
          and all(os.path.isfile(os.path.join(LAYER, r)) for r in RECIPES.values()))
    tap(ok, "layer.conf: the collection naobody, compatible with scarthgap and walnascar "
        "(HULKs-OS 7-9), on core and meta-oe", f"compat {sorted(compat)}")

    why = []
    for key, rel in RECIPES.items():
        d = load(rel)
        for cls in d.inherits:
            if cls not in OE_CLASSES:
                why.append(f"{rel}: inherits {cls}, not an oe-core class the tests know")
        for entry in (d.getVar("LIC_FILES_CHKSUM") or "").split():
            m = re.match(r"file://([^;]+);md5=([0-9a-f]{32})$", entry)
            if not m:
                why.append(f"{rel}: LIC_FILES_CHKSUM entry {entry}")
            elif "${COMMON_LICENSE_DIR}" not in m.group(1) and "/" not in m.group(1)[:1]:
                with open(os.path.join(SRC, m.group(1)), "rb") as f:
                    got = hashlib.md5(f.read()).hexdigest()
                if got != m.group(2):
                    why.append(f"{rel}: {m.group(1)} has md5 {got}, the recipe says {m.group(2)}")
        if key != "group" and not (d.getVar("LIC_FILES_CHKSUM") or "").strip():
            why.append(f"{rel}: no LIC_FILES_CHKSUM")
        for lic in re.split(r"[ &|()]+", d.getVar("LICENSE") or ""):
            if lic and lic not in ("GPL-2.0-only", "LGPL-2.1-or-later", "MIT"):
                why.append(f"{rel}: licence {lic}")
        for name, (kind, body) in d.funcs.items():
            if kind == "shell":
                r = subprocess.run(["bash", "-n"], input=d.expand(body), text=True,
                                   capture_output=True)
                if r.returncode:
                    why.append(f"{rel}: {name}: {r.stderr.strip()}")
    tap(not why, "each recipe: oe-core classes, licence checksums that match the tree, "
        "shell tasks that parse", "\n".join(why))

    # The source: the layer's own checkout, unpacked where each release puts it.
    d1 = load(RECIPES["userspace"], {"WORKDIR": "/w"})
    d2 = load(RECIPES["userspace"], {"WORKDIR": "/w", "UNPACKDIR": "/w/sources-unpack"})
    head = subprocess.run(["git", "-C", SRC, "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    ok = (d1.getVar("SRC_URI") == f"git://{SRC};protocol=file;nobranch=1"
          and d1.getVar("SRCREV") == head and len(head) == 40
          and d1.getVar("S") == "/w/git" and d2.getVar("S") == "/w/sources-unpack/git")
    tap(ok, "the recipes' source is this checkout at its HEAD, unpacked in git/ under WORKDIR "
        "(scarthgap) or UNPACKDIR (walnascar)",
        f"{d1.getVar('SRC_URI')} {d1.getVar('SRCREV')} {d1.getVar('S')} {d2.getVar('S')}")


def module_recipe(tmp):
    """module.bbclass's do_compile and do_install (oe-core scarthgap and
    walnascar), with the recipe's EXTRA_OEMAKE, MAKE_TARGETS and
    MODULES_INSTALL_TARGET, against Debian's 6.12-rt headers."""
    r = subprocess.run([os.path.join(SRC, "scripts/kernel-headers.sh"), "6.12-rt"],
                       capture_output=True, text=True)
    kdir = r.stdout.strip()
    if r.returncode or not os.path.isfile(os.path.join(kdir, "Makefile")):
        tap(False, "the module recipe against 6.12-rt: the headers", r.stderr)
        return
    with open(os.path.join(kdir, "include/config/kernel.release")) as f:
        kver = f.read().strip()
    # The common tree is the kernel's source; the flavour's, its build.
    src = os.path.realpath(os.path.join(kdir, "..", os.path.basename(kdir).replace("-rt-amd64",
                                                                                   "-common-rt")))
    work = os.path.join(tmp, "module")
    S = os.path.join(work, "git")
    D = os.path.join(work, "image")
    clean_tree(S)
    d = load(RECIPES["modules"], {
        "WORKDIR": work, "STAGING_KERNEL_DIR": src, "STAGING_KERNEL_BUILDDIR": kdir,
        "KERNEL_VERSION": kver, "D": D,
        "KERNEL_CC": "gcc", "KERNEL_LD": "ld", "KERNEL_AR": "ar", "KERNEL_OBJCOPY": "objcopy",
        "KERNEL_STRIP": "strip", "KBUILD_EXTRA_SYMBOLS": "", "TARGET_PREFIX": "",
    })
    # module.bbclass: EXTRA_OEMAKE += "KERNEL_SRC=${STAGING_KERNEL_DIR}" before
    # the recipe's own +=; B is S.
    extra = "KERNEL_SRC=${STAGING_KERNEL_DIR} " + (d.vars.get("EXTRA_OEMAKE") or "")
    d.setVar("EXTRA_OEMAKE", extra)
    assert d.getVar("S") == S, d.getVar("S")
    d.funcs["do_compile"] = ("shell", (
        "unset CFLAGS CPPFLAGS CXXFLAGS LDFLAGS\n"
        "oe_runmake ${PARALLEL_MAKE} KERNEL_PATH=${STAGING_KERNEL_DIR} "
        "KERNEL_VERSION=${KERNEL_VERSION} CC=\"${KERNEL_CC}\" LD=\"${KERNEL_LD}\" "
        "AR=\"${KERNEL_AR}\" OBJCOPY=\"${KERNEL_OBJCOPY}\" STRIP=\"${KERNEL_STRIP}\" "
        "O=${STAGING_KERNEL_BUILDDIR} KBUILD_EXTRA_SYMBOLS=\"${KBUILD_EXTRA_SYMBOLS}\" "
        "${MAKE_TARGETS}"))
    d.funcs["do_install"] = ("shell", (
        "unset CFLAGS CPPFLAGS CXXFLAGS LDFLAGS\n"
        "oe_runmake DEPMOD=echo MODLIB=\"${D}${nonarch_base_libdir}/modules/${KERNEL_VERSION}\" "
        "INSTALL_FW_PATH=\"${D}${firmwaredir}\" CC=\"${KERNEL_CC}\" LD=\"${KERNEL_LD}\" "
        "OBJCOPY=\"${KERNEL_OBJCOPY}\" STRIP=\"${KERNEL_STRIP}\" O=${STAGING_KERNEL_BUILDDIR} "
        "KBUILD_EXTRA_SYMBOLS=\"${KBUILD_EXTRA_SYMBOLS}\" ${MODULES_INSTALL_TARGET}"))
    env = {**os.environ, "EXTRA_OEMAKE": d.getVar("EXTRA_OEMAKE"), "ARCH": "x86",
           "CROSS_COMPILE": "", "KBUILD_OUTPUT": kdir, "KERNEL_VERSION": kver}
    log_path = os.path.join(tmp, "module.log")
    with open(log_path, "w") as log:
        ok = run_task(d, "do_compile", S, env, log) and run_task(d, "do_install", S, env, log)
    with open(log_path) as f:
        out = f.read()
    mods = {}
    for dirpath, _, files in os.walk(os.path.join(D, "lib/modules", kver)):
        for f in files:
            m = re.match(r"(naobody|n_robot)\.ko(\.xz|\.gz|\.zst)?$", f)
            if m:
                mods[m.group(1)] = os.path.join(dirpath, f)
    ok = ok and set(mods) == {"naobody", "n_robot"} and os.path.isfile(os.path.join(S, "Module.symvers"))
    tap(ok, f"naobody-modules: module.bbclass's compile and install against {kver} "
        "put both modules under MODLIB, and Module.symvers where the class looks", out)
    if not ok:
        return
    info = {}
    for name, path in mods.items():
        r = subprocess.run(["/sbin/modinfo", path], capture_output=True, text=True)
        info[name] = r.stdout
    ok = (all(re.search(rf"^vermagic:\s+{re.escape(kver)} SMP .*modversions", i, re.M)
              for i in info.values())
          and re.search(r"^alias:\s+usb:vFFFFp0006", info["naobody"], re.M)
          and re.search(r"^name:\s+n_robot$", info["n_robot"], re.M))
    tap(ok, "the modules: vermagic of that kernel with modversions; naobody.ko loads "
        "on the chest board's USB id; n_robot.ko is the name 71-n_robot.rules loads",
        "\n".join(info.values()))


def files_match(pattern, path):
    """BitBake's FILES semantics: a glob, or a directory and all below it."""
    import fnmatch
    return fnmatch.fnmatch(path, pattern) or path == pattern or path.startswith(pattern + "/")


def userspace_recipe(tmp):
    work = os.path.join(tmp, "userspace")
    S = os.path.join(work, "git")
    D = os.path.join(work, "image")
    clean_tree(S)
    d = load(RECIPES["userspace"], {"WORKDIR": work, "D": D})
    B = d.getVar("B")
    os.makedirs(B)
    env = {**os.environ, **YOCTO_ENV, "EXTRA_OEMAKE": d.getVar("EXTRA_OEMAKE"),
           "PKG_CONFIG_PATH": d.getVar("PKG_CONFIG_PATH") or ""}
    env.pop("MAKEFLAGS", None)
    env.pop("MFLAGS", None)
    log_path = os.path.join(tmp, "userspace.log")
    with open(log_path, "w") as log:
        ok = (run_task(d, "do_configure", B, env, log)
              and run_task(d, "do_compile", B, {**env, "EXTRA_OEMAKE": "-j2 " + env["EXTRA_OEMAKE"]},
                           log)
              and run_task(d, "do_install", B, env, log))
    with open(log_path) as f:
        out = f.read()
    installed = []
    for dirpath, dirs, files in os.walk(D):
        for f in files + [x for x in dirs if os.path.islink(os.path.join(dirpath, x))]:
            installed.append("/" + os.path.relpath(os.path.join(dirpath, f), D))
    tap(ok and installed, f"naobody: do_configure, do_compile and do_install as the recipe gives "
        f"them ({len(installed)} files in D)", out)
    if not ok:
        return None

    # Packages: the recipe's PACKAGES and FILES over oe-core's defaults.
    pn = d.getVar("PN")
    packages = d.getVar("PACKAGES").split()
    files = {}
    # systemd.bbclass adds SYSTEMD_SERVICE's units to their package.
    d.vars[f"FILES:{pn}"] = (d.vars.get(f"FILES:{pn}") or "") + "".join(
        f" ${{systemd_system_unitdir}}/{u}" for u in d.getVar(f"SYSTEMD_SERVICE:{pn}").split())
    for p in packages:
        key = "${PN}" + p[len(pn):] if p.startswith(pn) else p
        own = d.vars.get(f"FILES:{p}")
        if key == "${PN}":
            files[p] = d.expand(DEFAULT_FILES[key] + " " + (own or ""))
        else:
            files[p] = d.expand(own if own is not None else DEFAULT_FILES.get(key, ""))
    unpackaged = [f for f in installed
                  if not any(files_match(pat, f) for p in packages for pat in files[p].split())]
    # The first package whose FILES match takes a file (package.bbclass).
    owner = {f: next((p for p in packages if any(files_match(pat, f) for pat in files[p].split())),
                     None) for f in installed}
    emus = sorted(os.path.basename(f) for f, p in owner.items()
                  if p == f"{pn}-emulators" and "/bin/" in f)
    tap(not unpackaged and emus == ["chestboard-emu", "chestboard-emu-capture", "chestboard-emu-ctl",
                                    "cm5-emu", "nb-physics-server", "parol6-emu"]
        and owner.get(d.expand("${bindir}/naobodyd")) == pn,
        "every installed file is in a package: the daemons and tools in naobody, the emulators "
        "in naobody-emulators", f"unpackaged: {unpackaged}\nemulators: {emus}")

    # What the units, the udev rules and the hook expect.
    why = []
    unitdir = D + d.getVar("systemd_system_unitdir")
    for u in d.getVar(f"SYSTEMD_SERVICE:{pn}").split():
        if not os.path.isfile(os.path.join(unitdir, u)):
            why.append(f"SYSTEMD_SERVICE names {u}, not installed in {unitdir}")
    for u in os.listdir(unitdir) if os.path.isdir(unitdir) else []:
        with open(os.path.join(unitdir, u)) as f:
            for m in re.finditer(r"^ExecStart=(\S+)", f.read(), re.M):
                if not os.access(D + m.group(1), os.X_OK):
                    why.append(f"{u}: ExecStart={m.group(1)} is not installed")
    hook = D + d.getVar("systemd_unitdir") + "/system-shutdown/naobody-harakiri"
    with open(hook) as f:
        m = re.search(r"\$\((\S+) ", f.read())
    if not m or not m.group(1).startswith("/") or not os.access(D + m.group(1), os.X_OK):
        why.append(f"the shutdown hook runs {m and m.group(1)}, not an installed program")
    group = re.search(r"--system (\S+)", d.getVar(f"GROUPADD_PARAM:{pn}")).group(1)
    rules = D + d.getVar("nonarch_base_libdir") + "/udev/rules.d"
    for r in os.listdir(rules):
        with open(os.path.join(rules, r)) as f:
            for g in re.findall(r'GROUP="([^"]+)"', f.read()):
                if g != group:
                    why.append(f"{r}: GROUP={g}, the recipe makes {group}")
    with open(D + d.getVar("nonarch_libdir") + "/sysusers.d/naobody.conf") as f:
        if not re.search(rf"^g\s+{group}\b", f.read(), re.M):
            why.append(f"sysusers.d/naobody.conf does not make {group}")
    if d.getVar("SYSTEMD_AUTO_ENABLE") != "disable":
        why.append("the units are enabled by naobody alone (HAL would lose the chest board)")
    tap(not why, "units, udev rules, shutdown hook and groups agree with what the recipe installs "
        "and makes (the units stay disabled)", "\n".join(why))
    return d, D


def replaces_recipe(tmp, userspace):
    d_user, D_user = userspace
    work = os.path.join(tmp, "replaces")
    D = os.path.join(work, "image")
    d = load(RECIPES["replaces"], {"WORKDIR": work, "D": D})
    os.makedirs(work)
    with open(os.path.join(tmp, "replaces.log"), "w") as log:
        ok = run_task(d, "do_install", work, os.environ, log)
    etc = D + d.getVar("sysconfdir") + "/systemd/system"
    unitdir = d.getVar("systemd_system_unitdir")
    why = []
    if not ok:
        why.append("do_install failed")
    else:
        links = {
            "hal.service": "/dev/null",
            "lola.service": f"{unitdir}/naobodyd.service",
            "multi-user.target.wants/naobodyd.service": f"{unitdir}/naobodyd.service",
            "multi-user.target.wants/naoguard.service": f"{unitdir}/naoguard.service",
        }
        for name, target in links.items():
            p = os.path.join(etc, name)
            if not os.path.islink(p) or os.readlink(p) != target:
                why.append(f"{name}: {os.readlink(p) if os.path.islink(p) else 'missing'}, want {target}")
            elif target != "/dev/null" and not os.path.isfile(D_user + target):
                why.append(f"{name} -> {target}, which naobody does not install")
    group = load(RECIPES["group"])
    made = {d_user.getVar("PN"), "kernel-module-naobody", "kernel-module-n-robot", d.getVar("PN")}
    for who, dd in (("naobody-replaces-aldebaran", d), ("packagegroup-naobody", group)):
        for dep in (dd.getVar(f"RDEPENDS:{dd.getVar('PN')}") or "").split():
            if dep not in made:
                why.append(f"{who} depends on {dep}, which no recipe here makes")
    if d.getVar("PACKAGE_ARCH") != "${MACHINE_ARCH}" or group.getVar("PACKAGE_ARCH") != "${MACHINE_ARCH}":
        why.append("a package that depends on a kernel module must be MACHINE_ARCH")
    tap(not why, "naobody-replaces-aldebaran: HAL masked, lola.service a name of naobodyd.service, "
        "naoguard and naobodyd enabled; its and the package group's dependencies are this "
        "layer's packages", "\n".join(why))


def main():
    print("TAP version 13")
    print("1..10")
    sys.stdout.flush()
    static()
    with tempfile.TemporaryDirectory(prefix="nbyocto.") as tmp:
        module_recipe(tmp)
        userspace = userspace_recipe(tmp)
        if userspace:
            replaces_recipe(tmp, userspace)
    while len(results) < 10:
        tap(False, "not run: an earlier step failed")
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
