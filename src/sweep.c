/* SPDX-License-Identifier: MIT */
#include "config.h"
#include "cmds.h"
#include "msg.h"
int cmd_sweep(int argc, char **argv, int first, bool mpi)
{
	np_error("sweep is not built yet");
	return NP_EXIT_RUNTIME;
}
