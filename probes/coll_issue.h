/* SPDX-License-Identifier: MIT */
/* How each backend issues each collective: the functions that the rows of
 * np_colls[] (probes/coll.c) name. Each takes a struct np_call and returns
 * the library's result code; none prints. */
#ifndef NP_COLL_ISSUE_H
#define NP_COLL_ISSUE_H

#include "coll.h"

/* probes/backend_mpi.c */
int np_mpi_allreduce(const struct np_call *c);
int np_mpi_allgather(const struct np_call *c);
int np_mpi_reducescatter(const struct np_call *c);
int np_mpi_alltoall(const struct np_call *c);
int np_mpi_broadcast(const struct np_call *c);
int np_mpi_reduce(const struct np_call *c);
int np_mpi_gather(const struct np_call *c);
int np_mpi_scatter(const struct np_call *c);
int np_mpi_sendrecv(const struct np_call *c);

#ifdef HAVE_NCCL
/* probes/backend_nccl.c: the native call where the runtime NCCL has one
 * (caps says), else grouped send/recv */
int np_nccl_allreduce(const struct np_call *c);
int np_nccl_allgather(const struct np_call *c);
int np_nccl_reducescatter(const struct np_call *c);
int np_nccl_alltoall(const struct np_call *c);
int np_nccl_broadcast(const struct np_call *c);
int np_nccl_reduce(const struct np_call *c);
int np_nccl_gather(const struct np_call *c);
int np_nccl_scatter(const struct np_call *c);
int np_nccl_sendrecv(const struct np_call *c);
#endif

#endif
