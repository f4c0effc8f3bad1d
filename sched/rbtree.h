/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Red-black tree with a cached leftmost node (the kernel's rb_root_cached), keyed by the caller.
 * Written once for every policy: sector-sorted request trees, service trees, B-WF2Q+ trees.
 */
#ifndef SCHED_RBTREE_H
#define SCHED_RBTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "list.h"

struct sched_rb_node {
	struct sched_rb_node *left, *right; /* first: a descent reads these and a key before them */
	struct sched_rb_node *parent;
	int red;
};

struct sched_rb_root {
	struct sched_rb_node *root;
	struct sched_rb_node *leftmost;
	/*
	 * Not in the kernel's rb_root_cached: kept so that a key at or past the last one (a service
	 * tree's usual insert, by time) links below it without a walk; the same link a walk finds.
	 */
	struct sched_rb_node *rightmost;
	size_t count;
};

/* Returns true when a sorts before b. Equal keys keep insertion order (insert goes right). */
typedef bool (*sched_rb_less_fn)(const struct sched_rb_node *a, const struct sched_rb_node *b);

static inline void sched_rb_init(struct sched_rb_root *t)
{
	t->root = NULL;
	t->leftmost = NULL;
	t->rightmost = NULL;
	t->count = 0;
}

static inline bool sched_rb_empty(const struct sched_rb_root *t)
{
	return t->root == NULL;
}

static inline struct sched_rb_node *sched_rb_first(const struct sched_rb_root *t)
{
	return t->leftmost;
}

static inline struct sched_rb_node *sched_rb_last(const struct sched_rb_root *t)
{
	return t->rightmost;
}

/*
 * For an implementation of insert and erase outside rbtree.c (an augmented tree): the cached
 * ends after n was linked below parent (NULL: as the root) on the go_left side, and before z
 * is erased.
 */
static inline void sched_rb_cache_linked(struct sched_rb_root *t, struct sched_rb_node *n,
					 const struct sched_rb_node *parent, bool go_left,
					 bool leftmost)
{
	if (leftmost)
		t->leftmost = n;
	if (!parent || (!go_left && parent == t->rightmost))
		t->rightmost = n;
}

/* n's left (0) or right (1) child: a descent choosing the side without a branch. */
static inline struct sched_rb_node *sched_rb_child(const struct sched_rb_node *n, bool right)
{
	struct sched_rb_node *l = n->left, *r = n->right;

	return right ? r : l;
}

/* Marks a node as not on any tree, so sched_rb_linked() can tell. */
static inline void sched_rb_clear(struct sched_rb_node *n)
{
	n->parent = n;
}

static inline bool sched_rb_linked(const struct sched_rb_node *n)
{
	return n->parent != n;
}

void sched_rb_insert(struct sched_rb_root *t, struct sched_rb_node *n, sched_rb_less_fn less);
/*
 * The second half of sched_rb_insert (the kernel's rb_link_node + rb_insert_color), for
 * callers that walk down to the free link themselves with their key inline, or that already
 * walked there in a lookup: n becomes parent's left (go_left) or right child, or the root
 * when parent is NULL; leftmost says the walk never went right.
 */
void sched_rb_insert_at(struct sched_rb_root *t, struct sched_rb_node *n,
			struct sched_rb_node *parent, bool go_left, bool leftmost);
void sched_rb_erase(struct sched_rb_root *t, struct sched_rb_node *n);
struct sched_rb_node *sched_rb_next(const struct sched_rb_node *n);
struct sched_rb_node *sched_rb_prev(const struct sched_rb_node *n);

/* Checks the red-black invariants; returns the black height, or -1 when broken. For tests. */
int sched_rb_validate(const struct sched_rb_root *t, sched_rb_less_fn less);

#define sched_rb_entry(ptr, type, member) sched_container_of(ptr, type, member)

#endif
