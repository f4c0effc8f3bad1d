/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kyber-iosched.c (6.12) uses beyond the common shim: per-CPU data (one CPU), timer_reduce(),
 * the device number its tracepoints print, and the merge helpers it calls (the simulator does not
 * merge). Its sbitmaps and wait queues are oracle_sbitmap.h (ORACLE_SBITMAP).
 */
#ifndef ORACLE_KYBER_H
#define ORACLE_KYBER_H

#include "oracle_kernel.h"

typedef u32 dev_t;
#define MAJOR(dev) ((unsigned int)((dev) >> 20))
#define MINOR(dev) ((unsigned int)((dev) & ((1U << 20) - 1)))
/* The shim's queue has no gendisk: the argument is never evaluated. */
#define disk_devt(disk) ((dev_t)0)

/* Per-CPU data: one CPU, so one copy. */
#define alloc_percpu_gfp(type, gfp) ((type *)kzalloc(sizeof(type), gfp))
#define alloc_percpu(type) alloc_percpu_gfp(type, GFP_KERNEL)
#define free_percpu(p) kfree(p)
#define per_cpu_ptr(p, cpu) ((void)(cpu), (p))
#define this_cpu_ptr(p) (p)
#define get_cpu_ptr(p) (p)
#define put_cpu_ptr(p) ((void)(p))

#ifndef atomic_xchg
#define atomic_xchg(v, n) xchg(&(v)->counter, (n))
#endif

/* timer_reduce(): arm the timer, or bring a pending one forward, never later. */
static inline int timer_reduce(struct timer_list *t, unsigned long expires)
{
	if (timer_pending(t) && !time_before(expires, t->expires))
		return 1;
	return mod_timer(t, expires);
}
#define timer_shutdown_sync(t) del_timer(t)

#ifndef kmalloc_array_node
#define kmalloc_array_node(c, n, f, node) kmalloc_array(c, n, f)
#endif

#define blk_stat_disable_accounting(q) ((void)(q))
/* kyber_bio_merge(): the one CPU's software queue. */
static inline struct blk_mq_ctx *blk_mq_get_ctx(struct request_queue *q)
{
	return q->oracle_ctx;
}
bool oracle_bio_list_merge(struct request_queue *q, struct list_head *list, struct bio *bio);
#define blk_bio_list_merge(q, list, bio, nr_segs) oracle_bio_list_merge(q, list, bio)

#endif
