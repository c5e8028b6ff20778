/* SPDX-License-Identifier: MIT */
/* Node health: the checks that turn the figures (health_live.c,
 * health_nvml.c, health_xid.c) into findings, and the fleet's outliers. A
 * figure a source cannot establish stays unknown and makes no finding. */
#define _GNU_SOURCE
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/number.h"
#include "ethtool.h"
#include "health.h"

#define MIB (1024ll * 1024ll)
#define MAX_CPUS 4096

const char *const np_nic_counter_names[NP_HEALTH_NIC_COUNTERS] = {
	"symbol_error", "link_downed", "port_rcv_errors", "excessive_buffer_overrun_errors"
};

const char *np_viol_str(enum np_viol v)
{
	switch (v) {
	case NP_VIOL_POWER: return "power";
	case NP_VIOL_THERMAL: return "thermal";
	case NP_VIOL_SYNC_BOOST: return "sync_boost";
	case NP_VIOL_BOARD: return "board_limit";
	default: return "unknown";
	}
}

void np_clk_reasons_str(long long mask, char *buf, size_t len)
{
	static const struct {
		unsigned long long bit;
		const char *name;
	} names[] = {
		{ NP_CLK_IDLE, "idle" },
		{ NP_CLK_APP_SETTING, "application clocks setting" },
		{ NP_CLK_SW_POWER_CAP, "power cap" },
		{ NP_CLK_HW_SLOWDOWN, "HW slowdown" },
		{ NP_CLK_SYNC_BOOST, "sync boost" },
		{ NP_CLK_SW_THERMAL, "SW thermal slowdown" },
		{ NP_CLK_HW_THERMAL, "HW thermal slowdown" },
		{ NP_CLK_HW_POWER_BRAKE, "HW power brake" },
		{ NP_CLK_DISPLAY, "display clock setting" },
	};
	size_t off = 0;

	buf[0] = '\0';
	if (mask == NP_HX) {
		snprintf(buf, len, "unknown");
		return;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && off < len; i++)
		if ((unsigned long long)mask & names[i].bit) {
			int w = snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
					 names[i].name);
			off += w > 0 ? (size_t)w : 0;
		}
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* The headline of what holds the clocks down. */
static const char *slowdown_name(long long mask)
{
	unsigned long long m = (unsigned long long)mask;

	if (mask == NP_HX)
		return NULL;
	if (m & (NP_CLK_SW_THERMAL | NP_CLK_HW_THERMAL))
		return "thermal slowdown active";
	if (m & NP_CLK_HW_POWER_BRAKE)
		return "HW power brake active";
	if (m & NP_CLK_HW_SLOWDOWN)
		return "HW slowdown active";
	if (m & NP_CLK_SW_POWER_CAP)
		return "power cap active";
	return NULL;
}

/* A figure as text, divided (mW to W, ns to ms), "?" when unknown. */
static const char *fig(char *buf, size_t len, long long v, long long div)
{
	if (v == NP_HX)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%lld", v / div);
	return buf;
}

/* "0-3,8" into bits; false when it is not a CPU list. */
static bool cpulist_parse(const char *s, unsigned char *bits)
{
	const char *p = s;

	memset(bits, 0, MAX_CPUS / 8);
	if (!*s)
		return false;
	while (*p) {
		int64_t a, b;
		if (!np_scan_i64(&p, 10, 0, MAX_CPUS - 1, &a))
			return false;
		b = a;
		if (*p == '-') {
			p++;
			if (!np_scan_i64(&p, 10, a, MAX_CPUS - 1, &b))
				return false;
		}
		for (int64_t c = a; c <= b; c++)
			bits[c / 8] |= (unsigned char)(1u << (c % 8));
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return false;
		else
			break;
	}
	return true;
}

static bool bits_meet(const unsigned char *a, const unsigned char *b)
{
	for (int i = 0; i < MAX_CPUS / 8; i++)
		if (a[i] & b[i])
			return true;
	return false;
}

static bool bit_set(const unsigned char *a, int i)
{
	return i >= 0 && i < MAX_CPUS && (a[i / 8] >> (i % 8) & 1);
}

static void gpu_subject(const struct np_gpu_health *g, char *s, size_t len)
{
	if (g->gpu >= 0)
		snprintf(s, len, "GPU%d", g->gpu);
	else
		snprintf(s, len, "%s", g->busid);
}

static struct np_finding *finding(struct np_topo *t, const char *id, enum np_severity sev,
				  const char *subject)
{
	return np_topo_finding(t, id, sev, subject);
}

/* The clock event reasons NVML gave, 0 where it gave none. */
static unsigned long long clk_mask(const struct np_gpu_health *g)
{
	return g->reasons == NP_HX ? 0 : (unsigned long long)g->reasons;
}

