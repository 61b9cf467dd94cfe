#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The ring readers of examples/ against naobody.ko and the chest board
# emulator, in the VM: the body comes up as for naobodyd's VM tests
# (vm_env.sh), then examples_test.py runs in the host's root for its python3.
cd "$(dirname "$0")" || exit 1
. ./vm_env.sh
# A small ring, so a reader stopped for a few seconds is lapped.
mkdir -p /etc/modprobe.d
echo "options naobody ring_records=128" > /etc/modprobe.d/naobody-examples.conf
trap 'vm_down; rm -f /etc/modprobe.d/naobody-examples.conf' EXIT
vm_up || exit 1
cp ring-reader-c ring-reader-rs "$NBVM_WORK/bin/" || exit 1
cd "$NBVM_WORK" || exit 1
vm_python "$NBVM_WORK/examples_test.py"
