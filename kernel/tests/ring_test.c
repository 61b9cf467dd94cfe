// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: naobody's state ring, the writer as the driver builds it, and
 * readers that follow the protocol at the top of uapi/linux/naobody.h.
 *
 * The concurrent case runs a writer and three readers on as many CPUs as the
 * machine has (the debug VM has two): two follow the ring, one copies the
 * newest record as read() does. Every copy a reader keeps must be whole and
 * be the record it asked for; torn and overwritten copies must be noticed,
 * never kept.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "../naobody/naobody.h"
#include "../naobody/compat.h"

/*
 * read()'s copy to the user, watched (renamed in ring.c only, after the
 * headers): the "user" buffer is kernel memory, and the case can have the
 * writer publish records in the middle of a copy, as a user page that
 * faults in slowly lets it.
 */
static struct {
	struct naobody_ring *ring;	/* the writer's */
	u64 next;			/* the record it publishes next */
	unsigned int laps;		/* copies left that the writer laps */
	unsigned int copies;
} copier;

static void publish(struct naobody_ring *ring, u64 n);

static unsigned long copier_copy_to_user(void __user *to, const void *from,
					 unsigned long len)
{
	void *dst = (__force void *)to;
	unsigned long first = min_t(unsigned long, len,
				    offsetof(struct naobody_record, out_submit_ns));
	unsigned int i;

	copier.copies++;
	memcpy(dst, from, first);
	/* A whole ring's worth of records: the slot being copied now holds
	 * the last of them, and the copy is seq and cycle of one record and
	 * the rest of another.
	 */
	if (copier.laps) {
		copier.laps--;
		for (i = 0; i <= copier.ring->mask; i++)
			publish(copier.ring, copier.next++);
	}
	memcpy(dst + first, from + first, len - first);
	return 0;
}

#define copy_to_user		copier_copy_to_user

/* The unit under test, compiled in (see Kbuild). */
#include "../naobody/ring.c"

/* The payload of record n: fields written at different times, so a copy
 * that mixes two records shows.
 */
static void fill(struct naobody_record *rec, u64 n)
{
	rec->cycle = n;
	rec->out_submit_ns = n ^ 0x5a5a5a5a5a5a5a5aULL;
	rec->flags = (u32)n;
	rec->errors = (u32)(n >> 3);
	rec->in_complete_ns = ~n;
}

static bool whole(const struct naobody_record *rec, u64 n)
{
	return rec->seq == 2 * n + 2 && rec->cycle == n &&
	       rec->out_submit_ns == (n ^ 0x5a5a5a5a5a5a5a5aULL) &&
	       rec->flags == (u32)n && rec->errors == (u32)(n >> 3) &&
	       rec->in_complete_ns == ~n;
}

static void publish(struct naobody_ring *ring, u64 n)
{
	fill(naobody_ring_begin(ring), n);
	naobody_ring_commit(ring);
}

static const struct naobody_record *slot_of(struct naobody_ring *ring, u64 n)
{
	const struct naobody_ring_header *hdr = ring->mem;

	return ring->mem + hdr->records_offset + (n & (hdr->record_count - 1)) * hdr->record_size;
}

/* What a reader makes of record n: the uapi header's reader, in C. */
enum verdict { GOT, NOT_YET, OVERWRITTEN, TORN };

static enum verdict read_record(struct naobody_ring *ring, u64 n, struct naobody_record *out)
{
	const struct naobody_ring_header *hdr = ring->mem;
	const struct naobody_record *rec = slot_of(ring, n);
	u64 s;

	/* Pairs with the release store of head in naobody_ring_commit(). */
	if (n >= smp_load_acquire(&hdr->head))
		return NOT_YET;
	/* Pairs with the smp_wmb() before seq's final store. */
	s = smp_load_acquire(&rec->seq);
	if (s != 2 * n + 2)
		return OVERWRITTEN;
	memcpy(out, rec, sizeof(*out));
	smp_rmb();	/* the acquire fence before seq's second load */
	if (READ_ONCE(rec->seq) != s)
		return TORN;
	return GOT;
}

