/* SPDX-License-Identifier: MIT */
/* Device kernels of the NCCL backend (being written). */
#ifndef NP_NCCL_KERNELS_H
#define NP_NCCL_KERNELS_H
#endif
