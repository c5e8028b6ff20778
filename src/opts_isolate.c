/* SPDX-License-Identifier: MIT */
/* isolate's declaration (src/cmds.h): its usage, exit codes, formats and
 * options. Its logic is src/isolate.c. */
#include "config.h"

#include "cmds.h"
#include "opts_rows.h"

static const struct np_option isolate_options[] = {
	NP_ROW_BACKEND,
	OPT_STRING("baseline", 0, "FILE", baseline,
		   "floors from a known-good 'isolate --format json' run on nodes of the same type (device and ranks per node)"),
	OPT_DOUBLE("budget", 0, "SEC", budget, 0.001, 86400,
		   "seconds of samples per figure (a group in a round), fewer once its median is known to 1%"),
	NP_ROW_DTYPE,
	OPT_CALLBACK("format", 0, "FORMAT", np_opt_format, "output format (default table)"),
	NP_ROW_GPU_MAP,
	NP_ROW_HELP,
	OPT_STRING("metrics", 0, "FILE", metrics_file,
		   "also write each node's state to FILE in the Prometheus text format (a .prom file for node_exporter)"),
	OPT_CALLBACK("min-busbw", 0, "GBPS", np_opt_min_busbw_one,
		     "a floor: a group is named only when also below GBPS, and every node together is held to it"),
	OPT_CALLBACK("min-effect", 0, "PCT", np_opt_min_effect,
		     "name nothing less than PCT percent below the fleet (default 5)"),
	NP_ROW_OUTPUT,
	NP_ROW_QUIET,
	NP_ROW_RANKS_PER_NODE,
	OPT_INT("seed", 0, "N", seed, 0, INT_MAX,
		"the random order of partners (default: drawn, and reported)"),
	OPT_CALLBACK("size", 0, "SIZE", np_opt_size,
		     "message size of each measurement (default 64M; 1M on host memory)"),
	NP_ROW_TIMEOUT,
	OPT_STRING("topology", 0, "FILE", topology,
		   "leaf switches from Slurm's topology.conf: pairs compared by relation, a busy leaf one finding"),
	NP_ROW_VERSION,
	OPT_INT("warmup", 'w', "N", warmup, 0, 1000000,
		"warm-up iterations per figure (default 5)"),
};

static const struct np_exit_code isolate_exits[] = {
	{ 0, "every node and link good" },
	{ 1, "a node, link, the fleet, the scale or a segment named" },
	{ 2, "a node computes wrong data" },
	{ 3, "runtime error" },
	{ 4, "timeout" },
	{ 6, "inconclusive (nothing named, some node not cleared)" },
	{ 64, "usage" },
	{ 0, NULL },
};

static void isolate_defaults(struct np_opts *o) { o->budget = 1.0; }

const struct np_cmd np_cmd_isolate = {
	.name = "isolate",
	.fn = cmd_isolate,
	.needs = NP_NEEDS_MPI | NP_NEEDS_NCCL_LOG | NP_NEEDS_WATCHDOG | NP_NEEDS_WORLD |
		 NP_NEEDS_VNODES | NP_NEEDS_BACKEND,
	.synopsis = "mpirun -np N nccl-probe isolate [options]",
	.about = "Find the bad node or link in one job: disjoint groups (each node alone,\n"
		 "pairs of nodes) measure at the same time, round after round, and a node\n"
		 "or link is named only when it is significantly below the fleet again\n"
		 "with new partners.\n",
	.exits = isolate_exits,
	.formats = NP_FMT_BIT(NP_FMT_TABLE) | NP_FMT_BIT(NP_FMT_JSON),
	NP_CMD_OPTIONS(isolate_options),
	.defaults = isolate_defaults,
};
