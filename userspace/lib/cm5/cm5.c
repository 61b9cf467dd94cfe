// SPDX-License-Identifier: GPL-2.0-only
/*
 * libcm5: BRBrain's host protocol over a framed link. See <cm5/cm5.h>.
 *
 * Strictly request and reply, as the firmware is: before each request what
 * is left from earlier (a late reply, the STATUS the firmware sends after
 * line garbage) is flushed; a missing or wrong reply means BRBrain's
 * recover() (wait 500 ms, while the firmware flushes its own buffers, then
 * flush ours) and one more try.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <cm5/cm5.h>

static void cm5_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int cm5_attach_fd(struct cm5 *c, int fd, enum nr_link_mode mode)
{
	int err;

	memset(c, 0, sizeof(*c));
	c->timeout_ms = CM5_TIMEOUT_MS;
	c->retries = 1;
	err = nr_link_attach_fd(&c->link, fd, N_ROBOT_FRAMING_CM5, mode,
				CM5_BAUD);
	return err;
}

int cm5_open(struct cm5 *c, const char *path, enum nr_link_mode mode)
{
	int err;

	memset(c, 0, sizeof(*c));
	c->timeout_ms = CM5_TIMEOUT_MS;
	c->retries = 1;
	err = nr_link_open(&c->link, path, N_ROBOT_FRAMING_CM5, mode,
			   CM5_BAUD);
	return err;
}

void cm5_close(struct cm5 *c)
{
	nr_link_close(&c->link);
}

int cm5_set_model(struct cm5 *c, uint8_t id, int model)
{
	if (id > N_ROBOT_CM5_MAX_ID || model < 0 ||
	    model > N_ROBOT_CM5_MODEL_OTHER)
		return -EINVAL;
	c->model[id] = (uint8_t)model;
	return nr_link_cm5_set_models(&c->link, c->model);
}

int cm5_recover(struct cm5 *c)
{
	cm5_sleep_ms(CM5_RECOVER_MS);
	return nr_link_flush(&c->link);
}

uint8_t cm5_adc(const struct cm5 *c, int channel)
{
	return channel >= 0 && channel < 3 ? c->adc[channel] : 0;
}

/* status | retries << 8, and remember the ADC bytes. */
static int cm5_status_word(struct cm5 *c, const uint8_t *trailer)
{
	memcpy(c->adc, trailer + 2, 3);
	return trailer[0] | trailer[1] << 8;
}

/* Bytes received on the link so far, whole frames or not. */
static uint64_t cm5_rx_bytes(struct cm5 *c)
{
	struct n_robot_stats s;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	return nr_link_stats(&c->link, &s) ? 0 : s.rx_raw_bytes;
}

/*
 * Wait for a reply frame, timing out as BRBrain does: timeout_ms without a
 * byte, not for the whole reply. The firmware streams a DATA servo by
 * servo, about 100 ms for each one that stays silent, so a long format of
 * unpowered servos takes seconds and still arrives. The link delivers
 * whole frames; the partial one shows as received bytes in its counters.
 */
#define CM5_PROGRESS_POLL_MS	50

static ssize_t cm5_recv_reply(struct cm5 *c, uint8_t *reply, size_t cap)
{
	int64_t last = nr_now_ms(), left;
	uint64_t seen = cm5_rx_bytes(c), now_seen;
	ssize_t n;

	for (;;) {
		left = last + c->timeout_ms - nr_now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		n = nr_link_recv(&c->link, reply, cap,
				 (int)(left < CM5_PROGRESS_POLL_MS ? left :
				       CM5_PROGRESS_POLL_MS));
		if (n != -ETIMEDOUT)
			return n;
		now_seen = cm5_rx_bytes(c);
		if (now_seen != seen) {
			seen = now_seen;	/* a byte came: restart */
			last = nr_now_ms();
		}
	}
}

/*
 * Send a request (instruction + data; the checksum is added here) and wait
 * for a reply starting with want. Returns the reply's length.
 */
static int cm5_xact(struct cm5 *c, const uint8_t *req, size_t len,
		    uint8_t want, uint8_t *reply, size_t cap)
{
	uint8_t pkt[N_ROBOT_CM5_MAX_TX_FRAME];
	int attempt, err = -ETIMEDOUT;
	ssize_t n;

	if (len + 1 > sizeof(pkt))
		return -EMSGSIZE;
	memcpy(pkt, req, len);
	pkt[len] = cm5_checksum(pkt, len);
	for (attempt = 0; attempt <= c->retries; attempt++) {
		if (attempt)
			cm5_recover(c);
		else
			nr_link_flush(&c->link);
		err = nr_link_send(&c->link, pkt, len + 1);
		if (err)
			return err;	/* refused: retrying will not help */
		for (;;) {
			n = cm5_recv_reply(c, reply, cap);
			if (n == -ETIMEDOUT || (n < 0 && n != -EINTR)) {
				err = (int)n;
				break;
			}
			if (n < 0)
				continue;
			if (reply[0] == want)
				return (int)n;
			/* STATUS instead of DATA: the firmware saw garbage
			 * (or a timeout) instead of our request.
			 */
			err = -EPROTO;
			break;
		}
		if (err == -EIO)
			return err;	/* the link is gone */
	}
	return err;
}

