/* SPDX-License-Identifier: MIT */
/* Output of the health figures of topo: the "Health" section of the table
 * and the "health" object of the JSON (unknown figures are null). The
 * findings themselves are reported with the others. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "health_report.h"
#include "../topo/health.h"

#define MIB (1024ll * 1024ll)

static void num(char *buf, size_t len, long long v, const char *unit)
{
	if (v == NP_HX)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%lld%s", v, unit);
}

static void gpu_line(FILE *f, const struct np_gpu_health *g, int i)
{
	char sm[32], smmax[32], app[32], mem[32], memmax[32], temp[32], head[32], pw[32], pl[32],
		why[160];

	num(sm, sizeof(sm), g->sm_mhz, "");
	num(smmax, sizeof(smmax), g->sm_max_mhz, "");
	num(app, sizeof(app), g->sm_app_mhz, "");
	num(mem, sizeof(mem), g->mem_mhz, "");
	num(memmax, sizeof(memmax), g->mem_max_mhz, "");
	num(temp, sizeof(temp), g->temp_c, " C");
	num(head, sizeof(head), g->headroom_c, " C");
	num(pw, sizeof(pw), g->power_mw == NP_HX ? NP_HX : g->power_mw / 1000, "");
	num(pl, sizeof(pl), g->power_limit_mw == NP_HX ? NP_HX : g->power_limit_mw / 1000, " W");
	np_clk_reasons_str(g->reasons, why, sizeof(why));
	fprintf(f,
		"  GPU%-3d SM %s/%s MHz (app %s), mem %s/%s MHz, %s (%s to slowdown), %s/%s, reasons: %s\n",
		g->gpu >= 0 ? g->gpu : i, sm, smmax, app, mem, memmax, temp, head, pw, pl, why);
	fprintf(f, "         persistence %s, ECC %s", np_tri_str(g->persistence),
		np_tri_str(g->ecc));
	if (g->ecc_uncorrected != NP_HX)
		fprintf(f, " (%lld uncorrected)", g->ecc_uncorrected);
	if (g->remap_pending != NP_UNKNOWN)
		fprintf(f, ", remap pending %s, failed %s", np_tri_str(g->remap_pending),
			np_tri_str(g->remap_failed));
	if (g->pcie_replay != NP_HX)
		fprintf(f, ", PCIe replays %lld (+%lld)", g->pcie_replay,
			g->pcie_replay_grew == NP_HX ? 0 : g->pcie_replay_grew);
	if (g->nvl_up >= 0)
		fprintf(f, ", NVLinks %d up %d down", g->nvl_up, g->nvl_down);
	fprintf(f, "\n");
}

void np_health_report_table(FILE *f, const struct np_topo *t)
{
	const struct np_health *h = t->health;
	const struct np_host_health *hh;

	if (!h)
		return;
	hh = &h->host;
	if (h->window_s > 0)
		fprintf(f, "Health (sampled %.1f s, %s):\n", h->window_s,
			h->under_load ? "under load" : "idle");
	else
		fprintf(f, "Health (nothing to sample over time):\n");
	if (!h->nvml)
		fprintf(f, "  GPUs: NVML not available\n");
	for (int i = 0; i < h->ngpus; i++)
		gpu_line(f, &h->gpus[i], i);
	for (int i = 0; i < h->nnics; i++) {
		const struct np_nic_health *nh = &h->nics[i];
		const struct np_nic *n = &t->nics[nh->nic];
		fprintf(f, "  %s:%d", n->name, n->port);
		for (int c = 0; c < NP_HEALTH_NIC_COUNTERS; c++) {
			if (nh->after[c] == NP_HX)
				fprintf(f, " %s ?", np_nic_counter_names[c]);
			else
				fprintf(f, " %s %lld (+%lld)", np_nic_counter_names[c],
					nh->after[c],
					nh->before[c] == NP_HX ? 0 : nh->after[c] - nh->before[c]);
		}
		fprintf(f, "\n");
	}
	fprintf(f, "  /dev/shm ");
	if (hh->shm_bytes == NP_HX)
		fprintf(f, "?");
	else
		fprintf(f, "%lld MiB (%lld free, need %lld for %d ranks)", hh->shm_bytes / MIB,
			hh->shm_free / MIB, hh->shm_need / MIB, hh->shm_ranks);
	fprintf(f, ", memlock ");
	if (hh->memlock == NP_HX)
		fprintf(f, "?");
	else if (hh->memlock < 0)
		fprintf(f, "unlimited");
	else
		fprintf(f, "%lld KiB", hh->memlock / 1024);
	fprintf(f, ", CPUs %s, memory nodes %s, container %s%s%s%s, IOMMU DMA translation %s\n",
		hh->cpus[0] ? hh->cpus : "?", hh->mems[0] ? hh->mems : "?",
		np_tri_str(hh->container), hh->container_kind[0] ? " (" : "", hh->container_kind,
		hh->container_kind[0] ? ")" : "", np_tri_str(hh->iommu_dma));
}

static void jnum(struct np_json *j, const char *key, long long v)
{
	if (v == NP_HX)
		np_json_null(j, key);
	else
		np_json_int(j, key, v);
}

static void jtri(struct np_json *j, const char *key, enum np_tri v)
{
	if (v == NP_UNKNOWN)
		np_json_null(j, key);
	else
		np_json_bool(j, key, v == NP_YES);
}

/* One element of "gpus": clocks, reasons, temperatures, power, memory
 * errors and link counters, null where unknown. */
