/* SPDX-License-Identifier: MIT */
/* The topology model (DESIGN.md "Topology model"): GPUs, NICs, NUMA nodes,
 * the PCI tree between them, host facts, and what the analysis adds to it
 * (paths, findings, recommendations, notes). Every source (live, hwloc XML,
 * NCCL topology XML, snapshot) fills the same struct np_topo. */
#ifndef NP_TOPO_MODEL_H
#define NP_TOPO_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/status.h"

#define NP_BUSID_LEN 20 /* "dddddddd:bb:dd.f": PCI domains are 32 bits (VMD uses 10000+) */
#define NP_NAME_LEN 64
#define NP_CPUSET_LEN 256 /* CPU list "0-23,48-71" */
#define NP_MSG_LEN 320

/* Tri-state facts: what a source could not see stays unknown. Numbers
 * carry their unknown explicitly: NP_COUNT_UNKNOWN for counts where 0 is a
 * fact (NVLinks), 0 where 0 cannot be true (PCIe generation and width,
 * rates, BAR1, MTU, compute capability), -1 for NUMA nodes and indexes. A
 * conclusion drawn from an unknown is unknown. */
enum np_tri { NP_UNKNOWN = -1, NP_NO = 0, NP_YES = 1 };
const char *np_tri_str(enum np_tri t); /* "unknown" / "no" / "yes" */
#define NP_COUNT_UNKNOWN (-1)

/* Path classes as nvidia-smi topo -m names them, best first. */
enum np_path {
	NP_PATH_X,    /* self */
	NP_PATH_NV,   /* a bonded set of NVLinks (count beside it) */
	NP_PATH_PIX,  /* at most one PCIe bridge (one switch) */
	NP_PATH_PXB,  /* several PCIe bridges, no host bridge */
	NP_PATH_P2C,  /* NCCL's class only (2.28): a GPU with a C2C link to its CPU
		       * and a NIC on that CPU's PCIe (nvidia-smi: PHB or NODE) */
	NP_PATH_PHB,  /* through a PCIe host bridge */
	NP_PATH_NODE, /* between host bridges of one NUMA node */
	NP_PATH_SYS,  /* across the SMP interconnect between NUMA nodes */
	NP_PATH_UNKNOWN,
};
const char *np_path_str(enum np_path p); /* "X", "NV", "PIX", ... "?" */
/* Parse a class name ("PXB"); NP_PATH_UNKNOWN when not one. */
enum np_path np_path_parse(const char *s);

enum np_pci_kind { NP_PCI_HOSTBRIDGE, NP_PCI_BRIDGE, NP_PCI_DEVICE };
const char *np_pci_kind_str(enum np_pci_kind k);

/* One node of the PCI tree. Host bridges are named "pciDDDD:BB" (their
 * domain and first bus), bridges and devices by bus id. */
struct np_pci {
	char id[NP_BUSID_LEN];
	enum np_pci_kind kind;
	int parent;      /* index in topo->pci, -1 at a host bridge */
	int numa;        /* NUMA node of the host bridge's locality, -1 unknown */
	enum np_tri acs; /* bridges: ACS redirect enabled (P2P forced upstream) */
	bool virtual_sw; /* a switch that an NCCL topology file declares */
	bool named;      /* a host bridge the source lacks, named after a
			  * device's bus (an hwloc export without bridges) */
	bool gaps;       /* a host bridge with devices straight below it on
			  * buses it does not hold itself: the source left the
			  * bridges between them out (np_topo_paths) */
	/* bridges: vendor << 48 | device << 32 | subsystem vendor << 16 |
	 * subsystem device, as NCCL keys a PCIe switch (it tells Broadcom PEX
	 * switches by them); ids_known says how much of it the source gave */
	uint64_t ids;
	enum np_pci_ids { NP_IDS_NONE, NP_IDS_DEVICE, NP_IDS_ALL } ids_known;
};

enum np_port_state {
	NP_PORT_UNKNOWN,
	NP_PORT_DOWN,
	NP_PORT_INIT,
	NP_PORT_ARMED,
	NP_PORT_ACTIVE,
	NP_PORT_POLLING, /* physical state: the link is trying to train */
};
const char *np_port_state_str(enum np_port_state s);
enum np_port_state np_port_state_parse(const char *s);

enum np_link_layer { NP_LL_UNKNOWN, NP_LL_IB, NP_LL_ROCE, NP_LL_EFA };
const char *np_link_layer_str(enum np_link_layer l);
enum np_link_layer np_link_layer_parse(const char *s);

/* PCIe link of a device: generation and lanes, current and maximum. */
struct np_pcie {
	int gen_cur, gen_max;     /* 1..6, 0 unknown */
	int width_cur, width_max; /* lanes, 0 unknown */
	double gbps;              /* one direction, GB/s: gen x width, or what a file says */
};

