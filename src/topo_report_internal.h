/* SPDX-License-Identifier: MIT */
/* What the topo command's document (src/topo_doc.c) and its table
 * sections (src/topo_report.c) share: a matrix cell, a NIC's role, and
 * the sections, each written to the stream of its node. */
#ifndef NP_TOPO_REPORT_INTERNAL_H
#define NP_TOPO_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "../topo/topo.h"
#include "topo_report.h"

/* GPUs i and j not joined by NVLink as far as the source tells, while one
 * of them has an unknown NVLink count */
static inline bool gg_nv_unknown(const struct np_topo *t, int i, int j)
{
	return i != j && t->gg[i][j] != NP_PATH_NV &&
	       (t->gpus[i].nvlinks < 0 || t->gpus[j].nvlinks < 0);
}

/* The matrix cell of GPU i and GPU j (gpu_gpu) or NIC j: "NV4", "PXB",
 * "SYS?" where NVLink is unknown */
static inline void path_cell(const struct np_topo *t, int i, int j, bool gpu_gpu, char *buf,
			     size_t len)
{
	if (gpu_gpu && t->gg[i][j] == NP_PATH_NV)
		snprintf(buf, len, "NV%d", t->gg_nv[i][j]);
	else if (gpu_gpu && gg_nv_unknown(t, i, j) && t->gg[i][j] != NP_PATH_UNKNOWN)
		snprintf(buf, len, "%s?", np_path_str(t->gg[i][j]));
	else
		snprintf(buf, len, "%s", np_path_str(gpu_gpu ? t->gg[i][j] : t->gn[i][j]));
}

static inline const char *nic_role(const struct np_nic *n)
{
	return n->mgmt ? "mgmt" : n->rdma == NP_NO ? "socket" : "data";
}

/* The default table's sections, in the table's order */
void np_topo_tab_title(FILE *f, const struct np_topo *t);
void np_topo_tab_matrix(FILE *f, const struct np_topo *t, bool wide); /* with its legend */
void np_topo_tab_gpus(FILE *f, const struct np_topo *t, bool wide);
void np_topo_tab_nics(FILE *f, const struct np_topo *t, bool wide);
void np_topo_tab_trays(FILE *f, const struct np_topo *t);
void np_topo_tab_host(FILE *f, const struct np_topo *t, bool wide);
void np_topo_tab_findings(FILE *f, const struct np_topo *t, bool gdr_only, bool wide);
void np_topo_tab_recs(FILE *f, const struct np_topo *t, bool wide);
void np_topo_tab_fleet(FILE *f, const struct np_topo_fleet *fl);
/* --check-gdr's lines: peer memory, a GPU's answer, the trays', the
 * verdict */
void np_topo_gdr_peer(FILE *f, const struct np_topo *t);
void np_topo_gdr_gpu(FILE *f, const struct np_topo *t, int i);
void np_topo_gdr_trays(FILE *f, const struct np_topo *t);
void np_topo_gdr_verdict(FILE *f, const struct np_topo *t);

#endif
