// SPDX-License-Identifier: GPL-2.0
/*
 * The legacy (single-queue) half of the block core, as 4.19's blk-core.c, elevator.c,
 * blk-ioc.c and blk-cgroup.c drive a scheduler file of that era (cfq-iosched.c), on the
 * simulator's requests, as a policy of the core (struct sched_policy_ops). The simulator's block
 * layer (blk/, LEGACY mode: nr_requests per sync/async list, ioc batching, the queue run at every
 * completion) decides when each moment comes, as it does for the embedded policy; its request
 * lists are one per group (blk_get_rl(), 3.6 on) or one for every group as the embedded profile
 * of the variant's version says (cfq_sw_per_group_rl: 3.16, 4.1, 4.19 per group; 2.6.32 and
 * 2.6.36 one), so both sides allocate alike. The kernel files never read the request list
 * (cfq_may_queue() and elv_may_queue() look at the task's queue only), so nothing here
 * depends on it; rq->rl is not set:
 *
 *   init          blkcg_init_queue() (the root blkg), elevator_init(): elevator_init_fn;
 *                 elv_register_queue(): elevator_registered_fn; then the groups' blkio.weight
 *                 written through the policy's own cgroup file (its legacy "weight" cftype,
 *                 the root's mapped to its leaf weight), and each tunable given written to the
 *                 elevator's sysfs attribute of the same name (its store()).
 *   may_queue_must  __get_request(): elevator_may_queue_fn(q, op) for the submitting task;
 *                 the core allocates past a full list on ELV_MQUEUE_MUST.
 *   insert        generic_make_request_checks() (the task's io_context, blkg_lookup_create()
 *                 for its cgroup), __get_request() (icq lookup or ioc_create_icq() with
 *                 elevator_init_icq_fn, elevator_set_req_fn), __elv_add_request():
 *                 ELEVATOR_INSERT_SORT (RQF_SORTED, nr_sorted, the merge hash) ->
 *                 elevator_add_req_fn. A data-less REQ_PREFLUSH takes no elevator data
 *                 (op_is_flush()) and ELEVATOR_INSERT_FLUSH: blk_insert_flush() puts the flush
 *                 machinery's request on q->queue_head, never in the elevator.
 *   dispatch      the driver's fetch: __elv_next_request() (q->queue_head first, else
 *                 elevator_dispatch_fn(q, 0) until it gives nothing), blk_peek_request()
 *                 (elevator_activate_req_fn for a sorted request, RQF_STARTED, the boundary),
 *                 blk_start_request() (dequeued, in_flight).
 *   completed     __blk_put_request(): elv_completed_request() (elevator_completed_req_fn for
 *                 a sorted request), then blk_free_request(): elevator_put_req_fn and the
 *                 icq's io_context reference. A queue run the file asked for meanwhile
 *                 (kblockd work, __blk_run_queue()) is the return value.
 *   timer         the file's hrtimers at their expiry (rt/rt.c).
 *   entity_exit   exit_io_context(): active_ref to 0, elevator_exit_icq_fn for the owner's
 *                 icq (ICQ_EXITED); the owner's next request is a new process's.
 *   core_bio_merge  blk_queue_bio() (3.x, 4.x) / __make_request() (2.6.3x) before a request is
 *                 allocated: elv_merge() and what follows, with the file's merge hooks
 *                 (merge_core.c, ORACLE_MC_LEGACY); the plug was tried in blk/.
 *   core_insert   insert; from a plug ELEVATOR_INSERT_SORT_MERGE (elv_attempt_insert_merge(),
 *                 2.6.39 on). A request merged away is put (__blk_put_request(): never started,
 *                 so only elevator_put_req_fn and the icq's reference).
 *
 * Where this differs from the kernel on purpose: the queue is fetched only when the device has
 * room (a SCSI request_fn peeks, and so activates, a request before it checks the device's
 * queue depth); a flush does not hold the queue while it runs (queue_flush_queueable(): the
 * device takes flushes queued). The simulator tells the policy of
 * a request when it is admitted, so the blkg of a group's first bio, the io_context and the icq
 * are made then, not before a wait in get_request(); and may_queue hears only the direction
 * (REQ_SYNC), not a REQ_PRIO the request would carry (the simulator's requests never do).
 * The groups' weights are written at init, the root's too: the configuration always names one,
 * where the kernel's root blkcg starts at 1000 (cfq_cpd_init() doubles the legacy default).
 */
#include "oracle_kernel.h"
#include "oracle_legacy.h"
#include "oracle_rt.h"

#include "sched.h"

int ORACLE_VSYM(module_init)(void);
extern const struct sched_policy_ops ORACLE_VSYM(ops);

/* One request of the file, standing for a simulator request (its priv.queue points here). */
struct kreq {
	struct request rq;
	struct bio bio;
	struct sched_request *srq;
};

