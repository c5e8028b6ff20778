/* SPDX-License-Identifier: MIT */
/* Compare's judging (compare_judge.h): B's speed over A's per row from
 * the Hodges-Lehmann shift of the log sample times with its Mann-Whitney
 * interval, Bonferroni-corrected over the rows compared; a summary per
 * collective over the bandwidth-bound sizes. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "compare_judge.h"

const char *np_cmp_verdict_str(enum np_cmp_verdict v)
{
	switch (v) {
	case NP_CV_NONE: return "no significant difference";
	case NP_CV_FASTER: return "faster";
	case NP_CV_SLOWER: return "slower";
	case NP_CV_FEW: return "too few samples";
	}
	return "unknown";
}

static const char *or_unknown(const char *s) { return s ? s : "unknown"; }

/* Runs that cannot be compared: NULL or the reason. */
const char *np_cmp_incomparable(const struct np_cmp_run *a, const struct np_cmp_run *b, char *buf,
				size_t len)
{
	if (a->ranks != b->ranks)
		snprintf(buf, len, "A ran on %lld ranks and B on %lld", a->ranks, b->ranks);
	else if (a->nodes != b->nodes)
		snprintf(buf, len, "A ran on %lld nodes and B on %lld", a->nodes, b->nodes);
	else if (!a->backend || !b->backend || strcmp(a->backend, b->backend))
		snprintf(buf, len, "A ran on the %s backend and B on the %s backend",
			 or_unknown(a->backend), or_unknown(b->backend));
	else if (a->dtype && b->dtype && strcmp(a->dtype, b->dtype))
		snprintf(buf, len, "A's data type is %.30s and B's %.30s", a->dtype, b->dtype);
	else
		return NULL;
	return buf;
}

static void speed_of(const struct np_shift *sh, double *s, double *lo, double *hi)
{
	*s = exp(-sh->est);
	*lo = exp(-sh->hi); /* exp(-inf) = 0 */
	*hi = exp(-sh->lo);
}

/* Faster or slower: the interval excludes 1 and the estimate is at least
 * min_change away from it. Two runs of the same settings on one machine
 * differ by a few percent (its load, its clocks, where the buffers fell):
 * each run's interval holds its own noise, not the drift between runs. */
static enum np_cmp_verdict verdict_of(double speed, double lo, double hi, double min_change)
{
	if (hi < 1 && speed <= 1 - min_change)
		return NP_CV_SLOWER;
	if (lo > 1 && speed >= 1 + min_change)
		return NP_CV_FASTER;
	return NP_CV_NONE;
}

/* The bandwidth-bound rows: the reports' "judged" (the sizes the sweep's
 * verdict judges: --judge-from, or the largest quarter of its sizes),
 * in both runs; without it, sizes from the larger of the two judge_from;
 * without that, the largest quarter of the group's common sizes. The
 * pairs are in key order: a group's sizes are contiguous and ascending. */
void np_cmp_mark_bw_bound(struct np_cmp_pair *p, size_t np, const struct np_cmp_run *a,
			  const struct np_cmp_run *b)
{
	uint64_t from = a->judge_from > b->judge_from ? a->judge_from : b->judge_from;

	for (size_t g = 0, end; g < np; g = end) {
		for (end = g + 1; end < np && !np_cmp_row_group(p[g].a, p[end].a); end++)
			;
		for (size_t i = g; i < end; i++) {
			if (p[i].a->judged >= 0 && p[i].b->judged >= 0)
				p[i].bw_bound = p[i].a->judged && p[i].b->judged;
			else if (from)
				p[i].bw_bound = p[i].a->size >= from;
			else
				p[i].bw_bound = end - 1 - i < (end - g + 3) / 4;
		}
	}
}

