/* SPDX-License-Identifier: MIT */
/* NCCL's log lines that name the network transport (see nccl_log.h). The
 * strings are NCCL's own, unchanged from 2.21 to 2.28: "Using network %s"
 * (INIT) and "NET/<name> : Using <devices>[; OOB ...]" (INIT|NET). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/number.h"
#include "nccl_log.h"

/* Process-wide: NCCL reads NCCL_DEBUG_FILE once per process, so the
 * process has one log, whichever backend or arm starts NCCL */
static char log_path[256];

/* NCCL opens NCCL_DEBUG_FILE itself (fopen "w", after expanding %h and
 * %p), so the path must name a file that NCCL may open by name. The file
 * is made by mkstemp (ours, 0600, never a planted link) and its name
 * removed at once; NCCL_DEBUG_FILE names it through this process's open
 * descriptor, /proc/self/fd/N, which NCCL, the backend and tune reopen.
 * So nothing is left in TMPDIR however the process ends, SIGKILL and the
 * OOM killer included, and a run that never starts NCCL writes nothing.
 * Without /proc the named file is kept (src/ removes it at exit). */
static int log_fd = -1;

const char *np_nccl_log_setup(bool tuning)
{
	const char *tmp = getenv("TMPDIR");
	char name[256];
	int fd, probe;

	if (log_path[0])
		return log_path;
	if (getenv("NCCL_DEBUG"))
		return NULL; /* the user's logging: theirs, and not read */
	if (!tmp || !*tmp || strchr(tmp, '%') || strlen(tmp) > 200)
		tmp = "/tmp"; /* NCCL expands %h and %p in the file name */
	snprintf(name, sizeof(name), "%s/nccl-probe-nccl.XXXXXX", tmp);
	fd = mkstemp(name);
	if (fd < 0)
		return NULL;
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC); /* no program this one starts holds it */
	snprintf(log_path, sizeof(log_path), "/proc/self/fd/%d", fd);
	probe = open(log_path, O_RDONLY | O_CLOEXEC);
	if (probe >= 0) {
		close(probe);
		unlink(name);
		log_fd = fd;
	} else {
		close(fd);
		snprintf(log_path, sizeof(log_path), "%s", name);
	}
	if (setenv("NCCL_DEBUG", "INFO", 1) ||
	    setenv("NCCL_DEBUG_SUBSYS", tuning ? "INIT,NET,ENV,TUNING" : "INIT,NET", 1) ||
	    setenv("NCCL_DEBUG_FILE", log_path, 1)) {
		unsetenv("NCCL_DEBUG");
		unsetenv("NCCL_DEBUG_SUBSYS");
		if (log_fd >= 0)
			close(log_fd);
		else
			unlink(name);
		log_fd = -1;
		log_path[0] = '\0';
		return NULL;
	}
	return log_path;
}

const char *np_nccl_log_path(void) { return log_path[0] ? log_path : NULL; }

/* Process-wide: the NCCL_HOSTID this process put in its environment */
static char host_id[64];

void np_nccl_host_id(char *buf, size_t len, const char *host, int node)
{
	snprintf(buf, len, "%.40s-vnode%d", host, node);
}

int np_nccl_hostid_setup(const char *host, int node)
{
	char id[sizeof(host_id)];

	np_nccl_host_id(id, sizeof(id), host, node);
	if (!strcmp(id, host_id))
		return 0;
	if (setenv("NCCL_HOSTID", id, 1) != 0)
		return -1;
	memcpy(host_id, id, sizeof(host_id));
	return 0;
}

const char *np_nccl_hostid(void) { return host_id[0] ? host_id : NULL; }

bool np_nccl_env_ours(const char *e)
{
	if (log_path[0] &&
	    (!strncmp(e, "NCCL_DEBUG=", 11) || !strncmp(e, "NCCL_DEBUG_SUBSYS=", 18) ||
	     !strncmp(e, "NCCL_DEBUG_FILE=", 16)))
		return true;
	return host_id[0] && !strncmp(e, "NCCL_HOSTID=", 12) && !strcmp(e + 12, host_id);
}

#define NET_LINES 4

/* Copy s up to ';' or the end of the line, without trailing blanks. */
static void copy_field(char *dst, size_t len, const char *s)
{
	size_t n;

	while (*s == ' ')
		s++;
	n = strcspn(s, ";\r\n");
	while (n && s[n - 1] == ' ')
		n--;
	snprintf(dst, len, "%.*s", (int)n, s);
}

