/* SPDX-License-Identifier: MIT */
/* Node health, live: the host and NIC figures read through the fsroot
 * (sysfs and /proc), and the sampling window around the GPU figures
 * (health_nvml.c). The checks that turn them into findings are health.c's. */
#define _GNU_SOURCE
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "../common/number.h"
#include "ethtool.h"
#include "health.h"

#define MIB (1024ll * 1024ll)

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* One "Key:\tvalue" line of a /proc file. */
static bool proc_field(const char *buf, const char *key, char *out, size_t len)
{
	const char *p = buf;
	size_t kl = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, kl)) {
			const char *v = p + kl, *e;
			while (*v == ' ' || *v == '\t')
				v++;
			e = strchr(v, '\n');
			snprintf(out, len, "%.*s", (int)(e ? (size_t)(e - v) : strlen(v)), v);
			return true;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return false;
}

static void nic_counters(const struct np_topo *t, const struct np_sysfs *fs, struct np_health *h,
			 bool after)
{
	for (int i = 0; i < h->nnics; i++) {
		const struct np_nic *n = &t->nics[h->nics[i].nic];
		for (int c = 0; c < NP_HEALTH_NIC_COUNTERS; c++) {
			char rel[256];
			long v;
			long long *slot = after ? &h->nics[i].after[c] : &h->nics[i].before[c];
			snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/%d/counters/%s",
				 n->name, n->port, np_nic_counter_names[c]);
			*slot = np_sysfs_read_long(fs, rel, &v) && v >= 0 ? v : NP_HX;
		}
	}
}

