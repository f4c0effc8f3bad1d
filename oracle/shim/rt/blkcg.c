// SPDX-License-Identifier: GPL-2.0
/*
 * block/blk-cgroup.c for the variants built with CONFIG_BLK_CGROUP (shim/config/): the policies
 * a file registers, the per-cgroup (blkcg) and per-(cgroup, queue) (blkg) data they get, with
 * the kernel's order of calls (cpd_alloc at cgroup creation; pd_alloc, pd_init, pd_online when
 * a blkg is made or the policy is activated on a queue), and the cgroup v2 files a policy
 * declares, written as a write(2) to them would be. Written for the shim after the 4.12 and
 * 6.12 behaviour of those functions. Cgroups live as long as the instance; nothing is removed
 * while it runs (no rmdir: the simulator's groups never go away).
 */
#include "oracle_kernel.h"
#include "oracle_rt.h"

/* The blk-cgroup of blk-mq era files (oracle_bfq.h); the legacy files bring their own
 * (oracle_legacy.h). */
#if defined(CONFIG_BLK_CGROUP) && defined(ORACLE_BFQ_H)

/* Registered at module_init, once, and kept (as the module stays loaded). */
static struct blkcg_policy *blkcg_policy[BLKCG_MAX_POLS];
static u64 css_serial_nr_next; /* the instance's: oracle_blkcg_reset() */

void oracle_blkcg_reset(void)
{
	css_serial_nr_next = 1;
}

int blkcg_policy_register(struct blkcg_policy *pol)
{
	for (int i = 0; i < BLKCG_MAX_POLS; i++) {
		if (!blkcg_policy[i]) {
			pol->plid = i;
			blkcg_policy[i] = pol;
			return 0;
		}
	}
	return -ENOSPC;
}

void blkcg_policy_unregister(struct blkcg_policy *pol)
{
	if (blkcg_policy[pol->plid] == pol)
		blkcg_policy[pol->plid] = NULL;
}

struct blkcg *oracle_blkcg_create(struct blkcg *parent, const char *name)
{
	struct blkcg *blkcg = kzalloc(sizeof(*blkcg), GFP_KERNEL);
	struct cgroup *cgrp = kzalloc(sizeof(*cgrp), GFP_KERNEL);

	if (!blkcg || !cgrp)
		return NULL;
	cgrp->level = parent ? parent->css.cgroup->level + 1 : 0;
	oracle_host_snprintf(cgrp->name, sizeof(cgrp->name), "%s", parent ? name : "");
	blkcg->css.cgroup = cgrp;
	blkcg->css.parent = parent ? &parent->css : NULL;
	blkcg->css.serial_nr = css_serial_nr_next++;
	INIT_HLIST_HEAD(&blkcg->blkg_list);
	/* blkcg_css_alloc(): each registered policy's per-cgroup data. */
	for (int i = 0; i < BLKCG_MAX_POLS; i++) {
		struct blkcg_policy *pol = blkcg_policy[i];
		struct blkcg_policy_data *cpd;

		if (!pol || !pol->cpd_alloc_fn)
			continue;
		cpd = pol->cpd_alloc_fn(GFP_KERNEL);
		if (!cpd)
			return NULL;
		blkcg->cpd[i] = cpd;
		cpd->blkcg = blkcg;
		cpd->plid = i;
		if (pol->cpd_init_fn)
			pol->cpd_init_fn(cpd);
	}
	return blkcg;
}

struct blkcg_gq *blkg_lookup(struct blkcg *blkcg, struct request_queue *q)
{
	struct blkcg_gq *blkg;

	if (!blkcg)
		return NULL;
	hlist_for_each_entry(blkg, &blkcg->blkg_list, blkcg_node)
		if (blkg->q == q)
			return blkg;
	return NULL;
}

static struct blkg_policy_data *pd_alloc(struct blkcg_policy *pol, struct blkcg *blkcg,
					 struct request_queue *q)
{
#if ORACLE_KVER >= KV(6, 0)
	(void)blkcg;
	return pol->pd_alloc_fn(q->disk, blkcg, GFP_KERNEL);
#else
	(void)blkcg;
	return pol->pd_alloc_fn(GFP_KERNEL, q->node);
#endif
}

/* blkg_create(): the parent's blkg must exist; policies enabled on q get their data. */
static struct blkcg_gq *blkg_create(struct blkcg *blkcg, struct request_queue *q)
{
	struct blkcg_gq *blkg = kzalloc(sizeof(*blkg), GFP_KERNEL);