/* Clocks held down: thermal or hardware slowdown, else the power cap. */
static void gpu_check_throttle(struct np_topo *t, const struct np_gpu_health *g, const char *s,
			       const char *win, const char *why)
{
	char a[24], b[24], c[24], d[24];
	struct np_finding *f;
	const char *slow = slowdown_name(g->reasons);
	unsigned long long m = clk_mask(g);

	if (m & NP_CLK_SLOWDOWN) {
		f = finding(t, "health-gpu-slowdown", NP_SEV_ERROR, s);
		snprintf(f->message, sizeof(f->message), "%s: clocks held down, %s", s, slow);
		snprintf(f->evidence, sizeof(f->evidence),
			 "NVML clock event reasons over %.30s: %.100s; SM %.8s MHz (max %.8s); thermal violation +%.12s ms, temperature %.8s C",
			 win, why, fig(a, sizeof(a), g->sm_mhz, 1),
			 fig(b, sizeof(b), g->sm_max_mhz, 1),
			 fig(c, sizeof(c), g->viol_ns[NP_VIOL_THERMAL], 1000000),
			 fig(d, sizeof(d), g->temp_c, 1));
		snprintf(f->remedy, sizeof(f->remedy), "%s",
			 m & (NP_CLK_SW_THERMAL | NP_CLK_HW_THERMAL)
				 ? "check this GPU's cooling (fans, airflow, inlet temperature, heatsink contact); drain the node until it runs at full clocks"
				 : "HW slowdown or power brake: check the power supplies and the board's power-brake signal (nvidia-smi -q -d PERFORMANCE); reset the GPU or drain the node");
	} else if ((m & NP_CLK_SW_POWER_CAP) && !(m & NP_CLK_IDLE)) {
		f = finding(t, "health-gpu-power-cap", NP_SEV_WARNING, s);
		snprintf(f->message, sizeof(f->message), "%s: clocks held down by the power cap",
			 s);
		snprintf(f->evidence, sizeof(f->evidence),
			 "NVML clock event reasons over %s: %s; power %s of %s W", win, why,
			 fig(a, sizeof(a), g->power_mw, 1000),
			 fig(b, sizeof(b), g->power_limit_mw, 1000));
		snprintf(f->remedy, sizeof(f->remedy),
			 "check the power limit (nvidia-smi -q -d POWER) and that no other work shares this GPU");
	}
}

/* Settings lowered below their defaults: the power limit, the
 * application clocks. */
static void gpu_check_lowered(struct np_topo *t, const struct np_gpu_health *g, const char *s)
{
	struct np_finding *f;

	if (g->power_limit_mw != NP_HX && g->power_default_mw != NP_HX &&
	    g->power_limit_mw < g->power_default_mw * 95 / 100) {
		f = finding(t, "health-gpu-power-limit", NP_SEV_WARNING, s);
		snprintf(f->message, sizeof(f->message),
			 "%s: power limit lowered to %lld W of its default %lld W", s,
			 g->power_limit_mw / 1000, g->power_default_mw / 1000);
		snprintf(f->evidence, sizeof(f->evidence),
			 "NVML enforced power limit %lld mW, default %lld mW", g->power_limit_mw,
			 g->power_default_mw);
		snprintf(f->remedy, sizeof(f->remedy), "restore it: nvidia-smi -i %s -pl %lld",
			 g->busid, g->power_default_mw / 1000);
	}
	if (g->sm_app_mhz != NP_HX && g->sm_app_default_mhz != NP_HX &&
	    g->sm_app_mhz < g->sm_app_default_mhz) {
		f = finding(t, "health-gpu-app-clocks", NP_SEV_WARNING, s);
		snprintf(f->message, sizeof(f->message),
			 "%s: application SM clock %lld MHz, below its default %lld MHz", s,
			 g->sm_app_mhz, g->sm_app_default_mhz);
		snprintf(f->evidence, sizeof(f->evidence),
			 "NVML applications clock SM %lld MHz, default %lld MHz, max %lld MHz",
			 g->sm_app_mhz, g->sm_app_default_mhz, g->sm_max_mhz);
		snprintf(f->remedy, sizeof(f->remedy),
			 "reset the application clocks: nvidia-smi -i %s -rac", g->busid);
	}
}

/* Under load, an SM clock below 90% of its application (else maximum)
 * clock. */
static void gpu_check_clock_low(struct np_topo *t, const struct np_health *h,
				const struct np_gpu_health *g, const char *s, const char *win,
				const char *why)
{
	struct np_finding *f;
	unsigned long long m = clk_mask(g);

	/* an idle GPU lowers its clocks by design: compare only under load, and
	 * not a GPU that stayed idle (hidden from the load by
	 * CUDA_VISIBLE_DEVICES) */
	if (h->under_load && !(m & (NP_CLK_SLOWDOWN | NP_CLK_IDLE)) && g->sm_mhz != NP_HX) {
		long long ref = g->sm_app_mhz != NP_HX ? g->sm_app_mhz : g->sm_max_mhz;
		if (ref != NP_HX && g->sm_mhz * 10 < ref * 9) {
			f = finding(t, "health-gpu-clock-low", NP_SEV_WARNING, s);
			snprintf(f->message, sizeof(f->message),
				 "%s: SM %lld MHz under load, below its application clock %lld MHz",
				 s, g->sm_mhz, ref);
			snprintf(f->evidence, sizeof(f->evidence),
				 "NVML SM clock median over %s; reasons: %s; max %lld MHz", win,
				 why, g->sm_max_mhz);
			snprintf(f->remedy, sizeof(f->remedy),
				 "look at nvidia-smi -q -d PERFORMANCE,CLOCK on this GPU; reset it or drain the node");
		}
	}
}

