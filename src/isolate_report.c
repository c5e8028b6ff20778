/* SPDX-License-Identifier: MIT */
/* The isolate command's report: the table, the JSON document (schema
 * nccl-probe/isolate), the --metrics file and the lines on stderr. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolate_internal.h"
#include "json.h"
#include "msg.h"
#include "openmetrics.h"
#include "stats.h"
#include "version.h"

static void write_json(const struct iso *is, FILE *out, double wall)
{
	struct np_json j;
	char type[160];

	node_type(is, type, sizeof(type));
	np_json_init(&j, out, true);
	np_json_obj_begin(&j, NULL);
	np_json_envelope(&j, NP_ISOLATE_SCHEMA, NP_ISOLATE_SCHEMA_VERSION, is->run, is->ops->name);
	np_json_int(&j, "nodes_total", is->N);
	np_json_int(&j, "ranks_per_node", is->L);
	np_json_bool(&j, "virtual_nodes", is->w->virtual_nodes);
	np_json_uint(&j, "size", is->size);
	np_json_int(&j, "rounds", is->j.rounds);
	np_json_num(&j, "wall_time", wall);
	if (is->j.floor > 0)
		np_json_num(&j, "floor", is->j.floor);
	else
		np_json_null(&j, "floor");
	np_json_num(&j, "min_effect", is->o->min_effect);
	np_json_arr_begin(&j, "nodes");
	for (int v = 0; v < is->N; v++) {
		np_json_obj_begin(&j, NULL);
		np_json_str(&j, "name", is->names[v]);
		np_json_str(&j, "host", is->w->hosts[v * is->L]);
		np_json_str(&j, "state",
			    is->j.state[v] == NP_NODE_OK && !np_iso_node_measured(&is->j, v)
				    ? "unknown"
				    : np_iso_node_state_str(is->j.state[v]));
		np_json_str(&j, "evidence",
			    is->j.state[v] != NP_NODE_OK ? is->j.evidence[v] : NULL);
		np_json_obj_end(&j);
	}
	np_json_arr_end(&j);
	np_json_arr_begin(&j, "links");
	for (int i = 0; i < is->j.nlinks; i++) {
		np_json_obj_begin(&j, NULL);
		np_json_str(&j, "a", is->names[is->j.links[i].a]);
		np_json_str(&j, "b", is->names[is->j.links[i].b]);
		np_json_str(&j, "evidence", is->j.links[i].why);
		np_json_obj_end(&j);
	}
	np_json_arr_end(&j);
	np_json_str(&j, "fleet", is->j.fleet[0] ? is->j.fleet : NULL);
	np_json_str(&j, "scale", is->j.scale[0] ? is->j.scale : NULL);
	np_json_str(&j, "segment", is->j.segment[0] ? is->j.segment : NULL);
	np_json_str(&j, "inconclusive", is->j.inconclusive[0] ? is->j.inconclusive : NULL);
	np_json_uint(&j, "seed", is->j.seed);
	np_json_arr_begin(&j, "figures");
	for (int i = 0; i < is->j.nfigs; i++) {
		const struct np_iso_fig *f = &is->j.figs[i];
		np_json_obj_begin(&j, NULL);
		np_json_int(&j, "round", f->round);
		np_json_str(&j, "kind", np_iso_fig_kind_str(f->kind));
		np_json_arr_begin(&j, "group");
		if (f->kind == NP_FIG_WORLD)
			for (int v = 0; v < is->N; v++)
				np_json_str(&j, NULL, is->names[v]);
		if (f->a >= 0)
			np_json_str(&j, NULL, is->names[f->a]);
		if (f->b >= 0)
			np_json_str(&j, NULL, is->names[f->b]);
		np_json_arr_end(&j);
		np_json_num(&j, "busbw", f->busbw);
		np_json_num(&j, "busbw_lo", f->lo);
		np_json_num(&j, "busbw_hi", f->hi);
		np_json_int(&j, "samples", f->samples);
		np_json_uint(&j, "wrong", f->wrong);
		if (f->nref)
			np_json_num(&j, "fleet_busbw", f->ref);
		else
			np_json_null(&j, "fleet_busbw");
		if (f->ratio > 0) {
			np_json_num(&j, "ratio", f->ratio);
			np_json_num(&j, "ratio_lo", f->ratio_lo);
			np_json_num(&j, "ratio_hi", f->ratio_hi);
		} else {
			np_json_null(&j, "ratio");
			np_json_null(&j, "ratio_lo");
			np_json_null(&j, "ratio_hi");
		}
		np_json_bool(&j, "below", f->bad);
		np_json_bool(&j, "segment", f->seg);
		np_json_obj_end(&j);
	}
	np_json_arr_end(&j);
	np_json_arr_begin(&j, "notes");
	for (int i = 0; i < is->notes.n; i++)
		np_json_str(&j, NULL, is->notes.v[i]);
	np_json_arr_end(&j);
	/* what a later run may pass as --baseline */
	np_json_arr_begin(&j, "baseline");
	if (!np_iso_exit_code(&is->j) && np_iso_floor_of_run(&is->j) > 0) {
		np_json_obj_begin(&j, NULL);
		np_json_str(&j, "type", type);
		np_json_num(&j, "floor_busbw", np_iso_floor_of_run(&is->j));
		np_json_num(&j, "world_floor_busbw", np_iso_world_floor_of_run(&is->j));
		np_json_obj_end(&j);
	}
	np_json_arr_end(&j);
	np_json_int(&j, "exit_code", np_iso_exit_code(&is->j));
	np_json_obj_end(&j);
	fputc('\n', out);
}

