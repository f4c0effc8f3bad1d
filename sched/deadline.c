// SPDX-License-Identifier: GPL-2.0
/*
 * mq-deadline, after block/mq-deadline.c of Linux 4.19 .. 5.13 and 6.5 .. 6.18 (written anew for
 * this core; the two behaviours are the deadline_version profile, see deadline.h).
 *
 * Per data direction (sched_rq_dir(): reads vs everything else, so writes, flushes and discards
 * share the write side exactly as rq_data_dir() puts REQ_OP_FLUSH on WRITE):
 *   - a tree sorted by start sector (equal sectors keep arrival order, like elv_rb_add()),
 *   - a FIFO in arrival order, each request stamped with now + read_expire / write_expire.
 * Dispatch (__dd_dispatch_request()):
 *   1. continue the current batch in sector order while fewer than fifo_batch were taken;
 *   2. otherwise choose a direction: reads, unless writes are queued and reads have already
 *      been preferred writes_starved times over them (starved++ >= writes_starved);
 *   3. in that direction, start from the FIFO head if it has expired or there is no next
 *      request in sector order (end of the sweep, or, in 4.19, the last batch ran the other
 *      way); otherwise continue in sector order from the last dispatched position.
 * There is no timer: expiry is only looked at when the device asks for work, as in the kernel.
 *
 * Not modelled: request merging. fio hands the engine separate requests that it does not
 * coalesce, so front_merges is accepted, range-checked and stored (it shows in sysfs form) but
 * changes nothing. Neither are zoned-device write locking, at_head/passthrough insertion, nor
 * the I/O priority classes that 5.14 added.
 */
#include "deadline.h"

#include <limits.h>

struct deadline_data {
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
	int last_dir;	   /* keep_pos: the direction of the current batch (initially write) */
	bool keep_pos;	   /* deadline_sw_keep_pos */
	bool latest;	   /* deadline_sw_latest_pos */
	int64_t version;   /* deadline_version as given or defaulted (419, 612) */
	uint32_t batching; /* requests dispatched in the current batch */
	/* Times reads were chosen while writes waited: the kernel's unsigned int, compared with the
	 * int writes_starved as C compares them (as unsigned: a negative writes_starved never lets
	 * the writes go first, where a signed compare would let them go every time). */
	uint32_t starved;
	uint32_t queued[2];
	/* Settings. */
	uint64_t fifo_expire_j[2]; /* read_expire, write_expire in jiffies, as the kernel keeps them */
	int64_t writes_starved;
	int64_t fifo_batch;
	int64_t front_merges; /* stored only: merges are not modelled */
	const struct sched_device *dev;
};

