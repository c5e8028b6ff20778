# SPDX-License-Identifier: MIT
# Sourced by the benchmarks that run nccl-tests: nt_build OUTDIR SRCDIR
# builds nccl-tests 2.19.6 once into $NT_DIR (default OUTDIR/nccl-tests-2.19.6)
# from $NT_TARBALL (default: shared/anchors/ next to or above SRCDIR) and
# sets ntdir; the caller's die() reports a failure.
nt_build() {
	tarball=${NT_TARBALL:-}
	if [ -z "$tarball" ]; then
		for t in "$2/shared/anchors/nccl-tests-2.19.6.tar.gz" "$2/../shared/anchors/nccl-tests-2.19.6.tar.gz"; do
			[ -f "$t" ] && tarball=$t && break
		done
	fi
	ntdir=${NT_DIR:-$1/nccl-tests-2.19.6}
	[ -x "$ntdir/build/all_reduce_perf" ] && [ -x "$ntdir/build/alltoall_perf" ] &&
		[ -x "$ntdir/build/all_gather_perf" ] && return 0
	[ -n "$tarball" ] && [ -f "$tarball" ] || die "nccl-tests tarball not found; set NT_TARBALL"
	mkdir -p "$(dirname "$ntdir")" && tar xzf "$tarball" -C "$(dirname "$ntdir")" ||
		die "cannot unpack $tarball"
	nccl=
	[ -n "${NCCL_HOME:-}" ] && nccl="NCCL_HOME=$NCCL_HOME"
	# shellcheck disable=SC2086
	make -C "$ntdir" -j"$(nproc)" MPI=1 \
		MPI_HOME="${MPI_HOME:-/usr/lib/x86_64-linux-gnu/openmpi}" \
		CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" $nccl \
		NVCC_GENCODE="${NVCC_GENCODE:--gencode=arch=compute_90,code=sm_90}" \
		>"$1/nccl-tests-build.log" 2>&1 || die "building nccl-tests failed: see $1/nccl-tests-build.log"
}
