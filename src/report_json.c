/* SPDX-License-Identifier: MIT */
/* The JSON report (schema "nccl-probe/sweep", documented in the man page). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "version.h"

static void metric_json(struct np_json *j, const struct np_metric *m, const struct np_result *r)
{
	struct np_value v = { 0 };

	m->get(r, &v);
	if (v.null) {
		np_json_null(j, m->name);
		return;
	}
	switch (m->type) {
	case NP_MT_STR: np_json_str(j, m->name, v.s); break;
	case NP_MT_UINT: np_json_uint(j, m->name, v.u); break;
	case NP_MT_INT: np_json_int(j, m->name, v.i); break;
	case NP_MT_NUM: np_json_num(j, m->name, v.d); break;
	case NP_MT_BOOL: np_json_bool(j, m->name, v.b); break;
	}
}

static void opt_num_or_null(struct np_json *j, const char *key, bool set, double v)
{
	if (set)
		np_json_num(j, key, v);
	else
		np_json_null(j, key);
}

static void ll_or_null(struct np_json *j, const char *key, long long v)
{
	if (v == NP_HX)
		np_json_null(j, key);
	else
		np_json_int(j, key, v);
}

/* A rank's GPU over the sweep; null when it has none or NVML did not say. */
static void json_clocks(struct np_json *j, const struct np_gpu_clocks *c)
{
	if (!c || !c->known) {
		np_json_null(j, "gpu_clocks");
		return;
	}
	np_json_obj_begin(j, "gpu_clocks");
	ll_or_null(j, "sm_mhz", c->sm_mhz);
	ll_or_null(j, "sm_max_mhz", c->sm_max_mhz);
	ll_or_null(j, "sm_app_default_mhz", c->sm_app_default_mhz);
	ll_or_null(j, "temp_c", c->temp_c);
	ll_or_null(j, "clock_event_reasons", c->reasons);
	np_json_obj_begin(j, "below_app_clocks_ms");
	for (int v = 0; v < NP_VIOL_COUNT; v++)
		ll_or_null(j, np_viol_str((enum np_viol)v),
			   c->viol_ns[v] == NP_HX ? NP_HX : c->viol_ns[v] / 1000000);
	np_json_obj_end(j);
	np_json_obj_end(j);
}

/* The options that shaped the run */
static void json_options(struct np_json *j, const struct np_opts *o,
			 const struct np_sweep_report *rep)
{
	np_json_obj_begin(j, "options");
	np_json_uint(j, "min_bytes", o->min_bytes);
	np_json_uint(j, "max_bytes", o->max_bytes);
	opt_num_or_null(j, "step_factor", o->step_kind == NP_STEP_FACTOR, o->step_factor);
	if (o->step_kind == NP_STEP_ADD)
		np_json_uint(j, "step_bytes", o->step_bytes);
	else
		np_json_null(j, "step_bytes");
	np_json_str(j, "dtype", np_dtype_str(o->dtype));
	np_json_str(j, "op", np_redop_str(o->op));
	np_json_int(j, "root", o->root);
	if (o->iters)
		np_json_int(j, "iters", o->iters);
	else
		np_json_str(j, "iters", "auto");
	np_json_int(j, "samples", o->samples);
	np_json_int(j, "warmup", o->warmup);
	np_json_num(j, "budget", o->budget);
	np_json_bool(j, "check", o->check);
	np_json_bool(j, "inplace", o->inplace);
	np_json_bool(j, "graph", o->graph);
	np_json_num(j, "timeout", o->timeout);
	opt_num_or_null(j, "min_busbw", o->min_busbw > 0, o->min_busbw);
	opt_num_or_null(j, "min_eff", o->min_eff > 0, o->min_eff);
	np_json_uint(j, "judge_from", rep->judge_from);
	np_json_obj_end(j);
}

