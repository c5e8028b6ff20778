/* SPDX-License-Identifier: MIT */
/* Parsing a command's argv with its option table (src/cmds.h): defaults,
 * long and short options, nccl-tests' options nccl-probe has no row for,
 * and the checks between options, of the files named and of the world
 * size. Every bad input is a usage error (exit 64). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/number.h"
#include "../probes/backend.h"
#include "cmds.h"
#include "opts.h"
#include "outfile.h"

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

uint64_t np_opts_default_max(const struct np_opts *o, bool device)
{
	uint64_t cap = o->cmd->default_max[device];

	return cap > o->min_bytes ? cap : o->min_bytes;
}

void np_opts_defaults(struct np_opts *o, const struct np_cmd *cmd)
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
	o->seed = -1;
	o->nt_min_bw = -1;
	o->min_change = 0.05;
	if (cmd->defaults)
		cmd->defaults(o);
}

/* cmd's option --name (name of len bytes), or with cmd NULL any command's */
static const struct np_option *find_long(const struct np_cmd *cmd, const char *name, size_t len)
{
	for (size_t c = 0; c < np_commands_count; c++) {
		const struct np_cmd *k = cmd ? cmd : np_commands[c];
		for (size_t i = 0; i < k->noptions; i++)
			if (strlen(k->options[i].name) == len &&
			    !strncmp(k->options[i].name, name, len))
				return &k->options[i];
		if (cmd)
			break;
	}
	return NULL;
}

/* cmd's option -c, or with cmd NULL any command's */
static const struct np_option *find_short(const struct np_cmd *cmd, char c)
{
	for (size_t n = 0; n < np_commands_count; n++) {
		const struct np_cmd *k = cmd ? cmd : np_commands[n];
		for (size_t i = 0; i < k->noptions; i++)
			if (k->options[i].short_name == c)
				return &k->options[i];
		if (cmd)
			break;
	}
	return NULL;
}

/* "nccl-probe topo --help", the default command's "nccl-probe --help" */
static const char *cmd_help(const struct np_cmd *cmd, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s", cmd == np_commands[0] ? "" : cmd->name,
		 cmd == np_commands[0] ? "" : " ");
	return buf;
}

/* nccl-tests' options that nccl-probe has no row for, the values that
 * leave nccl-tests as it runs by default (taken and ignored; `set` false
 * where nccl-probe has its own spelling) and what to do instead of any
 * other (the error says "nccl-tests -X"). The ones it takes are rows of
 * the sweep's option table, src/opts_sweep.c (their help says "nccl-tests -X"). */
static const struct {
	char short_name;
	const char *name;
	bool set;
	long dflt, alt; /* nccl-tests' default; alt another value that means it */
	const char *instead;
} nccl_tests_opts[] = {
	{ 'm', "agg_iters", true, 1, 1,
	  "nccl-probe times batches of -n/--iters collectives between two events and aggregates none; drop -m" },
	{ 'N', "run_cycles", true, 1, 1,
	  "nccl-probe runs the sweep once; run it again for another cycle" },
	{ 'p', "parallel_init", true, 0, 0,
	  "every rank initializes its own communicator in its own process; drop -p" },
	{ 'y', "stream_null", true, 0, 0, "nccl-probe issues on a stream of its own; drop -y" },
	{ 'C', "report_cputime", true, 0, 0,
	  "nccl-probe times on the GPU (CUDA events) or, on host memory, with MPI_Wtime; drop -C" },
	{ 'S', "report_timestamps", true, 0, 0,
	  "the JSON report (-J FILE) holds the start time; drop -S" },
	{ 'x', "cta_policy", true, -1, 0,
	  "nccl-probe leaves the CTA policy to NCCL (NCCL_CTA_POLICY in the environment); drop -x" },
	{ 'D', "device_implementation", true, 0, 0,
	  "nccl-probe runs NCCL's host-launched collectives only; drop -D" },
	{ 'V', "device_cta_count", true, 16, 16,
	  "nccl-probe runs NCCL's host-launched collectives only; drop -V (--version shows the version)" },
	{ 'M', "memory", true, 0, 0, "nccl-probe does not report GPU memory use; drop -M" },
	{ 'u', "unalign", true, 0, 0, "nccl-probe's buffers are aligned; drop -u" },
	{ 'I', "per_iter_timing", true, 0, 0,
	  "nccl-probe times batches, not single iterations; the JSON report (-J FILE) holds every sample" },
	{ 'K', "per_iter_skip", true, 0, 0,
	  "nccl-probe times batches, not single iterations; warm-up is -w/--warmup" },
	{ 0, "warmup_iters", false, 0, 0, "use -w/--warmup N" },
	{ 0, "datatype", false, 0, 0, "use -d/--dtype TYPE" },
	{ 0, "output_file", false, 0, 0, "use -J/--json FILE" },
};

