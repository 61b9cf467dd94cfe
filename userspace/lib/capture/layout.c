// SPDX-License-Identifier: GPL-2.0-only
/*
 * Layout description files: the provisional entries of nb_layout.h as
 * text, one entry a line. naoctl verify writes the layout a capture shows
 * in this format; the planted-layout capture generator
 * (chestboard-emu-capture) reads one and plays it. The format knows
 * nothing of the codec's constants: a file says everything.
 *
 *   # a comment
 *   crc.cover all|zeroed|messages     what the frame CRC covers
 *   crc.order be|le                   its byte order in the frame
 *   ack.order be|le                   its byte order in the 0x14 answer
 *   table u8-reverse|u8-forward|u16be-reverse
 *   board NAME BUS ADDRESS            a motor or foot board
 *   field NAME OFFSET WIDTH s|u be|le NUM/DEN [STRIDE]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include <capture/capture.h>

const char *const lay_crc_cover_names[__LAY_CRC_MAX] = {
	[LAY_CRC_ALL] = "all",
	[LAY_CRC_ZEROED] = "zeroed",
	[LAY_CRC_MESSAGES] = "messages",
};

const char *const lay_table_names[__LAY_TABLE_MAX] = {
	[LAY_TABLE_U8_REVERSE] = "u8-reverse",
	[LAY_TABLE_U8_FORWARD] = "u8-forward",
	[LAY_TABLE_U16BE_REVERSE] = "u16be-reverse",
};

void layout_init(struct layout *l)
{
	memset(l, 0, sizeof(*l));
	l->crc_cover = l->crc_little = l->ack_little = l->table = -1;
}

static int pick(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static int order(const char *s)
{
	return !strcmp(s, "le") ? 1 : !strcmp(s, "be") ? 0 : -1;
}

struct lay_field *layout_field(struct layout *l, const char *name)
{
	for (unsigned int i = 0; i < l->nfields; i++)
		if (!strcmp(l->field[i].name, name))
			return &l->field[i];
	if (l->nfields == LAY_FIELDS || strlen(name) >= LAY_NAME)
		return NULL;
	snprintf(l->field[l->nfields].name, LAY_NAME, "%s", name);
	return &l->field[l->nfields++];
}

const struct lay_field *layout_field_c(const struct layout *l, const char *name)
{
	for (unsigned int i = 0; i < l->nfields; i++)
		if (!strcmp(l->field[i].name, name) && l->field[i].set)
			return &l->field[i];
	return NULL;
}

struct lay_board *layout_board(struct layout *l, const char *name)
{
	for (unsigned int i = 0; i < l->nboards; i++)
		if (!strcmp(l->board[i].name, name))
			return &l->board[i];
	if (l->nboards == LAY_BOARDS || strlen(name) >= LAY_NAME)
		return NULL;
	snprintf(l->board[l->nboards].name, LAY_NAME, "%s", name);
	return &l->board[l->nboards++];
}

const struct lay_board *layout_board_c(const struct layout *l, const char *name)
{
	for (unsigned int i = 0; i < l->nboards; i++)
		if (!strcmp(l->board[i].name, name) && l->board[i].set)
			return &l->board[i];
	return NULL;
}

int layout_parse_line(struct layout *l, const char *line, char *err, size_t errlen)
{
	char a[64] = "", b[64] = "", c[64] = "", d[64] = "", e[64] = "", f[64] = "",
	     g[64] = "", h[64] = "";
	int n = sscanf(line, "%63s %63s %63s %63s %63s %63s %63s %63s", a, b, c, d,
		       e, f, g, h);
	long long num, den;
	char *end;

	if (n <= 0 || a[0] == '#')
		return 0;
	if (!strcmp(a, "crc.cover") && n == 2) {
		l->crc_cover = pick(b, lay_crc_cover_names, __LAY_CRC_MAX);
		if (l->crc_cover >= 0)
			return 0;
	} else if (!strcmp(a, "crc.order") && n == 2) {
		l->crc_little = order(b);
		if (l->crc_little >= 0)
			return 0;
	} else if (!strcmp(a, "ack.order") && n == 2) {
		l->ack_little = order(b);
		if (l->ack_little >= 0)
			return 0;
	} else if (!strcmp(a, "table") && n == 2) {
		l->table = pick(b, lay_table_names, __LAY_TABLE_MAX);
		if (l->table >= 0)
			return 0;
	} else if (!strcmp(a, "board") && n == 4) {
		struct lay_board *bd = layout_board(l, b);
		long bus = strtol(c, &end, 0), addr;

		if (bd && !*end && bus >= 0 && bus <= 3) {
			addr = strtol(d, &end, 0);
			if (!*end && addr >= 0 && addr <= 255) {
				bd->bus = (int)bus;
				bd->address = (int)addr;
				bd->set = true;
				return 0;
			}
		}
	} else if (!strcmp(a, "field") && (n == 7 || n == 8)) {
		struct lay_field *fl = layout_field(l, b);
		long off = strtol(c, &end, 0), w, stride = 0;

		if (!fl || *end || off < 0 || off > 255)
			goto bad;
		w = strtol(d, &end, 0);
		if (*end || (w != 1 && w != 2 && w != 4))
			goto bad;
		if (strcmp(e, "s") && strcmp(e, "u"))
			goto bad;
		if (order(f) < 0)
			goto bad;
		if (sscanf(g, "%lld/%lld", &num, &den) != 2 || den <= 0 || !num)
			goto bad;
		if (n == 8) {
			stride = strtol(h, &end, 0);
			if (*end || stride < 0 || stride > 64)
				goto bad;
		}
		fl->offset = (int)off;
		fl->width = (int)w;
		fl->is_signed = !strcmp(e, "s");
		fl->little = order(f) == 1;
		fl->num = num;
		fl->den = den;
		fl->stride = (int)stride;
		fl->set = true;
		return 0;
	}
bad:
	snprintf(err, errlen, "cannot read '%.*s'", (int)strcspn(line, "\n"), line);
	return -EINVAL;
}

int layout_read(const char *path, struct layout *l, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[256], e[200];
	int lineno = 0, r = 0;

	layout_init(l);
	if (!f) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		r = layout_parse_line(l, line, e, sizeof(e));
		if (r) {
			snprintf(err, errlen, "%s:%d: %s", path, lineno, e);
			break;
		}
	}
	fclose(f);
	return r;
}

int layout_write(FILE *f, const struct layout *l)
{
	if (l->crc_cover >= 0)
		fprintf(f, "crc.cover %s\n", lay_crc_cover_names[l->crc_cover]);
	if (l->crc_little >= 0)
		fprintf(f, "crc.order %s\n", l->crc_little ? "le" : "be");
	if (l->ack_little >= 0)
		fprintf(f, "ack.order %s\n", l->ack_little ? "le" : "be");
	if (l->table >= 0)
		fprintf(f, "table %s\n", lay_table_names[l->table]);
	for (unsigned int i = 0; i < l->nboards; i++)
		if (l->board[i].set)
			fprintf(f, "board %s %d 0x%02x\n", l->board[i].name,
				l->board[i].bus, l->board[i].address);
	for (unsigned int i = 0; i < l->nfields; i++) {
		const struct lay_field *fl = &l->field[i];

		if (!fl->set)
			continue;
		fprintf(f, "field %s %d %d %s %s %" PRId64 "/%" PRId64, fl->name,
			fl->offset, fl->width, fl->is_signed ? "s" : "u",
			fl->little ? "le" : "be", fl->num, fl->den);
		if (fl->stride)
			fprintf(f, " %d", fl->stride);
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}

uint64_t lay_get(const uint8_t *p, int width, bool little)
{
	uint64_t v = 0;

	for (int i = 0; i < width; i++)
		v = v << 8 | p[little ? width - 1 - i : i];
	return v;
}

void lay_put(uint8_t *p, int width, bool little, uint64_t v)
{
	for (int i = 0; i < width; i++)
		p[little ? i : width - 1 - i] = (uint8_t)(v >> (8 * i));
}

int64_t lay_get_value(const uint8_t *msg, size_t len, const struct lay_field *f,
		      int index, bool *ok)
{
	size_t off = (size_t)f->offset + (size_t)index * (size_t)f->stride;
	uint64_t v;

	*ok = off + (size_t)f->width <= len;
	if (!*ok)
		return 0;
	v = lay_get(msg + off, f->width, f->little);
	if (f->is_signed && f->width < 8 && (v >> (8 * f->width - 1)) & 1)
		return (int64_t)(v | ~((1ull << (8 * f->width)) - 1));
	return (int64_t)v;
}

uint32_t lay_crc32(const uint8_t *p, size_t n)
{
	return (uint32_t)crc32_z(0, p, n);
}
