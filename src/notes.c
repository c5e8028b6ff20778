/* SPDX-License-Identifier: MIT */
/* A report's notes (src/notes.h): a growable list of formatted lines. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "notes.h"

void np_notes_vadd(struct np_notes *ns, const char *fmt, va_list ap)
{
	va_list aq;
	char *s;
	int len;

	va_copy(aq, ap);
	len = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (len < 0)
		np_abort(NP_EXIT_RUNTIME, "cannot format a note ('%s')", fmt);
	if (ns->n == ns->cap) {
		int cap = ns->cap ? ns->cap * 2 : 8;
		char **v = realloc(ns->v, (size_t)cap * sizeof(*v));
		if (!v)
			np_abort(NP_EXIT_RUNTIME, "out of memory for notes");
		ns->v = v;
		ns->cap = cap;
	}
	s = malloc((size_t)len + 1);
	if (!s)
		np_abort(NP_EXIT_RUNTIME, "out of memory for notes");
	vsnprintf(s, (size_t)len + 1, fmt, ap);
	ns->v[ns->n++] = s;
}

void np_notes_add(struct np_notes *ns, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	np_notes_vadd(ns, fmt, ap);
	va_end(ap);
}

void np_notes_release(struct np_notes *ns)
{
	for (int i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
	memset(ns, 0, sizeof(*ns));
}
