/* SPDX-License-Identifier: MIT */
/* Unit tests of the sweep's verdict (src/sweep_verdict.c) on rows by hand:
 * a threshold met at its value, unknown link limits, rows below
 * --judge-from only, wrong data, an interrupted run, several collectives,
 * nccl-tests' NCCL_TESTS_MIN_BW, and the exit code of each. The interval
 * and unsteady rules of one row are in tests/unit/test_report.c. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/opts.h"
#include "../../src/results.h"
#include "../../src/sweep_verdict.h"
#include "tap.h"

#define MAX_ROWS 8

static struct np_opts opts;
static struct np_world world;
static struct np_result rows[MAX_ROWS];
static struct np_sweep_report rep;

/* A fresh report on n ranks with no threshold, no row. */
static void fresh(int n)
{
	np_notes_release(&rep.verdict);
	free(rep.details);
	memset(&opts, 0, sizeof(opts));
	memset(&world, 0, sizeof(world));
	memset(rows, 0, sizeof(rows));
	memset(&rep, 0, sizeof(rep));
	opts.nt_min_bw = -1;
	world.size = n;
	rep.opts = &opts;
	rep.world = &world;
	rep.rows = rows;
	rep.judge_from = 1 << 20;
}

/* One row of collective c at size bytes: busbw, eff (NaN: limit unknown),
 * a tight interval (median +-1%), converged; judged from --judge-from up. */
static struct np_result *row(enum np_coll_id c, uint64_t size, double busbw, double eff)
{
	struct np_result *x = &rows[rep.nrows++];

	opts.colls[c] = true;
	x->coll = &np_colls[c];
	x->lay.size = size;
	x->busbw = x->algbw = busbw;
	x->eff = eff;
	x->limit = isfinite(eff) && eff > 0 ? busbw / eff : 0;
	x->t_med = 1e-3, x->t_ci_lo = 0.99e-3, x->t_ci_hi = 1.01e-3;
	x->stop = NP_STOP_CONVERGED;
	x->steady = 1;
	x->floor_rel = 1;
	x->judged = size >= rep.judge_from;
	x->slow_rank = -1;
	return x;
}

/* Judge every row, then the run: its exit code. */
static int verdict(void)
{
	for (size_t i = 0; i < rep.nrows; i++)
		np_sweep_row_verdict(&rep, &rows[i]);
	np_sweep_verdict(&rep);
	return rep.exit_code;
}

/* Whether one of the verdict's sentences holds s (shown when not). */
static int said(const char *s)
{
	for (int i = 0; i < rep.verdict.n; i++)
		if (strstr(rep.verdict.v[i], s))
			return 1;
	printf("#   no sentence holds '%s'; there are %d:\n", s, rep.verdict.n);
	for (int i = 0; i < rep.verdict.n; i++)
		printf("#     %s\n", rep.verdict.v[i]);
	return 0;
}

/* How many details carry code. */
static int details(const char *code)
{
	int n = 0;

	for (size_t i = 0; i < rep.ndetails; i++)
		n += !strcmp(rep.details[i].code, code);
	return n;
}

