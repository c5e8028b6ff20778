/* SPDX-License-Identifier: MIT */
/* The topo command's document (src/doc.h): the model's values, which
 * JSON shows (schema nccl-probe/topo: the source, host, NUMA nodes, GPUs,
 * NICs, path matrices, health, findings), and on their nodes the table's
 * sections, which src/topo_report.c writes: the default table, or
 * --check-gdr's lines. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "doc.h"
#include "health_report.h"
#include "json.h"
#include "msg.h"
#include "topo_report.h"
#include "topo_report_internal.h"
#include "../topo/topo.h"
#include "version.h"

/* Which table the document's lines are */
enum view { V_TABLE, V_WIDE, V_GDR };

static void d_tri(struct np_doc *p, const char *key, enum np_tri v)
{
	if (v == NP_UNKNOWN)
		np_doc_null(p, key);
	else
		np_doc_bool(p, key, v == NP_YES);
}

static void d_int(struct np_doc *p, const char *key, long long v, bool known)
{
	if (known)
		np_doc_int(p, key, v);
	else
		np_doc_null(p, key);
}

static void d_str(struct np_doc *p, const char *key, const char *s)
{
	np_doc_str(p, key, s && *s ? s : NULL);
}

static void d_pcie(struct np_doc *p, const struct np_pcie *l)
{
	struct np_doc *o = np_doc_obj(p, "pcie");

	d_int(o, "gen", l->gen_cur, l->gen_cur > 0);
	d_int(o, "width", l->width_cur, l->width_cur > 0);
	d_int(o, "gen_max", l->gen_max, l->gen_max > 0);
	d_int(o, "width_max", l->width_max, l->width_max > 0);
	np_doc_num(o, "gbps", l->gbps > 0 ? l->gbps : NAN);
}

/* Where the model came from */
static struct np_doc *doc_source(struct np_doc *top, const struct np_topo *t)
{
	struct np_doc *o = np_doc_obj(top, "source");

	np_doc_str(o, "kind", np_topo_kind_str(t->kind));
	np_doc_str(o, "origin", np_topo_kind_str(t->origin));
	np_doc_str(o, "file", t->kind == NP_SRC_LIVE ? NULL : t->source);
	return o;
}

/* The host's facts */
static struct np_doc *doc_host(struct np_doc *top, const struct np_topo *t)
{
	struct np_doc *o = np_doc_obj(top, "host");

	d_str(o, "hostname", t->host.hostname);
	d_tri(o, "peermem", t->host.peermem_loaded);
	d_str(o, "peermem_file", t->host.peermem);
	d_tri(o, "dmabuf_nic", t->host.dmabuf_nic);
	d_tri(o, "iommu", t->host.iommu);
	d_tri(o, "virtualized", t->host.virtualized);
	d_tri(o, "acs_readable", t->host.acs_readable);
	d_tri(o, "nvml", t->host.nvml);
	d_int(o, "nccl_version", t->host.nccl_version, t->host.nccl_version > 0);
	d_str(o, "socket_iface_default", t->host.iface_nccl);
	d_str(o, "socket_iface_pci", t->host.iface_pci);
	return o;
}

static void doc_numa(struct np_doc *top, const struct np_topo *t)
{
	struct np_doc *a = np_doc_arr(top, "numa");

	for (int i = 0; i < t->nnuma; i++) {
		struct np_doc *o = np_doc_obj(a, NULL);
		np_doc_int(o, "os_index", t->numa[i].os_index);
		np_doc_str(o, "cpus", t->numa[i].cpus);
	}
}

/* One element of "gpus": its facts, its nearest NICs and its GDR answer */
static struct np_doc *doc_gpu(struct np_doc *a, const struct np_topo *t, int i)
{
	const struct np_gpu *g = &t->gpus[i];
	const struct np_near *nr = &t->near[i];
	struct np_doc *o = np_doc_obj(a, NULL), *n;
	char why[NP_MSG_LEN], buf[1024];
	enum np_tri ok = np_topo_gpu_gdr(t, i, why, sizeof(why));

