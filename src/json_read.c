/* SPDX-License-Identifier: MIT */
/* The JSON reader: recursive descent over a buffer, depth bounded by
 * NP_JREAD_MAX_DEPTH, every error one message with the byte offset. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_read.h"
#include "outfile.h"

struct jp {
	const char *p, *end, *start;
	const char *what;
	struct np_err *err;
	size_t nvalues;
	size_t mem; /* what the document holds: values, strings, keys */
};

/* bytes more held; false (and err set) past NP_JREAD_MAX_MEM */
static bool hold(struct jp *j, size_t bytes, const char *at)
{
	j->mem += bytes;
	if (j->mem <= NP_JREAD_MAX_MEM)
		return true;
	np_fail(j->err, NP_EUSAGE,
		"'%s' needs more than %u MiB of memory to read (its values, strings and names) at byte %zu; give a JSON report of nccl-probe",
		j->what, NP_JREAD_MAX_MEM >> 20, (size_t)(at - j->start));
	return false;
}

static enum np_status jfail(struct jp *j, const char *at, const char *why)
{
	size_t off = (size_t)((at ? at : j->p) - j->start);

	return np_fail(j->err, NP_EUSAGE,
		       "'%s' is not a valid JSON report: %s at byte %zu; give a file that nccl-probe wrote with --format json",
		       j->what, why, off);
}

static void skip_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool hex4(struct jp *j, const char *q, unsigned *out)
{
	unsigned v = 0;

	if (j->end - q < 4)
		return false;
	for (int i = 0; i < 4; i++) {
		int h = hexval(q[i]);
		if (h < 0)
			return false;
		v = v << 4 | (unsigned)h;
	}
	*out = v;
	return true;
}

static size_t utf8_put(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string at j->p (the opening quote); *out is malloc'ed. The unescaped
 * text is never longer than the escaped one. */
static enum np_status parse_string(struct jp *j, char **out)
{
	const char *q = j->p + 1, *close = q;
	char *s, *o;

	/* find the closing quote first, so the buffer is sized once */
	while (close < j->end && *close != '"') {
		if (*close == '\\' && close + 1 < j->end)
			close++;
		close++;
	}
	if (close >= j->end)
		return jfail(j, j->p, "unterminated string");
	/* the string and what malloc keeps beside it */
	if (!hold(j, ((size_t)(close - q) + 1 + 15) / 16 * 16 + 16, j->p))
		return NP_EUSAGE;
	s = o = malloc((size_t)(close - q) + 1);
	if (!s)
		return np_fail(j->err, NP_ENOMEM, "out of memory reading '%s'", j->what);
	while (q < close) {
		unsigned char c = (unsigned char)*q;
		if (c < 0x20) {
			free(s);
			return jfail(j, q,
				     c ? "control character in a string" : "NUL byte in a string");
		}
		if (c != '\\') {
			*o++ = (char)c;
			q++;
			continue;
		}
		q++;
		switch (*q) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u': {
			unsigned cp, lo;
			if (!hex4(j, q + 1, &cp)) {
				free(s);
				return jfail(j, q - 1, "bad \\u escape (four hex digits expected)");
			}
			q += 4;
			if (cp >= 0xdc00 && cp <= 0xdfff) {
				free(s);
				return jfail(j, q - 5, "lone low surrogate in a \\u escape");
			}
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (q + 2 >= close || q[1] != '\\' || q[2] != 'u' ||
				    !hex4(j, q + 3, &lo) || lo < 0xdc00 || lo > 0xdfff) {
					free(s);
					return jfail(j, q - 5,
						     "high surrogate without its low surrogate in a \\u escape");
				}
				q += 6;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			if (cp == 0) {
				free(s);
				return jfail(j, q - 5, "\\u0000 in a string");
			}
			o += utf8_put(o, cp);
			break;
		}
		default: free(s); return jfail(j, q - 1, "bad escape in a string");
		}
		q++;
	}
	*o = '\0';
	j->p = close + 1;
	*out = s;
	return NP_OK;
}

/* A number, checked against the grammar before strtod (which would also
 * take hex, inf and nan), and finite. */
static enum np_status parse_number(struct jp *j, double *out)
{
	const char *q = j->p, *num = q;
	char buf[64], *end;
	double v;

