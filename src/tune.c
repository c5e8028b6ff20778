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
#define _GNU_SOURCE /* SEEK_DATA: past the holes of NCCL's truncated log */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../probes/nccl_log.h"
#include "cmds.h"
#include "json.h"
#include "measure.h"
#include "msg.h"
#include "outfile.h"
#include "run_record.h"
#include "stats.h"
#include "tune_cand.h"
#include "tune_judge.h"
#include "version.h"
#include "watchdog.h"

#define TUNE_MAX_ROUNDS 2000
#define TUNE_BATCH 2e-3        /* seconds a batch should last */
#define TUNE_MAX_ITERS (1 << 20)
#define TUNE_FILE_MAX (64 * 1024)
#define TUNE_DEFAULT_MAX_GPU (1ull << 30)
#define TUNE_DEFAULT_MAX_HOST (4ull << 20)

struct arm {
	const struct np_tune_cand *cand; /* NULL: the baseline */
	struct np_backend be;
	struct np_world w;               /* the job's world on its own communicator */
	bool up;                         /* be is initialized */
	enum np_tune_arm_state state;
	char why[512];                   /* refused, error, wrong data: why */
	char evidence[512];              /* what the library said */
};

struct tune {
	const struct np_opts *o;
	struct np_world *w;
	struct np_tune_cand cands[NP_TUNE_MAX_CANDS];
	int ncands, narms;
	struct arm *arms;
	struct np_tune_point *pts;
	size_t npts, done;
	const struct np_backend_ops *ops;
	char backend_why[192];
	double *t;                       /* narms x TUNE_MAX_ROUNDS times */
	double *r;                       /* TUNE_MAX_ROUNDS ratios */
	FILE *log;                       /* rank 0: NCCL's log, for TUNING lines */
	char notes[8][320];
	int nnotes;
	bool interrupted;
	int hung;                        /* the arm that hung, 0 none: the run stopped there */
	double t0;
	struct np_run_record run;
};

static struct tune tune_run;

static void add_note(struct tune *tu, const char *fmt, ...) NP_PRINTF(2, 3);

static void add_note(struct tune *tu, const char *fmt, ...)
{
	va_list ap;

	if (tu->nnotes >= (int)(sizeof(tu->notes) / sizeof(tu->notes[0])))
		return;
	va_start(ap, fmt);
	vsnprintf(tu->notes[tu->nnotes++], sizeof(tu->notes[0]), fmt, ap);
	va_end(ap);
}

