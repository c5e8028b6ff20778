/* SPDX-License-Identifier: MIT */
/* hwloc XML checked against what hwloc 2.x's importer assumes (it
 * dereferences a DOCTYPE's system id and every normal object's complete
 * sets without checking them): np_xml_check_hwloc. */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <libxml/parser.h>

#include "../common/number.h"
#include "xmlfile.h"

struct hwcheck {
	const char *path;
	struct np_err *err;
	enum np_status st;
	bool v1; /* a 1.x file: hwloc imports it by the 1.x rules */
	long nobjects;
	hwloc_bitmap_t cpus;  /* every CPU or memory object's cpuset, together */
	hwloc_bitmap_t nodes; /* every NUMA node's nodeset, together */
};

static bool is_elem(xmlNodePtr n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

/* An attribute's text as hwloc's importer sees it: the first text child. */
static const char *attr_text(xmlAttrPtr a)
{
	for (xmlNodePtr c = a->children; c; c = c->next)
		if (c->type == XML_TEXT_NODE && c->content)
			return (const char *)c->content;
	return "";
}

static enum np_status bad(struct hwcheck *c, xmlNodePtr n, const char *attr, const char *val,
			  const char *what)
{
	char v[48];

	np_xml_one_line(val, v, sizeof(v));
	if (attr)
		c->st = np_fail(c->err, NP_EUSAGE,
				"--input '%s' line %ld: <%s> %s=\"%s%s\" %s; the hwloc XML is damaged, export it again (lstopo --of xml)",
				c->path, (long)xmlGetLineNo(n), (const char *)n->name, attr, v,
				val && strlen(val) >= sizeof(v) - 1 ? "..." : "", what);
	else
		c->st = np_fail(c->err, NP_EUSAGE,
				"--input '%s' line %ld: <%s> %s; the hwloc XML is damaged, export it again (lstopo --of xml)",
				c->path, (long)xmlGetLineNo(n), (const char *)n->name, what);
	return c->st;
}

static bool hex_field(const char **p, unsigned maxdigits, unsigned long max, unsigned long *out)
{
	const char *s = *p;
	unsigned long v = 0;
	unsigned n = 0;

	while (isxdigit((unsigned char)*s) && n < maxdigits) {
		v = v * 16 + (unsigned long)(isdigit((unsigned char)*s)
						     ? *s - '0'
						     : (tolower((unsigned char)*s) - 'a' + 10));
		s++;
		n++;
	}
	if (n == 0 || isxdigit((unsigned char)*s) || v > max)
		return false;
	*p = s;
	*out = v;
	return true;
}

/* "dddd:bb:dd.f" with a domain of up to 32 bits */
static bool parse_busid(const char *s)
{
	unsigned long dom, bus, dev, fn;

	if (!hex_field(&s, 8, 0xffffffffUL, &dom) || *s++ != ':' || !hex_field(&s, 2, 0xff, &bus) ||
	    *s++ != ':' || !hex_field(&s, 2, 0x1f, &dev) || *s++ != '.' ||
	    !hex_field(&s, 1, 7, &fn) || *s)
		return false;
	return true;
}

/* "dddd:[bb-bb]" */
static bool parse_bridge_pci(const char *s)
{
	unsigned long dom, sec, sub;

	return hex_field(&s, 8, 0xffffffffUL, &dom) && *s++ == ':' && *s++ == '[' &&
	       hex_field(&s, 2, 0xff, &sec) && *s++ == '-' && hex_field(&s, 2, 0xff, &sub) &&
	       *s++ == ']' && !*s;
}

/* hwloc's bitmap syntax as it writes it: "0x0000000f,,0xffffffff" (an
 * empty word is zero), with "0xf...f" first for an infinite set. hwloc_bitmap_sscanf is not called
 * on anything else: it asserts on some strings (",x1") and aborts. */
static bool bitmap_ok(const char *s)
{
	bool seg = false; /* a segment after an infinite prefix may be empty too */

	if (!strncasecmp(s, "0xf...f", 7)) {
		s += 7;
		if (!*s)
			return true;
		if (*s++ != ',')
			return false;
		seg = true;
	}
	for (;;) {
		unsigned n = 0;
		if (*s == ',' && seg) { /* ",," is a zero word, as hwloc writes it */
			s++;
			continue;
		}
		if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
			return false;
		s += 2;
		while (isxdigit((unsigned char)*s) && n < 8) {
			s++;
			n++;
		}
		if (n == 0)
			return false;
		if (!*s)
			return true;
		if (*s++ != ',')
			return false;
		seg = true;
	}
}

/* Every CPU or node set in the file (objects, cpukinds, memory attribute
 * initiators) must be one hwloc can read. */
static enum np_status check_sets(struct hwcheck *c, xmlNodePtr n)
{
	for (; n && !c->st; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		for (xmlAttrPtr a = n->properties; a; a = a->next) {
			const char *name = (const char *)a->name;
			size_t l = strlen(name);
			if (((l >= 6 && !strcmp(name + l - 6, "cpuset")) ||
			     (l >= 7 && !strcmp(name + l - 7, "nodeset"))) &&
			    !bitmap_ok(attr_text(a)))
				return bad(c, n, name, attr_text(a),
					   "is not an hwloc bitmap (0x0000000f,0xffffffff)");
		}
		check_sets(c, n->children);
	}
	return c->st;
}

/* hwloc's importer stops reading an object's children at text among
 * them, and the objects left out made hwloc fail with its own message
 * ("Topology does not contain any NUMA node"): only distance values and
 * user data are text. Checked last, after the checks that name a
 * specific attribute. */
static enum np_status check_text(struct hwcheck *c, xmlNodePtr n)
{
	for (; n && !c->st; n = n->next) {
		if ((n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) &&
		    !xmlIsBlankNode(n) && n->parent && !is_elem(n->parent, "indexes") &&
		    !is_elem(n->parent, "u64values") && !is_elem(n->parent, "userdata")) {
			const char *t = (const char *)n->content;
			char what[96], v[32];
			while (isspace((unsigned char)*t))
				t++;
			np_xml_one_line(t, v, sizeof(v));
			snprintf(what, sizeof(what),
				 "has text \"%s%s\" among its elements; hwloc XML has none", v,
				 strlen(t) >= sizeof(v) - 1 ? "..." : "");
			return bad(c, n->parent, NULL, NULL, what);
		}
		if (n->type == XML_ELEMENT_NODE)
			check_text(c, n->children);
	}
	return c->st;
}

enum obj_class { OBJ_NORMAL, OBJ_MEMORY, OBJ_IO, OBJ_MISC };

/* hwloc relies on each object's sets lying within its complete sets, and
 * those within its parent's (it crashed on a Machine whose complete_cpuset
 * left out its cpuset). */
static enum np_status check_nesting(struct hwcheck *c, xmlNodePtr n, const bool *have,
				    const char *const *setv, hwloc_bitmap_t *b,
				    hwloc_const_bitmap_t pcc, hwloc_const_bitmap_t pcn)
{
	for (int s = 0; s < 4; s++)
		if (have[s] && (!b[s] || hwloc_bitmap_sscanf(b[s], setv[s]) != 0))
			return c->st = np_fail(c->err, NP_ENOMEM,
					       "out of memory checking --input '%s'", c->path);
	/* a 1.x file may leave out every nodeset (hwloc then adds one NUMA
	 * node); a set left out is not compared */
	if (have[0] && have[1] && !hwloc_bitmap_isincluded(b[0], b[1]))
		return bad(c, n, "cpuset", setv[0], "is not within the object's complete_cpuset");
	if (have[2] && have[3] && !hwloc_bitmap_isincluded(b[2], b[3]))
		return bad(c, n, "nodeset", setv[2], "is not within the object's complete_nodeset");
	if (pcc && have[1] && !hwloc_bitmap_isincluded(b[1], pcc))
		return bad(c, n, "complete_cpuset", setv[1],
			   "is not within the parent's complete_cpuset");
	if (pcn && have[3] && !hwloc_bitmap_isincluded(b[3], pcn))
		return bad(c, n, "complete_nodeset", setv[3],
			   "is not within the parent's complete_nodeset");
	return NP_OK;
}

/* The sets a 1.x object must have, as hwloc's 1.x import requires them:
 * cpusets and nodesets each in pairs, no nodeset without a cpuset, a
 * cpuset on every CPU-side object and a nodeset on every NUMA node.
 * Groups that miss some are dropped by hwloc, not refused. */
static enum np_status check_v1_sets(struct hwcheck *c, xmlNodePtr n, const char *tname,
				    hwloc_obj_type_t type, const bool *have)
{
	if (type == HWLOC_OBJ_GROUP)
		return NP_OK;
	if (have[0] != have[1] || have[2] != have[3])
		return bad(c, n, "type", tname,
			   have[0] != have[1]
				   ? "has a cpuset without its complete_cpuset, or the reverse"
				   : "has a nodeset without its complete_nodeset, or the reverse");
	if (have[2] && !have[0])
		return bad(c, n, "type", tname, "has a nodeset but no cpuset");
	if (!have[0])
		return bad(c, n, "type", tname, "has no cpuset attribute");
	if (type == HWLOC_OBJ_NUMANODE && !have[2])
		return bad(c, n, "type", tname, "has no nodeset attribute");
	return NP_OK;
}

static const char *const obj_sets[] = { "cpuset", "complete_cpuset", "nodeset",
					"complete_nodeset" };

/* The attributes of one <object> that the checks below need. */
struct obj_attrs {
	const char *setv[4]; /* obj_sets' values, "" where absent */
	bool have[4];
	bool have_index;
	const char *busid, *bridge_pci, *bridge_type, *osdev_name;
};

/* The hwloc type of an <object>, read as hwloc's importer reads it
 * (older names, 1.x's Caches and Misc objects with a cpuset). */
static enum np_status obj_type(struct hwcheck *c, xmlNodePtr n, bool root, const char **tnamep,
			       hwloc_obj_type_t *type)
{
	const char *tname = NULL;
	bool has_cpuset = false;

	for (xmlAttrPtr a = n->properties; a; a = a->next)
		if (!strcmp((const char *)a->name, "type"))
			tname = attr_text(a);
	if (!tname)
		return bad(c, n, NULL, NULL, "has no type attribute");
	*tnamep = tname;
	for (xmlAttrPtr a = n->properties; a; a = a->next)
		if (!strcmp((const char *)a->name, "cpuset"))
			has_cpuset = true;
	if (!strcasecmp(tname, "Tile") || !strcasecmp(tname, "Module"))
		*type = HWLOC_OBJ_GROUP;
	else if (root && !strcasecmp(tname, "System")) /* hwloc 1.0's name of the root */
		*type = HWLOC_OBJ_MACHINE;
	else if (c->v1 && !strcasecmp(tname, "Cache")) /* 1.x: the level is in its depth */
		*type = HWLOC_OBJ_L1CACHE;
	else if (hwloc_type_sscanf(tname, type, NULL, 0) != 0)
		return bad(c, n, "type", tname, "is not an hwloc object type");
	/* hwloc 1.x's Misc objects with a cpuset are Groups to hwloc 2 */
	if (c->v1 && *type == HWLOC_OBJ_MISC && has_cpuset)
		*type = HWLOC_OBJ_GROUP;
	return NP_OK;
}

/* Where an object of class cls may sit: the root is a Machine, and CPU
 * side, memory and I/O objects nest as hwloc 1.x or 2.x allows. */
static enum np_status check_obj_place(struct hwcheck *c, xmlNodePtr n, const char *tname,
				      hwloc_obj_type_t type, int cls, int parent_class, bool root)
{
	/* a 1.x file may have its one NUMA node as the root: hwloc puts a
	 * Machine above it */
	if (root && type != HWLOC_OBJ_MACHINE && !(c->v1 && type == HWLOC_OBJ_NUMANODE))
		return bad(c, n, "type", tname, "is not Machine, the type of hwloc's root object");
	if (root)
		return NP_OK;
	if (c->v1) {
		/* 1.x put CPU-side objects and I/O below NUMA nodes; hwloc moves
		 * them up to the NUMA node's parent */
		if ((cls == OBJ_NORMAL || cls == OBJ_MEMORY) &&
		    (parent_class == OBJ_IO || parent_class == OBJ_MISC))
			return bad(c, n, "type", tname,
				   "is a CPU-side or memory object below an I/O or Misc object");
		if (cls == OBJ_IO && parent_class == OBJ_MISC)
			return bad(c, n, "type", tname, "is an I/O object below a Misc object");
	} else {
		if (cls == OBJ_NORMAL && parent_class != OBJ_NORMAL)
			return bad(c, n, "type", tname,
				   "is a CPU-side object below an I/O, memory or Misc object");
		if (cls == OBJ_IO && (parent_class == OBJ_MEMORY || parent_class == OBJ_MISC))
			return bad(c, n, "type", tname,
				   "is an I/O object below a memory or Misc object");
		if (cls == OBJ_MEMORY && (parent_class == OBJ_IO || parent_class == OBJ_MISC))
			return bad(c, n, "type", tname,
				   "is a memory object below an I/O or Misc object");
	}
	return NP_OK;
}

/* Each attribute's value, checked where hwloc reads it unchecked (sets,
 * indexes, link speeds, OS device types), and kept in at. */
static enum np_status read_obj_attrs(struct hwcheck *c, xmlNodePtr n, hwloc_obj_type_t type,
				     int cls, struct obj_attrs *at)
{
	long l;
	double d;
	const char *why;

	for (xmlAttrPtr a = n->properties; a; a = a->next) {
		const char *name = (const char *)a->name, *v = attr_text(a);
		int s;
		for (s = 0; s < 4; s++)
			if (!strcmp(name, obj_sets[s]))
				break;
		if (s < 4 || !strcmp(name, "allowed_cpuset") || !strcmp(name, "allowed_nodeset")) {
			if (s < 4) {
				at->have[s] = true;
				at->setv[s] = v;
			}
			if (cls == OBJ_IO || cls == OBJ_MISC)
				return bad(c, n, name, v,
					   "is a CPU or node set on an I/O or Misc object");
			if (!bitmap_ok(v))
				return bad(c, n, name, v,
					   "is not an hwloc bitmap (0x0000000f,0xffffffff)");
		} else if (!strcmp(name, "os_index") &&
			   (type == HWLOC_OBJ_PU || type == HWLOC_OBJ_NUMANODE)) {
			at->have_index = v[0] != '\0';
			/* hwloc sets bit os_index of the root's sets: a huge one is a
			 * huge allocation */
			if (!np_xml_long(v, 10, 0, 1L << 20, &l, &why))
				return bad(c, n, name, v, why);
		} else if (!strcmp(name, "pci_busid")) {
			at->busid = v;
		} else if (!strcmp(name, "name")) {
			if (v[0]) /* hwloc skips empty values */
				at->osdev_name = v;
		} else if (!strcmp(name, "bridge_pci")) {
			at->bridge_pci = v;
		} else if (!strcmp(name, "bridge_type")) {
			at->bridge_type = v;
		} else if (!strcmp(name, "pci_link_speed")) {
			if (!np_xml_double(v, 0, 10000, &d, &why))
				return bad(c, n, name, v, why);
		} else if (!strcmp(name, "osdev_type")) {
			if (!np_xml_long(v, 10, 0, 5, &l, &why))
				return bad(c, n, name, v, why);
		}
	}
	return NP_OK;
}

/* The attributes hwloc assumes an object of this type has: its sets, an
 * index, an OS device's name, a bridge's type and range, a bus id. */
static enum np_status check_obj_required(struct hwcheck *c, xmlNodePtr n, const char *tname,
					 hwloc_obj_type_t type, int cls, const struct obj_attrs *at)
{
	if (c->v1 && (cls == OBJ_NORMAL || cls == OBJ_MEMORY)) {
		if (check_v1_sets(c, n, tname, type, at->have))
			return c->st;
	} else if (cls == OBJ_NORMAL || cls == OBJ_MEMORY)
		for (int s = 0; s < 4; s++)
			if (!at->have[s]) {
				char what[64];
				snprintf(what, sizeof(what), "has no %s attribute", obj_sets[s]);
				return bad(c, n, "type", tname, what);
			}
	/* without one, hwloc takes index 2^32-1 and sets that bit: a 512 MB
	 * bitmap, copied into every object's sets */
	if ((type == HWLOC_OBJ_PU || type == HWLOC_OBJ_NUMANODE) && !at->have_index)
		return bad(c, n, "type", tname, "has no os_index attribute");
	if (type == HWLOC_OBJ_OS_DEVICE && !at->osdev_name)
		return bad(c, n, "type", tname, "has no name attribute");
	if (type == HWLOC_OBJ_BRIDGE) {
		if (!at->bridge_type ||
		    (strcmp(at->bridge_type, "0-1") && strcmp(at->bridge_type, "1-1")))
			return bad(c, n, "bridge_type", at->bridge_type ? at->bridge_type : "",
				   "is not 0-1 (host bridge) or 1-1 (PCI bridge)");
		if (!at->bridge_pci || !parse_bridge_pci(at->bridge_pci))
			return bad(c, n, "bridge_pci", at->bridge_pci ? at->bridge_pci : "",
				   "is not a PCI bus range dddd:[bb-bb]");
	}
	/* a bus id twice is not hwloc's problem (one of its own test files
	 * has it); GPUs and NICs on one bus id are refused by the sources */
	if ((type == HWLOC_OBJ_PCI_DEVICE ||
	     (type == HWLOC_OBJ_BRIDGE && !strcmp(at->bridge_type, "1-1"))) &&
	    (!at->busid || !parse_busid(at->busid)))
		return bad(c, n, "pci_busid", at->busid ? at->busid : "",
			   "is not a PCI bus id dddd:bb:dd.f");
	return NP_OK;
}

static enum np_status check_object(struct hwcheck *c, xmlNodePtr n, int parent_class, bool root,
				   hwloc_const_bitmap_t pcc, hwloc_const_bitmap_t pcn);

/* The child objects, within hwloc's bounds on their number. */
static void check_obj_children(struct hwcheck *c, xmlNodePtr n, int cls, hwloc_const_bitmap_t pcc,
			       hwloc_const_bitmap_t pcn)
{
	long children = 0;

	for (xmlNodePtr ch = n->children; ch && !c->st; ch = ch->next) {
		if (!is_elem(ch, "object"))
			continue;
		/* hwloc appends each child by walking its siblings: keep that
		 * quadratic cost bounded, far above any machine's counts */
		if (++children > NP_XML_MAX_CHILDREN)
			bad(c, ch, NULL, NULL,
			    "is one child object too many (hwloc XML of real machines has at most a few hundred per object)");
		else if (c->nobjects >= NP_XML_MAX_OBJECTS)
			bad(c, ch, NULL, NULL,
			    "is one object too many (hwloc XML of real machines has at most tens of thousands)");
		else
			check_object(c, ch, cls, false, pcc, pcn);
	}
}

/* One <object> and, recursively, its children: its type and place, its
 * attributes, its sets nested in its parent's (pcc, pcn). */
static enum np_status check_object(struct hwcheck *c, xmlNodePtr n, int parent_class, bool root,
				   hwloc_const_bitmap_t pcc, hwloc_const_bitmap_t pcn)
{
	struct obj_attrs at = { .setv = { "", "", "", "" } };
	hwloc_bitmap_t b[4] = { NULL, NULL, NULL, NULL };
	enum np_status st;
	const char *tname = NULL;
	hwloc_obj_type_t type;
	int cls;

	c->nobjects++;
	if ((st = obj_type(c, n, root, &tname, &type)) != NP_OK)
		return st;
	cls = hwloc_obj_type_is_normal(type)   ? OBJ_NORMAL
	      : hwloc_obj_type_is_memory(type) ? OBJ_MEMORY
	      : hwloc_obj_type_is_io(type)     ? OBJ_IO
					       : OBJ_MISC;
	if ((st = check_obj_place(c, n, tname, type, cls, parent_class, root)) != NP_OK ||
	    (st = read_obj_attrs(c, n, type, cls, &at)) != NP_OK ||
	    (st = check_obj_required(c, n, tname, type, cls, &at)) != NP_OK)
		return st;
	if (cls == OBJ_NORMAL || cls == OBJ_MEMORY) {
		for (int s = 0; s < 4; s++)
			b[s] = at.have[s] ? hwloc_bitmap_alloc() : NULL;
		if (check_nesting(c, n, at.have, at.setv, b, pcc, pcn))
			goto out_free_sets;
		if (at.have[0])
			hwloc_bitmap_or(c->cpus, c->cpus, b[0]);
		if (type == HWLOC_OBJ_NUMANODE && at.have[2])
			hwloc_bitmap_or(c->nodes, c->nodes, b[2]);
		/* hwloc attaches a 1.x NUMA node's children to its parent */
		if (at.have[1] && !(c->v1 && type == HWLOC_OBJ_NUMANODE))
			pcc = b[1];
		if (at.have[3] && !(c->v1 && type == HWLOC_OBJ_NUMANODE))
			pcn = b[3];
	}
	check_obj_children(c, n, cls, pcc, pcn);
out_free_sets:
	st = c->st;
	for (int s = 0; s < 4; s++)
		hwloc_bitmap_free(b[s]);
	return st;
}

static enum np_status check_distances(struct hwcheck *c, xmlNodePtr n)
{
	for (xmlAttrPtr a = n->properties; a; a = a->next) {
		long l;
		const char *why;
		if (strcmp((const char *)a->name, "nbobjs"))
			continue;
		/* hwloc allocates nbobjs^2 values in an unsigned int product */
		if (!np_xml_long(attr_text(a), 10, 1, c->nobjects < 65535 ? c->nobjects : 65535, &l,
				 &why))
			return bad(c, n, "nbobjs", attr_text(a),
				   "is more objects than the file has");
	}
	return NP_OK;
}

/* hwloc takes the root's allowed sets as the machine's (the attributes are
 * ignored elsewhere) and removes every CPU and NUMA node outside them;
 * a topology left without a PU or a NUMA node fails to load, and one
 * left empty crashed hwloc 2.9 (SIGSEGV) on its way out. */
static enum np_status check_allowed(struct hwcheck *c, xmlNodePtr root)
{
	const char *acpu = NULL, *anode = NULL;
	hwloc_bitmap_t b = hwloc_bitmap_alloc();

	if (!b)
		return c->st = np_fail(c->err, NP_ENOMEM, "out of memory checking --input '%s'",
				       c->path);
	for (xmlAttrPtr a = root->properties; a; a = a->next)
		if (!strcmp((const char *)a->name, "allowed_cpuset"))
			acpu = attr_text(a);
		else if (!strcmp((const char *)a->name, "allowed_nodeset"))
			anode = attr_text(a);
	if (hwloc_bitmap_iszero(c->cpus))
		bad(c, root, NULL, NULL, "has no CPU in any object's cpuset (hwloc needs a PU)");
	else if (!c->v1 && hwloc_bitmap_iszero(c->nodes)) /* hwloc adds one to a 1.x file */
		bad(c, root, NULL, NULL,
		    "has no NUMANode object with a node in its nodeset (hwloc needs one)");
	else if (acpu &&
		 (hwloc_bitmap_sscanf(b, acpu) != 0 || !hwloc_bitmap_intersects(b, c->cpus)))
		bad(c, root, "allowed_cpuset", acpu, "allows none of the file's CPUs");
	else if (anode && !hwloc_bitmap_iszero(c->nodes) &&
		 (hwloc_bitmap_sscanf(b, anode) != 0 || !hwloc_bitmap_intersects(b, c->nodes)))
		bad(c, root, "allowed_nodeset", anode, "allows none of the file's NUMA nodes");
	hwloc_bitmap_free(b);
	return c->st;
}

/* The format's major version as hwloc reads it: <topology version="2.0">,
 * 1 without one. */
static unsigned hwloc_xml_major(xmlNodePtr root)
{
	xmlChar *v = xmlGetProp(root, (const xmlChar *)"version");
	unsigned major = 1, minor;

	if (v && sscanf((const char *)v, "%u.%u", &major, &minor) != 2)
		major = 1;
	xmlFree(v);
	return major;
}

enum np_status np_xml_check_hwloc(const struct np_xml *x, const char *path, struct np_err *err)
{
	struct hwcheck c = { .path = path, .err = err, .st = NP_OK };
	xmlNodePtr root = xmlDocGetRootElement(x->doc), obj = NULL;
	xmlDtdPtr dtd = x->doc->intSubset;

	if (dtd && (!dtd->name || strcmp((const char *)dtd->name, "topology") || dtd->ExternalID ||
		    !dtd->SystemID ||
		    (strcmp((const char *)dtd->SystemID, "hwloc2.dtd") &&
		     strcmp((const char *)dtd->SystemID, "hwloc.dtd"))))
		return np_fail(err, NP_EUSAGE,
			       "--input '%s' has a DOCTYPE other than hwloc's <!DOCTYPE topology SYSTEM \"hwloc2.dtd\">; write that line or remove it",
			       path);
	for (xmlNodePtr ch = root->children; ch; ch = ch->next) {
		if (!is_elem(ch, "object"))
			continue;
		if (obj)
			return bad(&c, ch, NULL, NULL,
				   "is a second root object; hwloc XML has one");
		obj = ch;
	}
	if (!obj)
		return np_fail(err, NP_EUSAGE, "--input '%s' has no <object> in <topology>; %s",
			       path, NP_XML_HINT);
	c.v1 = hwloc_xml_major(root) < 2;
	c.cpus = hwloc_bitmap_alloc();
	c.nodes = hwloc_bitmap_alloc();
	if (!c.cpus || !c.nodes)
		c.st = np_fail(err, NP_ENOMEM, "out of memory checking --input '%s'", path);
	else if (!check_sets(&c, root->children) &&
		 !check_object(&c, obj, OBJ_NORMAL, true, NULL, NULL))
		check_allowed(&c, obj);
	for (xmlNodePtr ch = root->children; ch && !c.st; ch = ch->next)
		if (is_elem(ch, "distances2") || is_elem(ch, "distances2hetero"))
			check_distances(&c, ch);
	if (!c.st)
		check_text(&c, root->children);
	hwloc_bitmap_free(c.cpus);
	hwloc_bitmap_free(c.nodes);
	return c.st;
}
