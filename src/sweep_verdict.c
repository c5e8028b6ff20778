/* SPDX-License-Identifier: MIT */
/* The sweep's verdict, as pure functions of its report: each row against
 * its collective's thresholds, then the whole run (wrong data, the
 * thresholds per collective, an interrupted run), with the sentences and
 * the failing rows as data. No MPI, no printing. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "sweep_verdict.h"

void np_sweep_add_verdict(struct np_sweep_report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	np_notes_vadd(&r->verdict, fmt, ap);
	va_end(ap);
}

static void add_detail(struct np_sweep_report *r, const char *code, const struct np_coll *coll,
		       uint64_t size, double value, double threshold)
{
	if (r->ndetails == r->details_cap) {
		size_t cap = r->details_cap ? r->details_cap * 2 : 16;
		struct np_verdict_detail *n = realloc(r->details, cap * sizeof(*n));
		if (!n)
			return; /* the sentences still say it */
		r->details = n;
		r->details_cap = cap;
	}
	r->details[r->ndetails++] = (struct np_verdict_detail){
		.code = code,
		.coll = coll,
		.size = size,
		.value = value,
		.threshold = threshold,
	};
}

/* The best a row's figure could be within its median's 95% interval:
 * busbw and eff go as 1/time, so their upper end is at the interval's
 * shortest time. A row is below a threshold only when this is below it;
 * a median below it with an interval reaching above is inconclusive. */
static double best_of(const struct np_result *x, double v)
{
	return x->t_ci_lo > 0 && isfinite(x->t_ci_lo) && x->t_ci_lo < x->t_med
		       ? v * x->t_med / x->t_ci_lo
		       : v;
}

/* The figure of a row's fastest batch. A row one of whose batches met a
 * threshold has delivered it at least once: a node that can, and a host
 * whose other work took the rest of the time (a busy host slows every
 * batch that shares its cores, seldom all of them), read alike. Below
 * only when no batch met it. */
static double fastest_of(const struct np_result *x, double v)
{
	return x->t_min > 0 && isfinite(x->t_min) && x->t_min < x->t_med ? v * x->t_med / x->t_min
									 : v;
}

/* 1: met; 0: below (its whole interval and every batch); -1:
 * inconclusive (the median below, the interval or a batch reaching the
 * threshold) */
static int against(const struct np_result *x, double v, double threshold)
{
	if (v >= threshold)
		return 1;
	/* an unsteady row's busbw is a lower bound (its batches were too
	 * short for the steady state): below only when the best the last
	 * lengthening's fall allows is below too (measure.h, floor_rel) */
	if (x->stop == NP_STOP_UNSTEADY)
		return x->floor_rel > 0 && isfinite(v) && best_of(x, v) / x->floor_rel < threshold
			       ? 0
			       : -1;
	return isfinite(v) && (best_of(x, v) >= threshold || fastest_of(x, v) >= threshold) ? -1
											    : 0;
}

/* A judged row against its collective's thresholds (its median's busbw
 * and eff, with their intervals); on one rank busbw is 0 by definition,
 * so --min-busbw is not applied there (a note says so). An inconclusive
 * row is not judged (pass -1), never a fail. */
void np_sweep_row_verdict(const struct np_sweep_report *r, struct np_result *res)
{
	double tb = r->opts->coll_min_busbw[res->coll->id],
	       te = r->opts->coll_min_eff[res->coll->id];
	bool busbw = tb > 0 && r->world->size > 1;
	int vb = 1, ve = 1;

	res->pass = -1;
	if (!res->judged || (!busbw && !(te > 0)))
		return;
	if (busbw)
		vb = against(res, res->busbw, tb);
	if (te > 0)
		ve = isfinite(res->eff) ? against(res, res->eff, te) : 0;
	res->pass = !vb || !ve ? 0 : vb < 0 || ve < 0 ? -1 : 1;
}