static const char *arm_label(const struct tune *tu, int a)
{
	return a ? tu->arms[a].cand->label : "baseline";
}

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
			snprintf(msg, sizeof(msg), "cannot read --try-file '%s': %s; give a file of candidates, one per line",
				 path, strerror(errno));
		} else if (!S_ISREG(sb.st_mode)) {
			snprintf(msg, sizeof(msg), "--try-file '%s' is not a regular file; give a file of candidates, one per line", path);
		} else if (sb.st_size > TUNE_FILE_MAX) {
			snprintf(msg, sizeof(msg), "--try-file '%s' is larger than %d bytes; give fewer candidates", path,
				 TUNE_FILE_MAX);
		} else if (!(text = calloc((size_t)sb.st_size + 1, 1))) {
			snprintf(msg, sizeof(msg), "out of memory reading --try-file '%s'", path);
		} else {
			len = (long)fread(text, 1, (size_t)sb.st_size, f);
			if (ferror(f) || memchr(text, '\0', (size_t)len)) {
				snprintf(msg, sizeof(msg), "--try-file '%s' cannot be read as text; give a file of candidates, one per line",
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

/* ---- applying a candidate ------------------------------------------ */

/* Test only: NCCL_PROBE_TEST_TUNE=ARM/VAR=VALUE[;...] puts the test
 * switch VAR (NCCL_PROBE_TEST_*) in the environment while arm ARM's
 * backend starts (0 the baseline, 1.. the candidates in order), so that a
 * planted slowdown, wrong data or failed start falls on that arm alone. */
static void test_switches(int arm, bool on)
{
	const char *env = getenv("NCCL_PROBE_TEST_TUNE");
	char buf[512], *spec, *save = NULL;

	if (!env || strlen(env) >= sizeof(buf))
		return;
	strcpy(buf, env);
	for (spec = strtok_r(buf, ";", &save); spec; spec = strtok_r(NULL, ";", &save)) {
		char *end, *eq;
		long a = strtol(spec, &end, 10);
		if (end == spec || *end != '/' || a != arm || strncmp(end + 1, "NCCL_PROBE_TEST_", 16))
			continue;
		if (!(eq = strchr(end + 1, '=')))
			continue;
		*eq = '\0';
		if (on)
			setenv(end + 1, eq + 1, 1);
		else
			unsetenv(end + 1);
	}
}

struct saved_env {
	char *old[NP_TUNE_MAX_SETTINGS];
	bool had[NP_TUNE_MAX_SETTINGS];
};

/* NCCL reads NCCL_PROTO, NCCL_ALGO and most of its variables from the
 * environment when a communicator is made: set them for that moment,
 * on the main thread, between communicators (no NCCL call is in flight). */
static void env_apply(const struct np_tune_cand *c, struct saved_env *sv)
{
	for (int i = 0; i < c->n; i++) {
		const char *v = getenv(c->set[i].name);
		sv->had[i] = v != NULL;
		sv->old[i] = v ? strdup(v) : NULL;
		setenv(c->set[i].name, c->set[i].value, 1);
	}
}

static void env_restore(const struct np_tune_cand *c, struct saved_env *sv)
{
	for (int i = 0; i < c->n; i++) {
		if (sv->had[i] && sv->old[i])
			setenv(c->set[i].name, sv->old[i], 1);
		else
			unsetenv(c->set[i].name);
		free(sv->old[i]);
	}
}

/* Open MPI: the MCA variable behind OMPI_MCA_<name>, written through the
 * MPI tool interface before the arm's communicator is made (Open MPI's
 * collective components read it then) and restored after. */
struct mpit_var {
	MPI_T_cvar_handle h;
	MPI_Datatype type;
	long long old, val;
	bool live;
};

static bool mpit_ready;

static bool mpit_init(void)
{
	int provided;

	if (!mpit_ready && MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS)
		mpit_ready = true;
	return mpit_ready;
}

static int mpit_read(MPI_T_cvar_handle h, MPI_Datatype t, long long *v)
{
	int rc;

	if (t == MPI_INT) {
		int x;
		rc = MPI_T_cvar_read(h, &x);
		*v = x;
	} else if (t == MPI_UNSIGNED) {
		unsigned x;
		rc = MPI_T_cvar_read(h, &x);
		*v = x;
	} else if (t == MPI_UNSIGNED_LONG) {
		unsigned long x;
		rc = MPI_T_cvar_read(h, &x);
		*v = (long long)x;
	} else if (t == MPI_UNSIGNED_LONG_LONG) {
		unsigned long long x;
		rc = MPI_T_cvar_read(h, &x);
		*v = (long long)x;
	} else if (t == MPI_C_BOOL) {
		bool x;
		rc = MPI_T_cvar_read(h, &x);
		*v = x;
	} else {
		return MPI_T_ERR_INVALID;
	}
	return rc;
}

static int mpit_write(MPI_T_cvar_handle h, MPI_Datatype t, long long v)
{
	if (t == MPI_INT) {
		int x = (int)v;
		return MPI_T_cvar_write(h, &x);
	}
	if (t == MPI_UNSIGNED) {
		unsigned x = (unsigned)v;
		return MPI_T_cvar_write(h, &x);
	}
	if (t == MPI_UNSIGNED_LONG) {
		unsigned long x = (unsigned long)v;
		return MPI_T_cvar_write(h, &x);
	}
	if (t == MPI_UNSIGNED_LONG_LONG) {
		unsigned long long x = (unsigned long long)v;
		return MPI_T_cvar_write(h, &x);
	}
	if (t == MPI_C_BOOL) {
		bool x = v != 0;
		return MPI_T_cvar_write(h, &x);
	}
	return MPI_T_ERR_INVALID;
}

/* The value of an integer MCA variable by name, or -1 (absent, unread). */
static long long mpit_peek(const char *name)
{
	int idx, count;
	MPI_T_cvar_handle h;
	MPI_Datatype t;
	MPI_T_enum e;
	int verb, bind, scope, nl = 0, dl = 0;
	long long v = -1;

	if (MPI_T_cvar_get_index(name, &idx) != MPI_SUCCESS)
		return -1;
	if (MPI_T_cvar_get_info(idx, NULL, &nl, &verb, &t, &e, NULL, &dl, &bind, &scope) != MPI_SUCCESS)
		return -1;
	if (MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) != MPI_SUCCESS)
		return -1;
	if (mpit_read(h, t, &v) != MPI_SUCCESS)
		v = -1;
	MPI_T_cvar_handle_free(&h);
	return v;
}

/* Parse value for variable idx: a number, or one of its enumeration's names. */
static bool mpit_value(const char *value, MPI_T_enum e, long long *out)
{
	char *end;
	int num;

	errno = 0;
	*out = strtoll(value, &end, 0);
	if (!errno && end != value && !*end)
		return true;
	if (e == MPI_T_ENUM_NULL || MPI_T_enum_get_info(e, &num, NULL, &(int){ 0 }) != MPI_SUCCESS)
		return false;
	for (int i = 0; i < num; i++) {
		char nm[256];
		int v, nl = (int)sizeof(nm);
		if (MPI_T_enum_get_item(e, i, &v, nm, &nl) == MPI_SUCCESS && !strcmp(nm, value)) {
			*out = v;
			return true;
		}
	}
	return false;
}

/* Write one setting; false with why when Open MPI will not take it. */
static bool mpit_set(const struct np_tune_setting *s, struct mpit_var *mv, char *why, size_t len)
{
	const char *name = s->name + 9; /* past OMPI_MCA_ */
	int idx, count, verb, bind, scope, nl = 0, dl = 0, rc;
	MPI_T_enum e;
	long long back;

	memset(mv, 0, sizeof(*mv));
	if (!mpit_init()) {
		snprintf(why, len, "this MPI's tool interface (MPI_T) did not start, so %s cannot be set for one communicator",
			 s->name);
		return false;
	}
	if (MPI_T_cvar_get_index(name, &idx) != MPI_SUCCESS) {
		snprintf(why, len, "this MPI has no variable '%s' (see 'ompi_info --all'); check the name", name);
		return false;
	}
	if (MPI_T_cvar_get_info(idx, NULL, &nl, &verb, &mv->type, &e, NULL, &dl, &bind, &scope) != MPI_SUCCESS ||
	    MPI_T_cvar_handle_alloc(idx, NULL, &mv->h, &count) != MPI_SUCCESS || count != 1) {
		snprintf(why, len, "the MPI tool interface cannot open '%s' as a single value", name);
		return false;
	}
	if (mpit_read(mv->h, mv->type, &mv->old) != MPI_SUCCESS) {
		snprintf(why, len, "'%s' is not an integer or boolean variable, which is what tune can set for one communicator",
			 name);
		goto out_free;
	}
	if (!mpit_value(s->value, e, &mv->val)) {
		snprintf(why, len, "'%s' is not a value of '%s' (see 'ompi_info --param all all --level 9'); give a number or one of its names",
			 s->value, name);
		goto out_free;
	}
	if (!strncmp(name, "coll_tuned_", 11) && strstr(name, "_algorithm") &&
	    mpit_peek("coll_tuned_use_dynamic_rules") == 0) {
		snprintf(why, len, "Open MPI ignores %s unless OMPI_MCA_coll_tuned_use_dynamic_rules=1 is set for the whole job; export it before mpirun",
			 name);
		goto out_free;
	}
	if ((rc = mpit_write(mv->h, mv->type, mv->val)) != MPI_SUCCESS) {
		snprintf(why, len, "Open MPI does not let '%s' change while the job runs (MPI_T error %d); measure it with one sweep per value, each with OMPI_MCA_%s exported, and compare",
			 name, rc, name);
		goto out_free;
	}
	if (mpit_read(mv->h, mv->type, &back) != MPI_SUCCESS || back != mv->val) {
		snprintf(why, len, "Open MPI did not keep '%s' = %lld", name, mv->val);
		mpit_write(mv->h, mv->type, mv->old);
		goto out_free;
	}
	mv->live = true;
	return true;
out_free:
	MPI_T_cvar_handle_free(&mv->h);
	return false;
}

static void mpit_restore(struct mpit_var *mv)
{
	if (!mv->live)
		return;
	mpit_write(mv->h, mv->type, mv->old);
	MPI_T_cvar_handle_free(&mv->h);
	mv->live = false;
}

/* NCCL's log since offset *off: whether it says, for every setting of c,
 * that it read the setting with its value; *off moves to the end. */
static bool nccl_confirms(const struct np_tune_cand *c, long *off, char *why, size_t len)
{
	const char *path = np_nccl_log_path();
	bool seen[NP_TUNE_MAX_SETTINGS] = { false };
	char line[1024];
	FILE *f;

	if (!path || !(f = fopen(path, "r"))) {
		snprintf(why, len, "NCCL's log cannot be read, so whether NCCL took the setting is unknown");
		return false;
	}
	if (fseek(f, *off, SEEK_SET) == 0)
		while (fgets(line, sizeof(line), f))
			for (int i = 0; i < c->n; i++)
				seen[i] |= np_nccl_log_env_line(line, c->set[i].name, c->set[i].value);
	*off = ftell(f);
	fclose(f);
	for (int i = 0; i < c->n; i++)
		if (!seen[i]) {
			snprintf(why, len, "NCCL did not read %s=%s when it made this candidate's communicator (NCCL reads some variables once per process, and ignores names it does not know); measure it with one sweep per value, each with the variable exported, and compare",
				 c->set[i].name, c->set[i].value);
			return false;
		}
	return true;
}

static long log_size(void)
{
	const char *path = np_nccl_log_path();
	struct stat sb;

	return path && stat(path, &sb) == 0 ? (long)sb.st_size : 0;
}

/* Start arm a's backend on its own communicator with its setting in
 * effect. Collective over the world; every rank learns the outcome. */
static void arm_start(struct tune *tu, int a)
{
	struct arm *arm = &tu->arms[a];
	const struct np_tune_cand *c = arm->cand;
	struct saved_env sv;
	struct mpit_var mv[NP_TUNE_MAX_SETTINGS];
	bool mpit = (tu->ops->caps & NP_CAP_SETTINGS_MPIT) != 0, ok = true;
	int mine, all;
	long off = 0;
	enum np_status st;
	char why[sizeof(arm->why)] = "";

	arm->w = *tu->w;
	arm->w.comm = MPI_COMM_NULL;
	arm->state = NP_TUNE_ARM_OK;
	memset(mv, 0, sizeof(mv));
	if (c && mpit)
		for (int i = 0; i < c->n && ok; i++)
			ok = mpit_set(&c->set[i], &mv[i], why, sizeof(why));
	mine = ok;
	MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, tu->w->comm);
	if (!all) {
		for (int i = 0; i < NP_TUNE_MAX_SETTINGS; i++)
			mpit_restore(&mv[i]);
		arm->state = NP_TUNE_ARM_REFUSED;
		/* rank 0's reason (the ranks run one MPI) */
		snprintf(arm->why, sizeof(arm->why), "%s", why[0] ? why : "the MPI of another rank refused it");
		MPI_Bcast(arm->why, sizeof(arm->why), MPI_CHAR, 0, tu->w->comm);
		return;
	}
	MPI_Comm_dup(tu->w->comm, &arm->w.comm);
	for (int i = 0; i < NP_TUNE_MAX_SETTINGS; i++)
		mpit_restore(&mv[i]);
	if (c && mpit)
		snprintf(arm->evidence, sizeof(arm->evidence),
			 "Open MPI's MPI_T read back %.400s when the candidate's communicator was made",
			 c->label);
	memset(&arm->be, 0, sizeof(arm->be));
	arm->be.ops = tu->ops;
	np_backend_args(&arm->be, tu->o, &arm->w);
	if (c && !mpit) {
		off = log_size();
		env_apply(c, &sv);
	}
	test_switches(a, true);
	np_watchdog_set_backend(&arm->be);
	np_watchdog_arrive(tu->w->comm, "%s backend initialization for %s", tu->ops->name, arm_label(tu, a));
	st = tu->ops->init(&arm->be);
	np_watchdog_disarm();
	test_switches(a, false);
	if (c && !mpit)
		env_restore(c, &sv);
	arm->up = true;
	mine = (int)st;
	MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, tu->w->comm);
	if (all) {
		arm->state = NP_TUNE_ARM_ERROR;
		snprintf(why, sizeof(why), "its communicator did not start: %.400s", st ? arm->be.err.msg : "");
		mine = st != NP_OK && !arm->be.err.secondary ? tu->w->rank : tu->w->size;
		MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, tu->w->comm);
		if (all >= tu->w->size)
			all = 0;
		if (tu->w->rank == all)
			snprintf(arm->why, sizeof(arm->why), "%s", why);
		MPI_Bcast(arm->why, sizeof(arm->why), MPI_CHAR, all, tu->w->comm);
		return;
	}
	if (c && !mpit) {
		mine = nccl_confirms(c, &off, why, sizeof(why));
		MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, tu->w->comm);
		if (!all) {
			arm->state = NP_TUNE_ARM_REFUSED;
			snprintf(arm->why, sizeof(arm->why), "%s", why[0] ? why : "NCCL on another rank did not read it");
			MPI_Bcast(arm->why, sizeof(arm->why), MPI_CHAR, 0, tu->w->comm);
			return;
		}
		snprintf(arm->evidence, sizeof(arm->evidence),
			 "NCCL's log on every rank: \"%s set by environment to %s\" when the candidate's communicator was made%s",
			 c->set[0].name, c->set[0].value, c->n > 1 ? ", and likewise for the other settings" : "");
	}
}

