/* SPDX-License-Identifier: MIT */
/* The option table, option parsing and --help. Every bad value is a usage
 * error (exit 64) whose message names the value and says what to do. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../probes/backend.h"
#include "opts.h"
#include "outfile.h"

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
	OPT_DOUBLE("budget", 0, "SEC", SW | IS | TU, budget, 0.001, 86400, "time budget per size with --iters auto (default 0.5)"),
	OPT_OPTARG("check", 'c', "0|1", SW | TU, opt_check, "verify results once per size, outside timing (default; -c 0|1, --check=0|1)"),
	OPT_FLAG("check-gdr", 0, TP, check_gdr, "run only the GPUDirect RDMA checks: yes, no or unknown per GPU; exit 0, 1 or 5"),
	OPT_CALLBACK("coll", 0, "LIST", SW | TU, opt_coll, "comma-separated collectives, or all (default allreduce,alltoall)"),
	OPT_STRING("csv", 0, "FILE", SW, csv_file, "also write the CSV report to FILE (the table stays on standard output)"),
	OPT_CALLBACK("cudagraph", 'G', "N", SW, opt_cudagraph, "nccl-tests -G: N > 0 is --graph, 0 is none"),
	OPT_CALLBACK("dtype", 'd', "TYPE", SW | IS | TU, opt_dtype, "data type (default float)"),
	OPT_STRING("export", 0, "FILE", TP, export_file, "write an hwloc XML snapshot with nccl-probe's facts to FILE"),
	OPT_CALLBACK("fail-on", 0, "warning|error|never", TP, opt_fail_on, "exit 1 on a finding this severe or worse (default error)"),
	OPT_CALLBACK("format", 0, "table|json|csv|nccl-tests", SW | TP | IS | CP | TU, opt_format, "output format, in any case (default table; nccl-tests: its table, and its JSON with -J; topo, compare and tune: table or json)"),
	OPT_CALLBACK("gpu-map", 0, "LIST", SW | IS | TU, opt_gpu_map, "GPU index for each local rank, e.g. 0,2,4,6 (env NCCL_PROBE_GPU_MAP)"),
	OPT_FLAG("graph", 0, SW | TU, graph, "capture each timed batch in a CUDA graph (NCCL backend)"),
	OPT_HELP("help", 'h', SW | TP | IS | CP | TU, "show this help and exit"),
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
	OPT_CALLBACK("size", 0, "SIZE", IS, opt_size, "message size of each measurement (default 64M; 1M on host memory)"),
	OPT_CALLBACK("stepbytes", 'i', "SIZE", SW | TU, opt_stepbytes, "grow sizes by adding SIZE (not with -f)"),
	OPT_CALLBACK("stepfactor", 'f', "F", SW | TU, opt_stepfactor, "grow sizes by multiplying by F (> 1; not with -i)"),
	OPT_CALLBACK("sweep", 0, "MIN:MAX[:xF|:+STEP]", SW | TU, opt_sweep, "sizes: bytes or K/M/G/T, powers of 1024 (default 8 B x4 up to 8G on GPUs, as fits; 128M on host memory)"),
	OPT_DOUBLE("timeout", 'T', "SEC", SW | IS | TU, timeout, 0, NP_TIMEOUT_MAX, "abort (exit 4) when one step takes longer than SEC (at most 604800)"),
	OPT_CALLBACK("try", 0, "VAR=V1,V2,...", TU, opt_try, "a setting to try against the environment as launched, one candidate per value (repeatable)"),
	OPT_STRING("try-file", 0, "FILE", TU, try_file, "candidates from FILE: one per line, VAR=VALUE settings separated by spaces"),
	OPT_DOUBLE("under-load", 0, "SEC", TP, under_load, 0.1, 600, "sample GPU health during SEC seconds of a busy kernel on every GPU (default: 1 s idle)"),
	OPT_VERSION("version", 'V', SW | TP | IS | CP | TU, "show the version and exit"),
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

size_t np_opts_sizes(const struct np_opts *o, uint64_t *out, size_t cap)
{
	size_t n = 0;
	uint64_t s = o->min_bytes, last = 0;

	while (s <= o->max_bytes && n <= NP_MAX_SIZES) {
		uint64_t next;
		if (out && n < cap)
			out[n] = s;
		n++;
		last = s;
		if (o->step_kind == NP_STEP_FACTOR) {
			double d = (double)s * o->step_factor;
			next = d >= 1.8e19 ? UINT64_MAX : (uint64_t)d;
		} else {
			next = s + o->step_bytes < s ? UINT64_MAX : s + o->step_bytes;
		}
		if (next <= s)
			next = s + 1;
		if (next == UINT64_MAX)
			break;
		s = next;
	}
	/* the largest size asked for always runs (the last step is shorter),
	 * as it does in nccl-tests' -e */
	if (n > 0 && n <= NP_MAX_SIZES && last < o->max_bytes) {
		if (out && n < cap)
			out[n] = o->max_bytes;
		n++;
	}
	return n;
}

