/* SPDX-License-Identifier: MIT */
/* The commands of the command table (src/main.c). Each gets the whole argv
 * and the index of its first option; MPI is already up when the command
 * table says it needs it. Returns the exit code (DESIGN.md). */
#ifndef NP_CMDS_H
#define NP_CMDS_H

#include <stdbool.h>

int cmd_sweep(int argc, char **argv, int first, bool mpi);
int cmd_isolate(int argc, char **argv, int first, bool mpi);
int cmd_topo(int argc, char **argv, int first, bool mpi);
int cmd_compare(int argc, char **argv, int first, bool mpi);
int cmd_tune(int argc, char **argv, int first, bool mpi);

#endif
