// SPDX-License-Identifier: GPL-2.0
/* The block layer: request allocation (legacy lists, blk-mq tags), dispatch, the timeline. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "blk.h"
#include "merge.h"

#define ALIGN16(x) (((x) + 15) & ~(size_t)15)

/* ---- layout ------------------------------------------------------------------------------- */

/* lib/sbitmap.c sbitmap_calculate_shift(): small maps use shorter words. */
static uint32_t tag_shift_for(uint32_t depth)
{
	uint32_t shift = 6;

	if (depth >= 4)
		while ((4u << shift) > depth)
			shift--;
	return shift;
}

static uint32_t tag_words_for(uint32_t depth)
{
	uint32_t bpw = 1u << tag_shift_for(depth);

	return depth ? (depth + bpw - 1) / bpw : 0;
}

/* The scheduler's configuration with AUTO resolved, as sched_init() will see it. */
static struct sched_config resolved(const struct sched_config *cfg)
{
	struct sched_config c = *cfg;

	c.blk_mode = sched_config_blk_mode(cfg);
	if (c.nr_requests == SCHED_NR_REQUESTS_AUTO)
		c.nr_requests = sched_default_nr_requests(c.blk_mode, c.hw_queue_depth);
	return c;
}

struct layout {
	size_t ioc, rl, tags, sched, model, total;
};

/* LEGACY: room for a list per group (whether the queue uses them is decided at init). */
static uint32_t rl_slots(const struct sched_config *c)
{
	if (c->blk_mode != SCHED_BLK_LEGACY)
		return 0;
	return c->max_groups > 1 ? c->max_groups : 1;
}

static int layout_of(const struct sched_config *cfg, const struct blk_params *p, struct layout *l)
{
	struct sched_config c = resolved(cfg);
	size_t ss = sched_size(&c), ms = 0;

	if (!ss)
		return -1;
	if (p->model) {
		ms = devmodel_size(p->model);
		if (!ms)
			return -1;
	}
	l->ioc = ALIGN16(sizeof(struct blk_queue));
	l->rl = l->ioc + ALIGN16((size_t)c.max_entities * sizeof(struct blk_ioc));
	l->tags = l->rl + ALIGN16((size_t)rl_slots(&c) * sizeof(struct blk_rl));
	l->sched = l->tags +
		   ALIGN16((size_t)(c.blk_mode == SCHED_BLK_MQ ? tag_words_for(c.nr_requests) : 0) *
			   sizeof(uint64_t));
	l->model = l->sched + ALIGN16(ss);
	l->total = l->model + ALIGN16(ms);
	return 0;
}

size_t blk_size(const struct sched_config *cfg, const struct blk_params *p)
{
	struct layout l;

	return layout_of(cfg, p, &l) ? 0 : l.total;
}

void blk_params_defaults(struct blk_params *p)
{
	memset(p, 0, sizeof(*p));
	p->nr_batching = BLK_BATCH_REQ;
	p->batch_time_ns = BLK_BATCH_TIME_NS;
	p->kblockd_ns = BLK_KBLOCKD_NS;
	/* The kernel's default: every merge (with a device model only, see blk_init()). */
	p->nomerges = 0;
	p->max_sectors_kb = BLK_DEF_MAX_SECTORS_KB;
	p->max_segments = BLK_DEF_MAX_SEGMENTS;
	p->per_group_rl = BLK_PER_GROUP_RL_AUTO;
}