/* Temperature near slowdown, and persistence mode off. */
static void gpu_check_temp_persistence(struct np_topo *t, const struct np_gpu_health *g,
				       const char *s)
{
	struct np_finding *f;

	if (g->headroom_c != NP_HX && g->headroom_c < 5) {
		f = finding(t, "health-gpu-temp",
			    g->headroom_c <= 0 ? NP_SEV_ERROR : NP_SEV_WARNING, s);
		snprintf(f->message, sizeof(f->message), "%s: %lld C from thermal slowdown", s,
			 g->headroom_c);
		if (g->margin_c != NP_HX)
			snprintf(f->evidence, sizeof(f->evidence),
				 "NVML T.Limit margin %lld C, slowdown at %lld C of it (%s); temperature %lld C",
				 g->margin_c,
				 g->slowdown_tlimit_c == NP_HX ? 0 : g->slowdown_tlimit_c,
				 g->headroom_src, g->temp_c);
		else
			snprintf(f->evidence, sizeof(f->evidence),
				 "NVML temperature %lld C, slowdown threshold %lld C", g->temp_c,
				 g->slowdown_c);
		snprintf(f->remedy, sizeof(f->remedy),
			 "check this GPU's cooling before it slows down; compare its temperature with its neighbours'");
	}
	if (g->persistence == NP_NO) {
		f = finding(t, "health-gpu-persistence-off", NP_SEV_INFO, s);
		snprintf(f->message, sizeof(f->message), "%s: persistence mode is off", s);
		snprintf(f->evidence, sizeof(f->evidence), "NVML persistence mode disabled");
		snprintf(f->remedy, sizeof(f->remedy),
			 "run nvidia-persistenced (or nvidia-smi -pm 1) so the driver stays initialized between jobs");
	}
}

/* Memory: ECC mode, uncorrectable errors, row remapping and page
 * retirement. */
static void gpu_check_memory(struct np_topo *t, const struct np_gpu_health *g, const char *s)
{
	struct np_finding *f;

	if (g->ecc == NP_NO) {
		f = finding(t, "health-gpu-ecc-off", NP_SEV_WARNING, s);
		snprintf(f->message, sizeof(f->message),
			 "%s: ECC is disabled; memory errors go undetected", s);
		snprintf(f->evidence, sizeof(f->evidence), "NVML ECC mode current off, pending %s",
			 np_tri_str(g->ecc_pending));
		snprintf(f->remedy, sizeof(f->remedy),
			 "enable it: nvidia-smi -i %s -e 1, then reset the GPU", g->busid);
	} else if (g->ecc == NP_YES && g->ecc_pending == NP_NO) {
		f = finding(t, "health-gpu-ecc-pending", NP_SEV_INFO, s);
		snprintf(f->message, sizeof(f->message),
			 "%s: ECC will be disabled at the next reset", s);
		snprintf(f->evidence, sizeof(f->evidence), "NVML ECC mode current on, pending off");
		snprintf(f->remedy, sizeof(f->remedy), "keep ECC on: nvidia-smi -i %s -e 1",
			 g->busid);
	}
	if (g->ecc_uncorrected != NP_HX && g->ecc_uncorrected > 0) {
		f = finding(t, "health-gpu-ecc-uncorrected", NP_SEV_ERROR, s);
		snprintf(f->message, sizeof(f->message),
			 "%s: %lld uncorrectable ECC errors since the driver loaded", s,
			 g->ecc_uncorrected);
		snprintf(f->evidence, sizeof(f->evidence),
			 "NVML volatile uncorrected ECC count %lld", g->ecc_uncorrected);
		snprintf(f->remedy, sizeof(f->remedy),
			 "drain the node; reset the GPU (row remapping applies at reset) and watch for Xid 48/63/64/94/95 in dmesg");
	}
	if (g->remap_failed == NP_YES) {
		f = finding(t, "health-gpu-remap-failed", NP_SEV_ERROR, s);
		snprintf(f->message, sizeof(f->message),
			 "%s: a row remapping failed; the GPU has run out of spare rows", s);
		snprintf(f->evidence, sizeof(f->evidence), "NVML remapped rows: failure occurred");
		snprintf(f->remedy, sizeof(f->remedy),
			 "drain the node and have the GPU replaced (RMA)");
	}
	if (g->remap_pending == NP_YES || g->retired_pending == NP_YES) {
		bool remap = g->remap_pending == NP_YES;
		f = finding(t, remap ? "health-gpu-remap-pending" : "health-gpu-retired-pending",
			    NP_SEV_ERROR, s);
		snprintf(f->message, sizeof(f->message), "%s: %s waits for a GPU reset", s,
			 remap ? "a row remapping" : "a page retirement");
		snprintf(f->evidence, sizeof(f->evidence), "NVML %s pending",
			 remap ? "remapped rows" : "retired pages");
		snprintf(f->remedy, sizeof(f->remedy),
			 "drain the node and reset the GPU (nvidia-smi -i %s -r) or reboot",
			 g->busid);
	}
}

