/* SPDX-License-Identifier: MIT */
/* The tune command: each candidate setting (NCCL_PROTO=LL, an Open MPI
 * MCA variable) against the environment as launched, in one job. Every
 * candidate gets its own communicator, made while its setting is in the
 * environment (NCCL) or written through MPI_T (Open MPI), and the library
 * must confirm it took the setting, or the candidate is refused. The arms
 * then time their batches in alternating order, round after round, so
 * that drift in clocks or traffic falls on all alike; each candidate's
 * rounds give paired speed ratios against the baseline, their median and
 * 95% interval. Export lines are printed only for a candidate that is
 * significantly faster somewhere and significantly slower nowhere. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../probes/nccl_log.h"
#include "cmds.h"
#include "msg.h"
#include "plan.h"
#include "tune.h"
#include "watchdog.h"

#define TUNE_FILE_MAX (64 * 1024)

/* ---- reading the candidates ---------------------------------------- */

/* The --try-file's text on rank 0, broadcast: every rank parses the same. */
static char *read_try_file(const struct tune *tu)
{
	const char *path = tu->o->try_file;
	long len = -1;
	char *text = NULL, msg[320] = "";

	if (!path)
		return NULL;
	if (tu->w->rank == 0) {
		/* O_NONBLOCK: a FIFO is refused below, not waited on */
		int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
		struct stat sb;
		if (!f && fd >= 0)
			close(fd);
		if (!f || fstat(fileno(f), &sb) != 0) {
			snprintf(msg, sizeof(msg),
				 "cannot read --try-file '%s': %s; give a file of candidates, one per line",
				 path, strerror(errno));
		} else if (!S_ISREG(sb.st_mode)) {
			snprintf(msg, sizeof(msg),
				 "--try-file '%s' is not a regular file; give a file of candidates, one per line",
				 path);
		} else if (sb.st_size > TUNE_FILE_MAX) {
			snprintf(msg, sizeof(msg),
				 "--try-file '%s' is larger than %d bytes; give fewer candidates",
				 path, TUNE_FILE_MAX);
		} else if (!(text = calloc((size_t)sb.st_size + 1, 1))) {
			snprintf(msg, sizeof(msg), "out of memory reading --try-file '%s'", path);
		} else {
			len = (long)fread(text, 1, (size_t)sb.st_size, f);
			if (ferror(f) || memchr(text, '\0', (size_t)len)) {
				snprintf(msg, sizeof(msg),
					 "--try-file '%s' cannot be read as text; give a file of candidates, one per line",
					 path);
				len = -1;
			}
		}
		if (f)
			fclose(f);
	}
	MPI_Bcast(&len, 1, MPI_LONG, 0, tu->w->comm);
	if (len < 0) {
		free(text);
		if (tu->w->rank == 0)
			np_error("%s", msg);
		np_exit(NP_EXIT_USAGE);
	}
	if (tu->w->rank != 0 && !(text = calloc((size_t)len + 1, 1)))
		np_abort(NP_EXIT_RUNTIME, "out of memory");
	MPI_Bcast(text, (int)len, MPI_CHAR, 0, tu->w->comm);
	text[len] = '\0';
	return text;
}

/* ---- planning ------------------------------------------------------ */

/* A point that cannot run, in tune's words: a note (a size that rounds
 * to no element is left out silently, as the sweep's table shows it) */
static void plan_skip(void *ctx, const struct np_plan_skipped *sk)
{
	struct tune *tu = ctx;
	char h[32], m[32];

	if (sk->why == NP_PLAN_NO_ELEMENT || sk->why == NP_PLAN_SAME_SIZE)
		return;
	if (sk->why == NP_PLAN_NO_INPLACE) {
		np_notes_add(&tu->notes, "%s has no in-place form: not tuned", sk->coll->name);
		return;
	}
	np_human_size(sk->size, h, sizeof(h));
	if (sk->why == NP_PLAN_COUNT) {
		np_notes_add(&tu->notes,
			     "%s of %s skipped: %zu elements exceed the %s backend's largest count (%llu)",
			     sk->coll->name, h, sk->lay->count, tu->ops->name,
			     (unsigned long long)sk->max_count);
		return;
	}
	np_human_size(sk->mem, m, sizeof(m));
	np_notes_add(&tu->notes,
		     "%s of %s skipped: each of the %d communicators needs its own buffers, %s per rank each can have",
		     sk->coll->name, h, tu->nlive, m);
}

/* The points (plan.c), under the memory of the tightest rank shared by
 * the live arms, each of which holds its own buffers */
