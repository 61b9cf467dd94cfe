// SPDX-License-Identifier: GPL-2.0-only
/* naobodyd's REST API: the driver and the boards as JSON (see rest_boards.h). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <naobody/prefs.h>

#include "body.h"
#include "rest_boards.h"

#define BOARDS_MAX	64	/* more than a NAO has (naoctl boards uses the same) */

/* The names naoctl boards prints, as identifiers. */
static const char *const kind_name[] = { "unknown", "joint", "hand", "foot" };
static const char *const state_name[] = {
	[NAOBODY_BOARD_UNKNOWN] = "not_asked",
	[NAOBODY_BOARD_ACCEPTED] = "accepted",
	[NAOBODY_BOARD_REJECTED] = "rejected",
	[NAOBODY_BOARD_SILENT] = "silent",
};

/* Vendor request 0x02's four bytes, as naobodyd logs them at start. */
static json_t *chest_version(uint32_t v)
{
	char s[16];

	snprintf(s, sizeof(s), "%08x", v);
	return json_string(s);
}

json_t *rest_driver_json(const struct body *b)
{
	if (!b->info.has_driver)
		return json_null();
	return json_pack("{s:s,s:s,s:i}", "name", b->ops->name, "version",
			 b->info.driver_version, "abi_version", (int)b->info.abi_version);
}

json_t *rest_chest_json(const struct body *b)
{
	if (!b->info.has_driver)
		return json_null();
	return json_pack("{s:o}", "version", chest_version(b->info.chest_version));
}

static json_t *hex_bytes(const uint8_t *p, size_t n)
{
	char s[2 * 16 + 1];

	for (size_t i = 0; i < n && i < 16; i++)
		snprintf(s + 2 * i, 3, "%02x", p[i]);
	s[2 * (n < 16 ? n : 16)] = '\0';
	return json_string(s);
}

static json_t *board_json(const struct naobody_board *x)
{
	return json_pack("{s:i,s:i,s:s,s:s,s:b,s:i,s:i,s:i,s:I,s:i,s:o,s:o}",
			 "bus", x->bus, "address", x->address,
			 "kind", kind_name[x->kind < 4 ? x->kind : 0],
			 "state", x->state < 4 ? state_name[x->state] : "unknown",
			 "accepted", x->state == NAOBODY_BOARD_ACCEPTED,
			 "config_version", x->config_version, "hw_revision", x->hw_revision,
			 "board_type", x->board_type, "serial", (json_int_t)x->serial,
			 "tries", x->tries, "status", hex_bytes(x->status, sizeof(x->status)),
			 "config", hex_bytes(x->config, sizeof(x->config)));
}

/* One entry of the block as JSON, the value typed as the block types it. */
static json_t *pref_json(const struct nb_pref *e)
{
	switch (e->type) {
	case NB_PREF_INT:
		return json_pack("{s:s,s:s,s:i}", "key", e->key, "type", "int", "value", e->i);
	case NB_PREF_FLOAT:
		return json_pack("{s:s,s:s,s:f}", "key", e->key, "type", "float", "value",
				 (double)e->f);
	case NB_PREF_STRING:
		return json_pack("{s:s,s:s,s:s}", "key", e->key, "type", "string", "value", e->s);
	default:
		return json_pack("{s:s,s:s,s:n}", "key", e->key, "type", "unknown", "value");
	}
}

/*
 * The chest board's preference block, decoded by libnaobody (the parser
 * naoctl prefs uses): its entries in the block's order, whether its CRC
 * holds, and what failed. Read afresh with one ioctl, never the body
 * thread's copy.
 */
