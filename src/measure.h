/* SPDX-License-Identifier: MIT */
/* The measurement engine, shared by sweep, isolate and tune: one point of
 * a backend (a collective at one size) checked, warmed up and timed in
 * batches, with the stopping rules of --iters auto; the row it fills; and
 * what a backend is given of the options and the world.
 *
 * Its world is the backend's (be->world.comm, one rank or many; a group
 * of the job in isolate). It takes MPI collectives over that world for
 * every decision, arrives at the watchdog (a no-op when the watchdog is
 * not running) and reads time from m->clock, so that tests can run it in
 * one process on MPI_COMM_SELF with a stub backend and a planted clock
 * (tests/unit/test_measure.c). */
#ifndef NP_MEASURE_H
#define NP_MEASURE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "../probes/backend.h"
#include "opts.h"
#include "world.h"

/* Why the sampling of a row stopped (np_stop_str() names it). */
enum np_stop {
	NP_STOP_FIXED,     /* a fixed --iters: its --samples were taken */
	NP_STOP_CONVERGED, /* the median's interval met the target */
	NP_STOP_NOISE,     /* noise-bound: more samples within the budget
			    * would not narrow the interval to the target */
	NP_STOP_BUDGET,    /* the budget ended while the interval narrowed */
	NP_STOP_UNSTEADY,  /* the budget ended before a batch long enough for
			    * the steady state: the time is an upper bound */
};

const char *np_stop_str(enum np_stop s);

/* One measured row: a collective at one size. */
struct np_result {
	const struct np_coll *coll;
	enum np_dtype dtype;
	enum np_redop op;
	int root; /* -1 when the collective has none */
	bool inplace;
	struct np_layout lay;
	double t_med, t_min, t_max; /* seconds per iteration, slowest rank */
	double t_ci_lo, t_ci_hi;    /* 95% CI of the median time */
	double ci_half_rel;         /* 95% CI half-width of the median / median */
	double algbw, busbw;        /* GB/s from t_med */
	bool checked;
	uint64_t wrong; /* wrong elements summed over ranks */
	double limit;   /* busbw limit GB/s; 0 = unknown */
	double eff;     /* busbw / limit; NaN when unknown */
	int samples, iters;
	bool converged;   /* --iters auto met the 1% target */
	int steady;       /* 1: iters is past the point where a longer batch
			   * lowers the time per collective; 0: the budget
			   * ended first; -1: not searched (a fixed --iters) */
	double floor_rel; /* steady 0: the least its time per collective
			   * could fall to, as a share of the search's time
			   * at iters (np_batch_len's t_floor / t_per, in
			   * (0, 1]); 0 when unknown. 1 otherwise */
	enum np_stop stop;
	bool judged; /* at or above the sweep's --judge-from size */
	int pass;    /* judged against a threshold: 1 met, 0 failed; -1 not judged */
	/* per-rank times: each rank's own median time per iteration; the
	 * rank whose is the longest (job rank) and by how much it exceeds
	 * the median over ranks (a fraction; NaN on one rank or unmeasured) */
	int slow_rank; /* -1 when not measured */
	double slow_time, slow_excess;
	/* the time of each sample (the slowest rank's, per iteration, in
	 * seconds) in measurement order: `samples` entries, owned by the
	 * sweep's report; NULL from np_measure, whose samples are in m->samples */
	double *sample_times;
};

/* The measurement of one point, shared by the sweep and isolate: check
 * once, warm up, then time batches of about `batch` seconds until the 95%
 * interval of the median is within ci_target of it, or the samples that
 * the rest of the budget allows would not narrow it that far (noise-bound),
 * or the budget ends (a fixed --iters: its --samples batches). Collective over be->world, which may
 * be a group of the job. Returns false when *stop was set (a signal) between batches. */
#define NP_MEAS_MAX_SAMPLES 10000

