#!/bin/sh
# SPDX-License-Identifier: MIT
# 'make install DESTDIR=...' installs nccl-probe-validate and nccl-probe-plot beside the
# binary, the Slurm prolog and the NHC check under share/nccl-probe/, and
# the installed driver finds the installed nccl-probe, and the installed
# prolog and NHC check name the installed bindir (NHC's PATH holds only
# the system's directories).
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
cmp -s "$srcdir/contrib/grafana/nccl-probe-dashboard.json" "$share/nccl-probe-dashboard.json"
ok $? "  $share/nccl-probe-dashboard.json, the Grafana dashboard, beside it"
expect_success "the installed driver runs" "$bin/nccl-probe-validate" --hosts a,b --ppn 2 --no-topo --dry-run
expect_grep " $bin/nccl-probe isolate " "$TEST_OUT" "  and uses the nccl-probe installed beside it"
bindir=$(sed -n 's/^bindir = //p' "$top_builddir/Makefile" | sed "s|\${exec_prefix}|$(sed -n 's/^exec_prefix = //p' "$top_builddir/Makefile" | sed "s|\${prefix}|$prefix|")|")
grep -q "^np_bindir='$bindir'\$" "$share/slurm/prolog-nccl-probe" && ! grep -q '@bindir@' "$share/slurm/prolog-nccl-probe"
ok $? "  the installed prolog holds the bindir '$bindir'"
grep -q "local np_bindir='$bindir'\$" "$share/nhc/nccl-probe.nhc" && ! grep -q '@bindir@' "$share/nhc/nccl-probe.nhc"
ok $? "  the installed NHC check holds it too"
# the bindir put where the binary is, as installed without DESTDIR: the NHC
# check run with NHC's PATH and no -b finds it
sed "s|^\(	local np_bindir=\)'.*'|\1'$bin'|" "$share/nhc/nccl-probe.nhc" >"$TEST_TMP/check.nhc"
nhc_path() {
	env -i PATH=/sbin:/usr/sbin:/bin:/usr/bin bash -c \
		'. "$1"; die() { shift; echo "die: $*"; return 1; }; log() { echo "log: $*"; }; check_nccl_probe' _ "$1" \
		>"$TEST_OUT" 2>&1
}
nhc_path "$TEST_TMP/check.nhc"
! grep -q 'nccl-probe not found' "$TEST_OUT"
ok $? "  and, with NHC's PATH and no -b, runs the binary of its bindir"
if ! PATH=/sbin:/usr/sbin:/bin:/usr/bin command -v nccl-probe >/dev/null 2>&1; then
	nhc_path "$srcdir/contrib/nhc/nccl-probe.nhc"
	expect_grep 'nccl-probe not found' "$TEST_OUT" "  (without a bindir, as in the source tree, it finds none there)"
fi
expect_success "the installed prolog answers --help" "$share/slurm/prolog-nccl-probe" --help
expect_grep 'NP_DRAIN' "$TEST_OUT" "  its settings"
# the example settings and floors files, installed beside the prolog, are
# valid as shipped (their NP_FLOORS pointed at the installed example)
[ -f "$share/slurm/prolog.conf.example" ] && [ -f "$share/slurm/floors.example" ]
ok $? "  $share/slurm/prolog.conf.example and floors.example"
sed "s|^NP_FLOORS=.*|NP_FLOORS=$share/slurm/floors.example|" "$share/slurm/prolog.conf.example" >"$TEST_TMP/prolog.conf"
echo "NP_BIN=$bin/nccl-probe" >>"$TEST_TMP/prolog.conf"
expect_success "  the example passes --check-conf with the example floors" \
	"$share/slurm/prolog-nccl-probe" --conf "$TEST_TMP/prolog.conf" --check-conf
grep -q '^NP_FLOORS=/etc/nccl-probe/floors$' "$share/slurm/prolog.conf.example"
ok $? "  it names /etc/nccl-probe/floors, where the man page copies floors.example"
done_testing
