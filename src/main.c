/* SPDX-License-Identifier: MIT */
/* nccl-probe: dispatch through the command table (src/cmds.h) and
 * run_cmd(), which gives each command
 * what it needs (MPI, the watchdog, the world and its virtual nodes, the
 * backend, NCCL's log; --help and --version) and checks that stdout was
 * written cleanly. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mpi.h>

#include "../common/testhooks.h"
#include "../probes/nccl_log.h"
#include "../common/printable.h"
#include "cmds.h"
#include "launch.h"
#include "measure.h"
#include "msg.h"
#include "opts.h"
#include "version.h"
#include "watchdog.h"

/* Read before MPI_Init: a process-wide fact of how it was started */
static struct np_launch launch_env;

/* Messages before MPI is up: from the launcher's rank 0 alone (or from
 * every process when no launcher says which is which). */
static bool first_process(void) { return launch_env.rank <= 0; }

/* Ranks that each think they are alone (an mpirun of another MPI than the
 * one nccl-probe was built with, srun without the PMI this MPI uses): one
 * error from the launcher's rank 0 instead of N one-rank reports. */
static bool launch_mismatch(void)
{
	struct np_launch l = launch_env;
	char ver[MPI_MAX_LIBRARY_VERSION_STRING], *nl;
	int len = 0;

	if (np_msg_size != 1 || l.size <= 1)
		return false;
	if (l.rank > 0)
		return true;
	MPI_Get_library_version(ver, &len);
	if ((nl = strchr(ver, '\n')))
		*nl = '\0';
	if ((nl = strchr(ver, ',')))
		*nl = '\0';
	if (strncmp(l.size_var, "SLURM", 5))
		fprintf(stderr,
			"error: the launcher started %ld processes (%s=%ld) but MPI gives each a world of 1 rank: nccl-probe is built with %s, not the MPI of this mpirun; launch it with the mpirun of %s (see 'mpirun --version'), or rebuild nccl-probe with this mpirun's mpicc\n",
			l.size, l.size_var, l.size, ver, ver);
	else
		fprintf(stderr,
			"error: srun started %ld processes (%s=%ld) but MPI gives each a world of 1 rank: %s, which nccl-probe is built with, did not find srun's PMI; give srun the --mpi plugin it uses (e.g. srun --mpi=pmix; see 'srun --mpi=list')\n",
			l.size, l.size_var, l.size, ver);
	fflush(stderr);
	return true;
}

/* MPI up when the command needs it (before any other thread starts) */
static int start_mpi(const struct np_cmd *cmd, int *argc, char ***argv, bool *mpi)
{
	int provided = MPI_THREAD_SINGLE;

	*mpi = (cmd->needs & NP_NEEDS_MPI) ||
	       ((cmd->needs & NP_NEEDS_MPI_LAUNCHED) && launch_env.launched);
	if (cmd->needs & NP_NEEDS_NCCL_LOG) {
		/* before MPI_Init: MPI, CUDA and NCCL start threads that read
		 * the environment, and setenv is not safe beside them */
		const char *log = np_nccl_log_setup(cmd->needs & NP_NEEDS_TRIES);
		if (log)
			np_cleanup_add_scratch(log);
	}
	if (!*mpi)
		return 0;
	/* FUNNELED: the watchdog thread, CUDA's and NCCL's run beside the
	 * main thread, which alone calls MPI (SINGLE would not allow them).
	 * Some MPI builds charge every call for it; the cost is measured by
	 * tests/bench/thread-level.sh and stated in the man page (BACKENDS) */
	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
		fprintf(stderr,
			"error: MPI_Init failed; start nccl-probe with mpirun or check the MPI installation\n");
		return NP_EXIT_RUNTIME;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &np_msg_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np_msg_size);
	if (gethostname(np_msg_host, sizeof(np_msg_host)) != 0)
		strcpy(np_msg_host, "unknown");
	np_msg_host[sizeof(np_msg_host) - 1] = '\0';
	if (launch_mismatch())
		np_exit(NP_EXIT_RUNTIME);
	if (provided < MPI_THREAD_FUNNELED)
		np_warn("this MPI provides thread level %d, below MPI_THREAD_FUNNELED; only the main thread calls MPI, but other threads run",
			provided);
	return 0;
}

