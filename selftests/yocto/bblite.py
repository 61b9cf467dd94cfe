# SPDX-License-Identifier: GPL-2.0-only
"""A strict reader of BitBake metadata (recipes, include files, layer.conf)
for the layer's tests, where no BitBake runs: each line is checked against
the grammar BitBake 2.x accepts, and the variables are evaluated the way
BitBake would for the few operators and overrides the layer uses, so that
the tests can run a task's shell body with its variables expanded.

Not BitBake: it knows the operators (=, ?=, ??=, :=, +=, =+, .=, =.), the
:append/:prepend/:remove and :${PN} overrides, export, inherit, require and
include, shell and python function definitions, addtask, and ${@...} with
d.getVar and os.path; anything else is reported as an error, and so is the
old override syntax (_append, RDEPENDS_${PN}) that BitBake 2.0 refuses.
"""

import os
import re

ASSIGN = re.compile(
    r'^(?P<export>export\s+)?(?P<var>[A-Za-z0-9_${}/+.-]+(?::[A-Za-z0-9_${}+.-]+)*)'
    r'(?:\[(?P<flag>[a-z_]+)\])?\s*(?P<op>\?\?=|\?=|:=|\+=|=\+|\.=|=\.|=)\s*"(?P<val>.*)"\s*$',
    re.S)
FUNC = re.compile(r'^(?P<python>python\s+)?(?P<name>[A-Za-z0-9_${}:-]*)\s*\(\)\s*\{\s*$')
INHERIT = re.compile(r'^inherit\s+(?P<classes>[A-Za-z0-9_${} -]+)$')
REQUIRE = re.compile(r'^(?P<kind>require|include)\s+(?P<path>\S+)$')
ADDTASK = re.compile(r'^addtask\s+\S+(\s+(after|before)\s+[\w\s]+)?$')
OLD_OVERRIDE = re.compile(r'_(append|prepend|remove)\b|_\$\{PN\}|_pn-')


class BBError(Exception):
    pass


class Data:
    """Variables and functions of one recipe (or of layer.conf)."""

    def __init__(self, defaults=None):
        self.vars = dict(defaults or {})
        self.flags = {}
        self.funcs = {}
        self.exports = set()
        self.inherits = []
        self.pending = []  # (var, op, value) of :append/:prepend/:remove

    def getVar(self, name, expand=True):
        v = self.vars.get(name)
        if v is None:
            return None
        return self.expand(v) if expand else v

    def setVar(self, name, value):
        self.vars[name] = value

    def expand(self, s, depth=0):
        if depth > 20:
            raise BBError(f"recursive expansion in {s!r}")

        def python(m):
            code = m.group(1)
            return str(eval(code, {"d": self, "os": os}))  # noqa: S307 (our own recipes)

        def var(m):
            v = self.vars.get(m.group(1))
            if v is None:
                return m.group(0)  # BitBake leaves an unknown variable as it is
            return self.expand(v, depth + 1)
        prev = None
        while prev != s:
            prev = s
            s = re.sub(r"\$\{([A-Za-z0-9_:+.-]+)\}", var, s)
            s = re.sub(r"\$\{@(.+?)\}(?![^{]*\})", python, s)
        return s


def logical_lines(path):
    """(line number, text) with backslash continuations joined."""
    out = []
    buf, start = "", None
    with open(path) as f:
        for i, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if start is None:
                start = i
            if line.endswith("\\"):
                buf += line[:-1] + " "
                continue
            out.append((start, buf + line))
            buf, start = "", None
    if buf:
        raise BBError(f"{path}:{start}: a continuation line ends the file")
    return out


def parse(path, d, search=()):
    """Read path into d. search: directories require/include look in (BBPATH)."""
    lines = logical_lines(path)
    i = 0
    while i < len(lines):
        no, text = lines[i]
        i += 1
        where = f"{os.path.basename(path)}:{no}"
        s = text.strip()
        if not s or s.startswith("#"):
            continue
        m = FUNC.match(s)
        if m:
            body = []
            while True:
                if i >= len(lines):
                    raise BBError(f"{where}: function {m.group('name')} has no closing brace")
                bno, btext = lines[i]
                i += 1
                if btext == "}":
                    break
                body.append(btext)
            name = d.expand(m.group("name"))
            d.funcs[name] = ("python" if m.group("python") else "shell", "\n".join(body))
            continue
        m = ASSIGN.match(s)
        if m:
            var = m.group("var")
            if OLD_OVERRIDE.search(var):
                raise BBError(f"{where}: {var}: the old override syntax (BitBake 2 wants ':')")
            if m.group("val").count('"') % 2 and '\\"' not in m.group("val"):
                raise BBError(f"{where}: unbalanced quotes in {var}")
            assign(d, d.expand(var), m.group("flag"), m.group("op"), m.group("val"), where)
            if m.group("export"):
                d.exports.add(var.split(":")[0])
            continue
        m = INHERIT.match(s)
        if m:
            d.inherits += d.expand(m.group("classes")).split()
            continue
        m = REQUIRE.match(s)
        if m:
            rel = d.expand(m.group("path"))
            cands = [os.path.join(os.path.dirname(path), rel)] + [os.path.join(p, rel) for p in search]
            found = next((c for c in cands if os.path.isfile(c)), None)
            if found:
                parse(found, d, search)
            elif m.group("kind") == "require":
                raise BBError(f"{where}: require {rel}: not found")
            continue
        if ADDTASK.match(s) or re.match(r"^EXPORT_FUNCTIONS\s", s):
            continue
        raise BBError(f"{where}: not BitBake syntax: {s[:80]}")


def assign(d, var, flag, op, val, where):
    if flag:
        d.flags[(var, flag)] = val
        return
    base, _, override = var.partition(":")
    if override in ("append", "prepend", "remove") or override.startswith(("append:", "prepend:")):
        d.pending.append((base, override.split(":")[0], val))
        return
    cur = d.vars.get(var)
    if op == "=":
        d.vars[var] = val
    elif op == "?=":
        if cur is None or var in d.vars.get("__weak__", set()):
            d.vars[var] = val
            d.vars.setdefault("__weak__", set()).discard(var)
    elif op == "??=":
        if cur is None or var in d.vars.get("__weak__", set()):
            d.vars[var] = val
            d.vars.setdefault("__weak__", set()).add(var)
    elif op == ":=":
        d.vars[var] = d.expand(val)
    elif op == "+=":
        d.vars[var] = (cur + " " + val) if cur else val
    elif op == "=+":
        d.vars[var] = (val + " " + cur) if cur else val
    elif op == ".=":
        d.vars[var] = (cur or "") + val
    elif op == "=.":
        d.vars[var] = val + (cur or "")
    else:
        raise BBError(f"{where}: operator {op}")


def finalize(d):
    """Apply :append, :prepend, :remove and the :${PN} overrides, as
    BitBake does at the end of parsing."""
    for base, kind, val in d.pending:
        cur = d.vars.get(base, "")
        if kind == "append":
            d.vars[base] = cur + val
        elif kind == "prepend":
            d.vars[base] = val + cur
        elif kind == "remove":
            drop = set(d.expand(val).split())
            d.vars[base] = " ".join(w for w in d.expand(cur).split() if w not in drop)
    d.pending = []
    d.vars.pop("__weak__", None)
    return d
