# SPDX-License-Identifier: MIT
# The topology module (topo/) and the topo command (src/cmd_topo.c).
libnp_a_SOURCES += src/cmd_topo.c \
	topo/model.c topo/model.h topo/topo.h topo/internal.h \
	topo/sysfs.c topo/sysfs.h \
	topo/source_hwloc.c topo/source_nccl.c topo/source_live.c \
	topo/gpu_live.c topo/gpu_live.h topo/nic_live.c \
	topo/discover.c topo/paths.c topo/checks.c topo/recommend.c \
	topo/snapshot.c topo/limits.c topo/limits.h

check_PROGRAMS += tests/unit/test_topo_limits tests/unit/test_topo_model
tests_unit_test_topo_limits_SOURCES = tests/unit/test_topo_limits.c tests/unit/tap.h
tests_unit_test_topo_limits_LDADD = $(UNIT_LDADD)
tests_unit_test_topo_model_SOURCES = tests/unit/test_topo_model.c tests/unit/tap.h
tests_unit_test_topo_model_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_topo_limits tests/unit/test_topo_model
