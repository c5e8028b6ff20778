/* SPDX-License-Identifier: MIT */
/* The human table: a header of '#' lines, one row per result as it comes
 * (columns familiar to nccl-tests users), skip notes, and a summary. */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../common/printable.h"
#include "msg.h"
#include "report.h"
#include "stats.h"
#include "version.h"

/* text as '#' lines of at most 100 columns, broken at blanks; the
 * lines after the first indented under it */
static void wrapped(FILE *f, const char *lead, const char *text)
{
	np_wrap(f, lead, "#    ", text, 100);
}

/* The sizes that run, as they run: all of them up to 8, else the first
 * three and the last two */
static void sizes_line(FILE *f, const struct np_opts *o)
{
	size_t n = np_opts_sizes(o, NULL, 0);
	uint64_t *v = n ? calloc(n, sizeof(*v)) : NULL;
	char b[32], step[48];

	if (o->step_kind == NP_STEP_FACTOR)
		snprintf(step, sizeof(step), "x%g", o->step_factor);
	else {
		step[0] = '+';
		np_human_size(o->step_bytes, step + 1, sizeof(step) - 1);
	}
	if (!v) {
		fprintf(f, "# sizes: none\n");
		return;
	}
	np_opts_sizes(o, v, n);
	fprintf(f, "# sizes:");
	for (size_t i = 0; i < n; i++) {
		if (n > 8 && i == 3) {
			fprintf(f, " ...,");
			i = n - 3;
			continue;
		}
		np_human_size(v[i], b, sizeof(b));
		fprintf(f, " %s%s", b, i + 1 < n ? "," : "");
	}
	fprintf(f, " (%zu size%s, %s%s)\n", n, n == 1 ? "" : "s", step,
		n > 1 && v[n - 1] != v[n - 2] &&
				(o->step_kind == NP_STEP_FACTOR
					 ? (double)v[n - 2] * o->step_factor != (double)v[n - 1]
					 : v[n - 2] + o->step_bytes != v[n - 1])
			? ", the last step shorter"
			: "");
	free(v);
}

