/* SPDX-License-Identifier: MIT */
/* The health figures of topo (topo/health.h) as a table section and as the
 * object "health" of topo's document (src/doc.h), which it returns for
 * the section's text; nothing (NULL) when the model has no health
 * figures. */
#ifndef NP_HEALTH_REPORT_H
#define NP_HEALTH_REPORT_H

#include <stdio.h>

#include "doc.h"
#include "../topo/model.h"

void np_health_report_table(FILE *f, const struct np_topo *t);
struct np_doc *np_health_doc(struct np_doc *top, const struct np_topo *t);

#endif
