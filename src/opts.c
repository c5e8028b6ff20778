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
#include <sys/stat.h>
#include <unistd.h>

#include "opts.h"

#define SW NP_CMD_SWEEP
#define TP NP_CMD_TOPO

/* Sorted by long name; tests/t0005 checks that --help and the man page
 * list every row. */
const struct np_option np_options[] = {
	{ "backend", 0, "auto|mpi|nccl", SW, "backend: NCCL on GPUs or MPI on host memory (default auto)" },
	{ "budget", 0, "SEC", SW, "time budget per size with --iters auto (default 0.5)" },
	{ "check", 'c', NULL, SW, "verify results once per size, outside timing (default; -c 0|1)" },
	{ "check-gdr", 0, NULL, TP, "run only the GPUDirect RDMA checks; exit 0 when every GPU has a GDR path" },
	{ "coll", 0, "LIST", SW, "collectives: allreduce,alltoall (default), allgather, reducescatter, broadcast, reduce, sendrecv, all" },
	{ "dtype", 'd', "TYPE", SW, "int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 (default float)" },
	{ "export", 0, "FILE", TP, "write an hwloc XML snapshot with nccl-probe's facts to FILE" },
	{ "format", 0, "table|json|csv", SW | TP, "output format (default table; topo: table or json)" },
	{ "gpu-map", 0, "LIST", SW, "GPU index for each local rank, e.g. 0,2,4,6 (env NCCL_PROBE_GPU_MAP)" },
	{ "graph", 0, NULL, SW, "capture each timed batch in a CUDA graph (NCCL backend)" },
	{ "help", 'h', NULL, SW | TP, "show this help and exit" },
	{ "inplace", 0, NULL, SW, "run in place (recv buffer is the send buffer)" },
	{ "input", 0, "FILE", TP, "read the topology from an hwloc XML or NCCL topology XML file" },
	{ "iters", 'n', "N|auto", SW, "iterations per sample; auto: sample until the median is known to 1% (default)" },
	{ "maxbytes", 'e', "SIZE", SW, "largest size (as in --sweep)" },
	{ "min-busbw", 0, "GBPS", SW, "fail (exit 1) if busbw at the largest size is below GBPS" },
	{ "min-eff", 0, "PCT", SW, "fail (exit 1) if eff at the largest size is below PCT percent" },
	{ "minbytes", 'b', "SIZE", SW, "smallest size (as in --sweep)" },
	{ "no-check", 0, NULL, SW, "do not verify results" },
	{ "op", 'o', "OP", SW, "reduction: sum prod max min avg (default sum)" },
	{ "output", 0, "FILE", SW | TP, "write the report to FILE (written whole, then renamed)" },
	{ "quiet", 'q', NULL, SW | TP, "no header and no progress" },
	{ "ranks-per-node", 0, "L", SW, "treat each L consecutive ranks as one node (virtual nodes)" },
	{ "recommend", 0, NULL, TP, "print only export NCCL_...=... lines, each with its reason" },
	{ "root", 'r', "RANK", SW, "root rank of broadcast and reduce (default 0)" },
	{ "samples", 0, "N", SW, "samples per size with a fixed --iters (default 5)" },
	{ "stepbytes", 'i', "SIZE", SW, "grow sizes by adding SIZE" },
	{ "stepfactor", 'f', "F", SW, "grow sizes by multiplying by F (> 1)" },
	{ "sweep", 0, "MIN:MAX[:xF|:+STEP]", SW, "sizes: bytes or K/M/G/T, powers of 1024 (default 8:128M:x4)" },
	{ "timeout", 'T', "SEC", SW, "abort (exit 4) when one collective takes longer than SEC" },
	{ "version", 'V', NULL, SW | TP, "show the version and exit" },
	{ "warmup", 'w', "N", SW, "warm-up iterations per size (default 5)" },
};
const size_t np_options_count = sizeof(np_options) / sizeof(np_options[0]);

