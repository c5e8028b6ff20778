/* SPDX-License-Identifier: MIT */
/* compare's declaration (src/cmds.h): its usage, exit codes, formats and
 * options. Its logic is src/compare.c. */
#include "config.h"

#include "cmds.h"
#include "opts_rows.h"
#include "version.h"

static const struct np_option compare_options[] = {
	OPT_CALLBACK("format", 0, "FORMAT", np_opt_format, "output format (default table)"),
	NP_ROW_HELP,
	OPT_CALLBACK("max-regression", 0, "PCT", np_opt_max_regression,
		     "exit 1 only when B is significantly slower than A by more than PCT percent (default 0)"),
	OPT_CALLBACK("min-change", 0, "PCT", np_opt_min_change,
		     "call B faster or slower only where it differs by PCT percent or more (default 5)"),
	NP_ROW_OUTPUT,
	NP_ROW_QUIET,
	NP_ROW_VERSION,
};

static const struct np_exit_code compare_exits[] = {
	{ 0, "no row significantly slower (beyond --max-regression)" },
	{ 1, "B significantly slower somewhere" },
	{ 6,
	  "inconclusive: none such, but with --max-regression above 0 a row's interval reaches beyond it" },
	{ 64, "usage, unreadable reports or runs that cannot be compared" },
	{ 0, NULL },
};

static enum np_status compare_check_opts(struct np_opts *o, struct np_err *err)
{
	if (!o->files[1])
		return np_fail(err, NP_EUSAGE,
			       "compare needs two JSON reports of the sweep: nccl-probe compare A.json B.json");
	return NP_OK;
}

const struct np_cmd np_cmd_compare = {
	.name = "compare",
	.fn = cmd_compare,
	.schema = NP_COMPARE_SCHEMA,
	.schema_version = NP_COMPARE_SCHEMA_VERSION,
	.synopsis = "nccl-probe compare [options] A.json B.json",
	.about = "Compare two sweeps' JSON reports row by row: B's speed against A's with a\n"
		 "95% confidence interval from the samples both stored, and a regression gate.\n",
	.exits = compare_exits,
	.formats = NP_FMT_BIT(NP_FMT_TABLE) | NP_FMT_BIT(NP_FMT_JSON),
	.operands = 2,
	NP_CMD_OPTIONS(compare_options),
	.check_opts = compare_check_opts,
};
