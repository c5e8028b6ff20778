/* SPDX-License-Identifier: MIT */
/* Unit tests of the document tree (src/doc.c): one tree written as the
 * table and as JSON, each compared with the text it must be, written out
 * here by hand: lines in document order, a row table's head and padded
 * cells, values that are JSON's alone or the table's alone, null for a
 * missing string and a number that is not finite, nesting. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/doc.h"
#include "tap.h"

/* what writing d gives, as a string (the caller frees it) */
static char *rendered(const struct np_doc *d, int json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (json)
		np_doc_write_json(d, f, NULL, NULL);
	else
		np_doc_write_table(d, f);
	fclose(f);
	return buf;
}

static const struct np_doc_col cols[] = {
	{ "name", -6, NULL },
	{ "n", 4, NULL },
	{ "note", 0, "  " },
};

static struct np_doc *sample(void)
{
	struct np_doc *d = np_doc_new(), *top = np_doc_top(d), *t, *r, *a, *o;

	np_doc_line(top, "# head %d", 1);
	np_doc_str(top, "title", "x");
	t = np_doc_table(top, "rows", cols, 3);
	r = np_doc_row(t);
	np_doc_str(r, "name", "ab");
	np_doc_int(r, "n", 12);
	np_doc_cell(r, 0, "ab");
	np_doc_cell(r, 1, "%d", 12);
	np_doc_cell(r, 2, "fine");
	r = np_doc_row(t);
	np_doc_str(r, "name", NULL);
	np_doc_num(r, "n", NAN);
	np_doc_cell(r, 0, "-");
	np_doc_cell(r, 1, "-");
	a = np_doc_arr(top, "list");
	np_doc_text(np_doc_uint(a, NULL, 7), "  seven");
	np_doc_bool(a, NULL, true);
	o = np_doc_obj(top, "more");
	np_doc_null(o, "none");
	np_doc_num(o, "half", 0.5);
	np_doc_line(o, "tail");
	return d;
}

int main(void)
{
	struct np_doc *d = sample();
	char *t, *j;

	tap_ok(np_doc_ok(d), "a document built in memory is whole");
	t = rendered(d, 0);
	tap_is_str(t,
		   "# head 1\n"
		   "name      n  note\n"
		   "ab       12  fine\n"
		   "-         -  \n"
		   "  seven\n"
		   "tail\n",
		   "the table: lines in order, the row table's head and padded cells");
	j = rendered(d, 1);
	tap_ok(j && !strstr(j, "head") && !strstr(j, "seven") && !strstr(j, "tail") &&
		       !strstr(j, "fine"),
	       "JSON holds none of the table's lines or cells");
	tap_ok(j && strstr(j, "\"title\": \"x\"") && strstr(j, "\"name\": \"ab\"") &&
		       strstr(j, "\"n\": 12") && strstr(j, "\"name\": null") &&
		       strstr(j, "\"n\": null") && strstr(j, "\"none\": null") &&
		       strstr(j, "\"half\": 0.5") && strstr(j, "true"),
	       "JSON holds every value, null for a missing string and a NaN");
	tap_ok(j && strstr(j, "\"rows\"") < strstr(j, "\"list\"") &&
		       strstr(j, "\"list\"") < strstr(j, "\"more\""),
	       "JSON members in document order");
	free(t);
	free(j);
	np_doc_free(d);

	/* a NULL parent (a node that could not be made) is taken and ignored */
	tap_ok(np_doc_str(NULL, "k", "v") == NULL && np_doc_row(NULL) == NULL,
	       "a NULL parent makes nothing");
	np_doc_cell(NULL, 0, "x");
	np_doc_text(NULL, "x");
	/* a stream's text is a node's line: its last newline dropped;
	 * nothing written, no line */
	d = np_doc_new();
	{
		struct np_doc *top = np_doc_top(d), *v = np_doc_int(top, "v", 3),
			      *e = np_doc_line(top, "gone");
		FILE *f = np_doc_open(v), *g = np_doc_open(e);
		if (f)
			fprintf(f, "a\n  b\n");
		np_doc_close(v, f);
		np_doc_close(e, g);
		np_doc_close(NULL, NULL);
		t = rendered(d, 0);
		j = rendered(d, 1);
	}
	tap_ok(np_doc_open(NULL) == NULL, "no stream for a NULL node");
	tap_is_str(t, "a\n  b\n",
		   "a stream's lines are its node's; an empty stream leaves no line");
	tap_ok(j && strstr(j, "\"v\": 3") && !strstr(j, "a\n"), "JSON holds the value alone");
	free(t);
	free(j);
	np_doc_free(d);
	d = np_doc_new();
	np_doc_nomem(np_doc_top(d));
	tap_ok(!np_doc_ok(d), "a document marked out of memory says so");
	np_doc_free(d);
	return tap_done();
}
