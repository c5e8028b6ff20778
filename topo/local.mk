# SPDX-License-Identifier: MIT
# The topology module (topo/) and the topo command (src/cmd_topo.c).
libnp_a_SOURCES += src/cmd_topo.c
