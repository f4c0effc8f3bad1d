// SPDX-License-Identifier: GPL-2.0
/*
 * mq-deadline, after block/mq-deadline.c of Linux 4.19 .. 5.13 and 6.5 .. 6.18 (written anew for
 * this core; the two behaviours are the deadline_version profile, see deadline.h).
 *
 * Per I/O priority class (deadline_sw_prio; else one class) and data direction (sched_rq_dir():
 * reads vs everything else, so writes, flushes and discards share the write side exactly as
 * rq_data_dir() puts REQ_OP_FLUSH on WRITE):
 *   - a tree sorted by start sector (equal sectors keep arrival order, like elv_rb_add()),
 *   - a FIFO in arrival order, each request stamped with now + read_expire / write_expire.
 * Dispatch of one class (__dd_dispatch_request()):
 *   1. continue the current batch in sector order while fewer than fifo_batch were taken;
 *   2. otherwise choose a direction: reads, unless writes are queued and reads have already
 *      been preferred writes_starved times over them (starved++ >= writes_starved);
 *   3. in that direction, start from the FIFO head if it has expired or there is no next
 *      request in sector order (end of the sweep, or, in 4.19, the last batch ran the other
 *      way); otherwise continue in sector order from the last dispatched position.
 * The batch (its count and direction) and the starved count are the queue's, shared by the
 * classes. dd_dispatch_request() asks the classes in order, RT first (deadline_sw_prio_aging:
 * after the aged BE and IDLE requests, and stopping at the first class with requests pending).
 * There is no timer: expiry is only looked at when the device asks for work, as in the kernel.
 *
 * Merging (blk/merge.c): dd_request_merge() offers the block layer a front merge from the
 * bio's class and direction when front_merges is set; dd_request_merged() re-sorts a request
 * whose start moved; dd_merged_requests() lets the one merged away go, its earlier FIFO
 * deadline passed to the request that took it. Not modelled: zoned-device write locking and
 * at_head/passthrough insertion (the per-queue dispatch list of 6.12).
 *
 * Held back, a lower class's request waits for the next queue run. blk-mq answers a NULL
 * dispatch_request() while has_work() holds with a run BLK_MQ_BUDGET_DELAY (3 ms) later
 * (__blk_mq_do_dispatch_sched()), which blk/ does not model: there the next run is the next
 * submission, restart or tag waiter, so while a higher class keeps a request in the device and
 * thinks between them, the lower one can wait up to prio_aging_expire where the kernel would
 * serve it in the gaps (the oracle shares blk/ and cannot see this).
 */
#include "deadline.h"

#include <limits.h>

/* The kernel's enum dd_prio: the order in which the classes are served. */
enum dd_prio {
	DD_RT_PRIO = 0,
	DD_BE_PRIO,
	DD_IDLE_PRIO,
	DD_PRIO_COUNT,
};

/* One class's queue (struct dd_per_prio). */
struct dd_per_prio {
	struct sched_rb_root sort_list[2];
	struct sched_list fifo_list[2];
	/* 4.19 (!latest_pos): next request in sector order after the last dispatched one; without
	 * keep_pos only in the last dispatch's direction. */
	struct sched_request *next_rq[2];
	/* latest_pos: start sector of the last dispatched request per direction. pos_valid: the
	 * position counts (from init, since 6.5 starts both at sector 0; with !keep_pos, cleared
	 * when a dispatch goes the other way). */
	uint64_t latest_pos[2];
	bool pos_valid[2];
	/* dd_queued() = inserted - completed: requests in the class that have not completed, the
	 * dispatched ones in the device included; the kernel's u32 counters, wrapping alike. */
	uint32_t inserted;
	uint32_t completed;
};

