/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * naobody: the NAO6 body (chest board) through /dev/naobody.
 *
 * This header is the contract for programs in any language. Everything in it
 * is fixed-size, naturally aligned and explicitly padded; reserved fields and
 * padding must be zero on input and are zero on output.
 *
 * Units
 * =====
 * The kernel publishes integer counts exactly as the boards report them and
 * takes targets in the same counts. It does no calibration and no floating
 * point. libnaobody (userspace/lib/naobody) converts counts to LoLA's units
 * with the preference block's gains and offsets;
 * Documentation/chest-board-protocol.rst gives every formula. Arrays follow
 * LoLA's orders (enum naobody_joint, enum naobody_touch, NAOBODY_FSR_*).
 *
 * The state ring (mmap)
 * =====================
 * mmap(NULL, info.ring_size, PROT_READ, MAP_SHARED, fd, 0) maps, read-only:
 *
 *   offset 0               struct naobody_ring_header
 *   records_offset         record_count records, record_size bytes apart
 *
 * The IN completion of every cycle writes record n into slot
 * n % record_count, then publishes head = n + 1. One writer, any number of
 * readers; a reader never blocks the writer, and a reader that falls behind
 * loses records rather than slowing the robot. Writer, per record n:
 *
 *   WRITE_ONCE(rec->seq, 2n + 1)      slot is being written (odd)
 *   smp_wmb()                         seq before the payload
 *   ... payload ...
 *   smp_wmb()                         payload before seq
 *   WRITE_ONCE(rec->seq, 2n + 2)      record n complete
 *   smp_store_release(&hdr->head, n + 1)
 *
 * Reader of record n (C11 atomics; the same in any language with an
 * acquire load and an acquire fence):
 *
 *   h = load_acquire(&hdr->head)      n must be < h
 *   s = load_acquire(&rec->seq)       must be 2n + 2, else n is being
 *                                     overwritten or already was
 *   copy the record
 *   atomic_thread_fence(acquire)
 *   load_relaxed(&rec->seq) == s      else the copy is torn: discard it
 *
 * A reader that keeps its own cursor c has lost h - c - record_count
 * records when that is positive; it skips ahead to h - record_count.
 *
 * The mapping is read-only: a 32-bit reader must load the 64-bit head and
 * seq with plain 64-bit loads (movq, fild), never with cmpxchg8b, which
 * writes. A 32-bit caller passes pointers zero-extended: (__u64)(uintptr_t).
 *
 * poll, read, write
 * =================
 * poll() reports EPOLLIN when the ring holds a record newer than the newest
 * this file has read(); read() of sizeof(struct naobody_record) bytes or
 * more returns the newest record and marks it read. It copies the record
 * from the ring by the protocol above, making the copy again when the writer
 * overwrote it meanwhile; after eight copies that each took longer than the
 * ring lasts (a buffer whose pages fault in that slowly) it fails with
 * EAGAIN, blocking or not, and marks nothing read. A reader that follows
 * the ring through the mapping can call read() too, to rearm poll().
 * After the device is gone, poll() reports EPOLLHUP | EPOLLERR and every
 * call fails with ENODEV; the mapping stays valid until munmap.
 *
 * write() takes one struct naobody_command and applies it from the next
 * cycle. Only the controller may write (EPERM otherwise). A file open for
 * writing becomes the controller with NAOBODY_IOC_CLAIM; there is at most
 * one (EBUSY). Readers need no role. (O_EXCL means nothing at open().)
 *
 * Safety
 * ======
 * NAOBODY_IOC_STOP works from any open file, read-only ones included (so
 * the device node's mode is what keeps strangers from it): from the next
 * OUT frame every stiffness is 0 and commands are accepted but not applied,
 * until NAOBODY_IOC_REARM (CAP_SYS_ADMIN). The stop latches whatever its
 * argument: EFAULT or EINVAL (a reserved field set, an unknown reason,
 * recorded as NAOBODY_STOP_UNSPEC) are reported after latching, and ENODEV
 * after latching the body that re-enumerates at the same port.
 * NAOBODY_IOC_STOP_NOW is the same without an argument. The latch survives
 * a re-enumeration of the board (replug, reset, unbind and bind). When the controller closes its
 * file, releases the role, or writes nothing for the controller_timeout_ms
 * module parameter, stiffness ramps to 0 over ramp_ms; only a command that
 * sets stiffness ends the ramp (Documentation/naobody.rst).
 *
 * Events
 * ======
 * Generic netlink family NAOBODY_GENL_NAME, multicast group
 * NAOBODY_GENL_MCGRP_EVENTS: one NAOBODY_GENL_CMD_EVENT message per touch
 * change, stop, rearm, board up or down, controller loss and disconnect.
 * Each message carries NAOBODY_GENL_A_DEVICE and NAOBODY_GENL_A_EVENT, plus
 * the attributes listed at enum naobody_event. Listeners skip attributes
 * they don't know.
 *
 * Errors
 * ======
 * EINVAL a value out of range or a reserved field not zero; E2BIG a newer
 * struct's tail this kernel doesn't know, not zero; EOPNOTSUPP an
 * unknown flag or op; EPERM not the controller, missing CAP_SYS_ADMIN for a
 * state-changing request, or a writable mapping asked for; EBADF
 * NAOBODY_IOC_CLAIM on a file not open for writing; EBUSY the controller
 * role is taken; ENODEV the device is gone; ECANCELED a chest board request
 * cut short by a suspend or a reset; ENOTTY an unknown ioctl.
 */
#ifndef _UAPI_LINUX_NAOBODY_H
#define _UAPI_LINUX_NAOBODY_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define NAOBODY_ABI_VERSION	1

/* LoLA's joint order: the index of every per-joint array. */
enum naobody_joint {
	NAOBODY_HEAD_YAW,
	NAOBODY_HEAD_PITCH,
	NAOBODY_L_SHOULDER_PITCH,
	NAOBODY_L_SHOULDER_ROLL,
	NAOBODY_L_ELBOW_YAW,
	NAOBODY_L_ELBOW_ROLL,
	NAOBODY_L_WRIST_YAW,
	NAOBODY_L_HIP_YAW_PITCH,
	NAOBODY_L_HIP_ROLL,
	NAOBODY_L_HIP_PITCH,
	NAOBODY_L_KNEE_PITCH,
	NAOBODY_L_ANKLE_PITCH,
	NAOBODY_L_ANKLE_ROLL,
	NAOBODY_R_HIP_ROLL,
	NAOBODY_R_HIP_PITCH,
	NAOBODY_R_KNEE_PITCH,
	NAOBODY_R_ANKLE_PITCH,
	NAOBODY_R_ANKLE_ROLL,
	NAOBODY_R_SHOULDER_PITCH,
	NAOBODY_R_SHOULDER_ROLL,
	NAOBODY_R_ELBOW_YAW,
	NAOBODY_R_ELBOW_ROLL,
	NAOBODY_R_WRIST_YAW,
	NAOBODY_L_HAND,
	NAOBODY_R_HAND,
	NAOBODY_JOINTS		/* 25 */
};

/* LoLA's touch order: bit i of naobody_sensors.touch. */
enum naobody_touch {
	NAOBODY_TOUCH_CHEST_BUTTON,
	NAOBODY_TOUCH_HEAD_FRONT,	/* head bus: not in chest board frames */
	NAOBODY_TOUCH_HEAD_MIDDLE,	/* head bus */
	NAOBODY_TOUCH_HEAD_REAR,	/* head bus */
	NAOBODY_TOUCH_L_FOOT_LEFT,
	NAOBODY_TOUCH_L_FOOT_RIGHT,
	NAOBODY_TOUCH_L_HAND_BACK,
	NAOBODY_TOUCH_L_HAND_LEFT,
	NAOBODY_TOUCH_L_HAND_RIGHT,
	NAOBODY_TOUCH_R_FOOT_LEFT,
	NAOBODY_TOUCH_R_FOOT_RIGHT,
	NAOBODY_TOUCH_R_HAND_BACK,
	NAOBODY_TOUCH_R_HAND_LEFT,
	NAOBODY_TOUCH_R_HAND_RIGHT,
	NAOBODY_TOUCHES		/* 14 */
};

/* Foot pressure sensors, LoLA's order: left foot 0..3, right foot 4..7. */
#define NAOBODY_FSR_FRONT_LEFT	0
#define NAOBODY_FSR_FRONT_RIGHT	1
#define NAOBODY_FSR_REAR_LEFT	2
#define NAOBODY_FSR_REAR_RIGHT	3
#define NAOBODY_FSR_RIGHT_FOOT	4	/* add to the above for the right foot */
#define NAOBODY_FSRS		8

/* naobody_sensors.updated: what this cycle's answer carried. */
#define NAOBODY_UPDATED_IMU		(1U << 0)
#define NAOBODY_UPDATED_BATTERY		(1U << 1)
#define NAOBODY_UPDATED_SONAR		(1U << 2)
#define NAOBODY_UPDATED_L_FOOT		(1U << 3)
#define NAOBODY_UPDATED_R_FOOT		(1U << 4)
#define NAOBODY_UPDATED_JOINTS		(1U << 5)	/* any joint board */
#define NAOBODY_UPDATED_CHEST_BUTTON	(1U << 6)

/*
 * The body's sensors, in counts. A value keeps its last decoded count until
 * a message updates it; updated says which groups this cycle refreshed.
 * Scales: Documentation/chest-board-protocol.rst ("Sensor counts").
 */
struct naobody_sensors {
	__s32 accelerometer[3];		/* x, y, z */
	__s32 gyroscope[3];		/* x, y, z */
	__s32 angles[2];		/* x, y: the unit's own estimate */
	__s32 battery_charge;
	__s32 battery_status;		/* the battery's status register */
	__s32 battery_current;
	__s32 battery_temperature;
	__s32 fsr[NAOBODY_FSRS];
	__s32 sonar[2];			/* left, right: first echo */
	__u32 touch;			/* bit per enum naobody_touch */
	__u32 updated;			/* NAOBODY_UPDATED_* */
	__s32 joint_position[NAOBODY_JOINTS];
	__s32 joint_current[NAOBODY_JOINTS];
	__s32 joint_temperature[NAOBODY_JOINTS];
	__u8 joint_status[NAOBODY_JOINTS];	/* 0 normal .. 3 at the maximum */
	__u8 reserved[11];
};

/*
 * Actuator targets, in the same counts as the sensors. stiffness is in
 * thousandths (0..1000); LEDs are 0..255 per colour channel.
 */
struct naobody_actuators {
	__s32 position[NAOBODY_JOINTS];
	__u16 stiffness[NAOBODY_JOINTS];
	__u8 chest_led[3];		/* red, green, blue */
	__u8 l_foot_led[3];
	__u8 r_foot_led[3];
	__u8 sonar;			/* NAOBODY_SONAR_* enable bits */
};

#define NAOBODY_STIFFNESS_MAX	1000
/*
 * What the wire's target field carries (16 bits, signed; the layout is
 * provisional: Documentation/chest-board-protocol.rst). write() refuses a
 * position outside with EINVAL rather than clamp it.
 */
#define NAOBODY_POSITION_MIN	(-32768)
#define NAOBODY_POSITION_MAX	32767
#define NAOBODY_SONAR_LEFT	(1U << 0)
#define NAOBODY_SONAR_RIGHT	(1U << 1)

/* naobody_command.flags: which groups of set apply; the rest keep theirs. */
#define NAOBODY_SET_POSITION	(1U << 0)
#define NAOBODY_SET_STIFFNESS	(1U << 1)
#define NAOBODY_SET_LEDS	(1U << 2)
#define NAOBODY_SET_SONAR	(1U << 3)
#define NAOBODY_SET_ALL		(NAOBODY_SET_POSITION | NAOBODY_SET_STIFFNESS | \
				 NAOBODY_SET_LEDS | NAOBODY_SET_SONAR)

