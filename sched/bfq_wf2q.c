// SPDX-License-Identifier: GPL-2.0
/*
 * B-WF2Q+ (block/bfq-wf2q.c of Linux 6.12): entities (queues and groups) with start and
 * finish virtual times in each class's service tree; the active tree is ordered by finish and
 * augmented with the smallest start of each subtree, so the eligible entity (start <= vtime)
 * with the smallest finish is found in O(log n); the idle tree keeps entities that went idle
 * with finish > vtime, so a quick return does not get a fresh start. Classes are strict (RT,
 * BE, IDLE) except that IDLE is served at least every BFQ_CL_IDLE_TIMEOUT.
 */
#include "bfq_internal.h"

#define entity_of(n) sched_rb_entry((n), struct bfq_entity, rb_node)

/* a > b with wrapping, as bfq_gt(). */
static inline bool bfq_gt(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) > 0;
}

static unsigned int bfq_class_idx(struct bfq_entity *entity)
{
	struct bfq_queue *bfqq = bfq_entity_to_bfqq(entity);

	/* Groups are BE (BFQ_DEFAULT_GRP_CLASS). */
	return bfqq ? bfqq->ioprio_class - 1 : SCHED_IOPRIO_CLASS_BE - 1;
}

struct bfq_service_tree *bfq_entity_service_tree(struct bfq_entity *entity)
{
	return entity->sched_data->service_tree + bfq_class_idx(entity);
}

static struct bfq_group *bfqg_of_sd(struct bfq_sched_data *sd)
{
	return sched_container_of(sd, struct bfq_group, sched_data);
}

/* ---- timestamps ---- */

static uint64_t bfq_delta(uint64_t service, uint64_t weight)
{
	return (service << WFQ_SERVICE_SHIFT) / weight;
}

static void bfq_calc_finish(struct bfq_data *bfqd, struct bfq_entity *entity, uint64_t service)
{
	struct bfq_queue *bfqq = bfq_entity_to_bfqq(entity);

	entity->finish = entity->start + bfq_delta(service, (uint64_t)entity->weight);
	if (bfqq)
		bfq_log_bfqq(bfqd, bfqq, "calc_finish: serv %llu, w %d, start %llu, finish %llu",
			     (unsigned long long)service, entity->weight,
			     (unsigned long long)entity->start, (unsigned long long)entity->finish);
}

/* ---- trees ---- */

static bool finish_less(const struct sched_rb_node *a, const struct sched_rb_node *b)
{
	return bfq_gt(entity_of(b)->finish, entity_of(a)->finish);
}

/*
 * The active tree, augmented with min_start. The kernel re-derives min_start after each insert
 * or erase by walking from the deepest modified node to the root, refreshing each node and its
 * sibling (bfq_update_active_tree()). Here the red-black primitives keep it instead, as the
 * kernel's rb_augmented trees do: a rotation hands the subtree's minimum to the node that takes
 * the subtree's place and recomputes the one that went down, and a change at a node is carried
 * up only while it changes something. Same tree, same minima, a fraction of the walking: with
 * thousands of busy queues every level is a cache miss.
 */
static inline void bfq_min_of(uint64_t *min, const struct sched_rb_node *node)
{
	if (node && bfq_gt(*min, entity_of(node)->min_start))
		*min = entity_of(node)->min_start;
}

static inline uint64_t bfq_subtree_min_start(const struct sched_rb_node *node)
{
	uint64_t min = entity_of(node)->start;

	bfq_min_of(&min, node->left);
	bfq_min_of(&min, node->right);
	return min;
}

/* Recompute min_start from node up; stop where nothing changes, but never below stop. */
static void bfq_propagate_min(struct sched_rb_node *node, const struct sched_rb_node *stop)
{
	bool forced = stop != NULL;

	for (; node; node = node->parent) {
		uint64_t min = bfq_subtree_min_start(node);

		if (!forced && min == entity_of(node)->min_start)
			return;
		entity_of(node)->min_start = min;
		if (node == stop)
			forced = false;
	}
}

static inline bool bfq_rb_red(const struct sched_rb_node *n)
{
	return n && n->red;
}

static void bfq_rb_replace_child(struct sched_rb_root *t, struct sched_rb_node *old,
				 struct sched_rb_node *new, struct sched_rb_node *parent)
{
	if (!parent)
		t->root = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
}

/* x goes down to the left; its right child y takes its place and its subtree's minimum. */
static void bfq_rb_rotate_left(struct sched_rb_root *t, struct sched_rb_node *x)
{
	struct sched_rb_node *y = x->right;

	x->right = y->left;
	if (y->left)
		y->left->parent = x;
	y->parent = x->parent;
	bfq_rb_replace_child(t, x, y, x->parent);
	y->left = x;
	x->parent = y;
	entity_of(y)->min_start = entity_of(x)->min_start;
	entity_of(x)->min_start = bfq_subtree_min_start(x);
}

static void bfq_rb_rotate_right(struct sched_rb_root *t, struct sched_rb_node *x)
{
	struct sched_rb_node *y = x->left;

	x->left = y->right;
	if (y->right)
		y->right->parent = x;
	y->parent = x->parent;
	bfq_rb_replace_child(t, x, y, x->parent);
	y->right = x;
	x->parent = y;
	entity_of(y)->min_start = entity_of(x)->min_start;
	entity_of(x)->min_start = bfq_subtree_min_start(x);
}

