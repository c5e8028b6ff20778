/* SPDX-License-Identifier: MIT */
/* The measurement engine (src/measure.c) on a stub backend: run() returns
 * planted per-iteration times from a table and advances a planted clock by
 * the batch's time, so the stopping rules (converged, noise-bound, budget,
 * fixed iterations) are asserted exactly, on any host, in one process on
 * MPI_COMM_SELF. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "../../src/measure.h"
#include "tap.h"

/* The stub: times[] per iteration, taken in turn by every run() (check,
 * warm-up, the calibration batches and the samples alike). */
static struct {
	const double *times;
	int ntimes, next;
	int runs, prepares, checks;
	int last_iters;
	uint64_t wrong;
	double clock;   /* seconds: the planted clock */
	int stop_after; /* set the stop flag after this many runs, 0 never */
	volatile sig_atomic_t *stop;
} stub;

static double stub_clock(void) { return stub.clock; }

static enum np_status stub_prepare(struct np_backend *be, const struct np_bench *b)
{
	stub.prepares++;
	return NP_OK;
}

static enum np_status stub_run(struct np_backend *be, const struct np_bench *b, int iters,
			       double *seconds)
{
	double t = stub.times[stub.next++ % stub.ntimes] * iters;

	stub.runs++;
	stub.last_iters = iters;
	stub.clock += t;
	*seconds = t;
	if (stub.stop_after && stub.runs >= stub.stop_after)
		*stub.stop = 1;
	return NP_OK;
}

static enum np_status stub_check(struct np_backend *be, const struct np_bench *b, uint64_t *wrong)
{
	stub.checks++;
	*wrong = stub.wrong;
	return NP_OK;
}

static const struct np_backend_ops stub_ops = {
	.name = "stub",
	.prepare = stub_prepare,
	.run = stub_run,
	.check = stub_check,
};

static _Noreturn void stub_fail(void *arg, enum np_status st)
{
	printf("Bail out! the engine reported a failed step (%d)\n", (int)st);
	exit(1);
}

static struct np_backend be;
static struct np_opts opts;
static struct np_meas meas;
static struct np_bench bench;
static double samples[NP_MEAS_MAX_SAMPLES], sorted[NP_MEAS_MAX_SAMPLES], own[NP_MEAS_MAX_SAMPLES];

/* A fresh engine and stub: --iters auto, no check, no warm-up, budget
 * seconds of timed samples; times[] planted. */
static void setup(const double *times, int ntimes, double budget)
{
	memset(&stub, 0, sizeof(stub));
	stub.times = times;
	stub.ntimes = ntimes;
	memset(&opts, 0, sizeof(opts));
	memset(&be, 0, sizeof(be));
	be.ops = &stub_ops;
	be.world.comm = MPI_COMM_SELF;
	be.world.rank = 0;
	be.world.size = 1;
	be.world.device = -1;
	memset(&meas, 0, sizeof(meas));
	meas.be = &be;
	meas.o = &opts;
	meas.budget = budget;
	meas.ci_target = 0.01;
	meas.stall_rank = -1;
	meas.fail = stub_fail;
	meas.samples = samples;
	meas.sorted = sorted;
	meas.own = own;
	meas.clock = stub_clock;
	bench = (struct np_bench){
		.coll = &np_colls[NP_COLL_ALLREDUCE], .dtype = NP_FLOAT, .op = NP_OP_SUM, .root = 0
	};
	np_coll_layout(bench.coll, 1 << 20, 4, 1, &bench.lay);
}

/* Samples that agree within 1%: the interval meets the target at the
 * first count that has one (6), and the row is converged. */
