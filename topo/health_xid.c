/* SPDX-License-Identifier: MIT */
/* XID errors since boot: the NVIDIA driver's "NVRM: Xid" lines in the
 * kernel log, read from /dev/kmsg through the fsroot (tests plant a file
 * there). A log that cannot be read leaves them unknown, never "none";
 * a log whose oldest record is not the kernel's first may have lost some. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/number.h"
#include "health.h"

#define LOG_MAX (32u << 20) /* the kernel's ring buffer is at most this */

static const struct {
	int xid;
	bool node;
	const char *what;
} xids[] = {
	{ 13, false, "graphics engine exception (usually the application)" },
	{ 31, false, "GPU memory page fault (usually the application)" },
	{ 43, false, "GPU stopped processing (usually the application)" },
	{ 45, false, "preemptive cleanup after a killed or faulting process" },
	{ 48, true, "double-bit ECC error" },
	{ 61, true, "internal micro-controller breakpoint" },
	{ 62, true, "internal micro-controller halt" },
	{ 63, true, "ECC page retirement or row remapping recorded" },
	{ 64, true, "ECC page retirement or row remapping failed" },
	{ 74, true, "NVLink error" },
	{ 79, true, "GPU has fallen off the bus" },
	{ 92, true, "high single-bit ECC error rate" },
	{ 94, true, "contained ECC error (the application was stopped)" },
	{ 95, true, "uncontained ECC error (the GPU needs a reset)" },
	{ 119, true, "GSP RPC timeout" },
	{ 120, true, "GSP error" },
	{ 140, true, "unrecovered ECC error" },
	{ 154, true, "GPU recovery action changed (reset or reboot required)" },
};

const char *np_xid_meaning(int xid, bool *node_fault)
{
	for (size_t i = 0; i < sizeof(xids) / sizeof(xids[0]); i++)
		if (xids[i].xid == xid) {
			if (node_fault)
				*node_fault = xids[i].node;
			return xids[i].what;
		}
	if (node_fault)
		*node_fault = true; /* unknown: the node's to explain */
	return "";
}

/* The whole log: /dev/kmsg gives one record a read and EAGAIN at its end
 * (opened non-blocking); a planted file gives chunks and 0. Records are
 * joined by newlines. NULL with errno set when it cannot be read. */
static char *read_log(const struct np_sysfs *fs, size_t *len)
{
	int fd = np_sysfs_openfd(fs, "dev/kmsg", O_RDONLY | O_NONBLOCK);
	size_t cap = 1 << 16, n = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	for (;;) {
		ssize_t r;
		if (cap - n < 8193) {
			char *nb;
			if (cap >= LOG_MAX)
				break;
			nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, 8192);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 &&
		    errno == EPIPE) /* a record overwritten while reading: the next one follows */
			continue;
		if (r < 0 && errno == EAGAIN)
			break;
		if (r < 0) {
			int e = errno;
			close(fd);
			free(buf);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (buf[n - 1] != '\n')
			buf[n++] = '\n';
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static struct np_xid_gpu *gpu_of(const struct np_topo *t, struct np_xid_log *x, const char *busid)
{
	struct np_xid_gpu *g;

	for (int i = 0; i < x->ngpus; i++)
		if (!strcmp(x->gpus[i].busid, busid))
			return &x->gpus[i];
	if (x->ngpus >= NP_MAX_GPUS)
		return NULL;
	g = &x->gpus[x->ngpus++];
	memset(g, 0, sizeof(*g));
	snprintf(g->busid, sizeof(g->busid), "%s", busid);
	g->gpu = -1;
	for (int i = 0; i < t->ngpus; i++)
		if (!strcmp(t->gpus[i].busid, busid))
			g->gpu = i;
	return g;
}

/* One line: "NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off
 * the bus." (older drivers omit "PCI:"). */
static void xid_line(const struct np_topo *t, struct np_xid_log *x, const char *line)
{
	const char *p = strstr(line, "NVRM: Xid ("), *close;
	char id[NP_BUSID_LEN], norm[NP_BUSID_LEN];
	struct np_xid_gpu *g;
	int64_t xid;
	int k;

	if (!p)
		return;
	p += strlen("NVRM: Xid (");
	if (!strncmp(p, "PCI:", 4))
		p += 4;
	/* "dddd:bb:dd" (or "bb:dd"): a bus id without its function, which
	 * np_busid_norm checks once ".0" is added */
	close = strchr(p, ')');
	if (!close || close[1] != ':' || close - p > (ptrdiff_t)sizeof(id) - 3)
		return;
	snprintf(id, sizeof(id), "%.*s.0", (int)(close - p), p);
	p = close + 2;
	while (*p == ' ')
		p++;
	if (!np_scan_i64(&p, 10, 0, 100000, &xid) || (*p && *p != ',' && *p != ' '))
		return;
	if (!np_busid_norm(id, norm, sizeof(norm)) || !(g = gpu_of(t, x, norm)))
		return;
	for (k = 0; k < g->nkinds && g->xid[k] != (int)xid; k++)
		;
	if (k == g->nkinds && k < NP_XID_KINDS) {
		g->xid[k] = (int)xid;
		g->nkinds++;
	}
	if (k < g->nkinds)
		g->count[k]++;
	p = strchr(line, ';'); /* the text of a kmsg record */
	snprintf(g->last, sizeof(g->last), "%s",
		 p && p < strstr(line, "NVRM: Xid (") ? p + 1 : line);
}

/* The SEQ of a kmsg record's header "PRI,SEQ,USEC,FLAGS[,...];"; false
 * when line does not start with one */
static bool kmsg_seq(const char *line, uint64_t *seq)
{
	const char *p = line;
	uint64_t pri, s, usec;

	if (!np_scan_u64(&p, 10, 0, INT32_MAX, &pri) || *p++ != ',' ||
	    !np_scan_u64(&p, 10, 0, UINT64_MAX, &s) || *p++ != ',' ||
	    !np_scan_u64(&p, 10, 0, UINT64_MAX, &usec) || *p++ != ',' || *p == ';' ||
	    !strchr(p, ';'))
		return false;
	*seq = s;
	return true;
}

void np_health_xid(const struct np_topo *t, const struct np_sysfs *fs, struct np_xid_log *x)
{
	size_t len = 0;
	char *log, *line, *save = NULL;
	bool first = true;

	memset(x, 0, sizeof(*x));
	x->readable = x->since_boot = NP_UNKNOWN;
	log = read_log(fs, &len);
	if (!log) {
		x->readable = NP_NO;
		snprintf(x->why, sizeof(x->why), "%s%s", strerror(errno),
			 errno == EPERM || errno == EACCES
				 ? " (it needs CAP_SYSLOG, or kernel.dmesg_restrict=0)"
				 : "");
		return;
	}
	x->readable = NP_YES;
	for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t seq;
		if (line[0] == ' ') /* a record's continuation (SUBSYSTEM=..., DEVICE=...) */
			continue;
		x->records++;
		/* kmsg records: "PRI,SEQ,USEC,FLAGS;text"; the first one's SEQ
		 * says whether older records were dropped */
		if (first) {
			if (kmsg_seq(line, &seq))
				x->since_boot = seq == 0 ? NP_YES : NP_NO;
			first = false;
		}
		xid_line(t, x, line);
	}
	free(log);
}
