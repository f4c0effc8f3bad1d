// SPDX-License-Identifier: GPL-2.0
/*
 * The blk-mq half of the block core, for a kernel scheduler file of that era (mq-deadline,
 * bfq, kyber): the moments at which blk-mq calls the elevator, on the simulator's requests, as
 * a policy of the core (struct sched_policy_ops). The simulator's block layer (blk/) decides
 * when each moment comes, as it does for the embedded policy, so both meet the same inputs:
 *
 *   init          blk_mq_init_sched(): init_sched, init_hctx; then each tunable given is
 *                 written to the elevator's sysfs attribute of the same name (its store()).
 *   limit_depth   __blk_mq_alloc_requests(): limit_depth(opf, data) -> data->shallow_depth.
 *   insert        blk_mq_rq_ctx_init() (icq lookup and creation, prepare_request; before
 *                 4.16: blk_mq_sched_assign_ioc(), get_rq_priv) then
 *                 blk_mq_sched_insert_request() -> insert_requests(hctx, list, 0).
 *                 (Flushes never come here: the elevator core sends them round the policy,
 *                 as blk_insert_flush() does, see struct sched's bypass.)
 *   dispatch      __blk_mq_do_dispatch_sched(): has_work() and dispatch_request(hctx).
 *   completed     blk_mq_end_request(): completed_request(rq, now), then
 *                 blk_mq_free_request(): finish_request(rq) (before 4.16: put_rq_priv and
 *                 the icq's io_context reference). A queue run the file asked for
 *                 meanwhile (blk_mq_run_hw_queues(), kblockd work) is the return value.
 *   timer         the file's hrtimers and timer_lists at their expiry (rt/time.c).
 *   entity_exit   exit_io_context(): the owner's io_context loses its task (active_ref 0),
 *                 then ioc_exit_icq(): exit_icq(icq) for its icq on this queue.
 *
 * Each owner is a task with an io_context (made at its first request, as the kernel makes one
 * at a task's first I/O); its icq on the queue is made by blk-mq before prepare_request (up to
 * 5.15: blk_mq_sched_assign_ioc()) or by the elevator itself (5.16+: ioc_find_get_icq(), here).
 * With CONFIG_BLK_CGROUP (bfq: shim/config/), group g of the simulator is a cgroup under the
 * root whose io.bfq.weight (the policy's cgroup v2 weight file) is cfg->group_weight[g],
 * made with its blkg at the group's first request; each request has a bio charged to it.
 *
 * Tunables with no sysfs attribute in the file (the embedded profiles' switches) are left to
 * the embedded side; the harness only compares configurations the file can express.
 */
#include "oracle_kernel.h"
#include "oracle_rt.h"

#include "sched.h"

int ORACLE_VSYM(module_init)(void);

/* One request of the file, standing for a simulator request (rq->priv.queue points here). */
struct kreq {
	struct request rq;
	struct bio bio; /* its one bio (none for a data-less flush) */
	struct sched_request *srq;
};

struct world {
	struct request_queue q;
	struct blk_mq_hw_ctx hctx;
	struct blk_mq_tags tags, sched_tags;
	struct blk_mq_ctx ctx;
	struct elevator_type *e;
	const struct sched_config *cfg;
	const struct sched_device *dev;
	struct io_context **ioc; /* per owner, made at its first request */
	struct io_cq **icq;	 /* per owner: its icq on this queue */
#ifdef ORACLE_BFQ_H
	struct gendisk disk;
#endif
#ifdef CONFIG_BLK_CGROUP
	struct blkcg *root_blkcg;
	struct blkcg **blkcg; /* per group, made at its first request */
	uint32_t nr_groups;
#endif
	uint32_t nr_owners;
	uint64_t queued; /* inserted into the elevator, not yet dispatched */
	uint64_t warns;
};

struct kstate {
	const struct sched_policy_ops *ops; /* first: the oracle's trampolines read it */
	struct world *w;
};

extern const struct sched_policy_ops ORACLE_VSYM(ops);

#include "merge_core.c"

static size_t k_state_size(const struct sched_config *cfg)
{
	(void)cfg;
	return sizeof(struct kstate);
}

static void trace_sink(void *ctx, const char *line)
{
	struct world *w = ctx;

	sched_trace_printf(w->dev->trace, oracle_now_ns, "P %s", line);
}

static struct elv_fs_entry *find_attr(struct elevator_type *e, const char *name)
{
	for (struct elv_fs_entry *a = e->elevator_attrs; a && a->attr.name; a++)
		if (!strcmp(a->attr.name, name))
			return a;
	return NULL;
}