static void defaults(struct np_opts *o, unsigned cmd)
{
	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->min_bytes = 8;
	o->max_bytes = 0; /* the default range: resolved when parsing ends */
	o->step_kind = NP_STEP_FACTOR;
	o->step_factor = 4;
	for (int c = 0; c < NP_COLL_COUNT; c++)
		o->colls[c] = (np_colls[c].flags & NP_COLL_F_DEFAULT) != 0;
	o->dtype = NP_FLOAT;
	o->op = NP_OP_SUM;
	o->samples = 5;
	o->warmup = 5;
	o->budget = 0.5;
	o->check = true;
	o->backend = "auto";
	o->format = NP_FMT_TABLE;
	o->fail_on = 2; /* NP_SEV_ERROR */
	o->min_effect = 0.05;
	o->min_change = 0.05;
	if (cmd == NP_CMD_ISOLATE)
		o->budget = 1.0;
	if (cmd == NP_CMD_TUNE) {
		/* NCCL_ALGO and NCCL_PROTO matter most to allreduce */
		for (int c = 0; c < NP_COLL_COUNT; c++)
			o->colls[c] = !strcmp(np_colls[c].name, "allreduce");
		o->budget = 1.0;
	}
}

enum np_status np_parse_size(const char *s, uint64_t *out, struct np_err *err)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!*s || !isdigit((unsigned char)*s))
		return np_fail(err, NP_EUSAGE,
			       "invalid size '%s'; give bytes or a number with K, M, G or T (e.g. 128M)", s);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return np_fail(err, NP_EUSAGE, "size '%s' is too large; the largest is %lluT", s,
			       (unsigned long long)(NP_SIZE_MAX >> 40));
	switch (toupper((unsigned char)*end)) {
	case 'K': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	case 'T': shift = 40; end++; break;
	default: break;
	}
	if (shift && toupper((unsigned char)end[0]) == 'I' && toupper((unsigned char)end[1]) == 'B')
		end += 2;
	else if (toupper((unsigned char)*end) == 'B')
		end++;
	if (*end)
		return np_fail(err, NP_EUSAGE,
			       "invalid size '%s'; give bytes or a number with K, M, G or T (e.g. 128M)", s);
	if (v > (NP_SIZE_MAX >> shift)) /* headroom: send + recv buffers still fit */
		return np_fail(err, NP_EUSAGE, "size '%s' is too large; the largest is %lluT",
			       s, (unsigned long long)(NP_SIZE_MAX >> 40));
	*out = (uint64_t)v << shift;
	return NP_OK;
}

/* A number as people write it: digits, with real numbers one point and an
 * exponent; no sign, space, hexadecimal, inf or nan, which strtod and
 * strtol would take. */
