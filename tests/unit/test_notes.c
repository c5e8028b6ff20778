/* SPDX-License-Identifier: MIT */
/* Unit tests: a report's notes (src/notes.c) keep every note, whole, in
 * the order added (the fixed arrays they replace dropped notes past 8 or
 * 16 and cut each at 256 bytes). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "../../src/notes.h"
#include "tap.h"

int main(void)
{
	struct np_notes ns = { 0 };
	char want[64], long_note[1001];
	int in_order = 1;

	tap_ok(ns.n == 0, "a zeroed list is empty");
	np_notes_add(&ns, "node %s is below the fleet by %d%%", "n03", 30);
	tap_is_int(ns.n, 1, "one note added");
	tap_is_str(ns.v[0], "node n03 is below the fleet by 30%",
		   "the note is formatted as printf does");

	for (int i = 1; i < 100; i++)
		np_notes_add(&ns, "note %d", i);
	tap_is_int(ns.n, 100, "100 notes added, 100 kept (none dropped past a fixed count)");
	for (int i = 1; i < 100; i++) {
		snprintf(want, sizeof(want), "note %d", i);
		in_order &= !strcmp(ns.v[i], want);
	}
	tap_ok(in_order, "every note in the order added");

	memset(long_note, 'x', sizeof(long_note) - 1);
	long_note[sizeof(long_note) - 1] = '\0';
	np_notes_add(&ns, "%s", long_note);
	tap_is_int((int)strlen(ns.v[100]), 1000, "a note of 1000 bytes is kept whole");

	np_notes_release(&ns);
	tap_ok(ns.n == 0 && ns.v == NULL && ns.cap == 0, "release empties the list");
	np_notes_add(&ns, "after release");
	tap_ok(ns.n == 1 && !strcmp(ns.v[0], "after release"), "a released list takes notes again");
	np_notes_release(&ns);
	np_notes_release(&ns);
	tap_ok(ns.n == 0, "releasing an empty list is harmless");
	return tap_done();
}
