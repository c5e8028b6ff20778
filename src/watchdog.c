/* SPDX-License-Identifier: MIT */
/* Watchdog thread and arrival checks (see watchdog.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../common/number.h"
#include "../common/testhooks.h"
#include "msg.h"
#include "watchdog.h"
#include "world.h"

#define ARRIVE_TAG 20048 /* below MPI's smallest allowed MPI_TAG_UB (32767) */
#define MAX_NAMED 8      /* ranks named in one message */
#define TICK_NS 50000000 /* the thread looks for a signal this often */
/* waitpid's form of a status: exited (not killed by a signal) */
#define WIFEXITED_(st) (((st)&0x7f) == 0)
/* A peer that ended within this long after this rank's signal ended
 * before the launcher's stop could reach it: its end is its own */
#define SIG_WINDOW_NS 150000000
/* After SIGINT or SIGTERM, how long the main thread has to reach its next
 * decision between batches before the thread ends the run itself. mpirun
 * follows its SIGTERM with SIGKILL a second later, and kills every rank
 * at once when one exits: rank 0, which writes the report, goes first;
 * the others remove their temporaries and wait for it before they exit. */
#define TAKEOVER_NS 200000000
#define TAKEOVER_OTHERS_NS 600000000

/* Process-wide: the signal the handler caught (a handler has no state) */
volatile sig_atomic_t np_signal;
/* Process-wide, as np_signal: when it came (CLOCK_MONOTONIC ns, read in
 * the handler: the thread may see it late on a loaded host). An atomic,
 * not a volatile: C11 allows a handler to store to a lock-free atomic
 * object, and a 64-bit volatile store may tear on a 32-bit host */
static _Atomic int_least64_t sig_at;

/* Process-wide: the one watchdog thread of the process, which the signal
 * handlers and every command's steps share */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool running, stop, armed;
	double timeout;
	int64_t deadline; /* ns on CLOCK_MONOTONIC */
	int64_t step_t0;  /* when the step in wd.what began */
	bool everyone;    /* every rank of the step's communicator arrived */
	char what[256];
	struct np_backend *be;
	int64_t sig_seen; /* when the thread saw np_signal, 0 not yet */
	bool sig_taken;   /* the main thread reached a decision after it */
	void (*takeover)(void *arg, int sig, int code, const char *why);
	void *takeover_arg;
	void (*on_hang)(void *arg); /* rank 0: the report of the rows that finished */
	void *on_hang_arg;
	bool soft, fired; /* np_watchdog_soft; a soft deadline fired */
} wd = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* What a rank sends when it arrives. */
struct arrival {
	int wrank;
	int local_size; /* ranks the launcher started on its host, 0 unknown */
	char host[NP_HOSTLEN];
};

/* Process-wide, as wd: the arrivals of this process's steps */
static struct {
	struct arrival out[2]; /* to rank 0, and rank 0's to rank 1 */
	MPI_Request sreq[2];
	struct arrival *in; /* receive buffers, one per rank of comm */
	MPI_Request *rreq;
	int cap;
	char (*hosts)[NP_HOSTLEN]; /* by world rank, as last reported; "" unknown */
	int *lsize;                /* by world rank: its host's local size, 0 unknown */
	int nworld;
	int local_size; /* this host's, from the launcher (launch.h) */
} ar = { .sreq = { MPI_REQUEST_NULL, MPI_REQUEST_NULL } };

/* The other ranks on this host, watched by the thread: one that ends
 * (SIGKILL from the OOM killer, a crash) is named here, by the lowest
 * rank of the host still alive, instead of as a timeout or a signal. */
#define MAX_PEERS 512
/* Process-wide, as wd: the processes of this host, watched by its thread */
static struct {
	int n;
	int wrank[MAX_PEERS], pid[MAX_PEERS];
	unsigned long long start[MAX_PEERS]; /* /proc starttime: a reused pid is not the rank */
	bool gone[MAX_PEERS];
	int64_t gone_at[MAX_PEERS]; /* when it was seen gone */
	int status[MAX_PEERS];      /* waitpid's form, -1 unknown (reaped before it was read) */
	int named;                  /* the peer named, + 1; 0 none */
	int64_t named_at;
	int pidfd[MAX_PEERS]; /* readable when the peer ends; -1 none */
	pthread_t thread;     /* waits on them, to read a zombie before its reaper */
	bool thread_on;
	volatile bool stop;
} peers;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Process pid's state from /proc/<pid>/stat: 'Z' a zombie (its status
 * in *status), 0 gone, else the state letter; *start its start time.
 * Read directly, not through NCCL_PROBE_FSROOT: these are this job's
 * processes on this machine, not facts of the machine described. */
