/* SPDX-License-Identifier: MIT */
/* The network transport read from NCCL's INIT/NET log: InfiniBand, a
 * fall-back to sockets with its reason, a network plugin, and a log
 * without the line. */
#include "config.h"

#include <stdio.h>
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
		   "IBext_v8 ([0]mlx5_0:1/RoCE [RO])", "a network plugin: devices of the transport it extends");
	tap_is_str(parse("h:1:1 [0] NCCL INFO cudaDriverVersion 13000\n"), "",
		   "no 'Using network' line: unknown");
	return tap_done();
}
