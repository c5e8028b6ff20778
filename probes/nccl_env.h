/* SPDX-License-Identifier: MIT */
/* The NCCL_* environment variables in effect, for the report. Built with or
 * without NCCL: the variables matter to whichever NCCL a job uses. */
#ifndef NP_NCCL_ENV_H
#define NP_NCCL_ENV_H

#include <stddef.h>

struct np_env_var {
	char *name;  /* e.g. "NCCL_IB_HCA" */
	char *value; /* as set, possibly "" */
};

/* Every NCCL_* variable of the environment, sorted by name, except
 * nccl-probe's own NCCL_PROBE_*. NCCL also sets, without overriding, the
 * variables of /etc/nccl.conf and ~/.nccl.conf when it initializes, so a
 * list taken after the backend's init shows those too. Returns a malloc'd
 * array of *n entries (NULL and *n = 0 when there is none or memory ran
 * out); free it with np_nccl_env_free(). */
struct np_env_var *np_nccl_env(size_t *n);
void np_nccl_env_free(struct np_env_var *vars, size_t n);

#endif
