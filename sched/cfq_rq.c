// SPDX-License-Identifier: GPL-2.0
/*
 * CFQ requests inside one cfq_queue (sector-sorted tree, FIFO, next request with the back-seek
 * rules), queue lookup per process and per (group, class, level), the prio trees used to find
 * close cooperators, and preemption (cfq_should_preempt / cfq_preempt_queue).
 */
#include "cfq_internal.h"

#define rq_of_rb(n) sched_rb_entry((n), struct sched_request, priv.rb)

/*
 * Which of rq1 and rq2 is better served now (the kernel's cfq_choose_req, "lifted from AS"):
 * sync before async, REQ_PRIO first, then the nearest in front of the head; a backward seek of
 * at most back_seek_max costs back_seek_penalty times its distance; beyond that it "wraps".
 */
static struct sched_request *cfq_choose_req(const struct cfq_data *cfqd, struct sched_request *rq1,
					    struct sched_request *rq2, uint64_t last)
{
	uint64_t s1, s2, d1 = 0, d2 = 0, back_max;
	bool wrap1 = false, wrap2 = false;

	if (!rq1 || rq1 == rq2)
		return rq2;
	if (!rq2)
		return rq1;
	if (sched_rq_is_sync(rq1) != sched_rq_is_sync(rq2))
		return sched_rq_is_sync(rq1) ? rq1 : rq2;
	if (cfq_rq_prio(rq1) != cfq_rq_prio(rq2))
		return cfq_rq_prio(rq1) ? rq1 : rq2;

	s1 = sched_rq_pos(rq1);
	s2 = sched_rq_pos(rq2);
	back_max = (uint64_t)cfqd->p.back_max * 2; /* KiB to sectors */

	if (s1 >= last)
		d1 = s1 - last;
	else if (s1 + back_max >= last)
		d1 = (last - s1) * cfqd->p.back_penalty;
	else
		wrap1 = true;

	if (s2 >= last)
		d2 = s2 - last;
	else if (s2 + back_max >= last)
		d2 = (last - s2) * cfqd->p.back_penalty;
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
	/* Both behind: start with the one further back, so only one back seek is needed. */
	return s1 <= s2 ? rq1 : rq2;
}

struct sched_request *cfq_find_next_rq(struct cfq_data *cfqd, struct cfq_queue *cfqq,
				       struct sched_request *last)
{
	struct sched_rb_node *rbnext = sched_rb_next(&last->priv.rb);
	struct sched_rb_node *rbprev = sched_rb_prev(&last->priv.rb);
	struct sched_request *next = NULL, *prev = NULL;

	if (rbprev)
		prev = rq_of_rb(rbprev);
	if (rbnext) {
		next = rq_of_rb(rbnext);
	} else {
		rbnext = sched_rb_first(&cfqq->sort_list);
		if (rbnext && rbnext != &last->priv.rb)
			next = rq_of_rb(rbnext);
	}
	/* 2.6.32 measured both from the disk head (last_position), not from last. */
	return cfq_choose_req(cfqd, next, prev,
			      cfq_2632(cfqd) ? cfqd->last_position : sched_rq_pos(last));
}

static bool rq_pos_less(const struct sched_rb_node *a, const struct sched_rb_node *b)
{
	return sched_rq_pos(rq_of_rb(a)) < sched_rq_pos(rq_of_rb(b));
}

/* ---- prio trees: busy queues by the sector of their next request (p_key) ---- */

/*
 * The queue whose next request starts at sector, else NULL with the free link where a queue
 * with that key goes: below *ret_parent, on its left when *ret_left; *ret_leftmost when the
 * walk never went right. Insertion reuses the link (as the kernel's rb_link_node after
 * cfq_prio_tree_lookup) instead of walking again.
 */
