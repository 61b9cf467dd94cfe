// SPDX-License-Identifier: GPL-2.0-only
/*
 * ring_reader: the state ring of /dev/naobody from C, with nothing but
 * <linux/naobody.h> (no libnaobody), following the reader protocol that
 * header documents: acquire loads of head and seq, the torn-record check,
 * and the lost-record count.
 *
 *   ring-reader-c [-n COUNT] [DEVICE]
 *
 * Prints each record from the one after the newest at start-up as one
 * tab-separated line of counts, the columns of `naoctl dump -c` (without
 * its header), then "from record FIRST: lost N" on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/naobody.h>

struct ring {
	const struct naobody_ring_header *hdr;
	uint64_t count;		/* record_count, a power of two */
};

static const struct naobody_record *slot(const struct ring *r, uint64_t n)
{
	return (const void *)((const char *)r->hdr + r->hdr->records_offset +
			      (n & (r->count - 1)) * r->hdr->record_size);
}

/* Copy record n; -1 if it was overwritten before or while we copied it. */
static int copy_record(const struct ring *r, uint64_t n, struct naobody_record *out)
{
	const struct naobody_record *rec = slot(r, n);
	uint64_t want = 2 * n + 2;

	/* Acquire: the payload loads below cannot pass this one. */
	if (__atomic_load_n(&rec->seq, __ATOMIC_ACQUIRE) != want)
		return -1;
	memcpy(out, rec, sizeof(*out));
	/* The copy's loads complete before seq is looked at again. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&rec->seq, __ATOMIC_RELAXED) == want ? 0 : -1;
}

static void print_record(const struct naobody_record *r)
{
	const struct naobody_sensors *s = &r->sensors;
	int i;

	printf("%llu\t%llu\t%llu\t%llu\t0x%x\t0x%x\t0x%llx", (unsigned long long)r->seq,
	       (unsigned long long)r->cycle, (unsigned long long)r->out_submit_ns,
	       (unsigned long long)r->in_complete_ns, r->flags, r->errors,
	       (unsigned long long)r->boards_up);
	for (i = 0; i < 3; i++)
		printf("\t%d", s->accelerometer[i]);
	for (i = 0; i < 3; i++)
		printf("\t%d", s->gyroscope[i]);
	printf("\t%d\t%d\t%d\t%d\t%d\t%d", s->angles[0], s->angles[1], s->battery_charge,
	       s->battery_status, s->battery_current, s->battery_temperature);
	for (i = 0; i < NAOBODY_FSRS; i++)
		printf("\t%d", s->fsr[i]);
	printf("\t%d\t%d\t0x%x\t0x%x", s->sonar[0], s->sonar[1], s->touch, s->updated);
	for (i = 0; i < NAOBODY_JOINTS; i++)
		printf("\t%d", s->joint_position[i]);
	for (i = 0; i < NAOBODY_JOINTS; i++)
		printf("\t%d", s->joint_current[i]);
	for (i = 0; i < NAOBODY_JOINTS; i++)
		printf("\t%d", s->joint_temperature[i]);
	for (i = 0; i < NAOBODY_JOINTS; i++)
		printf("\t%u", s->joint_status[i]);
	printf("\n");
}

/* Sleep until the ring has a record this file has not read(); 0 on timeout. */
static int wait_record(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct naobody_record scratch;
	int n;

	do {
		n = poll(&p, 1, 2000);
	} while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n;
	if (p.revents & (POLLHUP | POLLERR)) {
		errno = ENODEV;
		return -1;
	}
	/* poll() stays ready until a read() marks the newest record read. */
	if (read(fd, &scratch, sizeof(scratch)) < 0 && errno != EAGAIN)
		return -1;
	return 1;
}

int main(int argc, char **argv)
{
	const char *path = "/dev/naobody";
	struct naobody_info info;
	struct naobody_record rec;
	uint64_t first, cursor, lost = 0;
	long want = -1;
	struct ring r;
	void *map;
	int c, fd;

	while ((c = getopt(argc, argv, "n:h")) != -1) {
		if (c == 'n' && atol(optarg) > 0) {
			want = atol(optarg);
			continue;
		}
		fprintf(c == 'h' ? stdout : stderr,
			"Usage: %s [-n COUNT] [DEVICE]\n"
			"Prints the ring's records as `naoctl dump -c` does, read from the\n"
			"mapping with <linux/naobody.h> only; then \"from record FIRST: lost N\"\n"
			"on stderr.\n",
			argv[0]);
		return c == 'h' ? 0 : 2;
	}
	if (optind < argc)
		path = argv[optind];

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", argv[0], path, strerror(errno));
		return 1;
	}
	memset(&info, 0, sizeof(info));
	if (ioctl(fd, NAOBODY_IOC_GET_INFO, &info) < 0) {
		fprintf(stderr, "%s: NAOBODY_IOC_GET_INFO: %s\n", argv[0], strerror(errno));
		return 1;
	}
	if (info.abi_version != NAOBODY_ABI_VERSION ||
	    info.record_size < sizeof(struct naobody_record)) {
		fprintf(stderr, "%s: ABI %u, records of %u bytes: not what this was built for\n",
			argv[0], info.abi_version, info.record_size);
		return 1;
	}
	map = mmap(NULL, info.ring_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "%s: mmap: %s\n", argv[0], strerror(errno));
		return 1;
	}
	r.hdr = map;
	r.count = r.hdr->record_count;
	if (r.hdr->magic != NAOBODY_RING_MAGIC || !r.count || (r.count & (r.count - 1))) {
		fprintf(stderr, "%s: the mapping is not a naobody ring\n", argv[0]);
		return 1;
	}

	first = cursor = __atomic_load_n(&r.hdr->head, __ATOMIC_ACQUIRE);
	while (want) {
		uint64_t head = __atomic_load_n(&r.hdr->head, __ATOMIC_ACQUIRE);

		if (cursor >= head) {
			int ret;

			if (__atomic_load_n(&r.hdr->flags, __ATOMIC_RELAXED) &
			    NAOBODY_RING_DISCONNECTED)
				break;
			ret = wait_record(fd);
			if (ret <= 0) {
				fprintf(stderr, "%s: %s\n", argv[0],
					ret ? strerror(errno) : "no record in 2 s");
				return 1;
			}
			continue;
		}
		if (head - cursor > r.count) {
			/* The writer lapped us: skip to the oldest record left. */
			lost += head - cursor - r.count;
			cursor = head - r.count;
		}
		if (copy_record(&r, cursor++, &rec)) {
			lost++;		/* overwritten while we copied it */
			continue;
		}
		print_record(&rec);
		if (want > 0)
			want--;
	}
	fflush(stdout);
	fprintf(stderr, "from record %llu: lost %llu\n", (unsigned long long)first,
		(unsigned long long)lost);
	munmap(map, info.ring_size);
	close(fd);
	return want > 0 ? 1 : 0;
}