/* "from 8 MiB up: allreduce busbw >= 100 GB/s, eff >= 80%; alltoall ..." */
static void judged_add(struct np_sweep_report *r, int c, double busbw, double eff)
{
	size_t n = strlen(r->judged);
	char sz[32];

	if (!busbw && !(eff > 0))
		return;
	if (!n) {
		np_human_size(r->judge_from, sz, sizeof(sz));
		n += (size_t)snprintf(r->judged, sizeof(r->judged), "from %s up: ", sz);
	} else {
		n += (size_t)snprintf(r->judged + n, sizeof(r->judged) - n, "; ");
	}
	if (n >= sizeof(r->judged))
		return;
	n += (size_t)snprintf(r->judged + n, sizeof(r->judged) - n, "%s", np_colls[c].name);
	if (n < sizeof(r->judged) && busbw > 0)
		n += (size_t)snprintf(r->judged + n, sizeof(r->judged) - n, " busbw >= %g GB/s%s",
				      busbw, eff > 0 ? "," : "");
	if (n < sizeof(r->judged) && eff > 0)
		snprintf(r->judged + n, sizeof(r->judged) - n, " eff >= %g%%", eff * 100);
}

double np_sweep_avg_busbw(const struct np_sweep_report *r, const struct np_coll *c)
{
	double bw = 0;
	int n = 0;

	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].coll == c) {
			bw += r->rows[i].busbw;
			n++;
		}
	return n ? bw / n : 0.0;
}

/* nccl-tests' check of its average: below 0.9 x NCCL_TESTS_MIN_BW fails */
static bool nt_min_bw_fails(const struct np_sweep_report *r, const struct np_coll *c)
{
	const struct np_opts *o = r->opts;

	return o->format == NP_FMT_NCCLTESTS && o->nt_min_bw >= 0 &&
	       np_sweep_avg_busbw(r, c) < o->nt_min_bw * 0.9;
}

const char *np_sweep_avg_mark(const struct np_sweep_report *r, const struct np_coll *c)
{
	const struct np_opts *o = r->opts;
	bool busbw = o->coll_min_busbw[c->id] > 0 && r->world->size > 1, inconclusive = false;

	if (nt_min_bw_fails(r, c))
		return "FAILED";
	if (busbw) {
		for (size_t i = 0; i < r->ndetails; i++) {
			const struct np_verdict_detail *d = &r->details[i];
			if (d->coll != c)
				continue;
			if (!strcmp(d->code, "min_busbw") || !strcmp(d->code, "not_judged"))
				return "FAILED";
			inconclusive |= !strcmp(d->code, "inconclusive_busbw");
		}
		return inconclusive ? "INCONCLUSIVE" : "OK";
	}
	return o->format == NP_FMT_NCCLTESTS && o->nt_min_bw >= 0 ? "OK" : NULL;
}

/* Collective c against its --min-busbw and --min-eff: its details, its
 * verdict lines and the exit code they give. */
