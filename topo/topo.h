/* SPDX-License-Identifier: MIT */
/* The topology module's entry points: discover a model from a source, then
 * analyze it (paths, checks, recommendations), and write a snapshot.
 * Nothing here prints or exits; failures come back as np_status + np_err. */
#ifndef NP_TOPO_H
#define NP_TOPO_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "../common/status.h"

/* Discover the live machine: hwloc (I/O kept), NVML (dlopen), verbs,
 * sysfs through NCCL_PROBE_FSROOT, CUDA driver attributes (dlopen).
 * keep_hwloc: keep the hwloc topology in t->hwloc for np_topo_snapshot. */
enum np_status np_topo_discover_live(struct np_topo *t, bool keep_hwloc, struct np_err *err);

/* Read a file: an hwloc XML (also nccl-probe snapshots) or an NCCL
 * topology XML (<system version="1">); the format is told by the content.
 * NP_EUSAGE for a file that is none of them, empty, or a directory. */
enum np_status np_topo_discover_file(struct np_topo *t, const char *path, bool keep_hwloc,
				     struct np_err *err);

/* The same for a file's bytes in memory (len of them, no NUL needed);
 * name stands for the file in messages. */
enum np_status np_topo_discover_buffer(struct np_topo *t, const char *buf, size_t len,
				       const char *name, bool keep_hwloc, struct np_err *err);

/* Source back-ends (topo/source_*.c). */
enum np_status np_topo_from_hwloc(struct np_topo *t, void *hwloc_topology, struct np_err *err);
enum np_status np_topo_from_nccl_xml(struct np_topo *t, const char *path, struct np_err *err);

/* Analysis: paths (topo/paths.c), findings (topo/checks.c), NCCL settings
 * (topo/recommend.c). np_topo_analyze runs the three in order. */
void np_topo_paths(struct np_topo *t);
void np_topo_check(struct np_topo *t);
void np_topo_recommend(struct np_topo *t);
void np_topo_analyze(struct np_topo *t);

/* Whether NIC k carries job traffic (after np_topo_paths): not a
 * management port, and an RDMA device unless the node has none. */
bool np_topo_nic_data(const struct np_topo *t, int k);
/* Whether NCCL class p (of a GPU's path to a NIC) is within NCCL's default
 * GDR level: PXB or nearer, or P2C, which NCCL_NET_GDR_C2C (1 by default)
 * counts as C2C. */
bool np_path_gdr_level(enum np_path p);

/* GDR verdict of one GPU, as NCCL decides it for its nearest data NIC
 * (the path class NCCL sees against its default GDR level PXB, the GPU's
 * and the NIC's GDR support, peer memory or dma-buf, ACS): yes; no, with
 * the reason the source states in why; or unknown, with what is missing. */
enum np_tri np_topo_gpu_gdr(const struct np_topo *t, int gpu, char *why, size_t len);
/* Of every GPU: NP_YES when all are yes, NP_NO when one is no (or the node
 * has no GPU), else NP_UNKNOWN; of a multi-node NVLink dump, over every
 * tray (np_topo.trays). */
enum np_tri np_topo_gdr_all(const struct np_topo *t);

/* One MPI rank's CPU binding, checked against its GPU's NUMA node. */
struct np_rank_bind {
	int rank;
	int gpu;                  /* model index, -1 none */
	char cpus[NP_CPUSET_LEN]; /* sched_getaffinity as a CPU list */
};
void np_topo_check_binding(struct np_topo *t, const struct np_rank_bind *b, int n);

/* An hwloc XML snapshot with NCCLProbe* info attributes, in *xml (len
 * bytes, NUL-terminated; the caller frees it with free()). src/ writes it
 * (src/outfile.c). t->hwloc must be kept by discovery. */
enum np_status np_topo_snapshot(struct np_topo *t, char **xml, size_t *len, struct np_err *err);

/* A one-line summary of the node for fleet comparison. */
void np_topo_summary(const struct np_topo *t, char *buf, size_t len);

#endif
