// SPDX-License-Identifier: GPL-2.0
/*
 * Request merging, after block/blk-merge.c and block/elevator.c (4.19 and 6.12), written anew.
 *
 * A submitted blk_rq is a bio. It first heads a request of its own (rq.offset/length are the
 * request's, bio_offset/bio_length its own, bios lists them in sector order). elv_merge(): the
 * one-hit cache (q->last_merge, back or front), then with nomerges 0 the back-merge hash of
 * queued requests by end sector, then the policy's front-merge lookup (request_merge); a
 * request the policy no longer holds (the legacy elevator's dispatch list) is neither (the
 * kernel takes it off both as it leaves the elevator). Each candidate must pass
 * blk_rq_merge_ok() (same op and direction, same group (blkcg) and I/O priority after 4.x,
 * neither flagged REQ_NOMERGE) and the elevator's allow_bio_merge. The merge itself
 * is refused past max_sectors_kb or max_segments, and then flags the request REQ_NOMERGE
 * (req_set_nomerge()). After a back merge the grown request may take the next one in its sort
 * tree (attempt_back_merge()), after a front merge the previous one may take it
 * (attempt_front_merge()); the request merged away leaves the policy and frees its request
 * or tag. A blk-mq elevator with a list of its own (kyber: sched_bio_merge_list()) merges bios
 * by blk_bio_list_merge() instead: the newest 8 requests of the list it gives, each through
 * blk_attempt_bio_merge(), the first refusal (the elevator's or the limits') ending the walk;
 * nothing else (no cache, hash, request or insert merge). Only reads and writes merge (flushes
 * never do; discards are not merged here).
 */
#include <string.h>

#include "merge.h"

/* ---- the request as a list of bios -------------------------------------------------------- */

static uint64_t rq_end(const struct blk_rq *r)
{
	return r->rq.offset + r->rq.length;
}

/* The segments of a bio: the 4 KiB pages it touches. */
static uint32_t bio_segments(uint64_t offset, uint64_t length)
{
	if (!length)
		return 1;
	return (uint32_t)(((offset + length - 1) >> BLK_SEGMENT_SHIFT) -
			  (offset >> BLK_SEGMENT_SHIFT) + 1);
}

void blk_merge_bio_init(struct blk_rq *r)
{
	r->head = r;
	r->merged = 0;
	r->nomerge = false;
	r->merge_tried = false;
	r->bio_offset = r->rq.offset;
	r->bio_length = r->rq.length;
	r->nr_segs = (uint16_t)bio_segments(r->rq.offset, r->rq.length);
	r->nr_phys_segments = r->nr_segs;
	/* Not in any scheduler until inserted (sched_rq_queued() is false). */
	sched_rb_clear(&r->rq.priv.rb);
	r->rq.priv.queue = NULL;
	sched_list_init(&r->bios);
	sched_list_init(&r->bio_node);
	sched_list_add_tail(&r->bio_node, &r->bios);
	sched_list_init(&r->hash);
}

/* ---- the back-merge hash (elv_rqhash_*) ----------------------------------------------------- */

static struct sched_list *hash_bucket(struct blk_queue *q, uint64_t end)
{
	uint64_t k = (end >> SCHED_SECTOR_SHIFT) * 0x9E3779B97F4A7C15ull; /* hash_64() */

	return &q->hash[k >> (64 - BLK_HASH_BITS)];
}

static bool hashed(const struct blk_rq *r)
{
	return !sched_list_empty(&r->hash);
}

static void hash_del(struct blk_rq *r)
{
	if (hashed(r))
		sched_list_del_init(&r->hash);
}

static void hash_add(struct blk_queue *q, struct blk_rq *r)
{
	sched_list_add(&r->hash, hash_bucket(q, rq_end(r)));
}

/* elv_rqhash_reposition(): its end sector moved. */
static void hash_reposition(struct blk_queue *q, struct blk_rq *r)
{
	hash_del(r);
	hash_add(q, r);
}

