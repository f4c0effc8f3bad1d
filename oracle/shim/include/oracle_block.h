/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The block layer as the scheduler files see it: ioprio, bio, request, request_queue, the
 * elevator (legacy and blk-mq halves, by ORACLE_KVER), io contexts, blkcg, blktrace. Only what
 * the files use; the moments at which the block layer calls them are the adapter's (adapt/).
 */
#ifndef ORACLE_BLOCK_H
#define ORACLE_BLOCK_H

/* ---- ioprio (include/uapi/linux/ioprio.h) -------------------------------------------------- */
#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_CLASS_MASK 0x07
#define IOPRIO_PRIO_MASK ((1UL << IOPRIO_CLASS_SHIFT) - 1)
#define IOPRIO_PRIO_CLASS(ioprio) (((ioprio) >> IOPRIO_CLASS_SHIFT) & IOPRIO_CLASS_MASK)
#define IOPRIO_PRIO_DATA(ioprio) ((ioprio)&IOPRIO_PRIO_MASK)
#define IOPRIO_PRIO_VALUE(class, data) ((((class)&IOPRIO_CLASS_MASK) << IOPRIO_CLASS_SHIFT) | \
					((data)&IOPRIO_PRIO_MASK))
enum { IOPRIO_CLASS_NONE, IOPRIO_CLASS_RT, IOPRIO_CLASS_BE, IOPRIO_CLASS_IDLE };
#define IOPRIO_NR_LEVELS 8
#define IOPRIO_BE_NR IOPRIO_NR_LEVELS
#define IOPRIO_BE_NORM 4
#define IOPRIO_DEFAULT IOPRIO_PRIO_VALUE(IOPRIO_CLASS_NONE, 0)
#define ioprio_valid(mask) (IOPRIO_PRIO_CLASS((mask)) != IOPRIO_CLASS_NONE)
#define task_nice_ioprio(t) ((task_nice(t) + 20) / 5)
#define task_nice_ioclass(t) IOPRIO_CLASS_BE
#define ioprio_class(x) IOPRIO_PRIO_CLASS(x)
#define ioprio_data(x) IOPRIO_PRIO_DATA(x)

/* ---- request operations and flags (include/linux/blk_types.h) ------------------------------ */
enum req_op {
	REQ_OP_READ = 0,
	REQ_OP_WRITE = 1,
	REQ_OP_FLUSH = 2,
	REQ_OP_DISCARD = 3,
	REQ_OP_SECURE_ERASE = 5,
	REQ_OP_WRITE_ZEROES = 9,
	REQ_OP_DRV_IN = 34,
	REQ_OP_DRV_OUT = 35,
	REQ_OP_LAST,
};
#define REQ_OP_BITS 8
#define REQ_OP_MASK ((1 << REQ_OP_BITS) - 1)
enum req_flag_bits {
	__REQ_FAILFAST_DEV = REQ_OP_BITS,
	__REQ_FAILFAST_TRANSPORT,
	__REQ_FAILFAST_DRIVER,
	__REQ_SYNC,
	__REQ_META,
	__REQ_PRIO,
	__REQ_NOMERGE,
	__REQ_IDLE,
	__REQ_INTEGRITY,
	__REQ_FUA,
	__REQ_PREFLUSH,
	__REQ_RAHEAD,
	__REQ_BACKGROUND,
	__REQ_NOWAIT,
	__REQ_NR_BITS,
};
#define REQ_SYNC (1u << __REQ_SYNC)
#define REQ_META (1u << __REQ_META)
#define REQ_PRIO (1u << __REQ_PRIO)
#define REQ_NOMERGE (1u << __REQ_NOMERGE)
#define REQ_IDLE (1u << __REQ_IDLE)
#define REQ_FUA (1u << __REQ_FUA)
#define REQ_PREFLUSH (1u << __REQ_PREFLUSH)
#define REQ_RAHEAD (1u << __REQ_RAHEAD)
#define REQ_BACKGROUND (1u << __REQ_BACKGROUND)
#define REQ_NOWAIT (1u << __REQ_NOWAIT)
#define REQ_FAILFAST_DEV (1u << __REQ_FAILFAST_DEV)
#define REQ_NOMERGE_FLAGS (REQ_NOMERGE | REQ_PREFLUSH | REQ_FUA)
#define READ 0
#define WRITE 1
#define READA READ

