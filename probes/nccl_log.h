/* SPDX-License-Identifier: MIT */
/* Reading NCCL's INIT/NET log for what NCCL's API does not tell: the
 * network transport in use; and the environment NCCL reads, set before
 * any thread starts. Plain C, no NCCL needed, so it is unit-tested on any
 * machine. */
#ifndef NP_NCCL_LOG_H
#define NP_NCCL_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* From NCCL's log f, the network in use ("Using network IB") and its
 * devices (the "NET/IB : Using ..." line of that network), with the
 * reason when NCCL fell back to sockets (no IB device, no libibverbs):
 * "IB ([0]mlx5_0:1/IB [1]mlx5_1:1/IB)", "Socket ([0]eth0:10.0.0.2<0>;
 * NET/IB: no device found)". out is "" when the log names no network. */
void np_nccl_log_transport(FILE *f, char *out, size_t len);

/* Have NCCL log INIT and NET into a new temporary file, unless the user
 * set NCCL_DEBUG: sets NCCL_DEBUG, NCCL_DEBUG_SUBSYS and NCCL_DEBUG_FILE
 * in the environment. The file has no name in TMPDIR (made there and
 * unlinked at once; the path is /proc/self/fd/N, valid in this process
 * only), so a killed process leaves nothing behind; without /proc it is
 * a named file in TMPDIR that the caller removes. tuning adds ENV and TUNING (nccl-probe tune reads
 * which settings NCCL took and the algorithm and protocol of each call). Call it before any thread
 * starts (MPI's, CUDA's, NCCL's, the watchdog): setenv races with getenv in other threads, and NCCL
 * reads its settings once. Returns the file's path, or NULL. */
const char *np_nccl_log_setup(bool tuning);
/* The path np_nccl_log_setup made, or NULL. */
const char *np_nccl_log_path(void);

/* The NCCL host id of virtual node `node` on host `host`: "host-vnodeN"
 * (the host name cut to 40 bytes). NCCL takes ranks with different host
 * ids for different hosts, so ranks of different virtual nodes talk
 * through its network transport even on one GPU. */
void np_nccl_host_id(char *buf, size_t len, const char *host, int node);
/* Set NCCL_HOSTID to that id for the rest of the process. NCCL reads it
 * at each communicator's setup, and setenv is not safe beside threads
 * that call getenv: src/world.c calls this as it makes the virtual
 * nodes, before the first CUDA or NCCL call, CUDA's or NCCL's threads and
 * the backend. 0, or -1 with errno. */
int np_nccl_hostid_setup(const char *host, int node);
/* The id np_nccl_hostid_setup set, or NULL. */
const char *np_nccl_hostid(void);
/* Whether the environment entry e ("NAME=value") is one that nccl-probe
 * set (the log settings, the virtual node's host id), not the user's. */
bool np_nccl_env_ours(const char *e);

/* Whether NCCL's log line says it read variable name with value: "NAME
 * set by environment to VALUE" (numbers compare as numbers: NCCL prints
 * parameters in decimal with a final period). */
bool np_nccl_log_env_line(const char *line, const char *name, const char *value);
/* From a TUNING line "AllReduce: 1024 Bytes -> Algo RING proto LL ...",
 * the function, algorithm and protocol; false for other lines. */
bool np_nccl_log_tuning_line(const char *line, char *func, size_t flen, char *algo, size_t alen,
			     char *proto, size_t plen);

#endif
