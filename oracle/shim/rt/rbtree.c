// SPDX-License-Identifier: GPL-2.0
/*
 * lib/rbtree.c's interface (rb_insert_color, rb_erase, rb_next...) for the kernel files, on the
 * kernel's node layout (parent pointer and colour in one word, colour in bit 0: red 0, black 1).
 * A textbook red-black tree written for the shim: the files walk and link nodes themselves
 * (rb_link_node) and ask for the rebalancing; only the in-order sequence is observable to them,
 * which any correct balancing preserves.
 */
#include "oracle_kernel.h"

#define RB_RED 0
#define RB_BLACK 1

static inline int color(const struct rb_node *n)
{
	return n ? (int)(n->__rb_parent_color & 1) : RB_BLACK;
}

static inline void set_parent(struct rb_node *n, struct rb_node *p)
{
	n->__rb_parent_color = (n->__rb_parent_color & 3) | (unsigned long)p;
}

static inline void set_color(struct rb_node *n, int c)
{
	n->__rb_parent_color = (n->__rb_parent_color & ~1UL) | (unsigned long)c;
}

static void replace_child(struct rb_root *root, struct rb_node *parent, struct rb_node *old,
			  struct rb_node *n)
{
	if (!parent)
		root->rb_node = n;
	else if (parent->rb_left == old)
		parent->rb_left = n;
	else
		parent->rb_right = n;
}

static void rotate_left(struct rb_root *root, struct rb_node *x)
{
	struct rb_node *y = x->rb_right, *p = rb_parent(x);

	x->rb_right = y->rb_left;
	if (y->rb_left)
		set_parent(y->rb_left, x);
	set_parent(y, p);
	replace_child(root, p, x, y);
	y->rb_left = x;
	set_parent(x, y);
}

static void rotate_right(struct rb_root *root, struct rb_node *x)
{
	struct rb_node *y = x->rb_left, *p = rb_parent(x);

	x->rb_left = y->rb_right;
	if (y->rb_right)
		set_parent(y->rb_right, x);
	set_parent(y, p);
	replace_child(root, p, x, y);
	y->rb_right = x;
	set_parent(x, y);
}

/* rb_link_node() made n red (colour bit 0) below its parent. */
void rb_insert_color(struct rb_node *n, struct rb_root *root)
{
	struct rb_node *p, *g, *u;

	while ((p = rb_parent(n)) && color(p) == RB_RED) {
		g = rb_parent(p);
		if (p == g->rb_left) {
			u = g->rb_right;
			if (color(u) == RB_RED) {
				set_color(p, RB_BLACK);
				set_color(u, RB_BLACK);
				set_color(g, RB_RED);
				n = g;
				continue;
			}
			if (n == p->rb_right) {
				rotate_left(root, p);
				n = p;
				p = rb_parent(n);
			}
			set_color(p, RB_BLACK);
			set_color(g, RB_RED);
			rotate_right(root, g);
		} else {
			u = g->rb_left;
			if (color(u) == RB_RED) {
				set_color(p, RB_BLACK);
				set_color(u, RB_BLACK);
				set_color(g, RB_RED);
				n = g;
				continue;
			}
			if (n == p->rb_left) {
				rotate_right(root, p);
				n = p;
				p = rb_parent(n);
			}
			set_color(p, RB_BLACK);
			set_color(g, RB_RED);
			rotate_left(root, g);
		}
	}
	set_color(root->rb_node, RB_BLACK);
}

