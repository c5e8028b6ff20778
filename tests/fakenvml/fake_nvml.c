/* SPDX-License-Identifier: MIT */
/* A fake NVML for the tests: nccl-probe loads it in place of
 * libnvidia-ml.so.1 when NCCL_PROBE_NVML_LIB names it. It answers from the
 * file that NP_FAKE_NVML names, one "key=value" a line:
 *
 *   count=2                      GPUs listed
 *   gpu0.busid=0000:19:00.0      per GPU: gpuN.KEY
 *   rank3:gpu0.sm=1200           only in the process whose MPI rank is 3
 *
 * Keys: busid name sm sm_max sm_app sm_app_default mem mem_max mem_app
 * reasons viol_power viol_thermal temp margin slowdown_tlimit slowdown
 * power power_limit power_default persistence ecc ecc_pending
 * ecc_uncorrected remap_pending remap_failed retired_pending pcie_replay
 * nvlinks nvlinks_down (a list) nvl_crc nvl_replay nvl_recovery gen
 * gen_max width width_max. A counter KEY with KEY_step grows by that much
 * at each read. A key not given is "not supported", as NVML answers for
 * what a GPU lacks; later lines override earlier ones. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OK 0
#define INVALID 2
#define NOT_SUPPORTED 3
#define MAXG 16
#define MAXK 64

typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} pci_t;
typedef struct {
	unsigned long long ref, viol;
} viol_t;
typedef struct {
	unsigned int version;
	int margin;
} margin_t;
typedef struct {
	unsigned int fieldId, scopeId;
	long long timestamp, latencyUsec;
	int valueType;
	int ret;
	union {
		double d;
		unsigned int ui;
		unsigned long long ull;
		long long sll;
	} value;
} field_t;

struct kv {
	char key[32];
	char val[96];
	long long reads;
};

static struct gpu {
	struct kv kv[MAXK];
	int n;
} G[MAXG];
static int count;

static struct kv *find(struct gpu *g, const char *key)
{
	for (int i = 0; i < g->n; i++)
		if (!strcmp(g->kv[i].key, key))
			return &g->kv[i];
	return NULL;
}

static void set(struct gpu *g, const char *key, const char *val)
{
	struct kv *k = find(g, key);

	if (!k && g->n < MAXK)
		k = &g->kv[g->n++];
	if (!k)
		return;
	snprintf(k->key, sizeof(k->key), "%s", key);
	snprintf(k->val, sizeof(k->val), "%s", val);
}

/* The value of key, grown by key_step at each read of a counter. */
static int get(void *dev, const char *key, long long *out)
{
	struct gpu *g = dev;
	struct kv *k, *step;
	char sk[48];

	if (!g || !(k = find(g, key)))
		return NOT_SUPPORTED;
	snprintf(sk, sizeof(sk), "%s_step", key);
	step = find(g, sk);
	*out = strtoll(k->val, NULL, 0) + (step ? strtoll(step->val, NULL, 0) * k->reads : 0);
	k->reads++;
	return OK;
}

static int getu(void *dev, const char *key, unsigned *out)
{
	long long v;
	int r = get(dev, key, &v);

	if (r == OK)
		*out = (unsigned)v;
	return r;
}

static int my_rank(void)
{
	const char *e = getenv("OMPI_COMM_WORLD_RANK");

	if (!e)
		e = getenv("PMIX_RANK");
	if (!e)
		e = getenv("PMI_RANK");
	return e ? atoi(e) : -1;
}

int nvmlInit_v2(void);
int nvmlInit_v2(void)
{
	const char *path = getenv("NP_FAKE_NVML");
	char line[256];
	FILE *f;
	int rank = my_rank();

	memset(G, 0, sizeof(G));
	count = 0;
	if (!path || !(f = fopen(path, "r")))
		return 9; /* NVML_ERROR_DRIVER_NOT_LOADED */
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *eq, *colon;
		line[strcspn(line, "\n")] = '\0';
		if (!*p || *p == '#')
			continue;
		colon = strchr(p, ':');
		eq = strchr(p, '=');
		if (colon && eq && colon < eq && !strncmp(p, "rank", 4)) {
			if (atoi(p + 4) != rank)
				continue;
			p = colon + 1;
		}
		if (!eq)
			continue;
		*eq = '\0';
		if (!strcmp(p, "count")) {
			count = atoi(eq + 1);
			if (count > MAXG)
				count = MAXG;
		} else if (!strncmp(p, "gpu", 3) && strchr(p, '.')) {
			int i = atoi(p + 3);
			if (i >= 0 && i < MAXG)
				set(&G[i], strchr(p, '.') + 1, eq + 1);
		}
	}
	fclose(f);
	return OK;
}

