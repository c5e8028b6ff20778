# SPDX-License-Identifier: MIT
# The NCCL backend and its device kernels, built when configure found
# CUDA and NCCL; the NCCL_* environment listing is built always.
EXTRA_DIST += probes/nccl_kernels.cu probes/nccl_kernels.h
libnp_a_SOURCES += probes/nccl_env.c probes/nccl_env.h
if HAVE_NCCL
libnp_a_SOURCES += probes/backend_nccl.c
libnp_a_LIBADD += probes/nccl_kernels.$(OBJEXT)
CLEANFILES += probes/nccl_kernels.$(OBJEXT)
probes/nccl_kernels.$(OBJEXT): probes/nccl_kernels.cu probes/nccl_kernels.h probes/pattern.h probes/coll.h config.h
	@$(MKDIR_P) probes
	$(AM_V_GEN)$(NVCC) $(NVCCFLAGS) -I$(top_builddir) -I$(top_srcdir) -I$(top_srcdir)/probes \
		-Xcompiler -fPIC -c -o $@ $(top_srcdir)/probes/nccl_kernels.cu
endif
