/* SPDX-License-Identifier: MIT */
/* tune's report, on rank 0: one document (src/doc.h) rendered as the
 * table (a line per point and candidate, or a column per candidate with
 * --wide; where each candidate differs from the baseline, the winners,
 * the export lines of the candidate to recommend) and as JSON; the error
 * lines and the exit code. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "doc.h"
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

/* --wide's head: a column per candidate */
static void wide_head(const struct tune *tu, FILE *f)
{
	fprintf(f, "%-14s %10s %6s %11s %9s", "coll", "size", "rounds", "base_us", "base_busbw");
	for (int a = 1; a < tu->narms; a++)
		fprintf(f, "  cand%-30d", a);
	fputc('\n', f);
}

/* --wide: point p's row, size sz */
static void wide_point(const struct tune *tu, const struct np_tune_point *p, const char *sz,
		       FILE *f)
{
	char buf[256], alg[72], both[340];

	fprintf(f, "%-14s %10s %6d %11.2f %9.2f", p->coll->name, sz, p->rounds,
		p->cells[0].t_med * 1e6, p->cells[0].busbw);
	for (int a = 1; a < tu->narms; a++) {
		cell_str(tu, &p->cells[a], a, buf, sizeof(buf), alg, sizeof(alg));
		snprintf(both, sizeof(both), "%s%s%s", buf,
			 alg[0] && !p->cells[a].ignored ? " " : "", p->cells[a].ignored ? "" : alg);
		fprintf(f, "  %-34s", both);
	}
	fputc('\n', f);
}

/* Whether NCCL's choice has a column: the backend told it somewhere */
static bool choice_shown(const struct tune *tu)
{
	for (size_t i = 0; i < tu->npts; i++)
		for (int a = 1; a < tu->narms; a++)
			if (tu->pts[i].cells[a].proto[0])
				return true;
	return false;
}

/* The default's head, 100 columns */
static void narrow_head(bool choice, FILE *f)
{
	fprintf(f, "%-13s %9s %6s %9s %10s %4s  %s%s\n", "coll", "size", "rounds", "base(us)",
		"base busbw", "cand", choice ? "speed [95%]                  " : "speed [95%]",
		choice ? "NCCL's choice" : "");
}

/* The default: point p's lines, one per candidate (the point's figures
 * on its first) */
static void narrow_point(const struct tune *tu, const struct np_tune_point *p, const char *sz,
			 bool choice, FILE *f)
{
	char buf[256], alg[72];

	for (int a = 1; a < tu->narms; a++) {
		cell_str(tu, &p->cells[a], a, buf, sizeof(buf), alg, sizeof(alg));
		if (a == 1)
			fprintf(f, "%-13s %9s %6d %9.2f %10.2f", p->coll->name, sz, p->rounds,
				p->cells[0].t_med * 1e6, p->cells[0].busbw);
		else
			fprintf(f, "%-13s %9s %6s %9s %10s", "", "", "", "", "");
		if (choice && alg[0] && !p->cells[a].ignored)
			fprintf(f, " %4d  %-28s %s\n", a, buf, alg);
		else
			fprintf(f, " %4d  %s\n", a, buf);
	}
}

/* The candidate to recommend, -1 none (src/tune_judge.h) */
static int recommended(const struct tune *tu)
{
	enum np_tune_arm_state st[NP_TUNE_MAX_CANDS + 1];

	arm_states(tu, st);
	return np_tune_recommended(tu->pts, tu->npts, tu->narms, st);
}

/* A line of the table's alone, written by a writer: the node it is */
static struct np_doc *text_line(struct np_doc *parent) { return np_doc_line(parent, "%s", ""); }

/* node's line: text broken at W columns after lead, the lines after the
 * first after indent */
static void wrapped(struct np_doc *node, const char *lead, const char *indent, const char *text,
		    int W)
{
	FILE *f = np_doc_open(node);

	if (f)
		np_wrap(f, lead, indent, text, W);
	np_doc_close(node, f);
}

/* The head's first line: the run */
static void doc_run_line(struct np_doc *top, const struct tune *tu, int W)
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
	wrapped(text_line(top), "# ", "#   ", line, W);
}

/* An arm's settings */
static void doc_settings(struct np_doc *arm, const struct np_tune_cand *c)
{
	struct np_doc *a = np_doc_arr(arm, "settings");

	for (int i = 0; c && i < c->n; i++) {
		struct np_doc *e = np_doc_obj(a, NULL);
		np_doc_str(e, "name", c->set[i].name);
		np_doc_str(e, "value", c->set[i].value);
		np_doc_str(e, "library", np_tune_setting_library(c->set[i].name));
	}
}

/* Each arm: its settings, what became of it, and why; the head's line of
 * each (not with -q) */
