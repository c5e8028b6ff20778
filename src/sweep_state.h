/* SPDX-License-Identifier: MIT */
/* The sweep command's state and the steps its files share: src/sweep.c
 * runs the command, sweep_plan.c lays out its points, sweep_limits.c
 * finds the link limits, sweep_output.c writes its files and progress.
 * Internal to the sweep command; other commands use the engine
 * (measure.h) and the results model (results.h). */
#ifndef NP_SWEEP_STATE_H
#define NP_SWEEP_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "outfile.h"
#include "plan.h"
#include "report.h"
#include "results.h"

struct sweep {
	struct np_opts *o;
	struct np_world *w;
	struct np_backend be;
	struct np_sweep_report rep;
	/* held by the main thread while it changes rep, and for good by the
	 * watchdog thread when a signal finds the main thread stuck */
	pthread_mutex_t rep_lock;
	struct np_outfile of;
	struct np_outfile json_of, csv_of; /* rank 0: -J/--json and --csv files */
	FILE *out;                         /* rank 0: where the report goes (a memory stream for
					      an --output file, written at the end) */
	bool out_mem;                      /* out is that memory stream */
	char *out_buf;                     /* its text */
	size_t out_len;
	bool stream;           /* rank 0: table rows streamed to out */
	struct np_table table; /* rank 0: the streamed table's state */
	bool progress;         /* rank 0: progress on stderr */
	bool progress_tty;     /* rewritten in place (stderr is a terminal) */
	double progress_every; /* seconds between lines off a terminal */
	double progress_last;  /* when the last line was written */
	struct np_meas meas;
	int *node_L;    /* ranks of each node */
	double *node_B; /* B_node of each node, GB/s, 0 unknown */
	int worst;      /* the node with the least B_node per rank */
	int planned, done;
	double t0;                 /* start of the run */
	struct np_gpu_clocks clk0; /* this rank's GPU clocks before the first row */
	char step[200];            /* this rank's step, for the watchdog */
};

/* sweep.c: a size or collective that will not run, and why (rank 0 says
 * so at once: a table line, or a note) */
void sweep_skip(struct sweep *s, const struct np_coll *c, uint64_t size, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* sweep_plan.c: the smallest judged size: --judge-from, or else the first
 * of the largest quarter of the sweep's sizes (at least one) */
uint64_t sweep_judge_from(const struct np_opts *o);
/* Every point laid out (the caller frees them), what cannot run skipped;
 * *max_send and *max_recv: the buffers the largest point needs. */
struct np_plan_point *sweep_plan(struct sweep *s, size_t *npoints, size_t *max_send,
				 size_t *max_recv);

/* sweep_limits.c: the world's link limits into s->rep.bw, B_node and the
 * ranks of each node into s->node_B, s->node_L (all ranks, collective) */
void sweep_gather_limits(struct sweep *s);
/* limit and eff of one row; 0 and NaN when unknown */
void sweep_row_limit(const struct sweep *s, struct np_result *res);

/* sweep_output.c (rank 0; on other ranks these do nothing): open
 * --output, -J and --csv; NP_OK or the error in ERR */
enum np_status sweep_open_output(struct sweep *s, struct np_err *err);
/* The report in its format, every file committed (all or none), the
 * verdict's reasons on stderr; a file not written makes exit_code 3 */
void sweep_finish_output(struct sweep *s);
/* A progress line before the row of B, and its erasure after it */
void sweep_progress(struct sweep *s, const struct np_bench *b);
void sweep_progress_clear(struct sweep *s);
/* --baseline: this run against the baseline, after the verdict, which it
 * extends; returns the comparison's table (the caller frees it) or NULL */
char *sweep_compare_baseline(struct sweep *s);

#endif
