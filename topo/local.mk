# SPDX-License-Identifier: MIT
# The topology module (topo/) and the topo command (src/cmd_topo.c).
libnp_a_SOURCES += src/cmd_topo.c src/topo_report.c src/topo_doc.c src/topo_report.h src/topo_report_internal.h \
	topo/model.c topo/model.h topo/topo.h topo/internal.h \
	topo/sysfs.c topo/sysfs.h \
	topo/source_hwloc.c topo/source_nccl.c topo/source_live.c \
	topo/gpu_live.c topo/gpu_live.h topo/nvml_dl.c topo/nvml_dl.h topo/ethtool.c topo/ethtool.h topo/nic_live.c \
	topo/discover.c topo/xmlfile.c topo/xmlfile_hwloc.c topo/xmlfile.h topo/paths.c topo/checks.c topo/checks_gdr.c topo/recommend.c \
	topo/snapshot.c topo/bwlimits.c topo/bwlimits.h
libnp_a_SOURCES += topo/health.c topo/health_live.c topo/health_nvml.c topo/health_xid.c topo/health.h \
	src/health_report.c src/health_report.h \
	probes/gpu_load.c probes/gpu_load.h

check_PROGRAMS += tests/unit/test_topo_limits tests/unit/test_topo_model
tests_unit_test_topo_limits_SOURCES = tests/unit/test_topo_limits.c tests/unit/tap.h
tests_unit_test_topo_limits_LDADD = $(UNIT_LDADD)
tests_unit_test_topo_model_SOURCES = tests/unit/test_topo_model.c tests/unit/tap.h
tests_unit_test_topo_model_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_topo_limits tests/unit/test_topo_model
# the sysfs scan for GPUs on a fake tree
check_PROGRAMS += tests/unit/test_sysfs_gpus
tests_unit_test_sysfs_gpus_SOURCES = tests/unit/test_sysfs_gpus.c tests/unit/tap.h
tests_unit_test_sysfs_gpus_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_sysfs_gpus

TESTS += tests/t2001-topo-usage.sh tests/t2002-topo-fixtures.sh \
	tests/t2003-topo-fakesys.sh tests/t2004-topo-live.sh tests/t2005-topo-truth.sh \
	tests/t2006-topo-hwloc-import.sh tests/t2011-topo-fsroot.sh
EXTRA_DIST += tests/t2001-topo-usage.sh tests/t2002-topo-fixtures.sh \
	tests/t2003-topo-fakesys.sh tests/t2004-topo-live.sh tests/t2005-topo-truth.sh \
	tests/t2006-topo-hwloc-import.sh tests/t2011-topo-fsroot.sh tests/topo/README tests/topo/golden.sh tests/topo/truth.py tests/topo/pci.ids \
	$(TOPO_GOLDEN) $(TOPO_TRUTH) $(TOPO_EDGE) $(TOPO_PUBLIC)