struct deadline_data {
	struct dd_per_prio per_prio[DD_PRIO_COUNT];
	int last_dir;	   /* keep_pos: the direction of the current batch (initially write) */
	bool keep_pos;	   /* deadline_sw_keep_pos */
	bool latest;	   /* deadline_sw_latest_pos */
	bool prio;	   /* deadline_sw_prio */
	bool prio_aging;   /* deadline_sw_prio_aging */
	bool async_limit;  /* deadline_sw_async_depth */
	int64_t version;   /* deadline_version as given or defaulted (419, 612) */
	uint32_t batching; /* requests dispatched in the current batch */
	/* Times reads were chosen while writes waited: the kernel's unsigned int, compared with the
	 * int writes_starved as C compares them (as unsigned: a negative writes_starved never lets
	 * the writes go first, where a signed compare would let them go every time). */
	uint32_t starved;
	uint32_t queued[2]; /* inserted, not dispatched, per direction (has_work) */
	/* Settings. */
	/* read_expire, write_expire and prio_aging_expire in jiffies, as the kernel keeps them */
	uint64_t fifo_expire_j[2];
	uint64_t prio_aging_expire_j;
	uint32_t async_depth; /* scheduler tags; nr_requests unless given (dd_depth_updated()) */
	int64_t writes_starved;
	int64_t fifo_batch;
	int64_t front_merges; /* dd_request_merge() looks for front merges */
	const struct sched_device *dev;
};

static const int64_t deadline_versions[] = {DEADLINE_VERSION_419, DEADLINE_VERSION_612, 0};

static const struct sched_tunable_desc deadline_tunables[DEADLINE_NR_TUNABLES] = {
    [DEADLINE_READ_EXPIRE] = {"read_expire", "ms", 0, INT_MAX, 500,
			      "time before a queued read expires and is served first"},
    [DEADLINE_WRITE_EXPIRE] = {"write_expire", "ms", 0, INT_MAX, 5000,
			       "time before a queued write (or flush) expires"},
    [DEADLINE_WRITES_STARVED] = {"writes_starved", "", INT_MIN, INT_MAX, 2,
				 "read batches preferred before queued writes get one"},
    [DEADLINE_FRONT_MERGES] = {"front_merges", "", 0, 1, 1,
			       "front merges looked up in the sector tree (nomerges=0)"},
    [DEADLINE_ASYNC_DEPTH] = {"async_depth", "", 1, INT_MAX, 64,
			      "scheduler tags writes and async requests may take (default: "
			      "nr_requests, 64 at hw_queue_depth 32); deadline_sw_async_depth"},
    [DEADLINE_FIFO_BATCH] = {"fifo_batch", "", 0, INT_MAX, 16,
			     "requests dispatched in sector order as one batch"},
    [DEADLINE_PRIO_AGING_EXPIRE] = {"prio_aging_expire", "ms", 0, INT_MAX, 10000,
				    "time after which a BE or IDLE request goes before higher "
				    "classes; deadline_sw_prio_aging"},
    [DEADLINE_VERSION] = {"deadline_version", "version", DEADLINE_VERSION_419, DEADLINE_VERSION_612,
			  DEADLINE_VERSION_612,
			  "behaviour profile: 4.19 (up to 5.13, and 2.6.x's deadline) or 6.12 "
			  "(6.5 on); sets the deadline_sw_* switches not given", deadline_versions},
    [DEADLINE_SW_KEEP_POS] = {"deadline_sw_keep_pos", "", 0, 1, 1,
			      "profile switch: each direction keeps its sweep position across "
			      "batches the other way (d672d325b149, 5.14)"},
    [DEADLINE_SW_LATEST_POS] = {"deadline_sw_latest_pos", "", 0, 1, 1,
				"profile switch: next request looked up at dispatch, at or after "
				"the last dispatched sector (83c46ed67557, 6.5)"},
    [DEADLINE_SW_PRIO] = {"deadline_sw_prio", "", 0, 1, 1,
			  "profile switch: queues per I/O priority class, served RT, BE, IDLE "
			  "(c807ab520fc3, 5.14)"},
    [DEADLINE_SW_PRIO_AGING] = {"deadline_sw_prio_aging", "", 0, 1, 1,
				"profile switch: lower classes wait while a higher one has "
				"requests pending; prio_aging_expire (322cff70d46c, 5.16)"},
    [DEADLINE_SW_ASYNC_DEPTH] = {"deadline_sw_async_depth", "", 0, 1, 1,
				 "profile switch: writes and async requests limited to "
				 "async_depth scheduler tags (07757588e507, 5.14)"},
};

