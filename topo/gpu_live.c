/* SPDX-License-Identifier: MIT */
/* Live GPU facts: NVML through dlopen("libnvidia-ml.so.1") with the few
 * prototypes declared here (no build-time NVML dependency), and CUDA's
 * GDR and DMA-BUF attributes through the driver API (dlopen of libcuda,
 * no context created) where the build has CUDA. */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#ifdef HAVE_CUDA
#include <cuda.h>
#endif

#include "gpu_live.h"

/* NVML's ABI, as much as is used. */
typedef int nvmlReturn_t; /* NVML_SUCCESS = 0 */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;
typedef struct {
	unsigned long long bar1Total, bar1Free, bar1Used;
} nvmlBAR1Memory_t;
typedef union {
	double dVal;
	unsigned int uiVal;
	unsigned long ulVal;
	unsigned long long ullVal;
	signed long long sllVal;
} nvmlValue_t;
typedef struct {
	unsigned int fieldId, scopeId;
	long long timestamp, latencyUsec;
	int valueType;
	nvmlReturn_t nvmlReturn;
	nvmlValue_t value;
} nvmlFieldValue_t;
#define NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON 90
#define NVML_NVLINK_MAX_LINKS 18
#define NVML_FEATURE_ENABLED 1

struct nvml_api {
	void *lib;
	nvmlReturn_t (*init)(void);
	nvmlReturn_t (*shutdown)(void);
	nvmlReturn_t (*count)(unsigned int *);
	nvmlReturn_t (*by_index)(unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*pci)(nvmlDevice_t, nvmlPciInfo_t *);
	nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned int);
	nvmlReturn_t (*gen_cur)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*gen_max)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*width_cur)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*width_max)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*bar1)(nvmlDevice_t, nvmlBAR1Memory_t *);
	nvmlReturn_t (*nvl_state)(nvmlDevice_t, unsigned int, int *);
	nvmlReturn_t (*nvl_version)(nvmlDevice_t, unsigned int, unsigned int *);
	nvmlReturn_t (*nvl_remote)(nvmlDevice_t, unsigned int, nvmlPciInfo_t *);
	nvmlReturn_t (*fields)(nvmlDevice_t, int, nvmlFieldValue_t *);
};

#define SYM(api, field, name) (*(void **)&(api)->field = dlsym((api)->lib, name))

static bool nvml_open(struct nvml_api *a, struct np_topo *t)
{
	memset(a, 0, sizeof(*a));
	a->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!a->lib) {
		np_topo_note(t, "NVML (libnvidia-ml.so.1) not found; GPU names, NVLinks and BAR1 are unknown (install the NVIDIA driver)");
		return false;
	}
	SYM(a, init, "nvmlInit_v2");
	SYM(a, shutdown, "nvmlShutdown");
	SYM(a, count, "nvmlDeviceGetCount_v2");
	SYM(a, by_index, "nvmlDeviceGetHandleByIndex_v2");
	SYM(a, pci, "nvmlDeviceGetPciInfo_v3");
	SYM(a, name, "nvmlDeviceGetName");
	SYM(a, gen_cur, "nvmlDeviceGetCurrPcieLinkGeneration");
	SYM(a, gen_max, "nvmlDeviceGetMaxPcieLinkGeneration");
	SYM(a, width_cur, "nvmlDeviceGetCurrPcieLinkWidth");
	SYM(a, width_max, "nvmlDeviceGetMaxPcieLinkWidth");
	SYM(a, bar1, "nvmlDeviceGetBAR1MemoryInfo");
	SYM(a, nvl_state, "nvmlDeviceGetNvLinkState");
	SYM(a, nvl_version, "nvmlDeviceGetNvLinkVersion");
	SYM(a, nvl_remote, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
	SYM(a, fields, "nvmlDeviceGetFieldValues");
	if (!a->init || !a->shutdown || !a->count || !a->by_index || !a->pci) {
		np_topo_note(t, "NVML library lacks nvmlInit_v2 or device queries; update the NVIDIA driver");
		dlclose(a->lib);
		a->lib = NULL;
		return false;
	}
	if (a->init() != 0) {
		np_topo_note(t, "NVML did not initialize (no NVIDIA driver loaded?); GPU facts come from sysfs");
		dlclose(a->lib);
		a->lib = NULL;
		return false;
	}
	return true;
}

