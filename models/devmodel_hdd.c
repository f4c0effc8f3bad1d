// SPDX-License-Identifier: GPL-2.0
/*
 * hdd: one actuator, angle-based rotational latency, read-ahead segments, NCQ with shortest
 * positioning time first, a write-back cache destaged by the same mechanism. See devmodel.h.
 *
 * The mechanism runs one operation at a time (a host media command, a destage, or a read-ahead
 * a cache hit waits for). Its end is an internal event; hdd_advance() replays events up to
 * `now`, choosing the next operation at the end of the previous one exactly as the drive would
 * have, since every command it could consider was submitted (and replayed) before.
 */
#include <math.h>
#include <stdio.h>

#include "devmodel_impl.h"

static size_t hdd_size(const struct devmodel_params *p, size_t off)
{
	off += ((size_t)p->queue_depth * sizeof(uint32_t) + 7) & ~(size_t)7;
	off += (size_t)p->hdd.cache_segments * sizeof(struct dm_seg);
	off += (size_t)p->hdd.wcache_extents * sizeof(struct dm_ext);
	return off;
}

static uint32_t *qlist(struct devmodel *m)
{
	return dm_at(m, m->u.hdd.off_qlist);
}

static struct dm_seg *segs(struct devmodel *m)
{
	return dm_at(m, m->u.hdd.off_seg);
}

static struct dm_ext *exts(struct devmodel *m)
{
	return dm_at(m, m->u.hdd.off_ext);
}

static void hdd_init(struct devmodel *m, size_t off, uint64_t now)
{
	const struct devmodel_hdd_params *hp = &m->p.hdd;
	struct dm_hdd *h = &m->u.hdd;
	double rot_ns = 60e9 / hp->rpm;
	double spt = hp->media_mbps * 1e6 * (rot_ns / 1e9) / 512.0;

	h->cap_sect = m->p.capacity_bytes >> DM_SECTOR_SHIFT;
	h->rot_ns = (uint64_t)(rot_ns + 0.5);
	h->spt = spt < 1 ? 1 : (uint64_t)(spt + 0.5);
	h->phase0 = dm_rand(m) % h->rot_ns;
	h->seek_track_ns = hp->seek_track_ms * 1e6;
	h->seek_span_ns = (hp->seek_full_ms - hp->seek_track_ms) * 1e6;
	h->cmd_ns = (uint64_t)(hp->cmd_us * 1e3 + 0.5);
	h->bus_ns_per_byte = 1000.0 / hp->bus_mbps;
	h->age_ns = (uint64_t)(hp->ncq_age_ms * 1e6);
	h->ra_sect = (uint64_t)hp->readahead_kib * 2;
	h->seg_cap = 2 * h->ra_sect;
	h->min_ra_sect = (uint64_t)hp->min_readahead_kib * 2;
	h->wc_sect = (uint64_t)hp->wcache_kib * 2;
	h->nseg = hp->readahead_kib ? hp->cache_segments : 0;
	h->next = hp->wcache_extents;
	h->reorder = hp->ncq_reorder != 0;
	h->wcache = hp->write_cache != 0;
	h->off_qlist = off;
	h->off_seg = off + (((size_t)m->qd * sizeof(uint32_t) + 7) & ~(size_t)7);
	h->off_ext = h->off_seg + (size_t)hp->cache_segments * sizeof(struct dm_seg);
	h->busy_since = now;
	h->ra_seg = -1;
	/* Memory was zeroed: segments empty, extents free, mechanism idle at sector 0. */
}

static uint64_t xfer_ns(const struct dm_hdd *h, uint64_t nsect)
{
	return nsect * h->rot_ns / h->spt;
}

static uint64_t bus_ns(const struct dm_hdd *h, uint64_t bytes)
{
	return (uint64_t)((double)bytes * h->bus_ns_per_byte);
}

static uint64_t seek_ns(const struct dm_hdd *h, uint64_t from, uint64_t to)
{
	uint64_t d = from > to ? from - to : to - from;

	if (d < h->spt)
		return 0;
	return (uint64_t)(h->seek_track_ns +
			  h->seek_span_ns * sqrt((double)d / (double)h->cap_sect));
}

/* Wait at time t for sector lba to come under the head. */
static uint64_t rot_wait_ns(const struct dm_hdd *h, uint64_t lba, uint64_t t)
{
	uint64_t want = (lba % h->spt) * h->rot_ns / h->spt;
	uint64_t phase = (t + h->phase0) % h->rot_ns;

	return (want + h->rot_ns - phase) % h->rot_ns;
}

