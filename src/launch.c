/* SPDX-License-Identifier: MIT */
/* The launcher's environment (launch.h), read once before MPI_Init. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/number.h"
#include "launch.h"

static bool launched(void)
{
	static const char *const vars[] = {
		"OMPI_COMM_WORLD_SIZE", "PMIX_RANK",      "PMI_RANK", "PMI_SIZE",
		"MV2_COMM_WORLD_SIZE",  "MPI_LOCALNRANKS"
	};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]))
			return true;
	return false;
}

static long env_long(const char *name)
{
	int64_t n;

	return np_parse_i64(getenv(name), 10, 0, INT32_MAX, &n) ? (long)n : -1;
}

static void launcher(struct np_launch *l)
{
	static const char *const mpi_vars[][2] = {
		{ "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK" },
		{ "PMI_SIZE", "PMI_RANK" },
		{ "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_RANK" },
	};
	*l = (struct np_launch){ .size = 0, .rank = -1 };

	for (size_t i = 0; i < sizeof(mpi_vars) / sizeof(mpi_vars[0]); i++) {
		long n = env_long(mpi_vars[i][0]), r = env_long(mpi_vars[i][1]);
		if (r >= 0 && l->rank < 0)
			l->rank = r;
		if (n > 0 && !l->size_var) {
			l->size = n;
			l->size_var = mpi_vars[i][0];
		}
	}
	if (l->rank < 0)
		l->rank = env_long("PMIX_RANK");
	if (!l->size_var && getenv("SLURM_STEP_ID")) {
		long n = env_long("SLURM_STEP_NUM_TASKS");
		if (n > 0) {
			l->size = n;
			l->size_var = "SLURM_STEP_NUM_TASKS";
			if (l->rank < 0)
				l->rank = env_long("SLURM_PROCID");
		}
	}
}

/* The number of ranks the launcher started on this host, 0 unknown: Open
 * MPI's, MPICH's (Hydra) or srun's variables. */
static int local_size(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS" };
	const char *s, *tpn;
	int64_t v, rep;
	long node;

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if ((v = env_long(vars[i])) > 0 && v <= INT32_MAX)
			return (int)v;
	/* srun: SLURM_STEP_TASKS_PER_NODE="2(x3),1", this host node SLURM_NODEID */
	if (!(tpn = getenv("SLURM_STEP_TASKS_PER_NODE")) || (node = env_long("SLURM_NODEID")) < 0)
		return 0;
	for (s = tpn; *s;) {
		rep = 1;
		if (!np_scan_i64(&s, 10, 1, INT32_MAX, &v))
			return 0;
		if (!strncmp(s, "(x", 2)) {
			s += 2;
			if (!np_scan_i64(&s, 10, 1, INT32_MAX, &rep) || *s != ')')
				return 0;
			s++;
		}
		if (*s && *s != ',')
			return 0;
		if (node < rep)
			return (int)v;
		node -= rep;
		s += *s == ',';
	}
	return 0;
}

void np_launch_read(struct np_launch *l)
{
	launcher(l);
	l->launched = launched();
	l->local_size = local_size();
}