/* What read() makes of the ring: its copy of the newest record, into kernel
 * memory (see copier).
 */
static int copy_newest(struct naobody_ring *ring, struct naobody_record *out, u64 *head)
{
	return naobody_ring_copy_newest(ring, (__force void __user *)out, head);
}

static struct naobody_ring *new_ring(struct kunit *test, unsigned int count)
{
	struct naobody_ring *ring = kunit_kzalloc(test, sizeof(*ring), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ring);
	KUNIT_ASSERT_EQ(test, naobody_ring_init(ring, count, 12000000), 0);
	return ring;
}

static void ring_header(struct kunit *test)
{
	struct naobody_ring *ring = new_ring(test, 16);
	const struct naobody_ring_header *hdr = ring->mem;
	struct naobody_ring bad = { };

	KUNIT_EXPECT_EQ(test, hdr->magic, (u32)NAOBODY_RING_MAGIC);
	KUNIT_EXPECT_EQ(test, hdr->abi_version, (u32)NAOBODY_ABI_VERSION);
	KUNIT_EXPECT_EQ(test, hdr->header_size, (u32)sizeof(*hdr));
	KUNIT_EXPECT_GE(test, hdr->record_size, (u32)sizeof(struct naobody_record));
	KUNIT_EXPECT_EQ(test, hdr->record_size % 64, 0U);
	KUNIT_EXPECT_EQ(test, hdr->record_count, 16U);
	KUNIT_EXPECT_EQ(test, hdr->records_offset % PAGE_SIZE, 0U);
	KUNIT_EXPECT_LE(test, hdr->records_offset + 16 * (size_t)hdr->record_size, ring->size);
	KUNIT_EXPECT_EQ(test, hdr->head, 0ULL);
	KUNIT_EXPECT_EQ(test, naobody_ring_init(&bad, 12, 12000000), -EINVAL);
	naobody_ring_free(ring);
}

static void ring_publish_then_read(struct kunit *test)
{
	struct naobody_ring *ring = new_ring(test, 8);
	struct naobody_record copy;
	u64 n, head = 0;

	copier = (typeof(copier)){ .ring = ring };
	KUNIT_EXPECT_EQ(test, copy_newest(ring, &copy, &head), -EAGAIN);
	KUNIT_EXPECT_EQ(test, read_record(ring, 0, &copy), NOT_YET);
	for (n = 0; n < 5; n++)
		publish(ring, n);
	KUNIT_EXPECT_EQ(test, naobody_ring_head(ring), 5ULL);
	for (n = 0; n < 5; n++) {
		KUNIT_EXPECT_EQ(test, read_record(ring, n, &copy), GOT);
		KUNIT_EXPECT_TRUE(test, whole(&copy, n));
	}
	KUNIT_EXPECT_EQ(test, read_record(ring, 5, &copy), NOT_YET);
	KUNIT_EXPECT_EQ(test, copy_newest(ring, &copy, &head), 0);
	KUNIT_EXPECT_EQ(test, head, 5ULL);
	KUNIT_EXPECT_TRUE(test, whole(&copy, 4));
	naobody_ring_free(ring);
}

/*
 * The writer keeps where the records are (naobody_ring.records_offset): an
 * offset read back from the page it shares with readers would make a
 * changed header send every write elsewhere; here, over the header itself.
 */
static void ring_writer_keeps_its_offset(struct kunit *test)
{
	struct naobody_ring *ring = new_ring(test, 4);
	struct naobody_ring_header *hdr = ring->mem;
	const struct naobody_record *rec = ring->mem + PAGE_SIZE;

	hdr->records_offset = 0;
	publish(ring, 0);
	KUNIT_EXPECT_EQ(test, hdr->magic, (u32)NAOBODY_RING_MAGIC);
	KUNIT_EXPECT_EQ(test, hdr->head, 1ULL);
	KUNIT_EXPECT_TRUE(test, whole(rec, 0));
	naobody_ring_free(ring);
}