/* elv_rqhash_find(): a queued request ending where offset starts; a REQ_NOMERGE one found on
 * the way is dropped from the hash, and so is one the policy has let go of but the driver not
 * yet fetched (the legacy elevator's dispatch list: elv_dispatch_sort() takes a request off the
 * hash as the elevator hands it over, so the kernel's lookup goes on to the next one). */
static struct blk_rq *hash_find(struct blk_queue *q, uint64_t offset)
{
	struct sched_list *b = hash_bucket(q, offset), *pos, *next;

	for (pos = b->next; pos != b; pos = next) {
		struct blk_rq *r = sched_list_entry(pos, struct blk_rq, hash);

		next = pos->next;
		if (r->nomerge || !sched_rq_queued(&r->rq)) {
			hash_del(r);
			continue;
		}
		if (rq_end(r) == offset)
			return r;
	}
	return NULL;
}

void blk_merge_init(struct blk_queue *q, const struct blk_params *p)
{
	q->nomerges = p->nomerges > BLK_NOMERGES_MAX ? BLK_NOMERGES_MAX : p->nomerges;
	/* Merging needs the block layer to complete a request's bios: a device model. */
	if (!q->model)
		q->nomerges = BLK_NOMERGES_MAX;
	q->max_sectors = (uint64_t)(p->max_sectors_kb ? p->max_sectors_kb : BLK_DEF_MAX_SECTORS_KB)
			 << 1;
	q->max_segments = p->max_segments ? p->max_segments : BLK_DEF_MAX_SEGMENTS;
	if (q->max_segments > SCHED_MERGE_CHAIN)
		q->max_segments = SCHED_MERGE_CHAIN; /* a merge core's chain fits its report */
	q->plug_max_rq = q->mode == SCHED_BLK_MQ ? BLK_PLUG_MAX_RQ_MQ : BLK_PLUG_MAX_RQ_LEGACY;
	q->last_merge = NULL;
	for (uint32_t i = 0; i < BLK_HASH_SIZE; i++)
		sched_list_init(&q->hash[i]);
}

/* The legacy elevator clears the one-hit cache when it hands that request to its dispatch list
 * (elv_dispatch_sort()), before the driver fetches it: a cached request the policy no longer
 * holds is no cache, seen here as the cache is read. */
static void last_merge_check(struct blk_queue *q)
{
	if (q->last_merge && !sched_rq_queued(&q->last_merge->rq))
		q->last_merge = NULL;
}

void blk_merge_before_insert(struct blk_queue *q)
{
	last_merge_check(q);
}

void blk_merge_inserted(struct blk_queue *q, struct blk_rq *r)
{
	if (!blk_merging(q) || !sched_has_elevator(q->s))
		return;
	if (r->rq.op != SCHED_OP_READ && r->rq.op != SCHED_OP_WRITE)
		return;
	hash_add(q, r);
	if (!q->last_merge)
		q->last_merge = r;
}

void blk_merge_dispatched(struct blk_queue *q, struct blk_rq *r)
{
	hash_del(r);
	if (q->last_merge == r)
		q->last_merge = NULL;
}

/* ---- the rules ------------------------------------------------------------------------------ */

/* rq_mergeable() / bio_mergeable(). */
static bool mergeable(const struct blk_rq *r)
{
	return (r->rq.op == SCHED_OP_READ || r->rq.op == SCHED_OP_WRITE) && !r->nomerge;
}

/* blk_rq_merge_ok() between two requests or a request and a bio: op and direction, blkcg,
 * ioprio. 4.x's block core compared neither blkcg nor ioprio (q->merge_any_prio; the elevator's
 * allow_merge refuses another group's queue where it has one, CFQ before 4.2 shared its async
 * queues between groups); its ioprio_best() for the merged request is not kept, no policy here
 * reads a request's priority after insertion. */