static void arm_stop(struct arm *arm)
{
	if (arm->up)
		arm->be.ops->finalize(&arm->be);
	arm->up = false;
	if (arm->w.comm != MPI_COMM_NULL)
		MPI_Comm_free(&arm->w.comm);
}

/* ---- measuring ----------------------------------------------------- */

/* Rank 0: the algorithm and protocol NCCL logged for the calls since
 * *off (TUNING lines; comm rank 0 logs them, and world rank 0 is rank 0
 * of every arm's communicator). */
static void nccl_choice(struct tune *tu, long *off, struct np_tune_cell *cl)
{
	char fn[32], al[32], pr[32], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	off_t start;

	if (!tu->log)
		return;
	/* past the hole that truncating the log left before NCCL's offset;
	 * the block where the data starts may still hold zeros before it */
	start = lseek(fileno(tu->log), (off_t)*off, SEEK_DATA);
	if (start < 0)
		start = (off_t)*off;
	clearerr(tu->log);
	if (fseeko(tu->log, start, SEEK_SET) != 0)
		return;
	while ((n = getline(&line, &cap, tu->log)) > 0) {
		const char *p = line;
		for (ssize_t i = 0; i < n; i++)
			if (!line[i])
				p = line + i + 1;
		if (np_nccl_log_tuning_line(p, fn, sizeof(fn), al, sizeof(al), pr, sizeof(pr))) {
			snprintf(cl->algo, sizeof(cl->algo), "%s", al);
			snprintf(cl->proto, sizeof(cl->proto), "%s", pr);
		}
	}
	free(line);
	*off = ftell(tu->log);
}

static bool live(const struct arm *arm)
{
	return arm->state == NP_TUNE_ARM_OK;
}

/* Every rank: the worst status of a step of arm a; a failed arm stops, a
 * call that the watchdog aborted (--timeout) is a hung arm. */
static bool step_ok(struct tune *tu, int a, enum np_status st, const char *what)
{
	struct arm *arm = &tu->arms[a];
	int mine[2] = { (int)st, np_watchdog_fired() || st == NP_ETIMEOUT }, all[2];

	MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, tu->w->comm);
	if (!all[0] && !all[1])
		return true;
	if (a == 0)
		np_abort(np_status_exit((enum np_status)all[0]), "%s failed for the baseline: %s", what,
			 st ? arm->be.err.msg : "on another rank");
	if (all[1]) {
		arm->state = NP_TUNE_ARM_HUNG;
		snprintf(arm->why, sizeof(arm->why), "%.160s did not finish within %g s (--timeout): aborted", what,
			 tu->o->timeout);
		return false;
	}
	arm->state = NP_TUNE_ARM_ERROR;
	snprintf(arm->why, sizeof(arm->why), "%.160s failed: %.300s", what, st ? arm->be.err.msg : "on another rank");
	mine[0] = st ? tu->w->rank : tu->w->size;
	MPI_Allreduce(mine, all, 1, MPI_INT, MPI_MIN, tu->w->comm);
	MPI_Bcast(arm->why, sizeof(arm->why), MPI_CHAR, all[0] < tu->w->size ? all[0] : 0, tu->w->comm);
	return false;
}

/* The calls of a candidate may hang (a protocol that deadlocks on this
 * fabric): their deadline is soft when the backend can abort, and a hung
 * candidate loses instead of ending the job. */
static void soft_for(const struct tune *tu, int a)
{
	np_watchdog_soft(a > 0 && (tu->ops->caps & NP_CAP_ABORT));
}

/* One batch of arm a: the slowest rank's time; the stop flag agreed.
 * NAN when the arm hung (it is marked so on every rank). */
