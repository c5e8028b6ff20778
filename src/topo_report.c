/* SPDX-License-Identifier: MIT */
/* The topo command's table sections (matrix and legend as nvidia-smi
 * topo -m shows them, GPU and NIC tables, findings, recommendations, the
 * --check-gdr lines), each written on its node of the document that
 * src/topo_doc.c builds, and the --recommend export lines. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health_report.h"
#include "json.h"
#include "msg.h"
#include "topo_report.h"
#include "topo_report_internal.h"
#include "../topo/topo.h"
#include "version.h"

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Two GPUs whose NVLinks the source cannot tell: the PCIe class is all
 * that is known, NVLinks may join them. */
/* "H200 SXM 141GB" from "NVIDIA GH100 [H200 SXM 141GB]"-like PCI names: the
 * bracketed model when there is one, for the narrow table */
static const char *short_name(const char *name)
{
	static char buf[64];
	const char *a = strchr(name, '['), *b = a ? strchr(a, ']') : NULL;

	if (!a || !b || b - a < 2)
		return name;
	snprintf(buf, sizeof(buf), "%.*s", (int)(b - a - 1), a + 1);
	return buf;
}

static const char *numa_cpus(const struct np_topo *t, int numa)
{
	int k = numa >= 0 ? np_topo_numa_index(t, numa) : -1;

	return k >= 0 && t->numa[k].cpus[0] ? t->numa[k].cpus : "N/A";
}

/* The default matrix: cells 6 wide, in chunks of columns that fit 100
 * columns; the CPU and NUMA affinity in lines below it, per NUMA node. */
static void matrix_narrow(FILE *f, const struct np_topo *t)
{
	/* a chunk of k columns is 6 + 6 (k - 1) + 5 wide: at most 15 fit;
	 * chunks of even size (8 GPUs and 8 NICs: the GPUs' columns, then the
	 * NICs') */
	int ncols = t->ngpus + t->nnics, nrows = ncols, nchunks = (ncols + 14) / 15;
	int per = nchunks ? (ncols + nchunks - 1) / nchunks : 1;
	char cell[16];

	if (!ncols)
		return;
	for (int c0 = 0; c0 < ncols; c0 += per) {
		int c1 = c0 + per < ncols ? c0 + per : ncols;
		if (c0)
			fputc('\n', f);
		fprintf(f, "%-6s", "");
		for (int c = c0; c < c1; c++) {
			snprintf(cell, sizeof(cell), c < t->ngpus ? "GPU%d" : "NIC%d",
				 c < t->ngpus ? c : c - t->ngpus);
			fprintf(f, c + 1 < c1 ? "%-6s" : "%s", cell);
		}
		fputc('\n', f);
		for (int r = 0; r < nrows; r++) {
			snprintf(cell, sizeof(cell), r < t->ngpus ? "GPU%d" : "NIC%d",
				 r < t->ngpus ? r : r - t->ngpus);
			fprintf(f, "%-6s", cell);
			for (int c = c0; c < c1; c++) {
				if (r < t->ngpus && c < t->ngpus)
					path_cell(t, r, c, true, cell, sizeof(cell));
				else if (r < t->ngpus)
					path_cell(t, r, c - t->ngpus, false, cell, sizeof(cell));
				else if (c < t->ngpus)
					path_cell(t, c, r - t->ngpus, false, cell, sizeof(cell));
				else
					snprintf(cell, sizeof(cell), "%s",
						 np_path_str(t->nn[r - t->ngpus][c - t->ngpus]));
				fprintf(f, c + 1 < c1 ? "%-6s" : "%s", cell);
			}
			fputc('\n', f);
		}
	}
	/* affinity per NUMA node of the GPUs, in the order first seen */
	for (int i = 0; i < t->ngpus; i++) {
		bool first = true;
		char line[160] = "";
		size_t n = 0;
		for (int j = 0; j < i; j++)
			if (t->gpus[j].numa == t->gpus[i].numa)
				first = false;
		if (!first)
			continue;
		for (int j = i; j < t->ngpus && n < sizeof(line) - 8; j++)
			if (t->gpus[j].numa == t->gpus[i].numa)
				n += (size_t)snprintf(line + n, sizeof(line) - n, "%sGPU%d",
						      n ? "," : "", j);
		if (t->gpus[i].numa >= 0)
			fprintf(f, "%s%s: NUMA %d, CPUs %s\n", i ? "" : "\n", line, t->gpus[i].numa,
				numa_cpus(t, t->gpus[i].numa));
		else
			fprintf(f, "%s%s: NUMA unknown\n", i ? "" : "\n", line);
	}
}

