#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The tools as a user meets them, and their man pages as man shows them.

One RESULT line per check (make docs-check, after the build):

  tools/P --help       exit 0, "Usage:" first, on stdout, nothing on stderr
  tools/P --version    exit 0, "P (naobody) VERSION" (or "P VERSION") first
  tools/P bad option   exit 2, a message on stderr, nothing on stdout
  man/M renders        groff -ww and mandoc -T lint without a warning, no
                       words run together by an alternating-font macro
                       (".BR Stand . The speaker" prints "Stand.Thespeaker"),
                       and every .TP tag on its one line (a tag continued on
                       the next line leaves "[-r" hanging)
  man/M options        every option P --help lists is in the page, and
                       every option the page lists (its tags) is in --help

Usage: check-tools.py --bin DIR --programs "P..." [--links "L=P..."]
                      --man "PAGE..."
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

failed = False


def result(ok, name, why=""):
    global failed
    if ok:
        print("RESULT pass %s" % name)
    else:
        failed = True
        print("RESULT fail %s: %s" % (name, why))


def run(argv, timeout=20):
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=timeout, env=dict(os.environ, LC_ALL="C.UTF-8"))
    except subprocess.TimeoutExpired:
        return None
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def first(text):
    return text.splitlines()[0] if text.strip() else "(nothing)"


def check_tool(path, prog):
    """--help, --version and a bad option; the --help text, or None."""
    r = run([path, "--help"])
    helptext = None
    if r is None:
        result(False, "tools/%s --help" % prog, "did not end within 20 s")
    else:
        rc, out, err = r
        ok = rc == 0 and out.startswith("Usage:") and not err
        result(ok, "tools/%s --help" % prog,
               "exit %d, stdout starts %r, stderr %r" % (rc, first(out), first(err)))
        helptext = out if rc == 0 else out + err
    r = run([path, "--version"])
    if r is None:
        result(False, "tools/%s --version" % prog, "did not end within 20 s")
    else:
        rc, out, err = r
        ok = rc == 0 and not err and re.match(
            r"%s (\(naobody\) )?[0-9a-zA-Z][^ ]*( |$)" % re.escape(prog), first(out))
        result(bool(ok), "tools/%s --version" % prog,
               "exit %d, first line %r, stderr %r" % (rc, first(out), first(err)))
    r = run([path, "--no-such-option"])
    if r is None:
        result(False, "tools/%s refuses an unknown option" % prog, "did not end within 20 s")
    else:
        rc, out, err = r
        result(rc == 2 and not out and err.strip(), "tools/%s refuses an unknown option" % prog,
               "exit %d (2 expected), stdout %r, stderr %r" % (rc, first(out), first(err)))
    return helptext


OPT = re.compile(r"(?:^|(?<=[\s,|\[(]))(--?[A-Za-z][A-Za-z0-9-]*)")


def help_options(text):
    """Options a --help text lists: its lines that start with an option,
    up to the description column (two spaces)."""
    opts = set()
    for line in text.splitlines():
        s = line.strip()
        if not s.startswith("-"):
            continue
        spec = re.split(r"\s{2,}", s)[0]
        opts.update(o.rstrip("-") for o in OPT.findall(spec))
    return opts


def unescape(s):
    """A roff line's text: fonts, hyphens and the like resolved."""
    s = s.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")
    s = re.sub(r"\\f(\[[^]]*\]|\(..|.)", "", s)
    s = re.sub(r"\\\((em|en|aq|dq|lq|rq)", " ", s)
    s = re.sub(r"\\s[-+]?\d", "", s)
    return s


def macro_args(line):
    """The arguments of a macro line, as roff splits them."""
    rest = line.split(None, 1)[1] if len(line.split(None, 1)) > 1 else ""
    args, cur, quoted, i = [], "", False, 0
    while i < len(rest):
        c = rest[i]
        if quoted:
            if c == '"':
                if rest[i + 1:i + 2] == '"':
                    cur += '"'
                    i += 1
                else:
                    quoted = False
            else:
                cur += c
        elif c == '"':
            quoted = True
        elif c in " \t":
            if cur:
                args.append(cur)
            cur = ""
            while i + 1 < len(rest) and rest[i + 1] in " \t":
                i += 1
            i += 1
            continue
        else:
            cur += c
        i += 1
    if cur or quoted:
        args.append(cur)
    return args