static inline enum req_op op_of(unsigned int opf)
{
	return (enum req_op)(opf & REQ_OP_MASK);
}
static inline bool op_is_write(unsigned int op)
{
	return op & 1;
}
static inline bool op_is_sync(unsigned int op)
{
	return (op & REQ_OP_MASK) == REQ_OP_READ || (op & (REQ_SYNC | REQ_FUA | REQ_PREFLUSH));
}
static inline bool op_is_flush(unsigned int op)
{
	return op & (REQ_FUA | REQ_PREFLUSH);
}
static inline bool op_is_discard(unsigned int op)
{
	return (op & REQ_OP_MASK) == REQ_OP_DISCARD;
}

/* request flags (rq_flags, include/linux/blk-mq.h) */
#define RQF_STARTED ((req_flags_t)(1 << 1))
#define RQF_SOFTBARRIER ((req_flags_t)(1 << 3))
#define RQF_FLUSH_SEQ ((req_flags_t)(1 << 4))
#define RQF_MIXED_MERGE ((req_flags_t)(1 << 5))
#define RQF_MQ_INFLIGHT ((req_flags_t)(1 << 6))
#define RQF_DONTPREP ((req_flags_t)(1 << 7))
#define RQF_SCHED_TAGS ((req_flags_t)(1 << 8))
#define RQF_USE_SCHED ((req_flags_t)(1 << 9))
#define RQF_ELVPRIV ((req_flags_t)(1 << 12))
#define RQF_IO_STAT ((req_flags_t)(1 << 13))
#define RQF_PM ((req_flags_t)(1 << 15))
#define RQF_HASHED ((req_flags_t)(1 << 16))
#define RQF_STATS ((req_flags_t)(1 << 17))
#define RQF_SPECIAL_PAYLOAD ((req_flags_t)(1 << 18))
#define RQF_ZONE_WRITE_LOCKED ((req_flags_t)(1 << 19))
#define RQF_TIMED_OUT ((req_flags_t)(1 << 21))
#define RQF_QUEUED ((req_flags_t)(1 << 22))
#define RQF_SORTED RQF_ELVPRIV
#define RQF_NOMERGE_FLAGS (RQF_STARTED | RQF_SOFTBARRIER | RQF_FLUSH_SEQ | RQF_SPECIAL_PAYLOAD)

/* ---- bio ------------------------------------------------------------------------------------ */
struct bvec_iter {
	sector_t bi_sector;
	unsigned int bi_size;
};
struct blkcg_gq;
struct bio {
	struct bio *bi_next;
	unsigned int bi_opf;
	unsigned short bi_ioprio;
	struct bvec_iter bi_iter;
#if ORACLE_KVER < KV(3, 14)
	sector_t bi_sector; /* before bvec_iter (3.14): the same as bi_iter.bi_sector */
#endif
	struct blkcg_gq *bi_blkg;
	struct io_context *bi_ioc;
};
#define bio_op(bio) op_of((bio)->bi_opf)
#define bio_data_dir(bio) (op_is_write(bio_op(bio)) ? WRITE : READ)
#define bio_sectors(bio) ((bio)->bi_iter.bi_size >> 9)
#define bio_end_sector(bio) ((bio)->bi_iter.bi_sector + bio_sectors((bio)))
#define bio_rw(bio) bio_data_dir(bio)
static inline bool bio_is_sync(const struct bio *bio)
{
	return op_is_sync(bio->bi_opf);
}
#define rw_is_sync(op, flags) op_is_sync((op) | (flags))

/* ---- request (include/linux/blk-mq.h, blkdev.h) ------------------------------------------- */
struct request_queue;
struct io_cq;
#define HCTX_MAX_TYPES 3
struct blk_mq_ctx {
	unsigned int cpu;
	unsigned short index_hw[HCTX_MAX_TYPES]; /* its index in each hctx it maps to: 0 */
};
struct blk_mq_hw_ctx;
struct request_list;

struct request {
	struct request_queue *q;
	struct blk_mq_ctx *mq_ctx;
	struct blk_mq_hw_ctx *mq_hctx;
	unsigned int cmd_flags; /* op and common flags */
	req_flags_t rq_flags;
	int tag;
	int internal_tag;
	unsigned int timeout;
	unsigned int __data_len;
	sector_t __sector;
	struct bio *bio;
	struct bio *biotail;
	union {
		struct list_head queuelist;
		struct request *rq_next;
	};
	struct hlist_node hash; /* merge hash */
	union {
		struct rb_node rb_node; /* sort/lookup */
		struct bio_vec *special_vec;
	};
	struct {
		struct io_cq *icq;
		void *priv[2];
	} elv;
	u64 fifo_time;
	u64 start_time_ns;
	u64 io_start_time_ns;
	unsigned short ioprio;
	unsigned short nr_phys_segments;
	struct request_list *rl; /* legacy: the list it was allocated from */
	int cpu;
	refcount_t ref;
	void *end_io_data;
#if ORACLE_KVER < KV(3, 0)
	/* Before elv.priv[]: the elevator's three words (cfq: cic, cfqq, cfqg). */
	void *elevator_private;
	void *elevator_private2;
	void *elevator_private3;
#endif
	/* The simulator's request this one stands for (the adapter's identity). */
	void *oracle_rq;
	/* rq->start_time of the kernels that counted it in jiffies (oracle_legacy_old.h). */
	unsigned long oracle_start_jiffies;
};

