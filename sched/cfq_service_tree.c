// SPDX-License-Identifier: GPL-2.0
/*
 * CFQ service trees and group scheduling: queue service trees keyed by rb_key, the group
 * service tree keyed by vdisktime with weights (vfraction), group charging in time or IOPS
 * mode, slice lengths (prio scaling, low_latency/target_latency scaling), workload class/type
 * choice, and the selection of the active queue (cfq_select_queue).
 */
#include "cfq_internal.h"

#define cfqg_of_rb(n) sched_rb_entry((n), struct cfq_group, rb_node)

/*
 * a * b / c as 4.19 computes it (div64_u64(a * b, c)): the product in u64, so it wraps when it
 * does not fit, which the sysfs ranges allow (slice * group_slice with a slice_sync and a
 * target_latency of a few seconds each: 4.455 s x 9.1 s); the slices are then the kernel's.
 */
static uint64_t cfq_mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	if (!c)
		return 0; /* never: every divisor is a slice or a queue count, not 0 */
	return a * b / c;
}

/*
 * The same with the jiffy clock (cfq_sw_ns_clock off): before 4.10 these slices were unsigned
 * int, so the product wraps in 32 bits.
 */
static uint64_t cfq_slice_mul_div(const struct cfq_data *cfqd, uint64_t a, uint64_t b, uint64_t c)
{
	if (!cfqd->jclock)
		return cfq_mul_div(a, b, c);
	if (!(uint32_t)c)
		return 0;
	return (uint32_t)((uint32_t)a * (uint32_t)b) / (uint32_t)c;
}

static bool time_before(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) < 0;
}

/* ---- slices ---- */

/* base + base/5 * (4 - prio): level 0 gets 1.8x, level 7 0.4x. */
uint64_t cfq_prio_slice(const struct cfq_data *cfqd, bool sync, unsigned int prio)
{
	uint64_t base = cfqd->p.slice[sync];
	int64_t step = (int64_t)(base / CFQ_SLICE_SCALE);

	return (uint64_t)((int64_t)base + step * (4 - (int)prio));
}

static uint64_t cfq_prio_to_slice(const struct cfq_data *cfqd, const struct cfq_queue *cfqq)
{
	return cfq_prio_slice(cfqd, cfq_cfqq_sync(cfqq), cfqq->ioprio);
}

static unsigned int cfq_group_busy_queues_wl(enum cfq_wl_class wl_class,
					     const struct cfq_group *cfqg)
{
	if (wl_class == IDLE_WORKLOAD)
		return cfq_st_count(&cfqg->service_tree_idle);
	return cfq_st_count(&cfqg->service_trees[wl_class][ASYNC_WORKLOAD]) +
	       cfq_st_count(&cfqg->service_trees[wl_class][SYNC_NOIDLE_WORKLOAD]) +
	       cfq_st_count(&cfqg->service_trees[wl_class][SYNC_WORKLOAD]);
}

static unsigned int cfqg_busy_async_queues(const struct cfq_group *cfqg)
{
	return cfq_st_count(&cfqg->service_trees[RT_WORKLOAD][ASYNC_WORKLOAD]) +
	       cfq_st_count(&cfqg->service_trees[BE_WORKLOAD][ASYNC_WORKLOAD]);
}

/* Smoothed busy queue count of a class: follows increases fast, decreases slowly. */
static unsigned int cfq_group_get_avg_queues(struct cfq_group *cfqg, bool rt)
{
	unsigned int mult = CFQ_HIST_DIVISOR - 1, round = CFQ_HIST_DIVISOR / 2;
	unsigned int busy = cfq_group_busy_queues_wl(rt ? RT_WORKLOAD : BE_WORKLOAD, cfqg);
	unsigned int avg = cfqg->busy_queues_avg[rt];
	unsigned int min_q = avg < busy ? avg : busy;
	unsigned int max_q = avg < busy ? busy : avg;

	cfqg->busy_queues_avg[rt] = (mult * max_q + min_q + round) / CFQ_HIST_DIVISOR;
	return cfqg->busy_queues_avg[rt];
}

