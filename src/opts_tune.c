/* SPDX-License-Identifier: MIT */
/* tune's declaration (src/cmds.h): its usage, exit codes, formats and
 * options. Its logic is src/tune.c. */
#include "config.h"

#include <string.h>

#include "cmds.h"
#include "opts_rows.h"

static const struct np_option tune_options[] = {
	NP_ROW_BACKEND,
	OPT_DOUBLE("budget", 0, "SEC", budget, 0.001, 86400,
		   "seconds per size and per candidate with --iters auto"),
	NP_ROW_CHECK,
	NP_ROW_COLL,
	NP_ROW_DTYPE,
	OPT_CALLBACK("format", 0, "FORMAT", np_opt_format, "output format (default table)"),
	NP_ROW_GPU_MAP,
	NP_ROW_GRAPH,
	NP_ROW_HELP,
	NP_ROW_INPLACE,
	NP_ROW_ITERS,
	NP_ROW_JSON,
	NP_ROW_MAXBYTES,
	OPT_CALLBACK("min-change", 0, "PCT", np_opt_min_change,
		     "a candidate is faster or slower at a size only where it differs by PCT percent or more (default 5)"),
	NP_ROW_MINBYTES,
	NP_ROW_NO_CHECK,
	NP_ROW_OP,
	NP_ROW_OUTPUT,
	NP_ROW_QUIET,
	NP_ROW_RANKS_PER_NODE,
	NP_ROW_ROOT,
	NP_ROW_SAMPLES,
	NP_ROW_STEPBYTES,
	NP_ROW_STEPFACTOR,
	OPT_CALLBACK("sweep", 0, "MIN:MAX[:xF|:+STEP]", np_opt_sweep,
		     "sizes: bytes or K/M/G/T, powers of 1024 (default 8 B x4 up to 1G on GPUs, as fits; 4M on host memory)"),
	OPT_DOUBLE("timeout", 'T', "SEC", timeout, 0, NP_TIMEOUT_MAX,
		   "a candidate whose call outlasts SEC seconds is hung; the baseline's end the job (exit 4)"),
	OPT_CALLBACK("try", 0, "VAR=V1,V2,...", np_opt_try,
		     "a setting to try against the environment as launched, one candidate per value (repeatable)"),
	OPT_STRING("try-file", 0, "FILE", try_file,
		   "candidates from FILE: one per line, VAR=VALUE settings separated by spaces"),
	NP_ROW_VERSION,
	NP_ROW_WARMUP,
	OPT_FLAG("wide", 0, wide,
		 "a column per candidate in the table, lines unbroken (default: a line per size and candidate)"),
};

static const struct np_exit_code tune_exits[] = {
	{ 0, "the tune ran, whatever it found" },
	{ 2, "the baseline computed wrong data (the node is faulty, not a setting)" },
	{ 3, "runtime error" },
	{ 4, "a candidate stalled" },
	{ 64, "usage" },
	{ 130, "interrupted" },
	{ 0, NULL },
};

/* NCCL_ALGO and NCCL_PROTO matter most to allreduce */
static void tune_defaults(struct np_opts *o)
{
	for (int c = 0; c < NP_COLL_COUNT; c++)
		o->colls[c] = !strcmp(np_colls[c].name, "allreduce");
	o->budget = 1.0;
}

static enum np_status tune_check_opts(struct np_opts *o, struct np_err *err)
{
	if (!o->ntries && !o->try_file)
		return np_fail(err, NP_EUSAGE,
			       "tune needs candidates: --try VAR=V1,V2 (e.g. --try NCCL_PROTO=LL,Simple) or --try-file FILE");
	return NP_OK;
}

const struct np_cmd np_cmd_tune = {
	.name = "tune",
	.fn = cmd_tune,
	.needs = NP_NEEDS_MPI | NP_NEEDS_NCCL_LOG | NP_NEEDS_TRIES | NP_NEEDS_WATCHDOG |
		 NP_NEEDS_WORLD | NP_NEEDS_VNODES | NP_NEEDS_BACKEND,
	.check = np_tune_check,
	.synopsis = "mpirun -np N nccl-probe tune --try VAR=V1,V2 [--try ...] [options]",
	.about = "Measure each candidate setting against the environment as launched, in\n"
		 "alternating batches, each on a communicator made with the setting in effect\n"
		 "(confirmed in NCCL's log); report where each is faster or slower with a 95%\n"
		 "interval, and export lines only for a significant winner.\n",
	.exits = tune_exits,
	.formats = NP_FMT_BIT(NP_FMT_TABLE) | NP_FMT_BIT(NP_FMT_JSON),
	/* every arm holds its own buffers, and each size is measured in every
	 * arm and round */
	.default_max = { 4ull << 20, 1ull << 30 },
	NP_CMD_OPTIONS(tune_options),
	.defaults = tune_defaults,
	.check_opts = tune_check_opts,
};