static int proc_state(int pid, unsigned long long *start, int *status)
{
	char path[64], buf[1024], *p, *f[64];
	uint64_t starttime;
	ssize_t len;
	int fd, n = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	if (!(p = strrchr(buf, ')')))
		return 0;
	/* after "pid (comm)": field 3 (state) is f[0], 22 (starttime) f[19],
	 * 52 (exit_code, Linux 3.5) f[49] */
	for (char *t = strtok(p + 1, " \n"); t && n < 64; t = strtok(NULL, " \n"))
		f[n++] = t;
	if (n < 20)
		return 0;
	/* a field that is no number (a kernel of another format) is 0, the
	 * start unknown, as the status is -1, not garbage */
	*start = np_parse_u64(f[19], 10, 0, UINT64_MAX, &starttime) ? starttime : 0;
	if (n <= 49 || !np_parse_i32(f[49], 10, INT32_MIN, INT32_MAX, status))
		*status = -1;
	return f[0][0];
}

static void peers_check(void);

/* The peers' thread: woken the moment a peer ends (pidfd), it reads
 * the zombie's status before the launcher reaps it, most of the time;
 * the watchdog's tick is the fallback. */
static void *peers_loop(void *arg)
{
	struct pollfd pf[MAX_PEERS];

	(void)arg;
	while (!peers.stop) {
		int m = 0;
		pthread_mutex_lock(&wd.lock);
		for (int i = 0; i < peers.n; i++)
			if (!peers.gone[i] && peers.pidfd[i] >= 0) {
				pf[m].fd = peers.pidfd[i];
				pf[m].events = POLLIN;
				pf[m].revents = 0;
				m++;
			}
		pthread_mutex_unlock(&wd.lock);
		if (!m)
			break;
		if (poll(pf, (nfds_t)m, 100) > 0) {
			pthread_mutex_lock(&wd.lock);
			peers_check();
			pthread_cond_signal(&wd.cond);
			pthread_mutex_unlock(&wd.lock);
		}
	}
	return NULL;
}

static void peers_pidfds(void)
{
	bool any = false;

	for (int i = 0; i < peers.n; i++) {
		peers.pidfd[i] = -1;
#ifdef SYS_pidfd_open
		peers.pidfd[i] = (int)syscall(SYS_pidfd_open, (pid_t)peers.pid[i], 0);
		if (peers.pidfd[i] < 0)
			peers.pidfd[i] = -1;
		else
			any = true;
#endif
	}
	peers.stop = false;
	if (any && pthread_create(&peers.thread, NULL, peers_loop, NULL) == 0)
		peers.thread_on = true;
}

static void peers_release(void)
{
	if (peers.thread_on) {
		peers.stop = true;
		pthread_join(peers.thread, NULL);
		peers.thread_on = false;
	}
	for (int i = 0; i < peers.n; i++)
		if (peers.pidfd[i] >= 0) {
			close(peers.pidfd[i]);
			peers.pidfd[i] = -1;
		}
	peers.n = 0;
}

/* The peers gathered at start-up: every rank's host and pid. */
static void peers_gather(void)
{
	struct {
		int pid;
		char host[NP_HOSTLEN];
	} me, *all;
	int n = 0;

	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (n < 2)
		return;
	memset(&me, 0, sizeof(me));
	me.pid = (int)getpid();
	snprintf(me.host, sizeof(me.host), "%.*s", NP_HOSTLEN - 1, np_msg_host);
	if (!(all = calloc((size_t)n, sizeof(*all))))
		np_abort(NP_EXIT_RUNTIME, "out of memory for %d ranks' host names", n);
	MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE,
		      MPI_COMM_WORLD);
	pthread_mutex_lock(&wd.lock);
	peers.n = 0;
	for (int r = 0; r < n && peers.n < MAX_PEERS; r++) {
		int st;
		all[r].host[NP_HOSTLEN - 1] = '\0';
		if (r == np_msg_rank || strcmp(all[r].host, me.host) || all[r].pid <= 0)
			continue;
		peers.wrank[peers.n] = r;
		peers.pid[peers.n] = all[r].pid;
		peers.gone[peers.n] = false;
		if (proc_state(all[r].pid, &peers.start[peers.n], &st) == 0)
			continue; /* another mount of /proc, or it has ended already */
		peers.n++;
	}
	pthread_mutex_unlock(&wd.lock);
	free(all);
	peers_pidfds();
}

