/* SPDX-License-Identifier: MIT */
/* The GPUDirect RDMA checks over the model: peer memory, dma-buf, the
 * GPU's attribute, path class against NCCL's default GDR level, BAR1, ACS;
 * and each GPU's answer (np_topo_gpu_gdr). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "topo.h"

#define BAR1_MIN_MIB 1024 /* below this, NCCL's GDR buffers crowd BAR1 */

/* The first bridge with ACS redirect on the way between two PCI nodes. */
static int acs_on_path(const struct np_topo *t, int a, int b)
{
	for (int side = 0; side < 2; side++) {
		int from = side ? b : a, other = side ? a : b;
		for (int i = from; i >= 0; i = t->pci[i].parent) {
			bool above_other = false;
			for (int j = other; j >= 0; j = t->pci[j].parent)
				if (j == i)
					above_other = true;
			if (t->pci[i].kind == NP_PCI_BRIDGE && t->pci[i].acs == NP_YES)
				return i;
			if (above_other)
				break;
		}
	}
	return -1;
}

/* How the source knows what it says, for evidence lines. */
static const char *said_by(const struct np_topo *t)
{
	switch (t->kind) {
	case NP_SRC_LIVE: return "this node";
	case NP_SRC_SNAPSHOT: return "the snapshot";
	case NP_SRC_HWLOC:
	case NP_SRC_NCCL: return "the file";
	}
	return "the source";
}

static void gpu_gdr_attr_evidence(const struct np_topo *t, const struct np_gpu *g, char *buf,
				  size_t len)
{
	if (t->kind == NP_SRC_NCCL)
		snprintf(buf, len, "the file says gdr=\"0\" in the <gpu> of %s", g->busid);
	else if (t->kind == NP_SRC_SNAPSHOT)
		snprintf(buf, len,
			 "the snapshot records CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED = 0 for %s",
			 g->busid);
	else
		snprintf(buf, len, "CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED = 0 for %s",
			 g->busid);
}

static void add_missing(char *buf, size_t len, const char *what)
{
	size_t off = strlen(buf);

	snprintf(buf + off, len - off, "%s%s", off ? "; " : "", what);
}

static int rdma_nics(const struct np_topo *t)
{
	int n = 0;

	for (int k = 0; k < t->nnics; k++)
		n += t->nics[k].rdma != NP_NO;
	return n;
}

/* A data NIC port that is not up (DOWN, INIT, ARMED) nearer to GPU i, as
 * NCCL classes paths, than the one NCCL uses instead: the cause of a far
 * path. -1 when there is none. */
static int down_nearer(const struct np_topo *t, int i)
{
	const struct np_near *nr = &t->near[i];
	int best = -1;

	if (nr->n == 0 || nr->nccl == NP_PATH_UNKNOWN)
		return -1;
	for (int k = 0; k < t->nnics; k++) {
		enum np_port_state st = t->nics[k].state;
		if ((st != NP_PORT_DOWN && st != NP_PORT_INIT && st != NP_PORT_ARMED) ||
		    !np_topo_nic_data(t, k) || t->gn_nccl[i][k] == NP_PATH_UNKNOWN ||
		    t->gn_nccl[i][k] >= nr->nccl)
			continue;
		if (best < 0 || t->gn_nccl[i][k] < t->gn_nccl[i][best])
			best = k;
	}
	return best;
}

/* GDR of a GPU on a machine where the source shows no RDMA NIC: unknown
 * when the NICs may be hidden, else no. */
static enum np_tri gdr_without_rdma_nic(const struct np_topo *t, char *why, size_t len)
{
	if (t->plugin_nics) {
		snprintf(why, len,
			 "unknown: the NICs are %s, which NCCL reaches through a network plugin (%s); whether it registers GPU memory is not in %s",
			 t->plugin_kind, t->plugin_name, said_by(t));
		return NP_UNKNOWN;
	}
	if (t->unclassified) {
		snprintf(why, len,
			 "unknown: %s leaves %d PCI device(s) without class or vendor, which NCCL takes from the node; its NICs may be among them",
			 said_by(t), t->unclassified);
		return NP_UNKNOWN;
	}
	if (t->nnics)
		snprintf(why, len,
			 "no RDMA NIC: %s lists only socket interfaces, which cannot do GPUDirect RDMA",
			 said_by(t));
	else if (t->kind == NP_SRC_LIVE)
		snprintf(why, len, "no RDMA NIC: sysfs class/infiniband lists no device");
	else
		snprintf(why, len, "no RDMA NIC: %s lists none", said_by(t));
	return NP_NO;
}

