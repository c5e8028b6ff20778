/* SPDX-License-Identifier: MIT */
/* Topology files as untrusted input: read once, parsed once by libxml2
 * with every DTD declaration refused; hwloc XML is checked against what
 * hwloc 2.x's importer assumes in xmlfile_hwloc.c. */
#define _GNU_SOURCE /* memmem */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwloc.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>

#include "../common/number.h"
#include "xmlfile.h"

#define NP_STR_(x) #x
#define NP_STR(x) NP_STR_(x)

bool np_xml_long(const char *s, int base, long lo, long hi, long *out, const char **why)
{
	const char *end, *digits;
	int64_t v;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s) {
		*why = "is empty";
		return false;
	}
	/* blanks around the number are XML's; the number the checked parser's */
	digits = s + (*s == '-');
	if (base == 16 && *s != '-' && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
		digits += 2; /* NCCL writes class="0x060400" */
	if (!isxdigit((unsigned char)*digits) || (base != 16 && !isdigit((unsigned char)*digits))) {
		*why = "is not a whole number";
		return false;
	}
	end = *s == '-' ? s : digits;
	if (!np_scan_i64(&end, base, INT64_MIN, INT64_MAX, &v)) {
		*why = "is out of range"; /* beyond 64 bits */
		return false;
	}
	while (isspace((unsigned char)*end))
		end++;
	if (*end) {
		*why = "is not a whole number";
		return false;
	}
	if (v < lo || v > hi) {
		*why = "is out of range";
		return false;
	}
	*out = v;
	return true;
}

bool np_xml_double(const char *s, double lo, double hi, double *out, const char **why)
{
	char *end;
	double v;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s) {
		*why = "is empty";
		return false;
	}
	errno = 0;
	v = strtod(s, &end);
	while (end != s && isspace((unsigned char)*end))
		end++;
	if (end == s || *end) {
		*why = "is not a number";
		return false;
	}
	if (!isfinite(v) || errno == ERANGE || v < lo || v > hi) {
		*why = "is out of range";
		return false;
	}
	*out = v;
	return true;
}

void np_xml_release(struct np_xml *x)
{
	if (x->doc)
		xmlFreeDoc(x->doc);
	free(x->buf);
	x->doc = NULL;
	x->buf = NULL;
	x->len = 0;
}

/* What the parse refused, set from libxml2's SAX callbacks. */
struct guard {
	const char *what;
	char ref[64]; /* the entity referred to, when that was what */
	int line;     /* and its line */
	bool oom;     /* libxml2 ran out of memory (later errors hide it) */
};

static void refuse(void *ctx, const char *what)
{
	xmlParserCtxtPtr ctxt = ctx;
	struct guard *g = ctxt->_private;

	if (!g->what)
		g->what = what;
	xmlStopParser(ctxt);
}

static void on_entity(void *ctx, const xmlChar *name, int type, const xmlChar *pub,
		      const xmlChar *sys, xmlChar *content)
{
	refuse(ctx, "an entity");
}

static void on_unparsed(void *ctx, const xmlChar *name, const xmlChar *pub, const xmlChar *sys,
			const xmlChar *notation)
{
	refuse(ctx, "an entity");
}

/* A reference to an entity other than the five predefined ones: none can
 * be declared here (on_entity refuses that), so it names nothing, and
 * libxml2 keeps it as an unresolved reference inside the attribute or
 * text, which hwloc's importer then drops (with the object, and hwloc's
 * own message on stderr). */
static xmlEntityPtr on_get_entity(void *ctx, const xmlChar *name)
{
	xmlParserCtxtPtr ctxt = ctx;
	struct guard *g = ctxt->_private;
	xmlEntityPtr e = xmlGetPredefinedEntity(name);

	if (e)
		return e;
	if (!g->what) {
		snprintf(g->ref, sizeof(g->ref), "%.60s", (const char *)name);
		g->line = ctxt->input ? ctxt->input->line : 0;
		for (char *c = g->ref; *c; c++)
			if (!isprint((unsigned char)*c))
				*c = '?';
	}
	refuse(ctx, "a reference to an entity");
	return NULL;
}

