#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The status page's static files on the REST port (rest_static.c): served
without the token, with their content types and caching headers, GET and
HEAD only; nothing outside the --www directory however the path is
spelt, no symbolic link, FIFO or directory; the API's paths keep their
token. Requests are written by hand on a socket where a client library
would tidy the path. TAP."""

import os
import shutil
import socket
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nbtest import SRCTREE, Daemon, Tap, check, note  # noqa: E402
from resttest import first_state, request, token_of, validate_response  # noqa: E402

tap = Tap()
WWW = os.path.join(SRCTREE, "userspace", "naobodyd", "www")
SECRET = "outside-the-www-directory-d41d8cd9"


def raw(port, line, headers=(), timeout=5):
    """One request sent byte for byte: (status, headers, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout) as s:
        s.settimeout(timeout)
        s.sendall(line.encode("latin-1") + b"\r\nHost: localhost\r\nConnection: close\r\n"
                  + b"".join(h.encode() + b"\r\n" for h in headers) + b"\r\n")
        data = b""
        while True:
            d = s.recv(65536)
            if not d:
                break
            data += d
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    hdrs = {k.lower(): v for k, v in (ln.split(": ", 1) for ln in lines[1:] if ": " in ln)}
    return int(lines[0].split()[1]), hdrs, body


def www_copy(tmp):
    """The page's files in a directory of the test's, with traps beside and in it."""
    root = os.path.join(tmp, "root")
    www = os.path.join(root, "www")
    shutil.copytree(WWW, www)
    for name in ("outside.txt", "outside.html"):
        with open(os.path.join(root, name), "w") as f:
            f.write(SECRET)
    os.symlink("../outside.txt", os.path.join(www, "link.txt"))
    os.symlink("/etc/passwd", os.path.join(www, "passwd.txt"))
    os.mkfifo(os.path.join(www, "fifo.html"))
    os.mkdir(os.path.join(www, "sub.html"))
    os.mkdir(os.path.join(www, "sub"))
    for name, text in (("sub/inner.html", SECRET), (".hidden.txt", SECRET),
                       ("data.bin", SECRET), ("notes.md", SECRET)):
        with open(os.path.join(www, name), "w") as f:
            f.write(text)
    return www


@tap.test
def test_served_without_token():
    """/ is index.html, no token needed; each file with its type, no-cache, an ETag, nosniff, a CSP"""
    with Daemon("--www", WWW, rest=True) as d:
        types = {"/": "text/html; charset=utf-8", "/index.html": "text/html; charset=utf-8",
                 "/status.css": "text/css; charset=utf-8",
                 "/status.js": "text/javascript; charset=utf-8"}
        for path, ctype in types.items():
            a = request(d.rest_port, "GET", path, check_schema=False)
            name = "index.html" if path == "/" else path[1:]
            with open(os.path.join(WWW, name), "rb") as f:
                check(a.status == 200 and a.raw == f.read(), f"GET {path}: {a}")
            h = a.headers
            check(h.get("Content-Type") == ctype, f"{path}: Content-Type {h.get('Content-Type')}")
            validate_response("/" if path == "/" else "/{file}", "GET", a.status, None,
                              ctype.split(";")[0])
            check(h.get("Cache-Control") == "no-cache", f"{path}: Cache-Control {h}")
            check(h.get("ETag", "").startswith('"'), f"{path}: no ETag: {h}")
            check(h.get("X-Content-Type-Options") == "nosniff", f"{path}: no nosniff")
            csp = h.get("Content-Security-Policy", "")
            check("default-src 'none'" in csp and "connect-src 'self'" in csp and
                  "frame-ancestors 'none'" in csp, f"{path}: CSP {csp!r}")
        # The page itself holds no token, and the API still wants one.
        t = token_of(d)
        check(t.encode() not in request(d.rest_port, "GET", "/", check_schema=False).raw,
              "the token is in the page")
        check(request(d.rest_port, "GET", "/state").status == 401, "/state without the token")
        # (503 until the body's first state: the daemon may have just started.)
        first_state(d, t)
        # A query string does not change the file.
        check(request(d.rest_port, "GET", "/?x=1", check_schema=False).status == 200, "/?x=1")


