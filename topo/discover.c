/* SPDX-License-Identifier: MIT */
/* Reading a topology file (format told by its root element), running the
 * analysis in order, and the one-line node summary of fleet mode. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <hwloc.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "topo.h"

#define INPUT_HINT "give an hwloc XML (lstopo --of xml, or 'nccl-probe topo --export') or an NCCL topology file (NCCL_TOPO_DUMP_FILE)"

static enum np_status load_hwloc(struct np_topo *t, const char *path, bool keep, struct np_err *err)
{
	hwloc_topology_t topo;
	enum np_status st;

	if (hwloc_topology_init(&topo) != 0)
		return np_fail(err, NP_ESYS, "hwloc_topology_init failed: %s", strerror(errno));
	hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
	if (hwloc_topology_set_xml(topo, path) != 0 || hwloc_topology_load(topo) != 0) {
		hwloc_topology_destroy(topo);
		return np_fail(err, NP_EUSAGE, "hwloc cannot load --input '%s' (an hwloc XML of a format it does not know?); %s",
			       path, INPUT_HINT);
	}
	t->kind = NP_SRC_HWLOC;
	st = np_topo_from_hwloc(t, topo, err);
	if (keep && !st)
		t->hwloc = topo;
	else
		hwloc_topology_destroy(topo);
	return st;
}

/* The root element's name from the file's head, past the XML declaration,
 * comments and a DOCTYPE; false when the head does not tell (the caller
 * then parses the file whole). Spares hwloc files a second parse. */
static bool root_name(const char *path, char *name, size_t len)
{
	char buf[16384];
	FILE *f = fopen(path, "rb");
	size_t n;
	const char *p, *end;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = buf;
	end = buf + n;
	if (n >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
			p++;
		if (p >= end || *p != '<')
			return false;
		if (!strncmp(p, "<?", 2))
			p = strstr(p, "?>");
		else if (!strncmp(p, "<!--", 4))
			p = strstr(p, "-->");
		else if (!strncmp(p, "<!", 2))
			p = strchr(p, '>');
		else
			break;
		if (!p)
			return false;
		p = strchr(p, '>') + 1;
	}
	p++;
	n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:");
	if (!n || n >= len || !p[n])
		return false;
	memcpy(name, p, n);
	name[n] = '\0';
	return true;
}

enum np_status np_topo_discover_file(struct np_topo *t, const char *path, bool keep_hwloc, struct np_err *err)
{
	struct stat sb;
	xmlDocPtr doc;
	xmlNodePtr root;
	char name[64];

	snprintf(t->source, sizeof(t->source), "%s", path);
	if (stat(path, &sb) != 0)
		return np_fail(err, NP_EUSAGE, "cannot read --input '%s': %s; %s", path, strerror(errno), INPUT_HINT);
	if (S_ISDIR(sb.st_mode))
		return np_fail(err, NP_EUSAGE, "--input '%s' is a directory; %s", path, INPUT_HINT);
	if (!S_ISREG(sb.st_mode))
		return np_fail(err, NP_EUSAGE, "--input '%s' is not a regular file; %s", path, INPUT_HINT);
	if (sb.st_size == 0)
		return np_fail(err, NP_EUSAGE, "--input '%s' is empty; %s", path, INPUT_HINT);
	if (!root_name(path, name, sizeof(name))) { /* the slow way: parse it whole */
		doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
		if (!doc)
			return np_fail(err, NP_EUSAGE, "--input '%s' is not XML; %s", path, INPUT_HINT);
		root = xmlDocGetRootElement(doc);
		snprintf(name, sizeof(name), "%s", root ? (const char *)root->name : "");
		xmlFreeDoc(doc);
	}
	if (!strcmp(name, "topology"))
		return load_hwloc(t, path, keep_hwloc, err);
	if (!strcmp(name, "system"))
		return np_topo_from_nccl_xml(t, path, err);
	return np_fail(err, NP_EUSAGE, "--input '%s' is XML of an unknown format (root element <%s>); %s", path, name,
		       INPUT_HINT);
}

void np_topo_analyze(struct np_topo *t)
{
	np_topo_paths(t);
	np_topo_check(t);
	np_topo_recommend(t);
}

void np_topo_summary(const struct np_topo *t, char *buf, size_t len)
{
	size_t off;
	int active = 0;
	double rate = 0;

	for (int k = 0; k < t->nnics; k++)
		if (t->nics[k].state == NP_PORT_ACTIVE) {
			active++;
			rate += t->nics[k].rate_gbit;
		}
	off = (size_t)snprintf(buf, len, "%d GPU%s%s%s, %d NIC port%s (%d active, %g Gb/s), peer memory %s, findings:",
			       t->ngpus, t->ngpus == 1 ? "" : "s", t->ngpus ? " " : "", t->ngpus ? t->gpus[0].name : "",
			       t->nnics, t->nnics == 1 ? "" : "s", active, rate, np_tri_str(t->host.peermem_loaded));
	for (int i = 0; i < t->nfindings && off < len; i++) {
		bool dup = false;
		for (int j = 0; j < i; j++)
			dup |= !strcmp(t->findings[j].id, t->findings[i].id);
		if (!dup)
			off += (size_t)snprintf(buf + off, len - off, " %s", t->findings[i].id);
	}
	if (t->nfindings == 0 && off < len)
		snprintf(buf + off, len - off, " none");
}