static void json_gpu(struct np_json *j, const struct np_gpu_health *g)
{
	np_json_obj_begin(j, NULL);
	jnum(j, "index", g->gpu >= 0 ? g->gpu : NP_HX);
	np_json_str(j, "bus_id", g->busid);
	jnum(j, "sm_mhz", g->sm_mhz);
	jnum(j, "sm_max_mhz", g->sm_max_mhz);
	jnum(j, "sm_app_mhz", g->sm_app_mhz);
	jnum(j, "sm_app_default_mhz", g->sm_app_default_mhz);
	jnum(j, "mem_mhz", g->mem_mhz);
	jnum(j, "mem_max_mhz", g->mem_max_mhz);
	jnum(j, "mem_app_mhz", g->mem_app_mhz);
	jnum(j, "clock_event_reasons", g->reasons);
	/* the key and unit of the sweep's ranks[].gpu_clocks */
	np_json_obj_begin(j, "below_app_clocks_ms");
	for (int v = 0; v < NP_VIOL_COUNT; v++)
		jnum(j, np_viol_str((enum np_viol)v),
		     g->viol_ns[v] == NP_HX ? NP_HX : g->viol_ns[v] / 1000000);
	np_json_obj_end(j);
	jnum(j, "temp_c", g->temp_c);
	jnum(j, "tlimit_margin_c", g->margin_c);
	jnum(j, "slowdown_tlimit_c", g->slowdown_tlimit_c);
	jnum(j, "slowdown_c", g->slowdown_c);
	jnum(j, "slowdown_headroom_c", g->headroom_c);
	jnum(j, "power_mw", g->power_mw);
	jnum(j, "power_limit_mw", g->power_limit_mw);
	jnum(j, "power_default_limit_mw", g->power_default_mw);
	jtri(j, "persistence", g->persistence);
	jtri(j, "ecc", g->ecc);
	jtri(j, "ecc_pending", g->ecc_pending);
	jnum(j, "ecc_uncorrected_volatile", g->ecc_uncorrected);
	jtri(j, "remap_pending", g->remap_pending);
	jtri(j, "remap_failed", g->remap_failed);
	jtri(j, "retired_pages_pending", g->retired_pending);
	jnum(j, "pcie_replay", g->pcie_replay);
	jnum(j, "pcie_replay_grew", g->pcie_replay_grew);
	jnum(j, "nvlinks_up", g->nvl_up >= 0 ? g->nvl_up : NP_HX);
	jnum(j, "nvlinks_down", g->nvl_down >= 0 ? g->nvl_down : NP_HX);
	jnum(j, "nvlink_crc", g->nvl_crc);
	jnum(j, "nvlink_replay", g->nvl_replay);
	jnum(j, "nvlink_recovery", g->nvl_recovery);
	np_json_obj_end(j);
}

