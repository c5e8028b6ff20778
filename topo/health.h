/* SPDX-License-Identifier: MIT */
/* Node health (live): GPU clocks, clock event reasons, temperature headroom,
 * power, persistence, ECC and row remapping, PCIe replays and NVLink errors
 * from NVML; NIC port error counters from sysfs; /dev/shm, locked memory,
 * CPU set and memory nodes, IOMMU mode and containers from /proc and /sys
 * through the fsroot. The figures are read twice, a sampling window apart,
 * so that counters which grow during the run are told from old ones; checks
 * turn them into findings. Nothing here prints or exits. */
#ifndef NP_TOPO_HEALTH_H
#define NP_TOPO_HEALTH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "sysfs.h"

/* Every figure below is NP_HX (unknown) until a source establishes it. */
#define NP_HX LLONG_MIN
#define NP_HEALTH_NIC_COUNTERS 4

/* Clock event ("throttle") reason bits, as NVML defines them. */
#define NP_CLK_IDLE 0x1ull
#define NP_CLK_APP_SETTING 0x2ull
#define NP_CLK_SW_POWER_CAP 0x4ull
#define NP_CLK_HW_SLOWDOWN 0x8ull
#define NP_CLK_SYNC_BOOST 0x10ull
#define NP_CLK_SW_THERMAL 0x20ull
#define NP_CLK_HW_THERMAL 0x40ull
#define NP_CLK_HW_POWER_BRAKE 0x80ull
#define NP_CLK_DISPLAY 0x100ull
/* Reasons that slow a busy GPU below what it should deliver. */
#define NP_CLK_SLOWDOWN \
	(NP_CLK_HW_SLOWDOWN | NP_CLK_SW_THERMAL | NP_CLK_HW_THERMAL | NP_CLK_HW_POWER_BRAKE)

/* Violation counters (NVML perf policies): time below application clocks. */
enum np_viol { NP_VIOL_POWER, NP_VIOL_THERMAL, NP_VIOL_SYNC_BOOST, NP_VIOL_BOARD, NP_VIOL_COUNT };
const char *np_viol_str(enum np_viol v); /* "power", "thermal", ... */

struct np_gpu_health {
	int gpu; /* index in topo->gpus, -1 when the model lacks it */
	char busid[NP_BUSID_LEN];
	bool nvml; /* NVML answered for this GPU */
	long long sm_mhz, sm_max_mhz, sm_app_mhz, sm_app_default_mhz;
	long long mem_mhz, mem_max_mhz, mem_app_mhz;
	long long reasons;                /* reasons seen during the window (OR), NP_HX unknown */
	long long viol_ns[NP_VIOL_COUNT]; /* growth during the window */
	long long temp_c;                 /* GPU temperature */
	long long margin_c;          /* degrees below T.Limit (nvmlDeviceGetMarginTemperature) */
	long long slowdown_tlimit_c; /* slowdown threshold relative to T.Limit (-2: 2 C past it) */
	long long slowdown_c;        /* absolute slowdown threshold, when plausible */
	long long headroom_c;        /* degrees until slowdown, from the above */
	const char *headroom_src;    /* "T.Limit margin" or "slowdown threshold", NULL unknown */
	long long power_mw, power_limit_mw, power_default_mw;
	enum np_tri persistence, ecc, ecc_pending;
	long long ecc_uncorrected; /* volatile (since the driver loaded) */
	enum np_tri remap_pending, remap_failed, retired_pending;
	long long pcie_replay, pcie_replay_grew;
	int nvl_up, nvl_down;                        /* links NVML answered for; -1 unknown */
	long long nvl_crc, nvl_replay, nvl_recovery; /* totals, active links */
	long long nvl_crc_grew, nvl_replay_grew, nvl_recovery_grew;
	char nvl_down_list[64]; /* "2,5" */
};

/* symbol_error, link_downed, port_rcv_errors, excessive_buffer_overrun_errors */
extern const char *const np_nic_counter_names[NP_HEALTH_NIC_COUNTERS];

struct np_nic_health {
	int nic; /* index in topo->nics */
	long long before[NP_HEALTH_NIC_COUNTERS], after[NP_HEALTH_NIC_COUNTERS];
	long long rate_max_gbit; /* fastest rate the port's width and speed allow, NP_HX unknown */
	long long eth_mbps, eth_max_mbps; /* Ethernet (RoCE) ports: ethtool's speed now and the
					   * fastest supported link mode, NP_HX unknown */
};

struct np_host_health {
	long long shm_bytes, shm_free; /* /dev/shm size and free space */
	long long shm_need;            /* what NCCL's shared-memory transport needs here */
	int shm_ranks;                 /* the local rank count that estimate is for */
	long long memlock;             /* RLIMIT_MEMLOCK soft, bytes; -1 unlimited */
	char cpus[NP_CPUSET_LEN];      /* Cpus_allowed_list of this process, "" unknown */
	char mems[NP_CPUSET_LEN];      /* Mems_allowed_list */
	char slurm_bind[64];           /* SLURM_CPU_BIND_TYPE, "" none */
	enum np_tri container;
	char container_kind[32]; /* "docker", "podman", "kubernetes", ... */
	enum np_tri iommu_dma;   /* a GPU's IOMMU group translates DMA */
	char iommu_type[16];     /* that group's type: "DMA", "DMA-FQ", "identity" */
};

/* XID errors the NVIDIA driver logged in the kernel log ("NVRM: Xid
 * (PCI:0000:3b:00): 79, ..."). NVML cannot tell them after the fact: its
 * XID events reach only a process that registered before they happened,
 * so the kernel log is the one record of the past. */
