/* SPDX-License-Identifier: MIT */
/* Reading topology files that may come from anywhere: one read of the
 * file into memory, one libxml2 parse that refuses DTD declarations (so
 * entity expansion cannot make a small file cost quadratic time), and the
 * structure that hwloc's XML importer assumes checked before hwloc sees
 * the bytes. Every XML reader of topo/ goes through here. */
#ifndef NP_TOPO_XMLFILE_H
#define NP_TOPO_XMLFILE_H

#include <stddef.h>

#include <libxml/tree.h>

#include "../common/status.h"

/* Larger than any machine's topology (a DGX's hwloc XML is 40 KB). */
#define NP_XML_MAX_BYTES (64u << 20)
/* hwloc 2.9 inserts each object by walking its siblings (quadratic): an
 * hwloc XML may have at most this many objects, and children of one. */
#define NP_XML_MAX_OBJECTS 131072
#define NP_XML_MAX_CHILDREN 4096
/* Before libxml2 sees a file (it compares each attribute with those
 * before it, and builds about 200 bytes for each element and attribute):
 * elements and attributes in the file, attributes of one element, depth
 * of elements, length of a name. A topology file is far below each. */
#define NP_XML_MAX_ELEMENTS 262144
#define NP_XML_MAX_ATTRS_TOTAL 524288
#define NP_XML_MAX_ATTRS 64
#define NP_XML_MAX_DEPTH 128
#define NP_XML_MAX_NAME 128

struct np_xml {
	char *buf;  /* the file's bytes, NUL-terminated */
	size_t len; /* without the NUL */
	xmlDocPtr doc;
};

/* Read and parse path (named in messages as "--input 'path'"). NP_EUSAGE
 * for a file that is not a regular file, is empty, too large, not
 * well-formed XML, or declares anything in a DOCTYPE internal subset. */
enum np_status np_xml_read(struct np_xml *x, const char *path, struct np_err *err);
/* The same for bytes in memory (buf need not be NUL-terminated). */
enum np_status np_xml_parse(struct np_xml *x, const char *buf, size_t len, const char *path,
			    struct np_err *err);
void np_xml_release(struct np_xml *x);

/* Check an hwloc XML (root <topology>) against what hwloc 2.x's importer
 * relies on: a DOCTYPE naming hwloc's DTD, every object's type known, the
 * four CPU and node sets on normal and memory objects and none on I/O and
 * Misc objects, nested within their complete sets and the parent's, a
 * CPU and a NUMA node left by the root's allowed sets, well-formed PCI
 * attributes, distance matrices no larger than the file's objects, no
 * text among elements. NP_EUSAGE with the first problem (element,
 * attribute and value) otherwise. */
enum np_status np_xml_check_hwloc(const struct np_xml *x, const char *path, struct np_err *err);

/* What a message about a file that is not a topology says to do */
#define NP_XML_HINT \
	"give an hwloc XML (lstopo --of xml, or 'nccl-probe topo --export') or an NCCL topology file (NCCL_TOPO_DUMP_FILE)"

/* A message (libxml2's, a file's value) as one printable line: line ends
 * as blanks, other unprintable bytes as '?', cut to len. */
void np_xml_one_line(const char *in, char *out, size_t len);

/* Numbers from files, parsed whole (no trailing text), range-checked.
 * false with the reason ("is not a number", "is out of range") in why. */
bool np_xml_long(const char *s, int base, long lo, long hi, long *out, const char **why);
bool np_xml_double(const char *s, double lo, double hi, double *out, const char **why);

#endif