/* The group's share of target_latency. */
static uint64_t cfq_group_slice(const struct cfq_data *cfqd, const struct cfq_group *cfqg)
{
	if (!cfq_sw(cfqd, CFQ_SW_VFRACTION_SLICE)) {
		/* Before vfraction: its weight's share of the weights of the busy groups. */
		uint64_t total = cfqd->grp_total_weight ? cfqd->grp_total_weight : 1;

		if (cfqd->jclock)
			return (uint32_t)((uint32_t)cfqd->p.target_latency * cfqg->weight) / total;
		return cfqd->p.target_latency * cfqg->weight / total;
	}
	if (cfqd->jclock) /* unsigned int before 4.10 */
		return (uint32_t)((uint32_t)cfqd->p.target_latency * cfqg->vfraction) >>
		       CFQ_SERVICE_SHIFT;
	return (uint64_t)((unsigned __int128)cfqd->p.target_latency * cfqg->vfraction >>
			  CFQ_SERVICE_SHIFT);
}

uint64_t cfq_scaled_cfqq_slice(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	uint64_t slice = cfq_prio_to_slice(cfqd, cfqq);

	if (cfqd->p.latency) {
		/* Queues of the same class in the group must all fit in target_latency. */
		unsigned int iq = cfq_group_get_avg_queues(cfqq->cfqg, cfq_class_rt(cfqq));
		uint64_t sync_slice = cfqd->p.slice[1];
		uint64_t expect_latency = cfqd->jclock ? (uint32_t)(sync_slice * iq) : sync_slice * iq;
		uint64_t group_slice = cfq_group_slice(cfqd, cfqq->cfqg);

		if (expect_latency > group_slice) {
			uint64_t base_low_slice = 2 * cfqd->p.slice_idle;
			uint64_t low_slice;

			/* Floor: 2*slice_idle, scaled like the slice by prio and sync. */
			low_slice = cfq_slice_mul_div(cfqd, base_low_slice, slice, sync_slice);
			if (low_slice > slice)
				low_slice = slice;
			slice = cfq_slice_mul_div(cfqd, slice, group_slice, expect_latency);
			if (slice < low_slice)
				slice = low_slice;
		}
	}
	return slice;
}

/* Called at the first completion of the slice: the slice starts now. */
void cfq_set_prio_slice(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	uint64_t slice = cfq_scaled_cfqq_slice(cfqd, cfqq);

	cfqq->slice_start = cfqd->now;
	cfqq->slice_end = cfqd->now + slice;
	cfqq->allocated_slice = slice;
	cfq_log_cfqq(cfqd, cfqq, "set_slice=%llu", (unsigned long long)slice);
}

bool cfq_slice_used(const struct cfq_data *cfqd, const struct cfq_queue *cfqq)
{
	if (cfq_cfqq_slice_new(cfqq))
		return false;
	return !time_before(cfqd->now, cfqq->slice_end);
}

/* ---- group service tree ---- */

/* charge << 24 / vfraction: in 64 bits when the shift keeps every bit (as in cfq_mul_div). */
static uint64_t cfqg_scale_charge(uint64_t charge, unsigned int vfraction)
{
	if (!(charge >> (64 - 2 * CFQ_SERVICE_SHIFT)))
		return (charge << (2 * CFQ_SERVICE_SHIFT)) / vfraction;
	return (uint64_t)(((unsigned __int128)charge << (2 * CFQ_SERVICE_SHIFT)) / vfraction);
}

static void update_min_vdisktime(struct cfq_rb_root *st)
{
	struct sched_rb_node *n = sched_rb_first(&st->rb);

	if (n && (int64_t)(cfqg_of_rb(n)->vdisktime - st->min_vdisktime) > 0)
		st->min_vdisktime = cfqg_of_rb(n)->vdisktime;
}

static bool cfqg_key_less(const struct sched_rb_node *a, const struct sched_rb_node *b)
{
	return (int64_t)(cfqg_of_rb(a)->vdisktime - cfqg_of_rb(b)->vdisktime) < 0;
}

/*
 * Put cfqg on the tree and activate it up to the root, computing its vfraction: its
 * leaf_weight against its active children, times its weight against its active siblings.
 */
static void cfq_group_service_tree_add(struct cfq_rb_root *st, struct cfq_group *cfqg)
{
	unsigned int vfr = 1u << CFQ_SERVICE_SHIFT;
	struct cfq_group *pos = cfqg, *parent;
	bool propagate;

	sched_rb_insert(&st->rb, &cfqg->rb_node, cfqg_key_less);

	/* As the kernel's cfq_update_group_weight(): a new weight takes effect on activation. */
	if (!pos->nr_active && pos->new_weight) {
		pos->weight = pos->leaf_weight = pos->new_weight;
		pos->new_weight = 0;
	}
	propagate = !pos->nr_active++;
	pos->children_weight += pos->leaf_weight;
	vfr = vfr * pos->leaf_weight / pos->children_weight;

	while ((parent = pos->parent)) {
		if (propagate) {
			propagate = !parent->nr_active++;
			parent->children_weight += pos->weight;
		}
		vfr = vfr * pos->weight / parent->children_weight;
		pos = parent;
	}
	cfqg->vfraction = vfr ? vfr : 1;
}

