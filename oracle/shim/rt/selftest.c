// SPDX-License-Identifier: GPL-2.0
/*
 * The shim's own checks, built with the shim's headers and runtime like a variant (the kernel's
 * rbtree interface, the elevator helpers, virtual-time timers, jiffies, per-instance memory) and
 * run by tests/unit/test_oracle_shim.c: a wrong shim would make the oracle compare the kernel's
 * files against a kernel that never was.
 */
#include "oracle_kernel.h"
#include "oracle_rt.h"

typedef void (*oracle_check_fn)(void *ctx, const char *what, bool ok);
int oracle_selftest_run(oracle_check_fn check, void *ctx, u64 seed);

static oracle_check_fn chk;
static void *chk_ctx;
static int failures;

#define CHECK(cond, what)                                                                          \
	do {                                                                                       \
		bool _ok = (cond);                                                                 \
		if (!_ok)                                                                          \
			failures++;                                                                \
		chk(chk_ctx, what, _ok);                                                           \
	} while (0)

static u64 rng;
static u64 rnd(void)
{
	u64 z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* ---- rbtree -------------------------------------------------------------------------------- */
struct item {
	struct rb_node node;
	u64 key;
	u32 seq; /* insertion order: equal keys must stay in it */
	bool in;
};

static int black_height(const struct rb_node *n, bool *ok)
{
	int l, r;

	if (!n)
		return 1;
	if (!(n->__rb_parent_color & 1)) { /* red: no red child */
		if ((n->rb_left && !(n->rb_left->__rb_parent_color & 1)) ||
		    (n->rb_right && !(n->rb_right->__rb_parent_color & 1)))
			*ok = false;
	}
	if ((n->rb_left && rb_parent(n->rb_left) != n) ||
	    (n->rb_right && rb_parent(n->rb_right) != n))
		*ok = false;
	l = black_height(n->rb_left, ok);
	r = black_height(n->rb_right, ok);
	if (l != r)
		*ok = false;
	return l + (int)(n->__rb_parent_color & 1);
}

static void insert(struct rb_root *root, struct item *it)
{
	struct rb_node **p = &root->rb_node, *parent = NULL;

	while (*p) {
		struct item *x = rb_entry(*p, struct item, node);

		parent = *p;
		p = it->key < x->key ? &(*p)->rb_left : &(*p)->rb_right;
	}
	rb_link_node(&it->node, parent, p);
	rb_insert_color(&it->node, root);
	it->in = true;
}

static void test_rbtree(void)
{
	enum { N = 2000 };
	struct item *items = kcalloc(N, sizeof(*items), GFP_KERNEL);
	struct rb_root root = RB_ROOT;
	bool shape_ok = true, order_ok = true, walk_ok = true;
	u32 in = 0;

	for (int round = 0; round < 20000; round++) {
		struct item *it = &items[rnd() % N];

		if (!it->in) {
			it->key = rnd() % 512; /* many equal keys */
			it->seq = (u32)round;
			insert(&root, it);
			in++;
		} else {
			rb_erase(&it->node, &root);
			RB_CLEAR_NODE(&it->node);
			it->in = false;
			in--;
		}
		if (round % 97)
			continue;
		bool ok = true;

		black_height(root.rb_node, &ok);
		if (root.rb_node && !(root.rb_node->__rb_parent_color & 1))
			ok = false;
		shape_ok &= ok;
		/* in order: keys ascending, equal keys in insertion order; prev mirrors next */
		u32 count = 0;
		struct item *prev = NULL;

		for (struct rb_node *n = rb_first(&root); n; n = rb_next(n), count++) {
			struct item *x = rb_entry(n, struct item, node);

			if (prev && (prev->key > x->key || (prev->key == x->key && prev->seq > x->seq)))
				order_ok = false;
			if (rb_prev(n) != (prev ? &prev->node : NULL))
				walk_ok = false;
			prev = x;
		}
		if (count != in || rb_last(&root) != (prev ? &prev->node : NULL))
			walk_ok = false;
	}
	CHECK(shape_ok, "rbtree: red-black invariants after 20000 random inserts and erases");
	CHECK(order_ok, "rbtree: in-order keys ascend, equal keys in insertion order");
	CHECK(walk_ok, "rbtree: rb_first/rb_next/rb_prev/rb_last walk every node once");
	kfree(items);
}

/* ---- the elevator helpers ------------------------------------------------------------------ */
static void test_elevator(void)
{
	struct request rq[6];
	struct rb_root root = RB_ROOT;
	struct request_queue q;
	static const sector_t pos[6] = {800, 100, 500, 100, 900, 300};
	bool ok = true;

	memset(rq, 0, sizeof(rq));
	for (int i = 0; i < 6; i++) {
		rq[i].__sector = pos[i];
		rq[i].__data_len = 4096;
		elv_rb_add(&root, &rq[i]);
	}
	/* 100 (rq1), 100 (rq3), 300, 500, 800, 900 */
	struct request *r = rb_entry_rq(rb_first(&root));

	ok &= r == &rq[1];
	r = elv_rb_latter_request(NULL, r);
	ok &= r == &rq[3];
	ok &= elv_rb_former_request(NULL, r) == &rq[1];
	ok &= elv_rb_find(&root, 500) == &rq[2] && !elv_rb_find(&root, 501);
	elv_rb_del(&root, &rq[2]);
	ok &= RB_EMPTY_NODE(&rq[2].rb_node) && !elv_rb_find(&root, 500);
	CHECK(ok, "elv_rb_add/find/latter/former/del: sector order, equal sectors after the first");

	/* elv_dispatch_sort(): behind the boundary the sweep wraps, requests sorted from it. */
	memset(&q, 0, sizeof(q));
	INIT_LIST_HEAD(&q.queue_head);
	q.end_sector = 400;
	q.nr_sorted = 5;
	static const sector_t d[5] = {500, 100, 700, 450, 200};
	struct request dr[5];

	memset(dr, 0, sizeof(dr));
	for (int i = 0; i < 5; i++) {
		dr[i].__sector = d[i];
		dr[i].__data_len = 4096;
		dr[i].cmd_flags = REQ_OP_READ;
		INIT_LIST_HEAD(&dr[i].queuelist);
		INIT_HLIST_NODE(&dr[i].hash);
		elv_dispatch_sort(&q, &dr[i]);
	}
	static const sector_t want[5] = {450, 500, 700, 100, 200};
	int k = 0;

	ok = true;
	list_for_each_entry(r, &q.queue_head, queuelist)
		ok &= k < 5 && blk_rq_pos(r) == want[k++];
	CHECK(ok && k == 5 && q.nr_sorted == 0,
	      "elv_dispatch_sort: ascending from the boundary, then the wrapped ones");
}

/* ---- time ----------------------------------------------------------------------------------- */
static int fired[8], nfired;
static u64 fired_at[8];

static enum hrtimer_restart hr_fn(struct hrtimer *t)
{
	(void)t;
	fired_at[nfired] = oracle_now_ns;
	fired[nfired++] = 1;
	return HRTIMER_NORESTART;
}

static void tl_fn(struct timer_list *t)
{
	(void)t;
	fired_at[nfired] = oracle_now_ns;
	fired[nfired++] = 2;
}

static void test_time(void)
{
	struct hrtimer h1, h2;
	struct timer_list tl;

	oracle_rt_reset(1000);
	CHECK(jiffies == INITIAL_JIFFIES && ktime_get_ns() == 1000,
	      "jiffies start at INITIAL_JIFFIES with the instance");
	oracle_rt_set_now(1000 + 5 * TICK_NSEC - 1);
	CHECK(jiffies == INITIAL_JIFFIES + 4, "a jiffy is TICK_NSEC after the start");
	oracle_rt_set_now(500);
	CHECK(ktime_get_ns() == (s64)(1000 + 5 * TICK_NSEC - 1), "the clock never goes back");
	CHECK(time_after(INITIAL_JIFFIES + 10, INITIAL_JIFFIES) &&
		  time_after((unsigned long)0 + 1, (unsigned long)-1),
	      "time_after() across the wrap");

	nfired = 0;
	hrtimer_init(&h1, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	h1.function = hr_fn;
	hrtimer_init(&h2, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	h2.function = hr_fn;
	oracle_timer_setup(&tl, tl_fn, 0);
	u64 t0 = oracle_now_ns;

	hrtimer_start(&h1, ns_to_ktime(3000000), HRTIMER_MODE_REL);	      /* t0 + 3 ms */
	hrtimer_start(&h2, ns_to_ktime((s64)t0 + 3000000), HRTIMER_MODE_ABS); /* same time */
	mod_timer(&tl, jiffies + 1);					      /* next jiffy */
	CHECK(oracle_rt_next_timer() == 1000 + 5 * TICK_NSEC, "a timer_list is due on its jiffy");
	CHECK(hrtimer_active(&h1) && timer_pending(&tl), "armed timers are active");
	hrtimer_cancel(&h2);
	hrtimer_start(&h2, ns_to_ktime((s64)t0 + 3000000), HRTIMER_MODE_ABS); /* re-armed: later */
	CHECK(oracle_rt_run_timers(t0 + 10000000) == 3 && nfired == 3,
	      "every due timer runs once");
	CHECK(fired[0] == 2 && fired_at[0] == 1000 + 5 * TICK_NSEC,
	      "the earliest first, the clock at its expiry in its callback");
	CHECK(fired[1] == 1 && fired[2] == 1 && fired_at[1] == t0 + 3000000,
	      "equal expiries in arming order");
	CHECK(!hrtimer_active(&h1) && oracle_rt_next_timer() == U64_MAX, "fired timers are gone");
	hrtimer_start(&h1, ns_to_ktime(1000), HRTIMER_MODE_REL);
	CHECK(hrtimer_cancel(&h1) && !hrtimer_cancel(&h1) && oracle_rt_next_timer() == U64_MAX,
	      "a cancelled timer does not run");
	oracle_queue_run();
	CHECK(oracle_rt_take_run() && !oracle_rt_take_run(), "a queue run asked for is taken once");
}

/* ---- memory --------------------------------------------------------------------------------- */
static void test_memory(void)
{
	void *p;

	oracle_rt_reset(0);
	p = kzalloc(64, GFP_KERNEL);
	CHECK(p && !list_empty(&oracle_rt.allocs), "an instance's allocation is on its list");
	kfree(p);
	CHECK(list_empty(&oracle_rt.allocs), "kfree takes it off");
	(void)kzalloc(64, GFP_KERNEL);
	(void)kzalloc(128, GFP_KERNEL);
	oracle_rt_reset(0);
	CHECK(list_empty(&oracle_rt.allocs), "the next instance starts with nothing of the last");
}

/* ---- slab caches ---------------------------------------------------------------------------- */
static void test_kmem_cache(void)
{
	struct kmem_cache *c;
	unsigned char *a, *b, *d;

	/* made outside any instance, as a file's module_init makes its caches */
	oracle_rt.live = false;
	c = kmem_cache_create("selftest", 48, 0, 0, NULL);
	oracle_rt_reset(0);
	a = kmem_cache_zalloc(c, GFP_KERNEL);
	b = kmem_cache_zalloc(c, GFP_KERNEL);
	CHECK(a && b && a != b, "two live objects of a cache are two");
	a[7] = 0x5a;
	kmem_cache_free(c, a);
	d = kmem_cache_zalloc(c, GFP_KERNEL);
	CHECK(d == a, "the object freed last is the next one allocated (SLUB's freelist)");
	CHECK(d && d[7] == 0, "and it comes zeroed");
	kmem_cache_free(c, b);
	kmem_cache_free(c, d);
	CHECK(kmem_cache_zalloc(c, GFP_KERNEL) == d && kmem_cache_zalloc(c, GFP_KERNEL) == b,
	      "freed objects come back last freed first");
	kmem_cache_free(c, b);
	oracle_rt_reset(0);
	CHECK(c->free == NULL, "a new instance's cache holds none of the last one's objects");
	kmem_cache_destroy(c);
}

int oracle_selftest_run(oracle_check_fn check, void *ctx, u64 seed)
{
	chk = check;
	chk_ctx = ctx;
	failures = 0;
	rng = seed;
	test_rbtree();
	test_elevator();
	test_time();
	test_memory();
	test_kmem_cache();
	return failures;
}
