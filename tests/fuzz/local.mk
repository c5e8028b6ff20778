# SPDX-License-Identifier: MIT
# Hostile-input regression cases (tests/fuzz/regress), the seeds the fuzz
# targets start from (tests/fuzz/seed), and the fuzz targets themselves
# (built with clang by tests/fuzz/run.sh, not by make).
TESTS += tests/t2010-topo-hostile-input.sh
EXTRA_DIST += tests/t2010-topo-hostile-input.sh tests/fuzz/regress/topo/EXPECT \
	$(FUZZ_REGRESS) $(FUZZ_SEEDS) tests/fuzz/run.sh tests/fuzz/xml.dict \
	tests/fuzz/fuzz_topo.h tests/fuzz/fuzz_hwloc.c tests/fuzz/fuzz_nccl.c \
	tests/fuzz/fuzz_snapshot.c tests/fuzz/fuzz_sizes.c tests/fuzz/crash_hwloc_load.c
FUZZ_REGRESS = \
	tests/fuzz/regress/topo/hwloc-attlist.xml \
	tests/fuzz/regress/topo/hwloc-busid-bad-device.xml \
	tests/fuzz/regress/topo/hwloc-cpukind-bad-cpuset.xml \
	tests/fuzz/regress/topo/hwloc-cpuset-on-pcidev.xml \
	tests/fuzz/regress/topo/hwloc-distances-nbobjs.xml \
	tests/fuzz/regress/topo/hwloc-doctype-no-system-id.xml \
	tests/fuzz/regress/topo/hwloc-duplicate-gpu-busid.xml \
	tests/fuzz/regress/topo/hwloc-entity.xml \
	tests/fuzz/regress/topo/hwloc-fuzz-bitmap-assert.xml \
	tests/fuzz/regress/topo/hwloc-fuzz-complete-cpuset-outside.xml \
	tests/fuzz/regress/topo/hwloc-fuzz-empty-allowed-cpuset.xml \
	tests/fuzz/regress/topo/hwloc-fuzz-slow-no-os-index.xml \
	tests/fuzz/regress/topo/hwloc-fuzz-text-among-objects.xml \
	tests/fuzz/regress/topo/hwloc-fuzz-timeout-no-os-index.xml \
	tests/fuzz/regress/topo/hwloc-internal-subset.xml \
	tests/fuzz/regress/topo/hwloc-link-speed-nan.xml \
	tests/fuzz/regress/topo/hwloc-machine-no-complete-cpuset.xml \
	tests/fuzz/regress/topo/hwloc-machine-no-complete-nodeset.xml \
	tests/fuzz/regress/topo/hwloc-numa-no-complete-nodeset.xml \
	tests/fuzz/regress/topo/hwloc-numa-os-index-huge.xml \
	tests/fuzz/regress/topo/hwloc-osdev-no-name.xml \
	tests/fuzz/regress/topo/hwloc-pu-no-complete-cpuset.xml \
	tests/fuzz/regress/topo/hwloc-pu-no-os-index.xml \
	tests/fuzz/regress/topo/hwloc-pu-outside-parent.xml \
	tests/fuzz/regress/topo/hwloc-root-not-machine.xml \
	tests/fuzz/regress/topo/nccl-cpu-numaid-huge.xml \
	tests/fuzz/regress/topo/nccl-duplicate-gpu-busid.xml \
	tests/fuzz/regress/topo/nccl-duplicate-nic.xml \
	tests/fuzz/regress/topo/nccl-entity-laughs.xml \
	tests/fuzz/regress/topo/nccl-external-entity.xml \
	tests/fuzz/regress/topo/nccl-gpu-gdr-negative.xml \
	tests/fuzz/regress/topo/nccl-link-width-bad.xml \
	tests/fuzz/regress/topo/nccl-net-port-wrap.xml \
	tests/fuzz/regress/topo/nccl-net-speed-1e30.xml \
	tests/fuzz/regress/topo/nccl-nvlink-count-overflow.xml \
	tests/fuzz/regress/topo/snapshot-duplicate-gpu.xml \
	tests/fuzz/regress/topo/snapshot-gpu-gdr-negative.xml \
	tests/fuzz/regress/topo/snapshot-gpu-nvlinks-huge.xml \
	tests/fuzz/regress/topo/snapshot-nic-port-wrap.xml \
	tests/fuzz/regress/topo/snapshot-nic-rate-1e30.xml
# an hwloc whose importer crashes (LD_PRELOAD): t2010 shows the answer is
# still one line and exit 64
FUZZ_CRASH_LIB = tests/fuzz/libcrashhwloc.so
CLEANFILES += tests/fuzz/libcrashhwloc.so
tests/fuzz/libcrashhwloc.so: $(top_srcdir)/tests/fuzz/crash_hwloc_load.c
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CC)$(CC) -std=gnu11 -shared -fPIC -O1 -Wall $(HWLOC_CFLAGS) -o $@ $(top_srcdir)/tests/fuzz/crash_hwloc_load.c

FUZZ_SEEDS = \
	tests/fuzz/seed/hwloc/small.xml \
	tests/fuzz/seed/hwloc/small-out-of-order.xml \
	tests/fuzz/seed/hwloc/snapshot-small.xml \
	tests/fuzz/seed/nccl/domain32.xml \
	tests/fuzz/seed/nccl/small.xml \
	tests/fuzz/seed/sizes/list.txt \
	tests/fuzz/seed/snapshot/records.txt

# the size parser's regression list, replayed in the ordinary build
check_PROGRAMS += tests/fuzz/replay_sizes
tests_fuzz_replay_sizes_SOURCES = tests/fuzz/replay_sizes.c
tests_fuzz_replay_sizes_LDADD = $(UNIT_LDADD)
TESTS += tests/fuzz/replay_sizes
EXTRA_DIST += tests/fuzz/regress/sizes/list.txt
