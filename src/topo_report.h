/* SPDX-License-Identifier: MIT */
/* Output of the topo command: the nvidia-smi-style matrix with its legend,
 * GPU and NIC tables, findings and recommendations (table), the same model
 * as JSON (schema nccl-probe/topo), the --check-gdr report and the
 * --recommend export lines. */
#ifndef NP_TOPO_REPORT_H
#define NP_TOPO_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "../topo/model.h"
#include "run_record.h"

/* Fleet mode: one summary per node, gathered to rank 0. */
struct np_topo_fleet {
	int nnodes;
	char (*hosts)[64];
	char (*summaries)[1024];
	int majority; /* index of a node with the most common summary */
};

/* The report, one document (src/topo_doc.c) rendered: the table, JSON
 * (with gdr_only: --check-gdr's findings and answer, no recommendations)
 * or --check-gdr's lines. Each returns false, having written nothing,
 * when the document could not be built (out of memory). */
bool np_topo_report_table(FILE *f, const struct np_topo *t, const struct np_topo_fleet *fleet,
			  bool wide);
bool np_topo_report_json(FILE *f, const struct np_topo *t, const struct np_topo_fleet *fleet,
			 bool gdr_only, const struct np_run_record *rec);
bool np_topo_report_gdr(FILE *f, const struct np_topo *t);
void np_topo_report_recommend(FILE *f, const struct np_topo *t);

#endif
