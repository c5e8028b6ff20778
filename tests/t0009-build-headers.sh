#!/bin/sh
# SPDX-License-Identifier: MIT
# Every quoted include resolves relative to the file that includes it
# (config.h, written into the build directory, excepted): no project
# directory needs to be on the include path. And no project header shares
# a system header's name: were a source directory on the include path,
# GCC's #include_next (glibc's <limits.h>, fortified <string.h>) would
# find the project's file instead.
. "$(dirname "$0")/lib.sh"
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || cc=cc
command -v "$cc" >/dev/null 2>&1 || skip_all "no C compiler"

# the compiler's own search list for <...>
dirs=$(echo | "$cc" -xc -E -v - 2>&1 >/dev/null |
	sed -n '/^#include <\.\.\.> search starts here:/,/^End of search list\./p' |
	sed '1d;$d;s/^ *//;s/ (framework directory)$//')
[ -n "$dirs" ]
ok $? "the compiler lists its system include directories"

# each quoted include, from the including file's own directory
bad=$(cd "$srcdir" && find common src probes topo tests/unit tests/fuzz tests/bench \
	\( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | sort | while read -r f; do
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" | while read -r inc; do
		[ "$inc" = config.h ] || [ -e "$(dirname "$f")/$inc" ] || echo "$f: \"$inc\""
	done
done)
[ -z "$bad" ]
ok $? "every quoted include names its file from the including file's directory"
[ -z "$bad" ] || printf '%s\n' "$bad" | sed 's/^/# /' | head -n 20
n=$(cd "$srcdir" && grep -l '#include "\.\./' common/*.[ch] src/*.[ch] probes/*.[ch] topo/*.[ch] | wc -l)
[ "$n" -gt 10 ]
ok $? "the check saw includes across directories ($n files)"
if grep -Eq -- '-I\$\(top_srcdir\)/(common|src|probes|topo)' "$srcdir/Makefile.am" "$srcdir"/*/local.mk "$srcdir/probes/nccl.mk"; then
	ok 1 "no project directory is on the include path"
else
	ok 0 "no project directory is on the include path"
fi

headers=$(cd "$srcdir" && find common src probes topo -name '*.h' | sort)
[ -n "$headers" ]
ok $? "the project has headers to check"
for h in $headers; do
	b=${h##*/}
	clash=""
	for d in $dirs; do
		[ -e "$d/$b" ] && clash="$d/$b"
	done
	[ -z "$clash" ]
	ok $? "$h does not share its name with a system header${clash:+ ($clash)}"
done

# glibc's <limits.h> is the one a source file sees from inside the tree
printf '#include <limits.h>\n#if !defined(PATH_MAX) || MB_LEN_MAX < 2\n#error wrong limits.h\n#endif\n' |
	"$cc" -xc -fsyntax-only -I"$srcdir" -I"$srcdir/src" -I"$srcdir/probes" -I"$srcdir/topo" - \
	>"$TEST_ERR" 2>&1
ok $? "<limits.h> is the system's with the project's include path"

# a build with the NCCL backend names its device code targets: from sm_75
# up, and PTX for GPUs newer than the toolkit (a --with-cuda-arch=native
# build where nvidia-smi listed no GPU, as contrib/np-setup makes on such
# a machine: PTX of sm_75 alone)
if [ -x "$NP_BIN" ] && "$NP_BIN" --version 2>/dev/null | grep -q 'nccl backend: yes'; then
	t=$("$NP_BIN" --version | sed -n 's/^cuda targets: //p')
	diag "cuda targets: $t"
	case $t in
	"as NVCCFLAGS says") ok 0 "device code targets set by NVCCFLAGS" ;;
	"PTX compute_75")
		grep -m 1 '^  \$ .*configure' "$top_builddir/config.log" 2>/dev/null | grep -q -e '--with-cuda-arch=native'
		ok $? "PTX of sm_75 alone only in a --with-cuda-arch=native build"
		;;
	*)
		low=$(printf '%s\n' "$t" | grep -o 'sm_[0-9]*' | sed 's/sm_//' | sort -n | head -n 1)
		[ -n "$low" ] && printf '%s\n' "$t" | grep -q 'PTX compute_[0-9]'
		ok $? "--version lists real targets and a PTX target"
		# configure's command line, as config.log records it
		cmd=$(grep -m 1 '^  \$ .*configure' "$top_builddir/config.log" 2>/dev/null)
		if [ -n "$cmd" ] && ! printf '%s\n' "$cmd" | grep -q -e --with-cuda-arch -e NVCCFLAGS; then
			[ "$low" -eq 75 ]
			ok $? "by default the oldest target is sm_75 (T4)"
		fi
		;;
	esac
fi
done_testing