struct world {
	struct request_queue q;
	struct elevator_type *e;
	const struct sched_config *cfg;
	const struct sched_device *dev;
	struct io_context **ioc;  /* per owner: its process's io_context, made at its first I/O */
#if ORACLE_KVER < KV(3, 0)
	struct oracle_blkio **blkio; /* per group but the root: its blkio cgroup (2.6.36) */
#else
	struct blkcg **blkcg;	  /* per group: the root blkcg, then one child of it each */
#endif
	unsigned long blkcg_pols; /* q->blkcg_pols: the policies activated on this queue */
	uint32_t nr_owners, nr_groups;
};

struct kstate {
	const struct sched_policy_ops *ops; /* first: the oracle's trampolines read it */
	struct world *w;
};

/* The block core's merge path, with the legacy elevator's hooks of the variant's era. */
#define ORACLE_MC_LEGACY 1
#include "merge_core.c"

#if ORACLE_KVER < KV(3, 0)
/* The 2.6.3x block core: io contexts holding cfq_io_contexts, 2.6.36's blkio controller. */
#include "sq_legacy_26.c"
#elif !defined(ORACLE_BLKCG_OLD)
/* ---- block/blk-cgroup.c --------------------------------------------------------------------- */

struct blkcg blkcg_root;
struct cgroup_subsys io_cgrp_subsys;
static struct blkcg_policy *blkcg_policy[BLKCG_MAX_POLS];
static struct blkcg *current_blkcg; /* the submitting task's cgroup (set_current()) */
static u64 css_serial_next;

struct blkcg *bio_blkcg(struct bio *bio)
{
	(void)bio;
	return current_blkcg ? current_blkcg : &blkcg_root;
}

static void blkcg_init_cpd(struct blkcg *blkcg, struct blkcg_policy *pol)
{
	struct blkcg_policy_data *cpd = blkcg->cpd[pol->plid];

	if (!cpd) {
		cpd = pol->cpd_alloc_fn(GFP_KERNEL);
		if (!cpd)
			return;
		blkcg->cpd[pol->plid] = cpd;
	}
	cpd->blkcg = blkcg;
	cpd->plid = pol->plid;
	if (pol->cpd_init_fn)
		pol->cpd_init_fn(cpd);
}

/* Registered from the file's module_init, once per process: the root blkcg is the only one
 * then, and its policy data is made as the kernel makes it for every existing blkcg. */
int blkcg_policy_register(struct blkcg_policy *pol)
{
	int i;

	for (i = 0; i < BLKCG_MAX_POLS && blkcg_policy[i]; i++)
		;
	if (i == BLKCG_MAX_POLS)
		return -ENOSPC;
	pol->plid = i;
	blkcg_policy[i] = pol;
	if (!blkcg_root.css.cgroup) {
		blkcg_root.css.cgroup = &blkcg_root.cgroup;
		blkcg_root.css.serial_nr = ++css_serial_next;
	}
	if (pol->cpd_alloc_fn)
		blkcg_init_cpd(&blkcg_root, pol);
	return 0;
}

void blkcg_policy_unregister(struct blkcg_policy *pol)
{
	if (blkcg_policy[pol->plid] != pol)
		return;
	if (pol->cpd_free_fn && blkcg_root.cpd[pol->plid])
		pol->cpd_free_fn(blkcg_root.cpd[pol->plid]);
	blkcg_root.cpd[pol->plid] = NULL;
	blkcg_policy[pol->plid] = NULL;
}

static bool blkcg_policy_enabled(struct request_queue *q, const struct blkcg_policy *pol)
{
	struct world *w = q->oracle;

	return pol && test_bit(pol->plid, &w->blkcg_pols);
}

/* blkcg_css_alloc(): a new cgroup under parent, with every policy's data. */
static struct blkcg *blkcg_create(struct blkcg *parent)
{
	struct blkcg *blkcg = kzalloc(sizeof(*blkcg), GFP_KERNEL);

	if (!blkcg)
		return NULL;
	blkcg->css.cgroup = &blkcg->cgroup;
	blkcg->css.parent = &parent->css;
	blkcg->css.serial_nr = ++css_serial_next;
	blkcg->cgroup.parent = &parent->cgroup;
	INIT_HLIST_HEAD(&blkcg->blkg_list);
	for (int i = 0; i < BLKCG_MAX_POLS; i++)
		if (blkcg_policy[i] && blkcg_policy[i]->cpd_alloc_fn)
			blkcg_init_cpd(blkcg, blkcg_policy[i]);
	return blkcg;
}

struct blkcg_gq *blkg_lookup(struct blkcg *blkcg, struct request_queue *q)
{
	struct blkcg_gq *blkg;

	if (blkcg == &blkcg_root)
		return q->root_blkg;
	hlist_for_each_entry(blkg, &blkcg->blkg_list, blkcg_node) if (blkg->q == q) return blkg;
	return NULL;
}

/* blkg_alloc() + blkg_create(): the pd of each policy enabled on q, the parent's blkg (which
 * must exist), pd_init_fn, then linked, pd_online_fn. */
