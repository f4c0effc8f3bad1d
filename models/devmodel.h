/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device models: when does a request dispatched to the device complete?
 *
 * Pure C: no fio headers, no syscalls, no clock, no malloc, no globals. Time is an argument in
 * nanoseconds (virtual time under the simulator and the unit tests, CLOCK_MONOTONIC under the
 * engine); calls must come with non-decreasing `now`. All state lives in one caller-provided
 * block (devmodel_size() bytes, 8-byte aligned) holding no pointers, so it may sit in memory
 * shared by processes and even be mapped at different addresses.
 *
 * Protocol:
 *   devmodel_submit(m, id, offset, len, op, now)   a request reaches the device (at most
 *                                                   queue_depth in the device at once)
 *   devmodel_next_completion(m)                     when to call devmodel_reap() next
 *   devmodel_reap(m, now, ids, max)                 ids completed at or before now, in
 *                                                   completion order (time, then submission)
 * The device works on its own between calls: internal events (an HDD finishing a media
 * operation, destaging its write cache) are replayed lazily up to `now` by every call.
 * devmodel_next_completion() may name such an internal event, at which devmodel_reap() returns
 * nothing; it never lies late, so reaping exactly at the times it gives misses no completion.
 *
 * Kinds, and where the default numbers come from (seeds in /work/shared/seeds):
 *
 * null   Completes at `now`: the time of submission.
 *
 * hdd    A 7200 rpm 1 TB SATA disk like the SAMSUNG HD103SJ of the 2017 seed (bfq-mq vs cfq).
 *        - One actuator. Seek time t(d) = track + (full - track) * sqrt(d / capacity) for a
 *          distance of d sectors of at least one track, 0 within a track: track-to-track 1 ms,
 *          full stroke 16 ms, so a random seek averages 1 + 15 * 8/15 = 9 ms (HD103SJ data
 *          sheet: 8.9 ms). Addresses stand for cylinders: no zones, no head switches.
 *        - Rotation: 7200 rpm (8.33 ms). Angle-based latency: sector s sits at angle
 *          (s mod spt)/spt, the platter's phase is (now + phase0) mod T, phase0 drawn from the
 *          seed; spt (sectors per track) = media rate * T / 512 = 1 MB per track.
 *        - Media rate 120 MB/s everywhere (2014 seed: single-thread sequential read 121.88
 *          MB/s on a mid-range desktop disk; HD103SJ ranges ~140 outer to ~70 inner).
 *        - Per command 35 us of controller time plus the SATA 3 Gb/s link (300 MB/s): a 4 KiB
 *          cache hit costs ~49 us, so a 4 KiB QD1 sequential read runs at ~20k IOPS in the
 *          device, ~17k with a few us of host time per I/O: the 17060 of the 2017 seed.
 *        - Read cache: 16 segments; after a media read the drive keeps reading ahead (while it
 *          has nothing else to do) up to 512 KiB past the last host read of the stream. A read
 *          inside a segment completes after the command overhead and the link transfer; a read
 *          the read-ahead is about to reach waits for it. So sequential reads stream at the
 *          media rate and a stream interrupted by other work keeps what was read ahead.
 *        - NCQ: queue depth 32 (SATA). Among queued commands the mechanism takes the one with
 *          the shortest positioning time (seek + rotational wait), except that one older than
 *          hdd_ncq_age_ms (500) goes first (drives bound the starvation of SPTF).
 *        - Write-back cache on (SATA drives ship with WCE=1): a write is acknowledged after
 *          command overhead + link transfer and becomes a dirty extent (coalesced with an
 *          adjacent one); extents are destaged by the same mechanism, chosen by SPTF like host
 *          commands, but only when no host command waits, when the cache is more than half
 *          full, or when a flush waits. 8 MiB / 64 extents; a write that does not fit goes
 *          through to the media as an uncached command. A flush completes when every extent
 *          dirty at its arrival is on the media. hdd_write_cache=0: writes are media commands.
 *        The model gives ~120 MB/s sequential, ~80 random 4 KiB reads/s at QD1 (9 ms seek +
 *        4.2 ms rotation + overhead) and about twice that with 32 commands queued.
 *
 * ssd    The local SATA SSD of the 2015 seed (cfq-iops-mode-on-ssd): fio 10 jobs x iodepth 64
 *        4 KiB random reads gave 21626 IOPS with slice_idle=0 and 19320 with CFQ idling, which
 *        keeps at most quantum (8) requests of one queue in the device. A front end (one
 *        command at a time: ssd_cmd_us 38.8 + length over the 550 MB/s SATA link, so 46.2 us
 *        for 4 KiB: 21.6k IOPS) feeds 4 flash units chosen by address (4 KiB stripes); a unit
 *        is busy ssd_read_us 130 (+-10%) + length at 400 MB/s per read, then ssd_lat_us 5 of
 *        fixed latency. Measured in virtual time, 4 KiB random reads, closed loop:
 *          in flight   1     2     4     6     8     16    32 (NCQ depth)
 *          kIOPS       5.2   9.7   16.0  19.4  21.0  21.6  21.6   (QD1 latency 0.19 ms)
 *        so the 32 tags of the seed's 640 outstanding saturate at 21.6k, and the <= 8 that
 *        CFQ's idling allows lose a little (unit collisions) before CFQ's own losses.
 *        Writes: ssd_write_us 60 per unit (DRAM-buffered program); a flush waits for every
 *        unit to go idle, plus ssd_flush_us 500.
 *
 * cloud-ssd  The cloud block device of the same seed: 29255 IOPS at 640 outstanding (21.8 ms,
 *        i.e. all 640 queued somewhere: Little), and 7054 IOPS with CFQ idling. The latter puts
 *        at most quantum = 8 requests in the device, so the device's low-depth latency must be
 *        about 8/7054 s = 1.1 ms (the 2-3 ms one could guess for a network disk would cap CFQ
 *        at ~3-4k IOPS). Hence: a front end that admits one command per cloud_cmd_us = 34 us
 *        (the provider's IOPS throttle: 29.4k), 64 backend units taken earliest-free with
 *        0.6 ms of service, and 0.46 ms of fixed network latency (both +-25%): QD1 1.09 ms,
 *        throughput growing linearly with depth up to the throttle at ~32 in flight:
 *          in flight   1     4     8     16    32    64 (queue depth)
 *          kIOPS       0.91  3.65  7.28  14.5  27.7  29.4
 *        Flush: every unit idle plus cloud_flush_us 1000.
 *
 * Every number is a parameter (devmodel_set_param(), names below), overridable per run.
 */
#ifndef ENGINE_DEVMODEL_H
#define ENGINE_DEVMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum devmodel_kind {
	DEVMODEL_NULL = 0,
	DEVMODEL_HDD,
	DEVMODEL_SSD,
	DEVMODEL_CLOUD_SSD,
	DEVMODEL_NR_KINDS,
};

