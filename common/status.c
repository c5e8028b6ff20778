/* SPDX-License-Identifier: MIT */
/* Status names and the status -> exit code table. */
#include "config.h"

#include <stdio.h>

#include "status.h"

const char *np_status_str(enum np_status st)
{
	switch (st) {
	case NP_OK: return "ok";
	case NP_EUSAGE: return "usage";
	case NP_ESYS: return "system";
	case NP_EMPI: return "mpi";
	case NP_ECUDA: return "cuda";
	case NP_ENCCL: return "nccl";
	case NP_ENOMEM: return "out of memory";
	case NP_ENODEV: return "no device";
	case NP_ENOTSUP: return "not supported";
	case NP_ETIMEOUT: return "timeout";
	case NP_EWRONG: return "wrong data";
	case NP_EVERDICT: return "verdict failed";
	}
	return "unknown";
}

int np_status_exit(enum np_status st)
{
	switch (st) {
	case NP_OK: return NP_EXIT_OK;
	case NP_EUSAGE: return NP_EXIT_USAGE;
	case NP_EVERDICT: return NP_EXIT_VERDICT;
	case NP_EWRONG: return NP_EXIT_WRONG;
	case NP_ETIMEOUT: return NP_EXIT_TIMEOUT;
	case NP_ESYS:
	case NP_EMPI:
	case NP_ECUDA:
	case NP_ENCCL:
	case NP_ENOMEM:
	case NP_ENODEV:
	case NP_ENOTSUP: return NP_EXIT_RUNTIME;
	}
	return NP_EXIT_RUNTIME;
}

enum np_status np_fail(struct np_err *err, enum np_status st, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return st;
	err->status = st;
	err->secondary = false;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return st;
}
