/* SPDX-License-Identifier: MIT */
/* The NCCL_* environment variables in effect, sorted by name, for the
 * report's header and JSON. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "nccl_env.h"

extern char **environ;

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct np_env_var *)a)->name, ((const struct np_env_var *)b)->name);
}

struct np_env_var *np_nccl_env(size_t *n)
{
	struct np_env_var *v;
	size_t cap = 0, k = 0;

	*n = 0;
	for (char **e = environ; e && *e; e++)
		cap++;
	if (!cap)
		return NULL;
	v = calloc(cap, sizeof(*v));
	if (!v)
		return NULL;
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq || strncmp(*e, "NCCL_", 5) || !strncmp(*e, "NCCL_PROBE_", 11))
			continue;
		v[k].name = strndup(*e, (size_t)(eq - *e));
		v[k].value = strdup(eq + 1);
		if (!v[k].name || !v[k].value) {
			np_nccl_env_free(v, k + 1);
			return NULL;
		}
		k++;
	}
	if (!k) {
		free(v);
		return NULL;
	}
	qsort(v, k, sizeof(*v), by_name);
	*n = k;
	return v;
}

void np_nccl_env_free(struct np_env_var *vars, size_t n)
{
	for (size_t i = 0; vars && i < n; i++) {
		free(vars[i].name);
		free(vars[i].value);
	}
	free(vars);
}