struct blk_queue *blk_init(void *mem, size_t size, const struct sched_config *cfg,
			   const struct blk_params *p, uint64_t now, char *err, size_t errlen)
{
	struct blk_queue *q = mem;
	struct layout l;
	char *base = mem;

	if (sched_config_check(cfg, err, errlen))
		return NULL;
	if (p->model && devmodel_params_check(p->model, err, errlen))
		return NULL;
	if (layout_of(cfg, p, &l)) {
		snprintf(err, errlen,
			 "block layer: invalid scheduler or device model configuration");
		return NULL;
	}
	if (((uintptr_t)mem & 15) || size < l.total) {
		snprintf(err, errlen,
			 "block layer memory: %zu bytes given, %zu needed, 16-byte aligned", size,
			 l.total);
		return NULL;
	}
	if (p->nomerges > BLK_NOMERGES_MAX) {
		snprintf(err, errlen,
			 "nomerges=%u: 0 (all merges), 1 (one-hit cache only) or 2 (none)",
			 p->nomerges);
		return NULL;
	}
	if (p->per_group_rl < BLK_PER_GROUP_RL_AUTO || p->per_group_rl > 1) {
		snprintf(err, errlen, "per_group_rl=%d: -1 (the policy's profile), 0 or 1",
			 p->per_group_rl);
		return NULL;
	}
	if (p->max_sectors_kb && p->max_sectors_kb < 4) {
		snprintf(err, errlen, "max_sectors_kb=%u: at least 4 (a page)", p->max_sectors_kb);
		return NULL;
	}
	if (p->model && cfg->hw_queue_depth > p->model->queue_depth) {
		snprintf(err, errlen, "hw_queue_depth=%u is more than the device model holds (%u)",
			 cfg->hw_queue_depth, p->model->queue_depth);
		return NULL;
	}
	memset(q, 0, l.sched);
	q->s = sched_init(base + l.sched, l.model - l.sched, cfg, now, err, errlen);
	if (!q->s)
		return NULL;
	q->mode = q->s->cfg.blk_mode;
	q->nr_requests = q->s->cfg.nr_requests;
	q->nr_batching = p->nr_batching;
	q->batch_time_ns = p->batch_time_ns;
	q->kblockd_ns = p->kblockd_ns;
	q->run_at = SCHED_NO_TIMER;
	q->kick = false;
	q->clock = now;
	q->ioc = (struct blk_ioc *)(base + l.ioc);
	q->merge_any_prio = sched_config_merge_any_prio(cfg);
	if (q->mode == SCHED_BLK_LEGACY) {
		struct sched_config c = resolved(cfg);

		/* blk_get_rl(): a list per blkg from 3.6, as the policy's profile says. */
		q->per_group_rl = p->per_group_rl == BLK_PER_GROUP_RL_AUTO
				      ? sched_config_per_group_rl(cfg)
				      : p->per_group_rl != 0;
		q->nr_rl = q->per_group_rl ? rl_slots(&c) : 1;
		q->rl = (struct blk_rl *)(base + l.rl);
		for (uint32_t i = 0; i < q->nr_rl; i++) {
			sched_list_init(&q->rl[i].waiting[0]);
			sched_list_init(&q->rl[i].waiting[1]);
		}
	}
	sched_list_init(&q->tag_waiting);
	if (q->mode == SCHED_BLK_MQ && q->nr_requests) {
		q->tag_shift = tag_shift_for(q->nr_requests);
		q->tag_words = tag_words_for(q->nr_requests);
		q->tag_map = (uint64_t *)(base + l.tags);
	}
	if (p->model) {
		q->model = devmodel_create_in(base + l.model, l.total - l.model, p->model, now);
		if (!q->model) {
			snprintf(err, errlen, "device_model=%s: cannot be built",
				 devmodel_kind_name(p->model->kind));
			return NULL;
		}
	}
	blk_merge_init(q, p);
	return q;
}

void blk_rq_init(struct blk_rq *r)
{
	r->state = BLK_RQ_IDLE;
	r->list = 0;
	r->rl = 0;
	r->tag = -1;
	r->wait_start = 0;
	sched_list_init(&r->wait);
	/* A request of its own, on no list (its range is taken at blk_submit()). */
	r->head = r;
	r->nomerge = false;
	r->merge_tried = false;
	sched_list_init(&r->bios);
	sched_list_init(&r->bio_node);
	sched_list_init(&r->hash);
}

/* ---- trace -------------------------------------------------------------------------------- */

static void trace_rq(struct blk_queue *q, uint64_t now, char action, const struct blk_rq *r)
{
	static const char ops[] = {'R', 'W', 'F', 'T'};
	const struct sched_request *rq = &r->rq;

	if (!sched_trace_on(q->s->trace))
		return;
	sched_trace_printf(q->s->trace, now, "job%u %c %c%s %" PRIu64 " + %" PRIu64, rq->owner,
			   action, ops[rq->op & 3], sched_rq_is_sync(rq) ? "S" : "",
			   sched_rq_pos(rq), sched_rq_sectors(rq));
}

static void trace_merge(struct blk_queue *q, uint64_t now, const struct blk_rq *bio)
{
	static const char act[BLK_MERGE_NR] = {'p', 'M', 'F', 'm'};
	struct blk_rq r = *bio;

	r.rq.offset = bio->bio_offset;
	r.rq.length = bio->bio_length;
	trace_rq(q, now, act[bio->merged < BLK_MERGE_NR ? bio->merged : 0], &r);
}

void blk_trace_rq_merged(struct blk_queue *q, uint64_t now, const struct blk_rq *next)
{
	trace_rq(q, now, 'm', next);
}

/* ---- LEGACY: request lists (blk-core.c, 4.19) --------------------------------------------- */

/* ioc_batching(): within its batch (its first request always, then BLK_BATCH_TIME). */
static bool ioc_batching(const struct blk_queue *q, const struct blk_ioc *ioc, uint64_t now)
{
	return q->nr_batching && (ioc->nr_batch == q->nr_batching ||
				  (ioc->nr_batch && now < ioc->last_waited + q->batch_time_ns));
}

static void ioc_set_batching(struct blk_queue *q, struct blk_ioc *ioc, uint64_t now)
{
	if (!q->nr_batching || ioc_batching(q, ioc, now))
		return;
	ioc->nr_batch = q->nr_batching;
	ioc->last_waited = now;
}

/* blk_get_rl(): the request's group's list (the root group's: q->root_rl), or the one list. */
static struct blk_rl *rl_of(struct blk_queue *q, const struct blk_rq *r)
{
	return &q->rl[blk_rl_index(q, r->rq.group)];
}

