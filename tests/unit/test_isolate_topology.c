/* SPDX-License-Identifier: MIT */
/* isolate --topology: Slurm's topology.conf read for the job's nodes
 * (src/isolate_topology.c), its leaves and the refusals of a bad file. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "../../src/isolate_topology.h"
#include "tap.h"

/* Slurm's topology.conf read for the job's nodes */
static void test_topology_file(void)
{
	static const char nn[7][NP_ISO_NAMELEN] = { "node01", "node02", "gpu7",  "node03x",
						    "node3x", "other",  "node10" };
	char path[] = "/tmp/np-topo-XXXXXX", ln[7][NP_ISO_NAMELEN];
	int leaf[7], nl, fd;
	struct np_err err;
	FILE *f;

	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		tap_ok(0, "a temporary file for topology.conf");
		return;
	}
	fprintf(f,
		"# leaves and a spine\n"
		"SwitchName=s0 Nodes=node[01-02],gpu7\n"
		"SwitchName=s1 LinkSpeed=100 Nodes=node[03-04,08-12]x\n"
		"SwitchName=s2 Nodes=node[09-11]\n"
		"switchname=spine Switches=s[0-2]\n");
	fclose(f);
	memset(&err, 0, sizeof(err));
	tap_is_int(np_iso_topology_read(path, 7, nn, leaf, ln, &nl, &err), NP_OK,
		   "topology.conf read");
	tap_ok(leaf[0] == 0 && leaf[1] == 0 && leaf[2] == 0 && leaf[3] == 1 && leaf[6] == 2,
	       "  node[01-02],gpu7 on s0, node03x on s1 (a suffix), node10 on s2 (%d %d %d %d %d)",
	       leaf[0], leaf[1], leaf[2], leaf[3], leaf[6]);
	tap_ok(leaf[4] == -1 && leaf[5] == -1, "  node3x (not as wide as 03) and other on none");
	tap_ok(nl == 3 && !strcmp(ln[0], "s0") && !strcmp(ln[1], "s1") && !strcmp(ln[2], "s2"),
	       "  3 leaves, named s0 s1 s2; the spine (Switches=) is no leaf");

	f = fopen(path, "w");
	fprintf(f, "SwitchName=s0 Nodes=node[01-02]\nSwitchName=s1 Nodes=node02\n");
	fclose(f);
	tap_ok(np_iso_topology_read(path, 7, nn, leaf, ln, &nl, &err) == NP_EUSAGE &&
		       strstr(err.msg, "node 'node02' is on switch 's0' and on 's1'"),
	       "a node on two leaves: usage error, '%.80s'", err.msg);
	f = fopen(path, "w");
	fprintf(f, "SwitchName=s0 Nodes=node[a-2]\n");
	fclose(f);
	tap_ok(np_iso_topology_read(path, 7, nn, leaf, ln, &nl, &err) == NP_EUSAGE &&
		       strstr(err.msg, "line 1: cannot read the node list 'node[a-2]'"),
	       "a list it cannot read: usage error with its line, '%.80s'", err.msg);
	f = fopen(path, "w");
	fprintf(f, "SwitchName=s0 Nodes=elsewhere[1-4]\n");
	fclose(f);
	tap_ok(np_iso_topology_read(path, 7, nn, leaf, ln, &nl, &err) == NP_EUSAGE &&
		       strstr(err.msg, "none of this job's nodes"),
	       "none of the job's nodes: usage error, '%.80s'", err.msg);
	unlink(path);
	tap_ok(np_iso_topology_read(path, 7, nn, leaf, ln, &nl, &err) == NP_EUSAGE &&
		       strstr(err.msg, "cannot read --topology"),
	       "no file: usage error, '%.80s'", err.msg);
}

int main(void)
{
	test_topology_file();
	return tap_done();
}
