/* SPDX-License-Identifier: GPL-2.0 */
/* <linux/u64_stats_sync.h>: the oracle shim (oracle_kernel.h). */
#include "oracle_kernel.h"
