/* SPDX-License-Identifier: MIT */
/* Fuzz target: an NCCL topology file (<system version="1">) through
 * 'topo --input': the parse, the NCCL source's numbers and tree, analysis.
 * The same entry point as fuzz_hwloc; the seeds and dictionary differ. */
#include "config.h"

#include "fuzz_topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_topo((const char *)data, size);
	return 0;
}
