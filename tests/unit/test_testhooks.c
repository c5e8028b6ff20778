/* SPDX-License-Identifier: MIT */
/* Unit tests of the test-only switches' parsers (common/testhooks.c): each
 * variable's grammar, what it plants and where, and that a malformed value
 * plants nothing. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../../common/testhooks.h"
#include "tap.h"

static void test_stall(void)
{
	static const struct {
		const char *s;
		enum np_test_stall_at at;
		int rank;
		long after;
	} cases[] = {
		{ "3", NP_STALL_BATCH, 3, 0 },
		{ "0@2", NP_STALL_BATCH, 0, 2 },
		{ "12@0", NP_STALL_BATCH, 12, 0 },
		{ "1:start", NP_STALL_START, 1, 0 },
		{ "5:device", NP_STALL_DEVICE, 5, 0 },
		{ NULL, NP_STALL_NONE, -1, 0 },
		{ "", NP_STALL_NONE, -1, 0 },
		{ "x", NP_STALL_NONE, -1, 0 },
		{ "@3", NP_STALL_NONE, -1, 0 }, /* no rank: not rank 0 */
		{ "-1", NP_STALL_NONE, -1, 0 },
		{ " 1", NP_STALL_NONE, -1, 0 },
		{ "1@", NP_STALL_NONE, -1, 0 },
		{ "1@-2", NP_STALL_NONE, -1, 0 },
		{ "1@2x", NP_STALL_NONE, -1, 0 },
		{ "1:stop", NP_STALL_NONE, -1, 0 },
		{ "1:start ", NP_STALL_NONE, -1, 0 },
		{ "1@2:start", NP_STALL_NONE, -1, 0 },
		{ "99999999999", NP_STALL_NONE, -1, 0 }, /* beyond an int */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct np_test_stall st;
		np_test_stall_parse(cases[i].s, &st);
		tap_ok(st.at == cases[i].at && st.rank == cases[i].rank &&
			       st.after == cases[i].after,
		       "STALL '%s': kind %d rank %d after %ld", cases[i].s ? cases[i].s : "(unset)",
		       (int)cases[i].at, cases[i].rank, cases[i].after);
	}
	{
		struct np_test_stall st;
		np_test_stall_parse("2:device", &st);
		tap_ok(np_test_stall_rank_at(&st, NP_STALL_DEVICE) == 2 &&
			       np_test_stall_rank_at(&st, NP_STALL_BATCH) == -1 &&
			       np_test_stall_rank_at(&st, NP_STALL_START) == -1,
		       "STALL R:device names R for the device stall alone");
		np_test_stall_parse("2", &st);
		tap_ok(np_test_stall_rank_at(&st, NP_STALL_BATCH) == 2 &&
			       np_test_stall_rank_at(&st, NP_STALL_START) == -1 &&
			       np_test_stall_rank_at(&st, NP_STALL_NONE) == -1,
		       "STALL R names R for the host stall alone");
	}
}

static void test_faults(void)
{
	struct np_test_faults f;

	np_test_faults_parse(NULL, NULL, &f);
	tap_ok(f.corrupt_rank == -1 && !f.corrupt_all && f.misroute_from == -1 &&
		       f.misroute_to == -1,
	       "CORRUPT, MISROUTE unset: nothing planted");
	np_test_faults_parse("2", "0:3", &f);
	tap_ok(f.corrupt_rank == 2 && !f.corrupt_all && f.misroute_from == 0 && f.misroute_to == 3,
	       "CORRUPT=2 MISROUTE=0:3");
	tap_is_int(np_test_faults_source(&f, 3), 0, "rank 3 fills its input with rank 0's pattern");
	tap_is_int(np_test_faults_source(&f, 1), 1, "rank 1 fills its own");
	np_test_faults_parse("all", NULL, &f);
	tap_ok(f.corrupt_all && f.corrupt_rank == -1, "CORRUPT=all: every rank");
	np_test_faults_parse("2x", "0:", &f);
	tap_ok(f.corrupt_rank == -1 && f.misroute_from == -1,
	       "CORRUPT=2x, MISROUTE=0: plant nothing");
	np_test_faults_parse("1048576", "1:1048576", &f);
	tap_ok(f.corrupt_rank == -1 && f.misroute_to == -1, "ranks of 2^20 and more plant nothing");
	np_test_faults_parse("-1", "3", &f);
	tap_ok(f.corrupt_rank == -1 && f.misroute_from == -1,
	       "a negative rank, a MISROUTE without TO: nothing");
}

