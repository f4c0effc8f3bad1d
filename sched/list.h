/* SPDX-License-Identifier: GPL-2.0 */
/* Intrusive doubly linked list, in the spirit of the kernel's list_head. */
#ifndef SCHED_LIST_H
#define SCHED_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct sched_list {
	struct sched_list *next, *prev;
};

#define sched_container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#define sched_list_entry(ptr, type, member) sched_container_of(ptr, type, member)

static inline void sched_list_init(struct sched_list *h)
{
	h->next = h;
	h->prev = h;
}

static inline bool sched_list_empty(const struct sched_list *h)
{
	return h->next == h;
}

static inline void sched_list__add(struct sched_list *n, struct sched_list *prev,
				   struct sched_list *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

/* Insert at the tail: FIFO order. */
static inline void sched_list_add_tail(struct sched_list *n, struct sched_list *h)
{
	sched_list__add(n, h->prev, h);
}

static inline void sched_list_add(struct sched_list *n, struct sched_list *h)
{
	sched_list__add(n, h, h->next);
}

static inline void sched_list_del_init(struct sched_list *n)
{
	n->next->prev = n->prev;
	n->prev->next = n->next;
	sched_list_init(n);
}

#define sched_list_first_entry(h, type, member) sched_list_entry((h)->next, type, member)

#endif