static void cfq_group_service_tree_del(struct cfq_rb_root *st, struct cfq_group *cfqg)
{
	struct cfq_group *pos = cfqg;
	bool propagate;

	propagate = !--pos->nr_active;
	pos->children_weight -= pos->leaf_weight;
	while (propagate) {
		struct cfq_group *parent = pos->parent;

		pos->vfraction = 0;
		if (!parent)
			break;
		propagate = !--parent->nr_active;
		parent->children_weight -= pos->weight;
		pos = parent;
	}
	if (sched_rb_linked(&cfqg->rb_node))
		sched_rb_erase(&st->rb, &cfqg->rb_node);
}

static void cfq_group_notify_queue_add(struct cfq_data *cfqd, struct cfq_group *cfqg)
{
	struct cfq_rb_root *st = &cfqd->grp_service_tree;
	struct sched_rb_node *n;

	cfqg->nr_cfqq++;
	if (sched_rb_linked(&cfqg->rb_node))
		return;
	/* A group coming back starts behind the last one: it lost its turn while empty. */
	n = sched_rb_last(&st->rb);
	if (n)
		cfqg->vdisktime = cfqg_of_rb(n)->vdisktime +
				  (iops_mode(cfqd) ? CFQ_IOPS_MODE_GROUP_DELAY(cfqd)
						   : CFQ_SLICE_MODE_GROUP_DELAY(cfqd));
	else
		cfqg->vdisktime = st->min_vdisktime;
	cfqd->grp_total_weight += cfqg->weight;
	cfq_group_service_tree_add(st, cfqg);
}

static void cfq_group_notify_queue_del(struct cfq_data *cfqd, struct cfq_group *cfqg)
{
	cfqg->nr_cfqq--;
	if (cfqg->nr_cfqq)
		return;
	cfq_log_cfqg(cfqd, cfqg, "del_from_rr group");
	if (sched_rb_linked(&cfqg->rb_node)) {
		cfqd->grp_total_weight -= cfqg->weight;
		cfq_group_service_tree_del(&cfqd->grp_service_tree, cfqg);
	}
	cfqg->saved_wl_slice = 0;
}

static uint64_t cfq_cfqq_slice_usage(const struct cfq_data *cfqd, const struct cfq_queue *cfqq)
{
	uint64_t now = cfqd->now, slice_used;

	if (!cfqq->slice_start || cfqq->slice_start == now) {
		/* Expired before or at its first completion: charge the seek time at least. */
		slice_used = now - cfqq->dispatch_start;
		if (slice_used < cfqd->t_jiffy)
			slice_used = cfqd->t_jiffy;
	} else {
		slice_used = now - cfqq->slice_start;
		if (slice_used > cfqq->allocated_slice)
			slice_used = cfqq->allocated_slice;
	}
	return slice_used;
}

static void cfq_group_served(struct cfq_data *cfqd, struct cfq_group *cfqg,
			     struct cfq_queue *cfqq)
{
	struct cfq_rb_root *st = &cfqd->grp_service_tree;
	struct cfq_group_stats *gs = &cfqd->stats.group[cfqg->index];
	int nr_sync = cfqg->nr_cfqq - (int)cfqg_busy_async_queues(cfqg) -
		      (int)cfq_st_count(&cfqg->service_tree_idle);
	uint64_t used_sl, charge;
	unsigned int vfr;

	used_sl = charge = cfq_cfqq_slice_usage(cfqd, cfqq);
	if (iops_mode(cfqd))
		charge = cfqq->slice_dispatch;
	else if (!cfq_cfqq_sync(cfqq) && !nr_sync)
		charge = cfqq->allocated_slice;

