/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libnbcapture: a recording of a real chest board and what HAL's LoLA said
 * at the same moments, for naocap(8) (which writes them) and naoctl replay
 * and verify (which read them). Documentation/capture.rst describes the
 * files.
 *
 *   usbmon.c     a usbmon pcap (through libpcap) -> the chest board's
 *                transfers: OUT frames, IN frames, vendor requests
 *   lolalog.c    the LoLA log: LoLA's sensor packets and the commands the
 *                recorder answered with, timestamped, and their decoding
 *   layout.c     a layout description file: the provisional entries of
 *                nb_layout.h as text, the format verify proposes and the
 *                planted-layout emulator plays
 *   archive.c    the archive's files (capture.pcap, lola.log, marks,
 *                versions) in a directory or a .tar.gz
 *
 * Nothing here uses the codec: the reader must not know the layout it is
 * used to check.
 */
#ifndef NB_CAPTURE_H
#define NB_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------------------
 * The chest board's transfers in a usbmon capture
 */
enum cap_ev_type {
	CAP_OUT_FRAME,		/* bulk OUT, data from the submission */
	CAP_IN_FRAME,		/* bulk IN, data from the completion */
	CAP_VENDOR_IN,		/* vendor IN request (0x02, 0x14, 0x15...) */
	CAP_VENDOR_OUT,		/* vendor OUT request (0x13...) */
	CAP_BULK_FAILED,	/* a bulk transfer that completed with an error */
};

struct cap_event {
	uint64_t ts_ns;		/* the completion's time (CLOCK_REALTIME) */
	uint8_t type;		/* enum cap_ev_type */
	uint8_t request;	/* vendor requests: bRequest */
	int32_t status;		/* the URB's status: 0, -ETIMEDOUT... */
	uint32_t len;		/* bytes at data */
	uint32_t busdev;	/* CAP_BUSDEV() of the device it belongs to */
	uint8_t *data;
};

/* What cap_read_pcap() found besides the events; why it failed */
struct cap_capture {
	struct cap_event *ev;
	size_t n, cap;
	uint16_t bus, dev;	/* the chest board's */
	uint16_t vid, pid;	/* from its device descriptor, 0 if not seen */
	uint64_t packets;	/* usbmon records read */
	uint64_t other;		/* records of other devices */
	uint64_t truncated;	/* transfers whose data the capture cut */
	uint64_t unmatched;	/* completions without their submission */
	bool cut;		/* the file ends inside a record */
	char devices[256];	/* the devices seen, "bus:dev vid:pid ..." */
	char err[512];		/* the reason of a failure, for a person */
};

#define CAP_ANY_DEVICE	0	/* busdev: find the chest board itself */
#define CAP_BUSDEV(bus, dev)	((uint32_t)(bus) << 16 | (dev))

int cap_read_pcap(const char *path, uint32_t busdev, struct cap_capture *c);
int cap_read_pcap_file(FILE *f, uint32_t busdev, struct cap_capture *c);
void cap_free(struct cap_capture *c);
bool cap_is_chest_board(uint16_t vid, uint16_t pid);

/* ------------------------------------------------------------------------
 * The LoLA log
 *
 * "NBLOLA1\n", then records: u64 time (ns, CLOCK_REALTIME, the clock of
 * usbmon's timestamps), u32 length, u8 direction ('S' a sensor packet
 * LoLA sent, 'C' a command the recorder sent), three zero bytes, the
 * MessagePack bytes. All little endian.
 */
#define LOLA_LOG_MAGIC		"NBLOLA1\n"
#define LOLA_JOINTS		25
#define LOLA_PACKET_MAX		4096

struct lola_sensors {
	uint64_t ts_ns;
	float acc[3], angles[2], battery[4], current[LOLA_JOINTS], fsr[8];
	float gyro[3], position[LOLA_JOINTS], sonar[2];
	float stiffness[LOLA_JOINTS], temperature[LOLA_JOINTS], touch[14];
	float status[LOLA_JOINTS];
	uint32_t have;		/* bit per LOLA_K_*: the key was there */
};

struct lola_command {
	uint64_t ts_ns;
	float position[LOLA_JOINTS], stiffness[LOLA_JOINTS];
	float chest[3], lfoot[3], rfoot[3];
	bool sonar[2];
	uint32_t have;
};

enum lola_key {
	LOLA_K_ACC, LOLA_K_ANGLES, LOLA_K_BATTERY, LOLA_K_CURRENT, LOLA_K_FSR,
	LOLA_K_GYRO, LOLA_K_POSITION, LOLA_K_SONAR, LOLA_K_STIFFNESS,
	LOLA_K_TEMPERATURE, LOLA_K_TOUCH, LOLA_K_STATUS, LOLA_K_CHEST,
	LOLA_K_LFOOT, LOLA_K_RFOOT, __LOLA_K_MAX
};

