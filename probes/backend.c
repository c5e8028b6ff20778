/* SPDX-License-Identifier: MIT */
/* The backend registry, the choice of --backend and the buffer rotation. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "nccl_log.h"

const struct np_backend_def np_backend_def_mpi = {
	.name = "mpi",
	.ops = &np_backend_mpi,
	.settings_prefix = "OMPI_MCA_",
	.settings_of = "an Open MPI",
	.settings_hint = "try OMPI_MCA_* settings with --backend mpi",
};

const struct np_backend_def np_backend_def_nccl = {
	.name = "nccl",
#ifdef HAVE_NCCL
	.ops = &np_backend_nccl,
#endif
	.not_built =
		"this nccl-probe was built without NCCL; rebuild with --with-cuda and --with-nccl, or use --backend mpi",
	.settings_prefix = "NCCL_",
	.settings_of = "an NCCL",
	.settings_hint = "run tune on GPUs (--backend nccl)",
	.auto_chosen = "a GPU is visible and NCCL is built in",
	.auto_no_device = "no GPU visible",
	.auto_not_built = "built without NCCL",
	.auto_instead = ": host memory through MPI, not NCCL",
	/* set whether NCCL is built in or not: a library loaded later finds it */
	.vnode_setup = np_nccl_hostid_setup,
};

const struct np_backend_def *const np_backends[] = { &np_backend_def_mpi, &np_backend_def_nccl,
						     NULL };

const struct np_backend_def *np_backend_find(const char *name)
{
	for (int i = 0; np_backends[i]; i++)
		if (!strcmp(np_backends[i]->name, name))
			return np_backends[i];
	return NULL;
}

const struct np_backend_def *np_backend_for_setting(const char *name)
{
	for (int i = 0; np_backends[i]; i++) {
		size_t n = strlen(np_backends[i]->settings_prefix);
		if (!strncmp(name, np_backends[i]->settings_prefix, n) && name[n])
			return np_backends[i];
	}
	return NULL;
}

const char *np_backend_names(void)
{
	static char names[128];

	if (!names[0])
		for (int i = 0; np_backends[i]; i++) {
			size_t n = strlen(names);
			snprintf(names + n, sizeof(names) - n, "%s%s",
				 i == 0               ? ""
				 : np_backends[i + 1] ? ", "
						      : " or ",
				 np_backends[i]->name);
		}
	return names;
}

bool np_backend_device_visible(void)
{
	for (int i = 0; np_backends[i]; i++) {
		const struct np_backend_ops *ops = np_backends[i]->ops;
		if (ops && ops->device_visible && ops->device_visible())
			return true;
	}
	return false;
}

int np_backend_vnode_setup(const char *host, int node)
{
	for (int i = 0; np_backends[i]; i++)
		if (np_backends[i]->vnode_setup && np_backends[i]->vnode_setup(host, node) != 0)
			return -1;
	return 0;
}

/* auto: the first row with a device where every rank sees one, else the
 * first row (host memory), saying why the device rows were not taken */
static void select_auto(bool devices_everywhere, const struct np_backend_ops **ops, char *why,
			size_t whylen)
{
	*ops = np_backends[0]->ops;
	snprintf(why, whylen, "--backend auto");
	for (int i = 1; np_backends[i]; i++) {
		const struct np_backend_def *d = np_backends[i];
		if (!d->auto_chosen)
			continue;
		if (d->ops && devices_everywhere) {
			*ops = d->ops;
			snprintf(why, whylen, "%s", d->auto_chosen);
			return;
		}
		if (d->ops)
			snprintf(why, whylen, "%s%s%s", d->auto_no_device,
				 d->ops->device_visible && d->ops->device_visible()
					 ? " on some ranks"
					 : "",
				 d->auto_instead);
		else
			snprintf(why, whylen, "%s%s", d->auto_not_built, d->auto_instead);
	}
}

enum np_status np_backend_select(const char *choice, bool devices_everywhere,
				 const struct np_backend_ops **ops, char *why, size_t whylen,
				 struct np_err *err)
{
	const struct np_backend_def *d;

	if (!strcmp(choice, "auto")) {
		select_auto(devices_everywhere, ops, why, whylen);
		return NP_OK;
	}
	if (!(d = np_backend_find(choice)))
		return np_fail(err, NP_EUSAGE, "unknown backend");
	if (!d->ops)
		return np_fail(err, NP_ENOTSUP, "--backend %s: %s", d->name, d->not_built);
	*ops = d->ops;
	snprintf(why, whylen, "--backend %s", d->name);
	return NP_OK;
}

void np_rotation_of(const struct np_bench *b, size_t send_cap, size_t recv_cap,
		    struct np_rotation *r)
{
	size_t send = b->lay.send_bytes, recv = b->lay.recv_bytes;

	r->steps = 1;
	r->send_step = r->recv_step = 0;
	if (b->inplace || !send_cap) {
		/* one buffer: the collective's whole span moves */
		size_t span = send > recv ? send : recv;
		if (span && recv_cap >= span)
			r->steps = recv_cap / span;
		r->send_step = r->recv_step = span;
	} else {
		size_t s = send ? send_cap / send : SIZE_MAX, q = recv ? recv_cap / recv : SIZE_MAX;
		size_t k = s < q ? s : q;
		if (k != SIZE_MAX && k > 1)
			r->steps = k;
		r->send_step = send;
		r->recv_step = recv;
	}
	if (r->steps < 1)
		r->steps = 1;
}
