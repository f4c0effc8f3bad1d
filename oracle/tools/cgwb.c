// SPDX-License-Identifier: GPL-2.0
/*
 * build/oracle/cgwb: the runs of tests/unit/test_cgwb.c (buffered sequential writers in groups
 * 100:200 and 100:400, one each, on the hdd model, the 6.12 page cache with cgroup writeback;
 * a direct 128 KiB reader of weight 200 beside 100:200) with the port (sched/) and with the
 * kernel's own scheduler file (4.19 cfq-iosched.c, 6.12 bfq-iosched.c, built behind the
 * oracle's shim), everything else shared. Prints both and exits 1 when any figure differs: the
 * shares that do not follow the weights are then the kernel's scheduler's, given this block
 * layer, device model and page cache (docs/pagecache.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgwb_scenario.h"
#include "oracle.h"

#define SEC 1000000000ull
#define GiB (1ull << 30)

struct cgwb_case {
	enum sched_policy_id pol;
	uint32_t w2;	/* group 2's weight (group 1: 100) */
	bool reader;	/* a direct reader in group 3, weight 200 */
	uint32_t nrreq; /* nr_requests, 0: the kernel's sizing */
	bool strict;	/* bfq's strict_guarantees=1 */
	const char *name;
};

struct cgwb_out {
	uint64_t written[2];   /* pages written back per writer group */
	uint64_t completed[4]; /* requests completed: the writers' flushers, the reader */
	double reader_mbps;
	uint64_t end_ns;
};

static int run(const struct cgwb_case *c, bool kernel, struct cgwb_out *o)
{
	const uint32_t w[2] = {100, c->w2};
	struct vsim_config cfg;
	struct vsim_result r;
	struct vsim_job jobs[3];
	char err[256] = "";

	memset(o, 0, sizeof(*o));
	cgwb_scenario(&cfg, jobs, c->pol, PC_PROFILE_LINUX_6_12, 2, w, c->reader, 200);
	if (c->nrreq)
		cfg.nr_requests = c->nrreq;
	if (c->strict &&
	    sched_config_set_tunable(&cfg.sched, "strict_guarantees", "1", err, sizeof(err))) {
		fprintf(stderr, "cgwb: %s: %s\n", c->name, err);
		return -1;
	}
	cfg.runtime_ns = (c->reader ? 10 : 20) * SEC;
	if (kernel) {
		bool legacy = sched_config_blk_mode(&cfg.sched) == SCHED_BLK_LEGACY;
		const struct oracle_variant *v = oracle_variant_for(
		    c->pol, c->pol == SCHED_POLICY_CFQ ? "4.19" : "6.12", legacy);

		if (!v) {
			fprintf(stderr, "cgwb: no kernel file for %s in this build\n", c->name);
			return -1;
		}
		oracle_select(v);
		cfg.sched.impl = SCHED_IMPL_KERNEL;
	}
	if (vsim_run(&cfg, &r, err, sizeof(err))) {
		fprintf(stderr, "cgwb: %s: %s\n", c->name, err);
		return -1;
	}
	for (uint32_t i = 0; i < 2; i++) {
		o->written[i] = r.pc.written_by_group[i + 1];
		/* the flusher of wb i + 1 */
		if (r.nr_entities + i + 1 < SCHED_MAX_ENTITIES)
			o->completed[i] = r.sched.entity[r.nr_entities + i + 1].completed;
	}
	if (c->reader) {
		o->reader_mbps = r.job[2].bw_bps / 1e6;
		o->completed[2] = r.sched.entity[2].completed;
	}
	o->end_ns = r.end_ns;
	vsim_result_free(&r);
	return 0;
}

int main(void)
{
	static const struct cgwb_case cases[] = {
	    {SCHED_POLICY_CFQ, 200, false, 0, false, "cfq 1:2"},
	    {SCHED_POLICY_CFQ, 400, false, 0, false, "cfq 1:4"},
	    {SCHED_POLICY_BFQ, 200, false, 256, false, "bfq 1:2 nr_requests=256"},
	    {SCHED_POLICY_BFQ, 400, false, 256, false, "bfq 1:4 nr_requests=256"},
	    {SCHED_POLICY_BFQ, 400, false, 0, false, "bfq 1:4 nr_requests=64"},
	    {SCHED_POLICY_CFQ, 200, true, 0, false, "cfq reader beside 1:2"},
	    {SCHED_POLICY_BFQ, 200, true, 256, false, "bfq reader beside 1:2"},
	    {SCHED_POLICY_BFQ, 200, true, 256, true, "bfq reader, strict_guar."},
	};
	int bad = 0;

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct cgwb_case *c = &cases[k];
		struct cgwb_out o[2];

		for (int kernel = 0; kernel < 2; kernel++) {
			double tot;

			if (run(c, kernel, &o[kernel]))
				return 2;
			tot = (double)(o[kernel].written[0] + o[kernel].written[1]);
			printf("%-26s %-6s written shares %.3f : %.3f", c->name,
			       kernel ? "kernel" : "port", tot ? o[kernel].written[0] / tot : 0,
			       tot ? o[kernel].written[1] / tot : 0);
			if (c->reader)
				printf("  reader %.1f MB/s", o[kernel].reader_mbps);
			printf("\n");
		}
		if (memcmp(&o[0], &o[1], sizeof(o[0]))) {
			printf("%-26s differs\n", c->name);
			bad = 1;
		}
	}
	printf(bad ? "cgwb: the port and the kernel's files differ\n"
		   : "cgwb: the port and the kernel's files agree in every run\n");
	return bad;
}
