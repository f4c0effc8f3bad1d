// SPDX-License-Identifier: GPL-2.0
/*
 * BFQ queues and their lifetime: the queue pool and reference counts (bfq_put_queue), the
 * weight counters behind bfq_asymmetric_scenario(), request order inside a queue
 * (bfq_choose_req, bfq_find_next_rq, the FIFO), the per-group position tree of next requests,
 * bursts of queue creations (bfq_handle_burst), the queue of a new request (bfq_init_rq:
 * ioprio and group changes, splits), cooperator and stable merges (bfq_setup_cooperator,
 * bfq_merge_bfqqs) and the exit of a process (bfq_exit_icq). After Linux 6.12 bfq-iosched.c
 * and bfq-cgroup.c.
 */
#include "bfq_internal.h"

#define rq_of_rb(n) sched_rb_entry((n), struct sched_request, priv.rb)
/* The queue of a position-tree node: the nodes are bfqd->pos_nodes[queue index]. */
#define bfqq_of_pos(bfqd, n) (&(bfqd)->queues[bfq_pos_of(n) - (bfqd)->pos_nodes])
#define counter_of(n) sched_rb_entry((n), struct bfq_weight_counter, weights_node)

/* ---- references and the pool ---- */

/* References held by processes: all but requests, service trees, weight counter, stable. */
int bfqq_process_refs(const struct bfq_queue *bfqq)
{
	return bfqq->ref - bfqq->entity.allocated - (bfqq->entity.on_st_or_in_serv ? 1 : 0) -
	       (bfqq->weight_counter ? 1 : 0) - bfqq->stable_ref;
}

static bool bfqq_in_pool(const struct bfq_data *bfqd, const struct bfq_queue *bfqq)
{
	return bfqq >= bfqd->queues && bfqq < bfqd->queues + bfqd->nr_pool;
}

void bfq_put_queue(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct sched_list *pos, *next;

	bfqq->ref--;
	if (bfqq->ref)
		return;
	if (!sched_list_empty(&bfqq->burst_list_node)) {
		sched_list_del_init(&bfqq->burst_list_node);
		/* "decrease burst size when queues in burst exit" (4.14) meant a process's exit;
		 * since bic_set_bfqq() clears bfqq->bic before bfq_exit_bfqq() puts the queue (as
		 * 6.12 does, and this port for every profile) the decrement no longer happens at an
		 * exit, and 4.12 had none: an exit leaves the burst's count as it was in both
		 * (test_bfq_burst_exit). Kept as the kernel has it. */
		if (bfqq->bic && bfqd->burst_size > 0)
			bfqd->burst_size--;
	}
	if (!sched_list_empty(&bfqq->woken_list_node))
		sched_list_del_init(&bfqq->woken_list_node);
	for (pos = bfqq->woken_list.next; pos != &bfqq->woken_list; pos = next) {
		struct bfq_queue *item = sched_list_entry(pos, struct bfq_queue, woken_list_node);

		next = pos->next;
		item->waker_bfqq = NULL;
		sched_list_del_init(&item->woken_list_node);
	}
	if (bfqd->last_completed_rq_bfqq == bfqq)
		bfqd->last_completed_rq_bfqq = NULL;
	if (bfqd->last_bfqq_created == bfqq)
		bfqd->last_bfqq_created = NULL;
	for (uint32_t g = 0; g < bfqd->nr_groups; g++)
		if (bfqd->groups[g].entity.last_bfqq_created == bfqq)
			bfqd->groups[g].entity.last_bfqq_created = NULL;
	bfqq->alive = false;
	if (bfqq_in_pool(bfqd, bfqq)) {
		bfqq->free_next = bfqd->free_queue;
		bfqd->free_queue = (int32_t)bfqq->index;
	}
}

static struct bfq_queue *bfq_alloc_queue(struct bfq_data *bfqd)
{
	struct bfq_queue *bfqq;

	if (bfqd->free_queue < 0)
		return NULL;
	bfqq = &bfqd->queues[bfqd->free_queue];
	bfqd->free_queue = bfqq->free_next;
	return bfqq;
}

void bfq_reassign_last_bfqq(struct bfq_data *bfqd, struct bfq_queue *cur_bfqq,
			    struct bfq_queue *new_bfqq)
{
	if (cur_bfqq->entity.parent && cur_bfqq->entity.parent->last_bfqq_created == cur_bfqq)
		cur_bfqq->entity.parent->last_bfqq_created = new_bfqq;
	else if (bfqd->last_bfqq_created == cur_bfqq)
		bfqd->last_bfqq_created = new_bfqq;
}

void bfq_release_process_ref(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	/* An empty queue that no process will feed any more stops being busy. */
	if (bfq_bfqq_busy(bfqq) && sched_rb_empty(&bfqq->sort_list) &&
	    bfqq != bfqd->in_service_queue)
		bfq_del_bfqq_busy(bfqd, bfqq, false);
	bfq_reassign_last_bfqq(bfqd, bfqq, NULL);
	bfq_put_queue(bfqd, bfqq);
}

void bfq_put_cooperator(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct bfq_queue *q = bfqq->new_bfqq, *next;

	while (q) {
		next = q->new_bfqq;
		bfq_put_queue(bfqd, q);
		q = next;
	}
}

static void bfq_put_stable_ref(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	bfqq->stable_ref--;
	bfq_put_queue(bfqd, bfqq);
}

void bfqq_request_allocated(struct bfq_queue *bfqq)
{
	for (struct bfq_entity *e = &bfqq->entity; e; e = e->parent)
		e->allocated++;
}

void bfqq_request_freed(struct bfq_queue *bfqq)
{
	for (struct bfq_entity *e = &bfqq->entity; e; e = e->parent)
		e->allocated--;
}

/*
 * The process's queue (bic_set_bfqq): the old queue forgets bic, and a stable merge with the
 * new queue itself is moot.
 */
static void bic_set_bfqq(struct bfq_data *bfqd, struct bfq_io_cq *bic, struct bfq_queue *bfqq,
			 bool is_sync)
{
	struct bfq_queue *old = bic->bfqq[is_sync];

	if (old && old->bic == bic)
		old->bic = NULL;
	bic->bfqq[is_sync] = bfqq;
	if (bfqq && bic->bfqq_data.stable_merge_bfqq == bfqq) {
		bfq_put_stable_ref(bfqd, bfqq);
		bic->bfqq_data.stable_merge_bfqq = NULL;
	}
}

/* ---- weight counters ---- */

static bool counter_less(const struct sched_rb_node *a, const struct sched_rb_node *b)
{
	return counter_of(a)->weight < counter_of(b)->weight;
}

