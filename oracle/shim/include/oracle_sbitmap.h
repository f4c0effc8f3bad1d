/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/sbitmap.h> and lib/sbitmap.c as Linux 6.12 has them, with the wait queues they use
 * (<linux/wait.h>), for a variant whose kernel file decides by them: kyber's token pools (their
 * allocation, deferred clears, resize, and the wake batch that runs a waiting hardware queue
 * again). Included by oracle_block.h in place of its two-field stand-ins when the variant's
 * configuration (config/<id>.h) defines ORACLE_SBITMAP; the adapter's scheduler tags keep the
 * stand-ins' depth field (the simulator's block layer allocates them, not this).
 *
 * One CPU: the per-CPU allocation hint is one value, and it starts at 0 where the kernel draws
 * it at random below the depth (also when a shrink leaves it beyond): the embedded kyber does
 * the same (sched/kyber.c).
 *
 * Written for this project from the interfaces' documented behaviour (lib/sbitmap.c is not in
 * the reference tree).
 */
#ifndef ORACLE_SBITMAP_H
#define ORACLE_SBITMAP_H

/* ---- wait queues (<linux/wait.h>) ----------------------------------------------------------- */
#define WQ_FLAG_EXCLUSIVE 0x01
#define TASK_NORMAL	  3
struct wait_queue_entry;
typedef int (*wait_queue_func_t)(struct wait_queue_entry *wq_entry, unsigned int mode, int flags,
				 void *key);
typedef struct wait_queue_entry {
	unsigned int flags;
	void *private;
	wait_queue_func_t func;
	struct list_head entry;
} wait_queue_entry_t;
typedef struct wait_queue_head {
	spinlock_t lock;
	struct list_head head;
} wait_queue_head_t;

static inline void init_waitqueue_head(struct wait_queue_head *wq)
{
	INIT_LIST_HEAD(&wq->head);
}
static inline void init_waitqueue_func_entry(struct wait_queue_entry *e, wait_queue_func_t func)
{
	e->flags = 0;
	e->private = NULL;
	e->func = func;
}
static inline int waitqueue_active(const struct wait_queue_head *wq)
{
	return !list_empty(&wq->head);
}
/* add_wait_queue(): not exclusive, at the head. */
static inline void add_wait_queue(struct wait_queue_head *wq, struct wait_queue_entry *e)
{
	e->flags &= ~WQ_FLAG_EXCLUSIVE;
	list_add(&e->entry, &wq->head);
}
/* __wake_up(): every entry's function in turn, until nr exclusive ones woke; returns how many of
 * the nr woke (a non-exclusive entry counts none). */
static inline int oracle_wake_up_nr(struct wait_queue_head *wq, int nr)
{
	struct wait_queue_entry *e, *next;
	int left = nr;

	list_for_each_entry_safe(e, next, &wq->head, entry)
	{
		unsigned int flags = e->flags;
		int ret = e->func(e, TASK_NORMAL, 0, NULL);

		if (ret < 0)
			break;
		if (ret && (flags & WQ_FLAG_EXCLUSIVE) && !--left)
			break;
	}
	return nr - left;
}
#define wake_up_nr(wq, nr) oracle_wake_up_nr(wq, nr)

/* ---- sbitmap -------------------------------------------------------------------------------- */
#define SBQ_WAIT_QUEUES 8
#define SBQ_WAKE_BATCH	8

struct sbitmap_word {
	unsigned long word;
	unsigned long cleared; /* freed bits not yet taken off word (deferred clears) */
};
struct sbitmap {
	unsigned int depth;
	unsigned int shift;
	unsigned int map_nr;
	bool round_robin;
	struct sbitmap_word *map;
	unsigned int *alloc_hint; /* one CPU */
};
struct sbq_wait_state {
	wait_queue_head_t wait;
};
struct sbitmap_queue {
	struct sbitmap sb;
	unsigned int wake_batch;
	atomic_t wake_index;
	struct sbq_wait_state *ws;
	atomic_t ws_active;
	unsigned int min_shallow_depth;
	atomic_t completion_cnt;
	atomic_t wakeup_cnt;
	/* The adapter's scheduler and driver tags (adapt/mq.c): their size. Not an sbitmap's. */
	unsigned int depth;
};
struct sbq_wait {
	struct sbitmap_queue *sbq;
	struct wait_queue_entry wait;
};
typedef bool (*sb_for_each_fn)(struct sbitmap *, unsigned int, void *);

