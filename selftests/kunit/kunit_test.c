// SPDX-License-Identifier: GPL-2.0-only
/*
 * Run our KUnit test modules inside the debug VM and report each KUnit test
 * case as one TAP line, so that make check counts them.
 *
 * Every *_kunit.ko among our modules (/lib/modules/$(uname -r)/extra; they
 * are built from kernel/tests only against a kernel with CONFIG_KUNIT) is
 * loaded, which runs its suites; each suite's KTAP is then read back from
 * /sys/kernel/debug/kunit/<suite>/results and the module is unloaded.
 * KUnit test cases are lines indented by one level there; parameterised
 * cases have a further level, which the case's own line sums up.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#define KUNIT_DIR "/sys/kernel/debug/kunit"
#define MAX_NAMES 256

static int tap_n;

static void tap(int ok, const char *name, const char *directive)
{
	printf("%sok %d %s%s%s\n", ok ? "" : "not ", ++tap_n, name,
	       directive ? " # " : "", directive ? directive : "");
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names in DIR that end in SUFFIX (all if NULL), sorted; returns the count. */
static int list_dir(const char *dir, const char *suffix, char **names)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < MAX_NAMES) {
		size_t len = strlen(de->d_name), slen = suffix ? strlen(suffix) : 0;

		if (de->d_name[0] == '.')
			continue;
		if (suffix && (len <= slen || strcmp(de->d_name + len - slen, suffix)))
			continue;
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	return n;
}

static int listed(char **names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

/*
 * Append one line of a case's log to its summary, which goes into the TAP
 * line of a failed case: squeezed, without the test name KUnit repeats,
 * without directories, and without '#' (a TAP directive).
 */
static void add_diag(char *diag, size_t size, const char *text)
{
	size_t len = strlen(diag);
	const char *at, *slash;
	char *q;

	while (*text == ' ' || *text == '#')
		text++;
	at = strstr(text, " at /");
	slash = at ? strrchr(at, '/') : NULL;
	if (!*text || len + 3 >= size)
		return;
	if (len)
		len += snprintf(diag + len, size - len, "; ");
	if (slash)
		snprintf(diag + len, size - len, "%.*s at %.200s", (int)(at - text), text, slash + 1);
	else
		snprintf(diag + len, size - len, "%.500s", text);
	for (q = diag; *q; q++)
		if (*q == '#')
			*q = ' ';
}

/* Report the test cases of one suite from its debugfs results. */
static void report_suite(const char *suite)
{
	char path[512], line[1024], name[1400], diag[600] = "";
	int plan = -1, cases = 0, case_failed = 0, suite_ok = -1;
	FILE *f;

	snprintf(path, sizeof(path), KUNIT_DIR "/%s/results", suite);
	f = fopen(path, "r");
	if (!f) {
		snprintf(name, sizeof(name), "%s: cannot read %s", suite, path);
		tap(0, name, NULL);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = line + 4, *desc, *hash;
		int ok, num;

		line[strcspn(line, "\n")] = '\0';
		/* The suite's own line, unindented: "ok 1 <suite>". */
		if (!strncmp(line, "ok ", 3) || !strncmp(line, "not ok ", 7)) {
			suite_ok = line[0] == 'o';
			continue;
		}
		if (strncmp(line, "    ", 4))
			continue;
		if (sscanf(p, "1..%d", &plan) == 1)
			continue;
		ok = !strncmp(p, "ok ", 3);
		if (!ok && strncmp(p, "not ok ", 7)) {
			/* A case's own log (why it failed): keep it for its line. */
			if (!strncmp(p, "# Subtest:", 10) || !strncmp(p, "KTAP ", 5))
				continue;
			printf("# %s: %s\n", suite, p);
			add_diag(diag, sizeof(diag), p);
			continue;
		}
		desc = p + (ok ? 3 : 7);
		num = strtol(desc, &desc, 10);
		(void)num;
		while (*desc == ' ')
			desc++;
		hash = strstr(desc, " # ");
		if (hash)
			*hash = '\0';
		if (ok || !diag[0])
			snprintf(name, sizeof(name), "%s: %s", suite, desc);
		else
			snprintf(name, sizeof(name), "%s: %s (%s)", suite, desc, diag);
		tap(ok, name, hash ? hash + 3 : NULL);
		cases++;
		case_failed |= !ok;
		diag[0] = '\0';
	}
	fclose(f);

	/* A case's log holds 512 bytes in 6.1: a chatty case loses its line. */
	if (plan < 0 || cases < plan) {
		snprintf(name, sizeof(name),
			 "%s: %d of %d case results in debugfs (a case log overflowed? see the console log)",
			 suite, cases, plan);
		tap(0, name, NULL);
	} else if (suite_ok == 0 && !case_failed) {
		snprintf(name, sizeof(name), "%s: the suite failed outside its cases (suite init?)",
			 suite);
		tap(0, name, NULL);
	}
}

int main(void)
{
	char *modules[MAX_NAMES], *before[MAX_NAMES], *after[MAX_NAMES];
	char extra[300], cmd[300], name[1400];
	struct utsname u;
	int nmod;

	setvbuf(stdout, NULL, _IOLBF, 0);
	uname(&u);
	snprintf(extra, sizeof(extra), "/lib/modules/%s/extra", u.release);
	nmod = list_dir(extra, "_kunit.ko", modules);
	if (nmod <= 0) {
		printf("1..1\n");
		tap(1, "KUnit", "SKIP no KUnit test modules in this build");
		return 0;
	}

	for (int m = 0; m < nmod; m++) {
		int nb, na, rc, found = 0;

		modules[m][strlen(modules[m]) - 3] = '\0';	/* strip .ko */
		nb = list_dir(KUNIT_DIR, NULL, before);
		if (nb < 0) {
			snprintf(name, sizeof(name), "%s: no %s (KUnit debugfs)", modules[m], KUNIT_DIR);
			tap(0, name, NULL);
			break;
		}
		snprintf(cmd, sizeof(cmd), "modprobe %s", modules[m]);
		rc = system(cmd);
		if (rc) {
			snprintf(name, sizeof(name), "%s: '%s' failed (status %d)", modules[m], cmd, rc);
			tap(0, name, NULL);
			continue;
		}
		/* Suites run while the module loads; their results are ready. */
		na = list_dir(KUNIT_DIR, NULL, after);
		for (int i = 0; i < na; i++) {
			if (listed(before, nb, after[i]))
				continue;
			report_suite(after[i]);
			found++;
		}
		if (!found) {
			snprintf(name, sizeof(name), "%s: loaded, but registered no KUnit suite",
				 modules[m]);
			tap(0, name, NULL);
		}
		snprintf(cmd, sizeof(cmd), "rmmod %s", modules[m]);
		if (system(cmd)) {
			snprintf(name, sizeof(name), "%s: '%s' failed", modules[m], cmd);
			tap(0, name, NULL);
		}
	}
	printf("1..%d\n", tap_n);
	return 0;
}
