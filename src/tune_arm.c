/* SPDX-License-Identifier: MIT */
/* tune's arms: each candidate's backend started on its own communicator
 * with the candidate's settings in effect, and confirmed by the library:
 * for NCCL, the variables in the environment while the communicator is
 * made and NCCL's log saying it read them; for Open MPI, the MCA
 * variables written through the MPI tool interface (MPI_T) and read
 * back. A setting the library does not take refuses the candidate. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/testhooks.h"
#include "../probes/nccl_log.h"
#include "msg.h"
#include "tune.h"
#include "watchdog.h"

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

/* Process-wide: MPI_T is initialized once per process */
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
	if (MPI_T_cvar_get_info(idx, NULL, &nl, &verb, &t, &e, NULL, &dl, &bind, &scope) !=
	    MPI_SUCCESS)
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
		snprintf(why, len,
			 "this MPI's tool interface (MPI_T) did not start, so %s cannot be set for one communicator",
			 s->name);
		return false;
	}
	if (MPI_T_cvar_get_index(name, &idx) != MPI_SUCCESS) {
		snprintf(why, len,
			 "this MPI has no variable '%s' (see 'ompi_info --all'); check the name",
			 name);
		return false;
	}
	if (MPI_T_cvar_get_info(idx, NULL, &nl, &verb, &mv->type, &e, NULL, &dl, &bind, &scope) !=
		    MPI_SUCCESS ||
	    MPI_T_cvar_handle_alloc(idx, NULL, &mv->h, &count) != MPI_SUCCESS || count != 1) {
		snprintf(why, len, "the MPI tool interface cannot open '%s' as a single value",
			 name);
		return false;
	}
	if (mpit_read(mv->h, mv->type, &mv->old) != MPI_SUCCESS) {
		snprintf(why, len,
			 "'%s' is not an integer or boolean variable, which is what tune can set for one communicator",
			 name);
		goto out_free;
	}
	if (!mpit_value(s->value, e, &mv->val)) {
		snprintf(why, len,
			 "'%s' is not a value of '%s' (see 'ompi_info --param all all --level 9'); give a number or one of its names",
			 s->value, name);
		goto out_free;
	}
	if (!strncmp(name, "coll_tuned_", 11) && strstr(name, "_algorithm") &&
	    mpit_peek("coll_tuned_use_dynamic_rules") == 0) {
		snprintf(why, len,
			 "Open MPI ignores %s unless OMPI_MCA_coll_tuned_use_dynamic_rules=1 is set for the whole job; export it before mpirun",
			 name);
		goto out_free;
	}
	if ((rc = mpit_write(mv->h, mv->type, mv->val)) != MPI_SUCCESS) {
		snprintf(why, len,
			 "Open MPI does not let '%s' change while the job runs (MPI_T error %d); measure it with one sweep per value, each with OMPI_MCA_%s exported, and compare",
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
		snprintf(why, len,
			 "NCCL's log cannot be read, so whether NCCL took the setting is unknown");
		return false;
	}
	if (fseek(f, *off, SEEK_SET) == 0)
		while (fgets(line, sizeof(line), f))
			for (int i = 0; i < c->n; i++)
				seen[i] |=
					np_nccl_log_env_line(line, c->set[i].name, c->set[i].value);
	*off = ftell(f);
	fclose(f);
	for (int i = 0; i < c->n; i++)
		if (!seen[i]) {
			snprintf(why, len,
				 "NCCL did not read %s=%s when it made this candidate's communicator (NCCL reads some variables once per process, and ignores names it does not know); measure it with one sweep per value, each with the variable exported, and compare",
				 c->set[i].name, c->set[i].value);
			return false;
		}
	return true;
}

long tune_log_size(void)
{
	const char *path = np_nccl_log_path();
	struct stat sb;

	return path && stat(path, &sb) == 0 ? (long)sb.st_size : 0;
}

/* Open MPI: the candidate's MCA variables written into mv[] when write
 * is set, agreed over the world; false, the arm refused and its
 * variables restored, when the MPI of any rank would not take them. */
static bool arm_mpit_set(struct tune *tu, struct arm *arm, bool write, struct mpit_var *mv)
{
	const struct np_tune_cand *c = arm->cand;
	char why[sizeof(arm->why)] = "";
	bool ok = true;
	int mine, all;

	if (write)
		for (int i = 0; i < c->n && ok; i++)
			ok = mpit_set(&c->set[i], &mv[i], why, sizeof(why));
	mine = ok;
	MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, tu->w->comm);
	if (all)
		return true;
	for (int i = 0; i < NP_TUNE_MAX_SETTINGS; i++)
		mpit_restore(&mv[i]);
	arm->state = NP_TUNE_ARM_REFUSED;
	/* rank 0's reason (the ranks run one MPI) */
	snprintf(arm->why, sizeof(arm->why), "%s",
		 why[0] ? why : "the MPI of another rank refused it");
	MPI_Bcast(arm->why, sizeof(arm->why), MPI_CHAR, 0, tu->w->comm);
	return false;
}

