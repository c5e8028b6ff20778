/* SPDX-License-Identifier: MIT */
/* LD_PRELOAD shim for benchmarks on virtual nodes: gethostname() returns
 * $NP_VNODE_HOST, so that a program that groups its ranks by host name
 * (nccl-tests picks its GPU and local rank so) takes each rank for a node
 * of its own. Without the variable, the real host name. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gethostname(char *name, size_t len)
{
	const char *h = getenv("NP_VNODE_HOST");
	int (*real)(char *, size_t);

	if (!h || !*h) {
		real = (int (*)(char *, size_t))dlsym(RTLD_NEXT, "gethostname");
		if (!real) {
			errno = ENOSYS;
			return -1;
		}
		return real(name, len);
	}
	if (strlen(h) + 1 > len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(name, h, strlen(h) + 1);
	return 0;
}
