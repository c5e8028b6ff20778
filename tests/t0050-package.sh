#!/bin/sh
# SPDX-License-Identifier: MIT
# The packages operators install. The .deb: dpkg-buildpackage on a clean
# clone of HEAD, lintian without errors, the files it must hold; as root,
# installed, run from /usr/bin (topo, a 2-rank host sweep) and removed.
# The RPM: rpmbuild -tb on the 'make dist' tarball, the same files.
# Everything is built in the test's temporary directory, unoptimized
# (the .deb with DEB_BUILD_OPTIONS=noopt, the RPM with -O0 and no debuginfo
# package): what is checked is the packaging, and the optimized build is
# the suite's own (on 2 cores the test took 45 CPU seconds with -O2 and
# the debuginfo package, 29 without).
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null 2>&1 || skip_all "git not found"
git -C "$srcdir" rev-parse --verify -q HEAD >/dev/null 2>&1 ||
	skip_all "'$srcdir' is not a git checkout: the packages are built from a clone of HEAD"
command -v dpkg-buildpackage >/dev/null 2>&1 || command -v rpmbuild >/dev/null 2>&1 ||
	skip_all "neither dpkg-buildpackage nor rpmbuild found (Debian: apt-get install dpkg-dev debhelper rpm)"

T=$TEST_TMP
mkdir -p "$T/home"
# the builds see no make of ours (jobserver), no settings of the user's
# (~/.rpmmacros, ~/.devscripts) and write temporaries under $T; they run
# at the lowest priority: under make -j they take the CPU the other tests
# leave, not the CPU of a test that judges timing
build_env() { nice -n 19 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL HOME="$T/home" TMPDIR="$T" "$@"; }
installed=""
cleanup() {
	[ -n "$installed" ] && dpkg -r nccl-probe >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

head=$(git -C "$srcdir" rev-parse HEAD)
git -C "$srcdir" diff --quiet HEAD 2>/dev/null ||
	diag "the working tree has changes that are not committed: the packages are built from HEAD ($head)"
clone() {
	git clone -q --no-checkout "$srcdir" "$1" && git -C "$1" checkout -q "$head"
}
version=$(sed -n 's/^AC_INIT(\[nccl-probe\], \[\([^]]*\)\].*/\1/p' "$srcdir/configure.ac")

# has_files LIST DESC: LIST (one path a line) holds each file a package
# must have, by its installed path; man pages in any compression
has_files() {
	local list=$1 what=$2 f m sec
	for f in /usr/bin/nccl-probe /usr/bin/nccl-probe-validate /usr/bin/nccl-probe-plot \
		/usr/share/nccl-probe/slurm/prolog-nccl-probe /usr/share/nccl-probe/nhc/nccl-probe.nhc \
		/usr/share/nccl-probe/slurm/prolog.conf.example /usr/share/nccl-probe/slurm/floors.example \
		/usr/share/nccl-probe/nccl-probe-sweep.schema.json; do
		grep -qx "$f" "$list"
		ok $? "$what has $f" || true
	done
	for m in "$T/src/man"/*.[1-8]; do
		[ -f "$m" ] || continue
		sec=${m##*.}
		grep -Eqx "/usr/share/man/man$sec/${m##*/}(\.gz|\.bz2|\.xz|\.zst)?" "$list"
		ok $? "$what has the man page ${m##*/}" || true
	done
}

clone "$T/src"
ok $? "a clean clone of HEAD"

# ---- the Debian package
if ! command -v dpkg-buildpackage >/dev/null 2>&1; then
	ok 0 "the .deb # SKIP dpkg-buildpackage not found (apt-get install dpkg-dev debhelper)"
