/* SPDX-License-Identifier: MIT */
/* Output of the health figures of topo: the "Health" section of the table
 * and the "health" object of the document (unknown figures are null).
 * The findings themselves are reported with the others. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "doc.h"
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

static void jnum(struct np_doc *p, const char *key, long long v)
{
	if (v == NP_HX)
		np_doc_null(p, key);
	else
		np_doc_int(p, key, v);
}

static void jtri(struct np_doc *p, const char *key, enum np_tri v)
{
	if (v == NP_UNKNOWN)
		np_doc_null(p, key);
	else
		np_doc_bool(p, key, v == NP_YES);
}

/* One element of "gpus": clocks, reasons, temperatures, power, memory
 * errors and link counters, null where unknown. */
static void doc_gpu(struct np_doc *a, const struct np_gpu_health *g)
{
	struct np_doc *o = np_doc_obj(a, NULL), *b;

	jnum(o, "index", g->gpu >= 0 ? g->gpu : NP_HX);
	np_doc_str(o, "bus_id", g->busid);
	jnum(o, "sm_mhz", g->sm_mhz);
	jnum(o, "sm_max_mhz", g->sm_max_mhz);
	jnum(o, "sm_app_mhz", g->sm_app_mhz);
	jnum(o, "sm_app_default_mhz", g->sm_app_default_mhz);
	jnum(o, "mem_mhz", g->mem_mhz);
	jnum(o, "mem_max_mhz", g->mem_max_mhz);
	jnum(o, "mem_app_mhz", g->mem_app_mhz);
	jnum(o, "clock_event_reasons", g->reasons);
	/* the key and unit of the sweep's ranks[].gpu_clocks */
	b = np_doc_obj(o, "below_app_clocks_ms");
	for (int v = 0; v < NP_VIOL_COUNT; v++)
		jnum(b, np_viol_str((enum np_viol)v),
		     g->viol_ns[v] == NP_HX ? NP_HX : g->viol_ns[v] / 1000000);
	jnum(o, "temp_c", g->temp_c);
	jnum(o, "tlimit_margin_c", g->margin_c);
	jnum(o, "slowdown_tlimit_c", g->slowdown_tlimit_c);
	jnum(o, "slowdown_c", g->slowdown_c);
	jnum(o, "slowdown_headroom_c", g->headroom_c);
	jnum(o, "power_mw", g->power_mw);
	jnum(o, "power_limit_mw", g->power_limit_mw);
	jnum(o, "power_default_limit_mw", g->power_default_mw);
	jtri(o, "persistence", g->persistence);
	jtri(o, "ecc", g->ecc);
	jtri(o, "ecc_pending", g->ecc_pending);
	jnum(o, "ecc_uncorrected_volatile", g->ecc_uncorrected);
	jtri(o, "remap_pending", g->remap_pending);
	jtri(o, "remap_failed", g->remap_failed);
	jtri(o, "retired_pages_pending", g->retired_pending);
	jnum(o, "pcie_replay", g->pcie_replay);
	jnum(o, "pcie_replay_grew", g->pcie_replay_grew);
	jnum(o, "nvlinks_up", g->nvl_up >= 0 ? g->nvl_up : NP_HX);
	jnum(o, "nvlinks_down", g->nvl_down >= 0 ? g->nvl_down : NP_HX);
	jnum(o, "nvlink_crc", g->nvl_crc);
	jnum(o, "nvlink_replay", g->nvl_replay);
	jnum(o, "nvlink_recovery", g->nvl_recovery);
}

/* One element of "nics": a port's error counters and their growth. */
static void doc_nic(struct np_doc *a, const struct np_nic_health *nh)
{
	struct np_doc *o = np_doc_obj(a, NULL), *c;

	np_doc_int(o, "index", nh->nic);
	c = np_doc_obj(o, "counters");
	for (int k = 0; k < NP_HEALTH_NIC_COUNTERS; k++)
		jnum(c, np_nic_counter_names[k], nh->after[k]);
	c = np_doc_obj(o, "grew");
	for (int k = 0; k < NP_HEALTH_NIC_COUNTERS; k++)
		jnum(c, np_nic_counter_names[k],
		     nh->after[k] == NP_HX || nh->before[k] == NP_HX
			     ? NP_HX
			     : nh->after[k] - nh->before[k]);
}