static int k_init(void *st, const struct sched_config *cfg, const struct sched_device *dev,
		  uint64_t now)
{
	struct kstate *ks = st;
	const struct sched_policy_ops *eops = sched_policy_ops(cfg->policy);
	struct world *w;

	ks->ops = &ORACLE_VSYM(ops);
	/* The file's module_init (elv_register) once; the previous instance, if any, ends here. */
	if (!oracle_rt.elv_type && ORACLE_VSYM(module_init)())
		return -1;
	oracle_rt_reset(now);
	oracle_rt.bio_merge_ok = mc_bio_merge_ok;
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (w)
		w->q.oracle_ctx = &w->ctx;
	if (!w)
		return -1;
	ks->w = w;
	w->e = oracle_rt.elv_type;
	w->cfg = cfg;
	w->dev = dev;
	w->nr_owners = cfg->max_entities;
	w->ioc = kcalloc(w->nr_owners, sizeof(*w->ioc), GFP_KERNEL);
	w->icq = kcalloc(w->nr_owners, sizeof(*w->icq), GFP_KERNEL);
	INIT_LIST_HEAD(&w->q.queue_head);
	w->q.queue_lock = &w->q.__queue_lock;
	w->q.nr_requests = dev->nr_requests;
	w->q.nr_hw_queues = 1;
	w->q.oracle = w;
	w->q.oracle_hctx = &w->hctx;
	INIT_LIST_HEAD(&w->q.blkg_list);
#ifdef ORACLE_BFQ_H
	w->q.disk = &w->disk;
	w->disk.queue = &w->q;
#endif
	if (!dev->rotational)
		blk_queue_flag_set(QUEUE_FLAG_NONROT, &w->q);
	w->hctx.queue = &w->q;
	w->hctx.nr_ctx = 1; /* one CPU: one software queue (w->ctx) */
	w->tags.nr_tags = dev->hw_queue_depth;
	w->tags.bitmap_tags.depth = dev->hw_queue_depth;
	w->sched_tags.nr_tags = dev->nr_requests;
	w->sched_tags.bitmap_tags.depth = dev->nr_requests;
	w->hctx.tags = &w->tags;
	w->hctx.sched_tags = &w->sched_tags;
	if (sched_trace_on(dev->trace)) {
		oracle_rt.trace = trace_sink;
		oracle_rt.trace_ctx = w;
	}
#ifdef CONFIG_BLK_CGROUP
	/* blkcg_init_disk(): the root cgroup's blkg exists before the elevator. */
	oracle_blkcg_reset();
	w->nr_groups = cfg->max_groups;
	w->blkcg = kcalloc(w->nr_groups, sizeof(*w->blkcg), GFP_KERNEL);
	w->root_blkcg = oracle_blkcg_create(NULL, "");
	w->q.root_blkg = w->root_blkcg ? oracle_blkg_lookup_create(w->root_blkcg, &w->q) : NULL;
	if (!w->blkcg || !w->q.root_blkg)
		return -1;
#endif
#if ORACLE_KVER < KV(5, 0)
	const struct elevator_mq_ops *ops = &w->e->ops.mq;
#else
	const struct elevator_mq_ops *ops = &w->e->ops;
#endif
	if (ops->init_sched(&w->q, w->e))
		return -1;
	if (ops->init_hctx && ops->init_hctx(&w->hctx, 0))
		return -1;
	/* The tunables given, through the file's own sysfs store(). */
	for (unsigned int i = 0; eops && i < eops->nr_tunables; i++) {
		struct elv_fs_entry *a;
		char buf[32];

		if (!cfg->tunable_given[i])
			continue;
		a = find_attr(w->e, eops->tunables[i].name);
		if (!a || !a->store)
			continue;
		oracle_host_snprintf(buf, sizeof(buf), "%lld", (long long)cfg->tunable[i]);
		a->store(w->q.elevator, buf, strlen(buf));
	}
	return 0;
}

static const struct elevator_mq_ops *mqops(struct world *w)
{
#if ORACLE_KVER < KV(5, 0)
	return &w->e->ops.mq;
#else
	return &w->e->ops;
#endif
}

