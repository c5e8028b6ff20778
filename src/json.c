/* SPDX-License-Identifier: MIT */
/* Streaming JSON writer. */
#include "config.h"

#include <math.h>

#include "json.h"

void np_json_init(struct np_json *j, FILE *f, bool pretty)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
	j->pretty = pretty;
}

void np_json_escape(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void indent(struct np_json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

static void member(struct np_json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (j->depth > 0)
		indent(j);
	if (key) {
		np_json_escape(j->f, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

static void open_(struct np_json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < NP_JSON_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct np_json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty)
		indent(j);
	fputc(c, j->f);
	if (j->depth == 0 && j->pretty)
		fputc('\n', j->f);
}

void np_json_obj_begin(struct np_json *j, const char *key) { open_(j, key, '{'); }
void np_json_obj_end(struct np_json *j) { close_(j, '}'); }
void np_json_arr_begin(struct np_json *j, const char *key) { open_(j, key, '['); }
void np_json_arr_end(struct np_json *j) { close_(j, ']'); }

void np_json_str(struct np_json *j, const char *key, const char *val)
{
	member(j, key);
	if (val)
		np_json_escape(j->f, val);
	else
		fputs("null", j->f);
}

void np_json_int(struct np_json *j, const char *key, long long val)
{
	member(j, key);
	fprintf(j->f, "%lld", val);
}

void np_json_uint(struct np_json *j, const char *key, unsigned long long val)
{
	member(j, key);
	fprintf(j->f, "%llu", val);
}

void np_json_num(struct np_json *j, const char *key, double val)
{
	member(j, key);
	if (isfinite(val))
		fprintf(j->f, "%.10g", val);
	else
		fputs("null", j->f);
}

void np_json_bool(struct np_json *j, const char *key, bool val)
{
	member(j, key);
	fputs(val ? "true" : "false", j->f);
}

void np_json_null(struct np_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

void np_json_envelope(struct np_json *j, const char *schema, int schema_version,
		      const struct np_run_record *rec, const char *backend)
{
	np_json_str(j, "schema", schema);
	np_json_int(j, "schema_version", schema_version);
	np_json_obj_begin(j, "tool");
	np_json_str(j, "name", PACKAGE_NAME);
	np_json_str(j, "version", PACKAGE_VERSION);
	np_json_obj_end(j);
	np_json_str(j, "run_id", rec->id);
	np_json_str(j, "start_time", rec->start_time);
	np_json_arr_begin(j, "cmdline");
	for (int i = 0; i < rec->argc; i++)
		np_json_str(j, NULL, rec->argv[i]);
	np_json_arr_end(j);
	if (backend)
		np_json_str(j, "backend", backend);
}
