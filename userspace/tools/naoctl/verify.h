/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naoctl verify's parts (see capture_cmds.h for the files).
 *
 * "ours" is the codec's layout (nb_field(), nb_board(), nb_msg_layout(),
 * read through the codec's API); "found" starts as ours and takes every
 * correction the capture proves. An entry is confirmed only when the
 * capture decides it and agrees, contradicted only when it decides it and
 * disagrees (with the correction when verify can infer one), and not
 * exercised otherwise, with the reason.
 */
#ifndef NAOCTL_VERIFY_H
#define NAOCTL_VERIFY_H

#include "capture_cmds.h"

enum verdict { V_CONFIRMED, V_CONTRADICTED, V_NOT_EXERCISED };

#define V_ENTRIES	160
#define V_MAX_MSGS	255

struct ventry {
	char name[48];
	int verdict;
	char ours[120];
	char found[120];	/* the correction, for a contradicted entry */
	char evidence[240];
};

/* One frame split into messages by the found table reading */
struct vframe {
	const struct cap_event *ev;
	uint16_t off[V_MAX_MSGS];	/* from the frame's first byte */
	uint8_t len[V_MAX_MSGS];
	uint16_t n;
	bool ok;
};

/* Messages of one kind, bus, address and length: one per frame at most */
struct vgroup {
	uint8_t kind, bus, addr, len;
	bool out;
	const uint8_t **msg;	/* [frame index] or NULL */
	size_t count;
};

#define V_GROUPS	128

struct vctx {
	struct naoctl_capture *nc;
	struct vframe *in, *out;
	size_t nin, nout;
	struct layout ours, found;
	struct ventry e[V_ENTRIES];
	unsigned int ne;
	struct vgroup g[V_GROUPS];
	unsigned int ng;
	bool table_ok;		/* frames could be split */
	/* LoLA sample s -> IN frame index (for sensors) or OUT frame index
	 * (for commands) at lag 0; -1 for none */
	long *s_in;
	long *c_out;
	bool verbose;
};

struct ventry *v_entry(struct vctx *v, const char *name, int verdict,
		       const char *evidence_fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* verify_frames.c */
void v_ours_layout(struct layout *l);
void v_check_frames(struct vctx *v);

/* verify_fields.c */
void v_group_frames(struct vctx *v);
void v_check_boards(struct vctx *v);
void v_check_fields(struct vctx *v);
void v_check_rest(struct vctx *v);

/* verify.c */
int v_write_patch(const struct vctx *v, const char *header, const char *out);

#endif