static unsigned int opf_of(const struct sched_request *srq)
{
	unsigned int opf;

	switch (srq->op) {
	case SCHED_OP_READ:
		opf = REQ_OP_READ;
		break;
	case SCHED_OP_WRITE:
		opf = REQ_OP_WRITE;
		break;
	case SCHED_OP_FLUSH:
		opf = REQ_OP_WRITE | REQ_PREFLUSH; /* fsync's empty flush: a preflush write */
		break;
	default:
		opf = REQ_OP_DISCARD;
		break;
	}
	if (srq->flags & SCHED_RQ_SYNC)
		opf |= REQ_SYNC;
	if (srq->flags & SCHED_RQ_IDLE)
		opf |= REQ_IDLE;
	if (srq->flags & SCHED_RQ_META)
		opf |= REQ_META;
	return opf;
}

static unsigned short ioprio_of(const struct sched_request *srq)
{
	if (srq->prio_class == SCHED_IOPRIO_CLASS_NONE)
		return IOPRIO_DEFAULT;
	return (unsigned short)IOPRIO_PRIO_VALUE(srq->prio_class, srq->prio_level);
}

/* The owner's io_context (alloc_io_context(): one task uses it), with its I/O priority now. */
static struct io_context *owner_ioc(struct world *w, const struct sched_request *srq)
{
	uint32_t o = srq->owner;
	struct io_context *ioc = w->ioc[o];

	if (!ioc) {
		ioc = w->ioc[o] = kzalloc(sizeof(*ioc), GFP_KERNEL);
		ioc->refcount.counter = 1;
		atomic_set(&ioc->active_ref, 1);
		atomic_set(&ioc->nr_tasks, 1);
		ioc->oracle_owner = o;
		INIT_HLIST_HEAD(&ioc->icq_list);
	}
	ioc->ioprio = ioprio_of(srq);
	return ioc;
}

/* ioc_create_icq(): the io_context's icq on this queue, then the elevator's init_icq. */
static struct io_cq *create_icq(struct world *w, struct io_context *ioc)
{
	uint32_t o = ioc->oracle_owner;

	if (!w->e->icq_cache)
		return NULL;
	if (!w->icq[o]) {
		struct io_cq *icq = kmem_cache_alloc(w->e->icq_cache, GFP_KERNEL);

		icq->q = &w->q;
		icq->ioc = ioc;
		INIT_LIST_HEAD(&icq->q_node);
		hlist_add_head(&icq->ioc_node, &ioc->icq_list);
		w->icq[o] = icq;
		if (mqops(w)->init_icq)
			mqops(w)->init_icq(icq);
	}
	return w->icq[o];
}

static struct io_cq *owner_icq(struct world *w, const struct sched_request *srq)
{
	return create_icq(w, owner_ioc(w, srq));
}

#ifdef ORACLE_BFQ_H
#if ORACLE_KVER >= KV(5, 16)
/* block/blk-ioc.c: current's icq on q, or NULL. */
struct io_cq *ioc_lookup_icq(struct request_queue *q)
{
	struct world *w = q->oracle;
	struct io_context *ioc = current->io_context;

	return ioc ? w->icq[ioc->oracle_owner] : NULL;
}

/* current's icq on q, made if it has none, with a reference on its io_context (which
 * finish_request drops). current always has its io_context here (set_current()). */
struct io_cq *ioc_find_get_icq(struct request_queue *q)
{
	struct world *w = q->oracle;
	struct io_context *ioc = current->io_context;

	if (!ioc)
		return NULL;
	get_io_context(ioc);
	return create_icq(w, ioc);
}
#else
struct io_cq *ioc_lookup_icq(struct io_context *ioc, struct request_queue *q)
{
	struct world *w = q->oracle;

	return ioc ? w->icq[ioc->oracle_owner] : NULL;
}
#endif
#endif

/* The task that submits: its pid is the owner (the embedded policies' queue ids). */
static void set_current(struct world *w, const struct sched_request *srq)
{
	current->pid = (pid_t)srq->owner;
	current->io_context = w->ioc[srq->owner];
	current->ioprio = ioprio_of(srq);
}

#ifdef CONFIG_BLK_CGROUP
/* The blkg of group g on the queue: g's cgroup is made at its first request, its weight
 * written to its io.bfq.weight (the elevator's cgroup v2 file), then its blkg is made, as a
 * task's first bio in a new cgroup makes it. Group 0 is the root cgroup. */
