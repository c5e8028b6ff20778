/* SPDX-License-Identifier: MIT */
/* Checks over the model: GPUDirect RDMA (peer memory, dma-buf, the GPU's
 * attribute, path class against NCCL's default GDR level, BAR1, ACS),
 * placement (NUMA of GPUs and NICs, ranks' CPU binding), links (ports,
 * rates, PCIe training) and flattened virtual machines. Each finding has
 * an id, a severity, a subject, a message, the evidence and a remedy. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <hwloc.h>

#include "topo.h"

#define BAR1_MIN_MIB 1024 /* below this, NCCL's GDR buffers crowd BAR1 */

static void fmt(char *buf, size_t len, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, len, f, ap);
	va_end(ap);
}

#define SET(field, ...) fmt(field, sizeof(field), __VA_ARGS__)

static double pcie_max(const struct np_pcie *l)
{
	int gen = l->gen_max ? l->gen_max : l->gen_cur, width = l->width_max ? l->width_max : l->width_cur;
	double g = np_pcie_gbps(gen, width);

	return g > 0 ? g : l->gbps;
}

static void gpu_name(int i, char *buf, size_t len)
{
	snprintf(buf, len, "GPU%d", i);
}

static void nic_label(const struct np_nic *n, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%d", n->name, n->port);
}

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

static void gpu_gdr_attr_evidence(const struct np_topo *t, const struct np_gpu *g, char *buf, size_t len)
{
	if (t->kind == NP_SRC_NCCL)
		snprintf(buf, len, "the file says gdr=\"0\" in the <gpu> of %s", g->busid);
	else if (t->kind == NP_SRC_SNAPSHOT)
		snprintf(buf, len, "the snapshot records CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED = 0 for %s", g->busid);
	else
		snprintf(buf, len, "CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED = 0 for %s", g->busid);
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
		if ((st != NP_PORT_DOWN && st != NP_PORT_INIT && st != NP_PORT_ARMED) || !np_topo_nic_data(t, k) ||
		    t->gn_nccl[i][k] == NP_PATH_UNKNOWN || t->gn_nccl[i][k] >= nr->nccl)
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
		snprintf(why, len, "unknown: the NICs are %s, which NCCL reaches through a network plugin (%s); whether it registers GPU memory is not in %s",
			 t->plugin_kind, t->plugin_name, said_by(t));
		return NP_UNKNOWN;
	}
	if (t->unclassified) {
		snprintf(why, len, "unknown: %s leaves %d PCI device(s) without class or vendor, which NCCL takes from the node; its NICs may be among them",
			 said_by(t), t->unclassified);
		return NP_UNKNOWN;
	}
	if (t->nnics)
		snprintf(why, len, "no RDMA NIC: %s lists only socket interfaces, which cannot do GPUDirect RDMA", said_by(t));
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
		snprintf(why, len, "unknown: the PCIe path between the GPU and the NICs is not in %s", said_by(t));
		return NP_UNKNOWN;
	}
	n = &t->nics[nr->nics[0]];
	if (nr->pxn >= 0) { /* NCCL sends through the NIC's local GPU: its path decides */
		n = &t->nics[nr->pxn_nic];
		peer = t->gpus[nr->pxn].pci;
		cls = t->gn_nccl[nr->pxn][nr->pxn_nic];
	}
	/* what the source states against GDR */
	if (!t->flat && cls != NP_PATH_UNKNOWN && !np_path_gdr_level(cls) && !nr->pxn_unknown && !nr->c2c_unknown) {
		int d = down_nearer(t, i);
		if (d >= 0)
			snprintf(why, len, "%s port %d, %s from the GPU, is %s; NCCL uses %s instead, %s away, beyond its default GDR level PXB",
				 t->nics[d].name, t->nics[d].port, np_path_str(t->gn_nccl[i][d]), np_port_state_str(t->nics[d].state),
				 n->name, np_path_str(nr->nccl));
		else if (nr->nccl != nr->path)
			snprintf(why, len, "nearest NIC %s is %s to NCCL (%s as nvidia-smi names it), beyond NCCL's default GDR level PXB",
				 n->name, np_path_str(nr->nccl), np_path_str(nr->path));
		else
			snprintf(why, len, "nearest NIC %s is %s, beyond NCCL's default GDR level PXB", n->name, np_path_str(nr->nccl));
		return NP_NO;
	}
	if (g->gdr == NP_NO) {
		gpu_gdr_attr_evidence(t, g, m, sizeof(m));
		snprintf(why, len, "the GPU does not support GPUDirect RDMA (%s)", m);
		return NP_NO;
	}
	if (n->gdr == NP_NO) {
		snprintf(why, len, "NIC %s cannot register GPU memory (the file says gdr=\"0\" in its <net>)", n->name);
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
		add_missing(missing, sizeof(missing), "the real PCIe path (the hypervisor flattens the tree this source shows)");
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
			    t->kind == NP_SRC_NCCL ? "whether the NIC registers GPU memory (no gdr in its <net>)"
						  : "peer memory or dma-buf");
	if (missing[0]) {
		snprintf(why, len, "unknown: %s; %s does not tell", missing, said_by(t));
		return NP_UNKNOWN;
	}
	if (nr->pxn >= 0)
		snprintf(why, len, "PXN: NCCL sends through GPU%d (NVLink) to %s, %s from GPU%d, within its GDR level, via %s", nr->pxn,
			 n->name, np_path_str(cls), nr->pxn, via);
	else if (nr->nccl == NP_PATH_P2C)
		snprintf(why, len, "P2C to %s (the GPU's C2C link to its CPU, which holds the NIC: within NCCL's GDR level while NCCL_NET_GDR_C2C is 1, its default) via %s",
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
	SET(f->message, "the file leaves %d PCI device(s) unclassified (a bus id without class or vendor); NCCL takes what they are "
			"from the node when it merges the file, so which are GPUs or NICs, and GDR, are unknown here", t->unclassified);
	SET(f->evidence, "%d <pci> element(s) with a busid and no class, vendor, <gpu> or <nic>", t->unclassified);
	SET(f->remedy, "run 'nccl-probe topo' on the node itself, or read NCCL's dump of it (NCCL_TOPO_DUMP_FILE) with this file set");
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
		SET(f->message, "no NVIDIA GPU found: the file's %d GPU(s) are %s GPUs, which NCCL does not drive "
				"(RCCL or oneCCL does); there is nothing for NCCL's GPUDirect RDMA to do",
		    t->other_gpus, vendor);
	else
		SET(f->message, "no NVIDIA GPU found; there is nothing for GPUDirect RDMA to do");
	if (t->other_gpus && t->other_gpu_what[0])
		SET(f->evidence, "%d %s GPU(s) in %s; the first: %s", t->other_gpus, vendor, said_by(t), t->other_gpu_what);
	else if (t->other_gpus)
		SET(f->evidence, "%d display or 3D controller(s) of PCI vendor 0x%04x (%s)", t->other_gpus, t->other_gpu_vendor, vendor);
	else
		SET(f->evidence, "%s", t->kind == NP_SRC_LIVE ? "NVML and sysfs list no NVIDIA display or 3D controller"
							   : t->kind == NP_SRC_SNAPSHOT ? "the snapshot has no NVIDIA GPU"
							   : "the file has no NVIDIA GPU");
	SET(f->remedy, "%s", t->other_gpus ? "read this node with its vendor's tools (RCCL's rocm-smi topology for AMD)"
					   : "run on a GPU node, or check that the GPUs are visible (lspci -d 10de:)");
}

