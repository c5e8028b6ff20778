/* SPDX-License-Identifier: MIT */
/* tune's report, on rank 0: the table (a line per point and candidate,
 * or a column per candidate with --wide), where each candidate differs
 * from the baseline, the winners, the export lines of the candidate to
 * recommend; the same as JSON; the error lines and the exit code. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "msg.h"
#include "outfile.h"
#include "tune.h"
#include "version.h"
#include "watchdog.h"

static void size_range(const struct np_tune_point *a, const struct np_tune_point *b, char *buf,
		       size_t len)
{
	char x[32], y[32];

	np_human_size(a->lay.size, x, sizeof(x));
	np_human_size(b->lay.size, y, sizeof(y));
	if (a == b)
		snprintf(buf, len, "%s", x);
	else
		snprintf(buf, len, "%s to %s", x, y);
}

/* Where candidate a reads verdict v: "allreduce 8 B to 64 KiB (1.12x to
 * 1.30x)", ranges of consecutive points, "; " between them. Returns the
 * number of points. */
static int verdict_ranges(const struct tune *tu, int a, enum np_tune_verdict v, char *buf,
			  size_t len)
{
	size_t off = 0;
	int count = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < tu->npts;) {
		const struct np_tune_cell *cl = &tu->pts[i].cells[a];
		size_t j = i;
		double lo, hi;
		char sr[80], rr[48];
		if (!cl->ran || cl->ignored || cl->ratio.verdict != v) {
			i++;
			continue;
		}
		lo = hi = cl->ratio.median;
		while (j + 1 < tu->npts && tu->pts[j + 1].coll == tu->pts[i].coll &&
		       tu->pts[j + 1].cells[a].ran && !tu->pts[j + 1].cells[a].ignored &&
		       tu->pts[j + 1].cells[a].ratio.verdict == v) {
			j++;
			lo = fmin(lo, tu->pts[j].cells[a].ratio.median);
			hi = fmax(hi, tu->pts[j].cells[a].ratio.median);
		}
		count += (int)(j - i + 1);
		size_range(&tu->pts[i], &tu->pts[j], sr, sizeof(sr));
		if (lo == hi)
			snprintf(rr, sizeof(rr), "%.2fx", lo);
		else
			snprintf(rr, sizeof(rr), "%.2fx to %.2fx", lo, hi);
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s %s (%s)",
						off ? "; " : "", tu->pts[i].coll->name, sr, rr);
		i = j + 1;
	}
	return count;
}

/* A candidate's cell: "1.02x [0.98, 1.05] same", with NCCL's choice */
static void cell_str(const struct tune *tu, const struct np_tune_cell *cl, int a, char *buf,
		     size_t len, char *alg, size_t alen)
{
	const char *word = cl->ratio.verdict == NP_TUNE_FASTER   ? "faster"
			   : cl->ratio.verdict == NP_TUNE_SLOWER ? "slower"
			   : cl->ratio.verdict == NP_TUNE_NONE   ? "same"
								 : "undecided";

	alg[0] = '\0';
	if (cl->proto[0])
		snprintf(alg, alen, "%s/%s%s", cl->algo, cl->proto, cl->same_choice ? "=" : "");
	if (cl->ignored)
		snprintf(buf, len, "ignored (NCCL used %s)", alg);
	else if (!cl->ran || !(cl->t_med > 0))
		snprintf(buf, len, "%s", np_tune_arm_state_str(tu->arms[a].state));
	else
		snprintf(buf, len, "%.2fx [%.2f, %.2f] %s", cl->ratio.median, cl->ratio.lo,
			 cl->ratio.hi, word);
}

/* Point i if the table shows it (its baseline ran a round), its size in
 * sz; NULL if not */
static const struct np_tune_point *shown(const struct tune *tu, size_t i, char *sz, size_t len)
{
	const struct np_tune_point *p = &tu->pts[i];

	if (!p->cells[0].ran || !p->rounds)
		return NULL;
	np_human_size(p->lay.size, sz, len);
	return p;
}