static void erase_fixup(struct rb_root *root, struct rb_node *x, struct rb_node *parent)
{
	struct rb_node *w;

	while (x != root->rb_node && color(x) == RB_BLACK) {
		if (x == parent->rb_left) {
			w = parent->rb_right;
			if (color(w) == RB_RED) {
				set_color(w, RB_BLACK);
				set_color(parent, RB_RED);
				rotate_left(root, parent);
				w = parent->rb_right;
			}
			if (color(w->rb_left) == RB_BLACK && color(w->rb_right) == RB_BLACK) {
				set_color(w, RB_RED);
				x = parent;
				parent = rb_parent(x);
			} else {
				if (color(w->rb_right) == RB_BLACK) {
					set_color(w->rb_left, RB_BLACK);
					set_color(w, RB_RED);
					rotate_right(root, w);
					w = parent->rb_right;
				}
				set_color(w, color(parent));
				set_color(parent, RB_BLACK);
				set_color(w->rb_right, RB_BLACK);
				rotate_left(root, parent);
				x = root->rb_node;
				break;
			}
		} else {
			w = parent->rb_left;
			if (color(w) == RB_RED) {
				set_color(w, RB_BLACK);
				set_color(parent, RB_RED);
				rotate_right(root, parent);
				w = parent->rb_left;
			}
			if (color(w->rb_right) == RB_BLACK && color(w->rb_left) == RB_BLACK) {
				set_color(w, RB_RED);
				x = parent;
				parent = rb_parent(x);
			} else {
				if (color(w->rb_left) == RB_BLACK) {
					set_color(w->rb_right, RB_BLACK);
					set_color(w, RB_RED);
					rotate_left(root, w);
					w = parent->rb_left;
				}
				set_color(w, color(parent));
				set_color(parent, RB_BLACK);
				set_color(w->rb_left, RB_BLACK);
				rotate_right(root, parent);
				x = root->rb_node;
				break;
			}
		}
	}
	if (x)
		set_color(x, RB_BLACK);
}

void rb_erase(struct rb_node *z, struct rb_root *root)
{
	struct rb_node *y = z, *x, *xp;
	int ycolor = color(y);

	if (!z->rb_left) {
		x = z->rb_right;
		xp = rb_parent(z);
		replace_child(root, xp, z, x);
		if (x)
			set_parent(x, xp);
	} else if (!z->rb_right) {
		x = z->rb_left;
		xp = rb_parent(z);
		replace_child(root, xp, z, x);
		set_parent(x, xp);
	} else {
		y = z->rb_right;
		while (y->rb_left)
			y = y->rb_left;
		ycolor = color(y);
		x = y->rb_right;
		if (rb_parent(y) == z) {
			xp = y;
		} else {
			xp = rb_parent(y);
			xp->rb_left = x;
			if (x)
				set_parent(x, xp);
			y->rb_right = z->rb_right;
			set_parent(z->rb_right, y);
		}
		replace_child(root, rb_parent(z), z, y);
		y->__rb_parent_color = z->__rb_parent_color; /* z's parent and colour */
		y->rb_left = z->rb_left;
		set_parent(z->rb_left, y);
	}
	if (ycolor == RB_BLACK)
		erase_fixup(root, x, xp);
}

struct rb_node *rb_first(const struct rb_root *root)
{
	struct rb_node *n = root->rb_node;

	if (!n)
		return NULL;
	while (n->rb_left)
		n = n->rb_left;
	return n;
}

struct rb_node *rb_last(const struct rb_root *root)
{
	struct rb_node *n = root->rb_node;

	if (!n)
		return NULL;
	while (n->rb_right)
		n = n->rb_right;
	return n;
}

struct rb_node *rb_next(const struct rb_node *node)
{
	struct rb_node *p;

	if (RB_EMPTY_NODE(node))
		return NULL;
	if (node->rb_right) {
		node = node->rb_right;
		while (node->rb_left)
			node = node->rb_left;
		return (struct rb_node *)node;
	}
	while ((p = rb_parent(node)) && node == p->rb_right)
		node = p;
	return p;
}

struct rb_node *rb_prev(const struct rb_node *node)
{
	struct rb_node *p;

	if (RB_EMPTY_NODE(node))
		return NULL;
	if (node->rb_left) {
		node = node->rb_left;
		while (node->rb_right)
			node = node->rb_right;
		return (struct rb_node *)node;
	}
	while ((p = rb_parent(node)) && node == p->rb_left)
		node = p;
	return p;
}

void rb_replace_node(struct rb_node *victim, struct rb_node *n, struct rb_root *root)
{
	struct rb_node *p = rb_parent(victim);

	*n = *victim;
	if (victim->rb_left)
		set_parent(victim->rb_left, n);
	if (victim->rb_right)
		set_parent(victim->rb_right, n);
	replace_child(root, p, victim, n);
}