#define API(name, ...)         \
	int name(__VA_ARGS__); \
	int name(__VA_ARGS__)

API(nvmlShutdown, void) { return OK; }
API(nvmlDeviceGetCount_v2, unsigned *n)
{
	*n = (unsigned)count;
	return OK;
}
API(nvmlDeviceGetHandleByIndex_v2, unsigned i, void **d)
{
	if (i >= (unsigned)count)
		return INVALID;
	*d = &G[i];
	return OK;
}
API(nvmlDeviceGetPciInfo_v3, void *d, pci_t *p)
{
	struct kv *k = find(d, "busid");
	unsigned dom = 0, bus = 0, dev = 0, fn = 0;

	if (!k)
		return NOT_SUPPORTED;
	memset(p, 0, sizeof(*p));
	snprintf(p->busId, sizeof(p->busId), "%.31s", k->val);
	if (sscanf(k->val, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4)
		p->domain = dom, p->bus = bus, p->device = dev;
	return OK;
}
API(nvmlDeviceGetName, void *d, char *buf, unsigned len)
{
	struct kv *k = find(d, "name");

	if (!k)
		return NOT_SUPPORTED;
	snprintf(buf, len, "%s", k->val);
	return OK;
}

static const char *clock_key(int type, const char *sm, const char *mem)
{
	return type == 1 ? sm : type == 2 ? mem : "none";
}

API(nvmlDeviceGetClockInfo, void *d, int type, unsigned *v)
{
	return getu(d, clock_key(type, "sm", "mem"), v);
}
API(nvmlDeviceGetMaxClockInfo, void *d, int type, unsigned *v)
{
	return getu(d, clock_key(type, "sm_max", "mem_max"), v);
}
API(nvmlDeviceGetApplicationsClock, void *d, int type, unsigned *v)
{
	return getu(d, clock_key(type, "sm_app", "mem_app"), v);
}
API(nvmlDeviceGetDefaultApplicationsClock, void *d, int type, unsigned *v)
{
	return getu(d, clock_key(type, "sm_app_default", "mem_app_default"), v);
}
API(nvmlDeviceGetCurrentClocksEventReasons, void *d, unsigned long long *v)
{
	long long x;
	int r = get(d, "reasons", &x);

	if (r == OK)
		*v = (unsigned long long)x;
	return r;
}
API(nvmlDeviceGetViolationStatus, void *d, int policy, viol_t *v)
{
	long long x;
	int r = get(d, policy == 0 ? "viol_power" : policy == 1 ? "viol_thermal" : "none", &x);

	if (r == OK)
		v->ref = 0, v->viol = (unsigned long long)x;
	return r;
}
API(nvmlDeviceGetTemperature, void *d, int sensor, unsigned *v)
{
	return sensor ? INVALID : getu(d, "temp", v);
}
API(nvmlDeviceGetTemperatureThreshold, void *d, int type, unsigned *v)
{
	return type == 1 ? getu(d, "slowdown", v) : NOT_SUPPORTED;
}
API(nvmlDeviceGetMarginTemperature, void *d, margin_t *m)
{
	long long x;
	int r;

	if (m->version != (sizeof(*m) | 1u << 24))
		return 25; /* NVML_ERROR_ARGUMENT_VERSION_MISMATCH */
	r = get(d, "margin", &x);
	if (r == OK)
		m->margin = (int)x;
	return r;
}
API(nvmlDeviceGetFieldValues, void *d, int n, field_t *fv)
{
	for (int i = 0; i < n; i++) {
		long long x;
		fv[i].ret = fv[i].fieldId == 194 ? get(d, "slowdown_tlimit", &x) : NOT_SUPPORTED;
		if (fv[i].ret == OK) {
			fv[i].valueType = 5; /* signed int */
			fv[i].value.ull = 0;
			fv[i].value.ui = (unsigned)(int)x;
		}
	}
	return OK;
}
API(nvmlDeviceGetPowerUsage, void *d, unsigned *v) { return getu(d, "power", v); }
API(nvmlDeviceGetEnforcedPowerLimit, void *d, unsigned *v) { return getu(d, "power_limit", v); }
API(nvmlDeviceGetPowerManagementDefaultLimit, void *d, unsigned *v)
{
	return getu(d, "power_default", v);
}
API(nvmlDeviceGetPcieReplayCounter, void *d, unsigned *v) { return getu(d, "pcie_replay", v); }
API(nvmlDeviceGetPersistenceMode, void *d, int *v) { return getu(d, "persistence", (unsigned *)v); }
API(nvmlDeviceGetEccMode, void *d, int *cur, int *pend)
{
	int r = getu(d, "ecc", (unsigned *)cur);

	if (r == OK && getu(d, "ecc_pending", (unsigned *)pend) != OK)
		*pend = *cur;
	return r;
}
API(nvmlDeviceGetTotalEccErrors, void *d, int type, int counter, unsigned long long *v)
{
	long long x;
	int r = type == 1 && counter == 0 ? get(d, "ecc_uncorrected", &x) : NOT_SUPPORTED;

	if (r == OK)
		*v = (unsigned long long)x;
	return r;
}
API(nvmlDeviceGetRemappedRows, void *d, unsigned *corr, unsigned *unc, unsigned *pending,
    unsigned *failed)
{
	if (getu(d, "remap_pending", pending) != OK)
		return NOT_SUPPORTED;
	if (getu(d, "remap_failed", failed) != OK)
		*failed = 0;
	*corr = *unc = 0;
	return OK;
}
API(nvmlDeviceGetRetiredPagesPendingStatus, void *d, int *v)
{
	return getu(d, "retired_pending", (unsigned *)v);
}
API(nvmlDeviceGetCurrPcieLinkGeneration, void *d, unsigned *v) { return getu(d, "gen", v); }
API(nvmlDeviceGetMaxPcieLinkGeneration, void *d, unsigned *v) { return getu(d, "gen_max", v); }
API(nvmlDeviceGetCurrPcieLinkWidth, void *d, unsigned *v) { return getu(d, "width", v); }
API(nvmlDeviceGetMaxPcieLinkWidth, void *d, unsigned *v) { return getu(d, "width_max", v); }

static int link_down(void *d, unsigned link)
{
	struct kv *k = find(d, "nvlinks_down");
	char buf[96], *tok, *save = NULL;

	if (!k)
		return 0;
	snprintf(buf, sizeof(buf), "%s", k->val);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if ((unsigned)atoi(tok) == link)
			return 1;
	return 0;
}

API(nvmlDeviceGetNvLinkState, void *d, unsigned link, int *on)
{
	long long n;

	if (get(d, "nvlinks", &n) != OK)
		return NOT_SUPPORTED;
	if ((long long)link >= n)
		return INVALID;
	*on = !link_down(d, link);
	return OK;
}
API(nvmlDeviceGetNvLinkVersion, void *d, unsigned link, unsigned *v)
{
	(void)d, (void)link;
	*v = 4;
	return OK;
}
/* counters on link 0 only, so a total is the planted value */
API(nvmlDeviceGetNvLinkErrorCounter, void *d, unsigned link, int counter, unsigned long long *v)
{
	static const char *const keys[] = { "nvl_replay", "nvl_recovery", "nvl_crc", "none" };
	long long x;
	int r;

	if (counter < 0 || counter > 3)
		return NOT_SUPPORTED;
	if (link != 0 || counter == 3) { /* CRC data: counted in nvl_crc */
		if (!find(d, keys[counter == 3 ? 2 : counter]))
			return NOT_SUPPORTED;
		*v = 0;
		return OK;
	}
	r = get(d, keys[counter], &x);
	if (r == OK)
		*v = (unsigned long long)x;
	return r;
}
