/* SPDX-License-Identifier: MIT */
/* A report's notes: one line each, in the order added, as many as are
 * added (none is dropped or cut short). The text and JSON writers print
 * v[0..n). */
#ifndef NP_NOTES_H
#define NP_NOTES_H

#include <stdarg.h>

#include "msg.h"

/* A zeroed struct np_notes is an empty list. */
struct np_notes {
	char **v; /* the notes, each owned by the list */
	int n;
	int cap;
};

/* Add one note, formatted as printf does. Out of memory ends the process
 * (np_abort). */
void np_notes_add(struct np_notes *ns, const char *fmt, ...) NP_PRINTF(2, 3);
void np_notes_vadd(struct np_notes *ns, const char *fmt, va_list ap) NP_PRINTF(2, 0);

/* Free every note; the list is empty again. */
void np_notes_release(struct np_notes *ns);

#endif