static void plan(struct tune *tu)
{
	struct np_opts *o = (struct np_opts *)tu->o;
	struct np_plan_limits lim = {
		.nranks = tu->w->size, .mem = UINT64_MAX, .skip = plan_skip, .ctx = tu
	};
	struct np_plan_point *pp;
	bool device = (tu->ops->caps & NP_CAP_DEVICE) != 0;

	tu->nlive = 0;
	for (int a = 0; a < tu->narms; a++) {
		const struct np_backend_info *in = &tu->arms[a].be.info;
		if (!arm_live(&tu->arms[a]))
			continue;
		tu->nlive++;
		if (in->mem_avail < lim.mem)
			lim.mem = in->mem_avail;
		if (in->max_count && (!lim.max_count || in->max_count < lim.max_count))
			lim.max_count = in->max_count;
	}
	MPI_Allreduce(MPI_IN_PLACE, &lim.mem, 1, MPI_UINT64_T, MPI_MIN, tu->w->comm);
	lim.mem /= (uint64_t)tu->nlive; /* every arm holds its own buffers */
	if (o->max_default)
		o->max_bytes = np_opts_default_max(o, device);
	pp = np_plan(o, &lim, &tu->npts, &tu->max_send, &tu->max_recv);
	tu->pts = calloc(tu->npts + 1, sizeof(*tu->pts));
	if (!tu->pts)
		np_abort(NP_EXIT_RUNTIME, "out of memory");
	for (size_t i = 0; i < tu->npts; i++) {
		tu->pts[i].coll = pp[i].coll;
		tu->pts[i].lay = pp[i].lay;
		tu->pts[i].cells = calloc((size_t)tu->narms, sizeof(struct np_tune_cell));
		if (!tu->pts[i].cells)
			np_abort(NP_EXIT_RUNTIME, "out of memory");
	}
	free(pp);
}

/* ---- the command --------------------------------------------------- */

static void check_libraries(struct tune *tu)
{
	unsigned caps = tu->ops->caps;

	for (int i = 0; i < tu->ncands; i++)
		for (int k = 0; k < tu->cands[i].n; k++) {
			const struct np_backend_def *lib =
				np_backend_for_setting(tu->cands[i].set[k].name);
			if (lib->ops != tu->ops)
				np_die(NP_EXIT_USAGE,
				       "%s is %s setting, and this run uses the %s backend; %s",
				       tu->cands[i].set[k].name, lib->settings_of, tu->ops->name,
				       lib->settings_hint);
		}
	if ((caps & NP_CAP_SETTINGS_LOG) && !np_nccl_log_path())
		np_die(NP_EXIT_USAGE,
		       "tune confirms every NCCL setting in NCCL's own log, which it sets up itself; unset NCCL_DEBUG (and NCCL_DEBUG_SUBSYS, NCCL_DEBUG_FILE) for tune");
	if ((caps & NP_CAP_SETTINGS_MPIT) && !strstr(tu->w->mpi_version, "Open MPI"))
		np_die(NP_EXIT_USAGE,
		       "OMPI_MCA_* settings are Open MPI's, and this MPI is %s; tune NCCL settings on GPUs instead",
		       tu->w->mpi_version);
}

/* The candidates of --try and --try-file, parsed alike on every rank
 * (src/main.c agrees on the outcome over the world) */
enum np_status np_tune_check(struct np_run *run, struct np_err *err)
{
	struct tune *tu = calloc(1, sizeof(*tu));
	char *text;
	enum np_status st;

	if (!tu)
		np_abort(NP_EXIT_RUNTIME, "out of memory for tune's candidates");
	free(run->cmd_state);
	run->cmd_state = tu; /* cmd_tune's, which frees it */
	tu->o = &run->o;
	tu->w = &run->w;
	text = read_try_file(tu);
	st = np_tune_parse(run->o.tries, run->o.ntries, text, tu->cands, NP_TUNE_MAX_CANDS,
			   &tu->ncands, err);
	free(text);
	/* every arm's times of a point are kept, TUNE_MAX_ROUNDS each */
	if (st == NP_OK && run->o.iters && run->o.samples > TUNE_MAX_ROUNDS)
		st = np_fail(err, NP_EUSAGE,
			     "--samples %d: tune times at most %d rounds at a size; give --samples %d or fewer",
			     run->o.samples, TUNE_MAX_ROUNDS, TUNE_MAX_ROUNDS);
	return st;
}

/* Every arm started, the baseline first: variables NCCL reads once per
 * process take their value from the environment as launched, and a
 * candidate that sets one finds NCCL silent about it, and is refused */