/* --wide: one row per point, a column per candidate */
static void wide_rows(const struct tune *tu, FILE *f)
{
	char buf[256], alg[72], both[340];

	fprintf(f, "%-14s %10s %6s %11s %9s", "coll", "size", "rounds", "base_us", "base_busbw");
	for (int a = 1; a < tu->narms; a++)
		fprintf(f, "  cand%-30d", a);
	fputc('\n', f);
	for (size_t i = 0; i < tu->npts; i++) {
		char sz[32];
		const struct np_tune_point *p = shown(tu, i, sz, sizeof(sz));
		if (!p)
			continue;
		fprintf(f, "%-14s %10s %6d %11.2f %9.2f", p->coll->name, sz, p->rounds,
			p->cells[0].t_med * 1e6, p->cells[0].busbw);
		for (int a = 1; a < tu->narms; a++) {
			cell_str(tu, &p->cells[a], a, buf, sizeof(buf), alg, sizeof(alg));
			snprintf(both, sizeof(both), "%s%s%s", buf,
				 alg[0] && !p->cells[a].ignored ? " " : "",
				 p->cells[a].ignored ? "" : alg);
			fprintf(f, "  %-34s", both);
		}
		fputc('\n', f);
	}
}

/* The default: one line per point and candidate (the point's figures on
 * its first), 100 columns */
static void narrow_rows(const struct tune *tu, FILE *f)
{
	char buf[256], alg[72];

	bool choice = false; /* NCCL's choice: a column where the backend tells it */

	for (size_t i = 0; i < tu->npts; i++)
		for (int a = 1; a < tu->narms; a++)
			choice |= tu->pts[i].cells[a].proto[0] != '\0';
	fprintf(f, "%-13s %9s %6s %9s %10s %4s  %s%s\n", "coll", "size", "rounds", "base(us)",
		"base busbw", "cand", choice ? "speed [95%]                  " : "speed [95%]",
		choice ? "NCCL's choice" : "");
	for (size_t i = 0; i < tu->npts; i++) {
		char sz[32];
		const struct np_tune_point *p = shown(tu, i, sz, sizeof(sz));
		if (!p)
			continue;
		for (int a = 1; a < tu->narms; a++) {
			cell_str(tu, &p->cells[a], a, buf, sizeof(buf), alg, sizeof(alg));
			if (a == 1)
				fprintf(f, "%-13s %9s %6d %9.2f %10.2f", p->coll->name, sz,
					p->rounds, p->cells[0].t_med * 1e6, p->cells[0].busbw);
			else
				fprintf(f, "%-13s %9s %6s %9s %10s", "", "", "", "", "");
			if (choice && alg[0] && !p->cells[a].ignored)
				fprintf(f, " %4d  %-28s %s\n", a, buf, alg);
			else
				fprintf(f, " %4d  %s\n", a, buf);
		}
	}
}

/* The candidate to recommend, -1 none (src/tune_judge.h) */
static int recommended(const struct tune *tu)
{
	enum np_tune_arm_state st[NP_TUNE_MAX_CANDS + 1];

	arm_states(tu, st);
	return np_tune_recommended(tu->pts, tu->npts, tu->narms, st);
}

/* The head: the run, each candidate's state, the notes, how to read the
 * table; lines broken at W columns */