ALTERNATING = {".BR", ".RB", ".BI", ".IB", ".IR", ".RI"}


def lint_source(src):
    """Problems no formatter warns about: run-together words, split tags."""
    problems = []
    lines = src.splitlines()
    for n, line in enumerate(lines, 1):
        word = line.split(None, 1)[0] if line.strip() else ""
        if word in ALTERNATING:
            args = [unescape(a) for a in macro_args(line)]
            for a, b in zip(args, args[1:]):
                # two words meeting (not a font change inside one, as in
                # "\fIN\fRth" or "width\fBx\fRheight"), or a sentence's
                # end meeting the next
                if not a.strip() or not b.strip():
                    continue
                wa, wb = a.split()[-1], b.split()[0]
                if (a[-1].isalpha() and b[0].isalpha() and len(wa) >= 3 and len(wb) >= 3 or
                        a[-1] in ".,;" and b[0].isupper()):
                    problems.append("line %d: %s joins %r and %r" % (n, word, a, b))
        if word == ".TP" and n < len(lines):
            tag = lines[n]
            text = unescape(" ".join(macro_args(tag)) if tag.startswith(".") else tag)
            for o, c in ("[]", "()"):
                if text.count(o) != text.count(c):
                    problems.append("line %d: the .TP tag %r is not whole on its line" % (n + 1, text))
                    break
    return problems


def check_render(page):
    name = "man/%s renders" % os.path.basename(page)
    if not os.path.exists(page):
        result(False, name, "missing")
        return
    env = dict(os.environ, LC_ALL="C.UTF-8")
    p = subprocess.run(["groff", "-man", "-ww", "-z", "-t", page], capture_output=True, env=env)
    why = p.stderr.decode(errors="replace").strip()
    if not why and shutil.which("mandoc"):
        p = subprocess.run(["mandoc", "-T", "lint", "-W", "warning", page], capture_output=True, env=env)
        why = (p.stdout + p.stderr).decode(errors="replace").strip()
    if not why:
        with open(page, encoding="utf-8") as f:
            why = "; ".join(lint_source(f.read())[:3])
    result(not why, name, " ".join(why.splitlines()[:3]))


def page_options(src):
    """Options the page lists: the .TP tags that start with one."""
    opts = set()
    lines = src.splitlines()
    for n, line in enumerate(lines):
        if line.startswith(".TP") and n + 1 < len(lines):
            tag = lines[n + 1]
            text = unescape(" ".join(macro_args(tag)) if tag.startswith(".") else tag).strip()
            if text.startswith("-"):
                spec = re.split(r"\s{2,}", text)[0]
                for o in OPT.findall(spec):
                    opts.add(o.rstrip("-"))
    return opts


def check_options(page, prog, helptext, both_ways=True):
    with open(page, encoding="utf-8") as f:
        src = f.read()
    text = unescape(src)
    listed = help_options(helptext)
    missing = sorted(o for o in listed
                     if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), text))
    result(not missing, "man/%s has every option of %s --help" % (os.path.basename(page), prog),
           "not in the page: " + " ".join(missing))
    if not both_ways:
        return
    extra = sorted(page_options(src) - listed)
    result(not extra, "man/%s lists no option %s --help lacks" % (os.path.basename(page), prog),
           "not in --help: " + " ".join(extra))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--programs", default="")
    ap.add_argument("--links", default="")
    ap.add_argument("--man", default="")
    a = ap.parse_args()
    pages = {}
    for m in a.man.split():
        base = os.path.basename(m)
        pages[base.rsplit(".", 1)[0]] = m
        check_render(m)
    tools = [(p, p) for p in a.programs.split()]
    tools += [tuple(l.split("=", 1)) for l in a.links.split()]
    for prog, target in tools:
        path = os.path.join(a.bin, prog)
        if not os.access(path, os.X_OK):
            result(False, "tools/%s --help" % prog, "%s is not built" % path)
            continue
        helptext = check_tool(path, prog)
        page = pages.get(prog) or pages.get(target)
        if page and helptext is not None:
            # another name of a program: its own options are in the page
            check_options(page, prog, helptext, both_ways=prog == target)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
