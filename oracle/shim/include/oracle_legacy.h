/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The legacy (single-queue, 4.19 and before) block core as its scheduler files see it, beyond
 * oracle_block.h: the block cgroup controller (include/linux/blk-cgroup.h and the cgroup bits it
 * leans on: blkcgs, their per-queue blkgs, the policy data a policy hangs on both, the
 * blkg_[rw]stat counters), the io context lookup (block/blk.h) and __blk_run_queue(). Included by
 * a variant's configuration (config/<id>.h); the runtime (policy registration and activation, blkg
 * creation, icq lookup) is the legacy adapter's (adapt/sq.c), as block/blk-cgroup.c and
 * blk-ioc.c are the block core's.
 *
 * The hierarchy is the simulator's: the root blkcg (group 0) and one child of it per group, on the
 * v1 (legacy) blkio hierarchy, where blkio.weight is the policy's legacy "weight" file. Written
 * for this project from the kernel's documented interfaces.
 */
#ifndef ORACLE_LEGACY_H
#define ORACLE_LEGACY_H

#include "oracle_kernel.h"

#if ORACLE_KVER < KV(5, 0)

/* include/linux/backing-dev-defs.h: the request lists' indexes. */
enum { BLK_RW_ASYNC = 0, BLK_RW_SYNC = 1 };

/* ---- cgroups: just the hierarchy and the v1/v2 question -------------------------------------- */
struct cgroup {
	struct cgroup *parent; /* NULL for the root */
};
struct cgroup_subsys_state {
	struct cgroup *cgroup;
	struct cgroup_subsys_state *parent;
	u64 serial_nr; /* unique per css over the instance (check_blkcg_changed) */
};
static inline bool cgroup_is_descendant(struct cgroup *cgrp, struct cgroup *ancestor)
{
	for (; cgrp; cgrp = cgrp->parent)
		if (cgrp == ancestor)
			return true;
	return false;
}
/* The simulator's groups are on the v1 blkio hierarchy: blkio.weight, 10..1000. */
#define cgroup_subsys_on_dfl(ss) false
#define CGROUP_WEIGHT_MIN	 1
#define CGROUP_WEIGHT_DFL	 100
#define CGROUP_WEIGHT_MAX	 10000

/* cgroup interface files. The oracle writes blkio.weight (write_u64) and reads no file. */
#define CFTYPE_ONLY_ON_ROOT (1 << 0)
#define CFTYPE_NOT_ON_ROOT  (1 << 1)
struct seq_file {
	struct cgroup_subsys_state *css;
	struct cftype *cft;
};
struct kernfs_open_file {
	struct cgroup_subsys_state *css;
};
struct cftype {
	const char *name;
	unsigned long private;
	unsigned int flags;
	int (*seq_show)(struct seq_file *sf, void *v);
	u64 (*read_u64)(struct cgroup_subsys_state *css, struct cftype *cft);
	int (*write_u64)(struct cgroup_subsys_state *css, struct cftype *cft, u64 val);
	ssize_t (*write)(struct kernfs_open_file *of, char *buf, size_t nbytes, loff_t off);
};
#define seq_css(sf) ((sf)->css)
#define seq_cft(sf) ((sf)->cft)
#define of_css(of)  ((of)->css)
/* Nothing reads the statistics files: what they print goes nowhere. */
static inline void seq_printf(struct seq_file *sf, const char *fmt, ...)
{
	(void)sf;
	(void)fmt;
}

/*
 * The blkio controller's interface from 4.2 on (policy data made by the policy's pd_alloc_fn,
 * per-blkcg policy data): a variant of an older kernel defines ORACLE_BLKCG_OLD in its
 * configuration and has the interface of its era from oracle_legacy_old.h instead.
 */
#if !defined(ORACLE_BLKCG_OLD) && ORACLE_KVER >= KV(3, 0)
/* ---- blkcg, blkg and the policy data (include/linux/blk-cgroup.h) ------------------------- */
#define BLKCG_MAX_POLS	    5
#define BLKG_STAT_CPU_BATCH (INT_MAX / 2)