	/*
	 * vfraction is valid only on the tree: keep it, leave, charge, come back (which takes the
	 * vfraction anew). Before vfraction charging (cfq_scale_slice()) the charge was
	 * charge << 12 x 500 / weight; the activation bookkeeping, which nothing else then used,
	 * is kept so that the vfraction slice (cfq_sw_vfraction_slice) stays current either way.
	 */
	vfr = cfqg->vfraction;
	if (sched_rb_linked(&cfqg->rb_node) && vfr) {
		cfq_group_service_tree_del(st, cfqg);
		if (cfq_sw(cfqd, CFQ_SW_VFRACTION_CHARGE))
			cfqg->vdisktime += cfqg_scale_charge(charge, vfr);
		else
			cfqg->vdisktime += (charge << CFQ_SERVICE_SHIFT) * BLKIO_WEIGHT_DEFAULT /
					   (cfqg->weight ? cfqg->weight : 1);
		cfq_group_service_tree_add(st, cfqg);
	}

	/* The group is being expired: save its workload context. */
	if (time_before(cfqd->now, cfqd->workload_expires)) {
		cfqg->saved_wl_slice = cfqd->workload_expires - cfqd->now;
		cfqg->saved_wl_type = cfqd->serving_wl_type;
		cfqg->saved_wl_class = cfqd->serving_wl_class;
	} else {
		cfqg->saved_wl_slice = 0;
	}

	if (iops_mode(cfqd))
		cfqd->stats.iops_mode_charges++;
	else
		cfqd->stats.time_mode_charges++;
	gs->slices++;
	gs->time_ns += cfq_clock_ns(cfqd, used_sl);
	gs->charge += charge;
	gs->vdisktime = cfqg->vdisktime;

	cfq_log_cfqg(cfqd, cfqg, "served: vt=%llu min_vt=%llu",
		     (unsigned long long)cfqg->vdisktime, (unsigned long long)st->min_vdisktime);
	cfq_log_cfqq(cfqd, cfqq, "sl_used=%llu disp=%llu charge=%llu iops=%d sect=%llu",
		     (unsigned long long)used_sl, (unsigned long long)cfqq->slice_dispatch,
		     (unsigned long long)charge, iops_mode(cfqd),
		     (unsigned long long)cfqq->nr_sectors);
}

void cfq_init_cfqg_base(struct cfq_data *cfqd, struct cfq_group *cfqg)
{
	struct cfq_rb_root fresh = { .ttime = { .last_end_request = cfqd->now } };

	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++) {
			cfqg->service_trees[i][j] = fresh;
			sched_rb_init(&cfqg->service_trees[i][j].rb);
		}
	cfqg->service_tree_idle = fresh;
	sched_rb_init(&cfqg->service_tree_idle.rb);
	sched_rb_clear(&cfqg->rb_node);
	cfqg->ttime.last_end_request = cfqd->now;
}

/* ---- queue service trees ---- */

/*
 * sched_rb_insert by rb_key (equal keys go right, after the others), the key read inline. A key
 * below the first queue's (a preemption's front insertion) goes left at every level, down to
 * the first queue's left link; a key at or past the last queue's (most inserts: the key is
 * about now) goes right at every level, down to the last queue's right link: both linked there
 * without the walk, at the link the walk would find. The walk was up to 2 log n levels deep
 * down the right spine, which inserts at the end make the long one.
 */
static void cfq_st_insert(struct cfq_rb_root *st, struct cfq_queue *cfqq)
{
	struct sched_rb_node *parent = NULL, *cur = st->rb.root;
	bool left = false, leftmost = true;
	int64_t key = cfqq->st->key;

	if (st->rb.leftmost && key < cfq_qnode_key(st->rb.leftmost)) {
		sched_rb_insert_at(&st->rb, &cfqq->st->node, st->rb.leftmost, true, true);
		return;
	}
	if (st->rb.rightmost && key >= cfq_qnode_key(st->rb.rightmost)) {
		sched_rb_insert_at(&st->rb, &cfqq->st->node, st->rb.rightmost, false, false);
		return;
	}
	while (cur) {
		parent = cur;
		left = key < cfq_qnode_key(cur);
		leftmost &= left;
		cur = sched_rb_child(cur, !left); /* no branch to mispredict on random keys */
	}
	sched_rb_insert_at(&st->rb, &cfqq->st->node, parent, left, leftmost);
}

/* Position of a queue in its tree: lower prio queues start further back. */
static int64_t cfq_slice_offset(const struct cfq_data *cfqd, const struct cfq_queue *cfqq)
{
	return (int64_t)(cfqq->cfqg->nr_cfqq - 1) *
	       (int64_t)(cfq_prio_slice(cfqd, true, 0) -
			 cfq_prio_slice(cfqd, cfq_cfqq_sync(cfqq), cfqq->ioprio));
}