static void table_head(const struct tune *tu, FILE *f, int W)
{
	const struct np_opts *o = tu->o;
	const struct np_backend_info *info = &tu->arms[0].be.info;
	char lo[32], hi[32], line[4096];

	np_human_size(o->min_bytes, lo, sizeof(lo));
	np_human_size(o->max_bytes, hi, sizeof(hi));
	snprintf(line, sizeof(line),
		 "nccl-probe %s tune: %d ranks on %d %snode%s, %s backend (%s), %s %s, %s to %s",
		 PACKAGE_VERSION, tu->w->size, tu->w->nnodes,
		 tu->w->virtual_nodes ? "virtual " : "", tu->w->nnodes == 1 ? "" : "s",
		 tu->ops->name, info->library, np_dtype_str(o->dtype), np_redop_str(o->op), lo, hi);
	np_wrap(f, "# ", "#   ", line, W);
	fprintf(f, "# baseline: the environment as launched\n");
	for (int a = 1; a < tu->narms; a++) {
		const struct arm *arm = &tu->arms[a];
		if (arm->state == NP_TUNE_ARM_OK)
			snprintf(line, sizeof(line), "candidate %d: %s: %s (in effect: %s)", a,
				 arm->cand->label, np_tune_arm_state_str(arm->state),
				 arm->evidence);
		else
			snprintf(line, sizeof(line), "candidate %d: %s: %s: %s", a,
				 arm->cand->label, np_tune_arm_state_str(arm->state), arm->why);
		np_wrap(f, "# ", "#   ", line, W);
	}
	for (int i = 0; i < tu->notes.n; i++)
		np_wrap(f, "# note: ", "#   ", tu->notes.v[i], W);
	fprintf(f,
		"# each candidate's speed against the baseline: baseline time / its time, median of rounds\n"
		"# measured side by side, [95%% interval]; faster or slower only when the interval\n"
		"# excludes 1 and the median is %.0f%% or more from 1 (--min-change)%s\n",
		o->min_change * 100,
		!(tu->ops->caps & NP_CAP_SETTINGS_LOG)
			? ""
			: "; ALGO/PROTO: NCCL's choice for\n# the first call, '=' where it is the baseline's own (then never faster or slower)");
}

/* Where each candidate is faster or slower than the baseline, or why it
 * lost */
static void table_differences(const struct tune *tu, FILE *f, int W)
{
	char line[4096];

	fprintf(f, "# where each candidate differs from the baseline:\n");
	for (int a = 1; a < tu->narms; a++) {
		char fast[900], slow[900];
		const struct arm *arm = &tu->arms[a];
		if (arm->state != NP_TUNE_ARM_OK) {
			snprintf(line, sizeof(line), "%d %s: %s, loses: %s", a, arm->cand->label,
				 np_tune_arm_state_str(arm->state), arm->why);
			np_wrap(f, "#   ", "#     ", line, W);
			continue;
		}
		int nf = verdict_ranges(tu, a, NP_TUNE_FASTER, fast, sizeof(fast));
		int ns = verdict_ranges(tu, a, NP_TUNE_SLOWER, slow, sizeof(slow));
		if (!nf && !ns)
			fprintf(f, "#   %d %s: no significant difference anywhere\n", a,
				arm->cand->label);
		if (nf) {
			snprintf(line, sizeof(line), "%d %s: faster at %s", a, arm->cand->label,
				 fast);
			np_wrap(f, "#   ", "#     ", line, W);
		}
		if (ns) {
			snprintf(line, sizeof(line), "%d %s: slower at %s", a, arm->cand->label,
				 slow);
			np_wrap(f, "#   ", "#     ", line, W);
		}
	}
}

/* Whether any candidate (not the baseline) was measured: with none, there
 * is no winner to name and nothing to recommend. */
static bool any_candidate_measured(const struct tune *tu)
{
	for (int a = 1; a < tu->narms; a++)
		if (tu->arms[a].state == NP_TUNE_ARM_OK)
			return true;
	return false;
}