enum blkg_rwstat_type {
	BLKG_RWSTAT_READ,
	BLKG_RWSTAT_WRITE,
	BLKG_RWSTAT_SYNC,
	BLKG_RWSTAT_ASYNC,
	BLKG_RWSTAT_DISCARD,
	BLKG_RWSTAT_NR,
	BLKG_RWSTAT_TOTAL = BLKG_RWSTAT_NR,
};

/* One CPU: the per-cpu counters are one count each. */
struct blkg_stat {
	atomic64_t cpu_cnt;
	atomic64_t aux_cnt;
};
struct blkg_rwstat {
	atomic64_t cpu_cnt[BLKG_RWSTAT_NR];
	atomic64_t aux_cnt[BLKG_RWSTAT_NR];
};

struct blkcg_gq;
struct blkcg_policy_data {
	struct blkcg *blkcg;
	int plid;
};
struct blkg_policy_data {
	struct blkcg_gq *blkg;
	int plid;
};

struct blkcg {
	struct cgroup_subsys_state css;
	spinlock_t lock;
	struct hlist_head blkg_list;
	struct blkcg_policy_data *cpd[BLKCG_MAX_POLS];
	struct cgroup cgroup; /* the cgroup whose css this is */
};

struct blkcg_gq {
	struct request_queue *q;
	struct list_head q_node;
	struct hlist_node blkcg_node;
	struct blkcg *blkcg;
	struct blkcg_gq *parent;
	atomic_t refcnt;
	bool online;
	struct blkg_rwstat stat_bytes;
	struct blkg_rwstat stat_ios;
	struct blkg_policy_data *pd[BLKCG_MAX_POLS];
};

typedef struct blkcg_policy_data *(blkcg_pol_alloc_cpd_fn)(gfp_t gfp);
typedef void(blkcg_pol_init_cpd_fn)(struct blkcg_policy_data *cpd);
typedef void(blkcg_pol_free_cpd_fn)(struct blkcg_policy_data *cpd);
typedef void(blkcg_pol_bind_cpd_fn)(struct blkcg_policy_data *cpd);
typedef struct blkg_policy_data *(blkcg_pol_alloc_pd_fn)(gfp_t gfp, int node);
typedef void(blkcg_pol_init_pd_fn)(struct blkg_policy_data *pd);
typedef void(blkcg_pol_online_pd_fn)(struct blkg_policy_data *pd);
typedef void(blkcg_pol_offline_pd_fn)(struct blkg_policy_data *pd);
typedef void(blkcg_pol_free_pd_fn)(struct blkg_policy_data *pd);
typedef void(blkcg_pol_reset_pd_stats_fn)(struct blkg_policy_data *pd);

struct blkcg_policy {
	int plid;
	struct cftype *dfl_cftypes;
	struct cftype *legacy_cftypes;
	blkcg_pol_alloc_cpd_fn *cpd_alloc_fn;
	blkcg_pol_init_cpd_fn *cpd_init_fn;
	blkcg_pol_free_cpd_fn *cpd_free_fn;
	blkcg_pol_bind_cpd_fn *cpd_bind_fn;
	blkcg_pol_alloc_pd_fn *pd_alloc_fn;
	blkcg_pol_init_pd_fn *pd_init_fn;
	blkcg_pol_online_pd_fn *pd_online_fn;
	blkcg_pol_offline_pd_fn *pd_offline_fn;
	blkcg_pol_free_pd_fn *pd_free_fn;
	blkcg_pol_reset_pd_stats_fn *pd_reset_stats_fn;
};

extern struct blkcg blkcg_root;
struct cgroup_subsys {
	int id;
};
extern struct cgroup_subsys io_cgrp_subsys;

int blkcg_policy_register(struct blkcg_policy *pol);
void blkcg_policy_unregister(struct blkcg_policy *pol);
int blkcg_activate_policy(struct request_queue *q, const struct blkcg_policy *pol);
void blkcg_deactivate_policy(struct request_queue *q, const struct blkcg_policy *pol);
struct blkcg_gq *blkg_lookup(struct blkcg *blkcg, struct request_queue *q);
/* The blkcg of a bio: the shim's bios carry no css, so it is the submitting task's cgroup, as
 * bio_blkcg() finds it for a bio without one (task_css(current, io_cgrp_id)). */
