/* SPDX-License-Identifier: MIT */
/* Reference for the harness-overhead benchmark: a plain MPI_Allreduce
 * loop on host buffers, timed with MPI_Wtime after a barrier, the slowest
 * rank's time per sample, median over samples. Prints the median time
 * per iteration in microseconds.
 * usage: mpi_allreduce_loop BYTES ITERS SAMPLES */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int rank, iters, samples, count;
	unsigned long long bytes;
	float *sb, *rb;
	double *t;

	/* LOOP_THREAD=funneled: the thread level nccl-probe asks for */
	if (getenv("LOOP_THREAD") && !strcmp(getenv("LOOP_THREAD"), "funneled")) {
		int provided;
		MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	} else {
		MPI_Init(&argc, &argv);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 4) {
		if (rank == 0)
			fprintf(stderr, "usage: mpi_allreduce_loop BYTES ITERS SAMPLES\n");
		MPI_Finalize();
		return 64;
	}
	bytes = strtoull(argv[1], NULL, 10);
	iters = (int)strtol(argv[2], NULL, 10);
	samples = (int)strtol(argv[3], NULL, 10);
	count = (int)(bytes / sizeof(float));
	if (count < 1 || iters < 1 || samples < 1) {
		if (rank == 0)
			fprintf(stderr, "error: BYTES >= 4, ITERS >= 1, SAMPLES >= 1\n");
		MPI_Finalize();
		return 64;
	}
	sb = calloc((size_t)count, sizeof(float));
	rb = calloc((size_t)count, sizeof(float));
	t = calloc((size_t)samples, sizeof(double));
	if (!sb || !rb || !t)
		MPI_Abort(MPI_COMM_WORLD, 3);
	/* write every page, as nccl-probe does: untouched calloc memory reads
	 * as one shared zero page, which stays in cache and flatters the loop */
	for (int i = 0; i < count; i++)
		sb[i] = (float)(i % 61);
	memset(rb, 0xa5, (size_t)count * sizeof(float));
	for (int i = 0; i < 5; i++)
		MPI_Allreduce(sb, rb, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
	for (int s = 0; s < samples; s++) {
		double t0, dt, mx;
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		for (int i = 0; i < iters; i++)
			MPI_Allreduce(sb, rb, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
		dt = MPI_Wtime() - t0;
		MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
		t[s] = mx / iters;
	}
	qsort(t, (size_t)samples, sizeof(double), cmp);
	if (rank == 0)
		printf("%.4f\n", 1e6 * (samples % 2 ? t[samples / 2]
						    : (t[samples / 2 - 1] + t[samples / 2]) / 2));
	free(sb);
	free(rb);
	free(t);
	MPI_Finalize();
	return 0;
}
