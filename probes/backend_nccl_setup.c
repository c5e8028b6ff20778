/* SPDX-License-Identifier: MIT */
/* The NCCL backend's set-up: this rank's GPU (--gpu-map, CUDA_VISIBLE_DEVICES,
 * virtual nodes), the device's stream, events and flags, the guard against
 * two ranks on one GPU, and the communicator, each step agreed over the
 * world so that no rank enters NCCL's set-up alone. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include "../common/number.h"
#include "backend_nccl.h"
#include "nccl_kernels.h"

/* Collective over the world: every rank learns whether one failed, so that
 * no rank goes on into NCCL's setup alone. A failing rank keeps its message
 * (the caller prefixes rank and host); the others name the first failing
 * rank, whose message says why. */
static enum np_status agree(struct np_backend *be, enum np_status st)
{
	const struct np_backend_world *w = &be->world;
	int mine[2] = { st == NP_OK ? 1 : 0, w->rank }, first[2];
	int rc, fst = (int)st;

	rc = MPI_Allreduce(mine, first, 1, MPI_2INT, MPI_MINLOC, w->comm);
	if (rc != MPI_SUCCESS)
		return nccl_be_fail_mpi(be, rc, "MPI_Allreduce of the setup status");
	if (first[0] == 1)
		return NP_OK;
	rc = MPI_Bcast(&fst, 1, MPI_INT, first[1], w->comm);
	if (rc != MPI_SUCCESS)
		return nccl_be_fail_mpi(be, rc, "MPI_Bcast of the setup error");
	if (st != NP_OK)
		return st;
	np_fail(&be->err, (enum np_status)fst, "stopped because rank %d on '%s' failed", first[1],
		w->hosts ? w->hosts[first[1]] : "?");
	be->err.secondary = true;
	return be->err.status;
}

/* ---- device and communicator setup ------------------------------------- */

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return s ? h : 0;
}

/* Parse a GPU map "0,2,4" (from --gpu-map or NCCL_PROBE_GPU_MAP) and pick
 * entry lrank. */
static enum np_status map_device(struct np_backend *be, const char *map, const char *src, int lrank,
				 int ndev, int *dev)
{
	const char *s = map;
	int i = 0;

	for (;;) {
		const char *end = s;
		uint64_t v;

		if (!np_scan_u64(&end, 10, 0, 1023, &v) || (*end != ',' && *end != '\0') ||
		    (*end == ',' && end[1] == '\0'))
			return np_fail(&be->err, NP_EUSAGE,
				       "invalid %s '%s'; give comma-separated GPU indices, e.g. 0,1,2,3",
				       src, map);
		if (i == lrank) {
			if ((int)v >= ndev)
				return np_fail(&be->err, NP_ENODEV,
					       "%s '%s' gives local rank %d GPU %d, but %d %s visible; give indices below %d",
					       src, map, lrank, (int)v, ndev,
					       ndev == 1 ? "is" : "are", ndev);
			*dev = (int)v;
			return NP_OK;
		}
		i++;
		if (*end == '\0')
			break;
		s = end + 1;
	}
	return np_fail(&be->err, NP_EUSAGE,
		       "%s '%s' lists %d GPU%s, but this rank is local rank %d; give one GPU index per local rank",
		       src, map, i, i == 1 ? "" : "s", lrank);
}

/* Choose this rank's GPU: collective over the node. Without a map, the GPU is
 * the rank's index among the node's ranks that see the same devices (same
 * CUDA_VISIBLE_DEVICES), so per-rank visibility (one GPU each) works too. */
static enum np_status select_device(struct np_backend *be, int *dev)
{
	const struct np_backend_world *w = &be->world;
	const char *map = be->cfg.gpu_map, *src = "--gpu-map";
	int lrank = 0, lsize = 1, ndev = 0, idx = 0, rc;
	uint64_t mine[2], *all;
	cudaError_t ce;

