/* SPDX-License-Identifier: MIT */
/* One document tree, rendered as JSON or as the table (src/doc.h). */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "json.h"

enum kind { K_OBJ, K_ARR, K_STR, K_INT, K_UINT, K_NUM, K_BOOL, K_NULL, K_LINE };

struct np_doc {
	enum kind kind;
	const char *key; /* the caller's; NULL: an array's element, or a line */
	char *text;      /* the table's line (owned), NULL: none */
	union {
		char *s; /* owned; NULL: null */
		long long i;
		unsigned long long u;
		double d;
		bool b;
	} v;
	struct np_doc *kids, *last, *next;
	struct np_doc *top;            /* the document's first node, which holds failed */
	const struct np_doc_col *cols; /* a row table's columns */
	int ncols;
	char **cells; /* a row's cell texts (owned) */
	char *mem;    /* np_doc_open's stream's buffer, till np_doc_close */
	size_t memlen;
	bool failed;
};

static struct np_doc *add(struct np_doc *parent, enum kind k, const char *key)
{
	struct np_doc *n;

	if (!parent)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n) {
		parent->top->failed = true;
		return NULL;
	}
	n->kind = k;
	n->key = key;
	n->top = parent->top;
	if (parent->last)
		parent->last->next = n;
	else
		parent->kids = n;
	parent->last = n;
	return n;
}

struct np_doc *np_doc_new(void)
{
	struct np_doc *d = calloc(1, sizeof(*d));

	if (d) {
		d->kind = K_OBJ;
		d->top = d;
	}
	return d;
}

static void release(struct np_doc *n)
{
	while (n) {
		struct np_doc *next = n->next;
		release(n->kids);
		if (n->cells)
			for (int i = 0; i < n->ncols; i++)
				free(n->cells[i]);
		free(n->cells);
		free(n->text);
		free(n->mem);
		if (n->kind == K_STR)
			free(n->v.s);
		free(n);
		n = next;
	}
}

void np_doc_free(struct np_doc *d)
{
	if (!d)
		return;
	release(d->kids);
	free(d);
}

bool np_doc_ok(const struct np_doc *d) { return d && !d->failed; }

void np_doc_nomem(struct np_doc *node)
{
	if (node)
		node->top->failed = true;
}

struct np_doc *np_doc_top(struct np_doc *d) { return d; }

struct np_doc *np_doc_obj(struct np_doc *parent, const char *key)
{
	return add(parent, K_OBJ, key);
}

struct np_doc *np_doc_arr(struct np_doc *parent, const char *key)
{
	return add(parent, K_ARR, key);
}

struct np_doc *np_doc_str(struct np_doc *parent, const char *key, const char *v)
{
	struct np_doc *n = add(parent, v ? K_STR : K_NULL, key);

	if (n && v && !(n->v.s = strdup(v))) {
		n->kind = K_NULL;
		n->top->failed = true;
	}
	return n;
}

struct np_doc *np_doc_int(struct np_doc *parent, const char *key, long long v)
{
	struct np_doc *n = add(parent, K_INT, key);

	if (n)
		n->v.i = v;
	return n;
}

struct np_doc *np_doc_uint(struct np_doc *parent, const char *key, unsigned long long v)
{
	struct np_doc *n = add(parent, K_UINT, key);

	if (n)
		n->v.u = v;
	return n;
}

struct np_doc *np_doc_num(struct np_doc *parent, const char *key, double v)
{
	struct np_doc *n = add(parent, K_NUM, key);

	if (n)
		n->v.d = v;
	return n;
}

struct np_doc *np_doc_bool(struct np_doc *parent, const char *key, bool v)
{
	struct np_doc *n = add(parent, K_BOOL, key);

	if (n)
		n->v.b = v;
	return n;
}

struct np_doc *np_doc_null(struct np_doc *parent, const char *key)
{
	return add(parent, K_NULL, key);
}

/* fmt and ap as a new string; NULL (the document marked) out of memory */
NP_PRINTF(2, 0)
static char *vformat(struct np_doc *n, const char *fmt, va_list ap)
{
	va_list aq;
	int len;
	char *s;

	va_copy(aq, ap);
	len = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	s = len >= 0 ? malloc((size_t)len + 1) : NULL;
	if (!s) {
		n->top->failed = true;
		return NULL;
	}
	vsnprintf(s, (size_t)len + 1, fmt, ap);
	return s;
}

struct np_doc *np_doc_line(struct np_doc *parent, const char *fmt, ...)
{
	struct np_doc *n = add(parent, K_LINE, NULL);
	va_list ap;

	if (n) {
		va_start(ap, fmt);
		n->text = vformat(n, fmt, ap);
		va_end(ap);
	}
	return n;
}

