/* SPDX-License-Identifier: MIT */
/* Live source: hwloc (I/O objects kept) for NUMA nodes and the PCI tree,
 * GPUs from NVML (else sysfs), NIC ports from sysfs and libibverbs, host
 * facts (peer memory, IOMMU, hypervisor, ACS, NCCL version, interfaces)
 * from sysfs and /proc through the root fd of NCCL_PROBE_FSROOT. With a
 * fake root, devices come from the tree alone (NVML and verbs see the real
 * machine, so they are left out). */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>

#include "gpu_live.h"
#include "internal.h"
#include "sysfs.h"
#include "topo.h"

/* GPUs that NVML could not list: NVIDIA display/3D controllers in sysfs. */
static void sysfs_gpus(struct np_topo *t, const struct np_sysfs *fs)
{
	struct np_sysfs_gpu found[NP_MAX_GPUS];
	int n = np_sysfs_gpus(fs, found, NP_MAX_GPUS);
	char buf[32];

	for (int i = 0; i < n; i++) {
		struct np_gpu *g = np_topo_gpu_add(t, found[i].busid);
		if (!g)
			break;
		g->vendor_id = 0x10de;
		g->device_id = found[i].device_id;
		if (np_sysfs_readf(fs, buf, sizeof(buf), "sys/bus/pci/devices/%s/label",
				   found[i].dir) &&
		    buf[0])
			snprintf(g->name, sizeof(g->name), "%s", buf);
		else if (!np_pci_ids_name(0x10de, g->device_id, g->name, sizeof(g->name)))
			g->name[0] = '\0'; /* unknown: no PCI ID database here */
	}
}

