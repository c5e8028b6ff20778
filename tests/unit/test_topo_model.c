/* SPDX-License-Identifier: MIT */
/* The topology model's helpers and path classes on hand-made trees. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "../../topo/topo.h"

/* bus ids as the sources write them */
static void bus_ids(void)
{
	char b[32];

	tap_ok(np_busid_norm("0000:19:00.0", b, sizeof(b)) && !strcmp(b, "0000:19:00.0"),
	       "bus id kept");
	tap_ok(np_busid_norm("00000000:1A:00.0", b, sizeof(b)) && !strcmp(b, "0000:1a:00.0"),
	       "NVML's 8-digit domain, upper case");
	tap_ok(np_busid_norm("3b:00.1", b, sizeof(b)) && !strcmp(b, "0000:3b:00.1"), "no domain");
	tap_ok(np_busid_norm("10001:00:00.0", b, sizeof(b)) && !strcmp(b, "10001:00:00.0"),
	       "a domain above 0xffff");
	tap_ok(!np_busid_norm("mlx5_0", b, sizeof(b)), "not a bus id");
	tap_ok(!np_busid_norm("0000:19:00", b, sizeof(b)), "no function");
	tap_is_dbl(np_pcie_gbps(5, 16), 63.015384615, 1e-6, "Gen5 x16 = 63.0 GB/s");
	tap_is_dbl(np_pcie_gbps(3, 16), 15.753846, 1e-5, "Gen3 x16 = 15.75 GB/s");
	tap_is_dbl(np_pcie_gbps(1, 1), 0.25, 1e-9, "Gen1 x1 = 0.25 GB/s");
	tap_is_int(np_pcie_gen_of_gts(16.0), 4, "16 GT/s is Gen4");
	tap_is_int(np_pcie_gen_of_gts(2.5), 1, "2.5 GT/s is Gen1");
	tap_is_int(np_port_state_parse("4: ACTIVE"), NP_PORT_ACTIVE, "sysfs ACTIVE");
	tap_is_int(np_port_state_parse("2: Polling"), NP_PORT_POLLING, "sysfs Polling");
	tap_is_int(np_port_state_parse("1: DOWN"), NP_PORT_DOWN, "sysfs DOWN");
	tap_is_int(np_link_layer_parse("Ethernet"), NP_LL_ROCE, "Ethernet link layer is RoCE");
	tap_is_str(np_path_str(NP_PATH_NODE), "NODE", "path names");
	tap_is_int(np_path_parse("pxb"), NP_PATH_PXB, "path names parse back");
	tap_is_str(np_severity_str((enum np_severity)99), "unknown",
		   "enum names have an unknown default");
}

/* GDR on the two-socket machine: peer memory, PXN, ACS */
static void two_sockets_gdr(struct np_topo *t)
{
	char why[NP_MSG_LEN];

	tap_is_int(np_topo_gpu_gdr(t, 0, why, sizeof(why)), NP_UNKNOWN,
		   "peer memory and the GPU attribute unknown: GDR unknown (%s)", why);
	t->host.peermem_loaded = NP_YES;
	tap_is_int(np_topo_gpu_gdr(t, 0, why, sizeof(why)), NP_UNKNOWN,
		   "the GPU attribute still unknown: unknown");
	t->gpus[0].gdr = NP_YES;
	tap_is_int(np_topo_gpu_gdr(t, 0, why, sizeof(why)), NP_YES,
		   "with both, GPU0 has GDR to mlx5_0 (%s)", why);
	tap_is_int(np_topo_gpu_gdr(t, 3, why, sizeof(why)), NP_NO, "GPU3 (NODE) has not: %s", why);
	tap_ok(strstr(why, "PHB") != NULL, "  the reason names NCCL's class");
	t->gpus[3].nvlinks = NP_COUNT_UNKNOWN;
	np_topo_paths(t);
	tap_is_int(np_topo_gpu_gdr(t, 3, why, sizeof(why)), NP_UNKNOWN,
		   "GPU3 with NVLinks unknown: NCCL may send through GPU0 (PXN), so unknown: %s",
		   why);
	t->gpus[3].nvlinks = 1;
	t->gpus[0].nvswitch_links = t->gpus[3].nvswitch_links = 1;
	t->gpus[0].nvlinks = 4;
	t->gpus[3].gdr = NP_YES;
	np_topo_paths(t);
	tap_is_int(np_topo_gpu_gdr(t, 3, why, sizeof(why)), NP_YES,
		   "GPU3 on the NVSwitch with GPU0: PXN, yes: %s", why);
	tap_is_int(t->near[3].pxn, 0, "  through GPU0");
	t->gpus[3].nvlinks = 0;
	t->gpus[0].nvlinks = NP_COUNT_UNKNOWN;
	t->gpus[0].nvswitch_links = t->gpus[3].nvswitch_links = NP_COUNT_UNKNOWN;
	np_topo_paths(t);
	t->pci[np_topo_pci_find(t, "0000:11:00.0")].acs = NP_YES;
	tap_is_int(np_topo_gpu_gdr(t, 0, why, sizeof(why)), NP_NO,
		   "ACS redirect on the switch between them takes GDR away");
}