static void nvml_close(struct nvml_api *a)
{
	if (!a->lib)
		return;
	a->shutdown();
	dlclose(a->lib);
	a->lib = NULL;
}

/* Per-link one-direction GB/s of an NVLink version (when NVML has no
 * speed field): 1: 20, 2-4: 25, 5: 50. */
static double nvlink_version_gbps(unsigned v)
{
	return v == 1 ? 20 : v >= 2 && v <= 4 ? 25 : v >= 5 ? 50 : 0;
}

int np_gpu_live_nvml(struct np_topo *t, char busids[][NP_BUSID_LEN], int max)
{
	struct nvml_api a;
	unsigned int n = 0;
	nvmlDevice_t dev[NP_MAX_GPUS];
	char remote[NP_MAX_GPUS][NVML_NVLINK_MAX_LINKS][NP_BUSID_LEN];
	int found = 0;

	if (!nvml_open(&a, t))
		return -1;
	t->host.nvml = NP_YES;
	if (a.count(&n) != 0)
		n = 0;
	memset(remote, 0, sizeof(remote));
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
		t->nvlink_known = a.nvl_state != NULL;
		for (unsigned l = 0; a.nvl_state && l < NVML_NVLINK_MAX_LINKS; l++) {
			int on = 0;
			nvmlPciInfo_t rp;
			if (a.nvl_state(dev[found], l, &on) != 0 || on != NVML_FEATURE_ENABLED)
				continue;
			g->nvlinks++;
			if (!g->nvlink_gbps && a.nvl_version && a.nvl_version(dev[found], l, &v) == 0)
				g->nvlink_gbps = nvlink_version_gbps(v);
			if (a.nvl_remote && a.nvl_remote(dev[found], l, &rp) == 0)
				np_busid_norm(rp.busId, remote[found][l], NP_BUSID_LEN);
		}
		if (g->nvlinks && a.fields) {
			nvmlFieldValue_t fv;
			memset(&fv, 0, sizeof(fv));
			fv.fieldId = NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON;
			if (a.fields(dev[found], 1, &fv) == 0 && fv.nvmlReturn == 0 && fv.value.uiVal > 0)
				g->nvlink_gbps = fv.value.uiVal / 1000.0;
		}
		found++;
	}
	/* an NVLink whose far end is not one of the GPUs ends at an NVSwitch */
	for (int i = 0; i < found; i++)
		for (int l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
			int peer = -1;
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
	nvml_close(&a);
	return found;
}

void np_gpu_live_cuda(struct np_topo *t)
{
#ifdef HAVE_CUDA
	void *lib;
	CUresult (*init)(unsigned int);
	CUresult (*by_bus)(CUdevice *, const char *);
	CUresult (*get_attr)(int *, CUdevice_attribute, CUdevice);

	if (t->ngpus == 0)
		return;
	/* the driver stays loaded once initialized: the CUDA runtime and NCCL
	 * use it later in the same process, and unloading an initialized
	 * driver is not something it supports */
	lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!lib) {
		np_topo_note(t, "CUDA driver (libcuda.so.1) not found; the GPUs' GDR and DMA-BUF attributes are unknown");
		return;
	}
	*(void **)&init = dlsym(lib, "cuInit");
	*(void **)&by_bus = dlsym(lib, "cuDeviceGetByPCIBusId");
	*(void **)&get_attr = dlsym(lib, "cuDeviceGetAttribute");
	if (!init || !by_bus || !get_attr || init(0) != CUDA_SUCCESS) {
		np_topo_note(t, "the CUDA driver did not initialize; the GPUs' GDR and DMA-BUF attributes are unknown");
		return;
	}
	for (int i = 0; i < t->ngpus; i++) {
		CUdevice d;
		int v;
		if (by_bus(&d, t->gpus[i].busid) != CUDA_SUCCESS)
			continue; /* hidden by CUDA_VISIBLE_DEVICES */
		if (get_attr(&v, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, d) == CUDA_SUCCESS)
			t->gpus[i].gdr = v ? NP_YES : NP_NO;
		if (get_attr(&v, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, d) == CUDA_SUCCESS)
			t->gpus[i].dmabuf = v ? NP_YES : NP_NO;
	}
#else
	if (t->ngpus)
		np_topo_note(t, "built without CUDA; the GPUs' GDR and DMA-BUF attributes are unknown");
#endif
}