static void on_element(void *ctx, const xmlChar *name, int type, xmlElementContentPtr content)
{
	refuse(ctx, "an element");
}

static void on_attribute(void *ctx, const xmlChar *elem, const xmlChar *fullname, int type, int def,
			 const xmlChar *dflt, xmlEnumerationPtr tree)
{
	xmlFreeEnumeration(tree); /* the handler owns it */
	refuse(ctx, "an attribute list");
}

/* Errors stay in the context (xmlCtxtGetLastError). Those raised without
 * one (encoding errors) go to the process-wide generic handler, which
 * hwloc's XML plugin points into itself and leaves dangling when the last
 * topology is destroyed and the plugin unloaded: it is reset before each
 * parse. */
static void on_error(void *ctx, xmlErrorPtr e)
{
	xmlParserCtxtPtr ctxt = ctx;

	if (e && (e->code == XML_ERR_NO_MEMORY || e->domain == XML_FROM_MEMORY) && ctxt &&
	    ctxt->_private)
		((struct guard *)ctxt->_private)->oom = true;
}

static void on_generic_error(void *ctx, const char *fmt, ...) {}

static void on_notation(void *ctx, const xmlChar *name, const xmlChar *pub, const xmlChar *sys)
{
	refuse(ctx, "a notation");
}

void np_xml_one_line(const char *in, char *out, size_t len)
{
	size_t k = 0;

	for (; in && *in && k + 1 < len; in++)
		out[k++] = (*in == '\n' || *in == '\r')  ? ' '
			   : isprint((unsigned char)*in) ? *in
							 : '?';
	while (k > 0 && out[k - 1] == ' ')
		k--;
	out[k] = '\0';
}

/* Whether the parse failed for want of memory: libxml2 says
 * XML_ERR_NO_MEMORY to the error handler (the errors that follow replace
 * it as the last one), in the context or, where it had no context to
 * tell (copying the input), in its process-wide last error. */
static bool out_of_memory(xmlParserCtxtPtr ctxt, const struct guard *gd)
{
	const xmlError *e = xmlCtxtGetLastError(ctxt), *g = xmlGetLastError();

	return gd->oom || ctxt->errNo == XML_ERR_NO_MEMORY || (e && e->code == XML_ERR_NO_MEMORY) ||
	       (g && g->code == XML_ERR_NO_MEMORY);
}

/* One linear pass over the markup that bounds what libxml2 would build:
 * comments, processing instructions, CDATA, declarations and quoted
 * values are skipped whole; what the pass cannot follow is left to
 * libxml2, which refuses it. Returns the bound passed, or NULL. */
struct scan {
	const char *b;
	size_t n, i;
	int line;
};

static void skip_past(struct scan *s, const char *mark)
{
	size_t m = strlen(mark), to = s->n;
	const char *p = memmem(s->b + s->i, s->n - s->i, mark, m);

	if (p)
		to = (size_t)(p - s->b) + m;
	for (; s->i < to; s->i++)
		if (s->b[s->i] == '\n')
			s->line++;
}

static bool starts(const struct scan *s, const char *lit)
{
	size_t m = strlen(lit);
	return s->n - s->i >= m && memcmp(s->b + s->i, lit, m) == 0;
}

static bool name_char(char c)
{
	return !isspace((unsigned char)c) && c != '=' && c != '>' && c != '/' && c != '<' &&
	       c != '"' && c != '\'';
}

