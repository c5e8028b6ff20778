/* SPDX-License-Identifier: MIT */
/* The topology model as JSON (schema nccl-probe/topo): the source, host,
 * NUMA nodes, GPUs, NICs, path matrices and findings. */
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

static void json_tri(struct np_json *j, const char *key, enum np_tri v)
{
	if (v == NP_UNKNOWN)
		np_json_null(j, key);
	else
		np_json_bool(j, key, v == NP_YES);
}

static void json_int_or_null(struct np_json *j, const char *key, long long v, bool known)
{
	if (known)
		np_json_int(j, key, v);
	else
		np_json_null(j, key);
}

static void json_str_or_null(struct np_json *j, const char *key, const char *s)
{
	np_json_str(j, key, s && *s ? s : NULL);
}

static void json_pcie(struct np_json *j, const struct np_pcie *l)
{
	np_json_obj_begin(j, "pcie");
	json_int_or_null(j, "gen", l->gen_cur, l->gen_cur > 0);
	json_int_or_null(j, "width", l->width_cur, l->width_cur > 0);
	json_int_or_null(j, "gen_max", l->gen_max, l->gen_max > 0);
	json_int_or_null(j, "width_max", l->width_max, l->width_max > 0);
	if (l->gbps > 0)
		np_json_num(j, "gbps", l->gbps);
	else
		np_json_null(j, "gbps");
	np_json_obj_end(j);
}

/* Where the model came from, and the host's facts. */
static void json_source_host(struct np_json *j, const struct np_topo *t)
{
	np_json_obj_begin(j, "source");
	np_json_str(j, "kind", np_topo_kind_str(t->kind));
	np_json_str(j, "origin", np_topo_kind_str(t->origin));
	np_json_str(j, "file", t->kind == NP_SRC_LIVE ? NULL : t->source);
	np_json_obj_end(j);

	np_json_obj_begin(j, "host");
	json_str_or_null(j, "hostname", t->host.hostname);
	json_tri(j, "peermem", t->host.peermem_loaded);
	json_str_or_null(j, "peermem_file", t->host.peermem);
	json_tri(j, "dmabuf_nic", t->host.dmabuf_nic);
	json_tri(j, "iommu", t->host.iommu);
	json_tri(j, "virtualized", t->host.virtualized);
	json_tri(j, "acs_readable", t->host.acs_readable);
	json_tri(j, "nvml", t->host.nvml);
	json_int_or_null(j, "nccl_version", t->host.nccl_version, t->host.nccl_version > 0);
	json_str_or_null(j, "socket_iface_default", t->host.iface_nccl);
	json_str_or_null(j, "socket_iface_pci", t->host.iface_pci);
	np_json_obj_end(j);
}

static void json_numa(struct np_json *j, const struct np_topo *t)
{
	np_json_arr_begin(j, "numa");
	for (int i = 0; i < t->nnuma; i++) {
		np_json_obj_begin(j, NULL);
		np_json_int(j, "os_index", t->numa[i].os_index);
		np_json_str(j, "cpus", t->numa[i].cpus);
		np_json_obj_end(j);
	}
	np_json_arr_end(j);
}

/* One element of "gpus": its facts, its nearest NICs and its GDR answer. */
static void json_gpu(struct np_json *j, const struct np_topo *t, int i)
{
	const struct np_gpu *g = &t->gpus[i];
	char why[NP_MSG_LEN], buf[1024];
	enum np_tri ok = np_topo_gpu_gdr(t, i, why, sizeof(why));

	np_json_obj_begin(j, NULL);
	np_json_int(j, "index", i);
	np_json_str(j, "bus_id", g->busid);
	json_str_or_null(j, "name", g->name);
	json_int_or_null(j, "numa", g->numa, g->numa >= 0);
	json_int_or_null(j, "compute_capability", g->sm, g->sm > 0);
	json_pcie(j, &g->pcie);
	json_int_or_null(j, "nvlinks", g->nvlinks, g->nvlinks >= 0);
	if (g->nvlink_gbps > 0)
		np_json_num(j, "nvlink_gbps", g->nvlink_gbps);
	else
		np_json_null(j, "nvlink_gbps");
	json_int_or_null(j, "nvswitch_links", g->nvswitch_links, g->nvswitch_links >= 0);
	json_int_or_null(j, "nvcpu_links", g->nvcpu_links, g->nvcpu_links >= 0);
	json_int_or_null(j, "c2c_links", g->c2c_links, g->c2c_links >= 0);
	json_int_or_null(j, "bar1_mib", (long long)g->bar1_mib, g->bar1_mib > 0);
	json_tri(j, "gdr_supported", g->gdr);
	json_tri(j, "dmabuf_supported", g->dmabuf);
	np_topo_pci_chain(t, g->pci, buf, sizeof(buf));
	json_str_or_null(j, "pci_path", buf);
	np_json_str(j, "nearest_path",
		    t->near[i].n && t->near[i].path != NP_PATH_UNKNOWN
			    ? np_path_str(t->near[i].path)
			    : NULL);
	np_json_str(j, "nearest_path_nccl",
		    t->near[i].n && t->near[i].nccl != NP_PATH_UNKNOWN
			    ? np_path_str(t->near[i].nccl)
			    : NULL);
	np_json_arr_begin(j, "nearest_nics");
	for (int k = 0; k < t->near[i].n; k++)
		np_json_int(j, NULL, t->near[i].nics[k]);
	np_json_arr_end(j);
	json_int_or_null(j, "pxn_gpu", t->near[i].pxn, t->near[i].pxn >= 0);
	json_int_or_null(j, "pxn_nic", t->near[i].pxn_nic, t->near[i].pxn >= 0);
	json_tri(j, "gdr_ok", ok);
	np_json_str(j, "gdr_reason", why);
	np_json_obj_end(j);
}