	if (q < j->end && *q == '-')
		q++;
	if (q < j->end && *q == '0')
		q++;
	else if (q < j->end && *q >= '1' && *q <= '9')
		while (q < j->end && *q >= '0' && *q <= '9')
			q++;
	else
		return jfail(j, num, "invalid value");
	if (q < j->end && *q == '.') {
		q++;
		if (q >= j->end || *q < '0' || *q > '9')
			return jfail(j, q, "digit expected after the decimal point");
		while (q < j->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < j->end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < j->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= j->end || *q < '0' || *q > '9')
			return jfail(j, q, "digit expected in the exponent");
		while (q < j->end && *q >= '0' && *q <= '9')
			q++;
	}
	if ((size_t)(q - num) >= sizeof(buf))
		return jfail(j, num, "number longer than 63 characters");
	memcpy(buf, num, (size_t)(q - num));
	buf[q - num] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (*end || !isfinite(v) || (errno == ERANGE && fabs(v) > 1))
		return jfail(j, num, "number out of range");
	*out = errno == ERANGE ? 0 : v; /* underflow: as good as zero */
	j->p = q;
	return NP_OK;
}

static enum np_status parse_value(struct jp *j, struct np_jval *v, int depth);

static enum np_status grow(struct jp *j, struct np_jval *v, size_t *cap, bool keys)
{
	size_t ncap = *cap ? *cap * 2 : 8;
	struct np_jval *items;

	if (v->n < *cap)
		return NP_OK;
	items = realloc(v->items, ncap * sizeof(*items));
	if (!items)
		return np_fail(j->err, NP_ENOMEM, "out of memory reading '%s'", j->what);
	v->items = items;
	if (keys) {
		char **k = realloc(v->keys, ncap * sizeof(*k));
		if (!k)
			return np_fail(j->err, NP_ENOMEM, "out of memory reading '%s'", j->what);
		v->keys = k;
	}
	*cap = ncap;
	return NP_OK;
}

/* A container's arrays cut to its items once it is whole (growth left up
 * to half of them unused) */
static void shrink(struct np_jval *v, size_t cap)
{
	if (v->n >= cap)
		return;
	struct np_jval *items = realloc(v->items, v->n * sizeof(*items));
	if (items)
		v->items = items;
	if (v->keys) {
		char **k = realloc(v->keys, v->n * sizeof(*k));
		if (k)
			v->keys = k;
	}
}

static enum np_status parse_container(struct jp *j, struct np_jval *v, int depth)
{
	bool obj = *j->p == '{';
	char close = obj ? '}' : ']';
	size_t cap = 0;
	enum np_status st;

	if (depth >= NP_JREAD_MAX_DEPTH)
		return jfail(j, j->p, "nesting deeper than 64 levels");
	v->type = obj ? NP_J_OBJ : NP_J_ARR;
	j->p++;
	skip_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return NP_OK;
	}
	for (;;) {
		char *key = NULL;
		skip_ws(j);
		if ((st = grow(j, v, &cap, obj)))
			return st;
		if (obj) {
			if (j->p >= j->end || *j->p != '"')
				return jfail(j, NULL,
					     j->p >= j->end ? "unexpected end of input"
							    : "member name expected");
			if ((st = parse_string(j, &key)))
				return st;
			skip_ws(j);
			if (j->p >= j->end || *j->p != ':') {
				free(key);
				return jfail(j, NULL, "':' expected");
			}
			j->p++;
			v->keys[v->n] = key;
			if (!hold(j, sizeof(*v->keys), j->p)) {
				memset(&v->items[v->n], 0, sizeof(v->items[0]));
				v->n++; /* so that the key is freed */
				return NP_EUSAGE;
			}
		}
		memset(&v->items[v->n], 0, sizeof(v->items[0]));
		v->n++; /* counted before parsing, so a failure frees it */
		if ((st = parse_value(j, &v->items[v->n - 1], depth + 1)))
			return st;
		skip_ws(j);
		if (j->p >= j->end)
			return jfail(j, NULL, "unexpected end of input");
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p == close) {
			j->p++;
			shrink(v, cap);
			return NP_OK;
		}
		return jfail(j, NULL, obj ? "',' or '}' expected" : "',' or ']' expected");
	}
}

static enum np_status parse_value(struct jp *j, struct np_jval *v, int depth)
{
	skip_ws(j);
	v->offset = (uint32_t)(j->p - j->start); /* below NP_JREAD_MAX_BYTES */
	if (++j->nvalues > NP_JREAD_MAX_VALUES)
		return jfail(j, NULL, "more than 4194304 values");
	if (!hold(j, sizeof(struct np_jval), j->p))
		return NP_EUSAGE;
	if (j->p >= j->end)
		return jfail(j, NULL, "unexpected end of input");
	switch (*j->p) {
	case '{':
	case '[': return parse_container(j, v, depth);
	case '"': v->type = NP_J_STR; return parse_string(j, &v->str);
	case 't':
	case 'f':
	case 'n': {
		static const char *const words[] = { "true", "false", "null" };
		for (int i = 0; i < 3; i++) {
			size_t len = strlen(words[i]);
			if ((size_t)(j->end - j->p) >= len && !memcmp(j->p, words[i], len)) {
				v->type = i == 2 ? NP_J_NULL : NP_J_BOOL;
				v->b = i == 0;
				j->p += len;
				return NP_OK;
			}
		}
		return jfail(j, NULL, "invalid value");
	}
	case '\0': return jfail(j, NULL, "NUL byte");
	default: v->type = NP_J_NUM; return parse_number(j, &v->num);
	}
}