/* Busy non-raised queues by weight: one counter per distinct weight. */
void bfq_weights_tree_add(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct bfq_weight_counter *c;
	int w = bfqq->entity.weight;

	if (bfqq->weight_counter)
		return;
	if (w < BFQ_MIN_WEIGHT || w > BFQ_MAX_WEIGHT)
		return; /* the kernel's allocation-failure path: not counted */
	c = &bfqd->counters[w];
	if (!c->num_active) {
		c->weight = (uint32_t)w;
		sched_rb_insert(&bfqd->queue_weights_tree, &c->weights_node, counter_less);
	}
	c->num_active++;
	bfqq->weight_counter = c;
	bfqq->ref++;
}

void bfq_weights_tree_remove(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct bfq_weight_counter *c = bfqq->weight_counter;

	if (!c)
		return;
	if (!--c->num_active)
		sched_rb_erase(&bfqd->queue_weights_tree, &c->weights_node);
	bfqq->weight_counter = NULL;
	bfq_put_queue(bfqd, bfqq);
}

/*
 * 4.12's group_weights_tree (kept for bfq_sw_asym_groups off): the weights of the groups on an
 * active tree, a counter per weight. A group in service with one active child is off its
 * tree (bfq_no_longer_next_in_service()), so off this one too; a weight change moves it.
 */
static struct bfq_weight_counter *bfq_group_counter(struct bfq_data *bfqd, struct bfq_entity *e)
{
	return &bfqd->counters[BFQ_MAX_WEIGHT + 1 + e->weight];
}

void bfq_group_weights_tree_add(struct bfq_data *bfqd, struct bfq_entity *entity)
{
	struct bfq_group *bfqg = sched_container_of(entity, struct bfq_group, entity);
	struct bfq_weight_counter *c;

	if (bfqg->weight_counter || entity->weight < BFQ_MIN_WEIGHT ||
	    entity->weight > BFQ_MAX_WEIGHT)
		return;
	c = bfq_group_counter(bfqd, entity);
	if (!c->num_active) {
		c->weight = (uint32_t)entity->weight;
		sched_rb_insert(&bfqd->group_weights_tree, &c->weights_node, counter_less);
	}
	c->num_active++;
	bfqg->weight_counter = c;
}

void bfq_group_weights_tree_remove(struct bfq_data *bfqd, struct bfq_entity *entity)
{
	struct bfq_group *bfqg = sched_container_of(entity, struct bfq_group, entity);
	struct bfq_weight_counter *c = bfqg->weight_counter;

	if (!c)
		return;
	if (!--c->num_active)
		sched_rb_erase(&bfqd->group_weights_tree, &c->weights_node);
	bfqg->weight_counter = NULL;
}

/*
 * False when every active queue must get the same share (or bfqq the smallest one): then a
 * queue keeps its share without plugging. Queue weights differ, several classes are busy, or
 * more than one group has pending requests.
 */
bool bfq_asymmetric_scenario(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct sched_rb_node *first = sched_rb_first(&bfqd->queue_weights_tree);
	/* The smallest weight needs no plugging (bfq_sw_idle_smallest_weight). */
	bool smallest_weight = bfq_sw(bfqd, BFQ_SW_IDLE_SMALLEST_WEIGHT) && bfqq &&
			       bfqq->weight_counter && first &&
			       bfqq->weight_counter == counter_of(first);
	bool varied_queue_weights = !smallest_weight && bfqd->queue_weights_tree.count >= 2;
	bool multiple_classes_busy =
	    bfq_sw(bfqd, BFQ_SW_ASYM_CLASSES) && ((bfqd->busy_queues[0] && bfqd->busy_queues[1]) ||
						  (bfqd->busy_queues[0] && bfqd->busy_queues[2]) ||
						  (bfqd->busy_queues[1] && bfqd->busy_queues[2]));
	/* 4.12 (bfq_sw_asym_groups off): active groups of different weights. */
	bool groups = bfq_sw(bfqd, BFQ_SW_ASYM_GROUPS) ? bfqd->num_groups_with_pending_reqs > 1
						       : bfqd->group_weights_tree.count >= 2;

	return varied_queue_weights || multiple_classes_busy || groups;
}

/* ---- requests inside a queue ---- */

/*
 * Which of rq1 and rq2 is better served now ("lifted from AS"): sync first, then meta, then
 * the nearest in front of the head; a backward seek within back_seek_max costs
 * back_seek_penalty times its length; beyond it the request "wraps".
 */
struct sched_request *bfq_choose_req(struct bfq_data *bfqd, struct sched_request *rq1,
				     struct sched_request *rq2, uint64_t last)
{
	uint64_t s1, s2, d1 = 0, d2 = 0, back_max;
	bool wrap1 = false, wrap2 = false;

	if (!rq1 || rq1 == rq2)
		return rq2;
	if (!rq2)
		return rq1;
	if (rq_is_sync(rq1) != rq_is_sync(rq2))
		return rq_is_sync(rq1) ? rq1 : rq2;
	if (rq_is_meta(rq1) != rq_is_meta(rq2))
		return rq_is_meta(rq1) ? rq1 : rq2;
	s1 = sched_rq_pos(rq1);
	s2 = sched_rq_pos(rq2);
	back_max = (uint64_t)bfqd->p.back_max * 2;
	if (s1 >= last)
		d1 = s1 - last;
	else if (s1 + back_max >= last)
		d1 = (last - s1) * bfqd->p.back_penalty;
	else
		wrap1 = true;
	if (s2 >= last)
		d2 = s2 - last;
	else if (s2 + back_max >= last)
		d2 = (last - s2) * bfqd->p.back_penalty;
	else
		wrap2 = true;
	if (!wrap1 && !wrap2) {
		if (d1 < d2)
			return rq1;
		if (d2 < d1)
			return rq2;
		return s1 >= s2 ? rq1 : rq2;
	}
	if (!wrap1)
		return rq1;
	if (!wrap2)
		return rq2;
	/* Both behind: the one further back, so that only one back seek is needed. */
	return s1 <= s2 ? rq1 : rq2;
}

/* The FIFO head when it expired, checked once per service slot. */
static struct sched_request *bfq_check_fifo(struct bfq_data *bfqd, struct bfq_queue *bfqq,
					    struct sched_request *last)
{
	struct sched_request *rq;

	if (bfq_bfqq_fifo_expire(bfqq))
		return NULL;
	bfq_mark_bfqq_fifo_expire(bfqq);
	if (sched_list_empty(&bfqq->fifo))
		return NULL;
	rq = sched_list_first_entry(&bfqq->fifo, struct sched_request, priv.fifo);
	if (rq == last || bfqd->now < rq->priv.fifo_time)
		return NULL;
	bfqd->stats.fifo_dispatches++;
	bfq_log_bfqq(bfqd, bfqq, "check_fifo: returned %llu",
		     (unsigned long long)sched_rq_pos(rq));
	return rq;
}

