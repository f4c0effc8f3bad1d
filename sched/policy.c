// SPDX-License-Identifier: GPL-2.0
/* The table of policies and the configuration helpers shared by all of them. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bfq.h"
#include "deadline.h"
#include "cfq.h"
#include "kyber.h"
#include "none.h"
#include "sched.h"

static const char *const policy_names[SCHED_POLICY_NR] = {
	[SCHED_POLICY_NONE] = "none",
	[SCHED_POLICY_DEADLINE] = "deadline",
	[SCHED_POLICY_CFQ] = "cfq",
	[SCHED_POLICY_BFQ] = "bfq",
	[SCHED_POLICY_KYBER] = "kyber",
};

/* Policies not built yet have no ops; each lands as a file of its own. */
const struct sched_policy_ops *const sched_policy_table[SCHED_POLICY_NR] = {
	[SCHED_POLICY_NONE] = &sched_none_ops,
	[SCHED_POLICY_CFQ] = &sched_cfq_ops,
	[SCHED_POLICY_DEADLINE] = &sched_deadline_ops,
	[SCHED_POLICY_BFQ] = &sched_bfq_ops,
	[SCHED_POLICY_KYBER] = &sched_kyber_ops,
};

const struct sched_policy_ops *sched_policy_ops(enum sched_policy_id id)
{
	if ((unsigned int)id >= SCHED_POLICY_NR)
		return NULL;
	return sched_policy_table[id];
}

/*
 * No kernel code in the engine: SCHED_IMPL_KERNEL is refused (sched_config_check). The oracle's
 * binaries define this table again, not weak, and theirs is the one linked: the policy core
 * names nothing of the oracle.
 */
__attribute__((weak)) const struct sched_policy_ops *const
    sched_kernel_policy_table[SCHED_POLICY_NR] = {NULL};

const struct sched_policy_ops *sched_config_ops(const struct sched_config *cfg)
{
	if ((unsigned int)cfg->policy >= SCHED_POLICY_NR)
		return NULL;
	if (cfg->impl == SCHED_IMPL_KERNEL)
		return sched_kernel_policy_table[cfg->policy];
	return sched_policy_table[cfg->policy];
}

int sched_policy_by_name(const char *name)
{
	for (int i = 0; i < SCHED_POLICY_NR; i++)
		if (!strcmp(name, policy_names[i]))
			return i;
	return -1;
}

bool sched_policy_available(enum sched_policy_id id)
{
	return sched_policy_ops(id) != NULL;
}

/* include/linux/blkdev.h: BLKDEV_MAX_RQ, the legacy queue's nr_requests; blk-mq.h:
 * BLKDEV_DEFAULT_RQ, the cap on blk_mq_init_sched()'s 2 x the tag set's depth. */
#define BLKDEV_MAX_RQ 128
#define BLKDEV_DEFAULT_RQ 128

enum sched_blk_mode sched_config_blk_mode(const struct sched_config *cfg)
{
	const struct sched_policy_ops *ops = sched_policy_ops(cfg->policy);

	if (cfg->blk_mode != SCHED_BLK_DEFAULT)
		return cfg->blk_mode;
	return ops && ops->blk_mode == SCHED_BLK_LEGACY ? SCHED_BLK_LEGACY : SCHED_BLK_MQ;
}

bool sched_config_merge_any_prio(const struct sched_config *cfg)
{
	const struct sched_policy_ops *ops = sched_policy_ops(cfg->policy);

	return ops && ops->merge_any_prio && ops->merge_any_prio(cfg);
}

bool sched_config_per_group_rl(const struct sched_config *cfg)
{
	const struct sched_policy_ops *ops = sched_policy_ops(cfg->policy);

	return ops && ops->per_group_rl && ops->per_group_rl(cfg);
}

uint32_t sched_default_nr_requests(enum sched_blk_mode mode, uint32_t hw_queue_depth)
{
	if (mode == SCHED_BLK_LEGACY)
		return BLKDEV_MAX_RQ;
	return 2 * (hw_queue_depth < BLKDEV_DEFAULT_RQ ? hw_queue_depth : BLKDEV_DEFAULT_RQ);
}