static double batch(struct tune *tu, int a, const struct np_bench *b, int iters, bool *stop)
{
	struct arm *arm = &tu->arms[a];
	double in[3], out[3], t = 0;
	enum np_status st;
	bool hung;

	np_watchdog_set_backend(&arm->be);
	np_watchdog_arrive(tu->w->comm, "%s of %zu B (batch of %d) for %s", b->coll->name, b->lay.size, iters,
			   arm_label(tu, a));
	soft_for(tu, a);
	st = arm->be.ops->run(&arm->be, b, iters, &t);
	np_watchdog_soft(false);
	hung = np_watchdog_fired() || (a > 0 && st == NP_ETIMEOUT);
	if (st != NP_OK && !hung)
		np_abort(NP_EXIT_RUNTIME, "%s of %zu B failed for %s: %s", b->coll->name, b->lay.size,
			 arm_label(tu, a), arm->be.err.msg); /* the others are inside the collective */
	in[0] = t;
	in[1] = np_signal ? 1 : 0;
	in[2] = hung;
	MPI_Allreduce(in, out, 3, MPI_DOUBLE, MPI_MAX, tu->w->comm);
	*stop = out[1] > 0;
	if (*stop)
		np_watchdog_interrupted(); /* this thread ends the run */
	if (out[2] > 0) {
		arm->state = NP_TUNE_ARM_HUNG;
		snprintf(arm->why, sizeof(arm->why), "%s of %zu B did not finish within %g s (--timeout): aborted",
			 b->coll->name, b->lay.size, tu->o->timeout);
		return NAN;
	}
	return out[0];
}

/* The first call of every arm at this point: set up, check, and NCCL's
 * choice of algorithm and protocol. */
static void first_calls(struct tune *tu, struct np_tune_point *p, const struct np_bench *b)
{
	char what[160];

	for (int a = 0; a < tu->narms; a++) {
		struct arm *arm = &tu->arms[a];
		struct np_tune_cell *cl = &p->cells[a];
		uint64_t wrong = 0, total = 0;
		double t;
		long off = 0;
		int ign;
		enum np_status st;

		if (!live(arm))
			continue;
		snprintf(what, sizeof(what), "preparing %s of %zu B for %.100s", b->coll->name, b->lay.size,
			 arm_label(tu, a));
		np_watchdog_arm("%s", what);
		if (!step_ok(tu, a, arm->be.ops->prepare(&arm->be, b), what))
			continue;
		if (tu->log)
			off = log_size();
		snprintf(what, sizeof(what), "the first %s of %zu B for %.100s", b->coll->name, b->lay.size,
			 arm_label(tu, a));
		np_watchdog_set_backend(&arm->be);
		np_watchdog_arrive(tu->w->comm, "%s", what);
		soft_for(tu, a);
		st = arm->be.ops->run(&arm->be, b, 1, &t);
		np_watchdog_soft(false);
		if (!step_ok(tu, a, st, what)) {
			if (arm->state == NP_TUNE_ARM_HUNG) {
				tu->hung = a;
				return;
			}
			continue;
		}
		if (tu->w->rank == 0)
			nccl_choice(tu, &off, cl);
		cl->ran = true;
		if (tu->o->check) {
			snprintf(what, sizeof(what), "checking %s of %zu B for %.100s", b->coll->name, b->lay.size,
				 arm_label(tu, a));
			np_watchdog_arm("%s", what);
			if (!step_ok(tu, a, arm->be.ops->check(&arm->be, b, &wrong), what))
				continue;
			MPI_Allreduce(&wrong, &total, 1, MPI_UINT64_T, MPI_SUM, tu->w->comm);
			cl->wrong = total;
			if (total) {
				if (a == 0 && tu->w->rank == 0)
					np_error("%s of %zu B: the baseline computed %llu wrong elements; this node or its links are faulty (run nccl-probe sweep and isolate)",
						 b->coll->name, b->lay.size, (unsigned long long)total);
				if (a > 0) {
					arm->state = NP_TUNE_ARM_WRONG;
					snprintf(arm->why, sizeof(arm->why), "%s of %zu B computed %llu wrong elements",
						 b->coll->name, b->lay.size, (unsigned long long)total);
					continue;
				}
			}
		}
		ign = tu->w->rank == 0 && np_tune_choice_ignores(arm->cand, cl);
		MPI_Bcast(cl->algo, sizeof(cl->algo), MPI_CHAR, 0, tu->w->comm);
		MPI_Bcast(cl->proto, sizeof(cl->proto), MPI_CHAR, 0, tu->w->comm);
		MPI_Bcast(&ign, 1, MPI_INT, 0, tu->w->comm);
		cl->ignored = ign != 0;
		cl->same_choice = a > 0 && np_tune_choice_same(arm->cand, cl, &p->cells[0]);
	}
}

/* Iterations per batch, from the baseline: batches of 1, 8, 64, ... until
 * one lasts an eighth of TUNE_BATCH. One count for every arm. */
static int calibrate(struct tune *tu, const struct np_bench *b, bool *stop)
{
	int k = 1;
	double t;

	if (tu->o->iters)
		return tu->o->iters;
	for (;;) {
		t = batch(tu, 0, b, k, stop);
		if (*stop || t >= TUNE_BATCH / 8 || k >= TUNE_MAX_ITERS / 8)
			break;
		k *= 8;
	}
	if (!(t > 0))
		return TUNE_MAX_ITERS;
	t = ceil(TUNE_BATCH * k / t);
	return t < 1 ? 1 : t > TUNE_MAX_ITERS ? TUNE_MAX_ITERS : (int)t;
}

static void ratios(struct tune *tu, int a, int n, double *out)
{
	np_tune_ratios(tu->t, tu->t + (size_t)a * TUNE_MAX_ROUNDS, n, out);
}

/* The arms' states, for the decisions over points. */
static void arm_states(const struct tune *tu, enum np_tune_arm_state *st)
{
	for (int a = 0; a < tu->narms; a++)
		st[a] = tu->arms[a].state;
}

/* Rounds of one batch per live arm, in alternating order (A B C, C B A),
 * until every candidate's comparison is settled, the budget ends, or
 * --iters N's --samples rounds are done. Returns false on a signal. */
static bool rounds(struct tune *tu, struct np_tune_point *p, const struct np_bench *b)
{
	const struct np_opts *o = tu->o;
	int n = 0, target = o->iters ? o->samples : TUNE_MAX_ROUNDS, live_arms = 0;
	double t_start, budget;
	bool stop = false;

	for (int a = 0; a < tu->narms; a++)
		live_arms += live(&tu->arms[a]) && !p->cells[a].ignored;
	p->iters = calibrate(tu, b, &stop);
	if (stop)
		return false;
	for (int a = 0; a < tu->narms && o->warmup > 0; a++)
		if (live(&tu->arms[a]) && !p->cells[a].ignored) {
			batch(tu, a, b, o->warmup, &stop);
			if (stop)
				return false;
			if (!live(&tu->arms[a])) {
				tu->hung = a;
				return false;
			}
		}
	budget = o->budget * live_arms;
	t_start = np_now_s();
	while (n < target) {
		int settled = 1;
		double el;
		for (int k = 0; k < tu->narms; k++) {
			int a = n % 2 ? tu->narms - 1 - k : k;
			if (!live(&tu->arms[a]) || p->cells[a].ignored)
				continue;
			tu->t[(size_t)a * TUNE_MAX_ROUNDS + n] = batch(tu, a, b, p->iters, &stop) / p->iters;
			if (stop)
				return false;
			if (!live(&tu->arms[a])) {
				tu->hung = a;
				return false;
			}
		}
		n++;
		if (o->iters)
			continue;
		for (int a = 1; a < tu->narms; a++) {
			struct np_tune_ratio rt;
			if (!live(&tu->arms[a]) || p->cells[a].ignored)
				continue;
			ratios(tu, a, n, tu->r);
			np_tune_ratio_compute(tu->r, n, o->min_change, &rt);
			settled &= rt.settled;
		}
		/* rank 0's clock decides for all */
		el = np_now_s() - t_start;
		MPI_Bcast(&el, 1, MPI_DOUBLE, 0, tu->w->comm);
		/* the budget ends a point only once it has an interval: a
		 * candidate far slower than the baseline (whose batch length
		 * every arm uses) may take the whole budget in a few rounds */
		if (np_tune_rounds_done(n, settled, el, budget))
			break;
	}
	p->rounds = n;
	for (int a = 0; a < tu->narms; a++) {
		struct np_tune_cell *cl = &p->cells[a];
		struct np_stats st;
		double *v = tu->r;
		if (!live(&tu->arms[a]) || cl->ignored || !cl->ran)
			continue;
		memcpy(v, tu->t + (size_t)a * TUNE_MAX_ROUNDS, (size_t)n * sizeof(double));
		np_stats_compute(v, n, &st);
		cl->t_med = st.median;
		cl->busbw = np_busbw(b->coll, tu->w->size, np_algbw(b->lay.size, st.median));
		if (a > 0) {
			ratios(tu, a, n, tu->r);
			np_tune_cell_judge(cl, tu->r, n, o->min_change);
		}
	}
	return true;
}