struct sched_request *bfq_find_next_rq(struct bfq_data *bfqd, struct bfq_queue *bfqq,
				       struct sched_request *last)
{
	struct sched_rb_node *rbnext = sched_rb_next(&last->priv.rb);
	struct sched_rb_node *rbprev = sched_rb_prev(&last->priv.rb);
	struct sched_request *next, *prev = NULL;

	next = bfq_check_fifo(bfqd, bfqq, last);
	if (next)
		return next;
	if (rbprev)
		prev = rq_of_rb(rbprev);
	next = NULL;
	if (rbnext) {
		next = rq_of_rb(rbnext);
	} else {
		rbnext = sched_rb_first(&bfqq->sort_list);
		if (rbnext && rbnext != &last->priv.rb)
			next = rq_of_rb(rbnext);
	}
	return bfq_choose_req(bfqd, next, prev, sched_rq_pos(last));
}

/* ---- position tree: busy queues of a group by the sector of their next request ---- */

static uint64_t bfqq_next_pos(const struct bfq_queue *bfqq)
{
	return sched_rq_pos(bfqq->next_rq);
}

/*
 * The key a queue is on the tree by is its node's key: its next request's sector, kept in the
 * node because reading it from the request would cost a cache miss per level of the walk. A
 * change of next_rq re-inserts the queue (as in the kernel), except where the kernel changes
 * it in place (bfq_pos_key_update()): the key is the sector of next_rq at every walk.
 */

/* The queue whose next request starts at sector, or NULL with the last node visited. */
static struct bfq_queue *bfq_rq_pos_tree_lookup(const struct bfq_data *bfqd,
						struct sched_rb_root *root, uint64_t sector,
						struct sched_rb_node **ret_parent)
{
	struct sched_rb_node *n = root->root, *parent = NULL;

	while (n) {
		uint64_t pos = bfq_pos_of(n)->key;

		if (__builtin_expect(sector == pos, 0)) {
			*ret_parent = n;
			return bfqq_of_pos(bfqd, n);
		}
		parent = n;
		n = sched_rb_child(n, sector > pos); /* no branch to mispredict on random keys */
	}
	*ret_parent = parent;
	return NULL;
}

/* Merging is attempted only early in a queue's life: later cooperation is accidental. */
static bool bfq_too_late_for_merging(const struct bfq_data *bfqd, const struct bfq_queue *bfqq)
{
	return bfq_sw(bfqd, BFQ_SW_MERGE_TIME_LIMIT) && bfqq->service_from_backlogged > 0 &&
	       before_jiffies(bfqd, bfqq->first_IO_time + ms_to_jiffies(100));
}

/* 4.12's wr_from_too_long() (bfq_sw_merge_time_limit off): raised for more than 100 ms. */
static bool bfq_wr_from_too_long(const struct bfq_data *bfqd, const struct bfq_queue *bfqq)
{
	return !bfq_sw(bfqd, BFQ_SW_MERGE_TIME_LIMIT) && bfqq->wr_coeff > 1 &&
	       before_jiffies(bfqd, bfqq->last_wr_start_finish + ms_to_jiffies(100));
}

void bfq_pos_tree_add_move(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct sched_rb_node *parent;
	struct bfq_pos_node *pos;
	uint64_t key;
	bool go_left;

	if (bfqq->pos_root) {
		sched_rb_erase(bfqq->pos_root, &bfqq_pos(bfqd, bfqq)->node);
		bfqq->pos_root = NULL;
	}
	if (bfqq == &bfqd->oom_bfqq || bfq_too_late_for_merging(bfqd, bfqq) ||
	    bfq_class_idle(bfqq) || !bfqq->next_rq)
		return;
	key = bfqq_next_pos(bfqq);
	if (bfq_rq_pos_tree_lookup(bfqd, &bfqq_group(bfqq)->rq_pos_tree, key, &parent))
		return; /* one queue per sector */
	/* The lookup ended where sched_rb_insert(pos_less) would link: link there. */
	bfqq->pos_root = &bfqq_group(bfqq)->rq_pos_tree;
	pos = bfqq_pos(bfqd, bfqq);
	pos->key = key;
	go_left = parent && key < bfq_pos_of(parent)->key;
	sched_rb_insert_at(bfqq->pos_root, &pos->node, parent, go_left,
			   !parent || (go_left && bfqq->pos_root->leftmost == parent));
}

/*
 * bfqq's next request moved without a move on the tree: a front merge took it to an earlier
 * sector in place, or a request merge made another request its next (bfq_requests_merged()).
 * The kernel's walks compare blk_rq_pos(bfqq->next_rq) as it is now, the node where it was
 * linked: the key follows, the node stays.
 */
void bfq_pos_key_update(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct bfq_pos_node *pos;

	if (!bfqq->pos_root || !bfqq->next_rq)
		return;
	pos = bfqq_pos(bfqd, bfqq);
	if (pos->key != bfqq_next_pos(bfqq)) {
		pos->key = bfqq_next_pos(bfqq);
		bfqd->stats.pos_key_moved++;
	}
}

static bool bfq_rq_close_to_sector(uint64_t pos, uint64_t sector)
{
	return (pos >= sector ? pos - sector : sector - pos) <= BFQQ_CLOSE_THR;
}

static struct bfq_queue *bfqq_find_close(const struct bfq_data *bfqd, struct bfq_queue *bfqq,
					 uint64_t sector)
{
	struct sched_rb_root *root = &bfqq_group(bfqq)->rq_pos_tree;
	struct sched_rb_node *parent, *node;
	struct bfq_queue *q;
	uint64_t key;

	if (sched_rb_empty(root))
		return NULL;
	q = bfq_rq_pos_tree_lookup(bfqd, root, sector, &parent);
	if (q)
		return q;
	/* The parent of the empty leaf is the closest on one side; try both sides. */
	key = bfq_pos_of(parent)->key;
	if (bfq_rq_close_to_sector(key, sector))
		return bfqq_of_pos(bfqd, parent);
	node = key < sector ? sched_rb_next(parent) : sched_rb_prev(parent);
	if (!node)
		return NULL;
	return bfq_rq_close_to_sector(bfq_pos_of(node)->key, sector) ? bfqq_of_pos(bfqd, node)
								     : NULL;
}

/* ---- merging ---- */

/* Schedule the merge of bfqq into new_bfqq (the end of its chain); NULL if not possible. */
static struct bfq_queue *bfq_setup_merge(struct bfq_data *bfqd, struct bfq_queue *bfqq,
					 struct bfq_queue *new_bfqq)
{
	int process_refs, new_process_refs;
	struct bfq_queue *q;

