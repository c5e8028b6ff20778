/* SPDX-License-Identifier: MIT */
/* NCCL backend (being written). */
#include "config.h"

#include "backend.h"

static enum np_status nccl_init(struct np_backend *be)
{
	return np_fail(&be->err, NP_ENOTSUP, "the NCCL backend is not written yet; use --backend mpi");
}

static void nccl_finalize(struct np_backend *be) { (void)be; }

const struct np_backend_ops np_backend_nccl = {
	.name = "nccl",
	.init = nccl_init,
	.finalize = nccl_finalize,
};

bool np_nccl_gpu_visible(void) { return false; }
