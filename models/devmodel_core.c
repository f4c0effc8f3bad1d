// SPDX-License-Identifier: GPL-2.0
/*
 * Device models: parameters, state layout, the completion heap. What a kind does is in its ops
 * table (devmodel_null.c, devmodel_hdd.c, devmodel_flash.c); this file only dispatches.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devmodel_impl.h"

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)

/* By kind; the state keeps the kind, never a table's address (see struct devmodel_ops). */
const struct devmodel_ops *const dm_ops_table[DEVMODEL_NR_KINDS] = {
    [DEVMODEL_NULL] = &dm_null_ops,
    [DEVMODEL_HDD] = &dm_hdd_ops,
    [DEVMODEL_SSD] = &dm_ssd_ops,
    [DEVMODEL_CLOUD_SSD] = &dm_cloud_ssd_ops,
};

int devmodel_kind_by_name(const char *name)
{
	if (!name)
		return -1;
	for (int k = 0; k < DEVMODEL_NR_KINDS; k++)
		if (!strcmp(name, dm_ops_table[k]->name))
			return k;
	/* Aliases after every name, so that no alias can shadow a name. */
	for (int k = 0; k < DEVMODEL_NR_KINDS; k++)
		if (dm_ops_table[k]->alias && !strcmp(name, dm_ops_table[k]->alias))
			return k;
	return -1;
}

const char *devmodel_kind_name(enum devmodel_kind kind)
{
	return (unsigned int)kind < DEVMODEL_NR_KINDS ? dm_ops_table[kind]->name : "?";
}

struct devmodel_params devmodel_params_defaults(enum devmodel_kind kind)
{
	struct devmodel_params p;

	memset(&p, 0, sizeof(p));
	p.kind = kind;
	p.seed = 1;
	p.capacity_bytes = 1000ull * 1000 * 1000 * 1000; /* HD103SJ: 1 TB */
	p.queue_depth = 32;

	/* Every kind's own parameters get their defaults (any may be set, see devmodel.h). */
	for (int k = 0; k < DEVMODEL_NR_KINDS; k++)
		if (dm_ops_table[k]->param_defaults)
			dm_ops_table[k]->param_defaults(&p);
	/* Then the kind adjusts the common ones. */
	if ((unsigned int)kind < DEVMODEL_NR_KINDS && dm_ops_table[kind]->defaults)
		dm_ops_table[kind]->defaults(&p);
	return p;
}

/* The parameters common to every kind; each kind's own are in its ops table. */
static const struct dm_param common_params[] = {
    {"dev_queue_depth", DM_P_U32, DM_PO(queue_depth), 1, DEVMODEL_MAX_QUEUE_DEPTH,
     "commands the device holds (NCQ depth, tags)"},
    {"dev_capacity_gib", DM_P_GIB, DM_PO(capacity_bytes), 0.001, 1 << 24, "capacity, GiB"},
    {"dev_seed", DM_P_U64, DM_PO(seed), 0, 1.8e19, "seed of rotation phase and jitter"},
};

#define NR_COMMON (sizeof(common_params) / sizeof(common_params[0]))

/*
 * The i-th parameter of all: the common ones, then each kind's in kind order (the order of
 * devmodel_param_names() and of the range checks); NULL past the last.
 */
static const struct dm_param *param_at(size_t i)
{
	if (i < NR_COMMON)
		return &common_params[i];
	i -= NR_COMMON;
	for (int k = 0; k < DEVMODEL_NR_KINDS; k++) {
		if (i < dm_ops_table[k]->nr_params)
			return &dm_ops_table[k]->params[i];
		i -= dm_ops_table[k]->nr_params;
	}
	return NULL;
}

static double pget(const struct devmodel_params *p, const struct dm_param *d);

/* The kind a parameter belongs to, or -1 for the common ones. */
static int param_kind(size_t i)
{
	if (i < NR_COMMON)
		return -1;
	i -= NR_COMMON;
	for (int k = 0; k < DEVMODEL_NR_KINDS; k++) {
		if (i < dm_ops_table[k]->nr_params)
			return k;
		i -= dm_ops_table[k]->nr_params;
	}
	return -1;
}

/* Each parameter with its help, its kind's default (every kind's for the common ones, the null
 * model's left out: it has no timing) and its range. */
