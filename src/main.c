/* SPDX-License-Identifier: MIT */
/* nccl-probe: the command table and run_cmd(), which gives each command
 * what it needs (MPI) and checks that stdout was written cleanly. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "cmds.h"
#include "msg.h"
#include "opts.h"

#define NEEDS_MPI 0x1u          /* always MPI_Init (singleton without mpirun) */
#define NEEDS_MPI_LAUNCHED 0x2u /* MPI_Init only when started by an MPI launcher */

static const struct np_cmd {
	const char *name;
	int (*fn)(int argc, char **argv, int first, bool mpi);
	unsigned needs;
} commands[] = {
	{ "sweep", cmd_sweep, NEEDS_MPI },
	{ "topo", cmd_topo, NEEDS_MPI_LAUNCHED },
};

static bool mpi_launched(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
					    "PMI_SIZE", "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS" };

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]))
			return true;
	return false;
}

static int run_cmd(const struct np_cmd *cmd, int argc, char **argv, int first)
{
	bool mpi = (cmd->needs & NEEDS_MPI) || ((cmd->needs & NEEDS_MPI_LAUNCHED) && mpi_launched());
	int code;

	if (mpi) {
		/* MPI_Init, not MPI_Init_thread(FUNNELED): only the main thread
		 * calls MPI (the watchdog, CUDA's and NCCL's threads never do),
		 * and some MPI builds take locks on every call above the single
		 * level, which a host-memory measurement would then include */
		if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
			fprintf(stderr, "error: MPI_Init failed; start nccl-probe with mpirun or check the MPI installation\n");
			return NP_EXIT_RUNTIME;
		}
		MPI_Comm_rank(MPI_COMM_WORLD, &np_msg_rank);
		MPI_Comm_size(MPI_COMM_WORLD, &np_msg_size);
	}
	code = cmd->fn(argc, argv, first, mpi);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		np_rank_error("cannot write to standard output: %s", strerror(errno));
		if (code == 0)
			code = NP_EXIT_RUNTIME;
	}
	if (mpi)
		np_exit(code);
	return code;
}

int main(int argc, char **argv)
{
	const char *name = "sweep";
	int first = 1;

	if (argc > 1 && argv[1][0] != '-') {
		name = argv[1];
		first = 2;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return run_cmd(&commands[i], argc, argv, first);
	fprintf(stderr, "error: unknown command '%s'; use 'sweep' or 'topo' (see 'nccl-probe --help')\n",
		name);
	return NP_EXIT_USAGE;
}