/* The rows measured, then the sizes and collectives skipped */
static void json_rows(struct np_json *j, const struct np_sweep_report *rep)
{
	np_json_arr_begin(j, "results");
	for (size_t i = 0; i < rep->nrows; i++) {
		np_json_obj_begin(j, NULL);
		for (int m = 0; m < np_metrics_count; m++)
			metric_json(j, &np_metrics[m], &rep->rows[i]);
		/* an array, not a column: in JSON only */
		np_json_arr_begin(j, "sample_times");
		for (int k = 0; k < rep->rows[i].samples && rep->rows[i].sample_times; k++)
			np_json_num(j, NULL, rep->rows[i].sample_times[k]);
		np_json_arr_end(j);
		np_json_obj_end(j);
	}
	np_json_arr_end(j);

	np_json_arr_begin(j, "skipped");
	for (size_t i = 0; i < rep->nskips; i++) {
		np_json_obj_begin(j, NULL);
		np_json_str(j, "coll", rep->skips[i].coll->name);
		if (rep->skips[i].size)
			np_json_uint(j, "size", rep->skips[i].size);
		else
			np_json_null(j, "size");
		np_json_str(j, "reason", rep->skips[i].reason);
		np_json_arr_begin(j, "sample_times"); /* none: as a result row would have */
		np_json_arr_end(j);
		np_json_obj_end(j);
	}
	np_json_arr_end(j);
}

/* The verdict: its code, what it judged, its reasons and each failing row */
static void json_verdict(struct np_json *j, const struct np_sweep_report *rep)
{
	np_json_obj_begin(j, "verdict");
	np_json_int(j, "exit_code", rep->exit_code);
	np_json_bool(j, "ok", rep->exit_code == 0);
	/* ok with judged false: nothing was held against a threshold */
	np_json_bool(j, "judged", rep->judged[0] != '\0');
	np_json_str(j, "judged_what", rep->judged[0] ? rep->judged : NULL);
	np_json_arr_begin(j, "reasons");
	for (int i = 0; i < rep->verdict.n; i++)
		np_json_str(j, NULL, rep->verdict.v[i]);
	np_json_arr_end(j);
	np_json_arr_begin(j, "details");
	for (size_t i = 0; i < rep->ndetails; i++) {
		const struct np_verdict_detail *d = &rep->details[i];
		np_json_obj_begin(j, NULL);
		np_json_str(j, "code", d->code);
		np_json_str(j, "coll", d->coll ? d->coll->name : NULL);
		if (d->size)
			np_json_uint(j, "size", d->size);
		else
			np_json_null(j, "size");
		np_json_num(j, "value", d->value); /* NaN: null */
		np_json_num(j, "threshold", d->threshold);
		np_json_obj_end(j);
	}
	np_json_arr_end(j);
	np_json_obj_end(j);
}