	if (!blkg)
		return NULL;
	blkg->q = q;
	blkg->blkcg = blkcg;
	INIT_LIST_HEAD(&blkg->q_node);
	INIT_HLIST_NODE(&blkg->blkcg_node);
	refcount_set(&blkg->refcnt, 1);
	for (int i = 0; i < BLKCG_MAX_POLS; i++) {
		struct blkcg_policy *pol = blkcg_policy[i];
		struct blkg_policy_data *pd;

		if (!pol || !test_bit(i, q->blkcg_pols))
			continue;
		pd = pd_alloc(pol, blkcg, q);
		if (!pd)
			return NULL;
		blkg->pd[i] = pd;
		pd->blkg = blkg;
		pd->plid = i;
		pd->online = false;
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
	for (int i = 0; i < BLKCG_MAX_POLS; i++) {
		if (!blkg->pd[i])
			continue;
		if (blkcg_policy[i]->pd_online_fn)
			blkcg_policy[i]->pd_online_fn(blkg->pd[i]);
		blkg->pd[i]->online = true;
	}
	blkg->online = true;
	return blkg;
}

struct blkcg_gq *oracle_blkg_lookup_create(struct blkcg *blkcg, struct request_queue *q)
{
	struct blkcg_gq *blkg = blkg_lookup(blkcg, q);

