/* SPDX-License-Identifier: MIT */
/* The health figures of topo (topo/health.h) as a table section and as the
 * JSON object "health"; nothing when the model has no health figures. */
#ifndef NP_HEALTH_REPORT_H
#define NP_HEALTH_REPORT_H

#include <stdio.h>

#include "json.h"
#include "../topo/model.h"

void np_health_report_table(FILE *f, const struct np_topo *t);
void np_health_report_json(struct np_json *j, const struct np_topo *t);

#endif