const char *np_format_str(enum np_format f)
{
	switch (f) {
	case NP_FMT_TABLE: return "table";
	case NP_FMT_JSON: return "json";
	case NP_FMT_CSV: return "csv";
	}
	return "unknown";
}

const char *np_backend_choice_str(enum np_backend_choice b)
{
	switch (b) {
	case NP_BACKEND_AUTO: return "auto";
	case NP_BACKEND_MPI: return "mpi";
	case NP_BACKEND_NCCL: return "nccl";
	}
	return "unknown";
}

size_t np_opts_sizes(const struct np_opts *o, uint64_t *out, size_t cap)
{
	size_t n = 0;
	uint64_t s = o->min_bytes;

	while (s <= o->max_bytes && n <= NP_MAX_SIZES) {
		uint64_t next;
		if (out && n < cap)
			out[n] = s;
		n++;
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
	return n;
}

static void defaults(struct np_opts *o, unsigned cmd)
{
	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->min_bytes = 8;
	o->max_bytes = 128ull << 20;
	o->step_kind = NP_STEP_FACTOR;
	o->step_factor = 4;
	o->colls[NP_COLL_ALLREDUCE] = true;
	o->colls[NP_COLL_ALLTOALL] = true;
	o->dtype = NP_FLOAT;
	o->op = NP_OP_SUM;
	o->samples = 5;
	o->warmup = 5;
	o->budget = 0.5;
	o->check = true;
	o->backend = NP_BACKEND_AUTO;
	o->format = NP_FMT_TABLE;
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
		return np_fail(err, NP_EUSAGE, "size '%s' is too large; the largest is 16383T", s);
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
	if (shift && v > (UINT64_MAX >> shift) / 2) /* keep headroom for n * size */
		return np_fail(err, NP_EUSAGE, "size '%s' is too large; the largest is 16383T", s);
	if (!shift && v > UINT64_MAX / 2)
		return np_fail(err, NP_EUSAGE, "size '%s' is too large; the largest is 16383T", s);
	*out = (uint64_t)v << shift;
	return NP_OK;
}

static enum np_status parse_double(const char *name, const char *s, double lo, double *out,
				   struct np_err *err)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno == ERANGE || !isfinite(v) || v < lo)
		return np_fail(err, NP_EUSAGE, "invalid --%s '%s'; give a number >= %g", name, s, lo);
	*out = v;
	return NP_OK;
}

static enum np_status parse_int(const char *name, const char *s, long lo, long hi, int *out,
				struct np_err *err)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno == ERANGE || v < lo || v > hi)
		return np_fail(err, NP_EUSAGE, "invalid --%s '%s'; give an integer from %ld to %ld",
			       name, s, lo, hi);
	*out = (int)v;
	return NP_OK;
}

static enum np_status parse_factor(const char *s, const char *whole, double *out, struct np_err *err)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno == ERANGE || !isfinite(v) || v <= 1.0 || v > 1024.0)
		return np_fail(err, NP_EUSAGE,
			       "invalid step factor in '%s'; give a factor above 1 and at most 1024, e.g. x2",
			       whole);
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
			if (parse_factor(parts[2] + 1, s, &o->step_factor, err))
				return NP_EUSAGE;
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

static enum np_status parse_colls(const char *s, struct np_opts *o, struct np_err *err)
{
	char buf[512], *tok, *save = NULL;
	bool any = false;

	if (strlen(s) >= sizeof(buf) || !*s)
		return np_fail(err, NP_EUSAGE, "invalid --coll '%s'; give a comma-separated list or 'all'", s);
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
		c = np_coll_find(tok);
		if (!c)
			return np_fail(err, NP_EUSAGE,
				       "unknown collective '%s' in --coll; use allreduce, allgather, reducescatter, alltoall, broadcast, reduce, sendrecv or all",
				       tok);
		o->colls[c->id] = true;
		any = true;
	}
	if (!any)
		return np_fail(err, NP_EUSAGE, "invalid --coll '%s'; give a comma-separated list or 'all'", s);
	return NP_OK;
}