	np_doc_int(o, "index", i);
	np_doc_str(o, "bus_id", g->busid);
	d_str(o, "name", g->name);
	d_int(o, "numa", g->numa, g->numa >= 0);
	d_int(o, "compute_capability", g->sm, g->sm > 0);
	d_pcie(o, &g->pcie);
	d_int(o, "nvlinks", g->nvlinks, g->nvlinks >= 0);
	np_doc_num(o, "nvlink_gbps", g->nvlink_gbps > 0 ? g->nvlink_gbps : NAN);
	d_int(o, "nvswitch_links", g->nvswitch_links, g->nvswitch_links >= 0);
	d_int(o, "nvcpu_links", g->nvcpu_links, g->nvcpu_links >= 0);
	d_int(o, "c2c_links", g->c2c_links, g->c2c_links >= 0);
	d_int(o, "bar1_mib", (long long)g->bar1_mib, g->bar1_mib > 0);
	d_tri(o, "gdr_supported", g->gdr);
	d_tri(o, "dmabuf_supported", g->dmabuf);
	np_topo_pci_chain(t, g->pci, buf, sizeof(buf));
	d_str(o, "pci_path", buf);
	np_doc_str(o, "nearest_path",
		   nr->n && nr->path != NP_PATH_UNKNOWN ? np_path_str(nr->path) : NULL);
	np_doc_str(o, "nearest_path_nccl",
		   nr->n && nr->nccl != NP_PATH_UNKNOWN ? np_path_str(nr->nccl) : NULL);
	n = np_doc_arr(o, "nearest_nics");
	for (int k = 0; k < nr->n; k++)
		np_doc_int(n, NULL, nr->nics[k]);
	d_int(o, "pxn_gpu", nr->pxn, nr->pxn >= 0);
	d_int(o, "pxn_nic", nr->pxn_nic, nr->pxn >= 0);
	d_tri(o, "gdr_ok", ok);
	np_doc_str(o, "gdr_reason", why);
	return o;
}

/* One element of "nics": a port, its link and its PCI place */
static void doc_nic(struct np_doc *a, const struct np_topo *t, int k)
{
	const struct np_nic *n = &t->nics[k];
	struct np_doc *o = np_doc_obj(a, NULL);
	char buf[1024];

	np_doc_int(o, "index", k);
	np_doc_str(o, "name", n->name);
	np_doc_int(o, "port", n->port);
	d_str(o, "bus_id", n->busid);
	d_int(o, "numa", n->numa, n->numa >= 0);
	np_doc_str(o, "state", np_port_state_str(n->state));
	np_doc_str(o, "phys_state", np_port_state_str(n->phys));
	np_doc_str(o, "link_layer", np_link_layer_str(n->ll));
	np_doc_str(o, "role", nic_role(n));
	d_tri(o, "rdma", n->rdma);
	d_tri(o, "gdr_supported", n->gdr);
	np_doc_num(o, "rate_gbit", n->rate_gbit > 0 ? n->rate_gbit : NAN);
	d_int(o, "lanes", n->width, n->width > 0);
	d_str(o, "speed", n->speed);
	d_int(o, "mtu", n->mtu, n->mtu > 0);
	d_int(o, "gid_index", n->gid_index, n->gid_index >= 0);
	d_int(o, "gid_index_ipv6", n->gid_index6, n->gid_index6 >= 0);
	d_str(o, "netdev", n->netdev);
	d_pcie(o, &n->pcie);
	np_topo_pci_chain(t, n->pci, buf, sizeof(buf));
	d_str(o, "pci_path", buf);
}

/* The path matrices GPU-GPU, GPU-NIC and NIC-NIC, null where unknown */
static struct np_doc *doc_paths(struct np_doc *top, const struct np_topo *t)
{
	struct np_doc *o = np_doc_obj(top, "paths"), *a, *r;
	char buf[16];

	np_doc_bool(o, "flattened", t->flat);
	a = np_doc_arr(o, "gpu_gpu");
	for (int i = 0; i < t->ngpus; i++) {
		r = np_doc_arr(a, NULL);
		for (int k = 0; k < t->ngpus; k++) {
			path_cell(t, i, k, true, buf, sizeof(buf));
			np_doc_str(r, NULL,
				   gg_nv_unknown(t, i, k) || t->gg[i][k] == NP_PATH_UNKNOWN ? NULL
											    : buf);
		}
	}
	a = np_doc_arr(o, "gpu_nic");
	for (int i = 0; i < t->ngpus; i++) {
		r = np_doc_arr(a, NULL);
		for (int k = 0; k < t->nnics; k++)
			np_doc_str(r, NULL,
				   t->gn[i][k] == NP_PATH_UNKNOWN ? NULL
								  : np_path_str(t->gn[i][k]));
	}
	a = np_doc_arr(o, "nic_nic");
	for (int k = 0; k < t->nnics; k++) {
		r = np_doc_arr(a, NULL);
		for (int l = 0; l < t->nnics; l++)
			np_doc_str(r, NULL,
				   t->nn[k][l] == NP_PATH_UNKNOWN ? NULL
								  : np_path_str(t->nn[k][l]));
	}
	return o;
}

/* The hosts of a multi-node NVLink dump; NULL where there are none */
static struct np_doc *doc_trays(struct np_doc *top, const struct np_topo *t)
{
	struct np_doc *a;

