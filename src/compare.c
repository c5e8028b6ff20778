/* SPDX-License-Identifier: MIT */
/* The compare command: two sweeps' JSON reports, A and B, row by row; and
 * a sweep's --baseline, where B is the run in memory (compare_read.c reads
 * both). For each row both have, B's speed against A's (A's time / B's
 * time, the busbw ratio) from the Hodges-Lehmann shift of the log sample
 * times with its Mann-Whitney interval, Bonferroni-corrected over the rows
 * compared; a summary per collective over the bandwidth-bound sizes; exit
 * 1 when B is significantly slower somewhere (the regression gate); with
 * a --max-regression above 0, 6 (inconclusive) where none is but a row's
 * interval reaches a slowdown beyond it: the gate passes only rows it
 * shows within its margin. */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/coll.h"
#include "../common/printable.h"
#include "cmds.h"
#include "compare.h"
#include "compare_judge.h"
#include "compare_read.h"
#include "doc.h"
#include "json.h"
#include "msg.h"
#include "opts.h"
#include "outfile.h"
#include "report.h"
#include "stats.h"
#include "version.h"

static const char *or_unknown(const char *s) { return s ? s : "unknown"; }

static void group_name(char *buf, size_t len, const char *coll, const char *type, const char *redop,
		       long long root, bool inplace, const struct np_cmp_run *a)
{
	int w = snprintf(buf, len, "%s", coll);
	/* the data type and operation only when they tell groups apart */
	if (w > 0 && (size_t)w < len && strcmp(redop, "none") && strcmp(redop, "sum"))
		w += snprintf(buf + w, len - (size_t)w, " %s", redop);
	if (w > 0 && (size_t)w < len && a->dtype && strcmp(type, a->dtype))
		w += snprintf(buf + w, len - (size_t)w, " %s", type);
	if (w > 0 && (size_t)w < len && root > 0)
		w += snprintf(buf + w, len - (size_t)w, " root %lld", root);
	if (w > 0 && (size_t)w < len && inplace)
		snprintf(buf + w, len - (size_t)w, " in place");
}

/* "B is 7.0% +/- 1.0% faster from 64 MiB up; no difference below" */
static void summary_line(char *buf, size_t len, const struct np_cmp_summary *s)
{
	char from[32], below[160] = "";
	int w;

	np_human_size(s->from, from, sizeof(from));
	if (!s->nbelow)
		below[0] = '\0';
	else if (!s->below_faster && !s->below_slower)
		snprintf(below, sizeof(below), "\n    no difference below%s",
			 s->below_few ? " (some rows had too few samples)" : "");
	else
		snprintf(below, sizeof(below),
			 "\n    below: faster at %d, slower at %d of %d sizes", s->below_faster,
			 s->below_slower, s->nbelow);
	if (!s->nrows) {
		snprintf(buf, len, "no bandwidth-bound sizes in common%s", below);
		return;
	}
	if (s->v == NP_CV_FEW) {
		snprintf(buf, len, "too few samples from %s up to tell%s", from, below);
		return;
	}
	if (s->v == NP_CV_NONE) {
		snprintf(buf, len,
			 "no significant difference from %s up (B/A %.3f, 95%% CI %.3f to %.3f)%s",
			 from, s->speed, s->speed_lo, s->speed_hi, below);
		return;
	}
	{
		/* the interval as it is: slower by 1 - hi to 1 - lo, faster by
		 * lo - 1 to hi - 1 (it need not be symmetric about the estimate) */
		double lo =
			s->v == NP_CV_FASTER ? (s->speed_lo - 1) * 100 : (1 - s->speed_hi) * 100;
		double hi =
			s->v == NP_CV_FASTER ? (s->speed_hi - 1) * 100 : (1 - s->speed_lo) * 100;
		w = snprintf(buf, len,
			     "B is %.1f%% to %.1f%% %s from %s up (B/A %.3f, 95%% CI %.3f to %.3f)%s",
			     lo, hi, s->v == NP_CV_FASTER ? "faster" : "slower", from, s->speed,
			     s->speed_lo, s->speed_hi, below);
		(void)w;
	}
}

