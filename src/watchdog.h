/* SPDX-License-Identifier: MIT */
/* The watchdog: a thread that ends the job with exit 4 when an armed step
 * (backend init, a batch of collectives, a check) outlives --timeout. On
 * expiry it asks the backend to abort in-flight work (ncclCommAbort), says
 * which step hung on which rank and host, and exits; mpirun then ends the
 * other ranks, whose own watchdogs fire at the same deadline anyway. */
#ifndef NP_WATCHDOG_H
#define NP_WATCHDOG_H

#include "../probes/backend.h"

/* Start the thread; timeout <= 0 leaves the watchdog off. be may be NULL
 * until the backend exists (np_watchdog_set_backend). */
void np_watchdog_start(double timeout);
void np_watchdog_set_backend(struct np_backend *be);
/* Arm for one step described by what ("allreduce of 1 MiB, timed sample"). */
void np_watchdog_arm(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void np_watchdog_disarm(void);
void np_watchdog_stop(void);

#endif