/*
 * What write() takes. size is sizeof(struct naobody_command) as the caller
 * was built with, and write() passes exactly size bytes (EINVAL otherwise).
 * The kernel takes any size from NAOBODY_COMMAND_SIZE_VER0 on: fields a
 * smaller (older) struct lacks count as zero, and the tail of a larger
 * (newer) one that this kernel doesn't know must be zero (E2BIG
 * otherwise). Sizes above a page are EINVAL.
 */
struct naobody_command {
	__u32 size;
	__u32 flags;			/* NAOBODY_SET_*; unknown bits: EOPNOTSUPP */
	__u64 reserved;			/* must be zero */
	struct naobody_actuators set;
};

#define NAOBODY_COMMAND_SIZE_VER0	176	/* the first struct naobody_command */

/* naobody_record.flags */
#define NAOBODY_REC_STOPPED	(1U << 0)	/* death switch latched */
#define NAOBODY_REC_CONTROLLED	(1U << 1)	/* a controller holds the role */
#define NAOBODY_REC_RAMPING	(1U << 2)	/* controller lost: ramping down */
#define NAOBODY_REC_NO_ANSWER	(1U << 3)	/* no valid answer this cycle */

/* naobody_record.errors: what went wrong in this cycle */
#define NAOBODY_ERR_OVERRUN	(1U << 0)	/* previous cycle still in flight */
#define NAOBODY_ERR_CRC		(1U << 1)	/* answer frame failed its CRC */
#define NAOBODY_ERR_TABLE	(1U << 2)	/* length table did not add up */
#define NAOBODY_ERR_TIMEOUT	(1U << 3)	/* a step exceeded 20 ms */
#define NAOBODY_ERR_STALL	(1U << 4)	/* an endpoint stalled */
#define NAOBODY_ERR_ACK		(1U << 5)	/* 0x14 acknowledged another CRC */
#define NAOBODY_ERR_MESSAGE	(1U << 6)	/* a message was malformed */
#define NAOBODY_ERR_IO		(1U << 7)	/* any other transfer error */