void sched_policy_weights(enum sched_policy_id id, uint32_t *min, uint32_t *max, uint32_t *def)
{
	const struct sched_policy_ops *ops = sched_policy_ops(id);

	*min = ops && ops->weight_min ? ops->weight_min : SCHED_WEIGHT_MIN;
	*max = ops && ops->weight_max ? ops->weight_max : SCHED_WEIGHT_MAX;
	*def = ops && ops->weight_default ? ops->weight_default : SCHED_WEIGHT_DEFAULT;
}

void sched_config_defaults(struct sched_config *cfg, enum sched_policy_id id)
{
	const struct sched_policy_ops *ops = sched_policy_ops(id);
	uint32_t wmin, wmax, wdef;

	memset(cfg, 0, sizeof(*cfg));
	cfg->policy = id;
	cfg->hw_queue_depth = 32;
	cfg->rotational = true;
	cfg->nr_requests = SCHED_NR_REQUESTS_AUTO;
	cfg->max_entities = SCHED_MAX_ENTITIES;
	cfg->max_groups = SCHED_MAX_GROUPS;
	sched_policy_weights(id, &wmin, &wmax, &wdef);
	for (unsigned int g = 0; g < SCHED_MAX_GROUPS; g++)
		cfg->group_weight[g] = (uint16_t)wdef;
	if (ops)
		for (unsigned int i = 0; i < ops->nr_tunables; i++)
			cfg->tunable[i] = ops->tunables[i].def;
}

/* "4.12" -> 412, "2.6.32" -> 20632: a kernel version as M*100+m, or M*10000+m*100+p. */
static int parse_version(const char *s, int64_t *v)
{
	char *end;
	long long part[3] = {0, 0, 0};
	int n = 0;

	for (;;) {
		const char *p = s;

		errno = 0;
		part[n] = strtoll(p, &end, 10);
		if (errno || end == p || part[n] < 0 || (n && part[n] > 99))
			return -1;
		n++;
		if (*end != '.' || n == 3)
			break;
		s = end + 1;
	}
	if (*end)
		return -1;
	*v = n == 1 ? part[0] : n == 2 ? part[0] * 100 + part[1]
				       : (part[0] * 100 + part[1]) * 100 + part[2];
	return 0;
}

const char *sched_version_str(int64_t v, char *buf, size_t len)
{
	if (v >= 10000)
		snprintf(buf, len, "%lld.%lld.%lld", (long long)(v / 10000),
			 (long long)(v / 100 % 100), (long long)(v % 100));
	else
		snprintf(buf, len, "%lld.%lld", (long long)(v / 100), (long long)(v % 100));
	return buf;
}

const char *sched_versions_list(const struct sched_tunable_desc *d, char *buf, size_t len)
{
	size_t n = 0;
	int count = 0;

	buf[0] = 0;
	for (const int64_t *v = d->versions; v && *v; v++)
		count++;
	for (int i = 0; i < count && n < len; i++) {
		char one[24];
		int r = snprintf(buf + n, len - n, "%s%s", i ? (i == count - 1 ? " or " : ", ") : "",
				 sched_version_str(d->versions[i], one, sizeof(one)));

		if (r < 0)
			break;
		n += (size_t)r;
	}
	return buf;
}

int sched_tunable_parse(const struct sched_tunable_desc *d, const char *value, int64_t *v,
			char *err, size_t errlen)
{
	char *end;
	long long x;

	if (!strcmp(d->unit, "version")) {
		const int64_t *ok = NULL;

		if (!parse_version(value, v))
			for (ok = d->versions; ok && *ok && *ok != *v; ok++)
				;
		if (!ok || !*ok) {
			char list[160];

			snprintf(err, errlen, "%s=%s: must be %s", d->name, value,
				 sched_versions_list(d, list, sizeof(list)));
			return -1;
		}
		return 0;
	}
	errno = 0;
	x = strtoll(value, &end, 10);
	/* An integer past int64 is out of range, not a non-integer (kyber's targets: the kernel
	 * takes any u64, the core's tunables stop at 2^63-1). */
	if (errno == ERANGE && end != value && !*end) {
		snprintf(err, errlen, "%s=%s: out of range %" PRId64 "..%" PRId64 " %s", d->name,
			 value, d->min, d->max, d->unit);
		return -1;
	}
	if (errno || end == value || *end) {
		snprintf(err, errlen, "%s=%s: not an integer", d->name, value);
		return -1;
	}
	if (x < d->min || x > d->max) {
		snprintf(err, errlen, "%s=%s: out of range %" PRId64 "..%" PRId64 " %s", d->name,
			 value, d->min, d->max, d->unit);
		return -1;
	}
	*v = x;
	return 0;
}

