#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the fuzz targets with clang (libFuzzer, ASan, UBSan) and run each
# for a bounded time:
#   tests/fuzz/run.sh [SECONDS] [TARGET...]
# SECONDS per target (default 30); TARGETs among sizes hwloc nccl snapshot
# (default all). Seeds: tests/fuzz/seed/TARGET, the regression files of
# tests/fuzz/regress (which 'make check' replays in the ordinary build:
# tests/t2010-topo-hostile-input.sh, tests/fuzz/replay_sizes), and
# $NP_FIXTURES/topology when set. A file that fuzzing finds goes into
# tests/fuzz/regress with its expected answer, and the bug gets fixed. The build and the
# growing corpora are in $NP_FUZZ_DIR (default build-fuzz/ at the top);
# crashes, leaks, an input slower than 1 s (-timeout) or one that takes
# more than 256 MB (-rss_limit_mb), and sanitizer reports leave a file in
# $NP_FUZZ_DIR/artifacts and make the script exit 1.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-30}
[ $# -gt 0 ] && shift
targets=${*:-sizes hwloc nccl snapshot}
dir=${NP_FUZZ_DIR:-$top/build-fuzz}
cc=${NP_FUZZ_CC:-clang}

command -v "$cc" >/dev/null 2>&1 ||
	{ echo "error: $cc not found; install clang (Debian: apt-get install clang)" >&2; exit 3; }
san="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
mkdir -p "$dir/artifacts"
cd "$dir"
# the library built by the project's own build system, with clang through
# the MPI wrapper and coverage instrumentation for libFuzzer
if [ ! -f Makefile ]; then
	[ -x "$top/configure" ] || (cd "$top" && ./autogen.sh >/dev/null)
	OMPI_CC=$cc MPICH_CC=$cc "$top/configure" -q --without-cuda \
		CFLAGS="$san -fsanitize=fuzzer-no-link" >/dev/null
fi
OMPI_CC=$cc MPICH_CC=$cc make -s -j2 libnp.a
libs=$(sed -n 's/^\(HWLOC_LIBS\|XML_LIBS\|VERBS_LIBS\|LIBS\) = //p' Makefile | tr '\n' ' ')
for t in $targets; do
	OMPI_CC=$cc MPICH_CC=$cc mpicc $san -fsanitize=fuzzer -I. \
		$(pkg-config --cflags hwloc libxml-2.0) \
		-o "fuzz_$t" "$top/tests/fuzz/fuzz_$t.c" libnp.a $libs
done

# the quarantine of freed memory (256 MB by default) would count against
# -rss_limit_mb: 32 MB keeps the limit about what an input costs
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:quarantine_size_mb=32}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$top/tests/fuzz/lsan.supp}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
rc=0
for t in $targets; do
	corpus=$dir/corpus-$t
	seeds=$dir/seeds-$t
	rm -rf "$seeds"
	mkdir -p "$corpus" "$seeds"
	case $t in
	sizes) n=0
		{ cat "$top/tests/fuzz/seed/sizes/list.txt"
		  grep -v '^#' "$top/tests/fuzz/regress/sizes/list.txt" | cut -f2; } |
		while IFS= read -r l; do n=$((n + 1)); printf '%s' "$l" >"$seeds/s$n"; done ;;
	snapshot) cp "$top/tests/fuzz/seed/snapshot/"* "$seeds/" ;;
	hwloc|nccl)
		cp "$top/tests/fuzz/seed/$t/"* "$top/tests/fuzz/regress/topo/$t-"*.xml "$seeds/"
		fx=${NP_FIXTURES:-$top/tests/fixtures}
		[ -d "$fx/topology/$t" ] && cp "$fx/topology/$t/"*.xml "$seeds/"
		;;
	*) echo "error: unknown fuzz target '$t'; use sizes, hwloc, nccl or snapshot" >&2; exit 64 ;;
	esac
	dict=""
	[ "$t" = sizes ] || dict="-dict=$top/tests/fuzz/xml.dict"
	echo "fuzz_$t: $secs s"
	# shellcheck disable=SC2086
	if ! "./fuzz_$t" -max_total_time="$secs" -timeout=1 -rss_limit_mb=256 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$dir/artifacts/$t-" $dict "$corpus" "$seeds" \
		>"$dir/fuzz_$t.log" 2>&1; then
		echo "error: fuzz_$t found a problem; see $dir/fuzz_$t.log and $dir/artifacts" >&2
		tail -n 40 "$dir/fuzz_$t.log" >&2
		rc=1
	fi
	grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$dir/fuzz_$t.log" | sed "s/^/fuzz_$t /" || true
done
exit $rc