#define NP_MAX_GPUS 64
#define NP_MAX_NICS 64
#define NP_MAX_NUMA 64

struct np_gpu {
	int index; /* NVML/nvidia-smi order, else by bus id */
	char busid[NP_BUSID_LEN];
	char name[NP_NAME_LEN];        /* "" unknown */
	unsigned vendor_id, device_id; /* PCI ids, 0 unknown */
	int sm;                        /* compute capability x 10 (90 = 9.0), 0 unknown */
	int pci;                       /* index in topo->pci, -1 when the path is unknown */
	int numa;                      /* -1 unknown */
	struct np_pcie pcie;
	int nvlinks;             /* active NVLinks, NP_COUNT_UNKNOWN when the source cannot tell */
	double nvlink_gbps;      /* per link, one direction, GB/s; 0 unknown */
	int nvswitch_links;      /* of those, links that end at an NVSwitch (or unknown) */
	int nvcpu_links;         /* of those, links that end at a CPU (or unknown) */
	int c2c_links;           /* NVLink-C2C links to its CPU (Grace), NP_COUNT_UNKNOWN
				  * when the source cannot tell */
	int nvpeer[NP_MAX_GPUS]; /* links straight to GPU i (model index) */
	uint64_t bar1_mib;       /* 0 unknown */
	enum np_tri gdr;         /* CUDA GPUDirect RDMA supported attribute */
	enum np_tri dmabuf;      /* CUDA DMA-BUF supported attribute */
};

struct np_nic {
	char name[NP_NAME_LEN]; /* RDMA device, "mlx5_0"; "nic@BUSID" when a file has none */
	int port;               /* 1-based */
	char busid[NP_BUSID_LEN];
	int pci;
	int numa;
	enum np_port_state state;
	enum np_port_state phys; /* NP_PORT_POLLING / NP_PORT_ACTIVE (LinkUp) / DOWN */
	enum np_link_layer ll;
	double rate_gbit; /* Gb/s, 0 unknown */
	int width;        /* lanes (1, 2, 4, 8, 12), 0 unknown */
	char speed[16];   /* "HDR", "NDR", ... "" unknown */
	int mtu;          /* bytes, 0 unknown */
	int gid_index;    /* RoCE v2 IPv4 GID index, -1 none/unknown */
	int gid_index6;   /* first RoCE v2 global IPv6 GID index, -1 none */
	bool gid_checked; /* the GID table was read */
	char netdev[NP_NAME_LEN];
	struct np_pcie pcie;
	enum np_tri rdma; /* an RDMA device; no: a socket interface an NCCL file lists */
	enum np_tri gdr;  /* NCCL file: the network plugin registers GPU memory */
	bool mgmt;        /* carries no job traffic (np_topo_paths): listed, but
			   * nobody's nearest NIC and not in B_node */
};

struct np_numa {
	int os_index;
	char cpus[NP_CPUSET_LEN]; /* CPU list */
};

/* One host (tray) of a multi-node NVLink dump: NCCL keys each <cpu>
 * tree by host_hash; each is read and analyzed on its own. */
#define NP_HASH_LEN 24
struct np_tray {
	char host_hash[NP_HASH_LEN];
	int ngpus, nnics, rdma_nics;
	enum np_tri gdr;              /* np_topo_gdr_all of the tray */
	int warnings;                 /* its findings at warning or error */
	int errors;                   /* of those, at error */
	char first_error[NP_MSG_LEN]; /* "ID [SUBJECT]: message" of its first error, "" none */
	int nvlinks_most;             /* the most active NVLinks of its GPUs, -1 unknown */
	unsigned device_id;           /* its GPUs' PCI device when they all share one, else 0 */
};

enum np_topo_kind { NP_SRC_LIVE, NP_SRC_HWLOC, NP_SRC_NCCL, NP_SRC_SNAPSHOT };
const char *np_topo_kind_str(enum np_topo_kind k);

struct np_host {
	char hostname[NP_NAME_LEN];
	char peermem[NP_NAME_LEN]; /* which peer-memory file was found, "" none */
	enum np_tri peermem_loaded;
	enum np_tri dmabuf_nic; /* ibv_reg_dmabuf_mr accepted by the verbs provider */
	enum np_tri iommu;
	enum np_tri virtualized;
	enum np_tri acs_readable;     /* PCI config space beyond 64 bytes was readable */
	int nccl_version;             /* NCCL_VERSION_CODE of libnccl found, 0 unknown */
	enum np_tri nvml;             /* NVML answered */
	char iface_nccl[NP_NAME_LEN]; /* the interface NCCL's default choice would take */
	char iface_pci[NP_NAME_LEN];  /* the first UP interface backed by a PCI device */
	char arch[16];                /* the CPU architecture ("x86_64", "aarch64", NCCL's
				       * "arm64"); "" unknown */
};

