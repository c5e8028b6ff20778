/* SPDX-License-Identifier: MIT */
/* topo's declaration (src/cmds.h): its usage, exit codes, formats and
 * options. Its logic is src/cmd_topo.c. */
#include "config.h"

#include "cmds.h"
#include "opts_rows.h"
#include "version.h"

static const struct np_option topo_options[] = {
	OPT_FLAG("check-gdr", 0, check_gdr,
		 "run only the GPUDirect RDMA checks: yes, no or unknown per GPU; exit 0, 1 or 5"),
	OPT_STRING("export", 0, "FILE", export_file,
		   "write an hwloc XML snapshot with nccl-probe's facts to FILE"),
	OPT_CALLBACK("fail-on", 0, "warning|error|never", np_opt_fail_on,
		     "exit 1 on a finding this severe or worse (default error)"),
	OPT_CALLBACK("format", 0, "FORMAT", np_opt_format, "output format (default table)"),
	NP_ROW_HELP,
	OPT_STRING("host-hash", 0, "HASH", host_hash,
		   "with --input of a multi-node NVLink dump, report the tray whose <cpu host_hash> is HASH (default the first)"),
	OPT_STRING("input", 0, "FILE", input,
		   "read the topology from an hwloc XML or NCCL topology XML file"),
	OPT_STRING("metrics", 0, "FILE", metrics_file,
		   "also write the results to FILE in the Prometheus text format (a .prom file for node_exporter)"),
	NP_ROW_OUTPUT,
	NP_ROW_QUIET,
	NP_ROW_RANKS_PER_NODE,
	OPT_FLAG("recommend", 0, recommend,
		 "print only export lines, safe to eval, each with its reason"),
	OPT_DOUBLE("under-load", 0, "SEC", under_load, 0.1, 600,
		   "sample GPU health during SEC seconds of a busy kernel on every GPU (default: 1 s idle)"),
	NP_ROW_VERSION,
	OPT_FLAG("wide", 0, wide,
		 "every column in the table (affinity columns, BAR1, full names), lines unbroken"),
	OPT_DOUBLE("window", 0, "SEC", window, 0.1, 600,
		   "sample GPU health and NIC counters idle over SEC seconds (default 1)"),
};

static const struct np_exit_code topo_exits[] = {
	{ 0,
	  "report written (no finding as severe as --fail-on; --check-gdr: every GPU has a GDR path)" },
	{ 1, "a finding as severe as --fail-on, or --check-gdr found a GPU without GDR" },
	{ 3, "runtime error" },
	{ 5, "--check-gdr could not tell for some GPU" },
	{ 64, "usage" },
	{ 0, NULL },
};

static enum np_status topo_check_opts(struct np_opts *o, struct np_err *err)
{
	if (o->fail_on != 2 && (o->check_gdr || o->recommend))
		return np_fail(err, NP_EUSAGE,
			       "--fail-on judges the findings of the full report; drop --check-gdr and --recommend, which have their own exit status");
	if (o->check_gdr && o->recommend)
		return np_fail(err, NP_EUSAGE,
			       "--check-gdr and --recommend exclude each other; give one");
	if (o->under_load > 0 && (o->input || o->check_gdr || o->recommend))
		return np_fail(err, NP_EUSAGE,
			       "--under-load samples the live GPUs' health; drop --input, --check-gdr and --recommend");
	if (o->window > 0 && (o->input || o->check_gdr || o->recommend))
		return np_fail(err, NP_EUSAGE,
			       "--window is how long the live health check samples; drop --input, --check-gdr and --recommend");
	if (o->window > 0 && o->under_load > 0)
		return np_fail(err, NP_EUSAGE,
			       "--under-load SEC is its own window; give --window or --under-load, not both");
	return NP_OK;
}

const struct np_cmd np_cmd_topo = {
	.name = "topo",
	.fn = cmd_topo,
	.needs = NP_NEEDS_MPI_LAUNCHED,
	.schema = NP_TOPO_SCHEMA,
	.schema_version = NP_TOPO_SCHEMA_VERSION,
	.synopsis = "nccl-probe topo [options]",
	.about = "Map GPU, NIC and NUMA affinity, check GPUDirect RDMA, placement and links,\n"
		 "and recommend NCCL settings.\n",
	.exits = topo_exits,
	.formats = NP_FMT_BIT(NP_FMT_TABLE) | NP_FMT_BIT(NP_FMT_JSON),
	NP_CMD_OPTIONS(topo_options),
	.check_opts = topo_check_opts,
};