void np_doc_text(struct np_doc *node, const char *fmt, ...)
{
	va_list ap;

	if (!node)
		return;
	free(node->text);
	va_start(ap, fmt);
	node->text = vformat(node, fmt, ap);
	va_end(ap);
}

FILE *np_doc_open(struct np_doc *node)
{
	FILE *f;

	if (!node)
		return NULL;
	free(node->mem);
	node->mem = NULL;
	node->memlen = 0;
	f = open_memstream(&node->mem, &node->memlen);
	if (!f)
		node->top->failed = true;
	return f;
}

void np_doc_close(struct np_doc *node, FILE *f)
{
	if (!node || !f)
		return;
	if (fclose(f) != 0 || !node->mem) {
		node->top->failed = true;
		free(node->mem);
		node->mem = NULL;
		return;
	}
	if (node->memlen && node->mem[node->memlen - 1] == '\n')
		node->mem[--node->memlen] = '\0';
	free(node->text);
	node->text = NULL;
	if (node->memlen)
		node->text = node->mem;
	else
		free(node->mem);
	node->mem = NULL;
}

struct np_doc *np_doc_table(struct np_doc *parent, const char *key, const struct np_doc_col *cols,
			    int ncols)
{
	struct np_doc *n = add(parent, K_ARR, key);

	if (n) {
		n->cols = cols;
		n->ncols = ncols;
	}
	return n;
}

struct np_doc *np_doc_row(struct np_doc *table)
{
	struct np_doc *n = table ? add(table, K_OBJ, NULL) : NULL;

	if (n) {
		n->ncols = table->ncols;
		n->cells = calloc((size_t)table->ncols, sizeof(*n->cells));
		if (!n->cells) {
			n->ncols = 0;
			n->top->failed = true;
		}
	}
	return n;
}

void np_doc_cell(struct np_doc *row, int col, const char *fmt, ...)
{
	va_list ap;

	if (!row || col < 0 || col >= row->ncols)
		return;
	free(row->cells[col]);
	va_start(ap, fmt);
	row->cells[col] = vformat(row, fmt, ap);
	va_end(ap);
}

/* One line of a row table: each column's text (head or cell) in its width */
static void table_line(FILE *f, const struct np_doc_col *cols, int ncols, char *const *cells,
		       bool head)
{
	for (int i = 0; i < ncols; i++) {
		const char *t = head ? cols[i].head : cells[i] ? cells[i] : "";
		if (i)
			fputs(cols[i].sep ? cols[i].sep : " ", f);
		if (cols[i].width)
			fprintf(f, "%*s", cols[i].width, t);
		else
			fputs(t, f);
	}
	fputc('\n', f);
}

static void write_table(const struct np_doc *n, FILE *f)
{
	for (; n; n = n->next) {
		if (n->text)
			fprintf(f, "%s\n", n->text);
		if (n->cols) {
			table_line(f, n->cols, n->ncols, NULL, true);
			for (const struct np_doc *r = n->kids; r; r = r->next)
				if (r->cells)
					table_line(f, n->cols, n->ncols, r->cells, false);
				else
					write_table(r, f);
			continue;
		}
		write_table(n->kids, f);
	}
}

void np_doc_write_table(const struct np_doc *d, FILE *f)
{
	if (d)
		write_table(d->kids, f);
}

static void write_json(struct np_json *j, const struct np_doc *n)
{
	for (; n; n = n->next) {
		switch (n->kind) {
		case K_OBJ:
			np_json_obj_begin(j, n->key);
			write_json(j, n->kids);
			np_json_obj_end(j);
			break;
		case K_ARR:
			np_json_arr_begin(j, n->key);
			write_json(j, n->kids);
			np_json_arr_end(j);
			break;
		case K_STR: np_json_str(j, n->key, n->v.s); break;
		case K_INT: np_json_int(j, n->key, n->v.i); break;
		case K_UINT: np_json_uint(j, n->key, n->v.u); break;
		case K_NUM: np_json_num(j, n->key, n->v.d); break;
		case K_BOOL: np_json_bool(j, n->key, n->v.b); break;
		case K_NULL: np_json_null(j, n->key); break;
		case K_LINE: break;
		}
	}
}

void np_doc_write_json(const struct np_doc *d, FILE *f, void (*head)(struct np_json *, void *),
		       void *arg)
{
	struct np_json j;

	if (!d)
		return;
	np_json_init(&j, f, true);
	np_json_obj_begin(&j, NULL);
	if (head)
		head(&j, arg);
	write_json(&j, d->kids);
	np_json_obj_end(&j);
}

bool np_doc_render(struct np_doc *d, FILE *f, bool json, void (*head)(struct np_json *, void *),
		   void *arg)
{
	bool ok = np_doc_ok(d);

	if (ok && json)
		np_doc_write_json(d, f, head, arg);
	else if (ok)
		np_doc_write_table(d, f);
	np_doc_free(d);
	return ok;
}