enum np_tri np_topo_gpu_gdr(const struct np_topo *t, int i, char *why, size_t len)
{
	const struct np_gpu *g = &t->gpus[i];
	const struct np_near *nr = &t->near[i];
	const struct np_nic *n;
	char missing[NP_MSG_LEN] = "", m[NP_MSG_LEN / 2];
	const char *via = NULL;
	bool dmabuf = t->host.dmabuf_nic == NP_YES && g->dmabuf == NP_YES;
	enum np_path cls = nr->nccl;
	int peer = g->pci;

	if (rdma_nics(t) == 0)
		return gdr_without_rdma_nic(t, why, len);
	if (nr->n == 0 || g->pci < 0) {
		snprintf(why, len,
			 "unknown: the PCIe path between the GPU and the NICs is not in %s",
			 said_by(t));
		return NP_UNKNOWN;
	}
	n = &t->nics[nr->nics[0]];
	if (nr->pxn >= 0) { /* NCCL sends through the NIC's local GPU: its path decides */
		n = &t->nics[nr->pxn_nic];
		peer = t->gpus[nr->pxn].pci;
		cls = t->gn_nccl[nr->pxn][nr->pxn_nic];
	}
	/* what the source states against GDR */
	if (!t->flat && cls != NP_PATH_UNKNOWN && !np_path_gdr_level(cls) && !nr->pxn_unknown &&
	    !nr->c2c_unknown) {
		int d = down_nearer(t, i);
		if (d >= 0)
			snprintf(why, len,
				 "%s port %d, %s from the GPU, is %s; NCCL uses %s instead, %s away, beyond its default GDR level PXB",
				 t->nics[d].name, t->nics[d].port, np_path_str(t->gn_nccl[i][d]),
				 np_port_state_str(t->nics[d].state), n->name,
				 np_path_str(nr->nccl));
		else if (nr->nccl != nr->path)
			snprintf(why, len,
				 "nearest NIC %s is %s to NCCL (%s as nvidia-smi names it), beyond NCCL's default GDR level PXB",
				 n->name, np_path_str(nr->nccl), np_path_str(nr->path));
		else
			snprintf(why, len,
				 "nearest NIC %s is %s, beyond NCCL's default GDR level PXB",
				 n->name, np_path_str(nr->nccl));
		return NP_NO;
	}
	if (g->gdr == NP_NO) {
		gpu_gdr_attr_evidence(t, g, m, sizeof(m));
		snprintf(why, len, "the GPU does not support GPUDirect RDMA (%s)", m);
		return NP_NO;
	}
	if (n->gdr == NP_NO) {
		snprintf(why, len,
			 "NIC %s cannot register GPU memory (the file says gdr=\"0\" in its <net>)",
			 n->name);
		return NP_NO;
	}
	if (peer >= 0 && acs_on_path(t, peer, n->pci) >= 0) {
		snprintf(why, len, "ACS redirect is on between the GPU and %s", n->name);
		return NP_NO;
	}
	if (n->gdr != NP_YES && t->host.peermem_loaded == NP_NO &&
	    (t->host.dmabuf_nic == NP_NO || g->dmabuf == NP_NO)) {
		snprintf(why, len, "no peer-memory module is loaded and %s refuses dma-buf",
			 t->host.dmabuf_nic == NP_NO ? "the RDMA stack" : "the GPU");
		return NP_NO;
	}
	/* what is missing for a yes */
	if (t->flat)
		add_missing(missing, sizeof(missing),
			    "the real PCIe path (the hypervisor flattens the tree this source shows)");
	else if (cls == NP_PATH_UNKNOWN)
		add_missing(missing, sizeof(missing), "the PCIe path to the NIC");
	if (nr->pxn < 0 && nr->pxn_unknown)
		add_missing(missing, sizeof(missing),
			    "whether NVLink joins the GPU to a GPU near a NIC, through which NCCL would send (PXN)");
	if (nr->pxn < 0 && nr->c2c_unknown)
		add_missing(missing, sizeof(missing),
			    "whether the GPU has NVLink-C2C to the CPU its NIC hangs from (on Grace NCCL calls that path P2C, within its GDR level)");
	if (n->rdma == NP_UNKNOWN) {
		snprintf(m, sizeof(m), "whether %s is an RDMA NIC", n->name);
		add_missing(missing, sizeof(missing), m);
	}
	if (g->gdr == NP_UNKNOWN)
		add_missing(missing, sizeof(missing), "the GPU's GDR support");
	if (n->gdr == NP_YES)
		via = "the NIC's GPU memory registration (gdr=\"1\" in the file)";
	else if (t->host.peermem_loaded == NP_YES)
		via = "peer memory";
	else if (dmabuf)
		via = "dma-buf";
	else
		add_missing(missing, sizeof(missing),
			    t->kind == NP_SRC_NCCL
				    ? "whether the NIC registers GPU memory (no gdr in its <net>)"
				    : "peer memory or dma-buf");
	if (missing[0]) {
		snprintf(why, len, "unknown: %s; %s does not tell", missing, said_by(t));
		return NP_UNKNOWN;
	}
	if (nr->pxn >= 0)
		snprintf(why, len,
			 "PXN: NCCL sends through GPU%d (NVLink) to %s, %s from GPU%d, within its GDR level, via %s",
			 nr->pxn, n->name, np_path_str(cls), nr->pxn, via);
	else if (nr->nccl == NP_PATH_P2C)
		snprintf(why, len,
			 "P2C to %s (the GPU's C2C link to its CPU, which holds the NIC: within NCCL's GDR level while NCCL_NET_GDR_C2C is 1, its default) via %s",
			 n->name, via);
	else
		snprintf(why, len, "%s to %s via %s", np_path_str(nr->nccl), n->name, via);
	return NP_YES;
}

