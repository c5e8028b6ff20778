/* SPDX-License-Identifier: MIT */
/* A witness for tests (LD_PRELOAD), appending lines to the file named by
 * $NP_TEST_ENV_LOG, every call going on to the real library:
 *   "rank R: MPI_Init_thread required=L NCCL_DEBUG=V" at MPI's start: the
 *     thread level asked for, and whether NCCL's log settings were made
 *     before MPI started its threads (tests/t0030-sweep-threads-env.sh);
 *   "rank R: FUNCTION NCCL_HOSTID=V" at the first CUDA or NCCL entry point
 *     called: a virtual node's host id must be in the environment before
 *     CUDA or NCCL start, since their threads read it and setenv is not
 *     safe beside getenv (tests/t3008-nccl-hostid-first.sh). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void record(const char *what, const char *name)
{
	const char *log = getenv("NP_TEST_ENV_LOG"), *v = getenv(name);
	const char *rank = getenv("OMPI_COMM_WORLD_RANK");
	char line[512];
	int fd, n;

	if (!log)
		return;
	n = snprintf(line, sizeof(line), "rank %s: %s %s=%s\n", rank ? rank : "?", what, name,
		     v ? v : "(unset)");
	fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (write(fd, line, (size_t)n) != n)
			n = -1;
		close(fd);
	}
}

static void first_gpu_call(const char *fn)
{
	static int done;

	if (!done++)
		record(fn, "NCCL_HOSTID");
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int (*real)(int *, char ***, int, int *) =
		(int (*)(int *, char ***, int, int *))dlsym(RTLD_NEXT, "MPI_Init_thread");
	char what[64];

	snprintf(what, sizeof(what), "MPI_Init_thread required=%d", required);
	record(what, "NCCL_DEBUG");
	return real ? real(argc, argv, required, provided) : 1;
}

int MPI_Init(int *argc, char ***argv)
{
	int (*real)(int *, char ***) = (int (*)(int *, char ***))dlsym(RTLD_NEXT, "MPI_Init");

	record("MPI_Init required=0", "NCCL_DEBUG");
	return real ? real(argc, argv) : 1;
}

#define FORWARD(ret, name, params, args)                                    \
	ret name params                                                     \
	{                                                                   \
		ret(*real) params = (ret(*) params)dlsym(RTLD_NEXT, #name); \
		first_gpu_call(#name);                                      \
		return real ? real args : (ret)1;                           \
	}

FORWARD(int, cudaGetDeviceCount, (int *n), (n))
FORWARD(int, cudaSetDevice, (int d), (d))
FORWARD(int, cudaDriverGetVersion, (int *v), (v))
FORWARD(int, cudaRuntimeGetVersion, (int *v), (v))
FORWARD(int, cudaFree, (void *p), (p))
FORWARD(int, ncclGetVersion, (int *v), (v))
FORWARD(int, ncclGetUniqueId, (void *id), (id))
