// SPDX-License-Identifier: GPL-2.0
/* Device models: parameters, state layout, the completion heap, the null device. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devmodel_impl.h"

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)

static const char *const kind_names[DEVMODEL_NR_KINDS] = {
    [DEVMODEL_NULL] = "null",
    [DEVMODEL_HDD] = "hdd",
    [DEVMODEL_SSD] = "ssd",
    [DEVMODEL_CLOUD_SSD] = "cloud-ssd",
};

int devmodel_kind_by_name(const char *name)
{
	if (!name)
		return -1;
	for (int k = 0; k < DEVMODEL_NR_KINDS; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	if (!strcmp(name, "cloud"))
		return DEVMODEL_CLOUD_SSD;
	return -1;
}

const char *devmodel_kind_name(enum devmodel_kind kind)
{
	return (unsigned int)kind < DEVMODEL_NR_KINDS ? kind_names[kind] : "?";
}

struct devmodel_params devmodel_params_defaults(enum devmodel_kind kind)
{
	struct devmodel_params p;

	memset(&p, 0, sizeof(p));
	p.kind = kind;
	p.seed = 1;
	p.capacity_bytes = 1000ull * 1000 * 1000 * 1000; /* HD103SJ: 1 TB */
	p.queue_depth = 32;

	p.hdd.rpm = 7200;
	p.hdd.seek_track_ms = 1.0;
	p.hdd.seek_full_ms = 16.0;
	p.hdd.media_mbps = 120;
	p.hdd.bus_mbps = 300;
	p.hdd.cmd_us = 35;
	p.hdd.ncq_reorder = 1;
	p.hdd.ncq_age_ms = 500;
	p.hdd.readahead_kib = 512;
	p.hdd.cache_segments = 16;
	p.hdd.write_cache = 1;
	p.hdd.wcache_kib = 8192;
	p.hdd.wcache_extents = 64;

	/* 2015 local SATA SSD: see devmodel.h. */
	p.ssd.cmd_us = 38.8;
	p.ssd.link_mbps = 550;
	p.ssd.units = 4;
	p.ssd.unit_by_address = 1;
	p.ssd.stripe_kib = 4;
	p.ssd.read_us = 130;
	p.ssd.write_us = 60;
	p.ssd.unit_mbps = 400;
	p.ssd.lat_us = 5;
	p.ssd.flush_us = 500;
	p.ssd.jitter_pct = 10;

	/* 2015 cloud SSD: see devmodel.h. */
	p.cloud.cmd_us = 34;
	p.cloud.link_mbps = 0;
	p.cloud.units = 64;
	p.cloud.unit_by_address = 0;
	p.cloud.stripe_kib = 4;
	p.cloud.read_us = 600;
	p.cloud.write_us = 600;
	p.cloud.unit_mbps = 0;
	p.cloud.lat_us = 460;
	p.cloud.flush_us = 1000;
	p.cloud.jitter_pct = 25;

	switch (kind) {
	case DEVMODEL_NULL:
		p.queue_depth = 1024;
		break;
	case DEVMODEL_SSD:
		p.capacity_bytes = 256ull * 1000 * 1000 * 1000;
		break;
	case DEVMODEL_CLOUD_SSD:
		p.capacity_bytes = 500ull * 1000 * 1000 * 1000;
		p.queue_depth = 64;
		break;
	default:
		break;
	}
	return p;
}

/* The parameter table. */
enum ptype { P_DOUBLE, P_U32, P_U64, P_GIB };

struct pdesc {
	const char *name;
	enum ptype type;
	size_t off;
	double min, max;
	const char *help;
};

