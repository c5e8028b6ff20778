/* SPDX-License-Identifier: MIT */
/* Message helpers and the job-wide exits. */
#include "config.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "../common/printable.h"
#include "msg.h"

/* Process-wide: this process's MPI rank, job size and host, which every
 * message of every layer is prefixed with, set once after MPI_Init */
int np_msg_rank = -1;
int np_msg_size = 0;
char np_msg_host[256] = "";

/* Who prints: rank 0 alone, or the calling rank, plain or with its prefix. */
enum who { RANK0, ANY_PLAIN, ANY_RANK };

NP_PRINTF(3, 0)
static void vmsg(const char *prefix, enum who who, const char *fmt, va_list ap)
{
	char buf[2048], host[sizeof(np_msg_host) * 4], line[sizeof(buf) * 4];

	if (who == RANK0 && np_msg_rank > 0)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* a message is one line: what it quotes from a file, another rank or
	 * the command line cannot forge a second one or reach the terminal
	 * as a control sequence */
	np_printable(line, sizeof(line), buf);
	if (who == ANY_RANK && np_msg_rank >= 0)
		fprintf(stderr, "%s: rank %d on '%s': %s\n", prefix, np_msg_rank,
			np_printable(host, sizeof(host), np_msg_host), line);
	else
		fprintf(stderr, "%s: %s\n", prefix, line);
	fflush(stderr);
}

void np_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("note", RANK0, fmt, ap);
	va_end(ap);
}

void np_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning", RANK0, fmt, ap);
	va_end(ap);
}

void np_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", RANK0, fmt, ap);
	va_end(ap);
}

void np_rank_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", ANY_RANK, fmt, ap);
	va_end(ap);
}

#define CLEANUP_SLOTS 8

/* Process-wide: the files to remove when the process exits, which a signal
 * handler and np_exit() reach with no state of their own */
static struct {
	char path[CLEANUP_SLOTS][4096];
	volatile sig_atomic_t used[CLEANUP_SLOTS]; /* 1 output, 2 scratch */
} cleanup;

static int add(const char *path, int kind)
{
	if (strlen(path) >= sizeof(cleanup.path[0]))
		return -1;
	for (int i = 0; i < CLEANUP_SLOTS; i++)
		if (!cleanup.used[i]) {
			strcpy(cleanup.path[i], path);
			cleanup.used[i] = kind; /* after the name: a signal sees it whole */
			return i;
		}
	return -1;
}

int np_cleanup_add(const char *path) { return add(path, 1); }

int np_cleanup_add_scratch(const char *path) { return add(path, 2); }

void np_cleanup_scratch(void)
{
	for (int i = 0; i < CLEANUP_SLOTS; i++)
		if (cleanup.used[i] == 2) {
			cleanup.used[i] = 0;
			unlink(cleanup.path[i]);
		}
}

void np_cleanup_drop(int slot)
{
	if (slot >= 0 && slot < CLEANUP_SLOTS)
		cleanup.used[slot] = 0;
}

void np_cleanup(void)
{
	for (int i = 0; i < CLEANUP_SLOTS; i++)
		if (cleanup.used[i]) {
			cleanup.used[i] = 0;
			unlink(cleanup.path[i]);
		}
}

/* Process-wide: the process has begun to exit (a signal handler reads it) */
volatile sig_atomic_t np_exiting;

void np_exit(int code)
{
	int up = 0, down = 0;

	np_exiting = code + 1;
	np_cleanup();
	fflush(stdout);
	MPI_Initialized(&up);
	MPI_Finalized(&down);
	if (up && !down)
		MPI_Finalize(); /* every rank comes here: mpirun reports the code */
	exit(code);
}

void np_die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", RANK0, fmt, ap);
	va_end(ap);
	np_exit(code);
}

static _Noreturn void abort_job(int code)
{
	int up = 0, down = 0;

	np_exiting = code + 1;
	np_cleanup();
	fflush(stdout);
	fflush(stderr);
	MPI_Initialized(&up);
	MPI_Finalized(&down);
	if (up && !down && np_msg_size > 1)
		MPI_Abort(MPI_COMM_WORLD, code);
	_exit(code);
}

void np_abort(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", ANY_RANK, fmt, ap);
	va_end(ap);
	abort_job(code);
}

void np_abort_job(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", ANY_PLAIN, fmt, ap);
	va_end(ap);
	abort_job(code);
}

void np_abort_err(const struct np_err *err)
{
	np_abort(np_status_exit(err->status), "%s", err->msg);
}

int np_line_len(const char *text, int room)
{
	int n = (int)strlen(text);

	if (n <= room)
		return n;
	for (n = room; n > 0 && text[n] != ' '; n--)
		;
	return n ? n : room;
}

void np_wrap(FILE *f, const char *lead, const char *indent, const char *text, int width)
{
	const char *pre = lead;
	size_t len = 4 * strlen(text) + 1;
	char *safe = malloc(len);

	/* a note may quote a file or another rank: escaped, it stays lines
	 * of this writer's */
	if (safe)
		text = np_printable(safe, len, text);

	do {
		int room = width - (int)strlen(pre);
		int n = np_line_len(text, room < 20 ? 20 : room);
		fprintf(f, "%s%.*s\n", pre, n, text);
		text += n;
		while (*text == ' ')
			text++;
		pre = indent;
	} while (*text);
	free(safe);
}

void np_human_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int u = 0;
	double v = (double)bytes;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (v == floor(v))
		snprintf(buf, len, "%.0f %s", v, units[u]);
	else
		snprintf(buf, len, "%.2f %s", v, units[u]);
}

const char *np_signal_name(int sig)
{
	switch (sig) {
	case SIGKILL: return "SIGKILL";
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGABRT: return "SIGABRT";
	case SIGTERM: return "SIGTERM";
	case SIGINT: return "SIGINT";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	default: return "a signal";
	}
}
