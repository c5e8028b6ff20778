# SPDX-License-Identifier: MIT
# Scripts shipped in contrib/. 'make install' installs the validation
# driver and the plotter beside nccl-probe, and the Slurm prolog, the NHC check and the
# JSON Schemas of every document under $(pkgdatadir) (share/nccl-probe/), for a site
# to copy or point to.
dist_bin_SCRIPTS = contrib/nccl-probe-validate contrib/nccl-probe-plot
slurmcontribdir = $(pkgdatadir)/slurm
dist_slurmcontrib_SCRIPTS = contrib/slurm/prolog-nccl-probe
# an example settings file and floors file, to copy to /etc/nccl-probe/
dist_slurmcontrib_DATA = contrib/slurm/prolog.conf.example contrib/slurm/floors.example
nhccontribdir = $(pkgdatadir)/nhc
dist_nhccontrib_DATA = contrib/nhc/nccl-probe.nhc
# the installed prolog and NHC check find the installed nccl-probe: the
# bindir goes into their @bindir@ (NHC runs checks with a PATH of system
# directories only)
install-data-hook: install-contrib-bindir
install-contrib-bindir:
	for f in "$(DESTDIR)$(slurmcontribdir)/prolog-nccl-probe" "$(DESTDIR)$(nhccontribdir)/nccl-probe.nhc"; do \
		sed -e 's|@bindir[@]|$(bindir)|g' "$$f" >"$$f.tmp" && chmod --reference="$$f" "$$f.tmp" && \
			mv -f "$$f.tmp" "$$f" || exit 1; \
	done
.PHONY: install-contrib-bindir
dist_pkgdata_DATA = contrib/nccl-probe-sweep.schema.json contrib/nccl-probe-topo.schema.json \
	contrib/nccl-probe-isolate.schema.json contrib/nccl-probe-compare.schema.json \
	contrib/nccl-probe-tune.schema.json contrib/nccl-probe-validate.schema.json
# a Grafana dashboard of the --metrics files, beside the schema
dist_pkgdata_DATA += contrib/grafana/nccl-probe-dashboard.json
EXTRA_DIST += contrib/np-setup .ci/run contrib/np-format
# 'make format' formats every C source in place (contrib/np-format; its
# --check is tests/t0095-format.sh)
format:
	$(top_srcdir)/contrib/np-format
.PHONY: format
