/* SPDX-License-Identifier: MIT */
/* A fault for tests (LD_PRELOAD): hwloc_topology_load dies of SIGSEGV, as
 * hwloc 2.9's XML importer did on damaged files that passed every check.
 * tests/t2010-topo-hostile-input.sh shows that 'topo --input' answers
 * with one line and exit 64 when that happens. */
#include <signal.h>

#include <hwloc.h>

int hwloc_topology_load(hwloc_topology_t topology)
{
	(void)topology;
	raise(SIGSEGV);
	return -1;
}
