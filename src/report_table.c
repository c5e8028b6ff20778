/* SPDX-License-Identifier: MIT */
/* The human table: a header of '#' lines, one row per result as it comes
 * (columns familiar to nccl-tests users), skip notes, and a summary. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "stats.h"
#include "version.h"

void np_report_table_header(FILE *f, const struct np_sweep_report *rep)
{
	const struct np_opts *o = rep->opts;
	const struct np_world *w = rep->world;
	char lo[32], hi[32], step[48];

	fprintf(f, "# nccl-probe %s: backend %s (%s)\n", PACKAGE_VERSION, rep->backend,
		rep->backend_why);
	fprintf(f, "# library: %s%s%s%s%s\n", rep->info.library,
		rep->info.runtime[0] ? "; " : "", rep->info.runtime,
		rep->info.transport[0] ? "; transport: " : "", rep->info.transport);
	fprintf(f, "# MPI: %s\n", w->mpi_version);
	fprintf(f, "# %d rank%s on %d node%s (%s%d per node)%s; %d host%s\n", w->size,
		w->size == 1 ? "" : "s", w->nnodes, w->nnodes == 1 ? "" : "s",
		w->ranks_per_node ? "" : "uneven, ", w->ranks_per_node ? w->ranks_per_node : w->local_size,
		w->virtual_nodes ? " [virtual nodes]" : "", w->real_nnodes,
		w->real_nnodes == 1 ? "" : "s");
	np_human_size(o->min_bytes, lo, sizeof(lo));
	np_human_size(o->max_bytes, hi, sizeof(hi));
	if (o->step_kind == NP_STEP_FACTOR)
		snprintf(step, sizeof(step), "x%g", o->step_factor);
	else {
		step[0] = '+';
		np_human_size(o->step_bytes, step + 1, sizeof(step) - 1);
	}
	fprintf(f, "# sizes %s to %s, %s; dtype %s, op %s, %s; ", lo, hi, step,
		np_dtype_str(o->dtype), np_redop_str(o->op), o->inplace ? "in place" : "out of place");
	if (o->iters)
		fprintf(f, "%d iters x %d samples", o->iters, o->samples);
	else
		fprintf(f, "iters auto (1%% of median or noise-bound; budget %g s per judged size, a tenth below)",
			o->budget);
	fprintf(f, "; warmup %d; check %s%s\n", o->warmup, o->check ? "on" : "off",
		o->graph ? "; CUDA graphs" : "");
	np_human_size(rep->judge_from, lo, sizeof(lo));
	fprintf(f, "# judged: rows from %s up%s\n", lo, o->judge_from ? " (--judge-from)" : " (the largest quarter of the sizes)");
	if (rep->bw_known) {
		const struct np_bw_facts *bw = &rep->bw;
		char g[48] = "unknown", n[48] = "unknown";
		if (bw->gpu_gbps > 0)
			snprintf(g, sizeof(g), "%.1f GB/s", bw->gpu_gbps);
		if (bw->node_gbps > 0)
			snprintf(n, sizeof(n), "%.1f GB/s", bw->node_gbps);
		fprintf(f, "# limits: B_gpu %s (%s, rank %d)", g, bw->gpu_src, rep->bw_gpu_rank);
		if (bw->proto_gbps > 0)
			fprintf(f, ", NCCL protocol ceiling %.1f GB/s", bw->proto_gbps);
		fprintf(f, "; B_node %s (%s)\n", n, bw->node_src[0] ? bw->node_src : "no NIC");
	}
	for (int i = 0; i < rep->nnotes; i++)
		fprintf(f, "# note: %s\n", rep->notes[i]);
	fprintf(f, "#\n# %5s  %-20s %8s %5s %4s %6s  %-14s %s\n", "rank", "host", "pid", "local",
		"node", "device", "bus id", "name");
	for (int r = 0; r < w->size && rep->ranks; r++) {
		const struct np_rank_info *ri = &rep->ranks[r];
		char dev[16];
		if (ri->device >= 0)
			snprintf(dev, sizeof(dev), "%d", ri->device);
		else
			strcpy(dev, "-");
		fprintf(f, "# %5d  %-20s %8d %5d %4d %6s  %-14s %s\n", ri->rank, ri->host, ri->pid,
			ri->local_rank, ri->node, dev, ri->bus_id[0] ? ri->bus_id : "-",
			ri->device_name);
	}
	fprintf(f, "#\n");
}

void np_report_table_columns(FILE *f)
{
	fputc('#', f);
	for (int i = 0; i < np_metrics_count; i++) {
		const struct np_metric *m = &np_metrics[i];
		if (!m->width)
			continue;
		if (m->type == NP_MT_STR)
			fprintf(f, " %-*s", i == 0 ? m->width - 1 : m->width, m->head);
		else
			fprintf(f, " %*s", m->width, m->head);
	}
	fputc('\n', f);
}

void np_report_table_row(FILE *f, const struct np_result *r)
{
	char buf[64];

	fputc(' ', f);
	for (int i = 0; i < np_metrics_count; i++) {
		const struct np_metric *m = &np_metrics[i];
		struct np_value v = { 0 };
		if (!m->width)
			continue;
		m->get(r, &v);
		np_metric_format(m, &v, true, buf, sizeof(buf));
		if (m->type == NP_MT_STR)
			fprintf(f, " %-*s", i == 0 ? m->width - 1 : m->width, buf);
		else
			fprintf(f, " %*s", m->width, buf);
	}
	fputc('\n', f);
	fflush(f);
}

void np_report_table_skip(FILE *f, const struct np_skip *s)
{
	char sz[32];

	if (s->size) {
		np_human_size(s->size, sz, sizeof(sz));
		fprintf(f, "# skipped %s %s: %s\n", s->coll->name, sz, s->reason);
	} else {
		fprintf(f, "# skipped %s: %s\n", s->coll->name, s->reason);
	}
	fflush(f);
}

/* Per-rank times summed up: the rank that was slowest in the most rows,
 * in how many, and its median excess over the median rank there; a
 * straggler is the same rank (or node) slowest across sizes. */