/* Insert by finish (equal finishes go right, after the older ones), keeping min_start. */
static void bfq_active_rb_insert(struct sched_rb_root *t, struct bfq_entity *entity)
{
	struct sched_rb_node *n = &entity->rb_node, *parent = NULL, *cur = t->root;
	bool leftmost = true, go_left = false;

	/*
	 * A finish at or past the last one (a queue re-activated after the others) goes right at
	 * every level: link below the last node without the walk, where the walk would.
	 */
	if (t->rightmost && !bfq_gt(entity_of(t->rightmost)->finish, entity->finish)) {
		parent = t->rightmost;
		leftmost = false;
		cur = NULL;
	}
	while (cur) {
		parent = cur;
		go_left = bfq_gt(entity_of(cur)->finish, entity->finish);
		leftmost &= go_left;
		cur = sched_rb_child(cur, !go_left); /* no branch to mispredict */
	}
	n->parent = parent;
	n->left = n->right = NULL;
	n->red = 1;
	entity->min_start = entity->start;
	if (!parent)
		t->root = n;
	else if (go_left)
		parent->left = n;
	else
		parent->right = n;
	sched_rb_cache_linked(t, n, parent, go_left, leftmost);
	t->count++;
	for (cur = parent; cur && bfq_gt(entity_of(cur)->min_start, entity->start);
	     cur = cur->parent)
		entity_of(cur)->min_start = entity->start;

	while (bfq_rb_red(n->parent)) {
		struct sched_rb_node *p = n->parent, *g = p->parent;
		struct sched_rb_node *u = p == g->left ? g->right : g->left;

		if (bfq_rb_red(u)) {
			p->red = u->red = 0;
			g->red = 1;
			n = g;
			continue;
		}
		if (p == g->left) {
			if (n == p->right) {
				bfq_rb_rotate_left(t, p);
				p = n;
			}
			p->red = 0;
			g->red = 1;
			bfq_rb_rotate_right(t, g);
		} else {
			if (n == p->left) {
				bfq_rb_rotate_right(t, p);
				p = n;
			}
			p->red = 0;
			g->red = 1;
			bfq_rb_rotate_left(t, g);
		}
		break;
	}
	t->root->red = 0;
}

static void bfq_rb_transplant(struct sched_rb_root *t, struct sched_rb_node *u,
			      struct sched_rb_node *v)
{
	bfq_rb_replace_child(t, u, v, u->parent);
	if (v)
		v->parent = u->parent;
}

static void bfq_active_rb_erase(struct sched_rb_root *t, struct bfq_entity *entity)
{
	struct sched_rb_node *z = &entity->rb_node, *x, *xparent, *y = z;
	int y_was_red = z->red;

	if (t->leftmost == z)
		t->leftmost = sched_rb_next(z);
	if (t->rightmost == z)
		t->rightmost = sched_rb_prev(z);
	if (!z->left || !z->right) {
		x = z->left ? z->left : z->right;
		xparent = z->parent;
		bfq_rb_transplant(t, z, x);
		/* z's ancestors lost z: carry the change up while it changes something. */
		bfq_propagate_min(xparent, NULL);
	} else {
		y = z->right;
		while (y->left)
			y = y->left;
		y_was_red = y->red;
		x = y->right;
		if (y->parent == z) {
			xparent = y;
		} else {
			xparent = y->parent;
			bfq_rb_transplant(t, y, y->right);
			y->right = z->right;
			y->right->parent = y;
		}
		bfq_rb_transplant(t, z, y);
		y->left = z->left;
		y->left->parent = y;
		y->red = z->red;
		/* From y's old parent up to y (now in z's place) every subtree changed. */
		bfq_propagate_min(xparent, y);
	}
	t->count--;
	sched_rb_clear(z);
	if (y_was_red)
		return;

	while (x != t->root && !bfq_rb_red(x)) {
		if (x == xparent->left) {
			struct sched_rb_node *w = xparent->right;

			if (bfq_rb_red(w)) {
				w->red = 0;
				xparent->red = 1;
				bfq_rb_rotate_left(t, xparent);
				w = xparent->right;
			}
			if (!bfq_rb_red(w->left) && !bfq_rb_red(w->right)) {
				w->red = 1;
				x = xparent;
				xparent = x->parent;
				continue;
			}
			if (!bfq_rb_red(w->right)) {
				w->left->red = 0;
				w->red = 1;
				bfq_rb_rotate_right(t, w);
				w = xparent->right;
			}
			w->red = xparent->red;
			xparent->red = 0;
			w->right->red = 0;
			bfq_rb_rotate_left(t, xparent);
		} else {
			struct sched_rb_node *w = xparent->left;

			if (bfq_rb_red(w)) {
				w->red = 0;
				xparent->red = 1;
				bfq_rb_rotate_right(t, xparent);
				w = xparent->left;
			}
			if (!bfq_rb_red(w->right) && !bfq_rb_red(w->left)) {
				w->red = 1;
				x = xparent;
				xparent = x->parent;
				continue;
			}
			if (!bfq_rb_red(w->left)) {
				w->right->red = 0;
				w->red = 1;
				bfq_rb_rotate_left(t, w);
				w = xparent->left;
			}
			w->red = xparent->red;
			xparent->red = 0;
			w->left->red = 0;
			bfq_rb_rotate_right(t, xparent);
		}
		x = t->root;
		break;
	}
	if (x)
		x->red = 0;
}

static void bfq_extract(struct sched_rb_root *root, struct bfq_entity *entity)
{
	entity->tree = NULL;
	sched_rb_erase(root, &entity->rb_node);
}