struct blkcg *bio_blkcg(struct bio *bio);

static inline struct blkcg *css_to_blkcg(struct cgroup_subsys_state *css)
{
	return css ? container_of(css, struct blkcg, css) : NULL;
}
static inline struct blkg_policy_data *blkg_to_pd(struct blkcg_gq *blkg, struct blkcg_policy *pol)
{
	return blkg ? blkg->pd[pol->plid] : NULL;
}
static inline struct blkcg_policy_data *blkcg_to_cpd(struct blkcg *blkcg, struct blkcg_policy *pol)
{
	return blkcg ? blkcg->cpd[pol->plid] : NULL;
}
static inline struct blkcg_gq *pd_to_blkg(struct blkg_policy_data *pd)
{
	return pd ? pd->blkg : NULL;
}
static inline struct blkcg *cpd_to_blkcg(struct blkcg_policy_data *cpd)
{
	return cpd ? cpd->blkcg : NULL;
}
static inline struct blkcg *blkcg_parent(struct blkcg *blkcg)
{
	return css_to_blkcg(blkcg->css.parent);
}
static inline void blkg_get(struct blkcg_gq *blkg)
{
	WARN_ON_ONCE(atomic_read(&blkg->refcnt) <= 0);
	atomic_inc(&blkg->refcnt);
}
/* A blkg holds its base reference until the queue or the cgroup goes, which no run sees: the
 * last put (__blkg_release_rcu()) does not come. */
static inline void blkg_put(struct blkcg_gq *blkg)
{
	WARN_ON_ONCE(atomic_read(&blkg->refcnt) <= 1);
	atomic_dec(&blkg->refcnt);
}

/* ---- blkg_[rw]stat ------------------------------------------------------------------------- */
static inline int blkg_stat_init(struct blkg_stat *stat, gfp_t gfp)
{
	(void)gfp;
	atomic64_set(&stat->cpu_cnt, 0);
	atomic64_set(&stat->aux_cnt, 0);
	return 0;
}
static inline void blkg_stat_exit(struct blkg_stat *stat)
{
	(void)stat;
}
static inline void blkg_stat_add(struct blkg_stat *stat, uint64_t val)
{
	atomic64_add((s64)val, &stat->cpu_cnt);
}
static inline uint64_t blkg_stat_read(struct blkg_stat *stat)
{
	return (uint64_t)atomic64_read(&stat->cpu_cnt);
}
static inline void blkg_stat_reset(struct blkg_stat *stat)
{
	atomic64_set(&stat->cpu_cnt, 0);
	atomic64_set(&stat->aux_cnt, 0);
}
static inline void blkg_stat_add_aux(struct blkg_stat *to, struct blkg_stat *from)
{
	atomic64_add(atomic64_read(&from->cpu_cnt) + atomic64_read(&from->aux_cnt), &to->aux_cnt);
}
static inline int blkg_rwstat_init(struct blkg_rwstat *rwstat, gfp_t gfp)
{
	(void)gfp;
	for (int i = 0; i < BLKG_RWSTAT_NR; i++) {
		atomic64_set(&rwstat->cpu_cnt[i], 0);
		atomic64_set(&rwstat->aux_cnt[i], 0);
	}
	return 0;
}
static inline void blkg_rwstat_exit(struct blkg_rwstat *rwstat)
{
	(void)rwstat;
}
static inline void blkg_rwstat_add(struct blkg_rwstat *rwstat, unsigned int op, uint64_t val)
{
	if (op_is_discard(op))
		atomic64_add((s64)val, &rwstat->cpu_cnt[BLKG_RWSTAT_DISCARD]);
	else if (op_is_write(op))
		atomic64_add((s64)val, &rwstat->cpu_cnt[BLKG_RWSTAT_WRITE]);
	else
		atomic64_add((s64)val, &rwstat->cpu_cnt[BLKG_RWSTAT_READ]);
	atomic64_add((s64)val,
		     &rwstat->cpu_cnt[op_is_sync(op) ? BLKG_RWSTAT_SYNC : BLKG_RWSTAT_ASYNC]);
}
static inline uint64_t blkg_rwstat_total(struct blkg_rwstat *rwstat)
{
	return (uint64_t)(atomic64_read(&rwstat->cpu_cnt[BLKG_RWSTAT_READ]) +
			  atomic64_read(&rwstat->cpu_cnt[BLKG_RWSTAT_WRITE]));
}
static inline void blkg_rwstat_reset(struct blkg_rwstat *rwstat)
{
	blkg_rwstat_init(rwstat, 0);
}
static inline void blkg_rwstat_add_aux(struct blkg_rwstat *to, struct blkg_rwstat *from)
{
	for (int i = 0; i < BLKG_RWSTAT_NR; i++)
		atomic64_add(atomic64_read(&from->cpu_cnt[i]) + atomic64_read(&from->aux_cnt[i]),
			     &to->aux_cnt[i]);
}