struct lola_log {
	struct lola_sensors *s;
	size_t ns, caps;
	struct lola_command *c;
	size_t nc, capc;
	uint64_t bad;		/* records that did not decode */
	char err[256];
};

float *lola_sensor_slot(struct lola_sensors *s, int key);
float *lola_command_slot(struct lola_command *c, int key);
int lola_log_read(const char *path, struct lola_log *log);
void lola_log_free(struct lola_log *log);
int lola_log_open(FILE *f);
int lola_log_append(FILE *f, uint64_t ts_ns, char dir, const void *buf,
		    size_t len);
int lola_sensors_decode(const void *buf, size_t len, struct lola_sensors *s);
int lola_command_decode(const void *buf, size_t len, struct lola_command *c);
size_t lola_command_encode(const struct lola_command *c, void *buf,
			   size_t cap);
size_t lola_sensors_encode(const struct lola_sensors *s, const char *body_id,
			   void *buf, size_t cap);

/* ------------------------------------------------------------------------
 * Layout description files (Documentation/capture.rst, "Layout files")
 */
enum lay_crc_cover {
	LAY_CRC_ALL,		/* every byte but the CRC's (ours) */
	LAY_CRC_ZEROED,		/* the whole frame, the CRC's bytes as 0 */
	LAY_CRC_MESSAGES,	/* the messages alone, not the table */
	__LAY_CRC_MAX
};

enum lay_table {
	LAY_TABLE_U8_REVERSE,	/* u8 entries, last message first (ours) */
	LAY_TABLE_U8_FORWARD,	/* u8 entries, first message first */
	LAY_TABLE_U16BE_REVERSE,	/* u16 big endian, last message first */
	__LAY_TABLE_MAX
};

#define LAY_NAME	40
#define LAY_FIELDS	64
#define LAY_BOARDS	24

struct lay_field {
	char name[LAY_NAME];	/* as nb_field(): "imu.acc_x" */
	int offset, width, stride;
	bool is_signed, little;	/* little: little endian */
	int64_t num, den;	/* the scale */
	bool set;
};

struct lay_board {
	char name[LAY_NAME];
	int bus, address;
	bool set;
};

struct layout {
	int crc_cover;		/* enum lay_crc_cover, -1 unset */
	int crc_little;		/* the frame CRC's byte order; -1 unset */
	int ack_little;		/* the 0x14 answer's CRC order; -1 unset */
	int table;		/* enum lay_table, -1 unset */
	struct lay_field field[LAY_FIELDS];
	unsigned int nfields;
	struct lay_board board[LAY_BOARDS];
	unsigned int nboards;
};

extern const char *const lay_crc_cover_names[__LAY_CRC_MAX];
extern const char *const lay_table_names[__LAY_TABLE_MAX];

void layout_init(struct layout *l);
int layout_read(const char *path, struct layout *l, char *err, size_t errlen);
int layout_parse_line(struct layout *l, const char *line, char *err,
		      size_t errlen);
int layout_write(FILE *f, const struct layout *l);
struct lay_field *layout_field(struct layout *l, const char *name);
const struct lay_field *layout_field_c(const struct layout *l,
				       const char *name);
struct lay_board *layout_board(struct layout *l, const char *name);
const struct lay_board *layout_board_c(const struct layout *l,
				       const char *name);
uint64_t lay_get(const uint8_t *p, int width, bool little);
int64_t lay_get_value(const uint8_t *msg, size_t len,
		      const struct lay_field *f, int index, bool *ok);
void lay_put(uint8_t *p, int width, bool little, uint64_t v);
uint32_t lay_crc32(const uint8_t *p, size_t n);

/* ------------------------------------------------------------------------
 * The archive: a directory, or a .tar.gz of one
 */
struct cap_archive {
	char dir[4096];		/* where its files are */
	char tmp[4096];		/* a directory we unpacked into, or "" */
};

#define CAP_FILE_PCAP		"capture.pcap"
#define CAP_FILE_LOLA		"lola.log"
#define CAP_FILE_MARKS		"marks"
#define CAP_FILE_VERSIONS	"versions"

int cap_archive_open(const char *path, struct cap_archive *a, char *err,
		     size_t errlen);
void cap_archive_close(struct cap_archive *a);
int cap_archive_path(const struct cap_archive *a, const char *file,
		     char *buf, size_t len);
int cap_archive_busdev(const struct cap_archive *a, uint32_t *busdev);
int cap_archive_pack(const char *dir, const char *tarball, char *err,
		     size_t errlen);

#endif
