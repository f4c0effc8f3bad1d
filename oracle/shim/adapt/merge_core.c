// SPDX-License-Identifier: GPL-2.0
/*
 * The block core's merge path around the elevator (block/elevator.c, blk-merge.c, blk-core.c,
 * blk-mq-sched.c of 4.19 and 6.12, and 4.12 for bfq_4_12), written for the shim from reading
 * them: the kernel file's merge hooks are reached the way the kernel reaches them, on the
 * kernel's own request and bio structures, independently of blk/merge.c. Included by an
 * adapter (mq.c; sq.c with ORACLE_MC_LEGACY: the legacy elevator_ops of the variant's era),
 * which provides mc_free() (the request merged away is freed: its elevator data and request
 * go) and calls mc_begin()/mc_end() around each core call of the simulator
 * (sched_policy_ops.core_bio_merge / core_insert).
 *
 * What the simulator's block layer carries out afterwards is recorded in mc.out: the request a
 * bio joined, and each request merged into another (attempt_merge()).
 *
 * The rules, by version (the variants are 2.6.32 to 6.12):
 *   blk_rq_merge_ok()  both mergeable, same op (and direction); from 5.x (here: 6.12) also the
 *                      same blkg (blk_cgroup_mergeable()) and the same I/O priority; 4.x merges
 *                      across priorities and gives the request the best (ioprio_best()).
 *   ll_back_merge_fn() / ll_front_merge_fn(): max_sectors, max_segments; a refusal flags the
 *                      request REQ_NOMERGE (req_set_nomerge()).
 *   attempt_merge()    contiguous, same op, (6.12) same priority, ll_merge_requests_fn()
 *                      (limits, no flag); the earlier start_time_ns; elv_merge_requests().
 */

struct merge_core {
	const struct sched_merge_limits *lim; /* set for the duration of a core call */
	struct sched_merge_out *out;
	bool merged; /* an insert merge happened (core_insert) */
	unsigned int seg_shift;
};
static struct merge_core mc = {.seg_shift = 12};

static void mc_free(struct request_queue *q, struct request *rq);

static void mc_begin(const struct sched_merge_limits *l, struct sched_merge_out *out)
{
	mc.lim = l;
	mc.out = out;
	mc.merged = false;
	mc.seg_shift = l->segment_shift;
}

static void mc_end(void)
{
	mc.lim = NULL;
	mc.out = NULL;
}

/* The segments of the simulator's bio: the pages it touches (blk/merge.c's rule, from the
 * limits given). */
static unsigned int mc_segments(sector_t sector, unsigned int bytes)
{
	u64 off = (u64)sector << 9;

	if (!bytes)
		return 1;
	return (unsigned int)(((off + bytes - 1) >> mc.seg_shift) - (off >> mc.seg_shift) + 1);
}

static bool mc_nomerges(void)
{
	return !mc.lim || mc.lim->nomerges >= 2; /* blk_queue_nomerges() */
}

static bool mc_noxmerges(void)
{
	return !mc.lim || mc.lim->nomerges >= 1; /* blk_queue_noxmerges() */
}

static bool bio_mergeable(struct bio *bio)
{
	return !(bio->bi_opf & REQ_NOMERGE_FLAGS);
}

#if ORACLE_KVER < KV(5, 0)
static unsigned short mc_ioprio_best(unsigned short a, unsigned short b)
{
	if (IOPRIO_PRIO_CLASS(a) == IOPRIO_CLASS_NONE)
		a = (unsigned short)IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, IOPRIO_BE_NORM);
	if (IOPRIO_PRIO_CLASS(b) == IOPRIO_CLASS_NONE)
		b = (unsigned short)IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, IOPRIO_BE_NORM);
	return a < b ? a : b;
}
#endif

static void mc_set_nomerge(struct request_queue *q, struct request *req)
{
	req->cmd_flags |= REQ_NOMERGE;
	if (req == q->last_merge)
		q->last_merge = NULL;
}

