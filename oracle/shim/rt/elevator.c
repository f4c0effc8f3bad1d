// SPDX-License-Identifier: GPL-2.0
/*
 * block/elevator.c's helpers for the scheduler files, as in the kernel: the elevator type a
 * file registers (elv_register), the elevator_queue it allocates, the sector-sorted trees
 * (elv_rb_*: equal sectors go right, after those already there), the merge hash, and the legacy
 * dispatch list (elv_dispatch_sort/add_tail, 4.19 and before). Written for the shim after the
 * 4.19 and 6.12 behaviour of those functions.
 */
#include "oracle_kernel.h"
#include "oracle_rt.h"

int elv_register(struct elevator_type *e)
{
	if (e->icq_size) {
		e->icq_cache = oracle_kmem_cache_create(e->elevator_name, e->icq_size);
		if (!e->icq_cache)
			return -ENOMEM;
	}
	oracle_rt.elv_type = e;
	return 0;
}

void elv_unregister(struct elevator_type *e)
{
	if (e->icq_cache)
		kmem_cache_destroy(e->icq_cache);
	e->icq_cache = NULL;
	if (oracle_rt.elv_type == e)
		oracle_rt.elv_type = NULL;
}

struct elevator_queue *elevator_alloc(struct request_queue *q, struct elevator_type *e)
{
	struct elevator_queue *eq = kzalloc(sizeof(*eq), GFP_KERNEL);

	(void)q;
	if (!eq)
		return NULL;
	eq->type = e;
	eq->uses_mq = e->uses_mq;
	for (int i = 0; i < ELV_HASH_SIZE; i++)
		INIT_HLIST_HEAD(&eq->hash[i]);
	return eq;
}

#if ORACLE_KVER < KV(3, 0)
struct request *elv_rb_add(struct rb_root *root, struct request *rq)
#else
void elv_rb_add(struct rb_root *root, struct request *rq)
#endif
{
	struct rb_node **p = &root->rb_node, *parent = NULL;

	while (*p) {
		struct request *__rq = rb_entry(*p, struct request, rb_node);

		parent = *p;
		if (blk_rq_pos(rq) < blk_rq_pos(__rq))
			p = &(*p)->rb_left;
#if ORACLE_KVER < KV(3, 0)
		else if (blk_rq_pos(rq) > blk_rq_pos(__rq))
			p = &(*p)->rb_right;
		else
			return __rq; /* an alias: the caller dispatches it */
#else
		else
			p = &(*p)->rb_right;
#endif
	}
	rb_link_node(&rq->rb_node, parent, p);
	rb_insert_color(&rq->rb_node, root);
#if ORACLE_KVER < KV(3, 0)
	return NULL;
#endif
}

void elv_rb_del(struct rb_root *root, struct request *rq)
{
	BUG_ON(RB_EMPTY_NODE(&rq->rb_node));
	rb_erase(&rq->rb_node, root);
	RB_CLEAR_NODE(&rq->rb_node);
}

struct request *elv_rb_find(struct rb_root *root, sector_t sector)
{
	struct rb_node *n = root->rb_node;

	while (n) {
		struct request *rq = rb_entry(n, struct request, rb_node);

		if (sector < blk_rq_pos(rq))
			n = n->rb_left;
		else if (sector > blk_rq_pos(rq))
			n = n->rb_right;
		else
			return rq;
	}
	return NULL;
}

struct request *elv_rb_former_request(struct request_queue *q, struct request *rq)
{
	struct rb_node *prev = rb_prev(&rq->rb_node);

	(void)q;
	return prev ? rb_entry_rq(prev) : NULL;
}

struct request *elv_rb_latter_request(struct request_queue *q, struct request *rq)
{
	struct rb_node *next = rb_next(&rq->rb_node);

	(void)q;
	return next ? rb_entry_rq(next) : NULL;
}

/* The merge hash by end sector (adapt/merge_core.c looks it up). */
void elv_rqhash_add(struct request_queue *q, struct request *rq)
{
	struct elevator_queue *e = q->elevator;

	BUG_ON(ELV_ON_HASH(rq));
	hlist_add_head(&rq->hash, &e->hash[rq_hash_key(rq) % ELV_HASH_SIZE]);
	rq->rq_flags |= RQF_HASHED;
}

void elv_rqhash_del(struct request_queue *q, struct request *rq)
{
	(void)q;
	if (ELV_ON_HASH(rq)) {
		hlist_del_init(&rq->hash);
		rq->rq_flags &= ~RQF_HASHED;
	}
}

/* Legacy: insert rq into the dispatch queue sorted by sector from the boundary (the last
 * request the driver took), as 4.19's elv_dispatch_sort(). */
void elv_dispatch_sort(struct request_queue *q, struct request *rq)
{
	sector_t boundary;
	struct list_head *entry;

	if (q->last_merge == rq)
		q->last_merge = NULL;
	elv_rqhash_del(q, rq);
	q->nr_sorted--;
	boundary = q->end_sector;
	for (entry = q->queue_head.prev; entry != &q->queue_head; entry = entry->prev) {
		struct request *pos = list_entry(entry, struct request, queuelist);

		if (req_op(rq) != req_op(pos))
			break;
		if (rq_data_dir(rq) != rq_data_dir(pos))
			break;
		if (pos->rq_flags & (RQF_STARTED | RQF_SOFTBARRIER))
			break;
		if (blk_rq_pos(rq) >= boundary) {
			if (blk_rq_pos(pos) < boundary)
				continue;
		} else {
			if (blk_rq_pos(pos) >= boundary)
				break;
		}
		if (blk_rq_pos(rq) >= blk_rq_pos(pos))
			break;
	}
	list_add(&rq->queuelist, entry);
}

void elv_dispatch_add_tail(struct request_queue *q, struct request *rq)
{
	if (q->last_merge == rq)
		q->last_merge = NULL;
	elv_rqhash_del(q, rq);
	q->nr_sorted--;
	q->end_sector = blk_rq_pos(rq) + blk_rq_sectors(rq);
	q->boundary_rq = rq;
	list_add_tail(&rq->queuelist, &q->queue_head);
}

bool elv_bio_merge_ok(struct request *rq, struct bio *bio)
{
	/* The adapter's merge core (adapt/merge_core.c); without one nothing merges. */
	return oracle_rt.bio_merge_ok && oracle_rt.bio_merge_ok(rq, bio);
}
