/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel interfaces the BFQ files (4.12 and 6.12) use beyond the common shim: the gendisk
 * and its independent access ranges (actuators), the plug-cached clock, the io_context lookups
 * of blk-mq 5.16+, and blk-cgroup (blkcg, blkg, the policy hooks, rwstat counters, the cgroup
 * files) for CONFIG_BFQ_GROUP_IOSCHED. Included by the bfq variants' configuration header
 * (shim/config/), after oracle_kernel.h. The blk-cgroup runtime is rt/blkcg.c.
 *
 * Written for this project from the kernel's interfaces (include/linux/blk-cgroup.h,
 * block/blk-cgroup.h, block/blk-cgroup-rwstat.h of the versions named); nothing is copied.
 */
#ifndef ORACLE_BFQ_H
#define ORACLE_BFQ_H

#include "oracle_kernel.h"

/* ---- kernel.h, ioprio.h odds ---------------------------------------------------------------- */
#define max3(a, b, c) max(max(a, b), c)
#define min3(a, b, c) min(min(a, b), c)
/* 6.x: the level is the low bits of the data (the rest are hints); this shim sets no hints. */
#define IOPRIO_LEVEL_NR_BITS 3
#define IOPRIO_LEVEL_MASK ((1 << IOPRIO_LEVEL_NR_BITS) - 1)
#define IOPRIO_PRIO_LEVEL(ioprio) ((ioprio)&IOPRIO_LEVEL_MASK)

/* ---- before 5.x ---------------------------------------------------------------------------- */
#define uninitialized_var(x) x = x
#define dev_err(dev, ...) ((void)0)
#define BLK_RW_ASYNC 0
#define BLK_RW_SYNC 1

/* ---- time ----------------------------------------------------------------------------------- */
/* blk_time_get_ns() (6.9+): the time cached in the task's plug, else ktime_get_ns(). Each of the
 * simulator's events happens at one instant, which is what a plug caches: the event's time. */
static inline u64 blk_time_get_ns(void)
{
	return (u64)ktime_get_ns();
}
static inline ktime_t blk_time_get(void)
{
	return ns_to_ktime(blk_time_get_ns());
}
#define rq_start_time_ns(rq) ((rq)->start_time_ns)
#define rq_io_start_time_ns(rq) ((rq)->io_start_time_ns)

/* ---- the disk ------------------------------------------------------------------------------- */
struct blk_independent_access_range {
	sector_t sector;
	sector_t nr_sectors;
};
struct blk_independent_access_ranges {
	unsigned int nr_ia_ranges;
	struct blk_independent_access_range ia_range[];
};
struct backing_dev_info;
struct gendisk {
	struct request_queue *queue;
	/* NULL: one actuator (the simulator's devices have no independent access ranges). */
	struct blk_independent_access_ranges *ia_ranges;
	/* The policy layer is not told the device's size; bfq reads it only to map sectors to
	 * actuators when there are several (bfq_actuator_index()). */
	sector_t capacity;
	int node_id;
	struct backing_dev_info *bdi;
};
static inline sector_t get_capacity(struct gendisk *disk)
{
	return disk->capacity;
}
#define bdi_dev_name(bdi) "oracle"
#define blk_stat_disable_accounting(q) ((void)(q))

/* ---- io contexts (block/blk.h 5.16+: the elevator finds or makes its icq; adapt/) ---------- */
#if ORACLE_KVER >= KV(5, 16)
struct io_cq *ioc_lookup_icq(struct request_queue *q);
struct io_cq *ioc_find_get_icq(struct request_queue *q);
#else
struct io_cq *ioc_lookup_icq(struct io_context *ioc, struct request_queue *q);
#endif

#ifdef CONFIG_BLK_CGROUP
/* ---- percpu counters: one CPU --------------------------------------------------------------- */
struct percpu_counter {
	s64 count;
};
static inline int percpu_counter_init(struct percpu_counter *c, s64 v, gfp_t gfp)
{
	(void)gfp;
	c->count = v;
	return 0;
}
#define percpu_counter_destroy(c) ((void)(c))
#define percpu_counter_add_batch(c, v, batch) ((void)((c)->count += (v)))
#define percpu_counter_add(c, v) ((void)((c)->count += (v)))
#define percpu_counter_set(c, v) ((void)((c)->count = (v)))
#define percpu_counter_sum(c) ((c)->count)
#define percpu_counter_sum_positive(c) ((c)->count > 0 ? (c)->count : 0)
#define percpu_counter_read_positive percpu_counter_sum_positive
#define atomic64_add_return(i, v) ((v)->counter += (i))