/* clang-format off */
#define PO(f) offsetof(struct devmodel_params, f)
#define FLASH_PARAMS(pfx, fld)                                                                   \
	{ pfx "_cmd_us", P_DOUBLE, PO(fld.cmd_us), 0, 1e6, "front end time per command, us" },  \
	{ pfx "_link_mbps", P_DOUBLE, PO(fld.link_mbps), 0, 1e6,                                 \
	  "front end transfer rate MB/s (0: no limit)" },                                        \
	{ pfx "_units", P_U32, PO(fld.units), 1, DEVMODEL_MAX_UNITS, "parallel units" },         \
	{ pfx "_unit_by_address", P_U32, PO(fld.unit_by_address), 0, 1,                          \
	  "1: unit chosen by address stripe, 0: earliest free unit" },                           \
	{ pfx "_stripe_kib", P_U32, PO(fld.stripe_kib), 1, 1 << 20, "address stripe, KiB" },     \
	{ pfx "_read_us", P_DOUBLE, PO(fld.read_us), 0, 1e7, "unit busy time per read, us" },    \
	{ pfx "_write_us", P_DOUBLE, PO(fld.write_us), 0, 1e7, "unit busy time per write, us" }, \
	{ pfx "_unit_mbps", P_DOUBLE, PO(fld.unit_mbps), 0, 1e6,                                 \
	  "unit transfer rate MB/s (0: no size term)" },                                         \
	{ pfx "_lat_us", P_DOUBLE, PO(fld.lat_us), 0, 1e7, "fixed latency after the unit, us" }, \
	{ pfx "_flush_us", P_DOUBLE, PO(fld.flush_us), 0, 1e7, "flush time once idle, us" },     \
	{ pfx "_jitter_pct", P_DOUBLE, PO(fld.jitter_pct), 0, 100,                               \
	  "uniform +-% on unit time and latency" }
/* clang-format on */

static const struct pdesc params[] = {
    {"dev_queue_depth", P_U32, PO(queue_depth), 1, DEVMODEL_MAX_QUEUE_DEPTH,
     "commands the device holds (NCQ depth, tags)"},
    {"dev_capacity_gib", P_GIB, PO(capacity_bytes), 0.001, 1 << 24, "capacity, GiB"},
    {"dev_seed", P_U64, PO(seed), 0, 1.8e19, "seed of rotation phase and jitter"},
    {"hdd_rpm", P_DOUBLE, PO(hdd.rpm), 1000, 30000, "spindle speed"},
    {"hdd_seek_track_ms", P_DOUBLE, PO(hdd.seek_track_ms), 0, 100,
     "track-to-track seek incl. settle, ms"},
    {"hdd_seek_full_ms", P_DOUBLE, PO(hdd.seek_full_ms), 0, 1000, "full-stroke seek, ms"},
    {"hdd_media_mbps", P_DOUBLE, PO(hdd.media_mbps), 1, 1e5, "media transfer rate, MB/s"},
    {"hdd_bus_mbps", P_DOUBLE, PO(hdd.bus_mbps), 1, 1e6, "host link rate, MB/s"},
    {"hdd_cmd_us", P_DOUBLE, PO(hdd.cmd_us), 0, 1e6, "controller time per command, us"},
    {"hdd_ncq_reorder", P_U32, PO(hdd.ncq_reorder), 0, 1,
     "1: shortest positioning time first, 0: FIFO"},
    {"hdd_ncq_age_ms", P_DOUBLE, PO(hdd.ncq_age_ms), 0, 1e6,
     "a command older than this goes first (0: never)"},
    {"hdd_readahead_kib", P_U32, PO(hdd.readahead_kib), 0, 1 << 20,
     "read-ahead window, KiB (0: no read cache)"},
    {"hdd_cache_segments", P_U32, PO(hdd.cache_segments), 1, 1024, "read cache segments"},
    {"hdd_write_cache", P_U32, PO(hdd.write_cache), 0, 1, "1: write-back, 0: write-through"},
    {"hdd_wcache_kib", P_U32, PO(hdd.wcache_kib), 1, 1 << 22, "write cache size, KiB"},
    {"hdd_wcache_extents", P_U32, PO(hdd.wcache_extents), 1, 65536,
     "dirty extents the write cache tracks"},
    FLASH_PARAMS("ssd", ssd),
    FLASH_PARAMS("cloud", cloud),
};

#define NR_PARAMS (sizeof(params) / sizeof(params[0]))

void devmodel_param_names(void (*fn)(const char *name, const char *help, void *arg), void *arg)
{
	for (size_t i = 0; i < NR_PARAMS; i++)
		fn(params[i].name, params[i].help, arg);
}

static double pget(const struct devmodel_params *p, const struct pdesc *d)
{
	const char *b = (const char *)p + d->off;

	switch (d->type) {
	case P_DOUBLE:
		return *(const double *)b;
	case P_U32:
		return *(const uint32_t *)b;
	case P_U64:
		return (double)*(const uint64_t *)b;
	case P_GIB:
		return (double)*(const uint64_t *)b / (1024.0 * 1024 * 1024);
	}
	return 0;
}

