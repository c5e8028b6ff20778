/* SPDX-License-Identifier: MIT */
/* The metric table (metrics.h), the one-decimal rule and the formatting
 * of a value in a column of a text format. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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

static void g_samples(const struct np_result *r, struct np_value *v)
{
	v->u = (uint64_t)r->samples;
}
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

/* Columns of the default table (97 columns: nccl-tests' in nccl-tests'
 * order, busbw the 8th field of a row as there, then eff% and the verdict)
 * and of --format nccl-tests (nccl-tests 2.19's, widths and -J keys). */
#define TABLE(h, u, w, f, p, s, n) .table = { h, u, w, f, p, s, n }
#define NCCL(h, u, w, f, s, key, form) .nccl = { { h, u, w, f, 0, s, NULL }, key, form }
#define OM(n, s, o, h) .om = { n, s, o, h }
/* a row's own fields, by name: a row without some format's column leaves
 * it zero (no missing-initializer warning for designated fields) */
#define ROW(n, hd, u, t, w, p, sc, g, hp)                                                          \
	.name = n, .head = hd, .unit = u, .type = t, .width = w, .prec = p, .scale = sc, .get = g, \
	.help = hp

const struct np_metric np_metrics[] = {
	[NP_M_COLL] = { ROW("coll", "coll", "", NP_MT_STR, 13, 0, 1, g_coll, "collective") },
	[NP_M_SIZE] = { ROW("size", "size(B)", "B", NP_MT_UINT, 12, 0, 1, g_size,
			    "bytes of one rank's larger buffer, max(send, recv)"),
			TABLE("size", "(B)", 12, NP_CF_VALUE, 0, 0, NULL),
			NCCL("size", "(B)", 12, NP_CF_VALUE, 0, "size", false) },
	[NP_M_COUNT] = { ROW("count", "count", "elements", NP_MT_UINT, 12, 0, 1, g_count,
			     "elements per rank passed to the library (per peer for alltoall)"),
			 TABLE("count", "(elements)", 12, NP_CF_VALUE, 0, 0, NULL),
			 NCCL("count", "(elements)", 12, NP_CF_VALUE, 0, "count", false) },
	[NP_M_TYPE] = { ROW("type", "type", "", NP_MT_STR, 8, 0, 1, g_type, "data type"),
			TABLE("type", "", 8, NP_CF_VALUE, 0, 0, NULL),
			NCCL("type", "", 8, NP_CF_NCCL_TYPE, 0, "type", false) },
	[NP_M_REDOP] = { ROW("redop", "redop", "", NP_MT_STR, 6, 0, 1, g_redop,
			     "reduction operation; null (table: none) for collectives without one"),
			 TABLE("redop", "", 6, NP_CF_VALUE, 0, 0, NULL),
			 NCCL("redop", "", 6, NP_CF_NCCL_OP, 0, "redop", false) },
	[NP_M_ROOT] = { ROW("root", "root", "", NP_MT_INT, 5, 0, 1, g_root,
			    "root rank; null (table: -1) for collectives without one"),
			TABLE("root", "", 6, NP_CF_VALUE, 0, 0, NULL),
			NCCL("root", "", 6, NP_CF_NCCL_ROOT, 0, "root", false) },
	[NP_M_INPLACE] = { ROW("inplace", "", "", NP_MT_BOOL, 0, 0, 1, g_inplace, "in-place run") },
	[NP_M_TIME] = { ROW("time", "time(us)", "s", NP_MT_NUM, 10, 2, 1e6, g_time,
			    "median over samples of the slowest rank's time per iteration"),
			TABLE("time", "(us)", 9, NP_CF_NCCL_TIME, 0, 1e6, "-"),
			NCCL("time", "(us)", 7, NP_CF_NCCL_FLOAT, 1e6, "time", true),
			OM("time_seconds", 1, 3,
			   "median over samples of the slowest rank's time per iteration") },
	[NP_M_TIME_MIN] = { ROW("time_min", "min(us)", "s", NP_MT_NUM, 10, 2, 1e6, g_tmin,
				"fastest sample"),
			    OM("time_min_seconds", 1, 4, "fastest sample's time per iteration") },
	[NP_M_TIME_MAX] = { ROW("time_max", "max(us)", "s", NP_MT_NUM, 10, 2, 1e6, g_tmax,
				"slowest sample"),
			    OM("time_max_seconds", 1, 5, "slowest sample's time per iteration") },
	[NP_M_TIME_CI] = { ROW("time_ci", "ci%", "", NP_MT_NUM, 5, 1, 100, g_ci,
			       "half-width of the 95% confidence interval of the median, relative to it (table: percent)") },
	[NP_M_ALGBW] = { ROW("algbw", "algbw(GB/s)", "GB/s", NP_MT_NUM, 11, 2, 1, g_algbw,
			     "size / time, GB = 1e9 bytes"),
			 TABLE("algbw", "(GB/s)", 8, NP_CF_FIXED, 2, 1, "-"),
			 NCCL("algbw", "(GB/s)", 6, NP_CF_NCCL_FLOAT, 1, "alg_bw", true),
			 OM("algbw_bytes_per_second", 1e9, 2, "algorithm bandwidth: size / time") },
	[NP_M_BUSBW] = { ROW("busbw", "busbw(GB/s)", "GB/s", NP_MT_NUM, 11, 2, 1, g_busbw,
			     "algbw times the collective's bus factor (see BUS BANDWIDTH)"),
			 TABLE("busbw", "(GB/s)", 8, NP_CF_FIXED, 2, 1, "-"),
			 NCCL("busbw", "(GB/s)", 6, NP_CF_NCCL_FLOAT, 1, "bus_bw", true),
			 OM("busbw_bytes_per_second", 1e9, 1,
			    "bus bandwidth: algbw times the collective's bus factor (nccl-tests' busbw)") },
	[NP_M_WRONG] = { ROW("wrong", "#wrong", "elements", NP_MT_UINT, 7, 0, 1, g_wrong,
			     "wrong elements summed over ranks; null (table: -) without --check"),
			 TABLE("#wrong", "", 7, NP_CF_VALUE, 0, 0, "N/A"),
			 NCCL("#wrong", "", 6, NP_CF_NCCL_WRONG, 0, "nwrong", true),
			 OM("wrong_elements", 1, 8,
			    "wrong elements summed over ranks; absent without --check") },
	[NP_M_LIMIT] = { ROW("limit", "limit(GB/s)", "GB/s", NP_MT_NUM, 11, 1, 1, g_limit,
			     "busbw that this machine's links allow (see LIMITS); null when unknown"),
			 OM("limit_bytes_per_second", 1e9, 6,
			    "busbw that this machine's links allow; absent when unknown") },
	[NP_M_EFF] = { ROW("eff", "eff%", "", NP_MT_NUM, 6, 0, 100, g_eff,
			   "busbw / limit as a fraction (table: percent, a decimal below 10% but for 0); null when the limit is unknown"),
		       TABLE("eff%", "", 5, NP_CF_FIXED, 0, 100, "-"),
		       OM("eff_ratio", 1, 7, "busbw / limit; absent when the limit is unknown") },
	[NP_M_SAMPLES] = { ROW("samples", "samples", "", NP_MT_UINT, 7, 0, 1, g_samples,
			       "timed samples") },
	[NP_M_ITERS] = { ROW("iters", "iters", "", NP_MT_UINT, 7, 0, 1, g_iters,
			     "iterations per sample: the batch length (see SAMPLING)") },
	[NP_M_STEADY] = { ROW("steady", "", "", NP_MT_BOOL, 0, 0, 1, g_steady,
			      "iters is the steady state: a batch twice as long no longer lowered the time per collective; "
			      "false when the budget ended the search first; null with a fixed --iters (see SAMPLING)") },
	[NP_M_CONVERGED] = { ROW("converged", "", "", NP_MT_BOOL, 0, 0, 1, g_conv,
				 "the median met the 1% confidence target (--iters auto) before the budget ran out") },
	[NP_M_SLOW_RANK] = { ROW("slow_rank", "", "", NP_MT_INT, 0, 0, 1, g_slow_rank,
				 "the rank whose own median time per iteration was the longest (see PER-RANK TIMES)") },
	[NP_M_SLOW_TIME] = { ROW("slow_time", "", "s", NP_MT_NUM, 0, 0, 1, g_slow_time,
				 "that rank's own median time per iteration") },
	[NP_M_SLOW_EXCESS] = { ROW("slow_excess", "", "", NP_MT_NUM, 0, 0, 1, g_slow_excess,
				   "how much longer than the median over ranks, a fraction; null on one rank") },
	[NP_M_JUDGED] = { ROW("judged", "", "", NP_MT_BOOL, 0, 0, 1, g_judged,
			      "the row's size is at or above --judge-from: the verdicts judge it") },
	[NP_M_VERDICT] = { ROW("verdict", "verdict", "", NP_MT_STR, 7, 0, 1, g_verdict,
			       "pass or fail against --min-busbw and --min-eff; null (table: -) when not judged or no threshold is set"),
			   TABLE("pass", "", 4, NP_CF_MARK, 0, 0, "-"),
			   OM("row_verdict_pass", 0, 9,
			      "1 when the row met --min-busbw and --min-eff, 0 when it failed; absent when not judged") },
	[NP_M_STOP] = { ROW("stop", "stop", "", NP_MT_STR, 11, 0, 1, g_stop,
			    "why sampling stopped: converged, noise-bound, budget, fixed, or unsteady when the budget "
			    "ended before the steady state's batch length (see SAMPLING)") },
};
const int np_metrics_count = sizeof(np_metrics) / sizeof(np_metrics[0]);
_Static_assert(sizeof(np_metrics) / sizeof(np_metrics[0]) == NP_M_NUM_METRICS,
	       "np_metrics[] has one row per enum np_metric_id");