/* Positioning time from the head to lba starting at t: seek plus rotational wait. */
static uint64_t position_ns(const struct dm_hdd *h, uint64_t lba, uint64_t t)
{
	uint64_t s = seek_ns(h, h->head, lba);

	return s + rot_wait_ns(h, lba, t + s);
}

/* Sector the read-ahead has reached at t. */
static uint64_t ra_pos_at(const struct dm_hdd *h, uint64_t t)
{
	uint64_t left, dt;

	if (t <= h->ra_time)
		return h->ra_pos;
	left = h->ra_limit - h->ra_pos;
	dt = t - h->ra_time;
	if (dt >= xfer_ns(h, left) + 1)
		return h->ra_limit;
	return h->ra_pos + dt * h->spt / h->rot_ns;
}

/* Time at which the read-ahead reaches sector x (x <= ra_limit); 0 when already read. */
static uint64_t ra_time_of(const struct dm_hdd *h, uint64_t x)
{
	if (x <= h->ra_pos)
		return 0;
	return h->ra_time + ((x - h->ra_pos) * h->rot_ns + h->spt - 1) / h->spt;
}

static void seg_trim(struct dm_hdd *h, struct dm_seg *s)
{
	if (s->end - s->start > h->seg_cap)
		s->start = s->end - h->seg_cap;
}

/* The mechanism leaves the read-ahead: what was read stays in the segment. */
static void ra_stop(struct devmodel *m, uint64_t t)
{
	struct dm_hdd *h = &m->u.hdd;
	struct dm_seg *s;

	if (!h->ra_active)
		return;
	s = &segs(m)[h->ra_seg];
	s->end = ra_pos_at(h, t);
	seg_trim(h, s);
	h->head = s->end;
	h->ra_active = false;
}

/* A media read of [lba, lba + n) ended at t: cache it and read ahead from its end. */
static void ra_start(struct devmodel *m, uint64_t lba, uint64_t n, uint64_t t)
{
	struct dm_hdd *h = &m->u.hdd;
	struct dm_seg *sg = segs(m);
	uint32_t v = 0;

	if (!h->nseg)
		return;
	for (uint32_t k = 0; k < h->nseg; k++) {
		if (sg[k].start == sg[k].end) {
			v = k;
			break;
		}
		if (sg[k].lru < sg[v].lru)
			v = k;
	}
	sg[v].start = lba;
	sg[v].end = lba + n;
	sg[v].lru = ++h->lru_clock;
	h->ra_active = true;
	h->ra_seg = (int32_t)v;
	h->ra_pos = lba + n;
	h->ra_time = t;
	h->ra_limit = lba + n + h->ra_sect;
	if (h->ra_limit > h->cap_sect)
		h->ra_limit = h->cap_sect;
}

/* Flushes whose covered writes are all on the media complete (at t + command time). */
static void flush_check(struct devmodel *m, uint64_t t)
{
	struct dm_hdd *h = &m->u.hdd;
	struct dm_slot *s = dm_slots(m);
	struct dm_ext *e = exts(m);
	uint64_t oldest = UINT64_MAX;

	if (!h->nflush_wait)
		return;
	for (uint32_t k = 0; k < h->next; k++)
		if (e[k].state != DM_EXT_FREE && e[k].first_seq < oldest)
			oldest = e[k].first_seq;
	for (uint32_t i = 0; i < m->qd && h->nflush_wait; i++) {
		if (s[i].state != DM_SLOT_FLUSH_WAIT || oldest <= s[i].flush_seq)
			continue;
		h->nflush_wait--;
		dm_complete_at(m, i, t + h->cmd_ns);
	}
}

static bool destage_allowed(const struct dm_hdd *h)
{
	return h->dirty_sect && (!h->nq || 2 * h->dirty_sect > h->wc_sect || h->nflush_wait);
}