/* a two-socket machine built by hand: paths, nearest NICs, GDR, bindings */
static void two_sockets(void)
{
	struct np_topo *t = malloc(sizeof(*t));
	struct np_gpu *g;
	struct np_nic *n;

	/* two sockets; socket 0: host bridge A with a switch (GPU0, GPU1, NIC0)
	 * and a nested switch (GPU2); host bridge B (GPU3); socket 1: GPU4 */
	np_topo_init(t);
	snprintf(t->host.arch, sizeof(t->host.arch), "x86_64"); /* no C2C */
	t->nnuma = 2;
	t->numa[0].os_index = 0;
	t->numa[1].os_index = 1;
	g = np_topo_gpu_add(t, "0000:19:00.0");
	g->numa = 0;
	g->pci =
		np_topo_pci_add_chain(t,
				      "pci0000:10/0000:10:01.0/0000:11:00.0/0000:12:00.0/0000:19:00.0",
				      0);
	g = np_topo_gpu_add(t, "0000:1a:00.0");
	g->numa = 0;
	g->pci =
		np_topo_pci_add_chain(t,
				      "pci0000:10/0000:10:01.0/0000:11:00.0/0000:12:01.0/0000:1a:00.0",
				      0);
	g = np_topo_gpu_add(t, "0000:1c:00.0");
	g->numa = 0;
	g->pci =
		np_topo_pci_add_chain(t,
				      "pci0000:10/0000:10:01.0/0000:11:00.0/0000:12:02.0/0000:1b:00.0/0000:1b:01.0/0000:1c:00.0",
				      0);
	g = np_topo_gpu_add(t, "0000:30:00.0");
	g->numa = 0;
	g->pci = np_topo_pci_add_chain(t, "pci0000:2f/0000:2f:01.0/0000:30:00.0", 0);
	g = np_topo_gpu_add(t, "0000:90:00.0");
	g->numa = 1;
	g->pci = np_topo_pci_add_chain(t, "pci0000:8f/0000:8f:01.0/0000:90:00.0", 1);
	n = np_topo_nic_add(t, "mlx5_0", 1);
	n->numa = 0;
	n->state = NP_PORT_ACTIVE;
	n->pci =
		np_topo_pci_add_chain(t,
				      "pci0000:10/0000:10:01.0/0000:11:00.0/0000:12:03.0/0000:1d:00.0",
				      0);
	t->gpus[0].nvpeer[1] = 4;
	t->gpus[3].nvlinks = t->gpus[4].nvlinks = 0; /* no NVLink: no PXN through GPU0 */
	np_topo_paths(t);
	tap_is_str(np_path_str(t->gg[0][1]), "NV", "direct NVLinks win over PCIe");
	tap_is_int(t->gg_nv[0][1], 4, "NV4");
	tap_is_str(np_path_str(t->gn[0][0]), "PIX", "GPU and NIC on one switch: PIX");
	tap_is_str(np_path_str(t->gg[0][2]), "PXB", "through a nested switch: PXB");
	tap_is_str(np_path_str(t->gg[0][3]), "NODE", "two host bridges of one NUMA node: NODE");
	tap_is_str(np_path_str(t->gg[0][4]), "SYS", "across sockets: SYS");
	tap_is_str(np_path_str(t->gn[4][0]), "SYS", "NIC across sockets: SYS");
	tap_is_int(t->near[0].n, 1, "GPU0 has one nearest NIC");
	tap_is_str(np_path_str(t->near[3].path), "NODE", "GPU3's nearest NIC is NODE away");
	{
		char chain[256];
		np_topo_pci_chain(t, t->gpus[3].pci, chain, sizeof(chain));
		tap_is_str(chain, "pci0000:2f/0000:2f:01.0/0000:30:00.0",
			   "a chain reads back as written");
	}
	np_topo_check(t);
	tap_ok(np_topo_has_finding(t, "numa-gpu-no-nic"), "GPU4 has no NIC on NUMA 1");
	tap_ok(np_topo_has_finding(t, "numa-nics-one-node"),
	       "the only NIC is on one NUMA node of two");
	tap_ok(np_topo_has_finding(t, "gdr-path"),
	       "GPU3 and GPU4 are too far from the NIC for GDR");
	tap_is_int(t->gpus[0].nvlinks, NP_COUNT_UNKNOWN, "NVLinks no source told stay unknown");
	tap_is_str(np_path_str(t->near[0].nccl), "PIX", "NCCL sees the switch as one element: PIX");
	tap_is_str(np_path_str(t->near[3].nccl), "PHB",
		   "two host bridges of one NUMA node are PHB to NCCL");
	two_sockets_gdr(t);
	{
		struct np_rank_bind rb[3] = { { 0, 4, "0-1" },
					      { 1, 4, "24-25" },
					      { 2, 4, "0-47" } };
		snprintf(t->numa[0].cpus, sizeof(t->numa[0].cpus), "0-23");
		snprintf(t->numa[1].cpus, sizeof(t->numa[1].cpus), "24-47");
		np_topo_check_binding(t, rb, 3);
		tap_ok(np_topo_has_finding(t, "cpu-binding-cross-numa"),
		       "rank 0 bound to NUMA 0 drives GPU4 on NUMA 1");
		tap_is_str(t->findings[t->nfindings - 2].subject, "rank 0",
			   "  the finding names rank 0");
		tap_is_str(t->findings[t->nfindings - 1].id, "cpu-binding-loose",
			   "rank 2 spans both nodes: loose");
		tap_ok(strstr(t->findings[t->nfindings - 1].message, "ranks 2 ") != NULL,
		       "  only rank 2: %s", t->findings[t->nfindings - 1].message);
	}
	np_topo_release(t);
	free(t);
}