const struct np_metric *np_metric_find(const char *name)
{
	for (int i = 0; i < np_metrics_count; i++)
		if (np_metrics[i].name && !strcmp(np_metrics[i].name, name))
			return &np_metrics[i];
	return NULL;
}

int np_fig_decimals(double x, int prec) { return prec == 0 && x != 0 && fabs(x) < 10 ? 1 : prec; }

/* nccl-tests' type names: fp8 types are f8e4m3 and f8e5m2 there */
static const char *nccl_type(const char *s)
{
	return !strcmp(s, "fp8e4m3") ? "f8e4m3" : !strcmp(s, "fp8e5m2") ? "f8e5m2" : s;
}

/* nccl-tests' getFloatStr: the most decimals (2, 1, 0) that fit width */
static void nccl_float(double v, int width, char *buf, size_t len)
{
	if (snprintf(buf, len, "%*.2f", width, v) <= width)
		return;
	if (snprintf(buf, len, "%*.1f", width, v) <= width)
		return;
	if (snprintf(buf, len, "%*.0f", width, v) <= width)
		return;
	snprintf(buf, len, width >= 7 ? "%*.1e" : "%*.0e", width, v);
}

/* The value as its type writes it (null: the getter's stand-in) */
static void plain(const struct np_metric *m, const struct np_value *v, char *buf, size_t len)
{
	switch (m->type) {
	case NP_MT_STR: snprintf(buf, len, "%s", v->s); break;
	case NP_MT_UINT: snprintf(buf, len, "%" PRIu64, v->u); break;
	case NP_MT_INT: snprintf(buf, len, "%" PRId64, v->i); break;
	case NP_MT_BOOL: snprintf(buf, len, "%s", v->b ? "true" : "false"); break;
	case NP_MT_NUM: snprintf(buf, len, "%.10g", v->d); break;
	}
}

