/* SPDX-License-Identifier: MIT */
/* Shared parts of the sinks: summary and value formatting. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "report.h"

int np_report_summary(const struct np_sweep_report *rep, struct np_summary *out, int cap)
{
	int n = 0;

	for (int c = 0; c < NP_COLL_COUNT; c++) {
		struct np_summary s = { .coll = NULL, .last_eff = NAN };
		for (size_t i = 0; i < rep->nrows; i++) {
			const struct np_result *r = &rep->rows[i];
			if (r->coll->id != (enum np_coll_id)c)
				continue;
			s.coll = r->coll;
			if (r->busbw > s.peak_busbw || !s.peak_size) {
				s.peak_busbw = r->busbw;
				s.peak_size = r->lay.size;
			}
			if (r->lay.size >= s.last_size) {
				s.last_size = r->lay.size;
				s.last_busbw = r->busbw;
				s.last_algbw = r->algbw;
				s.last_eff = r->eff;
				s.last_limit = r->limit;
			}
		}
		if (s.coll && n < cap)
			out[n++] = s;
	}
	return n;
}

void np_metric_format(const struct np_metric *m, const struct np_value *v, bool human, char *buf,
		      size_t len)
{
	if (v->null) {
		snprintf(buf, len, "%s", human ? "-" : "");
		return;
	}
	switch (m->type) {
	case NP_MT_STR: snprintf(buf, len, "%s", v->s); break;
	case NP_MT_UINT: snprintf(buf, len, "%" PRIu64, v->u); break;
	case NP_MT_INT: snprintf(buf, len, "%" PRId64, v->i); break;
	case NP_MT_BOOL: snprintf(buf, len, "%s", v->b ? "true" : "false"); break;
	case NP_MT_NUM:
		if (human) {
			double x = v->d * m->scale;
			snprintf(buf, len, "%.*f", np_fig_decimals(x, m->prec), x);
		} else
			snprintf(buf, len, "%.10g", v->d);
		break;
	}
}