/*
 * Without group_isolation (2.6.3x, cfq_sw_noidle_in_group off) a group's sync-noidle queue is
 * served in the root group, so that one idle at the end of the sync-noidle tree covers all
 * groups' random readers, and goes back to its group when it turns sync-idle. Returns whether
 * the queue changed groups (it left its old group's count if it was on a tree).
 */
static bool cfq_move_noidle_queue(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	struct cfq_group *to;

	if (cfq_sw(cfqd, CFQ_SW_NOIDLE_IN_GROUP) || cfqd->p.group_isolation)
		return false;
	if (cfqq_type(cfqq) == SYNC_NOIDLE_WORKLOAD && cfqq->cfqg != cfqd->root_group) {
		cfq_log_cfqq(cfqd, cfqq, "moving to root group");
		to = cfqd->root_group;
		cfqq->orig_cfqg = cfqq->cfqg;
	} else if (cfqq_type(cfqq) == SYNC_WORKLOAD && cfqq->orig_cfqg) {
		cfq_log_cfqq(cfqd, cfqq, "moved to origin group");
		to = cfqq->orig_cfqg;
		cfqq->orig_cfqg = NULL;
	} else {
		return false;
	}
	if (sched_rb_linked(&cfqq->st->node))
		cfq_group_notify_queue_del(cfqd, cfqq->cfqg);
	cfqq->cfqg = to;
	return true;
}

void cfq_service_tree_add(struct cfq_data *cfqd, struct cfq_queue *cfqq, bool add_front)
{
	bool group_changed;
	struct cfq_rb_root *st;
	int64_t now = (int64_t)cfqd->now, rb_key;
	bool new_cfqq = true;

	if (cfq_2632(cfqd)) {
		cfq32_service_tree_add(cfqd, cfqq, add_front);
		return;
	}
	group_changed = cfq_move_noidle_queue(cfqd, cfqq);
	st = st_for(cfqq->cfqg, cfqq_class(cfqq), cfqq_type(cfqq));

	if (cfq_class_idle(cfqq)) {
		/*
		 * 4.19 keys an idle-class queue CFQ_IDLE_DELAY after its tree's rb_rightmost,
		 * which it maintains for the group tree only (a queue tree's stays NULL since the
		 * rb_root_cached conversion): so always CFQ_IDLE_DELAY after now. Before
		 * (cfq_sw_idle_key_now off), the rightmost queue's key (rb_last()) was the base,
		 * unless that queue is this one.
		 */
		struct sched_rb_node *last = sched_rb_last(&st->rb);

		rb_key = (int64_t)CFQ_IDLE_DELAY(cfqd);
		if (!cfq_sw(cfqd, CFQ_SW_IDLE_KEY_NOW) && last && last != &cfqq->st->node)
			rb_key += cfq_qnode_key(last);
		else
			rb_key += now;
	} else if (!add_front) {
		/* Behind the others by prio, minus what was left of the last slice. */
		rb_key = cfq_slice_offset(cfqd, cfqq) + now;
		rb_key -= cfqq->slice_resid;
		cfqq->slice_resid = 0;
	} else {
		struct sched_rb_node *first = sched_rb_first(&st->rb);

		rb_key = -(int64_t)cfqd->t_sec;
		rb_key += first ? cfq_qnode_key(first) : now;
	}

	if (sched_rb_linked(&cfqq->st->node)) {
		new_cfqq = false;
		if (rb_key == cfqq->st->key && cfqq->service_tree == st)
			return;
		sched_rb_erase(&cfqq->service_tree->rb, &cfqq->st->node);
		cfqq->service_tree = NULL;
	}
	cfqq->service_tree = st;
	cfqq->st->key = rb_key;
	cfq_st_insert(st, cfqq);
	if ((add_front || !new_cfqq) && !group_changed)
		return;
	cfq_group_notify_queue_add(cfqd, cfqq->cfqg);
}

void cfq_resort_rr_list(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	if (cfq_cfqq_on_rr(cfqq)) {
		cfq_service_tree_add(cfqd, cfqq, false);
		cfq_prio_tree_add(cfqd, cfqq);
	}
}

