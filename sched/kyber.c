// SPDX-License-Identifier: GPL-2.0
/*
 * Kyber, after block/kyber-iosched.c of Linux 6.12 (written anew for this core), with the parts
 * of lib/sbitmap.c (6.12) its token pools decide by.
 *
 * Insert: the request goes to the tail of its domain's list (the kernel's per-CPU kcq list, then
 * flushed in order to the hardware queue's list: one CPU, so one list in arrival order, whose
 * first flushed[d] requests are those kyber_flush_busy_kcqs() has moved to khd->rqs[d]).
 * Merging (kyber_bio_merge()): a bio may join a request of its domain still in the kcq, the newest
 * first; the block layer walks them as blk_bio_list_merge() does (blk/merge.c: at most 8, the
 * first refusal ends it) and does the join. Nothing else merges under kyber: no elevator hash,
 * no one-hit cache, no request into request, no insert merge (kyber_insert_requests() tries
 * none), and the plug's merge is the block layer's.
 * Dispatch (kyber_dispatch_request()): the current domain while its batch lasts, else the next
 * domains round robin, each giving its oldest request if a token of its pool can be had (with
 * khd->rqs[d] empty the kcq is flushed to it only once the token is had, so the requests of a
 * throttled domain stay mergeable). A pool
 * without a free token puts the hardware queue on its wait queue (kyber_get_domain_token()); the
 * queue is run again once wake_batch tokens have been freed since (sbitmap_queue_wake_up()), or
 * when anything else runs it (a new request, a restart).
 * Completion (kyber_completed_request(), kyber_finish_request()): the total latency (from the
 * request's allocation, insert_ns here) and the I/O latency (from its dispatch) go into the
 * domain's histograms in buckets of a quarter of its target, the timer is set to fire 100 ms
 * (HZ/10) later unless it fires sooner, and the token goes back.
 * The timer (kyber_timer_fn()): the p90 of each domain's I/O latency says whether the device is
 * congested (a p90 over target); the p99 of each domain's total latency then scales its pool by
 * (p99 bucket + 1) / 4, growing a domain over its target always and shrinking one under it only
 * when congested. A domain without enough samples (500, or 1 s since its first) keeps its last
 * p99 for the next congestion.
 *
 * Deliberately unlike the kernel:
 *   - one CPU: the per-CPU histograms the timer sums are one histogram here (samples go straight
 *     into the sum the timer reads: nothing reads it between two timer runs, so it is the same);
 *   - the token pools' per-CPU allocation hint starts at 0 (the kernel draws it at random below
 *     the depth, and again when a shrink leaves it beyond): which token numbers requests hold
 *     decides how many can be dispatched after a shrink, since a token at or beyond the new
 *     depth stays out until it is freed while the free ones under it are handed out;
 *   - blk-mq runs the queue again BLK_MQ_BUDGET_DELAY (3 ms) after a dispatch_request() that gave
 *     nothing while has_work() held (__blk_mq_do_dispatch_sched()); blk/ does not, so a
 *     throttled domain waits for its wake batch, a new request or a restart;
 *   - one CPU, so one kcq: every submitter's bio looks in the same list (the kernel's looks in
 *     the kcq of the CPU it is submitted on), as the oracle's shim (one ctx) does too.
 */
#include "kyber.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Reserve 25% of the scheduler tags for synchronous requests. */
#define KYBER_ASYNC_PERCENT 75
/* Histogram buckets a quarter of the target wide: 4 good ones (<= target), 4 bad. */
#define KYBER_LATENCY_SHIFT   2
#define KYBER_GOOD_BUCKETS    (1 << KYBER_LATENCY_SHIFT)
#define KYBER_LATENCY_BUCKETS (2 << KYBER_LATENCY_SHIFT)
enum {
	KYBER_TOTAL_LATENCY = 0,
	KYBER_IO_LATENCY,
};
/* The stats timer: HZ/10 jiffies after a completion; a percentile waits for 500 samples or HZ. */
#define KYBER_TIMER_JIFFIES  (SCHED_HZ / 10)
#define KYBER_MIN_SAMPLES    500
#define KYBER_SAMPLE_TIMEOUT SCHED_HZ
/* lib/sbitmap.c: wait queues per pool and the most frees a wake-up waits for. */
#define SBQ_WAIT_QUEUES 8
#define SBQ_WAKE_BATCH	8
/* Every pool's depth is at most its initial one, 4 words of 1 << shift bits (below). */
#define KYBER_TOKEN_WORDS 4
#define KYBER_TIMELINE	  1024

static const uint32_t kyber_depth[KYBER_NUM_DOMAINS] = {
    [KYBER_READ] = 256,
    [KYBER_WRITE] = 128,
    [KYBER_DISCARD] = 64,
    [KYBER_OTHER] = 16,
};