/* Into an idle tree by finish (equal finishes go right, as finish_less() orders them). */
static void bfq_insert(struct sched_rb_root *root, struct bfq_entity *entity)
{
	struct sched_rb_node *parent = NULL, *cur = root->root;
	bool go_left = false;

	while (cur) {
		parent = cur;
		go_left = bfq_gt(entity_of(cur)->finish, entity->finish);
		cur = go_left ? cur->left : cur->right;
	}
	sched_rb_insert_at(root, &entity->rb_node, parent, go_left,
			   !parent || (go_left && root->leftmost == parent));
	entity->tree = root;
}

static void bfq_inc_active_entities(struct bfq_data *bfqd, struct bfq_entity *entity)
{
	struct bfq_group *bfqg = bfqg_of_sd(entity->sched_data);

	if (bfqg != bfqd->root_group)
		bfqg->active_entities++;
}

static void bfq_dec_active_entities(struct bfq_data *bfqd, struct bfq_entity *entity)
{
	struct bfq_group *bfqg = bfqg_of_sd(entity->sched_data);

	if (bfqg != bfqd->root_group)
		bfqg->active_entities--;
}

static void bfq_active_insert(struct bfq_data *bfqd, struct bfq_service_tree *st,
			      struct bfq_entity *entity)
{
	struct bfq_queue *bfqq = bfq_entity_to_bfqq(entity);

	bfq_active_rb_insert(&st->active, entity);
	entity->tree = &st->active;
	if (bfqq)
		sched_list_add(&bfqq->bfqq_list, &bfqd->active_list);
	else
		bfq_group_weights_tree_add(bfqd, entity);
	bfq_inc_active_entities(bfqd, entity);
}

static void bfq_active_extract(struct bfq_data *bfqd, struct bfq_service_tree *st,
			       struct bfq_entity *entity)
{
	struct bfq_queue *bfqq = bfq_entity_to_bfqq(entity);

	entity->tree = NULL;
	bfq_active_rb_erase(&st->active, entity);
	if (bfqq)
		sched_list_del_init(&bfqq->bfqq_list);
	else
		bfq_group_weights_tree_remove(bfqd, entity);
	bfq_dec_active_entities(bfqd, entity);
}

static void bfq_idle_insert(struct bfq_service_tree *st, struct bfq_entity *entity)
{
	if (!st->first_idle || bfq_gt(st->first_idle->finish, entity->finish))
		st->first_idle = entity;
	if (!st->last_idle || bfq_gt(entity->finish, st->last_idle->finish))
		st->last_idle = entity;
	bfq_insert(&st->idle, entity);
}

static void bfq_idle_extract(struct bfq_service_tree *st, struct bfq_entity *entity)
{
	struct sched_rb_node *n;

	if (entity == st->first_idle) {
		n = sched_rb_next(&entity->rb_node);
		st->first_idle = n ? entity_of(n) : NULL;
	}
	if (entity == st->last_idle) {
		n = sched_rb_prev(&entity->rb_node);
		st->last_idle = n ? entity_of(n) : NULL;
	}
	bfq_extract(&st->idle, entity);
}

/* The service reference a queue holds while on a tree or in service (bfq_get_entity). */
static void bfq_get_entity(struct bfq_entity *entity)
{
	struct bfq_queue *bfqq = bfq_entity_to_bfqq(entity);

	if (bfqq)
		bfqq->ref++;
}

static void bfq_forget_entity(struct bfq_data *bfqd, struct bfq_service_tree *st,
			      struct bfq_entity *entity, bool is_in_service)
{
	struct bfq_queue *bfqq = bfq_entity_to_bfqq(entity);

	entity->on_st_or_in_serv = false;
	st->wsum -= (uint64_t)entity->weight;
	if (bfqq && !is_in_service)
		bfq_put_queue(bfqd, bfqq);
}

void bfq_put_idle_entity(struct bfq_data *bfqd, struct bfq_service_tree *st,
			 struct bfq_entity *entity)
{
	bfq_idle_extract(st, entity);
	bfq_forget_entity(bfqd, st, entity, entity == entity->sched_data->in_service_entity);
}

/* Drop idle entities whose finish the virtual time has passed (one at a time: O(log n)). */
static void bfq_forget_idle(struct bfq_data *bfqd, struct bfq_service_tree *st)
{
	struct bfq_entity *first_idle = st->first_idle, *last_idle = st->last_idle;

	if (sched_rb_empty(&st->active) && last_idle && !bfq_gt(last_idle->finish, st->vtime)) {
		/* Forget the whole idle tree, moving vtime past it. */
		st->vtime = last_idle->finish;
	}
	if (first_idle && !bfq_gt(first_idle->finish, st->vtime))
		bfq_put_idle_entity(bfqd, st, first_idle);
}

/* ---- weights and classes ---- */

uint16_t bfq_ioprio_to_weight(int ioprio)
{
	return (uint16_t)((BFQ_IOPRIO_NR_LEVELS - ioprio) * BFQ_WEIGHT_CONVERSION_COEFF);
}

static uint16_t bfq_weight_to_ioprio(int weight)
{
	int p = BFQ_IOPRIO_NR_LEVELS - weight / BFQ_WEIGHT_CONVERSION_COEFF;

	return (uint16_t)(p > 0 ? p : 0);
}

/*
 * A pending weight, class or raising change takes effect: wsum, the weights tree and (class
 * change) the service tree follow. update_class_too only when the entity is on no tree.
 */
