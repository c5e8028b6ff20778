/* SPDX-License-Identifier: MIT */
/* One root fd for /sys and /proc (NCCL_PROBE_FSROOT), with the few
 * readers the live source needs. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysfs.h"

enum np_status np_sysfs_open(struct np_sysfs *fs, struct np_err *err)
{
	const char *root = getenv("NCCL_PROBE_FSROOT");

	memset(fs, 0, sizeof(*fs));
	fs->fake = root && *root;
	snprintf(fs->root, sizeof(fs->root), "%s", fs->fake ? root : "/");
	fs->root_fd = open(fs->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs->root_fd < 0)
		return np_fail(err, NP_EUSAGE,
			       "cannot open NCCL_PROBE_FSROOT '%s': %s; point it at a directory or unset it",
			       fs->root, strerror(errno));
	return NP_OK;
}

void np_sysfs_release(struct np_sysfs *fs)
{
	if (fs->root_fd >= 0)
		close(fs->root_fd);
	fs->root_fd = -1;
}

long np_sysfs_read_bin(const struct np_sysfs *fs, const char *rel, void *buf, size_t len)
{
	int fd = openat(fs->root_fd, rel, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd < 0)
		return -1;
	while (got < len) {
		ssize_t r = read(fd, (char *)buf + got, len - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	return (long)got;
}

bool np_sysfs_read(const struct np_sysfs *fs, const char *rel, char *buf, size_t len)
{
	long n;

	if (len == 0)
		return false;
	n = np_sysfs_read_bin(fs, rel, buf, len - 1);
	if (n < 0) {
		buf[0] = '\0';
		return false;
	}
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return true;
}

bool np_sysfs_readf(const struct np_sysfs *fs, char *buf, size_t len, const char *fmt, ...)
{
	char rel[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	return np_sysfs_read(fs, rel, buf, len);
}

bool np_sysfs_exists(const struct np_sysfs *fs, const char *rel)
{
	return faccessat(fs->root_fd, rel, F_OK, 0) == 0;
}

bool np_sysfs_readlink(const struct np_sysfs *fs, const char *rel, char *buf, size_t len)
{
	ssize_t n = readlinkat(fs->root_fd, rel, buf, len - 1);

	if (n < 0)
		return false;
	buf[n] = '\0';
	return true;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int np_sysfs_list(const struct np_sysfs *fs, const char *rel, char ***names)
{
	int fd = openat(fs->root_fd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *e;
	char **v = NULL;
	int n = 0, cap = 0;

	*names = NULL;
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n == cap) {
			char **nv = realloc(v, (size_t)(cap ? cap * 2 : 16) * sizeof(*v));
			if (!nv)
				break;
			v = nv;
			cap = cap ? cap * 2 : 16;
		}
		v[n] = strdup(e->d_name);
		if (!v[n])
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, (size_t)n, sizeof(*v), cmp_names);
	*names = v;
	return n;
}

void np_sysfs_free_list(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

bool np_sysfs_read_long(const struct np_sysfs *fs, const char *rel, long *out)
{
	char buf[64], *end;
	long v;

	if (!np_sysfs_read(fs, rel, buf, sizeof(buf)) || !buf[0])
		return false;
	errno = 0;
	v = strtol(buf, &end, 0);
	if (errno || end == buf || (*end && *end != '\n' && *end != ' '))
		return false;
	*out = v;
	return true;
}
