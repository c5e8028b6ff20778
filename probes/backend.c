/* SPDX-License-Identifier: MIT */
/* Backend choice (--backend auto|mpi|nccl) and the test-only switches. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

enum np_status np_backend_select(int choice, bool gpus_everywhere,
				 const struct np_backend_ops **ops, char *why, size_t whylen,
				 struct np_err *err)
{
	switch (choice) {
	case NP_BE_MPI:
		*ops = &np_backend_mpi;
		snprintf(why, whylen, "--backend mpi");
		return NP_OK;
	case NP_BE_NCCL:
#ifdef HAVE_NCCL
		*ops = &np_backend_nccl;
		snprintf(why, whylen, "--backend nccl");
		return NP_OK;
#else
		return np_fail(err, NP_ENOTSUP,
			       "--backend nccl: this nccl-probe was built without NCCL; rebuild with --with-cuda and --with-nccl, or use --backend mpi");
#endif
	case NP_BE_AUTO:
#ifdef HAVE_NCCL
		if (gpus_everywhere) {
			*ops = &np_backend_nccl;
			snprintf(why, whylen, "a GPU is visible and NCCL is built in");
			return NP_OK;
		}
		*ops = &np_backend_mpi;
		snprintf(why, whylen, "no GPU visible%s: host memory through MPI, not NCCL",
			 np_nccl_gpu_visible() ? " on some ranks" : "");
#else
		(void)gpus_everywhere;
		*ops = &np_backend_mpi;
		snprintf(why, whylen, "built without NCCL: host memory through MPI, not NCCL");
#endif
		return NP_OK;
	}
	return np_fail(err, NP_EUSAGE, "unknown backend");
}

static int env_rank(const char *s, char **end)
{
	long v;

	errno = 0;
	v = strtol(s, end, 10);
	if (*end == s || errno || v < 0 || v >= (1L << 20))
		return -1;
	return (int)v;
}

void np_test_faults_read(struct np_test_faults *f)
{
	const char *s;
	char *end;
	int a, b;

	f->corrupt_rank = f->misroute_from = f->misroute_to = -1;
	f->corrupt_all = false;
	if ((s = getenv("NCCL_PROBE_TEST_CORRUPT")) && !strcmp(s, "all")) {
		f->corrupt_all = true;
	} else if (s && *s) {
		a = env_rank(s, &end);
		if (a >= 0 && !*end)
			f->corrupt_rank = a;
	}
	if ((s = getenv("NCCL_PROBE_TEST_MISROUTE")) && *s) {
		a = env_rank(s, &end);
		if (a >= 0 && *end == ':') {
			b = env_rank(end + 1, &end);
			if (b >= 0 && !*end) {
				f->misroute_from = a;
				f->misroute_to = b;
			}
		}
	}
}

int np_test_faults_source(const struct np_test_faults *f, int rank)
{
	return rank == f->misroute_to && f->misroute_from >= 0 ? f->misroute_from : rank;
}

void np_rotation_of(const struct np_bench *b, size_t send_cap, size_t recv_cap, struct np_rotation *r)
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