static bool mc_rq_merge_ok(struct request *rq, struct bio *bio)
{
	if (!rq_mergeable(rq) || !bio_mergeable(bio))
		return false;
	if (req_op(rq) != bio_op(bio) || rq_data_dir(rq) != bio_data_dir(bio))
		return false;
#if ORACLE_KVER >= KV(5, 0)
	if (rq->bio && rq->bio->bi_blkg != bio->bi_blkg)
		return false;
	if (rq->ioprio != bio->bi_ioprio)
		return false;
#endif
	return true;
}

static bool mc_allow_bio_merge(struct request *rq, struct bio *bio)
{
	struct request_queue *q = rq->q;

#if defined(ORACLE_MC_LEGACY) && ORACLE_KVER < KV(4, 8)
	/* elv_iosched_allow_merge(): elevator_allow_merge_fn (elevator_allow_bio_merge_fn
	 * from 4.8). */
	if (ORACLE_SQ_OPS(q->elevator->type)->elevator_allow_merge_fn)
		return ORACLE_SQ_OPS(q->elevator->type)->elevator_allow_merge_fn(q, rq, bio);
#elif defined(ORACLE_MC_LEGACY)
	if (ORACLE_SQ_OPS(q->elevator->type)->elevator_allow_bio_merge_fn)
		return ORACLE_SQ_OPS(q->elevator->type)->elevator_allow_bio_merge_fn(q, rq, bio);
#elif ORACLE_KVER < KV(5, 0)
	if (q->elevator->type->ops.mq.allow_merge)
		return q->elevator->type->ops.mq.allow_merge(q, rq, bio);
#else
	if (q->elevator->type->ops.allow_merge)
		return q->elevator->type->ops.allow_merge(q, rq, bio);
#endif
	return true;
}

/* elv_bio_merge_ok() (the kernel file calls it through rt/elevator.c). */
static bool mc_bio_merge_ok(struct request *rq, struct bio *bio)
{
	return mc_rq_merge_ok(rq, bio) && mc_allow_bio_merge(rq, bio);
}

static enum elv_merge mc_try_merge(struct request *rq, struct bio *bio)
{
	if (blk_rq_pos(rq) + blk_rq_sectors(rq) == bio->bi_iter.bi_sector)
		return ELEVATOR_BACK_MERGE;
	if (blk_rq_pos(rq) - bio_sectors(bio) == bio->bi_iter.bi_sector)
		return ELEVATOR_FRONT_MERGE;
	return ELEVATOR_NO_MERGE;
}

/* elv_rqhash_find(): a request ending at offset; one no longer mergeable leaves the hash. */
static struct request *mc_rqhash_find(struct request_queue *q, sector_t offset)
{
	struct hlist_head *b = &q->elevator->hash[offset % ELV_HASH_SIZE];
	struct hlist_node *pos, *next;

	for (pos = b->first; pos; pos = next) {
		struct request *rq = hlist_entry(pos, struct request, hash);

		next = pos->next;
		if (!rq_mergeable(rq)) {
			hlist_del_init(&rq->hash);
			rq->rq_flags &= ~RQF_HASHED;
			continue;
		}
		if (rq_hash_key(rq) == offset)
			return rq;
	}
	return NULL;
}

#ifdef ORACLE_MC_LEGACY
#define mc_sq(q) ORACLE_SQ_OPS((q)->elevator->type)
#else
static const struct elevator_mq_ops *mc_ops(struct request_queue *q)
{
#if ORACLE_KVER < KV(5, 0)
	return &q->elevator->type->ops.mq;
#else
	return &q->elevator->type->ops;
#endif
}
#endif

/* elv_merge(). */
static enum elv_merge mc_elv_merge(struct request_queue *q, struct request **req, struct bio *bio)
{
	struct request *rq;

