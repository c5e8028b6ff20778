/* SPDX-License-Identifier: MIT */
/* GPU health from NVML (dlopen, no build-time dependency): clocks against
 * their maximum and application clocks, clock event reasons and violation
 * counters sampled over a window, temperature headroom (T.Limit margins
 * where the driver reports them so), power, persistence, ECC, row
 * remapping, PCIe replays, NVLink states and error counters; and the GPUs
 * that the driver lists but NVML does not reach. */
#define _GNU_SOURCE
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/number.h"
#include "health.h"
#include "gpu_live.h"
#include "nvml_dl.h"
#include "sysfs.h"

#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_TEMPERATURE_GPU 0
#define NVML_TEMPERATURE_THRESHOLD_SLOWDOWN 1
#define NVML_MEMORY_ERROR_TYPE_UNCORRECTED 1
#define NVML_VOLATILE_ECC 0
#define NVML_NVLINK_MAX_LINKS 18
#define NVML_NVLINK_ERROR_DL_REPLAY 0
#define NVML_NVLINK_ERROR_DL_RECOVERY 1
#define NVML_NVLINK_ERROR_DL_CRC_FLIT 2
#define NVML_NVLINK_ERROR_DL_CRC_DATA 3
#define NVML_FI_DEV_TEMPERATURE_SLOWDOWN_TLIMIT 194
#define NVML_VALUE_TYPE_UNSIGNED_INT 1
#define NVML_VALUE_TYPE_SIGNED_LONG_LONG 4
#define NVML_VALUE_TYPE_SIGNED_INT 5
#define NVML_MARGIN_TEMPERATURE_V1 (sizeof(nvmlMarginTemperature_t) | 1u << 24)

static bool hnvml_open(struct np_nvml *a, struct np_topo *t)
{
	switch (np_nvml_open(a)) {
	case NP_NVML_OK: return true;
	case NP_NVML_NOT_FOUND:
		if (getenv("NCCL_PROBE_NVML_LIB"))
			np_topo_note(t,
				     "NCCL_PROBE_NVML_LIB='%s' could not be loaded; GPU health is unknown",
				     np_nvml_lib_name());
		return false; /* else the discovery's note already says NVML is missing */
	case NP_NVML_NO_SYMBOLS:
	case NP_NVML_NO_INIT: break;
	}
	np_topo_note(t, "NVML did not initialize; GPU health is unknown");
	return false;
}

static long long clk(np_nvml_clk_fn f, nvmlDevice_t d, int type)
{
	unsigned v;

	return f && f(d, type, &v) == 0 ? (long long)v : NP_HX;
}

static long long uval(np_nvml_uint_fn f, nvmlDevice_t d)
{
	unsigned v;

	return f && f(d, &v) == 0 ? (long long)v : NP_HX;
}

static enum np_tri state(nvmlReturn_t r, int v) { return r != 0 ? NP_UNKNOWN : v ? NP_YES : NP_NO; }

static long long field_int(const struct np_nvml *a, nvmlDevice_t d, unsigned id)
{
	nvmlFieldValue_t fv;

	if (!a->fields)
		return NP_HX;
	memset(&fv, 0, sizeof(fv));
	fv.fieldId = id;
	if (a->fields(d, 1, &fv) != 0 || fv.nvmlReturn != 0)
		return NP_HX;
	switch (fv.valueType) {
	case NVML_VALUE_TYPE_SIGNED_INT: return (int)fv.value.uiVal;
	case NVML_VALUE_TYPE_UNSIGNED_INT:
		return (long long)(int)fv.value.uiVal; /* margins are signed */
	case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return fv.value.sllVal;
	default: return NP_HX;
	}
}