static void doc_arms(struct np_doc *top, const struct tune *tu, int W)
{
	struct np_doc *arms = np_doc_arr(top, "arms");

	for (int a = 0; a < tu->narms; a++) {
		const struct arm *arm = &tu->arms[a];
		struct np_doc *e = np_doc_obj(arms, NULL);
		char line[4096];
		np_doc_int(e, "index", a);
		np_doc_str(e, "label", arm_label(tu, a));
		doc_settings(e, arm->cand);
		np_doc_str(e, "state", np_tune_arm_state_str(arm->state));
		np_doc_str(e, "why", arm->state == NP_TUNE_ARM_OK ? NULL : arm->why);
		np_doc_str(e, "evidence", a && arm->state == NP_TUNE_ARM_OK ? arm->evidence : NULL);
		if (tu->o->quiet)
			continue;
		if (!a) {
			np_doc_text(e, "# baseline: the environment as launched");
			continue;
		}
		if (arm->state == NP_TUNE_ARM_OK)
			snprintf(line, sizeof(line), "candidate %d: %s: %s (in effect: %s)", a,
				 arm->cand->label, np_tune_arm_state_str(arm->state),
				 arm->evidence);
		else
			snprintf(line, sizeof(line), "candidate %d: %s: %s: %s", a,
				 arm->cand->label, np_tune_arm_state_str(arm->state), arm->why);
		wrapped(e, "# ", "#   ", line, W);
	}
}

