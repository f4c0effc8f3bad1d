// SPDX-License-Identifier: GPL-2.0
/* sched/rbtree: red-black invariants, ordering, the leftmost cache, duplicates, erase. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rbtree.h"
#include "support.h"

#define NR_NODES 10000
#define BATCH 100

struct item {
	struct sched_rb_node rb;
	uint32_t key;
	uint32_t seq; /* insertion order, to check that equal keys keep it */
	bool linked;  /* the test's own idea of whether the node is on the tree */
};

static uint32_t next_seq;

static bool item_less(const struct sched_rb_node *a, const struct sched_rb_node *b)
{
	return sched_rb_entry(a, struct item, rb)->key < sched_rb_entry(b, struct item, rb)->key;
}

static struct item *item_of(const struct sched_rb_node *n)
{
	return n ? sched_rb_entry(n, struct item, rb) : NULL;
}

/* (key, seq) order: the order an in-order walk must produce. */
static bool item_before(const struct item *a, const struct item *b)
{
	return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

static void add(struct sched_rb_root *t, struct item *it)
{
	assert_false(it->linked);
	it->seq = next_seq++;
	sched_rb_insert(t, &it->rb, item_less);
	it->linked = true;
	assert_true(sched_rb_linked(&it->rb));
}

static void del(struct sched_rb_root *t, struct item *it)
{
	assert_true(it->linked);
	sched_rb_erase(t, &it->rb);
	it->linked = false;
	assert_false(sched_rb_linked(&it->rb));
}

static int tree_depth(const struct sched_rb_node *n)
{
	int l, r;

	if (!n)
		return 0;
	l = tree_depth(n->left);
	r = tree_depth(n->right);
	return 1 + (l > r ? l : r);
}

/* Every check there is, against the test's own record of which items are linked. */
static void check_tree(const struct sched_rb_root *t, struct item *items, size_t nr)
{
	const struct item *min = NULL, *max = NULL, *prev = NULL;
	const struct sched_rb_node *n;
	size_t linked = 0, walked = 0;
	int bh;

	for (size_t i = 0; i < nr; i++) {
		if (!items[i].linked) {
			assert_false(sched_rb_linked(&items[i].rb));
			continue;
		}
		assert_true(sched_rb_linked(&items[i].rb));
		linked++;
		if (!min || item_before(&items[i], min))
			min = &items[i];
		if (!max || item_before(max, &items[i]))
			max = &items[i];
	}
	bh = sched_rb_validate(t, item_less);
	assert_true(bh >= 0);
	assert_int_equal(t->count, linked);
	assert_int_equal(sched_rb_empty(t), linked == 0);
	/* The leftmost cache is the minimum; with equal keys, the first inserted of them. */
	assert_ptr_equal(item_of(sched_rb_first(t)), min);
	assert_ptr_equal(item_of(sched_rb_last(t)), max);
	if (!linked) {
		assert_null(t->root);
		return;
	}
	assert_null(t->root->parent);
	/* Balanced: height at most 2 * log2(n + 1). */
	assert_true((1ull << ((tree_depth(t->root) + 1) / 2)) <= linked + 1);

	/* Forward walk: sorted by key, equal keys in insertion order, every node once. */
	assert_null(sched_rb_prev(sched_rb_first(t)));
	for (n = sched_rb_first(t); n; n = sched_rb_next(n)) {
		const struct item *it = item_of(n);

		assert_true(it->linked);
		if (prev)
			assert_true(item_before(prev, it));
		prev = it;
		walked++;
		assert_true(walked <= linked);
	}
	assert_int_equal(walked, linked);
	assert_ptr_equal(prev, max);

	/* Backward walk: the same sequence reversed. */
	walked = 0;
	prev = NULL;
	for (n = sched_rb_last(t); n; n = sched_rb_prev(n)) {
		const struct item *it = item_of(n);

		if (prev)
			assert_true(item_before(it, prev));
		prev = it;
		walked++;
		assert_true(walked <= linked);
	}
	assert_int_equal(walked, linked);
	assert_ptr_equal(prev, min);
}

static struct item *new_items(size_t nr)
{
	struct item *items = calloc(nr, sizeof(*items));

	assert_non_null(items);
	for (size_t i = 0; i < nr; i++)
		sched_rb_clear(&items[i].rb);
	return items;
}

static uint32_t *identity(size_t nr)
{
	uint32_t *a = malloc(nr * sizeof(*a));

	assert_non_null(a);
	for (size_t i = 0; i < nr; i++)
		a[i] = i;
	return a;
}

static void test_empty(void **state)
{
	struct sched_rb_root t;
	struct item *it = new_items(1);

	(void)state;
	sched_rb_init(&t);
	assert_true(sched_rb_empty(&t));
	assert_null(sched_rb_first(&t));
	assert_null(sched_rb_last(&t));
	assert_int_equal(t.count, 0);
	assert_true(sched_rb_validate(&t, item_less) >= 0);
	assert_false(sched_rb_linked(&it->rb));

	/* One node: it is root, first and last, with no neighbours. */
	add(&t, it);
	check_tree(&t, it, 1);
	assert_ptr_equal(t.root, &it->rb);
	assert_false(t.root->red);
	assert_null(sched_rb_next(&it->rb));
	assert_null(sched_rb_prev(&it->rb));

	/* And back to empty, twice, to see the tree is reusable. */
	for (int round = 0; round < 2; round++) {
		del(&t, it);
		check_tree(&t, it, 1);
		assert_null(t.root);
		assert_null(sched_rb_first(&t));
		assert_int_equal(t.count, 0);
		if (!round)
			add(&t, it);
	}
	free(it);
}

/* Random keys from a small range (many duplicates), random insert and erase orders. */
static void random_rounds(uint64_t seed, uint32_t key_range)
{
	struct test_rng rng;
	struct sched_rb_root t;
	struct item *items = new_items(NR_NODES);
	uint32_t *order = identity(NR_NODES);
	size_t i;

	test_rng_seed(&rng, seed);
	sched_rb_init(&t);
	for (i = 0; i < NR_NODES; i++)
		items[i].key = test_rng_below(&rng, key_range);

	/* Fill in a random order. */
	test_rng_shuffle(&rng, order, NR_NODES);
	for (i = 0; i < NR_NODES; i++) {
		add(&t, &items[order[i]]);
		if (i % BATCH == BATCH - 1)
			check_tree(&t, items, NR_NODES);
	}
	check_tree(&t, items, NR_NODES);

	/* Churn: erase a random half, re-insert with new keys, several times. */
	for (int round = 0; round < 4; round++) {
		test_rng_shuffle(&rng, order, NR_NODES);
		for (i = 0; i < NR_NODES / 2; i++) {
			del(&t, &items[order[i]]);
			if (i % BATCH == BATCH - 1)
				check_tree(&t, items, NR_NODES);
		}
		check_tree(&t, items, NR_NODES);
		test_rng_shuffle(&rng, order, NR_NODES / 2);
		for (i = 0; i < NR_NODES / 2; i++) {
			items[order[i]].key = test_rng_below(&rng, key_range);
			add(&t, &items[order[i]]);
			if (i % BATCH == BATCH - 1)
				check_tree(&t, items, NR_NODES);
		}
		check_tree(&t, items, NR_NODES);
	}

	/* Interleaved single inserts and erases, picked at random. */
	for (i = 0; i < 2 * NR_NODES; i++) {
		struct item *it = &items[test_rng_below(&rng, NR_NODES)];

		if (it->linked) {
			del(&t, it);
		} else {
			it->key = test_rng_below(&rng, key_range);
			add(&t, it);
		}
		if (i % BATCH == BATCH - 1)
			check_tree(&t, items, NR_NODES);
	}

	/* Empty it in a random order. */
	test_rng_shuffle(&rng, order, NR_NODES);
	for (i = 0; i < NR_NODES; i++) {
		if (items[order[i]].linked)
			del(&t, &items[order[i]]);
		if (i % BATCH == BATCH - 1)
			check_tree(&t, items, NR_NODES);
	}
	check_tree(&t, items, NR_NODES);
	assert_true(sched_rb_empty(&t));
	free(order);
	free(items);
}

static void test_random_wide_keys(void **state)
{
	(void)state;
	random_rounds(1, UINT32_MAX);
}

static void test_random_many_duplicates(void **state)
{
	(void)state;
	random_rounds(2, 100);
}

/* Sorted input is the worst case of an unbalanced tree; the leftmost cache moves every time. */
static void test_sorted_inputs(void **state)
{
	struct sched_rb_root t;
	struct item *items = new_items(NR_NODES);

	(void)state;
	sched_rb_init(&t);
	for (size_t i = 0; i < NR_NODES; i++) {
		items[i].key = NR_NODES - i; /* descending: each one is the new minimum */
		add(&t, &items[i]);
		assert_ptr_equal(sched_rb_first(&t), &items[i].rb);
		if (i % BATCH == BATCH - 1)
			check_tree(&t, items, NR_NODES);
	}
	check_tree(&t, items, NR_NODES);
	for (size_t i = 0; i < NR_NODES; i++)
		del(&t, &items[i]);
	check_tree(&t, items, NR_NODES);

	for (size_t i = 0; i < NR_NODES; i++) {
		items[i].key = i; /* ascending: the first one stays the minimum */
		add(&t, &items[i]);
		assert_ptr_equal(sched_rb_first(&t), &items[0].rb);
		if (i % BATCH == BATCH - 1)
			check_tree(&t, items, NR_NODES);
	}
	check_tree(&t, items, NR_NODES);
	free(items);
}

/* All keys equal: the tree is a FIFO, and stays one through erases in the middle. */
static void test_duplicates_keep_insertion_order(void **state)
{
	struct test_rng rng;
	struct sched_rb_root t;
	struct item *items = new_items(NR_NODES);
	const struct sched_rb_node *n;
	size_t i;

	(void)state;
	test_rng_seed(&rng, 3);
	sched_rb_init(&t);
	for (i = 0; i < NR_NODES; i++) {
		items[i].key = 7;
		add(&t, &items[i]);
		assert_ptr_equal(sched_rb_first(&t), &items[0].rb);
		assert_ptr_equal(sched_rb_last(&t), &items[i].rb);
	}
	check_tree(&t, items, NR_NODES);
	i = 0;
	for (n = sched_rb_first(&t); n; n = sched_rb_next(n))
		assert_ptr_equal(n, &items[i++].rb);
	assert_int_equal(i, NR_NODES);

	/* Erase a random third; the rest must still come out in array (= insertion) order. */
	for (i = 0; i < NR_NODES / 3; i++) {
		struct item *it = &items[test_rng_below(&rng, NR_NODES)];

		if (it->linked)
			del(&t, it);
	}
	check_tree(&t, items, NR_NODES);
	i = 0;
	for (n = sched_rb_first(&t); n; n = sched_rb_next(n)) {
		while (!items[i].linked)
			i++;
		assert_ptr_equal(n, &items[i++].rb);
	}

	/* Equal keys inserted later go after every existing equal key, whatever the tree shape. */
	for (i = 0; i < NR_NODES; i++) {
		if (items[i].linked)
			continue;
		add(&t, &items[i]);
		assert_ptr_equal(sched_rb_last(&t), &items[i].rb);
	}
	check_tree(&t, items, NR_NODES);
	free(items);
}

/* Equal keys among other keys: each run of equals is in insertion order. */
static void test_duplicates_mixed(void **state)
{
	struct sched_rb_root t;
	struct item *items = new_items(NR_NODES);
	const struct sched_rb_node *n;
	size_t i;

	(void)state;
	sched_rb_init(&t);
	/* Keys 0..9 cycling, inserted in array order: walk must give key-major, index-minor. */
	for (i = 0; i < NR_NODES; i++) {
		items[i].key = (i * 7) % 10;
		add(&t, &items[i]);
	}
	check_tree(&t, items, NR_NODES);
	i = 0;
	for (n = sched_rb_first(&t); n; n = sched_rb_next(n), i++) {
		const struct item *it = item_of(n);

		assert_int_equal(it->key, i / (NR_NODES / 10));
		/* Within a key, array index = insertion order: key k holds 3k mod 10, +10, ... */
		assert_int_equal((size_t)(it - items),
				 (it->key * 3) % 10 + 10 * (i % (NR_NODES / 10)));
	}
	assert_int_equal(i, NR_NODES);
	free(items);
}

static void test_erase_root_repeatedly(void **state)
{
	struct test_rng rng;
	struct sched_rb_root t;
	struct item *items = new_items(NR_NODES);
	size_t i;

	(void)state;
	test_rng_seed(&rng, 4);
	sched_rb_init(&t);
	for (i = 0; i < NR_NODES; i++) {
		items[i].key = test_rng_below(&rng, NR_NODES / 4);
		add(&t, &items[i]);
	}
	for (i = 0; i < NR_NODES; i++) {
		struct item *root = item_of(t.root);

		assert_non_null(root);
		del(&t, root);
		if (i % BATCH == 0 || NR_NODES - i < 20)
			check_tree(&t, items, NR_NODES);
	}
	check_tree(&t, items, NR_NODES);
	assert_true(sched_rb_empty(&t));
	free(items);
}

static void test_erase_leftmost_repeatedly(void **state)
{
	struct test_rng rng;
	struct sched_rb_root t;
	struct item *items = new_items(NR_NODES);
	struct item *prev = NULL;
	size_t i;

	(void)state;
	test_rng_seed(&rng, 5);
	sched_rb_init(&t);
	for (i = 0; i < NR_NODES; i++) {
		items[i].key = test_rng_below(&rng, NR_NODES / 4);
		add(&t, &items[i]);
	}
	/* Popping the minimum yields the sorted sequence (a priority queue). */
	for (i = 0; i < NR_NODES; i++) {
		struct item *first = item_of(sched_rb_first(&t));

		assert_non_null(first);
		if (prev)
			assert_true(item_before(prev, first));
		del(&t, first);
		prev = first;
		if (i % BATCH == 0 || NR_NODES - i < 20)
			check_tree(&t, items, NR_NODES);
	}
	assert_null(sched_rb_first(&t));
	check_tree(&t, items, NR_NODES);
	free(items);
}

static void test_erase_last_repeatedly(void **state)
{
	struct test_rng rng;
	struct sched_rb_root t;
	struct item *items = new_items(NR_NODES);
	struct item *prev = NULL;
	size_t i;

	(void)state;
	test_rng_seed(&rng, 6);
	sched_rb_init(&t);
	for (i = 0; i < NR_NODES; i++) {
		items[i].key = test_rng_below(&rng, NR_NODES / 4);
		add(&t, &items[i]);
	}
	for (i = 0; i < NR_NODES; i++) {
		struct item *last = item_of(sched_rb_last(&t));

		assert_non_null(last);
		if (prev)
			assert_true(item_before(last, prev));
		/* The leftmost cache must survive erasing from the other end. */
		if (NR_NODES - i > 1)
			assert_ptr_not_equal(sched_rb_first(&t), &last->rb);
		del(&t, last);
		prev = last;
		if (i % BATCH == 0 || NR_NODES - i < 20)
			check_tree(&t, items, NR_NODES);
	}
	check_tree(&t, items, NR_NODES);
	free(items);
}

/* Small trees, every erase position: exhaustive over n = 1..24 and each victim. */
/* Walk to the free link by key (equal keys go right) and link there with sched_rb_insert_at. */
static void add_at(struct sched_rb_root *t, struct item *it)
{
	struct sched_rb_node *parent = NULL, *cur = t->root;
	bool left = false, leftmost = true;

	it->seq = next_seq++;
	while (cur) {
		parent = cur;
		left = it->key < item_of(cur)->key;
		if (left) {
			cur = cur->left;
		} else {
			cur = cur->right;
			leftmost = false;
		}
	}
	sched_rb_insert_at(t, &it->rb, parent, left, leftmost);
	it->linked = true;
}

/* Same shape and colours, node for node (a[i] against b[i]). */
static void assert_same_shape(const struct sched_rb_node *x, const struct item *a,
			      const struct sched_rb_node *y, const struct item *b)
{
	if (!x || !y) {
		assert_true(!x && !y);
		return;
	}
	assert_int_equal(item_of(x) - a, item_of(y) - b);
	assert_int_equal(x->red, y->red);
	assert_same_shape(x->left, a, y->left, b);
	assert_same_shape(x->right, a, y->right, b);
}

/*
 * Callers that walk the tree themselves (CFQ's service and prio trees) link with
 * sched_rb_insert_at: the same keys in the same order give the tree sched_rb_insert builds,
 * through inserts and erases, with duplicates.
 */
static void test_insert_at_same_tree(void **state)
{
	struct sched_rb_root ta, tb;
	struct item *a = new_items(NR_NODES), *b = new_items(NR_NODES);
	struct test_rng rng;

	(void)state;
	test_rng_seed(&rng, 3);
	sched_rb_init(&ta);
	sched_rb_init(&tb);
	for (size_t i = 0; i < NR_NODES; i++)
		a[i].key = b[i].key = (uint32_t)test_rng_below(&rng, NR_NODES / 4);
	for (size_t round = 0; round < 4; round++) {
		for (size_t i = 0; i < NR_NODES; i++) {
			if (test_rng_below(&rng, 2) || a[i].linked)
				continue;
			add_at(&ta, &a[i]);
			add(&tb, &b[i]);
		}
		check_tree(&ta, a, NR_NODES);
		assert_same_shape(ta.root, a, tb.root, b);
		assert_int_equal(item_of(sched_rb_first(&ta)) - a,
				 item_of(sched_rb_first(&tb)) - b);
		for (size_t i = 0; i < NR_NODES; i++) {
			if (!a[i].linked || test_rng_below(&rng, 3))
				continue;
			del(&ta, &a[i]);
			del(&tb, &b[i]);
		}
		check_tree(&ta, a, NR_NODES);
		assert_same_shape(ta.root, a, tb.root, b);
	}
	free(a);
	free(b);
}

static void test_erase_each_position_small(void **state)
{
	struct item items[24];

	(void)state;
	for (size_t n = 1; n <= 24; n++) {
		for (size_t victim = 0; victim < n; victim++) {
			struct sched_rb_root t;

			memset(items, 0, sizeof(items));
			sched_rb_init(&t);
			for (size_t i = 0; i < n; i++) {
				sched_rb_clear(&items[i].rb);
				items[i].key = (i * 5) % n; /* a permutation when gcd(5, n) = 1 */
				add(&t, &items[i]);
			}
			check_tree(&t, items, n);
			del(&t, &items[victim]);
			check_tree(&t, items, n);
			/* Then drain from the middle of the in-order sequence. */
			while (!sched_rb_empty(&t)) {
				const struct sched_rb_node *m = sched_rb_first(&t);

				for (size_t k = 0; k < t.count / 2; k++)
					m = sched_rb_next(m);
				del(&t, item_of(m));
				check_tree(&t, items, n);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_random_wide_keys),
		cmocka_unit_test(test_random_many_duplicates),
		cmocka_unit_test(test_sorted_inputs),
		cmocka_unit_test(test_duplicates_keep_insertion_order),
		cmocka_unit_test(test_duplicates_mixed),
		cmocka_unit_test(test_erase_root_repeatedly),
		cmocka_unit_test(test_erase_leftmost_repeatedly),
		cmocka_unit_test(test_erase_last_repeatedly),
		cmocka_unit_test(test_erase_each_position_small),
		cmocka_unit_test(test_insert_at_same_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