static const uint32_t kyber_batch_size[KYBER_NUM_DOMAINS] = {
    [KYBER_READ] = 16,
    [KYBER_WRITE] = 8,
    [KYBER_DISCARD] = 1,
    [KYBER_OTHER] = 1,
};

/* The discard domain's target: no sysfs file. */
#define KYBER_DISCARD_LAT_NSEC (5ull * 1000000000ull)

static const char *const kyber_domain_names[KYBER_NUM_DOMAINS] = {
    [KYBER_READ] = "READ",
    [KYBER_WRITE] = "WRITE",
    [KYBER_DISCARD] = "DISCARD",
    [KYBER_OTHER] = "OTHER",
};

static const char *const kyber_latency_type_names[2] = {
    [KYBER_TOTAL_LATENCY] = "total",
    [KYBER_IO_LATENCY] = "I/O",
};

static const struct sched_tunable_desc kyber_tunables[KYBER_NR_TUNABLES] = {
    /* kstrtoull(): the kernel takes any u64; the core's tunables are int64. */
    [KYBER_READ_LAT_NSEC] = {"read_lat_nsec", "ns", 0, INT64_MAX, 2000000,
			     "target latency of reads: the read domain's pool grows while their "
			     "p99 is over it and shrinks under congestion while under it"},
    [KYBER_WRITE_LAT_NSEC] = {"write_lat_nsec", "ns", 0, INT64_MAX, 10000000,
			      "target latency of writes (the write domain's pool, as "
			      "read_lat_nsec for reads)"},
};

/*
 * A domain's token pool: an sbitmap_queue as kyber_queue_data_alloc() makes it (no shift given,
 * not round robin, min_shallow_depth never set), and the hardware queue's wait entry on it.
 */
struct kyber_tokens {
	uint64_t word[KYBER_TOKEN_WORDS];    /* taken bits */
	uint64_t cleared[KYBER_TOKEN_WORDS]; /* freed bits not yet taken off word */
	uint32_t depth;			     /* sb.depth */
	uint32_t shift;			     /* sb.shift: bits per word 1 << shift */
	uint32_t map_nr;		     /* sb.map_nr: words searched */
	uint32_t hint;			     /* the CPU's alloc_hint */
	uint32_t wake_batch;
	uint32_t ws_active;
	uint32_t completion_cnt, wakeup_cnt; /* the kernel's atomic_t, wrapping alike */
	bool waiting;			     /* khd->domain_wait[d] is queued on the pool */
	uint32_t in_use;		     /* statistics: tokens held */
};

struct kyber_domain_stats {
	uint64_t dispatched;
	uint64_t throttled;	/* dispatch found requests and no token (trace_kyber_throttled) */
	uint64_t token_waits;	/* the hardware queue went on the pool's wait queue */
	uint64_t token_wakeups; /* ... and was woken by a freed token */
	uint64_t depth_changes, depth_ups, depth_downs;
	uint32_t depth_min, depth_max, tokens_max;
	uint64_t depth_ns, tokens_ns; /* integrals over time, for the means */
	uint64_t since_ns;	      /* start of the integrals */
	uint64_t last_ns;	      /* their last update */
	/* Percentile buckets the timer computed: p90 of I/O latency, p99 of total latency. */
	uint64_t p90[KYBER_LATENCY_BUCKETS], p99[KYBER_LATENCY_BUCKETS];
	int8_t last_p90, last_p99;
};

/* One row of the timeline: the pools at a timer run. */
struct kyber_sample {
	uint64_t t_ns; /* the clock's */
	uint16_t depth[KYBER_NUM_DOMAINS], tokens[KYBER_NUM_DOMAINS];
	int8_t p90[KYBER_OTHER], p99[KYBER_OTHER]; /* computed in that run, -1 none */
	uint8_t bad;
};

struct kyber_data {
	/* kyber_queue_data */
	struct kyber_tokens tokens[KYBER_NUM_DOMAINS];
	uint32_t async_depth;
	uint32_t latency_buckets[KYBER_OTHER][2][KYBER_LATENCY_BUCKETS];
	uint64_t latency_timeout[KYBER_OTHER]; /* jiffies; 0 unset */
	int32_t domain_p99[KYBER_OTHER];
	uint64_t latency_targets[KYBER_OTHER];
	bool timer_armed;
	uint64_t timer_expires; /* jiffies */
	/* kyber_hctx_data: one hardware queue. rqs[d] is khd->rqs[d] then the one kcq's
	 * rq_list[d], in arrival order: its first flushed[d] requests have been moved to khd->rqs
	 * (kyber_flush_busy_kcqs()), the rest are still in the kcq, where bios merge. */
	struct sched_list rqs[KYBER_NUM_DOMAINS];
	uint32_t queued[KYBER_NUM_DOMAINS];
	uint32_t flushed[KYBER_NUM_DOMAINS];
	uint32_t nr_queued;
	uint32_t cur_domain;
	uint32_t batching;
	/* statistics */
	uint64_t timer_runs, congested;
	struct kyber_domain_stats st[KYBER_NUM_DOMAINS];
	uint32_t tl_head, tl_len; /* ring of the last KYBER_TIMELINE samples */
	uint64_t tl_dropped;
	struct kyber_sample timeline[KYBER_TIMELINE];
	uint64_t start_ns; /* init: the timeline's 0 */
	uint64_t now;
	const struct sched_device *dev;
};