void cfq_add_cfqq_rr(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	cfq_log_cfqq(cfqd, cfqq, "add_to_rr");
	cfq_mark_cfqq_on_rr(cfqq);
	cfqd->busy_queues++;
	if (cfq_cfqq_sync(cfqq))
		cfqd->busy_sync_queues++;
	cfq_resort_rr_list(cfqd, cfqq);
}

void cfq_del_cfqq_rr(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	cfq_log_cfqq(cfqd, cfqq, "del_from_rr");
	cfq_clear_cfqq_on_rr(cfqq);
	if (sched_rb_linked(&cfqq->st->node)) {
		sched_rb_erase(&cfqq->service_tree->rb, &cfqq->st->node);
		cfqq->service_tree = NULL;
	}
	cfq_prio_tree_del(cfqq);
	if (!cfq_2632(cfqd)) /* 2.6.32: no groups */
		cfq_group_notify_queue_del(cfqd, cfqq->cfqg);
	cfqd->busy_queues--;
	if (cfq_cfqq_sync(cfqq))
		cfqd->busy_sync_queues--;
}

/* ---- active queue ---- */

void __cfq_set_active_queue(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	if (cfqq) {
		cfq_log_cfqq(cfqd, cfqq, "set_active wl_class:%d wl_type:%d",
			     cfqd->serving_wl_class, cfqd->serving_wl_type);
		cfqd->stats.slices_started++;
		cfqq->slice_start = 0;
		cfqq->dispatch_start = cfqd->now;
		cfqq->allocated_slice = 0;
		cfqq->slice_end = 0;
		cfqq->slice_dispatch = 0;
		cfqq->nr_sectors = 0;
		cfq_clear_cfqq_wait_request(cfqq);
		cfq_clear_cfqq_must_dispatch(cfqq);
		cfq_clear_cfqq_must_alloc_slice(cfqq);
		cfq_clear_cfqq_fifo_expire(cfqq);
		cfq_mark_cfqq_slice_new(cfqq);
		cfq_del_timer(cfqd);
	}
	cfqd->active_queue = cfqq;
}

void __cfq_slice_expired(struct cfq_data *cfqd, struct cfq_queue *cfqq, bool timed_out,
			 enum cfq_expire_reason why)
{
	if (cfq_2632(cfqd)) {
		cfq32_slice_expired(cfqd, cfqq, timed_out, why);
		return;
	}
	cfq_log_cfqq(cfqd, cfqq, "slice expired t=%d", timed_out);
	cfqd->stats.slices_expired[why]++;

	if (cfq_cfqq_wait_request(cfqq))
		cfq_del_timer(cfqd);
	cfq_clear_cfqq_wait_request(cfqq);
	cfq_clear_cfqq_wait_busy(cfqq);

	/* A shared queue whose processes no longer seek within reach: split at their next
	 * requests (cfq_get_queue()). */
	if (cfq_cfqq_coop(cfqq) && CFQQ_SEEKY(cfqq))
		cfq_mark_cfqq_split_coop(cfqq);

	/* Keep what is left of the slice (negative: overrun) for the next tree position. */
	if (timed_out && (!cfq_cfqq_slice_new(cfqq) || cfq_sw(cfqd, CFQ_SW_RESID_NEW))) {
		/* Before its first completion (cfq_sw_resid_new) the whole slice is left. */
		if (cfq_cfqq_slice_new(cfqq))
			cfqq->slice_resid = (int64_t)cfq_scaled_cfqq_slice(cfqd, cfqq);
		else
			cfqq->slice_resid = (int64_t)(cfqq->slice_end - cfqd->now);
		cfq_log_cfqq(cfqd, cfqq, "resid=%lld", (long long)cfqq->slice_resid);
	}

	cfq_group_served(cfqd, cfqq->cfqg, cfqq);

	if (cfq_cfqq_on_rr(cfqq) && cfq_rb_empty(&cfqq->sort_list))
		cfq_del_cfqq_rr(cfqd, cfqq);
	cfq_resort_rr_list(cfqd, cfqq);

	if (cfqq == cfqd->active_queue)
		cfqd->active_queue = NULL;
	cfqd->active_cic = NULL;
}

void cfq_slice_expired(struct cfq_data *cfqd, bool timed_out, enum cfq_expire_reason why)
{
	if (cfqd->active_queue)
		__cfq_slice_expired(cfqd, cfqd->active_queue, timed_out, why);
}

