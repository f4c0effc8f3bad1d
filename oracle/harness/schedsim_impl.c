// SPDX-License-Identifier: GPL-2.0
/*
 * schedsim in the oracle's build (build/oracle/schedsim): with SCHEDSIM_IMPL=kernel in its
 * environment, the job file's policy runs as the kernel's own file of the version its profile
 * names (deadline_version, bfq_version, cfq_version: 2.6.32 to 4.19) for the block layer it runs
 * on (blk_mode: the legacy queue's file, deadline-iosched.c, or blk-mq's), compiled behind the
 * oracle's shim, in place of the embedded port; everything else (the job file, the simulator,
 * the block layer, the device
 * model, the JSON) is unchanged. schedbench's virtual cells use it with
 * SCHEDBENCH_SCHEDSIM=build/oracle/schedsim: the seeds' "kernel code" rows (scripts/oracle-seeds.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

int schedsim_select_impl(struct vsim_config *cfg, char *err, size_t errlen);

/* The kernel version the configuration's profile stands for ("4.19", "6.12"). */
static void profile_version(const struct sched_config *c, char *buf, size_t len)
{
	const struct sched_policy_ops *ops = sched_policy_ops(c->policy);

	snprintf(buf, len, "%s", c->policy == SCHED_POLICY_CFQ ? "4.19" : "6.12");
	for (unsigned int i = 0; ops && i < ops->nr_tunables; i++)
		if (!strcmp(ops->tunables[i].unit, "version")) {
			int64_t v = c->tunable_given[i] ? c->tunable[i] : ops->tunables[i].def;

			sched_version_str(v, buf, len);
		}
}

int schedsim_select_impl(struct vsim_config *cfg, char *err, size_t errlen)
{
	const char *impl = getenv("SCHEDSIM_IMPL");
	const struct oracle_variant *v;
	bool legacy;
	char ver[16];

	if (!impl || !*impl || !strcmp(impl, "embedded"))
		return 0;
	if (strcmp(impl, "kernel")) {
		snprintf(err, errlen, "SCHEDSIM_IMPL=%s: want embedded or kernel", impl);
		return -1;
	}
	profile_version(&cfg->sched, ver, sizeof(ver));
	legacy = sched_config_blk_mode(&cfg->sched) == SCHED_BLK_LEGACY;
	v = oracle_variant_for(cfg->sched.policy, ver, legacy);
	if (!v) {
		snprintf(err, errlen,
			 "SCHEDSIM_IMPL=kernel: no kernel file of %s %s for the %s block layer in this "
			 "build (oracle --list)",
			 sched_policy_ops(cfg->sched.policy)->name, ver, legacy ? "legacy" : "blk-mq");
		return -1;
	}
	oracle_select(v);
	cfg->sched.impl = SCHED_IMPL_KERNEL;
	return 0;
}
