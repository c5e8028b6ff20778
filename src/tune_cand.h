/* SPDX-License-Identifier: MIT */
/* tune's candidates: parsing --try and --try-file into settings, the
 * checks every setting passes before anything runs, shell quoting of the
 * export lines, and the paired ratio of one candidate against the
 * baseline. Pure (no MPI, no I/O), so every rank gets the same result and
 * tests/unit/test_tune.c covers it. */
#ifndef NP_TUNE_CAND_H
#define NP_TUNE_CAND_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/status.h"

#define NP_TUNE_MAX_SETTINGS 8 /* settings of one candidate */
#define NP_TUNE_MAX_CANDS 32   /* candidates of one tune */
#define NP_TUNE_NAMELEN 64
#define NP_TUNE_VALLEN 128

struct np_tune_setting {
	char name[NP_TUNE_NAMELEN]; /* NCCL_PROTO, OMPI_MCA_coll_tuned_allreduce_algorithm */
	char value[NP_TUNE_VALLEN];
};

struct np_tune_cand {
	struct np_tune_setting set[NP_TUNE_MAX_SETTINGS];
	int n;
	char label[NP_TUNE_MAX_SETTINGS * (NP_TUNE_NAMELEN + NP_TUNE_VALLEN + 2)]; /* "A=1 B=2" */
};

/* The candidates of --try VAR=V1,V2 (one candidate per value, in order)
 * and of the text of a --try-file (one per line; VAR=VALUE settings
 * separated by blanks; '#' starts a comment), into c[0..cap). file_text
 * may be NULL. A candidate given twice, a bad name or value, a setting
 * nccl-probe makes itself (NCCL_DEBUG*, NCCL_HOSTID) and too many
 * candidates are usage errors naming the input. */
enum np_status np_tune_parse(const char *const *tries, int ntries, const char *file_text,
			     struct np_tune_cand *c, int cap, int *n, struct np_err *err);

/* Which library reads a setting: "nccl" for NCCL_*, "mpi" for Open MPI's
 * OMPI_MCA_* (its MCA variable is the rest of the name), NULL else. */
const char *np_tune_setting_library(const char *name);

/* s as one shell word: unchanged when it holds only [A-Za-z0-9_,.:/+=@%^-],
 * else in single quotes ('\'' for a quote). "" when it does not fit len. */
void np_shell_quote(const char *s, char *buf, size_t len);

/* Whether NCCL's list value (NCCL_PROTO, NCCL_ALGO: "LL,Simple",
 * "^LL128", case-insensitive) allows item. -1 when the value has a form
 * this check does not read (per-function "allreduce:tree"). */
int np_tune_list_allows(const char *value, const char *item);

/* The paired comparison of one candidate against the baseline: speed
 * ratios baseline time / candidate time of rounds measured side by side
 * (> 1: the candidate is faster). */
enum np_tune_verdict {
	NP_TUNE_NONE, /* no significant difference (or below min_change) */
	NP_TUNE_FASTER,
	NP_TUNE_SLOWER,
	NP_TUNE_UNDECIDED, /* too few rounds for an interval */
};

const char *np_tune_verdict_str(enum np_tune_verdict v);

struct np_tune_ratio {
	int n;
	double median, lo, hi; /* 95% interval of the median ratio (order statistics) */
	enum np_tune_verdict verdict;
	bool settled; /* more rounds would not change the verdict's basis:
		       * the interval excludes 1, or lies within min_change of 1,
		       * or is within 1% of the median */
};

/* From ratios r[0..n) (sorted in place): the median, its interval and the
 * verdict. Faster or slower only when the interval excludes 1 and the
 * median is min_change or more from 1, as compare judges. */
void np_tune_ratio_compute(double *r, int n, double min_change, struct np_tune_ratio *out);

#endif
