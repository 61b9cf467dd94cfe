# SPDX-License-Identifier: GPL-2.0-only
"""Helpers for the REST API's tests: a plain HTTP client (http.client, no
library of ours), a Server-Sent Events reader, and the OpenAPI document's
schemas (Documentation/rest-api.yaml) through Debian's python3-jsonschema,
against which every answer is validated. Run with /usr/bin/python3."""

import http.client
import json
import os
import re
import socket
import time

import jsonschema
import yaml

from nbtest import BODY_HANG, SRCTREE, check, wait_for

# In the VM the document comes beside this file (naobodyd_vm_VM_FILES).
SPEC_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rest-api.yaml")
if not os.path.exists(SPEC_PATH):
    SPEC_PATH = os.path.join(SRCTREE, "Documentation", "rest-api.yaml")
with open(SPEC_PATH) as _f:
    SPEC = yaml.safe_load(_f)
_RESOLVER = jsonschema.RefResolver.from_schema(SPEC)


def validate(schema, value, what):
    """value against a schema of the document ({"$ref": ...} or inline)."""
    v = jsonschema.Draft202012Validator(schema, resolver=_RESOLVER)
    errors = sorted(v.iter_errors(value), key=lambda e: list(e.path))
    check(not errors, f"{what} does not match the OpenAPI schema: "
          + "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:3]) + f"\n  {value!r:.400}")


def schema_ref(name):
    return {"$ref": f"#/components/schemas/{name}"}


def _path_item(path):
    """The document's path item for a request's path: exact, or a template
    whose {parameters} stand for one segment each (/serial/{name})."""
    if path in SPEC["paths"]:
        return SPEC["paths"][path]
    for template, item in SPEC["paths"].items():
        if "{" in template and template != "/{file}" and re.fullmatch(  # files: not here
                re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template)), path):
            return item
    return {}


def validate_response(path, method, status, body, ctype="application/json"):
    """The answer is one the document lists for path and method, and its
    body matches that answer's schema. Unknown paths answer Error."""
    op = _path_item(path).get(method.lower())
    if op is None:
        check(status in (404, 405, 403), f"{method} {path}: {status} for a path or method "
              "the document does not list")
        validate(schema_ref("Error"), body, f"{method} {path} {status}")
        return
    resp = op["responses"].get(str(status))
    check(resp is not None, f"{method} {path}: status {status} is not in the document")
    if "$ref" in resp:
        resp = SPEC["components"]["responses"][resp["$ref"].rsplit("/", 1)[1]]
    content = resp.get("content", {})
    check(ctype in content, f"{method} {path} {status}: {ctype} is not documented")
    if ctype == "application/json":
        validate(content[ctype]["schema"], body, f"{method} {path} {status}")


class Answer:
    def __init__(self, status, headers, raw):
        self.status = status
        self.headers = headers
        self.raw = raw
        ctype = headers.get("Content-Type", "")
        self.json = json.loads(raw) if ctype.startswith("application/json") and raw else None

    def __repr__(self):
        return f"<{self.status} {self.raw[:300]!r}>"


def request(port, method, path, token=None, body=None, headers=None, host="127.0.0.1",
            source=None, timeout=5, check_schema=True):
    """One request on its own connection; the answer validated against the
    document unless check_schema is false."""
    h = dict(headers or {})
    if token is not None:
        h["Authorization"] = f"Bearer {token}"
    c = http.client.HTTPConnection(host, port, timeout=timeout,
                                   source_address=(source, 0) if source else None)
    try:
        try:
            c.request(method, path, body=body, headers=h)
        except (BrokenPipeError, ConnectionResetError) as e:
            # The daemon answered before it read the whole request (the
            # gate's refusals do) and closed: say what it answered, if the
            # answer can still be read, rather than only that the pipe broke.
            try:
                r = c.getresponse()
                early = f"it answered {r.status} {r.read()[:300]!r}"
            except (OSError, http.client.HTTPException) as e2:
                early = f"no answer could be read ({e2!r})"
            raise AssertionError(f"{method} {path}: the connection broke while the request "
                                 f"was sent ({e!r}); {early}") from e
        r = c.getresponse()
        a = Answer(r.status, dict(r.getheaders()), r.read())
    finally:
        c.close()
    if check_schema:
        validate_response(path.split("?")[0], method, a.status, a.json)
        if a.status >= 400:
            check(a.json and len(a.json.get("message", "")) > 10,
                  f"{method} {path}: {a.status} without a message saying what to fix")
    return a


def first_state(d, token, source=None):
    """Wait for the body's first State over REST (503 no_state before it, on
    a busy machine seconds after the ports listen); the bound a hang's."""
    wait_for(lambda: request(d.rest_port, "GET", "/state", token, source=source).status == 200,
             BODY_HANG, "the body's first State over REST")


def token_of(daemon):
    with open(os.path.join(daemon.state_dir, "rest-token")) as f:
        return f.read().strip()


class Sse:
    """A Server-Sent Events stream from GET /events, read by hand from a
    socket (the protocol, not a library's idea of it)."""

    def __init__(self, port, token, query="", host="127.0.0.1", rcvbuf=None, timeout=5,
                 validate=True):
        self.validate = validate
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        self.sock.connect((host, port))
        self.sock.sendall(f"GET /events{query} HTTP/1.1\r\nHost: localhost\r\n"
                          f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n"
                          "\r\n".encode())
        self.buf = b""
        head = self._until(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        self.status = int(lines[0].split()[1])
        self.headers = dict(ln.split(": ", 1) for ln in lines[1:] if ": " in ln)
        self.chunked = self.headers.get("Transfer-Encoding", "").lower() == "chunked"
        self.text = ""

    def _recv(self):
        d = self.sock.recv(65536)
        if not d:
            raise EOFError("the stream ended")
        self.buf += d

    def _until(self, sep):
        while sep not in self.buf:
            self._recv()
        out, self.buf = self.buf.split(sep, 1)
        return out

    def _more_text(self):
        if not self.chunked:
            self._recv()
            self.text += self.buf.decode()
            self.buf = b""
            return
        size = int(self._until(b"\r\n").split(b";")[0], 16)
        if size == 0:
            raise EOFError("the stream ended")
        while len(self.buf) < size + 2:
            self._recv()
        self.text += self.buf[:size].decode()
        self.buf = self.buf[size + 2:]

    def next(self):
        """(event, data as JSON), the next message."""
        while "\n\n" not in self.text:
            self._more_text()
        msg, self.text = self.text.split("\n\n", 1)
        fields = dict(ln.split(": ", 1) for ln in msg.split("\n") if ": " in ln)
        data = json.loads(fields["data"])
        kind = fields["event"]
        if not self.validate:
            pass
        elif kind == "state":
            validate(schema_ref("State"), data, "an SSE state")
        elif kind not in ("keepalive", "dropped"):
            validate(schema_ref("Event"), data, f"an SSE {kind} event")
        return kind, data

    def expect(self, pred, timeout=5, what="an event"):
        end = time.monotonic() + timeout
        seen = []
        while time.monotonic() < end:
            kind, data = self.next()
            if pred(kind, data):
                return kind, data
            seen.append(kind)
        raise AssertionError(f"no {what} within {timeout} s; saw {seen[-10:]}")

    def close(self):
        self.sock.close()
