#!/bin/sh
# SPDX-License-Identifier: MIT
# The shell scripts shipped in contrib/ (and CI's) pass shellcheck with
# no finding at any severity; the NHC check is bash, sourced by NHC.
# nccl-probe-validate is Python (t0040 compiles it).
. "$(dirname "$0")/lib.sh"
command -v shellcheck >/dev/null 2>&1 || skip_all "shellcheck not installed (apt-get install shellcheck)"

for f in contrib/slurm/prolog-nccl-probe contrib/np-setup contrib/np-format .ci/run \
	tests/slurm-local.sh; do
	expect_success "shellcheck $f" shellcheck -s sh "$srcdir/$f"
done
expect_success "shellcheck contrib/nhc/nccl-probe.nhc (bash)" shellcheck -s bash "$srcdir/contrib/nhc/nccl-probe.nhc"
done_testing
