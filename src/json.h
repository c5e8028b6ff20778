/* SPDX-License-Identifier: MIT */
/* A small streaming JSON writer: commas and nesting are tracked, strings
 * escaped (RFC 8259), non-finite numbers written as null. */
#ifndef NP_JSON_H
#define NP_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "run_record.h"

#define NP_JSON_DEPTH 32

struct np_json {
	FILE *f;
	int depth;
	bool first[NP_JSON_DEPTH]; /* no member written yet at this depth */
	bool pretty;
};

void np_json_init(struct np_json *j, FILE *f, bool pretty);
void np_json_obj_begin(struct np_json *j, const char *key); /* key NULL in arrays / top */
void np_json_obj_end(struct np_json *j);
void np_json_arr_begin(struct np_json *j, const char *key);
void np_json_arr_end(struct np_json *j);
void np_json_str(struct np_json *j, const char *key, const char *val); /* NULL -> null */
void np_json_int(struct np_json *j, const char *key, long long val);
void np_json_uint(struct np_json *j, const char *key, unsigned long long val);
void np_json_num(struct np_json *j, const char *key, double val); /* NaN/inf -> null */
void np_json_bool(struct np_json *j, const char *key, bool val);
void np_json_null(struct np_json *j, const char *key);

/* Write s as a JSON string literal (with quotes) to f. */
void np_json_escape(FILE *f, const char *s);

/* The envelope every document opens with, from one writer: "schema" and
 * "schema_version", "tool" {"name", "version"}, "run_id", "start_time",
 * "cmdline" (the run record, rank 0's) and, when backend is not NULL,
 * "backend" (its name; the sweep writes its own "backend" object). Call
 * it first, inside the document's top-level object. */
void np_json_envelope(struct np_json *j, const char *schema, int schema_version,
		      const struct np_run_record *rec, const char *backend);

#endif
