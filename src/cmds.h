/* SPDX-License-Identifier: MIT */
/* The commands of the command table (src/main.c) and what run_cmd() gives
 * them: the options parsed and checked, MPI up, the watchdog started, the
 * world (with virtual nodes) made and the backend chosen, each where the
 * command table says the command needs it. A command returns its exit
 * code (DESIGN.md).
 *
 * How to add a command
 * --------------------
 * 1. Write src/NAME.c with `int cmd_NAME(struct np_run *run)`: the
 *    command's own logic, start-up already done; declare it below.
 * 2. Add its row to commands[] in src/main.c with what it needs
 *    (NP_NEEDS_*), its option mask (NP_CMD_* in src/opts.h) and what its
 *    --version says; bind its options to the mask in src/opts.c.
 * 3. Write man/nccl-probe-NAME.1 and, for a JSON document, its schema in
 *    contrib/ (the envelope comes from np_json_envelope, src/json.h). */
#ifndef NP_CMDS_H
#define NP_CMDS_H

#include <stdbool.h>

#include "../probes/backend.h"
#include "opts.h"
#include "run_record.h"
#include "world.h"

/* What a command needs of the start-up (struct np_cmd's needs). */
#define NP_NEEDS_MPI 0x1u          /* always MPI_Init (singleton without mpirun) */
#define NP_NEEDS_MPI_LAUNCHED 0x2u /* MPI_Init only when started by an MPI launcher */
#define NP_NEEDS_NCCL_LOG 0x4u     /* may run NCCL: its log set up before any thread */
#define NP_NEEDS_WATCHDOG 0x8u     /* a rank that stops is named (--timeout) */
#define NP_NEEDS_WORLD 0x10u       /* the world, files checked on every rank alike */
#define NP_NEEDS_VNODES 0x20u      /* --ranks-per-node makes virtual nodes */
#define NP_NEEDS_BACKEND 0x40u     /* --backend chosen, agreed over the world */
#define NP_NEEDS_TRIES 0x80u       /* NCCL's log asked with its tuning lines (tune) */

/* One run of one command, filled by run_cmd() before the command runs. */
struct np_run {
	int argc;
	char **argv;
	int first;                      /* index of the command's first option */
	bool mpi;                       /* MPI is up */
	struct np_opts o;
	struct np_world w;              /* made when mpi (NP_NEEDS_WORLD, or topo under mpirun) */
	bool world_up;
	struct np_run_record rec;       /* this run's id, start and command line */
	struct np_test_plan test;       /* the test-only switches, read once at start-up */
	double t0;                      /* start, monotonic seconds (np_now_s) */
	const struct np_backend_ops *ops; /* NP_NEEDS_BACKEND: the backend chosen */
	char backend_why[192];          /* why auto chose it, or "--backend NAME" */
};

/* A command's own check of its inputs, run on every rank after the files
 * named were checked and agreed over the world (NP_NEEDS_WORLD) */
typedef enum np_status (*np_cmd_check_fn)(struct np_run *run, struct np_err *err);

int cmd_sweep(struct np_run *run);
int cmd_isolate(struct np_run *run);
int cmd_topo(struct np_run *run);
int cmd_compare(struct np_run *run);
int cmd_tune(struct np_run *run);

enum np_status np_sweep_check(struct np_run *run, struct np_err *err);
enum np_status np_tune_check(struct np_run *run, struct np_err *err);

#endif
