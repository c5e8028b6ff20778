/* SPDX-License-Identifier: MIT */
/* Message helpers and the job-wide exits. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <mpi.h>

#include "msg.h"

int np_msg_rank = -1;
int np_msg_size = 0;
char np_msg_host[256] = "";

static void vmsg(const char *prefix, bool every_rank, const char *fmt, va_list ap)
{
	char buf[2048];

	if (!every_rank && np_msg_rank > 0)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (every_rank && np_msg_rank >= 0)
		fprintf(stderr, "%s: rank %d on '%s': %s\n", prefix, np_msg_rank,
			np_msg_host, buf);
	else
		fprintf(stderr, "%s: %s\n", prefix, buf);
	fflush(stderr);
}

void np_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("note", false, fmt, ap);
	va_end(ap);
}

void np_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning", false, fmt, ap);
	va_end(ap);
}

void np_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", false, fmt, ap);
	va_end(ap);
}

void np_rank_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", true, fmt, ap);
	va_end(ap);
}

void np_exit(int code)
{
	int up = 0, down = 0;

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
	vmsg("error", false, fmt, ap);
	va_end(ap);
	np_exit(code);
}

static _Noreturn void abort_job(int code)
{
	int up = 0, down = 0;

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
	vmsg("error", true, fmt, ap);
	va_end(ap);
	abort_job(code);
}

void np_abort_err(const struct np_err *err)
{
	np_abort(np_status_exit(err->status), "%s", err->msg);
}