/*
 * __get_request(): may this request take one of nr_requests of its list now? The elevator is
 * asked every time (CFQ spends its once-per-slice ELV_MQUEUE_MUST there). The allocation that
 * fills the list makes its process the batcher; past a full list only batchers and MUST
 * allocate, and nobody beyond 1.5 x nr_requests. All of it per request list: the fullness, the
 * batcher's licence is its process's (ioc) whatever list it fills. rl->starved is not kept: the
 * kernel sets it only on ELV_MQUEUE_NO (no policy here says NO) or a mempool failure.
 */
static bool legacy_may_allocate(struct blk_queue *q, struct blk_rq *r, bool sync, uint64_t now)
{
	struct blk_ioc *ioc = &q->ioc[r->rq.owner];
	struct blk_rl *rl = rl_of(q, r);
	uint32_t nr = q->nr_requests, count = rl->count[sync];
	bool must;

	if (!nr)
		return true;
	must = sched_may_queue_must(q->s, r->rq.owner, sync);
	if (count + 1 >= nr) {
		if (!rl->full[sync]) {
			ioc_set_batching(q, ioc, now);
			rl->full[sync] = true;
		} else if (!ioc_batching(q, ioc, now)) {
			if (!must)
				return false;
			if (count < 3 * nr / 2)
				q->st.admitted_must++;
		} else if (count >= nr && count < 3 * nr / 2) {
			q->st.admitted_batching++;
		}
	}
	if (count >= 3 * nr / 2)
		return false;
	if (ioc_batching(q, ioc, now))
		ioc->nr_batch--;
	return true;
}

/* ---- MQ: scheduler tags (blk-mq-tag.c, lib/sbitmap.c, 6.x) --------------------------------- */

static uint32_t tag_word_depth(const struct blk_queue *q, uint32_t w)
{
	uint32_t bpw = 1u << q->tag_shift;

	return w + 1 < q->tag_words ? bpw : q->nr_requests - w * bpw;
}

/* __map_depth_with_shallow(): a shallow depth is spread over the words in proportion. */
static uint32_t tag_word_limit(const struct blk_queue *q, uint32_t w, uint32_t shallow)
{
	uint32_t wd = tag_word_depth(q, w);
	uint64_t d;
	uint32_t rem;

	if (!shallow || shallow >= q->nr_requests)
		return wd;
	d = (uint64_t)wd * shallow;
	rem = (uint32_t)(d % q->nr_requests);
	d /= q->nr_requests;
	if (rem >= (w + 1) * wd)
		d++;
	return (uint32_t)d;
}

/* The lowest free tag within the shallow depth (the kernel starts at a per-CPU hint). */
static int tag_find(const struct blk_queue *q, uint32_t shallow)
{
	for (uint32_t w = 0; w < q->tag_words; w++) {
		uint32_t lim = tag_word_limit(q, w, shallow);
		uint64_t free = ~q->tag_map[w];

		if (lim < 64)
			free &= (1ull << lim) - 1;
		if (free)
			return (int)((w << q->tag_shift) + (uint32_t)__builtin_ctzll(free));
	}
	return -1;
}

static bool rq_is_flush(const struct sched_request *rq)
{
	return rq->op == SCHED_OP_FLUSH;
}

static bool mq_may_allocate(struct blk_queue *q, struct blk_rq *r)
{
	uint32_t shallow;
	int tag;

	if (!q->nr_requests)
		return true;
	/* __blk_mq_alloc_requests(): flushes are not limited. */
	shallow = rq_is_flush(&r->rq) ? 0 : sched_limit_depth(q->s, &r->rq);
	tag = tag_find(q, shallow);
	if (tag < 0) {
		if (shallow && tag_find(q, 0) >= 0)
			q->st.shallow_limited++;
		return false;
	}
	q->tag_map[tag >> q->tag_shift] |= 1ull << (tag & ((1u << q->tag_shift) - 1));
	r->tag = tag;
	if (++q->tags_used > q->st.max_allocated[0])
		q->st.max_allocated[0] = q->tags_used;
	return true;
}

static void mq_free_tag(struct blk_queue *q, struct blk_rq *r)
{
	if (r->tag < 0)
		return;
	q->tag_map[r->tag >> q->tag_shift] &= ~(1ull << (r->tag & ((1u << q->tag_shift) - 1)));
	q->tags_used--;
	r->tag = -1;
}

/* ---- allocation and admission ------------------------------------------------------------- */

static bool may_allocate(struct blk_queue *q, struct blk_rq *r, uint64_t now)
{
	if (q->mode == SCHED_BLK_MQ)
		return mq_may_allocate(q, r);
	return legacy_may_allocate(q, r, sched_rq_is_sync(&r->rq), now);
}

/* The request holds its request (or tag) from here until it completes. */
static void take_slot(struct blk_queue *q, struct blk_rq *r)
{
	if (q->mode == SCHED_BLK_LEGACY) {
		struct blk_rl *rl;

		r->list = sched_rq_is_sync(&r->rq);
		r->rl = (uint8_t)blk_rl_index(q, r->rq.group);
		rl = &q->rl[r->rl];
		q->allocated[r->list]++;
		if (++rl->count[r->list] > q->st.max_allocated[r->list])
			q->st.max_allocated[r->list] = rl->count[r->list];
	}
}

