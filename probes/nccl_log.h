/* SPDX-License-Identifier: MIT */
/* Reading NCCL's INIT/NET log for what NCCL's API does not tell: the
 * network transport in use. Plain C, no NCCL needed, so it is unit-tested
 * on any machine. */
#ifndef NP_NCCL_LOG_H
#define NP_NCCL_LOG_H

#include <stddef.h>
#include <stdio.h>

/* From NCCL's log f, the network in use ("Using network IB") and its
 * devices (the "NET/IB : Using ..." line of that network), with the
 * reason when NCCL fell back to sockets (no IB device, no libibverbs):
 * "IB ([0]mlx5_0:1/IB [1]mlx5_1:1/IB)", "Socket ([0]eth0:10.0.0.2<0>;
 * NET/IB: no device found)". out is "" when the log names no network. */
void np_nccl_log_transport(FILE *f, char *out, size_t len);

#endif