#define SB_NR_TO_INDEX(sb, bitnr) ((bitnr) >> (sb)->shift)
#define SB_NR_TO_BIT(sb, bitnr)	  ((bitnr) & ((1U << (sb)->shift) - 1U))

static inline int sbitmap_calculate_shift(unsigned int depth)
{
	int shift = 6;

	if (depth >= 4)
		while ((4U << shift) > depth)
			shift--;
	return shift;
}

static inline unsigned int __map_depth(const struct sbitmap *sb, int index)
{
	if (index == (int)sb->map_nr - 1)
		return sb->depth - (index << sb->shift);
	return 1U << sb->shift;
}

static inline int sbitmap_init_node(struct sbitmap *sb, unsigned int depth, int shift, gfp_t flags,
				    int node, bool round_robin, bool alloc_hint)
{
	(void)node;
	if (shift < 0)
		shift = sbitmap_calculate_shift(depth);
	if ((1U << shift) > BITS_PER_LONG)
		return -EINVAL;
	sb->shift = (unsigned int)shift;
	sb->depth = depth;
	sb->map_nr = DIV_ROUND_UP(depth, 1U << shift);
	sb->round_robin = round_robin;
	sb->alloc_hint = NULL;
	sb->map = NULL;
	if (!depth)
		return 0;
	if (alloc_hint) {
		sb->alloc_hint = kzalloc(sizeof(*sb->alloc_hint), flags); /* hint 0, see above */
		if (!sb->alloc_hint)
			return -ENOMEM;
	}
	sb->map = kzalloc(sb->map_nr * sizeof(*sb->map), flags);
	return sb->map ? 0 : -ENOMEM;
}

static inline void sbitmap_free(struct sbitmap *sb)
{
	kfree(sb->alloc_hint);
	kfree(sb->map);
	sb->map = NULL;
}

static inline bool sbitmap_deferred_clear(struct sbitmap_word *map)
{
	unsigned long mask = map->cleared;

	if (!mask)
		return false;
	map->cleared = 0;
	map->word &= ~mask;
	return true;
}

static inline void sbitmap_resize(struct sbitmap *sb, unsigned int depth)
{
	for (unsigned int i = 0; i < sb->map_nr; i++)
		sbitmap_deferred_clear(&sb->map[i]);
	sb->depth = depth;
	sb->map_nr = DIV_ROUND_UP(depth, 1U << sb->shift);
}

/* The first zero bit of word in [hint, depth), wrapping to 0 once when asked and hint > 0. */
static inline int __sbitmap_get_word(unsigned long *word, unsigned long depth, unsigned int hint,
				     bool wrap)
{
	wrap = wrap && hint;
	for (;;) {
		unsigned long nr = hint;

		while (nr < depth && ((*word >> nr) & 1))
			nr++;
		if (nr >= depth) {
			if (hint && wrap) {
				hint = 0;
				continue;
			}
			return -1;
		}
		*word |= 1UL << nr;
		return (int)nr;
	}
}

static inline int sbitmap_find_bit_in_word(struct sbitmap_word *map, unsigned int depth,
					   unsigned int alloc_hint, bool wrap)
{
	int nr;

	do {
		nr = __sbitmap_get_word(&map->word, depth, alloc_hint, wrap);
		if (nr != -1)
			break;
	} while (sbitmap_deferred_clear(map));
	return nr;
}

static inline int sbitmap_find_bit(struct sbitmap *sb, unsigned int depth, unsigned int index,
				   unsigned int alloc_hint, bool wrap)
{
	int nr = -1;

	for (unsigned int i = 0; i < sb->map_nr; i++) {
		nr = sbitmap_find_bit_in_word(&sb->map[index], min(__map_depth(sb, (int)index), depth),
					      alloc_hint, wrap);
		if (nr != -1) {
			nr += (int)(index << sb->shift);
			break;
		}
		alloc_hint = 0;
		if (++index >= sb->map_nr)
			index = 0;
	}
	return nr;
}