/* What compare reports: the two runs and their comparison */
struct cmp_doc {
	const struct np_cmp_run *a, *b;
	const struct np_cmp_result *c;
	bool quiet; /* the table without its head */
	int code;
	double min_change;
};

/* s escaped (common/printable.h) in a string of its own; NULL out of memory */
static char *escaped(const char *s)
{
	size_t len = 4 * strlen(s ? s : "") + 1;
	char *e = malloc(len);

	return e ? np_printable(e, len, s) : NULL;
}

/* The table's head: the runs, how they differ, how to read B/A */
static void doc_head(struct np_doc *top, const struct cmp_doc *cd)
{
	char *pa = escaped(cd->a->path), *pb = escaped(cd->b->path),
	     *be = escaped(or_unknown(cd->a->backend));

	if (pa && pb && be)
		np_doc_line(top, "# compare A '%s' and B '%s': %s backend, ranks %lld, nodes %lld",
			    pa, pb, be, cd->a->ranks, cd->a->nodes);
	else
		np_doc_nomem(top);
	free(pa);
	free(pb);
	free(be);
}

static const struct np_doc_col row_cols[] = {
	{ "coll", -13, NULL },  { "size(B)", 12, NULL }, { "A(GB/s)", 9, NULL },
	{ "B(GB/s)", 9, NULL }, { "B/A", 6, NULL },      { "95% CI", 13, NULL },
	{ "samples", 8, NULL }, { "result", 0, "  " },
};

/* A row: its JSON members, and its cells (the group's name, the ratio
 * and its interval, both sample counts); true where the normal
 * approximation stands in for the exact interval with few samples */
static bool doc_row(struct np_doc *rows, const struct np_cmp_pair *p, const struct np_cmp_run *a)
{
	struct np_doc *r = np_doc_row(rows);
	bool have = p->v != NP_CV_FEW;
	/* the normal approximation is poor when one side has few samples */
	bool approx = have && !p->sh.exact && (p->a->nsamples < 10 || p->b->nsamples < 10);
	char name[96];

	np_doc_str(r, "coll", p->a->coll);
	np_doc_uint(r, "size", p->a->size);
	np_doc_str(r, "type", p->a->type);
	np_doc_str(r, "redop", p->a->redop);
	np_doc_bool(r, "inplace", p->a->inplace);
	np_doc_num(r, "busbw_a", p->a->busbw);
	np_doc_num(r, "busbw_b", p->b->busbw);
	np_doc_int(r, "samples_a", p->a->nsamples);
	np_doc_int(r, "samples_b", p->b->nsamples);
	np_doc_num(r, "speed", have ? p->speed : NAN);
	np_doc_num(r, "speed_lo", have ? p->speed_lo : NAN);
	np_doc_num(r, "speed_hi", have ? p->speed_hi : NAN);
	if (have)
		np_doc_bool(r, "exact", p->sh.exact);
	else
		np_doc_null(r, "exact");
	np_doc_bool(r, "bw_bound", p->bw_bound);
	np_doc_str(r, "result", np_cmp_verdict_str(p->v));
	np_doc_bool(r, "regression", p->regression);
	np_doc_bool(r, "undecided", p->undecided);

	group_name(name, sizeof(name), p->a->coll, p->a->type, p->a->redop, p->a->root,
		   p->a->inplace, a);
	np_doc_cell(r, 0, "%s", name);
	np_doc_cell(r, 1, "%llu", (unsigned long long)p->a->size);
	np_doc_cell(r, 2, "%.2f", p->a->busbw);
	np_doc_cell(r, 3, "%.2f", p->b->busbw);
	if (have) {
		np_doc_cell(r, 4, "%.3f", p->speed);
		np_doc_cell(r, 5, "%.3f-%.3f", p->speed_lo, p->speed_hi);
	} else {
		np_doc_cell(r, 4, "-");
		np_doc_cell(r, 5, "-");
	}
	np_doc_cell(r, 6, "%d,%d", p->a->nsamples, p->b->nsamples);
	np_doc_cell(r, 7, "%s%s", p->v == NP_CV_NONE ? "not significant" : np_cmp_verdict_str(p->v),
		    approx ? " *" : "");
	return approx;
}

