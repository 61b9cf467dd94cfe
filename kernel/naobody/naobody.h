/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobody.ko internals: the per-device state and each file's API.
 *
 *   main.c     module parameters, USB probe/disconnect, power management
 *   startup.c  the spec's start-up: preferences, id strings, board handshake
 *   cycle.c    the hrtimer-driven exchange: OUT frame, 0x14, IN frame, 0x15;
 *              its thread, its recovery, its quiesce
 *   body.c     what goes into each OUT frame, the limp frame, the record
 *   safety.c   the safety policy: stop, rearm, controller loss, the ramp
 *   requests.c the request scheduler: queue, plan, match, resend, fail
 *   answers.c  answer decoding: sensors, answering boards, requests
 *   boards.c   board tracking: the table, up and down events
 *   ring.c     the mmap'd state ring (the writer side of the uapi protocol)
 *   fops.c     /dev/naobody: open, read, write, poll, mmap, ioctl
 *   sysfs.c    counters and state under /sys/class/naobody/<dev>/
 *   latch.c    the death switch's latch, kept across re-enumerations
 *   genl.c     generic netlink events
 */
#ifndef NAOBODY_H
#define NAOBODY_H

#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/kfifo.h>
#include <linux/kref.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/usb.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <linux/naobody.h>

#include "codec/nb_codec.h"

#define NAOBODY_MAX_DEVICES	8
#define NAOBODY_LATCH_KEY_LEN	32

/* Module parameters (main.c) */
extern unsigned int naobody_period_us;
extern unsigned int naobody_ring_records;
extern unsigned int naobody_controller_timeout_ms;
extern unsigned int naobody_ramp_ms;
extern bool naobody_provisional_power_requests;
extern unsigned int naobody_cycle_priority;
extern bool naobody_start_latched;
extern unsigned int naobody_hold_cycles;

/*
 * The fault policy: what the driver does when the exchange fails, in one
 * place (Documentation/naobody.rst, "Faults", has the table and why).
 * *Provisional*: the spec says nothing of the board's own; these are ours.
 *
 *   - an ep0 stall (0x14, 0x15) is a protocol stall, which the next setup
 *     clears: counted, nothing else; after a stalled 0x14 the answer is
 *     read anyway (cycle.c);
 *   - a bulk stall: the recovery work clears that halt, with no limp
 *     frame; the ticks wait for it, at most NAOBODY_CLEAR_TIMEOUT_MS;
 *   - a cycle without a valid answer (timeout, CRC, table, I/O error, a
 *     stall) is a miss. A board's targets are held through hold_cycles
 *     (10) misses of its data; then it is down: it gets stiffness 0 in the
 *     next frame, and in every one after until a 0x14 carries such a
 *     frame's CRC, and nothing more until it is shaken hands with and
 *     started again (boards.c);
 *   - from NAOBODY_PACE_AFTER misses the cycle skips every other tick
 *     through the hold, a breath for a board that fell behind; once the
 *     hold is over it backs off: 1, 2, 4 ... NAOBODY_BACKOFF_MAX_TICKS
 *     ticks between tries; a stop, a ramp's start or a board going down
 *     end the wait;
 *   - every NAOBODY_RECOVER_HOLDS holds of misses: the limp frame, both
 *     bulk halts cleared; from NAOBODY_RESET_HOLDS holds: a reset (its
 *     pre_reset's limp frame), and the start-up again.
 */
#define NAOBODY_PACE_AFTER		3
#define NAOBODY_BACKOFF_MAX_TICKS	64
#define NAOBODY_RECOVER_HOLDS		2
#define NAOBODY_RESET_HOLDS		6
#define NAOBODY_CLEAR_TIMEOUT_MS	250

/* --- ring.c --------------------------------------------------------- */

/* Copies read() makes of the newest record before it gives up (-EAGAIN),
 * each overwritten by the writer while it was made (ring.c).
 */
#define NAOBODY_RING_READ_TRIES	8

struct naobody_ring {
	void *mem;			/* header page, then the records */
	struct naobody_ring_header *hdr;
	size_t size;			/* bytes, whole pages */
	u32 mask;			/* record_count - 1 */
	u32 stride;			/* record_size */
	/*
	 * records_offset, kept here: the writer never takes where to write
	 * from the page it shares with every reader.
	 */
	u32 records_offset;
	u64 next;			/* the next record's number */
};

int naobody_ring_init(struct naobody_ring *ring, unsigned int count, u32 period_ns);
void naobody_ring_free(struct naobody_ring *ring);
struct naobody_record *naobody_ring_begin(struct naobody_ring *ring);
void naobody_ring_commit(struct naobody_ring *ring);
u64 naobody_ring_head(struct naobody_ring *ring);
int naobody_ring_copy_newest(struct naobody_ring *ring, void __user *to, u64 *head);
void naobody_ring_set_flags(struct naobody_ring *ring, u32 flags);
int naobody_ring_mmap(struct naobody_ring *ring, struct vm_area_struct *vma);