/* ---- cgroups -------------------------------------------------------------------------------- */
struct cgroup {
	int level;     /* the root is 0 */
	char name[16]; /* the simulator's group ("g1"), for log lines */
};
struct cgroup_subsys_state {
	struct cgroup *cgroup;
	struct cgroup_subsys_state *parent; /* NULL: the root */
	u64 serial_nr;			    /* unique, from 1, in creation order */
};
#define CGROUP_WEIGHT_MIN 1
#define CGROUP_WEIGHT_DFL 100
#define CGROUP_WEIGHT_MAX 10000
#define MAX_CFTYPE_NAME 64
#define CFTYPE_ONLY_ON_ROOT (1 << 0)
#define CFTYPE_NOT_ON_ROOT (1 << 1)
/* The simulator's groups are cgroup v2 ones (io.bfq.weight): the legacy statistics are off. */
#define cgroup_subsys_on_dfl(ss) true
struct seq_file;
struct kernfs_open_file {
	struct cgroup_subsys_state *oracle_css; /* the cgroup whose file this is */
};
#define of_css(of) ((of)->oracle_css)
struct cftype {
	char name[MAX_CFTYPE_NAME];
	unsigned long private;
	size_t max_write_len;
	unsigned int flags;
	int (*seq_show)(struct seq_file *sf, void *v);
	u64 (*read_u64)(struct cgroup_subsys_state *css, struct cftype *cft);
	int (*write_u64)(struct cgroup_subsys_state *css, struct cftype *cft, u64 val);
	ssize_t (*write)(struct kernfs_open_file *of, char *buf, size_t nbytes, loff_t off);
};
/* Reading a cgroup's files (statistics, weights) is not something the oracle does: these are
 * never reached (rt/blkcg.c, BUG()). */
struct cgroup_subsys_state *seq_css(struct seq_file *sf);
struct cftype *seq_cft(struct seq_file *sf);
void seq_printf(struct seq_file *sf, const char *fmt, ...) __printf(2, 3);
#define seq_puts(sf, s) seq_printf(sf, "%s", s)

/* ---- rwstat counters (6.x block/blk-cgroup-rwstat.h; 4.12 blk-cgroup.h) -------------------- */
enum blkg_rwstat_type {
	BLKG_RWSTAT_READ,
	BLKG_RWSTAT_WRITE,
	BLKG_RWSTAT_SYNC,
	BLKG_RWSTAT_ASYNC,
	BLKG_RWSTAT_DISCARD,
	BLKG_RWSTAT_NR,
	BLKG_RWSTAT_TOTAL = BLKG_RWSTAT_NR,
};
#define BLKG_STAT_CPU_BATCH (INT_MAX / 2)
struct blkg_rwstat {
	struct percpu_counter cpu_cnt[BLKG_RWSTAT_NR];
	atomic64_t aux_cnt[BLKG_RWSTAT_NR];
};
struct blkg_rwstat_sample {
	u64 cnt[BLKG_RWSTAT_NR];
};
struct blkg_stat { /* 4.12 */
	struct percpu_counter cpu_cnt;
	atomic64_t aux_cnt;
};
/* ---- blk-cgroup (6.x block/blk-cgroup.h; 4.12 include/linux/blk-cgroup.h) ------------------ */
#define BLKCG_MAX_POLS 6
struct blkcg_gq;
struct blkcg_policy_data {
	struct blkcg *blkcg;
	int plid;
};
struct blkg_policy_data {
	struct blkcg_gq *blkg;
	int plid;
	bool online; /* 5.x+ */
};
struct blkcg {
	struct cgroup_subsys_state css;
	spinlock_t lock;
	struct hlist_head blkg_list;
	struct blkcg_policy_data *cpd[BLKCG_MAX_POLS];
};
struct blkcg_gq {
	struct request_queue *q;
	struct list_head q_node;
	struct hlist_node blkcg_node;
	struct blkcg *blkcg;
	struct blkcg_gq *parent;
	refcount_t refcnt;
	bool online;
	struct blkg_policy_data *pd[BLKCG_MAX_POLS];
	struct blkg_rwstat stat_bytes, stat_ios; /* before 5.x (4.12's bfq prints them) */
};

