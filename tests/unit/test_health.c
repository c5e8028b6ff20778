/* SPDX-License-Identifier: MIT */
/* Health checks on hand-made figures: the clock comparisons that need a
 * GPU under load (which make check cannot start), the fleet's median and
 * outliers, and the reason names. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../topo/ethtool.h"
#include "../../topo/health.h"
#include "tap.h"
#include "../../topo/topo.h"

static int count(const struct np_topo *t, const char *id)
{
	int n = 0;

	for (int i = 0; i < t->nfindings; i++)
		n += !strcmp(t->findings[i].id, id);
	return n;
}

/* One H100 under load (or idle) at sm MHz with the given reasons. */
static int clock_low(bool under_load, long long sm, long long reasons, struct np_topo *t)
{
	struct np_health *h = calloc(1, sizeof(*h));
	struct np_gpu_health *g = &h->gpus[0];

	np_topo_release(t);
	np_topo_init(t);
	np_topo_gpu_add(t, "0000:19:00.0");
	h->host.shm_bytes = h->host.shm_free = h->host.shm_need = h->host.memlock = NP_HX;
	h->host.container = h->host.iommu_dma = NP_UNKNOWN;
	h->ngpus = 1;
	h->window_s = 3;
	h->under_load = under_load;
	np_gpu_health_init(g);
	g->gpu = 0;
	g->nvml = true;
	snprintf(g->busid, sizeof(g->busid), "0000:19:00.0");
	g->sm_mhz = sm;
	g->sm_max_mhz = 1980;
	g->sm_app_mhz = g->sm_app_default_mhz = 1755;
	g->reasons = reasons;
	np_health_check(t, h);
	free(h);
	return count(t, "health-gpu-clock-low");
}

/* One active RoCE port on eth at cur of max Mb/s (NP_HX: ethtool could not tell). */
static int nic_rate(long long cur, long long max, enum np_port_state state, struct np_topo *t)
{
	struct np_health *h = calloc(1, sizeof(*h));
	struct np_nic *n;

	np_topo_release(t);
	np_topo_init(t);
	n = np_topo_nic_add(t, "mlx5_0", 1);
	n->ll = NP_LL_ROCE;
	n->state = state;
	snprintf(n->netdev, sizeof(n->netdev), "ens1f0np0");
	h->host.shm_bytes = h->host.shm_free = h->host.shm_need = h->host.memlock = NP_HX;
	h->host.container = h->host.iommu_dma = NP_UNKNOWN;
	h->nnics = 1;
	h->nics[0].nic = 0;
	for (int c = 0; c < NP_HEALTH_NIC_COUNTERS; c++)
		h->nics[0].before[c] = h->nics[0].after[c] = NP_HX;
	h->nics[0].rate_max_gbit = NP_HX;
	h->nics[0].eth_mbps = cur;
	h->nics[0].eth_max_mbps = max;
	np_health_check(t, h);
	free(h);
	return count(t, "health-nic-rate");
}

static struct np_health_row row(const char *node, int gpu, long long sm, long long reasons,
				int under_load)
{
	struct np_health_row r;

	memset(&r, 0, sizeof(r));
	snprintf(r.node, sizeof(r.node), "%s", node);
	r.gpu = gpu;
	r.sm_mhz = sm;
	r.sm_app_default_mhz = 1410;
	r.temp_c = 60;
	r.power_mw = 300000;
	r.reasons = reasons;
	r.under_load = under_load;
	return r;
}

static void write_conf(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		tap_ok(0, "write %s", path);
}

/* The sweep's clocks of one GPU: two reads through the fake NVML (as a
 * real one answers, each read loads NVML anew), the counters planted
 * higher at the second, the span between them and its line of evidence. */