/* Operations: the same values as enum sched_op, so rq->op can be passed as it is. */
enum devmodel_op {
	DEVMODEL_READ = 0,
	DEVMODEL_WRITE = 1,
	DEVMODEL_FLUSH = 2,
	DEVMODEL_DISCARD = 3,
};

#define DEVMODEL_NO_COMPLETION	 UINT64_MAX
#define DEVMODEL_MAX_QUEUE_DEPTH 65536
#define DEVMODEL_MAX_UNITS	 4096

struct devmodel_hdd_params {
	double rpm;		 /* hdd_rpm */
	double seek_track_ms;	 /* hdd_seek_track_ms: track-to-track, settle included */
	double seek_full_ms;	 /* hdd_seek_full_ms: full stroke */
	double media_mbps;	 /* hdd_media_mbps: MB/s (1e6 B/s) off the platter */
	double bus_mbps;	 /* hdd_bus_mbps: host link MB/s */
	double cmd_us;		 /* hdd_cmd_us: controller time per command */
	uint32_t ncq_reorder;	 /* hdd_ncq_reorder: 1 SPTF, 0 FIFO */
	double ncq_age_ms;	 /* hdd_ncq_age_ms: older commands go first (0: never) */
	uint32_t readahead_kib;	 /* hdd_readahead_kib: 0 disables the read cache */
	uint32_t cache_segments; /* hdd_cache_segments */
	uint32_t min_readahead_kib; /* hdd_min_readahead_kib: read ahead this far before a queued
				     * command moves the head (0: stop at once) */
	uint32_t write_cache;	 /* hdd_write_cache: 1 write-back, 0 write-through */
	uint32_t wcache_kib;	 /* hdd_wcache_kib */
	uint32_t wcache_extents; /* hdd_wcache_extents */
};

/* ssd and cloud-ssd: a front end, parallel units, a fixed latency. */
struct devmodel_flash_params {
	double cmd_us;		  /* <kind>_cmd_us: front end, per command, one at a time */
	double link_mbps;	  /* <kind>_link_mbps: front end per byte; 0 = no limit */
	uint32_t units;		  /* <kind>_units */
	uint32_t unit_by_address; /* <kind>_unit_by_address: 1 stripes, 0 earliest free */
	uint32_t stripe_kib;	  /* <kind>_stripe_kib */
	double read_us;		  /* <kind>_read_us: unit busy per read */
	double write_us;	  /* <kind>_write_us: unit busy per write */
	double unit_mbps;	  /* <kind>_unit_mbps: unit per byte; 0 = no size term */
	double lat_us;		  /* <kind>_lat_us: fixed latency after the unit */
	double flush_us;	  /* <kind>_flush_us */
	double jitter_pct;	  /* <kind>_jitter_pct: uniform +-% on unit time and latency */
};

struct devmodel_params {
	enum devmodel_kind kind;
	uint32_t queue_depth;	 /* dev_queue_depth: commands the device holds */
	uint64_t capacity_bytes; /* dev_capacity_gib */
	uint64_t seed;		 /* dev_seed: rotation phase, jitter */
	struct devmodel_hdd_params hdd;
	struct devmodel_flash_params ssd;
	struct devmodel_flash_params cloud;
};