static struct blkcg_gq *group_blkg(struct world *w, uint32_t g)
{
	if (!g || g >= w->nr_groups)
		return w->q.root_blkg;
	if (!w->blkcg[g]) {
		char buf[24];

		oracle_host_snprintf(buf, sizeof(buf), "g%u", (unsigned int)g);
		w->blkcg[g] = oracle_blkcg_create(w->root_blkcg, buf);
		if (!w->blkcg[g])
			return w->q.root_blkg;
		oracle_host_snprintf(buf, sizeof(buf), "%u", (unsigned int)w->cfg->group_weight[g]);
		if (oracle_blkcg_write(w->blkcg[g], "bfq.weight", buf))
			w->warns++;
	}
	return oracle_blkg_lookup_create(w->blkcg[g], &w->q) ?: w->q.root_blkg;
}

static void k_set_group_weight(void *st, uint32_t group, uint32_t weight)
{
	struct world *w = ((struct kstate *)st)->w;
	char buf[24];

	if (!group || group >= w->nr_groups || !w->blkcg[group])
		return; /* read from the configuration when the group is made */
	oracle_host_snprintf(buf, sizeof(buf), "%u", weight);
	if (oracle_blkcg_write(w->blkcg[group], "bfq.weight", buf))
		w->warns++;
}
#endif

static uint32_t k_limit_depth(void *st, const struct sched_request *srq)
{
	struct world *w = ((struct kstate *)st)->w;
	struct blk_mq_alloc_data data = {.q = &w->q, .hctx = &w->hctx, .ctx = &w->ctx};

	if (!mqops(w)->limit_depth || srq->op == SCHED_OP_FLUSH)
		return 0;
	/* Before 5.16 the owner's icq existed from its first allocation on (its io_context's
	 * icq was made with its first request); from 5.16 it is made by prepare_request, after
	 * this: an owner's first request finds none. */
	if (ORACLE_KVER < KV(5, 16))
		owner_icq(w, srq);
	else
		owner_ioc(w, srq);
	set_current(w, srq);
	data.cmd_flags = opf_of(srq);
	mqops(w)->limit_depth(data.cmd_flags, &data);
	return data.shallow_depth;
}

static void k_insert(void *st, struct sched_request *srq, uint64_t now)
{
	struct world *w = ((struct kstate *)st)->w;
	struct kreq *kr = kzalloc(sizeof(*kr), GFP_KERNEL);
	struct request *rq = &kr->rq;
	LIST_HEAD(list);

	oracle_rt_set_now(now);
	kr->srq = srq;
	srq->priv.queue = kr;
	rq->oracle_rq = srq;
	rq->q = &w->q;
	rq->mq_ctx = &w->ctx;
	rq->mq_hctx = &w->hctx;
	rq->cmd_flags = opf_of(srq);
	rq->__sector = srq->offset >> 9;
	rq->__data_len = (unsigned int)srq->length;
	rq->ioprio = ioprio_of(srq);
	rq->tag = -1;
	rq->internal_tag = -1;
	rq->start_time_ns = now;
	rq->nr_phys_segments = (unsigned short)mc_segments(rq->__sector, rq->__data_len);
	INIT_LIST_HEAD(&rq->queuelist);
	RB_CLEAR_NODE(&rq->rb_node);
	INIT_HLIST_NODE(&rq->hash);
	rq->bio = rq->biotail = &kr->bio;
	kr->bio.bi_opf = rq->cmd_flags;
	kr->bio.bi_ioprio = rq->ioprio;
	kr->bio.bi_iter.bi_sector = rq->__sector;
	kr->bio.bi_iter.bi_size = rq->__data_len;
#ifdef CONFIG_BLK_CGROUP
	kr->bio.bi_blkg = group_blkg(w, srq->group);
	blkg_get(kr->bio.bi_blkg);
#endif
	/* blk_mq_rq_ctx_init(): up to 5.15 blk-mq gives the request its icq; from 5.16 the
	 * elevator's prepare_request finds it (ioc_find_get_icq()). */
	if (ORACLE_KVER < KV(5, 16))
		rq->elv.icq = owner_icq(w, srq);
	else
		owner_ioc(w, srq);
	set_current(w, srq);
#if ORACLE_KVER < KV(4, 16)
	/* blk_mq_sched_assign_ioc(): the elevator's data of the request, with a reference on the
	 * icq's io_context; refused, the request has neither (and no RQF_ELVPRIV). */
	if (rq->elv.icq && mqops(w)->get_rq_priv) {
		if (!mqops(w)->get_rq_priv(&w->q, rq, rq->bio)) {
			rq->rq_flags |= RQF_ELVPRIV;
			get_io_context(rq->elv.icq->ioc);
		} else {
			rq->elv.icq = NULL;
		}
	}
#else
#if ORACLE_KVER < KV(5, 0)
	if (mqops(w)->prepare_request)
		mqops(w)->prepare_request(rq, NULL);
#else
	if (mqops(w)->prepare_request)
		mqops(w)->prepare_request(rq);
#endif
	rq->rq_flags |= RQF_ELVPRIV | RQF_USE_SCHED;
#endif
	w->queued++;
	list_add_tail(&rq->queuelist, &list);
	mqops(w)->insert_requests(&w->hctx, &list, 0);
}

