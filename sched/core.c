// SPDX-License-Identifier: GPL-2.0
/* The elevator core: device accounting, statistics, and the calls into the policy ops. */
#include <stdio.h>
#include <string.h>

#include "sched.h"

#define ALIGN16(x) (((x) + 15) & ~(size_t)15)

/* Owners whose statistics do not fit in struct sched_stats. */
static size_t nr_entity_more(const struct sched_config *cfg)
{
	return cfg->max_entities > SCHED_MAX_ENTITIES ? cfg->max_entities - SCHED_MAX_ENTITIES : 0;
}

size_t sched_size(const struct sched_config *cfg)
{
	const struct sched_policy_ops *ops = sched_config_ops(cfg);

	if (!ops)
		return 0;
	return ALIGN16(sizeof(struct sched)) + ALIGN16(ops->state_size(cfg)) +
	       ALIGN16(nr_entity_more(cfg) * sizeof(struct sched_entity_stats)) +
	       ALIGN16(sched_trace_size(cfg->trace_bytes));
}

static inline struct sched_entity_stats *entity_stats(struct sched *s, uint32_t owner)
{
	return owner < SCHED_MAX_ENTITIES ? &s->stats.entity[owner]
					  : &s->entity_more[owner - SCHED_MAX_ENTITIES];
}

struct sched *sched_init(void *mem, size_t size, const struct sched_config *cfg, uint64_t now,
			 char *err, size_t errlen)
{
	struct sched *s = mem;

	if (sched_config_check(cfg, err, errlen))
		return NULL;
	if (((uintptr_t)mem & 15) || size < sched_size(cfg)) {
		snprintf(err, errlen, "scheduler memory: %zu bytes given, %zu needed, 16-byte aligned",
			 size, sched_size(cfg));
		return NULL;
	}
	const struct sched_policy_ops *ops = sched_config_ops(cfg);
	size_t pol = ALIGN16(ops->state_size(cfg));
	size_t more = ALIGN16(nr_entity_more(cfg) * sizeof(struct sched_entity_stats));

	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->cfg.blk_mode = sched_config_blk_mode(cfg);
	s->dev.hw_queue_depth = cfg->hw_queue_depth;
	s->dev.rotational = cfg->rotational;
	s->dev.blk_mode = s->cfg.blk_mode;
	if (s->cfg.nr_requests == SCHED_NR_REQUESTS_AUTO)
		s->cfg.nr_requests = sched_default_nr_requests(s->cfg.blk_mode, cfg->hw_queue_depth);
	s->dev.nr_requests = s->cfg.nr_requests;
	s->stats.last_change_ns = now;
	sched_list_init(&s->bypass);
	s->policy = (char *)mem + ALIGN16(sizeof(struct sched));
	memset(s->policy, 0, pol);
	if (nr_entity_more(cfg)) {
		s->entity_more = (struct sched_entity_stats *)((char *)s->policy + pol);
		memset(s->entity_more, 0, more);
	}
	if (cfg->trace_bytes) {
		s->trace = (struct sched_trace *)((char *)s->policy + pol + more);
		sched_trace_init(s->trace, cfg->trace_bytes);
		s->dev.trace = s->trace;
	}
	if (ops->init(s->policy, &s->cfg, &s->dev, now)) {
		snprintf(err, errlen, "sched=%s: policy initialisation failed", ops->name);
		return NULL;
	}
	return s;
}

/* Charges the time since the last change to the current in-flight level. */
static void account_inflight(struct sched *s, uint64_t now)
{
	struct sched_stats *st = &s->stats;
	uint32_t b = s->dev.in_flight;

	if (b >= SCHED_INFLIGHT_BUCKETS)
		b = SCHED_INFLIGHT_BUCKETS - 1;
	if (now > st->last_change_ns) {
		st->inflight_ns[b] += now - st->last_change_ns;
		st->last_change_ns = now;
	}
}

void sched_stats_sync(struct sched *s, uint64_t now)
{
	account_inflight(s, now);
}

/* sched_insert(), or with mc the policy's merge core first (1: merged, not inserted). */
static int insert_core(struct sched *s, struct sched_request *rq, uint64_t now,
		       const struct sched_merge_limits *mc, bool plugged,
		       struct sched_merge_out *out)
{
	if (rq->owner >= s->cfg.max_entities || rq->group >= s->cfg.max_groups ||
	    rq->op >= SCHED_OP_NR || rq->prio_class > SCHED_IOPRIO_CLASS_IDLE ||
	    rq->prio_level >= SCHED_IOPRIO_NR_LEVELS)
		return -1;
	rq->insert_ns = now;
	rq->dispatch_ns = 0;
	sched_rb_clear(&rq->priv.rb);
	sched_list_init(&rq->priv.fifo);
	rq->priv.queue = NULL;
	if (rq->op == SCHED_OP_FLUSH)
		sched_list_add_tail(&rq->priv.fifo, &s->bypass);
	else if (mc && sched_ops(s)->core_insert(s->policy, rq, plugged, mc, now, out))
		return 1; /* merged into a queued request: never inserted */
	else if (!mc)
		sched_ops(s)->insert(s->policy, rq, now);
	s->queued++;
	s->stats.inserted++;
	entity_stats(s, rq->owner)->inserted++;
	return 0;
}