static struct cfq_queue *cfq_prio_tree_lookup(const struct cfq_data *cfqd,
					      const struct sched_rb_root *root, uint64_t sector,
					      struct sched_rb_node **ret_parent, bool *ret_left,
					      bool *ret_leftmost)
{
	struct sched_rb_node *n = root->root, *parent = NULL;
	bool left = false, leftmost = true;

	/*
	 * Branch-free descent: the side is an index into the node's (left, right) pair, so a
	 * random key costs a dependent load per level, not a mispredicted branch as well.
	 */
	while (n) {
		uint64_t pos = (uint64_t)cfq_qnode_key(n);
		bool right = sector > pos;

		if (__builtin_expect(sector == pos, 0)) {
			*ret_parent = n;
			return cfqq_of_p(cfqd, n);
		}
		parent = n;
		left = !right;
		leftmost &= !right;
		n = sched_rb_child(n, right);
	}
	*ret_parent = parent;
	*ret_left = left;
	*ret_leftmost = leftmost;
	return NULL;
}

void cfq_prio_tree_del(struct cfq_queue *cfqq)
{
	if (cfqq->p_root) {
		sched_rb_erase(cfqq->p_root, &cfqq->p->node);
		cfqq->p_root = NULL;
	}
}

void cfq_prio_tree_add(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	struct sched_rb_root *root;
	struct sched_rb_node *parent;
	bool left = false, leftmost = false;

	cfq_prio_tree_del(cfqq);
	if (cfq_class_idle(cfqq) || !cfqq->next_rq)
		return;
	root = &cfqd->prio_trees[cfqq->org_ioprio];
	/* One queue per sector: a second one starting at the same place stays out. */
	if (cfq_prio_tree_lookup(cfqd, root, (uint64_t)cfqq->p->key, &parent, &left, &leftmost))
		return;
	sched_rb_insert_at(root, &cfqq->p->node, parent, left, leftmost);
	cfqq->p_root = root;
}

/* ---- requests in a queue ---- */

/* The queued request of cfqq that starts at sector, if any (elv_rb_find()). */
static struct sched_request *cfq_find_rq_at(struct cfq_queue *cfqq, uint64_t sector)
{
	struct sched_rb_node *n = cfqq->sort_list.root;

	while (n) {
		uint64_t pos = sched_rq_pos(rq_of_rb(n));

		if (sector == pos)
			return rq_of_rb(n);
		n = sched_rb_child(n, sector > pos);
	}
	return NULL;
}

void cfq_add_rq_rb(struct cfq_data *cfqd, struct sched_request *rq)
{
	struct cfq_queue *cfqq = cfq_queue_of_req(rq);
	struct sched_request *prev;

	cfqq->queued[sched_rq_is_sync(rq)]++;
	/* Before cfq_sw_same_sector, elv_rb_add() found a queued request of the same sector (an
	 * alias) instead of adding rq, and CFQ dispatched it at once. */
	if (!cfq_sw(cfqd, CFQ_SW_SAME_SECTOR)) {
		struct sched_request *alias;

		while ((alias = cfq_find_rq_at(cfqq, sched_rq_pos(rq))))
			cfq_dispatch_alias(cfqd, alias);
	}
	sched_rb_insert(&cfqq->sort_list, &rq->priv.rb, rq_pos_less);
	if (!cfq_cfqq_on_rr(cfqq))
		cfq_add_cfqq_rr(cfqd, cfqq);

	prev = cfqq->next_rq;
	cfq_set_next_rq(cfqq, cfq_choose_req(cfqd, cfqq->next_rq, rq, cfqd->last_position));
	if (prev != cfqq->next_rq)
		cfq_prio_tree_add(cfqd, cfqq);
}

static void cfq_del_rq_rb(struct cfq_data *cfqd, struct sched_request *rq)
{
	struct cfq_queue *cfqq = cfq_queue_of_req(rq);

	cfqq->queued[sched_rq_is_sync(rq)]--;
	sched_rb_erase(&cfqq->sort_list, &rq->priv.rb);
	/* 2.6.32: an empty queue leaves its service tree at once, the active one too. */
	if (cfq_2632(cfqd) && cfq_cfqq_on_rr(cfqq) && cfq_rb_empty(&cfqq->sort_list)) {
		cfq_del_cfqq_rr(cfqd, cfqq);
		return;
	}
	/* The queue leaves its service tree when it expires; the prio tree now. */
	if (cfq_cfqq_on_rr(cfqq) && cfq_rb_empty(&cfqq->sort_list))
		cfq_prio_tree_del(cfqq);
}

