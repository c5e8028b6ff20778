/* SPDX-License-Identifier: MIT */
/* The one writer of output files (see outfile.h). */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/number.h"
#include "msg.h"
#include "outfile.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif
#ifndef NAME_MAX
#define NAME_MAX 255
#endif

#define TMP_SUFFIX ".tmp.XXXXXXXXXX" /* X: random letters and digits */
#define NULL_FD (-2)

/* The descriptor a name stands for (1 for "-"), NULL_FD for /dev/null,
 * -1 for a file name. */
static int stream_fd(const char *path)
{
	const char *num = NULL;
	int32_t v;

	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	if (!strcmp(path, "/dev/null"))
		return NULL_FD;
	if (!strncmp(path, "/dev/fd/", 8))
		num = path + 8;
	else if (!strncmp(path, "/proc/self/fd/", 14))
		num = path + 14;
	return num && np_parse_i32(num, 10, 0, INT32_MAX, &v) ? (int)v : -1;
}

bool np_outfile_is_stream(const char *path) { return stream_fd(path) != -1; }

const char *np_file_type_str(mode_t m)
{
	if (S_ISFIFO(m))
		return "FIFO";
	if (S_ISCHR(m))
		return "character device";
	if (S_ISBLK(m))
		return "block device";
	if (S_ISSOCK(m))
		return "socket";
	if (S_ISDIR(m))
		return "directory";
	if (S_ISLNK(m))
		return "symbolic link";
	return "special file";
}

/* A refused target: what it is, and what to do. */
static enum np_status check_target(const char *path, const char *what, struct np_err *err)
{
	struct stat st;

	if (lstat(path, &st) != 0) {
		if (errno == ENOENT)
			return NP_OK;
		if (errno == ENAMETOOLONG)
			return np_fail(err, NP_EUSAGE,
				       "invalid %s '%.60s...': the path is too long; give a shorter one",
				       what, path);
		return np_fail(err, NP_EUSAGE,
			       "cannot write %s '%s': %s; choose a file in a directory you may write",
			       what, path, strerror(errno));
	}
	if (S_ISLNK(st.st_mode))
		return np_fail(err, NP_EUSAGE,
			       "%s '%s' is a symbolic link, and nccl-probe does not write through links: give the path it points to, or remove the link",
			       what, path);
	if (S_ISDIR(st.st_mode))
		return np_fail(err, NP_EUSAGE,
			       "cannot write %s '%s': it is a directory; give a file name", what,
			       path);
	if (!S_ISREG(st.st_mode))
		return np_fail(err, NP_EUSAGE,
			       "%s '%s' is a %s, not a regular file, and would be replaced: give a file name, or '-' for standard output",
			       what, path, np_file_type_str(st.st_mode));
	if (!(st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) || access(path, W_OK) != 0)
		return np_fail(err, NP_EUSAGE,
			       "%s '%s' is read-only, and nccl-probe does not replace it: make it writable, remove it, or choose another name",
			       what, path);
	return NP_OK;
}

enum np_status np_outfile_check(const char *path, const char *what, struct np_err *err)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	size_t len = strlen(path);
	struct stat st;
	enum np_status rc;

	if (!*path)
		return np_fail(err, NP_EUSAGE,
			       "invalid %s ''; give a file name, or '-' for standard output", what);
	if (stream_fd(path) != -1)
		return NP_OK;
	if (len + sizeof(TMP_SUFFIX) > PATH_MAX)
		return np_fail(err, NP_EUSAGE,
			       "invalid %s '%.60s...': the path is %zu characters, the longest is %zu; give a shorter one",
			       what, path, len, (size_t)PATH_MAX - sizeof(TMP_SUFFIX));
	if (!*base)
		return np_fail(err, NP_EUSAGE,
			       "cannot write %s '%s': it names a directory; give a file name", what,
			       path);
	if (strlen(base) + sizeof(TMP_SUFFIX) - 1 > NAME_MAX)
		return np_fail(err, NP_EUSAGE,
			       "invalid %s '%.60s...': the file name is %zu characters, the longest is %zu; give a shorter one",
			       what, path, strlen(base),
			       (size_t)NAME_MAX - (sizeof(TMP_SUFFIX) - 1));
	if ((rc = check_target(path, what, err)))
		return rc;
	if (slash) {
		size_t dl = (size_t)(slash - path);
		memcpy(dir, path, dl);
		dir[dl] = '\0';
		if (dl == 0)
			strcpy(dir, "/");
	} else {
		strcpy(dir, ".");
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return np_fail(err, NP_EUSAGE,
			       "cannot write %s '%s': directory '%s' %s; choose a writable directory",
			       what, path, dir,
			       errno == ENOENT ? "does not exist" : "is not a directory");
	if (access(dir, W_OK | X_OK) != 0)
		return np_fail(err, NP_EUSAGE,
			       "cannot write %s '%s': directory '%s' is not writable; choose a writable directory",
			       what, path, dir);
	return NP_OK;
}