static void test_converges(void)
{
	static const double t[] = { 1.000e-3, 1.002e-3, 0.999e-3, 1.001e-3, 0.998e-3, 1.003e-3 };
	struct np_result r;

	setup(t, 6, 10.0);
	tap_ok(np_measure(&meas, &bench, &r), "converges: np_measure returns true");
	tap_is_str(np_stop_str(r.stop), "converged", "samples within 1%%: stop is converged");
	tap_ok(r.converged, "converged is set");
	tap_is_int(r.samples, 6, "stops at the first count with an interval (6 samples)");
	tap_ok(r.ci_half_rel <= 0.01, "the interval is within the 1%% target (%.4f)",
	       r.ci_half_rel);
	tap_ok(r.t_ci_lo <= r.t_med && r.t_med <= r.t_ci_hi, "the median lies in its interval");
	tap_ok(r.t_min <= r.t_med && r.t_med <= r.t_max, "min <= median <= max");
	/* calibration: batches of 1, 8, ... until one lasts an eighth of
	 * the 2 ms batch; 1 ms per iteration: one batch of 1, then 2 per
	 * batch; three batches of 2, then (2 being a short batch) three each
	 * of 4, 8 and 16, whose time per collective is no lower (the steady
	 * state); the three of 2 are the first samples */
	tap_is_int(r.iters, 2, "--iters auto: 2 iterations fill a 2 ms batch at 1 ms each");
	tap_is_int(r.steady, 1, "no fall from 2 to 4, 8 or 16 iterations: steady");
	tap_is_int(stub.runs, 1 + 3 + 3 + 3 + 3 + 3,
		   "1 + 3 + 3 + 3 + 3 search batches, then 3 runs for 6 samples");
	tap_is_int(stub.prepares, 1, "prepare once");
	tap_is_int(stub.checks, 0, "no check without --check");
	tap_is_dbl(r.algbw, (double)bench.lay.size / r.t_med / 1e9, 1e-9,
		   "algbw = size / median time");
	tap_is_int(r.slow_rank, 0, "per-rank times: the one rank is the slowest");
	tap_ok(isnan(r.slow_excess), "one rank: no excess over the median of ranks");
	tap_ok(r.sample_times == NULL, "the engine's samples stay in m->samples");
}

/* Samples that disagree (1 ms and 2 ms): the samples the budget allows
 * cannot narrow the interval to 1%, so the row is noise-bound at once,
 * or after noise_min samples when that is larger. */
static void test_noise_bound(void)
{
	static const double t[] = { 1e-3, 2e-3, 1e-3, 2e-3, 1.5e-3 };
	struct np_result r;

	setup(t, 5, 1.0);
	tap_ok(np_measure(&meas, &bench, &r), "noise: np_measure returns true");
	tap_is_str(np_stop_str(r.stop), "noise-bound", "samples 1 to 2 ms apart: noise-bound");
	tap_ok(!r.converged, "noise-bound is not converged");
	tap_is_int(r.samples, 6, "noise-bound at the first count with an interval");
	tap_ok(r.ci_half_rel > 0.01, "the interval is wider than the target (%.3f)", r.ci_half_rel);
	tap_ok(stub.clock < 1.0, "stopped well inside the budget (%.3f s of 1 s)", stub.clock);

	setup(t, 5, 1.0);
	meas.noise_min = 12;
	np_measure(&meas, &bench, &r);
	tap_is_str(np_stop_str(r.stop), "noise-bound", "noise_min 12: still noise-bound");
	tap_is_int(r.samples, 12, "noise_min 12: not before 12 samples");

	/* the same spread with a budget that affords the samples that would
	 * narrow it is not noise-bound: it goes on past 6 */
	setup(t, 5, 1e6);
	meas.ci_target = 0.2; /* at 6 the interval is 1..2 ms: 33% of 1.5 */
	np_measure(&meas, &bench, &r);
	tap_ok(r.samples > 6 && r.stop == NP_STOP_CONVERGED,
	       "a budget that affords narrowing: sampled on past 6 to converge (%d samples, %s)",
	       r.samples, np_stop_str(r.stop));
}

/* The budget ends before any interval exists: the row stops at the
 * third sample, the least a budget-bound row has. */
static void test_budget(void)
{
	static const double t[] = { 1e-3, 2e-3, 1e-3, 2e-3 };
	struct np_result r;

	setup(t, 4, 5e-3);
	meas.batch_max = 1; /* the search is not what this budget ends */
	tap_ok(np_measure(&meas, &bench, &r), "budget: np_measure returns true");
	tap_is_str(np_stop_str(r.stop), "budget", "5 ms of budget, 2-4 ms samples: stop is budget");
	/* batch by batch 1, 2, 1, 2 ms a collective: three batches of 2
	 * (median 2 ms) against 4, 8 and 16 (1, 2 and 1 ms), the longest that
	 * fell taken; three of 32 (2 ms) do not fall. The three of 16 are
	 * samples 1 to 3, and one more spends the budget */
	tap_is_int(r.iters, 16, "the longest length that fell from 2's");
	tap_is_int(r.samples, 4, "3 samples from the search, 1 more to spend the budget");
	tap_ok(!r.converged, "budget-bound is not converged");
	tap_is_int(r.steady, 1, "a batch of 32 no faster than 16's: steady");

	/* budget 0: the least count */
	setup(t, 4, 0);
	meas.batch_max = 1;
	np_measure(&meas, &bench, &r);
	tap_is_int(r.samples, 4, "budget 0: the search's 3 samples and 1 more");
	tap_is_str(np_stop_str(r.stop), "budget", "budget 0: stop is budget");
}