int np_cmp_summarize(struct np_cmp_pair *p, size_t np, struct np_cmp_summary *sum,
		     double min_change)
{
	int ns = 0;
	size_t *first = calloc(np + 1, sizeof(*first));

	if (!first)
		return -1;
	for (size_t i = 0; i < np; i++) {
		struct np_cmp_summary *s = &sum[ns - 1];
		if (!ns || np_cmp_row_group(p[first[ns - 1]].a, p[i].a)) {
			s = &sum[ns];
			first[ns++] = i;
			memset(s, 0, sizeof(*s));
			s->coll = p[i].a->coll;
			s->type = p[i].a->type;
			s->redop = p[i].a->redop;
			s->root = p[i].a->root;
			s->inplace = p[i].a->inplace;
			s->from = UINT64_MAX;
		}
		if (p[i].bw_bound) {
			s->nrows++;
			if (p[i].a->size < s->from)
				s->from = p[i].a->size;
		} else {
			s->nbelow++;
			s->below_faster += p[i].v == NP_CV_FASTER;
			s->below_slower += p[i].v == NP_CV_SLOWER;
			s->below_few += p[i].v == NP_CV_FEW;
		}
	}
	first[ns] = np;
	/* one common shift over each group's bandwidth-bound rows (their
	 * pairs pooled within rows), Bonferroni over the groups */
	for (int g = 0; g < ns; g++) {
		struct np_shift_stratum *st = calloc((size_t)sum[g].nrows + 1, sizeof(*st));
		int n = 0;
		if (!st) {
			free(first);
			return -1;
		}
		for (size_t i = first[g]; i < first[g + 1]; i++)
			if (p[i].bw_bound && p[i].v != NP_CV_FEW)
				st[n++] =
					(struct np_shift_stratum){ p[i].a->logt, p[i].a->nsamples,
								   p[i].b->logt, p[i].b->nsamples };
		sum[g].v = NP_CV_FEW;
		if (n) {
			sum[g].have = true;
			np_shift_compute(st, n, NP_CMP_ALPHA / ns, &sum[g].sh);
			speed_of(&sum[g].sh, &sum[g].speed, &sum[g].speed_lo, &sum[g].speed_hi);
			sum[g].v = isinf(sum[g].sh.lo) ? NP_CV_FEW
						       : verdict_of(sum[g].speed, sum[g].speed_lo,
								    sum[g].speed_hi, min_change);
		}
		free(st);
	}
	free(first);
	return ns;
}

/* The rows of A and B with the same key, merged from their sorted rows */
size_t np_cmp_pair_rows(const struct np_cmp_run *a, const struct np_cmp_run *b,
			struct np_cmp_pair *p)
{
	size_t np = 0;

	for (size_t i = 0, k = 0; i < a->nrows && k < b->nrows;) {
		int c = np_cmp_row_key(a->sorted[i], b->sorted[k]);
		if (c < 0) {
			i++;
		} else if (c > 0) {
			k++;
		} else {
			p[np].a = a->sorted[i++];
			p[np].b = b->sorted[k++];
			np++;
		}
	}
	return np;
}

/* B's fastest batch against A's median time, as a B/A speed. A B that
 * delivered A's speed within a margin in one batch can deliver it; a
 * slowdown in every other batch is a busy host's as much as a slow
 * node's (compare's samples are sorted: logt[0] is the fastest). */
static double fastest_speed(const struct np_cmp_pair *p)
{
	int m = p->a->nsamples;
	double amed = m % 2 ? p->a->logt[m / 2] : (p->a->logt[m / 2 - 1] + p->a->logt[m / 2]) / 2;

	return exp(amed - p->b->logt[0]);
}

/* Each pair's shift, speed and verdict, Bonferroni-corrected over the
 * pairs with enough samples on both sides; returns how many those are */
int np_cmp_judge_pairs(struct np_cmp_pair *p, size_t np, double min_change, double max_regression)
{
	int ncompared = 0;

	for (size_t i = 0; i < np; i++)
		if (p[i].a->nsamples >= NP_CMP_MIN_SAMPLES &&
		    p[i].b->nsamples >= NP_CMP_MIN_SAMPLES)
			ncompared++;
	for (size_t i = 0; i < np; i++) {
		struct np_shift_stratum s = { p[i].a->logt, p[i].a->nsamples, p[i].b->logt,
					      p[i].b->nsamples };
		p[i].v = NP_CV_FEW;
		p[i].regression = false;
		/* a row not compared is one a margin cannot pass either */
		p[i].undecided = max_regression > 0;
		if (s.m < NP_CMP_MIN_SAMPLES || s.n < NP_CMP_MIN_SAMPLES)
			continue;
		np_shift_compute(&s, 1, NP_CMP_ALPHA / ncompared, &p[i].sh);
		if (isinf(p[i].sh.lo))
			continue;
		speed_of(&p[i].sh, &p[i].speed, &p[i].speed_lo, &p[i].speed_hi);
		p[i].v = verdict_of(p[i].speed, p[i].speed_lo, p[i].speed_hi, min_change);
		p[i].regression = p[i].v == NP_CV_SLOWER && p[i].speed_hi < 1 - max_regression;
		/* with a margin, a regression is beyond it in every batch
		 * of B: one batch within it makes the row undecided */
		if (p[i].regression && max_regression > 0 &&
		    fastest_speed(&p[i]) >= 1 - max_regression)
			p[i].regression = false;
		/* a tolerance is a margin the gate passes only when the
		 * interval shows the row within it; at 0 the gate is the
		 * significance test alone (no interval excludes every
		 * slowdown) */
		p[i].undecided = max_regression > 0 && !p[i].regression &&
				 p[i].speed_lo < 1 - max_regression;
	}
	return ncompared;
}