/* ---- token pools (lib/sbitmap.c) ------------------------------------------------------------ */

/* sbitmap_calculate_shift(): small pools spread over words of fewer bits. */
static uint32_t tokens_shift(uint32_t depth)
{
	uint32_t shift = 6;

	if (depth >= 4)
		while ((4u << shift) > depth)
			shift--;
	return shift;
}

/*
 * sbq_calc_wake_batch(): a kyber pool's min_shallow_depth is UINT_MAX, so its usable depth is its
 * depth, and a waiter wakes after depth / 8 frees (1 .. 8).
 */
static uint32_t tokens_wake_batch(uint32_t depth)
{
	uint32_t b = depth / SBQ_WAIT_QUEUES;

	return b < 1 ? 1 : b > SBQ_WAKE_BATCH ? SBQ_WAKE_BATCH : b;
}

static void tokens_init(struct kyber_tokens *t, uint32_t depth)
{
	memset(t, 0, sizeof(*t));
	t->shift = tokens_shift(depth);
	t->depth = depth;
	t->map_nr = (depth + (1u << t->shift) - 1) >> t->shift;
	t->wake_batch = tokens_wake_batch(depth);
}

/* __map_depth(): the last word searched holds what is left of the depth. */
static uint32_t tokens_word_depth(const struct kyber_tokens *t, uint32_t index)
{
	return index == t->map_nr - 1 ? t->depth - (index << t->shift) : 1u << t->shift;
}

/* sbitmap_deferred_clear(): the word's freed bits become free. */
static bool tokens_deferred_clear(struct kyber_tokens *t, uint32_t index)
{
	if (!t->cleared[index])
		return false;
	t->word[index] &= ~t->cleared[index];
	t->cleared[index] = 0;
	return true;
}

/* __sbitmap_get_word() from bit 0 (not round robin: the hint picks the word only). */
static int tokens_get_word(struct kyber_tokens *t, uint32_t index)
{
	uint32_t d = tokens_word_depth(t, index);
	uint64_t free = ~t->word[index];
	int nr;

	if (d < 64)
		free &= (1ull << d) - 1;
	if (!free)
		return -1;
	nr = __builtin_ctzll(free);
	t->word[index] |= 1ull << nr;
	return nr;
}

/*
 * sbitmap_get(): the lowest free bit of the hint's word, else of the next words in turn (each
 * word's freed bits are taken back only when it has no other free one); the hint moves on only
 * when the bit it named was the one taken. -1 when the pool is exhausted.
 */
static int tokens_get(struct kyber_tokens *t)
{
	uint32_t depth = t->depth, hint = t->hint, index;
	int nr = -1;

	if (hint >= depth)
		hint = t->hint = 0; /* the kernel draws one at random below depth */
	index = hint >> t->shift;
	for (uint32_t i = 0; i < t->map_nr; i++) {
		do
			nr = tokens_get_word(t, index);
		while (nr < 0 && tokens_deferred_clear(t, index));
		if (nr >= 0) {
			nr += (int)(index << t->shift);
			break;
		}
		if (++index >= t->map_nr)
			index = 0;
	}
	/* update_alloc_hint_after_get() */
	if (nr < 0) {
		t->hint = 0;
	} else if ((uint32_t)nr == hint) {
		hint = (uint32_t)nr + 1;
		if (hint >= depth - 1)
			hint = 0;
		t->hint = hint;
	}
	if (nr >= 0)
		t->in_use++;
	return nr;
}

/*
 * sbitmap_queue_wake_up(sbq, 1): while someone waits, frees are counted, and each wake_batch of
 * them wakes the waiters; the hardware queue's entry (kyber_domain_wake()) takes itself off the
 * wait queue and asks for a queue run. The counts are kept across waits, as the kernel's.
 */
static bool tokens_wake_up(struct kyber_tokens *t)
{
	if (!t->ws_active)
		return false;
	t->completion_cnt++;
	if (t->completion_cnt - t->wakeup_cnt < t->wake_batch)
		return false;
	t->wakeup_cnt += t->wake_batch;
	if (!t->waiting)
		return false;
	t->waiting = false; /* sbitmap_del_wait_queue() */
	t->ws_active--;
	return true;
}

/* sbitmap_queue_clear(): the bit is freed (deferred), waiters may wake, the hint points at it.
 * True when the hardware queue is to be run (kyber_domain_wake()). */