/* A reader that fell behind learns what it lost, and never gets old data. */
static void ring_overwrite_detected(struct kunit *test)
{
	const unsigned int count = 4;
	struct naobody_ring *ring = new_ring(test, count);
	struct naobody_record copy;
	u64 n, head, cursor = 0;

	for (n = 0; n < 10; n++)
		publish(ring, n);
	head = naobody_ring_head(ring);
	KUNIT_EXPECT_EQ(test, head - cursor - count, 6ULL);	/* lost */
	for (n = 0; n < head - count; n++)
		KUNIT_EXPECT_EQ(test, read_record(ring, n, &copy), OVERWRITTEN);
	for (n = head - count; n < head; n++) {
		KUNIT_EXPECT_EQ(test, read_record(ring, n, &copy), GOT);
		KUNIT_EXPECT_TRUE(test, whole(&copy, n));
	}
	naobody_ring_free(ring);
}

/* A record being written is not whole: odd seq first, then a changed seq. */
static void ring_write_in_progress(struct kunit *test)
{
	const unsigned int count = 2;
	struct naobody_ring *ring = new_ring(test, count);
	struct naobody_record *slot, copy;
	u64 s;

	publish(ring, 0);
	publish(ring, 1);
	/* Record 2 goes into record 0's slot. */
	s = READ_ONCE(((struct naobody_record *)slot_of(ring, 0))->seq);
	slot = naobody_ring_begin(ring);
	KUNIT_EXPECT_PTR_EQ(test, (const struct naobody_record *)slot, slot_of(ring, 0));
	KUNIT_EXPECT_EQ(test, slot->seq, 5ULL);			/* 2n + 1 */
	KUNIT_EXPECT_NE(test, slot->seq, s);			/* a copy made before */
	KUNIT_EXPECT_EQ(test, read_record(ring, 0, &copy), OVERWRITTEN);
	KUNIT_EXPECT_EQ(test, read_record(ring, 2, &copy), NOT_YET);
	fill(slot, 2);
	naobody_ring_commit(ring);
	KUNIT_EXPECT_EQ(test, read_record(ring, 2, &copy), GOT);
	KUNIT_EXPECT_TRUE(test, whole(&copy, 2));
	naobody_ring_free(ring);
}

/* The newest record, with its seq and the count read() marks read. */
static void ring_read_copies_the_newest(struct kunit *test)
{
	struct naobody_ring *ring = new_ring(test, 4);
	struct naobody_record copy;
	u64 n, head = 0;

	copier = (typeof(copier)){ .ring = ring };
	for (n = 0; n < 3; n++)
		publish(ring, n);
	KUNIT_EXPECT_EQ(test, copy_newest(ring, &copy, &head), 0);
	KUNIT_EXPECT_EQ(test, head, 3ULL);
	KUNIT_EXPECT_EQ(test, copy.seq, 6ULL);			/* 2n + 2 */
	KUNIT_EXPECT_TRUE(test, whole(&copy, 2));
	/* Past a lap of the ring: still the newest, never an older one. */
	for (; n < 11; n++)
		publish(ring, n);
	KUNIT_EXPECT_EQ(test, copy_newest(ring, &copy, &head), 0);
	KUNIT_EXPECT_EQ(test, head, 11ULL);
	KUNIT_EXPECT_TRUE(test, whole(&copy, 10));
	KUNIT_EXPECT_EQ(test, copier.copies, 2U);		/* once each */
	naobody_ring_free(ring);
}

/*
 * The writer overwrites the slot during the copy: the torn copy is noticed
 * and made again, of the record that is the newest then.
 */