/* one collective's thresholds: met, failed, unknown, not judged; wrong data */
static void single_thresholds(void)
{
	/* no threshold: nothing is judged, exit 0 */
	fresh(2);
	row(NP_COLL_ALLREDUCE, 1 << 20, 1, 0.01);
	tap_is_int(verdict(), 0, "no threshold: exit 0");
	tap_is_int(rows[0].pass, -1, "  the row is not judged");
	tap_is_str(rep.judged, "", "  and nothing is said to be judged");

	/* a threshold met at its exact value is met */
	fresh(2);
	opts.coll_min_busbw[NP_COLL_ALLREDUCE] = 10;
	opts.coll_min_eff[NP_COLL_ALLREDUCE] = 0.5;
	row(NP_COLL_ALLREDUCE, 1 << 20, 10, 0.5);
	tap_is_int(verdict(), 0,
		   "busbw 10 against --min-busbw 10, eff 50%% against 50%%: met, exit 0");
	tap_is_int(rows[0].pass, 1, "  the row met");
	tap_is_str(rep.judged, "from 1 MiB up: allreduce busbw >= 10 GB/s, eff >= 50%",
		   "  what was judged, from --judge-from up");

	/* a row below --judge-from is not judged, whatever its figure */
	fresh(2);
	opts.coll_min_busbw[NP_COLL_ALLREDUCE] = 10;
	row(NP_COLL_ALLREDUCE, 1024, 1, NAN);
	row(NP_COLL_ALLREDUCE, 1 << 20, 12, NAN);
	tap_is_int(verdict(), 0, "a slow row below --judge-from, a fast one above: exit 0");
	tap_is_int(rows[0].pass, -1, "  the small row is not judged");
	tap_is_int(rows[1].pass, 1, "  the large one met");

	/* no row at or above --judge-from: the thresholds cannot be judged: a fail */
	fresh(2);
	opts.coll_min_busbw[NP_COLL_ALLREDUCE] = 10;
	row(NP_COLL_ALLREDUCE, 1024, 100, NAN);
	tap_is_int(verdict(), 1, "every row below --judge-from: exit 1 (not judged is no pass)");
	tap_ok(said("allreduce: no row at or above --judge-from 1 MiB ran"),
	       "  the sentence says why");
	tap_is_int(details("not_judged"), 1, "  one not_judged detail");

	/* the link limit unknown: --min-eff cannot be met, exit 1 */
	fresh(2);
	opts.coll_min_eff[NP_COLL_ALLREDUCE] = 0.5;
	row(NP_COLL_ALLREDUCE, 1 << 20, 100, NAN);
	row(NP_COLL_ALLREDUCE, 4 << 20, 100, NAN);
	tap_is_int(verdict(), 1, "--min-eff with no link rate found: exit 1");
	tap_is_int(rows[0].pass, 0, "  the row failed (eff unknown is not met)");
	tap_ok(said("allreduce eff is unknown (no link rate found) at 2 judged sizes, so --min-eff 50% cannot be met"),
	       "  the sentence names the cause and the count");
	tap_is_int(details("eff_unknown"), 2, "  an eff_unknown detail for each row");
	tap_is_int(details("min_eff"), 0, "  and no min_eff detail");

	/* one rank: busbw is 0 by definition, --min-busbw is not applied; eff unknown */
	fresh(1);
	opts.coll_min_busbw[NP_COLL_ALLREDUCE] = 10;
	row(NP_COLL_ALLREDUCE, 1 << 20, 0, NAN);
	tap_is_int(verdict(), 0, "--min-busbw on one rank is not applied: exit 0");
	tap_is_int(rows[0].pass, -1, "  the row is not judged");
	tap_is_str(rep.judged, "", "  nothing is said to be judged");
	opts.coll_min_eff[NP_COLL_ALLREDUCE] = 0.5;
	tap_is_int(verdict(), 1, "--min-eff on one rank: unknown, exit 1");
	tap_ok(said("(one rank moves no data over a bus)"),
	       "  the sentence says one rank moves no data");

	/* below the floor: exit 1, the lowest row named */
	fresh(2);
	opts.coll_min_busbw[NP_COLL_ALLREDUCE] = 10;
	row(NP_COLL_ALLREDUCE, 1 << 20, 8, NAN);
	row(NP_COLL_ALLREDUCE, 4 << 20, 5, NAN);
	row(NP_COLL_ALLREDUCE, 16 << 20, 11, NAN);
	tap_is_int(verdict(), 1, "two of three judged rows below --min-busbw: exit 1");
	tap_ok(said("allreduce busbw below --min-busbw 10 GB/s at 2 of 3 judged sizes (lowest 5.00 GB/s at 4 MiB)"),
	       "  the sentence counts them and names the lowest");
	tap_is_int(details("min_busbw"), 2, "  a min_busbw detail for each");
	tap_is_int(rows[2].pass, 1, "  the row above it met");

	/* wrong data outranks a failed threshold: exit 2 */
	fresh(2);
	opts.coll_min_busbw[NP_COLL_ALLREDUCE] = 10;
	row(NP_COLL_ALLREDUCE, 1 << 20, 5, NAN)->wrong = 3;
	row(NP_COLL_ALLREDUCE, 4 << 20, 5, NAN)->wrong = 4;
	tap_is_int(verdict(), 2, "wrong data and a failed threshold: exit 2");
	tap_ok(said("wrong data: 7 wrong elements (exit 2)"),
	       "  the wrong elements summed over rows");
	tap_ok(said("allreduce busbw below --min-busbw"),
	       "  the threshold's reason is kept beside it");
	tap_is_int(details("data_errors"), 2, "  a data_errors detail for each row");
}