/* cfq_reposition_rq_rb(): a front merge moved rq's start; re-sorted in its queue. */
void cfq_reposition_rq_rb(struct cfq_data *cfqd, struct sched_request *rq)
{
	struct cfq_queue *cfqq = cfq_queue_of_req(rq);

	sched_rb_erase(&cfqq->sort_list, &rq->priv.rb);
	cfqq->queued[sched_rq_is_sync(rq)]--;
	cfq_add_rq_rb(cfqd, rq);
}

void cfq_remove_request(struct cfq_data *cfqd, struct sched_request *rq)
{
	struct cfq_queue *cfqq = cfq_queue_of_req(rq);

	if (cfqq->next_rq == rq)
		cfq_set_next_rq(cfqq, cfq_find_next_rq(cfqd, cfqq, rq));
	sched_list_del_init(&rq->priv.fifo);
	cfq_del_rq_rb(cfqd, rq);
	cfqd->rq_queued--;
	if (cfq_rq_prio(rq))
		cfqq->prio_pending--;
}

/* ---- close cooperators ---- */

bool cfq_rq_close(const struct cfq_data *cfqd, const struct sched_request *rq)
{
	uint64_t pos = sched_rq_pos(rq), last = cfqd->last_position;

	if (cfq_2632(cfqd))
		return cfq32_rq_close(cfqd, rq);
	return (pos >= last ? pos - last : last - pos) <= CFQQ_CLOSE_THR;
}

struct cfq_queue *cfq_cfqq_close(struct cfq_data *cfqd, struct cfq_queue *cur_cfqq)
{
	struct sched_rb_root *root = &cfqd->prio_trees[cur_cfqq->org_ioprio];
	struct sched_rb_node *parent, *node;
	struct cfq_queue *cfqq;
	uint64_t sector = cfqd->last_position;
	bool left = false, leftmost = false;

	if (sched_rb_empty(root))
		return NULL;
	/* A request starting right where the last one ended. */
	cfqq = cfq_prio_tree_lookup(cfqd, root, sector, &parent, &left, &leftmost);
	if (cfqq)
		return cfqq;
	/* Else the parent of the empty leaf is the closest on one side; try both sides. */
	cfqq = cfqq_of_p(cfqd, parent);
	if (cfq_rq_close(cfqd, cfqq->next_rq))
		return cfqq;
	if (sched_rq_pos(cfqq->next_rq) < sector)
		node = sched_rb_next(&cfqq->p->node);
	else
		node = sched_rb_prev(&cfqq->p->node);
	if (!node)
		return NULL;
	cfqq = cfqq_of_p(cfqd, node);
	return cfq_rq_close(cfqd, cfqq->next_rq) ? cfqq : NULL;
}

struct cfq_queue *cfq_close_cooperator(struct cfq_data *cfqd, struct cfq_queue *cur_cfqq)
{
	struct cfq_queue *cfqq;

	if (cfq_class_idle(cur_cfqq) || !cfq_cfqq_sync(cur_cfqq) || CFQQ_SEEKY(cur_cfqq))
		return NULL;
	/* The only queue of its group: nothing to cooperate with. */
	if (cur_cfqq->cfqg->nr_cfqq == 1)
		return NULL;
	cfqq = cfq_cfqq_close(cfqd, cur_cfqq);
	if (!cfqq || cfqq == cur_cfqq)
		return NULL;
	if (cur_cfqq->cfqg != cfqq->cfqg)
		return NULL;
	if (!cfq_cfqq_sync(cfqq) || CFQQ_SEEKY(cfqq))
		return NULL;
	if (cfq_class_rt(cfqq) != cfq_class_rt(cur_cfqq))
		return NULL;
	return cfqq;
}

/* ---- queue lookup ---- */