/* NVLink counters of the active links: totals into *crc, *replay, *recovery. */
static void nvl_counters(const struct np_nvml *a, nvmlDevice_t d, long long *crc, long long *replay,
			 long long *recovery)
{
	*crc = *replay = *recovery = NP_HX;
	if (!a->nvl_state || !a->nvl_errors)
		return;
	for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
		int on = 0;
		unsigned long long v;
		if (a->nvl_state(d, l, &on) != 0 || !on)
			continue;
		if (a->nvl_errors(d, l, NVML_NVLINK_ERROR_DL_CRC_FLIT, &v) == 0) {
			unsigned long long w = 0;
			if (a->nvl_errors(d, l, NVML_NVLINK_ERROR_DL_CRC_DATA, &w) == 0)
				v += w;
			*crc = (*crc == NP_HX ? 0 : *crc) + (long long)v;
		}
		if (a->nvl_errors(d, l, NVML_NVLINK_ERROR_DL_REPLAY, &v) == 0)
			*replay = (*replay == NP_HX ? 0 : *replay) + (long long)v;
		if (a->nvl_errors(d, l, NVML_NVLINK_ERROR_DL_RECOVERY, &v) == 0)
			*recovery = (*recovery == NP_HX ? 0 : *recovery) + (long long)v;
	}
}

static long long grew(long long before, long long after)
{
	return before == NP_HX || after == NP_HX ? NP_HX : after - before;
}

void np_gpu_health_init(struct np_gpu_health *g)
{
	memset(g, 0, sizeof(*g));
	g->gpu = -1;
	g->sm_mhz = g->sm_max_mhz = g->sm_app_mhz = g->sm_app_default_mhz = NP_HX;
	g->mem_mhz = g->mem_max_mhz = g->mem_app_mhz = g->reasons = NP_HX;
	for (int v = 0; v < NP_VIOL_COUNT; v++)
		g->viol_ns[v] = NP_HX;
	g->temp_c = g->margin_c = g->slowdown_tlimit_c = g->slowdown_c = g->headroom_c = NP_HX;
	g->power_mw = g->power_limit_mw = g->power_default_mw = NP_HX;
	g->persistence = g->ecc = g->ecc_pending = NP_UNKNOWN;
	g->ecc_uncorrected = NP_HX;
	g->remap_pending = g->remap_failed = g->retired_pending = NP_UNKNOWN;
	g->pcie_replay = g->pcie_replay_grew = NP_HX;
	g->nvl_up = g->nvl_down = -1;
	g->nvl_crc = g->nvl_replay = g->nvl_recovery = NP_HX;
	g->nvl_crc_grew = g->nvl_replay_grew = g->nvl_recovery_grew = NP_HX;
}

/* The static figures of one GPU (read once). */
static void gpu_static(const struct np_nvml *a, nvmlDevice_t d, struct np_gpu_health *g)
{
	unsigned u1, u2, u3, u4;
	int e1, e2;
	unsigned long long ull;
	nvmlMarginTemperature_t m;

	g->sm_max_mhz = clk(a->clock_max, d, NVML_CLOCK_SM);
	g->mem_max_mhz = clk(a->clock_max, d, NVML_CLOCK_MEM);
	g->sm_app_mhz = clk(a->clock_app, d, NVML_CLOCK_SM);
	g->mem_app_mhz = clk(a->clock_app, d, NVML_CLOCK_MEM);
	g->sm_app_default_mhz = clk(a->clock_app_default, d, NVML_CLOCK_SM);
	g->power_limit_mw = uval(a->power_limit, d);
	g->power_default_mw = uval(a->power_default, d);
	if (a->persistence) {
		nvmlReturn_t r = a->persistence(d, &e1);
		g->persistence = state(r, e1);
	}
	if (a->ecc_mode && a->ecc_mode(d, &e1, &e2) == 0) {
		g->ecc = e1 ? NP_YES : NP_NO;
		g->ecc_pending = e2 ? NP_YES : NP_NO;
	}
	if (g->ecc == NP_YES && a->ecc_total &&
	    a->ecc_total(d, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &ull) == 0)
		g->ecc_uncorrected = (long long)ull;
	if (a->remapped && a->remapped(d, &u1, &u2, &u3, &u4) == 0) {
		g->remap_pending = u3 ? NP_YES : NP_NO;
		g->remap_failed = u4 ? NP_YES : NP_NO;
	} else if (a->retired_pending) { /* before Ampere: page retirement */
		nvmlReturn_t r = a->retired_pending(d, &e1);
		g->retired_pending = state(r, e1);
	}
	/* Temperature headroom. Drivers from 5xx on report thresholds relative
	 * to T.Limit (nvidia-smi: "T.Limit Temp 53 C", "Slowdown T.Limit Temp
	 * -2 C"): the margin is what is left; an absolute threshold is used
	 * only where no margin is reported and the value is a plausible
	 * temperature. */
	if (a->temp && a->temp(d, NVML_TEMPERATURE_GPU, &u1) == 0)
		g->temp_c = u1;
	memset(&m, 0, sizeof(m));
	m.version = (unsigned)NVML_MARGIN_TEMPERATURE_V1;
	if (a->margin && a->margin(d, &m) == 0)
		g->margin_c = m.marginTemperature;
	g->slowdown_tlimit_c = field_int(a, d, NVML_FI_DEV_TEMPERATURE_SLOWDOWN_TLIMIT);
	if (g->slowdown_tlimit_c != NP_HX &&
	    (g->slowdown_tlimit_c < -40 || g->slowdown_tlimit_c > 40))
		g->slowdown_tlimit_c = NP_HX;
	if (a->threshold && a->threshold(d, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &u1) == 0 &&
	    u1 >= 40 && u1 <= 150)
		g->slowdown_c = u1;
	if (g->margin_c != NP_HX) {
		g->headroom_c =
			g->margin_c - (g->slowdown_tlimit_c != NP_HX ? g->slowdown_tlimit_c : 0);
		g->headroom_src = g->slowdown_tlimit_c != NP_HX
					  ? "T.Limit margin and slowdown T.Limit"
					  : "T.Limit margin";
	} else if (g->slowdown_c != NP_HX && g->temp_c != NP_HX) {
		g->headroom_c = g->slowdown_c - g->temp_c;
		g->headroom_src = "slowdown threshold";
	}
	g->nvl_up = g->nvl_down = -1;
	if (a->nvl_state) {
		int up = 0, down = 0;
		size_t off = 0;
		for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
			int on = 0;
			if (a->nvl_state(d, l, &on) != 0)
				continue;
			if (on) {
				up++;
			} else {
				down++;
				if (off < sizeof(g->nvl_down_list) - 4)
					off += (size_t)snprintf(g->nvl_down_list + off,
								sizeof(g->nvl_down_list) - off,
								"%s%u", off ? "," : "", l);
			}
		}
		if (up + down > 0)
			g->nvl_up = up, g->nvl_down = down;
	}
}