/* A group's summary over its bandwidth-bound sizes: its members and its
 * line */
static void doc_summary(struct np_doc *sums, const struct np_cmp_summary *s,
			const struct np_cmp_run *a)
{
	char name[96], line[512];
	bool have = s->have && s->v != NP_CV_FEW;
	struct np_doc *g = np_doc_obj(sums, NULL);

	group_name(name, sizeof(name), s->coll, s->type, s->redop, s->root, s->inplace, a);
	summary_line(line, sizeof(line), s);
	np_doc_text(g, "  %s: %s", name, line);
	np_doc_str(g, "coll", s->coll);
	np_doc_str(g, "type", s->type);
	np_doc_str(g, "redop", s->redop);
	np_doc_bool(g, "inplace", s->inplace);
	if (s->nrows)
		np_doc_uint(g, "from_size", s->from);
	else
		np_doc_null(g, "from_size");
	np_doc_num(g, "speed", have ? s->speed : NAN);
	np_doc_num(g, "speed_lo", have ? s->speed_lo : NAN);
	np_doc_num(g, "speed_hi", have ? s->speed_hi : NAN);
	np_doc_str(g, "result", np_cmp_verdict_str(s->v));
	np_doc_str(g, "text", line);
}

/* compare's document, which the table and JSON both render */
static struct np_doc *compare_doc(const struct cmp_doc *cd)
{
	const struct np_cmp_result *c = cd->c;
	struct np_doc *d = np_doc_new(), *top = np_doc_top(d), *diffs, *rows, *sums;
	int napprox = 0;
	size_t noisy = 0;

	if (!cd->quiet)
		doc_head(top, cd);
	np_doc_str(top, "a", cd->a->path);
	np_doc_str(top, "b", cd->b->path);
	np_doc_num(top, "confidence", 1 - NP_CMP_ALPHA);
	np_doc_num(top, "min_change", cd->min_change);
	np_doc_int(top, "rows_compared", c->ncompared);
	diffs = np_doc_arr(top, "differences");
	for (int i = 0; i < c->ndiff; i++) {
		struct np_doc *e = np_doc_str(diffs, NULL, c->diff[i]);
		char *t = cd->quiet ? NULL : escaped(c->diff[i]);
		if (t)
			np_doc_text(e, "# differs: %s", t);
		free(t);
	}
	if (!cd->quiet)
		np_doc_line(top,
			    "# B/A = B's speed over A's (busbw ratio; A's time / B's time), the Hodges-Lehmann estimate\n"
			    "# from the stored sample times, with its 95%% confidence interval (Mann-Whitney),\n"
			    "# Bonferroni-corrected over the %d rows compared",
			    c->ncompared);
	rows = np_doc_table(top, "rows", row_cols, (int)(sizeof(row_cols) / sizeof(row_cols[0])));
	for (size_t i = 0; i < c->np; i++) {
		napprox += doc_row(rows, &c->p[i], cd->a);
		noisy += c->p[i].a->noise || c->p[i].b->noise;
	}
	if (napprox)
		np_doc_line(top, "* the normal approximation: fewer than 10 samples on one side");
	if (c->np && noisy == c->np)
		np_doc_line(top,
			    "# every row compared was noise-bound in A or B: the runs' noise hides differences\n"
			    "# smaller than it; for an A/B of settings use 'nccl-probe tune', which interleaves them");
	np_doc_line(top, "\nsummary (bandwidth-bound sizes; 95%% CI, Bonferroni over %d):", c->ns);
	sums = np_doc_arr(top, "summary");
	for (int g = 0; g < c->ns; g++)
		doc_summary(sums, &c->sum[g], cd->a);
	np_doc_int(top, "exit_code", cd->code);
	return d;
}

