/* SPDX-License-Identifier: MIT */
/* Reading a topology file (format told by its root element, after
 * topo/xmlfile.c has read and checked it), running the
 * analysis in order, and the one-line node summary of fleet mode. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwloc.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "internal.h"
#include "topo.h"
#include "xmlfile.h"

#define INPUT_HINT \
	"give an hwloc XML (lstopo --of xml, or 'nccl-probe topo --export') or an NCCL topology file (NCCL_TOPO_DUMP_FILE)"

#define DAMAGED "the hwloc XML is damaged, export it again (lstopo --of xml)"

/* hwloc prints its complaints about a file it still imports (children
 * out of order, which it reorders) on stderr, where they would be lines
 * beside the report; HWLOC_HIDE_ERRORS=2 silences them all. hwloc reads
 * the variable once, at its first complaint, so it is set before an
 * import in this process; a value the user set is kept. */
static void hwloc_quiet(void) { setenv("HWLOC_HIDE_ERRORS", "2", 0); }

/* said: where hwloc's messages go (the parent reads them), or -1 */
static void import_hwloc_child(const struct np_xml *x, int said)
{
	static const int sigs[] = { SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,
				    SIGALRM, SIGPIPE, SIGUSR1, SIGUSR2 };
	const struct rlimit nocore = { 0, 0 };
	hwloc_topology_t topo;
	int fd;

	/* the parent's handlers (cleanup of its files) are not the child's;
	 * hwloc's own messages go to the parent, never to the terminal */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	setrlimit(RLIMIT_CORE, &nocore);
	fd = said >= 0 ? said : open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd >= 0)
		dup2(fd, STDERR_FILENO);
	if (hwloc_topology_init(&topo) != 0)
		_exit(2);
	hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
	if (hwloc_topology_set_xmlbuffer(topo, x->buf, (int)x->len + 1) != 0 ||
	    hwloc_topology_load(topo) != 0)
		_exit(1);
	_exit(0);
}

/* The first line of what hwloc said (its banner of asterisks dropped),
 * printable, into out; "" when it said nothing. */
static void first_said(int fd, char *out, size_t len)
{
	char buf[2048], *line, *save = NULL;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	out[0] = '\0';
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t k = 0;

		while (*line == '*' || *line == ' ')
			line++;
		for (; *line && k + 1 < len; line++)
			out[k++] = isprint((unsigned char)*line) ? *line : '?';
		while (k > 0 && (out[k - 1] == ' ' || out[k - 1] == '.'))
			k--;
		out[k] = '\0';
		if (k)
			return;
	}
}

/* hwloc 2.9's importer has crashed on damaged files that passed every
 * check of topo/xmlfile.c (fuzzing finds such files after minutes): a
 * child process imports the checked bytes first, and only its exit
 * status and what hwloc said (a note, when the import worked) come back.
 * NP_OK when the import in this process may follow. */
static enum np_status trial_import(struct np_topo *t, const struct np_xml *x, const char *path,
				   struct np_err *err)
{
	char said[160];
	FILE *f = tmpfile(); /* unnamed: removed already */
	int ws;
	pid_t pid, r;

	pid = fork();
	if (pid < 0) { /* no child to spare: the checks alone stand */
		if (f)
			fclose(f);
		return NP_OK;
	}
	if (pid == 0)
		import_hwloc_child(x, f ? fileno(f) : -1);
	while ((r = waitpid(pid, &ws, 0)) < 0 && errno == EINTR)
		;
	said[0] = '\0';
	if (f) {
		first_said(fileno(f), said, sizeof(said));
		fclose(f);
	}
	if (r < 0)
		return np_fail(err, NP_ESYS, "cannot wait for the import of --input '%s': %s", path,
			       strerror(errno));
	if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0) {
		if (said[0])
			np_topo_note(t,
				     "hwloc read --input '%s' but said \"%s\"; what follows is the file as hwloc "
				     "repaired it (export it again: lstopo --of xml)",
				     path, said);
		return NP_OK;
	}
	if (WIFSIGNALED(ws))
		return np_fail(err, NP_EUSAGE,
			       "hwloc's importer crashed (signal %d) on --input '%s'; " DAMAGED,
			       WTERMSIG(ws), path);
	if (WIFEXITED(ws) && WEXITSTATUS(ws) == 2)
		return np_fail(err, NP_ESYS, "hwloc_topology_init failed importing --input '%s'",
			       path);
	return np_fail(err, NP_EUSAGE,
		       "hwloc cannot load --input '%s' (an hwloc XML of a format it does not know?); %s",
		       path, INPUT_HINT);
}

/* hwloc imports the bytes that were checked, not the file again (which
 * may have changed since). */
