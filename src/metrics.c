/* SPDX-License-Identifier: MIT */
/* The metric table. */
#include "config.h"

#include <math.h>

#include "metrics.h"

static void g_coll(const struct np_result *r, struct np_value *v) { v->s = r->coll->name; }
static void g_size(const struct np_result *r, struct np_value *v) { v->u = r->lay.size; }
static void g_count(const struct np_result *r, struct np_value *v) { v->u = r->lay.count; }
static void g_type(const struct np_result *r, struct np_value *v) { v->s = np_dtype_str(r->dtype); }

static void g_redop(const struct np_result *r, struct np_value *v)
{
	v->null = !(r->coll->flags & NP_COLL_F_REDUCE);
	v->s = v->null ? "none" : np_redop_str(r->op);
}

static void g_root(const struct np_result *r, struct np_value *v)
{
	v->null = r->root < 0;
	v->i = r->root;
}

static void g_inplace(const struct np_result *r, struct np_value *v) { v->b = r->inplace; }
static void g_time(const struct np_result *r, struct np_value *v) { v->d = r->t_med; }
static void g_tmin(const struct np_result *r, struct np_value *v) { v->d = r->t_min; }
static void g_tmax(const struct np_result *r, struct np_value *v) { v->d = r->t_max; }
static void g_ci(const struct np_result *r, struct np_value *v)
{
	v->null = !isfinite(r->ci_half_rel);
	v->d = r->ci_half_rel;
}
static void g_algbw(const struct np_result *r, struct np_value *v) { v->d = r->algbw; }
static void g_busbw(const struct np_result *r, struct np_value *v) { v->d = r->busbw; }

static void g_wrong(const struct np_result *r, struct np_value *v)
{
	v->null = !r->checked;
	v->u = r->wrong;
}

static void g_limit(const struct np_result *r, struct np_value *v)
{
	v->null = !(r->limit > 0);
	v->d = r->limit;
}

static void g_eff(const struct np_result *r, struct np_value *v)
{
	v->null = !isfinite(r->eff);
	v->d = r->eff;
}

static void g_samples(const struct np_result *r, struct np_value *v) { v->u = (uint64_t)r->samples; }
static void g_iters(const struct np_result *r, struct np_value *v) { v->u = (uint64_t)r->iters; }
static void g_conv(const struct np_result *r, struct np_value *v) { v->b = r->converged; }
static void g_steady(const struct np_result *r, struct np_value *v)
{
	v->null = r->steady < 0;
	v->b = r->steady > 0;
}
static void g_verdict(const struct np_result *r, struct np_value *v)
{
	v->null = r->pass < 0;
	v->s = r->pass > 0 ? "pass" : "fail";
}
static void g_judged(const struct np_result *r, struct np_value *v) { v->b = r->judged; }
static void g_slow_rank(const struct np_result *r, struct np_value *v)
{
	v->null = r->slow_rank < 0;
	v->i = r->slow_rank;
}
static void g_slow_time(const struct np_result *r, struct np_value *v)
{
	v->null = !isfinite(r->slow_time);
	v->d = r->slow_time;
}
static void g_slow_excess(const struct np_result *r, struct np_value *v)
{
	v->null = !isfinite(r->slow_excess);
	v->d = r->slow_excess;
}
static void g_stop(const struct np_result *r, struct np_value *v) { v->s = np_stop_str(r->stop); }

