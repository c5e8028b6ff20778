/* SPDX-License-Identifier: MIT */
/* The test-only switches, NCCL_PROBE_TEST_*: the one place that reads
 * them, with one parser per variable. Each parser is a pure function of
 * the variable's text (unit-tested); np_test_plan_read() reads them all
 * once, at start-up, into one plan that is passed down (the watchdog, the
 * engine, each backend in struct np_backend_cfg): nothing else reads the
 * environment for them. A malformed value plants nothing. Every layer may
 * include this header; it includes nothing of src/, probes/ or topo/. */
#ifndef NP_TESTHOOKS_H
#define NP_TESTHOOKS_H

#include <stdbool.h>

/* The text of every switch ("" where unset; a value of NP_TEST_VALUE_LEN
 * characters or more reads as unset, as no switch's value is that long). */
#define NP_TEST_VALUE_LEN 512
struct np_test_plan {
	char stall[NP_TEST_VALUE_LEN];     /* NCCL_PROBE_TEST_STALL */
	char corrupt[NP_TEST_VALUE_LEN];   /* NCCL_PROBE_TEST_CORRUPT */
	char misroute[NP_TEST_VALUE_LEN];  /* NCCL_PROBE_TEST_MISROUTE */
	char slow[NP_TEST_VALUE_LEN];      /* NCCL_PROBE_TEST_SLOW */
	char fail[NP_TEST_VALUE_LEN];      /* NCCL_PROBE_TEST_FAIL */
	char no_native[NP_TEST_VALUE_LEN]; /* NCCL_PROBE_TEST_NO_NATIVE */
	char tune[NP_TEST_VALUE_LEN];      /* NCCL_PROBE_TEST_TUNE */
};
/* The one read of the switches from the environment. */
void np_test_plan_read(struct np_test_plan *p);

/* Whether this build honours the switches (configure --disable-test-hooks
 * leaves them out: each then reads as unset). */
bool np_test_hooks_built(void);

/* Where a rank stands, for the switches that name job ranks and groups
 * (nccl-probe isolate measures groups of the job). */
struct np_test_where {
	int rank;             /* this rank in its group (or the job) */
	int size;             /* ranks in the group */
	int nnodes;           /* nodes in the group */
	int job_size;         /* ranks in the whole job */
	const int *job_ranks; /* job rank of each group rank; NULL in the job's own world */
};

/* NCCL_PROBE_TEST_STALL: one rank stalls for ever, so that the watchdog
 * ends the job.
 *   R        job rank R stalls on the host at its first timed batch (src/measure.c)
 *   R@N      ... at its timed batch N, from 0, so that rows finish before it
 *   R:start  rank R never reaches its first collective (src/watchdog.c)
 *   R:device rank R's stream never completes (the NCCL backend)
 * R and N are decimal integers >= 0. */
enum np_test_stall_at {
	NP_STALL_NONE,
	NP_STALL_BATCH,  /* R or R@N */
	NP_STALL_START,  /* R:start */
	NP_STALL_DEVICE, /* R:device */
};
struct np_test_stall {
	enum np_test_stall_at at;
	int rank;
	long after; /* NP_STALL_BATCH: timed batches to let pass first */
};
/* Parse s (NULL or "": none); a malformed value is NP_STALL_NONE. */
void np_test_stall_parse(const char *s, struct np_test_stall *out);
/* The rank that stalls at `at`, or -1 */
int np_test_stall_rank_at(const struct np_test_stall *st, enum np_test_stall_at at);

/* NCCL_PROBE_TEST_CORRUPT=R (job rank R's input has one wrong element;
 * "all": every rank's) and NCCL_PROBE_TEST_MISROUTE=FROM:TO (rank TO
 * sends rank FROM's data, as if a block were routed from the wrong rank).
 * Ranks below 2^20; -1 when unset or malformed. */
struct np_test_faults {
	int corrupt_rank;
	bool corrupt_all;
	int misroute_from, misroute_to;
};
void np_test_faults_parse(const char *corrupt, const char *misroute, struct np_test_faults *f);
/* The rank whose pattern `rank` fills its input with. */
int np_test_faults_source(const struct np_test_faults *f, int rank);

/* NCCL_PROBE_TEST_SLOW=SPEC[,SPEC...], SPEC = R:US or R:PCT% with an
 * optional :net (only in groups of more than one node), :scale (only in
 * the whole job, of more than one node) or :link=S (only in groups that
 * hold job rank S); R and S are job ranks. A later SPEC for the same rank
 * overrides an earlier one of its kind (US or PCT). */
struct np_test_slow {
	bool on;     /* a SPEC names this rank here */
	unsigned us; /* sleep this long before each collective, or */
	double frac; /* sleep this fraction of the batch's shortest collective so far */
};
void np_test_slow_parse(const char *s, const struct np_test_where *w, struct np_test_slow *out);

/* NCCL_PROBE_TEST_FAIL=SPEC[,SPEC...], SPEC = R or "all", with an
 * optional :groups (only in groups smaller than the whole job, so that the
 * job's start passes); R is a job rank. Whether the backend's start fails
 * on this rank. */
bool np_test_fail_parse(const char *s, const struct np_test_where *w);

/* NCCL_PROBE_TEST_NO_NATIVE=1: the NCCL backend issues alltoall, gather
 * and scatter with grouped send/recv even where NCCL has its own call. */
bool np_test_no_native_parse(const char *s);

/* NCCL_PROBE_TEST_TUNE=ARM/VAR=VALUE[;...]: the test switch VAR (an
 * NCCL_PROBE_TEST_* name) holds VALUE in the plan that tune's arm ARM
 * starts its backend with (0 the baseline, 1.. the candidates in order), so that a planted
 * slowdown, wrong data or failed start falls on that arm alone. */
#define NP_TEST_TUNE_MAX 32 /* more than fit in the 512 characters read */
struct np_test_setting {
	char name[128];
	char value[512];
};
/* The settings of arm `arm` in s (a value of 512 characters or more:
 * none), at most max; returns how many. */
int np_test_tune_parse(const char *s, int arm, struct np_test_setting *out, int max);
/* Arm `arm`'s settings of p->tune put in p in place of its own values
 * (their names are NCCL_PROBE_TEST_* other than TUNE; others are left
 * out): the plan that arm's backend starts with. */
void np_test_plan_arm(struct np_test_plan *p, int arm);

#endif
