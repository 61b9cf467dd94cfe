#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Documentation checks, one RESULT line each:
#   - every program (PROGRAMS) has a man page among MAN_PAGES;
#   - every man page renders without a warning (groff, mandoc), and every
#     tool answers --help, --version and a bad option as GNU tools do, with
#     the same options in --help and its man page (check-tools.py);
#   - every reST page under Documentation/ parses without a warning.
# Environment (from the Makefile): PROGRAMS, PROGRAM_LINKS, MAN_PAGES, BIN.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/.." && pwd)
failed=0

pass() { echo "RESULT pass docs/$1"; }
fail() { failed=1; echo "RESULT fail docs/$1: $2"; }

for p in ${PROGRAMS:-}; do
	found=
	for m in ${MAN_PAGES:-}; do
		case "$(basename "$m")" in "$p".[1-8]) found=$m ;; esac
	done
	if [[ -n $found ]]; then
		pass "man page for $p"
	else
		fail "man page for $p" "no $p.1 or $p.8 in MAN_PAGES"
	fi
done

# Every man page renders cleanly; every tool answers --help, --version and
# a bad option as GNU tools do, and its --help and man page list the same
# options (scripts/check-tools.py).
/usr/bin/python3 "$here/check-tools.py" --bin "${BIN:-$srctree/build/bin}" \
	--programs "${PROGRAMS:-}" --links "${PROGRAM_LINKS:-}" --man "${MAN_PAGES:-}" || failed=1

# The README is the first thing a user reads: two screens (100 lines), and
# nothing of the project's own bookkeeping there or in the status page
# ("issue 19's start", "the issue asks 95").
lines=$(wc -l <"$srctree/README.md")
if [[ $lines -le 100 ]]; then
	pass "README.md fits on two screens"
else
	fail "README.md fits on two screens" "$lines lines, over 100"
fi
refs=$(grep -HniE "\bissues? [0-9]+|the issue (asks|says)" "$srctree/README.md" \
	"$srctree/Documentation/status.rst" "$srctree/Documentation/index.rst" 2>/dev/null)
if [[ -z $refs ]]; then
	pass "README and status page name no internal issue"
else
	fail "README and status page name no internal issue" "$(echo "$refs" | head -2 | tr '\n' ' ')"
fi

while IFS= read -r rst; do
	out=$(/usr/bin/python3 - "$rst" 2>&1 <<'PY'
import sys
import docutils.core
import docutils.utils

src = open(sys.argv[1], encoding="utf-8").read()
docutils.core.publish_doctree(
    src, source_path=sys.argv[1],
    settings_overrides={"report_level": 2, "halt_level": 2, "warning_stream": sys.stderr},
)
PY
)
	if [[ $? -eq 0 ]]; then
		pass "${rst#"$srctree"/} parses"
	else
		fail "${rst#"$srctree"/} parses" "$(echo "$out" | grep -m1 -E 'WARNING|ERROR|SEVERE' || echo "$out" | tail -1)"
	fi
done < <(find "$srctree/Documentation" -name '*.rst' | sort)
exit $failed
