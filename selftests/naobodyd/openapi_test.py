#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Documentation/rest-api.yaml is a valid OpenAPI document: Redocly's
linter from the npm registry (make deps installs it into the cache), and
its schemas are valid JSON Schema for python3-jsonschema. TAP."""

import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import jsonschema  # noqa: E402

from nbtest import Tap, check, note  # noqa: E402
from resttest import SPEC, SPEC_PATH  # noqa: E402

tap = Tap()
CACHE = os.environ.get("NAOBODY_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "naobody")
REDOCLY = os.path.join(CACHE, "npm", "node_modules", ".bin", "redocly")


@tap.test
def test_redocly_lint():
    """redocly lint: no error and no warning (Event is used by the SSE stream, not a path)"""
    r = subprocess.run([REDOCLY, "lint", "--skip-rule", "no-unused-components", SPEC_PATH],
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, NO_COLOR="1", REDOCLY_TELEMETRY="off",
                                REDOCLY_SUPPRESS_UPDATE_NOTICE="true"))
    out = r.stdout + r.stderr
    check(r.returncode == 0, f"redocly lint failed:\n{out[-3000:]}")
    check("warning" not in out.lower().replace("deprecation warning", ""),
          f"redocly lint warned:\n{out[-3000:]}")
    note("redocly lint: valid")


@tap.test
def test_schemas_are_json_schema():
    """every component schema is valid JSON Schema 2020-12"""
    for name, schema in SPEC["components"]["schemas"].items():
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as e:
            raise AssertionError(f"{name}: {e.message}")
    note(f"{len(SPEC['components']['schemas'])} schemas")


if __name__ == "__main__":
    if not os.access(REDOCLY, os.X_OK):
        print(f"1..0 # SKIP {REDOCLY} missing: make deps installs @redocly/cli")
        sys.exit(0)
    tap.run()
