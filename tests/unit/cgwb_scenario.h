/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The runs of test_cgwb.c, shared with build/oracle/cgwb (oracle/tools/cgwb.c), which runs them
 * with the kernel's own scheduler files: one definition, so that the tool's figures are the
 * test's. Writers in groups 1 .. nw (weights w[]), one buffered sequential 4 KiB writer each on
 * a file of its own, on the hdd model with the page cache profile prof; with reader, a direct
 * sequential 128 KiB reader in group nw + 1 of weight rw. Fills cfg and jobs (room for
 * nw + 1), returns the number of jobs; the caller sets the run's length and tunables.
 */
#ifndef CGWB_SCENARIO_H
#define CGWB_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "vsim.h"

static inline uint32_t cgwb_scenario(struct vsim_config *cfg, struct vsim_job *jobs,
				     enum sched_policy_id pol, enum pc_profile prof, uint32_t nw,
				     const uint32_t *w, bool reader, uint32_t rw)
{
	const uint64_t gib = 1ull << 30;
	uint32_t n = 0;

	vsim_config_defaults(cfg, pol, DEVMODEL_HDD);
	cfg->pagecache = true;
	pc_params_defaults(&cfg->pc, prof);
	for (uint32_t i = 0; i < nw; i++) {
		vsim_job_defaults(&jobs[n]);
		jobs[n].name = "writer";
		jobs[n].rw = VSIM_WRITE;
		jobs[n].direct = false;
		jobs[n].bs = 4096;
		jobs[n].offset = (uint64_t)(i + 1) * 64 * gib;
		jobs[n].size = 32 * gib;
		jobs[n].file = i + 1;
		jobs[n].group = i + 1;
		cfg->sched.group_weight[i + 1] = (uint16_t)w[i];
		n++;
	}
	if (reader) {
		vsim_job_defaults(&jobs[n]);
		jobs[n].name = "reader";
		jobs[n].rw = VSIM_READ;
		jobs[n].bs = 128 * 1024;
		jobs[n].size = 32 * gib;
		jobs[n].file = nw + 1;
		jobs[n].group = nw + 1;
		cfg->sched.group_weight[nw + 1] = (uint16_t)rw;
		n++;
	}
	cfg->jobs = jobs;
	cfg->nr_jobs = n;
	return n;
}

#endif
