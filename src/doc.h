/* SPDX-License-Identifier: MIT */
/* A document: one tree that each format renders, JSON for programs and
 * the table for people, so that the two cannot drift apart. A node holds
 * a JSON value (under its key in an object, an element in an array) and
 * what the table shows of it: a line of text, the cells of a row in a
 * table of columns, or nothing. A line or a cell with no JSON value is
 * the table's alone; a value with no text is JSON's alone.
 *
 * Building never fails from the caller's view: out of memory, the
 * document is marked and np_doc_ok() says so before it is written. */
#ifndef NP_DOC_H
#define NP_DOC_H

#include <stdbool.h>
#include <stdio.h>

#include "msg.h" /* NP_PRINTF */

struct np_json;
struct np_doc;

/* A column of a row table: its head, its width (negative: left-aligned;
 * 0: the last column, unpadded) and what separates it from the column
 * before (one blank where NULL). */
struct np_doc_col {
	const char *head;
	int width;
	const char *sep;
};

/* The document: a JSON object at its top. */
struct np_doc *np_doc_new(void);
void np_doc_free(struct np_doc *d);
/* Whether every node and text was made (false: out of memory). */
bool np_doc_ok(const struct np_doc *d);
/* Marks node's document: something the caller made for it failed. */
void np_doc_nomem(struct np_doc *node);
/* The top object, to add members to. */
struct np_doc *np_doc_top(struct np_doc *d);

/* Members of an object (key) or elements of an array (key NULL); each
 * returns the node made, NULL when out of memory (every function takes a
 * NULL parent and does nothing). */
struct np_doc *np_doc_obj(struct np_doc *parent, const char *key);
struct np_doc *np_doc_arr(struct np_doc *parent, const char *key);
struct np_doc *np_doc_str(struct np_doc *parent, const char *key, const char *v); /* NULL: null */
struct np_doc *np_doc_int(struct np_doc *parent, const char *key, long long v);
struct np_doc *np_doc_uint(struct np_doc *parent, const char *key, unsigned long long v);
struct np_doc *np_doc_num(struct np_doc *parent, const char *key, double v); /* NaN, inf: null */
struct np_doc *np_doc_bool(struct np_doc *parent, const char *key, bool v);
struct np_doc *np_doc_null(struct np_doc *parent, const char *key);

/* A line of the table under parent, in order among its members (the
 * table's alone when the node has no JSON value: np_doc_line makes
 * one; np_doc_text gives node its line). */
struct np_doc *np_doc_line(struct np_doc *parent, const char *fmt, ...) NP_PRINTF(2, 3);
void np_doc_text(struct np_doc *node, const char *fmt, ...) NP_PRINTF(2, 3);

/* A stream whose text becomes node's line (as np_doc_text) when
 * np_doc_close closes it: for a writer that prints, such as np_wrap's
 * broken lines. One newline at its end is dropped; nothing written: no
 * line. NULL (a NULL node, or out of memory: the document marked) when
 * it cannot be opened; np_doc_close takes that NULL and does nothing. */
FILE *np_doc_open(struct np_doc *node);
void np_doc_close(struct np_doc *node, FILE *f);

/* An array rendered in the table as rows under a head line of its
 * columns (cols[n], kept by the caller); np_doc_row adds a row (a JSON
 * object), np_doc_cell the text of its column i (the table's alone). */
struct np_doc *np_doc_table(struct np_doc *parent, const char *key, const struct np_doc_col *cols,
			    int ncols);
struct np_doc *np_doc_row(struct np_doc *table);
void np_doc_cell(struct np_doc *row, int col, const char *fmt, ...) NP_PRINTF(3, 4);

/* The table: every line and row table in document order. */
void np_doc_write_table(const struct np_doc *d, FILE *f);
/* JSON: every value in document order; head, when not NULL, writes the
 * top object's first members (the envelope, src/json.h). */
void np_doc_write_json(const struct np_doc *d, FILE *f, void (*head)(struct np_json *, void *),
		       void *arg);

/* d written as JSON (head as np_doc_write_json) or as its table, then
 * freed; false, nothing written, when it is not whole (np_doc_ok) */
bool np_doc_render(struct np_doc *d, FILE *f, bool json, void (*head)(struct np_json *, void *),
		   void *arg);

#endif