/* The row of nccl_tests_opts that argument a names (-m, -m4, --agg_iters,
 * --agg_iters=4), or -1. */
static int nccl_tests_opt(const char *a)
{
	for (int i = 0; i < (int)(sizeof(nccl_tests_opts) / sizeof(nccl_tests_opts[0])); i++) {
		size_t len = strlen(nccl_tests_opts[i].name);
		if (a[0] != '-')
			return -1;
		if (a[1] == '-' && !strncmp(a + 2, nccl_tests_opts[i].name, len) &&
		    (a[2 + len] == '\0' || a[2 + len] == '='))
			return i;
		if (a[1] != '-' && a[1] && a[1] == nccl_tests_opts[i].short_name)
			return i;
	}
	return -1;
}

/* An nccl-tests option nccl-probe has no row for, at argv[*i]: its value
 * (attached or the next argument, read as nccl-tests reads it: a C
 * integer) taken when it is nccl-tests' default, else a usage error that
 * says what to do. */
static enum np_status nccl_tests_value(int k, int argc, char **argv, int *i, struct np_err *err)
{
	const char *a = argv[*i], *val = NULL, *eq = strchr(a, '=');
	char shown[8] = "";
	int64_t v;

	if (a[1] == '-' && eq)
		val = eq + 1;
	else if (a[1] != '-' && a[2])
		val = a + 2;
	if (nccl_tests_opts[k].short_name)
		snprintf(shown, sizeof(shown), "-%c/", nccl_tests_opts[k].short_name);
	if (!nccl_tests_opts[k].set)
		return np_fail(err, NP_EUSAGE, "unknown option '%s' (an nccl-tests option): %s", a,
			       nccl_tests_opts[k].instead);
	if (!val && *i + 1 >= argc)
		return np_fail(err, NP_EUSAGE,
			       "option '%s' (nccl-tests %s--%s) needs a value; only %ld, its default, is taken",
			       a, shown, nccl_tests_opts[k].name, nccl_tests_opts[k].dflt);
	if (!val)
		val = argv[++*i];
	if (np_parse_i64(val, 0, INT64_MIN, INT64_MAX, &v) &&
	    (v == nccl_tests_opts[k].dflt || v == nccl_tests_opts[k].alt))
		return NP_OK;
	return np_fail(err, NP_EUSAGE,
		       "nccl-tests %s--%s %s is refused (only %ld, its default, is taken): %s",
		       shown, nccl_tests_opts[k].name, val, nccl_tests_opts[k].dflt,
		       nccl_tests_opts[k].instead);
}

/* The message for an option nccl-probe does not know: nccl-tests' options
 * name their equivalent, and --a_b is --a-b when that exists. */