struct bfq_service_tree *__bfq_entity_update_weight_prio(struct bfq_data *bfqd,
							 struct bfq_service_tree *old_st,
							 struct bfq_entity *entity,
							 bool update_class_too)
{
	struct bfq_service_tree *new_st = old_st;
	struct bfq_queue *bfqq;
	int prev_weight, new_weight;

	if (!entity->prio_changed)
		return new_st;
	bfqq = bfq_entity_to_bfqq(entity);
	old_st->wsum -= (uint64_t)entity->weight;
	if (entity->new_weight != entity->orig_weight) {
		if (entity->new_weight < BFQ_MIN_WEIGHT)
			entity->new_weight = BFQ_MIN_WEIGHT;
		else if (entity->new_weight > BFQ_MAX_WEIGHT)
			entity->new_weight = BFQ_MAX_WEIGHT;
		entity->orig_weight = entity->new_weight;
		if (bfqq)
			bfqq->ioprio = bfq_weight_to_ioprio(entity->orig_weight);
	}
	if (bfqq && update_class_too)
		bfqq->ioprio_class = bfqq->new_ioprio_class;
	if (!bfqq || bfqq->ioprio_class == bfqq->new_ioprio_class)
		entity->prio_changed = 0;

	new_st = bfq_entity_service_tree(entity);
	prev_weight = entity->weight;
	new_weight = entity->orig_weight * (bfqq ? (int)bfqq->wr_coeff : 1);
	/* Raised queues stay out of the weights tree: they do not make a scenario asymmetric. */
	if (prev_weight != new_weight && bfqq)
		bfq_weights_tree_remove(bfqd, bfqq);
	else if (prev_weight != new_weight)
		bfq_group_weights_tree_remove(bfqd, entity);
	entity->weight = new_weight;
	if (prev_weight != new_weight && bfqq && bfqq->wr_coeff == 1)
		bfq_weights_tree_add(bfqd, bfqq);
	else if (prev_weight != new_weight && !bfqq)
		bfq_group_weights_tree_add(bfqd, entity);
	new_st->wsum += (uint64_t)entity->weight;
	if (new_st != old_st)
		entity->start = new_st->vtime;
	return new_st;
}

/* ---- service ---- */

void bfq_bfqq_served(struct bfq_data *bfqd, struct bfq_queue *bfqq, int served)
{
	struct bfq_entity *entity = &bfqq->entity;

	/* Service since the queue became busy, and when it began (bfq_sw_merge_time_limit; 4.12
	 * summed it at each expiration). */
	if (bfq_sw(bfqd, BFQ_SW_MERGE_TIME_LIMIT)) {
		if (!bfqq->service_from_backlogged)
			bfqq->first_IO_time = bfqd->jiffies;
		bfqq->service_from_backlogged += (uint64_t)served;
	}
	if (bfqq->wr_coeff > 1)
		bfqq->service_from_wr += (uint64_t)served;
	for (; entity; entity = entity->parent) {
		struct bfq_service_tree *st = bfq_entity_service_tree(entity);

		entity->service += served;
		st->vtime += bfq_delta((uint64_t)served, st->wsum);
		bfq_forget_idle(bfqd, st);
	}
}

/*
 * A slow queue is charged the service it would have had at the peak rate for the time it
 * held the device: time fairness instead of service fairness (bfq_bfqq_charge_time).
 */
void bfq_bfqq_charge_time(struct bfq_data *bfqd, struct bfq_queue *bfqq, uint64_t time_ms)
{
	struct bfq_entity *entity = &bfqq->entity;
	uint64_t timeout_ms = jiffies_to_ms(BFQ_TIMEOUT); /* the constant, not timeout_sync's */
	uint64_t bounded = time_ms < timeout_ms ? time_ms : timeout_ms;
	int serv_for_time = timeout_ms ? (int)((uint64_t)bfqd->bfq_max_budget * bounded /
					       timeout_ms) : 0;
	int tot;

	/* 4.12 charged by time only a slot under the timeout (bfq_sw_charge_time_bounded). */
	if (!bfq_sw(bfqd, BFQ_SW_CHARGE_TIME_BOUNDED) && (time_ms == 0 || time_ms >= timeout_ms))
		serv_for_time = entity->service;
	tot = serv_for_time > entity->service ? serv_for_time : entity->service;

	bfqd->stats.charged_time++;
	if (tot > entity->budget)
		entity->budget = tot;
	bfq_bfqq_served(bfqd, bfqq, tot - entity->service > 0 ? tot - entity->service : 0);
}

static void bfq_update_fin_time_enqueue(struct bfq_data *bfqd, struct bfq_entity *entity,
					struct bfq_service_tree *st, bool backshifted)
{
	struct bfq_queue *bfqq = bfq_entity_to_bfqq(entity);

	st = __bfq_entity_update_weight_prio(bfqd, st, entity, true);
	bfq_calc_finish(bfqd, entity, (uint64_t)entity->budget);
	/*
	 * Backshifted timestamps lower than vtime are pushed up to it, much less for raised
	 * queues, so that lucky queues cannot monopolize the device.
	 */
	if (backshifted && bfq_gt(st->vtime, entity->finish)) {
		uint64_t delta = st->vtime - entity->finish;

		if (bfqq)
			delta /= bfqq->wr_coeff;
		entity->start += delta;
		entity->finish += delta;
	}
	bfq_active_insert(bfqd, st, entity);
}