/* --version, for every command: the sweep's says what this build can
 * run, topo's and compare's name their document's schema */
static void print_version(const struct np_cmd *cmd)
{
	printf("nccl-probe %s", PACKAGE_VERSION);
	if (cmd->schema)
		printf(" (%s schema %s %d)", cmd->name, cmd->schema, cmd->schema_version);
	printf("\n");
	if (cmd != np_commands[0])
		return;
#ifdef HAVE_NCCL
	printf("nccl backend: yes\n");
	printf("cuda targets: %s\n", NP_CUDA_TARGETS);
#else
	printf("nccl backend: no\n");
#endif
	printf("test switches: %s\n", np_test_hooks_built() ? "yes" : "no");
}

/* The world and the checks that every rank makes alike: the files named
 * (which may differ between hosts) and the command's own, agreed; then
 * the virtual nodes of --ranks-per-node */
static void start_world(const struct np_cmd *cmd, struct np_run *run)
{
	struct np_err err = { 0 };
	enum np_status st;

	if (cmd->needs & NP_NEEDS_WATCHDOG)
		np_watchdog_startup(run->o.timeout, launch_env.local_size,
				    &run->test); /* from here on a rank that stops is named */
	if (np_world_init(&run->w, 0, &err))
		np_abort_err(&err);
	run->world_up = true;
	if (np_opts_check_world(&run->o, run->w.size, &err))
		np_die(NP_EXIT_USAGE, "%s", err.msg);
	np_watchdog_arm("checking the files named");
	st = np_opts_check_files(&run->o, &err);
	np_watchdog_arrive(run->w.comm, "the end of checking the files named");
	np_world_usage_agree(&run->w, st, &err);
	if (cmd->check) /* may be collective: after the files, on every rank */
		np_world_usage_agree(&run->w, cmd->check(run, &err), &err);
	if ((cmd->needs & NP_NEEDS_VNODES) && run->o.ranks_per_node) {
		np_watchdog_arrive(run->w.comm, "setting up virtual nodes");
		np_world_release(&run->w);
		if (np_world_init(&run->w, run->o.ranks_per_node, &err))
			np_abort_err(&err);
	}
}

/* topo under mpirun: a world of its own rules (no watchdog; its files
 * checked on each rank at parsing; virtual nodes at once) */
static int start_topo_world(struct np_run *run)
{
	struct np_err err = { 0 };
	int size = 0;

	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (np_opts_check_world(&run->o, size, &err)) {
		np_error("%s", err.msg);
		return NP_EXIT_USAGE;
	}
	if (np_world_init(&run->w, run->o.ranks_per_node, &err)) {
		np_rank_error("%s", err.msg);
		np_abort(NP_EXIT_RUNTIME, "cannot set up the MPI world");
	}
	run->world_up = true;
	return 0;
}

/* --backend, agreed over the world: auto takes NCCL only where every rank
 * sees a GPU (only auto asks: --backend mpi leaves CUDA uninitialized) */
static void choose_backend(struct np_run *run)
{
	struct np_err err = { 0 };
	int gpus = 0;

	np_watchdog_arm("looking for GPUs");
	if (!strcmp(run->o.backend, "auto"))
		gpus = np_backend_device_visible();
	np_watchdog_arrive(run->w.comm, "the end of looking for GPUs");
	MPI_Allreduce(MPI_IN_PLACE, &gpus, 1, MPI_INT, MPI_MIN, run->w.comm);
	if (np_backend_select(run->o.backend, gpus > 0, &run->ops, run->backend_why,
			      sizeof(run->backend_why), &err))
		np_die(np_status_exit(err.status), "%s", err.msg);
}