static inline struct sched_request *rb_to_rq(struct sched_rb_node *n)
{
	return n ? sched_rb_entry(n, struct sched_request, priv.rb) : NULL;
}

static inline struct sched_request *fifo_to_rq(struct sched_list *l)
{
	return sched_list_entry(l, struct sched_request, priv.fifo);
}

static bool deadline_less(const struct sched_rb_node *a, const struct sched_rb_node *b)
{
	const struct sched_request *ra = sched_rb_entry(a, struct sched_request, priv.rb);
	const struct sched_request *rb = sched_rb_entry(b, struct sched_request, priv.rb);

	return sched_rq_pos(ra) < sched_rq_pos(rb);
}

/* ioprio_class_to_prio[]: a request without a class (NONE) is served as BE. One class (BE)
 * for every request without deadline_sw_prio. */
static enum dd_prio dd_rq_prio(const struct deadline_data *dd, const struct sched_request *rq)
{
	if (!dd->prio)
		return DD_BE_PRIO;
	switch (rq->prio_class) {
	case SCHED_IOPRIO_CLASS_RT:
		return DD_RT_PRIO;
	case SCHED_IOPRIO_CLASS_IDLE:
		return DD_IDLE_PRIO;
	default:
		return DD_BE_PRIO;
	}
}

/* dd_queued(). */
static uint32_t dd_queued(const struct deadline_data *dd, enum dd_prio prio)
{
	return dd->per_prio[prio].inserted - dd->per_prio[prio].completed;
}

static size_t deadline_state_size(const struct sched_config *cfg)
{
	(void)cfg;
	return sizeof(struct deadline_data);
}

static int64_t tunable(const struct sched_config *cfg, enum deadline_tunable t)
{
	return cfg->tunable_given[t] ? cfg->tunable[t] : deadline_tunables[t].def;
}

/* A profile switch: as given, else the version's (on from 6.12). */
static bool profile_switch(const struct sched_config *cfg, enum deadline_tunable t, bool modern)
{
	return cfg->tunable_given[t] ? cfg->tunable[t] != 0 : modern;
}

static int deadline_init(void *st, const struct sched_config *cfg, const struct sched_device *dev,
			 uint64_t now)
{
	struct deadline_data *dd = st;

	(void)now;
	bool modern;

	dd->version = tunable(cfg, DEADLINE_VERSION);
	modern = dd->version >= DEADLINE_VERSION_612;
	dd->keep_pos = profile_switch(cfg, DEADLINE_SW_KEEP_POS, modern);
	dd->latest = profile_switch(cfg, DEADLINE_SW_LATEST_POS, modern);
	dd->prio = profile_switch(cfg, DEADLINE_SW_PRIO, modern);
	dd->prio_aging = profile_switch(cfg, DEADLINE_SW_PRIO_AGING, modern);
	dd->async_limit = profile_switch(cfg, DEADLINE_SW_ASYNC_DEPTH, modern);

	for (int p = 0; p < DD_PRIO_COUNT; p++) {
		struct dd_per_prio *pp = &dd->per_prio[p];

		for (int d = 0; d < 2; d++) {
			sched_rb_init(&pp->sort_list[d]);
			sched_list_init(&pp->fifo_list[d]);
			pp->next_rq[d] = NULL;
			pp->latest_pos[d] = 0;
			/* 6.5's latest_pos start at sector 0, which finds the lowest request, as
			 * a NULL next_rq sends 4.19 to the FIFO head instead. */
			pp->pos_valid[d] = dd->latest;
		}
		pp->inserted = pp->completed = 0;
	}
	for (int d = 0; d < 2; d++)
		dd->queued[d] = 0;
	/* dd_init_sched() since d672d325b149. */
	dd->last_dir = 1;
	dd->batching = 0;
	dd->starved = 0;
	dd->fifo_expire_j[0] = sched_msecs_to_jiffies((uint64_t)tunable(cfg, DEADLINE_READ_EXPIRE));
	dd->fifo_expire_j[1] =
	    sched_msecs_to_jiffies((uint64_t)tunable(cfg, DEADLINE_WRITE_EXPIRE));
	dd->prio_aging_expire_j =
	    sched_msecs_to_jiffies((uint64_t)tunable(cfg, DEADLINE_PRIO_AGING_EXPIRE));
	/* dd_depth_updated() from dd_init_hctx(): nr_requests, until the sysfs file is written. */
	dd->async_depth = cfg->tunable_given[DEADLINE_ASYNC_DEPTH]
			      ? (uint32_t)cfg->tunable[DEADLINE_ASYNC_DEPTH]
			      : dev->nr_requests;
	dd->writes_starved = tunable(cfg, DEADLINE_WRITES_STARVED);
	dd->front_merges = tunable(cfg, DEADLINE_FRONT_MERGES);
	dd->fifo_batch = tunable(cfg, DEADLINE_FIFO_BATCH);
	dd->dev = dev;
	return 0;
}

