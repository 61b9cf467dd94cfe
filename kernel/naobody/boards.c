// SPDX-License-Identifier: GPL-2.0-only
/*
 * Board tracking: the motor boards' table, which ones answered this
 * cycle, and their up and down events, debounced. A board that went down
 * (hold_cycles cycles without its data: the fault policy in
 * naobody.h) may still be powered and hear us: it gets stiffness 0 in the
 * next frame, and in every frame after until a 0x14 carries the CRC of one
 * of them (boards_limp), then no targets until the start-up work
 * (startup.c) has shaken hands with it and started it again.
 */
#include "naobody.h"

void naobody_boards_init(struct naobody_dev *nb)
{
	unsigned int i;

	for (i = 0; i < NB_BOARDS; i++) {
		const struct nb_board_desc *d = nb_board(i);

		nb->boards[i].bus = d->bus;
		nb->boards[i].address = d->address;
		nb->boards[i].kind = d->kind;
		nb->boards[i].state = NAOBODY_BOARD_UNKNOWN;
	}
}

/* After a reset: every board is asked again, and nothing is sent to any. */
void naobody_boards_reset(struct naobody_dev *nb)
{
	unsigned long irqflags;

	spin_lock_irqsave(&nb->lock, irqflags);
	nb->boards_accepted = 0;
	nb->boards_limp = 0;
	nb->boards_alive = 0;
	nb->boards_dropped = 0;
	memset(nb->board_misses, 0, sizeof(nb->board_misses));
	spin_unlock_irqrestore(&nb->lock, irqflags);
	mutex_lock(&nb->info_lock);
	memset(nb->boards, 0, sizeof(nb->boards));
	naobody_boards_init(nb);
	mutex_unlock(&nb->info_lock);
	WRITE_ONCE(nb->startup_done, false);
}

void naobody_boards_answered(struct naobody_dev *nb, unsigned int board)
{
	if (board >= NB_BOARDS)
		return;
	nb->boards_up |= BIT_ULL(board);
}

/* Board up and down events for accepted boards, debounced. */
void naobody_boards_track(struct naobody_dev *nb)
{
	unsigned int i;

	for (i = 0; i < NB_BOARDS; i++) {
		u64 bit = BIT_ULL(i);

		if (!(nb->boards_accepted & bit))
			continue;
		if (nb->boards_up & bit) {
			nb->board_misses[i] = 0;
			if (!(nb->boards_alive & bit)) {
				nb->boards_alive |= bit;
				naobody_queue_event(nb, NAOBODY_EVENT_BOARD_UP, i, 0);
			}
		} else if ((nb->boards_alive & bit) &&
			   ++nb->board_misses[i] >= READ_ONCE(naobody_hold_cycles)) {
			nb->boards_alive &= ~bit;
			naobody_queue_event(nb, NAOBODY_EVENT_BOARD_DOWN, i, 0);
			/*
			 * It may have lost power and its start command: no
			 * targets until it is shaken hands with and started
			 * again (the start-up work, startup.c). It may as well
			 * still hear us: limp from the next frame, back-off or
			 * not.
			 */
			nb->boards_accepted &= ~bit;
			nb->boards_limp |= bit;
			nb->backoff = 0;
			nb->boards_dropped |= bit;
			if (!test_bit(NAOBODY_QUIESCED, &nb->flags))
				schedule_delayed_work(&nb->startup_work, 0);
		}
	}
}

/*
 * A stop or a ramp began: every board that got targets and is not
 * accepted now (it went down, or is being started again) gets stiffness 0
 * again until a 0x14 acknowledges it: whatever it last heard, it may still
 * be powered. Caller holds nb->lock.
 */
void naobody_boards_limp_unaccepted(struct naobody_dev *nb)
{
	lockdep_assert_held(&nb->lock);
	nb->boards_limp |= nb->boards_targeted & ~nb->boards_accepted;
}

/* The start-up work accepted and started board: its targets from now on. */
void naobody_boards_accept(struct naobody_dev *nb, unsigned int board)
{
	unsigned long irqflags;

	spin_lock_irqsave(&nb->lock, irqflags);
	nb->boards_accepted |= BIT_ULL(board);
	nb->boards_limp &= ~BIT_ULL(board);
	spin_unlock_irqrestore(&nb->lock, irqflags);
}