int sched_config_set_tunable(struct sched_config *cfg, const char *name, const char *value,
			     char *err, size_t errlen)
{
	const struct sched_policy_ops *ops = sched_policy_ops(cfg->policy);
	int64_t v;

	if (!ops) {
		snprintf(err, errlen, "policy %d is not built", (int)cfg->policy);
		return -1;
	}
	for (unsigned int i = 0; i < ops->nr_tunables; i++) {
		const struct sched_tunable_desc *d = &ops->tunables[i];

		if (strcmp(d->name, name))
			continue;
		if (sched_tunable_parse(d, value, &v, err, errlen))
			return -1;
		cfg->tunable[i] = v;
		cfg->tunable_given[i] = true;
		return 0;
	}
	snprintf(err, errlen, "%s: no such tunable for sched=%s", name, ops->name);
	return -1;
}

int sched_config_check(const struct sched_config *cfg, char *err, size_t errlen)
{
	if (!sched_policy_ops(cfg->policy)) {
		snprintf(err, errlen, "sched=%s: not built yet",
			 (unsigned int)cfg->policy < SCHED_POLICY_NR ? policy_names[cfg->policy]
								     : "?");
		return -1;
	}
	if (cfg->impl > SCHED_IMPL_KERNEL || !sched_config_ops(cfg)) {
		snprintf(err, errlen, "sched=%s: the kernel's own code runs only in the oracle's "
			 "binaries (oracle/)", policy_names[cfg->policy]);
		return -1;
	}
	if (cfg->hw_queue_depth < 1 || cfg->hw_queue_depth > 65536) {
		snprintf(err, errlen, "hw_queue_depth=%u: out of range 1..65536", cfg->hw_queue_depth);
		return -1;
	}
	if (cfg->nr_requests && cfg->nr_requests != SCHED_NR_REQUESTS_AUTO &&
	    (cfg->nr_requests < 4 || cfg->nr_requests > 1048576)) {
		snprintf(err, errlen, "nr_requests=%u: out of range 4..1048576 (0 = unlimited)",
			 cfg->nr_requests);
		return -1;
	}
	if (cfg->blk_mode > SCHED_BLK_MQ) {
		snprintf(err, errlen, "blk_mode %d: unknown", (int)cfg->blk_mode);
		return -1;
	}
	if (cfg->trace_bytes > (64u << 20)) {
		snprintf(err, errlen, "trace ring of %u bytes: at most 64 MiB", cfg->trace_bytes);
		return -1;
	}
	if (cfg->max_entities < 1 || cfg->max_entities > SCHED_CORE_MAX_ENTITIES) {
		snprintf(err, errlen, "max_entities=%u: out of range 1..%u", cfg->max_entities,
			 SCHED_CORE_MAX_ENTITIES);
		return -1;
	}
	if (cfg->max_groups < 1 || cfg->max_groups > SCHED_MAX_GROUPS) {
		snprintf(err, errlen, "max_groups=%u: out of range 1..%u", cfg->max_groups,
			 SCHED_MAX_GROUPS);
		return -1;
	}
	uint32_t wmin, wmax, wdef;

	sched_policy_weights(cfg->policy, &wmin, &wmax, &wdef);
	for (unsigned int g = 0; g < cfg->max_groups; g++) {
		if (cfg->group_weight[g] < wmin || cfg->group_weight[g] > wmax) {
			snprintf(err, errlen, "group %u weight %u: out of range %u..%u for sched=%s",
				 g, cfg->group_weight[g], wmin, wmax, policy_names[cfg->policy]);
			return -1;
		}
	}
	{
		const struct sched_policy_ops *ops = sched_policy_ops(cfg->policy);

		if (ops->check && ops->check(cfg, err, errlen))
			return -1;
	}
	return 0;
}
