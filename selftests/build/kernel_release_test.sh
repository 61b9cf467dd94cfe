#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The first run on a fresh machine (issue 12): `make check` and `make demo`
# start with no kernel headers installed, run `make deps` (which installs
# them), then run sub-makes that build the modules. So the kernel release is
# unknown when the top make is parsed and known afterwards; every sub-make
# must find the headers then. A fake release script and a fake headers tree
# stand in for dpkg and /usr/src: the release script fails until the test
# "installs" the headers, the headers' Makefile only says it was called.
set -u
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/../.." && pwd)
. "$srctree/selftests/lib/tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rel=9.9.9-naobody-test

cat >"$tmp/kernel-release.sh" <<SH
#!/bin/sh
[ -e "$tmp/installed" ] && exec echo $rel
echo "kernel-release: linux-headers-amd64 is not installed; run 'make deps'" >&2
exit 1
SH
chmod +x "$tmp/kernel-release.sh"
mkdir -p "$tmp/src/linux-headers-$rel"
printf 'modules:\n\t@echo "fake kbuild: modules in $(CURDIR)"\n' \
	>"$tmp/src/linux-headers-$rel/Makefile"

# What scripts/check.sh and scripts/demo.sh do under `make check`/`make demo`:
# the top make's recipe installs the headers, then runs a sub-make.
cat >"$tmp/first-run.mk" <<'MK'
first-run:
	touch $(TEST_TMP)/installed
	$(MAKE) -C $(srctree) modules
MK

fake="KERNEL_RELEASE_SH=$tmp/kernel-release.sh KERNEL_HEADERS_ROOT=$tmp/src O=$tmp/build"
tap_plan 4

# 1. The release is unknown at parse time: modules says so and fails.
# shellcheck disable=SC2086 # $fake is a list of assignments
out=$(make -C "$srctree" --no-print-directory $fake modules 2>&1)
if [ $? -ne 0 ] && printf '%s\n' "$out" | grep -q "No kernel headers"; then
	ok "no headers: make modules fails and says why"
else
	not_ok "no headers: make modules fails and says why"
	printf '%s\n' "$out" | sed 's/^/# /'
fi

# 2. Unknown when the top make is parsed, known by the time the sub-make runs.
# shellcheck disable=SC2086
out=$(make -C "$srctree" --no-print-directory -f Makefile -f "$tmp/first-run.mk" \
	$fake TEST_TMP="$tmp" first-run 2>&1)
rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$out" |
	grep -q "fake kbuild: modules in $tmp/src/linux-headers-$rel"; then
	ok "headers installed after the top make was parsed: the sub-make builds against them"
else
	not_ok "headers installed after the top make was parsed: the sub-make builds against them"
	printf '%s\n' "$out" | sed 's/^/# /'
fi

# 3. A later run, the headers present from the start.
# shellcheck disable=SC2086
out=$(make -C "$srctree" --no-print-directory $fake modules 2>&1)
if [ $? -eq 0 ] && printf '%s\n' "$out" | grep -q "fake kbuild"; then
	ok "headers present at parse time: make modules builds against them"
else
	not_ok "headers present at parse time: make modules builds against them"
	printf '%s\n' "$out" | sed 's/^/# /'
fi

# 4. KDIR on the command line wins, in the top make and in sub-makes.
rm -f "$tmp/installed"
mkdir -p "$tmp/other"
printf 'modules:\n\t@echo "other kbuild: modules in $(CURDIR)"\n' >"$tmp/other/Makefile"
# shellcheck disable=SC2086
out=$(make -C "$srctree" --no-print-directory -f Makefile -f "$tmp/first-run.mk" \
	$fake KDIR="$tmp/other" TEST_TMP="$tmp" first-run 2>&1)
if [ $? -eq 0 ] && printf '%s\n' "$out" | grep -q "other kbuild: modules in $tmp/other"; then
	ok "KDIR= on the command line reaches the sub-make"
else
	not_ok "KDIR= on the command line reaches the sub-make"
	printf '%s\n' "$out" | sed 's/^/# /'
fi
tap_done