/* Links: PCIe replays and NVLinks down or erring; maxlinks is the most
 * active NVLinks of the GPUs like this one. */
static void gpu_check_links(struct np_topo *t, const struct np_gpu_health *g, const char *s,
			    const char *win, int maxlinks)
{
	struct np_finding *f;

	if (g->pcie_replay_grew != NP_HX && g->pcie_replay_grew > 0) {
		f = finding(t, "health-gpu-pcie-replay", NP_SEV_WARNING, s);
		snprintf(f->message, sizeof(f->message), "%s: %lld PCIe replays during the run", s,
			 g->pcie_replay_grew);
		snprintf(f->evidence, sizeof(f->evidence),
			 "NVML PCIe replay counter +%lld over %s (total %lld)", g->pcie_replay_grew,
			 win, g->pcie_replay);
		snprintf(f->remedy, sizeof(f->remedy),
			 "reseat the GPU or its riser/cable and check the slot; replays cost PCIe bandwidth");
	}
	if (g->nvl_up >= 0 && maxlinks > g->nvl_up) {
		f = finding(t, "health-nvlink-down", NP_SEV_WARNING, s);
		snprintf(f->message, sizeof(f->message),
			 "%s: %d NVLinks active, %d on other GPUs like it", s, g->nvl_up, maxlinks);
		snprintf(f->evidence, sizeof(f->evidence), "NVML NVLink state: %d up, down: %s",
			 g->nvl_up, g->nvl_down_list[0] ? g->nvl_down_list : "none");
		snprintf(f->remedy, sizeof(f->remedy),
			 "nvidia-smi nvlink -s -i %d; reset the GPU or the NVSwitch fabric manager, else drain the node",
			 g->gpu);
	}
	if ((g->nvl_crc_grew != NP_HX && g->nvl_crc_grew > 0) ||
	    (g->nvl_replay_grew != NP_HX && g->nvl_replay_grew > 0) ||
	    (g->nvl_recovery_grew != NP_HX && g->nvl_recovery_grew > 0)) {
		f = finding(t, "health-nvlink-errors", NP_SEV_WARNING, s);
		snprintf(f->message, sizeof(f->message), "%s: NVLink errors during the run", s);
		snprintf(f->evidence, sizeof(f->evidence),
			 "NVML NVLink counters over %s: CRC +%lld, replay +%lld, recovery +%lld",
			 win, g->nvl_crc_grew == NP_HX ? 0 : g->nvl_crc_grew,
			 g->nvl_replay_grew == NP_HX ? 0 : g->nvl_replay_grew,
			 g->nvl_recovery_grew == NP_HX ? 0 : g->nvl_recovery_grew);
		snprintf(f->remedy, sizeof(f->remedy),
			 "nvidia-smi nvlink -e -i %d; errors that keep growing mean a bad link: drain the node",
			 g->gpu);
	}
}

/* One GPU's health findings, in the order of the report. */
static void check_gpu(struct np_topo *t, const struct np_health *h, const struct np_gpu_health *g,
		      int maxlinks)
{
	char s[NP_NAME_LEN], why[160], win[64];

	gpu_subject(g, s, sizeof(s));
	snprintf(win, sizeof(win), "%.1f s %s", h->window_s, h->under_load ? "under load" : "idle");
	np_clk_reasons_str(g->reasons, why, sizeof(why));
	gpu_check_throttle(t, g, s, win, why);
	gpu_check_lowered(t, g, s);
	gpu_check_clock_low(t, h, g, s, win, why);
	gpu_check_temp_persistence(t, g, s);
	gpu_check_memory(t, g, s);
	gpu_check_links(t, g, s, win, maxlinks);
}

/* CPUs of NUMA node os (the fsroot's node directory, else hwloc's). */
static bool numa_cpus(const struct np_topo *t, const struct np_sysfs *fs, int os,
		      unsigned char *bits)
{
	char rel[96], buf[NP_CPUSET_LEN];
	int k;

	snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/cpulist", os);
	if (fs && np_sysfs_read(fs, rel, buf, sizeof(buf)) && cpulist_parse(buf, bits))
		return true;
	k = np_topo_numa_index(t, os);
	return k >= 0 && cpulist_parse(t->numa[k].cpus, bits);
}