/* The winner of each range of consecutive points */
static void table_winners(const struct tune *tu, FILE *f)
{
	if (!any_candidate_measured(tu)) {
		fprintf(f,
			"# no winners: no candidate was measured (see each candidate's line above)\n");
		return;
	}
	fprintf(f,
		"# winners (the fastest candidate significantly faster than the baseline, else the baseline):\n");
	for (size_t i = 0; i < tu->npts;) {
		size_t j = i;
		char sr[80];
		if (!tu->pts[i].rounds) {
			i++;
			continue;
		}
		while (j + 1 < tu->npts && tu->pts[j + 1].coll == tu->pts[i].coll &&
		       tu->pts[j + 1].winner == tu->pts[i].winner && tu->pts[j + 1].rounds)
			j++;
		size_range(&tu->pts[i], &tu->pts[j], sr, sizeof(sr));
		fprintf(f, "#   %s %s: %s\n", tu->pts[i].coll->name, sr,
			tu->pts[i].winner ? tu->arms[tu->pts[i].winner].cand->label : "baseline");
		i = j + 1;
	}
}

/* The candidate to recommend and its export lines, or why there are none */
static void table_recommended(const struct tune *tu, FILE *f, int W)
{
	char buf[2048], line[4096];
	int rec = recommended(tu);

	if (rec > 0) {
		const struct np_tune_cand *c = tu->arms[rec].cand;
		verdict_ranges(tu, rec, NP_TUNE_FASTER, buf, sizeof(buf));
		snprintf(line, sizeof(line),
			 "recommended: candidate %d is significantly faster at %s, and significantly slower nowhere:",
			 rec, buf);
		np_wrap(f, "# ", "#   ", line, W);
		for (int i = 0; i < c->n; i++) {
			char q[NP_TUNE_VALLEN * 4 + 3];
			np_shell_quote(c->set[i].value, q, sizeof(q));
			fprintf(f, "export %s=%s\n", c->set[i].name, q);
		}
	} else if (!any_candidate_measured(tu)) {
		np_wrap(f, "# ", "#   ",
			"no recommendation and no export lines: no candidate was measured; keep the environment as it is",
			W);
	} else {
		np_wrap(f, "# ", "#   ",
			"no export lines: no candidate is significantly faster somewhere without being slower elsewhere; keep the environment as it is",
			W);
	}
}

static void write_table(const struct tune *tu, FILE *f, double wall)
{
	const struct np_opts *o = tu->o;
	int W = o->wide ? 1 << 20 : 100; /* lines broken at 100 columns unless --wide */

	if (!o->quiet)
		table_head(tu, f, W);
	if (o->wide)
		wide_rows(tu, f);
	else
		narrow_rows(tu, f);
	table_differences(tu, f, W);
	table_winners(tu, f);
	table_recommended(tu, f, W);
	if (!o->quiet)
		fprintf(f, "# %zu of %zu points in %.1f s%s\n", tu->done, tu->npts, wall,
			tu->interrupted ? " (interrupted)"
			: tu->hung      ? " (stopped at a hang)"
					: "");
}

static void json_settings(struct np_json *j, const struct np_tune_cand *c)
{
	np_json_arr_begin(j, "settings");
	for (int i = 0; c && i < c->n; i++) {
		np_json_obj_begin(j, NULL);
		np_json_str(j, "name", c->set[i].name);
		np_json_str(j, "value", c->set[i].value);
		np_json_str(j, "library", np_tune_setting_library(c->set[i].name));
		np_json_obj_end(j);
	}
	np_json_arr_end(j);
}

/* One arm's figures at a point; a candidate's also against the baseline */
static void json_cell(struct np_json *j, const struct np_tune_cell *cl, int a)
{
	np_json_obj_begin(j, NULL);
	np_json_int(j, "arm", a);
	np_json_bool(j, "ran", cl->ran && cl->t_med > 0);
	np_json_num(j, "time", cl->t_med > 0 ? cl->t_med : NAN);
	np_json_num(j, "busbw", cl->t_med > 0 ? cl->busbw : NAN);
	np_json_uint(j, "wrong", cl->wrong);
	np_json_str(j, "algo", cl->algo[0] ? cl->algo : NULL);
	np_json_str(j, "proto", cl->proto[0] ? cl->proto : NULL);
	if (a) {
		np_json_bool(j, "ignored", cl->ignored);
		np_json_bool(j, "same_choice", cl->same_choice);
		np_json_num(j, "speed_ratio", cl->t_med > 0 ? cl->ratio.median : NAN);
		np_json_num(j, "ratio_lo", cl->t_med > 0 ? cl->ratio.lo : NAN);
		np_json_num(j, "ratio_hi", cl->t_med > 0 ? cl->ratio.hi : NAN);
		np_json_str(j, "verdict",
			    cl->t_med > 0 && !cl->ignored ? np_tune_verdict_str(cl->ratio.verdict)
							  : NULL);
	}
	np_json_obj_end(j);
}