void np_report_table_header(FILE *f, const struct np_sweep_report *rep)
{
	const struct np_opts *o = rep->opts;
	const struct np_world *w = rep->world;
	char lo[32];

	/* strings of libraries and other ranks are printed escaped */
	fputs("# nccl-probe " PACKAGE_VERSION ": backend ", f);
	np_fputs_printable(f, rep->backend);
	fputs(" (", f);
	np_fputs_printable(f, rep->backend_why);
	fputs(")\n# library: ", f);
	np_fputs_printable(f, rep->info.library);
	if (rep->info.runtime[0]) {
		fputs("; ", f);
		np_fputs_printable(f, rep->info.runtime);
	}
	if (rep->info.transport[0]) {
		fputs("; transport: ", f);
		np_fputs_printable(f, rep->info.transport);
	}
	fputs("\n# MPI: ", f);
	np_fputs_printable(f, w->mpi_version);
	fputs("\n", f);
	fprintf(f, "# %d rank%s on %d node%s (%s%d per node)%s; %d host%s\n", w->size,
		w->size == 1 ? "" : "s", w->nnodes, w->nnodes == 1 ? "" : "s",
		w->ranks_per_node ? "" : "uneven, ",
		w->ranks_per_node ? w->ranks_per_node : w->local_size,
		w->virtual_nodes ? " [virtual nodes]" : "", w->real_nnodes,
		w->real_nnodes == 1 ? "" : "s");
	sizes_line(f, o);
	fprintf(f, "# data: %s, %s, %s; warmup %d; check %s%s\n", np_dtype_str(o->dtype),
		np_redop_str(o->op), o->inplace ? "in place" : "out of place", o->warmup,
		o->check ? "on" : "off", o->graph ? "; CUDA graphs" : "");
	if (o->iters)
		fprintf(f, "# iters: %d x %d samples\n", o->iters, o->samples);
	else
		fprintf(f,
			"# iters: auto, to 1%% of the median or noise-bound; %g s per judged size, a tenth below;\n"
			"#   batches of the steady state: lengthened from 2 ms while the time per collective fell\n",
			o->budget);
	np_human_size(rep->judge_from, lo, sizeof(lo));
	fprintf(f, "# judged: rows from %s up%s\n", lo,
		o->judge_from ? " (--judge-from)" : " (the largest quarter of the sizes)");
	if (rep->bw_known) {
		const struct np_bw_facts *bw = &rep->bw;
		char g[48] = "unknown", n[48] = "unknown";
		if (bw->gpu_gbps > 0)
			snprintf(g, sizeof(g), "%.1f GB/s", bw->gpu_gbps);
		if (bw->node_gbps > 0)
			snprintf(n, sizeof(n), "%.1f GB/s", bw->node_gbps);
		char line[512], proto[64] = "";
		if (bw->proto_gbps > 0)
			snprintf(proto, sizeof(proto), ", NCCL protocol ceiling %.1f GB/s",
				 bw->proto_gbps);
		snprintf(line, sizeof(line), "B_gpu %s (%s, rank %d)%s; B_node %s (%s)", g,
			 bw->gpu_src, rep->bw_gpu_rank, proto, n,
			 bw->node_src[0] ? bw->node_src : "no NIC");
		wrapped(f, "# limits: ", line);
	}
	for (int i = 0; i < rep->notes.n; i++)
		wrapped(f, "# note: ", rep->notes.v[i]);
	fprintf(f, "#\n# %5s  %-20s %8s %5s %4s %6s  %-14s %s\n", "rank", "host", "pid", "local",
		"node", "device", "bus id", "name");
	for (int r = 0; r < w->size && rep->ranks; r++) {
		const struct np_rank_info *ri = &rep->ranks[r];
		char dev[16], host[4 * sizeof(ri->host)], bus[4 * sizeof(ri->bus_id)],
			name[4 * sizeof(ri->device_name)];
		if (ri->device >= 0)
			snprintf(dev, sizeof(dev), "%d", ri->device);
		else
			strcpy(dev, "-");
		fprintf(f, "# %5d  %-20s %8d %5d %4d %6s  %-14s %s\n", ri->rank,
			np_printable(host, sizeof(host), ri->host), ri->pid, ri->local_rank,
			ri->node, dev,
			ri->bus_id[0] ? np_printable(bus, sizeof(bus), ri->bus_id) : "-",
			np_printable(name, sizeof(name), ri->device_name));
	}
	fprintf(f, "#\n");
}

/* The wide table (--wide): every metric with a width, the collective in
 * the first column, one heading line for the whole run. */
static void wide_columns(FILE *f)
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

static void wide_row(FILE *f, const struct np_result *r)
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
}

/* The default table: the metric table's columns (metrics.h: .table) in
 * its order, the collective in a heading per collective, as each
 * nccl-tests binary prints one. */

/* a heading line of the columns' heads (or their units), without
 * trailing blanks */
static void narrow_heading_line(FILE *f, bool units)
{
	char line[256];
	size_t n = 0;

	line[n++] = '#';
	for (int i = 0; i < np_metrics_count; i++) {
		const struct np_col *c = &np_metrics[i].table;
		if (!c->head)
			continue;
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%*s", n > 1 ? " " : "",
				      c->width, units ? (c->unit ? c->unit : "") : c->head);
		if (n >= sizeof(line))
			n = sizeof(line) - 1;
	}
	while (n > 1 && line[n - 1] == ' ')
		n--;
	line[n] = '\0';
	fprintf(f, "%s\n", line);
}