	if (blkg)
		return blkg;
	/* The closest ancestor first, then down to blkcg, as blkg_lookup_create() does. */
	if (blkcg_parent(blkcg) && !blkg_lookup(blkcg_parent(blkcg), q) &&
	    !oracle_blkg_lookup_create(blkcg_parent(blkcg), q))
		return NULL;
	return blkg_create(blkcg, q);
}

static int activate(struct request_queue *q, const struct blkcg_policy *pol)
{
	struct blkcg_gq *blkg;

	if (test_bit(pol->plid, q->blkcg_pols))
		return 0;
	/* Each existing blkg gets the policy's data, initialised and put online, from the
	 * oldest (the root) on, as blkcg_activate_policy() walks q->blkg_list in reverse. */
	list_for_each_entry_reverse(blkg, &q->blkg_list, q_node) {
		struct blkg_policy_data *pd;

		if (blkg->pd[pol->plid])
			continue;
		pd = pd_alloc(blkcg_policy[pol->plid], blkg->blkcg, q);
		if (!pd)
			return -ENOMEM;
		pd->blkg = blkg;
		pd->plid = pol->plid;
		blkg->pd[pol->plid] = pd;
		if (pol->pd_init_fn)
			pol->pd_init_fn(pd);
		if (pol->pd_online_fn)
			pol->pd_online_fn(pd);
		pd->online = true;
	}
	__set_bit(pol->plid, q->blkcg_pols);
	return 0;
}

static void deactivate(struct request_queue *q, const struct blkcg_policy *pol)
{
	struct blkcg_gq *blkg;

	if (!test_bit(pol->plid, q->blkcg_pols))
		return;
	__clear_bit(pol->plid, q->blkcg_pols);
	list_for_each_entry(blkg, &q->blkg_list, q_node) {
		struct blkg_policy_data *pd = blkg->pd[pol->plid];

		if (!pd)
			continue;
		if (pd->online && pol->pd_offline_fn)
			pol->pd_offline_fn(pd);
		pd->online = false;
		if (pol->pd_free_fn)
			pol->pd_free_fn(pd);
		blkg->pd[pol->plid] = NULL;
	}
}

#if ORACLE_KVER >= KV(6, 0)
int blkcg_activate_policy(struct gendisk *disk, const struct blkcg_policy *pol)
{
	return activate(disk->queue, pol);
}

void blkcg_deactivate_policy(struct gendisk *disk, const struct blkcg_policy *pol)
{
	deactivate(disk->queue, pol);
}
#else
int blkcg_activate_policy(struct request_queue *q, const struct blkcg_policy *pol)
{
	return activate(q, pol);
}

void blkcg_deactivate_policy(struct request_queue *q, const struct blkcg_policy *pol)
{
	deactivate(q, pol);
}
#endif

/* The bio goes to css's blkg on the queue of the blkg it has (the root's for the root). */
void bio_associate_blkg_from_css(struct bio *bio, struct cgroup_subsys_state *css)
{
	struct request_queue *q = bio->bi_blkg ? bio->bi_blkg->q : NULL;
	struct blkcg_gq *blkg;

	if (!q)
		return;
	blkg = css && css->parent ? oracle_blkg_lookup_create(css_to_blkcg(css), q) : q->root_blkg;
	if (!blkg)
		return;
	blkg_put(bio->bi_blkg);
	blkg_get(blkg);
	bio->bi_blkg = blkg;
}

int oracle_blkcg_write(struct blkcg *blkcg, const char *file, const char *buf)
{
	for (int i = 0; i < BLKCG_MAX_POLS; i++) {
		struct blkcg_policy *pol = blkcg_policy[i];

		if (!pol || !pol->dfl_cftypes)
			continue;
		for (struct cftype *cft = pol->dfl_cftypes; cft->name[0]; cft++) {
			char copy[64];
			ssize_t r;

			if (strcmp(cft->name, file))
				continue;
			if ((cft->flags & CFTYPE_NOT_ON_ROOT) && !blkcg->css.parent)
				return -ENOENT;
			if (cft->write) {
				struct kernfs_open_file of = {.oracle_css = &blkcg->css};

				oracle_host_snprintf(copy, sizeof(copy), "%s", buf);
				r = cft->write(&of, copy, strlen(copy), 0);
				return r < 0 ? (int)r : 0;
			}
			if (cft->write_u64)
				return cft->write_u64(&blkcg->css, cft,
						      oracle_host_strtoul(buf, NULL, 0));
			return -EINVAL;
		}
	}
	return -ENOENT;
}

/* What the oracle never does: read a cgroup's files, or write a per-device weight. */
void oracle_blkcg_unreachable(const char *what)
{
	oracle_host_bug(__FILE__, __LINE__, what);
}

struct cgroup_subsys_state *seq_css(struct seq_file *sf)
{
	(void)sf;
	oracle_blkcg_unreachable("seq_css: a cgroup file read");
}

struct cftype *seq_cft(struct seq_file *sf)
{
	(void)sf;
	oracle_blkcg_unreachable("seq_cft: a cgroup file read");
}

void seq_printf(struct seq_file *sf, const char *fmt, ...)
{
	(void)sf;
	(void)fmt;
	oracle_blkcg_unreachable("seq_printf: a cgroup file read");
}

u64 __blkg_prfill_u64(struct seq_file *sf, struct blkg_policy_data *pd, u64 v)
{
	(void)sf;
	(void)pd;
	(void)v;
	oracle_blkcg_unreachable("__blkg_prfill_u64: a cgroup file read");
}

#if ORACLE_KVER >= KV(5, 0)
u64 __blkg_prfill_rwstat(struct seq_file *sf, struct blkg_policy_data *pd,
			 const struct blkg_rwstat_sample *rwstat)
#else
u64 __blkg_prfill_rwstat(struct seq_file *sf, struct blkg_policy_data *pd,
			 const struct blkg_rwstat *rwstat)
#endif
{
	(void)sf;
	(void)pd;
	(void)rwstat;
	oracle_blkcg_unreachable("__blkg_prfill_rwstat: a cgroup file read");
}

u64 blkg_prfill_rwstat(struct seq_file *sf, struct blkg_policy_data *pd, int off)
{
	(void)sf;
	(void)pd;
	(void)off;
	oracle_blkcg_unreachable("blkg_prfill_rwstat: a cgroup file read");
}

u64 blkg_prfill_stat(struct seq_file *sf, struct blkg_policy_data *pd, int off)
{
	(void)sf;
	(void)pd;
	(void)off;
	oracle_blkcg_unreachable("blkg_prfill_stat: a cgroup file read");
}

#if ORACLE_KVER >= KV(5, 0)
void blkg_rwstat_recursive_sum(struct blkcg_gq *blkg, struct blkcg_policy *pol, int off,
			       struct blkg_rwstat_sample *sum)
{
	(void)blkg;
	(void)pol;
	(void)off;
	(void)sum;
	oracle_blkcg_unreachable("blkg_rwstat_recursive_sum: a cgroup file read");
}
#else
struct blkg_rwstat blkg_rwstat_recursive_sum(struct blkcg_gq *blkg, struct blkcg_policy *pol,
					     int off)
{
	(void)blkg;
	(void)pol;
	(void)off;
	oracle_blkcg_unreachable("blkg_rwstat_recursive_sum: a cgroup file read");
}

u64 blkg_stat_recursive_sum(struct blkcg_gq *blkg, struct blkcg_policy *pol, int off)
{
	(void)blkg;
	(void)pol;
	(void)off;
	oracle_blkcg_unreachable("blkg_stat_recursive_sum: a cgroup file read");
}

int blkg_print_stat_bytes(struct seq_file *sf, void *v)
{
	(void)sf;
	(void)v;
	oracle_blkcg_unreachable("blkg_print_stat_bytes: a cgroup file read");
}

int blkg_print_stat_ios(struct seq_file *sf, void *v)
{
	(void)sf;
	(void)v;
	oracle_blkcg_unreachable("blkg_print_stat_ios: a cgroup file read");
}

int blkg_print_stat_bytes_recursive(struct seq_file *sf, void *v)
{
	(void)sf;
	(void)v;
	oracle_blkcg_unreachable("blkg_print_stat_bytes_recursive: a cgroup file read");
}

int blkg_print_stat_ios_recursive(struct seq_file *sf, void *v)
{
	(void)sf;
	(void)v;
	oracle_blkcg_unreachable("blkg_print_stat_ios_recursive: a cgroup file read");
}
#endif

void blkg_conf_init(struct blkg_conf_ctx *ctx, char *input)
{
	(void)ctx;
	(void)input;
	oracle_blkcg_unreachable("blkg_conf_init: a per-device weight written");
}

int blkg_conf_prep(struct blkcg *blkcg, const struct blkcg_policy *pol, struct blkg_conf_ctx *ctx)
{
	(void)blkcg;
	(void)pol;
	(void)ctx;
	oracle_blkcg_unreachable("blkg_conf_prep: a per-device weight written");
}

void blkg_conf_exit(struct blkg_conf_ctx *ctx)
{
	(void)ctx;
	oracle_blkcg_unreachable("blkg_conf_exit: a per-device weight written");
}

#endif /* CONFIG_BLK_CGROUP */
