/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The legacy block core of the 3.x and early 4.x kernels as their scheduler files see it, beyond
 * oracle_block.h and oracle_legacy.h: included by the configuration of a variant cut from such a
 * kernel (config/cfq_4_1.h), which defines ORACLE_BLKCG_OLD first.
 *
 *  - The blkio controller before 4.2 (block/blk-cgroup.h was block-local): the block core
 *    allocates a policy's data per blkg (blkcg_policy.pd_size) and calls pd_init_fn() and friends
 *    with the blkg; cfq's weights live in struct blkcg itself (cfq_weight, cfq_leaf_weight, 500
 *    by default, 1000 for the root); blkg_lookup_create() is called by cfq; blkg_conf_ctx carries
 *    the parsed value; the statistics merge without the aux counters.
 *  - Requests and bios before 4.8/4.10: bio->bi_rw, rw_is_sync(rw), REQ_NOIDLE (a sync write
 *    that will not be followed soon: WRITE_SYNC; an O_DIRECT write, WRITE_ODIRECT, did not carry
 *    it, which 4.10 turned into REQ_IDLE), rq->start_time in jiffies, PAGE_CACHE_SIZE,
 *    __GFP_WAIT.
 *
 * Written for this project from the kernel's documented interfaces; the runtime (policy
 * registration, blkg creation, the weight files) is the legacy adapter's (adapt/sq.c).
 */
#ifndef ORACLE_LEGACY_OLD_H
#define ORACLE_LEGACY_OLD_H

#include "oracle_legacy.h"

#ifndef ORACLE_BLKCG_OLD
#error "oracle_legacy_old.h: the variant's configuration defines ORACLE_BLKCG_OLD"
#endif

/* ---- bios and requests ------------------------------------------------------------------- */
#define bi_rw bi_opf
#undef rw_is_sync
#define rw_is_sync(rw) op_is_sync(rw)
/* The adapter sets it on a sync write without REQ_IDLE (what 4.10's inversion mapped). */
#define REQ_NOIDLE (1u << 30)
#define PAGE_CACHE_SIZE PAGE_SIZE
#define __GFP_WAIT 0x10u
#define might_sleep_if(c) ((void)(c))
#define rq_start_time_ns(rq) ((rq)->start_time_ns)
#define rq_io_start_time_ns(rq) ((rq)->io_start_time_ns)
/* elv_rq_merge_ok(): blk_rq_merge_ok() and the elevator's allow_merge, what 4.8 renamed
 * elv_bio_merge_ok() (the adapter's merge core: adapt/merge_core.c). */
static inline bool elv_rq_merge_ok(struct request *rq, struct bio *bio)
{
	return elv_bio_merge_ok(rq, bio);
}
/* rq->start_time (jiffies, set by blk_rq_init()): kept beside the request by the adapter. */
#define start_time oracle_start_jiffies

/* ---- the blkio controller before 4.2 ------------------------------------------------------ */
#define CFQ_WEIGHT_MIN 10
#define CFQ_WEIGHT_MAX 1000
#define CFQ_WEIGHT_DEFAULT 500
#define BLKCG_MAX_POLS 2

enum blkg_rwstat_type {
	BLKG_RWSTAT_READ,
	BLKG_RWSTAT_WRITE,
	BLKG_RWSTAT_SYNC,
	BLKG_RWSTAT_ASYNC,
	BLKG_RWSTAT_NR,
	BLKG_RWSTAT_TOTAL = BLKG_RWSTAT_NR,
};

struct blkg_stat {
	uint64_t cnt;
};
struct blkg_rwstat {
	uint64_t cnt[BLKG_RWSTAT_NR];
};

struct blkcg_gq;
struct blkcg {
	struct cgroup_subsys_state css;
	spinlock_t lock;
	struct hlist_head blkg_list;
	unsigned int cfq_weight; /* belongs to cfq */
	unsigned int cfq_leaf_weight;
	u64 id; /* before 4.1's css.serial_nr: 0 for the root, then 1, 2... (blkcg_css_alloc()) */
	struct cgroup cgroup; /* the cgroup whose css this is */
};

struct blkg_policy_data {
	struct blkcg_gq *blkg;
	int plid;
};

struct blkcg_gq {
	struct request_queue *q;
	struct list_head q_node;
	struct hlist_node blkcg_node;
	struct blkcg *blkcg;
	struct blkcg_gq *parent;
	int refcnt;
	bool online;
	struct blkg_policy_data *pd[BLKCG_MAX_POLS];
};

typedef void(blkcg_pol_init_pd_fn)(struct blkcg_gq *blkg);
typedef void(blkcg_pol_online_pd_fn)(struct blkcg_gq *blkg);
typedef void(blkcg_pol_offline_pd_fn)(struct blkcg_gq *blkg);
typedef void(blkcg_pol_exit_pd_fn)(struct blkcg_gq *blkg);
typedef void(blkcg_pol_reset_pd_stats_fn)(struct blkcg_gq *blkg);