struct sample {
	long long replay, crc, nvl_replay, recovery;
	long long viol[NP_VIOL_COUNT];
};

static void counters(const struct np_nvml *a, nvmlDevice_t d, struct sample *s)
{
	static const int policy[NP_VIOL_COUNT] = { 0, 1, 2,
						   3 }; /* NVML_PERF_POLICY_POWER .. BOARD_LIMIT */

	s->replay = uval(a->pcie_replay, d);
	nvl_counters(a, d, &s->crc, &s->nvl_replay, &s->recovery);
	for (int v = 0; v < NP_VIOL_COUNT; v++) {
		nvmlViolationTime_t vt;
		s->viol[v] = a->violation && a->violation(d, policy[v], &vt) == 0
				     ? (long long)vt.violationTime
				     : NP_HX;
	}
}

static int cmp_ll(const void *x, const void *y)
{
	long long a = *(const long long *)x, b = *(const long long *)y;

	return a < b ? -1 : a > b;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* The number after "Device Minor:" ("\t 0"), alone on its line; -1 (not
 * known: the GPU is kept without looking for its device node) when it is
 * not one */
static int64_t device_minor(const char *p)
{
	int64_t v;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!np_scan_i64(&p, 10, 0, INT32_MAX, &v))
		return -1;
	while (*p == ' ' || *p == '\t')
		p++;
	return *p == '\n' || !*p ? v : -1;
}

/* GPUs the driver lists whose device node exists (in a container the
 * driver's list shows the host's GPUs, the device nodes only the ones
 * given to it), or, without /proc/driver/nvidia, the GPUs of topo's
 * sysfs scan (np_sysfs_gpus) bound to the nvidia driver. */