static void narrow_heading(FILE *f, bool first, const struct np_result *r)
{
	bool has_op = r->coll->flags & NP_COLL_F_REDUCE;

	fprintf(f, "%s# %s, %s%s%s, %s\n", first ? "" : "#\n", r->coll->name,
		np_dtype_str(r->dtype), has_op ? ", " : "", has_op ? np_redop_str(r->op) : "",
		r->inplace ? "in place" : "out of place");
	narrow_heading_line(f, false);
	narrow_heading_line(f, true);
}

static void narrow_row(FILE *f, const struct np_result *r)
{
	char buf[64];
	bool first = true;

	fputc(' ', f);
	for (int i = 0; i < np_metrics_count; i++) {
		const struct np_metric *m = &np_metrics[i];
		if (!m->table.head)
			continue;
		np_col_format(m, &m->table, r, buf, sizeof(buf));
		fprintf(f, "%s%s", first ? "" : " ", buf);
		first = false;
	}
	fputc('\n', f);
}

void np_report_table_columns(FILE *f, struct np_table *t)
{
	t->coll = NULL;
	if (t->wide)
		wide_columns(f);
}

void np_report_table_row(FILE *f, struct np_table *t, const struct np_result *r)
{
	if (t->wide) {
		wide_row(f, r);
	} else {
		if (t->coll != r->coll || t->inplace != r->inplace)
			narrow_heading(f, !t->coll, r);
		narrow_row(f, r);
	}
	t->coll = r->coll;
	t->inplace = r->inplace;
	fflush(f);
}

void np_report_table_skip(FILE *f, const struct np_skip *s)
{
	char sz[32];

	if (s->size) {
		char line[320];
		np_human_size(s->size, sz, sizeof(sz));
		snprintf(line, sizeof(line), "%s %s: %s", s->coll->name, sz, s->reason);
		wrapped(f, "# skipped ", line);
	} else {
		char line[320];
		snprintf(line, sizeof(line), "%s: %s", s->coll->name, s->reason);
		wrapped(f, "# skipped ", line);
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
		char host[4 * sizeof(rep->ranks[0].host)];
		np_stats_compute(ex, k, &st);
		fprintf(f,
			"# slowest rank: %d (%s, node %d) in %d of %d rows, %.1f%% over the median rank (largest %.1f%%)\n",
			best,
			rep->ranks ? np_printable(host, sizeof(host), rep->ranks[best].host) : "?",
			rep->ranks ? rep->ranks[best].node : -1, cnt[best], rows, st.median * 100,
			st.max * 100);
	}
	/* its GPU's clocks beside it: a straggler's GPU held down by heat or
	 * power shows here, against the other ranks' */
	if (rep->clocks && rep->ranks && rep->ranks[best].bus_id[0]) {
		char ev[512];
		np_gpu_clocks_str(&rep->clocks[best],
				  np_gpu_clocks_median_sm(rep->clocks, w->size, best), ev,
				  sizeof(ev));
		char bus[4 * sizeof(rep->ranks[0].bus_id)];
		fprintf(f, "#   its GPU %s: %s\n",
			np_printable(bus, sizeof(bus), rep->ranks[best].bus_id), ev);
	}
out_free:
	free(cnt);
	free(ex);
}

/* The answer per collective: "allreduce: 371.20 GB/s at 8 GiB, 82% of
 * 450.0 GB/s (GPU links: 18 NVLink x 25.0 GB/s (NVML)); peak 380.10 at 2 GiB" */