/* Look at the peers (wd.lock held); the first that ended before this
 * rank was told to stop is named, once, by the lowest rank alive here.
 * A peer that exited with a status of its own said why itself. */
static void peers_check(void)
{
	int first = -1;

	if (!peers.n || np_exiting)
		return;
	for (int i = 0; i < peers.n; i++) {
		unsigned long long start = 0;
		int st = -1, state;
		if (peers.gone[i])
			continue;
		state = proc_state(peers.pid[i], &start, &st);
		if (state != 0 && state != 'Z' && state != 'X' && start == peers.start[i])
			continue;
		peers.gone[i] = true;
		peers.gone_at[i] = now_ns();
		peers.status[i] =
			(state == 'Z' || state == 'X') && start == peers.start[i] ? st : -1;
		if (first < 0)
			first = i;
	}
	/* after the launcher's signal, the ranks it stops end too: only a
	 * peer seen gone within 150 ms of it (before any could) is named */
	if (first < 0 || peers.named || (np_signal && sig_at && now_ns() - sig_at > SIG_WINDOW_NS))
		return;
	/* a status of its own (exit 3 after its error message): not ours to
	 * name; after a signal to this job, only a peer killed by a signal
	 * other than the launcher's SIGTERM or SIGINT is */
	if (peers.status[first] >= 0 && WIFEXITED_(peers.status[first]))
		return;
	if (np_signal && (peers.status[first] < 0 || (peers.status[first] & 0x7f) == SIGTERM ||
			  (peers.status[first] & 0x7f) == SIGINT))
		return;
	for (int i = 0; i < peers.n; i++)
		if (!peers.gone[i] && peers.wrank[i] < np_msg_rank)
			return; /* a lower rank alive here speaks */
	peers.named = first + 1;
	peers.named_at = now_ns();
	if (peers.status[first] >= 0) {
		int sig = peers.status[first] & 0x7f;
		np_rank_error(
			"rank %d on '%s' (pid %d) was killed by signal %d (%s%s) during %s; the job cannot "
			"finish without it: ending it with exit 3",
			peers.wrank[first], np_msg_host, peers.pid[first], sig, np_signal_name(sig),
			sig == SIGKILL
				? ", as the kernel's OOM killer sends: see 'journalctl -k' on that node"
				: "",
			wd.what[0] ? wd.what : "start-up");
	} else {
		np_rank_error(
			"rank %d on '%s' (pid %d) ended during %s without finishing (its exit status was "
			"reaped before it could be read): unless it printed an error above, it was killed, "
			"e.g. SIGKILL from the kernel's OOM killer (see 'journalctl -k' on that node), or it "
			"crashed; ending the job with exit 3",
			peers.wrank[first], np_msg_host, peers.pid[first],
			wd.what[0] ? wd.what : "start-up");
	}
}

static _Noreturn void fire(void)
{
	char what[256];
	struct np_backend *be;
	bool everyone = wd.everyone;

	void (*on_hang)(void *) = wd.on_hang;
	void *hang_arg = wd.on_hang_arg;

	snprintf(what, sizeof(what), "%s", wd.what);
	be = wd.be;
	pthread_mutex_unlock(&wd.lock);
	if (everyone)
		np_rank_error(
			"%s did not finish within %g s (--timeout) although every rank started it: "
			"a GPU, a link or the network hangs inside it; aborting the job with exit 4: "
			"run 'nccl-probe topo' on the job's nodes",
			what, wd.timeout);
	else
		np_rank_error(
			"%s did not finish within %g s (--timeout); aborting the job with exit 4: "
			"look for a stalled or failed rank, or run 'nccl-probe topo' on this node",
			what, wd.timeout);
	/* the rows that finished, written before the backend is aborted (the
	 * main thread stays in its collective until then) */
	if (on_hang && np_msg_rank <= 0)
		on_hang(hang_arg);
	if (be && be->ops && be->ops->abort)
		be->ops->abort(be);
	np_cleanup();
	fflush(stdout);
	fflush(stderr);
	_exit(NP_EXIT_TIMEOUT);
}