static void check_host(struct np_topo *t, const struct np_health *h, const struct np_sysfs *fs)
{
	const struct np_host_health *hh = &h->host;
	struct np_finding *f;
	bool rdma = false, in_ctr = hh->container == NP_YES;
	char ctr[80] = "";

	if (in_ctr)
		snprintf(ctr, sizeof(ctr), " (inside a %s container)", hh->container_kind);
	for (int i = 0; i < t->nnics; i++)
		rdma |= t->nics[i].ll == NP_LL_IB || t->nics[i].ll == NP_LL_ROCE;
	if (hh->shm_bytes != NP_HX && hh->shm_need > 0 &&
	    (hh->shm_bytes < hh->shm_need || hh->shm_free < hh->shm_need)) {
		bool size = hh->shm_bytes < hh->shm_need;
		f = finding(t, "health-shm-small", size ? NP_SEV_ERROR : NP_SEV_WARNING,
			    "/dev/shm");
		snprintf(f->message, sizeof(f->message),
			 "/dev/shm has %lld MiB %s, NCCL's shared-memory transport needs about %lld MiB for %d local ranks%s",
			 (size ? hh->shm_bytes : hh->shm_free) / MIB, size ? "in all" : "free",
			 hh->shm_need / MIB, hh->shm_ranks, ctr);
		snprintf(f->evidence, sizeof(f->evidence),
			 "statvfs /dev/shm: size %lld MiB, free %lld MiB; need %d x %d pairs x 2 channels x 9 MiB",
			 hh->shm_bytes / MIB, hh->shm_free / MIB, hh->shm_ranks, hh->shm_ranks - 1);
		snprintf(f->remedy, sizeof(f->remedy), "%s",
			 in_ctr ? "start the container with a larger /dev/shm (docker run --shm-size=1g, or --ipc=host; Kubernetes: an emptyDir with medium Memory at /dev/shm)"
				: "remount it larger (mount -o remount,size=1G /dev/shm) or remove stale files from it");
	}
	if (hh->memlock != NP_HX && hh->memlock >= 0 && rdma) {
		f = finding(t, "health-memlock", NP_SEV_WARNING, "ulimit -l");
		snprintf(f->message, sizeof(f->message),
			 "locked memory is limited to %lld KiB; RDMA registration needs it unlimited%s",
			 hh->memlock / 1024, ctr);
		snprintf(f->evidence, sizeof(f->evidence),
			 "/proc/self/limits: Max locked memory %lld bytes; RDMA NICs present",
			 hh->memlock);
		snprintf(f->remedy, sizeof(f->remedy), "%s",
			 in_ctr ? "start the container with --ulimit memlock=-1 (Kubernetes: the runtime's default ulimits)"
				: "set 'memlock unlimited' in /etc/security/limits.conf (Slurm: also in slurmd's unit, LimitMEMLOCK=infinity)");
	}
	if (hh->cpus[0] || hh->mems[0]) {
		unsigned char allowed[MAX_CPUS / 8], mems[MAX_CPUS / 8], node[MAX_CPUS / 8];
		bool have_cpus = cpulist_parse(hh->cpus, allowed),
		     have_mems = cpulist_parse(hh->mems, mems);
		char far[128] = "", nomem[128] = "";
		size_t off = 0, off2 = 0;
		for (int i = 0; i < t->ngpus; i++) {
			int numa = t->gpus[i].numa;
			if (numa < 0)
				continue;
			if (have_cpus && numa_cpus(t, fs, numa, node) &&
			    !bits_meet(allowed, node) && off < sizeof(far) - 16)
				off += (size_t)snprintf(far + off, sizeof(far) - off,
							"%sGPU%d (node %d)", off ? ", " : "", i,
							numa);
			if (have_mems && !bit_set(mems, numa) && off2 < sizeof(nomem) - 16)
				off2 += (size_t)snprintf(nomem + off2, sizeof(nomem) - off2,
							 "%sGPU%d (node %d)", off2 ? ", " : "", i,
							 numa);
		}
		if (far[0]) {
			f = finding(t, "health-cpuset-numa", NP_SEV_WARNING, "cpuset");
			snprintf(f->message, sizeof(f->message),
				 "this process may run on none of the CPUs near %s%s", far, ctr);
			snprintf(f->evidence, sizeof(f->evidence),
				 "/proc/self/status Cpus_allowed_list %.200s%s%.60s", hh->cpus,
				 hh->slurm_bind[0] ? "; Slurm binding " : "", hh->slurm_bind);
			snprintf(f->remedy, sizeof(f->remedy), "%s",
				 in_ctr ? "give the container CPUs of the GPUs' NUMA nodes (docker --cpuset-cpus; Kubernetes: the topology manager)"
					: "bind ranks to their GPU's NUMA node (mpirun --map-by numa --bind-to numa; srun --cpu-bind=ldoms; taskset)");
		}
		if (nomem[0]) {
			f = finding(t, "health-mems-numa", NP_SEV_WARNING, "cpuset");
			snprintf(f->message, sizeof(f->message),
				 "this process may allocate memory on none of the NUMA nodes of %s%s",
				 nomem, ctr);
			snprintf(f->evidence, sizeof(f->evidence),
				 "/proc/self/status Mems_allowed_list %s", hh->mems);
			snprintf(f->remedy, sizeof(f->remedy), "%s",
				 in_ctr ? "give the container the GPUs' memory nodes (docker --cpuset-mems)"
					: "allow the GPUs' NUMA nodes in the cgroup's cpuset.mems (or numactl --membind)");
		}
	}
	if (hh->iommu_dma == NP_YES) {
		f = finding(t, "health-iommu-dma", NP_SEV_WARNING, "iommu");
		snprintf(f->message, sizeof(f->message),
			 "the IOMMU translates the GPUs' DMA (group type %s): peer-to-peer and GDR traffic pays for it",
			 hh->iommu_type);
		snprintf(f->evidence, sizeof(f->evidence),
			 "/sys/kernel/iommu_groups/*/type of a GPU's group: %s", hh->iommu_type);
		snprintf(f->remedy, sizeof(f->remedy),
			 "boot with iommu=pt (Intel: intel_iommu=on iommu=pt; AMD: amd_iommu=pt), unless this VM needs the translation");
	}
	for (int i = 0; i < h->nunreachable; i++) {
		f = finding(t, "health-gpu-unreachable", NP_SEV_ERROR, h->unreachable[i]);
		snprintf(f->message, sizeof(f->message),
			 "the driver lists GPU %s but NVML cannot reach it", h->unreachable[i]);
		snprintf(f->evidence, sizeof(f->evidence),
			 "/proc/driver/nvidia/gpus (or sysfs, driver nvidia) has %s; NVML lists %d GPU(s) without it",
			 h->unreachable[i], h->ngpus);
		snprintf(f->remedy, sizeof(f->remedy),
			 "look for Xid 79 (fallen off the bus) in dmesg and nvidia-smi -q -i %s; reset the GPU or drain the node",
			 h->unreachable[i]);
	}
}

