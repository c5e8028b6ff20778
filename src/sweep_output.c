/* SPDX-License-Identifier: MIT */
/* The sweep's output on rank 0: its files opened at the start and
 * committed together at the end (--output, -J, --csv, --metrics), the
 * progress lines on stderr, and the --baseline comparison whose result
 * the report carries. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "msg.h"
#include "outfile.h"
#include "openmetrics.h"
#include "report.h"
#include "sweep_state.h"
#include "sweep_verdict.h"

/* Progress on rank 0's stderr: on a terminal one line rewritten in place
 * before each row; elsewhere (a pipe under mpirun, a job log) a plain
 * line at most every NCCL_PROBE_PROGRESS seconds (default 10), so a log
 * gets no carriage returns and a short run gets none. */
void sweep_progress(struct sweep *s, const struct np_bench *b)
{
	char sz[32];
	double now = np_now_s();

	if (!s->progress)
		return;
	if (!s->progress_tty && now - s->progress_last < s->progress_every)
		return;
	s->progress_last = now;
	np_human_size(b->lay.size, sz, sizeof(sz));
	fprintf(stderr, "%srow %d/%d: %s %s, %d more, %.*f s elapsed%s",
		s->progress_tty ? "\r\033[K" : "progress: ", s->done + 1, s->planned, b->coll->name,
		sz, s->planned - s->done - 1, now - s->t0 < 10 ? 1 : 0, now - s->t0,
		s->progress_tty ? "" : "\n");
	fflush(stderr);
}