/* Random letters and digits over the X's at the end of tmp. */
static void randomize(char *tmp)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static uint64_t counter;
	unsigned char rnd[16];
	char *x = tmp + strlen(tmp);
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), got = 0;
	struct timespec ts;
	uint64_t z;

	if (fd >= 0) {
		got = read(fd, rnd, sizeof(rnd)) == (ssize_t)sizeof(rnd);
		close(fd);
	}
	/* without /dev/urandom: O_EXCL still makes the name safe, the clock
	 * only makes it hard to take first */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	z = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 16) ^
	    ++counter;
	for (size_t i = 0; i < sizeof(rnd); i++) {
		z += 0x9e3779b97f4a7c15ull;
		uint64_t m = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		if (!got)
			rnd[i] = (unsigned char)(m >> 56);
	}
	while (x > tmp && x[-1] == 'X')
		x--;
	for (int i = 0; x[i] == 'X' && i < (int)sizeof(rnd); i++)
		x[i] = set[rnd[i] % (sizeof(set) - 1)];
}

enum np_status np_outfile_open(struct np_outfile *of, const char *path, const char *what,
			       struct np_err *err)
{
	enum np_status rc;
	int k, fd = -1;

	memset(of, 0, sizeof(*of));
	of->cleanup = -1;
	of->path = path;
	of->what = what;
	if ((rc = np_outfile_check(path, what, err)))
		return rc;
	k = stream_fd(path);
	if (k == STDOUT_FILENO) {
		of->f = stdout;
		return NP_OK;
	}
	if (k == STDERR_FILENO) {
		of->f = stderr;
		return NP_OK;
	}
	if (k == NULL_FD || k >= 0) {
		int flags = k >= 0 ? fcntl(k, F_GETFL) : 0;
		if (k >= 0 && (flags < 0 || (flags & O_ACCMODE) == O_RDONLY))
			return np_fail(err, NP_EUSAGE,
				       "cannot write %s '%s': descriptor %d is not open for writing here; give a file name",
				       what, path, k);
		fd = k >= 0 ? fcntl(k, F_DUPFD_CLOEXEC, 3)
			    : open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || !(of->f = fdopen(fd, "w"))) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			return np_fail(err, NP_ESYS, "cannot write %s '%s': %s", what, path,
				       strerror(e));
		}
		of->own_stream = true;
		return NP_OK;
	}
	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		snprintf(of->tmp, sizeof(of->tmp), "%s" TMP_SUFFIX, path);
		randomize(of->tmp);
		/* O_EXCL: a name someone planted (a link, a file) is never
		 * opened; 0666: the umask and the directory's default ACL
		 * give the mode, as for any file the user creates */
		fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int e = errno;
		char dir[PATH_MAX];
		const char *slash = strrchr(path, '/');
		snprintf(dir, sizeof(dir), "%.*s",
			 slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
		of->tmp[0] = '\0';
		return np_fail(err, NP_ESYS,
			       "cannot write %s '%s': creating a file in '%s' failed: %s; choose a writable directory",
			       what, path, dir, strerror(e));
	}
	of->cleanup = np_cleanup_add(of->tmp);
	of->f = fdopen(fd, "w");
	if (!of->f) {
		int e = errno;
		close(fd);
		np_outfile_discard(of);
		return np_fail(err, NP_ESYS, "cannot write %s '%s': %s", what, path, strerror(e));
	}
	return NP_OK;
}

