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

static void report_table(FILE *f, const struct np_cmp_run *a, const struct np_cmp_run *b,
			 const struct np_cmp_pair *p, size_t np, int ncompared,
			 const struct np_cmp_summary *sum, int ns, char (*diff)[256], int ndiff,
			 bool quiet)
{
	int napprox = 0;

	if (!quiet) {
		/* what came from a file or the command line is printed escaped */
		fputs("# compare A '", f);
		np_fputs_printable(f, a->path);
		fputs("' and B '", f);
		np_fputs_printable(f, b->path);
		fputs("': ", f);
		np_fputs_printable(f, or_unknown(a->backend));
		fprintf(f, " backend, ranks %lld, nodes %lld\n", a->ranks, a->nodes);
		for (int i = 0; i < ndiff; i++) {
			fputs("# differs: ", f);
			np_fputs_printable(f, diff[i]);
			fputs("\n", f);
		}
		fprintf(f,
			"# B/A = B's speed over A's (busbw ratio; A's time / B's time), the Hodges-Lehmann estimate\n"
			"# from the stored sample times, with its 95%% confidence interval (Mann-Whitney),\n"
			"# Bonferroni-corrected over the %d rows compared\n",
			ncompared);
	}
	fprintf(f, "%-13s %12s %9s %9s %6s %13s %8s  %s\n", "coll", "size(B)", "A(GB/s)", "B(GB/s)",
		"B/A", "95% CI", "samples", "result");
	for (size_t i = 0; i < np; i++) {
		char name[96], ci[40] = "-", ratio[16] = "-", n[24];
		group_name(name, sizeof(name), p[i].a->coll, p[i].a->type, p[i].a->redop,
			   p[i].a->root, p[i].a->inplace, a);
		if (p[i].v != NP_CV_FEW) {
			snprintf(ratio, sizeof(ratio), "%.3f", p[i].speed);
			snprintf(ci, sizeof(ci), "%.3f-%.3f", p[i].speed_lo, p[i].speed_hi);
		}
		snprintf(n, sizeof(n), "%d,%d", p[i].a->nsamples, p[i].b->nsamples);
		/* the normal approximation is poor when one side has few samples */
		{
			bool approx = p[i].v != NP_CV_FEW && !p[i].sh.exact &&
				      (p[i].a->nsamples < 10 || p[i].b->nsamples < 10);
			napprox += approx;
			fprintf(f, "%-13s %12llu %9.2f %9.2f %6s %13s %8s  %s%s\n", name,
				(unsigned long long)p[i].a->size, p[i].a->busbw, p[i].b->busbw,
				ratio, ci, n,
				p[i].v == NP_CV_NONE ? "not significant"
						     : np_cmp_verdict_str(p[i].v),
				approx ? " *" : "");
		}
	}
	if (napprox)
		fprintf(f, "* the normal approximation: fewer than 10 samples on one side\n");
	{
		size_t noisy = 0;
		for (size_t i = 0; i < np; i++)
			noisy += p[i].a->noise || p[i].b->noise;
		if (np && noisy == np)
			fprintf(f,
				"# every row compared was noise-bound in A or B: the runs' noise hides differences\n"
				"# smaller than it; for an A/B of settings use 'nccl-probe tune', which interleaves them\n");
	}
	fprintf(f, "\nsummary (bandwidth-bound sizes; 95%% CI, Bonferroni over %d):\n", ns);
	for (int g = 0; g < ns; g++) {
		char name[96], line[512];
		group_name(name, sizeof(name), sum[g].coll, sum[g].type, sum[g].redop, sum[g].root,
			   sum[g].inplace, a);
		summary_line(line, sizeof(line), &sum[g]);
		fprintf(f, "  %s: %s\n", name, line);
	}
}

static void json_num_or_null(struct np_json *j, const char *key, bool ok, double v)
{
	if (ok && isfinite(v))
		np_json_num(j, key, v);
	else
		np_json_null(j, key);
}

