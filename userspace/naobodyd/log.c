// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: log lines on stderr (the journal adds time stamps under
 * systemd), and rate limits for lines that a peer can cause at will.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "log.h"

enum log_level log_level = LOG_LVL_INFO;

static const char *const level_name[] = {
	[LOG_LVL_ERR] = "error: ",
	[LOG_LVL_WARN] = "warning: ",
	[LOG_LVL_INFO] = "",
	[LOG_LVL_DEBUG] = "debug: ",
};

void nb_log(enum log_level level, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One write per line, so lines from a forked test never interleave. */
	fprintf(stderr, "naobodyd: %s%s\n", level_name[level], line);
}

bool ratelimit_ok(struct ratelimit *rl)
{
	uint64_t now = mono_ns();

	if (!rl->window_start || now - rl->window_start >= RATELIMIT_WINDOW_NS) {
		if (rl->suppressed)
			log_warn("(%u similar lines suppressed)", rl->suppressed);
		rl->window_start = now;
		rl->printed = 0;
		rl->suppressed = 0;
	}
	if (rl->printed < (rl->burst ? rl->burst : RATELIMIT_BURST)) {
		rl->printed++;
		return true;
	}
	rl->suppressed++;
	return false;
}

void sanitize(char *out, size_t n, const char *s, size_t len)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < len && i + 1 < n; i++) {
		unsigned char c = (unsigned char)s[i];

		out[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	out[i] = '\0';
}
