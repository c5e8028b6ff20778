/* SPDX-License-Identifier: MIT */
/* Helpers shared by the sources inside topo/ (not for src/). */
#ifndef NP_TOPO_INTERNAL_H
#define NP_TOPO_INTERNAL_H

#include <hwloc.h>
#include <libxml/tree.h>

#include "model.h"
#include "../common/status.h"

/* NUMA nodes and host name from an hwloc topology. */
void np_hwloc_numa(struct np_topo *t, hwloc_topology_t topo);
/* The PCI chain of an hwloc PCI object into t->pci; returns its index. */
int np_hwloc_chain(struct np_topo *t, hwloc_topology_t topo, hwloc_obj_t obj);
/* Bridges of t->pci that have no ids take them from hwloc's bridge of the
 * same bus id (a snapshot's chains carry bus ids only). */
void np_hwloc_bridge_ids(struct np_topo *t, hwloc_topology_t topo);
/* NUMA node of an I/O object's locality, -1 when not below one node. */
int np_hwloc_numa_of(hwloc_topology_t topo, hwloc_obj_t obj);

/* Snapshot records (topo/snapshot.c): true when the topology carries
 * nccl-probe's records, which then fill GPUs, NICs and host facts. */
bool np_snapshot_present(hwloc_topology_t topo);
enum np_status np_snapshot_read(struct np_topo *t, hwloc_topology_t topo, struct np_err *err);

/* An NCCL topology file parsed by np_xml_read (topo/source_nccl.c); path
 * names it in messages. */
enum np_status np_topo_from_nccl_doc(struct np_topo *t, xmlDocPtr doc, const char *path,
				     struct np_err *err);

/* A finding's text into one of its fields (topo/checks.c): cut at the
 * field's size, as a message may be. */
void np_topo_fmt(char *buf, size_t len, const char *f, ...) __attribute__((format(printf, 3, 4)));
#define SET(field, ...) np_topo_fmt(field, sizeof(field), __VA_ARGS__)

/* The GPUDirect RDMA findings of np_topo_check (topo/checks_gdr.c). */
void np_topo_check_gdr(struct np_topo *t);

#endif
