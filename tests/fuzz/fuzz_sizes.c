/* SPDX-License-Identifier: MIT */
/* Fuzz target: the --sweep size parser (np_parse_size, np_parse_sweep) and
 * the list of sizes a parsed sweep gives. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct np_opts *o = calloc(1, sizeof(*o));
	struct np_err err;
	uint64_t v, *sizes;

	if (!s || !o)
		goto out;
	memcpy(s, data, size);
	s[size] = '\0';
	np_parse_size(s, &v, &err);
	if (np_parse_sweep(s, o, &err) == NP_OK) {
		size_t n = np_opts_sizes(o, NULL, 0);
		if (n > NP_MAX_SIZES + 1 || o->min_bytes > o->max_bytes)
			abort(); /* the parser promised otherwise */
		sizes = malloc((n ? n : 1) * sizeof(*sizes));
		if (sizes) {
			np_opts_sizes(o, sizes, n);
			for (size_t i = 1; i < n; i++)
				if (sizes[i] <= sizes[i - 1])
					abort(); /* sizes grow */
			free(sizes);
		}
	}
out:
	free(s);
	free(o);
	return 0;
}