/* Each arm: its settings, what became of it, and why */
static void json_arms(struct np_json *j, const struct tune *tu)
{
	np_json_arr_begin(j, "arms");
	for (int a = 0; a < tu->narms; a++) {
		const struct arm *arm = &tu->arms[a];
		np_json_obj_begin(j, NULL);
		np_json_int(j, "index", a);
		np_json_str(j, "label", arm_label(tu, a));
		json_settings(j, arm->cand);
		np_json_str(j, "state", np_tune_arm_state_str(arm->state));
		np_json_str(j, "why", arm->state == NP_TUNE_ARM_OK ? NULL : arm->why);
		np_json_str(j, "evidence",
			    a && arm->state == NP_TUNE_ARM_OK ? arm->evidence : NULL);
		np_json_obj_end(j);
	}
	np_json_arr_end(j);
}

/* Each measured point: its rounds, winner and every arm's cell */
static void json_rows(struct np_json *j, const struct tune *tu)
{
	np_json_arr_begin(j, "rows");
	for (size_t i = 0; i < tu->npts; i++) {
		const struct np_tune_point *p = &tu->pts[i];
		if (!p->rounds)
			continue;
		np_json_obj_begin(j, NULL);
		np_json_str(j, "coll", p->coll->name);
		np_json_uint(j, "size", p->lay.size);
		np_json_int(j, "iters", p->iters);
		np_json_int(j, "rounds", p->rounds);
		np_json_int(j, "winner", p->winner);
		np_json_arr_begin(j, "arms");
		for (int a = 0; a < tu->narms; a++)
			json_cell(j, &p->cells[a], a);
		np_json_arr_end(j);
		np_json_obj_end(j);
	}
	np_json_arr_end(j);
}

/* The candidate to recommend and its export lines, or null */
static void json_recommended(struct np_json *j, const struct tune *tu)
{
	int rec = recommended(tu);

	if (rec > 0) {
		const struct np_tune_cand *c = tu->arms[rec].cand;
		np_json_obj_begin(j, "recommended");
		np_json_int(j, "arm", rec);
		np_json_arr_begin(j, "exports");
		for (int i = 0; i < c->n; i++) {
			char q[NP_TUNE_VALLEN * 4 + 3], line[NP_TUNE_VALLEN * 5 + 80];
			np_shell_quote(c->set[i].value, q, sizeof(q));
			snprintf(line, sizeof(line), "export %s=%s", c->set[i].name, q);
			np_json_str(j, NULL, line);
		}
		np_json_arr_end(j);
		np_json_obj_end(j);
	} else {
		np_json_null(j, "recommended");
	}
}

