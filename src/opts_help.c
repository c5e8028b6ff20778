/* SPDX-License-Identifier: MIT */
/* --help: each command's synopsis and description, its option table with
 * the help broken to 80 columns, and its exit codes, all from its struct
 * np_cmd (src/cmds.h); the default command's also lists every command. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "../common/coll.h"
#include "cmds.h"
#include "msg.h"
#include "opts.h"
#include "opts_rows.h"

/* text broken at blanks into lines of at most 80 columns, the first
 * from column indent (where the caller left it), the others indented */
static void wrap(FILE *f, const char *text, int indent)
{
	const int room = 80 - indent;

	while (*text) {
		int n = np_line_len(text, room);
		fprintf(f, "%.*s\n", n, text);
		text += n;
		while (*text == ' ')
			text++;
		if (*text)
			fprintf(f, "%*s", indent, "");
	}
}

/* One option in --help: its name in a column of 28, the text beside it
 * broken at blanks into lines of at most 80 columns (below the name when
 * the name is longer than its column). */
static void usage_line(FILE *f, const char *left, const char *help)
{
	const int indent = 32;

	if ((int)strlen(left) > indent - 4)
		fprintf(f, "  %s\n%*s", left, indent, "");
	else
		fprintf(f, "  %-*s  ", indent - 4, left);
	wrap(f, help, indent);
}

/* An option's help for command cmd: the table's text, and where the
 * default differs by command, the command's own, read from its defaults
 * (np_opts_defaults) rather than written twice. */
static const char *option_help(const struct np_option *o, const struct np_opts *d, char *buf,
			       size_t n)
{
	if (!strcmp(o->name, "budget")) {
		snprintf(buf, n, "%s (default %g)", o->help, d->budget);
		return buf;
	}
	if (!strcmp(o->name, "coll")) {
		size_t k = (size_t)snprintf(buf, n, "%s (default ", o->help);
		const char *sep = "";
		for (int c = 0; c < NP_COLL_COUNT && k < n; c++)
			if (d->colls[c]) {
				k += (size_t)snprintf(buf + k, n - k, "%s%s", sep,
						      np_colls[c].name);
				sep = ",";
			}
		if (k < n)
			snprintf(buf + k, n - k, ")");
		return buf;
	}
	return o->help;
}

void np_opts_usage(FILE *f, const struct np_cmd *cmd)
{
	struct np_opts d;
	char text[1024], page[64];
	size_t k;

	fprintf(f, "usage: %s\n", cmd->synopsis);
	if (cmd == np_commands[0]) { /* the default command lists them all */
		for (size_t i = 1; i < np_commands_count; i++)
			fprintf(f, "       %s\n", np_commands[i]->synopsis);
		fprintf(f, "       nccl-probe help [COMMAND] | version\n");
	}
	fprintf(f, "\n%s\noptions:\n", cmd->about);
	np_opts_defaults(&d, cmd);
	for (size_t i = 0; i < cmd->noptions; i++) {
		const struct np_option *o = &cmd->options[i];
		char left[64], help[256], formats[64];
		const char *arg = o->arg;
		/* only the formats this command writes */
		if (o->fn == np_opt_format)
			arg = np_format_names(cmd->formats, "|", "|", formats, sizeof(formats));
		if (o->kind == NP_OPT_OPTARG)
			snprintf(left, sizeof(left), "-%c, --%s[=%s]", o->short_name, o->name, arg);
		else if (o->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name,
				 arg ? " " : "", arg ? arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name, arg ? " " : "",
				 arg ? arg : "");
		usage_line(f, left, option_help(o, &d, help, sizeof(help)));
		/* the names come from the tables (common/coll.c) */
		if (!strcmp(o->name, "coll") || !strcmp(o->name, "dtype")) {
			char names[256];
			usage_line(f, "",
				   np_names_join(o->name[0] == 'c' ? 0 : 1, " ", names,
						 sizeof(names)));
		}
	}
	k = (size_t)snprintf(text, sizeof(text), "exit status:");
	for (const struct np_exit_code *e = cmd->exits; e && e->meaning && k < sizeof(text); e++)
		k += (size_t)snprintf(text + k, sizeof(text) - k, " %d %s%s", e->code, e->meaning,
				      e[1].meaning ? "," : ".");
	if (k < sizeof(text))
		snprintf(text + k, sizeof(text) - k, " See %s(1).",
			 np_cmd_page(cmd, page, sizeof(page)));
	fprintf(f, "\n");
	wrap(f, text, 0);
}
