#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# make demo needs nothing but Debian's mirror (issue 32): its `make deps`
# (scripts/deps.sh --demo) leaves out the OpenAPI linter, which comes from
# the npm registry and only make check's tests use, so an unreachable
# registry cannot fail the demo. An npm that records its calls stands in
# for the real one, and an empty cache (but for the kernel source files,
# marked unpacked) makes deps.sh want the linter. Needs what make deps
# installed: it runs after it in make check.
set -u
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/../.." && pwd)
. "$srctree/selftests/lib/tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
cat >"$tmp/bin/npm" <<SH
#!/bin/sh
echo "npm \$*" >>"$tmp/npm.log"
[ "\$1 \$2" = "config get" ] && exit 0
exit 1
SH
chmod +x "$tmp/bin/npm"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null)
mkdir -p "$tmp/cache/linux-source-$srcver"
touch "$tmp/cache/linux-source-$srcver/.complete"

tap_plan 2
if [ -z "$srcver" ]; then
	skip "make deps for the demo leaves npm alone" "make deps has not run"
	skip "make deps for the checks installs the OpenAPI linter with npm" "make deps has not run"
	tap_done
	exit
fi
deps() { PATH="$tmp/bin:$PATH" NAOBODY_CACHE="$tmp/cache" "$srctree/scripts/deps.sh" "$@" >"$tmp/out" 2>&1; }
rm -f "$tmp/npm.log"
if deps --demo && [ ! -e "$tmp/npm.log" ]; then
	ok "make deps for the demo leaves npm alone"
else
	not_ok "make deps for the demo leaves npm alone"
	sed 's/^/#   /' "$tmp/out" "$tmp/npm.log" 2>/dev/null | tail -n 8
fi
rm -f "$tmp/npm.log"
deps
if grep -q "^npm install .*@redocly/cli@" "$tmp/npm.log" 2>/dev/null; then
	ok "make deps for the checks installs the OpenAPI linter with npm"
else
	not_ok "make deps for the checks installs the OpenAPI linter with npm"
	sed 's/^/#   /' "$tmp/out" | tail -n 8
fi
tap_done
