/* SPDX-License-Identifier: GPL-2.0 */
/*
 * block/cfq.h of 2.6.3x, as 2.6.36's cfq-iosched.c sees it: cfq's calls into the blkio
 * controller (blk-cgroup.h), through wrappers that are no-ops without CONFIG_CFQ_GROUP_IOSCHED.
 * The statistics change no decision and are not kept; the group list calls are the adapter's
 * (adapt/sq_legacy_26.c). Later kernels have no such file.
 */
#include "oracle_kernel.h"
#if ORACLE_KVER < KV(3, 0) && defined(CONFIG_CFQ_GROUP_IOSCHED)
#include "blk-cgroup.h"
#define cfq_blkiocg_update_io_add_stats(blkg, curr, dir, sync) ((void)(blkg), (void)(curr))
#define cfq_blkiocg_update_dequeue_stats(blkg, n) ((void)(blkg))
#define cfq_blkiocg_update_timeslice_used(blkg, t) ((void)(blkg))
#define cfq_blkiocg_set_start_empty_time(blkg) ((void)(blkg))
#define cfq_blkiocg_update_io_remove_stats(blkg, dir, sync) ((void)(blkg))
#define cfq_blkiocg_update_io_merged_stats(blkg, dir, sync) ((void)(blkg))
#define cfq_blkiocg_update_idle_time_stats(blkg) ((void)(blkg))
#define cfq_blkiocg_update_avg_queue_size_stats(blkg) ((void)(blkg))
#define cfq_blkiocg_update_set_idle_time_stats(blkg) ((void)(blkg))
#define cfq_blkiocg_update_dispatch_stats(blkg, bytes, dir, sync) ((void)(blkg))
#define cfq_blkiocg_update_completion_stats(blkg, start, io_start, dir, sync) ((void)(blkg))
#define cfq_blkiocg_add_blkio_group(blkcg, blkg, key, dev)                                          \
	blkiocg_add_blkio_group(blkcg, blkg, key, dev)
#define cfq_blkiocg_del_blkio_group(blkg) blkiocg_del_blkio_group(blkg)
#endif