static void ring_read_retries_an_overwritten_copy(struct kunit *test)
{
	struct naobody_ring *ring = new_ring(test, 4);
	struct naobody_record copy;
	u64 n, head = 0;

	for (n = 0; n < 5; n++)
		publish(ring, n);
	/* Records 5..8 during the first copy, of record 4: 8 goes into its slot. */
	copier = (typeof(copier)){ .ring = ring, .next = n, .laps = 1 };
	KUNIT_EXPECT_EQ(test, copy_newest(ring, &copy, &head), 0);
	KUNIT_EXPECT_EQ(test, copier.copies, 2U);
	KUNIT_EXPECT_EQ(test, head, 9ULL);
	KUNIT_EXPECT_TRUE(test, whole(&copy, 8));
	naobody_ring_free(ring);
}

/* A writer that laps every copy: NAOBODY_RING_READ_TRIES, then -EAGAIN. */
static void ring_read_gives_up_when_lapped_every_time(struct kunit *test)
{
	struct naobody_ring *ring = new_ring(test, 4);
	struct naobody_record copy;
	u64 n, head = 0;

	for (n = 0; n < 5; n++)
		publish(ring, n);
	copier = (typeof(copier)){ .ring = ring, .next = n, .laps = NAOBODY_RING_READ_TRIES };
	KUNIT_EXPECT_EQ(test, copy_newest(ring, &copy, &head), -EAGAIN);
	KUNIT_EXPECT_EQ(test, copier.copies, (unsigned int)NAOBODY_RING_READ_TRIES);
	KUNIT_EXPECT_EQ(test, head, 0ULL);			/* nothing to mark read */
	/* One lap fewer: the last copy is whole. */
	copier = (typeof(copier)){ .ring = ring, .next = copier.next,
				   .laps = NAOBODY_RING_READ_TRIES - 1 };
	KUNIT_EXPECT_EQ(test, copy_newest(ring, &copy, &head), 0);
	KUNIT_EXPECT_EQ(test, copier.copies, (unsigned int)NAOBODY_RING_READ_TRIES);
	KUNIT_EXPECT_EQ(test, head, copier.next);
	KUNIT_EXPECT_TRUE(test, whole(&copy, copier.next - 1));
	naobody_ring_free(ring);
}

struct reader {
	struct naobody_ring *ring;
	struct completion started, done;
	/* Completed once it has read up to record target - 1 (the writer's last). */
	struct completion caught_up;
	u64 target;
	bool *stop;
	u64 got, lost, overwritten, torn, broken, backwards;
	u64 gave_up;			/* read()'s copy: -EAGAIN */
};

/* Follow the ring as a userspace reader does, for as long as it runs. */
static int reader_fn(void *arg)
{
	struct reader *r = arg;
	const struct naobody_ring_header *hdr = r->ring->mem;
	struct naobody_record copy;
	u64 cursor = 0, head, last = 0;
	bool any = false;

	complete(&r->started);
	while (!READ_ONCE(*r->stop)) {
		/* Pairs with the release store of head in naobody_ring_commit(). */
		head = smp_load_acquire(&hdr->head);
		if (cursor >= head) {
			if (cursor == r->target && !completion_done(&r->caught_up))
				complete(&r->caught_up);
			cond_resched();
			continue;
		}
		if (head - cursor > hdr->record_count) {
			r->lost += head - cursor - hdr->record_count;
			cursor = head - hdr->record_count;
		}
		switch (read_record(r->ring, cursor, &copy)) {
		case GOT:
			r->got++;
			if (!whole(&copy, cursor))
				r->broken++;
			if (any && copy.cycle <= last)
				r->backwards++;
			last = copy.cycle;
			any = true;
			break;
		case OVERWRITTEN:
			r->overwritten++;
			break;
		case TORN:
			r->torn++;
			break;
		case NOT_YET:
			continue;
		}
		cursor++;
	}
	complete(&r->done);
	return 0;
}

/* Copy the newest record as read() does, over and over, as long as it runs. */
static int newest_reader_fn(void *arg)
{
	struct reader *r = arg;
	struct naobody_record copy;
	u64 head, last = 0;
	int ret;

	complete(&r->started);
	while (!READ_ONCE(*r->stop)) {
		ret = copy_newest(r->ring, &copy, &head);
		if (ret == -EAGAIN) {
			r->gave_up++;	/* lapped every time, or nothing yet */
		} else if (ret) {
			r->broken++;
		} else {
			r->got++;
			if (!whole(&copy, head - 1))
				r->broken++;
			if (head < last)
				r->backwards++;
			last = head;
			if (head == r->target && !completion_done(&r->caught_up))
				complete(&r->caught_up);
		}
		cond_resched();
	}
	complete(&r->done);
	return 0;
}

