/* SPDX-License-Identifier: MIT */
/* The option table and each option's handler: every row binds an option
 * to the field it sets or to the handler here that checks its value
 * (src/opts_value.c parses numbers, sizes and lists; src/opts_parse.c
 * walks argv; src/opts_help.c prints --help). A bad value is a usage
 * error (exit 64) whose message names the value and says what to do. */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../probes/backend.h"
#include "opts.h"
#include "opts_value.h"

#define SW NP_CMD_SWEEP
#define TP NP_CMD_TOPO
#define IS NP_CMD_ISOLATE
#define CP NP_CMD_COMPARE
#define TU NP_CMD_TUNE

/* The field an option sets, checked to have type T at compile time. */
#define FIELD(f, T) \
	(offsetof(struct np_opts, f) + 0 * sizeof(_Generic(((struct np_opts *)0)->f, T: 1)))
#define OPT_FLAG(l, s, c, f, h) { l, s, NULL, c, h, NP_OPT_FLAG, FIELD(f, bool), 0, 0, NULL }
#define OPT_UNSET(l, s, c, f, h) { l, s, NULL, c, h, NP_OPT_UNSET, FIELD(f, bool), 0, 0, NULL }
#define OPT_INT(l, s, a, c, f, lo, hi, h) { l, s, a, c, h, NP_OPT_INT, FIELD(f, int), lo, hi, NULL }
#define OPT_DOUBLE(l, s, a, c, f, lo, hi, h) \
	{ l, s, a, c, h, NP_OPT_DOUBLE, FIELD(f, double), lo, hi, NULL }
#define OPT_SIZE(l, s, a, c, f, h) { l, s, a, c, h, NP_OPT_SIZE, FIELD(f, uint64_t), 0, 0, NULL }
#define OPT_STRING(l, s, a, c, f, h) \
	{ l, s, a, c, h, NP_OPT_STRING, FIELD(f, const char *), 0, 0, NULL }
#define OPT_CALLBACK(l, s, a, c, fn, h) { l, s, a, c, h, NP_OPT_CALLBACK, 0, 0, 0, fn }
#define OPT_OPTARG(l, s, a, c, fn, h) { l, s, a, c, h, NP_OPT_OPTARG, 0, 0, 0, fn }
#define OPT_HELP(l, s, c, h) { l, s, NULL, c, h, NP_OPT_HELP, 0, 0, 0, NULL }
#define OPT_VERSION(l, s, c, h) { l, s, NULL, c, h, NP_OPT_VERSION, 0, 0, 0, NULL }

