/* SPDX-License-Identifier: MIT */
/* NVML through dlopen: the part of its ABI that topo uses (no build-time
 * NVML dependency), and one loader for the live GPU facts (gpu_live.c) and
 * the GPU health figures (health_nvml.c). A symbol the driver lacks stays
 * NULL: its users treat the fact as unknown. */
#ifndef NP_TOPO_NVML_H
#define NP_TOPO_NVML_H

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
typedef struct {
	unsigned long long referenceTime, violationTime;
} nvmlViolationTime_t;
typedef struct {
	unsigned int version;
	int marginTemperature;
} nvmlMarginTemperature_t;
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

#define NVML_SUCCESS 0
#define NVML_NVLINK_MAX_LINKS 18

typedef nvmlReturn_t (*np_nvml_clk_fn)(nvmlDevice_t, int, unsigned *);
typedef nvmlReturn_t (*np_nvml_uint_fn)(nvmlDevice_t, unsigned *);

struct np_nvml {
	void *lib;
	nvmlReturn_t (*init)(void);
	nvmlReturn_t (*shutdown)(void);
	nvmlReturn_t (*count)(unsigned *);
	nvmlReturn_t (*by_index)(unsigned, nvmlDevice_t *);
	nvmlReturn_t (*pci)(nvmlDevice_t, nvmlPciInfo_t *);
	nvmlReturn_t (*fields)(nvmlDevice_t, int, nvmlFieldValue_t *);
	/* discovery */
	nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned);
	np_nvml_uint_fn gen_cur, gen_max, width_cur, width_max;
	nvmlReturn_t (*bar1)(nvmlDevice_t, nvmlBAR1Memory_t *);
	nvmlReturn_t (*nvl_state)(nvmlDevice_t, unsigned, int *);
	nvmlReturn_t (*nvl_version)(nvmlDevice_t, unsigned, unsigned *);
	nvmlReturn_t (*nvl_remote)(nvmlDevice_t, unsigned, nvmlPciInfo_t *);
	nvmlReturn_t (*nvl_remote_type)(nvmlDevice_t, unsigned, int *);
	nvmlReturn_t (*cc)(nvmlDevice_t, int *, int *);
	/* health */
	np_nvml_clk_fn clock, clock_max, clock_app, clock_app_default;
	nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*violation)(nvmlDevice_t, int, nvmlViolationTime_t *);
	nvmlReturn_t (*temp)(nvmlDevice_t, int, unsigned *);
	nvmlReturn_t (*threshold)(nvmlDevice_t, int, unsigned *);
	nvmlReturn_t (*margin)(nvmlDevice_t, nvmlMarginTemperature_t *);
	np_nvml_uint_fn power, power_limit, power_default, pcie_replay;
	nvmlReturn_t (*persistence)(nvmlDevice_t, int *);
	nvmlReturn_t (*ecc_mode)(nvmlDevice_t, int *, int *);
	nvmlReturn_t (*ecc_total)(nvmlDevice_t, int, int, unsigned long long *);
	nvmlReturn_t (*remapped)(nvmlDevice_t, unsigned *, unsigned *, unsigned *, unsigned *);
	nvmlReturn_t (*retired_pending)(nvmlDevice_t, int *);
	nvmlReturn_t (*nvl_errors)(nvmlDevice_t, unsigned, int, unsigned long long *);
};

/* Why np_nvml_open failed. */
enum np_nvml_fail {
	NP_NVML_OK = 0,
	NP_NVML_NOT_FOUND,  /* the library did not load */
	NP_NVML_NO_SYMBOLS, /* it lacks nvmlInit_v2 or the device queries */
	NP_NVML_NO_INIT,    /* nvmlInit_v2 failed (no driver loaded) */
};

/* The library: $NCCL_PROBE_NVML_LIB (tests: a fake NVML) or the driver's. */
const char *np_nvml_lib_name(void);
/* Load and initialize NVML into a; on failure a->lib is NULL. */
enum np_nvml_fail np_nvml_open(struct np_nvml *a);
/* Shut NVML down and unload it; safe after a failed open. */
void np_nvml_close(struct np_nvml *a);

#endif