/* --metrics: each node's state as the JSON report names it */
static enum np_status write_metrics(const struct iso *is, struct np_err *err)
{
	struct np_om_node *nodes = calloc((size_t)is->N, sizeof(*nodes));
	struct np_om_isolate om = {
		is->ops->name,           nodes, is->N, is->j.nlinks, is->j.rounds, is->size,
		np_iso_exit_code(&is->j)
	};
	enum np_status st;

	if (!nodes)
		return np_fail(err, NP_ENOMEM, "out of memory for --metrics");
	for (int v = 0; v < is->N; v++)
		nodes[v] = (struct np_om_node){ is->names[v], is->w->hosts[v * is->L],
						is->j.state[v] == NP_NODE_OK &&
								!np_iso_node_measured(&is->j, v)
							? "unknown"
							: np_iso_node_state_str(is->j.state[v]) };
	st = np_openmetrics_isolate(is->o->metrics_file, &om, err);
	free(nodes);
	return st;
}

static void write_table(const struct iso *is, FILE *out, double wall)
{
	int bad = 0;

	if (!is->o->quiet) {
		fprintf(out,
			"# nccl-probe isolate: %d node%s x %d rank%s, all-reduce of %llu B, %s backend\n",
			is->N, is->N == 1 ? "" : "s", is->L, is->L == 1 ? "" : "s",
			(unsigned long long)is->size, is->ops->name);
		fprintf(out,
			"# partners: a random order, seed %llu (--seed %llu plans the same rounds)\n",
			(unsigned long long)is->j.seed, (unsigned long long)is->j.seed);
		if (is->j.leaf) {
			int known = 0;
			for (int v = 0; v < is->N; v++)
				known += is->leaf[v] >= 0;
			fprintf(out,
				"# leaves: %d switch%s from --topology, %d of %d nodes on them: pairs compared with pairs of their relation\n",
				is->j.nleaves, is->j.nleaves == 1 ? "" : "es", known, is->N);
		}
		fprintf(out, "# %-6s %-6s %-30s %10s %21s %10s %20s\n", "round", "kind", "group",
			"busbw", "95% interval", "fleet", "x fleet (95%)");
		for (int i = 0; i < is->j.nfigs; i++) {
			const struct np_iso_fig *f = &is->j.figs[i];
			char grp[64], iv[48], rt[48];
			if (f->kind == NP_FIG_WORLD)
				snprintf(grp, sizeof(grp), "every node");
			else
				snprintf(grp, sizeof(grp), "%s%s%s", is->names[f->a],
					 f->b >= 0 ? "-" : "", f->b >= 0 ? is->names[f->b] : "");
			snprintf(iv, sizeof(iv), "[%.4g, %.4g]", f->lo, f->hi);
			if (f->ratio > 0)
				snprintf(rt, sizeof(rt), "%.2f [%.2f, %.2f]", f->ratio, f->ratio_lo,
					 f->ratio_hi);
			else
				snprintf(rt, sizeof(rt), "-");
			fprintf(out, "  %-6d %-6s %-30s %10.4g %21s %10.4g %20s%s%s\n", f->round,
				np_iso_fig_kind_str(f->kind), grp, f->busbw, iv, f->ref, rt,
				f->failed  ? "  could not run"
				: f->wrong ? "  wrong data"
					   : "",
				f->bad ? "  below" : "");
		}
	}
	for (int i = 0; i < is->notes.n; i++)
		fprintf(out, "note: %s\n", is->notes.v[i]);
	for (int v = 0; v < is->N; v++) {
		if (is->j.state[v] == NP_NODE_OK)
			continue;
		char why[256];
		np_iso_node_why(&is->j, v, why, sizeof(why));
		fprintf(out, "bad: node %s: %s: %s\n", is->names[v], why, is->j.evidence[v]);
		bad++;
	}
	for (int i = 0; i < is->j.nlinks; i++, bad++)
		fprintf(out,
			"bad: link %s-%s: slow together while both are fine with others: check the cables and switch path between them: %s\n",
			is->names[is->j.links[i].a], is->names[is->j.links[i].b],
			is->j.links[i].why);
	if (is->j.fleet[0]) {
		fprintf(out, "bad: fleet: %s\n", is->j.fleet);
		bad++;
	}
	if (is->j.scale[0]) {
		fprintf(out, "bad: scale: %s\n", is->j.scale);
		bad++;
	}
	if (is->j.segment[0]) {
		fprintf(out, "bad: segment: %s\n", is->j.segment);
		bad++;
	}
	if (bad)
		fprintf(out, "verdict: %d problem%s found in %d rounds (%.1f s)\n", bad,
			bad == 1 ? "" : "s", is->j.rounds, wall);
	else if (is->j.inconclusive[0])
		fprintf(out,
			"inconclusive: %s\nverdict: inconclusive, %d node%s, %d rounds (%.1f s): nothing named, nothing cleared\n",
			is->j.inconclusive, is->N, is->N == 1 ? "" : "s", is->j.rounds, wall);
	else
		fprintf(out, "verdict: ok, %d node%s, %d rounds (%.1f s)\n", is->N,
			is->N == 1 ? "" : "s", is->j.rounds, wall);
}

