/* SPDX-License-Identifier: MIT */
/* Shared body of the topology fuzz targets: read a file's bytes as
 * 'topo --input' does, analyze the model and render both reports, as the
 * command would. A sanitizer report, a crash, a hang or a message on
 * stderr is a finding; an error status is the expected answer to most
 * inputs. */
#ifndef NP_FUZZ_TOPO_H
#define NP_FUZZ_TOPO_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <hwloc.h>

#include "../../topo/topo.h"
#include "../../src/topo_report.h"

static FILE *fuzz_null(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

/* Nothing may reach stderr while a file is read: 'topo --input' prints
 * one line for a bad file, and hwloc's own messages ("Topology does not
 * contain any NUMA node, aborting!") were a second one. The stdio stream
 * (what hwloc and libxml2 write through) goes to a scratch file for each
 * input, and anything found there is a finding; the sanitizers write to
 * file descriptor 2 and still reach the log. */
static FILE *fuzz_quiet_begin(void)
{
	static FILE *scratch;
	FILE *real = stderr;

	if (!scratch)
		scratch = tmpfile();
	if (!scratch)
		return NULL;
	rewind(scratch);
	if (ftruncate(fileno(scratch), 0) != 0)
		return NULL;
	stderr = scratch;
	return real;
}

static void fuzz_quiet_end(FILE *real)
{
	FILE *scratch = stderr;
	char line[512];
	long n;

	if (!real)
		return;
	fflush(scratch);
	n = ftell(scratch);
	stderr = real;
	if (n <= 0)
		return;
	rewind(scratch);
	fprintf(stderr,
		"error: %ld bytes written to stderr while reading the input (a second line beside the one error):\n",
		n);
	while (fgets(line, sizeof(line), scratch))
		fputs(line, stderr);
	abort();
}

static void fuzz_topo(const char *buf, size_t len)
{
	static hwloc_topology_t keep;
	struct np_topo *t = malloc(sizeof(*t));
	struct np_err err;
	FILE *real;

	/* one topology alive for the whole run keeps hwloc's plugins loaded:
	 * without it every input dlopens and dlcloses them (80 inputs/s) */
	if (!keep)
		hwloc_topology_init(&keep);

	if (!t)
		return;
	np_topo_init(t);
	real = fuzz_quiet_begin();
	if (np_topo_discover_buffer(t, buf, len, "fuzz.xml", false, &err) == NP_OK) {
		np_topo_analyze(t);
		np_topo_report_table(fuzz_null(), t, NULL, false);
		np_topo_report_table(fuzz_null(), t, NULL, true);
		static const struct np_run_record rec = { .id = "0",
							  .start_time = "1970-01-01T00:00:00Z" };
		np_topo_report_json(fuzz_null(), t, NULL, false, &rec);
		np_topo_report_recommend(fuzz_null(), t);
	}
	fuzz_quiet_end(real);
	np_topo_release(t);
	free(t);
}

#endif