#define req_op(rq) op_of((rq)->cmd_flags)
#define rq_data_dir(rq) (op_is_write(req_op(rq)) ? WRITE : READ)
#define rq_is_sync(rq) op_is_sync((rq)->cmd_flags)
#define rq_is_meta(rq) ((rq)->cmd_flags & REQ_META)
/* Functions, as in the kernel: bfq passes them a void * (bfq_io_struct_pos()). */
static inline sector_t blk_rq_pos(const struct request *rq)
{
	return rq->__sector;
}
static inline unsigned int blk_rq_bytes(const struct request *rq)
{
	return rq->__data_len;
}
static inline unsigned int blk_rq_sectors(const struct request *rq)
{
	return blk_rq_bytes(rq) >> 9;
}
#define blk_rq_cur_bytes(rq) blk_rq_bytes(rq)
#define blk_rq_is_passthrough(rq) (req_op(rq) == REQ_OP_DRV_IN || req_op(rq) == REQ_OP_DRV_OUT)
#define blk_rq_is_scsi(rq) false
#define req_get_ioprio(rq) ((rq)->ioprio)
#define rq_entry_fifo(ptr) list_entry((ptr), struct request, queuelist)
#define rq_fifo_clear(rq) list_del_init(&(rq)->queuelist)
#define rb_entry_rq(node) rb_entry((node), struct request, rb_node)
#define rq_rb_root(q, rq) (&(q)->oracle_sort_root)
#define ELV_ON_HASH(rq) ((rq)->rq_flags & RQF_HASHED)
#define rq_hash_key(rq) (blk_rq_pos(rq) + blk_rq_sectors(rq))
static inline bool rq_mergeable(struct request *rq)
{
	if (blk_rq_is_passthrough(rq))
		return false;
	if (req_op(rq) == REQ_OP_FLUSH)
		return false;
	if (req_op(rq) == REQ_OP_WRITE_ZEROES)
		return false;
	if (rq->cmd_flags & REQ_NOMERGE_FLAGS)
		return false;
	if (rq->rq_flags & RQF_NOMERGE_FLAGS)
		return false;
	return true;
}
static inline bool blk_rq_is_seq_write(struct request *rq)
{
	(void)rq;
	return false;
}
/* A discard request may merge with another (queue_max_discard_segments() > 1): never here. */
#define blk_discard_mergable(rq) false
#define blk_req_needs_zone_write_lock(rq) false
#define blk_req_zone_write_lock(rq) ((void)(rq))
#define blk_req_zone_write_unlock(rq) ((void)(rq))
#define blk_req_can_dispatch_to_zone(rq) true
#define blk_req_zone_is_write_locked(rq) false
#define blk_rq_is_seq_zoned_write(rq) false
#define req_bio_endio(rq, bio, n, err)

