// SPDX-License-Identifier: GPL-2.0-only
/*
 * The proof of the debug tier: when loaded, commits the bugs named at build
 * time (NAOBODY_PROOF, from make check-debug DEBUG_PROOF=...), each the way
 * a USB driver commits it, and nothing else. The debug tier must then fail,
 * naming the bug:
 *
 *   uaf    a URB-completion-style read of a buffer freed by "disconnect":
 *          KASAN, "BUG: KASAN: use-after-free"
 *   sleep  a GFP_KERNEL allocation under a spinlock, as in a completion
 *          handler: "BUG: sleeping function called from invalid context"
 *   leak   a buffer allocated at probe and never freed: kmemleak
 *
 * Never part of the normal build (kernel/tests/Kbuild).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static DEFINE_SPINLOCK(proof_lock);

/* Is BUG among the comma-separated names in NAOBODY_PROOF? */
static bool planted(const char *bug)
{
	const char *p = NAOBODY_PROOF;
	size_t len = strlen(bug);

	while (*p) {
		if (!strncmp(p, bug, len) && (p[len] == ',' || !p[len]))
			return true;
		p = strchrnul(p, ',');
		if (*p)
			p++;
	}
	return false;
}

static noinline void proof_use_after_free(void)
{
	u8 *buf = kmalloc(64, GFP_KERNEL);

	if (!buf)
		return;
	memset(buf, 0x5a, 64);
	kfree(buf);
	/* The read that a late completion would do. */
	pr_info("read 0x%02x from a freed buffer\n", READ_ONCE(buf[8]));
}

static noinline void proof_sleep_in_atomic(void)
{
	void *p;

	spin_lock(&proof_lock);
	p = kmalloc(64, GFP_KERNEL);	/* may sleep: GFP_ATOMIC was meant */
	spin_unlock(&proof_lock);
	kfree(p);
}

static noinline void proof_leak(void)
{
	char *buf = kmalloc(96, GFP_KERNEL);

	if (buf)
		strscpy(buf, "allocated at probe, lost at disconnect", 96);
	/* ... and the pointer goes out of scope. */
}

static int __init naobody_proof_init(void)
{
	pr_info("planting: %s\n", NAOBODY_PROOF);
	if (planted("uaf"))
		proof_use_after_free();
	if (planted("sleep"))
		proof_sleep_in_atomic();
	if (planted("leak"))
		proof_leak();
	return 0;
}
module_init(naobody_proof_init);

static void __exit naobody_proof_exit(void)
{
}
module_exit(naobody_proof_exit);

MODULE_DESCRIPTION("naobody: bugs that the debug tier must catch");
MODULE_LICENSE("GPL");
