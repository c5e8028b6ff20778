/* SPDX-License-Identifier: MIT */
/* An Ethernet port's speed now and the fastest link mode it supports, from
 * the kernel's ethtool interface (SIOCETHTOOL, ETHTOOL_GLINKSETTINGS; no
 * privileges needed): a RoCE port that trained below its maximum (a slower
 * cable or module, a switch port set lower) is otherwise invisible. */
#ifndef NP_TOPO_ETHTOOL_H
#define NP_TOPO_ETHTOOL_H

#include <stdint.h>

/* The fastest rate in Mb/s among the link modes set in the bitmap (nwords
 * 32-bit words, bit i of word i / 32 as the kernel lays it out); 0 when no
 * set bit is a mode of known speed. */
long long np_link_modes_max_mbps(const uint32_t *bits, int nwords);

/* ifname's current speed and fastest supported mode, Mb/s; 0 ok, -1 when
 * the kernel or the driver cannot tell (virtual devices, old kernels):
 * then both are unknown. */
int np_ethtool_rates(const char *ifname, long long *cur_mbps, long long *max_mbps);

#endif
