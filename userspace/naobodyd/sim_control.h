/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: the simulated body's control socket and script (sim_control.c).
 * Each command line either brings goes to the body's interpreter, which
 * the body gives as a callback: this module knows nothing of the body.
 */
#ifndef NAOBODYD_SIM_CONTROL_H
#define NAOBODYD_SIM_CONTROL_H

#include <stddef.h>

struct loop;
struct sim_control;

/* Run one command line; the reply ("ok ..." or "error: ...") goes to out. */
typedef void sim_command_fn(void *ctx, const char *line, char *out, size_t n);

/* The control socket (or NULL: none) and the script (or NULL), on loop. */
struct sim_control *sim_control_create(struct loop *loop, const char *socket_path,
				       const char *script, sim_command_fn *run, void *ctx);
void sim_control_destroy(struct sim_control *c);
/* Script lines that are due at t seconds after the start. */
void sim_control_tick(struct sim_control *c, double t);

#endif
