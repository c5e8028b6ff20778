/* SPDX-License-Identifier: MIT */
/* The busy GPU load of topo --under-load (probes/gpu_load.c): open finds
 * and prepares every visible GPU through the CUDA driver (no build-time
 * CUDA); src/ hands start and stop to topo's health window. */
#ifndef NP_PROBES_GPU_LOAD_H
#define NP_PROBES_GPU_LOAD_H

/* 0 when at least one GPU can be loaded; -1 otherwise. */
int np_gpu_load_open(void);
/* Keep every opened GPU busy for at most seconds, from a thread of its
 * own; 0 ok. np_gpu_load_stop ends it early (safe when not running). */
int np_gpu_load_start(double seconds);
void np_gpu_load_stop(void);
/* Stop a running load and free what open took; safe after a failed open. */
void np_gpu_load_close(void);

#endif