/*
 * The statistics and per-device weight files (blkcg_print_blkgs() and its prfill helpers,
 * blkg_conf_prep()): their handlers are in the files' cftype tables, so they are here, but the
 * oracle reads no statistics file and writes no per-device weight (rt: adapt/sq.c): they print
 * nothing, and blkg_conf_prep() refuses (-EOPNOTSUPP).
 */
struct gendisk;
struct blkg_conf_ctx {
	struct gendisk *disk;
	struct blkcg_gq *blkg;
	char *body;
};
int blkg_conf_prep(struct blkcg *blkcg, const struct blkcg_policy *pol, char *input,
		   struct blkg_conf_ctx *ctx);
void blkg_conf_finish(struct blkg_conf_ctx *ctx);
void blkcg_print_blkgs(struct seq_file *sf, struct blkcg *blkcg,
		       u64 (*prfill)(struct seq_file *, struct blkg_policy_data *, int),
		       const struct blkcg_policy *pol, int data, bool show_total);
u64 __blkg_prfill_u64(struct seq_file *sf, struct blkg_policy_data *pd, u64 v);
u64 __blkg_prfill_rwstat(struct seq_file *sf, struct blkg_policy_data *pd,
			 const struct blkg_rwstat *rwstat);
u64 blkg_prfill_stat(struct seq_file *sf, struct blkg_policy_data *pd, int off);
u64 blkg_prfill_rwstat(struct seq_file *sf, struct blkg_policy_data *pd, int off);
int blkg_print_stat_bytes(struct seq_file *sf, void *v);
int blkg_print_stat_ios(struct seq_file *sf, void *v);
int blkg_print_stat_bytes_recursive(struct seq_file *sf, void *v);
int blkg_print_stat_ios_recursive(struct seq_file *sf, void *v);
u64 blkg_stat_recursive_sum(struct blkcg_gq *blkg, struct blkcg_policy *pol, int off);
struct blkg_rwstat blkg_rwstat_recursive_sum(struct blkcg_gq *blkg, struct blkcg_policy *pol,
					     int off);
/* The weight_device parser's: a literal prefix then one %llu (or %u), what the files ask. */
int sscanf(const char *str, const char *fmt, ...);
char *strim(char *s);
#define simple_strtoull oracle_host_strtoul

#endif /* !ORACLE_BLKCG_OLD && >= 3.0 */

/* ---- io contexts (block/blk.h, block/blk-ioc.c) ----------------------------------------- */
#if ORACLE_KVER >= KV(3, 2)
struct io_cq *ioc_lookup_icq(struct io_context *ioc, struct request_queue *q);
#endif

/*
 * __blk_run_queue(): the driver's request_fn, at once, from inside the elevator (cfq on a request
 * its idling waited for, or after a preemption). The simulator runs the queue itself right after
 * each insertion, so the run is asked for (the one that follows the insertion).
 */
#define __blk_run_queue(q) oracle_run_hw_queues(q, false)

#endif /* ORACLE_KVER < KV(5, 0) */
#endif
