/* SPDX-License-Identifier: MIT */
/* The one sysfs scan for GPUs (np_sysfs_gpus) on a fake tree built here:
 * which PCI functions are GPUs, their ids, their driver, the order; and
 * np_sysfs_read_long, which reads their ids. */
#define _XOPEN_SOURCE 700
#include "config.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "../../topo/gpu_live.h"

static char root[256];

static void mkdirs(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

static void put(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	if (!f) {
		perror(p);
		exit(1);
	}
	fprintf(f, "%s\n", text);
	fclose(f);
}

static void link_to(const char *target, const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (symlink(target, p) != 0) {
		perror(p);
		exit(1);
	}
}

/* A PCI function as the kernel shows it: its directory under
 * sys/devices/pci0000:00, linked from sys/bus/pci/devices; a NULL device
 * or driver is absent. */
static void pci(const char *bdf, const char *vendor, const char *cls, const char *device,
		const char *driver)
{
	char rel[256], target[256];

	snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/%s", bdf);
	mkdirs(rel);
	snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/%s/vendor", bdf);
	put(rel, vendor);
	snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/%s/class", bdf);
	put(rel, cls);
	if (device) {
		snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/%s/device", bdf);
		put(rel, device);
	}
	if (driver) {
		snprintf(rel, sizeof(rel), "sys/bus/pci/drivers/%s", driver);
		mkdirs(rel);
		snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/%s/driver", bdf);
		snprintf(target, sizeof(target), "../../../bus/pci/drivers/%s", driver);
		link_to(target, rel);
	}
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s", bdf);
	snprintf(target, sizeof(target), "../../../devices/pci0000:00/%s", bdf);
	link_to(target, rel);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

static int scan(struct np_sysfs_gpu *out, int max)
{
	struct np_sysfs fs;
	struct np_err err;
	int n;

	if (np_sysfs_open(&fs, &err) != NP_OK)
		return -2;
	n = np_sysfs_gpus(&fs, out, max);
	np_sysfs_release(&fs);
	return n;
}

#define NOT_READ 123456789L

/* np_sysfs_read_long of a file holding text (and a newline, as the kernel
 * writes it); NOT_READ when it refuses */
static long read_long(const char *text)
{
	struct np_sysfs fs;
	struct np_err err;
	long v = NOT_READ;

	mkdirs("sys/test");
	put("sys/test/value", text);
	if (np_sysfs_open(&fs, &err) != NP_OK)
		return -2;
	if (!np_sysfs_read_long(&fs, "sys/test/value", &v))
		v = NOT_READ;
	np_sysfs_release(&fs);
	return v;
}

int main(void)
{
	struct np_sysfs_gpu g[8];
	const char *tmp = getenv("TMPDIR");

	snprintf(root, sizeof(root), "%s/np-sysfs-gpus.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		perror(root);
		return 1;
	}
	setenv("NCCL_PROBE_FSROOT", root, 1);

	mkdirs("sys");
	tap_is_int(scan(g, 8), -1, "no sys/bus/pci/devices: -1, not an empty list");

	mkdirs("sys/bus/pci/devices");
	tap_is_int(scan(g, 8), 0, "an empty PCI bus: no GPU");

	/* listed out of order on purpose: the scan sorts by name */
	pci("0000:9a:00.0", "0x10de", "0x030200", NULL, NULL);            /* 3D, no driver, no id */
	pci("0000:1a:00.0", "0x15b3", "0x020700", "0x1021", "mlx5_core"); /* a NIC */
	pci("0000:3b:00.0", "0x10de", "0x068000", "0x22a3", NULL);        /* NVSwitch: a bridge */
	pci("0000:19:00.0", "0x10de", "0x030200", "0x2330", "nvidia");
	pci("0000:5d:00.0", "0x10de", "0x030000", "0x1eb8", "nouveau"); /* VGA */
	pci("0000:70:00.0", "0x1002", "0x038000", "0x740f", "amdgpu");  /* another vendor's GPU */
	pci("0000:80:00.1", "0x10de", "0x040300", "0x22bc", "snd_hda_intel"); /* a GPU's audio */

	tap_is_int(scan(g, 8), 3, "three NVIDIA display functions among seven");
	tap_is_str(g[0].busid, "0000:19:00.0", "first in name order");
	tap_is_str(g[0].dir, "0000:19:00.0", "its sysfs name kept");
	tap_is_int(g[0].device_id, 0x2330, "device id read");
	tap_ok(g[0].nvidia_driver, "bound to nvidia");
	tap_is_str(g[1].busid, "0000:5d:00.0", "a VGA controller is a GPU");
	tap_ok(!g[1].nvidia_driver, "bound to nouveau: not the nvidia driver");
	tap_is_str(g[2].busid, "0000:9a:00.0", "a GPU without a driver is listed");
	tap_is_int(g[2].device_id, 0, "no device file: id 0");
	tap_ok(!g[2].nvidia_driver, "no driver link: not the nvidia driver");

	tap_is_int(scan(g, 2), 2, "at most max");
	tap_is_str(g[1].busid, "0000:5d:00.0", "the first max in order");

	/* an upper-case name in the listing is normalized, its name kept; it
	 * sorts after the digits and lower case letters' names here */
	pci("0000:A0:00.0", "0x10de", "0x030200", "0x2330", "nvidia");
	tap_is_int(scan(g, 8), 4, "an upper-case name is read");
	tap_is_str(g[3].busid, "0000:a0:00.0", "its bus id normalized");
	tap_is_str(g[3].dir, "0000:A0:00.0", "its sysfs name as listed");

	/* a vendor file that is not one number: the function is not taken
	 * for NVIDIA's */
	pci("0000:b0:00.0", "0x10de junk", "0x030200", "0x2330", "nvidia");
	pci("0000:b1:00.0", "0x10de", "0x030200x", "0x2330", "nvidia");
	tap_is_int(scan(g, 8), 4, "a vendor or class with trailing junk: not a GPU");
	tap_ok(read_long("0x10de junk") == NOT_READ && read_long("0x030200x") == NOT_READ,
	       "  its files not read");

	/* np_sysfs_read_long: the file holds the number alone */
	tap_is_int(read_long("0x10de"), 0x10de, "read_long: hexadecimal");
	tap_is_int(read_long("-1"), -1, "read_long: a VM's numa_node -1");
	tap_is_int(read_long("4"), 4, "read_long: decimal");
	tap_is_int(read_long("010"), 8, "read_long: octal, as strtol base 0");
	tap_is_int(read_long("0"), 0, "read_long: zero");
	tap_is_int(read_long("9223372036854775807"), 9223372036854775807L, "read_long: LONG_MAX");
	tap_ok(read_long("9223372036854775808") == NOT_READ, "read_long: overflow refused");
	tap_ok(read_long("0x10000000000000000") == NOT_READ,
	       "read_long: hexadecimal overflow refused");
	tap_ok(read_long("") == NOT_READ, "read_long: an empty file refused");
	tap_ok(read_long("4 5") == NOT_READ && read_long("4x") == NOT_READ,
	       "read_long: trailing junk refused");
	tap_ok(read_long(" 4") == NOT_READ && read_long("+4") == NOT_READ,
	       "read_long: a blank or '+' refused");
	tap_ok(read_long("08") == NOT_READ && read_long("0x") == NOT_READ,
	       "read_long: bad digits refused");

	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return tap_done();
}