int cm5_ping(struct cm5 *c, uint8_t id)
{
	uint8_t req[2] = { N_ROBOT_CM5_PING, id }, r[8];
	int n;

	n = cm5_xact(c, req, 2, N_ROBOT_CM5_STATUS, r, sizeof(r));
	if (n < 0)
		return n;
	return cm5_status_word(c, r + 1);
}

int cm5_ping_cm5(struct cm5 *c)
{
	return cm5_ping(c, N_ROBOT_CM5_PING_CM5);
}

int cm5_scan(struct cm5 *c, unsigned int from, unsigned int to, uint8_t *ids,
	     int max)
{
	unsigned int id;
	int found = 0, st;

	if (from > to || to > N_ROBOT_CM5_MAX_ID)
		return -EINVAL;
	for (id = from; id <= to; id++) {
		st = cm5_ping(c, (uint8_t)id);
		if (st < 0)
			return st;
		/* Present means a clean answer, as BRBrain's scan: no
		 * status bit and no retry (st is status | retries << 8).
		 */
		if (st == 0 && found < max)
			ids[found++] = (uint8_t)id;
	}
	return found;
}

/* Bytes a format entry spans: from the first register to the last's end. */
static int cm5_entry_bytes(const struct cm5 *c, const struct cm5_fmt_entry *e,
			   const struct cm5_reg **last)
{
	const struct cm5_reg *tab;
	size_t n, first;

	if (e->id > N_ROBOT_CM5_MAX_ID)
		return -EINVAL;
	if (!e->nregs) {
		/* nothing from this servo: BRBrain sends such entries, and
		 * the firmware takes them
		 */
		*last = NULL;
		return 0;
	}
	if (!e->start)
		return -EINVAL;
	tab = cm5_regs(c->model[e->id], &n);
	if (e->start < tab || e->start >= tab + n) {
		/* given from another model's table: find it by address */
		const struct cm5_reg *r = cm5_reg_at(c->model[e->id],
						     e->start->addr);

		if (!r)
			return -EINVAL;
		first = r - tab;
	} else {
		first = e->start - tab;
	}
	if (first + e->nregs > n)
		return -EINVAL;
	*last = &tab[first + e->nregs - 1];
	return (*last)->addr + (*last)->size - tab[first].addr;
}

static int cm5_do_set_format(struct cm5 *c, int which,
			  const struct cm5_fmt_entry *e, unsigned int n)
{
	uint8_t req[2 + 3 * N_ROBOT_CM5_MAX_DYNAMIXELS], r[8];
	const struct cm5_reg *last;
	struct cm5_fmt f;
	unsigned int i;
	int bytes, st;

	if (n > N_ROBOT_CM5_MAX_DYNAMIXELS)
		return -EINVAL;
	memset(&f, 0, sizeof(f));
	req[0] = which == N_ROBOT_CM5_FORMAT_READ ? N_ROBOT_CM5_SET_READ :
						    N_ROBOT_CM5_SET_WRITE;
	req[1] = (uint8_t)n;
	for (i = 0; i < n; i++) {
		bytes = cm5_entry_bytes(c, &e[i], &last);
		if (bytes < 0)
			return bytes;
		f.e[i] = e[i];
		if (last)
			f.e[i].start = cm5_reg_at(c->model[e[i].id],
						  last->addr + last->size - bytes);
		req[2 + 3 * i] = e[i].id;
		/* no registers: (id, 0, 0) whatever the start, as BRBrain */
		req[3 + 3 * i] = f.e[i].start && e[i].nregs ? f.e[i].start->addr : 0;
		req[4 + 3 * i] = (uint8_t)bytes;
		f.total_regs += e[i].nregs;
		f.total_bytes += bytes;
	}
	f.count = n;
	/*
	 * "The read format will be indeterminate until it is successfully
	 * re-set": after any status bit (0x40 too: the firmware installs a
	 * format whose checksum failed, whatever its bytes were) or no answer,
	 * nothing is known about it, and reads or writes with it are refused
	 * (-ESTALE) until it is set again.
	 */
	memset(&c->fmt[which], 0, sizeof(c->fmt[which]));
	c->fmt[which].unknown = true;
	st = cm5_xact(c, req, 2 + 3 * n, N_ROBOT_CM5_STATUS, r, sizeof(r));
	if (st < 0)
		return st;
	st = cm5_status_word(c, r + 1);
	if (!(st & 0xFF))
		c->fmt[which] = f;
	return st;
}

int cm5_set_read_format(struct cm5 *c, const struct cm5_fmt_entry *e,
			unsigned int n)
{
	return cm5_do_set_format(c, N_ROBOT_CM5_FORMAT_READ, e, n);
}

int cm5_set_write_format(struct cm5 *c, const struct cm5_fmt_entry *e,
			 unsigned int n)
{
	return cm5_do_set_format(c, N_ROBOT_CM5_FORMAT_WRITE, e, n);
}