/* ---- io contexts (include/linux/iocontext.h) ---------------------------------------------- */
#if ORACLE_KVER < KV(3, 2)
/* Before io_cq (3.2): a scheduler keyed its own per-queue data in the io_context's radix tree. */
struct oracle_radix_node;
struct radix_tree_root {
	struct oracle_radix_node *head;
};
#endif
struct io_context {
	atomic_long_t refcount;
	atomic_t active_ref;
	atomic_t nr_tasks;
#if ORACLE_KVER < KV(3, 2)
	spinlock_t lock;
	unsigned short ioprio_changed; /* cfq_ioc_set_ioprio() at the next request */
	unsigned short cgroup_changed;
	struct radix_tree_root radix_root; /* cfq_io_context by the scheduler's key */
	struct hlist_head cic_list;
	void *ioc_data; /* the last cfq_io_context found */
#endif
	unsigned short ioprio;
	int nr_batch_requests;
	unsigned long last_waited;
	struct io_cq *icq_hint;
	struct hlist_head icq_list;
	/* The simulator's owner it stands for. */
	u32 oracle_owner;
};
#if ORACLE_KVER < KV(3, 2)
/* 2.6.x's include/linux/iocontext.h: CFQ's per (io_context, queue) data, made and freed by CFQ. */
struct cfq_queue;
struct cfq_io_context {
	void *key;
#if ORACLE_KVER3 < KV3(2, 6, 33)
	unsigned long dead_key;
#endif
	struct cfq_queue *cfqq[2];
	struct io_context *ioc;
	unsigned long last_end_request;
#if ORACLE_KVER3 < KV3(2, 6, 33)
	sector_t last_request_pos;
#endif
	unsigned long ttime_total;
	unsigned long ttime_samples;
	unsigned long ttime_mean;
#if ORACLE_KVER3 < KV3(2, 6, 33)
	unsigned int seek_samples;
	u64 seek_total;
	sector_t seek_mean;
#endif
	struct list_head queue_list;
	struct hlist_node cic_list;
	void (*dtor)(struct io_context *);
	void (*exit)(struct io_context *);
	struct rcu_head rcu_head;
};
#endif
struct elevator_type;
struct io_cq {
	struct request_queue *q;
	struct io_context *ioc;
	union {
		struct list_head q_node;
		struct kmem_cache *__rcu_icq_cache;
	};
	union {
		struct hlist_node ioc_node;
		struct rcu_head __rcu_head;
	};
	unsigned int flags;
};
#define ICQ_EXITED 1
#define ICQ_DESTROYED 2
#if ORACLE_KVER >= KV(3, 2)
#define get_io_context(ioc) ((void)((ioc)->refcount.counter++))
#define put_io_context(ioc) ((void)((ioc)->refcount.counter--))
#else
/* 2.6.x: the current task's io_context, with a reference; the last put calls the scheduler's
 * dtor on each of its cfq_io_contexts (the adapter, adapt/sq_legacy_26.c). */
struct io_context *oracle_get_io_context(void);
void oracle_put_io_context(struct io_context *ioc);
#define get_io_context(gfp, node) oracle_get_io_context()
#define put_io_context(ioc) oracle_put_io_context(ioc)
#endif
#define ioc_task_link(ioc) ((void)0)

/* ---- elevator (include/linux/elevator.h; block/elevator.h from 5.x) ---------------------- */
enum elv_merge {
	ELEVATOR_NO_MERGE = 0,
	ELEVATOR_FRONT_MERGE = 1,
	ELEVATOR_BACK_MERGE = 2,
	ELEVATOR_DISCARD_MERGE = 3,
};
#define ELV_MQUEUE_MAY 0
#define ELV_MQUEUE_NO 1
#define ELV_MQUEUE_MUST 2
#define ELEVATOR_INSERT_FRONT 1
#define ELEVATOR_INSERT_BACK 2
#define ELEVATOR_INSERT_SORT 3
#define ELEVATOR_INSERT_REQUEUE 4
#define ELEVATOR_INSERT_FLUSH 5
#define ELEVATOR_INSERT_SORT_MERGE 6
#define ELV_NAME_MAX 16
#define ELV_HASH_BITS 6
typedef unsigned int blk_insert_t;
#define BLK_MQ_INSERT_AT_HEAD ((blk_insert_t)0x01)

struct blk_mq_alloc_data {
	struct request_queue *q;
	blk_mq_req_flags_t flags;
	unsigned int shallow_depth;
	blk_opf_t cmd_flags;
	req_flags_t rq_flags;
	unsigned int nr_tags;
	struct blk_mq_ctx *ctx;
	struct blk_mq_hw_ctx *hctx;
};

struct elevator_queue;
#if ORACLE_KVER < KV(3, 0)
/*
 * The 2.6.3x elevator: set_request had no bio (the io context came from the current task),
 * init returned the elevator's data, queue_empty was asked of it, and io contexts were trimmed
 * through it. 2.6.32 had no bio_merged hook.
 */