/*
 * dd_insert_request(): into its class's sector tree and FIFO with its expiry stamp, counted as
 * inserted into the class (which priv.aux keeps for the completion, as rq->elv.priv[0] does).
 */
static void deadline_insert(void *st, struct sched_request *rq, uint64_t now)
{
	struct deadline_data *dd = st;
	enum dd_prio prio = dd_rq_prio(dd, rq);
	struct dd_per_prio *pp = &dd->per_prio[prio];
	int dir = sched_rq_dir(rq);

	pp->inserted++;
	rq->priv.aux = (uint64_t)prio;
	rq->priv.queue = dd;
	sched_rb_insert(&pp->sort_list[dir], &rq->priv.rb, deadline_less);
	/* rq->fifo_time = jiffies + dd->fifo_expire[data_dir]: a deadline in jiffies. */
	rq->priv.fifo_time = sched_jiffies(now) + dd->fifo_expire_j[dir];
	sched_list_add_tail(&rq->priv.fifo, &pp->fifo_list[dir]);
	dd->queued[dir]++;
}

/*
 * deadline_move_request() + dd_start_request(): off both lists of its class, remember where the
 * class's sweep goes on (4.19: the successor, and the other direction forgets its own; 6.5: the
 * start sector, every direction keeping its own).
 */
static void deadline_move_request(struct deadline_data *dd, struct dd_per_prio *pp,
				  struct sched_request *rq)
{
	int dir = sched_rq_dir(rq);

	if (!dd->keep_pos) {
		pp->next_rq[!dir] = NULL;
		pp->pos_valid[!dir] = false;
	}
	if (dd->latest) {
		pp->latest_pos[dir] = sched_rq_pos(rq);
		pp->pos_valid[dir] = true;
	} else {
		pp->next_rq[dir] = rb_to_rq(sched_rb_next(&rq->priv.rb));
	}
	sched_list_del_init(&rq->priv.fifo);
	sched_rb_erase(&pp->sort_list[dir], &rq->priv.rb);
	sched_rb_clear(&rq->priv.rb);
	rq->priv.queue = NULL;
	dd->queued[dir]--;
}

/* deadline_check_fifo(): the FIFO head of dir is due (time_after_eq(jiffies, fifo_time)). */
static bool deadline_fifo_expired(const struct dd_per_prio *pp, int dir, uint64_t now_j)
{
	const struct sched_request *rq = fifo_to_rq(pp->fifo_list[dir].next);

	return (int64_t)(now_j - rq->priv.fifo_time) >= 0;
}

static struct sched_request *deadline_fifo_request(struct dd_per_prio *pp, int dir)
{
	if (sched_list_empty(&pp->fifo_list[dir]))
		return NULL;
	return fifo_to_rq(pp->fifo_list[dir].next);
}

/* deadline_from_pos(): the first request of dir at or after sector pos, by one tree walk. */
static struct sched_request *deadline_from_pos(struct dd_per_prio *pp, int dir, uint64_t pos)
{
	struct sched_rb_node *n = pp->sort_list[dir].root;
	struct sched_request *res = NULL;

