/* SPDX-License-Identifier: MIT */
/* One root fd for /sys and /proc (NCCL_PROBE_FSROOT), with the few
 * readers the live source needs. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/number.h"
#include "sysfs.h"

#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

/* Paths under a fake root (NCCL_PROBE_FSROOT) resolve inside it, as a
 * chroot would: an absolute link means the root, '..' stops at it. The
 * kernel does it with openat2(RESOLVE_IN_ROOT) (Linux 5.6); elsewhere, or
 * where a seccomp filter refuses openat2, the components are walked here,
 * each link read and spliced in (-DNP_SYSFS_NO_OPENAT2 builds only that,
 * to test it). The real root needs neither. */
#define MAX_LINKS 40

static void push(char *out, size_t len, size_t *off, const char *comp, size_t n)
{
	if (*off + 1 + n >= len) {
		*off = len; /* too long: the caller sees it */
		return;
	}
	if (*off)
		out[(*off)++] = '/';
	memcpy(out + *off, comp, n);
	*off += n;
	out[*off] = '\0';
}

/* rel resolved inside the root into out ("" for the root itself); the last
 * component is left unfollowed unless follow_last. -1 with errno set. */
static int resolve_in_root(const struct np_sysfs *fs, const char *rel, bool follow_last, char *out,
			   size_t len)
{
	char todo[4096], link[4096];
	size_t off = 0;
	int links = 0;

	if (strlen(rel) >= sizeof(todo)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(todo, sizeof(todo), "%s", rel);
	out[0] = '\0';
	while (todo[0]) {
		char *p = todo, comp[256];
		size_t n;
		ssize_t ln;
		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n >= sizeof(comp)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		memmove(todo, p, strlen(p) + 1);
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) { /* the parent, never above the root */
			char *slash = strrchr(out, '/');
			off = slash ? (size_t)(slash - out) : 0;
			out[off] = '\0';
			continue;
		}
		push(out, len, &off, comp, n);
		if (off >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (!follow_last && !todo[strspn(todo, "/")])
			break;
		ln = readlinkat(fs->root_fd, out, link, sizeof(link) - 1);
		if (ln < 0)
			continue; /* not a link (or absent: the open will say) */
		if (++links > MAX_LINKS) {
			errno = ELOOP;
			return -1;
		}
		link[ln] = '\0';
		if (link[0] == '/') { /* absolute: from the root */
			off = 0;
			out[0] = '\0';
		} else { /* relative to the link's directory */
			char *slash = strrchr(out, '/');
			off = slash ? (size_t)(slash - out) : 0;
			out[off] = '\0';
		}
		if ((size_t)ln + 1 + strlen(todo) >= sizeof(todo)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memmove(todo + ln + 1, todo, strlen(todo) + 1);
		memcpy(todo, link, (size_t)ln);
		todo[ln] = '/';
	}
	return 0;
}

static int open_in_root(const struct np_sysfs *fs, const char *rel, int flags)
{
	char path[4096];

	if (!fs->fake)
		return openat(fs->root_fd, rel, flags);
#if defined(__linux__) && defined(SYS_openat2) && defined(RESOLVE_IN_ROOT) && \
	!defined(NP_SYSFS_NO_OPENAT2)
	{
		struct open_how how;
		long fd;
		memset(&how, 0, sizeof(how));
		how.flags = (unsigned)flags;
		how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
		fd = syscall(SYS_openat2, fs->root_fd, rel, &how, sizeof(how));
		if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != E2BIG))
			return (int)fd;
	}
#endif
	if (resolve_in_root(fs, rel, true, path, sizeof(path)) != 0)
		return -1;
	return openat(fs->root_fd, path[0] ? path : ".", flags | O_NOFOLLOW);
}

int np_sysfs_openfd(const struct np_sysfs *fs, const char *rel, int flags)
{
	return open_in_root(fs, rel, flags | O_CLOEXEC);
}

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
	/* O_NONBLOCK: a FIFO (or a device) where a file is expected, as a
	 * fake root may hold, is not waited on, and it is no file: refused.
	 * sysfs and /proc attributes are regular files; at most len bytes
	 * are read */
	int fd = open_in_root(fs, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	size_t got = 0;
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
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
	char path[4096];

	if (!fs->fake)
		return faccessat(fs->root_fd, rel, F_OK, 0) == 0;
	return resolve_in_root(fs, rel, true, path, sizeof(path)) == 0 &&
	       faccessat(fs->root_fd, path[0] ? path : ".", F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

bool np_sysfs_readlink(const struct np_sysfs *fs, const char *rel, char *buf, size_t len)
{
	char path[4096];
	ssize_t n;

	/* the link itself, its directories resolved inside the root */
	if (fs->fake && resolve_in_root(fs, rel, false, path, sizeof(path)) != 0)
		return false;
	n = readlinkat(fs->root_fd, fs->fake ? path : rel, buf, len - 1);

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
	int fd = open_in_root(fs, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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
	char buf[64];
	int64_t v;

	/* np_sysfs_read took the trailing newline off: the file is the number
	 * alone ("0x10de", "-1" of a VM's numa_node), or it is not read */
	if (!np_sysfs_read(fs, rel, buf, sizeof(buf)) ||
	    !np_parse_i64(buf, 0, LONG_MIN, LONG_MAX, &v))
		return false;
	*out = (long)v;
	return true;
}