	if (mc_nomerges() || !bio_mergeable(bio))
		return ELEVATOR_NO_MERGE;
	if (q->last_merge && mc_bio_merge_ok(q->last_merge, bio)) {
		enum elv_merge ret = mc_try_merge(q->last_merge, bio);

		if (ret != ELEVATOR_NO_MERGE) {
			*req = q->last_merge;
			return ret;
		}
	}
	if (mc_noxmerges())
		return ELEVATOR_NO_MERGE;
	rq = mc_rqhash_find(q, bio->bi_iter.bi_sector);
	if (rq && mc_bio_merge_ok(rq, bio)) {
		*req = rq;
		return ELEVATOR_BACK_MERGE;
	}
#ifdef ORACLE_MC_LEGACY
	if (mc_sq(q)->elevator_merge_fn)
		return (enum elv_merge)mc_sq(q)->elevator_merge_fn(q, req, bio);
#else
	if (mc_ops(q)->request_merge)
		return (enum elv_merge)mc_ops(q)->request_merge(q, req, bio);
#endif
	return ELEVATOR_NO_MERGE;
}

static void mc_rqhash_reposition(struct request_queue *q, struct request *rq)
{
	elv_rqhash_del(q, rq);
	elv_rqhash_add(q, rq);
}

/* elv_merged_request(). */
static void mc_merged_request(struct request_queue *q, struct request *rq, enum elv_merge type)
{
#ifdef ORACLE_MC_LEGACY
	if (mc_sq(q)->elevator_merged_fn)
		mc_sq(q)->elevator_merged_fn(q, rq, type);
#else
	if (mc_ops(q)->request_merged)
		mc_ops(q)->request_merged(q, rq, type);
#endif
	if (type == ELEVATOR_BACK_MERGE)
		mc_rqhash_reposition(q, rq);
	q->last_merge = rq;
}

#ifdef ORACLE_MC_LEGACY
/* elv_merge_requests() (legacy): the elevator hears only of a next it sorted (an insert
 * merge's next never was: 2.6.39's ELEVATOR_INSERT_SORT_MERGE; 2.6.3x had none, every next
 * was sorted), which leaves the hash and nr_sorted. */
static void mc_merge_requests(struct request_queue *q, struct request *rq, struct request *next)
{
	bool next_sorted = next->rq_flags & RQF_SORTED;

	if (next_sorted && mc_sq(q)->elevator_merge_req_fn)
		mc_sq(q)->elevator_merge_req_fn(q, rq, next);
	mc_rqhash_reposition(q, rq);
	if (next_sorted) {
		elv_rqhash_del(q, next);
		q->nr_sorted--;
	}
	q->last_merge = rq;
}
#else
/* elv_merge_requests() (blk-mq: the elevator hears of every next). */
static void mc_merge_requests(struct request_queue *q, struct request *rq, struct request *next)
{
	if (mc_ops(q)->requests_merged)
		mc_ops(q)->requests_merged(q, rq, next);
	mc_rqhash_reposition(q, rq);
	q->last_merge = rq;
}
#endif

/* ll_back_merge_fn() / ll_front_merge_fn(). */
static bool mc_bio_fits(struct request_queue *q, struct request *req, struct bio *bio)
{
	unsigned int segs = mc_segments(bio->bi_iter.bi_sector, bio->bi_iter.bi_size);

	if (blk_rq_sectors(req) + bio_sectors(bio) > mc.lim->max_sectors ||
	    req->nr_phys_segments + segs > mc.lim->max_segments) {
		mc_set_nomerge(q, req);
		return false;
	}
	req->nr_phys_segments = (unsigned short)(req->nr_phys_segments + segs);
	return true;
}

static void mc_joined(struct request *req, enum elv_merge type)
{
	if (mc.out) {
		mc.out->rq = req->oracle_rq;
		mc.out->type = type == ELEVATOR_FRONT_MERGE ? SCHED_FRONT_MERGE : SCHED_BACK_MERGE;
	}
}