/* Parse (pure: every rank gets the same options or the same error), then
 * --help and --version, then what the command needs. Returns -1 to go on
 * to the command, else the exit code. */
static int start_up(const struct np_cmd *cmd, struct np_run *run)
{
	struct np_err err = { 0 };
	bool help, version, speak = !(cmd->needs & NP_NEEDS_MPI) || np_msg_rank == 0;

	if (np_opts_parse(&run->o, cmd, run->argc, run->argv, run->first, &help, &version, &err) ||
	    (!(cmd->needs & NP_NEEDS_WORLD) && !help && !version &&
	     np_opts_check_files(&run->o, &err))) {
		np_error("%s", err.msg);
		return NP_EXIT_USAGE;
	}
	if (help || version) {
		if (speak && help)
			np_opts_usage(stdout, cmd);
		else if (speak)
			print_version(cmd);
		return 0;
	}
	np_run_record_init(&run->rec, run->argc, run->argv);
	np_test_plan_read(&run->test);
	if (!(cmd->needs & NP_NEEDS_WORLD)) {
		if (!run->mpi)
			return -1;
		return start_topo_world(run) ? NP_EXIT_USAGE : -1;
	}
	start_world(cmd, run);
	if (cmd->needs & NP_NEEDS_BACKEND)
		choose_backend(run);
	return -1;
}

/* A process that no launcher started: its options parsed before MPI, so
 * that --help, --version and a usage error answer without MPI's start-up
 * (a singleton's daemon: 0.4 s). Returns -1 to go on (start_up parses
 * them again, as under a launcher), else the exit code. */
static int answer_alone(const struct np_cmd *cmd, int argc, char **argv, int first)
{
	struct np_opts o;
	struct np_err err = { 0 };
	bool help, version;

	if (np_opts_parse(&o, cmd, argc, argv, first, &help, &version, &err)) {
		np_error("%s", err.msg);
		return NP_EXIT_USAGE;
	}
	if (!help && !version)
		return -1;
	if (help)
		np_opts_usage(stdout, cmd);
	else
		print_version(cmd);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		np_rank_error("cannot write to standard output: %s", strerror(errno));
		return NP_EXIT_RUNTIME;
	}
	return 0;
}

static int run_cmd(const struct np_cmd *cmd, int argc, char **argv, int first)
{
	static struct np_run run;
	int code;

	run.t0 = np_now_s();
	if (!launch_env.launched && (code = answer_alone(cmd, argc, argv, first)) >= 0)
		return code;
	if ((code = start_mpi(cmd, &argc, &argv, &run.mpi)))
		return code;
	run.argc = argc;
	run.argv = argv;
	run.first = first;
	code = start_up(cmd, &run);
	if (code < 0)
		code = cmd->fn(&run);
	if (run.world_up)
		np_world_release(&run.w);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		np_rank_error("cannot write to standard output: %s", strerror(errno));
		if (code == 0)
			code = NP_EXIT_RUNTIME;
	}
	if (run.mpi)
		np_exit(code);
	return code;
}

/* Options before the command name ('nccl-probe --ranks-per-node 1 tune'):
 * the command goes first; one line with the words in their order. Returns
 * the index of the command word after options, 0 when there is none. */
static int command_after_options(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct np_option *o;
		if (!strcmp(a, "--"))
			return 0;
		if (a[0] != '-' || !a[1])
			return np_cmd_find(a) || !strcmp(a, "help") || !strcmp(a, "version") ? i
											     : 0;
		o = np_cmd_any_option(a);
		/* a value in the next word: --opt VALUE, -o VALUE (not -oVALUE,
		 * --opt=VALUE, or an optional value) */
		if (o && o->arg && o->kind != NP_OPT_OPTARG && !strchr(a, '=') &&
		    (a[1] == '-' || !a[2]))
			i++;
	}
	return 0;
}

