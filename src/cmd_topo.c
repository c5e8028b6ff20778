/* SPDX-License-Identifier: MIT */
/* The topo command (filled by the topology module). */
#include "config.h"

#include "cmds.h"
#include "msg.h"
#include "opts.h"

int cmd_topo(int argc, char **argv, int first, bool mpi)
{
	struct np_opts o;
	struct np_err err = { 0 };
	bool help, version;

	if (np_opts_parse(&o, NP_CMD_TOPO, argc, argv, first, &help, &version, &err)) {
		np_error("%s", err.msg);
		return NP_EXIT_USAGE;
	}
	if (help) {
		np_opts_usage(stdout, NP_CMD_TOPO);
		return 0;
	}
	np_error("topo is not built yet");
	return NP_EXIT_RUNTIME;
}