/* ---- planning ------------------------------------------------------ */

static void plan(struct tune *tu)
{
	struct np_opts *o = (struct np_opts *)tu->o;
	size_t elt = np_dtypes[o->dtype].size, nsizes;
	uint64_t *sizes, mem = UINT64_MAX;
	bool device = (tu->ops->caps & NP_CAP_DEVICE) != 0;
	int nlive = 0;

	for (int a = 0; a < tu->narms; a++)
		if (live(&tu->arms[a])) {
			nlive++;
			if (tu->arms[a].be.info.mem_avail < mem)
				mem = tu->arms[a].be.info.mem_avail;
		}
	MPI_Allreduce(MPI_IN_PLACE, &mem, 1, MPI_UINT64_T, MPI_MIN, tu->w->comm);
	mem /= (uint64_t)nlive; /* every arm holds its own buffers */
	if (o->max_default) {
		uint64_t cap = device ? TUNE_DEFAULT_MAX_GPU : TUNE_DEFAULT_MAX_HOST;
		o->max_bytes = cap > o->min_bytes ? cap : o->min_bytes;
	}
	nsizes = np_opts_sizes(o, NULL, 0);
	sizes = calloc(nsizes, sizeof(*sizes));
	tu->pts = calloc(nsizes * NP_COLL_COUNT + 1, sizeof(*tu->pts));
	if (!sizes || !tu->pts)
		np_abort(NP_EXIT_RUNTIME, "out of memory for %zu sizes", nsizes);
	np_opts_sizes(o, sizes, nsizes);
	for (int c = 0; c < NP_COLL_COUNT; c++) {
		const struct np_coll *coll = &np_colls[c];
		if (!o->colls[c])
			continue;
		if (o->inplace && !(coll->flags & NP_COLL_F_INPLACE)) {
			add_note(tu, "%s has no in-place form: not tuned", coll->name);
			continue;
		}
		for (size_t i = 0; i < nsizes; i++) {
			struct np_layout lay;
			uint64_t need;
			char h[32], m[32];
			np_coll_layout(coll, sizes[i], elt, tu->w->size, &lay);
			need = o->inplace ? (lay.send_bytes > lay.recv_bytes ? lay.send_bytes : lay.recv_bytes)
					  : lay.send_bytes + lay.recv_bytes;
			np_human_size(sizes[i], h, sizeof(h));
			if (lay.count == 0)
				continue;
			if (need > mem) {
				np_human_size(mem, m, sizeof(m));
				add_note(tu, "%s of %s skipped: each of the %d communicators needs its own buffers, %s per rank each can have",
					 coll->name, h, nlive, m);
				continue;
			}
			tu->pts[tu->npts].coll = coll;
			tu->pts[tu->npts].lay = lay;
			tu->pts[tu->npts].cells = calloc((size_t)tu->narms, sizeof(struct np_tune_cell));
			if (!tu->pts[tu->npts].cells)
				np_abort(NP_EXIT_RUNTIME, "out of memory");
			tu->npts++;
		}
	}
	free(sizes);
}

/* ---- the report ---------------------------------------------------- */

static void size_range(const struct np_tune_point *a, const struct np_tune_point *b, char *buf, size_t len)
{
	char x[32], y[32];

	np_human_size(a->lay.size, x, sizeof(x));
	np_human_size(b->lay.size, y, sizeof(y));
	if (a == b)
		snprintf(buf, len, "%s", x);
	else
		snprintf(buf, len, "%s to %s", x, y);
}

/* Where candidate a reads verdict v: "allreduce 8 B to 64 KiB (1.12x to
 * 1.30x)", ranges of consecutive points, "; " between them. Returns the
 * number of points. */
static int verdict_ranges(const struct tune *tu, int a, enum np_tune_verdict v, char *buf, size_t len)
{
	size_t off = 0;
	int count = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < tu->npts;) {
		const struct np_tune_cell *cl = &tu->pts[i].cells[a];
		size_t j = i;
		double lo, hi;
		char sr[80], rr[48];
		if (!cl->ran || cl->ignored || cl->ratio.verdict != v) {
			i++;
			continue;
		}
		lo = hi = cl->ratio.median;
		while (j + 1 < tu->npts && tu->pts[j + 1].coll == tu->pts[i].coll &&
		       tu->pts[j + 1].cells[a].ran && !tu->pts[j + 1].cells[a].ignored &&
		       tu->pts[j + 1].cells[a].ratio.verdict == v) {
			j++;
			lo = fmin(lo, tu->pts[j].cells[a].ratio.median);
			hi = fmax(hi, tu->pts[j].cells[a].ratio.median);
		}
		count += (int)(j - i + 1);
		size_range(&tu->pts[i], &tu->pts[j], sr, sizeof(sr));
		if (lo == hi)
			snprintf(rr, sizeof(rr), "%.2fx", lo);
		else
			snprintf(rr, sizeof(rr), "%.2fx to %.2fx", lo, hi);
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s %s (%s)", off ? "; " : "",
						tu->pts[i].coll->name, sr, rr);
		i = j + 1;
	}
	return count;
}

/* A candidate's cell: "1.02x [0.98, 1.05] same", with NCCL's choice */
static void cell_str(const struct tune *tu, const struct np_tune_cell *cl, int a, char *buf, size_t len,
		     char *alg, size_t alen)
{
	const char *word = cl->ratio.verdict == NP_TUNE_FASTER ? "faster" :
			   cl->ratio.verdict == NP_TUNE_SLOWER ? "slower" :
			   cl->ratio.verdict == NP_TUNE_NONE ? "same" : "undecided";

	alg[0] = '\0';
	if (cl->proto[0])
		snprintf(alg, alen, "%s/%s%s", cl->algo, cl->proto, cl->same_choice ? "=" : "");
	if (cl->ignored)
		snprintf(buf, len, "ignored (NCCL used %s)", alg);
	else if (!cl->ran || !(cl->t_med > 0))
		snprintf(buf, len, "%s", np_tune_arm_state_str(tu->arms[a].state));
	else
		snprintf(buf, len, "%.2fx [%.2f, %.2f] %s", cl->ratio.median, cl->ratio.lo, cl->ratio.hi, word);
}