static void legend(FILE *f, const struct np_topo *t);

void np_topo_tab_matrix(FILE *f, const struct np_topo *t, bool wide)
{
	char cell[16];
	int cw = 16; /* CPU Affinity column: as wide as its longest list */

	if (!wide) {
		matrix_narrow(f, t);
		legend(f, t);
		return;
	}

	for (int i = 0; i < t->ngpus; i++) {
		int l = (int)strlen(numa_cpus(t, t->gpus[i].numa)) + 2;
		if (l > cw)
			cw = l;
	}

	if (t->ngpus + t->nnics == 0)
		return;
	fprintf(f, "%-8s", "");
	for (int i = 0; i < t->ngpus; i++) {
		snprintf(cell, sizeof(cell), "GPU%d", i);
		fprintf(f, "%-8s", cell);
	}
	for (int k = 0; k < t->nnics; k++) {
		snprintf(cell, sizeof(cell), "NIC%d", k);
		fprintf(f, "%-8s", cell);
	}
	fprintf(f, "%-*s%-16s%s\n", cw, "CPU Affinity", "NUMA Affinity", "GPU NUMA ID");
	for (int i = 0; i < t->ngpus; i++) {
		const struct np_gpu *g = &t->gpus[i];
		char numa[16];
		snprintf(cell, sizeof(cell), "GPU%d", i);
		fprintf(f, "%-8s", cell);
		for (int j = 0; j < t->ngpus; j++) {
			path_cell(t, i, j, true, cell, sizeof(cell));
			fprintf(f, " %-7s", cell);
		}
		for (int k = 0; k < t->nnics; k++) {
			path_cell(t, i, k, false, cell, sizeof(cell));
			fprintf(f, " %-7s", cell);
		}
		snprintf(numa, sizeof(numa), g->numa >= 0 ? "%d" : "N/A", g->numa);
		fprintf(f, "%-*s%-16s%s\n", cw, numa_cpus(t, g->numa), numa, numa);
	}
	for (int k = 0; k < t->nnics; k++) {
		snprintf(cell, sizeof(cell), "NIC%d", k);
		fprintf(f, "%-8s", cell);
		for (int i = 0; i < t->ngpus; i++) {
			path_cell(t, i, k, false, cell, sizeof(cell));
			fprintf(f, " %-7s", cell);
		}
		for (int l = 0; l < t->nnics; l++)
			fprintf(f, " %-7s", np_path_str(t->nn[k][l]));
		fprintf(f, "\n");
	}
	legend(f, t);
}

static void legend(FILE *f, const struct np_topo *t)
{
	if (t->ngpus + t->nnics == 0)
		return;
	fprintf(f,
		"\nLegend:\n\n"
		"  X    = Self\n"
		"  SYS  = Connection traversing PCIe and the SMP interconnect between NUMA nodes (e.g. QPI/UPI)\n"
		"  NODE = Connection traversing PCIe and the interconnect between PCIe Host Bridges in a NUMA node\n"
		"  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
		"  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
		"  PIX  = Connection traversing at most a single PCIe bridge\n"
		"  NV#  = Connection traversing a bonded set of # NVLinks\n"
		"  ?    = Path unknown to this source\n");
	for (int i = 0, shown = 0; i < t->ngpus && !shown; i++)
		for (int j = 0; j < t->ngpus && !shown; j++)
			if (gg_nv_unknown(t, i, j)) {
				fprintf(f,
					"  PIX? = PCIe path PIX (and so on); whether NVLinks join the two GPUs is unknown\n");
				shown = 1;
			}
	if (t->nnics) {
		fprintf(f, "\nNIC Legend:\n\n");
		for (int k = 0; k < t->nnics; k++) {
			const struct np_nic *n = &t->nics[k];
			const char *role = n->mgmt            ? " (management port: no job traffic)"
					   : n->rdma == NP_NO ? " (socket interface, no RDMA)"
							      : "";
			if (n->port != 1)
				fprintf(f, "  NIC%d: %s port %d%s\n", k, n->name, n->port, role);
			else
				fprintf(f, "  NIC%d: %s%s\n", k, n->name, role);
		}
	}
}

