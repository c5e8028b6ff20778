/* SPDX-License-Identifier: MIT */
/* A small JSON reader (RFC 8259) for reports that come back from files
 * (compare): bounded input size and nesting depth, numbers through strtod
 * with a range check, strings unescaped to UTF-8. Any invalid or hostile
 * input is NP_EUSAGE with one message naming the file and the byte offset;
 * it never crashes. */
#ifndef NP_JSON_READ_H
#define NP_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/status.h"

#define NP_JREAD_MAX_BYTES (64u << 20) /* larger files are refused */
#define NP_JREAD_MAX_DEPTH 64          /* arrays and objects nested deeper are refused */
#define NP_JREAD_MAX_VALUES (4u << 20) /* values in one file (32 B each) */
/* what a document may hold: values, strings, names (a report of 4 Mi
 * numbers holds 128 MiB) */
#define NP_JREAD_MAX_MEM (192u << 20)

enum np_jtype { NP_J_NULL, NP_J_BOOL, NP_J_NUM, NP_J_STR, NP_J_ARR, NP_J_OBJ };

/* One value in 32 bytes (4 Mi values of a 64 MiB file: 128 MiB): what a
 * type does not use shares its place, so read num, str or items only for
 * their type. */
struct np_jval {
	union {
		double num;            /* NP_J_NUM: finite */
		char *str;             /* NP_J_STR: NUL-terminated UTF-8; \u0000 is refused */
		struct np_jval *items; /* NP_J_ARR, NP_J_OBJ: array items, object values */
	};
	char **keys;        /* NP_J_OBJ: object keys (same order as items) */
	uint32_t n;         /* items of an array, members of an object; 0 otherwise */
	uint32_t offset;    /* byte offset of the value in its input */
	unsigned char type; /* enum np_jtype */
	bool b;             /* NP_J_BOOL */
};

/* Parse len bytes of buf (what names it in messages: a file name) into
 * *out, which np_jval_free releases. Trailing whitespace only. */
enum np_status np_json_parse(const char *buf, size_t len, const char *what, struct np_jval *out,
			     struct np_err *err);
/* Read a whole file (at most NP_JREAD_MAX_BYTES) and parse it. Anything
 * but a regular file (a FIFO, a directory, a device) is NP_EUSAGE, refused
 * without waiting for a writer. */
enum np_status np_json_parse_file(const char *path, struct np_jval *out, struct np_err *err);
void np_jval_free(struct np_jval *v);

/* The member key of object v (the first of duplicates), or NULL when v is
 * not an object or has no such member. */
const struct np_jval *np_jget(const struct np_jval *v, const char *key);
/* A member of a member ("world", "ranks"), or NULL. */
const struct np_jval *np_jget2(const struct np_jval *v, const char *k1, const char *k2);
/* The string of v, or NULL when v is not a string. */
const char *np_jstr(const struct np_jval *v);

#endif