static enum np_status unknown_option(const char *a, const char *name, size_t len, char short_name,
				     const struct np_cmd *cmd, struct np_err *err)
{
	char dashed[64], h[32];

	for (size_t i = 0; i < sizeof(nccl_tests_opts) / sizeof(nccl_tests_opts[0]); i++) {
		bool hit = name ? strlen(nccl_tests_opts[i].name) == len &&
					   !strncmp(nccl_tests_opts[i].name, name, len)
				: short_name && nccl_tests_opts[i].short_name == short_name;
		if (hit && name)
			return np_fail(err, NP_EUSAGE,
				       "unknown option '%s' (an nccl-tests option): %s", a,
				       nccl_tests_opts[i].instead);
		if (hit)
			return np_fail(err, NP_EUSAGE, "unknown option '%s' (nccl-tests --%s): %s",
				       a, nccl_tests_opts[i].name, nccl_tests_opts[i].instead);
	}
	if (name && len < sizeof(dashed) && memchr(name, '_', len)) {
		for (size_t i = 0; i < len; i++)
			dashed[i] = name[i] == '_' ? '-' : name[i];
		if (find_long(NULL, dashed, len))
			return np_fail(err, NP_EUSAGE,
				       "unknown option '%s'; did you mean '--%.*s'?", a, (int)len,
				       dashed);
	}
	return np_fail(err, NP_EUSAGE, "unknown option '%s'; see 'nccl-probe %s--help'", a,
		       cmd_help(cmd, h, sizeof(h)));
}

/* Two spellings of the sizes that would override each other: refused,
 * saying which to keep, rather than the last one winning. --sweep MIN:MAX
 * without a step takes -f or -i for its step. */
static enum np_status size_conflict(const struct np_opts *o, struct np_err *err)
{
	const char *sw = o->sweep_arg,
		   *bounds = o->minbytes_arg ? "-b/--minbytes" : "-e/--maxbytes";
	const char *bval = o->minbytes_arg ? o->minbytes_arg : o->maxbytes_arg;
	const char *step = o->stepfactor_arg ? "-f/--stepfactor" : "-i/--stepbytes";
	const char *sval = o->stepfactor_arg ? o->stepfactor_arg : o->stepbytes_arg;

	if (o->stepfactor_arg && o->stepbytes_arg)
		return np_fail(err, NP_EUSAGE,
			       "-f/--stepfactor %s and -i/--stepbytes %s both set the step between sizes; keep one: drop -i to multiply by %s, or drop -f to add %s",
			       o->stepfactor_arg, o->stepbytes_arg, o->stepfactor_arg,
			       o->stepbytes_arg);
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

/* The row of option argument a, its value when a holds one (--name=V,
 * -xV) and whether it is a short option; *opt NULL when a is no option
 * (an operand). */
static enum np_status find_option(const char *a, const struct np_cmd *cmd,
				  const struct np_option **opt, const char **val, bool *is_short,
				  struct np_err *err)
{
	char h[32];

	*opt = NULL;
	*val = NULL;
	*is_short = false;
	if (a[0] == '-' && a[1] == '-' && a[2]) {
		const char *eq = strchr(a + 2, '=');
		size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		*opt = find_long(cmd, a + 2, len);
		if (!*opt && find_long(NULL, a + 2, len))
			return np_fail(err, NP_EUSAGE,
				       "option '--%.*s' is not for '%s'; see 'nccl-probe %s--help'",
				       (int)len, a + 2, cmd->name, cmd_help(cmd, h, sizeof(h)));
		if (!*opt)
			return unknown_option(a, a + 2, len, 0, cmd, err);
		if (eq) {
			if (!(*opt)->arg)
				return np_fail(err, NP_EUSAGE,
					       "option '--%s' takes no value; remove '=%s'",
					       (*opt)->name, eq + 1);
			*val = eq + 1;
		}
	} else if (a[0] == '-' && a[1] && a[1] != '-') {
		*opt = find_short(cmd, a[1]);
		if (!*opt && find_short(NULL, a[1]))
			return np_fail(err, NP_EUSAGE,
				       "option '--%s' is not for '%s'; see 'nccl-probe %s--help'",
				       find_short(NULL, a[1])->name, cmd->name,
				       cmd_help(cmd, h, sizeof(h)));
		if (!*opt)
			return unknown_option(a, NULL, 0, a[1], cmd, err);
		*is_short = true;
		if (a[2]) {
			if (!(*opt)->arg)
				return np_fail(err, NP_EUSAGE, "option '-%c' takes no value", a[1]);
			*val = a + 2;
		}
	}
	return NP_OK;
}

/* Every argument from argv[first] in turn into o, until the end or
 * --help or --version. */
static enum np_status parse_args(struct np_opts *o, const struct np_cmd *cmd, int argc, char **argv,
				 int first, bool *help, bool *version, struct np_err *err)
{
	int operands = 0;
	char h[32];

	for (int i = first; i < argc; i++) {
		const char *a = argv[i], *val;
		const struct np_option *opt;
		bool is_short;
		int nt = a[0] == '-' && a[1] && !find_short(NULL, a[1]) ? nccl_tests_opt(a) : -1;

		if (nt >= 0 && (a[1] != '-' || !find_long(NULL, a + 2, strcspn(a + 2, "=")))) {
			if (nccl_tests_value(nt, argc, argv, &i, err))
				return NP_EUSAGE;
			continue;
		}
		if (find_option(a, cmd, &opt, &val, &is_short, err))
			return NP_EUSAGE;
		if (!opt && operands < cmd->operands && operands < 2) {
			o->files[operands++] = a; /* compare's A.json B.json */
			continue;
		}
		if (!opt)
			return np_fail(err, NP_EUSAGE,
				       "unexpected argument '%s'; see 'nccl-probe %s--help'", a,
				       cmd_help(cmd, h, sizeof(h)));
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
				return np_fail(err, NP_EUSAGE, "option '--%s' needs a value (%s)",
					       opt->name, opt->arg);
			val = argv[++i];
		}
		if (np_option_apply(o, opt, val, err))
			return NP_EUSAGE;
	}
	return NP_OK;
}

