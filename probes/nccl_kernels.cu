// SPDX-License-Identifier: MIT
// Device kernels of the NCCL backend: fill and verify the --check patterns
// of probes/pattern.h on the GPU, so checking 8 GiB copies 8 bytes back, and
// the stall kernel of the test-only switch NCCL_PROBE_TEST_STALL=R:device.
#include "config.h"

#include <stdint.h>

#include "nccl_kernels.h"
#include "pattern.h"

namespace {

constexpr int kThreads = 256;

// Grid for n elements: enough blocks to fill the GPU, grid-stride beyond.
unsigned grid_for(size_t n)
{
	static int sms = 0;
	int dev = 0;
	size_t blocks = (n + kThreads - 1) / kThreads;

	if (sms <= 0 && cudaGetDevice(&dev) == cudaSuccess &&
	    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
		sms = 0;
	size_t cap = (size_t)(sms > 0 ? sms : 108) * 8;
	if (blocks > cap)
		blocks = cap;
	return blocks ? (unsigned)blocks : 1u;
}

// The data type is a template parameter so that np_pat_store/np_pat_load
// reduce to one load or store per element.
template <int DT>
__global__ void fill_kernel(void *buf, size_t n, int reduce, int op, int nranks, int rank)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
		np_pat_store(buf, DT, j, np_pat_input(reduce, op, DT, nranks, rank, j));
}

template <int DT>
__global__ void check_kernel(const void *buf, size_t n, struct np_coll_expect ex, int op,
			     int nranks, int rank, int root, size_t count, unsigned long long *wrong)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	unsigned long long bad = 0;

	for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
		int64_t want = np_pat_expect(ex, op, DT, nranks, rank, root, count, k);
		if (!np_pat_ok(buf, DT, op, nranks, k, want))
			bad++;
	}
	for (int off = 16; off > 0; off >>= 1)
		bad += __shfl_down_sync(0xffffffffu, bad, off);
	if ((threadIdx.x & 31) == 0 && bad)
		atomicAdd(wrong, bad);
}

__global__ void stall_kernel(const volatile int *release)
{
	while (*release == 0)
		__nanosleep(100000);
}

template <int DT>
cudaError_t fill_as(void *buf, size_t n, int reduce, int op, int nranks, int rank, cudaStream_t s)
{
	fill_kernel<DT><<<grid_for(n), kThreads, 0, s>>>(buf, n, reduce, op, nranks, rank);
	return cudaGetLastError();
}

template <int DT>
cudaError_t check_as(const void *buf, size_t n, struct np_coll_expect ex, int op, int nranks,
		     int rank, int root, size_t count, unsigned long long *wrong, cudaStream_t s)
{
	check_kernel<DT><<<grid_for(n), kThreads, 0, s>>>(buf, n, ex, op, nranks, rank, root,
							  count, wrong);
	return cudaGetLastError();
}

} // namespace

#define NP_DTYPE_CASES(CALL)                                                                      \
	switch (dtype) {                                                                          \
	case NP_INT8: return CALL(NP_INT8);                                                       \
	case NP_UINT8: return CALL(NP_UINT8);                                                     \
	case NP_INT32: return CALL(NP_INT32);                                                     \
	case NP_UINT32: return CALL(NP_UINT32);                                                   \
	case NP_INT64: return CALL(NP_INT64);                                                     \
	case NP_UINT64: return CALL(NP_UINT64);                                                   \
	case NP_HALF: return CALL(NP_HALF);                                                       \
	case NP_FLOAT: return CALL(NP_FLOAT);                                                     \
	case NP_DOUBLE: return CALL(NP_DOUBLE);                                                   \
	case NP_BFLOAT16: return CALL(NP_BFLOAT16);                                               \
	case NP_FP8E4M3: return CALL(NP_FP8E4M3);                                                 \
	case NP_FP8E5M2: return CALL(NP_FP8E5M2);                                                 \
	}                                                                                         \
	return cudaErrorInvalidValue

extern "C" cudaError_t np_kern_fill(void *buf, size_t nelem, int dtype, int reduce, int op,
				    int nranks, int rank, cudaStream_t stream)
{
	if (nelem == 0)
		return cudaSuccess;
#define FILL(DT) fill_as<DT>(buf, nelem, reduce, op, nranks, rank, stream)
	NP_DTYPE_CASES(FILL);
#undef FILL
}

extern "C" cudaError_t np_kern_check(const void *buf, size_t nelem, int dtype,
				     struct np_coll_expect ex, int op, int nranks, int rank, int root,
				     size_t count, unsigned long long *wrong, cudaStream_t stream)
{
	if (nelem == 0)
		return cudaSuccess;
#define CHECK(DT) check_as<DT>(buf, nelem, ex, op, nranks, rank, root, count, wrong, stream)
	NP_DTYPE_CASES(CHECK);
#undef CHECK
}

extern "C" cudaError_t np_kern_stall(const volatile int *release, cudaStream_t stream)
{
	stall_kernel<<<1, 1, 0, stream>>>(release);
	return cudaGetLastError();
}

extern "C" cudaError_t np_kern_image(void)
{
	cudaFuncAttributes attr;

	/* the simplest kernel of the file: every kernel shares its targets */
	return cudaFuncGetAttributes(&attr, stall_kernel);
}
