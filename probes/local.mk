# SPDX-License-Identifier: MIT
# The collectives' check patterns: exact results on 1..1024 and 65536 ranks.
check_PROGRAMS += tests/unit/test_pattern
tests_unit_test_pattern_SOURCES = tests/unit/test_pattern.c tests/unit/tap.h
tests_unit_test_pattern_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_pattern
check_PROGRAMS += tests/unit/test_rotation
tests_unit_test_rotation_SOURCES = tests/unit/test_rotation.c tests/unit/tap.h
tests_unit_test_rotation_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_rotation
# the check on 64 host-backend ranks with a block misrouted between ranks 0 and 61
# (in TESTS through LONG_TESTS, tests/local.mk)
EXTRA_DIST += tests/t0010-sweep-check-fleet.sh
# per-node limits: partial nodes, uneven rank counts
check_PROGRAMS += tests/unit/test_bwlimits
tests_unit_test_bwlimits_SOURCES = tests/unit/test_bwlimits.c tests/unit/tap.h
tests_unit_test_bwlimits_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_bwlimits
# the collective vocabulary and every backend's issue table
check_PROGRAMS += tests/unit/test_coll
tests_unit_test_coll_SOURCES = tests/unit/test_coll.c tests/unit/tap.h
tests_unit_test_coll_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_coll
# the test-only switches NCCL_PROBE_TEST_*, one parser each
check_PROGRAMS += tests/unit/test_testhooks
tests_unit_test_testhooks_SOURCES = tests/unit/test_testhooks.c tests/unit/tap.h
tests_unit_test_testhooks_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_testhooks
# the switches left out (configure --disable-test-hooks): testhooks.c built
# here on its own with NP_TEST_HOOKS_OFF
check_PROGRAMS += tests/unit/test_testhooks_off
tests_unit_test_testhooks_off_SOURCES = tests/unit/test_testhooks_off.c common/testhooks.c tests/unit/tap.h
tests_unit_test_testhooks_off_CPPFLAGS = $(AM_CPPFLAGS) -DNP_TEST_HOOKS_OFF
TESTS += tests/unit/test_testhooks_off
