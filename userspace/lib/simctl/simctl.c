// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnbsimctl: the simulators' control languages' words and command tables
 * (see <simctl/simctl.h>).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simctl/simctl.h>

int simctl_split(char *line, char **word, int max, char **rest)
{
	char *save = NULL, *t;
	int n = 0;

	while (n < max && (t = strtok_r(n ? NULL : line, " \t\r\n", &save)))
		word[n++] = t;
	if (rest)
		*rest = n ? save : NULL;
	return n;
}

int simctl_find(const struct simctl_cmd *table, int n, const char *word)
{
	int i;

	for (i = 0; i < n && strcmp(word, table[i].name); i++)
		;
	return i;
}

bool simctl_takes(const struct simctl_cmd *cmd, int words)
{
	return words >= cmd->min_words && words <= cmd->max_words;
}

size_t simctl_list(const struct simctl_cmd *table, int n, unsigned int mask,
		   unsigned int want, const char *sep, char *out, size_t len)
{
	size_t at = 0;

	if (len)
		out[0] = '\0';
	for (int i = 0; i < n && at < len; i++) {
		if ((table[i].flags & mask) != want)
			continue;
		at += (size_t)snprintf(out + at, len - at, "%s%s", at ? sep : "",
				       table[i].name);
	}
	return at < len ? at : len ? len - 1 : 0;
}

int simctl_word(const char *word, const char *const *words, int n)
{
	if (!word)
		return -1;
	for (int i = 0; i < n; i++)
		if (!strcmp(word, words[i]))
			return i;
	return -1;
}

int simctl_int(const char *word, long long lo, long long hi, long long *v)
{
	char *end;

	if (!word)
		return -EINVAL;
	errno = 0;
	*v = strtoll(word, &end, 0);
	if (errno || end == word || *end || *v < lo || *v > hi)
		return -EINVAL;
	return 0;
}

int simctl_float(const char *word, float *v)
{
	char *end;

	if (!word)
		return -EINVAL;
	*v = strtof(word, &end);
	return end == word || *end ? -EINVAL : 0;
}