/* Arm a's backend initialized on its communicator, the candidate's
 * settings in the environment meanwhile when env is set (*off: the size
 * of NCCL's log before); false, the arm in error with the first failing
 * rank's reason, when it did not start on every rank. */
static bool arm_init(struct tune *tu, int a, bool env, long *off)
{
	struct arm *arm = &tu->arms[a];
	const struct np_tune_cand *c = arm->cand;
	struct saved_env sv;
	struct np_test_plan test = *tu->test;
	enum np_status st;
	char why[sizeof(arm->why)] = "";
	int mine, all;

	memset(&arm->be, 0, sizeof(arm->be));
	arm->be.ops = tu->ops;
	np_test_plan_arm(&test, a);
	np_backend_args(&arm->be, tu->o, &arm->w, &test);
	if (env) {
		*off = tune_log_size();
		env_apply(c, &sv);
	}
	np_watchdog_set_backend(&arm->be);
	np_watchdog_arrive(tu->w->comm, "%s backend initialization for %s", tu->ops->name,
			   arm_label(tu, a));
	st = tu->ops->init(&arm->be);
	np_watchdog_disarm();
	if (env)
		env_restore(c, &sv);
	arm->up = true;
	if (np_status_worst(tu->w->comm, st) == NP_OK)
		return true;
	arm->state = NP_TUNE_ARM_ERROR;
	snprintf(why, sizeof(why), "its communicator did not start: %.400s",
		 st ? arm->be.err.msg : "");
	mine = st != NP_OK && !arm->be.err.secondary ? tu->w->rank : tu->w->size;
	MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, tu->w->comm);
	if (all >= tu->w->size)
		all = 0;
	if (tu->w->rank == all)
		snprintf(arm->why, sizeof(arm->why), "%s", why);
	MPI_Bcast(arm->why, sizeof(arm->why), MPI_CHAR, all, tu->w->comm);
	return false;
}

/* NCCL: whether its log on every rank says it read the candidate's
 * settings since *off; the evidence kept, or the arm refused. */
static void arm_nccl_confirm(struct tune *tu, struct arm *arm, long *off)
{
	const struct np_tune_cand *c = arm->cand;
	char why[sizeof(arm->why)] = "";
	int mine, all;

	mine = nccl_confirms(c, off, why, sizeof(why));
	MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, tu->w->comm);
	if (!all) {
		arm->state = NP_TUNE_ARM_REFUSED;
		snprintf(arm->why, sizeof(arm->why), "%s",
			 why[0] ? why : "NCCL on another rank did not read it");
		MPI_Bcast(arm->why, sizeof(arm->why), MPI_CHAR, 0, tu->w->comm);
		return;
	}
	snprintf(arm->evidence, sizeof(arm->evidence),
		 "NCCL's log on every rank: \"%s set by environment to %s\" when the candidate's communicator was made%s",
		 c->set[0].name, c->set[0].value,
		 c->n > 1 ? ", and likewise for the other settings" : "");
}

/* Start arm a's backend on its own communicator with its setting in
 * effect. Collective over the world; every rank learns the outcome. */
void arm_start(struct tune *tu, int a)
{
	struct arm *arm = &tu->arms[a];
	const struct np_tune_cand *c = arm->cand;
	struct mpit_var mv[NP_TUNE_MAX_SETTINGS];
	bool mpit = (tu->ops->caps & NP_CAP_SETTINGS_MPIT) != 0;
	long off = 0;

	arm->w = *tu->w;
	arm->w.comm = MPI_COMM_NULL;
	arm->state = NP_TUNE_ARM_OK;
	memset(mv, 0, sizeof(mv));
	if (!arm_mpit_set(tu, arm, c && mpit, mv))
		return;
	MPI_Comm_dup(tu->w->comm, &arm->w.comm);
	for (int i = 0; i < NP_TUNE_MAX_SETTINGS; i++)
		mpit_restore(&mv[i]);
	if (c && mpit)
		snprintf(arm->evidence, sizeof(arm->evidence),
			 "Open MPI's MPI_T read back %.400s when the candidate's communicator was made",
			 c->label);
	if (!arm_init(tu, a, c && !mpit, &off))
		return;
	if (c && !mpit)
		arm_nccl_confirm(tu, arm, &off);
}

void arm_stop(struct arm *arm)
{
	if (arm->up)
		arm->be.ops->finalize(&arm->be);
	arm->up = false;
	if (arm->w.comm != MPI_COMM_NULL)
		MPI_Comm_free(&arm->w.comm);
}