@tap.test
def test_head_etag_methods():
    """HEAD: the headers without the body; If-None-Match: 304; a replaced file: a new ETag; POST: 405"""
    with Daemon("--www", WWW, rest=True) as d:
        st, h, body = raw(d.rest_port, "GET /status.js HTTP/1.1")
        st2, h2, body2 = raw(d.rest_port, "HEAD /status.js HTTP/1.1")
        check(st == st2 == 200, f"GET {st}, HEAD {st2}")
        check(body2 == b"" and len(body) == os.path.getsize(os.path.join(WWW, "status.js")),
              f"HEAD sent {len(body2)} bytes; GET {len(body)}")
        check(h2.get("content-length") == h.get("content-length") == str(len(body)),
              f"Content-Length {h.get('content-length')} / {h2.get('content-length')}")
        check(h2.get("etag") == h.get("etag"), "HEAD and GET differ in ETag")
        st, h3, body = raw(d.rest_port, "GET /status.js HTTP/1.1", [f"If-None-Match: {h['etag']}"])
        check(st == 304 and body == b"" and h3.get("etag") == h["etag"], f"If-None-Match: {st} {h3}")
        st, _, _ = raw(d.rest_port, "GET /status.js HTTP/1.1", ['If-None-Match: "other"'])
        check(st == 200, f"another ETag: {st}")
        for method in ("POST", "PUT", "DELETE"):
            a = request(d.rest_port, method, "/index.html", body=b"x", check_schema=False)
            check(a.status == 405 and a.headers.get("Allow") == "GET, HEAD" and
                  a.json["error"] == "method_not_allowed", f"{method} /index.html: {a}")
        # POST / is the page too: 405, not a way past the token to anything.
        a = request(d.rest_port, "POST", "/", check_schema=False)
        check(a.status == 405, f"POST /: {a}")
    # A file replaced (an upgrade renames a new one in): a new ETag, the new bytes.
    with Daemon(rest=True) as d0:
        www = www_copy(d0.tmp.name)
        with Daemon("--www", www, rest=True) as d:
            _, h, _ = raw(d.rest_port, "GET /status.css HTTP/1.1")
            new = os.path.join(www, "status.css.new")
            with open(new, "w") as f:
                f.write("body { color: red; }\n")
            os.rename(new, os.path.join(www, "status.css"))
            st, h2, body = raw(d.rest_port, "GET /status.css HTTP/1.1",
                               [f"If-None-Match: {h['etag']}"])
            check(st == 200 and body == b"body { color: red; }\n" and h2["etag"] != h["etag"],
                  f"after the replacement: {st} {h2.get('etag')} {body[:40]!r}")


@tap.test
def test_no_way_out():
    """no path leaves --www: dot-dot in every spelling, links, FIFOs, directories, hidden and unlisted files: 404"""
    with Daemon(rest=True) as d0:
        www = www_copy(d0.tmp.name)
        with Daemon("--www", www, rest=True) as d:
            paths = ["/../outside.txt", "/..%2foutside.txt", "/%2e%2e/outside.txt",
                     "/%2e%2e%2foutside.txt", "/..%5coutside.txt", "/..\\outside.txt",
                     "//outside.txt", "/./index.html", "/%2e/index.html", "/sub/inner.html",
                     "/sub%2finner.html", "/sub/../index.html", "/sub/../../outside.txt",
                     "/sub%2f..%2f..%2foutside.txt", "/" + os.path.join(www, "index.html"),
                     "/link.txt", "/passwd.txt", "/fifo.html", "/sub.html", "/.hidden.txt",
                     "/data.bin", "/notes.md", "/..%00/outside.txt", "/index.html/",
                     "/" + "a" * 70 + ".html", "/-x.html", "/index.HTML", "/index"]
            t0 = time.monotonic()
            for path in paths:
                st, h, body = raw(d.rest_port, f"GET {path} HTTP/1.1")
                check(st in (400, 404), f"GET {path}: {st} {body[:80]!r}")
                check(SECRET.encode() not in body and b"root:" not in body,
                      f"GET {path} leaked a file: {body[:80]!r}")
                check(h.get("content-type") in ("application/json", None), f"{path}: {h}")
            # libmicrohttpd decodes %00 and the path ends there: the name
            # before it, a file of the directory, or nothing.
            st, _, body = raw(d.rest_port, "GET /index.html%00/../../outside.txt HTTP/1.1")
            with open(os.path.join(www, "index.html"), "rb") as f:
                check((st == 200 and body == f.read()) or st == 404, f"%00: {st} {body[:60]!r}")
            # The FIFO did not hold a thread in open(): all of it took no time.
            # (A FIFO opened for reading holds its thread until the 10 s idle limit.)
            check(time.monotonic() - t0 < 5, f"{len(paths)} refusals took {time.monotonic() - t0:.1f} s")
            # Still serving.
            st, _, _ = raw(d.rest_port, "GET / HTTP/1.1")
            check(st == 200, f"GET / after them: {st}")
            note(f"{len(paths)} paths refused")


