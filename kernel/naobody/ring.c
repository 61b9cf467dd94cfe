// SPDX-License-Identifier: GPL-2.0-only
/*
 * The state ring: one writer (the cycle, under naobody_dev.lock), any number
 * of readers through a read-only mapping. The protocol is described for
 * userspace at the top of uapi/linux/naobody.h; this file is its writer, and
 * the reader read() uses (the same protocol, and no lock).
 *
 * The memory comes from vmalloc_user() (zeroed, VM_USERMAP) and lives as
 * long as the naobody_dev: open files hold a reference to it, and a mapping
 * holds its file, so the ring is freed only after the last munmap.
 */
#include <linux/mm.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "naobody.h"
#include "compat.h"

static struct naobody_record *ring_slot(struct naobody_ring *ring, u64 n)
{
	return ring->mem + ring->records_offset + (n & ring->mask) * ring->stride;
}

int naobody_ring_init(struct naobody_ring *ring, unsigned int count, u32 period_ns)
{
	struct naobody_ring_header *hdr;
	size_t stride = round_up(sizeof(struct naobody_record), 64);

	if (!is_power_of_2(count))
		return -EINVAL;
	ring->size = PAGE_ALIGN(PAGE_SIZE + (size_t)count * stride);
	ring->mem = vmalloc_user(ring->size);
	if (!ring->mem)
		return -ENOMEM;
	ring->mask = count - 1;
	ring->stride = stride;
	ring->records_offset = PAGE_SIZE;
	ring->next = 0;

	hdr = ring->mem;
	hdr->magic = NAOBODY_RING_MAGIC;
	hdr->abi_version = NAOBODY_ABI_VERSION;
	hdr->header_size = sizeof(*hdr);
	hdr->record_size = stride;
	hdr->record_count = count;
	hdr->records_offset = ring->records_offset;
	hdr->period_ns = period_ns;
	ring->hdr = hdr;
	return 0;
}

void naobody_ring_free(struct naobody_ring *ring)
{
	vfree(ring->mem);
	ring->mem = NULL;
	ring->hdr = NULL;
}

/*
 * Writing a record takes two calls: naobody_ring_begin() returns the next
 * slot, marked as being written, for the caller to fill in place;
 * naobody_ring_commit() marks it complete and publishes it. The caller
 * holds dev->lock across both, which makes it the only writer.
 */
struct naobody_record *naobody_ring_begin(struct naobody_ring *ring)
{
	u64 n = ring->next;
	struct naobody_record *slot = ring_slot(ring, n);

	WRITE_ONCE(slot->seq, 2 * n + 1);
	/* The odd seq is visible before any payload byte changes: a reader
	 * that saw the old even seq re-reads it after its copy and notices.
	 * Pairs with the reader's acquire fence before that re-read.
	 */
	smp_wmb();
	return slot;
}

void naobody_ring_commit(struct naobody_ring *ring)
{
	u64 n = ring->next;
	struct naobody_record *slot = ring_slot(ring, n);

	/* The payload is complete before seq says so. Pairs with the
	 * reader's acquire load of seq before it copies.
	 */
	smp_wmb();
	WRITE_ONCE(slot->seq, 2 * n + 2);
	ring->next = n + 1;
	/* Readers that load head with acquire see record n complete. */
	smp_store_release(&ring->hdr->head, n + 1);
}

/* Records published so far; for poll() and read(), outside the lock. */
u64 naobody_ring_head(struct naobody_ring *ring)
{
	/* Pairs with smp_store_release() in naobody_ring_commit(). */
	return smp_load_acquire(&ring->hdr->head);
}

/*
 * The reader's side of the protocol (uapi/linux/naobody.h), for read(): copy
 * record n from its slot to the user's buffer, with no lock. The copy can
 * fault and sleep for as long as the user's pages take; the writer never
 * waits for it, and a copy it overwrote meanwhile is noticed here. Returns 0,
 * -ESTALE if record n was overwritten before or during the copy (the user's
 * buffer then holds anything), or -EFAULT.
 */
static int ring_copy_record(struct naobody_ring *ring, u64 n, void __user *to)
{
	const struct naobody_record *slot = ring_slot(ring, n);
	u64 want = 2 * n + 2;

	/* No payload byte is copied before seq is: pairs with the smp_wmb()
	 * before seq's final store in naobody_ring_commit(), so a seq of 2n + 2
	 * means the payload copied after it is record n's, or newer (torn).
	 */
	if (smp_load_acquire(&slot->seq) != want)
		return -ESTALE;
	if (copy_to_user(to, slot, sizeof(*slot)))
		return -EFAULT;
	/* Every payload byte is copied before seq is read again: pairs with the
	 * smp_wmb() after the odd seq's store in naobody_ring_begin(), so a copy
	 * that saw any byte of a later record sees seq changed here.
	 */
	smp_rmb();
	if (READ_ONCE(slot->seq) != want)
		return -ESTALE;
	return 0;
}

/*
 * read()'s copy: the newest record, straight from its slot to the user's
 * buffer, outside dev->lock. When the writer overwrote it during the copy,
 * the copy is made again from the record then newest, as libnaobody's
 * nb_latest() does, and as often: NAOBODY_RING_READ_TRIES copies in all. A
 * writer that laps every one (each copy slower than the ring is long: a user
 * buffer whose pages fault in that slowly) gets -EAGAIN, and so does a ring
 * with nothing published; the caller marks nothing read then. On success
 * *head is the number of records published up to the one copied (its
 * number + 1): what read() marks read.
 */
int naobody_ring_copy_newest(struct naobody_ring *ring, void __user *to, u64 *head)
{
	unsigned int tries;
	u64 h;
	int ret;

	for (tries = 0; tries < NAOBODY_RING_READ_TRIES; tries++) {
		h = naobody_ring_head(ring);
		if (!h)
			return -EAGAIN;
		ret = ring_copy_record(ring, h - 1, to);
		if (ret == -ESTALE)
			continue;
		if (!ret)
			*head = h;
		return ret;
	}
	return -EAGAIN;
}

void naobody_ring_set_flags(struct naobody_ring *ring, u32 flags)
{
	WRITE_ONCE(ring->hdr->flags, ring->hdr->flags | flags);
}

/* Read-only, whole pages from offset 0; never writable, never growable. */
int naobody_ring_mmap(struct naobody_ring *ring, struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start > ring->size)
		return -EINVAL;
	naobody_vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP, VM_MAYWRITE);
	return remap_vmalloc_range(vma, ring->mem, 0);
}
