// SPDX-License-Identifier: GPL-2.0-only
/*
 * The exchange: a command frame arrives on bulk OUT; it is checked and
 * decoded with the codec, recorded, applied to the body; its answer is
 * built with the codec and queued on bulk IN; then a 0x14 that waited for
 * it is answered.
 *
 * An answer belongs to its cycle. It is queued when its frame arrives, and
 * withdrawn (usb_cancel_in()) when the next frame arrives or the host asks
 * 0x15, whichever comes first: the host reads an answer only after the
 * 0x14 of its own frame, and that 0x14 is answered only after the frame
 * has arrived, so by then any older answer is gone from the endpoint.
 *
 * What goes into an answer, in this order and as far as it fits in what
 * the host reads (in_size, 512 bytes): answers to the frame's requests
 * (handshakes, acknowledges of start commands, preference pieces, id
 * strings, chest mode results; what doesn't fit waits for the next
 * frame), the inertial unit, battery and sonar if the frame asked for
 * them, the chest button, and the data of every started board.
 *
 * Answers are at least EMU_MIN_ANSWER (65) bytes long. dummy_hcd emulates
 * a one-request FIFO on IN endpoints: a request of up to 64 bytes queued
 * on an idle endpoint is copied into it and completed at once, and no
 * usb_ep_dequeue() can take it back afterwards, so a short answer the host
 * never read would be the next cycle's. A shorter answer is filled up with
 * acknowledges from the chest board (04 03 05 00), which a driver decodes
 * and has no use for.
 */
#include <errno.h>
#include <string.h>

#include "emu.h"

static void pend(struct emu *e, uint8_t type, uint8_t board, uint8_t value,
		 uint16_t piece)
{
	struct emu_pending *p;

	if (e->npending >= EMU_PENDING_MAX) {
		emu_log(e, 1, "too many requests waiting for an answer: one dropped");
		return;
	}
	p = &e->pending[e->npending++];
	p->type = type;
	p->board = board;
	p->value = value;
	p->piece = piece;
}

/* Does a message of len bytes still fit, with reserve bytes kept free? */
static bool fits(const struct nb_frame_builder *b, size_t len, size_t reserve)
{
	if (!(b->flags & NB_FRAME_UNBOUNDED) && b->count >= NB_FRAME_MAX_MSGS)
		return false;
	return (size_t)b->end + b->count + len + 1 + NB_FRAME_CRC_LEN + reserve <=
	       b->cap;
}

static int put_pending(struct emu *e, struct nb_frame_builder *b,
		       const struct emu_pending *p, size_t reserve)
{
	struct nb_msg_info info = { .type = p->type, .board = NB_NO_BOARD };
	uint8_t hs[NB_HANDSHAKE_LEN];
	int len = nb_msg_len(p->type, p->board);

	switch (p->type) {
	case NB_MSG_HANDSHAKE:
		info.board = p->board;
		nb_handshake_encode(&e->boards.hs[p->board], hs);
		info.data = hs;
		info.len = sizeof(hs);
		break;
	case NB_MSG_ACK:
		info.board = p->board;
		info.value = 0;
		break;
	case NB_MSG_PREF_PIECE:
		info.piece = p->piece;
		info.data = e->boards.prefs + (size_t)p->piece * NB_PREFS_PIECE;
		info.len = nb_prefs_piece_len(p->piece);
		break;
	case NB_MSG_ID_STRING:
		info.value = p->value;
		info.data = (const uint8_t *)e->boards.id[p->value];
		info.len = strlen(e->boards.id[p->value]);
		break;
	case NB_MSG_CHEST_MODE:
		info.value = p->value;
		break;
	}
	if (len < 0 || !fits(b, (size_t)len, reserve))
		return -ENOSPC;
	return nb_in_msg_encode(b, &info, &e->body.now);
}

