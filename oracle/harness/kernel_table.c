// SPDX-License-Identifier: GPL-2.0
/*
 * sched_kernel_policy_table: what SCHED_IMPL_KERNEL runs in the oracle's binaries. One ops table
 * per policy forwards to the variant chosen for it (oracle_select()); the variant's state
 * starts with its own ops table (adapt/), so the calls that get only the state find it there.
 */
#include <string.h>

#include "oracle.h"

#define X(id, pol, ver, adapter) extern const struct sched_policy_ops oracle_##id##_ops;
#include "variants.h"
#undef X

const struct oracle_variant oracle_variants[] = {
#define X(id, pol, ver, adapter) {#id, SCHED_POLICY_##pol, ver, #adapter, &oracle_##id##_ops},
#include "variants.h"
#undef X
};
const unsigned int oracle_nr_variants = sizeof(oracle_variants) / sizeof(oracle_variants[0]);

static const struct sched_policy_ops *chosen[SCHED_POLICY_NR];

const struct oracle_variant *oracle_variant_by_name(const char *name)
{
	for (unsigned int i = 0; i < oracle_nr_variants; i++)
		if (!strcmp(oracle_variants[i].id, name))
			return &oracle_variants[i];
	return NULL;
}

const struct oracle_variant *oracle_variant_for(enum sched_policy_id policy, const char *version,
						bool legacy)
{
	for (unsigned int i = 0; i < oracle_nr_variants; i++)
		if (oracle_variants[i].policy == policy && !strcmp(oracle_variants[i].version, version) &&
		    !strcmp(oracle_variants[i].adapter, "sq") == legacy)
			return &oracle_variants[i];
	return NULL;
}

void oracle_select(const struct oracle_variant *v)
{
	chosen[v->policy] = v->ops;
}

static const struct sched_policy_ops *of(const void *st)
{
	return *(const struct sched_policy_ops *const *)st;
}

static size_t t_state_size(const struct sched_config *cfg)
{
	return chosen[cfg->policy] ? chosen[cfg->policy]->state_size(cfg) : 0;
}

static int t_init(void *st, const struct sched_config *cfg, const struct sched_device *dev,
		  uint64_t now)
{
	return chosen[cfg->policy] ? chosen[cfg->policy]->init(st, cfg, dev, now) : -1;
}

static void t_insert(void *st, struct sched_request *rq, uint64_t now)
{
	of(st)->insert(st, rq, now);
}

static struct sched_request *t_dispatch(void *st, uint64_t now)
{
	return of(st)->dispatch(st, now);
}

static bool t_completed(void *st, struct sched_request *rq, uint64_t now)
{
	return of(st)->completed(st, rq, now);
}

static uint64_t t_next_timer(const void *st)
{
	return of(st)->next_timer ? of(st)->next_timer(st) : SCHED_NO_TIMER;
}

static void t_timer(void *st, uint64_t now)
{
	if (of(st)->timer)
		of(st)->timer(st, now);
}

static bool t_has_work(const void *st)
{
	return of(st)->has_work(st);
}

static void t_entity_exit(void *st, uint32_t owner, uint64_t now)
{
	if (of(st)->entity_exit)
		of(st)->entity_exit(st, owner, now);
}

static void t_set_group_weight(void *st, uint32_t group, uint32_t weight)
{
	if (of(st)->set_group_weight)
		of(st)->set_group_weight(st, group, weight);
}

static void t_emit_stats(const void *st, sched_stat_fn emit, void *ctx)
{
	if (of(st)->emit_stats)
		of(st)->emit_stats(st, emit, ctx);
}

static bool t_may_queue_must(void *st, uint32_t owner, bool sync)
{
	return of(st)->may_queue_must ? of(st)->may_queue_must(st, owner, sync) : false;
}

static uint32_t t_limit_depth(void *st, const struct sched_request *rq)
{
	return of(st)->limit_depth ? of(st)->limit_depth(st, rq) : 0;
}

static int64_t t_tunable_value(const void *st, unsigned int idx)
{
	return of(st)->tunable_value(st, idx);
}

/* The block core's merge path of the variant's adapter (adapt/merge_core.c); a variant without
 * one merges nothing in its elevator (its insertions are plain). */
static bool t_core_bio_merge(void *st, struct sched_request *bio,
			     const struct sched_merge_limits *l, uint64_t now,
			     struct sched_merge_out *out)
{
	return of(st)->core_bio_merge && of(st)->core_bio_merge(st, bio, l, now, out);
}

static bool t_core_insert(void *st, struct sched_request *rq, bool plugged,
			  const struct sched_merge_limits *l, uint64_t now,
			  struct sched_merge_out *out)
{
	if (of(st)->core_insert)
		return of(st)->core_insert(st, rq, plugged, l, now, out);
	of(st)->insert(st, rq, now);
	return false;
}

#define TABLE(pol)                                                                                 \
	static const struct sched_policy_ops kernel_##pol = {                                      \
	    .name = #pol " (kernel)",                                                              \
	    .state_size = t_state_size,                                                            \
	    .init = t_init,                                                                        \
	    .insert = t_insert,                                                                    \
	    .dispatch = t_dispatch,                                                                \
	    .completed = t_completed,                                                              \
	    .next_timer = t_next_timer,                                                            \
	    .timer = t_timer,                                                                      \
	    .has_work = t_has_work,                                                                \
	    .entity_exit = t_entity_exit,                                                          \
	    .set_group_weight = t_set_group_weight,                                                \
	    .emit_stats = t_emit_stats,                                                            \
	    .may_queue_must = t_may_queue_must,                                                    \
	    .limit_depth = t_limit_depth,                                                          \
	    .tunable_value = t_tunable_value,                                                      \
	    .core_bio_merge = t_core_bio_merge,                                                    \
	    .core_insert = t_core_insert,                                                          \
	}
TABLE(none);
TABLE(deadline);
TABLE(cfq);
TABLE(bfq);
TABLE(kyber);

const struct sched_policy_ops *const sched_kernel_policy_table[SCHED_POLICY_NR] = {
    [SCHED_POLICY_NONE] = &kernel_none,
    [SCHED_POLICY_DEADLINE] = &kernel_deadline,
    [SCHED_POLICY_CFQ] = &kernel_cfq,
    [SCHED_POLICY_BFQ] = &kernel_bfq,
    [SCHED_POLICY_KYBER] = &kernel_kyber,
};