static enum np_status load_hwloc(struct np_topo *t, const struct np_xml *x, const char *path,
				 bool keep, struct np_err *err)
{
	hwloc_topology_t topo;
	enum np_status st;

	if (t->import_in_child && (st = trial_import(t, x, path, err)))
		return st;
	hwloc_quiet();
	if (hwloc_topology_init(&topo) != 0)
		return np_fail(err, NP_ESYS, "hwloc_topology_init failed: %s", strerror(errno));
	hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
	if (hwloc_topology_set_xmlbuffer(topo, x->buf, (int)x->len + 1) != 0 ||
	    hwloc_topology_load(topo) != 0) {
		hwloc_topology_destroy(topo);
		return np_fail(err, NP_EUSAGE,
			       "hwloc cannot load --input '%s' (an hwloc XML of a format it does not know?); %s",
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

/* Whether an hwloc XML element holds a NUMANode object below it. */
static bool has_numanode(xmlNodePtr n)
{
	for (xmlNodePtr c = n->children; c; c = c->next) {
		xmlChar *type;
		bool numa;
		if (c->type != XML_ELEMENT_NODE)
			continue;
		type = xmlGetProp(c, (const xmlChar *)"type");
		numa = type && !strcmp((const char *)type, "NUMANode");
		xmlFree(type);
		if (numa || has_numanode(c))
			return true;
	}
	return false;
}

/* Dispatch a parsed file on its root element; x->buf holds its bytes. */
static enum np_status discover_xml(struct np_topo *t, struct np_xml *x, const char *path,
				   bool keep_hwloc, struct np_err *err)
{
	const char *name = (const char *)xmlDocGetRootElement(x->doc)->name;
	char shown[64];
	size_t k = 0;
	enum np_status st;

	if (!strcmp(name, "topology")) {
		xmlNodePtr root = xmlDocGetRootElement(x->doc);
		xmlChar *ver = xmlGetProp(root, (const xmlChar *)"version");
		if (t->tray_want) {
			xmlFree(ver);
			return np_fail(err, NP_EUSAGE,
				       "--host-hash picks a tray of an NCCL topology file; --input '%s' is an hwloc XML",
				       path);
		}
		st = np_xml_check_hwloc(x, path, err);
		/* 1.x files have no version (2.x write "2.0" and up) */
		t->v1_no_numa = (!ver || ver[0] == '1') && !has_numanode(root);
		xmlFree(ver);
		xmlFreeDoc(x->doc); /* hwloc parses the bytes itself */
		x->doc = NULL;
		return st ? st : load_hwloc(t, x, path, keep_hwloc, err);
	}
	if (!strcmp(name, "system"))
		return np_topo_from_nccl_doc(t, x->doc, path, err);
	for (const char *p = name; *p && k + 1 < sizeof(shown); p++)
		shown[k++] = isprint((unsigned char)*p) ? *p : '?';
	shown[k] = '\0';
	return np_fail(err, NP_EUSAGE,
		       "--input '%s' is XML of an unknown format (root element <%s>); %s", path,
		       shown, INPUT_HINT);
}

enum np_status np_topo_discover_file(struct np_topo *t, const char *path, bool keep_hwloc,
				     struct np_err *err)
{
	struct stat sb;
	struct np_xml x;
	enum np_status st;

	snprintf(t->source, sizeof(t->source), "%s", path);
	if (stat(path, &sb) != 0)
		return np_fail(err, NP_EUSAGE, "cannot read --input '%s': %s; %s", path,
			       strerror(errno), INPUT_HINT);
	if (S_ISDIR(sb.st_mode))
		return np_fail(err, NP_EUSAGE, "--input '%s' is a directory; %s", path, INPUT_HINT);
	if (!S_ISREG(sb.st_mode))
		return np_fail(err, NP_EUSAGE, "--input '%s' is not a regular file; %s", path,
			       INPUT_HINT);
	if (sb.st_size == 0)
		return np_fail(err, NP_EUSAGE, "--input '%s' is empty; %s", path, INPUT_HINT);
	st = np_xml_read(&x, path, err);
	if (st)
		return st;
	st = discover_xml(t, &x, path, keep_hwloc, err);
	np_xml_release(&x);
	return st;
}

enum np_status np_topo_discover_buffer(struct np_topo *t, const char *buf, size_t len,
				       const char *name, bool keep_hwloc, struct np_err *err)
{
	struct np_xml x;
	enum np_status st;

	snprintf(t->source, sizeof(t->source), "%s", name);
	if (len == 0)
		return np_fail(err, NP_EUSAGE, "--input '%s' is empty; %s", name, INPUT_HINT);
	memset(&x, 0, sizeof(x));
	st = np_xml_parse(&x, buf, len, name, err);
	if (st)
		return st;
	x.buf = malloc(len + 1); /* hwloc's buffer ends with a NUL */
	if (!x.buf) {
		np_xml_release(&x);
		return np_fail(err, NP_ENOMEM, "out of memory reading --input '%s'", name);
	}
	memcpy(x.buf, buf, len);
	x.buf[len] = '\0';
	x.len = len;
	st = discover_xml(t, &x, name, keep_hwloc, err);
	np_xml_release(&x);
	return st;
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
	off = (size_t)
		snprintf(buf, len,
			 "%d GPU%s%s%s, %d NIC port%s (%d active, %g Gb/s), peer memory %s, findings:",
			 t->ngpus, t->ngpus == 1 ? "" : "s", t->ngpus ? " " : "",
			 t->ngpus ? t->gpus[0].name : "", t->nnics, t->nnics == 1 ? "" : "s",
			 active, rate, np_tri_str(t->host.peermem_loaded));
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