int sched_insert(struct sched *s, struct sched_request *rq, uint64_t now)
{
	return insert_core(s, rq, now, NULL, false, NULL);
}

int sched_core_insert(struct sched *s, struct sched_request *rq, bool plugged,
		      const struct sched_merge_limits *l, uint64_t now, struct sched_merge_out *out)
{
	return insert_core(s, rq, now, l, plugged, out);
}

bool sched_core_bio_merge(struct sched *s, struct sched_request *bio,
			  const struct sched_merge_limits *l, uint64_t now,
			  struct sched_merge_out *out)
{
	if (bio->owner >= s->cfg.max_entities || bio->group >= s->cfg.max_groups)
		return false;
	return sched_ops(s)->core_bio_merge(s->policy, bio, l, now, out);
}

struct sched_request *sched_dispatch(struct sched *s, uint64_t now)
{
	struct sched_request *rq;
	struct sched_entity_stats *es;
	uint64_t wait;

	if (s->dev.in_flight >= s->dev.hw_queue_depth || !s->queued)
		return NULL;
	if (!sched_list_empty(&s->bypass)) {
		rq = sched_list_first_entry(&s->bypass, struct sched_request, priv.fifo);
		sched_list_del_init(&rq->priv.fifo);
	} else {
		rq = sched_ops(s)->dispatch(s->policy, now);
		if (!rq)
			return NULL;
	}
	account_inflight(s, now);
	s->queued--;
	rq->dispatch_ns = now;
	/* Out of its sort tree: no longer a merge candidate (elv_latter_request() and the like
	 * look at linked nodes; the policies erase without clearing). */
	sched_rb_clear(&rq->priv.rb);

	s->dev.in_flight++;
	s->dev.in_flight_dir[sched_rq_dir(rq)]++;
	if (sched_rq_is_sync(rq))
		s->dev.in_flight_sync++;
	if (s->dev.in_flight > s->stats.max_in_flight)
		s->stats.max_in_flight = s->dev.in_flight;
	s->stats.dispatched++;
	es = entity_stats(s, rq->owner);
	es->dispatched++;
	wait = now - rq->insert_ns;
	es->wait_ns += wait;
	if (wait > es->max_wait_ns)
		es->max_wait_ns = wait;
	return rq;
}

bool sched_completed(struct sched *s, struct sched_request *rq, uint64_t now)
{
	struct sched_entity_stats *es = entity_stats(s, rq->owner);

	account_inflight(s, now);
	s->dev.in_flight--;
	s->dev.in_flight_dir[sched_rq_dir(rq)]--;
	if (sched_rq_is_sync(rq))
		s->dev.in_flight_sync--;
	s->stats.completed++;
	es->completed++;
	es->bytes += rq->length;
	es->service_ns += now - rq->dispatch_ns;
	if (rq->op == SCHED_OP_FLUSH)
		return false; /* never the elevator's: its completion hook is not called */
	return sched_ops(s)->completed(s->policy, rq, now);
}

void sched_run_timer(struct sched *s, uint64_t now)
{
	if (now < sched_next_timer(s) || !sched_ops(s)->timer)
		return;
	s->stats.timer_runs++;
	sched_ops(s)->timer(s->policy, now);
}

void sched_entity_exit(struct sched *s, uint32_t owner, uint64_t now)
{
	const struct sched_policy_ops *ops = sched_ops(s);

	if (owner < s->cfg.max_entities && ops->entity_exit)
		ops->entity_exit(s->policy, owner, now);
}

int sched_set_group_weight(struct sched *s, uint32_t group, uint32_t weight)
{
	uint32_t wmin, wmax, wdef;

	sched_policy_weights(s->cfg.policy, &wmin, &wmax, &wdef);
	if (group >= s->cfg.max_groups || weight < wmin || weight > wmax)
		return -1;
	s->cfg.group_weight[group] = (uint16_t)weight;
	if (sched_ops(s)->set_group_weight)
		sched_ops(s)->set_group_weight(s->policy, group, weight);
	return 0;
}

bool sched_may_queue_must(struct sched *s, uint32_t owner, bool sync)
{
	const struct sched_policy_ops *ops = sched_ops(s);

	if (owner >= s->cfg.max_entities || !ops->may_queue_must)
		return false;
	return ops->may_queue_must(s->policy, owner, sync);
}