void cfq_init_cfqq(struct cfq_data *cfqd, struct cfq_queue *cfqq, struct cfq_group *cfqg,
		   uint32_t pid, bool is_sync)
{
	struct cfq_queue zero = { .st = cfqq->st, .p = cfqq->p };

	*cfqq = zero;
	cfqq->st->key = cfqq->p->key = 0;
	sched_rb_clear(&cfqq->st->node);
	sched_rb_clear(&cfqq->p->node);
	sched_rb_init(&cfqq->sort_list);
	sched_list_init(&cfqq->fifo);
	cfqq->ioprio_class = SCHED_IOPRIO_CLASS_NONE;
	cfq_mark_cfqq_prio_changed(cfqq);
	if (is_sync) {
		cfq_mark_cfqq_idle_window(cfqq);
		cfq_mark_cfqq_sync(cfqq);
	}
	cfqq->pid = pid;
	cfqq->cfqg = cfqg;
	cfq_mark_cfqq_alive(cfqq);
	(void)cfqd;
}

void cfq_init_prio_data(struct cfq_queue *cfqq, const struct cfq_io_cq *cic)
{
	if (!cfq_cfqq_prio_changed(cfqq))
		return;
	switch (cic->ioprio_class) {
	case SCHED_IOPRIO_CLASS_RT:
		cfqq->ioprio = (uint16_t)cic->ioprio;
		cfqq->ioprio_class = SCHED_IOPRIO_CLASS_RT;
		break;
	case SCHED_IOPRIO_CLASS_BE:
		cfqq->ioprio = (uint16_t)cic->ioprio;
		cfqq->ioprio_class = SCHED_IOPRIO_CLASS_BE;
		break;
	case SCHED_IOPRIO_CLASS_IDLE:
		cfqq->ioprio_class = SCHED_IOPRIO_CLASS_IDLE;
		cfqq->ioprio = 7;
		cfq_clear_cfqq_idle_window(cfqq);
		break;
	default:
		/* No ioprio set: inherit from CPU nice 0, task_nice_ioprio() = (0 + 20) / 5. */
		cfqq->ioprio = CFQ_IOPRIO_NORM;
		cfqq->ioprio_class = SCHED_IOPRIO_CLASS_BE;
		break;
	}
	cfqq->org_ioprio = cfqq->ioprio;
	cfqq->org_ioprio_class = cfqq->ioprio_class;
	cfq_clear_cfqq_prio_changed(cfqq);
}

void cfqq_boost_on_prio(struct cfq_queue *cfqq, bool prio)
{
	if (!prio) {
		cfqq->ioprio_class = cfqq->org_ioprio_class;
		cfqq->ioprio = cfqq->org_ioprio;
	} else {
		if (cfq_class_idle(cfqq))
			cfqq->ioprio_class = SCHED_IOPRIO_CLASS_BE;
		if (cfqq->ioprio > CFQ_IOPRIO_NORM)
			cfqq->ioprio = CFQ_IOPRIO_NORM;
	}
}

/* The requests that hold the queue: inserted and not yet completed (the kernel's allocated). */
static int cfqq_allocated(const struct cfq_queue *cfqq)
{
	return cfqq->queued[0] + cfqq->queued[1] + cfqq->dispatched;
}

/*
 * The kernel frees a queue at its last reference (cfq_put_queue()): with no process's and no
 * request's left, the slot is free again; an active queue is expired first, and a queue run
 * asked for.
 */
void cfq_release_queue(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	if (cfqq->pref > 0 || cfqq_allocated(cfqq))
		return;
	cfq_log_cfqq(cfqd, cfqq, "put_queue");
	if (cfqq == cfqd->active_queue) {
		__cfq_slice_expired(cfqd, cfqq, false, CFQ_EXPIRE_NO_REQUESTS);
		cfqd->kick = cfqd->busy_queues != 0;
	}
	cfq_clear_cfqq_alive(cfqq);
}

/* cfq_put_queue() of a process's reference (or one cfq_setup_merge() took). */
void cfq_put_queue(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	cfqq->pref--;
	cfq_release_queue(cfqd, cfqq);
}

/*
 * cfq_put_cooperator(): the references cfq_setup_merge() took on the queues this one was to
 * merge into, down its chain.
 */
void cfq_put_cooperator(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	struct cfq_queue *__cfqq = cfqq->new_cfqq, *next;

	while (__cfqq) {
		if (__cfqq == cfqq)
			break; /* the kernel WARNs: a loop in the chain */
		next = __cfqq->new_cfqq;
		cfq_put_queue(cfqd, __cfqq);
		__cfqq = next;
	}
}