/* Why the job ends, as far as this rank can tell, when the launcher's
 * signal comes while the main thread is stuck (wd.lock held): the step
 * outlived --timeout (another rank's watchdog or arrival check ended the
 * job with exit 4: a stalled rank 0 cannot hear it), or a rank on this
 * host ended under the job (exit 3, as its message says, or the code it
 * exited with after its own error); else an interrupt (130). why: the
 * sentence for the report; for 130, the rank on this host that was
 * interrupted first, or "" when the signal was this rank's own. */
static int end_code(char *why, size_t len)
{
	int64_t now = now_ns();

	if (wd.armed && wd.timeout > 0 && now - wd.step_t0 >= (int64_t)(wd.timeout * 1e9)) {
		/* stuck in that step, or stalled before the next one */
		snprintf(why, len, "timed out (--timeout %g s, exit 4) in or after %s", wd.timeout,
			 wd.what);
		return NP_EXIT_TIMEOUT;
	}
	for (int i = 0; i < peers.n; i++) {
		int st = peers.status[i];
		/* gone before the signal (or within 150 ms of it, before the
		 * launcher's stop could end it), not by its own exit status
		 * nor by the launcher's SIGTERM or SIGINT */
		if (!peers.gone[i] || (sig_at && peers.gone_at[i] - sig_at > SIG_WINDOW_NS) ||
		    (st >= 0 && !WIFEXITED_(st) &&
		     ((st & 0x7f) == SIGTERM || (st & 0x7f) == SIGINT)))
			continue;
		if (st >= 0 && WIFEXITED_(st)) {
			int c = (st >> 8) & 0xff;
			if (c == 0)
				continue;
			/* interrupted alone (a signal to that rank, which ended
			 * before the ranks could agree to stop): the launcher's
			 * signal here followed it; still an interrupt */
			if (c == NP_EXIT_INTERRUPTED) {
				if (!*why)
					snprintf(why, len,
						 "rank %d (pid %d) was interrupted (exit 130) during %s",
						 peers.wrank[i], peers.pid[i],
						 wd.what[0] ? wd.what : "start-up");
				continue;
			}
			/* an error of its own, said above: the job ends with its code */
			snprintf(why, len,
				 "rank %d (pid %d) ended with exit %d during %s (its error is above)",
				 peers.wrank[i], peers.pid[i], c,
				 wd.what[0] ? wd.what : "start-up");
			return c;
		}
		if (st >= 0)
			snprintf(why, len,
				 "rank %d (pid %d) was killed by signal %d (%s) during %s: exit 3",
				 peers.wrank[i], peers.pid[i], st & 0x7f, np_signal_name(st & 0x7f),
				 wd.what[0] ? wd.what : "start-up");
		else
			snprintf(why, len,
				 "rank %d (pid %d) ended during %s without finishing: exit 3",
				 peers.wrank[i], peers.pid[i], wd.what[0] ? wd.what : "start-up");
		return NP_EXIT_RUNTIME;
	}
	return NP_EXIT_INTERRUPTED;
}

/* A signal the main thread did not get to: it is stuck (a stalled
 * collective). End the run as an interrupt would: the takeover (rank 0
 * writes the report of the rows that finished) or a quiet exit. */