static void forget_tmp(struct np_outfile *of)
{
	np_cleanup_drop(of->cleanup);
	of->cleanup = -1;
	of->tmp[0] = '\0';
}

void np_outfile_discard(struct np_outfile *of)
{
	if (of->f && (of->tmp[0] || of->own_stream))
		fclose(of->f);
	else if (of->f)
		fflush(of->f);
	of->f = NULL;
	of->written = false;
	if (of->tmp[0]) {
		unlink(of->tmp);
		forget_tmp(of);
	}
}

/* The temporary takes the group and mode of the file it replaces, where
 * the user may set them: fchown to the old group (its owner may choose
 * any group of its own, root any group), then fchmod to the old mode. When
 * the group could not be kept, the old group's permissions are not handed
 * to the group the temporary has instead: those bits stay at most what
 * the umask gave. Nothing is changed when the target does not exist. */
static void keep_group_mode(struct np_outfile *of, int fd)
{
	struct stat old, cur;
	mode_t mode;

	if (lstat(of->path, &old) != 0 || !S_ISREG(old.st_mode) || fstat(fd, &cur) != 0)
		return;
	if (cur.st_gid != old.st_gid && fchown(fd, (uid_t)-1, old.st_gid) == 0)
		cur.st_gid = old.st_gid;
	mode = old.st_mode & 0777;
	if (cur.st_gid != old.st_gid)
		mode = (mode & ~(mode_t)070) | (mode & cur.st_mode & 070);
	if (mode != (cur.st_mode & 07777))
		(void)fchmod(fd, mode); /* the temporary is the user's own: EPERM cannot be */
}

/* Flush, keep group and mode, fsync and close (streams: flush); on failure
 * the temporary is removed. */
static enum np_status finish_one(struct np_outfile *of, struct np_err *err)
{
	int e = 0;
	bool bad;

	if (!of->f)
		return np_fail(err, NP_ESYS, "%s '%s' was not opened", of->what, of->path);
	bad = fflush(of->f) != 0 || ferror(of->f);
	if (bad)
		e = errno;
	if (!bad && of->tmp[0]) {
		keep_group_mode(of, fileno(of->f));
		if (fsync(fileno(of->f)) != 0)
			bad = true, e = errno;
	}
	if (of->tmp[0] || of->own_stream) {
		if (fclose(of->f) != 0 && !bad)
			bad = true, e = errno;
	}
	of->f = NULL;
	if (bad) {
		if (of->tmp[0]) {
			unlink(of->tmp);
			forget_tmp(of);
		}
		return np_fail(err, NP_ESYS,
			       "cannot write %s '%s': %s; check the disk and the directory",
			       of->what, of->path, strerror(e ? e : EIO));
	}
	of->written = of->tmp[0] != '\0';
	return NP_OK;
}

enum { PUT_FAILED = -1, PUT_NEW, PUT_SWAPPED, PUT_REPLACED };

/* Swap the temporary and the target when the target exists, so that the
 * old file can be put back; else rename. PUT_NEW: there was no file,
 * PUT_SWAPPED: the temporary's name holds the old file, PUT_REPLACED: a
 * file system that cannot swap, the old file is gone, PUT_FAILED: errno. */
static int put_in_place(struct np_outfile *of)
{
	struct stat st;
	bool old = lstat(of->path, &st) == 0;

#ifdef RENAME_EXCHANGE
	if (old) {
		if (renameat2(AT_FDCWD, of->tmp, AT_FDCWD, of->path, RENAME_EXCHANGE) == 0)
			return PUT_SWAPPED;
		if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
			return PUT_FAILED;
	}
#endif
	if (rename(of->tmp, of->path) != 0)
		return PUT_FAILED;
	return old ? PUT_REPLACED : PUT_NEW;
}