typedef struct blkcg_policy_data *(blkcg_pol_alloc_cpd_fn)(gfp_t gfp);
typedef void(blkcg_pol_init_cpd_fn)(struct blkcg_policy_data *cpd);
typedef void(blkcg_pol_free_cpd_fn)(struct blkcg_policy_data *cpd);
typedef void(blkcg_pol_bind_cpd_fn)(struct blkcg_policy_data *cpd);
#if ORACLE_KVER >= KV(6, 0)
typedef struct blkg_policy_data *(blkcg_pol_alloc_pd_fn)(struct gendisk *disk,
							 struct blkcg *blkcg, gfp_t gfp);
#else
typedef struct blkg_policy_data *(blkcg_pol_alloc_pd_fn)(gfp_t gfp, int node);
#endif
typedef void(blkcg_pol_init_pd_fn)(struct blkg_policy_data *pd);
typedef void(blkcg_pol_online_pd_fn)(struct blkg_policy_data *pd);
typedef void(blkcg_pol_offline_pd_fn)(struct blkg_policy_data *pd);
typedef void(blkcg_pol_free_pd_fn)(struct blkg_policy_data *pd);
typedef void(blkcg_pol_reset_pd_stats_fn)(struct blkg_policy_data *pd);
typedef void(blkcg_pol_stat_pd_fn)(struct blkg_policy_data *pd, struct seq_file *s);
struct blkcg_policy {
	int plid;
	struct cftype *dfl_cftypes;
	struct cftype *legacy_cftypes;
	blkcg_pol_alloc_cpd_fn *cpd_alloc_fn;
	blkcg_pol_init_cpd_fn *cpd_init_fn; /* before 5.x */
	blkcg_pol_free_cpd_fn *cpd_free_fn;
	blkcg_pol_bind_cpd_fn *cpd_bind_fn; /* before 5.x */
	blkcg_pol_alloc_pd_fn *pd_alloc_fn;
	blkcg_pol_init_pd_fn *pd_init_fn;
	blkcg_pol_online_pd_fn *pd_online_fn;
	blkcg_pol_offline_pd_fn *pd_offline_fn;
	blkcg_pol_free_pd_fn *pd_free_fn;
	blkcg_pol_reset_pd_stats_fn *pd_reset_stats_fn;
	blkcg_pol_stat_pd_fn *pd_stat_fn;
};

int blkcg_policy_register(struct blkcg_policy *pol);
void blkcg_policy_unregister(struct blkcg_policy *pol);
#if ORACLE_KVER >= KV(6, 0)
int blkcg_activate_policy(struct gendisk *disk, const struct blkcg_policy *pol);
void blkcg_deactivate_policy(struct gendisk *disk, const struct blkcg_policy *pol);
#else
int blkcg_activate_policy(struct request_queue *q, const struct blkcg_policy *pol);
void blkcg_deactivate_policy(struct request_queue *q, const struct blkcg_policy *pol);
#endif
struct blkcg_gq *blkg_lookup(struct blkcg *blkcg, struct request_queue *q);
void bio_associate_blkg_from_css(struct bio *bio, struct cgroup_subsys_state *css);

static inline struct blkcg *css_to_blkcg(struct cgroup_subsys_state *css)
{
	return css ? container_of(css, struct blkcg, css) : NULL;
}
static inline struct blkcg *blkcg_parent(struct blkcg *blkcg)
{
	return css_to_blkcg(blkcg->css.parent);
}
static inline struct blkg_policy_data *blkg_to_pd(struct blkcg_gq *blkg,
						  struct blkcg_policy *pol)
{
	return blkg ? blkg->pd[pol->plid] : NULL;
}
static inline struct blkcg_policy_data *blkcg_to_cpd(struct blkcg *blkcg,
						     struct blkcg_policy *pol)
{
	return blkcg ? blkcg->cpd[pol->plid] : NULL;
}
static inline struct blkcg_gq *pd_to_blkg(struct blkg_policy_data *pd)
{
	return pd ? pd->blkg : NULL;
}
/* blkgs live as long as the instance (rt.c frees them with it): the count is kept, as the
 * kernel keeps it, but reaching zero frees nothing before the instance ends. */