/* cfqq_process_refs(): the kernel's ref - allocated. */
static int cfqq_process_refs(const struct cfq_queue *cfqq)
{
	return cfqq->pref;
}

/*
 * cfq_setup_merge(): the active queue found a close cooperator: the one with fewer processes
 * is to merge into the other (each of its processes moves at its next request,
 * cfq_merge_cfqqs()), which takes their references now.
 */
void cfq_setup_merge(struct cfq_queue *cfqq, struct cfq_queue *new_cfqq)
{
	struct cfq_queue *__cfqq;
	int process_refs, new_process_refs;

	/* Without processes on new_cfqq, its chain may hold queues already gone. */
	if (!cfqq_process_refs(new_cfqq))
		return;
	/* No circular chain; skip queues that will merge on anyway. */
	while ((__cfqq = new_cfqq->new_cfqq)) {
		if (__cfqq == cfqq)
			return;
		new_cfqq = __cfqq;
	}
	process_refs = cfqq_process_refs(cfqq);
	new_process_refs = cfqq_process_refs(new_cfqq);
	if (!process_refs || !new_process_refs)
		return;
	if (new_process_refs >= process_refs) {
		cfqq->new_cfqq = new_cfqq;
		cfq_mark_cfqq_merge(cfqq);
		new_cfqq->pref += process_refs;
	} else {
		new_cfqq->new_cfqq = cfqq;
		cfq_mark_cfqq_merge(new_cfqq);
		cfqq->pref += new_process_refs;
	}
}

/* cfq_merge_cfqqs(): the process moves to the queue its own was to merge into. */
static struct cfq_queue *cfq_merge_cfqqs(struct cfq_data *cfqd, struct cfq_io_cq *cic,
					 struct cfq_queue *cfqq)
{
	cfq_log_cfqq(cfqd, cfqq, "merging with queue %u", cfqq_index(cfqd, cfqq->new_cfqq));
	cic->cfqq[1] = cfqq->new_cfqq;
	cfq_mark_cfqq_coop(cfqq->new_cfqq);
	cfq_put_queue(cfqd, cfqq);
	return cic->cfqq[1];
}

/*
 * split_cfqq(): a shared queue that turned seeky is left by the process: kept (as its own)
 * when it is the last one, else the process drops it and gets a queue of its own.
 */
static struct cfq_queue *split_cfqq(struct cfq_data *cfqd, struct cfq_io_cq *cic,
				    struct cfq_queue *cfqq, uint32_t pid)
{
	if (cfqq_process_refs(cfqq) == 1) {
		cfqq->pid = pid;
		cfq_clear_cfqq_coop(cfqq);
		cfq_clear_cfqq_split_coop(cfqq);
		return cfqq;
	}
	cic->cfqq[1] = NULL;
	cfq_put_cooperator(cfqd, cfqq);
	cfq_put_queue(cfqd, cfqq);
	return NULL;
}

/*
 * A free sync queue slot for a process (the kernel's kmem_cache_alloc()): its own first, then
 * its second, then any; NULL when none is (the kernel's allocation failure).
 */
static struct cfq_queue *cfq_alloc_sync(struct cfq_data *cfqd, uint32_t owner)
{
	uint32_t n = cfqd->nr_cics;

	if (!cfq_cfqq_alive(&cfqd->queues[owner]))
		return &cfqd->queues[owner];
	if (!cfq_cfqq_alive(&cfqd->queues[n + owner]))
		return &cfqd->queues[n + owner];
	for (uint32_t i = 0; i < 2 * n; i++)
		if (!cfq_cfqq_alive(&cfqd->queues[i]))
			return &cfqd->queues[i];
	return NULL;
}

static struct cfq_queue *cfq_async_queue_prio(struct cfq_group *cfqg, int ioprio_class,
					      int ioprio)
{
	switch (ioprio_class) {
	case SCHED_IOPRIO_CLASS_RT:
		return cfqg->async_cfqq[0][ioprio];
	case SCHED_IOPRIO_CLASS_IDLE:
		return cfqg->async_idle_cfqq;
	case SCHED_IOPRIO_CLASS_BE:
		return cfqg->async_cfqq[1][ioprio];
	default:
		return cfqg->async_cfqq[1][CFQ_IOPRIO_NORM];
	}
}

