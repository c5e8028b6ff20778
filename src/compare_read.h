/* SPDX-License-Identifier: MIT */
/* A sweep report as compare reads it (src/compare_read.c): the run's
 * facts that decide whether two runs compare, its NCCL_* variables, and
 * its rows with their log sample times, sorted by key. Once read, the
 * parsed document is freed (the few strings kept are copied): what is
 * kept of a report is its rows and their samples, 8 bytes a sample time,
 * so that two reports never hold two parsed documents at once. */
#ifndef NP_COMPARE_READ_H
#define NP_COMPARE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json_read.h"
#include "../common/status.h"
#include "results.h"

/* One result row of a report, as compare reads it. */
struct np_cmp_row {
	const char *coll, *type, *redop; /* redop "none" when null */
	long long root;                  /* -1 when null */
	bool inplace;
	uint64_t size;
	double time, busbw;               /* busbw NAN when null */
	double *logt;                     /* log sample times, sorted; NULL when none stored */
	int nsamples;                     /* sample times stored */
	int judged;                       /* the row's "judged", -1 absent */
	bool noise;                       /* the row's "stop" is noise-bound */
	int coll_index;                   /* in np_colls: the sweep's order */
	char type_buf[32], redop_buf[32]; /* type and redop of a row read from a file */
};

/* What compare reads, beyond the reader's own bounds (json_read.h): sample
 * times of one row (what the sweep stores at most, NP_MEAS_MAX_SAMPLES)
 * and NCCL_* variables of one run. */
#define NP_CMP_MAX_SAMPLES 10000
#define NP_CMP_MAX_ENV 1024

/* One NCCL_* variable of a run; val NULL when the report's is not a string. */
struct np_cmp_env {
	const char *key, *val;
};

/* A sweep report, from its file or from memory. */
struct np_cmp_run {
	const char *path;
	struct np_jval doc; /* a report read from a file: freed once read */
	char *own[6];       /* a report read from a file: its strings below */
	bool env_own;       /* env's keys and values are this run's copies */
	const char *backend, *library, *runtime, *mpi, *dtype, *version;
	long long ranks, nodes;
	uint64_t judge_from;    /* 0 when absent */
	struct np_cmp_env *env; /* nccl_env */
	size_t nenv;
	char (*env_keys)[128]; /* a run in memory: its variables' names */
	struct np_cmp_row *rows;
	size_t nrows;
	struct np_cmp_row **sorted; /* rows by key: collective, type, redop, root, in place, size */
};

/* A report read from the JSON file PATH (NP_EUSAGE with the byte offset
 * when it is not a sweep report); np_cmp_run_free releases it, also after
 * an error. */
enum np_status np_cmp_run_read(struct np_cmp_run *r, const char *path, struct np_err *err);
/* The run REP in memory, named LABEL, as np_cmp_run_read would read its
 * JSON report: the same fields, numbers to the report's ten digits. */
enum np_status np_cmp_run_from_report(struct np_cmp_run *r, const struct np_sweep_report *rep,
				      const char *label, struct np_err *err);
void np_cmp_run_free(struct np_cmp_run *r);
/* The value of KEY in the run's nccl_env (the first of duplicates), or NULL */
const char *np_cmp_run_env(const struct np_cmp_run *r, const char *key);

/* Rows in the sweep's order of collectives, then type, operation, root
 * and in place (a group of sizes), then size: <0, 0, >0 */
int np_cmp_row_group(const struct np_cmp_row *a, const struct np_cmp_row *b);
int np_cmp_row_key(const struct np_cmp_row *a, const struct np_cmp_row *b);

#endif