enum np_status np_json_parse(const char *buf, size_t len, const char *what, struct np_jval *out,
			     struct np_err *err)
{
	struct jp j = { buf, buf + len, buf, what, err, 0, 0 };
	enum np_status st;

	memset(out, 0, sizeof(*out));
	if (len > NP_JREAD_MAX_BYTES)
		return np_fail(err, NP_EUSAGE,
			       "'%s' is larger than %u MiB; give a JSON report of nccl-probe", what,
			       NP_JREAD_MAX_BYTES >> 20);
	st = parse_value(&j, out, 0);
	if (!st) {
		skip_ws(&j);
		if (j.p < j.end)
			st = jfail(&j, NULL, *j.p ? "data after the JSON value" : "NUL byte");
	}
	if (st) {
		np_jval_free(out);
		memset(out, 0, sizeof(*out));
	}
	return st;
}

enum np_status np_json_parse_file(const char *path, struct np_jval *out, struct np_err *err)
{
	/* O_NONBLOCK: opening a FIFO waits for a writer, which may never
	 * come; it is refused below like any file that is not regular */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	FILE *f;
	struct stat sb;
	char *buf;
	size_t len;
	enum np_status st;

	memset(out, 0, sizeof(*out));
	if (fd < 0) {
		if (errno == ENOMEM)
			return np_fail(err, NP_ENOMEM, "out of memory reading '%s'", path);
		return np_fail(err, NP_EUSAGE,
			       "cannot read '%s': %s; give a JSON report of nccl-probe", path,
			       strerror(errno));
	}
	if (fstat(fd, &sb) != 0) {
		int e = errno;
		close(fd);
		return np_fail(err, NP_EUSAGE, "cannot read '%s': %s", path, strerror(e));
	}
	if (!S_ISREG(sb.st_mode)) {
		close(fd);
		return np_fail(err, NP_EUSAGE,
			       "'%s' is a %s, not a regular file; give a JSON report file of nccl-probe",
			       path, np_file_type_str(sb.st_mode));
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 || !(f = fdopen(fd, "rb"))) {
		int e = errno;
		close(fd);
		return np_fail(err, e == ENOMEM ? NP_ENOMEM : NP_EUSAGE, "cannot read '%s': %s",
			       path, strerror(e));
	}
	if ((uint64_t)sb.st_size > NP_JREAD_MAX_BYTES) {
		fclose(f);
		return np_fail(err, NP_EUSAGE,
			       "'%s' is larger than %u MiB; give a JSON report of nccl-probe", path,
			       NP_JREAD_MAX_BYTES >> 20);
	}
	buf = malloc((size_t)sb.st_size + 1);
	if (!buf) {
		fclose(f);
		return np_fail(err, NP_ENOMEM, "out of memory reading '%s'", path);
	}
	/* read what is there: the file may change size under us */
	len = fread(buf, 1, (size_t)sb.st_size + 1, f);
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return np_fail(err, NP_EUSAGE, "cannot read '%s': %s", path, strerror(errno));
	}
	fclose(f);
	if (len > (size_t)sb.st_size)
		len = (size_t)sb.st_size;
	st = np_json_parse(buf, len, path, out, err);
	free(buf);
	return st;
}

void np_jval_free(struct np_jval *v)
{
	if (!v)
		return;
	if (v->type == NP_J_STR)
		free(v->str);
	if (v->type == NP_J_ARR || v->type == NP_J_OBJ) {
		for (size_t i = 0; i < v->n; i++) {
			np_jval_free(&v->items[i]);
			if (v->keys)
				free(v->keys[i]);
		}
		free(v->items);
		free(v->keys);
	}
	v->items = NULL; /* and str */
	v->keys = NULL;
	v->n = 0;
}

const struct np_jval *np_jget(const struct np_jval *v, const char *key)
{
	if (!v || v->type != NP_J_OBJ)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

const struct np_jval *np_jget2(const struct np_jval *v, const char *k1, const char *k2)
{
	return np_jget(np_jget(v, k1), k2);
}

const char *np_jstr(const struct np_jval *v) { return v && v->type == NP_J_STR ? v->str : NULL; }