/* --- the device ------------------------------------------------------ */

/* naobody_dev.flags (atomic bit numbers) */
enum {
	NAOBODY_GONE,		/* disconnected: no more I/O, files get ENODEV */
	NAOBODY_HALTED,		/* the cycle must not submit: stopping, suspended */
	NAOBODY_RECOVERING,	/* recovery work owns the endpoints */
	NAOBODY_RESTARTING,	/* the start-up work starts the board over */
	NAOBODY_QUIESCED,	/* suspended, resetting or gone: no cycle_start */
};

/* Where the cycle's URB chain is. */
enum naobody_step {
	NAOBODY_STEP_IDLE,
	NAOBODY_STEP_OUT,	/* bulk OUT frame in flight */
	NAOBODY_STEP_ACK,	/* vendor IN 0x14 in flight */
	NAOBODY_STEP_IN,	/* bulk IN answer in flight */
	NAOBODY_STEP_STATUS,	/* vendor IN 0x15 in flight */
};

struct naobody_stats {
	u64 cycles;		/* cycles started */
	u64 answers;		/* valid answers decoded */
	u64 overruns;		/* timer fired with a cycle still in flight */
	u64 crc_errors;
	u64 bad_tables;
	u64 bad_messages;
	u64 timeouts;
	u64 stalls;
	u64 ack_mismatches;
	u64 io_errors;
	u64 skipped;		/* ticks skipped while backing off or recovering */
	u64 limp_frames;	/* last frames sent before going quiet */
	u64 events_dropped;
	u64 calib_failures;	/* preference block reads that failed */
	u64 chest_requests_max;	/* most chest board requests queued at once */
};

/* naobody_request.type: what the request asks for */
enum naobody_req_type {
	NAOBODY_RQ_PREF,		/* a preference piece (param) */
	NAOBODY_RQ_ID,			/* an id string (param: slot) */
	NAOBODY_RQ_CHEST_MODE,		/* param: enum naobody_chest_mode_op */
	NAOBODY_RQ_HARAKIRI,		/* param: NAOBODY_HARAKIRI_*; no answer */
	NAOBODY_RQ_HANDSHAKE,		/* board's 00 20 */
	NAOBODY_RQ_START,		/* board's 01 07 or 01 08; no answer */
};

/*
 * A request that rides in the OUT frames (preference pieces, id strings,
 * handshakes, chest board requests) and whose answer, if it has one, comes
 * back in an IN frame. A process-context caller queues it with
 * naobody_request_run() and sleeps; the cycle puts it in a frame, matches
 * its answer, resends it when the answer doesn't come, and completes it.
 * See requests.c.
 */
struct naobody_request {
	struct list_head node;
	u8 type;			/* enum naobody_req_type */
	u8 board;			/* HANDSHAKE, START: board index */
	u16 param;
	u8 sends_left;			/* frames it may still go out in */
	u8 waited;			/* cycles waited for the current answer */
	bool planned;			/* chosen for the frame being built */
	bool in_frame;			/* went out; waiting for its answer */
	u8 value;			/* answer: chest mode result */
	u8 answer_len;
	u8 answer[NB_HANDSHAKE_LEN];	/* answer: piece, id string, handshake */
	int status;			/* 0, -ETIMEDOUT, -EIO, -ENODEV */
	struct completion done;
};

struct naobody_event_item {
	u32 event;			/* enum naobody_event */
	u32 a, b;			/* event-specific: touch/changed, reason, board */
	u64 cycle;
};

struct naobody_dev {
	struct kref kref;
	struct usb_device *udev;
	struct usb_interface *intf;
	struct device *dev;		/* the class device, /dev/naobody[N] */
	unsigned int index;		/* N; 0 is /dev/naobody */
	unsigned long flags;		/* NAOBODY_GONE ... */

	unsigned int out_pipe, in_pipe;

	/* Held by the recovery work while it touches an endpoint, and across
	 * a reset (pre_reset to post_reset). Requests need no lock: the cycle
	 * carries them.
	 */
	struct mutex io_mutex;
	/* What start-up learned (prefs, ids, boards), for the ioctls. */
	struct mutex info_lock;
	/*
	 * One chest board request (chest mode, harakiri) at a time: any
	 * reader may ask, and the cycle walks the request list with
	 * interrupts off, so callers queue here, not there.
	 */
	struct mutex chest_lock;

