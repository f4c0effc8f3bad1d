/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Requests a backend finishes on the spot (trim, and every request of psync) wait here until
 * the next reap, so completions always flow through one path.
 */
#ifndef ENGINE_BACKEND_LOCAL_H
#define ENGINE_BACKEND_LOCAL_H

#include <stdlib.h>

#include "backend.h"

struct se_local_cq {
	struct se_completion *c;
	unsigned int head, n, cap; /* a ring: oldest at head */
};

static inline int se_local_cq_init(struct se_local_cq *q, unsigned int cap)
{
	q->c = calloc(cap, sizeof(*q->c));
	q->head = q->n = 0;
	q->cap = cap;
	return q->c ? 0 : -1;
}

static inline void se_local_cq_push(struct se_local_cq *q, struct se_slot *slot, long long res)
{
	struct se_completion *c = &q->c[(q->head + q->n) % q->cap];

	c->slot = slot;
	c->res = res;
	q->n++;
}

static inline int se_local_cq_reap(struct se_local_cq *q, struct se_completion *c, int max)
{
	int n = 0;

	while (q->n && n < max) {
		c[n++] = q->c[q->head];
		q->head = (q->head + 1) % q->cap;
		q->n--;
	}
	return n;
}

static inline void se_local_cq_free(struct se_local_cq *q)
{
	free(q->c);
	q->c = NULL;
}

#endif