/* LEGACY: the request goes back to the list it came from (freed_request()'s counts). */
static struct blk_rl *legacy_put(struct blk_queue *q, struct blk_rq *r)
{
	struct blk_rl *rl = &q->rl[r->rl];

	q->allocated[r->list]--;
	rl->count[r->list]--;
	return rl;
}

/* Into the elevator with the request or tag it holds. */
static int insert(struct blk_queue *q, struct blk_rq *r, uint64_t now, bool plugged)
{
	int rc;

	if (sched_has_merge_core(q->s) && r->rq.op != SCHED_OP_FLUSH) {
		/* The policy's own core may merge it instead (the oracle's kernel side). */
		rc = blk_merge_core_insert(q, r, plugged, now);
		if (rc == 1)
			return 1;
		if (!rc)
			trace_rq(q, now, 'I', r);
	} else {
		/* blk-mq's elevators (dd_insert_request(), bfq_insert_request()) try every
		 * insertion as an insert merge, without the elevator's allow_merge; the legacy
		 * elevator only a plug's (ELEVATOR_INSERT_SORT_MERGE, tried by plug_flush()). */
		if (!plugged && q->mode == SCHED_BLK_MQ && blk_merge_insert(q, r, now))
			return 1;
		trace_rq(q, now, 'I', r);
		blk_merge_before_insert(q);
		rc = sched_insert(q->s, &r->rq, now);
	}
	if (rc) {
		if (q->mode == SCHED_BLK_LEGACY)
			legacy_put(q, r);
		else
			mq_free_tag(q, r);
		return -1;
	}
	r->state = BLK_RQ_QUEUED;
	blk_merge_inserted(q, r);
	return 0;
}

static int admit(struct blk_queue *q, struct blk_rq *r, uint64_t now)
{
	take_slot(q, r);
	return insert(q, r, now, false);
}

/* ---- the plug (blk_start_plug(), blk_flush_plug()) ----------------------------------------- */

static void wake_waiters(struct blk_queue *q, uint64_t at, const struct blk_host *h);

void blk_plug_start(struct blk_queue *q, uint32_t owner)
{
	struct blk_ioc *ioc;

	/* The plug holds requests whatever queue/nomerges says: only its merge
	 * (blk_attempt_plug_merge()) and a flush's insert merge are gated by it. */
	if (owner >= q->s->cfg.max_entities)
		return;
	ioc = &q->ioc[owner];
	if (ioc->plugging)
		return; /* a nested plug: the outer one holds */
	ioc->plugging = true;
	ioc->plug_count = 0;
	sched_list_init(&ioc->plug);
}

/* The plug's requests into the elevator in order, each an insert merge if it can. Returns how
 * many were merged away (their requests or tags freed). */
static uint32_t plug_flush(struct blk_queue *q, struct blk_ioc *ioc, uint64_t now)
{
	uint32_t merged = 0;

	if (sched_list_empty(&ioc->plug))
		return 0;
	q->st.plug_flushes++;
	while (!sched_list_empty(&ioc->plug)) {
		struct blk_rq *r = sched_list_first_entry(&ioc->plug, struct blk_rq, wait);
		int rc;

		sched_list_del_init(&r->wait);
		ioc->plug_count--;
		r->state = BLK_RQ_IDLE;
		if (blk_merge_insert(q, r, now)) {
			merged++;
			continue;
		}
		rc = insert(q, r, now, true);
		if (rc < 0)
			blk_release_slot(q, r); /* cannot happen: the core accepted it */
		else if (rc == 1)
			merged++; /* by the policy's own core */
	}
	return merged;
}

void blk_plug_finish(struct blk_queue *q, uint32_t owner, uint64_t now, const struct blk_host *h)
{
	struct blk_ioc *ioc;
	uint32_t merged;

	if (owner >= q->s->cfg.max_entities)
		return;
	ioc = &q->ioc[owner];
	if (!ioc->plugging)
		return;
	if (now < q->clock)
		now = q->clock;
	merged = plug_flush(q, ioc, now);
	ioc->plugging = false;
	if (!ioc->nr_waiting)
		ioc->plug_asleep = false;
	/* Insert merges may have freed requests or tags: their waiters are woken, as a freed tag
	 * wakes them (sbitmap_queue_clear()). Nobody is woken otherwise: a waiter woken for
	 * nothing would retry its merge and its allocation (under a shallow depth that may have
	 * changed) at a moment the kernel never wakes it. */
	if (merged)
		wake_waiters(q, now, h);
}

/*
 * A full plug is flushed first: at the era's request count whatever nomerges says; behind a
 * request of BLK_PLUG_FLUSH_SIZE in 4.19's legacy blk_queue_bio() always, in 6.x's
 * blk_add_rq_to_plug() only while merging (!blk_queue_nomerges()).
 */