	/*
	 * Everything the cycle touches, from its thread and URB completions.
	 * Never taken by the timers' callbacks, which on PREEMPT_RT run in
	 * hard interrupt context, where a spinlock_t sleeps.
	 */
	spinlock_t lock;
	struct hrtimer timer;		/* the cycle period */
	struct hrtimer step_timer;	/* the 20 ms step timeout */
	/*
	 * The cycle's thread, at cycle_priority: the timers only wake it
	 * (tick_work, step_work); it does the work. NULL until cycle_init.
	 */
	struct kthread_worker *worker;
	struct task_struct *worker_task;
	struct kthread_work tick_work;
	struct kthread_work step_work;
	atomic_t ticks;			/* periods since tick_work last ran */
	ktime_t step_timeout;		/* 20 ms; KUnit's cases make it longer */
	ktime_t period;
	struct usb_anchor anchor;
	struct urb *out_urb, *ack_urb, *in_urb, *status_urb;
	struct urb *limp_urb;		/* naobody_cycle_send_limp()'s frame */
	struct completion limp_done;
	struct mutex limp_lock;		/* quiesce's and recovery's last frames */
	u8 *out_buf, *in_buf, *ack_buf, *status_buf;
	struct usb_ctrlrequest *ack_setup, *status_setup;
	enum naobody_step step;
	bool step_timed_out;
	ktime_t step_deadline;		/* when the step in flight times out */
	u32 out_len;
	u32 out_crc;
	bool out_ok;			/* this cycle's OUT frame went out */
	bool ack_ok;			/* ...and its 0x14 carried its CRC */
	u64 cycle;			/* ticks since the cycle started */
	u64 chain_cycle;		/* the tick the chain in flight started in */
	ktime_t out_submit;
	u32 errors;			/* NAOBODY_ERR_* of the cycle in flight */
	unsigned int fails;		/* consecutive cycles without an answer */
	unsigned int backoff;		/* ticks to skip before the next try */
	int stalled_pipe;		/* for the recovery work */
	bool recover_all;		/* ...or both bulk endpoints, maybe a reset */
	struct naobody_stats stats;
	u16 chest_status;		/* the last 0x15 answer */

	/* The body: decoded state and what is sent. */
	struct naobody_sensors sensors;
	struct naobody_actuators target;	/* the controller's */
	struct naobody_actuators sent;		/* in the last OUT frame */
	u64 boards_accepted;			/* get targets every cycle */
	u64 boards_up;				/* answered this cycle */
	u64 boards_alive;			/* answered lately (events) */
	u64 boards_dropped;			/* went down: the work asks again */
	/*
	 * Boards that get stiffness 0 in every frame until a 0x14 carries
	 * the CRC of one that did (boards.c): they went down, or a stop or
	 * a ramp began while they were not accepted.
	 */
	u64 boards_limp;
	u64 out_limp;				/* ...those in the frame in flight */
	u8 board_misses[NB_BOARDS];
	u32 last_touch;

	/* Safety: the death switch and the controller. */
	bool stopped;
	u32 stop_reason;
	/* The latch's keys (latch.c): the USB path, and the body id once read. */
	char latch_path[NAOBODY_LATCH_KEY_LEN];
	char latch_body_id[NAOBODY_LATCH_KEY_LEN];
	u64 boards_targeted;			/* ever got targets: the limp frame's */
	const void *controller;		/* the controlling file, or NULL */
	ktime_t last_command;
	bool lost;			/* controller lost; cleared by a write, a claim */
	bool ramping;
	ktime_t ramp_start;
	unsigned int ramp_len_ms;	/* ramp_ms when this ramp started */
	u16 ramp_from[NAOBODY_JOINTS];

	/* Requests riding in the frames, oldest first. */
	struct list_head requests;
	u8 chest_mode_hold;		/* cycles before the next chest mode request */
	unsigned int chest_requests;	/* chest mode and harakiri requests queued */

	/* What start-up learned; under info_lock. */
	u32 chest_version;
	bool prefs_read, prefs_valid;
	u32 calibration;		/* NAOBODY_CALIB_*; READ_ONCE() outside */
	unsigned int calib_reads;	/* whole blocks read with a bad CRC */
	u8 *prefs;			/* NAOBODY_PREFS_SIZE bytes */
	struct naobody_board boards[NB_BOARDS];
	u8 chest_ids[NAOBODY_CHEST_ID_SLOTS][24];
	bool chest_id_read[NAOBODY_CHEST_ID_SLOTS];

	struct naobody_ring ring;
	wait_queue_head_t wait;		/* readers, woken per record */

	bool startup_done;		/* the start-up work ran to its end */
	unsigned int restart_tries;	/* of the board's start, since the reset */
	struct delayed_work startup_work;
	/* Reads again what the start-up could not read: see startup.c. */
	struct delayed_work retry_work;
	unsigned int retries;		/* since the last success, for the backoff */
	struct work_struct recovery_work;
	struct work_struct event_work;
	DECLARE_KFIFO(events, struct naobody_event_item, 64);
};

