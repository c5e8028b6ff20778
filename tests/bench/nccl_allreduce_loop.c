/* SPDX-License-Identifier: MIT */
/* The plainest all-reduce timing loop, as a reference for nccl-probe's NCCL
 * backend: one blocking communicator, float sum out of place, ITERS
 * ncclAllReduce calls back to back on one stream between two CUDA events
 * (or, with -g, the same calls captured once in a CUDA graph and the graph
 * launched between the events); the slowest rank's time of each sample,
 * divided by ITERS; median and minimum over SAMPLES.
 *
 *   mpirun -np N nccl_allreduce_loop [-b MIN] [-e MAX] [-f FACTOR]
 *          [-n ITERS | -N I1,I2,...] [-s SAMPLES] [-w WARMUP] [-g]
 *
 * -N gives the iterations of each size in order (e.g. the ones nccl-probe
 * chose). Output: one line per size, "size_bytes count iters median_us
 * min_us". */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#define MAX_SIZES 64

#define CUDA_OK(x)                                                                      \
	do {                                                                            \
		cudaError_t e_ = (x);                                                   \
		if (e_ != cudaSuccess) {                                                \
			fprintf(stderr, "error: %s: %s\n", #x, cudaGetErrorString(e_)); \
			MPI_Abort(MPI_COMM_WORLD, 3);                                   \
		}                                                                       \
	} while (0)

#define NCCL_OK(x)                                                                      \
	do {                                                                            \
		ncclResult_t r_ = (x);                                                  \
		if (r_ != ncclSuccess) {                                                \
			fprintf(stderr, "error: %s: %s\n", #x, ncclGetErrorString(r_)); \
			MPI_Abort(MPI_COMM_WORLD, 3);                                   \
		}                                                                       \
	} while (0)

static unsigned long long parse_size(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || errno) {
		fprintf(stderr, "error: invalid size '%s'\n", s);
		exit(64);
	}
	switch (*end) {
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'M':
		v <<= 20;
		end++;
		break;
	case 'G':
		v <<= 30;
		end++;
		break;
	default: break;
	}
	if (*end) {
		fprintf(stderr, "error: invalid size '%s'\n", s);
		exit(64);
	}
	return v;
}

static long parse_long(const char *s, long lo)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < lo) {
		fprintf(stderr, "error: invalid number '%s'\n", s);
		exit(64);
	}
	return v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* What the options set */
struct args {
	unsigned long long minb, maxb, factor;
	long iters, samples, warmup, iters_of[MAX_SIZES];
	int nsizes_iters, graph;
};

