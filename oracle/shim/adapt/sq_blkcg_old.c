// SPDX-License-Identifier: GPL-2.0
/*
 * block/blk-cgroup.c before 4.2, for the legacy adapter (included by adapt/sq.c when the
 * variant's configuration defines ORACLE_BLKCG_OLD): the core allocates each policy's data per
 * blkg (pd_size, zeroed) and hands the policy the blkg (pd_init_fn(blkg)); cfq's weights are
 * fields of struct blkcg, 500 by default and 1000 for the root (blkcg_css_alloc()); cfq itself
 * calls blkg_lookup_create() when it makes a queue, and blk_throtl_bio() (CONFIG_BLK_DEV_THROTTLING,
 * as distributions built these kernels) did at each bio of a cgroup without a blkg on the queue,
 * which the adapter's insert stands for. Same hierarchy as the 4.2+ half: the root and one child
 * of it per group.
 */

struct blkcg blkcg_root;
static struct blkcg_policy *blkcg_policy[BLKCG_MAX_POLS];
static struct blkcg *current_blkcg; /* the submitting task's cgroup (set_current()) */
static u64 css_serial_next;

struct blkcg *bio_blkcg(struct bio *bio)
{
	(void)bio;
	return current_blkcg ? current_blkcg : &blkcg_root;
}

static void blkcg_root_init(void)
{
	blkcg_root.css.cgroup = &blkcg_root.cgroup;
	if (!blkcg_root.css.serial_nr)
		blkcg_root.css.serial_nr = ++css_serial_next;
	blkcg_root.cfq_weight = 2 * CFQ_WEIGHT_DEFAULT;
	blkcg_root.cfq_leaf_weight = 2 * CFQ_WEIGHT_DEFAULT;
	INIT_HLIST_HEAD(&blkcg_root.blkg_list);
}

int blkcg_policy_register(struct blkcg_policy *pol)
{
	int i;

	for (i = 0; i < BLKCG_MAX_POLS && blkcg_policy[i]; i++)
		;
	if (i == BLKCG_MAX_POLS)
		return -ENOSPC;
	pol->plid = i;
	blkcg_policy[i] = pol;
	blkcg_root_init();
	return 0;
}

void blkcg_policy_unregister(struct blkcg_policy *pol)
{
	if (blkcg_policy[pol->plid] == pol)
		blkcg_policy[pol->plid] = NULL;
}

static bool blkcg_policy_enabled(struct request_queue *q, const struct blkcg_policy *pol)
{
	struct world *w = q->oracle;

	return pol && test_bit(pol->plid, &w->blkcg_pols);
}

/* blkcg_css_alloc(): a child of parent with cfq's default weights. */
static struct blkcg *blkcg_create(struct blkcg *parent)
{
	struct blkcg *blkcg = kzalloc(sizeof(*blkcg), GFP_KERNEL);

	if (!blkcg)
		return NULL;
	blkcg->css.cgroup = &blkcg->cgroup;
	blkcg->css.parent = &parent->css;
	blkcg->css.serial_nr = ++css_serial_next;
	blkcg->id = css_serial_next - blkcg_root.css.serial_nr;
	blkcg->cgroup.parent = &parent->cgroup;
	blkcg->cfq_weight = CFQ_WEIGHT_DEFAULT;
	blkcg->cfq_leaf_weight = CFQ_WEIGHT_DEFAULT;
	INIT_HLIST_HEAD(&blkcg->blkg_list);
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

static struct blkg_policy_data *pd_alloc(const struct blkcg_policy *pol, struct blkcg_gq *blkg)
{
	struct blkg_policy_data *pd = kzalloc(pol->pd_size, GFP_NOWAIT);

	if (pd) {
		pd->blkg = blkg;
		pd->plid = pol->plid;
	}
	return pd;
}

/* blkg_alloc() (each enabled policy's pd_size, zeroed) + blkg_create(): the parent's blkg,
 * pd_init_fn, linked, pd_online_fn. */
static struct blkcg_gq *blkg_create(struct blkcg *blkcg, struct request_queue *q)
{
	struct blkcg_gq *blkg = kzalloc(sizeof(*blkg), GFP_KERNEL);