static void plug_add(struct blk_queue *q, struct blk_ioc *ioc, struct blk_rq *r, uint64_t now)
{
	if (!sched_list_empty(&ioc->plug)) {
		const struct blk_rq *last = sched_list_entry(ioc->plug.prev, struct blk_rq, wait);
		bool size_rule = q->mode == SCHED_BLK_LEGACY || blk_merging(q);

		if (ioc->plug_count >= q->plug_max_rq ||
		    (size_rule && last->rq.length >= BLK_PLUG_FLUSH_SIZE)) {
			q->st.plug_limit_flushes++;
			plug_flush(q, ioc, now);
		}
	}
	take_slot(q, r);
	r->state = BLK_RQ_PLUGGED;
	sched_list_add_tail(&r->wait, &ioc->plug);
	ioc->plug_count++;
}

static struct sched_list *wait_list(struct blk_queue *q, const struct blk_rq *r)
{
	return q->mode == SCHED_BLK_MQ ? &q->tag_waiting
				       : &rl_of(q, r)->waiting[sched_rq_is_sync(&r->rq)];
}

static void start_wait(struct blk_queue *q, struct blk_rq *r, uint64_t now)
{
	r->state = BLK_RQ_WAITING;
	r->wait_start = now;
	sched_list_add_tail(&r->wait, wait_list(q, r));
	/* Read without the lock by its job (se_blocked): a relaxed atomic, the lock orders the
	 * rest. */
	__atomic_store_n(&q->ioc[r->rq.owner].nr_waiting, q->ioc[r->rq.owner].nr_waiting + 1,
			 __ATOMIC_RELAXED);
	q->st.admission_waits++;
	if (++q->st.nr_waiting > q->st.max_waiting)
		q->st.max_waiting = q->st.nr_waiting;
	trace_rq(q, now, 'S', r);
}

static void end_wait(struct blk_queue *q, struct blk_rq *r)
{
	sched_list_del_init(&r->wait);
	__atomic_store_n(&q->ioc[r->rq.owner].nr_waiting, q->ioc[r->rq.owner].nr_waiting - 1,
			 __ATOMIC_RELAXED);
	q->st.nr_waiting--;
	r->state = BLK_RQ_IDLE;
}

int blk_submit(struct blk_queue *q, struct blk_rq *r, uint64_t now, const struct blk_host *h)
{
	struct blk_ioc *ioc;
	int rc;

	if (r->rq.owner >= q->s->cfg.max_entities)
		return -1;
	if (now < q->clock)
		now = q->clock;
	/* What is inserted at now is in the queue's past from here: a device event still due
	 * before now (a caller advancing with a clock it read earlier) is processed at now, never
	 * before this request's insertion. */
	q->clock = now;
	r->tag = -1;
	blk_merge_bio_init(r);
	ioc = &q->ioc[r->rq.owner];
	/* A process asleep in get_request() submits nothing more: its later requests queue
	 * behind the waiting one. */
	if (ioc->nr_waiting) {
		start_wait(q, r, now);
		return 0;
	}
	/* blk_attempt_plug_merge(), then elv_merge(), before a request is allocated
	 * (blk_queue_bio(), blk_mq_submit_bio()). */
	if ((ioc->plugging && blk_merge_plug(q, &ioc->plug, r, now)) || blk_merge_bio(q, r, now)) {
		trace_merge(q, now, r);
		/* A request merged away may have freed its request or tag. */
		wake_waiters(q, now, h);
		return 1;
	}
	r->merge_tried = true;
	if (!may_allocate(q, r, now)) {
		/* It sleeps: its plug goes first (sched_submit_work() -> blk_flush_plug()), but
		 * its system call still holds it for what it submits once woken. */
		ioc->plug_asleep = ioc->plugging;
		if (ioc->plugging)
			plug_flush(q, ioc, now);
		start_wait(q, r, now);
		return 0;
	}
	if (ioc->plugging) {
		plug_add(q, ioc, r, now);
		return 1;
	}
	rc = admit(q, r, now);
	if (rc == 1) {
		/* Merged at its insertion by the policy's own core: as a bio merge. */
		wake_waiters(q, now, h);
		return 1;
	}
	return rc ? -1 : 1;
}

/*
 * The owner of r, woken with it admitted, goes on with the bios it had queued behind r: each may
 * join a queued request (it would merge as it is submitted); the first that cannot goes on to
 * allocate (its merge tried) and may wait in its turn.
 */
static void merge_followers(struct blk_queue *q, const struct blk_rq *r, uint64_t at,
			    const struct blk_host *h)
{
	struct sched_list *head = wait_list(q, r), *pos, *next;
	uint32_t owner = r->rq.owner;

	if (!blk_merging(q))
		return;
	for (pos = head->next; pos != head; pos = next) {
		struct blk_rq *f = sched_list_entry(pos, struct blk_rq, wait);

		next = pos->next;
		if (f->rq.owner != owner)
			continue;
		if (!((q->ioc[owner].plug_asleep &&
		       blk_merge_plug(q, &q->ioc[owner].plug, f, at)) ||
		      blk_merge_bio(q, f, at))) {
			f->merge_tried = true;
			break;
		}
		end_wait(q, f);
		f->state = BLK_RQ_MERGED;
		q->st.wait_ns += at - f->wait_start;
		trace_merge(q, at, f);
		if (h && h->admitted)
			h->admitted(h->ctx, f, at);
	}
}