enum np_tri np_topo_gdr_all(const struct np_topo *t)
{
	enum np_tri all = NP_YES;
	char why[NP_MSG_LEN];

	if (!t->ngpus) /* the GPUs may be among devices the file leaves unclassified */
		return t->unclassified ? NP_UNKNOWN : NP_NO;
	for (int i = 0; i < t->ngpus; i++) {
		enum np_tri v = np_topo_gpu_gdr(t, i, why, sizeof(why));
		if (v == NP_NO)
			return NP_NO;
		if (v == NP_UNKNOWN)
			all = NP_UNKNOWN;
	}
	/* a multi-node NVLink dump: every tray's GPUs, each read on its own */
	for (int k = 0; k < t->ntrays; k++) {
		if (t->trays[k].gdr == NP_NO)
			return NP_NO;
		if (t->trays[k].gdr == NP_UNKNOWN)
			all = NP_UNKNOWN;
	}
	return all;
}

static void gpu_list_add(char *buf, size_t len, int i)
{
	snprintf(buf + strlen(buf), len - strlen(buf), "%sGPU%d", buf[0] ? "," : "", i);
}

/* The makers of GPUs that NCCL files (RCCL's dumps) may hold. */
static void gpu_vendor_name(unsigned vendor, char *buf, size_t len)
{
	switch (vendor) {
	case 0x1002: snprintf(buf, len, "AMD"); break;
	case 0x1d94: snprintf(buf, len, "Hygon"); break;
	case 0x8086: snprintf(buf, len, "Intel"); break;
	default: snprintf(buf, len, "vendor 0x%04x", vendor); break;
	}
}

/* An NCCL file with PCI devices of no known class: GPUs, NICs and GDR
 * are NCCL's to find out when it merges the file. */
static void gdr_check_skeleton(struct np_topo *t)
{
	struct np_finding *f;

	if (!t->unclassified)
		return;
	f = np_topo_finding(t, "nccl-skeleton", NP_SEV_INFO, "node");
	SET(f->message,
	    "the file leaves %d PCI device(s) unclassified (a bus id without class or vendor); NCCL takes what they are "
	    "from the node when it merges the file, so which are GPUs or NICs, and GDR, are unknown here",
	    t->unclassified);
	SET(f->evidence, "%d <pci> element(s) with a busid and no class, vendor, <gpu> or <nic>",
	    t->unclassified);
	SET(f->remedy,
	    "run 'nccl-probe topo' on the node itself, or read NCCL's dump of it (NCCL_TOPO_DUMP_FILE) with this file set");
}