static void envelope(struct np_json *j, void *rec)
{
	np_json_envelope(j, NP_COMPARE_SCHEMA, NP_COMPARE_SCHEMA_VERSION, rec, NULL);
}

/* The report in the format asked: false out of memory */
static bool report(FILE *f, const struct cmp_doc *cd, bool json, const struct np_run_record *rec)
{
	return np_doc_render(compare_doc(cd), f, json, envelope, (void *)rec);
}

/* A sweep report that compare can read: the --baseline of a sweep,
 * checked before the sweep runs. */
enum np_status np_compare_check(const char *path, struct np_err *err)
{
	struct np_cmp_run r;
	enum np_status st = np_cmp_run_read(&r, path, err);

	np_cmp_run_free(&r);
	return st;
}

/* How to compare and where the result goes */
struct cargs {
	double max_regression, min_change;
	enum np_format format;
	bool quiet;
	const char *output; /* "-" or NULL: standard output */
	FILE *to;           /* the table goes here when given */
	const struct np_run_record *rec;
};

/* Each regression, one error line: NP_EXIT_VERDICT when there is one;
 * else each row the gate's margin cannot pass (undecided), one line:
 * NP_EXIT_INCONCLUSIVE, never a pass */
static int name_regressions(const struct np_cmp_pair *p, size_t np, double max_regression)
{
	int code = NP_EXIT_OK;

	for (size_t i = 0; i < np; i++)
		if (p[i].regression) {
			char size[32];
			np_human_size(p[i].a->size, size, sizeof(size));
			np_error("regression: %s at %s: B/A speed %.3f (95%% CI %.3f to %.3f), slower than A by more than %g%%",
				 p[i].a->coll, size, p[i].speed, p[i].speed_lo, p[i].speed_hi,
				 max_regression * 100);
			code = NP_EXIT_VERDICT;
		}
	for (size_t i = 0; i < np && code != NP_EXIT_VERDICT; i++)
		if (p[i].undecided) {
			char size[32];
			np_human_size(p[i].a->size, size, sizeof(size));
			if (p[i].v == NP_CV_FEW)
				np_warn("inconclusive: %s at %s: not compared (sample times: A %d, B %d, at least %d each), so not shown within %g%%; measure longer (--budget)",
					p[i].a->coll, size, p[i].a->nsamples, p[i].b->nsamples,
					NP_CMP_MIN_SAMPLES, max_regression * 100);
			else
				np_warn("inconclusive: %s at %s: B/A speed %.3f (95%% CI %.3f to %.3f) may be slower than A by more than %g%%; measure longer (--budget) or on a quieter fabric",
					p[i].a->coll, size, p[i].speed, p[i].speed_lo,
					p[i].speed_hi, max_regression * 100);
			code = NP_EXIT_INCONCLUSIVE;
		}
	return code;
}

/* The notes of a comparison: rows not compared, how A and B differ */
static void compare_notes(const struct np_cmp_run *run, const struct np_cmp_pair *p, size_t np,
			  int ncompared, char (*diff)[256], int ndiff)
{
	size_t only_a = run[0].nrows - np, only_b = run[1].nrows - np;

	if (only_a || only_b)
		np_note("%zu row(s) only in A and %zu only in B are not compared", only_a, only_b);
	for (int i = 0; i < ndiff; i++)
		np_note("A and B differ: %s", diff[i]);
	if (ncompared < (int)np)
		np_note("%d of %zu rows have fewer than %d sample times in A or B%s; they are not compared",
			(int)np - ncompared, np, NP_CMP_MIN_SAMPLES,
			p[0].a->nsamples == 0 || p[0].b->nsamples == 0
				? " (reports without \"sample_times\" have none)"
				: "");
}

/* Two runs read, A and B, compared and the result written: compare's
 * exit status */