static void ring_concurrent_readers(struct kunit *test)
{
	const u64 records = 20000;
	struct naobody_ring *ring = new_ring(test, 8);
	struct reader *readers = kunit_kcalloc(test, 3, sizeof(*readers), GFP_KERNEL);
	bool stop = false;
	struct task_struct *t;
	u64 n;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, readers);
	copier = (typeof(copier)){ .ring = ring };
	/* Two followers of the mapping, and read()'s copy of the newest. */
	for (i = 0; i < 3; i++) {
		readers[i].ring = ring;
		readers[i].stop = &stop;
		readers[i].target = records;
		init_completion(&readers[i].started);
		init_completion(&readers[i].done);
		init_completion(&readers[i].caught_up);
		t = kthread_run(i < 2 ? reader_fn : newest_reader_fn, &readers[i],
				"ring_reader/%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	}
	/* The writer starts once every reader runs, not before: else it can
	 * be done before the first is scheduled, and nothing was concurrent.
	 */
	for (i = 0; i < 3; i++)
		wait_for_completion(&readers[i].started);
	for (n = 0; n < records; n++) {
		publish(ring, n);
		if (!(n % 256))
			cond_resched();
	}
	/*
	 * Each reader reads the last record before they stop: a loaded
	 * machine may not have run one of them at all yet. The bound is a
	 * hang's, not a speed.
	 */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_GT_MSG(test, wait_for_completion_timeout(&readers[i].caught_up,
								      60 * HZ), 0UL,
				    "reader %d never read the last record", i);
	WRITE_ONCE(stop, true);
	for (i = 0; i < 2; i++) {
		struct reader *r = &readers[i];

		wait_for_completion(&r->done);
		kunit_info(test, "reader %d: %llu whole, %llu lost, %llu overwritten, %llu torn\n",
			   i, r->got, r->lost, r->overwritten, r->torn);
		KUNIT_EXPECT_GT(test, r->got, 0ULL);
		KUNIT_EXPECT_EQ(test, r->broken, 0ULL);
		KUNIT_EXPECT_EQ(test, r->backwards, 0ULL);
		KUNIT_EXPECT_LE(test, r->got + r->lost + r->overwritten + r->torn, records);
	}
	wait_for_completion(&readers[2].done);
	kunit_info(test, "read()'s copy: %llu whole, %llu -EAGAIN\n",
		   readers[2].got, readers[2].gave_up);
	KUNIT_EXPECT_GT(test, readers[2].got, 0ULL);
	KUNIT_EXPECT_EQ(test, readers[2].broken, 0ULL);
	KUNIT_EXPECT_EQ(test, readers[2].backwards, 0ULL);
	naobody_ring_free(ring);
}

static struct kunit_case ring_cases[] = {
	KUNIT_CASE(ring_header),
	KUNIT_CASE(ring_publish_then_read),
	KUNIT_CASE(ring_writer_keeps_its_offset),
	KUNIT_CASE(ring_overwrite_detected),
	KUNIT_CASE(ring_write_in_progress),
	KUNIT_CASE(ring_read_copies_the_newest),
	KUNIT_CASE(ring_read_retries_an_overwritten_copy),
	KUNIT_CASE(ring_read_gives_up_when_lapped_every_time),
	KUNIT_CASE(ring_concurrent_readers),
	{}
};

static struct kunit_suite ring_suite = {
	.name = "naobody-ring",
	.test_cases = ring_cases,
};

kunit_test_suite(ring_suite);

MODULE_DESCRIPTION("KUnit: naobody's state ring");
MODULE_LICENSE("GPL");