/* One cycle. */
struct naobody_record {
	__u64 seq;			/* 2n + 2 when record n is complete */
	__u64 cycle;			/* timer cycles since the device started */
	__u64 out_submit_ns;		/* CLOCK_MONOTONIC: bulk OUT submitted */
	__u64 in_complete_ns;		/* CLOCK_MONOTONIC: answer decoded */
	__u32 flags;			/* NAOBODY_REC_* */
	__u32 errors;			/* NAOBODY_ERR_* */
	__u64 boards_up;		/* bit i: board i (NAOBODY_IOC_GET_BOARDS) answered */
	struct naobody_sensors sensors;
	struct naobody_actuators commanded;	/* what this cycle's OUT frame carried */
};

#define NAOBODY_RING_MAGIC	0x4e414f42	/* "NAOB" */

/* naobody_ring_header.flags */
#define NAOBODY_RING_DISCONNECTED	(1U << 0)	/* no more records will come */

/* Page 0 of the mapping. */
struct naobody_ring_header {
	__u32 magic;			/* NAOBODY_RING_MAGIC */
	__u32 abi_version;		/* NAOBODY_ABI_VERSION */
	__u32 header_size;		/* sizeof(struct naobody_ring_header) */
	__u32 record_size;		/* stride; >= sizeof(struct naobody_record) */
	__u32 record_count;		/* a power of two */
	__u32 records_offset;		/* of record 0, from the mapping's start */
	__u64 head;			/* records published; the newest is head - 1 */
	__u32 period_ns;		/* the cycle period */
	__u32 flags;			/* NAOBODY_RING_* */
	__u64 reserved[4];
};