	while (n) {
		struct sched_request *rq = rb_to_rq(n);

		if (sched_rq_pos(rq) >= pos) {
			res = rq;
			n = n->left;
		} else {
			n = n->right;
		}
	}
	return res;
}

/* deadline_next_request(): where the sweep of dir goes on in this class, or NULL. */
static struct sched_request *deadline_next_request(struct dd_per_prio *pp, int dir, bool latest)
{
	if (!latest)
		return pp->next_rq[dir];
	return pp->pos_valid[dir] ? deadline_from_pos(pp, dir, pp->latest_pos[dir]) : NULL;
}

/*
 * started_after(): rq was inserted after jiffy latest_start (its FIFO stamp less the expiry it
 * was given), compared as time_after() does, so that now - prio_aging_expire before the clock's
 * first prio_aging_expire jiffies is a time in the past, not a huge one.
 */
static bool started_after(const struct deadline_data *dd, const struct sched_request *rq,
			  uint64_t latest_start)
{
	uint64_t start = rq->priv.fifo_time - dd->fifo_expire_j[sched_rq_dir(rq)];

	return (int64_t)(latest_start - start) < 0;
}

/*
 * __dd_dispatch_request(): the class's next request, or NULL. With deadline_sw_prio_aging only a
 * request inserted at or before jiffy latest_start is taken; when the one chosen is younger the
 * answer is NULL, but the choice has already counted (starved), and a new batch has already
 * been started (last_dir, batching = 0), as in the kernel: the next class or the next dispatch
 * goes on from there.
 */
static struct sched_request *dd_dispatch_prio(struct deadline_data *dd, struct dd_per_prio *pp,
					      uint64_t now_j, uint64_t latest_start)
{
	struct sched_request *rq, *next_rq;
	bool reads, writes;
	int dir;

	reads = !sched_list_empty(&pp->fifo_list[0]);
	writes = !sched_list_empty(&pp->fifo_list[1]);

	/* Batches are reads XOR writes: 4.19 has at most one next_rq set, writes' first (the
	 * order of its test); since d672d325b149 the batch goes on in last_dir. */
	if (dd->keep_pos) {
		rq = deadline_next_request(pp, dd->last_dir, dd->latest);
	} else {
		rq = deadline_next_request(pp, 1, dd->latest);
		if (!rq)
			rq = deadline_next_request(pp, 0, dd->latest);
	}
	if (rq && (int64_t)dd->batching < dd->fifo_batch)
		goto dispatch_request;

	/* Not in a batch: choose the direction. */
	if (reads) {
		if (deadline_fifo_request(pp, 1) &&
		    dd->starved++ >= (uint32_t)(int32_t)dd->writes_starved)
			goto dispatch_writes;
		dir = 0;
		goto dispatch_find_request;
	}
	if (writes) {
	dispatch_writes:
		dd->starved = 0;
		dir = 1;
		goto dispatch_find_request;
	}
	return NULL;

dispatch_find_request:
	next_rq = deadline_next_request(pp, dir, dd->latest);
	if (deadline_fifo_expired(pp, dir, now_j) || !next_rq)
		/* Expired, the sweep ended, or (4.19) the last batch ran the other way: FIFO head.
		 */
		rq = deadline_fifo_request(pp, dir);
	else
		rq = next_rq;
	dd->last_dir = dir;
	dd->batching = 0;

dispatch_request:
	if (dd->prio_aging && started_after(dd, rq, latest_start))
		return NULL;
	dd->batching++;
	deadline_move_request(dd, pp, rq);
	return rq;
}

/*
 * dd_dispatch_prio_aged_requests(): once two classes or more have requests pending, a BE, then
 * an IDLE request inserted prio_aging_expire ago or earlier goes first, so that a class kept
 * busy above it cannot hold it back for longer than that.
 */
static struct sched_request *dd_dispatch_aged(struct deadline_data *dd, uint64_t now_j)
{
	struct sched_request *rq;
	int classes = 0;