static _Noreturn void take_over(int sig)
{
	void (*fn)(void *, int, int, const char *) = wd.takeover;
	void *arg = wd.takeover_arg;
	char why[512] = "";
	int code = end_code(why, sizeof(why));

	pthread_mutex_unlock(&wd.lock);
	if (np_exiting) { /* ending anyway (an error, MPI_Finalize): quietly */
		np_cleanup();
		_exit(np_exiting - 1);
	}
	if (np_msg_rank > 0) {
		struct timespec ts = { 0, 300000000 };
		np_cleanup();
		nanosleep(&ts, NULL);
	}
	if (fn)
		fn(arg, sig, code, why);                   /* does not return */
	if (code != NP_EXIT_INTERRUPTED && !peers.named) { /* said by the rank that ended the job */
		np_cleanup();
		fflush(stdout);
		fflush(stderr);
		_exit(code);
	}
	if (peers.named) {
		np_error("the launcher ended the job (signal %d) after rank %d ended (above); nothing was measured",
			 sig, peers.wrank[peers.named - 1]);
		np_cleanup();
		fflush(stdout);
		fflush(stderr);
		_exit(NP_EXIT_RUNTIME);
	}
	if (*why)
		np_error(
			"interrupted by a signal on another rank before the first measurement: %s; "
			"nothing was measured",
			why);
	else
		np_error("interrupted by signal %d before the first measurement; nothing was measured",
			 sig);
	np_cleanup();
	fflush(stdout);
	fflush(stderr);
	_exit(NP_EXIT_INTERRUPTED);
}

static void *loop(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&wd.lock);
	while (!wd.stop) {
		struct timespec dl;
		int64_t now = now_ns(), wake = now + TICK_NS;
		int64_t grace = np_msg_rank > 0 ? TAKEOVER_OTHERS_NS : TAKEOVER_NS;
		peers_check();
		if (peers.named && !np_signal &&
		    now - peers.named_at >= (int64_t)(NP_WATCHDOG_GRACE * 1e9)) {
			/* the launcher did not end the job: this rank does */
			struct np_backend *be = wd.be;
			pthread_mutex_unlock(&wd.lock);
			if (be && be->ops && be->ops->abort)
				be->ops->abort(be);
			np_cleanup();
			fflush(stdout);
			fflush(stderr);
			_exit(NP_EXIT_RUNTIME);
		}
		if (np_signal && !wd.sig_taken) {
			if (!wd.sig_seen)
				wd.sig_seen = now;
			else if (now - wd.sig_seen >= grace)
				take_over((int)np_signal);
			if (wd.sig_seen + grace < wake)
				wake = wd.sig_seen + grace;
		}
		if (wd.armed && wd.timeout > 0) {
			if (now >= wd.deadline && wd.soft && !wd.fired && wd.be && wd.be->ops &&
			    wd.be->ops->abort) {
				struct np_backend *be = wd.be;
				wd.fired = true;
				wd.deadline =
					now + (int64_t)((wd.timeout + 2 * NP_WATCHDOG_GRACE) * 1e9);
				pthread_mutex_unlock(&wd.lock);
				be->ops->abort(be); /* the main thread's call returns */
				pthread_mutex_lock(&wd.lock);
				continue;
			}
			if (now >= wd.deadline)
				fire();
			if (wd.deadline < wake)
				wake = wd.deadline;
		}
		dl.tv_sec = (time_t)(wake / 1000000000);
		dl.tv_nsec = (long)(wake % 1000000000);
		pthread_cond_timedwait(&wd.cond, &wd.lock, &dl);
	}
	pthread_mutex_unlock(&wd.lock);
	return NULL;
}

static void on_signal(int sig)
{
	if (np_signal) { /* the second: stop now */
		np_cleanup();
		_exit(NP_EXIT_INTERRUPTED);
	}
	sig_at = now_ns(); /* clock_gettime: async-signal-safe */
	np_signal = sig;
	/* mpirun's SIGKILL may come before the thread acts: what no report
	 * needs goes now (on ranks other than 0, everything) */
	if (np_msg_rank > 0)
		np_cleanup();
	else
		np_cleanup_scratch();
}

void np_watchdog_on_hang(void (*fn)(void *arg), void *arg)
{
	pthread_mutex_lock(&wd.lock);
	wd.on_hang = fn;
	wd.on_hang_arg = arg;
	pthread_mutex_unlock(&wd.lock);
}

void np_watchdog_on_interrupt(void (*fn)(void *arg, int sig, int code, const char *why), void *arg)
{
	pthread_mutex_lock(&wd.lock);
	wd.takeover = fn;
	wd.takeover_arg = arg;
	pthread_mutex_unlock(&wd.lock);
}

bool np_watchdog_interrupted(void)
{
	if (!np_signal)
		return false;
	pthread_mutex_lock(&wd.lock);
	wd.sig_taken = true;
	pthread_mutex_unlock(&wd.lock);
	return true;
}