static void summary_line(FILE *f, const struct np_sweep_report *rep, const struct np_summary *sm)
{
	char a[32], b[32];

	np_human_size(sm->last_size, b, sizeof(b));
	/* on one rank nothing crosses a link: busbw is 0 by its definition,
	 * and no peak or limit can be read from it */
	if (rep->world->size == 1) {
		fprintf(f, "#   %s: algbw %.2f GB/s at %s\n", sm->coll->name, sm->last_algbw, b);
		return;
	}
	fprintf(f, "#   %s: %.2f GB/s at %s", sm->coll->name, sm->last_busbw, b);
	if (sm->last_limit > 0 && isfinite(sm->last_eff)) {
		bool gpu = rep->bw_known &&
			   fabs(sm->last_limit - rep->bw.gpu_gbps) <= 1e-9 * sm->last_limit;
		fprintf(f, ", %.*f%% of %.1f GB/s (%s: %s)", np_fig_decimals(sm->last_eff * 100, 0),
			sm->last_eff * 100, sm->last_limit, gpu ? "GPU links" : "network",
			gpu ? rep->bw.gpu_src : rep->bw.node_src);
	} else {
		fprintf(f, ", limit unknown (see limits above)");
	}
	/* a peak worth naming: 1% or more above the largest size's, and
	 * above it as both are printed (1% of 0.5 GB/s is less than 0.01) */
	if (sm->peak_size != sm->last_size && sm->peak_busbw >= sm->last_busbw * 1.01) {
		char pk[32], la[32];
		snprintf(pk, sizeof(pk), "%.2f", sm->peak_busbw);
		snprintf(la, sizeof(la), "%.2f", sm->last_busbw);
		np_human_size(sm->peak_size, a, sizeof(a));
		if (strcmp(pk, la))
			fprintf(f, "; peak %s at %s", pk, a);
	}
	fputc('\n', f);
}

void np_report_table_footer(FILE *f, const struct np_sweep_report *rep)
{
	struct np_summary sum[NP_COLL_COUNT];
	int n = np_report_summary(rep, sum, NP_COLL_COUNT);

	fprintf(f, "#\n");
	for (size_t i = 0; i < rep->nrows; i++)
		if (rep->rows[i].eff > 1) {
			fprintf(f,
				"# eff above 100%%: NVLS, SHARP or tree algorithms can beat the flat link model; the figure is not clipped\n");
			break;
		}
	{
		int noise = 0, budget = 0, unsteady = 0;
		for (size_t i = 0; i < rep->nrows; i++) {
			noise += rep->rows[i].stop == NP_STOP_NOISE;
			budget += rep->rows[i].stop == NP_STOP_BUDGET;
			unsteady += rep->rows[i].stop == NP_STOP_UNSTEADY;
		}
		if (noise || budget)
			fprintf(f,
				"# not converged to 1%%: %d row%s noise-bound, %d out of budget (--wide shows ci%%; see SAMPLING)\n",
				noise, noise == 1 ? "" : "s", budget);
		if (unsteady)
			fprintf(f,
				"# unsteady: %d row%s: the budget ended before batches long enough for the steady\n"
				"#   state; time is an upper bound, busbw a lower bound (raise --budget; see SAMPLING)\n",
				unsteady, unsteady == 1 ? "" : "s");
	}
	slowest_footer(f, rep);
	if (rep->interrupted)
		fprintf(f, "# interrupted: the rows above are complete, the rest did not run\n");
	fprintf(f, "# wall time %.1f s\n", rep->wall_seconds);
	if (n && rep->world->size == 1)
		fprintf(f,
			"# summary: one rank, so busbw is 0 (nothing crosses a link): run 2 or more ranks\n");
	else if (n)
		fprintf(f, "# summary: busbw at the largest size (GB = 1e9 bytes)\n");
	for (int i = 0; i < n; i++)
		summary_line(f, rep, &sum[i]);
	if (rep->exit_code == 0 && rep->judged[0]) {
		char line[600];
		snprintf(line, sizeof(line), "ok (judged %s)", rep->judged);
		wrapped(f, "# verdict: ", line);
	} else if (rep->exit_code == 0)
		fprintf(f,
			"# verdict: not judged: no threshold (--min-eff PCT or --min-busbw GBPS)%s\n",
			rep->opts->check ? "; 0 wrong elements" : "");
	for (int i = 0; i < rep->verdict.n; i++)
		wrapped(f, "# verdict: ", rep->verdict.v[i]);
}
