# SPDX-License-Identifier: MIT
# The NCCL backend and its device kernels, built when configure found
# CUDA and NCCL; the NCCL log reader and its test are built always.
EXTRA_DIST += probes/nccl_kernels.cu probes/nccl_kernels.h
libnp_a_SOURCES += probes/nccl_log.c probes/nccl_log.h
check_PROGRAMS += tests/unit/test_nccl_log
tests_unit_test_nccl_log_SOURCES = tests/unit/test_nccl_log.c tests/unit/tap.h
tests_unit_test_nccl_log_LDADD = libnp.a $(HWLOC_LIBS) $(XML_LIBS) $(VERBS_LIBS) $(NCCL_LIBS)
TESTS += tests/unit/test_nccl_log
if HAVE_NCCL
libnp_a_SOURCES += probes/backend_nccl.c probes/backend_nccl.h probes/backend_nccl_setup.c \
	probes/backend_nccl_issue.c probes/backend_nccl_run.c probes/backend_nccl_wait.c
libnp_a_LIBADD += probes/nccl_kernels.$(OBJEXT)
CLEANFILES += probes/nccl_kernels.$(OBJEXT)
probes/nccl_kernels.$(OBJEXT): probes/nccl_kernels.cu probes/nccl_kernels.h probes/pattern.h common/coll.h config.h
	@$(MKDIR_P) probes
	$(AM_V_GEN)$(NVCC) $(NVCCFLAGS) -I$(top_builddir) \
		-Xcompiler -fPIC -c -o $@ $(top_srcdir)/probes/nccl_kernels.cu
endif

# GPU tests: they skip (TAP "1..0 # SKIP") without a GPU or without the
# NCCL backend, so they are in every build's make check.
GPU_TESTS = tests/t3001-gpu-backend.sh tests/t3002-gpu-abort.sh tests/t3003-gpu-check.sh \
	tests/t3004-gpu-memory.sh tests/t3005-gpu-timeout.sh tests/t3006-gpu-ranks.sh \
	tests/t3007-gpu-virtual-ranks.sh tests/t3008-nccl-hostid-first.sh tests/t3009-gpu-tune.sh
TESTS += $(GPU_TESTS)
EXTRA_DIST += $(GPU_TESTS) tests/bench/nccl-compare.sh tests/bench/alltoall-compare.sh \
	tests/unit/env_witness.c
# what MPI_Init and the first CUDA/NCCL call saw in the environment
# (LD_PRELOAD), for t0030 and t3008; plain C, built in every build
ENV_WITNESS_LIB = tests/unit/libenvwitness.so
CLEANFILES += tests/unit/libenvwitness.so
tests/unit/libenvwitness.so: $(top_srcdir)/tests/unit/env_witness.c
	@$(MKDIR_P) tests/unit
	$(AM_V_CC)$(CC) -std=gnu11 -shared -fPIC -O1 -Wall -o $@ $(top_srcdir)/tests/unit/env_witness.c -ldl
if HAVE_NCCL
check_PROGRAMS += tests/unit/test_nccl
tests_unit_test_nccl_SOURCES = tests/unit/test_nccl.c tests/unit/tap.h
tests_unit_test_nccl_LDADD = libnp.a $(HWLOC_LIBS) $(XML_LIBS) $(VERBS_LIBS) $(NCCL_LIBS)
# the reference loop of the benchmark (tests/bench/nccl-compare.sh)
noinst_PROGRAMS += tests/bench/nccl_allreduce_loop
tests_bench_nccl_allreduce_loop_SOURCES = tests/bench/nccl_allreduce_loop.c
tests_bench_nccl_allreduce_loop_LDADD = $(NCCL_LIBS)
endif