static void put_msg(struct emu *e, struct nb_frame_builder *b, uint8_t type,
		    uint8_t board, size_t reserve)
{
	struct nb_msg_info info = { .type = type, .board = board };
	int len = nb_msg_len(type, board);

	if (len > 0 && fits(b, (size_t)len, reserve))
		nb_in_msg_encode(b, &info, &e->body.now);
}

/*
 * Fill an answer frame begun in b: the waiting request answers, then the
 * body, each message only if it fits with reserve bytes to spare.
 */
void exchange_fill(struct emu *e, struct nb_frame_builder *b, size_t reserve)
{
	static const uint8_t data_type[] = {
		[NAOBODY_BOARD_JOINT] = NB_MSG_JOINT_BOARD,
		[NAOBODY_BOARD_HAND] = NB_MSG_HAND_BOARD,
		[NAOBODY_BOARD_FOOT] = NB_MSG_FOOT_BOARD,
	};
	unsigned int i, sent = 0;

	while (sent < e->npending &&
	       put_pending(e, b, &e->pending[sent], reserve) == 0)
		sent++;
	memmove(e->pending, e->pending + sent,
		(e->npending - sent) * sizeof(e->pending[0]));
	e->npending -= sent;

	if (e->want_imu)
		put_msg(e, b, NB_MSG_IMU, NB_NO_BOARD, reserve);
	if (e->want_battery)
		put_msg(e, b, NB_MSG_BATTERY, NB_NO_BOARD, reserve);
	if (e->want_sonar)
		put_msg(e, b, NB_MSG_SONAR, NB_NO_BOARD, reserve);
	put_msg(e, b, NB_MSG_CHEST_BUTTON, NB_NO_BOARD, reserve);
	for (i = 0; i < NB_BOARDS; i++) {
		const struct nb_board_desc *d = nb_board(i);

		if ((!(e->boards.started & (1ULL << i)) && !e->opt.all_boards) ||
		    (e->boards.down & (1ULL << i)))
			continue;
		put_msg(e, b, data_type[d->kind], (uint8_t)i, reserve);
	}
}

/* Fill an answer up to EMU_MIN_ANSWER bytes with acknowledges. */
void exchange_pad(struct emu *e, struct nb_frame_builder *b)
{
	const struct nb_msg_info ack = { .type = NB_MSG_ACK, .board = NB_NO_BOARD,
					 .bus = 3, .address = 5 };

	while (b->end + b->count + NB_FRAME_CRC_LEN < EMU_MIN_ANSWER &&
	       fits(b, NB_MSG_HDR + 1, 0) &&
	       nb_in_msg_encode(b, &ack, &e->body.now) == 0)
		;
}

/* The ordinary answer, in e->answer; its length, or a negative errno. */
static int build_answer(struct emu *e)
{
	struct nb_frame_builder b;

	nb_frame_begin(&b, e->answer, (size_t)e->opt.in_size, NB_FRAME_IN);
	exchange_fill(e, &b, 0);
	exchange_pad(e, &b);
	return nb_frame_end(&b, NULL);
}

/* Decode a well-formed frame's messages into the record; act on them. */
static void decode(struct emu *e, const struct nb_frame *f,
		   struct nb_emu_frame *rec)
{
	struct nb_msg_info info;
	struct nb_msg_iter it;
	const uint8_t *m;
	size_t l;
	int t;