static void link_str(const struct np_pcie *l, char *buf, size_t len)
{
	if (l->gen_cur && l->width_cur) {
		if (l->gen_max && l->width_max)
			snprintf(buf, len, "Gen%d x%d/Gen%d x%d", l->gen_cur, l->width_cur,
				 l->gen_max, l->width_max);
		else
			snprintf(buf, len, "Gen%d x%d", l->gen_cur, l->width_cur);
	} else if (l->gen_max && l->width_max) { /* an NCCL file: the maximum only */
		snprintf(buf, len, "?/Gen%d x%d", l->gen_max, l->width_max);
	} else if (l->gbps > 0) {
		snprintf(buf, len, "%.1f GB/s", l->gbps);
	} else {
		snprintf(buf, len, "unknown");
	}
}

/* NCCL classes GPU i's path to its nearest NIC otherwise than nvidia-smi
 * (a Broadcom switch it flattens, a root port it counts with the CPU). */
static bool nccl_differs(const struct np_topo *t, int i)
{
	return t->near[i].n && t->near[i].nccl != t->near[i].path &&
	       t->near[i].nccl != NP_PATH_UNKNOWN && t->near[i].path != NP_PATH_UNKNOWN;
}

void np_topo_tab_gpus(FILE *f, const struct np_topo *t, bool wide)
{
	if (!t->ngpus) {
		if (t->other_gpus && t->other_gpu_what[0])
			fprintf(f,
				"GPUs: no NVIDIA GPU (%d GPU(s) of PCI vendor 0x%04x, which NCCL does not drive)\n  the first: %.86s\n",
				t->other_gpus, t->other_gpu_vendor, t->other_gpu_what);
		else if (t->other_gpus)
			fprintf(f,
				"GPUs: no NVIDIA GPU (%d GPU(s) of PCI vendor 0x%04x, which NCCL does not drive)\n",
				t->other_gpus, t->other_gpu_vendor);
		else if (t->unclassified)
			fprintf(f,
				"GPUs: none the file names (%d device(s) it leaves unclassified: NCCL classifies them on the node)\n",
				t->unclassified);
		else
			fprintf(f, "GPUs: none (no NVIDIA GPU found)\n");
		return;
	}
	if (wide)
		fprintf(f, "GPUs:\n  %-5s %-13s %-34s %-5s %-20s %-16s %-10s %-9s %s\n", "GPU",
			"BUS ID", "NAME", "NUMA", "PCIE (CUR/MAX)", "NVLINK", "BAR1", "GDR ATTR",
			"NEAREST NIC");
	else
		fprintf(f, "GPUs:\n  %-3s %-12s %-18s %-4s %-17s %-14s %-7s %s\n", "GPU", "BUS ID",
			"NAME", "NUMA", "PCIE (CUR/MAX)", "NVLINK", "GDR", "NEAREST NIC");
	for (int i = 0; i < t->ngpus; i++) {
		const struct np_gpu *g = &t->gpus[i];
		char numa[16], link[40], nv[32], bar[32], near[128];
		snprintf(numa, sizeof(numa), g->numa >= 0 ? "%d" : "N/A", g->numa);
		link_str(&g->pcie, link, sizeof(link));
		if (g->nvlinks > 0 && g->nvlink_gbps > 0)
			snprintf(nv, sizeof(nv), "%d x %.1f GB/s", g->nvlinks, g->nvlink_gbps);
		else if (g->nvlinks > 0)
			snprintf(nv, sizeof(nv), "%d x ? GB/s", g->nvlinks);
		else
			snprintf(nv, sizeof(nv), "%s", g->nvlinks == 0 ? "none" : "unknown");
		if (g->bar1_mib)
			snprintf(bar, sizeof(bar), "%llu MiB", (unsigned long long)g->bar1_mib);
		else
			snprintf(bar, sizeof(bar), "unknown");
		near[0] = '\0';
		for (int k = 0; k < t->near[i].n && strlen(near) < sizeof(near) - 24; k++)
			snprintf(near + strlen(near), sizeof(near) - strlen(near), "%sNIC%d",
				 k ? "," : "", t->near[i].nics[k]);
		if (nccl_differs(t, i))
			snprintf(near + strlen(near), sizeof(near) - strlen(near),
				 wide ? " (%s, NCCL: %s)" : " (%s*)", np_path_str(t->near[i].path),
				 np_path_str(t->near[i].nccl));
		else if (t->near[i].n)
			snprintf(near + strlen(near), sizeof(near) - strlen(near), " (%s)",
				 np_path_str(t->near[i].path));
		if (wide)
			fprintf(f, "  %-5d %-13s %-34.34s %-5s %-20s %-16s %-10s %-9s %s\n", i,
				g->busid, g->name[0] ? g->name : "unknown", numa, link, nv, bar,
				np_tri_str(g->gdr), near[0] ? near : "-");
		else
			fprintf(f, "  %-3d %-12s %-18.18s %-4s %-17s %-14s %-7s %s\n", i, g->busid,
				g->name[0] ? short_name(g->name) : "unknown", numa, link, nv,
				np_tri_str(g->gdr), near[0] ? near : "-");
	}
	/* the narrow table has no room for NCCL's class beside nvidia-smi's */
	for (int i = 0, first = 1; i < t->ngpus && !wide; i++)
		if (nccl_differs(t, i)) {
			fprintf(f, "%s    GPU%d: %s (NCCL: %s)\n",
				first ? "  * nearest NIC's path as nvidia-smi classes it, and as NCCL does:\n"
				      : "",
				i, np_path_str(t->near[i].path), np_path_str(t->near[i].nccl));
			first = 0;
		}
	for (int i = 0; i < t->ngpus; i++)
		if (t->near[i].pxn >= 0)
			fprintf(f,
				"  PXN: GPU%d sends through GPU%d (NVLink) to NIC%d, %s from GPU%d\n",
				i, t->near[i].pxn, t->near[i].pxn_nic,
				np_path_str(t->gn_nccl[t->near[i].pxn][t->near[i].pxn_nic]),
				t->near[i].pxn);
	for (int i = 0; i < t->ngpus; i++)
		if (t->near[i].n && t->near[i].nccl == NP_PATH_P2C) {
			fprintf(f,
				"  P2C: NCCL's class of a GPU with a C2C link to its CPU and a NIC on that CPU's PCIe\n");
			break;
		}
}