/* ---- merging: the block core's side (merge_core.c) on this adapter's requests ------------- */

/* blk_mq_free_request()'s elevator half: before 4.16 blk_mq_sched_put_rq_priv(), then the
 * icq's io_context reference; from 4.16 finish_request(). */
static void release_rq_priv(struct world *w, struct request *rq)
{
#if ORACLE_KVER < KV(4, 16)
	if (mqops(w)->put_rq_priv)
		mqops(w)->put_rq_priv(rq->q, rq);
	if (rq->elv.icq) {
		put_io_context(rq->elv.icq->ioc);
		rq->elv.icq = NULL;
	}
#else
	if (mqops(w)->finish_request)
		mqops(w)->finish_request(rq);
#endif
}

/* blk_mq_free_request() of a request merged away: its elevator data goes as at a completion
 * (without completed_request), then the request; the simulator never completes it. */
static void mc_free(struct request_queue *q, struct request *rq)
{
	struct world *w = q->oracle;
	struct kreq *kr = container_of(rq, struct kreq, rq);

	if (rq->rq_flags & RQF_ELVPRIV)
		release_rq_priv(w, rq);
	w->queued--;
	if (kr->srq)
		kr->srq->priv.queue = NULL;
	/* Not freed: its bio is on the request it joined (the instance's memory goes at its end).
	 */
	kr->srq = NULL;
}

void oracle_mq_free_request(struct request *rq)
{
	mc_free(rq->q, rq);
}

void oracle_mq_free_requests(struct list_head *list)
{
	struct request *rq, *n;

	list_for_each_entry_safe(rq, n, list, queuelist)
	{
		list_del_init(&rq->queuelist);
		mc_free(rq->q, rq);
	}
}

bool oracle_try_insert_merge(struct request_queue *q, struct request *rq, struct list_head *free)
{
	return mc_attempt_insert_merge(q, rq, free);
}

bool oracle_try_merge(struct request_queue *q, struct bio *bio, struct request **merged)
{
	return mc_sched_try_merge(q, bio, merged);
}

bool oracle_allow_merge(struct request_queue *q, struct request *rq, struct bio *bio)
{
	(void)q;
	return mc_allow_bio_merge(rq, bio);
}

bool oracle_bio_list_merge(struct request_queue *q, struct list_head *list, struct bio *bio)
{
	return mc_bio_list_merge(q, list, bio);
}

/* blk_mq_submit_bio()'s blk_mq_sched_bio_merge(): the elevator's bio_merge with the task's
 * bio (the plug merge came first, in blk/). */
static bool k_core_bio_merge(void *st, struct sched_request *srq,
			     const struct sched_merge_limits *l, uint64_t now,
			     struct sched_merge_out *out)
{
	struct world *w = ((struct kstate *)st)->w;
	struct bio *bio;
	bool ret;

	if (l->nomerges >= 2 || !mqops(w)->bio_merge)
		return false;
	oracle_rt_set_now(now);
	owner_ioc(w, srq);
	set_current(w, srq);
	bio = kzalloc(sizeof(*bio), GFP_KERNEL);
	bio->bi_opf = opf_of(srq);
	bio->bi_ioprio = ioprio_of(srq);
	bio->bi_iter.bi_sector = srq->offset >> 9;
	bio->bi_iter.bi_size = (unsigned int)srq->length;
#ifdef CONFIG_BLK_CGROUP
	bio->bi_blkg = group_blkg(w, srq->group);
#endif
	if (!bio_mergeable(bio))
		return false;
	mc_begin(l, out);
#if ORACLE_KVER < KV(5, 0)
	ret = mqops(w)->bio_merge(&w->hctx, bio);
#else
	ret = mqops(w)->bio_merge(&w->q, bio,
				  mc_segments(bio->bi_iter.bi_sector, bio->bi_iter.bi_size));
#endif
	mc_end();
	return ret;
}

/* An insertion (blk_mq_sched_insert_request()): the elevator's insert_requests may merge it
 * into a queued request instead (blk_mq_sched_try_insert_merge()), freeing it. */
