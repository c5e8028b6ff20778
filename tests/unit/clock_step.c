/* SPDX-License-Identifier: MIT */
/* A fault for tests (LD_PRELOAD): the wall clock stepped. clock_gettime
 * (CLOCK_REALTIME), gettimeofday and time answer $NP_TEST_CLOCK_STEP
 * seconds off the real time (negative: back), as after a clock set at boot,
 * when Slurm prologs run; the monotonic clock and the kernel's own clock
 * are untouched. A deadline computed on the wall clock and waited on by
 * the kernel's is then an hour early or late
 * (tests/t0031-sweep-clock-step.sh). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long step(void)
{
	const char *s = getenv("NP_TEST_CLOCK_STEP");

	return s ? strtol(s, NULL, 10) : 0;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	int (*real)(clockid_t, struct timespec *) =
		(int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	int rc = real ? real(id, ts) : -1;

	if (rc == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
		ts->tv_sec += step();
	return rc;
}

int gettimeofday(struct timeval *tv, void *tz)
{
	int (*real)(struct timeval *, void *) =
		(int (*)(struct timeval *, void *))dlsym(RTLD_NEXT, "gettimeofday");
	int rc = real ? real(tv, tz) : -1;

	if (rc == 0)
		tv->tv_sec += step();
	return rc;
}

time_t time(time_t *t)
{
	struct timespec ts;
	time_t v;

	clock_gettime(CLOCK_REALTIME, &ts);
	v = ts.tv_sec;
	if (t)
		*t = v;
	return v;
}
