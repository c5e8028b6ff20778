/* SPDX-License-Identifier: MIT */
/* Fuzz target: an hwloc XML through 'topo --input' (libxml2 parse, the
 * structure check, hwloc's importer, the hwloc source, analysis). */
#include "config.h"

#include "fuzz_topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_topo((const char *)data, size);
	return 0;
}