	if (w->device >= 0) { /* a group of the job: the GPU chosen in the job */
		*dev = w->device;
		return NP_OK;
	}
	rc = MPI_Comm_rank(w->node_comm, &lrank);
	if (rc == MPI_SUCCESS)
		rc = MPI_Comm_size(w->node_comm, &lsize);
	if (rc != MPI_SUCCESS)
		return nccl_be_fail_mpi(be, rc, "MPI_Comm_rank of the node");
	/* on virtual nodes, ranks of different virtual nodes may share a GPU:
	 * the local rank within the virtual node picks it */
	mine[0] = fnv1a(getenv("CUDA_VISIBLE_DEVICES"));
	mine[1] = w->virtual_nodes ? (uint64_t)w->node : 0;
	all = calloc((size_t)lsize * 2, sizeof(*all));
	if (!all)
		return np_fail(&be->err, NP_ENOMEM, "out of memory");
	rc = MPI_Allgather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, w->node_comm);
	if (rc != MPI_SUCCESS) {
		free(all);
		return nccl_be_fail_mpi(be, rc, "MPI_Allgather of CUDA_VISIBLE_DEVICES");
	}
	for (int i = 0; i < lrank; i++)
		idx += all[2 * i] == mine[0] && all[2 * i + 1] == mine[1];
	free(all);
	if (w->virtual_nodes)
		lrank = w->local_rank;

	ce = cudaGetDeviceCount(&ndev);
	if (ce != cudaSuccess || ndev <= 0) {
		cudaGetLastError();
		return np_fail(&be->err, NP_ENODEV,
			       "no CUDA device visible (%s); check the driver with nvidia-smi and CUDA_VISIBLE_DEVICES, or use --backend mpi",
			       ce != cudaSuccess ? cudaGetErrorString(ce) : "0 devices");
	}
	if (!map || !*map) {
		map = getenv("NCCL_PROBE_GPU_MAP");
		src = "NCCL_PROBE_GPU_MAP";
	}
	if (map && *map)
		return map_device(be, map, src, lrank, ndev, dev);
	if (idx >= ndev)
		return np_fail(&be->err, NP_ENODEV,
			       "local rank %d has no GPU (%d visible); launch at most %d rank%s per %snode or set CUDA_VISIBLE_DEVICES",
			       lrank, ndev, ndev, ndev == 1 ? "" : "s",
			       w->virtual_nodes ? "virtual " : "");
	*dev = idx;
	return NP_OK;
}

static enum np_status open_device(struct np_backend *be)
{
	struct nccl_priv *p = be->priv;
	struct np_backend_info *in = &be->info;
	struct cudaDeviceProp prop;
	size_t freeb = 0, total = 0;
	cudaError_t ce;

