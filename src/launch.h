/* SPDX-License-Identifier: MIT */
/* The launcher's idea of the job, from its environment, read once before
 * MPI_Init (which sets some of these variables itself: Open MPI's
 * singleton sets PMIX_RANK and OMPI_COMM_WORLD_SIZE): how many processes
 * it started and this one's rank (MPI launchers' variables first; Slurm's
 * only without them, since mpirun under Slurm starts its daemons with
 * srun and the ranks inherit the daemons' step), and how many it started
 * on this host. */
#ifndef NP_LAUNCH_H
#define NP_LAUNCH_H

#include <stdbool.h>

struct np_launch {
	long size;            /* processes started; 0: no launcher variable says */
	long rank;            /* this one's rank; -1 unknown */
	const char *size_var; /* the variable that gave size; NULL with none */
	int local_size;       /* ranks started on this host (Open MPI's, Hydra's or
			       * srun's variables); 0 unknown */
	bool launched;        /* an MPI launcher's variable is set */
};

void np_launch_read(struct np_launch *l);

#endif