void np_col_format(const struct np_metric *m, const struct np_col *c, const struct np_result *r,
		   char *buf, size_t len)
{
	struct np_value v = { 0 };
	char t[64];
	double x;

	m->get(r, &v);
	x = v.d * (c->scale ? c->scale : 1);
	switch (c->fmt) {
	case NP_CF_VALUE:
		if (v.null && c->null)
			snprintf(t, sizeof(t), "%s", c->null);
		else
			plain(m, &v, t, sizeof(t));
		break;
	case NP_CF_FIXED:
		if (v.null || !isfinite(x))
			snprintf(t, sizeof(t), "%s", c->null);
		else
			snprintf(t, sizeof(t), "%.*f", np_fig_decimals(x, c->prec), x);
		break;
	case NP_CF_NCCL_TIME:
		if (v.null || !isfinite(x))
			snprintf(t, sizeof(t), "%s", c->null);
		else
			snprintf(t, sizeof(t), "%.*f", x >= 10000 ? 0 : x >= 100 ? 1 : 2, x);
		break;
	case NP_CF_NCCL_FLOAT: nccl_float(x, c->width, buf, len); return;
	case NP_CF_NCCL_TYPE: snprintf(t, sizeof(t), "%s", nccl_type(v.s)); break;
	case NP_CF_NCCL_OP:
		snprintf(t, sizeof(t), "%s",
			 (r->coll->flags & NP_COLL_F_REDUCE) || !strcmp(r->coll->name, "sendrecv")
				 ? np_redop_str(r->op)
				 : "none");
		break;
	case NP_CF_NCCL_ROOT:
		/* nccl-tests' "%6i", in its table and as a string in -J */
		snprintf(buf, len, "%6i", (int)v.i);
		return;
	case NP_CF_NCCL_WRONG:
		if (v.null) {
			snprintf(buf, len, "%*s", c->width > 0 ? c->width - 1 : 0, "N/A");
			return;
		}
		snprintf(t, sizeof(t), "%g", (double)v.u);
		break;
	case NP_CF_MARK:
		snprintf(t, sizeof(t), "%s",
			 v.null                 ? c->null
			 : !strcmp(v.s, "pass") ? "yes"
						: "NO");
		break;
	}
	snprintf(buf, len, "%*s", c->width, t);
}