const struct np_metric np_metrics[] = {
	{ "coll", "coll", "", NP_MT_STR, 13, 0, 1, g_coll, "collective" },
	{ "size", "size(B)", "B", NP_MT_UINT, 12, 0, 1, g_size,
	  "bytes of one rank's larger buffer, max(send, recv)" },
	{ "count", "count", "elements", NP_MT_UINT, 12, 0, 1, g_count,
	  "elements per rank passed to the library (per peer for alltoall)" },
	{ "type", "type", "", NP_MT_STR, 8, 0, 1, g_type, "data type" },
	{ "redop", "redop", "", NP_MT_STR, 6, 0, 1, g_redop,
	  "reduction operation; null (table: none) for collectives without one" },
	{ "root", "root", "", NP_MT_INT, 5, 0, 1, g_root,
	  "root rank; null (table: -1) for collectives without one" },
	{ "inplace", "", "", NP_MT_BOOL, 0, 0, 1, g_inplace, "in-place run" },
	{ "time", "time(us)", "s", NP_MT_NUM, 10, 2, 1e6, g_time,
	  "median over samples of the slowest rank's time per iteration" },
	{ "time_min", "min(us)", "s", NP_MT_NUM, 10, 2, 1e6, g_tmin, "fastest sample" },
	{ "time_max", "max(us)", "s", NP_MT_NUM, 10, 2, 1e6, g_tmax, "slowest sample" },
	{ "time_ci", "ci%", "", NP_MT_NUM, 5, 1, 100, g_ci,
	  "half-width of the 95% confidence interval of the median, relative to it (table: percent)" },
	{ "algbw", "algbw(GB/s)", "GB/s", NP_MT_NUM, 11, 2, 1, g_algbw, "size / time, GB = 1e9 bytes" },
	{ "busbw", "busbw(GB/s)", "GB/s", NP_MT_NUM, 11, 2, 1, g_busbw,
	  "algbw times the collective's bus factor (see BUS BANDWIDTH)" },
	{ "wrong", "#wrong", "elements", NP_MT_UINT, 7, 0, 1, g_wrong,
	  "wrong elements summed over ranks; null (table: -) without --check" },
	{ "limit", "limit(GB/s)", "GB/s", NP_MT_NUM, 11, 1, 1, g_limit,
	  "busbw that this machine's links allow (see LIMITS); null when unknown" },
	{ "eff", "eff%", "", NP_MT_NUM, 6, 0, 100, g_eff,
	  "busbw / limit as a fraction (table: percent, a decimal below 10%); null when the limit is unknown" },
	{ "samples", "samples", "", NP_MT_UINT, 7, 0, 1, g_samples, "timed samples" },
	{ "iters", "iters", "", NP_MT_UINT, 7, 0, 1, g_iters,
	  "iterations per sample: the batch length (see SAMPLING)" },
	{ "steady", "", "", NP_MT_BOOL, 0, 0, 1, g_steady,
	  "iters is the steady state: a batch twice as long no longer lowered the time per collective; "
	  "false when the budget ended the search first; null with a fixed --iters (see SAMPLING)" },
	{ "converged", "", "", NP_MT_BOOL, 0, 0, 1, g_conv,
	  "the median met the 1% confidence target (--iters auto) before the budget ran out" },
	{ "slow_rank", "", "", NP_MT_INT, 0, 0, 1, g_slow_rank,
	  "the rank whose own median time per iteration was the longest (see PER-RANK TIMES)" },
	{ "slow_time", "", "s", NP_MT_NUM, 0, 0, 1, g_slow_time, "that rank's own median time per iteration" },
	{ "slow_excess", "", "", NP_MT_NUM, 0, 0, 1, g_slow_excess,
	  "how much longer than the median over ranks, a fraction; null on one rank" },
	{ "judged", "", "", NP_MT_BOOL, 0, 0, 1, g_judged,
	  "the row's size is at or above --judge-from: the verdicts judge it" },
	{ "verdict", "verdict", "", NP_MT_STR, 7, 0, 1, g_verdict,
	  "pass or fail against --min-busbw and --min-eff; null (table: -) when not judged or no threshold is set" },
	{ "stop", "stop", "", NP_MT_STR, 11, 0, 1, g_stop,
	  "why sampling stopped: converged, noise-bound, budget, fixed, or unsteady when the budget "
	  "ended before the steady state's batch length (see SAMPLING)" },
};
const int np_metrics_count = sizeof(np_metrics) / sizeof(np_metrics[0]);