/* Analysis output. */
enum np_severity { NP_SEV_INFO, NP_SEV_WARNING, NP_SEV_ERROR };
const char *np_severity_str(enum np_severity s);

struct np_finding {
	char id[32];
	enum np_severity sev;
	char subject[NP_NAME_LEN];
	char message[NP_MSG_LEN];
	char evidence[NP_MSG_LEN];
	char remedy[NP_MSG_LEN];
	bool gdr; /* one of the GDR checks (--check-gdr) */
};

struct np_rec {
	char var[40];
	char value[256];
	char reason[NP_MSG_LEN];
	char finding[32];    /* id of the finding it answers */
	bool diagnostic;     /* debugging-only variable: try it, do not export */
	bool operator_value; /* needs a value only the operator knows: value is
			      * "" and the line is a comment */
};

/* How each GPU reaches NICs: the best class and the NICs at it. */
struct np_near {
	enum np_path path;
	enum np_path nccl; /* NCCL's class of the same path (GDR decisions) */
	int nics[NP_MAX_NICS];
	int n;
	/* PXN (NCCL 2.28): where nccl is beyond the GDR level, the NVLink
	 * peer GPU through which NCCL sends to pxn_nic, which is within the
	 * level to that peer; -1 none. pxn_unknown: such a peer exists but
	 * the source cannot tell whether NVLink joins them */
	int pxn, pxn_nic;
	bool pxn_unknown;
	/* nccl is PHB to a NIC on the GPU's own CPU, and whether the GPU has
	 * NVLink-C2C to that CPU (then P2C) the source cannot tell */
	bool c2c_unknown;
};

struct np_health;

struct np_topo {
	enum np_topo_kind kind;
	enum np_topo_kind origin; /* where the facts were taken: a snapshot's original source */
	char source[256];         /* file name, or "live" */
	struct np_host host;
	struct np_numa numa[NP_MAX_NUMA];
	int nnuma;
	struct np_pci *pci;
	int npci, cap_pci;
	int *pci_index; /* open-addressing hash of pci[].id -> index, -1 empty */
	int cap_index;
	struct np_gpu gpus[NP_MAX_GPUS];
	int ngpus;
	struct np_nic nics[NP_MAX_NICS];
	int nnics;
	/* what a file holds that is neither an NVIDIA GPU nor a verbs NIC */
	int unclassified;          /* NCCL-file <pci> devices with no class and no
				    * vendor: NCCL takes what they are from the node */
	int other_gpus;            /* GPUs of another vendor (AMD, Hygon, Intel) */
	unsigned other_gpu_vendor; /* the PCI vendor of the first of them */
	char other_gpu_what[96];   /* what tells them, e.g. "gcn=\"908\", <xgmi> links" or
				    * the device's name; "" none */
	int plugin_nics;           /* NICs NCCL reaches only through a network
				    * plugin (Slingshot cxi, EFA without verbs) */
	char plugin_kind[64];      /* e.g. "HPE Slingshot (cxi)" */
	char plugin_name[96];      /* the plugin NCCL needs for them */
	bool no_gpu_libs;          /* set before live discovery: leave NVML, the CUDA
				    * driver and NCCL unloaded (GPUs from sysfs only),
				    * for a process that must not have CUDA initialized */
	const char *tray_want;     /* set before file discovery: the host_hash of the
				    * tray of a multi-node NVLink dump to report;
				    * NULL the first */
	struct np_tray *trays;     /* every tray of such a dump, in file order; NULL */
	int ntrays;                /* and 0 for any other source */
	int tray;                  /* the index of the one reported */
	bool v1_no_numa;           /* set by file discovery: an hwloc 1.x file without
				    * NUMANode objects (hwloc 1.x wrote none for a
				    * machine of one NUMA node; hwloc adds that one) */
	bool import_in_child;      /* set before file discovery: hwloc imports an
				    * hwloc XML in a forked child first, so that a
				    * crash in its importer is an answer, not the
				    * end of the process; for a process that may
				    * fork (not an MPI rank: verbs) */

	/* filled by np_topo_paths() */
	enum np_path gg[NP_MAX_GPUS][NP_MAX_GPUS];
	int gg_nv[NP_MAX_GPUS][NP_MAX_GPUS];
	enum np_path gn[NP_MAX_GPUS][NP_MAX_NICS];
	enum np_path gn_nccl[NP_MAX_GPUS][NP_MAX_NICS]; /* as NCCL classes it */
	bool flat; /* the PCIe tree is a hypervisor's flattened one:
		    * its paths are not the machine's */
	enum np_path nn[NP_MAX_NICS][NP_MAX_NICS];
	struct np_near near[NP_MAX_GPUS];