static inline int sbitmap_get(struct sbitmap *sb)
{
	unsigned int depth = sb->depth, hint = *sb->alloc_hint, index, bit;
	int nr;

	if (hint >= depth)
		hint = *sb->alloc_hint = 0; /* the kernel draws one at random below depth */
	index = SB_NR_TO_INDEX(sb, hint);
	bit = sb->round_robin ? SB_NR_TO_BIT(sb, hint) : 0;
	nr = sbitmap_find_bit(sb, UINT_MAX, index, bit, !sb->round_robin);
	if (nr == -1) {
		*sb->alloc_hint = 0;
	} else if ((unsigned int)nr == hint || sb->round_robin) {
		hint = (unsigned int)nr + 1;
		if (hint >= depth - 1)
			hint = 0;
		*sb->alloc_hint = hint;
	}
	return nr;
}

static inline bool sbitmap_any_bit_set(const struct sbitmap *sb)
{
	for (unsigned int i = 0; i < sb->map_nr; i++)
		if (sb->map[i].word & ~sb->map[i].cleared)
			return true;
	return false;
}

static inline void sbitmap_set_bit(struct sbitmap *sb, unsigned int bitnr)
{
	sb->map[SB_NR_TO_INDEX(sb, bitnr)].word |= 1UL << SB_NR_TO_BIT(sb, bitnr);
}

static inline void sbitmap_clear_bit(struct sbitmap *sb, unsigned int bitnr)
{
	sb->map[SB_NR_TO_INDEX(sb, bitnr)].word &= ~(1UL << SB_NR_TO_BIT(sb, bitnr));
}

static inline void sbitmap_deferred_clear_bit(struct sbitmap *sb, unsigned int bitnr)
{
	sb->map[SB_NR_TO_INDEX(sb, bitnr)].cleared |= 1UL << SB_NR_TO_BIT(sb, bitnr);
}

/* __sbitmap_for_each_set() from bit 0: fn for each bit set and not cleared, in order, until it
 * returns false. */
static inline void sbitmap_for_each_set(struct sbitmap *sb, sb_for_each_fn fn, void *data)
{
	for (unsigned int index = 0; index < sb->map_nr; index++) {
		unsigned long word = sb->map[index].word & ~sb->map[index].cleared;
		unsigned int depth = __map_depth(sb, (int)index);

		for (unsigned int nr = 0; nr < depth; nr++)
			if ((word >> nr) & 1)
				if (!fn(sb, (index << sb->shift) + nr, data))
					return;
	}
}

/* ---- sbitmap_queue -------------------------------------------------------------------------- */

static inline unsigned int sbq_calc_wake_batch(struct sbitmap_queue *sbq, unsigned int depth)
{
	unsigned int shallow = min(1U << sbq->sb.shift, sbq->min_shallow_depth);

	depth = (depth >> sbq->sb.shift) * shallow +
		min(depth & ((1U << sbq->sb.shift) - 1), shallow);
	return clamp_t(unsigned int, depth / SBQ_WAIT_QUEUES, 1, SBQ_WAKE_BATCH);
}

static inline int sbitmap_queue_init_node(struct sbitmap_queue *sbq, unsigned int depth, int shift,
					  bool round_robin, gfp_t flags, int node)
{
	int ret = sbitmap_init_node(&sbq->sb, depth, shift, flags, node, round_robin, true);

	if (ret)
		return ret;
	sbq->min_shallow_depth = UINT_MAX;
	sbq->wake_batch = sbq_calc_wake_batch(sbq, depth);
	atomic_set(&sbq->wake_index, 0);
	atomic_set(&sbq->ws_active, 0);
	atomic_set(&sbq->completion_cnt, 0);
	atomic_set(&sbq->wakeup_cnt, 0);
	sbq->ws = kzalloc(SBQ_WAIT_QUEUES * sizeof(*sbq->ws), flags);
	if (!sbq->ws) {
		sbitmap_free(&sbq->sb);
		return -ENOMEM;
	}
	for (int i = 0; i < SBQ_WAIT_QUEUES; i++)
		init_waitqueue_head(&sbq->ws[i].wait);
	return 0;
}