	for (int p = 0; p < DD_PRIO_COUNT; p++)
		classes += dd_queued(dd, p) != 0;
	if (classes < 2)
		return NULL;
	for (int p = DD_BE_PRIO; p < DD_PRIO_COUNT; p++) {
		rq = dd_dispatch_prio(dd, &dd->per_prio[p], now_j, now_j - dd->prio_aging_expire_j);
		if (rq)
			return rq;
	}
	return NULL;
}

/*
 * dd_dispatch_request(): the aged requests (deadline_sw_prio_aging), then the classes in order.
 * With deadline_sw_prio_aging a class that has requests pending, queued or still in the device,
 * ends the search even when it gives none: the lower classes wait until it has completed them.
 * Before, the first class with a request to give won. Without deadline_sw_prio only BE has
 * requests, and an empty class changes nothing.
 */
static struct sched_request *deadline_dispatch(void *st, uint64_t now)
{
	struct deadline_data *dd = st;
	uint64_t now_j = sched_jiffies(now);
	struct sched_request *rq;

	if (dd->prio_aging) {
		rq = dd_dispatch_aged(dd, now_j);
		if (rq)
			return rq;
	}
	for (int p = 0; p < DD_PRIO_COUNT; p++) {
		rq = dd_dispatch_prio(dd, &dd->per_prio[p], now_j, now_j);
		if (rq)
			return rq;
		if (dd->prio_aging && dd_queued(dd, p))
			break;
	}
	return NULL;
}

/* dd_finish_request(): the request's class counts it completed (dd_queued() drops). */
static bool deadline_completed(void *st, struct sched_request *rq, uint64_t now)
{
	struct deadline_data *dd = st;

	(void)now;
	if (rq->priv.aux < DD_PRIO_COUNT) /* set at insert; a bypassed flush never comes here */
		dd->per_prio[rq->priv.aux].completed++;
	return false; /* a completion asks for no run (a SCHED_RESTART is the block layer's) */
}

/*
 * dd_limit_depth(): reads (always sync) take any scheduler tag; writes, sync or not, and
 * discards only the first async_depth, so that they cannot take every tag from the reads.
 * async_depth >= nr_requests leaves them all (0: no limit).
 */
static uint32_t deadline_limit_depth(void *st, const struct sched_request *rq)
{
	struct deadline_data *dd = st;

	if (!dd->async_limit || rq->op == SCHED_OP_READ)
		return 0;
	return dd->async_depth < dd->dev->nr_requests ? dd->async_depth : 0;
}

/* ---- merging ---- */

/*
 * dd_request_merge(): with front_merges, a queued request of the bio's class and direction that
 * starts where the bio ends (the block layer checks elv_bio_merge_ok()).
 */
static struct sched_request *deadline_request_merge(void *st, const struct sched_request *bio,
						    uint64_t now)
{
	struct deadline_data *dd = st;
	struct dd_per_prio *pp = &dd->per_prio[dd_rq_prio(dd, bio)];

	(void)now;
	if (!dd->front_merges)
		return NULL;
	return sched_elv_rb_find(&pp->sort_list[sched_rq_dir(bio)],
				 sched_rq_pos(bio) + sched_rq_sectors(bio));
}

/* dd_request_merged(): a front merge moved the request's start: re-sorted. */
static void deadline_request_merged(void *st, struct sched_request *rq, enum sched_merge type,
				    uint64_t now)
{
	struct deadline_data *dd = st;
	struct dd_per_prio *pp = &dd->per_prio[rq->priv.aux];
	int dir = sched_rq_dir(rq);

	(void)now;
	if (type != SCHED_FRONT_MERGE)
		return;
	sched_rb_erase(&pp->sort_list[dir], &rq->priv.rb);
	sched_rb_insert(&pp->sort_list[dir], &rq->priv.rb, deadline_less);
}

/*
 * dd_merged_requests(): next joined rq. An earlier FIFO deadline of next's goes to rq, which
 * takes next's place in the FIFO; next leaves its class's lists (deadline_remove_request(): a
 * sweep that was to go on at next goes on at its successor) and counts as completed in its
 * class (blk_mq_free_request() -> dd_finish_request()).
 */