/* a GPU and a NIC on one root port */
static void one_root_port(void)
{
	struct np_topo *t = malloc(sizeof(*t));
	struct np_gpu *g;
	struct np_nic *n;

	/* a GPU and a NIC on one root port (what some hypervisors show):
	 * nvidia-smi says PIX, NCCL puts the root port in the CPU: PHB */
	np_topo_init(t);
	snprintf(t->host.arch, sizeof(t->host.arch), "x86_64"); /* no C2C */
	t->nnuma = 1;
	g = np_topo_gpu_add(t, "0000:02:00.0");
	g->numa = 0;
	g->gdr = NP_YES;
	g->pci = np_topo_pci_add_chain(t, "pci0000:00/0000:00:02.0/0000:02:00.0", 0);
	n = np_topo_nic_add(t, "mlx5_0", 1);
	n->numa = 0;
	n->pci = np_topo_pci_add_chain(t, "pci0000:00/0000:00:02.0/0000:02:00.1", 0);
	n->pcie.gen_max = n->pcie.gen_cur = 4;
	n->pcie.width_max = n->pcie.width_cur = 16;
	n = np_topo_nic_add(t, "mlx5_1", 1);
	n->numa = 0;
	n->pci = np_topo_pci_add_chain(t, "pci0000:00/0000:00:03.0/0000:03:00.0", 0);
	n->pcie.gen_max = n->pcie.gen_cur = 3;
	n->pcie.width_max = n->pcie.width_cur = 4;
	t->host.peermem_loaded = NP_YES;
	np_topo_paths(t);
	tap_is_str(np_path_str(t->gn[0][0]), "PIX", "one root port: PIX in the matrix");
	tap_is_str(np_path_str(t->gn_nccl[0][0]), "PHB", "  and PHB to NCCL");
	{
		char why[NP_MSG_LEN];
		tap_is_int(np_topo_gpu_gdr(t, 0, why, sizeof(why)), NP_NO,
			   "so NCCL does not use GDR: %s", why);
		t->host.arch[0] = '\0'; /* a machine that may be a Grace: C2C unknown */
		np_topo_paths(t);
		tap_is_int(np_topo_gpu_gdr(t, 0, why, sizeof(why)), NP_UNKNOWN,
			   "of an unknown architecture, unknown: %s", why);
		tap_ok(strstr(why, "NVLink-C2C") != NULL, "  C2C is what is missing");
		t->gpus[0].c2c_links = 10;
		np_topo_paths(t);
		tap_is_str(np_path_str(t->gn_nccl[0][0]), "P2C", "with C2C links: P2C to NCCL");
		tap_is_int(np_topo_gpu_gdr(t, 0, why, sizeof(why)), NP_YES,
			   "  within its GDR level: %s", why);
		t->gpus[0].c2c_links = 0;
		np_topo_paths(t);
		tap_is_int(np_topo_gpu_gdr(t, 0, why, sizeof(why)), NP_NO, "  none: PHB, no GDR");
	}
	tap_ok(t->nics[1].mgmt, "a Gen3 x4 NIC beside a Gen4 x16 one is a management port");
	tap_ok(!t->nics[0].mgmt, "  the wide one is not");
	tap_is_int(t->near[0].n, 1, "  and is nobody's nearest NIC");
	np_topo_release(t);
	free(t);
}

int main(void)
{
	bus_ids();
	two_sockets();
	one_root_port();
	return tap_done();
}
