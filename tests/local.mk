# SPDX-License-Identifier: MIT
# Tests: C unit tests and shell integration tests, all TAP.
LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
SH_LOG_DRIVER = $(LOG_DRIVER)
TEST_EXTENSIONS = .sh
AM_TESTS_ENVIRONMENT = srcdir='$(abs_top_srcdir)'; top_builddir='$(abs_top_builddir)'; CC='$(CC)'; \
	NP_XML_CFLAGS='$(XML_CFLAGS)'; NP_XML_LIBS='$(XML_LIBS)'; NP_SANITIZED='$(SAN_CFLAGS)'; \
	export srcdir top_builddir CC NP_XML_CFLAGS NP_XML_LIBS NP_SANITIZED;

UNIT_LDADD = libnp.a $(HWLOC_LIBS) $(XML_LIBS) $(VERBS_LIBS) $(NCCL_LIBS)

check_PROGRAMS += tests/unit/test_parse
tests_unit_test_parse_SOURCES = tests/unit/test_parse.c tests/unit/tap.h
tests_unit_test_parse_LDADD = $(UNIT_LDADD)

SWEEP_TESTS = \
	tests/t0001-sweep-ranks.sh \
	tests/t0002-sweep-bad-input.sh \
	tests/t0003-sweep-check.sh \
	tests/t0004-sweep-output.sh \
	tests/t0005-docs.sh \
	tests/t0006-sweep-timeout.sh \
	tests/t0007-sweep-limits.sh \
	tests/t0008-validate.sh \
	tests/t0009-build-headers.sh \
	tests/t0018-isolate.sh \
	tests/t0017-build-cuda-layout.sh \
	tests/t0011-output-files.sh \
	tests/t0012-sweep-signals.sh \
	tests/t0020-launch.sh \
	tests/t0021-nccl-tests-options.sh \
	tests/t0022-json-schema.sh \
	tests/t0023-nccl-tests-format.sh \
	tests/t0025-nccl-tests-readers.sh \
	tests/t0024-help.sh \
	tests/t0034-tune.sh \
	tests/t0013-contrib-shellcheck.sh \
	tests/t0014-contrib-slurm.sh \
	tests/t0015-contrib-install.sh \
	tests/t0016-contrib-prolog-nhc.sh
# the checked integer parser (common/number.c)
check_PROGRAMS += tests/unit/test_number
tests_unit_test_number_SOURCES = tests/unit/test_number.c tests/unit/tap.h
tests_unit_test_number_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_number

check_PROGRAMS += tests/unit/test_stats
tests_unit_test_stats_SOURCES = tests/unit/test_stats.c tests/unit/tap.h
tests_unit_test_stats_LDADD = $(UNIT_LDADD)

check_PROGRAMS += tests/unit/test_tune
tests_unit_test_tune_SOURCES = tests/unit/test_tune.c tests/unit/tap.h
tests_unit_test_tune_LDADD = $(UNIT_LDADD)

# the measurement engine on a stub backend: its stopping rules
check_PROGRAMS += tests/unit/test_measure
tests_unit_test_measure_SOURCES = tests/unit/test_measure.c tests/unit/tap.h
tests_unit_test_measure_LDADD = $(UNIT_LDADD)
# isolate's judging without MPI: each rule, and runs on a planted fleet
check_PROGRAMS += tests/unit/test_isolate_judge
tests_unit_test_isolate_judge_SOURCES = tests/unit/test_isolate_judge.c tests/unit/iso_fixture.h tests/unit/tap.h
tests_unit_test_isolate_judge_LDADD = $(UNIT_LDADD)
# isolate --topology: Slurm's topology.conf for the job's nodes
check_PROGRAMS += tests/unit/test_isolate_chance
tests_unit_test_isolate_chance_SOURCES = tests/unit/test_isolate_chance.c tests/unit/iso_fixture.h tests/unit/tap.h
tests_unit_test_isolate_chance_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_isolate_chance

check_PROGRAMS += tests/unit/test_isolate_topology
tests_unit_test_isolate_topology_SOURCES = tests/unit/test_isolate_topology.c tests/unit/tap.h
tests_unit_test_isolate_topology_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_isolate_topology
# tune's decisions: each rule on figures by hand
check_PROGRAMS += tests/unit/test_tune_judge
tests_unit_test_tune_judge_SOURCES = tests/unit/test_tune_judge.c tests/unit/tap.h
tests_unit_test_tune_judge_LDADD = $(UNIT_LDADD)
# the table's summary: the busbw at the largest size and the peak beside it
check_PROGRAMS += tests/unit/test_report
tests_unit_test_report_SOURCES = tests/unit/test_report.c tests/unit/tap.h
tests_unit_test_report_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_report