struct np_meas {
	struct np_backend *be;   /* open on the world that measures */
	const struct np_opts *o; /* check, warmup, iters, samples */
	double budget;           /* seconds of timed samples */
	double ci_target;        /* relative half-width of the median's CI */
	double batch;            /* seconds the shortest batch lasts (--iters auto) */
	double batch_max;        /* seconds the longest batch may last (the
				  * steady-state search); 0: budget / 3 */
	int noise_min;           /* samples before noise-bound may stop it */
	/* --iters auto: the first point's warm-up lasts at least this many
	 * seconds (0: the --warmup count only); warmed once it has */
	double warm_first;
	bool warmed;
	int stall_rank;              /* test: job rank that stalls, -1 none */
	long stall_after;            /* test: its timed batches to let pass first */
	bool quiet_wrong;            /* wrong elements counted, not printed */
	const char *what;            /* added to the watchdog's step, or NULL */
	volatile sig_atomic_t *stop; /* NULL or a signal flag */
	int stop_sig;                /* the world's largest *stop when it stopped: the
					signal of the rank that got one, 0 none */
	/* with synced, every decision (batch length, the last sample) is
	 * also agreed over sync, so that groups measuring at once run their
	 * batches in the same windows: every rank of sync must be measuring */
	bool synced;
	MPI_Comm sync;
	/* with synced and turns > 1, the groups time their batches in turns
	 * (group `turn` in slot `turn` of each step, -1 for a rank that only
	 * waits), not at once: groups that share a host's cores or GPU would
	 * otherwise measure their contention for them, not their links */
	int turns, turn;
	/* a step failed on some rank (all ranks agree): never returns */
	void (*fail)(void *arg, enum np_status st);
	void *fail_arg;
	double *samples, *sorted; /* NP_MEAS_MAX_SAMPLES each */
	double *own;              /* NULL, or NP_MEAS_MAX_SAMPLES: this rank's
				   * own times, for the per-rank figures */
	/* the clock the budget counts by, in seconds; NULL: CLOCK_MONOTONIC
	 * (tests plant one that a stub backend advances) */
	double (*clock)(void);
};

bool np_measure(struct np_meas *m, const struct np_bench *b, struct np_result *res);

/* The batch length of --iters auto: the steady state of back-to-back
 * collectives, as a training job issues them and nccl-tests times them.
 *
 * First the shortest batch that hides a launch: batches of 1, 8, 64, ...
 * iterations until one lasts min_batch / 8, then as many iterations as
 * last min_batch. Then the length doubles while batches of 2k still lower
 * the time per collective below k's by more than `precision`, the better
 * of two batches at each length against each other (interference only
 * lengthens a batch); a batch of fewer than 16 collectives is also held
 * against 4k (a plateau of a few collectives can hide the fall a longer
 * batch shows). The first length at which it stops falling is the
 * steady state. Noise that hides a fall lets the doubling go on rather
 * than stop short: a longer batch is never less steady. A batch of 2k must
 * fit max_batch and max_iters; when it does not, the search ends unsteady
 * at k, with the floor its last fall implies (t_floor).
 *
 * batch(arg, iters) times one batch and returns its seconds, or a negative
 * value to stop (a signal: np_batch_find returns false). agree(arg, v),
 * when not NULL, returns the largest v over every party that must take the
 * same decision (groups measuring in step); NULL: v. */
struct np_batch_rule {
	double min_batch; /* seconds: the shortest batch */
	double max_batch; /* seconds: the longest batch the budget allows */
	double precision; /* relative fall below which the time is steady */
	int max_iters;
};

struct np_batch_len {
	int iters;     /* the batch length found */
	bool steady;   /* false: max_batch or max_iters ended the search */
	int doublings; /* lengths tried past the shortest batch */
	double t_per;  /* seconds per collective at iters, from the search */
	/* unsteady: the least the time per collective could fall to, were the
	 * last lengthening's fall a fixed cost per batch spread over more
	 * collectives (from k to j: t(j) - (t(k) - t(j)) / (j/k - 1)); 0 when
	 * unknown (no lengthening, or a fall that leaves nothing). Steady:
	 * t_per. */
	double t_floor;
};

bool np_batch_find(const struct np_batch_rule *r, double (*batch)(void *arg, int iters),
		   int (*agree)(void *arg, int v), void *arg, struct np_batch_len *out);
/* With synced, a rank of sync whose group cannot measure (its backend did
 * not start): takes part in sync's agreements as a group that is done,
 * until every measuring group is, so that the others do not wait for it. */
void np_measure_idle(struct np_meas *m);

/* What a backend needs of the options, the world (a group's world too)
 * and the test-only switches, copied into be->cfg and be->world. */
void np_backend_args(struct np_backend *be, const struct np_opts *o, const struct np_world *w,
		     const struct np_test_plan *test);

/* NCCL_PROBE_TEST_STALL=R or R@N (common/testhooks.h) in m: the job rank
 * that stalls on the host at its timed batch N (R: the first), else none. */
void np_meas_test_stall(struct np_meas *m, const struct np_test_plan *test);

/* Monotonic seconds, for wall times, progress and budgets. */
double np_now_s(void);

#endif
