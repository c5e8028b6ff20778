/* SPDX-License-Identifier: MIT */
/* Bandwidth limits: the DESIGN.md formula against its published checks,
 * and np_bw_facts_local on a fake sysfs tree built here (NCCL_PROBE_FSROOT). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "../../topo/bwlimits.h"

static char root[256];

static void mkdirs(const char *rel)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

static void put(const char *rel, const char *text)
{
	char p[1024], dir[1024];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", rel);
	if (strrchr(dir, '/')) {
		*strrchr(dir, '/') = '\0';
		mkdirs(dir);
	}
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void link_to(const char *rel, const char *target)
{
	char p[1024], dir[1024];

	snprintf(dir, sizeof(dir), "%s", rel);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (symlink(target, p) != 0)
		printf("# symlink %s: %s\n", p, strerror(errno));
}

/* A node with one H100-like GPU (PCIe Gen5 x16, no NVML here) under a
 * switch with mlx5_0 (Gen5 x16), three more NDR ports elsewhere, and
 * mlx5_4, a 25 Gb/s management port on a Gen3 x4 link. */
static void build_tree(void)
{
	static const char *const sw = "devices/pci0000:17/0000:17:01.0/0000:18:00.0";
	char rel[1024], tgt[512];

	mkdirs("sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0/0000:19:00.0");
	snprintf(rel, sizeof(rel), "sys/%s/0000:19:00.0/vendor", sw);
	put(rel, "0x10de\n");
	snprintf(rel, sizeof(rel), "sys/%s/0000:19:00.0/class", sw);
	put(rel, "0x030200\n");
	snprintf(rel, sizeof(rel), "sys/%s/0000:19:00.0/max_link_speed", sw);
	put(rel, "32.0 GT/s PCIe\n");
	snprintf(rel, sizeof(rel), "sys/%s/0000:19:00.0/max_link_width", sw);
	put(rel, "16\n");
	snprintf(rel, sizeof(rel), "sys/%s/0000:19:00.0/current_link_speed", sw);
	put(rel, "2.5 GT/s PCIe\n"); /* idle */
	snprintf(rel, sizeof(rel), "sys/%s/0000:19:00.0/current_link_width", sw);
	put(rel, "16\n");
	snprintf(tgt, sizeof(tgt), "../../../%s/0000:19:00.0", sw);
	link_to("sys/bus/pci/devices/0000:19:00.0", tgt);
	for (int i = 0; i < 5; i++) {
		char bdf[32], dev[32];
		snprintf(bdf, sizeof(bdf), "0000:%02x:00.0", i == 0 ? 0x1a : 0x40 + i);
		snprintf(dev, sizeof(dev), "mlx5_%d", i);
		if (i == 0)
			snprintf(tgt, sizeof(tgt), "%s/%s", sw, bdf);
		else
			snprintf(tgt, sizeof(tgt), "devices/pci0000:%02x/%s", 0x40 + i, bdf);
		snprintf(rel, sizeof(rel), "sys/%s/vendor", tgt);
		put(rel, "0x15b3\n");
		snprintf(rel, sizeof(rel), "../../../%s", tgt);
		{
			char l[128];
			snprintf(l, sizeof(l), "sys/bus/pci/devices/%s", bdf);
			link_to(l, rel);
			snprintf(l, sizeof(l), "sys/class/infiniband/%s/device", dev);
			snprintf(rel, sizeof(rel), "../../../%s", tgt);
			link_to(l, rel);
		}
		snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/1/state", dev);
		put(rel, "4: ACTIVE\n");
		snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/1/phys_state", dev);
		put(rel, "5: LinkUp\n");
		snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/1/rate", dev);
		put(rel, i == 4 ? "25 Gb/sec (1X EDR)\n" : "400 Gb/sec (4X NDR)\n");
		if (i == 0 || i == 4) { /* the widest NIC's link and the management port's */
			snprintf(rel, sizeof(rel), "sys/%s/max_link_speed", tgt);
			put(rel, i == 4 ? "8.0 GT/s PCIe\n" : "32.0 GT/s PCIe\n");
			snprintf(rel, sizeof(rel), "sys/%s/max_link_width", tgt);
			put(rel, i == 4 ? "4\n" : "16\n");
		}
		snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/1/link_layer", dev);
		put(rel, "InfiniBand\n");
	}
}