static void report_json(FILE *f, const struct np_cmp_run *a, const struct np_cmp_run *b,
			const struct np_cmp_pair *p, size_t np, int ncompared,
			const struct np_cmp_summary *sum, int ns, char (*diff)[256], int ndiff,
			int code, double min_change, const struct np_run_record *rec)
{
	struct np_json j;

	np_json_init(&j, f, true);
	np_json_obj_begin(&j, NULL);
	np_json_envelope(&j, NP_COMPARE_SCHEMA, NP_COMPARE_SCHEMA_VERSION, rec, NULL);
	np_json_str(&j, "a", a->path);
	np_json_str(&j, "b", b->path);
	np_json_num(&j, "confidence", 1 - NP_CMP_ALPHA);
	np_json_num(&j, "min_change", min_change);
	np_json_int(&j, "rows_compared", ncompared);
	np_json_arr_begin(&j, "differences");
	for (int i = 0; i < ndiff; i++)
		np_json_str(&j, NULL, diff[i]);
	np_json_arr_end(&j);
	np_json_arr_begin(&j, "rows");
	for (size_t i = 0; i < np; i++) {
		bool have = p[i].v != NP_CV_FEW;
		np_json_obj_begin(&j, NULL);
		np_json_str(&j, "coll", p[i].a->coll);
		np_json_uint(&j, "size", p[i].a->size);
		np_json_str(&j, "type", p[i].a->type);
		np_json_str(&j, "redop", p[i].a->redop);
		np_json_bool(&j, "inplace", p[i].a->inplace);
		json_num_or_null(&j, "busbw_a", true, p[i].a->busbw);
		json_num_or_null(&j, "busbw_b", true, p[i].b->busbw);
		np_json_int(&j, "samples_a", p[i].a->nsamples);
		np_json_int(&j, "samples_b", p[i].b->nsamples);
		json_num_or_null(&j, "speed", have, p[i].speed);
		json_num_or_null(&j, "speed_lo", have, p[i].speed_lo);
		json_num_or_null(&j, "speed_hi", have, p[i].speed_hi);
		if (have)
			np_json_bool(&j, "exact", p[i].sh.exact);
		else
			np_json_null(&j, "exact");
		np_json_bool(&j, "bw_bound", p[i].bw_bound);
		np_json_str(&j, "result", np_cmp_verdict_str(p[i].v));
		np_json_bool(&j, "regression", p[i].regression);
		np_json_bool(&j, "undecided", p[i].undecided);
		np_json_obj_end(&j);
	}
	np_json_arr_end(&j);
	np_json_arr_begin(&j, "summary");
	for (int g = 0; g < ns; g++) {
		char line[512];
		bool have = sum[g].have && sum[g].v != NP_CV_FEW;
		summary_line(line, sizeof(line), &sum[g]);
		np_json_obj_begin(&j, NULL);
		np_json_str(&j, "coll", sum[g].coll);
		np_json_str(&j, "type", sum[g].type);
		np_json_str(&j, "redop", sum[g].redop);
		np_json_bool(&j, "inplace", sum[g].inplace);
		if (sum[g].nrows)
			np_json_uint(&j, "from_size", sum[g].from);
		else
			np_json_null(&j, "from_size");
		json_num_or_null(&j, "speed", have, sum[g].speed);
		json_num_or_null(&j, "speed_lo", have, sum[g].speed_lo);
		json_num_or_null(&j, "speed_hi", have, sum[g].speed_hi);
		np_json_str(&j, "result", np_cmp_verdict_str(sum[g].v));
		np_json_str(&j, "text", line);
		np_json_obj_end(&j);
	}
	np_json_arr_end(&j);
	np_json_int(&j, "exit_code", code);
	np_json_obj_end(&j);
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
	if (ca->to) {
		report_table(ca->to, &run[0], &run[1], c.p, c.np, c.ncompared, c.sum, c.ns, c.diff,
			     c.ndiff, ca->quiet);
		goto out_free;
	}
	if (np_outfile_open(&out, ca->output ? ca->output : "-", "--output", &err)) {
		np_error("%s", err.msg);
		code = np_status_exit(err.status);
		goto out_free;
	}
	if (ca->format == NP_FMT_JSON)
		report_json(out.f, &run[0], &run[1], c.p, c.np, c.ncompared, c.sum, c.ns, c.diff,
			    c.ndiff, code, ca->min_change, ca->rec);
	else
		report_table(out.f, &run[0], &run[1], c.p, c.np, c.ncompared, c.sum, c.ns, c.diff,
			     c.ndiff, ca->quiet);
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
