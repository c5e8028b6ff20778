/* SPDX-License-Identifier: MIT */
/* The isolate command's report: one document (src/doc.h) rendered as the
 * table or as JSON (schema nccl-probe/isolate), the --metrics file and
 * the lines on stderr. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "isolate_internal.h"
#include "json.h"
#include "msg.h"
#include "openmetrics.h"
#include "stats.h"
#include "version.h"

/* A node's state as the report and --metrics name it: a node that no
 * figure measured and nothing condemned is unknown, not ok */
static const char *node_state(const struct iso *is, int v)
{
	return is->j.state[v] == NP_NODE_OK && !np_iso_node_measured(&is->j, v)
		       ? "unknown"
		       : np_iso_node_state_str(is->j.state[v]);
}

/* The table's head: what was measured, how partners were drawn, the
 * leaf switches known */
static void doc_head(struct np_doc *top, const struct iso *is)
{
	np_doc_line(top,
		    "# nccl-probe isolate: %d node%s x %d rank%s, all-reduce of %llu B, %s backend",
		    is->N, is->N == 1 ? "" : "s", is->L, is->L == 1 ? "" : "s",
		    (unsigned long long)is->size, is->ops->name);
	np_doc_line(top,
		    "# partners: a random order, seed %llu (--seed %llu plans the same rounds)",
		    (unsigned long long)is->j.seed, (unsigned long long)is->j.seed);
	if (is->j.leaf) {
		int known = 0;
		for (int v = 0; v < is->N; v++)
			known += is->leaf[v] >= 0;
		np_doc_line(top,
			    "# leaves: %d switch%s from --topology, %d of %d nodes on them: pairs compared with pairs of their relation",
			    is->j.nleaves, is->j.nleaves == 1 ? "" : "es", known, is->N);
	}
}

static const struct np_doc_col fig_cols[] = {
	{ "# round", -8, NULL },       { "kind", -6, NULL },
	{ "group", -30, NULL },        { "busbw", 10, NULL },
	{ "95% interval", 21, NULL },  { "fleet", 10, NULL },
	{ "x fleet (95%)", 20, NULL }, { "", 0, "" },
};

/* A figure: its members, and (table) its row; quiet: JSON's alone */
static void doc_fig(struct np_doc *figs, const struct iso *is, const struct np_iso_fig *f)
{
	struct np_doc *r = is->o->quiet ? np_doc_obj(figs, NULL) : np_doc_row(figs);
	struct np_doc *g;
	bool ratio = f->ratio > 0;
	char grp[64];

	np_doc_int(r, "round", f->round);
	np_doc_str(r, "kind", np_iso_fig_kind_str(f->kind));
	g = np_doc_arr(r, "group");
	if (f->kind == NP_FIG_WORLD)
		for (int v = 0; v < is->N; v++)
			np_doc_str(g, NULL, is->names[v]);
	if (f->a >= 0)
		np_doc_str(g, NULL, is->names[f->a]);
	if (f->b >= 0)
		np_doc_str(g, NULL, is->names[f->b]);
	np_doc_num(r, "busbw", f->busbw);
	np_doc_num(r, "busbw_lo", f->lo);
	np_doc_num(r, "busbw_hi", f->hi);
	np_doc_int(r, "samples", f->samples);
	np_doc_uint(r, "wrong", f->wrong);
	np_doc_num(r, "fleet_busbw", f->nref ? f->ref : NAN);
	np_doc_num(r, "ratio", ratio ? f->ratio : NAN);
	np_doc_num(r, "ratio_lo", ratio ? f->ratio_lo : NAN);
	np_doc_num(r, "ratio_hi", ratio ? f->ratio_hi : NAN);
	np_doc_bool(r, "below", f->bad);
	np_doc_bool(r, "segment", f->seg);

	np_doc_cell(r, 0, "  %d", f->round);
	np_doc_cell(r, 1, "%s", np_iso_fig_kind_str(f->kind));
	if (f->kind == NP_FIG_WORLD)
		snprintf(grp, sizeof(grp), "every node");
	else
		snprintf(grp, sizeof(grp), "%s%s%s", is->names[f->a], f->b >= 0 ? "-" : "",
			 f->b >= 0 ? is->names[f->b] : "");
	np_doc_cell(r, 2, "%s", grp);
	np_doc_cell(r, 3, "%.4g", f->busbw);
	np_doc_cell(r, 4, "[%.4g, %.4g]", f->lo, f->hi);
	np_doc_cell(r, 5, "%.4g", f->ref);
	if (ratio)
		np_doc_cell(r, 6, "%.2f [%.2f, %.2f]", f->ratio, f->ratio_lo, f->ratio_hi);
	else
		np_doc_cell(r, 6, "-");
	np_doc_cell(r, 7, "%s%s",
		    f->failed  ? "  could not run"
		    : f->wrong ? "  wrong data"
			       : "",
		    f->bad ? "  below" : "");
}

/* The problems named: nodes, links, and the fleet's, scale's and
 * segment's findings, each a member and (table) a "bad:" line */
