// SPDX-License-Identifier: GPL-2.0-only
/*
 * ep0: FunctionFS events and the chest board's vendor requests.
 *
 *   0x13  OUT, no data   start of the protocol
 *   0x02  IN, 4 bytes    the chest board's version
 *   0x14  IN, 5 bytes    0x2a and the CRC of the frame just received
 *   0x15  IN, 2 bytes    status, after an answer that never came
 *
 * An IN request is answered by write() on ep0, an OUT one by read(), and
 * either is stalled by the call of the other direction (FunctionFS).
 *
 * FunctionFS can deliver the 0x14 setup before the data of the frame it
 * acknowledges. Such a request is held, unanswered, until the frame
 * arrives or ack_wait_ms pass; then it is stalled rather than answered
 * with an older frame's CRC. So is a 0x14 that comes while the newest
 * frame we have is unacknowledged (the host gave up before its 0x14)
 * and a newer one is on its way, which usb_frame_in_flight() asks the
 * UDC. While a setup is held, ep0 is not watched: FunctionFS reports a
 * pending setup as readable for as long as it is pending, and a read
 * would stall it. Any event FunctionFS adds meanwhile cancels the held
 * setup, which the answer's write() then reports (EIDRM); the events are
 * read when the hold ends. A silent hold (the silence misbehaviour) ends
 * when the next frame arrives or after --silent-ms (EMU_SILENT_MS by
 * default), past the host's 20 ms timeout.
 *
 * Answering a setup blocks in FunctionFS until the host has taken the
 * data (or the status stage); if the host gave up on the request it
 * blocks until the next setup. So every answer runs under a one-shot
 * SIGALRM of EMU_EP0_TIMEOUT_MS, which makes FunctionFS dequeue it and
 * return EINTR.
 */
#include <endian.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/usb/functionfs.h>

#include "emu.h"

static const char *const event_name[] = {
	[FUNCTIONFS_BIND] = "bind",
	[FUNCTIONFS_UNBIND] = "unbind",
	[FUNCTIONFS_ENABLE] = "enable",
	[FUNCTIONFS_DISABLE] = "disable",
	[FUNCTIONFS_SETUP] = "setup",
	[FUNCTIONFS_SUSPEND] = "suspend",
	[FUNCTIONFS_RESUME] = "resume",
};

static void on_alarm(int sig)
{
	(void)sig;
}

/* SIGALRM interrupts a blocked ep0 call: no SA_RESTART. */
void ep0_init(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
}