int np_isolate_report(struct iso *is)
{
	const struct np_opts *o = is->o;
	struct np_err err = { 0 };
	FILE *out = stdout;
	double wall;
	int code;

	if (o->output && np_outfile_open(&is->of, o->output, "--output", &err)) {
		np_error("%s", err.msg);
		return NP_EXIT_RUNTIME;
	}
	if (o->output)
		out = is->of.f;
	np_iso_decide(&is->j, true);
	np_iso_judge_fleet(&is->j);
	wall = np_now_s() - is->t0;
	if (o->format == NP_FMT_JSON)
		write_json(is, out, wall);
	else
		write_table(is, out, wall);
	if (o->output && np_outfile_commit(&is->of, &err)) {
		np_error("%s", err.msg);
		code = NP_EXIT_RUNTIME;
	} else {
		code = np_iso_exit_code(&is->j);
	}
	if (o->metrics_file && write_metrics(is, &err)) {
		np_error("%s", err.msg);
		code = NP_EXIT_RUNTIME;
	}
	if (o->output || o->format == NP_FMT_JSON) {
		for (int v = 0; v < is->N; v++)
			if (is->j.state[v] != NP_NODE_OK) {
				char why[256];
				np_iso_node_why(&is->j, v, why, sizeof(why));
				np_error("node %s: %s", is->names[v], why);
			}
		for (int i = 0; i < is->j.nlinks; i++)
			np_error("link %s-%s is slow", is->names[is->j.links[i].a],
				 is->names[is->j.links[i].b]);
		if (is->j.fleet[0])
			np_error("%s", is->j.fleet);
		if (is->j.scale[0])
			np_error("%s", is->j.scale);
		if (is->j.segment[0])
			np_error("segment: %s", is->j.segment);
		if (is->j.inconclusive[0] && code == NP_EXIT_INCONCLUSIVE)
			np_error("inconclusive: %s", is->j.inconclusive);
	}
	return code;
}