/* One element of "nics": a port's error counters and their growth. */
static void json_nic(struct np_json *j, const struct np_nic_health *nh)
{
	np_json_obj_begin(j, NULL);
	np_json_int(j, "index", nh->nic);
	np_json_obj_begin(j, "counters");
	for (int c = 0; c < NP_HEALTH_NIC_COUNTERS; c++)
		jnum(j, np_nic_counter_names[c], nh->after[c]);
	np_json_obj_end(j);
	np_json_obj_begin(j, "grew");
	for (int c = 0; c < NP_HEALTH_NIC_COUNTERS; c++)
		jnum(j, np_nic_counter_names[c],
		     nh->after[c] == NP_HX || nh->before[c] == NP_HX
			     ? NP_HX
			     : nh->after[c] - nh->before[c]);
	np_json_obj_end(j);
	np_json_obj_end(j);
}

/* The host's limits that NCCL runs into: /dev/shm, memlock, CPU and
 * memory binding, container, IOMMU. */
static void json_host(struct np_json *j, const struct np_host_health *hh)
{
	np_json_obj_begin(j, "host");
	jnum(j, "shm_bytes", hh->shm_bytes);
	jnum(j, "shm_free_bytes", hh->shm_free);
	jnum(j, "shm_need_bytes", hh->shm_need);
	np_json_int(j, "shm_ranks", hh->shm_ranks);
	if (hh->memlock == -1)
		np_json_str(j, "memlock_bytes", "unlimited");
	else
		jnum(j, "memlock_bytes", hh->memlock);
	np_json_str(j, "cpus_allowed", hh->cpus[0] ? hh->cpus : NULL);
	np_json_str(j, "mems_allowed", hh->mems[0] ? hh->mems : NULL);
	np_json_str(j, "slurm_cpu_bind", hh->slurm_bind[0] ? hh->slurm_bind : NULL);
	jtri(j, "container", hh->container);
	np_json_str(j, "container_kind", hh->container_kind[0] ? hh->container_kind : NULL);
	jtri(j, "iommu_dma_translation", hh->iommu_dma);
	np_json_str(j, "iommu_group_type", hh->iommu_type[0] ? hh->iommu_type : NULL);
	np_json_obj_end(j);
}

/* The GPUs' XIDs in the kernel log; null when the log could not be read:
 * XIDs unknown, not none. */
static void json_xid(struct np_json *j, const struct np_health *h)
{
	if (h->xid.readable != NP_YES) {
		np_json_null(j, "xid");
		return;
	}
	np_json_obj_begin(j, "xid");
	np_json_str(j, "source", "kernel log (/dev/kmsg)");
	jtri(j, "since_boot", h->xid.since_boot);
	np_json_int(j, "records", h->xid.records);
	np_json_arr_begin(j, "gpus");
	for (int i = 0; i < h->xid.ngpus; i++) {
		const struct np_xid_gpu *g = &h->xid.gpus[i];
		np_json_obj_begin(j, NULL);
		np_json_str(j, "bus_id", g->busid);
		if (g->gpu >= 0)
			np_json_int(j, "gpu", g->gpu);
		else
			np_json_null(j, "gpu");
		np_json_arr_begin(j, "xids");
		for (int k = 0; k < g->nkinds; k++) {
			const char *m = np_xid_meaning(g->xid[k], NULL);
			np_json_obj_begin(j, NULL);
			np_json_int(j, "xid", g->xid[k]);
			np_json_int(j, "count", g->count[k]);
			np_json_str(j, "meaning", m[0] ? m : NULL);
			np_json_obj_end(j);
		}
		np_json_arr_end(j);
		np_json_obj_end(j);
	}
	np_json_arr_end(j);
	np_json_obj_end(j);
}

void np_health_report_json(struct np_json *j, const struct np_topo *t)
{
	const struct np_health *h = t->health;

	if (!h)
		return;
	np_json_obj_begin(j, "health");
	np_json_num(j, "window_s", h->window_s);
	np_json_bool(j, "under_load", h->under_load);
	np_json_bool(j, "nvml", h->nvml);
	np_json_arr_begin(j, "gpus");
	for (int i = 0; i < h->ngpus; i++)
		json_gpu(j, &h->gpus[i]);
	np_json_arr_end(j);
	np_json_arr_begin(j, "gpus_unreachable");
	for (int i = 0; i < h->nunreachable; i++)
		np_json_str(j, NULL, h->unreachable[i]);
	np_json_arr_end(j);
	np_json_arr_begin(j, "nics");
	for (int i = 0; i < h->nnics; i++)
		json_nic(j, &h->nics[i]);
	np_json_arr_end(j);
	json_host(j, &h->host);
	json_xid(j, h);
	np_json_obj_end(j);
}