static void guard(bool on)
{
	struct itimerval it = { { 0, 0 }, { 0, on ? EMU_EP0_TIMEOUT_MS * 1000 : 0 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

/* Stall the pending setup (a read() against an IN request's direction). */
static void stall(struct emu *e, const struct usb_ctrlrequest *s)
{
	uint8_t b;

	if (s->bRequestType & USB_DIR_IN) {
		if (read(e->g.ep0, &b, 0) < 0 && errno != EL2HLT && errno != EIDRM)
			emu_log(e, 1, "ep0 stall: %s", strerror(errno));
	} else {
		if (write(e->g.ep0, &b, 0) < 0 && errno != EL2HLT && errno != EIDRM)
			emu_log(e, 1, "ep0 stall: %s", strerror(errno));
	}
}

/* Answer an IN setup with len bytes (cut to wLength). */
static int answer(struct emu *e, const struct usb_ctrlrequest *s,
		  const void *data, size_t len)
{
	size_t w = le16toh(s->wLength);
	ssize_t n;

	if (len > w)
		len = w;
	guard(true);
	n = write(e->g.ep0, data, len);
	guard(false);
	if (n < 0) {
		/*
		 * EIDRM: the host gave up on the request and sent another;
		 * EINTR: it took longer than EMU_EP0_TIMEOUT_MS
		 */
		if (errno != EIDRM)
			emu_log(e, 1, "ep0 answer to %02x: %s", s->bRequest,
				strerror(errno));
		return -errno;
	}
	return 0;
}

/* Acknowledge the newest frame (0x14). */
static void ack(struct emu *e, const struct usb_ctrlrequest *s)
{
	struct nb_emu_frame *rec = record_find(&e->rec, e->frames - 1);
	uint8_t a[NB_ACK_LEN];
	uint32_t crc = e->last_crc;

	e->acked = e->frames;
	if (e->cycle_misb == NB_EMU_MISB_STALL_ACK) {
		stall(e, s);
		e->st.stalls++;
		return;
	}
	if (e->cycle_misb == NB_EMU_MISB_WRONG_ACK)
		crc = ~crc;
	nb_ack_encode(a, crc);
	if (answer(e, s, a, sizeof(a)))
		return;
	e->st.acks++;
	if (rec) {
		rec->flags |= NB_EMU_F_ACKED;
		rec->ack_ns = emu_now();
	}
}

/* Watch ep0 for events, or stop while a setup is held. */
static void watch(struct emu *e, bool on)
{
	struct epoll_event ev = { .events = on ? EPOLLIN : 0, .data.u64 = EMU_TAG_EP0 };

	if (e->ep0_watched == on)
		return;
	if (epoll_ctl(e->epfd, EPOLL_CTL_MOD, e->g.ep0, &ev))
		emu_log(e, 0, "epoll ep0: %s", strerror(errno));
	e->ep0_watched = on;
}

static void hold(struct emu *e, const struct usb_ctrlrequest *s, bool silent)
{
	if (!silent && !e->held) {
		e->st.ack_waits++;
		e->held_since = emu_now();
	}
	e->held = true;
	e->hold_silent = silent;
	e->held_setup = *s;
	emu_timer_set(e, T_ACK, emu_now() + 1000000ull *
		      (uint64_t)(silent ? e->opt.silent_ms : e->opt.ack_wait_ms));
	watch(e, false);
}

/* The hold is over (answered, stalled or cancelled): watch ep0 again. */
void ep0_release(struct emu *e)
{
	e->held = e->hold_silent = false;
	emu_timer_set(e, T_ACK, 0);
	watch(e, true);
}

static void setup(struct emu *e, const struct usb_ctrlrequest *s)
{
	bool in = s->bRequestType & USB_DIR_IN;
	struct nb_emu_frame *rec;
	uint8_t buf[8];

	emu_log(e, 3, "setup %02x %02x %04x %04x %04x", s->bRequestType,
		s->bRequest, le16toh(s->wValue), le16toh(s->wIndex),
		le16toh(s->wLength));
	if ((s->bRequestType & USB_TYPE_MASK) != USB_TYPE_VENDOR)
		goto bad;

	switch (s->bRequest) {
	case EMU_REQ_START:
		if (in)
			goto bad;
		e->st.start_requests++;
		e->protocol_started = true;
		e->status |= EMU_ST_STARTED;
		/* the status stage (and any data, which is ignored) */
		guard(true);
		if (read(e->g.ep0, buf, le16toh(s->wLength) < sizeof(buf) ?
			 le16toh(s->wLength) : sizeof(buf)) < 0 && errno != EIDRM)
			emu_log(e, 1, "ep0 0x13: %s", strerror(errno));
		guard(false);
		return;
	case EMU_REQ_VERSION:
		if (!in)
			goto bad;
		e->st.version_requests++;
		/* no_version: a board that does not start again (while it has cycles left) */
		if (e->misb.left[NB_EMU_MISB_NO_VERSION]) {
			e->st.stalls++;
			goto bad;
		}
		buf[0] = e->opt.version >> 24;
		buf[1] = e->opt.version >> 16;
		buf[2] = e->opt.version >> 8;
		buf[3] = e->opt.version;
		answer(e, s, buf, 4);
		return;
	case EMU_REQ_ACK:
		if (!in)
			goto bad;
		/*
		 * An unacknowledged frame is this request's only if no newer
		 * one is on its way: the host may have given up on that
		 * frame's 0x14 and sent another frame since.
		 */
		if (e->frames > e->acked && !usb_frame_in_flight(e)) {
			/* the frame's misbehaviour is known: it has arrived */
			if (e->cycle_misb == NB_EMU_MISB_SILENCE)
				hold(e, s, true);
			else
				ack(e, s);
		} else {
			hold(e, s, false);
		}
		return;
	case EMU_REQ_STATUS:
		if (!in)
			goto bad;
		if (e->cycle_misb == NB_EMU_MISB_SILENCE) {
			hold(e, s, true);
			return;
		}
		e->st.status_requests++;
		rec = record_find(&e->rec, e->frames - 1);
		if (rec)
			rec->flags |= NB_EMU_F_STATUS_ASKED;
		/* stall_status: a board without 0x15, which is provisional */
		if (e->cycle_misb == NB_EMU_MISB_STALL_STATUS) {
			e->st.stalls++;
			goto bad;
		}
		/*
		 * The host gave up on this cycle's answer; it asks 0x15 only
		 * after the 0x14 of the newest frame. A 0x15 read while a
		 * newer frame waits for its 0x14 is an old one that waited
		 * in FunctionFS (after a silent cycle) and must not withdraw
		 * the newer answer.
		 */
		if (e->frames == e->acked)
			exchange_drop_answer(e);
		buf[0] = e->status >> 8;
		buf[1] = e->status;
		answer(e, s, buf, 2);
		return;
	}
bad:
	emu_log(e, 1, "stalling request %02x %02x", s->bRequestType, s->bRequest);
	stall(e, s);
}

static void event(struct emu *e, const struct usb_functionfs_event *ev)
{
	if (ev->type < sizeof(event_name) / sizeof(event_name[0]) &&
	    event_name[ev->type])
		emu_log(e, 2, "ep0 event: %s", event_name[ev->type]);

	switch (ev->type) {
	case FUNCTIONFS_ENABLE:
		e->enabled = true;
		e->st.enables++;
		e->out_errors = 0;
		usb_submit_out(e);
		if (e->opt.ready_fd >= 0) {
			if (write(e->opt.ready_fd, "ready\n", 6) < 0)
				emu_log(e, 1, "ready fd: %s", strerror(errno));
			close(e->opt.ready_fd);
			e->opt.ready_fd = -1;
		}
		break;
	case FUNCTIONFS_DISABLE:
	case FUNCTIONFS_UNBIND:
		usb_cancel_in(e);
		usb_disabled(e);
		break;
	case FUNCTIONFS_SETUP:
		setup(e, &ev->u.setup);
		break;
	default:
		break;
	}
}

/* Read ep0's events until there are none, or a setup is held. */
void ep0_events(struct emu *e)
{
	struct usb_functionfs_event ev[4];
	ssize_t n;

	while (!e->held && !e->quit) {
		n = read(e->g.ep0, ev, sizeof(ev));
		if (n < 0) {
			/*
			 * EIDRM: a setup the host gave up on; EL2HLT: this
			 * read stalled one an interrupted answer left pending
			 */
			if (errno == EIDRM || errno == EINTR || errno == EL2HLT)
				continue;
			if (errno != EAGAIN)
				emu_log(e, 0, "ep0: %s", strerror(errno));
			return;
		}
		for (ssize_t i = 0; i < n / (ssize_t)sizeof(ev[0]); i++)
			event(e, &ev[i]);
	}
}

/*
 * A frame arrived: answer a 0x14 that waited for it. A silent hold ends
 * too: the host has moved on to this frame.
 */
void ep0_frame_arrived(struct emu *e)
{
	struct nb_emu_frame *rec;

	if (!e->held)
		return;
	if (e->hold_silent) {
		stall(e, &e->held_setup);	/* EIDRM if already cancelled */
		ep0_release(e);
		ep0_events(e);
		return;
	}
	if (e->cycle_misb == NB_EMU_MISB_SILENCE) {
		hold(e, &e->held_setup, true);
		return;
	}
	ack(e, &e->held_setup);
	if ((emu_now() - e->held_since) / 1000 > e->st.ack_wait_max_us)
		e->st.ack_wait_max_us = (emu_now() - e->held_since) / 1000;
	rec = record_find(&e->rec, e->frames - 1);
	if (rec)
		rec->flags |= NB_EMU_F_ACK_WAITED;
	ep0_release(e);
	ep0_events(e);
}

/*
 * A held 0x14 waited ack_wait_ms and its frame never came: stall it. A
 * silent hold ran out: the host has given up on it; let it go.
 */
void ep0_ack_timeout(struct emu *e)
{
	if (!e->held)
		return;
	if (!e->hold_silent) {
		emu_log(e, 1, "0x14 came %d ms before any frame: stalled",
			e->opt.ack_wait_ms);
		e->st.ack_timeouts++;
	}
	stall(e, &e->held_setup);
	ep0_release(e);
	ep0_events(e);
}
