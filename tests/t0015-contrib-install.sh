#!/bin/sh
# SPDX-License-Identifier: MIT
# 'make install DESTDIR=...' installs nccl-probe-validate and nccl-probe-plot beside the
# binary, the Slurm prolog and the NHC check under share/nccl-probe/, and
# the installed driver finds the installed nccl-probe.
. "$(dirname "$0")/lib.sh"
[ -f "$top_builddir/Makefile" ] || skip_all "no Makefile in '$top_builddir'"
D=$TEST_TMP/dest
expect_success "make install DESTDIR=..." env -u MAKEFLAGS -u MFLAGS make -s -C "$top_builddir" install DESTDIR="$D"
prefix=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
bin=$D$prefix/bin
share=$D$prefix/share/nccl-probe
for f in "$bin/nccl-probe" "$bin/nccl-probe-validate" "$bin/nccl-probe-plot" "$share/slurm/prolog-nccl-probe"; do
	[ -f "$f" ] && [ -x "$f" ]
	ok $? "  $f, executable"
done
[ -f "$share/nhc/nccl-probe.nhc" ] && [ ! -x "$share/nhc/nccl-probe.nhc" ]
ok $? "  $share/nhc/nccl-probe.nhc, a file NHC sources"
cmp -s "$srcdir/contrib/nccl-probe-sweep.schema.json" "$share/nccl-probe-sweep.schema.json"
ok $? "  $share/nccl-probe-sweep.schema.json, the sweep JSON's schema"
expect_success "the installed driver runs" "$bin/nccl-probe-validate" --hosts a,b --ppn 2 --no-topo --dry-run
expect_grep " $bin/nccl-probe isolate " "$TEST_OUT" "  and uses the nccl-probe installed beside it"
expect_success "the installed prolog answers --help" "$share/slurm/prolog-nccl-probe" --help
expect_grep 'NP_DRAIN' "$TEST_OUT" "  its settings"
done_testing