/* NAOBODY_IOC_GET_INFO, and naobody_info.flags */
#define NAOBODY_INFO_STOPPED		(1U << 0)
#define NAOBODY_INFO_CONTROLLED		(1U << 1)	/* someone holds the role */
#define NAOBODY_INFO_CONTROLLER		(1U << 2)	/* this file holds it */
#define NAOBODY_INFO_PREFS_VALID	(1U << 3)	/* preference block read, CRC ok */
#define NAOBODY_INFO_READY		(1U << 4)	/* start-up's first pass done */

/*
 * naobody_info.calibration: the preference block, which holds the joints'
 * zero positions and the foot sensors' gains (the calibration libnaobody
 * applies). Without it, counts convert with the defaults, and a joint
 * stiffened at a "zero" that isn't moves where nobody asked.
 */
enum naobody_calibration {
	NAOBODY_CALIB_PENDING,		/* not read yet: the start-up is reading it */
	NAOBODY_CALIB_READ,		/* read, CRC valid: NAOBODY_IOC_GET_PREFS has it */
	NAOBODY_CALIB_RETRYING,		/* a read failed; read again, with backoff */
	NAOBODY_CALIB_FAILED,		/* read whole, CRC wrong every time: final */
	__NAOBODY_CALIB_MAX
};

/*
 * NAOBODY_IOC_GET_INFO. The kernel accepts any size in the ioctl number
 * from NAOBODY_INFO_SIZE_VER0 on: it fills what both sides know, zeroes
 * the rest of a larger caller's struct, and says in size how many bytes it
 * filled, so fields past size are ones this kernel doesn't have.
 */
struct naobody_info {
	__u32 abi_version;
	__u32 flags;			/* NAOBODY_INFO_* */
	__u8 driver_version[32];	/* NUL-terminated */
	__u32 chest_version;		/* vendor request 0x02's 4 bytes, big endian */
	__u32 period_ns;
	__u32 record_size;
	__u32 record_count;
	__u64 ring_size;		/* bytes to mmap */
	__u32 boards;			/* entries NAOBODY_IOC_GET_BOARDS returns */
	__u32 stop_reason;		/* enum naobody_stop_reason, while stopped */
	__u32 size;			/* out: bytes filled in */
	__u32 calibration;		/* enum naobody_calibration */
	__u64 reserved[3];
};