TOPO_PUBLIC = \
	tests/topo/hwloc/hwloc1-16-2gr2gr2n2c-misc.xml tests/topo/hwloc/hwloc1-16-2gr2gr2n2c-misc.truth \
	tests/topo/hwloc/hwloc1-16em64t-4s2c2t.xml tests/topo/hwloc/hwloc1-16em64t-4s2c2t.truth \
	tests/topo/hwloc/hwloc1-16intel64-manyVFs.xml tests/topo/hwloc/hwloc1-16intel64-manyVFs.truth \
	tests/topo/hwloc/hwloc1-24em64t-2n6c2t-pci.xml tests/topo/hwloc/hwloc1-24em64t-2n6c2t-pci.truth \
	tests/topo/hwloc/hwloc1-2intel64-1n2c-numaroot.xml tests/topo/hwloc/hwloc1-2intel64-1n2c-numaroot.truth \
	tests/topo/hwloc/hwloc1-64intel64-fakeKNL-SNC4-hybrid.xml tests/topo/hwloc/hwloc1-64intel64-fakeKNL-SNC4-hybrid.truth \
	tests/topo/hwloc/mpibind-arm64-ulna-hwloc1.xml tests/topo/hwloc/mpibind-arm64-ulna-hwloc1.truth \
	tests/topo/hwloc/mpibind-cascade-lake-ap-snl-hwloc1.xml tests/topo/hwloc/mpibind-cascade-lake-ap-snl-hwloc1.truth \
	tests/topo/hwloc/mpibind-coral-ea-hwloc1.xml tests/topo/hwloc/mpibind-coral-ea-hwloc1.truth \
	tests/topo/hwloc/mpibind-coral-lassen.xml tests/topo/hwloc/mpibind-coral-lassen.truth \
	tests/topo/hwloc/mpibind-coral-lassen-hwloc1.xml tests/topo/hwloc/mpibind-coral-lassen-hwloc1.truth \
	tests/topo/hwloc/mpibind-cts1-pascal.xml tests/topo/hwloc/mpibind-cts1-pascal.truth \
	tests/topo/hwloc/mpibind-eas-tioga.xml tests/topo/hwloc/mpibind-eas-tioga.truth \
	tests/topo/hwloc/mpibind-epyc-corona.xml tests/topo/hwloc/mpibind-epyc-corona.truth \
	tests/topo/hwloc/mpibind-epyc-corona-hwloc1.xml tests/topo/hwloc/mpibind-epyc-corona-hwloc1.truth \
	tests/topo/hwloc/mpibind-epyc-corona-p2.xml tests/topo/hwloc/mpibind-epyc-corona-p2.truth \
	tests/topo/hwloc/mpibind-epyc-dual-sock-hwloc1.xml tests/topo/hwloc/mpibind-epyc-dual-sock-hwloc1.truth \
	tests/topo/hwloc/mpibind-g4dnmetal.xml tests/topo/hwloc/mpibind-g4dnmetal.truth \
	tests/topo/nccl/aws-g5-48xl-topo.xml tests/topo/nccl/aws-g5-48xl-topo.truth \
	tests/topo/nccl/aws-p4de-24xl-topo.xml tests/topo/nccl/aws-p4de-24xl-topo.truth \
	tests/topo/nccl/aws-p5-48xl-topo.xml tests/topo/nccl/aws-p5-48xl-topo.truth \
	tests/topo/nccl/azure-ncv4-topo.xml tests/topo/nccl/azure-ncv4-topo.truth \
	tests/topo/nccl/azure-ndv5-topo.xml tests/topo/nccl/azure-ndv5-topo.truth \
	tests/topo/nccl/rccl-mi100-4p4h-topo.xml tests/topo/nccl/rccl-mi100-4p4h-topo.truth \
	tests/topo/nccl/rccl-mi100-8p6l-topo.xml tests/topo/nccl/rccl-mi100-8p6l-topo.truth \
	tests/topo/nccl/rccl-mi100-rome-4nics-topo.xml tests/topo/nccl/rccl-mi100-rome-4nics-topo.truth \
	tests/topo/nccl/rccl-mi200-8p-90a-topo.xml tests/topo/nccl/rccl-mi200-8p-90a-topo.truth \
	tests/topo/nccl/rccl-mi200-8p1h-topo.xml tests/topo/nccl/rccl-mi200-8p1h-topo.truth \
	tests/topo/nccl/rccl-mi300a-4p-topo.xml tests/topo/nccl/rccl-mi300a-4p-topo.truth \
	tests/topo/nccl/rccl-mi300x-8p-940-topo.xml tests/topo/nccl/rccl-mi300x-8p-940-topo.truth \
	tests/topo/nccl/rccl-mi50-4p1h-topo.xml tests/topo/nccl/rccl-mi50-4p1h-topo.truth \
	tests/topo/nccl/rccl-mi50-8p-ts1-topo.xml tests/topo/nccl/rccl-mi50-8p-ts1-topo.truth
TOPO_TRUTH = \
	tests/topo/truth/aws-p4d.truth tests/topo/truth/aws-p4d-24xl-topo.truth \
	tests/topo/truth/azure-ndv2-topo.truth tests/topo/truth/azure-ndv4-topo.truth \
	tests/topo/truth/h200-vm-1gpu.truth tests/topo/truth/hwloc-24em64t-2n6c2t-pci.truth \
	tests/topo/truth/hwloc-32em64t-2n8c2t-pci-wholeio.truth \
	tests/topo/truth/hwloc-96em64t-4n4d3ca2co-pci.truth \
	tests/topo/truth/hwloc-nvidiaDGX2.truth tests/topo/truth/hwloc-power8gpudistances.truth