/* The options, nccl-tests' spelling: 0, or 64 after a message */
static int parse_args(int argc, char **argv, struct args *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-g")) {
			o->graph = 1;
			continue;
		}
		if (!v) {
			fprintf(stderr, "error: %s needs a value\n", a);
			return 64;
		}
		i++;
		if (!strcmp(a, "-b"))
			o->minb = parse_size(v);
		else if (!strcmp(a, "-e"))
			o->maxb = parse_size(v);
		else if (!strcmp(a, "-f"))
			o->factor = (unsigned long long)parse_long(v, 2);
		else if (!strcmp(a, "-n"))
			o->iters = parse_long(v, 1);
		else if (!strcmp(a, "-s"))
			o->samples = parse_long(v, 1);
		else if (!strcmp(a, "-w"))
			o->warmup = parse_long(v, 0);
		else if (!strcmp(a, "-N")) {
			char *copy = strdup(v), *tok, *save = NULL;
			for (tok = strtok_r(copy, ",", &save); tok && o->nsizes_iters < MAX_SIZES;
			     tok = strtok_r(NULL, ",", &save))
				o->iters_of[o->nsizes_iters++] = parse_long(tok, 1);
			free(copy);
		} else {
			fprintf(stderr, "error: unknown option '%s'\n", a);
			return 64;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct args o = {
		.minb = 8, .maxb = 8ull << 30, .factor = 4, .iters = 20, .samples = 10, .warmup = 5
	};
	int rank, nranks, local = 0;
	float *send, *recv;
	MPI_Comm node;
	ncclUniqueId id;
	ncclComm_t comm;
	cudaStream_t stream;
	cudaEvent_t ev0, ev1;
	double *t;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (parse_args(argc, argv, &o))
		return 64;

	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
	MPI_Comm_rank(node, &local);
	CUDA_OK(cudaSetDevice(local));
	CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	CUDA_OK(cudaEventCreate(&ev0));
	CUDA_OK(cudaEventCreate(&ev1));
	CUDA_OK(cudaMalloc((void **)&send, o.maxb));
	CUDA_OK(cudaMalloc((void **)&recv, o.maxb));
	CUDA_OK(cudaMemset(send, 0, o.maxb));
	if (rank == 0)
		NCCL_OK(ncclGetUniqueId(&id));
	MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
	NCCL_OK(ncclCommInitRank(&comm, nranks, id, rank));
	t = calloc((size_t)o.samples, sizeof(*t));
	if (rank == 0)
		printf("# nccl_allreduce_loop: %d ranks, float sum, out of place, %s\n"
		       "# size_bytes count iters median_us min_us\n",
		       nranks, o.graph ? "CUDA graph" : "eager");

	for (unsigned long long size = o.minb, k = 0; size <= o.maxb; size *= o.factor, k++) {
		size_t count = size / sizeof(float);
		long n = k < (unsigned long long)o.nsizes_iters ? o.iters_of[k] : o.iters;
		cudaGraphExec_t exec = NULL;
		float ms;

		if (!count)
			continue;
		for (long i = 0; i < o.warmup; i++)
			NCCL_OK(ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm, stream));
		if (o.graph) {
			cudaGraph_t g;
			CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
			for (long i = 0; i < n; i++)
				NCCL_OK(ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm,
						      stream));
			CUDA_OK(cudaStreamEndCapture(stream, &g));
			CUDA_OK(cudaGraphInstantiateWithFlags(&exec, g, 0));
			CUDA_OK(cudaGraphDestroy(g));
			CUDA_OK(cudaGraphUpload(exec, stream));
			CUDA_OK(cudaGraphLaunch(exec, stream)); /* warm-up of the graph */
		}
		CUDA_OK(cudaStreamSynchronize(stream));
		for (long s = 0; s < o.samples; s++) {
			MPI_Barrier(MPI_COMM_WORLD);
			CUDA_OK(cudaEventRecord(ev0, stream));
			if (o.graph)
				CUDA_OK(cudaGraphLaunch(exec, stream));
			else
				for (long i = 0; i < n; i++)
					NCCL_OK(ncclAllReduce(send, recv, count, ncclFloat, ncclSum,
							      comm, stream));
			CUDA_OK(cudaEventRecord(ev1, stream));
			CUDA_OK(cudaEventSynchronize(ev1));
			CUDA_OK(cudaEventElapsedTime(&ms, ev0, ev1));
			t[s] = (double)ms * 1e3 / (double)n;
			MPI_Allreduce(MPI_IN_PLACE, &t[s], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
		}
		if (exec)
			CUDA_OK(cudaGraphExecDestroy(exec));
		qsort(t, (size_t)o.samples, sizeof(*t), cmp_double);
		if (rank == 0) {
			double med = o.samples % 2 ? t[o.samples / 2]
						   : (t[o.samples / 2 - 1] + t[o.samples / 2]) / 2;
			printf("%llu %zu %ld %.3f %.3f\n", size, count, n, med, t[0]);
			fflush(stdout);
		}
	}
	free(t);
	NCCL_OK(ncclCommDestroy(comm));
	CUDA_OK(cudaFree(send));
	CUDA_OK(cudaFree(recv));
	MPI_Finalize();
	return 0;
}