int main(void)
{
	struct np_bw_facts f;
	struct np_err err = { 0 };
	const char *tmp = getenv("TMPDIR");

	/* DGX A100: 8 x HDR (B_node 200 GB/s), A100 12 NVLinks x 25 GB/s */
	tap_is_dbl(np_limit_busbw(NP_COLL_ALLREDUCE, 16, 8, 300, 200, 25), 200, 1e-9,
		   "DGX A100 2 nodes: allreduce limit is B_node 200 GB/s");
	tap_is_dbl(192 / np_limit_busbw(NP_COLL_ALLREDUCE, 16, 8, 300, 200, 25), 0.96, 1e-9,
		   "DGX A100: the published 192 GB/s is 96%% of the limit");
	/* 2 nodes x 8 H100, 8 x NDR (B_node 400), 18 NVLinks x 25 GB/s */
	tap_is_dbl(np_limit_busbw(NP_COLL_ALLTOALL, 16, 8, 450, 400, 50), 400.0 * 15 / 64, 1e-9,
		   "2 x 8 H100 alltoall limit is 400*15/64 = 93.75 GB/s");
	tap_is_dbl(np_limit_busbw(NP_COLL_ALLTOALL, 16, 8, 450, 400, 50), 93.75, 1e-9,
		   "that is 93.75");
	tap_is_dbl(np_limit_busbw(NP_COLL_ALLREDUCE, 8, 8, 450, 400, 50), 450, 1e-9,
		   "one node: allreduce limit is B_gpu");
	tap_is_dbl(np_limit_busbw(NP_COLL_ALLTOALL, 8, 8, 450, 400, 50), 450, 1e-9,
		   "one node: alltoall limit is B_gpu");
	tap_is_dbl(np_limit_busbw(NP_COLL_ALLTOALL, 4, 1, 450, 50, 50), 50, 1e-9,
		   "one rank per node: alltoall is bounded by B_node (n-1)/(n-1)");
	tap_is_dbl(np_limit_busbw(NP_COLL_ALLTOALL, 16, 8, 10, 400, 50), 10.0 * 15 / 7, 1e-9,
		   "alltoall with slow GPUs: B_gpu (n-1)/(L-1) wins");
	tap_is_dbl(np_limit_busbw(NP_COLL_SENDRECV, 16, 8, 450, 400, 50), 50, 1e-9,
		   "sendrecv across nodes: the nearest NIC bounds it");
	tap_is_dbl(np_limit_busbw(NP_COLL_SENDRECV, 8, 8, 450, 400, 50), 450, 1e-9,
		   "sendrecv within a node: B_gpu");
	tap_is_dbl(np_limit_busbw(NP_COLL_BROADCAST, 32, 8, 450, 400, 50), 400, 1e-9,
		   "broadcast 4 nodes: min(B_gpu, B_node)");
	tap_is_dbl(np_limit_busbw(NP_COLL_ALLREDUCE, 16, 8, 450, 0, 0), 0, 0,
		   "no NIC across nodes: unknown (0)");
	tap_is_dbl(np_limit_busbw(NP_COLL_ALLREDUCE, 8, 8, 0, 400, 0), 0, 0, "unknown B_gpu: 0");
	tap_is_dbl(np_limit_busbw(NP_COLL_ALLREDUCE, 0, 8, 450, 400, 0), 0, 0, "no ranks: 0");
	tap_is_dbl(np_limit_busbw(NP_COLL_ALLREDUCE, 12, 8, 450, 400, 50), 400, 1e-9,
		   "12 ranks of 8 per node span 2 nodes");

	tap_ok(np_bw_facts_local("not-a-bus-id", &f, &err) == NP_EUSAGE,
	       "a malformed bus id is a usage error");
	tap_ok(strstr(err.msg, "not-a-bus-id") != NULL, "its message names the value");

	snprintf(root, sizeof(root), "%s/np-limits.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		printf("# mkdtemp: %s\n", strerror(errno));
		return tap_done() || 1;
	}
	build_tree();
	setenv("NCCL_PROBE_FSROOT", root, 1);
	err.msg[0] = 0;
	tap_ok(np_bw_facts_local("0000:19:00.0", &f, &err) == NP_OK, "facts from a fake tree%s",
	       err.msg);
	tap_is_dbl(f.gpu_gbps, 32 * 16 * 128.0 / 130 / 8, 1e-9,
		   "B_gpu is the GPU's maximum PCIe link, Gen5 x16 (%s)", f.gpu_src);
	tap_is_str(f.gpu_src, "PCIe Gen5 x16", "its evidence");
	tap_is_dbl(f.node_gbps, 200, 1e-9,
		   "B_node: 4 x 400 Gb/s = 200 GB/s, the management port not counted");
	tap_is_str(f.node_src, "4 x NDR 400 Gb/s (mlx5_0..mlx5_3)", "its evidence");
	tap_is_dbl(f.nic_gbps, 50, 1e-9, "the nearest NIC (mlx5_0, same switch) gives 50 GB/s");
	tap_is_dbl(f.proto_gbps, 0, 0, "no NVLink: no protocol ceiling");
	tap_ok(np_bw_facts_local("19:00.0", &f, &err) == NP_OK && f.gpu_gbps > 63,
	       "a bus id without domain is accepted");
	tap_ok(np_bw_facts_local("", &f, &err) == NP_OK && f.gpu_gbps == 0 && f.node_gbps == 200,
	       "host memory: no B_gpu, B_node still known");
	tap_ok(np_bw_facts_local("0000:99:00.0", &f, &err) == NP_OK && f.gpu_gbps == 0 &&
		       strstr(f.gpu_src, "no GPU"),
	       "a bus id with no GPU: 0 and evidence says so");
	{
		/* a node's ranks from one discovery: each its own GPU's facts,
		 * as one rank's own discovery gives them */
		const char *ids[4] = { "0000:19:00.0", "", NULL, "0000:99:00.0" };
		struct np_bw_facts nf[4], one;
		bool same = true;
		tap_ok(np_bw_facts_node(4, ids, nf, &err) == NP_OK, "a node's 4 ranks at once%s",
		       err.msg);
		for (int i = 0; i < 4; i++) {
			np_bw_facts_local(ids[i], &one, &err);
			same = same && !memcmp(&one, &nf[i], sizeof(one));
		}
		tap_ok(same, "  each rank's facts are those of its own discovery");
		tap_ok(nf[0].gpu_gbps > 63 && nf[1].gpu_gbps == 0 && nf[2].gpu_gbps == 0 &&
			       nf[3].gpu_gbps == 0 && nf[1].node_gbps == 200 &&
			       !strcmp(nf[1].gpu_src, "host memory") &&
			       strstr(nf[3].gpu_src, "no GPU"),
		       "  the GPU, host memory (\"\" and none) and a bus id with no GPU");
		ids[2] = "bogus";
		tap_ok(np_bw_facts_node(4, ids, nf, &err) == NP_EUSAGE && strstr(err.msg, "bogus"),
		       "  one malformed bus id: a usage error naming it");
	}
	setenv("NCCL_PROBE_FSROOT", "/nonexistent/np-root", 1);
	tap_ok(np_bw_facts_local("", &f, &err) == NP_EUSAGE,
	       "a missing NCCL_PROBE_FSROOT is a usage error");
	tap_ok(f.node_gbps == 0 && f.gpu_gbps == 0 && !f.gpu_src[0],
	       "  its facts are zero (unknown), not the last call's");
	{
		char cmd[512];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", root);
	}
	return tap_done();
}