/* No verbs NIC: a network plugin's devices, or sockets only. */
static void gdr_check_no_rdma_nic(struct np_topo *t)
{
	struct np_finding *f;

	if (rdma_nics(t) == 0 && t->plugin_nics) {
		f = np_topo_finding(t, "net-plugin", NP_SEV_INFO, "node");
		SET(f->message, "no verbs RDMA NIC: the %d network device(s) are %s, which NCCL reaches through a network plugin (%s), "
				"not sockets, once that plugin is installed", t->plugin_nics, t->plugin_kind, t->plugin_name);
		SET(f->evidence, "%d PCI network device(s) of %s and no OpenFabrics (verbs) device in %s", t->plugin_nics, t->plugin_kind,
		    said_by(t));
		SET(f->remedy, "install %s and check that NCCL loads it (NCCL_DEBUG=INFO prints 'NET/OFI')", t->plugin_name);
	} else if (rdma_nics(t) == 0 && !t->unclassified) {
		f = np_topo_finding(t, "gdr-no-nic", NP_SEV_INFO, "node");
		SET(f->message, "no RDMA NIC found; NCCL will use sockets between nodes");
		if (t->nnics)
			SET(f->evidence, "%s lists only socket interfaces (%s%s)", said_by(t), t->nics[0].name, t->nnics > 1 ? ", ..." : "");
		else
			SET(f->evidence, "%s", t->kind == NP_SRC_LIVE ? "sysfs class/infiniband is empty or absent"
							   : t->kind == NP_SRC_SNAPSHOT ? "the snapshot lists no RDMA NIC"
							   : "the file lists no RDMA NIC");
		SET(f->remedy, "for multi-node jobs install the NIC driver (rdma-core, MLNX_OFED or EFA) or use a node with RDMA NICs");
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
		f = np_topo_finding(t, "gdr-peermem-missing", dmabuf_all ? NP_SEV_INFO : NP_SEV_WARNING, "node");
		SET(f->message, "no GPU peer-memory module is loaded%s",
		    dmabuf_all ? "; dma-buf can carry GPUDirect RDMA instead" : "; without it or dma-buf NCCL cannot use GPUDirect RDMA");
		SET(f->evidence, "%s: none of /sys/kernel/mm/memory_peers/nv_mem/version, /sys/kernel/mm/memory_peers/nv_mem_nc/version, /sys/module/nvidia_peermem/version exists",
		    t->kind == NP_SRC_SNAPSHOT ? "the snapshot records" : "on this node");
		SET(f->remedy, "modprobe nvidia-peermem (and load it at boot), or use dma-buf: open GPU kernel modules, Linux 5.12+, NCCL 2.19+");
	}
	if (t->host.dmabuf_nic == NP_NO) {
		f = np_topo_finding(t, "gdr-dmabuf-unsupported", NP_SEV_INFO, "node");
		SET(f->message, "the RDMA stack refuses dma-buf memory registration");
		SET(f->evidence, "%s", t->kind == NP_SRC_SNAPSHOT ? "the snapshot records that ibv_reg_dmabuf_mr answered EOPNOTSUPP"
							 : "ibv_reg_dmabuf_mr answered EOPNOTSUPP");
		SET(f->remedy, "update rdma-core and the kernel (5.12+) to use dma-buf, or rely on the peer-memory module");
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
		SET(f->evidence, "%sCU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 0", t->kind == NP_SRC_SNAPSHOT ? "the snapshot records " : "");
		SET(f->remedy, "use the open GPU kernel modules (dma-buf needs them) or load nvidia-peermem");
	}
	if (g->gdr == NP_NO) {
		f = np_topo_finding(t, "gdr-gpu-unsupported", NP_SEV_ERROR, s);
		SET(f->message, "%s (%s) does not support GPUDirect RDMA", s, g->busid);
		gpu_gdr_attr_evidence(t, g, f->evidence, sizeof(f->evidence));
		SET(f->remedy, "none for this GPU: CUDA's GPUDirect RDMA attribute is 0 on GeForce and integrated GPUs (GB10) and in WSL; "
			       "NCCL will stage through host memory; on a data-center GPU, update the driver");
	}
	/* a GPU without GDR is the cause: NCCL's NIC gdr attribute also
	 * needs the GPU's dma-buf (plugin/net.cc), so say the GPU alone */
	if (g->gdr != NP_NO && nr->n > 0 && t->nics[nr->nics[0]].gdr == NP_NO) {
		const struct np_nic *n = &t->nics[nr->nics[0]];
		f = np_topo_finding(t, "gdr-nic-unsupported", NP_SEV_WARNING, n->name);
		SET(f->message, "NIC %s, nearest to %s, cannot register GPU memory; NCCL stages its traffic through host memory", n->name, s);
		SET(f->evidence, "the file says gdr=\"0\" in the <net> of %s", n->name);
		SET(f->remedy, "load nvidia-peermem or use dma-buf (open GPU kernel modules, Linux 5.12+, NCCL 2.19+), then dump the topology again");
	}
}

