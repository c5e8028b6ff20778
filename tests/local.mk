# SPDX-License-Identifier: MIT
# Tests: C unit tests and shell integration tests, all TAP.
LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
SH_LOG_DRIVER = $(LOG_DRIVER)
TEST_EXTENSIONS = .sh
AM_TESTS_ENVIRONMENT = srcdir='$(abs_top_srcdir)'; top_builddir='$(abs_top_builddir)'; \
	export srcdir top_builddir;

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
	tests/t0008-validate.sh
check_PROGRAMS += tests/unit/test_stats
tests_unit_test_stats_SOURCES = tests/unit/test_stats.c tests/unit/tap.h
tests_unit_test_stats_LDADD = $(UNIT_LDADD)

TESTS += tests/unit/test_parse tests/unit/test_stats $(SWEEP_TESTS)

EXTRA_DIST += tests/lib.sh tests/fakesys.sh tests/check_report.py $(SWEEP_TESTS)

# benchmarks (built by make check, run by hand: see tests/bench/*.sh)
check_PROGRAMS += tests/bench/mpi_allreduce_loop
tests_bench_mpi_allreduce_loop_SOURCES = tests/bench/mpi_allreduce_loop.c
EXTRA_DIST += tests/bench/harness-overhead.sh
