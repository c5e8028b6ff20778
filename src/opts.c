/* SPDX-License-Identifier: MIT */
/* The options' handlers, which the commands' option tables bind
 * (src/opts_NAME.c), and applying one row: its field or its handler
 * (src/opts_value.c parses numbers, sizes and lists; src/opts_parse.c
 * walks argv; src/opts_help.c prints --help). A bad value is a usage
 * error (exit 64) whose message names the value and says what to do. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../probes/backend.h"
#include "cmds.h"
#include "opts.h"
#include "opts_rows.h"
#include "opts_value.h"

#define NP_FMT_NAME(m, name, writer) [m] = name,
static const char *const format_names[NP_FMT_COUNT] = { NP_FORMATS(NP_FMT_NAME) };
#undef NP_FMT_NAME

const char *np_format_str(enum np_format f)
{
	return (unsigned)f < NP_FMT_COUNT && format_names[f] ? format_names[f] : "unknown";
}

/* --try VAR=V1,V2: kept as given; src/tune_cand.c splits and checks it */
enum np_status np_opt_try(struct np_opts *o, const char *val, struct np_err *err)
{
	if (o->ntries >= NP_MAX_TRIES)
		return np_fail(err, NP_EUSAGE,
			       "more than %d --try options; put the candidates in a --try-file",
			       NP_MAX_TRIES);
	if (!strchr(val, '='))
		return np_fail(err, NP_EUSAGE,
			       "invalid --try '%s': give VAR=V1,V2,... (e.g. NCCL_PROTO=LL,Simple)",
			       val);
	o->tries[o->ntries++] = val;
	return NP_OK;
}

enum np_status np_opt_max_regression(struct np_opts *o, const char *val, struct np_err *err)
{
	return np_parse_pct("max-regression", val, "5", &o->max_regression, err);
}

enum np_status np_opt_min_effect(struct np_opts *o, const char *val, struct np_err *err)
{
	return np_parse_pct("min-effect", val, "5", &o->min_effect, err);
}

enum np_status np_opt_min_change(struct np_opts *o, const char *val, struct np_err *err)
{
	return np_parse_pct("min-change", val, "5", &o->min_change, err);
}

enum np_status np_opt_size(struct np_opts *o, const char *val, struct np_err *err)
{
	if (np_parse_size(val, &o->size, err) || o->size == 0)
		return np_fail(err, NP_EUSAGE,
			       "invalid --size '%s'; give a size of at least 1 byte, e.g. 64M",
			       val);
	return NP_OK;
}

/* nccl-tests' options that nccl-probe takes with one value: that value is
 * what nccl-probe always does; another value says what to use instead. */
static enum np_status only_value(const char *name, char short_name, const char *val, int want,
				 const char *why, struct np_err *err)
{
	int v;

	if (np_parse_int(name, val, 0, INT_MAX, &v, err) == NP_OK && v == want)
		return NP_OK;
	return np_fail(err, NP_EUSAGE, "invalid -%c/--%s '%s': %s", short_name, name, val, why);
}

enum np_status np_opt_average(struct np_opts *o, const char *val, struct np_err *err)
{
	(void)o;
	return only_value("average", 'a', val, 3,
			  "nccl-probe's time of a sample is always the slowest rank's (nccl-tests -a 3), and the JSON report (-J FILE) holds the samples; drop -a or give -a 3",
			  err);
}

enum np_status np_opt_blocking(struct np_opts *o, const char *val, struct np_err *err)
{
	(void)o;
	return only_value("blocking", 'z', val, 0,
			  "nccl-probe issues a batch's collectives back to back without a barrier or wait between them (nccl-tests -z 0); drop -z",
			  err);
}

enum np_status np_opt_cudagraph(struct np_opts *o, const char *val, struct np_err *err)
{
	int n;

	if (np_parse_int("cudagraph", val, 0, 1000000, &n, err))
		return np_fail(err, NP_EUSAGE,
			       "invalid -G/--cudagraph '%s'; give 0 (no graph) or a number of launches above 0, which turns on --graph",
			       val);
	o->graph = n > 0; /* nccl-probe picks the launches: as many as the batch needs */
	return NP_OK;
}

enum np_status np_opt_local_register(struct np_opts *o, const char *val, struct np_err *err)
{
	(void)o;
	return only_value("local-register", 'R', val, 0,
			  "nccl-probe does not register its buffers with NCCL (ncclCommRegister, symmetric memory); drop -R",
			  err);
}

