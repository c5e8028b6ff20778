/* SPDX-License-Identifier: MIT */
/* Ethernet link modes through SIOCETHTOOL (see ethtool.h). */
#include "config.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ethtool.h"

/* Mb/s of each link mode bit (enum ethtool_link_mode_bit_indices: kernel
 * ABI, so numbers rather than names, which older headers lack); 0 for bits
 * that are not speeds (autoneg, pause, FEC, ports). Bits 93-98 are the
 * 800G modes of Linux 6.4. */
static const unsigned mode_mbps[] = {
	[0] = 10,      [1] = 10,      [2] = 100,     [3] = 100,     [4] = 1000,    [5] = 1000,
	[12] = 10000,  [15] = 2500,   [17] = 1000,   [18] = 10000,  [19] = 10000,  [20] = 10000,
	[21] = 20000,  [22] = 20000,  [23] = 40000,  [24] = 40000,  [25] = 40000,  [26] = 40000,
	[27] = 56000,  [28] = 56000,  [29] = 56000,  [30] = 56000,  [31] = 25000,  [32] = 25000,
	[33] = 25000,  [34] = 50000,  [35] = 50000,  [36] = 100000, [37] = 100000, [38] = 100000,
	[39] = 100000, [40] = 50000,  [41] = 1000,   [42] = 10000,  [43] = 10000,  [44] = 10000,
	[45] = 10000,  [46] = 10000,  [47] = 2500,   [48] = 5000,   [52] = 50000,  [53] = 50000,
	[54] = 50000,  [55] = 50000,  [56] = 50000,  [57] = 100000, [58] = 100000, [59] = 100000,
	[60] = 100000, [61] = 100000, [62] = 200000, [63] = 200000, [64] = 200000, [65] = 200000,
	[66] = 200000, [67] = 100,    [68] = 1000,   [69] = 400000, [70] = 400000, [71] = 400000,
	[72] = 400000, [73] = 400000, [75] = 100000, [76] = 100000, [77] = 100000, [78] = 100000,
	[79] = 100000, [80] = 200000, [81] = 200000, [82] = 200000, [83] = 200000, [84] = 200000,
	[85] = 400000, [86] = 400000, [87] = 400000, [88] = 400000, [89] = 400000, [90] = 100,
	[91] = 100,    [92] = 10,     [93] = 800000, [94] = 800000, [95] = 800000, [96] = 800000,
	[97] = 800000, [98] = 800000,
};

long long np_link_modes_max_mbps(const uint32_t *bits, int nwords)
{
	unsigned best = 0;

	for (int i = 0; i < nwords * 32 && (size_t)i < sizeof(mode_mbps) / sizeof(mode_mbps[0]);
	     i++)
		if (bits[i / 32] >> (i % 32) & 1u && mode_mbps[i] > best)
			best = mode_mbps[i];
	return best;
}

#define MAX_NWORDS 8 /* 256 modes; the kernel has about 120 */

int np_ethtool_rates(const char *ifname, long long *cur_mbps, long long *max_mbps)
{
	/* the settings and, in its flexible link_mode_masks[], the three maps
	 * (supported, advertising, lp_advertising); a union, since C allows a
	 * structure with a flexible array in a union but not in a structure */
	union {
		struct ethtool_link_settings s;
		uint32_t raw[sizeof(struct ethtool_link_settings) / 4 + 3 * MAX_NWORDS];
	} req;
	struct ifreq ifr;
	int fd, nwords, rc = -1;

	*cur_mbps = *max_mbps = 0;
	if (!ifname[0] || strlen(ifname) >= sizeof(ifr.ifr_name))
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, ifname);
	ifr.ifr_data = (void *)&req;
	/* the handshake: nwords 0 asks the kernel for its bitmap size */
	memset(&req, 0, sizeof(req));
	req.s.cmd = ETHTOOL_GLINKSETTINGS;
	if (ioctl(fd, SIOCETHTOOL, &ifr) != 0 || req.s.link_mode_masks_nwords >= 0)
		goto out;
	nwords = -req.s.link_mode_masks_nwords;
	if (nwords > MAX_NWORDS)
		goto out;
	memset(&req, 0, sizeof(req));
	req.s.cmd = ETHTOOL_GLINKSETTINGS;
	req.s.link_mode_masks_nwords = (int8_t)nwords;
	if (ioctl(fd, SIOCETHTOOL, &ifr) != 0 || req.s.link_mode_masks_nwords != nwords)
		goto out;
	if (req.s.speed == 0 || req.s.speed == (uint32_t)SPEED_UNKNOWN)
		goto out;
	*cur_mbps = req.s.speed;
	*max_mbps = np_link_modes_max_mbps(req.s.link_mode_masks, nwords);
	rc = *max_mbps > 0 ? 0 : -1;
out:
	close(fd);
	return rc;
}