/* GPUs whose nearest NIC is beyond NCCL's default GDR level, and those
 * that are only because a nearer port is down; gathered over all GPUs
 * into one finding each. */
struct gdr_far {
	char path_gpus[NP_NAME_LEN], path_ev[NP_MSG_LEN];
	char down_gpus[NP_NAME_LEN], down_msg[NP_MSG_LEN], down_ev[NP_MSG_LEN], down_fix[NP_MSG_LEN];
	enum np_path worst;
};

static void gdr_far_add(const struct np_topo *t, int i, const char *s, struct gdr_far *a)
{
	const struct np_near *nr = &t->near[i];

	if (t->flat || nr->n == 0 || nr->nccl == NP_PATH_UNKNOWN || np_path_gdr_level(nr->nccl) || nr->pxn >= 0 || nr->pxn_unknown ||
	    nr->c2c_unknown)
		return;
	if (down_nearer(t, i) >= 0) {
		/* the near NIC is there but its port is not up: the link is
		 * the cause, not the layout */
		const struct np_nic *d = &t->nics[down_nearer(t, i)], *u = &t->nics[nr->nics[0]];
		gpu_list_add(a->down_gpus, sizeof(a->down_gpus), i);
		snprintf(a->down_msg + strlen(a->down_msg), sizeof(a->down_msg) - strlen(a->down_msg),
			 "%s%s port %d, %s from %s, is %s, so NCCL uses %s, %s away", a->down_msg[0] ? "; " : "", d->name, d->port,
			 np_path_str(t->gn_nccl[i][down_nearer(t, i)]), s, np_port_state_str(d->state), u->name,
			 np_path_str(nr->nccl));
		snprintf(a->down_ev + strlen(a->down_ev), sizeof(a->down_ev) - strlen(a->down_ev), "%s%s:%d state %s; %s -> %s: %s",
			 a->down_ev[0] ? "; " : "", d->name, d->port, np_port_state_str(d->state), s, u->name, np_path_str(nr->nccl));
		if (!strstr(a->down_fix, d->name))
			snprintf(a->down_fix + strlen(a->down_fix), sizeof(a->down_fix) - strlen(a->down_fix), "%s%s port %d",
				 a->down_fix[0] ? ", " : "", d->name, d->port);
		return;
	}
	gpu_list_add(a->path_gpus, sizeof(a->path_gpus), i);
	snprintf(a->path_ev + strlen(a->path_ev), sizeof(a->path_ev) - strlen(a->path_ev), "%s%s -> %s: %s%s%s%s",
		 a->path_ev[0] ? "; " : "", s, t->nics[nr->nics[0]].name, np_path_str(nr->nccl),
		 nr->nccl != nr->path ? " to NCCL (" : "", nr->nccl != nr->path ? np_path_str(nr->path) : "",
		 nr->nccl != nr->path ? " in the matrix)" : "");
	if (nr->nccl > a->worst)
		a->worst = nr->nccl;
}

