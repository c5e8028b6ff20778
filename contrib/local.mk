# SPDX-License-Identifier: MIT
# Scripts shipped in contrib/.
EXTRA_DIST += contrib/np-setup contrib/nccl-probe-validate .ci/run
