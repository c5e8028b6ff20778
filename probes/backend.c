/* SPDX-License-Identifier: MIT */
/* Backend choice: --backend auto|mpi|nccl. */
#include "config.h"

#include <stdio.h>

#include "backend.h"

enum np_status np_backend_select(const struct np_opts *opts, bool gpus_everywhere,
				 const struct np_backend_ops **ops, char *why, size_t whylen,
				 struct np_err *err)
{
	switch (opts->backend) {
	case NP_BACKEND_MPI:
		*ops = &np_backend_mpi;
		snprintf(why, whylen, "--backend mpi");
		return NP_OK;
	case NP_BACKEND_NCCL:
#ifdef HAVE_NCCL
		*ops = &np_backend_nccl;
		snprintf(why, whylen, "--backend nccl");
		return NP_OK;
#else
		return np_fail(err, NP_ENOTSUP,
			       "--backend nccl: this nccl-probe was built without NCCL; rebuild with --with-cuda and --with-nccl, or use --backend mpi");
#endif
	case NP_BACKEND_AUTO:
#ifdef HAVE_NCCL
		if (gpus_everywhere) {
			*ops = &np_backend_nccl;
			snprintf(why, whylen, "a GPU is visible and NCCL is built in");
			return NP_OK;
		}
		*ops = &np_backend_mpi;
		snprintf(why, whylen, "no GPU visible%s: host memory through MPI, not NCCL",
			 np_nccl_gpu_visible() ? " on some ranks" : "");
#else
		(void)gpus_everywhere;
		*ops = &np_backend_mpi;
		snprintf(why, whylen, "built without NCCL: host memory through MPI, not NCCL");
#endif
		return NP_OK;
	}
	return np_fail(err, NP_EUSAGE, "unknown backend");
}