static int compare_runs(const struct np_cmp_run *run, const struct cargs *ca)
{
	struct np_err err = { 0 };
	struct np_cmp_result c;
	char why[256];
	int code;
	struct np_outfile out;

	if (np_cmp_incomparable(&run[0], &run[1], why, sizeof(why))) {
		np_error("cannot compare '%s' and '%s': %s; compare runs of the same world, backend and data type",
			 run[0].path, run[1].path, why);
		return NP_EXIT_USAGE;
	}
	if (np_cmp_compare(&run[0], &run[1], ca->min_change, ca->max_regression, &c)) {
		np_error("out of memory for the comparison");
		code = NP_EXIT_RUNTIME;
		goto out_free;
	}
	if (!c.np) {
		np_error("cannot compare '%s' and '%s': no collective and size in common; run B with A's --coll and --sweep",
			 run[0].path, run[1].path);
		code = NP_EXIT_USAGE;
		goto out_free;
	}
	if (!ca->quiet)
		compare_notes(run, c.p, c.np, c.ncompared, c.diff, c.ndiff);
	code = name_regressions(c.p, c.np, ca->max_regression);
	{
		const struct cmp_doc cd = { .a = &run[0],
					    .b = &run[1],
					    .c = &c,
					    .quiet = ca->quiet,
					    .code = code,
					    .min_change = ca->min_change };
		FILE *f = ca->to;
		if (!f && np_outfile_open(&out, ca->output ? ca->output : "-", "--output", &err)) {
			np_error("%s", err.msg);
			code = np_status_exit(err.status);
			goto out_free;
		}
		if (!report(f ? f : out.f, &cd, !f && ca->format == NP_FMT_JSON, ca->rec)) {
			np_error("out of memory for the comparison's report");
			code = NP_EXIT_RUNTIME;
		}
		if (f)
			goto out_free;
	}
	if (np_outfile_commit(&out, &err)) {
		np_error("%s", err.msg);
		code = np_status_exit(err.status);
	}
out_free:
	np_cmp_result_release(&c);
	return code;
}

int np_compare_report(const char *baseline, const struct np_sweep_report *rep, const char *label,
		      double max_regression, double min_change, bool quiet, FILE *to)
{
	const struct cargs ca = { .max_regression = max_regression,
				  .min_change = min_change,
				  .format = NP_FMT_TABLE,
				  .quiet = quiet,
				  .to = to };
	struct np_err err = { 0 };
	struct np_cmp_run run[2];
	int code;

	memset(run, 0, sizeof(run));
	if (np_cmp_run_read(&run[0], baseline, &err) ||
	    np_cmp_run_from_report(&run[1], rep, label, &err)) {
		np_error("%s", err.msg);
		code = np_status_exit(err.status);
	} else {
		code = compare_runs(run, &ca);
	}
	np_cmp_run_free(&run[0]);
	np_cmp_run_free(&run[1]);
	return code;
}

int cmd_compare(struct np_run *run)
{
	const struct np_opts *o = &run->o;
	const struct cargs ca = { .max_regression = o->max_regression,
				  .min_change = o->min_change,
				  .format = o->format,
				  .quiet = o->quiet,
				  .output = o->output,
				  .rec = &run->rec };
	struct np_err err = { 0 };
	struct np_cmp_run r[2];
	int code = NP_EXIT_OK;

	if (o->format == NP_FMT_CSV) {
		np_error("compare has no CSV output; use --format table or --format json");
		return NP_EXIT_USAGE;
	}
	memset(r, 0, sizeof(r));
	for (int i = 0; i < 2 && !code; i++)
		if (np_cmp_run_read(&r[i], o->files[i], &err)) {
			np_error("%s", err.msg);
			code = np_status_exit(err.status);
		}
	if (!code)
		code = compare_runs(r, &ca);
	np_cmp_run_free(&r[0]);
	np_cmp_run_free(&r[1]);
	return code;
}