static const char *over_bound(struct scan *s)
{
	size_t elements = 0, attrs_all = 0;
	long depth = 0;

	while (s->i < s->n) {
		char c = s->b[s->i];
		size_t attrs = 0, k;

		if (c != '<') {
			if (c == '\n')
				s->line++;
			s->i++;
			continue;
		}
		if (starts(s, "<!--")) {
			s->i += 4;
			skip_past(s, "-->");
			continue;
		}
		if (starts(s, "<![CDATA[")) {
			skip_past(s, "]]>");
			continue;
		}
		if (starts(s, "<?")) {
			skip_past(s, "?>");
			continue;
		}
		if (starts(s, "<!")) {
			skip_past(s, ">");
			continue;
		}
		if (starts(s, "</")) {
			if (depth > 0)
				depth--;
			skip_past(s, ">");
			continue;
		}
		s->i++; /* an element: its name, then its attributes */
		for (k = s->i; s->i < s->n && name_char(s->b[s->i]); s->i++)
			;
		if (s->i - k > NP_XML_MAX_NAME)
			return "a name longer than " NP_STR(NP_XML_MAX_NAME) " characters";
		if (++elements > NP_XML_MAX_ELEMENTS)
			return "more than " NP_STR(NP_XML_MAX_ELEMENTS) " elements";
		while (s->i < s->n) {
			c = s->b[s->i];
			if (c == '>') {
				s->i++;
				if (++depth > NP_XML_MAX_DEPTH)
					return "elements nested more than " NP_STR(
						NP_XML_MAX_DEPTH) " deep";
				break;
			}
			if (c == '/' && starts(s, "/>")) {
				s->i += 2;
				break;
			}
			if (c == '<') /* not markup libxml2 accepts: it says why */
				break;
			if (c == '"' || c == '\'') {
				char q[2] = { c, '\0' };
				s->i++;
				skip_past(s, q);
				continue;
			}
			if (!name_char(c)) {
				if (c == '\n')
					s->line++;
				s->i++;
				continue;
			}
			for (k = s->i; s->i < s->n && name_char(s->b[s->i]); s->i++)
				;
			if (s->i - k > NP_XML_MAX_NAME)
				return "a name longer than " NP_STR(NP_XML_MAX_NAME) " characters";
			if (++attrs > NP_XML_MAX_ATTRS)
				return "an element with more than " NP_STR(
					NP_XML_MAX_ATTRS) " attributes";
			if (++attrs_all > NP_XML_MAX_ATTRS_TOTAL)
				return "more than " NP_STR(NP_XML_MAX_ATTRS_TOTAL) " attributes";
		}
	}
	return NULL;
}

enum np_status np_xml_parse(struct np_xml *x, const char *buf, size_t len, const char *path,
			    struct np_err *err)
{
	xmlParserCtxtPtr ctxt;
	struct guard g = { 0 };
	xmlDocPtr doc;

