/* SPDX-License-Identifier: MIT */
/* MPI world: ranks, nodes (real through MPI_COMM_TYPE_SHARED, or virtual
 * blocks of --ranks-per-node ranks) and every rank's host name. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "watchdog.h"
#include "../probes/backend.h"
#include "world.h"

static enum np_status mpi_fail(struct np_err *err, int rc, const char *what)
{
	char s[MPI_MAX_ERROR_STRING];
	int len = 0;

	MPI_Error_string(rc, s, &len);
	return np_fail(err, NP_EMPI, "%s failed: %s", what, s);
}

enum np_status np_world_init(struct np_world *w, int ranks_per_node, struct np_err *err)
{
	int rc, len = 0, is_leader;
	char ver[MPI_MAX_LIBRARY_VERSION_STRING], *nl;
	MPI_Comm leaders;

	memset(w, 0, sizeof(*w));
	w->comm = MPI_COMM_WORLD;
	w->node_comm = MPI_COMM_NULL;
	w->device = -1;
	MPI_Comm_rank(w->comm, &w->rank);
	MPI_Comm_size(w->comm, &w->size);
	w->job_size = w->size;
	w->pid = (int)getpid();
	if (gethostname(w->host, sizeof(w->host)) != 0)
		strcpy(w->host, "unknown");
	w->host[sizeof(w->host) - 1] = '\0';
	np_msg_rank = w->rank;
	np_msg_size = w->size;
	snprintf(np_msg_host, sizeof(np_msg_host), "%s", w->host);

	MPI_Get_library_version(ver, &len);
	if ((nl = strchr(ver, '\n')))
		*nl = '\0';
	if ((nl = strchr(ver, ',')))
		*nl = '\0';
	snprintf(w->mpi_version, sizeof(w->mpi_version), "%.127s", ver);

	w->hosts = calloc((size_t)w->size, sizeof(*w->hosts));
	if (!w->hosts)
		return np_fail(err, NP_ENOMEM, "out of memory for %d host names", w->size);
	rc = MPI_Allgather(w->host, NP_HOSTLEN, MPI_CHAR, w->hosts, NP_HOSTLEN, MPI_CHAR, w->comm);
	if (rc != MPI_SUCCESS)
		return mpi_fail(err, rc, "MPI_Allgather of host names");

	/* real nodes: shared-memory domains */
	rc = MPI_Comm_split_type(w->comm, MPI_COMM_TYPE_SHARED, w->rank, MPI_INFO_NULL,
				 &w->node_comm);
	if (rc != MPI_SUCCESS)
		return mpi_fail(err, rc, "MPI_Comm_split_type");
	MPI_Comm_rank(w->node_comm, &w->local_rank);
	MPI_Comm_size(w->node_comm, &w->local_size);
	is_leader = w->local_rank == 0;
	rc = MPI_Comm_split(w->comm, is_leader ? 0 : MPI_UNDEFINED, w->rank, &leaders);
	if (rc != MPI_SUCCESS)
		return mpi_fail(err, rc, "MPI_Comm_split");
	if (is_leader) {
		MPI_Comm_rank(leaders, &w->node);
		MPI_Comm_size(leaders, &w->real_nnodes);
		MPI_Comm_free(&leaders);
	}
	MPI_Bcast(&w->node, 1, MPI_INT, 0, w->node_comm);
	MPI_Bcast(&w->real_nnodes, 1, MPI_INT, 0, w->node_comm);
	w->nnodes = w->real_nnodes;

	if (ranks_per_node > 0) {
		w->virtual_nodes = true;
		w->node = w->rank / ranks_per_node;
		w->nnodes = w->size / ranks_per_node;
		w->local_rank = w->rank % ranks_per_node;
		w->local_size = ranks_per_node;
		w->ranks_per_node = ranks_per_node;
		/* each virtual node its own host id (NCCL_HOSTID), set now: before the
		 * first CUDA or NCCL call and their threads, which read the
		 * environment (setenv is not safe beside getenv) */
		if (np_backend_vnode_setup(w->host, w->node) != 0)
			return np_fail(err, NP_ESYS,
				       "cannot set NCCL_HOSTID for virtual node %d: %s", w->node,
				       strerror(errno));
	} else {
		int mn = w->local_size, mx = w->local_size;
		MPI_Allreduce(MPI_IN_PLACE, &mn, 1, MPI_INT, MPI_MIN, w->comm);
		MPI_Allreduce(MPI_IN_PLACE, &mx, 1, MPI_INT, MPI_MAX, w->comm);
		w->ranks_per_node = mn == mx ? mn : 0;
	}
	return NP_OK;
}

void np_world_release(struct np_world *w)
{
	if (w->node_comm != MPI_COMM_NULL)
		MPI_Comm_free(&w->node_comm);
	free(w->hosts);
	w->hosts = NULL;
}

enum np_status np_status_worst(MPI_Comm comm, enum np_status st)
{
	int mine = (int)st, worst = 0;

	MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm);
	return (enum np_status)worst;
}

enum np_status np_step_agree(MPI_Comm comm, enum np_status st, const struct np_err *err,
			     const char *what)
{
	np_watchdog_arrive(comm, "the end of %s", what);
	if (st != NP_OK && err && !err->secondary)
		np_rank_error("%s", err->msg);
	return np_status_worst(comm, st);
}

void np_world_usage_agree(const struct np_world *w, enum np_status st, const struct np_err *err)
{
	int worst = (int)st, first = (int)st;

	MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, w->comm);
	if (!worst)
		return;
	MPI_Bcast(&first, 1, MPI_INT, 0, w->comm);
	if (st && w->rank == 0)
		np_error("%s", err->msg);
	else if (st && !first)
		np_rank_error("%s", err->msg);
	np_exit(NP_EXIT_USAGE);
}