static void test_slow(void)
{
	/* a group of job ranks 4, 9 (two nodes) in a job of 16 */
	static const int group[] = { 4, 9 };
	struct np_test_where job = { .rank = 4, .size = 16, .nnodes = 2, .job_size = 16 };
	struct np_test_where one_node = { .rank = 4, .size = 8, .nnodes = 1, .job_size = 8 };
	struct np_test_where pair = {
		.rank = 1, .size = 2, .nnodes = 2, .job_size = 16, .job_ranks = group
	};
	struct np_test_slow sl;

	np_test_slow_parse("4:200", &job, &sl);
	tap_ok(sl.on && sl.us == 200 && sl.frac == 0, "SLOW=4:200 slows job rank 4 by 200 us");
	np_test_slow_parse("3:200", &job, &sl);
	tap_ok(!sl.on, "SLOW=3:200 leaves rank 4 alone");
	np_test_slow_parse("4:50%", &job, &sl);
	tap_ok(sl.on && sl.us == 0 && sl.frac == 0.5,
	       "SLOW=4:50%% slows by half the collective's time");
	np_test_slow_parse("9:10%", &pair, &sl);
	tap_ok(sl.on && sl.frac == 0.1, "in a group, R is a job rank (group rank 1 is job rank 9)");
	np_test_slow_parse("4:100:net", &one_node, &sl);
	tap_ok(!sl.on, ":net: not in a group of one node");
	np_test_slow_parse("4:100:net", &job, &sl);
	tap_ok(sl.on, ":net: in a group of two nodes");
	np_test_slow_parse("9:100:scale", &pair, &sl);
	tap_ok(!sl.on, ":scale: not in a group smaller than the job");
	np_test_slow_parse("4:100:scale", &job, &sl);
	tap_ok(sl.on, ":scale: in the whole job of more than one node");
	np_test_slow_parse("9:100:link=4", &pair, &sl);
	tap_ok(sl.on, ":link=4: in a group that holds job rank 4");
	np_test_slow_parse("9:100:link=5", &pair, &sl);
	tap_ok(!sl.on, ":link=5: not in a group without job rank 5");
	np_test_slow_parse("4:100,4:20%", &job, &sl);
	tap_ok(sl.on && sl.us == 100 && sl.frac == 0.2, "two SPECs for one rank: both kinds kept");
	np_test_slow_parse("4:0,4:x,4:1e7,4:100:bogus,4", &job, &sl);
	tap_ok(!sl.on, "zero, not a number, 1e7 and more, an unknown suffix, no value: nothing");
	np_test_slow_parse(NULL, &job, &sl);
	tap_ok(!sl.on, "SLOW unset: nothing");
}

static void test_fail(void)
{
	static const int group[] = { 2, 3 };
	struct np_test_where job = { .rank = 2, .size = 4, .nnodes = 1, .job_size = 4 };
	struct np_test_where grp = {
		.rank = 0, .size = 2, .nnodes = 1, .job_size = 4, .job_ranks = group
	};

	tap_ok(np_test_fail_parse("2", &job), "FAIL=2 fails job rank 2");
	tap_ok(!np_test_fail_parse("1,3", &job), "FAIL=1,3 does not fail rank 2");
	tap_ok(np_test_fail_parse("1,2", &job), "FAIL=1,2 fails rank 2");
	tap_ok(np_test_fail_parse("all", &job), "FAIL=all fails every rank");
	tap_ok(!np_test_fail_parse("2:groups", &job), "FAIL=2:groups: not in the whole job");
	tap_ok(np_test_fail_parse("2:groups", &grp),
	       "FAIL=2:groups: in a group (job rank 2 is group rank 0)");
	tap_ok(np_test_fail_parse("all:groups", &grp) && !np_test_fail_parse("all:groups", &job),
	       "FAIL=all:groups: in groups only");
	tap_ok(!np_test_fail_parse("2:bogus", &job) && !np_test_fail_parse("", &job) &&
		       !np_test_fail_parse(NULL, &job),
	       "an unknown suffix, empty, unset: nothing");
}