static struct cfq_queue *cfq_get_next_queue(struct cfq_data *cfqd)
{
	struct cfq_rb_root *st = st_for(cfqd->serving_group, cfqd->serving_wl_class,
					cfqd->serving_wl_type);
	struct sched_rb_node *n;

	if (!cfqd->rq_queued || !st)
		return NULL;
	n = sched_rb_first(&st->rb);
	return n ? cfqq_of_st(cfqd, n) : NULL;
}

static struct cfq_queue *cfq_set_active_queue(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	if (!cfqq)
		cfqq = cfq_get_next_queue(cfqd);
	__cfq_set_active_queue(cfqd, cfqq);
	return cfqq;
}

/* ---- workload (class x type) and group choice ---- */

static enum cfq_wl_type cfq_choose_wl_type(struct cfq_group *cfqg, enum cfq_wl_class wl_class)
{
	enum cfq_wl_type cur_best = SYNC_NOIDLE_WORKLOAD;
	bool key_valid = false;
	int64_t lowest_key = 0;

	for (int i = ASYNC_WORKLOAD; i <= SYNC_WORKLOAD; i++) {
		struct sched_rb_node *n = sched_rb_first(&st_for(cfqg, wl_class, i)->rb);

		if (n && (!key_valid || cfq_qnode_key(n) < lowest_key)) {
			lowest_key = cfq_qnode_key(n);
			cur_best = i;
			key_valid = true;
		}
	}
	return cur_best;
}

static void choose_wl_class_and_type(struct cfq_data *cfqd, struct cfq_group *cfqg)
{
	enum cfq_wl_class original_class = cfqd->serving_wl_class;
	uint64_t now = cfqd->now, slice, group_slice;
	struct cfq_rb_root *st;
	unsigned int count, busy, avg;

	/* RT > BE > IDLE. */
	if (cfq_group_busy_queues_wl(RT_WORKLOAD, cfqg)) {
		cfqd->serving_wl_class = RT_WORKLOAD;
	} else if (cfq_group_busy_queues_wl(BE_WORKLOAD, cfqg)) {
		cfqd->serving_wl_class = BE_WORKLOAD;
	} else {
		cfqd->serving_wl_class = IDLE_WORKLOAD;
		cfqd->workload_expires = now + cfqd->t_jiffy;
		return;
	}

	if (original_class == cfqd->serving_wl_class || !cfq_sw(cfqd, CFQ_SW_CLASS_NEW_WORKLOAD)) {
		/* Same class (or any, before cfq_sw_class_new_workload): keep the type while it has
		 * queues and its slice lasts. */
		st = st_for(cfqg, cfqd->serving_wl_class, cfqd->serving_wl_type);
		count = cfq_st_count(st);
		if (count && !time_before(cfqd->workload_expires, now))
			return;
	}

	cfqd->serving_wl_type = cfq_choose_wl_type(cfqg, cfqd->serving_wl_class);
	st = st_for(cfqg, cfqd->serving_wl_class, cfqd->serving_wl_type);
	count = cfq_st_count(st);

	/* The workload's part of the group slice, by its share of the class's queues. */
	group_slice = cfq_group_slice(cfqd, cfqg);
	busy = cfq_group_busy_queues_wl(cfqd->serving_wl_class, cfqg);
	avg = cfqg->busy_queues_avg[cfqd->serving_wl_class];
	slice = cfq_slice_mul_div(cfqd, group_slice, count, avg > busy ? avg : busy);

	if (cfqd->serving_wl_type == ASYNC_WORKLOAD) {
		/* Async is shared system-wide: bound by its share of all busy queues. */
		uint64_t tmp = cfq_slice_mul_div(cfqd, cfqd->p.target_latency,
						 cfqg_busy_async_queues(cfqg), cfqd->busy_queues);

		if (tmp < slice)
			slice = tmp;
		slice = cfq_slice_mul_div(cfqd, slice, cfqd->p.slice[0], cfqd->p.slice[1]);
	} else if (slice < 2 * cfqd->p.slice_idle) {
		slice = 2 * cfqd->p.slice_idle;
	}
	if (slice < CFQ_MIN_TT(cfqd))
		slice = CFQ_MIN_TT(cfqd);
	cfq_log(cfqd, "workload slice:%llu", (unsigned long long)slice);
	cfqd->workload_expires = now + slice;
	cfqd->noidle_tree_requires_idle = false;
}

static struct cfq_group *cfq_get_next_cfqg(struct cfq_data *cfqd)
{
	struct cfq_rb_root *st = &cfqd->grp_service_tree;
	struct sched_rb_node *n = sched_rb_first(&st->rb);