struct elevator_ops {
	int (*elevator_merge_fn)(struct request_queue *, struct request **, struct bio *);
	void (*elevator_merged_fn)(struct request_queue *, struct request *, int);
	void (*elevator_merge_req_fn)(struct request_queue *, struct request *, struct request *);
	int (*elevator_allow_merge_fn)(struct request_queue *, struct request *, struct bio *);
	void (*elevator_bio_merged_fn)(struct request_queue *, struct request *, struct bio *);
	int (*elevator_dispatch_fn)(struct request_queue *, int);
	void (*elevator_add_req_fn)(struct request_queue *, struct request *);
	void (*elevator_activate_req_fn)(struct request_queue *, struct request *);
	void (*elevator_deactivate_req_fn)(struct request_queue *, struct request *);
	int (*elevator_queue_empty_fn)(struct request_queue *);
	void (*elevator_completed_req_fn)(struct request_queue *, struct request *);
	struct request *(*elevator_former_req_fn)(struct request_queue *, struct request *);
	struct request *(*elevator_latter_req_fn)(struct request_queue *, struct request *);
	int (*elevator_set_req_fn)(struct request_queue *, struct request *, gfp_t);
	void (*elevator_put_req_fn)(struct request *);
	int (*elevator_may_queue_fn)(struct request_queue *, int);
	void *(*elevator_init_fn)(struct request_queue *);
	void (*elevator_exit_fn)(struct elevator_queue *);
	void (*trim)(struct io_context *);
};
#elif ORACLE_KVER < KV(4, 11)
/*
 * The legacy elevator before 4.11 (the only kind then: elevator_type.ops is this struct, not a
 * union with blk-mq's): the merge hooks return and take an int, the direction of may_queue is
 * the bio's rw flags, one allow_merge hook.
 */
struct elevator_ops {
	int (*elevator_merge_fn)(struct request_queue *, struct request **, struct bio *);
	void (*elevator_merged_fn)(struct request_queue *, struct request *, int);
	void (*elevator_merge_req_fn)(struct request_queue *, struct request *, struct request *);
	int (*elevator_allow_merge_fn)(struct request_queue *, struct request *, struct bio *);
	void (*elevator_bio_merged_fn)(struct request_queue *, struct request *, struct bio *);
	int (*elevator_dispatch_fn)(struct request_queue *, int);
	void (*elevator_add_req_fn)(struct request_queue *, struct request *);
	void (*elevator_activate_req_fn)(struct request_queue *, struct request *);
	void (*elevator_deactivate_req_fn)(struct request_queue *, struct request *);
	void (*elevator_completed_req_fn)(struct request_queue *, struct request *);
	struct request *(*elevator_former_req_fn)(struct request_queue *, struct request *);
	struct request *(*elevator_latter_req_fn)(struct request_queue *, struct request *);
	void (*elevator_init_icq_fn)(struct io_cq *);
	void (*elevator_exit_icq_fn)(struct io_cq *);
	int (*elevator_set_req_fn)(struct request_queue *, struct request *, struct bio *, gfp_t);
	void (*elevator_put_req_fn)(struct request *);
	int (*elevator_may_queue_fn)(struct request_queue *, int);
	int (*elevator_init_fn)(struct request_queue *, struct elevator_type *);
	void (*elevator_exit_fn)(struct elevator_queue *);
	void (*elevator_registered_fn)(struct request_queue *); /* none before 4.11: NULL */
};
#elif ORACLE_KVER < KV(5, 0)
/* The legacy (single queue) elevator: 4.19 and before. */
typedef enum elv_merge(elevator_merge_fn)(struct request_queue *, struct request **,
					   struct bio *);
struct elevator_ops {
	enum elv_merge (*elevator_merge_fn)(struct request_queue *, struct request **, struct bio *);
	void (*elevator_merged_fn)(struct request_queue *, struct request *, enum elv_merge);
	void (*elevator_merge_req_fn)(struct request_queue *, struct request *, struct request *);
	int (*elevator_allow_bio_merge_fn)(struct request_queue *, struct request *, struct bio *);
	int (*elevator_allow_rq_merge_fn)(struct request_queue *, struct request *,
					  struct request *);
	void (*elevator_bio_merged_fn)(struct request_queue *, struct request *, struct bio *);
	int (*elevator_dispatch_fn)(struct request_queue *, int);
	void (*elevator_add_req_fn)(struct request_queue *, struct request *);
	void (*elevator_activate_req_fn)(struct request_queue *, struct request *);
	void (*elevator_deactivate_req_fn)(struct request_queue *, struct request *);
	void (*elevator_completed_req_fn)(struct request_queue *, struct request *);
	struct request *(*elevator_former_req_fn)(struct request_queue *, struct request *);
	struct request *(*elevator_latter_req_fn)(struct request_queue *, struct request *);
	void (*elevator_init_icq_fn)(struct io_cq *);
	void (*elevator_exit_icq_fn)(struct io_cq *);
	int (*elevator_set_req_fn)(struct request_queue *, struct request *, struct bio *, gfp_t);
	void (*elevator_put_req_fn)(struct request *);
	int (*elevator_may_queue_fn)(struct request_queue *, unsigned int);
	int (*elevator_init_fn)(struct request_queue *, struct elevator_type *);
	void (*elevator_exit_fn)(struct elevator_queue *);
	void (*elevator_registered_fn)(struct request_queue *);
};
#endif

