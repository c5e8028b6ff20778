/* SPDX-License-Identifier: MIT */
/* The run record: a random id, the start time and the command line that
 * the sweep's and tune's documents carry. */
#ifndef NP_RUN_RECORD_H
#define NP_RUN_RECORD_H

/* What pairs one run's files with another's: a random id, the start on
 * the wall clock and the command line (rank 0's). */
struct np_run_record {
	char id[33];         /* 128 random bits, 32 lowercase hex digits */
	char start_time[32]; /* ISO 8601 UTC, e.g. "2026-05-04T09:41:07Z" */
	int argc;
	char *const *argv; /* the process's own, argc entries */
};

/* Fills rec: the id from /dev/urandom (else from the clock, pid and host). */
void np_run_record_init(struct np_run_record *rec, int argc, char *const *argv);

#endif