/* --wide: one row per point, a column per candidate */
static void wide_rows(const struct tune *tu, FILE *f)
{
	char buf[256], alg[72], both[340];

	fprintf(f, "%-14s %10s %6s %11s %9s", "coll", "size", "rounds", "base_us", "base_busbw");
	for (int a = 1; a < tu->narms; a++)
		fprintf(f, "  cand%-30d", a);
	fputc('\n', f);
	for (size_t i = 0; i < tu->npts; i++) {
		const struct np_tune_point *p = &tu->pts[i];
		char sz[32];
		if (!p->cells[0].ran || !p->rounds)
			continue;
		np_human_size(p->lay.size, sz, sizeof(sz));
		fprintf(f, "%-14s %10s %6d %11.2f %9.2f", p->coll->name, sz, p->rounds, p->cells[0].t_med * 1e6,
			p->cells[0].busbw);
		for (int a = 1; a < tu->narms; a++) {
			cell_str(tu, &p->cells[a], a, buf, sizeof(buf), alg, sizeof(alg));
			snprintf(both, sizeof(both), "%s%s%s", buf, alg[0] && !p->cells[a].ignored ? " " : "",
				 p->cells[a].ignored ? "" : alg);
			fprintf(f, "  %-34s", both);
		}
		fputc('\n', f);
	}
}

/* The default: one line per point and candidate (the point's figures on
 * its first), 100 columns */
static void narrow_rows(const struct tune *tu, FILE *f)
{
	char buf[256], alg[72];

	bool choice = false; /* NCCL's choice: a column where the backend tells it */

	for (size_t i = 0; i < tu->npts; i++)
		for (int a = 1; a < tu->narms; a++)
			choice |= tu->pts[i].cells[a].proto[0] != '\0';
	fprintf(f, "%-13s %9s %6s %9s %10s %4s  %s%s\n", "coll", "size", "rounds", "base(us)", "base busbw", "cand",
		choice ? "speed [95%]                  " : "speed [95%]", choice ? "NCCL's choice" : "");
	for (size_t i = 0; i < tu->npts; i++) {
		const struct np_tune_point *p = &tu->pts[i];
		char sz[32];
		if (!p->cells[0].ran || !p->rounds)
			continue;
		np_human_size(p->lay.size, sz, sizeof(sz));
		for (int a = 1; a < tu->narms; a++) {
			cell_str(tu, &p->cells[a], a, buf, sizeof(buf), alg, sizeof(alg));
			if (a == 1)
				fprintf(f, "%-13s %9s %6d %9.2f %10.2f", p->coll->name, sz, p->rounds,
					p->cells[0].t_med * 1e6, p->cells[0].busbw);
			else
				fprintf(f, "%-13s %9s %6s %9s %10s", "", "", "", "", "");
			if (choice && alg[0] && !p->cells[a].ignored)
				fprintf(f, " %4d  %-28s %s\n", a, buf, alg);
			else
				fprintf(f, " %4d  %s\n", a, buf);
		}
	}
}

static void write_table(const struct tune *tu, FILE *f, double wall)
{
	const struct np_opts *o = tu->o;
	const struct np_backend_info *info = &tu->arms[0].be.info;
	char lo[32], hi[32], buf[2048], line[4096];
	enum np_tune_arm_state st[NP_TUNE_MAX_CANDS + 1];
	int rec, W = o->wide ? 1 << 20 : 100; /* lines broken at 100 columns unless --wide */

	np_human_size(o->min_bytes, lo, sizeof(lo));
	np_human_size(o->max_bytes, hi, sizeof(hi));
	if (!o->quiet) {
		snprintf(line, sizeof(line), "nccl-probe %s tune: %d ranks on %d %snode%s, %s backend (%s), %s %s, %s to %s",
			 PACKAGE_VERSION, tu->w->size, tu->w->nnodes, tu->w->virtual_nodes ? "virtual " : "",
			 tu->w->nnodes == 1 ? "" : "s", tu->ops->name, info->library, np_dtype_str(o->dtype),
			 np_redop_str(o->op), lo, hi);
		np_wrap(f, "# ", "#   ", line, W);
		fprintf(f, "# baseline: the environment as launched\n");
		for (int a = 1; a < tu->narms; a++) {
			const struct arm *arm = &tu->arms[a];
			if (arm->state == NP_TUNE_ARM_OK)
				snprintf(line, sizeof(line), "candidate %d: %s: %s (in effect: %s)", a, arm->cand->label,
					 np_tune_arm_state_str(arm->state), arm->evidence);
			else
				snprintf(line, sizeof(line), "candidate %d: %s: %s: %s", a, arm->cand->label,
					 np_tune_arm_state_str(arm->state), arm->why);
			np_wrap(f, "# ", "#   ", line, W);
		}
		for (int i = 0; i < tu->nnotes; i++)
			np_wrap(f, "# note: ", "#   ", tu->notes[i], W);
		fprintf(f, "# each candidate's speed against the baseline: baseline time / its time, median of rounds\n"
			   "# measured side by side, [95%% interval]; faster or slower only when the interval\n"
			   "# excludes 1 and the median is %.0f%% or more from 1 (--min-change)%s\n",
			o->min_change * 100,
			!(tu->ops->caps & NP_CAP_SETTINGS_LOG) ? "" :
			"; ALGO/PROTO: NCCL's choice for\n# the first call, '=' where it is the baseline's own (then never faster or slower)");
	}
	if (o->wide)
		wide_rows(tu, f);
	else
		narrow_rows(tu, f);
	fprintf(f, "# where each candidate differs from the baseline:\n");
	for (int a = 1; a < tu->narms; a++) {
		char fast[900], slow[900];
		const struct arm *arm = &tu->arms[a];
		if (arm->state != NP_TUNE_ARM_OK) {
			snprintf(line, sizeof(line), "%d %s: %s, loses: %s", a, arm->cand->label,
				 np_tune_arm_state_str(arm->state), arm->why);
			np_wrap(f, "#   ", "#     ", line, W);
			continue;
		}
		int nf = verdict_ranges(tu, a, NP_TUNE_FASTER, fast, sizeof(fast));
		int ns = verdict_ranges(tu, a, NP_TUNE_SLOWER, slow, sizeof(slow));
		if (!nf && !ns)
			fprintf(f, "#   %d %s: no significant difference anywhere\n", a, arm->cand->label);
		if (nf) {
			snprintf(line, sizeof(line), "%d %s: faster at %s", a, arm->cand->label, fast);
			np_wrap(f, "#   ", "#     ", line, W);
		}
		if (ns) {
			snprintf(line, sizeof(line), "%d %s: slower at %s", a, arm->cand->label, slow);
			np_wrap(f, "#   ", "#     ", line, W);
		}
	}
	fprintf(f, "# winners (the fastest candidate significantly faster than the baseline, else the baseline):\n");
	for (size_t i = 0; i < tu->npts;) {
		size_t j = i;
		char sr[80];
		if (!tu->pts[i].rounds) {
			i++;
			continue;
		}
		while (j + 1 < tu->npts && tu->pts[j + 1].coll == tu->pts[i].coll &&
		       tu->pts[j + 1].winner == tu->pts[i].winner && tu->pts[j + 1].rounds)
			j++;
		size_range(&tu->pts[i], &tu->pts[j], sr, sizeof(sr));
		fprintf(f, "#   %s %s: %s\n", tu->pts[i].coll->name, sr,
			tu->pts[i].winner ? tu->arms[tu->pts[i].winner].cand->label : "baseline");
		i = j + 1;
	}
	arm_states(tu, st);
	rec = np_tune_recommended(tu->pts, tu->npts, tu->narms, st);
	if (rec > 0) {
		const struct np_tune_cand *c = tu->arms[rec].cand;
		verdict_ranges(tu, rec, NP_TUNE_FASTER, buf, sizeof(buf));
		snprintf(line, sizeof(line), "recommended: candidate %d is significantly faster at %s, and significantly slower nowhere:",
			 rec, buf);
		np_wrap(f, "# ", "#   ", line, W);
		for (int i = 0; i < c->n; i++) {
			char q[NP_TUNE_VALLEN * 4 + 3];
			np_shell_quote(c->set[i].value, q, sizeof(q));
			fprintf(f, "export %s=%s\n", c->set[i].name, q);
		}
	} else {
		np_wrap(f, "# ", "#   ", "no export lines: no candidate is significantly faster somewhere without being slower elsewhere; keep the environment as it is", W);
	}
	if (!o->quiet)
		fprintf(f, "# %zu of %zu points in %.1f s%s\n", tu->done, tu->npts, wall,
			tu->interrupted ? " (interrupted)" : tu->hung ? " (stopped at a hang)" : "");
}