@tap.test
def test_not_installed():
    """no --www directory: / is a 404 that says so, the API answers; --no-www: a plain 404"""
    with Daemon("--www", "/nonexistent/naobodyd/www", rest=True) as d:
        a = request(d.rest_port, "GET", "/", check_schema=False)
        validate_response("/", "GET", a.status, a.json)
        check(a.status == 404 and "not installed" in a.json["message"] and
              "--www" in a.json["message"], f"GET / without the files: {a}")
        check("no status page at /" in d.log(), "no log line about the missing page")
        check(request(d.rest_port, "GET", "/robot", token_of(d)).status == 200, "the API")
    with Daemon("--no-www", rest=True) as d:
        a = request(d.rest_port, "GET", "/", check_schema=False)
        check(a.status == 404 and a.json["error"] == "not_found", f"--no-www: {a}")


@tap.test
def test_no_fd_leak_valgrind():
    """320 answers of every kind leave no fd open; under valgrind: no memory error, no leak"""
    def every_kind(d, etag):
        for line, hdrs in (("GET / HTTP/1.1", ()), ("HEAD /status.js HTTP/1.1", ()),
                           ("GET /status.css HTTP/1.1", (f"If-None-Match: {etag}",)),
                           ("POST /index.html HTTP/1.1", ("Content-Length: 0",)),
                           ("GET /../outside.txt HTTP/1.1", ()), ("GET /fifo.html HTTP/1.1", ()),
                           ("GET /link.txt HTTP/1.1", ()), ("GET /sub.html HTTP/1.1", ())):
            raw(d.rest_port, line, hdrs, timeout=20)

    with Daemon(rest=True) as d0:
        www = www_copy(d0.tmp.name)
        with Daemon("--www", www, rest=True) as d:
            etag = raw(d.rest_port, "GET /status.css HTTP/1.1")[1]["etag"]
            every_kind(d, etag)
            fds = len(os.listdir(f"/proc/{d.proc.pid}/fd"))
            for _ in range(40):
                every_kind(d, etag)
            time.sleep(0.2)  # the last connections' threads end
            after = len(os.listdir(f"/proc/{d.proc.pid}/fd"))
            check(after <= fds, f"{fds} fds before 320 answers, {after} after")
            note(f"fds: {fds} before, {after} after 320 answers")
        if not shutil.which("valgrind"):
            raise RuntimeError("valgrind is not installed (make deps)")
        wrapper = ["valgrind", "--quiet", "--leak-check=full",
                   "--show-leak-kinds=definite,indirect",
                   "--errors-for-leak-kinds=definite,indirect", "--error-exitcode=99"]
        with Daemon("--www", www, rest=True, wrapper=wrapper, wait=False) as d:
            d.wait_ready(60)
            every_kind(d, etag)
            every_kind(d, raw(d.rest_port, "GET /status.css HTTP/1.1", timeout=20)[1]["etag"])
            d.stop(60)
            check(d.proc.returncode == 0, f"exit {d.proc.returncode} under valgrind:\n"
                  + d.log()[-3000:])


if __name__ == "__main__":
    tap.run()
