/* SPDX-License-Identifier: MIT */
/* nccl-probe: the command table and run_cmd(), which gives each command
 * what it needs (MPI) and checks that stdout was written cleanly. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mpi.h>

#include "../probes/nccl_log.h"
#include "cmds.h"
#include "msg.h"
#include "opts.h"

#define NEEDS_MPI 0x1u          /* always MPI_Init (singleton without mpirun) */
#define NEEDS_MPI_LAUNCHED 0x2u /* MPI_Init only when started by an MPI launcher */
#define NEEDS_NCCL_LOG 0x4u     /* may run NCCL: its log set up before any thread */

static const struct np_cmd {
	const char *name;
	int (*fn)(int argc, char **argv, int first, bool mpi);
	unsigned needs;
} commands[] = {
	{ "compare", cmd_compare, 0 },
	{ "isolate", cmd_isolate, NEEDS_MPI | NEEDS_NCCL_LOG },
	{ "sweep", cmd_sweep, NEEDS_MPI | NEEDS_NCCL_LOG },
	{ "topo", cmd_topo, NEEDS_MPI_LAUNCHED },
	{ "tune", cmd_tune, NEEDS_MPI | NEEDS_NCCL_LOG },
};

static bool mpi_launched(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
					    "PMI_SIZE", "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS" };

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]))
			return true;
	return false;
}

/* The launcher's idea of the job, from its environment: how many
 * processes it started (0 = no launcher variable says) and this one's rank
 * (-1 = unknown). MPI launchers' variables first; Slurm's only without
 * them, since mpirun under Slurm starts its daemons with srun and the
 * ranks inherit the daemons' step. */
struct launch {
	long size, rank;
	const char *size_var;
};

static long env_long(const char *name)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return -1;
	errno = 0;
	n = strtol(v, &end, 10);
	return *end || errno || n < 0 ? -1 : n;
}

/* Read before MPI_Init, which sets some of these variables itself (Open
 * MPI's singleton sets PMIX_RANK and OMPI_COMM_WORLD_SIZE). */
static struct launch launch_env;

static struct launch launcher(void)
{
	static const char *const mpi_vars[][2] = {
		{ "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK" },
		{ "PMI_SIZE", "PMI_RANK" },
		{ "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_RANK" },
	};
	struct launch l = { 0, -1, NULL };

	for (size_t i = 0; i < sizeof(mpi_vars) / sizeof(mpi_vars[0]); i++) {
		long n = env_long(mpi_vars[i][0]), r = env_long(mpi_vars[i][1]);
		if (r >= 0 && l.rank < 0)
			l.rank = r;
		if (n > 0 && !l.size_var) {
			l.size = n;
			l.size_var = mpi_vars[i][0];
		}
	}
	if (l.rank < 0)
		l.rank = env_long("PMIX_RANK");
	if (!l.size_var && getenv("SLURM_STEP_ID")) {
		long n = env_long("SLURM_STEP_NUM_TASKS");
		if (n > 0) {
			l.size = n;
			l.size_var = "SLURM_STEP_NUM_TASKS";
			if (l.rank < 0)
				l.rank = env_long("SLURM_PROCID");
		}
	}
	return l;
}

/* Messages before MPI is up: from the launcher's rank 0 alone (or from
 * every process when no launcher says which is which). */
static bool first_process(void)
{
	return launch_env.rank <= 0;
}

/* Ranks that each think they are alone (an mpirun of another MPI than the
 * one nccl-probe was built with, srun without the PMI this MPI uses): one
 * error from the launcher's rank 0 instead of N one-rank reports. */
static bool launch_mismatch(void)
{
	struct launch l = launch_env;
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
		fprintf(stderr, "error: the launcher started %ld processes (%s=%ld) but MPI gives each a world of 1 rank: nccl-probe is built with %s, not the MPI of this mpirun; launch it with the mpirun of %s (see 'mpirun --version'), or rebuild nccl-probe with this mpirun's mpicc\n",
			l.size, l.size_var, l.size, ver, ver);
	else
		fprintf(stderr, "error: srun started %ld processes (%s=%ld) but MPI gives each a world of 1 rank: %s, which nccl-probe is built with, did not find srun's PMI; give srun the --mpi plugin it uses (e.g. srun --mpi=pmix; see 'srun --mpi=list')\n",
			l.size, l.size_var, l.size, ver);
	fflush(stderr);
	return true;
}

