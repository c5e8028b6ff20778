/* SPDX-License-Identifier: MIT */
/* Unit tests of the buffer rotation (probes/backend.h np_rotation_of), as
 * nccl-tests' startColl moves its buffers: for every collective, in and
 * out of place, on 1 to 9 ranks and sizes from 8 B to 64 MiB in buffers
 * allocated for the largest, the last step's span ends inside the buffers
 * allocated, the steps are as many as fit, and a size as large as the
 * buffers does not move. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "../../probes/backend.h"
#include "tap.h"

int main(void)
{
	int bad_bounds = 0, bad_count = 0, cases = 0;

	for (int c = 0; c < NP_COLL_COUNT; c++)
		for (int inplace = 0; inplace <= 1; inplace++) {
			if (inplace && !(np_colls[c].flags & NP_COLL_F_INPLACE))
				continue;
			for (int n = 1; n <= 9; n++) {
				struct np_layout big;
				size_t send_cap, recv_cap;
				np_coll_layout(&np_colls[c], 64ull << 20, 4, n, &big);
				/* what the sweep allocates for its largest size */
				send_cap = inplace ? 0 : big.send_bytes;
				recv_cap =
					inplace ? (big.send_bytes > big.recv_bytes ? big.send_bytes
										   : big.recv_bytes)
						: big.recv_bytes;
				for (uint64_t size = 8; size <= 64ull << 20; size *= 4) {
					struct np_bench b = { .coll = &np_colls[c],
							      .dtype = NP_FLOAT,
							      .inplace = inplace };
					struct np_rotation r;
					size_t last, end_send, end_recv, span;
					np_coll_layout(&np_colls[c], size, 4, n, &b.lay);
					if (!b.lay.count)
						continue;
					cases++;
					np_rotation_of(&b, send_cap, recv_cap, &r);
					last = r.steps - 1;
					if (inplace) {
						span = b.lay.send_bytes > b.lay.recv_bytes
							       ? b.lay.send_bytes
							       : b.lay.recv_bytes;
						end_recv = last * r.recv_step + span;
						bad_bounds += r.steps < 1 || end_recv > recv_cap;
						/* as many steps as fit: one more would not */
						bad_count += end_recv + span <= recv_cap;
					} else {
						end_send = last * r.send_step + b.lay.send_bytes;
						end_recv = last * r.recv_step + b.lay.recv_bytes;
						bad_bounds += r.steps < 1 || end_send > send_cap ||
							      end_recv > recv_cap;
						bad_count +=
							end_send + b.lay.send_bytes <= send_cap &&
							end_recv + b.lay.recv_bytes <= recv_cap;
					}
					if (size == 64ull << 20)
						bad_count += r.steps != 1;
				}
			}
		}
	tap_ok(cases > 500, "%d cases", cases);
	tap_is_int(bad_bounds, 0, "every step of the rotation stays inside the buffers allocated");
	tap_is_int(bad_count, 0,
		   "the steps are as many as fit, and the largest size does not move");
	{
		/* nccl-tests' figures: 8 GiB buffers, 16 MiB all-reduce: 512 steps of 16 MiB */
		struct np_bench b = { .coll = &np_colls[NP_COLL_ALLREDUCE], .dtype = NP_FLOAT };
		struct np_rotation r;
		np_coll_layout(b.coll, 16ull << 20, 4, 8, &b.lay);
		np_rotation_of(&b, 8ull << 30, 8ull << 30, &r);
		tap_is_int(r.steps, 512, "16 MiB all-reduce in 8 GiB buffers: 512 steps");
		tap_is_int(r.send_step, 16ull << 20, "  of 16 MiB");
	}
	return tap_done();
}