static void driver_gpus(const struct np_sysfs *fs, char out[][NP_BUSID_LEN], int *n)
{
	char **names, buf[4096], rel[160];
	struct np_sysfs_gpu found[NP_MAX_GPUS];
	int k = np_sysfs_list(fs, "proc/driver/nvidia/gpus", &names);

	*n = 0;
	if (k >= 0) {
		for (int i = 0; i < k && *n < NP_MAX_GPUS; i++) {
			const char *p;
			int64_t minor = -1;
			if (!np_busid_norm(names[i], out[*n], NP_BUSID_LEN))
				continue;
			snprintf(rel, sizeof(rel), "proc/driver/nvidia/gpus/%s/information",
				 names[i]);
			if (np_sysfs_read(fs, rel, buf, sizeof(buf)) &&
			    (p = strstr(buf, "Device Minor:")))
				minor = device_minor(p + 13);
			snprintf(rel, sizeof(rel), "dev/nvidia%lld", (long long)minor);
			if (minor >= 0 && !np_sysfs_exists(fs, rel))
				continue;
			(*n)++;
		}
		np_sysfs_free_list(names, k);
		return;
	}
	k = np_sysfs_gpus(fs, found, NP_MAX_GPUS);
	for (int i = 0; i < k; i++)
		if (found[i].nvidia_driver)
			memcpy(out[(*n)++], found[i].busid, NP_BUSID_LEN);
}

/* The GPUs NVML lists, with their static figures; dev[i] is h->gpus[i]'s
 * handle. */
static void list_gpus(const struct np_nvml *a, const struct np_topo *t, struct np_health *h,
		      nvmlDevice_t *dev)
{
	unsigned n = 0;

	if (a->count(&n) != 0)
		n = 0;
	for (unsigned i = 0; i < n && h->ngpus < NP_MAX_GPUS; i++) {
		nvmlPciInfo_t pi;
		struct np_gpu_health *g = &h->gpus[h->ngpus];
		if (a->by_index(i, &dev[h->ngpus]) != 0 || a->pci(dev[h->ngpus], &pi) != 0)
			continue;
		np_gpu_health_init(g);
		if (!np_busid_norm(pi.busId, g->busid, sizeof(g->busid)))
			continue;
		g->nvml = true;
		for (int k = 0; k < t->ngpus; k++)
			if (!strcmp(t->gpus[k].busid, g->busid))
				g->gpu = k;
		gpu_static(a, dev[h->ngpus], g);
		h->ngpus++;
	}
}

/* GPUs bound to the nvidia driver that NVML does not list. */
static void find_unreachable(const struct np_sysfs *fs, struct np_health *h)
{
	char drv[NP_MAX_GPUS][NP_BUSID_LEN];
	int ndrv = 0;

	driver_gpus(fs, drv, &ndrv);
	for (int i = 0; i < ndrv; i++) {
		bool seen = false;
		for (int k = 0; k < h->ngpus; k++)
			seen |= !strcmp(h->gpus[k].busid, drv[i]);
		if (!seen)
			memcpy(h->unreachable[h->nunreachable++], drv[i], NP_BUSID_LEN);
	}
}

/* Starts the load of --under-load, if any, and lets its kernels reach
 * every GPU; returns the seconds left to sample. */
static double start_window(struct np_topo *t, struct np_health *h, const struct np_health_opts *o)
{
	double window = o->window_s;
	bool loaded = false;

	if (o->load && o->load->start) {
		loaded = o->load->start(o->load->arg, o->window_s) == 0;
		if (!loaded)
			np_topo_note(t,
				     "the load for --under-load did not start; clocks were sampled on idle GPUs");
	}
	h->under_load = loaded;
	h->window_s = o->window_s;
	if (loaded) { /* let the kernels reach every GPU before the first sample */
		double ramp = o->window_s / 4 < 0.5 ? o->window_s / 4 : 0.5;
		sleep_s(ramp);
		window -= ramp;
	}
	return window;
}

/* Clocks and power every window/n seconds (n at most 64, one per 100 ms);
 * the reasons seen at any sample are or-ed. */
struct clock_samples {
	long long sm[NP_MAX_GPUS][64], mem[NP_MAX_GPUS][64], pw[NP_MAX_GPUS][64];
	int n;
};

static void sample_clocks(const struct np_nvml *a, struct np_health *h, const nvmlDevice_t *dev,
			  double window, struct clock_samples *cs)
{
	int nsamples = (int)(window / 0.1);

	if (nsamples < 1)
		nsamples = 1;
	if (nsamples > 64)
		nsamples = 64;
	for (cs->n = 0; cs->n < nsamples; cs->n++) {
		int ns = cs->n;
		for (int i = 0; i < h->ngpus; i++) {
			unsigned long long r;
			struct np_gpu_health *g = &h->gpus[i];
			cs->sm[i][ns] = clk(a->clock, dev[i], NVML_CLOCK_SM);
			cs->mem[i][ns] = clk(a->clock, dev[i], NVML_CLOCK_MEM);
			cs->pw[i][ns] = uval(a->power, dev[i]);
			if (a->reasons && a->reasons(dev[i], &r) == 0)
				g->reasons = (g->reasons == NP_HX ? 0 : g->reasons) |
					     (long long)(r & 0x7fffffffffffffffull);
		}
		sleep_s(window / nsamples);
	}
}

