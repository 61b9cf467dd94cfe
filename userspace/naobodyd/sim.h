/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: the simulated body's controls, shared by its control socket
 * and its script (sim_control.c) and the body itself (body_sim.c).
 */
#ifndef NAOBODYD_SIM_H
#define NAOBODYD_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sim;
struct loop;

/* Run one command line; the reply ("ok ..." or "error: ...") goes to out. */
void sim_command(struct sim *s, const char *line, char *out, size_t n);

/* The control socket and the script. */
struct sim_control;
struct sim_control *sim_control_create(struct sim *s, struct loop *loop,
				       const char *socket_path, const char *script);
void sim_control_destroy(struct sim_control *c);
/* Script lines that are due at t seconds after the start. */
void sim_control_tick(struct sim_control *c, double t);

#endif