/*
 * The queue for rq (cfq_set_request + cfq_get_queue): the process's sync queue, or the async
 * queue of its (group, class, level). Handles a process seen for the first time, a process
 * that came back after exiting (a new process with the same owner id), ioprio changes
 * (check_ioprio_changed), group changes (check_blkcg_changed: the process's queues are dropped,
 * new ones come in the new group), and cooperating queues (a shared queue split apart when it
 * turned seeky, a queue merged into its cooperator).
 */
struct cfq_queue *cfq_get_queue(struct cfq_data *cfqd, const struct sched_request *rq)
{
	struct cfq_io_cq *cic = &cfqd->cics[rq->owner];
	struct cfq_group *cfqg = &cfqd->groups[rq->group];
	struct cfq_queue *cfqq;

	if (cic->ioprio_class < 0 || cic->exited) {
		/* cfq_init_icq: a new io context. */
		struct cfq_ttime fresh = { .last_end_request = cfqd->now };

		cic->ttime = fresh;
		cic->seek_samples = cic->seek_total = cic->seek_mean = 0;
		cic->last_request_pos = 0;
		cic->exited = false;
		cic->cfqq[0] = NULL;
		cic->cfqq[1] = NULL;
		cic->ioprio_class = rq->prio_class;
		cic->ioprio = rq->prio_level;
		cic->group = rq->group;
	}
	if (cic->ioprio_class != rq->prio_class || cic->ioprio != rq->prio_level) {
		cic->ioprio_class = rq->prio_class;
		cic->ioprio = rq->prio_level;
		cic->cfqq[0] = NULL;
		if (cic->cfqq[1])
			cfq_mark_cfqq_prio_changed(cic->cfqq[1]);
	}
	if (cic->group != rq->group) {
		cic->group = rq->group;
		cic->cfqq[0] = NULL;
		cfqq = cic->cfqq[1];
		if (cfqq) {
			cfq_log_cfqq(cfqd, cfqq, "changed cgroup");
			cic->cfqq[1] = NULL;
			cfq_put_queue(cfqd, cfqq);
		}
	}

	if (!sched_rq_is_sync(rq)) {
		/* Before cfq_sw_async_in_group the async queues were the scheduler's, shared by
		 * all groups and linked to the root group. */
		if (!cfq_sw(cfqd, CFQ_SW_ASYNC_IN_GROUP))
			cfqg = cfqd->root_group;
		cfqq = cfq_async_queue_prio(cfqg, cic->ioprio_class, cic->ioprio);
		if (!cfq_cfqq_alive(cfqq)) {
			cfq_init_cfqq(cfqd, cfqq, cfqg, rq->owner, false);
			cfq_init_prio_data(cfqq, cic);
			cfqq->pref = 1; /* pinned by its group */
			cfq_log_cfqq(cfqd, cfqq, "alloced");
		}
		cic->cfqq[0] = cfqq;
		return cfqq;
	}
new_queue:
	cfqq = cic->cfqq[1];
	if (!cfqq || cfqq == cfqd->oom_cfqq) {
		struct cfq_queue *fresh = cfq_alloc_sync(cfqd, rq->owner);

		if (cfqq)
			cfq_put_queue(cfqd, cfqq);
		if (fresh) {
			cfq_init_cfqq(cfqd, fresh, cfqg, rq->owner, true);
			cfq_init_prio_data(fresh, cic);
			cfq_log_cfqq(cfqd, fresh, "alloced");
			cfqq = fresh;
		} else {
			cfqq = cfqd->oom_cfqq;
		}
		cfqq->pref++; /* the process's */
		cic->cfqq[1] = cfqq;
		return cfqq;
	}
	if (cfq_cfqq_coop(cfqq) && cfq_cfqq_split_coop(cfqq)) {
		cfq_log_cfqq(cfqd, cfqq, "breaking apart cfqq");
		cfqq = split_cfqq(cfqd, cic, cfqq, rq->owner);
		if (!cfqq)
			goto new_queue;
	}
	if (cfq_cfqq_merge(cfqq))
		cfqq = cfq_merge_cfqqs(cfqd, cic, cfqq);
	return cfqq;
}

