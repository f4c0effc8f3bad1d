/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel configuration of the bfq_6_12 variant, included first in each of its files
 * (build-variant.sh): bfq with cgroup support (CONFIG_BFQ_GROUP_IOSCHED), so each group of the
 * simulator is a blkcg whose io.bfq.weight is the group's weight; no CONFIG_BFQ_CGROUP_DEBUG
 * (the statistics it adds change no decision).
 */
#define CONFIG_BLK_CGROUP 1
#define CONFIG_BFQ_GROUP_IOSCHED 1
#include "oracle_kernel.h"
#include "oracle_bfq.h"