/* The chain "pciDDDD:BB/bridge/.../device" from sysfs's device path. */
static int sysfs_chain(struct np_topo *t, const struct np_sysfs *fs, const char *busid, int numa)
{
	char rel[128], link[1024], chain[1024] = "", *tok, *save = NULL;
	size_t off = 0;

	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s", busid);
	if (!np_sysfs_readlink(fs, rel, link, sizeof(link)))
		return -1;
	for (tok = strtok_r(link, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		char id[NP_BUSID_LEN];
		if (!strncmp(tok, "pci", 3) && strlen(tok) < NP_BUSID_LEN) {
			off = (size_t)snprintf(chain, sizeof(chain), "%s",
					       tok); /* the last host bridge wins */
		} else if (off && np_busid_norm(tok, id, sizeof(id)) && off < sizeof(chain)) {
			off += (size_t)snprintf(chain + off, sizeof(chain) - off, "/%s", id);
		}
	}
	if (!off)
		return -1;
	return np_topo_pci_add_chain(t, chain, numa);
}

static int place(struct np_topo *t, hwloc_topology_t topo, const struct np_sysfs *fs,
		 const char *busid, int *numa)
{
	unsigned dom, bus, dev, fn;
	hwloc_obj_t o = NULL;
	long v;
	char rel[128];

	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/numa_node", busid);
	if (!fs->fake && np_busid_parse(busid, &dom, &bus, &dev, &fn)) {
		if (dom > 0xffff)
			np_topo_note(t,
				     "PCI domain of %s is above 0xffff, which this hwloc may not hold; its path comes from sysfs",
				     busid);
		else
			o = hwloc_get_pcidev_by_busid(topo, dom, bus, dev, fn);
	}
	if (o)
		*numa = np_hwloc_numa_of(topo, o);
	if (np_sysfs_read_long(fs, rel, &v))
		*numa = v >= 0 ? (int)v : -1; /* VMs say -1 */
	return o ? np_hwloc_chain(t, topo, o) : sysfs_chain(t, fs, busid, *numa);
}

/* ACS control of a bridge from its config space: P2P request or
 * completion redirect set means peer traffic goes up to the root. */
static enum np_tri acs_of(struct np_topo *t, const struct np_sysfs *fs, const char *busid)
{
	unsigned char cfg[4096];
	char rel[128];
	long n;
	unsigned off = 0x100;

	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/config", busid);
	n = np_sysfs_read_bin(fs, rel, cfg, sizeof(cfg));
	if (n < 0)
		return NP_UNKNOWN;
	if (n <= 256) { /* without root the kernel shows 64 bytes, no extended capabilities */
		if (t->host.acs_readable != NP_YES)
			t->host.acs_readable = NP_NO;
		return NP_UNKNOWN;
	}
	t->host.acs_readable = NP_YES;
	for (int hops = 0; off >= 0x100 && off + 8 <= (unsigned)n && hops < 64; hops++) {
		unsigned hdr = cfg[off] | cfg[off + 1] << 8 | (unsigned)cfg[off + 2] << 16 |
			       (unsigned)cfg[off + 3] << 24;
		if ((hdr & 0xffff) == 0x000d) {
			unsigned ctl = cfg[off + 6] | cfg[off + 7] << 8;
			return (ctl & 0x0c) ? NP_YES : NP_NO;
		}
		off = hdr >> 20;
		if (!off)
			break;
	}
	return NP_NO;
}

static void acs_paths(struct np_topo *t, const struct np_sysfs *fs)
{
	for (int i = 0; i < t->npci; i++)
		if (t->pci[i].kind == NP_PCI_BRIDGE)
			t->pci[i].acs = acs_of(t, fs, t->pci[i].id);
}

/* PCI ids of the bridges that hwloc did not place (their chain came from
 * sysfs): NCCL tells Broadcom PEX switches by them. */
static void bridge_ids(struct np_topo *t, const struct np_sysfs *fs)
{
	static const char *const f[] = { "vendor", "device", "subsystem_vendor",
					 "subsystem_device" };

	for (int i = 0; i < t->npci; i++) {
		long v[4];
		int n = 0;
		if (t->pci[i].kind != NP_PCI_BRIDGE || t->pci[i].ids_known != NP_IDS_NONE)
			continue;
		for (; n < 4; n++) {
			char rel[128];
			snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/%s", t->pci[i].id, f[n]);
			if (!np_sysfs_read_long(fs, rel, &v[n]) || v[n] < 0 || v[n] > 0xffff)
				break;
		}
		if (n >= 2)
			np_topo_pci_set_ids(t, i, (unsigned)v[0], (unsigned)v[1],
					    n == 4 ? (unsigned)v[2] : 0,
					    n == 4 ? (unsigned)v[3] : 0, n == 4);
	}
}

static void host_facts(struct np_topo *t, const struct np_sysfs *fs)
{
	static const char *const peer[] = { "sys/kernel/mm/memory_peers/nv_mem/version",
					    "sys/kernel/mm/memory_peers/nv_mem_nc/version",
					    "sys/module/nvidia_peermem/version" };
	char buf[4096], **names;
	int n;

	t->host.peermem_loaded = NP_NO;
	for (size_t i = 0; i < sizeof(peer) / sizeof(peer[0]); i++)
		if (np_sysfs_exists(fs, peer[i])) {
			t->host.peermem_loaded = NP_YES;
			snprintf(t->host.peermem, sizeof(t->host.peermem), "/%s", peer[i]);
			break;
		}
	n = np_sysfs_list(fs, "sys/class/iommu", &names);
	t->host.iommu = n > 0 ? NP_YES : n == 0 || !fs->fake ? NP_NO : NP_UNKNOWN;
	if (n >= 0)
		np_sysfs_free_list(names, n);
	if (np_sysfs_read(fs, "sys/hypervisor/type", buf, sizeof(buf)) && buf[0]) {
		t->host.virtualized = NP_YES;
	} else if (np_sysfs_read(fs, "proc/cpuinfo", buf, sizeof(buf))) {
		char *flags = strstr(buf, "\nflags");
		char *eol = flags ? strchr(flags + 1, '\n') : NULL;
		if (eol)
			*eol = '\0';
		t->host.virtualized = flags && strstr(flags, " hypervisor") ? NP_YES : NP_NO;
	}
}

/* Network interfaces: the one NCCL's socket default would take (ib*
 * first, else the first UP one that is not lo or docker*) and the first
 * UP one backed by a PCI device. */
static void interfaces(struct np_topo *t, const struct np_sysfs *fs)
{
	char **names, buf[32], rel[160];
	int n = np_sysfs_list(fs, "sys/class/net", &names);
	long best = -1;

	for (int i = 0; i < n; i++) {
		const char *nm = names[i];
		long ifindex = 0;
		bool pci, logical;
		if (!strcmp(nm, "lo") || !strncmp(nm, "docker", 6))
			continue;
		if (!np_sysfs_readf(fs, buf, sizeof(buf), "sys/class/net/%s/operstate", nm) ||
		    strcmp(buf, "up"))
			continue;
		snprintf(rel, sizeof(rel), "sys/class/net/%s/device", nm);
		pci = np_sysfs_exists(fs, rel);
		logical = !strncmp(nm, "bond", 4) || !strncmp(nm, "team", 4) || strchr(nm, '.');
		if (pci && !t->host.iface_pci[0])
			snprintf(t->host.iface_pci, sizeof(t->host.iface_pci), "%s", nm);
		if (logical && !t->host.iface_pci[0])
			snprintf(t->host.iface_pci, sizeof(t->host.iface_pci), "%s", nm);
		snprintf(rel, sizeof(rel), "sys/class/net/%s/ifindex", nm);
		np_sysfs_read_long(fs, rel, &ifindex);
		if (!strncmp(nm, "ib", 2))
			ifindex -= 1000000; /* NCCL tries ib* first */
		if (best == -1 || ifindex < best) {
			best = ifindex;
			snprintf(t->host.iface_nccl, sizeof(t->host.iface_nccl), "%s", nm);
		}
	}
	if (n >= 0)
		np_sysfs_free_list(names, n);
}

static void nccl_version(struct np_topo *t)
{
	/* NODELETE: NCCL may be in use in this process (the sweep links it) */
	void *lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	int (*get)(int *);
	int v = 0;

	if (!lib)
		return;
	*(void **)&get = dlsym(lib, "ncclGetVersion");
	if (get && get(&v) == 0)
		t->host.nccl_version = v;
	dlclose(lib);
}

/* GPU facts come from NVML here: hwloc's GPU components would only add OS
 * devices, at the cost of initializing OpenCL, CUDA and X. Its libpciaccess
 * component only adds names to what the Linux backend finds in sysfs (and
 * leaks a little in every load). */
#if HWLOC_API_VERSION >= 0x00020100 /* hwloc_topology_set_components came with 2.1 */
static const char *const skip_components[] = { "opencl",    "cuda", "nvml", "rsmi",
					       "levelzero", "gl",   "pci" };
#endif

enum np_status np_topo_discover_live(struct np_topo *t, bool keep_hwloc, struct np_err *err)
{
	struct np_sysfs fs;
	hwloc_topology_t topo;
	enum np_status st;
	char busids[NP_MAX_GPUS][NP_BUSID_LEN];
	int ngpu = -1;

	t->kind = t->origin = NP_SRC_LIVE;
	snprintf(t->source, sizeof(t->source), "live");
	if ((st = np_sysfs_open(&fs, err)))
		return st;
	if (hwloc_topology_init(&topo) != 0) {
		np_sysfs_release(&fs);
		return np_fail(err, NP_ESYS, "hwloc_topology_init failed: %s", strerror(errno));
	}
	hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
#if HWLOC_API_VERSION >= 0x00020100
	for (size_t i = 0; i < sizeof(skip_components) / sizeof(skip_components[0]); i++)
		hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST,
					      skip_components[i]);
#endif
	if (hwloc_topology_load(topo) != 0) {
		hwloc_topology_destroy(topo);
		np_sysfs_release(&fs);
		return np_fail(err, NP_ESYS, "hwloc could not load this machine's topology: %s",
			       strerror(errno));
	}
	np_hwloc_numa(t, topo);
	if (!t->host.hostname[0] &&
	    gethostname(t->host.hostname, sizeof(t->host.hostname) - 1) != 0)
		snprintf(t->host.hostname, sizeof(t->host.hostname), "unknown");
	if (fs.fake)
		np_topo_note(t,
			     "NCCL_PROBE_FSROOT='%s': devices come from that tree; NVML, CUDA and verbs are not asked",
			     fs.root);
	else if (!t->no_gpu_libs)
		ngpu = np_gpu_live_nvml(t, busids, NP_MAX_GPUS);
	if (ngpu < 0)
		sysfs_gpus(t, &fs);
	for (int i = 0; i < t->ngpus; i++) {
		struct np_gpu *g = &t->gpus[i];
		struct np_pcie l = { 0 };
		np_pcie_live(&fs, g->busid, &l);
		if (!g->pcie.gen_cur)
			g->pcie.gen_cur = l.gen_cur;
		if (!g->pcie.gen_max)
			g->pcie.gen_max = l.gen_max;
		if (!g->pcie.width_cur)
			g->pcie.width_cur = l.width_cur;
		if (!g->pcie.width_max)
			g->pcie.width_max = l.width_max;
		g->pcie.gbps = np_pcie_gbps(g->pcie.gen_cur, g->pcie.width_cur);
		g->pci = place(t, topo, &fs, g->busid, &g->numa);
	}
	np_nic_live(t, &fs);
	for (int i = 0; i < t->nnics; i++)
		if (t->nics[i].busid[0])
			t->nics[i].pci = place(t, topo, &fs, t->nics[i].busid, &t->nics[i].numa);
	if (!fs.fake && !t->no_gpu_libs)
		np_gpu_live_cuda(t);
	host_facts(t, &fs);
	bridge_ids(t, &fs);
	if (t->ngpus && t->nnics)
		acs_paths(t, &fs);
	interfaces(t, &fs);
	if (!fs.fake && !t->no_gpu_libs)
		nccl_version(t);
	np_sysfs_release(&fs);
	if (keep_hwloc)
		t->hwloc = topo;
	else
		hwloc_topology_destroy(topo);
	return NP_OK;
}