struct blk_mq_hw_ctx;
struct elevator_mq_ops {
	int (*init_sched)(struct request_queue *, struct elevator_type *);
	void (*exit_sched)(struct elevator_queue *);
	int (*init_hctx)(struct blk_mq_hw_ctx *, unsigned int);
	void (*exit_hctx)(struct blk_mq_hw_ctx *, unsigned int);
	void (*depth_updated)(struct blk_mq_hw_ctx *);
#if ORACLE_KVER < KV(5, 0)
	bool (*allow_merge)(struct request_queue *, struct request *, struct bio *);
	bool (*bio_merge)(struct blk_mq_hw_ctx *, struct bio *);
#else
	bool (*allow_merge)(struct request_queue *, struct request *, struct bio *);
	bool (*bio_merge)(struct request_queue *, struct bio *, unsigned int);
#endif
	int (*request_merge)(struct request_queue *q, struct request **, struct bio *);
	void (*request_merged)(struct request_queue *, struct request *, enum elv_merge);
	void (*requests_merged)(struct request_queue *, struct request *, struct request *);
#if ORACLE_KVER < KV(4, 16)
	/* 4.12-4.15: the elevator's data of a request is made at its allocation (get_rq_priv,
	 * after blk_mq_sched_assign_ioc()) and freed with it (put_rq_priv). */
	struct request *(*get_request)(struct request_queue *, unsigned int,
				       struct blk_mq_alloc_data *);
	void (*put_request)(struct request *);
	int (*get_rq_priv)(struct request_queue *, struct request *, struct bio *);
	void (*put_rq_priv)(struct request_queue *, struct request *);
#endif
#if ORACLE_KVER < KV(5, 0)
	void (*limit_depth)(unsigned int, struct blk_mq_alloc_data *);
	void (*prepare_request)(struct request *, struct bio *bio);
	void (*finish_request)(struct request *);
	void (*insert_requests)(struct blk_mq_hw_ctx *, struct list_head *, bool);
	struct request *(*dispatch_request)(struct blk_mq_hw_ctx *);
	bool (*has_work)(struct blk_mq_hw_ctx *);
	void (*completed_request)(struct request *, u64);
	void (*started_request)(struct request *);
	void (*requeue_request)(struct request *);
#else
	void (*limit_depth)(blk_opf_t, struct blk_mq_alloc_data *);
	void (*prepare_request)(struct request *);
	void (*finish_request)(struct request *);
	void (*insert_requests)(struct blk_mq_hw_ctx *hctx, struct list_head *list,
				blk_insert_t flags);
	struct request *(*dispatch_request)(struct blk_mq_hw_ctx *);
	bool (*has_work)(struct blk_mq_hw_ctx *);
	void (*completed_request)(struct request *, u64);
	void (*requeue_request)(struct request *);
#endif
	struct request *(*former_request)(struct request_queue *, struct request *);
	struct request *(*next_request)(struct request_queue *, struct request *);
	void (*init_icq)(struct io_cq *);
	void (*exit_icq)(struct io_cq *);
};

struct elv_fs_entry {
	struct attribute attr;
	ssize_t (*show)(struct elevator_queue *, char *);
	ssize_t (*store)(struct elevator_queue *, const char *, size_t);
};

struct blk_mq_debugfs_attr;
struct elevator_type {
	struct kmem_cache *icq_cache;
#if ORACLE_KVER < KV(4, 11)
	struct elevator_ops ops;
#elif ORACLE_KVER < KV(5, 0)
	union {
		struct elevator_ops sq;
		struct elevator_mq_ops mq;
	} ops;
#else
	struct elevator_mq_ops ops;
#endif
	size_t icq_size;
	size_t icq_align;
	struct elv_fs_entry *elevator_attrs;
	const char *elevator_name;
	const char *elevator_alias;
	const unsigned int elevator_features;
	struct module *elevator_owner;
	bool uses_mq;
	const struct blk_mq_debugfs_attr *queue_debugfs_attrs;
	const struct blk_mq_debugfs_attr *hctx_debugfs_attrs;
	char icq_cache_name[ELV_NAME_MAX + 6];
	struct list_head list;
};

/* The legacy adapter's view of an elevator type's ops (adapt/sq.c). */
#if ORACLE_KVER < KV(3, 0)
#define ORACLE_SQ_OPS(e) (&(e)->ops)
#elif ORACLE_KVER < KV(4, 11)
#define ORACLE_SQ_OPS(e) (&(e)->ops)
#else
#define ORACLE_SQ_OPS(e) (&(e)->ops.sq)
#endif

