/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel configuration of the cfq_2_6_36 variant (2.6.36's cfq-iosched.c, the 2010 seed's
 * group-idle kernel), included first in each of its files (build-variant.sh): cfq with its
 * blkio groups (CONFIG_BLK_CGROUP, CONFIG_CFQ_GROUP_IOSCHED) through 2.6.36's own
 * block/blk-cgroup.h (copied beside the file, variants.txt) and the shim's block/cfq.h, no
 * CONFIG_DEBUG_BLK_CGROUP; the legacy block core of 2.6.3x (oracle_legacy_26.h). HZ is the
 * build's (ORACLE_HZ); the workload starts 1000 s after boot (ORACLE_BOOT_NS), as cfq_4_19.h.
 */
#define ORACLE_BOOT_NS		 (1000ULL * 1000000000ULL)
#define CONFIG_BLK_CGROUP	 1
#define CONFIG_CFQ_GROUP_IOSCHED 1
#include "oracle_kernel.h"
#include "oracle_legacy.h"
#include "oracle_legacy_26.h"