# the metric table: every format's columns are its rows; one decimal rule
check_PROGRAMS += tests/unit/test_metrics
tests_unit_test_metrics_SOURCES = tests/unit/test_metrics.c tests/unit/tap.h
tests_unit_test_metrics_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_metrics

# the sweep's verdict: thresholds, unknown limits, wrong data, exit codes
check_PROGRAMS += tests/unit/test_sweep_verdict
tests_unit_test_sweep_verdict_SOURCES = tests/unit/test_sweep_verdict.c tests/unit/tap.h
tests_unit_test_sweep_verdict_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_sweep_verdict

# a report's notes: every one kept, whole, in order
check_PROGRAMS += tests/unit/test_notes
tests_unit_test_notes_SOURCES = tests/unit/test_notes.c tests/unit/tap.h
tests_unit_test_notes_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_notes

# text from a file or another rank as printed: controls escaped
check_PROGRAMS += tests/unit/test_printable
tests_unit_test_printable_SOURCES = tests/unit/test_printable.c tests/unit/tap.h
tests_unit_test_printable_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_printable

TESTS += tests/unit/test_parse tests/unit/test_stats tests/unit/test_tune tests/unit/test_measure tests/unit/test_isolate_judge \
	tests/unit/test_tune_judge $(SWEEP_TESTS)

EXTRA_DIST += tests/README tests/lib.sh tests/fakesys.sh tests/slurm-local.sh tests/check_report.py $(SWEEP_TESTS) \
	tests/nccl_tests_parse.py tests/nccl_tests_readers.py tests/nccl-tests/README tests/nccl-tests/all_reduce_perf-h200.txt

# benchmarks (built by make check, run by hand: see tests/bench/*.sh)
check_PROGRAMS += tests/bench/mpi_allreduce_loop
tests_bench_mpi_allreduce_loop_SOURCES = tests/bench/mpi_allreduce_loop.c
EXTRA_DIST += tests/bench/harness-overhead.sh tests/bench/thread-level.sh tests/bench/isolate-accuracy.sh \
	tests/bench/speed-vs-nccl-tests.sh tests/bench/compare-rates.sh tests/bench/tune-aa.sh \
	tests/bench/cache-vs-nccl-tests.sh tests/bench/vnodes-vs-nccl-tests.sh tests/bench/nt-build.sh \
	tests/bench/vnode_host.c
include tests/fuzz/local.mk

# Node health (topo): the fake NVML that the tests load in place of
# libnvidia-ml.so.1 through NCCL_PROBE_NVML_LIB, a plain shared library.
HEALTH_TESTS = tests/t2501-health-gpu.sh tests/t2502-health-nic.sh \
	tests/t2503-health-host.sh tests/t2504-health-fleet.sh tests/t2505-health-live.sh
TESTS += $(HEALTH_TESTS)
EXTRA_DIST += $(HEALTH_TESTS) tests/fakenvml/fake_nvml.c
check_DATA = tests/fakenvml/libfakenvml.so $(FUZZ_CRASH_LIB) $(ENV_WITNESS_LIB) $(CLOCK_STEP_LIB)
# MPI's thread level and NCCL's log set before MPI_Init (the witness is
# built in probes/nccl.mk); the watchdog across a step of the wall clock
TESTS += tests/t0030-sweep-threads-env.sh tests/t0031-sweep-clock-step.sh
EXTRA_DIST += tests/t0030-sweep-threads-env.sh tests/t0031-sweep-clock-step.sh tests/unit/clock_step.c
CLOCK_STEP_LIB = tests/unit/libclockstep.so
CLEANFILES += tests/unit/libclockstep.so
tests/unit/libclockstep.so: $(top_srcdir)/tests/unit/clock_step.c
	@$(MKDIR_P) tests/unit
	$(AM_V_CC)$(CC) -std=gnu11 -shared -fPIC -O1 -Wall -o $@ $(top_srcdir)/tests/unit/clock_step.c -ldl
