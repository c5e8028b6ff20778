/* SPDX-License-Identifier: MIT */
/* The network transport read from NCCL's INIT/NET log: InfiniBand, a
 * fall-back to sockets with its reason, a network plugin, and a log
 * without the line. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../probes/nccl_log.h"
#include "tap.h"

static const char *parse(const char *log)
{
	static char out[128];
	FILE *f = fmemopen((void *)log, strlen(log), "r");

	out[0] = '\0';
	if (f) {
		np_nccl_log_transport(f, out, sizeof(out));
		fclose(f);
	}
	return out;
}

int main(void)
{
	tap_is_str(parse("n1:10:10 [0] NCCL INFO Bootstrap: Using ib0:10.1.0.1<0>\n"
			 "n1:10:10 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so.\n"
			 "n1:10:10 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB ib0:10.1.0.1<0>\n"
			 "n1:10:10 [0] NCCL INFO NET/Socket : Using [0]ib0:10.1.0.1<0>\n"
			 "n1:10:10 [0] NCCL INFO Using network IB\n"),
		   "IB ([0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO])", "InfiniBand and its ports");
	tap_is_str(parse("h:1:1 [0] NCCL INFO NET/IB : No device found.\n"
			 "h:1:1 [0] NCCL INFO NET/IB : Using [RO]; OOB eth0:10.0.0.2<0>\n"
			 "h:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>\n"
			 "h:1:1 [0] NCCL INFO Using network Socket\n"),
		   "Socket ([0]eth0:10.0.0.2<0>; NET/IB: no device found)",
		   "sockets, with the reason and not IB's empty device line");
	tap_is_str(parse("h:1:1 [0] NCCL INFO Failed to open libibverbs.so[.1]\n"
			 "h:1:1 [0] NCCL INFO Using network Socket\n"),
		   "Socket (libibverbs not loaded)", "sockets without libibverbs, no device line");
	tap_is_str(parse("h:1:1 [0] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8\n"
			 "h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.2<0>\n"
			 "h:1:1 [0] NCCL INFO Using network IBext_v8\n"),
		   "IBext_v8 ([0]mlx5_0:1/RoCE [RO])",
		   "a network plugin: devices of the transport it extends");
	tap_is_str(parse("h:1:1 [0] NCCL INFO cudaDriverVersion 13000\n"), "",
		   "no 'Using network' line: unknown");
	{ /* the host id of a virtual node: set once, ours, not the user's */
		char id[64];
		const char *long_host = "a-host-name-of-more-than-forty-bytes-0123456789";
		np_nccl_host_id(id, sizeof(id), "node3", 7);
		tap_is_str(id, "node3-vnode7", "host id: host name and virtual node");
		np_nccl_host_id(id, sizeof(id), long_host, 65535);
		tap_is_str(id, "a-host-name-of-more-than-forty-bytes-012-vnode65535",
			   "host id: the host name cut to 40 bytes, the node whole");
		tap_ok(np_nccl_hostid() == NULL, "no host id before the setup");
		tap_ok(!np_nccl_env_ours("NCCL_HOSTID=node3-vnode7"),
		       "a user's NCCL_HOSTID is the user's");
		tap_ok(np_nccl_hostid_setup("node3", 7) == 0, "host id set");
		tap_is_str(getenv("NCCL_HOSTID"), "node3-vnode7", "NCCL_HOSTID in the environment");
		tap_is_str(np_nccl_hostid(), "node3-vnode7", "the id set is known");
		tap_ok(np_nccl_env_ours("NCCL_HOSTID=node3-vnode7"),
		       "that NCCL_HOSTID is nccl-probe's");
		tap_ok(!np_nccl_env_ours("NCCL_HOSTID=other"), "another value is not");
		tap_ok(!np_nccl_env_ours("NCCL_IB_HCA=mlx5_0"),
		       "other NCCL variables are the user's");
	}
	return tap_done();
}