/* A budget whose third cannot hold a batch twice the shortest: the
 * steady state is not established, and the row says so whatever its
 * interval (its time is an upper bound). */
static void test_unsteady(void)
{
	static const double t[] = { 1e-3 };
	struct np_result r;

	setup(t, 1, 5e-3); /* batches up to 1.67 ms; the shortest lasts 2 */
	tap_ok(np_measure(&meas, &bench, &r), "unsteady: np_measure returns true");
	tap_is_int(r.steady, 0, "no room for a batch of 4: not steady");
	tap_is_str(np_stop_str(r.stop), "unsteady", "stop is unsteady");
	tap_is_int(r.iters, 2, "sampled at the shortest batch");

	opts.iters = 3;
	opts.samples = 2;
	np_measure(&meas, &bench, &r);
	tap_is_int(r.steady, -1, "a fixed --iters: steady not searched (-1)");
	tap_is_str(np_stop_str(r.stop), "fixed", "a fixed --iters: stop is fixed");
}

/* Planted time series for np_batch_find: a batch of k lasts
 * fill + k * per, times (1 + noise * u), u uniform in [0, 1) from a
 * seeded generator (interference only lengthens a batch); with
 * coll_noise, each collective's time also varies about per with that
 * standard deviation (relative, uniform), so a batch's time per
 * collective varies by coll_noise / sqrt(k) (a slow transport). */
struct series {
	double fill, per, noise, coll_noise;
	double plateau; /* batches shorter than plateau_len: this much slower */
	int plateau_len;
	unsigned long long state;
	int calls, others; /* others: steps another party still searches */
	int others_from;   /* ... from this many batches on (0: from the start) */
	int others_then;
	double spent;
};

static double series_batch(void *arg, int k)
{
	struct series *s = arg;
	double t = s->fill + k * s->per * (k < s->plateau_len ? 1 + s->plateau : 1);

	s->state = s->state * 6364136223846793005ULL + 1442695040888963407ULL;
	t *= 1 + s->noise * (double)(s->state >> 11) / 9007199254740992.0;
	if (s->coll_noise > 0) {
		double u;
		s->state = s->state * 6364136223846793005ULL + 1442695040888963407ULL;
		u = 2 * (double)(s->state >> 11) / 9007199254740992.0 - 1; /* [-1, 1) */
		t += k * s->per * s->coll_noise * sqrt(3.0) * u / sqrt((double)k);
	}
	if (++s->calls == s->others_from)
		s->others = s->others_then;
	s->spent += t;
	return t;
}

static int series_agree(void *arg, int v)
{
	struct series *s = arg;

	return v || s->others-- > 0;
}

/* How much the time per collective at k exceeds the steady one */
static double excess(const struct series *s, int k) { return s->fill / (k * s->per); }