void devmodel_param_names(void (*fn)(const char *name, const char *help, void *arg), void *arg)
{
	const struct dm_param *d;
	char help[320], dflt[160];

	for (size_t i = 0; (d = param_at(i)); i++) {
		int k = param_kind(i);

		if (k >= 0) {
			struct devmodel_params p = devmodel_params_defaults((enum devmodel_kind)k);

			snprintf(dflt, sizeof(dflt), "%s: default %g", dm_ops_table[k]->name,
				 pget(&p, d));
		} else {
			size_t len = 0;
			double first = 0;
			int same = 1, n = 0;

			dflt[0] = 0;
			for (int j = 0; j < DEVMODEL_NR_KINDS; j++) {
				struct devmodel_params p;
				double v;

				if (j == DEVMODEL_NULL)
					continue;
				p = devmodel_params_defaults((enum devmodel_kind)j);
				v = pget(&p, d);
				same &= !n || v == first;
				first = n++ ? first : v;
				len += (size_t)snprintf(dflt + len, sizeof(dflt) - len, "%s%s %g",
							len ? ", " : "default ",
							dm_ops_table[j]->name, v);
				if (len >= sizeof(dflt))
					break;
			}
			if (same)
				snprintf(dflt, sizeof(dflt), "default %g", first);
		}
		snprintf(help, sizeof(help), "%s (%s; %.10g..%.10g)", d->help, dflt, d->min,
			 d->max);
		fn(d->name, help, arg);
	}
}

int devmodel_param_kind(enum devmodel_kind kind, const char *name)
{
	for (size_t i = 0; i < NR_COMMON; i++)
		if (!strcmp(name, common_params[i].name))
			return 1;
	for (int k = 0; k < DEVMODEL_NR_KINDS; k++)
		for (unsigned int i = 0; i < dm_ops_table[k]->nr_params; i++)
			if (!strcmp(name, dm_ops_table[k]->params[i].name))
				return k == (int)kind;
	return -1;
}

static double pget(const struct devmodel_params *p, const struct dm_param *d)
{
	const char *b = (const char *)p + d->off;

	switch (d->type) {
	case DM_P_DOUBLE:
		return *(const double *)b;
	case DM_P_U32:
		return *(const uint32_t *)b;
	case DM_P_U64:
		return (double)*(const uint64_t *)b;
	case DM_P_GIB:
		return (double)*(const uint64_t *)b / (1024.0 * 1024 * 1024);
	}
	return 0;
}

int devmodel_set_param(struct devmodel_params *p, const char *name, const char *value, char *err,
		       size_t errlen)
{
	const struct dm_param *d;

	for (size_t i = 0; (d = param_at(i)); i++) {
		char *b = (char *)p + d->off;
		char *end;
		double v;

		if (strcmp(name, d->name))
			continue;
		errno = 0;
		if (d->type == DM_P_U32 || d->type == DM_P_U64) {
			unsigned long long u;

			if (!value || *value == '-')
				goto bad;
			u = strtoull(value, &end, 0);
			if (errno || end == value || *end)
				goto bad;
			if ((double)u < d->min || (double)u > d->max)
				goto range;
			if (d->type == DM_P_U32)
				*(uint32_t *)b = (uint32_t)u;
			else
				*(uint64_t *)b = u;
			return 0;
		}
		v = value ? strtod(value, &end) : 0;
		if (!value || errno || end == value || *end || v != v)
			goto bad;
		if (v < d->min || v > d->max)
			goto range;
		if (d->type == DM_P_DOUBLE)
			*(double *)b = v;
		else
			*(uint64_t *)b = (uint64_t)(v * 1024 * 1024 * 1024);
		return 0;
	bad:
		snprintf(err, errlen, "%s=%s: not a number", name, value ? value : "");
		return -1;
	range:
		snprintf(err, errlen, "%s=%s: out of range %g..%g", name, value, d->min, d->max);
		return -1;
	}
	snprintf(err, errlen, "%s: no such device model parameter", name);
	return -1;
}

