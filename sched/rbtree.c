// SPDX-License-Identifier: GPL-2.0
/* Red-black tree (CLRS formulation, NULL leaves) with a cached leftmost node. */
#include "rbtree.h"

static bool is_red(const struct sched_rb_node *n)
{
	return n && n->red;
}

static void sched_rb_rotate_left(struct sched_rb_root *t, struct sched_rb_node *x)
{
	struct sched_rb_node *y = x->right;

	x->right = y->left;
	if (y->left)
		y->left->parent = x;
	y->parent = x->parent;
	if (!x->parent)
		t->root = y;
	else if (x == x->parent->left)
		x->parent->left = y;
	else
		x->parent->right = y;
	y->left = x;
	x->parent = y;
}

static void sched_rb_rotate_right(struct sched_rb_root *t, struct sched_rb_node *x)
{
	struct sched_rb_node *y = x->left;

	x->left = y->right;
	if (y->right)
		y->right->parent = x;
	y->parent = x->parent;
	if (!x->parent)
		t->root = y;
	else if (x == x->parent->right)
		x->parent->right = y;
	else
		x->parent->left = y;
	y->right = x;
	x->parent = y;
}

/* Link n at the free link below parent, then restore the red-black rules. */
static inline __attribute__((always_inline)) void link_and_fix(struct sched_rb_root *t,
							       struct sched_rb_node *n,
							       struct sched_rb_node *parent,
							       bool go_left, bool leftmost)
{
	n->parent = parent;
	n->left = n->right = NULL;
	n->red = 1;
	if (!parent)
		t->root = n;
	else if (go_left)
		parent->left = n;
	else
		parent->right = n;
	sched_rb_cache_linked(t, n, parent, go_left, leftmost);
	t->count++;

	/* Fix-up: restore "no red node has a red child". */
	while (is_red(n->parent)) {
		struct sched_rb_node *p = n->parent, *g = p->parent;

		if (p == g->left) {
			struct sched_rb_node *u = g->right;

			if (is_red(u)) {
				p->red = u->red = 0;
				g->red = 1;
				n = g;
				continue;
			}
			if (n == p->right) {
				sched_rb_rotate_left(t, p);
				n = p;
				p = n->parent;
			}
			p->red = 0;
			g->red = 1;
			sched_rb_rotate_right(t, g);
		} else {
			struct sched_rb_node *u = g->left;

			if (is_red(u)) {
				p->red = u->red = 0;
				g->red = 1;
				n = g;
				continue;
			}
			if (n == p->left) {
				sched_rb_rotate_right(t, p);
				n = p;
				p = n->parent;
			}
			p->red = 0;
			g->red = 1;
			sched_rb_rotate_left(t, g);
		}
	}
	t->root->red = 0;
}

void sched_rb_insert(struct sched_rb_root *t, struct sched_rb_node *n, sched_rb_less_fn less)
{
	struct sched_rb_node *parent = NULL, *cur = t->root;
	bool leftmost = true, go_left = false;

	while (cur) {
		parent = cur;
		go_left = less(n, cur);
		if (go_left) {
			cur = cur->left;
		} else {
			cur = cur->right;
			leftmost = false;
		}
	}
	link_and_fix(t, n, parent, go_left, leftmost);
}

void sched_rb_insert_at(struct sched_rb_root *t, struct sched_rb_node *n,
			struct sched_rb_node *parent, bool go_left, bool leftmost)
{
	link_and_fix(t, n, parent, go_left, leftmost);
}

static struct sched_rb_node *subtree_min(struct sched_rb_node *n)
{
	while (n->left)
		n = n->left;
	return n;
}

static struct sched_rb_node *subtree_max(struct sched_rb_node *n)
{
	while (n->right)
		n = n->right;
	return n;
}

struct sched_rb_node *sched_rb_next(const struct sched_rb_node *n)
{
	if (n->right)
		return subtree_min(n->right);
	while (n->parent && n == n->parent->right)
		n = n->parent;
	return n->parent;
}

struct sched_rb_node *sched_rb_prev(const struct sched_rb_node *n)
{
	if (n->left)
		return subtree_max(n->left);
	while (n->parent && n == n->parent->left)
		n = n->parent;
	return n->parent;
}