static struct blkcg_gq *blkg_create(struct blkcg *blkcg, struct request_queue *q)
{
	struct blkcg_gq *blkg = kzalloc(sizeof(*blkg), GFP_KERNEL);

	if (!blkg)
		return NULL;
	blkg_rwstat_init(&blkg->stat_bytes, GFP_KERNEL);
	blkg_rwstat_init(&blkg->stat_ios, GFP_KERNEL);
	blkg->q = q;
	INIT_LIST_HEAD(&blkg->q_node);
	INIT_HLIST_NODE(&blkg->blkcg_node);
	blkg->blkcg = blkcg;
	atomic_set(&blkg->refcnt, 1);
	for (int i = 0; i < BLKCG_MAX_POLS; i++) {
		struct blkcg_policy *pol = blkcg_policy[i];
		struct blkg_policy_data *pd;

		if (!blkcg_policy_enabled(q, pol))
			continue;
		pd = pol->pd_alloc_fn(GFP_NOWAIT, q->node);
		if (!pd)
			return NULL;
		blkg->pd[i] = pd;
		pd->blkg = blkg;
		pd->plid = i;
	}
	if (blkcg_parent(blkcg)) {
		blkg->parent = blkg_lookup(blkcg_parent(blkcg), q);
		if (WARN_ON_ONCE(!blkg->parent))
			return NULL;
		blkg_get(blkg->parent);
	}
	for (int i = 0; i < BLKCG_MAX_POLS; i++)
		if (blkg->pd[i] && blkcg_policy[i]->pd_init_fn)
			blkcg_policy[i]->pd_init_fn(blkg->pd[i]);
	hlist_add_head(&blkg->blkcg_node, &blkcg->blkg_list);
	list_add(&blkg->q_node, &q->blkg_list);
	for (int i = 0; i < BLKCG_MAX_POLS; i++)
		if (blkg->pd[i] && blkcg_policy[i]->pd_online_fn)
			blkcg_policy[i]->pd_online_fn(blkg->pd[i]);
	blkg->online = true;
	return blkg;
}

/* blkg_lookup_create(): the blkgs missing on the way down from the root are made, the topmost
 * first. */
static struct blkcg_gq *blkg_lookup_create(struct blkcg *blkcg, struct request_queue *q)
{
	struct blkcg_gq *blkg = blkg_lookup(blkcg, q);

	while (!blkg) {
		struct blkcg *pos = blkcg, *parent = blkcg_parent(blkcg);

		while (parent && !blkg_lookup(parent, q)) {
			pos = parent;
			parent = blkcg_parent(parent);
		}
		blkg = blkg_create(pos, q);
		if (!blkg || pos == blkcg)
			return blkg;
		blkg = NULL;
	}
	return blkg;
}

int blkcg_activate_policy(struct request_queue *q, const struct blkcg_policy *pol)
{
	struct world *w = q->oracle;
	struct blkcg_gq *blkg;

	if (blkcg_policy_enabled(q, pol))
		return 0;
	list_for_each_entry(blkg, &q->blkg_list, q_node)
	{
		struct blkg_policy_data *pd;

		if (blkg->pd[pol->plid])
			continue;
		pd = pol->pd_alloc_fn(GFP_NOWAIT, q->node);
		if (!pd)
			return -ENOMEM;
		blkg->pd[pol->plid] = pd;
		pd->blkg = blkg;
		pd->plid = pol->plid;
		if (pol->pd_init_fn)
			pol->pd_init_fn(pd);
	}
	__set_bit(pol->plid, &w->blkcg_pols);
	return 0;
}

void blkcg_deactivate_policy(struct request_queue *q, const struct blkcg_policy *pol)
{
	struct world *w = q->oracle;
	struct blkcg_gq *blkg;

	if (!blkcg_policy_enabled(q, pol))
		return;
	__clear_bit(pol->plid, &w->blkcg_pols);
	list_for_each_entry(blkg, &q->blkg_list, q_node)
	{
		if (!blkg->pd[pol->plid])
			continue;
		if (pol->pd_offline_fn)
			pol->pd_offline_fn(blkg->pd[pol->plid]);
		pol->pd_free_fn(blkg->pd[pol->plid]);
		blkg->pd[pol->plid] = NULL;
	}
}

/* The statistics and per-device files are never read or written here (oracle_legacy.h). */
int blkg_conf_prep(struct blkcg *blkcg, const struct blkcg_policy *pol, char *input,
		   struct blkg_conf_ctx *ctx)
{
	(void)blkcg;
	(void)pol;
	(void)input;
	ctx->blkg = NULL;
	return -EOPNOTSUPP;
}

void blkg_conf_finish(struct blkg_conf_ctx *ctx)
{
	(void)ctx;
}

