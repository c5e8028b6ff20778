/* SPDX-License-Identifier: MIT */
/* The command table, made from NP_COMMANDS (src/cmds.h), and what is read
 * from it: a command by name, the names for a message, and any command's
 * option (to tell an option of another command from an unknown one). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cmds.h"

#define NP_CMD_ROW(n) &np_cmd_##n,
const struct np_cmd *const np_commands[] = { NP_COMMANDS(NP_CMD_ROW) };
#undef NP_CMD_ROW
const size_t np_commands_count = sizeof(np_commands) / sizeof(np_commands[0]);

const struct np_cmd *np_cmd_find(const char *name)
{
	for (size_t i = 0; i < np_commands_count; i++)
		if (!strcmp(np_commands[i]->name, name))
			return np_commands[i];
	return NULL;
}

const char *np_cmd_page(const struct np_cmd *cmd, char *buf, size_t n)
{
	snprintf(buf, n, "nccl-probe%s%s", cmd == np_commands[0] ? "" : "-",
		 cmd == np_commands[0] ? "" : cmd->name);
	return buf;
}

const char *np_cmd_names(char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < np_commands_count && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s'%s'",
				      !i                          ? ""
				      : i + 1 < np_commands_count ? ", "
								  : " or ",
				      np_commands[i]->name);
	return buf;
}

const struct np_option *np_cmd_any_option(const char *a)
{
	for (size_t c = 0; c < np_commands_count; c++)
		for (size_t i = 0; i < np_commands[c]->noptions; i++) {
			const struct np_option *o = &np_commands[c]->options[i];
			size_t n = strlen(o->name);
			if (a[0] == '-' && a[1] == '-' && !strncmp(a + 2, o->name, n) &&
			    (a[2 + n] == '\0' || a[2 + n] == '='))
				return o;
			if (a[0] == '-' && a[1] && a[1] != '-' && a[1] == o->short_name)
				return o;
		}
	return NULL;
}