	if (!n)
		return NULL;
	update_min_vdisktime(st);
	return cfqg_of_rb(n);
}

static void cfq_choose_cfqg(struct cfq_data *cfqd)
{
	struct cfq_group *cfqg = cfq_get_next_cfqg(cfqd);

	cfqd->serving_group = cfqg;
	if (!cfqg)
		return;
	/* Restore the workload the group was serving when it was expired. */
	if (cfqg->saved_wl_slice) {
		cfqd->workload_expires = cfqd->now + cfqg->saved_wl_slice;
		cfqd->serving_wl_type = cfqg->saved_wl_type;
		cfqd->serving_wl_class = cfqg->saved_wl_class;
	} else {
		cfqd->workload_expires = cfqd->now - 1;
	}
	choose_wl_class_and_type(cfqd, cfqg);
}

/*
 * The queue to dispatch from: keep the active queue while it has requests and time, or while
 * idling for it (timer, requests in flight, group idle); otherwise expire it and pick the next
 * group, workload and queue.
 */
struct cfq_queue *cfq_select_queue(struct cfq_data *cfqd)
{
	struct cfq_queue *cfqq = cfqd->active_queue, *new_cfqq = NULL;
	enum cfq_expire_reason why = CFQ_EXPIRE_NO_REQUESTS;
	uint64_t now = cfqd->now;

	if (cfq_2632(cfqd))
		return cfq32_select_queue(cfqd);
	if (!cfqq)
		goto new_queue;
	if (!cfqd->rq_queued)
		return NULL;

	/* We were waiting for the group to get backlogged: it did, move on. */
	if (cfq_cfqq_wait_busy(cfqq) && !cfq_rb_empty(&cfqq->sort_list)) {
		why = CFQ_EXPIRE_WAIT_BUSY;
		goto expire;
	}

	if (cfq_slice_used(cfqd, cfqq) && !cfq_cfqq_must_dispatch(cfqq)) {
		/* Slice used while idling all along: let the last request finish (wait busy). */
		if (cfqq->cfqg->nr_cfqq == 1 && cfq_rb_empty(&cfqq->sort_list) &&
		    cfqq->dispatched && cfq_should_idle(cfqd, cfqq))
			return NULL;
		why = CFQ_EXPIRE_SLICE_USED;
		goto check_group_idle;
	}

	if (!cfq_rb_empty(&cfqq->sort_list))
		return cfqq;

	/* Another queue has a request close to the head: give it the disk, and merge the two
	 * (cfq_setup_merge(): their processes share one queue from their next requests). */
	new_cfqq = cfq_close_cooperator(cfqd, cfqq);
	if (new_cfqq) {
		if (!cfq_cfqq_merge(cfqq))
			cfq_setup_merge(cfqq, new_cfqq);
		why = CFQ_EXPIRE_COOPERATOR;
		goto expire;
	}

	/* Idling: wait for the timer or a new request. */
	if (cfqd->timer_armed)
		return NULL;

	/* A deep seeky queue on a device much faster than it: stop idling for it. */
	if (cfq_sw(cfqd, CFQ_SW_DEEP_SEEKY_FAST) && CFQQ_SEEKY(cfqq) && cfq_cfqq_idle_window(cfqq) &&
	    (cfq_cfqq_slice_new(cfqq) ||
	     (cfqq->slice_end - now > now - cfqq->slice_start))) {
		cfq_clear_cfqq_deep(cfqq);
		cfq_clear_cfqq_idle_window(cfqq);
	}

	/* Requests still in flight and worth idling for: wait for them. */
	if (cfqq->dispatched && cfq_should_idle(cfqd, cfqq))
		return NULL;

check_group_idle:
	/* Group idle: the group's last queue still has requests in flight. */
	if (cfqd->p.group_idle && cfqq->cfqg->nr_cfqq == 1 && cfqq->cfqg->dispatched &&
	    !(cfq_sw(cfqd, CFQ_SW_GROUP_TTIME) &&
	      cfq_io_thinktime_big(cfqd, &cfqq->cfqg->ttime, true)))
		return NULL;

expire:
	cfq_slice_expired(cfqd, false, why);
new_queue:
	if (!new_cfqq)
		cfq_choose_cfqg(cfqd);
	return cfq_set_active_queue(cfqd, new_cfqq);
}
