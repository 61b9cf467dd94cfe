/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd's REST API: what it says of the driver and the boards (GET
 * /robot's driver and chest_board, GET /boards, GET /driver), from the body's info and
 * its boards() (body.h). The simulated body has neither: it says so with
 * null and a reason, never with made-up versions.
 */
#ifndef NAOBODYD_REST_BOARDS_H
#define NAOBODYD_REST_BOARDS_H

#include <jansson.h>

struct body;

/* /robot's "driver": {version, abi_version}, or null without a driver. */
json_t *rest_driver_json(const struct body *b);
/* /robot's "chest_board": {version}, or null. */
json_t *rest_chest_json(const struct body *b);

/* GET /driver's answer: the driver and its sysfs statistics/ counters. */
json_t *rest_driver_detail_json(struct body *b);

/* GET /boards's answer (with the decoded preference block); NULL with -errno in *err when the driver failed. */
json_t *rest_boards_json(struct body *b, int *err);

#endif