static void gpu_clocks_span(void)
{
	char conf[] = "/tmp/np-fake-nvml-XXXXXX", lib[4096], ev[512];
	struct np_gpu_clocks a, b, span, all[3];
	int fd = mkstemp(conf);
	static const char base[] =
		"count=2\n"
		"gpu0.busid=00000000:19:00.0\ngpu0.sm=1410\ngpu0.sm_max=1980\ngpu0.reasons=0\n"
		"gpu0.viol_thermal=0\ngpu0.viol_power=0\n"
		"gpu1.busid=00000000:3B:00.0\ngpu1.sm=1200\ngpu1.sm_max=1980\ngpu1.sm_app_default=1755\n"
		"gpu1.reasons=0x20\ngpu1.temp=87\ngpu1.viol_power=5000000\n";

	if (fd < 0 || !realpath("tests/fakenvml/libfakenvml.so", lib)) {
		tap_ok(0,
		       "the fake NVML (tests/fakenvml/libfakenvml.so, built by make check) and a temporary file");
		if (fd >= 0)
			unlink(conf);
		return;
	}
	close(fd);
	setenv("NCCL_PROBE_NVML_LIB", lib, 1);
	setenv("NP_FAKE_NVML", conf, 1);
	unsetenv("OMPI_COMM_WORLD_RANK");

	write_conf(conf, base);
	tap_ok(np_gpu_clocks_read("0000:3b:00.0", &a),
	       "the GPU at 0000:3b:00.0 is read (NVML spells it 00000000:3B:00.0)");
	tap_is_int((int)a.sm_mhz, 1200, "  its SM clock, not the first GPU's");
	tap_ok(!np_gpu_clocks_read("0000:5e:00.0", &b) && !b.known && b.sm_mhz == NP_HX,
	       "a bus id NVML does not list: unknown, every figure unknown");
	tap_ok(!np_gpu_clocks_read(NULL, &b) && !b.known,
	       "no GPU (the host backend): nothing read");

	{
		char more[sizeof(base) + 128];
		snprintf(more, sizeof(more),
			 "%sgpu1.viol_thermal=3100000000\ngpu1.viol_power=5000000\n", base);
		/* before the sweep: thermal 1 s; after: 3.1 s; power unchanged */
		write_conf(conf,
			   "count=2\ngpu1.busid=00000000:3B:00.0\ngpu1.viol_thermal=1000000000\ngpu1.viol_power=5000000\ngpu1.reasons=0\n");
		np_gpu_clocks_read("0000:3b:00.0", &a);
		write_conf(conf, more);
		np_gpu_clocks_read("0000:3b:00.0", &b);
	}
	np_gpu_clocks_span(&a, &b, &span);
	tap_is_int((int)(span.viol_ns[NP_VIOL_THERMAL] / 1000000), 2100,
		   "thermal violation time grew 2100 ms over the span");
	tap_is_int((int)span.viol_ns[NP_VIOL_POWER], 0, "power violation did not grow");
	tap_ok(span.viol_ns[NP_VIOL_BOARD] == NP_HX, "a counter NVML does not give stays unknown");
	tap_ok(span.reasons == NP_CLK_SW_THERMAL, "the reasons of either read");

	write_conf(conf, base);
	np_gpu_clocks_read("0000:19:00.0", &all[0]);
	all[1] = span;
	np_gpu_clocks_read("0000:19:00.0", &all[2]);
	all[2].sm_mhz = 1400;
	tap_is_int((int)np_gpu_clocks_median_sm(all, 3, 1), 1405,
		   "the other ranks' median SM clock leaves the slow rank out");
	np_gpu_clocks_str(&span, np_gpu_clocks_median_sm(all, 3, 1), ev, sizeof(ev));
	tap_is_str(ev,
		   "SM 1200 MHz after the sweep (max 1980, the other ranks' median 1405); below application clocks during it: thermal 2100 ms; clock events: SW thermal slowdown; 87 C",
		   "the evidence beside the slowest rank");
	np_gpu_clocks_span(&a, &b, &span);
	span.viol_ns[NP_VIOL_THERMAL] = 0;
	span.reasons = 0;
	np_gpu_clocks_str(&span, NP_HX, ev, sizeof(ev));
	tap_ok(strstr(ev,
		      "(max 1980, the other ranks' median ?); below application clocks during it: never; clock events: none") !=
		       NULL,
	       "a healthy span says never and none; an unknown median is '?'");
	np_gpu_clocks_read(NULL, &b);
	np_gpu_clocks_str(&b, 1410, ev, sizeof(ev));
	tap_is_str(ev, "clocks unknown (NVML did not answer for its GPU)", "unknown clocks say so");
	unlink(conf);
	unsetenv("NCCL_PROBE_NVML_LIB");
	unsetenv("NP_FAKE_NVML");
}