void naobody_dev_put(struct naobody_dev *nb);
bool naobody_version_accepted(unsigned int version);
struct naobody_dev *naobody_dev_get_by_index(unsigned int index);

static inline bool naobody_gone(struct naobody_dev *nb)
{
	return test_bit(NAOBODY_GONE, &nb->flags);
}

/* --- cycle.c --------------------------------------------------------- */
void naobody_quiesce(struct naobody_dev *nb, const char *why);
int naobody_cycle_init(struct naobody_dev *nb);
void naobody_cycle_free(struct naobody_dev *nb);
void naobody_cycle_start(struct naobody_dev *nb);
void naobody_cycle_stop(struct naobody_dev *nb);
void naobody_recovery_work(struct work_struct *work);
int naobody_cycle_send_limp(struct naobody_dev *nb, const char *why);

/* --- body.c ---------------------------------------------------------- */
int naobody_body_build_frame(struct naobody_dev *nb, u8 *buf, u32 cap, u32 *crc);
int naobody_body_build_limp(struct naobody_dev *nb, u8 *buf, u32 cap, u32 *crc);
void naobody_body_publish(struct naobody_dev *nb, ktime_t now);

/* --- answers.c ------------------------------------------------------- */
void naobody_body_take_answer(struct naobody_dev *nb, const u8 *buf, u32 len);
void naobody_body_no_answer(struct naobody_dev *nb);

/* --- boards.c -------------------------------------------------------- */
void naobody_boards_init(struct naobody_dev *nb);
void naobody_boards_reset(struct naobody_dev *nb);
void naobody_boards_answered(struct naobody_dev *nb, unsigned int board);
void naobody_boards_track(struct naobody_dev *nb);
void naobody_boards_limp_unaccepted(struct naobody_dev *nb);
void naobody_boards_accept(struct naobody_dev *nb, unsigned int board);

/* --- requests.c ------------------------------------------------------ */
int naobody_request_queue(struct naobody_dev *nb, struct naobody_request *r);
int naobody_request_wait(struct naobody_dev *nb, struct naobody_request *r);
int naobody_request_run(struct naobody_dev *nb, struct naobody_request *r);
int naobody_request_simple(struct naobody_dev *nb, u8 type, u8 board, u16 param,
			   struct naobody_request *out);
void naobody_requests_fail_all(struct naobody_dev *nb, int status);
void naobody_requests_plan(struct naobody_dev *nb, struct nb_out_plan *plan);
void naobody_requests_commit(struct naobody_dev *nb);
void naobody_requests_match(struct naobody_dev *nb, const struct nb_msg_info *info);
void naobody_requests_age(struct naobody_dev *nb);

/* --- safety.c -------------------------------------------------------- */
void naobody_safety_stop(struct naobody_dev *nb, u32 reason);
void naobody_safety_rearm(struct naobody_dev *nb);
void naobody_safety_controller_lost(struct naobody_dev *nb);
void naobody_safety_apply(struct naobody_dev *nb, ktime_t now);
void naobody_safety_latch_new(struct naobody_dev *nb);
void naobody_safety_latch_unidentified(struct naobody_dev *nb);
void naobody_queue_event(struct naobody_dev *nb, u32 event, u32 a, u32 b);

/* --- latch.c -------------------------------------------------------- */
bool naobody_latch_set(const char *path, const char *body_id, u32 reason);
void naobody_latch_clear(const char *path, const char *body_id);
bool naobody_latch_get(const char *path, const char *body_id, u32 *reason);
bool naobody_latch_same_body(const char *path_a, const char *body_id_a,
			     const char *path_b, const char *body_id_b);
bool naobody_latch_get_any_body(u32 *reason);
bool naobody_latch_first_sight(const char *path);

/* --- startup.c ------------------------------------------------------- */
int naobody_startup_probe(struct naobody_dev *nb);
void naobody_startup_restart(struct naobody_dev *nb);
void naobody_startup_work(struct work_struct *work);
void naobody_retry_work(struct work_struct *work);
void naobody_retry_schedule(struct naobody_dev *nb);

/* --- fops.c, sysfs.c, genl.c ------------------------------------------ */
int naobody_chrdev_init(void);
void naobody_chrdev_exit(void);
int naobody_chrdev_add(struct naobody_dev *nb);
void naobody_chrdev_remove(struct naobody_dev *nb);
extern const struct attribute_group *naobody_groups[];
void naobody_sysfs_init(void);
int naobody_genl_init(void);
void naobody_genl_exit(void);
void naobody_event_work(struct work_struct *work);

#endif /* NAOBODY_H */