/* Replace subtree u by subtree v in u's parent. */
static void transplant(struct sched_rb_root *t, struct sched_rb_node *u, struct sched_rb_node *v)
{
	if (!u->parent)
		t->root = v;
	else if (u == u->parent->left)
		u->parent->left = v;
	else
		u->parent->right = v;
	if (v)
		v->parent = u->parent;
}

void sched_rb_erase(struct sched_rb_root *t, struct sched_rb_node *z)
{
	struct sched_rb_node *x, *xparent, *y = z;
	int y_was_red = y->red;

	if (t->leftmost == z)
		t->leftmost = sched_rb_next(z);
	if (t->rightmost == z)
		t->rightmost = sched_rb_prev(z);

	if (!z->left) {
		x = z->right;
		xparent = z->parent;
		transplant(t, z, z->right);
	} else if (!z->right) {
		x = z->left;
		xparent = z->parent;
		transplant(t, z, z->left);
	} else {
		y = subtree_min(z->right);
		y_was_red = y->red;
		x = y->right;
		if (y->parent == z) {
			xparent = y;
		} else {
			xparent = y->parent;
			transplant(t, y, y->right);
			y->right = z->right;
			y->right->parent = y;
		}
		transplant(t, z, y);
		y->left = z->left;
		y->left->parent = y;
		y->red = z->red;
	}
	t->count--;
	sched_rb_clear(z);

	if (y_was_red)
		return;
	/* Fix-up: x carries an extra black. */
	while (x != t->root && !is_red(x)) {
		if (x == xparent->left) {
			struct sched_rb_node *w = xparent->right;

			if (is_red(w)) {
				w->red = 0;
				xparent->red = 1;
				sched_rb_rotate_left(t, xparent);
				w = xparent->right;
			}
			if (!is_red(w->left) && !is_red(w->right)) {
				w->red = 1;
				x = xparent;
				xparent = x->parent;
			} else {
				if (!is_red(w->right)) {
					w->left->red = 0;
					w->red = 1;
					sched_rb_rotate_right(t, w);
					w = xparent->right;
				}
				w->red = xparent->red;
				xparent->red = 0;
				w->right->red = 0;
				sched_rb_rotate_left(t, xparent);
				x = t->root;
				break;
			}
		} else {
			struct sched_rb_node *w = xparent->left;

			if (is_red(w)) {
				w->red = 0;
				xparent->red = 1;
				sched_rb_rotate_right(t, xparent);
				w = xparent->left;
			}
			if (!is_red(w->right) && !is_red(w->left)) {
				w->red = 1;
				x = xparent;
				xparent = x->parent;
			} else {
				if (!is_red(w->left)) {
					w->right->red = 0;
					w->red = 1;
					sched_rb_rotate_left(t, w);
					w = xparent->left;
				}
				w->red = xparent->red;
				xparent->red = 0;
				w->left->red = 0;
				sched_rb_rotate_right(t, xparent);
				x = t->root;
				break;
			}
		}
	}
	if (x)
		x->red = 0;
}

static int validate(const struct sched_rb_node *n, const struct sched_rb_node *parent,
		    sched_rb_less_fn less, size_t *count)
{
	int lh, rh;

	if (!n)
		return 1;
	if (n->parent != parent)
		return -1;
	if (n->red && (is_red(n->left) || is_red(n->right)))
		return -1;
	if (n->left && less(n, n->left))
		return -1;
	if (n->right && less(n->right, n))
		return -1;
	(*count)++;
	lh = validate(n->left, n, less, count);
	rh = validate(n->right, n, less, count);
	if (lh < 0 || rh < 0 || lh != rh)
		return -1;
	return lh + (n->red ? 0 : 1);
}

int sched_rb_validate(const struct sched_rb_root *t, sched_rb_less_fn less)
{
	size_t count = 0;
	int h;

	if (is_red(t->root))
		return -1;
	h = validate(t->root, NULL, less, &count);
	if (h < 0 || count != t->count)
		return -1;
	if (t->leftmost != (t->root ? subtree_min(t->root) : NULL) ||
	    t->rightmost != (t->root ? subtree_max(t->root) : NULL))
		return -1;
	return h;
}