/* The host's limits that NCCL runs into: /dev/shm, memlock, CPU and
 * memory binding, container, IOMMU. */
static void doc_host(struct np_doc *p, const struct np_host_health *hh)
{
	struct np_doc *o = np_doc_obj(p, "host");

	jnum(o, "shm_bytes", hh->shm_bytes);
	jnum(o, "shm_free_bytes", hh->shm_free);
	jnum(o, "shm_need_bytes", hh->shm_need);
	np_doc_int(o, "shm_ranks", hh->shm_ranks);
	if (hh->memlock == -1)
		np_doc_str(o, "memlock_bytes", "unlimited");
	else
		jnum(o, "memlock_bytes", hh->memlock);
	np_doc_str(o, "cpus_allowed", hh->cpus[0] ? hh->cpus : NULL);
	np_doc_str(o, "mems_allowed", hh->mems[0] ? hh->mems : NULL);
	np_doc_str(o, "slurm_cpu_bind", hh->slurm_bind[0] ? hh->slurm_bind : NULL);
	jtri(o, "container", hh->container);
	np_doc_str(o, "container_kind", hh->container_kind[0] ? hh->container_kind : NULL);
	jtri(o, "iommu_dma_translation", hh->iommu_dma);
	np_doc_str(o, "iommu_group_type", hh->iommu_type[0] ? hh->iommu_type : NULL);
}

/* The GPUs' XIDs in the kernel log; null when the log could not be read:
 * XIDs unknown, not none. */
static void doc_xid(struct np_doc *p, const struct np_health *h)
{
	struct np_doc *o, *a;

	if (h->xid.readable != NP_YES) {
		np_doc_null(p, "xid");
		return;
	}
	o = np_doc_obj(p, "xid");
	np_doc_str(o, "source", "kernel log (/dev/kmsg)");
	jtri(o, "since_boot", h->xid.since_boot);
	np_doc_int(o, "records", h->xid.records);
	a = np_doc_arr(o, "gpus");
	for (int i = 0; i < h->xid.ngpus; i++) {
		const struct np_xid_gpu *g = &h->xid.gpus[i];
		struct np_doc *e = np_doc_obj(a, NULL), *x;
		np_doc_str(e, "bus_id", g->busid);
		if (g->gpu >= 0)
			np_doc_int(e, "gpu", g->gpu);
		else
			np_doc_null(e, "gpu");
		x = np_doc_arr(e, "xids");
		for (int k = 0; k < g->nkinds; k++) {
			const char *m = np_xid_meaning(g->xid[k], NULL);
			struct np_doc *r = np_doc_obj(x, NULL);
			np_doc_int(r, "xid", g->xid[k]);
			np_doc_int(r, "count", g->count[k]);
			np_doc_str(r, "meaning", m[0] ? m : NULL);
		}
	}
}

struct np_doc *np_health_doc(struct np_doc *top, const struct np_topo *t)
{
	const struct np_health *h = t->health;
	struct np_doc *o, *a;

	if (!h)
		return NULL;
	o = np_doc_obj(top, "health");
	np_doc_num(o, "window_s", h->window_s);
	np_doc_bool(o, "under_load", h->under_load);
	np_doc_bool(o, "nvml", h->nvml);
	a = np_doc_arr(o, "gpus");
	for (int i = 0; i < h->ngpus; i++)
		doc_gpu(a, &h->gpus[i]);
	a = np_doc_arr(o, "gpus_unreachable");
	for (int i = 0; i < h->nunreachable; i++)
		np_doc_str(a, NULL, h->unreachable[i]);
	a = np_doc_arr(o, "nics");
	for (int i = 0; i < h->nnics; i++)
		doc_nic(a, &h->nics[i]);
	doc_host(o, &h->host);
	doc_xid(o, h);
	return o;
}