static inline void sbitmap_queue_free(struct sbitmap_queue *sbq)
{
	kfree(sbq->ws);
	sbitmap_free(&sbq->sb);
}

static inline void sbitmap_queue_update_wake_batch(struct sbitmap_queue *sbq, unsigned int depth)
{
	sbq->wake_batch = sbq_calc_wake_batch(sbq, depth);
}

static inline void sbitmap_queue_resize(struct sbitmap_queue *sbq, unsigned int depth)
{
	sbitmap_queue_update_wake_batch(sbq, depth);
	sbitmap_resize(&sbq->sb, depth);
}

static inline void sbitmap_queue_min_shallow_depth(struct sbitmap_queue *sbq,
						   unsigned int min_shallow_depth)
{
	sbq->min_shallow_depth = min_shallow_depth;
	sbitmap_queue_update_wake_batch(sbq, sbq->sb.depth);
}

static inline int __sbitmap_queue_get(struct sbitmap_queue *sbq)
{
	return sbitmap_get(&sbq->sb);
}

static inline int sbq_index_inc(int index)
{
	return (index + 1) & (SBQ_WAIT_QUEUES - 1);
}

/* The waiters of nr frees, from the wait queue at wake_index on. */
static inline void __sbitmap_queue_wake_up(struct sbitmap_queue *sbq, int nr)
{
	int wake_index;

	if (!atomic_read(&sbq->ws_active))
		return;
	wake_index = atomic_read(&sbq->wake_index);
	for (int i = 0; i < SBQ_WAIT_QUEUES; i++) {
		struct sbq_wait_state *ws = &sbq->ws[wake_index];

		wake_index = sbq_index_inc(wake_index);
		if (waitqueue_active(&ws->wait)) {
			int woken = wake_up_nr(&ws->wait, nr);

			if (woken == nr)
				break;
			nr -= woken;
		}
	}
	atomic_set(&sbq->wake_index, wake_index);
}

/* Frees are counted while anyone waits; each wake_batch of them wakes waiters. */
static inline void sbitmap_queue_wake_up(struct sbitmap_queue *sbq, int nr)
{
	unsigned int wake_batch = sbq->wake_batch;

	if (!atomic_read(&sbq->ws_active))
		return;
	atomic_add(nr, &sbq->completion_cnt);
	if ((unsigned int)atomic_read(&sbq->completion_cnt) -
		(unsigned int)atomic_read(&sbq->wakeup_cnt) <
	    wake_batch)
		return;
	atomic_set(&sbq->wakeup_cnt, (int)((unsigned int)atomic_read(&sbq->wakeup_cnt) + wake_batch));
	__sbitmap_queue_wake_up(sbq, (int)wake_batch);
}

static inline void sbitmap_queue_clear(struct sbitmap_queue *sbq, unsigned int nr,
				       unsigned int cpu)
{
	(void)cpu;
	sbitmap_deferred_clear_bit(&sbq->sb, nr);
	sbitmap_queue_wake_up(sbq, 1);
	if (!sbq->sb.round_robin && nr < sbq->sb.depth)
		*sbq->sb.alloc_hint = nr; /* sbitmap_update_cpu_hint() */
}

static inline struct sbq_wait_state *sbq_wait_ptr(struct sbitmap_queue *sbq, atomic_t *wait_index)
{
	struct sbq_wait_state *ws = &sbq->ws[atomic_read(wait_index)];

	atomic_set(wait_index, sbq_index_inc(atomic_read(wait_index)));
	return ws;
}

static inline void sbitmap_add_wait_queue(struct sbitmap_queue *sbq, struct sbq_wait_state *ws,
					  struct sbq_wait *sbq_wait)
{
	if (!sbq_wait->sbq) {
		sbq_wait->sbq = sbq;
		atomic_inc(&sbq->ws_active);
		add_wait_queue(&ws->wait, &sbq_wait->wait);
	}
}

static inline void sbitmap_del_wait_queue(struct sbq_wait *sbq_wait)
{
	list_del_init(&sbq_wait->wait.entry);
	if (sbq_wait->sbq) {
		atomic_dec(&sbq_wait->sbq->ws_active);
		sbq_wait->sbq = NULL;
	}
}

#endif