/* No NVIDIA GPU: nothing for GDR to do, and why (another maker's GPUs). */
static void gdr_check_no_gpu(struct np_topo *t)
{
	struct np_finding *f;
	char vendor[48];

	if (t->ngpus != 0 || t->unclassified)
		return;
	gpu_vendor_name(t->other_gpu_vendor, vendor, sizeof(vendor));
	f = np_topo_finding(t, "gdr-no-gpu", NP_SEV_INFO, "node");
	if (t->other_gpus)
		SET(f->message,
		    "no NVIDIA GPU found: the file's %d GPU(s) are %s GPUs, which NCCL does not drive "
		    "(RCCL or oneCCL does); there is nothing for NCCL's GPUDirect RDMA to do",
		    t->other_gpus, vendor);
	else
		SET(f->message, "no NVIDIA GPU found; there is nothing for GPUDirect RDMA to do");
	if (t->other_gpus && t->other_gpu_what[0])
		SET(f->evidence, "%d %s GPU(s) in %s; the first: %s", t->other_gpus, vendor,
		    said_by(t), t->other_gpu_what);
	else if (t->other_gpus)
		SET(f->evidence, "%d display or 3D controller(s) of PCI vendor 0x%04x (%s)",
		    t->other_gpus, t->other_gpu_vendor, vendor);
	else
		SET(f->evidence, "%s",
		    t->kind == NP_SRC_LIVE
			    ? "NVML and sysfs list no NVIDIA display or 3D controller"
		    : t->kind == NP_SRC_SNAPSHOT ? "the snapshot has no NVIDIA GPU"
						 : "the file has no NVIDIA GPU");
	SET(f->remedy, "%s",
	    t->other_gpus
		    ? "read this node with its vendor's tools (RCCL's rocm-smi topology for AMD)"
		    : "run on a GPU node, or check that the GPUs are visible (lspci -d 10de:)");
}

/* No verbs NIC: a network plugin's devices, or sockets only. */
static void gdr_check_no_rdma_nic(struct np_topo *t)
{
	struct np_finding *f;

	if (rdma_nics(t) == 0 && t->plugin_nics) {
		f = np_topo_finding(t, "net-plugin", NP_SEV_INFO, "node");
		SET(f->message,
		    "no verbs RDMA NIC: the %d network device(s) are %s, which NCCL reaches through a network plugin (%s), "
		    "not sockets, once that plugin is installed",
		    t->plugin_nics, t->plugin_kind, t->plugin_name);
		SET(f->evidence,
		    "%d PCI network device(s) of %s and no OpenFabrics (verbs) device in %s",
		    t->plugin_nics, t->plugin_kind, said_by(t));
		SET(f->remedy,
		    "install %s and check that NCCL loads it (NCCL_DEBUG=INFO prints 'NET/OFI')",
		    t->plugin_name);
	} else if (rdma_nics(t) == 0 && !t->unclassified) {
		f = np_topo_finding(t, "gdr-no-nic", NP_SEV_INFO, "node");
		SET(f->message, "no RDMA NIC found; NCCL will use sockets between nodes");
		if (t->nnics)
			SET(f->evidence, "%s lists only socket interfaces (%s%s)", said_by(t),
			    t->nics[0].name, t->nnics > 1 ? ", ..." : "");
		else
			SET(f->evidence, "%s",
			    t->kind == NP_SRC_LIVE ? "sysfs class/infiniband is empty or absent"
			    : t->kind == NP_SRC_SNAPSHOT ? "the snapshot lists no RDMA NIC"
							 : "the file lists no RDMA NIC");
		SET(f->remedy,
		    "for multi-node jobs install the NIC driver (rdma-core, MLNX_OFED or EFA) or use a node with RDMA NICs");
	}
}

/* The node's two ways to register GPU memory: the peer-memory module
 * (a warning only where dma-buf cannot stand in on every GPU) and the
 * RDMA stack's dma-buf support. */