static bool plain_number(const char *s, bool real)
{
	const char *p = s;
	bool digits = false;

	for (; isdigit((unsigned char)*p); p++)
		digits = true;
	if (real && *p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			digits = true;
	if (!digits)
		return false;
	if (real && (*p == 'e' || *p == 'E')) {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return *p == '\0';
}

static enum np_status parse_double(const char *name, const char *s, double lo, double hi,
				   double *out, struct np_err *err)
{
	char *end;
	double v;

	errno = 0;
	v = plain_number(s, true) ? strtod(s, &end) : NAN;
	if (!isfinite(v) || errno == ERANGE || v < lo || v > hi)
		return np_fail(err, NP_EUSAGE, "invalid --%s '%s'; give a number from %g to %g", name, s,
			       lo, hi);
	*out = v;
	return NP_OK;
}

static enum np_status parse_int(const char *name, const char *s, long lo, long hi, int *out,
				struct np_err *err)
{
	char *end;
	long v = 0;

	errno = 0;
	if (plain_number(s, false))
		v = strtol(s, &end, 10);
	if (!plain_number(s, false) || errno == ERANGE || v < lo || v > hi)
		return np_fail(err, NP_EUSAGE, "invalid --%s '%s'; give an integer from %ld to %ld",
			       name, s, lo, hi);
	*out = (int)v;
	return NP_OK;
}

/* A step factor: above 1, at most 1024. NP_EUSAGE without a message: the
 * caller names the factor as the user wrote it. */
static enum np_status parse_factor(const char *s, double *out)
{
	char *end;
	double v = NAN;

	errno = 0;
	if (plain_number(s, true))
		v = strtod(s, &end);
	if (!isfinite(v) || errno == ERANGE || v <= 1.0 || v > 1024.0)
		return NP_EUSAGE;
	*out = v;
	return NP_OK;
}

enum np_status np_parse_sweep(const char *s, struct np_opts *o, struct np_err *err)
{
	char buf[256], *parts[3] = { NULL, NULL, NULL }, *p;
	int n = 0;
	uint64_t lo, hi;

	if (strlen(s) >= sizeof(buf))
		return np_fail(err, NP_EUSAGE, "invalid --sweep '%.40s...'; it is too long", s);
	strcpy(buf, s);
	parts[n++] = buf;
	for (p = buf; *p; p++) {
		if (*p == ':') {
			if (n == 3)
				return np_fail(err, NP_EUSAGE,
					       "invalid --sweep '%s'; use MIN:MAX[:xFACTOR|:+STEP]", s);
			*p = '\0';
			parts[n++] = p + 1;
		}
	}
	if (np_parse_size(parts[0], &lo, err))
		return np_fail(err, NP_EUSAGE,
			       "invalid --sweep '%s': bad minimum '%s'; use MIN:MAX[:xFACTOR|:+STEP], e.g. 128M:8G",
			       s, parts[0]);
	hi = lo;
	if (n >= 2 && np_parse_size(parts[1], &hi, err))
		return np_fail(err, NP_EUSAGE,
			       "invalid --sweep '%s': bad maximum '%s'; use MIN:MAX[:xFACTOR|:+STEP], e.g. 128M:8G",
			       s, parts[1]);
	if (lo == 0)
		return np_fail(err, NP_EUSAGE, "invalid --sweep '%s': the minimum must be at least 1 byte", s);
	if (lo > hi)
		return np_fail(err, NP_EUSAGE,
			       "invalid --sweep '%s': minimum is larger than maximum; swap them", s);
	if (n == 3) {
		if (parts[2][0] == 'x' || parts[2][0] == '*') {
			o->step_kind = NP_STEP_FACTOR;
			if (parse_factor(parts[2] + 1, &o->step_factor))
				return np_fail(err, NP_EUSAGE,
					       "invalid step factor in '%s'; give a factor above 1 and at most 1024, e.g. x2",
					       s);
		} else if (parts[2][0] == '+') {
			uint64_t st;
			if (np_parse_size(parts[2] + 1, &st, err) || st == 0)
				return np_fail(err, NP_EUSAGE,
					       "invalid step in --sweep '%s'; give +SIZE with SIZE at least 1 byte",
					       s);
			o->step_kind = NP_STEP_ADD;
			o->step_bytes = st;
		} else {
			return np_fail(err, NP_EUSAGE,
				       "invalid step '%s' in --sweep '%s'; use xFACTOR (e.g. x2) or +SIZE (e.g. +1M)",
				       parts[2], s);
		}
	}
	o->min_bytes = lo;
	o->max_bytes = hi;
	return NP_OK;
}

/* A collective by its name, or as nccl-tests spells it: all_reduce,
 * reduce_scatter, all_reduce_perf (the binary's name). */
static const struct np_coll *coll_spelled(const char *tok)
{
	char name[64];
	size_t n = 0, len = strlen(tok);

	if (len > 5 && !strcmp(tok + len - 5, "_perf"))
		len -= 5;
	for (size_t i = 0; i < len && n + 1 < sizeof(name); i++)
		if (tok[i] != '_')
			name[n++] = (char)tolower((unsigned char)tok[i]);
	name[n] = '\0';
	return np_coll_find(name);
}

static enum np_status parse_colls(const char *s, struct np_opts *o, struct np_err *err)
{
	char buf[512], *tok, *save = NULL;
	bool any = false;

	if (strlen(s) >= sizeof(buf) || !*s)
		return np_fail(err, NP_EUSAGE, "invalid --coll '%s'; give a comma-separated list or 'all'", s);
	if (s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		return np_fail(err, NP_EUSAGE,
			       "invalid --coll '%s': a name between commas is empty; give names separated by single commas, e.g. allreduce,alltoall",
			       s);
	strcpy(buf, s);
	memset(o->colls, 0, sizeof(o->colls));
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct np_coll *c;
		if (!strcmp(tok, "all")) {
			for (int i = 0; i < NP_COLL_COUNT; i++)
				o->colls[i] = true;
			any = true;
			continue;
		}
		c = coll_spelled(tok);
		if (!c) {
			char names[256];
			return np_fail(err, NP_EUSAGE, "unknown collective '%s' in --coll; use %s or all",
				       tok, np_names_join(0, ", ", names, sizeof(names)));
		}
		o->colls[c->id] = true;
		any = true;
	}
	if (!any)
		return np_fail(err, NP_EUSAGE, "invalid --coll '%s'; give a comma-separated list or 'all'", s);
	return NP_OK;
}

static enum np_status check_gpu_map(const char *s, struct np_err *err)
{
	const char *p = s;

	if (!*s)
		return np_fail(err, NP_EUSAGE, "invalid --gpu-map ''; give GPU indices, e.g. 0,1,2,3");
	while (*p) {
		if (!isdigit((unsigned char)*p))
			return np_fail(err, NP_EUSAGE,
				       "invalid --gpu-map '%s'; give comma-separated GPU indices, e.g. 0,1,2,3", s);
		while (isdigit((unsigned char)*p))
			p++;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			return np_fail(err, NP_EUSAGE,
				       "invalid --gpu-map '%s'; give comma-separated GPU indices, e.g. 0,1,2,3", s);
	}
	return NP_OK;
}

static const struct np_option *find_long(const char *name, size_t len)
{
	for (size_t i = 0; i < np_options_count; i++)
		if (strlen(np_options[i].name) == len && !strncmp(np_options[i].name, name, len))
			return &np_options[i];
	return NULL;
}

static const struct np_option *find_short(char c)
{
	for (size_t i = 0; i < np_options_count; i++)
		if (np_options[i].short_name == c)
			return &np_options[i];
	return NULL;
}

static const char *cmd_help(unsigned cmd);

/* nccl-tests' options that nccl-probe has no row for, and what to do
 * instead; the ones it takes are rows of the option table (their help
 * says "nccl-tests -X"). */
static const struct {
	char short_name;
	const char *name;
	const char *instead;
} nccl_tests_opts[] = {
	{ 'm', "agg_iters", "nccl-probe times batches of -n/--iters collectives between two events and aggregates none; drop -m" },
	{ 'N', "run_cycles", "nccl-probe runs the sweep once; run it again for another cycle" },
	{ 'p', "parallel_init", "every rank initializes its own communicator in its own process; drop -p" },
	{ 'y', "stream_null", "nccl-probe issues on a stream of its own; drop -y" },
	{ 'C', "report_cputime", "nccl-probe times on the GPU (CUDA events) or, on host memory, with MPI_Wtime; drop -C" },
	{ 'S', "report_timestamps", "the JSON report (-J FILE) holds the start time; drop -S" },
	{ 'x', "cta_policy", "nccl-probe leaves the CTA policy to NCCL (NCCL_CTA_POLICY in the environment); drop -x" },
	{ 'D', "device_implementation", "nccl-probe runs NCCL's host-launched collectives only; drop -D" },
	{ 0, "device_cta_count", "nccl-probe runs NCCL's host-launched collectives only (and -V is --version); drop it" },
	{ 'M', "memory", "nccl-probe does not report GPU memory use; drop -M" },
	{ 'u', "unalign", "nccl-probe's buffers are aligned; drop -u" },
	{ 'I', "per_iter_timing", "nccl-probe times batches, not single iterations; the JSON report (-J FILE) holds every sample" },
	{ 'K', "per_iter_skip", "nccl-probe times batches, not single iterations; warm-up is -w/--warmup" },
	{ 0, "warmup_iters", "use -w/--warmup N" },
	{ 0, "datatype", "use -d/--dtype TYPE" },
	{ 0, "output_file", "use -J/--json FILE" },
};

/* The message for an option nccl-probe does not know: nccl-tests' options
 * name their equivalent, and --a_b is --a-b when that exists. */
static enum np_status unknown_option(const char *a, const char *name, size_t len, char short_name,
				     unsigned cmd, struct np_err *err)
{
	char dashed[64];

	for (size_t i = 0; i < sizeof(nccl_tests_opts) / sizeof(nccl_tests_opts[0]); i++) {
		bool hit = name ? strlen(nccl_tests_opts[i].name) == len &&
					  !strncmp(nccl_tests_opts[i].name, name, len)
				: short_name && nccl_tests_opts[i].short_name == short_name;
		if (hit && name)
			return np_fail(err, NP_EUSAGE, "unknown option '%s' (an nccl-tests option): %s", a,
				       nccl_tests_opts[i].instead);
		if (hit)
			return np_fail(err, NP_EUSAGE, "unknown option '%s' (nccl-tests --%s): %s", a,
				       nccl_tests_opts[i].name, nccl_tests_opts[i].instead);
	}
	if (name && len < sizeof(dashed) && memchr(name, '_', len)) {
		for (size_t i = 0; i < len; i++)
			dashed[i] = name[i] == '_' ? '-' : name[i];
		if (find_long(dashed, len))
			return np_fail(err, NP_EUSAGE, "unknown option '%s'; did you mean '--%.*s'?", a,
				       (int)len, dashed);
	}
	return np_fail(err, NP_EUSAGE, "unknown option '%s'; see 'nccl-probe %s--help'", a,
		       cmd_help(cmd));
}

static const char *cmd_name(unsigned cmd)
{
	return cmd == NP_CMD_TOPO ? "topo" : cmd == NP_CMD_ISOLATE ? "isolate" : cmd == NP_CMD_COMPARE ? "compare" :
	       cmd == NP_CMD_TUNE ? "tune" : "sweep";
}

static const char *cmd_help(unsigned cmd)
{
	return cmd == NP_CMD_TOPO ? "topo " : cmd == NP_CMD_ISOLATE ? "isolate " : cmd == NP_CMD_COMPARE ? "compare " :
	       cmd == NP_CMD_TUNE ? "tune " : "";
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

/* A percentage as people write it: a plain number (see plain_number: no
 * blank, sign, hexadecimal, inf or nan), with or without one '%' after
 * it (*sign says which). */
static bool percent_number(const char *val, double *out, bool *sign)
{
	char num[64];
	size_t len = strlen(val);
	bool pct = len && val[len - 1] == '%';
	double v;

	if (pct)
		len--;
	if (!len || len >= sizeof(num))
		return false;
	memcpy(num, val, len);
	num[len] = '\0';
	if (!plain_number(num, true))
		return false;
	errno = 0;
	v = strtod(num, NULL);
	if (errno == ERANGE || !isfinite(v))
		return false;
	*out = v;
	if (sign)
		*sign = pct;
	return true;
}

/* A percentage from 0 to below 100 for option NAME, as a fraction. */
static enum np_status parse_pct(const char *name, const char *val, const char *eg, double *out, struct np_err *err)
{
	double pct = NAN;

	if (!percent_number(val, &pct, NULL) || !(pct >= 0 && pct < 100))
		return np_fail(err, NP_EUSAGE, "invalid --%s '%s'; give a percentage from 0 to below 100, e.g. %s", name,
			       val, eg);
	*out = pct / 100.0;
	return NP_OK;
}

static enum np_status opt_max_regression(struct np_opts *o, const char *val, struct np_err *err)
{
	return parse_pct("max-regression", val, "5", &o->max_regression, err);
}

static enum np_status opt_min_effect(struct np_opts *o, const char *val, struct np_err *err)
{
	return parse_pct("min-effect", val, "5", &o->min_effect, err);
}

static enum np_status opt_min_change(struct np_opts *o, const char *val, struct np_err *err)
{
	return parse_pct("min-change", val, "5", &o->min_change, err);
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

	if (parse_int(name, val, 0, INT_MAX, &v, err) == NP_OK && v == atoi(want))
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

	if (parse_int("cudagraph", val, 0, 1000000, &n, err))
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
	return parse_colls(val, o, err);
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
	if (check_gpu_map(val, err))
		return NP_EUSAGE;
	o->gpu_map = val;
	return NP_OK;
}

static enum np_status opt_iters(struct np_opts *o, const char *val, struct np_err *err)
{
	if (!strcmp(val, "auto"))
		o->iters = 0;
	else if (parse_int("iters", val, 1, 100000000, &o->iters, err))
		return np_fail(err, NP_EUSAGE, "invalid --iters '%s'; give an integer from 1 to 100000000 or 'auto'",
			       val);
	return NP_OK;
}

enum { TV_OK, TV_BAD, TV_FRACTION };

/* One threshold value: a percentage (div > 1: a plain number or one with
 * '%', where a value between 0 and 1 without '%' is taken for a fraction
 * and refused with its own message) or a rate (a plain number). TV_BAD:
 * not a number in range, the caller says what is expected. */
static int threshold_value(const char *opt, const char *val, const char *v_text, double hi, double div,
			   double *out, struct np_err *err)
{
	bool sign = false;
	double v = NAN;

	if (div > 1 ? !percent_number(v_text, &v, &sign) : !plain_number(v_text, true))
		return TV_BAD;
	if (div <= 1) {
		errno = 0;
		v = strtod(v_text, NULL);
		if (errno == ERANGE)
			return TV_BAD;
	}
	if (!isfinite(v) || v < 0 || v > hi)
		return TV_BAD;
	if (div > 1 && !sign && v > 0 && v < 1) {
		np_fail(err, NP_EUSAGE,
			"invalid --%s '%s': the value is a percentage, so %s is %s%%; did you mean %g? give %g (or %g%%), or %s%% for %s percent",
			opt, val, v_text, v_text, v * 100, v * 100, v * 100, v_text, v_text);
		return TV_FRACTION;
	}
	*out = v;
	return TV_OK;
}

/* A verdict threshold: one value for every collective, or COLL=V pairs
 * separated by commas, each collective once; values are scaled by 1/div
 * into the fields. */
static enum np_status parse_threshold(const char *opt, const char *val, double hi, double div,
				      const char *unit, struct np_opts *o, double *all,
				      double *per, struct np_err *err)
{
	char buf[512], *save = NULL;
	bool seen[NP_COLL_COUNT] = { false };
	double v;
	int tv;

	if (!strchr(val, '=')) {
		if ((tv = threshold_value(opt, val, val, hi, div, &v, err)))
			return tv == TV_FRACTION ? NP_EUSAGE : np_fail(err, NP_EUSAGE, "invalid --%s '%s'; give %s from 0 to %g, e.g. %s or allreduce=%s,alltoall=%s",
				       opt, val, unit, hi, div > 1 ? "80" : "150", div > 1 ? "80" : "150",
				       div > 1 ? "70" : "90");
		*all = v / div;
		for (int c = 0; c < NP_COLL_COUNT; c++)
			per[c] = v / div;
		return NP_OK;
	}
	if (o->cmd == NP_CMD_ISOLATE)
		return np_fail(err, NP_EUSAGE, "isolate takes one --%s value, not one per collective", opt);
	if (strlen(val) >= sizeof(buf))
		return np_fail(err, NP_EUSAGE, "--%s '%.40s...' is too long", opt, val);
	if (val[0] == ',' || val[strlen(val) - 1] == ',' || strstr(val, ",,"))
		return np_fail(err, NP_EUSAGE,
			       "invalid --%s '%s': a pair between commas is empty; give COLL=VALUE pairs separated by single commas, e.g. allreduce=%s,alltoall=%s",
			       opt, val, div > 1 ? "80" : "150", div > 1 ? "70" : "90");
	strcpy(buf, val);
	*all = 0;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		const struct np_coll *c;
		if (!eq)
			return np_fail(err, NP_EUSAGE, "invalid --%s '%s': '%s' has no '='; give COLL=VALUE pairs, e.g. allreduce=%s,alltoall=%s",
				       opt, val, tok, div > 1 ? "80" : "150", div > 1 ? "70" : "90");
		*eq = '\0';
		c = np_coll_find(tok);
		if (!c)
			return np_fail(err, NP_EUSAGE, "invalid --%s '%s': unknown collective '%s' (see --coll)",
				       opt, val, tok);
		if (seen[c->id])
			return np_fail(err, NP_EUSAGE, "invalid --%s '%s': %s is given twice; give each collective once",
				       opt, val, c->name);
		seen[c->id] = true;
		if ((tv = threshold_value(opt, val, eq + 1, hi, div, &v, err)))
			return tv == TV_FRACTION ? NP_EUSAGE : np_fail(err, NP_EUSAGE, "invalid --%s '%s': '%s' is not %s from 0 to %g",
				       opt, val, eq + 1, unit, hi);
		per[c->id] = v / div;
	}
	return NP_OK;
}

static enum np_status opt_min_busbw(struct np_opts *o, const char *val, struct np_err *err)
{
	return parse_threshold("min-busbw", val, 1e9, 1, "a rate in GB/s", o, &o->min_busbw, o->coll_min_busbw, err);
}

static enum np_status opt_min_eff(struct np_opts *o, const char *val, struct np_err *err)
{
	return parse_threshold("min-eff", val, 1000, 100, "a percentage", o, &o->min_eff, o->coll_min_eff, err);
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
	if (parse_factor(val, &o->step_factor))
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

/* Apply one option with its value (NULL for a flag, or an optional value
 * not given): through the field or the handler its row binds. */
static enum np_status apply(struct np_opts *o, const struct np_option *opt, const char *val,
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
		return parse_int(opt->name, val, (long)opt->lo, (long)opt->hi, (int *)field, err);
	case NP_OPT_DOUBLE:
		return parse_double(opt->name, val, opt->lo, opt->hi, (double *)field, err);
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

/* Two spellings of the sizes that would override each other: refused,
 * saying which to keep, rather than the last one winning. --sweep MIN:MAX
 * without a step takes -f or -i for its step. */
static enum np_status size_conflict(const struct np_opts *o, struct np_err *err)
{
	const char *sw = o->sweep_arg, *bounds = o->minbytes_arg ? "-b/--minbytes" : "-e/--maxbytes";
	const char *bval = o->minbytes_arg ? o->minbytes_arg : o->maxbytes_arg;
	const char *step = o->stepfactor_arg ? "-f/--stepfactor" : "-i/--stepbytes";
	const char *sval = o->stepfactor_arg ? o->stepfactor_arg : o->stepbytes_arg;

	if (o->stepfactor_arg && o->stepbytes_arg)
		return np_fail(err, NP_EUSAGE,
			       "-f/--stepfactor %s and -i/--stepbytes %s both set the step between sizes; keep one: drop -i to multiply by %s, or drop -f to add %s",
			       o->stepfactor_arg, o->stepbytes_arg, o->stepfactor_arg, o->stepbytes_arg);
	if (sw && bval)
		return np_fail(err, NP_EUSAGE,
			       "--sweep '%s' and %s %s both set the sizes; keep one: drop %s, or drop --sweep and give -b MIN -e MAX",
			       sw, bounds, bval, bounds);
	if (sw && sval && strchr(strchr(sw, ':') ? strchr(sw, ':') + 1 : "", ':'))
		return np_fail(err, NP_EUSAGE,
			       "--sweep '%s' has a step, and %s %s sets another; keep one: drop %s, or the step from --sweep",
			       sw, step, sval, step);
	return NP_OK;
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

enum np_status np_opts_parse(struct np_opts *o, unsigned cmd, int argc, char **argv, int first,
			     bool *help, bool *version, struct np_err *err)
{
	defaults(o, cmd);
	*help = *version = false;
	for (int i = first; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		const struct np_option *opt;
		bool is_short = false;

		if (a[0] == '-' && a[1] == '-' && a[2]) {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			opt = find_long(a + 2, len);
			if (!opt)
				return unknown_option(a, a + 2, len, 0, cmd, err);
			if (eq) {
				if (!opt->arg)
					return np_fail(err, NP_EUSAGE, "option '--%s' takes no value; remove '=%s'",
						       opt->name, eq + 1);
				val = eq + 1;
			}
		} else if (a[0] == '-' && a[1] && a[1] != '-') {
			opt = find_short(a[1]);
			if (!opt)
				return unknown_option(a, NULL, 0, a[1], cmd, err);
			is_short = true;
			if (a[2]) {
				if (!opt->arg)
					return np_fail(err, NP_EUSAGE, "option '-%c' takes no value", a[1]);
				val = a + 2;
			}
		} else if (cmd == NP_CMD_COMPARE && !(o->files[0] && o->files[1])) {
			o->files[o->files[0] ? 1 : 0] = a; /* A.json B.json */
			continue;
		} else {
			return np_fail(err, NP_EUSAGE, "unexpected argument '%s'; see 'nccl-probe %s--help'",
				       a, cmd_help(cmd));
		}
		if (!(opt->cmds & cmd))
			return np_fail(err, NP_EUSAGE, "option '--%s' is not for '%s'; see 'nccl-probe %s--help'",
				       opt->name, cmd_name(cmd), cmd_help(cmd));
		if (opt->kind == NP_OPT_HELP) {
			*help = true;
			return NP_OK;
		}
		if (opt->kind == NP_OPT_VERSION) {
			*version = true;
			return NP_OK;
		}
		/* a value is the next argument, except the long form of an
		 * optional one (--check, --check=0) */
		if (opt->arg && !val && (opt->kind != NP_OPT_OPTARG || is_short)) {
			if (i + 1 >= argc)
				return np_fail(err, NP_EUSAGE, "option '--%s' needs a value (%s)", opt->name,
					       opt->arg);
			val = argv[++i];
		}
		if (apply(o, opt, val, err))
			return NP_EUSAGE;
	}
	if (size_conflict(o, err))
		return NP_EUSAGE;
	if (o->max_bytes == 0) {
		/* the sweep lowers it to what fits (src/sweep.c) */
		o->max_default = true;
		o->max_bytes = NP_DEFAULT_MAX_GPU > o->min_bytes ? NP_DEFAULT_MAX_GPU : o->min_bytes;
	}
	if (o->min_bytes == 0)
		return np_fail(err, NP_EUSAGE, "the smallest size must be at least 1 byte; raise --minbytes");
	if (o->min_bytes > o->max_bytes)
		return np_fail(err, NP_EUSAGE,
			       "smallest size %llu is larger than largest size %llu; swap them",
			       (unsigned long long)o->min_bytes, (unsigned long long)o->max_bytes);
	if ((cmd == NP_CMD_SWEEP || cmd == NP_CMD_TUNE) && np_opts_sizes(o, NULL, 0) > NP_MAX_SIZES)
		return np_fail(err, NP_EUSAGE,
			       "%s%s%sthe sweep from %llu to %llu bytes has more than %d sizes; use a larger step",
			       o->sweep_arg ? "invalid --sweep '" : "", o->sweep_arg ? o->sweep_arg : "",
			       o->sweep_arg ? "': " : "", (unsigned long long)o->min_bytes,
			       (unsigned long long)o->max_bytes, NP_MAX_SIZES);
	{
		/* one file, one report: two writers would rename over each other */
		const char *f[4] = { o->output && strcmp(o->output, "-") ? o->output : NULL,
				     o->json_file, o->csv_file, o->metrics_file };
		static const char *const n[4] = { "--output", "--json", "--csv", "--metrics" };
		for (int i = 0; i < 4; i++)
			for (int k = i + 1; k < 4; k++)
				if (f[i] && f[k] && !strcmp(f[i], f[k]))
					return np_fail(err, NP_EUSAGE,
						       "%s and %s both name '%s'; give each report its own file",
						       n[i], n[k], f[i]);
		for (int i = 1; i < 3; i++)
			if (f[i] && !strcmp(f[i], "-"))
				return np_fail(err, NP_EUSAGE,
					       "%s - : the table is on standard output; give %s a file name, or use --format %s for standard output",
					       n[i], n[i], i == 1 ? "json" : "csv");
		if (f[3] && !strcmp(f[3], "-") && !f[0])
			return np_fail(err, NP_EUSAGE,
				       "--metrics - and the report would both go to standard output; give --metrics a file name, or --output one");
	}
	if (o->graph && np_backend_find(o->backend) && np_backend_find(o->backend)->ops &&
	    !(np_backend_find(o->backend)->ops->caps & NP_CAP_GRAPHS))
		return np_fail(err, NP_EUSAGE, "--graph (or -G N) needs the NCCL backend; drop it or use --backend nccl");
	if (cmd == NP_CMD_TUNE && !o->ntries && !o->try_file)
		return np_fail(err, NP_EUSAGE, "tune needs candidates: --try VAR=V1,V2 (e.g. --try NCCL_PROTO=LL,Simple) or --try-file FILE");
	if (cmd == NP_CMD_COMPARE && !o->files[1])
		return np_fail(err, NP_EUSAGE, "compare needs two JSON reports of the sweep: nccl-probe compare A.json B.json");
	if (cmd == NP_CMD_TOPO && o->fail_on != 2 && (o->check_gdr || o->recommend))
		return np_fail(err, NP_EUSAGE, "--fail-on judges the findings of the full report; drop --check-gdr and --recommend, which have their own exit status");
	if (cmd == NP_CMD_TOPO && o->check_gdr && o->recommend)
		return np_fail(err, NP_EUSAGE, "--check-gdr and --recommend exclude each other; give one");
	if (cmd == NP_CMD_TOPO && o->under_load > 0 && (o->input || o->check_gdr || o->recommend))
		return np_fail(err, NP_EUSAGE, "--under-load samples the live GPUs' health; drop --input, --check-gdr and --recommend");
	return NP_OK;
}

enum np_status np_opts_check_files(const struct np_opts *o, struct np_err *err)
{
	if (o->output && np_outfile_check(o->output, "--output", err))
		return NP_EUSAGE;
	if (o->export_file && np_outfile_check(o->export_file, "--export", err))
		return NP_EUSAGE;
	if (o->json_file && np_outfile_check(o->json_file, "--json", err))
		return NP_EUSAGE;
	if (o->csv_file && np_outfile_check(o->csv_file, "--csv", err))
		return NP_EUSAGE;
	if (o->metrics_file && np_outfile_check(o->metrics_file, "--metrics", err))
		return NP_EUSAGE;
	if (o->export_file && !strcmp(o->export_file, "-") && (!o->output || !strcmp(o->output, "-")))
		return np_fail(err, NP_EUSAGE,
			       "--export - and the report would both go to standard output; give --export a file name, or --output one");
	if (o->input && access(o->input, R_OK) != 0)
		return np_fail(err, NP_EUSAGE,
			       "cannot read --input '%s': %s; give an hwloc or NCCL topology XML file",
			       o->input, strerror(errno));
	if (o->try_file && access(o->try_file, R_OK) != 0)
		return np_fail(err, NP_EUSAGE, "cannot read --try-file '%s': %s; give a file of candidates, one per line",
			       o->try_file, strerror(errno));
	if (o->baseline && access(o->baseline, R_OK) != 0)
		return np_fail(err, NP_EUSAGE,
			       "cannot read --baseline '%s': %s; give the JSON report of a known-good 'nccl-probe %s' run",
			       o->baseline, strerror(errno), o->cmd == NP_CMD_ISOLATE ? "isolate" : "--format json");
	return NP_OK;
}

enum np_status np_opts_check_world(const struct np_opts *o, int nranks, struct np_err *err)
{
	if (o->root >= nranks)
		return np_fail(err, NP_EUSAGE, "invalid --root %d: there are %d ranks; give 0 to %d",
			       o->root, nranks, nranks - 1);
	if (o->ranks_per_node && nranks % o->ranks_per_node)
		return np_fail(err, NP_EUSAGE,
			       "invalid --ranks-per-node %d: %d ranks do not divide into nodes of %d; launch a multiple of %d ranks",
			       o->ranks_per_node, nranks, o->ranks_per_node, o->ranks_per_node);
	return NP_OK;
}

/* One option in --help: its name in a column of 28, the text beside it
 * broken at blanks into lines of at most 80 columns (below the name when
 * the name is longer than its column). */
static void usage_line(FILE *f, const char *left, const char *help)
{
	const int width = 80, indent = 32;
	int room = width - indent;

	if ((int)strlen(left) > indent - 4)
		fprintf(f, "  %s\n%*s", left, indent, "");
	else
		fprintf(f, "  %-*s  ", indent - 4, left);
	while (*help) {
		int n = (int)strlen(help);
		if (n > room) {
			n = room;
			while (n > 0 && help[n] != ' ')
				n--;
			if (n == 0)
				n = room;
		}
		fprintf(f, "%.*s\n", n, help);
		help += n;
		while (*help == ' ')
			help++;
		if (*help)
			fprintf(f, "%*s", indent, "");
	}
}

static const char *format_help(unsigned cmd)
{
	switch (cmd) {
	case NP_CMD_SWEEP:
		return "output format (default table; nccl-tests: its table, and with -J its JSON)";
	default:
		return "output format (default table)";
	}
}

void np_opts_usage(FILE *f, unsigned cmd)
{
	if (cmd == NP_CMD_ISOLATE)
		fprintf(f, "usage: mpirun -np N nccl-probe isolate [options]\n\n"
			   "Find the bad node or link in one job: disjoint groups (each node alone,\n"
			   "pairs of nodes) measure at the same time, round after round, and a node\n"
			   "or link is named only when it is significantly below the fleet again\n"
			   "with new partners.\n\noptions:\n");
	else if (cmd == NP_CMD_COMPARE)
		fprintf(f, "usage: nccl-probe compare [options] A.json B.json\n\n"
			   "Compare two sweeps' JSON reports row by row: B's speed against A's with a\n"
			   "95%% confidence interval from the samples both stored, and a regression gate.\n\noptions:\n");
	else if (cmd == NP_CMD_TUNE)
		fprintf(f, "usage: mpirun -np N nccl-probe tune --try VAR=V1,V2 [--try ...] [options]\n\n"
			   "Measure each candidate setting against the environment as launched, in\n"
			   "alternating batches, each on a communicator made with the setting in effect\n"
			   "(confirmed in NCCL's log); report where each is faster or slower with a 95%%\n"
			   "interval, and export lines only for a significant winner.\n\noptions:\n");
	else if (cmd == NP_CMD_TOPO)
		fprintf(f, "usage: nccl-probe topo [options]\n\n"
			   "Map GPU, NIC and NUMA affinity, check GPUDirect RDMA, placement and links,\n"
			   "and recommend NCCL settings.\n\noptions:\n");
	else
		fprintf(f, "usage: mpirun -np N nccl-probe [sweep] [options]\n"
			   "       nccl-probe topo [options]      (see 'nccl-probe topo --help')\n"
			   "       mpirun -np N nccl-probe isolate [options]   (nccl-probe help isolate)\n"
			   "       nccl-probe compare A.json B.json   (see 'nccl-probe compare --help')\n"
			   "       mpirun -np N nccl-probe tune --try VAR=V1,V2   (nccl-probe help tune)\n"
			   "       nccl-probe help [COMMAND] | version\n\n"
			   "Measure NCCL (or MPI) collectives over a range of sizes and compare the\n"
			   "bus bandwidth with what this machine's links allow.\n\noptions:\n");
	for (size_t i = 0; i < np_options_count; i++) {
		const struct np_option *o = &np_options[i];
		char left[64];
		if (!(o->cmds & cmd))
			continue;
		const char *arg = o->arg;
		/* only the formats this command writes */
		if (!strcmp(o->name, "format"))
			arg = cmd == NP_CMD_SWEEP ? "table|json|csv|nccl-tests" : "table|json";
		if (o->kind == NP_OPT_OPTARG)
			snprintf(left, sizeof(left), "-%c, --%s[=%s]", o->short_name, o->name, arg);
		else if (o->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name,
				 arg ? " " : "", arg ? arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name, arg ? " " : "", arg ? arg : "");
		usage_line(f, left, !strcmp(o->name, "format") ? format_help(cmd) : o->help);
		/* the names come from the tables (probes/coll.c) */
		if (!strcmp(o->name, "coll") || !strcmp(o->name, "dtype")) {
			char names[256];
			usage_line(f, "", np_names_join(o->name[0] == 'c' ? 0 : 1, " ", names, sizeof(names)));
		}
	}
	if (cmd == NP_CMD_SWEEP)
		fprintf(f, "\nexit status: 0 ok, 1 verdict failed, 2 wrong data, 3 runtime error,\n"
			   "4 timeout, 64 usage. See nccl-probe(1).\n");
	if (cmd == NP_CMD_COMPARE)
		fprintf(f, "\nexit status: 0 no row significantly slower (beyond --max-regression),\n"
			   "1 B significantly slower somewhere, 64 usage, unreadable reports or runs\n"
			   "that cannot be compared.\n");
	if (cmd == NP_CMD_ISOLATE)
		fprintf(f, "\nexit status: 0 every node and link good, 1 a node, link or the fleet\n"
			   "named, 2 a node computes wrong data, 3 runtime error, 4 timeout, 64 usage.\n");
}
