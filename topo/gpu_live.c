/* SPDX-License-Identifier: MIT */
/* Live GPU facts: NVML through dlopen("libnvidia-ml.so.1") with the few
 * prototypes declared here (no build-time NVML dependency), and CUDA's
 * GDR and DMA-BUF attributes through the driver API (dlopen of libcuda,
 * no context created, no build-time CUDA dependency either). */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "gpu_live.h"
#include "nvml_dl.h"

#define NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON 90
#define NVML_FEATURE_ENABLED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_NVLINK_DEVICE_TYPE_IBMNPU 1 /* the far end is a CPU (POWER) */

int np_sysfs_gpus(const struct np_sysfs *fs, struct np_sysfs_gpu *out, int max)
{
	char **names, rel[128], link[256];
	int k = np_sysfs_list(fs, "sys/bus/pci/devices", &names), n = 0;

	if (k < 0)
		return -1;
	for (int i = 0; i < k && n < max; i++) {
		struct np_sysfs_gpu *g = &out[n];
		const char *drv;
		long vendor, cls, device;
		if (strlen(names[i]) >= sizeof(g->dir))
			continue;
		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/vendor", names[i]);
		if (!np_sysfs_read_long(fs, rel, &vendor) || vendor != 0x10de)
			continue;
		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/class", names[i]);
		if (!np_sysfs_read_long(fs, rel, &cls) || !np_pci_class_is_gpu(cls))
			continue;
		if (!np_busid_norm(names[i], g->busid, sizeof(g->busid)))
			continue;
		snprintf(g->dir, sizeof(g->dir), "%s", names[i]);
		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/device", names[i]);
		g->device_id = np_sysfs_read_long(fs, rel, &device) ? (unsigned)device & 0xffff : 0;
		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/driver", names[i]);
		g->nvidia_driver = false;
		if (np_sysfs_readlink(fs, rel, link, sizeof(link))) {
			drv = strrchr(link, '/');
			g->nvidia_driver = !strcmp(drv ? drv + 1 : link, "nvidia");
		}
		n++;
	}
	np_sysfs_free_list(names, k);
	return n;
}

static bool nvml_open(struct np_nvml *a, struct np_topo *t)
{
	switch (np_nvml_open(a)) {
	case NP_NVML_OK: return true;
	case NP_NVML_NOT_FOUND:
		np_topo_note(t,
			     "NVML (%s) not found; GPU names, NVLinks and BAR1 are unknown (install the NVIDIA driver)",
			     np_nvml_lib_name());
		break;
	case NP_NVML_NO_SYMBOLS:
		np_topo_note(t,
			     "NVML library lacks nvmlInit_v2 or device queries; update the NVIDIA driver");
		break;
	case NP_NVML_NO_INIT:
		np_topo_note(t,
			     "NVML did not initialize (no NVIDIA driver loaded?); GPU facts come from sysfs");
		break;
	}
	return false;
}

/* Per-link one-direction GB/s of an NVLink version (when NVML has no
 * speed field): 1: 20, 2-4: 25, 5: 50. */
static double nvlink_version_gbps(unsigned v)
{
	return v == 1 ? 20 : v >= 2 && v <= 4 ? 25 : v >= 5 ? 50 : 0;
}

