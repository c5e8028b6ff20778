/* SPDX-License-Identifier: MIT */
/* Figures made by hand for the unit tests of isolate's judging
 * (test_isolate_judge, test_isolate_chance): a fleet of named nodes, a
 * figure whose batches are all alike, the judge's notes kept. */
#ifndef NP_TEST_ISO_FIXTURE_H
#define NP_TEST_ISO_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/isolate_judge.h"

#define MAXN 8
#define MAXNAMES 64 /* the leaf tests' fleets */
#define NT 8        /* batches per figure */

static char names[MAXNAMES][NP_ISO_NAMELEN];

/* A figure of kind over nodes a, b (-1 none) at busbw GB/s, its NT batches
 * all of the same time (1/busbw), so its interval is the point itself. */
static void add_fig(struct np_iso_judge *j, int round, enum np_iso_fig_kind kind, int a, int b,
		    double busbw, uint64_t wrong)
{
	struct np_iso_fig f;

	memset(&f, 0, sizeof(f));
	f.round = round;
	f.kind = kind;
	f.a = a;
	f.b = b;
	f.busbw = f.lo = f.hi = busbw;
	f.wrong = wrong;
	f.samples = f.nt = NT;
	f.t = malloc(NT * sizeof(double));
	for (int k = 0; k < NT; k++)
		f.t[k] = busbw > 0 ? 1 / busbw : 0;
	np_iso_fig_add(j, &f);
}

static int nnotes;
static char last_note[256];
static char all_notes[8192]; /* every note since setup, one a line, as fits */

static void note(void *arg, const char *msg)
{
	size_t off = strlen(all_notes);

	(void)arg;
	nnotes++;
	snprintf(last_note, sizeof(last_note), "%s", msg);
	snprintf(all_notes + off, sizeof(all_notes) - off, "%s\n", msg);
}

static void setup(struct np_iso_judge *j, int N, int L, double floor, double world_floor)
{
	for (int v = 0; v < MAXNAMES; v++)
		snprintf(names[v], sizeof(names[v]), "n%d", v);
	if (!np_iso_judge_init(j, N, L, (const char(*)[NP_ISO_NAMELEN])names, 0.05, floor,
			       world_floor)) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	j->note = note;
	j->note_arg = NULL;
	nnotes = 0;
	last_note[0] = '\0';
	all_notes[0] = '\0';
}

static int named(const struct np_iso_judge *j)
{
	int n = 0;

	for (int v = 0; v < j->N; v++)
		n += j->state[v] != NP_NODE_OK;
	return n;
}

#endif