static void json_settings(struct np_json *j, const struct np_tune_cand *c)
{
	np_json_arr_begin(j, "settings");
	for (int i = 0; c && i < c->n; i++) {
		np_json_obj_begin(j, NULL);
		np_json_str(j, "name", c->set[i].name);
		np_json_str(j, "value", c->set[i].value);
		np_json_str(j, "library", np_tune_setting_library(c->set[i].name));
		np_json_obj_end(j);
	}
	np_json_arr_end(j);
}

static void write_json(const struct tune *tu, FILE *f, double wall)
{
	const struct np_opts *o = tu->o;
	struct np_json j;
	enum np_tune_arm_state st[NP_TUNE_MAX_CANDS + 1];
	int rec;

	arm_states(tu, st);
	rec = np_tune_recommended(tu->pts, tu->npts, tu->narms, st);
	np_json_init(&j, f, true);
	np_json_obj_begin(&j, NULL);
	np_json_envelope(&j, NP_TUNE_SCHEMA, NP_TUNE_SCHEMA_VERSION, &tu->run, tu->ops->name);
	np_json_str(&j, "version", PACKAGE_VERSION); /* schema 1's own, beside tool.version */
	np_json_str(&j, "library", tu->arms[0].be.info.library);
	np_json_int(&j, "ranks", tu->w->size);
	np_json_int(&j, "nodes", tu->w->nnodes);
	np_json_bool(&j, "virtual_nodes", tu->w->virtual_nodes);
	np_json_str(&j, "dtype", np_dtype_str(o->dtype));
	np_json_str(&j, "op", np_redop_str(o->op));
	np_json_num(&j, "min_change", o->min_change);
	np_json_arr_begin(&j, "arms");
	for (int a = 0; a < tu->narms; a++) {
		const struct arm *arm = &tu->arms[a];
		np_json_obj_begin(&j, NULL);
		np_json_int(&j, "index", a);
		np_json_str(&j, "label", arm_label(tu, a));
		json_settings(&j, arm->cand);
		np_json_str(&j, "state", np_tune_arm_state_str(arm->state));
		np_json_str(&j, "why", arm->state == NP_TUNE_ARM_OK ? NULL : arm->why);
		np_json_str(&j, "evidence", a && arm->state == NP_TUNE_ARM_OK ? arm->evidence : NULL);
		np_json_obj_end(&j);
	}
	np_json_arr_end(&j);
	np_json_arr_begin(&j, "rows");
	for (size_t i = 0; i < tu->npts; i++) {
		const struct np_tune_point *p = &tu->pts[i];
		if (!p->rounds)
			continue;
		np_json_obj_begin(&j, NULL);
		np_json_str(&j, "coll", p->coll->name);
		np_json_uint(&j, "size", p->lay.size);
		np_json_int(&j, "iters", p->iters);
		np_json_int(&j, "rounds", p->rounds);
		np_json_int(&j, "winner", p->winner);
		np_json_arr_begin(&j, "arms");
		for (int a = 0; a < tu->narms; a++) {
			const struct np_tune_cell *cl = &p->cells[a];
			np_json_obj_begin(&j, NULL);
			np_json_int(&j, "arm", a);
			np_json_bool(&j, "ran", cl->ran && cl->t_med > 0);
			np_json_num(&j, "time", cl->t_med > 0 ? cl->t_med : NAN);
			np_json_num(&j, "busbw", cl->t_med > 0 ? cl->busbw : NAN);
			np_json_uint(&j, "wrong", cl->wrong);
			np_json_str(&j, "algo", cl->algo[0] ? cl->algo : NULL);
			np_json_str(&j, "proto", cl->proto[0] ? cl->proto : NULL);
			if (a) {
				np_json_bool(&j, "ignored", cl->ignored);
				np_json_bool(&j, "same_choice", cl->same_choice);
				np_json_num(&j, "speed_ratio", cl->t_med > 0 ? cl->ratio.median : NAN);
				np_json_num(&j, "ratio_lo", cl->t_med > 0 ? cl->ratio.lo : NAN);
				np_json_num(&j, "ratio_hi", cl->t_med > 0 ? cl->ratio.hi : NAN);
				np_json_str(&j, "verdict", cl->t_med > 0 && !cl->ignored ? np_tune_verdict_str(cl->ratio.verdict) : NULL);
			}
			np_json_obj_end(&j);
		}
		np_json_arr_end(&j);
		np_json_obj_end(&j);
	}
	np_json_arr_end(&j);
	if (rec > 0) {
		const struct np_tune_cand *c = tu->arms[rec].cand;
		np_json_obj_begin(&j, "recommended");
		np_json_int(&j, "arm", rec);
		np_json_arr_begin(&j, "exports");
		for (int i = 0; i < c->n; i++) {
			char q[NP_TUNE_VALLEN * 4 + 3], line[NP_TUNE_VALLEN * 5 + 80];
			np_shell_quote(c->set[i].value, q, sizeof(q));
			snprintf(line, sizeof(line), "export %s=%s", c->set[i].name, q);
			np_json_str(&j, NULL, line);
		}
		np_json_arr_end(&j);
		np_json_obj_end(&j);
	} else {
		np_json_null(&j, "recommended");
	}
	np_json_arr_begin(&j, "notes");
	for (int i = 0; i < tu->nnotes; i++)
		np_json_str(&j, NULL, tu->notes[i]);
	np_json_arr_end(&j);
	np_json_bool(&j, "interrupted", tu->interrupted);
	np_json_int(&j, "hung", tu->hung);
	np_json_num(&j, "wall_time", wall);
	np_json_obj_end(&j);
	fputc('\n', f);
}

/* Rank 0: the report to --output (or standard output) and --json. */
static int report(struct tune *tu)
{
	const struct np_opts *o = tu->o;
	struct np_outfile of = { 0 }, jf = { 0 };
	struct np_err err = { 0 };
	double wall = np_now_s() - tu->t0;
	int code = 0;

	if (o->output && strcmp(o->output, "-") && np_outfile_open(&of, o->output, "--output", &err)) {
		np_error("%s", err.msg);
		return NP_EXIT_RUNTIME;
	}
	{
		FILE *out = of.f ? of.f : stdout;
		if (o->format == NP_FMT_JSON)
			write_json(tu, out, wall);
		else
			write_table(tu, out, wall);
	}
	if (of.f && np_outfile_commit(&of, &err)) {
		np_error("%s", err.msg);
		code = NP_EXIT_RUNTIME;
	}
	if (o->json_file) {
		if (np_outfile_open(&jf, o->json_file, "--json", &err)) {
			np_error("%s", err.msg);
			return NP_EXIT_RUNTIME;
		}
		write_json(tu, jf.f, wall);
		if (np_outfile_commit(&jf, &err)) {
			np_error("%s", err.msg);
			code = NP_EXIT_RUNTIME;
		}
	}
	return code;
}