/* bio_attempt_back_merge() / bio_attempt_front_merge(). */
static bool mc_bio_attempt_merge(struct request_queue *q, struct request *req, struct bio *bio,
				 enum elv_merge type)
{
	if (!mc_bio_fits(q, req, bio))
		return false;
	if (type == ELEVATOR_BACK_MERGE) {
		req->biotail->bi_next = bio;
		req->biotail = bio;
	} else {
		bio->bi_next = req->bio;
		req->bio = bio;
		req->__sector = bio->bi_iter.bi_sector;
	}
	req->__data_len += bio->bi_iter.bi_size;
#if ORACLE_KVER < KV(5, 0)
	req->ioprio = mc_ioprio_best(req->ioprio, bio->bi_ioprio);
#endif
	mc_joined(req, type);
	return true;
}

/* attempt_merge(): next, right after req, joins it; returned for the caller to free. */
static struct request *mc_attempt_merge(struct request_queue *q, struct request *req,
					struct request *next)
{
	if (!rq_mergeable(req) || !rq_mergeable(next))
		return NULL;
	if (req_op(req) != req_op(next))
		return NULL;
	if (blk_rq_pos(req) + blk_rq_sectors(req) != blk_rq_pos(next))
		return NULL;
	if (rq_data_dir(req) != rq_data_dir(next))
		return NULL;
#if ORACLE_KVER >= KV(5, 0)
	if (req->ioprio != next->ioprio)
		return NULL;
#endif
	/* ll_merge_requests_fn(): no flag on a refusal. */
	if (blk_rq_sectors(req) + blk_rq_sectors(next) > mc.lim->max_sectors ||
	    req->nr_phys_segments + next->nr_phys_segments > mc.lim->max_segments)
		return NULL;
#if ORACLE_KVER >= KV(5, 0)
	if (req->bio && next->bio && req->bio->bi_blkg != next->bio->bi_blkg)
		return NULL;
#endif
	req->nr_phys_segments = (unsigned short)(req->nr_phys_segments + next->nr_phys_segments);
	if (next->start_time_ns < req->start_time_ns)
		req->start_time_ns = next->start_time_ns;
#ifdef ORACLE_MC_LEGACY
	/* Before 4.18 the same in jiffies (rq->start_time, time_after()). */
	if (time_after(req->oracle_start_jiffies, next->oracle_start_jiffies))
		req->oracle_start_jiffies = next->oracle_start_jiffies;
#endif
	req->biotail->bi_next = next->bio;
	req->biotail = next->biotail;
	req->__data_len += blk_rq_bytes(next);
	mc_merge_requests(q, req, next);
#if ORACLE_KVER < KV(5, 0)
	req->ioprio = mc_ioprio_best(req->ioprio, next->ioprio);
#endif
	/* blk/ carries out every merge of the chain: one it is not told of would part the two
	 * sides' requests (SCHED_MERGE_CHAIN bounds a chain by max_segments). */
	BUG_ON(mc.out && mc.out->nr >= SCHED_MERGE_CHAIN);
	if (mc.out) {
		mc.out->into[mc.out->nr] = req->oracle_rq;
		mc.out->next[mc.out->nr] = next->oracle_rq;
		mc.out->nr++;
	}
	next->bio = NULL;
	return next;
}

/* elv_latter_request() / elv_former_request(). */
static struct request *mc_latter(struct request_queue *q, struct request *rq)
{
#ifdef ORACLE_MC_LEGACY
	return mc_sq(q)->elevator_latter_req_fn ? mc_sq(q)->elevator_latter_req_fn(q, rq) : NULL;
#else
	return mc_ops(q)->next_request ? mc_ops(q)->next_request(q, rq) : NULL;
#endif
}

static struct request *mc_former(struct request_queue *q, struct request *rq)
{
#ifdef ORACLE_MC_LEGACY
	return mc_sq(q)->elevator_former_req_fn ? mc_sq(q)->elevator_former_req_fn(q, rq) : NULL;
#else
	return mc_ops(q)->former_request ? mc_ops(q)->former_request(q, rq) : NULL;
#endif
}