void np_watchdog_start(double timeout)
{
	pthread_condattr_t ca;
	struct sigaction sa;

	if (wd.running)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	wd.timeout = timeout > 0 ? timeout : 0;
	wd.stop = false;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wd.cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&wd.thread, NULL, loop, NULL) == 0)
		wd.running = true;
}

void np_watchdog_set_backend(struct np_backend *be)
{
	pthread_mutex_lock(&wd.lock);
	wd.be = be;
	pthread_mutex_unlock(&wd.lock);
}

/* Seconds that rank r of n waits beyond the timeout: the arrival checks
 * name a late rank at the timeout itself; then rank 0 speaks for the job
 * (a step that every rank started), the others only if it cannot. */
static double extra(int r, int n)
{
	if (n < 2)
		return 0;
	return r == 0 ? NP_WATCHDOG_GRACE / 2 : NP_WATCHDOG_GRACE;
}

/* Arm for what, due in timeout + extra seconds. */
NP_PRINTF(2, 0)
static void varm(double extra, const char *fmt, va_list ap)
{
	pthread_mutex_lock(&wd.lock);
	vsnprintf(wd.what, sizeof(wd.what), fmt, ap);
	wd.step_t0 = now_ns();
	wd.deadline = wd.step_t0 + (int64_t)((wd.timeout + extra) * 1e9);
	wd.everyone = false;
	wd.armed = true;
	pthread_cond_signal(&wd.cond);
	pthread_mutex_unlock(&wd.lock);
}

/* Without --timeout the step is only named, for the message about a rank
 * that ends under the job ("during allreduce of 1 MiB"). */
NP_PRINTF(1, 0)
static void vname(const char *fmt, va_list ap)
{
	pthread_mutex_lock(&wd.lock);
	vsnprintf(wd.what, sizeof(wd.what), fmt, ap);
	wd.step_t0 = now_ns();
	pthread_mutex_unlock(&wd.lock);
}

void np_watchdog_arm(const char *fmt, ...)
{
	va_list ap;

	if (!wd.running)
		return;
	va_start(ap, fmt);
	if (wd.timeout <= 0)
		vname(fmt, ap);
	else
		varm(extra(np_msg_rank, np_msg_size), fmt, ap);
	va_end(ap);
}

/* Where a rank that never reported is, by elimination: when every rank
 * not heard of fits the hosts that are short of the ranks their launcher
 * started there, and those are one host, that host; else NULL. */
static const char *host_by_elimination(void)
{
	int unheard = 0, short_by = 0, nshort = 0;
	const char *where = NULL;

	if (ar.nworld > 4096) /* quadratic: at most 16 M comparisons */
		return NULL;
	for (int r = 0; r < ar.nworld; r++) {
		int count = 0, want = 0;
		bool first = true;
		if (!ar.hosts[r][0]) {
			unheard++;
			continue;
		}
		/* each host once: at its lowest reported rank */
		for (int k = 0; k < ar.nworld; k++) {
			if (!ar.hosts[k][0] || strcmp(ar.hosts[k], ar.hosts[r]))
				continue;
			if (k < r)
				first = false;
			count++;
			if (ar.lsize[k] > want)
				want = ar.lsize[k];
		}
		if (!first || !want)
			continue;
		if (count < want) {
			short_by += want - count;
			nshort++;
			where = ar.hosts[r];
		}
	}
	return unheard > 0 && short_by == unheard && nshort == 1 ? where : NULL;
}

static void name_rank(char *buf, size_t len, int wrank)
{
	size_t off = strlen(buf);
	const char *guess;

	if (off >= len)
		return;
	if (wrank >= 0 && wrank < ar.nworld && ar.hosts[wrank][0])
		snprintf(buf + off, len - off, "%s%d on '%s'", off ? ", " : "", wrank,
			 ar.hosts[wrank]);
	else if ((guess = host_by_elimination()))
		snprintf(buf + off, len - off,
			 "%s%d on '%s' (it never reported: the one host short of the ranks its launcher started)",
			 off ? ", " : "", wrank, guess);
	else
		snprintf(buf + off, len - off, "%s%d (host unknown: it never reported)",
			 off ? ", " : "", wrank);
}

/* Rank 0 (rank 1) of comm: wait for the arrivals of ranks from..to-1
 * until the deadline; name those missing and abort the job. */
