/* SPDX-License-Identifier: MIT */
/* isolate --topology FILE: each node's leaf switch from Slurm's
 * topology.conf, for the judge's np_iso_judge.leaf. */
#ifndef NP_ISOLATE_TOPOLOGY_H
#define NP_ISOLATE_TOPOLOGY_H

#include "isolate_judge.h"
#include "../common/status.h"

/* Reads path (lines "SwitchName=NAME ... Nodes=HOSTLIST"; switches of
 * switches and other keys ignored, '#' starts a comment) for the N nodes
 * names[]: leaf[v] is node v's leaf switch, 0 to *nleaves - 1, or -1 when
 * no switch lists it; leaf_names[l] the switch's name (leaf_names holds N
 * entries: only switches with a node of the job count). A hostlist is
 * NAME or PREFIX[RANGES]SUFFIX, numbers as wide as each range's low bound.
 * NP_EUSAGE, with one line in err, when the file cannot be read, a list
 * cannot be read, a node is on two switches, or no node is on any. */
enum np_status np_iso_topology_read(const char *path, int N, const char (*names)[NP_ISO_NAMELEN],
				    int *leaf, char (*leaf_names)[NP_ISO_NAMELEN], int *nleaves,
				    struct np_err *err);

#endif