/* ---- preemption ---- */

/* The kernel's cfqg_is_descendant(cfqg, ancestor), for a root with one level of children. */
static bool cfqg_is_descendant(const struct cfq_group *cfqg, const struct cfq_group *ancestor)
{
	return cfqg == ancestor || !ancestor->parent;
}

bool cfq_should_preempt(struct cfq_data *cfqd, struct cfq_queue *new_cfqq,
			const struct sched_request *rq)
{
	struct cfq_queue *cfqq = cfqd->active_queue;

	if (!cfqq)
		return false;
	if (cfq_class_idle(new_cfqq))
		return false;
	if (cfq_class_idle(cfqq))
		return true;
	/* A non-RT request does not preempt an RT slice. */
	if (cfq_class_rt(cfqq) && !cfq_class_rt(new_cfqq))
		return false;
	/* Sync request vs an async active queue (unless it must dispatch an expired request:
	 * cfq_sw_fifo_must_dispatch). */
	if (sched_rq_is_sync(rq) && !cfq_cfqq_sync(cfqq) &&
	    !(cfq_sw(cfqd, CFQ_SW_FIFO_MUST_DISPATCH) && cfq_cfqq_must_dispatch(cfqq)))
		return true;
	/* Only within the current group (or from an ancestor, cfq_sw_parent_preempt): group
	 * fairness. */
	if (cfq_sw(cfqd, CFQ_SW_PARENT_PREEMPT) ? !cfqg_is_descendant(cfqq->cfqg, new_cfqq->cfqg)
						 : new_cfqq->cfqg != cfqq->cfqg)
		return false;
	if (cfq_slice_used(cfqd, cfqq))
		return true;
	/* RT request vs a BE active queue. */
	if (cfq_class_rt(new_cfqq) && !cfq_class_rt(cfqq))
		return true;
	/* Idling on the sync-noidle tree and the new one is sync-noidle too (and, before
	 * cfq_sw_noidle_preempt, the two are the tree's only queues). */
	if (cfqd->serving_wl_type == SYNC_NOIDLE_WORKLOAD &&
	    cfqq_type(new_cfqq) == SYNC_NOIDLE_WORKLOAD &&
	    (cfq_sw(cfqd, CFQ_SW_NOIDLE_PREEMPT) ||
	     (new_cfqq->service_tree && cfq_st_count(new_cfqq->service_tree) == 2)) &&
	    cfq_rb_empty(&cfqq->sort_list))
		return true;
	/* Metadata vs regular I/O. */
	if (cfq_rq_prio(rq) && !cfqq->prio_pending)
		return true;
	/* An empty queue that should not idle. */
	if (cfq_sw(cfqd, CFQ_SW_PREEMPT_NOT_IDLING) && cfq_rb_empty(&cfqq->sort_list) &&
	    !cfq_should_idle(cfqd, cfqq))
		return true;
	if (!cfqd->active_cic || !cfq_cfqq_wait_request(cfqq))
		return false;
	/* As good as what the idling queue would have sent: close to the head. */
	return cfq_rq_close(cfqd, rq);
}

void cfq_preempt_queue(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	enum cfq_wl_type old_type = cfqq_type(cfqd->active_queue);

	cfq_log_cfqq(cfqd, cfqq, "preempt");
	cfqd->stats.preemptions++;
	cfq_slice_expired(cfqd, true, CFQ_EXPIRE_PREEMPTED);
	/* Workload type changed: do not restore the saved slice, or the preemption is lost. */
	if (cfq_sw(cfqd, CFQ_SW_PREEMPT_NEW_TYPE) && old_type != cfqq_type(cfqq))
		cfqq->cfqg->saved_wl_slice = 0;
	/* Front of its service tree, so it is selected next. */
	cfq_service_tree_add(cfqd, cfqq, true);
	cfqq->slice_end = 0;
	cfq_mark_cfqq_slice_new(cfqq);
}
