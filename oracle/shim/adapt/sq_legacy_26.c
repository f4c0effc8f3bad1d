// SPDX-License-Identifier: GPL-2.0
/*
 * The 2.6.3x block core around cfq-iosched.c, for the legacy adapter (included by adapt/sq.c for
 * a variant with ORACLE_KVER < KV(3, 0)), after 2.6.3x's blk-ioc.c and blk-cgroup.c:
 *
 *  - io contexts: the task's io_context (refcount, nr_tasks) holds the scheduler's own
 *    cfq_io_contexts in a radix tree keyed by the scheduler instance (cfq_cic_link()); the last
 *    put_io_context() calls their dtor, a task's exit (exit_io_context(), nr_tasks to 0) their
 *    exit hook. The radix tree is a list here: an io_context holds one key per queue, and there
 *    is one queue.
 *  - 2.6.36's blkio controller: one blkio_cgroup per group (the root's is blkio_root_cgroup,
 *    2 x BLKIO_WEIGHT_DEFAULT until written), cfq's groups linked in their cgroup's list by
 *    cfq's key (blkiocg_add_blkio_group()), the weight from the cgroup (blkcg_get_weight(): no
 *    per-device rules here), and blkio.weight's write (blkiocg_weight_write(): 100..1000, each
 *    group of the cgroup told through the policy's update hook). 2.6.32 had none: its requests
 *    all go to cfq's one service tree whatever the group.
 */

/* ---- radix tree (a list) -------------------------------------------------------------------- */
struct oracle_radix_node {
	unsigned long index;
	void *item;
	struct oracle_radix_node *next;
};

void *radix_tree_lookup(struct radix_tree_root *root, unsigned long index)
{
	for (struct oracle_radix_node *n = root->head; n; n = n->next)
		if (n->index == index)
			return n->item;
	return NULL;
}

int radix_tree_insert(struct radix_tree_root *root, unsigned long index, void *item)
{
	struct oracle_radix_node *n;

	if (radix_tree_lookup(root, index))
		return -EEXIST;
	n = kzalloc(sizeof(*n), GFP_ATOMIC);
	if (!n)
		return -ENOMEM;
	n->index = index;
	n->item = item;
	n->next = root->head;
	root->head = n;
	return 0;
}

void *radix_tree_delete(struct radix_tree_root *root, unsigned long index)
{
	for (struct oracle_radix_node **p = &root->head; *p; p = &(*p)->next)
		if ((*p)->index == index) {
			struct oracle_radix_node *n = *p;
			void *item = n->item;

			*p = n->next;
			kfree(n);
			return item;
		}
	return NULL;
}

/* The weight_device parser's sscanf: no disk here has a name, so nothing is ever parsed. */
int sscanf(const char *str, const char *fmt, ...)
{
	(void)str;
	(void)fmt;
	return 0;
}

/* ---- io contexts -------------------------------------------------------------------------- */
struct io_context *oracle_get_io_context(void)
{
	struct io_context *ioc = current->io_context;

	if (ioc)
		atomic_long_inc(&ioc->refcount);
	return ioc;
}

/* put_io_context(): the last reference calls each cfq_io_context's dtor (cfq_dtor()), which
 * unlinks and frees them all. */
void oracle_put_io_context(struct io_context *ioc)
{
	if (!ioc || !atomic_long_dec_and_test(&ioc->refcount))
		return;
	if (ioc->cic_list.first) {
		struct cfq_io_context *cic =
		    hlist_entry(ioc->cic_list.first, struct cfq_io_context, cic_list);

		cic->dtor(ioc);
	}
}

/* exit_io_context(): the task is gone; with the last task of the io_context, the scheduler's
 * exit hook runs for each of its cfq_io_contexts (cfq_exit()), then the task's reference goes. */
static void oracle_exit_io_context(struct io_context *ioc)
{
	if (atomic_dec_and_test(&ioc->nr_tasks) && ioc->cic_list.first) {
		struct cfq_io_context *cic =
		    hlist_entry(ioc->cic_list.first, struct cfq_io_context, cic_list);

		cic->exit(ioc);
	}
	oracle_put_io_context(ioc);
}

/* A new process's io_context (alloc_io_context()), with the ioprio it set; a changed ioprio is
 * seen by the scheduler at its next request (ioprio_changed, set_task_ioprio()). */
static void ioc_init_26(struct io_context *ioc)
{
	INIT_RADIX_TREE(&ioc->radix_root, GFP_ATOMIC);
	INIT_HLIST_HEAD(&ioc->cic_list);
	ioc->ioc_data = NULL;
}

#ifdef CONFIG_CFQ_GROUP_IOSCHED
/* ---- 2.6.36's blkio controller (block/blk-cgroup.c) ---------------------------------------- */
#include "blk-cgroup.h" /* the kernel's own, beside the file (variants.txt) */

struct oracle_blkio {
	struct blkio_cgroup blkcg;
	struct cgroup cgroup;
};

