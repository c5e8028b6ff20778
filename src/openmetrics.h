/* SPDX-License-Identifier: MIT */
/* --metrics FILE: results in the Prometheus text exposition format (the
 * .prom files that node_exporter's textfile collector reads), one writer
 * per document (sweep, topo, isolate). Every name starts with nccl_probe_,
 * figures are in base units (bytes, seconds, bytes per second, hertz,
 * degrees Celsius, ratios), each family has HELP and TYPE lines, and a
 * figure that is unknown is absent, never written as 0. The man page's
 * METRICS section lists the names.
 *
 * Families that every command writes (nccl_probe_run_info,
 * nccl_probe_exit_code, nccl_probe_last_run_timestamp_seconds) carry a
 * `command` label, so that one textfile directory can hold a sweep's, a
 * topo's and an isolate's file without two series of the same name and
 * labels. Files go through src/outfile.h (temporary, fsync, rename). */
#ifndef NP_OPENMETRICS_H
#define NP_OPENMETRICS_H

#include <stdint.h>

#include "../topo/model.h"
#include "outfile.h"
#include "../common/status.h"
#include "results.h"

/* The sweep's report: per collective and size, busbw, algbw, time, eff,
 * limit, wrong elements and the row's verdict; the run's exit code, whether
 * a threshold judged it, and its info. Written into *of, opened on path
 * and not committed: the sweep commits it with its other outputs, all or
 * none (np_outfile_commit_all). NP_EUSAGE for a target refused, NP_ESYS
 * when the temporary cannot be made (err says why). */
enum np_status np_openmetrics_sweep(struct np_outfile *of, const char *path,
				    const struct np_sweep_report *rep, struct np_err *err);

/* The writers below open, write and commit path. topo's report: findings by level and kind, GDR per
 * GPU (a state set: yes, no, unknown), health figures where t->health has them, and the command's
 * exit code. */
enum np_status np_openmetrics_topo(const char *path, const struct np_topo *t, int exit_code,
				   struct np_err *err);

/* isolate's nodes, as its JSON names them. */
struct np_om_node {
	const char *name;
	const char *host;
	const char *state; /* "ok", "bad-inside", "bad-network", "wrong-data" or "unknown" */
};

struct np_om_isolate {
	const char *backend;
	const struct np_om_node *nodes;
	int nnodes;
	int nlinks; /* bad links named */
	int rounds;
	uint64_t size; /* bytes of each measurement */
	int exit_code;
};

/* isolate's report: each node's state (ok, bad, unknown; a state set) and,
 * for a bad node, why; bad links, rounds and the exit code. */
enum np_status np_openmetrics_isolate(const char *path, const struct np_om_isolate *iso,
				      struct np_err *err);

#endif