	(void)bfqd;
	if (!bfqq_process_refs(new_bfqq))
		return NULL;
	while ((q = new_bfqq->new_bfqq)) {
		if (q == bfqq)
			return NULL;
		new_bfqq = q;
	}
	process_refs = bfqq_process_refs(bfqq);
	new_process_refs = bfqq_process_refs(new_bfqq);
	if (process_refs == 0 || new_process_refs == 0)
		return NULL;
	if (new_bfqq->entity.parent != bfqq->entity.parent)
		return NULL;
	bfq_log_bfqq(bfqd, bfqq, "scheduling merge with queue %d", new_bfqq->pid);
	bfqq->new_bfqq = new_bfqq;
	new_bfqq->ref += process_refs;
	return new_bfqq;
}

static bool bfq_may_be_close_cooperator(struct bfq_data *bfqd, struct bfq_queue *bfqq,
					struct bfq_queue *new_bfqq)
{
	if (bfq_too_late_for_merging(bfqd, new_bfqq))
		return false;
	if (bfq_class_idle(bfqq) || bfq_class_idle(new_bfqq) ||
	    bfqq->ioprio_class != new_bfqq->ioprio_class)
		return false;
	/* A seeky queue will not become sequential by merging. */
	if (BFQQ_SEEKY(bfqd, bfqq) || BFQQ_SEEKY(bfqd, new_bfqq))
		return false;
	/* Interleaved I/O is known to be done by applications only for reads. */
	if (!bfq_bfqq_sync(bfqq) || !bfq_bfqq_sync(new_bfqq))
		return false;
	return true;
}

static struct bfq_queue *bfq_setup_stable_merge(struct bfq_data *bfqd, struct bfq_queue *bfqq,
						struct bfq_queue *stable_merge_bfqq,
						struct bfq_iocq_bfqq_data *d)
{
	int a = bfqq_process_refs(bfqq), b = bfqq_process_refs(stable_merge_bfqq);
	int proc_ref = a < b ? a : b;
	struct bfq_queue *new_bfqq = NULL;

	d->stable_merge_bfqq = NULL;
	/* A queue whose own idling boosts throughput is better left alone. */
	if (!idling_boosts_thr_without_issues(bfqd, bfqq) && proc_ref) {
		new_bfqq = bfq_setup_merge(bfqd, bfqq, stable_merge_bfqq);
		if (new_bfqq) {
			d->stably_merged = true;
			if (new_bfqq->bic)
				new_bfqq->bic->bfqq_data.stably_merged = true;
			bfqd->stats.stable_merges++;
		}
	}
	bfq_put_stable_ref(bfqd, stable_merge_bfqq);
	return new_bfqq;
}

/*
 * The queue rq's process should use instead of bfqq, if any: a scheduled stable merge that is
 * due, the in-service queue when rq is close to where it last served, or a busy queue whose
 * next request is close to rq (not on non-rotational devices with queueing).
 */
struct bfq_queue *bfq_setup_cooperator(struct bfq_data *bfqd, struct bfq_queue *bfqq,
				       struct sched_request *rq, struct bfq_io_cq *bic)
{
	struct bfq_iocq_bfqq_data *d = &bic->bfqq_data;
	struct bfq_queue *in_service_bfqq, *new_bfqq;

	new_bfqq = bfqq->new_bfqq;
	if (new_bfqq) {
		/* 4.12: the queue's own new_bfqq, one step (bfq_sw_merge_chain). */
		while (new_bfqq->new_bfqq && bfq_sw(bfqd, BFQ_SW_MERGE_CHAIN))
			new_bfqq = new_bfqq->new_bfqq;
		return new_bfqq;
	}
	if (!bfqd->nonrot_with_queueing && bfq_sw(bfqd, BFQ_SW_STABLE_MERGE) &&
	    bfq_bfqq_sync(bfqq) && d->stable_merge_bfqq && !bfq_bfqq_just_created(bfqq) &&
	    before_jiffies(bfqd, bfqq->split_time + ms_to_jiffies(BFQ_LATE_STABLE_MERGING_MS)) &&
	    before_jiffies(bfqd,
			   bfqq->creation_time + ms_to_jiffies(BFQ_LATE_STABLE_MERGING_MS)))
		return bfq_setup_stable_merge(bfqd, bfqq, d->stable_merge_bfqq, d);
	if (bfq_no_coop_merging(bfqd))
		return NULL;
	if (bfq_too_late_for_merging(bfqd, bfqq))
		return NULL;
	if (!rq || bfq_wr_from_too_long(bfqd, bfqq) || bfqq == &bfqd->oom_bfqq)
		return NULL;
	if (bfq_tot_busy_queues(bfqd) == 1)
		return NULL;
	/*
	 * What bfq_may_be_close_cooperator() asks of bfqq alone: a seeky, async or idle-class
	 * queue has no cooperator, whatever the lookups below would find, and with thousands of
	 * queues the position-tree walk costs a cache miss per level. Same result, no walk.
	 */
	if (bfq_class_idle(bfqq) || BFQQ_SEEKY(bfqd, bfqq) || !bfq_bfqq_sync(bfqq))
		return NULL;
	in_service_bfqq = bfqd->in_service_queue;
	if (in_service_bfqq && in_service_bfqq != bfqq && in_service_bfqq != &bfqd->oom_bfqq &&
	    !bfq_wr_from_too_long(bfqd, in_service_bfqq) &&
	    bfq_rq_close_to_sector(sched_rq_pos(rq), bfq_sw(bfqd, BFQ_SW_MERGE_IN_SERV_POS)
							 ? bfqd->in_serv_last_pos
							 : bfqd->last_position) &&
	    bfqq->entity.parent == in_service_bfqq->entity.parent &&
	    bfq_may_be_close_cooperator(bfqd, bfqq, in_service_bfqq)) {
		new_bfqq = bfq_setup_merge(bfqd, bfqq, in_service_bfqq);
		if (new_bfqq)
			return new_bfqq;
	}
	new_bfqq = bfqq_find_close(bfqd, bfqq, sched_rq_pos(rq));
	if (new_bfqq == bfqq)
		new_bfqq = NULL;
	if (new_bfqq && new_bfqq != &bfqd->oom_bfqq && !bfq_wr_from_too_long(bfqd, new_bfqq) &&
	    bfq_may_be_close_cooperator(bfqd, bfqq, new_bfqq))
		return bfq_setup_merge(bfqd, bfqq, new_bfqq);
	return NULL;
}

/* bic's requests go to bfqq->new_bfqq from now on. Returns that queue. */
struct bfq_queue *bfq_merge_bfqqs(struct bfq_data *bfqd, struct bfq_io_cq *bic,
				  struct bfq_queue *bfqq)
{
	struct bfq_queue *new_bfqq = bfqq->new_bfqq;

