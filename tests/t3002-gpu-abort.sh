#!/bin/sh
# SPDX-License-Identifier: MIT
# The watchdog's abort() ends a stalled stream (NCCL_PROBE_TEST_STALL=0:device):
# run() returns a timeout within seconds, from the backend alone.
. "$(dirname "$0")/lib.sh"
have_nccl_build || skip_all "built without the NCCL backend"
have_gpu || skip_all "no GPU"
[ -x "$top_builddir/tests/unit/test_nccl" ] || skip_all "tests/unit/test_nccl not built"
exec "$top_builddir/tests/unit/test_nccl" stall
