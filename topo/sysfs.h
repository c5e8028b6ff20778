/* SPDX-License-Identifier: MIT */
/* Every read of /sys and /proc goes through one root directory fd, which
 * the environment variable NCCL_PROBE_FSROOT can point at a fake tree
 * (tests build such trees). Paths given here are relative ("sys/..."). */
#ifndef NP_TOPO_SYSFS_H
#define NP_TOPO_SYSFS_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/status.h"

struct np_sysfs {
	int root_fd;
	bool fake; /* NCCL_PROBE_FSROOT was set */
	char root[512];
};

/* Open the root ("/" or $NCCL_PROBE_FSROOT). */
enum np_status np_sysfs_open(struct np_sysfs *fs, struct np_err *err);
void np_sysfs_release(struct np_sysfs *fs);

/* Read a small file whole, trailing newline removed; false if unreadable. */
bool np_sysfs_read(const struct np_sysfs *fs, const char *rel, char *buf, size_t len);
bool np_sysfs_readf(const struct np_sysfs *fs, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Read up to len bytes of a binary file; returns bytes read, -1 on error. */
long np_sysfs_read_bin(const struct np_sysfs *fs, const char *rel, void *buf, size_t len);
bool np_sysfs_exists(const struct np_sysfs *fs, const char *rel);
/* readlink, relative to the root; false if not a link. */
bool np_sysfs_readlink(const struct np_sysfs *fs, const char *rel, char *buf, size_t len);
/* Names in a directory (no "." / ".."), sorted; the caller frees *names
 * and each name with np_sysfs_free_list. Returns the count, -1 on error. */
int np_sysfs_list(const struct np_sysfs *fs, const char *rel, char ***names);
void np_sysfs_free_list(char **names, int n);
/* open(2) of rel inside the root (a device such as dev/kmsg, or a file a
 * test planted there); the caller closes it. -1 with errno set. */
int np_sysfs_openfd(const struct np_sysfs *fs, const char *rel, int flags);
/* An integer file (decimal, 0x hex or 0 octal, as strtol base 0 reads them)
 * holding the number alone; false if absent, empty, out of range or followed
 * by anything but its newline. */
bool np_sysfs_read_long(const struct np_sysfs *fs, const char *rel, long *out);

/* Whether a PCI function's class (sysfs' 24-bit "class" file) is a GPU's:
 * base class 0x03, a display controller (VGA 0x0300, 3D 0x0302, other
 * 0x0380). The one test of "is a GPU" on sysfs, for topo's GPU list and
 * health's list of the driver's GPUs alike. */
static inline bool np_pci_class_is_gpu(long cls) { return ((cls >> 16) & 0xff) == 0x03; }

#endif