static enum np_status check_output(const char *path, struct np_err *err)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');

	struct stat st;

	if (!*path)
		return np_fail(err, NP_EUSAGE, "invalid --output ''; give a file name");
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return np_fail(err, NP_EUSAGE, "cannot write --output '%s': it is a directory; give a file name",
			       path);
	if (slash) {
		size_t len = (size_t)(slash - path);
		if (len >= sizeof(dir))
			return np_fail(err, NP_EUSAGE, "invalid --output '%s'; the path is too long", path);
		memcpy(dir, path, len);
		dir[len] = '\0';
		if (len == 0)
			strcpy(dir, "/");
	} else {
		strcpy(dir, ".");
	}
	if (access(dir, W_OK) != 0)
		return np_fail(err, NP_EUSAGE,
			       "cannot write --output '%s': directory '%s' %s; choose a writable directory",
			       path, dir, errno == ENOENT ? "does not exist" : "is not writable");
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

static const char *cmd_name(unsigned cmd)
{
	return cmd == NP_CMD_TOPO ? "topo" : "sweep";
}

/* Apply one option with its value (NULL for flags). */
static enum np_status apply(struct np_opts *o, const struct np_option *opt, const char *val,
			    bool is_short, struct np_err *err)
{
	const char *n = opt->name;
	int i;

	if (!strcmp(n, "backend")) {
		if (!strcmp(val, "auto")) o->backend = NP_BACKEND_AUTO;
		else if (!strcmp(val, "mpi")) o->backend = NP_BACKEND_MPI;
		else if (!strcmp(val, "nccl")) o->backend = NP_BACKEND_NCCL;
		else return np_fail(err, NP_EUSAGE, "unknown --backend '%s'; use auto, mpi or nccl", val);
	} else if (!strcmp(n, "budget")) {
		if (parse_double(n, val, 0.001, &o->budget, err))
			return NP_EUSAGE;
	} else if (!strcmp(n, "check")) {
		if (is_short) {
			if (!strcmp(val, "0")) o->check = false;
			else if (!strcmp(val, "1")) o->check = true;
			else return np_fail(err, NP_EUSAGE, "invalid -c '%s'; use -c 0 or -c 1", val);
		} else {
			o->check = true;
		}
	} else if (!strcmp(n, "no-check")) {
		o->check = false;
	} else if (!strcmp(n, "check-gdr")) {
		o->check_gdr = true;
	} else if (!strcmp(n, "coll")) {
		return parse_colls(val, o, err);
	} else if (!strcmp(n, "dtype")) {
		const struct np_dtype_info *d = np_dtype_find(val);
		if (!d)
			return np_fail(err, NP_EUSAGE,
				       "unknown --dtype '%s'; use int8, uint8, int32, uint32, int64, uint64, half, float, double or bfloat16",
				       val);
		o->dtype = d->id;
	} else if (!strcmp(n, "export")) {
		if (check_output(val, err))
			return np_fail(err, NP_EUSAGE, "cannot write --export '%s'; choose a writable directory", val);
		o->export_file = val;
	} else if (!strcmp(n, "format")) {
		if (!strcmp(val, "table")) o->format = NP_FMT_TABLE;
		else if (!strcmp(val, "json")) o->format = NP_FMT_JSON;
		else if (!strcmp(val, "csv") && o->cmd == NP_CMD_SWEEP) o->format = NP_FMT_CSV;
		else return np_fail(err, NP_EUSAGE, "unknown --format '%s'; use %s", val,
				    o->cmd == NP_CMD_SWEEP ? "table, json or csv" : "table or json");
	} else if (!strcmp(n, "gpu-map")) {
		if (check_gpu_map(val, err))
			return NP_EUSAGE;
		o->gpu_map = val;
	} else if (!strcmp(n, "graph")) {
		o->graph = true;
	} else if (!strcmp(n, "inplace")) {
		o->inplace = true;
	} else if (!strcmp(n, "input")) {
		if (access(val, R_OK) != 0)
			return np_fail(err, NP_EUSAGE, "cannot read --input '%s': %s; give an hwloc or NCCL topology XML file",
				       val, strerror(errno));
		o->input = val;
	} else if (!strcmp(n, "iters")) {
		if (!strcmp(val, "auto"))
			o->iters = 0;
		else if (parse_int(n, val, 1, 100000000, &o->iters, err))
			return np_fail(err, NP_EUSAGE, "invalid --iters '%s'; give a positive integer or 'auto'", val);
	} else if (!strcmp(n, "maxbytes")) {
		if (np_parse_size(val, &o->max_bytes, err))
			return NP_EUSAGE;
	} else if (!strcmp(n, "minbytes")) {
		if (np_parse_size(val, &o->min_bytes, err))
			return NP_EUSAGE;
	} else if (!strcmp(n, "min-busbw")) {
		if (parse_double(n, val, 0, &o->min_busbw, err))
			return NP_EUSAGE;
	} else if (!strcmp(n, "min-eff")) {
		double pct;
		if (parse_double(n, val, 0, &pct, err) || pct > 1000)
			return np_fail(err, NP_EUSAGE, "invalid --min-eff '%s'; give a percentage, e.g. 80", val);
		o->min_eff = pct / 100.0;
	} else if (!strcmp(n, "op")) {
		if ((i = np_redop_find(val)) < 0)
			return np_fail(err, NP_EUSAGE, "unknown --op '%s'; use sum, prod, max, min or avg", val);
		o->op = (enum np_redop)i;
	} else if (!strcmp(n, "output")) {
		if (check_output(val, err))
			return NP_EUSAGE;
		o->output = val;
	} else if (!strcmp(n, "quiet")) {
		o->quiet = true;
	} else if (!strcmp(n, "ranks-per-node")) {
		if (parse_int(n, val, 1, 1 << 20, &o->ranks_per_node, err))
			return NP_EUSAGE;
	} else if (!strcmp(n, "recommend")) {
		o->recommend = true;
	} else if (!strcmp(n, "root")) {
		if (parse_int(n, val, 0, INT_MAX, &o->root, err))
			return NP_EUSAGE;
	} else if (!strcmp(n, "samples")) {
		if (parse_int(n, val, 1, 1000000, &o->samples, err))
			return NP_EUSAGE;
	} else if (!strcmp(n, "stepbytes")) {
		uint64_t st;
		if (np_parse_size(val, &st, err) || st == 0)
			return np_fail(err, NP_EUSAGE, "invalid --stepbytes '%s'; give a size of at least 1 byte", val);
		o->step_kind = NP_STEP_ADD;
		o->step_bytes = st;
	} else if (!strcmp(n, "stepfactor")) {
		char whole[128];
		snprintf(whole, sizeof(whole), "x%s", val);
		if (parse_factor(val, whole, &o->step_factor, err))
			return NP_EUSAGE;
		o->step_kind = NP_STEP_FACTOR;
	} else if (!strcmp(n, "sweep")) {
		o->sweep_arg = val;
		return np_parse_sweep(val, o, err);
	} else if (!strcmp(n, "timeout")) {
		if (parse_double(n, val, 0, &o->timeout, err))
			return NP_EUSAGE;
	} else if (!strcmp(n, "warmup")) {
		if (parse_int(n, val, 0, 1000000, &o->warmup, err))
			return NP_EUSAGE;
	}
	return NP_OK;
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
				return np_fail(err, NP_EUSAGE, "unknown option '%s'; see 'nccl-probe %s--help'",
					       a, cmd == NP_CMD_TOPO ? "topo " : "");
			if (eq) {
				if (!opt->arg && strcmp(opt->name, "check"))
					return np_fail(err, NP_EUSAGE, "option '--%s' takes no value; remove '=%s'",
						       opt->name, eq + 1);
				val = eq + 1;
			}
		} else if (a[0] == '-' && a[1] && a[1] != '-') {
			opt = find_short(a[1]);
			if (!opt)
				return np_fail(err, NP_EUSAGE, "unknown option '%s'; see 'nccl-probe %s--help'",
					       a, cmd == NP_CMD_TOPO ? "topo " : "");
			is_short = true;
			if (a[2]) {
				if (!opt->arg && opt->short_name != 'c')
					return np_fail(err, NP_EUSAGE, "option '-%c' takes no value", a[1]);
				val = a + 2;
			}
		} else {
			return np_fail(err, NP_EUSAGE, "unexpected argument '%s'; see 'nccl-probe %s--help'",
				       a, cmd == NP_CMD_TOPO ? "topo " : "");
		}
		if (!(opt->cmds & cmd))
			return np_fail(err, NP_EUSAGE, "option '--%s' is not for '%s'; see 'nccl-probe %s--help'",
				       opt->name, cmd_name(cmd), cmd == NP_CMD_TOPO ? "topo " : "");
		if (!strcmp(opt->name, "help")) {
			*help = true;
			return NP_OK;
		}
		if (!strcmp(opt->name, "version")) {
			*version = true;
			return NP_OK;
		}
		if ((opt->arg || (is_short && opt->short_name == 'c')) && !val) {
			if (i + 1 >= argc)
				return np_fail(err, NP_EUSAGE, "option '--%s' needs a value (%s)", opt->name,
					       opt->arg ? opt->arg : "0|1");
			val = argv[++i];
		}
		if (apply(o, opt, val, is_short, err))
			return NP_EUSAGE;
	}
	if (o->min_bytes == 0)
		return np_fail(err, NP_EUSAGE, "the smallest size must be at least 1 byte; raise --minbytes");
	if (o->min_bytes > o->max_bytes)
		return np_fail(err, NP_EUSAGE,
			       "smallest size %llu is larger than largest size %llu; swap them",
			       (unsigned long long)o->min_bytes, (unsigned long long)o->max_bytes);
	if (cmd == NP_CMD_SWEEP && np_opts_sizes(o, NULL, 0) > NP_MAX_SIZES)
		return np_fail(err, NP_EUSAGE,
			       "%s%s%sthe sweep from %llu to %llu bytes has more than %d sizes; use a larger step",
			       o->sweep_arg ? "invalid --sweep '" : "", o->sweep_arg ? o->sweep_arg : "",
			       o->sweep_arg ? "': " : "", (unsigned long long)o->min_bytes,
			       (unsigned long long)o->max_bytes, NP_MAX_SIZES);
	if (o->graph && o->backend == NP_BACKEND_MPI)
		return np_fail(err, NP_EUSAGE, "--graph needs the NCCL backend; drop --graph or use --backend nccl");
	if (cmd == NP_CMD_TOPO && o->check_gdr && o->recommend)
		return np_fail(err, NP_EUSAGE, "--check-gdr and --recommend exclude each other; give one");
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

void np_opts_usage(FILE *f, unsigned cmd)
{
	if (cmd == NP_CMD_TOPO)
		fprintf(f, "usage: nccl-probe topo [options]\n\n"
			   "Map GPU, NIC and NUMA affinity, check GPUDirect RDMA, placement and links,\n"
			   "and recommend NCCL settings.\n\noptions:\n");
	else
		fprintf(f, "usage: mpirun -np N nccl-probe [sweep] [options]\n"
			   "       nccl-probe topo [options]      (see 'nccl-probe topo --help')\n\n"
			   "Measure NCCL (or MPI) collectives over a range of sizes and compare the\n"
			   "bus bandwidth with what this machine's links allow.\n\noptions:\n");
	for (size_t i = 0; i < np_options_count; i++) {
		const struct np_option *o = &np_options[i];
		char left[64];
		if (!(o->cmds & cmd))
			continue;
		if (o->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		fprintf(f, "  %-30s %s\n", left, o->help);
	}
	if (cmd == NP_CMD_SWEEP)
		fprintf(f, "\nexit status: 0 ok, 1 verdict failed, 2 wrong data, 3 runtime error,\n"
			   "4 timeout, 64 usage. See nccl-probe(1).\n");
}