static void slowest_footer(FILE *f, const struct np_sweep_report *rep)
{
	const struct np_world *w = rep->world;
	int *cnt, best = -1, rows = 0, k = 0;
	double *ex;

	if (w->size < 2 || !rep->nrows)
		return;
	cnt = calloc((size_t)w->size, sizeof(*cnt));
	ex = calloc(rep->nrows, sizeof(*ex));
	if (!cnt || !ex)
		goto out_free;
	for (size_t i = 0; i < rep->nrows; i++) {
		int r = rep->rows[i].slow_rank;
		if (r < 0 || r >= w->size || !isfinite(rep->rows[i].slow_excess))
			continue;
		rows++;
		if (++cnt[r] > (best < 0 ? 0 : cnt[best]))
			best = r;
	}
	if (best < 0)
		goto out_free;
	for (size_t i = 0; i < rep->nrows; i++)
		if (rep->rows[i].slow_rank == best && isfinite(rep->rows[i].slow_excess))
			ex[k++] = rep->rows[i].slow_excess;
	{
		struct np_stats st;
		np_stats_compute(ex, k, &st);
		fprintf(f, "# slowest rank: %d (%s, node %d) in %d of %d rows, by %.1f%% over the median rank there (median; largest %.1f%%)\n",
			best, rep->ranks ? rep->ranks[best].host : "?",
			rep->ranks ? rep->ranks[best].node : -1, cnt[best], rows, st.median * 100,
			st.max * 100);
	}
	/* its GPU's clocks beside it: a straggler's GPU held down by heat or
	 * power shows here, against the other ranks' */
	if (rep->clocks && rep->ranks && rep->ranks[best].bus_id[0]) {
		char ev[512];
		np_gpu_clocks_str(&rep->clocks[best], np_gpu_clocks_median_sm(rep->clocks, w->size, best), ev,
				  sizeof(ev));
		fprintf(f, "#   its GPU %s: %s\n", rep->ranks[best].bus_id, ev);
	}
out_free:
	free(cnt);
	free(ex);
}

void np_report_table_footer(FILE *f, const struct np_sweep_report *rep)
{
	struct np_summary sum[NP_COLL_COUNT];
	int n = np_report_summary(rep, sum, NP_COLL_COUNT);
	char a[32], b[32], eff[32];

	fprintf(f, "#\n# summary: busbw in GB/s (GB = 1e9 bytes)\n");
	fprintf(f, "#   %-13s %10s %12s  %10s %12s %8s\n", "coll", "peak", "at size", "largest",
		"at size", "eff");
	for (int i = 0; i < n; i++) {
		np_human_size(sum[i].peak_size, a, sizeof(a));
		np_human_size(sum[i].last_size, b, sizeof(b));
		if (isfinite(sum[i].last_eff))
			snprintf(eff, sizeof(eff), "%.*f%%", sum[i].last_eff * 100 < 10 ? 1 : 0,
				 sum[i].last_eff * 100);
		else
			strcpy(eff, "-");
		fprintf(f, "#   %-13s %10.2f %12s  %10.2f %12s %8s\n", sum[i].coll->name,
			sum[i].peak_busbw, a, sum[i].last_busbw, b, eff);
	}
	for (size_t i = 0; i < rep->nrows; i++)
		if (rep->rows[i].eff > 1) {
			fprintf(f, "# eff above 100%%: NVLS, SHARP or tree algorithms can beat the flat link model; the figure is not clipped\n");
			break;
		}
	{
		int noise = 0, budget = 0;
		for (size_t i = 0; i < rep->nrows; i++) {
			noise += rep->rows[i].stop == NP_STOP_NOISE;
			budget += rep->rows[i].stop == NP_STOP_BUDGET;
		}
		if (noise || budget)
			fprintf(f, "# not converged to 1%%: %d row%s noise-bound, %d out of budget; their interval is in ci%% (see SAMPLING in the man page)\n",
				noise, noise == 1 ? "" : "s", budget);
	}
	slowest_footer(f, rep);
	if (rep->interrupted)
		fprintf(f, "# interrupted: the rows above are complete, the rest did not run\n");
	fprintf(f, "# wall time %.1f s\n", rep->wall_seconds);
	if (rep->exit_code == 0)
		fprintf(f, "# verdict: ok\n");
	for (int i = 0; i < rep->nverdict; i++)
		fprintf(f, "# verdict: %s\n", rep->verdict[i]);
}
