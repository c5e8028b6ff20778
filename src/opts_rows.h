/* SPDX-License-Identifier: MIT */
/* What a command's option table is made of: the OPT_* macros that bind an
 * option to the field of struct np_opts it sets (its type checked at
 * compile time) or to its handler (src/opts.c), and the rows that several
 * commands share word for word. A command's own wording is a row of its
 * own in its table (src/opts_NAME.c). */
#ifndef NP_OPTS_ROWS_H
#define NP_OPTS_ROWS_H

#include <limits.h>
#include <stddef.h>

#include "cmds.h"
#include "opts.h"

/* The field an option sets, checked to have type T at compile time. */
#define FIELD(f, T) \
	(offsetof(struct np_opts, f) + 0 * sizeof(_Generic(((struct np_opts *)0)->f, T: 1)))
/* One row each (clang-format reads a braced list as a block) */
/* clang-format off */
#define OPT_FLAG(l, s, f, h) { l, s, NULL, h, NP_OPT_FLAG, FIELD(f, bool), 0, 0, NULL }
#define OPT_UNSET(l, s, f, h) { l, s, NULL, h, NP_OPT_UNSET, FIELD(f, bool), 0, 0, NULL }
#define OPT_INT(l, s, a, f, lo, hi, h) { l, s, a, h, NP_OPT_INT, FIELD(f, int), lo, hi, NULL }
#define OPT_DOUBLE(l, s, a, f, lo, hi, h) { l, s, a, h, NP_OPT_DOUBLE, FIELD(f, double), lo, hi, NULL }
#define OPT_SIZE(l, s, a, f, h) { l, s, a, h, NP_OPT_SIZE, FIELD(f, uint64_t), 0, 0, NULL }
#define OPT_STRING(l, s, a, f, h) { l, s, a, h, NP_OPT_STRING, FIELD(f, const char *), 0, 0, NULL }
#define OPT_CALLBACK(l, s, a, fn, h) { l, s, a, h, NP_OPT_CALLBACK, 0, 0, 0, fn }
#define OPT_OPTARG(l, s, a, fn, h) { l, s, a, h, NP_OPT_OPTARG, 0, 0, 0, fn }
#define OPT_HELP(l, s, h) { l, s, NULL, h, NP_OPT_HELP, 0, 0, 0, NULL }
#define OPT_VERSION(l, s, h) { l, s, NULL, h, NP_OPT_VERSION, 0, 0, 0, NULL }
/* clang-format on */

/* A command's options, for its struct np_cmd: .options and .noptions */
#define NP_CMD_OPTIONS(a) .options = (a), .noptions = sizeof(a) / sizeof((a)[0])

/* The handlers (src/opts.c): each checks its value into o. */
#define NP_OPT_HANDLER(n) \
	enum np_status np_opt_##n(struct np_opts *o, const char *val, struct np_err *err);
NP_OPT_HANDLER(average)
NP_OPT_HANDLER(backend)
NP_OPT_HANDLER(blocking)
NP_OPT_HANDLER(check)
NP_OPT_HANDLER(coll)
NP_OPT_HANDLER(cudagraph)
NP_OPT_HANDLER(dtype)
NP_OPT_HANDLER(fail_on)
NP_OPT_HANDLER(format)
NP_OPT_HANDLER(gpu_map)
NP_OPT_HANDLER(iters)
NP_OPT_HANDLER(local_register)
NP_OPT_HANDLER(max_regression)
NP_OPT_HANDLER(maxbytes)
NP_OPT_HANDLER(min_busbw)
NP_OPT_HANDLER(min_busbw_one)
NP_OPT_HANDLER(min_change)
NP_OPT_HANDLER(min_eff)
NP_OPT_HANDLER(min_effect)
NP_OPT_HANDLER(minbytes)
NP_OPT_HANDLER(ngpus)
NP_OPT_HANDLER(nthreads)
NP_OPT_HANDLER(op)
NP_OPT_HANDLER(size)
NP_OPT_HANDLER(stepbytes)
NP_OPT_HANDLER(stepfactor)
NP_OPT_HANDLER(sweep)
NP_OPT_HANDLER(try)
#undef NP_OPT_HANDLER