/* How to read the rows (the head's last lines) */
static void doc_legend(struct np_doc *top, const struct tune *tu)
{
	np_doc_line(top,
		    "# each candidate's speed against the baseline: baseline time / its time, median of rounds\n"
		    "# measured side by side, [95%% interval]; faster or slower only when the interval\n"
		    "# excludes 1 and the median is %.0f%% or more from 1 (--min-change)%s",
		    tu->o->min_change * 100,
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

/* The candidate to recommend and its export lines, or null and why
 * there are none */
static void doc_recommended(struct np_doc *top, const struct tune *tu, int W)
{
	char buf[2048], line[4096];
	int rec = recommended(tu);
	struct np_doc *r, *ex;

	if (rec <= 0) {
		wrapped(np_doc_null(top, "recommended"), "# ", "#   ",
			!any_candidate_measured(tu)
				? "no recommendation and no export lines: no candidate was measured; keep the environment as it is"
				: "no export lines: no candidate is significantly faster somewhere without being slower elsewhere; keep the environment as it is",
			W);
		return;
	}
	const struct np_tune_cand *c = tu->arms[rec].cand;
	r = np_doc_obj(top, "recommended");
	verdict_ranges(tu, rec, NP_TUNE_FASTER, buf, sizeof(buf));
	snprintf(line, sizeof(line),
		 "recommended: candidate %d is significantly faster at %s, and significantly slower nowhere:",
		 rec, buf);
	wrapped(r, "# ", "#   ", line, W);
	np_doc_int(r, "arm", rec);
	ex = np_doc_arr(r, "exports");
	for (int i = 0; i < c->n; i++) {
		char q[NP_TUNE_VALLEN * 4 + 3], e[NP_TUNE_VALLEN * 5 + 80];
		np_shell_quote(c->set[i].value, q, sizeof(q));
		snprintf(e, sizeof(e), "export %s=%s", c->set[i].name, q);
		np_doc_text(np_doc_str(ex, NULL, e), "%s", e);
	}
}

/* One arm's figures at a point; a candidate's also against the baseline */
static void doc_cell(struct np_doc *arms, const struct np_tune_cell *cl, int a)
{
	struct np_doc *e = np_doc_obj(arms, NULL);
	bool ran = cl->t_med > 0;

	np_doc_int(e, "arm", a);
	np_doc_bool(e, "ran", cl->ran && ran);
	np_doc_num(e, "time", ran ? cl->t_med : NAN);
	np_doc_num(e, "busbw", ran ? cl->busbw : NAN);
	np_doc_uint(e, "wrong", cl->wrong);
	np_doc_str(e, "algo", cl->algo[0] ? cl->algo : NULL);
	np_doc_str(e, "proto", cl->proto[0] ? cl->proto : NULL);
	if (!a)
		return;
	np_doc_bool(e, "ignored", cl->ignored);
	np_doc_bool(e, "same_choice", cl->same_choice);
	np_doc_num(e, "speed_ratio", ran ? cl->ratio.median : NAN);
	np_doc_num(e, "ratio_lo", ran ? cl->ratio.lo : NAN);
	np_doc_num(e, "ratio_hi", ran ? cl->ratio.hi : NAN);
	np_doc_str(e, "verdict",
		   ran && !cl->ignored ? np_tune_verdict_str(cl->ratio.verdict) : NULL);
}

/* Each measured point: its rounds, winner and every arm's cell; in the
 * table, under the rows' head, the lines of each point whose baseline
 * ran (one per candidate, or one with --wide) */
static void doc_rows(struct np_doc *top, const struct tune *tu)
{
	bool choice = choice_shown(tu);
	struct np_doc *rows, *h = text_line(top);
	FILE *f = np_doc_open(h);

	if (f && tu->o->wide)
		wide_head(tu, f);
	else if (f)
		narrow_head(choice, f);
	np_doc_close(h, f);
	rows = np_doc_arr(top, "rows");
	for (size_t i = 0; i < tu->npts; i++) {
		const struct np_tune_point *p = &tu->pts[i];
		struct np_doc *r, *arms;
		char sz[32];
		if (!p->rounds)
			continue;
		r = np_doc_obj(rows, NULL);
		np_doc_str(r, "coll", p->coll->name);
		np_doc_uint(r, "size", p->lay.size);
		np_doc_int(r, "iters", p->iters);
		np_doc_int(r, "rounds", p->rounds);
		np_doc_int(r, "winner", p->winner);
		arms = np_doc_arr(r, "arms");
		for (int a = 0; a < tu->narms; a++)
			doc_cell(arms, &p->cells[a], a);
		if (!shown(tu, i, sz, sizeof(sz)) || !(f = np_doc_open(r)))
			continue;
		if (tu->o->wide)
			wide_point(tu, p, sz, f);
		else
			narrow_point(tu, p, sz, choice, f);
		np_doc_close(r, f);
	}
}

/* tune's document, which the table and JSON both render: the head (not
 * with -q), the rows, where candidates differ, the winners, the
 * recommendation, the count of points (not with -q) */
static struct np_doc *tune_doc(const struct tune *tu, double wall)
{
	const struct np_opts *o = tu->o;
	int W = o->wide ? 1 << 20 : 100; /* lines broken at 100 columns unless --wide */
	struct np_doc *d = np_doc_new(), *top = np_doc_top(d), *n;
	FILE *f;

	if (!o->quiet)
		doc_run_line(top, tu, W);
	np_doc_str(top, "version", PACKAGE_VERSION); /* schema 1's own, beside tool.version */
	np_doc_str(top, "library", tu->arms[0].be.info.library);
	np_doc_int(top, "ranks", tu->w->size);
	np_doc_int(top, "nodes", tu->w->nnodes);
	np_doc_bool(top, "virtual_nodes", tu->w->virtual_nodes);
	np_doc_str(top, "dtype", np_dtype_str(o->dtype));
	np_doc_str(top, "op", np_redop_str(o->op));
	np_doc_num(top, "min_change", o->min_change);
	doc_arms(top, tu, W);
	n = np_doc_arr(top, "notes");
	for (int i = 0; i < tu->notes.n; i++) {
		struct np_doc *e = np_doc_str(n, NULL, tu->notes.v[i]);
		if (!o->quiet)
			wrapped(e, "# note: ", "#   ", tu->notes.v[i], W);
	}
	if (!o->quiet)
		doc_legend(top, tu);
	doc_rows(top, tu);
	n = text_line(top);
	if ((f = np_doc_open(n))) {
		table_differences(tu, f, W);
		table_winners(tu, f);
	}
	np_doc_close(n, f);
	doc_recommended(top, tu, W);
	np_doc_bool(top, "interrupted", tu->interrupted);
	np_doc_int(top, "hung", tu->hung);
	n = np_doc_num(top, "wall_time", wall);
	if (!o->quiet)
		np_doc_text(n, "# %zu of %zu points in %.1f s%s", tu->done, tu->npts, wall,
			    tu->interrupted ? " (interrupted)"
			    : tu->hung      ? " (stopped at a hang)"
					    : "");
	return d;
}

static void envelope(struct np_json *j, void *arg)
{
	const struct tune *tu = arg;

	np_json_envelope(j, NP_TUNE_SCHEMA, NP_TUNE_SCHEMA_VERSION, &tu->run, tu->ops->name);
}

/* Rank 0: the report to --output (or standard output) and --json. */
static int report(struct tune *tu)
{
	const struct np_opts *o = tu->o;
	struct np_outfile of = { 0 }, jf = { 0 };
	struct np_err err = { 0 };
	struct np_doc *d = tune_doc(tu, np_now_s() - tu->t0);
	int code = 0;

	if (!np_doc_ok(d)) {
		np_doc_free(d);
		np_error("out of memory for the report");
		return NP_EXIT_RUNTIME;
	}
	if (o->output && strcmp(o->output, "-") &&
	    np_outfile_open(&of, o->output, "--output", &err)) {
		np_doc_free(d);
		np_error("%s", err.msg);
		return NP_EXIT_RUNTIME;
	}
	if (o->format == NP_FMT_JSON)
		np_doc_write_json(d, of.f ? of.f : stdout, envelope, tu);
	else
		np_doc_write_table(d, of.f ? of.f : stdout);
	if (of.f && np_outfile_commit(&of, &err)) {
		np_error("%s", err.msg);
		code = NP_EXIT_RUNTIME;
	}
	if (o->json_file && np_outfile_open(&jf, o->json_file, "--json", &err)) {
		np_error("%s", err.msg);
		code = NP_EXIT_RUNTIME;
	} else if (o->json_file) {
		np_doc_write_json(d, jf.f, envelope, tu);
		if (np_outfile_commit(&jf, &err)) {
			np_error("%s", err.msg);
			code = NP_EXIT_RUNTIME;
		}
	}
	np_doc_free(d);
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