static int doc_bad(struct np_doc *top, const struct iso *is)
{
	struct np_doc *a = np_doc_arr(top, "nodes"), *e;
	int bad = 0;

	for (int v = 0; v < is->N; v++) {
		bool ok = is->j.state[v] == NP_NODE_OK;
		e = np_doc_obj(a, NULL);
		np_doc_str(e, "name", is->names[v]);
		np_doc_str(e, "host", is->w->hosts[v * is->L]);
		np_doc_str(e, "state", node_state(is, v));
		np_doc_str(e, "evidence", ok ? NULL : is->j.evidence[v]);
		if (!ok) {
			char why[256];
			np_iso_node_why(&is->j, v, why, sizeof(why));
			np_doc_text(e, "bad: node %s: %s: %s", is->names[v], why,
				    is->j.evidence[v]);
			bad++;
		}
	}
	a = np_doc_arr(top, "links");
	for (int i = 0; i < is->j.nlinks; i++, bad++) {
		const char *na = is->names[is->j.links[i].a], *nb = is->names[is->j.links[i].b];
		e = np_doc_obj(a, NULL);
		np_doc_str(e, "a", na);
		np_doc_str(e, "b", nb);
		np_doc_str(e, "evidence", is->j.links[i].why);
		np_doc_text(e,
			    "bad: link %s-%s: slow together while both are fine with others: check the cables and switch path between them: %s",
			    na, nb, is->j.links[i].why);
	}
	const struct {
		const char *key, *text;
	} finding[] = { { "fleet", is->j.fleet },
			{ "scale", is->j.scale },
			{ "segment", is->j.segment } };
	for (size_t i = 0; i < sizeof(finding) / sizeof(finding[0]); i++) {
		e = np_doc_str(top, finding[i].key, finding[i].text[0] ? finding[i].text : NULL);
		if (finding[i].text[0]) {
			np_doc_text(e, "bad: %s: %s", finding[i].key, finding[i].text);
			bad++;
		}
	}
	return bad;
}

/* isolate's document, which the table and JSON both render: the table
 * shows the head and the figures (not with -q), the notes, the problems
 * and the verdict; JSON holds every figure, node and finding */
static struct np_doc *isolate_doc(const struct iso *is, double wall)
{
	struct np_doc *d = np_doc_new(), *top = np_doc_top(d), *a, *e;
	double floor = np_iso_floor_of_run(&is->j);
	int bad, code = np_iso_exit_code(&is->j);

	if (!is->o->quiet)
		doc_head(top, is);
	np_doc_int(top, "nodes_total", is->N);
	np_doc_int(top, "ranks_per_node", is->L);
	np_doc_bool(top, "virtual_nodes", is->w->virtual_nodes);
	np_doc_uint(top, "size", is->size);
	np_doc_int(top, "rounds", is->j.rounds);
	np_doc_num(top, "wall_time", wall);
	np_doc_num(top, "floor", is->j.floor > 0 ? is->j.floor : NAN);
	np_doc_num(top, "min_effect", is->o->min_effect);
	np_doc_uint(top, "seed", is->j.seed);
	a = is->o->quiet ? np_doc_arr(top, "figures")
			 : np_doc_table(top, "figures", fig_cols,
					(int)(sizeof(fig_cols) / sizeof(fig_cols[0])));
	for (int i = 0; i < is->j.nfigs; i++)
		doc_fig(a, is, &is->j.figs[i]);
	a = np_doc_arr(top, "notes");
	for (int i = 0; i < is->notes.n; i++)
		np_doc_text(np_doc_str(a, NULL, is->notes.v[i]), "note: %s", is->notes.v[i]);
	bad = doc_bad(top, is);
	e = np_doc_str(top, "inconclusive", is->j.inconclusive[0] ? is->j.inconclusive : NULL);
	if (bad)
		np_doc_line(top, "verdict: %d problem%s found in %d rounds (%.1f s)", bad,
			    bad == 1 ? "" : "s", is->j.rounds, wall);
	else if (is->j.inconclusive[0]) {
		np_doc_text(e, "inconclusive: %s", is->j.inconclusive);
		np_doc_line(top,
			    "verdict: inconclusive, %d node%s, %d rounds (%.1f s): nothing named, nothing cleared",
			    is->N, is->N == 1 ? "" : "s", is->j.rounds, wall);
	} else
		np_doc_line(top, "verdict: ok, %d node%s, %d rounds (%.1f s)", is->N,
			    is->N == 1 ? "" : "s", is->j.rounds, wall);
	/* what a later run may pass as --baseline */
	a = np_doc_arr(top, "baseline");
	if (!code && floor > 0) {
		char type[160];
		node_type(is, type, sizeof(type));
		e = np_doc_obj(a, NULL);
		np_doc_str(e, "type", type);
		np_doc_num(e, "floor_busbw", floor);
		np_doc_num(e, "world_floor_busbw", np_iso_world_floor_of_run(&is->j));
	}
	np_doc_int(top, "exit_code", code);
	return d;
}

static void envelope(struct np_json *j, void *arg)
{
	const struct iso *is = arg;

	np_json_envelope(j, NP_ISOLATE_SCHEMA, NP_ISOLATE_SCHEMA_VERSION, is->run, is->ops->name);
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
						node_state(is, v) };
	st = np_openmetrics_isolate(is->o->metrics_file, &om, err);
	free(nodes);
	return st;
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
	if (!np_doc_render(isolate_doc(is, wall), out, o->format == NP_FMT_JSON, envelope, is)) {
		np_error("out of memory for the report");
		if (o->output)
			np_outfile_discard(&is->of);
		code = NP_EXIT_RUNTIME;
	} else {
		code = np_iso_exit_code(&is->j);
		if (o->output && np_outfile_commit(&is->of, &err)) {
			np_error("%s", err.msg);
			code = NP_EXIT_RUNTIME;
		}
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
