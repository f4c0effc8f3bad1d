/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel configuration of the cfq_2_6_32 variant (2.6.32's cfq-iosched.c, the 2009 seed's
 * kernel), included first in each of its files (build-variant.sh): no blkio controller (cfq
 * groups came in 2.6.33), the legacy block core of 2.6.3x (oracle_legacy_26.h). HZ is the
 * build's (ORACLE_HZ); the workload starts 1000 s after boot (ORACLE_BOOT_NS), as cfq_4_19.h.
 */
#define ORACLE_BOOT_NS (1000ULL * 1000000000ULL)
#include "oracle_kernel.h"
#include "oracle_legacy.h"
#include "oracle_legacy_26.h"