/* The mechanism is free at t: choose and start its next operation, if any. */
static void mech_pick(struct devmodel *m, uint64_t t)
{
	struct dm_hdd *h = &m->u.hdd;
	struct dm_slot *s = dm_slots(m);
	struct dm_ext *e = exts(m);
	uint32_t *q = qlist(m);
	int32_t best_q = -1, best_e = -1, oldest = -1;
	uint64_t best = UINT64_MAX, start, pos, done;

	h->busy = false;
	for (uint32_t k = 0; k < h->nq; k++)
		if (oldest < 0 || s[q[k]].seq < s[q[oldest]].seq)
			oldest = (int32_t)k;
	if (oldest >= 0 &&
	    (!h->reorder || (h->age_ns && t - s[q[oldest]].submit_ns >= h->age_ns))) {
		best_q = oldest;
		if (h->reorder)
			m->st.aged_picks++;
	} else {
		/* Shortest positioning time first; ties to the oldest (queue order is by seq). */
		for (uint32_t k = 0; k < h->nq; k++) {
			struct dm_slot *c = &s[q[k]];
			uint64_t st = c->submit_ns + h->cmd_ns > t ? c->submit_ns + h->cmd_ns : t;
			uint64_t cost = (st - t) + position_ns(h, c->lba, st);

			if (cost < best || (cost == best && c->seq < s[q[best_q]].seq)) {
				best = cost;
				best_q = (int32_t)k;
			}
		}
		if (destage_allowed(h)) {
			for (uint32_t k = 0; k < h->next; k++) {
				uint64_t cost;

				if (e[k].state != DM_EXT_DIRTY)
					continue;
				cost = position_ns(h, e[k].lba, t);
				if (cost < best) {
					best = cost;
					best_e = (int32_t)k;
					best_q = -1;
				}
			}
		}
	}
	if (best_q < 0 && best_e < 0)
		return; /* idle; a running read-ahead goes on */
	ra_stop(m, t);
	h->busy = true;
	h->busy_since = t;
	m->st.media_ops++;
	if (best_q >= 0) {
		uint32_t i = q[best_q];

		q[best_q] = q[--h->nq];
		start = s[i].submit_ns + h->cmd_ns > t ? s[i].submit_ns + h->cmd_ns : t;
		if (seek_ns(h, h->head, s[i].lba))
			m->st.seeks++;
		pos = position_ns(h, s[i].lba, start);
		done = start + pos + xfer_ns(h, s[i].nsect);
		h->cur_op = DM_MECH_HOST;
		h->cur_rw = s[i].op;
		h->cur_idx = (int32_t)i;
		h->cur_lba = s[i].lba;
		h->cur_nsect = s[i].nsect;
		dm_complete_at(m, i, done);
	} else {
		if (seek_ns(h, h->head, e[best_e].lba))
			m->st.seeks++;
		done = t + position_ns(h, e[best_e].lba, t) + xfer_ns(h, e[best_e].nsect);
		e[best_e].state = DM_EXT_DESTAGING;
		h->cur_op = DM_MECH_DESTAGE;
		h->cur_idx = best_e;
		h->cur_lba = e[best_e].lba;
		h->cur_nsect = e[best_e].nsect;
	}
	h->head = h->cur_lba + h->cur_nsect;
	h->busy_until = done;
}

/* The current operation ends at t = busy_until. */
static void mech_finish(struct devmodel *m)
{
	struct dm_hdd *h = &m->u.hdd;
	uint64_t t = h->busy_until;

	m->st.busy_ns += t - h->busy_since;
	h->busy = false;
	switch (h->cur_op) {
	case DM_MECH_HOST:
		if (h->cur_rw == DEVMODEL_READ) {
			ra_start(m, h->cur_lba, h->cur_nsect, t);
			/* The minimum pre-fetch (SCSI caching mode page): read on whatever is
			 * queued; only what lies beyond it gives way to the next command. */
			if (h->ra_active && h->min_ra_sect) {
				uint64_t x = h->cur_lba + h->cur_nsect + h->min_ra_sect;
				uint64_t until = ra_time_of(h, x < h->ra_limit ? x : h->ra_limit);

				if (until > t) {
					m->st.min_prefetches++;
					h->busy = true;
					h->busy_since = t;
					h->cur_op = DM_MECH_RA_WAIT;
					h->busy_until = until;
					return;
				}
			}
		}
		break;
	case DM_MECH_DESTAGE: {
		struct dm_ext *e = &exts(m)[h->cur_idx];

		h->dirty_sect -= e->nsect;
		e->state = DM_EXT_FREE;
		m->st.destages++;
		flush_check(m, t);
		break;
	}
	default:
		break;
	}
	h->cur_op = DM_MECH_NONE;
	mech_pick(m, t);
}

static void hdd_advance(struct devmodel *m, uint64_t now)
{
	struct dm_hdd *h = &m->u.hdd;

	while (h->busy && h->busy_until <= now)
		mech_finish(m);
}

static uint64_t hdd_next_event(const struct devmodel *m)
{
	const struct dm_hdd *h = &m->u.hdd;

	return h->busy ? h->busy_until : DEVMODEL_NO_COMPLETION;
}

