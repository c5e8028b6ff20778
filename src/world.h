/* SPDX-License-Identifier: MIT */
/* The MPI world as the sweep sees it: rank, local rank, node, hosts.
 * Virtual nodes (--ranks-per-node L) let one host play several nodes. */
#ifndef NP_WORLD_H
#define NP_WORLD_H

#include <stdbool.h>

#include <mpi.h>

#include "../common/status.h"

#define NP_HOSTLEN 64

struct np_world {
	MPI_Comm comm;      /* MPI_COMM_WORLD */
	MPI_Comm node_comm; /* ranks of this (real) node */
	int rank, size;
	int local_rank, local_size; /* within the node (virtual or real) */
	int node, nnodes;           /* node index 0..nnodes-1 */
	int ranks_per_node;         /* local_size when uniform, else 0 */
	int real_nnodes;            /* distinct hosts */
	bool virtual_nodes;
	int pid;
	char host[NP_HOSTLEN];
	char (*hosts)[NP_HOSTLEN]; /* every rank's host name, indexed by rank */
	char mpi_version[128];     /* MPI_Get_library_version, first line */
	/* a group of the job (src/isolate.c): comm is a sub-communicator and
	 * rank, size, node_comm, hosts are the group's; job_ranks[r] is the
	 * job rank of group rank r. NULL in the job's own world. */
	const int *job_ranks;
	int job_size; /* ranks in the whole job */
	int device;   /* GPU this rank uses in the job, -1 = the backend picks */
};

/* MPI must be initialized. ranks_per_node 0 = real nodes. */
enum np_status np_world_init(struct np_world *w, int ranks_per_node, struct np_err *err);
void np_world_release(struct np_world *w);
/* The worst status over the ranks of COMM (the largest: NP_OK is 0). */
enum np_status np_status_worst(MPI_Comm comm, enum np_status st);
/* A step's end agreed over COMM: this rank arrives (the watchdog names
 * "the end of WHAT" where one does not), every rank learns the worst
 * status, and a rank that failed first (not as a consequence of another's
 * failure, err->secondary) says why. ERR may be NULL when st is NP_OK. */
enum np_status np_step_agree(MPI_Comm comm, enum np_status st, const struct np_err *err,
			     const char *what);

/* A check of the user's input that every rank of w made (st, err): when
 * any rank failed, every rank exits 64 and the message is printed once,
 * by rank 0, or by each failing rank when rank 0 passed (a file that one
 * host cannot read). Returns when every rank passed. */
void np_world_usage_agree(const struct np_world *w, enum np_status st, const struct np_err *err);

/* This rank's rank in the whole job. */
static inline int np_world_job_rank(const struct np_world *w)
{
	return w->job_ranks ? w->job_ranks[w->rank] : w->rank;
}

#endif