static void deadline_requests_merged(void *st, struct sched_request *rq, struct sched_request *next,
				     bool queued, uint64_t now)
{
	struct deadline_data *dd = st;
	struct dd_per_prio *pp;
	int dir = sched_rq_dir(next);

	(void)now;
	if (!queued || next->priv.aux >= DD_PRIO_COUNT)
		return;
	pp = &dd->per_prio[next->priv.aux];
	if (!sched_list_empty(&rq->priv.fifo) && !sched_list_empty(&next->priv.fifo) &&
	    (int64_t)(next->priv.fifo_time - rq->priv.fifo_time) < 0) {
		sched_list_del_init(&rq->priv.fifo);
		sched_list_add(&rq->priv.fifo, &next->priv.fifo);
		rq->priv.fifo_time = next->priv.fifo_time;
	}
	if (pp->next_rq[dir] == next)
		pp->next_rq[dir] = rb_to_rq(sched_rb_next(&next->priv.rb));
	sched_list_del_init(&next->priv.fifo);
	sched_rb_erase(&pp->sort_list[dir], &next->priv.rb);
	sched_rb_clear(&next->priv.rb);
	next->priv.queue = NULL;
	dd->queued[dir]--;
	pp->completed++;
}

/* What sysfs would show: the profile's switches as the version sets them unless given. */
static int64_t deadline_tunable_value(const void *st, unsigned int idx)
{
	const struct deadline_data *dd = st;

	switch (idx) {
	case DEADLINE_READ_EXPIRE:
		return (int64_t)(dd->fifo_expire_j[0] * 1000 / SCHED_HZ); /* jiffies_to_msecs() */
	case DEADLINE_WRITE_EXPIRE:
		return (int64_t)(dd->fifo_expire_j[1] * 1000 / SCHED_HZ);
	case DEADLINE_WRITES_STARVED:
		return dd->writes_starved;
	case DEADLINE_FRONT_MERGES:
		return dd->front_merges;
	case DEADLINE_ASYNC_DEPTH:
		return dd->async_depth;
	case DEADLINE_FIFO_BATCH:
		return dd->fifo_batch;
	case DEADLINE_PRIO_AGING_EXPIRE:
		return (int64_t)(dd->prio_aging_expire_j * 1000 / SCHED_HZ);
	case DEADLINE_VERSION:
		return dd->version;
	case DEADLINE_SW_KEEP_POS:
		return dd->keep_pos;
	case DEADLINE_SW_LATEST_POS:
		return dd->latest;
	case DEADLINE_SW_PRIO:
		return dd->prio;
	case DEADLINE_SW_PRIO_AGING:
		return dd->prio_aging;
	case DEADLINE_SW_ASYNC_DEPTH:
		return dd->async_limit;
	default:
		return 0;
	}
}

static bool deadline_has_work(const void *st)
{
	const struct deadline_data *dd = st;

	return dd->queued[0] || dd->queued[1];
}

/* The 4.19 profile's block core merges across I/O priorities; 6.12's does not. */
static bool deadline_merge_any_prio(const struct sched_config *cfg)
{
	return tunable(cfg, DEADLINE_VERSION) < DEADLINE_VERSION_612;
}

const struct sched_policy_ops sched_deadline_ops = {
    .name = "deadline",
    .blk_mode = SCHED_BLK_MQ,
    .tunables = deadline_tunables,
    .nr_tunables = DEADLINE_NR_TUNABLES,
    .state_size = deadline_state_size,
    .init = deadline_init,
    .insert = deadline_insert,
    .dispatch = deadline_dispatch,
    .completed = deadline_completed,
    .has_work = deadline_has_work,
    .limit_depth = deadline_limit_depth,
    .tunable_value = deadline_tunable_value,
    .entity_exit = NULL,
    .request_merge = deadline_request_merge,
    .merge_any_prio = deadline_merge_any_prio,
    .request_merged = deadline_request_merged,
    .requests_merged = deadline_requests_merged,
};
