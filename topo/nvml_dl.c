/* SPDX-License-Identifier: MIT */
/* One NVML loader for topo (see nvml_dl.h); named apart from NVIDIA's nvml.h. */
#include "config.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "nvml_dl.h"

const char *np_nvml_lib_name(void)
{
	const char *e = getenv("NCCL_PROBE_NVML_LIB");

	return e && *e ? e : "libnvidia-ml.so.1";
}

#define SYM(field, name) (*(void **)&a->field = dlsym(a->lib, name))

enum np_nvml_fail np_nvml_open(struct np_nvml *a)
{
	memset(a, 0, sizeof(*a));
	a->lib = dlopen(np_nvml_lib_name(), RTLD_NOW | RTLD_LOCAL);
	if (!a->lib)
		return NP_NVML_NOT_FOUND;
	SYM(init, "nvmlInit_v2");
	SYM(shutdown, "nvmlShutdown");
	SYM(count, "nvmlDeviceGetCount_v2");
	SYM(by_index, "nvmlDeviceGetHandleByIndex_v2");
	SYM(pci, "nvmlDeviceGetPciInfo_v3");
	SYM(fields, "nvmlDeviceGetFieldValues");
	SYM(name, "nvmlDeviceGetName");
	SYM(gen_cur, "nvmlDeviceGetCurrPcieLinkGeneration");
	SYM(gen_max, "nvmlDeviceGetMaxPcieLinkGeneration");
	SYM(width_cur, "nvmlDeviceGetCurrPcieLinkWidth");
	SYM(width_max, "nvmlDeviceGetMaxPcieLinkWidth");
	SYM(bar1, "nvmlDeviceGetBAR1MemoryInfo");
	SYM(nvl_state, "nvmlDeviceGetNvLinkState");
	SYM(nvl_version, "nvmlDeviceGetNvLinkVersion");
	SYM(nvl_remote, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
	SYM(nvl_remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
	SYM(cc, "nvmlDeviceGetCudaComputeCapability");
	SYM(clock, "nvmlDeviceGetClockInfo");
	SYM(clock_max, "nvmlDeviceGetMaxClockInfo");
	SYM(clock_app, "nvmlDeviceGetApplicationsClock");
	SYM(clock_app_default, "nvmlDeviceGetDefaultApplicationsClock");
	/* renamed from ...ThrottleReasons in CUDA 12.2's NVML; same mask */
	SYM(reasons, "nvmlDeviceGetCurrentClocksEventReasons");
	if (!a->reasons)
		SYM(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
	SYM(violation, "nvmlDeviceGetViolationStatus");
	SYM(temp, "nvmlDeviceGetTemperature");
	SYM(threshold, "nvmlDeviceGetTemperatureThreshold");
	SYM(margin, "nvmlDeviceGetMarginTemperature");
	SYM(power, "nvmlDeviceGetPowerUsage");
	SYM(power_limit, "nvmlDeviceGetEnforcedPowerLimit");
	SYM(power_default, "nvmlDeviceGetPowerManagementDefaultLimit");
	SYM(pcie_replay, "nvmlDeviceGetPcieReplayCounter");
	SYM(persistence, "nvmlDeviceGetPersistenceMode");
	SYM(ecc_mode, "nvmlDeviceGetEccMode");
	SYM(ecc_total, "nvmlDeviceGetTotalEccErrors");
	SYM(remapped, "nvmlDeviceGetRemappedRows");
	SYM(retired_pending, "nvmlDeviceGetRetiredPagesPendingStatus");
	SYM(nvl_errors, "nvmlDeviceGetNvLinkErrorCounter");
	if (!a->init || !a->shutdown || !a->count || !a->by_index || !a->pci) {
		dlclose(a->lib);
		a->lib = NULL;
		return NP_NVML_NO_SYMBOLS;
	}
	if (a->init() != NVML_SUCCESS) {
		dlclose(a->lib);
		a->lib = NULL;
		return NP_NVML_NO_INIT;
	}
	return NP_NVML_OK;
}

void np_nvml_close(struct np_nvml *a)
{
	if (!a->lib)
		return;
	a->shutdown();
	dlclose(a->lib);
	a->lib = NULL;
}