enum np_status np_opt_ngpus(struct np_opts *o, const char *val, struct np_err *err)
{
	(void)o;
	return only_value("ngpus", 'g', val, 1,
			  "nccl-probe drives one GPU per rank: use mpirun -np N (N ranks per node for N GPUs) instead of -g",
			  err);
}

enum np_status np_opt_nthreads(struct np_opts *o, const char *val, struct np_err *err)
{
	(void)o;
	return only_value("nthreads", 't', val, 1,
			  "nccl-probe drives one GPU per rank: use mpirun -np N (N ranks per node for N GPUs) instead of -t",
			  err);
}

enum np_status np_opt_backend(struct np_opts *o, const char *val, struct np_err *err)
{
	const struct np_backend_def *d = np_backend_find(val);

	if (strcmp(val, "auto") && !d)
		return np_fail(err, NP_EUSAGE, "unknown --backend '%s'; use auto, %s", val,
			       np_backend_names());
	o->backend = d ? d->name : "auto";
	return NP_OK;
}

/* --check, --check=0|1, -c 0|1 (as nccl-tests) */
enum np_status np_opt_check(struct np_opts *o, const char *val, struct np_err *err)
{
	if (!val || !strcmp(val, "1"))
		o->check = true;
	else if (!strcmp(val, "0"))
		o->check = false;
	else
		return np_fail(err, NP_EUSAGE,
			       "invalid --check '%s'; use --check=0, --check=1 or -c 0|1 (nccl-probe checks once per size, outside timing, not -c N iterations)",
			       val);
	return NP_OK;
}

enum np_status np_opt_coll(struct np_opts *o, const char *val, struct np_err *err)
{
	return np_parse_colls(val, o, err);
}

enum np_status np_opt_dtype(struct np_opts *o, const char *val, struct np_err *err)
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

enum np_status np_opt_fail_on(struct np_opts *o, const char *val, struct np_err *err)
{
	if (!strcmp(val, "warning"))
		o->fail_on = 1;
	else if (!strcmp(val, "error"))
		o->fail_on = 2;
	else if (!strcmp(val, "never"))
		o->fail_on = -1;
	else
		return np_fail(err, NP_EUSAGE,
			       "unknown --fail-on '%s'; use warning, error or never", val);
	return NP_OK;
}

/* the formats the command writes (its formats), in any case */
enum np_status np_opt_format(struct np_opts *o, const char *val, struct np_err *err)
{
	char names[64];

	for (int f = 0; f < NP_FMT_COUNT; f++)
		if ((o->cmd->formats & NP_FMT_BIT(f)) &&
		    !strcasecmp(val, np_format_str((enum np_format)f))) {
			o->format = (enum np_format)f;
			return NP_OK;
		}
	return np_fail(err, NP_EUSAGE, "unknown --format '%s'; use %s", val,
		       np_format_names(o->cmd->formats, ", ", " or ", names, sizeof(names)));
}

const char *np_format_names(unsigned formats, const char *sep, const char *last, char *buf,
			    size_t n)
{
	size_t k = 0;
	int left = 0;

	for (int f = 0; f < NP_FMT_COUNT; f++)
		left += (formats & NP_FMT_BIT(f)) != 0;
	buf[0] = '\0';
	for (int f = 0; f < NP_FMT_COUNT && k < n; f++)
		if (formats & NP_FMT_BIT(f)) {
			left--;
			k += (size_t)snprintf(buf + k, n - k, "%s%s",
					      np_format_str((enum np_format)f),
					      !left       ? ""
					      : left == 1 ? last
							  : sep);
		}
	return buf;
}

enum np_status np_opt_gpu_map(struct np_opts *o, const char *val, struct np_err *err)
{
	if (np_check_gpu_map(val, err))
		return NP_EUSAGE;
	o->gpu_map = val;
	return NP_OK;
}

enum np_status np_opt_iters(struct np_opts *o, const char *val, struct np_err *err)
{
	if (!strcmp(val, "auto"))
		o->iters = 0;
	else if (np_parse_int("iters", val, 1, 100000000, &o->iters, err))
		return np_fail(err, NP_EUSAGE,
			       "invalid --iters '%s'; give an integer from 1 to 100000000 or 'auto'",
			       val);
	return NP_OK;
}

enum np_status np_opt_min_busbw(struct np_opts *o, const char *val, struct np_err *err)
{
	return np_parse_threshold("min-busbw", val, 1e9, 1, "a rate in GB/s", o, &o->min_busbw,
				  o->coll_min_busbw, err);
}

