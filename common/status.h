/* SPDX-License-Identifier: MIT */
/* Status codes shared by every layer, and the one table of exit codes.
 * probes/ and topo/ return an enum np_status and describe the failure in a
 * struct np_err; src/ alone turns them into messages and exit codes. */
#ifndef NP_STATUS_H
#define NP_STATUS_H

#include <stdarg.h>
#include <stdbool.h>

enum np_status {
	NP_OK = 0,   /* success */
	NP_EUSAGE,   /* bad input from the user                    -> exit 64 */
	NP_ESYS,     /* system call or library failure (libc, hwloc) -> exit 3 */
	NP_EMPI,     /* MPI failure                                -> exit 3 */
	NP_ECUDA,    /* CUDA runtime or driver failure             -> exit 3 */
	NP_ENCCL,    /* NCCL failure                               -> exit 3 */
	NP_ENOMEM,   /* an allocation failed                       -> exit 3 */
	NP_ENODEV,   /* the device the request needs is not there  -> exit 3 */
	NP_ENOTSUP,  /* not available in this build or on this machine -> exit 3 */
	NP_ETIMEOUT, /* an operation did not finish in time        -> exit 4 */
	NP_EWRONG,   /* a collective produced wrong data           -> exit 2 */
	NP_EVERDICT, /* a threshold or check failed                -> exit 1 */
};

/* Exit codes (DESIGN.md, man page EXIT STATUS). */
enum np_exit {
	NP_EXIT_OK = 0,
	NP_EXIT_VERDICT = 1,
	NP_EXIT_WRONG = 2,
	NP_EXIT_RUNTIME = 3,
	NP_EXIT_TIMEOUT = 4,
	NP_EXIT_UNKNOWN = 5,      /* topo --check-gdr: no GPU is without GDR, some cannot be told */
	NP_EXIT_INCONCLUSIVE = 6, /* the evidence supports no verdict: a row's interval straddles
				   * its threshold; isolate's figures can neither name a node nor
				   * clear it */
	NP_EXIT_INTERRUPTED = 130,
	NP_EXIT_USAGE = 64,
};

#define NP_ERRLEN 512

/* A failure's description, filled by the layer that saw it. */
struct np_err {
	enum np_status status;
	bool secondary;      /* this rank stopped because another rank failed:
			      * the other rank's message says why, so src/
			      * need not print this one */
	char msg[NP_ERRLEN]; /* lowercase, no trailing period, says what to do */
};

const char *np_status_str(enum np_status st);
int np_status_exit(enum np_status st);

/* Fill err and return st; for "return np_fail(err, NP_ECUDA, ...)" */
enum np_status np_fail(struct np_err *err, enum np_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