#define blkg_get(blkg) refcount_inc(&(blkg)->refcnt)
#define blkg_put(blkg) refcount_dec(&(blkg)->refcnt)
/* 4.12: the blkcg a bio is charged to. */
static inline struct blkcg *bio_blkcg(struct bio *bio)
{
	return bio->bi_blkg ? bio->bi_blkg->blkcg : NULL;
}
/* blkg_path(): the cgroup's path, for log lines only (4.12's bfq_log_bfqq names the group). */
static inline int blkg_path(struct blkcg_gq *blkg, char *buf, int buflen)
{
	return oracle_host_snprintf(buf, (size_t)buflen, "/%s", blkg->blkcg->css.cgroup->name);
}
#define blkcg_print_blkgs(sf, blkcg, prfill, pol, data, show_total)                                \
	oracle_blkcg_unreachable("blkcg_print_blkgs")
#define blkg_for_each_descendant_pre(d_blkg, pos_css, p_blkg)                                      \
	for (oracle_blkcg_unreachable("blkg_for_each_descendant_pre"), (d_blkg) = (p_blkg),         \
	     (pos_css) = NULL;                                                                     \
	     0;)
void oracle_blkcg_unreachable(const char *what) __attribute__((noreturn));

static inline int blkg_rwstat_init(struct blkg_rwstat *rwstat, gfp_t gfp)
{
	for (int i = 0; i < BLKG_RWSTAT_NR; i++) {
		percpu_counter_init(&rwstat->cpu_cnt[i], 0, gfp);
		atomic64_set(&rwstat->aux_cnt[i], 0);
	}
	return 0;
}
#define blkg_rwstat_exit(rwstat) ((void)(rwstat))
static inline void blkg_rwstat_add(struct blkg_rwstat *rwstat, unsigned int opf, u64 val)
{
	if (op_is_discard(opf))
		percpu_counter_add(&rwstat->cpu_cnt[BLKG_RWSTAT_DISCARD], (s64)val);
	else if (op_is_write(opf))
		percpu_counter_add(&rwstat->cpu_cnt[BLKG_RWSTAT_WRITE], (s64)val);
	else
		percpu_counter_add(&rwstat->cpu_cnt[BLKG_RWSTAT_READ], (s64)val);
	if (op_is_sync(opf))
		percpu_counter_add(&rwstat->cpu_cnt[BLKG_RWSTAT_SYNC], (s64)val);
	else
		percpu_counter_add(&rwstat->cpu_cnt[BLKG_RWSTAT_ASYNC], (s64)val);
}
static inline void blkg_rwstat_read(struct blkg_rwstat *rwstat, struct blkg_rwstat_sample *result)
{
	for (int i = 0; i < BLKG_RWSTAT_NR; i++)
		result->cnt[i] = (u64)percpu_counter_sum_positive(&rwstat->cpu_cnt[i]);
}
static inline u64 blkg_rwstat_total(struct blkg_rwstat *rwstat)
{
	struct blkg_rwstat_sample tmp = {{0}};

	blkg_rwstat_read(rwstat, &tmp);
	return tmp.cnt[BLKG_RWSTAT_READ] + tmp.cnt[BLKG_RWSTAT_WRITE];
}
static inline void blkg_rwstat_reset(struct blkg_rwstat *rwstat)
{
	for (int i = 0; i < BLKG_RWSTAT_NR; i++) {
		percpu_counter_set(&rwstat->cpu_cnt[i], 0);
		atomic64_set(&rwstat->aux_cnt[i], 0);
	}
}
static inline void blkg_rwstat_add_aux(struct blkg_rwstat *to, struct blkg_rwstat *from)
{
	for (int i = 0; i < BLKG_RWSTAT_NR; i++)
		atomic64_add(percpu_counter_sum_positive(&from->cpu_cnt[i]) +
				 atomic64_read(&from->aux_cnt[i]),
			     &to->aux_cnt[i]);
}
static inline int blkg_stat_init(struct blkg_stat *stat, gfp_t gfp)
{
	percpu_counter_init(&stat->cpu_cnt, 0, gfp);
	atomic64_set(&stat->aux_cnt, 0);
	return 0;
}
#define blkg_stat_exit(stat) ((void)(stat))
#define blkg_stat_add(stat, val) percpu_counter_add(&(stat)->cpu_cnt, (s64)(val))
#define blkg_stat_read(stat) ((u64)percpu_counter_sum_positive(&(stat)->cpu_cnt))
static inline void blkg_stat_reset(struct blkg_stat *stat)
{
	percpu_counter_set(&stat->cpu_cnt, 0);
	atomic64_set(&stat->aux_cnt, 0);
}
static inline void blkg_stat_add_aux(struct blkg_stat *to, struct blkg_stat *from)
{
	atomic64_add(blkg_stat_read(from) + atomic64_read(&from->aux_cnt), &to->aux_cnt);
}
/* The cgroup files' printing helpers (never called: see seq_css()). */
u64 __blkg_prfill_u64(struct seq_file *sf, struct blkg_policy_data *pd, u64 v);
u64 blkg_prfill_rwstat(struct seq_file *sf, struct blkg_policy_data *pd, int off);
u64 blkg_prfill_stat(struct seq_file *sf, struct blkg_policy_data *pd, int off);
#if ORACLE_KVER >= KV(5, 0)
u64 __blkg_prfill_rwstat(struct seq_file *sf, struct blkg_policy_data *pd,
			 const struct blkg_rwstat_sample *rwstat);
