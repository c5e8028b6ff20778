/* SPDX-License-Identifier: MIT */
/* The run record: what pairs one run's files with another's. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "run_record.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void np_run_record_init(struct np_run_record *rec, int argc, char *const *argv)
{
	uint64_t v[2] = { 0, 0 };
	struct timespec ts;
	struct tm tm;
	FILE *f = fopen("/dev/urandom", "rb");

	clock_gettime(CLOCK_REALTIME, &ts);
	if (!f || fread(v, sizeof(v), 1, f) != 1) {
		/* no /dev/urandom (a bare container): unique enough to pair
		 * files, from what differs between runs */
		char host[256] = "";
		uint64_t x = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
		gethostname(host, sizeof(host) - 1);
		x ^= (uint64_t)getpid() << 32;
		for (const char *c = host; *c; c++)
			x = x * 1099511628211ULL ^ (unsigned char)*c;
		v[0] = splitmix64(&x);
		v[1] = splitmix64(&x);
	}
	if (f)
		fclose(f);
	snprintf(rec->id, sizeof(rec->id), "%016llx%016llx", (unsigned long long)v[0],
		 (unsigned long long)v[1]);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(rec->start_time, sizeof(rec->start_time), "%Y-%m-%dT%H:%M:%SZ", &tm);
	rec->argc = argc;
	rec->argv = argv;
}