void np_report_json(FILE *f, const struct np_sweep_report *rep)
{
	const struct np_opts *o = rep->opts;
	const struct np_world *w = rep->world;
	struct np_summary sum[NP_COLL_COUNT];
	int nsum = np_report_summary(rep, sum, NP_COLL_COUNT);
	struct np_json j;

	np_json_init(&j, f, true);
	np_json_obj_begin(&j, NULL);
	np_json_envelope(&j, NP_SWEEP_SCHEMA, NP_SWEEP_SCHEMA_VERSION, &rep->run, NULL);
	np_json_bool(&j, "complete", rep->complete);
	np_json_bool(&j, "interrupted", rep->interrupted);
	np_json_num(&j, "wall_time", rep->wall_seconds);

	np_json_obj_begin(&j, "backend");
	np_json_str(&j, "name", rep->backend);
	np_json_str(&j, "reason", rep->backend_why);
	np_json_str(&j, "library", rep->info.library);
	np_json_str(&j, "runtime", rep->info.runtime[0] ? rep->info.runtime : NULL);
	np_json_str(&j, "transport", rep->info.transport[0] ? rep->info.transport : NULL);
	np_json_str(&j, "mpi", w->mpi_version);
	np_json_obj_end(&j);

	np_json_obj_begin(&j, "world");
	np_json_int(&j, "ranks", w->size);
	np_json_int(&j, "nodes", w->nnodes);
	if (w->ranks_per_node)
		np_json_int(&j, "ranks_per_node", w->ranks_per_node);
	else
		np_json_null(&j, "ranks_per_node");
	np_json_bool(&j, "virtual_nodes", w->virtual_nodes);
	np_json_int(&j, "hosts", w->real_nnodes);
	np_json_obj_end(&j);

	json_options(&j, o, rep);

	np_json_obj_begin(&j, "limits");
	opt_num_or_null(&j, "gpu_gbps", rep->bw.gpu_gbps > 0, rep->bw.gpu_gbps);
	np_json_str(&j, "gpu_evidence", rep->bw_known ? rep->bw.gpu_src : NULL);
	if (rep->bw_known)
		np_json_int(&j, "gpu_rank", rep->bw_gpu_rank);
	else
		np_json_null(&j, "gpu_rank");
	opt_num_or_null(&j, "proto_gbps", rep->bw.proto_gbps > 0, rep->bw.proto_gbps);
	opt_num_or_null(&j, "node_gbps", rep->bw.node_gbps > 0, rep->bw.node_gbps);
	np_json_str(&j, "node_evidence",
		    rep->bw_known && rep->bw.node_src[0] ? rep->bw.node_src : NULL);
	opt_num_or_null(&j, "nic_gbps", rep->bw.nic_gbps > 0, rep->bw.nic_gbps);
	np_json_obj_end(&j);

	np_json_arr_begin(&j, "ranks");
	for (int r = 0; r < w->size && rep->ranks; r++) {
		const struct np_rank_info *ri = &rep->ranks[r];
		np_json_obj_begin(&j, NULL);
		np_json_int(&j, "rank", ri->rank);
		np_json_str(&j, "host", ri->host);
		np_json_int(&j, "pid", ri->pid);
		np_json_int(&j, "local_rank", ri->local_rank);
		np_json_int(&j, "node", ri->node);
		if (ri->device >= 0)
			np_json_int(&j, "device", ri->device);
		else
			np_json_null(&j, "device");
		np_json_str(&j, "bus_id", ri->bus_id[0] ? ri->bus_id : NULL);
		np_json_str(&j, "device_name", ri->device_name);
		json_clocks(&j, rep->clocks && ri->bus_id[0] ? &rep->clocks[r] : NULL);
		np_json_obj_end(&j);
	}
	np_json_arr_end(&j);

	np_json_obj_begin(&j, "nccl_env");
	for (char **e = rep->nccl_env; e && *e; e++) {
		char key[128];
		const char *eq = strchr(*e, '=');
		size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
		if (len >= sizeof(key))
			len = sizeof(key) - 1;
		memcpy(key, *e, len);
		key[len] = '\0';
		np_json_str(&j, key, eq ? eq + 1 : "");
	}
	np_json_obj_end(&j);

	np_json_arr_begin(&j, "notes");
	for (int i = 0; i < rep->notes.n; i++)
		np_json_str(&j, NULL, rep->notes.v[i]);
	np_json_arr_end(&j);

	json_rows(&j, rep);

	np_json_arr_begin(&j, "summary");
	for (int i = 0; i < nsum; i++) {
		np_json_obj_begin(&j, NULL);
		np_json_str(&j, "coll", sum[i].coll->name);
		np_json_num(&j, "peak_busbw", sum[i].peak_busbw);
		np_json_uint(&j, "peak_size", sum[i].peak_size);
		np_json_num(&j, "max_size_busbw", sum[i].last_busbw);
		np_json_uint(&j, "max_size", sum[i].last_size);
		opt_num_or_null(&j, "max_size_limit", sum[i].last_limit > 0, sum[i].last_limit);
		opt_num_or_null(&j, "max_size_eff", isfinite(sum[i].last_eff), sum[i].last_eff);
		np_json_obj_end(&j);
	}
	np_json_arr_end(&j);

	json_verdict(&j, rep);
	np_json_obj_end(&j);
}