void blkg_rwstat_recursive_sum(struct blkcg_gq *blkg, struct blkcg_policy *pol, int off,
			       struct blkg_rwstat_sample *sum);
#else
u64 __blkg_prfill_rwstat(struct seq_file *sf, struct blkg_policy_data *pd,
			 const struct blkg_rwstat *rwstat);
struct blkg_rwstat blkg_rwstat_recursive_sum(struct blkcg_gq *blkg, struct blkcg_policy *pol,
					     int off);
u64 blkg_stat_recursive_sum(struct blkcg_gq *blkg, struct blkcg_policy *pol, int off);
int blkg_print_stat_bytes(struct seq_file *sf, void *v);
int blkg_print_stat_ios(struct seq_file *sf, void *v);
int blkg_print_stat_bytes_recursive(struct seq_file *sf, void *v);
int blkg_print_stat_ios_recursive(struct seq_file *sf, void *v);
#endif
struct blkg_conf_ctx {
	char *input;
	char *body;
	struct block_device *bdev;
	struct blkcg_gq *blkg;
};
void blkg_conf_init(struct blkg_conf_ctx *ctx, char *input);
int blkg_conf_prep(struct blkcg *blkcg, const struct blkcg_policy *pol, struct blkg_conf_ctx *ctx);
void blkg_conf_exit(struct blkg_conf_ctx *ctx);

/* ---- strings the cgroup files parse --------------------------------------------------------- */
int oracle_host_sscanf(const char *s, const char *fmt, ...);
#define sscanf oracle_host_sscanf
/* The shim's u64 is uint64_t (unsigned long here), the kernel's unsigned long long: the files
 * pass a u64 * to kstrtoull(). */
static inline int oracle_kstrtou64(const char *s, unsigned int base, u64 *res)
{
	unsigned long v;
	int r = kstrtoul(s, base, &v);

	*res = v;
	return r;
}
#define kstrtoull(s, base, res)                                                                    \
	_Generic((res), u64 *: oracle_kstrtou64, default: kstrtoull)(s, base, res)
#define simple_strtoull(s, e, b) ((unsigned long long)oracle_host_strtoul(s, e, b))
static inline char *strim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
		s[--n] = 0;
	return s;
}

/* ---- the simulator's groups as cgroups (rt/blkcg.c, for the adapter) ----------------------- */
/* A new instance: cgroups are numbered from 1 again (css serial numbers). */
void oracle_blkcg_reset(void);
/* mkdir of a cgroup `name` under parent (NULL: the root): its css and the registered policies'
 * data. */
struct blkcg *oracle_blkcg_create(struct blkcg *parent, const char *name);
/* blkg_lookup_create(): the blkg of (blkcg, q), made with its ancestors' if new (blkg_create()). */
struct blkcg_gq *oracle_blkg_lookup_create(struct blkcg *blkcg, struct request_queue *q);
/* Writes buf to the cgroup file named (a registered policy's cgroup v2 cftype, e.g.
 * "bfq.weight" for io.bfq.weight) of blkcg, as a write(2) to it would. <0: no such file or the
 * file refused it. */
int oracle_blkcg_write(struct blkcg *blkcg, const char *file, const char *buf);
#endif /* CONFIG_BLK_CGROUP */

#endif