void np_nccl_log_transport(FILE *f, char *out, size_t len)
{
	static const char use_net[] = "NCCL INFO Using network ", using[] = " : Using ";
	char line[1024], net[64] = "", why[64] = "";
	struct {
		char tag[32];
		char devs[160];
	} nets[NET_LINES];
	int nnets = 0;
	const char *devs = NULL;

	*out = '\0';
	while (fgets(line, sizeof(line), f)) {
		const char *s, *u;

		if ((s = strstr(line, use_net))) {
			if (!net[0])
				copy_field(net, sizeof(net), s + sizeof(use_net) - 1);
		} else if ((s = strstr(line, "NCCL INFO NET/")) && (u = strstr(s, using)) &&
			   nnets < NET_LINES) {
			s += strlen("NCCL INFO NET/");
			snprintf(nets[nnets].tag, sizeof(nets[nnets].tag), "%.*s", (int)(u - s), s);
			copy_field(nets[nnets].devs, sizeof(nets[nnets].devs),
				   u + sizeof(using) - 1);
			nnets++;
		} else if (!why[0] && strstr(line, "NET/IB : No device found")) {
			snprintf(why, sizeof(why), "NET/IB: no device found");
		} else if (!why[0] && strstr(line, "libibverbs")) {
			snprintf(why, sizeof(why), "libibverbs not loaded");
		}
	}
	if (!net[0])
		return;
	/* the devices of the network in use: its own line, else the line of
	 * the transport it extends (plugin "IBext_v8" -> "NET/IB") */
	for (int i = 0; i < nnets && !devs; i++)
		if (!strcmp(nets[i].tag, net))
			devs = nets[i].devs;
	for (int i = 0; i < nnets && !devs; i++)
		if (nets[i].tag[0] && !strncmp(net, nets[i].tag, strlen(nets[i].tag)))
			devs = nets[i].devs;
	if (devs && !*devs)
		devs = NULL;
	if (!strncmp(net, "Socket", 6) && why[0])
		snprintf(out, len, "%s (%s%s%s)", net, devs ? devs : "", devs ? "; " : "", why);
	else if (devs)
		snprintf(out, len, "%s (%s)", net, devs);
	else
		snprintf(out, len, "%s", net);
}

static bool same_number(const char *a, const char *b)
{
	const char *ea = a, *eb = b;
	int64_t x, y;

	if (!np_scan_i64(&ea, 0, INT64_MIN, INT64_MAX, &x) ||
	    !np_scan_i64(&eb, 0, INT64_MIN, INT64_MAX, &y) || (*ea && strcmp(ea, ".")) ||
	    (*eb && strcmp(eb, ".")))
		return false;
	return x == y;
}

bool np_nccl_log_env_line(const char *line, const char *name, const char *value)
{
	static const char mid[] = " set by environment to ";
	const char *p = strstr(line, name), *v;
	char got[256];
	size_t len;

	while (p && (strncmp(p + strlen(name), mid, sizeof(mid) - 1) || (p > line && p[-1] != ' ')))
		p = strstr(p + 1, name);
	if (!p)
		return false;
	v = p + strlen(name) + sizeof(mid) - 1;
	len = strcspn(v, "\r\n");
	if (len >= sizeof(got))
		return false;
	memcpy(got, v, len);
	got[len] = '\0';
	if (!strcmp(got, value))
		return true;
	return same_number(got, value);
}

bool np_nccl_log_tuning_line(const char *line, char *func, size_t flen, char *algo, size_t alen,
			     char *proto, size_t plen)
{
	const char *p = strstr(line, " Bytes -> Algo "), *f;
	char fn[32], al[32], pr[32];
	long long bytes;

	if (!p)
		return false;
	/* back from " Bytes" over the byte count and ": " to the function */
	f = p;
	while (f > line && isdigit((unsigned char)f[-1]))
		f--;
	if (f == p || f - line < 3 || f[-1] != ' ' || f[-2] != ':')
		return false;
	f -= 2;
	{
		const char *s = f;
		size_t n;
		while (s > line && isalpha((unsigned char)s[-1]))
			s--;
		n = (size_t)(f - s);
		if (!n || n >= sizeof(fn))
			return false;
		memcpy(fn, s, n);
		fn[n] = '\0';
	}
	if (sscanf(f + 2, "%lld Bytes -> Algo %31s proto %31s", &bytes, al, pr) != 3)
		return false;
	snprintf(func, flen, "%s", fn);
	snprintf(algo, alen, "%s", al);
	snprintf(proto, plen, "%s", pr);
	return true;
}
