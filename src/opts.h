/* SPDX-License-Identifier: MIT */
/* Command-line options: each command's sorted table of its options (its
 * struct np_cmd, src/cmds.h) drives parsing (src/opts_parse.c) and --help
 * (src/opts_help.c); the handlers they share are in src/opts.c.
 * Parsing is pure (no MPI, no I/O besides checking that an --output
 * directory is writable) so every rank parses the same argv to the same
 * struct. */
#ifndef NP_OPTS_H
#define NP_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/coll.h"
#include "../common/status.h"

/* The report formats, one row each: the member, its --format name and
 * the sweep's writer of its whole report (declared from this list in
 * src/report.h; the table's writes what follows the rows it streamed).
 * A new format is a row here and its writer's file: the sweep writes
 * every format; the other commands name theirs (struct np_cmd, src/cmds.h). */
#define NP_FORMATS(X)                                    \
	X(NP_FMT_TABLE, "table", np_report_table_footer) \
	X(NP_FMT_JSON, "json", np_report_json)           \
	X(NP_FMT_CSV, "csv", np_report_csv)              \
	X(NP_FMT_NCCLTESTS, "nccl-tests", np_report_nccltests)
#define NP_FMT_MEMBER(m, name, writer) m,
#define NP_FMT_ONE(m, name, writer) +1
enum np_format { NP_FORMATS(NP_FMT_MEMBER) };
enum { NP_FMT_COUNT = 0 NP_FORMATS(NP_FMT_ONE) }; /* not a member: switches name every format */
#undef NP_FMT_MEMBER
#undef NP_FMT_ONE
#define NP_FMT_BIT(f) (1u << (f))
#define NP_FMT_ALL ((1u << NP_FMT_COUNT) - 1)
enum np_step_kind { NP_STEP_FACTOR, NP_STEP_ADD };

const char *np_format_str(enum np_format f);
/* The names of the formats set in formats (NP_FMT_BIT), e.g. "table,
 * json or csv" with sep ", " and last " or ", into buf[n]. */
const char *np_format_names(unsigned formats, const char *sep, const char *last, char *buf,
			    size_t n);

struct np_cmd; /* src/cmds.h */

#define NP_MAX_TRIES 16 /* --try options of one tune */

struct np_opts {
	const struct np_cmd *cmd; /* the command whose options these are */
	/* sweep */
	uint64_t min_bytes, max_bytes;
	bool max_default; /* no largest size given: the sweep picks it */
	enum np_step_kind step_kind;
	double step_factor;        /* > 1 with NP_STEP_FACTOR */
	uint64_t step_bytes;       /* > 0 with NP_STEP_ADD */
	bool colls[NP_COLL_COUNT]; /* which collectives, run in table order */
	enum np_dtype dtype;
	enum np_redop op;
	int root;
	int iters;   /* 0 = auto */
	int samples; /* samples with fixed --iters */
	int warmup;
	double budget; /* seconds per size for --iters auto */
	bool check;
	bool inplace;
	bool graph;
	const char *backend; /* "auto" or a name of the registry (probes/backend.h) */
	double timeout;      /* seconds, 0 = none */
	int ranks_per_node;  /* 0 = real nodes; else virtual nodes */
	double min_busbw;    /* GB/s verdict threshold, 0 = none */
	double min_eff;      /* fraction, 0 = none */
	uint64_t judge_from; /* --judge-from SIZE, 0 = the largest quarter */
	/* per collective (--min-busbw allreduce=150,alltoall=90): GB/s and
	 * fractions, 0 = none; one value sets every collective's, and
	 * min_busbw / min_eff above */
	double coll_min_busbw[NP_COLL_COUNT];
	double coll_min_eff[NP_COLL_COUNT];
	/* the option that named a collective in COLL=VALUE (a threshold for a
	 * collective not run is a usage error), NULL where none did */
	const char *coll_named_by[NP_COLL_COUNT];
	/* called as an nccl-tests binary (all_reduce_perf, a link to
	 * nccl-probe): its collective, the only one the run measures; NULL
	 * otherwise */
	const struct np_coll *program_coll;
	/* NCCL_TESTS_MIN_BW in GB/s, -1 unset: --format nccl-tests fails a
	 * collective whose Avg bus bandwidth is below 0.9 x it, as nccl-tests */
	double nt_min_bw;
	const char *gpu_map;   /* --gpu-map LIST or NULL */
	const char *sweep_arg; /* the last --sweep value, for messages */
	/* the nccl-tests spelling of the sizes, as given (NULL: not given):
	 * mixed with --sweep, or -f with -i, they are refused, not last-wins */
	const char *minbytes_arg, *maxbytes_arg, *stepfactor_arg, *stepbytes_arg;
	/* both */
	enum np_format format;
	const char *output;       /* NULL = stdout */
	const char *json_file;    /* -J/--json FILE: JSON besides the report, or NULL */
	const char *csv_file;     /* --csv FILE: CSV besides the report, or NULL */
	const char *metrics_file; /* --metrics FILE: Prometheus text besides the report, or NULL */
	bool quiet;
	bool wide; /* --wide: every column in the table */
	/* isolate */
	uint64_t size;        /* --size, 0 = the default */
	double min_effect;    /* fraction below the fleet worth naming */
	int seed;             /* --seed: the random order of partners; -1 = drawn */
	const char *baseline; /* --baseline FILE or NULL */
	const char *topology; /* isolate --topology FILE (Slurm topology.conf) or NULL */
	/* topo */
	const char *input;       /* --input FILE */
	const char *host_hash;   /* --host-hash HASH: the tray of a multi-node NVLink dump */
	const char *export_file; /* --export FILE */
	bool check_gdr;
	bool recommend;
	int fail_on;       /* --fail-on: the least severity (NP_SEV_*) that
			    * exits 1, -1 never; default NP_SEV_ERROR (2) */
	double under_load; /* --under-load seconds, 0 = idle sampling */
	double window;     /* --window: idle sampling seconds, 0 = the default (1 s) */
	/* compare */
	const char *files[2];  /* the two JSON reports, A and B */
	double max_regression; /* fraction: fail only for slowdowns beyond it */
	double min_change;     /* fraction: compare calls smaller changes none */
	/* tune */
	const char *tries[NP_MAX_TRIES]; /* --try VAR=V1,V2,... as given */
	int ntries;
	const char *try_file; /* --try-file FILE: candidates, one per line, or NULL */
};