/* several collectives, inconclusive rows, an interruption, and nccl-tests' NCCL_TESTS_MIN_BW */
static void mixed_and_inconclusive(void)
{
	struct np_result *x;

	/* several collectives: a fail in one outranks an inconclusive one, in either order */
	for (int order = 0; order < 2; order++) {
		enum np_coll_id failing = order ? NP_COLL_ALLREDUCE : NP_COLL_ALLTOALL;
		enum np_coll_id noisy = order ? NP_COLL_ALLTOALL : NP_COLL_ALLREDUCE;

		fresh(2);
		opts.coll_min_busbw[failing] = 10;
		opts.coll_min_busbw[noisy] = 10;
		row(failing, 1 << 20, 5, NAN);
		x = row(noisy, 1 << 20, 9, NAN);
		x->t_ci_lo = 0.5e-3; /* busbw up to 18: the interval reaches 10 */
		tap_is_int(verdict(), 1, "%s below, %s inconclusive: exit 1",
			   np_colls[failing].name, np_colls[noisy].name);
		tap_is_int(x->pass, -1, "  the noisy row neither met nor failed");
		tap_is_int(details("inconclusive_busbw"), 1, "  its detail is inconclusive_busbw");
	}
	/* inconclusive alone: exit 6 */
	fresh(2);
	opts.coll_min_busbw[NP_COLL_ALLREDUCE] = 10;
	row(NP_COLL_ALLREDUCE, 1 << 20, 9, NAN)->t_ci_lo = 0.5e-3;
	tap_is_int(verdict(), 6, "a row below whose interval reaches the floor: exit 6");
	tap_ok(said("inconclusive (more --budget, or a quieter node)"),
	       "  the sentence says what to do");
	/* the whole interval below, but one batch reached the floor: a node
	 * that delivered it once, or a busy host whose other work took the
	 * rest of the batches; inconclusive, never a fail */
	fresh(2);
	opts.coll_min_busbw[NP_COLL_ALLREDUCE] = 10;
	x = row(NP_COLL_ALLREDUCE, 1 << 20, 5, NAN); /* 5 GB/s, interval +-1% */
	x->t_min = 0.45e-3;                          /* its fastest batch: 11.1 GB/s */
	tap_is_int(verdict(), 6,
		   "a row whose interval is below the floor but whose fastest batch reached it: exit 6");
	tap_is_int(details("inconclusive_busbw"), 1, "  its detail is inconclusive_busbw");
	tap_ok(said("fastest batches reach it"), "  the sentence says a batch reached it");
	x->t_min = 0.6e-3; /* 8.3 GB/s: no batch reached 10 */
	tap_is_int(verdict(), 1, "  every batch below the floor: exit 1");
	tap_is_int(details("min_busbw"), 1, "  its detail is min_busbw");
	x->t_min = 0.45e-3,
	x->busbw = x->algbw = 15; /* the median above: met, whatever the batches */
	tap_is_int(verdict(), 0, "  the median above the floor: exit 0");
	/* an unsteady eff below, its steady time unknown: inconclusive */
	fresh(2);
	opts.coll_min_eff[NP_COLL_ALLREDUCE] = 0.6;
	x = row(NP_COLL_ALLREDUCE, 1 << 20, 10, 0.5);
	x->stop = NP_STOP_UNSTEADY, x->steady = 0, x->floor_rel = 0;
	tap_is_int(verdict(), 6, "an unsteady row's eff below --min-eff, no floor known: exit 6");
	tap_is_int(details("inconclusive_eff"), 1, "  its detail is inconclusive_eff");
	x->floor_rel = 0.7; /* eff at best 0.505 / 0.7 = 72% */
	tap_is_int(verdict(), 6,
		   "  with a floor that lets it reach 72%% against 60%%: still exit 6");
	x->floor_rel = 0.9; /* eff at best 0.505 / 0.9 = 56% */
	tap_is_int(verdict(), 1, "  with a floor that holds it to 56%% against 60%%: exit 1");
	tap_is_int(details("min_eff"), 1, "  its detail is min_eff");

	/* a threshold for a collective that did not run is no verdict of it */
	fresh(2);
	opts.coll_min_busbw[NP_COLL_ALLREDUCE] = 10;
	opts.coll_min_busbw[NP_COLL_ALLTOALL] = 10;
	opts.colls[NP_COLL_ALLTOALL] = true;
	row(NP_COLL_ALLREDUCE, 1 << 20, 12, NAN);
	tap_is_int(verdict(), 0,
		   "alltoall never ran (interrupted or skipped), allreduce met: exit 0");

	/* interrupted: exit 130 unless the rows already gave a verdict */
	fresh(2);
	row(NP_COLL_ALLREDUCE, 1 << 20, 12, NAN);
	rep.interrupted = true;
	tap_is_int(verdict(), 130, "an interrupted run with nothing failed: exit 130");
	tap_is_int(details("interrupted"), 1, "  one interrupted detail");
	opts.coll_min_busbw[NP_COLL_ALLREDUCE] = 20;
	tap_is_int(verdict(), 1, "an interrupted run whose rows failed: exit 1");

	/* nccl-tests' NCCL_TESTS_MIN_BW: the average busbw below 0.9 x it fails */
	fresh(2);
	opts.format = NP_FMT_NCCLTESTS;
	opts.nt_min_bw = 10;
	row(NP_COLL_ALLREDUCE, 1024, 8, NAN);
	row(NP_COLL_ALLREDUCE, 1 << 20, 10, NAN);
	tap_is_dbl(np_sweep_avg_busbw(&rep, &np_colls[NP_COLL_ALLREDUCE]), 9, 1e-12,
		   "the average busbw is over every row, judged or not");
	tap_is_int(verdict(), 0, "average 9 against 0.9 x 10: not below, exit 0");
	tap_is_str(np_sweep_avg_mark(&rep, &np_colls[NP_COLL_ALLREDUCE]), "OK", "  marked OK");
	rows[0].busbw = 7.9;
	tap_is_int(verdict(), 1, "average 8.95 against 0.9 x 10: exit 1");
	tap_ok(said("allreduce average busbw 8.95 GB/s is below 0.9 x NCCL_TESTS_MIN_BW 10 GB/s"),
	       "  the sentence gives the average and the bound");
	tap_is_str(np_sweep_avg_mark(&rep, &np_colls[NP_COLL_ALLREDUCE]), "FAILED",
		   "  marked FAILED");
	opts.format = NP_FMT_TABLE;
	tap_is_int(verdict(), 0, "NCCL_TESTS_MIN_BW outside --format nccl-tests: exit 0");
	tap_ok(np_sweep_avg_mark(&rep, &np_colls[NP_COLL_ALLREDUCE]) == NULL, "  no mark");
	/* the mark of --min-busbw: an inconclusive row, a failed one */
	fresh(2);
	opts.format = NP_FMT_NCCLTESTS;
	opts.coll_min_busbw[NP_COLL_ALLREDUCE] = 10;
	x = row(NP_COLL_ALLREDUCE, 1 << 20, 9, NAN);
	x->t_ci_lo = 0.5e-3;
	verdict();
	tap_is_str(np_sweep_avg_mark(&rep, &np_colls[NP_COLL_ALLREDUCE]), "INCONCLUSIVE",
		   "--min-busbw with an inconclusive row: marked INCONCLUSIVE");
	x->t_ci_lo = 0.99e-3;
	verdict();
	tap_is_str(np_sweep_avg_mark(&rep, &np_colls[NP_COLL_ALLREDUCE]), "FAILED",
		   "--min-busbw with a row below: marked FAILED");

	fresh(2);
}

int main(void)
{
	single_thresholds();
	mixed_and_inconclusive();
	return tap_done();
}
