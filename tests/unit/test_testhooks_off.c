/* SPDX-License-Identifier: MIT */
/* A build without the test switches (configure --disable-test-hooks; here
 * common/testhooks.c compiled with NP_TEST_HOOKS_OFF): every switch set in
 * the environment reads as unset, and np_test_hooks_built says so. */
#include "config.h"

#include <stdlib.h>

#include "../../common/testhooks.h"
#include "tap.h"

int main(void)
{
	struct np_test_plan p;
	struct np_test_stall st;
	struct np_test_faults f;
	struct np_test_slow sl;
	const struct np_test_where w = { .rank = 0, .size = 2, .nnodes = 2, .job_size = 2 };

	setenv("NCCL_PROBE_TEST_STALL", "0", 1);
	setenv("NCCL_PROBE_TEST_CORRUPT", "all", 1);
	setenv("NCCL_PROBE_TEST_SLOW", "0:100", 1);
	setenv("NCCL_PROBE_TEST_FAIL", "all", 1);
	setenv("NCCL_PROBE_TEST_NO_NATIVE", "1", 1);
	setenv("NCCL_PROBE_TEST_TUNE", "0/NCCL_PROBE_TEST_FAIL=all", 1);
	tap_ok(!np_test_hooks_built(), "built without the switches");
	np_test_plan_read(&p);
	np_test_stall_parse(p.stall, &st);
	tap_is_int(np_test_stall_rank_at(&st, NP_STALL_BATCH), -1, "STALL=0 set: no rank stalls");
	np_test_faults_parse(p.corrupt, p.misroute, &f);
	tap_ok(!f.corrupt_all && f.corrupt_rank == -1, "CORRUPT=all set: no input corrupted");
	np_test_slow_parse(p.slow, &w, &sl);
	tap_ok(!sl.on, "SLOW=0:100 set: no rank slowed");
	tap_ok(!np_test_fail_parse(p.fail, &w), "FAIL=all set: no start fails");
	tap_ok(!np_test_no_native_parse(p.no_native), "NO_NATIVE=1 set: native collectives kept");
	np_test_plan_arm(&p, 0);
	tap_ok(!np_test_fail_parse(p.fail, &w), "TUNE set: no arm's start fails");
	/* the parsers themselves still parse (they are pure) */
	np_test_stall_parse("0", &st);
	tap_is_int(np_test_stall_rank_at(&st, NP_STALL_BATCH), 0,
		   "the parser still reads '0' (the reading is what is off)");
	return tap_done();
}