int devmodel_params_check(const struct devmodel_params *p, char *err, size_t errlen)
{
	if ((unsigned int)p->kind >= DEVMODEL_NR_KINDS) {
		snprintf(err, errlen, "device model kind %d: unknown", (int)p->kind);
		return -1;
	}
	const struct dm_param *d;

	for (size_t i = 0; (d = param_at(i)); i++) {
		double v = pget(p, d);

		if (v < d->min || v > d->max) {
			snprintf(err, errlen, "%s=%g: out of range %g..%g", d->name, v, d->min,
				 d->max);
			return -1;
		}
	}
	/* Every kind's checks, as every kind's ranges: a parameter set is valid for any kind. */
	for (int k = 0; k < DEVMODEL_NR_KINDS; k++)
		if (dm_ops_table[k]->check && dm_ops_table[k]->check(p, err, errlen))
			return -1;
	if (p->capacity_bytes < (1u << 20)) {
		snprintf(err, errlen, "dev_capacity_gib: below 1 MiB");
		return -1;
	}
	return 0;
}

/* The state: struct devmodel, slots, heap, then the kind's own (p checked). */
static size_t layout(const struct devmodel_params *p, size_t *off_slots, size_t *off_heap,
		     size_t *off_kind)
{
	const struct devmodel_ops *ops;
	size_t off = ALIGN8(sizeof(struct devmodel));

	*off_slots = off;
	off = ALIGN8(off + (size_t)p->queue_depth * sizeof(struct dm_slot));
	*off_heap = off;
	off = ALIGN8(off + (size_t)p->queue_depth * sizeof(uint32_t));
	*off_kind = off;
	ops = devmodel_ops_of(p->kind);
	return ops->size ? ops->size(p, off) : off;
}

size_t devmodel_size(const struct devmodel_params *p)
{
	char err[8];
	size_t a, b, c;

	if (devmodel_params_check(p, err, sizeof(err)))
		return 0;
	return layout(p, &a, &b, &c);
}

struct devmodel *devmodel_create_in(void *mem, size_t size, const struct devmodel_params *p,
				    uint64_t now)
{
	struct devmodel *m = mem;
	struct dm_slot *slots;
	size_t need = devmodel_size(p), off_kind;

	if (!mem || !need || size < need || ((uintptr_t)mem & 7))
		return NULL;
	memset(mem, 0, need);
	m->magic = DM_MAGIC;
	m->qd = p->queue_depth;
	m->p = *p;
	m->size = layout(p, &m->off_slots, &m->off_heap, &off_kind);
	/* splitmix64 of the seed: a non-zero xorshift state. */
	m->rng = p->seed + 0x9e3779b97f4a7c15ull;
	m->rng = (m->rng ^ (m->rng >> 30)) * 0xbf58476d1ce4e5b9ull;
	m->rng = (m->rng ^ (m->rng >> 27)) * 0x94d049bb133111ebull;
	m->rng ^= m->rng >> 31;
	if (!m->rng)
		m->rng = 1;
	slots = dm_slots(m);
	for (uint32_t i = 0; i < m->qd; i++) {
		slots[i].state = DM_SLOT_FREE;
		slots[i].next_free = i + 1 < m->qd ? (int32_t)(i + 1) : -1;
	}
	m->free_head = 0;
	if (devmodel_ops_of(p->kind)->init)
		devmodel_ops_of(p->kind)->init(m, off_kind, now);
	return m;
}

uint64_t dm_rand(struct devmodel *m)
{
	uint64_t x = m->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	m->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

double dm_rand_unit(struct devmodel *m)
{
	return (double)(dm_rand(m) >> 11) * (1.0 / 9007199254740992.0);
}

/* Completion heap: slots ordered by (done_ns, seq). */
static bool heap_less(struct dm_slot *s, uint32_t a, uint32_t b)
{
	if (s[a].done_ns != s[b].done_ns)
		return s[a].done_ns < s[b].done_ns;
	return s[a].seq < s[b].seq;
}

void dm_complete_at(struct devmodel *m, uint32_t slot, uint64_t done_ns)
{
	struct dm_slot *s = dm_slots(m);
	uint32_t *h = dm_heap(m);
	uint32_t i = m->nheap++;

	s[slot].done_ns = done_ns;
	s[slot].state = DM_SLOT_DONE;
	while (i > 0) {
		uint32_t parent = (i - 1) / 2;

		if (!heap_less(s, slot, h[parent]))
			break;
		h[i] = h[parent];
		i = parent;
	}
	h[i] = slot;
}

static uint32_t heap_pop(struct devmodel *m)
{
	struct dm_slot *s = dm_slots(m);
	uint32_t *h = dm_heap(m);
	uint32_t top = h[0], last = h[--m->nheap], i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= m->nheap)
			break;
		if (c + 1 < m->nheap && heap_less(s, h[c + 1], h[c]))
			c++;
		if (!heap_less(s, h[c], last))
			break;
		h[i] = h[c];
		i = c;
	}
	if (m->nheap)
		h[i] = last;
	return top;
}