/* ---- the command --------------------------------------------------- */

static void check_libraries(struct tune *tu)
{
	unsigned caps = tu->ops->caps;

	for (int i = 0; i < tu->ncands; i++)
		for (int k = 0; k < tu->cands[i].n; k++) {
			const struct np_backend_def *lib = np_backend_for_setting(tu->cands[i].set[k].name);
			if (lib->ops != tu->ops)
				np_die(NP_EXIT_USAGE, "%s is %s setting, and this run uses the %s backend; %s",
				       tu->cands[i].set[k].name, lib->settings_of, tu->ops->name, lib->settings_hint);
		}
	if ((caps & NP_CAP_SETTINGS_LOG) && !np_nccl_log_path())
		np_die(NP_EXIT_USAGE, "tune confirms every NCCL setting in NCCL's own log, which it sets up itself; unset NCCL_DEBUG (and NCCL_DEBUG_SUBSYS, NCCL_DEBUG_FILE) for tune");
	if ((caps & NP_CAP_SETTINGS_MPIT) && !strstr(tu->w->mpi_version, "Open MPI"))
		np_die(NP_EXIT_USAGE, "OMPI_MCA_* settings are Open MPI's, and this MPI is %s; tune NCCL settings on GPUs instead",
		       tu->w->mpi_version);
}

/* The candidates of --try and --try-file, parsed alike on every rank
 * (src/main.c agrees on the outcome over the world) */
enum np_status np_tune_check(struct np_run *run, struct np_err *err)
{
	struct tune *tu = &tune_run;
	char *text;
	enum np_status st;

	tu->o = &run->o;
	tu->w = &run->w;
	text = read_try_file(tu);
	st = np_tune_parse(run->o.tries, run->o.ntries, text, tu->cands, NP_TUNE_MAX_CANDS, &tu->ncands, err);
	free(text);
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
			np_die(NP_EXIT_RUNTIME, "the baseline's %s backend did not start: %s", tu->ops->name,
			       tu->arms[0].why);
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
	size_t ms = 0, mr = 0;

	for (size_t i = 0; i < tu->npts; i++) {
		const struct np_layout *l = &tu->pts[i].lay;
		size_t s = tu->o->inplace ? 0 : l->send_bytes;
		size_t r = tu->o->inplace ? (l->send_bytes > l->recv_bytes ? l->send_bytes : l->recv_bytes) : l->recv_bytes;
		ms = s > ms ? s : ms;
		mr = r > mr ? r : mr;
	}
	for (int a = 0; a < tu->narms; a++) {
		if (!live(&tu->arms[a]))
			continue;
		np_watchdog_arm("allocating buffers for %s", arm_label(tu, a));
		step_ok(tu, a, tu->arms[a].be.ops->alloc(&tu->arms[a].be, ms, mr), "allocating buffers");
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
		struct np_bench b = { .coll = p->coll, .dtype = o->dtype, .op = o->op, .root = o->root,
				      .inplace = o->inplace, .lay = p->lay };
		enum np_tune_arm_state states[NP_TUNE_MAX_CANDS + 1];

		if (tu->w->rank == 0 && !o->quiet && isatty(fileno(stderr)))
			fprintf(stderr, "\rtune: %s of %zu B (%zu of %zu)   ", p->coll->name, p->lay.size, i + 1, tu->npts);
		first_calls(tu, p, &b);
		baseline_wrong |= p->cells[0].wrong != 0;
		/* a hang leaves the GPU and its peers in an unknown state: no
		 * more measuring, the report of what finished, exit 4 */
		if (tu->hung || !rounds(tu, p, &b)) {
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
			np_warn("cannot truncate NCCL's log '%s': %s", np_nccl_log_path(), strerror(errno));
	}
	if (tu->w->rank == 0 && !o->quiet && isatty(fileno(stderr)))
		fprintf(stderr, "\r%60s\r", "");
	return baseline_wrong;
}

/* Rank 0: the report, the losers and why the run stopped; the exit code */
static int tune_report(struct tune *tu, bool baseline_wrong)
{
	int code = report(tu), measured = 0;

	for (int a = 1; a < tu->narms; a++)
		if (tu->arms[a].state == NP_TUNE_ARM_WRONG || tu->arms[a].state == NP_TUNE_ARM_ERROR ||
		    tu->arms[a].state == NP_TUNE_ARM_HUNG)
			np_error("candidate %d (%s) loses: %s", a, tu->arms[a].cand->label, tu->arms[a].why);
	if (tu->interrupted)
		np_error("interrupted by signal %d after %zu of %zu points; the report holds the points that finished",
			 (int)np_signal, tu->done, tu->npts);
	if (tu->hung)
		np_error("the run stopped at candidate %d's hang, after %zu of %zu points: a hung call leaves the GPU and the network in a state not fit to measure; the report holds the points that finished",
			 tu->hung, tu->done, tu->npts);
	if (code)
		return code;
	code = tu->hung ? NP_EXIT_TIMEOUT : tu->interrupted ? NP_EXIT_INTERRUPTED : baseline_wrong ? NP_EXIT_WRONG : 0;
	/* every candidate refused: nothing was measured against the
	 * baseline, which is not an answer */
	for (int a = 1; a < tu->narms; a++)
		measured += tu->arms[a].state != NP_TUNE_ARM_REFUSED;
	if (!code && tu->narms > 1 && !measured) {
		np_error("no candidate was measured: the library refused every one (see above); nothing was tuned");
		code = NP_EXIT_USAGE;
	}
	return code;
}

int cmd_tune(struct np_run *run)
{
	struct tune *tu = &tune_run;
	bool baseline_wrong;
	int code = 0;

	tu->t0 = run->t0;
	tu->o = &run->o;
	tu->w = &run->w;
	tu->run = run->rec;
	tu->ops = run->ops;
	snprintf(tu->backend_why, sizeof(tu->backend_why), "%s", run->backend_why);
	check_libraries(tu);
	tune_start(tu);
	plan(tu);
	if (!tu->npts)
		np_die(NP_EXIT_USAGE, "nothing to tune: every size was skipped (%s); choose other sizes or fewer candidates",
		       tu->nnotes ? tu->notes[0] : "no size has an element per rank");
	tune_alloc(tu);
	baseline_wrong = tune_points(tu);
	np_watchdog_stop();
	if (run->w.rank == 0)
		code = tune_report(tu, baseline_wrong);
	MPI_Bcast(&code, 1, MPI_INT, 0, run->w.comm);
	if (tu->log)
		fclose(tu->log);
	for (int a = tu->narms - 1; a >= 0 && !tu->hung; a--)
		arm_stop(&tu->arms[a]); /* after a hang, finalizing could hang too: the exit frees it all */
	for (size_t i = 0; i < tu->npts; i++)
		free(tu->pts[i].cells);
	free(tu->pts);
	free(tu->arms);
	free(tu->t);
	free(tu->r);
	return code;
}
