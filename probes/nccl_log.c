/* SPDX-License-Identifier: MIT */
/* NCCL's log lines that name the network transport (see nccl_log.h). The
 * strings are NCCL's own, unchanged from 2.21 to 2.28: "Using network %s"
 * (INIT) and "NET/<name> : Using <devices>[; OOB ...]" (INIT|NET). */
#include "config.h"

#include <string.h>

#include "nccl_log.h"

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
			copy_field(nets[nnets].devs, sizeof(nets[nnets].devs), u + sizeof(using) - 1);
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
