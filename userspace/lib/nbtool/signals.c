// SPDX-License-Identifier: GPL-2.0-only
/* The signals that end a tool's work early (see <nbtool/signals.h>). */
#include <string.h>

#include <nbtool/signals.h>

static volatile sig_atomic_t *stop_flag;

static void on_signal(int sig)
{
	*stop_flag = sig;
}

void nbtool_catch_signals(volatile sig_atomic_t *stop)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	stop_flag = stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}