static bool tokens_clear(struct kyber_tokens *t, uint32_t nr)
{
	bool run;

	t->cleared[nr >> t->shift] |= 1ull << (nr & ((1u << t->shift) - 1));
	t->in_use--;
	run = tokens_wake_up(t);
	if (nr < t->depth)
		t->hint = nr;
	return run;
}

/* sbitmap_queue_resize(): the wake batch for the new depth; the freed bits of the words searched
 * so far are taken back, and the words searched from now on are those the depth covers. */
static void tokens_resize(struct kyber_tokens *t, uint32_t depth)
{
	t->wake_batch = tokens_wake_batch(depth);
	for (uint32_t i = 0; i < t->map_nr; i++)
		tokens_deferred_clear(t, i);
	t->depth = depth;
	t->map_nr = (depth + (1u << t->shift) - 1) >> t->shift;
}

/* ---- statistics ----------------------------------------------------------------------------- */

static void stats_advance(struct kyber_data *kd, enum kyber_domain d, uint64_t now)
{
	struct kyber_domain_stats *s = &kd->st[d];

	if (now > s->last_ns) {
		s->depth_ns += (uint64_t)kd->tokens[d].depth * (now - s->last_ns);
		s->tokens_ns += (uint64_t)kd->tokens[d].in_use * (now - s->last_ns);
		s->last_ns = now;
	}
}