/* One element of "nics": a port, its link and its PCI place. */
static void json_nic(struct np_json *j, const struct np_topo *t, int k)
{
	const struct np_nic *n = &t->nics[k];
	char buf[1024];

	np_json_obj_begin(j, NULL);
	np_json_int(j, "index", k);
	np_json_str(j, "name", n->name);
	np_json_int(j, "port", n->port);
	json_str_or_null(j, "bus_id", n->busid);
	json_int_or_null(j, "numa", n->numa, n->numa >= 0);
	np_json_str(j, "state", np_port_state_str(n->state));
	np_json_str(j, "phys_state", np_port_state_str(n->phys));
	np_json_str(j, "link_layer", np_link_layer_str(n->ll));
	np_json_str(j, "role", nic_role(n));
	json_tri(j, "rdma", n->rdma);
	json_tri(j, "gdr_supported", n->gdr);
	if (n->rate_gbit > 0)
		np_json_num(j, "rate_gbit", n->rate_gbit);
	else
		np_json_null(j, "rate_gbit");
	json_int_or_null(j, "lanes", n->width, n->width > 0);
	json_str_or_null(j, "speed", n->speed);
	json_int_or_null(j, "mtu", n->mtu, n->mtu > 0);
	json_int_or_null(j, "gid_index", n->gid_index, n->gid_index >= 0);
	json_int_or_null(j, "gid_index_ipv6", n->gid_index6, n->gid_index6 >= 0);
	json_str_or_null(j, "netdev", n->netdev);
	json_pcie(j, &n->pcie);
	np_topo_pci_chain(t, n->pci, buf, sizeof(buf));
	json_str_or_null(j, "pci_path", buf);
	np_json_obj_end(j);
}

/* The path matrices GPU-GPU, GPU-NIC and NIC-NIC, null where unknown. */
static void json_paths(struct np_json *j, const struct np_topo *t)
{
	char buf[1024];

	np_json_obj_begin(j, "paths");
	np_json_bool(j, "flattened", t->flat);
	np_json_arr_begin(j, "gpu_gpu");
	for (int i = 0; i < t->ngpus; i++) {
		np_json_arr_begin(j, NULL);
		for (int k = 0; k < t->ngpus; k++) {
			path_cell(t, i, k, true, buf, sizeof(buf));
			np_json_str(j, NULL,
				    gg_nv_unknown(t, i, k) || t->gg[i][k] == NP_PATH_UNKNOWN ? NULL
											     : buf);
		}
		np_json_arr_end(j);
	}
	np_json_arr_end(j);
	np_json_arr_begin(j, "gpu_nic");
	for (int i = 0; i < t->ngpus; i++) {
		np_json_arr_begin(j, NULL);
		for (int k = 0; k < t->nnics; k++)
			np_json_str(j, NULL,
				    t->gn[i][k] == NP_PATH_UNKNOWN ? NULL
								   : np_path_str(t->gn[i][k]));
		np_json_arr_end(j);
	}
	np_json_arr_end(j);
	np_json_arr_begin(j, "nic_nic");
	for (int k = 0; k < t->nnics; k++) {
		np_json_arr_begin(j, NULL);
		for (int l = 0; l < t->nnics; l++)
			np_json_str(j, NULL,
				    t->nn[k][l] == NP_PATH_UNKNOWN ? NULL
								   : np_path_str(t->nn[k][l]));
		np_json_arr_end(j);
	}
	np_json_arr_end(j);
	np_json_obj_end(j);
}