/* The sizes: one spelling, the default largest, smallest below largest,
 * and not too many of them for the sweep and tune. */
static enum np_status check_sizes(struct np_opts *o, struct np_err *err)
{
	if (size_conflict(o, err))
		return NP_EUSAGE;
	/* -b/-e without -f add -i, 1 MiB by default, as nccl-tests steps */
	if ((o->minbytes_arg || o->maxbytes_arg) && !o->stepfactor_arg && !o->stepbytes_arg) {
		o->step_kind = NP_STEP_ADD;
		o->step_bytes = 1ull << 20;
	}
	if (o->max_bytes == 0) {
		/* the sweep lowers it to what fits (src/sweep.c) */
		o->max_default = true;
		o->max_bytes = np_opts_default_max(o, true);
	}
	if (o->min_bytes == 0)
		return np_fail(err, NP_EUSAGE,
			       "the smallest size must be at least 1 byte; raise --minbytes");
	if (o->min_bytes > o->max_bytes)
		return np_fail(err, NP_EUSAGE,
			       "smallest size %llu is larger than largest size %llu; swap them",
			       (unsigned long long)o->min_bytes, (unsigned long long)o->max_bytes);
	if (np_opts_sizes(o, NULL, 0) > NP_MAX_SIZES)
		return np_fail(err, NP_EUSAGE,
			       "%s%s%sthe sweep from %llu to %llu bytes has more than %d sizes; use a larger step",
			       o->sweep_arg ? "invalid --sweep '" : "",
			       o->sweep_arg ? o->sweep_arg : "", o->sweep_arg ? "': " : "",
			       (unsigned long long)o->min_bytes, (unsigned long long)o->max_bytes,
			       NP_MAX_SIZES);
	return NP_OK;
}

/* One file, one report: two writers would rename over each other, and
 * only one report can go to standard output. */
static enum np_status check_reports(const struct np_opts *o, struct np_err *err)
{
	const char *f[4] = { o->output && strcmp(o->output, "-") ? o->output : NULL, o->json_file,
			     o->csv_file, o->metrics_file };
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
	return NP_OK;
}

/* What the verdict would judge, before anything runs: a threshold named
 * for a collective the run leaves out, a --judge-from above the largest
 * size (no row would be judged, and the gate would pass on nothing). */
static enum np_status check_judged(const struct np_opts *o, struct np_err *err)
{
	uint64_t *sizes;
	size_t n;