static void host_shm(const struct np_sysfs *fs, struct np_host_health *hh)
{
	struct statvfs sv;
	int fd = openat(fs->root_fd, "dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return;
	if (fstatvfs(fd, &sv) == 0) {
		hh->shm_bytes = (long long)sv.f_blocks * (long long)sv.f_frsize;
		hh->shm_free = (long long)sv.f_bavail * (long long)sv.f_frsize;
	}
	close(fd);
}

static void host_limits(const struct np_sysfs *fs, struct np_host_health *hh)
{
	char buf[8192], line[256];
	const char *env;

	if (np_sysfs_read(fs, "proc/self/limits", buf, sizeof(buf)) &&
	    proc_field(buf, "Max locked memory", line, sizeof(line))) {
		/* the soft limit, then the hard limit and the unit */
		const char *p = line;
		int64_t v;
		if (!strncmp(line, "unlimited", 9)) {
			hh->memlock = -1;
		} else if (np_scan_i64(&p, 10, 0, INT64_MAX, &v) &&
			   (*p == ' ' || *p == '\t' || !*p)) {
			hh->memlock = v;
		}
	}
	if (np_sysfs_read(fs, "proc/self/status", buf, sizeof(buf))) {
		proc_field(buf, "Cpus_allowed_list:", hh->cpus, sizeof(hh->cpus));
		proc_field(buf, "Mems_allowed_list:", hh->mems, sizeof(hh->mems));
	}
	if ((env = getenv("SLURM_CPU_BIND_TYPE")) || (env = getenv("SLURM_CPU_BIND")))
		snprintf(hh->slurm_bind, sizeof(hh->slurm_bind), "%s", env);
}

static void host_container(const struct np_sysfs *fs, struct np_host_health *hh)
{
	char buf[8192];

	if (np_sysfs_exists(fs, ".dockerenv")) {
		hh->container = NP_YES;
		snprintf(hh->container_kind, sizeof(hh->container_kind), "docker");
	} else if (np_sysfs_exists(fs, "run/.containerenv")) {
		hh->container = NP_YES;
		snprintf(hh->container_kind, sizeof(hh->container_kind), "podman");
	} else if (np_sysfs_read(fs, "proc/1/cgroup", buf, sizeof(buf))) {
		static const char *const kinds[] = { "kubepods", "docker", "containerd", "lxc",
						     "libpod" };
		hh->container = NP_NO;
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (strstr(buf, kinds[i])) {
				hh->container = NP_YES;
				snprintf(hh->container_kind, sizeof(hh->container_kind), "%s",
					 !strcmp(kinds[i], "kubepods") ? "kubernetes" : kinds[i]);
				break;
			}
	}
}

/* IOMMU mode of the GPUs' groups: "DMA"/"DMA-FQ" translate every DMA,
 * "identity" passes it through. */
static void host_iommu(const struct np_topo *t, const struct np_sysfs *fs,
		       struct np_host_health *hh)
{
	for (int i = 0; i < t->ngpus; i++) {
		char rel[320], link[256], type[16];
		const char *grp;
		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/iommu_group", t->gpus[i].busid);
		if (!np_sysfs_readlink(fs, rel, link, sizeof(link)))
			continue;
		grp = strrchr(link, '/');
		snprintf(rel, sizeof(rel), "sys/kernel/iommu_groups/%s/type", grp ? grp + 1 : link);
		if (!np_sysfs_read(fs, rel, type, sizeof(type)))
			continue;
		if (!strncmp(type, "DMA", 3)) {
			hh->iommu_dma = NP_YES;
			snprintf(hh->iommu_type, sizeof(hh->iommu_type), "%s", type);
			return;
		}
		if (!strcmp(type, "identity") && hh->iommu_dma == NP_UNKNOWN) {
			hh->iommu_dma = NP_NO;
			snprintf(hh->iommu_type, sizeof(hh->iommu_type), "%s", type);
		}
	}
}

/* NCCL's shared-memory transport, where P2P is not used, gives each pair
 * of local ranks one connection per channel, each with its SIMPLE (4 MiB),
 * LL128 (about 4.5 MiB) and LL buffers in /dev/shm: about 9 MiB per pair
 * and channel, at least 2 channels. */
static long long shm_need(int ranks)
{
	return ranks > 1 ? (long long)ranks * (ranks - 1) * 2 * 9 * MIB : 0;
}

void np_health_live(struct np_topo *t, struct np_health *h, const struct np_health_opts *o)
{
	struct np_sysfs fs;
	struct np_err err = { 0 };
	bool counted = false;

	memset(h, 0, sizeof(*h));
	h->host.shm_bytes = h->host.shm_free = h->host.shm_need = h->host.memlock = NP_HX;
	h->host.container = h->host.iommu_dma = NP_UNKNOWN;
	if (np_sysfs_open(&fs, &err)) {
		np_topo_note(t, "health: %s", err.msg);
		return;
	}
	for (int i = 0; i < t->nnics && h->nnics < NP_MAX_NICS; i++) {
		struct np_nic_health *nh = &h->nics[h->nnics++];
		const struct np_nic *n = &t->nics[i];
		nh->nic = i;
		nh->rate_max_gbit = nh->eth_mbps = nh->eth_max_mbps = NP_HX;
		if (n->ll == NP_LL_IB && n->width == 1 && n->rate_gbit > 0)
			nh->rate_max_gbit = (long long)(n->rate_gbit * 4);
		/* the ioctl asks this machine's kernel: never for a fake tree */
		if (n->ll == NP_LL_ROCE && n->netdev[0] && !fs.fake) {
			long long cur, max;
			if (np_ethtool_rates(n->netdev, &cur, &max) == 0) {
				nh->eth_mbps = cur;
				nh->eth_max_mbps = max;
			}
		}
	}
	nic_counters(t, &fs, h, false);
	for (int i = 0; i < h->nnics; i++)
		for (int c = 0; c < NP_HEALTH_NIC_COUNTERS; c++)
			counted |= h->nics[i].before[c] != NP_HX;
	/* the GPUs' window; without GPUs to sample, wait for the NIC counters */
	if ((!np_health_nvml(t, h, &fs, o) || !h->ngpus) && counted) {
		sleep_s(o->window_s);
		h->window_s = o->window_s;
	}
	nic_counters(t, &fs, h, true);

	host_shm(&fs, &h->host);
	h->host.shm_ranks = o->local_ranks > t->ngpus ? o->local_ranks : t->ngpus;
	h->host.shm_need = shm_need(h->host.shm_ranks);
	host_limits(&fs, &h->host);
	host_container(&fs, &h->host);
	host_iommu(t, &fs, &h->host);
	np_health_xid(t, &fs, &h->xid);
	np_sysfs_release(&fs);
	/* kept for the NUMA node CPU lists the checks compare against */
	t->health = h;
}