/* The model itself: source, host, NUMA nodes, GPUs, NICs and paths. */
static void json_model(struct np_json *j, const struct np_topo *t)
{
	json_source_host(j, t);
	json_numa(j, t);
	np_json_arr_begin(j, "gpus");
	for (int i = 0; i < t->ngpus; i++)
		json_gpu(j, t, i);
	np_json_arr_end(j);
	np_json_arr_begin(j, "nics");
	for (int k = 0; k < t->nnics; k++)
		json_nic(j, t, k);
	np_json_arr_end(j);
	json_paths(j, t);
	if (!t->ntrays)
		return;
	np_json_arr_begin(j, "trays");
	for (int k = 0; k < t->ntrays; k++) {
		const struct np_tray *tr = &t->trays[k];
		np_json_obj_begin(j, NULL);
		np_json_str(j, "host_hash", tr->host_hash);
		np_json_bool(j, "reported", k == t->tray);
		np_json_int(j, "gpus", tr->ngpus);
		np_json_int(j, "nics", tr->nnics);
		np_json_int(j, "rdma_nics", tr->rdma_nics);
		json_tri(j, "gdr_ok", tr->gdr);
		np_json_int(j, "warnings", tr->warnings);
		np_json_int(j, "errors", tr->errors);
		if (tr->first_error[0])
			np_json_str(j, "first_error", tr->first_error);
		else
			np_json_null(j, "first_error");
		np_json_obj_end(j);
	}
	np_json_arr_end(j);
}

static void json_findings(struct np_json *j, const struct np_topo *t, bool gdr_only)
{
	np_json_arr_begin(j, "findings");
	for (int i = 0; i < t->nfindings; i++) {
		const struct np_finding *x = &t->findings[i];
		if (gdr_only && !x->gdr)
			continue;
		np_json_obj_begin(j, NULL);
		np_json_str(j, "id", x->id);
		np_json_str(j, "severity", np_severity_str(x->sev));
		np_json_str(j, "subject", x->subject);
		np_json_str(j, "message", x->message);
		np_json_str(j, "evidence", x->evidence);
		np_json_str(j, "remedy", x->remedy);
		np_json_obj_end(j);
	}
	np_json_arr_end(j);
}

void np_topo_report_json(FILE *f, const struct np_topo *t, const struct np_topo_fleet *fleet,
			 bool gdr_only, const struct np_run_record *rec)
{
	struct np_json j;

	np_json_init(&j, f, true);
	np_json_obj_begin(&j, NULL);
	np_json_envelope(&j, NP_TOPO_SCHEMA, NP_TOPO_SCHEMA_VERSION, rec, NULL);
	json_model(&j, t);
	np_health_report_json(&j, t);
	json_findings(&j, t, gdr_only);
	np_json_arr_begin(&j, "recommendations");
	for (int i = 0; !gdr_only && i < t->nrecs; i++) {
		const struct np_rec *r = &t->recs[i];
		np_json_obj_begin(&j, NULL);
		np_json_str(&j, "variable", r->var);
		np_json_str(&j, "value", r->operator_value ? NULL : r->value);
		np_json_bool(&j, "operator_value", r->operator_value);
		np_json_str(&j, "reason", r->reason);
		np_json_str(&j, "finding", r->finding);
		np_json_bool(&j, "diagnostic", r->diagnostic);
		np_json_obj_end(&j);
	}
	np_json_arr_end(&j);
	if (gdr_only)
		json_tri(&j, "gdr_ok", np_topo_gdr_all(t));
	np_json_arr_begin(&j, "notes");
	for (int i = 0; i < t->nnotes; i++)
		np_json_str(&j, NULL, t->notes[i]);
	np_json_arr_end(&j);
	if (fleet && fleet->nnodes > 0) {
		np_json_obj_begin(&j, "fleet");
		np_json_int(&j, "nodes", fleet->nnodes);
		np_json_str(&j, "majority", fleet->hosts[fleet->majority]);
		np_json_arr_begin(&j, "summaries");
		for (int i = 0; i < fleet->nnodes; i++) {
			np_json_obj_begin(&j, NULL);
			np_json_str(&j, "host", fleet->hosts[i]);
			np_json_str(&j, "summary", fleet->summaries[i]);
			np_json_bool(&j, "differs",
				     strcmp(fleet->summaries[i],
					    fleet->summaries[fleet->majority]) != 0);
			{
				/* the node's finding ids, as its summary lists them
				 * (np_topo_summary: after "findings:", or "none") */
				const char *p = strstr(fleet->summaries[i], "findings:");
				char id[64];
				int n = 0;
				np_json_arr_begin(&j, "findings");
				for (p = p ? p + 9 : ""; sscanf(p, " %63s%n", id, &n) == 1; p += n)
					if (strcmp(id, "none"))
						np_json_str(&j, NULL, id);
				np_json_arr_end(&j);
			}
			np_json_obj_end(&j);
		}
		np_json_arr_end(&j);
		np_json_obj_end(&j);
	}
	np_json_obj_end(&j);
	fprintf(f, "\n");
}
