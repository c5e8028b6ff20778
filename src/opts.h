/* SPDX-License-Identifier: MIT */
/* Command-line options: one sorted table (src/opts.c) drives parsing,
 * --help and the man-page test. Parsing is pure (no MPI, no I/O besides
 * checking that an --output directory is writable) so every rank parses
 * the same argv to the same struct. */
#ifndef NP_OPTS_H
#define NP_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../probes/coll.h"
#include "status.h"

enum np_format { NP_FMT_TABLE, NP_FMT_JSON, NP_FMT_CSV };
enum np_backend_choice { NP_BACKEND_AUTO, NP_BACKEND_MPI, NP_BACKEND_NCCL };
enum np_step_kind { NP_STEP_FACTOR, NP_STEP_ADD };

const char *np_format_str(enum np_format f);
const char *np_backend_choice_str(enum np_backend_choice b);

/* Commands an option belongs to (bit mask). */
#define NP_CMD_SWEEP 0x1u
#define NP_CMD_TOPO 0x2u
#define NP_CMD_ALL (NP_CMD_SWEEP | NP_CMD_TOPO)

struct np_opts {
	unsigned cmd;              /* NP_CMD_SWEEP or NP_CMD_TOPO */
	/* sweep */
	uint64_t min_bytes, max_bytes;
	enum np_step_kind step_kind;
	double step_factor;        /* > 1 with NP_STEP_FACTOR */
	uint64_t step_bytes;       /* > 0 with NP_STEP_ADD */
	bool colls[NP_COLL_COUNT]; /* which collectives, run in table order */
	enum np_dtype dtype;
	enum np_redop op;
	int root;
	int iters;                 /* 0 = auto */
	int samples;               /* samples with fixed --iters */
	int warmup;
	double budget;             /* seconds per size for --iters auto */
	bool check;
	bool inplace;
	bool graph;
	enum np_backend_choice backend;
	double timeout;            /* seconds, 0 = none */
	int ranks_per_node;        /* 0 = real nodes; else virtual nodes */
	double min_busbw;          /* GB/s verdict threshold, 0 = none */
	double min_eff;            /* fraction, 0 = none */
	const char *gpu_map;       /* --gpu-map LIST or NULL */
	const char *sweep_arg;     /* the last --sweep value, for messages */
	/* both */
	enum np_format format;
	const char *output;        /* NULL = stdout */
	bool quiet;
	/* topo */
	const char *input;         /* --input FILE */
	const char *export_file;   /* --export FILE */
	bool check_gdr;
	bool recommend;
};

/* One row of the option table. */
struct np_option {
	const char *name;    /* long name without "--" */
	char short_name;     /* 0 if none */
	const char *arg;     /* metavariable, NULL for a flag */
	unsigned cmds;       /* NP_CMD_* mask */
	const char *help;    /* one line */
};

extern const struct np_option np_options[];
extern const size_t np_options_count;

/* Parse argv[first..argc) for command cmd into o. Returns NP_OK, or
 * NP_EUSAGE with err->msg naming the bad value. `--help` and `--version`
 * are reported through *help / *version and stop parsing. */
enum np_status np_opts_parse(struct np_opts *o, unsigned cmd, int argc, char **argv,
			     int first, bool *help, bool *version, struct np_err *err);

/* Checks that need the world size (root < n, ranks per node divide n). */
enum np_status np_opts_check_world(const struct np_opts *o, int nranks, struct np_err *err);

/* Parse a size: bytes or K/M/G/T (powers of 1024, optional trailing B or iB). */
enum np_status np_parse_size(const char *s, uint64_t *out, struct np_err *err);
/* Parse "MIN:MAX[:xFACTOR|:+STEP]" or "SIZE" into o. */
enum np_status np_parse_sweep(const char *s, struct np_opts *o, struct np_err *err);

#define NP_MAX_SIZES 10000

/* The sweep's sizes in order into out[0..cap); returns how many there are
 * (at most NP_MAX_SIZES + 1, which parsing rejects). out may be NULL. */
size_t np_opts_sizes(const struct np_opts *o, uint64_t *out, size_t cap);

void np_opts_usage(FILE *f, unsigned cmd);

#endif