static void nic_rate(const struct np_nic *n, char *buf, size_t len)
{
	if (n->rate_gbit > 0 && n->width && n->speed[0])
		snprintf(buf, len, "%g Gb/s (%dX %s)", n->rate_gbit, n->width, n->speed);
	else if (n->rate_gbit > 0)
		snprintf(buf, len, "%g Gb/s", n->rate_gbit);
	else
		snprintf(buf, len, "unknown");
}

void np_topo_tab_nics(FILE *f, const struct np_topo *t, bool wide)
{
	if (!t->nnics) {
		if (t->unclassified)
			fprintf(f, "NICs: none the file names (see the GPUs' line)\n");
		else
			fprintf(f, "NICs: none (no RDMA device found)\n");
		return;
	}
	if (wide)
		fprintf(f, "NICs:\n  %-5s %-20s %-4s %-8s %-7s %-6s %-22s %-10s %-5s %s\n", "NIC",
			"DEVICE", "PORT", "STATE", "LINK", "ROLE", "RATE", "NETDEV", "NUMA",
			"PCIE (CUR/MAX)");
	else
		fprintf(f, "NICs:\n  %-5s %-12s %-4s %-7s %-6s %-6s %-17s %-9s %-4s %s\n", "NIC",
			"DEVICE", "PORT", "STATE", "LINK", "ROLE", "RATE", "NETDEV", "NUMA",
			"PCIE (CUR/MAX)");
	for (int k = 0; k < t->nnics; k++) {
		const struct np_nic *n = &t->nics[k];
		char id[16], rate[48], numa[16], link[40];
		snprintf(id, sizeof(id), "NIC%d", k);
		nic_rate(n, rate, sizeof(rate));
		snprintf(numa, sizeof(numa), n->numa >= 0 ? "%d" : "N/A", n->numa);
		link_str(&n->pcie, link, sizeof(link));
		if (wide)
			fprintf(f, "  %-5s %-20.20s %-4d %-8s %-7s %-6s %-22s %-10.10s %-5s %s\n",
				id, n->name, n->port, np_port_state_str(n->state),
				np_link_layer_str(n->ll), nic_role(n), rate,
				n->netdev[0] ? n->netdev : "-", numa, link);
		else
			fprintf(f, "  %-5s %-12.12s %-4d %-7s %-6s %-6s %-17s %-9.9s %-4s %s\n", id,
				n->name, n->port, np_port_state_str(n->state),
				np_link_layer_str(n->ll), nic_role(n), rate,
				n->netdev[0] ? n->netdev : "-", numa, link);
	}
}