#define ELV_HASH_SIZE (1 << ELV_HASH_BITS)
struct elevator_queue {
	struct elevator_type *type;
	void *elevator_data;
	struct kobject kobj;
	struct mutex sysfs_lock;
	unsigned long flags;
	unsigned int registered : 1;
	unsigned int uses_mq : 1;
	struct hlist_head hash[ELV_HASH_SIZE];
};
#define ELEVATOR_FLAG_REGISTERED 0
#define ELEVATOR_FLAG_DISABLE_WBT 1

int elv_register(struct elevator_type *e);
void elv_unregister(struct elevator_type *e);
struct elevator_queue *elevator_alloc(struct request_queue *q, struct elevator_type *e);
#if ORACLE_KVER < KV(3, 0)
/* 2.6.x: a request of the same sector already in the tree is returned (an alias) and rq is
 * not added; the caller dispatches the alias and tries again. */
struct request *elv_rb_add(struct rb_root *root, struct request *rq);
#else
void elv_rb_add(struct rb_root *root, struct request *rq);
#endif
void elv_rb_del(struct rb_root *root, struct request *rq);
struct request *elv_rb_find(struct rb_root *root, sector_t sector);
struct request *elv_rb_former_request(struct request_queue *q, struct request *rq);
struct request *elv_rb_latter_request(struct request_queue *q, struct request *rq);
void elv_rqhash_add(struct request_queue *q, struct request *rq);
void elv_rqhash_del(struct request_queue *q, struct request *rq);
void elv_dispatch_sort(struct request_queue *q, struct request *rq);
void elv_dispatch_add_tail(struct request_queue *q, struct request *rq);
bool elv_bio_merge_ok(struct request *rq, struct bio *bio);
#define elv_rb_former_request elv_rb_former_request

/* ---- blk-mq --------------------------------------------------------------------------------- */
#ifdef ORACLE_SBITMAP
/* The whole sbitmap (lib/sbitmap.c), for a file that decides by it: kyber's token pools. */
#include "oracle_sbitmap.h"
#else
struct sbitmap_queue {
	unsigned int depth;
	unsigned int min_shallow_depth;
};
struct sbitmap {
	unsigned int depth;
};
#endif
struct blk_mq_tags {
	unsigned int nr_tags;
	unsigned int nr_reserved_tags;
	struct sbitmap_queue bitmap_tags;
	struct sbitmap_queue breserved_tags;
};
#ifndef ORACLE_SBITMAP
#define sbitmap_queue_min_shallow_depth(sbq, d) ((sbq)->min_shallow_depth = (d))
#define sbitmap_queue_shallow_depth(sbq) ((sbq)->depth)
#endif

struct blk_mq_hw_ctx {
	struct request_queue *queue;
	struct blk_mq_tags *tags;
	struct blk_mq_tags *sched_tags;
	unsigned int queue_num;
	void *sched_data;
	unsigned long state;
	/* The software queues mapped to it (kyber's per-ctx lists): one, index 0 of type 0. */
	unsigned int nr_ctx;
	int numa_node;
	unsigned short type;
};
#define BLK_MQ_S_SCHED_RESTART 2
static inline struct blk_mq_hw_ctx *oracle_map_queue(struct request_queue *q);
#define blk_mq_map_queue(q, ...) oracle_map_queue(q)
#define blk_mq_sched_mark_restart_hctx(h) ((void)(h))
#define blk_mq_sched_request_inserted(rq) ((void)(rq))
/* A request merged away is freed (adapt/mq.c: its elevator data, then the request). */
void oracle_mq_free_request(struct request *rq);
void oracle_mq_free_requests(struct list_head *list);
#define blk_mq_free_requests(list)     oracle_mq_free_requests(list)
#define blk_mq_free_request(rq)	       oracle_mq_free_request(rq)
#define trace_block_rq_insert(rq) ((void)(rq))
#define trace_block_rq_merge(rq) ((void)(rq))
#define trace_block_bio_complete(q, b) ((void)(q))
void oracle_run_hw_queues(struct request_queue *q, bool async);
#define blk_mq_run_hw_queues(q, async) oracle_run_hw_queues(q, async)
#define blk_mq_run_hw_queue(h, async) oracle_run_hw_queues((h)->queue, async)
#define blk_mq_delay_run_hw_queues(q, ms) oracle_run_hw_queues(q, true)
/* The block core's merge entry points the elevator calls (adapt/merge_core.c, through mq.c):
 * with the queue's nomerges at 2 (the simulator's default) they find nothing. */