void blkcg_print_blkgs(struct seq_file *sf, struct blkcg *blkcg,
		       u64 (*prfill)(struct seq_file *, struct blkg_policy_data *, int),
		       const struct blkcg_policy *pol, int data, bool show_total)
{
	(void)sf;
	(void)blkcg;
	(void)prfill;
	(void)pol;
	(void)data;
	(void)show_total;
}

u64 __blkg_prfill_u64(struct seq_file *sf, struct blkg_policy_data *pd, u64 v)
{
	(void)sf;
	(void)pd;
	return v;
}

u64 __blkg_prfill_rwstat(struct seq_file *sf, struct blkg_policy_data *pd,
			 const struct blkg_rwstat *rwstat)
{
	(void)sf;
	(void)pd;
	return (u64)(atomic64_read(&rwstat->aux_cnt[BLKG_RWSTAT_READ]) +
		     atomic64_read(&rwstat->aux_cnt[BLKG_RWSTAT_WRITE]));
}

u64 blkg_prfill_stat(struct seq_file *sf, struct blkg_policy_data *pd, int off)
{
	(void)sf;
	return blkg_stat_read((struct blkg_stat *)((char *)pd + off));
}

u64 blkg_prfill_rwstat(struct seq_file *sf, struct blkg_policy_data *pd, int off)
{
	(void)sf;
	return blkg_rwstat_total((struct blkg_rwstat *)((char *)pd + off));
}

int blkg_print_stat_bytes(struct seq_file *sf, void *v)
{
	(void)sf;
	(void)v;
	return 0;
}

int blkg_print_stat_ios(struct seq_file *sf, void *v)
{
	(void)sf;
	(void)v;
	return 0;
}

int blkg_print_stat_bytes_recursive(struct seq_file *sf, void *v)
{
	(void)sf;
	(void)v;
	return 0;
}

int blkg_print_stat_ios_recursive(struct seq_file *sf, void *v)
{
	(void)sf;
	(void)v;
	return 0;
}

u64 blkg_stat_recursive_sum(struct blkcg_gq *blkg, struct blkcg_policy *pol, int off)
{
	(void)blkg;
	(void)pol;
	(void)off;
	return 0;
}

