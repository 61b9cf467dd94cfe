/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libnbsimctl: what the simulators' two control languages share, naobodyd's
 * simulated body's (body_sim.c, through sim_control.c's socket and script)
 * and chestboard-emu's (control.c). A line is words; its first names a
 * command in a table of struct simctl_cmd (its name, the words it takes,
 * its usage, whether it needs a physical body); the words are numbers or
 * one of a few names.
 *
 * The commands themselves stay each language's: the emulator's are the
 * board's raw fields, bits and cycles, for driving and checking the driver
 * ("touch BIT START CYCLES", "set FIELD INDEX VALUE", "physics push FX FY
 * S"), the simulated body's a person's acts in the daemon's units ("touch
 * head_front 1", "battery 0.5", "push front"); and so do the replies
 * ("OK ..." or "ERR <errno name> ...", and "ok ..." or "error: ...").
 */
#ifndef NAOBODY_SIMCTL_H
#define NAOBODY_SIMCTL_H

#include <stdbool.h>
#include <stddef.h>

/* struct simctl_cmd's flags */
#define SIMCTL_PHYSICS	(1u << 0)	/* only with a physical (MuJoCo) body */
#define SIMCTL_UNLISTED	(1u << 1)	/* left out of simctl_list()'s lists */

/* One command of a control language, in its table. */
struct simctl_cmd {
	const char *name;
	/*
	 * The count of words it takes after its name (simctl_takes()): in a
	 * language that checks it for every command, fewer or more is not
	 * this command. The emulator's leaves it to each command (0, 0).
	 */
	unsigned char min_words, max_words;
	unsigned char flags;		/* SIMCTL_* */
	const char *usage;		/* "NAME WORDS...", for a malformed use */
};

/*
 * Split line in place into at most max words (separated by spaces, tabs,
 * carriage returns and newlines). What follows the last word is left as
 * it is, *rest (unless rest is NULL; NULL for no word) pointing at it: a
 * word that keeps its spaces, or more words. The count, 0 for an empty
 * line.
 */
int simctl_split(char *line, char **word, int max, char **rest);

/* The index of the command named word in table[0..n), or n: none. */
int simctl_find(const struct simctl_cmd *table, int n, const char *word);

/* Whether cmd takes words (the count after its name). */
bool simctl_takes(const struct simctl_cmd *cmd, int words);

/*
 * The names of the commands of table[0..n) whose flags, masked by mask,
 * are want, each after sep but the first, into out (len bytes, always
 * terminated). The length written.
 */
size_t simctl_list(const struct simctl_cmd *table, int n, unsigned int mask,
		   unsigned int want, const char *sep, char *out, size_t len);

/* The index of word in words[0..n), or -1 (and for a NULL word). */
int simctl_word(const char *word, const char *const *words, int n);

/*
 * word as a whole integer (decimal, 0x hexadecimal or 0 octal) within
 * lo..hi into *v: 0, or -EINVAL (and for a NULL word).
 */
int simctl_int(const char *word, long long lo, long long hi, long long *v);

/* word as a whole number (strtof()'s) into *v: 0, or -EINVAL (NULL too). */
int simctl_float(const char *word, float *v);

#endif