/* How an option is handled: the field it sets, or its handler. */
enum np_opt_kind {
	NP_OPT_NONE = 0, /* a row without handling: never valid */
	NP_OPT_FLAG,     /* bool field = true */
	NP_OPT_UNSET,    /* bool field = false (--no-check) */
	NP_OPT_INT,      /* int field, [lo, hi] */
	NP_OPT_DOUBLE,   /* double field, [lo, hi] */
	NP_OPT_SIZE,     /* uint64_t field: a size (np_parse_size) */
	NP_OPT_STRING,   /* const char * field: the argument itself */
	NP_OPT_CALLBACK, /* fn(o, value) */
	NP_OPT_OPTARG,   /* fn(o, value or NULL): --name[=V], -s V */
	NP_OPT_HELP,
	NP_OPT_VERSION,
};

/* One row of a command's option table (built with the OPT_* macros of
 * src/opts_rows.h, which bind each option to a field of struct np_opts,
 * its type checked at compile time, or to a handler). */
struct np_option {
	const char *name; /* long name without "--" */
	char short_name;  /* 0 if none */
	const char *arg;  /* metavariable, NULL for a flag */
	const char *help; /* one line */
	enum np_opt_kind kind;
	size_t off;    /* offsetof(struct np_opts, field) */
	double lo, hi; /* NP_OPT_INT, NP_OPT_DOUBLE */
	enum np_status (*fn)(struct np_opts *o, const char *val, struct np_err *err);
};

/* Whether a row is handled: a field of the kind's type or a handler, a
 * value exactly when the kind takes one. */
bool np_option_valid(const struct np_option *opt);

/* Apply one option with its value (NULL for a flag, or an optional value
 * not given): through the field or the handler its row binds. */
enum np_status np_option_apply(struct np_opts *o, const struct np_option *opt, const char *val,
			       struct np_err *err);

/* The options' values before argv is read, for command cmd (some differ
 * by command: --budget, tune's --coll); --help prints those. */
void np_opts_defaults(struct np_opts *o, const struct np_cmd *cmd);

/* Parse argv[first..argc) for command cmd into o. Returns NP_OK, or
 * NP_EUSAGE with err->msg naming the bad value. `--help` and `--version`
 * are reported through *help / *version and stop parsing. Pure: it reads
 * no file, so every rank of a job gets the same result. */
enum np_status np_opts_parse(struct np_opts *o, const struct np_cmd *cmd, int argc, char **argv,
			     int first, bool *help, bool *version, struct np_err *err);

/* NCCL_TESTS_MIN_BW, which nccl-tests reads (GB/s; its atof read a word
 * as 0 and checked nothing), into o->nt_min_bw with --format nccl-tests:
 * a number, or a usage error. */
enum np_status np_opts_nt_min_bw(struct np_opts *o, struct np_err *err);

/* The files named: --output and --export in a writable directory,
 * --input and --baseline readable. */
enum np_status np_opts_check_files(const struct np_opts *o, struct np_err *err);

/* Checks that need the world size (root < n, ranks per node divide n). */
enum np_status np_opts_check_world(const struct np_opts *o, int nranks, struct np_err *err);

/* Parse a size: bytes or K/M/G/T (powers of 1024, optional trailing B or iB). */
enum np_status np_parse_size(const char *s, uint64_t *out, struct np_err *err);
/* Parse "MIN:MAX[:xFACTOR|:+STEP]" or "SIZE" into o. */
enum np_status np_parse_sweep(const char *s, struct np_opts *o, struct np_err *err);

/* The default largest size, before the sweep lowers it to the largest of
 * the series whose buffers fit in the tightest rank's free memory: the
 * command's default_max (src/cmds.h) on GPUs or host memory. Never below
 * o->min_bytes. */
uint64_t np_opts_default_max(const struct np_opts *o, bool device);

#define NP_MAX_SIZES 10000
/* Rows of one sweep (collectives x sizes): its JSON report (about 800
 * bytes and 30 values a row with the default samples) stays far below
 * what the report reader takes (NP_JREAD_MAX_BYTES, NP_JREAD_MAX_VALUES),
 * so that compare and --baseline read every report the sweep writes. */
#define NP_MAX_ROWS 20000
#define NP_SIZE_MAX (8388607ull << 40) /* largest size: 8388607T, 2^63 - 2^40 bytes */
#define NP_TIMEOUT_MAX 604800          /* --timeout: a week */

/* The sweep's sizes in order into out[0..cap); returns how many there are
 * (at most NP_MAX_SIZES + 1, which parsing rejects). out may be NULL. */
size_t np_opts_sizes(const struct np_opts *o, uint64_t *out, size_t cap);

/* cmd's --help: its synopsis (the default command's lists every
 * command's), what it does, its options and its exit codes. */
void np_opts_usage(FILE *f, const struct np_cmd *cmd);

#endif