/*
 * A woken waiter allocates and goes into the elevator; its owner hears of it. A bio that slept
 * in the allocation (get_request(), blk_mq_get_tag()) had its bio merge tried before it
 * (blk_queue_bio(), blk_mq_submit_bio()) and does not try again: its request may only be
 * insert-merged (blk-mq's elevators). A bio its process had queued behind it is submitted now,
 * bio merge first.
 */
static bool try_admit_waiter(struct blk_queue *q, struct blk_rq *r, uint64_t at,
			     const struct blk_host *h)
{
	struct blk_ioc *ioc = &q->ioc[r->rq.owner];

	if (!r->merge_tried && blk_merging(q) &&
	    ((ioc->plug_asleep && blk_merge_plug(q, &ioc->plug, r, at)) ||
	     blk_merge_bio(q, r, at))) {
		end_wait(q, r);
		r->state = BLK_RQ_MERGED;
		q->st.wait_ns += at - r->wait_start;
		trace_merge(q, at, r);
		if (h && h->admitted)
			h->admitted(h->ctx, r, at);
		q->kick = true;
		merge_followers(q, r, at, h);
		return true;
	}
	r->merge_tried = true;
	if (!may_allocate(q, r, at))
		return false;
	end_wait(q, r);
	q->st.wait_ns += at - r->wait_start;
	if (ioc->plug_asleep) {
		/* Woken inside its plugged system call: the request goes on its plug
		 * (blk_mq_submit_bio() -> blk_add_rq_to_plug(), blk_queue_bio()). */
		plug_add(q, ioc, r, at);
	} else if (admit(q, r, at) < 0) {
		/* Cannot happen for a request the core accepted at submission. */
		r->state = BLK_RQ_IDLE;
		return true;
	}
	if (h && h->admitted)
		h->admitted(h->ctx, r, at);
	q->kick = true; /* its owner, woken, runs the queue */
	merge_followers(q, r, at, h);
	return true;
}

/*
 * The woken owner's turn is over: it sleeps again (a request of its still waits: the flush on
 * schedule) or its system call ends with its queued submissions all in (blk_finish_plug()).
 * Its plug's requests go into the elevator. Returns how many were merged away there (their
 * requests or tags freed).
 */
static uint32_t plug_wake_end(struct blk_queue *q, uint32_t owner, uint64_t at)
{
	struct blk_ioc *ioc = &q->ioc[owner];
	uint32_t merged;

	/* Still plugging: its task slept inside its plugged call (the page cache's writeback
	 * pass, read-ahead) and goes on with it, adding to that plug; blk_plug_finish() ends it. */
	if (!ioc->plug_asleep || ioc->plugging)
		return 0;
	merged = plug_flush(q, ioc, at);
	if (!ioc->nr_waiting)
		ioc->plug_asleep = false;
	return merged;
}

/*
 * __freed_request(): below nr_requests the list is no longer full and the first sleeper on it
 * wakes (get_request()'s exclusive wait on rl->wait). Woken, its process is a batcher
 * (ioc_set_batching() after io_schedule()) and goes on with the requests it had queued behind
 * the first.
 */
static void legacy_wake(struct blk_queue *q, struct blk_rl *rl, int sync, uint64_t at,
			const struct blk_host *h)
{
	struct sched_list *head = &rl->waiting[sync], *pos, *next;
	uint32_t owner;

	if (!q->nr_requests || rl->count[sync] >= q->nr_requests)
		return;
	rl->full[sync] = false;
	if (sched_list_empty(head))
		return;
	owner = sched_list_first_entry(head, struct blk_rq, wait)->rq.owner;
	ioc_set_batching(q, &q->ioc[owner], at);
	for (pos = head->next; pos != head; pos = next) {
		struct blk_rq *r = sched_list_entry(pos, struct blk_rq, wait);

		next = pos->next;
		if (r->rq.owner != owner)
			continue;
		if (!try_admit_waiter(q, r, at, h))
			break;
		/* Its followers may have merged off the list: from the head again. */
		next = head->next;
	}
	/* Its plug's requests merged at the flush went back to its list: more may wake. */
	if (plug_wake_end(q, owner, at)) {
		legacy_wake(q, rl, sync, at, h);
		legacy_wake(q, rl, !sync, at, h);
	}
}

/*
 * A tag was freed: sbitmap_queue_wake_up() wakes sleepers, each retrying with its own shallow
 * depth. Modelled without wake_batch or the 8 wait queues: waiters in arrival order take what
 * they can use; an owner whose first waiting request cannot is skipped with the rest of its.
 */