static bool k_core_insert(void *st, struct sched_request *srq, bool plugged,
			  const struct sched_merge_limits *l, uint64_t now,
			  struct sched_merge_out *out)
{
	(void)plugged; /* blk-mq's elevators try every insertion */
	mc_begin(l, out);
	k_insert(st, srq, now);
	mc_end();
	return mc.merged;
}

static struct sched_request *k_dispatch(void *st, uint64_t now)
{
	struct world *w = ((struct kstate *)st)->w;
	struct request *rq;

	oracle_rt_set_now(now);
	if (mqops(w)->has_work && !mqops(w)->has_work(&w->hctx))
		return NULL;
	rq = mqops(w)->dispatch_request(&w->hctx);
	if (!rq)
		return NULL;
	w->queued--;
	rq->io_start_time_ns = now;
	rq->rq_flags |= RQF_STARTED;
	return rq->oracle_rq;
}

static bool k_completed(void *st, struct sched_request *srq, uint64_t now)
{
	struct world *w = ((struct kstate *)st)->w;
	struct kreq *kr = srq->priv.queue;
	struct request *rq = &kr->rq;

	oracle_rt_set_now(now);
	if (rq->rq_flags & RQF_ELVPRIV) {
#if ORACLE_KVER >= KV(4, 16)
		if (mqops(w)->completed_request)
			mqops(w)->completed_request(rq, now);
#endif
		release_rq_priv(w, rq);
	}
	kfree(kr);
	srq->priv.queue = NULL;
	return oracle_rt_take_run();
}

static uint64_t k_next_timer(const void *st)
{
	(void)st;
	return oracle_rt_next_timer();
}

static void k_timer(void *st, uint64_t now)
{
	(void)st;
	oracle_rt_set_now(now);
	oracle_rt_run_timers(now);
	(void)oracle_rt_take_run(); /* the block layer runs the queue after a timer anyway */
}

static bool k_has_work(const void *st)
{
	struct world *w = ((const struct kstate *)st)->w;

	return mqops(w)->has_work ? mqops(w)->has_work(&w->hctx) : w->queued != 0;
}

static void k_entity_exit(void *st, uint32_t owner, uint64_t now)
{
	struct world *w = ((struct kstate *)st)->w;
	struct io_cq *icq;

	oracle_rt_set_now(now);
	if (owner >= w->nr_owners || !w->ioc[owner])
		return;
	/* exit_io_context(): the task is gone, its io_context has no active user. */
	atomic_set(&w->ioc[owner]->active_ref, 0);
	if (!(icq = w->icq[owner]))
		return;
	if (mqops(w)->exit_icq)
		mqops(w)->exit_icq(icq);
	hlist_del_init(&icq->ioc_node);
	w->icq[owner] = NULL;
	kmem_cache_free(w->e->icq_cache, icq);
	/* A queue run the file asked for (bfq_exit_bfqq()'s bfq_schedule_dispatch() after it
	 * expired the in-service queue: blk_mq_run_hw_queues(q, true)) is the run the block
	 * layer makes after every exit (vsim, the engine's domain). Left pending, it would come
	 * back as a kblockd run after the next completion, which the kernel does not make. */
	(void)oracle_rt_take_run();
}

static int64_t k_tunable_value(const void *st, unsigned int idx)
{
	struct world *w = ((const struct kstate *)st)->w;
	const struct sched_policy_ops *eops = sched_policy_ops(w->cfg->policy);
	struct elv_fs_entry *a = find_attr(w->e, eops->tunables[idx].name);
	char buf[64];

	if (!a || !a->show)
		return w->cfg->tunable[idx];
	a->show(w->q.elevator, buf);
	return oracle_host_strtol(buf, NULL, 10);
}

const struct sched_policy_ops ORACLE_VSYM(ops) = {
    .name = __stringify(ORACLE_VARIANT),
    .blk_mode = SCHED_BLK_MQ,
    .state_size = k_state_size,
    .init = k_init,
    .insert = k_insert,
    .dispatch = k_dispatch,
    .completed = k_completed,
    .next_timer = k_next_timer,
    .timer = k_timer,
    .has_work = k_has_work,
    .entity_exit = k_entity_exit,
#ifdef CONFIG_BLK_CGROUP
    .set_group_weight = k_set_group_weight,
#endif
    .limit_depth = k_limit_depth,
    .tunable_value = k_tunable_value,
    .core_bio_merge = k_core_bio_merge,
    .core_insert = k_core_insert,
};