static void tune_start(struct tune *tu)
{
	tu->narms = tu->ncands + 1;
	tu->arms = calloc((size_t)tu->narms, sizeof(*tu->arms));
	tu->t = calloc((size_t)tu->narms * TUNE_MAX_ROUNDS, sizeof(double));
	tu->r = calloc(TUNE_MAX_ROUNDS, sizeof(double));
	if (!tu->arms || !tu->t || !tu->r)
		np_abort(NP_EXIT_RUNTIME, "out of memory for %d candidates", tu->ncands);
	for (int a = 0; a < tu->narms; a++) {
		tu->arms[a].cand = a ? &tu->cands[a - 1] : NULL;
		tu->arms[a].w.comm = MPI_COMM_NULL;
	}
	for (int a = 0; a < tu->narms; a++) {
		arm_start(tu, a);
		if (a == 0 && tu->arms[0].state != NP_TUNE_ARM_OK)
			np_die(NP_EXIT_RUNTIME, "the baseline's %s backend did not start: %s",
			       tu->ops->name, tu->arms[0].why);
		if (tu->arms[a].state != NP_TUNE_ARM_OK)
			arm_stop(&tu->arms[a]); /* its memory and communicator go back now */
	}
	np_watchdog_set_backend(NULL);
	if (tu->w->rank == 0 && (tu->ops->caps & NP_CAP_SETTINGS_LOG) && np_nccl_log_path())
		tu->log = fopen(np_nccl_log_path(), "r");
}

/* Every live arm's buffers, for the largest point */
static void tune_alloc(struct tune *tu)
{
	for (int a = 0; a < tu->narms; a++) {
		if (!arm_live(&tu->arms[a]))
			continue;
		np_watchdog_arm("allocating buffers for %s", arm_label(tu, a));
		tune_step_ok(tu, a,
			     tu->arms[a].be.ops->alloc(&tu->arms[a].be, tu->max_send, tu->max_recv),
			     "allocating buffers");
	}
}

/* Every point in turn: first calls, then rounds until a winner is known;
 * returns whether the baseline's data was wrong anywhere */
static bool tune_points(struct tune *tu)
{
	const struct np_opts *o = tu->o;
	bool baseline_wrong = false;

	for (size_t i = 0; i < tu->npts; i++) {
		struct np_tune_point *p = &tu->pts[i];
		struct np_bench b = { .coll = p->coll,
				      .dtype = o->dtype,
				      .op = o->op,
				      .root = o->root,
				      .inplace = o->inplace,
				      .lay = p->lay };
		enum np_tune_arm_state states[NP_TUNE_MAX_CANDS + 1];

		if (tu->w->rank == 0 && !o->quiet && isatty(fileno(stderr)))
			fprintf(stderr, "\rtune: %s of %zu B (%zu of %zu)   ", p->coll->name,
				p->lay.size, i + 1, tu->npts);
		tune_first_calls(tu, p, &b);
		baseline_wrong |= p->cells[0].wrong != 0;
		/* a hang leaves the GPU and its peers in an unknown state: no
		 * more measuring, the report of what finished, exit 4 */
		if (tu->hung || !tune_rounds(tu, p, &b)) {
			tu->interrupted = !tu->hung;
			p->rounds = 0;
			break;
		}
		arm_states(tu, states);
		p->winner = np_tune_point_winner(p, tu->narms, states);
		tu->done++;
		/* NCCL logs a line per call on rank 0: keep the file sparse.
		 * NCCL's stream writes on at its own offset, past a hole */
		if (tu->log && truncate(np_nccl_log_path(), 0) != 0)
			np_warn("cannot truncate NCCL's log '%s': %s", np_nccl_log_path(),
				strerror(errno));
	}
	if (tu->w->rank == 0 && !o->quiet && isatty(fileno(stderr)))
		fprintf(stderr, "\r%60s\r", "");
	return baseline_wrong;
}

int cmd_tune(struct np_run *run)
{
	struct tune *tu = run->cmd_state; /* np_tune_check's: the candidates */
	bool baseline_wrong;
	int code = 0;

	if (!tu)
		np_abort(NP_EXIT_RUNTIME, "tune ran without its candidates checked");

	tu->t0 = run->t0;
	tu->o = &run->o;
	tu->w = &run->w;
	tu->test = &run->test;
	tu->run = run->rec;
	tu->ops = run->ops;
	snprintf(tu->backend_why, sizeof(tu->backend_why), "%s", run->backend_why);
	check_libraries(tu);
	tune_start(tu);
	plan(tu);
	if (!tu->npts)
		np_die(NP_EXIT_USAGE,
		       "nothing to tune: every size was skipped (%s); choose other sizes or fewer candidates",
		       tu->notes.n ? tu->notes.v[0] : "no size has an element per rank");
	tune_alloc(tu);
	baseline_wrong = tune_points(tu);
	np_watchdog_stop();
	if (run->w.rank == 0)
		code = tune_report(tu, baseline_wrong);
	MPI_Bcast(&code, 1, MPI_INT, 0, run->w.comm);
	if (tu->log)
		fclose(tu->log);
	for (int a = tu->narms - 1; a >= 0 && !tu->hung; a--)
		arm_stop(&tu->arms[a]); /* after a hang, finalizing could hang too: the exit frees
					   it all */
	for (size_t i = 0; i < tu->npts; i++)
		free(tu->pts[i].cells);
	free(tu->pts);
	free(tu->arms);
	free(tu->t);
	free(tu->r);
	np_notes_release(&tu->notes);
	free(tu);
	run->cmd_state = NULL;
	return code;
}
