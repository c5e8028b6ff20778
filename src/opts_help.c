/* SPDX-License-Identifier: MIT */
/* --help: each command's synopsis and description, its rows of the
 * option table (src/opts.c) with their help broken to 80 columns, and its
 * exit status. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "../common/coll.h"
#include "opts.h"

/* One option in --help: its name in a column of 28, the text beside it
 * broken at blanks into lines of at most 80 columns (below the name when
 * the name is longer than its column). */
static void usage_line(FILE *f, const char *left, const char *help)
{
	const int width = 80, indent = 32;
	int room = width - indent;

	if ((int)strlen(left) > indent - 4)
		fprintf(f, "  %s\n%*s", left, indent, "");
	else
		fprintf(f, "  %-*s  ", indent - 4, left);
	while (*help) {
		int n = (int)strlen(help);
		if (n > room) {
			n = room;
			while (n > 0 && help[n] != ' ')
				n--;
			if (n == 0)
				n = room;
		}
		fprintf(f, "%.*s\n", n, help);
		help += n;
		while (*help == ' ')
			help++;
		if (*help)
			fprintf(f, "%*s", indent, "");
	}
}

/* An option's help for command cmd: the table's text, and where the
 * default differs by command, the command's own, read from its defaults
 * (np_opts_defaults) rather than written twice. */
static const char *option_help(const struct np_option *o, unsigned cmd, const struct np_opts *d,
			       char *buf, size_t n)
{
	if (!strcmp(o->name, "format"))
		return cmd == NP_CMD_SWEEP ? "output format (default table; nccl-tests: its table of one collective, and with -J its JSON)"
					   : "output format (default table)";
	if (!strcmp(o->name, "budget")) {
		snprintf(buf, n, "%s (default %g)", o->help, d->budget);
		return buf;
	}
	if (!strcmp(o->name, "coll")) {
		size_t k = (size_t)snprintf(buf, n, "%s (default ", o->help);
		const char *sep = "";
		for (int c = 0; c < NP_COLL_COUNT && k < n; c++)
			if (d->colls[c]) {
				k += (size_t)snprintf(buf + k, n - k, "%s%s", sep, np_colls[c].name);
				sep = ",";
			}
		if (k < n)
			snprintf(buf + k, n - k, ")");
		return buf;
	}
	return o->help;
}

void np_opts_usage(FILE *f, unsigned cmd)
{
	if (cmd == NP_CMD_ISOLATE)
		fprintf(f, "usage: mpirun -np N nccl-probe isolate [options]\n\n"
			   "Find the bad node or link in one job: disjoint groups (each node alone,\n"
			   "pairs of nodes) measure at the same time, round after round, and a node\n"
			   "or link is named only when it is significantly below the fleet again\n"
			   "with new partners.\n\noptions:\n");
	else if (cmd == NP_CMD_COMPARE)
		fprintf(f, "usage: nccl-probe compare [options] A.json B.json\n\n"
			   "Compare two sweeps' JSON reports row by row: B's speed against A's with a\n"
			   "95%% confidence interval from the samples both stored, and a regression gate.\n\noptions:\n");
	else if (cmd == NP_CMD_TUNE)
		fprintf(f, "usage: mpirun -np N nccl-probe tune --try VAR=V1,V2 [--try ...] [options]\n\n"
			   "Measure each candidate setting against the environment as launched, in\n"
			   "alternating batches, each on a communicator made with the setting in effect\n"
			   "(confirmed in NCCL's log); report where each is faster or slower with a 95%%\n"
			   "interval, and export lines only for a significant winner.\n\noptions:\n");
	else if (cmd == NP_CMD_TOPO)
		fprintf(f, "usage: nccl-probe topo [options]\n\n"
			   "Map GPU, NIC and NUMA affinity, check GPUDirect RDMA, placement and links,\n"
			   "and recommend NCCL settings.\n\noptions:\n");
	else
		fprintf(f, "usage: mpirun -np N nccl-probe [sweep] [options]\n"
			   "       nccl-probe topo [options]      (see 'nccl-probe topo --help')\n"
			   "       mpirun -np N nccl-probe isolate [options]   (nccl-probe help isolate)\n"
			   "       nccl-probe compare A.json B.json   (see 'nccl-probe compare --help')\n"
			   "       mpirun -np N nccl-probe tune --try VAR=V1,V2   (nccl-probe help tune)\n"
			   "       nccl-probe help [COMMAND] | version\n\n"
			   "Measure NCCL (or MPI) collectives over a range of sizes and compare the\n"
			   "bus bandwidth with what this machine's links allow.\n\noptions:\n");
	struct np_opts d;
	np_opts_defaults(&d, cmd);
	for (size_t i = 0; i < np_options_count; i++) {
		const struct np_option *o = &np_options[i];
		char left[64], help[256];
		if (!(o->cmds & cmd))
			continue;
		const char *arg = o->arg;
		/* only the formats this command writes */
		if (!strcmp(o->name, "format"))
			arg = cmd == NP_CMD_SWEEP ? "table|json|csv|nccl-tests" : "table|json";
		if (o->kind == NP_OPT_OPTARG)
			snprintf(left, sizeof(left), "-%c, --%s[=%s]", o->short_name, o->name, arg);
		else if (o->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name,
				 arg ? " " : "", arg ? arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name, arg ? " " : "", arg ? arg : "");
		usage_line(f, left, option_help(o, cmd, &d, help, sizeof(help)));
		/* the names come from the tables (common/coll.c) */
		if (!strcmp(o->name, "coll") || !strcmp(o->name, "dtype")) {
			char names[256];
			usage_line(f, "", np_names_join(o->name[0] == 'c' ? 0 : 1, " ", names, sizeof(names)));
		}
	}
	if (cmd == NP_CMD_SWEEP)
		fprintf(f, "\nexit status: 0 ok, 1 verdict failed, 2 wrong data, 3 runtime error,\n"
			   "4 timeout, 6 inconclusive (a row's interval reaches its threshold),\n"
			   "64 usage. See nccl-probe(1).\n");
	if (cmd == NP_CMD_COMPARE)
		fprintf(f, "\nexit status: 0 no row significantly slower (beyond --max-regression),\n"
			   "1 B significantly slower somewhere, 64 usage, unreadable reports or runs\n"
			   "that cannot be compared.\n");
	if (cmd == NP_CMD_ISOLATE)
		fprintf(f, "\nexit status: 0 every node and link good, 1 a node, link or the fleet\n"
			   "named, 2 a node computes wrong data, 3 runtime error, 4 timeout,\n"
			   "6 inconclusive (nothing named, some node not cleared), 64 usage.\n");
}