/* A true activation: not in service, not on the active tree. */
static void __bfq_activate_entity(struct bfq_data *bfqd, struct bfq_entity *entity,
				  bool non_blocking_wait_rq)
{
	struct bfq_service_tree *st = bfq_entity_service_tree(entity);
	bool backshifted = false;
	uint64_t min_vstart;

	/* A queue that was waiting for its next request keeps its old timestamps. */
	if (non_blocking_wait_rq && bfq_gt(st->vtime, entity->finish)) {
		backshifted = true;
		min_vstart = entity->finish;
	} else {
		min_vstart = st->vtime;
	}
	if (entity->tree == &st->idle) {
		bfq_idle_extract(st, entity);
		entity->start = bfq_gt(min_vstart, entity->finish) ? min_vstart : entity->finish;
	} else {
		entity->start = min_vstart;
		st->wsum += (uint64_t)entity->weight;
		bfq_get_entity(entity);
		entity->on_st_or_in_serv = true;
	}
	bfq_update_fin_time_enqueue(bfqd, entity, st, backshifted);
}

/* Requeue an entity leaving service, or reposition an active one whose budget changed. */
static void __bfq_requeue_entity(struct bfq_data *bfqd, struct bfq_entity *entity)
{
	struct bfq_sched_data *sd = entity->sched_data;
	struct bfq_service_tree *st = bfq_entity_service_tree(entity);

	if (entity == sd->in_service_entity) {
		/* The start moves forward by the service received while in service. */
		bfq_calc_finish(bfqd, entity, (uint64_t)entity->service);
		entity->start = entity->finish;
		if (entity->tree)
			bfq_active_extract(bfqd, st, entity);
	} else {
		bfq_active_extract(bfqd, st, entity);
	}
	bfq_update_fin_time_enqueue(bfqd, entity, st, false);
}

static void __bfq_activate_requeue_entity(struct bfq_data *bfqd, struct bfq_entity *entity,
					  bool non_blocking_wait_rq)
{
	struct bfq_service_tree *st = bfq_entity_service_tree(entity);

	if (entity->sched_data->in_service_entity == entity || entity->tree == &st->active)
		__bfq_requeue_entity(bfqd, entity);
	else
		__bfq_activate_entity(bfqd, entity, non_blocking_wait_rq);
}

/* ---- next in service ---- */

static struct bfq_entity *bfq_lookup_next_entity(struct bfq_data *bfqd,
						 struct bfq_sched_data *sd, bool expiration);

/* A group's budget follows its next-in-service child's; true if that may change the parent. */
static bool bfq_update_parent_budget(struct bfq_entity *next_in_service)
{
	struct bfq_group *bfqg = bfqg_of_sd(next_in_service->sched_data);
	struct bfq_entity *bfqg_entity = bfqg->my_entity;
	bool ret = false;

	if (bfqg_entity) {
		if (bfqg_entity->budget > next_in_service->budget)
			ret = true;
		bfqg_entity->budget = next_in_service->budget;
	}
	return ret;
}

/*
 * sd->next_in_service after new_entity was activated, requeued or repositioned (a full
 * lookup only when needed). True when the parent's schedule may change.
 */
static bool bfq_update_next_in_service(struct bfq_data *bfqd, struct bfq_sched_data *sd,
				       struct bfq_entity *new_entity, bool expiration)
{
	struct bfq_entity *next_in_service = sd->next_in_service;
	bool parent_sched_may_change = false;
	bool change_without_lookup = false;

	bool lookup_on_miss = bfq_sw(bfqd, BFQ_SW_NIS_LOOKUP);

	if (new_entity && new_entity != sd->next_in_service) {
		change_without_lookup = true;
		if (next_in_service) {
			unsigned int idx = bfq_class_idx(new_entity);
			struct bfq_service_tree *st = sd->service_tree + idx;

			change_without_lookup = idx == bfq_class_idx(next_in_service) &&
						!bfq_gt(new_entity->start, st->vtime) &&
						bfq_gt(next_in_service->finish, new_entity->finish);
			/* 4.12: a higher class displaced it at once (bfq_sw_nis_class_lookup). */
			if (!bfq_sw(bfqd, BFQ_SW_NIS_CLASS_LOOKUP) &&
			    idx < bfq_class_idx(next_in_service))
				change_without_lookup = true;
		}
		if (change_without_lookup)
			next_in_service = new_entity;
		else if (!lookup_on_miss)
			change_without_lookup = true; /* 4.12: the next stays (bfq_sw_nis_lookup) */
	}
	if (!change_without_lookup)
		next_in_service = bfq_lookup_next_entity(bfqd, sd, expiration);
	if (next_in_service) {
		/* 4.12 updated the parent's budget only if there was a next already. */
		if (lookup_on_miss) {
			bool new_budget_triggers_change = bfq_update_parent_budget(next_in_service);

			parent_sched_may_change =
			    !sd->next_in_service || new_budget_triggers_change;
		} else {
			parent_sched_may_change =
			    !sd->next_in_service || bfq_update_parent_budget(next_in_service);
		}
	}
	if (next_in_service && next_in_service != sd->next_in_service) {
		struct bfq_queue *bfqq = bfq_entity_to_bfqq(next_in_service);

		/*
		 * The queue served next, known before its turn: with thousands of queues its lines
		 * went cold since its last turn, and its dispatch reads them one after another.
		 * Fetching them now (lines 1-6; the walk that found it read line 0) overlaps those
		 * misses with the work until then (no effect on the schedule: a hint to the CPU
		 * only).
		 */
		if (bfqq)
			for (size_t off = BFQ_CACHE_LINE; off < 7 * BFQ_CACHE_LINE;
			     off += BFQ_CACHE_LINE)
				__builtin_prefetch((const char *)bfqq + off);
	}
	sd->next_in_service = next_in_service;
	return parent_sched_may_change;
}

