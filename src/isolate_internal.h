/* SPDX-License-Identifier: MIT */
/* The isolate command's state, shared by its run (src/isolate.c) and its
 * report (src/isolate_report.c). */
#ifndef NP_ISOLATE_INTERNAL_H
#define NP_ISOLATE_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "cmds.h"
#include "isolate_judge.h"
#include "measure.h"
#include "notes.h"
#include "outfile.h"

struct iso {
	struct np_opts *o;
	struct np_world *w;
	const struct np_test_plan *test; /* the test-only switches */
	const struct np_backend_ops *ops;
	char backend_why[192];
	int device;           /* this rank's GPU in the job, -1 host */
	char device_name[96]; /* rank 0's */
	int N, L;
	char (*names)[NP_ISO_NAMELEN]; /* node names */
	int *leaf;                     /* --topology: each node's leaf switch, -1 unknown */
	char (*leaf_names)[NP_ISO_NAMELEN];
	struct np_meas meas;
	uint64_t size;
	/* the floors; rank 0: the figures and the verdict */
	struct np_iso_judge j;
	struct np_notes notes; /* rank 0: the judge's */
	double *tbuf;          /* rank 0: the batch times of one phase */
	int *tdispl;
	double t0;
	const struct np_run_record *run;
	struct np_outfile of; /* rank 0: --output */
};

/* The node type a --baseline floor is for: device name and ranks per node */
static inline void node_type(const struct iso *is, char *buf, size_t len)
{
	snprintf(buf, len, "%.95s x%d", is->device_name, is->L);
}

/* Rank 0: the verdict, the report and the lines on stderr; the exit code */
int np_isolate_report(struct iso *is);

#endif