/* GPU i's figures over the window: the medians of its known samples and
 * how much its counters grew between s0 and s1. */
static void window_figures(struct np_gpu_health *g, const struct clock_samples *cs, int i,
			   const struct sample *s0, const struct sample *s1)
{
	const long long *v[3] = { cs->sm[i], cs->mem[i], cs->pw[i] };
	long long *out[3] = { &g->sm_mhz, &g->mem_mhz, &g->power_mw };

	for (int k = 0; k < 3; k++) { /* the median of the known samples */
		long long known[64];
		int m = 0;
		for (int j = 0; j < cs->n; j++)
			if (v[k][j] != NP_HX)
				known[m++] = v[k][j];
		qsort(known, (size_t)m, sizeof(known[0]), cmp_ll);
		*out[k] = m ? known[m / 2] : NP_HX;
	}
	g->pcie_replay = s1->replay;
	g->pcie_replay_grew = grew(s0->replay, s1->replay);
	g->nvl_crc = s1->crc;
	g->nvl_replay = s1->nvl_replay;
	g->nvl_recovery = s1->recovery;
	g->nvl_crc_grew = grew(s0->crc, s1->crc);
	g->nvl_replay_grew = grew(s0->nvl_replay, s1->nvl_replay);
	g->nvl_recovery_grew = grew(s0->recovery, s1->recovery);
	for (int k = 0; k < NP_VIOL_COUNT; k++)
		g->viol_ns[k] = grew(s0->viol[k], s1->viol[k]);
}

bool np_health_nvml(struct np_topo *t, struct np_health *h, const struct np_sysfs *fs,
		    const struct np_health_opts *o)
{
	struct np_nvml a;
	nvmlDevice_t dev[NP_MAX_GPUS];
	struct sample s0[NP_MAX_GPUS], s1;
	struct clock_samples cs;
	double window;

	/* a fake root describes another machine: only a library named for
	 * it (a test's fake NVML) may speak for its GPUs */
	if (fs->fake && !getenv("NCCL_PROBE_NVML_LIB"))
		return false;
	if (t->no_gpu_libs || !hnvml_open(&a, t))
		return false;
	h->nvml = true;
	list_gpus(&a, t, h, dev);
	find_unreachable(fs, h);
	if (!h->ngpus) {
		np_nvml_close(&a);
		return true;
	}
	/* the window: counters at both ends, clocks and reasons every 100 ms */
	for (int i = 0; i < h->ngpus; i++)
		counters(&a, dev[i], &s0[i]);
	window = start_window(t, h, o);
	sample_clocks(&a, h, dev, window, &cs);
	if (h->under_load && o->load->stop)
		o->load->stop(o->load->arg);
	for (int i = 0; i < h->ngpus; i++) {
		counters(&a, dev[i], &s1);
		window_figures(&h->gpus[i], &cs, i, &s0[i], &s1);
	}
	np_nvml_close(&a);
	return true;
}

static void clocks_init(struct np_gpu_clocks *c)
{
	memset(c, 0, sizeof(*c));
	c->sm_mhz = c->sm_max_mhz = c->sm_app_default_mhz = c->temp_c = c->reasons = NP_HX;
	for (int v = 0; v < NP_VIOL_COUNT; v++)
		c->viol_ns[v] = NP_HX;
}

