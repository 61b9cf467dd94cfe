// SPDX-License-Identifier: GPL-2.0-only
/*
 * naoctl verify ARCHIVE: every provisional entry of the codec's layout
 * (nb_layout.h) against a capture of a real chest board and LoLA's log of
 * the same minutes. It prints one line per entry (confirmed, contradicted,
 * not exercised, the evidence, the correction), writes the layout the
 * capture shows as a layout file (-o), and the corrections as a patch to
 * nb_layout.h (-p) for a person to review.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nb_codec.h"
#include "naoctl.h"
#include "verify.h"

extern char **environ;

static const char *const verdicts[] = {
	[V_CONFIRMED] = "confirmed",
	[V_CONTRADICTED] = "contradicted",
	[V_NOT_EXERCISED] = "not exercised",
};

static struct ventry overflow;

struct ventry *v_entry(struct vctx *v, const char *name, int verdict, const char *fmt, ...)
{
	struct ventry *e = v->ne < V_ENTRIES ? &v->e[v->ne++] : &overflow;
	va_list ap;

	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->verdict = verdict;
	va_start(ap, fmt);
	vsnprintf(e->evidence, sizeof(e->evidence), fmt, ap);
	va_end(ap);
	return e;
}

/* ------------------------------------------------------------------------
 * The patch: nb_layout.h with the corrections, diffed against the original
 */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		buf[n] = 0;
		*len = (size_t)n;
	}
	return buf;
}

/* Replace the first occurrence of what after from in text; text grows */
static char *replace(char *text, const char *from, const char *what, const char *with)
{
	char *p = strstr(text, from), *q, *out;
	size_t n;

	if (!p)
		return text;
	q = strstr(p, what);
	if (!q)
		return text;
	n = strlen(text) - strlen(what) + strlen(with) + 1;
	out = malloc(n);
	if (!out)
		return text;
	snprintf(out, n, "%.*s%s%s", (int)(q - text), text, with, q + strlen(what));
	free(text);
	return out;
}