	for (int c = 0; c < NP_COLL_COUNT; c++)
		if (o->coll_named_by[c] && !o->colls[c])
			return np_fail(err, NP_EUSAGE,
				       "--%s names %s, which this run does not measure; add it to --coll, or drop %s=",
				       o->coll_named_by[c], np_colls[c].name, np_colls[c].name);
	if (!o->judge_from)
		return NP_OK;
	sizes = malloc((NP_MAX_SIZES + 1) * sizeof(*sizes));
	if (!sizes)
		return np_fail(err, NP_ENOMEM, "out of memory for the sweep's sizes");
	n = np_opts_sizes(o, sizes, NP_MAX_SIZES + 1);
	if (n && o->judge_from > sizes[n - 1]) {
		unsigned long long largest = (unsigned long long)sizes[n - 1];
		free(sizes);
		return np_fail(err, NP_EUSAGE,
			       "--judge-from %llu is above the largest size, %llu bytes: no row would be judged; lower it or raise -e/--maxbytes",
			       (unsigned long long)o->judge_from, largest);
	}
	free(sizes);
	return NP_OK;
}

/* Options that a backend cannot honour, that a command needs, or that
 * exclude each other. */
static enum np_status check_combinations(const struct np_opts *o, struct np_err *err)
{
	if (o->graph && np_backend_find(o->backend) && np_backend_find(o->backend)->ops &&
	    !(np_backend_find(o->backend)->ops->caps & NP_CAP_GRAPHS))
		return np_fail(err, NP_EUSAGE,
			       "--graph (or -G N) needs the NCCL backend; drop it or use --backend nccl");
	if (o->program_coll) {
		for (int c = 0; c < NP_COLL_COUNT; c++)
			if (o->colls[c] && c != (int)o->program_coll->id)
				return np_fail(err, NP_EUSAGE,
					       "called as %s, the run measures %s alone; drop --coll, or run %s",
					       o->program_coll->program, o->program_coll->name,
					       np_colls[c].program);
	}
	if (o->format == NP_FMT_NCCLTESTS) {
		int n = 0;
		for (int c = 0; c < NP_COLL_COUNT; c++)
			n += o->colls[c];
		if (n > 1)
			return np_fail(err, NP_EUSAGE,
				       "--format nccl-tests is one collective per run, as each nccl-tests binary is; run once per collective with --coll (e.g. --coll allreduce)");
	}
	return NP_OK;
}

enum np_status np_opts_nt_min_bw(struct np_opts *o, struct np_err *err)
{
	const char *v = getenv("NCCL_TESTS_MIN_BW");
	char *end;

	o->nt_min_bw = -1;
	if (!v || !*v || o->format != NP_FMT_NCCLTESTS)
		return NP_OK; /* the sweep notes that other formats leave it */
	errno = 0;
	o->nt_min_bw = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(o->nt_min_bw) || o->nt_min_bw < 0)
		return np_fail(err, NP_EUSAGE,
			       "NCCL_TESTS_MIN_BW '%.40s' is not a bandwidth in GB/s; give a number such as 100, or unset it",
			       v);
	return NP_OK;
}

enum np_status np_opts_parse(struct np_opts *o, const struct np_cmd *cmd, int argc, char **argv,
			     int first, bool *help, bool *version, struct np_err *err)
{
	np_opts_defaults(o, cmd);
	*help = *version = false;
	/* a link named all_reduce_perf runs as nccl-tests' binary: its
	 * collective, in its format (options may choose another format) */
	if (cmd == np_commands[0] && first == 1 && argc > 0 &&
	    (o->program_coll = np_coll_by_program(argv[0]))) {
		memset(o->colls, 0, sizeof(o->colls));
		o->colls[o->program_coll->id] = true;
		o->format = NP_FMT_NCCLTESTS;
	}
	if (parse_args(o, cmd, argc, argv, first, help, version, err))
		return NP_EUSAGE;
	if (*help || *version)
		return NP_OK;
	if ((cmd->default_max[1] && check_sizes(o, err)) || check_reports(o, err) ||
	    check_combinations(o, err) || (cmd->check_opts && cmd->check_opts(o, err)) ||
	    check_judged(o, err))
		return NP_EUSAGE;
	return NP_OK;
}