static void check_container(struct np_topo *t, const struct np_health *h)
{
	static const char *const explained[] = { "health-shm-small", "health-memlock",
						 "health-cpuset-numa", "health-mems-numa" };
	char list[200] = "";
	size_t off = 0;
	struct np_finding *f;

	if (h->host.container != NP_YES)
		return;
	for (size_t i = 0; i < sizeof(explained) / sizeof(explained[0]); i++)
		if (np_topo_has_finding(t, explained[i]) && off < sizeof(list) - 40)
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
						off ? ", " : "", explained[i]);
	if (!list[0])
		return; /* a container that starves nothing is no finding */
	f = finding(t, "health-container", NP_SEV_INFO, h->host.container_kind);
	snprintf(f->message, sizeof(f->message),
		 "running inside a %s container, whose settings explain: %s",
		 h->host.container_kind, list);
	snprintf(f->evidence, sizeof(f->evidence), "%s",
		 !strcmp(h->host.container_kind, "docker") ? "/.dockerenv exists"
		 : !strcmp(h->host.container_kind, "podman")
			 ? "/run/.containerenv exists"
			 : "/proc/1/cgroup names a container runtime");
	snprintf(f->remedy, sizeof(f->remedy),
		 "fix them in the container's launch options (see each finding); the host itself may be fine");
}

/* One finding per GPU that logged XIDs: their numbers, counts and usual
 * meaning; an error when any points at the node, info when all point at
 * the job. A log that cannot be read says so in a note: unknown, not none. */
