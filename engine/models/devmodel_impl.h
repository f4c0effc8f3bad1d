/* SPDX-License-Identifier: GPL-2.0 */
/* Device models, private: the state layout shared by devmodel_core.c and the kinds. */
#ifndef ENGINE_DEVMODEL_IMPL_H
#define ENGINE_DEVMODEL_IMPL_H

#include "devmodel.h"

#define DM_MAGIC	0x64766d31u /* "dvm1" */
#define DM_SECTOR_SHIFT 9

enum dm_slot_state {
	DM_SLOT_FREE = 0,
	DM_SLOT_DONE,	    /* completion time known, in the heap */
	DM_SLOT_QUEUED,	    /* hdd: waiting for the mechanism */
	DM_SLOT_FLUSH_WAIT, /* hdd: flush waiting for the write cache to drain */
};

struct dm_slot {
	uint64_t id;
	uint64_t lba; /* sector */
	uint64_t len; /* bytes */
	uint64_t submit_ns;
	uint64_t done_ns;
	uint64_t seq;	    /* submission order: ties and ageing */
	uint64_t flush_seq; /* hdd flush: last cached write it covers */
	uint32_t nsect;
	uint8_t op;
	uint8_t state;
	int32_t next_free;
};

struct dm_seg {
	uint64_t start, end; /* cached sectors [start, end); empty when equal */
	uint64_t lru;
};

enum dm_ext_state { DM_EXT_FREE = 0, DM_EXT_DIRTY, DM_EXT_DESTAGING };

struct dm_ext {
	uint64_t lba;
	uint64_t first_seq; /* oldest cached write in it */
	uint32_t nsect;
	uint32_t state;
};

enum dm_mech_op { DM_MECH_NONE = 0, DM_MECH_HOST, DM_MECH_DESTAGE, DM_MECH_RA_WAIT };

struct dm_hdd {
	uint64_t cap_sect;
	uint64_t spt; /* sectors per track (one revolution) */
	uint64_t rot_ns;
	uint64_t phase0;
	double seek_track_ns, seek_span_ns;
	uint64_t cmd_ns;
	double bus_ns_per_byte;
	uint64_t age_ns;
	uint64_t ra_sect, seg_cap, wc_sect;
	uint32_t nseg, next;
	bool reorder, wcache;
	/* The mechanism. */
	bool busy;
	uint8_t cur_op;	 /* enum dm_mech_op */
	uint8_t cur_rw;	 /* DEVMODEL_READ / WRITE of a host op */
	int32_t cur_idx; /* slot or extent */
	uint64_t cur_lba;
	uint32_t cur_nsect;
	uint64_t busy_until, busy_since;
	uint64_t head; /* sector under the head after the current operation */
	/* Read-ahead of the last media read, while the mechanism has nothing else to do. */
	bool ra_active;
	int32_t ra_seg;
	uint64_t ra_pos, ra_time, ra_limit;
	uint64_t lru_clock;
	/* Write-back cache. */
	uint64_t dirty_sect;
	uint64_t wseq;
	uint32_t nflush_wait;
	uint32_t nq; /* queued host commands, indices in qlist */
	size_t off_qlist, off_seg, off_ext;
};

struct dm_flash {
	uint64_t ctrl_free;
	uint64_t cmd_ns, read_ns, write_ns, lat_ns, flush_ns;
	double link_ns_per_byte, unit_ns_per_byte, jitter;
	uint64_t stripe;
	uint32_t units;
	bool by_address;
	size_t off_units; /* uint64_t free time per unit */
};

struct devmodel {
	uint32_t magic;
	uint32_t qd;
	struct devmodel_params p;
	struct devmodel_stats st;
	uint64_t rng;
	uint64_t seq;
	uint32_t nheap;
	int32_t free_head;
	size_t size;
	size_t off_slots, off_heap;
	union {
		struct dm_hdd hdd;
		struct dm_flash flash;
	} u;
};

static inline struct dm_slot *dm_slots(struct devmodel *m)
{
	return (struct dm_slot *)((char *)m + m->off_slots);
}

static inline uint32_t *dm_heap(struct devmodel *m)
{
	return (uint32_t *)((char *)m + m->off_heap);
}

static inline void *dm_at(struct devmodel *m, size_t off)
{
	return (char *)m + off;
}

uint64_t dm_rand(struct devmodel *m);
/* Uniform in [0, 1). */
double dm_rand_unit(struct devmodel *m);
/* The request now has done_ns: into the completion heap. */
void dm_complete_at(struct devmodel *m, uint32_t slot, uint64_t done_ns);

size_t dm_hdd_size(const struct devmodel_params *p, size_t off);
void dm_hdd_init(struct devmodel *m, size_t off, uint64_t now);
void dm_hdd_submit(struct devmodel *m, uint32_t slot, uint64_t now);
void dm_hdd_advance(struct devmodel *m, uint64_t now);
uint64_t dm_hdd_next_event(const struct devmodel *m);

size_t dm_flash_size(const struct devmodel_params *p, size_t off);
void dm_flash_init(struct devmodel *m, size_t off, uint64_t now);
void dm_flash_submit(struct devmodel *m, uint32_t slot, uint64_t now);

#endif
