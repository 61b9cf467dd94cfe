/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: whether the real body may walk. Walking was only ever checked
 * on the physical model, with the codec's layout of the chest board's
 * messages, which is a guess until a capture of a real robot confirms it
 * (Documentation/capture.rst). The explicit option --robot-motions names
 * naoctl verify's verdict on such a capture; this is what it must say.
 */
#ifndef NAOBODYD_ROBOT_MOTIONS_H
#define NAOBODYD_ROBOT_MOTIONS_H

#include <stddef.h>
#include <stdint.h>

/*
 * 0 when the verdict file at @path is naoctl verify's, on the layout
 * @layout_id (nb_layout_id() of the codec naobodyd was built with),
 * contradicts nothing and confirms every entry walking depends on;
 * otherwise -1 with the first reason in @why.
 */
int robot_motions_check(const char *path, uint32_t layout_id, char *why, size_t n);

#endif
