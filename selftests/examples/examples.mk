# SPDX-License-Identifier: GPL-2.0-only
# examples/: the state ring of /dev/naobody read from C (no libnaobody),
# Rust (std and Debian's librust-libc-dev) and Python (the standard
# library). The VM suite runs each against the chest board emulator and
# compares its lines with `naoctl dump -c` for the same records.
EXAMPLES_DIR := $(O)/examples
EXAMPLE_BINS := $(EXAMPLES_DIR)/ring-reader-c $(EXAMPLES_DIR)/ring-reader-rs

# Only the uapi header: what a program outside this tree has.
$(EXAMPLES_DIR)/ring-reader-c: $(srctree)/examples/c/ring_reader.c $(srctree)/uapi/linux/naobody.h
	$(quiet) CC $(@:$(O)/%=%)
	$(Q)mkdir -p $(@D) && $(CC) -std=gnu11 -I$(srctree)/uapi $(WARN_CFLAGS) $(CFLAGS) \
		$(LDFLAGS) -o $@ $<

# Debian's cargo and rustc, offline, against Debian's crates
# (examples/rust/.cargo/config.toml); rustup's, first on some PATHs, are not
# what a Debian robot has.
RUST_EXAMPLE_SRCS := $(addprefix $(srctree)/examples/rust/,Cargo.toml Cargo.lock \
	.cargo/config.toml src/main.rs)
$(EXAMPLES_DIR)/ring-reader-rs: $(RUST_EXAMPLE_SRCS)
	$(quiet) CARGO $(@:$(O)/%=%)
	$(Q)cd $(srctree)/examples/rust && RUSTC=/usr/bin/rustc /usr/bin/cargo build --quiet \
		--release --offline --locked --target-dir $(EXAMPLES_DIR)/rust-target
	$(Q)cp $(EXAMPLES_DIR)/rust-target/release/ring-reader-rs $@

.PHONY: examples
examples: $(EXAMPLE_BINS)
vm-programs: $(EXAMPLE_BINS)

VM_SUITES += examples
# The readers are userspace; the ring's mmap and wait, in naobody.ko, are the
# naobody suites' on every tier (uapi_test, e2e_test); a lap is the reader's affair.
examples_VM_TIER := stock
examples_VM_PROGS := examples_vm.sh
examples_VM_KMODS := dummy_hcd libcomposite usb_f_fs configfs
examples_VM_TIMEOUT := 300
# VM_FILES are relative to the source tree; the build may be elsewhere.
EXAMPLES_REL := $(shell realpath -m --relative-to=$(srctree) $(EXAMPLES_DIR))
examples_VM_FILES := selftests/examples/examples_vm.sh selftests/examples/examples_test.py \
	selftests/naobodyd/vm_env.sh examples/python/ring_reader.py \
	$(EXAMPLES_REL)/ring-reader-c $(EXAMPLES_REL)/ring-reader-rs
