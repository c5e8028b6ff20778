/* SPDX-License-Identifier: MIT */
/* The commands: each declares itself in one struct np_cmd (its name, what
 * it needs of the start-up, its usage, exit codes, formats and options
 * bound to the fields they set), and NP_COMMANDS below lists them; every
 * list of commands (dispatch in src/main.c, the parser, --help, the
 * messages that name the commands) is derived from that one table. A
 * command returns its exit code (DESIGN.md).
 *
 * How to add a command
 * --------------------
 * 1. Write src/NAME.c with `static int cmd_NAME(struct np_run *run)`,
 *    the command's own logic with the start-up done, and its declaration
 *    `const struct np_cmd np_cmd_NAME = { .name = "NAME", .fn = cmd_NAME,
 *    ... }`: what it needs (NP_NEEDS_*), its synopsis, description, exit
 *    codes, formats and its options (rows of the OPT_* macros of
 *    src/opts_rows.h, sorted by long name; src/opts_topo.c is one); add
 *    the file to libnp_a_SOURCES in Makefile.am.
 * 2. Add X(NAME) to NP_COMMANDS below: dispatch, --help's list of
 *    commands, the messages that name them and the tests that walk the
 *    commands (tests/unit/test_parse, t0005, t0024) follow.
 * 3. Write man/nccl-probe-NAME.1 (t0005 holds it to the option table)
 *    and, for a JSON document, its schema in contrib/ (the envelope comes
 *    from np_json_envelope, src/json.h). */
#ifndef NP_CMDS_H
#define NP_CMDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	int first; /* index of the command's first option */
	bool mpi;  /* MPI is up */
	struct np_opts o;
	struct np_world w; /* made when mpi (NP_NEEDS_WORLD, or topo under mpirun) */
	bool world_up;
	struct np_run_record rec;         /* this run's id, start and command line */
	struct np_test_plan test;         /* the test-only switches, read once at start-up */
	double t0;                        /* start, monotonic seconds (np_now_s) */
	const struct np_backend_ops *ops; /* NP_NEEDS_BACKEND: the backend chosen */
	char backend_why[192];            /* why auto chose it, or "--backend NAME" */
	void *cmd_state;                  /* a command's own state from its check to its run
					   * (tune's candidates), made and freed by the command */
};

/* A command's own check of its inputs, run on every rank after the files
 * named were checked and agreed over the world (NP_NEEDS_WORLD) */
typedef enum np_status (*np_cmd_check_fn)(struct np_run *run, struct np_err *err);

/* One exit code of a command and what it means, for --help. */
struct np_exit_code {
	int code;
	const char *meaning;
};

/* A command's whole declaration: the command table's row. */
struct np_cmd {
	const char *name;
	int (*fn)(struct np_run *run);
	unsigned needs;        /* NP_NEEDS_* */
	np_cmd_check_fn check; /* its own inputs, agreed over the world, or NULL */
	const char *schema;    /* --version names its document's schema, or NULL */
	int schema_version;
	/* parsing and --help */
	const char *synopsis;             /* the usage line, after "usage: " */
	const char *about;                /* what it does, lines of at most 80 columns */
	const struct np_exit_code *exits; /* its exit codes, ended by a NULL meaning */
	unsigned formats;                 /* NP_FMT_BIT(f) of each --format it writes */
	int operands;                     /* arguments besides options: files (compare's A and B) */
	uint64_t default_max[2];          /* a command that runs a series of sizes: the default
					   * largest size on GPUs [1] and on host memory [0]; else 0 */
	const struct np_option *options;  /* sorted by long name */
	size_t noptions;
	/* its defaults that differ from every command's (np_opts_defaults), or NULL */
	void (*defaults)(struct np_opts *o);
	/* its checks between options once argv is read (pure), or NULL */
	enum np_status (*check_opts)(struct np_opts *o, struct np_err *err);
};

/* The commands, one row each, in the order --help lists them; the first
 * is the default, run when no command is named (and as an nccl-tests
 * binary, all_reduce_perf and the like). */
#define NP_COMMANDS(X) X(sweep) X(topo) X(isolate) X(compare) X(tune)

#define NP_CMD_DECLARE(n) extern const struct np_cmd np_cmd_##n;
NP_COMMANDS(NP_CMD_DECLARE)
#undef NP_CMD_DECLARE

/* The command table (src/cmds.c), from NP_COMMANDS. */
extern const struct np_cmd *const np_commands[];
extern const size_t np_commands_count;

/* The command named name, or NULL. */
const struct np_cmd *np_cmd_find(const char *name);
/* cmd's man page: nccl-probe-NAME, the default command's nccl-probe. */
const char *np_cmd_page(const struct np_cmd *cmd, char *buf, size_t n);
/* The commands' names for a message: 'sweep', 'topo', ... or 'tune'. */
const char *np_cmd_names(char *buf, size_t n);
/* Any command's option named by argument a (--name, --name=V, -x), or
 * NULL: what the option is, wherever it belongs. */
const struct np_option *np_cmd_any_option(const char *a);

int cmd_sweep(struct np_run *run);
int cmd_isolate(struct np_run *run);
int cmd_topo(struct np_run *run);
int cmd_compare(struct np_run *run);
int cmd_tune(struct np_run *run);

enum np_status np_sweep_check(struct np_run *run, struct np_err *err);
enum np_status np_tune_check(struct np_run *run, struct np_err *err);

#endif