static int run_cmd(const struct np_cmd *cmd, int argc, char **argv, int first)
{
	bool mpi = (cmd->needs & NEEDS_MPI) || ((cmd->needs & NEEDS_MPI_LAUNCHED) && mpi_launched());
	int code, provided = MPI_THREAD_SINGLE;

	if (cmd->needs & NEEDS_NCCL_LOG) {
		/* before MPI_Init: MPI, CUDA and NCCL start threads that read
		 * the environment, and setenv is not safe beside them */
		const char *log = np_nccl_log_setup(cmd->fn == cmd_tune);
		if (log)
			np_cleanup_add_scratch(log);
	}
	if (mpi) {
		/* FUNNELED: the watchdog thread, CUDA's and NCCL's run beside
		 * the main thread, which alone calls MPI (SINGLE would not
		 * allow them). Some MPI builds charge every call for it; the
		 * cost is measured by tests/bench/thread-level.sh and stated in
		 * the man page (BACKENDS) */
		if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
			fprintf(stderr, "error: MPI_Init failed; start nccl-probe with mpirun or check the MPI installation\n");
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
	}
	code = cmd->fn(argc, argv, first, mpi);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		np_rank_error("cannot write to standard output: %s", strerror(errno));
		if (code == 0)
			code = NP_EXIT_RUNTIME;
	}
	if (mpi)
		np_exit(code);
	return code;
}

static const struct np_cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static const struct np_option *find_option(const char *a)
{
	for (size_t i = 0; i < np_options_count; i++) {
		const struct np_option *o = &np_options[i];
		size_t n = strlen(o->name);
		if (a[0] == '-' && a[1] == '-' && !strncmp(a + 2, o->name, n) && (a[2 + n] == '\0' || a[2 + n] == '='))
			return o;
		if (a[0] == '-' && a[1] && a[1] != '-' && a[1] == o->short_name)
			return o;
	}
	return NULL;
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
			return find_cmd(a) || !strcmp(a, "help") || !strcmp(a, "version") ? i : 0;
		o = find_option(a);
		/* a value in the next word: --opt VALUE, -o VALUE (not -oVALUE,
		 * --opt=VALUE, or an optional value) */
		if (o && o->arg && o->kind != NP_OPT_OPTARG && !strchr(a, '=') && (a[1] == '-' || !a[2]))
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
	unsigned mask = NP_CMD_SWEEP;
	char page[64];
	pid_t pid;
	int st = 0;

	if (argc > 3) {
		fprintf(stderr, "error: 'help' takes one command name; use 'nccl-probe help [COMMAND]'\n");
		return NP_EXIT_USAGE;
	}
	if (name && !find_cmd(name)) {
		fprintf(stderr, "error: unknown command '%s'; use 'sweep', 'topo', 'isolate', 'compare' or 'tune'\n", name);
		return NP_EXIT_USAGE;
	}
	if (!name) {
		np_opts_usage(stdout, NP_CMD_SWEEP);
		return 0;
	}
	mask = !strcmp(name, "topo") ? NP_CMD_TOPO : !strcmp(name, "isolate") ? NP_CMD_ISOLATE
	     : !strcmp(name, "compare") ? NP_CMD_COMPARE : !strcmp(name, "tune") ? NP_CMD_TUNE : NP_CMD_SWEEP;
	snprintf(page, sizeof(page), mask == NP_CMD_SWEEP ? "nccl-probe" : "nccl-probe-%s", name);
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
	np_opts_usage(stdout, mask);
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = "sweep";
	int first = 1, at;

	launch_env = launcher();
	if (argc > 1 && !strcmp(argv[1], "help"))
		return help_cmd(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "version")) {
		/* the sweep's --version, which says what this build can run */
		char *v[] = { argv[0], "--version", NULL };
		if (argc > 2) {
			fprintf(stderr, "error: 'version' takes no argument\n");
			return NP_EXIT_USAGE;
		}
		return run_cmd(find_cmd("sweep"), 2, v, 1);
	}
	if (argc > 1 && argv[1][0] == '-' && (at = command_after_options(argc, argv)) > 0) {
		if (first_process()) {
			fprintf(stderr, "error: the command goes first, then its options: 'nccl-probe %s", argv[at]);
			for (int i = 1; i < argc; i++)
				if (i != at)
					fprintf(stderr, " %s", argv[i]);
			fprintf(stderr, "'\n");
		}
		return NP_EXIT_USAGE;
	}
	if (argc > 1 && argv[1][0] != '-') {
		name = argv[1];
		first = 2;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return run_cmd(&commands[i], argc, argv, first);
	if (first_process())
		fprintf(stderr, "error: unknown command '%s'; use 'sweep', 'topo', 'isolate', 'compare' or 'tune' (see 'nccl-probe --help')\n",
			name);
	return NP_EXIT_USAGE;
}