	nb_msg_iter_init(&it, f);
	while ((m = nb_msg_next(&it, &l))) {
		t = nb_out_msg_decode(m, l, &rec->act, &info);
		if (t <= 0) {
			rec->bad_messages++;
			continue;
		}
		rec->types |= 1U << t;
		switch (t) {
		case NB_MSG_TARGETS:
		case NB_MSG_FOOT_LEDS:
			rec->targets |= 1ULL << info.board;
			break;
		case NB_MSG_HANDSHAKE_REQ:
			rec->handshake |= 1ULL << info.board;
			if (!(e->boards.down & (1ULL << info.board)))
				pend(e, NB_MSG_HANDSHAKE, info.board, 0, 0);
			break;
		case NB_MSG_START:
			rec->start |= 1ULL << info.board;
			if (e->boards.down & (1ULL << info.board))
				break;
			e->boards.started |= 1ULL << info.board;
			pend(e, NB_MSG_ACK, info.board, 0, 0);
			break;
		case NB_MSG_IMU_REQ:
			rec->requests |= NB_REQ_SENSORS;
			e->want_imu = true;
			break;
		case NB_MSG_BATTERY_REQ:
			rec->requests |= NB_REQ_SENSORS;
			e->want_battery = true;
			break;
		case NB_MSG_SONAR_REQ:
			rec->requests |= NB_REQ_SENSORS;
			e->want_sonar = true;
			break;
		case NB_MSG_CHEST_LED:
			rec->requests |= NB_REQ_CHEST_LED;
			break;
		case NB_MSG_PREF_READ:
			rec->requests |= NB_REQ_PREF;
			rec->pref_piece = info.piece;
			/* no_prefs: a board slow to serve its block (while it has cycles left) */
			if (!e->misb.left[NB_EMU_MISB_NO_PREFS])
				pend(e, NB_MSG_PREF_PIECE, NB_NO_BOARD, 0, info.piece);
			break;
		case NB_MSG_ID_READ:
			rec->requests |= NB_REQ_ID;
			rec->id_slot = info.value;
			/* no_ids: a board whose id strings don't come (while it has cycles left) */
			if (!e->misb.left[NB_EMU_MISB_NO_IDS])
				pend(e, NB_MSG_ID_STRING, NB_NO_BOARD, info.value, 0);
			break;
		case NB_MSG_CHEST_MODE_REQ:
			rec->requests |= NB_REQ_CHEST_MODE;
			rec->chest_mode = info.value;
			e->boards.chest_led_op = info.value;
			/* the query: 1 in the boot loader; every other op succeeds */
			pend(e, NB_MSG_CHEST_MODE, NB_NO_BOARD,
			     info.value == NAOBODY_CHEST_QUERY_BOOTLOADER && e->boards.bootloader, 0);
			break;
		case NB_MSG_HARAKIRI:
			rec->requests |= NB_REQ_HARAKIRI;
			rec->harakiri = info.value;
			e->harakiri_op = info.value;
			emu_timer_set(e, T_HARAKIRI, emu_now() + 30000000);
			break;
		}
	}
	body_command(&e->body, &rec->act, rec->targets);
}