static void write_json(const struct tune *tu, FILE *f, double wall)
{
	const struct np_opts *o = tu->o;
	struct np_json j;

	np_json_init(&j, f, true);
	np_json_obj_begin(&j, NULL);
	np_json_envelope(&j, NP_TUNE_SCHEMA, NP_TUNE_SCHEMA_VERSION, &tu->run, tu->ops->name);
	np_json_str(&j, "version", PACKAGE_VERSION); /* schema 1's own, beside tool.version */
	np_json_str(&j, "library", tu->arms[0].be.info.library);
	np_json_int(&j, "ranks", tu->w->size);
	np_json_int(&j, "nodes", tu->w->nnodes);
	np_json_bool(&j, "virtual_nodes", tu->w->virtual_nodes);
	np_json_str(&j, "dtype", np_dtype_str(o->dtype));
	np_json_str(&j, "op", np_redop_str(o->op));
	np_json_num(&j, "min_change", o->min_change);
	json_arms(&j, tu);
	json_rows(&j, tu);
	json_recommended(&j, tu);
	np_json_arr_begin(&j, "notes");
	for (int i = 0; i < tu->notes.n; i++)
		np_json_str(&j, NULL, tu->notes.v[i]);
	np_json_arr_end(&j);
	np_json_bool(&j, "interrupted", tu->interrupted);
	np_json_int(&j, "hung", tu->hung);
	np_json_num(&j, "wall_time", wall);
	np_json_obj_end(&j);
	fputc('\n', f);
}

/* Rank 0: the report to --output (or standard output) and --json. */
static int report(struct tune *tu)
{
	const struct np_opts *o = tu->o;
	struct np_outfile of = { 0 }, jf = { 0 };
	struct np_err err = { 0 };
	double wall = np_now_s() - tu->t0;
	int code = 0;

	if (o->output && strcmp(o->output, "-") &&
	    np_outfile_open(&of, o->output, "--output", &err)) {
		np_error("%s", err.msg);
		return NP_EXIT_RUNTIME;
	}
	{
		FILE *out = of.f ? of.f : stdout;
		if (o->format == NP_FMT_JSON)
			write_json(tu, out, wall);
		else
			write_table(tu, out, wall);
	}
	if (of.f && np_outfile_commit(&of, &err)) {
		np_error("%s", err.msg);
		code = NP_EXIT_RUNTIME;
	}
	if (o->json_file) {
		if (np_outfile_open(&jf, o->json_file, "--json", &err)) {
			np_error("%s", err.msg);
			return NP_EXIT_RUNTIME;
		}
		write_json(tu, jf.f, wall);
		if (np_outfile_commit(&jf, &err)) {
			np_error("%s", err.msg);
			code = NP_EXIT_RUNTIME;
		}
	}
	return code;
}

/* Rank 0: the report, the losers and why the run stopped; the exit code */
int tune_report(struct tune *tu, bool baseline_wrong)
{
	int code = report(tu), measured = 0;

	for (int a = 1; a < tu->narms; a++)
		if (tu->arms[a].state == NP_TUNE_ARM_WRONG ||
		    tu->arms[a].state == NP_TUNE_ARM_ERROR || tu->arms[a].state == NP_TUNE_ARM_HUNG)
			np_error("candidate %d (%s) loses: %s", a, tu->arms[a].cand->label,
				 tu->arms[a].why);
	if (tu->interrupted)
		np_error("interrupted by signal %d after %zu of %zu points; the report holds the points that finished",
			 (int)np_signal, tu->done, tu->npts);
	if (tu->hung)
		np_error("the run stopped at candidate %d's hang, after %zu of %zu points: a hung call leaves the GPU and the network in a state not fit to measure; the report holds the points that finished",
			 tu->hung, tu->done, tu->npts);
	if (code)
		return code;
	code = tu->hung          ? NP_EXIT_TIMEOUT
	       : tu->interrupted ? NP_EXIT_INTERRUPTED
	       : baseline_wrong  ? NP_EXIT_WRONG
				 : 0;
	/* every candidate refused: nothing was measured against the
	 * baseline, which is not an answer */
	for (int a = 1; a < tu->narms; a++)
		measured += tu->arms[a].state != NP_TUNE_ARM_REFUSED;
	if (!code && tu->narms > 1 && !measured) {
		np_error(
			"no candidate was measured: the library refused every one (see above); nothing was tuned");
		code = NP_EXIT_USAGE;
	}
	return code;
}