	bfq_log_bfqq(bfqd, bfqq, "merging with queue %d", new_bfqq->pid);
	bfqd->stats.merges++;
	bfq_bfqq_save_state(bfqd, bfqq);
	bfq_bfqq_save_state(bfqd, new_bfqq);
	if (bfq_bfqq_IO_bound(bfqq))
		bfq_mark_bfqq_IO_bound(new_bfqq);
	bfq_clear_bfqq_IO_bound(bfqq);
	/* The cooperators are happy to let bfqq's waker inject for them too. */
	if (bfqq->waker_bfqq && !new_bfqq->waker_bfqq && bfqq->waker_bfqq != new_bfqq) {
		new_bfqq->waker_bfqq = bfqq->waker_bfqq;
		new_bfqq->tentative_waker_bfqq = NULL;
		if (!sched_list_empty(&new_bfqq->woken_list_node))
			sched_list_del_init(&new_bfqq->woken_list_node);
		sched_list_add(&new_bfqq->woken_list_node, &new_bfqq->waker_bfqq->woken_list);
	}
	/* A raised bfqq hands its raising to new_bfqq. */
	if (new_bfqq->wr_coeff == 1 && bfqq->wr_coeff > 1) {
		new_bfqq->wr_coeff = bfqq->wr_coeff;
		new_bfqq->wr_cur_max_time = bfqq->wr_cur_max_time;
		new_bfqq->last_wr_start_finish = bfqq->last_wr_start_finish;
		new_bfqq->wr_start_at_switch_to_srt = bfqq->wr_start_at_switch_to_srt;
		if (bfq_bfqq_busy(new_bfqq))
			bfqd->wr_busy_queues++;
		new_bfqq->entity.prio_changed = 1;
	}
	if (bfqq->wr_coeff > 1) {
		bfqq->wr_coeff = 1;
		bfqq->entity.prio_changed = 1;
		if (bfq_bfqq_busy(bfqq))
			bfqd->wr_busy_queues--;
	}
	bic_set_bfqq(bfqd, bic, new_bfqq, true);
	bfq_mark_bfqq_coop(new_bfqq);
	new_bfqq->bic = NULL;
	new_bfqq->pid = -1;
	bfqq->bic = NULL;
	bfq_reassign_last_bfqq(bfqd, bfqq, new_bfqq);
	bfq_release_process_ref(bfqd, bfqq);
	return new_bfqq;
}

/* ---- bursts ---- */

static void bfq_reset_burst_list(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	while (!sched_list_empty(&bfqd->burst_list))
		sched_list_del_init(bfqd->burst_list.next);
	/* A new burst list starts only when no queue is active (4.12: with any new queue,
	 * bfq_sw_burst_no_active). */
	if (bfq_tot_busy_queues(bfqd) == 0 || !bfq_sw(bfqd, BFQ_SW_BURST_NO_ACTIVE)) {
		sched_list_add(&bfqq->burst_list_node, &bfqd->burst_list);
		bfqd->burst_size = 1;
	} else {
		bfqd->burst_size = 0;
	}
	bfqd->burst_parent_entity = bfqq->entity.parent;
}

static void bfq_add_to_burst(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	bfqd->burst_size++;
	if (bfqd->burst_size == bfqd->bfq_large_burst_thresh) {
		struct sched_list *pos;

		/* Large: every queue of the burst is marked, and the list is not needed. */
		bfqd->large_burst = true;
		bfqd->stats.bursts_large++;
		for (pos = bfqd->burst_list.next; pos != &bfqd->burst_list; pos = pos->next) {
			struct bfq_queue *item =
				sched_list_entry(pos, struct bfq_queue, burst_list_node);

			bfq_mark_bfqq_in_large_burst(item);
			bfqd->stats.burst_marked++;
			bfq_log_bfqq(bfqd, item, "marked in large burst");
		}
		bfq_mark_bfqq_in_large_burst(bfqq);
		bfqd->stats.burst_marked++;
		bfq_log_bfqq(bfqd, bfqq, "marked in large burst");
		while (!sched_list_empty(&bfqd->burst_list))
			sched_list_del_init(bfqd->burst_list.next);
	} else {
		sched_list_add(&bfqq->burst_list_node, &bfqd->burst_list);
	}
}

/*
 * Queues of one group created shortly after each other (burst_interval) belong to a burst;
 * from bfq_large_burst_thresh queues on, the burst is large: services or parallel jobs that
 * want throughput, so their queues get neither raising nor idling for service guarantees.
 */
static void bfq_handle_burst(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	if (!sched_list_empty(&bfqq->burst_list_node) || bfq_bfqq_in_large_burst(bfqq) ||
	    after_eq_jiffies(bfqd, bfqq->split_time + ms_to_jiffies(10)))
		return;
	if (before_jiffies(bfqd, bfqd->last_ins_in_burst + bfqd->bfq_burst_interval) ||
	    bfqq->entity.parent != bfqd->burst_parent_entity) {
		bfqd->large_burst = false;
		bfq_reset_burst_list(bfqd, bfqq);
	} else if (bfqd->large_burst) {
		bfq_mark_bfqq_in_large_burst(bfqq);
		bfqd->stats.burst_marked++;
		bfq_log_bfqq(bfqd, bfqq, "marked in large burst");
	} else {
		bfq_add_to_burst(bfqd, bfqq);
	}
	bfqd->last_ins_in_burst = bfqd->jiffies;
}

/* ---- queues of a process ---- */

/* The ioprio the queue takes at its next activation (bfq_set_next_ioprio_data). */
static void bfq_set_next_ioprio_data(struct bfq_data *bfqd, struct bfq_queue *bfqq,
				     const struct bfq_io_cq *bic)
{
	switch (bic->ioprio_class) {
	case SCHED_IOPRIO_CLASS_RT:
		bfqq->new_ioprio = (uint16_t)bic->ioprio;
		bfqq->new_ioprio_class = SCHED_IOPRIO_CLASS_RT;
		break;
	case SCHED_IOPRIO_CLASS_BE:
		bfqq->new_ioprio = (uint16_t)bic->ioprio;
		bfqq->new_ioprio_class = SCHED_IOPRIO_CLASS_BE;
		break;
	case SCHED_IOPRIO_CLASS_IDLE:
		bfqq->new_ioprio_class = SCHED_IOPRIO_CLASS_IDLE;
		bfqq->new_ioprio = BFQ_IOPRIO_NR_LEVELS - 1;
		/* 4.12 closed the idle window here (bfq_sw_short_ttime). */
		if (!bfq_sw(bfqd, BFQ_SW_SHORT_TTIME))
			bfq_clear_bfqq_has_short_ttime(bfqq);
		break;
	default:
		/* No ioprio: from CPU nice 0, task_nice_ioprio() = 4, class BE. */
		bfqq->new_ioprio = BFQ_DEFAULT_QUEUE_IOPRIO;
		bfqq->new_ioprio_class = SCHED_IOPRIO_CLASS_BE;
		break;
	}
	bfqq->entity.new_weight = bfq_ioprio_to_weight(bfqq->new_ioprio);
	bfqq->entity.prio_changed = 1;
}