#define NAOBODY_INFO_SIZE_VER0	104	/* the first struct naobody_info */

enum naobody_stop_reason {
	NAOBODY_STOP_UNSPEC,
	NAOBODY_STOP_TOOL,		/* naoctl or another program */
	NAOBODY_STOP_API,		/* the robot API's Stop */
	NAOBODY_STOP_GUARD,		/* the UDP stop (naoguard) */
	NAOBODY_STOP_BUTTON,		/* a button policy in userspace */
	__NAOBODY_STOP_MAX
};

struct naobody_stop {
	__u32 reason;			/* enum naobody_stop_reason */
	__u32 reserved;
};

#define NAOBODY_PREFS_SIZE	4635
#define NAOBODY_PREFS_VALID	(1U << 0)

/*
 * NAOBODY_IOC_GET_PREFS copies the raw preference block read at probe.
 * size: in, the buffer's size; out, the block's size. A short buffer fails
 * with ENOSPC (size says what is needed); an unreadable block with ENODATA.
 */
struct naobody_prefs {
	__u64 data;			/* user pointer */
	__u32 size;
	__u32 flags;			/* out: NAOBODY_PREFS_VALID */
};

/* naobody_board.kind */
#define NAOBODY_BOARD_JOINT	1
#define NAOBODY_BOARD_HAND	2
#define NAOBODY_BOARD_FOOT	3

/* naobody_board.state: the handshake's outcome */
#define NAOBODY_BOARD_UNKNOWN	0	/* not asked yet */
#define NAOBODY_BOARD_ACCEPTED	1	/* version accepted, command sent */
#define NAOBODY_BOARD_REJECTED	2	/* version not accepted, 3 tries */
#define NAOBODY_BOARD_SILENT	3	/* never answered */

struct naobody_board {
	__u8 bus;
	__u8 address;
	__u8 kind;			/* NAOBODY_BOARD_JOINT, _HAND, _FOOT */
	__u8 state;			/* NAOBODY_BOARD_UNKNOWN .. _SILENT */
	__u8 config_version;		/* from the handshake answer */
	__u8 hw_revision;
	__u8 board_type;
	__u8 tries;			/* handshake requests sent */
	__u32 serial;
	__u32 reserved;
	__u8 status[16];		/* the answer's raw status bytes */
	__u8 config[16];		/* the answer's raw configuration bytes */
};

/*
 * NAOBODY_IOC_GET_BOARDS: count is, in, the room in the array and, out, the
 * number of boards; when that is larger, only room entries were written.
 */
struct naobody_boards {
	__u64 entries;			/* user pointer to struct naobody_board[] */
	__u32 count;
	__u32 entry_size;		/* sizeof(struct naobody_board) */
};

#define NAOBODY_CHEST_ID_SLOTS	4	/* slot 3 is the body id */
#define NAOBODY_CHEST_ID_LEN	20

struct naobody_chest_id {
	__u32 slot;
	__u32 reserved;
	__u8 id[24];			/* NUL-terminated, 20 characters at most */
};

/* NAOBODY_IOC_CHEST_MODE ops; all but QUERY need CAP_SYS_ADMIN. */
enum naobody_chest_mode_op {
	NAOBODY_CHEST_QUERY_BOOTLOADER,	/* result: 1 in the boot loader */
	NAOBODY_CHEST_LED_START,
	NAOBODY_CHEST_LED_STOP,
	NAOBODY_CHEST_LED_FIRMWARE_UPDATE,
	NAOBODY_CHEST_LED_UNUSABLE,
	NAOBODY_CHEST_LED_MANUAL,
	NAOBODY_CHEST_LED_WATCHDOG_RESET,
	NAOBODY_CHEST_CYCLE_MOTOR_POWER,	/* not safe on a running robot */
	NAOBODY_CHEST_CYCLE_HEAD_POWER,	/* not safe on a running robot */
	__NAOBODY_CHEST_MODE_MAX
};

struct naobody_chest_mode {
	__u32 op;			/* enum naobody_chest_mode_op */
	__u32 result;			/* out */
	__u64 reserved;
};