static enum np_status opt_average(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_backend(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_blocking(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_cudagraph(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_local_register(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_maxbytes(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_minbytes(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_ngpus(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_nthreads(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_baseline(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_min_effect(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_min_change(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_max_regression(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_size(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_check(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_coll(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_dtype(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_fail_on(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_format(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_gpu_map(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_iters(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_min_busbw(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_min_eff(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_op(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_stepbytes(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_stepfactor(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_sweep(struct np_opts *o, const char *val, struct np_err *err);
static enum np_status opt_try(struct np_opts *o, const char *val, struct np_err *err);

/* Sorted by long name; each row binds the option to the field it sets or
 * to its handler, so an option without handling cannot exist (and the
 * unit test walks the table). tests/t0005 checks that --help and the man
 * page list every row. */
const struct np_option np_options[] = {
	OPT_CALLBACK("average", 'a', "3", SW, opt_average, "nccl-tests -a: only 3, the slowest rank's time, which every row reports"),
	OPT_CALLBACK("backend", 0, "auto|mpi|nccl", SW | IS | TU, opt_backend, "backend: NCCL on GPUs or MPI on host memory (default auto)"),
	OPT_CALLBACK("baseline", 0, "FILE", SW | IS, opt_baseline, "a known-good run's JSON: the sweep compared with it (exit 1 on a regression); isolate's per-node-type floors"),
	OPT_CALLBACK("blocking", 'z', "0", SW, opt_blocking, "nccl-tests -z: only 0, no barrier between the iterations of a batch"),
	OPT_DOUBLE("budget", 0, "SEC", SW | IS | TU, budget, 0.001, 86400, "time budget per size with --iters auto"),
	OPT_OPTARG("check", 'c', "0|1", SW | TU, opt_check, "verify results once per size, outside timing (default; -c 0|1, --check=0|1)"),
	OPT_FLAG("check-gdr", 0, TP, check_gdr, "run only the GPUDirect RDMA checks: yes, no or unknown per GPU; exit 0, 1 or 5"),
	OPT_CALLBACK("coll", 0, "LIST", SW | TU, opt_coll, "comma-separated collectives, or all"),
	OPT_STRING("csv", 0, "FILE", SW, csv_file, "also write the CSV report to FILE (the table stays on standard output)"),
	OPT_CALLBACK("cudagraph", 'G', "N", SW, opt_cudagraph, "nccl-tests -G: N > 0 is --graph, 0 is none"),
	OPT_CALLBACK("dtype", 'd', "TYPE", SW | IS | TU, opt_dtype, "data type (default float)"),
	OPT_STRING("export", 0, "FILE", TP, export_file, "write an hwloc XML snapshot with nccl-probe's facts to FILE"),
	OPT_CALLBACK("fail-on", 0, "warning|error|never", TP, opt_fail_on, "exit 1 on a finding this severe or worse (default error)"),
	OPT_CALLBACK("format", 0, "table|json|csv|nccl-tests", SW | TP | IS | CP | TU, opt_format, "output format, in any case (default table; nccl-tests: its table, and its JSON with -J; topo, compare and tune: table or json)"),
	OPT_CALLBACK("gpu-map", 0, "LIST", SW | IS | TU, opt_gpu_map, "GPU index for each local rank, e.g. 0,2,4,6 (env NCCL_PROBE_GPU_MAP)"),
	OPT_FLAG("graph", 0, SW | TU, graph, "capture each timed batch in a CUDA graph (NCCL backend)"),
	OPT_HELP("help", 'h', SW | TP | IS | CP | TU, "show this help and exit"),
	OPT_STRING("host-hash", 0, "HASH", TP, host_hash, "with --input of a multi-node NVLink dump, report the tray whose <cpu host_hash> is HASH (default the first)"),
	OPT_FLAG("inplace", 0, SW | TU, inplace, "run in place (recv buffer is the send buffer)"),
	OPT_STRING("input", 0, "FILE", TP, input, "read the topology from an hwloc XML or NCCL topology XML file"),
	OPT_CALLBACK("iters", 'n', "N|auto", SW | TU, opt_iters, "iterations per sample; auto: sample until the median is known to 1% (default)"),
	OPT_STRING("json", 'J', "FILE", SW | TU, json_file, "also write the JSON report to FILE (the table stays on standard output)"),
	OPT_SIZE("judge-from", 0, "SIZE", SW, judge_from, "verdicts judge the rows from SIZE up (default: the largest quarter of the sizes)"),
	OPT_CALLBACK("local-register", 'R', "0", SW, opt_local_register, "nccl-tests -R: only 0, buffers are not registered with NCCL"),
	OPT_CALLBACK("max-regression", 0, "PCT", CP | SW, opt_max_regression, "exit 1 only when B is significantly slower than A by more than PCT percent (default 0)"),
	OPT_CALLBACK("maxbytes", 'e', "SIZE", SW | TU, opt_maxbytes, "largest size (as in --sweep; not with --sweep)"),
	OPT_STRING("metrics", 0, "FILE", SW | TP | IS, metrics_file, "also write the results to FILE in the Prometheus text format (a .prom file for node_exporter)"),
	OPT_CALLBACK("min-busbw", 0, "GBPS|COLL=GBPS,...", SW | IS, opt_min_busbw, "fail (exit 1) if a judged row's busbw is below GBPS (one value or per collective)"),
	OPT_CALLBACK("min-change", 0, "PCT", CP | SW | TU, opt_min_change, "call B faster or slower only where it differs by PCT percent or more (default 5)"),
	OPT_CALLBACK("min-eff", 0, "PCT|COLL=PCT,...", SW, opt_min_eff, "fail (exit 1) if a judged row's eff is below PCT percent, e.g. 80 or 80% (one value or per collective)"),
	OPT_CALLBACK("min-effect", 0, "PCT", IS, opt_min_effect, "name nothing less than PCT percent below the fleet (default 5)"),
	OPT_CALLBACK("minbytes", 'b', "SIZE", SW | TU, opt_minbytes, "smallest size (as in --sweep; not with --sweep)"),
	OPT_CALLBACK("ngpus", 'g', "1", SW, opt_ngpus, "nccl-tests -g: only 1 (one GPU per rank: use mpirun -np N)"),
	OPT_UNSET("no-check", 0, SW | TU, check, "do not verify results"),
	OPT_CALLBACK("nthreads", 't', "1", SW, opt_nthreads, "nccl-tests -t: only 1 (one GPU per rank: use mpirun -np N)"),
	OPT_CALLBACK("op", 'o', "OP", SW | TU, opt_op, "reduction: sum prod max min avg (default sum)"),
	OPT_STRING("output", 0, "FILE", SW | TP | IS | CP | TU, output, "write the report to FILE (written whole, then renamed; - is standard output)"),
	OPT_FLAG("quiet", 'q', SW | TP | IS | CP | TU, quiet, "no header and no progress"),
	OPT_INT("ranks-per-node", 0, "L", SW | TP | IS | TU, ranks_per_node, 1, 1 << 20, "treat each L consecutive ranks as one node (virtual nodes)"),
	OPT_FLAG("recommend", 0, TP, recommend, "print only export lines, safe to eval, each with its reason"),
	OPT_INT("root", 'r', "RANK", SW | TU, root, 0, INT_MAX, "root rank of broadcast, reduce, gather and scatter (default 0)"),
	OPT_INT("samples", 0, "N", SW | TU, samples, 1, 1000000, "samples per size with a fixed --iters (default 5)"),
	OPT_INT("seed", 0, "N", IS, seed, 0, INT_MAX, "the random order of partners (default: drawn, and reported)"),
	OPT_CALLBACK("size", 0, "SIZE", IS, opt_size, "message size of each measurement (default 64M; 1M on host memory)"),
	OPT_CALLBACK("stepbytes", 'i', "SIZE", SW | TU, opt_stepbytes, "grow sizes by adding SIZE (not with -f)"),
	OPT_CALLBACK("stepfactor", 'f', "F", SW | TU, opt_stepfactor, "grow sizes by multiplying by F (> 1; not with -i)"),
	OPT_CALLBACK("sweep", 0, "MIN:MAX[:xF|:+STEP]", SW | TU, opt_sweep, "sizes: bytes or K/M/G/T, powers of 1024 (default 8 B x4 up to 8G on GPUs, as fits; 128M on host memory)"),
	OPT_DOUBLE("timeout", 'T', "SEC", SW | IS | TU, timeout, 0, NP_TIMEOUT_MAX, "abort (exit 4) when one step takes longer than SEC (at most 604800)"),
	OPT_STRING("topology", 0, "FILE", IS, topology, "leaf switches from Slurm's topology.conf: pairs compared by relation, a busy leaf one finding"),
	OPT_CALLBACK("try", 0, "VAR=V1,V2,...", TU, opt_try, "a setting to try against the environment as launched, one candidate per value (repeatable)"),
	OPT_STRING("try-file", 0, "FILE", TU, try_file, "candidates from FILE: one per line, VAR=VALUE settings separated by spaces"),
	OPT_DOUBLE("under-load", 0, "SEC", TP, under_load, 0.1, 600, "sample GPU health during SEC seconds of a busy kernel on every GPU (default: 1 s idle)"),
	OPT_VERSION("version", 0, SW | TP | IS | CP | TU, "show the version and exit"),
	OPT_INT("warmup", 'w', "N", SW | IS | TU, warmup, 0, 1000000, "warm-up iterations per size (default 5)"),
	OPT_FLAG("wide", 0, SW | TP | TU, wide, "every column in the table, lines unbroken (sweep: min, max, ci%, limit, samples, iters, stop; topo: affinity columns, BAR1, full names)"),
};
const size_t np_options_count = sizeof(np_options) / sizeof(np_options[0]);

const char *np_format_str(enum np_format f)
{
	switch (f) {
	case NP_FMT_TABLE: return "table";
	case NP_FMT_JSON: return "json";
	case NP_FMT_CSV: return "csv";
	case NP_FMT_NCCLTESTS: return "nccl-tests";
	}
	return "unknown";
}

/* --try VAR=V1,V2: kept as given; src/tune_cand.c splits and checks it */
static enum np_status opt_try(struct np_opts *o, const char *val, struct np_err *err)
{
	if (o->ntries >= NP_MAX_TRIES)
		return np_fail(err, NP_EUSAGE, "more than %d --try options; put the candidates in a --try-file",
			       NP_MAX_TRIES);
	if (!strchr(val, '='))
		return np_fail(err, NP_EUSAGE, "invalid --try '%s': give VAR=V1,V2,... (e.g. NCCL_PROTO=LL,Simple)", val);
	o->tries[o->ntries++] = val;
	return NP_OK;
}

/* read in np_opts_check_files: parsing stays pure, the same on every rank */
static enum np_status opt_baseline(struct np_opts *o, const char *val, struct np_err *err)
{
	(void)err;
	o->baseline = val;
	return NP_OK;
}

static enum np_status opt_max_regression(struct np_opts *o, const char *val, struct np_err *err)
{
	return np_parse_pct("max-regression", val, "5", &o->max_regression, err);
}

static enum np_status opt_min_effect(struct np_opts *o, const char *val, struct np_err *err)
{
	return np_parse_pct("min-effect", val, "5", &o->min_effect, err);
}

static enum np_status opt_min_change(struct np_opts *o, const char *val, struct np_err *err)
{
	return np_parse_pct("min-change", val, "5", &o->min_change, err);
}

static enum np_status opt_size(struct np_opts *o, const char *val, struct np_err *err)
{
	if (np_parse_size(val, &o->size, err) || o->size == 0)
		return np_fail(err, NP_EUSAGE, "invalid --size '%s'; give a size of at least 1 byte, e.g. 64M", val);
	return NP_OK;
}

/* nccl-tests' options that nccl-probe takes with one value: that value is
 * what nccl-probe always does; another value says what to use instead. */
static enum np_status only_value(const char *name, char short_name, const char *val,
				 const char *want, const char *why, struct np_err *err)
{
	int v;

	if (np_parse_int(name, val, 0, INT_MAX, &v, err) == NP_OK && v == atoi(want))
		return NP_OK;
	return np_fail(err, NP_EUSAGE, "invalid -%c/--%s '%s': %s", short_name, name, val, why);
}

static enum np_status opt_average(struct np_opts *o, const char *val, struct np_err *err)
{
	(void)o;
	return only_value("average", 'a', val, "3",
			  "nccl-probe's time of a sample is always the slowest rank's (nccl-tests -a 3), and the JSON report (-J FILE) holds the samples; drop -a or give -a 3",
			  err);
}

static enum np_status opt_blocking(struct np_opts *o, const char *val, struct np_err *err)
{
	(void)o;
	return only_value("blocking", 'z', val, "0",
			  "nccl-probe issues a batch's collectives back to back without a barrier or wait between them (nccl-tests -z 0); drop -z",
			  err);
}

static enum np_status opt_cudagraph(struct np_opts *o, const char *val, struct np_err *err)
{
	int n;

	if (np_parse_int("cudagraph", val, 0, 1000000, &n, err))
		return np_fail(err, NP_EUSAGE,
			       "invalid -G/--cudagraph '%s'; give 0 (no graph) or a number of launches above 0, which turns on --graph",
			       val);
	o->graph = n > 0; /* nccl-probe picks the launches: as many as the batch needs */
	return NP_OK;
}

static enum np_status opt_local_register(struct np_opts *o, const char *val, struct np_err *err)
{
	(void)o;
	return only_value("local-register", 'R', val, "0",
			  "nccl-probe does not register its buffers with NCCL (ncclCommRegister, symmetric memory); drop -R",
			  err);
}

static enum np_status opt_ngpus(struct np_opts *o, const char *val, struct np_err *err)
{
	(void)o;
	return only_value("ngpus", 'g', val, "1",
			  "nccl-probe drives one GPU per rank: use mpirun -np N (N ranks per node for N GPUs) instead of -g", err);
}

static enum np_status opt_nthreads(struct np_opts *o, const char *val, struct np_err *err)
{
	(void)o;
	return only_value("nthreads", 't', val, "1",
			  "nccl-probe drives one GPU per rank: use mpirun -np N (N ranks per node for N GPUs) instead of -t", err);
}

static enum np_status opt_backend(struct np_opts *o, const char *val, struct np_err *err)
{
	const struct np_backend_def *d = np_backend_find(val);

	if (strcmp(val, "auto") && !d)
		return np_fail(err, NP_EUSAGE, "unknown --backend '%s'; use auto, %s", val, np_backend_names());
	o->backend = d ? d->name : "auto";
	return NP_OK;
}

/* --check, --check=0|1, -c 0|1 (as nccl-tests) */
static enum np_status opt_check(struct np_opts *o, const char *val, struct np_err *err)
{
	if (!val || !strcmp(val, "1")) o->check = true;
	else if (!strcmp(val, "0")) o->check = false;
	else return np_fail(err, NP_EUSAGE, "invalid --check '%s'; use --check=0, --check=1 or -c 0|1 (nccl-probe checks once per size, outside timing, not -c N iterations)", val);
	return NP_OK;
}

static enum np_status opt_coll(struct np_opts *o, const char *val, struct np_err *err)
{
	return np_parse_colls(val, o, err);
}

static enum np_status opt_dtype(struct np_opts *o, const char *val, struct np_err *err)
{
	/* nccl-tests' names of the fp8 types */
	static const char *const alias[][2] = { { "f8e4m3", "fp8e4m3" }, { "f8e5m2", "fp8e5m2" } };
	const struct np_dtype_info *d = np_dtype_find(val);

	for (size_t i = 0; !d && i < sizeof(alias) / sizeof(alias[0]); i++)
		if (!strcmp(val, alias[i][0]))
			d = np_dtype_find(alias[i][1]);
	if (!d && !strcmp(val, "all"))
		return np_fail(err, NP_EUSAGE,
			       "--dtype all: nccl-probe runs one type per sweep; run it once per --dtype");
	if (!d) {
		char names[256];
		return np_fail(err, NP_EUSAGE, "unknown --dtype '%s'; use %s", val,
			       np_names_join(1, ", ", names, sizeof(names)));
	}
	o->dtype = d->id;
	return NP_OK;
}

static enum np_status opt_fail_on(struct np_opts *o, const char *val, struct np_err *err)
{
	if (!strcmp(val, "warning")) o->fail_on = 1;
	else if (!strcmp(val, "error")) o->fail_on = 2;
	else if (!strcmp(val, "never")) o->fail_on = -1;
	else return np_fail(err, NP_EUSAGE, "unknown --fail-on '%s'; use warning, error or never", val);
	return NP_OK;
}

static enum np_status opt_format(struct np_opts *o, const char *val, struct np_err *err)
{
	if (!strcasecmp(val, "table")) o->format = NP_FMT_TABLE;
	else if (!strcasecmp(val, "json")) o->format = NP_FMT_JSON;
	else if (!strcasecmp(val, "csv") && o->cmd == NP_CMD_SWEEP) o->format = NP_FMT_CSV;
	else if (!strcasecmp(val, "nccl-tests") && o->cmd == NP_CMD_SWEEP) o->format = NP_FMT_NCCLTESTS;
	else return np_fail(err, NP_EUSAGE, "unknown --format '%s'; use %s", val,
			    o->cmd == NP_CMD_SWEEP ? "table, json, csv or nccl-tests" : "table or json");
	return NP_OK;
}

static enum np_status opt_gpu_map(struct np_opts *o, const char *val, struct np_err *err)
{
	if (np_check_gpu_map(val, err))
		return NP_EUSAGE;
	o->gpu_map = val;
	return NP_OK;
}

static enum np_status opt_iters(struct np_opts *o, const char *val, struct np_err *err)
{
	if (!strcmp(val, "auto"))
		o->iters = 0;
	else if (np_parse_int("iters", val, 1, 100000000, &o->iters, err))
		return np_fail(err, NP_EUSAGE, "invalid --iters '%s'; give an integer from 1 to 100000000 or 'auto'",
			       val);
	return NP_OK;
}

static enum np_status opt_min_busbw(struct np_opts *o, const char *val, struct np_err *err)
{
	return np_parse_threshold("min-busbw", val, 1e9, 1, "a rate in GB/s", o, &o->min_busbw, o->coll_min_busbw, err);
}

static enum np_status opt_min_eff(struct np_opts *o, const char *val, struct np_err *err)
{
	return np_parse_threshold("min-eff", val, 1000, 100, "a percentage", o, &o->min_eff, o->coll_min_eff, err);
}

static enum np_status opt_op(struct np_opts *o, const char *val, struct np_err *err)
{
	int i = np_redop_find(val);

	if (i < 0)
		return np_fail(err, NP_EUSAGE, "unknown --op '%s'; use sum, prod, max, min or avg", val);
	o->op = (enum np_redop)i;
	return NP_OK;
}

static enum np_status opt_stepbytes(struct np_opts *o, const char *val, struct np_err *err)
{
	uint64_t st;

	if (np_parse_size(val, &st, err) || st == 0)
		return np_fail(err, NP_EUSAGE, "invalid --stepbytes '%s'; give a size of at least 1 byte", val);
	o->step_kind = NP_STEP_ADD;
	o->step_bytes = st;
	o->stepbytes_arg = val;
	return NP_OK;
}

static enum np_status opt_stepfactor(struct np_opts *o, const char *val, struct np_err *err)
{
	if (np_parse_factor(val, &o->step_factor))
		return np_fail(err, NP_EUSAGE,
			       "invalid -f/--stepfactor '%s'; give a factor above 1 and at most 1024, e.g. 2", val);
	o->step_kind = NP_STEP_FACTOR;
	o->stepfactor_arg = val;
	return NP_OK;
}

static enum np_status opt_minbytes(struct np_opts *o, const char *val, struct np_err *err)
{
	o->minbytes_arg = val;
	return np_parse_size(val, &o->min_bytes, err);
}

static enum np_status opt_maxbytes(struct np_opts *o, const char *val, struct np_err *err)
{
	o->maxbytes_arg = val;
	return np_parse_size(val, &o->max_bytes, err);
}

static enum np_status opt_sweep(struct np_opts *o, const char *val, struct np_err *err)
{
	o->sweep_arg = val;
	return np_parse_sweep(val, o, err);
}

enum np_status np_option_apply(struct np_opts *o, const struct np_option *opt, const char *val,
				struct np_err *err)
{
	char *field = (char *)o + opt->off;

	switch (opt->kind) {
	case NP_OPT_FLAG:
		*(bool *)field = true;
		return NP_OK;
	case NP_OPT_UNSET:
		*(bool *)field = false;
		return NP_OK;
	case NP_OPT_INT:
		return np_parse_int(opt->name, val, (long)opt->lo, (long)opt->hi, (int *)field, err);
	case NP_OPT_DOUBLE:
		return np_parse_double(opt->name, val, opt->lo, opt->hi, (double *)field, err);
	case NP_OPT_SIZE:
		return np_parse_size(val, (uint64_t *)field, err);
	case NP_OPT_STRING:
		*(const char **)field = val;
		return NP_OK;
	case NP_OPT_CALLBACK:
	case NP_OPT_OPTARG:
		if (opt->fn)
			return opt->fn(o, val, err);
		break;
	case NP_OPT_HELP:
	case NP_OPT_VERSION:
	case NP_OPT_NONE:
		break;
	}
	return np_fail(err, NP_EUSAGE, "option '--%s' has no handler in this build; report it", opt->name);
}

bool np_option_valid(const struct np_option *opt)
{
	switch (opt->kind) {
	case NP_OPT_FLAG:
	case NP_OPT_UNSET:
	case NP_OPT_HELP:
	case NP_OPT_VERSION:
		return opt->arg == NULL && opt->fn == NULL;
	case NP_OPT_INT:
	case NP_OPT_DOUBLE:
		return opt->arg && opt->fn == NULL && opt->lo <= opt->hi;
	case NP_OPT_SIZE:
	case NP_OPT_STRING:
		return opt->arg && opt->fn == NULL;
	case NP_OPT_CALLBACK:
	case NP_OPT_OPTARG:
		return opt->arg && opt->fn != NULL;
	case NP_OPT_NONE:
		break;
	}
	return false;
}