static bool same_kind(const struct blk_queue *q, const struct blk_rq *a, const struct blk_rq *b)
{
	if (q->merge_any_prio)
		return a->rq.op == b->rq.op;
	return a->rq.op == b->rq.op && a->rq.group == b->rq.group &&
	       a->rq.prio_class == b->rq.prio_class && a->rq.prio_level == b->rq.prio_level;
}

/* elv_bio_merge_ok(): r is a queued request bio may join. */
static bool bio_merge_ok(struct blk_queue *q, struct blk_rq *r, struct blk_rq *bio, uint64_t now)
{
	if (!mergeable(r) || !mergeable(bio) || !same_kind(q, r, bio))
		return false;
	if (!sched_rq_queued(&r->rq))
		return false;
	return sched_allow_bio_merge(q->s, &r->rq, &bio->rq, now);
}

/* blk_try_merge(). */
static enum sched_merge try_merge(const struct blk_rq *r, const struct blk_rq *bio)
{
	if (rq_end(r) == bio->rq.offset)
		return SCHED_BACK_MERGE;
	if (bio->rq.offset + bio->rq.length == r->rq.offset)
		return SCHED_FRONT_MERGE;
	return SCHED_NO_MERGE;
}

/* req_set_nomerge(). */
static void set_nomerge(struct blk_queue *q, struct blk_rq *r)
{
	r->nomerge = true;
	if (q->last_merge == r)
		q->last_merge = NULL;
}

/* ll_back_merge_fn() / ll_front_merge_fn(): the size and segment limits of a bio merge. */
static bool bio_fits(struct blk_queue *q, struct blk_rq *r, const struct blk_rq *bio)
{
	if (sched_rq_sectors(&r->rq) + sched_rq_sectors(&bio->rq) > q->max_sectors ||
	    r->nr_phys_segments + bio->nr_segs > q->max_segments) {
		set_nomerge(q, r);
		q->st.merge_refused_limit++;
		return false;
	}
	return true;
}

static void account_merge(struct blk_queue *q, const struct blk_rq *r, enum blk_merge_kind kind)
{
	q->st.merges[kind]++;
	q->st.stat_merges[sched_rq_dir(&r->rq)]++;
}

/* ---- request into request (attempt_merge()) ------------------------------------------------- */

/* next, right after req in sector order, joins it; next's request or tag is freed. queued:
 * next is in the elevator (false: from a plug, the insert merge). */
static void merge_rq_into(struct blk_queue *q, struct blk_rq *req, struct blk_rq *next, bool queued,
			  uint64_t now);

static bool attempt_merge_q(struct blk_queue *q, struct blk_rq *req, struct blk_rq *next,
			    bool queued, uint64_t now)
{
	if (!mergeable(req) || !mergeable(next) || !same_kind(q, req, next))
		return false;
	if (rq_end(req) != next->rq.offset)
		return false;
	/* ll_merge_requests_fn(): a refusal here flags neither. */
	if (sched_rq_sectors(&req->rq) + sched_rq_sectors(&next->rq) > q->max_sectors ||
	    req->nr_phys_segments + next->nr_phys_segments > q->max_segments) {
		q->st.merge_refused_limit++;
		return false;
	}
	merge_rq_into(q, req, next, queued, now);
	return true;
}

/* The merge itself: next's bios join req's, next leaves the policy and its slot is freed. */
static void merge_rq_into(struct blk_queue *q, struct blk_rq *req, struct blk_rq *next, bool queued,
			  uint64_t now)
{
	struct sched_list *pos, *n;

	blk_trace_rq_merged(q, now, next);
	/* next's bios follow req's. */
	for (pos = next->bios.next; pos != &next->bios; pos = n) {
		struct blk_rq *b = sched_list_entry(pos, struct blk_rq, bio_node);

		n = pos->next;
		sched_list_del_init(&b->bio_node);
		sched_list_add_tail(&b->bio_node, &req->bios);
		b->head = req;
	}
	req->rq.length += next->rq.length;
	req->nr_phys_segments += next->nr_phys_segments;
	/* elv_merge_requests(): the policy lets next go. */
	sched_requests_merged(q->s, &req->rq, &next->rq, queued, now);
	hash_del(next);
	hash_reposition(q, req);
	q->last_merge = req;
	next->state = BLK_RQ_MERGED;
	next->merged = BLK_MERGE_REQUEST;
	account_merge(q, req, BLK_MERGE_REQUEST);
	blk_release_slot(q, next);
}

