// SPDX-License-Identifier: GPL-2.0
/*
 * The block core's merge path around the elevator (block/elevator.c, blk-merge.c, blk-core.c,
 * blk-mq-sched.c of 4.19 and 6.12, and 4.12 for bfq_4_12), written for the shim from reading
 * them: the kernel file's merge hooks are reached the way the kernel reaches them, on the
 * kernel's own request and bio structures, independently of blk/merge.c. Included by an
 * adapter (mq.c), which provides mc_free() (the request merged away is freed: its elevator
 * data and request go) and calls mc_begin()/mc_end() around each core call of the simulator
 * (sched_policy_ops.core_bio_merge / core_insert).
 *
 * What the simulator's block layer carries out afterwards is recorded in mc.out: the request a
 * bio joined, and each request merged into another (attempt_merge()).
 *
 * The rules, by version (the variants are 4.x or 6.12):
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

#if ORACLE_KVER < KV(5, 0)
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

static const struct elevator_mq_ops *mc_ops(struct request_queue *q)
{
#if ORACLE_KVER < KV(5, 0)
	return &q->elevator->type->ops.mq;
#else
	return &q->elevator->type->ops;
#endif
}

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
	if (mc_ops(q)->request_merge)
		return (enum elv_merge)mc_ops(q)->request_merge(q, req, bio);
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
	if (mc_ops(q)->request_merged)
		mc_ops(q)->request_merged(q, rq, type);
	if (type == ELEVATOR_BACK_MERGE)
		mc_rqhash_reposition(q, rq);
	q->last_merge = rq;
}

/* elv_merge_requests() (blk-mq: the elevator hears of every next). */
static void mc_merge_requests(struct request_queue *q, struct request *rq, struct request *next)
{
	if (mc_ops(q)->requests_merged)
		mc_ops(q)->requests_merged(q, rq, next);
	mc_rqhash_reposition(q, rq);
	q->last_merge = rq;
}

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
	req->biotail->bi_next = next->bio;
	req->biotail = next->biotail;
	req->__data_len += blk_rq_bytes(next);
	mc_merge_requests(q, req, next);
#if ORACLE_KVER < KV(5, 0)
	req->ioprio = mc_ioprio_best(req->ioprio, next->ioprio);
#endif
	if (mc.out && mc.out->nr < SCHED_MERGE_CHAIN) {
		mc.out->into[mc.out->nr] = req->oracle_rq;
		mc.out->next[mc.out->nr] = next->oracle_rq;
		mc.out->nr++;
	}
	next->bio = NULL;
	return next;
}

static struct request *mc_latter(struct request_queue *q, struct request *rq)
{
	return mc_ops(q)->next_request ? mc_ops(q)->next_request(q, rq) : NULL;
}

static struct request *mc_former(struct request_queue *q, struct request *rq)
{
	return mc_ops(q)->former_request ? mc_ops(q)->former_request(q, rq) : NULL;
}

/* blk_mq_sched_try_merge(): the elevator's bio_merge calls it under its lock. */
static bool mc_sched_try_merge(struct request_queue *q, struct bio *bio,
			       struct request **merged_request)
{
	struct request *rq = NULL, *other;
	enum elv_merge type = mc_elv_merge(q, &rq, bio);

	if (type != ELEVATOR_BACK_MERGE && type != ELEVATOR_FRONT_MERGE)
		return false;
	if (!mc_allow_bio_merge(rq, bio))
		return false;
	if (!mc_bio_attempt_merge(q, rq, bio, type))
		return false;
	if (type == ELEVATOR_BACK_MERGE) {
		other = mc_latter(q, rq);
		*merged_request = other ? mc_attempt_merge(q, rq, other) : NULL;
	} else {
		other = mc_former(q, rq);
		*merged_request = other ? mc_attempt_merge(q, other, rq) : NULL;
	}
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
