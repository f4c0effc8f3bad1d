/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The legacy block core of 2.6.3x as cfq-iosched.c saw it, beyond oracle_block.h (whose 2.6
 * parts are under ORACLE_KVER < KV(3, 0): the elevator ops, the io_context with its radix tree
 * of cfq_io_contexts, the request's elevator_private words, elv_rb_add()'s alias) and
 * oracle_legacy.h: included by the configuration of a 2.6 variant (config/cfq_2_6_*.h).
 *
 *  - Requests and bios: REQ_NOIDLE (a sync write that will not be followed soon: WRITE_SYNC;
 *    an O_DIRECT write, WRITE_ODIRECT, did not carry it), rq_noidle(), bio_rw_flagged(), the
 *    FIFO time in the request (rq_set_fifo_time()), rq->start_time in jiffies.
 *  - The io context's ioprio as the task set it (task_ioprio(), task_ioprio_class()).
 *  - The little kernel machinery CFQ managed its cfq_io_contexts with: a radix tree keyed by the
 *    scheduler instance, an ida for that key (2.6.36), per-cpu counters, a completion.
 *  - 2.6.36's blkio controller: its block/blk-cgroup.h is the kernel's own, copied beside the
 *    file (variants.txt); task_cgroup() and the registration live in the adapter
 *    (adapt/sq_legacy_26.c). 2.6.32 had no blkio controller.
 *
 * Written for this project from the kernel's documented interfaces.
 */
#ifndef ORACLE_LEGACY_26_H
#define ORACLE_LEGACY_26_H

#include "oracle_legacy.h"

#if ORACLE_KVER >= KV(3, 0)
#error "oracle_legacy_26.h is for 2.6.x variants"
#endif

typedef u32 dev_t;

/* ---- bios and requests ------------------------------------------------------------------- */
#define bi_rw bi_opf
#undef rw_is_sync
#define rw_is_sync(rw) op_is_sync(rw)
#define REQ_NOIDLE (1u << 30) /* set by the adapter on a sync write without REQ_IDLE */
#define rq_noidle(rq) ((rq)->cmd_flags & REQ_NOIDLE)
/* 2.6.32 tested the bio's flag bits by number. */
#define BIO_RW_SYNCIO __REQ_SYNC
#define bio_rw_flagged(bio, flag) (((bio)->bi_opf & (1u << (flag))) != 0)
#define rq_fifo_time(rq) ((unsigned long)(rq)->fifo_time)
#define rq_set_fifo_time(rq, exp) ((rq)->fifo_time = (exp))
#define start_time oracle_start_jiffies
#define rq_start_time_ns(rq) ((rq)->start_time_ns)
#define rq_io_start_time_ns(rq) ((rq)->io_start_time_ns)
#define PAGE_CACHE_SIZE PAGE_SIZE
#define __GFP_WAIT 0x10u
#define might_sleep_if(c) ((void)(c))
#define smp_read_barrier_depends() barrier()
/* elv_rq_merge_ok(): 2.6.3x's rq_mergeable(), same direction, the elevator's
 * elevator_allow_merge_fn (the adapter's merge core: adapt/merge_core.c). */
static inline int elv_rq_merge_ok(struct request *rq, struct bio *bio)
{
	return elv_bio_merge_ok(rq, bio);
}

/* ---- io priority as the task set it (2.6.x include/linux/ioprio.h) ------------------------ */
static inline int task_ioprio(struct io_context *ioc)
{
	if (ioprio_valid(ioc->ioprio))
		return IOPRIO_PRIO_DATA(ioc->ioprio);
	return IOPRIO_NORM;
}
static inline int task_ioprio_class(struct io_context *ioc)
{
	if (ioprio_valid(ioc->ioprio))
		return IOPRIO_PRIO_CLASS(ioc->ioprio);
	return IOPRIO_CLASS_BE;
}

/* ---- radix tree: a list, for the few keys one io_context holds (adapter) -------------------- */
#define INIT_RADIX_TREE(root, mask) ((root)->head = NULL)
void *radix_tree_lookup(struct radix_tree_root *root, unsigned long index);
int radix_tree_insert(struct radix_tree_root *root, unsigned long index, void *item);
void *radix_tree_delete(struct radix_tree_root *root, unsigned long index);
#define radix_tree_preload(gfp) ((void)(gfp), 0)
#define radix_tree_preload_end() ((void)0)

/* ---- ida: 2.6.36 keyed cfq_io_contexts by a per-instance index -------------------------- */
struct ida {
	int next;
};
#define DEFINE_IDA(name) struct ida name = {0}
#define ida_pre_get(ida, gfp) ((void)(gfp), 1)
static inline int ida_get_new(struct ida *ida, int *id)
{
	*id = ida->next++;
	return 0;
}
#define ida_remove(ida, id) ((void)(ida), (void)(id))
#define ida_destroy(ida) ((void)(ida))

/* ---- per-cpu counters (one CPU), completions (module exit only) ---------------------------- */
#define DEFINE_PER_CPU(type, name) type name
#define elv_ioc_count_inc(name) ((void)((name)++))
#define elv_ioc_count_dec(name) ((void)((name)--))
#define elv_ioc_count_read(name) (name)
struct completion {
	int done;
};
#define DECLARE_COMPLETION_ONSTACK(x) struct completion x = {0}
#define complete(c) ((void)((c)->done = 1))
#define wait_for_completion(c) ((void)(c))

/* ---- devices: a group's dev_t when its queue has a registered disk (never here) ----------- */
#define dev_name(d) ((void)(d), (const char *)NULL)
#define MKDEV(ma, mi) ((dev_t)(((ma) << 20) | (mi)))

/* No task here holds a filesystem's exclusive resources (a journal lock): cfq_prio_boost()
 * never boosts. */
#define has_fs_excl() 0
int sscanf(const char *str, const char *fmt, ...);

/* ---- cgroups (2.6.36): the submitting task's blkio cgroup --------------------------------- */
#define blkio_subsys_id 0
struct cgroup *task_cgroup(struct task_struct *task, int subsys_id);

#endif