/* A group with one active child is no candidate while that child is in service. */
static bool bfq_no_longer_next_in_service(struct bfq_entity *entity)
{
	struct bfq_group *bfqg;

	if (bfq_entity_to_bfqq(entity))
		return true;
	bfqg = sched_container_of(entity, struct bfq_group, entity);
	return bfqg->active_entities == 1;
}

static void bfq_activate_requeue_entity(struct bfq_data *bfqd, struct bfq_entity *entity,
					bool non_blocking_wait_rq, bool requeue, bool expiration)
{
	for (; entity; entity = entity->parent) {
		__bfq_activate_requeue_entity(bfqd, entity, non_blocking_wait_rq);
		if (!bfq_update_next_in_service(bfqd, entity->sched_data, entity, expiration) &&
		    !requeue)
			break;
	}
}

/* Off the active tree (and into the idle tree if its finish is still ahead of vtime). */
static bool __bfq_deactivate_entity(struct bfq_data *bfqd, struct bfq_entity *entity,
				    bool ins_into_idle_tree)
{
	struct bfq_sched_data *sd = entity->sched_data;
	struct bfq_service_tree *st;
	bool is_in_service;

	if (!entity->on_st_or_in_serv)
		return false;
	st = bfq_entity_service_tree(entity);
	is_in_service = entity == sd->in_service_entity;
	/* 4.12 charged only the entity in service, and left it in service on its sched_data
	 * until the expiration's end (bfq_sw_charge_deactivated). */
	if (is_in_service || bfq_sw(bfqd, BFQ_SW_CHARGE_DEACTIVATED))
		bfq_calc_finish(bfqd, entity, (uint64_t)entity->service);
	if (bfq_sw(bfqd, BFQ_SW_CHARGE_DEACTIVATED)) {
		if (is_in_service)
			sd->in_service_entity = NULL;
		else
			entity->service = 0;
	}
	if (entity->tree == &st->active)
		bfq_active_extract(bfqd, st, entity);
	else if (!is_in_service && entity->tree == &st->idle)
		bfq_idle_extract(st, entity);
	if (!ins_into_idle_tree || !bfq_gt(entity->finish, st->vtime))
		bfq_forget_entity(bfqd, st, entity, is_in_service);
	else
		bfq_idle_insert(st, entity);
	return true;
}

static void bfq_deactivate_entity(struct bfq_data *bfqd, struct bfq_entity *entity,
				  bool ins_into_idle_tree, bool expiration)
{
	struct bfq_sched_data *sd;
	struct bfq_entity *parent = NULL;

	for (; entity; entity = parent) {
		parent = entity->parent;
		sd = entity->sched_data;
		if (!__bfq_deactivate_entity(bfqd, entity, ins_into_idle_tree))
			return;
		if (sd->next_in_service == entity)
			bfq_update_next_in_service(bfqd, sd, NULL, expiration);
		/* The parent is still active (4.12: only with a next in service,
		 * bfq_sw_deact_in_service). */
		if (sd->next_in_service ||
		    (sd->in_service_entity && bfq_sw(bfqd, BFQ_SW_DEACT_IN_SERVICE)))
			break;
		/* The parent has nothing left: it goes idle too (to the idle tree). */
		ins_into_idle_tree = true;
	}
	/* Requeue or reposition the ancestors still active. */
	for (entity = parent; entity; entity = entity->parent) {
		__bfq_requeue_entity(bfqd, entity);
		sd = entity->sched_data;
		if (!bfq_update_next_in_service(bfqd, sd, entity, expiration) && !expiration)
			break;
	}
}

static uint64_t bfq_calc_vtime_jump(struct bfq_service_tree *st)
{
	struct bfq_entity *root_entity = entity_of(st->active.root);

	if (bfq_gt(root_entity->min_start, st->vtime))
		return root_entity->min_start;
	return st->vtime;
}

static void bfq_update_vtime(struct bfq_data *bfqd, struct bfq_service_tree *st,
			     uint64_t new_value)
{
	if (new_value > st->vtime) {
		st->vtime = new_value;
		bfq_forget_idle(bfqd, st);
	}
}

/* The eligible (start <= vtime) entity with the smallest finish, using min_start. */
static struct bfq_entity *bfq_first_active_entity(struct bfq_service_tree *st, uint64_t vtime)
{
	struct bfq_entity *entry, *first = NULL;
	struct sched_rb_node *node = st->active.root;

	while (node) {
		entry = entity_of(node);
	left:
		if (!bfq_gt(entry->start, vtime))
			first = entry;
		if (node->left) {
			entry = entity_of(node->left);
			if (!bfq_gt(entry->min_start, vtime)) {
				node = node->left;
				goto left;
			}
		}
		if (first)
			break;
		node = node->right;
	}
	return first;
}

static struct bfq_entity *__bfq_lookup_next_entity(struct bfq_data *bfqd,
						   struct bfq_service_tree *st, bool in_service)
{
	uint64_t new_vtime;

	if (sched_rb_empty(&st->active))
		return NULL;
	/* The virtual time for which at least one entity is eligible. */
	new_vtime = bfq_calc_vtime_jump(st);
	if (!in_service)
		bfq_update_vtime(bfqd, st, new_vtime);
	return bfq_first_active_entity(st, new_vtime);
}

