/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel configuration of the bfq_4_12 variant, included first in each of its files
 * (build-variant.sh): bfq with cgroup support (CONFIG_BFQ_GROUP_IOSCHED), so each group of the
 * simulator is a blkcg whose io.bfq.weight is the group's weight; no CONFIG_BFQ_CGROUP_DEBUG
 * (the statistics it adds change no decision).
 */
/* The embedded bfq counts the kernel's jiffy fields at BFQ_HZ (250, a distribution kernel's
 * CONFIG_HZ; sched/bfq_internal.h): the kernel file runs at the same HZ, whatever ORACLE_HZ the
 * other variants are built with (budget timeouts, raising periods and burst intervals are
 * jiffies, and round with HZ). */
#undef ORACLE_HZ
#define ORACLE_HZ 250
#define CONFIG_BLK_CGROUP 1
#define CONFIG_BFQ_GROUP_IOSCHED 1
#include "oracle_kernel.h"
#include "oracle_bfq.h"
