/* SPDX-License-Identifier: MIT */
/* Unit tests: size and sweep parsing, option errors, collective layout. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../common/coll.h"
#include "../../common/printable.h"
#include "../../src/cmds.h"
#include "../../src/opts.h"
#include "tap.h"

static int size_ok(const char *s, uint64_t want)
{
	uint64_t v = 0;
	struct np_err err = { 0 };
	return np_parse_size(s, &v, &err) == NP_OK && v == want;
}

static int size_bad(const char *s)
{
	uint64_t v = 0;
	struct np_err err = { 0 };
	return np_parse_size(s, &v, &err) == NP_EUSAGE && strstr(err.msg, s) != NULL;
}

static int parse(const char *a1, const char *a2, struct np_opts *o, struct np_err *err)
{
	char *argv[] = { "nccl-probe", (char *)a1, (char *)a2, NULL };
	bool help, version;
	return np_opts_parse(o, &np_cmd_sweep, a2 ? 3 : 2, argv, 1, &help, &version, err);
}

/* Parse the arguments up to NULL as the sweep's; print the message. */
static enum np_status parsev(struct np_opts *o, struct np_err *err, ...)
{
	char *argv[16] = { "nccl-probe" };
	int argc = 1;
	bool help, version;
	va_list ap;
	enum np_status st;