static struct bfq_entity *bfq_lookup_next_entity(struct bfq_data *bfqd,
						 struct bfq_sched_data *sd, bool expiration)
{
	struct bfq_service_tree *st = sd->service_tree;
	struct bfq_service_tree *idle_class_st = st + (BFQ_IOPRIO_CLASSES - 1);
	struct bfq_entity *entity = NULL;
	int class_idx = 0;

	/* The IDLE class gets the device at least every BFQ_CL_IDLE_TIMEOUT. */
	if (before_jiffies(bfqd, sd->bfq_class_idle_last_service + BFQ_CL_IDLE_TIMEOUT)) {
		if (!sched_rb_empty(&idle_class_st->active))
			class_idx = BFQ_IOPRIO_CLASSES - 1;
		sd->bfq_class_idle_last_service = bfqd->jiffies;
	}
	for (; class_idx < BFQ_IOPRIO_CLASSES; class_idx++) {
		/* 4.12 kept vtime while an entity was in service, expiring or not
		 * (bfq_sw_vtime_expiration). */
		entity = __bfq_lookup_next_entity(
		    bfqd, st + class_idx,
		    sd->in_service_entity &&
			(!expiration || !bfq_sw(bfqd, BFQ_SW_VTIME_EXPIRATION)));
		if (entity)
			break;
	}
	return entity;
}

bool next_queue_may_preempt(struct bfq_data *bfqd)
{
	struct bfq_sched_data *sd = &bfqd->root_group->sched_data;

	return sd->next_in_service != sd->in_service_entity;
}

/* Sets in service the path from the root to the next leaf; returns the queue. */
struct bfq_queue *bfq_get_next_queue(struct bfq_data *bfqd)
{
	struct bfq_entity *entity = NULL;
	struct bfq_sched_data *sd;

	if (!bfq_tot_busy_queues(bfqd))
		return NULL;
	for (sd = &bfqd->root_group->sched_data; sd; sd = entity->my_sched_data) {
		entity = sd->next_in_service;
		if (!entity)
			return NULL;
		sd->in_service_entity = entity;
		/* 4.12 reset the service here, not at expiration (bfq_sw_service_at_expiration). */
		if (!bfq_sw(bfqd, BFQ_SW_SERVICE_AT_EXPIRATION))
			entity->service = 0;
		if (bfq_no_longer_next_in_service(entity))
			bfq_active_extract(bfqd, bfq_entity_service_tree(entity), entity);
	}
	for (struct bfq_entity *e = entity; e; e = e->parent)
		if (!bfq_update_next_in_service(bfqd, e->sched_data, NULL, false))
			break;
	return bfq_entity_to_bfqq(entity);
}

/* The last step of an expiration. True when the in-service queue was freed. */
bool __bfq_bfqd_reset_in_service(struct bfq_data *bfqd)
{
	struct bfq_queue *in_serv_bfqq = bfqd->in_service_queue;
	struct bfq_entity *in_serv_entity = &in_serv_bfqq->entity;

	bfq_clear_bfqq_wait_request(in_serv_bfqq);
	bfq_del_timer(bfqd);
	bfqd->in_service_queue = NULL;
	for (struct bfq_entity *e = in_serv_entity; e; e = e->parent)
		e->sched_data->in_service_entity = NULL;
	if (!in_serv_entity->on_st_or_in_serv) {
		int ref = in_serv_bfqq->ref;

		bfq_put_queue(bfqd, in_serv_bfqq);
		if (ref == 1)
			return true;
	}
	return false;
}

void bfq_deactivate_bfqq(struct bfq_data *bfqd, struct bfq_queue *bfqq, bool ins_into_idle_tree,
			 bool expiration)
{
	bfq_deactivate_entity(bfqd, &bfqq->entity, ins_into_idle_tree, expiration);
}

void bfq_activate_bfqq(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	bfq_activate_requeue_entity(bfqd, &bfqq->entity, bfq_bfqq_non_blocking_wait_rq(bfqq),
				    false, false);
	bfq_clear_bfqq_non_blocking_wait_rq(bfqq);
}

void bfq_requeue_bfqq(struct bfq_data *bfqd, struct bfq_queue *bfqq, bool expiration)
{
	bfq_activate_requeue_entity(bfqd, &bfqq->entity, false, bfqq == bfqd->in_service_queue,
				    expiration);
}

void bfq_add_bfqq_in_groups_with_pending_reqs(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct bfq_entity *entity = &bfqq->entity;

	if (!entity->in_groups_with_pending_reqs) {
		entity->in_groups_with_pending_reqs = true;
		if (!(bfqq_group(bfqq)->num_queues_with_pending_reqs++))
			bfqd->num_groups_with_pending_reqs++;
	}
}

void bfq_del_bfqq_in_groups_with_pending_reqs(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct bfq_entity *entity = &bfqq->entity;

	if (entity->in_groups_with_pending_reqs) {
		entity->in_groups_with_pending_reqs = false;
		if (!(--bfqq_group(bfqq)->num_queues_with_pending_reqs))
			bfqd->num_groups_with_pending_reqs--;
	}
}

/* The queue has no request left (or is expired empty): off the service trees. */
void bfq_del_bfqq_busy(struct bfq_data *bfqd, struct bfq_queue *bfqq, bool expiration)
{
	bfq_log_bfqq(bfqd, bfqq, "del from busy");
	bfq_clear_bfqq_busy(bfqq);
	bfqd->busy_queues[bfqq->ioprio_class - 1]--;
	if (bfqq->wr_coeff > 1)
		bfqd->wr_busy_queues--;
	bfq_deactivate_bfqq(bfqd, bfqq, true, expiration);
	if (!bfqq->dispatched) {
		bfq_del_bfqq_in_groups_with_pending_reqs(bfqd, bfqq);
		/* Last: it may free the queue. */
		bfq_weights_tree_remove(bfqd, bfqq);
	}
}