/* Whether paths a and b name one file: the same name, or one existing
 * regular file (one device and inode, whatever the spelling: a symbolic
 * or hard link, ./x and x). Standard output and /dev, /proc are streams. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!a || !b || !strcmp(a, "-") || !strcmp(b, "-") || !strncmp(a, "/dev/", 5) ||
	    !strncmp(a, "/proc/", 6))
		return false;
	if (!strcmp(a, b))
		return true; /* a file yet to be written, too */
	return !stat(a, &sa) && !stat(b, &sb) && S_ISREG(sa.st_mode) && S_ISREG(sb.st_mode) &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Nothing a run was given is lost: an output that is one of the run's
 * inputs, or two outputs that are one file under two names, is refused
 * before anything runs. */
static enum np_status check_same_files(const struct np_opts *o, struct np_err *err)
{
	const char *out[5] = { o->output, o->json_file, o->csv_file, o->metrics_file,
			       o->export_file };
	static const char *const on[5] = { "--output", "--json", "--csv", "--metrics", "--export" };
	const char *in[6] = { o->input,    o->files[0], o->files[1],
			      o->baseline, o->try_file, o->topology };
	static const char *const inn[6] = {
		"--input",    "compare's first file", "compare's second file",
		"--baseline", "--try-file",           "--topology"
	};

	for (int i = 0; i < 5; i++) {
		for (int k = 0; k < 6; k++)
			if (same_file(out[i], in[k]))
				return np_fail(err, NP_EUSAGE,
					       "%s '%s' is %s '%s': writing it would replace what this run reads; give %s another file",
					       on[i], out[i], inn[k], in[k], on[i]);
		for (int k = i + 1; k < 5; k++)
			if (same_file(out[i], out[k]))
				return np_fail(err, NP_EUSAGE,
					       "%s '%s' and %s '%s' are one file; give each report its own file",
					       on[i], out[i], on[k], out[k]);
	}
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
	if (o->export_file && !strcmp(o->export_file, "-") &&
	    (!o->output || !strcmp(o->output, "-")))
		return np_fail(err, NP_EUSAGE,
			       "--export - and the report would both go to standard output; give --export a file name, or --output one");
	if (o->input && access(o->input, R_OK) != 0)
		return np_fail(err, NP_EUSAGE,
			       "cannot read --input '%s': %s; give an hwloc or NCCL topology XML file",
			       o->input, strerror(errno));
	if (o->topology && access(o->topology, R_OK) != 0)
		return np_fail(err, NP_EUSAGE,
			       "cannot read --topology '%s': %s; give Slurm's topology.conf",
			       o->topology, strerror(errno));
	if (o->try_file && access(o->try_file, R_OK) != 0)
		return np_fail(err, NP_EUSAGE,
			       "cannot read --try-file '%s': %s; give a file of candidates, one per line",
			       o->try_file, strerror(errno));
	if (o->baseline && access(o->baseline, R_OK) != 0)
		return np_fail(err, NP_EUSAGE,
			       "cannot read --baseline '%s': %s; give the JSON report of a known-good 'nccl-probe %s%s--format json' run",
			       o->baseline, strerror(errno),
			       o->cmd == np_commands[0] ? "" : o->cmd->name,
			       o->cmd == np_commands[0] ? "" : " ");
	return check_same_files(o, err);
}

enum np_status np_opts_check_world(const struct np_opts *o, int nranks, struct np_err *err)
{
	if (o->root >= nranks)
		return np_fail(err, NP_EUSAGE,
			       "invalid --root %d: there are %d ranks; give 0 to %d", o->root,
			       nranks, nranks - 1);
	if (o->ranks_per_node && nranks % o->ranks_per_node)
		return np_fail(err, NP_EUSAGE,
			       "invalid --ranks-per-node %d: %d ranks do not divide into nodes of %d; launch a multiple of %d ranks",
			       o->ranks_per_node, nranks, o->ranks_per_node, o->ranks_per_node);
	return NP_OK;
}
