/* SPDX-License-Identifier: MIT */
/* --metrics: the Prometheus text exposition format (version 0.0.4, what
 * node_exporter's textfile collector reads), one writer per document. The
 * sweep's row figures come from the one metric table (src/metrics.c). */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/printable.h"
#include "../topo/health.h"
#include "../topo/topo.h"
#include "metrics.h"
#include "msg.h"
#include "openmetrics.h"
#include "outfile.h"
#include "version.h"

#define PFX "nccl_probe_"

/* ---- the text format ------------------------------------------------------ */

/* HELP text: backslash and newline escaped. */
static void put_help(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* A label value: control characters and bytes that are not well-formed
 * UTF-8 as \xNN (common/printable.h: a host
 * name of another rank cannot carry ESC or CR to whoever reads the file),
 * then backslash, double quote and newline escaped as the format says. */
static void put_label_value(FILE *f, const char *val)
{
	size_t len = 4 * strlen(val) + 1;
	char *safe = malloc(len);
	const char *s = safe ? np_printable(safe, len, val) : "";

	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	free(safe);
}

/* A file being written: its stream, and its base name where every series
 * carries file="NAME" (a topo file: two topo files of one host, topo and
 * topo --check-gdr, in one textfile directory hold no series twice), NULL
 * otherwise. */
struct om {
	FILE *fp;
	const char *file;
};

/* "# HELP nccl_probe_NAME ..." and "# TYPE nccl_probe_NAME gauge": every
 * family here is a gauge (a file holds one run's figures, not a counter a
 * scrape would take rates of). */
static void family(struct om *f, const char *name, const char *help)
{
	fprintf(f->fp, "# HELP " PFX "%s ", name);
	put_help(f->fp, help);
	fprintf(f->fp, "\n# TYPE " PFX "%s gauge\n", name);
}

/* One sample: NAME{k="v",...} VALUE. The labels are pairs of names
 * (snake_case constants) and values ending with a NULL name; a pair whose
 * value is NULL is left out. */
static void sample(struct om *f, const char *name, double v, ...)
{
	va_list ap;
	const char *k;
	int n = 0;

	fprintf(f->fp, PFX "%s", name);
	va_start(ap, v);
	while ((k = va_arg(ap, const char *))) {
		const char *val = va_arg(ap, const char *);
		if (!val)
			continue;
		fprintf(f->fp, "%s%s=\"", n++ ? "," : "{", k);
		put_label_value(f->fp, val);
		fputc('"', f->fp);
	}
	va_end(ap);
	if (f->file) {
		fprintf(f->fp, "%sfile=\"", n++ ? "," : "{");
		put_label_value(f->fp, f->file);
		fputc('"', f->fp);
	}
	if (n)
		fputc('}', f->fp);
	if (v == floor(v) && fabs(v) < 1e15)
		fprintf(f->fp, " %.0f\n", v);
	else
		fprintf(f->fp, " %.17g\n", v);
}

static double now_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The families every command writes: info, exit code, the run's end. */
static void common_head(struct om *f, const char *command, const char *backend, const char *run_id,
			const char *host)
{
	family(f, "run_info",
	       "the run that wrote this file: labels command, version, backend, run_id, host; value 1");
	sample(f, "run_info", 1, "command", command, "version", PACKAGE_VERSION, "backend", backend,
	       "run_id", run_id, "host", host, NULL);
}

static void common_tail(struct om *f, const char *command, int exit_code)
{
	family(f, "exit_code",
	       "the command's exit status: 0 ok, 1 verdict failed, 2 wrong data, 3 runtime error, 4 timeout, 5 unknown (topo --check-gdr)");
	sample(f, "exit_code", exit_code, "command", command, NULL);
	family(f, "last_run_timestamp_seconds", "when the run ended, seconds since the Unix epoch");
	sample(f, "last_run_timestamp_seconds", now_wall(), "command", command, NULL);
}

/* Open path for --metrics, run fill, commit. */
static enum np_status write_file(const char *path, const char *file,
				 void (*fill)(struct om *f, const void *arg), const void *arg,
				 struct np_err *err)
{
	struct np_outfile of;
	struct om w;

	if (np_outfile_open(&of, path, "--metrics", err))
		return err->status;
	w.fp = of.f;
	w.file = file;
	fill(&w, arg);
	return np_outfile_commit(&of, err);
}

/* ---- sweep ---------------------------------------------------------------- */

/* The row figures: the metric table's families (metrics.h: .om), in
 * their order. A row's value of metric m in base units; false when null. */
static bool row_value(const struct np_metric *m, const struct np_result *r, double *out)
{
	struct np_value v = { 0 };

	m->get(r, &v);
	if (v.null)
		return false;
	switch (m->type) {
	case NP_MT_NUM: *out = v.d; break;
	case NP_MT_UINT: *out = (double)v.u; break;
	case NP_MT_INT: *out = (double)v.i; break;
	case NP_MT_BOOL: *out = v.b; break;
	case NP_MT_STR: *out = !strcmp(v.s, "pass"); return m->om.scale == 0;
	}
	if (m->om.scale != 0)
		*out *= m->om.scale;
	return isfinite(*out);
}

/* The metric of the family at place ORDER, or NULL */
static const struct np_metric *family_at(int order)
{
	for (int i = 0; i < np_metrics_count; i++)
		if (np_metrics[i].om.name && np_metrics[i].om.order == order)
			return &np_metrics[i];
	return NULL;
}

static void fill_sweep(struct om *f, const void *arg)
{
	const struct np_sweep_report *rep = arg;

	common_head(f, "sweep", rep->backend, rep->run.id, np_msg_host);
	for (int k = 1; k <= np_metrics_count; k++) {
		const struct np_metric *m = family_at(k);
		bool head = false;
		if (!m)
			continue;
		for (size_t i = 0; i < rep->nrows; i++) {
			const struct np_result *r = &rep->rows[i];
			char size[24];
			double v = 0;
			if (!row_value(m, r, &v))
				continue;
			if (!head)
				family(f, m->om.name, m->om.help);
			head = true;
			snprintf(size, sizeof(size), "%llu", (unsigned long long)r->lay.size);
			/* a run of both forms (--format nccl-tests) labels the
			 * in-place rows, one sample per label set */
			sample(f, m->om.name, v, "coll", r->coll->name, "size_bytes", size, "dtype",
			       np_dtype_str(r->dtype),
			       r->inplace && !rep->opts->inplace ? "inplace" : NULL, "true", NULL);
		}
	}
	family(f, "sweep_judged",
	       "1 when a threshold (--min-busbw, --min-eff, --baseline) judged the run, 0 when it was not judged");
	sample(f, "sweep_judged", rep->judged[0] != '\0', NULL);
	family(f, "sweep_complete", "1 when every planned row ran, 0 when the run was interrupted");
	sample(f, "sweep_complete", rep->complete && !rep->interrupted, NULL);
	family(f, "sweep_ranks", "ranks of the run");
	sample(f, "sweep_ranks", rep->world->size, NULL);
	family(f, "sweep_nodes", "nodes of the run (virtual nodes with --ranks-per-node)");
	sample(f, "sweep_nodes", rep->world->nnodes, NULL);
	family(f, "run_duration_seconds", "wall time of the run");
	sample(f, "run_duration_seconds", rep->wall_seconds, "command", "sweep", NULL);
	common_tail(f, "sweep", rep->exit_code);
}

enum np_status np_openmetrics_sweep(struct np_outfile *of, const char *path,
				    const struct np_sweep_report *rep, struct np_err *err)
{
	struct om w;

	if (np_outfile_open(of, path, "--metrics", err))
		return err->status;
	w.fp = of->f;
	w.file = NULL;
	fill_sweep(&w, rep);
	return NP_OK;
}

/* ---- topo ----------------------------------------------------------------- */

struct topo_arg {
	const struct np_topo *t;
	int exit_code;
};

/* NVML's clock event reasons, named as NVML names them */
static const struct {
	long long bit;
	const char *name;
} clk_reasons[] = {
	{ NP_CLK_IDLE, "gpu_idle" },
	{ NP_CLK_APP_SETTING, "applications_clocks_setting" },
	{ NP_CLK_SW_POWER_CAP, "sw_power_cap" },
	{ NP_CLK_HW_SLOWDOWN, "hw_slowdown" },
	{ NP_CLK_SYNC_BOOST, "sync_boost" },
	{ NP_CLK_SW_THERMAL, "sw_thermal_slowdown" },
	{ NP_CLK_HW_THERMAL, "hw_thermal_slowdown" },
	{ NP_CLK_HW_POWER_BRAKE, "hw_power_brake_slowdown" },
	{ NP_CLK_DISPLAY, "display_clock_setting" },
};

/* One health figure per GPU that has it (NP_HX: absent), times scale. */
static void gpu_figure(struct om *f, const struct np_health *h, const char *name, const char *help,
		       size_t off, double scale)
{
	bool head = false;

	for (int i = 0; i < h->ngpus; i++) {
		const struct np_gpu_health *g = &h->gpus[i];
		long long v = *(const long long *)((const char *)g + off);
		char idx[16];
		if (v == NP_HX)
			continue;
		if (!head)
			family(f, name, help);
		head = true;
		snprintf(idx, sizeof(idx), "%d", g->gpu);
		sample(f, name, (double)v * scale, "gpu", g->gpu >= 0 ? idx : NULL, "bus_id",
		       g->busid, NULL);
	}
}

static void fill_health(struct om *f, const struct np_health *h)
{
	bool head = false;

	gpu_figure(f, h, "gpu_sm_clock_hertz", "SM clock at the end of the sampling window",
		   offsetof(struct np_gpu_health, sm_mhz), 1e6);
	gpu_figure(f, h, "gpu_sm_max_clock_hertz", "the GPU's maximum SM clock",
		   offsetof(struct np_gpu_health, sm_max_mhz), 1e6);
	gpu_figure(f, h, "gpu_temperature_celsius", "GPU temperature",
		   offsetof(struct np_gpu_health, temp_c), 1);
	gpu_figure(f, h, "gpu_temperature_margin_celsius",
		   "degrees until the GPU slows down (its slowdown headroom)",
		   offsetof(struct np_gpu_health, headroom_c), 1);
	gpu_figure(f, h, "gpu_power_watts", "GPU power draw",
		   offsetof(struct np_gpu_health, power_mw), 1e-3);
	gpu_figure(f, h, "gpu_ecc_uncorrected_errors",
		   "uncorrected ECC errors since the driver loaded (volatile)",
		   offsetof(struct np_gpu_health, ecc_uncorrected), 1);
	for (int i = 0; i < h->ngpus; i++) {
		const struct np_gpu_health *g = &h->gpus[i];
		char idx[16];
		if (g->reasons == NP_HX)
			continue;
		if (!head)
			family(f, "gpu_clock_event_reason",
			       "1 when the clock event (throttle) reason was active during the sampling window, else 0");
		head = true;
		snprintf(idx, sizeof(idx), "%d", g->gpu);
		for (size_t k = 0; k < sizeof(clk_reasons) / sizeof(clk_reasons[0]); k++)
			sample(f, "gpu_clock_event_reason", (g->reasons & clk_reasons[k].bit) != 0,
			       "gpu", g->gpu >= 0 ? idx : NULL, "bus_id", g->busid, "reason",
			       clk_reasons[k].name, NULL);
	}
}

static void fill_topo(struct om *f, const void *arg)
{
	const struct topo_arg *a = arg;
	const struct np_topo *t = a->t;
	char host[256];
	static const enum np_tri states[] = { NP_YES, NP_NO, NP_UNKNOWN };

	snprintf(host, sizeof(host), "%s", t->host.hostname[0] ? t->host.hostname : np_msg_host);
	if (!host[0] && gethostname(host, sizeof(host)) != 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	common_head(f, "topo", NULL, NULL, host[0] ? host : NULL);
	family(f, "topo_gpus", "GPUs the topology holds");
	sample(f, "topo_gpus", t->ngpus, NULL);
	family(f, "topo_nics", "NIC ports the topology holds");
	sample(f, "topo_nics", t->nnics, NULL);
	if (t->nfindings)
		family(f, "topo_findings",
		       "findings by level (info, warning, error) and kind (the finding's id)");
	for (int i = 0; i < t->nfindings; i++) {
		const struct np_finding *x = &t->findings[i];
		int n = 0;
		bool first = true;
		for (int k = 0; k < t->nfindings; k++) {
			const struct np_finding *y = &t->findings[k];
			if (y->sev == x->sev && !strcmp(y->id, x->id)) {
				first &= k >= i;
				n++;
			}
		}
		if (first)
			sample(f, "topo_findings", n, "level", np_severity_str(x->sev), "kind",
			       x->id, NULL);
	}
	if (t->ngpus)
		family(f, "gdr_state",
		       "GPUDirect RDMA per GPU as a state set: the state (yes, no, unknown) that holds is 1, the others 0; unknown is never yes or no");
	for (int i = 0; i < t->ngpus; i++) {
		char why[NP_MSG_LEN], idx[16];
		enum np_tri v = np_topo_gpu_gdr(t, i, why, sizeof(why));
		snprintf(idx, sizeof(idx), "%d", i);
		for (size_t s = 0; s < sizeof(states) / sizeof(states[0]); s++)
			sample(f, "gdr_state", v == states[s], "gpu", idx, "bus_id",
			       t->gpus[i].busid, "state", np_tri_str(states[s]), NULL);
	}
	if (t->health)
		fill_health(f, t->health);
	common_tail(f, "topo", a->exit_code);
}

enum np_status np_openmetrics_topo(const char *path, const struct np_topo *t, int exit_code,
				   struct np_err *err)
{
	struct topo_arg a = { t, exit_code };
	const char *slash = strrchr(path, '/');

	return write_file(path, slash ? slash + 1 : path, fill_topo, &a, err);
}

/* ---- isolate -------------------------------------------------------------- */

static const char *node_class(const char *state)
{
	if (!strcmp(state, "ok"))
		return "ok";
	if (!strcmp(state, "unknown"))
		return "unknown";
	return "bad";
}

static void fill_isolate(struct om *f, const void *arg)
{
	const struct np_om_isolate *iso = arg;
	static const char *const states[] = { "ok", "bad", "unknown" };
	int bad = 0;

	common_head(f, "isolate", iso->backend, NULL, np_msg_host);
	family(f, "isolate_node_state",
	       "each node's state as a state set: the state (ok, bad, unknown) that holds is 1, the others 0");
	for (int v = 0; v < iso->nnodes; v++) {
		const struct np_om_node *n = &iso->nodes[v];
		bad += !strcmp(node_class(n->state), "bad");
		for (size_t s = 0; s < sizeof(states) / sizeof(states[0]); s++)
			sample(f, "isolate_node_state", !strcmp(node_class(n->state), states[s]),
			       "node", n->name, "host", n->host, "state", states[s], NULL);
	}
	if (bad)
		family(f, "isolate_node_bad",
		       "a bad node and why (reason: bad-inside, bad-network, wrong-data or could-not-run, as the JSON report's state); 1");
	for (int v = 0; v < iso->nnodes; v++)
		if (!strcmp(node_class(iso->nodes[v].state), "bad"))
			sample(f, "isolate_node_bad", 1, "node", iso->nodes[v].name, "host",
			       iso->nodes[v].host, "reason", iso->nodes[v].state, NULL);
	family(f, "isolate_nodes", "nodes isolate judged");
	sample(f, "isolate_nodes", iso->nnodes, NULL);
	family(f, "isolate_bad_links", "links named slow (both ends good elsewhere)");
	sample(f, "isolate_bad_links", iso->nlinks, NULL);
	family(f, "isolate_rounds", "measurement rounds");
	sample(f, "isolate_rounds", iso->rounds, NULL);
	family(f, "isolate_size_bytes", "message size of each measurement");
	sample(f, "isolate_size_bytes", (double)iso->size, NULL);
	common_tail(f, "isolate", iso->exit_code);
}

enum np_status np_openmetrics_isolate(const char *path, const struct np_om_isolate *iso,
				      struct np_err *err)
{
	return write_file(path, NULL, fill_isolate, iso, err);
}