/* attempt_back_merge() / attempt_front_merge(): the request merged away, for the caller to
 * free (before 4.12 attempt_merge() freed it itself, after elv_merge_requests(): the same
 * order). */
static struct request *mc_attempt_back_merge(struct request_queue *q, struct request *rq)
{
	struct request *next = mc_latter(q, rq);

	return next ? mc_attempt_merge(q, rq, next) : NULL;
}

static struct request *mc_attempt_front_merge(struct request_queue *q, struct request *rq)
{
	struct request *prev = mc_former(q, rq);

	return prev ? mc_attempt_merge(q, prev, rq) : NULL;
}

#ifndef ORACLE_MC_LEGACY
/* blk_mq_sched_try_merge(): the elevator's bio_merge calls it under its lock. */
static bool mc_sched_try_merge(struct request_queue *q, struct bio *bio,
			       struct request **merged_request)
{
	struct request *rq = NULL;
	enum elv_merge type = mc_elv_merge(q, &rq, bio);

	if (type != ELEVATOR_BACK_MERGE && type != ELEVATOR_FRONT_MERGE)
		return false;
	if (!mc_allow_bio_merge(rq, bio))
		return false;
	if (!mc_bio_attempt_merge(q, rq, bio, type))
		return false;
	if (type == ELEVATOR_BACK_MERGE)
		*merged_request = mc_attempt_back_merge(q, rq);
	else
		*merged_request = mc_attempt_front_merge(q, rq);
	if (!*merged_request)
		mc_merged_request(q, rq, type);
	return true;
}

/* elv_attempt_insert_merge() with blk_attempt_req_merge() (blk-mq: no elevator veto). The
 * request merged away is freed at once (4.19: __blk_put_request()) or put on free (6.12). */
static bool mc_attempt_insert_merge(struct request_queue *q, struct request *rq,
				    struct list_head *free)
{
	struct request *into;
	bool ret = false;

	if (mc_nomerges() || !rq_mergeable(rq))
		return false;
	if (q->last_merge && mc_attempt_merge(q, q->last_merge, rq)) {
		if (free)
			list_add(&rq->queuelist, free);
		else
			mc_free(q, rq);
		mc.merged = true;
		return true;
	}
	if (mc_noxmerges())
		return false;
	while ((into = mc_rqhash_find(q, blk_rq_pos(rq))) && mc_attempt_merge(q, into, rq)) {
		if (free)
			list_add(&rq->queuelist, free);
		else
			mc_free(q, rq);
		mc.merged = true;
		ret = true;
		rq = into;
	}
	return ret;
}

/* blk_bio_list_merge() (kyber's per-context lists): the newest 8, the first that takes it. */
static bool mc_bio_list_merge(struct request_queue *q, struct list_head *list, struct bio *bio)
{
	struct request *rq;
	int checked = 8;

	if (mc_nomerges())
		return false;
	list_for_each_entry_reverse(rq, list, queuelist)
	{
		enum elv_merge type;

		if (!checked--)
			break;
		if (!mc_rq_merge_ok(rq, bio))
			continue;
		type = mc_try_merge(rq, bio);
		if (type == ELEVATOR_NO_MERGE)
			continue;
		if (!mc_allow_bio_merge(rq, bio))
			return false;
		return mc_bio_attempt_merge(q, rq, bio, type);
	}
	return false;
}
#endif /* !ORACLE_MC_LEGACY */

#ifdef ORACLE_MC_LEGACY
/* ---- the legacy block core: blk_queue_bio() (3.x, 4.x), __make_request() (2.6.3x) -------- */

/* elv_bio_merged() (2.6.36 on; cfq counts the merged bio in its blkio statistics). */
static void mc_bio_merged(struct request_queue *q, struct request *rq, struct bio *bio)
{
	if (mc_sq(q)->elevator_bio_merged_fn)
		mc_sq(q)->elevator_bio_merged_fn(q, rq, bio);
}