/* isolate's: one floor for the fleet, whatever it runs */
enum np_status np_opt_min_busbw_one(struct np_opts *o, const char *val, struct np_err *err)
{
	if (strchr(val, '='))
		return np_fail(err, NP_EUSAGE,
			       "isolate takes one --min-busbw value, not one per collective");
	return np_opt_min_busbw(o, val, err);
}

enum np_status np_opt_min_eff(struct np_opts *o, const char *val, struct np_err *err)
{
	return np_parse_threshold("min-eff", val, 1000, 100, "a percentage", o, &o->min_eff,
				  o->coll_min_eff, err);
}

enum np_status np_opt_op(struct np_opts *o, const char *val, struct np_err *err)
{
	int i = np_redop_find(val);

	if (i < 0)
		return np_fail(err, NP_EUSAGE, "unknown --op '%s'; use sum, prod, max, min or avg",
			       val);
	o->op = (enum np_redop)i;
	return NP_OK;
}

enum np_status np_opt_stepbytes(struct np_opts *o, const char *val, struct np_err *err)
{
	uint64_t st;

	if (np_parse_size(val, &st, err) || st == 0)
		return np_fail(err, NP_EUSAGE,
			       "invalid --stepbytes '%s'; give a size of at least 1 byte", val);
	o->step_kind = NP_STEP_ADD;
	o->step_bytes = st;
	o->stepbytes_arg = val;
	return NP_OK;
}

enum np_status np_opt_stepfactor(struct np_opts *o, const char *val, struct np_err *err)
{
	if (np_parse_factor(val, &o->step_factor))
		return np_fail(err, NP_EUSAGE,
			       "invalid -f/--stepfactor '%s'; give a factor above 1 and at most 1024, e.g. 2",
			       val);
	o->step_kind = NP_STEP_FACTOR;
	o->stepfactor_arg = val;
	return NP_OK;
}

enum np_status np_opt_minbytes(struct np_opts *o, const char *val, struct np_err *err)
{
	o->minbytes_arg = val;
	return np_parse_size(val, &o->min_bytes, err);
}

enum np_status np_opt_maxbytes(struct np_opts *o, const char *val, struct np_err *err)
{
	o->maxbytes_arg = val;
	return np_parse_size(val, &o->max_bytes, err);
}

enum np_status np_opt_sweep(struct np_opts *o, const char *val, struct np_err *err)
{
	o->sweep_arg = val;
	return np_parse_sweep(val, o, err);
}

enum np_status np_option_apply(struct np_opts *o, const struct np_option *opt, const char *val,
			       struct np_err *err)
{
	char *field = (char *)o + opt->off;

	switch (opt->kind) {
	case NP_OPT_FLAG: *(bool *)field = true; return NP_OK;
	case NP_OPT_UNSET: *(bool *)field = false; return NP_OK;
	case NP_OPT_INT:
		return np_parse_int(opt->name, val, (long)opt->lo, (long)opt->hi, (int *)field,
				    err);
	case NP_OPT_DOUBLE:
		return np_parse_double(opt->name, val, opt->lo, opt->hi, (double *)field, err);
	case NP_OPT_SIZE: return np_parse_size(val, (uint64_t *)field, err);
	case NP_OPT_STRING: *(const char **)field = val; return NP_OK;
	case NP_OPT_CALLBACK:
	case NP_OPT_OPTARG:
		if (opt->fn)
			return opt->fn(o, val, err);
		break;
	case NP_OPT_HELP:
	case NP_OPT_VERSION:
	case NP_OPT_NONE: break;
	}
	return np_fail(err, NP_EUSAGE, "option '--%s' has no handler in this build; report it",
		       opt->name);
}

bool np_option_valid(const struct np_option *opt)
{
	switch (opt->kind) {
	case NP_OPT_FLAG:
	case NP_OPT_UNSET:
	case NP_OPT_HELP:
	case NP_OPT_VERSION: return opt->arg == NULL && opt->fn == NULL;
	case NP_OPT_INT:
	case NP_OPT_DOUBLE: return opt->arg && opt->fn == NULL && opt->lo <= opt->hi;
	case NP_OPT_SIZE:
	case NP_OPT_STRING: return opt->arg && opt->fn == NULL;
	case NP_OPT_CALLBACK:
	case NP_OPT_OPTARG: return opt->arg && opt->fn != NULL;
	case NP_OPT_NONE: break;
	}
	return false;
}
