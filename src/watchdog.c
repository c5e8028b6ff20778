/* SPDX-License-Identifier: MIT */
/* Watchdog thread (see watchdog.h). */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "msg.h"
#include "watchdog.h"

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool running, stop, armed;
	double timeout;
	struct timespec deadline;
	char what[256];
	struct np_backend *be;
} wd = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static _Noreturn void fire(void)
{
	char what[256];
	struct np_backend *be;

	snprintf(what, sizeof(what), "%s", wd.what);
	be = wd.be;
	pthread_mutex_unlock(&wd.lock);
	np_rank_error("%s did not finish within %g s (--timeout); aborting the job with exit 4: "
		      "look for a stalled or failed rank, or run 'nccl-probe topo' on this node",
		      what, wd.timeout);
	if (be && be->ops && be->ops->abort)
		be->ops->abort(be);
	fflush(stdout);
	fflush(stderr);
	_exit(NP_EXIT_TIMEOUT);
}

static void *loop(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&wd.lock);
	while (!wd.stop) {
		struct timespec now;
		if (!wd.armed) {
			pthread_cond_wait(&wd.cond, &wd.lock);
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &now);
		if (now.tv_sec > wd.deadline.tv_sec ||
		    (now.tv_sec == wd.deadline.tv_sec && now.tv_nsec >= wd.deadline.tv_nsec))
			fire();
		pthread_cond_timedwait(&wd.cond, &wd.lock, &wd.deadline);
	}
	pthread_mutex_unlock(&wd.lock);
	return NULL;
}

void np_watchdog_start(double timeout)
{
	if (timeout <= 0 || wd.running)
		return;
	wd.timeout = timeout;
	wd.stop = false;
	if (pthread_create(&wd.thread, NULL, loop, NULL) == 0)
		wd.running = true;
}

void np_watchdog_set_backend(struct np_backend *be)
{
	pthread_mutex_lock(&wd.lock);
	wd.be = be;
	pthread_mutex_unlock(&wd.lock);
}

void np_watchdog_arm(const char *fmt, ...)
{
	va_list ap;
	double whole;

	if (!wd.running)
		return;
	pthread_mutex_lock(&wd.lock);
	va_start(ap, fmt);
	vsnprintf(wd.what, sizeof(wd.what), fmt, ap);
	va_end(ap);
	clock_gettime(CLOCK_REALTIME, &wd.deadline);
	whole = (double)(long)wd.timeout;
	wd.deadline.tv_sec += (time_t)whole;
	wd.deadline.tv_nsec += (long)((wd.timeout - whole) * 1e9);
	if (wd.deadline.tv_nsec >= 1000000000L) {
		wd.deadline.tv_sec++;
		wd.deadline.tv_nsec -= 1000000000L;
	}
	wd.armed = true;
	pthread_cond_signal(&wd.cond);
	pthread_mutex_unlock(&wd.lock);
}

void np_watchdog_disarm(void)
{
	if (!wd.running)
		return;
	pthread_mutex_lock(&wd.lock);
	wd.armed = false;
	pthread_mutex_unlock(&wd.lock);
}

void np_watchdog_stop(void)
{
	if (!wd.running)
		return;
	pthread_mutex_lock(&wd.lock);
	wd.stop = true;
	pthread_cond_signal(&wd.cond);
	pthread_mutex_unlock(&wd.lock);
	pthread_join(wd.thread, NULL);
	wd.running = false;
}
