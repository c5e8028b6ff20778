/* SPDX-License-Identifier: MIT */
/* Messages to the user: the only way src/ writes to stderr. Lowercase, no
 * trailing period, names in quotes, and they say what to do. */
#ifndef NP_MSG_H
#define NP_MSG_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/status.h"

#define NP_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Rank and host used in prefixes of messages that concern one rank; set by
 * src/world.c once MPI is up (-1 before). */
extern int np_msg_rank;
extern int np_msg_size;
extern char np_msg_host[256];

void np_note(const char *fmt, ...) NP_PRINTF(1, 2);  /* "note: ...", rank 0 only */
void np_warn(const char *fmt, ...) NP_PRINTF(1, 2);  /* "warning: ...", rank 0 only */
void np_error(const char *fmt, ...) NP_PRINTF(1, 2); /* "error: ...", rank 0 only */
/* "error: rank R on 'host': ...", printed by the calling rank, whatever it is */
void np_rank_error(const char *fmt, ...) NP_PRINTF(1, 2);

/* Print an error and end the whole job with code. Collective-safe only
 * when every rank calls it (usage errors); a single rank's fatal error
 * must use np_abort. */
_Noreturn void np_die(int code, const char *fmt, ...) NP_PRINTF(2, 3);
/* One rank's fatal error: prints with the rank prefix and aborts the job
 * (MPI_Abort with code when MPI is up and there are other ranks). */
_Noreturn void np_abort(int code, const char *fmt, ...) NP_PRINTF(2, 3);
/* One rank speaks for the job: prints "error: ..." (no rank prefix), whatever
 * rank calls it, and aborts the job like np_abort. */
_Noreturn void np_abort_job(int code, const char *fmt, ...) NP_PRINTF(2, 3);
/* End the job with a status from a lower layer (its err->msg printed). */
_Noreturn void np_abort_err(const struct np_err *err);
/* A signal's name for messages ("SIGSEGV"); "a signal" for one not named. */
const char *np_signal_name(int sig);

/* Set (to the exit code + 1) once the process ends on purpose: a signal
 * that comes then only removes temporaries and exits quietly. */
extern volatile sig_atomic_t np_exiting;

/* Tear MPI down (if up) and exit with code: every rank calls it. */
_Noreturn void np_exit(int code);

/* Temporary files that an abrupt end (np_abort, the watchdog, a signal)
 * must remove: np_cleanup_add returns a slot (or -1 when all are taken),
 * np_cleanup_drop forgets it once the file is renamed or removed, and
 * np_cleanup unlinks every file still listed; it is async-signal-safe. */
int np_cleanup_add(const char *path);
/* A scratch file (NCCL's log): also removed by np_cleanup_scratch, at the
 * first signal, since no report needs it. */
int np_cleanup_add_scratch(const char *path);
void np_cleanup_drop(int slot);
void np_cleanup(void);
void np_cleanup_scratch(void);

/* how much of text goes on a line of room columns: all of it if it fits,
 * else up to its last blank within room (a word longer than room is cut) */
int np_line_len(const char *text, int room);
/* text as lines of at most width columns, broken at blanks: the first
 * after lead, the others after indent (a word longer than a line is cut) */
void np_wrap(FILE *f, const char *lead, const char *indent, const char *text, int width);
/* A size for people: "128 MiB", "8 B", "1.5 GiB". */
void np_human_size(uint64_t bytes, char *buf, size_t len);

#endif