uint32_t sched_limit_depth(struct sched *s, const struct sched_request *rq)
{
	const struct sched_policy_ops *ops = sched_ops(s);

	return ops->limit_depth ? ops->limit_depth(s->policy, rq) : 0;
}

int64_t sched_tunable_value(const struct sched *s, unsigned int idx)
{
	const struct sched_policy_ops *ops = sched_ops(s);

	return ops->tunable_value ? ops->tunable_value(s->policy, idx) : s->cfg.tunable[idx];
}

/* ---- merging ---- */

bool sched_allow_bio_merge(struct sched *s, const struct sched_request *rq,
			   const struct sched_request *bio, uint64_t now)
{
	const struct sched_policy_ops *ops = sched_ops(s);

	return !ops->allow_bio_merge || ops->allow_bio_merge(s->policy, rq, bio, now);
}

struct sched_request *sched_request_merge(struct sched *s, const struct sched_request *bio,
					  uint64_t now)
{
	const struct sched_policy_ops *ops = sched_ops(s);

	if (!ops->request_merge || bio->owner >= s->cfg.max_entities ||
	    bio->group >= s->cfg.max_groups)
		return NULL;
	return ops->request_merge(s->policy, bio, now);
}

void sched_request_merged(struct sched *s, struct sched_request *rq, enum sched_merge type,
			  uint64_t now)
{
	const struct sched_policy_ops *ops = sched_ops(s);

	if (ops->request_merged)
		ops->request_merged(s->policy, rq, type, now);
}

bool sched_allow_rq_merge(struct sched *s, const struct sched_request *rq,
			  const struct sched_request *next)
{
	const struct sched_policy_ops *ops = sched_ops(s);

	return !ops->allow_rq_merge || ops->allow_rq_merge(s->policy, rq, next);
}

void sched_requests_merged(struct sched *s, struct sched_request *rq, struct sched_request *next,
			   bool queued, uint64_t now)
{
	const struct sched_policy_ops *ops = sched_ops(s);

	if (!queued) {
		/* Never inserted: the fields the insert would have set. */
		next->insert_ns = now;
		next->dispatch_ns = 0;
		sched_rb_clear(&next->priv.rb);
		sched_list_init(&next->priv.fifo);
		next->priv.queue = NULL;
	}
	if (next->insert_ns < rq->insert_ns)
		rq->insert_ns = next->insert_ns;
	if (ops->requests_merged && (queued || s->dev.blk_mode == SCHED_BLK_MQ))
		ops->requests_merged(s->policy, rq, next, queued, now);
	sched_rb_clear(&next->priv.rb);
	if (queued) {
		s->queued--;
		s->stats.rq_merged++;
		entity_stats(s, next->owner)->rq_merged++;
	} else {
		/* Never inserted (a plugged request's insert merge): it joined as a bio does. */
		s->stats.bio_merged++;
		entity_stats(s, next->owner)->bio_merged++;
	}
}

unsigned int sched_bio_merge_list(struct sched *s, const struct sched_request *bio,
				  struct sched_request **out, unsigned int max)
{
	const struct sched_policy_ops *ops = sched_ops(s);

	if (!ops->bio_merge_list || bio->owner >= s->cfg.max_entities ||
	    bio->group >= s->cfg.max_groups)
		return 0;
	return ops->bio_merge_list(s->policy, bio, out, max);
}

void sched_bio_merged(struct sched *s, struct sched_request *rq, const struct sched_request *bio)
{
	const struct sched_policy_ops *ops = sched_ops(s);

	s->stats.bio_merged++;
	if (bio->owner < s->cfg.max_entities)
		entity_stats(s, bio->owner)->bio_merged++;
	if (ops->bio_merged)
		ops->bio_merged(s->policy, rq, bio);
}

struct sched_request *sched_elv_rb_find(const struct sched_rb_root *root, uint64_t sector)
{
	struct sched_rb_node *n = root->root;

	while (n) {
		struct sched_request *rq = sched_rb_entry(n, struct sched_request, priv.rb);

		if (sector < sched_rq_pos(rq))
			n = n->left;
		else if (sector > sched_rq_pos(rq))
			n = n->right;
		else
			return rq;
	}
	return NULL;
}

struct sched_request *sched_latter_request(const struct sched *s, struct sched_request *rq)
{
	struct sched_rb_node *n;

	(void)s;
	if (!sched_rq_queued(rq))
		return NULL;
	n = sched_rb_next(&rq->priv.rb);
	return n ? sched_rb_entry(n, struct sched_request, priv.rb) : NULL;
}

struct sched_request *sched_former_request(const struct sched *s, struct sched_request *rq)
{
	struct sched_rb_node *n;

	(void)s;
	if (!sched_rq_queued(rq))
		return NULL;
	n = sched_rb_prev(&rq->priv.rb);
	return n ? sched_rb_entry(n, struct sched_request, priv.rb) : NULL;
}