CLEANFILES += tests/fakenvml/libfakenvml.so
tests/fakenvml/libfakenvml.so: $(top_srcdir)/tests/fakenvml/fake_nvml.c
	@$(MKDIR_P) tests/fakenvml
	$(AM_V_CC)$(CC) -std=gnu11 -shared -fPIC -O1 -Wall -o $@ $(top_srcdir)/tests/fakenvml/fake_nvml.c

# compare: the JSON reader and the shift statistic (unit), two runs
# compared (tests/t0032)
check_PROGRAMS += tests/unit/test_compare
tests_unit_test_compare_SOURCES = tests/unit/test_compare.c tests/unit/tap.h
tests_unit_test_compare_LDADD = $(UNIT_LDADD)
# the document tree: one tree written as the table and as JSON
check_PROGRAMS += tests/unit/test_doc
tests_unit_test_doc_SOURCES = tests/unit/test_doc.c tests/unit/tap.h
tests_unit_test_doc_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_doc
check_PROGRAMS += tests/unit/test_compare_judge
tests_unit_test_compare_judge_SOURCES = tests/unit/test_compare_judge.c tests/unit/tap.h
tests_unit_test_compare_judge_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_compare tests/unit/test_compare_judge tests/t0032-compare.sh
EXTRA_DIST += tests/t0032-compare.sh
# contrib/nccl-probe-plot on this build's reports
TESTS += tests/t0033-plot.sh
EXTRA_DIST += tests/t0033-plot.sh
# the Debian package and the RPM, built from a clone of HEAD (and, as
# root, the .deb installed, run and removed)
EXTRA_DIST += tests/t0050-package.sh
# contrib/nccl-probe-validate's files and names; the operator's cases under a real Slurm
CONTRIB_OPS_TESTS = tests/t0040-contrib-validate-files.sh tests/t0041-contrib-slurm-operator.sh \
	tests/t0046-contrib-slurm-names.sh
TESTS += $(CONTRIB_OPS_TESTS)
EXTRA_DIST += $(CONTRIB_OPS_TESTS)

# the longest tests that judge no timing, which the harness starts first
# (Makefile.am): a package build, a Slurm node down, 64 ranks. Those that
# judge timing (t0018, t0016) keep their places: beside the package's
# compilers, t0018 once named a slow node's network instead of the node
LONG_TESTS = tests/t0050-package.sh tests/t0047-contrib-slurm-node-down.sh tests/t0010-sweep-check-fleet.sh
EXTRA_DIST += tests/t0047-contrib-slurm-node-down.sh

# output files of one run, readers of untrusted files
OUTPUT_TESTS = tests/t0060-output-group.sh tests/t0061-readers-untrusted.sh
TESTS += $(OUTPUT_TESTS)
EXTRA_DIST += $(OUTPUT_TESTS)
# --metrics files parsed with prometheus_client against the same runs' JSON
TESTS += tests/t0062-metrics.sh
EXTRA_DIST += tests/t0062-metrics.sh tests/metrics_check.py
# the prolog's counts and settings; the prolog and epilog under a real
# Slurm; a rank killed by SIGKILL named (by mpirun, and in a Slurm job step),
# and nothing of it left in TMPDIR; the NHC check's counts
CONTRIB_PROLOG_TESTS = tests/t0042-contrib-prolog-counts.sh tests/t0043-contrib-prolog-slurm.sh \
	tests/t0044-sweep-killed-rank.sh tests/t0045-sweep-killed-rank-tmp.sh tests/t0048-contrib-nhc-counts.sh \
	tests/t0049-slurm-killed-rank.sh
TESTS += $(CONTRIB_PROLOG_TESTS)
EXTRA_DIST += $(CONTRIB_PROLOG_TESTS)
# isolate's planning and judging over simulated fleets (make isolate-sim;
# run by hand at scale, see its header; tests/t0063 runs it small)
check_PROGRAMS += tests/bench/isolate-sim
tests_bench_isolate_sim_SOURCES = tests/bench/isolate-sim.c
tests_bench_isolate_sim_LDADD = $(UNIT_LDADD)
isolate-sim: tests/bench/isolate-sim$(EXEEXT)
.PHONY: isolate-sim
TESTS += tests/t0063-isolate-sim.sh
EXTRA_DIST += tests/t0063-isolate-sim.sh
# every C source formatted by the clang-format version .clang-format names
TESTS += tests/t0095-format.sh
EXTRA_DIST += tests/t0095-format.sh
