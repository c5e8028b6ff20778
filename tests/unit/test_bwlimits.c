/* SPDX-License-Identifier: MIT */
/* Unit tests of the per-node limits (topo/bwlimits.c): B_node of a partial
 * node counts the NICs its ranks' GPUs use; a row's limit over nodes of
 * different rank counts is the worst node's; gather and scatter take the
 * shared formula. Expected values are worked by hand from DESIGN.md. */
#include "config.h"

#include <stddef.h>

#include "../../topo/bwlimits.h"
#include "tap.h"

int main(void)
{
	/* an 8-GPU node with 8 x 400 Gb/s (400 GB/s in all), one NIC per GPU */
	const char *full[8] = { "mlx5_0:1", "mlx5_1:1", "mlx5_2:1", "mlx5_3:1",
				"mlx5_4:1", "mlx5_5:1", "mlx5_6:1", "mlx5_7:1" };
	const double r50[8] = { 50, 50, 50, 50, 50, 50, 50, 50 };
	const char *two[2] = { "mlx5_0:1", "mlx5_1:1" };
	const char *shared[2] = { "mlx5_0:1", "mlx5_0:1" };
	const char *unknown[2] = { "mlx5_0:1", "" };
	int L[2];
	double B[2];

	tap_is_dbl(np_node_bw_used(8, full, r50, 400), 400, 1e-9,
		   "full node: the 8 NICs, 400 GB/s");
	tap_is_dbl(np_node_bw_used(2, two, r50, 400), 100, 1e-9,
		   "2 of 8 GPUs, each with its NIC: 100 GB/s, not the node's 400");
	tap_is_dbl(np_node_bw_used(2, shared, r50, 400), 50, 1e-9,
		   "2 GPUs behind one NIC: that NIC once, 50 GB/s");
	tap_is_dbl(np_node_bw_used(2, unknown, r50, 400), 400, 1e-9,
		   "a rank without a nearest NIC: the node's whole NIC sum");
	tap_is_dbl(np_node_bw_used(2, unknown, r50, 0), 0, 0, "and unknown stays unknown");

	/* 10 ranks: node 0 holds 8 (B_node 400), node 1 holds 2 (B_node 100) */
	L[0] = 8, B[0] = 400, L[1] = 2, B[1] = 100;
	/* alltoall: B_node (n-1)/(L(n-L)): node 0: 400*9/(8*2) = 225; node 1:
	 * 100*9/(2*8) = 56.25; B_gpu (n-1)/(L-1) = 450*9/7 and 450*9 do not bind */
	tap_is_dbl(np_limit_nodes(NP_COLL_ALLTOALL, 10, 2, L, B, 450, 50), 56.25, 1e-9,
		   "uneven nodes: alltoall is held to the worst node (56.25 GB/s)");
	tap_is_dbl(np_limit_nodes(NP_COLL_ALLREDUCE, 10, 2, L, B, 450, 50), 100, 1e-9,
		   "uneven nodes: allreduce min(B_gpu, B_node) of the worst node");
	tap_is_dbl(np_limit_nodes(NP_COLL_GATHER, 10, 2, L, B, 450, 50), 100, 1e-9,
		   "gather: the shared formula");
	tap_is_dbl(np_limit_nodes(NP_COLL_SCATTER, 10, 2, L, B, 80, 50), 80, 1e-9,
		   "scatter with a slow GPU link: B_gpu");
	tap_is_dbl(np_limit_nodes(NP_COLL_SENDRECV, 10, 2, L, B, 450, 50), 50, 1e-9,
		   "sendrecv across nodes: the nearest NIC");
	B[1] = 0;
	tap_is_dbl(np_limit_nodes(NP_COLL_ALLREDUCE, 10, 2, L, B, 450, 50), 0, 0,
		   "a node with unknown B_node: the limit is unknown");
	L[0] = 4, B[0] = 200, L[1] = 4, B[1] = 200;
	tap_is_dbl(np_limit_nodes(NP_COLL_ALLTOALL, 8, 2, L, B, 450, 50),
		   np_limit_busbw(NP_COLL_ALLTOALL, 8, 4, 450, 200, 50), 1e-12,
		   "even nodes: the same as the one-node formula");
	return tap_done();
}