static void coll_verdict(struct np_sweep_report *r, int c)
{
	double tb = r->opts->coll_min_busbw[c], te = r->opts->coll_min_eff[c];
	const struct np_result *wb = NULL, *we = NULL;
	int judged = 0, nb = 0, ne = 0, unknown = 0, ib = 0, ie = 0;
	bool ran = false;
	char sz[32];

	if (!r->opts->colls[c] || (!(tb > 0) && !(te > 0)))
		return;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct np_result *x = &r->rows[i];
		if (x->coll->id != (enum np_coll_id)c)
			continue;
		ran = true;
		if (!x->judged)
			continue;
		judged++;
		if (tb > 0 && r->world->size > 1 && against(x, x->busbw, tb) < 0) {
			ib++;
			add_detail(r, "inconclusive_busbw", x->coll, x->lay.size, x->busbw, tb);
		} else if (tb > 0 && r->world->size > 1 && !(x->busbw >= tb)) {
			nb++;
			if (!wb || x->busbw < wb->busbw)
				wb = x;
			add_detail(r, "min_busbw", x->coll, x->lay.size, x->busbw, tb);
		}
		if (te > 0 && !(x->eff >= te)) {
			if (!isfinite(x->eff)) {
				unknown++;
				add_detail(r, "eff_unknown", x->coll, x->lay.size, NAN, te);
			} else if (against(x, x->eff, te) < 0) {
				ie++;
				add_detail(r, "inconclusive_eff", x->coll, x->lay.size, x->eff, te);
			} else {
				if (ne++, !we || x->eff < we->eff)
					we = x;
				add_detail(r, "min_eff", x->coll, x->lay.size, x->eff, te);
			}
		}
	}
	if (!ran)
		return; /* interrupted before it, or every size skipped: said elsewhere */
	if (judged)
		judged_add(r, c, tb > 0 && r->world->size > 1 ? tb : 0, te);
	if (!judged) {
		add_detail(r, "not_judged", &np_colls[c], 0, NAN, (double)r->judge_from);
		np_human_size(r->judge_from, sz, sizeof(sz));
		np_sweep_add_verdict(r,
				     "%s: no row at or above --judge-from %s ran, so its thresholds cannot be judged",
				     np_colls[c].name, sz);
	}
	if (wb) {
		np_human_size(wb->lay.size, sz, sizeof(sz));
		np_sweep_add_verdict(r,
				     "%s busbw below --min-busbw %g GB/s at %d of %d judged sizes (lowest %.2f GB/s at %s)",
				     np_colls[c].name, tb, nb, judged, wb->busbw, sz);
	}
	if (we) {
		np_human_size(we->lay.size, sz, sizeof(sz));
		np_sweep_add_verdict(r,
				     "%s eff below --min-eff %g%% at %d of %d judged sizes (lowest %.1f%% at %s)",
				     np_colls[c].name, te * 100, ne, judged, we->eff * 100, sz);
	}
	if (unknown)
		np_sweep_add_verdict(r,
				     "%s eff is unknown (%s) at %d judged sizes, so --min-eff %g%% cannot be met",
				     np_colls[c].name,
				     r->world->size == 1 ? "one rank moves no data over a bus"
							 : "no link rate found",
				     unknown, te * 100);
	if (ib)
		np_sweep_add_verdict(r,
				     "%s busbw below --min-busbw %g GB/s at %d of %d judged sizes, but their 95%% intervals or fastest batches reach it, or their batches were too short for the steady state: inconclusive (more --budget, or a quieter node)",
				     np_colls[c].name, tb, ib, judged);
	if (ie)
		np_sweep_add_verdict(r,
				     "%s eff below --min-eff %g%% at %d of %d judged sizes, but their 95%% intervals or fastest batches reach it, or their batches were too short for the steady state: inconclusive (more --budget, or a quieter node)",
				     np_colls[c].name, te * 100, ie, judged);
	if ((!judged || wb || we || unknown) &&
	    (!r->exit_code || r->exit_code == NP_EXIT_INCONCLUSIVE))
		r->exit_code = NP_EXIT_VERDICT;
	else if ((ib || ie) && !r->exit_code)
		r->exit_code = NP_EXIT_INCONCLUSIVE;
}

void np_sweep_verdict(struct np_sweep_report *r)
{
	uint64_t wrong = 0;

	np_notes_release(&r->verdict);
	r->ndetails = 0;
	r->judged[0] = '\0';
	for (size_t i = 0; i < r->nrows; i++) {
		wrong += r->rows[i].wrong;
		if (r->rows[i].wrong)
			add_detail(r, "data_errors", r->rows[i].coll, r->rows[i].lay.size,
				   (double)r->rows[i].wrong, 0);
	}
	r->exit_code = 0;
	if (wrong) {
		np_sweep_add_verdict(r, "wrong data: %llu wrong elements (exit 2)",
				     (unsigned long long)wrong);
		r->exit_code = NP_EXIT_WRONG;
	}
	for (int c = 0; c < NP_COLL_COUNT; c++)
		coll_verdict(r, c);
	for (int c = 0; c < NP_COLL_COUNT; c++) {
		bool ran = false;
		for (size_t i = 0; i < r->nrows && !ran; i++)
			ran = r->rows[i].coll == &np_colls[c];
		if (!ran || !nt_min_bw_fails(r, &np_colls[c]))
			continue;
		np_sweep_add_verdict(r,
				     "%s average busbw %.2f GB/s is below 0.9 x NCCL_TESTS_MIN_BW %g GB/s (nccl-tests' check of its Avg bus bandwidth)",
				     np_colls[c].name, np_sweep_avg_busbw(r, &np_colls[c]),
				     r->opts->nt_min_bw);
		if (!r->exit_code || r->exit_code == NP_EXIT_INCONCLUSIVE)
			r->exit_code = NP_EXIT_VERDICT;
	}
	if (r->interrupted)
		add_detail(r, "interrupted", NULL, 0, NAN, NAN);
	if (r->interrupted && !r->exit_code)
		r->exit_code = NP_EXIT_INTERRUPTED;
}