	va_start(ap, err);
	for (char *a; argc < 15 && (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	err->msg[0] = '\0';
	st = np_opts_parse(o, &np_cmd_sweep, argc, argv, 1, &help, &version, err);
	if (st)
		printf("#   %s\n", err->msg);
	return st;
}

/* Refused (exit 64) with a message holding every string up to NULL. */
static int refused(struct np_opts *o, struct np_err *err, const char *a1, const char *a2,
		   const char *a3, const char *a4, ...)
{
	va_list ap;
	int ok = parsev(o, err, a1, a2, a3, a4, (char *)NULL) == NP_EUSAGE;

	va_start(ap, a4);
	for (const char *w; (w = va_arg(ap, const char *));)
		if (!strstr(err->msg, w)) {
			printf("#   the message lacks '%s'\n", w);
			ok = 0;
		}
	va_end(ap);
	return ok;
}

/* The sweep's options after '--backend mpi' (the arguments in ap), as the
 * program meets them (src/main.c, singleton or under mpirun): parsed, then
 * the files they name, or with nranks the checks that need the world.
 * Refused with exit 64 and one line (as printed: controls escaped) that
 * holds want; the line is shown as a TAP comment. */
static int sweep_refused(const char *want, int nranks, va_list ap)
{
	char *argv[16] = { "nccl-probe", "--backend", "mpi" };
	int argc = 3;
	struct np_opts o;
	struct np_err err = { 0 };
	bool help = false, version = false;
	char line[4 * sizeof(err.msg)];
	enum np_status st;

	for (char *a; argc < 15 && (a = va_arg(ap, char *));)
		argv[argc++] = a;
	st = np_opts_parse(&o, &np_cmd_sweep, argc, argv, 1, &help, &version, &err);
	if (nranks) {
		if (st != NP_OK) {
			printf("#   parsing refused it: %s\n", err.msg);
			return 0;
		}
		st = np_opts_check_world(&o, nranks, &err);
	} else if (st == NP_OK && !help && !version) {
		st = np_opts_check_files(&o, &err);
	}
	np_printable(line, sizeof(line), st == NP_OK ? "" : err.msg);
	printf("#   exit %d: %s\n", np_status_exit(st), line);
	return st == NP_EUSAGE && np_status_exit(st) == 64 && line[0] && !strchr(line, '\n') &&
	       strstr(line, want);
}

/* A bad input refused by parsing or by the files it names. */
static int bad_input(const char *want, ...)
{
	va_list ap;
	int r;

	va_start(ap, want);
	r = sweep_refused(want, 0, ap);
	va_end(ap);
	return r;
}

/* A check that needs the world (src/main.c: exit 64) on nranks ranks. */
static int bad_world(const char *want, int nranks, ...)
{
	va_list ap;
	int r;

	va_start(ap, nranks);
	r = sweep_refused(want, nranks, ap);
	va_end(ap);
	return r;
}

/* Every malformed or impossible input of the sweep (tests/t0002 runs a few
 * of them end to end): exit 64, one line naming the bad value. */
static void bad_inputs(void)
{
	char dir[] = "/tmp/np-test-parse.XXXXXX", path[sizeof(dir) + 32];
	struct np_opts o;
	struct np_err err = { 0 };
	bool help = false, version = false;

	if (!mkdtemp(dir)) {
		tap_ok(0, "a directory for the --output cases: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/no/such/dir/x.json", dir);

	tap_ok(bad_input("abc", "--sweep", "abc", NULL), "rejects --sweep abc (exit 64)");
	tap_ok(bad_input("8G:1K", "--sweep", "8G:1K", NULL), "rejects --sweep 8G:1K (exit 64)");
	tap_ok(bad_input("0:1M", "--sweep", "0:1M", NULL), "rejects --sweep 0:1M (exit 64)");
	tap_ok(bad_input("1Q", "--sweep", "1Q", NULL), "rejects --sweep 1Q (exit 64)");
	tap_ok(bad_input("99999999T", "--sweep", "99999999T", NULL),
	       "rejects --sweep 99999999T (exit 64)");
	tap_ok(bad_input(":x1", "--sweep", ":x1", NULL), "rejects --sweep :x1 (exit 64)");
	tap_ok(bad_input("1K:1M:x1", "--sweep", "1K:1M:x1", NULL),
	       "rejects --sweep 1K:1M:x1 (exit 64)");
	tap_ok(bad_input("1K:1M:+0", "--sweep", "1K:1M:+0", NULL),
	       "rejects --sweep 1K:1M:+0 (exit 64)");
	tap_ok(bad_input("bogus", "--coll", "bogus", NULL), "rejects --coll bogus (exit 64)");
	tap_ok(bad_input("bogus", "--dtype", "bogus", NULL), "rejects --dtype bogus (exit 64)");
	tap_ok(bad_input("bogus", "--op", "bogus", NULL), "rejects --op bogus (exit 64)");
	tap_ok(bad_input("-3", "--iters", "-3", NULL), "rejects --iters -3 (exit 64)");
	tap_ok(bad_input("/nonexistent/x", "--output", "/nonexistent/x", NULL),
	       "rejects --output /nonexistent/x (exit 64)");
	tap_ok(bad_input("--bogus", "--bogus", NULL), "rejects --bogus (exit 64)");
	tap_ok(bad_input("-Z", "-Z", NULL), "rejects -Z (exit 64)");
	tap_ok(bad_input("xyz", "--backend", "xyz", NULL), "rejects --backend xyz (exit 64)");
	tap_ok(bad_input("xml", "--format", "xml", NULL), "rejects --format xml (exit 64)");
	tap_ok(bad_input("abc", "--timeout", "abc", NULL), "rejects --timeout abc (exit 64)");
	tap_ok(bad_input("1:2T:+1", "--sweep", "1:2T:+1", NULL),
	       "rejects --sweep 1:2T:+1 (exit 64)");
	/* a sweep whose JSON compare could not read (9 x 10000 rows wrote 73 MB): refused up front */
	tap_ok(bad_input("has 90000 rows (9 collectives x 10000 sizes), more than the 20000 that compare reads; "
			 "use a larger step or fewer --coll",
			 "--sweep", "4:40000:+4", "--coll", "all", NULL),
	       "rejects --sweep 4:40000:+4 --coll all: 90000 rows (exit 64)");
	tap_ok(bad_input("has 20001 rows (3 collectives x 6667 sizes)", "--sweep", "4:26668:+4",
			 "--coll", "allreduce,allgather,alltoall", NULL),
	       "rejects 20001 rows, one above the bound (exit 64)");
	/* 20000 rows pass the option checks: refused for the --output alone */
	tap_ok(np_opts_parse(&o, &np_cmd_sweep, 7,
			     (char *[]){ "nccl-probe", "--sweep", "4:40000:+4", "--coll",
					 "allreduce,allgather", "--output", path, NULL },
			     1, &help, &version, &err) == NP_OK &&
		       np_opts_check_files(&o, &err) == NP_EUSAGE && !strstr(err.msg, "rows") &&
		       strstr(err.msg, "no/such/dir"),
	       "a sweep of 20000 rows passes the option checks (stops at its --output): %s",
	       err.msg);
	tap_ok(bad_input("--sweep", "--sweep", NULL), "rejects --sweep without a value (exit 64)");
	tap_ok(bad_input("stray", "stray", NULL), "rejects a stray argument (exit 64)");
	tap_ok(bad_input("1,x", "--gpu-map", "1,x", NULL), "rejects --gpu-map 1,x (exit 64)");
	tap_ok(bad_input(dir, "--output", dir, NULL), "rejects --output DIRECTORY (exit 64)");
	tap_ok(bad_input("0", "--budget", "0", NULL), "rejects --budget 0 (exit 64)");
	tap_ok(bad_input("-1", "--warmup", "-1", NULL), "rejects --warmup -1 (exit 64)");
	tap_ok(bad_world("99", 4, "--root", "99", "--coll", "broadcast", NULL),
	       "rejects --root 99 --coll broadcast on 4 ranks (exit 64)");
	tap_ok(bad_world("3", 4, "--ranks-per-node", "3", NULL),
	       "rejects --ranks-per-node 3 on 4 ranks (exit 64)");
	tap_ok(bad_input("-c", "-c", "2", NULL), "rejects -c 2 (exit 64)");
	tap_ok(bad_input("'2'", "--check=2", NULL), "rejects --check=2 (exit 64)");
	tap_ok(bad_input("8:1K:x 2", "--sweep", "8:1K:x 2", NULL),
	       "rejects --sweep '8:1K:x 2' (exit 64)");
	tap_ok(bad_input("x0x2", "--sweep", "8:1K:x0x2", NULL),
	       "rejects --sweep 8:1K:x0x2 (exit 64)");
	tap_ok(bad_input("0x10", "--timeout", "0x10", NULL), "rejects --timeout 0x10 (exit 64)");
	tap_ok(bad_input("1e19", "--timeout", "1e19", NULL), "rejects --timeout 1e19 (exit 64)");
	tap_ok(bad_input("the largest is 8388607T", "--maxbytes", "9223372036854775807", NULL),
	       "rejects --maxbytes 2^63-1 (exit 64)");
	tap_ok(bad_input("allreduce,", "--coll", "allreduce,", NULL),
	       "rejects --coll allreduce, (exit 64)");
	tap_ok(bad_input("allreduce,,alltoall", "--coll", "allreduce,,alltoall", NULL),
	       "rejects --coll allreduce,,alltoall (exit 64)");
	tap_ok(bad_input("drop -i", "-f", "2", "-i", "1K", NULL), "rejects -f 2 -i 1K (exit 64)");
	tap_ok(bad_input("drop -b/--minbytes", "-b", "8", "--sweep", "1K:1M", NULL),
	       "rejects -b 8 --sweep 1K:1M (exit 64)");
	tap_ok(bad_input("did you mean 80?", "--min-eff", "0.8", NULL),
	       "rejects --min-eff 0.8 (exit 64)");
	tap_ok(bad_input("allreduce is given twice", "--min-eff", "allreduce=1,allreduce=2", NULL),
	       "rejects --min-eff allreduce=1,allreduce=2 (exit 64)");
	tap_ok(bad_input("0x1p3", "--max-regression", "0x1p3", NULL),
	       "rejects --max-regression 0x1p3 (exit 64)");
	tap_ok(bad_input("-f/--stepfactor '1'", "-f", "1", NULL) &&
		       np_opts_parse(&o, &np_cmd_sweep, 3,
				     (char *[]){ "nccl-probe", "-f", "1", NULL }, 1, &help,
				     &version, &err) == NP_EUSAGE &&
		       !strstr(err.msg, "x1"),
	       "rejects -f 1 (exit 64); the message does not speak of x1");
	rmdir(dir);
}

/* nccl-tests' options that nccl-probe refuses, on the 1-rank sweep of
 * tests/t0021 (which runs two of them end to end): exit 64, one line that
 * says what to do instead */
#define RUN1 "--sweep", "8", "--iters", "1", "--samples", "1", "-q"
static void nccl_tests_options(void)
{
	tap_ok(bad_input("one GPU per rank: use mpirun -np N", RUN1, "-g", "2", NULL),
	       "-g 2 is a usage error (exit 64)");
	tap_ok(bad_input("one GPU per rank: use mpirun -np N", RUN1, "-t", "8", NULL),
	       "-t 8 is a usage error (exit 64)");
	tap_ok(bad_input("one GPU per rank: use mpirun -np N", RUN1, "--ngpus=4", NULL),
	       "--ngpus=4 is a usage error (exit 64)");
	tap_ok(bad_input("slowest rank", RUN1, "-a", "1", NULL), "-a 1 is a usage error (exit 64)");
	tap_ok(bad_input("without a barrier", RUN1, "-z", "1", NULL),
	       "-z 1 is a usage error (exit 64)");
	tap_ok(bad_input("does not register", RUN1, "-R", "2", NULL),
	       "-R 2 is a usage error (exit 64)");
	tap_ok(bad_input("needs the NCCL backend", RUN1, "-G", "1", NULL),
	       "-G 1 is a usage error (exit 64)");
	tap_ok(bad_input("give 0 (no graph)", RUN1, "-G", "x", NULL),
	       "-G x is a usage error (exit 64)");
	tap_ok(bad_input("run it once per --dtype", RUN1, "-d", "all", NULL),
	       "-d all is a usage error (exit 64)");
	tap_ok(bad_input("checks once per size", RUN1, "-c", "5", NULL),
	       "-c 5 is a usage error (exit 64)");
	tap_ok(bad_input("aggregates none", RUN1, "-m", "4", NULL),
	       "-m 4 is a usage error (exit 64)");
	tap_ok(bad_input("run it again", RUN1, "-N", "3", NULL), "-N 3 is a usage error (exit 64)");
	tap_ok(bad_input("every sample", RUN1, "-I", "1", NULL), "-I 1 is a usage error (exit 64)");
	tap_ok(bad_input("only 0, its default", RUN1, "-y", "1", NULL),
	       "-y 1 is a usage error (exit 64)");
	tap_ok(bad_input("only 0, its default", RUN1, "-u", "1", NULL),
	       "-u 1 is a usage error (exit 64)");
	tap_ok(bad_input("only 0, its default", RUN1, "-M", "1", NULL),
	       "-M 1 is a usage error (exit 64)");
	tap_ok(bad_input("only 0, its default", RUN1, "-K", "2", NULL),
	       "-K 2 is a usage error (exit 64)");
	tap_ok(bad_input("only 0, its default", RUN1, "-D", "1", NULL),
	       "-D 1 is a usage error (exit 64)");
	tap_ok(bad_input("only -1, its default", RUN1, "-x", "2", NULL),
	       "-x 2 is a usage error (exit 64)");
	tap_ok(bad_input("only 1, its default", RUN1, "--run_cycles=2", NULL),
	       "--run_cycles=2 is a usage error (exit 64)");
	tap_ok(bad_input("only 0, its default", RUN1, "-p", "yes", NULL),
	       "-p yes is a usage error (exit 64)");
	tap_ok(bad_input("needs a value", RUN1, "-C", NULL), "-C is a usage error (exit 64)");
	tap_ok(bad_input("drop -V (--version shows the version)", RUN1, "-V", "8", NULL),
	       "-V 8 is a usage error (exit 64)");
	tap_ok(bad_input("use -w/--warmup", RUN1, "--warmup_iters", "5", NULL),
	       "--warmup_iters 5 is a usage error (exit 64)");
	tap_ok(bad_input("use -d/--dtype", RUN1, "--datatype", "float", NULL),
	       "--datatype float is a usage error (exit 64)");
	tap_ok(bad_input("use -J/--json", RUN1, "--output_file", "x.json", NULL),
	       "--output_file x.json is a usage error (exit 64)");
	tap_ok(bad_input("did you mean '--local-register'", RUN1, "--local_register", "0", NULL),
	       "--local_register 0 is a usage error (exit 64)");
}

/* sizes, --sweep and single options */
static void basic_options(void)
{
	struct np_opts o;
	struct np_err err = { 0 };

	tap_ok(size_ok("8", 8), "plain bytes");
	tap_ok(size_ok("1K", 1024), "K is 1024");
	tap_ok(size_ok("128M", 128ull << 20), "M");
	tap_ok(size_ok("8G", 8ull << 30), "G");
	tap_ok(size_ok("2T", 2ull << 40), "T");
	tap_ok(size_ok("4k", 4096), "lowercase suffix");
	tap_ok(size_ok("1MiB", 1ull << 20), "MiB spelling");
	tap_ok(size_bad("abc"), "abc rejected, named");
	tap_ok(size_bad("1Q"), "1Q rejected, named");
	tap_ok(size_bad("99999999T"), "99999999T overflows, named");
	tap_ok(size_bad("-1"), "negative rejected");
	tap_ok(size_bad(""), "empty rejected");
	tap_ok(size_bad("18446744073709551616"), "2^64 rejected");

	tap_ok(parse("--sweep", "128M:8G", &o, &err) == NP_OK && o.min_bytes == 128ull << 20 &&
		       o.max_bytes == 8ull << 30 && o.step_kind == NP_STEP_FACTOR &&
		       o.step_factor == 4,
	       "--sweep MIN:MAX keeps the default factor");
	tap_ok(parse("--sweep", "1K:1M:x2", &o, &err) == NP_OK && o.step_factor == 2, "factor x2");
	tap_ok(parse("--sweep", "1K:1M:+4K", &o, &err) == NP_OK && o.step_kind == NP_STEP_ADD &&
		       o.step_bytes == 4096,
	       "step +4K");
	tap_ok(parse("--sweep", "1M", &o, &err) == NP_OK && o.min_bytes == o.max_bytes,
	       "single size");
	tap_ok(parse("--sweep", "8G:1K", &o, &err) == NP_EUSAGE && strstr(err.msg, "8G:1K"),
	       "8G:1K rejected");
	tap_ok(parse("--sweep", "0:1M", &o, &err) == NP_EUSAGE && strstr(err.msg, "0:1M"),
	       "0:1M rejected");
	tap_ok(parse("--sweep", ":x1", &o, &err) == NP_EUSAGE && strstr(err.msg, ":x1"),
	       ":x1 rejected");
	tap_ok(parse("--sweep", "1K:1M:x1", &o, &err) == NP_EUSAGE && strstr(err.msg, "1K:1M:x1"),
	       "factor 1 rejected");
	tap_ok(parse("--sweep", "1K:1M:+0", &o, &err) == NP_EUSAGE, "step +0 rejected");
	tap_ok(parse("--sweep", "1K:1M:y2", &o, &err) == NP_EUSAGE, "bad step letter rejected");
	tap_ok(parse("--coll", "bogus", &o, &err) == NP_EUSAGE && strstr(err.msg, "bogus"),
	       "--coll bogus");
	tap_ok(parse("--coll", "all", &o, &err) == NP_OK && o.colls[NP_COLL_SENDRECV],
	       "--coll all");
	tap_ok(parse("--dtype", "bogus", &o, &err) == NP_EUSAGE && strstr(err.msg, "bogus"),
	       "--dtype bogus");
	tap_ok(parse("--dtype", "bfloat16", &o, &err) == NP_OK && o.dtype == NP_BFLOAT16,
	       "--dtype bfloat16");
	tap_ok(parse("--iters", "-3", &o, &err) == NP_EUSAGE && strstr(err.msg, "-3"),
	       "--iters -3");
	tap_ok(parse("--iters", "auto", &o, &err) == NP_OK && o.iters == 0, "--iters auto");
	tap_ok(parse("-n", "20", &o, &err) == NP_OK && o.iters == 20, "-n 20");
	tap_ok(parse("--output", "/nonexistent/x", &o, &err) == NP_OK &&
		       np_opts_check_files(&o, &err) == NP_EUSAGE &&
		       strstr(err.msg, "/nonexistent/x"),
	       "--output in a missing directory: parsing is pure, the file check says it");
	tap_ok(parse("--timeout", "1e19", &o, &err) == NP_EUSAGE && strstr(err.msg, "1e19"),
	       "--timeout 1e19 is beyond the largest (it used to overflow and fire at once)");
	tap_ok(parse("--timeout", "604800", &o, &err) == NP_OK && o.timeout == 604800,
	       "--timeout of a week is accepted");
	tap_ok(parse("--bogus", NULL, &o, &err) == NP_EUSAGE && strstr(err.msg, "--bogus"),
	       "unknown option");
	tap_ok(parse("-b", "1K", &o, &err) == NP_OK && o.min_bytes == 1024, "-b 1K");
	tap_ok(parse("--op=max", NULL, &o, &err) == NP_OK && o.op == NP_OP_MAX, "--op=max");
	tap_ok(parse("-c", "0", &o, &err) == NP_OK && !o.check, "-c 0 as in nccl-tests");
	tap_ok(parse("--timeout", "abc", &o, &err) == NP_EUSAGE && strstr(err.msg, "abc"),
	       "--timeout abc");
}

/* each command's option table: bound, sorted, unique */
static void command_tables(void)
{
	/* each command's option table: every row bound to a field or a
	 * handler, sorted, its names its own once */
	for (size_t c = 0; c < np_commands_count; c++) {
		const struct np_cmd *cmd = np_commands[c];
		int bad = 0, unsorted = 0, dup = 0;
		for (size_t i = 0; i < cmd->noptions; i++) {
			const struct np_option *op = &cmd->options[i];
			if (!np_option_valid(op)) {
				bad++;
				printf("# %s: option --%s has no valid handling\n", cmd->name,
				       op->name);
			}
			if (i && strcmp(cmd->options[i - 1].name, op->name) >= 0)
				unsorted++;
			for (size_t k = 0; k < i; k++)
				if (op->short_name && op->short_name == cmd->options[k].short_name)
					dup++;
		}
		tap_ok(bad == 0,
		       "%s: every option row is bound to a field or a handler (%d are not)",
		       cmd->name, bad);
		tap_ok(unsorted == 0 && dup == 0, "%s: its table is sorted, short names unique",
		       cmd->name);
		tap_ok(cmd->noptions > 2 && cmd->synopsis && cmd->about && cmd->exits &&
			       cmd->formats && np_cmd_find(cmd->name) == cmd,
		       "%s: declares its usage, exit codes and formats, and is found by its name",
		       cmd->name);
	}
	{
		/* one option, two commands' rows: the same short name and value */
		int clash = 0;
		for (size_t c = 0; c < np_commands_count; c++)
			for (size_t i = 0; i < np_commands[c]->noptions; i++) {
				const struct np_option *a = &np_commands[c]->options[i];
				for (size_t d = 0; d < c; d++)
					for (size_t k = 0; k < np_commands[d]->noptions; k++) {
						const struct np_option *b =
							&np_commands[d]->options[k];
						if (!strcmp(a->name, b->name)
							    ? a->short_name != b->short_name ||
								      !a->arg != !b->arg
							    : a->short_name &&
								      a->short_name ==
									      b->short_name) {
							clash++;
							printf("# --%s of %s and --%s of %s\n",
							       a->name, np_commands[c]->name,
							       b->name, np_commands[d]->name);
						}
					}
			}
		tap_ok(clash == 0,
		       "an option means one thing in every command: its short name and whether it takes a value (%d differ)",
		       clash);
		struct np_option none = { "x", 0, NULL, "x", NP_OPT_NONE, 0, 0, 0, NULL };
		struct np_option nofn = { "x", 0, "V", "x", NP_OPT_CALLBACK, 0, 0, 0, NULL };
		tap_ok(!np_option_valid(&none) && !np_option_valid(&nofn),
		       "a row without handling, or a callback row without a function, is invalid");
	}
}

/* --check, step factors, numbers and each command's formats */
static void check_and_factors(void)
{
	struct np_opts o;
	struct np_err err = { 0 };

	tap_ok(parse("--check=0", NULL, &o, &err) == NP_OK && !o.check,
	       "--check=0 turns checking off (it turned it on)");
	tap_ok(parse("--check=1", NULL, &o, &err) == NP_OK && o.check, "--check=1");
	tap_ok(parse("--no-check", "--check", &o, &err) == NP_OK && o.check,
	       "--check after --no-check");
	tap_ok(parse("--check", NULL, &o, &err) == NP_OK && o.check, "--check alone");
	tap_ok(parse("--check=2", NULL, &o, &err) == NP_EUSAGE && strstr(err.msg, "'2'"),
	       "--check=2 rejected");
	tap_ok(parse("-c0", NULL, &o, &err) == NP_OK && !o.check, "-c0");
	tap_ok(parse("--no-check", NULL, &o, &err) == NP_OK && !o.check, "--no-check");
	tap_ok(parse("--quiet=1", NULL, &o, &err) == NP_EUSAGE, "a flag takes no value");
	tap_ok(parse("--sweep", "8:1K:x 2", &o, &err) == NP_EUSAGE && strstr(err.msg, "8:1K:x 2"),
	       "factor ' 2' (a space) rejected");
	tap_ok(parse("--sweep", "8:1K:x0x2", &o, &err) == NP_EUSAGE && strstr(err.msg, "x0x2"),
	       "factor 0x2 (hexadecimal) rejected");
	tap_ok(parse("--sweep", "8:1K:x1.5e0", &o, &err) == NP_OK && o.step_factor == 1.5,
	       "factor 1.5e0");
	tap_ok(parse("--stepfactor", "inf", &o, &err) == NP_EUSAGE, "--stepfactor inf rejected");
	tap_ok(parse("--timeout", "0x10", &o, &err) == NP_EUSAGE && strstr(err.msg, "0x10"),
	       "--timeout 0x10 rejected");
	tap_ok(parse("--timeout", " 5", &o, &err) == NP_EUSAGE, "--timeout ' 5' rejected");
	tap_ok(parse("--timeout", "nan", &o, &err) == NP_EUSAGE, "--timeout nan rejected");
	tap_ok(parse("--timeout", "2.5", &o, &err) == NP_OK && o.timeout == 2.5, "--timeout 2.5");
	tap_ok(parse("--warmup", "+3", &o, &err) == NP_EUSAGE && strstr(err.msg, "+3"),
	       "--warmup +3 rejected");
	tap_ok(parse("--samples", "7", &o, &err) == NP_OK && o.samples == 7,
	       "--samples 7 sets the field");
	tap_ok(parse("--export", "x.xml", &o, &err) == NP_EUSAGE,
	       "a topo option is not for the sweep");
	{
		/* a command's options are its own rows: isolate's --min-busbw is
		 * one floor, the sweep's --iters is not isolate's */
		char *one[] = { "nccl-probe", "isolate", "--min-busbw", "100", NULL };
		char *per[] = { "nccl-probe", "isolate", "--min-busbw", "allreduce=100", NULL };
		char *iters[] = { "nccl-probe", "isolate", "--iters", "5", NULL };
		bool help, version;
		tap_ok(np_opts_parse(&o, &np_cmd_isolate, 4, one, 2, &help, &version, &err) ==
				       NP_OK &&
			       o.min_busbw == 100 && o.budget == 1.0,
		       "isolate --min-busbw 100, with isolate's own default --budget 1");
		tap_ok(np_opts_parse(&o, &np_cmd_isolate, 4, per, 2, &help, &version, &err) ==
				       NP_EUSAGE &&
			       strstr(err.msg, "isolate takes one --min-busbw value"),
		       "isolate --min-busbw allreduce=100 refused: one floor");
		tap_ok(np_opts_parse(&o, &np_cmd_isolate, 4, iters, 2, &help, &version, &err) ==
				       NP_EUSAGE &&
			       strstr(err.msg, "'--iters' is not for 'isolate'"),
		       "isolate --iters refused as another command's option: %s", err.msg);
		tap_ok(parsev(&o, &err, "--format", "nccl-tests", "--coll", "allreduce", NULL) ==
				       NP_OK &&
			       o.format == NP_FMT_NCCLTESTS,
		       "the sweep writes nccl-tests' format");
		char *fmt[] = { "nccl-probe", "isolate", "--format", "csv", NULL };
		tap_ok(np_opts_parse(&o, &np_cmd_isolate, 4, fmt, 2, &help, &version, &err) ==
				       NP_EUSAGE &&
			       strstr(err.msg, "use table or json"),
		       "isolate's formats are its own: csv refused, table or json named: %s",
		       err.msg);
	}
	tap_ok(size_ok("8388607T", 8388607ull << 40), "8388607T is the largest size");
	tap_ok(size_bad("8388608T"), "8388608T is too large");
	{
		uint64_t v;
		tap_ok(np_parse_size("9223372036854775807", &v, &err) == NP_EUSAGE &&
			       strstr(err.msg, "the largest is 8388607T"),
		       "2^63-1 bytes: the message names the limit that is enforced (it said 16383T)");
		tap_ok(np_parse_size("16384T", &v, &err) == NP_OK,
		       "16384T, above the old message's limit, is within the real one");
	}
}

/* percentages, lists, sizes and formats as people write them */
static void value_spellings(void)
{
	struct np_opts o;
	struct np_err err = { 0 };

	/* percentages as people write them: a plain number, or with '%' */
	tap_ok(refused(&o, &err, "--max-regression", "0x1p3", NULL, NULL, "'0x1p3'", NULL),
	       "--max-regression 0x1p3 (a hexadecimal float, 8) refused");
	tap_ok(refused(&o, &err, "--min-change", "0x1p3", NULL, NULL, "'0x1p3'", NULL),
	       "--min-change 0x1p3 refused");
	tap_ok(refused(&o, &err, "--max-regression", " 5", NULL, NULL, "' 5'", NULL),
	       "--max-regression ' 5' (a leading blank) refused");
	tap_ok(refused(&o, &err, "--min-change", " 5", NULL, NULL, "' 5'", NULL),
	       "--min-change ' 5' refused");
	tap_ok(refused(&o, &err, "--min-change", "inf", NULL, NULL, "'inf'", NULL),
	       "--min-change inf refused");
	tap_ok(refused(&o, &err, "--max-regression", "nan", NULL, NULL, "'nan'", NULL),
	       "--max-regression nan refused");
	tap_ok(refused(&o, &err, "--max-regression", "5%%", NULL, NULL, "'5%%'", NULL),
	       "--max-regression '5%%%%' (two percent signs) refused");
	tap_ok(refused(&o, &err, "--max-regression", "-1", NULL, NULL, "'-1'", NULL),
	       "--max-regression -1 refused");
	tap_ok(parsev(&o, &err, "--max-regression", "5%", NULL) == NP_OK &&
		       o.max_regression == 0.05,
	       "--max-regression 5%% is 5 percent");
	tap_ok(parsev(&o, &err, "--max-regression", "5", NULL) == NP_OK && o.max_regression == 0.05,
	       "--max-regression 5 is 5 percent");
	tap_ok(parsev(&o, &err, "--min-change", "2.5%", NULL) == NP_OK && o.min_change == 0.025,
	       "--min-change 2.5%% is 2.5 percent");

	/* --min-eff: a percentage; a fraction is asked about */
	tap_ok(refused(&o, &err, "--min-eff", "0.8", NULL, NULL, "'0.8'", "did you mean 80?", NULL),
	       "--min-eff 0.8 (a fraction) refused, asking whether 80 was meant");
	tap_ok(refused(&o, &err, "--min-eff", "allreduce=0.5,alltoall=70", NULL, NULL,
		       "did you mean 50?", NULL),
	       "--min-eff allreduce=0.5 (a fraction) refused, asking whether 50 was meant");
	tap_ok(parsev(&o, &err, "--min-eff", "80%", NULL) == NP_OK && o.min_eff == 0.8 &&
		       o.coll_min_eff[NP_COLL_ALLREDUCE] == 0.8,
	       "--min-eff 80%% is 80 percent");
	tap_ok(parsev(&o, &err, "--min-eff", "80", NULL) == NP_OK && o.min_eff == 0.8,
	       "--min-eff 80 is 80 percent");
	tap_ok(parsev(&o, &err, "--min-eff", "0.8%", NULL) == NP_OK &&
		       fabs(o.min_eff - 0.008) < 1e-12,
	       "--min-eff 0.8%% says 0.8 percent and is taken");
	tap_ok(parsev(&o, &err, "--min-eff", "0", NULL) == NP_OK && o.min_eff == 0,
	       "--min-eff 0 (none) is taken");
	tap_ok(parsev(&o, &err, "--min-eff", "allreduce=80%,alltoall=70", NULL) == NP_OK &&
		       o.coll_min_eff[NP_COLL_ALLREDUCE] == 0.8 &&
		       o.coll_min_eff[NP_COLL_ALLTOALL] == 0.7,
	       "--min-eff allreduce=80%%,alltoall=70");
	tap_ok(refused(&o, &err, "--min-eff", "0x50", NULL, NULL, "'0x50'", NULL),
	       "--min-eff 0x50 refused");
	tap_ok(refused(&o, &err, "--min-busbw", "150%", NULL, NULL, "'150%'", NULL),
	       "--min-busbw 150%% (a rate) refused");
	tap_ok(refused(&o, &err, "--min-eff", "allreduce=1,allreduce=2", NULL, NULL,
		       "allreduce is given twice", NULL),
	       "--min-eff allreduce=1,allreduce=2 refused: given twice");
	tap_ok(refused(&o, &err, "--min-busbw", "alltoall=100,allreduce=150,alltoall=90", NULL,
		       NULL, "alltoall is given twice", NULL),
	       "--min-busbw with alltoall twice refused");
	tap_ok(refused(&o, &err, "--min-busbw", "allreduce=150,", NULL, NULL, "'allreduce=150,'",
		       "empty", NULL),
	       "--min-busbw allreduce=150, (a trailing comma) refused");

	/* --coll: no empty name */
	tap_ok(refused(&o, &err, "--coll", "allreduce,", NULL, NULL, "'allreduce,'", "empty", NULL),
	       "--coll allreduce, (a trailing comma) refused");
	tap_ok(refused(&o, &err, "--coll", "allreduce,,alltoall", NULL, NULL,
		       "'allreduce,,alltoall'", NULL),
	       "--coll a,,b refused");
	tap_ok(refused(&o, &err, "--coll", ",allreduce", NULL, NULL, "',allreduce'", NULL),
	       "--coll ,allreduce refused");
	tap_ok(parsev(&o, &err, "--coll", "allreduce,alltoall", NULL) == NP_OK &&
		       o.colls[NP_COLL_ALLREDUCE] && o.colls[NP_COLL_ALLTOALL] &&
		       !o.colls[NP_COLL_BROADCAST],
	       "--coll allreduce,alltoall");

	/* the sizes: one spelling, one step */
	tap_ok(refused(&o, &err, "-f", "2", "-i", "1K", "-f/--stepfactor 2", "-i/--stepbytes 1K",
		       "drop -i", "drop -f", NULL),
	       "-f 2 -i 1K refused, saying which to drop");
	tap_ok(refused(&o, &err, "-i", "1K", "-f", "2", "drop -i", NULL),
	       "-i 1K -f 2 refused in either order");
	tap_ok(refused(&o, &err, "-b", "8", "--sweep", "1K:1M", "'1K:1M'", "-b/--minbytes 8",
		       "drop -b/--minbytes", NULL),
	       "-b 8 --sweep 1K:1M refused, saying which to keep");
	tap_ok(refused(&o, &err, "--sweep", "1K:1M", "-e", "8M", "-e/--maxbytes 8M", NULL),
	       "--sweep 1K:1M -e 8M refused (it was last-wins)");
	tap_ok(refused(&o, &err, "--sweep", "1K:1M:x2", "-f", "4", "has a step",
		       "drop -f/--stepfactor", NULL),
	       "--sweep with a step and -f refused");
	tap_ok(parsev(&o, &err, "--sweep", "1K:1M", "-f", "2", NULL) == NP_OK &&
		       o.min_bytes == 1024 && o.max_bytes == 1u << 20 && o.step_factor == 2,
	       "--sweep MIN:MAX takes its step from -f");
	tap_ok(parsev(&o, &err, "-b", "1K", "-e", "1M", "-i", "4K", NULL) == NP_OK &&
		       o.step_kind == NP_STEP_ADD && o.step_bytes == 4096 &&
		       o.max_bytes == 1u << 20,
	       "-b -e -i as in nccl-tests");
	tap_ok(refused(&o, &err, "-f", "1", NULL, NULL, "-f/--stepfactor '1'", NULL) &&
		       !strstr(err.msg, "x1"),
	       "-f 1: the message names -f 1, never x1");
	tap_ok(refused(&o, &err, "--sweep", "1K:1M:x1", NULL, NULL, "'1K:1M:x1'", NULL),
	       "--sweep ...:x1: the message names what was typed");

	/* --format in any case */
	tap_ok(parsev(&o, &err, "--format", "JSON", NULL) == NP_OK && o.format == NP_FMT_JSON,
	       "--format JSON");
	tap_ok(parsev(&o, &err, "--format", "Csv", NULL) == NP_OK && o.format == NP_FMT_CSV,
	       "--format Csv");
	tap_ok(refused(&o, &err, "--format", "XML", NULL, NULL, "'XML'", NULL),
	       "--format XML refused");

	o.root = 99;
	o.colls[NP_COLL_BROADCAST] = true;
	tap_ok(np_opts_check_world(&o, 4, &err) == NP_EUSAGE && strstr(err.msg, "99"),
	       "--root 99 on 4 ranks");
}

/* each collective's layout and bus factor */
static void layouts(void)
{
	struct np_layout lay;

	np_coll_layout(&np_colls[NP_COLL_ALLREDUCE], 1024, 4, 8, &lay);
	tap_is_int(lay.count, 256, "allreduce count");
	tap_is_int(lay.size, 1024, "allreduce size");
	np_coll_layout(&np_colls[NP_COLL_ALLGATHER], 1024, 4, 8, &lay);
	tap_is_int(lay.count, 32, "allgather count per rank");
	tap_is_int(lay.send_bytes, 128, "allgather send bytes");
	tap_is_int(lay.recv_bytes, 1024, "allgather recv bytes");
	np_coll_layout(&np_colls[NP_COLL_REDUCESCATTER], 1000, 4, 8, &lay);
	tap_is_int(lay.count, 31, "reducescatter rounds down");
	tap_is_int(lay.size, 992, "reducescatter size after rounding");
	np_coll_layout(&np_colls[NP_COLL_ALLTOALL], 16, 4, 8, &lay);
	tap_is_int(lay.count, 0, "alltoall 16 B on 8 ranks rounds to 0 elements");

	tap_is_dbl(np_colls[NP_COLL_ALLREDUCE].busbw_factor(8), 1.75, 1e-12,
		   "allreduce factor 2(n-1)/n");
	tap_is_dbl(np_colls[NP_COLL_ALLGATHER].busbw_factor(8), 0.875, 1e-12,
		   "allgather factor (n-1)/n");
	tap_is_dbl(np_colls[NP_COLL_REDUCESCATTER].busbw_factor(4), 0.75, 1e-12,
		   "reducescatter factor");
	tap_is_dbl(np_colls[NP_COLL_ALLTOALL].busbw_factor(16), 15.0 / 16, 1e-12,
		   "alltoall factor");
	tap_is_dbl(np_colls[NP_COLL_BROADCAST].busbw_factor(8), 1, 1e-12, "broadcast factor 1");
	tap_is_dbl(np_colls[NP_COLL_REDUCE].busbw_factor(8), 1, 1e-12, "reduce factor 1");
	tap_is_dbl(np_colls[NP_COLL_SENDRECV].busbw_factor(8), 1, 1e-12, "sendrecv factor 1");
	tap_is_dbl(np_colls[NP_COLL_ALLREDUCE].busbw_factor(1), 0, 1e-12,
		   "allreduce on 1 rank moves no bus bytes");
	tap_is_dbl(np_algbw(1000000000, 0.5), 2.0, 1e-12, "algbw in GB/s of 1e9 bytes");
	bad_inputs();
	nccl_tests_options();
}

int main(void)
{
	basic_options();
	command_tables();
	check_and_factors();
	value_spellings();
	layouts();
	return tap_done();
}
