/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel configuration of the cfq_4_1 variant (4.1's cfq-iosched.c), included first in each
 * of its files (build-variant.sh): as cfq_4_19.h (CONFIG_CFQ_GROUP_IOSCHED, no
 * CONFIG_DEBUG_BLK_CGROUP, the workload 1000 s after boot), but HZ is the build's (ORACLE_HZ, 250
 * unless `make oracle ORACLE_HZ=1000`): 4.1's cfq counts every time in jiffies, and the embedded
 * profile (cfq_version=4.1) is told the same HZ through cfq_hz (oracle/harness/stream.c).
 */
#define ORACLE_BOOT_NS		 (1000ULL * 1000000000ULL)
#define CONFIG_BLK_CGROUP	 1
#define CONFIG_CFQ_GROUP_IOSCHED 1
#define ORACLE_BLKCG_OLD	 1
#include "oracle_kernel.h"
#include "oracle_legacy.h"
#include "oracle_legacy_old.h"