	if (len > NP_XML_MAX_BYTES)
		return np_fail(err, NP_EUSAGE,
			       "--input '%s' is larger than %u MiB; no topology file is", path,
			       NP_XML_MAX_BYTES >> 20);
	{
		struct scan sc = { buf, len, 0, 1 };
		const char *bound = over_bound(&sc);
		if (bound)
			return np_fail(err, NP_EUSAGE,
				       "--input '%s' line %d: %s, past nccl-probe's bound for a topology file; %s",
				       path, sc.line, bound, NP_XML_HINT);
	}
	xmlSetGenericErrorFunc(NULL, on_generic_error);
	xmlSetStructuredErrorFunc(NULL, NULL);
	xmlResetLastError();
	ctxt = xmlNewParserCtxt();
	if (!ctxt)
		return np_fail(err, NP_ENOMEM, "out of memory parsing --input '%s'", path);
	ctxt->_private = &g;
	ctxt->sax->entityDecl = on_entity;
	ctxt->sax->getEntity = on_get_entity;
	ctxt->sax->unparsedEntityDecl = on_unparsed;
	ctxt->sax->elementDecl = on_element;
	ctxt->sax->attributeDecl = on_attribute;
	ctxt->sax->notationDecl = on_notation;
	ctxt->sax->serror = on_error;
	/* no NOENT, DTDLOAD or HUGE: entities stay references, no external
	 * DTD is fetched, and libxml2's depth and size limits stay on */
	doc = xmlCtxtReadMemory(ctxt, buf, (int)len, path, NULL,
				XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (out_of_memory(ctxt, &g)) {
		if (doc)
			xmlFreeDoc(doc);
		xmlFreeParserCtxt(ctxt);
		return np_fail(err, NP_ENOMEM,
			       "out of memory parsing --input '%s'; free memory or raise the limit (ulimit -v)",
			       path);
	}
	if (g.what && g.ref[0]) {
		if (doc)
			xmlFreeDoc(doc);
		xmlFreeParserCtxt(ctxt);
		return np_fail(err, NP_EUSAGE,
			       "--input '%s' line %d refers to an entity '&%s;' that nothing declares; topology files use only &lt; &gt; &amp; &apos; &quot; and character references; %s",
			       path, g.line, g.ref, NP_XML_HINT);
	}
	if (g.what) {
		if (doc)
			xmlFreeDoc(doc);
		xmlFreeParserCtxt(ctxt);
		return np_fail(err, NP_EUSAGE,
			       "--input '%s' declares %s in its DOCTYPE; topology files declare nothing (hwloc's say <!DOCTYPE topology SYSTEM \"hwloc2.dtd\">, NCCL's have none)",
			       path, g.what);
	}
	if (!doc) {
		const xmlError *e = xmlCtxtGetLastError(ctxt);
		char msg[160];
		int line = e ? e->line : 0;
		np_xml_one_line(e ? e->message : "unreadable", msg, sizeof(msg));
		xmlFreeParserCtxt(ctxt);
		return np_fail(err, NP_EUSAGE, "--input '%s' is not XML (line %d: %s); %s", path,
			       line, msg, NP_XML_HINT);
	}
	xmlFreeParserCtxt(ctxt);
	if (doc->intSubset && doc->intSubset->children) {
		xmlFreeDoc(doc);
		return np_fail(err, NP_EUSAGE,
			       "--input '%s' has an internal DTD subset; topology files have none (hwloc's say <!DOCTYPE topology SYSTEM \"hwloc2.dtd\">)",
			       path);
	}
	if (!xmlDocGetRootElement(doc)) {
		xmlFreeDoc(doc);
		return np_fail(err, NP_EUSAGE, "--input '%s' has no root element; %s", path,
			       NP_XML_HINT);
	}
	x->doc = doc;
	return NP_OK;
}

enum np_status np_xml_read(struct np_xml *x, const char *path, struct np_err *err)
{
	struct stat sb;
	size_t cap, got = 0;
	char *buf;
	int fd;
	enum np_status st;

	memset(x, 0, sizeof(*x));
	/* O_NONBLOCK: a FIFO swapped in after the caller's stat must not hang */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return np_fail(err, NP_EUSAGE, "cannot read --input '%s': %s; %s", path,
			       strerror(errno), NP_XML_HINT);
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return np_fail(err, NP_EUSAGE, "--input '%s' is not a regular file; %s", path,
			       NP_XML_HINT);
	}
	if (sb.st_size > (off_t)NP_XML_MAX_BYTES) {
		close(fd);
		return np_fail(err, NP_EUSAGE,
			       "--input '%s' is larger than %u MiB; no topology file is", path,
			       NP_XML_MAX_BYTES >> 20);
	}
	cap = (size_t)sb.st_size + 1;
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return np_fail(err, NP_ENOMEM, "out of memory reading --input '%s'", path);
	}
	for (;;) { /* the file may have grown since fstat: read to its end, within the bound */
		ssize_t r;
		if (got == cap) {
			char *nb;
			if (cap > NP_XML_MAX_BYTES)
				break;
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				close(fd);
				return np_fail(err, NP_ENOMEM, "out of memory reading --input '%s'",
					       path);
			}
			buf = nb;
		}
		r = read(fd, buf + got, cap - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return np_fail(err, NP_EUSAGE, "cannot read --input '%s': %s; %s", path,
				       strerror(e), NP_XML_HINT);
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	if (got == 0) {
		free(buf);
		return np_fail(err, NP_EUSAGE, "--input '%s' is empty; %s", path, NP_XML_HINT);
	}
	st = np_xml_parse(x, buf, got, path, err);
	if (st) {
		free(buf);
		return st;
	}
	x->buf = buf;
	x->len = got;
	return NP_OK;
}