static void wrap(FILE *f, const char *lead, const char *indent, const char *text, bool wide);

void np_topo_tab_host(FILE *f, const struct np_topo *t, bool wide)
{
	char line[1024];
	int n;

	n = snprintf(line, sizeof(line),
		     "peer memory %s%s%s%s, NIC dma-buf %s, IOMMU %s, virtualized %s",
		     np_tri_str(t->host.peermem_loaded), t->host.peermem[0] ? " (" : "",
		     t->host.peermem, t->host.peermem[0] ? ")" : "", np_tri_str(t->host.dmabuf_nic),
		     np_tri_str(t->host.iommu), np_tri_str(t->host.virtualized));
	if (t->host.nccl_version && n > 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - (size_t)n, ", NCCL %d.%d.%d",
			 t->host.nccl_version / 10000, t->host.nccl_version / 100 % 100,
			 t->host.nccl_version % 100);
	wrap(f, "Host: ", "      ", line, wide);
}

/* text after lead, broken at blanks into lines of at most 100 columns
 * (the lines after the first start with indent); wide: one line */
static void wrap(FILE *f, const char *lead, const char *indent, const char *text, bool wide)
{
	if (wide)
		fprintf(f, "%s%s\n", lead, text);
	else
		np_wrap(f, lead, indent, text, 100);
}

void np_topo_tab_findings(FILE *f, const struct np_topo *t, bool gdr_only, bool wide)
{
	int shown = 0;

	for (int i = 0; i < t->nfindings; i++)
		shown += !gdr_only || t->findings[i].gdr;
	if (!shown) {
		fprintf(f, "Findings: none\n");
		return;
	}
	fprintf(f, "Findings:\n");
	for (int i = 0; i < t->nfindings; i++) {
		const struct np_finding *x = &t->findings[i];
		if (gdr_only && !x->gdr)
			continue;
		char head[NP_MSG_LEN + 256];
		snprintf(head, sizeof(head), "%-8s %s [%s]: %s", np_severity_str(x->sev), x->id,
			 x->subject, x->message);
		wrap(f, "  ", "             ", head, wide);
		wrap(f, "           evidence: ", "             ", x->evidence, wide);
		wrap(f, "           remedy: ", "             ", x->remedy, wide);
	}
}

