/* SPDX-License-Identifier: MIT */
/* tune's pure parts: candidates from --try and --try-file, shell quoting,
 * NCCL's list values, the paired ratio's verdict, and the NCCL log lines
 * tune reads (in NCCL 2.28's own formats). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../probes/nccl_log.h"
#include "tap.h"
#include "../../src/tune_cand.h"

static struct np_tune_cand c[NP_TUNE_MAX_CANDS];

static int parse(const char *const *tries, int nt, const char *file, int *n, struct np_err *err)
{
	memset(err, 0, sizeof(*err));
	return (int)np_tune_parse(tries, nt, file, c, NP_TUNE_MAX_CANDS, n, err);
}

static void test_parse(void)
{
	struct np_err err;
	int n = 0;
	const char *t1[] = { "NCCL_PROTO=LL,LL128,Simple", "NCCL_ALGO=Ring,Tree" };
	const char *bad[][2] = {
		{ "NCCL_PROTO=", "one or more values" },
		{ "NCCL_PROTO=LL,,Simple", "single commas" },
		{ "NCCL_PROTO=LL,", "single commas" },
		{ "nccl_proto=LL", "not a variable name" },
		{ "FOO_BAR=1", "neither an NCCL variable" },
		{ "NCCL_DEBUG=INFO", "sets NCCL_DEBUG itself" },
		{ "NCCL_HOSTID=x", "sets NCCL_HOSTID itself" },
		{ "NCCL_PROBE_TEST_SLOW=0:1%", "itself" },
		{ "NCCL_PROTO=LL,LL", "given twice" },
		{ "=LL", "variable name of 1 to" },
	};

	tap_is_int(parse(t1, 2, NULL, &n, &err), NP_OK, "two --try: parsed");
	tap_is_int(n, 5, "one candidate per value, never crossed (3 + 2)");
	tap_ok(!strcmp(c[0].label, "NCCL_PROTO=LL") && !strcmp(c[2].label, "NCCL_PROTO=Simple") &&
		       !strcmp(c[4].label, "NCCL_ALGO=Tree"),
	       "labels in the order given");
	tap_ok(c[1].n == 1 && !strcmp(c[1].set[0].name, "NCCL_PROTO") &&
		       !strcmp(c[1].set[0].value, "LL128"),
	       "a candidate's one setting");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *one[] = { bad[i][0] };
		int st = parse(one, 1, NULL, &n, &err);
		tap_ok(st == NP_EUSAGE && strstr(err.msg, bad[i][1]) && strstr(err.msg, "--try"),
		       "--try %s: usage error naming it (%s)", bad[i][0], err.msg);
	}
	tap_is_int(parse(NULL, 0,
			 "# crossings\nNCCL_PROTO=LL NCCL_ALGO=Tree  # both\n\n  NCCL_ALGO=allreduce:tree,ring\n",
			 &n, &err),
		   NP_OK, "a --try-file: parsed");
	tap_ok(n == 2 && c[0].n == 2 && !strcmp(c[0].label, "NCCL_PROTO=LL NCCL_ALGO=Tree"),
	       "a line is one candidate of several settings");
	tap_ok(!strcmp(c[1].set[0].value, "allreduce:tree,ring"),
	       "a file's value is whole, commas included");
	tap_ok(parse(NULL, 0, "NCCL_PROTO=LL\nNCCL_ALGO\n", &n, &err) == NP_EUSAGE &&
		       strstr(err.msg, "line 2") && strstr(err.msg, "not VAR=VALUE"),
	       "a file's bad line is named by number (%s)", err.msg);
	tap_ok(parse(NULL, 0, "NCCL_ALGO=Tree NCCL_PROTO=LL\nNCCL_PROTO=LL NCCL_ALGO=Tree\n", &n,
		     &err) == NP_EUSAGE &&
		       strstr(err.msg, "given twice"),
	       "the same settings in another order are the same candidate");
	tap_ok(parse(NULL, 0, "NCCL_PROTO=LL NCCL_PROTO=Simple\n", &n, &err) == NP_EUSAGE &&
		       strstr(err.msg, "set twice"),
	       "a variable twice in one candidate is refused");
	tap_ok(parse(NULL, 0, "# nothing\n\n", &n, &err) == NP_EUSAGE &&
		       strstr(err.msg, "no candidate"),
	       "a file without candidates is refused");
	{
		const char *one[] = { "OMPI_MCA_coll_tuned_allreduce_algorithm=1,ring" };
		tap_ok(parse(one, 1, NULL, &n, &err) == NP_OK && n == 2,
		       "Open MPI's MCA variables are candidates");
	}
	{
		char many[NP_TUNE_MAX_CANDS * 4 + 64] = "NCCL_NCHANNELS_PER_NET_PEER=";
		const char *one[] = { many };
		for (int i = 0; i <= NP_TUNE_MAX_CANDS; i++)
			snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s%d",
				 i ? "," : "", i + 1);
		tap_ok(parse(one, 1, NULL, &n, &err) == NP_EUSAGE &&
			       strstr(err.msg, "more than 32"),
		       "more than %d candidates are refused", NP_TUNE_MAX_CANDS);
	}
	tap_ok(!strcmp(np_tune_setting_library("NCCL_PROTO"), "nccl") &&
		       !strcmp(np_tune_setting_library("OMPI_MCA_btl"), "mpi") &&
		       !np_tune_setting_library("NCCL_") && !np_tune_setting_library("UCX_TLS"),
	       "which library reads a setting");
}

static void test_quote(void)
{
	static const char *cases[][2] = {
		{ "LL", "LL" },
		{ "^LL128", "^LL128" },
		{ "allreduce:tree,ring", "allreduce:tree,ring" },
		{ "a b", "'a b'" },
		{ "it's", "'it'\\''s'" },
		{ "$(reboot)", "'$(reboot)'" },
		{ "x;y", "'x;y'" },
		{ "", "''" },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		np_shell_quote(cases[i][0], buf, sizeof(buf));
		tap_ok(!strcmp(buf, cases[i][1]), "quote [%s] -> [%s] (got [%s])", cases[i][0],
		       cases[i][1], buf);
	}
	np_shell_quote("abcdef", buf, 4);
	tap_ok(buf[0] == '\0', "a quote that does not fit is empty, never cut");
}

static void test_lists(void)
{
	tap_is_int(np_tune_list_allows("LL,Simple", "SIMPLE"), 1,
		   "LL,Simple allows SIMPLE (any case)");
	tap_is_int(np_tune_list_allows("LL,Simple", "LL128"), 0, "LL,Simple excludes LL128");
	tap_is_int(np_tune_list_allows("^LL128", "LL"), 1, "^LL128 allows LL");
	tap_is_int(np_tune_list_allows("^LL128", "LL128"), 0, "^LL128 excludes LL128");
	tap_is_int(np_tune_list_allows("Ring", "RING"), 1, "Ring allows RING");
	tap_is_int(np_tune_list_allows("allreduce:tree", "RING"), -1,
		   "a per-function value is not read (-1)");
}

static void test_ratio(void)
{
	double r[32];
	struct np_tune_ratio t;

	for (int i = 0; i < 12; i++)
		r[i] = 1.20 + 0.01 * (i % 4);
	np_tune_ratio_compute(r, 12, 0.05, &t);
	tap_ok(t.verdict == NP_TUNE_FASTER && t.settled && t.lo > 1,
	       "20%% faster in every round: faster, settled");
	for (int i = 0; i < 12; i++)
		r[i] = 0.80 + 0.01 * (i % 4);
	np_tune_ratio_compute(r, 12, 0.05, &t);
	tap_ok(t.verdict == NP_TUNE_SLOWER && t.hi < 1, "20%% slower: slower");
	for (int i = 0; i < 12; i++)
		r[i] = 1.02 + 0.001 * (i % 3);
	np_tune_ratio_compute(r, 12, 0.05, &t);
	tap_ok(t.verdict == NP_TUNE_NONE && t.settled,
	       "2%% faster, significant but below --min-change: no difference");
	np_tune_ratio_compute(r, 12, 0, &t);
	tap_ok(t.verdict == NP_TUNE_FASTER, "the same with --min-change 0: faster");
	for (int i = 0; i < 12; i++)
		r[i] = i % 2 ? 1.5 : 0.6;
	np_tune_ratio_compute(r, 12, 0.05, &t);
	tap_ok(t.verdict == NP_TUNE_NONE && !t.settled,
	       "rounds on both sides of 1: no difference, not settled");
	for (int i = 0; i < 5; i++)
		r[i] = 2.0;
	np_tune_ratio_compute(r, 5, 0.05, &t);
	tap_ok(t.verdict == NP_TUNE_UNDECIDED, "5 rounds: undecided (no 95%% interval)");
	tap_ok(!strcmp(np_tune_verdict_str(NP_TUNE_NONE), "no significant difference") &&
		       !strcmp(np_tune_verdict_str((enum np_tune_verdict)99), "unknown"),
	       "verdict names");
}

static void test_log_lines(void)
{
	char f[32], a[32], p[32];

	tap_ok(np_nccl_log_env_line("host:1:1 [0] NCCL INFO NCCL_PROTO set by environment to LL",
				    "NCCL_PROTO", "LL"),
	       "ENV line of a string variable");
	tap_ok(!np_nccl_log_env_line("host:1:1 [0] NCCL INFO NCCL_PROTO set by environment to LL128",
				     "NCCL_PROTO", "LL"),
	       "another value is not a confirmation");
	tap_ok(np_nccl_log_env_line("h:1:1 [0] NCCL INFO NCCL_BUFFSIZE set by environment to 8388608.\n",
				    "NCCL_BUFFSIZE", "0x800000"),
	       "a parameter's decimal value with its period matches a hex value");
	tap_ok(!np_nccl_log_env_line("h:1:1 [0] NCCL INFO XNCCL_PROTO set by environment to LL",
				     "NCCL_PROTO", "LL"),
	       "a longer name is not the variable");
	tap_ok(np_nccl_log_tuning_line("h:9:9 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}",
				       f, sizeof(f), a, sizeof(a), p, sizeof(p)) &&
		       !strcmp(f, "AllReduce") && !strcmp(a, "RING") && !strcmp(p, "LL"),
	       "TUNING line: function, algorithm, protocol");
	tap_ok(!np_nccl_log_tuning_line("h:9:9 [0] NCCL INFO Channel 00/02 : 0 1", f, sizeof(f), a,
					sizeof(a), p, sizeof(p)),
	       "other lines are not TUNING lines");
}

int main(void)
{
	test_parse();
	test_quote();
	test_lists();
	test_ratio();
	test_log_lines();
	return tap_done();
}
