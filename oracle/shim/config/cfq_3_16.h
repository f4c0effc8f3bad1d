/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel configuration of the cfq_3_16 variant (3.16's cfq-iosched.c, the 2014 seed's kernel),
 * included first in each of its files (build-variant.sh): as cfq_4_1.h, whose blkio controller
 * interface (oracle_legacy_old.h) 3.16 already had; 3.16 keys check_blkcg_changed() by the
 * blkcg's id where 4.1 has css.serial_nr (both unique per cgroup here).
 */
#define ORACLE_BOOT_NS		 (1000ULL * 1000000000ULL)
#define CONFIG_BLK_CGROUP	 1
#define CONFIG_CFQ_GROUP_IOSCHED 1
#define ORACLE_BLKCG_OLD	 1
#include "oracle_kernel.h"
#include "oracle_legacy.h"
#include "oracle_legacy_old.h"