/* NAOBODY_IOC_HARAKIRI ops (CAP_SYS_ADMIN) */
#define NAOBODY_HARAKIRI_POWER_OFF	0
#define NAOBODY_HARAKIRI_RESET		1

struct naobody_harakiri {
	__u32 op;
	__u32 reserved;
};

/*
 * 0xB9 is unassigned in Documentation/userspace-api/ioctl/ioctl-number.rst;
 * naobody uses 0x00-0x1f and n_robot 0x20-0x3f.
 */
#define NAOBODY_IOC_MAGIC	0xB9

#define NAOBODY_IOC_GET_INFO	_IOR(NAOBODY_IOC_MAGIC, 0x00, struct naobody_info)
#define NAOBODY_IOC_CLAIM	_IO(NAOBODY_IOC_MAGIC, 0x01)
#define NAOBODY_IOC_RELEASE	_IO(NAOBODY_IOC_MAGIC, 0x02)
#define NAOBODY_IOC_STOP	_IOW(NAOBODY_IOC_MAGIC, 0x03, struct naobody_stop)
#define NAOBODY_IOC_REARM	_IO(NAOBODY_IOC_MAGIC, 0x04)
#define NAOBODY_IOC_GET_PREFS	_IOWR(NAOBODY_IOC_MAGIC, 0x05, struct naobody_prefs)
#define NAOBODY_IOC_GET_BOARDS	_IOWR(NAOBODY_IOC_MAGIC, 0x06, struct naobody_boards)
#define NAOBODY_IOC_GET_CHEST_ID _IOWR(NAOBODY_IOC_MAGIC, 0x07, struct naobody_chest_id)
#define NAOBODY_IOC_CHEST_MODE	_IOWR(NAOBODY_IOC_MAGIC, 0x08, struct naobody_chest_mode)
#define NAOBODY_IOC_HARAKIRI	_IOW(NAOBODY_IOC_MAGIC, 0x09, struct naobody_harakiri)
/* NAOBODY_IOC_STOP without an argument: the reason is NAOBODY_STOP_UNSPEC. */
#define NAOBODY_IOC_STOP_NOW	_IO(NAOBODY_IOC_MAGIC, 0x0a)

/* Generic netlink events */
#define NAOBODY_GENL_NAME		"naobody"
#define NAOBODY_GENL_VERSION		1
#define NAOBODY_GENL_MCGRP_EVENTS	"events"

enum naobody_genl_cmd {
	NAOBODY_GENL_CMD_UNSPEC,
	NAOBODY_GENL_CMD_EVENT,
	__NAOBODY_GENL_CMD_MAX
};

/*
 * Events and the attributes each carries besides DEVICE and EVENT:
 *   TOUCH            TOUCH (u32, the new bits), TOUCH_CHANGED (u32)
 *   STOP             STOP_REASON (u32)
 *   REARM            -
 *   BOARD_UP/DOWN    BOARD (u32, index into NAOBODY_IOC_GET_BOARDS)
 *   CONTROLLER_LOST  -
 *   DISCONNECT       -
 */
enum naobody_event {
	NAOBODY_EVENT_UNSPEC,
	NAOBODY_EVENT_TOUCH,
	NAOBODY_EVENT_STOP,
	NAOBODY_EVENT_REARM,
	NAOBODY_EVENT_BOARD_UP,
	NAOBODY_EVENT_BOARD_DOWN,
	NAOBODY_EVENT_CONTROLLER_LOST,
	NAOBODY_EVENT_DISCONNECT,
	__NAOBODY_EVENT_MAX
};

enum naobody_genl_attr {
	NAOBODY_GENL_A_UNSPEC,
	NAOBODY_GENL_A_DEVICE,		/* u32: N of /dev/naobodyN (0: /dev/naobody) */
	NAOBODY_GENL_A_EVENT,		/* u32: enum naobody_event */
	NAOBODY_GENL_A_CYCLE,		/* u64: the cycle it happened in */
	NAOBODY_GENL_A_TOUCH,		/* u32 */
	NAOBODY_GENL_A_TOUCH_CHANGED,	/* u32 */
	NAOBODY_GENL_A_STOP_REASON,	/* u32 */
	NAOBODY_GENL_A_BOARD,		/* u32 */
	NAOBODY_GENL_A_PAD,
	__NAOBODY_GENL_A_MAX
};

#define NAOBODY_GENL_A_MAX	(__NAOBODY_GENL_A_MAX - 1)

#endif /* _UAPI_LINUX_NAOBODY_H */
