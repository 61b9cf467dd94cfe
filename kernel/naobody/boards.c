// SPDX-License-Identifier: GPL-2.0-only
/*
 * Board tracking: the motor boards' table, which ones answered this
 * cycle, and their up and down events, debounced. A board that went down
 * gets no targets until the start-up work (startup.c) has shaken hands
 * with it and started it again.
 */
#include "naobody.h"

#define NAOBODY_BOARD_DOWN_MISSES	10	/* cycles without an answer */

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
			   ++nb->board_misses[i] >= NAOBODY_BOARD_DOWN_MISSES) {
			nb->boards_alive &= ~bit;
			naobody_queue_event(nb, NAOBODY_EVENT_BOARD_DOWN, i, 0);
			/*
			 * It may have lost power and its start command: no
			 * targets until it is shaken hands with and started
			 * again (the start-up work, startup.c).
			 */
			nb->boards_accepted &= ~bit;
			nb->boards_dropped |= bit;
			if (!test_bit(NAOBODY_QUIESCED, &nb->flags))
				schedule_delayed_work(&nb->startup_work, 0);
		}
	}
}