static void kyber_log(struct kyber_data *kd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The kernel's kyber tracepoints, as P lines ("P kyber_adjust WRITE 64"). */
static void kyber_log(struct kyber_data *kd, const char *fmt, ...)
{
	char buf[SCHED_TRACE_LINE_MAX];
	va_list ap;

	if (!sched_trace_on(kd->dev->trace))
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sched_trace_printf(kd->dev->trace, kd->now, "P %s", buf);
}

/* ---- init ------------------------------------------------------------------------------------ */

static size_t kyber_state_size(const struct sched_config *cfg)
{
	(void)cfg;
	return sizeof(struct kyber_data);
}

static int64_t tunable(const struct sched_config *cfg, enum kyber_tunable t)
{
	return cfg->tunable_given[t] ? cfg->tunable[t] : kyber_tunables[t].def;
}

/* kyber_queue_data_alloc(), kyber_init_hctx() and kyber_depth_updated(). */
static int kyber_init(void *st, const struct sched_config *cfg, const struct sched_device *dev,
		      uint64_t now)
{
	struct kyber_data *kd = st;

	memset(kd, 0, sizeof(*kd));
	kd->dev = dev;
	kd->now = kd->start_ns = now;
	for (int d = 0; d < KYBER_NUM_DOMAINS; d++) {
		tokens_init(&kd->tokens[d], kyber_depth[d]);
		sched_list_init(&kd->rqs[d]);
		kd->st[d].depth_min = kd->st[d].depth_max = kyber_depth[d];
		kd->st[d].since_ns = kd->st[d].last_ns = now;
		kd->st[d].last_p90 = kd->st[d].last_p99 = -1;
	}
	for (int d = 0; d < KYBER_OTHER; d++)
		kd->domain_p99[d] = -1;
	kd->latency_targets[KYBER_READ] = (uint64_t)tunable(cfg, KYBER_READ_LAT_NSEC);
	kd->latency_targets[KYBER_WRITE] = (uint64_t)tunable(cfg, KYBER_WRITE_LAT_NSEC);
	kd->latency_targets[KYBER_DISCARD] = KYBER_DISCARD_LAT_NSEC;
	/* 75% of nr_requests, the shallow depth of async allocations (unsigned arithmetic). */
	kd->async_depth = dev->nr_requests * KYBER_ASYNC_PERCENT / 100u;
	return 0;
}

/* kyber_sched_domain(): flushes would be OTHER, but the core sends them round the elevator. */
static enum kyber_domain kyber_sched_domain(const struct sched_request *rq)
{
	switch (rq->op) {
	case SCHED_OP_READ:
		return KYBER_READ;
	case SCHED_OP_WRITE:
		return KYBER_WRITE;
	case SCHED_OP_DISCARD:
		return KYBER_DISCARD;
	default:
		return KYBER_OTHER;
	}
}

/* kyber_prepare_request() (no token yet) and kyber_insert_requests(). */
static void kyber_insert(void *st, struct sched_request *rq, uint64_t now)
{
	struct kyber_data *kd = st;
	enum kyber_domain d = kyber_sched_domain(rq);

	(void)now;
	rq->priv.aux = UINT64_MAX;
	sched_list_add_tail(&rq->priv.fifo, &kd->rqs[d]);
	kd->queued[d]++;
	kd->nr_queued++;
}

/*
 * kyber_bio_merge(): the requests of the bio's domain still in the kcq (inserted, not yet flushed
 * to khd->rqs), newest first, at most max; the block layer walks them (blk_bio_list_merge()).
 */
static unsigned int kyber_bio_merge_list(void *st, const struct sched_request *bio,
					 struct sched_request **out, unsigned int max)
{
	struct kyber_data *kd = st;
	enum kyber_domain d = kyber_sched_domain(bio);
	uint32_t in_kcq = kd->queued[d] - kd->flushed[d];
	struct sched_list *head = &kd->rqs[d], *pos;
	unsigned int n = 0;

	for (pos = head->prev; pos != head && n < in_kcq && n < max; pos = pos->prev)
		out[n++] = sched_list_entry(pos, struct sched_request, priv.fifo);
	return n;
}

/* ---- dispatch ------------------------------------------------------------------------------- */

/*
 * kyber_get_domain_token(): a token of the current domain's pool. Without one the hardware queue
 * goes on the pool's wait queue (once) and tries again; with one it comes off it.
 */
static int kyber_get_domain_token(struct kyber_data *kd)
{
	struct kyber_tokens *t = &kd->tokens[kd->cur_domain];
	int nr = tokens_get(t);

	if (nr < 0 && !t->waiting) {
		t->waiting = true; /* sbitmap_add_wait_queue() */
		t->ws_active++;
		kd->st[kd->cur_domain].token_waits++;
		nr = tokens_get(t);
	}
	if (nr >= 0 && t->waiting) {
		t->waiting = false;
		t->ws_active--;
	}
	return nr;
}

/*
 * kyber_dispatch_cur_domain(): the current domain's oldest request, if a token can be had. The
 * oldest is khd->rqs[d]'s first, or, when that list is empty, the kcq's first once the kcq has
 * been flushed to it, which happens only with a token (a throttled domain's requests stay in the
 * kcq, where they can still be merged).
 */
static struct sched_request *kyber_dispatch_cur_domain(struct kyber_data *kd)
{
	uint32_t d = kd->cur_domain;
	struct sched_request *rq;
	int nr;

	if (sched_list_empty(&kd->rqs[d]))
		return NULL;
	stats_advance(kd, d, kd->now);
	nr = kyber_get_domain_token(kd);
	if (nr < 0) {
		kd->st[d].throttled++;
		kyber_log(kd, "kyber_throttled %s", kyber_domain_names[d]);
		return NULL;
	}
	kd->batching++;
	/* khd->rqs[d] empty: with the token in hand, the kcq's requests are flushed to it. */
	if (!kd->flushed[d])
		kd->flushed[d] = kd->queued[d];
	rq = sched_list_first_entry(&kd->rqs[d], struct sched_request, priv.fifo);
	sched_list_del_init(&rq->priv.fifo);
	rq->priv.aux = (uint64_t)nr;
	kd->flushed[d]--;
	kd->queued[d]--;
	kd->nr_queued--;
	kd->st[d].dispatched++;
	if (kd->tokens[d].in_use > kd->st[d].tokens_max)
		kd->st[d].tokens_max = kd->tokens[d].in_use;
	return rq;
}

/*
 * kyber_dispatch_request(): within its batch the current domain goes on; otherwise (or when it
 * has nothing or no token) a new batch starts in the next domain that gives a request, coming
 * back round to the current one last. blk-mq asks only while has_work() holds, so nothing of
 * this runs (no batch reset, no turn) when nothing is queued.
 */
static struct sched_request *kyber_dispatch(void *st, uint64_t now)
{
	struct kyber_data *kd = st;
	struct sched_request *rq;

	if (!kd->nr_queued)
		return NULL;
	kd->now = now;
	if (kd->batching < kyber_batch_size[kd->cur_domain]) {
		rq = kyber_dispatch_cur_domain(kd);
		if (rq)
			return rq;
	}
	kd->batching = 0;
	for (int i = 0; i < KYBER_NUM_DOMAINS; i++) {
		kd->cur_domain = kd->cur_domain == KYBER_NUM_DOMAINS - 1 ? 0 : kd->cur_domain + 1;
		rq = kyber_dispatch_cur_domain(kd);
		if (rq)
			return rq;
	}
	return NULL;
}

/* ---- completion ----------------------------------------------------------------------------- */

/* add_latency_sample(): buckets a quarter of the target wide, the last one open. */
static void add_latency_sample(struct kyber_data *kd, enum kyber_domain d, int type,
			       uint64_t target, uint64_t latency)
{
	uint32_t bucket = 0;

	if (latency > 0) {
		uint64_t divisor = target >> KYBER_LATENCY_SHIFT;
		uint64_t b = (latency - 1) / (divisor ? divisor : 1);

		bucket = b < KYBER_LATENCY_BUCKETS - 1 ? (uint32_t)b : KYBER_LATENCY_BUCKETS - 1;
	}
	kd->latency_buckets[d][type][bucket]++;
}

/*
 * kyber_completed_request() then kyber_finish_request(): the samples (total latency from the
 * request's allocation, I/O latency from its dispatch), the timer brought to within HZ/10 of now
 * (timer_reduce()), and the token back to its pool. True when the freed token wakes the hardware
 * queue, which blk-mq then runs (kyber_domain_wake()).
 */
static bool kyber_completed(void *st, struct sched_request *rq, uint64_t now)
{
	struct kyber_data *kd = st;
	enum kyber_domain d = kyber_sched_domain(rq);
	bool run;

	kd->now = now;
	if (d != KYBER_OTHER) {
		uint64_t target = kd->latency_targets[d];
		uint64_t expires = sched_jiffies(now) + KYBER_TIMER_JIFFIES;

		add_latency_sample(kd, d, KYBER_TOTAL_LATENCY, target, now - rq->insert_ns);
		add_latency_sample(kd, d, KYBER_IO_LATENCY, target, now - rq->dispatch_ns);
		if (!kd->timer_armed || (int64_t)(expires - kd->timer_expires) < 0) {
			kd->timer_armed = true;
			kd->timer_expires = expires;
		}
	}
	if (rq->priv.aux == UINT64_MAX) /* rq_clear_domain_token(): never dispatched */
		return false;
	stats_advance(kd, d, now);
	run = tokens_clear(&kd->tokens[d], (uint32_t)rq->priv.aux);
	rq->priv.aux = UINT64_MAX;
	if (run)
		kd->st[d].token_wakeups++;
	return run;
}

/* ---- the timer ------------------------------------------------------------------------------ */

/*
 * calculate_percentile(): the bucket holding the given percentile of the domain's histogram of
 * this type, or -1 when there are no samples, or fewer than 500 and not yet a second since the
 * domain's first (a deadline both types share). Computing it empties the histogram.
 */
static int calculate_percentile(struct kyber_data *kd, enum kyber_domain d, int type,
				uint32_t percentile)
{
	uint32_t *buckets = kd->latency_buckets[d][type];
	uint32_t bucket, samples = 0, percentile_samples;
	uint64_t jiffies = sched_jiffies(kd->now);

	for (bucket = 0; bucket < KYBER_LATENCY_BUCKETS; bucket++)
		samples += buckets[bucket];
	if (!samples)
		return -1;
	if (!kd->latency_timeout[d]) /* max(jiffies + HZ, 1UL): 0 means unset */
		kd->latency_timeout[d] =
		    jiffies + KYBER_SAMPLE_TIMEOUT > 1 ? jiffies + KYBER_SAMPLE_TIMEOUT : 1;
	if (samples < KYBER_MIN_SAMPLES && (int64_t)(jiffies - kd->latency_timeout[d]) < 0)
		return -1;
	kd->latency_timeout[d] = 0;
	percentile_samples = (samples * percentile + 99) / 100;
	for (bucket = 0; bucket < KYBER_LATENCY_BUCKETS - 1; bucket++) {
		if (buckets[bucket] >= percentile_samples)
			break;
		percentile_samples -= buckets[bucket];
	}
	memset(buckets, 0, sizeof(kd->latency_buckets[d][type]));
	kyber_log(kd, "kyber_latency %s %s p%u %u/%u samples=%u", kyber_domain_names[d],
		  kyber_latency_type_names[type], percentile, bucket + 1, 1u << KYBER_LATENCY_SHIFT,
		  samples);
	return (int)bucket;
}

/* kyber_resize_domain(): within 1 .. the domain's initial depth. */
static void kyber_resize_domain(struct kyber_data *kd, enum kyber_domain d, uint32_t depth)
{
	struct kyber_domain_stats *s = &kd->st[d];
	uint32_t old = kd->tokens[d].depth;

	if (depth < 1)
		depth = 1;
	if (depth > kyber_depth[d])
		depth = kyber_depth[d];
	if (depth == old)
		return;
	stats_advance(kd, d, kd->now);
	tokens_resize(&kd->tokens[d], depth);
	s->depth_changes++;
	if (depth > old)
		s->depth_ups++;
	else
		s->depth_downs++;
	if (depth < s->depth_min)
		s->depth_min = depth;
	if (depth > s->depth_max)
		s->depth_max = depth;
	kyber_log(kd, "kyber_adjust %s %u", kyber_domain_names[d], depth);
}

static void timeline_add(struct kyber_data *kd, const int *p90, const int *p99, bool bad)
{
	struct kyber_sample *r;

	if (kd->tl_len == KYBER_TIMELINE) {
		kd->tl_head = (kd->tl_head + 1) % KYBER_TIMELINE;
		kd->tl_len--;
		kd->tl_dropped++;
	}
	r = &kd->timeline[(kd->tl_head + kd->tl_len++) % KYBER_TIMELINE];
	r->t_ns = kd->now;
	for (int d = 0; d < KYBER_NUM_DOMAINS; d++) {
		r->depth[d] = (uint16_t)kd->tokens[d].depth;
		r->tokens[d] = (uint16_t)kd->tokens[d].in_use;
	}
	for (int d = 0; d < KYBER_OTHER; d++) {
		r->p90[d] = (int8_t)p90[d];
		r->p99[d] = (int8_t)p99[d];
	}
	r->bad = bad;
}

/*
 * kyber_timer_fn(): congestion is a domain whose p90 I/O latency is over its target. Each
 * domain's p99 total latency then scales its pool: over target, up (by (p99 + 1) / 4, up to
 * twice); under it, down, but only under congestion. A p99 computed without congestion is kept
 * for the next one, and congestion uses it up.
 */
static void kyber_timer_fn(struct kyber_data *kd)
{
	int p90s[KYBER_OTHER], p99s[KYBER_OTHER];
	bool bad = false;

	kd->timer_runs++;
	for (int d = 0; d < KYBER_OTHER; d++) {
		int p90 = calculate_percentile(kd, d, KYBER_IO_LATENCY, 90);

		p90s[d] = p90;
		if (p90 >= 0) {
			kd->st[d].p90[p90]++;
			kd->st[d].last_p90 = (int8_t)p90;
		}
		if (p90 >= KYBER_GOOD_BUCKETS)
			bad = true;
	}
	kd->congested += bad;
	for (int d = 0; d < KYBER_OTHER; d++) {
		int p99 = calculate_percentile(kd, d, KYBER_TOTAL_LATENCY, 99);

		p99s[d] = p99;
		if (p99 >= 0) {
			kd->st[d].p99[p99]++;
			kd->st[d].last_p99 = (int8_t)p99;
		}
		if (bad) {
			if (p99 < 0)
				p99 = kd->domain_p99[d];
			kd->domain_p99[d] = -1;
		} else if (p99 >= 0) {
			kd->domain_p99[d] = p99;
		}
		if (p99 < 0)
			continue;
		if (bad || p99 >= KYBER_GOOD_BUCKETS) {
			uint32_t orig_depth = kd->tokens[d].depth;

			kyber_resize_domain(
			    kd, d, (orig_depth * (uint32_t)(p99 + 1)) >> KYBER_LATENCY_SHIFT);
		}
	}
	for (int d = 0; d < KYBER_NUM_DOMAINS; d++)
		stats_advance(kd, d, kd->now);
	timeline_add(kd, p90s, p99s, bad);
}

/* A timer_list fires at the jiffy it expires on. */
static uint64_t kyber_next_timer(const void *st)
{
	const struct kyber_data *kd = st;

	return kd->timer_armed ? kd->timer_expires * SCHED_JIFFY_NS : SCHED_NO_TIMER;
}

static void kyber_timer(void *st, uint64_t now)
{
	struct kyber_data *kd = st;

	if (!kd->timer_armed || now < kd->timer_expires * SCHED_JIFFY_NS)
		return;
	kd->timer_armed = false;
	kd->now = now;
	kyber_timer_fn(kd);
}

/* ---- the rest of the ops -------------------------------------------------------------------- */

/* kyber_has_work() */
static bool kyber_has_work(const void *st)
{
	const struct kyber_data *kd = st;

	return kd->nr_queued != 0;
}

/* kyber_limit_depth(): async requests allocate from the first async_depth scheduler tags. */
static uint32_t kyber_limit_depth(void *st, const struct sched_request *rq)
{
	struct kyber_data *kd = st;

	return sched_rq_is_sync(rq) ? 0 : kd->async_depth;
}

static int64_t kyber_tunable_value(const void *st, unsigned int idx)
{
	const struct kyber_data *kd = st;

	switch (idx) {
	case KYBER_READ_LAT_NSEC:
		return (int64_t)kd->latency_targets[KYBER_READ];
	case KYBER_WRITE_LAT_NSEC:
		return (int64_t)kd->latency_targets[KYBER_WRITE];
	default:
		return 0;
	}
}

static const char *const stat_prefix[KYBER_NUM_DOMAINS] = {"read", "write", "discard", "other"};

static double mean_over(uint64_t integral, uint64_t since, uint64_t last)
{
	return last > since ? (double)integral / (double)(last - since) : 0.0;
}

static void kyber_emit_stats(const void *st, sched_stat_fn emit, void *ctx)
{
	const struct kyber_data *kd = st;
	char name[64];

#define EMIT(key, v)                                                                               \
	do {                                                                                       \
		snprintf(name, sizeof(name), "%s_%s", stat_prefix[d], key);                        \
		emit(ctx, name, -1, (double)(v));                                                  \
	} while (0)
	emit(ctx, "timer_runs", -1, (double)kd->timer_runs);
	emit(ctx, "congested", -1, (double)kd->congested);
	emit(ctx, "async_depth", -1, (double)kd->async_depth);
	emit(ctx, "timeline_dropped", -1, (double)kd->tl_dropped);
	for (int d = 0; d < KYBER_NUM_DOMAINS; d++) {
		const struct kyber_domain_stats *s = &kd->st[d];

		EMIT("depth", kd->tokens[d].depth);
		EMIT("depth_min", s->depth_min);
		EMIT("depth_max", s->depth_max);
		EMIT("depth_mean", mean_over(s->depth_ns, s->since_ns, s->last_ns));
		EMIT("depth_changes", s->depth_changes);
		EMIT("depth_ups", s->depth_ups);
		EMIT("depth_downs", s->depth_downs);
		EMIT("tokens_max", s->tokens_max);
		EMIT("tokens_mean", mean_over(s->tokens_ns, s->since_ns, s->last_ns));
		EMIT("dispatched", s->dispatched);
		EMIT("throttled", s->throttled);
		EMIT("token_waits", s->token_waits);
		EMIT("token_wakeups", s->token_wakeups);
		if (d == KYBER_OTHER)
			continue;
		EMIT("target_ns", kd->latency_targets[d]);
		EMIT("io_p90_last", s->last_p90);
		EMIT("total_p99_last", s->last_p99);
		/* Bucket b holds latencies up to (b + 1) / 4 of the target; the last one beyond. */
		for (int b = 0; b < KYBER_LATENCY_BUCKETS; b++) {
			snprintf(name, sizeof(name), "%s_io_p90_bucket%d", stat_prefix[d], b);
			emit(ctx, name, -1, (double)s->p90[b]);
		}
		for (int b = 0; b < KYBER_LATENCY_BUCKETS; b++) {
			snprintf(name, sizeof(name), "%s_total_p99_bucket%d", stat_prefix[d], b);
			emit(ctx, name, -1, (double)s->p99[b]);
		}
	}
#undef EMIT
}

static void kyber_emit_timeline(const void *st, sched_row_fn row, void *ctx)
{
	static const char *const columns[] = {"t_ms",
					      "read_depth",
					      "read_tokens",
					      "write_depth",
					      "write_tokens",
					      "discard_depth",
					      "discard_tokens",
					      "other_depth",
					      "other_tokens",
					      "read_io_p90",
					      "read_total_p99",
					      "write_io_p90",
					      "write_total_p99",
					      "discard_io_p90",
					      "discard_total_p99",
					      "congested"};
	const unsigned int n = sizeof(columns) / sizeof(columns[0]);
	const struct kyber_data *kd = st;

	for (uint32_t i = 0; i < kd->tl_len; i++) {
		const struct kyber_sample *r = &kd->timeline[(kd->tl_head + i) % KYBER_TIMELINE];
		double v[sizeof(columns) / sizeof(columns[0])];
		unsigned int k = 0;

		v[k++] = (double)(r->t_ns - kd->start_ns) / 1e6;
		for (int d = 0; d < KYBER_NUM_DOMAINS; d++) {
			v[k++] = r->depth[d];
			v[k++] = r->tokens[d];
		}
		for (int d = 0; d < KYBER_OTHER; d++) {
			v[k++] = r->p90[d];
			v[k++] = r->p99[d];
		}
		v[k++] = r->bad;
		row(ctx, columns, n, v);
	}
}

bool kyber_domain_state(const struct sched *s, enum kyber_domain d, struct kyber_domain_state *out)
{
	const struct kyber_data *kd = s->policy;

	if (sched_ops(s) != &sched_kyber_ops || (unsigned int)d >= KYBER_NUM_DOMAINS)
		return false;
	out->depth = kd->tokens[d].depth;
	out->in_use = kd->tokens[d].in_use;
	out->wake_batch = kd->tokens[d].wake_batch;
	out->waiting = kd->tokens[d].waiting;
	out->p99 = d < KYBER_OTHER ? kd->domain_p99[d] : -1;
	out->queued = kd->queued[d];
	out->in_kcq = kd->queued[d] - kd->flushed[d];
	return true;
}

void kyber_batch_state(const struct sched *s, uint32_t *cur_domain, uint32_t *batching)
{
	const struct kyber_data *kd = s->policy;

	*cur_domain = kd->cur_domain;
	*batching = kd->batching;
}

const struct sched_policy_ops sched_kyber_ops = {
    .name = "kyber",
    .blk_mode = SCHED_BLK_MQ,
    .tunables = kyber_tunables,
    .nr_tunables = KYBER_NR_TUNABLES,
    .state_size = kyber_state_size,
    .init = kyber_init,
    .insert = kyber_insert,
    .dispatch = kyber_dispatch,
    .completed = kyber_completed,
    .next_timer = kyber_next_timer,
    .timer = kyber_timer,
    .has_work = kyber_has_work,
    .emit_stats = kyber_emit_stats,
    .emit_timeline = kyber_emit_timeline,
    .limit_depth = kyber_limit_depth,
    .tunable_value = kyber_tunable_value,
    .bio_merge_list = kyber_bio_merge_list,
};