	if (!blkg)
		return NULL;
	blkg->q = q;
	INIT_LIST_HEAD(&blkg->q_node);
	INIT_HLIST_NODE(&blkg->blkcg_node);
	blkg->blkcg = blkcg;
	blkg->refcnt = 1;
	for (int i = 0; i < BLKCG_MAX_POLS; i++) {
		if (!blkcg_policy_enabled(q, blkcg_policy[i]))
			continue;
		if (!(blkg->pd[i] = pd_alloc(blkcg_policy[i], blkg)))
			return NULL;
	}
	if (blkcg_parent(blkcg)) {
		blkg->parent = blkg_lookup(blkcg_parent(blkcg), q);
		if (WARN_ON_ONCE(!blkg->parent))
			return NULL;
		blkg_get(blkg->parent);
	}
	for (int i = 0; i < BLKCG_MAX_POLS; i++)
		if (blkg->pd[i] && blkcg_policy[i]->pd_init_fn)
			blkcg_policy[i]->pd_init_fn(blkg);
	hlist_add_head(&blkg->blkcg_node, &blkcg->blkg_list);
	list_add(&blkg->q_node, &q->blkg_list);
	for (int i = 0; i < BLKCG_MAX_POLS; i++)
		if (blkg->pd[i] && blkcg_policy[i]->pd_online_fn)
			blkcg_policy[i]->pd_online_fn(blkg);
	blkg->online = true;
	return blkg;
}

/* blkg_lookup_create(): the missing blkgs from the root down, the topmost first. */
struct blkcg_gq *blkg_lookup_create(struct blkcg *blkcg, struct request_queue *q)
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

/* blkcg_activate_policy(): the policy's data on each existing blkg (the root's), pd_init_fn. */
int blkcg_activate_policy(struct request_queue *q, const struct blkcg_policy *pol)
{
	struct world *w = q->oracle;
	struct blkcg_gq *blkg;

	if (blkcg_policy_enabled(q, pol))
		return 0;
	list_for_each_entry(blkg, &q->blkg_list, q_node)
	{
		if (blkg->pd[pol->plid])
			continue;
		if (!(blkg->pd[pol->plid] = pd_alloc(pol, blkg)))
			return -ENOMEM;
		if (pol->pd_init_fn)
			pol->pd_init_fn(blkg);
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
			pol->pd_offline_fn(blkg);
		if (pol->pd_exit_fn)
			pol->pd_exit_fn(blkg);
		kfree(blkg->pd[pol->plid]);
		blkg->pd[pol->plid] = NULL;
	}
}

int blkg_conf_prep(struct blkcg *blkcg, const struct blkcg_policy *pol, const char *input,
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
	return rwstat->cnt[BLKG_RWSTAT_READ] + rwstat->cnt[BLKG_RWSTAT_WRITE];
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

u64 blkg_stat_recursive_sum(struct blkg_policy_data *pd, int off)
{
	(void)pd;
	(void)off;
	return 0;
}

struct blkg_rwstat blkg_rwstat_recursive_sum(struct blkg_policy_data *pd, int off)
{
	struct blkg_rwstat sum;

	(void)pd;
	(void)off;
	blkg_rwstat_init(&sum);
	return sum;
}

/* The groups' cgroups, fresh for each instance: the root, one child of it per other group. */
static int blkcg_instance_init(struct world *w)
{
	blkcg_root_init();
	w->blkcg = kcalloc(w->nr_groups, sizeof(*w->blkcg), GFP_KERNEL);
	if (!w->blkcg)
		return -1;
	w->blkcg[0] = &blkcg_root;
	for (uint32_t g = 1; g < w->nr_groups; g++)
		if (!(w->blkcg[g] = blkcg_create(&blkcg_root)))
			return -1;
	return 0;
}

/* A group's blkio.weight: the policy's "weight" file, the root's being its ONLY_ON_ROOT one. */
static void blkcg_write_weight(struct world *w, uint32_t g, uint32_t weight)
{
	struct blkcg *blkcg = w->blkcg[g];

	for (int i = 0; i < BLKCG_MAX_POLS; i++) {
		struct cftype *cft = blkcg_policy[i] ? blkcg_policy[i]->cftypes : NULL;

		for (; cft && cft->name; cft++) {
			unsigned int skip = g ? CFTYPE_ONLY_ON_ROOT : CFTYPE_NOT_ON_ROOT;

			if (strcmp(cft->name, "weight") || (cft->flags & skip) || !cft->write_u64)
				continue;
			cft->write_u64(&blkcg->css, cft, weight);
		}
	}
}
