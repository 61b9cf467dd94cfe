#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Documentation checks, one RESULT line each:
#   - every program (PROGRAMS) has a man page among MAN_PAGES;
#   - every man page renders with groff without a warning;
#   - every reST page under Documentation/ parses without a warning.
# Environment (from the Makefile): PROGRAMS, MAN_PAGES.
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

for m in ${MAN_PAGES:-}; do
	out=$(LC_ALL=C.UTF-8 groff -man -ww -z -t "$m" 2>&1)
	if [[ ! -e $m ]]; then
		fail "${m#"$srctree"/} renders" "missing"
	elif [[ -n $out ]]; then
		fail "${m#"$srctree"/} renders" "$(echo "$out" | head -3 | tr '\n' ' ')"
	else
		pass "${m#"$srctree"/} renders"
	fi
done

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
