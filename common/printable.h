/* SPDX-License-Identifier: MIT */
/* Text from a file or another rank made safe to print: control characters
 * (C0, DEL, C1) and bytes that are not UTF-8 written as \xNN, so that a
 * string cannot move the cursor, retitle or clear a terminal, or forge a
 * second line (a CR or LF before "error: ..."). Valid UTF-8 passes whole. */
#ifndef NP_PRINTABLE_H
#define NP_PRINTABLE_H

#include <stddef.h>
#include <stdio.h>

/* s (NULL as "") escaped into buf of len bytes (len >= 1), cut at a whole
 * character or escape when it does not fit; returns buf. */
char *np_printable(char *buf, size_t len, const char *s);
/* s escaped, written to f. */
void np_fputs_printable(FILE *f, const char *s);

#endif