/* Rows that several commands share, word for word */
#define NP_ROW_BACKEND                                              \
	OPT_CALLBACK("backend", 0, "auto|mpi|nccl", np_opt_backend, \
		     "backend: NCCL on GPUs or MPI on host memory (default auto)")
#define NP_ROW_DTYPE OPT_CALLBACK("dtype", 'd', "TYPE", np_opt_dtype, "data type (default float)")
#define NP_ROW_GPU_MAP                                     \
	OPT_CALLBACK("gpu-map", 0, "LIST", np_opt_gpu_map, \
		     "GPU index for each local rank, e.g. 0,2,4,6 (env NCCL_PROBE_GPU_MAP)")
#define NP_ROW_HELP OPT_HELP("help", 'h', "show this help and exit")
#define NP_ROW_OUTPUT                           \
	OPT_STRING("output", 0, "FILE", output, \
		   "write the report to FILE (written whole, then renamed; - is standard output)")
#define NP_ROW_QUIET OPT_FLAG("quiet", 'q', quiet, "no header and no progress")
#define NP_ROW_RANKS_PER_NODE                                         \
	OPT_INT("ranks-per-node", 0, "L", ranks_per_node, 1, 1 << 20, \
		"treat each L consecutive ranks as one node (virtual nodes)")
#define NP_ROW_TIMEOUT                                                \
	OPT_DOUBLE("timeout", 'T', "SEC", timeout, 0, NP_TIMEOUT_MAX, \
		   "abort (exit 4) when one step takes longer than SEC (at most 604800)")
#define NP_ROW_VERSION OPT_VERSION("version", 0, "show the version and exit")
#define NP_ROW_WARMUP \
	OPT_INT("warmup", 'w', "N", warmup, 0, 1000000, "warm-up iterations per size (default 5)")

/* The series of sizes and what each size runs: the sweep's and tune's */
#define NP_ROW_CHECK                                  \
	OPT_OPTARG("check", 'c', "0|1", np_opt_check, \
		   "verify results once per size, outside timing (default; -c 0|1, --check=0|1)")
#define NP_ROW_COLL \
	OPT_CALLBACK("coll", 0, "LIST", np_opt_coll, "comma-separated collectives, or all")
#define NP_ROW_GRAPH \
	OPT_FLAG("graph", 0, graph, "capture each timed batch in a CUDA graph (NCCL backend)")
#define NP_ROW_INPLACE \
	OPT_FLAG("inplace", 0, inplace, "run in place (recv buffer is the send buffer)")
#define NP_ROW_ITERS                                       \
	OPT_CALLBACK("iters", 'n', "N|auto", np_opt_iters, \
		     "iterations per sample; auto: sample until the median is known to 1% (default)")
#define NP_ROW_JSON                                \
	OPT_STRING("json", 'J', "FILE", json_file, \
		   "also write the JSON report to FILE (the table stays on standard output)")
#define NP_ROW_MAXBYTES                                        \
	OPT_CALLBACK("maxbytes", 'e', "SIZE", np_opt_maxbytes, \
		     "largest size (as in --sweep; not with --sweep)")
#define NP_ROW_MINBYTES                                        \
	OPT_CALLBACK("minbytes", 'b', "SIZE", np_opt_minbytes, \
		     "smallest size (as in --sweep; not with --sweep)")
#define NP_ROW_NO_CHECK OPT_UNSET("no-check", 0, check, "do not verify results")
#define NP_ROW_OP \
	OPT_CALLBACK("op", 'o', "OP", np_opt_op, "reduction: sum prod max min avg (default sum)")
#define NP_ROW_ROOT                                    \
	OPT_INT("root", 'r', "RANK", root, 0, INT_MAX, \
		"root rank of broadcast, reduce, gather and scatter (default 0)")
#define NP_ROW_SAMPLES                                  \
	OPT_INT("samples", 0, "N", samples, 1, 1000000, \
		"samples per size with a fixed --iters (default 5)")
#define NP_ROW_STEPBYTES                                         \
	OPT_CALLBACK("stepbytes", 'i', "SIZE", np_opt_stepbytes, \
		     "grow sizes by adding SIZE (not with -f)")
#define NP_ROW_STEPFACTOR                                       \
	OPT_CALLBACK("stepfactor", 'f', "F", np_opt_stepfactor, \
		     "grow sizes by multiplying by F (> 1; not with -i)")

#endif