	if (!t->ntrays)
		return NULL;
	a = np_doc_arr(top, "trays");
	for (int k = 0; k < t->ntrays; k++) {
		const struct np_tray *tr = &t->trays[k];
		struct np_doc *o = np_doc_obj(a, NULL);
		np_doc_str(o, "host_hash", tr->host_hash);
		np_doc_bool(o, "reported", k == t->tray);
		np_doc_int(o, "gpus", tr->ngpus);
		np_doc_int(o, "nics", tr->nnics);
		np_doc_int(o, "rdma_nics", tr->rdma_nics);
		d_tri(o, "gdr_ok", tr->gdr);
		np_doc_int(o, "warnings", tr->warnings);
		np_doc_int(o, "errors", tr->errors);
		d_str(o, "first_error", tr->first_error);
	}
	return a;
}

static struct np_doc *doc_findings(struct np_doc *top, const struct np_topo *t, bool gdr_only)
{
	struct np_doc *a = np_doc_arr(top, "findings");

	for (int i = 0; i < t->nfindings; i++) {
		const struct np_finding *x = &t->findings[i];
		struct np_doc *o;
		if (gdr_only && !x->gdr)
			continue;
		o = np_doc_obj(a, NULL);
		np_doc_str(o, "id", x->id);
		np_doc_str(o, "severity", np_severity_str(x->sev));
		np_doc_str(o, "subject", x->subject);
		np_doc_str(o, "message", x->message);
		np_doc_str(o, "evidence", x->evidence);
		np_doc_str(o, "remedy", x->remedy);
	}
	return a;
}

static struct np_doc *doc_recs(struct np_doc *top, const struct np_topo *t, bool gdr_only)
{
	struct np_doc *a = np_doc_arr(top, "recommendations");

	for (int i = 0; !gdr_only && i < t->nrecs; i++) {
		const struct np_rec *r = &t->recs[i];
		struct np_doc *o = np_doc_obj(a, NULL);
		np_doc_str(o, "variable", r->var);
		np_doc_str(o, "value", r->operator_value ? NULL : r->value);
		np_doc_bool(o, "operator_value", r->operator_value);
		np_doc_str(o, "reason", r->reason);
		np_doc_str(o, "finding", r->finding);
		np_doc_bool(o, "diagnostic", r->diagnostic);
	}
	return a;
}

/* Fleet mode: each node's summary and finding ids; NULL without one */
static struct np_doc *doc_fleet(struct np_doc *top, const struct np_topo_fleet *fleet)
{
	struct np_doc *o, *a;

	if (!fleet || fleet->nnodes < 1)
		return NULL;
	o = np_doc_obj(top, "fleet");
	np_doc_int(o, "nodes", fleet->nnodes);
	np_doc_str(o, "majority", fleet->hosts[fleet->majority]);
	a = np_doc_arr(o, "summaries");
	for (int i = 0; i < fleet->nnodes; i++) {
		struct np_doc *e = np_doc_obj(a, NULL), *ids;
		/* the node's finding ids, as its summary lists them
		 * (np_topo_summary: after "findings:", or "none") */
		const char *p = strstr(fleet->summaries[i], "findings:");
		char id[64];
		int n = 0;
		np_doc_str(e, "host", fleet->hosts[i]);
		np_doc_str(e, "summary", fleet->summaries[i]);
		np_doc_bool(e, "differs",
			    strcmp(fleet->summaries[i], fleet->summaries[fleet->majority]) != 0);
		ids = np_doc_arr(e, "findings");
		for (p = p ? p + 9 : ""; sscanf(p, " %63s%n", id, &n) == 1; p += n)
			if (strcmp(id, "none"))
				np_doc_str(ids, NULL, id);
	}
	return o;
}

/* node's line: GPU i's GDR answer, as --check-gdr says it */
static void gdr_gpu_line(struct np_doc *node, const struct np_topo *t, int i)
{
	FILE *f = np_doc_open(node);

	if (f)
		np_topo_gdr_gpu(f, t, i);
	np_doc_close(node, f);
}

/* The table's sections (src/topo_report.c) */
enum sect {
	S_TITLE,
	S_MATRIX,
	S_GPUS,
	S_NICS,
	S_TRAYS,
	S_HOST,
	S_HEALTH,
	S_FINDINGS,
	S_RECS,
	S_FLEET,
	S_GDR_PEER,
	S_GDR_TRAYS,
	S_GDR_FINDINGS,
	S_GDR_VERDICT
};