static void test_no_native(void)
{
	tap_ok(np_test_no_native_parse("1"), "NO_NATIVE=1 forces send/recv");
	tap_ok(!np_test_no_native_parse("0") && !np_test_no_native_parse("yes") &&
		       !np_test_no_native_parse("") && !np_test_no_native_parse(NULL),
	       "NO_NATIVE 0, yes, empty, unset: native calls stay");
}

static void test_tune(void)
{
	struct np_test_setting set[NP_TEST_TUNE_MAX];
	const char *env =
		"1/NCCL_PROBE_TEST_SLOW=0:50%;2/NCCL_PROBE_TEST_FAIL=all;"
		"1/NCCL_PROBE_TEST_CORRUPT=1;1/NCCL_ALGO=Ring;1/NCCL_PROBE_TEST_X;x/NCCL_PROBE_TEST_Y=1";
	int n = np_test_tune_parse(env, 1, set, NP_TEST_TUNE_MAX);
	char big[600];

	tap_is_int(n, 2, "TUNE: arm 1 has two test switches (not NCCL_ALGO, not one without '=')");
	tap_ok(n == 2 && !strcmp(set[0].name, "NCCL_PROBE_TEST_SLOW") &&
		       !strcmp(set[0].value, "0:50%") &&
		       !strcmp(set[1].name, "NCCL_PROBE_TEST_CORRUPT") &&
		       !strcmp(set[1].value, "1"),
	       "TUNE: names and values in order");
	n = np_test_tune_parse(env, 2, set, NP_TEST_TUNE_MAX);
	tap_ok(n == 1 && !strcmp(set[0].value, "all"), "TUNE: arm 2 has its own");
	tap_is_int(np_test_tune_parse(env, 0, set, NP_TEST_TUNE_MAX), 0,
		   "TUNE: the baseline arm has none");
	tap_is_int(np_test_tune_parse("1/NCCL_PROBE_TEST_A=x=y", 1, set, 1), 1,
		   "TUNE: a value may hold '='");
	tap_is_str(set[0].value, "x=y", "TUNE: the value after the first '='");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "1/NCCL_PROBE_TEST_A=", 20);
	tap_is_int(np_test_tune_parse(big, 1, set, NP_TEST_TUNE_MAX), 0,
		   "TUNE: 512 characters or more: nothing");
}