static void mq_wake(struct blk_queue *q, uint64_t at, const struct blk_host *h)
{
	struct sched_list *head = &q->tag_waiting, *pos, *next;
	uint32_t blocked[8], nb = 0, open = UINT32_MAX;
	bool again = true;

	while (again) {
		for (pos = head->next; pos != head && q->tags_used < q->nr_requests; pos = next) {
			struct blk_rq *r = sched_list_entry(pos, struct blk_rq, wait);
			uint32_t owner = r->rq.owner;
			bool skip = false;

			next = pos->next;
			for (uint32_t i = 0; i < nb; i++)
				skip |= blocked[i] == owner;
			if (skip)
				continue;
			/* Another owner's turn: the woken one before it is done (its plug). */
			if (open != UINT32_MAX && open != owner)
				plug_wake_end(q, open, at);
			open = owner;
			if (!try_admit_waiter(q, r, at, h)) {
				plug_wake_end(q, owner, at); /* asleep again */
				open = UINT32_MAX;
				if (nb == 8)
					break;
				blocked[nb++] = owner;
			}
			/* The list may have changed under admitted callbacks: from the head. */
			next = head->next;
		}
		/* Tags the last one's plug freed at its flush (insert merges) may wake more. */
		again = open != UINT32_MAX && plug_wake_end(q, open, at) > 0;
		open = UINT32_MAX;
	}
}

/* The request is done with: its request or tag goes back, a waiter may take it. */
static void free_request(struct blk_queue *q, struct blk_rq *r, uint64_t at,
			 const struct blk_host *h)
{
	r->state = BLK_RQ_IDLE;
	if (q->mode == SCHED_BLK_MQ) {
		mq_free_tag(q, r);
		mq_wake(q, at, h);
	} else {
		int list = r->list;

		legacy_wake(q, legacy_put(q, r), list, at, h);
	}
}

void blk_release_slot(struct blk_queue *q, struct blk_rq *r)
{
	if (q->mode == SCHED_BLK_MQ)
		mq_free_tag(q, r);
	else
		legacy_put(q, r);
}

/* Requests or tags went back outside a completion (a request merged away). */
static void wake_waiters(struct blk_queue *q, uint64_t at, const struct blk_host *h)
{
	if (q->mode == SCHED_BLK_MQ) {
		mq_wake(q, at, h);
	} else {
		for (uint32_t i = 0; i < q->nr_rl; i++) {
			legacy_wake(q, &q->rl[i], 1, at, h);
			legacy_wake(q, &q->rl[i], 0, at, h);
		}
	}
}

/* ---- dispatch and completion --------------------------------------------------------------- */

/* /sys/block/<dev>/stat: a request completed. */
static void account_done(struct blk_queue *q, const struct blk_rq *r)
{
	int dir = sched_rq_dir(&r->rq);

	if (r->rq.op != SCHED_OP_READ && r->rq.op != SCHED_OP_WRITE)
		return;
	q->st.stat_ios[dir]++;
	q->st.stat_sectors[dir] += sched_rq_sectors(&r->rq);
}

/*
 * The request r completed on the model: each of its bios goes back to its owner once, with its
 * own range (req_bio_endio() for each bio of the request, in order). done() may resubmit the
 * bio it is given, so the bios are moved to a list of this call first.
 */
static void bios_done(struct blk_queue *q, struct blk_rq *r, uint64_t at, const struct blk_host *h)
{
	struct sched_list local;

	(void)q;
	sched_list_init(&local);
	if (!sched_list_empty(&r->bios)) {
		local.next = r->bios.next;
		local.prev = r->bios.prev;
		local.next->prev = &local;
		local.prev->next = &local;
		sched_list_init(&r->bios);
	}
	while (!sched_list_empty(&local)) {
		struct blk_rq *b = sched_list_first_entry(&local, struct blk_rq, bio_node);

		sched_list_del_init(&b->bio_node);
		b->rq.offset = b->bio_offset;
		b->rq.length = b->bio_length;
		b->head = b;
		b->state = BLK_RQ_IDLE;
		if (h->done)
			h->done(h->ctx, b, at);
	}
}

/* Every bio of r (the device model's accounting per submitter). */
static void bios_to_model(const struct blk_rq *r, uint64_t now, const struct blk_host *h)
{
	const struct sched_list *pos;

	for (pos = r->bios.next; pos != &r->bios; pos = pos->next)
		h->to_model(h->ctx, sched_list_entry(pos, struct blk_rq, bio_node), now);
}

static uint64_t model_id(const struct blk_queue *q, const struct blk_rq *r)
{
	return (uint64_t)((uintptr_t)r - (uintptr_t)q);
}

static struct blk_rq *model_rq(const struct blk_queue *q, uint64_t id)
{
	return (struct blk_rq *)((uintptr_t)q + (uintptr_t)id);
}

static void device_done(struct blk_queue *q, struct blk_rq *r, uint64_t at,
			const struct blk_host *h)
{
	/* A full device: the last dispatch found no driver tag (SCHED_RESTART). */
	if (q->s->dev.in_flight >= q->s->dev.hw_queue_depth)
		q->kick = true;
	if (sched_completed(q->s, &r->rq, at))
		q->kick = true;
	trace_rq(q, at, 'C', r);
	account_done(q, r);
	free_request(q, r, at, h);
}