/* "LShoulder" -> "NB_ADDR_L_SHOULDER_BOARD" */
static void board_macro(const char *name, char *buf, size_t len)
{
	size_t o = snprintf(buf, len, "NB_ADDR_");

	for (const char *p = name; *p && o + 8 < len; p++) {
		if (p != name && *p >= 'A' && *p <= 'Z')
			buf[o++] = '_';
		buf[o++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
	}
	snprintf(buf + o, len - o, "_BOARD");
}

static char *patch_field(char *text, const struct lay_field *o, const struct lay_field *f)
{
	char from[80], line[200], *p, *end, *args, repl[400];

	snprintf(from, sizeof(from), "\"%s\",", f->name);
	p = strstr(text, from);
	if (!p)
		return text;
	end = strchr(p, ')');
	if (!end)
		return text;
	/* NB_FLD(id, "name", msg, offset, width, flags, stride, num, den, unit) */
	args = p + strlen(from);
	{
		char *msg_end = strchr(args, ',');
		char unit[40] = "";
		const char *u = end;

		while (u > p && *u != '"')	/* the unit's closing quote */
			u--;

		if (!msg_end || msg_end > end || !u || u > end)
			return text;
		{
			const char *u0 = u - 1;

			while (u0 > p && *u0 != '"')
				u0--;
			snprintf(unit, sizeof(unit), "%.*s", (int)(u - u0 + 1), u0);
		}
		snprintf(line, sizeof(line), "%.*s", (int)(msg_end - args), args);
		snprintf(repl, sizeof(repl), "%s%s, %d,\n\t       %s%d, %s, %d, %lld, %lld, %s",
			 from, line, f->offset,
			 f->little != o->little ?
			 "/* verify: little endian on the wire; the codec has no per-field byte order */\n\t       " : "",
			 f->width, f->is_signed ? "NB_S" : "0", f->stride,
			 (long long)f->num, (long long)f->den, unit);
		{
			size_t head = (size_t)(p - text), n = strlen(text) - (size_t)(end - text) + head +
								 strlen(repl) + 1;
			char *out = malloc(n);

			if (!out)
				return text;
			snprintf(out, n, "%.*s%s%s", (int)head, text, repl, end);
			free(text);
			return out;
		}
	}
}

int v_write_patch(const struct vctx *v, const char *header, const char *out)
{
	char tmp[] = "/tmp/nb_layout.XXXXXX", a[4200], b[4200];
	size_t len;
	char *text = slurp(header, &len);
	int fd, st, r, changes = 0;
	pid_t pid;
	posix_spawn_file_actions_t fa;

	if (!text) {
		fprintf(stderr, "%s verify: %s: %s (give nb_layout.h with -H)\n", naoctl_prog, header,
			strerror(errno));
		return -errno;
	}
	{
		char note[1024];
		const struct layout *o = &v->ours, *f = &v->found;

		note[0] = 0;
		if (f->crc_cover != o->crc_cover || f->crc_little != o->crc_little ||
		    f->ack_little != o->ack_little || f->table != o->table) {
			snprintf(note, sizeof(note),
				 "\n/*\n * naoctl verify: the capture shows crc.cover %s, crc.order %s, ack.order %s,\n"
				 " * table %s. These are nb_frame.c's, not this file's: change the code.\n */\n",
				 lay_crc_cover_names[f->crc_cover >= 0 ? f->crc_cover : o->crc_cover],
				 (f->crc_little >= 0 ? f->crc_little : o->crc_little) ? "le" : "be",
				 (f->ack_little >= 0 ? f->ack_little : o->ack_little) ? "le" : "be",
				 lay_table_names[f->table >= 0 ? f->table : o->table]);
			{
				char with[1300];

				snprintf(with, sizeof(with), "#define NB_ACK_BYTE\t\t0x2a\n%s", note);
				text = replace(text, "#define NB_ACK_BYTE", "#define NB_ACK_BYTE\t\t0x2a\n", with);
			}
			changes++;
		}
		for (unsigned int i = 0; i < o->nboards; i++) {
			const struct lay_board *ob = &o->board[i], *nb = layout_board_c(f, ob->name);
			char macro[64], from[96], was[16], now[16];

			if (!nb || nb->address == ob->address)
				continue;
			board_macro(ob->name, macro, sizeof(macro));
			snprintf(from, sizeof(from), "#define %s", macro);
			snprintf(was, sizeof(was), "0x%02x", ob->address);
			snprintf(now, sizeof(now), "0x%02x", nb->address);
			text = replace(text, from, was, now);
			changes++;
		}
		for (unsigned int i = 0; i < o->nfields; i++) {
			const struct lay_field *of = &o->field[i], *nf = layout_field_c(f, of->name);

			if (!nf || (nf->offset == of->offset && nf->width == of->width &&
				    nf->is_signed == of->is_signed && nf->little == of->little &&
				    nf->num == of->num && nf->den == of->den && nf->stride == of->stride))
				continue;
			text = patch_field(text, of, nf);
			changes++;
		}
	}
	fd = mkstemp(tmp);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		free(text);
		return -EIO;
	}
	close(fd);
	free(text);
	snprintf(a, sizeof(a), "a/kernel/naobody/codec/nb_layout.h");
	snprintf(b, sizeof(b), "b/kernel/naobody/codec/nb_layout.h");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	{
		char *argv[] = { "diff", "-u", "--label", a, "--label", b, (char *)header, tmp, NULL };

		r = posix_spawnp(&pid, "diff", &fa, NULL, argv, environ);
	}
	posix_spawn_file_actions_destroy(&fa);
	if (!r && waitpid(pid, &st, 0) > 0 && WIFEXITED(st) && WEXITSTATUS(st) <= 1)
		r = 0;
	else
		r = -EIO;
	unlink(tmp);
	if (!r)
		fprintf(stderr, "%s verify: %d correction%s to nb_layout.h in %s\n", naoctl_prog, changes,
			changes == 1 ? "" : "s", out);
	return r;
}

/*
 * The verdict naobodyd --robot-motions reads (robot_motions.c): the id of
 * the layout these verdicts are on, then one line an entry. Written to a
 * temporary file and renamed, so a half-written verdict never exists.
 */
static int write_verdict(const struct vctx *v, const char *archive, const char *out)
{
	static const char *const word[] = {
		[V_CONFIRMED] = "confirmed",
		[V_CONTRADICTED] = "contradicted",
		[V_NOT_EXERCISED] = "not-exercised",
	};
	char tmp[PATH_MAX];
	FILE *f;
	int r = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", out) >= (int)sizeof(tmp)) {
		fprintf(stderr, "%s verify: %s: %s\n", naoctl_prog, out, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "%s verify: %s: %s\n", naoctl_prog, tmp, strerror(errno));
		return -errno;
	}
	fprintf(f, "# naoctl verify's verdict on %s (Documentation/capture.rst)\n", archive);
	fprintf(f, "# naobodyd --robot-motions reads it; edit nothing\n");
	fprintf(f, "verdict 1\nlayout %08x\n", nb_layout_id());
	for (unsigned int i = 0; i < v->ne; i++)
		fprintf(f, "entry %s %s\n", v->e[i].name, word[v->e[i].verdict]);
	if (ferror(f))
		r = -EIO;
	if (fclose(f) && !r)
		r = -errno;
	if (!r && rename(tmp, out))
		r = -errno;
	if (r) {
		fprintf(stderr, "%s verify: %s: %s\n", naoctl_prog, out, strerror(-r));
		unlink(tmp);
	}
	return r;
}

/* ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s verify [options] ARCHIVE\n\n"
		"Checks every provisional entry of the codec's layout (nb_layout.h) against\n"
		"the capture naocap(8) recorded (ARCHIVE: its .tar.gz or directory) and\n"
		"prints, per entry, confirmed, contradicted or not exercised, the evidence\n"
		"and the correction.\n\n"
		"  -o FILE      write the layout the capture shows (a layout file)\n"
		"  -p FILE      write the corrections as a patch to nb_layout.h\n"
		"  -V FILE      write the verdict for naobodyd --robot-motions (the layout's\n"
		"               id and every entry's verdict)\n"
		"  -H HEADER    the nb_layout.h to patch (default kernel/naobody/codec/nb_layout.h)\n"
		"  -D BUS:DEV   the chest board's USB address, if the capture doesn't tell\n"
		"  -O           print the codec's own layout as a layout file and exit\n"
		"  -q           print only the summary and the contradicted entries\n"
		"  -m           also list every message (kind, bus, address, length) seen\n"
		"  -h           this help\n\n"
		"Exit status: 0 when nothing is contradicted, 3 when something is, 1 when\n"
		"the capture cannot be read. See naoctl(8) and Documentation/capture.rst.\n",
		naoctl_prog);
}

int verify_main(int argc, char **argv)
{
	const char *layout_out = NULL, *patch = NULL, *verdict_out = NULL, *header = "kernel/naobody/codec/nb_layout.h";
	uint32_t busdev = CAP_ANY_DEVICE;
	static struct vctx v;
	struct naoctl_capture nc;
	unsigned int count[3] = { 0, 0, 0 };
	bool quiet = false, list = false;
	int c, r = 0;

	memset(&v, 0, sizeof(v));
	while ((c = getopt(argc, argv, "o:p:V:H:D:Oqmh")) != -1) {
		switch (c) {
		case 'o': layout_out = optarg; break;
		case 'p': patch = optarg; break;
		case 'V': verdict_out = optarg; break;
		case 'H': header = optarg; break;
		case 'D':
			if (naoctl_parse_busdev(optarg, &busdev)) {
				fprintf(stderr, "%s: -D wants BUS:DEVICE\n", naoctl_prog);
				return 2;
			}
			break;
		case 'O':
			v_ours_layout(&v.ours);
			return layout_write(stdout, &v.ours) ? 1 : 0;
		case 'q': quiet = true; break;
		case 'm': list = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	if (naoctl_capture_load(argv[optind], busdev, true, &nc)) {
		naoctl_capture_free(&nc);
		return 1;
	}
	if (!nc.have_lola)
		fprintf(stderr, "%s verify: %s; only the frames can be checked, every field stays not exercised\n",
			naoctl_prog, nc.lola_err);
	v.nc = &nc;
	v_ours_layout(&v.ours);
	v.found = v.ours;
	v_check_frames(&v);
	v_group_frames(&v);
	v_check_fields(&v);
	v_check_rest(&v);

	printf("capture: %zu OUT frames, %zu IN frames; LoLA: %zu sensor packets, %zu commands\n\n",
	       v.nout, v.nin, nc.lola.ns, nc.lola.nc);
	for (unsigned int i = 0; i < v.ne; i++) {
		const struct ventry *e = &v.e[i];

		count[e->verdict]++;
		if (quiet && e->verdict != V_CONTRADICTED)
			continue;
		printf("%-26s %-14s %s\n", e->name, verdicts[e->verdict], e->evidence);
		if (e->verdict == V_CONTRADICTED && e->found[0])
			printf("%-26s %-14s ours: %s; found: %s\n", "", "", e->ours[0] ? e->ours : "-", e->found);
	}
	if (list) {
		printf("\nmessages seen (direction, kind bus address, length: frames holding one):\n");
		for (unsigned int i = 0; i < v.ng; i++)
			printf("  %-3s %02x %02x %02x  %3u bytes: %zu\n", v.g[i].out ? "OUT" : "IN",
			       v.g[i].kind, v.g[i].bus, v.g[i].addr, v.g[i].len, v.g[i].count);
	}
	printf("\n%u entries: %u confirmed, %u contradicted, %u not exercised\n", v.ne,
	       count[V_CONFIRMED], count[V_CONTRADICTED], count[V_NOT_EXERCISED]);
	if (layout_out) {
		FILE *f = fopen(layout_out, "w");

		if (!f || layout_write(f, &v.found) || fclose(f)) {
			fprintf(stderr, "%s verify: %s: %s\n", naoctl_prog, layout_out, strerror(errno));
			r = 1;
		}
	}
	if (patch && v_write_patch(&v, header, patch))
		r = 1;
	if (verdict_out && write_verdict(&v, argv[optind], verdict_out))
		r = 1;
	for (unsigned int i = 0; i < v.ng; i++)
		free(v.g[i].msg);
	free(v.in);
	free(v.out);
	free(v.s_in);
	free(v.c_out);
	naoctl_capture_free(&nc);
	if (r)
		return r;
	return count[V_CONTRADICTED] ? 3 : 0;
}
