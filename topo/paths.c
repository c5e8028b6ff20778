/* SPDX-License-Identifier: MIT */
/* Path classes between GPUs and NICs, as nvidia-smi topo -m names them:
 * NVLinks first, else the PCI tree (PIX, PXB, PHB) and the NUMA nodes of
 * the two ends (NODE, SYS). Also each GPU's nearest NIC(s). */
#include "config.h"

#include <string.h>

#include "topo.h"

/* Edges from node a up to its ancestor anc, -1 when anc is not above a. */
static int hops(const struct np_topo *t, int a, int anc)
{
	int h = 0;

	for (int i = a; i >= 0; i = t->pci[i].parent, h++)
		if (i == anc)
			return h;
	return -1;
}

static int common_ancestor(const struct np_topo *t, int a, int b)
{
	for (int i = a; i >= 0; i = t->pci[i].parent)
		if (hops(t, b, i) >= 0)
			return i;
	return -1;
}

static enum np_path numa_path(const struct np_topo *t, int na, int nb)
{
	if (na >= 0 && nb >= 0)
		return na == nb ? NP_PATH_NODE : NP_PATH_SYS;
	/* a locality nobody could tell: one NUMA node leaves no doubt, more
	 * must be assumed the worst, as NCCL does */
	return t->nnuma <= 1 ? NP_PATH_NODE : NP_PATH_SYS;
}

static enum np_path pci_path(const struct np_topo *t, int a, int b, int na, int nb)
{
	int c, da, db;

	if (a < 0 || b < 0)
		return na >= 0 && nb >= 0 && na != nb ? NP_PATH_SYS : NP_PATH_UNKNOWN;
	if (a == b)
		return NP_PATH_X;
	c = common_ancestor(t, a, b);
	if (c < 0)
		return numa_path(t, na, nb);
	if (t->pci[c].kind == NP_PCI_HOSTBRIDGE)
		return NP_PATH_PHB;
	da = hops(t, a, c);
	db = hops(t, b, c);
	/* a switch is its upstream port and the downstream ports right below
	 * it: two devices within one switch cross at most one bridge */
	return da <= 2 && db <= 2 ? NP_PATH_PIX : NP_PATH_PXB;
}

static int nvlinks_between(const struct np_topo *t, int i, int j)
{
	const struct np_gpu *a = &t->gpus[i], *b = &t->gpus[j];
	int direct = a->nvpeer[j] > b->nvpeer[i] ? a->nvpeer[j] : b->nvpeer[i];

	if (direct)
		return direct;
	if (a->nvswitch_links && b->nvswitch_links)
		return a->nvswitch_links < b->nvswitch_links ? a->nvswitch_links : b->nvswitch_links;
	return 0;
}

static bool usable(const struct np_nic *n)
{
	return n->state == NP_PORT_ACTIVE || n->state == NP_PORT_UNKNOWN;
}

void np_topo_paths(struct np_topo *t)
{
	for (int i = 0; i < t->ngpus; i++)
		for (int j = 0; j < t->ngpus; j++) {
			int nv = i == j ? 0 : nvlinks_between(t, i, j);
			t->gg_nv[i][j] = nv;
			t->gg[i][j] = i == j ? NP_PATH_X : nv ? NP_PATH_NV
				    : pci_path(t, t->gpus[i].pci, t->gpus[j].pci, t->gpus[i].numa, t->gpus[j].numa);
		}
	for (int i = 0; i < t->ngpus; i++)
		for (int k = 0; k < t->nnics; k++)
			t->gn[i][k] = pci_path(t, t->gpus[i].pci, t->nics[k].pci, t->gpus[i].numa, t->nics[k].numa);
	for (int k = 0; k < t->nnics; k++)
		for (int l = 0; l < t->nnics; l++)
			t->nn[k][l] = k == l ? NP_PATH_X
				    : pci_path(t, t->nics[k].pci, t->nics[l].pci, t->nics[k].numa, t->nics[l].numa);
	for (int i = 0; i < t->ngpus; i++) {
		struct np_near *nr = &t->near[i];
		bool any_usable = false;
		nr->path = NP_PATH_UNKNOWN;
		nr->n = 0;
		for (int k = 0; k < t->nnics; k++)
			any_usable |= usable(&t->nics[k]);
		for (int k = 0; k < t->nnics; k++) {
			enum np_path p = t->gn[i][k];
			if (any_usable && !usable(&t->nics[k]))
				continue;
			if (p < nr->path || nr->n == 0) {
				nr->path = p;
				nr->n = 0;
			}
			if (p == nr->path)
				nr->nics[nr->n++] = k;
		}
	}
}