/* The one read of the environment, and tune's arms' plans made from it */
static void test_plan(void)
{
	static const char *const names[] = {
		"NCCL_PROBE_TEST_STALL", "NCCL_PROBE_TEST_CORRUPT", "NCCL_PROBE_TEST_MISROUTE",
		"NCCL_PROBE_TEST_SLOW",  "NCCL_PROBE_TEST_FAIL",    "NCCL_PROBE_TEST_NO_NATIVE",
		"NCCL_PROBE_TEST_TUNE",
	};
	const struct np_test_where w = { .rank = 1, .size = 4, .nnodes = 2, .job_size = 4 };
	struct np_test_plan p, a;
	struct np_test_stall st;
	struct np_test_faults f;
	struct np_test_slow sl;
	char big[600];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unsetenv(names[i]);
	memset(&p, 'x', sizeof(p));
	np_test_plan_read(&p);
	tap_ok(!p.stall[0] && !p.corrupt[0] && !p.misroute[0] && !p.slow[0] && !p.fail[0] &&
		       !p.no_native[0] && !p.tune[0],
	       "plan: nothing set, every switch empty");
	np_test_stall_parse(p.stall, &st);
	np_test_faults_parse(p.corrupt, p.misroute, &f);
	np_test_slow_parse(p.slow, &w, &sl);
	tap_ok(st.at == NP_STALL_NONE && f.corrupt_rank == -1 && !f.corrupt_all &&
		       f.misroute_to == -1 && !sl.on && !np_test_fail_parse(p.fail, &w) &&
		       !np_test_no_native_parse(p.no_native),
	       "plan: an empty switch plants nothing, as an unset one");

	setenv("NCCL_PROBE_TEST_STALL", "4@7", 1);
	setenv("NCCL_PROBE_TEST_CORRUPT", "5", 1);
	setenv("NCCL_PROBE_TEST_MISROUTE", "6:7", 1);
	setenv("NCCL_PROBE_TEST_SLOW", "1:40%", 1);
	setenv("NCCL_PROBE_TEST_FAIL", "3", 1);
	setenv("NCCL_PROBE_TEST_NO_NATIVE", "1", 1);
	setenv("NCCL_PROBE_TEST_TUNE",
	       "3/NCCL_PROBE_TEST_FAIL=all;3/NCCL_PROBE_TEST_MISROUTE=2:1;"
	       "3/NCCL_PROBE_TEST_TUNE=3/NCCL_PROBE_TEST_STALL=0;3/NCCL_PROBE_TEST_OTHER=1",
	       1);
	np_test_plan_read(&p);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unsetenv(names[i]);
	np_test_stall_parse(p.stall, &st);
	tap_ok(st.at == NP_STALL_BATCH && st.rank == 4 && st.after == 7, "plan: STALL read");
	np_test_faults_parse(p.corrupt, p.misroute, &f);
	tap_ok(f.corrupt_rank == 5 && f.misroute_from == 6 && f.misroute_to == 7,
	       "plan: CORRUPT and MISROUTE read");
	np_test_slow_parse(p.slow, &w, &sl);
	tap_ok(sl.on && sl.frac == 0.4, "plan: SLOW read");
	tap_ok(!np_test_fail_parse(p.fail, &w) && np_test_no_native_parse(p.no_native),
	       "plan: FAIL and NO_NATIVE read");
	tap_ok(p.tune[0] == '3', "plan: TUNE read");
	tap_ok(!getenv("NCCL_PROBE_TEST_STALL") && !strcmp(p.stall, "4@7"),
	       "plan: read once, it keeps what the environment held");

	a = p;
	np_test_plan_arm(&a, 2);
	tap_ok(!memcmp(&a, &p, sizeof(a)), "arm 2: no settings of its own, the plan as read");
	a = p;
	np_test_plan_arm(&a, 3);
	tap_ok(np_test_fail_parse(a.fail, &w), "arm 3: its FAIL=all in place of FAIL=3");
	np_test_faults_parse(a.corrupt, a.misroute, &f);
	tap_ok(f.corrupt_rank == 5 && f.misroute_from == 2 && f.misroute_to == 1,
	       "arm 3: its MISROUTE, the plan's CORRUPT kept");
	tap_is_str(a.tune, p.tune, "arm 3: TUNE itself is not a setting of an arm");
	tap_is_str(a.stall, "4@7", "arm 3: the plan's STALL kept");
	tap_is_str(p.fail, "3", "arm 3: the plan it was made from is untouched");

	memset(big, '1', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	big[NP_TEST_VALUE_LEN - 1] = '\0';
	setenv("NCCL_PROBE_TEST_CORRUPT", big, 1);
	np_test_plan_read(&p);
	tap_is_int((int)strlen(p.corrupt), NP_TEST_VALUE_LEN - 1,
		   "plan: a value just short of the limit is kept whole");
	big[NP_TEST_VALUE_LEN - 1] = '1';
	setenv("NCCL_PROBE_TEST_CORRUPT", big, 1);
	np_test_plan_read(&p);
	tap_is_str(p.corrupt, "", "plan: a longer value reads as unset, never cut short");
	unsetenv("NCCL_PROBE_TEST_CORRUPT");
}

int main(void)
{
	test_stall();
	test_plan();
	test_faults();
	test_slow();
	test_fail();
	test_no_native();
	test_tune();
	return tap_done();
}