static void gdr_check_host(struct np_topo *t)
{
	struct np_finding *f;
	bool dmabuf_all = t->host.dmabuf_nic == NP_YES;

	for (int i = 0; i < t->ngpus; i++)
		dmabuf_all = dmabuf_all && t->gpus[i].dmabuf == NP_YES;
	if (t->host.peermem_loaded == NP_NO) {
		f = np_topo_finding(t, "gdr-peermem-missing",
				    dmabuf_all ? NP_SEV_INFO : NP_SEV_WARNING, "node");
		SET(f->message, "no GPU peer-memory module is loaded%s",
		    dmabuf_all ? "; dma-buf can carry GPUDirect RDMA instead"
			       : "; without it or dma-buf NCCL cannot use GPUDirect RDMA");
		SET(f->evidence,
		    "%s: none of /sys/kernel/mm/memory_peers/nv_mem/version, /sys/kernel/mm/memory_peers/nv_mem_nc/version, /sys/module/nvidia_peermem/version exists",
		    t->kind == NP_SRC_SNAPSHOT ? "the snapshot records" : "on this node");
		SET(f->remedy,
		    "modprobe nvidia-peermem (and load it at boot), or use dma-buf: open GPU kernel modules, Linux 5.12+, NCCL 2.19+");
	}
	if (t->host.dmabuf_nic == NP_NO) {
		f = np_topo_finding(t, "gdr-dmabuf-unsupported", NP_SEV_INFO, "node");
		SET(f->message, "the RDMA stack refuses dma-buf memory registration");
		SET(f->evidence, "%s",
		    t->kind == NP_SRC_SNAPSHOT
			    ? "the snapshot records that ibv_reg_dmabuf_mr answered EOPNOTSUPP"
			    : "ibv_reg_dmabuf_mr answered EOPNOTSUPP");
		SET(f->remedy,
		    "update rdma-core and the kernel (5.12+) to use dma-buf, or rely on the peer-memory module");
	}
}

/* What one GPU's memory registration allows: dma-buf without peer memory,
 * the GPU's GDR attribute, and the nearest NIC's gdr="0" in an NCCL file. */
static void gdr_check_gpu_support(struct np_topo *t, int i, const char *s)
{
	const struct np_gpu *g = &t->gpus[i];
	const struct np_near *nr = &t->near[i];
	struct np_finding *f;

	if (g->dmabuf == NP_NO && t->host.peermem_loaded != NP_YES) {
		f = np_topo_finding(t, "gdr-dmabuf-unsupported", NP_SEV_INFO, s);
		SET(f->message, "%s (%s) does not support dma-buf", s, g->busid);
		SET(f->evidence, "%sCU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 0",
		    t->kind == NP_SRC_SNAPSHOT ? "the snapshot records " : "");
		SET(f->remedy,
		    "use the open GPU kernel modules (dma-buf needs them) or load nvidia-peermem");
	}
	if (g->gdr == NP_NO) {
		f = np_topo_finding(t, "gdr-gpu-unsupported", NP_SEV_ERROR, s);
		SET(f->message, "%s (%s) does not support GPUDirect RDMA", s, g->busid);
		gpu_gdr_attr_evidence(t, g, f->evidence, sizeof(f->evidence));
		SET(f->remedy,
		    "none for this GPU: CUDA's GPUDirect RDMA attribute is 0 on GeForce and integrated GPUs (GB10) and in WSL; "
		    "NCCL will stage through host memory; on a data-center GPU, update the driver");
	}
	/* a GPU without GDR is the cause: NCCL's NIC gdr attribute also
	 * needs the GPU's dma-buf (plugin/net.cc), so say the GPU alone */
	if (g->gdr != NP_NO && nr->n > 0 && t->nics[nr->nics[0]].gdr == NP_NO) {
		const struct np_nic *n = &t->nics[nr->nics[0]];
		f = np_topo_finding(t, "gdr-nic-unsupported", NP_SEV_WARNING, n->name);
		SET(f->message,
		    "NIC %s, nearest to %s, cannot register GPU memory; NCCL stages its traffic through host memory",
		    n->name, s);
		SET(f->evidence, "the file says gdr=\"0\" in the <net> of %s", n->name);
		SET(f->remedy,
		    "load nvidia-peermem or use dma-buf (open GPU kernel modules, Linux 5.12+, NCCL 2.19+), then dump the topology again");
	}
}

/* GPUs whose nearest NIC is beyond NCCL's default GDR level, and those
 * that are only because a nearer port is down; gathered over all GPUs
 * into one finding each. */
struct gdr_far {
	char path_gpus[NP_NAME_LEN], path_ev[NP_MSG_LEN];
	char down_gpus[NP_NAME_LEN], down_msg[NP_MSG_LEN], down_ev[NP_MSG_LEN],
		down_fix[NP_MSG_LEN];
	enum np_path worst;
};

