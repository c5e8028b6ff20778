/* SPDX-License-Identifier: MIT */
/* Fuzz target: nccl-probe's snapshot records. The input's lines become the
 * NCCLProbeHost, NCCLProbeGPU, NCCLProbeNIC and NCCLProbePCI records of a
 * small hwloc XML (escaped as attribute values), which is then read as
 * 'topo --input' reads a snapshot. */
#include "config.h"

#include <string.h>

#include "fuzz_topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char head[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
	"<topology version=\"2.0\">\n"
	"<object type=\"Machine\" os_index=\"0\" cpuset=\"0x3\" complete_cpuset=\"0x3\" nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"1\">\n"
	"<info name=\"NCCLProbeSnapshot\" value=\"1 fuzz\"/>\n";
static const char *const names[] = { "NCCLProbeHost", "NCCLProbeGPU", "NCCLProbeNIC",
				     "NCCLProbePCI",  "NCCLProbeGPU", "NCCLProbeNIC" };
static const char tail[] =
	"<object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x3\" complete_cpuset=\"0x3\" nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"2\"/>\n"
	"<object type=\"PU\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"3\"/>\n"
	"</object>\n</topology>\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cap = sizeof(head) + sizeof(tail) + 6 * 64 + size * 6 + 1, off = 0;
	char *x = malloc(cap);
	unsigned rec = 0;
	size_t i = 0;

	if (!x || size > 65536) {
		free(x);
		return 0;
	}
	off += (size_t)snprintf(x + off, cap - off, "%s", head);
	while (i <= size && rec < sizeof(names) / sizeof(names[0])) {
		off += (size_t)snprintf(x + off, cap - off, "<info name=\"%s\" value=\"",
					names[rec++]);
		for (; i < size && data[i] != '\n'; i++) {
			unsigned char c = data[i];
			if (c == '<' || c == '&' || c == '"' || c < 0x20 || c >= 0x7f)
				off += (size_t)snprintf(x + off, cap - off, "&#%u;",
							c < 0x20 || c >= 0x7f ? 0x3f : c);
			else
				x[off++] = (char)c;
		}
		i++;
		off += (size_t)snprintf(x + off, cap - off, "\"/>\n");
	}
	off += (size_t)snprintf(x + off, cap - off, "%s", tail);
	fuzz_topo(x, off);
	free(x);
	return 0;
}
