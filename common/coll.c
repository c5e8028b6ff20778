/* SPDX-License-Identifier: MIT */
/* The vocabulary of collectives, data types and reduction operations:
 * names, byte accounting and busbw factors, one table each. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "coll.h"

static double factor_allreduce(int n) { return n > 0 ? 2.0 * (n - 1) / n : 0.0; }
static double factor_gather(int n) { return n > 0 ? (double)(n - 1) / n : 0.0; }
static double factor_one(int n)
{
	(void)n;
	return 1.0;
}

/* a row per collective, its fields grouped by line */
/* clang-format off */
const struct np_coll np_colls[NP_COLL_COUNT] = {
	[NP_COLL_ALLREDUCE] = { .name = "allreduce", .id = NP_COLL_ALLREDUCE, .program = "all_reduce_perf",
		.flags = NP_COLL_F_REDUCE | NP_COLL_F_INPLACE | NP_COLL_F_DEFAULT,
		.busbw_factor = factor_allreduce, .limit = NP_LIMIT_SHARED,
		.expect = { .src = NP_SRC_REDUCE } },
	[NP_COLL_ALLGATHER] = { .name = "allgather", .id = NP_COLL_ALLGATHER, .program = "all_gather_perf",
		.flags = NP_COLL_F_INPLACE, .recv_n = true,
		.busbw_factor = factor_gather, .limit = NP_LIMIT_SHARED,
		.expect = { .src = NP_SRC_BLOCK }, .inplace_at = NP_INPLACE_SEND_AT_RANK },
	[NP_COLL_REDUCESCATTER] = { .name = "reducescatter", .id = NP_COLL_REDUCESCATTER, .program = "reduce_scatter_perf",
		.flags = NP_COLL_F_REDUCE | NP_COLL_F_INPLACE, .send_n = true,
		.busbw_factor = factor_gather, .limit = NP_LIMIT_SHARED,
		.expect = { .src = NP_SRC_REDUCE, .rank_offset = 1 },
		.inplace_at = NP_INPLACE_RECV_AT_RANK },
	[NP_COLL_ALLTOALL] = { .name = "alltoall", .id = NP_COLL_ALLTOALL, .program = "alltoall_perf",
		.flags = NP_COLL_F_DEFAULT, .send_n = true, .recv_n = true,
		.busbw_factor = factor_gather, .limit = NP_LIMIT_ALLTOALL,
		.expect = { .src = NP_SRC_BLOCK, .rank_offset = 1 } },
	[NP_COLL_BROADCAST] = { .name = "broadcast", .id = NP_COLL_BROADCAST, .program = "broadcast_perf",
		.flags = NP_COLL_F_ROOTED | NP_COLL_F_INPLACE,
		.busbw_factor = factor_one, .limit = NP_LIMIT_SHARED,
		.expect = { .src = NP_SRC_ROOT } },
	[NP_COLL_REDUCE] = { .name = "reduce", .id = NP_COLL_REDUCE, .program = "reduce_perf",
		.flags = NP_COLL_F_REDUCE | NP_COLL_F_ROOTED | NP_COLL_F_INPLACE,
		.busbw_factor = factor_one, .limit = NP_LIMIT_SHARED,
		.expect = { .src = NP_SRC_REDUCE, .root_only = 1 } },
	/* gather and scatter: size counts the root's count*n buffer, busbw
	 * (n-1)/n as nccl-tests; the root's link is the bottleneck */
	[NP_COLL_GATHER] = { .name = "gather", .id = NP_COLL_GATHER, .program = "gather_perf",
		.flags = NP_COLL_F_ROOTED | NP_COLL_F_INPLACE, .recv_n = true,
		.busbw_factor = factor_gather, .limit = NP_LIMIT_SHARED,
		.expect = { .src = NP_SRC_BLOCK, .root_only = 1 },
		.inplace_at = NP_INPLACE_SEND_AT_RANK },
	[NP_COLL_SCATTER] = { .name = "scatter", .id = NP_COLL_SCATTER, .program = "scatter_perf",
		.flags = NP_COLL_F_ROOTED | NP_COLL_F_INPLACE, .send_n = true,
		.busbw_factor = factor_gather, .limit = NP_LIMIT_SHARED,
		.expect = { .src = NP_SRC_ROOT, .rank_offset = 1 },
		.inplace_at = NP_INPLACE_RECV_AT_RANK },
	[NP_COLL_SENDRECV] = { .name = "sendrecv", .id = NP_COLL_SENDRECV, .program = "sendrecv_perf",
		.busbw_factor = factor_one, .limit = NP_LIMIT_P2P,
		.expect = { .src = NP_SRC_PREV } },
};
/* clang-format on */

