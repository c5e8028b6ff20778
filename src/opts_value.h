/* SPDX-License-Identifier: MIT */
/* Parsers of option values (src/opts_value.c), shared by the option
 * handlers (src/opts.c). Each returns NP_OK, or NP_EUSAGE with err's
 * message naming the value and saying what to give (np_parse_factor
 * leaves the message to its caller). np_parse_size and np_parse_sweep are
 * in opts.h. */
#ifndef NP_OPTS_VALUE_H
#define NP_OPTS_VALUE_H

#include <stdbool.h>

#include "opts.h"

/* A number as people write it: digits, with real numbers one point and an
 * exponent; no sign, blank, hexadecimal, inf or nan. */
bool np_plain_number(const char *s, bool real);
/* A plain number in [lo, hi] for option --NAME. */
enum np_status np_parse_double(const char *name, const char *s, double lo, double hi, double *out,
			       struct np_err *err);
enum np_status np_parse_int(const char *name, const char *s, long lo, long hi, int *out,
			    struct np_err *err);
/* A step factor above 1, at most 1024; NP_EUSAGE without a message. */
enum np_status np_parse_factor(const char *s, double *out);
/* --coll LIST: names (or nccl-tests' spellings) or all, into o->colls. */
enum np_status np_parse_colls(const char *s, struct np_opts *o, struct np_err *err);
/* --gpu-map LIST: comma-separated GPU indices. */
enum np_status np_check_gpu_map(const char *s, struct np_err *err);
/* A percentage from 0 to below 100 for option --NAME, as a fraction; eg
 * is the example the message gives. */
enum np_status np_parse_pct(const char *name, const char *val, const char *eg, double *out,
			    struct np_err *err);
/* A verdict threshold --OPT: one value for every collective, or COLL=V
 * pairs, each collective once; values at most hi, scaled by 1/div (div >
 * 1: a percentage) into *all and per[]; unit names what a value is. */
enum np_status np_parse_threshold(const char *opt, const char *val, double hi, double div,
				  const char *unit, struct np_opts *o, double *all, double *per,
				  struct np_err *err);

#endif