/* A read the cache can serve: returns its completion time, or 0 when it must go to the media. */
static uint64_t read_hit(struct devmodel *m, struct dm_slot *s, uint64_t now)
{
	struct dm_hdd *h = &m->u.hdd;
	struct dm_seg *sg = segs(m);
	uint64_t lba = s->lba, end = s->lba + s->nsect;
	uint64_t fast = now + h->cmd_ns + bus_ns(h, s->len);

	if (h->ra_active) {
		struct dm_seg *a = &sg[h->ra_seg];

		if (lba >= a->start && lba <= h->ra_limit) {
			uint64_t reached = ra_pos_at(h, now), ready;

			if (reached == h->ra_limit && h->ra_pos < h->ra_limit) {
				/* Stopped at the window's end: resume once the sector comes round.
				 */
				uint64_t stop = ra_time_of(h, h->ra_limit);

				if (stop < now) {
					h->ra_pos = h->ra_limit;
					h->ra_time = now + rot_wait_ns(h, h->ra_pos, now);
				}
			}
			if (end + h->ra_sect > h->ra_limit)
				h->ra_limit =
				    end + h->ra_sect < h->cap_sect ? end + h->ra_sect : h->cap_sect;
			if (end > h->ra_limit)
				return 0;
			a->lru = ++h->lru_clock;
			ready = ra_time_of(h, end);
			if (ready > now) {
				/* The mechanism goes on reading ahead until then. */
				if (!h->busy) {
					h->busy = true;
					h->busy_since = now;
					h->cur_op = DM_MECH_RA_WAIT;
					h->busy_until = ready;
				} else if (ready > h->busy_until) {
					h->busy_until = ready;
				}
			}
			return ready > fast ? ready : fast;
		}
	}
	for (uint32_t k = 0; k < h->nseg; k++) {
		if (h->ra_active && (int32_t)k == h->ra_seg)
			continue;
		if (lba >= sg[k].start && end <= sg[k].end) {
			sg[k].lru = ++h->lru_clock;
			return fast;
		}
	}
	return 0;
}

/* Absorbs a write into the write-back cache; false when it does not fit. */
static bool cache_write(struct devmodel *m, struct dm_slot *s)
{
	struct dm_hdd *h = &m->u.hdd;
	struct dm_ext *e = exts(m);
	uint64_t lba = s->lba, n = s->nsect;
	int32_t free_k = -1;

	h->wseq++;
	for (uint32_t k = 0; k < h->next; k++) {
		if (e[k].state != DM_EXT_DIRTY) {
			if (e[k].state == DM_EXT_FREE && free_k < 0)
				free_k = (int32_t)k;
			continue;
		}
		if (lba >= e[k].lba && lba + n <= e[k].lba + e[k].nsect)
			return true; /* rewrite of dirty data */
		if (h->dirty_sect + n > h->wc_sect || e[k].nsect + n > UINT32_MAX)
			continue;
		if (e[k].lba + e[k].nsect == lba) {
			e[k].nsect += (uint32_t)n;
			h->dirty_sect += n;
			return true;
		}
		if (lba + n == e[k].lba) {
			e[k].lba = lba;
			e[k].nsect += (uint32_t)n;
			h->dirty_sect += n;
			return true;
		}
	}
	if (free_k < 0 || h->dirty_sect + n > h->wc_sect)
		return false;
	e[free_k].state = DM_EXT_DIRTY;
	e[free_k].lba = lba;
	e[free_k].nsect = (uint32_t)n;
	e[free_k].first_seq = h->wseq;
	h->dirty_sect += n;
	return true;
}

static void hdd_submit(struct devmodel *m, uint32_t i, uint64_t now)
{
	struct dm_hdd *h = &m->u.hdd;
	struct dm_slot *s = &dm_slots(m)[i];
	uint64_t done;

	switch (s->op) {
	case DEVMODEL_READ:
		done = read_hit(m, s, now);
		if (done) {
			m->st.read_hits++;
			dm_complete_at(m, i, done);
			return;
		}
		break;
	case DEVMODEL_WRITE:
		if (h->wcache && cache_write(m, s)) {
			m->st.cached_writes++;
			dm_complete_at(m, i, now + h->cmd_ns + bus_ns(h, s->len));
			if (!h->busy)
				mech_pick(m, now);
			return;
		}
		break;
	case DEVMODEL_FLUSH:
		s->flush_seq = h->wseq;
		if (!h->dirty_sect) {
			dm_complete_at(m, i, now + h->cmd_ns);
			return;
		}
		s->state = DM_SLOT_FLUSH_WAIT;
		h->nflush_wait++;
		if (!h->busy)
			mech_pick(m, now);
		return;
	default:
		dm_complete_at(m, i, now + h->cmd_ns);
		return;
	}
	s->state = DM_SLOT_QUEUED;
	qlist(m)[h->nq++] = i;
	if (!h->busy)
		mech_pick(m, now);
}

