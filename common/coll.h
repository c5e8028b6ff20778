/* SPDX-License-Identifier: MIT */
/* The collectives, data types and reduction operations, one table each.
 * One collective is one row of np_colls[]: its name, byte accounting,
 * busbw factor, limit formula, expected check result and in-place layout.
 * Adding a collective is adding a row here and one issue function to each
 * backend's own table, indexed by enum np_coll_id (probes/backend.h).
 * Byte accounting and busbw factors follow nccl-tests (DESIGN.md):
 * size = max(send, recv) bytes of one rank's buffer, count = the per-rank
 * element count passed to the library (per peer for alltoall, gather and
 * scatter). This header is shared vocabulary: every layer may include it;
 * it includes nothing of src/, probes/ or topo/. */
#ifndef NP_COLL_H
#define NP_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum np_coll_id {
	NP_COLL_ALLREDUCE,
	NP_COLL_ALLGATHER,
	NP_COLL_REDUCESCATTER,
	NP_COLL_ALLTOALL,
	NP_COLL_BROADCAST,
	NP_COLL_REDUCE,
	NP_COLL_GATHER,
	NP_COLL_SCATTER,
	NP_COLL_SENDRECV,
	NP_COLL_COUNT
};

/* Flags of a collective. */
#define NP_COLL_F_REDUCE 0x1u  /* takes a reduction operation */
#define NP_COLL_F_ROOTED 0x2u  /* takes a root */
#define NP_COLL_F_INPLACE 0x4u /* has an in-place form */
#define NP_COLL_F_DEFAULT 0x8u /* runs without --coll */

/* Which limit formula of DESIGN.md "Limits" bounds a collective. */
enum np_limit_kind {
	NP_LIMIT_SHARED,   /* N = 1: B_gpu; else min(B_gpu, B_node) */
	NP_LIMIT_ALLTOALL, /* every rank to every rank: the node's share */
	NP_LIMIT_P2P,      /* ring of neighbours: B_gpu, or the nearest NIC across nodes */
};

/* Where element k of rank r's result comes from (probes/pattern.h reads
 * this; the NCCL check kernel gets it by value). */
enum np_src {
	NP_SRC_REDUCE, /* the reduction over ranks of index (rank_offset ? r*count : 0) + k */
	NP_SRC_BLOCK,  /* rank k / count's element k % count (+ r*count with rank_offset) */
	NP_SRC_ROOT,   /* the root's element k (+ r*count with rank_offset) */
	NP_SRC_PREV,   /* rank r-1's element k (ring) */
};

struct np_coll_expect {
	unsigned char src;         /* enum np_src */
	unsigned char rank_offset; /* the source index is shifted by r*count */
	unsigned char root_only;   /* only the root's result is defined */
};

/* Where an in-place collective reads its input inside the recv buffer, or
 * writes its result inside the send buffer (NCCL's in-place layouts). */
enum np_inplace_at {
	NP_INPLACE_SAME,         /* send == recv */
	NP_INPLACE_SEND_AT_RANK, /* send = recv + rank*count (allgather, gather) */
	NP_INPLACE_RECV_AT_RANK, /* recv = send + rank*count (reducescatter, scatter) */
};

struct np_coll {
	const char *name;
	const char *program; /* nccl-tests' binary of it: all_reduce_perf */
	enum np_coll_id id;
	unsigned flags;
	bool send_n; /* send buffer holds count*n elements (else count) */
	bool recv_n; /* recv buffer holds count*n elements (else count) */
	double (*busbw_factor)(int nranks);
	enum np_limit_kind limit;
	struct np_coll_expect expect;
	enum np_inplace_at inplace_at;
};

extern const struct np_coll np_colls[NP_COLL_COUNT];
const struct np_coll *np_coll_find(const char *name); /* NULL if unknown */
/* The collective whose nccl-tests binary is named PATH's last component
 * (/usr/bin/all_reduce_perf: allreduce); NULL for any other name. */
const struct np_coll *np_coll_by_program(const char *path);
const char *np_coll_str(enum np_coll_id id);

enum np_dtype {
	NP_INT8,
	NP_UINT8,
	NP_INT32,
	NP_UINT32,
	NP_INT64,
	NP_UINT64,
	NP_HALF,
	NP_FLOAT,
	NP_DOUBLE,
	NP_BFLOAT16,
	NP_FP8E4M3,
	NP_FP8E5M2,
	NP_DTYPE_COUNT
};

struct np_dtype_info {
	const char *name;
	enum np_dtype id;
	size_t size; /* bytes per element */
	bool is_float;
	bool is_signed;
};

extern const struct np_dtype_info np_dtypes[NP_DTYPE_COUNT];
const struct np_dtype_info *np_dtype_find(const char *name);
const char *np_dtype_str(enum np_dtype id);

enum np_redop { NP_OP_SUM, NP_OP_PROD, NP_OP_MAX, NP_OP_MIN, NP_OP_AVG, NP_OP_COUNT };

const char *np_redop_str(enum np_redop op);
int np_redop_find(const char *name); /* -1 if unknown */

/* The names of a table joined with sep into buf ("allreduce, allgather, ..."),
 * for --help and messages; what: 0 collectives, 1 data types, 2 operations. */
const char *np_names_join(int what, const char *sep, char *buf, size_t len);

/* One rank's buffers for a collective of `size` bytes on n ranks. */
struct np_layout {
	size_t count;      /* elements passed to the library (per peer for alltoall) */
	size_t send_bytes; /* bytes of the send buffer */
	size_t recv_bytes; /* bytes of the recv buffer */
	size_t size;       /* max(send, recv): the "size" column, after rounding */
};

/* Lay out a collective: count = floor(size / (elt * (n or 1))); count 0
 * means the size rounds to no element (the caller skips it). */
void np_coll_layout(const struct np_coll *c, size_t size, size_t elt, int nranks,
		    struct np_layout *out);

/* algbw (GB/s, 1e9 bytes) of `size` bytes in `seconds`, and busbw. */
double np_algbw(size_t size, double seconds);
double np_busbw(const struct np_coll *c, int nranks, double algbw);

#endif