void sweep_progress_clear(struct sweep *s)
{
	if (s->progress && s->progress_tty) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

static double progress_interval(void)
{
	const char *e = getenv("NCCL_PROBE_PROGRESS");
	char *end;
	double v;

	if (!e || !*e)
		return 10;
	v = strtod(e, &end);
	return *end || !(v >= 0 && v <= 86400) ? 10 : v;
}

enum np_status sweep_open_output(struct sweep *s, struct np_err *err)
{
	if (s->w->rank != 0)
		return NP_OK;
	/* the files' temporaries are made at the end, when the report is
	 * written (a SIGKILL of rank 0 mid-sweep leaves none beside them):
	 * here they are only checked, and a table for an --output file is
	 * kept in memory until then; a stream ("-", /dev/fd/N) is written as
	 * the rows come */
	if (s->o->output && np_outfile_is_stream(s->o->output)) {
		if (np_outfile_open(&s->of, s->o->output, "--output", err))
			return err->status;
		s->out = s->of.f;
	} else if (s->o->output) {
		if (np_outfile_check(s->o->output, "--output", err))
			return err->status;
		if (!(s->out = open_memstream(&s->out_buf, &s->out_len)))
			return np_fail(err, NP_ENOMEM, "out of memory for the report");
		s->out_mem = true;
	} else {
		s->out = stdout;
	}
	if ((s->o->json_file && np_outfile_check(s->o->json_file, "--json", err)) ||
	    (s->o->csv_file && np_outfile_check(s->o->csv_file, "--csv", err))) {
		np_outfile_discard(&s->of);
		return err->status;
	}
	s->stream = s->o->format == NP_FMT_TABLE;
	/* under mpirun a rank's stderr is a pipe, whatever mpirun's own is:
	 * progress then goes as plain lines that read well in a job log */
	s->progress = !s->o->quiet;
	s->progress_tty = isatty(STDERR_FILENO);
	s->progress_every = progress_interval();
	s->progress_last = np_now_s();
	return NP_OK;
}

#define WRITER(m, name, writer) [m] = writer,
static void (*const writers[NP_FMT_COUNT])(FILE *,
					   const struct np_sweep_report *) = { NP_FORMATS(WRITER) };
#undef WRITER

void sweep_finish_output(struct sweep *s)
{
	struct np_err err = { 0 };

	if (s->w->rank != 0)
		return;
	/* the table's: -q drops the header and progress, never the summary
	 * and verdict */
	writers[s->o->format](s->out, &s->rep);
	/* the files' temporaries, made now */
	if (s->out_mem) {
		if (fflush(s->out) || ferror(s->out))
			np_fail(&err, NP_ENOMEM, "out of memory for the report of --output '%s'",
				s->o->output);
		else if (!np_outfile_open(&s->of, s->o->output, "--output", &err) &&
			 fwrite(s->out_buf, 1, s->out_len, s->of.f) != s->out_len)
			np_fail(&err, NP_ESYS, "cannot write --output '%s': %s", s->o->output,
				strerror(errno));
		fclose(s->out);
		free(s->out_buf);
		s->out_buf = NULL;
		s->out = NULL;
		s->out_mem = false;
	}
	if (!err.status && s->o->json_file &&
	    !np_outfile_open(&s->json_of, s->o->json_file, "--json", &err)) {
		if (s->o->format == NP_FMT_NCCLTESTS)
			np_report_nccltests_json(s->json_of.f, &s->rep);
		else
			np_report_json(s->json_of.f, &s->rep);
	}
	if (!err.status && s->o->csv_file &&
	    !np_outfile_open(&s->csv_of, s->o->csv_file, "--csv", &err))
		np_report_csv(s->csv_of.f, &s->rep);
	if (err.status) {
		np_outfile_discard(&s->of);
		np_outfile_discard(&s->json_of);
		np_outfile_discard(&s->csv_of);
		np_error("%s", err.msg);
		s->rep.exit_code = NP_EXIT_RUNTIME;
	} else {
		/* one run's files: all replaced or none */
		struct np_outfile *files[4], mof = { 0 };
		int n = 0;
		if (s->o->output)
			files[n++] = &s->of;
		if (s->o->json_file)
			files[n++] = &s->json_of;
		if (s->o->csv_file)
			files[n++] = &s->csv_of;
		if (s->o->metrics_file &&
		    np_openmetrics_sweep(&mof, s->o->metrics_file, &s->rep, &err)) {
			while (n > 0)
				np_outfile_discard(files[--n]);
		} else if (s->o->metrics_file) {
			files[n++] = &mof;
		}
		if (err.status || np_outfile_commit_all(files, n, &err)) {
			np_error("%s", err.msg);
			s->rep.exit_code = NP_EXIT_RUNTIME;
		}
	}
	for (int i = 0; i < s->rep.verdict.n; i++)
		np_error("%s", s->rep.verdict.v[i]);
}

/* --baseline (rank 0): this run against a known-good run of the same
 * shape, with compare's statistics, after the verdict and before the
 * report is written, so that the report carries the result. Compare
 * reads this run's rows in memory; the comparison's table comes back as
 * text, shown after the report. A regression beyond --max-regression is
 * exit 1 with a verdict line; a row that margin cannot pass, exit 6;
 * runs that cannot be compared, exit 64. */
char *sweep_compare_baseline(struct sweep *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *to = open_memstream(&text, &len);
	int code = np_compare_report(s->o->baseline, &s->rep, "this run", s->o->max_regression,
				     s->o->min_change, s->o->quiet, to ? to : stderr);

	if (to)
		fclose(to);
	if (code == 0 || code == NP_EXIT_VERDICT || code == NP_EXIT_INCONCLUSIVE) {
		size_t n = strlen(s->rep.judged);
		snprintf(s->rep.judged + n, sizeof(s->rep.judged) - n,
			 "%sno regression beyond %g%% against --baseline '%s'", n ? "; " : "",
			 s->o->max_regression * 100, s->o->baseline);
	}
	if (code == NP_EXIT_VERDICT)
		np_sweep_add_verdict(&s->rep,
				     "significantly slower than --baseline '%s' by more than %g%% (the rows are named above)",
				     s->o->baseline, s->o->max_regression * 100);
	else if (code == NP_EXIT_INCONCLUSIVE)
		np_sweep_add_verdict(&s->rep,
				     "inconclusive against --baseline '%s': a row's interval reaches a slowdown beyond %g%% (named above); measure longer or on a quieter fabric",
				     s->o->baseline, s->o->max_regression * 100);
	else if (code)
		np_sweep_add_verdict(&s->rep,
				     "not compared with --baseline '%s' (see the error above)",
				     s->o->baseline);
	/* a regression outranks an inconclusive row of the sweep's own */
	if (code && (!s->rep.exit_code ||
		     (s->rep.exit_code == NP_EXIT_INCONCLUSIVE && code == NP_EXIT_VERDICT)))
		s->rep.exit_code = code;
	return text;
}
