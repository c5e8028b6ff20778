// SPDX-License-Identifier: MIT
// Device kernels of the NCCL backend (being written).
#include "nccl_kernels.h"