static void collect(MPI_Comm comm, int from, int to, int64_t deadline, const char *what)
{
	MPI_Group g, world;
	int m = to - from, pending = m, spins = 0, *idx, *wr;
	long sleep_ns = 1000;

	MPI_Comm_group(comm, &g);
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	idx = malloc((size_t)m * 2 * sizeof(int));
	if (!idx)
		np_abort(NP_EXIT_RUNTIME, "out of memory for %d arrivals", m);
	wr = idx + m;
	for (int i = 0; i < m; i++) {
		idx[i] = from + i;
		MPI_Irecv(&ar.in[i], (int)sizeof(ar.in[i]), MPI_BYTE, from + i, ARRIVE_TAG, comm,
			  &ar.rreq[i]);
	}
	/* world ranks, to name the missing */
	MPI_Group_translate_ranks(g, m, idx, world, wr);
	MPI_Group_free(&g);
	MPI_Group_free(&world);
	while (pending) {
		int count = 0;
		MPI_Testsome(m, ar.rreq, &count, idx, MPI_STATUSES_IGNORE);
		if (count == MPI_UNDEFINED)
			break;
		for (int k = 0; k < count; k++) {
			struct arrival *a = &ar.in[idx[k]];
			a->host[NP_HOSTLEN - 1] = '\0';
			if (a->wrank >= 0 && a->wrank < ar.nworld) {
				memcpy(ar.hosts[a->wrank], a->host, NP_HOSTLEN);
				ar.lsize[a->wrank] = a->local_size;
			}
			pending--;
		}
		if (!pending)
			break;
		if (now_ns() >= deadline) {
			char who[1024] = "";
			int missing = 0;
			for (int i = 0; i < m; i++) {
				if (ar.rreq[i] == MPI_REQUEST_NULL)
					continue;
				if (missing++ < MAX_NAMED)
					name_rank(who, sizeof(who), wr[i]);
			}
			if (np_msg_rank == 0 && wd.on_hang)
				wd.on_hang(wd.on_hang_arg); /* rank 0: the rows that finished */
			np_cleanup();
			np_abort_job(NP_EXIT_TIMEOUT,
				     "rank%s %s%s did not reach %s within %g s (--timeout) while the other "
				     "ranks waited: %s; aborting the job with exit 4: look at %s node, e.g. "
				     "run 'nccl-probe topo' there",
				     missing > 1 ? "s" : "", who,
				     missing > MAX_NAMED ? " and others" : "", what, wd.timeout,
				     missing > 1 ? "they stopped or hang before that step"
						 : "it stopped or hangs before that step",
				     missing > 1 ? "their" : "that rank's");
		}
		/* spin briefly, then sleep, growing to 200 us: a rank that waits
		 * here is not measuring, but it should not hold a core */
		if (spins < 64) {
			spins++;
			sched_yield();
		} else {
			struct timespec ts = { 0, sleep_ns };
			nanosleep(&ts, NULL);
			if (sleep_ns < 200000)
				sleep_ns *= 2;
		}
	}
	free(idx);
}