int np_gpu_live_nvml(struct np_topo *t, char busids[][NP_BUSID_LEN], int max)
{
	struct np_nvml a;
	unsigned int n = 0;
	nvmlDevice_t dev[NP_MAX_GPUS];
	char remote[NP_MAX_GPUS][NVML_NVLINK_MAX_LINKS][NP_BUSID_LEN];
	bool to_cpu[NP_MAX_GPUS][NVML_NVLINK_MAX_LINKS];
	int found = 0;

	if (!nvml_open(&a, t))
		return -1;
	t->host.nvml = NP_YES;
	if (a.count(&n) != 0)
		n = 0;
	memset(remote, 0, sizeof(remote));
	memset(to_cpu, 0, sizeof(to_cpu));
	for (unsigned i = 0; i < n && found < max && found < NP_MAX_GPUS; i++) {
		nvmlPciInfo_t pi;
		struct np_gpu *g;
		unsigned v;
		nvmlBAR1Memory_t bar;
		if (a.by_index(i, &dev[found]) != 0 || a.pci(dev[found], &pi) != 0)
			continue;
		if (!np_busid_norm(pi.busId, busids[found], NP_BUSID_LEN))
			continue;
		g = np_topo_gpu_add(t, busids[found]);
		if (!g)
			break;
		if (a.name)
			a.name(dev[found], g->name, sizeof(g->name));
		if (a.gen_cur && a.gen_cur(dev[found], &v) == 0)
			g->pcie.gen_cur = (int)v;
		if (a.gen_max && a.gen_max(dev[found], &v) == 0)
			g->pcie.gen_max = (int)v;
		if (a.width_cur && a.width_cur(dev[found], &v) == 0)
			g->pcie.width_cur = (int)v;
		if (a.width_max && a.width_max(dev[found], &v) == 0)
			g->pcie.width_max = (int)v;
		if (a.bar1 && a.bar1(dev[found], &bar) == 0)
			g->bar1_mib = bar.bar1Total >> 20;
		{
			int major = 0, minor = 0;
			if (a.cc && a.cc(dev[found], &major, &minor) == 0 && major > 0 &&
			    major < 20 && minor >= 0 && minor < 10)
				g->sm = major * 10 + minor;
		}
		if (a.nvl_state) /* else the NVLinks stay unknown */
			g->nvlinks = g->nvswitch_links = g->nvcpu_links = 0;
		for (unsigned l = 0, told = 0, failed = 0; a.nvl_state && l < NVML_NVLINK_MAX_LINKS;
		     l++) {
			int on = 0, type = -1, rc = a.nvl_state(dev[found], l, &on);
			nvmlPciInfo_t rp;
			/* NOT_SUPPORTED (a GPU or a VM without NVLink) and
			 * INVALID_ARGUMENT (past its last link) are answers;
			 * any other error leaves the count unknown */
			told += rc == NVML_SUCCESS || rc == NVML_ERROR_NOT_SUPPORTED ||
				rc == NVML_ERROR_INVALID_ARGUMENT;
			failed += !(rc == NVML_SUCCESS || rc == NVML_ERROR_NOT_SUPPORTED ||
				    rc == NVML_ERROR_INVALID_ARGUMENT);
			if (l == NVML_NVLINK_MAX_LINKS - 1 && failed && !told)
				g->nvlinks = g->nvswitch_links = g->nvcpu_links = NP_COUNT_UNKNOWN;
			if (rc != NVML_SUCCESS || on != NVML_FEATURE_ENABLED)
				continue;
			g->nvlinks++;
			if (a.nvl_remote_type && a.nvl_remote_type(dev[found], l, &type) == 0 &&
			    type == NVML_NVLINK_DEVICE_TYPE_IBMNPU) {
				to_cpu[found][l] = true;
				continue;
			}
			if (!g->nvlink_gbps && a.nvl_version &&
			    a.nvl_version(dev[found], l, &v) == 0)
				g->nvlink_gbps = nvlink_version_gbps(v);
			if (a.nvl_remote && a.nvl_remote(dev[found], l, &rp) == 0)
				np_busid_norm(rp.busId, remote[found][l], NP_BUSID_LEN);
		}
		if (g->nvlinks && a.fields) {
			nvmlFieldValue_t fv;
			memset(&fv, 0, sizeof(fv));
			fv.fieldId = NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON;
			if (a.fields(dev[found], 1, &fv) == 0 && fv.nvmlReturn == 0 &&
			    fv.value.uiVal > 0)
				g->nvlink_gbps = fv.value.uiVal / 1000.0;
		}
		if (g->nvlinks > 0 && !g->nvlink_gbps) /* no speed field, no known link version */
			g->nvlink_gbps = np_nvlink_gbps_of_sm(g->sm);
		found++;
	}
	/* an NVLink whose far end is not one of the GPUs ends at an NVSwitch */
	for (int i = 0; i < found; i++)
		for (int l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
			int peer = -1;
			if (to_cpu[i][l])
				t->gpus[t->ngpus - found + i].nvcpu_links++;
			if (!remote[i][l][0])
				continue;
			for (int j = 0; j < found; j++)
				if (!strcmp(busids[j], remote[i][l]))
					peer = j;
			if (peer >= 0)
				t->gpus[t->ngpus - found + i].nvpeer[t->ngpus - found + peer]++;
			else
				t->gpus[t->ngpus - found + i].nvswitch_links++;
		}
	np_nvml_close(&a);
	return found;
}

/* The CUDA driver API, as much as is used: CUresult and CUdevice are ints,
 * and the two attributes keep their numbers in every cuda.h since 11.7. */
#define NP_CUDA_SUCCESS 0
#define NP_CU_ATTR_GPU_DIRECT_RDMA_SUPPORTED 116
#define NP_CU_ATTR_DMA_BUF_SUPPORTED 124

void np_gpu_live_cuda(struct np_topo *t)
{
	void *lib;
	int (*init)(unsigned int);
	int (*by_bus)(int *, const char *);
	int (*get_attr)(int *, int, int);

	if (t->ngpus == 0)
		return;
	/* the driver stays loaded once initialized: the CUDA runtime and NCCL
	 * use it later in the same process, and unloading an initialized
	 * driver is not something it supports */
	lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!lib) {
		np_topo_note(t,
			     "CUDA driver (libcuda.so.1) not found; the GPUs' GDR and DMA-BUF attributes are unknown");
		return;
	}
	*(void **)&init = dlsym(lib, "cuInit");
	*(void **)&by_bus = dlsym(lib, "cuDeviceGetByPCIBusId");
	*(void **)&get_attr = dlsym(lib, "cuDeviceGetAttribute");
	if (!init || !by_bus || !get_attr || init(0) != NP_CUDA_SUCCESS) {
		np_topo_note(t,
			     "the CUDA driver did not initialize; the GPUs' GDR and DMA-BUF attributes are unknown");
		return;
	}
	for (int i = 0; i < t->ngpus; i++) {
		int d, v;
		if (by_bus(&d, t->gpus[i].busid) != NP_CUDA_SUCCESS)
			continue; /* hidden by CUDA_VISIBLE_DEVICES */
		if (get_attr(&v, NP_CU_ATTR_GPU_DIRECT_RDMA_SUPPORTED, d) == NP_CUDA_SUCCESS)
			t->gpus[i].gdr = v ? NP_YES : NP_NO;
		if (get_attr(&v, NP_CU_ATTR_DMA_BUF_SUPPORTED, d) == NP_CUDA_SUCCESS)
			t->gpus[i].dmabuf = v ? NP_YES : NP_NO;
	}
}
