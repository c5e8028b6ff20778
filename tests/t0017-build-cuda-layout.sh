#!/bin/sh
# SPDX-License-Identifier: MIT
# configure finds the CUDA runtime where each toolkit layout puts it: lib64
# (x86_64 packages), lib, or targets/<triple>/lib (SBSA, cross), builds the
# device code for the targets asked (or, with --with-cuda-arch=native, for
# the GPUs nvidia-smi lists), and refuses a target that is no compute
# capability.
. "$(dirname "$0")/lib.sh"
cuda=${NP_TEST_CUDA:-/usr/local/cuda}
[ -x "$cuda/bin/nvcc" ] && ls "$cuda"/lib64/libcudart.so* >/dev/null 2>&1 ||
	skip_all "no CUDA toolkit with lib64/libcudart.so in $cuda"
[ -x "$srcdir/configure" ] || skip_all "no configure script in $srcdir"
[ -f "$srcdir/config.status" ] && skip_all "the source tree is configured in place (configure refuses a second build of it)"

# a toolkit laid out as SBSA packages do: the runtime only under targets/
fake=$TEST_TMP/cuda
mkdir -p "$fake/bin" "$fake/targets/sbsa-linux/lib"
ln -s "$cuda/include" "$fake/include"
ln -s "$cuda/bin/nvcc" "$fake/bin/nvcc"
for f in "$cuda"/lib64/libcudart.so*; do ln -s "$f" "$fake/targets/sbsa-linux/lib/"; done
for f in "$cuda"/lib64/libnccl.so*; do [ -e "$f" ] && ln -s "$f" "$fake/targets/sbsa-linux/lib/"; done

b=$TEST_TMP/b
mkdir -p "$b"
# libxml2 as this build found it (a machine without its headers is
# configured with XML_CFLAGS and XML_LIBS)
xml() { "$srcdir/configure" XML_CFLAGS="${NP_XML_CFLAGS:-}" XML_LIBS="${NP_XML_LIBS:-}" "$@"; }
[ -n "${NP_XML_LIBS:-}" ] || xml() { "$srcdir/configure" "$@"; }
(cd "$b" && xml -C --with-cuda="$fake" --with-cuda-arch=80,90 \
	>"$TEST_OUT" 2>"$TEST_ERR")
ok $? "configure with a targets/<triple>/lib toolkit" || _np_show
grep -q "^CUDA_LDFLAGS = -L$fake/targets/sbsa-linux/lib " "$b/Makefile"
ok $? "the runtime is taken from targets/sbsa-linux/lib"
cat "$TEST_OUT" "$TEST_ERR" | grep -q 'CUDA targets:   sm_80 sm_90, PTX compute_90'
ok $? "the summary lists the targets asked for"
grep -q -- '-gencode arch=compute_90,code=compute_90' "$b/Makefile"
ok $? "PTX of the newest target is built"

# --with-cuda-arch=native: the GPUs of this machine, as a fake nvidia-smi
# lists them (configure's later runs reuse the first one's cache: -C)
smi=$TEST_TMP/smi
mkdir -p "$smi"
native() {
	printf '#!/bin/sh\n%s\n' "$1" >"$smi/nvidia-smi" && chmod +x "$smi/nvidia-smi" &&
		(cd "$b" && PATH="$smi:$PATH" xml -C --with-cuda="$fake" --with-cuda-arch=native \
			>"$TEST_OUT" 2>"$TEST_ERR")
}
native 'printf "9.0\n9.0\n"'
ok $? "--with-cuda-arch=native: configure" || _np_show
grep -q 'CUDA targets:   sm_90, PTX compute_90$' "$TEST_OUT"
ok $? "  two GPUs of compute capability 9.0: sm_90 and its PTX"
native 'printf "8.0\n99.9\n"'
grep -q 'CUDA targets:   sm_80, PTX compute_80$' "$TEST_OUT" &&
	grep -q "cannot build for compute capability 999 of a GPU of this machine: it runs the PTX of compute_80," "$TEST_ERR"
ok $? "  a newer GPU than this nvcc builds for: a warning, and the PTX runs on it" || _np_show
native 'printf "7.0\n8.0\n"'
grep -q 'CUDA targets:   sm_80, PTX compute_80$' "$TEST_OUT" &&
	grep -q "cannot build for compute capability 70 of a GPU of this machine, and the PTX built (compute_80) is too new for it: this build has no code for that GPU" "$TEST_ERR"
ok $? "  an older GPU than this nvcc builds for: a warning that no code runs on it" || _np_show
native 'echo "No devices were found"; exit 6'
grep -q 'CUDA targets:   PTX compute_75$' "$TEST_OUT" &&
	grep -q -- '-gencode arch=compute_75,code=compute_75' "$b/Makefile" &&
	! grep -q -- 'code=sm_' "$b/Makefile"
ok $? "  no GPU: PTX of 7.5 only, which the driver of any GPU compiles" || _np_show

(cd "$b" && xml -q --with-cuda="$fake" --with-cuda-arch=sm_8x >"$TEST_OUT" 2>"$TEST_ERR")
rc=$?
[ "$rc" -ne 0 ] && grep -q "'8x' is not a compute capability" "$TEST_ERR"
ok $? "a malformed --with-cuda-arch is refused, naming it"
done_testing
