/* SPDX-License-Identifier: MIT */
/* isolate --topology FILE: each node's leaf switch from Slurm's
 * topology.conf (the tree plugin's file, or what `scontrol show topology`
 * prints): a line "SwitchName=NAME ... Nodes=HOSTLIST" is a leaf switch
 * and the nodes on it. Pure: reads the file, prints nothing. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common/number.h"
#include "isolate_topology.h"

/* Whether name is one of the hostlist item's names: "pre[a-b,c]post" or a
 * plain name; numbers as wide as the range's low bound (node[01-32] has
 * node01, not node1). -1: an item this reader does not take. */
static int item_has(const char *item, size_t len, const char *name)
{
	const char *lb = memchr(item, '[', len), *rb;
	size_t pre, post, nl = strlen(name), ml;
	const char *mid, *r;
	char buf[32];

	if (!lb)
		return len == nl && !memcmp(item, name, len);
	rb = memchr(lb, ']', len - (size_t)(lb - item));
	if (!rb || memchr(rb + 1, '[', len - (size_t)(rb + 1 - item)) ||
	    memchr(rb + 1, ']', len - (size_t)(rb + 1 - item)))
		return -1;
	pre = (size_t)(lb - item);
	post = len - (size_t)(rb + 1 - item);
	if (nl <= pre + post || memcmp(name, item, pre) || memcmp(name + nl - post, rb + 1, post))
		return 0;
	mid = name + pre;
	ml = nl - pre - post;
	for (size_t k = 0; k < ml; k++)
		if (!isdigit((unsigned char)mid[k]))
			return 0;
	if (ml >= sizeof(buf))
		return 0;
	/* each range of the brackets: a or a-b */
	for (r = lb + 1; r < rb;) {
		const char *e = memchr(r, ',', (size_t)(rb - r)), *dash, *end = r;
		uint64_t lo, hi, n;
		int width;
		if (!e)
			e = rb;
		dash = memchr(r, '-', (size_t)(e - r));
		if (e == r || !np_scan_u64(&end, 10, 0, UINT64_MAX, &lo) ||
		    end != (dash ? dash : e))
			return -1;
		width = (int)(end - r);
		hi = lo;
		if (dash) {
			end = dash + 1;
			if (!np_scan_u64(&end, 10, lo, UINT64_MAX, &hi) || end != e)
				return -1;
		}
		/* mid is ml digits, fewer than 32: beyond 2^64 - 1 it is in no range */
		end = mid;
		if (!np_scan_u64(&end, 10, 0, UINT64_MAX, &n))
			return 0;
		snprintf(buf, sizeof(buf), "%0*llu", width, (unsigned long long)n);
		if (n >= lo && n <= hi && strlen(buf) == ml && !memcmp(buf, mid, ml))
			return 1;
		r = e + 1;
	}
	return 0;
}

/* Whether name is on the hostlist (items separated by commas outside
 * brackets); -1 with the item it cannot read in *bad. */
static int hostlist_has(const char *list, const char *name, const char **bad, size_t *badlen)
{
	const char *p = list;

	while (*p) {
		const char *e = p;
		int depth = 0, h;
		while (*e && (depth || *e != ',')) {
			depth += *e == '[' ? 1 : *e == ']' ? -1 : 0;
			e++;
		}
		h = item_has(p, (size_t)(e - p), name);
		if (h) {
			if (h < 0) {
				*bad = p;
				*badlen = (size_t)(e - p);
			}
			return h;
		}
		p = *e ? e + 1 : e;
	}
	return 0;
}

/* The value of key= among the line's words, or NULL; copied to buf. */
static const char *word_value(const char *line, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	const char *p = line;

	while (*p) {
		const char *e;
		while (isspace((unsigned char)*p))
			p++;
		e = p;
		while (*e && !isspace((unsigned char)*e))
			e++;
		if ((size_t)(e - p) > kl && p[kl] == '=' && !strncasecmp(p, key, kl)) {
			size_t n = (size_t)(e - p) - kl - 1;
			if (n >= len)
				n = len - 1;
			memcpy(buf, p + kl + 1, n);
			buf[n] = '\0';
			return buf;
		}
		p = e;
	}
	return NULL;
}

enum np_status np_iso_topology_read(const char *path, int N, const char (*names)[NP_ISO_NAMELEN],
				    int *leaf, char (*leaf_names)[NP_ISO_NAMELEN], int *nleaves,
				    struct np_err *err)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, sw[NP_ISO_NAMELEN], *nodes = NULL;
	size_t cap = 0;
	ssize_t got;
	int lineno = 0, placed = 0;
	enum np_status st = NP_OK;

	*nleaves = 0;
	for (int v = 0; v < N; v++)
		leaf[v] = -1;
	if (!f)
		return np_fail(err, NP_EUSAGE,
			       "cannot read --topology '%s': %s; give Slurm's topology.conf", path,
			       strerror(errno));
	while ((got = getline(&line, &cap, f)) >= 0) {
		char *hash = strchr(line, '#');
		int l = -1;
		lineno++;
		if (hash)
			*hash = '\0';
		if (!word_value(line, "SwitchName", sw, sizeof(sw)))
			continue;
		free(nodes);
		nodes = malloc((size_t)got + 1);
		if (!nodes) {
			st = np_fail(err, NP_ENOMEM, "out of memory reading --topology '%s'", path);
			break;
		}
		if (!word_value(line, "Nodes", nodes, (size_t)got + 1))
			continue; /* a switch of switches */
		for (int v = 0; v < N && st == NP_OK; v++) {
			const char *bad = NULL;
			size_t badlen = 0;
			int h = hostlist_has(nodes, names[v], &bad, &badlen);
			if (h < 0) {
				st = np_fail(err, NP_EUSAGE,
					     "--topology '%s' line %d: cannot read the node list '%.*s'; write it as NAME, PREFIX[1-32] or PREFIX[01-08,12]SUFFIX",
					     path, lineno, (int)(badlen > 80 ? 80 : badlen), bad);
				break;
			}
			if (!h)
				continue;
			if (l < 0) {
				l = (*nleaves)++;
				snprintf(leaf_names[l], NP_ISO_NAMELEN, "%s", sw);
			}
			if (leaf[v] >= 0 && leaf[v] != l) {
				st = np_fail(err, NP_EUSAGE,
					     "--topology '%s' line %d: node '%s' is on switch '%s' and on '%s'; list each node on one leaf switch",
					     path, lineno, names[v], leaf_names[leaf[v]], sw);
				break;
			}
			if (leaf[v] < 0)
				placed++;
			leaf[v] = l;
		}
		if (st != NP_OK)
			break;
	}
	if (st == NP_OK && ferror(f))
		st = np_fail(err, NP_EUSAGE, "cannot read --topology '%s': %s", path,
			     strerror(errno));
	if (st == NP_OK && !placed)
		st = np_fail(err, NP_EUSAGE,
			     "--topology '%s' puts none of this job's nodes (such as '%s') on a leaf switch; give this cluster's topology.conf (SwitchName=NAME Nodes=LIST lines)",
			     path, N > 0 ? names[0] : "");
	free(nodes);
	free(line);
	fclose(f);
	return st;
}