else
	deb_version=$(dpkg-parsechangelog -l "$T/src/debian/changelog" -SVersion)
	[ "$deb_version" = "$version" ]
	ok $? "debian/changelog's version ($deb_version) is configure.ac's ($version)"
	deb=$T/nccl-probe_${deb_version}_$(dpkg --print-architecture).deb
	(cd "$T/src" && build_env DEB_BUILD_OPTIONS="nocheck noopt parallel=2" \
		dpkg-buildpackage -us -uc -b) >"$T/deb.log" 2>&1
	[ -f "$deb" ]
	if ! ok $? "dpkg-buildpackage -us -uc -b builds ${deb##*/}"; then
		tail -n 30 "$T/deb.log" | sed 's/^/#   /'
	else
		dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' >"$T/deb.files"
		has_files "$T/deb.files" "the .deb"
		dpkg-deb -f "$deb" Depends >"$T/deb.depends"
		for d in 'libopenmpi[0-9]|libmpich[0-9]' 'openmpi-bin|mpich' libhwloc libxml2 python3; do
			grep -Eq "(^|, )($d)" "$T/deb.depends"
			ok $? "the .deb depends on $d" || diag "Depends: $(cat "$T/deb.depends")"
		done
		dpkg-deb -f "$deb" Description | grep -q 'host backend'
		ok $? "the .deb's description says it has the host backend"

		if command -v lintian >/dev/null 2>&1; then
			build_env lintian "$deb" >"$T/lintian.out" 2>&1
			! grep -q '^E:' "$T/lintian.out"
			ok $? "lintian finds no error in the .deb" || grep '^E:' "$T/lintian.out" | sed 's/^/#   /'
		else
			ok 0 "lintian # SKIP lintian not found"
		fi

		# installed, run and removed: root only, and never over an
		# nccl-probe that is there already; another run of this test
		# waits for the lock on dpkg's directory (held until exit)
		[ "$(id -u)" -eq 0 ] && command -v flock >/dev/null 2>&1 &&
			exec 9</var/lib/dpkg && flock -w 900 9
		if [ "$(id -u)" -ne 0 ]; then
			ok 0 "the installed .deb # SKIP not root"
		elif dpkg-query -W -f '${Status}\n' nccl-probe 2>/dev/null | grep -Eqv '^$|not-installed|config-files' ||
			[ -e /usr/bin/nccl-probe ]; then
			ok 0 "the installed .deb # SKIP an nccl-probe is installed already; not replaced"
		else
			installed=yes
			if ! dpkg -i "$deb" >"$T/install.log" 2>&1; then
				# its dependencies from the archive; what apt installs stays
				DEBIAN_FRONTEND=noninteractive apt-get -f install -y -qq >>"$T/install.log" 2>&1
			fi
			if [ "$(dpkg-query -W -f '${Status}' nccl-probe 2>/dev/null)" != "install ok installed" ]; then
				ok 0 "the installed .deb # SKIP its dependencies are missing and apt cannot install them"
				sed 's/^/#   /' "$T/install.log" | tail -n 10
			else
				ok 0 "dpkg -i installs ${deb##*/}"
				expect_success "the installed nccl-probe --version" /usr/bin/nccl-probe --version
				expect_grep '^nccl backend: no' "$TEST_OUT" "  it has no NCCL backend"
				expect_success "the installed nccl-probe topo" \
					/usr/bin/nccl-probe topo --quiet --format json --output "$T/topo.json"
				python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["schema"] == "nccl-probe/topo"' \
					"$T/topo.json" 2>/dev/null
				ok $? "  its report is a topo report"
				/usr/bin/mpirun -np 2 --oversubscribe --bind-to none /usr/bin/nccl-probe \
					--sweep 1K:64K --iters 1 --samples 1 --format json --output "$T/sweep.json" \
					>"$TEST_OUT" 2>"$TEST_ERR"
				ok $? "a 2-rank sweep of the installed nccl-probe under /usr/bin/mpirun" || _np_show
				python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["backend"]["name"] == "mpi" and d["world"]["ranks"] == 2 and d["results"], d["backend"]' \
					"$T/sweep.json" >"$TEST_ERR" 2>&1
				ok $? "  on the MPI host backend, with results" || _np_show
			fi
			dpkg -r nccl-probe >"$T/remove.log" 2>&1
			ok $? "dpkg -r nccl-probe" || sed 's/^/#   /' "$T/remove.log"
			installed=""
			[ ! -e /usr/bin/nccl-probe ] && [ ! -e /usr/share/nccl-probe ]
			ok $? "  leaves neither /usr/bin/nccl-probe nor /usr/share/nccl-probe"
		fi
	fi
fi

# ---- the RPM, from the 'make dist' tarball
if ! command -v rpmbuild >/dev/null 2>&1; then
	ok 0 "the RPM # SKIP rpmbuild not found (Debian: apt-get install rpm)"
else
	clone "$T/rpmsrc" && mkdir -p "$T/rpmsrc/b" &&
		(cd "$T/rpmsrc" && ./autogen.sh && cd b && ../configure -q --without-cuda &&
			build_env make -s dist) >"$T/dist.log" 2>&1
	tarball=$T/rpmsrc/b/nccl-probe-$version.tar.gz
	[ -f "$tarball" ] && tar -xOzf "$tarball" "nccl-probe-$version/nccl-probe.spec" >"$T/spec" 2>/dev/null &&
		grep -q "^Version: *$version\$" "$T/spec"
	ok $? "make dist ships nccl-probe.spec, version $version" || tail -n 20 "$T/dist.log" | sed 's/^/#   /'
	mkdir -p "$T/rpm"
	build_env rpmbuild -tb --nodeps --without check --define "_topdir $T/rpm" \
		--define "_tmppath $T" --define "_smp_mflags -j2" --define "optflags -O0 -g" \
		--define "debug_package %{nil}" "$tarball" >"$T/rpm.log" 2>&1
	rpm=""
	for f in "$T/rpm/RPMS"/*/nccl-probe-"$version"-*.rpm; do
		[ -f "$f" ] && rpm=$f
	done
	if [ -z "$rpm" ]; then
		ok 1 "rpmbuild -tb --nodeps builds nccl-probe-$version"
		tail -n 30 "$T/rpm.log" | sed 's/^/#   /'
	else
		ok 0 "rpmbuild -tb --nodeps builds ${rpm##*/}"
		rpm -qlp "$rpm" >"$T/rpm.files" 2>/dev/null
		has_files "$T/rpm.files" "the RPM"
		rpm -qpR "$rpm" >"$T/rpm.requires" 2>/dev/null
		for d in 'libmpi\.so' 'libhwloc\.so' 'libxml2\.so' 'python3'; do
			grep -Eq "^$d" "$T/rpm.requires"
			ok $? "the RPM requires $d" || true
		done
	fi
fi
done_testing
