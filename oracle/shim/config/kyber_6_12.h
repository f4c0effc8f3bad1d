/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel configuration of the kyber_6_12 variant, included first in each of its files
 * (build-variant.sh): the whole sbitmap (its token pools decide dispatch, oracle_sbitmap.h) and
 * kyber's other needs (oracle_kyber.h); no CONFIG_BLK_DEBUG_FS. HZ=250, as the embedded kyber
 * counts its timer (HZ/10) and its one-second sample deadline.
 */
#undef ORACLE_HZ
#define ORACLE_HZ      250
#define ORACLE_SBITMAP 1
#include "oracle_kernel.h"
#include "oracle_kyber.h"