static void bfq_init_bfqq(struct bfq_data *bfqd, struct bfq_queue *bfqq, struct bfq_io_cq *bic,
			  int32_t pid, bool is_sync)
{
	uint32_t index = bfqq->index;
	struct bfq_queue zero = { 0 };

	*bfqq = zero;
	bfqq->index = index;
	bfqq->free_next = -1;
	bfqq->alive = true;
	sched_rb_clear(&bfqq->entity.rb_node);
	sched_rb_clear(&bfqq_pos(bfqd, bfqq)->node);
	sched_rb_init(&bfqq->sort_list);
	sched_list_init(&bfqq->fifo);
	sched_list_init(&bfqq->bfqq_list);
	sched_list_init(&bfqq->burst_list_node);
	sched_list_init(&bfqq->woken_list_node);
	sched_list_init(&bfqq->woken_list);
	if (bic)
		bfq_set_next_ioprio_data(bfqd, bfqq, bic);
	if (is_sync) {
		/*
		 * "Not in the idle class": the kernel asks bfq_class_idle(bfqq), of the class
		 * the queue takes at its first activation (bfq_init_entity(), later): 0 here, so
		 * every sync queue starts with a short think time (4.12: an open idle window).
		 */
		bfq_mark_bfqq_has_short_ttime(bfqq);
		bfq_mark_bfqq_sync(bfqq);
		bfq_mark_bfqq_just_created(bfqq);
	}
	bfqq->ttime.last_end_request = bfqd->now + 1;
	bfqq->creation_time = bfqd->jiffies;
	bfqq->io_start_time = bfqd->now;
	bfq_mark_bfqq_IO_bound(bfqq);
	bfqq->pid = pid;
	/* Tentative: between throughput and latency. */
	bfqq->max_budget = (2 * bfq_max_budget(bfqd)) / 3;
	bfqq->budget_timeout = bfq_smallest_from_now(bfqd);
	bfqq->wr_coeff = 1;
	bfqq->last_wr_start_finish = bfqd->jiffies;
	bfqq->wr_start_at_switch_to_srt = bfq_smallest_from_now(bfqd);
	bfqq->split_time = bfq_smallest_from_now(bfqd);
	/* No bandwidth used yet (bfq_sw_softrt_past_io; 4.12: not soft real-time yet). */
	bfqq->soft_rt_next_start =
	    bfq_sw(bfqd, BFQ_SW_SOFTRT_PAST_IO) ? bfqd->jiffies : bfq_greatest_from_now(bfqd);
	bfqq->seek_history = 1; /* the first request is almost certainly seeky */
	bfqq->decrease_time_jif = bfqd->jiffies;
}

static struct bfq_queue **bfq_async_queue_prio(struct bfq_group *bfqg, int ioprio_class,
					       int ioprio)
{
	switch (ioprio_class) {
	case SCHED_IOPRIO_CLASS_RT:
		return &bfqg->async_bfqq[0][ioprio];
	case SCHED_IOPRIO_CLASS_IDLE:
		return &bfqg->async_idle_bfqq;
	case SCHED_IOPRIO_CLASS_BE:
		return &bfqg->async_bfqq[1][ioprio];
	default:
		return &bfqg->async_bfqq[1][BFQ_DEFAULT_QUEUE_IOPRIO];
	}
}

/* The async queue slots of a group in bfqd->queues, after the pool. */
static struct bfq_queue *bfq_async_slot(struct bfq_data *bfqd, struct bfq_group *bfqg,
					struct bfq_queue **where)
{
	struct bfq_queue *base = bfqd->queues + bfqd->nr_pool + bfqg->index * BFQ_ASYNC_PER_GROUP;

	if (where == &bfqg->async_idle_bfqq)
		return base + 2 * BFQ_IOPRIO_NR_LEVELS;
	if (where >= &bfqg->async_bfqq[0][0] && where < &bfqg->async_bfqq[1][0])
		return base + (where - &bfqg->async_bfqq[0][0]);
	return base + BFQ_IOPRIO_NR_LEVELS + (where - &bfqg->async_bfqq[1][0]);
}

static struct bfq_queue *bfq_do_early_stable_merge(struct bfq_data *bfqd, struct bfq_queue *bfqq,
						   struct bfq_io_cq *bic,
						   struct bfq_queue *last_bfqq_created)
{
	struct bfq_queue *new_bfqq = bfq_setup_merge(bfqd, bfqq, last_bfqq_created);

	if (!new_bfqq)
		return bfqq;
	if (new_bfqq->bic)
		new_bfqq->bic->bfqq_data.stably_merged = true;
	bic->bfqq_data.stably_merged = true;
	bfqd->stats.stable_merges++;
	bfqq->bic = bic;
	return bfq_merge_bfqqs(bfqd, bic, bfqq);
}

/*
 * A sync queue created within burst_interval of the previous one in its group, with the same
 * ioprio, is merged with it (stably: never split), at once on non-rotational devices with
 * queueing, else after BFQ_LATE_STABLE_MERGING_MS unless its own idling boosts throughput.
 */
static struct bfq_queue *bfq_do_or_sched_stable_merge(struct bfq_data *bfqd,
						      struct bfq_queue *bfqq,
						      struct bfq_io_cq *bic)
{
	struct bfq_queue **source = bfqq->entity.parent ? &bfqq->entity.parent->last_bfqq_created
							: &bfqd->last_bfqq_created;
	struct bfq_queue *last = *source;

	if (!last ||
	    last->creation_time + ms_to_jiffies(BFQ_ACTIVATION_STABLE_MERGING_MS) <
		    bfqq->creation_time ||
	    bfqq->entity.parent != last->entity.parent || bfqq->ioprio != last->ioprio ||
	    bfqq->ioprio_class != last->ioprio_class) {
		*source = bfqq;
	} else if (last->creation_time + bfqd->bfq_burst_interval >= bfqq->creation_time) {
		if (bfqd->nonrot_with_queueing) {
			bfqq = bfq_do_early_stable_merge(bfqd, bfqq, bic, last);
		} else {
			/* Tentative: decided once enough I/O has flowed through bfqq. */
			last->ref++;
			last->stable_ref++;
			/* One pending stable merge per process (the kernel would overwrite it). */
			if (bic->bfqq_data.stable_merge_bfqq)
				bfq_put_stable_ref(bfqd, bic->bfqq_data.stable_merge_bfqq);
			bic->bfqq_data.stable_merge_bfqq = last;
		}
	}
	return bfqq;
}