struct blkg_rwstat blkg_rwstat_recursive_sum(struct blkcg_gq *blkg, struct blkcg_policy *pol,
					     int off)
{
	struct blkg_rwstat sum;

	(void)blkg;
	(void)pol;
	(void)off;
	blkg_rwstat_init(&sum, 0);
	return sum;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

char *strim(char *s)
{
	size_t n = strlen(s);

	while (n && is_space(s[n - 1]))
		s[--n] = 0;
	while (is_space(*s))
		s++;
	return s;
}

/* A literal prefix (spaces match any run of them) and %llu or %u conversions. */
int sscanf(const char *str, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	va_start(ap, fmt);
	while (*fmt) {
		if (*fmt == '%') {
			bool ll = fmt[1] == 'l' && fmt[2] == 'l';
			char *end;
			unsigned long v;

			fmt += ll ? 3 : 1;
			if (*fmt != 'u')
				break;
			fmt++;
			v = oracle_host_strtoul(str, &end, 10);
			if (end == str)
				break;
			str = end;
			if (ll)
				*va_arg(ap, unsigned long long *) = v;
			else
				*va_arg(ap, unsigned int *) = (unsigned int)v;
			n++;
		} else if (is_space(*fmt)) {
			while (is_space(*str))
				str++;
			fmt++;
		} else if (*fmt++ != *str++) {
			break;
		}
	}
	va_end(ap);
	return n;
}

/* The groups' cgroups, fresh for each instance (a fresh boot): the root's policy data made
 * again, one child of the root per other group. */
static int blkcg_instance_init(struct world *w)
{
	INIT_HLIST_HEAD(&blkcg_root.blkg_list);
	for (int i = 0; i < BLKCG_MAX_POLS; i++)
		if (blkcg_policy[i] && blkcg_policy[i]->cpd_alloc_fn)
			blkcg_init_cpd(&blkcg_root, blkcg_policy[i]);
	w->blkcg = kcalloc(w->nr_groups, sizeof(*w->blkcg), GFP_KERNEL);
	if (!w->blkcg)
		return -1;
	w->blkcg[0] = &blkcg_root;
	for (uint32_t g = 1; g < w->nr_groups; g++)
		if (!(w->blkcg[g] = blkcg_create(&blkcg_root)))
			return -1;
	return 0;
}

/*
 * Writes a group's blkio.weight: the legacy "weight" file of each policy that has one, the
 * root's being its CFTYPE_ONLY_ON_ROOT one (cfq maps it to the root's leaf weight).
 */
static void blkcg_write_weight(struct world *w, uint32_t g, uint32_t weight)
{
	struct blkcg *blkcg = w->blkcg[g];

	for (int i = 0; i < BLKCG_MAX_POLS; i++) {
		struct cftype *cft = blkcg_policy[i] ? blkcg_policy[i]->legacy_cftypes : NULL;

		for (; cft && cft->name; cft++) {
			unsigned int skip = g ? CFTYPE_ONLY_ON_ROOT : CFTYPE_NOT_ON_ROOT;

			if (strcmp(cft->name, "weight") || (cft->flags & skip) || !cft->write_u64)
				continue;
			cft->write_u64(&blkcg->css, cft, weight);
		}
	}
}

#else
/* The blkio controller before 4.2 (oracle_legacy_old.h). */
#include "sq_blkcg_old.c"
#endif /* ORACLE_BLKCG_OLD */

#if ORACLE_KVER >= KV(3, 0)
static void set_current_group(struct world *w, uint32_t g)
{
	current_blkcg = w->blkcg[g < w->nr_groups ? g : 0];
}
#endif

/* ---- block/blk-ioc.c ------------------------------------------------------------------------ */

#if ORACLE_KVER >= KV(3, 2)
struct io_cq *ioc_lookup_icq(struct io_context *ioc, struct request_queue *q)
{
	struct io_cq *icq = ioc->icq_hint;

	if (icq && icq->q == q)
		return icq;
	hlist_for_each_entry(icq, &ioc->icq_list, ioc_node) if (icq->q == q)
	{
		ioc->icq_hint = icq;
		return icq;
	}
	return NULL;
}

static struct io_cq *ioc_create_icq(struct world *w, struct io_context *ioc)
{
	struct io_cq *icq = kmem_cache_alloc(w->e->icq_cache, GFP_KERNEL);

	if (!icq)
		return NULL;
	icq->ioc = ioc;
	icq->q = &w->q;
	INIT_LIST_HEAD(&icq->q_node);
	INIT_HLIST_NODE(&icq->ioc_node);
	hlist_add_head(&icq->ioc_node, &ioc->icq_list);
	if (ORACLE_SQ_OPS(w->e)->elevator_init_icq_fn)
		ORACLE_SQ_OPS(w->e)->elevator_init_icq_fn(icq);
	return icq;
}
#endif

static unsigned short ioprio_of(const struct sched_request *srq)
{
	if (srq->prio_class == SCHED_IOPRIO_CLASS_NONE)
		return IOPRIO_DEFAULT;
	return (unsigned short)IOPRIO_PRIO_VALUE(srq->prio_class, srq->prio_level);
}

/* create_io_context() for the owner's process (refcount, active_ref, nr_tasks 1) and its
 * ioprio as ioprio_set() left it. */
static struct io_context *owner_ioc(struct world *w, uint32_t owner, unsigned short ioprio)
{
	struct io_context *ioc = w->ioc[owner];

	if (!ioc) {
		ioc = w->ioc[owner] = kzalloc(sizeof(*ioc), GFP_KERNEL);
		atomic_long_set(&ioc->refcount, 1);
		atomic_set(&ioc->nr_tasks, 1);
		atomic_set(&ioc->active_ref, 1);
		INIT_HLIST_HEAD(&ioc->icq_list);
		ioc->oracle_owner = owner;
#if ORACLE_KVER < KV(3, 2)
		ioc_init_26(ioc);
		ioc->ioprio = ioprio;
#endif
	}
#if ORACLE_KVER < KV(3, 2)
	/* set_task_ioprio(): the scheduler sees the change at the next request. */
	if (ioc->ioprio != ioprio)
		ioc->ioprio_changed = 1;
#endif
	ioc->ioprio = ioprio;
	return ioc;
}

/* The task that submits: its pid is the owner (the embedded policy's queue ids), its
 * io_context, its cgroup. */
static void set_current(struct world *w, uint32_t owner, uint32_t group, unsigned short ioprio)
{
	current->pid = (pid_t)owner;
	current->io_context = owner_ioc(w, owner, ioprio);
	current->ioprio = ioprio;
	set_current_group(w, group);
}

/* ---- the policy ops ------------------------------------------------------------------------- */

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

static const struct elevator_ops *sqops(const struct world *w)
{
	return ORACLE_SQ_OPS(w->e);
}

static int k_init(void *st, const struct sched_config *cfg, const struct sched_device *dev,
		  uint64_t now)
{
	struct kstate *ks = st;
	const struct sched_policy_ops *eops = sched_policy_ops(cfg->policy);
	struct world *w;

	ks->ops = &ORACLE_VSYM(ops);
	/* The file's module_init (blkcg policy, elv_register) once; the previous instance, if
	 * any, ends here. */
	if (!oracle_rt.elv_type && ORACLE_VSYM(module_init)())
		return -1;
	oracle_rt_reset(now);
	oracle_rt.bio_merge_ok = mc_bio_merge_ok;
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -1;
	ks->w = w;
	w->e = oracle_rt.elv_type;
	w->cfg = cfg;
	w->dev = dev;
	w->nr_owners = cfg->max_entities;
	w->nr_groups = cfg->max_groups ? cfg->max_groups : 1;
	w->ioc = kcalloc(w->nr_owners, sizeof(*w->ioc), GFP_KERNEL);
	if (!w->ioc)
		return -1;
	INIT_LIST_HEAD(&w->q.queue_head);
	INIT_LIST_HEAD(&w->q.blkg_list);
	w->q.queue_lock = &w->q.__queue_lock;
	w->q.nr_requests = dev->nr_requests;
	w->q.node = NUMA_NO_NODE;
	w->q.oracle = w;
	if (!dev->rotational)
		blk_queue_flag_set(QUEUE_FLAG_NONROT, &w->q);
	if (sched_trace_on(dev->trace)) {
		oracle_rt.trace = trace_sink;
		oracle_rt.trace_ctx = w;
	}
	if (blkcg_instance_init(w))
		return -1;
#if ORACLE_KVER < KV(3, 0)
	/* elevator_init(): the queue's elevator_queue, the file's data from its init. */
	w->q.elevator = elevator_alloc(&w->q, w->e);
	if (!w->q.elevator)
		return -1;
	w->q.elevator->elevator_data = sqops(w)->elevator_init_fn(&w->q);
	if (!w->q.elevator->elevator_data)
		return -1;
#else
	current_blkcg = NULL;
	/* blkcg_init_queue(): the root blkg, before any policy is active on the queue. */
	w->q.root_blkg = blkg_create(&blkcg_root, &w->q);
	if (!w->q.root_blkg)
		return -1;
	/* elevator_init(), then elv_register_queue(). */
	if (sqops(w)->elevator_init_fn(&w->q, w->e))
		return -1;
	if (sqops(w)->elevator_registered_fn)
		sqops(w)->elevator_registered_fn(&w->q);
#endif
	/* The groups' weights, then the tunables given, through the file's own handlers. */
	for (uint32_t g = 0; g < w->nr_groups && g < SCHED_MAX_GROUPS; g++)
		blkcg_write_weight(w, g, cfg->group_weight[g]);
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
		opf |= REQ_META | REQ_PRIO; /* filesystems tag metadata with both */
#ifdef REQ_NOIDLE
	/* Before 4.10 a sync write said it would not be followed soon (WRITE_SYNC), an O_DIRECT
	 * one did not (WRITE_ODIRECT): what 4.10's REQ_IDLE says the other way round. */
	if (srq->op == SCHED_OP_WRITE && (srq->flags & (SCHED_RQ_SYNC | SCHED_RQ_IDLE)) == SCHED_RQ_SYNC)
		opf |= REQ_NOIDLE;
#endif
	return opf;
}

static bool k_may_queue_must(void *st, uint32_t owner, bool sync)
{
	struct world *w = ((struct kstate *)st)->w;
	struct io_context *ioc = owner < w->nr_owners ? w->ioc[owner] : NULL;

	if (!sqops(w)->elevator_may_queue_fn || !ioc)
		return false; /* no io_context yet: no icq, ELV_MQUEUE_MAY */
	current->pid = (pid_t)owner;
	current->io_context = ioc;
	return sqops(w)->elevator_may_queue_fn(&w->q, REQ_OP_WRITE | (sync ? REQ_SYNC : 0)) ==
	       ELV_MQUEUE_MUST;
}

/* The task's bio for srq (generic_make_request_checks(): the task's io_context; 3.x on its
 * cgroup's blkg, blkcg_bio_issue_check()). */
static void bio_of(struct world *w, struct sched_request *srq, struct bio *bio)
{
	set_current(w, srq->owner, srq->group, ioprio_of(srq));
	bio->bi_opf = opf_of(srq);
	bio->bi_ioprio = ioprio_of(srq);
	bio->bi_iter.bi_sector = srq->offset >> 9;
	bio->bi_iter.bi_size = (unsigned int)srq->length;
	bio->bi_ioc = current->io_context;
#if ORACLE_KVER < KV(3, 14)
	bio->bi_sector = bio->bi_iter.bi_sector;
#endif
#if ORACLE_KVER >= KV(3, 0)
	blkg_lookup_create(bio_blkcg(bio), &w->q);
#endif
}

/*
 * The request for srq (get_request(), blk_init_request_from_bio()), with the elevator's data
 * (elevator_set_req_fn) unless it is a data-less flush; NULL for such a flush, which is put on
 * the dispatch list (ELEVATOR_INSERT_FLUSH) at once.
 */
static struct request *get_request(struct world *w, struct sched_request *srq)
{
	struct kreq *kr = kzalloc(sizeof(*kr), GFP_KERNEL);
	struct request_queue *q = &w->q;
	struct request *rq = &kr->rq;
#if ORACLE_KVER >= KV(3, 2)
	struct io_cq *icq;
#endif

	kr->srq = srq;
	srq->priv.queue = kr;
	bio_of(w, srq, &kr->bio);
	rq->oracle_rq = srq;
	rq->q = q;
	rq->cmd_flags = kr->bio.bi_opf;
	rq->__sector = kr->bio.bi_iter.bi_sector;
	rq->__data_len = kr->bio.bi_iter.bi_size;
	rq->ioprio = kr->bio.bi_ioprio;
	rq->bio = rq->biotail = &kr->bio;
	rq->nr_phys_segments = (unsigned short)mc_segments(rq->__sector, rq->__data_len);
	rq->tag = -1;
	rq->internal_tag = -1;
	rq->start_time_ns = ktime_get_ns(); /* blk_rq_init(), at allocation */
	rq->oracle_start_jiffies = jiffies; /* the same, where the kernel counted it in jiffies */
	INIT_LIST_HEAD(&rq->queuelist);
	RB_CLEAR_NODE(&rq->rb_node);
	INIT_HLIST_NODE(&rq->hash);
	if (op_is_flush(rq->cmd_flags) && !blk_rq_bytes(rq)) {
		/* No elevator data for a flush; ELEVATOR_INSERT_FLUSH: blk_insert_flush() issues
		 * the flush machinery's request on the dispatch list, which stands for it here. */
		rq->rq_flags |= RQF_SOFTBARRIER | RQF_FLUSH_SEQ;
		list_add_tail(&rq->queuelist, &q->queue_head);
		return NULL;
	}
	/* __get_request(): the elevator's private data. */
	rq->rq_flags |= RQF_ELVPRIV;
#if ORACLE_KVER < KV(3, 2)
	/* 2.6.x: the scheduler finds (or makes) the task's cfq_io_context itself and takes an
	 * io_context reference for the request. */
	if (sqops(w)->elevator_set_req_fn && sqops(w)->elevator_set_req_fn(q, rq, GFP_NOIO))
		WARN_ON(1); /* cannot fail here (allocation is not modelled) */
#else
	icq = ioc_lookup_icq(current->io_context, q);
	if (!icq && w->e->icq_cache)
		icq = ioc_create_icq(w, current->io_context);
	rq->elv.icq = icq;
	if (sqops(w)->elevator_set_req_fn &&
	    sqops(w)->elevator_set_req_fn(q, rq, &kr->bio, GFP_NOIO)) {
		/* Cannot fail here (allocation is not modelled): it would be a bug of ours. */
		WARN_ON(1);
	}
	if (icq)
		get_io_context(icq->ioc);
#endif
	return rq;
}

/* __elv_add_request(q, rq, ELEVATOR_INSERT_SORT). */
static void elv_insert_sort(struct world *w, struct request *rq)
{
	struct request_queue *q = &w->q;

	rq->rq_flags |= RQF_SORTED;
	q->nr_sorted++;
	if (rq_mergeable(rq)) {
		elv_rqhash_add(q, rq);
		if (!q->last_merge)
			q->last_merge = rq;
	}
	sqops(w)->elevator_add_req_fn(q, rq);
}

static void k_insert(void *st, struct sched_request *srq, uint64_t now)
{
	struct world *w = ((struct kstate *)st)->w;
	struct request *rq;

	oracle_rt_set_now(now);
	rq = get_request(w, srq);
	if (rq)
		elv_insert_sort(w, rq);
}

/* blk_free_request(): the elevator's data and the icq's io_context reference go with it. */
static void free_request(struct world *w, struct request *rq)
{
	if (!(rq->rq_flags & RQF_ELVPRIV))
		return;
	if (sqops(w)->elevator_put_req_fn)
		sqops(w)->elevator_put_req_fn(rq);
#if ORACLE_KVER >= KV(3, 2)
	if (rq->elv.icq)
		put_io_context(rq->elv.icq->ioc);
#endif
	rq->rq_flags &= ~RQF_ELVPRIV;
}

/* __blk_put_request() of a request merged away: never started, so elv_completed_request()
 * tells the elevator nothing (blk_account_rq()); then blk_free_request(). Its memory stays
 * (its bio is on the request it joined) until the instance ends; the simulator never completes
 * it. */
static void mc_free(struct request_queue *q, struct request *rq)
{
	struct kreq *kr = container_of(rq, struct kreq, rq);

	free_request(q->oracle, rq);
	if (kr->srq)
		kr->srq->priv.queue = NULL;
	kr->srq = NULL;
}

/* blk_queue_bio() / __make_request() before a request is allocated: the elevator's merge
 * (the plug was tried in blk/ before, as blk_attempt_plug_merge() is). */
static bool k_core_bio_merge(void *st, struct sched_request *srq,
			     const struct sched_merge_limits *l, uint64_t now,
			     struct sched_merge_out *out)
{
	struct world *w = ((struct kstate *)st)->w;
	struct bio *bio;
	bool ret;

	if (l->nomerges >= 2)
		return false;
	oracle_rt_set_now(now);
	bio = kzalloc(sizeof(*bio), GFP_KERNEL);
	if (!bio)
		return false;
	bio_of(w, srq, bio);
	mc_begin(l, out);
	ret = mc_sq_bio_merge(&w->q, bio);
	mc_end();
	return ret;
}

/* An insertion: ELEVATOR_INSERT_SORT, or from a plug ELEVATOR_INSERT_SORT_MERGE
 * (blk_flush_plug_list(): elv_attempt_insert_merge() first; merged, the request is freed). */
static bool k_core_insert(void *st, struct sched_request *srq, bool plugged,
			  const struct sched_merge_limits *l, uint64_t now,
			  struct sched_merge_out *out)
{
	struct world *w = ((struct kstate *)st)->w;
	struct request *rq;

	oracle_rt_set_now(now);
	mc_begin(l, out);
	rq = get_request(w, srq);
	if (rq && !(plugged && mc_sq_attempt_insert_merge(&w->q, rq)))
		elv_insert_sort(w, rq);
	mc_end();
	return mc.merged;
}

static struct sched_request *k_dispatch(void *st, uint64_t now)
{
	struct world *w = ((struct kstate *)st)->w;
	struct request_queue *q = &w->q;
	struct request *rq;

	oracle_rt_set_now(now);
	/* __elv_next_request(). */
	for (;;) {
		if (!list_empty(&q->queue_head)) {
			rq = list_first_entry(&q->queue_head, struct request, queuelist);
			break;
		}
		if (!sqops(w)->elevator_dispatch_fn(q, 0))
			return NULL;
	}
	/* blk_peek_request(): the first time the driver sees it. */
	if (!(rq->rq_flags & RQF_STARTED)) {
		if ((rq->rq_flags & RQF_SORTED) && sqops(w)->elevator_activate_req_fn)
			sqops(w)->elevator_activate_req_fn(q, rq);
		rq->rq_flags |= RQF_STARTED;
	}
	if (!q->boundary_rq || q->boundary_rq == rq) {
		q->end_sector = blk_rq_pos(rq) + blk_rq_sectors(rq);
		q->boundary_rq = NULL;
	}
	/* blk_start_request(): dequeued, in flight. */
	list_del_init(&rq->queuelist);
	q->in_flight[rq_is_sync(rq)]++;
	rq->io_start_time_ns = ktime_get_ns();
	return rq->oracle_rq;
}

static bool k_completed(void *st, struct sched_request *srq, uint64_t now)
{
	struct world *w = ((struct kstate *)st)->w;
	struct kreq *kr = srq->priv.queue;
	struct request *rq = &kr->rq;

	oracle_rt_set_now(now);
	/* elv_completed_request(): every request here was started (blk_account_rq()). */
	w->q.in_flight[rq_is_sync(rq)]--;
	if ((rq->rq_flags & RQF_SORTED) && sqops(w)->elevator_completed_req_fn)
		sqops(w)->elevator_completed_req_fn(&w->q, rq);
	free_request(w, rq);
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
	const struct world *w = ((const struct kstate *)st)->w;

	return !list_empty(&w->q.queue_head) || w->q.nr_sorted;
}

/* exit_io_context() -> put_io_context_active(): the last active reference goes, each icq of
 * the io_context not yet exited is (ioc_exit_icq()). */
static void k_entity_exit(void *st, uint32_t owner, uint64_t now)
{
	struct world *w = ((struct kstate *)st)->w;
	struct io_context *ioc;
#if ORACLE_KVER >= KV(3, 2)
	struct io_cq *icq;
#endif

	oracle_rt_set_now(now);
	if (owner >= w->nr_owners || !(ioc = w->ioc[owner]))
		return;
#if ORACLE_KVER < KV(3, 2)
	oracle_exit_io_context(ioc);
	w->ioc[owner] = NULL;
	return;
#else
	atomic_dec(&ioc->nr_tasks);
	if (!atomic_dec_and_test(&ioc->active_ref))
		return;
	hlist_for_each_entry(icq, &ioc->icq_list, ioc_node)
	{
		if (icq->flags & ICQ_EXITED)
			continue;
		if (sqops(w)->elevator_exit_icq_fn)
			sqops(w)->elevator_exit_icq_fn(icq);
		icq->flags |= ICQ_EXITED;
	}
	put_io_context(ioc);
	/* The io_context lives on while requests hold it; the owner's next I/O is a new
	 * process's, with its own. */
	w->ioc[owner] = NULL;
#endif
}

static void k_set_group_weight(void *st, uint32_t group, uint32_t weight)
{
	struct world *w = ((struct kstate *)st)->w;

	if (group < w->nr_groups)
		blkcg_write_weight(w, group, weight);
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
    .blk_mode = SCHED_BLK_LEGACY,
    .state_size = k_state_size,
    .init = k_init,
    .insert = k_insert,
    .dispatch = k_dispatch,
    .completed = k_completed,
    .next_timer = k_next_timer,
    .timer = k_timer,
    .has_work = k_has_work,
    .entity_exit = k_entity_exit,
    .set_group_weight = k_set_group_weight,
    .may_queue_must = k_may_queue_must,
    .tunable_value = k_tunable_value,
    .core_bio_merge = k_core_bio_merge,
    .core_insert = k_core_insert,
};