/*
 * The merge half of the legacy make_request: elv_merge(), then bio_attempt_back_merge() /
 * bio_attempt_front_merge() (ll_back_merge_fn() / ll_front_merge_fn(): a refusal gets the bio
 * its own request), elv_bio_merged(), attempt_back_merge() / attempt_front_merge() through
 * the elevator's latter/former request (no elevator veto: both are in one of its sort lists),
 * the request merged away freed (__blk_put_request()), else elv_merged_request(). No second
 * allow_merge question (blk-mq's blk_mq_sched_try_merge() asks one). The plug was tried before,
 * in blk/ (blk_attempt_plug_merge(): no elevator hook).
 */
static bool mc_sq_bio_merge(struct request_queue *q, struct bio *bio)
{
	struct request *req = NULL, *free;
	enum elv_merge type;

#if ORACLE_KVER3 < KV3(2, 6, 39)
	/* __make_request() until the per-queue plugging went (2.6.39, 7eaceaccab5f): an empty
	 * queue is not searched (elv_queue_empty(): the dispatch list, then the elevator's
	 * elevator_queue_empty_fn, cfq_queue_empty(): no request queued). */
	if (list_empty(&q->queue_head) &&
	    (!mc_sq(q)->elevator_queue_empty_fn || mc_sq(q)->elevator_queue_empty_fn(q)))
		return false;
#endif
	type = mc_elv_merge(q, &req, bio);
	if (type != ELEVATOR_BACK_MERGE && type != ELEVATOR_FRONT_MERGE)
		return false;
	if (!mc_bio_attempt_merge(q, req, bio, type))
		return false;
	mc_bio_merged(q, req, bio);
	free = type == ELEVATOR_BACK_MERGE ? mc_attempt_back_merge(q, req)
					   : mc_attempt_front_merge(q, req);
	if (free)
		mc_free(q, free);
	else
		mc_merged_request(q, req, type);
	return true;
}

#if ORACLE_KVER3 >= KV3(2, 6, 39)
/* blk_attempt_req_merge(): the elevator may veto a request merge (elevator_allow_rq_merge_fn,
 * 4.8 on: cfq_allow_rq_merge(), the same cfqq); next is freed. */
static bool mc_attempt_req_merge(struct request_queue *q, struct request *rq, struct request *next)
{
	struct request *free;

#if ORACLE_KVER >= KV(4, 8)
	if (mc_sq(q)->elevator_allow_rq_merge_fn &&
	    !mc_sq(q)->elevator_allow_rq_merge_fn(q, rq, next))
		return false;
#endif
	free = mc_attempt_merge(q, rq, next);
	if (!free)
		return false;
	mc_free(q, free);
	mc.merged = true;
	return true;
}

/*
 * elv_attempt_insert_merge(), for ELEVATOR_INSERT_SORT_MERGE (a plug's request at its flush,
 * 2.6.39 on): the one-hit cache, then the hash, again for each request merged into (it may now
 * join the one before it; the first kernels with it merged once, none of the variants). Before
 * 2.6.39 there was no on-stack plug and no insert merge: the request is sorted in.
 */
static bool mc_sq_attempt_insert_merge(struct request_queue *q, struct request *rq)
{
	struct request *into;
	bool ret = false;

	if (mc_nomerges())
		return false;
	if (q->last_merge && mc_attempt_req_merge(q, q->last_merge, rq))
		return true;
	if (mc_noxmerges())
		return false;
	while ((into = mc_rqhash_find(q, blk_rq_pos(rq))) && mc_attempt_req_merge(q, into, rq)) {
		ret = true;
		rq = into;
	}
	return ret;
}
#else
static bool mc_sq_attempt_insert_merge(struct request_queue *q, struct request *rq)
{
	(void)q;
	(void)rq;
	return false;
}
#endif
#endif /* ORACLE_MC_LEGACY */