bool np_gpu_clocks_read(const char *busid, struct np_gpu_clocks *c)
{
	struct np_nvml a;
	char want[NP_BUSID_LEN];
	unsigned n = 0;

	clocks_init(c);
	if (!busid || !np_busid_norm(busid, want, sizeof(want)) || np_nvml_open(&a) != NP_NVML_OK)
		return false;
	if (a.count(&n) != 0)
		n = 0;
	for (unsigned i = 0; i < n; i++) {
		nvmlDevice_t d;
		nvmlPciInfo_t pi;
		char got[NP_BUSID_LEN];
		struct sample s;
		unsigned long long r;
		unsigned t;

		if (a.by_index(i, &d) != 0 || a.pci(d, &pi) != 0 ||
		    !np_busid_norm(pi.busId, got, sizeof(got)) || strcmp(got, want))
			continue;
		c->known = 1;
		c->sm_mhz = clk(a.clock, d, NVML_CLOCK_SM);
		c->sm_max_mhz = clk(a.clock_max, d, NVML_CLOCK_SM);
		c->sm_app_default_mhz = clk(a.clock_app_default, d, NVML_CLOCK_SM);
		if (a.temp && a.temp(d, NVML_TEMPERATURE_GPU, &t) == 0)
			c->temp_c = t;
		if (a.reasons && a.reasons(d, &r) == 0)
			c->reasons = (long long)(r & 0x7fffffffffffffffull);
		counters(&a, d, &s);
		memcpy(c->viol_ns, s.viol, sizeof(c->viol_ns));
		break;
	}
	np_nvml_close(&a);
	return c->known;
}

void np_gpu_clocks_span(const struct np_gpu_clocks *start, const struct np_gpu_clocks *end,
			struct np_gpu_clocks *span)
{
	*span = *end;
	if (!start->known || !end->known) {
		clocks_init(span);
		return;
	}
	if (start->reasons != NP_HX && end->reasons != NP_HX)
		span->reasons = start->reasons | end->reasons;
	for (int v = 0; v < NP_VIOL_COUNT; v++)
		span->viol_ns[v] = grew(start->viol_ns[v], end->viol_ns[v]);
}

long long np_gpu_clocks_median_sm(const struct np_gpu_clocks *all, int n, int skip)
{
	long long *v = malloc(((size_t)n + 1) * sizeof(*v)), med = NP_HX;
	int m = 0;

	if (!v)
		return NP_HX;
	for (int i = 0; i < n; i++)
		if (i != skip && all[i].known && all[i].sm_mhz != NP_HX)
			v[m++] = all[i].sm_mhz;
	if (m) {
		qsort(v, (size_t)m, sizeof(*v), cmp_ll);
		med = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
	}
	free(v);
	return med;
}

/* Append to buf at *off, never past len. */
static void put(char *buf, size_t len, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*off >= len)
		return;
	va_start(ap, fmt);
	w = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	*off = w < 0 ? len : *off + (size_t)w < len ? *off + (size_t)w : len;
}

static const char *mhz(char *buf, size_t len, long long v)
{
	if (v == NP_HX)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%lld", v);
	return buf;
}

void np_gpu_clocks_str(const struct np_gpu_clocks *c, long long others_sm_mhz, char *buf,
		       size_t len)
{
	size_t off = 0;
	char why[160], a[24], b[24];
	bool any = false;

	buf[0] = '\0';
	if (!c->known) {
		snprintf(buf, len, "clocks unknown (NVML did not answer for its GPU)");
		return;
	}
	if (c->sm_mhz != NP_HX)
		put(buf, len, &off, "SM %lld MHz after the sweep", c->sm_mhz);
	else
		put(buf, len, &off, "SM clock unknown");
	put(buf, len, &off, " (max %s, the other ranks' median %s)",
	    mhz(a, sizeof(a), c->sm_max_mhz), mhz(b, sizeof(b), others_sm_mhz));
	put(buf, len, &off, "; below application clocks during it:");
	for (int v = 0; v < NP_VIOL_COUNT; v++)
		if (c->viol_ns[v] != NP_HX && c->viol_ns[v] > 0) {
			put(buf, len, &off, "%s %s %lld ms", any ? "," : "",
			    np_viol_str((enum np_viol)v), c->viol_ns[v] / 1000000);
			any = true;
		}
	if (!any) {
		bool known = false;
		for (int v = 0; v < NP_VIOL_COUNT; v++)
			known |= c->viol_ns[v] != NP_HX;
		put(buf, len, &off, known ? " never" : " unknown");
	}
	np_clk_reasons_str(c->reasons, why, sizeof(why));
	put(buf, len, &off, "; clock events: %s", why);
	if (c->temp_c != NP_HX)
		put(buf, len, &off, "; %lld C", c->temp_c);
}