const struct np_coll *np_coll_find(const char *name)
{
	for (int i = 0; i < NP_COLL_COUNT; i++)
		if (!strcmp(np_colls[i].name, name))
			return &np_colls[i];
	return NULL;
}

const struct np_coll *np_coll_by_program(const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;

	base = base ? base + 1 : path;
	for (int i = 0; base && i < NP_COLL_COUNT; i++)
		if (!strcmp(np_colls[i].program, base))
			return &np_colls[i];
	return NULL;
}

const char *np_coll_str(enum np_coll_id id)
{
	if ((unsigned)id < NP_COLL_COUNT)
		return np_colls[id].name;
	return "unknown";
}

const struct np_dtype_info np_dtypes[NP_DTYPE_COUNT] = {
	[NP_INT8] = { "int8", NP_INT8, 1, false, true },
	[NP_UINT8] = { "uint8", NP_UINT8, 1, false, false },
	[NP_INT32] = { "int32", NP_INT32, 4, false, true },
	[NP_UINT32] = { "uint32", NP_UINT32, 4, false, false },
	[NP_INT64] = { "int64", NP_INT64, 8, false, true },
	[NP_UINT64] = { "uint64", NP_UINT64, 8, false, false },
	[NP_HALF] = { "half", NP_HALF, 2, true, true },
	[NP_FLOAT] = { "float", NP_FLOAT, 4, true, true },
	[NP_DOUBLE] = { "double", NP_DOUBLE, 8, true, true },
	[NP_BFLOAT16] = { "bfloat16", NP_BFLOAT16, 2, true, true },
	[NP_FP8E4M3] = { "fp8e4m3", NP_FP8E4M3, 1, true, true },
	[NP_FP8E5M2] = { "fp8e5m2", NP_FP8E5M2, 1, true, true },
};

const struct np_dtype_info *np_dtype_find(const char *name)
{
	for (int i = 0; i < NP_DTYPE_COUNT; i++)
		if (!strcmp(np_dtypes[i].name, name))
			return &np_dtypes[i];
	return NULL;
}

const char *np_dtype_str(enum np_dtype id)
{
	if ((unsigned)id < NP_DTYPE_COUNT)
		return np_dtypes[id].name;
	return "unknown";
}

static const char *const redop_names[NP_OP_COUNT] = {
	[NP_OP_SUM] = "sum", [NP_OP_PROD] = "prod", [NP_OP_MAX] = "max",
	[NP_OP_MIN] = "min", [NP_OP_AVG] = "avg",
};

const char *np_redop_str(enum np_redop op)
{
	if ((unsigned)op < NP_OP_COUNT)
		return redop_names[op];
	return "unknown";
}

int np_redop_find(const char *name)
{
	for (int i = 0; i < NP_OP_COUNT; i++)
		if (!strcmp(redop_names[i], name))
			return i;
	return -1;
}

const char *np_names_join(int what, const char *sep, char *buf, size_t len)
{
	int n = what == 0 ? NP_COLL_COUNT : what == 1 ? NP_DTYPE_COUNT : NP_OP_COUNT;
	size_t used = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		const char *s = what == 0   ? np_colls[i].name
				: what == 1 ? np_dtypes[i].name
					    : redop_names[i];
		int w = snprintf(buf + used, len - used, "%s%s", i ? sep : "", s);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
	return buf;
}

void np_coll_layout(const struct np_coll *c, size_t size, size_t elt, int nranks,
		    struct np_layout *out)
{
	size_t n = nranks > 0 ? (size_t)nranks : 1;
	size_t per = elt * ((c->send_n || c->recv_n) ? n : 1);

	out->count = per ? size / per : 0;
	out->send_bytes = out->count * elt * (c->send_n ? n : 1);
	out->recv_bytes = out->count * elt * (c->recv_n ? n : 1);
	out->size = out->send_bytes > out->recv_bytes ? out->send_bytes : out->recv_bytes;
}

double np_algbw(size_t size, double seconds)
{
	return seconds > 0 ? (double)size / seconds / 1e9 : 0.0;
}

double np_busbw(const struct np_coll *c, int nranks, double algbw)
{
	return algbw * c->busbw_factor(nranks);
}