static void test_batch_rule(void)
{
	struct np_batch_rule rule = {
		.min_batch = 2e-3, .max_batch = 10, .precision = 0.01, .max_iters = 1 << 20
	};
	struct np_batch_len len;
	struct series s;
	int bad = 0, unsteady = 0, n = 200;

	/* a cost of each launch that no batch hides (host MPI, a blocking
	 * call): the time per collective never falls, the shortest batch is
	 * the steady state */
	s = (struct series){ .per = 1.5e-6, .state = 1 };
	tap_ok(np_batch_find(&rule, series_batch, NULL, &s, &len), "per-launch cost: found");
	tap_ok(len.steady && len.doublings == 0, "per-launch cost: steady at the shortest batch");
	tap_is_int(len.iters, 1334, "per-launch cost: 1334 iterations fill 2 ms at 1.5 us");
	/* batches of 1, 8, 64, 512; three of 1334, three of 2668 */
	tap_is_int(s.calls, 4 + 3 + 3, "per-launch cost: 10 batches in all");

	/* one collective already long (a host allreduce of 64 MiB, 45 ms):
	 * one iteration a batch, as before the search existed */
	s = (struct series){ .per = 45e-3, .state = 1 };
	np_batch_find(&rule, series_batch, NULL, &s, &len);
	tap_ok(len.steady && len.iters == 1, "a 45 ms collective: steady at 1 iteration (%d)",
	       len.iters);

	/* a fill cost of 3 ms a batch beside 1 ms a collective (arrival skew,
	 * a pipeline's fill and drain): a single collective reads 4x slow;
	 * the search doubles until the fall is below 1% */
	s = (struct series){ .fill = 3e-3, .per = 1e-3, .state = 1 };
	np_batch_find(&rule, series_batch, NULL, &s, &len);
	tap_ok(len.steady, "fill 3 ms: steady");
	tap_ok(excess(&s, len.iters) <= 0.021,
	       "fill 3 ms: %d iterations, %.2f%% above the steady time", len.iters,
	       100 * excess(&s, len.iters));
	tap_ok(excess(&s, len.iters / 2) > 0.01, "fill 3 ms: no longer than needed (half: %.2f%%)",
	       100 * excess(&s, len.iters / 2));
	tap_is_dbl(len.t_per, 1e-3 * (1 + excess(&s, len.iters)), 1e-12,
		   "fill 3 ms: t_per is the time at iters");

	/* a plateau: batches of 1 and 2 collectives of 4.5 ms alike, 20% slower
	 * than 4 or more (two processes time-slicing one GPU's transport were
	 * seen so): a short batch is held against 4k too */
	s = (struct series){ .per = 4.5e-3, .plateau = 0.2, .plateau_len = 4, .state = 1 };
	np_batch_find(&rule, series_batch, NULL, &s, &len);
	tap_ok(len.steady && len.iters >= 4, "plateau of 1 and 2: steady past it (%d)", len.iters);
	tap_is_dbl(len.t_per, 4.5e-3, 1e-12, "plateau: the time per collective beyond it");
	tap_is_dbl(len.t_floor, len.t_per, 0, "steady: the floor is the time found");

	/* the same fill with a budget whose batches cannot reach it */
	rule.max_batch = 0.1;
	s = (struct series){ .fill = 3e-3, .per = 1e-3, .state = 1 };
	np_batch_find(&rule, series_batch, NULL, &s, &len);
	tap_ok(!len.steady, "fill 3 ms, batches up to 0.1 s: unsteady");
	tap_ok(len.iters * 1e-3 <= 0.1 && 2 * len.iters * 1e-3 * (1 + excess(&s, len.iters)) > 0.1,
	       "unsteady at the longest length that fits (%d)", len.iters);
	tap_ok(s.spent < 0.5, "the search spent %.3f s, within a few budgets' batches", s.spent);
	tap_is_dbl(len.t_floor, 1e-3, 1e-9,
		   "unsteady: the floor its last fall implies is the steady time (a fixed cost per batch)");

	/* noise: 2% a batch, 200 seeds; the length found is within 5% of the
	 * steady state in every one, steady in nearly all */
	rule.max_batch = 10;
	for (int i = 0; i < n; i++) {
		s = (struct series){
			.fill = 3e-3, .per = 1e-3, .noise = 0.02, .state = (unsigned)i + 7
		};
		np_batch_find(&rule, series_batch, NULL, &s, &len);
		bad += excess(&s, len.iters) > 0.05;
		unsteady += !len.steady;
	}
	tap_is_int(bad, 0, "2%% noise: the length found within 5%% of the steady state in %d of %d",
		   n - bad, n);
	tap_ok(unsteady <= n / 10,
	       "2%% noise: unsteady in %d of %d (a fall larger than the noise to the end)",
	       unsteady, n);

	/* a slow transport: collectives of 6.9 ms that vary 8% each, and a
	 * fill of 0.7 ms a batch (10% at one collective); seen so on two
	 * ranks over NCCL's socket transport at 16 MiB. The shortest of a few
	 * single collectives reads below their typical time, and the first
	 * longer length that fell can be short of the steady state: the
	 * median of three, and the longest length that fell, do not */
	bad = 0;
	for (int i = 0; i < n; i++) {
		s = (struct series){
			.fill = 0.7e-3, .per = 6.9e-3, .coll_noise = 0.08, .state = (unsigned)i + 11
		};
		np_batch_find(&rule, series_batch, NULL, &s, &len);
		bad += excess(&s, len.iters) > 0.05;
	}
	tap_ok(bad <= n / 10,
	       "8%% per collective: a length within 5%% of the steady state in %d of %d (9 in 10 asked)",
	       n - bad, n);

	/* another party still searching once this one has its three at 2
	 * (4 batches): this one times nothing more than its step (2 held
	 * against 4, 8 and 16), takes part in each decision, and ends with
	 * it */
	s = (struct series){ .per = 1e-3, .state = 1, .others_from = 4, .others_then = 3 };
	np_batch_find(&rule, series_batch, series_agree, &s, &len);
	tap_ok(len.steady && len.iters == 2, "agreed: this party's own length (%d)", len.iters);
	tap_is_int(s.calls, 1 + 3 + 3 + 3 + 3, "agreed: no batch while the other searches");
	tap_is_int(s.others, -1, "agreed: every step of the other taken part in, then one more");
}