static struct bfq_queue *bfq_get_queue(struct bfq_data *bfqd, struct bfq_io_cq *bic,
				       bool is_sync, bool respawn)
{
	struct bfq_group *bfqg = &bfqd->groups[bic->group];
	struct bfq_queue **async_bfqq = NULL;
	struct bfq_queue *bfqq;

	if (!is_sync) {
		async_bfqq = bfq_async_queue_prio(bfqg, bic->ioprio_class, bic->ioprio);
		bfqq = *async_bfqq;
		if (bfqq)
			goto out;
		bfqq = bfq_async_slot(bfqd, bfqg, async_bfqq);
	} else {
		bfqq = bfq_alloc_queue(bfqd);
	}
	if (bfqq) {
		bfq_init_bfqq(bfqd, bfqq, bic, (int32_t)bic->owner, is_sync);
		bfq_init_entity(&bfqq->entity, bfqg);
		bfq_log_bfqq(bfqd, bfqq, "allocated");
	} else {
		bfqq = &bfqd->oom_bfqq;
		bfqd->stats.oom_queue++;
		bfq_log_bfqq(bfqd, bfqq, "using oom bfqq");
		goto out;
	}
	if (async_bfqq) {
		bfqq->ref++; /* the group's reference: async queues live as long as it */
		*async_bfqq = bfqq;
	}
out:
	bfqq->ref++; /* the process's reference */
	if (bfqq != &bfqd->oom_bfqq && is_sync && !respawn && bfq_sw(bfqd, BFQ_SW_STABLE_MERGE))
		bfqq = bfq_do_or_sched_stable_merge(bfqd, bfqq, bic);
	return bfqq;
}

/* Moves bfqq to bfqg's service trees (bfq_bfqq_move). */
static void bfq_bfqq_move(struct bfq_data *bfqd, struct bfq_queue *bfqq, struct bfq_group *bfqg)
{
	struct bfq_entity *entity = &bfqq->entity;
	bool has_pending_reqs = false;

	if (bfqq_group(bfqq) == bfqg || bfqq == &bfqd->oom_bfqq)
		return;
	bfqq->ref++;
	if (entity->in_groups_with_pending_reqs) {
		has_pending_reqs = true;
		bfq_del_bfqq_in_groups_with_pending_reqs(bfqd, bfqq);
	}
	if (bfqq == bfqd->in_service_queue)
		bfq_bfqq_expire(bfqd, bfqd->in_service_queue, false, BFQ_EXP_PREEMPTED);
	if (bfq_bfqq_busy(bfqq))
		bfq_deactivate_bfqq(bfqd, bfqq, false, false);
	else if (entity->on_st_or_in_serv)
		bfq_put_idle_entity(bfqd, bfq_entity_service_tree(entity), entity);
	bfq_reassign_last_bfqq(bfqd, bfqq, NULL);
	if (bfqq->pos_root) {
		sched_rb_erase(bfqq->pos_root, &bfqq_pos(bfqd, bfqq)->node);
		bfqq->pos_root = NULL;
	}
	entity->parent = bfqg->my_entity;
	entity->sched_data = &bfqg->sched_data;
	bfqq->group = bfqg;
	if (has_pending_reqs)
		bfq_add_bfqq_in_groups_with_pending_reqs(bfqd, bfqq);
	if (bfq_bfqq_busy(bfqq)) {
		if (!bfq_no_coop_merging(bfqd))
			bfq_pos_tree_add_move(bfqd, bfqq);
		bfq_activate_bfqq(bfqd, bfqq);
	}
	bfq_put_queue(bfqd, bfqq);
}

/* The process moved to another group (bfq_bic_update_cgroup / __bfq_bic_change_cgroup). */
static void bfq_bic_update_cgroup(struct bfq_data *bfqd, struct bfq_io_cq *bic, uint32_t group)
{
	struct bfq_group *bfqg = &bfqd->groups[group];
	struct bfq_queue *async_bfqq = bic->bfqq[0], *sync_bfqq = bic->bfqq[1];

	if (bic->group == group)
		return;
	bic->group = group;
	if (async_bfqq && async_bfqq->entity.sched_data != &bfqg->sched_data) {
		bic_set_bfqq(bfqd, bic, NULL, false);
		bfq_release_process_ref(bfqd, async_bfqq);
	}
	if (!sync_bfqq)
		return;
	if (!sync_bfqq->new_bfqq && !bfq_bfqq_coop(sync_bfqq)) {
		if (sync_bfqq->entity.sched_data != &bfqg->sched_data)
			bfq_bfqq_move(bfqd, sync_bfqq, bfqg);
		return;
	}
	/* A shared queue or one scheduled to merge: the process gets a new queue. */
	for (struct bfq_queue *q = sync_bfqq; q; q = q->new_bfqq) {
		if (q->entity.sched_data != &bfqg->sched_data) {
			bfq_put_cooperator(bfqd, sync_bfqq);
			bic_set_bfqq(bfqd, bic, NULL, true);
			bfq_release_process_ref(bfqd, sync_bfqq);
			break;
		}
	}
}

static void bfq_check_ioprio_change(struct bfq_data *bfqd, struct bfq_io_cq *bic,
				    const struct sched_request *rq)
{
	struct bfq_queue *bfqq;

	if (bic->ioprio_class == rq->prio_class && bic->ioprio == rq->prio_level)
		return;
	bic->ioprio_class = rq->prio_class;
	bic->ioprio = rq->prio_level;
	bfqq = bic->bfqq[0];
	if (bfqq) {
		struct bfq_queue *old = bfqq;

		bfqq = bfq_get_queue(bfqd, bic, false, true);
		bic_set_bfqq(bfqd, bic, bfqq, false);
		bfq_release_process_ref(bfqd, old);
	}
	bfqq = bic->bfqq[1];
	if (bfqq)
		bfq_set_next_ioprio_data(bfqd, bfqq, bic);
}

static struct bfq_queue *__bfq_get_bfqq_handle_split(struct bfq_data *bfqd,
						     struct bfq_io_cq *bic, bool split,
						     bool is_sync, bool *new_queue)
{
	struct bfq_queue *bfqq = bic->bfqq[is_sync];
	struct bfq_iocq_bfqq_data *d = &bic->bfqq_data;

	if (bfqq && bfqq != &bfqd->oom_bfqq)
		return bfqq;
	if (new_queue)
		*new_queue = true;
	if (bfqq)
		bfq_put_queue(bfqd, bfqq);
	bfqq = bfq_get_queue(bfqd, bic, is_sync, split);
	bic_set_bfqq(bfqd, bic, bfqq, is_sync);
	if (split && is_sync) {
		if ((d->was_in_burst_list && bfqd->large_burst) || d->saved_in_large_burst) {
			bfq_mark_bfqq_in_large_burst(bfqq);
		} else {
			bfq_clear_bfqq_in_large_burst(bfqq);
			if (d->was_in_burst_list && sched_list_empty(&bfqq->burst_list_node))
				sched_list_add(&bfqq->burst_list_node, &bfqd->burst_list);
		}
		bfqq->split_time = bfqd->jiffies;
	}
	return bfqq;
}