struct blkio_cgroup blkio_root_cgroup = { .weight = 2 * BLKIO_WEIGHT_DEFAULT };
static struct cgroup blkio_root_cgroup_cg;
static struct blkio_policy_type *blkio_policy;
static struct cgroup *current_cgroup; /* the submitting task's (set_current()) */

struct cgroup *task_cgroup(struct task_struct *task, int subsys_id)
{
	(void)task;
	(void)subsys_id;
	return current_cgroup ? current_cgroup : &blkio_root_cgroup_cg;
}

struct blkio_cgroup *cgroup_to_blkio_cgroup(struct cgroup *cgroup)
{
	if (cgroup == &blkio_root_cgroup_cg)
		return &blkio_root_cgroup;
	return &container_of(cgroup, struct oracle_blkio, cgroup)->blkcg;
}

void blkio_policy_register(struct blkio_policy_type *blkiop)
{
	blkio_policy = blkiop;
}

void blkio_policy_unregister(struct blkio_policy_type *blkiop)
{
	if (blkio_policy == blkiop)
		blkio_policy = NULL;
}

void blkiocg_add_blkio_group(struct blkio_cgroup *blkcg, struct blkio_group *blkg, void *key,
			     dev_t dev)
{
	blkg->key = key;
	blkg->dev = dev;
	blkg->path[0] = 0;
	hlist_add_head(&blkg->blkcg_node, &blkcg->blkg_list);
}

int blkiocg_del_blkio_group(struct blkio_group *blkg)
{
	if (hlist_unhashed(&blkg->blkcg_node))
		return 1;
	hlist_del_init(&blkg->blkcg_node);
	return 0;
}

struct blkio_group *blkiocg_lookup_group(struct blkio_cgroup *blkcg, void *key)
{
	struct blkio_group *blkg;
	struct hlist_node *n;

	hlist_for_each_entry(blkg, n, &blkcg->blkg_list, blkcg_node) if (blkg->key == key) return
	    blkg;
	return NULL;
}

unsigned int blkcg_get_weight(struct blkio_cgroup *blkcg, dev_t dev)
{
	(void)dev; /* no per-device rules (blkio.weight_device) here */
	return blkcg->weight;
}

/* The groups' cgroups, fresh for each instance: the root, one child of it per other group. */
static int blkcg_instance_init(struct world *w)
{
	blkio_root_cgroup.weight = 2 * BLKIO_WEIGHT_DEFAULT;
	INIT_HLIST_HEAD(&blkio_root_cgroup.blkg_list);
	blkio_root_cgroup.css.cgroup = &blkio_root_cgroup_cg;
	current_cgroup = NULL;
	w->blkio = kcalloc(w->nr_groups, sizeof(*w->blkio), GFP_KERNEL);
	if (!w->blkio)
		return -1;
	for (uint32_t g = 1; g < w->nr_groups; g++) {
		struct oracle_blkio *b = kzalloc(sizeof(*b), GFP_KERNEL);

		if (!b)
			return -1;
		b->blkcg.weight = BLKIO_WEIGHT_DEFAULT;
		b->blkcg.css.cgroup = &b->cgroup;
		b->cgroup.parent = &blkio_root_cgroup_cg;
		INIT_HLIST_HEAD(&b->blkcg.blkg_list);
		w->blkio[g] = b;
	}
	return 0;
}

static struct blkio_cgroup *world_blkcg(struct world *w, uint32_t g)
{
	return g && g < w->nr_groups ? &w->blkio[g]->blkcg : &blkio_root_cgroup;
}

/* blkiocg_weight_write(): 100..1000 (else -EINVAL, nothing changes), the cgroup's weight, and
 * each group of it on a queue told (blkio_update_group_weight_fn). */
static void blkcg_write_weight(struct world *w, uint32_t g, uint32_t weight)
{
	struct blkio_cgroup *blkcg = world_blkcg(w, g);
	struct blkio_group *blkg;
	struct hlist_node *n;

	if (weight < BLKIO_WEIGHT_MIN || weight > BLKIO_WEIGHT_MAX)
		return;
	blkcg->weight = weight;
	hlist_for_each_entry(blkg, n, &blkcg->blkg_list, blkcg_node) if (blkio_policy)
	    blkio_policy->ops.blkio_update_group_weight_fn(blkg, weight);
}

static void set_current_group(struct world *w, uint32_t g)
{
	current_cgroup = g && g < w->nr_groups ? &w->blkio[g]->cgroup : NULL;
}
#else
/* 2.6.32: no blkio controller; every task is in the one root cgroup cfq never asks about. */
static int blkcg_instance_init(struct world *w)
{
	(void)w;
	return 0;
}

static void blkcg_write_weight(struct world *w, uint32_t g, uint32_t weight)
{
	(void)w;
	(void)g;
	(void)weight;
}

static void set_current_group(struct world *w, uint32_t g)
{
	(void)w;
	(void)g;
}
#endif /* CONFIG_CFQ_GROUP_IOSCHED */
