#!/bin/sh
# SPDX-License-Identifier: MIT
# The NCCL backend through its ops (tests/unit/test_nccl): every collective,
# data type and reduction checked on the device, in place, in CUDA graphs,
# out-of-memory allocation and the backend's facts.
. "$(dirname "$0")/lib.sh"
have_nccl_build || skip_all "built without the NCCL backend"
have_gpu || skip_all "no GPU"
[ -x "$top_builddir/tests/unit/test_nccl" ] || skip_all "tests/unit/test_nccl not built"
exec "$top_builddir/tests/unit/test_nccl"