struct devmodel_stats {
	uint64_t submitted, completed;
	uint64_t ops[4];	/* by enum devmodel_op */
	uint64_t bytes[2];	/* read, written */
	uint64_t read_hits;	/* hdd: served from the read cache (incl. read-ahead waits) */
	uint64_t cached_writes; /* hdd: absorbed by the write-back cache */
	uint64_t media_ops;	/* hdd: mechanism operations, destages included */
	uint64_t seeks;		/* hdd: media operations that moved the arm */
	uint64_t min_prefetches; /* hdd: media reads whose minimum pre-fetch held the head */
	uint64_t destages;	/* hdd: write-cache extents written */
	uint64_t aged_picks;	/* hdd: commands taken by age (hdd_ncq_age_ms), not position */
	uint64_t busy_ns;	/* hdd: mechanism busy; flash: front end busy */
	/* Submit to completion in the model, by enum devmodel_op: where a request waited. Their sum
	 * over a span of time is the integral of the requests in the model (devmodel_occupancy()).
	 */
	uint64_t svc_ns[4];
	uint64_t done[4]; /* completed (reaped), by enum devmodel_op: what svc_ns[] divides by */
	/* Over reads, the writes in the model when the read arrived (what it may queue behind). */
	uint64_t read_writes_ahead;
	/* Writes that start below the previous write's start: reordered on the way to the device.
	 */
	uint64_t writes_backward;
	/* Writes that do not start where the previous write ended (a gap or a jump). */
	uint64_t writes_discontig;
	uint64_t last_write_lba, last_write_end;
	uint64_t first_submit_ns, last_done_ns; /* the span devmodel_occupancy() divides by */
	uint32_t in_flight, max_in_flight;
	uint32_t writes_in_flight; /* up at submit, down at reap */
};

struct devmodel;

/* "null", "hdd", "ssd", "cloud-ssd" (also "cloud"); -1 when unknown. */
int devmodel_kind_by_name(const char *name);
const char *devmodel_kind_name(enum devmodel_kind kind);

/* The defaults of a kind (see above). */
struct devmodel_params devmodel_params_defaults(enum devmodel_kind kind);
/*
 * Sets one parameter by name from text: "dev_queue_depth", "dev_capacity_gib", "dev_seed",
 * "hdd_*", "ssd_*", "cloud_*" (the names in the structures above; any kind's parameters may be
 * set, only those of p->kind matter). Returns 0, or -1 with a one-line message in err.
 */
int devmodel_set_param(struct devmodel_params *p, const char *name, const char *value, char *err,
		       size_t errlen);
/* 1: a parameter of kind (or of every kind: dev_*), 0: of another kind only, -1: unknown. */
int devmodel_param_kind(enum devmodel_kind kind, const char *name);
/* Visits every parameter name with its help text, for option tables and documentation. */
void devmodel_param_names(void (*fn)(const char *name, const char *help, void *arg), void *arg);
/* Checks ranges; returns 0, or -1 with a one-line message in err. */
int devmodel_params_check(const struct devmodel_params *p, char *err, size_t errlen);

/* Bytes of state for p (0 when p is invalid). */
size_t devmodel_size(const struct devmodel_params *p);
/* Builds a model in mem (8-byte aligned, size >= devmodel_size(p)); NULL when it cannot. */
struct devmodel *devmodel_create_in(void *mem, size_t size, const struct devmodel_params *p,
				    uint64_t now);

/*
 * A request reaches the device. offset and len in bytes (len may be 0 for a flush). Returns 0,
 * or -1 when the device already holds queue_depth requests or the arguments are invalid.
 */
int devmodel_submit(struct devmodel *m, uint64_t id, uint64_t offset, uint64_t len,
		    enum devmodel_op op, uint64_t now);
/* Absolute time (ns) of the next completion or internal event; DEVMODEL_NO_COMPLETION if none. */
uint64_t devmodel_next_completion(const struct devmodel *m);
/* Up to max ids of requests completed at or before now, in completion order; returns how many. */
int devmodel_reap(struct devmodel *m, uint64_t now, uint64_t *ids, int max);

uint32_t devmodel_in_flight(const struct devmodel *m);
uint32_t devmodel_queue_depth(const struct devmodel *m);
enum devmodel_kind devmodel_kind(const struct devmodel *m);
const struct devmodel_stats *devmodel_stats(const struct devmodel *m);

/*
 * Mean requests (writes: only the writes) in the model from its first submission to its last
 * completion: the time the completed requests spent in it over that span (those still in it are
 * left out).
 */
static inline double devmodel_occupancy(const struct devmodel_stats *st, bool writes)
{
	uint64_t t = st->last_done_ns - st->first_submit_ns;
	uint64_t sum = st->svc_ns[1];

	if (!writes)
		sum += st->svc_ns[0] + st->svc_ns[2] + st->svc_ns[3];
	return st->completed && t ? (double)sum / (double)t : 0.0;
}

/* Mean of a nanosecond total over n, in microseconds (0 when n is 0): for the statistics. */
static inline double dm_mean_us(uint64_t total_ns, uint64_t n)
{
	return n ? (double)total_ns / (double)n / 1000.0 : 0.0;
}

#endif