/* A value for a shell's eval: in single quotes, each ' as '\'' */
static void shell_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

/* Text after a '#': one line, whatever a source put in it. */
static void comment_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < ' ' || *s == 0x7f ? '?' : *s, f);
}

static void rec_line(FILE *f, const struct np_rec *r, const char *indent)
{
	fputs(indent, f);
	if (r->operator_value) {
		fprintf(f, "# needs your value: export %s=...  # ", r->var);
	} else if (r->diagnostic) {
		fprintf(f, "# diagnostic to try, not to keep: %s=", r->var);
		comment_text(f, r->value);
		fputs("  # ", f);
	} else {
		fprintf(f, "export %s=", r->var);
		shell_quote(f, r->value);
		fputs("  # ", f);
	}
	comment_text(f, r->reason);
	fputc('\n', f);
}

/* The table's recommendation: as rec_line, but one that would pass 100
 * columns has its reason on the lines below, as comments */
static void rec_line_table(FILE *f, const struct np_rec *r, bool wide)
{
	char *cmd = NULL, *why = NULL;
	size_t clen = 0, wlen = 0;
	FILE *c = open_memstream(&cmd, &clen), *w = c ? open_memstream(&why, &wlen) : NULL;

	if (!c || !w || wide) {
		if (c)
			fclose(c);
		if (w)
			fclose(w);
		free(cmd);
		free(why);
		rec_line(f, r, "  ");
		return;
	}
	if (r->operator_value) {
		fprintf(c, "# needs your value: export %s=...", r->var);
	} else if (r->diagnostic) {
		fprintf(c, "# diagnostic to try, not to keep: %s=", r->var);
		comment_text(c, r->value);
	} else {
		fprintf(c, "export %s=", r->var);
		shell_quote(c, r->value);
	}
	comment_text(w, r->reason);
	fclose(c);
	fclose(w);
	if (2 + clen + 4 + wlen <= 100)
		fprintf(f, "  %s  # %s\n", cmd, why);
	else {
		fprintf(f, "  %s\n", cmd);
		wrap(f, "      # ", "      # ", why, false);
	}
	free(cmd);
	free(why);
}

static int warnings(const struct np_topo *t)
{
	int n = 0;

	for (int i = 0; i < t->nfindings; i++)
		n += t->findings[i].sev != NP_SEV_INFO;
	return n;
}

void np_topo_report_recommend(FILE *f, const struct np_topo *t)
{
	int exports = 0, w = warnings(t);

	for (int i = 0; i < t->nrecs; i++) {
		rec_line(f, &t->recs[i], "");
		exports += !t->recs[i].diagnostic && !t->recs[i].operator_value;
	}
	if (!exports && !w)
		fprintf(f, "# no NCCL setting to export: NCCL's defaults fit what was found\n");
	else if (!exports)
		fprintf(f,
			"# no NCCL setting to export; %d warning(s) need remedies other than NCCL settings ('nccl-probe topo' shows them)\n",
			w);
}

void np_topo_tab_fleet(FILE *f, const struct np_topo_fleet *fl)
{
	int differ = 0;

	if (!fl || fl->nnodes < 1)
		return;
	for (int i = 0; i < fl->nnodes; i++)
		differ += strcmp(fl->summaries[i], fl->summaries[fl->majority]) != 0;
	fprintf(f, "\nFleet: %d node%s, %d like '%s'", fl->nnodes, fl->nnodes == 1 ? "" : "s",
		fl->nnodes - differ, fl->hosts[fl->majority]);
	fprintf(f, "%s\n  %s: %s\n", differ ? ", these differ:" : "", fl->hosts[fl->majority],
		fl->summaries[fl->majority]);
	for (int i = 0; i < fl->nnodes; i++)
		if (strcmp(fl->summaries[i], fl->summaries[fl->majority]))
			fprintf(f, "  %s: %s\n", fl->hosts[i], fl->summaries[i]);
}