/*
 * The k-th register of a format, and its byte offset in the format's data.
 * Each entry's start points into its model's table (cm5_do_set_format()),
 * so the entry's registers are start[0..nregs).
 */
static const struct cm5_reg *cm5_fmt_reg(const struct cm5_fmt *f,
					 unsigned int k, unsigned int *off)
{
	const struct cm5_reg *start;
	unsigned int i, base = 0;

	for (i = 0; i < f->count; i++) {
		start = f->e[i].start;
		if (!f->e[i].nregs)
			continue;	/* takes no bytes */
		if (k < f->e[i].nregs) {
			*off = base + start[k].addr - start->addr;
			return &start[k];
		}
		k -= f->e[i].nregs;
		base += start[f->e[i].nregs - 1].addr +
			start[f->e[i].nregs - 1].size - start->addr;
	}
	return NULL;
}

static int cm5_read_common(struct cm5 *c, int32_t *raw, double *nat, size_t n)
{
	const struct cm5_fmt *f = &c->fmt[N_ROBOT_CM5_FORMAT_READ];
	uint8_t req[1] = { N_ROBOT_CM5_READ_DATA }, r[N_ROBOT_CM5_MAX_FRAME];
	const struct cm5_reg *reg;
	unsigned int k, off, b;
	bool failed;
	int len;
	int32_t v;

	if (f->unknown)
		return -ESTALE;
	if (n < f->total_regs)
		return -EINVAL;
	len = cm5_xact(c, req, 1, N_ROBOT_CM5_DATA, r, sizeof(r));
	if (len < 0)
		return len;
	if ((unsigned int)len != 7 + f->total_bytes)
		return -EPROTO;
	failed = r[1 + f->total_bytes] != 0;
	memset(c->missing, 0, sizeof(c->missing));
	for (k = 0; k < f->total_regs; k++) {
		reg = cm5_fmt_reg(f, k, &off);
		if (!reg)
			return -EPROTO;	/* cannot happen: totals match */
		for (b = 0; failed && b < reg->size && r[1 + off + b] == 0xFF; b++)
			;
		c->missing[k] = failed && b == reg->size;
		v = cm5_reg_decode(reg, r + 1 + off);
		if (raw)
			raw[k] = v;
		if (nat)
			nat[k] = cm5_to_natural(reg, v);
	}
	return cm5_status_word(c, r + 1 + f->total_bytes);
}

size_t cm5_size(void)
{
	return sizeof(struct cm5);
}

size_t cm5_reg_struct_size(void)
{
	return sizeof(struct cm5_reg);
}

size_t cm5_fmt_entry_size(void)
{
	return sizeof(struct cm5_fmt_entry);
}

void cm5_set_timeout(struct cm5 *c, int timeout_ms)
{
	c->timeout_ms = timeout_ms;
}

bool cm5_read_missing(const struct cm5 *c, unsigned int k)
{
	return k < sizeof(c->missing) / sizeof(c->missing[0]) && c->missing[k];
}

int cm5_read_raw(struct cm5 *c, int32_t *values, size_t n)
{
	return cm5_read_common(c, values, NULL, n);
}

int cm5_read_natural(struct cm5 *c, double *values, size_t n)
{
	return cm5_read_common(c, NULL, values, n);
}

static int cm5_write_common(struct cm5 *c, const int32_t *raw,
			    const double *nat, size_t n)
{
	const struct cm5_fmt *f = &c->fmt[N_ROBOT_CM5_FORMAT_WRITE];
	uint8_t req[N_ROBOT_CM5_MAX_TX_FRAME], r[8];
	const struct cm5_reg *reg;
	unsigned int k, off;
	int32_t v;
	int st;

	if (f->unknown)
		return -ESTALE;
	if (n < f->total_regs)
		return -EINVAL;
	if (1 + f->total_bytes + 1 > N_ROBOT_CM5_MAX_TX_FRAME)
		return -EMSGSIZE;
	memset(req, 0, sizeof(req));
	req[0] = N_ROBOT_CM5_WRITE_DATA;
	for (k = 0; k < f->total_regs; k++) {
		reg = cm5_fmt_reg(f, k, &off);
		if (!reg)
			return -EPROTO;	/* cannot happen: totals match */
		if (nat) {
			st = cm5_from_natural(reg, nat[k], &v);
			if (st)
				return st;
		} else {
			v = raw[k];
			if (reg->flags & CM5_REG_RO || v < reg->min ||
			    v > reg->max)
				return -ERANGE;
		}
		cm5_reg_encode(reg, v, req + 1 + off);
	}
	st = cm5_xact(c, req, 1 + f->total_bytes, N_ROBOT_CM5_STATUS, r,
		      sizeof(r));
	if (st < 0)
		return st;
	return cm5_status_word(c, r + 1);
}

int cm5_write_raw(struct cm5 *c, const int32_t *values, size_t n)
{
	return cm5_write_common(c, values, NULL, n);
}

int cm5_write_natural(struct cm5 *c, const double *values, size_t n)
{
	return cm5_write_common(c, NULL, values, n);
}