	if ((ce = cudaSetDevice(p->dev)) != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaSetDevice");
	p->dev_set = true;
	in->device = p->dev;
	if ((ce = cudaGetDeviceProperties(&prop, p->dev)) != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaGetDeviceProperties");
	snprintf(in->device_name, sizeof(in->device_name), "%.*s", (int)sizeof(in->device_name) - 1,
		 prop.name);
	/* before any kernel: a GPU this build has no code for fails here,
	 * with its compute capability, not later in the fill kernel */
	ce = np_kern_image();
	if (ce == cudaErrorNoKernelImageForDevice || ce == cudaErrorInvalidDeviceFunction) {
		cudaGetLastError();
		p->failed = true;
		return np_fail(&be->err, NP_ECUDA,
			       "GPU %d ('%s') has compute capability %d.%d, which this build has no code for (built for %s); rebuild with ../configure --with-cuda-arch=%d%d",
			       p->dev, prop.name, prop.major, prop.minor, NP_CUDA_TARGETS,
			       prop.major, prop.minor);
	}
	if (ce != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaFuncGetAttributes of the check kernels");
	if ((ce = cudaDeviceGetPCIBusId(in->bus_id, (int)sizeof(in->bus_id), p->dev)) !=
	    cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaDeviceGetPCIBusId");
	if ((ce = cudaMemGetInfo(&freeb, &total)) != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaMemGetInfo");
	if ((ce = cudaStreamCreateWithFlags(&p->stream, cudaStreamNonBlocking)) != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaStreamCreate");
	if ((ce = cudaEventCreate(&p->ev_start)) != cudaSuccess ||
	    (ce = cudaEventCreate(&p->ev_stop)) != cudaSuccess ||
	    (ce = cudaEventCreateWithFlags(&p->ev_sync, cudaEventDisableTiming)) != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaEventCreate");
	if ((ce = cudaMalloc((void **)&p->d_wrong, sizeof(*p->d_wrong))) != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaMalloc of the check counter");
	if ((ce = cudaMallocHost((void **)&p->h_wrong, sizeof(*p->h_wrong))) != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaMallocHost of the check counter");
	if ((ce = cudaHostAlloc((void **)&p->h_release, sizeof(int), cudaHostAllocMapped)) !=
	    cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaHostAlloc of the stall flag");
	*(volatile int *)p->h_release = 0;
	if ((ce = cudaHostGetDevicePointer((void **)&p->d_release, p->h_release, 0)) != cudaSuccess)
		return nccl_be_fail_cuda(be, ce, "cudaHostGetDevicePointer of the stall flag");
	return NP_OK;
}

/* Two ranks of a node on one GPU (same PCI bus id): collective over the node. */
static enum np_status check_unique_gpu(struct np_backend *be)
{
	const struct np_backend_world *w = &be->world;
	struct {
		char bus[32];
		int rank, vnode;
	} mine, *all;
	int lsize = 1, rc;
	enum np_status st = NP_OK;

	memset(&mine, 0, sizeof(mine));
	snprintf(mine.bus, sizeof(mine.bus), "%s", be->info.bus_id);
	mine.rank = w->rank;
	mine.vnode = w->virtual_nodes ? w->node : 0;
	MPI_Comm_size(w->node_comm, &lsize);
	all = calloc((size_t)lsize, sizeof(*all));
	if (!all)
		return np_fail(&be->err, NP_ENOMEM, "out of memory");
	rc = MPI_Allgather(&mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine), MPI_BYTE,
			   w->node_comm);
	if (rc != MPI_SUCCESS) {
		free(all);
		return nccl_be_fail_mpi(be, rc, "MPI_Allgather of PCI bus ids");
	}
	for (int i = 0; i < lsize && st == NP_OK; i++) {
		if (all[i].rank == w->rank || all[i].vnode != mine.vnode ||
		    strcasecmp(all[i].bus, mine.bus))
			continue;
		st = np_fail(&be->err, NP_ENODEV,
			     "ranks %d and %d both use the GPU at %s (CUDA device %d)%s; give each rank its own GPU with --gpu-map, NCCL_PROBE_GPU_MAP or CUDA_VISIBLE_DEVICES",
			     all[i].rank < w->rank ? all[i].rank : w->rank,
			     all[i].rank < w->rank ? w->rank : all[i].rank, mine.bus,
			     be->info.device, w->virtual_nodes ? " in one virtual node" : "");
	}
	free(all);
	return st;
}

static enum np_status comm_init(struct np_backend *be)
{
	struct nccl_priv *p = be->priv;
	const struct np_backend_world *w = &be->world;
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	struct {
		int r;
		ncclUniqueId id;
	} uid;
	ncclResult_t r;
	enum np_status st;
	int rc;

	memset(&uid, 0, sizeof(uid));
	if (w->rank == 0)
		uid.r = (int)ncclGetUniqueId(&uid.id);
	rc = MPI_Bcast(&uid, (int)sizeof(uid), MPI_BYTE, 0, w->comm);
	if (rc != MPI_SUCCESS)
		return nccl_be_fail_mpi(be, rc, "MPI_Bcast of the NCCL unique id");
	if (uid.r != ncclSuccess) {
		if (w->rank == 0)
			return nccl_be_fail_nccl(be, (ncclResult_t)uid.r, "ncclGetUniqueId");
		p->failed = true;
		return np_fail(&be->err, NP_ENCCL, "rank 0 on '%s' failed: ncclGetUniqueId: %s",
			       w->hosts ? w->hosts[0] : "?",
			       ncclGetErrorString((ncclResult_t)uid.r));
	}
	cfg.blocking = 0; /* so that abort() can interrupt the setup */
	cfg.commName = "nccl-probe";
	pthread_mutex_lock(&p->lock);
	if (atomic_load(&p->aborted)) {
		pthread_mutex_unlock(&p->lock);
		return nccl_be_fail_aborted(be, "ncclCommInitRankConfig");
	}
	r = ncclCommInitRankConfig(&p->comm, w->size, uid.id, w->rank, &cfg);
	pthread_mutex_unlock(&p->lock);
	if (r != ncclSuccess && r != ncclInProgress)
		return nccl_be_fail_nccl(be, r, "ncclCommInitRankConfig");
	st = nccl_be_wait_ready(be, r, "ncclCommInitRankConfig");
	return st;
}

static enum np_status comm_check(struct np_backend *be)
{
	struct nccl_priv *p = be->priv;
	int count = 0, cudev = -1, urank = -1;
	ncclResult_t r;

	pthread_mutex_lock(&p->lock);
	r = ncclCommCount(p->comm, &count);
	if (r == ncclSuccess)
		r = ncclCommCuDevice(p->comm, &cudev);
	if (r == ncclSuccess)
		r = ncclCommUserRank(p->comm, &urank);
	pthread_mutex_unlock(&p->lock);
	if (r != ncclSuccess)
		return nccl_be_fail_nccl(be, r, "ncclCommCount");
	if (count != be->world.size || urank != be->world.rank || cudev != p->dev) {
		p->failed = true;
		return np_fail(&be->err, NP_ENCCL,
			       "GPU %d: the NCCL communicator has %d ranks (rank %d, device %d) but the MPI world has %d (rank %d); check that every rank runs the same nccl-probe and NCCL",
			       p->dev, count, urank, cudev, be->world.size, be->world.rank);
	}
	return NP_OK;
}

/* Device choice, guards and the communicator, each step agreed over the
 * world so that no rank enters NCCL's setup alone. */
enum np_status nccl_be_init_steps(struct np_backend *be)
{
	struct nccl_priv *p = be->priv;
	enum np_status st;

	if ((st = agree(be, select_device(be, &p->dev))) || (st = agree(be, open_device(be))) ||
	    (st = agree(be, check_unique_gpu(be))))
		return st;
	st = comm_init(be);
	if (st == NP_OK)
		st = comm_check(be);
	return agree(be, st);
}