static bool attempt_merge(struct blk_queue *q, struct blk_rq *req, struct blk_rq *next,
			  uint64_t now)
{
	return attempt_merge_q(q, req, next, true, now);
}

/* ---- a bio into a request ------------------------------------------------------------------- */

static void join(struct blk_queue *q, struct blk_rq *r, struct blk_rq *bio, enum sched_merge type,
		 bool plug, uint64_t now)
{
	bio->head = r;
	bio->state = BLK_RQ_MERGED;
	if (plug)
		bio->merged = BLK_MERGE_PLUG;
	else
		bio->merged = type == SCHED_BACK_MERGE ? BLK_MERGE_BACK : BLK_MERGE_FRONT;
	bio->rq.insert_ns = now;
	sched_list_del_init(&bio->bio_node);
	if (type == SCHED_BACK_MERGE) {
		sched_list_add_tail(&bio->bio_node, &r->bios);
	} else {
		sched_list_add(&bio->bio_node, &r->bios);
		r->rq.offset = bio->rq.offset;
	}
	r->rq.length += bio->rq.length;
	r->nr_phys_segments += bio->nr_segs;
	account_merge(q, r, bio->merged);
	sched_bio_merged(q->s, &r->rq, &bio->rq);
}

/* ---- a policy with its own merge core (the oracle's kernel side) -------------------------- */

static struct sched_merge_limits core_limits(const struct blk_queue *q)
{
	return (struct sched_merge_limits){.nomerges = q->nomerges,
					   .max_segments = q->max_segments,
					   .max_sectors = q->max_sectors,
					   .segment_shift = BLK_SEGMENT_SHIFT};
}

/* Carries out what the core did: bio (or NULL) joined o->rq, then each request merge; the
 * inserted request (or NULL) was never in the policy. The policy's hooks were called by the
 * core: only the block layer's side and the scheduler core's counts are done here. */
static void core_carry(struct blk_queue *q, struct blk_rq *bio, const struct blk_rq *inserted,
		       const struct sched_merge_out *o, uint64_t now)
{
	if (bio)
		join(q, blk_rq_of(o->rq), bio, o->type, false, now);
	for (uint32_t i = 0; i < o->nr && i < SCHED_MERGE_CHAIN; i++) {
		struct blk_rq *req = blk_rq_of(o->into[i]), *next = blk_rq_of(o->next[i]);

		merge_rq_into(q, req, next, next != inserted, now);
	}
}

int blk_merge_core_insert(struct blk_queue *q, struct blk_rq *r, bool plugged, uint64_t now)
{
	struct sched_merge_limits l = core_limits(q);
	struct sched_merge_out o;
	int rc;

	memset(&o, 0, sizeof(o));
	rc =
	    sched_core_insert(q->s, &r->rq, plugged && blk_merging(q) && mergeable(r), &l, now, &o);
	if (rc == 1)
		core_carry(q, NULL, r, &o, now);
	return rc;
}

static bool core_bio_merge(struct blk_queue *q, struct blk_rq *bio, uint64_t now)
{
	struct sched_merge_limits l = core_limits(q);
	struct sched_merge_out o;

	memset(&o, 0, sizeof(o));
	if (!sched_core_bio_merge(q->s, &bio->rq, &l, now, &o) || !o.rq)
		return false;
	core_carry(q, bio, NULL, &o, now);
	return true;
}

