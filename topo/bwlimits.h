/* SPDX-License-Identifier: MIT */
/* Bandwidth limits of DESIGN.md "Limits": what a flat point-to-point model
 * of the hardware allows, per collective, in GB/s (1e9 bytes/s), one
 * direction. The sweep gathers each rank's facts per node and asks
 * np_limit_busbw for the limit of each row. */
#ifndef NP_TOPO_BWLIMITS_H
#define NP_TOPO_BWLIMITS_H

#include "../common/coll.h"
#include "../common/status.h"

struct np_bw_facts {       /* one rank's view, gathered per node by the sweep */
	double gpu_gbps;   /* B_gpu for this rank's GPU: active NVLinks x per-link rate (NVML), else
			      its PCIe link (gen x width) one direction, GB/s; 0 = unknown */
	double node_gbps;  /* B_node: sum of this node's active NIC port rates (verbs/sysfs), GB/s
			      (Gb/s / 8); 0 = no NIC/unknown */
	double nic_gbps;   /* rate of this GPU's nearest active NIC, GB/s; 0 = unknown */
	double proto_gbps; /* NCCL protocol ceiling shown beside (about 0.8 x NVLink line rate), 0 =
			      n/a */
	char nic[40];      /* this GPU's nearest active NIC, "mlx5_0:1"; "" = none or unknown */
	char gpu_src[96], node_src[96]; /* evidence, e.g. "18 NVLink x 26.6 GB/s (NVML)", "PCIe Gen5
					   x16", "4 x NDR 400 Gb/s (mlx5_0..3)" */
};

/* bus_id: the PCI bus id of this rank's GPU ("0000:19:00.0"), or "" for
 * host memory. Discovers the live machine (hwloc, NVML by dlopen, verbs,
 * sysfs through NCCL_PROBE_FSROOT); a missing GPU, NIC or NVML leaves the
 * matching field 0 and its evidence says so. The PCIe link counts at its
 * maximum generation and width (idle GPUs train down). NP_EUSAGE for a
 * malformed bus_id, NP_ESYS when hwloc cannot load the machine. With ""
 * NVML, the CUDA driver and NCCL are left unloaded. */
enum np_status np_bw_facts_local(const char *bus_id, struct np_bw_facts *out, struct np_err *err);

/* The same for the n ranks of one node, the machine discovered once:
 * out[i] from bus_ids[i] ("" or NULL for host memory). A discovery loads
 * hwloc with every PCI device (on a small virtual host, most of a rank's
 * start-up): a node's ranks each doing it multiplied that by their count.
 * NVML, the CUDA driver and NCCL are left unloaded where every id is "".
 * On failure every out[i] is zero (unknown). */
enum np_status np_bw_facts_node(int n, const char *const *bus_ids, struct np_bw_facts *out,
				struct np_err *err);

/* The DESIGN.md formula: busbw limit (GB/s) for a collective over n ranks,
 * L per node (N = n / L nodes, rounded up); 0 when unknown (a term the
 * formula needs is 0, or n, L < 1). b_gpu, b_node, b_nic as in struct
 * np_bw_facts. For sendrecv the ring crosses nodes exactly when N > 1,
 * and then the GPU's nearest NIC (b_nic) bounds it. */
double np_limit_busbw(enum np_coll_id coll, int n, int L, double b_gpu, double b_node,
		      double b_nic);

/* B_node of one node (GB/s) from its k ranks' nearest NICs (nic[i] its
 * name, "" unknown; nic_gbps[i] its rate): the sum of the rates of the
 * distinct NICs the ranks' GPUs use, so a node where the job has 1 or 2 of
 * 8 GPUs is held to the NICs those GPUs would use; `whole` (the sum of the
 * node's active NIC ports) when a rank has no nearest NIC. */
double np_node_bw_used(int k, const char *const *nic, const double *nic_gbps, double whole);

/* A row's limit over nodes of different sizes: the least over the nnodes
 * nodes of np_limit_busbw with node j's rank count L[j] and B_node B[j]
 * (nodes with L[j] 0 are skipped); 0 when one node's limit is unknown. */
double np_limit_nodes(enum np_coll_id coll, int n, int nnodes, const int *L, const double *B,
		      double b_gpu, double b_nic);

/* The protocol ceiling NCCL reaches over NVLink: this fraction of line rate. */
#define NP_NVLINK_PROTO_FRACTION 0.8

#endif
