/* SPDX-License-Identifier: GPL-2.0 */
/* Request merging (blk/merge.c): the block layer's own view, for blk.c. */
#ifndef BLK_MERGE_H
#define BLK_MERGE_H

#include "blk.h"

/* The queue's merge state from its parameters (after the scheduler is built). */
void blk_merge_init(struct blk_queue *q, const struct blk_params *p);
/* A bio is submitted: it heads a request of its own until it joins one. */
void blk_merge_bio_init(struct blk_rq *r);
/*
 * elv_merge() and what follows it (blk_mq_sched_try_merge(), 4.19's blk_queue_bio()): r joins a
 * queued request as its back or front bio, and the grown request may then take its neighbour in
 * sector order. Returns true when r was merged (it is BLK_RQ_MERGED and holds no request).
 */
bool blk_merge_bio(struct blk_queue *q, struct blk_rq *r, uint64_t now);
/* blk_attempt_plug_merge(): r joins a request of the owner's plug (the last one in blk-mq, any
 * in the legacy layer, newest first). */
bool blk_merge_plug(struct blk_queue *q, struct sched_list *plug, struct blk_rq *r, uint64_t now);
/* elv_attempt_insert_merge(): r, a request from a plug that holds a request or tag, joins a
 * queued one (the one-hit cache, then the hash, again for each request merged into) instead of
 * entering the elevator; its request or tag is then released. */
bool blk_merge_insert(struct blk_queue *q, struct blk_rq *r, uint64_t now);
/* With a policy that brings its own merge core (sched_has_merge_core()): r goes into the
 * elevator through the core, which may merge it into a queued request instead (plugged: from a
 * plug). 0 inserted, 1 merged (its slot released), -1 refused by the scheduler core. */
int blk_merge_core_insert(struct blk_queue *q, struct blk_rq *r, bool plugged, uint64_t now);
/* Before a request enters the elevator: a one-hit cache the policy has let go of (its dispatch
 * list) is cleared, as the kernel cleared it then (elv_dispatch_sort()). */
void blk_merge_before_insert(struct blk_queue *q);
/* A request entered the elevator: on the back-merge hash, the one-hit cache when empty. */
void blk_merge_inserted(struct blk_queue *q, struct blk_rq *r);
/* A request left the elevator for the device: no longer a merge candidate. */
void blk_merge_dispatched(struct blk_queue *q, struct blk_rq *r);

/* blk.c: the trace line of a request merged into its neighbour ('m', its range). */
void blk_trace_rq_merged(struct blk_queue *q, uint64_t now, const struct blk_rq *next);
/* blk.c: the request or tag of a request merged away goes back (no waiter is woken here). */
void blk_release_slot(struct blk_queue *q, struct blk_rq *r);

#endif
