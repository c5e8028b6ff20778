/* SPDX-License-Identifier: MIT */
/* A busy load on every visible GPU for topo --under-load: a chain of
 * dependent FMAs in PTX, loaded through the CUDA driver API (dlopen of
 * libcuda.so.1, JIT-compiled by the driver for whatever GPU is there), so
 * no build-time CUDA is needed. A thread relaunches the kernel on every
 * GPU until the window ends, so clocks and clock event reasons are read
 * while the GPUs work. */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpu_load.h"

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef unsigned long long CUdeviceptr;
#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define LOAD_MAX_GPUS 64
#define LOAD_THREADS 256

/* out[tid] = a chain of `iters` x 2 dependent FMAs: the result is stored,
 * so the loop cannot be dropped. */
static const char ptx[] =
	".version 6.0\n"
	".target sm_50\n"
	".address_size 64\n"
	".visible .entry np_busy(.param .u64 out, .param .u32 iters)\n"
	"{\n"
	"  .reg .pred p;\n"
	"  .reg .f32 a, b, c;\n"
	"  .reg .b32 i, n, tid;\n"
	"  .reg .b64 o, off;\n"
	"  ld.param.u64 o, [out];\n"
	"  ld.param.u32 n, [iters];\n"
	"  mov.u32 tid, %tid.x;\n"
	"  cvt.rn.f32.u32 a, tid;\n"
	"  mov.f32 b, 0f3F7FFFFE;\n"
	"  mov.f32 c, 0f3F000000;\n"
	"  mov.u32 i, 0;\n"
	"LOOP:\n"
	"  fma.rn.f32 a, a, b, c;\n"
	"  fma.rn.f32 c, c, b, a;\n"
	"  add.u32 i, i, 1;\n"
	"  setp.lt.u32 p, i, n;\n"
	"  @p bra LOOP;\n"
	"  add.f32 a, a, c;\n"
	"  cvta.to.global.u64 o, o;\n"
	"  mul.wide.u32 off, tid, 4;\n"
	"  add.u64 o, o, off;\n"
	"  st.global.f32 [o], a;\n"
	"  ret;\n"
	"}\n";

/* Process-wide: the one load, on the CUDA driver's primary contexts, which
 * are the process's own */
static struct {
	void *lib;
	CUresult (*init)(unsigned);
	CUresult (*count)(int *);
	CUresult (*get)(CUdevice *, int);
	CUresult (*attr)(int *, int, CUdevice);
	CUresult (*retain)(CUcontext *, CUdevice);
	CUresult (*release)(CUdevice);
	CUresult (*push)(CUcontext);
	CUresult (*pop)(CUcontext *);
	CUresult (*load)(CUmodule *, const void *);
	CUresult (*unload)(CUmodule);
	CUresult (*func)(CUfunction *, CUmodule, const char *);
	CUresult (*alloc)(CUdeviceptr *, size_t);
	CUresult (*free)(CUdeviceptr);
	CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			   unsigned, void *, void **, void **);
	CUresult (*sync)(void);
	struct {
		CUdevice dev;
		CUcontext ctx;
		CUmodule mod;
		CUfunction fn;
		CUdeviceptr out;
		int sms;
	} gpu[LOAD_MAX_GPUS];
	int ngpus;
	pthread_t thread;
	bool running;
	volatile int stop;
	double seconds;
} L;

#define CUSYM(field, name) (*(void **)&L.field = dlsym(L.lib, name))

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *run(void *arg)
{
	double end = now() + L.seconds;
	unsigned iters = 1u << 18;

	(void)arg;
	while (!L.stop && now() < end) {
		for (int g = 0; g < L.ngpus; g++) {
			void *params[2] = { &L.gpu[g].out, &iters };
			CUcontext old;
			if (L.push(L.gpu[g].ctx) != 0)
				continue;
			L.launch(L.gpu[g].fn, (unsigned)L.gpu[g].sms * 8, 1, 1, LOAD_THREADS, 1, 1,
				 0, NULL, params, NULL);
			L.pop(&old);
		}
		for (int g = 0; g < L.ngpus; g++) {
			CUcontext old;
			if (L.push(L.gpu[g].ctx) != 0)
				continue;
			L.sync();
			L.pop(&old);
		}
	}
	return NULL;
}

int np_gpu_load_start(double seconds)
{
	if (!L.ngpus)
		return -1;
	L.seconds = seconds;
	L.stop = 0;
	if (pthread_create(&L.thread, NULL, run, NULL) != 0)
		return -1;
	L.running = true;
	return 0;
}

void np_gpu_load_stop(void)
{
	if (!L.running)
		return;
	L.stop = 1;
	pthread_join(L.thread, NULL);
	L.running = false;
}

int np_gpu_load_open(void)
{
	int n = 0;

	memset(&L, 0, sizeof(L));
	/* NODELETE: an initialized driver stays loaded (see topo/gpu_live.c) */
	L.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!L.lib)
		return -1;
	CUSYM(init, "cuInit");
	CUSYM(count, "cuDeviceGetCount");
	CUSYM(get, "cuDeviceGet");
	CUSYM(attr, "cuDeviceGetAttribute");
	CUSYM(retain, "cuDevicePrimaryCtxRetain");
	CUSYM(release, "cuDevicePrimaryCtxRelease_v2");
	CUSYM(push, "cuCtxPushCurrent_v2");
	CUSYM(pop, "cuCtxPopCurrent_v2");
	CUSYM(load, "cuModuleLoadData");
	CUSYM(unload, "cuModuleUnload");
	CUSYM(func, "cuModuleGetFunction");
	CUSYM(alloc, "cuMemAlloc_v2");
	CUSYM(free, "cuMemFree_v2");
	CUSYM(launch, "cuLaunchKernel");
	CUSYM(sync, "cuCtxSynchronize");
	if (!L.init || !L.count || !L.get || !L.attr || !L.retain || !L.release || !L.push ||
	    !L.pop || !L.load || !L.unload || !L.func || !L.alloc || !L.free || !L.launch ||
	    !L.sync || L.init(0) != 0 || L.count(&n) != 0)
		return -1;
	for (int i = 0; i < n && L.ngpus < LOAD_MAX_GPUS; i++) {
		typeof(L.gpu[0]) *g = &L.gpu[L.ngpus];
		CUcontext old;
		if (L.get(&g->dev, i) != 0 || L.retain(&g->ctx, g->dev) != 0)
			continue;
		if (L.push(g->ctx) != 0) {
			L.release(g->dev);
			continue;
		}
		if (L.attr(&g->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, g->dev) != 0 ||
		    g->sms <= 0)
			g->sms = 1;
		if (L.load(&g->mod, ptx) != 0 || L.func(&g->fn, g->mod, "np_busy") != 0 ||
		    L.alloc(&g->out, LOAD_THREADS * sizeof(float)) != 0) {
			if (g->mod)
				L.unload(g->mod);
			L.pop(&old);
			L.release(g->dev);
			continue;
		}
		L.pop(&old);
		L.ngpus++;
	}
	if (!L.ngpus)
		return -1;
	return 0;
}

void np_gpu_load_close(void)
{
	np_gpu_load_stop();
	for (int i = 0; i < L.ngpus; i++) {
		CUcontext old;
		if (L.push(L.gpu[i].ctx) == 0) {
			L.free(L.gpu[i].out);
			L.unload(L.gpu[i].mod);
			L.pop(&old);
		}
		L.release(L.gpu[i].dev);
	}
	L.ngpus = 0;
}