TOPO_EDGE = \
	tests/topo/edge/hwloc-bcm-gen5.xml tests/topo/edge/hwloc-bcm-gen5.truth \
	tests/topo/edge/hwloc-power9-nobridges.xml tests/topo/edge/hwloc-power9-nobridges.truth \
	tests/topo/edge/hwloc-slingshot.xml tests/topo/edge/hwloc-slingshot.truth \
	tests/topo/edge/hwloc-vm-flat.xml tests/topo/edge/hwloc-vm-flat.truth \
	tests/topo/edge/hwloc1-one-numa.xml tests/topo/edge/hwloc1-one-numa.truth \
	tests/topo/edge/nccl-amd-gpu.xml tests/topo/edge/nccl-amd-gpu.truth \
	tests/topo/edge/nccl-bcm-gen5.xml tests/topo/edge/nccl-bcm-gen5.truth \
	tests/topo/edge/nccl-bcm-gen5-noids.xml tests/topo/edge/nccl-bcm-gen5-noids.truth \
	tests/topo/edge/nccl-cross-nic.xml tests/topo/edge/nccl-cross-nic.truth \
	tests/topo/edge/nccl-gdr-nvlink.xml tests/topo/edge/nccl-gdr-nvlink.truth \
	tests/topo/edge/nccl-gdr-zero.xml tests/topo/edge/nccl-gdr-zero.truth \
	tests/topo/edge/nccl-gb10.xml tests/topo/edge/nccl-gb10.truth \
	tests/topo/edge/nccl-gdr-zero-far.xml tests/topo/edge/nccl-gdr-zero-far.truth \
	tests/topo/edge/nccl-grace-c2c.xml tests/topo/edge/nccl-grace-c2c.truth \
	tests/topo/edge/nccl-mgmt-nic.xml tests/topo/edge/nccl-mgmt-nic.truth \
	tests/topo/edge/nccl-mnnvl.xml tests/topo/edge/nccl-mnnvl.truth \
	tests/topo/edge/nccl-nvlink-odd.xml tests/topo/edge/nccl-nvlink-odd.truth \
	tests/topo/edge/nccl-pci-sockets.xml tests/topo/edge/nccl-pci-sockets.truth \
	tests/topo/edge/nccl-pxn.xml tests/topo/edge/nccl-pxn.truth \
	tests/topo/edge/nccl-skeleton.xml tests/topo/edge/nccl-skeleton.truth \
	tests/topo/edge/nccl-socket-only.xml tests/topo/edge/nccl-socket-only.truth \
	tests/topo/edge/nccl-virtual-repeated.xml tests/topo/edge/nccl-virtual-repeated.truth
TOPO_GOLDEN = \
	tests/topo/aws-p4d.txt tests/topo/aws-p4d.json \
	tests/topo/aws-p4d-24xl-topo.txt tests/topo/aws-p4d-24xl-topo.json \
	tests/topo/azure-ndv2-topo.txt tests/topo/azure-ndv2-topo.json \
	tests/topo/azure-ndv4-topo.txt tests/topo/azure-ndv4-topo.json \
	tests/topo/h200-vm-1gpu.txt tests/topo/h200-vm-1gpu.json \
	tests/topo/hwloc-24em64t-2n6c2t-pci.txt tests/topo/hwloc-24em64t-2n6c2t-pci.json \
	tests/topo/hwloc-32em64t-2n8c2t-pci-wholeio.txt tests/topo/hwloc-32em64t-2n8c2t-pci-wholeio.json \
	tests/topo/hwloc-96em64t-4n4d3ca2co-pci.txt tests/topo/hwloc-96em64t-4n4d3ca2co-pci.json \
	tests/topo/hwloc-nvidiaDGX2.txt tests/topo/hwloc-nvidiaDGX2.json \
	tests/topo/hwloc-power8gpudistances.txt tests/topo/hwloc-power8gpudistances.json
check_PROGRAMS += tests/unit/test_health
tests_unit_test_health_SOURCES = tests/unit/test_health.c tests/unit/tap.h
tests_unit_test_health_LDADD = $(UNIT_LDADD)
TESTS += tests/unit/test_health
# XIDs from a kernel log planted in a fake tree
TESTS += tests/t2506-health-xid.sh
EXTRA_DIST += tests/t2506-health-xid.sh
