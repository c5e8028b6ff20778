/* SPDX-License-Identifier: MIT */
/* Shared by the parts of isolate's judging: src/isolate_fleet.c (each
 * figure against its fleet), src/isolate_judge.c (nodes and links named,
 * rounds planned) and src/isolate_chance.c (what the fleet's own noise
 * lets it name). Not for callers of src/isolate_judge.h. */
#ifndef NP_ISOLATE_JUDGE_INTERNAL_H
#define NP_ISOLATE_JUDGE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "isolate_judge.h"
#include "msg.h"

/* Each node's figures, for every figure added so far: j->by_node_at[v]
 * .. j->by_node_at[v + 1] index j->by_node, in figure order. Rebuilt only
 * when figures were added since. */
void np_iso_index_nodes(struct np_iso_judge *j);

/* For each figure index i of node v (after np_iso_index_nodes). */
#define NP_ISO_NODE_FIGS(j, v, i)               \
	for (int i##_k = (j)->by_node_at[v], i; \
	     i##_k < (j)->by_node_at[(v) + 1] && (i = (j)->by_node[i##_k], 1); i##_k++)

/* A note for people (j->note), formatted. */
void np_iso_note(struct np_iso_judge *j, const char *fmt, ...) NP_PRINTF(2, 3);

/* Whether link a-b is named. */
bool np_iso_link_named(const struct np_iso_judge *j, int a, int b);

/* After the names of a final np_iso_decide: names for slowness that the
 * fleet's own noise explains become notes (src/isolate_chance.c), and
 * j->chance says why, "" when none. */
void np_iso_judge_chance(struct np_iso_judge *j);

/* malloc that ends the process when memory is out (np_abort). */
void *np_iso_xmalloc(size_t n);

#endif
