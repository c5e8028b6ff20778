/* SPDX-License-Identifier: MIT */
/* The sweep's declaration (src/cmds.h): its usage, exit codes, formats and
 * options; the default command, and nccl-tests' binaries (all_reduce_perf
 * and the like) run it. Its logic is src/sweep.c. */
#include "config.h"

#include "cmds.h"
#include "opts_rows.h"

static const struct np_option sweep_options[] = {
	OPT_CALLBACK("average", 'a', "3", np_opt_average,
		     "nccl-tests -a: only 3, the slowest rank's time, which every row reports"),
	NP_ROW_BACKEND,
	OPT_STRING("baseline", 0, "FILE", baseline,
		   "a known-good sweep's JSON report: this run compared with it row by row (exit 1 on a regression)"),
	OPT_CALLBACK("blocking", 'z', "0", np_opt_blocking,
		     "nccl-tests -z: only 0, no barrier between the iterations of a batch"),
	OPT_DOUBLE("budget", 0, "SEC", budget, 0.001, 86400,
		   "time budget per size with --iters auto"),
	NP_ROW_CHECK,
	NP_ROW_COLL,
	OPT_STRING("csv", 0, "FILE", csv_file,
		   "also write the CSV report to FILE (the table stays on standard output)"),
	OPT_CALLBACK("cudagraph", 'G', "N", np_opt_cudagraph,
		     "nccl-tests -G: N > 0 is --graph, 0 is none"),
	NP_ROW_DTYPE,
	OPT_CALLBACK("format", 0, "FORMAT", np_opt_format,
		     "output format (default table; nccl-tests: its table of one collective, and with -J its JSON)"),
	NP_ROW_GPU_MAP,
	NP_ROW_GRAPH,
	NP_ROW_HELP,
	NP_ROW_INPLACE,
	NP_ROW_ITERS,
	NP_ROW_JSON,
	OPT_SIZE("judge-from", 0, "SIZE", judge_from,
		 "verdicts judge the rows from SIZE up (default: the largest quarter of the sizes)"),
	OPT_CALLBACK("local-register", 'R', "0", np_opt_local_register,
		     "nccl-tests -R: only 0, buffers are not registered with NCCL"),
	OPT_CALLBACK("max-regression", 0, "PCT", np_opt_max_regression,
		     "with --baseline: exit 1 only for a row significantly slower than the baseline by more than PCT percent (default 0)"),
	NP_ROW_MAXBYTES,
	OPT_STRING("metrics", 0, "FILE", metrics_file,
		   "also write the results to FILE in the Prometheus text format (a .prom file for node_exporter)"),
	OPT_CALLBACK("min-busbw", 0, "GBPS|COLL=GBPS,...", np_opt_min_busbw,
		     "fail (exit 1) if a judged row's busbw is below GBPS (one value or per collective)"),
	OPT_CALLBACK("min-change", 0, "PCT", np_opt_min_change,
		     "with --baseline: a row reads faster or slower only where it differs by PCT percent or more (default 5)"),
	OPT_CALLBACK("min-eff", 0, "PCT|COLL=PCT,...", np_opt_min_eff,
		     "fail (exit 1) if a judged row's eff is below PCT percent, e.g. 80 or 80% (one value or per collective)"),
	NP_ROW_MINBYTES,
	OPT_CALLBACK("ngpus", 'g', "1", np_opt_ngpus,
		     "nccl-tests -g: only 1 (one GPU per rank: use mpirun -np N)"),
	NP_ROW_NO_CHECK,
	OPT_CALLBACK("nthreads", 't', "1", np_opt_nthreads,
		     "nccl-tests -t: only 1 (one GPU per rank: use mpirun -np N)"),
	NP_ROW_OP,
	NP_ROW_OUTPUT,
	NP_ROW_QUIET,
	NP_ROW_RANKS_PER_NODE,
	NP_ROW_ROOT,
	NP_ROW_SAMPLES,
	NP_ROW_STEPBYTES,
	NP_ROW_STEPFACTOR,
	OPT_CALLBACK("sweep", 0, "MIN:MAX[:xF|:+STEP]", np_opt_sweep,
		     "sizes: bytes or K/M/G/T, powers of 1024 (default 8 B x4 up to 8G on GPUs, as fits; 128M on host memory)"),
	NP_ROW_TIMEOUT,
	NP_ROW_VERSION,
	NP_ROW_WARMUP,
	OPT_FLAG("wide", 0, wide,
		 "every column in the table (min, max, ci%, limit, samples, iters, verdict, stop), lines unbroken"),
};

static const struct np_exit_code sweep_exits[] = {
	{ 0, "ok" },
	{ 1, "verdict failed" },
	{ 2, "wrong data" },
	{ 3, "runtime error" },
	{ 4, "timeout" },
	{ 6, "inconclusive (a row's interval reaches its threshold or --baseline's margin)" },
	{ 64, "usage" },
	{ 0, NULL },
};

/* Rows of one sweep: at most what compare reads (NP_MAX_ROWS) */
static enum np_status sweep_check_opts(struct np_opts *o, struct np_err *err)
{
	size_t ncolls = 0, nsizes = np_opts_sizes(o, NULL, 0);

	if (np_opts_nt_min_bw(o, err))
		return NP_EUSAGE;
	for (int c = 0; c < NP_COLL_COUNT; c++)
		ncolls += o->colls[c];
	if (ncolls * nsizes > NP_MAX_ROWS)
		return np_fail(err, NP_EUSAGE,
			       "the sweep has %zu rows (%zu collectives x %zu sizes), more than the %d that compare reads; use a larger step or fewer --coll",
			       ncolls * nsizes, ncolls, nsizes, NP_MAX_ROWS);
	return NP_OK;
}

const struct np_cmd np_cmd_sweep = {
	.name = "sweep",
	.fn = cmd_sweep,
	.needs = NP_NEEDS_MPI | NP_NEEDS_NCCL_LOG | NP_NEEDS_WATCHDOG | NP_NEEDS_WORLD |
		 NP_NEEDS_VNODES | NP_NEEDS_BACKEND,
	.check = np_sweep_check,
	.synopsis = "mpirun -np N nccl-probe [sweep] [options]",
	.about = "Measure NCCL (or MPI) collectives over a range of sizes and compare the\n"
		 "bus bandwidth with what this machine's links allow.\n",
	.exits = sweep_exits,
	.formats = NP_FMT_ALL, /* each has its writer (NP_FORMATS, src/opts.h) */
	/* NVLink and InfiniBand saturate from about 1 GiB */
	.default_max = { 128ull << 20, 8ull << 30 },
	NP_CMD_OPTIONS(sweep_options),
	.check_opts = sweep_check_opts,
};
