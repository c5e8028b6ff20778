/* SPDX-License-Identifier: MIT */
/* How the NCCL backend issues each collective: NCCL's own call, where
 * the runtime NCCL has one (NCCL 2.28 added ncclAlltoAll, ncclGather and
 * ncclScatter), else grouped ncclSend/ncclRecv. A new collective adds its
 * function here and its row to nccl_be_issue[]. */
#include "config.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include "backend_nccl.h"

#define NT(c) (*(const ncclDataType_t *)(c)->lib_dtype)
#define NO(c) (*(const ncclRedOp_t *)(c)->lib_op)
#define NC(c) ((ncclComm_t)(c)->comm)
#define NS(c) ((cudaStream_t)(c)->stream)
#define NATIVE(c) ((const struct nccl_native *)(c)->caps)

static size_t elt_of(const struct np_call *c) { return np_dtypes[c->dtype].size; }

static int group_end(ncclResult_t res)
{
	ncclResult_t end = ncclGroupEnd();

	return res != ncclSuccess && res != ncclInProgress ? (int)res : (int)end;
}

static int nccl_issue_allreduce(const struct np_call *c)
{
	return ncclAllReduce(c->send, c->recv, c->count, NT(c), NO(c), NC(c), NS(c));
}

static int nccl_issue_allgather(const struct np_call *c)
{
	return ncclAllGather(c->send, c->recv, c->count, NT(c), NC(c), NS(c));
}

static int nccl_issue_reducescatter(const struct np_call *c)
{
	return ncclReduceScatter(c->send, c->recv, c->count, NT(c), NO(c), NC(c), NS(c));
}

static int nccl_issue_broadcast(const struct np_call *c)
{
	return ncclBroadcast(c->send, c->recv, c->count, NT(c), c->root, NC(c), NS(c));
}

static int nccl_issue_reduce(const struct np_call *c)
{
	return ncclReduce(c->send, c->recv, c->count, NT(c), NO(c), c->root, NC(c), NS(c));
}

static int nccl_issue_alltoall(const struct np_call *c)
{
	size_t chunk = c->count * elt_of(c);
	ncclResult_t res;

	if (NATIVE(c)->alltoall)
		return NATIVE(c)->alltoall(c->send, c->recv, c->count, NT(c), NC(c), NS(c));
	res = ncclGroupStart();
	for (int peer = 0; peer < c->nranks && res == ncclSuccess; peer++) {
		res = ncclSend((const char *)c->send + (size_t)peer * chunk, c->count, NT(c), peer,
			       NC(c), NS(c));
		if (res == ncclSuccess)
			res = ncclRecv((char *)c->recv + (size_t)peer * chunk, c->count, NT(c),
				       peer, NC(c), NS(c));
	}
	return group_end(res);
}

static int nccl_issue_gather(const struct np_call *c)
{
	size_t chunk = c->count * elt_of(c);
	ncclResult_t res;

	if (NATIVE(c)->gather)
		return NATIVE(c)->gather(c->send, c->recv, c->count, NT(c), c->root, NC(c), NS(c));
	res = ncclGroupStart();
	if (c->rank == c->root)
		for (int peer = 0; peer < c->nranks && res == ncclSuccess; peer++) {
			char *dst = (char *)c->recv + (size_t)peer * chunk;
			if (peer == c->rank) {
				if (dst != c->send &&
				    cudaMemcpyAsync(dst, c->send, chunk, cudaMemcpyDeviceToDevice,
						    NS(c)) != cudaSuccess)
					res = ncclUnhandledCudaError;
				continue;
			}
			res = ncclRecv(dst, c->count, NT(c), peer, NC(c), NS(c));
		}
	else
		res = ncclSend(c->send, c->count, NT(c), c->root, NC(c), NS(c));
	return group_end(res);
}

static int nccl_issue_scatter(const struct np_call *c)
{
	size_t chunk = c->count * elt_of(c);
	ncclResult_t res;

	if (NATIVE(c)->scatter)
		return NATIVE(c)->scatter(c->send, c->recv, c->count, NT(c), c->root, NC(c), NS(c));
	res = ncclGroupStart();
	if (c->rank == c->root)
		for (int peer = 0; peer < c->nranks && res == ncclSuccess; peer++) {
			const char *src = (const char *)c->send + (size_t)peer * chunk;
			if (peer == c->rank) {
				if (src != c->recv &&
				    cudaMemcpyAsync(c->recv, src, chunk, cudaMemcpyDeviceToDevice,
						    NS(c)) != cudaSuccess)
					res = ncclUnhandledCudaError;
				continue;
			}
			res = ncclSend(src, c->count, NT(c), peer, NC(c), NS(c));
		}
	else
		res = ncclRecv(c->recv, c->count, NT(c), c->root, NC(c), NS(c));
	return group_end(res);
}

static int nccl_issue_sendrecv(const struct np_call *c)
{
	int n = c->nranks, r = c->rank;
	ncclResult_t res = ncclGroupStart();

	if (res == ncclSuccess)
		res = ncclSend(c->send, c->count, NT(c), (r + 1) % n, NC(c), NS(c));
	if (res == ncclSuccess)
		res = ncclRecv(c->recv, c->count, NT(c), (r - 1 + n) % n, NC(c), NS(c));
	return group_end(res);
}

/* indexed by enum np_coll_id: every collective of common/coll.c; the
 * native call where the runtime NCCL has one (caps says), else grouped
 * send/recv */
const np_issue_fn nccl_be_issue[NP_COLL_COUNT] = {
	[NP_COLL_ALLREDUCE] = nccl_issue_allreduce,
	[NP_COLL_ALLGATHER] = nccl_issue_allgather,
	[NP_COLL_REDUCESCATTER] = nccl_issue_reducescatter,
	[NP_COLL_ALLTOALL] = nccl_issue_alltoall,
	[NP_COLL_BROADCAST] = nccl_issue_broadcast,
	[NP_COLL_REDUCE] = nccl_issue_reduce,
	[NP_COLL_GATHER] = nccl_issue_gather,
	[NP_COLL_SCATTER] = nccl_issue_scatter,
	[NP_COLL_SENDRECV] = nccl_issue_sendrecv,
};
