/* SPDX-License-Identifier: MIT */
/* Device kernels of the NCCL backend: the --check patterns generated and
 * verified on the GPU (probes/pattern.h, the same functions as the host
 * backend), and the stall kernel of the test-only switch.
 * Every function enqueues on `stream` of the current device and returns the
 * cudaError_t of the launch (cudaSuccess = 0); none synchronizes. */
#ifndef NP_NCCL_KERNELS_H
#define NP_NCCL_KERNELS_H

#include <stddef.h>

#include <cuda_runtime.h>

#include "../common/coll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element j (0 <= j < nelem) of buf = np_pat_input(reduce, op, dtype,
 * nranks, rank, j): the send buffer of `rank` for a collective (reduce: it
 * reduces). */
cudaError_t np_kern_fill(void *buf, size_t nelem, int dtype, int reduce, int op, int nranks,
			 int rank, cudaStream_t stream);

/* Add to *wrong (device memory) the number of elements k < nelem of the
 * result buf that do not match np_pat_expect(ex, op, dtype, nranks, rank,
 * root, count, k) (np_pat_ok). */
cudaError_t np_kern_check(const void *buf, size_t nelem, int dtype, struct np_coll_expect ex,
			  int op, int nranks, int rank, int root, size_t count,
			  unsigned long long *wrong, cudaStream_t stream);

/* One thread that spins until *release (mapped host memory, device
 * address) becomes nonzero: whatever follows on the stream waits. */
cudaError_t np_kern_stall(const volatile int *release, cudaStream_t stream);

/* Whether this binary holds code the current device can run: cudaSuccess,
 * or cudaErrorNoKernelImageForDevice (cudaErrorInvalidDeviceFunction on
 * some drivers) when none of the built targets (NP_CUDA_TARGETS) fits its
 * compute capability and no PTX can be compiled for it. */
cudaError_t np_kern_image(void);

#ifdef __cplusplus
}
#endif

#endif
