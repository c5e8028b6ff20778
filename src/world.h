/* SPDX-License-Identifier: MIT */
/* The MPI world as the sweep sees it: rank, local rank, node, hosts.
 * Virtual nodes (--ranks-per-node L) let one host play several nodes. */
#ifndef NP_WORLD_H
#define NP_WORLD_H

#include <stdbool.h>

#include <mpi.h>

#include "status.h"

#define NP_HOSTLEN 64

struct np_world {
	MPI_Comm comm;        /* MPI_COMM_WORLD */
	MPI_Comm node_comm;   /* ranks of this (real) node */
	int rank, size;
	int local_rank, local_size; /* within the node (virtual or real) */
	int node, nnodes;           /* node index 0..nnodes-1 */
	int ranks_per_node;         /* local_size when uniform, else 0 */
	int real_nnodes;            /* distinct hosts */
	bool virtual_nodes;
	int pid;
	char host[NP_HOSTLEN];
	char (*hosts)[NP_HOSTLEN];  /* every rank's host name, indexed by rank */
	char mpi_version[128];      /* MPI_Get_library_version, first line */
};

/* MPI must be initialized. ranks_per_node 0 = real nodes. */
enum np_status np_world_init(struct np_world *w, int ranks_per_node, struct np_err *err);
void np_world_release(struct np_world *w);

#endif