struct blkcg_policy {
	int plid;
	size_t pd_size; /* the policy's data, allocated by the core per blkg */
	struct cftype *cftypes;
	blkcg_pol_init_pd_fn *pd_init_fn;
	blkcg_pol_online_pd_fn *pd_online_fn;
	blkcg_pol_offline_pd_fn *pd_offline_fn;
	blkcg_pol_exit_pd_fn *pd_exit_fn;
	blkcg_pol_reset_pd_stats_fn *pd_reset_stats_fn;
};

extern struct blkcg blkcg_root;

int blkcg_policy_register(struct blkcg_policy *pol);
void blkcg_policy_unregister(struct blkcg_policy *pol);
int blkcg_activate_policy(struct request_queue *q, const struct blkcg_policy *pol);
void blkcg_deactivate_policy(struct request_queue *q, const struct blkcg_policy *pol);
struct blkcg_gq *blkg_lookup(struct blkcg *blkcg, struct request_queue *q);
struct blkcg_gq *blkg_lookup_create(struct blkcg *blkcg, struct request_queue *q);
struct blkcg *bio_blkcg(struct bio *bio);

static inline struct blkcg *css_to_blkcg(struct cgroup_subsys_state *css)
{
	return css ? container_of(css, struct blkcg, css) : NULL;
}
static inline struct blkcg *blkcg_parent(struct blkcg *blkcg)
{
	return css_to_blkcg(blkcg->css.parent);
}
static inline struct blkg_policy_data *blkg_to_pd(struct blkcg_gq *blkg, struct blkcg_policy *pol)
{
	return blkg ? blkg->pd[pol->plid] : NULL;
}
static inline struct blkcg_gq *pd_to_blkg(struct blkg_policy_data *pd)
{
	return pd ? pd->blkg : NULL;
}
/* The cgroup's path names the group in cfq_log lines only (not compared): its serial. */
static inline int blkg_path(struct blkcg_gq *blkg, char *buf, int buflen)
{
	if (buflen > 0)
		buf[0] = 0;
	(void)blkg;
	return 0;
}
static inline void blkg_get(struct blkcg_gq *blkg)
{
	WARN_ON_ONCE(blkg->refcnt <= 0);
	blkg->refcnt++;
}
/* The base reference stays until the queue or cgroup goes, which no run sees. */
static inline void blkg_put(struct blkcg_gq *blkg)
{
	WARN_ON_ONCE(blkg->refcnt <= 1);
	blkg->refcnt--;
}

static inline void blkg_stat_init(struct blkg_stat *stat)
{
	stat->cnt = 0;
}
static inline void blkg_stat_add(struct blkg_stat *stat, uint64_t val)
{
	stat->cnt += val;
}
static inline uint64_t blkg_stat_read(struct blkg_stat *stat)
{
	return stat->cnt;
}
static inline void blkg_stat_reset(struct blkg_stat *stat)
{
	stat->cnt = 0;
}
static inline void blkg_stat_merge(struct blkg_stat *to, struct blkg_stat *from)
{
	to->cnt += from->cnt;
}
static inline void blkg_rwstat_init(struct blkg_rwstat *rwstat)
{
	for (int i = 0; i < BLKG_RWSTAT_NR; i++)
		rwstat->cnt[i] = 0;
}
static inline void blkg_rwstat_add(struct blkg_rwstat *rwstat, int rw, uint64_t val)
{
	rwstat->cnt[op_is_write((unsigned int)rw) ? BLKG_RWSTAT_WRITE : BLKG_RWSTAT_READ] += val;
	rwstat->cnt[op_is_sync((unsigned int)rw) ? BLKG_RWSTAT_SYNC : BLKG_RWSTAT_ASYNC] += val;
}
static inline uint64_t blkg_rwstat_total(struct blkg_rwstat *rwstat)
{
	return rwstat->cnt[BLKG_RWSTAT_READ] + rwstat->cnt[BLKG_RWSTAT_WRITE];
}
static inline void blkg_rwstat_reset(struct blkg_rwstat *rwstat)
{
	blkg_rwstat_init(rwstat);
}
static inline void blkg_rwstat_merge(struct blkg_rwstat *to, struct blkg_rwstat *from)
{
	for (int i = 0; i < BLKG_RWSTAT_NR; i++)
		to->cnt[i] += from->cnt[i];
}

/* Statistics and per-device files: never read or written here (as oracle_legacy.h says). */
struct gendisk;
struct blkg_conf_ctx {
	struct gendisk *disk;
	struct blkcg_gq *blkg;
	u64 v;
};
int blkg_conf_prep(struct blkcg *blkcg, const struct blkcg_policy *pol, const char *input,
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
u64 blkg_stat_recursive_sum(struct blkg_policy_data *pd, int off);
struct blkg_rwstat blkg_rwstat_recursive_sum(struct blkg_policy_data *pd, int off);

#endif