static const struct sched_tunable_desc deadline_tunables[DEADLINE_NR_TUNABLES] = {
    [DEADLINE_READ_EXPIRE] = {"read_expire", "ms", 0, INT_MAX, 500,
			      "time before a queued read expires and is served first"},
    [DEADLINE_WRITE_EXPIRE] = {"write_expire", "ms", 0, INT_MAX, 5000,
			       "time before a queued write (or flush) expires"},
    [DEADLINE_WRITES_STARVED] = {"writes_starved", "", INT_MIN, INT_MAX, 2,
				 "read batches preferred before queued writes get one"},
    [DEADLINE_FRONT_MERGES] = {"front_merges", "", 0, 1, 1,
			       "front merge lookups (stored only: merges are not modelled)"},
    [DEADLINE_FIFO_BATCH] = {"fifo_batch", "", 0, INT_MAX, 16,
			     "requests dispatched in sector order as one batch"},
    [DEADLINE_VERSION] = {"deadline_version", "version", DEADLINE_VERSION_419, DEADLINE_VERSION_612,
			  DEADLINE_VERSION_612,
			  "behaviour profile: 4.19 (up to 5.13, and 2.6.x's deadline) or 6.12 "
			  "(6.5 on); sets the deadline_sw_* switches not given"},
    [DEADLINE_SW_KEEP_POS] = {"deadline_sw_keep_pos", "", 0, 1, 1,
			      "profile switch: each direction keeps its sweep position across "
			      "batches the other way (d672d325b149, 5.14)"},
    [DEADLINE_SW_LATEST_POS] = {"deadline_sw_latest_pos", "", 0, 1, 1,
				"profile switch: next request looked up at dispatch, at or after "
				"the last dispatched sector (83c46ed67557, 6.5)"},
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

static size_t deadline_state_size(const struct sched_config *cfg)
{
	(void)cfg;
	return sizeof(struct deadline_data);
}

static int64_t tunable(const struct sched_config *cfg, enum deadline_tunable t)
{
	return cfg->tunable_given[t] ? cfg->tunable[t] : deadline_tunables[t].def;
}

static int deadline_init(void *st, const struct sched_config *cfg, const struct sched_device *dev,
			 uint64_t now)
{
	struct deadline_data *dd = st;

	(void)now;
	bool modern;

	dd->version = tunable(cfg, DEADLINE_VERSION);
	modern = dd->version >= DEADLINE_VERSION_612;

	for (int d = 0; d < 2; d++) {
		sched_rb_init(&dd->sort_list[d]);
		sched_list_init(&dd->fifo_list[d]);
		dd->next_rq[d] = NULL;
		dd->latest_pos[d] = 0;
		dd->pos_valid[d] = false;
		dd->queued[d] = 0;
	}
	dd->keep_pos = cfg->tunable_given[DEADLINE_SW_KEEP_POS]
			   ? cfg->tunable[DEADLINE_SW_KEEP_POS] != 0
			   : modern;
	dd->latest = cfg->tunable_given[DEADLINE_SW_LATEST_POS]
			 ? cfg->tunable[DEADLINE_SW_LATEST_POS] != 0
			 : modern;
	/* dd_init_sched() since d672d325b149; 6.5's latest_pos start at sector 0, which finds
	 * the lowest request, as a NULL next_rq sends 4.19 to the FIFO head instead. */
	dd->last_dir = 1;
	if (dd->latest)
		dd->pos_valid[0] = dd->pos_valid[1] = true;
	dd->batching = 0;
	dd->starved = 0;
	dd->fifo_expire_j[0] = sched_msecs_to_jiffies((uint64_t)tunable(cfg, DEADLINE_READ_EXPIRE));
	dd->fifo_expire_j[1] = sched_msecs_to_jiffies((uint64_t)tunable(cfg, DEADLINE_WRITE_EXPIRE));
	dd->writes_starved = tunable(cfg, DEADLINE_WRITES_STARVED);
	dd->front_merges = tunable(cfg, DEADLINE_FRONT_MERGES);
	dd->fifo_batch = tunable(cfg, DEADLINE_FIFO_BATCH);
	dd->dev = dev;
	return 0;
}

/* dd_insert_request(): sector tree plus FIFO with its expiry stamp. */
static void deadline_insert(void *st, struct sched_request *rq, uint64_t now)
{
	struct deadline_data *dd = st;
	int dir = sched_rq_dir(rq);

	rq->priv.queue = dd;
	sched_rb_insert(&dd->sort_list[dir], &rq->priv.rb, deadline_less);
	/* rq->fifo_time = jiffies + dd->fifo_expire[data_dir]: a deadline in jiffies. */
	rq->priv.fifo_time = sched_jiffies(now) + dd->fifo_expire_j[dir];
	sched_list_add_tail(&rq->priv.fifo, &dd->fifo_list[dir]);
	dd->queued[dir]++;
}

/*
 * deadline_move_request() + deadline_remove_request(): off both lists, remember where the
 * sweep goes on (4.19: the successor, and the other direction forgets its own; 6.5: the start
 * sector, every direction keeping its own).
 */
static void deadline_move_request(struct deadline_data *dd, struct sched_request *rq)
{
	int dir = sched_rq_dir(rq);

	if (!dd->keep_pos) {
		dd->next_rq[!dir] = NULL;
		dd->pos_valid[!dir] = false;
	}
	if (dd->latest) {
		dd->latest_pos[dir] = sched_rq_pos(rq);
		dd->pos_valid[dir] = true;
	} else {
		dd->next_rq[dir] = rb_to_rq(sched_rb_next(&rq->priv.rb));
	}
	sched_list_del_init(&rq->priv.fifo);
	sched_rb_erase(&dd->sort_list[dir], &rq->priv.rb);
	sched_rb_clear(&rq->priv.rb);
	rq->priv.queue = NULL;
	dd->queued[dir]--;
}

static bool deadline_fifo_expired(const struct deadline_data *dd, int dir, uint64_t now)
{
	const struct sched_request *rq = fifo_to_rq(dd->fifo_list[dir].next);

	return sched_jiffies(now) >= rq->priv.fifo_time; /* time_after_eq(jiffies, fifo_time) */
}

static struct sched_request *deadline_fifo_request(struct deadline_data *dd, int dir)
{
	if (sched_list_empty(&dd->fifo_list[dir]))
		return NULL;
	return fifo_to_rq(dd->fifo_list[dir].next);
}

/* deadline_from_pos(): the first request of dir at or after sector pos, by one tree walk. */
static struct sched_request *deadline_from_pos(struct deadline_data *dd, int dir, uint64_t pos)
{
	struct sched_rb_node *n = dd->sort_list[dir].root;
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

/* deadline_next_request(): where the sweep of dir goes on, or NULL. */
static struct sched_request *deadline_next_request(struct deadline_data *dd, int dir)
{
	if (!dd->latest)
		return dd->next_rq[dir];
	return dd->pos_valid[dir] ? deadline_from_pos(dd, dir, dd->latest_pos[dir]) : NULL;
}

static struct sched_request *deadline_dispatch(void *st, uint64_t now)
{
	struct deadline_data *dd = st;
	struct sched_request *rq, *next_rq;
	bool reads, writes;
	int dir;

	reads = !sched_list_empty(&dd->fifo_list[0]);
	writes = !sched_list_empty(&dd->fifo_list[1]);

	/* Batches are reads XOR writes: 4.19 has at most one next_rq set, writes' first (the
	 * order of its test); since d672d325b149 the batch goes on in last_dir. */
	if (dd->keep_pos) {
		rq = deadline_next_request(dd, dd->last_dir);
	} else {
		rq = deadline_next_request(dd, 1);
		if (!rq)
			rq = deadline_next_request(dd, 0);
	}
	if (rq && (int64_t)dd->batching < dd->fifo_batch)
		goto dispatch_request;

	/* Not in a batch: choose the direction. */
	if (reads) {
		if (deadline_fifo_request(dd, 1) && dd->starved++ >= (uint32_t)(int32_t)dd->writes_starved)
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
	next_rq = deadline_next_request(dd, dir);
	if (deadline_fifo_expired(dd, dir, now) || !next_rq)
		/* Expired, the sweep ended, or (4.19) the last batch ran the other way: FIFO head.
		 */
		rq = deadline_fifo_request(dd, dir);
	else
		rq = next_rq;
	dd->last_dir = dir;
	dd->batching = 0;

dispatch_request:
	dd->batching++;
	deadline_move_request(dd, rq);
	return rq;
}

static bool deadline_completed(void *st, struct sched_request *rq, uint64_t now)
{
	(void)st;
	(void)rq;
	(void)now;
	return false; /* a completion asks for no run (a SCHED_RESTART is the block layer's) */
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
	case DEADLINE_FIFO_BATCH:
		return dd->fifo_batch;
	case DEADLINE_VERSION:
		return dd->version;
	case DEADLINE_SW_KEEP_POS:
		return dd->keep_pos;
	case DEADLINE_SW_LATEST_POS:
		return dd->latest;
	default:
		return 0;
	}
}

static bool deadline_has_work(const void *st)
{
	const struct deadline_data *dd = st;

	return dd->queued[0] || dd->queued[1];
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
    .tunable_value = deadline_tunable_value,
    .entity_exit = NULL,
};