/* An inactive queue got a request. */
void bfq_add_bfqq_busy(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	bfq_log_bfqq(bfqd, bfqq, "add to busy");
	bfq_activate_bfqq(bfqd, bfqq);
	bfq_mark_bfqq_busy(bfqq);
	bfqd->busy_queues[bfqq->ioprio_class - 1]++;
	if (!bfqq->dispatched) {
		bfq_add_bfqq_in_groups_with_pending_reqs(bfqd, bfqq);
		if (bfqq->wr_coeff == 1)
			bfq_weights_tree_add(bfqd, bfqq);
	}
	if (bfqq->wr_coeff > 1)
		bfqd->wr_busy_queues++;
	/*
	 * The queue moves to the head of its waker's woken list. The kernel tests the list node
	 * first; waker_bfqq first here, the same test: it shares a line with what every request
	 * reads (bic, split_time), the node does not (with thousands of queues, a miss less).
	 */
	if (bfqq->waker_bfqq && !sched_list_empty(&bfqq->woken_list_node) &&
	    bfqq->waker_bfqq->woken_list.next != &bfqq->woken_list_node) {
		sched_list_del_init(&bfqq->woken_list_node);
		sched_list_add(&bfqq->woken_list_node, &bfqq->waker_bfqq->woken_list);
	}
}

/* ---- set-up and checks ---- */

void bfq_init_entity(struct bfq_entity *entity, struct bfq_group *bfqg)
{
	struct bfq_queue *bfqq = bfq_entity_to_bfqq(entity);

	entity->weight = entity->new_weight;
	entity->orig_weight = entity->new_weight;
	if (bfqq) {
		bfqq->ioprio = bfqq->new_ioprio;
		bfqq->ioprio_class = bfqq->new_ioprio_class;
		bfqq->group = bfqg;
	}
	entity->parent = bfqg->my_entity;
	entity->sched_data = &bfqg->sched_data;
}

void bfq_init_sched_data(struct bfq_data *bfqd, struct bfq_sched_data *sd)
{
	sd->in_service_entity = NULL;
	sd->next_in_service = NULL;
	for (int i = 0; i < BFQ_IOPRIO_CLASSES; i++) {
		struct bfq_service_tree *st = &sd->service_tree[i];

		sched_rb_init(&st->active);
		sched_rb_init(&st->idle);
		st->first_idle = st->last_idle = NULL;
		st->vtime = 0;
		st->wsum = 0;
	}
	/* The root's at init (bfq_init_root_group()); a group's is zeroed (bfq_pd_alloc()): its
	 * idle class is served at its first lookup. */
	sd->bfq_class_idle_last_service = sd == &bfqd->root_group->sched_data ? bfqd->jiffies : 0;
}

static bool check_min_start(const struct sched_rb_node *n, uint64_t *min)
{
	uint64_t m, l, r;
	const struct bfq_entity *e;

	if (!n)
		return true;
	e = entity_of(n);
	m = e->start;
	if (n->left) {
		if (!check_min_start(n->left, &l))
			return false;
		if (bfq_gt(m, l))
			m = l;
	}
	if (n->right) {
		if (!check_min_start(n->right, &r))
			return false;
		if (bfq_gt(m, r))
			m = r;
	}
	*min = m;
	return e->min_start == m;
}

static bool check_sd(const struct bfq_sched_data *sd)
{
	for (int i = 0; i < BFQ_IOPRIO_CLASSES; i++) {
		const struct bfq_service_tree *st = &sd->service_tree[i];
		uint64_t m;

		if (sched_rb_validate(&st->active, finish_less) < 0 ||
		    sched_rb_validate(&st->idle, finish_less) < 0)
			return false;
		if (!check_min_start(st->active.root, &m))
			return false;
		if (st->first_idle != (st->idle.root ? entity_of(st->idle.leftmost) : NULL))
			return false;
	}
	return true;
}

static bool pos_key_less(const struct sched_rb_node *a, const struct sched_rb_node *b)
{
	return bfq_pos_of(a)->key < bfq_pos_of(b)->key;
}

/* The red-black structure alone: 4.12's position tree is not sorted by the keys it has now. */
static bool pos_any_order(const struct sched_rb_node *a, const struct sched_rb_node *b)
{
	(void)a;
	(void)b;
	return false;
}

bool bfq_wf2q_check(const struct bfq_data *bfqd)
{
	/* Without bfq_sw_pos_tree_on_removal a queue keeps its node when its next request
	 * changes at a dispatch, as in 4.12, and with merging when a front merge moves its next
	 * request (bfq_pos_key_update()): the keys need not be in order. */
	sched_rb_less_fn pos_less =
	    bfqd->p.sw[BFQ_SW_POS_TREE_ON_REMOVAL] && !bfqd->stats.pos_key_moved ? pos_key_less
										 : pos_any_order;

	for (uint32_t g = 0; g < bfqd->nr_groups; g++)
		if (!check_sd(&bfqd->groups[g].sched_data) ||
		    sched_rb_validate(&bfqd->groups[g].rq_pos_tree, pos_less) < 0)
			return false;
	return true;
}