	/* filled by np_topo_check() and np_topo_recommend() */
	struct np_finding *findings;
	int nfindings, cap_findings;
	struct np_rec *recs;
	int nrecs, cap_recs;
	/* where np_topo_finding and np_topo_rec let their caller write when
	 * there is no room (no memory) or the variable has its line: lost */
	struct np_finding lost_finding;
	struct np_rec lost_rec;
	char (*notes)[NP_MSG_LEN]; /* what a source could not see */
	int nnotes, cap_notes;

	void *hwloc;              /* hwloc_topology_t kept for --export, or NULL */
	struct np_health *health; /* live health figures (topo/health.h), or NULL;
				   * owned by the caller, not released here */
};

void np_topo_init(struct np_topo *t);
void np_topo_release(struct np_topo *t);

/* Add a PCI node (deduplicated by id); returns its index or -1 (no memory). */
int np_topo_pci_add(struct np_topo *t, const char *id, enum np_pci_kind kind, int parent);
int np_topo_pci_find(const struct np_topo *t, const char *id);
/* Set a PCI node's ids (np_pci.ids); sub_known false when the subsystem's
 * are absent. */
void np_topo_pci_set_ids(struct np_topo *t, int i, unsigned vendor, unsigned device,
			 unsigned sub_vendor, unsigned sub_device, bool sub_known);
/* Add a chain "pciDDDD:BB/BRIDGE/.../DEVICE"; returns the last node's index. */
int np_topo_pci_add_chain(struct np_topo *t, const char *chain, int numa);
/* Write the chain of node i into buf ("" when i < 0). */
void np_topo_pci_chain(const struct np_topo *t, int i, char *buf, size_t len);

struct np_gpu *np_topo_gpu_add(struct np_topo *t, const char *busid);
struct np_nic *np_topo_nic_add(struct np_topo *t, const char *name, int port);
/* The GPU of a bus id, the NIC port of a name; NULL when absent. Sources
 * of files refuse a second GPU on one bus id or a second port of a name. */
struct np_gpu *np_topo_gpu_find(struct np_topo *t, const char *busid);
struct np_nic *np_topo_nic_find(struct np_topo *t, const char *name, int port);
int np_topo_numa_index(const struct np_topo *t, int os_index); /* -1 if absent */
/* Order NICs as nvidia-smi does: by name, numbers in it compared as numbers
 * (mlx5_2 before mlx5_10), then by port. Call before np_topo_paths. */
void np_topo_sort_nics(struct np_topo *t);

void np_topo_note(struct np_topo *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct np_finding *np_topo_finding(struct np_topo *t, const char *id, enum np_severity sev,
				   const char *subject);
struct np_rec *np_topo_rec(struct np_topo *t, const char *var, const char *finding);
bool np_topo_has_finding(const struct np_topo *t, const char *id);

/* Normalize a PCI bus id to lowercase "dddd:bb:dd.f" (domain widened when
 * above 0xffff). false when s is not a bus id. */
bool np_busid_norm(const char *s, char *out, size_t len);
/* A PCI bus id's fields ("dddd:bb:dd.f", "bb:dd.f"); false, the fields
 * left alone, when s is not a bus id. */
bool np_busid_parse(const char *s, unsigned *dom, unsigned *bus, unsigned *dev, unsigned *fn);
/* The name of a PCI device from the PCI ID database (pci.ids, as lspci
 * reads it: $NCCL_PROBE_PCI_IDS, /usr/share/misc/pci.ids or
 * /usr/share/hwdata/pci.ids); false when the database or the id is absent. */
bool np_pci_ids_name(unsigned vendor, unsigned device, char *out, size_t len);
/* Per-link one-direction NVLink GB/s of a compute capability (x 10); 0 when
 * unknown or the architecture has no NVLink. */
double np_nvlink_gbps_of_sm(int sm);
/* A device name as the kernel allows it (dev_valid_name): 1 to max-1
 * bytes (16 for a network interface, 64 for an RDMA device), not "." or
 * "..", no '/', ':', white space or control character; nor ',', which
 * would split NCCL's lists. */
bool np_devname_valid(const char *s, size_t max);
#define NP_IFNAMSIZ 16
#define NP_IBNAMSIZ 64
/* Per-lane GT/s of a PCIe generation and the one-direction GB/s of a link. */
double np_pcie_gbps(int gen, int width);
int np_pcie_gen_of_gts(double gts); /* 2.5 -> 1, ... 64 -> 6, 0 unknown */

#endif