static void check_xid(struct np_topo *t, const struct np_health *h)
{
	const struct np_xid_log *x = &h->xid;
	const char *scope =
		x->since_boot == NP_YES ? "since boot"
		: x->since_boot == NP_NO
			? "in the kernel log's oldest records on (older ones were dropped)"
			: "in the kernel log";

	if (x->readable == NP_NO) {
		np_topo_note(t,
			     "health: the kernel log (/dev/kmsg) cannot be read: %s; XID errors since boot are unknown",
			     x->why);
		return;
	}
	if (x->readable == NP_YES && x->since_boot == NP_NO && !x->ngpus)
		np_topo_note(t,
			     "health: no XID in the kernel log, whose oldest records were dropped; XIDs before them are unknown");
	for (int i = 0; i < x->ngpus; i++) {
		const struct np_xid_gpu *g = &x->gpus[i];
		char s[NP_NAME_LEN], nums[NP_MSG_LEN] = "", what[NP_MSG_LEN] = "";
		size_t on = 0, wn = 0;
		int n;
		bool node = false;
		struct np_finding *f;
		for (int k = 0; k < g->nkinds; k++) {
			bool nf;
			const char *m = np_xid_meaning(g->xid[k], &nf);
			node |= nf;
			if (on < sizeof(nums) - 32)
				on += (size_t)snprintf(nums + on, sizeof(nums) - on, "%s%d (x%d)",
						       k ? ", " : "", g->xid[k], g->count[k]);
			if (m[0] && wn < sizeof(what) - 8)
				wn += (size_t)snprintf(what + wn, sizeof(what) - wn, "%s%d: %s",
						       wn ? "; " : "", g->xid[k], m);
		}
		if (g->gpu >= 0)
			snprintf(s, sizeof(s), "GPU%d", g->gpu);
		else
			snprintf(s, sizeof(s), "%s", g->busid);
		f = finding(t, "health-xid", node ? NP_SEV_ERROR : NP_SEV_INFO, s);
		n = snprintf(f->message, sizeof(f->message), "%s (%s) logged XID %s %s", s,
			     g->busid, nums, scope);
		if (what[0] && n > 0 && (size_t)n < sizeof(f->message))
			snprintf(f->message + n, sizeof(f->message) - (size_t)n, ": %s", what);
		snprintf(f->evidence, sizeof(f->evidence),
			 "kernel log (/dev/kmsg), the last: %.240s", g->last);
		snprintf(f->remedy, sizeof(f->remedy), "%s",
			 node ? "drain the node; reset the GPU (nvidia-smi -r) or reboot, then check ECC and row remapping "
				"(nvidia-smi -q -d ECC,ROW_REMAPPER); a GPU that falls off the bus again or keeps logging "
				"ECC XIDs needs service"
			      : "XIDs of this kind usually come from the application that ran (a bad kernel or memory access); "
				"check that job's logs");
	}
}

void np_health_check(struct np_topo *t, const struct np_health *h)
{
	struct np_sysfs fs;
	struct np_err err = { 0 };
	bool fs_ok = np_sysfs_open(&fs, &err) == NP_OK;

	for (int i = 0; i < h->ngpus; i++) {
		int maxlinks = 0;
		const char *name = h->gpus[i].gpu >= 0 ? t->gpus[h->gpus[i].gpu].name : "";
		for (int k = 0; k < h->ngpus;
		     k++) { /* the most links a GPU of this model has here */
			const char *nk = h->gpus[k].gpu >= 0 ? t->gpus[h->gpus[k].gpu].name : "";
			if (!strcmp(name, nk) && h->gpus[k].nvl_up > maxlinks)
				maxlinks = h->gpus[k].nvl_up;
		}
		check_gpu(t, h, &h->gpus[i], maxlinks);
	}
	for (int i = 0; i < h->nnics; i++) {
		const struct np_nic_health *nh = &h->nics[i];
		const struct np_nic *n = &t->nics[nh->nic];
		char s[NP_NAME_LEN], ev[NP_MSG_LEN] = "";
		size_t off = 0;
		struct np_finding *f;
		snprintf(s, sizeof(s), "%.50s:%d", n->name, n->port);
		for (int c = 0; c < NP_HEALTH_NIC_COUNTERS; c++)
			if (nh->before[c] != NP_HX && nh->after[c] != NP_HX &&
			    nh->after[c] > nh->before[c] && off < sizeof(ev) - 64)
				off += (size_t)snprintf(ev + off, sizeof(ev) - off, "%s%s +%lld",
							off ? ", " : "", np_nic_counter_names[c],
							nh->after[c] - nh->before[c]);
		if (ev[0]) {
			f = finding(t, "health-nic-errors", NP_SEV_WARNING, s);
			snprintf(f->message, sizeof(f->message),
				 "%s: port error counters grew during the run", s);
			snprintf(f->evidence, sizeof(f->evidence),
				 "sysfs ports/%d/counters over %.1f s%s: %s", n->port, h->window_s,
				 h->under_load ? " under load" : "", ev);
			snprintf(f->remedy, sizeof(f->remedy),
				 "check the cable and the switch port (ibdiagnet, mlxlink -d %s); errors that keep growing mean a bad link",
				 n->name);
		}
		if (n->ll == NP_LL_ROCE && nh->eth_mbps != NP_HX && nh->eth_max_mbps != NP_HX &&
		    nh->eth_max_mbps > nh->eth_mbps && n->state == NP_PORT_ACTIVE) {
			f = finding(t, "health-nic-rate", NP_SEV_WARNING, s);
			snprintf(f->message, sizeof(f->message),
				 "%s: Ethernet port %s runs at %g of the %g Gb/s it supports", s,
				 n->netdev, (double)nh->eth_mbps / 1000,
				 (double)nh->eth_max_mbps / 1000);
			snprintf(f->evidence, sizeof(f->evidence),
				 "ethtool link settings of %s: speed %lld Mb/s, fastest supported link mode %lld Mb/s",
				 n->netdev, nh->eth_mbps, nh->eth_max_mbps);
			snprintf(f->remedy, sizeof(f->remedy),
				 "check the cable or module (a slower one caps the link) and the switch port's configured speed; ethtool %s shows both ends' modes",
				 n->netdev);
		} else if (n->ll == NP_LL_IB && nh->rate_max_gbit != NP_HX &&
			   n->state == NP_PORT_ACTIVE) {
			f = finding(t, "health-nic-width", NP_SEV_WARNING, s);
			snprintf(f->message, sizeof(f->message),
				 "%s: port trained at 1X, %.0f of its %lld Gb/s", s, n->rate_gbit,
				 nh->rate_max_gbit);
			snprintf(f->evidence, sizeof(f->evidence),
				 "sysfs ports/%d/rate: %.0f Gb/sec (1X %s)", n->port, n->rate_gbit,
				 n->speed);
			snprintf(f->remedy, sizeof(f->remedy),
				 "reseat or replace the cable (one lane trained); check with mlxlink -d %s",
				 n->name);
		}
	}
	check_host(t, h, fs_ok ? &fs : NULL);
	check_container(t, h);
	check_xid(t, h);
	if (fs_ok)
		np_sysfs_release(&fs);
}

