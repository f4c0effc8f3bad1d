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
	/* Read ahead at least this far past a media read (MINIMUM PRE-FETCH). */
	uint64_t min_ra_sect;
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

/* Parameter descriptors: one table common to every kind, one per kind in its own file. */
enum dm_ptype { DM_P_DOUBLE, DM_P_U32, DM_P_U64, DM_P_GIB };

struct dm_param {
	const char *name;
	enum dm_ptype type;
	size_t off; /* in struct devmodel_params */
	double min, max;
	const char *help;
};

#define DM_PO(f) offsetof(struct devmodel_params, f)

/*
 * What a kind does, one const table per kind in its own file (like sched_policy_ops). The
 * model state keeps only p.kind, never a pointer to this table: the state may be shared by
 * processes that map it at different addresses, and a table's address is per process. The core
 * looks the table up by kind on every call (devmodel_ops_of()).
 */
struct devmodel_ops {
	const char *name;  /* devmodel_kind_name() */
	const char *alias; /* also accepted by devmodel_kind_by_name(); may be NULL */
	/* The kind's parameters ("<kind>_*"); checked and settable whatever p->kind is. */
	const struct dm_param *params;
	size_t nr_params;
	/* Fills the kind's own parameter block; done for every kind (any may be set). Optional. */
	void (*param_defaults)(struct devmodel_params *p);
	/* Adjusts the common defaults (queue depth, capacity) of a model of this kind. Optional. */
	void (*defaults)(struct devmodel_params *p);
	/*
	 * Checks beyond the ranges of params, on any kind's parameters (as the ranges are).
	 * Returns 0, or -1 with a message in err. Optional.
	 */
	int (*check)(const struct devmodel_params *p, char *err, size_t errlen);
	/* End of the kind's state, which starts at off. Optional: no state of its own. */
	size_t (*size)(const struct devmodel_params *p, size_t off);
	/* Builds the kind's state at off (m->p set, slots free). Optional. */
	void (*init)(struct devmodel *m, size_t off, uint64_t now);
	/* The request in slot (filled in) reached the device: schedule its completion. */
	void (*submit)(struct devmodel *m, uint32_t slot, uint64_t now);
	/* Replays internal events up to now, before every submit and reap. Optional. */
	void (*advance)(struct devmodel *m, uint64_t now);
	/* The next internal event (DEVMODEL_NO_COMPLETION: none). Optional. */
	uint64_t (*next_event)(const struct devmodel *m);
};

extern const struct devmodel_ops dm_null_ops;
extern const struct devmodel_ops dm_hdd_ops;
extern const struct devmodel_ops dm_ssd_ops;
extern const struct devmodel_ops dm_cloud_ssd_ops;

/* The kinds' ops tables (constant: read-only data of whichever process calls). */
extern const struct devmodel_ops *const dm_ops_table[DEVMODEL_NR_KINDS];

/* The ops of a kind already checked (devmodel_params_check() at creation): no range check. */
static inline const struct devmodel_ops *devmodel_ops_of(enum devmodel_kind kind)
{
	return dm_ops_table[kind];
}

#endif