/* ---- a policy's own list (blk_bio_list_merge(): kyber) -------------------------------------- */

/* blk_bio_list_merge() checks the newest 8 requests of the list. */
#define BLK_BIO_LIST_MERGE_MAX 8

enum bio_merge_status {
	BIO_MERGE_OK,
	BIO_MERGE_NONE,
	BIO_MERGE_FAILED,
};

/* blk_attempt_bio_merge() with the elevator's allow_merge: NONE when r is not of bio's kind or
 * not adjacent, FAILED when the elevator or the limits refuse (the latter flag r REQ_NOMERGE). */
static enum bio_merge_status attempt_bio_merge(struct blk_queue *q, struct blk_rq *r,
					       struct blk_rq *bio, uint64_t now)
{
	enum sched_merge type;

	if (!mergeable(r) || !mergeable(bio) || !same_kind(q, r, bio))
		return BIO_MERGE_NONE;
	type = try_merge(r, bio);
	if (type == SCHED_NO_MERGE)
		return BIO_MERGE_NONE;
	if (!sched_allow_bio_merge(q->s, &r->rq, &bio->rq, now) || !bio_fits(q, r, bio))
		return BIO_MERGE_FAILED;
	join(q, r, bio, type, false, now);
	return BIO_MERGE_OK;
}

/* kyber_bio_merge(): the policy's candidates, newest first; the first that is not NONE ends the
 * walk. Neither the one-hit cache nor the hash moves, and no request merge follows (a blk-mq
 * elevator's own bio_merge does not call blk_mq_sched_try_merge()). With nomerges 1 too
 * (blk_bio_list_merge() does not look at QUEUE_FLAG_NOXMERGES). */
static bool list_bio_merge(struct blk_queue *q, struct blk_rq *bio, uint64_t now)
{
	struct sched_request *c[BLK_BIO_LIST_MERGE_MAX];
	unsigned int n = sched_bio_merge_list(q->s, &bio->rq, c, BLK_BIO_LIST_MERGE_MAX);

	for (unsigned int i = 0; i < n && i < BLK_BIO_LIST_MERGE_MAX; i++) {
		switch (attempt_bio_merge(q, blk_rq_of(c[i]), bio, now)) {
		case BIO_MERGE_NONE:
			continue;
		case BIO_MERGE_OK:
			return true;
		case BIO_MERGE_FAILED:
			return false;
		}
	}
	return false;
}

bool blk_merge_bio(struct blk_queue *q, struct blk_rq *bio, uint64_t now)
{
	enum sched_merge type = SCHED_NO_MERGE;
	struct blk_rq *r = NULL, *other;

	if (!blk_merging(q) || !mergeable(bio))
		return false;
	if (sched_has_merge_core(q->s))
		return core_bio_merge(q, bio, now);
	if (sched_has_bio_merge_list(q->s))
		return list_bio_merge(q, bio, now);
	if (!sched_has_elevator(q->s))
		return false;
	/* The one-hit cache. */
	if (q->last_merge && bio_merge_ok(q, q->last_merge, bio, now)) {
		type = try_merge(q->last_merge, bio);
		if (type != SCHED_NO_MERGE)
			r = q->last_merge;
	}
	if (!r && q->nomerges == 0) {
		/* The back-merge hash, then the policy's front-merge lookup. */
		r = hash_find(q, bio->rq.offset);
		if (r && bio_merge_ok(q, r, bio, now)) {
			type = SCHED_BACK_MERGE;
		} else {
			struct sched_request *f = sched_request_merge(q->s, &bio->rq, now);

			r = f ? blk_rq_of(f) : NULL;
			if (r && bio_merge_ok(q, r, bio, now) &&
			    bio->rq.offset + bio->rq.length == r->rq.offset)
				type = SCHED_FRONT_MERGE;
			else
				r = NULL;
		}
	}
	/* blk-mq asks the elevator again before it merges (blk_mq_sched_try_merge():
	 * blk_mq_sched_allow_merge()), and BFQ's allow_merge may merge cooperating queues again
	 * there; the legacy blk_queue_bio() merges on elv_merge()'s word. */
	if (r && q->mode == SCHED_BLK_MQ && !sched_allow_bio_merge(q->s, &r->rq, &bio->rq, now))
		return false;
	if (!r || !bio_fits(q, r, bio))
		return false;
	join(q, r, bio, type, false, now);
	if (type == SCHED_BACK_MERGE) {
		/* attempt_back_merge(): the next request in r's sort tree. */
		struct sched_request *n = sched_latter_request(q->s, &r->rq);

		other = n ? blk_rq_of(n) : NULL;
		if (!other || !attempt_merge(q, r, other, now)) {
			sched_request_merged(q->s, &r->rq, SCHED_BACK_MERGE, now);
			hash_reposition(q, r);
			q->last_merge = r;
		}
	} else {
		/* attempt_front_merge(): the previous request may take r. */
		struct sched_request *p = sched_former_request(q->s, &r->rq);

		other = p ? blk_rq_of(p) : NULL;
		if (!other || !attempt_merge(q, other, r, now)) {
			sched_request_merged(q->s, &r->rq, SCHED_FRONT_MERGE, now);
			q->last_merge = r;
		}
	}
	return true;
}

