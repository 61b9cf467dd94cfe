/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd's REST API: which peers are on the local network. The host's
 * own addresses and their prefixes, learnt with libmnl (an RTM_GETADDR
 * dump at start) and followed (RTMGRP_IPV4_IFADDR, RTMGRP_IPV6_IFADDR), so
 * an address added at run time (a new Wi-Fi) is honoured without a
 * restart. A peer is local when it is on loopback or inside one of those
 * prefixes (Documentation/rest-api.rst, "Who may ask").
 *
 * localnet_allows() is called from the HTTP threads, localnet_process()
 * from the REST feeder thread: the table is behind a mutex.
 */
#ifndef NAOBODYD_REST_NET_H
#define NAOBODYD_REST_NET_H

#include <stdbool.h>
#include <sys/socket.h>

struct localnet;

/* The dump is done before it returns; NULL (errno set) on failure. */
struct localnet *localnet_create(void);
void localnet_destroy(struct localnet *ln);
/* Readable when an address came or went; then localnet_process(). */
int localnet_fd(const struct localnet *ln);
void localnet_process(struct localnet *ln);
bool localnet_allows(struct localnet *ln, const struct sockaddr *peer);
/* addr (4 or 16 bytes of family) is the host's own: loopback, or in the table. */
bool localnet_own(struct localnet *ln, int family, const void *addr);
/* How many addresses the table holds (for the log). */
unsigned int localnet_count(struct localnet *ln);

#endif