static void gdr_far_report(struct np_topo *t, const struct gdr_far *a)
{
	struct np_finding *f;

	if (a->path_gpus[0]) {
		f = np_topo_finding(t, "gdr-path", NP_SEV_WARNING, a->path_gpus);
		SET(f->message, "the nearest NIC of %s is up to %s away as NCCL sees it; its default GDR level is PXB, so it will not use GPUDirect RDMA there",
		    a->path_gpus, np_path_str(a->worst));
		SET(f->evidence, "%s", a->path_ev);
		SET(f->remedy, "put a NIC under the GPUs' PCIe switch (rail-optimized layout); NCCL_NET_GDR_LEVEL can be tried as a diagnostic");
	}
	if (a->down_gpus[0]) {
		f = np_topo_finding(t, "gdr-path-nic-down", NP_SEV_WARNING, a->down_gpus);
		SET(f->message, "%s; beyond NCCL's default GDR level PXB, so it will not use GPUDirect RDMA there", a->down_msg);
		SET(f->evidence, "%s", a->down_ev);
		SET(f->remedy, "bring the link of %s up (cable, switch port; 'ibstat', 'ip link'); the GPUs then use the NIC beside them",
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
		SET(f->message, "%s's BAR1 is %llu MiB; GPUDirect RDMA buffers need more", s, (unsigned long long)g->bar1_mib);
		SET(f->evidence, "%sNVML BAR1 total %llu MiB < %d MiB", t->kind == NP_SRC_SNAPSHOT ? "the snapshot records " : "",
		    (unsigned long long)g->bar1_mib, BAR1_MIN_MIB);
		SET(f->remedy, "enable large BAR (resizable BAR / above-4G decoding) in the firmware");
	}
	if (nr->n > 0 && g->pci >= 0) {
		int b = acs_on_path(t, g->pci, t->nics[nr->nics[0]].pci);
		if (b >= 0) {
			f = np_topo_finding(t, "gdr-acs", NP_SEV_ERROR, s);
			SET(f->message, "ACS redirect is enabled on bridge %s between %s and %s; peer traffic is sent up to the root complex",
			    t->pci[b].id, s, t->nics[nr->nics[0]].name);
			SET(f->evidence, "ACS control of %s has P2P request/completion redirect set", t->pci[b].id);
			SET(f->remedy, "disable ACS on the bridges below the root port (firmware option or setpci at boot)");
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
	SET(f->message, "whether NCCL uses GPUDirect RDMA on %s cannot be told from %s", u->gpus, said_by(t));
	SET(f->evidence, "%s", u->why);
	if (t->kind == NP_SRC_LIVE)
		SET(f->remedy, "run where NVML, the CUDA driver and libibverbs load (a build with CUDA), as root for ACS");
	else
		SET(f->remedy, "run 'nccl-probe topo --check-gdr' on the node itself, or read a snapshot of it (--export)");
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

/* GPUDirect RDMA: what the node and each GPU allow, then the findings
 * gathered over all GPUs (far NICs, unknown answers). */
static void check_gdr(struct np_topo *t)
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
		gpu_name(i, s, sizeof(s));
		gdr_check_gpu_support(t, i, s);
		gdr_far_add(t, i, s, &far);
		gdr_check_gpu_pcie(t, i, s);
		gdr_unknown_add(t, i, s, &unk);
	}
	gdr_far_report(t, &far);
	gdr_unknown_report(t, &unk);
	gdr_check_acs_readable(t);
}

static void check_placement(struct np_topo *t)
{
	char list[NP_MSG_LEN] = "", ev[NP_MSG_LEN] = "";
	int first_nic_numa = -2, gpu_numa_a = -1, gpu_numa_b = -1, unknown = 0, nolist = 0;
	bool nics_one = true;
	struct np_finding *f;

	for (int i = 0; i < t->ngpus; i++) {
		int numa = t->gpus[i].numa;
		bool has = false;
		if (numa < 0) {
			unknown++;
			continue;
		}
		if (gpu_numa_a < 0)
			gpu_numa_a = numa;
		else if (numa != gpu_numa_a)
			gpu_numa_b = numa;
		for (int k = 0; k < t->nnics; k++)
			has |= np_topo_nic_data(t, k) && t->nics[k].numa == numa;
		has |= t->near[i].pxn >= 0; /* NCCL sends over NVLink to a NIC near another GPU */
		if (!has && t->nnics) {
			nolist++;
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%sGPU%d", list[0] ? "," : "", i);
			snprintf(ev + strlen(ev), sizeof(ev) - strlen(ev), "%sGPU%d NUMA %d", ev[0] ? ", " : "", i, numa);
		}
	}
	if (list[0]) {
		char nics[160] = "";
		for (int k = 0; k < t->nnics && strlen(nics) < sizeof(nics) - 32; k++)
			if (np_topo_nic_data(t, k))
				snprintf(nics + strlen(nics), sizeof(nics) - strlen(nics), "%s%s NUMA %d", nics[0] ? ", " : "",
					 t->nics[k].name, t->nics[k].numa);
		f = np_topo_finding(t, "numa-gpu-no-nic", NP_SEV_WARNING, list);
		SET(f->message, "%s %s no NIC on %s NUMA node; %s network traffic crosses the CPU interconnect", list,
		    nolist > 1 ? "have" : "has", nolist > 1 ? "their" : "its", nolist > 1 ? "their" : "its");
		SET(f->evidence, "%s; %s", ev, nics);
		SET(f->remedy, "place a NIC on each GPU NUMA node, or pin these ranks' jobs to GPUs near a NIC");
	}
	for (int k = 0; k < t->nnics; k++) {
		if (t->nics[k].numa < 0 || !np_topo_nic_data(t, k))
			continue;
		if (first_nic_numa == -2)
			first_nic_numa = t->nics[k].numa;
		else if (t->nics[k].numa != first_nic_numa)
			nics_one = false;
	}
	if (t->nnics && first_nic_numa >= 0 && nics_one && gpu_numa_b >= 0) {
		f = np_topo_finding(t, "numa-nics-one-node", NP_SEV_WARNING, "node");
		SET(f->message, "all NICs are on NUMA node %d while the GPUs span NUMA nodes %d and %d", first_nic_numa,
		    gpu_numa_a, gpu_numa_b);
		SET(f->evidence, "every data NIC port on NUMA %d; GPUs on NUMA %d and %d", first_nic_numa, gpu_numa_a, gpu_numa_b);
		SET(f->remedy, "spread the NICs over the sockets (one per GPU NUMA node at least)");
	}
	if (unknown && t->ngpus) {
		f = np_topo_finding(t, "numa-unknown", NP_SEV_INFO, "node");
		SET(f->message, "the NUMA node of %d GPU(s) is unknown; CPU binding and NUMA placement cannot be checked", unknown);
		SET(f->evidence, "%s", t->kind == NP_SRC_LIVE ? "sysfs numa_node is -1 (virtual machines often hide it)"
				       : t->origin == NP_SRC_LIVE ? "the snapshot records sysfs numa_node -1 (virtual machines often hide it)"
							 : "the file places the GPUs above any NUMA node");
		SET(f->remedy, "on a virtual machine, ask the provider for NUMA-aware placement or use its NCCL topology file");
	}
}

static void check_links(struct np_topo *t)
{
	struct np_finding *f;
	double rmin = 0, rmax = 0;
	char rates[NP_MSG_LEN] = "", s[NP_NAME_LEN];

	for (int k = 0; k < t->nnics; k++) {
		struct np_nic *n = &t->nics[k];
		nic_label(n, s, sizeof(s));
		if (n->phys == NP_PORT_POLLING) {
			f = np_topo_finding(t, "nic-port-polling", NP_SEV_WARNING, s);
			SET(f->message, "%s port %d is polling: the link is trying to come up", n->name, n->port);
			SET(f->evidence, "state %s, physical state Polling", np_port_state_str(n->state));
			SET(f->remedy, "check the cable and the switch port; leave it out of NCCL_IB_HCA until it is up");
		} else if (n->state == NP_PORT_DOWN || n->state == NP_PORT_INIT || n->state == NP_PORT_ARMED) {
			f = np_topo_finding(t, "nic-port-down", NP_SEV_WARNING, s);
			SET(f->message, "%s port %d is %s", n->name, n->port, np_port_state_str(n->state));
			SET(f->evidence, "port state %s%s", np_port_state_str(n->state),
			    n->state == NP_PORT_INIT ? " (no subnet manager has configured it)" : "");
			SET(f->remedy, "%s", n->state == NP_PORT_INIT ? "start or check the subnet manager (opensm / UFM)"
								     : "check the cable and the switch port, or leave the port out with NCCL_IB_HCA");
		}
		if (n->mgmt) {
			f = np_topo_finding(t, "nic-mgmt", NP_SEV_INFO, s);
			SET(f->message, "%s is taken for a management or service port: it carries no job traffic, is nobody's nearest NIC and is not counted in the node's bandwidth",
			    n->name);
			SET(f->evidence, "its PCIe link carries at most %.1f GB/s, a quarter or less of the node's widest NIC", pcie_max(&n->pcie));
			SET(f->remedy, "nothing to do if it is the management port; otherwise reseat it in a x16 slot");
		}
		if (n->state == NP_PORT_ACTIVE && n->rate_gbit > 0 && n->ll != NP_LL_EFA && np_topo_nic_data(t, k)) {
			if (!rmin || n->rate_gbit < rmin)
				rmin = n->rate_gbit;
			if (n->rate_gbit > rmax)
				rmax = n->rate_gbit;
			snprintf(rates + strlen(rates), sizeof(rates) - strlen(rates), "%s%s %g", rates[0] ? ", " : "", s,
				 n->rate_gbit);
		}
		if (n->ll == NP_LL_ROCE && n->gid_checked && n->gid_index < 0 && n->state == NP_PORT_ACTIVE) {
			f = np_topo_finding(t, "roce-no-v2-gid", NP_SEV_WARNING, s);
			SET(f->message, "%s port %d has no RoCE v2 GID with an IPv4 address; NCCL's GID auto-selection cannot work", n->name, n->port);
			SET(f->evidence, "no 'RoCE v2' entry with an ::ffff:a.b.c.d GID in its GID table");
			if (n->gid_index6 >= 0)
				SET(f->remedy, "give %s an IPv4 address, or use its IPv6 RoCE v2 GID %d (NCCL_IB_GID_INDEX with NCCL_IB_ADDR_FAMILY=AF_INET6)",
				    n->netdev[0] ? n->netdev : "its netdev", n->gid_index6);
			else
				SET(f->remedy, "give %s an IPv4 address", n->netdev[0] ? n->netdev : "its netdev");
		}
	}
	if (rmin > 0 && rmax > rmin) {
		f = np_topo_finding(t, "nic-rate-mixed", NP_SEV_WARNING, "node");
		SET(f->message, "active NIC ports run at different rates (%g to %g Gb/s); NCCL's rings go at the slowest", rmin, rmax);
		SET(f->evidence, "Gb/s: %s", rates);
		SET(f->remedy, "fix the slow link (cable, switch port speed) or select the fast ports with NCCL_IB_HCA");
	}
	for (int i = 0; i < t->ngpus + t->nnics; i++) {
		bool gpu = i < t->ngpus;
		const struct np_pcie *l = gpu ? &t->gpus[i].pcie : &t->nics[i - t->ngpus].pcie;
		bool width = l->width_max && l->width_cur && l->width_cur < l->width_max;
		bool gen = l->gen_max && l->gen_cur && l->gen_cur < l->gen_max;
		if (gpu)
			gpu_name(i, s, sizeof(s));
		else
			nic_label(&t->nics[i - t->ngpus], s, sizeof(s));
		if (!width && !gen)
			continue;
		/* idle GPUs lower their PCIe generation to save power: only a
		 * narrower link is sure to be a fault there */
		f = np_topo_finding(t, "pcie-downtrained", gpu && !width ? NP_SEV_INFO : NP_SEV_WARNING, s);
		SET(f->message, "%s's PCIe link runs at Gen%d x%d, below its maximum Gen%d x%d%s", s, l->gen_cur, l->width_cur,
		    l->gen_max, l->width_max, gpu && !width ? " (an idle GPU lowers its generation; check under load)" : "");
		SET(f->evidence, "current Gen%d x%d, max Gen%d x%d (%s)", l->gen_cur, l->width_cur, l->gen_max, l->width_max,
		    gpu ? t->gpus[i].busid : t->nics[i - t->ngpus].busid);
		SET(f->remedy, "reseat the card or check the slot and riser; see 'lspci -vv' LnkSta against LnkCap");
	}
}

/* GPUs of one kind (PCI device, else compute capability) with fewer
 * active NVLinks than the most of them: a GPU without any, beside GPUs
 * with NVLinks, is an error (NCCL builds NVLink rings and NVLS only over
 * GPUs that all have them, so every collective of the node or NVLink
 * domain falls back); fewer than its peers, a warning (a link down). */
static void check_nvlinks(struct np_topo *t)
{
	for (int i = 0; i < t->ngpus; i++) {
		const struct np_gpu *g = &t->gpus[i];
		char s[NP_NAME_LEN], peers[NP_MSG_LEN] = "";
		int most = 0, with = 0, like = 0, switched = 0;
		struct np_finding *f;
		if (g->nvlinks < 0)
			continue;
		for (int k = 0; k < t->ngpus; k++) {
			const struct np_gpu *h = &t->gpus[k];
			bool same = g->device_id && h->device_id ? g->device_id == h->device_id && g->vendor_id == h->vendor_id
								 : g->sm && g->sm == h->sm;
			if (k == i || !same || h->nvlinks < 0)
				continue;
			like++;
			if (h->nvlinks > most)
				most = h->nvlinks;
		}
		if (most <= g->nvlinks)
			continue;
		for (int k = 0; k < t->ngpus; k++)
			if (k != i && t->gpus[k].nvlinks == most) {
				with++;
				switched += t->gpus[k].nvswitch_links > 0;
				if (strlen(peers) < sizeof(peers) - 16)
					snprintf(peers + strlen(peers), sizeof(peers) - strlen(peers), "%sGPU%d", peers[0] ? ", " : "", k);
			}
		gpu_name(i, s, sizeof(s));
		/* behind an NVSwitch every GPU has the same links by design: one
		 * without is a fault; links straight between GPUs (bridges, a
		 * mesh) may be so by the box's design: a warning */
		f = np_topo_finding(t, g->nvlinks ? "nvlink-fewer" : "nvlink-none",
				    g->nvlinks || !switched ? NP_SEV_WARNING : NP_SEV_ERROR, s);
		if (!g->nvlinks && !switched)
			SET(f->message, "%s has no NVLink while %d of the %d other GPUs like it have %d straight to GPUs: a bridge or link is missing, or the box is built so; NCCL's NVLink rings leave %s out",
			    s, with, like, most, s);
		else if (g->nvlinks)
			SET(f->message, "%s has %d active NVLinks, %d of the %d other GPUs like it have %d: a link is down, and NCCL's NVLink paths through %s carry less",
			    s, g->nvlinks, with, like, most, s);
		else
			SET(f->message, "%s has no NVLink while %d of the %d other GPUs like it have %d: NCCL builds its NVLink rings and NVLS only over GPUs that all have them, so collectives with %s fall back to PCIe or the network",
			    s, with, like, most, s);
		SET(f->evidence, "%s (%s): %d NVLinks%s; %s: %d each", s, g->busid, g->nvlinks,
		    t->origin == NP_SRC_NCCL && !g->nvlinks ? " (no <nvlink> with a count in the file)" : "", peers, most);
		if (switched)
			SET(f->remedy, "nvidia-smi nvlink -s -i %d on the node; reset the GPU, or restart the NVSwitch fabric manager (and on a multi-node NVLink rack its IMEX and NVLink switch tray), else drain the node",
			    g->index);
		else
			SET(f->remedy, "nvidia-smi nvlink -s -i %d on the node; seat the GPU's NVLink bridge or reset the GPU, unless the box is built without it",
			    g->index);
	}
}

static void check_vm(struct np_topo *t)
{
	struct np_finding *f;
	int devices = 0;

	if (!t->flat)
		return;
	for (int i = 0; i < t->ngpus + t->nnics; i++)
		devices += (i < t->ngpus ? t->gpus[i].pci : t->nics[i - t->ngpus].pci) >= 0;
	f = np_topo_finding(t, "vm-flattened", NP_SEV_WARNING, "node");
	SET(f->message, "every GPU and NIC sits straight under a host bridge with no PCIe switch: a hypervisor's flattened tree. "
			"The PCIe path classes here (PHB, NODE) are not the machine's, so GDR and P2P answers drawn from them are unknown, "
			"and NCCL sees the same flat tree unless it is given the real one");
	SET(f->evidence, "all %d GPUs and NICs have a host bridge as parent, each on that host bridge's own bus (no bridge left out of the export)%s", devices,
	    t->host.virtualized == NP_YES ? "; a hypervisor is present" : "");
	SET(f->remedy, "give NCCL the provider's topology file for this instance type (NCCL_TOPO_FILE; the provider's NCCL plugin may set it)");
}

static void check_iface(struct np_topo *t)
{
	struct np_finding *f;

	if (!t->host.iface_nccl[0] || !t->host.iface_pci[0] || !strcmp(t->host.iface_nccl, t->host.iface_pci))
		return;
	if (!strncmp(t->host.iface_nccl, "ib", 2))
		return;
	f = np_topo_finding(t, "net-socket-iface", NP_SEV_WARNING, t->host.iface_nccl);
	SET(f->message, "NCCL's default socket interface would be '%s', which is not backed by a network device", t->host.iface_nccl);
	SET(f->evidence, "'%s' is UP and comes first; '%s' is the first UP interface on a PCI NIC", t->host.iface_nccl,
	    t->host.iface_pci);
	SET(f->remedy, "set NCCL_SOCKET_IFNAME=%s", t->host.iface_pci);
}

void np_topo_check(struct np_topo *t)
{
	check_gdr(t);
	check_placement(t);
	check_links(t);
	check_nvlinks(t);
	check_vm(t);
	check_iface(t);
}

void np_topo_check_binding(struct np_topo *t, const struct np_rank_bind *b, int n)
{
	hwloc_bitmap_t rank = hwloc_bitmap_alloc(), node = hwloc_bitmap_alloc();
	char unbound[NP_MSG_LEN] = "";

	if (!rank || !node)
		goto out_free;
	for (int r = 0; r < n; r++) {
		int gi = b[r].gpu, ni;
		char s[NP_NAME_LEN];
		if (gi < 0 || gi >= t->ngpus || t->gpus[gi].numa < 0)
			continue;
		ni = np_topo_numa_index(t, t->gpus[gi].numa);
		if (ni < 0 || hwloc_bitmap_list_sscanf(node, t->numa[ni].cpus) != 0 ||
		    hwloc_bitmap_list_sscanf(rank, b[r].cpus) != 0)
			continue;
		snprintf(s, sizeof(s), "rank %d", b[r].rank);
		if (hwloc_bitmap_isincluded(rank, node))
			continue;
		if (!hwloc_bitmap_intersects(rank, node)) {
			struct np_finding *f = np_topo_finding(t, "cpu-binding-cross-numa", NP_SEV_WARNING, s);
			SET(f->message, "rank %d runs on CPUs %s, none on GPU%d's NUMA node %d", b[r].rank, b[r].cpus, gi,
			    t->gpus[gi].numa);
			SET(f->evidence, "sched_getaffinity %s; NUMA %d CPUs %s", b[r].cpus, t->gpus[gi].numa, t->numa[ni].cpus);
			SET(f->remedy, "bind each rank to its GPU's NUMA node (mpirun --map-by ppr:N:numa --bind-to numa, or srun --cpu-bind)");
		} else if (t->nnuma > 1) {
			snprintf(unbound + strlen(unbound), sizeof(unbound) - strlen(unbound), "%s%d", unbound[0] ? "," : "",
				 b[r].rank);
		}
	}
	if (unbound[0]) {
		struct np_finding *f = np_topo_finding(t, "cpu-binding-loose", NP_SEV_INFO, "ranks");
		SET(f->message, "ranks %s may run on CPUs outside their GPU's NUMA node", unbound);
		SET(f->evidence, "their sched_getaffinity sets span more than the GPU's NUMA node");
		SET(f->remedy, "bind each rank to its GPU's NUMA node (mpirun --bind-to numa)");
	}
out_free:
	hwloc_bitmap_free(rank);
	hwloc_bitmap_free(node);
}