int devmodel_set_param(struct devmodel_params *p, const char *name, const char *value, char *err,
		       size_t errlen)
{
	for (size_t i = 0; i < NR_PARAMS; i++) {
		const struct pdesc *d = &params[i];
		char *b = (char *)p + d->off;
		char *end;
		double v;

		if (strcmp(name, d->name))
			continue;
		errno = 0;
		if (d->type == P_U32 || d->type == P_U64) {
			unsigned long long u;

			if (!value || *value == '-')
				goto bad;
			u = strtoull(value, &end, 0);
			if (errno || end == value || *end)
				goto bad;
			if ((double)u < d->min || (double)u > d->max)
				goto range;
			if (d->type == P_U32)
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
		if (d->type == P_DOUBLE)
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
	for (size_t i = 0; i < NR_PARAMS; i++) {
		double v = pget(p, &params[i]);

		if (v < params[i].min || v > params[i].max) {
			snprintf(err, errlen, "%s=%g: out of range %g..%g", params[i].name, v,
				 params[i].min, params[i].max);
			return -1;
		}
	}
	if (p->hdd.seek_full_ms < p->hdd.seek_track_ms) {
		snprintf(err, errlen, "hdd_seek_full_ms=%g: below hdd_seek_track_ms=%g",
			 p->hdd.seek_full_ms, p->hdd.seek_track_ms);
		return -1;
	}
	if (p->capacity_bytes < (1u << 20)) {
		snprintf(err, errlen, "dev_capacity_gib: below 1 MiB");
		return -1;
	}
	return 0;
}

static size_t layout(const struct devmodel_params *p, size_t *off_slots, size_t *off_heap,
		     size_t *off_kind)
{
	size_t off = ALIGN8(sizeof(struct devmodel));

	*off_slots = off;
	off = ALIGN8(off + (size_t)p->queue_depth * sizeof(struct dm_slot));
	*off_heap = off;
	off = ALIGN8(off + (size_t)p->queue_depth * sizeof(uint32_t));
	*off_kind = off;
	switch (p->kind) {
	case DEVMODEL_HDD:
		return dm_hdd_size(p, off);
	case DEVMODEL_SSD:
	case DEVMODEL_CLOUD_SSD:
		return dm_flash_size(p, off);
	default:
		return off;
	}
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
	switch (p->kind) {
	case DEVMODEL_HDD:
		dm_hdd_init(m, off_kind, now);
		break;
	case DEVMODEL_SSD:
	case DEVMODEL_CLOUD_SSD:
		dm_flash_init(m, off_kind, now);
		break;
	default:
		break;
	}
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
	if (m->p.kind == DEVMODEL_HDD)
		dm_hdd_advance(m, now);
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
	s->lba = (offset >> DM_SECTOR_SHIFT) % cap_sect;
	s->nsect = (uint32_t)((len + (1u << DM_SECTOR_SHIFT) - 1) >> DM_SECTOR_SHIFT);
	if (s->lba + s->nsect > cap_sect)
		s->lba = cap_sect > s->nsect ? cap_sect - s->nsect : 0;
	s->op = (uint8_t)op;
	s->submit_ns = now;
	s->seq = ++m->seq;
	s->next_free = -1;
	m->st.submitted++;
	m->st.ops[op]++;
	if (op <= DEVMODEL_WRITE)
		m->st.bytes[op] += len;
	if (++m->st.in_flight > m->st.max_in_flight)
		m->st.max_in_flight = m->st.in_flight;
	switch (m->p.kind) {
	case DEVMODEL_HDD:
		dm_hdd_submit(m, i, now);
		break;
	case DEVMODEL_SSD:
	case DEVMODEL_CLOUD_SSD:
		dm_flash_submit(m, i, now);
		break;
	default:
		dm_complete_at(m, i, now);
		break;
	}
	return 0;
}

uint64_t devmodel_next_completion(const struct devmodel *m)
{
	uint64_t t = DEVMODEL_NO_COMPLETION;

	if (m->nheap)
		t = dm_slots((struct devmodel *)m)[dm_heap((struct devmodel *)m)[0]].done_ns;
	if (m->p.kind == DEVMODEL_HDD) {
		uint64_t e = dm_hdd_next_event(m);

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
