/* SPDX-License-Identifier: MIT */
/* Live GPU and NIC discovery back-ends of topo/source_live.c. */
#ifndef NP_TOPO_GPU_LIVE_H
#define NP_TOPO_GPU_LIVE_H

#include "model.h"
#include "sysfs.h"

/* Add the GPUs NVML lists (names, PCIe, BAR1, NVLinks) to t and their bus
 * ids to busids. Returns how many, or -1 when NVML is not usable (a note
 * says why). */
int np_gpu_live_nvml(struct np_topo *t, char busids[][NP_BUSID_LEN], int max);
/* GDR-supported and DMA-BUF-supported attributes of t's GPUs, from the CUDA
 * driver (dlopen of libcuda.so.1; any build). */
void np_gpu_live_cuda(struct np_topo *t);

/* An NVIDIA GPU among sysfs' PCI functions: vendor 0x10de and a display
 * class (np_pci_class_is_gpu). */
struct np_sysfs_gpu {
	char busid[NP_BUSID_LEN]; /* normalized (np_busid_norm) */
	char dir[NP_BUSID_LEN];   /* its name in sys/bus/pci/devices */
	unsigned device_id;       /* PCI device id; 0 if unreadable */
	bool nvidia_driver;       /* bound to the driver named "nvidia" */
};
/* The NVIDIA GPUs of sys/bus/pci/devices in name order, at most max: the
 * one sysfs scan for GPUs, which topo's GPU list (without NVML) and
 * health's list of the driver's GPUs both use. Returns how many, -1 when
 * the directory cannot be listed. */
int np_sysfs_gpus(const struct np_sysfs *fs, struct np_sysfs_gpu *out, int max);

/* NIC ports from sysfs (class/infiniband), refined by libibverbs when the
 * root is the real one; also probes ibv_reg_dmabuf_mr. */
void np_nic_live(struct np_topo *t, const struct np_sysfs *fs);
/* PCIe link (current and maximum gen and width) of a device from sysfs. */
void np_pcie_live(const struct np_sysfs *fs, const char *busid, struct np_pcie *l);

#endif
