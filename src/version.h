/* SPDX-License-Identifier: MIT */
/* JSON schema versions; bump on any incompatible change (man page JSON). */
#ifndef NP_VERSION_H
#define NP_VERSION_H

#define NP_SWEEP_SCHEMA "nccl-probe/sweep"
#define NP_SWEEP_SCHEMA_VERSION 1
#define NP_TOPO_SCHEMA "nccl-probe/topo"
#define NP_TOPO_SCHEMA_VERSION 2 /* 2: unknown facts are null (nvlinks, gdr_ok, names, paths) */
#define NP_ISOLATE_SCHEMA "nccl-probe/isolate"
#define NP_ISOLATE_SCHEMA_VERSION 1
#define NP_COMPARE_SCHEMA "nccl-probe/compare"
#define NP_COMPARE_SCHEMA_VERSION 1
#define NP_TUNE_SCHEMA "nccl-probe/tune"
#define NP_TUNE_SCHEMA_VERSION 1

#endif