static void gdr_far_add(const struct np_topo *t, int i, const char *s, struct gdr_far *a)
{
	const struct np_near *nr = &t->near[i];

	if (t->flat || nr->n == 0 || nr->nccl == NP_PATH_UNKNOWN || np_path_gdr_level(nr->nccl) ||
	    nr->pxn >= 0 || nr->pxn_unknown || nr->c2c_unknown)
		return;
	if (down_nearer(t, i) >= 0) {
		/* the near NIC is there but its port is not up: the link is
		 * the cause, not the layout */
		const struct np_nic *d = &t->nics[down_nearer(t, i)], *u = &t->nics[nr->nics[0]];
		gpu_list_add(a->down_gpus, sizeof(a->down_gpus), i);
		snprintf(a->down_msg + strlen(a->down_msg),
			 sizeof(a->down_msg) - strlen(a->down_msg),
			 "%s%s port %d, %s from %s, is %s, so NCCL uses %s, %s away",
			 a->down_msg[0] ? "; " : "", d->name, d->port,
			 np_path_str(t->gn_nccl[i][down_nearer(t, i)]), s,
			 np_port_state_str(d->state), u->name, np_path_str(nr->nccl));
		snprintf(a->down_ev + strlen(a->down_ev), sizeof(a->down_ev) - strlen(a->down_ev),
			 "%s%s:%d state %s; %s -> %s: %s", a->down_ev[0] ? "; " : "", d->name,
			 d->port, np_port_state_str(d->state), s, u->name, np_path_str(nr->nccl));
		if (!strstr(a->down_fix, d->name))
			snprintf(a->down_fix + strlen(a->down_fix),
				 sizeof(a->down_fix) - strlen(a->down_fix), "%s%s port %d",
				 a->down_fix[0] ? ", " : "", d->name, d->port);
		return;
	}
	gpu_list_add(a->path_gpus, sizeof(a->path_gpus), i);
	snprintf(a->path_ev + strlen(a->path_ev), sizeof(a->path_ev) - strlen(a->path_ev),
		 "%s%s -> %s: %s%s%s%s", a->path_ev[0] ? "; " : "", s, t->nics[nr->nics[0]].name,
		 np_path_str(nr->nccl), nr->nccl != nr->path ? " to NCCL (" : "",
		 nr->nccl != nr->path ? np_path_str(nr->path) : "",
		 nr->nccl != nr->path ? " in the matrix)" : "");
	if (nr->nccl > a->worst)
		a->worst = nr->nccl;
}

static void gdr_far_report(struct np_topo *t, const struct gdr_far *a)
{
	struct np_finding *f;

	if (a->path_gpus[0]) {
		f = np_topo_finding(t, "gdr-path", NP_SEV_WARNING, a->path_gpus);
		SET(f->message,
		    "the nearest NIC of %s is up to %s away as NCCL sees it; its default GDR level is PXB, so it will not use GPUDirect RDMA there",
		    a->path_gpus, np_path_str(a->worst));
		SET(f->evidence, "%s", a->path_ev);
		SET(f->remedy,
		    "put a NIC under the GPUs' PCIe switch (rail-optimized layout); NCCL_NET_GDR_LEVEL can be tried as a diagnostic");
	}
	if (a->down_gpus[0]) {
		f = np_topo_finding(t, "gdr-path-nic-down", NP_SEV_WARNING, a->down_gpus);
		SET(f->message,
		    "%s; beyond NCCL's default GDR level PXB, so it will not use GPUDirect RDMA there",
		    a->down_msg);
		SET(f->evidence, "%s", a->down_ev);
		SET(f->remedy,
		    "bring the link of %s up (cable, switch port; 'ibstat', 'ip link'); the GPUs then use the NIC beside them",
		    a->down_fix);
	}
}

/* What lies on the PCIe path of one GPU: a BAR1 too small for NCCL's
 * buffers and ACS redirect between the GPU and its nearest NIC. */
