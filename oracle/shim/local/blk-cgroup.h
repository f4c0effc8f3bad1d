/* SPDX-License-Identifier: GPL-2.0 */
/* block/blk-cgroup.h (before 4.2 the blkio controller's header was block-local) as the scheduler
 * files see it: the oracle shim (oracle_legacy.h). */
#include "oracle_kernel.h"