int np_health_rows(const struct np_health *h, const char *node, struct np_health_row *rows, int max)
{
	int n = 0;

	for (int i = 0; i < h->ngpus && n < max; i++) {
		const struct np_gpu_health *g = &h->gpus[i];
		struct np_health_row *r = &rows[n++];
		memset(r, 0, sizeof(*r));
		snprintf(r->node, sizeof(r->node), "%s", node);
		r->gpu = g->gpu >= 0 ? g->gpu : i;
		r->sm_mhz = g->sm_mhz;
		r->sm_app_default_mhz = g->sm_app_default_mhz;
		r->temp_c = g->temp_c;
		r->power_mw = g->power_mw;
		r->reasons = g->reasons;
		r->under_load = h->under_load;
	}
	return n;
}

/* An idle GPU's clock says nothing: compare clocks that are working. */
static bool comparable(const struct np_health_row *r)
{
	if (r->sm_mhz == NP_HX)
		return false;
	return r->reasons != NP_HX ? !(r->reasons & (long long)NP_CLK_IDLE) : r->under_load;
}

void np_health_fleet(struct np_topo *t, const struct np_health_row *rows, int n, long long *median)
{
	long long *v = n > 0 ? malloc((size_t)n * sizeof(*v)) : NULL;
	int m = 0;

	*median = NP_HX;
	if (n > 0 && !v)
		return;
	for (int i = 0; i < n; i++)
		if (comparable(&rows[i]))
			v[m++] = rows[i].sm_mhz;
	for (int i = 1; i < m; i++) /* insertion sort: a fleet's GPUs */
		for (int k = i; k > 0 && v[k] < v[k - 1]; k--) {
			long long x = v[k];
			v[k] = v[k - 1];
			v[k - 1] = x;
		}
	if (m)
		*median = v[m / 2];
	free(v);
	for (int i = 0; i < n; i++) {
		const struct np_health_row *r = &rows[i];
		const char *slow =
			r->reasons != NP_HX && (r->reasons &
						(long long)(NP_CLK_SLOWDOWN | NP_CLK_SW_POWER_CAP))
				? slowdown_name(r->reasons)
				: NULL;
		bool low = comparable(r) && *median != NP_HX && r->sm_mhz * 100 < *median * 95;
		char s[NP_NAME_LEN], why[160], a[24], b[24], c[24], d[24];
		struct np_finding *f;
		if (!slow && !low)
			continue;
		snprintf(s, sizeof(s), "%.50s GPU%d", r->node, r->gpu);
		f = np_topo_finding(t, "health-fleet-outlier",
				    slow && slow[0] != 'p' ? NP_SEV_ERROR : NP_SEV_WARNING, s);
		if (r->sm_mhz != NP_HX && *median != NP_HX)
			snprintf(f->message, sizeof(f->message), "%s: SM %lld MHz (fleet %lld)%s%s",
				 s, r->sm_mhz, *median, slow ? ", " : "", slow ? slow : "");
		else
			snprintf(f->message, sizeof(f->message), "%s: %s", s,
				 slow ? slow : "SM clock below the fleet");
		np_clk_reasons_str(r->reasons, why, sizeof(why));
		snprintf(f->evidence, sizeof(f->evidence),
			 "NVML: SM %.8s MHz, fleet median %.8s MHz over %d working GPUs; reasons: %.120s; %.8s C, %.8s W",
			 fig(a, sizeof(a), r->sm_mhz, 1), fig(b, sizeof(b), *median, 1), m, why,
			 fig(c, sizeof(c), r->temp_c, 1), fig(d, sizeof(d), r->power_mw, 1000));
		snprintf(f->remedy, sizeof(f->remedy),
			 "the whole job runs at this GPU's pace: drain '%s' or fix it (see its node's health findings)",
			 r->node);
	}
}