/* A multi-node NVLink dump: one line per tray, each read on its own. */
void np_topo_tab_trays(FILE *f, const struct np_topo *t)
{
	if (!t->ntrays)
		return;
	fprintf(f, "Trays (hosts of one multi-node NVLink domain; * is the one reported):\n");
	fprintf(f, "  TRAY  HOST_HASH               GPUS  NICS  RDMA  GDR      WARNINGS ERRORS\n");
	for (int k = 0; k < t->ntrays; k++) {
		const struct np_tray *tr = &t->trays[k];
		fprintf(f, "  %-4d%s %-23s %-5d %-5d %-5d %-8s %-8d %d\n", k + 1,
			k == t->tray ? "*" : " ", tr->host_hash, tr->ngpus, tr->nnics,
			tr->rdma_nics, np_tri_str(tr->gdr), tr->warnings, tr->errors);
	}
	/* another tray's error is the report's too (it sets the exit
	 * status): its first one, and how to see them all */
	for (int k = 0; k < t->ntrays; k++)
		if (k != t->tray && t->trays[k].errors)
			fprintf(f, "  tray %d: error %s (--host-hash %s reports it)\n", k + 1,
				t->trays[k].first_error, t->trays[k].host_hash);
	fprintf(f, "\n");
}

/* The default table's first lines: what the model was read from */
void np_topo_tab_title(FILE *f, const struct np_topo *t)
{
	if (t->kind == NP_SRC_LIVE)
		fprintf(f, "nccl-probe topo: live on '%s'\n\n", t->host.hostname);
	else
		fprintf(f, "nccl-probe topo: %s '%s'%s%s%s\n\n", np_topo_kind_str(t->kind),
			base_name(t->source), t->host.hostname[0] ? " of '" : "", t->host.hostname,
			t->host.hostname[0] ? "'" : "");
}

void np_topo_tab_recs(FILE *f, const struct np_topo *t, bool wide)
{
	fprintf(f, "\nRecommendations:\n");
	if (t->nrecs == 0)
		fprintf(f, "  none\n");
	for (int i = 0; i < t->nrecs; i++)
		rec_line_table(f, &t->recs[i], wide);
}

void np_topo_gdr_peer(FILE *f, const struct np_topo *t)
{
	fprintf(f, "Peer memory: %s%s%s%s; NIC dma-buf: %s\n", np_tri_str(t->host.peermem_loaded),
		t->host.peermem[0] ? " (" : "", t->host.peermem, t->host.peermem[0] ? ")" : "",
		np_tri_str(t->host.dmabuf_nic));
}

void np_topo_gdr_gpu(FILE *f, const struct np_topo *t, int i)
{
	char why[NP_MSG_LEN];
	enum np_tri v = np_topo_gpu_gdr(t, i, why, sizeof(why));

	fprintf(f, "GPU%d %s: GDR %s: %s\n", i, t->gpus[i].busid, np_tri_str(v),
		v == NP_UNKNOWN && !strncmp(why, "unknown: ", 9) ? why + 9 : why);
}

void np_topo_gdr_trays(FILE *f, const struct np_topo *t)
{
	for (int k = 0; k < t->ntrays; k++)
		fprintf(f, "Tray %d host_hash %s%s: GDR %s\n%s", k + 1, t->trays[k].host_hash,
			k == t->tray ? " (above)" : "", np_tri_str(t->trays[k].gdr),
			k + 1 == t->ntrays ? "\n" : "");
}

void np_topo_gdr_verdict(FILE *f, const struct np_topo *t)
{
	enum np_tri all = np_topo_gdr_all(t);
	char why[NP_MSG_LEN];
	int no = 0;

	for (int i = 0; i < t->ngpus; i++)
		no += np_topo_gpu_gdr(t, i, why, sizeof(why)) == NP_NO;
	if (t->ngpus)
		fprintf(f, "\nGDR: %s%s\n",
			all == NP_YES        ? "every GPU has a GDR path to a NIC"
			: no || all == NP_NO ? "not available on every GPU"
					     : "unknown for some GPUs; none is known to lack it",
			t->ntrays ? ", over every tray" : "");
}