/* A fixed --iters: exactly --samples batches of --iters, after the check
 * and the warm-up; the stopping rules do not apply. */
static void test_fixed(void)
{
	static const double t[] = { 3e-3, 1e-3, 2e-3, 5e-3, 4e-3 };
	struct np_result r;

	setup(t, 5, 0);
	opts.iters = 7;
	opts.samples = 5;
	opts.warmup = 3;
	opts.check = true;
	stub.wrong = 2;
	meas.quiet_wrong = true;
	tap_ok(np_measure(&meas, &bench, &r), "fixed: np_measure returns true");
	tap_is_str(np_stop_str(r.stop), "fixed", "--iters 7: stop is fixed");
	tap_is_int(r.samples, 5, "--samples 5 taken, whatever the budget");
	tap_is_int(r.iters, 7, "--iters 7 per batch");
	tap_is_int(stub.last_iters, 7, "the timed batches ran 7 iterations");
	tap_is_int(stub.runs, 1 + 1 + 5, "the check's run, one warm-up batch, 5 samples");
	tap_is_int(stub.checks, 1, "checked once");
	tap_ok(r.checked, "the row is checked");
	tap_is_int(r.wrong, 2, "wrong elements counted");
	/* the samples are times[2..4], times[0..1] (the check and the
	 * warm-up took times[0] and times[1]): 2, 5, 4, 3, 1 ms */
	tap_is_dbl(r.t_med, 3e-3, 1e-12, "median of the 5 samples: 3 ms");
	tap_is_dbl(r.t_min, 1e-3, 1e-12, "min 1 ms");
	tap_is_dbl(r.t_max, 5e-3, 1e-12, "max 5 ms");
	tap_is_dbl(samples[0], 2e-3, 1e-12, "samples in measurement order: first 2 ms");
	tap_is_dbl(samples[4], 1e-3, 1e-12, "samples in measurement order: last 1 ms");
}

/* The first point's warm-up by time (warm_first): batches from --warmup,
 * each twice the last, until they have lasted warm_first; no more at the
 * next point, none with a fixed --iters. */
static void test_warm_first(void)
{
	static const double t[] = { 1e-6 };
	struct np_result r;
	int runs;

	setup(t, 1, 1e-3);
	opts.warmup = 5;
	meas.warm_first = 0.01;
	tap_ok(np_measure(&meas, &bench, &r), "warm first: np_measure returns true");
	/* 1 us a call: 0.01 s is 10,000 calls; 5 + 10 + ... + 5 * 2^10 =
	 * 10,235 in 11 batches, after the --warmup batch of 5 */
	tap_ok(meas.warmed, "warmed after the first point");
	runs = stub.runs;
	setup(t, 1, 1e-3);
	opts.warmup = 5;
	tap_ok(np_measure(&meas, &bench, &r), "the same point without warm_first");
	tap_is_int(runs - stub.runs, 11,
		   "warm_first 0.01 s of 1 us calls: 11 more batches (5 to 5,120 calls)");
	setup(t, 1, 1e-3);
	opts.warmup = 5;
	meas.warm_first = 0.01;
	meas.warmed = true;
	tap_ok(np_measure(&meas, &bench, &r), "a later point");
	tap_is_int(stub.runs, runs - 11, "warmed already: no warm-up by time");
	setup(t, 1, 0);
	opts.iters = 7;
	opts.samples = 2;
	opts.warmup = 5;
	meas.warm_first = 0.01;
	tap_ok(np_measure(&meas, &bench, &r), "fixed --iters");
	tap_is_int(stub.runs, 1 + 2,
		   "fixed --iters: the --warmup batch and the samples, no warm-up by time");
}

/* A stop flag (a signal) between batches: no row. */
static void test_interrupted(void)
{
	static const double t[] = { 1e-3 };
	static volatile sig_atomic_t stop;
	struct np_result r;

	setup(t, 1, 10.0);
	stop = 0;
	meas.stop = &stop;
	stub.stop = &stop;
	stub.stop_after = 4;
	tap_ok(!np_measure(&meas, &bench, &r), "a stop flag: np_measure returns false");
	tap_is_int(stub.runs, 4, "no batch after the flag was seen");
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	test_converges();
	test_noise_bound();
	test_budget();
	test_unsteady();
	test_batch_rule();
	test_fixed();
	test_warm_first();
	test_interrupted();
	MPI_Finalize();
	return tap_done();
}