/* node's line: section s of the model, in view v */
static void section(struct np_doc *node, enum sect s, const struct np_topo *t,
		    const struct np_topo_fleet *fleet, enum view v)
{
	FILE *f = np_doc_open(node);
	bool wide = v == V_WIDE;

	if (!f)
		return;
	switch (s) {
	case S_TITLE: np_topo_tab_title(f, t); break;
	case S_MATRIX: np_topo_tab_matrix(f, t, wide); break;
	case S_GPUS: np_topo_tab_gpus(f, t, wide); break;
	case S_NICS: np_topo_tab_nics(f, t, wide); break;
	case S_TRAYS: np_topo_tab_trays(f, t); break;
	case S_HOST: np_topo_tab_host(f, t, wide); break;
	case S_HEALTH: np_health_report_table(f, t); break;
	case S_FINDINGS: np_topo_tab_findings(f, t, false, wide); break;
	case S_RECS: np_topo_tab_recs(f, t, wide); break;
	case S_FLEET: np_topo_tab_fleet(f, fleet); break;
	case S_GDR_PEER: np_topo_gdr_peer(f, t); break;
	case S_GDR_TRAYS: np_topo_gdr_trays(f, t); break;
	case S_GDR_FINDINGS: np_topo_tab_findings(f, t, true, false); break;
	case S_GDR_VERDICT: np_topo_gdr_verdict(f, t); break;
	}
	/* a blank line after the tables, the host's line and health */
	if (s == S_GPUS || s == S_NICS || s == S_HOST || s == S_HEALTH ||
	    (s == S_MATRIX && t->ngpus + t->nnics))
		fputc('\n', f);
	np_doc_close(node, f);
}

/* The document in view v: the model's values in JSON's order, the table's
 * sections on them in the table's */
static struct np_doc *topo_doc(const struct np_topo *t, const struct np_topo_fleet *fleet,
			       enum view v)
{
	struct np_doc *d = np_doc_new(), *top = np_doc_top(d), *n, *gpus;
	bool gdr = v == V_GDR;

	if (gdr)
		section(np_doc_line(top, "%s", ""), S_GDR_PEER, t, fleet, v);
	n = doc_source(top, t);
	if (!gdr)
		section(n, S_TITLE, t, fleet, v);
	doc_numa(top, t);
	n = doc_paths(top, t);
	if (!gdr)
		section(n, S_MATRIX, t, fleet, v);
	gpus = np_doc_arr(top, "gpus");
	for (int i = 0; i < t->ngpus; i++) {
		n = doc_gpu(gpus, t, i);
		if (gdr)
			gdr_gpu_line(n, t, i);
	}
	if (!gdr) {
		section(gpus, S_GPUS, t, fleet, v);
	} else {
		if (!t->ngpus)
			np_doc_text(gpus,
				    "GDR: no NVIDIA GPU on this node; there is nothing to check");
		np_doc_line(top, "%s", ""); /* a blank line after the GPUs' */
	}
	n = np_doc_arr(top, "nics");
	for (int k = 0; k < t->nnics; k++)
		doc_nic(n, t, k);
	if (!gdr)
		section(n, S_NICS, t, fleet, v);
	n = doc_trays(top, t);
	section(n, gdr ? S_GDR_TRAYS : S_TRAYS, t, fleet, v);
	n = doc_host(top, t);
	if (!gdr)
		section(n, S_HOST, t, fleet, v);
	n = np_health_doc(top, t);
	if (!gdr)
		section(n, S_HEALTH, t, fleet, v);
	n = doc_findings(top, t, gdr);
	section(n, gdr ? S_GDR_FINDINGS : S_FINDINGS, t, fleet, v);
	n = doc_recs(top, t, gdr);
	if (!gdr)
		section(n, S_RECS, t, fleet, v);
	if (gdr) {
		enum np_tri all = np_topo_gdr_all(t);
		n = all == NP_UNKNOWN ? np_doc_null(top, "gdr_ok")
				      : np_doc_bool(top, "gdr_ok", all == NP_YES);
		section(n, S_GDR_VERDICT, t, fleet, v);
	}
	n = np_doc_arr(top, "notes");
	for (int i = 0; i < t->nnotes; i++)
		np_doc_str(n, NULL, t->notes[i]);
	n = doc_fleet(top, fleet);
	if (!gdr)
		section(n, S_FLEET, t, fleet, v);
	return d;
}

static void envelope(struct np_json *j, void *rec)
{
	np_json_envelope(j, NP_TOPO_SCHEMA, NP_TOPO_SCHEMA_VERSION, rec, NULL);
}

bool np_topo_report_table(FILE *f, const struct np_topo *t, const struct np_topo_fleet *fleet,
			  bool wide)
{
	return np_doc_render(topo_doc(t, fleet, wide ? V_WIDE : V_TABLE), f, false, NULL, NULL);
}

bool np_topo_report_json(FILE *f, const struct np_topo *t, const struct np_topo_fleet *fleet,
			 bool gdr_only, const struct np_run_record *rec)
{
	return np_doc_render(topo_doc(t, fleet, gdr_only ? V_GDR : V_TABLE), f, true, envelope,
			     (void *)rec);
}

bool np_topo_report_gdr(FILE *f, const struct np_topo *t)
{
	return np_doc_render(topo_doc(t, NULL, V_GDR), f, false, NULL, NULL);
}