int main(void)
{
	struct np_topo *t = malloc(sizeof(*t));
	struct np_health_row rows[16];
	long long median;
	char buf[160];

	np_topo_init(t);
	tap_is_int(clock_low(true, 1200, 0, t), 1,
		   "under load at 1200 of 1755 MHz, no reason: clock-low");
	tap_ok(strstr(t->findings[0].message,
		      "SM 1200 MHz under load, below its application clock 1755 MHz") != NULL,
	       "  the message has both clocks: %s", t->findings[0].message);
	tap_is_int(clock_low(true, 1650, 0, t), 0, "under load at 1650 of 1755 MHz (94%%): none");
	tap_is_int(clock_low(true, 345, NP_CLK_IDLE, t), 0,
		   "an idle GPU under --under-load (hidden from the load): none");
	tap_is_int(clock_low(false, 345, 0, t), 0, "idle sampling compares no clock");
	tap_is_int(clock_low(true, 1200, NP_CLK_HW_THERMAL, t), 0,
		   "a thermal slowdown is not also clock-low");
	tap_is_int(count(t, "health-gpu-slowdown"), 1, "  it is health-gpu-slowdown");
	tap_is_int(clock_low(true, NP_HX, 0, t), 0, "an unknown clock: none");

	for (int i = 0; i < 8; i++)
		rows[i] = row("n", i, 1410, 0, 1);
	snprintf(rows[3].node, sizeof(rows[3].node), "node17");
	rows[3].sm_mhz = 1200;
	rows[3].reasons = NP_CLK_SW_THERMAL;
	np_topo_release(t);
	np_topo_init(t);
	np_health_fleet(t, rows, 8, &median);
	tap_is_int((int)median, 1410, "fleet median of 7 x 1410 and 1200 MHz");
	tap_is_int(count(t, "health-fleet-outlier"), 1, "one outlier");
	tap_is_str(t->findings[0].message,
		   "node17 GPU3: SM 1200 MHz (fleet 1410), thermal slowdown active",
		   "  named as the issue describes it");
	tap_is_int(t->findings[0].sev, NP_SEV_ERROR, "  an error");

	for (int i = 0; i < 8; i++)
		rows[i] = row("n", i, i == 5 ? 210 : 345, NP_CLK_IDLE, 0);
	np_topo_release(t);
	np_topo_init(t);
	np_health_fleet(t, rows, 8, &median);
	tap_ok(median == NP_HX && t->nfindings == 0, "idle GPUs: no median, no outlier");
	for (int i = 0; i < 8; i++)
		rows[i] = row("n", i, i == 5 ? 1000 : 1410, NP_HX, 0);
	np_topo_release(t);
	np_topo_init(t);
	np_health_fleet(t, rows, 8, &median);
	tap_ok(median == NP_HX && t->nfindings == 0,
	       "reasons unknown and no load: clocks are not compared");
	for (int i = 0; i < 8; i++)
		rows[i] = row("n", i, i == 5 ? 1300 : 1410, NP_HX, 1);
	np_topo_release(t);
	np_topo_init(t);
	np_health_fleet(t, rows, 8, &median);
	tap_ok(median == 1410 && t->nfindings == 1 && t->findings[0].sev == NP_SEV_WARNING,
	       "reasons unknown under load: 1300 MHz is a warning against 1410");

	/* Ethernet ports below their fastest link mode */
	tap_is_int(nic_rate(100000, 400000, NP_PORT_ACTIVE, t), 1,
		   "RoCE port at 100 of 400 Gb/s: health-nic-rate");
	tap_ok(strstr(t->findings[0].message,
		      "ens1f0np0 runs at 100 of the 400 Gb/s it supports") != NULL,
	       "  the message names the netdev and both rates: %s", t->findings[0].message);
	tap_ok(strstr(t->findings[0].evidence,
		      "speed 100000 Mb/s, fastest supported link mode 400000 Mb/s") != NULL,
	       "  the evidence is ethtool's: %s", t->findings[0].evidence);
	tap_is_int(nic_rate(400000, 400000, NP_PORT_ACTIVE, t), 0, "at its fastest mode: none");
	tap_is_int(nic_rate(1000, 2500, NP_PORT_ACTIVE, t), 1,
		   "1 of 2.5 Gb/s: found (rates kept in Mb/s)");
	tap_is_int(nic_rate(100000, NP_HX, NP_PORT_ACTIVE, t), 0, "fastest mode unknown: none");
	tap_is_int(nic_rate(NP_HX, NP_HX, NP_PORT_ACTIVE, t), 0, "ethtool could not tell: none");
	tap_is_int(nic_rate(100000, 400000, NP_PORT_DOWN, t), 0,
		   "a port that is down: not this finding");
	{
		uint32_t m[8] = { 0 };
		long long cur = 1, max = 1;
		tap_is_int((int)np_link_modes_max_mbps(m, 8), 0, "no mode set: 0");
		m[0] = 1u << 6 | 1u << 13; /* Autoneg, Pause: not speeds */
		tap_is_int((int)np_link_modes_max_mbps(m, 8), 0, "only non-speed bits: 0");
		m[1] = 1u << (36 - 32); /* 100000baseKR4 */
		tap_is_int((int)np_link_modes_max_mbps(m, 8), 100000, "100GBASE-KR4: 100000 Mb/s");
		m[2] = 1u << (89 - 64); /* 400000baseCR4 */
		tap_is_int((int)np_link_modes_max_mbps(m, 8), 400000,
			   "and 400GBASE-CR4: 400000 Mb/s");
		m[2] |= 1u << (93 - 64); /* 800000baseCR8 (Linux 6.4) */
		tap_is_int((int)np_link_modes_max_mbps(m, 8), 800000,
			   "and 800GBASE-CR8: 800000 Mb/s");
		tap_is_int((int)np_link_modes_max_mbps(m, 2), 100000,
			   "only the words the kernel gave are read");
		memset(m, 0, sizeof(m));
		m[7] = 1u << 31; /* a mode newer than the table */
		tap_is_int((int)np_link_modes_max_mbps(m, 8), 0,
			   "a mode of unknown speed is not guessed");
		tap_is_int(np_ethtool_rates("lo", &cur, &max), -1,
			   "loopback has no link modes: unknown");
		tap_ok(cur == 0 && max == 0, "  and both rates read 0");
		tap_is_int(np_ethtool_rates("no-such-netdev0", &cur, &max), -1,
			   "a netdev that does not exist: unknown");
		tap_is_int(np_ethtool_rates("an-interface-name-far-too-long", &cur, &max), -1,
			   "a name longer than IFNAMSIZ: refused");
	}

	gpu_clocks_span();

	np_clk_reasons_str(NP_CLK_SW_POWER_CAP | NP_CLK_HW_THERMAL, buf, sizeof(buf));
	tap_is_str(buf, "power cap, HW thermal slowdown", "reason names");
	np_clk_reasons_str(0, buf, sizeof(buf));
	tap_is_str(buf, "none", "no reason");
	np_clk_reasons_str(NP_HX, buf, sizeof(buf));
	tap_is_str(buf, "unknown", "unknown reasons");
	np_topo_release(t);
	free(t);
	return tap_done();
}