enum np_status np_outfile_commit_all(struct np_outfile *const *ofs, int n, struct np_err *err)
{
	enum np_status rc = NP_OK;
	int done = 0, e = 0, how[NP_OUTFILE_GROUP_MAX];

	if (n > NP_OUTFILE_GROUP_MAX) {
		for (int i = 0; i < n; i++)
			np_outfile_discard(ofs[i]);
		return np_fail(err, NP_ESYS, "%d outputs in one group, the most is %d", n,
			       NP_OUTFILE_GROUP_MAX);
	}
	for (int i = 0; i < n && !rc; i++)
		if (ofs[i]->f || ofs[i]->tmp[0])
			rc = finish_one(ofs[i], err);
	/* what was planted at a target meanwhile is refused, not replaced
	 * (rename would replace a link, never write through it) */
	for (int i = 0; i < n && !rc; i++)
		if (ofs[i]->written)
			rc = check_target(ofs[i]->path, ofs[i]->what, err);
	for (; done < n && !rc; done++) {
		struct np_outfile *of = ofs[done];
		how[done] = PUT_FAILED;
		if (!of->written)
			continue;
		how[done] = put_in_place(of);
		if (how[done] == PUT_FAILED) {
			e = errno;
			rc = np_fail(err, NP_ESYS,
				     "cannot write %s '%s': renaming the temporary file failed: %s",
				     of->what, of->path, strerror(e));
			break;
		}
	}
	if (rc) {
		/* put back what was done: a swapped file swaps back, a new one
		 * goes; what replaced an old file by a plain rename stays */
		for (int i = 0; i < done; i++) {
			struct np_outfile *of = ofs[i];
#ifdef RENAME_EXCHANGE
			if (how[i] == PUT_SWAPPED)
				(void)renameat2(AT_FDCWD, of->tmp, AT_FDCWD, of->path,
						RENAME_EXCHANGE);
#endif
			if (how[i] == PUT_NEW)
				(void)unlink(of->path);
		}
		for (int i = 0; i < n; i++)
			np_outfile_discard(ofs[i]);
		if (n > 1) {
			size_t l = strlen(err->msg);
			const char *kept = NULL;
			for (int i = 0; i < done; i++)
				if (how[i] == PUT_REPLACED)
					kept = ofs[i]->path;
			if (kept)
				snprintf(err->msg + l, sizeof(err->msg) - l,
					 " ('%s' was replaced already: its file system cannot swap names)",
					 kept);
			else
				snprintf(err->msg + l, sizeof(err->msg) - l,
					 " (no output file of this run was replaced)");
		}
		return rc;
	}
	for (int i = 0; i < n; i++) {
		if (!ofs[i]->written)
			continue;
		if (how[i] == PUT_SWAPPED) /* the temporary's name holds the old file */
			unlink(ofs[i]->tmp);
		ofs[i]->written = false;
		forget_tmp(ofs[i]);
	}
	return NP_OK;
}

enum np_status np_outfile_commit(struct np_outfile *of, struct np_err *err)
{
	struct np_outfile *one[1] = { of };

	if (!of->f)
		return np_fail(err, NP_ESYS, "%s '%s' was not opened", of->what, of->path);
	return np_outfile_commit_all(one, 1, err);
}

enum np_status np_outfile_write(const char *path, const char *what, const void *buf, size_t len,
				struct np_err *err)
{
	struct np_outfile of;
	enum np_status rc = np_outfile_open(&of, path, what, err);

	if (rc)
		return rc;
	if (len && fwrite(buf, 1, len, of.f) != len) {
		int e = errno;
		np_outfile_discard(&of);
		return np_fail(err, NP_ESYS, "cannot write %s '%s': %s; check the disk", what, path,
			       strerror(e));
	}
	return np_outfile_commit(&of, err);
}