bool oracle_try_insert_merge(struct request_queue *q, struct request *rq, struct list_head *free);
bool oracle_try_merge(struct request_queue *q, struct bio *bio, struct request **merged);
bool oracle_allow_merge(struct request_queue *q, struct request *rq, struct bio *bio);
#if ORACLE_KVER < KV(5, 0)
#define blk_mq_sched_try_insert_merge(q, rq)   oracle_try_insert_merge(q, rq, NULL)
#define blk_mq_sched_try_merge(q, bio, merged) oracle_try_merge(q, bio, merged)
#else
#define blk_mq_sched_try_insert_merge(q, rq, free)	oracle_try_insert_merge(q, rq, free)
#define blk_mq_sched_try_merge(q, bio, nr_segs, merged) oracle_try_merge(q, bio, merged)
#endif
#define blk_mq_sched_allow_merge(q, rq, bio) oracle_allow_merge(q, rq, bio)
#define blk_mq_sched_mark_restart_queue(q) ((void)(q))

/* ---- the queue ------------------------------------------------------------------------------ */
#if ORACLE_KVER < KV(3, 0)
/* The queue's bdi: cfq 2.6.3x names a new blkio group after its device, when it has one. */
struct backing_dev_info {
	struct device *dev; /* none here: groups get dev 0, as before the disk is registered */
};
#endif
#define QUEUE_FLAG_NONROT 6
#define QUEUE_FLAG_SQ_SCHED 22
struct blkcg_gq;
struct request_queue {
	struct elevator_queue *elevator;
	struct request *last_merge;
	struct list_head queue_head; /* legacy dispatch list */
	struct request *boundary_rq;
	sector_t end_sector;
	unsigned long queue_flags;
	unsigned int nr_requests;
	unsigned int nr_sorted;
	unsigned int in_flight[2];
	unsigned int rq_timeout;
	int node;
	unsigned int nr_hw_queues;
	struct blk_mq_hw_ctx *oracle_hctx; /* the one hardware queue */
	struct blk_mq_ctx *oracle_ctx;	   /* the one software queue (one CPU) */
	spinlock_t __queue_lock;
	spinlock_t *queue_lock;
	struct blkcg_gq *root_blkg;
	struct list_head blkg_list;
	struct kobject kobj;
	struct kobject *mq_kobj;
	void *oracle; /* the adapter's queue */
	struct rb_root oracle_sort_root;
	unsigned int nr_pending;
	struct {
		unsigned int max_sectors;
	} limits;
	int id;
#if ORACLE_KVER < KV(3, 0)
	struct backing_dev_info backing_dev_info; /* embedded before 4.11 */
#else
	struct backing_dev_info *backing_dev_info;
#endif
	struct blk_mq_tag_set *tag_set;
	unsigned long nr_queued_sched;
	struct gendisk *disk;		/* 5.x+: the disk (oracle_bfq.h) */
	unsigned long blkcg_pols[1];	/* the blkcg policies enabled on it (rt/blkcg.c) */
};
static inline struct blk_mq_hw_ctx *oracle_map_queue(struct request_queue *q)
{
	return q->oracle_hctx;
}
#define blk_queue_nonrot(q) test_bit(QUEUE_FLAG_NONROT, &(q)->queue_flags)
#define blk_queue_is_zoned(q) false
#define blk_queue_flag_set(f, q) __set_bit(f, &(q)->queue_flags)
#define blk_queue_flag_clear(f, q) __clear_bit(f, &(q)->queue_flags)
#define queue_flag_set_unlocked blk_queue_flag_set
#define blk_queue_dying(q) false
#define blk_mq_sched_restart(h) ((void)(h))

/* ---- blktrace: the files' *_log lines go into the simulator's trace ------------------------ */
void oracle_trace_msg(struct request_queue *q, const char *fmt, ...) __printf(2, 3);
#define blk_add_trace_msg(q, fmt, ...) oracle_trace_msg(q, fmt, ##__VA_ARGS__)
#define blk_add_cgroup_trace_msg(q, cg, fmt, ...) oracle_trace_msg(q, fmt, ##__VA_ARGS__)
#define blk_trace_note_message_enabled(q) true

/* ---- wbt, debugfs, misc -------------------------------------------------------------------- */
#define wbt_disable_default(q) ((void)(q))
#define wbt_enable_default(q) ((void)(q))
#define blk_stat_enable_accounting(q) ((void)(q))
#define BLK_MAX_REQUEST_COUNT 16
#define BLKDEV_MAX_RQ 128
#define BLKDEV_DEFAULT_RQ 128

#endif