static json_t *prefs_json(struct body *b)
{
	struct nb_pref e;
	uint32_t flags = 0;
	size_t pos = 0;
	json_t *list;
	char msg[160];
	void *block;
	int n;

	if (!b->ops->prefs)
		return json_null();
	block = calloc(1, NAOBODY_PREFS_SIZE);
	if (!block)
		return json_null();
	n = b->ops->prefs(b, block, NAOBODY_PREFS_SIZE, &flags);
	if (n < 0) {
		snprintf(msg, sizeof(msg), "the driver has no preference block: %s (%s); see "
			 "'naoctl status' and the kernel log", strerror(-n),
			 n == -ENODATA ? "not read yet" : "it could not be read");
		free(block);
		return json_pack("{s:b,s:b,s:s,s:[]}", "available", 0, "valid", 0,
				 "reason", msg, "entries");
	}
	list = json_array();
	while ((n = nb_prefs_next(block, NAOBODY_PREFS_SIZE, &pos, &e)) > 0)
		json_array_append_new(list, pref_json(&e));
	free(block);
	if (n < 0)
		return json_pack("{s:b,s:b,s:s,s:o}", "available", 1, "valid", 0, "reason",
				 "an entry runs past the block or is malformed: the entries "
				 "before it are listed", "entries", list);
	if (!(flags & NAOBODY_PREFS_VALID))
		return json_pack("{s:b,s:b,s:s,s:o}", "available", 1, "valid", 0, "reason",
				 "the block fails its CRC check: the driver converts with the "
				 "default calibration", "entries", list);
	return json_pack("{s:b,s:b,s:o}", "available", 1, "valid", 1, "entries", list);
}

/* Every counter of the driver's statistics/ directory (one u64 per file). */
static json_t *statistics_json(const char *dir)
{
	json_t *o = json_object();
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d) {
		json_decref(o);
		return NULL;
	}
	while ((de = readdir(d))) {
		char path[PATH_MAX], line[32];
		unsigned long long v;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f) && sscanf(line, "%llu", &v) == 1)
			json_object_set_new(o, de->d_name, json_integer((json_int_t)v));
		fclose(f);
	}
	closedir(d);
	return o;
}

json_t *rest_driver_detail_json(struct body *b)
{
	const char *dir = b->ops->statistics_dir ? b->ops->statistics_dir(b) : NULL;
	json_t *stats;
	char msg[PATH_MAX + 96];

	if (!b->info.has_driver)
		return json_pack("{s:b,s:s,s:n,s:n}", "available", 0, "reason",
				 b->info.simulated ?
				 "the simulated body has no driver and no counters" :
				 "this body has no driver", "driver", "statistics");
	stats = dir ? statistics_json(dir) : NULL;
	if (!stats) {
		snprintf(msg, sizeof(msg), "the driver's statistics are not readable at %s",
			 dir ? dir : "/sys/class/naobody/<device>/statistics");
		return json_pack("{s:b,s:s,s:o,s:n}", "available", 0, "reason", msg,
				 "driver", rest_driver_json(b), "statistics");
	}
	return json_pack("{s:b,s:o,s:s,s:o}", "available", 1, "driver", rest_driver_json(b),
			 "sysfs", dir, "statistics", stats);
}

json_t *rest_boards_json(struct body *b, int *err)
{
	struct naobody_board *v;
	json_t *list, *o;
	int n, accepted = 0;

	*err = 0;
	if (!b->ops->boards)
		return json_pack("{s:b,s:s,s:o,s:i,s:i,s:[],s:n}", "available", 0, "reason",
				 b->info.simulated ?
				 "the simulated body has no chest board and no boards behind it" :
				 "this body does not list its boards",
				 "chest_board", json_null(), "count", 0, "accepted", 0, "boards",
				 "preferences");
	v = calloc(BOARDS_MAX, sizeof(*v));
	if (!v) {
		*err = -ENOMEM;
		return NULL;
	}
	n = b->ops->boards(b, v, BOARDS_MAX);
	if (n < 0) {
		*err = n;
		free(v);
		return NULL;
	}
	list = json_array();
	for (int i = 0; i < n && i < BOARDS_MAX; i++) {
		accepted += v[i].state == NAOBODY_BOARD_ACCEPTED;
		json_array_append_new(list, board_json(&v[i]));
	}
	o = json_pack("{s:b,s:o,s:i,s:i,s:o,s:o}", "available", 1, "chest_board",
		      rest_chest_json(b), "count", n, "accepted", accepted, "boards", list,
		      "preferences", prefs_json(b));
	free(v);
	return o;
}