/* Differences that do not prevent a comparison but may explain one:
 * library versions and NCCL_* variables, one line each in OUT; n returned. */
static int differences(const struct np_cmp_run *a, const struct np_cmp_run *b, char (*out)[256],
		       int cap)
{
	static const struct {
		const char *what;
		size_t off;
	} fields[] = {
		{ "library", offsetof(struct np_cmp_run, library) },
		{ "runtime", offsetof(struct np_cmp_run, runtime) },
		{ "MPI", offsetof(struct np_cmp_run, mpi) },
		{ "nccl-probe version", offsetof(struct np_cmp_run, version) },
	};
	int n = 0;

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]) && n < cap; i++) {
		const char *x = *(const char *const *)((const char *)a + fields[i].off);
		const char *y = *(const char *const *)((const char *)b + fields[i].off);
		if ((x || y) && (!x || !y || strcmp(x, y)))
			snprintf(out[n++], 256, "%s: A '%.100s', B '%.100s'", fields[i].what,
				 x ? x : "none", y ? y : "none");
	}
	for (int side = 0; side < 2; side++) {
		const struct np_cmp_run *e = side ? b : a, *other = side ? a : b;
		for (size_t i = 0; i < e->nenv && n < cap; i++) {
			const char *key = e->env[i].key, *val = e->env[i].val,
				   *oval = np_cmp_run_env(other, key);
			if (side && oval) /* both set: reported from A's side */
				continue;
			if (oval && val && !strcmp(val, oval))
				continue;
			if (side)
				snprintf(out[n++], 256, "%.60s: A unset, B '%.100s'", key,
					 val ? val : "");
			else if (oval)
				snprintf(out[n++], 256, "%.60s: A '%.80s', B '%.80s'", key,
					 val ? val : "", oval);
			else
				snprintf(out[n++], 256, "%.60s: A '%.100s', B unset", key,
					 val ? val : "");
		}
	}
	return n;
}

/* The whole comparison of A and B: the pairs, judged, marked and summed
 * up, and the differences between the runs */
enum np_status np_cmp_compare(const struct np_cmp_run *a, const struct np_cmp_run *b,
			      double min_change, double max_regression, struct np_cmp_result *c)
{
	memset(c, 0, sizeof(*c));
	c->p = calloc(a->nrows + 1, sizeof(*c->p));
	c->diff = calloc(NP_CMP_MAX_DIFF, sizeof(*c->diff));
	c->sum = calloc(a->nrows + 1, sizeof(*c->sum));
	if (!c->p || !c->diff || !c->sum)
		return NP_ENOMEM;
	c->np = np_cmp_pair_rows(a, b, c->p);
	if (!c->np)
		return NP_OK;
	c->ndiff = differences(a, b, c->diff, NP_CMP_MAX_DIFF);
	c->ncompared = np_cmp_judge_pairs(c->p, c->np, min_change, max_regression);
	np_cmp_mark_bw_bound(c->p, c->np, a, b);
	if ((c->ns = np_cmp_summarize(c->p, c->np, c->sum, min_change)) < 0)
		return NP_ENOMEM;
	return NP_OK;
}

void np_cmp_result_release(struct np_cmp_result *c)
{
	free(c->sum);
	free(c->diff);
	free(c->p);
	memset(c, 0, sizeof(*c));
}