#define NP_XID_KINDS 16
struct np_xid_gpu {
	char busid[NP_BUSID_LEN]; /* "dddd:bb:dd.0" as the log names it */
	int gpu;                  /* index in topo->gpus, -1 when the model lacks it */
	int nkinds;
	int xid[NP_XID_KINDS], count[NP_XID_KINDS]; /* in the order first seen */
	char last[160];                             /* the last such line's text */
};
struct np_xid_log {
	enum np_tri readable;   /* the kernel log was read (no: why says why) */
	enum np_tri since_boot; /* it reaches back to boot (its first record is
				 * the kernel's first), unknown when it cannot tell */
	char why[96];
	long records; /* lines read */
	struct np_xid_gpu gpus[NP_MAX_GPUS];
	int ngpus;
};
/* What an XID usually means, and whether it points at the node (true) or
 * at the job that ran (false); "" when this table does not know it. */
const char *np_xid_meaning(int xid, bool *node_fault);
/* Read the kernel log (dev/kmsg through the fsroot) into x. */
void np_health_xid(const struct np_topo *t, const struct np_sysfs *fs, struct np_xid_log *x);

struct np_health {
	bool nvml;       /* NVML was asked and answered */
	double window_s; /* seconds between the two reads */
	bool under_load; /* the window ran a load on every GPU */
	struct np_gpu_health gpus[NP_MAX_GPUS];
	int ngpus;
	char unreachable[NP_MAX_GPUS][NP_BUSID_LEN]; /* driver lists them, NVML does not */
	int nunreachable;
	struct np_nic_health nics[NP_MAX_NICS];
	int nnics;
	struct np_host_health host;
	struct np_xid_log xid;
};

/* A load run during the sampling window (a busy kernel on every GPU):
 * started before the first sample, stopped after the last one. */
struct np_health_load {
	int (*start)(void *arg, double seconds); /* 0 ok */
	void (*stop)(void *arg);
	void *arg;
};

struct np_health_opts {
	double window_s;                   /* sampling window, seconds */
	int local_ranks;                   /* ranks this node's job runs (0: one per GPU) */
	const struct np_health_load *load; /* NULL: idle sampling */
};

/* Read the live figures of t's GPUs, NICs and host into h (t from
 * np_topo_discover_live). Notes say what could not be read. */
void np_health_live(struct np_topo *t, struct np_health *h, const struct np_health_opts *o);
/* Findings from the figures (ids "health-..."). */
void np_health_check(struct np_topo *t, const struct np_health *h);

/* NVML part (topo/health_nvml.c): fills h->gpus and h->unreachable over
 * the window, calling load around it. Returns false when NVML is not
 * asked or not usable (a note says why). */
bool np_health_nvml(struct np_topo *t, struct np_health *h, const struct np_sysfs *fs,
		    const struct np_health_opts *o);
/* Every figure of g unknown, its GPU index -1. */
void np_gpu_health_init(struct np_gpu_health *g);

/* Fleet mode: one row per GPU of every node, gathered to rank 0. */
struct np_health_row {
	char node[64];
	int gpu;
	long long sm_mhz, sm_app_default_mhz, temp_c, power_mw, reasons;
	int under_load;
};
/* Fill rows (at most max) from h; returns how many. */
int np_health_rows(const struct np_health *h, const char *node, struct np_health_row *rows,
		   int max);
/* Add a "health-fleet-outlier" finding to t for each GPU whose SM clock is
 * below the fleet median or whose clocks are held down by a slowdown
 * reason; *median gets the fleet median SM clock (NP_HX unknown). */
void np_health_fleet(struct np_topo *t, const struct np_health_row *rows, int n, long long *median);

/* Text of the reasons in a mask ("thermal slowdown, power cap"), "none". */
void np_clk_reasons_str(long long mask, char *buf, size_t len);

/* One GPU's clocks around a stretch of work (the sweep reads them at its
 * start and its end, and the report prints them beside the slowest rank).
 * NP_HX where NVML does not say. */
struct np_gpu_clocks {
	int known; /* NVML answered for the GPU (int: gathered as bytes) */
	long long sm_mhz, sm_max_mhz, sm_app_default_mhz, temp_c;
	long long reasons;                /* clock event reasons at the read */
	long long viol_ns[NP_VIOL_COUNT]; /* totals at a read; growth in a span */
};
/* Read the GPU at busid (any spelling np_busid_norm takes); false, with
 * every figure unknown, when NVML or the GPU does not answer. Loads NVML
 * for the read and unloads it after. */
bool np_gpu_clocks_read(const char *busid, struct np_gpu_clocks *c);
/* The span between two reads: end's clocks and temperature, the reasons
 * of either read, the violation time that grew between them. */
void np_gpu_clocks_span(const struct np_gpu_clocks *start, const struct np_gpu_clocks *end,
			struct np_gpu_clocks *span);
/* The median SM clock of the known GPUs in all[0..n) other than all[skip]
 * (NP_HX when none is known). */
long long np_gpu_clocks_median_sm(const struct np_gpu_clocks *all, int n, int skip);
/* One line of evidence for a span: "SM 1200 MHz after the sweep (max
 * 1980, the other ranks' median 1410); below application clocks during
 * it: thermal 2100 ms; clock events: SW thermal slowdown". */
void np_gpu_clocks_str(const struct np_gpu_clocks *c, long long others_sm_mhz, char *buf,
		       size_t len);

#endif
