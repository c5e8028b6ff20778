/* SPDX-License-Identifier: MIT */
/* JSON schema versions; bump on any incompatible change (man page JSON). */
#ifndef NP_VERSION_H
#define NP_VERSION_H

#define NP_SWEEP_SCHEMA "nccl-probe/sweep"
#define NP_SWEEP_SCHEMA_VERSION 1
#define NP_TOPO_SCHEMA "nccl-probe/topo"
#define NP_TOPO_SCHEMA_VERSION 2 /* 2: unknown facts are null (nvlinks, gdr_ok, names, paths) */

#endif