/* clang-format off */
static const struct dm_param hdd_params[] = {
    {"hdd_rpm", DM_P_DOUBLE, DM_PO(hdd.rpm), 1000, 30000, "spindle speed"},
    {"hdd_seek_track_ms", DM_P_DOUBLE, DM_PO(hdd.seek_track_ms), 0, 100,
     "track-to-track seek incl. settle, ms"},
    {"hdd_seek_full_ms", DM_P_DOUBLE, DM_PO(hdd.seek_full_ms), 0, 1000, "full-stroke seek, ms"},
    {"hdd_media_mbps", DM_P_DOUBLE, DM_PO(hdd.media_mbps), 1, 1e5, "media transfer rate, MB/s"},
    {"hdd_bus_mbps", DM_P_DOUBLE, DM_PO(hdd.bus_mbps), 1, 1e6, "host link rate, MB/s"},
    {"hdd_cmd_us", DM_P_DOUBLE, DM_PO(hdd.cmd_us), 0, 1e6, "controller time per command, us"},
    {"hdd_ncq_reorder", DM_P_U32, DM_PO(hdd.ncq_reorder), 0, 1,
     "1: shortest positioning time first, 0: FIFO"},
    {"hdd_ncq_age_ms", DM_P_DOUBLE, DM_PO(hdd.ncq_age_ms), 0, 1e6,
     "a command older than this goes first (0: never)"},
    {"hdd_readahead_kib", DM_P_U32, DM_PO(hdd.readahead_kib), 0, 1 << 20,
     "read-ahead window, KiB (0: no read cache)"},
    {"hdd_cache_segments", DM_P_U32, DM_PO(hdd.cache_segments), 1, 1024, "read cache segments"},
    {"hdd_min_readahead_kib", DM_P_U32, DM_PO(hdd.min_readahead_kib), 0, 1 << 20,
     "read-ahead done before a queued command may move the head, KiB (SCSI MINIMUM PRE-FETCH; "
     "0: a queued command stops it)"},
    {"hdd_write_cache", DM_P_U32, DM_PO(hdd.write_cache), 0, 1, "1: write-back, 0: write-through"},
    {"hdd_wcache_kib", DM_P_U32, DM_PO(hdd.wcache_kib), 1, 1 << 22, "write cache size, KiB"},
    {"hdd_wcache_extents", DM_P_U32, DM_PO(hdd.wcache_extents), 1, 65536,
     "dirty extents the write cache tracks"},
};
/* clang-format on */

/* The HD103SJ-like 7200 rpm SATA disk of the 2017 seed: see devmodel.h. */
static void hdd_param_defaults(struct devmodel_params *p)
{
	p->hdd.rpm = 7200;
	p->hdd.seek_track_ms = 1.0;
	p->hdd.seek_full_ms = 16.0;
	p->hdd.media_mbps = 120;
	p->hdd.bus_mbps = 300;
	p->hdd.cmd_us = 35;
	p->hdd.ncq_reorder = 1;
	p->hdd.ncq_age_ms = 500;
	p->hdd.readahead_kib = 512;
	p->hdd.cache_segments = 16;
	p->hdd.write_cache = 1;
	p->hdd.wcache_kib = 8192;
	p->hdd.wcache_extents = 64;
}

static int hdd_check(const struct devmodel_params *p, char *err, size_t errlen)
{
	if (p->hdd.seek_full_ms < p->hdd.seek_track_ms) {
		snprintf(err, errlen, "hdd_seek_full_ms=%g: below hdd_seek_track_ms=%g",
			 p->hdd.seek_full_ms, p->hdd.seek_track_ms);
		return -1;
	}
	if (p->hdd.min_readahead_kib > p->hdd.readahead_kib) {
		snprintf(err, errlen, "hdd_min_readahead_kib=%u: above hdd_readahead_kib=%u",
			 p->hdd.min_readahead_kib, p->hdd.readahead_kib);
		return -1;
	}
	return 0;
}

/* The hdd keeps the common defaults (devmodel_params_defaults()): no .defaults. */
const struct devmodel_ops dm_hdd_ops = {
    .name = "hdd",
    .params = hdd_params,
    .nr_params = sizeof(hdd_params) / sizeof(hdd_params[0]),
    .param_defaults = hdd_param_defaults,
    .check = hdd_check,
    .size = hdd_size,
    .init = hdd_init,
    .submit = hdd_submit,
    .advance = hdd_advance,
    .next_event = hdd_next_event,
};