void exchange_frame(struct emu *e, const uint8_t *buf, size_t len)
{
	uint64_t seq = e->frames;
	struct nb_emu_frame *rec;
	struct nb_frame f;
	bool zlp;
	int r, n;

	rec = record_new(&e->rec, seq, buf, len);
	rec->rx_ns = emu_now();
	e->frames++;
	e->st.frames++;
	e->status &= EMU_ST_STARTED;
	e->want_imu = e->want_battery = e->want_sonar = false;

	/* A frame is checked as a whole first: CRC, size, length table. */
	r = nb_frame_parse(&f, buf, len, NB_FRAME_OUT | NB_FRAME_NO_CRC);
	if (len >= NB_FRAME_CRC_LEN) {
		rec->crc = (uint32_t)buf[0] << 24 | (uint32_t)buf[1] << 16 |
			   (uint32_t)buf[2] << 8 | buf[3];
		rec->crc_calc = nb_crc32(0, buf + NB_FRAME_CRC_LEN,
					 len - NB_FRAME_CRC_LEN);
		if (rec->crc == rec->crc_calc)
			rec->flags |= NB_EMU_F_CRC_OK;
	}
	if (r == 0) {
		rec->flags |= NB_EMU_F_TABLE_OK;
		rec->messages = f.count;
	}
	e->last_crc = rec->crc_calc;
	if ((rec->flags & (NB_EMU_F_CRC_OK | NB_EMU_F_TABLE_OK)) ==
	    (NB_EMU_F_CRC_OK | NB_EMU_F_TABLE_OK)) {
		decode(e, &f, rec);
	} else {
		e->st.bad_frames++;
		e->status |= EMU_ST_BAD_FRAME;
		emu_log(e, 1, "frame %llu: %s", (unsigned long long)seq,
			!(rec->flags & NB_EMU_F_CRC_OK) ? "bad CRC" : "bad length table");
	}

	/* The previous answer, if the host never read it, is stale now. */
	exchange_drop_answer(e);
	/* --physics: the model's joints, not the scripted follow */
	physics_sense(e);
	body_step(&e->body, seq, e->opt.follow && !physics_on(e));

	e->cycle_misb = (uint8_t)misb_pick(e);
	rec->misbehaviour = e->cycle_misb;
	if (e->cycle_misb) {
		rec->flags |= NB_EMU_F_MISBEHAVED;
		e->st.misbehaviours++;
	}

	switch (e->cycle_misb) {
	case NB_EMU_MISB_DISCONNECT:
		/* gone before the acknowledge: the host's 0x14 fails */
		usb_unbind(e);
		emu_timer_set(e, T_RECONNECT, emu_now() +
			      (uint64_t)e->misb.arg[NB_EMU_MISB_DISCONNECT] * 1000000);
		control_frames_arrived(e);
		return;
	case NB_EMU_MISB_NAK:
	case NB_EMU_MISB_SILENCE:
	case NB_EMU_MISB_STALL_STATUS:	/* ep0.c stalls its 0x15 */
		e->status |= EMU_ST_NO_ANSWER;
		break;
	case NB_EMU_MISB_STALL_IN:
		e->status |= EMU_ST_NO_ANSWER;
		if (usb_halt_in(e) == 0)
			e->st.stalls++;
		break;
	default:
		zlp = true;
		n = misb_answer(e, e->cycle_misb, &zlp);
		if (n < 0)
			n = build_answer(e);
		if (n < 0) {
			emu_log(e, 0, "cannot build an answer: %s", strerror(-n));
			break;
		}
		/* a ZLP ends a 64n-byte answer that doesn't fill the read */
		zlp = zlp && n % EMU_PACKET == 0 && n < e->opt.in_size;
		emu_log(e, 3, "frame %llu: answer of %d bytes%s", (unsigned long long)seq,
			n, zlp ? " and a ZLP" : "");
		if (usb_submit_in(e, seq, (size_t)n, zlp) == 0) {
			rec->flags |= NB_EMU_F_ANSWER_QUEUED;
			rec->answer_len = (uint32_t)n;
			e->st.answers++;
		}
		break;
	}
	if (e->cycle_misb == NB_EMU_MISB_STALL_OUT && usb_halt_out(e) == 0)
		e->st.stalls++;

	control_frames_arrived(e);
	ep0_frame_arrived(e);
	/* the answer is out: its targets to the physics thread (physics.c) */
	physics_cycle(e, rec->rx_ns);
}

/* The IN transfer of frame seq's answer completed with res. */
void exchange_answer_done(struct emu *e, uint64_t seq, long res)
{
	struct nb_emu_frame *rec = record_find(&e->rec, seq);

	emu_log(e, 3, "answer %llu: %ld", (unsigned long long)seq, res);
	if (rec && res >= 0 && (uint32_t)res == rec->answer_len) {
		rec->flags |= NB_EMU_F_ANSWER_READ;
		rec->answer_ns = emu_now();
		e->st.answers_read++;
		return;
	}
	if (rec)
		rec->flags |= NB_EMU_F_ANSWER_DROPPED;
	e->st.answers_dropped++;
}

/* Withdraw an answer the host hasn't read. */
void exchange_drop_answer(struct emu *e)
{
	if (!usb_in_queued(e))
		return;
	usb_cancel_in(e);
	e->status |= EMU_ST_DROPPED;
}