static void gdr_check_gpu_pcie(struct np_topo *t, int i, const char *s)
{
	const struct np_gpu *g = &t->gpus[i];
	const struct np_near *nr = &t->near[i];
	struct np_finding *f;

	if (g->bar1_mib && g->bar1_mib < BAR1_MIN_MIB) {
		f = np_topo_finding(t, "gdr-bar1-small", NP_SEV_WARNING, s);
		SET(f->message, "%s's BAR1 is %llu MiB; GPUDirect RDMA buffers need more", s,
		    (unsigned long long)g->bar1_mib);
		SET(f->evidence, "%sNVML BAR1 total %llu MiB < %d MiB",
		    t->kind == NP_SRC_SNAPSHOT ? "the snapshot records " : "",
		    (unsigned long long)g->bar1_mib, BAR1_MIN_MIB);
		SET(f->remedy,
		    "enable large BAR (resizable BAR / above-4G decoding) in the firmware");
	}
	if (nr->n > 0 && g->pci >= 0) {
		int b = acs_on_path(t, g->pci, t->nics[nr->nics[0]].pci);
		if (b >= 0) {
			f = np_topo_finding(t, "gdr-acs", NP_SEV_ERROR, s);
			SET(f->message,
			    "ACS redirect is enabled on bridge %s between %s and %s; peer traffic is sent up to the root complex",
			    t->pci[b].id, s, t->nics[nr->nics[0]].name);
			SET(f->evidence,
			    "ACS control of %s has P2P request/completion redirect set",
			    t->pci[b].id);
			SET(f->remedy,
			    "disable ACS on the bridges below the root port (firmware option or setpci at boot)");
		}
	}
}

/* GPUs whose GDR answer is unknown, with the first one's reason. */
struct gdr_unknown {
	char gpus[NP_NAME_LEN], why[NP_MSG_LEN];
};

static void gdr_unknown_add(const struct np_topo *t, int i, const char *s, struct gdr_unknown *u)
{
	char why[NP_MSG_LEN];

	if (np_topo_gpu_gdr(t, i, why, sizeof(why)) != NP_UNKNOWN)
		return;
	gpu_list_add(u->gpus, sizeof(u->gpus), i);
	if (!u->why[0])
		SET(u->why, "%s: %s", s, !strncmp(why, "unknown: ", 9) ? why + 9 : why);
}

static void gdr_unknown_report(struct np_topo *t, const struct gdr_unknown *u)
{
	struct np_finding *f;

	if (!u->gpus[0])
		return;
	f = np_topo_finding(t, "gdr-unknown", NP_SEV_INFO, u->gpus);
	SET(f->message, "whether NCCL uses GPUDirect RDMA on %s cannot be told from %s", u->gpus,
	    said_by(t));
	SET(f->evidence, "%s", u->why);
	if (t->kind == NP_SRC_LIVE)
		SET(f->remedy,
		    "run where NVML, the CUDA driver and libibverbs load (a build with CUDA), as root for ACS");
	else
		SET(f->remedy,
		    "run 'nccl-probe topo --check-gdr' on the node itself, or read a snapshot of it (--export)");
}

static void gdr_check_acs_readable(struct np_topo *t)
{
	struct np_finding *f;

	if (t->host.acs_readable != NP_NO)
		return;
	f = np_topo_finding(t, "gdr-acs-unknown", NP_SEV_INFO, "node");
	SET(f->message, "ACS on the bridges between GPUs and NICs is unknown, needs root");
	SET(f->evidence, "PCI config space beyond 64 bytes is not readable by this user");
	SET(f->remedy, "run 'nccl-probe topo' as root to check ACS");
}

void np_topo_check_gdr(struct np_topo *t)
{
	struct gdr_far far = { .worst = NP_PATH_X };
	struct gdr_unknown unk = { "", "" };
	char s[NP_NAME_LEN];

	gdr_check_skeleton(t);
	gdr_check_no_gpu(t);
	gdr_check_no_rdma_nic(t);
	if (t->ngpus == 0 || rdma_nics(t) == 0)
		return;
	gdr_check_host(t);
	for (int i = 0; i < t->ngpus; i++) {
		snprintf(s, sizeof(s), "GPU%d", i);
		gdr_check_gpu_support(t, i, s);
		gdr_far_add(t, i, s, &far);
		gdr_check_gpu_pcie(t, i, s);
		gdr_unknown_add(t, i, s, &unk);
	}
	gdr_far_report(t, &far);
	gdr_unknown_report(t, &unk);
	gdr_check_acs_readable(t);
}