void blk_run(struct blk_queue *q, uint64_t now, const struct blk_host *h)
{
	struct sched_request *rq;

	if (now < q->clock)
		now = q->clock;
	q->kick = false;
	while ((rq = sched_dispatch(q->s, now))) {
		struct blk_rq *r = blk_rq_of(rq);

		r->state = BLK_RQ_DEVICE;
		blk_merge_dispatched(q, r);
		trace_rq(q, now, 'D', r);
		if (!q->model) {
			h->issue(h->ctx, r, now);
			continue;
		}
		if (h->to_model)
			bios_to_model(r, now, h);
		if (devmodel_submit(q->model, model_id(q, r), rq->offset, rq->length,
				    (enum devmodel_op)rq->op, now)) {
			/* Cannot happen: hw_queue_depth <= the model's depth is checked at init. */
			device_done(q, r, now, h);
			bios_done(q, r, now, h);
		}
	}
}

void blk_complete(struct blk_queue *q, struct blk_rq *r, uint64_t now, const struct blk_host *h)
{
	if (now < q->clock)
		now = q->clock;
	device_done(q, r, now, h);
}

void blk_run_completed(struct blk_queue *q, uint64_t now, const struct blk_host *h)
{
	bool kick = q->kick;

	if (q->mode == SCHED_BLK_LEGACY || !q->kblockd_ns) {
		blk_run(q, now, h);
		return;
	}
	q->kick = false;
	if (!kick || !q->s->queued)
		return;
	if (now < q->clock)
		now = q->clock;
	if (now + q->kblockd_ns < q->run_at)
		q->run_at = now + q->kblockd_ns;
}

/* The model finished what it had by time t; the scheduler hears of it at `at` (>= t). */
static void model_complete(struct blk_queue *q, uint64_t t, uint64_t at, const struct blk_host *h)
{
	uint64_t ids[64];
	int n;

	do {
		n = devmodel_reap(q->model, t, ids, 64);
		for (int i = 0; i < n; i++) {
			struct blk_rq *r = model_rq(q, ids[i]);

			q->st.model_completions++;
			device_done(q, r, at, h);
			bios_done(q, r, at, h);
		}
	} while (n == 64);
}

uint64_t blk_next_event(const struct blk_queue *q)
{
	uint64_t t = sched_next_timer(q->s);

	if (q->run_at < t)
		t = q->run_at;

	if (q->model) {
		uint64_t m = devmodel_next_completion(q->model);

		if (m < t)
			t = m;
	}
	return t;
}

uint64_t blk_advance(struct blk_queue *q, uint64_t now, const struct blk_host *h)
{
	uint64_t t = SCHED_NO_TIMER;

	for (unsigned int guard = 0; guard < (1u << 20); guard++) {
		uint64_t tp = sched_next_timer(q->s);
		uint64_t tm = q->model ? devmodel_next_completion(q->model) : SCHED_NO_TIMER;
		uint64_t tr = q->run_at, at;

		t = tm < tp ? tm : tp;
		if (tr < t)
			t = tr;
		if (t > now || t == SCHED_NO_TIMER)
			break;
		at = t > q->clock ? t : q->clock;
		q->clock = at;
		if (tm == t) {
			model_complete(q, tm, at, h);
			/* the completion's run: kblockd's, later (MQ), or now */
			blk_run_completed(q, at, h);
			continue;
		} else if (tr == t && tr < tp) {
			q->run_at = SCHED_NO_TIMER; /* kblockd's work runs the queue */
		} else {
			uint64_t late = now - t;
			uint32_t b = late ? 64 - (uint32_t)__builtin_clzll(late) : 0;

			q->st.timer_events++;
			q->st.timer_late_hist[b < 40 ? b : 39]++;
			if (late > q->st.timer_late_max_ns)
				q->st.timer_late_max_ns = late;
			sched_run_timer(q->s, at);
		}
		blk_run(q, at, h);
	}
	if (now > q->clock)
		q->clock = now;
	return t > now ? t : blk_next_event(q);
}

void blk_abandon(struct blk_queue *q, struct blk_rq *r)
{
	if (r->state == BLK_RQ_WAITING)
		end_wait(q, r);
}

void blk_owner_exit(struct blk_queue *q, uint32_t owner, uint64_t now)
{
	if (now < q->clock)
		now = q->clock;
	sched_entity_exit(q->s, owner, now);
}

void blk_congestion_thresholds(uint32_t nr, uint32_t *on, uint32_t *off)
{
	*on = nr - nr / 8 + 1;
	if (*on > nr)
		*on = nr;
	*off = nr - nr / 8 - nr / 16 - 1;
	if (*off < 1)
		*off = 1;
}

bool blk_congestion_next(uint32_t nr, uint32_t allocated, bool was)
{
	uint32_t on, off;

	if (!nr)
		return false;
	blk_congestion_thresholds(nr, &on, &off);
	if (!was && allocated + 1 >= on)
		return true;
	if (was && allocated < off)
		return false;
	return was;
}

bool blk_async_congested(const struct blk_queue *q, bool was)
{
	if (q->mode != SCHED_BLK_LEGACY)
		return false;
	return blk_congestion_next(q->nr_requests, q->rl[0].count[0], was);
}