static void advance(struct devmodel *m, uint64_t now)
{
	const struct devmodel_ops *ops = devmodel_ops_of(m->p.kind);

	if (ops->advance)
		ops->advance(m, now);
}

int devmodel_submit(struct devmodel *m, uint64_t id, uint64_t offset, uint64_t len,
		    enum devmodel_op op, uint64_t now)
{
	struct dm_slot *s;
	uint64_t cap_sect = m->p.capacity_bytes >> DM_SECTOR_SHIFT;
	uint32_t i;

	if ((unsigned int)op > DEVMODEL_DISCARD || m->free_head < 0)
		return -1;
	if ((op == DEVMODEL_READ || op == DEVMODEL_WRITE) && !len)
		return -1;
	if (len > (1ull << 31))
		return -1;
	advance(m, now);
	i = (uint32_t)m->free_head;
	s = &dm_slots(m)[i];
	m->free_head = s->next_free;
	s->id = id;
	s->len = len;
	s->lba = offset >> DM_SECTOR_SHIFT;
	if (s->lba >= cap_sect) /* wrap beyond the capacity; a division only then */
		s->lba %= cap_sect;
	s->nsect = (uint32_t)((len + (1u << DM_SECTOR_SHIFT) - 1) >> DM_SECTOR_SHIFT);
	if (s->lba + s->nsect > cap_sect)
		s->lba = cap_sect > s->nsect ? cap_sect - s->nsect : 0;
	s->op = (uint8_t)op;
	s->submit_ns = now;
	s->seq = ++m->seq;
	s->next_free = -1;
	if (!m->st.submitted++)
		m->st.first_submit_ns = now;
	m->st.ops[op]++;
	if (op <= DEVMODEL_WRITE)
		m->st.bytes[op] += len;
	if (op == DEVMODEL_READ)
		m->st.read_writes_ahead += m->st.writes_in_flight;
	else if (op == DEVMODEL_WRITE) {
		m->st.writes_in_flight++;
		if (s->lba < m->st.last_write_lba)
			m->st.writes_backward++;
		if (s->lba != m->st.last_write_end)
			m->st.writes_discontig++;
		m->st.last_write_lba = s->lba;
		m->st.last_write_end = s->lba + s->nsect;
	}
	if (++m->st.in_flight > m->st.max_in_flight)
		m->st.max_in_flight = m->st.in_flight;
	devmodel_ops_of(m->p.kind)->submit(m, i, now);
	return 0;
}

uint64_t devmodel_next_completion(const struct devmodel *m)
{
	const struct devmodel_ops *ops = devmodel_ops_of(m->p.kind);
	uint64_t t = DEVMODEL_NO_COMPLETION;

	if (m->nheap)
		t = dm_slots((struct devmodel *)m)[dm_heap((struct devmodel *)m)[0]].done_ns;
	if (ops->next_event) {
		uint64_t e = ops->next_event(m);

		if (e < t)
			t = e;
	}
	return t;
}

int devmodel_reap(struct devmodel *m, uint64_t now, uint64_t *ids, int max)
{
	struct dm_slot *slots = dm_slots(m);
	int n = 0;

	advance(m, now);
	while (n < max && m->nheap && slots[dm_heap(m)[0]].done_ns <= now) {
		uint32_t i = heap_pop(m);

		ids[n++] = slots[i].id;
		m->st.svc_ns[slots[i].op] += slots[i].done_ns - slots[i].submit_ns;
		m->st.done[slots[i].op]++;
		m->st.last_done_ns = slots[i].done_ns;
		if (slots[i].op == DEVMODEL_WRITE)
			m->st.writes_in_flight--;
		slots[i].state = DM_SLOT_FREE;
		slots[i].next_free = m->free_head;
		m->free_head = (int32_t)i;
		m->st.completed++;
		m->st.in_flight--;
	}
	return n;
}

uint32_t devmodel_in_flight(const struct devmodel *m)
{
	return m->st.in_flight;
}

uint32_t devmodel_queue_depth(const struct devmodel *m)
{
	return m->qd;
}

enum devmodel_kind devmodel_kind(const struct devmodel *m)
{
	return m->p.kind;
}

const struct devmodel_stats *devmodel_stats(const struct devmodel *m)
{
	return &m->st;
}
