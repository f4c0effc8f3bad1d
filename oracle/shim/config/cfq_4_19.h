/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel configuration of the cfq_4_19 variant, included first in each of its files
 * (build-variant.sh): cfq with cgroup support (CONFIG_CFQ_GROUP_IOSCHED, as distributions built
 * 4.19), so each group of the simulator is a blkcg whose blkio.weight is the group's weight; no
 * CONFIG_DEBUG_BLK_CGROUP (the statistics it adds change no decision). HZ is the build's
 * (ORACLE_HZ, 250 by default, the distributions'): the embedded CFQ takes its jiffy-sized
 * constants (CFQ_MIN_TT, the one-jiffy slice floors, the IOPS-mode group delay of HZ/5) at
 * cfq_hz, which the streams pin to the same HZ (harness/stream.c). The workload starts 1000 s after boot
 * (ORACLE_BOOT_NS): cfq keeps rb_key in u64, and now - slice_resid or a front insertion 1 s
 * before the first key must not wrap as they cannot on a real system.
 */
#define ORACLE_BOOT_NS		 (1000ULL * 1000000000ULL)
#define CONFIG_BLK_CGROUP	 1
#define CONFIG_CFQ_GROUP_IOSCHED 1
#include "oracle_kernel.h"
#include "oracle_legacy.h"