/* nccl-probe help [COMMAND]: the command's page (man nccl-probe-COMMAND,
 * nccl-probe(1) for the sweep), or its --help where man or the page is
 * missing */
static int help_cmd(int argc, char **argv)
{
	const char *name = argc > 2 ? argv[2] : NULL;
	const struct np_cmd *cmd;
	char page[64];
	pid_t pid;
	int st = 0;

	if (argc > 3) {
		fprintf(stderr,
			"error: 'help' takes one command name; use 'nccl-probe help [COMMAND]'\n");
		return NP_EXIT_USAGE;
	}
	if (name && !np_cmd_find(name)) {
		char safe[256], names[128];
		fprintf(stderr, "error: unknown command '%s'; use %s\n",
			np_printable(safe, sizeof(safe), name), np_cmd_names(names, sizeof(names)));
		return NP_EXIT_USAGE;
	}
	if (!name) {
		np_opts_usage(stdout, np_commands[0]);
		return 0;
	}
	cmd = np_cmd_find(name);
	np_cmd_page(cmd, page, sizeof(page));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* man's own complaint about a missing page is not the user's */
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		execlp("man", "man", page, (char *)NULL);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	np_opts_usage(stdout, cmd);
	return 0;
}

/* The end of a usage error found before any command starts (an unknown
 * command, the command after its options), which the first process has
 * said: where a launcher started several processes, each meets the
 * others in MPI before it ends. A launcher ends the whole job at the
 * first process that exits non-zero, and a process that had nothing to
 * say ended before the first one's line was out: under mpirun -np 3 on a
 * busy 2-core host, 'nccl-probe bogus' printed nothing in 9 of 40. */
static int early_usage_end(void)
{
	if (launch_env.launched && launch_env.size > 1 && MPI_Init(NULL, NULL) == MPI_SUCCESS) {
		MPI_Barrier(MPI_COMM_WORLD);
		np_exit(NP_EXIT_USAGE);
	}
	return NP_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const char *name = np_commands[0]->name;
	int first = 1, at;

	np_launch_read(&launch_env);
	/* called as all_reduce_perf and the like: the sweep, as nccl-tests'
	 * binary (src/opts_parse.c); every argument is an option */
	if (argc > 0 && np_coll_by_program(argv[0]))
		return run_cmd(np_commands[0], argc, argv, 1);
	if (argc > 1 && !strcmp(argv[1], "help"))
		return help_cmd(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "version")) {
		/* the sweep's --version, which says what this build can run */
		if (argc > 2) {
			fprintf(stderr, "error: 'version' takes no argument\n");
			return NP_EXIT_USAGE;
		}
		if (first_process())
			print_version(np_commands[0]);
		return fflush(stdout) != 0 || ferror(stdout) ? NP_EXIT_RUNTIME : 0;
	}
	if (argc > 1 && argv[1][0] == '-' && (at = command_after_options(argc, argv)) > 0) {
		if (first_process()) {
			fputs("error: the command goes first, then its options: 'nccl-probe ",
			      stderr);
			np_fputs_printable(stderr, argv[at]);
			for (int i = 1; i < argc; i++)
				if (i != at) {
					fputc(' ', stderr);
					np_fputs_printable(stderr, argv[i]);
				}
			fprintf(stderr, "'\n");
		}
		return early_usage_end();
	}
	if (argc > 1 && argv[1][0] != '-') {
		name = argv[1];
		first = 2;
	}
	if (np_cmd_find(name))
		return run_cmd(np_cmd_find(name), argc, argv, first);
	if (first_process()) {
		char safe[256], names[128];
		fprintf(stderr, "error: unknown command '%s'; use %s (see 'nccl-probe --help')\n",
			np_printable(safe, sizeof(safe), name), np_cmd_names(names, sizeof(names)));
	}
	return early_usage_end();
}