void np_watchdog_arrive(MPI_Comm comm, const char *fmt, ...)
{
	va_list ap;
	int n = 1, r = 0;
	int64_t t0;
	char what[256];

	if (!wd.running)
		return;
	if (wd.timeout <= 0) {
		va_start(ap, fmt);
		vname(fmt, ap);
		va_end(ap);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	MPI_Comm_size(comm, &n);
	MPI_Comm_rank(comm, &r);
	t0 = now_ns();
	/* while rank 0 and 1 collect, their own deadline waits longer: the
	 * collection names the late rank at the timeout itself */
	pthread_mutex_lock(&wd.lock);
	snprintf(wd.what, sizeof(wd.what), "%s", what);
	wd.step_t0 = t0;
	wd.deadline = t0 + (int64_t)((wd.timeout + NP_WATCHDOG_GRACE) * 1e9);
	wd.everyone = false;
	wd.armed = true;
	pthread_cond_signal(&wd.cond);
	pthread_mutex_unlock(&wd.lock);
	if (n > 1) {
		if (!ar.hosts) {
			MPI_Comm_size(MPI_COMM_WORLD, &ar.nworld);
			ar.hosts = calloc((size_t)ar.nworld, sizeof(*ar.hosts));
			ar.lsize = calloc((size_t)ar.nworld, sizeof(*ar.lsize));
			if (!ar.hosts || !ar.lsize)
				np_abort(NP_EXIT_RUNTIME, "out of memory for %d host names",
					 ar.nworld);
		}
		if (n > ar.cap) {
			free(ar.in);
			free(ar.rreq);
			ar.in = calloc((size_t)n, sizeof(*ar.in));
			ar.rreq = calloc((size_t)n, sizeof(*ar.rreq));
			if (!ar.in || !ar.rreq)
				np_abort(NP_EXIT_RUNTIME, "out of memory for %d arrivals", n);
			ar.cap = n;
		}
		/* the last step's sends were received before anyone got past it */
		MPI_Waitall(2, ar.sreq, MPI_STATUSES_IGNORE);
		for (int i = 0; i < 2; i++) {
			ar.out[i].wrank = np_msg_rank;
			ar.out[i].local_size = ar.local_size;
			snprintf(ar.out[i].host, sizeof(ar.out[i].host), "%.*s", NP_HOSTLEN - 1,
				 np_msg_host);
		}
		/* this rank is heard of, by itself */
		if (np_msg_rank >= 0 && np_msg_rank < ar.nworld) {
			memcpy(ar.hosts[np_msg_rank], ar.out[0].host, NP_HOSTLEN);
			ar.lsize[np_msg_rank] = ar.out[0].local_size;
		}
		if (r != 0)
			MPI_Isend(&ar.out[0], (int)sizeof(ar.out[0]), MPI_BYTE, 0, ARRIVE_TAG, comm,
				  &ar.sreq[0]);
		else
			MPI_Isend(&ar.out[1], (int)sizeof(ar.out[1]), MPI_BYTE, 1, ARRIVE_TAG, comm,
				  &ar.sreq[1]);
		if (r == 0)
			collect(comm, 1, n, t0 + (int64_t)(wd.timeout * 1e9), what);
		else if (r == 1)
			collect(comm, 0, 1, t0 + (int64_t)(wd.timeout * 1e9), what);
	}
	/* the step itself starts now */
	pthread_mutex_lock(&wd.lock);
	wd.deadline = now_ns() + (int64_t)((wd.timeout + extra(r, n)) * 1e9);
	wd.everyone = r == 0 && n > 1;
	pthread_mutex_unlock(&wd.lock);
}

void np_watchdog_startup(double timeout, int local_size, const struct np_test_plan *test)
{
	struct np_test_stall st;

	ar.local_size = local_size;
	np_test_stall_parse(test->stall, &st);
	np_watchdog_start(timeout);
	if (np_msg_rank >= 0 && np_test_stall_rank_at(&st, NP_STALL_START) == np_msg_rank)
		for (;;)
			sleep(1); /* test-only: a rank that never reaches its first collective */
	np_watchdog_arrive(MPI_COMM_WORLD, "start-up (MPI_Init to the first collective)");
	peers_gather();
}

void np_watchdog_soft(bool on)
{
	pthread_mutex_lock(&wd.lock);
	wd.soft = on;
	pthread_mutex_unlock(&wd.lock);
}

bool np_watchdog_fired(void)
{
	bool f;

	pthread_mutex_lock(&wd.lock);
	f = wd.fired;
	wd.fired = false;
	pthread_mutex_unlock(&wd.lock);
	return f;
}

void np_watchdog_disarm(void)
{
	if (!wd.running)
		return;
	pthread_mutex_lock(&wd.lock);
	wd.armed = false;
	pthread_mutex_unlock(&wd.lock);
}

void np_watchdog_stop(void)
{
	if (!wd.running)
		return;
	pthread_mutex_lock(&wd.lock);
	wd.stop = true;
	pthread_cond_signal(&wd.cond);
	pthread_mutex_unlock(&wd.lock);
	pthread_join(wd.thread, NULL);
	peers_release();
	wd.running = false;
	MPI_Waitall(2, ar.sreq, MPI_STATUSES_IGNORE);
	free(ar.in);
	free(ar.rreq);
	free(ar.hosts);
	free(ar.lsize);
	ar.in = NULL;
	ar.rreq = NULL;
	ar.hosts = NULL;
	ar.lsize = NULL;
	ar.cap = 0;
}
