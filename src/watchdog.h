/* SPDX-License-Identifier: MIT */
/* The watchdog: ends the job with exit 4 when a step outlives --timeout,
 * and names the rank that held it up.
 *
 * Two parts. Arrival checks: before a collective step every rank of the
 * communicator calls np_watchdog_arrive(); each rank tells the
 * communicator's rank 0 (and rank 0 tells rank 1) with a small
 * non-blocking message, and rank 0 waits for all of them, polling, for at
 * most --timeout. A rank that does not arrive is named, once, with its
 * host, by rank 0 (or by rank 1 when rank 0 is the one missing), which
 * then aborts the job. A rank that never arrived anywhere (at start-up)
 * is placed by elimination: each arrival carries the number of ranks its
 * launcher started on its host, and when the ranks not heard of are all
 * missing from one host, that host is named. Only the main thread calls MPI.
 * The thread: each rank arms a deadline for every step (np_watchdog_arm,
 * or np_watchdog_arrive); when it passes, the thread asks the backend to
 * abort in-flight work (ncclCommAbort), says which step did not finish on
 * which rank and host, and exits 4. The arrival checks use the timeout
 * itself; in a job of several ranks the thread waits NP_WATCHDOG_GRACE / 2
 * seconds more on rank 0 and NP_WATCHDOG_GRACE on the others, so that the
 * job ends on one message: the arrival check's, or rank 0's.
 * Deadlines use CLOCK_MONOTONIC: a clock step at boot cannot fire them.
 *
 * A rank that ends under the job (SIGKILL from the OOM killer, a crash):
 * np_watchdog_startup gathers every rank's host and pid, and the thread
 * of the lowest rank alive on that host names it, with its pid and the
 * signal (read from /proc while it is a zombie: a second thread waits on
 * the peers' pidfds to get there before the launcher reaps it; else said
 * to be unknown),
 * instead of a timeout or an interrupt; when the launcher does not end
 * the job within NP_WATCHDOG_GRACE, that rank exits 3. A rank on a host
 * of its own is named by the launcher only.
 *
 * Signals: SIGINT and SIGTERM set np_signal; the main thread looks at it
 * between batches (np_watchdog_interrupted) and ends the run with the rows
 * that finished. When it does not get there within 0.2 s (a collective
 * that stalled), the thread calls the takeover function, which writes the
 * same report and exits; without one it exits 130 quietly. A second signal
 * exits at once. Every such exit removes the temporaries (np_cleanup). */
#ifndef NP_WATCHDOG_H
#define NP_WATCHDOG_H

#include <signal.h>
#include <stdbool.h>

#include <mpi.h>

#include "../probes/backend.h"

#define NP_WATCHDOG_GRACE 5.0

/* The signal that interrupted the run (SIGINT, SIGTERM), 0 none. */
extern volatile sig_atomic_t np_signal;

/* Start the thread and the signal handlers (MPI is up); timeout <= 0
 * leaves deadlines and arrival checks off. */
void np_watchdog_start(double timeout);
/* Start the thread and check that every rank of MPI_COMM_WORLD got from
 * MPI_Init to here (the first collective), naming those that did not;
 * local_size: the ranks the launcher started on this host (launch.h), 0
 * unknown. Honours the test-only NCCL_PROBE_TEST_STALL=R:start of test. */
void np_watchdog_startup(double timeout, int local_size, const struct np_test_plan *test);
/* be may be NULL until the backend exists. */
void np_watchdog_set_backend(struct np_backend *be);
/* Arm for one local step of this rank ("checking allreduce of 1 MiB"). */
void np_watchdog_arm(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Every rank of comm calls this, in the same order, before the collective
 * step described by fmt ("allreduce of 1 MiB (batch of 8)"); arms it. */
void np_watchdog_arrive(MPI_Comm comm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void np_watchdog_disarm(void);
/* The main thread, between batches: whether a signal came (and that it
 * will end the run itself). */
bool np_watchdog_interrupted(void);
/* fn(arg, sig, code, why) ends the run when the main thread is stuck; it
 * runs on the watchdog thread and must not return. code is the job's
 * exit status as far as this rank can tell, for its report: 4 when the
 * step outlived --timeout (the launcher's signal follows another rank's
 * timeout), 3 when a rank on this host ended under the job (killed, or
 * the code it exited with after its own error), else 130 (an interrupt);
 * why says so in a sentence ("" for 130). */
void np_watchdog_on_interrupt(void (*fn)(void *arg, int sig, int code, const char *why), void *arg);
/* fn(arg) on rank 0 when --timeout fires: writes the report of the rows
 * that finished, marked interrupted, and returns (the job then exits 4);
 * it runs on the watchdog thread while the main thread is stuck. */
void np_watchdog_on_hang(void (*fn)(void *arg), void *arg);
void np_watchdog_stop(void);
/* Soft deadlines (nccl-probe tune, for a candidate's calls): when a step
 * is past its deadline and the backend can abort, the thread aborts the
 * backend's in-flight work and lets the run go on (the backend's call
 * returns NP_ETIMEOUT) instead of ending the job; if the main thread does
 * not arrive at a new step within another timeout and twice the grace,
 * the job ends as with a hard deadline. */
void np_watchdog_soft(bool on);
/* Whether a soft deadline fired since the last call (and clears it). */
bool np_watchdog_fired(void);

#endif