/* The process leaves a shared queue that turned seeky (bfq_split_bfqq). */
static struct bfq_queue *bfq_split_bfqq(struct bfq_data *bfqd, struct bfq_io_cq *bic,
					struct bfq_queue *bfqq)
{
	bfq_log_bfqq(bfqd, bfqq, "splitting queue");
	bfqd->stats.splits++;
	if (bfqq_process_refs(bfqq) == 1 &&
	    (!bfqq->new_bfqq || !bfq_sw(bfqd, BFQ_SW_MERGE_CHAIN))) {
		bfqq->pid = (int32_t)bic->owner;
		bfq_clear_bfqq_coop(bfqq);
		bfq_clear_bfqq_split_coop(bfqq);
		return bfqq;
	}
	bic_set_bfqq(bfqd, bic, NULL, true);
	bfq_put_cooperator(bfqd, bfqq);
	bfq_release_process_ref(bfqd, bfqq);
	return NULL;
}

static struct bfq_queue *bfq_waker_bfqq(struct bfq_queue *bfqq)
{
	struct bfq_queue *new_bfqq = bfqq->new_bfqq, *waker = bfqq->waker_bfqq;

	if (!waker)
		return NULL;
	for (; new_bfqq; new_bfqq = new_bfqq->new_bfqq)
		if (new_bfqq == waker)
			return bfqq_process_refs(waker) == 1 ? NULL : waker;
	return bfqq_process_refs(waker) ? waker : NULL;
}

static struct bfq_queue *bfq_get_bfqq_handle_split(struct bfq_data *bfqd, struct bfq_io_cq *bic,
						   bool is_sync)
{
	struct bfq_queue *waker_bfqq, *bfqq;
	bool new_queue = false;

	bfqq = __bfq_get_bfqq_handle_split(bfqd, bic, false, is_sync, &new_queue);
	if (new_queue)
		return bfqq;
	if (!bfq_bfqq_coop(bfqq) || !bfq_bfqq_split_coop(bfqq) || bic->bfqq_data.stably_merged)
		return bfqq;
	waker_bfqq = bfq_waker_bfqq(bfqq);
	if (bfq_bfqq_in_large_burst(bfqq))
		bic->bfqq_data.saved_in_large_burst = true;
	bfqq = bfq_split_bfqq(bfqd, bic, bfqq);
	if (bfqq) {
		bfq_bfqq_resume_state(bfqd, bfqq, bic, true);
		return bfqq;
	}
	bfqq = __bfq_get_bfqq_handle_split(bfqd, bic, true, is_sync, NULL);
	if (bfqq == &bfqd->oom_bfqq)
		return bfqq;
	bfq_bfqq_resume_state(bfqd, bfqq, bic, false);
	bfqq->waker_bfqq = waker_bfqq;
	bfqq->tentative_waker_bfqq = NULL;
	if (waker_bfqq)
		sched_list_add(&bfqq->woken_list_node, &waker_bfqq->woken_list);
	return bfqq;
}

static void bfq_init_bic(struct bfq_data *bfqd, struct bfq_io_cq *bic,
			 const struct sched_request *rq)
{
	struct bfq_io_cq fresh = { 0 };

	(void)bfqd;
	fresh.owner = bic->owner;
	/* Requests of the previous process with this owner id may still be in flight. */
	fresh.requests = bic->requests;
	fresh.ioprio_class = rq->prio_class;
	fresh.ioprio = rq->prio_level;
	fresh.group = rq->group;
	*bic = fresh;
}

/*
 * The queue a new request goes to (bfq_init_rq): the process's, after ioprio and group
 * changes and a possible split; the request holds a reference to it.
 */
struct bfq_queue *bfq_init_rq(struct bfq_data *bfqd, struct sched_request *rq)
{
	struct bfq_io_cq *bic = &bfqd->bics[rq->owner];
	bool is_sync = rq_is_sync(rq);
	struct bfq_queue *bfqq;

	if (bic->exited) {
		/* A new process with the old one's owner id: the old io context goes first. */
		if (!bic->icq_exited)
			bfq_exit_icq(bfqd, bic);
		bfq_init_bic(bfqd, bic, rq);
	} else if (bic->ioprio_class < 0) {
		bfq_init_bic(bfqd, bic, rq);
	}
	bfq_check_ioprio_change(bfqd, bic, rq);
	bfq_bic_update_cgroup(bfqd, bic, rq->group);
	bfqq = bfq_get_bfqq_handle_split(bfqd, bic, is_sync);
	bfqq_request_allocated(bfqq);
	bfqq->ref++;
	bic->requests++;
	rq->priv.queue = bfqq;
	rq->priv.aux = bic->owner;
	/* 4.12 gave the bic to a queue scheduled to merge too (bfq_sw_merge_chain): its
	 * state is then saved into this process's bic at the merge. */
	if (bfqq != &bfqd->oom_bfqq && (!bfqq->new_bfqq || !bfq_sw(bfqd, BFQ_SW_MERGE_CHAIN)) &&
	    bfqq_process_refs(bfqq) == 1)
		bfqq->bic = bic;
	if (bfq_bfqq_just_created(bfqq) && bfqd->p.burst_detection &&
	    (bfqd->burst_size > 0 || bfq_tot_busy_queues(bfqd) == 0 ||
	     !bfq_sw(bfqd, BFQ_SW_BURST_NO_ACTIVE)))
		bfq_handle_burst(bfqd, bfqq);
	return bfqq;
}

/* ---- process exit ---- */

static void bfq_exit_bfqq(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	if (bfqq == bfqd->in_service_queue)
		__bfq_bfqq_expire(bfqd, bfqq, BFQ_EXP_BUDGET_TIMEOUT);
	bfq_log_bfqq(bfqd, bfqq, "exit_bfqq: %d", bfqq->ref);
	bfq_put_cooperator(bfqd, bfqq);
	bfq_release_process_ref(bfqd, bfqq);
}

/* The io context goes away (bfq_exit_icq): the process's references to its queues. */
void bfq_exit_icq(struct bfq_data *bfqd, struct bfq_io_cq *bic)
{
	struct bfq_iocq_bfqq_data *d = &bic->bfqq_data;

	if (d->stable_merge_bfqq) {
		bfq_put_stable_ref(bfqd, d->stable_merge_bfqq);
		d->stable_merge_bfqq = NULL;
	}
	for (int sync = 1; sync >= 0; sync--) {
		struct bfq_queue *bfqq = bic->bfqq[sync];

		if (!bfqq)
			continue;
		bic_set_bfqq(bfqd, bic, NULL, sync);
		bfq_exit_bfqq(bfqd, bfqq);
	}
	bic->icq_exited = true;
}
