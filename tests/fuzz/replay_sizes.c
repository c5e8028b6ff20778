/* SPDX-License-Identifier: MIT */
/* Replays tests/fuzz/regress/sizes/list.txt through the --sweep parser in
 * the ordinary build (TAP): each line is "ok MIN MAX<TAB>value" or
 * "bad<TAB>value". The fuzz target fuzz_sizes.c explores the same parser. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/opts.h"

int main(int argc, char **argv)
{
	char path[4096], line[512];
	const char *dir = getenv("srcdir");
	FILE *f;
	int n = 0, failed = 0;

	snprintf(path, sizeof(path), "%s/tests/fuzz/regress/sizes/list.txt",
		 argc > 1 ? argv[1]
		 : dir    ? dir
			  : ".");
	f = fopen(path, "r");
	if (!f) {
		printf("1..0 # SKIP %s not found\n", path);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t'), *value;
		struct np_opts *o = calloc(1, sizeof(*o));
		struct np_err err;
		uint64_t lo = 0, hi = 0;
		bool want_ok, got_ok;

		if (line[0] == '#' || !tab || !o) {
			free(o);
			continue;
		}
		*tab = '\0';
		value = tab + 1;
		value[strcspn(value, "\n")] = '\0';
		want_ok = !strncmp(line, "ok", 2);
		if (want_ok && sscanf(line, "ok %" SCNu64 " %" SCNu64, &lo, &hi) != 2) {
			printf("not ok %d - malformed line '%s'\n", ++n, line);
			failed++;
			free(o);
			continue;
		}
		got_ok = np_parse_sweep(value, o, &err) == NP_OK;
		if (got_ok &&
		    (o->min_bytes > o->max_bytes || np_opts_sizes(o, NULL, 0) > NP_MAX_SIZES + 1))
			got_ok = false;
		if (want_ok != got_ok || (want_ok && (o->min_bytes != lo || o->max_bytes != hi))) {
			printf("not ok %d - '%s': wanted %s %" PRIu64 " %" PRIu64
			       ", got %s %" PRIu64 " %" PRIu64 " (%s)\n",
			       ++n, value, want_ok ? "ok" : "bad", lo, hi, got_ok ? "ok" : "bad",
			       o->min_bytes, o->max_bytes, got_ok ? "" : err.msg);
			failed++;
		} else {
			printf("ok %d - '%s' %s\n", ++n, value, want_ok ? "accepted" : "refused");
		}
		free(o);
	}
	fclose(f);
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