/* ---- the plug and the insert merge ---------------------------------------------------------- */

bool blk_merge_plug(struct blk_queue *q, struct sched_list *plug, struct blk_rq *bio, uint64_t now)
{
	struct sched_list *pos;

	if (!blk_merging(q) || !mergeable(bio))
		return false;
	for (pos = plug->prev; pos != plug; pos = pos->prev) {
		struct blk_rq *r = sched_list_entry(pos, struct blk_rq, wait);
		enum sched_merge type;

		if (mergeable(r) && same_kind(q, r, bio)) {
			type = try_merge(r, bio);
			if (type != SCHED_NO_MERGE && bio_fits(q, r, bio)) {
				join(q, r, bio, type, true, now);
				return true;
			}
		}
		if (q->mode == SCHED_BLK_MQ)
			break; /* blk-mq tries the plug's last request only */
	}
	return false;
}

bool blk_merge_insert(struct blk_queue *q, struct blk_rq *r, uint64_t now)
{
	struct blk_rq *rq;

	if (!blk_merging(q) || !sched_has_elevator(q->s) || !mergeable(r) ||
	    sched_has_merge_core(q->s))
		return false; /* a merge core tries at the insertion (blk_merge_core_insert()) */
	/* The legacy elevator asks the policy (cfq_allow_rq_merge()); blk-mq does not. */
	rq = q->last_merge;
	if (rq && sched_rq_queued(&rq->rq) &&
	    (q->mode == SCHED_BLK_MQ || sched_allow_rq_merge(q->s, &rq->rq, &r->rq)) &&
	    attempt_merge_q(q, rq, r, false, now))
		return true;
	if (q->nomerges)
		return false;
	rq = hash_find(q, r->rq.offset);
	if (!rq || !sched_rq_queued(&rq->rq) ||
	    (q->mode == SCHED_BLK_LEGACY && !sched_allow_rq_merge(q->s, &rq->rq, &r->rq)) ||
	    !attempt_merge_q(q, rq, r, false, now))
		return false;
	/* The request merged into may now join the one ending where it starts: the hash again
	 * (elv_attempt_insert_merge()'s loop, 3.x to 6.12; the first of 2.6.39 merged once). */
	for (;;) {
		struct blk_rq *into = hash_find(q, rq->rq.offset);

		if (!into || !sched_rq_queued(&into->rq) ||
		    (q->mode == SCHED_BLK_LEGACY &&
		     !sched_allow_rq_merge(q->s, &into->rq, &rq->rq)) ||
		    !attempt_merge_q(q, into, rq, true, now))
			break;
		rq = into;
	}
	return true;
}
